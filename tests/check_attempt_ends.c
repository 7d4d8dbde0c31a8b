/*
 * check_attempt_ends.c -- every attempt that ends while its client waits
 * ends exactly once, in one class: a success, a timeout, a rejection by
 * the server, an injected error, or another error (metrics.h).
 *
 * Before this was so, the server counted a rejection when it turned an
 * attempt away, whether or not its client still waited, and counted an
 * attempt that arrived during a black-hole outage as rejected although
 * nothing answered it: its client then counted the same attempt again,
 * as a timeout.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* The classes of one row of the series, or of the run. */
static uint64_t classes(const metrics_bucket *b)
{
    return b->successes + b->timeouts + b->rejections + b->errors +
           b->other_errors;
}

/* Every row, and the run: the classes add up to the attempts that ended.
 * A success is counted when its request finishes, at the same event (so
 * in the same row) as its attempt's end. */
static void assert_ends_add_up(const tu_sim *t, const char *what)
{
    const metrics *m = sim_metrics(t->sim);
    for (size_t i = 0; i < m->n_buckets; i++)
        ck_assert_msg(classes(&m->buckets[i]) == m->buckets[i].attempts_ended,
                      "%s, row %zu: %llu ends in classes, %llu attempts "
                      "ended",
                      what, i, (unsigned long long)classes(&m->buckets[i]),
                      (unsigned long long)m->buckets[i].attempts_ended);
    const sim_summary *s = &t->sum;
    ck_assert_uint_eq(s->successes + s->timeouts + s->rejections + s->errors +
                          s->other_errors,
                      s->attempts_ended);
    /* No attempt ends twice: at most every attempt sent ends. */
    ck_assert_uint_le(s->attempts_ended, s->attempts);
}

/* ---- A black hole, by hand ------------------------------------------------
 *
 * 10 closed-loop clients, think const 1 s, service const 100 ms, no
 * network delay, unlimited workers and queue, timeout 1 s, immediate
 * retries up to 3 attempts; a black-hole outage in [10, 15) s.  Every
 * client does the same (const draws): a request at t = 1 s, answered
 * 0.1 s later, then the next 1 s after that, so requests start at
 * 1.0, 2.1, 3.2, ..., 9.8 s (9 requests, each answered before 10 s: none
 * is at the server when it goes down).  Then:
 *   10.9  into the hole; times out at 11.9, retried at once: 11.9 into
 *         the hole, timeout at 12.9, retried: 12.9, timeout at 13.9; the
 *         third attempt ends the request (gave up); think 1 s
 *   14.9  into the hole (it is still down); times out at 15.9, retried
 *         at once to a server that is up: answered at 16.0
 *   17.0, 18.1, 19.2  answered; the next would start at 20.3, after the
 *         20 s run.
 * Per client: 17 attempts, 14 requests, 13 successes, 1 failure, and 4
 * attempts sent into the hole, each of which ends by its timeout and in
 * no other way: 40 timeouts and no rejection in all. */
static const char outage_ini[] =
    "[scenario]\nname = hole\nduration = 20s\nwarmup = 0s\n"
    "[clients]\ncount = 10\narrival = closed\nthink = const(1s)\n"
    "timeout = 1s\n"
    "[server]\nworkers = unlimited\nqueue_limit = unlimited\n"
    "service = const(100ms)\nnetwork_delay = const(0ms)\n"
    "[policy]\nname = immediate\nmax_attempts = 3\n"
    "[fault.hole]\ntype = outage\nmode = %s\nstart = 10s\n"
    "duration = 5s\n";

static tu_sim *run_outage(const char *mode)
{
    char ini[sizeof outage_ini + 16];
    snprintf(ini, sizeof ini, outage_ini, mode);
    return tu_sim_run(ini, NULL, NULL, 0);
}

START_TEST(blackhole_attempts_end_once_by_timeout)
{
    tu_sim *t = run_outage("blackhole");
    const sim_summary *s = &t->sum;
    ck_assert_uint_eq(s->offered, 140);
    ck_assert_uint_eq(s->attempts, 170);
    ck_assert_uint_eq(s->successes, 130);
    ck_assert_uint_eq(s->failures, 10);
    ck_assert_uint_eq(s->gave_up, 10);
    ck_assert_uint_eq(s->timeouts, 40);
    ck_assert_uint_eq(s->rejections, 0);
    ck_assert_uint_eq(s->errors, 0);
    ck_assert_uint_eq(s->other_errors, 0);
    ck_assert_uint_eq(s->attempts_ended, 170);
    /* Where they end: 10 at each of 11.9, 12.9, 13.9 and 15.9 s. */
    const metrics *m = sim_metrics(t->sim);
    for (size_t i = 0; i < m->n_buckets; i++) {
        bool hole = i == 11 || i == 12 || i == 13 || i == 15;
        ck_assert_uint_eq(m->buckets[i].timeouts, hole ? 10 : 0);
        ck_assert_uint_eq(m->buckets[i].rejections, 0);
    }
    assert_ends_add_up(t, "blackhole");
    tu_sim_free(t);
}
END_TEST

/* The same with mode = refuse: the server answers every attempt that
 * reaches it while down at once (refused), so those attempts end as
 * rejections and none times out; and the classes still add up.  (How
 * many there are depends on call_time, the client's own 100 us per call,
 * so it is not pinned here.) */
START_TEST(refused_attempts_end_once_as_rejections)
{
    tu_sim *t = run_outage("refuse");
    ck_assert_uint_eq(t->sum.timeouts, 0);
    ck_assert_uint_gt(t->sum.rejections, 0);
    ck_assert_uint_eq(t->sum.rejections + t->sum.successes,
                      t->sum.attempts_ended);
    assert_ends_add_up(t, "refuse");
    tu_sim_free(t);
}
END_TEST

/* ---- The invariant on many kinds of run --------------------------------- */

/* Scenarios that end attempts every way there is: queue overflow answered
 * and dropped, a rate limit, injected errors (and late answers to
 * attempts that timed out first), lost answers, data defects, a
 * partition that refuses and one that black-holes, a deduplicating server
 * that answers 409, expired and late drops, hedges (whose losers end
 * nothing), a pool of connections, and two-round-trip updates. */
static const char *const cases[] = {
    "[scenario]\nname = overflow\nduration = 30s\n"
    "[clients]\ncount = 50\nrate = 1/s\ntimeout = 300ms\n"
    "[server]\nworkers = 1\nservice = exp(100ms)\nqueue_limit = 5\n"
    "overflow = reject\n[policy]\nname = immediate\n",

    "[scenario]\nname = drop\nduration = 30s\n"
    "[clients]\ncount = 50\nrate = 1/s\ntimeout = 300ms\n"
    "[server]\nworkers = 1\nservice = exp(100ms)\nqueue_limit = 5\n"
    "overflow = drop\n[policy]\nname = immediate\n",

    "[scenario]\nname = mixed\nduration = 40s\n"
    "[clients]\ncount = 200\nrate = 0.5/s\ntimeout = 200ms\n"
    "defect_fraction = 0.05\npost = 0.5\nread = 0.5\nput = 0\n"
    "idempotency_keys = true\n"
    "[server]\nworkers = 8\nservice = exp(20ms)\n"
    "network_delay = exp(20ms)\nrate_limit = 80/s\nidempotency = true\n"
    "dedupe_answer = conflict\n"
    "[policy]\nname = immediate\nmax_attempts = 4\n"
    "[fault.err]\ntype = errors\nstart = 5s\nduration = 10s\n"
    "status = 503\nprobability = 0.3\n"
    "[fault.ack]\ntype = lost_ack\nstart = 10s\nduration = 10s\n"
    "probability = 0.3\n"
    "[fault.cut]\ntype = partition\nmode = refuse\nstart = 20s\n"
    "duration = 5s\nfraction = 0.3\n"
    "[fault.hole]\ntype = partition\nmode = blackhole\nstart = 25s\n"
    "duration = 5s\nfraction = 0.3\n"
    "[fault.down]\ntype = outage\nmode = refuse\nstart = 32s\n"
    "duration = 2s\n",

    "[scenario]\nname = expire\nduration = 30s\n"
    "[clients]\ncount = 100\nrate = 1.5/s\ntimeout = 500ms\n"
    "connections = 4\nprocesses = 10\n"
    "[server]\nworkers = 10\nservice = exp(80ms)\ndrop_expired = true\n"
    "drop_late = true\n"
    "[policy]\nname = exponential\nbase = 10ms\n"
    "[fault.slow]\ntype = slowdown\nmultiplier = 3\nstart = 10s\n"
    "duration = 5s\n",

    "[scenario]\nname = hedged\nduration = 30s\n"
    "[clients]\ncount = 100\nrate = 1/s\ntimeout = 1s\n"
    "[server]\nworkers = unlimited\nservice = lognormal(20ms, 1)\n"
    "[policy]\nname = hedge\ndelay = 10ms\nmax_hedged = 2\n"
    "[fault.hole]\ntype = outage\nmode = blackhole\nstart = 10s\n"
    "duration = 3s\n",

    /* Two round trips per attempt: each trip is admitted (and may be
     * answered with an injected error) on its own, yet the pair ends
     * once. */
    "[scenario]\nname = occ2\nduration = 30s\n"
    "[clients]\ncount = 200\nrate = 1/s\ntimeout = 50ms\n"
    "read = 0\nput = 0\npost = 1\n"
    "[server]\nmodel = hot_record\nocc = two_round_trips\nworkers = 4\n"
    "service = exp(5ms)\nnetwork_delay = exp(3ms)\n"
    "[policy]\nname = immediate\n"
    "[fault.err]\ntype = errors\nstart = 5s\nduration = 10s\n"
    "status = 503\nprobability = 0.2\n",
};

START_TEST(ends_add_up_in_every_kind_of_run)
{
    tu_sim *t = tu_sim_run(cases[_i], NULL, NULL, 0);
    ck_assert_uint_gt(t->sum.attempts_ended, 1000);
    assert_ends_add_up(t, t->sc.cfg.name);
    tu_sim_free(t);
}
END_TEST

/* The mixed case above does end attempts in every class. */
START_TEST(the_mixed_run_has_every_class)
{
    tu_sim *t = tu_sim_run(cases[2], NULL, NULL, 0);
    ck_assert_uint_gt(t->sum.timeouts, 100);
    ck_assert_uint_gt(t->sum.rejections, 100);
    ck_assert_uint_gt(t->sum.errors, 100);
    ck_assert_uint_gt(t->sum.other_errors, 100);
    tu_sim_free(t);
}
END_TEST

/* The shipped scenarios, as they ship. */
static const char *const shipped[] = {"retry-storm", "duplicate-writes",
                                      "hot-record", "overload-thrash"};

START_TEST(ends_add_up_in_the_shipped_scenarios)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/scenarios/%s.ini", SB_SOURCE_DIR,
             shipped[_i]);
    char *text = tu_read_file(path);
    ck_assert_ptr_nonnull(text);
    tu_sim *t = tu_sim_run(text, NULL, NULL, 0);
    assert_ends_add_up(t, shipped[_i]);
    tu_sim_free(t);
    free(text);
}
END_TEST

/* retry-storm's black hole: its attempts end by timing out, and nothing
 * is rejected (the queue is unbounded and nothing else turns attempts
 * away).  Before, the 5542 attempts that reached the server while it was
 * down were counted as rejected as well as timed out. */
START_TEST(retry_storm_rejects_nothing)
{
    char *text = tu_read_file(TU_SOURCE("scenarios/retry-storm.ini"));
    ck_assert_ptr_nonnull(text);
    tu_sim *t = tu_sim_run(text, NULL, NULL, 0);
    ck_assert_uint_eq(t->sum.rejections, 0);
    ck_assert_uint_eq(t->sum.errors, 0);
    ck_assert_uint_eq(t->sum.other_errors, 0);
    ck_assert_uint_eq(t->sum.successes + t->sum.timeouts,
                      t->sum.attempts_ended);
    tu_sim_free(t);
    free(text);
}
END_TEST

Suite *attempt_ends_suite(void)
{
    Suite *s = suite_create("attempt_ends");
    TCase *tc = tcase_create("attempt_ends");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, blackhole_attempts_end_once_by_timeout);
    tcase_add_test(tc, refused_attempts_end_once_as_rejections);
    tcase_add_loop_test(tc, ends_add_up_in_every_kind_of_run, 0,
                        (int)(sizeof cases / sizeof *cases));
    tcase_add_test(tc, the_mixed_run_has_every_class);
    tcase_add_loop_test(tc, ends_add_up_in_the_shipped_scenarios, 0,
                        (int)(sizeof shipped / sizeof *shipped));
    tcase_add_test(tc, retry_storm_rejects_nothing);
    suite_add_tcase(s, tc);
    return s;
}
