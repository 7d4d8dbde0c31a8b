/*
 * check_validate_expect.c -- `stormbench validate` warns about an
 * [expect] assertion no run can pass (what it judges is not in the run),
 * and `validate --set` checks the settings `run --set` would run.  Each
 * warning is checked against the run itself: the same scenario run fails
 * that very assertion with "cannot be judged", so the warning is not a
 * guess.  Through the real binary.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static char path[1024];

/* A small open-loop scenario: 20 s, 50 requests/s in all, a server far
 * from busy, `faults` and `expect` as given. */
static const char *write_scenario(const char *name, const char *faults,
                                  const char *expect)
{
    char ini[4096];
    snprintf(ini, sizeof ini,
             "[scenario]\nname = x\nduration = 20s\nwarmup = 2s\n"
             "recovery_window = 2s\n"
             "[clients]\ncount = 50\nrate = 1/s\ntimeout = 1s\n"
             "[server]\nworkers = 8\nservice = const(5ms)\n"
             "[policy]\nname = exponential\n%s[expect]\n%s",
             faults, expect);
    snprintf(path, sizeof path, "%s", tu_write_temp(name, ini));
    return path;
}

/* Without a fault: recovery, the fault's phase and the steady state
 * cannot be judged, nor completion time in an open loop; success_min
 * can.  validate warns about exactly those five, and run fails exactly
 * those five, each "cannot be judged". */
START_TEST(no_fault_no_recovery)
{
    const char *f = write_scenario("vx-nofault.ini", "",
                                   "recovers_within = 10s\nmetastable = false\n"
                                   "during_fault_success_min = 0.5\n"
                                   "steady_goodput_min = 0.9\n"
                                   "completion_within = 30s\n"
                                   "success_min = 0.5\n");
    tu_output o;
    tu_stormbench(&o, (const char *[]){"validate", f, NULL});
    ck_assert_int_eq(o.status, 0);
    static const char *const keys[] = {
        "recovers_within", "metastable", "during_fault_success_min",
        "steady_goodput_min", "completion_within"};
    for (size_t i = 0; i < 5; i++) {
        char want[128];
        snprintf(want, sizeof want, "warning: [expect] %s: ", keys[i]);
        ck_assert_msg(strstr(o.err, want), "no warning for %s: %s", keys[i],
                      o.err);
    }
    ck_assert_int_eq(tu_count(o.err, "warning: [expect] "), 5);
    ck_assert_ptr_nonnull(
        strstr(o.err, "[expect] recovers_within: the scenario has no fault, so "
                      "there is no recovery to judge; it fails every run\n"));
    ck_assert_ptr_null(strstr(o.err, "] success_min:"));
    tu_output_free(&o);
    tu_stormbench(&o, (const char *[]){"run", f, NULL});
    ck_assert_int_eq(o.status, 1);
    for (size_t i = 0; i < 5; i++) {
        char want[128];
        snprintf(want, sizeof want, "FAIL  %s: ", keys[i]);
        const char *l = strstr(o.out, want);
        ck_assert_msg(l != NULL, "run did not fail %s", keys[i]);
        /* Completion in an open loop fails as "did not complete" (some
         * request is always open at the end) or "cannot be judged". */
        const char *nl = strchr(l, '\n');
        const char *why =
            strstr(l, i == 4 ? "did not complete" : "cannot be judged");
        if (i == 4 && (why == NULL || why > nl))
            why = strstr(l, "cannot be judged");
        ck_assert_msg(why != NULL && why < nl, "%.*s", (int)(nl - l), l);
    }
    ck_assert_ptr_nonnull(strstr(o.out, "PASS  success_min: "));
    tu_output_free(&o);
}
END_TEST

/* A fault that lasts to the end of the run leaves no recovery phase and
 * no steady state; one that ends in time leaves both, and no warning. */
START_TEST(fault_to_the_end)
{
    static const char fault[] =
        "[fault.slow]\ntype = latency\nstart = 10s\nduration = %s\n"
        "delay = 10ms\n";
    static const char expect[] = "recovery_amplification_max = 2\n"
                                 "steady_success_min = 0.5\n"
                                 "recovers_within = 5s\n";
    char text[256];
    snprintf(text, sizeof text, fault, "10s");
    const char *f = write_scenario("vx-end.ini", text, expect);
    tu_output o;
    tu_stormbench(&o, (const char *[]){"validate", f, NULL});
    ck_assert_int_eq(o.status, 0);
    ck_assert_ptr_nonnull(strstr(
        o.err, "[expect] recovery_amplification_max: the last fault lasts "
               "until the end of the run; it fails every run\n"));
    ck_assert_ptr_nonnull(strstr(o.err, "[expect] steady_success_min: "));
    ck_assert_ptr_nonnull(strstr(o.err, "[expect] recovers_within: "));
    tu_output_free(&o);
    tu_stormbench(&o, (const char *[]){"run", f, NULL});
    ck_assert_int_eq(o.status, 1);
    ck_assert_ptr_nonnull(strstr(o.out, "FAIL  recovery_amplification_max: "
                                        "cannot be judged"));
    ck_assert_ptr_nonnull(strstr(o.out, "FAIL  steady_success_min: cannot "
                                        "be judged"));
    tu_output_free(&o);
    /* Ending at 15 s leaves 5 s: the recovery, then a 2 s window. */
    snprintf(text, sizeof text, fault, "5s");
    f = write_scenario("vx-end.ini", text, expect);
    tu_stormbench(&o, (const char *[]){"validate", f, NULL});
    ck_assert_int_eq(o.status, 0);
    ck_assert_ptr_null(strstr(o.err, "[expect]"));
    tu_output_free(&o);
}
END_TEST

/* validate --set overrides like run --set: the warning goes when the
 * override makes the assertion judgeable, an override's mistake is named
 * as --set's, and it applies to every file given. */
START_TEST(set_like_run)
{
    const char *f = write_scenario("vx-set.ini", "", "recovers_within = 5s\n");
    char a[1024];
    snprintf(a, sizeof a, "%s", f);
    tu_output o;
    tu_stormbench(&o, (const char *[]){"validate", a, NULL});
    ck_assert_ptr_nonnull(strstr(o.err, "[expect] recovers_within: "));
    tu_output_free(&o);
    /* An outage from 5 s to 7 s: a baseline from 2 s, and 13 s after it
     * for the 2 s recovery window. */
    tu_stormbench(&o,
                  (const char *[]){"validate", "--set", "fault.out.type=outage",
                                   "--set", "fault.out.start=5s", "--set",
                                   "fault.out.duration=2s", a, NULL});
    ck_assert_int_eq(o.status, 0);
    ck_assert_ptr_null(strstr(o.err, "[expect]"));
    tu_output_free(&o);
    tu_stormbench(
        &o, (const char *[]){"validate", a, "--set", "server.workerz=3", NULL});
    ck_assert_int_eq(o.status, 2);
    ck_assert_ptr_nonnull(strstr(o.err, "--set server.workerz=3: [server] "
                                        "unknown key 'workerz' (did you "
                                        "mean 'workers'?)"));
    tu_output_free(&o);
    /* Two files, one --set: both get it (a key whose effect shows in
     * validate's "ok" line: the scenario's name). */
    tu_stormbench(
        &o, (const char *[]){"validate", "--set", "scenario.name=renamed", a,
                             TU_SOURCE("scenarios/retry-storm.ini"), NULL});
    ck_assert_int_eq(o.status, 0);
    ck_assert_int_eq(tu_count(o.out, ": ok (renamed; "), 2);
    tu_output_free(&o);
}
END_TEST

Suite *validate_expect_suite(void)
{
    Suite *s = suite_create("validate_expect");
    TCase *tc = tcase_create("validate_expect");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, no_fault_no_recovery);
    tcase_add_test(tc, fault_to_the_end);
    tcase_add_test(tc, set_like_run);
    suite_add_tcase(s, tc);
    return s;
}
