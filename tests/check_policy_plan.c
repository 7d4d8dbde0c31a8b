/*
 * check_policy_plan.c -- the pipeline task's retry plan: the issue's three
 * cases, every error name, the delay formula min(6 x 2^(n-1), 48), the
 * options, and the effect a run must show (data defects are quarantined
 * at the first attempt, never retried).
 */
#include "policy_harness.h"

static ph *h;

static void teardown(void)
{
    ph_free(h);
    h = NULL;
}

static sb_decision fail_defect(uint32_t n, int status, sb_defect defect)
{
    sb_attempt a = ph_attempt(h, n);
    ph_error(&a, SB_ERR_HTTP, status);
    a.defect = defect;
    return ph_failure(h, &a);
}

/* The issue's three cases, with the defaults (4 attempts, 6 s, 48 s):
 * timeout at attempt 2 => 6 x 2^1 = 12 s; invalid_schema at attempt 1 =>
 * quarantine; rate_limited at attempt 4 => 4 is not < 4: stop. */
START_TEST(the_three_cases_of_the_issue)
{
    h = ph_create("plan", NULL, 0);
    sb_decision d = ph_fail(h, 2, SB_ERR_TIMEOUT, 0);
    ck_assert_int_eq(d.action, SB_RETRY);
    ck_assert_double_eq(d.delay_s, 12.0);
    ck_assert_int_eq(fail_defect(1, 422, SB_DEFECT_INVALID_SCHEMA).action,
                     SB_QUARANTINE);
    ck_assert_int_eq(ph_fail(h, 4, SB_ERR_HTTP, 429).action, SB_GIVE_UP);
}
END_TEST

/* 6 x 2^(n-1) for n = 1, 2, 3 is 6, 12, 24; with max_attempts raised, n =
 * 4 gives 48 and n = 5 (96) is capped to 48. */
START_TEST(delay_doubles_from_6s_to_the_48s_cap)
{
    const char *params[] = {"max_attempts=10"};
    h = ph_create("plan", params, 1);
    const double want[] = {6, 12, 24, 48, 48};
    for (uint32_t n = 1; n <= 5; n++) {
        sb_decision d = ph_fail(h, n, SB_ERR_RESET, 0);
        ck_assert_int_eq(d.action, SB_RETRY);
        ck_assert_double_eq(d.delay_s, want[n - 1]);
    }
}
END_TEST

/* Every error name of the plan.  Permanent (quarantine):
 * invalid_schema and missing_field (422), duplicate_business_key (409).
 * Transient (retry after 6 s at attempt 1): timeout, connection_reset
 * (reset, and refused, which the plan treats alike), rate_limited (HTTP
 * 429, gRPC RESOURCE_EXHAUSTED).  Anything else stops: 503, 500, a 422
 * without a defect code, gRPC UNAVAILABLE. */
START_TEST(every_error_name_maps_as_the_plan_says)
{
    h = ph_create("plan", NULL, 0);
    ck_assert_int_eq(fail_defect(1, 422, SB_DEFECT_MISSING_FIELD).action,
                     SB_QUARANTINE);
    ck_assert_int_eq(
        fail_defect(1, 409, SB_DEFECT_DUPLICATE_BUSINESS_KEY).action,
        SB_QUARANTINE);
    /* A defect is permanent at any attempt, even the last. */
    ck_assert_int_eq(fail_defect(4, 422, SB_DEFECT_INVALID_SCHEMA).action,
                     SB_QUARANTINE);
    const struct {
        sb_error_kind kind;
        int status;
    } transient[] = {{SB_ERR_TIMEOUT, 0},
                     {SB_ERR_RESET, 0},
                     {SB_ERR_REFUSED, 0},
                     {SB_ERR_HTTP, 429},
                     {SB_ERR_GRPC, SB_GRPC_RESOURCE_EXHAUSTED}};
    for (size_t i = 0; i < sizeof transient / sizeof *transient; i++) {
        sb_decision d = ph_fail(h, 1, transient[i].kind, transient[i].status);
        ck_assert_int_eq(d.action, SB_RETRY);
        ck_assert_double_eq(d.delay_s, 6.0);
    }
    ck_assert_int_eq(ph_fail(h, 1, SB_ERR_HTTP, 503).action, SB_GIVE_UP);
    ck_assert_int_eq(ph_fail(h, 1, SB_ERR_HTTP, 500).action, SB_GIVE_UP);
    ck_assert_int_eq(ph_fail(h, 1, SB_ERR_HTTP, 422).action, SB_GIVE_UP);
    ck_assert_int_eq(ph_fail(h, 1, SB_ERR_GRPC, SB_GRPC_UNAVAILABLE).action,
                     SB_GIVE_UP);
}
END_TEST

/* Bounded jitter 0.5 around 12 s (attempt 2): U = 0 -> 12 x 0.5 = 6,
 * U = 0.75 -> 12 x 1.25 = 15.  Around the cap (attempt 4 = 48 s): U = 0.75
 * -> 60, bounded back to 48. */
START_TEST(jitter_is_bounded_by_the_cap)
{
    const char *params[] = {"jitter=0.5", "max_attempts=10"};
    h = ph_create("plan", params, 2);
    ph_script(h, 3, 0.0, 0.75, 0.75);
    ck_assert_double_eq_tol(ph_fail(h, 2, SB_ERR_TIMEOUT, 0).delay_s, 6.0,
                            1e-12);
    ck_assert_double_eq_tol(ph_fail(h, 2, SB_ERR_TIMEOUT, 0).delay_s, 15.0,
                            1e-12);
    ck_assert_double_eq(ph_fail(h, 4, SB_ERR_TIMEOUT, 0).delay_s, 48.0);
}
END_TEST

/* Retry-After: off by default (a 429 asking for 30 s still waits the
 * plan's 6 s); on, the wait is max(plan, Retry-After): 30 s, and a 2 s
 * Retry-After does not shorten the plan's 6 s. */
START_TEST(retry_after_is_an_option)
{
    h = ph_create("plan", NULL, 0);
    sb_attempt a = ph_attempt(h, 1);
    ph_error(&a, SB_ERR_HTTP, 429);
    a.retry_after_s = 30.0;
    ck_assert_double_eq(ph_failure(h, &a).delay_s, 6.0);
    ph_free(h);
    const char *params[] = {"retry_after=true"};
    h = ph_create("plan", params, 1);
    ck_assert_double_eq(ph_failure(h, &a).delay_s, 30.0);
    a.retry_after_s = 2.0;
    ck_assert_double_eq(ph_failure(h, &a).delay_s, 6.0);
}
END_TEST

/* deadline = 60 s: at attempt 3 the delay is 24 s; 30 s into the task
 * the retry would start at 54 s (< 60: retry), 40 s in at 64 s (stop). */
START_TEST(deadline_stops_retries_that_would_start_too_late)
{
    const char *params[] = {"deadline=60s"};
    h = ph_create("plan", params, 1);
    ph_new_request(h);
    h->now = 30.0;
    ck_assert_int_eq(ph_fail(h, 3, SB_ERR_TIMEOUT, 0).action, SB_RETRY);
    h->now = 40.0;
    ck_assert_int_eq(ph_fail(h, 3, SB_ERR_TIMEOUT, 0).action, SB_GIVE_UP);
}
END_TEST

/* ---- Effect: data defects are quarantined, not retried ----------------
 *
 * 50 clients x 1/s for 60 s, a fifth of the requests carry a data defect
 * (answered 422), nothing else fails.  Under `plan` each defect is
 * quarantined at its first attempt: every failure is a quarantine, and
 * no request makes a second attempt, so attempts = offered exactly.  The
 * quarantined share estimates 0.2 (about 3000 requests: standard error
 * sqrt(0.16 / 3000) = 0.0073, the tolerance is 4 of them).  `exponential`
 * (5 attempts) on the same requests retries every defect 4 times in vain:
 * 1 + 0.2 x 4 = 1.8 attempts per request, and quarantines nothing. */
static const char defects_ini[] =
    "[scenario]\nname = defects\nduration = 60s\nwarmup = 0s\n"
    "[clients]\ncount = 50\nrate = 1/s\ntimeout = 1s\ndefect_fraction = 0.2\n"
    "[server]\nworkers = unlimited\nservice = const(10ms)\n"
    "[policy]\nname = plan\n";

START_TEST(effect_defects_are_quarantined_at_the_first_attempt)
{
    tu_sim *t = tu_sim_run(defects_ini, NULL, NULL, 0);
    const sim_summary *s = &t->sum;
    ck_assert_uint_gt(s->quarantined, 0);
    ck_assert_uint_eq(s->quarantined, s->failures);
    ck_assert_uint_eq(s->attempts, s->offered);
    ck_assert_double_eq_tol((double)s->quarantined / (double)s->offered, 0.2,
                            0.03);
    tu_sim_free(t);

    const char *params[] = {"max_attempts=5"};
    t = tu_sim_run(defects_ini, "exponential", params, 1);
    ck_assert_uint_eq(t->sum.quarantined, 0);
    ck_assert_double_eq_tol(t->sum.amplification, 1.8, 0.12);
    tu_sim_free(t);
}
END_TEST

Suite *policy_plan_suite(void)
{
    Suite *s = suite_create("policy_plan");
    TCase *tc = tcase_create("decisions");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, the_three_cases_of_the_issue);
    tcase_add_test(tc, delay_doubles_from_6s_to_the_48s_cap);
    tcase_add_test(tc, every_error_name_maps_as_the_plan_says);
    tcase_add_test(tc, jitter_is_bounded_by_the_cap);
    tcase_add_test(tc, retry_after_is_an_option);
    tcase_add_test(tc, deadline_stops_retries_that_would_start_too_late);
    suite_add_tcase(s, tc);
    TCase *e = tcase_create("effect");
    tcase_add_test(e, effect_defects_are_quarantined_at_the_first_attempt);
    suite_add_tcase(s, e);
    return s;
}
