/*
 * check_policy_hedge.c -- hedged requests: which attempts arm a hedge and
 * after how long, how many per request, which operations; first answer
 * wins; and the effect a run must show (with a heavy-tailed service time
 * the p99 latency falls to what min(S1, delay + S2) predicts).
 */
#include "policy_harness.h"

static ph *h;

static void teardown(void)
{
    ph_free(h);
    h = NULL;
}

static double armed(uint32_t n, bool hedge, sb_op op, bool keyed)
{
    sb_attempt a = ph_attempt(h, n);
    a.hedge = hedge;
    a.op = op;
    a.keyed = keyed;
    pstack_verdict v = ph_send(h, &a);
    ck_assert_int_eq(v.v.action, SB_SEND_ALLOW);
    return v.v.hedge_after_s;
}

/* Polly's defaults: a hedge 2 s after the first attempt, 1 in all, so
 * the hedge itself arms nothing more. */
START_TEST(defaults_one_hedge_after_2s)
{
    h = ph_create("hedge", NULL, 0);
    ph_new_request(h);
    ck_assert_double_eq(armed(1, 0, SB_OP_READ, 0), 2.0);
    ck_assert_double_eq(armed(2, 1, SB_OP_READ, 0), 0.0);
}
END_TEST

/* max_hedged 3, delay 50 ms: the first attempt and hedges 1 and 2 each
 * arm the next, 50 ms after themselves; hedge 3 arms none.  A retry later
 * in the same request arms none either: the request's hedges are spent. */
START_TEST(max_hedged_counts_per_request)
{
    const char *params[] = {"max_hedged=3", "delay=50ms"};
    h = ph_create("hedge", params, 2);
    ph_new_request(h);
    ck_assert_double_eq(armed(1, 0, SB_OP_READ, 0), 0.05);
    ck_assert_double_eq(armed(2, 1, SB_OP_READ, 0), 0.05);
    ck_assert_double_eq(armed(3, 1, SB_OP_READ, 0), 0.05);
    ck_assert_double_eq(armed(4, 1, SB_OP_READ, 0), 0.0);
    ck_assert_double_eq(armed(5, 0, SB_OP_READ, 0), 0.0);
    ph_new_request(h); /* a new request has its own */
    ck_assert_double_eq(armed(1, 0, SB_OP_READ, 0), 0.05);
}
END_TEST

/* Only reads and keyed writes are hedged: not a put, not an unkeyed
 * post; a keyed post is. */
START_TEST(only_reads_and_keyed_writes)
{
    h = ph_create("hedge", NULL, 0);
    ph_new_request(h);
    ck_assert_double_eq(armed(1, 0, SB_OP_PUT, 0), 0.0);
    ck_assert_double_eq(armed(1, 0, SB_OP_POST, 0), 0.0);
    ck_assert_double_eq(armed(1, 0, SB_OP_POST, 1), 2.0);
}
END_TEST

/* A stack arms the earliest hedge any layer asks for, and a layer that
 * refuses hedges (token_bucket at 5 tokens) stops them. */
START_TEST(hedges_go_through_the_other_layers)
{
    h = ph_create("token_bucket+hedge", NULL, 0);
    ph_new_request(h);
    ck_assert_double_eq(armed(1, 0, SB_OP_READ, 0), 2.0);
    for (int i = 0; i < 5; i++)
        ph_fail(h, 1, SB_ERR_TIMEOUT, 0);
    sb_attempt a = ph_attempt(h, 2);
    a.hedge = 1;
    ck_assert(!ph_allowed(h, &a));
}
END_TEST

/* ---- Effects ------------------------------------------------------------
 *
 * Reads only, service lognormal with median m = 10 ms and sigma 1.5 (a
 * heavy tail: p99 = m e^(2.326 x 1.5) = 327 ms), unlimited workers, no
 * network delay, so a request's latency is its service time.  Hedged
 * after d = 50 ms, a request ends at L = min(S1, d + S2) (S1, S2
 * independent: the engine draws each attempt's service apart), so
 *   P(L > x) = Q(ln(x/m)/s) Q(ln((x-d)/m)/s) for x > d,
 * Q the normal tail.  Solving P = 0.01 gives p99 = 95 ms, found below by
 * bisection.  A hedge is sent for the P(S1 > d) = Q(ln 5/1.5) = 14.2 % of
 * requests still unanswered at 50 ms: amplification 1.142.  ~30 000
 * requests put about 300 in the 1 % tail: p99 within 10 %. */
static const char tail_ini[] =
    "[scenario]\nname = tail\nduration = 60s\nwarmup = 0s\n"
    "[clients]\ncount = 50\nrate = 10/s\ntimeout = 10s\n"
    "[server]\nworkers = unlimited\nservice = lognormal(10ms, 1.5)\n"
    "[policy]\nname = none\n";

static double q(double z)
{
    return 0.5 * erfc(z / sqrt(2.0));
}

static double hedged_tail(double x, double m, double s, double d)
{
    double p = q(log(x / m) / s);
    return x > d ? p * q(log((x - d) / m) / s) : p;
}

static double hedged_p99_ms(double m, double s, double d)
{
    double lo = d, hi = 10 * 1000.0;
    for (int i = 0; i < 100; i++) {
        double mid = (lo + hi) / 2;
        if (hedged_tail(mid, m, s, d) > 0.01)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

START_TEST(effect_hedging_cuts_p99_latency)
{
    double plain = 10.0 * exp(2.3263 * 1.5);
    double hedged = hedged_p99_ms(10.0, 1.5, 50.0);
    ck_assert_double_eq_tol(hedged, 95.0, 2.0); /* the worked number */
    tu_sim *t = tu_sim_run(tail_ini, NULL, NULL, 0);
    ck_assert_double_eq_tol(t->sum.latency_p99_ms, plain, 0.1 * plain);
    ck_assert_double_eq(t->sum.amplification, 1.0);
    tu_sim_free(t);
    const char *params[] = {"delay=50ms"};
    t = tu_sim_run(tail_ini, "hedge", params, 1);
    ck_assert_double_eq_tol(t->sum.latency_p99_ms, hedged, 0.1 * hedged);
    ck_assert_double_eq_tol(t->sum.amplification, 1 + q(log(5.0) / 1.5), 0.01);
    tu_sim_free(t);
}
END_TEST

/* First answer wins: every traced request ends exactly when its first
 * successful answer arrives, that answer is the only success any hook
 * sees for it (the loser's answer reaches no hook), and both sides win
 * sometimes -- the hedge in most hedged requests, as its service is
 * usually shorter than the rest of a tail-end first attempt's. */
#define FW_MAX 1024

typedef struct first_wins {
    int64_t first_ok[50][FW_MAX]; /* time of the first success; 0 none */
    int successes[50][FW_MAX];
    int ended, hedge_won, first_won, mismatched;
} first_wins;

static void on_trace(void *ctx, const sim_trace *t)
{
    first_wins *f = ctx;
    ck_assert_uint_lt(t->request, FW_MAX);
    uint32_t c = t->client, r = t->request;
    if (t->kind == TRACE_RESULT && t->attempt->error == SB_ERR_NONE) {
        if (f->successes[c][r]++ == 0)
            f->first_ok[c][r] = t->time_ns;
        if (t->attempt->hedge)
            f->hedge_won++;
        else if (t->attempt->attempt == 1)
            f->first_won++;
    } else if (t->kind == TRACE_END) {
        f->ended++;
        if (t->outcome != SB_OUTCOME_SUCCESS || f->first_ok[c][r] != t->time_ns)
            f->mismatched++;
    }
}

START_TEST(first_answer_wins)
{
    first_wins *f = calloc(1, sizeof *f);
    const char *params[] = {"delay=50ms"};
    tu_sim *t = ph_run_traced(tail_ini, "hedge", params, 1, on_trace, f);
    ck_assert_int_gt(f->ended, 25000);
    ck_assert_int_eq(f->mismatched, 0);
    for (int c = 0; c < 50; c++)
        for (int r = 0; r < FW_MAX; r++)
            ck_assert_int_le(f->successes[c][r], 1);
    ck_assert_int_gt(f->hedge_won, 1000);
    ck_assert_int_gt(f->first_won, 25000);
    /* One success per request, although both copies are served. */
    ck_assert_uint_eq(t->sum.successes + t->sum.in_flight, t->sum.offered);
    tu_sim_free(t);
    free(f);
}
END_TEST

Suite *policy_hedge_suite(void)
{
    Suite *s = suite_create("policy_hedge");
    TCase *tc = tcase_create("arming");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, defaults_one_hedge_after_2s);
    tcase_add_test(tc, max_hedged_counts_per_request);
    tcase_add_test(tc, only_reads_and_keyed_writes);
    tcase_add_test(tc, hedges_go_through_the_other_layers);
    suite_add_tcase(s, tc);
    TCase *e = tcase_create("effect");
    tcase_add_test(e, effect_hedging_cuts_p99_latency);
    tcase_add_test(e, first_answer_wins);
    suite_add_tcase(s, e);
    return s;
}
