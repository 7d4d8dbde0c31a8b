/*
 * check_model_queueing.c -- the fault-free server against queueing theory.
 *
 * Each expected number is computed here from a formula, independently of
 * the engine: Erlang C for M/M/c, exact mean-value analysis for a closed
 * single-server network, and the operational laws (Little's law, the
 * interactive response-time law), which hold for any work-conserving
 * system measured over a long run.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>

#include "testutil.h"

/* Erlang C: the probability that an arrival waits in M/M/c with offered
 * load a = lambda/mu erlangs, then Wq = C / (c mu - lambda). */
static double erlang_c(int c, double a)
{
    double term = 1.0, sum = 0.0;
    for (int k = 0; k < c; k++) {
        sum += term; /* a^k / k! */
        term *= a / (k + 1);
    }
    double top = term / (1.0 - a / c); /* a^c / c! / (1 - rho) */
    return top / (sum + top);
}

static const char mmc_ini[] =
    "[scenario]\nname = mmc\nduration = 6000s\nwarmup = 0s\nseed = %d\n"
    "[clients]\ncount = 100\nrate = 0.8/s\ntimeout = 1h\n"
    "[server]\nworkers = 10\nservice = exp(100ms)\n"
    "[policy]\nname = none\n";

/* M/M/10 at rho = 0.8: lambda = 100 clients x 0.8/s = 80/s (a superposition
 * of Poisson streams is Poisson), mu = 10/s per worker, a = 8 erlangs.
 * Erlang C gives P(wait) = 0.4092 and Wq = 0.4092 / (100 - 80) = 20.46 ms.
 * Four seeds of 6000 s (about 1.9 million requests) estimate Wq with a
 * standard error near 1.2 % (measured spread of single seeds: 2.7 % at
 * 4000 s), so 4 % is a 3-sigma band. */
START_TEST(mmc_mean_wait_matches_erlang_c)
{
    double c_wait = erlang_c(10, 8.0);
    ck_assert_double_eq_tol(c_wait, 0.4092, 5e-4); /* tables: 0.409 */
    double wq_ms = c_wait / (100.0 - 80.0) * 1000.0;
    double sum_wait = 0, sum_lq = 0, sum_lambda_wq = 0, sum_util = 0;
    for (int seed = 1; seed <= 4; seed++) {
        char ini[sizeof mmc_ini + 16];
        snprintf(ini, sizeof ini, mmc_ini, seed);
        tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
        double lambda = (double)t->sum.offered / t->sum.duration_s;
        sum_wait += t->sum.mean_queue_wait_ms;
        sum_lq += t->sum.mean_queue_len;
        sum_lambda_wq += lambda * t->sum.mean_queue_wait_ms / 1000.0;
        sum_util += t->sum.utilization;
        /* No request may time out or fail in a fault-free run. */
        ck_assert_uint_eq(t->sum.failures, 0);
        ck_assert_uint_eq(t->sum.attempts, t->sum.offered);
        tu_sim_free(t);
    }
    double wait = sum_wait / 4;
    ck_assert_msg(fabs(wait - wq_ms) / wq_ms < 0.04,
                  "mean wait %.3f ms, Erlang C %.3f ms", wait, wq_ms);
    /* Little's law Lq = lambda Wq holds exactly over a long run; the only
     * slack is the few attempts still queued at the end. */
    ck_assert_msg(fabs(sum_lq - sum_lambda_wq) / sum_lambda_wq < 0.005,
                  "Lq %.4f vs lambda Wq %.4f", sum_lq / 4, sum_lambda_wq / 4);
    /* Utilization rho = lambda / (c mu) = 0.8. */
    ck_assert_double_eq_tol(sum_util / 4, 0.8, 0.01);
}
END_TEST

static const char closed_ini[] =
    "[scenario]\nname = closed\nduration = 20000s\nwarmup = 0s\n"
    "[clients]\ncount = 20\narrival = closed\nthink = %s\ntimeout = 1h\n"
    "[server]\nworkers = 1\nservice = exp(50ms)\n"
    "[policy]\nname = none\n";

/* A closed network of N = 20 clients, think time Z = exp(1 s), one
 * exponential server with S = 50 ms.  Exact MVA (Reiser and Lavenberg
 * 1980): R(n) = S (1 + Q(n-1)), X(n) = n / (R(n) + Z), Q(n) = X(n) R(n);
 * for N = 20 it gives R = 188.9 ms and X = 16.82/s.  The product-form
 * result holds for exponential think times, so the run must agree within
 * its noise (about 1 % at 336 000 requests); 3 % is the band. */
START_TEST(closed_loop_matches_mva)
{
    double S = 0.05, Z = 1.0, Q = 0, R = 0, X = 0;
    for (int n = 1; n <= 20; n++) {
        R = S * (1.0 + Q);
        X = n / (R + Z);
        Q = X * R;
    }
    ck_assert_double_eq_tol(R, 0.1889, 1e-4);
    char ini[sizeof closed_ini + 32];
    snprintf(ini, sizeof ini, closed_ini, "exp(1s)");
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    double r_sim = t->sum.latency_mean_ms / 1000.0;
    double x_sim = (double)t->sum.successes / t->sum.duration_s;
    ck_assert_msg(fabs(r_sim - R) / R < 0.03, "R %.4f s, MVA %.4f s", r_sim, R);
    ck_assert_msg(fabs(x_sim - X) / X < 0.02, "X %.3f/s, MVA %.3f/s", x_sim, X);
    tu_sim_free(t);
}
END_TEST

/* The interactive response-time law R = N/X - Z is an operational
 * identity: with a constant think time Z the measured Z is exact, so the
 * law must hold to within the requests cut off at the end of the run
 * (about 20 of 336 000): 0.5 % is generous. */
START_TEST(closed_loop_response_time_law)
{
    char ini[sizeof closed_ini + 32];
    snprintf(ini, sizeof ini, closed_ini, "const(1s)");
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    double x = (double)t->sum.successes / t->sum.duration_s;
    double r = t->sum.latency_mean_ms / 1000.0;
    double law = 20.0 / x - 1.0;
    ck_assert_msg(fabs(law - r) / r < 0.005, "R %.5f s, N/X - Z %.5f s", r,
                  law);
    /* Closed loop: never more than one request per client in flight. */
    ck_assert_uint_le(t->sum.in_flight, 20);
    tu_sim_free(t);
}
END_TEST

/* Deterministic service and arrivals give a hand-checkable run: one
 * client sends every 1 s (closed loop, const think, const service 100 ms,
 * network 5 ms each way), so latency is exactly 110 ms and the worker is
 * busy 100 ms of every 1.11 s. */
START_TEST(hand_worked_constant_run)
{
    tu_sim *t =
        tu_sim_run("[scenario]\nname = hand\nduration = 111s\nwarmup = 0s\n"
                   "[clients]\ncount = 1\narrival = closed\nthink = const(1s)\n"
                   "timeout = 1s\n"
                   "[server]\nworkers = 1\nservice = const(100ms)\n"
                   "network_delay = const(5ms)\n[policy]\nname = none\n",
                   NULL, NULL, 0);
    /* Request k starts at 1 + 1.11 k s; the 100th starts at 110.89 s and
     * ends at 111.0 s -- exactly the end, so it is still in flight. */
    ck_assert_uint_eq(t->sum.offered, 100);
    ck_assert_uint_eq(t->sum.successes, 99);
    ck_assert_double_eq_tol(t->sum.latency_mean_ms, 110.0, 1e-9);
    ck_assert_double_eq_tol(t->sum.latency_p50_ms, 110.0, 110.0 * 0.008);
    ck_assert_double_eq_tol(t->sum.mean_queue_wait_ms, 0.0, 1e-12);
    /* Busy 100 of 100 services x 0.1 s, minus none cut: the 100th service
     * ran 110.895 .. 110.995. */
    ck_assert_double_eq_tol(t->sum.utilization, 100 * 0.1 / 111.0, 1e-9);
    tu_sim_free(t);
}
END_TEST

Suite *model_queueing_suite(void)
{
    Suite *s = suite_create("model_queueing");
    TCase *tc = tcase_create("theory");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, mmc_mean_wait_matches_erlang_c);
    tcase_add_test(tc, closed_loop_matches_mva);
    tcase_add_test(tc, closed_loop_response_time_law);
    tcase_add_test(tc, hand_worked_constant_run);
    suite_add_tcase(s, tc);
    return s;
}
