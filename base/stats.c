/*
 * stats.c -- the arithmetic around GSL's distribution functions: means,
 * intervals, quantiles, the paired t and Wilcoxon signed-rank tests, the
 * sign test and Holm's adjustment.  The conventions (which quantile type,
 * which corrections) are R's, so every figure can be checked there.
 */
#include "stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Set when an allocation failed in this thread: the figure that needed
 * it is NaN (or a p left unadjusted), which a caller must not print as a
 * result (stats_out_of_memory). */
static _Thread_local bool out_of_memory;

/* A test's hook (stats_fail_alloc): when set and true, a scratch
 * allocation fails as malloc would.  The out-of-memory paths of the
 * callers (Holm's adjustment in compare --risk) are otherwise reached
 * only by the failalloc build's sweep, which fails every allocation of a
 * whole run in turn; the hook lets a unit test fail the one it means. */
static bool (*fail_hook)(void);

void stats_fail_alloc(bool (*fail)(void))
{
    fail_hook = fail;
}

static void *scratch_malloc(size_t n)
{
    return fail_hook && fail_hook() ? NULL : malloc(n);
}

static void *scratch_calloc(size_t n, size_t size)
{
    return fail_hook && fail_hook() ? NULL : calloc(n, size);
}

bool stats_out_of_memory(void)
{
    bool was = out_of_memory;
    out_of_memory = false;
    return was;
}

/* Above this many non-zero differences the exact Wilcoxon distribution
 * is replaced by the normal approximation (R's limit is 50; 25 keeps the
 * exact counts of 2^n subsets well inside a double's 53 bits of integer
 * precision with room to spare, and the approximation is already within
 * 1e-3 of the exact p there). */
#define WILCOXON_EXACT_MAX 25

void stats_mean_ci(const double *x, size_t n, double level, stats_ci *out)
{
    size_t m = 0;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i])) {
            sum += x[i];
            m++;
        }
    out->n = m;
    out->mean = m ? sum / (double)m : NAN;
    out->sd = out->half_width = out->lo = out->hi = NAN;
    if (m < 2)
        return;
    /* Two passes: the sum of squared deviations from the mean, not the
     * difference of two large sums, which loses every digit when the
     * values are large and close together (a success ratio of 99.9 %). */
    double ss = 0.0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]))
            ss += (x[i] - out->mean) * (x[i] - out->mean);
    out->sd = sqrt(ss / (double)(m - 1));
    if (out->sd == 0.0) {
        out->half_width = 0.0;
    } else {
        double t =
            gsl_cdf_tdist_Pinv(1.0 - (1.0 - level) / 2.0, (double)(m - 1));
        out->half_width = t * out->sd / sqrt((double)m);
    }
    out->lo = out->mean - out->half_width;
    out->hi = out->mean + out->half_width;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The finite values of x, sorted, in a malloc'd array; *m of them.
 * NULL when there are none or memory ran out. */
static double *sorted_finite(const double *x, size_t n, size_t *m)
{
    *m = 0;
    double *v = scratch_malloc((n ? n : 1) * sizeof *v);
    if (v == NULL) {
        out_of_memory = true;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]))
            v[(*m)++] = x[i];
    qsort(v, *m, sizeof *v, cmp_double);
    return v;
}

double stats_quantile(const double *x, size_t n, double q)
{
    size_t m;
    double *v = sorted_finite(x, n, &m);
    double r = NAN;
    if (v && m > 0) {
        double h = (double)(m - 1) * q;
        size_t lo = (size_t)floor(h);
        if (lo >= m - 1)
            r = v[m - 1];
        else
            r = v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]);
    }
    free(v);
    return r;
}

/* ---- The Wilcoxon signed-rank test --------------------------------------- */

typedef struct ranked {
    double abs;
    bool positive;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    double x = ((const ranked *)a)->abs, y = ((const ranked *)b)->abs;
    return (x > y) - (x < y);
}

/* P(V <= v) for the signed-rank statistic of n untied differences under
 * H0: the number of subsets of {1..n} whose sum is at most v, over 2^n.
 * The counts come from the recursion that adds one rank at a time:
 * c_k(s) = c_{k-1}(s) + c_{k-1}(s - k). */
static double wilcoxon_exact_cdf(size_t n, double v)
{
    size_t top = n * (n + 1) / 2;
    double *c = scratch_calloc(top + 1, sizeof *c);
    if (c == NULL) {
        out_of_memory = true;
        return NAN;
    }
    c[0] = 1.0;
    for (size_t k = 1; k <= n; k++)
        for (size_t s = top; s >= k; s--)
            c[s] += c[s - k];
    double below = 0.0;
    for (size_t s = 0; s <= top && (double)s <= v; s++)
        below += c[s];
    free(c);
    return below / ldexp(1.0, (int)n);
}

/* Ranks |d| (ties get their mean rank) and returns V, the sum of the
 * positive differences' ranks; *ties gets sum(t^3 - t) over the groups
 * of t tied values, for the variance's correction. */
static double signed_rank_sum(ranked *r, size_t n, double *ties)
{
    qsort(r, n, sizeof *r, cmp_ranked);
    double v = 0.0;
    *ties = 0.0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && r[j + 1].abs == r[i].abs)
            j++;
        double t = (double)(j - i + 1);
        double rank = ((double)i + (double)j) / 2.0 + 1.0;
        for (size_t k = i; k <= j; k++)
            if (r[k].positive)
                v += rank;
        *ties += t * t * t - t;
        i = j + 1;
    }
    return v;
}

/* R's wilcox.test(a, b, paired = TRUE): exact when there are no ties
 * and no zero differences, else the normal approximation with the ties'
 * variance correction and a continuity correction. */
static double wilcoxon_p(const double *d, size_t n)
{
    ranked *r = scratch_malloc((n ? n : 1) * sizeof *r);
    if (r == NULL) {
        out_of_memory = true;
        return NAN;
    }
    size_t m = 0;
    bool zeros = false;
    for (size_t i = 0; i < n; i++) {
        if (d[i] == 0.0) {
            zeros = true;
            continue;
        }
        r[m].abs = fabs(d[i]);
        r[m++].positive = d[i] > 0;
    }
    if (m == 0) {
        free(r);
        return NAN;
    }
    double ties;
    double v = signed_rank_sum(r, m, &ties);
    free(r);
    double nn = (double)m, mid = nn * (nn + 1.0) / 4.0;
    if (ties == 0.0 && !zeros && m <= WILCOXON_EXACT_MAX) {
        double p = v > mid ? 1.0 - wilcoxon_exact_cdf(m, v - 1.0)
                           : wilcoxon_exact_cdf(m, v);
        return fmin(1.0, 2.0 * p);
    }
    double var = nn * (nn + 1.0) * (2.0 * nn + 1.0) / 24.0 - ties / 48.0;
    if (var <= 0.0)
        return 1.0;
    double z = v - mid;
    double correction = z > 0 ? 0.5 : z < 0 ? -0.5 : 0.0;
    z = (z - correction) / sqrt(var);
    return fmin(1.0, 2.0 * gsl_cdf_ugaussian_Q(fabs(z)));
}

/* ---- Paired comparisons --------------------------------------------------- */

void stats_paired_test(const double *a, const double *b, size_t n, double level,
                       stats_paired *out)
{
    memset(out, 0, sizeof *out);
    /* Zeroed: gcc cannot see that only d[0, m) is read. */
    double *d = scratch_calloc(n ? n : 1, sizeof *d);
    if (d == NULL) { /* no memory: nothing could be tested */
        out_of_memory = true;
        static const double none[1];
        stats_mean_ci(none, 0, level, &out->diff);
        out->p_t = out->p_wilcoxon = NAN;
        return;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(a[i]) && isfinite(b[i]))
            d[m++] = a[i] - b[i];
    out->n = m;
    stats_mean_ci(d, m, level, &out->diff);
    out->p_t = NAN;
    if (m >= 2) {
        if (out->diff.sd == 0.0)
            out->p_t = out->diff.mean == 0.0 ? 1.0 : 0.0;
        else {
            double t = out->diff.mean / (out->diff.sd / sqrt((double)m));
            out->p_t = 2.0 * gsl_cdf_tdist_Q(fabs(t), (double)(m - 1));
        }
    }
    out->p_wilcoxon = wilcoxon_p(d, m);
    free(d);
}

double stats_sign_test(size_t n_pos, size_t n_neg)
{
    size_t n = n_pos + n_neg;
    if (n == 0)
        return NAN;
    size_t k = n_pos < n_neg ? n_pos : n_neg;
    double p = 2.0 * gsl_cdf_binomial_P((unsigned)k, 0.5, (unsigned)n);
    return fmin(1.0, p);
}

double stats_t_quantile(double p, double df)
{
    return gsl_cdf_tdist_Pinv(p, df);
}

/* ---- Wilson ---------------------------------------------------------------- */

/* centre (p + z^2/2n) / (1 + z^2/n), half-width
 * z / (1 + z^2/n) sqrt(p(1-p)/n + z^2/4n^2); clamped against rounding at
 * the ends (at k = 0 the lower bound is exactly 0). */
void stats_wilson(size_t k, size_t n, double level, double *lo, double *hi)
{
    if (n == 0 || k > n) {
        *lo = *hi = NAN;
        return;
    }
    double z = gsl_cdf_ugaussian_Pinv(1.0 - (1.0 - level) / 2.0);
    double nn = (double)n, p = (double)k / nn, z2n = z * z / nn;
    double centre = (p + z2n / 2.0) / (1.0 + z2n);
    double half = z / (1.0 + z2n) * sqrt(p * (1.0 - p) / nn + z2n / (4.0 * nn));
    *lo = k == 0 ? 0.0 : fmax(0.0, centre - half);
    *hi = k == n ? 1.0 : fmin(1.0, centre + half);
}

int stats_wilson_side(size_t k, size_t n, double level, double at)
{
    double lo, hi;
    stats_wilson(k, n, level, &lo, &hi);
    if (n == 0)
        return 0;
    return hi < at ? -1 : lo > at ? 1 : 0;
}

/* Counted up rather than solved: the upper bound falls with n for a
 * fixed k, and the n a report asks about are a handful. */
size_t stats_wilson_min_n(size_t k, double level, double at)
{
    if (!(at > 0.0 && at <= 1.0))
        return 0;
    size_t n = k + 1;
    while (stats_wilson_side(k, n, level, at) >= 0)
        n++;
    return n;
}

/* ---- Holm ----------------------------------------------------------------- */

typedef struct indexed {
    double p;
    size_t i;
} indexed;

/* Ascending p; equal p keep their order, so the result does not depend
 * on qsort's stability. */
static int cmp_indexed(const void *a, const void *b)
{
    const indexed *x = a, *y = b;
    if (x->p != y->p)
        return (x->p > y->p) - (x->p < y->p);
    return (x->i > y->i) - (x->i < y->i);
}

void stats_holm(double *p, size_t m)
{
    indexed *s = scratch_malloc((m ? m : 1) * sizeof *s);
    if (s == NULL) {
        out_of_memory = true;
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < m; i++)
        if (!isnan(p[i]))
            s[k++] = (indexed){p[i], i};
    qsort(s, k, sizeof *s, cmp_indexed);
    double running = 0.0;
    for (size_t j = 0; j < k; j++) {
        double adj = fmin(1.0, (double)(k - j) * s[j].p);
        if (adj > running)
            running = adj;
        p[s[j].i] = running;
    }
    free(s);
}

double stats_fisher_exact(size_t k1, size_t n1, size_t k2, size_t n2)
{
    /* Row 1 holds n1 trials, column 1 the k = k1 + k2 hits: the count of
     * hits in row 1 is hypergeometric (k from n1 "good" and n2 "bad"). */
    size_t k = k1 + k2;
    if (n1 == 0 || n2 == 0 || k == 0 || k == n1 + n2)
        return 1;
    size_t lo = k > n2 ? k - n2 : 0, hi = k < n1 ? k : n1;
    double seen = gsl_ran_hypergeometric_pdf((unsigned)k1, (unsigned)n1,
                                             (unsigned)n2, (unsigned)k);
    double p = 0;
    for (size_t x = lo; x <= hi; x++) {
        double px = gsl_ran_hypergeometric_pdf((unsigned)x, (unsigned)n1,
                                               (unsigned)n2, (unsigned)k);
        if (px <= seen * (1 + 1e-7))
            p += px;
    }
    return p < 1 ? p : 1;
}
