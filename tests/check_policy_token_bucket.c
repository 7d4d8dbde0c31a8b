/*
 * check_policy_token_bucket.c -- gRPC retry throttling (gRFC A6): the
 * token arithmetic at its boundaries, and the effect a run must show (once
 * the tokens drain in a long outage, no retries: amplification 1, where
 * `immediate` sends max_attempts per request).
 */
#include "policy_harness.h"

static ph *h;

static void teardown(void)
{
    ph_free(h);
    h = NULL;
}

/* The layer's own verdict after a 503 (the stack turns PASS into give-up
 * when alone; stacked on immediate it becomes RETRY). */
static sb_action fail503(void)
{
    return ph_fail(h, 1, SB_ERR_HTTP, 503).action;
}

static void successes(int n)
{
    for (int i = 0; i < n; i++)
        ph_ok_request(h);
}

static bool hedge_allowed(void)
{
    sb_attempt a = ph_attempt(h, 2);
    a.hedge = 1;
    return ph_allowed(h, &a);
}

/* Tokens start at max_tokens = 10; each failure costs 1 and a retry
 * needs tokens > 10/2 after it: failures 1-4 leave 9, 8, 7, 6 (retry);
 * the 5th leaves 5, not above 5 (throttled). */
START_TEST(retries_stop_when_tokens_reach_half)
{
    const char *params[] = {"max_attempts=100"};
    h = ph_create("immediate+token_bucket", params, 1);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(fail503(), SB_RETRY);
    ck_assert_int_eq(fail503(), SB_GIVE_UP);
}
END_TEST

/* At 5 tokens, 10 successes (+0.1 each) reach exactly 6.0: a failure
 * leaves 5.0, throttled; an 11th success makes 6.1 and the failure leaves
 * 5.1, allowed.  (Tokens are kept in thousandths, as gRPC does.) */
START_TEST(success_adds_token_ratio)
{
    h = ph_create("immediate+token_bucket", NULL, 0);
    for (int i = 0; i < 5; i++)
        fail503(); /* 10 -> 5 */
    successes(10);
    ck_assert_int_eq(fail503(), SB_GIVE_UP); /* 6.0 -> 5.0 */
    successes(11);
    ck_assert_int_eq(fail503(), SB_RETRY); /* 5.0 -> 6.1 -> 5.1 */
}
END_TEST

/* Hedges are throttled at the same threshold: refused at exactly 5.0
 * (not > 5), allowed at 5.1.  First attempts are never throttled, even
 * with an empty bucket. */
START_TEST(hedges_throttled_first_attempts_never)
{
    h = ph_create("token_bucket", NULL, 0);
    ck_assert(hedge_allowed());
    for (int i = 0; i < 5; i++)
        fail503(); /* 5.0 */
    ck_assert(!hedge_allowed());
    successes(1); /* 5.1 */
    ck_assert(hedge_allowed());
    for (int i = 0; i < 30; i++)
        fail503(); /* floor at 0 */
    ph_new_request(h);
    sb_attempt a = ph_attempt(h, 1);
    ck_assert(ph_allowed(h, &a));
}
END_TEST

/* The count stays in [0, max_tokens].  100 successes on a full bucket
 * leave it at 10, so the 5th failure still throttles (at 20 it would
 * take the 15th).  30 failures leave it at 0, not -20: 51 successes
 * (5.1) then allow a hedge, 50 (5.0) do not. */
START_TEST(tokens_stay_between_zero_and_max)
{
    h = ph_create("immediate+token_bucket", NULL, 0);
    successes(100);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(fail503(), SB_RETRY);
    ck_assert_int_eq(fail503(), SB_GIVE_UP);
    for (int i = 0; i < 30; i++)
        fail503();
    successes(50);
    ck_assert(!hedge_allowed());
    successes(1);
    ck_assert(hedge_allowed());
}
END_TEST

/* Only retryable failures cost a token (A6 counts failures with a
 * retryable status): after 20 404s the bucket is still full, so 4 503s
 * still retry and the 5th is throttled, as from a fresh bucket. */
START_TEST(permanent_errors_cost_nothing)
{
    h = ph_create("immediate+token_bucket", NULL, 0);
    for (int i = 0; i < 20; i++)
        ph_fail(h, 1, SB_ERR_HTTP, 404);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(fail503(), SB_RETRY);
    ck_assert_int_eq(fail503(), SB_GIVE_UP);
}
END_TEST

/* max_tokens = 20: 9 failures allowed (19 .. 11), the 10th (10) not.
 * token_ratio = 1.001 is three decimals and counts in full: from 5.0 a
 * success gives 6.001 and a failure leaves 5.001, allowed -- truncating
 * 1.001 x 1000 = 1000.999... to 1000 would leave 5.000, throttled. */
START_TEST(parameters_max_tokens_and_token_ratio)
{
    const char *p1[] = {"max_tokens=20"};
    h = ph_create("immediate+token_bucket", p1, 1);
    for (int i = 0; i < 9; i++)
        ck_assert_int_eq(fail503(), SB_RETRY);
    ck_assert_int_eq(fail503(), SB_GIVE_UP);
    ph_free(h);
    const char *p2[] = {"token_ratio=1.001"};
    h = ph_create("immediate+token_bucket", p2, 1);
    for (int i = 0; i < 5; i++)
        fail503();
    successes(1);
    ck_assert_int_eq(fail503(), SB_RETRY);
}
END_TEST

/* A6 bounds max_tokens to (0, 1000]; the error lists the range. */
START_TEST(max_tokens_out_of_range)
{
    const char *params[] = {"token_bucket.max_tokens=2000"};
    const char *msg = ph_build_error("immediate+token_bucket", params, 1);
    ck_assert_msg(strstr(msg, "max_tokens") && strstr(msg, "1000") &&
                      strstr(msg, "'2000'"),
                  "got: %s", msg);
}
END_TEST

/* ---- Effect: amplification ~1 once the tokens drain --------------------
 *
 * 50 clients x 2/s; the server refuses every connection from 20 s to
 * 100 s; answers are instant (no network delay) and `immediate` retries
 * at once, 5 attempts.  Alone, every request in the outage makes exactly
 * 5 attempts in the instant it starts: amplification 5.0 in any window
 * inside the outage.  With token_bucket each client's first failing
 * request retries 4 times (tokens 10 -> 6) and its 5th failure (tokens
 * 5) ends it; nothing refills the bucket while every answer is a failure,
 * so from then on each request makes one attempt.  Over [15, 100) that
 * is exactly 4 extra attempts per client: attempts = offered + 200. */
static const char outage_ini[] =
    "[scenario]\nname = outage\nduration = 120s\nwarmup = 10s\n"
    "[clients]\ncount = 50\nrate = 2/s\ntimeout = 1s\n"
    "[server]\nworkers = unlimited\nservice = const(10ms)\n"
    "[policy]\nname = immediate\nmax_attempts = 5\n"
    "[fault.down]\ntype = outage\nstart = 20s\nduration = 80s\n"
    "mode = refuse\n";

START_TEST(effect_amplification_near_1_once_drained)
{
    tu_sim *t = tu_sim_run(outage_ini, NULL, NULL, 0);
    ck_assert_double_eq(ph_amplification(t, 30, 100), 5.0);
    tu_sim_free(t);
    t = tu_sim_run(outage_ini, "immediate+token_bucket", NULL, 0);
    ck_assert_double_eq(ph_amplification(t, 30, 100), 1.0);
    ph_window w = ph_sum(t, 15, 100);
    ck_assert_double_eq(w.attempts - w.offered, 4 * 50);
    tu_sim_free(t);
}
END_TEST

Suite *policy_token_bucket_suite(void)
{
    Suite *s = suite_create("policy_token_bucket");
    TCase *tc = tcase_create("tokens");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, retries_stop_when_tokens_reach_half);
    tcase_add_test(tc, success_adds_token_ratio);
    tcase_add_test(tc, hedges_throttled_first_attempts_never);
    tcase_add_test(tc, tokens_stay_between_zero_and_max);
    tcase_add_test(tc, permanent_errors_cost_nothing);
    tcase_add_test(tc, parameters_max_tokens_and_token_ratio);
    tcase_add_test(tc, max_tokens_out_of_range);
    suite_add_tcase(s, tc);
    TCase *e = tcase_create("effect");
    tcase_add_test(e, effect_amplification_near_1_once_drained);
    suite_add_tcase(s, e);
    return s;
}
