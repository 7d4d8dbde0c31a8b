/*
 * stats.h -- the statistics of a comparison across seeds: means with
 * confidence intervals, quantiles, and paired tests between two policies
 * run on the same seeds (common random numbers: run i of policy A and run
 * i of policy B saw the same arrivals, service times and faults, so their
 * difference is the policy's effect plus far less noise than two
 * independent samples would have).
 *
 * Distribution functions come from GSL (gsl_cdf_tdist_Pinv and the like);
 * what is computed here is only the arithmetic around them.  Every
 * function skips non-finite values (NaN: "no value in this run", such as
 * a recovery time when the run did not recover); n in the results counts
 * the values used.
 */
#ifndef SB_STATS_H
#define SB_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* A sample's mean and a two-sided confidence interval for it. */
typedef struct stats_ci {
    size_t n;          /* finite values used */
    double mean;       /* NaN when n = 0 */
    double sd;         /* sample standard deviation (n - 1); NaN when n < 2 */
    double half_width; /* t(1 - (1 - level) / 2, n - 1) x sd / sqrt(n); NaN
                          when n < 2; 0 when every value is the same */
    double lo, hi;     /* mean -+ half_width */
} stats_ci;

/* Mean of x[0..n) and its Student-t confidence interval at `level`
 * (0.95 for 95 %). */
void stats_mean_ci(const double *x, size_t n, double level, stats_ci *out);

/* The q-quantile (0 <= q <= 1) of x[0..n), finite values only, by linear
 * interpolation between order statistics (Hyndman and Fan's type 7, R's
 * default): h = (m - 1) q, x(floor h) + (h - floor h)(x(floor h + 1) -
 * x(floor h)) over the m sorted finite values.  x is not modified.  NaN
 * when m = 0. */
double stats_quantile(const double *x, size_t n, double q);

/* A paired comparison of a and b over the pairs (a[i], b[i]) where both
 * are finite. */
typedef struct stats_paired {
    size_t n;          /* pairs used */
    stats_ci diff;     /* of d = a - b: mean difference and its interval */
    double p_t;        /* two-sided p of the paired t test (H0: mean d = 0);
                        1 when every d is 0, 0 when every d is the same
                        non-zero value; NaN when n < 2 */
    double p_wilcoxon; /* two-sided p of the Wilcoxon signed-rank test,
                          as R's wilcox.test(paired = TRUE): zero
                          differences dropped, tied absolute differences
                          given their mean rank; exact for n <= 25 when
                          there were no ties and no zeros, else the normal
                          approximation with tie and continuity
                          corrections; NaN when no non-zero difference */
} stats_paired;

void stats_paired_test(const double *a, const double *b, size_t n, double level,
                       stats_paired *out);

/* Two-sided p of the exact sign test: of n_pos + n_neg pairs that differ,
 * n_pos went one way; under H0 each way has probability 1/2 (McNemar's
 * exact test when the pairs are yes/no outcomes, such as "recovered").
 * NaN when no pair differs. */
double stats_sign_test(size_t n_pos, size_t n_neg);

/* The p-quantile of Student's t with df degrees of freedom (GSL's
 * gsl_cdf_tdist_Pinv). */
double stats_t_quantile(double p, double df);

/* The Wilson score interval for a proportion: k successes of n trials,
 * two-sided at `level` (0.95 for 95 %).  Unlike p +- z sqrt(p(1-p)/n) it
 * stays inside [0, 1] and is not empty at k = 0 or k = n (Wilson 1927;
 * Brown, Cai and DasGupta 2001 recommend it for small n).  lo = hi = NaN
 * when n = 0. */
void stats_wilson(size_t k, size_t n, double level, double *lo, double *hi);

/* Two-sided p of Fisher's exact test on two proportions: k1 of n1
 * against k2 of n2 (the 2 x 2 table k1, n1 - k1 / k2, n2 - k2 with its
 * margins fixed).  The sum of the hypergeometric probabilities of every
 * table no more likely than the one seen (R's fisher.test; a relative
 * tolerance of 1e-7 counts ties as R does).  1 when a margin is 0. */
double stats_fisher_exact(size_t k1, size_t n1, size_t k2, size_t n2);

/* Which side of the share `at` k of n lies on, as its Wilson interval at
 * `level` says: -1 when the interval lies wholly below `at`, +1 wholly
 * above, 0 when it holds `at` (or n = 0).  The one rule behind
 * "stable / bistable / metastable" (at = 1/2: does a policy tip into a
 * storm more often than not?) in the comparison's tables and verdicts
 * and the report's maps alike. */
int stats_wilson_side(size_t k, size_t n, double level, double at);

/* The fewest trials n for which k successes of n lie wholly below `at`
 * (stats_wilson_side -1): how many seeds a cell needs before k of them
 * tipping can call it stable (by symmetry, k of them not tipping
 * metastable, at 1/2).  At 95 % and 1/2: 4 for k = 0 (0 of 4 has an
 * upper bound of 49 %), 8 for k = 1.  0 when at is not in (0, 1]. */
size_t stats_wilson_min_n(size_t k, double level, double at);

/* Holm's step-down adjustment of m p-values, in place (each becomes the
 * smallest family-wise level at which it would be rejected; NaN stays
 * NaN and does not count in m). */
void stats_holm(double *p, size_t m);

/* Did an allocation of a statistic fail in this thread since the last
 * call?  Its figure is then NaN or, for stats_holm, unadjusted: a caller
 * that prints results checks this and fails as out of memory instead of
 * printing them.  Clears the flag. */
bool stats_out_of_memory(void);

/* For tests: while `fail` is set and returns true, the scratch arrays
 * stats allocates are not allocated, as if malloc had returned NULL (so
 * a test can reach a caller's out-of-memory path); NULL restores
 * malloc.  Not thread-safe: set it only where no other thread runs the
 * statistics. */
void stats_fail_alloc(bool (*fail)(void));

#endif
