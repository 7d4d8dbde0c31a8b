#include "expect.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    const char *unit;
} kinds[EXPECT_KIND_COUNT] = {
    [EXPECT_RECOVERS_WITHIN] = {"recovers_within", "s"},
    [EXPECT_METASTABLE] = {"metastable", ""},
    [EXPECT_AMPLIFICATION_MAX] = {"amplification_max", ""},
    [EXPECT_PEAK_AMPLIFICATION_MAX] = {"peak_amplification_max", ""},
    [EXPECT_SUCCESS_MIN] = {"success_min", ""},
    [EXPECT_DUPLICATES_MAX] = {"duplicates_max", ""},
    [EXPECT_LATENCY_P99_MAX] = {"latency_p99_max", "ms"},
};

const char *expect_name(expect_kind k)
{
    return (unsigned)k < EXPECT_KIND_COUNT ? kinds[k].name : "?";
}

int expect_parse_name(const char *s, expect_kind *k)
{
    for (int i = 0; i < EXPECT_KIND_COUNT; i++)
        if (strcmp(s, kinds[i].name) == 0) {
            *k = (expect_kind)i;
            return 0;
        }
    return -1;
}

/* Why recovery could not be judged, or how it went. */
static void eval_recovery(const sim_summary *s, expect_result *r)
{
    if (!s->has_fault) {
        r->ok = false;
        snprintf(r->explain, sizeof r->explain,
                 "cannot be judged: the scenario has no fault");
    } else if (!s->has_baseline) {
        r->ok = false;
        snprintf(r->explain, sizeof r->explain,
                 "cannot be judged: no baseline (the first fault starts "
                 "before warm-up ends)");
    } else if (!s->recovery_judged) {
        r->ok = false;
        snprintf(r->explain, sizeof r->explain,
                 "cannot be judged: the run ends %.0f s after the last fault "
                 "ended, too soon to see a full recovery window",
                 s->duration_s - s->last_fault_end_s);
    } else if (!s->recovered) {
        r->ok = false;
        snprintf(r->explain, sizeof r->explain,
                 "did not recover: goodput %.0f%% of baseline (%.1f/s) over "
                 "the last window, %.0f s after the fault ended",
                 100.0 * s->final_goodput_ratio, s->baseline_goodput_per_s,
                 s->duration_s - s->last_fault_end_s);
    } else {
        r->has_value = true;
        r->value = s->recovery_time_s;
        r->ok = s->recovery_time_s <= r->limit;
        snprintf(r->explain, sizeof r->explain,
                 "recovered %.0f s after the fault ended (limit %.0f s)",
                 s->recovery_time_s, r->limit);
    }
}

static void eval_metastable(const sim_summary *s, expect_result *r)
{
    bool want = r->limit != 0;
    if (!s->recovery_judged) {
        r->ok = false;
        snprintf(r->explain, sizeof r->explain,
                 "cannot be judged: %s",
                 !s->has_fault       ? "the scenario has no fault"
                 : !s->has_baseline  ? "no baseline before the first fault"
                                     : "the run ends too soon after the "
                                       "last fault");
        return;
    }
    r->has_value = true;
    r->value = s->metastable;
    r->ok = s->metastable == want;
    if (s->metastable)
        snprintf(r->explain, sizeof r->explain,
                 "metastable: goodput stayed at %.0f%% of baseline %.0f s "
                 "after the fault ended (expected %s)",
                 100.0 * s->final_goodput_ratio,
                 s->duration_s - s->last_fault_end_s,
                 want ? "metastable" : "recovery");
    else
        snprintf(r->explain, sizeof r->explain,
                 "not metastable: recovered %.0f s after the fault ended "
                 "(expected %s)",
                 s->recovery_time_s, want ? "metastable" : "recovery");
}

static void eval_max(const char *what, double value, expect_result *r,
                     const char *fmt_unit)
{
    r->has_value = true;
    r->value = value;
    r->ok = value <= r->limit;
    snprintf(r->explain, sizeof r->explain, "%s %.4g%s %s limit %.4g%s",
             what, value, fmt_unit, r->ok ? "within" : "exceeds", r->limit,
             fmt_unit);
}

int expect_eval(const expect_set *set, const sim_summary *s,
                expect_result *out)
{
    int n = 0;
    for (int k = 0; k < EXPECT_KIND_COUNT; k++) {
        if (!set->has[k])
            continue;
        expect_result *r = &out[n++];
        memset(r, 0, sizeof *r);
        r->kind = (expect_kind)k;
        r->name = kinds[k].name;
        r->unit = kinds[k].unit;
        r->limit = set->limit[k];
        switch ((expect_kind)k) {
        case EXPECT_RECOVERS_WITHIN:
            eval_recovery(s, r);
            break;
        case EXPECT_METASTABLE:
            eval_metastable(s, r);
            break;
        case EXPECT_AMPLIFICATION_MAX:
            eval_max("amplification", s->amplification, r, "");
            break;
        case EXPECT_PEAK_AMPLIFICATION_MAX:
            eval_max("peak amplification", s->peak_amplification, r, "");
            break;
        case EXPECT_SUCCESS_MIN:
            r->has_value = true;
            r->value = s->success_ratio;
            r->ok = s->success_ratio >= r->limit;
            snprintf(r->explain, sizeof r->explain,
                     "success ratio %.2f%% %s minimum %.2f%%",
                     100.0 * s->success_ratio, r->ok ? "meets" : "is below",
                     100.0 * r->limit);
            break;
        case EXPECT_DUPLICATES_MAX:
            eval_max("duplicate writes", (double)s->duplicates, r, "");
            break;
        case EXPECT_LATENCY_P99_MAX:
            eval_max("p99 latency", s->latency_p99_ms, r, " ms");
            break;
        default:
            break;
        }
    }
    return n;
}
