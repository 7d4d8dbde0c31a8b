/*
 * check_policy_adaptive_throttle.c -- the SRE book's client-side
 * throttling: the rejection probability max(0, (requests - K accepts) /
 * (requests + 1)) at exact counts, what counts as accepted, the window,
 * and the effect a run must show (in a long outage nearly every request
 * is refused locally: only 1/(requests+1) of them reach the server).
 */
#include "policy_harness.h"

static ph *h;

static void teardown(void)
{
    ph_free(h);
    h = NULL;
}

/* One send (attempt 1); whether the layer let it through. */
static bool send1(void)
{
    ph_new_request(h);
    sb_attempt a = ph_attempt(h, 1);
    return ph_allowed(h, &a);
}

static void accept1(void)
{
    sb_attempt a = ph_attempt(h, 1);
    ph_success(h, &a);
}

/* Build requests = 4, accepts = 1 without a draw: send + success (1, 1);
 * two sends at p = max(0, (1 - 2)/2) = 0 and (2 - 2)/3 = 0; the 4th send
 * sees (3 - 2)/4 = 0.25 and is let through by U = 0.99. */
static void four_requests_one_accept(void)
{
    ck_assert(send1());
    accept1();
    ck_assert(send1());
    ck_assert(send1());
    ph_script(h, 1, 0.99);
    ck_assert(send1());
    ck_assert_int_eq(h->drawn, 1);
}

/* With requests = 4, accepts = 1, K = 2: p = (4 - 2)/(4 + 1) = 0.4, so
 * U = 0.39 refuses and -- the refusal itself counted as a request -- the
 * next send sees (5 - 2)/6 = 0.5: U = 0.49 refuses; then (6 - 2)/7 =
 * 0.571: U = 0.58 is let through. */
START_TEST(probability_at_exact_counts)
{
    h = ph_create("adaptive_throttle", NULL, 0);
    four_requests_one_accept();
    ph_script(h, 3, 0.39, 0.49, 0.58);
    ck_assert(!send1());
    ck_assert(!send1());
    ck_assert(send1());
}
END_TEST

/* The same counts with U = 0.41 pass: p is 0.4, not more. */
START_TEST(draw_above_probability_passes)
{
    h = ph_create("adaptive_throttle", NULL, 0);
    four_requests_one_accept();
    ph_script(h, 1, 0.41);
    ck_assert(send1());
}
END_TEST

/* K = 1: requests 4, accepts 2 gives (4 - 2)/5 = 0.4 > 0, a draw; with
 * K = 2 the same counts give 0 and no draw at all (ph_uniform would fail
 * the test). */
START_TEST(k_scales_the_accepts)
{
    const char *params[] = {"k=1"};
    h = ph_create("adaptive_throttle", params, 1);
    for (int i = 0; i < 2; i++) {
        ck_assert(send1());
        accept1();
    }
    ph_script(h, 2, 0.99, 0.39);
    ck_assert(send1());  /* (2 - 2)/3 = 0: no draw */
    ck_assert(send1());  /* (3 - 2)/4 = 0.25: draw 0.99 */
    ck_assert(!send1()); /* (4 - 2)/5 = 0.4: draw 0.39 */
    ph_free(h);
    h = ph_create("adaptive_throttle", NULL, 0);
    for (int i = 0; i < 2; i++) {
        ck_assert(send1());
        accept1();
    }
    ph_script(h, 0);
    for (int i = 0; i < 3; i++)
        ck_assert(send1()); /* (2..4 - 4)/.. <= 0 */
}
END_TEST

/* Accepted: the backend answered (a 404, a 422); not accepted: overload
 * and connection failures (503, 429, timeout, refused).  Two sends each
 * followed by a 404 leave p = (2 - 4)/3 < 0 for two more sends: no draw.
 * Two followed by 503s leave (2 - 0)/3 > 0: a draw. */
START_TEST(what_counts_as_accepted)
{
    h = ph_create("adaptive_throttle", NULL, 0);
    ph_script(h, 0);
    for (int i = 0; i < 2; i++) {
        ck_assert(send1());
        ph_fail(h, 1, SB_ERR_HTTP, 404);
    }
    ck_assert(send1());
    ck_assert(send1());
    ph_free(h);
    h = ph_create("adaptive_throttle", NULL, 0);
    ck_assert(send1());
    ph_fail(h, 1, SB_ERR_HTTP, 503);
    ph_script(h, 2, 0.99, 0.99);
    ck_assert(send1()); /* (1 - 0)/2 = 0.5: a draw */
    ph_fail(h, 1, SB_ERR_TIMEOUT, 0);
    ck_assert(send1()); /* (2 - 0)/3: a draw */
    ck_assert_int_eq(h->drawn, 2);
}
END_TEST

/* The counts cover window = 2 min in 12 slices of 10 s.  Ten failed
 * sends at t = 0 still count at 119.9 s: p = 10/11 = 0.91, and U = 0.95
 * passes.  At 120 s they are gone and only that one send of 119.9 s is
 * left: p = 1/2, so U = 0.6 passes -- with the old ten still counted, p
 * would be 11/12 = 0.92 and U = 0.6 would refuse. */
START_TEST(counts_age_out_after_the_window)
{
    h = ph_create("adaptive_throttle", NULL, 0);
    ph_fill(h, 0.0);
    for (int i = 0; i < 10; i++) {
        send1(); /* the first passes at p = 0; the others are refused */
        ph_fail(h, 1, SB_ERR_TIMEOUT, 0);
    }
    h->now = 119.9;
    ph_script(h, 1, 0.95);
    ck_assert(send1());
    h->now = 120.0;
    ph_script(h, 1, 0.6);
    ck_assert(send1());
    ck_assert_int_eq(h->drawn, 1);
}
END_TEST

/* Retries and hedges go through the throttle too: a retry is a request
 * like any other. */
START_TEST(retries_are_throttled_too)
{
    h = ph_create("adaptive_throttle", NULL, 0);
    ck_assert(send1());
    ph_fail(h, 1, SB_ERR_TIMEOUT, 0);
    ph_script(h, 1, 0.1); /* (1 - 0)/2 = 0.5 > 0.1: refused */
    sb_attempt a = ph_attempt(h, 2);
    ck_assert(!ph_allowed(h, &a));
}
END_TEST

/* ---- Reference: the SRE book's formula, decision by decision ----------
 *
 * Written from Google's "Site Reliability Engineering" (O'Reilly 2016),
 * chapter 21 "Handling Overload", section "Client-Side Throttling"
 * (sre.google/sre-book/handling-overload): each client task keeps, for
 * the last two minutes, requests (attempted by the application layer,
 * rejected locally or not) and accepts (accepted by the backend), and
 * rejects a request locally with probability max(0, (requests - K x
 * accepts) / (requests + 1)).  The reference keeps every event's time
 * and counts those of the last 120 s exactly; events come at multiples
 * of 10 s, where stormbench's 12 slices of 10 s count the same ones.
 * The probability is taken from the counts before the request is added
 * (the book leaves the order open); the draw is scripted, so every
 * decision is U < p, and a draw the policy makes when p = 0 fails the
 * test. */
typedef struct sre_event {
    double t;
    bool accept;
} sre_event;

static uint64_t lcg_state;

static uint32_t lcg(uint32_t n)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((lcg_state >> 33) % n);
}

START_TEST(reference_sre_book_throttling)
{
    const char *params[] = {"k=1.5"};
    h = ph_create("adaptive_throttle", params, 1);
    static sre_event ev[8000];
    int n_ev = 0, decisions = 0, rejected = 0, draws = 0;
    static const int fail_pct[] = {0, 100, 40, 100, 0, 80, 10, 60};
    lcg_state = 10;
    h->now = 0;
    for (int phase = 0; phase < 8; phase++)
        for (int i = 0; i < 150; i++) {
            if (lcg(8) == 0)
                h->now += 10.0 * (1 + lcg(lcg(5) == 0 ? 15 : 2));
            double req = 0, acc = 0;
            for (int k = 0; k < n_ev; k++)
                if (ev[k].t > h->now - 120.0) {
                    req += !ev[k].accept;
                    acc += ev[k].accept;
                }
            double pr = (req - 1.5 * acc) / (req + 1);
            if (pr < 0)
                pr = 0;
            double u = (double)lcg(1000) / 1000.0;
            ck_assert_int_lt(n_ev, 8000);
            ev[n_ev++] = (sre_event){h->now, false};
            bool want = !(pr > 0 && u < pr);
            if (pr > 0)
                ph_script(h, 1, u);
            else
                ph_script(h, 0);
            ph_new_request(h);
            sb_attempt a = ph_attempt(h, 1);
            bool sent = ph_allowed(h, &a);
            ck_assert_int_eq(h->drawn, pr > 0);
            ck_assert_msg(sent == want,
                          "phase %d request %d at %.0f s: "
                          "requests %.0f, accepts %.0f, p = %.4f, U = %.3f: "
                          "the book %s, adaptive_throttle %s",
                          phase, i, h->now, req, acc, pr, u,
                          want ? "sends" : "rejects",
                          sent ? "sends" : "rejects");
            decisions++;
            draws += pr > 0;
            rejected += !want;
            if (!want)
                continue;
            if ((int)lcg(100) < fail_pct[phase]) {
                ph_error(&a, SB_ERR_HTTP, 503); /* not accepted */
                ph_failure(h, &a);
            } else {
                ph_success(h, &a);
                ev[n_ev++] = (sre_event){h->now, true};
            }
        }
    ck_assert_int_ge(decisions, 1000);
    ck_assert_int_ge(draws, 300);
    ck_assert_int_ge(rejected, 100);
}
END_TEST

/* ---- Effect: local refusals during a long outage -----------------------
 *
 * 50 clients x 2/s, window 20 s, connections refused from 20 s to 80 s,
 * `immediate` with 5 attempts.  Once the window holds only outage
 * traffic (from 40 s on), accepts = 0 and p = R/(R + 1) with R about
 * 2/s x 19 s = 38 requests per client: 1/(R + 1) = 2.6 % of sends get
 * out.  Over [50, 80): fewer than 5 % of the offered requests produce an
 * attempt, and more than 95 % end refused locally -- where `immediate`
 * alone sends 5 attempts for each. */
static const char outage_ini[] =
    "[scenario]\nname = outage\nduration = 100s\nwarmup = 10s\n"
    "[clients]\ncount = 50\nrate = 2/s\ntimeout = 1s\n"
    "[server]\nworkers = unlimited\nservice = const(10ms)\n"
    "[policy]\nname = immediate\nmax_attempts = 5\n"
    "[fault.down]\ntype = outage\nstart = 20s\nduration = 60s\n"
    "mode = refuse\n";

START_TEST(effect_outage_traffic_refused_locally)
{
    const char *params[] = {"window=20s"};
    tu_sim *t =
        tu_sim_run(outage_ini, "immediate+adaptive_throttle", params, 1);
    ph_window w = ph_sum(t, 50, 80);
    ck_assert_double_lt(w.attempts / w.offered, 0.05);
    ck_assert_double_gt(w.refused / w.offered, 0.95);
    tu_sim_free(t);
    t = tu_sim_run(outage_ini, NULL, NULL, 0);
    ck_assert_double_eq(ph_amplification(t, 50, 80), 5.0);
    ck_assert_double_eq(ph_sum(t, 50, 80).refused, 0);
    tu_sim_free(t);
}
END_TEST

Suite *policy_adaptive_throttle_suite(void)
{
    Suite *s = suite_create("policy_adaptive_throttle");
    TCase *tc = tcase_create("probability");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, probability_at_exact_counts);
    tcase_add_test(tc, draw_above_probability_passes);
    tcase_add_test(tc, k_scales_the_accepts);
    tcase_add_test(tc, what_counts_as_accepted);
    tcase_add_test(tc, counts_age_out_after_the_window);
    tcase_add_test(tc, retries_are_throttled_too);
    tcase_add_test(tc, reference_sre_book_throttling);
    suite_add_tcase(s, tc);
    TCase *e = tcase_create("effect");
    tcase_add_test(e, effect_outage_traffic_refused_locally);
    suite_add_tcase(s, e);
    return s;
}
