/*
 * check_policy_classified.c -- classify, then decide: the decision
 * matrix, every preset's attempts, backoff, Retry-After and status list,
 * the write and critical-path caps, the deadline precondition, and the
 * effect a run must show (an unkeyed post is never retried after a
 * timeout, so a lost acknowledgement never becomes a duplicate write).
 */
#include "policy_harness.h"

static ph *h;

static void teardown(void)
{
    ph_free(h);
    h = NULL;
}

/* A classified stack with a preset and no jitter, so delays are exact. */
static ph *preset(const char *name)
{
    char p[64];
    snprintf(p, sizeof p, "preset=%s", name);
    const char *params[] = {p, "jitter=none"};
    return ph_create("classified", params, 2);
}

static sb_action act(sb_op op, bool keyed, uint32_t n, sb_error_kind kind,
                     int status)
{
    sb_attempt a = ph_attempt(h, n);
    a.op = op;
    a.keyed = keyed;
    ph_error(&a, kind, status);
    return ph_failure(h, &a).action;
}

/* ---- The decision matrix (preset internal: 408 429 500 502 503 504) --- */

/* Transient + read, put or keyed post => retry.  Transient + unkeyed
 * post => retry only when it never left the client (refused): after a
 * timeout, a reset or a 503 it may have committed. */
START_TEST(transient_retries_unless_an_unkeyed_post_was_sent)
{
    h = preset("internal");
    ck_assert_int_eq(act(SB_OP_READ, 0, 1, SB_ERR_HTTP, 503), SB_RETRY);
    ck_assert_int_eq(act(SB_OP_PUT, 0, 1, SB_ERR_HTTP, 503), SB_RETRY);
    ck_assert_int_eq(act(SB_OP_POST, 1, 1, SB_ERR_HTTP, 503), SB_RETRY);
    ck_assert_int_eq(act(SB_OP_POST, 1, 1, SB_ERR_TIMEOUT, 0), SB_RETRY);
    ck_assert_int_eq(act(SB_OP_POST, 0, 1, SB_ERR_REFUSED, 0), SB_RETRY);
    ck_assert_int_eq(act(SB_OP_POST, 0, 1, SB_ERR_TIMEOUT, 0), SB_GIVE_UP);
    ck_assert_int_eq(act(SB_OP_POST, 0, 1, SB_ERR_RESET, 0), SB_GIVE_UP);
    ck_assert_int_eq(act(SB_OP_POST, 0, 1, SB_ERR_HTTP, 503), SB_GIVE_UP);
}
END_TEST

/* Permanent and data-defect errors fail fast, on any operation, and say
 * so. */
START_TEST(permanent_fails_fast)
{
    h = preset("internal");
    sb_decision d = ph_fail(h, 1, SB_ERR_HTTP, 404);
    ck_assert_int_eq(d.action, SB_GIVE_UP);
    ck_assert_str_eq(d.reason, "classified: permanent error, fail fast");
    ck_assert_int_eq(act(SB_OP_READ, 0, 1, SB_ERR_GRPC, SB_GRPC_NOT_FOUND),
                     SB_GIVE_UP);
    sb_attempt a = ph_attempt(h, 1);
    ph_error(&a, SB_ERR_HTTP, 422);
    a.defect = SB_DEFECT_INVALID_SCHEMA;
    ck_assert_int_eq(ph_failure(h, &a).action, SB_GIVE_UP);
}
END_TEST

/* Unknown (500, low confidence) + read: at most 2 retries, so attempts 1
 * and 2 retry and attempt 3 stops although internal allows 4.  Unknown +
 * write: no retry. */
START_TEST(unknown_retries_reads_twice_and_writes_never)
{
    h = preset("internal");
    ck_assert_int_eq(act(SB_OP_READ, 0, 1, SB_ERR_HTTP, 500), SB_RETRY);
    ck_assert_int_eq(act(SB_OP_READ, 0, 2, SB_ERR_HTTP, 500), SB_RETRY);
    ck_assert_int_eq(act(SB_OP_READ, 0, 3, SB_ERR_HTTP, 500), SB_GIVE_UP);
    ck_assert_int_eq(act(SB_OP_READ, 0, 3, SB_ERR_HTTP, 503), SB_RETRY);
    ck_assert_int_eq(act(SB_OP_PUT, 0, 1, SB_ERR_HTTP, 500), SB_GIVE_UP);
    ck_assert_int_eq(act(SB_OP_POST, 1, 1, SB_ERR_HTTP, 500), SB_GIVE_UP);
}
END_TEST

/* ---- Presets ---------------------------------------------------------- */

typedef struct preset_row {
    const char *name;
    int attempts;
    double base, cap;
    bool retry_after;
    int retried[8];
    int never[8];
} preset_row;

/* The presets.  `never` holds statuses each must not retry: for
 * payment the issue's own list; for the others the transient statuses
 * their list leaves out (analytics: 408, 429, 500; external_api: 408;
 * internal: none, so a permanent 400 stands in). */
static const preset_row presets[] = {
    {"payment",
     5,
     0.1,
     5.0,
     true,
     {408, 429, 502, 503, 504},
     {400, 401, 402, 403, 404, 409, 422, 500}},
    {"analytics", 2, 0.05, 0.5, false, {502, 503, 504}, {408, 429, 500}},
    {"external_api", 3, 1.0, 60.0, true, {429, 500, 502, 503, 504}, {408}},
    {"internal", 4, 0.1, 2.0, true, {408, 429, 500, 502, 503, 504}, {400}},
};

/* A read may make `attempts` attempts: attempt n-1 retries, attempt n
 * stops. */
START_TEST(preset_attempts)
{
    const preset_row *p = &presets[_i];
    h = preset(p->name);
    uint32_t n = (uint32_t)p->attempts;
    if (n > 1)
        ck_assert_int_eq(act(SB_OP_READ, 0, n - 1, SB_ERR_HTTP, 503), SB_RETRY);
    ck_assert_int_eq(act(SB_OP_READ, 0, n, SB_ERR_HTTP, 503), SB_GIVE_UP);
}
END_TEST

/* Without jitter the first delay is the base, and base x 2^9 is past
 * every preset's cap, so attempt 10 (max_attempts raised) waits the cap. */
START_TEST(preset_base_and_cap)
{
    const preset_row *p = &presets[_i];
    char pre[64];
    snprintf(pre, sizeof pre, "preset=%s", p->name);
    const char *params[] = {pre, "jitter=none", "max_attempts=20"};
    h = ph_create("classified", params, 3);
    ck_assert_double_eq_tol(ph_fail(h, 1, SB_ERR_HTTP, 503).delay_s, p->base,
                            1e-12);
    ck_assert_double_eq_tol(ph_fail(h, 10, SB_ERR_HTTP, 503).delay_s, p->cap,
                            1e-12);
}
END_TEST

/* Each listed status is retried (on a read, attempt 1); each of `never`
 * is not. */
START_TEST(preset_statuses)
{
    const preset_row *p = &presets[_i];
    h = preset(p->name);
    for (int i = 0; i < 8 && p->retried[i]; i++)
        ck_assert_msg(act(SB_OP_READ, 0, 1, SB_ERR_HTTP, p->retried[i]) ==
                          SB_RETRY,
                      "%s should retry %d", p->name, p->retried[i]);
    for (int i = 0; i < 8 && p->never[i]; i++)
        ck_assert_msg(act(SB_OP_READ, 0, 1, SB_ERR_HTTP, p->never[i]) ==
                          SB_GIVE_UP,
                      "%s should not retry %d", p->name, p->never[i]);
}
END_TEST

/* A Retry-After of 3 s, far above the base: presets that respect it wait
 * 3 s; analytics waits its own 50 ms. */
START_TEST(preset_retry_after)
{
    const preset_row *p = &presets[_i];
    h = preset(p->name);
    sb_attempt a = ph_attempt(h, 1);
    ph_error(&a, SB_ERR_HTTP, 503);
    a.retry_after_s = 3.0;
    sb_decision d = ph_failure(h, &a);
    ck_assert_int_eq(d.action, SB_RETRY);
    ck_assert_double_eq_tol(d.delay_s, p->retry_after ? 3.0 : p->base, 1e-12);
}
END_TEST

/* gRPC codes follow the list through google.rpc.Code's HTTP equivalents:
 * RESOURCE_EXHAUSTED is 429 (payment retries it, analytics does not),
 * UNAVAILABLE is 503 (both retry), ABORTED is 409 (nobody retries). */
START_TEST(grpc_codes_follow_the_status_list)
{
    h = preset("payment");
    ck_assert_int_eq(
        act(SB_OP_READ, 0, 1, SB_ERR_GRPC, SB_GRPC_RESOURCE_EXHAUSTED),
        SB_RETRY);
    ck_assert_int_eq(act(SB_OP_READ, 0, 1, SB_ERR_GRPC, SB_GRPC_ABORTED),
                     SB_GIVE_UP);
    ph_free(h);
    h = preset("analytics");
    ck_assert_int_eq(
        act(SB_OP_READ, 0, 1, SB_ERR_GRPC, SB_GRPC_RESOURCE_EXHAUSTED),
        SB_GIVE_UP);
    ck_assert_int_eq(act(SB_OP_READ, 0, 1, SB_ERR_GRPC, SB_GRPC_UNAVAILABLE),
                     SB_RETRY);
}
END_TEST

/* ---- Attempt caps ------------------------------------------------------ */

static sb_action critical(sb_op op, uint32_t n)
{
    sb_attempt a = ph_attempt(h, n);
    a.op = op;
    a.critical = 1;
    ph_error(&a, SB_ERR_HTTP, 503);
    return ph_failure(h, &a).action;
}

/* Writes: at most 3 attempts whatever the preset (payment's 5 -> 3);
 * analytics' 2 stays 2.  Critical path: +2, at most 7: a payment read
 * 5 + 2 = 7, a payment put 3 + 2 = 5, an internal read 4 + 2 = 6. */
START_TEST(writes_cap_at_3_and_critical_adds_2_up_to_7)
{
    h = preset("payment");
    ck_assert_int_eq(act(SB_OP_PUT, 0, 2, SB_ERR_HTTP, 503), SB_RETRY);
    ck_assert_int_eq(act(SB_OP_PUT, 0, 3, SB_ERR_HTTP, 503), SB_GIVE_UP);
    ck_assert_int_eq(act(SB_OP_POST, 1, 3, SB_ERR_HTTP, 503), SB_GIVE_UP);
    ck_assert_int_eq(critical(SB_OP_READ, 6), SB_RETRY);
    ck_assert_int_eq(critical(SB_OP_READ, 7), SB_GIVE_UP);
    ck_assert_int_eq(critical(SB_OP_PUT, 4), SB_RETRY);
    ck_assert_int_eq(critical(SB_OP_PUT, 5), SB_GIVE_UP);
    ph_free(h);
    h = preset("analytics");
    ck_assert_int_eq(act(SB_OP_PUT, 0, 2, SB_ERR_HTTP, 503), SB_GIVE_UP);
    ph_free(h);
    h = preset("internal");
    ck_assert_int_eq(critical(SB_OP_READ, 5), SB_RETRY);
    ck_assert_int_eq(critical(SB_OP_READ, 6), SB_GIVE_UP);
}
END_TEST

/* The critical cap binds: payment with max_attempts 6 would give a
 * critical read 8; it gets 7. */
START_TEST(critical_never_exceeds_7)
{
    const char *params[] = {"preset=payment", "jitter=none", "max_attempts=6"};
    h = ph_create("classified", params, 3);
    ck_assert_int_eq(critical(SB_OP_READ, 6), SB_RETRY);
    ck_assert_int_eq(critical(SB_OP_READ, 7), SB_GIVE_UP);
}
END_TEST

/* ---- Preconditions and defaults ---------------------------------------- */

/* Time left must cover the delay plus one more attempt (its 1 s
 * timeout): payment's first delay is 0.1 s, so 1.1 s left is enough and
 * 1.05 s is not.  A 3 s Retry-After needs 4 s left. */
START_TEST(no_retry_without_time_for_delay_plus_attempt)
{
    h = preset("payment");
    sb_attempt a = ph_attempt(h, 1);
    ph_error(&a, SB_ERR_HTTP, 503);
    a.remaining_s = 1.1;
    ck_assert_int_eq(ph_failure(h, &a).action, SB_RETRY);
    a.remaining_s = 1.05;
    ck_assert_int_eq(ph_failure(h, &a).action, SB_GIVE_UP);
    a.retry_after_s = 3.0;
    a.remaining_s = 3.9;
    ck_assert_int_eq(ph_failure(h, &a).action, SB_GIVE_UP);
    a.remaining_s = 4.0;
    ck_assert_int_eq(ph_failure(h, &a).action, SB_RETRY);
}
END_TEST

/* Defaults: preset internal (4 attempts), full jitter: after attempt 3
 * the ceiling is min(2, 0.1 x 4) = 0.4 s and U = 0.5 waits 0.2 s. */
START_TEST(defaults_are_internal_with_full_jitter)
{
    h = ph_create("classified", NULL, 0);
    ph_script(h, 1, 0.5);
    sb_decision d = ph_fail(h, 3, SB_ERR_HTTP, 503);
    ck_assert_int_eq(d.action, SB_RETRY);
    ck_assert_double_eq_tol(d.delay_s, 0.2, 1e-12);
    ck_assert_int_eq(ph_fail(h, 4, SB_ERR_HTTP, 503).action, SB_GIVE_UP);
    ph_free(h);
    /* ratio jitter spreads +/- 50 % by default (resilience4j's
     * randomizationFactor; it was 0.2, no library's): 0.1 s after attempt
     * 1 with U = 1 - 2^-53 (U(-1, 1) ~ 1) is 0.15 s, with U = 0 0.05 s. */
    const char *params[] = {"jitter=ratio"};
    h = ph_create("classified", params, 1);
    ph_script(h, 2, 1.0 - 0x1.0p-53, 0.0);
    ck_assert_double_eq_tol(ph_fail(h, 1, SB_ERR_HTTP, 503).delay_s, 0.15,
                            1e-12);
    ck_assert_double_eq_tol(ph_fail(h, 1, SB_ERR_HTTP, 503).delay_s, 0.05,
                            1e-12);
}
END_TEST

/* "Breaker not open" is met by stacking the breaker: its on_failure
 * gives up while open, so the 5th failure in a row (which opens it) is
 * not retried although classified would. */
START_TEST(breaker_not_open_precondition_by_stacking)
{
    const char *params[] = {"jitter=none", "max_attempts=10"};
    h = ph_create("classified+circuit_breaker", params, 2);
    for (uint32_t n = 1; n <= 4; n++)
        ck_assert_int_eq(ph_fail(h, n, SB_ERR_HTTP, 503).action, SB_RETRY);
    sb_decision d = ph_fail(h, 5, SB_ERR_HTTP, 503);
    ck_assert_int_eq(d.action, SB_GIVE_UP);
    ck_assert_str_eq(d.reason, "circuit_breaker: open");
}
END_TEST

/* ---- Effect: no duplicate writes from retried posts ---------------------
 *
 * Only unkeyed posts; 30 % of acknowledgements are lost after the post
 * committed, so the client times out.  `exponential` (5 attempts)
 * retries the timed-out post, which commits again: per post q + q^2 +
 * q^3 + q^4 = 0.3 + 0.09 + 0.027 + 0.0081 = 0.425 duplicates (the
 * duplicates test of the engine works the same sum).  `classified` never
 * retries an unkeyed post after a timeout: not one duplicate, and not one
 * attempt beyond the first (attempts = offered exactly). */
static const char lost_ini[] =
    "[scenario]\nname = lost\nduration = 100s\nwarmup = 0s\n"
    "[clients]\ncount = 50\nrate = 1/s\npost = 1\nread = 0\ntimeout = 1s\n"
    "[server]\nworkers = unlimited\nservice = const(10ms)\n"
    "[policy]\nname = classified\n"
    "[fault.lost]\ntype = lost_ack\nstart = 0s\nduration = 100s\n"
    "probability = 0.3\n";

START_TEST(effect_unkeyed_posts_are_not_retried_after_a_timeout)
{
    tu_sim *t = tu_sim_run(lost_ini, NULL, NULL, 0);
    ck_assert_uint_gt(t->sum.timeouts, 1000);
    ck_assert_uint_eq(t->sum.duplicates, 0);
    ck_assert_uint_eq(t->sum.attempts, t->sum.offered);
    tu_sim_free(t);
    t = tu_sim_run(lost_ini, "exponential", NULL, 0);
    double per_post = (double)t->sum.duplicates / (double)t->sum.offered;
    ck_assert_double_eq_tol(per_post, 0.425, 0.04);
    tu_sim_free(t);
}
END_TEST

/* A refused connection never reached the server: classified retries even
 * an unkeyed post then.  During a 40 s outage that refuses connections,
 * posts (writes: 3 attempts) make 3 attempts each; when the outage
 * black-holes them instead they time out, and are not retried. */
static const char outage_ini[] =
    "[scenario]\nname = down\nduration = 60s\nwarmup = 0s\n"
    "[clients]\ncount = 50\nrate = 1/s\npost = 1\nread = 0\ntimeout = 1s\n"
    "[server]\nworkers = unlimited\nservice = const(10ms)\n"
    "[policy]\nname = classified\n"
    "[fault.down]\ntype = outage\nstart = 10s\nduration = 40s\nmode = %s\n";

START_TEST(effect_refused_posts_are_retried_timed_out_ones_not)
{
    char ini[sizeof outage_ini + 16];
    snprintf(ini, sizeof ini, outage_ini, "refuse");
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    /* Backoff is under 0.4 s, so a request's three attempts fall in its
     * own bucket or the next: [15, 45) is 3.0 up to the edges. */
    ck_assert_double_eq_tol(ph_amplification(t, 15, 45), 3.0, 0.02);
    tu_sim_free(t);
    snprintf(ini, sizeof ini, outage_ini, "blackhole");
    t = tu_sim_run(ini, NULL, NULL, 0);
    ck_assert_double_eq(ph_amplification(t, 15, 45), 1.0);
    tu_sim_free(t);
}
END_TEST

Suite *policy_classified_suite(void)
{
    Suite *s = suite_create("policy_classified");
    int np = (int)(sizeof presets / sizeof *presets);
    TCase *tc = tcase_create("decisions");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, transient_retries_unless_an_unkeyed_post_was_sent);
    tcase_add_test(tc, permanent_fails_fast);
    tcase_add_test(tc, unknown_retries_reads_twice_and_writes_never);
    tcase_add_loop_test(tc, preset_attempts, 0, np);
    tcase_add_loop_test(tc, preset_base_and_cap, 0, np);
    tcase_add_loop_test(tc, preset_statuses, 0, np);
    tcase_add_loop_test(tc, preset_retry_after, 0, np);
    tcase_add_test(tc, grpc_codes_follow_the_status_list);
    tcase_add_test(tc, writes_cap_at_3_and_critical_adds_2_up_to_7);
    tcase_add_test(tc, critical_never_exceeds_7);
    tcase_add_test(tc, no_retry_without_time_for_delay_plus_attempt);
    tcase_add_test(tc, defaults_are_internal_with_full_jitter);
    tcase_add_test(tc, breaker_not_open_precondition_by_stacking);
    suite_add_tcase(s, tc);
    TCase *e = tcase_create("effect");
    tcase_add_test(e, effect_unkeyed_posts_are_not_retried_after_a_timeout);
    tcase_add_test(e, effect_refused_posts_are_retried_timed_out_ones_not);
    suite_add_tcase(s, e);
    return s;
}
