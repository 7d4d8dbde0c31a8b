/*
 * check_model_clients.c -- the client side of the model that engine v2
 * added: processes (policy state shared by a service instance's
 * clients), connection pools, the client's own time per call
 * (call_time), the guard against a clock that stops, and what the engine
 * shows front ends (client modes, the policy's level, refusals by kind).
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "testutil.h"

/* ---- Processes ------------------------------------------------------------
 *
 * 10 clients of 10 requests/s, a 30 s black-hole outage from 10 s to the
 * end of the run, aws_quota (500 tokens per quota, a retry after a
 * timeout costs 10).  Nothing succeeds during the outage, so no token
 * comes back: each quota pays for exactly 500 / 10 = 50 retries and then
 * none.  Before the outage every first attempt succeeds (no retries).  So
 * the run's retries (attempts - offered) are 50 per process: 50 when the
 * 10 clients share one process, 100 in two, 500 when each client is its
 * own process (the default).
 */
static const char quota_ini[] =
    "[scenario]\nname = quota\nduration = 40s\nwarmup = 5s\n"
    "[clients]\ncount = 10\nrate = 10/s\ntimeout = 1s\nprocesses = %d\n"
    "[server]\nworkers = unlimited\nservice = const(10ms)\n"
    "network_delay = const(1ms)\n"
    "[policy]\nname = aws_quota\n"
    "[fault.hole]\ntype = outage\nstart = 10s\nduration = 30s\n"
    "mode = blackhole\n";

static tu_sim *quota_run(int processes)
{
    char ini[1024];
    snprintf(ini, sizeof ini, quota_ini, processes);
    return tu_sim_run(ini, NULL, NULL, 0);
}

START_TEST(state_is_shared_by_a_process)
{
    static const int procs[] = {1, 2, 10};
    for (int i = 0; i < 3; i++) {
        tu_sim *t = quota_run(procs[i]);
        ck_assert_uint_eq(sim_processes(t->sim), (unsigned)procs[i]);
        ck_assert_uint_eq(t->sum.processes, (unsigned)procs[i]);
        ck_assert_uint_eq(t->sum.attempts - t->sum.offered,
                          50u * (unsigned)procs[i]);
        tu_sim_free(t);
    }
}
END_TEST

/* The policy's level is the mean over processes of the allowance they
 * report: aws_quota reports tokens / 500.  Full before the outage; once
 * the one quota is spent (less than a retry's 10 tokens left) it reads
 * under 10 / 500. */
START_TEST(policy_level_follows_the_quota)
{
    tu_sim *t = quota_run(1);
    const metrics *m = sim_metrics(t->sim);
    ck_assert_double_eq(m->buckets[5].policy_level, 1.0);
    ck_assert_double_lt(m->buckets[30].policy_level, 10.0 / 500.0);
    tu_sim_free(t);
}
END_TEST

/* Without processes = N, one process per client; clients are spread over
 * processes in contiguous blocks (c x P / N). */
START_TEST(processes_default_and_mapping)
{
    tu_sim *t = tu_sim_prepare("[scenario]\nname = p\nduration = 20s\n"
                               "[clients]\ncount = 7\n",
                               NULL, NULL, 0);
    ck_assert_uint_eq(sim_processes(t->sim), 7);
    tu_sim_free(t);
    t = tu_sim_prepare("[scenario]\nname = p\nduration = 20s\n"
                       "[clients]\ncount = 10\nprocesses = 4\n",
                       NULL, NULL, 0);
    static const uint32_t want[10] = {0, 0, 0, 1, 1, 2, 2, 2, 3, 3};
    for (uint32_t c = 0; c < 10; c++)
        ck_assert_uint_eq(requester_process_of(&t->sim->rqs.rq[0], c), want[c]);
    tu_sim_free(t);
}
END_TEST

/* ---- Connection pools ------------------------------------------------------
 *
 * Three clients start one request each at t = 0 in one process with one
 * connection; the server serves each in exactly 100 ms with workers to
 * spare.  The attempts go out one after the other: they end at 100, 200
 * and 300 ms, and the wait for the connection counts in their latency:
 * mean (100 + 200 + 300) / 3 = 200 ms, everything done at 0.3 s.  With
 * unlimited connections, or one connection per client (three processes),
 * every request takes 100 ms.
 */
static const char pool_ini[] =
    "[scenario]\nname = pool\nduration = 2s\nwarmup = 0s\n"
    "[clients]\ncount = 3\narrival = once\nstart_window = 0s\n"
    "processes = %d\nconnections = %s\ntimeout = 1s\n"
    "[server]\nworkers = unlimited\nservice = const(100ms)\n";

static tu_sim *pool_run(int processes, const char *connections)
{
    char ini[1024];
    snprintf(ini, sizeof ini, pool_ini, processes, connections);
    return tu_sim_run(ini, NULL, NULL, 0);
}

START_TEST(pool_wait_counts_in_latency)
{
    tu_sim *t = pool_run(1, "1");
    ck_assert_double_eq_tol(t->sum.latency_mean_ms, 200.0, 1e-9);
    ck_assert(t->sum.has_completion);
    ck_assert_double_eq_tol(t->sum.completion_time_s, 0.3, 1e-12);
    tu_sim_free(t);
    t = pool_run(1, "unlimited");
    ck_assert_double_eq_tol(t->sum.latency_mean_ms, 100.0, 1e-9);
    ck_assert_double_eq_tol(t->sum.completion_time_s, 0.1, 1e-12);
    tu_sim_free(t);
    t = pool_run(3, "1");
    ck_assert_double_eq_tol(t->sum.latency_mean_ms, 100.0, 1e-9);
    tu_sim_free(t);
}
END_TEST

/* A timeout covers the wait for a connection: with a 150 ms timeout the
 * second request (connection free at 100 ms, answer due at 200 ms) and
 * the third fail; only the first succeeds, in 100 ms. */
START_TEST(pool_wait_counts_in_the_timeout)
{
    tu_sim *t = tu_sim_run("[scenario]\nname = pool\nduration = 2s\n"
                           "warmup = 0s\n"
                           "[clients]\ncount = 3\narrival = once\n"
                           "start_window = 0s\nprocesses = 1\n"
                           "connections = 1\ntimeout = 150ms\n"
                           "[server]\nworkers = unlimited\n"
                           "service = const(100ms)\n",
                           NULL, NULL, 0);
    ck_assert_uint_eq(t->sum.successes, 1);
    ck_assert_uint_eq(t->sum.timeouts, 2);
    ck_assert_double_eq_tol(t->sum.latency_mean_ms, 100.0, 1e-9);
    tu_sim_free(t);
}
END_TEST

/* ---- The client's own time, and a clock that stops --------------------------
 *
 * The case: ten closed-loop clients with no think time, a
 * breaker, an outage at 20 s.  Once every breaker is open each request is
 * refused locally and the next starts at once.  A refused call costs its
 * client call_time (100 us), so each client ends exactly one request per
 * 100 us: 10 clients x 1 s / 100 us = 100 000 refused requests in every
 * 1 s bucket while the breakers stay open (60 s cooldown, so to the end
 * of this run), all of them counted as refused by a breaker.  With
 * call_time = 1 ms, 10 000.
 */
static const char breaker_ini[] =
    "[scenario]\nname = closed-breaker\nduration = 30s\n"
    "[clients]\ncount = 10\narrival = closed\nthink = 0s\n%s"
    "[server]\nnetwork_delay = const(1ms)\n"
    "[policy]\nname = exponential+circuit_breaker\n"
    "[fault.outage]\ntype = outage\nstart = 20s\nduration = 5s\n";

static tu_sim *breaker_prepare(const char *clients_section)
{
    char ini[1024];
    snprintf(ini, sizeof ini, breaker_ini, clients_section);
    return tu_sim_prepare(ini, NULL, NULL, 0);
}

START_TEST(a_refused_call_costs_call_time)
{
    static const struct {
        const char *line;
        uint64_t per_bucket;
    } cases[] = {{"", 100000}, {"call_time = 1ms\n", 10000}};
    for (int k = 0; k < 2; k++) {
        tu_sim *t = breaker_prepare(cases[k].line);
        ck_assert_int_eq(sim_run_until(t->sim, 25 * NS_PER_S), 0);
        /* Mid-outage every client's last send was refused locally. */
        const uint8_t *mode = sim_client_modes(t->sim);
        for (uint32_t c = 0; c < 10; c++)
            ck_assert_uint_eq(mode[c], CLIENT_REFUSED);
        ck_assert_int_eq(sim_run_until(t->sim, 30 * NS_PER_S), 0);
        sim_finish(t->sim);
        const metrics *m = sim_metrics(t->sim);
        for (size_t i = 22; i < 30; i++) {
            const metrics_bucket *b = &m->buckets[i];
            ck_assert_uint_eq(b->refused, cases[k].per_bucket);
            ck_assert_uint_eq(b->refused_breaker, cases[k].per_bucket);
            ck_assert_int_eq(b->open_breakers, 10);
        }
        tu_sim_free(t);
    }
}
END_TEST

/* Before the fault nobody is refused: clients are waiting on an answer
 * or have just had one. */
START_TEST(client_modes_before_the_fault)
{
    tu_sim *t = breaker_prepare("");
    ck_assert_int_eq(sim_run_until(t->sim, 10 * NS_PER_S), 0);
    const uint8_t *mode = sim_client_modes(t->sim);
    for (uint32_t c = 0; c < 10; c++)
        ck_assert(mode[c] == CLIENT_WAITING || mode[c] == CLIENT_IDLE);
    tu_sim_free(t);
}
END_TEST

/* Every way a call can end in zero time, with call_time = 0: the clock
 * stops, and the guard stops the run with a message that names the
 * client and the setting to change (the limit is lowered here so each
 * case takes milliseconds; check_cli runs the case with the
 * default limit through the binary).  With the default call_time the
 * same scenarios run to their end. */
static const struct zero_case {
    const char *what;
    const char *ini;
} zero_cases[] = {
    {"breaker",
     "[scenario]\nname = z\nduration = 30s\n"
     "[clients]\ncount = 10\narrival = closed\nthink = 0s\ncall_time = %s\n"
     "[server]\nnetwork_delay = const(1ms)\n"
     "[policy]\nname = exponential+circuit_breaker\n"
     "[fault.outage]\ntype = outage\nstart = 20s\nduration = 5s\n"},
    /* The throttle refuses locally, the server refuses connections; the
     * network takes no time. */
    {"budget",
     "[scenario]\nname = z\nduration = 30s\n"
     "[clients]\ncount = 10\narrival = closed\nthink = 0s\ncall_time = %s\n"
     "[policy]\nname = immediate+adaptive_throttle\n"
     "[fault.outage]\ntype = outage\nstart = 20s\nduration = 5s\n"
     "mode = refuse\n"},
    {"429",
     "[scenario]\nname = z\nduration = 5s\nwarmup = 1s\n"
     "[clients]\ncount = 10\narrival = closed\nthink = 0s\ncall_time = %s\n"
     "[server]\nrate_limit = 100/s\nservice = const(1ms)\n"},
    {"503",
     "[scenario]\nname = z\nduration = 5s\nwarmup = 1s\n"
     "[clients]\ncount = 2\narrival = closed\nthink = 0s\ncall_time = %s\n"
     "[server]\nworkers = 1\nqueue_limit = 0\nservice = const(10ms)\n"},
    {"refused connection",
     "[scenario]\nname = z\nduration = 30s\n"
     "[clients]\ncount = 10\narrival = closed\nthink = 0s\ncall_time = %s\n"
     "[fault.outage]\ntype = outage\nstart = 20s\nduration = 5s\n"
     "mode = refuse\n"},
};

START_TEST(zero_time_calls_stop_the_clock)
{
    const struct zero_case *z = &zero_cases[_i];
    char ini[1024];
    snprintf(ini, sizeof ini, z->ini, "0s");
    tu_sim *t = tu_sim_prepare(ini, NULL, NULL, 0);
    t->sc.cfg.instant_event_limit = 200000;
    ck_assert_msg(sim_run_until(t->sim, t->sc.cfg.duration_ns) == -1,
                  "case %s ran to its end", z->what);
    const char *msg = sim_error(t->sim);
    ck_assert_msg(strstr(msg, "simulated time stopped advancing: 200001 "
                              "events at t=") == msg,
                  "%s: %s", z->what, msg);
    ck_assert_ptr_nonnull(strstr(msg, "The last was client "));
    ck_assert_ptr_nonnull(strstr(msg, "give [clients] call_time"));
    tu_sim_free(t);
}
END_TEST

START_TEST(zero_time_calls_make_progress_by_default)
{
    const struct zero_case *z = &zero_cases[_i];
    char ini[1024];
    snprintf(ini, sizeof ini, z->ini, "100us");
    tu_sim *t = tu_sim_prepare(ini, NULL, NULL, 0);
    t->sc.cfg.instant_event_limit = 200000;
    ck_assert_msg(sim_run_until(t->sim, t->sc.cfg.duration_ns) == 0, "%s: %s",
                  z->what, sim_error(t->sim));
    tu_sim_free(t);
}
END_TEST

/* The 429 case, worked by hand: 10 clients, each request's answer takes
 * zero network and (for a 429) zero service, so each costs its client
 * call_time = 100 us: 10 000 requests per client-second, less the time
 * the admitted ones spend in service.  The rate limit admits 100/s (burst
 * 1): 500 successes in 5 s, each 1 ms of service.  Offered = 5 s x 10
 * clients x 10 000/s - 500 x (1 ms - 100 us) / 100 us = 500 000 - 4 500. */
START_TEST(rate_limited_closed_loop_by_hand)
{
    char ini[1024];
    snprintf(ini, sizeof ini, zero_cases[2].ini, "100us");
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    ck_assert_uint_eq(t->sum.successes, 500);
    ck_assert_uint_eq(t->sum.offered, 500000 - 4500);
    tu_sim_free(t);
}
END_TEST

Suite *model_clients_suite(void)
{
    Suite *s = suite_create("model_clients");
    TCase *tc = tcase_create("processes");
    tcase_add_test(tc, state_is_shared_by_a_process);
    tcase_add_test(tc, policy_level_follows_the_quota);
    tcase_add_test(tc, processes_default_and_mapping);
    suite_add_tcase(s, tc);
    tc = tcase_create("pools");
    tcase_add_test(tc, pool_wait_counts_in_latency);
    tcase_add_test(tc, pool_wait_counts_in_the_timeout);
    suite_add_tcase(s, tc);
    tc = tcase_create("call_time");
    /* A hang guard, not a timing assertion: each case takes well under a
     * second; a clock that stops without the guard would never end. */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, a_refused_call_costs_call_time);
    tcase_add_test(tc, client_modes_before_the_fault);
    tcase_add_loop_test(tc, zero_time_calls_stop_the_clock, 0, 5);
    tcase_add_loop_test(tc, zero_time_calls_make_progress_by_default, 0, 5);
    tcase_add_test(tc, rate_limited_closed_loop_by_hand);
    suite_add_tcase(s, tc);
    return s;
}
