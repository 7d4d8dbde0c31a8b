/*
 * check_model_occ.c -- optimistic concurrency on the hot record in two
 * round trips (`occ = two_round_trips`: a read of the version, then a
 * conditional write) against the one-step form: hand-worked timelines,
 * what the timeout covers, where the two forms must agree, and the
 * loader's refusals.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Every client sends one post at t = 0 (clients start in id order, so
 * ties break by client id); service and network are constants; a conflict
 * is retried at once. */
static tu_sim *run_small(int clients, const char *workers, const char *occ,
                         const char *timeout, int max_attempts)
{
    char ini[1024];
    snprintf(ini, sizeof ini,
             "[scenario]\nname = occ\nduration = 10s\nwarmup = 0s\n"
             "[clients]\ncount = %d\narrival = once\nstart_window = 0s\n"
             "post = 1\ntimeout = %s\n"
             "[server]\nmodel = hot_record\nworkers = %s\n"
             "service = const(10ms)\nnetwork_delay = const(1ms)\n%s"
             "[policy]\nname = immediate\nmax_attempts = %d\n",
             clients, timeout, workers,
             strcmp(occ, "two_round_trips") == 0
                 ? "occ = two_round_trips\nread_service = const(2ms)\n"
                 : "",
             max_attempts);
    return tu_sim_run(ini, NULL, NULL, 0);
}

/* Three clients, unlimited workers.  Two round trips, each attempt:
 *   0  sent; 1  the read arrives; 1-3  read (the version is read at 3);
 *   4  its answer reaches the client, which sends the write;
 *   5  the write arrives; 5-15  write; 16  its answer reaches the client.
 * Round 1: all three read version 0 at 3 ms; at 15 ms the first write to
 * finish (client 0's) commits and the other two are ABORTED; they retry at
 * 16 ms and play the same 16 ms round again, one winner per round.
 * Attempts 3 + 2 + 1 = 6, conflicts 2 + 1 = 3, done at 3 x 16 = 48 ms.
 * One step: a round is 1 + 10 + 1 = 12 ms: the same 6 attempts and 3
 * conflicts, done at 3 x 12 = 36 ms. */
START_TEST(lockstep_rounds_by_hand)
{
    tu_sim *two = run_small(3, "unlimited", "two_round_trips", "10s", 100);
    ck_assert_uint_eq(two->sum.attempts, 6);
    ck_assert_uint_eq(two->sum.conflicts, 3);
    ck_assert_uint_eq(two->sum.successes, 3);
    ck_assert(two->sum.has_completion);
    ck_assert_double_eq_tol(two->sum.completion_time_s, 0.048, 1e-12);
    tu_sim *one = run_small(3, "unlimited", "one_step", "10s", 100);
    ck_assert_uint_eq(one->sum.attempts, 6);
    ck_assert_uint_eq(one->sum.conflicts, 3);
    ck_assert_double_eq_tol(one->sum.completion_time_s, 0.036, 1e-12);
    tu_sim_free(two);
    tu_sim_free(one);
}
END_TEST

/* Two clients A and B, one worker: the queue serializes the one-step
 * updates, but not the gap between a read and its write.
 * One step: A is served 1-11 (reads 0, commits version 1), B waits and is
 * served 11-21 (reads 1, commits 2): 2 attempts, no conflict, B's answer
 * at 22 ms.
 * Two round trips: A reads 1-3 (version 0) while B waits; B reads 3-5
 * (version 0: A has not written yet).  A's write arrives at 5 and is
 * served 5-15 (commits version 1); B's write arrives at 7, waits, and is
 * served 15-25: the version moved since B's read, so B is ABORTED, and
 * hears it at 26.  B retries at once: read 27-29 (version 1), write
 * arrives 31, served 31-41, commits; answer at 42 ms.
 * 3 attempts, 1 conflict, done at 42 ms. */
START_TEST(one_worker_by_hand)
{
    tu_sim *one = run_small(2, "1", "one_step", "10s", 100);
    ck_assert_uint_eq(one->sum.attempts, 2);
    ck_assert_uint_eq(one->sum.conflicts, 0);
    ck_assert_double_eq_tol(one->sum.completion_time_s, 0.022, 1e-12);
    tu_sim *two = run_small(2, "1", "two_round_trips", "10s", 100);
    ck_assert_uint_eq(two->sum.attempts, 3);
    ck_assert_uint_eq(two->sum.conflicts, 1);
    ck_assert_uint_eq(two->sum.successes, 2);
    ck_assert_double_eq_tol(two->sum.completion_time_s, 0.042, 1e-12);
    tu_sim_free(one);
    tu_sim_free(two);
}
END_TEST

/* The read returns the version as it is when the read's service ends.
 * Three clients A, B, C; two workers; reads of 5 ms, writes of 1 ms, 1 ms
 * of network each way.  A and B read 1-6 (version 0) while C waits; C
 * reads 6-11.  A's write arrives at 8 and is served 8-9: it commits
 * (version 1) and A is done at 10.  B's write, queued behind it, is
 * served 9-10 and ABORTED (B read 0); B hears it at 11 and retries.  C's
 * read ends at 11, after A's commit: it returns version 1, so C's write
 * (served 13-14) commits (version 2) and C is done at 15.  B's retry reads
 * 12-17 (version 2), writes 19-20, commits; done at 21 ms.
 * 4 attempts, 1 conflict.  (A read that returned the version as of its
 * start would have given C version 0 and a second conflict.) */
START_TEST(read_returns_the_version_at_its_end)
{
    const char *ini =
        "[scenario]\nname = occ\nduration = 10s\nwarmup = 0s\n"
        "[clients]\ncount = 3\narrival = once\nstart_window = 0s\n"
        "post = 1\ntimeout = 10s\n"
        "[server]\nmodel = hot_record\nworkers = 2\n"
        "service = const(1ms)\nnetwork_delay = const(1ms)\n"
        "occ = two_round_trips\nread_service = const(5ms)\n"
        "[policy]\nname = immediate\nmax_attempts = 100\n";
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    ck_assert_uint_eq(t->sum.attempts, 4);
    ck_assert_uint_eq(t->sum.conflicts, 1);
    ck_assert_uint_eq(t->sum.successes, 3);
    ck_assert_double_eq_tol(t->sum.completion_time_s, 0.021, 1e-12);
    tu_sim_free(t);
}
END_TEST

/* Each trip is a request of its own to the server, with its own coin for
 * an errors fault.  With zero network and service times no two updates
 * overlap (no conflicts), and an attempt fails when either of its two
 * trips draws an error: q = 1 - (1 - p)^2 = 0.51 for p = 0.3.  With at
 * most k = 4 attempts, attempts per request are (1 - q^4)/(1 - q) = 1.903
 * and the success ratio 1 - q^4 = 0.9323 (a single coin per attempt would
 * give 1.417 and 0.9919).  100 000 requests: standard errors under 0.3 %
 * and 0.001. */
START_TEST(each_trip_flips_its_own_error_coin)
{
    const char *ini =
        "[scenario]\nname = occ\nduration = 1000s\nwarmup = 0s\n"
        "[clients]\ncount = 100\nrate = 1/s\npost = 1\ntimeout = 10s\n"
        "[server]\nmodel = hot_record\nworkers = unlimited\n"
        "service = 0s\nocc = two_round_trips\nread_service = 0s\n"
        "[policy]\nname = immediate\nmax_attempts = 4\n"
        "[fault.err]\ntype = errors\nstart = 0s\nduration = 1000s\n"
        "status = 503\nprobability = 0.3\n";
    double q = 1 - 0.7 * 0.7;
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    ck_assert_uint_eq(t->sum.conflicts, 0);
    ck_assert_double_eq_tol(t->sum.amplification, (1 - q * q * q * q) / (1 - q),
                            0.01);
    ck_assert_double_eq_tol(t->sum.success_ratio, 1 - q * q * q * q, 0.003);
    tu_sim_free(t);
}
END_TEST

/* The pair is one attempt and one timeout covers both trips.  One client,
 * a 15 ms timeout, two attempts at most; the pair answers at 16 ms.
 * Attempt 1: read 1-3, write sent at 4, served 5-15: it commits at 15,
 * when the client has just timed out (its timeout was scheduled first), so
 * the write's 10 ms are wasted; the read's answer was used, so its 2 ms
 * are not.  Attempt 2 (sent at 15): read 16-18 sees version 1, write
 * served 20-30 commits again -- a duplicate post -- and times out too.
 * 2 attempts, 2 timeouts, 1 duplicate, no success; wasted 20 ms of 24.
 * One step, the same update answers at 12 ms: 1 attempt, a success. */
START_TEST(timeout_covers_the_pair)
{
    tu_sim *two = run_small(1, "unlimited", "two_round_trips", "15ms", 2);
    ck_assert_uint_eq(two->sum.attempts, 2);
    ck_assert_uint_eq(two->sum.timeouts, 2);
    ck_assert_uint_eq(two->sum.successes, 0);
    ck_assert_uint_eq(two->sum.gave_up, 1);
    ck_assert_uint_eq(two->sum.duplicates, 1);
    ck_assert_uint_eq(two->sum.conflicts, 0);
    ck_assert_double_eq_tol(two->sum.wasted_work_s, 0.020, 1e-12);
    ck_assert_double_eq_tol(two->sum.wasted_work_share, 20.0 / 24.0, 1e-12);
    tu_sim *one = run_small(1, "unlimited", "one_step", "15ms", 2);
    ck_assert_uint_eq(one->sum.attempts, 1);
    ck_assert_uint_eq(one->sum.successes, 1);
    tu_sim_free(two);
    tu_sim_free(one);
}
END_TEST

/* A client that has stopped waiting when the read's answer arrives sends
 * no write.  A 3 ms timeout: each read is served 2 ms and answered 1 ms
 * after its 1 ms trip -- at 4 ms after the send, too late -- so nothing is
 * ever written: 2 attempts, 2 timeouts, no commit (no duplicate), and the
 * only service, the two reads' 4 ms, is all wasted. */
START_TEST(no_write_after_the_timeout)
{
    tu_sim *t = run_small(1, "unlimited", "two_round_trips", "3ms", 2);
    ck_assert_uint_eq(t->sum.attempts, 2);
    ck_assert_uint_eq(t->sum.timeouts, 2);
    ck_assert_uint_eq(t->sum.duplicates, 0);
    ck_assert_double_eq_tol(t->sum.wasted_work_s, 0.004, 1e-12);
    ck_assert_double_eq_tol(t->sum.wasted_work_share, 1.0, 1e-12);
    tu_sim_free(t);
}
END_TEST

/* The shipped hot-record scenario with its network_delay line replaced by
 * `lines`, run with policy (NULL: the scenario's) and one parameter. */
static tu_sim *hot_record_with(const char *lines, const char *policy,
                               const char *param)
{
    char *ini = tu_read_file(TU_SOURCE("scenarios/hot-record.ini"));
    ck_assert_ptr_nonnull(ini);
    const char *net = "network_delay = const(1ms)\n";
    const char *at = strstr(ini, net);
    ck_assert_ptr_nonnull(at);
    size_t n = strlen(ini) + strlen(lines) + 1;
    char *text = malloc(n);
    snprintf(text, n, "%.*s%s%s", (int)(at - ini), ini, lines,
             at + strlen(net));
    const char *params[] = {param};
    tu_sim *t = tu_sim_run(text, policy, params, 1);
    free(text);
    free(ini);
    return t;
}

/* With no network delay, an instant read and unlimited workers, the read
 * happens at the instant the one-step update would have read the version,
 * and the write starts at that same instant: the conflict window is the
 * write's service in both forms.  So every metric of every bucket must be
 * the same, whatever the retry timing (the jitter modes and immediate
 * retries of scenarios/hot-record.ini).  The forms differ, as they should,
 * as soon as the read or the network takes time (the window grows by the
 * round trip) or workers are limited (the write queues again). */
START_TEST(instant_read_without_network_agrees)
{
    static const struct {
        const char *policy, *param;
    } runs[] = {{NULL, "jitter=full"},
                {NULL, "jitter=equal"},
                {NULL, "jitter=decorrelated"},
                {"immediate", "max_attempts=1000"}};
    const char *one_step = "network_delay = 0s\n";
    const char *two = "network_delay = 0s\nocc = two_round_trips\n"
                      "read_service = 0s\n";
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        tu_sim *a = hot_record_with(one_step, runs[i].policy, runs[i].param);
        tu_sim *b = hot_record_with(two, runs[i].policy, runs[i].param);
        ck_assert_uint_gt(a->sum.conflicts, 0);
        ck_assert_uint_eq(a->sum.attempts, b->sum.attempts);
        ck_assert_uint_eq(a->sum.conflicts, b->sum.conflicts);
        ck_assert_uint_eq(a->sum.has_completion, b->sum.has_completion);
        ck_assert_double_eq(a->sum.completion_time_s, b->sum.completion_time_s);
        const metrics *ma = sim_metrics(a->sim), *mb = sim_metrics(b->sim);
        ck_assert_uint_eq(ma->n_buckets, mb->n_buckets);
        /* Every field but the count of service starts: the two-trip form
         * starts two services (the read and the write) per attempt. */
        for (size_t k = 0; k < ma->n_buckets; k++) {
            metrics_bucket x = ma->buckets[k], y = mb->buckets[k];
            ck_assert_uint_eq(y.served, 2 * x.served);
            x.served = y.served = 0;
            ck_assert_msg(memcmp(&x, &y, sizeof x) == 0,
                          "%s: the two forms differ in bucket %zu",
                          runs[i].param, k);
        }
        tu_sim_free(a);
        tu_sim_free(b);
    }
}
END_TEST

/* The new keys are refused where they would have no effect. */
START_TEST(keys_without_effect_are_refused)
{
    static const struct {
        const char *lines, *message;
    } cases[] = {
        {"occ = two_round_trips\n",
         ":5: [server] occ: has no effect unless model = hot_record\n"},
        {"model = hot_record\nread_service = 1ms\n",
         ":6: [server] read_service: has no effect unless occ = "
         "two_round_trips\n"},
        {"model = hot_record\nocc = two_phase\n",
         ":6: [server] occ: expected one of one_step|two_round_trips, got "
         "'two_phase'\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char ini[512];
        snprintf(ini, sizeof ini,
                 "[scenario]\nname = t\nduration = 60s\n[server]\n%s",
                 cases[i].lines);
        char path[1024];
        snprintf(path, sizeof path, "%s", tu_write_temp("occ-bad.ini", ini));
        const char *argl[] = {"run", path, NULL};
        tu_output o;
        tu_stormbench(&o, argl);
        ck_assert_int_eq(o.status, 2);
        char want[2048];
        snprintf(want, sizeof want, "stormbench run: %s%s", path,
                 cases[i].message);
        ck_assert_str_eq(o.err, want);
        tu_output_free(&o);
    }
}
END_TEST

Suite *model_occ_suite(void)
{
    Suite *s = suite_create("model_occ");
    TCase *tc = tcase_create("two_round_trips");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, lockstep_rounds_by_hand);
    tcase_add_test(tc, one_worker_by_hand);
    tcase_add_test(tc, read_returns_the_version_at_its_end);
    tcase_add_test(tc, each_trip_flips_its_own_error_coin);
    tcase_add_test(tc, timeout_covers_the_pair);
    tcase_add_test(tc, no_write_after_the_timeout);
    tcase_add_test(tc, instant_read_without_network_agrees);
    tcase_add_test(tc, keys_without_effect_are_refused);
    suite_add_tcase(s, tc);
    return s;
}
