#include "summary.h"

#include <math.h>
#include <string.h>

double summary_goodput(const metrics *m, size_t from, size_t to)
{
    if (to <= from)
        return 0.0;
    uint64_t n = 0;
    for (size_t i = from; i < to; i++)
        n += m->buckets[i].successes;
    return (double)n / ((double)(to - from) * (double)m->bucket_ns / 1e9);
}

/* Index of the first bucket starting at or after t (ceil). */
static size_t bucket_from(const metrics *m, int64_t t)
{
    return (size_t)((t + m->bucket_ns - 1) / m->bucket_ns);
}

static void baseline(const sim *s, const metrics *m, size_t n, sim_summary *o)
{
    const sim_config *c = sim_config_of(s);
    int64_t first = sim_first_fault_start(s);
    size_t from = bucket_from(m, c->warmup_ns);
    size_t to = first >= 0 ? (size_t)(first / m->bucket_ns) : n;
    if (to > n)
        to = n;
    o->has_baseline = to > from;
    if (o->has_baseline)
        o->baseline_goodput_per_s = summary_goodput(m, from, to);
}

/* The first window of w buckets, starting at or after bucket `from`, whose
 * mean goodput is within the band around `base`: its first bucket, or n
 * when none is.  The window's success count is kept as a running sum (add
 * the bucket that enters, take away the one that leaves), so the scan is
 * O(buckets) instead of O(buckets x window); the sum is an integer, so each
 * window's goodput is the same double summary_goodput() gives. */
static size_t first_recovered(const metrics *m, size_t from, size_t w, size_t n,
                              double base)
{
    double width_s = (double)w * (double)m->bucket_ns / 1e9;
    uint64_t sum = 0;
    for (size_t i = from; i < from + w; i++)
        sum += m->buckets[i].successes;
    for (size_t i = from;; i++) {
        if (fabs((double)sum / width_s - base) <= RECOVERY_BAND * base)
            return i;
        if (i + w >= n)
            return n;
        sum += m->buckets[i + w].successes;
        sum -= m->buckets[i].successes;
    }
}

static void recovery(const sim *s, const metrics *m, size_t n, sim_summary *o)
{
    const sim_config *c = sim_config_of(s);
    int64_t end = sim_last_fault_end(s);
    size_t w =
        (size_t)((c->recovery_window_ns + m->bucket_ns - 1) / m->bucket_ns);
    if (w < 1)
        w = 1;
    if (!o->has_fault || !o->has_baseline || end >= c->duration_ns)
        return;
    size_t from = bucket_from(m, end);
    if (from + w > n)
        return;
    o->recovery_judged = true;
    double base = o->baseline_goodput_per_s;
    o->final_goodput_ratio =
        o->baseline_goodput_per_s > 0
            ? summary_goodput(m, n - w, n) / o->baseline_goodput_per_s
            : 0.0;
    size_t i = first_recovered(m, from, w, n, base);
    if (i == n) {
        o->metastable = true;
        return;
    }
    o->recovered = true;
    o->recovery_time_s = (double)((int64_t)i * m->bucket_ns - end) / 1e9;
}

void summary_live(const sim *s, sim_live *o)
{
    const metrics *m = sim_metrics(s);
    const sim_config *c = sim_config_of(s);
    memset(o, 0, sizeof *o);
    o->goodput_ratio = -1.0;
    /* Rows closed so far: all but the one being filled. */
    size_t n = m->n_buckets > 0 ? m->n_buckets - 1 : 0;
    for (size_t i = 0; i < n; i++) {
        const metrics_bucket *b = &m->buckets[i];
        o->offered += b->offered;
        o->attempts += b->attempts;
        o->successes += b->successes;
        o->duplicates += b->duplicates;
        o->quarantined += b->quarantined;
        o->job_runs += b->job_runs;
        o->jobs_completed += b->jobs_completed;
        o->job_runs_failed += b->job_runs_failed;
        o->alerts_warning += b->alerts_warning;
        o->alerts_critical += b->alerts_critical;
    }
    o->pipeline = c->pipeline.n_steps > 0;
    o->amplification =
        o->offered ? (double)o->attempts / (double)o->offered : 0.0;
    sim_summary tmp;
    memset(&tmp, 0, sizeof tmp);
    baseline(s, m, n, &tmp);
    o->has_baseline = tmp.has_baseline;
    o->baseline_goodput_per_s = tmp.baseline_goodput_per_s;
    int64_t now = sim_now(s), end = sim_last_fault_end(s);
    uint32_t nf;
    const fault_cfg *f = sim_faults(s, &nf);
    for (uint32_t i = 0; i < nf; i++)
        if (sim_fault_active(s, (int)i) && f[i].start_ns <= now)
            o->fault_running = true;
    if (end < 0 || end > now || o->fault_running || !o->has_baseline)
        return;
    o->after_fault = true;
    o->since_fault_s = (double)(now - end) / 1e9;
    size_t w =
        (size_t)((c->recovery_window_ns + m->bucket_ns - 1) / m->bucket_ns);
    if (w < 1)
        w = 1;
    size_t from = bucket_from(m, end);
    if (from + w > n)
        return;
    double base = o->baseline_goodput_per_s;
    if (base > 0)
        o->goodput_ratio = summary_goodput(m, n - w, n) / base;
    size_t i = first_recovered(m, from, w, n, base);
    if (i < n) {
        o->recovered = true;
        o->recovery_time_s = (double)((int64_t)i * m->bucket_ns - end) / 1e9;
    }
}

static void peak(const metrics *m, size_t n, sim_summary *o)
{
    for (size_t i = 0; i < n; i++) {
        const metrics_bucket *b = &m->buckets[i];
        if (b->offered == 0)
            continue;
        double a = (double)b->attempts / (double)b->offered;
        if (a > o->peak_amplification) {
            o->peak_amplification = a;
            o->peak_amplification_at_s = (double)i * (double)m->bucket_ns / 1e9;
        }
    }
}

/* The run's counts the summary carries under their own names (Y in
 * metrics.h's table). */
static void counts(const metrics_bucket *t, sim_summary *o)
{
#define X(f, reduce, in_summary, csv, json, label, compare)                    \
    METRICS_IF_##in_summary(o->f = t->f;)
    METRICS_BUCKET_FIELDS(X)
#undef X
}

uint64_t summary_count(const sim_summary *s, int id)
{
    switch (id) {
#define X(f, reduce, in_summary, csv, json, label, compare)                    \
    METRICS_IF_##in_summary(case MF_##f : return s->f;)
        METRICS_BUCKET_FIELDS(X)
#undef X
    default:
        return 0;
    }
}

/* The summary's quantiles of a latency histogram. */
#define OWN_LEVELS 3
static const double own_q[OWN_LEVELS] = {0.50, 0.99, 0.999};

/* Levels a caller adds to the successes' latency pass (summary_compute_cdf);
 * more than fit take a pass of their own. */
#define EXTRA_LEVELS_MAX 64

typedef struct extra_levels {
    const double *q; /* ascending */
    size_t n;
    double *ns; /* out: bin midpoints, ns */
} extra_levels;

/* Mean and quantiles of n samples: their sum and a TOTAL_HIST_BITS
 * histogram of them; the extra levels' values too, from the same pass
 * over the bins (a level's value is the first bin whose cumulative count
 * reaches its rank, whatever the other levels are, so merging the two
 * ascending lists changes no value).  A comparison reads its latency CDF
 * this way: a second scan of the 2 368 bins was a fifth of what it added
 * to a short run (bench/README.md). */
static void quantiles(const uint32_t *hist, uint64_t n, int64_t sum_ns,
                      double *mean, double *p50, double *p99, double *p999,
                      const extra_levels *x)
{
    double q[OWN_LEVELS + EXTRA_LEVELS_MAX], v[OWN_LEVELS + EXTRA_LEVELS_MAX];
    size_t own_at[OWN_LEVELS] = {0}, x_at[EXTRA_LEVELS_MAX] = {0};
    size_t nx = x->n <= EXTRA_LEVELS_MAX ? x->n : 0, i = 0, j = 0, k = 0;
    if (x->n > EXTRA_LEVELS_MAX)
        hist_quantiles(TOTAL_HIST_BITS, hist, 0, TOTAL_HIST_BINS - 1, n, x->q,
                       x->n, x->ns);
    while (i < OWN_LEVELS || j < nx) {
        if (j == nx || (i < OWN_LEVELS && own_q[i] <= x->q[j])) {
            own_at[i] = k;
            q[k++] = own_q[i++];
        } else {
            x_at[j] = k;
            q[k++] = x->q[j++];
        }
    }
    hist_quantiles(TOTAL_HIST_BITS, hist, 0, TOTAL_HIST_BINS - 1, n, q, k, v);
    for (j = 0; j < nx; j++)
        x->ns[j] = v[x_at[j]];
    if (n == 0)
        return;
    *mean = (double)sum_ns / (double)n / 1e6;
    *p50 = v[own_at[0]] / 1e6;
    *p99 = v[own_at[1]] / 1e6;
    *p999 = v[own_at[2]] / 1e6;
}

static void latency(const metrics *m, sim_summary *o, const extra_levels *x)
{
    static const extra_levels none = {own_q, 0, NULL};
    const metrics_totals *t = &m->total;
    quantiles(t->latency, t->sum.successes, t->sum.latency_sum_ns,
              &o->latency_mean_ms, &o->latency_p50_ms, &o->latency_p99_ms,
              &o->latency_p999_ms, x);
    o->attempts_ended = t->sum.attempts_ended;
    quantiles(t->attempt_latency, t->sum.attempts_ended,
              t->sum.attempt_latency_sum_ns, &o->attempt_mean_ms,
              &o->attempt_p50_ms, &o->attempt_p99_ms, &o->attempt_p999_ms,
              &none);
}

static void server(const sim *s, const metrics *m, sim_summary *o)
{
    const sim_config *c = sim_config_of(s);
    const metrics_totals *t = &m->total;
    double dur = (double)c->duration_ns;
    o->mean_busy_workers = t->sum.busy_ns / dur;
    o->utilization = c->server.workers == SIM_UNLIMITED
                         ? 0.0
                         : o->mean_busy_workers / c->server.workers;
    o->mean_queue_len = t->sum.queue_ns / dur;
    o->max_queue = t->max_queue;
    o->mean_queue_wait_ms = t->sum.served ? (double)t->sum.queue_wait_ns /
                                                (double)t->sum.served / 1e6
                                          : 0.0;
    o->wasted_work_s = (double)t->sum.wasted_ns / 1e9;
    o->wasted_work_share = t->sum.service_ns > 0 ? (double)t->sum.wasted_ns /
                                                       (double)t->sum.service_ns
                                                 : 0.0;
}

void summary_compute(const sim *s, sim_summary *o)
{
    summary_compute_cdf(s, o, NULL, 0, NULL);
}

void summary_compute_cdf(const sim *s, sim_summary *o, const double *q,
                         size_t nq, double *ns)
{
    extra_levels x = {nq ? q : own_q, nq, ns};
    const metrics *m = sim_metrics(s);
    const sim_config *c = sim_config_of(s);
    size_t n = m->n_buckets;
    memset(o, 0, sizeof *o);
    o->duration_s = (double)c->duration_ns / 1e9;
    o->bucket_s = (double)m->bucket_ns / 1e9;
    counts(&m->total.sum, o);
    o->has_pipeline = sim_pipeline_summary_of(s, &o->pipeline);
    o->in_flight = m->total.in_flight_end;
    o->amplification =
        o->offered ? (double)o->attempts / (double)o->offered : 0.0;
    uint64_t finished = o->successes + o->failures;
    o->success_ratio_finished =
        finished ? (double)o->successes / (double)finished : 0.0;
    o->success_ratio =
        o->offered ? (double)o->successes / (double)o->offered : 0.0;
    peak(m, n, o);
    o->has_fault = sim_first_fault_start(s) >= 0;
    if (o->has_fault) {
        o->first_fault_start_s = (double)sim_first_fault_start(s) / 1e9;
        o->last_fault_end_s = (double)sim_last_fault_end(s) / 1e9;
    }
    baseline(s, m, n, o);
    recovery(s, m, n, o);
    latency(m, o, &x);
    server(s, m, o);
    /* Complete when every request ended -- or, with a pipeline, every
     * job: there the requests are the steps' calls, as many as the jobs'
     * runs make, never the clients' count. */
    bool all_ended = o->has_pipeline
                         ? o->pipeline.unfinished == 0 &&
                               o->pipeline.jobs == c->clients.count
                         : o->in_flight == 0 && o->offered == c->clients.count;
    if (c->clients.arrival == ARRIVAL_ONCE && all_ended) {
        o->has_completion = true;
        o->completion_time_s = (double)sim_last_finish(s) / 1e9;
    }
    sim_stats st;
    sim_get_stats(s, &st);
    o->events = st.events;
    o->processes = sim_processes(s);
    sim_phase_figures(s, o->phase);
}
