/*
 * scenario_same.h -- do two loaded scenarios run the same run?  What
 * check_scenario_writer and the fuzz target fuzz_scenario ask of a
 * scenario and the file scenario_write made of it.
 *
 * They must be equal byte for byte -- the engine's config, the policy
 * and its parameters, the plug-ins, the expectations, the warnings --
 * but for where things were written: the file's path and every origin
 * ("x.ini:12: [policy]"), kept for messages, which differ between two
 * files by nature.  scenario_load zeroes what it fills, so padding
 * agrees.  Header-only: the fuzz target links none of the test code.
 */
#ifndef SB_SCENARIO_SAME_H
#define SB_SCENARIO_SAME_H

#include <stddef.h>
#include <string.h>

#include "scenario.h"

static inline void scenario_same_forget(setting *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        memset(s[i].origin, 0, sizeof s[i].origin);
}

/* Blank where each part of sc was written. */
static inline void scenario_forget_origins(scenario *sc)
{
    memset(sc->path, 0, sizeof sc->path);
    memset(sc->policy_origin, 0, sizeof sc->policy_origin);
    scenario_same_forget(sc->settings, PSTACK_MAX_SETTINGS);
    scenario_same_forget(sc->expect, SCENARIO_MAX_EXPECT);
    for (size_t i = 0; i < SIM_MAX_TIERS; i++) {
        tier_cfg *t = &sc->cfg.tiers[i];
        memset(t->policy_origin, 0, sizeof t->policy_origin);
        scenario_same_forget(t->settings, SIM_TIER_SETTINGS);
    }
    for (size_t i = 0; i < SIM_MAX_STEPS; i++) {
        step_cfg *st = &sc->cfg.pipeline.steps[i];
        memset(st->policy_origin, 0, sizeof st->policy_origin);
        scenario_same_forget(st->settings, SIM_STEP_SETTINGS);
    }
}

/* NULL when a and b (origins blanked by this call) are the same run, or
 * the name of the first part that differs. */
static inline const char *scenario_differs(scenario *a, scenario *b)
{
    scenario_forget_origins(a);
    scenario_forget_origins(b);
    static const struct {
        const char *name;
        size_t off, size;
    } parts[] = {
#define SB_PART(name, field)                                                   \
    {name, offsetof(scenario, field), sizeof((scenario *)0)->field}
        SB_PART("[scenario] name", cfg.name),
        SB_PART("[scenario] description", cfg.description),
        SB_PART("[clients]", cfg.clients),
        SB_PART("[server]", cfg.server),
        SB_PART("the faults", cfg.faults),
        SB_PART("the service chain", cfg.tiers),
        SB_PART("the pipeline", cfg.pipeline),
        SB_PART("[policy] name", policy),
        SB_PART("the file's policy", file_policy),
        SB_PART("[policy] plugin", plugins),
        SB_PART("[policy] parameters", settings),
        SB_PART("[expect]", expect),
        SB_PART("the warnings", warnings),
#undef SB_PART
    };
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (memcmp((char *)a + parts[i].off, (char *)b + parts[i].off,
                   parts[i].size) != 0)
            return parts[i].name;
    /* The rest: counts, the seed and the times of [scenario]. */
    return memcmp(a, b, sizeof *a) != 0 ? "the scenario" : NULL;
}

#endif
