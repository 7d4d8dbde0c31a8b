/*
 * check_units.c -- values as users write them.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
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
    /* The usual longer spellings. */
    static const struct {
        const char *text;
        int64_t ns;
    } longer[] = {
        {"5sec", 5 * NS_PER_S},
        {"5 secs", 5 * NS_PER_S},
        {"1 second", NS_PER_S},
        {"30seconds", 30 * NS_PER_S},
        {"2min", 120 * NS_PER_S},
        {"2 minutes", 120 * NS_PER_S},
        {"1minute", 60 * NS_PER_S},
        {"3mins", 180 * NS_PER_S},
        {"1.5hours", 5400 * NS_PER_S},
        {"2hr", 7200 * NS_PER_S},
        {"1 hour", 3600 * NS_PER_S},
        {"250msec", 250 * NS_PER_MS},
        {"3 milliseconds", 3 * NS_PER_MS},
        {"40usec", 40 * NS_PER_US},
        {"3\xc2\xb5s", 3 * NS_PER_US},
        {"2 microseconds", 2 * NS_PER_US},
        {"9nsec", 9},
        {"1 nanosecond", 1},
    };
    for (size_t i = 0; i < sizeof longer / sizeof *longer; i++) {
        ck_assert_msg(units_duration(longer[i].text, &ns, &e) == 0, "%s: %s",
                      longer[i].text, e.msg);
        ck_assert_int_eq(ns, longer[i].ns);
    }
}
END_TEST

/* A bare 0 is a duration: zero of any unit is the same time, so
 * "timeout = 0" and "delay = 0" mean what they say (it was refused for
 * want of a unit).  Any other number still needs one. */
START_TEST(bare_zero_is_a_duration)
{
    int64_t ns = 5;
    sb_err e;
    static const char *const zeros[] = {"0", "0 ", "0.0", "0e3", "-0"};
    for (size_t i = 0; i < sizeof zeros / sizeof *zeros; i++) {
        ns = 5;
        ck_assert_msg(units_duration(zeros[i], &ns, &e) == 0, "'%s': %s",
                      zeros[i], e.msg);
        ck_assert_int_eq(ns, 0);
    }
    ck_assert_int_ne(units_duration("0.001", &ns, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "(no unit)"));
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

/* The end of simulated time is 2e18 ns = 2e9 s (base/simtime.h): 555555h
 * (1.999998e18 ns) is a duration, 2000000h (7.2e18 ns, which used to be
 * accepted and then overflowed when added to another time) is refused
 * with the limit; so is 555556h, the first whole number of hours past it
 * (2.0000016e18 ns). */
START_TEST(durations_end_at_the_end_of_time)
{
    int64_t ns;
    sb_err e;
    ck_assert_int_eq(units_duration("555555h", &ns, &e), 0);
    ck_assert_int_eq(ns, INT64_C(555555) * 3600 * NS_PER_S);
    ck_assert_int_eq(units_duration("2000000000s", &ns, &e), 0);
    ck_assert_int_eq(ns, SIMTIME_END);
    ck_assert_int_ne(units_duration("555556h", &ns, &e), 0);
    ck_assert_int_ne(units_duration("2000000h", &ns, &e), 0);
    ck_assert_str_eq(e.msg, "duration '2000000h' is too long: at most "
                            "2000000000s (about 63 years), the end of "
                            "simulated time");
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
    ck_assert_int_eq(units_rate("12/min", &x, &e), 0);
    ck_assert_double_eq(x, 0.2);
    ck_assert_int_eq(units_rate("5/sec", &x, &e), 0);
    ck_assert_double_eq(x, 5.0);
    ck_assert_int_eq(units_rate("7200/hour", &x, &e), 0);
    ck_assert_double_eq(x, 2.0);
    ck_assert_int_eq(units_rate("60/minute", &x, &e), 0);
    ck_assert_double_eq(x, 1.0);
    /* Per millisecond is not a rate unit: a typo for /s more often. */
    ck_assert_int_ne(units_rate("5/ms", &x, &e), 0);
    ck_assert_int_ne(units_rate("100", &x, &e), 0);
    ck_assert_int_ne(units_rate("100/fortnight", &x, &e), 0);
    ck_assert_int_eq(units_probability("0.25", &x, &e), 0);
    ck_assert_double_eq(x, 0.25);
    ck_assert_int_ne(units_probability("1.5", &x, &e), 0);
    ck_assert_str_eq(e.msg, "expected a probability between 0 and 1, or a "
                            "percentage from 0% to 100%, got '1.5'");
    /* As [expect] and GUI scripts read shares: 50% is 50 / 100. */
    ck_assert_int_eq(units_probability("50%", &x, &e), 0);
    ck_assert_double_eq(x, 0.5);
    ck_assert_int_eq(units_probability("2.5 %", &x, &e), 0);
    ck_assert_double_eq_tol(x, 0.025, 1e-15);
    ck_assert_int_ne(units_probability("150%", &x, &e), 0);
    ck_assert_str_eq(e.msg, "expected a probability between 0 and 1, or a "
                            "percentage from 0% to 100%, got '150%'");
    ck_assert_int_ne(units_probability("-1%", &x, &e), 0);
    ck_assert_int_ne(units_probability("50%%", &x, &e), 0);
}
END_TEST

/* A share is a number or a percentage; "50%" is 50 / 100.  The range is
 * the caller's: "150%" reads as 1.5 here. */
START_TEST(shares_and_percentages)
{
    double x;
    sb_err e;
    ck_assert_int_eq(units_share("0.25", &x, &e), 0);
    ck_assert_double_eq(x, 0.25);
    ck_assert_int_eq(units_share("50%", &x, &e), 0);
    ck_assert_double_eq(x, 0.5);
    ck_assert_int_eq(units_share("99.5 %", &x, &e), 0);
    ck_assert_double_eq_tol(x, 0.995, 1e-15);
    ck_assert_int_eq(units_share("150%", &x, &e), 0);
    ck_assert_double_eq(x, 1.5);
    ck_assert_int_ne(units_share("%", &x, &e), 0);
    ck_assert_str_eq(e.msg, "expected a number or a percentage, got '%'");
    ck_assert_int_ne(units_share("50%%", &x, &e), 0);
    ck_assert_int_ne(units_share("50% off", &x, &e), 0);
    ck_assert_int_ne(units_share("half", &x, &e), 0);
}
END_TEST

/* A seed: digits only, the whole uint64 range and not one past it. */
START_TEST(whole_numbers_to_uint64_max)
{
    uint64_t v;
    sb_err e;
    ck_assert_int_eq(units_u64("0", &v, &e), 0);
    ck_assert_uint_eq(v, 0);
    ck_assert_int_eq(units_u64("18446744073709551615", &v, &e), 0);
    ck_assert_uint_eq(v, UINT64_MAX);
    ck_assert_int_eq(units_u64("9223372036854775808", &v, &e), 0);
    ck_assert_uint_eq(v, UINT64_C(1) << 63);
    static const char *const bad[] = {
        "18446744073709551616", "-1", "+7", " 7", "7s", "", "1e3"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_int_ne(units_u64(bad[i], &v, &e), 0);
        char want[96];
        snprintf(want, sizeof want,
                 "expected a whole number from 0 to "
                 "18446744073709551615, got '%s'",
                 bad[i]);
        ck_assert_str_eq(e.msg, want);
    }
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
    dist shown = {.kind = DIST_EXP, .mean_ns = 1500 * NS_PER_MS};
    ck_assert_str_eq(units_fmt_dist(&shown, buf, sizeof buf), "exp(1500ms)");
}
END_TEST

/* normal(MEAN, SD) and uniform(A, B): two durations each, parsed into the
 * fields engine_sample reads, and printed back as written. */
START_TEST(normal_and_uniform)
{
    dist d;
    sb_err e;
    char buf[64];
    ck_assert_int_eq(units_dist("normal(100ms, 20ms)", &d, &e), 0);
    ck_assert_int_eq(d.kind, DIST_NORMAL);
    ck_assert_int_eq(d.mean_ns, 100 * NS_PER_MS);
    ck_assert_int_eq(d.sd_ns, 20 * NS_PER_MS);
    ck_assert_str_eq(units_fmt_dist(&d, buf, sizeof buf),
                     "normal(100ms, 20ms)");
    ck_assert_int_eq(units_dist("normal( 0s ,1.5s )", &d, &e), 0);
    ck_assert_int_eq(d.mean_ns, 0);
    ck_assert_int_eq(d.sd_ns, 1500 * NS_PER_MS);
    /* SD 0 is a constant, as lognormal's sigma 0 is. */
    ck_assert_int_eq(units_dist("normal(5ms, 0s)", &d, &e), 0);
    ck_assert_int_eq(units_dist("uniform(50ms, 150ms)", &d, &e), 0);
    ck_assert_int_eq(d.kind, DIST_UNIFORM);
    ck_assert_int_eq(d.lo_ns, 50 * NS_PER_MS);
    ck_assert_int_eq(d.hi_ns, 150 * NS_PER_MS);
    ck_assert_int_eq(d.mean_ns, 100 * NS_PER_MS); /* the midpoint */
    ck_assert_str_eq(units_fmt_dist(&d, buf, sizeof buf),
                     "uniform(50ms, 150ms)");
    ck_assert_int_eq(units_dist("uniform(1s, 1s)", &d, &e), 0);
}
END_TEST

START_TEST(bad_normal_and_uniform)
{
    static const struct {
        const char *in, *msg;
    } bad[] = {
        {"normal(100ms)", "in 'normal(100ms)': normal takes a mean and a "
                          "standard deviation, such as normal(100ms, 20ms)"},
        {"normal(1s, 2s, 3s)", "in 'normal(1s, 2s, 3s)': normal takes a mean "
                               "and a standard deviation, such as "
                               "normal(100ms, 20ms)"},
        {"normal(100ms, 0.5)",
         "in 'normal(100ms, 0.5)': standard deviation: expected a duration "
         "with a unit (ns, us, ms, s, m, h), such as 250ms or 2s, got '0.5' "
         "(no unit)"},
        {"normal(-1s, 1s)", "in 'normal(-1s, 1s)': mean: expected a "
                            "non-negative duration, got '-1s'"},
        {"normal(1s, -5ms)", "in 'normal(1s, -5ms)': standard deviation: "
                             "expected a non-negative duration, got '-5ms'"},
        {"uniform(1s)", "in 'uniform(1s)': uniform takes a low and a high "
                        "end, such as uniform(50ms, 150ms)"},
        {"uniform(2s, 1s)", "in 'uniform(2s, 1s)': the low end '2s' is above "
                            "the high end '1s'"},
        {"uniform(fast, 1s)",
         "in 'uniform(fast, 1s)': low end: expected a duration with a unit "
         "(ns, us, ms, s, m, h), such as 250ms or 2s, got 'fast'"},
        {"uniform(0s, 2000000h)",
         "in 'uniform(0s, 2000000h)': high end: duration '2000000h' is too "
         "long: at most 2000000000s (about 63 years), the end of simulated "
         "time"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        dist d;
        sb_err e;
        ck_assert_int_ne(units_dist(bad[i].in, &d, &e), 0);
        ck_assert_str_eq(e.msg, bad[i].msg);
    }
}
END_TEST

Suite *units_suite(void)
{
    Suite *s = suite_create("units");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, durations);
    tcase_add_test(tc, bad_durations);
    tcase_add_test(tc, bare_zero_is_a_duration);
    tcase_add_test(tc, rates_and_probabilities);
    tcase_add_test(tc, shares_and_percentages);
    tcase_add_test(tc, whole_numbers_to_uint64_max);
    tcase_add_test(tc, distributions);
    tcase_add_test(tc, durations_end_at_the_end_of_time);
    tcase_add_test(tc, normal_and_uniform);
    tcase_add_test(tc, bad_normal_and_uniform);
    suite_add_tcase(s, tc);
    return s;
}
