/*
 * risk.c -- runs of a scenario as trajectories for reports/splitting.h,
 * each watched for a storm (see risk.h for the definition).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_setup.h"
#include "risk.h"
#include "sim.h"
#include "summary.h"

/* ---- The storm detector ------------------------------------------------- */

/* Fed every closed bucket of one trajectory.  The recovery test is
 * summary.c's: a window of recovery_window whose mean goodput is within
 * RECOVERY_BAND of the baseline.  Invariant: `filled` <= w, and `sum` is
 * the successes of the last `filled` buckets, held in ring[]. */
typedef struct detector {
    int64_t warmup_ns, window_ns, bucket_ns;
    uint32_t w;          /* recovery window, in buckets */
    uint32_t filled, pos;
    uint64_t sum;
    uint64_t *ring;      /* w counts, owned */
    uint64_t base_successes;
    int64_t base_ns;
    bool base_known;
    double base;         /* successes/s */
    int64_t last_good;   /* end of the last window that was within the
                            band; -1 for none */
    bool storm;
    int64_t storm_at;
} detector;

static int detector_init(detector *d, const sim_config *c,
                         int64_t window_ns)
{
    memset(d, 0, sizeof *d);
    d->warmup_ns = c->warmup_ns;
    d->window_ns = window_ns;
    d->bucket_ns = c->bucket_ns;
    int64_t w = (c->recovery_window_ns + c->bucket_ns - 1) / c->bucket_ns;
    d->w = w < 1 ? 1 : (uint32_t)w;
    d->ring = calloc(d->w, sizeof *d->ring);
    d->last_good = -1;
    return d->ring == NULL ? -1 : 0;
}

/* Is a fault running now (begun, not ended)? */
static bool trigger_on(const sim *s)
{
    uint32_t n;
    const fault_cfg *f = sim_faults(s, &n);
    int64_t now = sim_now(s);
    for (uint32_t i = 0; i < n; i++)
        if (sim_fault_active(s, (int)i) && f[i].start_ns <= now)
            return true;
    return false;
}

static void baseline_add(detector *d, const sim *s, const metrics_bucket *b)
{
    int64_t end = b->start_ns + b->width_ns;
    int64_t first = sim_first_fault_start(s);
    if (b->start_ns >= d->warmup_ns && (first < 0 || end <= first)) {
        d->base_successes += b->successes;
        d->base_ns += b->width_ns;
    }
    bool done = first >= 0 ? end >= first : d->base_ns >= d->window_ns;
    if (done && d->base_ns > 0) {
        d->base = (double)d->base_successes / ((double)d->base_ns / 1e9);
        d->base_known = true;
    }
}

static void on_bucket(void *ctx, const sim *s, const metrics_bucket *b,
                      const metrics_hist *h)
{
    (void)h;
    detector *d = ctx;
    if (d->storm)
        return;
    int64_t end = b->start_ns + b->width_ns;
    if (d->filled == d->w)
        d->sum -= d->ring[d->pos];
    else
        d->filled++;
    d->ring[d->pos] = b->successes;
    d->sum += b->successes;
    d->pos = (d->pos + 1) % d->w;
    if (!d->base_known)
        baseline_add(d, s, b);
    if (!d->base_known)
        return;
    if (trigger_on(s))
        return;
    /* Recovery is judged on windows that start once the trigger is gone,
     * as summary.c's first_recovered scans from the fault's end: a window
     * that still holds goodput from before the fault says nothing of
     * after it. */
    int64_t quiet = sim_last_fault_end(s);
    if (quiet < d->warmup_ns)
        quiet = d->warmup_ns;
    int64_t from = end - (int64_t)d->w * d->bucket_ns;
    if (d->filled == d->w && from >= quiet) {
        double width_s = (double)d->w * (double)d->bucket_ns / 1e9;
        double g = (double)d->sum / width_s;
        if (fabs(g - d->base) <= RECOVERY_BAND * d->base)
            d->last_good = end;
    }
    int64_t since = d->last_good > quiet ? d->last_good : quiet;
    if (end - since >= d->window_ns) {
        d->storm = true;
        d->storm_at = end;
    }
}

/* ---- Trajectories ----------------------------------------------------- */

typedef struct traj {
    sim_config cfg; /* the sim borrows it, and ps */
    policy_setup ps;
    sim *s;
    detector d;
    uint64_t trial;
} traj;

typedef struct model {
    const risk_setup *su;
    pthread_mutex_t lock;
    bool failed;
    sb_err err;
    bool found;
    uint64_t first_trial;
    int64_t first_at;
} model;

static void model_fail(model *m, const sb_err *e)
{
    pthread_mutex_lock(&m->lock);
    if (!m->failed) {
        m->failed = true;
        m->err = *e;
    }
    pthread_mutex_unlock(&m->lock);
}

static void traj_free(void *ctx, void *st)
{
    (void)ctx;
    traj *t = st;
    if (t == NULL)
        return;
    sim_destroy(t->s);
    policy_setup_free(&t->ps);
    free(t->d.ring);
    free(t);
}

static void *traj_start(void *ctx, uint64_t trial)
{
    model *m = ctx;
    const risk_setup *su = m->su;
    sb_err e;
    traj *t = calloc(1, sizeof *t);
    if (t == NULL) {
        err_set(&e, "out of memory");
        model_fail(m, &e);
        return NULL;
    }
    t->trial = trial;
    t->cfg = *su->cfg;
    t->cfg.seed = su->cfg->seed + trial;
    t->cfg.duration_ns = su->horizon_ns;
    if (detector_init(&t->d, &t->cfg, su->storm_window_ns) != 0) {
        err_set(&e, "out of memory");
        goto fail;
    }
    if (policy_setup_build(su->policy, su->plugins, su->n_plugins,
                           su->params, su->n_params, &t->ps, &e) != 0)
        goto fail;
    if (sim_create(&t->cfg, t->ps.stack, &t->s, &e) != 0)
        goto fail;
    sim_observer ob = {&t->d, on_bucket, NULL};
    if (sim_observe(t->s, &ob) != 0) {
        err_set(&e, "cannot watch the run");
        goto fail;
    }
    return t;
fail:
    model_fail(m, &e);
    traj_free(m, t);
    return NULL;
}

/* The importance of a run's state: the attempts in the server (queued
 * and in service).  A retry storm is a queue that does not drain: the
 * deeper it is, the more of what it serves is already abandoned. */
static double importance(const traj *t)
{
    sim_server_now now;
    sim_server_state(t->s, &now);
    return (double)now.queued + (double)now.busy;
}

static split_stop traj_advance(void *ctx, void *st, double up, double floor,
                               double *peak, double *work)
{
    model *m = ctx;
    traj *t = st;
    int64_t at = sim_now(t->s), end = t->cfg.duration_ns;
    double imp = importance(t);
    *peak = imp;
    for (;;) {
        if (t->d.storm)
            return SPLIT_HIT;
        if (imp >= up)
            return SPLIT_UP;
        if (imp < floor)
            return SPLIT_DOWN;
        if (at >= end)
            return SPLIT_END;
        int64_t next = (at / t->cfg.bucket_ns + 1) * t->cfg.bucket_ns;
        if (next > end)
            next = end;
        if (sim_run_until(t->s, next) != 0) {
            sb_err e;
            err_set(&e, "seed %llu: the run stopped at t=%.3f s: %s",
                    (unsigned long long)t->cfg.seed, (double)at / 1e9,
                    sim_error(t->s));
            model_fail(m, &e);
            return SPLIT_FAIL;
        }
        *work += (double)(next - at) / 1e9;
        at = next;
        imp = importance(t);
        if (imp > *peak)
            *peak = imp;
    }
}

static void traj_hit(void *ctx, uint64_t trial, const void *st)
{
    model *m = ctx;
    const traj *t = st;
    pthread_mutex_lock(&m->lock);
    if (!m->found || trial < m->first_trial) {
        m->found = true;
        m->first_trial = trial;
        m->first_at = t->d.storm_at;
    }
    pthread_mutex_unlock(&m->lock);
}

/* ---- The estimate ----------------------------------------------------- */

double risk_within(double rate_per_s, double span_s)
{
    return -expm1(-rate_per_s * span_s);
}

/* rate = -ln(1 - p) / exposure: P(no storm in the exposure) = 1 - p. */
static double rate_of(double p, double exposure_s)
{
    if (!(p > 0) || !(p < 1) || !(exposure_s > 0))
        return NAN;
    return -log1p(-p) / exposure_s;
}

static int check_setup(const risk_setup *su, sb_err *e)
{
    const sim_config *c = su->cfg;
    if (su->horizon_ns <= c->warmup_ns)
        return err_set(e, "--horizon %.0f s must be longer than the "
                          "scenario's warm-up (%.0f s)",
                       (double)su->horizon_ns / 1e9,
                       (double)c->warmup_ns / 1e9);
    if (su->storm_window_ns < c->recovery_window_ns)
        return err_set(e, "--storm-window %.0f s must be at least the "
                          "scenario's recovery_window (%.0f s): shorter, "
                          "no recovery could be seen in it",
                       (double)su->storm_window_ns / 1e9,
                       (double)c->recovery_window_ns / 1e9);
    return 0;
}

int risk_estimate(const risk_setup *su, const risk_opts *o, risk_result *r,
                  sb_err *e)
{
    memset(r, 0, sizeof *r);
    if (check_setup(su, e) != 0)
        return -1;
    model m = {su, PTHREAD_MUTEX_INITIALIZER, false, {{0}}, false, 0, 0};
    split_model sm = {&m,          traj_start,   NULL,    traj_free,
                      NULL,        traj_advance, traj_hit};
    /* The engine cannot copy a running simulation yet: splitting would
     * need it, so every estimate is plain Monte Carlo for now. */
    if (o->method == RISK_SPLITTING)
        snprintf(r->note, sizeof r->note,
                 "splitting needs a copy of a running simulation, which "
                 "this engine cannot make yet: plain Monte Carlo instead");
    split_opts so = {o->confidence,
                     o->target_rel_error,
                     100,
                     10,
                     o->max_runs,
                     o->max_sim_s,
                     0,
                     32, /* not from the threads: the stopping rule is
                            read between batches */
                     o->threads,
                     1000000};
    int rc = split_estimate_run(&sm, &r->plan, &so, &r->est, e);
    if (rc != 0 || m.failed) {
        if (m.failed)
            *e = m.err;
        return -1;
    }
    r->found = m.found;
    r->first_trial = m.first_trial;
    r->first_seed = su->cfg->seed + m.first_trial;
    r->first_storm_ns = m.first_at;
    r->exposure_s = (double)(su->horizon_ns - su->cfg->warmup_ns) / 1e9;
    /* A storm rate needs triggers that keep coming: noise (no fault) or
     * weather (a recurring fault).  Faults that strike once make P(storm)
     * a probability per run of that trigger, not per hour. */
    bool recurs = su->cfg->n_faults == 0;
    for (uint32_t i = 0; i < su->cfg->n_faults; i++)
        recurs |= su->cfg->faults[i].every.mean_ns > 0;
    r->one_shot = !recurs;
    r->rate_per_s = r->rate_lo_per_s = r->rate_hi_per_s = NAN;
    if (recurs) {
        r->rate_per_s = rate_of(r->est.p, r->exposure_s);
        r->rate_lo_per_s = rate_of(r->est.lo, r->exposure_s);
        r->rate_hi_per_s = rate_of(r->est.hi, r->exposure_s);
    }
    return 0;
}
