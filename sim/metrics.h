/*
 * metrics.h -- what happened, per time bucket and in total.
 *
 * The engine counts into the current bucket as events happen and calls
 * metrics_roll() when simulated time crosses a bucket boundary; gauges
 * (busy workers, queue length) are integrated over time, so a bucket holds
 * their time averages, not a sample.  Buckets are kept for the whole run
 * (the GUI draws them, the CSV prints them); the array grows by doubling.
 *
 * Owned by the engine; readers (viz, reports, the CLI) get a const pointer
 * that is valid until the next sim_run_until().
 */
#ifndef SB_METRICS_H
#define SB_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "histogram.h"

#define BUCKET_HIST_BITS 4 /* per-bucket quantiles within 3.2 % */
#define TOTAL_HIST_BITS 6  /* run quantiles within 0.8 % */
#define BUCKET_HIST_BINS HIST_BINS(BUCKET_HIST_BITS)
#define TOTAL_HIST_BINS HIST_BINS(TOTAL_HIST_BITS)

typedef struct metrics_bucket {
    uint64_t offered;   /* logical requests that started */
    uint64_t attempts;  /* attempts sent (first tries, retries, hedges) */
    uint64_t successes; /* requests that succeeded: goodput */
    uint64_t failures;  /* requests that failed, by cause: */
    uint64_t gave_up, deadline, refused, quarantined;
    uint64_t refused_budget, refused_breaker, refused_other; /* refused, by
                             why the send was refused */
    uint64_t refusals;    /* sends refused locally (first tries, retries
                             and hedges) */
    uint64_t timeouts;    /* attempts that timed out at the client */
    uint64_t rejections;  /* attempts the server turned away: 503, 429,
                             refused in an outage, dropped from a full queue */
    uint64_t errors;      /* attempts answered with an injected error */
    uint64_t duplicates;  /* extra commits of a post */
    uint64_t repeats;     /* extra commits of a put (harmless) */
    uint64_t expired;     /* queued attempts dropped as expired */
    uint64_t late;        /* ... as unable to finish in time (drop_late) */
    uint64_t lost_acks;   /* responses lost after the work was done */
    uint64_t conflicts;   /* hot record: updates that lost to another */
    double busy_ns;       /* integral of busy workers over time */
    double queue_ns;      /* integral of queue length over time */
    uint32_t max_queue;
    uint32_t capacity;    /* workers at the end of the bucket */
    int64_t service_ns;   /* service time completed in the bucket */
    int64_t wasted_ns;    /* ... spent on attempts nobody used */
    int64_t open_breakers; /* breakers open (half-open included), at the
                              end; one per process */
    double policy_level;   /* mean retry allowance left (tokens, budget)
                              over processes, at the end; -1: unreported */
    int64_t latency_sum_ns;
    uint32_t latency[BUCKET_HIST_BINS]; /* successful requests, end to end */
} metrics_bucket;

typedef struct metrics_totals {
    metrics_bucket sum; /* every counter summed; latency[] unused */
    uint32_t latency[TOTAL_HIST_BINS];
    int64_t queue_wait_sum_ns; /* time attempts waited in the queue */
    uint64_t queue_waits;      /* attempts that started service */
    uint32_t max_queue;
    uint64_t in_flight_end;    /* requests unfinished at the end */
} metrics_totals;

typedef struct metrics {
    int64_t bucket_ns;
    metrics_bucket *buckets;
    size_t n_buckets; /* closed + the current one */
    size_t cap;
    metrics_bucket *cur;
    int64_t cur_start, cur_end;
    /* gauges */
    int64_t gauge_t;
    uint32_t busy, queue;
    int64_t open_breakers;
    double policy_level;
    uint32_t capacity;
    metrics_totals total;
} metrics;

int metrics_init(metrics *m, int64_t bucket_ns, int64_t duration_ns);
void metrics_fini(metrics *m);

/* Close the current bucket and open the next one(s) until t falls inside
 * the current one.  Calls closed(ctx, index) for every bucket it closes. */
int metrics_roll(metrics *m, int64_t t, void (*closed)(void *, size_t),
                 void *ctx);

/* Integrate the gauges up to t (inside the current bucket); call before
 * changing busy or queue. */
static inline void metrics_gauge(metrics *m, int64_t t)
{
    int64_t dt = t - m->gauge_t;
    if (dt > 0) {
        m->cur->busy_ns += (double)m->busy * (double)dt;
        m->cur->queue_ns += (double)m->queue * (double)dt;
        m->gauge_t = t;
    }
}

static inline void metrics_set_queue(metrics *m, int64_t t, uint32_t q)
{
    metrics_gauge(m, t);
    m->queue = q;
    if (q > m->cur->max_queue)
        m->cur->max_queue = q;
}

static inline void metrics_latency(metrics *m, int64_t ns)
{
    m->cur->latency[hist_bin(BUCKET_HIST_BITS, ns)]++;
    m->cur->latency_sum_ns += ns;
    m->total.latency[hist_bin(TOTAL_HIST_BITS, ns)]++;
}

/* Sum every bucket into m->total.sum (call once, at the end). */
void metrics_finish(metrics *m, uint64_t in_flight);

/* Per-bucket derived values. */
double metrics_bucket_quantile_ms(const metrics_bucket *b, double q);

#endif
