/*
 * units.h -- parsing and printing the values users write: durations with
 * units, rates, probabilities, counts and service-time distributions.
 *
 * Every parser takes a NUL-terminated string (already trimmed), writes the
 * result through an out-parameter and returns 0, or returns -1 with a
 * message in e that says what was expected and quotes what was given
 * ("expected a duration with a unit (ns, us, ms, s, m, h), got '5'").  The
 * caller adds where it came from (file, line, section, key).
 */
#ifndef SB_UNITS_H
#define SB_UNITS_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "simtime.h"

#define NS_PER_US INT64_C(1000)
#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S INT64_C(1000000000)

/* A service-time or delay distribution.  Every duration in it lies in
 * [0, SIMTIME_END]. */
typedef enum dist_kind {
    DIST_CONST = 0,     /* always `mean_ns` */
    DIST_EXP = 1,       /* exponential with mean `mean_ns` */
    DIST_LOGNORMAL = 2, /* median `mean_ns`, shape `sigma` */
    DIST_NORMAL = 3,    /* normal(mean_ns, sd_ns) truncated at zero: the
                           conditional distribution given x > 0, so its
                           mean is above mean_ns when sd_ns is not small */
    DIST_UNIFORM = 4,   /* uniform on [lo_ns, hi_ns] */
    DIST_EMPIRICAL = 5, /* latencies from a file, replayed (`table`) */
    DIST_HISTOGRAM = 6  /* a Prometheus histogram's buckets (`table`) */
} dist_kind;

typedef struct dist {
    dist_kind kind;
    int64_t mean_ns; /* const, exp: the mean; lognormal: the median;
                        normal: the mean before truncation; uniform: the
                        midpoint (lo + hi) / 2, for whoever wants a typical
                        value */
    double sigma;    /* lognormal: the shape */
    int64_t sd_ns;   /* normal: the standard deviation before truncation */
    int64_t lo_ns;   /* uniform: A, the low end */
    int64_t hi_ns;   /* uniform: B, the high end */
    /* empirical, histogram: the file's table (measured.h), borrowed for
     * the process's life; mean_ns its mean, rounded */
    const struct measured *table;
} dist;

/* "250ms", "1.5s", "2m", "1h", "500us", "10ns"; non-negative and at most
 * SIMTIME_END (about 63 years): a longer one is refused, not saturated,
 * because the user's number would silently change. */
int units_duration(const char *s, int64_t *ns, sb_err *e);
/* "100/s", "6000/m", "2.5/min", "10/h" -> events per second; >= 0. */
int units_rate(const char *s, double *per_s, sb_err *e);
/* A real number in [0, 1], or a percentage from 0% to 100% ("50%"). */
int units_probability(const char *s, double *p, sb_err *e);
/* A finite real number. */
int units_real(const char *s, double *x, sb_err *e);
/* A share: a finite real number ("0.5") or a percentage ("50%", "50 %"),
 * returned as a fraction (0.5).  No range: the caller checks it and names
 * the range in its own message. */
int units_share(const char *s, double *x, sb_err *e);
/* A decimal integer (no sign other than '-', no trailing text). */
int units_int(const char *s, int64_t *v, sb_err *e);
/* A decimal whole number from 0 to UINT64_MAX, digits only (a seed):
 * "expected a whole number from 0 to 18446744073709551615, got '-1'". */
int units_u64(const char *s, uint64_t *v, sb_err *e);
/* true/false, yes/no, on/off, 1/0. */
int units_bool(const char *s, bool *b, sb_err *e);
/* "const(100ms)", "exp(100ms)", "lognormal(80ms, 0.5)",
 * "normal(100ms, 20ms)", "uniform(50ms, 150ms)", or a bare duration
 * (constant); "empirical(FILE[, COLUMN[, UNIT]])" and
 * "histogram(FILE[, NAME[, UNIT]])" read FILE (measured.h), relative to
 * the current folder. */
int units_dist(const char *s, dist *d, sb_err *e);
/* The same, a relative FILE taken as relative to dir ("" or "x/y/"). */
int units_dist_in(const char *s, const char *dir, dist *d, sb_err *e);

/* The distribution's mean, ns: the lognormal's median x e^(sigma^2/2);
 * the truncated normal's mu + sd x phi(a) / (1 - Phi(a)), a = -mu/sd
 * (Johnson, Kotz and Balakrishnan, Continuous Univariate Distributions
 * 1, 10.1); the uniform's midpoint. */
double units_dist_mean(const dist *d);

/* Print ns as the shortest exact "250ms" / "2s" / "1.5s"; returns buf. */
const char *units_fmt_duration(int64_t ns, char *buf, int len);
/* Print a distribution as a user would write it; returns buf. */
const char *units_fmt_dist(const dist *d, char *buf, int len);

#endif
