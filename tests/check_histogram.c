/*
 * check_histogram.c -- log-bucketed latency histograms: exact below 2^bits,
 * within 1/2^(bits+1) above, quantiles by nearest rank.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "histogram.h"

START_TEST(small_values_are_exact)
{
    for (int64_t v = 0; v < 16; v++) {
        ck_assert_uint_eq(hist_bin(4, v), (size_t)v);
        ck_assert_double_eq(hist_bin_mid(4, hist_bin(4, v)), (double)v);
    }
}
END_TEST

/* Every value maps to a bin whose midpoint is within 1/2^(bits+1) of it,
 * and bins are in increasing order of value. */
START_TEST(relative_error_is_bounded)
{
    for (unsigned bits = 4; bits <= 6; bits += 2) {
        double bound = 1.0 / (double)(1u << (bits + 1));
        size_t prev = 0;
        for (int64_t v = 1; v < ((int64_t)1 << 41); v += v / 7 + 1) {
            size_t b = hist_bin(bits, v);
            ck_assert_uint_ge(b, prev);
            ck_assert_uint_lt(b, HIST_BINS(bits));
            prev = b;
            double mid = hist_bin_mid(bits, b);
            ck_assert_msg(fabs(mid - (double)v) / (double)v <= bound + 1e-12,
                          "bits %u v %lld mid %f", bits, (long long)v, mid);
        }
    }
    /* Past the range: the last bin. */
    ck_assert_uint_eq(hist_bin(4, INT64_MAX), HIST_BINS(4) - 1);
}
END_TEST

/* A coarser bin found from a finer one is the bin hist_bin gives: every
 * value up to 2^12, then a sweep, the edges of each octave, the end of
 * the range and past it, and negatives. */
START_TEST(coarser_bins_are_the_same_bins)
{
    int64_t v[] = {-5,
                   -1,
                   INT64_MAX,
                   (int64_t)1 << 42,
                   ((int64_t)1 << 42) - 1,
                   ((int64_t)1 << 42) + 1};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        ck_assert_uint_eq(hist_bin_coarser(4, 6, hist_bin(6, v[i]), v[i]),
                          hist_bin(4, v[i]));
    for (int64_t x = 0; x < 4096; x++)
        ck_assert_uint_eq(hist_bin_coarser(4, 6, hist_bin(6, x), x),
                          hist_bin(4, x));
    for (int64_t x = 4096; x < ((int64_t)1 << 44); x += x / 97 + 1)
        ck_assert_uint_eq(hist_bin_coarser(4, 6, hist_bin(6, x), x),
                          hist_bin(4, x));
    for (int e = 6; e < 63; e++)
        for (int64_t d = -1; d <= 1; d++) {
            int64_t x = ((int64_t)1 << e) + d;
            ck_assert_uint_eq(hist_bin_coarser(4, 6, hist_bin(6, x), x),
                              hist_bin(4, x));
            ck_assert_uint_eq(hist_bin_coarser(2, 6, hist_bin(6, x), x),
                              hist_bin(2, x));
        }
}
END_TEST

/* 1..10000 ms, one each: the nearest-rank p50 is 5000 ms, p99 9900 ms,
 * p99.9 9990 ms; bin midpoints are within 0.8 % at 6 bits. */
START_TEST(quantiles_of_a_known_set)
{
    uint32_t *c = calloc(HIST_BINS(6), sizeof *c);
    for (int64_t ms = 1; ms <= 10000; ms++)
        c[hist_bin(6, ms * 1000000)]++;
    ck_assert_double_eq_tol(hist_quantile(6, c, 10000, 0.5), 5000e6, 40e6);
    ck_assert_double_eq_tol(hist_quantile(6, c, 10000, 0.99), 9900e6, 80e6);
    ck_assert_double_eq_tol(hist_quantile(6, c, 10000, 0.999), 9990e6, 80e6);
    ck_assert_double_eq(hist_quantile(6, c, 0, 0.5), 0.0);
    free(c);
}
END_TEST

/* Several levels in one pass give what nearest rank gives level by level
 * (the smallest bin whose cumulative count reaches ceil(q x total)),
 * computed here the slow way, over a histogram with gaps, and over a
 * range [lo, hi] that holds every count. */
START_TEST(many_levels_in_one_pass)
{
    enum { BITS = 4, N = HIST_BINS(4) };
    static uint32_t c[N];
    uint64_t total = 0;
    for (size_t i = 40; i < 200; i += 7) {
        c[i] = (uint32_t)(i % 5);
        total += c[i];
    }
    static const double q[] = {0,   0.01, 0.1,  0.25,  0.5,
                               0.5, 0.9,  0.99, 0.999, 1};
    size_t nq = sizeof q / sizeof *q;
    double got[10], ranged[10];
    hist_quantiles(BITS, c, 0, N - 1, total, q, nq, got);
    hist_quantiles(BITS, c, 40, 200, total, q, nq, ranged);
    for (size_t k = 0; k < nq; k++) {
        uint64_t rank = (uint64_t)ceil(q[k] * (double)total), seen = 0;
        if (rank < 1)
            rank = 1;
        size_t bin = 0;
        while (seen + c[bin] < rank)
            seen += c[bin++];
        ck_assert_double_eq(got[k], hist_bin_mid(BITS, bin));
        ck_assert_double_eq(ranged[k], got[k]);
        ck_assert_double_eq(hist_quantile(BITS, c, total, q[k]), got[k]);
    }
    /* Empty: 0, as hist_quantile. */
    hist_quantiles(BITS, c, 0, N - 1, 0, q, nq, got);
    ck_assert_double_eq(got[3], 0.0);
}
END_TEST

Suite *histogram_suite(void)
{
    Suite *s = suite_create("histogram");
    TCase *tc = tcase_create("bins");
    tcase_add_test(tc, small_values_are_exact);
    tcase_add_test(tc, relative_error_is_bounded);
    tcase_add_test(tc, coarser_bins_are_the_same_bins);
    tcase_add_test(tc, quantiles_of_a_known_set);
    tcase_add_test(tc, many_levels_in_one_pass);
    suite_add_tcase(s, tc);
    return s;
}
