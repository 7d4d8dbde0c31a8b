/*
 * check_policy_aws_quota.c -- the AWS SDK standard retry mode: its
 * retryable errors, 3 attempts, full-jitter backoff, and the retry quota's
 * arithmetic (500 tokens, 5 per retry, 10 after a timeout, refunds); and
 * the effect a run must show (once a client's quota is spent in a long
 * outage, it stops retrying).
 */
#include "policy_harness.h"

static ph *h;

static void setup(void)
{
    h = ph_create("aws_quota", NULL, 0);
    ph_fill(h, 0.5);
}

static void teardown(void)
{
    ph_free(h);
    h = NULL;
}

/* A new request whose attempt 1 fails with kind/status. */
static sb_action first_fails(sb_error_kind kind, int status)
{
    ph_new_request(h);
    return ph_fail(h, 1, kind, status).action;
}

/* n requests whose first attempt fails with a 503 and is retried. */
static void spend_503(int n)
{
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(first_fails(SB_ERR_HTTP, 503), SB_RETRY);
}

/* The current request's attempt n succeeds. */
static void succeed(uint32_t n)
{
    sb_attempt a = ph_attempt(h, n);
    ph_success(h, &a);
}

/* Retryable as in the SDKs: timeouts, connection errors, 408 429 500 502
 * 503 504; not 400, 404, 409, 501.  A gRPC code retries when the shared
 * classifier calls it transient (UNAVAILABLE), not NOT_FOUND. */
START_TEST(retryable_errors)
{
    ck_assert_int_eq(first_fails(SB_ERR_TIMEOUT, 0), SB_RETRY);
    ck_assert_int_eq(first_fails(SB_ERR_REFUSED, 0), SB_RETRY);
    ck_assert_int_eq(first_fails(SB_ERR_RESET, 0), SB_RETRY);
    const int yes[] = {408, 429, 500, 502, 503, 504};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(first_fails(SB_ERR_HTTP, yes[i]), SB_RETRY);
    const int no[] = {400, 404, 409, 501};
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(first_fails(SB_ERR_HTTP, no[i]), SB_GIVE_UP);
    ck_assert_int_eq(first_fails(SB_ERR_GRPC, SB_GRPC_UNAVAILABLE), SB_RETRY);
    ck_assert_int_eq(first_fails(SB_ERR_GRPC, SB_GRPC_NOT_FOUND), SB_GIVE_UP);
    /* RESOURCE_EXHAUSTED is the classifier's resource exhaustion, not
     * transient; the SDKs retry it (a throttling error), and so does
     * this. */
    ck_assert_int_eq(first_fails(SB_ERR_GRPC, SB_GRPC_RESOURCE_EXHAUSTED),
                     SB_RETRY);
}
END_TEST

/* 3 attempts; full jitter U(0, min(20 s, 0.1 x 2^(n-1))): with U = 0.5,
 * 0.05 s after attempt 1 and 0.1 s after attempt 2; attempt 3 is the
 * last.  With base 10 s and 10 attempts, attempt 4's ceiling min(20, 80)
 * is the cap: U = 0.5 waits 10 s. */
START_TEST(three_attempts_full_jitter_100ms_cap_20s)
{
    ph_new_request(h);
    ck_assert_double_eq_tol(ph_fail(h, 1, SB_ERR_HTTP, 503).delay_s, 0.05,
                            1e-12);
    ck_assert_double_eq_tol(ph_fail(h, 2, SB_ERR_HTTP, 503).delay_s, 0.1,
                            1e-12);
    ck_assert_int_eq(ph_fail(h, 3, SB_ERR_HTTP, 503).action, SB_GIVE_UP);
    ph_free(h);
    const char *params[] = {"base=10s", "max_attempts=10"};
    h = ph_create("aws_quota", params, 2);
    ph_fill(h, 0.5);
    ck_assert_double_eq_tol(ph_fail(h, 4, SB_ERR_HTTP, 503).delay_s, 10.0,
                            1e-12);
}
END_TEST

/* 500 tokens at 5 a retry: exactly 100 retries, the 101st is refused
 * (botocore refuses only when the cost exceeds what is left, so the
 * 100th, taking the last 5, passes). */
START_TEST(quota_allows_100_retries_of_5)
{
    spend_503(100);
    ck_assert_int_eq(first_fails(SB_ERR_HTTP, 503), SB_GIVE_UP);
}
END_TEST

/* After a timeout a retry costs 10: 50 of them empty the quota. */
START_TEST(timeout_retries_cost_10)
{
    for (int i = 0; i < 50; i++)
        ck_assert_int_eq(first_fails(SB_ERR_TIMEOUT, 0), SB_RETRY);
    ck_assert_int_eq(first_fails(SB_ERR_HTTP, 503), SB_GIVE_UP);
}
END_TEST

/* A success without a retry gives back 1: on an empty quota, 4 such
 * successes (4 tokens) do not pay for a retry, the 5th does. */
START_TEST(success_without_retry_refunds_1)
{
    spend_503(100);
    for (int i = 0; i < 4; i++)
        ph_ok_request(h);
    ck_assert_int_eq(first_fails(SB_ERR_HTTP, 503), SB_GIVE_UP);
    ph_ok_request(h);
    ck_assert_int_eq(first_fails(SB_ERR_HTTP, 503), SB_RETRY);
}
END_TEST

/* A success after a retry gives back that retry's cost.  With 5 left, X
 * retries (0 left), Y cannot; X succeeds (5 back), Z can.  After a
 * timeout: with 10 left X retries a timeout (0), X succeeds (10 back):
 * two 5-token retries fit, a third does not. */
START_TEST(success_after_retry_refunds_its_cost)
{
    spend_503(99); /* 5 left */
    ph_use(h, 1);
    ck_assert_int_eq(first_fails(SB_ERR_HTTP, 503), SB_RETRY); /* X */
    ph_use(h, 2);
    ck_assert_int_eq(first_fails(SB_ERR_HTTP, 503), SB_GIVE_UP); /* Y */
    ph_use(h, 1);
    succeed(2);
    ph_use(h, 3);
    ck_assert_int_eq(first_fails(SB_ERR_HTTP, 503), SB_RETRY); /* Z */

    ph_free(h);
    setup();
    spend_503(98); /* 10 left */
    ph_use(h, 1);
    ck_assert_int_eq(first_fails(SB_ERR_TIMEOUT, 0), SB_RETRY);
    succeed(2);
    ph_use(h, 2);
    spend_503(2);
    ck_assert_int_eq(first_fails(SB_ERR_HTTP, 503), SB_GIVE_UP);
}
END_TEST

/* Only the last retry's cost comes back (botocore keeps one
 * retry_quota_capacity per request): with 15 left, X retries a timeout
 * (10) then a 503 (5): 0 left; its success refunds 5, not 15, so one
 * 5-token retry fits and a second does not. */
START_TEST(refund_is_the_last_retry_cost_only)
{
    spend_503(97); /* 15 left */
    ph_use(h, 1);
    ph_new_request(h);
    ck_assert_int_eq(ph_fail(h, 1, SB_ERR_TIMEOUT, 0).action, SB_RETRY);
    ck_assert_int_eq(ph_fail(h, 2, SB_ERR_HTTP, 503).action, SB_RETRY);
    succeed(3);
    ph_use(h, 2);
    spend_503(1);
    ck_assert_int_eq(first_fails(SB_ERR_HTTP, 503), SB_GIVE_UP);
}
END_TEST

/* The quota never grows past 500: 10 successes on a full quota, then
 * still exactly 100 retries. */
START_TEST(quota_never_exceeds_initial)
{
    for (int i = 0; i < 10; i++)
        ph_ok_request(h);
    spend_503(100);
    ck_assert_int_eq(first_fails(SB_ERR_HTTP, 503), SB_GIVE_UP);
}
END_TEST

/* Errors that are not retried take no quota: 200 404s, then still 100
 * retries. */
START_TEST(non_retryable_errors_take_nothing)
{
    for (int i = 0; i < 200; i++)
        first_fails(SB_ERR_HTTP, 404);
    spend_503(100);
    ck_assert_int_eq(first_fails(SB_ERR_HTTP, 503), SB_GIVE_UP);
}
END_TEST

/* A failure while a hedge of the request still waits decides nothing
 * (the engine ignores it) and takes no quota: 500 of them, then still
 * 100 retries. */
START_TEST(failures_with_a_hedge_waiting_take_nothing)
{
    for (int i = 0; i < 500; i++) {
        ph_new_request(h);
        sb_attempt a = ph_attempt(h, 1);
        ph_error(&a, SB_ERR_TIMEOUT, 0);
        a.outstanding = 1;
        ph_failure(h, &a);
    }
    spend_503(100);
    ck_assert_int_eq(first_fails(SB_ERR_HTTP, 503), SB_GIVE_UP);
}
END_TEST

/* ---- Reference: botocore's arithmetic, decision by decision ------------
 *
 * Written from boto/botocore botocore/retries/quota.py (commit
 * 40454eaac38ce390fc7755ac1a05dd3425aeb5f9), RetryQuota: acquire(n) fails
 * when n > available, else takes n; release(n) adds min(n, max -
 * available); and botocore/retries/standard.py (commit
 * 0719e79583bba4ce33d41f430ab6ca9658ed35a5): RetryHandler.needs_retry
 * asks StandardRetryConditions (MaxAttemptsChecker: attempt_number <
 * max_attempts; TransientRetryableChecker: RequestTimeout error codes,
 * HTTP 500 502 503 504, ConnectionError and HTTPClientError;
 * ThrottledRetryableChecker: Throttling, TooManyRequestsException ...)
 * and only then RetryQuotaChecker.acquire_retry_quota: in
 * STANDARD_RETRY_MODE_VERSION 2.0 (the default) 10 after
 * ConnectTimeoutError/ReadTimeoutError and 5 otherwise, in 2.1 5 after a
 * throttling error and 14 otherwise; release_retry_quota after a 2xx:
 * the capacity of the call's last acquisition, or 1 if it acquired none.
 * As the policy reads the simulated server: a timeout is a
 * ReadTimeoutError, a refused or reset connection a ConnectionError, an
 * HTTP 408 carries RequestTimeout and a 429 a throttling code. */
typedef struct boto_outcome {
    sb_error_kind kind;
    int status;
    bool retryable, timeout, throttling;
} boto_outcome;

static const boto_outcome boto_outcomes[] = {
    {SB_ERR_NONE, 200, false, false, false},
    {SB_ERR_NONE, 200, false, false, false},
    {SB_ERR_HTTP, 503, true, false, false},
    {SB_ERR_HTTP, 500, true, false, false},
    {SB_ERR_HTTP, 502, true, false, false},
    {SB_ERR_HTTP, 504, true, false, false},
    {SB_ERR_HTTP, 408, true, false, false},
    {SB_ERR_HTTP, 429, true, false, true},
    {SB_ERR_TIMEOUT, 0, true, true, false},
    {SB_ERR_REFUSED, 0, true, false, false},
    {SB_ERR_RESET, 0, true, false, false},
    {SB_ERR_HTTP, 400, false, false, false},
    {SB_ERR_HTTP, 404, false, false, false},
    {SB_ERR_HTTP, 501, false, false, false},
};

static uint64_t lcg_state;

static uint32_t lcg(uint32_t n)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((lcg_state >> 33) % n);
}

/* One replay: costs (retry, timeout, throttling) as botocore's mode. */
static void replay_botocore(int retry_cost, int timeout_cost,
                            int throttling_cost)
{
    char p1[64], p2[64], p3[64];
    snprintf(p1, sizeof p1, "retry_cost=%d", retry_cost);
    snprintf(p2, sizeof p2, "timeout_retry_cost=%d", timeout_cost);
    snprintf(p3, sizeof p3, "throttling_retry_cost=%d", throttling_cost);
    const char *params[] = {"initial_retry_tokens=80", p1, p2, p3};
    ph_free(h);
    h = ph_create("aws_quota", params, 4);
    ph_fill(h, 0.5);
    int available = 80, max = 80;
    int decisions = 0, retries = 0, refused = 0, refunds = 0;
    bool emptied = false, refilled = false;
    static const int fail_pct[] = {90, 20, 100, 50, 10, 80, 0, 60};
    lcg_state = (uint64_t)retry_cost;
    for (int phase = 0; phase < 8; phase++)
        for (int req = 0; req < 100; req++) {
            ph_new_request(h);
            int last = -1; /* retry_quota_capacity in the request context */
            for (int n = 1; n <= 3; n++) {
                const boto_outcome *o;
                do
                    o = &boto_outcomes[lcg(sizeof boto_outcomes /
                                           sizeof *boto_outcomes)];
                while ((o->kind == SB_ERR_NONE) !=
                       ((int)lcg(100) >= fail_pct[phase]));
                sb_attempt a = ph_attempt(h, (uint32_t)n);
                if (o->kind == SB_ERR_NONE) {
                    ph_success(h, &a); /* release_retry_quota */
                    int amount = last < 0 ? 1 : last;
                    if (amount > max - available)
                        amount = max - available;
                    available += amount;
                    refunds += amount > 0;
                    refilled |= emptied && available == max;
                    break;
                }
                ph_error(&a, o->kind, o->status);
                bool want = false;
                if (n < 3 && o->retryable) {
                    int cost = o->throttling ? throttling_cost
                               : o->timeout  ? timeout_cost
                                             : retry_cost;
                    if (cost <= available) {
                        available -= cost;
                        last = cost;
                        want = true;
                    } else {
                        refused++;
                    }
                }
                sb_action got = ph_failure(h, &a).action;
                decisions++;
                ck_assert_msg((got == SB_RETRY) == want,
                              "costs %d/%d/%d, phase %d, request %d, "
                              "attempt %d, error %d/%d, %d available: "
                              "botocore %s, aws_quota %s",
                              retry_cost, timeout_cost, throttling_cost, phase,
                              req, n, o->kind, o->status, available,
                              want ? "retries" : "does not",
                              got == SB_RETRY ? "retries" : "does not");
                retries += want;
                emptied |= available < 5;
                if (!want)
                    break;
            }
        }
    ck_assert_int_ge(decisions, 300);
    ck_assert_int_ge(retries, 30); /* 44 at 14 per retry */
    ck_assert_int_ge(refused, 30);
    ck_assert_int_ge(refunds, 50);
    ck_assert(emptied && refilled);
}

START_TEST(reference_botocore_quota)
{
    replay_botocore(5, 10, 5);  /* STANDARD_RETRY_MODE_VERSION 2.0 */
    replay_botocore(14, 14, 5); /* 2.1 */
}
END_TEST

/* ---- Effect: retries stop once the quota is spent ----------------------
 *
 * 20 clients x 2/s; connections refused from 20 s to 100 s.  Each failing
 * request asks for 2 retries at 5 tokens: a client's 500 tokens last 50
 * such requests, 25 s at 2/s, so by 60 s every quota is empty -- and
 * stays empty, as there is no success to refund anything.  From then on
 * every request makes exactly one attempt: amplification 1.0 over
 * [60, 100).  At the start of the outage the quota is full and each
 * request makes its 3 attempts (the backoff is under 0.3 s): about 3 over
 * [21, 40).  With a quota too large to drain, 3 all along. */
static const char outage_ini[] =
    "[scenario]\nname = outage\nduration = 110s\nwarmup = 10s\n"
    "[clients]\ncount = 20\nrate = 2/s\ntimeout = 1s\n"
    "[server]\nworkers = unlimited\nservice = const(10ms)\n"
    "[policy]\nname = aws_quota\n"
    "[fault.down]\ntype = outage\nstart = 20s\nduration = 80s\n"
    "mode = refuse\n";

START_TEST(effect_retries_stop_when_the_quota_is_spent)
{
    tu_sim *t = tu_sim_run(outage_ini, NULL, NULL, 0);
    ck_assert_double_eq_tol(ph_amplification(t, 21, 40), 3.0, 0.02);
    ck_assert_double_eq(ph_amplification(t, 60, 100), 1.0);
    tu_sim_free(t);
    const char *params[] = {"initial_retry_tokens=1000000000"};
    t = tu_sim_run(outage_ini, NULL, params, 1);
    ck_assert_double_eq_tol(ph_amplification(t, 60, 100), 3.0, 0.02);
    tu_sim_free(t);
}
END_TEST

Suite *policy_aws_quota_suite(void)
{
    Suite *s = suite_create("policy_aws_quota");
    TCase *tc = tcase_create("quota");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, retryable_errors);
    tcase_add_test(tc, three_attempts_full_jitter_100ms_cap_20s);
    tcase_add_test(tc, quota_allows_100_retries_of_5);
    tcase_add_test(tc, timeout_retries_cost_10);
    tcase_add_test(tc, success_without_retry_refunds_1);
    tcase_add_test(tc, success_after_retry_refunds_its_cost);
    tcase_add_test(tc, refund_is_the_last_retry_cost_only);
    tcase_add_test(tc, quota_never_exceeds_initial);
    tcase_add_test(tc, non_retryable_errors_take_nothing);
    tcase_add_test(tc, failures_with_a_hedge_waiting_take_nothing);
    tcase_add_test(tc, reference_botocore_quota);
    suite_add_tcase(s, tc);
    TCase *e = tcase_create("effect");
    tcase_add_test(e, effect_retries_stop_when_the_quota_is_spent);
    suite_add_tcase(s, e);
    return s;
}
