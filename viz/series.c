/*
 * series.c -- rows derived from closed buckets (series.h).
 */
#include "series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void series_init(series *s, double service_mean_s)
{
    memset(s, 0, sizeof *s);
    s->service_s = service_mean_s;
}

void series_fini(series *s)
{
    free(s->rows);
    memset(s, 0, sizeof *s);
}

void series_clear(series *s)
{
    double service = s->service_s;
    double *rows = s->rows;
    size_t cap = s->cap;
    memset(s, 0, sizeof *s);
    s->rows = rows;
    s->cap = cap;
    s->service_s = service;
}

/* How each column merges when two rows become one. */
enum merge { MEAN, SUM, LAST };
static const enum merge merges[COL_COUNT] = {
    [COL_T] = LAST,
    [COL_OFFERED] = MEAN,
    [COL_ATTEMPTS] = MEAN,
    [COL_CAPACITY] = MEAN,
    [COL_GOODPUT] = MEAN,
    [COL_SUCCESS] = MEAN,
    [COL_QUEUE] = MEAN,
    [COL_QUEUE_WAIT_MS] = MEAN,
    [COL_P50_MS] = MEAN,
    [COL_P99_MS] = MEAN,
    [COL_DUPLICATES] = LAST,
    [COL_QUARANTINED] = LAST,
    [COL_BREAKERS] = LAST,
    [COL_REFUSED] = MEAN,
    [COL_LEVEL] = MEAN,
    [COL_BUSY] = MEAN,
    [COL_WORKERS] = LAST,
    [COL_WASTED] = MEAN,
    [COL_DEAD_LETTERS] = LAST,
    [COL_ALERTS_WARNING] = LAST,
    [COL_ALERTS_CRITICAL] = LAST,
};

/* Merge neighbouring rows pairwise: half as many rows of twice the
 * width.  A mean of two halves is the mean over the whole width; a NaN
 * half (no sample) leaves the other. */
static void halve(series *s)
{
    size_t n = s->n / 2;
    for (size_t i = 0; i < n; i++) {
        double *a = &s->rows[2 * i * COL_COUNT];
        double *b = a + COL_COUNT;
        double *o = &s->rows[i * COL_COUNT];
        for (int c = 0; c < COL_COUNT; c++) {
            double x = a[c], y = b[c];
            switch (merges[c]) {
            case MEAN:
                o[c] = isnan(x) ? y : isnan(y) ? x : (x + y) / 2.0;
                break;
            case SUM:
                o[c] = x + y;
                break;
            case LAST:
                o[c] = y;
                break;
            }
        }
    }
    if (s->n % 2) { /* the odd last row stays as it is */
        memmove(&s->rows[n * COL_COUNT], &s->rows[(s->n - 1) * COL_COUNT],
                COL_COUNT * sizeof(double));
        n++;
    }
    s->n = n;
    s->width_s *= 2.0;
}

static int make_room(series *s)
{
    if (s->n == SERIES_MAX_ROWS)
        halve(s);
    if (s->n < s->cap)
        return 0;
    size_t cap = s->cap ? s->cap * 2 : 1024;
    double *r = realloc(s->rows, cap * COL_COUNT * sizeof *r);
    if (r == NULL)
        return -1;
    s->rows = r;
    s->cap = cap;
    return 0;
}

static double per_s(uint64_t n, double width_s)
{
    return (double)n / width_s;
}

static double pct_or_nan(double num, double den)
{
    return den > 0 ? 100.0 * num / den : NAN;
}

int series_add(series *s, const metrics_bucket *b)
{
    if (make_room(s) != 0)
        return -1;
    double w = (double)b->width_ns / 1e9;
    double wn = (double)b->width_ns;
    if (s->n == 0)
        s->width_s = w;
    double *r = &s->rows[s->n * COL_COUNT];
    s->dup_total += (double)b->duplicates;
    s->quarantined_total += (double)b->quarantined;
    s->dead_total += (double)(b->quarantined + b->items_quarantined);
    s->warning_total += (double)b->alerts_warning;
    s->critical_total += (double)b->alerts_critical;
    r[COL_T] = (double)(b->start_ns + b->width_ns) / 1e9;
    r[COL_OFFERED] = per_s(b->offered, w);
    r[COL_ATTEMPTS] = per_s(b->attempts, w);
    r[COL_CAPACITY] = b->capacity == UINT32_MAX || s->service_s <= 0
                          ? NAN
                          : (double)b->capacity / s->service_s;
    r[COL_GOODPUT] = per_s(b->successes, w);
    r[COL_SUCCESS] =
        pct_or_nan((double)b->successes, (double)(b->successes + b->failures));
    r[COL_QUEUE] = b->queue_ns / wn;
    r[COL_QUEUE_WAIT_MS] =
        b->served ? (double)b->queue_wait_ns / (double)b->served / 1e6 : NAN;
    r[COL_P50_MS] =
        b->p50_bin == METRICS_NO_BIN ? NAN : metrics_bin_ms(b->p50_bin);
    r[COL_P99_MS] =
        b->p99_bin == METRICS_NO_BIN ? NAN : metrics_bin_ms(b->p99_bin);
    r[COL_DUPLICATES] = s->dup_total;
    r[COL_QUARANTINED] = s->quarantined_total;
    r[COL_BREAKERS] = (double)b->open_breakers;
    r[COL_REFUSED] = per_s(b->refusals, w);
    r[COL_LEVEL] = b->policy_level < 0 ? NAN : 100.0 * b->policy_level;
    r[COL_BUSY] = b->busy_ns / wn;
    r[COL_WORKERS] = b->capacity == UINT32_MAX ? NAN : (double)b->capacity;
    r[COL_WASTED] = pct_or_nan((double)b->wasted_ns, (double)b->service_ns);
    r[COL_DEAD_LETTERS] = s->dead_total;
    r[COL_ALERTS_WARNING] = s->warning_total;
    r[COL_ALERTS_CRITICAL] = s->critical_total;
    s->n++;
    return 0;
}

void series_range(const series *s, double t0, double t1, size_t *from,
                  size_t *to)
{
    /* Rows are in time order: bisect for the first end >= t0 and the
     * first end > t1. */
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (series_at(s, mid, COL_T) < t0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *from = lo;
    hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (series_at(s, mid, COL_T) <= t1)
            lo = mid + 1;
        else
            hi = mid;
    }
    *to = lo;
}

double series_max(const series *s, series_col c, size_t from, size_t to)
{
    double m = 0.0;
    for (size_t i = from; i < to && i < s->n; i++) {
        double v = series_at(s, i, c);
        if (isfinite(v) && v > m)
            m = v;
    }
    return m;
}

long series_find(const series *s, double t)
{
    size_t from, to;
    series_range(s, t, INFINITY, &from, &to);
    if (from >= s->n)
        return -1;
    double end = series_at(s, from, COL_T);
    return end - s->width_s <= t ? (long)from : -1;
}

/* The columns' names in a CSV, with their units. */
static const char *const csv_names[COL_COUNT] = {
    [COL_T] = "t_end_s",
    [COL_OFFERED] = "offered_per_s",
    [COL_ATTEMPTS] = "attempts_per_s",
    [COL_CAPACITY] = "capacity_per_s",
    [COL_GOODPUT] = "goodput_per_s",
    [COL_SUCCESS] = "success_pct",
    [COL_QUEUE] = "queue_mean",
    [COL_QUEUE_WAIT_MS] = "queue_wait_ms",
    [COL_P50_MS] = "latency_p50_ms",
    [COL_P99_MS] = "latency_p99_ms",
    [COL_DUPLICATES] = "duplicates_so_far",
    [COL_QUARANTINED] = "quarantined_so_far",
    [COL_BREAKERS] = "open_breakers",
    [COL_REFUSED] = "refused_locally_per_s",
    [COL_LEVEL] = "retry_allowance_pct",
    [COL_BUSY] = "busy_workers_mean",
    [COL_WORKERS] = "workers",
    [COL_WASTED] = "wasted_work_pct",
    [COL_DEAD_LETTERS] = "dead_letters_so_far",
    [COL_ALERTS_WARNING] = "alerts_warning_so_far",
    [COL_ALERTS_CRITICAL] = "alerts_critical_so_far",
};

int series_write_csv(FILE *f, const series *const *runs, int n_runs, double t0,
                     double t1)
{
    fprintf(f, "t_start_s,t_end_s");
    for (int r = 0; r < n_runs; r++)
        for (int c = COL_T + 1; c < COL_COUNT; c++)
            fprintf(f, ",%s%s", n_runs > 1 ? (r ? "B_" : "A_") : "",
                    csv_names[c]);
    fputc('\n', f);
    const series *a = runs[0];
    size_t from, to;
    series_range(a, t0, t1, &from, &to);
    for (size_t i = from; i < to; i++) {
        double end = series_at(a, i, COL_T);
        /* Ten digits: more than any value here means, and no 0.1400000001
         * in a spreadsheet. */
        fprintf(f, "%.10g,%.10g", end - a->width_s, end);
        for (int r = 0; r < n_runs; r++) {
            long row = r == 0 ? (long)i : series_find(runs[r], end - 1e-9);
            for (int c = COL_T + 1; c < COL_COUNT; c++) {
                double v = row < 0
                               ? NAN
                               : series_at(runs[r], (size_t)row, (series_col)c);
                if (isfinite(v))
                    fprintf(f, ",%.10g", v);
                else
                    fputc(',', f);
            }
        }
        fputc('\n', f);
    }
    return ferror(f) ? -1 : (int)(to - from);
}
