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

int cli_scenario_params(const scenario *sc, const char *spec,
                        const char *const *plugins, int n_plugins, setting *out,
                        int *n, char *note, size_t len, sb_err *e)
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
