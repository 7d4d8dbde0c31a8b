/*
 * load_policy.c -- [policy] and [expect] (load_policy.h).
 */
#include "load_policy.h"

#include <stdio.h>
#include <string.h>

int key_policy_name(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    scenario *sc = t->base;
    if (key_text(ld, k, en, t) != 0)
        return -1;
    if (en->origin[0] &&
        snprintf(sc->policy_origin, sizeof sc->policy_origin,
                 "%s: [policy] name", en->origin) >=
            (int)sizeof sc->policy_origin)
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

/* Every other key of [policy]: a parameter of the stack. */
static int policy_setting(load *ld, entry *en, const keys_target *t)
{
    scenario *sc = t->base;
    if (sc->n_settings == PSTACK_MAX_SETTINGS)
        return load_bad(ld->e, en, "too many policy parameters");
    return load_keep_setting(ld, en, "policy",
                             &sc->settings[sc->n_settings++]);
}

int load_policy(load *ld)
{
    keys_target t = {.section = KS_POLICY, .name = "policy",
                     .base = ld->sc, .other = policy_setting};
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
    if (snprintf(x->key, sizeof x->key, "%s", en->key) >=
            (int)sizeof x->key ||
        snprintf(x->value, sizeof x->value, "%s", en->value) >=
            (int)sizeof x->value ||
        snprintf(x->origin, sizeof x->origin, "%s: [expect]", en->origin) >=
            (int)sizeof x->origin)
        return load_bad(ld->e, en, "is too long");
    return 0;
}

int load_expect(load *ld)
{
    keys_target t = {.section = KS_EXPECT, .name = "expect", .base = ld->sc,
                     .other = keep_expectation};
    return keys_apply(ld, &t);
}
