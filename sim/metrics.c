#include "metrics.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(metrics_bucket) == 376,
               "metrics.h documents 376 bytes per kept row");

/* The first allocation of rows; the array doubles from there. */
#define FIRST_ROWS 256

static void hist_reset(metrics_hist *h)
{
    h->lat_lo = h->att_lo = BUCKET_HIST_BINS;
    h->lat_hi = h->att_hi = 0;
}

/* Zero counts[lo..hi]: O(span), not O(bins). */
static void span_clear(uint32_t *counts, size_t lo, size_t hi)
{
    if (lo <= hi)
        memset(&counts[lo], 0, (hi - lo + 1) * sizeof *counts);
}

static void hist_clear(metrics_hist *h)
{
    span_clear(h->latency, h->lat_lo, h->lat_hi);
    span_clear(h->attempt, h->att_lo, h->att_hi);
    hist_reset(h);
}

/* to[lo..hi] += from[lo..hi], and to's span widened to it. */
static void span_add(uint32_t *to, uint16_t *to_lo, uint16_t *to_hi,
                     const uint32_t *from, size_t lo, size_t hi)
{
    if (lo > hi)
        return;
    for (size_t i = lo; i <= hi; i++)
        to[i] += from[i];
    metrics_span_touch(to_lo, to_hi, lo);
    metrics_span_touch(to_lo, to_hi, hi);
}

static void hist_add(metrics_hist *to, const metrics_hist *from)
{
    span_add(to->latency, &to->lat_lo, &to->lat_hi, from->latency, from->lat_lo,
             from->lat_hi);
    span_add(to->attempt, &to->att_lo, &to->att_hi, from->attempt, from->att_lo,
             from->att_hi);
}

/* The bins of the p50 and p99 of `total` samples in counts[lo..hi], by
 * nearest rank exactly as hist_quantile() finds them (the smallest bin
 * whose cumulative count reaches ceil(q x total)), in one pass. */
static void quantile_bins(const uint32_t *counts, size_t lo, size_t hi,
                          uint64_t total, uint16_t *p50, uint16_t *p99)
{
    *p50 = *p99 = METRICS_NO_BIN;
    if (total == 0)
        return;
    const double q[2] = {0.50, 0.99};
    uint16_t *out[2] = {p50, p99};
    uint64_t rank[2];
    for (int k = 0; k < 2; k++) {
        rank[k] = (uint64_t)ceil(q[k] * (double)total);
        if (rank[k] < 1)
            rank[k] = 1;
    }
    uint64_t seen = 0;
    int k = 0;
    for (size_t i = lo; i <= hi && k < 2; i++) {
        seen += counts[i];
        while (k < 2 && seen >= rank[k])
            *out[k++] = (uint16_t)i;
    }
    while (k < 2) /* fewer samples than total: cannot happen */
        *out[k++] = (uint16_t)hi;
}

static void bucket_quantiles(metrics_bucket *b, const metrics_hist *h)
{
    quantile_bins(h->latency, h->lat_lo, h->lat_hi, b->successes, &b->p50_bin,
                  &b->p99_bin);
    quantile_bins(h->attempt, h->att_lo, h->att_hi, b->attempts_ended,
                  &b->attempt_p50_bin, &b->attempt_p99_bin);
}

/* ---- Rows ------------------------------------------------------------- */

static int grow(metrics *m)
{
    size_t cap = m->cap * 2;
    if (m->cap < m->want && cap > m->want)
        cap = m->want; /* the duration's rows: no more, unless run past */
    metrics_bucket *b = realloc(m->buckets, cap * sizeof *b);
    if (b == NULL)
        return -1;
    memset(b + m->cap, 0, (cap - m->cap) * sizeof *b);
    m->buckets = b;
    m->cap = cap;
    return 0;
}

/* Start a kept row at the live bucket's start. */
static int open_row(metrics *m)
{
    if (m->n_buckets == m->cap && grow(m) != 0)
        return -1;
    metrics_bucket *r = &m->buckets[m->n_buckets++];
    r->start_ns = m->cur_start;
    r->width_ns = m->bucket_ns;
    m->in_row = 0;
    return 0;
}

/* How a kept row of merged buckets combines each field (metrics.h), and
 * the run's total: its counts in total.sum, its peaks beside it (a
 * level at the end is not added up). */
#define ROW_SUM(r, b, f) ((r)->f += (b)->f)
#define ROW_MAX(r, b, f) ((r)->f = (b)->f > (r)->f ? (b)->f : (r)->f)
#define ROW_LAST(r, b, f) ((r)->f = (b)->f)
#define TOTAL_SUM(m, b, f) ((m)->total.sum.f += (b)->f)
#define TOTAL_MAX(m, b, f)                                                     \
    ((m)->total.f = (b)->f > (m)->total.f ? (b)->f : (m)->total.f)
#define TOTAL_LAST(m, b, f) ((void)0)

/* The table names every field but the row's place and its bins. */
#define FIELD_SIZE(f, reduce, in_summary, csv, json, label, compare)           \
    +sizeof(((metrics_bucket *)0)->f)
_Static_assert(0 METRICS_BUCKET_FIELDS(FIELD_SIZE) + 2 * sizeof(int64_t) +
                       4 * sizeof(uint16_t) ==
                   sizeof(metrics_bucket),
               "a field of metrics_bucket is missing in "
               "METRICS_BUCKET_FIELDS (metrics.h)");
#undef FIELD_SIZE

/* The table (metrics.h) as data. */
#define CMP_NO 0
#define CMP_LOW (-1)
#define CMP_HIGH (+1)
#define TYPE_OF(f)                                                             \
    _Generic(((metrics_bucket *)0)->f, uint64_t                                \
             : MT_U64, int64_t                                                 \
             : MT_I64, uint32_t                                                \
             : MT_U32, double                                                  \
             : MT_DOUBLE)
#define IN_SUMMARY_Y true
#define IN_SUMMARY_N false
#define X(f, reduce, in_summary, csv, json, label, compare)                    \
    [MF_##f] = {#f,                                                            \
                csv,                                                           \
                json,                                                          \
                label,                                                         \
                CMP_##compare,                                                 \
                IN_SUMMARY_##in_summary,                                       \
                TYPE_OF(f),                                                    \
                offsetof(metrics_bucket, f)},
const metrics_field metrics_fields[MF_COUNT] = {METRICS_BUCKET_FIELDS(X)};
#undef X

uint64_t metrics_field_u64(const metrics_bucket *b, int id)
{
    const metrics_field *f = &metrics_fields[id];
    const char *p = (const char *)b + f->offset;
    switch (f->type) {
    case MT_U64:
        return *(const uint64_t *)(const void *)p;
    case MT_I64:
        return (uint64_t) * (const int64_t *)(const void *)p;
    case MT_U32:
        return *(const uint32_t *)(const void *)p;
    default:
        return (uint64_t) * (const double *)(const void *)p;
    }
}

/* Add bucket b (and its histograms) to the open row.  With merge = 1 the
 * row is the bucket, copied as is. */
static void fold(metrics *m, const metrics_bucket *b)
{
    metrics_bucket *r = &m->buckets[m->n_buckets - 1];
    m->in_row++;
    if (m->merge == 1) {
        *r = *b;
        return;
    }
#define X(f, reduce, in_summary, csv, json, label, compare)                    \
    ROW_##reduce(r, b, f);
    METRICS_BUCKET_FIELDS(X)
#undef X
    hist_add(&m->row_hist, &m->live_hist);
}

/* The open row has its buckets: its quantiles, from its histograms, and
 * its width (a last row cut short by the end of the run is narrower). */
static void close_row(metrics *m)
{
    if (m->merge == 1)
        return; /* fold() copied the bucket's */
    metrics_bucket *r = &m->buckets[m->n_buckets - 1];
    r->width_ns = (int64_t)m->in_row * m->live_ns;
    bucket_quantiles(r, &m->row_hist);
    hist_clear(&m->row_hist);
}

/* The live bucket ends: stamp its end-of-bucket gauges and quantiles,
 * hand it to `closed`, fold it into the kept row. */
static void close_live(metrics *m, metrics_closed_fn closed, void *ctx)
{
    metrics_bucket *b = &m->live;
    b->open_breakers = m->open_breakers;
    b->policy_level = m->policy_level;
    b->capacity = m->capacity;
    bucket_quantiles(b, &m->live_hist);
    if (closed)
        closed(ctx, b, &m->live_hist);
    fold(m, b);
}

static void open_live(metrics *m, int64_t start)
{
    hist_clear(&m->live_hist);
    memset(&m->live, 0, sizeof m->live);
    m->live.start_ns = start;
    m->live.width_ns = m->live_ns;
    m->live.max_queue = m->queue;
    m->cur_start = start;
    m->cur_end = start + m->live_ns;
    m->att_ns = -1; /* its bin is not touched in the new histogram */
    /* The gauges' integrals start at 0 (metrics.h). */
    m->gauge_t = start;
    m->busy_acc = -((uint64_t)m->busy * (uint64_t)start);
    m->queue_acc = -((uint64_t)m->queue * (uint64_t)start);
    m->exact = m->busy <= m->exact_lim && m->queue <= m->exact_lim &&
               m->capacity <= m->exact_lim;
}

/* ---- Gauges (metrics.h) -------------------------------------------------- */

void metrics_gauge(metrics *m, int64_t t)
{
    int64_t dt = t - m->gauge_t;
    if (dt > 0) {
        m->cur->busy_ns += (double)m->busy * (double)dt;
        m->cur->queue_ns += (double)m->queue * (double)dt;
        m->gauge_t = t;
    }
}

/* The exact integrals up to t, as value x t + accumulator: each below
 * 2^53 (exact_lim), so the conversion is exact. */
static void gauges_exact_to(metrics *m, int64_t t)
{
    uint64_t busy = (uint64_t)m->busy * (uint64_t)t + m->busy_acc;
    uint64_t queue = (uint64_t)m->queue * (uint64_t)t + m->queue_acc;
    assert(busy <= (UINT64_C(1) << 53) && queue <= (UINT64_C(1) << 53));
    m->cur->busy_ns = (double)busy;
    m->cur->queue_ns = (double)queue;
}

/* The doubles' sums up to t are the exact integrals so far; the spans
 * still open at t are split there, which gives the same sums: their
 * products are exact (busy and queue are still within exact_lim), and
 * one rounded sum of the same exact value is the same double. */
void metrics_gauge_inexact(metrics *m, int64_t t)
{
    if (!m->exact)
        return;
    gauges_exact_to(m, t);
    m->gauge_t = t;
    m->exact = false;
}

void metrics_set_busy(metrics *m, int64_t t, uint32_t busy)
{
    if (m->exact)
        m->busy_acc += ((uint64_t)m->busy - busy) * (uint64_t)t;
    else
        metrics_gauge(m, t);
    m->busy = busy;
    if (busy > m->exact_lim)
        metrics_gauge_inexact(m, t);
}

/* Busy workers never pass the most workers the server had: a start
 * needs busy < workers. */
void metrics_set_capacity(metrics *m, int64_t t, uint32_t workers)
{
    if (workers > m->exact_lim)
        metrics_gauge_inexact(m, t);
    m->capacity = workers;
}

/* Integrate the gauges to t, the live bucket's end (or the run's). */
static void gauges_close(metrics *m, int64_t t)
{
    if (m->exact)
        gauges_exact_to(m, t);
    else
        metrics_gauge(m, t);
}

/* ---- The interface ---------------------------------------------------- */

/* Rows of width w that cover d: ceil(d / w), without overflowing. */
static uint64_t rows_for(int64_t d, int64_t w)
{
    return (uint64_t)(d / w + (d % w != 0));
}

uint64_t metrics_plan(int64_t bucket_ns, int64_t duration_ns, size_t max_rows,
                      uint32_t *merge)
{
    uint32_t k = 1;
    uint64_t n = rows_for(duration_ns, bucket_ns);
    while (n > max_rows && bucket_ns <= INT64_MAX / 2 / k &&
           bucket_ns * k < duration_ns) {
        k *= 2;
        n = rows_for(duration_ns, bucket_ns * k);
    }
    if (merge)
        *merge = k;
    return n;
}

/* metrics_init's work once the rows are there: rows[0, cap) zeroed
 * (rows, NULL when there are none yet, and cap are kept by a reset). */
static int setup(metrics *m, int64_t bucket_ns, int64_t duration_ns,
                 size_t max_rows, metrics_bucket *rows, size_t cap)
{
    memset(m, 0, sizeof *m);
    m->live_ns = bucket_ns;
    uint64_t n = metrics_plan(bucket_ns, duration_ns, max_rows, &m->merge);
    m->bucket_ns = bucket_ns * m->merge;
    m->want = (size_t)n + 1;
    if (rows == NULL) {
        cap = m->want < FIRST_ROWS ? m->want : FIRST_ROWS;
        rows = calloc(cap, sizeof *rows);
        if (rows == NULL)
            return -1;
    }
    m->buckets = rows;
    m->cap = cap;
    m->policy_level = -1.0;
    m->exact_lim = (UINT64_C(1) << 53) / (uint64_t)bucket_ns;
    hist_reset(&m->live_hist);
    hist_reset(&m->row_hist);
    open_live(m, 0);
    return open_row(m);
}

int metrics_init(metrics *m, int64_t bucket_ns, int64_t duration_ns,
                 size_t max_rows)
{
    return setup(m, bucket_ns, duration_ns, max_rows, NULL, 0);
}

/* Only the rows a run opened were written (open_row hands them out in
 * order, and nothing writes past n_buckets), so only they need zeroing:
 * every row up to cap is then zero, as metrics_init and grow leave it.
 * A larger cap than a new table's changes when grow runs, not what a row
 * holds. */
int metrics_reset(metrics *m, int64_t bucket_ns, int64_t duration_ns,
                  size_t max_rows)
{
    memset(m->buckets, 0, m->n_buckets * sizeof *m->buckets);
    return setup(m, bucket_ns, duration_ns, max_rows, m->buckets, m->cap);
}

void metrics_fini(metrics *m)
{
    free(m->buckets);
    m->buckets = NULL;
}

/* Every row up to cap is copied: grow() zeroes the rows it adds, and the
 * rows past n_buckets are opened by writing only some of their fields. */
int metrics_clone(metrics *m, const metrics *src)
{
    *m = *src;
    m->buckets = malloc(src->cap * sizeof *m->buckets);
    if (m->buckets == NULL)
        return -1;
    memcpy(m->buckets, src->buckets, src->cap * sizeof *m->buckets);
    return 0;
}

int metrics_roll(metrics *m, int64_t t, metrics_closed_fn closed, void *ctx)
{
    while (t >= m->cur_end) {
        gauges_close(m, m->cur_end);
        close_live(m, closed, ctx);
        open_live(m, m->cur_end);
        if (m->in_row == m->merge) {
            close_row(m);
            if (open_row(m) != 0)
                return -1;
        }
    }
    return 0;
}

static void sum_rows(metrics *m)
{
    metrics_bucket *s = &m->total.sum;
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < m->n_buckets; i++) {
        const metrics_bucket *b = &m->buckets[i];
#define X(f, reduce, in_summary, csv, json, label, compare)                    \
    TOTAL_##reduce(m, b, f);
        METRICS_BUCKET_FIELDS(X)
#undef X
    }
}

void metrics_finish(metrics *m, int64_t t, uint64_t in_flight,
                    metrics_closed_fn closed, void *ctx)
{
    gauges_close(m, t);
    close_live(m, closed, ctx);
    close_row(m);
    sum_rows(m);
    m->total.in_flight_end = in_flight;
}

double metrics_bin_ms(uint16_t bin)
{
    if (bin == METRICS_NO_BIN)
        return 0.0;
    return hist_bin_mid(BUCKET_HIST_BITS, bin) / 1e6;
}

size_t metrics_bytes(const metrics *m)
{
    return sizeof *m + m->cap * sizeof *m->buckets;
}

#define METRICS_BLANK_Y true
#define METRICS_BLANK_N false
#define DERIVED_INFO(name, unit, csv, decimals, blank, label, value)           \
    {#name, unit, csv, label, decimals, METRICS_BLANK_##blank},
const metrics_derived_info metrics_derived_fields[MD_COUNT] = {
    METRICS_DERIVED(DERIVED_INFO)};
#undef DERIVED_INFO

double metrics_derived(const metrics_bucket *b, int id)
{
    switch (id) {
#define DERIVED_VALUE(name, unit, csv, decimals, blank, label, value)          \
    case MD_##name:                                                            \
        return value;
        METRICS_DERIVED(DERIVED_VALUE)
#undef DERIVED_VALUE
    default:
        return NAN;
    }
}

const metrics_line_info metrics_lines[ML_COUNT] = {
#define LINE_INFO(name, key, label, unit, form, merge, has, csv, value)        \
    {key, label, csv, MLU_##unit, MLF_##form, MLM_##merge},
    METRICS_LINES(LINE_INFO)
#undef LINE_INFO
};

double metrics_line(const metrics_bucket *b, int id, double service_s)
{
    (void)service_s; /* read by the table's expressions that need it */
    switch (id) {
#define LINE_CASE(name, key, label, unit, form, merge, has, csv, value)        \
    case ML_##name:                                                            \
        return (has) ? (value) : (double)NAN;
        METRICS_LINES(LINE_CASE)
#undef LINE_CASE
    default:
        return (double)NAN;
    }
}

/* lo..hi covers every nonzero bin of counts (lo > hi: none is), and the
 * bins at both ends have counts. */
static bool span_sane(const uint32_t *counts, size_t lo, size_t hi)
{
    if (lo <= hi && (hi >= BUCKET_HIST_BINS || !counts[lo] || !counts[hi]))
        return false;
    for (size_t i = 0; i < BUCKET_HIST_BINS; i++)
        if (counts[i] && (lo > hi || i < lo || i > hi))
            return false;
    return true;
}

static bool hist_sane(const metrics_hist *h)
{
    return span_sane(h->latency, h->lat_lo, h->lat_hi) &&
           span_sane(h->attempt, h->att_lo, h->att_hi);
}

bool metrics_sane(const metrics *m)
{
    if (m->live_ns <= 0 || m->merge == 0 || (m->merge & (m->merge - 1)) ||
        m->bucket_ns != m->live_ns * (int64_t)m->merge)
        return false;
    if (m->buckets == NULL || m->n_buckets == 0 || m->n_buckets > m->cap ||
        m->in_row > m->merge)
        return false;
    const metrics_bucket *row = &m->buckets[m->n_buckets - 1];
    if (m->cur_end != m->cur_start + m->live_ns ||
        m->live.start_ns != m->cur_start || row->start_ns > m->cur_start)
        return false;
    if (m->exact && (m->busy > m->exact_lim || m->queue > m->exact_lim ||
                     m->capacity > m->exact_lim))
        return false;
    return hist_sane(&m->live_hist) && hist_sane(&m->row_hist);
}
