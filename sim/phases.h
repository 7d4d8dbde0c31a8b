/*
 * phases.h -- a run cut into phases around its faults, and each phase's
 * figures: the one definition the run summary, [expect] and the
 * comparison runner all use.
 *
 * The phases, in whole buckets of the scenario's `bucket`:
 *   before   [warmup, first fault start): the buckets wholly before the
 *            first fault (the summary's baseline window)
 *   during   [first fault start, last fault end): every bucket a fault
 *            touches
 *   after    [last fault end, start of `end`): the recovery
 *   end      the last recovery window of the run (the steady state),
 *            when it lies wholly after the last fault; else `after` runs
 *            to the end and there is no `end`
 * Without faults only `before` ([warmup, duration)) exists.  A phase with
 * no bucket is not present.  Buckets past the configured duration (a
 * front end that runs on) are in no phase.
 *
 * The figures are reduced from every bucket as it closes (phases_add, with
 * its histograms), so a phase's p99 is the quantile of its own samples,
 * not a mean of the buckets' quantiles, whatever the kept series merges.
 * The phases are those of the fault schedule when each bucket closes: a
 * fault injected or ended by hand (the GUI) moves only the buckets not
 * yet closed; a schedule from the scenario file never moves.
 *
 * Plain values, owned by the caller; no allocation.
 */
#ifndef SB_PHASES_H
#define SB_PHASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics.h"

typedef enum phase_kind {
    PHASE_BEFORE,
    PHASE_DURING,
    PHASE_AFTER,
    PHASE_END,
    PHASE_COUNT
} phase_kind;

/* One phase's figures. */
typedef struct sim_phase {
    bool present;
    double from_s, to_s; /* the span its buckets cover */
    double offered_per_s, goodput_per_s;
    double success_ratio; /* successes / requests that ended in the
                               phase, 0..1; NaN when none ended */
    double amplification; /* attempts / offered in the phase; NaN when
                               nothing was offered */
    double p99_ms;        /* successes' latency, from the phase's
                               buckets' histograms (within 3.2 %); NaN
                               when none succeeded */
    double duplicates;    /* duplicate writes in the phase */
} sim_phase;

/* ---- A phase's figures, once each ------------------------------------------
 *
 * The figures of a phase (the fields of sim_phase but its span), with
 * everything the outputs that show them read:
 *   X(ID, key, label, column, unit, better, json, print, scale, value)
 *   - ID: a comparison's CP_ID (reports/compare.h); key: its key in a
 *     comparison's summary.json, and after the phase's name and "_" a
 *     column of runs.csv ("during_goodput_per_s");
 *     label: what summary.md calls it; column: the report's shorter
 *     column head;
 *   - unit: "/s", "%", "x", "ms" or "" (a count); better: +1 higher is
 *     better, -1 lower, 0 neither;
 *   - json: its key in the run's JSON ("phases"), "" for none; a count
 *     (unit "") is written as an integer;
 *   - print: its column in the printed summary's phase table, as
 *     (head, width, decimals, suffix): the head right-aligned in width,
 *     the value with that many decimals and the suffix after it ("%",
 *     " ms"); ("", 0, 0, "") for none;
 *   - scale: the shown value is scale x value (100: a ratio shown in %);
 *     a comparison's statistics and the printed table show it scaled,
 *     the run's JSON as it is;
 *   - value: an expression of ph (the phase's sim_phase, const *,
 *     present); NaN when it has none (JSON null, "-" printed).
 * reports/export.c's JSON, reports/print.c's table and the comparison
 * (CP_*, compare_phase_figures[], compare_phase_value: runs.csv,
 * summary.md, summary.json, the report) read it.  Appended to, never
 * reordered.  A figure that needs a new sim_phase field changes the run
 * record (reports/runfile.h). */
#define PHASES_FIGURES(X)                                                      \
    X(OFFERED, "offered_per_s", "offered", "offered", "/s", 0,                 \
      "offered_per_s", ("", 0, 0, ""), 1.0, ph->offered_per_s)                 \
    X(GOODPUT, "goodput_per_s", "goodput", "goodput", "/s", +1,                \
      "goodput_per_s", ("goodput/s", 11, 1, ""), 1.0, ph->goodput_per_s)       \
    X(SUCCESS, "success_pct", "success ratio", "success", "%", +1,             \
      "success_ratio", ("success", 10, 1, "%"), 100.0, ph->success_ratio)      \
    X(AMPLIFICATION, "amplification", "amplification", "amplification", "x",   \
      -1, "amplification", ("amplification", 15, 2, ""), 1.0,                  \
      ph->amplification)                                                       \
    X(P99_MS, "p99_ms", "p99 latency", "p99", "ms", -1, "p99_ms",              \
      ("p99 latency", 14, 1, " ms"), 1.0, ph->p99_ms)                          \
    X(DUPLICATES, "duplicates", "duplicate writes", "duplicates", "", -1,      \
      "duplicates", ("", 0, 0, ""), 1.0, ph->duplicates)

/* Sums over a span of buckets: a phase, or any run of buckets a caller
 * reduces the same way (a comparison's series rows). */
typedef struct phases_sum {
    uint64_t buckets;
    int64_t width_ns;
    uint64_t offered, attempts, successes, failures, duplicates, refusals;
    double queue_ns;
    uint64_t n_latency;
    size_t lo, hi;                      /* nonzero bins; lo > hi: none */
    uint32_t latency[BUCKET_HIST_BINS]; /* successes' latency */
} phases_sum;

/* The bucket ranges [from, to) of each phase (empty: from == to). */
typedef struct phases_plan {
    uint64_t from[PHASE_COUNT], to[PHASE_COUNT];
} phases_plan;

/* What the phases of a run are cut from; times in ns, first_fault and
 * last_fault_end -1 when there is no fault. */
typedef struct phases_input {
    int64_t bucket_ns, duration_ns, warmup_ns, recovery_window_ns;
    int64_t first_fault, last_fault_end;
} phases_input;

/* The phases of a run, as bucket ranges. */
void phases_plan_of(const phases_input *in, phases_plan *out);

/* A run's phases as it is reduced: the plan and a sum per phase.
 *
 * Invariants (phases_sane):
 *   each plan range is from <= to, and the phases' ranges follow one
 *   another in phase order without overlapping;
 *   each sum's lo..hi spans its nonzero latency bins (lo > hi: none),
 *   and n_latency is their total (phases_sum_p99_ms reads only lo..hi).
 * Its owner is this module (phases_add, phases_replan). */
typedef struct phases {
    int64_t bucket_ns;
    phases_plan plan;
    uint64_t first[PHASE_COUNT]; /* the first bucket added to each */
    phases_sum sum[PHASE_COUNT];
} phases;

/* Start with the plan of `in` and empty sums (p need not be
 * initialised). */
void phases_init(phases *p, const phases_input *in);
/* A new fault schedule: the buckets still to close follow it. */
void phases_replan(phases *p, const phases_input *in);
/* Bucket b (at the scenario's width, with its histograms h) has closed:
 * add it to its phase, if any.  quiet is phases_bucket_quiet(b, h), which
 * the engine finds once for this and its observers (sim_observer): a
 * quiet bucket is counted in by its width alone. */
void phases_add(phases *p, const metrics_bucket *b, const metrics_hist *h,
                bool quiet);
/* Do the invariants above hold?  O(phases x bins): tests and debug
 * builds (sim_sane). */
bool phases_sane(const phases *p);
/* Each phase's figures. */
void phases_figures(const phases *p, sim_phase out[PHASE_COUNT]);

/* "before", "during", "after", "end": the names in JSON, CSV and saved
 * runs. */
const char *phases_name(phase_kind k);
/* "before the fault", "during faults", "recovery", "steady state": the
 * names people read in the summary and in [expect] verdicts. */
const char *phases_label(phase_kind k);

/* ---- Sums, for callers that reduce spans of their own ------------------ */

void phases_sum_clear(phases_sum *a);
void phases_sum_add(phases_sum *a, const metrics_bucket *b,
                    const metrics_hist *h);

/* Whether bucket b (h) adds nothing to a sum but itself and its width:
 * nothing offered, attempted, succeeded, failed, duplicated or refused,
 * no queue, no latency.  Adding such a bucket or counting it in by hand
 * (buckets + 1, width_ns + its width) gives the same sum bit for bit: a
 * queue of +0 or -0 added to the sum's leaves it as it is (it starts at
 * +0, and no sum of two numbers is -0 unless both are).  Most buckets of
 * a short run are (hot-record's 100 updates are done within seconds of
 * its 600). */
static inline bool phases_bucket_quiet(const metrics_bucket *b,
                                       const metrics_hist *h)
{
    return (b->offered | b->attempts | b->successes | b->failures |
            b->duplicates | b->refusals) == 0 &&
           b->queue_ns == 0.0 && h->lat_lo > h->lat_hi;
}
/* The successes' p99 over the span, ms; NaN when there were none. */
double phases_sum_p99_ms(const phases_sum *a);

#endif
