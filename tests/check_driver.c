/*
 * check_driver.c -- the request driver's rules (policies/driver.h): what
 * a policy is shown, and the host's limits over the stack's decision.
 * The engine, `validate`, `decide` and the policy tests all go through
 * these functions, so each rule is pinned once here.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "driver.h"
#include "policy_setup.h"

static policy_setup setup;
static pstack_call call;
static char pstate[4096], cstate[4096], rstate[4096];
static sb_host host;

static double half(const sb_ctx *ctx)
{
    (void)ctx;
    return 0.5;
}

static void build(const char *spec, const char *param)
{
    setting s;
    sb_err e;
    int n = 0;
    if (param) {
        ck_assert_int_eq(setting_parse(param, "--param", &s, &e), 0);
        n = 1;
    }
    if (policy_setup_build(spec, NULL, 0, &s, n, &setup, &e) != 0)
        ck_abort_msg("%s", e.msg);
    memset(pstate, 0, sizeof pstate);
    memset(cstate, 0, sizeof cstate);
    memset(rstate, 0, sizeof rstate);
    memset(&host, 0, sizeof host);
    host.struct_size = sizeof host;
    host.uniform = half;
    call = (pstack_call){0, 0, pstate, cstate, rstate, &host, NULL};
    pstack_process_init(setup.stack, &call);
    pstack_client_init(setup.stack, &call);
}

static void teardown(void)
{
    policy_setup_free(&setup);
}

#define S(x) ((int64_t)((x)*1e9 + 0.5))

static driver_request request(double deadline_s)
{
    driver_request r = {
        0,      deadline_s > 0 ? S(deadline_s) : DRIVER_NO_DEADLINE,
        S(1.0), 0,
        0,      SB_OP_READ,
        0};
    return r;
}

static driver_result timed_out(uint32_t n, double sent_s)
{
    driver_result res = {
        n,  false,           true, SB_ERR_TIMEOUT, 0, SB_DEFECT_NONE, S(sent_s),
        -1, SB_PUSHBACK_NONE};
    return res;
}

/* The effective timeout is the configured one (1 s) until less than that
 * is left before the deadline: at 2.6 s of a 3 s deadline, 0.4 s. */
START_TEST(timeout_is_cut_short_by_the_deadline)
{
    driver_request r = request(3.0);
    sb_attempt a;
    driver_attempt(&r, S(1.0), 2, false, &a);
    ck_assert_double_eq(a.timeout_s, 1.0);
    ck_assert_double_eq(a.configured_timeout_s, 1.0);
    ck_assert_double_eq_tol(a.remaining_s, 2.0, 1e-12);
    driver_attempt(&r, S(2.6), 3, false, &a);
    ck_assert_double_eq_tol(a.timeout_s, 0.4, 1e-12);
    ck_assert_double_eq(a.configured_timeout_s, 1.0);
    /* No deadline: +inf left, the configured timeout. */
    r = request(0);
    driver_attempt(&r, S(50), 1, false, &a);
    ck_assert(isinf(a.remaining_s));
    ck_assert_double_eq(a.timeout_s, 1.0);
}
END_TEST

/* What an attempt that ended is shown: its latency from its send, the
 * timeout it was sent with (not what is left of it now), the answer. */
START_TEST(outcome_fields)
{
    driver_request r = request(3.0);
    driver_result res = {2,           false,  true,
                         SB_ERR_HTTP, 503,    SB_DEFECT_NONE,
                         S(2.5),      S(2.0), SB_PUSHBACK_NONE};
    sb_attempt a;
    driver_outcome(&r, S(2.75), &res, &a);
    ck_assert_double_eq_tol(a.latency_s, 0.25, 1e-12);
    ck_assert_double_eq_tol(a.timeout_s, 0.5, 1e-12); /* 3 - 2.5 */
    ck_assert_int_eq(a.status, 503);
    ck_assert_double_eq(a.retry_after_s, 2.0);
    ck_assert_int_eq(a.attempt, 2);
}
END_TEST

/* fixed (1 s delay) under a 3 s deadline: a failure at 1.5 s retries
 * (the retry starts at 2.5 s, before the deadline); one at 2.0 s would
 * start its retry at exactly 3.0 s and ends as a deadline instead; one
 * at 3.0 s is past the deadline whatever the stack says. */
START_TEST(deadline_cut_off)
{
    build("fixed", NULL);
    driver_request r = request(3.0);
    r.attempts = 1;
    driver_result res = timed_out(1, 0.5);
    driver_next nx;
    ck_assert_int_eq(
        driver_on_failure(setup.stack, &call, &r, S(1.5), &res, &nx), 0);
    ck_assert_int_eq(nx.step, DRIVER_RETRY);
    ck_assert_int_eq(nx.delay_ns, S(1.0));
    ck_assert_ptr_null(nx.limit);
    ck_assert_int_eq(nx.final.action, SB_RETRY);
    ck_assert_double_eq(nx.final.delay_s, 1.0);

    driver_on_failure(setup.stack, &call, &r, S(2.0), &res, &nx);
    ck_assert_int_eq(nx.stack.d.action, SB_RETRY);
    ck_assert_int_eq(nx.step, DRIVER_END);
    ck_assert_int_eq(nx.outcome, SB_OUTCOME_DEADLINE);
    ck_assert_str_eq(nx.limit, "the retry would start after the deadline");
    ck_assert_int_eq(nx.final.action, SB_GIVE_UP);

    driver_on_failure(setup.stack, &call, &r, S(3.0), &res, &nx);
    ck_assert_int_eq(nx.outcome, SB_OUTCOME_DEADLINE);
    ck_assert_str_eq(nx.limit, "the request's deadline has passed");
}
END_TEST

/* A policy that would retry forever stops at DRIVER_MAX_ATTEMPTS. */
START_TEST(attempt_cap)
{
    build("immediate", "max_attempts=1000000");
    driver_request r = request(0);
    r.attempts = DRIVER_MAX_ATTEMPTS - 1;
    driver_result res = timed_out(r.attempts, 0);
    driver_next nx;
    driver_on_failure(setup.stack, &call, &r, S(1), &res, &nx);
    ck_assert_int_eq(nx.step, DRIVER_RETRY);
    r.attempts = DRIVER_MAX_ATTEMPTS;
    res.number = r.attempts;
    driver_on_failure(setup.stack, &call, &r, S(1), &res, &nx);
    ck_assert_int_eq(nx.step, DRIVER_END);
    ck_assert_int_eq(nx.outcome, SB_OUTCOME_GAVE_UP);
    ck_assert_str_eq(nx.limit, "the host's limit of attempts per request");
}
END_TEST

/* While another attempt (a hedge) still waits, a failure decides nothing,
 * and every layer is told so (final action PASS). */
START_TEST(waiting_for_a_hedge_decides_nothing)
{
    build("immediate", NULL);
    driver_request r = request(0);
    r.attempts = 2;
    r.outstanding = 1;
    driver_result res = timed_out(1, 0);
    driver_next nx;
    driver_on_failure(setup.stack, &call, &r, S(1), &res, &nx);
    ck_assert_int_eq(nx.step, DRIVER_WAIT);
    ck_assert_int_eq(nx.final.action, SB_PASS);
    ck_assert_int_eq(nx.stack.d.action, SB_RETRY);
}
END_TEST

/* A refused first try ends the request: as refused locally for a
 * breaker, as a deadline for a deadline refusal.  A refused hedge is just
 * not sent. */
START_TEST(refusals_end_requests_by_their_kind)
{
    build("fixed+deadline", NULL);
    driver_request r = request(3.0);
    r.attempts = 1;
    driver_send ds;
    /* At 2.5 s a retry has 0.5 s left, under the 1 s attempt time. */
    driver_before_send(setup.stack, &call, &r, S(2.5), false, &ds);
    ck_assert(!ds.send);
    ck_assert(ds.end);
    ck_assert_int_eq(ds.outcome, SB_OUTCOME_DEADLINE);
    ck_assert_int_eq(ds.verdict.v.refusal, SB_REFUSAL_DEADLINE);
    ck_assert_int_eq(ds.attempt.sent, 0);
    r.outstanding = 1;
    driver_before_send(setup.stack, &call, &r, S(2.5), true, &ds);
    ck_assert(!ds.send);
    ck_assert(!ds.end);
    teardown();

    build("none+circuit_breaker", "threshold=1");
    r = request(0);
    r.attempts = 1;
    driver_result res = timed_out(1, 0);
    driver_next nx;
    driver_on_failure(setup.stack, &call, &r, S(1), &res, &nx);
    r = request(0);
    driver_before_send(setup.stack, &call, &r, S(1.5), false, &ds);
    ck_assert(ds.end);
    ck_assert_int_eq(ds.outcome, SB_OUTCOME_REFUSED);
    ck_assert_int_eq(ds.verdict.v.refusal, SB_REFUSAL_BREAKER);
}
END_TEST

/* A hedge delay comes back in ns. */
START_TEST(hedge_after)
{
    build("none+hedge", "delay=250ms");
    driver_request r = request(0);
    driver_send ds;
    driver_before_send(setup.stack, &call, &r, 0, false, &ds);
    ck_assert(ds.send);
    ck_assert_int_eq(ds.hedge_after_ns, S(0.25));
}
END_TEST

Suite *driver_suite(void)
{
    Suite *s = suite_create("driver");
    TCase *tc = tcase_create("rules");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, timeout_is_cut_short_by_the_deadline);
    tcase_add_test(tc, outcome_fields);
    tcase_add_test(tc, deadline_cut_off);
    tcase_add_test(tc, attempt_cap);
    tcase_add_test(tc, waiting_for_a_hedge_decides_nothing);
    tcase_add_test(tc, refusals_end_requests_by_their_kind);
    tcase_add_test(tc, hedge_after);
    suite_add_tcase(s, tc);
    return s;
}
