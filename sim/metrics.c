#include "metrics.h"

#include <stdlib.h>
#include <string.h>

int metrics_init(metrics *m, int64_t bucket_ns, int64_t duration_ns)
{
    memset(m, 0, sizeof *m);
    m->bucket_ns = bucket_ns;
    m->cap = (size_t)(duration_ns / bucket_ns) + 2;
    m->buckets = calloc(m->cap, sizeof *m->buckets);
    if (m->buckets == NULL)
        return -1;
    m->n_buckets = 1;
    m->cur = &m->buckets[0];
    m->cur_start = 0;
    m->cur_end = bucket_ns;
    m->policy_level = -1.0;
    return 0;
}

void metrics_fini(metrics *m)
{
    free(m->buckets);
    m->buckets = NULL;
}

static int grow(metrics *m)
{
    size_t cap = m->cap * 2;
    metrics_bucket *b = realloc(m->buckets, cap * sizeof *b);
    if (b == NULL)
        return -1;
    memset(b + m->cap, 0, (cap - m->cap) * sizeof *b);
    m->buckets = b;
    m->cap = cap;
    return 0;
}

int metrics_roll(metrics *m, int64_t t, void (*closed)(void *, size_t),
                 void *ctx)
{
    while (t >= m->cur_end) {
        metrics_gauge(m, m->cur_end);
        m->cur->open_breakers = m->open_breakers;
        m->cur->policy_level = m->policy_level;
        m->cur->capacity = m->capacity;
        if (m->n_buckets == m->cap && grow(m) != 0)
            return -1;
        size_t done = m->n_buckets - 1;
        m->cur = &m->buckets[m->n_buckets++];
        m->cur_start = m->cur_end;
        m->cur_end += m->bucket_ns;
        m->cur->max_queue = m->queue;
        if (closed)
            closed(ctx, done);
    }
    return 0;
}

void metrics_finish(metrics *m, uint64_t in_flight)
{
    metrics_bucket *s = &m->total.sum;
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < m->n_buckets; i++) {
        const metrics_bucket *b = &m->buckets[i];
        s->offered += b->offered;
        s->attempts += b->attempts;
        s->successes += b->successes;
        s->failures += b->failures;
        s->gave_up += b->gave_up;
        s->deadline += b->deadline;
        s->refused += b->refused;
        s->refused_budget += b->refused_budget;
        s->refused_breaker += b->refused_breaker;
        s->refused_other += b->refused_other;
        s->refusals += b->refusals;
        s->quarantined += b->quarantined;
        s->timeouts += b->timeouts;
        s->rejections += b->rejections;
        s->errors += b->errors;
        s->duplicates += b->duplicates;
        s->repeats += b->repeats;
        s->expired += b->expired;
        s->late += b->late;
        s->lost_acks += b->lost_acks;
        s->conflicts += b->conflicts;
        s->busy_ns += b->busy_ns;
        s->queue_ns += b->queue_ns;
        s->service_ns += b->service_ns;
        s->wasted_ns += b->wasted_ns;
        s->latency_sum_ns += b->latency_sum_ns;
        if (b->max_queue > m->total.max_queue)
            m->total.max_queue = b->max_queue;
    }
    m->total.in_flight_end = in_flight;
}

double metrics_bucket_quantile_ms(const metrics_bucket *b, double q)
{
    return hist_quantile(BUCKET_HIST_BITS, b->latency, b->successes, q) / 1e6;
}
