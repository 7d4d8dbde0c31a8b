/*
 * check_units.c -- values as users write them.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "units.h"

START_TEST(durations)
{
    int64_t ns;
    sb_err e;
    ck_assert_int_eq(units_duration("250ms", &ns, &e), 0);
    ck_assert_int_eq(ns, 250 * NS_PER_MS);
    ck_assert_int_eq(units_duration("1.5s", &ns, &e), 0);
    ck_assert_int_eq(ns, 1500 * NS_PER_MS);
    ck_assert_int_eq(units_duration("2m", &ns, &e), 0);
    ck_assert_int_eq(ns, 120 * NS_PER_S);
    ck_assert_int_eq(units_duration("1h", &ns, &e), 0);
    ck_assert_int_eq(ns, 3600 * NS_PER_S);
    ck_assert_int_eq(units_duration("10 us", &ns, &e), 0);
    ck_assert_int_eq(ns, 10 * NS_PER_US);
    ck_assert_int_eq(units_duration("7ns", &ns, &e), 0);
    ck_assert_int_eq(ns, 7);
}
END_TEST

START_TEST(bad_durations)
{
    int64_t ns;
    sb_err e;
    ck_assert_int_ne(units_duration("5", &ns, &e), 0);
    ck_assert_str_eq(e.msg, "expected a duration with a unit (ns, us, ms, s, "
                            "m, h), such as 250ms or 2s, got '5' (no unit)");
    ck_assert_int_ne(units_duration("5 parsecs", &ns, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "unknown unit 'parsecs'"));
    ck_assert_int_ne(units_duration("-1s", &ns, &e), 0);
    ck_assert_str_eq(e.msg, "expected a non-negative duration, got '-1s'");
    ck_assert_int_ne(units_duration("infs", &ns, &e), 0);
    ck_assert_int_ne(units_duration("nan ms", &ns, &e), 0);
    ck_assert_int_ne(units_duration("", &ns, &e), 0);
    ck_assert_int_ne(units_duration("1e30h", &ns, &e), 0);
}
END_TEST

START_TEST(rates_and_probabilities)
{
    double x;
    sb_err e;
    ck_assert_int_eq(units_rate("100/s", &x, &e), 0);
    ck_assert_double_eq(x, 100.0);
    ck_assert_int_eq(units_rate("600/m", &x, &e), 0);
    ck_assert_double_eq(x, 10.0);
    ck_assert_int_eq(units_rate("36/h", &x, &e), 0);
    ck_assert_double_eq_tol(x, 0.01, 1e-15);
    ck_assert_int_ne(units_rate("100", &x, &e), 0);
    ck_assert_int_ne(units_rate("100/fortnight", &x, &e), 0);
    ck_assert_int_eq(units_probability("0.25", &x, &e), 0);
    ck_assert_double_eq(x, 0.25);
    ck_assert_int_ne(units_probability("1.5", &x, &e), 0);
    ck_assert_str_eq(e.msg,
                     "expected a probability between 0 and 1, got '1.5'");
}
END_TEST

START_TEST(distributions)
{
    dist d;
    sb_err e;
    ck_assert_int_eq(units_dist("exp(100ms)", &d, &e), 0);
    ck_assert_int_eq(d.kind, DIST_EXP);
    ck_assert_int_eq(d.mean_ns, 100 * NS_PER_MS);
    ck_assert_int_eq(units_dist("lognormal(80ms, 0.5)", &d, &e), 0);
    ck_assert_int_eq(d.kind, DIST_LOGNORMAL);
    ck_assert_int_eq(d.mean_ns, 80 * NS_PER_MS);
    ck_assert_double_eq(d.sigma, 0.5);
    ck_assert_int_eq(units_dist("3ms", &d, &e), 0);
    ck_assert_int_eq(d.kind, DIST_CONST);
    ck_assert_int_eq(d.mean_ns, 3 * NS_PER_MS);
    ck_assert_int_ne(units_dist("gamma(1s)", &d, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "unknown distribution 'gamma'"));
    ck_assert_int_ne(units_dist("lognormal(80ms)", &d, &e), 0);
    char buf[64];
    ck_assert_str_eq(units_fmt_dist(&(dist){DIST_EXP, 1500 * NS_PER_MS, 0},
                                    buf, sizeof buf),
                     "exp(1500ms)");
}
END_TEST

Suite *units_suite(void)
{
    Suite *s = suite_create("units");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, durations);
    tcase_add_test(tc, bad_durations);
    tcase_add_test(tc, rates_and_probabilities);
    tcase_add_test(tc, distributions);
    suite_add_tcase(s, tc);
    return s;
}
