/*
 * series.h -- the time series a front end draws, kept as a run goes.
 *
 * One row per closed metrics bucket, in the units the panels show
 * (requests per second, milliseconds, counts), derived once when the
 * bucket closes so drawing a frame only reads doubles.  Rows are kept for
 * the whole run: the panels show a scrolling window of the latest, the
 * timeline all of them.  Past SERIES_MAX_ROWS the series halves its
 * resolution (neighbouring rows are merged pairwise), so memory stays
 * bounded however long the window stays open; each column merges as
 * its line in sim/metrics.h's METRICS_LINES says (a mean, or the later
 * value).
 *
 * A series is a value type with an allocated array; series_fini frees it.
 * Columns are exposed as strided arrays so chart_panel_series can draw a
 * column without copying.
 */
#ifndef SB_SERIES_H
#define SB_SERIES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "metrics.h"

#define SERIES_MAX_ROWS ((size_t)1 << 18)

/* The columns, in units a user reads: one per line of sim/metrics.h's
 * METRICS_LINES, COL_name, in its order (COL_t: the row's end, s). */
#define SERIES_COL(name, key, label, unit, form, merge, has, csv, value)       \
    COL_##name,
typedef enum series_col { METRICS_LINES(SERIES_COL) COL_COUNT } series_col;
#undef SERIES_COL

typedef struct series {
    double *rows; /* n x COL_COUNT */
    size_t n, cap;
    double width_s;           /* of one row (doubles when rows merge) */
    double service_s;         /* mean service time, for the capacity line */
    double so_far[COL_COUNT]; /* the SO_FAR columns' running totals */
} series;

void series_init(series *s, double service_mean_s);
void series_fini(series *s);
/* Forget every row (a restart). */
void series_clear(series *s);

/* Append the closed bucket b.  -1 when out of memory (the row is lost,
 * the series stays valid). */
int series_add(series *s, const metrics_bucket *b);

/* Column c of row i. */
static inline double series_at(const series *s, size_t i, series_col c)
{
    return s->rows[i * COL_COUNT + c];
}

/* A pointer to column c, for drawing: element i is at [i * COL_COUNT]. */
static inline const double *series_col_ptr(const series *s, series_col c)
{
    return s->rows + c;
}

/* The rows whose end lies in [t0, t1]: [*from, *to). */
void series_range(const series *s, double t0, double t1, size_t *from,
                  size_t *to);

/* The largest finite value of column c over rows [from, to); 0 when none. */
double series_max(const series *s, series_col c, size_t from, size_t to);

/* The row whose span holds time t (seconds), or -1. */
long series_find(const series *s, double t);

/* The rows of run 0 whose end lies in [t0, t1], as CSV: a header, then
 * a line per row: its start and end (s), then every column of each run
 * at that time ("A_" and "B_" before the names when there are two runs;
 * an empty cell where a value is not known).  Returns the rows written,
 * or -1 when the file could not be written. */
int series_write_csv(FILE *f, const series *const *runs, int n_runs, double t0,
                     double t1);

#endif
