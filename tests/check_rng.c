/*
 * check_rng.c -- the counter-based generator: uniform, independent across
 * streams and clients, reproducible, with the right variate means.
 */
#include <check.h>
#include <math.h>

#include "rng.h"

/* Mean and variance of 10^6 uniforms: 1/2 and 1/12, with standard errors
 * 0.00029 and 0.000075: a 5-sigma band. */
START_TEST(uniform_moments)
{
    uint64_t key = rng_key(1, 7, RNG_SERVICE);
    double sum = 0, sq = 0;
    const int n = 1000000;
    for (int i = 0; i < n; i++) {
        double u = rng_unit(rng_at(key, (uint64_t)i));
        ck_assert(u >= 0.0 && u < 1.0);
        sum += u;
        sq += u * u;
    }
    double mean = sum / n, var = sq / n - mean * mean;
    ck_assert_double_eq_tol(mean, 0.5, 0.0015);
    ck_assert_double_eq_tol(var, 1.0 / 12.0, 0.0004);
}
END_TEST

/* Chi-square over 100 equal bins: 99 degrees of freedom, mean 99, sd 14;
 * 160 is beyond the 99.99th percentile. */
START_TEST(uniform_chi_square)
{
    uint64_t key = rng_key(3, 0, RNG_ARRIVAL);
    int bins[100] = {0};
    const int n = 200000;
    for (int i = 0; i < n; i++)
        bins[(int)(rng_unit(rng_at(key, (uint64_t)i)) * 100)]++;
    double chi = 0, expect = n / 100.0;
    for (int b = 0; b < 100; b++)
        chi += (bins[b] - expect) * (bins[b] - expect) / expect;
    ck_assert_double_lt(chi, 160.0);
}
END_TEST

/* Neighbouring clients, streams and seeds must not be correlated: the
 * correlation of 10^5 paired draws has standard error 0.0032. */
START_TEST(streams_are_uncorrelated)
{
    const uint64_t pairs[][2] = {
        {rng_key(1, 0, RNG_SERVICE), rng_key(1, 1, RNG_SERVICE)},
        {rng_key(1, 0, RNG_SERVICE), rng_key(1, 0, RNG_NET)},
        {rng_key(1, 0, RNG_SERVICE), rng_key(2, 0, RNG_SERVICE)},
    };
    for (int p = 0; p < 3; p++) {
        double sx = 0, sy = 0, sxy = 0, sxx = 0, syy = 0;
        const int n = 100000;
        for (int i = 0; i < n; i++) {
            double x = rng_unit(rng_at(pairs[p][0], (uint64_t)i));
            double y = rng_unit(rng_at(pairs[p][1], (uint64_t)i));
            sx += x;
            sy += y;
            sxy += x * y;
            sxx += x * x;
            syy += y * y;
        }
        double cov = sxy / n - (sx / n) * (sy / n);
        double r = cov / sqrt((sxx / n - (sx / n) * (sx / n)) *
                              (syy / n - (sy / n) * (sy / n)));
        ck_assert_msg(fabs(r) < 0.016, "pair %d correlation %f", p, r);
    }
}
END_TEST

/* Exponential(mean m): sample mean m, standard error m/sqrt(n). */
START_TEST(exponential_mean)
{
    uint64_t key = rng_key(9, 3, RNG_SERVICE);
    double sum = 0;
    const int n = 400000;
    for (int i = 0; i < n; i++)
        sum += rng_exponential(rng_at(key, (uint64_t)i), 100.0);
    ck_assert_double_eq_tol(sum / n, 100.0, 100.0 * 5 / sqrt(n));
}
END_TEST

/* Box-Muller: mean 0, variance 1. */
START_TEST(normal_moments)
{
    uint64_t key = rng_key(4, 4, RNG_SERVICE);
    double sum = 0, sq = 0;
    const int n = 400000;
    for (int i = 0; i < n; i++) {
        double z = rng_normal(rng_at(key, 2 * (uint64_t)i),
                              rng_at(key, 2 * (uint64_t)i + 1));
        sum += z;
        sq += z * z;
    }
    ck_assert_double_eq_tol(sum / n, 0.0, 5.0 / sqrt(n));
    ck_assert_double_eq_tol(sq / n, 1.0, 5.0 * sqrt(2.0 / n));
}
END_TEST

/* The normal distribution function and AS 241's inverse, against
 * printed values (Abramowitz and Stegun, table 26.1 and 26.5:
 * Phi(1) = 0.841344746068543, the 97.5 % point 1.959963984540054, the
 * 1e-10 point -6.361340902404056) and against each other over the whole
 * range down to p = 1e-300.  A relative error e in z = Phi^-1(p) moves
 * p by about z^2 e relative (d ln p / dz ~ -z in the tail), and both AS 241
 * and erfc are good to a few 1e-16, so Phi(Phi^-1(p)) = p within
 * 4e-15 (1 + z^2) relative (the worst measured is 6e-16 (1 + z^2)). */
START_TEST(normal_quantile_inverts_the_cdf)
{
    ck_assert_double_eq_tol(rng_normal_cdf(1.0), 0.841344746068543, 1e-15);
    ck_assert_double_eq_tol(rng_normal_cdf(0.0), 0.5, 1e-16);
    ck_assert_double_eq_tol(rng_normal_quantile(0.975), 1.959963984540054,
                            1e-14);
    ck_assert_double_eq_tol(rng_normal_quantile(1e-10), -6.361340902404056,
                            1e-12);
    ck_assert_double_eq(rng_normal_quantile(0.5), 0.0);
    ck_assert(rng_normal_quantile(0.0) == -HUGE_VAL);
    ck_assert(rng_normal_quantile(1.0) == HUGE_VAL);
    /* All three branches: |p - 1/2| <= 0.425, r <= 5, r > 5 (p < 1.4e-11). */
    for (double lp = -300; lp < -0.31; lp += 0.37) {
        double p = pow(10.0, lp);
        double z = rng_normal_quantile(p);
        double back = rng_normal_cdf(z);
        ck_assert_msg(fabs(back - p) <= 4e-15 * (1 + z * z) * p,
                      "p %g: Phi(Phi^-1(p)) %.17g", p, back);
        /* Symmetry: the upper tail is computed from 1 - p, which is
         * itself rounded by up to 1.1e-16, moving z by that over the
         * density exp(-z^2/2)/sqrt(2 pi); below p = 1e-12 little of p
         * survives in 1 - p. */
        if (p > 1e-12)
            ck_assert_double_eq_tol(rng_normal_quantile(1.0 - p), -z,
                                    1e-14 +
                                        1e-15 * 2.50662827463 * exp(z * z / 2));
    }
}
END_TEST

/* The truncated normal is never negative and v = 1 (the uniform's largest
 * value) maps to the truncation point 0 exactly; sd = 0 is the mean. */
START_TEST(truncated_normal_stays_above_zero)
{
    uint64_t key = rng_key(2, 5, RNG_SERVICE);
    for (uint64_t i = 0; i < 100000; i++)
        ck_assert(rng_truncated_normal(rng_at(key, i), 1.0, 3.0) >= 0.0);
    uint64_t top = ~UINT64_C(0); /* rng_unit_open0(top) == 1 */
    ck_assert_double_eq(rng_unit_open0(top), 1.0);
    ck_assert_double_eq_tol(rng_truncated_normal(top, 2.0, 1.0), 0.0, 1e-12);
    ck_assert_double_eq(rng_truncated_normal(top, 2.0, 0.0), 2.0);
}
END_TEST

/* The companion stream of a pair is a stream of its own: its key differs
 * from the stream's and from every other stream the engine uses. */
START_TEST(pair_streams_are_distinct)
{
    for (uint32_t st = 1; st < RNG_FAULT + 256; st++) {
        uint64_t pair = rng_key(1, 3, st | RNG_PAIR);
        ck_assert_uint_ne(pair, rng_key(1, 3, st));
        ck_assert_uint_ne(pair, rng_key(1, 3, st + 1));
    }
}
END_TEST

/* A draw is a pure function of its inputs: that is what makes runs
 * reproducible and policies comparable on the same arrivals. */
START_TEST(draws_are_pure_functions)
{
    ck_assert_uint_eq(rng_at(rng_key(5, 6, 7), 8), rng_at(rng_key(5, 6, 7), 8));
    ck_assert_uint_ne(rng_at(rng_key(5, 6, 7), 8), rng_at(rng_key(5, 6, 7), 9));
    ck_assert_uint_ne(rng_key(5, 6, 7), rng_key(5, 7, 7));
    /* Attempt counters never collide within a request. */
    ck_assert_uint_ne(rng_attempt_counter(3, 1, 0),
                      rng_attempt_counter(3, 2, 0));
    ck_assert_uint_ne(rng_attempt_counter(3, 1, 1),
                      rng_attempt_counter(3, 1, 0));
    ck_assert_uint_ne(rng_attempt_counter(3, 1, 0),
                      rng_attempt_counter(4, 1, 0));
}
END_TEST

Suite *rng_suite(void)
{
    Suite *s = suite_create("rng");
    TCase *tc = tcase_create("quality");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, uniform_moments);
    tcase_add_test(tc, uniform_chi_square);
    tcase_add_test(tc, streams_are_uncorrelated);
    tcase_add_test(tc, exponential_mean);
    tcase_add_test(tc, normal_moments);
    tcase_add_test(tc, draws_are_pure_functions);
    tcase_add_test(tc, normal_quantile_inverts_the_cdf);
    tcase_add_test(tc, truncated_normal_stays_above_zero);
    tcase_add_test(tc, pair_streams_are_distinct);
    suite_add_tcase(s, tc);
    return s;
}
