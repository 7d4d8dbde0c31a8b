/*
 * check_validate_sla.c -- `stormbench validate` on a pipeline with an
 * SLA: each step's stack (its own, or the run's) is probed with the
 * step's timeout, as the engine sends a step's calls (unkeyed posts
 * without a deadline of their own), every attempt timing out;
 * the steps' worst-case retry delays are added up (every step exhausts
 * its retries) and compared with half the SLA, as the deadline check does
 * for [clients] deadline.  And a step's own stack is built whether or not
 * there is an SLA, so a bad parameter of it is named by its line.
 * Through the real binary.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static tu_output o;
static char path[1024];

static void teardown(void)
{
    tu_output_free(&o);
}

/* Validate a scenario with the given [clients] timeout, [policy] lines
 * and pipeline lines; returns the exit status.  Line 8 is [policy]. */
static int validate(const char *timeout, const char *policy,
                    const char *pipeline)
{
    char ini[4096];
    snprintf(ini, sizeof ini,
             "[scenario]\nname = sla\nduration = 60s\n"
             "[clients]\ntimeout = %s\n[server]\nworkers = 4\n"
             "[policy]\n%s%s",
             timeout, policy, pipeline);
    snprintf(path, sizeof path, "%s", tu_write_temp("sla.ini", ini));
    tu_output_free(&o);
    return tu_stormbench(&o, (const char *[]){"validate", path, NULL});
}

/* o.out after its first ("ok") line, each line's leading path removed;
 * in buf. */
static const char *after_ok(char *buf, size_t len)
{
    const char *nl = strchr(o.out, '\n');
    ck_assert_ptr_nonnull(nl);
    ck_assert_ptr_nonnull(strstr(o.out, ": ok ("));
    size_t used = 0, plen = strlen(path);
    buf[0] = '\0';
    for (const char *l = nl + 1; *l && used < len;) {
        const char *end = strchr(l, '\n');
        size_t n = end ? (size_t)(end - l + 1) : strlen(l);
        if (strncmp(l, "  ", 2) == 0) { /* the ok line's policy, wrapped */
            l += n;
            continue;
        }
        if (strncmp(l, path, plen) == 0 && strncmp(l + plen, ": ", 2) == 0)
            l += plen + 2, n -= plen + 2;
        used += (size_t)snprintf(buf + used, len - used, "%.*s", (int)n, l);
        l += n;
    }
    return buf;
}

#define FIVE_PLAN_STEPS                                                        \
    "[pipeline]\nsteps = a, b, c, d, e\n"                                      \
    "[step.a]\n[step.b]\n[step.c]\n[step.d]\n[step.e]\n"
#define PLAN "name = plan\nbase = 1min\ncap = 10min\n"
#define PLAN_STEP(n)                                                           \
    "pipeline step '" n "' (the run's stack, plan): worst-case retry delays "  \
    "7 min (3 retries of a post, every attempt timing out after 1s, jitter "   \
    "at its maximum)\n"

/* plan, base 1 min, multiplier 2, cap 10 min, 4 attempts, no jitter: the
 * three retries after timeouts wait 1 + 2 + 4 = 7 min (the attempts' 1 s
 * timeouts keep them far from the SLA).  Five steps that each exhaust
 * them wait 5 x 7 = 35 min, over half a 60 min SLA (30 min): a warning,
 * the file still valid (exit 0), as the deadline check's. */
START_TEST(five_steps_over_half_the_sla)
{
    char buf[4096];
    validate("1s", PLAN,
             "[pipeline]\nsteps = a, b, c, d, e\nsla = 60min\n"
             "[step.a]\n[step.b]\n[step.c]\n[step.d]\n[step.e]\n");
    ck_assert_msg(o.status == EXIT_OK, "exit %d: %s", o.status, o.err);
    ck_assert_str_eq(after_ok(buf, sizeof buf),
                     PLAN_STEP("a") PLAN_STEP("b") PLAN_STEP("c") PLAN_STEP("d")
                         PLAN_STEP("e"));
    char want[1024];
    snprintf(want, sizeof want,
             "%s: warning: pipeline: worst-case retry delays 35 min over 5 "
             "steps, over half the 60 min SLA (30 min): if every step "
             "exhausts its retries, a job spends more than half its SLA "
             "waiting between attempts; keep the steps' retries x delay "
             "under SLA/2 so the attempts have time\n",
             path);
    ck_assert_str_eq(o.err, want);
}
END_TEST

/* The same 35 min under a 70 min SLA is exactly half: within the rule,
 * said on stdout, nothing on stderr. */
START_TEST(exactly_half_fits)
{
    char buf[4096];
    validate("1s", PLAN,
             "[pipeline]\nsteps = a, b, c, d, e\nsla = 70min\n"
             "[step.a]\n[step.b]\n[step.c]\n[step.d]\n[step.e]\n");
    ck_assert_msg(o.status == EXIT_OK, "exit %d: %s", o.status, o.err);
    ck_assert_str_eq(o.err, "");
    ck_assert_str_eq(
        after_ok(buf, sizeof buf),
        PLAN_STEP("a") PLAN_STEP("b") PLAN_STEP("c") PLAN_STEP("d") PLAN_STEP(
            "e") "pipeline: worst-case retry delays 35 min over 5 steps "
                 "fit in half the 70 min SLA (35 min)\n");
}
END_TEST

/* Each step with its own timeout and stack under a 20 s SLA; the run's
 * stack is plan, base 1 s, doubling, with its own deadline of 4.5 s (it
 * stops when the time since the call started plus the next delay reaches
 * it), so a step's timeout changes its retries:
 *   quick (100 ms): attempt 1 ends at 0.1 s, 0.1 + 1 < 4.5: waits 1 s;
 *     attempt 2 runs 1.1-1.2 s, 1.2 + 2 < 4.5: waits 2 s; attempt 3 ends
 *     at 3.3 s, 3.3 + 4 >= 4.5: stops.  2 retries, 3 s;
 *   slow (900 ms): attempt 1 ends at 0.9 s, waits 1 s; attempt 2 runs
 *     1.9-2.8 s, 2.8 + 2 >= 4.5: stops.  1 retry, 1 s;
 *   careful (its own classified): classified never retries an unkeyed
 *     post that was sent (it may have committed), and a step's calls are
 *     unkeyed posts: 0 retries (a read would be retried);
 *   exp (its own exponential, base 1 s, 4 attempts, full jitter at its
 *     maximum): 1 + 2 + 4 = 7 s.
 * 3 + 1 + 0 + 7 = 11 s > 20 s / 2. */
START_TEST(each_step_its_stack_and_timeout)
{
    char buf[4096];
    validate("100ms", "name = plan\nbase = 1s\ndeadline = 4.5s\n",
             "[pipeline]\nsteps = quick, slow, careful, exp\nsla = 20s\n"
             "[step.quick]\n[step.slow]\ntimeout = 900ms\n"
             "[step.careful]\npolicy = classified\n"
             "[step.exp]\npolicy = exponential\nbase = 1s\n"
             "max_attempts = 4\njitter = full\n");
    ck_assert_msg(o.status == EXIT_OK, "exit %d: %s", o.status, o.err);
    ck_assert_str_eq(
        after_ok(buf, sizeof buf),
        "pipeline step 'quick' (the run's stack, plan): worst-case retry "
        "delays 3 s (2 retries of a post, every attempt timing out after "
        "100ms, jitter at its maximum)\n"
        "pipeline step 'slow' (the run's stack, plan): worst-case retry "
        "delays 1 s (1 retry of a post, every attempt timing out after "
        "900ms, jitter at its maximum)\n"
        "pipeline step 'careful' (classified): worst-case retry delays 0 s "
        "(0 retries of a post, every attempt timing out after 100ms, jitter "
        "at its maximum)\n"
        "pipeline step 'exp' (exponential): worst-case retry delays 7 s (3 "
        "retries of a post, every attempt timing out after 100ms, jitter at "
        "its maximum)\n");
    char want[1024];
    snprintf(want, sizeof want,
             "%s: warning: pipeline: worst-case retry delays 11 s over 4 "
             "steps, over half the 20 s SLA (10 s): if every step exhausts "
             "its retries, a job spends more than half its SLA waiting "
             "between attempts; keep the steps' retries x delay under "
             "SLA/2 so the attempts have time\n",
             path);
    ck_assert_str_eq(o.err, want);
}
END_TEST

/* The SLA does not cut a step's retries short: the engine lets a step
 * retry past it (and counts those retries late).  A fixed 1 s delay
 * without a limit on attempts is probed to the probe's 100 attempts:
 * at least 100 s, though the SLA is 6 s. */
START_TEST(sla_does_not_cut_the_probe)
{
    char buf[4096];
    validate("100ms", "name = fixed\ndelay = 1s\nmax_attempts = 1000000\n",
             "[pipeline]\nsteps = only\nsla = 6s\n[step.only]\n");
    ck_assert_msg(o.status == EXIT_OK, "exit %d: %s", o.status, o.err);
    ck_assert_str_eq(
        after_ok(buf, sizeof buf),
        "pipeline step 'only' (the run's stack, fixed): worst-case retry "
        "delays at least 100 s (100 retries of a post, every attempt timing "
        "out after 100ms, jitter at its maximum, still retrying after 100 "
        "attempts, the probe's limit)\n");
    char want[1024];
    snprintf(want, sizeof want,
             "%s: warning: pipeline: worst-case retry delays at least 100 s "
             "over 1 step, over half the 6 s SLA (3 s): if every step "
             "exhausts its retries, a job spends more than half its SLA "
             "waiting between attempts; keep the steps' retries x delay "
             "under SLA/2 so the attempts have time\n",
             path);
    ck_assert_str_eq(o.err, want);
}
END_TEST

/* Without an SLA nothing is probed or printed for the pipeline. */
START_TEST(no_sla_is_quiet)
{
    validate("1s", PLAN, FIVE_PLAN_STEPS);
    ck_assert_msg(o.status == EXIT_OK, "exit %d: %s", o.status, o.err);
    ck_assert_str_eq(o.err, "");
    ck_assert_ptr_null(strstr(o.out, "pipeline"));
    ck_assert_ptr_nonnull(strstr(o.out, ": ok ("));
}
END_TEST

/* A step's own stack checks its parameters, SLA or not: a bad key is
 * named by the file, its line, the key and the parameters accepted.
 * Lines: 8 [policy], 9 name, 10 [pipeline], 11 steps, 12 [step.a],
 * 13 policy, 14 bogus. */
START_TEST(bad_step_parameter_is_named)
{
    validate("1s", "name = none\n",
             "[pipeline]\nsteps = a\n[step.a]\npolicy = immediate\n"
             "bogus = 3\n");
    ck_assert_int_eq(o.status, EXIT_INPUT);
    ck_assert_str_eq(o.out, "");
    char want[1200];
    snprintf(want, sizeof want,
             "%s:14: [step.a] bogus: policy 'immediate' "
             "has no such parameter; its parameters are: max_attempts\n",
             path);
    ck_assert_str_eq(o.err, want);
}
END_TEST

START_TEST(unknown_step_policy_is_named)
{
    validate("1s", "name = none\n",
             "[pipeline]\nsteps = a\nsla = 1h\n[step.a]\npolicy = nope\n");
    ck_assert_int_eq(o.status, EXIT_INPUT);
    char want[1200];
    snprintf(want, sizeof want,
             "%s:14: [step.a] policy: unknown policy "
             "'nope' (did you mean 'none'?); known policies: none, ",
             path);
    ck_assert_msg(strncmp(o.err, want, strlen(want)) == 0, "%s", o.err);
}
END_TEST

Suite *validate_sla_suite(void)
{
    Suite *s = suite_create("validate_sla");
    TCase *tc = tcase_create("sla");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, five_steps_over_half_the_sla);
    tcase_add_test(tc, exactly_half_fits);
    tcase_add_test(tc, each_step_its_stack_and_timeout);
    tcase_add_test(tc, sla_does_not_cut_the_probe);
    tcase_add_test(tc, no_sla_is_quiet);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, bad_step_parameter_is_named);
    tcase_add_test(tc, unknown_step_policy_is_named);
    suite_add_tcase(s, tc);
    return s;
}
