/*
 * check_model_faults.c -- retries, duplicates, recovery and every fault
 * type, each against a number worked out by hand in the comment above it.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* Mean of a per-bucket quantity over buckets [from, to). */
static double bucket_mean(const tu_sim *t, size_t from, size_t to,
                          double (*get)(const metrics_bucket *, double w))
{
    const metrics *m = sim_metrics(t->sim);
    double sum = 0, w = (double)m->bucket_ns;
    for (size_t i = from; i < to; i++)
        sum += get(&m->buckets[i], w);
    return sum / (double)(to - from);
}

static double successes_of(const metrics_bucket *b, double w)
{
    return (double)b->successes / (w / 1e9);
}

static double offered_of(const metrics_bucket *b, double w)
{
    return (double)b->offered / (w / 1e9);
}

static double busy_of(const metrics_bucket *b, double w)
{
    return b->busy_ns / w;
}

static double p50_of(const metrics_bucket *b, double w)
{
    (void)w;
    return metrics_bin_ms(b->p50_bin);
}

/* ---- Retry arithmetic ----------------------------------------------------
 *
 * Every attempt fails with probability p, independently (the coin is per
 * attempt), and the policy makes at most k attempts.  Attempts per request
 * are 1 + p + ... + p^(k-1) = (1 - p^k)/(1 - p), and a request fails only
 * when all k fail: success ratio 1 - p^k.  For p = 0.3, k = 4: 1.417 and
 * 0.9919.  100 000 requests: the standard error of the mean attempts is
 * 0.73/sqrt(1e5) = 0.0023 (0.16 %), of the success ratio 0.0003.
 */
static const char errors_ini[] =
    "[scenario]\nname = errors\nduration = 1000s\nwarmup = 0s\n"
    "[clients]\ncount = 100\nrate = 1/s\ntimeout = 10s\n"
    "[server]\nworkers = unlimited\nservice = const(10ms)\n"
    "[policy]\nname = immediate\nmax_attempts = 4\n"
    "[fault.err]\ntype = errors\nstart = 0s\nduration = 1000s\n"
    "status = %s\nprobability = 0.3\n";

START_TEST(retry_amplification_formula)
{
    const char *statuses[] = {"503", "UNAVAILABLE", "reset"};
    double p = 0.3, k = 4;
    double amp = (1 - pow(p, k)) / (1 - p), ok = 1 - pow(p, k);
    for (int i = 0; i < 3; i++) {
        char ini[sizeof errors_ini + 32];
        snprintf(ini, sizeof ini, errors_ini, statuses[i]);
        tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
        ck_assert_double_eq_tol(t->sum.amplification, amp, 0.01 * amp);
        ck_assert_double_eq_tol(t->sum.success_ratio, ok, 0.002);
        /* Every failure is "gave up": the policy ran out of attempts. */
        ck_assert_uint_eq(t->sum.failures, t->sum.gave_up);
        /* Every attempt is a success or an injected error, but for the
         * few still in service when the run ends. */
        ck_assert_uint_le(t->sum.attempts - t->sum.successes - t->sum.errors,
                          5);
        tu_sim_free(t);
    }
}
END_TEST

/* ---- Duplicates ---------------------------------------------------------
 *
 * Every post commits when served; its answer is lost with probability q,
 * the client times out and retries.  Duplicate i happens iff the first i
 * answers were lost and attempt i+1 exists (i <= k-1), so duplicates per
 * post = q + q^2 + ... + q^(k-1): 0.4 + 0.16 + 0.064 = 0.624 for q = 0.4,
 * k = 4 (standard error 0.9/sqrt(1e5) = 0.45 %).  With idempotency keys and
 * a deduplicating server the retries find the key and commit nothing.
 */
static const char lost_ini[] =
    "[scenario]\nname = dups\nduration = 1000s\nwarmup = 0s\n"
    "[clients]\ncount = 100\nrate = 1/s\npost = 1\ntimeout = 1s\n"
    "idempotency_keys = %s\n"
    "[server]\nworkers = unlimited\nservice = const(10ms)\n"
    "idempotency = %s\n"
    "[policy]\nname = immediate\nmax_attempts = 4\n"
    "[fault.lost]\ntype = lost_ack\nstart = 0s\nduration = 1000s\n"
    "probability = 0.4\n";

static tu_sim *run_lost(const char *keys, const char *dedupe)
{
    char ini[sizeof lost_ini + 32];
    snprintf(ini, sizeof ini, lost_ini, keys, dedupe);
    return tu_sim_run(ini, NULL, NULL, 0);
}

START_TEST(lost_acks_duplicate_unkeyed_posts)
{
    double q = 0.4, expect = q + q * q + q * q * q;
    tu_sim *t = run_lost("false", "true");
    double per_post = (double)t->sum.duplicates / (double)t->sum.offered;
    ck_assert_double_eq_tol(per_post, expect, 0.02 * expect);
    /* Each lost answer is an attempt that times out 1 s later; those lost
     * in the last second (about 65) time out after the run ends. */
    ck_assert_uint_ge(t->sum.lost_acks, t->sum.timeouts);
    ck_assert_uint_le(t->sum.lost_acks - t->sum.timeouts, 100);
    tu_sim_free(t);
    /* Keys without a deduplicating server protect nothing. */
    t = run_lost("true", "false");
    per_post = (double)t->sum.duplicates / (double)t->sum.offered;
    ck_assert_double_eq_tol(per_post, expect, 0.02 * expect);
    tu_sim_free(t);
}
END_TEST

START_TEST(keys_and_dedupe_prevent_every_duplicate)
{
    tu_sim *t = run_lost("true", "true");
    ck_assert_uint_eq(t->sum.duplicates, 0);
    ck_assert_uint_gt(t->sum.lost_acks, 30000); /* the faults did happen */
    tu_sim_free(t);
}
END_TEST

/* Puts re-commit harmlessly: counted as repeats, never as duplicates. */
START_TEST(puts_repeat_but_do_not_duplicate)
{
    tu_sim *t = tu_sim_run(
        "[scenario]\nname = puts\nduration = 200s\nwarmup = 0s\n"
        "[clients]\ncount = 100\nrate = 1/s\nput = 1\ntimeout = 1s\n"
        "[server]\nworkers = unlimited\nservice = const(10ms)\n"
        "[policy]\nname = immediate\nmax_attempts = 4\n"
        "[fault.lost]\ntype = lost_ack\nstart = 0s\nduration = 200s\n"
        "probability = 0.4\n",
        NULL, NULL, 0);
    ck_assert_uint_eq(t->sum.duplicates, 0);
    double per_put = (double)t->sum.repeats / (double)t->sum.offered;
    ck_assert_double_eq_tol(per_put, 0.624, 0.05);
    tu_sim_free(t);
}
END_TEST

/* ---- Recovery -----------------------------------------------------------
 *
 * 400 clients x 0.5/s = 200 requests/s against 40 workers of 100 ms
 * (capacity 400/s, rho = 0.5); a 10 s black-hole outage from t = 60 s.
 * Without retries the requests lost in the outage just fail, and the first
 * bucket after it is already normal: recovery 0 s.  With one retry after
 * a 5 s timeout and a 5 s delay, every request sent in [60, 70) comes back
 * once, 10 s later, in [70, 80): goodput is about 2x baseline for 10 s.
 * Recovery needs a 10 s window whose mean goodput is within 10 % of
 * baseline, and the first such window starts near t = 80 (a window
 * starting at 79 still averages 1.1 x baseline): 10 s, +-1 s for noise.
 * The retried requests are 10 s x 200/s = 2 000 of 40 000: amplification
 * 1.05.  2 000 requests per window keep the noise near 2 %, far inside
 * the 10 % band.
 */
static const char recovery_ini[] =
    "[scenario]\nname = recovery\nduration = 200s\nwarmup = 10s\n"
    "recovery_window = 10s\n"
    "[clients]\ncount = 400\nrate = 0.5/s\ntimeout = 5s\n"
    "[server]\nworkers = 40\nservice = exp(100ms)\n"
    "[policy]\nname = fixed\ndelay = 5s\nmax_attempts = 2\n"
    "[fault.out]\ntype = outage\nstart = 60s\nduration = 10s\n"
    "mode = blackhole\n";

START_TEST(outage_without_retries_recovers_at_once)
{
    tu_sim *t = tu_sim_run(recovery_ini, "none", NULL, 0);
    ck_assert(t->sum.recovery_judged);
    ck_assert(t->sum.recovered);
    ck_assert_double_eq(t->sum.recovery_time_s, 0.0);
    ck_assert(!t->sum.metastable);
    ck_assert_double_eq_tol(t->sum.baseline_goodput_per_s, 200.0, 6.0);
    tu_sim_free(t);
}
END_TEST

START_TEST(retried_backlog_delays_recovery)
{
    tu_sim *t = tu_sim_run(recovery_ini, NULL, NULL, 0);
    ck_assert(t->sum.recovered);
    ck_assert_msg(t->sum.recovery_time_s >= 9 && t->sum.recovery_time_s <= 11,
                  "recovery %.0f s", t->sum.recovery_time_s);
    ck_assert_double_eq_tol(t->sum.amplification, 1.05, 0.005);
    /* The surge: goodput in [71, 79) near twice the baseline. */
    double surge = bucket_mean(t, 71, 79, successes_of);
    ck_assert_double_eq_tol(surge, 400.0, 30.0);
    tu_sim_free(t);
}
END_TEST

/* The storm: at rho = 0.8 with immediate retries (3 attempts, 1 s timeout)
 * the retries that follow a 20 s black-hole outage push the queue past the
 * timeout; from then on every served attempt is already abandoned, clients
 * send 3 attempts per request (3 x 80/s = 240/s against 100/s of
 * capacity) and the queue never drains.  Goodput stays near 0: metastable.
 * By hand: amplification is 1 for the first 60 s and 3 afterwards (every
 * attempt times out), (60 x 1 + 180 x 3) / 240 = 2.5.  Service time is
 * useful only before the outage, 60 s x 80/s x 0.1 s = 480 worker-seconds,
 * and wasted from t = 80 s on, 160 s x 10 workers = 1600: a wasted share
 * of 1600 / 2080 = 0.77. */
START_TEST(naive_retries_never_recover)
{
    tu_sim *t =
        tu_sim_run("[scenario]\nname = storm\nduration = 240s\nwarmup = 10s\n"
                   "[clients]\ncount = 200\nrate = 0.4/s\ntimeout = 1s\n"
                   "[server]\nworkers = 10\nservice = exp(100ms)\n"
                   "[policy]\nname = immediate\nmax_attempts = 3\n"
                   "[fault.out]\ntype = outage\nstart = 60s\nduration = 20s\n"
                   "mode = blackhole\n",
                   NULL, NULL, 0);
    ck_assert(t->sum.recovery_judged);
    ck_assert(t->sum.metastable);
    ck_assert_double_eq_tol(t->sum.final_goodput_ratio, 0.0, 0.05);
    ck_assert_double_eq_tol(bucket_mean(t, 200, 240, busy_of), 10.0, 0.01);
    ck_assert_double_eq_tol(t->sum.amplification, 2.5, 0.1);
    ck_assert_double_eq_tol(t->sum.wasted_work_share, 0.77, 0.05);
    tu_sim_free(t);
    /* Same load, no retries: recovers at once. */
    t = tu_sim_run("[scenario]\nname = storm\nduration = 240s\nwarmup = 10s\n"
                   "[clients]\ncount = 200\nrate = 0.4/s\ntimeout = 1s\n"
                   "[server]\nworkers = 10\nservice = exp(100ms)\n"
                   "[policy]\nname = none\n"
                   "[fault.out]\ntype = outage\nstart = 60s\nduration = 20s\n"
                   "mode = blackhole\n",
                   NULL, NULL, 0);
    ck_assert(t->sum.recovered);
    ck_assert_double_eq(t->sum.recovery_time_s, 0.0);
    tu_sim_free(t);
}
END_TEST

/* ---- The server's own limits --------------------------------------------- */

/* Overload degradation: 10 workers, knee 5, degradation 0.1, const 100 ms
 * service, offered 100/s (more than 10/0.1 = 100/s of nominal capacity
 * can take once service slows).  With all 10 busy every service takes
 * 0.1 x (1 + 0.1 x (10 - 5)) = 0.15 s, so throughput is 10/0.15 = 66.7/s:
 * goodput falls past the knee. */
START_TEST(degradation_lowers_saturated_throughput)
{
    tu_sim *t =
        tu_sim_run("[scenario]\nname = thrash\nduration = 100s\nwarmup = 0s\n"
                   "[clients]\ncount = 100\nrate = 1/s\ntimeout = 1h\n"
                   "[server]\nworkers = 10\nservice = const(100ms)\n"
                   "degradation = 0.1\ndegradation_knee = 5\n"
                   "[policy]\nname = none\n",
                   NULL, NULL, 0);
    double x = bucket_mean(t, 20, 100, successes_of);
    ck_assert_double_eq_tol(x, 10.0 / 0.15, 0.5);
    tu_sim_free(t);
}
END_TEST

/* A bounded queue: 1 worker of 100 ms, queue of 5, 50 requests/s offered.
 * Capacity 10/s, so about 40/s are turned away: with overflow = reject
 * they are answered 503 at once (no timeouts), each counted once as
 * rejected; with drop they vanish and each one ends once, by its timeout
 * at the client -- never also as rejected. */
static const char overflow_ini[] =
    "[scenario]\nname = overflow\nduration = 100s\nwarmup = 0s\n"
    "[clients]\ncount = 50\nrate = 1/s\ntimeout = 2s\n"
    "[server]\nworkers = 1\nservice = const(100ms)\nqueue_limit = 5\n"
    "overflow = %s\n[policy]\nname = none\n";

START_TEST(queue_overflow_rejects_or_drops)
{
    char ini[sizeof overflow_ini + 16];
    snprintf(ini, sizeof ini, overflow_ini, "reject");
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    ck_assert_uint_eq(t->sum.max_queue, 5);
    ck_assert_uint_eq(t->sum.timeouts, 0); /* max wait 0.6 s < 2 s */
    ck_assert_double_eq_tol((double)t->sum.successes / 100.0, 10.0, 0.2);
    ck_assert_uint_eq(t->sum.rejections, t->sum.failures);
    tu_sim_free(t);
    snprintf(ini, sizeof ini, overflow_ini, "drop");
    t = tu_sim_run(ini, NULL, NULL, 0);
    ck_assert_uint_gt(t->sum.overflowed, 3500);
    ck_assert_uint_eq(t->sum.rejections, 0);
    /* Every dropped attempt is learned of by its timeout, and only those
     * time out (the longest wait, 0.6 s, is under the 2 s timeout); the
     * last 2 s of drops, about 40/s x 2 s = 80, have not timed out yet
     * when the run ends. */
    ck_assert_uint_le(t->sum.timeouts, t->sum.overflowed);
    ck_assert_uint_le(t->sum.overflowed - t->sum.timeouts, 100);
    ck_assert_uint_eq(t->sum.failures, t->sum.timeouts);
    tu_sim_free(t);
}
END_TEST

/* A token-bucket rate limit of 50/s (burst 10) in front of an idle server
 * passes 50 requests/s and answers the rest 429. */
START_TEST(rate_limit_caps_throughput)
{
    tu_sim *t = tu_sim_run(
        "[scenario]\nname = rl\nduration = 100s\nwarmup = 0s\n"
        "[clients]\ncount = 100\nrate = 1/s\ntimeout = 1s\n"
        "[server]\nworkers = unlimited\nservice = const(1ms)\n"
        "rate_limit = 50/s\nrate_limit_burst = 10\n[policy]\nname = none\n",
        NULL, NULL, 0);
    ck_assert_double_eq_tol((double)t->sum.successes / 100.0, 50.0, 0.5);
    ck_assert_uint_eq(t->sum.rejections, t->sum.failures);
    tu_sim_free(t);
}
END_TEST

/* ---- Each fault type does what it says, and only while it lasts --------- */

/* load_spike x3 during [30, 60): offered rate 100/s becomes 300/s. */
START_TEST(load_spike_multiplies_arrivals)
{
    tu_sim *t = tu_sim_run(
        "[scenario]\nname = spike\nduration = 90s\nwarmup = 0s\n"
        "[clients]\ncount = 1000\nrate = 0.1/s\ntimeout = 1s\n"
        "[server]\nworkers = unlimited\nservice = const(1ms)\n"
        "[policy]\nname = none\n"
        "[fault.spike]\ntype = load_spike\nstart = 30s\nduration = 30s\n"
        "multiplier = 3\n",
        NULL, NULL, 0);
    /* 3000 requests per 30 s window: 1.8 % noise. */
    ck_assert_double_eq_tol(bucket_mean(t, 0, 30, offered_of), 100, 6);
    ck_assert_double_eq_tol(bucket_mean(t, 30, 60, offered_of), 300, 12);
    ck_assert_double_eq_tol(bucket_mean(t, 60, 90, offered_of), 100, 6);
    tu_sim_free(t);
}
END_TEST

/* capacity: 10 workers drop to 4 during [30, 60) under 80/s of 100 ms
 * work, so the server is saturated at exactly 4 busy workers there. */
START_TEST(capacity_fault_removes_workers)
{
    tu_sim *t =
        tu_sim_run("[scenario]\nname = cap\nduration = 90s\nwarmup = 0s\n"
                   "[clients]\ncount = 80\nrate = 1/s\ntimeout = 1s\n"
                   "[server]\nworkers = 10\nservice = exp(100ms)\n"
                   "[policy]\nname = none\n"
                   "[fault.cap]\ntype = capacity\nstart = 30s\nduration = 30s\n"
                   "workers = 4\n",
                   NULL, NULL, 0);
    ck_assert_double_eq_tol(bucket_mean(t, 32, 60, busy_of), 4.0, 0.02);
    ck_assert_uint_eq(sim_metrics(t->sim)->buckets[45].capacity, 4);
    ck_assert_uint_eq(sim_metrics(t->sim)->buckets[75].capacity, 10);
    ck_assert_double_eq_tol(bucket_mean(t, 5, 30, busy_of), 8.0, 0.4);
    tu_sim_free(t);
}
END_TEST

/* latency +200 ms and slowdown x4 on a const 10 ms service with no
 * queueing: median latency 10 ms outside, 210 ms and 40 ms inside. */
START_TEST(latency_and_slowdown_faults)
{
    tu_sim *t = tu_sim_run(
        "[scenario]\nname = slow\nduration = 90s\nwarmup = 0s\n"
        "[clients]\ncount = 10\nrate = 1/s\ntimeout = 1s\n"
        "[server]\nworkers = unlimited\nservice = const(10ms)\n"
        "[policy]\nname = none\n"
        "[fault.lat]\ntype = latency\nstart = 20s\nduration = 20s\n"
        "delay = 200ms\n"
        "[fault.slow]\ntype = slowdown\nstart = 50s\nduration = 20s\n"
        "multiplier = 4\n",
        NULL, NULL, 0);
    /* Per-bucket quantiles are bin midpoints, within 3.2 %. */
    ck_assert_double_eq_tol(bucket_mean(t, 5, 19, p50_of), 10.0, 0.33);
    ck_assert_double_eq_tol(bucket_mean(t, 21, 40, p50_of), 210.0, 7.0);
    ck_assert_double_eq_tol(bucket_mean(t, 51, 70, p50_of), 40.0, 1.3);
    tu_sim_free(t);
}
END_TEST

/* partition of 25 % of 4000 clients (black hole) for the whole run: the
 * cut-off clients' requests all time out, so the success ratio is the
 * share of clients not cut off, 0.75 (binomial noise 0.7 %). */
START_TEST(partition_cuts_a_fraction_of_clients)
{
    tu_sim *t =
        tu_sim_run("[scenario]\nname = part\nduration = 50s\nwarmup = 0s\n"
                   "[clients]\ncount = 4000\nrate = 0.1/s\ntimeout = 1s\n"
                   "[server]\nworkers = unlimited\nservice = const(1ms)\n"
                   "[policy]\nname = none\n"
                   "[fault.cut]\ntype = partition\nstart = 0s\nduration = 50s\n"
                   "fraction = 0.25\n",
                   NULL, NULL, 0);
    ck_assert_double_eq_tol(t->sum.success_ratio, 0.75, 0.025);
    ck_assert_uint_eq(t->sum.failures, t->sum.timeouts);
    tu_sim_free(t);
}
END_TEST

/* An outage that refuses connections answers every attempt at once (no
 * timeouts); a black-hole outage answers none (all time out). */
START_TEST(outage_refuse_versus_blackhole)
{
    const char *ini =
        "[scenario]\nname = out\nduration = 60s\nwarmup = 0s\n"
        "[clients]\ncount = 100\nrate = 1/s\ntimeout = 1s\n"
        "[server]\nworkers = unlimited\nservice = const(1ms)\n"
        "network_delay = const(2ms)\n[policy]\nname = none\n"
        "[fault.out]\ntype = outage\nstart = 20s\nduration = 20s\n"
        "mode = %s\n";
    char buf[512];
    snprintf(buf, sizeof buf, ini, "refuse");
    tu_sim *t = tu_sim_run(buf, NULL, NULL, 0);
    ck_assert_uint_eq(t->sum.timeouts, 0);
    ck_assert_double_eq_tol((double)t->sum.rejections, 2000.0, 150.0);
    /* Every failure is a refusal, but for the attempts in service when
     * the server went down (reset: about 0.1 expected at 100/s x 1 ms). */
    ck_assert_uint_le(t->sum.failures - t->sum.rejections, 3);
    tu_sim_free(t);
    snprintf(buf, sizeof buf, ini, "blackhole");
    t = tu_sim_run(buf, NULL, NULL, 0);
    ck_assert_uint_eq(t->sum.failures, t->sum.timeouts);
    ck_assert_double_eq_tol((double)t->sum.timeouts, 2000.0, 150.0);
    tu_sim_free(t);
}
END_TEST

/* drop_expired: a queued attempt whose caller has timed out is skipped
 * instead of served.  Same overload with and without it: with it, some
 * attempts are dropped as expired and less service time is wasted. */
START_TEST(drop_expired_skips_abandoned_work)
{
    const char *ini =
        "[scenario]\nname = exp\nduration = 60s\nwarmup = 0s\n"
        "[clients]\ncount = 150\nrate = 1/s\ntimeout = 500ms\n"
        "[server]\nworkers = 10\nservice = exp(100ms)\ndrop_expired = %s\n"
        "[policy]\nname = none\n";
    char buf[512];
    snprintf(buf, sizeof buf, ini, "false");
    tu_sim *off = tu_sim_run(buf, NULL, NULL, 0);
    snprintf(buf, sizeof buf, ini, "true");
    tu_sim *on = tu_sim_run(buf, NULL, NULL, 0);
    ck_assert_uint_eq(off->sum.expired, 0);
    ck_assert_uint_gt(on->sum.expired, 1000);
    ck_assert_double_lt(on->sum.wasted_work_share, off->sum.wasted_work_share);
    ck_assert_uint_gt(on->sum.successes, off->sum.successes);
    tu_sim_free(off);
    tu_sim_free(on);
}
END_TEST

/* ---- Determinism and common random numbers ------------------------------- */

START_TEST(same_seed_same_metrics)
{
    tu_sim *a = tu_sim_run(recovery_ini, NULL, NULL, 0);
    tu_sim *b = tu_sim_run(recovery_ini, NULL, NULL, 0);
    const metrics *ma = sim_metrics(a->sim), *mb = sim_metrics(b->sim);
    ck_assert_uint_eq(ma->n_buckets, mb->n_buckets);
    ck_assert_int_eq(
        memcmp(ma->buckets, mb->buckets, ma->n_buckets * sizeof *ma->buckets),
        0);
    tu_sim_free(a);
    tu_sim_free(b);
}
END_TEST

/* Swapping the policy must not change which requests arrive when: the
 * offered count of every bucket is identical under none, immediate and
 * exponential, although their attempts differ wildly. */
START_TEST(policies_see_the_same_arrivals)
{
    const char *policies[] = {"none", "immediate", "exponential"};
    tu_sim *t[3];
    for (int i = 0; i < 3; i++)
        t[i] = tu_sim_run(recovery_ini, policies[i], NULL, 0);
    const metrics *m0 = sim_metrics(t[0]->sim);
    for (int i = 1; i < 3; i++) {
        const metrics *m = sim_metrics(t[i]->sim);
        for (size_t b = 0; b < m0->n_buckets; b++)
            ck_assert_uint_eq(m->buckets[b].offered, m0->buckets[b].offered);
    }
    ck_assert_uint_ne(t[0]->sum.attempts, t[1]->sum.attempts);
    for (int i = 0; i < 3; i++)
        tu_sim_free(t[i]);
}
END_TEST

Suite *model_faults_suite(void)
{
    Suite *s = suite_create("model_faults");
    TCase *tc = tcase_create("retries");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, retry_amplification_formula);
    tcase_add_test(tc, lost_acks_duplicate_unkeyed_posts);
    tcase_add_test(tc, keys_and_dedupe_prevent_every_duplicate);
    tcase_add_test(tc, puts_repeat_but_do_not_duplicate);
    suite_add_tcase(s, tc);
    tc = tcase_create("recovery");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, outage_without_retries_recovers_at_once);
    tcase_add_test(tc, retried_backlog_delays_recovery);
    tcase_add_test(tc, naive_retries_never_recover);
    suite_add_tcase(s, tc);
    tc = tcase_create("server_and_faults");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, degradation_lowers_saturated_throughput);
    tcase_add_test(tc, queue_overflow_rejects_or_drops);
    tcase_add_test(tc, rate_limit_caps_throughput);
    tcase_add_test(tc, load_spike_multiplies_arrivals);
    tcase_add_test(tc, capacity_fault_removes_workers);
    tcase_add_test(tc, latency_and_slowdown_faults);
    tcase_add_test(tc, partition_cuts_a_fraction_of_clients);
    tcase_add_test(tc, outage_refuse_versus_blackhole);
    tcase_add_test(tc, drop_expired_skips_abandoned_work);
    suite_add_tcase(s, tc);
    tc = tcase_create("determinism");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, same_seed_same_metrics);
    tcase_add_test(tc, policies_see_the_same_arrivals);
    suite_add_tcase(s, tc);
    return s;
}
