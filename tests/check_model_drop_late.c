/*
 * check_model_drop_late.c -- `drop_late`: a server that drops queued work
 * which cannot finish before its caller gives up, beside `drop_expired`,
 * which drops only work whose caller has already given up.
 *
 * The setting, worked by hand: 150 clients send 1 request/s each (150/s,
 * Poisson), no retries, a 1 s timeout; 10 workers serve each attempt in
 * exactly 100 ms (capacity 100/s) and the network is instant.  The queue
 * grows by 50/s for the whole run.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static tu_sim *overload(const char *server_lines, const char *faults)
{
    char ini[1024];
    snprintf(ini, sizeof ini,
             "[scenario]\nname = late\nduration = 60s\nwarmup = 5s\n"
             "[clients]\ncount = 150\nrate = 1/s\ntimeout = 1s\n"
             "[server]\nworkers = 10\nservice = const(100ms)\n%s"
             "[policy]\nname = none\n%s",
             server_lines, faults);
    return tu_sim_run(ini, NULL, NULL, 0);
}

/* Successes per second over buckets [from, to). */
static double goodput(const tu_sim *t, size_t from, size_t to)
{
    return summary_goodput(sim_metrics(t->sim), from, to);
}

/* Successes in the emptiest and the fullest bucket of [from, to). */
static void goodput_range(const tu_sim *t, size_t from, size_t to, uint64_t *lo,
                          uint64_t *hi)
{
    const metrics *m = sim_metrics(t->sim);
    *lo = UINT64_MAX;
    *hi = 0;
    for (size_t i = from; i < to; i++) {
        uint64_t n = m->buckets[i].successes;
        *lo = n < *lo ? n : *lo;
        *hi = n > *hi ? n : *hi;
    }
}

/* drop_expired, FIFO.  An attempt that arrives at a (in seconds) waits
 * about a/2 s (the queue grows by 50/s and drains at 100/s), so only the
 * first 1.8 s of arrivals start with the 100 ms they need: about 270
 * successes, 27 s of the run's 600 s of service.  After that the queue
 * holds more than 1 s of work; the server drops what has expired and
 * serves the oldest attempt still waiting -- about 1 s old, with
 * milliseconds left -- so its answer comes 100 ms too late.  Only a lull
 * in arrivals (10 workers take 10 attempts that arrived over more than
 * 100 ms) lets one start in time: goodput well under 2 % of capacity, and
 * the wasted share about 1 - 27/600 = 0.955.
 *
 * drop_late: an attempt is served only with at least 100 ms left, and its
 * answer comes when its service ends, in time.  The workers never idle
 * (the queue holds the last 0.9 s of arrivals, about 135), so each
 * completes exactly 10 attempts a second: 100 successes in every bucket
 * once the queue has formed, no wasted work, and the other 50/s are
 * dropped as late -- about 150 x 60 - 100 x 59.9 (served) - 145 (queued
 * or in service at the end) = 2865.  (Exactly 100 ms left would answer at
 * the instant the client gives up, and count as late; arrival times are in
 * nanoseconds, so that takes a one-in-millions tie.) */
START_TEST(fifo_overload_by_hand)
{
    tu_sim *exp = overload("drop_expired = true\n", "");
    ck_assert_double_lt(goodput(exp, 10, 60), 2.0);
    ck_assert_uint_gt(exp->sum.expired, 2000);
    ck_assert_uint_eq(exp->sum.late, 0);
    ck_assert_double_eq_tol(exp->sum.wasted_work_share, 0.955, 0.015);
    ck_assert_double_eq_tol(exp->sum.utilization, 1.0, 1e-3);

    tu_sim *late = overload("drop_late = true\n", "");
    uint64_t lo, hi;
    goodput_range(late, 2, 60, &lo, &hi);
    ck_assert_uint_eq(lo, 100);
    ck_assert_uint_eq(hi, 100);
    ck_assert_double_lt(late->sum.wasted_work_share, 1e-3);
    ck_assert_uint_eq(late->sum.expired, 0);
    ck_assert_double_eq_tol((double)late->sum.late, 2865.0, 200.0);
    ck_assert_double_eq_tol(late->sum.utilization, 1.0, 1e-3);
    /* With both: the head of the queue is judged at every dequeue (about
     * every 10 ms) and dropped once it has under 100 ms left, so none gets
     * anywhere near expiring there: the same run. */
    tu_sim *both = overload("drop_expired = true\ndrop_late = true\n", "");
    ck_assert_uint_eq(both->sum.successes, late->sum.successes);
    ck_assert_uint_eq(both->sum.late, late->sum.late);
    tu_sim_free(exp);
    tu_sim_free(late);
    tu_sim_free(both);
}
END_TEST

/* The expectation includes the running slowdown and the degradation the
 * attempt would start under.  A slowdown of x2 for the whole run, or
 * degradation 0.2 past 5 busy workers (a start with all 10 busy takes
 * 100 ms x (1 + 0.2 x 5) = 200 ms): either way service takes 200 ms and
 * capacity halves to 50/s.  Served only with 200 ms left, every attempt
 * answers in time: exactly 50 successes per bucket, no waste.  A server
 * that expected the nominal 100 ms would serve attempts with 100-200 ms
 * left, every one of them late. */
START_TEST(expectation_follows_slowdown_and_degradation)
{
    static const struct {
        const char *server, *faults;
    } runs[] = {
        {"drop_late = true\n",
         "[fault.slow]\ntype = slowdown\nstart = 0s\nduration = 60s\n"
         "multiplier = 2\n"},
        {"drop_late = true\ndegradation = 0.2\ndegradation_knee = 5\n", ""},
    };
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        tu_sim *t = overload(runs[i].server, runs[i].faults);
        uint64_t lo, hi;
        goodput_range(t, 3, 60, &lo, &hi);
        ck_assert_uint_eq(lo, 50);
        ck_assert_uint_eq(hi, 50);
        ck_assert_double_lt(t->sum.wasted_work_share, 1e-3);
        tu_sim_free(t);
    }
}
END_TEST

/* The counter reaches every output: JSON, CSV and the summary. */
START_TEST(late_drops_are_reported)
{
    const char *ini = "[scenario]\nname = late\nduration = 20s\nwarmup = 5s\n"
                      "[clients]\ncount = 150\nrate = 1/s\ntimeout = 1s\n"
                      "[server]\nworkers = 10\nservice = const(100ms)\n"
                      "drop_late = true\n[policy]\nname = none\n";
    char path[1024], json[1024], csv[1024];
    snprintf(path, sizeof path, "%s", tu_write_temp("late.ini", ini));
    snprintf(json, sizeof json, "%s", tu_temp_path("late.json"));
    snprintf(csv, sizeof csv, "%s", tu_temp_path("late.csv"));
    const char *argl[] = {"run",   path, "--json",      json,
                          "--csv", csv,  "--no-timing", NULL};
    tu_output o;
    tu_stormbench(&o, argl);
    ck_assert_int_eq(o.status, 0);
    char *j = tu_read_file(json);
    double dropped = tu_json_number(j, "server.late_dropped");
    /* As in fifo_overload_by_hand, over 20 s: about 150 x 20 - 100 x 19.9
     * - 145 = 865. */
    ck_assert_double_eq_tol(dropped, 865.0, 150.0);
    char line[160];
    snprintf(line, sizeof line,
             "0 expired (the client had timed out), "
             "%.0f late (could not finish in time)",
             dropped);
    ck_assert_msg(strstr(o.out, line) != NULL, "summary: %s", o.out);
    /* The CSV's late_dropped column, summed over the buckets. */
    char *c = tu_read_file(csv);
    ck_assert_double_eq(tu_csv_sum(c, "late_dropped"), dropped);
    free(j);
    free(c);
    tu_output_free(&o);
}
END_TEST

Suite *model_drop_late_suite(void)
{
    Suite *s = suite_create("model_drop_late");
    TCase *tc = tcase_create("drop_late");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, fifo_overload_by_hand);
    tcase_add_test(tc, expectation_follows_slowdown_and_degradation);
    tcase_add_test(tc, late_drops_are_reported);
    suite_add_tcase(s, tc);
    return s;
}
