/*
 * check_simtime.c -- time arithmetic that cannot overflow: the checked
 * conversion and the saturating addition of base/simtime.h, then the
 * extreme inputs that used to overflow (UBSan reported each one; the
 * sanitizer build, with float-cast-overflow on, is the real check of these
 * runs), and rates too fast for the engine's 1 ns resolution.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "testutil.h"

START_TEST(conversion_rounds_saturates_and_rejects)
{
    int64_t ns;
    ck_assert_int_eq(simtime_from_ns(0.0, &ns), 0);
    ck_assert_int_eq(ns, 0);
    ck_assert_int_eq(simtime_from_ns(0.49, &ns), 0);
    ck_assert_int_eq(ns, 0);
    ck_assert_int_eq(simtime_from_ns(0.5, &ns), 0); /* half up */
    ck_assert_int_eq(ns, 1);
    ck_assert_int_eq(simtime_from_ns(2.5, &ns), 0);
    ck_assert_int_eq(ns, 3);
    ck_assert_int_eq(simtime_from_s(1.25, &ns), 0);
    ck_assert_int_eq(ns, 1250000000);
    /* Past the end of time: the end of time (1e21 ns is the mean gap at
     * 1e-12/s; 1e300 s at 1e-300/s). */
    ck_assert_int_eq(simtime_from_ns(1e21, &ns), 0);
    ck_assert_int_eq(ns, SIMTIME_END);
    ck_assert_int_eq(simtime_from_s(1e300, &ns), 0);
    ck_assert_int_eq(ns, SIMTIME_END);
    ck_assert_int_eq(simtime_from_ns((double)SIMTIME_END, &ns), 0);
    ck_assert_int_eq(ns, SIMTIME_END);
    /* Not durations: -1, with the documented values. */
    ck_assert_int_eq(simtime_from_s(INFINITY, &ns), -1);
    ck_assert_int_eq(ns, SIMTIME_END);
    ck_assert_int_eq(simtime_from_s(NAN, &ns), -1);
    ck_assert_int_eq(ns, 0);
    ck_assert_int_eq(simtime_from_s(-INFINITY, &ns), -1);
    ck_assert_int_eq(ns, 0);
    ck_assert_int_eq(simtime_from_s(-1e-9, &ns), -1);
    ck_assert_int_eq(ns, 0);
}
END_TEST

START_TEST(addition_saturates)
{
    ck_assert_int_eq(simtime_add(3, 4), 7);
    ck_assert_int_eq(simtime_add(SIMTIME_END - 5, 5), SIMTIME_END);
    ck_assert_int_eq(simtime_add(SIMTIME_END - 5, 6), SIMTIME_END);
    ck_assert_int_eq(simtime_add(SIMTIME_END, SIMTIME_END), SIMTIME_END);
    /* Even operands past the end (INT64_MAX is "no deadline") give the
     * end, without overflowing. */
    ck_assert_int_eq(simtime_add(INT64_MAX, INT64_MAX), SIMTIME_END);
    ck_assert_int_eq(simtime_add(0, INT64_MAX), SIMTIME_END);
    /* The headroom simtime.h promises: four ends still fit in an int64. */
    ck_assert(SIMTIME_END <= INT64_MAX / 4);
}
END_TEST

#define OPEN(rate)                                                             \
    "[scenario]\nname = t\nduration = 60s\nwarmup = 0s\n"                      \
    "[clients]\ncount = 10\nrate = " rate "\n"                                 \
    "[server]\nservice = const(10ms)\n[policy]\nname = none\n"

/* rate = 1e-12/s: a mean gap of 1e21 ns (31 700 years), past the end of
 * time, used to be converted to an int64 as is.  Each of the 10 clients'
 * first request would come within the 60 s run with probability
 * 1 - exp(-60e-12) = 6e-11: none comes. */
START_TEST(tiny_rate_saturates)
{
    tu_sim *t = tu_sim_run(OPEN("1e-12/s"), NULL, NULL, 0);
    ck_assert_uint_eq(t->sum.offered, 0);
    ck_assert_uint_eq(t->sum.events, 0);
    tu_sim_free(t);
}
END_TEST

/* rate = 1e-300/s: the mean gap in ns, 1e9 / 1e-300, is not even a double
 * (1e309 > 1.8e308); the gap is the end of time, not NaN. */
START_TEST(rate_below_double_range_saturates)
{
    tu_sim *t = tu_sim_run(OPEN("1e-300/s"), NULL, NULL, 0);
    ck_assert_uint_eq(t->sum.offered, 0);
    tu_sim_free(t);
}
END_TEST

/* A saturated arrival means "never", and a load spike must not rescale it
 * back into the run: one client at 1e-13/s draws a first gap with mean
 * 1e22 ns (saturated at the end of time, 2e18 ns).  Even exactly
 * rescaled, the gap would fall inside this 555555 h run (just under the
 * end of time) under the x 2 spike with probability 1 - exp(-4e18/1e22) =
 * 0.04 %; rescaling the saturated time instead would put the arrival at
 * about 1e18 ns, half way through the run. */
START_TEST(never_stays_never_under_a_load_spike)
{
    tu_sim *t = tu_sim_run(
        "[scenario]\nname = t\nduration = 555555h\nwarmup = 0s\n"
        "bucket = 1000h\nrecovery_window = 1000h\n"
        "[clients]\ncount = 1\nrate = 1e-13/s\n"
        "[server]\nservice = const(10ms)\n[policy]\nname = none\n"
        "[fault.a]\ntype = load_spike\nstart = 10s\nduration = 555000h\n"
        "multiplier = 2\n",
        NULL, NULL, 0);
    ck_assert_uint_eq(t->sum.offered, 0);
    tu_sim_free(t);
}
END_TEST

/* Five overlapping latency faults of 555555 h (just under the end of
 * time) add up to 1e19 ns, past INT64_MAX: the sum saturates at the end
 * of time, so from t = 10 s no answer ever arrives and every attempt
 * times out after its 1 s.  Before 10 s every request (10 ms of service)
 * succeeds and none times out. */
START_TEST(latency_faults_add_up_to_the_end_of_time)
{
    char ini[2048] = "[scenario]\nname = t\nduration = 20s\nwarmup = 0s\n"
                     "[clients]\ncount = 10\nrate = 5/s\ntimeout = 1s\n"
                     "[server]\nservice = const(10ms)\n"
                     "[policy]\nname = none\n";
    for (int i = 0; i < 5; i++) {
        char f[160];
        snprintf(f, sizeof f,
                 "[fault.slow%d]\ntype = latency\nstart = 10s\n"
                 "duration = 555555h\ndelay = 555555h\n",
                 i);
        strcat(ini, f);
    }
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    const metrics *m = sim_metrics(t->sim);
    for (size_t b = 0; b < 9; b++) {
        ck_assert_uint_gt(m->buckets[b].successes, 0);
        ck_assert_uint_eq(m->buckets[b].timeouts, 0);
    }
    for (size_t b = 11; b < 20; b++) {
        ck_assert_uint_eq(m->buckets[b].successes, 0);
        ck_assert_uint_gt(m->buckets[b].timeouts, 0);
    }
    /* The faults run past the end: recovery cannot be judged. */
    ck_assert(!t->sum.recovery_judged);
    ck_assert_double_eq(t->sum.last_fault_end_s, 10.0 + 555555.0 * 3600);
    tu_sim_free(t);
}
END_TEST

/* lognormal(1h, 5) service times: e^(5 z) hours reaches e^43 h for the
 * largest z Box-Muller makes, and 0.4 % of draws (z > ln(2e9 s / 3600 s)
 * / 5 = 2.65) are past the end of time, where they saturate.  1000
 * requests start at t = 0 on unlimited workers, with a 1 h timeout and no
 * network delay: a request succeeds iff its service is under 1 h, the
 * median, so successes are Binomial(1000, 1/2): 500, sd 15.8, and 5 sd is
 * 421..579.  Every other request timed out. */
START_TEST(lognormal_service_past_the_end_of_time)
{
    tu_sim *t = tu_sim_run(
        "[scenario]\nname = t\nduration = 2h\nwarmup = 0s\nbucket = 1m\n"
        "[clients]\ncount = 1000\narrival = once\ntimeout = 1h\n"
        "[server]\nworkers = unlimited\nservice = lognormal(1h, 5)\n"
        "[policy]\nname = none\n",
        NULL, NULL, 0);
    ck_assert_uint_eq(t->sum.offered, 1000);
    ck_assert_uint_ge(t->sum.successes, 421);
    ck_assert_uint_le(t->sum.successes, 579);
    ck_assert_uint_eq(t->sum.timeouts, 1000 - t->sum.successes);
    ck_assert_double_le(t->sum.latency_mean_ms, 3600e3);
    tu_sim_free(t);
}
END_TEST

/* Long times that fit.  A fault from 555555 h lasting 555555 h would end
 * at 4e18 ns, past the end of time: the saturating sum makes its end the
 * end of time, 2e9 s, in the loader's checks and in the summary.  A
 * timeout and a deadline of 555555 h saturate in now + timeout.  The
 * fault starts after the run: a warning, and a fault-free run. */
START_TEST(long_times_that_fit_run)
{
    tu_sim *t = tu_sim_run(
        "[scenario]\nname = t\nduration = 60s\nwarmup = 0s\n"
        "[clients]\ncount = 10\nrate = 1/s\ntimeout = 555555h\n"
        "deadline = 555555h\n"
        "[server]\nservice = const(10ms)\n[policy]\nname = none\n"
        "[fault.late]\ntype = outage\nstart = 555555h\nduration = 555555h\n",
        NULL, NULL, 0);
    ck_assert_ptr_nonnull(strstr(t->sc.warnings, "starts after the run"));
    ck_assert_uint_gt(t->sum.successes, 0);
    ck_assert_uint_eq(t->sum.failures, 0);
    ck_assert_double_eq(t->sum.last_fault_end_s, 2e9);
    tu_sim_free(t);
}
END_TEST

/* The rate limit of a client's arrivals: a mean gap of at least 100 ns,
 * i.e. 1e7/s per client (scenarios/loader.c says why), peak load spikes
 * included.  Loaded, not run: the limit is a load-time check. */
static int load(const char *ini, scenario *sc, sb_err *e)
{
    const char *path = tu_write_temp("rate.ini", ini);
    return scenario_load(path, NULL, 0, sc, e);
}

START_TEST(rates_finer_than_the_resolution_are_refused)
{
    static scenario sc;
    sb_err e;
    ck_assert_int_eq(load(OPEN("1e7/s"), &sc, &e), 0);
    ck_assert_int_eq(load(OPEN("6e8/m"), &sc, &e), 0); /* = 1e7/s */
    ck_assert_int_ne(load(OPEN("1.0001e7/s"), &sc, &e), 0);
    ck_assert_int_ne(load(OPEN("1e10/s"), &sc, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, ":7: [clients] rate: 1e+10/s per "
                                        "client is too fast"));
    /* A closed loop has no rate; 1e7/s is fine until a spike of x2. */
    const char *spiked =
        "[scenario]\nname = t\nduration = 60s\nwarmup = 0s\n"
        "[clients]\ncount = 10\nrate = 1e7/s\n"
        "[server]\nservice = const(10ms)\n[policy]\nname = none\n"
        "[fault.a]\ntype = load_spike\nstart = 10s\nduration = 10s\n"
        "multiplier = 2\n";
    ck_assert_int_ne(load(spiked, &sc, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "1e+07/s per client, x 2 during "
                                        "load spikes, is too fast"));
}
END_TEST

/* Spikes multiply only while they overlap: two x 4 spikes one after the
 * other peak at x 4 (rate 2e6/s: 8e6/s, allowed); overlapping, at x 16
 * (3.2e7/s, refused). */
START_TEST(peak_spike_counts_only_overlaps)
{
    static scenario sc;
    sb_err e;
    char ini[1024];
    const char *fmt =
        "[scenario]\nname = t\nduration = 60s\nwarmup = 0s\n"
        "[clients]\ncount = 10\nrate = 2e6/s\n"
        "[server]\nservice = const(10ms)\n[policy]\nname = none\n"
        "[fault.a]\ntype = load_spike\nstart = 10s\nduration = 10s\n"
        "multiplier = 4\n"
        "[fault.b]\ntype = load_spike\nstart = %s\nduration = 10s\n"
        "multiplier = 4\n";
    snprintf(ini, sizeof ini, fmt, "20s");
    ck_assert_int_eq(load(ini, &sc, &e), 0);
    snprintf(ini, sizeof ini, fmt, "15s");
    ck_assert_int_ne(load(ini, &sc, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "x 16 during load spikes"));
}
END_TEST

Suite *simtime_suite(void)
{
    Suite *s = suite_create("simtime");
    TCase *tc = tcase_create("overflow");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, conversion_rounds_saturates_and_rejects);
    tcase_add_test(tc, addition_saturates);
    tcase_add_test(tc, tiny_rate_saturates);
    tcase_add_test(tc, rate_below_double_range_saturates);
    tcase_add_test(tc, never_stays_never_under_a_load_spike);
    tcase_add_test(tc, latency_faults_add_up_to_the_end_of_time);
    tcase_add_test(tc, lognormal_service_past_the_end_of_time);
    tcase_add_test(tc, long_times_that_fit_run);
    tcase_add_test(tc, rates_finer_than_the_resolution_are_refused);
    tcase_add_test(tc, peak_spike_counts_only_overlaps);
    suite_add_tcase(s, tc);
    return s;
}
