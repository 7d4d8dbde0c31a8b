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

/* A draw is a pure function of its inputs: that is what makes runs
 * reproducible and policies comparable on the same arrivals. */
START_TEST(draws_are_pure_functions)
{
    ck_assert_uint_eq(rng_at(rng_key(5, 6, 7), 8), rng_at(rng_key(5, 6, 7), 8));
    ck_assert_uint_ne(rng_at(rng_key(5, 6, 7), 8), rng_at(rng_key(5, 6, 7), 9));
    ck_assert_uint_ne(rng_key(5, 6, 7), rng_key(5, 7, 7));
    /* Attempt counters never collide within a request. */
    ck_assert_uint_ne(rng_attempt_counter(3, 1, 0), rng_attempt_counter(3, 2, 0));
    ck_assert_uint_ne(rng_attempt_counter(3, 1, 1), rng_attempt_counter(3, 1, 0));
    ck_assert_uint_ne(rng_attempt_counter(3, 1, 0), rng_attempt_counter(4, 1, 0));
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
    suite_add_tcase(s, tc);
    return s;
}
