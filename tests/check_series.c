/*
 * check_series.c -- the rows a front end keeps (viz/series.h): each column
 * derived from a bucket by hand, cumulative counts, the time lookups, and
 * the halving that bounds a long run.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "series.h"

/* A 500 ms bucket starting at 10 s: 60 offered and 90 attempts (120/s and
 * 180/s), 40 successes of 50 ended (80/s, 80 %), 4 workers busy half the
 * time on average (busy_ns = 2 x 0.5 s), a queue of 3 on average, 20
 * attempts that waited 1 s in all (50 ms each), 5 duplicates, 2
 * quarantined, 7 open breakers, 10 sends refused (20/s), a level of 0.25,
 * 0.3 s of the 0.4 s of service wasted (75 %).  Service 100 ms: 4 workers
 * serve 40/s. */
static metrics_bucket bucket(int64_t start_ms)
{
    metrics_bucket b;
    memset(&b, 0, sizeof b);
    b.start_ns = start_ms * 1000000;
    b.width_ns = 500000000;
    b.offered = 60;
    b.attempts = 90;
    b.successes = 40;
    b.failures = 10;
    b.quarantined = 2;
    b.duplicates = 5;
    b.busy_ns = 2.0 * 0.5e9;
    b.queue_ns = 3.0 * 0.5e9;
    b.queue_wait_ns = 1000000000;
    b.served = 20;
    b.open_breakers = 7;
    b.refusals = 10;
    b.policy_level = 0.25;
    b.capacity = 4;
    b.service_ns = 400000000;
    b.wasted_ns = 300000000;
    b.items_quarantined = 30;
    b.alerts_warning = 1;
    b.alerts_critical = 3;
    b.p50_bin = b.p99_bin = METRICS_NO_BIN;
    return b;
}

START_TEST(columns_from_a_bucket)
{
    series s;
    series_init(&s, 0.1);
    metrics_bucket b = bucket(10000);
    ck_assert_int_eq(series_add(&s, &b), 0);
    ck_assert_double_eq(series_at(&s, 0, COL_t), 10.5);
    ck_assert_double_eq(series_at(&s, 0, COL_offered), 120);
    ck_assert_double_eq(series_at(&s, 0, COL_attempts), 180);
    ck_assert_double_eq_tol(series_at(&s, 0, COL_capacity), 40, 1e-9);
    ck_assert_double_eq(series_at(&s, 0, COL_goodput), 80);
    ck_assert_double_eq(series_at(&s, 0, COL_success), 80);
    ck_assert_double_eq(series_at(&s, 0, COL_queue), 3);
    ck_assert_double_eq(series_at(&s, 0, COL_queue_wait), 50);
    ck_assert(isnan(series_at(&s, 0, COL_p50)));
    ck_assert_double_eq(series_at(&s, 0, COL_breakers), 7);
    ck_assert_double_eq(series_at(&s, 0, COL_refused), 20);
    ck_assert_double_eq(series_at(&s, 0, COL_allowance), 25);
    ck_assert_double_eq(series_at(&s, 0, COL_busy), 2);
    ck_assert_double_eq(series_at(&s, 0, COL_workers), 4);
    ck_assert_double_eq(series_at(&s, 0, COL_wasted), 75);
    /* Cumulative counts add up over rows. */
    b = bucket(10500);
    series_add(&s, &b);
    ck_assert_double_eq(series_at(&s, 1, COL_duplicates), 10);
    ck_assert_double_eq(series_at(&s, 1, COL_quarantined), 4);
    /* A pipeline's dead letters are the quarantined calls and batch items
     * (2 + 30 a bucket), and alerts count up by level. */
    ck_assert_double_eq(series_at(&s, 0, COL_dead_letters), 32);
    ck_assert_double_eq(series_at(&s, 1, COL_dead_letters), 64);
    ck_assert_double_eq(series_at(&s, 1, COL_warnings), 2);
    ck_assert_double_eq(series_at(&s, 1, COL_critical), 6);
    series_fini(&s);
}
END_TEST

/* No successes: no latency; nothing ended: no success ratio; a policy
 * that reports no level: NaN, not 0 (a panel draws a gap, not a drop). */
START_TEST(missing_values_are_nan)
{
    series s;
    series_init(&s, 0.1);
    metrics_bucket b = bucket(0);
    b.successes = b.failures = 0;
    b.policy_level = -1;
    b.served = 0;
    series_add(&s, &b);
    ck_assert(isnan(series_at(&s, 0, COL_success)));
    ck_assert(isnan(series_at(&s, 0, COL_allowance)));
    ck_assert(isnan(series_at(&s, 0, COL_queue_wait)));
    series_fini(&s);
}
END_TEST

/* A bucket in which nothing happened (unlimited workers, no policy
 * level, no sample of any quantile), twice: every rate is 0 /s and every
 * running total 0 (an empty bucket is a count of none, and a NaN there
 * would stay in every later row of a total); exactly the eight figures
 * that need a sample are NaN (a gap): capacity and workers (unlimited),
 * success ratio (nothing ended), queue wait (nothing served), p50, p99,
 * the allowance (unreported) and wasted work (no service).  Walks
 * METRICS_LINES by form, so a line added with a `has` that a RATE or
 * SO_FAR figure cannot satisfy fails here. */
START_TEST(an_empty_bucket_is_zero_or_a_gap)
{
    series s;
    series_init(&s, 0.1);
    metrics_bucket b;
    memset(&b, 0, sizeof b);
    b.width_ns = 1000000000;
    b.capacity = UINT32_MAX;
    b.policy_level = -1;
    b.p50_bin = b.p99_bin = METRICS_NO_BIN;
    b.attempt_p50_bin = b.attempt_p99_bin = METRICS_NO_BIN;
    series_add(&s, &b);
    b.start_ns = b.width_ns;
    series_add(&s, &b);
    int gaps = 0;
    for (int c = 0; c < COL_COUNT; c++) {
        double v = series_at(&s, 1, (series_col)c);
        if (metrics_lines[c].form != MLF_AS_IS)
            ck_assert_msg(v == 0.0, "%s: %g, not 0", metrics_lines[c].csv, v);
        gaps += isnan(v);
    }
    ck_assert_int_eq(gaps, 8);
    ck_assert(isnan(series_at(&s, 1, COL_capacity)));
    ck_assert(isnan(series_at(&s, 1, COL_workers)));
    ck_assert(isnan(series_at(&s, 1, COL_success)));
    ck_assert(isnan(series_at(&s, 1, COL_queue_wait)));
    ck_assert(isnan(series_at(&s, 1, COL_p50)));
    ck_assert(isnan(series_at(&s, 1, COL_p99)));
    ck_assert(isnan(series_at(&s, 1, COL_allowance)));
    ck_assert(isnan(series_at(&s, 1, COL_wasted)));
    series_fini(&s);
}
END_TEST

/* 100 rows of 1 s ending at 1, 2, ... 100 s. */
START_TEST(time_lookups)
{
    series s;
    series_init(&s, 0.1);
    for (int i = 0; i < 100; i++) {
        metrics_bucket b = bucket(i * 1000);
        b.width_ns = 1000000000;
        b.offered = (uint64_t)i;
        series_add(&s, &b);
    }
    size_t from, to;
    series_range(&s, 10.0, 20.0, &from, &to); /* ends 10 .. 20 */
    ck_assert_uint_eq(from, 9);
    ck_assert_uint_eq(to, 20);
    ck_assert_double_eq(series_max(&s, COL_offered, from, to), 19);
    ck_assert_int_eq(series_find(&s, 10.5), 10); /* row [10, 11) */
    ck_assert_int_eq(series_find(&s, 0.0), 0);
    ck_assert_int_eq(series_find(&s, 100.5), -1);
    series_fini(&s);
}
END_TEST

/* Past SERIES_MAX_ROWS rows the series halves: rows twice as wide, means
 * averaged, cumulative counts kept, and it goes on accepting rows. */
START_TEST(long_runs_halve)
{
    series s;
    series_init(&s, 0.1);
    for (size_t i = 0; i <= SERIES_MAX_ROWS; i++) {
        metrics_bucket b = bucket((int64_t)i * 500);
        b.offered = i % 2 ? 90 : 30; /* 60/s and 180/s alternate */
        ck_assert_int_eq(series_add(&s, &b), 0);
    }
    ck_assert_uint_eq(s.n, SERIES_MAX_ROWS / 2 + 1);
    ck_assert_double_eq(s.width_s, 1.0);
    ck_assert_double_eq(series_at(&s, 0, COL_offered), 120);
    ck_assert_double_eq(series_at(&s, 0, COL_t), 1.0);
    /* The cumulative duplicates of the last row: 5 per bucket. */
    ck_assert_double_eq(series_at(&s, s.n - 1, COL_duplicates),
                        5.0 * (SERIES_MAX_ROWS + 1));
    ck_assert_double_eq(series_at(&s, s.n - 1, COL_critical),
                        3.0 * (SERIES_MAX_ROWS + 1));
    series_fini(&s);
}
END_TEST

Suite *series_suite(void)
{
    Suite *s = suite_create("series");
    TCase *tc = tcase_create("rows");
    tcase_add_test(tc, columns_from_a_bucket);
    tcase_add_test(tc, missing_values_are_nan);
    tcase_add_test(tc, an_empty_bucket_is_zero_or_a_gap);
    tcase_add_test(tc, time_lookups);
    tcase_add_test(tc, long_runs_halve);
    suite_add_tcase(s, tc);
    return s;
}
