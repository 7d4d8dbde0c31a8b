/*
 * params.c -- the policy parameters a stack gets from the scenario when
 * the user runs another stack than the one the file was written for.
 */
#include <stdio.h>
#include <string.h>

#include "params.h"
#include "scenario.h"

static bool from_set(const setting *s)
{
    return strncmp(s->origin, "--set", 5) == 0;
}

/* "a=1, b=2" of the n settings into buf at *used. */
static void list_settings(const setting *s, int n, char *buf, size_t len,
                          size_t *used)
{
    for (int i = 0; i < n && *used < len; i++)
        *used += (size_t)snprintf(buf + *used, len - *used, "%s%s=%s",
                                  i ? ", " : "", s[i].key, s[i].value);
}

/* Does one of over[0..n_over) set the parameter s sets in stack? */
static bool set_again(const pstack *stack, const setting *s,
                      const setting *over, int n_over)
{
    int li, pi, lj, pj;
    if (pstack_param_index(stack, s, &li, &pi) != 0)
        return false;
    for (int j = 0; j < n_over; j++)
        if (pstack_param_index(stack, &over[j], &lj, &pj) == 0 && lj == li &&
            pj == pi)
            return true;
    return false;
}

/* Leave out of kept[0..*nk) those that later[] or the scenario's --set
 * policy.KEY set again: the run takes theirs, so the note must not say
 * the file's value was kept (it said "kept max_attempts=5" of a run that
 * --policy-from gave 4). */
static void drop_overridden(const scenario *sc, const char *spec,
                            const char *const *plugins, int n_plugins,
                            const setting *later, int n_later, setting *kept,
                            int *nk)
{
    setting over[2 * PSTACK_MAX_SETTINGS];
    int n_over = 0;
    for (int i = 0; i < n_later && n_over < 2 * PSTACK_MAX_SETTINGS; i++)
        over[n_over++] = later[i];
    for (int i = 0; i < sc->n_settings && n_over < 2 * PSTACK_MAX_SETTINGS; i++)
        if (from_set(&sc->settings[i]))
            over[n_over++] = sc->settings[i];
    policy_setup ps;
    sb_err ignored;
    if (*nk == 0 || n_over == 0 ||
        policy_setup_build(spec, plugins, n_plugins, NULL, 0, &ps, &ignored) !=
            0)
        return;
    int left = 0;
    for (int i = 0; i < *nk; i++)
        if (!set_again(ps.stack, &kept[i], over, n_over))
            kept[left++] = kept[i];
    *nk = left;
    policy_setup_free(&ps);
}

int cli_scenario_params(const scenario *sc, const char *spec,
                        const char *const *plugins, int n_plugins,
                        const setting *later, int n_later, setting *out, int *n,
                        char *note, size_t len, sb_err *e)
{
    *n = 0;
    if (note && len)
        note[0] = '\0';
    if (strcmp(spec, sc->file_policy) == 0) {
        for (int i = 0; i < sc->n_settings; i++)
            out[(*n)++] = sc->settings[i];
        return 0;
    }
    setting file[PSTACK_MAX_SETTINGS], kept[PSTACK_MAX_SETTINGS],
        dropped[PSTACK_MAX_SETTINGS];
    int nf = 0, nk = 0, nd = 0;
    for (int i = 0; i < sc->n_settings; i++)
        if (!from_set(&sc->settings[i]))
            file[nf++] = sc->settings[i];
    if (policy_setup_filter(spec, plugins, n_plugins, file, nf, kept, &nk,
                            dropped, &nd, e) != 0)
        return -1;
    /* The file's that still apply, then every --set policy.KEY (written
     * for this stack, whatever the file says). */
    for (int i = 0; i < nk; i++)
        out[(*n)++] = kept[i];
    for (int i = 0; i < sc->n_settings; i++)
        if (from_set(&sc->settings[i]))
            out[(*n)++] = sc->settings[i];
    if (note == NULL || len == 0 || nf == 0)
        return 0;
    drop_overridden(sc, spec, plugins, n_plugins, later, n_later, kept, &nk);
    if (nk == 0 && nd == 0)
        return 0;
    size_t used = (size_t)snprintf(note, len,
                                   "%s: the scenario's [policy] "
                                   "parameters were written for %s",
                                   spec, sc->file_policy);
    if (nk && used < len) {
        used += (size_t)snprintf(note + used, len - used, "; kept ");
        list_settings(kept, nk, note, len, &used);
    }
    if (nd && used < len) {
        used += (size_t)snprintf(note + used, len - used, "; dropped ");
        list_settings(dropped, nd, note, len, &used);
        if (used < len)
            used += (size_t)snprintf(note + used, len - used,
                                     " (not parameters of %s)", spec);
    }
    return 0;
}
