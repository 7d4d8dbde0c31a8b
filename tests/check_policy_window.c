/*
 * check_policy_window.c -- the sliding window of counters the budgets,
 * the throttle and the time-window breaker keep per client: what it
 * still counts and when a count leaves it.
 */
#include <check.h>
#include <stdlib.h>

#include "window.h"

static const window_shape w = {1.0, 10, 2}; /* 10 slices of 1 s */
static void *mem;

static void setup(void)
{
    mem = calloc(1, window_bytes(&w));
}

static void teardown(void)
{
    free(mem);
}

/* 8 bytes of clock and 10 x 2 counters of 8 bytes. */
START_TEST(size_is_clock_plus_counters)
{
    ck_assert_uint_eq(window_bytes(&w), 8 + 10 * 2 * 8);
}
END_TEST

/* A count made at t (slice floor(t)) counts while the slice of now is
 * less than 10 slices later: made at 0.5 s, counted at 9.999 s (slice 9),
 * gone at 10.0 s (slice 10).  Counters are independent. */
START_TEST(count_leaves_after_slices_x_slice)
{
    window_add(&w, mem, 0.5, 0, 3);
    window_add(&w, mem, 0.5, 1, 7);
    ck_assert_int_eq(window_sum(&w, mem, 9.999, 0), 3);
    ck_assert_int_eq(window_sum(&w, mem, 9.999, 1), 7);
    ck_assert_int_eq(window_sum(&w, mem, 10.0, 0), 0);
    ck_assert_int_eq(window_sum(&w, mem, 10.0, 1), 0);
}
END_TEST

/* Counts age one slice at a time: 1 at each of t = 0 .. 9 sums to 10 at
 * 9.5 s; at 10.5 s the t = 0 count is gone (9); at 14.5 s five are gone
 * (5).  Negative amounts subtract (retry_budget withdraws). */
START_TEST(slices_age_one_at_a_time)
{
    for (int t = 0; t < 10; t++)
        window_add(&w, mem, t, 0, 1);
    ck_assert_int_eq(window_sum(&w, mem, 9.5, 0), 10);
    ck_assert_int_eq(window_sum(&w, mem, 10.5, 0), 9);
    ck_assert_int_eq(window_sum(&w, mem, 14.5, 0), 5);
    window_add(&w, mem, 14.5, 0, -2);
    ck_assert_int_eq(window_sum(&w, mem, 14.5, 0), 3);
}
END_TEST

/* A jump of many windows forgets everything, and the rows it reuses
 * start from zero; clear forgets without moving the clock. */
START_TEST(long_gaps_and_clear)
{
    window_add(&w, mem, 3.0, 0, 5);
    window_add(&w, mem, 1000.0, 0, 1);
    ck_assert_int_eq(window_sum(&w, mem, 1000.0, 0), 1);
    window_add(&w, mem, 1003.0, 0, 1); /* the row slice 3 used */
    ck_assert_int_eq(window_sum(&w, mem, 1003.0, 0), 2);
    window_clear(&w, mem);
    ck_assert_int_eq(window_sum(&w, mem, 1003.0, 0), 0);
    window_add(&w, mem, 1003.5, 0, 4);
    ck_assert_int_eq(window_sum(&w, mem, 1012.9, 0), 4);
}
END_TEST

Suite *policy_window_suite(void)
{
    Suite *s = suite_create("policy_window");
    TCase *tc = tcase_create("window");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, size_is_clock_plus_counters);
    tcase_add_test(tc, count_leaves_after_slices_x_slice);
    tcase_add_test(tc, slices_age_one_at_a_time);
    tcase_add_test(tc, long_gaps_and_clear);
    suite_add_tcase(s, tc);
    return s;
}
