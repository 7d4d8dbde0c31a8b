/*
 * check_metrics.c -- the kept series is bounded: a run with more buckets
 * than METRICS_MAX_BUCKETS keeps rows of 2^k buckets, and those rows are
 * exactly what a run with buckets that wide would have counted (same
 * counts, same quantiles, same recovery verdict), while observers still
 * get every bucket at the scenario's width.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* ---- The module alone ---------------------------------------------------- */

/* A latency sample stream: a fixed LCG, spread over 1 us .. 4 s. */
static int64_t sample(uint64_t *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return (int64_t)(1000 + (*x >> 33) % 4000000000ull);
}

typedef struct closed_log {
    size_t calls;
    int64_t next_start;
} closed_log;

static void on_closed(void *ctx, const metrics_bucket *b,
                      const metrics_hist *h)
{
    closed_log *l = ctx;
    ck_assert_int_eq(b->start_ns, l->next_start);
    ck_assert_int_eq(b->width_ns, 1000000);
    /* What the observer gets agrees with itself: the quantile bins are
     * those of the histogram it is handed. */
    uint64_t n = 0;
    for (size_t i = 0; i < BUCKET_HIST_BINS; i++) {
        ck_assert(h->latency[i] == 0 || (i >= h->lo && i <= h->hi));
        n += h->latency[i];
    }
    ck_assert_uint_eq(n, b->successes);
    l->next_start += b->width_ns;
    l->calls++;
}

/* 10 buckets of 1 ms, at most 4 rows: merge doubles until ceil(10 / merge)
 * fits, so merge = 4 (3 rows: 4 + 4 + 2 buckets; merge = 2 would need 5).
 * Each row's p50 and p99 are those hist_quantile finds in a histogram of
 * every sample of its buckets, built here independently. */
START_TEST(merged_rows_have_the_quantiles_of_their_samples)
{
    metrics m;
    ck_assert_int_eq(metrics_init(&m, 1000000, 10000000, 4), 0);
    ck_assert_uint_eq(m.merge, 4);
    ck_assert_int_eq(m.bucket_ns, 4000000);
    static uint32_t ref[3][BUCKET_HIST_BINS];
    uint64_t n[3] = {0, 0, 0};
    memset(ref, 0, sizeof ref);
    uint64_t x = 42;
    closed_log log = {0, 0};
    for (int b = 0; b < 10; b++) {
        ck_assert_int_eq(metrics_roll(&m, (int64_t)b * 1000000, on_closed,
                                      &log),
                         0);
        int count = 1 + b * 37 % 101; /* 1 to 101 samples per bucket */
        for (int k = 0; k < count; k++) {
            int64_t v = sample(&x);
            m.cur->successes++;
            metrics_latency(&m, v);
            ref[b / 4][hist_bin(BUCKET_HIST_BITS, v)]++;
            n[b / 4]++;
        }
    }
    metrics_finish(&m, 10000000, 0, on_closed, &log);
    ck_assert_uint_eq(log.calls, 10);
    ck_assert_uint_eq(m.n_buckets, 3);
    for (int r = 0; r < 3; r++) {
        const metrics_bucket *b = &m.buckets[r];
        ck_assert_int_eq(b->start_ns, r * 4000000);
        ck_assert_int_eq(b->width_ns, r < 2 ? 4000000 : 2000000);
        ck_assert_uint_eq(b->successes, n[r]);
        ck_assert_double_eq(metrics_bin_ms(b->p50_bin),
                            hist_quantile(BUCKET_HIST_BITS, ref[r], n[r],
                                          0.50) / 1e6);
        ck_assert_double_eq(metrics_bin_ms(b->p99_bin),
                            hist_quantile(BUCKET_HIST_BITS, ref[r], n[r],
                                          0.99) / 1e6);
    }
    metrics_fini(&m);
}
END_TEST

/* ---- Whole runs ------------------------------------------------------------ */

/* retry-storm.ini's server and storm, with the bucket to fill in; 300 s. */
static const char storm_fmt[] =
    "[scenario]\nname = merge\nduration = 300s\nwarmup = 20s\n"
    "bucket = %s\nrecovery_window = 10s\n"
    "[clients]\ncount = 1000\nrate = 0.14/s\ntimeout = 1s\n"
    "[server]\nworkers = 16\nservice = exp(100ms)\n"
    "network_delay = const(1ms)\n"
    "[policy]\nname = exponential+token_bucket\n"
    "[fault.outage]\ntype = outage\nstart = 60s\nduration = 10s\n"
    "mode = blackhole\n";

static void count_closed(void *ctx, const sim *s, const metrics_bucket *b,
                         const metrics_hist *h)
{
    (void)s;
    (void)h;
    ck_assert_int_eq(b->width_ns, 1000000);
    (*(size_t *)ctx)++;
}

/* The bucket width does not change the simulation (the engine draws no
 * random number by bucket), so a 1 ms run -- 300 000 buckets, over the
 * 131 072 limit, kept as rows of 4 (the smallest power of two with
 * 300 000 / 2^k <= 131 072) -- must keep exactly the rows a 4 ms run
 * counts bucket by bucket: every count and quantile, and therefore the
 * same summary, recovery included.  The time integrals are sums of the
 * same terms in another order: equal to rounding. */
START_TEST(merged_run_equals_a_run_at_the_merged_width)
{
    char ini[1024];
    snprintf(ini, sizeof ini, storm_fmt, "1ms");
    tu_sim *fine = tu_sim_prepare(ini, NULL, NULL, 0);
    size_t seen = 0;
    sim_observer o = {&seen, count_closed, NULL};
    sim_observe(fine->sim, &o);
    ck_assert_int_eq(sim_run_until(fine->sim, fine->sc.cfg.duration_ns), 0);
    sim_finish(fine->sim);
    summary_compute(fine->sim, &fine->sum);
    snprintf(ini, sizeof ini, storm_fmt, "4ms");
    tu_sim *wide = tu_sim_run(ini, NULL, NULL, 0);
    const metrics *a = sim_metrics(fine->sim), *b = sim_metrics(wide->sim);
    ck_assert_uint_eq(seen, 300000); /* observers: every 1 ms bucket */
    ck_assert_uint_eq(a->merge, 4);
    ck_assert_uint_eq(b->merge, 1);
    ck_assert_int_eq(a->bucket_ns, b->bucket_ns);
    ck_assert_uint_eq(a->n_buckets, 75000);
    ck_assert_uint_eq(b->n_buckets, 75000);
    for (size_t i = 0; i < a->n_buckets; i++) {
        const metrics_bucket *x = &a->buckets[i], *y = &b->buckets[i];
        ck_assert_int_eq(x->start_ns, y->start_ns);
        ck_assert_int_eq(x->width_ns, y->width_ns);
        /* Every integer field, start to the max queue, in one compare. */
        ck_assert_int_eq(memcmp(&x->offered, &y->offered,
                                offsetof(metrics_bucket, busy_ns) -
                                    offsetof(metrics_bucket, offered)),
                         0);
        ck_assert_int_eq(memcmp(&x->service_ns, &y->service_ns,
                                sizeof *x - offsetof(metrics_bucket,
                                                     service_ns)),
                         0);
        ck_assert_double_eq_tol(x->busy_ns, y->busy_ns,
                                1e-6 * y->busy_ns + 1e-6);
        ck_assert_double_eq_tol(x->queue_ns, y->queue_ns,
                                1e-6 * y->queue_ns + 1e-6);
    }
    ck_assert(fine->sum.recovered); /* a verdict to compare: 71 s */
    ck_assert_double_eq(fine->sum.recovery_time_s, wide->sum.recovery_time_s);
    ck_assert_double_eq(fine->sum.peak_amplification,
                        wide->sum.peak_amplification);
    ck_assert_double_eq(fine->sum.baseline_goodput_per_s,
                        wide->sum.baseline_goodput_per_s);
    tu_sim_free(fine);
    tu_sim_free(wide);
}
END_TEST

/* The bound metrics.h documents: 2 h at 1 ms is 7 200 000 buckets, kept
 * as 7 200 000 / 64 = 112 500 rows of 64 ms (32 would leave 225 000, over
 * the limit), 208 bytes each.  The engine's whole memory stays far under
 * the 19 GB that one 2.7 kB bucket per millisecond took. */
START_TEST(two_hours_at_one_ms_are_bounded)
{
    static const char ini[] =
        "[scenario]\nname = long\nduration = 2h\nbucket = 1ms\n"
        "[clients]\ncount = 10\nrate = 1/s\n"
        "[policy]\nname = none\n";
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    const metrics *m = sim_metrics(t->sim);
    ck_assert_uint_eq(m->merge, 64);
    ck_assert_uint_eq(m->n_buckets, 112500);
    ck_assert_uint_le(m->cap, 112501); /* grown to what the run needs */
    ck_assert_uint_eq(sizeof(metrics_bucket), 208);
    sim_stats st;
    sim_get_stats(t->sim, &st);
    ck_assert_uint_lt(st.bytes, 64u << 20);
    ck_assert_uint_eq(t->sum.offered, m->total.sum.offered);
    tu_sim_free(t);
}
END_TEST

Suite *metrics_suite(void)
{
    Suite *s = suite_create("metrics");
    TCase *tc = tcase_create("bounded");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, merged_rows_have_the_quantiles_of_their_samples);
    tcase_add_test(tc, merged_run_equals_a_run_at_the_merged_width);
    tcase_add_test(tc, two_hours_at_one_ms_are_bounded);
    suite_add_tcase(s, tc);
    return s;
}
