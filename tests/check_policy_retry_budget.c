/*
 * check_policy_retry_budget.c -- Finagle's RetryBudget: its token
 * arithmetic (deposit 1000 per request, withdrawal 1000/percent per
 * retry, reserve min_per_s x ttl x withdrawal), the ttl window, and the
 * effect a run must show (retries held to percent of requests plus the
 * reserve during a long outage).
 */
#include "policy_harness.h"

static ph *h;

static void teardown(void)
{
    ph_free(h);
    h = NULL;
}

/* One retry asked for: on_failure must not forbid it, and once the stack
 * has decided to retry (on_decision) the budget withdraws, as Finagle's
 * RetryFilter does before it backs off.  Returns whether it was granted. */
static bool retry(void)
{
    ph_new_request(h);
    return ph_fail(h, 1, SB_ERR_HTTP, 503).action == SB_RETRY;
}

static int retries_possible(int limit)
{
    int n = 0;
    while (n < limit && retry())
        n++;
    return n;
}

/* n first attempts: each deposits. */
static void requests(int n)
{
    for (int i = 0; i < n; i++) {
        ph_new_request(h);
        sb_attempt a = ph_attempt(h, 1);
        ck_assert(ph_allowed(h, &a));
    }
}

static ph *budget(const char *p1, const char *p2)
{
    const char *params[3] = {"max_attempts=100"};
    int n = 1;
    if (p1)
        params[n++] = p1;
    if (p2)
        params[n++] = p2;
    return ph_create("immediate+retry_budget", params, n);
}

/* Defaults: reserve = 10/s x 10 s x 5000 = 500 000, a retry withdraws
 * 1000 / 0.2 = 5000: a process that has sent nothing may retry exactly
 * 100 times.  The 101st failure gives up at once (no retry is
 * scheduled), with the budget's reason. */
START_TEST(reserve_is_min_per_s_times_ttl)
{
    h = budget(NULL, NULL);
    ck_assert_int_eq(retries_possible(1000), 100);
    sb_decision d = ph_fail(h, 1, SB_ERR_HTTP, 503);
    ck_assert_int_eq(d.action, SB_GIVE_UP);
    ck_assert_str_eq(d.reason, "retry_budget: budget exhausted");
}
END_TEST

/* A retry another layer vetoes spends nothing: the budget withdraws only
 * when the stack's final decision is a retry (on_decision).  Here a
 * deadline of 0.5 s makes the driver end every request whose 1 s retry
 * would start after it: 200 such failures leave the whole reserve. */
START_TEST(vetoed_retries_spend_nothing)
{
    const char *params[] = {"delay=1s", "max_attempts=100"};
    h = ph_create("fixed+retry_budget", params, 2);
    for (int i = 0; i < 200; i++) {
        ph_new_request(h);
        sb_attempt a = ph_attempt(h, 1);
        a.remaining_s = 0.5;
        ph_error(&a, SB_ERR_HTTP, 503);
        driver_next nx = ph_failure_next(h, &a);
        ck_assert_int_eq(nx.stack.d.action, SB_RETRY);
        ck_assert_int_eq(nx.final.action, SB_GIVE_UP);
    }
    ck_assert_int_eq(retries_possible(1000), 100);
}
END_TEST

/* Each request deposits 1000 = a fifth of a retry: once the reserve is
 * spent, 4 requests buy nothing, 5 buy one retry, 50 buy ten. */
START_TEST(each_request_buys_a_fifth_of_a_retry)
{
    h = budget(NULL, NULL);
    retries_possible(100);
    requests(4);
    ck_assert_int_eq(retries_possible(100), 0);
    requests(1);
    ck_assert_int_eq(retries_possible(100), 1);
    requests(50);
    ck_assert_int_eq(retries_possible(100), 10);
}
END_TEST

/* Deposits and withdrawals count for ttl = 10 s (10 slices of 1 s): the
 * reserve spent at t = 0 is still spent at 9.99 s and whole again at
 * 10 s. */
START_TEST(withdrawals_expire_after_ttl)
{
    h = budget(NULL, NULL);
    retries_possible(100);
    h->now = 9.99;
    ck_assert_int_eq(retries_possible(100), 0);
    h->now = 10.0;
    ck_assert_int_eq(retries_possible(1000), 100);
}
END_TEST

/* percent = 0.3: withdrawal (int)(1000 / 0.3) = 3333, so with no reserve
 * 10 requests (10 000) pay for 3 retries (9999) and not a 4th: retries
 * <= 0.3 x requests. */
START_TEST(percent_sets_the_withdrawal)
{
    h = budget("percent=0.3", "min_per_s=0");
    ck_assert_int_eq(retries_possible(10), 0);
    requests(10);
    ck_assert_int_eq(retries_possible(10), 3);
}
END_TEST

/* percent = 0 (Finagle: deposit 0, withdrawal 1, reserve min_per_s x
 * ttl): 100 retries from the reserve, and requests add nothing. */
START_TEST(percent_zero_leaves_only_the_reserve)
{
    h = budget("percent=0", NULL);
    ck_assert_int_eq(retries_possible(1000), 100);
    requests(1000);
    ck_assert_int_eq(retries_possible(10), 0);
}
END_TEST

/* The reserve counts whole seconds of ttl, as Finagle's ttl.inSeconds:
 * ttl 2.5 s gives 10 x 2 x 5000, 20 retries. */
START_TEST(reserve_uses_whole_seconds_of_ttl)
{
    h = budget("ttl=2500ms", NULL);
    ck_assert_int_eq(retries_possible(1000), 20);
}
END_TEST

/* Hedges neither deposit nor withdraw: 1000 hedges later the reserve
 * still allows exactly 100 retries. */
START_TEST(hedges_are_not_counted)
{
    h = budget(NULL, NULL);
    for (int i = 0; i < 1000; i++) {
        sb_attempt a = ph_attempt(h, 2);
        a.hedge = 1;
        ck_assert(ph_allowed(h, &a));
    }
    ck_assert_int_eq(retries_possible(1000), 100);
}
END_TEST

/* Finagle accepts ttl from 1 s to 60 s. */
START_TEST(ttl_range_is_finagles)
{
    const char *params[] = {"ttl=90s"};
    const char *msg = ph_build_error("retry_budget", params, 1);
    ck_assert_msg(strstr(msg, "ttl") && strstr(msg, "'90s'"), "got: %s", msg);
}
END_TEST

/* ---- Reference: Finagle's arithmetic, decision by decision ------------
 *
 * Written from twitter/finagle finagle-core/src/main/scala/com/twitter/
 * finagle/service/RetryBudget.scala (commit
 * 0e26b57635f1194eb90abf2d446a5fc6358a4b9e), RetryBudget.apply:
 * depositAmount 1000 (ScaleFactor), withdrawalAmount = (int)(1000 /
 * percentCanRetry), reserve = minRetriesPerSec x ttl.inSeconds x
 * withdrawalAmount, TokenBucket.newLeakyBucket(ttl, reserve); and from
 * twitter/util util-core/src/main/scala/com/twitter/util/TokenBucket.scala
 * (newLeakyBucket: a WindowedAdder(ttl ms, 10 slices); count = sum +
 * reserve; tryGet(n) takes n when count >= n) and WindowedAdder.scala
 * (commit 1bdeab56e49015c1f4c097ef76e47b93a079a239): N = slices - 1
 * buffered slices of range/slices ms plus the slice being written; a
 * write or a sum at least one slice after `old` moves the written slice
 * into the buffer, zeroes the slices skipped, and sets old = now.  Every
 * request deposits; a retry the policy wants withdraws (tryWithdraw) or
 * is refused.  Events come at whole seconds, so Finagle's slices start
 * where stormbench's aligned ones do. */
typedef struct finagle_adder {
    int64_t window, old, writer;
    int n, i;
    int64_t buf[9];
} finagle_adder;

static void fa_expire(finagle_adder *w, int64_t now)
{
    w->buf[w->i] = w->writer;
    w->writer = 0;
    w->i = (w->i + 1) % w->n;
    int64_t nskip = (now - w->old) / w->window - 1;
    if (nskip > w->n)
        nskip = w->n;
    for (int64_t k = 0; k < nskip; k++)
        w->buf[(w->i + k) % w->n] = 0;
    w->i = (int)((w->i + nskip) % w->n);
    w->old = now;
}

static void fa_add(finagle_adder *w, int64_t now, int64_t x)
{
    if (now - w->old >= w->window)
        fa_expire(w, now);
    w->writer += x;
}

static int64_t fa_sum(finagle_adder *w, int64_t now)
{
    if (now - w->old >= w->window)
        fa_expire(w, now);
    int64_t sum = w->writer;
    for (int k = 0; k < w->n; k++)
        sum += w->buf[k];
    return sum;
}

static uint64_t lcg_state;

static uint32_t lcg(uint32_t n)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((lcg_state >> 33) % n);
}

START_TEST(reference_finagle_retry_budget)
{
    const char *params[] = {"max_attempts=4", "ttl=10s", "min_per_s=1",
                            "percent=0.25"};
    h = ph_create("immediate+retry_budget", params, 4);
    finagle_adder w = {1000, 0, 0, 9, 0, {0}};
    const int64_t deposit = 1000, withdrawal = (int)(1000.0 / 0.25);
    const int64_t reserve = 1 * 10 * withdrawal;
    int decisions = 0, granted = 0, refused = 0;
    lcg_state = 9;
    static const int fail_pct[] = {10, 90, 50, 100, 20, 70, 0, 95};
    int64_t now_ms = 0;
    for (int phase = 0; phase < 8; phase++)
        for (int req = 0; req < 80; req++) {
            if (lcg(3) == 0)
                now_ms += 1000 * (1 + lcg(lcg(6) == 0 ? 15 : 2));
            h->now = (double)now_ms / 1000;
            ph_new_request(h);
            sb_attempt a = ph_attempt(h, 1);
            ck_assert(ph_allowed(h, &a));
            fa_add(&w, now_ms, deposit);
            for (uint32_t n = 1; n <= 4; n++) {
                if ((int)lcg(100) >= fail_pct[phase])
                    break; /* success: nothing for the budget */
                bool want = false;
                if (n < 4) { /* the policy wants a retry: tryWithdraw */
                    want = fa_sum(&w, now_ms) + reserve >= withdrawal;
                    if (want)
                        fa_add(&w, now_ms, -withdrawal);
                }
                a = ph_attempt(h, n);
                ph_error(&a, SB_ERR_HTTP, 503);
                sb_action got = ph_failure(h, &a).action;
                decisions++;
                ck_assert_msg((got == SB_RETRY) == want,
                              "phase %d request %d at %lld ms, attempt %u: "
                              "Finagle %s, retry_budget %s",
                              phase, req, (long long)now_ms, n,
                              want ? "retries" : "does not",
                              got == SB_RETRY ? "retries" : "does not");
                granted += want;
                refused += n < 4 && !want;
                if (!want)
                    break;
                a = ph_attempt(h, n + 1); /* the retry goes at once */
                ck_assert(ph_allowed(h, &a));
            }
        }
    ck_assert_int_ge(decisions, 300);
    ck_assert_int_ge(granted, 100);
    ck_assert_int_ge(refused, 50);
}
END_TEST

/* ---- Effect: retries bounded by percent of requests + the reserve --------
 *
 * 5 clients x 20/s; connections refused from 20 s to 80 s; `immediate`
 * retries at once, 5 attempts: alone, 5 attempts per request.  With the
 * budget every client wants 4 retries per request, far more than it may
 * have, so the budget is spent as fast as it comes in: per ttl (10 s) a
 * client retries min_per_s x ttl = 100 times plus 0.2 x its 200
 * requests = 140, against 200 requests: 1.7 attempts per request.  With
 * min_per_s = 0, 1.2.  A retry may also ride on deposits up to one slice
 * (1 s) older than the window it lands in -- at most 0.2 x 20 = 4 per
 * client per ttl, 4 / 200 = 0.02 of amplification -- which with the
 * noise of ~200 Poisson requests per window sets the tolerances. */
static const char outage_ini[] =
    "[scenario]\nname = outage\nduration = 90s\nwarmup = 10s\n"
    "[clients]\ncount = 5\nrate = 20/s\ntimeout = 1s\n"
    "[server]\nworkers = unlimited\nservice = const(10ms)\n"
    "[policy]\nname = immediate\nmax_attempts = 5\n"
    "[fault.down]\ntype = outage\nstart = 20s\nduration = 60s\n"
    "mode = refuse\n";

START_TEST(effect_retries_bounded_by_the_budget)
{
    tu_sim *t = tu_sim_run(outage_ini, NULL, NULL, 0);
    ck_assert_double_eq(ph_amplification(t, 40, 80), 5.0);
    tu_sim_free(t);

    t = tu_sim_run(outage_ini, "immediate+retry_budget", NULL, 0);
    ck_assert_double_eq_tol(ph_amplification(t, 40, 80), 1.7, 0.05);
    tu_sim_free(t);

    const char *params[] = {"min_per_s=0"};
    t = tu_sim_run(outage_ini, "immediate+retry_budget", params, 1);
    ck_assert_double_eq_tol(ph_amplification(t, 40, 80), 1.2, 0.03);
    tu_sim_free(t);
}
END_TEST

Suite *policy_retry_budget_suite(void)
{
    Suite *s = suite_create("policy_retry_budget");
    TCase *tc = tcase_create("tokens");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, reserve_is_min_per_s_times_ttl);
    tcase_add_test(tc, vetoed_retries_spend_nothing);
    tcase_add_test(tc, each_request_buys_a_fifth_of_a_retry);
    tcase_add_test(tc, withdrawals_expire_after_ttl);
    tcase_add_test(tc, percent_sets_the_withdrawal);
    tcase_add_test(tc, percent_zero_leaves_only_the_reserve);
    tcase_add_test(tc, reserve_uses_whole_seconds_of_ttl);
    tcase_add_test(tc, hedges_are_not_counted);
    tcase_add_test(tc, ttl_range_is_finagles);
    tcase_add_test(tc, reference_finagle_retry_budget);
    suite_add_tcase(s, tc);
    TCase *e = tcase_create("effect");
    tcase_add_test(e, effect_retries_bounded_by_the_budget);
    suite_add_tcase(s, e);
    return s;
}
