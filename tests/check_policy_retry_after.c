/*
 * check_policy_retry_after.c -- the retry_after layer: the delay is at
 * least the server's Retry-After (a floor under the backoff, never a
 * shortening), max_wait, and the effect a run must show (under a rate
 * limit every retry waits at least what the 429 asked).
 */
#include "policy_harness.h"

static ph *h;

static void teardown(void)
{
    ph_free(h);
    h = NULL;
}

static sb_decision fail_ra(double retry_after)
{
    sb_attempt a = ph_attempt(h, 1);
    ph_error(&a, SB_ERR_HTTP, 429);
    a.retry_after_s = retry_after;
    return ph_failure(h, &a);
}

/* On exponential without jitter (first delay 100 ms): a 2 s Retry-After
 * makes it 2 s; a 50 ms one leaves the 100 ms; none leaves 100 ms. */
START_TEST(delay_is_at_least_retry_after)
{
    const char *params[] = {"jitter=none"};
    h = ph_create("exponential+retry_after", params, 1);
    sb_decision d = fail_ra(2.0);
    ck_assert_int_eq(d.action, SB_RETRY);
    ck_assert_double_eq(d.delay_s, 2.0);
    ck_assert_double_eq_tol(fail_ra(0.05).delay_s, 0.1, 1e-12);
    ck_assert_double_eq_tol(fail_ra(-1.0).delay_s, 0.1, 1e-12);
    /* max_wait defaults to 0: any wait is honoured, an hour included. */
    ck_assert_double_eq(fail_ra(3600.0).delay_s, 3600.0);
}
END_TEST

/* A layer never retries by itself: alone it gives up. */
START_TEST(alone_it_never_retries)
{
    h = ph_create("retry_after", NULL, 0);
    ck_assert_int_eq(fail_ra(2.0).action, SB_GIVE_UP);
}
END_TEST

/* max_wait = 1 s: a 2 s Retry-After gives up, 1 s is waited. */
START_TEST(max_wait_gives_up_on_long_waits)
{
    const char *params[] = {"jitter=none", "max_wait=1s"};
    h = ph_create("exponential+retry_after", params, 2);
    ck_assert_int_eq(fail_ra(2.0).action, SB_GIVE_UP);
    sb_decision d = fail_ra(1.0);
    ck_assert_int_eq(d.action, SB_RETRY);
    ck_assert_double_eq(d.delay_s, 1.0);
}
END_TEST

/* ---- Effect: retries wait out the server's Retry-After ------------------
 *
 * 20 clients x 5/s = 100/s against a rate limit of 50/s from 10 s to
 * 40 s: about half the attempts get a 429 whose Retry-After is at least
 * 1 s (the server rounds up to whole seconds).  Every traced retry is
 * checked against the failure before it: with the layer no retry leaves
 * sooner than the Retry-After asked; `exponential` alone (first delays of
 * 0-100 ms, 0-200 ms ...) leaves sooner almost every time. */
static const char limited_ini[] =
    "[scenario]\nname = limited\nduration = 50s\nwarmup = 5s\n"
    "[clients]\ncount = 20\nrate = 5/s\ntimeout = 1s\n"
    "[server]\nworkers = unlimited\nservice = const(10ms)\n"
    "[policy]\nname = exponential\n"
    "[fault.limit]\ntype = rate_limit\nstart = 10s\nduration = 30s\n"
    "rate = 50/s\n";

#define MAX_REQ 1024

typedef struct ra_check {
    double fail_t[20][MAX_REQ]; /* when the last failure was; 0 none */
    double ra[20][MAX_REQ];     /* its Retry-After */
    int checked, early;
} ra_check;

static void on_trace(void *ctx, const sim_trace *t)
{
    ra_check *c = ctx;
    ck_assert_uint_lt(t->request, MAX_REQ);
    double now = (double)t->time_ns / 1e9;
    if (t->kind == TRACE_RESULT && t->attempt->error != SB_ERR_NONE) {
        c->fail_t[t->client][t->request] = now;
        c->ra[t->client][t->request] = t->attempt->retry_after_s;
    } else if (t->kind == TRACE_SEND && !t->refused && !t->hedge &&
               t->attempt->attempt > 1) {
        double ra = c->ra[t->client][t->request];
        if (ra <= 0)
            return;
        c->checked++;
        if (now - c->fail_t[t->client][t->request] < ra - 1e-9)
            c->early++;
    }
}

START_TEST(effect_retries_wait_out_retry_after)
{
    ra_check *c = calloc(1, sizeof *c);
    tu_sim *t = ph_run_traced(limited_ini, "exponential+retry_after", NULL, 0,
                              on_trace, c);
    ck_assert_int_gt(c->checked, 500);
    ck_assert_int_eq(c->early, 0);
    tu_sim_free(t);
    memset(c, 0, sizeof *c);
    t = ph_run_traced(limited_ini, NULL, NULL, 0, on_trace, c);
    ck_assert_int_gt(c->checked, 500);
    ck_assert_int_gt(c->early, c->checked * 9 / 10);
    tu_sim_free(t);
    free(c);
}
END_TEST

Suite *policy_retry_after_suite(void)
{
    Suite *s = suite_create("policy_retry_after");
    TCase *tc = tcase_create("floor");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, delay_is_at_least_retry_after);
    tcase_add_test(tc, alone_it_never_retries);
    tcase_add_test(tc, max_wait_gives_up_on_long_waits);
    suite_add_tcase(s, tc);
    TCase *e = tcase_create("effect");
    tcase_add_test(e, effect_retries_wait_out_retry_after);
    suite_add_tcase(s, e);
    return s;
}
