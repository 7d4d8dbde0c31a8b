/*
 * check_sim_api.c -- the engine's API as a front end uses it: stepping a
 * frame at a time (the GUI) gives exactly the one-shot run (the CLI);
 * faults injected at run time act and end; observers see every bucket.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "histogram.h"
#include "server.h"
#include "testutil.h"

static const char steady_ini[] =
    "[scenario]\nname = api\nduration = 60s\nwarmup = 5s\n"
    "[clients]\ncount = 200\nrate = 1/s\ntimeout = 1s\n"
    "[server]\nworkers = 40\nservice = exp(100ms)\n"
    "network_delay = exp(2ms)\n"
    "[policy]\nname = exponential\nmax_attempts = 3\n";

/* 16.7 ms frames (60 frames a second, as the GUI draws) versus one call:
 * same events in the same order, so the same metrics to the byte. */
START_TEST(stepping_equals_one_shot)
{
    tu_sim *one = tu_sim_run(steady_ini, NULL, NULL, 0);
    tu_sim *steps = tu_sim_prepare(steady_ini, NULL, NULL, 0);
    int64_t end = steps->sc.cfg.duration_ns;
    for (int64_t t = 16666667; t < end; t += 16666667)
        ck_assert_int_eq(sim_run_until(steps->sim, t), 0);
    ck_assert_int_eq(sim_run_until(steps->sim, end), 0);
    sim_finish(steps->sim);
    const metrics *a = sim_metrics(one->sim), *b = sim_metrics(steps->sim);
    ck_assert_uint_eq(a->n_buckets, b->n_buckets);
    ck_assert_int_eq(
        memcmp(a->buckets, b->buckets, a->n_buckets * sizeof *a->buckets), 0);
    tu_sim_free(one);
    tu_sim_free(steps);
}
END_TEST

/* Stopped on a bucket's end (1 s steps of 1 s buckets, as the GUI's
 * slices are), the engine closes the bucket there instead of at the next
 * event: the same buckets, to the byte, and each closed a step sooner. */
START_TEST(stepping_on_bucket_ends_equals_one_shot)
{
    tu_sim *one = tu_sim_run(steady_ini, NULL, NULL, 0);
    tu_sim *steps = tu_sim_prepare(steady_ini, NULL, NULL, 0);
    int64_t end = steps->sc.cfg.duration_ns;
    for (int64_t t = NS_PER_S; t < end; t += NS_PER_S) {
        ck_assert_int_eq(sim_run_until(steps->sim, t), 0);
        /* [t - 1 s, t) has closed; the row after it is open. */
        ck_assert_uint_eq(sim_metrics(steps->sim)->n_buckets,
                          (size_t)(t / NS_PER_S) + 1);
    }
    ck_assert_int_eq(sim_run_until(steps->sim, end), 0);
    sim_finish(steps->sim);
    const metrics *a = sim_metrics(one->sim), *b = sim_metrics(steps->sim);
    ck_assert_uint_eq(a->n_buckets, b->n_buckets);
    ck_assert_int_eq(
        memcmp(a->buckets, b->buckets, a->n_buckets * sizeof *a->buckets), 0);
    tu_sim_free(one);
    tu_sim_free(steps);
}
END_TEST

/* An outage injected at t = 20 s (refuse) for 10 s, then a black hole
 * injected at 40 s and ended by hand at 45 s: answers are refused only
 * while the first runs, and the summary measures recovery from 45 s. */
START_TEST(injected_faults_act_and_end)
{
    tu_sim *t = tu_sim_prepare(steady_ini, "none", NULL, 0);
    sb_err e;
    ck_assert_int_eq(sim_run_until(t->sim, 20 * NS_PER_S), 0);
    fault_cfg f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "live");
    f.type = FAULT_OUTAGE;
    f.mode = CUT_REFUSE;
    f.start_ns = 0; /* in the past: starts now */
    f.duration_ns = 10 * NS_PER_S;
    int i = sim_inject(t->sim, &f, &e);
    ck_assert_int_eq(i, 0);
    ck_assert_int_eq(sim_run_until(t->sim, 25 * NS_PER_S), 0);
    ck_assert(sim_fault_active(t->sim, i));
    ck_assert_int_eq(sim_run_until(t->sim, 40 * NS_PER_S), 0);
    ck_assert(!sim_fault_active(t->sim, i));
    f.mode = CUT_BLACKHOLE;
    f.start_ns = 40 * NS_PER_S;
    f.duration_ns = 3600 * NS_PER_S;
    /* A name keys a fault's draws: a second fault may not reuse one. */
    ck_assert_int_eq(sim_inject(t->sim, &f, &e), -1);
    ck_assert_str_eq(e.msg, "there is already a fault named 'live'");
    snprintf(f.name, sizeof f.name, "live2");
    int j = sim_inject(t->sim, &f, &e);
    ck_assert_int_eq(j, 1);
    ck_assert_int_eq(sim_run_until(t->sim, 45 * NS_PER_S), 0);
    ck_assert(sim_fault_active(t->sim, j));
    sim_end_fault(t->sim, j);
    ck_assert(!sim_fault_active(t->sim, j));
    ck_assert_int_eq(sim_last_fault_end(t->sim), 45 * NS_PER_S);
    ck_assert_int_eq(sim_run_until(t->sim, 60 * NS_PER_S), 0);
    sim_finish(t->sim);
    const metrics *m = sim_metrics(t->sim);
    /* 200 requests/s refused in [20, 30): no rejections before or after. */
    ck_assert_uint_eq(m->buckets[19].rejections, 0);
    ck_assert_uint_gt(m->buckets[25].rejections, 150);
    ck_assert_uint_eq(m->buckets[35].rejections, 0);
    /* The black hole answers nothing: attempts time out instead. */
    ck_assert_uint_eq(m->buckets[42].successes, 0);
    ck_assert_uint_gt(m->buckets[50].successes, 150);
    summary_compute(t->sim, &t->sum);
    ck_assert_double_eq(t->sum.last_fault_end_s, 45.0);
    tu_sim_free(t);
}
END_TEST

/* Two changes at one instant, as the GUI makes them when a key is
 * pressed twice between frames: a capacity fault injected at 20 s and
 * ended at once, before its start event ran, then another injected at
 * the same instant.  The first must never begin (it lasted no time: its
 * duration is 0, and it counts for neither the first fault's start nor
 * the last one's end); the second alone sets the workers.  Capacity
 * faults take the fewest workers of those running, so the test goes up
 * (3, then 30): had the first begun anyway, the server would have 3. */
START_TEST(fault_ended_before_it_began_never_begins)
{
    tu_sim *t = tu_sim_prepare(steady_ini, "none", NULL, 0);
    sb_err e;
    ck_assert_int_eq(sim_run_until(t->sim, 20 * NS_PER_S), 0);
    fault_cfg f;
    memset(&f, 0, sizeof f);
    f.type = FAULT_CAPACITY;
    f.duration_ns = 40 * NS_PER_S;
    snprintf(f.name, sizeof f.name, "few");
    f.workers = 3;
    int i = sim_inject(t->sim, &f, &e);
    ck_assert_int_ge(i, 0);
    ck_assert(!sim_fault_active(t->sim, i)); /* its start is an event */
    sim_end_fault(t->sim, i);
    snprintf(f.name, sizeof f.name, "many");
    f.workers = 30;
    int j = sim_inject(t->sim, &f, &e);
    ck_assert_int_ge(j, 0);
    ck_assert_int_eq(sim_run_until(t->sim, 30 * NS_PER_S), 0);
    ck_assert(!sim_fault_active(t->sim, i));
    ck_assert(sim_fault_active(t->sim, j));
    sim_server_now sv;
    sim_server_state(t->sim, &sv);
    ck_assert_uint_eq(sv.workers, 30);
    uint32_t n;
    const fault_cfg *all = sim_faults(t->sim, &n);
    ck_assert_int_eq(all[i].duration_ns, 0);
    ck_assert_int_eq(sim_first_fault_start(t->sim), 20 * NS_PER_S);
    ck_assert_int_eq(sim_last_fault_end(t->sim), 60 * NS_PER_S);
    tu_sim_free(t);
}
END_TEST

/* Work for nobody, as the GUI's server gauge shows it.  One worker busy
 * for the whole run, a closed loop of 20 000 clients that each wait 1 s
 * for an answer, give up and come back: the queue only grows (about
 * 10 000 attempts a second), and with no network delay every client that
 * still waits has its one attempt queued or in service.  So, counted
 * exactly, the abandoned ones are what is left:
 *     abandoned in service + abandoned queued + waiting clients
 *         = busy + queued.
 * Past SIM_ABANDONED_SAMPLE queued attempts, sim_server_state samples
 * them: it must say so, and be within 4 standard deviations of a
 * binomial sample of 4096, sqrt(p (1 - p) / 4096) of the queue. */
START_TEST(abandoned_work_counted_and_sampled)
{
    static const char ini[] =
        "[scenario]\nname = nobody\nduration = 60s\n"
        "[clients]\ncount = 20000\narrival = closed\nthink = exp(1s)\n"
        "timeout = 1s\n"
        "[server]\nworkers = 1\nservice = const(1000s)\n"
        "network_delay = const(0s)\n"
        "[policy]\nname = none\n";
    tu_sim *t = tu_sim_prepare(ini, NULL, NULL, 0);
    ck_assert_int_eq(sim_run_until(t->sim, 20 * NS_PER_S), 0);
    uint32_t busy_gone, queued_gone;
    ck_assert(!server_abandoned(t->sim->srv, 0, &busy_gone, &queued_gone));
    uint32_t n = sim_clients(t->sim), waiting = 0;
    const uint8_t *modes = sim_client_modes(t->sim);
    for (uint32_t i = 0; i < n; i++)
        waiting += modes[i] == CLIENT_WAITING;
    sim_server_now sv;
    sim_server_state(t->sim, &sv);
    ck_assert_uint_eq(sv.busy, 1);
    ck_assert_uint_eq(busy_gone, 1); /* its client gave up at t = 1 s */
    ck_assert_uint_gt(sv.queued, 100000);
    ck_assert_uint_gt(waiting, 5000);
    ck_assert_uint_eq(busy_gone + queued_gone + waiting, sv.busy + sv.queued);
    /* The gauge's figure: a sample, said to be one, close to the count. */
    ck_assert(sv.abandoned_estimated);
    ck_assert_uint_eq(sv.abandoned_busy, 1);
    double p = (double)queued_gone / sv.queued;
    double sd = sqrt(p * (1 - p) / SIM_ABANDONED_SAMPLE) * sv.queued;
    ck_assert_msg(fabs((double)sv.abandoned_queued - queued_gone) <= 4 * sd,
                  "sampled %u, counted %u (sd %.0f)", sv.abandoned_queued,
                  queued_gone, sd);
    tu_sim_free(t);
}
END_TEST

typedef struct seen {
    size_t calls;
    int64_t next_start;
    uint64_t offered;
} seen;

static void count_bucket(void *ctx, const sim *s, const metrics_bucket *b,
                         const metrics_hist *h)
{
    seen *n = ctx;
    (void)s;
    (void)h;
    ck_assert_int_eq(b->start_ns, n->next_start); /* in order, none skipped */
    ck_assert_int_eq(b->width_ns, NS_PER_S);
    n->calls++;
    n->next_start += b->width_ns;
    n->offered += b->offered;
}

/* An observer hears of each of the 60 buckets as it closes, the last one
 * from sim_finish. */
START_TEST(observers_see_every_bucket)
{
    tu_sim *t = tu_sim_prepare(steady_ini, NULL, NULL, 0);
    seen n = {0, 0, 0};
    sim_observer o = {&n, count_bucket, NULL, false};
    ck_assert_int_eq(sim_observe(t->sim, &o), 0);
    ck_assert_int_eq(sim_run_until(t->sim, t->sc.cfg.duration_ns), 0);
    ck_assert_uint_eq(n.calls, 59);
    sim_finish(t->sim);
    ck_assert_uint_eq(n.calls, 60);
    const metrics *m = sim_metrics(t->sim);
    ck_assert_uint_eq(m->n_buckets, 60);
    ck_assert_uint_eq(n.offered, m->total.sum.offered);
    tu_sim_free(t);
}
END_TEST

/* summary_compute_cdf reads the caller's levels in the summary's own pass
 * over the run's histogram.  What it gives must be what two passes gave:
 * the same summary, byte for byte, and at each level what hist_quantile
 * finds on its own (a scan per level, no merging).  The levels fall
 * before, between, on and after the summary's 0.5, 0.99 and 0.999, so an
 * index mixed up in the merge of the two lists gives another level's
 * value (the steady run's latencies span 2 ms to over a second, so
 * 0.01 and 0.999 do not share a bin); 70 levels are more than one pass
 * takes (64) and take the second pass, which must agree too. */
START_TEST(summary_cdf_is_one_pass_of_the_same_values)
{
    tu_sim *t = tu_sim_run(steady_ini, NULL, NULL, 0);
    const metrics *m = sim_metrics(t->sim);
    uint64_t n = m->total.sum.successes;
    ck_assert_uint_gt(n, 1000);
    static const double few[] = {0.01, 0.25, 0.5, 0.5, 0.9, 0.99, 0.995, 1.0};
    double many[70];
    for (int i = 0; i < 70; i++)
        many[i] = (i + 1) / 70.0;
    const double *levels[2] = {few, many};
    size_t counts[2] = {sizeof few / sizeof *few, 70};
    sim_summary a, b;
    summary_compute(t->sim, &a);
    for (int k = 0; k < 2; k++) {
        double v[70];
        summary_compute_cdf(t->sim, &b, levels[k], counts[k], v);
        ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
        for (size_t i = 0; i < counts[k]; i++)
            ck_assert_double_eq(v[i],
                                hist_quantile(TOTAL_HIST_BITS, m->total.latency,
                                              n, levels[k][i]));
    }
    double lo, hi;
    summary_compute_cdf(t->sim, &b, few, 1, &lo);
    summary_compute_cdf(t->sim, &b, few + 7, 1, &hi);
    ck_assert_double_lt(lo, hi);
    tu_sim_free(t);
}
END_TEST

/* No request succeeds (a 10 ms timeout, 100 ms of service): every level
 * reads 0, as hist_quantiles gives for an empty histogram, and the
 * summary is summary_compute's. */
START_TEST(summary_cdf_of_no_successes_is_zero)
{
    static const char ini[] =
        "[scenario]\nname = none-ok\nduration = 20s\n"
        "[clients]\ncount = 10\nrate = 1/s\ntimeout = 10ms\n"
        "[server]\nworkers = 4\nservice = const(100ms)\n"
        "[policy]\nname = exponential\nmax_attempts = 2\n";
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    ck_assert_uint_eq(sim_metrics(t->sim)->total.sum.successes, 0);
    ck_assert_uint_gt(sim_metrics(t->sim)->total.sum.offered, 100);
    static const double q[3] = {0.1, 0.5, 0.999};
    double v[3] = {-1, -1, -1};
    sim_summary a, b;
    summary_compute(t->sim, &a);
    summary_compute_cdf(t->sim, &b, q, 3, v);
    ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
    for (int i = 0; i < 3; i++)
        ck_assert_double_eq(v[i], 0.0);
    tu_sim_free(t);
}
END_TEST

Suite *sim_api_suite(void)
{
    Suite *s = suite_create("sim_api");
    TCase *tc = tcase_create("api");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, stepping_equals_one_shot);
    tcase_add_test(tc, stepping_on_bucket_ends_equals_one_shot);
    tcase_add_test(tc, injected_faults_act_and_end);
    tcase_add_test(tc, fault_ended_before_it_began_never_begins);
    tcase_add_test(tc, abandoned_work_counted_and_sampled);
    tcase_add_test(tc, observers_see_every_bucket);
    tcase_add_test(tc, summary_cdf_is_one_pass_of_the_same_values);
    tcase_add_test(tc, summary_cdf_of_no_successes_is_zero);
    suite_add_tcase(s, tc);
    return s;
}
