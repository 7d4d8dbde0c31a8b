/*
 * check_validate_deadline.c -- `stormbench validate` warns when a policy's
 * worst-case retry delays add up to more than half the scenario's
 * deadline (the rule: retries x delay < SLA/2), and reports a
 * policy's errors as the file's.  Through the real binary.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define EXAMPLE SB_BUILD_DIR "/policies/examples/libcapped_backoff.so"
#define SBT(v) SB_BUILD_DIR "/tests/plugins/libsbt_" v ".so"

static tu_output o;
static char path[1024];

static void teardown(void)
{
    tu_output_free(&o);
}

/* Validate a scenario with 100 ms attempt timeouts, the given deadline,
 * extra [clients] lines and [policy] lines; returns the exit status. */
static int validate(const char *deadline, const char *clients,
                    const char *policy)
{
    char ini[2048];
    snprintf(ini, sizeof ini,
             "[scenario]\nname = budget\nduration = 60s\n"
             "[clients]\ntimeout = 100ms\ndeadline = %s\n%s"
             "[policy]\n%s",
             deadline, clients, policy);
    snprintf(path, sizeof path, "%s", tu_write_temp("budget.ini", ini));
    tu_output_free(&o);
    return tu_stormbench(&o, (const char *[]){"validate", path, NULL});
}

/* The whole of stderr is one warning whose text after the path is want. */
static void assert_warning(const char *want)
{
    char line[2048];
    snprintf(line, sizeof line, "%s: warning: [policy] %s\n", path, want);
    ck_assert_str_eq(o.err, line);
    ck_assert_int_eq(o.status, EXIT_OK);
    ck_assert_ptr_nonnull(strstr(o.out, ": ok ("));
}

static void assert_quiet(void)
{
    ck_assert_msg(o.status == EXIT_OK, "exit %d: %s", o.status, o.err);
    ck_assert_str_eq(o.err, "");
}

/* fixed 1 s x 4 retries (5 attempts) = 4 s > 6 s / 2.  With the five
 * 100 ms timeouts a request takes 4.5 s. */
START_TEST(fixed_over_half_warns)
{
    validate("6s", "", "name = fixed\ndelay = 1s\nmax_attempts = 5\n");
    assert_warning("fixed: worst-case retry delay 4 s (4 retries of a read, "
                   "every attempt timing out, jitter at its maximum) is "
                   "over half the 6s [clients] deadline; keep retries x "
                   "delay under deadline/2 so the attempts have time (4.5 s "
                   "with the 5 attempts' 100ms timeouts)");
}
END_TEST

/* 3 retries x 1 s = 3 s: exactly half is within the rule. */
START_TEST(exactly_half_is_quiet)
{
    validate("6s", "", "name = fixed\ndelay = 1s\nmax_attempts = 4\n");
    assert_quiet();
}
END_TEST

START_TEST(no_deadline_is_quiet)
{
    validate("none", "", "name = fixed\ndelay = 1s\nmax_attempts = 1000\n");
    assert_quiet();
}
END_TEST

START_TEST(no_delay_is_quiet)
{
    validate("1s", "", "name = immediate\n");
    assert_quiet();
}
END_TEST

/* Full jitter with the draws at their maximum: U(0, d) -> d, so base 1 s
 * gives 1 + 2 + 4 = 7 s over 3 retries, > 12 s / 2.  At the mean draw it
 * would be 3.5 s and pass: the warning shows the draws are at their top. */
START_TEST(jitter_at_its_maximum)
{
    validate("12s", "",
             "name = exponential\nbase = 1s\nmax_attempts = 4\n"
             "jitter = full\n");
    assert_warning("exponential: worst-case retry delay 7 s (3 retries of a "
                   "read, every attempt timing out, jitter at its maximum) "
                   "is over half the 12s [clients] deadline; keep retries x "
                   "delay under deadline/2 so the attempts have time (7.4 s "
                   "with the 4 attempts' 100ms timeouts)");
}
END_TEST

/* A policy that never stops within the probe's 100 attempts: 1.5 s
 * delays under a 200 s deadline (100 attempts take 100 x 0.1 s + 100 x
 * 1.5 s = 160 s < 200 s, so the deadline never ends the probe). */
START_TEST(endless_policy_says_at_least)
{
    validate("200s", "",
             "name = fixed\ndelay = 1500ms\nmax_attempts = 1000000\n");
    assert_warning("fixed: worst-case retry delay at least 150 s (100 "
                   "retries of a read, every attempt timing out, jitter at "
                   "its maximum, still retrying after 100 attempts, the "
                   "probe's limit) is over half the 200s [clients] "
                   "deadline; keep retries x delay under deadline/2 so the "
                   "attempts have time (160 s with the 100 attempts' 100ms "
                   "timeouts)");
}
END_TEST

/* The probe ends a request where the engine would (the request driver's
 * deadline rule, which the probe once skipped): attempts start at 0,
 * 1.1, 2.2, 3.3, 4.4 and 5.5 s; the sixth times out at 5.6 s, and a 1 s
 * retry would start at 6.6 s, after the 6 s deadline, so the request
 * ends there: 5 retries, 5 s of delay. */
START_TEST(probe_stops_at_the_deadline_as_the_engine_does)
{
    validate("6s", "", "name = fixed\ndelay = 1s\nmax_attempts = 1000000\n");
    assert_warning("fixed: worst-case retry delay 5 s (5 retries of a read, "
                   "every attempt timing out, jitter at its maximum) is "
                   "over half the 6s [clients] deadline; keep retries x "
                   "delay under deadline/2 so the attempts have time (5.6 s "
                   "with the 6 attempts' 100ms timeouts)");
}
END_TEST

#define EXAMPLE_POLICY                                                         \
    "name = capped_backoff\nplugin = " EXAMPLE "\njitter = false\n"            \
    "base = 1s\n"

/* The probe asks for each operation in the mix.  The example plug-in
 * never retries an unkeyed post after a timeout (it may have committed),
 * so posts alone are quiet; with idempotency keys it retries them after
 * 1 + 2 + 4 = 7 s > 12 s / 2. */
START_TEST(operations_of_the_mix)
{
    validate("12s", "read = 0\npost = 1\n", EXAMPLE_POLICY);
    assert_quiet();
    validate("12s", "read = 0\npost = 1\nidempotency_keys = true\n",
             EXAMPLE_POLICY);
    assert_warning("capped_backoff: worst-case retry delay 7 s (3 retries "
                   "of a post, every attempt timing out, jitter at its "
                   "maximum) is over half the 12s [clients] deadline; keep "
                   "retries x delay under deadline/2 so the attempts have "
                   "time (7.4 s with the 4 attempts' 100ms timeouts)");
}
END_TEST

/* The attempts carry the time left: the example gives up when a delay
 * plus a timeout no longer fits.  Deadline 6 s: waits 1 s (at 0.1 s) and
 * 2 s (at 1.2 s); at 3.3 s, 4 s + 0.1 s > 2.7 s left, so it stops at
 * 3 s = 6 s / 2: quiet. */
START_TEST(deadline_aware_policy_is_probed_with_time_left)
{
    validate("6s", "", EXAMPLE_POLICY);
    assert_quiet();
}
END_TEST

/* A contract-breaking plug-in makes the file invalid, before any "ok". */
START_TEST(broken_policy_fails_validation)
{
    validate("6s", "", "name = sbt_neg_delay\nplugin = " SBT("neg_delay") "\n");
    ck_assert_int_eq(o.status, EXIT_INPUT);
    ck_assert_str_eq(o.out, "");
    char want[1024];
    snprintf(
        want, sizeof want,
        "%s: policy 'sbt_neg_delay' (from " SBT(
            "neg_delay") ") "
                         "returned a negative delay -1 s from on_failure; a delay must "
                         "be a number between 0 and 86400 s\n",
        path);
    ck_assert_str_eq(o.err, want);
}
END_TEST

/* Policy errors say where they were written, once. */
START_TEST(policy_errors_name_the_line)
{
    validate("6s", "", "name = nope\n");
    ck_assert_int_eq(o.status, EXIT_INPUT);
    char want[1200];
    snprintf(want, sizeof want,
             "%s:8: [policy] name: unknown policy 'nope' "
             "(did you mean 'none'?); known policies: none, ",
             path);
    ck_assert_msg(strncmp(o.err, want, strlen(want)) == 0, "%s", o.err);
    validate("6s", "", "name = sbt_abi\nplugin = " SBT("abi") "\n");
    ck_assert_int_eq(o.status, EXIT_INPUT);
    snprintf(
        want, sizeof want,
        "%s: " SBT(
            "abi") ": policy plug-in built "
                   "for policy ABI 1.0, but this stormbench speaks policy ABI "
                   "2.2: rebuild it against this version's stormbench/policy.h\n",
        path);
    ck_assert_str_eq(o.err, want);
}
END_TEST

Suite *validate_deadline_suite(void)
{
    Suite *s = suite_create("validate_deadline");
    TCase *tc = tcase_create("budget");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, fixed_over_half_warns);
    tcase_add_test(tc, exactly_half_is_quiet);
    tcase_add_test(tc, no_deadline_is_quiet);
    tcase_add_test(tc, no_delay_is_quiet);
    tcase_add_test(tc, jitter_at_its_maximum);
    tcase_add_test(tc, endless_policy_says_at_least);
    tcase_add_test(tc, probe_stops_at_the_deadline_as_the_engine_does);
    tcase_add_test(tc, operations_of_the_mix);
    tcase_add_test(tc, deadline_aware_policy_is_probed_with_time_left);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, broken_policy_fails_validation);
    tcase_add_test(tc, policy_errors_name_the_line);
    suite_add_tcase(s, tc);
    return s;
}
