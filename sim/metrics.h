/*
 * metrics.h -- what happened, per time bucket and in total.
 *
 * The engine counts into the live bucket (m->cur) as events happen and
 * calls metrics_roll() when simulated time crosses a bucket boundary;
 * gauges (busy workers, queue length) are integrated over time, so a
 * bucket holds their time averages, not a sample.
 *
 * Two resolutions.  The live bucket is the scenario's `bucket` wide and
 * has full latency histograms.  When it closes, the roll's callback gets
 * it whole (the engine passes it to its observers: the GUI, comparison
 * reports), and it is then folded into the kept series, m->buckets, which
 * is what the summary and the CSV read.  The kept series has one row per
 * bucket, unless the run has more than METRICS_MAX_BUCKETS buckets: then
 * each row covers `merge` consecutive buckets, merge being the smallest
 * power of two that fits the run's duration in the limit.  It is chosen
 * from the duration at the start, so a row's histograms are summed while
 * it is open and its quantiles are exact at its width; closed rows are
 * never merged after the fact.
 *
 * Memory.  A kept row is sizeof(metrics_bucket) = 376 bytes: its counters
 * and the quantiles the CSV prints (as histogram bins), not the histograms
 * (2 x 668 counts, 5.3 kB, mostly zeros), which only the live bucket and
 * the open row keep.  Rows are allocated as the run goes (the array
 * doubles, up to the rows the duration needs), so the series costs at
 * most METRICS_MAX_BUCKETS x 376 B = 49 MB, plus 11 kB of histograms and
 * 19 kB of run totals.  A simulated day at 1 s: 86 400 rows, 32 MB (each
 * bucket used to cost 2.7 kB, 233 MB in all, with a histogram of request
 * latency only).  2 h at 1 ms: 7.2 million buckets kept as 112 500 rows
 * of 64 ms, 42 MB (was 19 GB, allocated at the start).  A front end that
 * runs past the configured duration keeps adding rows of the same width.
 *
 * Owned by the engine; readers (viz, reports, the CLI) get a const pointer
 * that is valid until the next sim_run_until().
 */
#ifndef SB_METRICS_H
#define SB_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "histogram.h"

#define BUCKET_HIST_BITS 4 /* per-bucket quantiles within 3.2 % */
#define TOTAL_HIST_BITS 6  /* run quantiles within 0.8 % */
#define BUCKET_HIST_BINS HIST_BINS(BUCKET_HIST_BITS)
#define TOTAL_HIST_BINS HIST_BINS(TOTAL_HIST_BITS)

/* Kept rows at most, for the configured duration: 2^17, so every run of
 * up to 131 072 buckets (a day at 1 s) is kept bucket by bucket. */
#define METRICS_MAX_BUCKETS ((size_t)1 << 17)

/* A quantile bin of a bucket that had no samples. */
#define METRICS_NO_BIN UINT16_MAX

/* ---- Every metric, once ---------------------------------------------------
 *
 * The fields of metrics_bucket (below) but its place (start_ns, width_ns)
 * and its quantile bins, in the struct's order, with everything the
 * programs that show them read:
 *   X(field, reduction, in_summary, csv, json, label, compare)
 *   - reduction: how a kept row of merged buckets and the run's total
 *     combine it: SUM (counts, and the time integrals of gauges), MAX (a
 *     peak) or LAST (a level at the end of the span, not added up);
 *   - in_summary: whether the summary (summary.h) carries it, the run's
 *     total copied under the same name (Y or N); a comparison's run files
 *     save it under that name too;
 *   - csv: its column of the per-bucket CSV (the count in the row, as an
 *     integer), or "" when the CSV has no such column or a derived one
 *     (busy_workers is busy_ns / width);
 *   - json: its key in the run's JSON (a summary count), "" for none;
 *   - label: what users call it, in the printed summary and comparisons;
 *   - compare: whether a comparison tests it, and which way is better:
 *     LOW (fewer is better), HIGH, or NO.
 *
 * Counts are counts: they have no unit (a comparison shows them bare);
 * a figure with a unit (a rate, a time, a share) is derived from them
 * where it is shown.  metrics.c folds rows and totals by this table,
 * summary.c copies by it, and the outputs (reports/export.c, print.c,
 * runfile.c, compare.c, expect.c) name a metric by its id MF_field and
 * read its keys here.
 *
 * The metrics above the line METRICS_ADDED are shown where each output has
 * always shown them: those outputs keep their order, and list these by
 * id.  A new counter is one line in METRICS_ADDED, nothing else: its
 * uint64_t field is declared in metrics_bucket (and sim_summary, with Y)
 * from it, and every output appends it after the ones it had (README's
 * "Add a metric").  check_metrics's the_table_has_a_reader_for_every_key
 * fails when a key is shown twice or not at all. */
#define METRICS_BUCKET_FIELDS(X) METRICS_SHOWN(X) METRICS_ADDED(X)
#define METRICS_SHOWN(X)                                                       \
    X(offered, SUM, Y, "offered", "offered", "offered requests", NO)           \
    X(attempts, SUM, Y, "attempts", "attempts", "attempts", NO)                \
    X(successes, SUM, Y, "successes", "successes", "successes", NO)            \
    X(failures, SUM, Y, "failures", "total", "failures", NO)                   \
    X(gave_up, SUM, Y, "gave_up", "gave_up", "gave up", NO)                    \
    X(deadline, SUM, Y, "deadline", "deadline", "deadline", NO)                \
    X(refused, SUM, Y, "refused", "refused", "refused locally", NO)            \
    X(quarantined, SUM, Y, "quarantined", "quarantined", "quarantined", LOW)   \
    X(refused_budget, SUM, Y, "refused_budget", "budget",                      \
      "refused by a budget", NO)                                               \
    X(refused_breaker, SUM, Y, "refused_breaker", "breaker",                   \
      "refused by a breaker", NO)                                              \
    X(refused_other, SUM, Y, "refused_other", "other", "refused otherwise",    \
      NO)                                                                      \
    X(refusals, SUM, Y, "sends_refused_locally", "sends_refused_locally",      \
      "sends refused locally", NO)                                             \
    X(timeouts, SUM, Y, "timeouts", "timeouts", "attempts timed out", NO)      \
    X(rejections, SUM, Y, "rejections", "rejections",                          \
      "rejected by the server", NO)                                            \
    X(errors, SUM, Y, "errors", "injected_errors", "injected errors", NO)      \
    X(other_errors, SUM, Y, "other_errors", "other_errors", "other errors",    \
      NO)                                                                      \
    X(overflowed, SUM, Y, "overflow_dropped", "overflow_dropped",              \
      "dropped by a full queue", NO)                                           \
    X(duplicates, SUM, Y, "duplicates", "duplicates", "duplicate writes", LOW) \
    X(repeats, SUM, Y, "", "repeated_puts", "repeated puts", NO)               \
    X(expired, SUM, Y, "expired", "expired_dropped", "expired", NO)            \
    X(late, SUM, Y, "late_dropped", "late_dropped", "late", NO)                \
    X(lost_acks, SUM, Y, "lost_acks", "lost_acks", "lost acks", NO)            \
    X(conflicts, SUM, Y, "conflicts", "conflicts", "conflicts", NO)            \
    X(attempts_ended, SUM, N, "", "", "attempts ended", NO)                    \
    X(job_runs, SUM, N, "job_runs", "", "job runs", NO)                        \
    X(jobs_completed, SUM, N, "jobs_completed", "", "jobs completed", NO)      \
    X(job_runs_failed, SUM, N, "job_runs_failed", "", "job runs failed", NO)   \
    X(items_committed, SUM, N, "items_committed", "", "items committed", NO)   \
    X(items_duplicated, SUM, N, "items_duplicated", "", "items duplicated",    \
      NO)                                                                      \
    X(items_quarantined, SUM, N, "items_quarantined", "", "items quarantined", \
      NO)                                                                      \
    X(alerts_log, SUM, N, "alerts_log", "", "log alerts", NO)                  \
    X(alerts_warning, SUM, N, "alerts_warning", "", "warning alerts", NO)      \
    X(alerts_critical, SUM, N, "alerts_critical", "", "critical alerts", NO)   \
    X(busy_ns, SUM, N, "", "", "busy worker time", NO)                         \
    X(queue_ns, SUM, N, "", "", "queued time", NO)                             \
    X(service_ns, SUM, N, "", "", "service time", NO)                          \
    X(wasted_ns, SUM, N, "", "", "wasted service time", NO)                    \
    X(open_breakers, LAST, N, "open_breakers", "", "open breakers", NO)        \
    X(policy_level, LAST, N, "", "", "policy level", NO)                       \
    X(latency_sum_ns, SUM, N, "", "", "latency sum", NO)                       \
    X(queue_wait_ns, SUM, N, "", "", "queue wait", NO)                         \
    X(served, SUM, N, "", "", "attempts served", NO)                           \
    X(attempt_latency_sum_ns, SUM, N, "", "", "attempt latency sum", NO)       \
    X(max_queue, MAX, N, "max_queue", "", "max queue", NO)                     \
    X(capacity, LAST, N, "capacity", "", "workers", NO)

/* Counters added since the table was written: X(field, SUM, Y or N, csv,
 * json, label, compare), a uint64_t each (none yet). */
#define METRICS_ADDED(X)

/* A metric's id: MF_offered ... in the table's order. */
#define METRICS_ID(f, reduce, in_summary, csv, json, label, compare) MF_##f,
typedef enum metrics_field_id {
    METRICS_BUCKET_FIELDS(METRICS_ID) MF_COUNT
} metrics_field_id;
#undef METRICS_ID

/* The first metric METRICS_ADDED defines (MF_COUNT when there is none):
 * every output shows the ones from here on after those it always had. */
#define METRICS_ID_SHOWN(f, reduce, in_summary, csv, json, label, compare) +1
#define MF_FIRST_ADDED ((int)(0 METRICS_SHOWN(METRICS_ID_SHOWN)))

/* Pasted from a column's value (METRICS_IF_##in_summary, _##compare): its
 * argument, or nothing. */
#define METRICS_IF_Y(...) __VA_ARGS__
#define METRICS_IF_N(...)
#define METRICS_IF_LOW(...) __VA_ARGS__
#define METRICS_IF_HIGH(...) __VA_ARGS__
#define METRICS_IF_NO(...)
#define METRICS_BETTER_LOW (-1)
#define METRICS_BETTER_HIGH (+1)

/* ---- Figures derived from a row, once each --------------------------------
 *
 * What a row shows that is not one of its counts:
 *   X(name, unit, csv, decimals, blank, label, value)
 *   - unit: "s", "ms", "/s", "x", or "" (workers, requests, a level);
 *   - csv: its column of the per-bucket CSV;
 *   - decimals: printed with that many ("%.*f"), or -1 for "%.9g" (a time
 *     that must read back exactly);
 *   - blank: Y when a NaN value is an empty cell (the level: no policy
 *     reported one), N when it prints as printf prints NaN;
 *   - label: what users call it;
 *   - value: how it is computed, an expression of b (the row, a const
 *     metrics_bucket *) in its unit; a rate or time average is over the
 *     row's own width (a merged row's, which width_s states).
 * metrics_derived() computes them by id, MD_name; reports/export.c's
 * CSV lists its columns by id and reads the rest here.  The run's own
 * figures (the summary's amplification, latency quantiles ...) are
 * sim_summary fields (summary.c), and a comparison's are its table,
 * COMPARE_METRICS (reports/compare.h). */
#define METRICS_DERIVED(X)                                                     \
    X(t, "s", "t_s", -1, N, "bucket start", (double)b->start_ns / 1e9)         \
    X(busy_workers, "", "busy_workers", 3, N, "busy workers",                  \
      b->busy_ns / (double)b->width_ns)                                        \
    X(queue_len, "", "queue_len", 3, N, "queue length",                        \
      b->queue_ns / (double)b->width_ns)                                       \
    X(wasted_work, "s", "wasted_work_s", 6, N, "wasted work",                  \
      (double)b->wasted_ns / 1e9)                                              \
    X(p50, "ms", "p50_ms", 3, N, "p50 latency", metrics_bin_ms(b->p50_bin))    \
    X(p99, "ms", "p99_ms", 3, N, "p99 latency", metrics_bin_ms(b->p99_bin))    \
    X(amplification, "x", "amplification", 4, N, "amplification",              \
      b->offered ? (double)b->attempts / (double)b->offered : 0.0)             \
    X(goodput, "/s", "goodput_per_s", 3, N, "goodput",                         \
      (double)b->successes / ((double)b->width_ns / 1e9))                      \
    X(policy_level, "", "policy_level", 4, Y, "policy level",                  \
      b->policy_level >= 0 ? b->policy_level : NAN)                            \
    X(width, "s", "width_s", -1, N, "row width", (double)b->width_ns / 1e9)    \
    X(attempt_p50, "ms", "attempt_p50_ms", 3, N, "attempt p50 latency",        \
      metrics_bin_ms(b->attempt_p50_bin))                                      \
    X(attempt_p99, "ms", "attempt_p99_ms", 3, N, "attempt p99 latency",        \
      metrics_bin_ms(b->attempt_p99_bin))                                      \
    X(queue_wait, "ms", "queue_wait_ms", 3, N, "queue wait",                   \
      b->served ? (double)b->queue_wait_ns / (double)b->served / 1e6 : 0.0)

#define METRICS_DERIVED_ID(name, unit, csv, decimals, blank, label, value)     \
    MD_##name,
typedef enum metrics_derived_id {
    METRICS_DERIVED(METRICS_DERIVED_ID) MD_COUNT
} metrics_derived_id;
#undef METRICS_DERIVED_ID

/* One derived figure, as data (its value: metrics_derived). */
typedef struct metrics_derived_info {
    const char *name, *unit, *csv, *label;
    int decimals; /* -1: %.9g */
    bool blank;   /* NaN: an empty cell */
} metrics_derived_info;
extern const metrics_derived_info metrics_derived_fields[MD_COUNT];

/* How a field is stored, for readers that walk the table. */
typedef enum metrics_type { MT_U64, MT_I64, MT_U32, MT_DOUBLE } metrics_type;

/* One line of the table, as data. */
typedef struct metrics_field {
    const char *name;  /* the field's, and the run file's key */
    const char *csv;   /* "" when not a column of its own */
    const char *json;  /* "" when not in the JSON */
    const char *label; /* what users call it */
    int compare;       /* +1 higher is better, -1 lower, 0 not compared */
    bool in_summary;
    metrics_type type;
    size_t offset; /* in metrics_bucket */
} metrics_field;
extern const metrics_field metrics_fields[MF_COUNT];

#define METRICS_DECLARE(f, reduce, in_summary, csv, json, label, compare)      \
    uint64_t f;

/* One span of time: the live bucket, or a row of the kept series.  No
 * padding, so two runs' series compare with memcmp. */
typedef struct metrics_bucket {
    int64_t start_ns;   /* where it starts */
    int64_t width_ns;   /* how long: the bucket, or merge x bucket; the
                           last row of a merged series may be shorter */
    uint64_t offered;   /* logical requests that started */
    uint64_t attempts;  /* attempts sent (first tries, retries, hedges) */
    uint64_t successes; /* requests that succeeded: goodput */
    uint64_t failures;  /* requests that failed, by cause: */
    uint64_t gave_up, deadline, refused, quarantined;
    uint64_t refused_budget, refused_breaker, refused_other; /* refused, by
                             why the send was refused */
    uint64_t refusals; /* sends refused locally (first tries, retries
                             and hedges) */
    /* How attempts ended, each exactly once: successes (above) and these
     * four add up to attempts_ended.  All are counted by the client when
     * the attempt ends while it waits: an answer that comes after its
     * timeout, or to an attempt a hedge made unneeded, ends nothing. */
    uint64_t timeouts;       /* attempts that timed out at the client (a
                             black hole, a silently dropped attempt, a
                             lost answer, or just slow) */
    uint64_t rejections;     /* ... answered by the server turning them away:
                             503 queue full, 429 rate limited, refused or
                             reset in an outage */
    uint64_t errors;         /* ... answered with an injected error */
    uint64_t other_errors;   /* ... answered with any other error: a data
                              defect (422), a post a deduplicating server
                              refused (409), an update that lost (ABORTED),
                              a connection a partition refused */
    uint64_t overflowed;     /* attempts a full queue dropped silently
                             (overflow = drop); their clients learn by
                             timing out */
    uint64_t duplicates;     /* extra commits of a post */
    uint64_t repeats;        /* extra commits of a put (harmless) */
    uint64_t expired;        /* queued attempts dropped as expired */
    uint64_t late;           /* ... as unable to finish in time (drop_late) */
    uint64_t lost_acks;      /* responses lost after the work was done */
    uint64_t conflicts;      /* hot record: updates that lost to another */
    uint64_t attempts_ended; /* attempts that ended while their client
                                waited: answered, or timed out */
    /* Pipelines (sim/pipeline.h); 0 without one.  Job runs that started
     * (first runs and reruns), jobs that completed, job runs that ended
     * failed; batch items committed (the first time), committed again,
     * quarantined (to the dead-letter queue); alerts raised, by level. */
    uint64_t job_runs, jobs_completed, job_runs_failed;
    uint64_t items_committed, items_duplicated, items_quarantined;
    uint64_t alerts_log, alerts_warning, alerts_critical;
    double busy_ns;        /* integral of busy workers over time */
    double queue_ns;       /* integral of queue length over time */
    int64_t service_ns;    /* service time completed in the bucket */
    int64_t wasted_ns;     /* ... spent on attempts nobody used */
    int64_t open_breakers; /* breakers open (half-open included), at the
                              end; one per process */
    double policy_level;   /* mean retry allowance left (tokens, budget)
                              over processes, at the end; -1: unreported */
    int64_t latency_sum_ns;
    int64_t queue_wait_ns; /* time the attempts that started service in it
                              had waited in the queue */
    uint64_t served;       /* attempts that started service */
    int64_t attempt_latency_sum_ns;
    uint32_t max_queue;
    uint32_t capacity; /* workers at the end of the bucket */
    /* Quantiles of the successful requests' latency and of the attempts'
     * latency, as bins of a BUCKET_HIST_BITS histogram (metrics_bin_ms);
     * METRICS_NO_BIN when there was none.  Set when it closes. */
    uint16_t p50_bin, p99_bin;
    uint16_t attempt_p50_bin, attempt_p99_bin;
    METRICS_ADDED(METRICS_DECLARE) /* the table's added counters */
} metrics_bucket;

/* Field id of bucket b as an integer (a double is truncated). */
uint64_t metrics_field_u64(const metrics_bucket *b, int id);

/* The histograms of one bucket or open row.  Every nonzero count of
 * latency lies in bins [lat_lo, lat_hi], of attempt in [att_lo, att_hi]
 * (lo > hi when empty), and the bins at both ends have counts (a span
 * widens only to a bin counted in, and counts only grow until the
 * histogram is cleared), so clearing, folding and reading one costs what
 * its samples span, not 668 bins.  Each has its own span: a request's
 * latency is many of its attempts' (hot-record's 900 ms against 12 ms),
 * and one span of both made every reader of the latencies walk the ~100
 * empty bins between. */
typedef struct metrics_hist {
    uint32_t latency[BUCKET_HIST_BINS]; /* successful requests, end to end */
    uint32_t attempt[BUCKET_HIST_BINS]; /* attempts, send to answer or
                                           timeout */
    uint16_t lat_lo, lat_hi;            /* of latency */
    uint16_t att_lo, att_hi;            /* of attempt */
} metrics_hist;

typedef struct metrics_totals {
    metrics_bucket sum; /* every counter summed; the bins unused */
    uint32_t latency[TOTAL_HIST_BINS];
    uint32_t attempt_latency[TOTAL_HIST_BINS];
    uint32_t max_queue;
    uint64_t in_flight_end; /* requests unfinished at the end */
} metrics_totals;

/* Called with each bucket as it closes; b and h are valid during the
 * call only. */
typedef void (*metrics_closed_fn)(void *ctx, const metrics_bucket *b,
                                  const metrics_hist *h);

/* A run's (or a tier's) counts by bucket.
 *
 * Invariants (metrics_sane):
 *   live_ns > 0; merge is a power of two; bucket_ns = live_ns x merge;
 *   1 <= n_buckets <= cap (the open row is the last); in_row <= merge;
 *   the live bucket is [cur_start, cur_end), cur_end = cur_start +
 *   live_ns, and lies in the open row (which starts no later);
 *   each histogram's lo..hi spans its nonzero bins, with counts at both
 *   ends (lo > hi: none);
 *   exact is set only while busy, queue and capacity are at most
 *   exact_lim (the integrals stay below 2^53: metrics_set_busy and
 *   metrics_set_capacity clear it before that).
 * Not checked: open_breakers >= 0 (it counts the policies' reports as
 * given, and a plug-in may report a breaker closed that it never said
 * was open: tests/plugins' sbt_host_calls does, at -2000), and
 * policy_level >= 0 (a running mean; its sum's rounding leaves -2e-14
 * where the levels are 0).
 * Its owner is this module: the engine counts into the live bucket
 * (m->cur->x++, the one write it makes) and sets the gauges through
 * metrics_set_busy, metrics_set_capacity, metrics_set_policy_level and
 * metrics_breakers_add. */
typedef struct metrics {
    int64_t bucket_ns;       /* a kept row's width: live_ns x merge */
    int64_t live_ns;         /* the scenario's bucket: the live bucket's */
    uint32_t merge;          /* buckets per kept row: 1, 2, 4 ... */
    uint32_t in_row;         /* buckets folded into the open row so far */
    metrics_bucket *buckets; /* the kept rows, oldest first */
    size_t n_buckets;        /* kept rows: the closed ones + the open one */
    size_t cap, want;        /* allocated rows; rows the duration needs */
    int64_t cur_start, cur_end;
    /* The live bucket, where the engine counts, by either name.  cur is
     * an array of one, so m->cur->x is an offset from m: as a pointer
     * (always &live) every count loaded it first. */
    union {
        metrics_bucket live;
        metrics_bucket cur[1];
    };
    metrics_hist live_hist, row_hist;
    /* The last attempt latency metrics_attempt_latency() counted since
     * the live bucket opened (-1: none yet) and its two bins. */
    int64_t att_ns;
    uint32_t att_fine, att_bin;
    /* Gauges: busy workers and queue length, integrated over time into
     * the live bucket's busy_ns and queue_ns (metrics_busy_step). */
    uint32_t busy, queue;
    bool exact;         /* integrated exactly, in integers, this bucket */
    uint64_t exact_lim; /* exact while busy, queue, capacity <= this */
    uint64_t busy_acc, queue_acc; /* exact: the integrals, less the
                                     current value x now (mod 2^64) */
    int64_t gauge_t;              /* not exact: integrated up to here */
    int64_t open_breakers;
    double policy_level;
    uint32_t capacity;
    metrics_totals total;
} metrics;

/* Set up for a run of duration_ns in buckets of bucket_ns, keeping at
 * most max_rows rows for that duration (METRICS_MAX_BUCKETS; tests pass
 * less).  -1 when out of memory. */
int metrics_init(metrics *m, int64_t bucket_ns, int64_t duration_ns,
                 size_t max_rows);
void metrics_fini(metrics *m);
/* metrics_init for m, which holds a run's table, keeping its rows'
 * memory (a reused engine, sim_reuse). */
int metrics_reset(metrics *m, int64_t bucket_ns, int64_t duration_ns,
                  size_t max_rows);
/* Make m a copy of src (m's old contents are not freed): its kept rows
 * and everything it counts.  -1 out of memory (m is then good for
 * metrics_fini only). */
int metrics_clone(metrics *m, const metrics *src);

/* The kept rows a run of duration_ns in buckets of bucket_ns will have,
 * at most max_rows, and in *merge (may be NULL) the buckets per row. */
uint64_t metrics_plan(int64_t bucket_ns, int64_t duration_ns, size_t max_rows,
                      uint32_t *merge);

/* Close the live bucket and open the next one(s) until t falls inside the
 * live one; closed (may be NULL) gets every bucket it closes.  -1 when
 * out of memory for the kept rows. */
int metrics_roll(metrics *m, int64_t t, metrics_closed_fn closed, void *ctx);

/* The gauges' time integrals.  A bucket's busy_ns is the sum, in
 * doubles, of busy x dt over the spans between changes (queue_ns alike).
 * While every product and partial sum is an integer below 2^53 that sum
 * is exact, and equals the integral summed in integers; busy, queue and
 * the workers at most exact_lim = 2^53 / bucket width guarantee it.  Then
 * (m->exact) a change at t only adds -delta x t to an accumulator (the
 * integral is value x t + accumulator, by parts), and the bucket's close
 * converts: the same bits as the doubles, with no conversion, multiply or
 * test of the span per change.  Past the bound (a queue past 9 million at 1 s
 * buckets, more than 2 501 workers at 1 h buckets, unlimited workers) the
 * bucket goes on in doubles, from the exact sum so far
 * (metrics_gauge_inexact); check_metrics pins the bits both ways. */

/* Not exact: integrate both gauges in doubles up to t (inside the
 * current bucket).  Out of line: rare, and kept out of the hot paths. */
void metrics_gauge(metrics *m, int64_t t);

/* Leave exact integration at t for the rest of the bucket (a gauge or the
 * workers pass exact_lim). */
void metrics_gauge_inexact(metrics *m, int64_t t);

/* A gauge whose exact accumulator is acc steps by delta at t: the part
 * of a step that busy and the queue share (the caller sets the value). */
static inline void metrics_gauge_step(metrics *m, uint64_t *acc, int64_t t,
                                      int delta)
{
    if (m->exact)
        *acc -= (uint64_t)(int64_t)delta * (uint64_t)t;
    else
        metrics_gauge(m, t);
}

/* Busy workers step by delta (+1 or -1, a constant) to busy, at t. */
static inline void metrics_busy_step(metrics *m, int64_t t, int delta,
                                     uint32_t busy)
{
    metrics_gauge_step(m, &m->busy_acc, t, delta);
    m->busy = busy;
}

/* The queue steps by delta (+1 or -1, a constant) to q, at t.  A step
 * down never sets a maximum: max_queue >= queue always. */
static inline void metrics_queue_step(metrics *m, int64_t t, int delta,
                                      uint32_t q)
{
    metrics_gauge_step(m, &m->queue_acc, t, delta);
    m->queue = q;
    if (delta > 0 && q > m->cur->max_queue) {
        m->cur->max_queue = q;
        /* Exact, max_queue <= exact_lim: only a new maximum can pass. */
        if (q > m->exact_lim && m->exact)
            metrics_gauge_inexact(m, t);
    }
}

/* Busy workers are now busy (any change), at t. */
void metrics_set_busy(metrics *m, int64_t t, uint32_t busy);

/* The server has `workers` workers from t: the capacity stamped on
 * buckets, and a bound on busy. */
void metrics_set_capacity(metrics *m, int64_t t, uint32_t workers);

/* Widen the span [*lo, *hi] of a histogram of metrics_hist to bin. */
static inline void metrics_span_touch(uint16_t *lo, uint16_t *hi, size_t bin)
{
    if (bin < *lo)
        *lo = (uint16_t)bin;
    if (bin > *hi)
        *hi = (uint16_t)bin;
}

/* A request succeeded after ns, end to end. */
static inline void metrics_latency(metrics *m, int64_t ns)
{
    size_t fine = hist_bin(TOTAL_HIST_BITS, ns);
    size_t bin = hist_bin_coarser(BUCKET_HIST_BITS, TOTAL_HIST_BITS, fine, ns);
    m->live_hist.latency[bin]++;
    metrics_span_touch(&m->live_hist.lat_lo, &m->live_hist.lat_hi, bin);
    m->cur->latency_sum_ns += ns;
    m->total.latency[fine]++;
}

/* An attempt ended ns >= 0 after it was sent, its client still waiting
 * for it: answered (success or error), or timed out (ns is then its
 * timeout).  Attempts a hedged request stopped waiting for when another
 * copy answered never end this way and are not counted.
 *
 * Most attempts that end time out, after exactly the timeout: the last
 * value's bins are kept, and a repeat skips both bin computations and
 * the attempt histogram's span (its bin was touched when the value was
 * first counted in this bucket; open_live forgets the value). */
static inline void metrics_attempt_latency(metrics *m, int64_t ns)
{
    size_t fine, bin; /* locals: a count's store could alias m->att_* */
    if (ns == m->att_ns) {
        fine = m->att_fine;
        bin = m->att_bin;
    } else {
        fine = hist_bin(TOTAL_HIST_BITS, ns);
        bin = hist_bin_coarser(BUCKET_HIST_BITS, TOTAL_HIST_BITS, fine, ns);
        metrics_span_touch(&m->live_hist.att_lo, &m->live_hist.att_hi, bin);
        m->att_ns = ns;
        m->att_fine = (uint32_t)fine;
        m->att_bin = (uint32_t)bin;
    }
    m->live_hist.attempt[bin]++;
    m->cur->attempts_ended++;
    m->cur->attempt_latency_sum_ns += ns;
    m->total.attempt_latency[fine]++;
}

/* End the run at time t: integrate the gauges to t, close the live
 * bucket (closed gets it, as from metrics_roll) and the last row, and sum
 * every row into m->total.sum.  Call once. */
void metrics_finish(metrics *m, int64_t t, uint64_t in_flight,
                    metrics_closed_fn closed, void *ctx);

/* A quantile bin's value in ms: the bin's midpoint, 0 for METRICS_NO_BIN
 * (within 3.2 % of the true quantile, as hist_quantile). */
double metrics_bin_ms(uint16_t bin);

/* Derived figure id (MD_...) of row b, as METRICS_DERIVED computes it. */
double metrics_derived(const metrics_bucket *b, int id);

/* Bytes the metrics hold. */
size_t metrics_bytes(const metrics *m);
/* Do the invariants above hold?  O(kept rows' span of bins): tests and
 * debug builds (sim_sane). */
bool metrics_sane(const metrics *m);

/* The end-of-bucket gauges: the mean retry allowance left over the
 * processes that report it (policy_level), and the breakers open (one
 * per process) going up or down by one.  Stamped on the live bucket as
 * it closes. */
static inline void metrics_set_policy_level(metrics *m, double level)
{
    m->policy_level = level;
}
static inline void metrics_breakers_add(metrics *m, int delta)
{
    m->open_breakers += delta;
}

/* ---- The lines a live chart draws, once each ------------------------------
 *
 * What a front end draws per closed bucket (viz/series.h keeps one row of
 * them per bucket, the window's panels and the series CSV read them):
 *   X(name, key, label, unit, form, merge, has, csv, value)
 *   - key: the word a GUI script hides or shows it by ("hide attempts"),
 *     "" for a column that is no line (in the series CSV only);
 *   - label: what the legend and the tooltip call it;
 *   - unit: how a value reads: PER_S (" /s"), MS (" ms"), PCT (" %"),
 *     COUNT (a whole number), MEAN (a mean of a count), S (a time);
 *   - form: how the row's figure is made from value: RATE, value per
 *     second of the bucket's width (an empty bucket is 0 /s); SO_FAR, the
 *     running total of value since the run started; AS_IS, value itself;
 *   - merge: how two rows become one when the series halves its
 *     resolution: MEAN (a NaN half leaves the other) or LAST (a level
 *     at the end of the span, a running total);
 *   - has: whether the bucket has the figure at all: when it is false the
 *     row holds NaN (no sample: the line has a gap, the CSV an empty
 *     cell), not 0; 1 for a figure every bucket has;
 *   - csv: the series CSV's column;
 *   - value: an expression of b (the bucket, a const metrics_bucket *)
 *     and service_s (the scenario's mean service time, s), in the unit;
 *     a figure METRICS_DERIVED defines is read from there.
 * metrics_line() computes one by id, ML_name; the order is the series
 * CSV's and is kept (appended to, never reordered). */
#define METRICS_LINES(X)                                                       \
    X(t, "", "bucket end", S, AS_IS, LAST, 1, "t_end_s",                       \
      (double)(b->start_ns + b->width_ns) / 1e9)                               \
    X(offered, "offered", "offered", PER_S, RATE, MEAN, 1, "offered_per_s",    \
      (double)b->offered)                                                      \
    X(attempts, "attempts", "attempts", PER_S, RATE, MEAN, 1,                  \
      "attempts_per_s", (double)b->attempts)                                   \
    X(capacity, "capacity", "capacity", PER_S, AS_IS, MEAN,                    \
      b->capacity != UINT32_MAX && service_s > 0, "capacity_per_s",            \
      (double)b->capacity / service_s)                                         \
    X(goodput, "goodput", "goodput", PER_S, AS_IS, MEAN, 1, "goodput_per_s",   \
      metrics_derived(b, MD_goodput))                                          \
    X(success, "success", "success ratio", PCT, AS_IS, MEAN,                   \
      b->successes + b->failures > 0, "success_pct",                           \
      100.0 * (double)b->successes / (double)(b->successes + b->failures))     \
    X(queue, "queue", "queue length", MEAN, AS_IS, MEAN, 1, "queue_mean",      \
      metrics_derived(b, MD_queue_len))                                        \
    X(queue_wait, "queue_wait", "queue wait", MS, AS_IS, MEAN, b->served > 0,  \
      "queue_wait_ms", metrics_derived(b, MD_queue_wait))                      \
    X(p50, "p50", "p50", MS, AS_IS, MEAN, b->p50_bin != METRICS_NO_BIN,        \
      "latency_p50_ms", metrics_derived(b, MD_p50))                            \
    X(p99, "p99", "p99", MS, AS_IS, MEAN, b->p99_bin != METRICS_NO_BIN,        \
      "latency_p99_ms", metrics_derived(b, MD_p99))                            \
    X(duplicates, "duplicates", "duplicate writes", COUNT, SO_FAR, LAST, 1,    \
      "duplicates_so_far", (double)b->duplicates)                              \
    X(quarantined, "quarantined", "quarantined", COUNT, SO_FAR, LAST, 1,       \
      "quarantined_so_far", (double)b->quarantined)                            \
    X(breakers, "breakers", "open breakers", COUNT, AS_IS, LAST, 1,            \
      "open_breakers", (double)b->open_breakers)                               \
    X(refused, "refused", "refused locally", PER_S, RATE, MEAN, 1,             \
      "refused_locally_per_s", (double)b->refusals)                            \
    X(allowance, "allowance", "retry allowance left", PCT, AS_IS, MEAN,        \
      b->policy_level >= 0, "retry_allowance_pct",                             \
      100.0 * metrics_derived(b, MD_policy_level))                             \
    X(busy, "", "busy workers", MEAN, AS_IS, MEAN, 1, "busy_workers_mean",     \
      metrics_derived(b, MD_busy_workers))                                     \
    X(workers, "", "workers", COUNT, AS_IS, LAST, b->capacity != UINT32_MAX,   \
      "workers", (double)b->capacity)                                          \
    X(wasted, "", "wasted work", PCT, AS_IS, MEAN, b->service_ns > 0,          \
      "wasted_work_pct", 100.0 * (double)b->wasted_ns / (double)b->service_ns) \
    X(dead_letters, "dead_letters", "dead letters", COUNT, SO_FAR, LAST, 1,    \
      "dead_letters_so_far", (double)(b->quarantined + b->items_quarantined))  \
    X(warnings, "warnings", "warnings", COUNT, SO_FAR, LAST, 1,                \
      "alerts_warning_so_far", (double)b->alerts_warning)                      \
    X(critical, "critical", "critical alerts", COUNT, SO_FAR, LAST, 1,         \
      "alerts_critical_so_far", (double)b->alerts_critical)

#define METRICS_LINE_ID(name, key, label, unit, form, merge, has, csv, value)  \
    ML_##name,
typedef enum metrics_line_id {
    METRICS_LINES(METRICS_LINE_ID) ML_COUNT
} metrics_line_id;
#undef METRICS_LINE_ID

typedef enum metrics_line_unit {
    MLU_PER_S,
    MLU_MS,
    MLU_PCT,
    MLU_COUNT,
    MLU_MEAN,
    MLU_S
} metrics_line_unit;
typedef enum metrics_line_form {
    MLF_RATE,
    MLF_SO_FAR,
    MLF_AS_IS
} metrics_line_form;
typedef enum metrics_line_merge { MLM_MEAN, MLM_LAST } metrics_line_merge;

/* One line, as data (its value: metrics_line). */
typedef struct metrics_line_info {
    const char *key, *label, *csv;
    metrics_line_unit unit;
    metrics_line_form form;
    metrics_line_merge merge;
} metrics_line_info;
extern const metrics_line_info metrics_lines[ML_COUNT];

/* Line id (ML_...) of bucket b before its form is applied: the value, or
 * NaN when the bucket does not have it; service_s as the table says. */
double metrics_line(const metrics_bucket *b, int id, double service_s);

#endif
