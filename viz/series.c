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
            if (metrics_lines[c].merge == MLM_MEAN)
                o[c] = isnan(x) ? y : isnan(y) ? x : (x + y) / 2.0;
            else
                o[c] = y;
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

/* Each column as its line in METRICS_LINES forms it from the bucket. */
int series_add(series *s, const metrics_bucket *b)
{
    if (make_room(s) != 0)
        return -1;
    double w = (double)b->width_ns / 1e9;
    if (s->n == 0)
        s->width_s = w;
    double *r = &s->rows[s->n * COL_COUNT];
    for (int c = 0; c < COL_COUNT; c++) {
        double v = metrics_line(b, c, s->service_s);
        switch (metrics_lines[c].form) {
        case MLF_RATE:
            r[c] = v / w;
            break;
        case MLF_SO_FAR:
            r[c] = s->so_far[c] += v;
            break;
        case MLF_AS_IS:
            r[c] = v;
            break;
        }
    }
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
        if (series_at(s, mid, COL_t) < t0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *from = lo;
    hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (series_at(s, mid, COL_t) <= t1)
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
    double end = series_at(s, from, COL_t);
    return end - s->width_s <= t ? (long)from : -1;
}

int series_write_csv(FILE *f, const series *const *runs, int n_runs, double t0,
                     double t1)
{
    fprintf(f, "t_start_s,t_end_s");
    for (int r = 0; r < n_runs; r++)
        for (int c = COL_t + 1; c < COL_COUNT; c++)
            fprintf(f, ",%s%s", n_runs > 1 ? (r ? "B_" : "A_") : "",
                    metrics_lines[c].csv);
    fputc('\n', f);
    const series *a = runs[0];
    size_t from, to;
    series_range(a, t0, t1, &from, &to);
    for (size_t i = from; i < to; i++) {
        double end = series_at(a, i, COL_t);
        /* Ten digits: more than any value here means, and no 0.1400000001
         * in a spreadsheet. */
        fprintf(f, "%.10g,%.10g", end - a->width_s, end);
        for (int r = 0; r < n_runs; r++) {
            long row = r == 0 ? (long)i : series_find(runs[r], end - 1e-9);
            for (int c = COL_t + 1; c < COL_COUNT; c++) {
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
