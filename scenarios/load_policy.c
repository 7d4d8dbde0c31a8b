/*
 * load_policy.c -- [policy] and [expect] (load_policy.h).
 */
#include "load_policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "ini_file.h"

int key_policy_name(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    scenario *sc = t->base;
    if (key_text(ld, k, en, t) != 0)
        return -1;
    if (en->origin[0] && snprintf(sc->policy_origin, sizeof sc->policy_origin,
                                  "%s: [policy] name",
                                  en->origin) >= (int)sizeof sc->policy_origin)
        return load_bad(ld->e, en, "has a file path too long to report");
    return 0;
}

int key_plugin(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    (void)k;
    scenario *sc = t->base;
    if (sc->n_plugins == SCENARIO_MAX_PLUGINS)
        return load_bad(ld->e, en, "too many plug-ins");
    if (load_path(ld, en, sc->plugins[sc->n_plugins],
                  sizeof sc->plugins[sc->n_plugins]) != 0)
        return -1;
    sc->n_plugins++;
    return 0;
}

/* Read by load_policy_from before every section: here it is only a
 * known key. */
int key_policy_from(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    (void)ld;
    (void)k;
    (void)en;
    (void)t;
    return 0;
}

/* The imported stack, its parameters and scenario keys as keys of the
 * scenario that it did not write itself.  A topology's tiers are
 * sections of their own, which keys cannot make: its clients' keys
 * apply, and a warning says the tiers do not (as --policy-from). */
static int put_imported(load *ld, const import_result *r, const char *origin)
{
    bool topo = strcmp(r->format, "topology") == 0;
    int rc = ini_file_put_default(ld, "policy", "name", r->policy, origin);
    for (int i = 0; rc == 0 && i < r->n_params; i++)
        rc = ini_file_put_default(ld, "policy", r->params[i].key,
                                  r->params[i].value, r->params[i].origin);
    for (int i = 0; rc == 0 && i < r->n_sets; i++) {
        char section[LOAD_SECTION_MAX];
        const char *key = r->sets[i].key, *dot = strrchr(key, '.');
        if (dot == NULL || (topo && strncmp(key, "clients.", 8) != 0))
            continue;
        snprintf(section, sizeof section, "%.*s", (int)(dot - key), key);
        char where[2400];
        snprintf(where, sizeof where, "%.2200s (%s)", origin, key);
        rc =
            ini_file_put_default(ld, section, dot + 1, r->sets[i].value, where);
    }
    if (rc == 0 && topo) {
        char msg[1400];
        snprintf(msg, sizeof msg,
                 "%s: the topology's clients' policy and "
                 "[clients] keys apply; its tiers do not (paste them from "
                 "'stormbench import %s')",
                 origin, r->path);
        load_warn(ld->sc, msg);
    }
    return rc;
}

int load_policy_from(load *ld)
{
    entry *from = load_find(ld, "policy", "from");
    if (from == NULL)
        return 0;
    entry *name = load_find(ld, "policy", "name");
    if (name && load_from_set(name))
        return 0; /* --set chose another stack */
    if (name)
        return load_bad(ld->e, name,
                        "names the stack, and so does [policy] "
                        "from: keep one (a parameter written beside from "
                        "overrides the imported one)");
    char file[1100], sel[200], path[1100];
    import_split(from->value, file, sizeof file, sel, sizeof sel);
    entry rel = *from;
    snprintf(rel.value, sizeof rel.value, "%s", file);
    if (file[0] == '\0')
        return load_bad_value(ld->e, from,
                              "FILE or FILE#SELECTOR, an "
                              "imported configuration");
    if (load_path(ld, &rel, path, sizeof path) != 0)
        return -1;
    import_result *r = malloc(sizeof *r);
    if (r == NULL)
        return err_set(ld->e, "out of memory");
    sb_err inner;
    int rc = 0;
    if (import_load(path, NULL, sel, r, &inner) != 0)
        rc = load_bad(ld->e, from, inner.msg);
    char origin[sizeof from->origin + sizeof path + 20];
    if (rc == 0) {
        snprintf(origin, sizeof origin, "%s: [policy] from %s", from->origin,
                 path);
        snprintf(ld->sc->policy_from, sizeof ld->sc->policy_from, "%s%s%s",
                 path, sel[0] ? "#" : "", sel);
        snprintf(ld->sc->file_policy, sizeof ld->sc->file_policy, "%s",
                 r->policy);
        rc = put_imported(ld, r, origin);
    }
    free(r);
    return rc;
}

/* Every other key of [policy]: a parameter of the stack. */
static int policy_setting(load *ld, entry *en, const keys_target *t)
{
    scenario *sc = t->base;
    if (sc->n_settings == PSTACK_MAX_SETTINGS)
        return load_bad(ld->e, en, "too many policy parameters");
    return load_keep_setting(ld, en, "policy", &sc->settings[sc->n_settings++]);
}

int load_policy(load *ld)
{
    keys_target t = {.section = KS_POLICY,
                     .name = "policy",
                     .base = ld->sc,
                     .other = policy_setting};
    snprintf(ld->sc->policy_origin, sizeof ld->sc->policy_origin, "default");
    return keys_defaults(ld, &t) != 0 || keys_apply(ld, &t) != 0 ? -1 : 0;
}

/* [expect] keys are kept as written, with where they were written:
 * reports/expect.h owns their meaning and checks them. */
static int keep_expectation(load *ld, entry *en, const keys_target *t)
{
    scenario *sc = t->base;
    if (sc->n_expect == SCENARIO_MAX_EXPECT)
        return load_bad(ld->e, en, "too many expectations");
    setting *x = &sc->expect[sc->n_expect++];
    if (strlen(en->value) >= sizeof x->value ||
        strlen(en->key) >= sizeof x->key)
        return load_bad(ld->e, en, "is too long");
    if (snprintf(x->key, sizeof x->key, "%s", en->key) >= (int)sizeof x->key ||
        snprintf(x->value, sizeof x->value, "%s", en->value) >=
            (int)sizeof x->value ||
        snprintf(x->origin, sizeof x->origin, "%s: [expect]", en->origin) >=
            (int)sizeof x->origin)
        return load_bad(ld->e, en, "is too long");
    return 0;
}

int load_expect(load *ld)
{
    keys_target t = {.section = KS_EXPECT,
                     .name = "expect",
                     .base = ld->sc,
                     .other = keep_expectation};
    return keys_apply(ld, &t);
}
