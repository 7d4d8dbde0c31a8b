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

/* The case: a status gRPC does not retry is not retried, at any
 * token count.  With max_tokens = 2, one UNAVAILABLE leaves 1 <= 1
 * (throttled); INVALID_ARGUMENT is outside the default
 * retryable_status_codes and gives up without a token -- before this fix
 * it was passed to `immediate`, which retried it at zero tokens.  A 404
 * without grpc-status reads as UNIMPLEMENTED (http-grpc-status-mapping.md)
 * and is not retried either; a 503 reads as UNAVAILABLE and is. */
/* throttling = false is a gRPC channel with a retryPolicy and no
 * retryThrottling: 100 failures in a row are all retried (a bucket of 10
 * would stop at the 5th), hedges are never refused, and a status outside
 * the list is still not retried. */
START_TEST(without_throttling_only_the_status_check)
{
    const char *params[] = {"max_attempts=1000", "throttling=false"};
    h = ph_create("immediate+token_bucket", params, 2);
    for (int i = 0; i < 100; i++)
        ck_assert_int_eq(fail503(), SB_RETRY);
    ck_assert(hedge_allowed());
    ck_assert_int_eq(ph_fail(h, 1, SB_ERR_GRPC, 3).action, SB_GIVE_UP);
}
END_TEST

START_TEST(statuses_outside_the_list_are_not_retried)
{
    const char *params[] = {"max_tokens=2"};
    h = ph_create("immediate+token_bucket", params, 1);
    sb_decision d = ph_fail(h, 1, SB_ERR_GRPC, SB_GRPC_INVALID_ARGUMENT);
    ck_assert_int_eq(d.action, SB_GIVE_UP);
    ck_assert_str_eq(d.reason,
                     "token_bucket: status not in retryable_status_codes");
    ck_assert_int_eq(ph_fail(h, 1, SB_ERR_GRPC, SB_GRPC_UNAVAILABLE).action,
                     SB_GIVE_UP); /* 2 -> 1: throttled */
    ck_assert_int_eq(
        ph_fail(h, 1, SB_ERR_GRPC, SB_GRPC_INVALID_ARGUMENT).action,
        SB_GIVE_UP);
    ph_free(h);
    h = ph_create("immediate+token_bucket", NULL, 0);
    ck_assert_int_eq(ph_fail(h, 1, SB_ERR_HTTP, 404).action, SB_GIVE_UP);
    ck_assert_int_eq(ph_fail(h, 1, SB_ERR_HTTP, 503).action, SB_RETRY);
    ph_free(h);
    const char *codes[] = {"retryable_status_codes=INVALID_ARGUMENT"};
    h = ph_create("immediate+token_bucket", codes, 1);
    ck_assert_int_eq(
        ph_fail(h, 1, SB_ERR_GRPC, SB_GRPC_INVALID_ARGUMENT).action, SB_RETRY);
    ck_assert_int_eq(ph_fail(h, 1, SB_ERR_GRPC, SB_GRPC_UNAVAILABLE).action,
                     SB_GIVE_UP);
}
END_TEST

/* The command, through the real binary: `decide` says give_up
 * for INVALID_ARGUMENT (it said retry, at any token count). */
START_TEST(decide_does_not_retry_invalid_argument)
{
    tu_output o;
    const char *argl[] = {"decide",
                          "--policy",
                          "immediate+token_bucket",
                          "--param",
                          "max_tokens=2",
                          "--error",
                          "grpc",
                          "--status",
                          "INVALID_ARGUMENT",
                          "--attempt",
                          "1",
                          NULL};
    ck_assert_int_eq(tu_stormbench(&o, argl), 0);
    ck_assert_msg(strstr(o.out, "\"action\": \"give_up\"") &&
                      strstr(o.out, "not in retryable_status_codes"),
                  "got: %s", o.out);
    tu_output_free(&o);
}
END_TEST

/* Pushback (A6 "Pushback"): "do not retry" ends the request and costs a
 * token even for a status outside the list; a delay is the least delay
 * of the retry.  With pushback = false both are ignored. */
START_TEST(pushback_stop_and_delay)
{
    h = ph_create("immediate+token_bucket", NULL, 0);
    sb_attempt a = ph_attempt(h, 1);
    ph_error(&a, SB_ERR_GRPC, SB_GRPC_INVALID_ARGUMENT);
    a.pushback_s = SB_PUSHBACK_STOP;
    for (int i = 0; i < 4; i++) /* 10 -> 6 */
        ck_assert_int_eq(ph_failure(h, &a).action, SB_GIVE_UP);
    ck_assert_int_eq(fail503(), SB_GIVE_UP); /* 6 -> 5: throttled */
    ph_free(h);
    h = ph_create("immediate+token_bucket", NULL, 0);
    a = ph_attempt(h, 1);
    ph_error(&a, SB_ERR_GRPC, SB_GRPC_UNAVAILABLE);
    a.pushback_s = 0.75;
    sb_decision d = ph_failure(h, &a);
    ck_assert_int_eq(d.action, SB_RETRY);
    ck_assert_double_eq(d.delay_s, 0.75);
    ph_free(h);
    const char *off[] = {"pushback=false"};
    h = ph_create("immediate+token_bucket", off, 1);
    a.pushback_s = SB_PUSHBACK_STOP;
    d = ph_failure(h, &a);
    ck_assert_int_eq(d.action, SB_RETRY);
    ck_assert_double_eq(d.delay_s, 0.0);
}
END_TEST

/* The list is a set parameter (ABI 2.1): names separated by commas,
 * spaces allowed around them; "all" is every code, nothing is none; an
 * unknown name is an error that lists the codes. */
START_TEST(retryable_status_codes_is_a_set)
{
    const char *all[] = {"retryable_status_codes=all"};
    h = ph_create("immediate+token_bucket", all, 1);
    ck_assert_int_eq(
        ph_fail(h, 1, SB_ERR_GRPC, SB_GRPC_INVALID_ARGUMENT).action, SB_RETRY);
    ph_free(h);
    const char *none[] = {"retryable_status_codes="};
    h = ph_create("immediate+token_bucket", none, 1);
    ck_assert_int_eq(ph_fail(h, 1, SB_ERR_GRPC, SB_GRPC_UNAVAILABLE).action,
                     SB_GIVE_UP);
    ph_free(h);
    const char *two[] = {"retryable_status_codes= INTERNAL , NOT_FOUND"};
    h = ph_create("immediate+token_bucket", two, 1);
    ck_assert_int_eq(ph_fail(h, 1, SB_ERR_GRPC, SB_GRPC_NOT_FOUND).action,
                     SB_RETRY);
    ck_assert_int_eq(ph_fail(h, 1, SB_ERR_HTTP, 400).action, SB_RETRY);
    ck_assert_int_eq(ph_fail(h, 1, SB_ERR_GRPC, SB_GRPC_UNAVAILABLE).action,
                     SB_GIVE_UP);
    const char *bad[] = {"retryable_status_codes=UNAVAILABLE,NOPE"};
    const char *msg = ph_build_error("immediate+token_bucket", bad, 1);
    ck_assert_msg(strstr(msg, "retryable_status_codes") &&
                      strstr(msg, "got 'NOPE' in 'UNAVAILABLE,NOPE'") &&
                      strstr(msg, "|UNAVAILABLE|"),
                  "got: %s", msg);
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

/* ---- Reference: grpc-java's arithmetic, decision by decision ------------
 *
 * Written from grpc/grpc-java core/src/main/java/io/grpc/internal/
 * RetriableStream.java (commit 003b8789b73606fb7597c77480e26b1905c40b8e):
 *   - class Throttle: maxTokens and tokenRatio scaled by 1000 and cast to
 *     int from float, threshold = maxTokens / 2, isAboveThreshold() is
 *     tokenCount > threshold, onQualifiedFailureThenCheckIsAboveThreshold()
 *     returns false at 0 and otherwise stores max(count - 1000, 0) and
 *     returns (count - 1000) > threshold, onSuccess() adds tokenRatio up
 *     to maxTokens;
 *   - Sublistener.makeRetryDecision(): a failure is charged when its code
 *     is in retryableStatusCodes or its pushback is negative; then, when
 *     maxAttempts > previousAttemptCount + 1 and not throttled, it retries
 *     if there is no pushback and the code is retryable, or after the
 *     pushback when that is >= 0;
 *   - Sublistener.headersRead(): throttle.onSuccess() for the winner;
 *   - start() and HedgingRunnable: a hedge only while isAboveThreshold().
 * An answer without grpc-status maps by grpc/grpc
 * doc/http-grpc-status-mapping.md; a timed-out attempt is
 * DEADLINE_EXCEEDED and a refused or reset connection UNAVAILABLE (what
 * a gRPC client reports for them).  The policy under test is
 * immediate+token_bucket: gRPC's retryPolicy with a zero backoff. */
typedef struct gj_throttle {
    int max_tokens, threshold, token_ratio, count;
} gj_throttle;

static void gj_init(gj_throttle *t, float max_tokens, float token_ratio)
{
    t->token_ratio = (int)(token_ratio * 1000);
    t->max_tokens = (int)(max_tokens * 1000);
    t->threshold = t->max_tokens / 2;
    t->count = t->max_tokens;
}

static bool gj_failure_then_above(gj_throttle *t)
{
    if (t->count == 0)
        return false;
    int decremented = t->count - 1000;
    t->count = decremented > 0 ? decremented : 0;
    return decremented > t->threshold;
}

static void gj_success(gj_throttle *t)
{
    if (t->count == t->max_tokens)
        return;
    int incremented = t->count + t->token_ratio;
    t->count = incremented < t->max_tokens ? incremented : t->max_tokens;
}

/* pushback_ms: INT32_MIN when absent. */
static bool gj_should_retry(gj_throttle *t, unsigned retryable, int code,
                            int pushback_ms, int max_attempts,
                            int previous_attempts)
{
    bool is_retryable = (retryable >> code) & 1u;
    bool has_pushback = pushback_ms != INT32_MIN;
    bool throttled = false;
    if (is_retryable || (has_pushback && pushback_ms < 0))
        throttled = !gj_failure_then_above(t);
    if (max_attempts > previous_attempts + 1 && !throttled) {
        if (!has_pushback)
            return is_retryable;
        return pushback_ms >= 0;
    }
    return false;
}

/* What a gRPC client sees, per outcome (the table above, by hand). */
typedef struct gj_outcome {
    sb_error_kind kind;
    int status;
    int code;
} gj_outcome;

static const gj_outcome gj_outcomes[] = {
    {SB_ERR_GRPC, 1, 1},     {SB_ERR_GRPC, 2, 2},    {SB_ERR_GRPC, 3, 3},
    {SB_ERR_GRPC, 4, 4},     {SB_ERR_GRPC, 5, 5},    {SB_ERR_GRPC, 8, 8},
    {SB_ERR_GRPC, 10, 10},   {SB_ERR_GRPC, 13, 13},  {SB_ERR_GRPC, 14, 14},
    {SB_ERR_GRPC, 14, 14},   {SB_ERR_GRPC, 16, 16},  {SB_ERR_HTTP, 400, 13},
    {SB_ERR_HTTP, 404, 12},  {SB_ERR_HTTP, 429, 14}, {SB_ERR_HTTP, 500, 2},
    {SB_ERR_HTTP, 503, 14},  {SB_ERR_HTTP, 504, 14}, {SB_ERR_TIMEOUT, 0, 4},
    {SB_ERR_REFUSED, 0, 14}, {SB_ERR_RESET, 0, 14},
};

/* A small deterministic generator for the replays (Knuth's MMIX LCG). */
static uint64_t lcg_state;

static uint32_t lcg(uint32_t n)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((lcg_state >> 33) % n);
}

START_TEST(reference_grpc_java_throttle_and_retry_decision)
{
    const char *params[] = {"max_attempts=4", "max_tokens=7",
                            "token_ratio=0.37",
                            ("retryable_status_codes=UNAVAILABLE,INTERNAL,"
                             "DEADLINE_EXCEEDED")};
    h = ph_create("immediate+token_bucket", params, 4);
    gj_throttle t;
    gj_init(&t, 7.0f, 0.37f);
    unsigned retryable = 1u << 14 | 1u << 13 | 1u << 4;
    /* Phases of 80 events, each with its share of successes: drain,
     * refill, hover near the threshold, drain to 0, refill to full. */
    static const int success_pct[] = {5, 95, 45, 0, 100, 30, 70, 10, 90, 50};
    int retries = 0, throttled = 0, hedges_refused = 0, decisions = 0;
    bool hit_zero = false, hit_full_again = false;
    lcg_state = 12;
    for (int phase = 0; phase < 10; phase++) {
        for (int e = 0; e < 80; e++) {
            if ((int)lcg(100) < success_pct[phase]) {
                ph_ok_request(h);
                gj_success(&t);
                hit_full_again |= hit_zero && t.count == t.max_tokens;
                continue;
            }
            uint32_t n = 1 + lcg(4);
            const gj_outcome *o =
                &gj_outcomes[lcg(sizeof gj_outcomes / sizeof *gj_outcomes)];
            uint32_t pb = lcg(10);
            int pushback_ms = pb == 0 ? -1 : pb == 1 ? 250 : INT32_MIN;
            sb_attempt a = ph_attempt(h, n);
            ph_error(&a, o->kind, o->status);
            a.pushback_s = pushback_ms == INT32_MIN ? SB_PUSHBACK_NONE
                           : pushback_ms < 0        ? SB_PUSHBACK_STOP
                                                    : pushback_ms / 1e3;
            int before = t.count;
            bool want = gj_should_retry(&t, retryable, o->code, pushback_ms, 4,
                                        (int)n - 1);
            sb_decision d = ph_failure(h, &a);
            decisions++;
            ck_assert_msg((d.action == SB_RETRY) == want,
                          "phase %d event %d: attempt %u, code %d, pushback "
                          "%d ms, tokens %d -> %d: gRPC %s, token_bucket %s",
                          phase, e, n, o->code, pushback_ms, before, t.count,
                          want ? "retries" : "does not", d.reason);
            if (want)
                ck_assert_double_eq(d.delay_s,
                                    pushback_ms > 0 ? pushback_ms / 1e3 : 0);
            retries += want;
            throttled += !want && t.count * 2 <= t.max_tokens &&
                         ((retryable >> o->code) & 1u);
            hit_zero |= t.count == 0;
            if (e % 5 == 0) {
                ph_new_request(h);
                sb_attempt hg = ph_attempt(h, 2);
                hg.hedge = 1;
                bool sent = ph_allowed(h, &hg);
                ck_assert_int_eq(sent, t.count > t.threshold);
                hedges_refused += !sent;
            }
        }
    }
    /* The replay went through exhaustion and refill: many decisions each
     * way, the bucket empty at times and full again after. */
    ck_assert_int_ge(decisions, 300);     /* 402 */
    ck_assert_int_ge(retries, 30);        /* 36 */
    ck_assert_int_ge(throttled, 100);     /* 203 */
    ck_assert_int_ge(hedges_refused, 10); /* 67 */
    ck_assert(hit_zero && hit_full_again);
}
END_TEST

/* ---- Effect: a server that says "do not retry" is not retried ----------
 *
 * 20 clients x 5/s; every answer in [10 s, 50 s) is UNAVAILABLE with
 * probability 0.5 and a grpc-retry-pushback-ms of -1 ("stop").  A6: no
 * retry, so every request makes exactly one attempt, tokens or not.
 * With pushback = false the UNAVAILABLEs are retried while the bucket
 * allows it (max_tokens 1000, token_ratio 1: a random walk that never
 * falls to the threshold), about 1 retry per failure. */
static const char pushback_ini[] =
    "[scenario]\nname = pushback\nduration = 60s\nwarmup = 5s\n"
    "[clients]\ncount = 20\nrate = 5/s\ntimeout = 1s\n"
    "[server]\nworkers = unlimited\nservice = const(10ms)\n"
    "[policy]\nname = immediate\n"
    "[fault.e]\ntype = errors\nstart = 10s\nduration = 40s\n"
    "status = UNAVAILABLE\nprobability = 0.5\npushback = stop\n";

START_TEST(effect_pushback_stop_means_no_retry)
{
    const char *params[] = {"max_tokens=1000", "token_ratio=1"};
    tu_sim *t = tu_sim_run(pushback_ini, "immediate+token_bucket", params, 2);
    ph_window w = ph_sum(t, 10, 50);
    ck_assert_double_gt(w.failures, 1000);
    ck_assert_double_eq(w.attempts, w.offered);
    tu_sim_free(t);
    const char *off[] = {"max_tokens=1000", "token_ratio=1", "pushback=false"};
    t = tu_sim_run(pushback_ini, "immediate+token_bucket", off, 3);
    ck_assert_double_gt(ph_amplification(t, 15, 45), 1.5);
    tu_sim_free(t);
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
    tcase_add_test(tc, statuses_outside_the_list_are_not_retried);
    tcase_add_test(tc, without_throttling_only_the_status_check);
    tcase_add_test(tc, pushback_stop_and_delay);
    tcase_add_test(tc, retryable_status_codes_is_a_set);
    tcase_add_test(tc, decide_does_not_retry_invalid_argument);
    tcase_add_test(tc, reference_grpc_java_throttle_and_retry_decision);
    suite_add_tcase(s, tc);
    TCase *e = tcase_create("effect");
    tcase_add_test(e, effect_amplification_near_1_once_drained);
    tcase_add_test(e, effect_pushback_stop_means_no_retry);
    suite_add_tcase(s, e);
    return s;
}
