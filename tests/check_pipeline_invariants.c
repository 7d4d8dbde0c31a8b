/*
 * check_pipeline_invariants.c -- what must hold for every pipeline run
 * (sim/pipeline.h), checked over a few hundred small random scenarios.
 *
 * The scenarios are drawn by a fixed PRNG (splitmix64, seed below), so the
 * suite runs the same ones every time and a failure names the scenario
 * number and prints its INI text.  Each varies: the strategy,
 * checkpoints, reruns, rerun_delay, sla, warn_retry, dead_letter_growth;
 * 1 to 8 steps with transient / permanent / defect shares, batches with
 * item_defect, undo, independent, idempotent, a step timeout, a service,
 * a policy of the step's own; the run's policy (none, immediate, fixed,
 * exponential, plan); an outage and/or a crash of the runners at random
 * times; arrivals once / closed / open; 1 to a few hundred runners.
 *
 * The invariants are written as the contract implies them; each says why
 * it holds next to its assertion.
 */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "testutil.h"

#define N_SCENARIOS 1000
#define INI_MAX 8192

/* ---- Drawing scenarios --------------------------------------------------- */

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static unsigned pick(uint64_t *x, unsigned n)
{
    return (unsigned)(splitmix(x) % n);
}

static double unit(uint64_t *x)
{
    return (double)(splitmix(x) >> 11) * 0x1.0p-53;
}

static bool coin(uint64_t *x, double p)
{
    return unit(x) < p;
}

/* What a scenario drew, beyond its INI text, for the invariants. */
typedef struct drawn {
    unsigned n_steps;
    pipeline_strategy strategy;
    bool checkpoints;
    unsigned reruns;
    bool sla;
    bool crash;
    bool any_undo;
    bool any_batch;
    bool all_batches_idempotent;
    bool never_retries;     /* policy none everywhere: no retry is ever due */
    uint64_t items_per_job; /* the batch steps' items, summed */
    unsigned duration_s;
} drawn;

typedef struct buf {
    char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const char *fmt, ...) SB_PRINTF(2, 3);
static void put(buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    ck_assert_int_ge(k, 0);
    ck_assert_uint_lt(b->n + (size_t)k, b->cap);
    b->n += (size_t)k;
}

static const char *const policies[] = {"none", "immediate", "fixed",
                                       "exponential", "plan"};
static const char *const strategies[] = {"fail_fast", "continue", "compensate",
                                         "partial"};

/* A policy section's lines (or a step's keys) for policies[k]. */
static void policy_keys(buf *b, uint64_t *x, unsigned k)
{
    unsigned attempts = 1 + pick(x, 5);
    switch (k) {
    case 1:
        put(b, "max_attempts = %u\n", attempts);
        break;
    case 2:
        put(b, "delay = %ums\nmax_attempts = %u\n", 50 + pick(x, 3000),
            attempts);
        break;
    case 3:
        put(b, "base = %ums\nmax_attempts = %u\n", 50 + pick(x, 2000),
            attempts);
        break;
    case 4:
        put(b, "base = %ums\ncap = 20s\n", 100 + pick(x, 3000));
        break;
    default:
        break;
    }
}

static void draw_clients(buf *b, uint64_t *x)
{
    put(b, "[clients]\ntimeout = %ums\n", 300 + pick(x, 5000));
    switch (pick(x, 3)) {
    case 0:
        put(b, "arrival = once\ncount = %u\nstart_window = %us\n",
            1 + pick(x, 300), pick(x, 30));
        break;
    case 1:
        put(b, "arrival = closed\ncount = %u\nthink = %s(%ums)\n",
            1 + pick(x, 40), coin(x, 0.5) ? "const" : "exp",
            100 + pick(x, 3000));
        break;
    default:
        put(b, "arrival = open\ncount = %u\nrate = %g/s\n", 1 + pick(x, 20),
            0.02 + 0.3 * unit(x));
        break;
    }
}

static void draw_server(buf *b, uint64_t *x)
{
    put(b, "[server]\n");
    if (coin(x, 0.5))
        put(b, "workers = unlimited\n");
    else
        put(b, "workers = %u\n", 1 + pick(x, 32));
    put(b, "service = %s(%ums)\nnetwork_delay = const(%ums)\n",
        coin(x, 0.5) ? "const" : "exp", 20 + pick(x, 1000), pick(x, 20));
}

static void draw_step(buf *b, uint64_t *x, unsigned i, drawn *d)
{
    put(b, "[step.s%u]\n", i + 1);
    if (coin(x, 0.25)) {
        unsigned k = pick(x, 5);
        put(b, "policy = %s\n", policies[k]);
        policy_keys(b, x, k);
        if (k != 0)
            d->never_retries = false;
    }
    if (coin(x, 0.2))
        put(b, "timeout = %ums\n", 100 + pick(x, 3000));
    if (coin(x, 0.3))
        put(b, "service = const(%ums)\n", 10 + pick(x, 1500));
    if (coin(x, 0.4))
        put(b, "transient = %g\n", 0.5 * unit(x));
    if (coin(x, 0.3))
        put(b, "permanent = %g\n", 0.2 * unit(x));
    bool batch = coin(x, 0.3);
    if (batch) {
        unsigned items = 1 + pick(x, 200);
        put(b, "items = %u\n", items);
        if (coin(x, 0.7))
            put(b, "item_defect = %g\n", 0.05 * unit(x));
        d->any_batch = true;
        d->items_per_job += items;
    } else if (coin(x, 0.3)) {
        put(b, "defect = %g\n", 0.2 * unit(x));
    }
    bool idem = coin(x, 0.4);
    if (idem)
        put(b, "idempotent = true\n");
    if (batch && !idem)
        d->all_batches_idempotent = false;
    if (coin(x, 0.4))
        put(b, "independent = true\n");
    if (coin(x, 0.5)) {
        put(b, "undo = const(%ums)\n", 10 + pick(x, 1000));
        d->any_undo = true;
    }
}

static void draw_pipeline(buf *b, uint64_t *x, drawn *d)
{
    d->n_steps = 1 + pick(x, 8);
    d->strategy = (pipeline_strategy)pick(x, 4);
    d->checkpoints = coin(x, 0.5);
    d->reruns = pick(x, 4);
    d->sla = coin(x, 0.5);
    put(b, "[pipeline]\nsteps = ");
    for (unsigned i = 0; i < d->n_steps; i++)
        put(b, "%ss%u", i ? ", " : "", i + 1);
    put(b,
        "\non_failure = %s\ncheckpoints = %s\nreruns = %u\n"
        "rerun_delay = %ums\nwarn_retry = %u\ndead_letter_growth = %u\n",
        strategies[d->strategy], d->checkpoints ? "true" : "false", d->reruns,
        pick(x, 10000), 1 + pick(x, 4), 1 + pick(x, 4));
    if (d->sla)
        put(b, "sla = %us\n", 2 + pick(x, 60));
    for (unsigned i = 0; i < d->n_steps; i++)
        draw_step(b, x, i, d);
}

static void draw_faults(buf *b, uint64_t *x, unsigned duration_s, drawn *d)
{
    if (coin(x, 0.4))
        put(b,
            "[fault.down]\ntype = outage\nstart = %ums\n"
            "duration = %ums\nmode = %s\n",
            pick(x, duration_s * 1000), 200 + pick(x, 10000),
            coin(x, 0.5) ? "refuse" : "blackhole");
    d->crash = coin(x, 0.4);
    if (d->crash)
        put(b, "[fault.oom]\ntype = crash\nstart = %ums\nduration = %ums\n",
            pick(x, duration_s * 1000), 100 + pick(x, 8000));
}

/* Scenario number i: its INI text in b, what it drew in d. */
static void draw(unsigned i, buf *b, drawn *d)
{
    uint64_t x = 0x5eedULL * 1000003ULL + i;
    memset(d, 0, sizeof *d);
    d->all_batches_idempotent = true;
    unsigned duration_s = 10 + pick(&x, 80);
    d->duration_s = duration_s;
    put(b,
        "[scenario]\nname = inv%u\nseed = %u\nduration = %us\n"
        "warmup = 0s\nbucket = %us\n",
        i, 1 + pick(&x, 1000), duration_s, 1 + pick(&x, 5));
    draw_clients(b, &x);
    draw_server(b, &x);
    unsigned k = pick(&x, 5);
    d->never_retries = k == 0;
    put(b, "[policy]\nname = %s\n", policies[k]);
    policy_keys(b, &x, k);
    draw_pipeline(b, &x, d);
    draw_faults(b, &x, duration_s, d);
}

/* ---- The invariants ------------------------------------------------------ */

static uint64_t sum_steps(const sim_pipeline_summary *p, size_t off)
{
    uint64_t n = 0;
    for (unsigned k = 0; k < p->steps; k++)
        n += *(const uint64_t *)((const char *)&p->step[k] + off);
    return n;
}

#define STEPS(p, field) sum_steps(p, offsetof(sim_step_summary, field))

/* The bucket totals, summed from the series as a CSV would. */
typedef struct series_sum {
    uint64_t offered, attempts, quarantined, duplicates;
    uint64_t job_runs, jobs_completed, job_runs_failed;
    uint64_t items_committed, items_duplicated, items_quarantined;
    uint64_t alerts_log, alerts_warning, alerts_critical;
} series_sum;

static series_sum sum_series(const metrics *m)
{
    series_sum t;
    memset(&t, 0, sizeof t);
    for (size_t i = 0; i < m->n_buckets; i++) {
        const metrics_bucket *b = &m->buckets[i];
        t.offered += b->offered;
        t.attempts += b->attempts;
        t.quarantined += b->quarantined;
        t.duplicates += b->duplicates;
        t.job_runs += b->job_runs;
        t.jobs_completed += b->jobs_completed;
        t.job_runs_failed += b->job_runs_failed;
        t.items_committed += b->items_committed;
        t.items_duplicated += b->items_duplicated;
        t.items_quarantined += b->items_quarantined;
        t.alerts_log += b->alerts_log;
        t.alerts_warning += b->alerts_warning;
        t.alerts_critical += b->alerts_critical;
    }
    return t;
}

static void check_jobs(const sim_pipeline_summary *p, const drawn *d)
{
    /* Every job that started is counted once, when it ends, in one of
     * the five ends; the rest were still out at the end.  (unfinished is
     * the difference: a job ended twice would make it wrap.) */
    uint64_t ended = p->completed + p->partial + p->failed + p->compensated +
                     p->inconsistent;
    ck_assert_uint_le(ended, p->jobs);
    ck_assert_uint_eq(p->jobs, ended + p->unfinished);
    /* within_sla counts completed jobs only; without an SLA, all. */
    ck_assert_uint_le(p->within_sla, p->completed);
    if (!d->sla)
        ck_assert_uint_eq(p->within_sla, p->completed);
    /* The ends each strategy can reach: partial only under continue,
     * compensated / inconsistent only under compensate, which never ends
     * a job plain failed. */
    if (d->strategy != PIPELINE_CONTINUE)
        ck_assert_uint_eq(p->partial, 0);
    if (d->strategy != PIPELINE_COMPENSATE)
        ck_assert_uint_eq(p->compensated + p->inconsistent, 0);
    else
        ck_assert_uint_eq(p->failed, 0);
    /* A write an undo should take away stays only when an undo failed or
     * a crash stopped the undos from running. */
    if (!d->crash && STEPS(p, undo_failed) == 0)
        ck_assert_uint_eq(p->inconsistent, 0);
    /* Runs: each started job's first run, plus reruns; a job reruns at
     * most `reruns` times.  Without a crash every job starts at its
     * arrival, so the first runs are the jobs. */
    ck_assert_uint_le(p->reruns, p->runs);
    ck_assert_uint_le(p->reruns, p->jobs * d->reruns);
    ck_assert_uint_le(p->runs - p->reruns, p->jobs);
    if (!d->crash)
        ck_assert_uint_eq(p->runs - p->reruns, p->jobs);
}

static void check_steps(const sim_pipeline_summary *p, const drawn *d)
{
    ck_assert_uint_eq(p->steps, d->n_steps);
    for (unsigned k = 0; k < p->steps; k++) {
        const sim_step_summary *st = &p->step[k];
        /* A call ends once, succeeded or failed; calls still out at the
         * end are neither. */
        ck_assert_uint_le(st->succeeded + st->failed, st->calls);
        /* A success needs an attempt answered. */
        ck_assert_uint_le(st->succeeded, st->attempts);
        /* An undo undoes a success of this run, each at most once. */
        ck_assert_uint_le(st->undone + st->undo_failed, st->succeeded);
        if (d->strategy != PIPELINE_COMPENSATE)
            ck_assert_uint_eq(st->undone + st->undo_failed, 0);
        ck_assert_uint_le(st->redone, st->calls);
        /* With checkpoints a run only calls steps no run completed (a
         * failed undo leaves its step done): nothing is redone. */
        if (d->checkpoints)
            ck_assert_uint_eq(st->redone, 0);
        /* A run calls or skips each step at most once. */
        ck_assert_uint_le(st->calls + st->skipped, p->runs);
        /* fail_fast / partial without checkpoints: step k runs only
         * after step k - 1 succeeded in the same run. */
        if (k > 0 && !d->checkpoints &&
            (d->strategy == PIPELINE_FAIL_FAST ||
             d->strategy == PIPELINE_PARTIAL))
            ck_assert_uint_le(st->calls, p->step[k - 1].succeeded);
    }
    /* Without checkpoints every run starts at the first step, at once. */
    if (!d->checkpoints)
        ck_assert_uint_eq(p->step[0].calls, p->runs);
}

static void check_series(const tu_sim *t, const sim_pipeline_summary *p,
                         const drawn *d)
{
    series_sum u = sum_series(sim_metrics(t->sim));
    /* The series is where the summary's per-bucket figures come from:
     * their sums are the totals. */
    ck_assert_uint_eq(u.job_runs, p->runs);
    ck_assert_uint_eq(u.jobs_completed, p->completed);
    ck_assert_uint_eq(u.items_committed, p->items_committed);
    ck_assert_uint_eq(u.items_duplicated, p->items_duplicated);
    ck_assert_uint_eq(u.items_quarantined, p->items_quarantined);
    ck_assert_uint_eq(u.alerts_log, p->alerts_log);
    ck_assert_uint_eq(u.alerts_warning, p->alerts_warning);
    ck_assert_uint_eq(u.alerts_critical, p->alerts_critical);
    ck_assert_uint_eq(u.duplicates, t->sum.duplicates);
    /* A failed run is rerun (counted when the rerun starts), ends its
     * job not completed, or still waits at the end (its job
     * unfinished). */
    uint64_t not_completed =
        p->partial + p->failed + p->compensated + p->inconsistent;
    ck_assert_uint_le(p->reruns + not_completed, u.job_runs_failed);
    ck_assert_uint_le(u.job_runs_failed,
                      p->reruns + not_completed + p->unfinished);
    ck_assert_uint_le(u.job_runs_failed, p->runs);
    /* Steps' calls are the run's requests (undos too); their attempts
     * its attempts. */
    ck_assert_uint_le(STEPS(p, calls), u.offered);
    ck_assert_uint_le(STEPS(p, attempts), u.attempts);
    if (!d->any_undo || d->strategy != PIPELINE_COMPENSATE) {
        ck_assert_uint_eq(STEPS(p, calls), u.offered);
        ck_assert_uint_eq(STEPS(p, attempts), u.attempts);
    }
    /* Every attempt after a call's first is a retry: so attempts minus
     * retries is the calls that sent anything. */
    ck_assert_uint_le(p->retries, u.attempts);
    ck_assert_uint_le(u.attempts - p->retries, u.offered);
    ck_assert_uint_ge(p->retries, STEPS(p, attempts) - STEPS(p, calls));
    ck_assert_uint_le(p->late_retries, p->retries);
    if (!d->sla)
        ck_assert_uint_eq(p->late_retries, 0);
    if (d->never_retries)
        ck_assert_uint_eq(p->retries, 0);
    /* Each retry raises a log line or a warning; the only other warning
     * is the dead-letter queue's first holding (it never shrinks). */
    ck_assert_uint_eq(p->alerts_log + p->alerts_warning,
                      p->retries + (p->dead_letters > 0 ? 1u : 0u));
    /* The dead-letter queue: batch items set aside, plus step calls
     * quarantined (an undo quarantined is a failed undo, not a dead
     * letter). */
    ck_assert_uint_ge(p->dead_letters, p->items_quarantined);
    ck_assert_uint_le(p->dead_letters, p->items_quarantined + u.quarantined);
    if (!d->any_undo || d->strategy != PIPELINE_COMPENSATE)
        ck_assert_uint_eq(p->dead_letters,
                          p->items_quarantined + u.quarantined);
}

static void check_items(const sim_pipeline_summary *p, const drawn *d)
{
    /* Items are batch rows only. */
    if (!d->any_batch)
        ck_assert_uint_eq(
            p->items_committed + p->items_duplicated + p->items_quarantined, 0);
    /* A job's batch commits first at most once per run (an undo makes
     * the next commit a first one again); its bad items are set aside
     * once per job. */
    ck_assert_uint_le(p->items_committed + p->items_quarantined,
                      p->jobs * (d->reruns + 1) * d->items_per_job);
    ck_assert_uint_le(p->items_quarantined, p->jobs * d->items_per_job);
    /* Only partial takes a per-item answer as a success. */
    if (d->strategy != PIPELINE_PARTIAL)
        ck_assert_uint_eq(p->items_quarantined, 0);
    if (d->all_batches_idempotent)
        ck_assert_uint_eq(p->items_duplicated, 0);
}

/* A write is repeated only by a second served attempt of the same job's
 * step: a retry (or an attempt that timed out and was retried), or a
 * rerun.  With no retry and no rerun each of a job's steps is attempted
 * once, so nothing is written twice -- whatever crashes, outages and the
 * reuse of job records do. */
static void check_no_repeat(const tu_sim *t, const sim_pipeline_summary *p,
                            const drawn *d)
{
    if (!d->never_retries || d->reruns > 0)
        return;
    ck_assert_uint_eq(p->retries, 0);
    ck_assert_uint_eq(p->reruns, 0);
    ck_assert_uint_eq(p->items_duplicated, 0);
    ck_assert_uint_eq(t->sum.duplicates, 0);
}

static void check_time(const sim_pipeline_summary *p, const drawn *d)
{
    /* Times are sums of spans that each end after they start. */
    ck_assert(isfinite(p->working_s) && p->working_s >= -1e-6);
    ck_assert(isfinite(p->blocked_s) && p->blocked_s >= -1e-6);
    ck_assert(isfinite(p->failed_s) && p->failed_s >= -1e-6);
    /* A job has one call out at a time, within the run: its working and
     * blocked time together are at most the run's length. */
    ck_assert_double_le_tol(p->working_s + p->blocked_s,
                            (double)p->jobs * d->duration_s, 1e-6);
    /* No retry, no delay waited out. */
    if (d->never_retries)
        ck_assert_double_eq_tol(p->blocked_s, 0.0, 1e-9);
}

/* Two runs of one scenario: the same series, byte for byte, and the same
 * summary (its figures: the step names point into each run's config). */
static void check_same(const tu_sim *a, const tu_sim *b)
{
    const metrics *ma = sim_metrics(a->sim), *mb = sim_metrics(b->sim);
    ck_assert_uint_eq(ma->n_buckets, mb->n_buckets);
    ck_assert_mem_eq(ma->buckets, mb->buckets,
                     ma->n_buckets * sizeof *ma->buckets);
    sim_pipeline_summary pa = a->sum.pipeline, pb = b->sum.pipeline;
    for (unsigned k = 0; k < SIM_MAX_STEPS; k++)
        pa.step[k].name = pb.step[k].name = NULL;
    size_t from = offsetof(sim_pipeline_summary, jobs);
    ck_assert_mem_eq((const char *)&pa + from, (const char *)&pb + from,
                     sizeof pa - from);
    ck_assert_uint_eq(a->sum.duplicates, b->sum.duplicates);
    ck_assert_int_eq(sim_last_finish(a->sim), sim_last_finish(b->sim));
}

static void run_scenario(unsigned i, bool twice)
{
    char text[INI_MAX];
    buf b = {text, 0, sizeof text};
    drawn d;
    draw(i, &b, &d);
    tu_sim *t = tu_sim_run(text, NULL, NULL, 0);
    if (t->sim == NULL || !t->sum.has_pipeline)
        ck_abort_msg("scenario %u did not run:\n%s", i, text);
    const sim_pipeline_summary *p = &t->sum.pipeline;
    check_jobs(p, &d);
    check_steps(p, &d);
    check_series(t, p, &d);
    check_items(p, &d);
    check_no_repeat(t, p, &d);
    check_time(p, &d);
    if (twice) {
        tu_sim *u = tu_sim_run(text, NULL, NULL, 0);
        check_same(t, u);
        tu_sim_free(u);
    }
    tu_sim_free(t);
}

/* The generator reaches what the invariants are about: over every
 * fourth scenario, some jobs of each end, reruns, redone steps, undos,
 * quarantined items, late retries, crash-abandoned calls.  (A generator
 * that never got there would pass every invariant vacuously.) */
START_TEST(random_pipelines_reach_every_case)
{
    uint64_t completed = 0, partial = 0, failed = 0, compensated = 0,
             inconsistent = 0, unfinished = 0, reruns = 0, redone = 0,
             undone = 0, undo_failed = 0, quarantined = 0, duplicated = 0,
             late = 0, skipped = 0, dead = 0;
    for (unsigned i = 0; i < N_SCENARIOS; i += 4) {
        char text[INI_MAX];
        buf b = {text, 0, sizeof text};
        drawn d;
        draw(i, &b, &d);
        tu_sim *t = tu_sim_run(text, NULL, NULL, 0);
        const sim_pipeline_summary *p = &t->sum.pipeline;
        completed += p->completed;
        partial += p->partial;
        failed += p->failed;
        compensated += p->compensated;
        inconsistent += p->inconsistent;
        unfinished += p->unfinished;
        reruns += p->reruns;
        redone += STEPS(p, redone);
        undone += STEPS(p, undone);
        undo_failed += STEPS(p, undo_failed);
        skipped += STEPS(p, skipped);
        quarantined += p->items_quarantined;
        duplicated += p->items_duplicated;
        late += p->late_retries;
        dead += p->dead_letters;
        tu_sim_free(t);
    }
    ck_assert_uint_gt(completed, 0);
    ck_assert_uint_gt(partial, 0);
    ck_assert_uint_gt(failed, 0);
    ck_assert_uint_gt(compensated, 0);
    ck_assert_uint_gt(inconsistent, 0);
    ck_assert_uint_gt(unfinished, 0);
    ck_assert_uint_gt(reruns, 0);
    ck_assert_uint_gt(redone, 0);
    ck_assert_uint_gt(undone, 0);
    ck_assert_uint_gt(undo_failed, 0);
    ck_assert_uint_gt(skipped, 0);
    ck_assert_uint_gt(quarantined, 0);
    ck_assert_uint_gt(duplicated, 0);
    ck_assert_uint_gt(late, 0);
    ck_assert_uint_gt(dead, quarantined); /* quarantined calls too */
}
END_TEST

/* One loop iteration per scenario, so a failure names it (Check prints
 * the iteration: the scenario number; draw(i) gives its text again, and
 * SB_INV_PRINT=i prints it).  Every third runs twice, for determinism. */
START_TEST(random_pipelines_keep_their_invariants)
{
    const char *show = getenv("SB_INV_PRINT");
    if (show && strtoul(show, NULL, 10) == (unsigned long)_i) {
        char text[INI_MAX];
        buf b = {text, 0, sizeof text};
        drawn d;
        draw((unsigned)_i, &b, &d);
        fprintf(stderr, "---- scenario %d\n%s", _i, text);
    }
    run_scenario((unsigned)_i, _i % 3 == 0);
}
END_TEST

Suite *pipeline_invariants_suite(void)
{
    Suite *s = suite_create("pipeline_invariants");
    TCase *tc = tcase_create("random");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, random_pipelines_keep_their_invariants, 0,
                        N_SCENARIOS);
    tcase_add_test(tc, random_pipelines_reach_every_case);
    suite_add_tcase(s, tc);
    return s;
}
