/*
 * check_summary.c -- the reduction of a run to its summary: recovery is
 * judged by its definition (the first window of goodput back within 10 %
 * of baseline), and judging it costs O(buckets), not O(buckets x window).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "testutil.h"

/* A smaller retry storm than scenarios/retry-storm.ini (the same server at
 * the same utilization, 0.875, with a tenth of the clients each sending
 * ten times as much), with the bucket, the recovery window and the
 * outage's length to fill in. */
static const char storm_fmt[] =
    "[scenario]\nname = summary\nduration = 200s\nwarmup = 20s\n"
    "bucket = %s\nrecovery_window = %s\n"
    "[clients]\ncount = 100\nrate = 1.4/s\ntimeout = 1s\n"
    "[server]\nworkers = 16\nservice = exp(100ms)\n"
    "network_delay = const(1ms)\n"
    "[policy]\nname = immediate\nmax_attempts = 5\n"
    "[fault.outage]\ntype = outage\nstart = 60s\nduration = %s\n"
    "mode = blackhole\n";

/* Recovery as summary.h defines it, computed the slow and obvious way:
 * every window re-summed from scratch.  Returns the first bucket of the
 * first window within the band, or n when there is none. */
static size_t reference_recovery(const metrics *m, size_t from, size_t w,
                                 double base)
{
    size_t n = m->n_buckets;
    for (size_t i = from; i + w <= n; i++) {
        uint64_t sum = 0;
        for (size_t j = i; j < i + w; j++)
            sum += m->buckets[j].successes;
        double goodput = (double)sum / ((double)w * (double)m->bucket_ns / 1e9);
        if (fabs(goodput - base) <= RECOVERY_BAND * base)
            return i;
    }
    return n;
}

/* The summary's verdict against the reference on one run. */
static void check_against_reference(const tu_sim *t)
{
    const metrics *m = sim_metrics(t->sim);
    const sim_config *c = &t->sc.cfg;
    const sim_summary *s = &t->sum;
    ck_assert(s->recovery_judged);
    int64_t end = sim_last_fault_end(t->sim);
    size_t from = (size_t)((end + m->bucket_ns - 1) / m->bucket_ns);
    size_t w =
        (size_t)((c->recovery_window_ns + m->bucket_ns - 1) / m->bucket_ns);
    size_t i = reference_recovery(m, from, w, s->baseline_goodput_per_s);
    if (i == m->n_buckets) {
        ck_assert(s->metastable);
        ck_assert(!s->recovered);
        return;
    }
    ck_assert(s->recovered);
    ck_assert(!s->metastable);
    /* The same double, not merely a close one: the same bucket. */
    ck_assert_double_eq(s->recovery_time_s,
                        (double)((int64_t)i * m->bucket_ns - end) / 1e9);
}

/* Policies that recover at once (none), late (the throttled ones) and
 * never (immediate, exponential), over bucket widths, windows and outage
 * lengths: the running window sum finds the same first window as
 * re-summing every window.  Both outcomes occur in the set, so neither
 * branch goes untested. */
START_TEST(recovery_matches_the_definition)
{
    static const char *const policies[] = {"none", "immediate", "exponential",
                                           "exponential+token_bucket",
                                           "exponential+circuit_breaker"};
    static const char *const buckets[] = {"1s", "100ms"};
    static const char *const windows[] = {"10s", "30s", "1s"};
    static const char *const outages[] = {"10s", "2s"};
    int recovered = 0, metastable = 0;
    for (size_t p = 0; p < sizeof policies / sizeof *policies; p++)
        for (size_t b = 0; b < 2; b++)
            for (size_t w = 0; w < 3; w++)
                for (size_t o = 0; o < 2; o++) {
                    char ini[2048];
                    snprintf(ini, sizeof ini, storm_fmt, buckets[b], windows[w],
                             outages[o]);
                    tu_sim *t = tu_sim_run(ini, policies[p], NULL, 0);
                    check_against_reference(t);
                    recovered += t->sum.recovered;
                    metastable += t->sum.metastable;
                    tu_sim_free(t);
                }
    ck_assert_int_gt(recovered, 10);
    ck_assert_int_gt(metastable, 10);
}
END_TEST

/* CPU seconds of this thread: unlike wall time, not stretched by other
 * work on a shared machine. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 1 ms buckets and a 59.5 s recovery window over the 119 s after a 10 s
 * outage at t = 2 s, which leaves the run metastable: the scan looks at
 * all 59 501 windows of 59 500 buckets.  Re-summing each window is 3.5e9
 * additions (28 s of CPU on the project's machine before the running sum;
 * retry-storm.ini at 1 ms with a 60 s window took 74 s); a running sum is
 * 119 000.  The bound, on this thread's CPU time (wall time on a loaded
 * machine took 39 s once), is a hang guard, generous for a run that takes
 * a fraction of a second (the engine's share included, under ASan too). */
START_TEST(recovery_scan_is_linear)
{
    static const char ini[] =
        "[scenario]\nname = fine\nduration = 131s\nwarmup = 1s\n"
        "bucket = 1ms\nrecovery_window = 59500ms\n"
        "[clients]\ncount = 100\nrate = 1.4/s\ntimeout = 1s\n"
        "[server]\nworkers = 16\nservice = exp(100ms)\n"
        "network_delay = const(1ms)\n"
        "[policy]\nname = immediate\nmax_attempts = 5\n"
        "[fault.outage]\ntype = outage\nstart = 2s\nduration = 10s\n"
        "mode = blackhole\n";
    double t0 = cpu_s();
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    double took = cpu_s() - t0;
    ck_assert(t->sum.metastable); /* so the whole scan ran */
    ck_assert_msg(took < 8.0, "a 1 ms-bucket run took %.1f s of CPU", took);
    tu_sim_free(t);
}
END_TEST

Suite *summary_suite(void)
{
    Suite *s = suite_create("summary");
    TCase *tc = tcase_create("recovery");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, recovery_matches_the_definition);
    tcase_add_test(tc, recovery_scan_is_linear);
    suite_add_tcase(s, tc);
    return s;
}
