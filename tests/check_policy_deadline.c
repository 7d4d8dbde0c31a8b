/*
 * check_policy_deadline.c -- the deadline layer: a retry (or hedge) is
 * refused when the time left is less than one attempt, at the failure
 * when even an immediate retry would be late, at the send when the delay
 * used the time up; and the effect a run must show (no attempt is sent
 * that could not finish before the deadline).
 */
#include "policy_harness.h"

static ph *h;

static void teardown(void)
{
    ph_free(h);
    h = NULL;
}

static sb_attempt with_remaining(uint32_t n, double remaining)
{
    sb_attempt a = ph_attempt(h, n);
    a.remaining_s = remaining;
    return a;
}

/* The stack's own decision (before the request driver's deadline rule,
 * which would end a request whose retry starts at or after the deadline
 * whatever the layers say). */
static sb_action fail_with(double remaining)
{
    sb_attempt a = with_remaining(1, remaining);
    ph_error(&a, SB_ERR_HTTP, 503);
    return ph_failure_next(h, &a).stack.d.action;
}

/* Attempt time defaults to the attempt's timeout (1 s here): 1.0 s left
 * is exactly enough (the attempt would end at the deadline, not after),
 * 0.999 s is not.  Without a deadline (+inf) nothing is refused. */
START_TEST(failure_gives_up_without_time_for_an_attempt)
{
    h = ph_create("fixed+deadline", NULL, 0);
    ck_assert_int_eq(fail_with(1.0), SB_RETRY);
    ck_assert_int_eq(fail_with(0.999), SB_GIVE_UP);
    ck_assert_int_eq(fail_with(INFINITY), SB_RETRY);
}
END_TEST

/* At the send the delay has passed: a retry with 0.5 s left is refused,
 * one with 1 s left goes; a hedge likewise; a first attempt is never
 * refused, whatever is left. */
START_TEST(send_refuses_late_retries_and_hedges_only)
{
    h = ph_create("deadline", NULL, 0);
    sb_attempt a = with_remaining(2, 0.5);
    ck_assert(!ph_allowed(h, &a));
    a = with_remaining(2, 1.0);
    ck_assert(ph_allowed(h, &a));
    a = with_remaining(2, 0.5);
    a.hedge = 1;
    ck_assert(!ph_allowed(h, &a));
    a = with_remaining(1, 0.01);
    ck_assert(ph_allowed(h, &a));
}
END_TEST

/* attempt_time = 200 ms replaces the timeout: 0.25 s left is enough for
 * a retry, 0.15 s is not. */
START_TEST(attempt_time_parameter)
{
    const char *params[] = {"attempt_time=200ms"};
    h = ph_create("fixed+deadline", params, 1);
    ck_assert_int_eq(fail_with(0.25), SB_RETRY);
    ck_assert_int_eq(fail_with(0.15), SB_GIVE_UP);
    sb_attempt a = with_remaining(2, 0.15);
    ck_assert(!ph_allowed(h, &a));
}
END_TEST

/* ---- Effect: no attempt that cannot finish in time ---------------------
 *
 * Deadline 2.5 s, timeout 1 s, `fixed` 1 s delay; the server black-holes
 * every attempt from 10 s to 50 s.  Alone: attempt 1 times out at 1 s,
 * the retry starts at 2 s (before the deadline, so the engine sends it)
 * with only 0.5 s left and times out at the deadline: 2 attempts per
 * request, every request ends "deadline", and half the attempts could
 * never have finished.  With the layer the retry is refused at 2 s (0.5 s
 * left < 1 s): 1 attempt per request, and since the refusal is a deadline
 * refusal (SB_REFUSAL_DEADLINE) the request still counts as a deadline
 * failure, not as refused locally. */
static const char late_ini[] =
    "[scenario]\nname = late\nduration = 60s\nwarmup = 5s\n"
    "[clients]\ncount = 20\nrate = 2/s\ntimeout = 1s\ndeadline = 2500ms\n"
    "[server]\nworkers = unlimited\nservice = const(10ms)\n"
    "[policy]\nname = fixed\ndelay = 1s\n"
    "[fault.hole]\ntype = outage\nstart = 10s\nduration = 40s\n"
    "mode = blackhole\n";

START_TEST(effect_no_attempt_that_cannot_finish)
{
    tu_sim *t = tu_sim_run(late_ini, NULL, NULL, 0);
    ck_assert_double_eq_tol(ph_amplification(t, 15, 45), 2.0, 0.02);
    ph_window w = ph_sum(t, 15, 45);
    ck_assert_double_eq_tol(w.deadline / w.failures, 1.0, 0.01);
    tu_sim_free(t);
    t = tu_sim_run(late_ini, "fixed+deadline", NULL, 0);
    ck_assert_double_eq_tol(ph_amplification(t, 15, 45), 1.0, 0.01);
    w = ph_sum(t, 15, 45);
    ck_assert_double_eq_tol(w.deadline / w.failures, 1.0, 0.01);
    ck_assert_double_eq(w.refused, 0.0);
    tu_sim_free(t);
}
END_TEST

Suite *policy_deadline_suite(void)
{
    Suite *s = suite_create("policy_deadline");
    TCase *tc = tcase_create("deadline");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, failure_gives_up_without_time_for_an_attempt);
    tcase_add_test(tc, send_refuses_late_retries_and_hedges_only);
    tcase_add_test(tc, attempt_time_parameter);
    suite_add_tcase(s, tc);
    TCase *e = tcase_create("effect");
    tcase_add_test(e, effect_no_attempt_that_cannot_finish);
    suite_add_tcase(s, e);
    return s;
}
