/*
 * measured.h -- distributions measured elsewhere, for a scenario to use
 * as a service time or a delay: latencies from a log (one per line, or a
 * column of a CSV file) and the buckets of a Prometheus text-format
 * histogram.  units.h's DIST_EMPIRICAL and DIST_HISTOGRAM point at one.
 *
 * A table is immutable once read, and lives for the rest of the process:
 * a sim_config is a plain value that compare's runs, the GUI's branches
 * and saved runs copy freely, so no copy could own it.  The same file
 * read with the same arguments is read once and shared, so two loads of
 * a scenario give equal configs byte for byte.  Not thread-safe: tables
 * are read by the scenario loader, before any run starts.
 *
 * Draws invert the distribution function with one uniform u in [0, 1):
 *   empirical  the sorted values v[0..n): v[floor(u n)] -- the values
 *              replayed, each with probability 1/n (a bootstrap), so the
 *              draws' mean is the file's mean;
 *   histogram  Prometheus' histogram_quantile(u): linear within the
 *              bucket the rank u x count falls in, the lowest bucket
 *              starting at 0, and the +Inf bucket answered with the
 *              highest finite bound (Prometheus docs, "Functions:
 *              histogram_quantile()").
 */
#ifndef SB_MEASURED_H
#define SB_MEASURED_H

#include <stdint.h>

#include "err.h"

typedef struct measured measured;

/* Latencies from path.  column: NULL or "" for one value a line; a
 * 1-based number (every line is data) or a header name (the first line
 * is the header) for a CSV column.  unit: what a bare number means ("s"
 * when NULL or ""); a value may also carry its own ("12ms").  Blank lines
 * and lines starting with '#' are skipped.  Errors name path:line.
 * Borrowed result, valid for the rest of the process. */
int measured_values(const char *path, const char *column, const char *unit,
                    const measured **out, sb_err *e);

/* The buckets of a histogram in Prometheus' text exposition format.
 * select: NULL or "" when the file has one histogram; else its name,
 * optionally with labels a series must have ('http_seconds{code="200"}').
 * The matching series are added bucket by bucket (sum by (le)).  unit:
 * the bounds' unit; NULL or "": from the name's suffix (_milliseconds,
 * _microseconds), else seconds, Prometheus' base unit. */
int measured_histogram(const char *path, const char *select, const char *unit,
                       const measured **out, sb_err *e);

/* The value at rank u in [0, 1), ns (see above). */
int64_t measured_at(const measured *t, double u);
/* The distribution's mean, ns: the values' mean; for a histogram each
 * bucket's midpoint by its count, the +Inf bucket at the highest bound. */
double measured_mean(const measured *t);
/* How a scenario writes it back: "empirical(/abs/path, col, unit)". */
const char *measured_spec(const measured *t);
/* How a report shows it: the file's name without its folder. */
const char *measured_shown(const measured *t);
/* Values (empirical) or finite buckets (histogram). */
uint32_t measured_count(const measured *t);

#endif
