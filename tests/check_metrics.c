/*
 * check_metrics.c -- the kept series is bounded: a run with more buckets
 * than METRICS_MAX_BUCKETS keeps rows of 2^k buckets, and those rows are
 * exactly what a run with buckets that wide would have counted (same
 * counts, same quantiles, same recovery verdict), while observers still
 * get every bucket at the scenario's width.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "expect.h"
#include "export.h"
#include "runfile.h"
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

static void on_closed(void *ctx, const metrics_bucket *b, const metrics_hist *h)
{
    closed_log *l = ctx;
    ck_assert_int_eq(b->start_ns, l->next_start);
    ck_assert_int_eq(b->width_ns, 1000000);
    /* What the observer gets agrees with itself: the quantile bins are
     * those of the histogram it is handed. */
    uint64_t n = 0;
    for (size_t i = 0; i < BUCKET_HIST_BINS; i++) {
        ck_assert(h->latency[i] == 0 || (i >= h->lat_lo && i <= h->lat_hi));
        n += h->latency[i];
    }
    ck_assert_uint_eq(n, b->successes);
    /* The span's ends have counts (metrics.h: phases_sum_add takes them
     * as the sum's own ends). */
    if (n > 0)
        ck_assert(h->latency[h->lat_lo] > 0 && h->latency[h->lat_hi] > 0);
    else
        ck_assert_uint_gt(h->lat_lo, h->lat_hi);
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
        ck_assert_int_eq(
            metrics_roll(&m, (int64_t)b * 1000000, on_closed, &log), 0);
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
        ck_assert_double_eq(
            metrics_bin_ms(b->p50_bin),
            hist_quantile(BUCKET_HIST_BITS, ref[r], n[r], 0.50) / 1e6);
        ck_assert_double_eq(
            metrics_bin_ms(b->p99_bin),
            hist_quantile(BUCKET_HIST_BITS, ref[r], n[r], 0.99) / 1e6);
    }
    metrics_fini(&m);
}
END_TEST

/* metrics_attempt_latency keeps the last value's bins and skips the live
 * histogram's span on a repeat.  Neither may go stale: each sample is
 * checked against hist_bin's bins, computed here, at the first call (0,
 * then a value next to the "none yet" -1), for values that alternate,
 * repeat, share a fine bin but not the value, and for a repeat that is
 * the first sample of a new bucket (whose histogram starts empty, so its
 * bin must be touched again: the observer sees it inside [att_lo,
 * att_hi]). */
static void attempt_closed(void *ctx, const metrics_bucket *b,
                           const metrics_hist *h)
{
    uint64_t n = 0;
    for (size_t i = 0; i < BUCKET_HIST_BINS; i++) {
        ck_assert(h->attempt[i] == 0 || (i >= h->att_lo && i <= h->att_hi));
        n += h->attempt[i];
    }
    if (n > 0)
        ck_assert(h->attempt[h->att_lo] > 0 && h->attempt[h->att_hi] > 0);
    ck_assert_uint_eq(n, b->attempts_ended);
    (*(size_t *)ctx)++;
}

START_TEST(attempt_latency_cache_is_never_stale)
{
    static const int64_t v[] = {0,
                                0,
                                1,
                                1000000000,
                                1000000000,
                                30000000,
                                1000000000,
                                30000000,
                                30000000,
                                1000000001,
                                1000000000,
                                15,
                                16,
                                16,
                                15,
                                (int64_t)1 << 42,
                                ((int64_t)1 << 42) + 1,
                                1000000000,
                                1000000000};
    static uint32_t fine_ref[TOTAL_HIST_BINS];
    static uint32_t live_ref[BUCKET_HIST_BINS];
    memset(fine_ref, 0, sizeof fine_ref);
    metrics m;
    ck_assert_int_eq(metrics_init(&m, 1000000, 4000000, 16), 0);
    size_t closed = 0;
    for (int64_t b = 0; b < 4; b++) {
        ck_assert_int_eq(metrics_roll(&m, b * 1000000, attempt_closed, &closed),
                         0);
        memset(live_ref, 0, sizeof live_ref);
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
            /* Each bucket after the first opens on the value its
             * predecessor ended with: 1 s, 1 s, then 2^42 + 1 ns. */
            size_t n = sizeof v / sizeof v[0];
            int64_t ns = v[(i + (size_t)b * (n - 1)) % n];
            size_t fine = hist_bin(TOTAL_HIST_BITS, ns);
            size_t bin = hist_bin(BUCKET_HIST_BITS, ns);
            metrics_attempt_latency(&m, ns);
            fine_ref[fine]++;
            live_ref[bin]++;
            ck_assert_uint_eq(m.total.attempt_latency[fine], fine_ref[fine]);
            ck_assert_uint_eq(m.live_hist.attempt[bin], live_ref[bin]);
            ck_assert_uint_le(m.live_hist.att_lo, bin);
            ck_assert_uint_ge(m.live_hist.att_hi, bin);
        }
        ck_assert_int_eq(memcmp(m.live_hist.attempt, live_ref, sizeof live_ref),
                         0);
    }
    ck_assert_int_eq(memcmp(m.total.attempt_latency, fine_ref, sizeof fine_ref),
                     0);
    metrics_finish(&m, 4000000, 0, attempt_closed, &closed);
    ck_assert_uint_eq(closed, 4);
    metrics_fini(&m);
}
END_TEST

/* The gauges' integrals the way they were always summed: in doubles,
 * one product per span between changes (metrics.h). */
typedef struct gauge_ref {
    double busy_ns, queue_ns;
    int64_t t, end;
    uint32_t busy, queue;
    size_t closed, closed_exact;
    const metrics *m;
} gauge_ref;

static void ref_gauge(gauge_ref *r, int64_t t)
{
    int64_t dt = t - r->t;
    if (dt > 0) {
        r->busy_ns += (double)r->busy * (double)dt;
        r->queue_ns += (double)r->queue * (double)dt;
        r->t = t;
    }
}

static void gauge_closed(void *ctx, const metrics_bucket *b,
                         const metrics_hist *h)
{
    (void)h;
    gauge_ref *r = ctx;
    int64_t end = b->start_ns + b->width_ns;
    ref_gauge(r, end < r->end ? end : r->end);
    ck_assert(memcmp(&b->busy_ns, &r->busy_ns, sizeof r->busy_ns) == 0);
    ck_assert(memcmp(&b->queue_ns, &r->queue_ns, sizeof r->queue_ns) == 0);
    r->closed_exact += r->m->exact;
    r->busy_ns = r->queue_ns = 0.0;
    r->closed++;
}

/* The workers and the queue's target in regime r (bucket r of 8, as
 * below) at `at` into the bucket. */
static void gauge_regime(int64_t r, int64_t at, int64_t w, uint32_t *cap,
                         uint32_t *target)
{
    static const uint32_t caps[8][2] = {
        {100, 100},     /* 0: drain what 7 left */
        {100, 100},     /* 1: exact throughout (and a crash) */
        {100, 100},     /* 2: the queue passes the bound at w/4 */
        {100, 100},     /* 3: opens past the bound (the queue) */
        {100, 100},     /* 4: drain */
        {100, 20000},   /* 5: the workers pass it at w/4, a crash; 100 at
                           the very end */
        {100, 100},     /* 6: opens past it (busy only); 20000 at the end */
        {20000, 20000}, /* 7: opens past it (the workers only) */
    };
    static const uint32_t targets[8][2] = {
        {100, 100}, {2000, 2000}, {2000, 20000}, {20000, 20000},
        {100, 100}, {2000, 2000}, {2000, 2000},  {2000, 2000},
    };
    int late = at >= w / 4;
    *cap = caps[r][late];
    *target = targets[r][late];
    if ((r == 5 || r == 6) && at >= w - ((int64_t)1 << 31))
        *cap = r == 5 ? 100 : 20000;
}

/* Exact integration, and leaving it mid-bucket (a queue or the workers
 * past exact_lim) or from a bucket's start, give the doubles' bits.
 * Buckets of 2^40 ns: exact_lim is 2^13, and a bucket of gauges well
 * past it sums past 2^53, where the doubles round.  Sixteen buckets in
 * eight regimes (gauge_regime); busy and the queue step by one, in
 * bursts, towards the workers and the target. */
START_TEST(gauges_have_the_doubles_bits)
{
    const int64_t w = (int64_t)1 << 40;
    metrics m;
    ck_assert_int_eq(metrics_init(&m, w, 16 * w, 64), 0);
    ck_assert_uint_eq(m.exact_lim, 8192);
    gauge_ref r = {.m = &m, .end = INT64_MAX};
    uint32_t cap = 100, target = 100;
    size_t opened_exact = 1, seen = 0;
    bool crashed = false;
    metrics_set_capacity(&m, 0, cap);
    uint64_t x = 7;
    int64_t t = 0;
    while (t < 16 * w) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t u = (uint32_t)(x >> 33);
        if (u % 4 != 0)
            t += (int64_t)((x >> 20) % ((uint64_t)1 << 29));
        ck_assert_int_eq(metrics_roll(&m, t, gauge_closed, &r), 0);
        if (r.closed != seen) {
            seen = r.closed;
            opened_exact += m.exact;
            crashed = false;
        }
        int64_t regime = t / w % 8, at = t % w;
        uint32_t was = cap;
        gauge_regime(regime, at, w, &cap, &target);
        if (cap != was)
            metrics_set_capacity(&m, t, cap); /* no gauge in the doubles */
        if ((regime == 1 || regime == 5) && at >= w / 4 * 3 && !crashed) {
            ref_gauge(&r, t);
            r.busy = 0;
            metrics_set_busy(&m, t, 0);
            crashed = true;
        }
        unsigned what = (u >> 8) % 100;
        unsigned k = 1 + (u >> 18) % 1024;
        if (what < 40) {
            for (; k > 0 && r.busy < cap; k--) {
                ref_gauge(&r, t);
                metrics_busy_step(&m, t, +1, ++r.busy);
            }
        } else if (what < 70) {
            for (; k > 0 && r.busy > 0; k--) {
                ref_gauge(&r, t);
                metrics_busy_step(&m, t, -1, --r.busy);
            }
        } else if (r.queue < target) {
            for (; k > 0; k--) {
                ref_gauge(&r, t);
                metrics_queue_step(&m, t, +1, ++r.queue);
            }
        } else {
            for (; k > 0 && r.queue > 0; k--) {
                ref_gauge(&r, t);
                metrics_queue_step(&m, t, -1, --r.queue);
            }
        }
        ck_assert_uint_eq(m.busy, r.busy);
        ck_assert_uint_eq(m.queue, r.queue);
    }
    r.end = t + 1;
    metrics_finish(&m, t + 1, 0, gauge_closed, &r);
    /* Buckets 0, 1 and 9 open and close exact; 2, 5, 10 and 13 open
     * exact and leave it; the rest (and the run's last, partial bucket)
     * open past the bound. */
    ck_assert_uint_eq(r.closed, 17);
    ck_assert_uint_eq(r.closed_exact, 3);
    ck_assert_uint_eq(opened_exact, 7);
    metrics_fini(&m);
}
END_TEST

/* ---- Whole runs -------------------------------------------------------- */

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
    sim_observer o = {&seen, count_closed, NULL, false};
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
        ck_assert_int_eq(
            memcmp(&x->service_ns, &y->service_ns,
                   sizeof *x - offsetof(metrics_bucket, service_ns)),
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
 * the limit), 376 bytes each.  The engine's whole memory stays far under
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
    ck_assert_uint_eq(sizeof(metrics_bucket), 376);
    sim_stats st;
    sim_get_stats(t->sim, &st);
    ck_assert_uint_lt(st.bytes, 64u << 20);
    ck_assert_uint_eq(t->sum.offered, m->total.sum.offered);
    tu_sim_free(t);
}
END_TEST

/* ---- Attempt latency ------------------------------------------------------
 *
 * Constant times make every attempt's latency known by hand: an answered
 * attempt takes 5 ms to the server, 20 ms of service (workers unlimited:
 * no queue) and 5 ms back, 30 ms; one answered 503 by an `errors` fault
 * at the server's door takes the two network legs, 10 ms; one that goes
 * into the black hole times out at exactly the 1 s timeout.  The black
 * hole drops its attempts silently (in service at its start too), so no
 * attempt ends any other way.  Immediate retries (2 attempts) add more
 * failed attempts of the same kinds.
 */
static const char attempts_ini[] =
    "[scenario]\nname = attempts\nduration = 60s\nwarmup = 5s\n"
    "[clients]\ncount = 100\nrate = 1/s\ntimeout = 1s\n"
    "[server]\nworkers = unlimited\nservice = const(20ms)\n"
    "network_delay = const(5ms)\n"
    "[policy]\nname = immediate\nmax_attempts = 2\n"
    "[fault.busy]\ntype = errors\nstart = 10s\nduration = 10s\n"
    "status = 503\nprobability = 1\n"
    "[fault.hole]\ntype = outage\nstart = 30s\nduration = 10s\n"
    "mode = blackhole\n";

/* Within a histogram's precision: a bin's midpoint is within 1/2^(bits+1)
 * of every value in the bin. */
static void near(double got_ms, double want_ms, unsigned bits)
{
    ck_assert_double_eq_tol(got_ms, want_ms,
                            want_ms / (double)(2u << bits) + 1e-9);
}

/* The whole run: every attempt is one of the three kinds, counted apart
 * (errors, timeouts, and one answered attempt per success), so the mean
 * is their weighted mean exactly.  About 1/6 of the attempts are 503s and
 * over 1/6 time out (two attempts per request while the hole lasts), so
 * the median is an answered attempt and p99 and p99.9 are timeouts. */
START_TEST(attempt_latency_by_hand)
{
    tu_sim *t = tu_sim_run(attempts_ini, NULL, NULL, 0);
    const sim_summary *s = &t->sum;
    uint64_t k503 = s->errors, kto = s->timeouts, kok = s->successes;
    ck_assert_uint_gt(k503, 1000);
    ck_assert_uint_gt(kto, 1000);
    ck_assert_uint_eq(s->attempts_ended, k503 + kto + kok);
    double mean =
        ((double)k503 * 10.0 + (double)kto * 1000.0 + (double)kok * 30.0) /
        (double)s->attempts_ended;
    ck_assert_double_eq_tol(s->attempt_mean_ms, mean, 1e-9 * mean);
    near(s->attempt_p50_ms, 30.0, TOTAL_HIST_BITS);
    near(s->attempt_p99_ms, 1000.0, TOTAL_HIST_BITS);
    near(s->attempt_p999_ms, 1000.0, TOTAL_HIST_BITS);
    /* Successful requests took one 30 ms attempt each. */
    near(s->latency_p50_ms, 30.0, TOTAL_HIST_BITS);
    /* Per bucket: an attempt counts where it ends.  [15, 16) s holds
     * only 503s, [35, 36) s only timeouts (of attempts sent a second
     * earlier, inside the hole), [50, 51) s only answers. */
    const metrics *m = sim_metrics(t->sim);
    const struct {
        size_t bucket;
        double ms;
    } want[] = {{15, 10.0}, {35, 1000.0}, {50, 30.0}};
    for (size_t i = 0; i < 3; i++) {
        const metrics_bucket *b = &m->buckets[want[i].bucket];
        ck_assert_uint_gt(b->attempts_ended, 50);
        near(metrics_bin_ms(b->attempt_p50_bin), want[i].ms, BUCKET_HIST_BITS);
        near(metrics_bin_ms(b->attempt_p99_bin), want[i].ms, BUCKET_HIST_BITS);
    }
    tu_sim_free(t);
}
END_TEST

/* The same figures reach the JSON (a new object; latency_ms unchanged)
 * and the CSV (two columns appended after width_s), through the real
 * binary. */
START_TEST(attempt_latency_in_the_outputs)
{
    const char *ini = tu_write_temp("attempts.ini", attempts_ini);
    char ini_path[1024], csv[1024], json[1024];
    snprintf(ini_path, sizeof ini_path, "%s", ini);
    snprintf(csv, sizeof csv, "%s", tu_temp_path("attempts.csv"));
    snprintf(json, sizeof json, "%s", tu_temp_path("attempts.json"));
    tu_output o;
    ck_assert_int_eq(
        tu_stormbench(&o, (const char *[]){"run", ini_path, "--csv", csv,
                                           "--json", json, NULL}),
        0);
    ck_assert_ptr_nonnull(strstr(o.out, "latency (attempts)    mean "));
    tu_output_free(&o);
    char *j = tu_read_file(json), *c = tu_read_file(csv);
    near(tu_json_number(j, "attempt_latency_ms.p50"), 30.0, TOTAL_HIST_BITS);
    near(tu_json_number(j, "attempt_latency_ms.p99"), 1000.0, TOTAL_HIST_BITS);
    ck_assert_double_gt(tu_json_number(j, "attempt_latency_ms.mean"), 30.0);
    near(tu_json_number(j, "latency_ms.p50"), 30.0, TOTAL_HIST_BITS);
    const char *tail = ",width_s,attempt_p50_ms,attempt_p99_ms,queue_wait_ms,"
                       "other_errors,overflow_dropped\n";
    char *nl = strchr(c, '\n');
    ck_assert_int_eq(strncmp(nl + 1 - strlen(tail), tail, strlen(tail)), 0);
    /* Row 35 (t = 35 s): its attempt quantiles are timeouts' bin. */
    char *row = c;
    for (int i = 0; i <= 35; i++)
        row = strchr(row, '\n') + 1;
    char *end = strchr(row, '\n');
    *end = '\0';
    double p50, p99;
    for (int i = 0; i < 3; i++)    /* overflow_dropped, other_errors, */
        *strrchr(row, ',') = '\0'; /* queue_wait_ms */
    char *last = strrchr(row, ',');
    p99 = strtod(last + 1, NULL);
    *last = '\0';
    p50 = strtod(strrchr(row, ',') + 1, NULL);
    near(p50, 1000.0, BUCKET_HIST_BITS);
    near(p99, 1000.0, BUCKET_HIST_BITS);
    free(j);
    free(c);
}
END_TEST

/* Every count the metric table (metrics.h) gives the summary is saved in
 * a comparison's run files under its name, as the 64-bit count it is:
 * a counter added to the table with Y but not to runfile.c would be
 * lost by a resumed or merged comparison (its runs read back from
 * disk), so compare would test zeros. */
#define NAME_Y(f) #f,
#define NAME_N(f)
#define SUMMARY_NAME(f, reduce, in_summary, csv, json, label, compare)         \
    NAME_##in_summary(f)
static const char *const summary_counts[] = {
    METRICS_BUCKET_FIELDS(SUMMARY_NAME)};
#define SUMMARY_OFFSET_Y(f) offsetof(sim_summary, f),
#define SUMMARY_OFFSET_N(f)
#define SUMMARY_OFFSET(f, reduce, in_summary, csv, json, label, compare)       \
    SUMMARY_OFFSET_##in_summary(f)
static const size_t summary_offsets[] = {METRICS_BUCKET_FIELDS(SUMMARY_OFFSET)};

START_TEST(the_tables_counts_reach_the_run_files)
{
    size_t n = sizeof summary_counts / sizeof *summary_counts;
    ck_assert_uint_ge(n, 23); /* offered ... conflicts */
    for (size_t i = 0; i < n; i++) {
        const runfile_field *f = NULL;
        for (size_t j = 0; j < runfile_n_summary_fields; j++)
            if (strcmp(runfile_summary_fields[j].name, summary_counts[i]) == 0)
                f = &runfile_summary_fields[j];
        ck_assert_msg(f != NULL, "%s: not in runfile_summary_fields",
                      summary_counts[i]);
        ck_assert_uint_eq(f->offset, summary_offsets[i]);
        ck_assert_int_eq(f->type, RF_U64);
    }
}
END_TEST

/* Every key the metric table (metrics.h) gives has a reader, and names
 * one thing: each CSV key is exactly one column of the CSV's header (a
 * pipeline's included), each JSON key of a summary count is a key of the
 * run's JSON, and no two metrics share a CSV key or a JSON key.  An entry
 * an output forgot (a column list in export.c that skips it) or one that
 * two outputs' lists would show twice fails here. */
static int columns_named(const char *header, const char *key)
{
    int n = 0;
    size_t len = strlen(key);
    for (const char *c = header; c; c = strchr(c, ',')) {
        c += *c == ',';
        if (strncmp(c, key, len) == 0 && (c[len] == ',' || c[len] == '\n'))
            n++;
    }
    return n;
}

START_TEST(the_table_has_a_reader_for_every_key)
{
    for (int i = 0; i < MF_COUNT; i++)
        for (int j = i + 1; j < MF_COUNT; j++) {
            const metrics_field *a = &metrics_fields[i],
                                *b = &metrics_fields[j];
            ck_assert_msg(!a->csv[0] || strcmp(a->csv, b->csv) != 0,
                          "%s, %s: one CSV key", a->name, b->name);
            ck_assert_msg(!a->json[0] || strcmp(a->json, b->json) != 0,
                          "%s, %s: one JSON key", a->name, b->name);
        }
    metrics m;
    ck_assert_int_eq(metrics_init(&m, 1000000000, 2000000000, 16), 0);
    char *csv = NULL, *json = NULL;
    size_t n_csv = 0, n_json = 0;
    FILE *f = open_memstream(&csv, &n_csv);
    export_csv(f, &m, true);
    fclose(f);
    sim_summary s;
    memset(&s, 0, sizeof s);
    run_meta meta = {.scenario = "t", .file = "t.ini", .policy = "none"};
    f = open_memstream(&json, &n_json);
    export_json(f, &meta, &s, NULL, 0);
    fclose(f);
    int shown = 0;
    for (int i = 0; i < MF_COUNT; i++) {
        const metrics_field *x = &metrics_fields[i];
        if (x->csv[0]) {
            ck_assert_msg(columns_named(csv, x->csv) == 1,
                          "%s: CSV column %s not once in %s", x->name, x->csv,
                          csv);
            shown++;
        }
        char key[80];
        snprintf(key, sizeof key, "\"%s\":", x->json);
        ck_assert_msg(!x->json[0] || !x->in_summary || strstr(json, key),
                      "%s: JSON key %s missing", x->name, x->json);
        /* A comparison reads the summary: what it tests, the summary
         * carries. */
        ck_assert_msg(!x->compare || x->in_summary, "%s: compared without Y",
                      x->name);
        /* A JSON key is for a count the summary carries. */
        ck_assert_msg(!x->json[0] || x->in_summary, "%s: JSON without Y",
                      x->name);
    }
    /* 25 of the 38 columns a run always has are the table's counts (the
     * other 13 are derived: t_s, busy_workers, the quantiles...), and
     * the pipeline's 9: the header test above (attempt_latency_in_the_
     * outputs) and README's list of columns count the same. */
    ck_assert_int_eq(shown, 25 + 9);
    ck_assert_int_eq(columns_named(csv, "t_s"), 1);
    /* Every metric compare tests has one key, and the table's added
     * ones are the table's (its JSON key and direction). */
    int old_compared = 0, old_marked = 0;
    for (int i = 0; i < MF_FIRST_ADDED; i++)
        old_marked += metrics_fields[i].compare != 0;
    for (int c = 0; c < CM_COUNT; c++) {
        for (int k = c + 1; k < CM_COUNT; k++)
            ck_assert_str_ne(compare_metrics[c].key, compare_metrics[k].key);
        /* The compared metrics older than the table that are its counts
         * (duplicates, quarantined) say what the table says. */
        for (int i = 0; i < MF_FIRST_ADDED; i++)
            if (strcmp(metrics_fields[i].json, compare_metrics[c].key) == 0) {
                old_compared++;
                ck_assert_str_eq(compare_metrics[c].name,
                                 metrics_fields[i].label);
                ck_assert_int_eq(compare_metrics[c].better,
                                 metrics_fields[i].compare);
            }
        int id = compare_metric_field((compare_metric)c);
        ck_assert_int_eq(id >= 0, c >= CM_FIRST_ADDED);
        if (id >= 0) {
            ck_assert_str_eq(compare_metrics[c].key, metrics_fields[id].json);
            ck_assert_int_eq(compare_metrics[c].better,
                             metrics_fields[id].compare);
        }
    }
    ck_assert_int_eq(old_compared, old_marked); /* both: duplicates,
                                                   quarantined */
    ck_assert_int_eq(old_marked, 2);
    /* [expect] keys are unique, and each compared metric the table
     * added has its limit, KEY_max or KEY_min. */
    int limits = 0;
    for (int k = 0; k < EXPECT_KIND_COUNT; k++) {
        for (int j = k + 1; j < EXPECT_KIND_COUNT; j++)
            ck_assert_str_ne(expect_name((expect_kind)k),
                             expect_name((expect_kind)j));
        limits += k >= EXPECT_FIRST_ADDED;
    }
    int compared = 0;
    for (int i = MF_FIRST_ADDED; i < MF_COUNT; i++) {
        const metrics_field *x = &metrics_fields[i];
        if (!x->compare)
            continue;
        char name[80];
        snprintf(name, sizeof name, "%s%s", x->json,
                 x->compare < 0 ? "_max" : "_min");
        expect_kind k;
        ck_assert_msg(expect_parse_name(name, &k) == 0, "%s: no [expect] %s",
                      x->name, name);
        ck_assert_int_ge(k, EXPECT_FIRST_ADDED);
        compared++;
    }
    ck_assert_int_eq(limits, compared);
    free(csv);
    free(json);
    metrics_fini(&m);
}
END_TEST

/* Every derived figure of a row (metrics.h's METRICS_DERIVED) is a CSV
 * column, once, and every column of the CSV is a count of the table or a
 * derived figure: none is named by hand.  Its values on a row worked out
 * by hand; a comparison's metrics (compare.h's COMPARE_METRICS) each have
 * a key, a label, a unit and a direction, and their values on a summary
 * worked out by hand. */
START_TEST(every_derived_figure_has_a_reader)
{
    metrics m;
    ck_assert_int_eq(metrics_init(&m, 1000000000, 2000000000, 16), 0);
    char *csv = NULL;
    size_t n_csv = 0;
    FILE *f = open_memstream(&csv, &n_csv);
    export_csv(f, &m, true);
    fclose(f);
    metrics_fini(&m);
    int columns = 1, counts = 0;
    for (const char *p = csv; *p && *p != '\n'; p++)
        columns += *p == ',';
    for (int i = 0; i < MF_COUNT; i++)
        counts += metrics_fields[i].csv[0] != '\0';
    for (int d = 0; d < MD_COUNT; d++) {
        const metrics_derived_info *x = &metrics_derived_fields[d];
        ck_assert_msg(columns_named(csv, x->csv) == 1,
                      "%s: CSV column %s not once in %s", x->name, x->csv, csv);
        ck_assert_msg(x->label[0] && x->unit, "%s: no label", x->name);
    }
    ck_assert_int_eq(MD_COUNT, 13);
    ck_assert_int_eq(columns, counts + MD_COUNT);
    free(csv);

    /* A 2 s row: 25 attempts for 10 requests is 2.5x; 8 successes in 2 s
     * 4/s; 3 worker-seconds busy 1.5 workers; 20 ms waited by 4 attempts
     * 5 ms each; no level reported, a blank cell. */
    metrics_bucket b;
    memset(&b, 0, sizeof b);
    b.start_ns = 4000000000;
    b.width_ns = 2000000000;
    b.offered = 10;
    b.attempts = 25;
    b.successes = 8;
    b.busy_ns = 3e9;
    b.served = 4;
    b.queue_wait_ns = 20000000;
    b.policy_level = -1;
    ck_assert_double_eq(metrics_derived(&b, MD_t), 4.0);
    ck_assert_double_eq(metrics_derived(&b, MD_width), 2.0);
    ck_assert_double_eq(metrics_derived(&b, MD_amplification), 2.5);
    ck_assert_double_eq(metrics_derived(&b, MD_goodput), 4.0);
    ck_assert_double_eq(metrics_derived(&b, MD_busy_workers), 1.5);
    ck_assert_double_eq(metrics_derived(&b, MD_queue_wait), 5.0);
    ck_assert(isnan(metrics_derived(&b, MD_policy_level)));
    ck_assert(metrics_derived_fields[MD_policy_level].blank);

    for (int c = 0; c < CM_FIRST_ADDED; c++) {
        const compare_metric_info *x = &compare_metrics[c];
        ck_assert_msg(x->key[0] && x->name[0] && x->unit, "metric %d", c);
        ck_assert_msg(x->better == 1 || x->better == -1, "%s", x->key);
    }
    ck_assert_int_eq(CM_FIRST_ADDED, 14);
    /* 8 of 10 requests ended well: 80 %; no pipeline: its metrics NaN. */
    compare_run *r = calloc(1, sizeof *r);
    ck_assert_ptr_nonnull(r);
    r->sum.offered = 10;
    r->sum.success_ratio = 0.8;
    r->sum.wasted_work_share = 0.25;
    ck_assert_double_eq(compare_metric_of(r, CM_SUCCESS_RATIO), 80.0);
    ck_assert_double_eq(compare_metric_of(r, CM_WASTED_SHARE), 25.0);
    ck_assert(isnan(compare_metric_of(r, CM_P99_MS))); /* no success */
    ck_assert(isnan(compare_metric_of(r, CM_JOBS_COMPLETED)));
    free(r);
}
END_TEST

Suite *metrics_suite(void)
{
    Suite *s = suite_create("metrics");
    TCase *tc = tcase_create("bounded");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, merged_rows_have_the_quantiles_of_their_samples);
    tcase_add_test(tc, attempt_latency_cache_is_never_stale);
    tcase_add_test(tc, merged_run_equals_a_run_at_the_merged_width);
    tcase_add_test(tc, two_hours_at_one_ms_are_bounded);
    tcase_add_test(tc, gauges_have_the_doubles_bits);
    suite_add_tcase(s, tc);
    tc = tcase_create("attempt_latency");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, attempt_latency_by_hand);
    tcase_add_test(tc, attempt_latency_in_the_outputs);
    tcase_add_test(tc, the_tables_counts_reach_the_run_files);
    tcase_add_test(tc, the_table_has_a_reader_for_every_key);
    tcase_add_test(tc, every_derived_figure_has_a_reader);
    suite_add_tcase(s, tc);
    return s;
}
