#include "expect.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jobs.h"
#include "phases.h"
#include "simtime.h"
#include "suggest.h"
#include "units.h"

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
    [EXPECT_UNFINISHED_MAX] = {"unfinished_max", ""},
    [EXPECT_COMPLETION_WITHIN] = {"completion_within", "s"},
    [EXPECT_WASTED_MAX] = {"wasted_max", ""},
    [EXPECT_DURING_FAULT_SUCCESS_MIN] = {"during_fault_success_min", ""},
    [EXPECT_RECOVERY_AMPLIFICATION_MAX] = {"recovery_amplification_max", ""},
    [EXPECT_STEADY_SUCCESS_MIN] = {"steady_success_min", ""},
    [EXPECT_STEADY_GOODPUT_MIN] = {"steady_goodput_min", ""},
    [EXPECT_STEADY_LATENCY_P99_MAX] = {"steady_latency_p99_max", "ms"},
    [EXPECT_JOBS_COMPLETED_MIN] = {"jobs_completed_min", ""},
    [EXPECT_JOBS_FAILED_MAX] = {"jobs_failed_max", ""},
    [EXPECT_JOBS_WITHIN_SLA_MIN] = {"jobs_within_sla_min", ""},
    [EXPECT_ALERTS_CRITICAL_MAX] = {"alerts_critical_max", ""},
    [EXPECT_ALERTS_WARNING_MAX] = {"alerts_warning_max", ""},
    [EXPECT_QUARANTINED_ITEMS_MIN] = {"quarantined_items_min", ""},
    [EXPECT_QUARANTINED_ITEMS_MAX] = {"quarantined_items_max", ""},
    [EXPECT_DUPLICATE_ITEMS_MAX] = {"duplicate_items_max", ""},
    [EXPECT_STEPS_REDONE_MAX] = {"steps_redone_max", ""},
/* The metric table's added counts (sim/metrics.h): a limit on the count,
 * a maximum when fewer is better. */
#define LIMIT_LOW "_max"
#define LIMIT_HIGH "_min"
#define KIND(f, reduce, in_summary, csv, json, label, compare)                 \
    METRICS_IF_##compare([EXPECT_##f] = {json LIMIT_##compare, ""}, )
    METRICS_ADDED(KIND)
#undef KIND
};

/* The table's id (MF_...) of an added kind k (k >= EXPECT_FIRST_ADDED). */
static int added_field(expect_kind k)
{
    switch ((int)k) {
#define FIELD_OF(f, reduce, in_summary, csv, json, label, compare)             \
    METRICS_IF_##compare(case EXPECT_##f : return MF_##f;)
        METRICS_ADDED(FIELD_OF)
#undef FIELD_OF
    default:
        return -1;
    }
}

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

bool expect_needs_pipeline(expect_kind k)
{
    return k >= EXPECT_JOBS_COMPLETED_MIN && k <= EXPECT_STEPS_REDONE_MAX;
}

static int bad(sb_err *e, const setting *x, const char *msg)
{
    return err_set(e, "%s %s: %s", x->origin, x->key, msg);
}

static int unknown(sb_err *e, const setting *x)
{
    const char *names[EXPECT_KIND_COUNT];
    for (int j = 0; j < EXPECT_KIND_COUNT; j++)
        names[j] = kinds[j].name;
    char list[800];
    suggest_list(names, EXPECT_KIND_COUNT, list, sizeof list);
    const char *best = suggest_closest(x->key, names, EXPECT_KIND_COUNT);
    if (best)
        return err_set(e,
                       "%s unknown key '%s' (did you mean '%s'?); known "
                       "keys: %s",
                       x->origin, x->key, best, list);
    return err_set(e, "%s unknown key '%s'; known keys: %s", x->origin, x->key,
                   list);
}

/* One key's limit, in the unit expect_result reports it in.  A share may
 * be written as a percentage ("99%"), the way the verdicts print it; the
 * range check comes after the '%' is read, so "150%" is refused for a
 * share of at most 1 with the same message as "1.5". */
static int parse_limit(const setting *x, expect_kind k, double *v, sb_err *e)
{
    sb_err inner;
    int64_t ns, count;
    bool b;
    char msg[ERR_MSG_MAX];
    switch (k) {
    case EXPECT_RECOVERS_WITHIN:
    case EXPECT_COMPLETION_WITHIN:
    case EXPECT_LATENCY_P99_MAX:
    case EXPECT_STEADY_LATENCY_P99_MAX:
        if (units_duration(x->value, &ns, &inner) != 0)
            return bad(e, x, inner.msg);
        *v = k == EXPECT_LATENCY_P99_MAX || k == EXPECT_STEADY_LATENCY_P99_MAX
                 ? (double)ns / 1e6
                 : (double)ns / 1e9;
        return 0;
    case EXPECT_SUCCESS_MIN:
    case EXPECT_UNFINISHED_MAX:
    case EXPECT_WASTED_MAX:
    case EXPECT_DURING_FAULT_SUCCESS_MIN:
    case EXPECT_STEADY_SUCCESS_MIN:
    case EXPECT_JOBS_COMPLETED_MIN:
    case EXPECT_JOBS_FAILED_MAX:
    case EXPECT_JOBS_WITHIN_SLA_MIN:
        if (units_share(x->value, v, &inner) != 0 || !(*v >= 0.0) || *v > 1.0) {
            snprintf(msg, sizeof msg,
                     "expected a share between 0 and 1, "
                     "or a percentage from 0%% to 100%%, got '%s'",
                     x->value);
            return bad(e, x, msg);
        }
        return 0;
    case EXPECT_STEADY_GOODPUT_MIN:
        if (units_share(x->value, v, &inner) != 0 || !(*v >= 0.0) ||
            *v > 10.0) {
            snprintf(msg, sizeof msg,
                     "expected a share of the baseline "
                     "goodput between 0 and 10, or a percentage from 0%% to "
                     "1000%% (0.9 = 90%%), got '%s'",
                     x->value);
            return bad(e, x, msg);
        }
        return 0;
    case EXPECT_METASTABLE:
        if (units_bool(x->value, &b, &inner) != 0)
            return bad(e, x, inner.msg);
        *v = b;
        return 0;
    case EXPECT_DUPLICATES_MAX:
    case EXPECT_ALERTS_CRITICAL_MAX:
    case EXPECT_ALERTS_WARNING_MAX:
    case EXPECT_QUARANTINED_ITEMS_MIN:
    case EXPECT_QUARANTINED_ITEMS_MAX:
    case EXPECT_DUPLICATE_ITEMS_MAX:
    case EXPECT_STEPS_REDONE_MAX:
#define CASE(f, reduce, in_summary, csv, json, label, compare)                 \
    METRICS_IF_##compare(case EXPECT_##f:)
        METRICS_ADDED(CASE)
#undef CASE
        if (units_int(x->value, &count, &inner) != 0 || count < 0) {
            snprintf(msg, sizeof msg,
                     "expected a whole number of at least "
                     "0, got '%s'",
                     x->value);
            return bad(e, x, msg);
        }
        *v = (double)count;
        return 0;
    default:
        if (units_real(x->value, v, &inner) != 0 || *v < 1.0) {
            snprintf(msg, sizeof msg,
                     "expected a number of at least 1 "
                     "(attempts per offered request), got '%s'",
                     x->value);
            return bad(e, x, msg);
        }
        return 0;
    }
}

int expect_parse(const setting *keys, int n, expect_set *set, sb_err *e)
{
    memset(set, 0, sizeof *set);
    for (int i = 0; i < n; i++) {
        expect_kind k;
        if (expect_parse_name(keys[i].key, &k) != 0)
            return unknown(e, &keys[i]);
        if (parse_limit(&keys[i], k, &set->limit[k], e) != 0)
            return -1;
        set->has[k] = true;
    }
    return 0;
}

const char *expect_too_soon(const sim_summary *s, char *buf, size_t len)
{
    if (s->last_fault_end_s > s->duration_s)
        snprintf(buf, len,
                 "the last fault runs past the end of the run (it "
                 "ends at %.0f s, the run at %.0f s)",
                 s->last_fault_end_s, s->duration_s);
    else
        snprintf(buf, len,
                 "the run ends %.0f s after the last fault ended, "
                 "too soon to see a full recovery window",
                 s->duration_s - s->last_fault_end_s);
    return buf;
}

/* Why recovery could not be judged, or how it went. */
static void eval_recovery(const sim_summary *s, expect_result *r)
{
    char why[200];
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
        snprintf(r->explain, sizeof r->explain, "cannot be judged: %s",
                 expect_too_soon(s, why, sizeof why));
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
        char why[200];
        r->ok = false;
        snprintf(r->explain, sizeof r->explain, "cannot be judged: %s",
                 !s->has_fault      ? "the scenario has no fault"
                 : !s->has_baseline ? "no baseline before the first fault"
                                    : expect_too_soon(s, why, sizeof why));
        return;
    }
    r->has_value = true;
    r->value = s->metastable;
    r->ok = s->metastable == want;
    /* The line reads "PASS  metastable: <this>": say what happened, and
     * whether it was what the scenario expects. */
    if (s->metastable)
        snprintf(r->explain, sizeof r->explain,
                 "goodput stayed at %.0f%% of baseline %.0f s after the "
                 "fault ended: a metastable failure%s",
                 100.0 * s->final_goodput_ratio,
                 s->duration_s - s->last_fault_end_s,
                 want ? ", as expected" : ", where recovery was expected");
    else
        snprintf(r->explain, sizeof r->explain,
                 "recovered %.0f s after the fault ended%s", s->recovery_time_s,
                 want ? ", where a metastable failure was expected"
                      : ", as expected");
}

/* More digits until the two differ: both are rounded the same way, so
 * what is printed keeps their order. */
int expect_digits(double v, double limit, int least, bool fixed)
{
    char a[64], b[64];
    for (int p = least; p < 17; p++) {
        snprintf(a, sizeof a, fixed ? "%.*f" : "%.*g", p, v);
        snprintf(b, sizeof b, fixed ? "%.*f" : "%.*g", p, limit);
        if (v == limit || strcmp(a, b) != 0)
            return p;
    }
    return 17;
}

static void eval_max(const char *what, double value, expect_result *r,
                     const char *fmt_unit)
{
    r->has_value = true;
    r->value = value;
    r->ok = value <= r->limit;
    int p = expect_digits(value, r->limit, 4, false);
    snprintf(r->explain, sizeof r->explain, "%s %.*g%s %s limit %.*g%s", what,
             p, value, fmt_unit, r->ok ? "within" : "exceeds", p, r->limit,
             fmt_unit);
}

/* A share of 0..1 against its limit, both in percent. */
static void eval_share(const char *what, double value, expect_result *r)
{
    r->has_value = true;
    r->value = value;
    r->ok = value <= r->limit;
    int p = expect_digits(100.0 * value, 100.0 * r->limit, 2, true);
    snprintf(r->explain, sizeof r->explain, "%s %.*f%% %s limit %.*f%%", what,
             p, 100.0 * value, r->ok ? "within" : "exceeds", p,
             100.0 * r->limit);
}

/* arrival = once: every request must have ended by the limit. */
static void eval_completion(const sim_summary *s, expect_result *r)
{
    if (!s->has_completion) {
        r->ok = false;
        if (s->in_flight && s->offered == 1)
            snprintf(r->explain, sizeof r->explain,
                     "did not complete: its one request was still open "
                     "when the run ended at %.0f s",
                     s->duration_s);
        else if (s->in_flight)
            snprintf(r->explain, sizeof r->explain,
                     "did not complete: %llu of %llu requests were still "
                     "open when the run ended at %.0f s",
                     (unsigned long long)s->in_flight,
                     (unsigned long long)s->offered, s->duration_s);
        else
            snprintf(r->explain, sizeof r->explain,
                     "cannot be judged: completion time is measured for "
                     "arrival = once");
        return;
    }
    r->has_value = true;
    r->value = s->completion_time_s;
    r->ok = s->completion_time_s <= r->limit;
    int p = expect_digits(s->completion_time_s, r->limit, 4, false);
    snprintf(r->explain, sizeof r->explain,
             "every request ended by %.*g s %s limit %.*g s", p,
             s->completion_time_s, r->ok ? "within" : "past the", p, r->limit);
}

/* ---- Per phase ------------------------------------------------------------ */

/* "steady state (t = 290-300 s)": how a verdict names its phase. */
static void phase_head(const sim_phase *p, phase_kind k, char *buf, size_t len)
{
    snprintf(buf, len, "%s (t = %g-%g s)", phases_label(k), p->from_s, p->to_s);
}

/* Why phase k is not in the run. */
static void phase_missing(const sim_summary *s, phase_kind k, expect_result *r)
{
    char why[240];
    if (!s->has_fault)
        snprintf(why, sizeof why,
                 "the scenario has no fault, so the run is "
                 "one phase (the whole-run keys judge it)");
    else if (k == PHASE_DURING)
        snprintf(why, sizeof why, "the faults start after the run ends");
    else if (s->last_fault_end_s >= s->duration_s)
        snprintf(why, sizeof why,
                 "the last fault lasts until t = %g s, the "
                 "end of the run or later",
                 s->last_fault_end_s);
    else
        snprintf(why, sizeof why,
                 "the last fault ends at t = %g s, %g s "
                 "before the end of the run, inside the last "
                 "recovery_window",
                 s->last_fault_end_s, s->duration_s - s->last_fault_end_s);
    r->ok = false;
    snprintf(r->explain, sizeof r->explain,
             "cannot be judged: no %s "
             "phase: %s",
             phases_label(k), why);
}

/* A phase figure v against the limit (at least, or at most): `what`
 * names it; NaN means it has no value, for the reason `none`; pct shows
 * it and the limit x 100 in %, else with `unit`. */
static void eval_phase(const sim_summary *s, phase_kind k, bool at_least,
                       const char *what, double v, const char *none, bool pct,
                       const char *unit, expect_result *r)
{
    const sim_phase *p = &s->phase[k];
    if (!p->present) {
        phase_missing(s, k, r);
        return;
    }
    char head[96];
    phase_head(p, k, head, sizeof head);
    if (isnan(v)) {
        r->ok = false;
        snprintf(r->explain, sizeof r->explain, "cannot be judged: %s: %s",
                 head, none);
        return;
    }
    r->has_value = true;
    r->value = v;
    r->ok = at_least ? v >= r->limit : v <= r->limit;
    double scale = pct ? 100.0 : 1.0;
    const char *u = pct ? " %" : unit;
    int d = expect_digits(scale * v, scale * r->limit, 4, false);
    snprintf(r->explain, sizeof r->explain, "%s: %s %.*g%s %s %.*g%s", head,
             what, d, scale * v, u,
             at_least ? (r->ok ? "meets the minimum" : "is below")
                      : (r->ok ? "is within the limit" : "exceeds the limit"),
             d, scale * r->limit, u);
}

/* Steady-state goodput as a share of the baseline. */
static void eval_steady_goodput(const sim_summary *s, expect_result *r)
{
    const sim_phase *p = &s->phase[PHASE_END];
    if (!p->present) {
        phase_missing(s, PHASE_END, r);
        return;
    }
    char head[96];
    phase_head(p, PHASE_END, head, sizeof head);
    if (!s->has_baseline || !(s->baseline_goodput_per_s > 0)) {
        r->ok = false;
        snprintf(r->explain, sizeof r->explain,
                 "cannot be judged: %s: no baseline goodput to compare with "
                 "(it is measured from warmup to the first fault)",
                 head);
        return;
    }
    double share = p->goodput_per_s / s->baseline_goodput_per_s;
    r->has_value = true;
    r->value = share;
    r->ok = share >= r->limit;
    int d = expect_digits(100.0 * share, 100.0 * r->limit, 4, false);
    snprintf(r->explain, sizeof r->explain,
             "%s: goodput %.4g/s is %.*g %% of the baseline %.4g/s, %s "
             "%.*g %%",
             head, p->goodput_per_s, d, 100.0 * share,
             s->baseline_goodput_per_s,
             r->ok ? "meeting the minimum" : "below the minimum", d,
             100.0 * r->limit);
}

static void eval_phase_kind(const sim_summary *s, expect_result *r)
{
    static const char no_end[] = "no request ended in it";
    switch (r->kind) {
    case EXPECT_DURING_FAULT_SUCCESS_MIN:
        eval_phase(s, PHASE_DURING, true, "success ratio",
                   s->phase[PHASE_DURING].success_ratio, no_end, true, "", r);
        break;
    case EXPECT_RECOVERY_AMPLIFICATION_MAX:
        eval_phase(s, PHASE_AFTER, false, "amplification",
                   s->phase[PHASE_AFTER].amplification,
                   "no request was offered in it", false, "", r);
        break;
    case EXPECT_STEADY_SUCCESS_MIN:
        eval_phase(s, PHASE_END, true, "success ratio",
                   s->phase[PHASE_END].success_ratio, no_end, true, "", r);
        break;
    case EXPECT_STEADY_GOODPUT_MIN:
        eval_steady_goodput(s, r);
        break;
    case EXPECT_STEADY_LATENCY_P99_MAX:
        eval_phase(s, PHASE_END, false, "p99 latency",
                   s->phase[PHASE_END].p99_ms,
                   "no request succeeded in it, so there is no latency", false,
                   " ms", r);
        break;
    default:
        break;
    }
}

/* ---- A pipeline's jobs --------------------------------------------------- */

/* The jobs that did not complete, by how they ended: "10 failed, 3
 * compensated, 2 unfinished" (the non-zero ones), or "" when every job
 * completed. */
static void jobs_others(const sim_pipeline_summary *p, char *buf, size_t len)
{
    const struct {
        const char *what;
        uint64_t n;
    } part[] = {{"partial", p->partial},
                {"failed", p->failed},
                {"compensated", p->compensated},
                {"inconsistent", p->inconsistent},
                {"unfinished", p->unfinished}};
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof part / sizeof *part && used < len; i++)
        if (part[i].n)
            used += (size_t)snprintf(
                buf + used, len - used, "%s%llu %s", used ? ", " : "",
                (unsigned long long)part[i].n, part[i].what);
}

/* A share of the jobs started against the limit (at least or at most):
 * "72 % of 50 jobs completed (...), below the minimum 90 %"; detail may
 * be empty. */
static void eval_job_share(const sim_pipeline_summary *p, uint64_t n,
                           const char *verb, const char *detail, bool at_least,
                           expect_result *r)
{
    if (p->jobs == 0) {
        r->ok = false;
        snprintf(r->explain, sizeof r->explain,
                 "cannot be judged: no job started");
        return;
    }
    double share = (double)n / (double)p->jobs;
    r->has_value = true;
    r->value = share;
    r->ok = at_least ? share >= r->limit : share <= r->limit;
    int d = expect_digits(100.0 * share, 100.0 * r->limit, 4, false);
    snprintf(r->explain, sizeof r->explain,
             "%.*g %% of %llu job%s %s%s%s%s, %s %.*g %%", d, 100.0 * share,
             (unsigned long long)p->jobs, p->jobs == 1 ? "" : "s", verb,
             detail[0] ? " (" : "", detail, detail[0] ? ")" : "",
             at_least ? (r->ok ? "meets the minimum" : "below the minimum")
                      : (r->ok ? "within the limit" : "exceeds the limit"),
             d, 100.0 * r->limit);
}

/* A count against the limit: "3 critical alerts (...), within the limit
 * 5"; `one` names a single one ("critical alert"), `many` more; detail
 * may be empty. */
static void eval_count(uint64_t n, const char *one, const char *many,
                       const char *detail, bool at_least, expect_result *r)
{
    r->has_value = true;
    r->value = (double)n;
    r->ok = at_least ? r->value >= r->limit : r->value <= r->limit;
    snprintf(r->explain, sizeof r->explain, "%llu %s%s%s%s, %s %.0f",
             (unsigned long long)n, n == 1 ? one : many, detail[0] ? " (" : "",
             detail, detail[0] ? ")" : "",
             at_least ? (r->ok ? "meets the minimum" : "below the minimum")
                      : (r->ok ? "within the limit" : "exceeds the limit"),
             r->limit);
}

/* steps_redone_max: every step's redone, and which steps they were. */
static void eval_redone(const sim_pipeline_summary *p, expect_result *r)
{
    char detail[200] = "";
    size_t used = 0;
    uint64_t total = 0;
    for (uint32_t i = 0; i < p->steps && i < SIM_MAX_STEPS; i++) {
        const sim_step_summary *st = &p->step[i];
        total += st->redone;
        if (st->redone && used < sizeof detail)
            used += (size_t)snprintf(detail + used, sizeof detail - used,
                                     "%s%.32s %llu", used ? ", " : "",
                                     st->name ? st->name : "?",
                                     (unsigned long long)st->redone);
    }
    eval_count(total, "step call redid a step an earlier run had done",
               "step calls redid a step an earlier run had done", detail, false,
               r);
}

static void eval_pipeline_kind(const sim_summary *s, expect_result *r)
{
    const sim_pipeline_summary *p = &s->pipeline;
    char d[160];
    if (!s->has_pipeline) {
        r->ok = false;
        snprintf(r->explain, sizeof r->explain,
                 "no [pipeline] in this scenario");
        return;
    }
    switch (r->kind) {
    case EXPECT_JOBS_COMPLETED_MIN:
        jobs_others(p, d, sizeof d);
        eval_job_share(p, p->completed, "completed", d, true, r);
        break;
    case EXPECT_JOBS_FAILED_MAX:
        snprintf(d, sizeof d,
                 "%llu failed, %llu compensated, %llu "
                 "inconsistent",
                 (unsigned long long)p->failed,
                 (unsigned long long)p->compensated,
                 (unsigned long long)p->inconsistent);
        eval_job_share(p, jobs_failed_all(p), "failed", d, false, r);
        break;
    case EXPECT_JOBS_WITHIN_SLA_MIN:
        snprintf(d, sizeof d, "%llu completed in all",
                 (unsigned long long)p->completed);
        eval_job_share(p, p->within_sla, "completed within the SLA", d, true,
                       r);
        break;
    case EXPECT_ALERTS_CRITICAL_MAX:
        eval_count(p->alerts_critical, "critical alert", "critical alerts", "",
                   false, r);
        break;
    case EXPECT_ALERTS_WARNING_MAX:
        eval_count(p->alerts_warning, "warning", "warnings", "", false, r);
        break;
    case EXPECT_QUARANTINED_ITEMS_MIN:
    case EXPECT_QUARANTINED_ITEMS_MAX:
        snprintf(d, sizeof d, "%llu in the dead-letter queue at the end",
                 (unsigned long long)p->dead_letters);
        eval_count(p->items_quarantined, "item quarantined",
                   "items quarantined", d,
                   r->kind == EXPECT_QUARANTINED_ITEMS_MIN, r);
        break;
    case EXPECT_DUPLICATE_ITEMS_MAX:
        snprintf(d, sizeof d, "of %llu item%s committed",
                 (unsigned long long)p->items_committed,
                 p->items_committed == 1 ? "" : "s");
        eval_count(p->items_duplicated, "duplicate item commit",
                   "duplicate item commits", d, false, r);
        break;
    case EXPECT_STEPS_REDONE_MAX:
        eval_redone(p, r);
        break;
    default:
        break;
    }
}

/* A count the metric table added: at most the limit when fewer is
 * better (KEY_max), at least it otherwise (KEY_min). */
static void eval_added(const sim_summary *s, expect_result *r)
{
    int id = added_field(r->kind);
    const metrics_field *f = &metrics_fields[id];
    eval_count(summary_count(s, id), f->label, f->label, "", f->compare > 0, r);
}

int expect_eval(const expect_set *set, const sim_summary *s, expect_result *out)
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
                     "success ratio %.*f%% %s minimum %.*f%%",
                     expect_digits(100.0 * s->success_ratio, 100.0 * r->limit,
                                   2, true),
                     100.0 * s->success_ratio, r->ok ? "meets" : "is below",
                     expect_digits(100.0 * s->success_ratio, 100.0 * r->limit,
                                   2, true),
                     100.0 * r->limit);
            break;
        case EXPECT_DUPLICATES_MAX:
            eval_max("duplicate writes", (double)s->duplicates, r, "");
            break;
        case EXPECT_LATENCY_P99_MAX:
            eval_max("p99 latency", s->latency_p99_ms, r, " ms");
            break;
        case EXPECT_UNFINISHED_MAX:
            eval_share("requests unfinished at the end",
                       s->offered ? (double)s->in_flight / (double)s->offered
                                  : 0.0,
                       r);
            break;
        case EXPECT_WASTED_MAX:
            eval_share("wasted work", s->wasted_work_share, r);
            break;
        case EXPECT_COMPLETION_WITHIN:
            eval_completion(s, r);
            break;
        default:
            if (k >= EXPECT_FIRST_ADDED)
                eval_added(s, r);
            else if (expect_needs_pipeline((expect_kind)k))
                eval_pipeline_kind(s, r);
            else
                eval_phase_kind(s, r);
            break;
        }
    }
    return n;
}

/* ---- What cannot pass, before the run ------------------------------------- */

/* The phases cfg's fault schedule gives (sim/phases.h), and whether its
 * recovery can be judged, by summary.c's rules: a baseline before the
 * first fault, the last fault over before the end, and a whole recovery
 * window after it. */
typedef struct schedule {
    bool has_fault, has_baseline, judged;
    phases_plan plan;
} schedule;

static void schedule_of(const sim_config *c, schedule *o)
{
    phases_input in = {c->bucket_ns, c->duration_ns,
                       c->warmup_ns, c->recovery_window_ns,
                       -1,           -1};
    for (uint32_t i = 0; i < c->n_faults; i++) {
        const fault_cfg *f = &c->faults[i];
        int64_t end = simtime_add(f->start_ns, f->duration_ns);
        if (in.first_fault < 0 || f->start_ns < in.first_fault)
            in.first_fault = f->start_ns;
        if (end > in.last_fault_end)
            in.last_fault_end = end;
    }
    phases_plan_of(&in, &o->plan);
    o->has_fault = c->n_faults > 0;
    o->has_baseline = o->plan.to[PHASE_BEFORE] > o->plan.from[PHASE_BEFORE];
    int64_t b = c->bucket_ns;
    int64_t n = (c->duration_ns + b - 1) / b;
    int64_t w = (c->recovery_window_ns + b - 1) / b;
    o->judged = o->has_fault && o->has_baseline &&
                in.last_fault_end < c->duration_ns &&
                (in.last_fault_end + b - 1) / b + (w < 1 ? 1 : w) <= n;
}

/* Why recovery cannot be judged in s, or NULL when it can. */
static const char *no_recovery(const schedule *s)
{
    if (!s->has_fault)
        return "the scenario has no fault, so there is no recovery to judge";
    if (!s->has_baseline)
        return "the first fault starts before warm-up and one bucket have "
               "passed, so there is no baseline goodput to recover to";
    if (!s->judged)
        return "the run ends less than one recovery_window after the last "
               "fault ends, so recovery cannot be judged";
    return NULL;
}

/* Why phase k is not in s, or NULL when it is. */
static const char *no_phase(const schedule *s, phase_kind k)
{
    if (s->plan.to[k] > s->plan.from[k])
        return NULL;
    if (!s->has_fault)
        return "the scenario has no fault, so the run is one phase";
    if (k == PHASE_DURING)
        return "the faults start after the run ends";
    if (k == PHASE_AFTER)
        return "the last fault lasts until the end of the run";
    return "the run ends less than one recovery_window after the last "
           "fault ends, so there is no steady state after it";
}

static const char *why_not(const schedule *s, expect_kind k,
                           const sim_config *c)
{
    switch (k) {
    case EXPECT_RECOVERS_WITHIN:
    case EXPECT_METASTABLE:
        return no_recovery(s);
    case EXPECT_DURING_FAULT_SUCCESS_MIN:
        return no_phase(s, PHASE_DURING);
    case EXPECT_RECOVERY_AMPLIFICATION_MAX:
        return no_phase(s, PHASE_AFTER);
    case EXPECT_STEADY_GOODPUT_MIN:
        if (no_phase(s, PHASE_END))
            return no_phase(s, PHASE_END);
        return s->has_baseline ? NULL
                               : "there is no baseline goodput before the "
                                 "first fault to compare the steady state "
                                 "with";
    case EXPECT_STEADY_SUCCESS_MIN:
    case EXPECT_STEADY_LATENCY_P99_MAX:
        return no_phase(s, PHASE_END);
    case EXPECT_COMPLETION_WITHIN:
        return c->clients.arrival == ARRIVAL_ONCE
                   ? NULL
                   : "completion time is measured for [clients] arrival = "
                     "once only";
    default:
        return NULL;
    }
}

int expect_cannot_pass(const expect_set *set, const sim_config *cfg, char *out,
                       size_t len)
{
    schedule s;
    schedule_of(cfg, &s);
    int n = 0;
    size_t used = 0;
    if (len)
        out[0] = '\0';
    for (int k = 0; k < EXPECT_KIND_COUNT; k++) {
        const char *why = set->has[k] ? why_not(&s, (expect_kind)k, cfg) : NULL;
        if (why == NULL)
            continue;
        n++;
        if (used < len) {
            int w = snprintf(out + used, len - used,
                             "[expect] %s: %s; it fails every run\n",
                             expect_name((expect_kind)k), why);
            used += w > 0 ? (size_t)w : 0;
        }
    }
    return n;
}
