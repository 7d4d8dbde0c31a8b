/*
 * check_stats.c -- the statistics of a comparison against published and
 * hand-computed values: Student-t intervals, type-7 quantiles, the paired
 * t and Wilcoxon signed-rank tests, the sign test, Holm's adjustment.
 */
#include <check.h>
#include <math.h>

#include "stats.h"

/* R's `sleep` data set (Cushny and Peebles, 1905; Student, 1908): extra
 * hours of sleep of the same 10 patients under two drugs. */
static const double sleep1[10] = {0.7, -1.6, -0.2, -1.2, -0.1,
                                  3.4, 3.7,  0.8,  0.0,  2.0};
static const double sleep2[10] = {1.9, 0.8, 1.1, 0.1, -0.1,
                                  4.4, 5.5, 1.6, 4.6, 3.4};

/* R: t.test(extra ~ group, data = sleep, paired = TRUE) prints
 * t = -4.0621, df = 9, p-value = 0.002833, 95 percent confidence
 * interval -2.4598858 -0.7001142, mean difference -1.58 (R's own
 * example in ?t.test and ?sleep). */
START_TEST(paired_t_matches_r_on_sleep)
{
    stats_paired p;
    stats_paired_test(sleep1, sleep2, 10, 0.95, &p);
    ck_assert_uint_eq(p.n, 10);
    ck_assert_double_eq_tol(p.diff.mean, -1.58, 1e-12);
    ck_assert_double_eq_tol(p.diff.lo, -2.4598858, 1e-6);
    ck_assert_double_eq_tol(p.diff.hi, -0.7001142, 1e-6);
    double t = p.diff.mean / (p.diff.sd / sqrt(10.0));
    ck_assert_double_eq_tol(t, -4.0621, 5e-5);
    ck_assert_double_eq_tol(p.p_t, 0.002833, 5e-7);
}
END_TEST

/* R: with(sleep, wilcox.test(extra[group == 1], extra[group == 2],
 * paired = TRUE)) gives V = 0, p-value = 0.009091 and warns that it
 * cannot compute an exact p with ties and zeroes.  By hand: one zero
 * difference is dropped, leaving n = 9, all negative, so V = 0; the two
 * differences of -1.3 tie, so var = 9 x 10 x 19 / 24 - (2^3 - 2) / 48 =
 * 71.125, z = (0 - 22.5 + 0.5) / sqrt(71.125) = -2.6086, p = 2 Phi(z). */
START_TEST(wilcoxon_matches_r_on_sleep)
{
    stats_paired p;
    stats_paired_test(sleep1, sleep2, 10, 0.95, &p);
    ck_assert_double_eq_tol(p.p_wilcoxon, 0.009091, 5e-7);
}
END_TEST

/* Without ties or zeros the distribution is exact.  Five positive
 * differences: V = 15 is the largest of 2^5 equally likely sums, so
 * p = 2 / 32 = 0.0625 (R: wilcox.test(1:5)).  {-1, 2, 3, -4, 5, 6}: V =
 * 2 + 3 + 5 + 6 = 16, and P(V >= 16) = P(V <= 21 - 16 = 5) = 10 / 64 (the
 * subsets of {1..6} summing to at most 5: {}, 1, 2, 3, 12, 4, 13, 5, 14,
 * 23), so p = 0.3125 (R: wilcox.test(c(-1, 2, 3, -4, 5, 6))). */
START_TEST(wilcoxon_exact_small_samples)
{
    static const double zero[6] = {0};
    static const double up[5] = {1, 2, 3, 4, 5};
    static const double mixed[6] = {-1, 2, 3, -4, 5, 6};
    stats_paired p;
    stats_paired_test(up, zero, 5, 0.95, &p);
    ck_assert_double_eq_tol(p.p_wilcoxon, 0.0625, 1e-15);
    stats_paired_test(mixed, zero, 6, 0.95, &p);
    ck_assert_double_eq_tol(p.p_wilcoxon, 0.3125, 1e-15);
    /* The same differences the other way round: the same p. */
    stats_paired_test(zero, mixed, 6, 0.95, &p);
    ck_assert_double_eq_tol(p.p_wilcoxon, 0.3125, 1e-15);
}
END_TEST

/* t(0.975, 4) = 2.776445 (any t table; R: qt(0.975, 4)).  For 1..5 the
 * mean is 3 and sd = sqrt(2.5), so the half width is 2.776445 x
 * sqrt(2.5 / 5) = 1.963243 (R: t.test(1:5) gives 1.036757 4.963243). */
START_TEST(mean_ci_uses_student_t)
{
    static const double x[7] = {1, NAN, 2, 3, INFINITY, 4, 5};
    stats_ci c;
    stats_mean_ci(x, 7, 0.95, &c);
    ck_assert_uint_eq(c.n, 5);
    ck_assert_double_eq_tol(c.mean, 3.0, 1e-15);
    ck_assert_double_eq_tol(c.sd, sqrt(2.5), 1e-15);
    ck_assert_double_eq_tol(c.half_width, 2.776445 * sqrt(0.5), 1e-6);
    ck_assert_double_eq_tol(c.lo, 1.036757, 1e-6);
    ck_assert_double_eq_tol(c.hi, 4.963243, 1e-6);
    /* 99 %: t(0.995, 4) = 4.604095 (qt(0.995, 4)). */
    stats_mean_ci(x, 7, 0.99, &c);
    ck_assert_double_eq_tol(c.half_width, 4.604095 * sqrt(0.5), 1e-6);
}
END_TEST

/* The edges the header promises: no values, one value, equal values. */
START_TEST(mean_ci_edges)
{
    static const double none[2] = {NAN, NAN};
    static const double one[1] = {4.0};
    static const double same[3] = {2.5, 2.5, 2.5};
    stats_ci c;
    stats_mean_ci(none, 2, 0.95, &c);
    ck_assert_uint_eq(c.n, 0);
    ck_assert(isnan(c.mean) && isnan(c.sd) && isnan(c.lo));
    stats_mean_ci(one, 1, 0.95, &c);
    ck_assert_double_eq(c.mean, 4.0);
    ck_assert(isnan(c.sd) && isnan(c.half_width) && isnan(c.hi));
    stats_mean_ci(same, 3, 0.95, &c);
    ck_assert_double_eq(c.sd, 0.0);
    ck_assert_double_eq(c.half_width, 0.0);
    ck_assert_double_eq(c.lo, 2.5);
    ck_assert_double_eq(c.hi, 2.5);
}
END_TEST

/* Hyndman and Fan's type 7 by hand on {1, 3, 7, 15} (m = 4, h = 3q):
 * q = 0.1: h = 0.3, 1 + 0.3 x 2 = 1.6; q = 0.5: h = 1.5, 3 + 0.5 x 4 = 5;
 * q = 0.9: h = 2.7, 7 + 0.7 x 8 = 12.6; the ends are the extremes
 * (R: quantile(c(1, 3, 7, 15), c(0, .1, .5, .9, 1))). */
START_TEST(quantile_type_7)
{
    static const double x[6] = {15, NAN, 1, 7, 3, NAN};
    ck_assert_double_eq_tol(stats_quantile(x, 6, 0.1), 1.6, 1e-12);
    ck_assert_double_eq_tol(stats_quantile(x, 6, 0.5), 5.0, 1e-12);
    ck_assert_double_eq_tol(stats_quantile(x, 6, 0.9), 12.6, 1e-12);
    ck_assert_double_eq(stats_quantile(x, 6, 0.0), 1.0);
    ck_assert_double_eq(stats_quantile(x, 6, 1.0), 15.0);
    /* Not modified. */
    ck_assert_double_eq(x[0], 15.0);
    static const double one[1] = {42};
    ck_assert_double_eq(stats_quantile(one, 1, 0.9), 42.0);
    ck_assert(isnan(stats_quantile(x + 1, 1, 0.5)));
}
END_TEST

/* The paired test's edges: every difference 0 (p 1, no Wilcoxon), every
 * difference the same non-zero value (p 0), one pair (NaN), pairs with a
 * missing side skipped. */
START_TEST(paired_edges)
{
    static const double a[4] = {1, 2, 3, NAN};
    static const double b[4] = {1, 2, 3, 4};
    static const double c[4] = {2, 3, 4, 5};
    stats_paired p;
    stats_paired_test(a, b, 4, 0.95, &p);
    ck_assert_uint_eq(p.n, 3);
    ck_assert_double_eq(p.p_t, 1.0);
    ck_assert(isnan(p.p_wilcoxon));
    stats_paired_test(a, c, 4, 0.95, &p);
    ck_assert_double_eq(p.diff.mean, -1.0);
    ck_assert_double_eq(p.p_t, 0.0);
    stats_paired_test(a, c, 1, 0.95, &p);
    ck_assert(isnan(p.p_t));
}
END_TEST

/* Exact binomial tails: 0 of 5 one way is 2 x (1/2)^5 = 0.0625; 1 of 10
 * is 2 x (1 + 10) / 1024 = 0.021484375 (R: binom.test(1, 10)). */
START_TEST(sign_test_is_binomial)
{
    ck_assert_double_eq_tol(stats_sign_test(0, 5), 0.0625, 1e-15);
    ck_assert_double_eq_tol(stats_sign_test(9, 1), 0.021484375, 1e-15);
    ck_assert_double_eq(stats_sign_test(3, 3), 1.0);
    ck_assert(isnan(stats_sign_test(0, 0)));
}
END_TEST

/* Holm by hand on {0.01, 0.04, 0.03, 0.005}: sorted 0.005, 0.01, 0.03,
 * 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04, then the running
 * maximum makes the last 0.06 (R: p.adjust(c(.01, .04, .03, .005),
 * "holm") = 0.03 0.06 0.06 0.02).  A NaN is not a hypothesis: with
 * {0.01, NaN, 0.04}, m = 2. */
/* Wilson score intervals at 95 % (z = 1.959964), by hand from
 * (p + z^2/2n) / (1 + z^2/n) -+ z / (1 + z^2/n) sqrt(p(1-p)/n + z^2/4n^2):
 * 2 of 5: centre 0.784146 / 1.768292 = 0.443449, half 1.108394 x
 * sqrt(0.048 + 0.038415) = 0.325828, so [0.1176, 0.7693] (the interval
 * R's prop.test(2, 5, correct = FALSE) prints); 0 of 10: [0, 3.841459 /
 * 13.841459 = 0.2775]; 10 of 10 mirrors it. */
START_TEST(wilson_by_hand)
{
    double lo, hi;
    stats_wilson(2, 5, 0.95, &lo, &hi);
    ck_assert_double_eq_tol(lo, 0.117621, 1e-5);
    ck_assert_double_eq_tol(hi, 0.769278, 1e-5);
    stats_wilson(0, 10, 0.95, &lo, &hi);
    ck_assert_double_eq(lo, 0.0);
    ck_assert_double_eq_tol(hi, 0.277533, 1e-5);
    stats_wilson(10, 10, 0.95, &lo, &hi);
    ck_assert_double_eq_tol(lo, 1.0 - 0.277533, 1e-5);
    ck_assert_double_eq(hi, 1.0);
    stats_wilson(0, 0, 0.95, &lo, &hi);
    ck_assert(isnan(lo) && isnan(hi));
}
END_TEST

/* Fisher's exact test by hand.  Fisher's lady tasting tea: 3 of 4 cups
 * against 1 of 4; with margins fixed the count in row 1 is
 * hypergeometric, P(x) = C(4,x) C(4,4-x) / C(8,4) = (1, 16, 36, 16, 1)
 * / 70, and the tables no likelier than x = 3 sum to 34/70 = 0.4857
 * (R: fisher.test(matrix(c(3,1,1,3), 2)) gives 0.4857).  0 of 10
 * against 5 of 10: P(x) = C(10,x) C(10,5-x) / C(20,5) = (252, 2100,
 * 5400, 5400, 2100, 252) / 15504; x = 0 and x = 5 are the likeliest
 * no more than the one seen: 504 / 15504 = 0.03251. */
START_TEST(fisher_exact_by_hand)
{
    ck_assert_double_eq_tol(stats_fisher_exact(3, 4, 1, 4), 34.0 / 70, 1e-12);
    ck_assert_double_eq_tol(stats_fisher_exact(1, 4, 3, 4), 34.0 / 70, 1e-12);
    ck_assert_double_eq_tol(stats_fisher_exact(0, 10, 5, 10), 504.0 / 15504,
                            1e-12);
    /* Nothing to tell apart: no hit at all, or no trials on one side. */
    ck_assert_double_eq(stats_fisher_exact(0, 400, 0, 400), 1);
    ck_assert_double_eq(stats_fisher_exact(0, 0, 3, 10), 1);
    /* Equal shares are the likeliest table: p = 1. */
    ck_assert_double_eq_tol(stats_fisher_exact(5, 10, 5, 10), 1, 1e-12);
}
END_TEST

/* The side of 1/2, from the intervals above: 0 of 10 lies below
 * (hi 0.2775), 10 of 10 above (lo 0.7225), 2 of 5 holds it ([0.118,
 * 0.769]); 0 of 3 holds it too, hi = 3.841 / 6.841 = 0.5615 (from n = 4,
 * 3.841 / 7.841 = 0.4899, it lies below), and n = 0 says nothing. */
START_TEST(wilson_side_of_half)
{
    ck_assert_int_eq(stats_wilson_side(0, 10, 0.95, 0.5), -1);
    ck_assert_int_eq(stats_wilson_side(10, 10, 0.95, 0.5), 1);
    ck_assert_int_eq(stats_wilson_side(2, 5, 0.95, 0.5), 0);
    ck_assert_int_eq(stats_wilson_side(0, 3, 0.95, 0.5), 0);
    ck_assert_int_eq(stats_wilson_side(0, 4, 0.95, 0.5), -1);
    ck_assert_int_eq(stats_wilson_side(4, 4, 0.95, 0.5), 1);
    ck_assert_int_eq(stats_wilson_side(0, 0, 0.95, 0.5), 0);
}
END_TEST

/* The seeds it takes to call a share below 1/2: 0 of n from n = 4 (the
 * case above: 0.5615 at 3, 0.4899 at 4); 1 of n from n = 8 (Wilson's top
 * 0.5131 at 7, 0.4709 at 8, worked as in wilson_by_hand); 2 of n from
 * 11 (0.5098 at 10, 0.4770 at 11).  An `at` outside (0, 1]: 0. */
START_TEST(wilson_min_n_below_half)
{
    ck_assert_uint_eq(stats_wilson_min_n(0, 0.95, 0.5), 4);
    ck_assert_uint_eq(stats_wilson_min_n(1, 0.95, 0.5), 8);
    ck_assert_uint_eq(stats_wilson_min_n(2, 0.95, 0.5), 11);
    ck_assert_uint_eq(stats_wilson_min_n(0, 0.95, 0.0), 0);
    ck_assert_uint_eq(stats_wilson_min_n(0, 0.95, 1.5), 0);
}
END_TEST

START_TEST(holm_by_hand)
{
    double p[4] = {0.01, 0.04, 0.03, 0.005};
    stats_holm(p, 4);
    ck_assert_double_eq_tol(p[0], 0.03, 1e-15);
    ck_assert_double_eq_tol(p[1], 0.06, 1e-15);
    ck_assert_double_eq_tol(p[2], 0.06, 1e-15);
    ck_assert_double_eq_tol(p[3], 0.02, 1e-15);
    double q[3] = {0.01, NAN, 0.04};
    stats_holm(q, 3);
    ck_assert_double_eq_tol(q[0], 0.02, 1e-15);
    ck_assert(isnan(q[1]));
    ck_assert_double_eq_tol(q[2], 0.04, 1e-15);
    double big[2] = {0.6, 0.7};
    stats_holm(big, 2);
    ck_assert_double_eq(big[0], 1.0);
    ck_assert_double_eq(big[1], 1.0);
}
END_TEST

Suite *stats_suite(void)
{
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("stats");
    tcase_add_test(tc, paired_t_matches_r_on_sleep);
    tcase_add_test(tc, wilcoxon_matches_r_on_sleep);
    tcase_add_test(tc, wilcoxon_exact_small_samples);
    tcase_add_test(tc, mean_ci_uses_student_t);
    tcase_add_test(tc, mean_ci_edges);
    tcase_add_test(tc, quantile_type_7);
    tcase_add_test(tc, paired_edges);
    tcase_add_test(tc, sign_test_is_binomial);
    tcase_add_test(tc, wilson_by_hand);
    tcase_add_test(tc, wilson_side_of_half);
    tcase_add_test(tc, wilson_min_n_below_half);
    tcase_add_test(tc, holm_by_hand);
    tcase_add_test(tc, fisher_exact_by_hand);
    suite_add_tcase(s, tc);
    return s;
}
