/*
 * summary.h -- one run, reduced to the numbers users compare.
 *
 * Definitions (README.md "Outputs" says the same in users' words):
 *   amplification       attempts / offered requests, whole run
 *   peak_amplification  the largest attempts / offered of any bucket that
 *                       had offered requests
 *   success_ratio       successes / requests started (offered): a
 *                       request still open when the run ends has not
 *                       succeeded, so a run that never finishes cannot
 *                       look perfect
 *   success_ratio_finished  successes / requests that finished
 *   baseline goodput    successes per second over the buckets that lie
 *                       wholly in [warmup, first fault start), or
 *                       [warmup, end) when there is no fault
 *   recovery_time       from the end of the last fault to the start of the
 *                       first bucket from which the mean goodput over
 *                       recovery_window is within 10 % of baseline (both
 *                       ways: a backlog of retries draining above the
 *                       baseline is not "back to normal" yet)
 *   metastable          faults ended, the recovery window fits in the run,
 *                       and goodput never recovered
 *   wasted_work_share   service time spent on attempts whose answer nobody
 *                       used / all service time
 *   attempt latency     from an attempt's send to its answer or, when it
 *                       timed out, its timeout; every attempt that ended
 *                       while its client waited, failed ones included
 */
#ifndef SB_SUMMARY_H
#define SB_SUMMARY_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "metrics.h"
#include "phases.h"
#include "sim.h"

#define RECOVERY_BAND 0.10

typedef struct sim_summary {
    double duration_s;
    double bucket_s;
    uint64_t offered, attempts, successes, failures;
    uint64_t gave_up, deadline, refused, quarantined;
    uint64_t refused_budget, refused_breaker, refused_other;
    uint64_t refusals; /* sends refused locally, hedges included */
    uint64_t timeouts, rejections, errors, duplicates, repeats, expired;
    uint64_t lost_acks, in_flight;
    uint64_t late; /* queued attempts a drop_late server dropped */
    /* How attempts ended besides timeouts, rejections and injected errors
     * (metrics.h): successes + timeouts + rejections + errors +
     * other_errors = attempts_ended. */
    uint64_t other_errors;
    uint64_t overflowed; /* attempts a full queue dropped silently */
    /* The counters added to metrics.h's table since, with Y. */
#define SUMMARY_DECLARE(f, reduce, in_summary, csv, json, label, compare)      \
    METRICS_IF_##in_summary(uint64_t f;)
    METRICS_ADDED(SUMMARY_DECLARE)
#undef SUMMARY_DECLARE
    double amplification;
    double peak_amplification;
    double peak_amplification_at_s;
    double success_ratio;          /* of requests started */
    double success_ratio_finished; /* of requests that finished */
    bool has_baseline;
    double baseline_goodput_per_s;
    bool has_fault;
    double first_fault_start_s, last_fault_end_s;
    /* Recovery: judged when there was a fault, a baseline, and the window
     * fits between the fault's end and the end of the run. */
    bool recovery_judged;
    bool recovered;
    double recovery_time_s;
    bool metastable;
    double final_goodput_ratio; /* goodput / baseline over the last window */
    double latency_mean_ms, latency_p50_ms, latency_p99_ms, latency_p999_ms;
    /* Every attempt that ended while its client waited, failed ones
     * included: send to answer, or to timeout. */
    uint64_t attempts_ended;
    double attempt_mean_ms, attempt_p50_ms, attempt_p99_ms, attempt_p999_ms;
    double wasted_work_s, wasted_work_share;
    /* arrival = once: when the last request ended, if all did. */
    bool has_completion;
    double completion_time_s;
    uint64_t conflicts; /* hot record */
    double utilization; /* busy worker time / (workers x duration) */
    double mean_busy_workers;
    double mean_queue_len;
    double mean_queue_wait_ms;
    uint32_t max_queue;
    uint64_t events;
    uint32_t processes;
    /* Before, during and after the faults, and the steady state at the
     * end (phases.h has the spans). */
    sim_phase phase[PHASE_COUNT];
    /* A pipeline's jobs (sim.h); has_pipeline false without one. */
    bool has_pipeline;
    sim_pipeline_summary pipeline;
} sim_summary;

/* A run while it runs, for front ends: the same definitions as the
 * summary (baseline, the recovery band and window), over the buckets
 * closed so far. */
typedef struct sim_live {
    double amplification; /* attempts / offered so far */
    uint64_t offered, attempts, successes, duplicates, quarantined;
    /* A pipeline's (pipeline false without one): job runs started, jobs
     * completed, runs failed, alerts raised. */
    bool pipeline;
    uint64_t job_runs, jobs_completed, job_runs_failed;
    uint64_t alerts_warning, alerts_critical;
    bool has_baseline;
    double baseline_goodput_per_s;
    bool fault_running;   /* a fault is running now */
    bool after_fault;     /* the last fault has ended */
    double since_fault_s; /* now - the end of the last fault */
    bool recovered;       /* goodput came back after it */
    double recovery_time_s;
    double goodput_ratio; /* goodput over the latest recovery window
                                   / baseline; -1 when not known yet */
} sim_live;
void summary_live(const sim *s, sim_live *out);

/* The count of metric id (metrics.h, MF_...) the summary carries (Y in
 * the table); 0 for one it does not. */
uint64_t summary_count(const sim_summary *s, int id);

/* ---- The run's figures derived from it, once each ---------------------------
 *
 * A figure of the whole run that is neither a count (metrics.h's table)
 * nor a field of sim_summary above: computed from the summary where it is
 * shown, not stored, so a comparison's run records (reports/runfile.h,
 * which save every field) keep their format.
 *   X(name, unit, json, decimals, label, value)
 *   - unit: "%", "x", "/s", "s", "ms", or "" (a number of things);
 *   - json: its key in the run's JSON (after the added counts);
 *   - decimals: in the printed summary, a line "LABEL  VALUE UNIT";
 *   - label: what users call it;
 *   - value: an expression of s (the run's sim_summary, const *), in its
 *     unit; NaN when the run has none (JSON null, no printed line).
 * summary_derived() computes one by id, SD_name; reports/export.c's JSON
 * and reports/print.c's summary show every one, in this order, and a
 * line of COMPARE_METRICS (reports/compare.h) compares one by calling
 * summary_derived(s, SD_name).  The figures that came before it (the
 * amplification, success ratios, latencies, a pipeline's) are fields
 * computed in summary.c; none has been added here yet. */
#define SUMMARY_DERIVED(X)

#define SUMMARY_DERIVED_ID(name, unit, json, decimals, label, value) SD_##name,
typedef enum summary_derived_id {
    SUMMARY_DERIVED(SUMMARY_DERIVED_ID) SD_COUNT
} summary_derived_id;
#undef SUMMARY_DERIVED_ID

/* Derived figure id (SD_...) of the run s, in its unit; NaN when none. */
static inline double summary_derived(const sim_summary *s, int id)
{
    (void)s; /* read by the table's expressions, when it has any */
    switch (id) {
#define SUMMARY_DERIVED_CASE(name, unit, json, decimals, label, value)         \
    case SD_##name:                                                            \
        return (value);
        SUMMARY_DERIVED(SUMMARY_DERIVED_CASE)
#undef SUMMARY_DERIVED_CASE
    default:
        return (double)NAN;
    }
}

/* Reduce a finished run (after sim_finish). */
void summary_compute(const sim *s, sim_summary *out);
/* summary_compute, and the successes' latency at the nq ascending levels
 * q[] (0 <= q <= 1) into ns[]: bin midpoints in ns, as hist_quantiles
 * gives them (0 when no request succeeded), read in the summary's own
 * pass over the run's histogram. */
void summary_compute_cdf(const sim *s, sim_summary *out, const double *q,
                         size_t nq, double *ns);

/* Mean goodput per second over buckets [from, to). */
double summary_goodput(const metrics *m, size_t from, size_t to);

#endif
