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

/* What the detector keeps of one bucket: goodput for the storm test, the
 * rest for the importance functions over the same window. */
typedef struct window_counts {
    uint64_t successes, offered, attempts, timeouts, ended;
} window_counts;

static void counts_add(window_counts *a, const window_counts *b)
{
    a->successes += b->successes;
    a->offered += b->offered;
    a->attempts += b->attempts;
    a->timeouts += b->timeouts;
    a->ended += b->ended;
}

/* b was added to a before */
static void counts_sub(window_counts *a, const window_counts *b)
{
    a->successes -= b->successes;
    a->offered -= b->offered;
    a->attempts -= b->attempts;
    a->timeouts -= b->timeouts;
    a->ended -= b->ended;
}

/* Fed every closed bucket of one trajectory.  The recovery test is
 * summary.c's: a window of recovery_window whose mean goodput is within
 * RECOVERY_BAND of the baseline.  Invariant: `filled` <= w, and `sum` is
 * the counts of the last `filled` buckets, held in ring[]. */
typedef struct detector {
    int64_t warmup_ns, window_ns, bucket_ns;
    uint32_t w; /* recovery window, in buckets */
    uint32_t filled, pos;
    window_counts sum;
    window_counts *ring; /* w of them, owned */
    uint64_t base_successes;
    int64_t base_ns;
    bool base_known;
    int64_t base_at; /* end of the bucket that made it known */
    double base;     /* successes/s */
    /* No fault in the scenario: only goodput below the band is off (a
     * storm is goodput lost; noise above the baseline is not one). */
    bool below_only;
    uint32_t storm_queue; /* risk_setup's: a queue storm when > 0 */
    int64_t last_good;    /* end of the last window that was within the
                            band; -1 for none */
    bool storm;
    int64_t storm_at;
} detector;

static int detector_init(detector *d, const sim_config *c, int64_t window_ns,
                         uint32_t storm_queue)
{
    memset(d, 0, sizeof *d);
    d->warmup_ns = c->warmup_ns;
    d->window_ns = window_ns;
    d->bucket_ns = c->bucket_ns;
    int64_t w = (c->recovery_window_ns + c->bucket_ns - 1) / c->bucket_ns;
    d->w = w < 1 ? 1 : (uint32_t)w;
    d->ring = calloc(d->w, sizeof *d->ring);
    d->last_good = -1;
    d->below_only = c->n_faults == 0;
    d->storm_queue = storm_queue;
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
        d->base_at = end;
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
        counts_sub(&d->sum, &d->ring[d->pos]);
    else
        d->filled++;
    d->ring[d->pos] = (window_counts){b->successes, b->offered, b->attempts,
                                      b->timeouts, b->attempts_ended};
    counts_add(&d->sum, &d->ring[d->pos]);
    d->pos = (d->pos + 1) % d->w;
    /* A queue storm: the bucket's max queue, the most attempts waiting at
     * any moment in it (metrics.h), so a queue that reached N and drained
     * within one bucket is seen. */
    if (d->storm_queue > 0) {
        if (b->start_ns >= d->warmup_ns && b->max_queue >= d->storm_queue) {
            d->storm = true;
            d->storm_at = end;
        }
        return;
    }
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
        double g = (double)d->sum.successes / width_s;
        double off = d->below_only ? d->base - g : fabs(g - d->base);
        if (off <= RECOVERY_BAND * d->base)
            d->last_good = end;
    }
    /* Without faults, time without recovery counts from when it could
     * first be judged: the end of the baseline's own window, whose
     * recovery windows were never judged (the baseline was not known) --
     * counting it made a run a storm at warm-up + storm window when only
     * the window then ending was off.  (With faults the baseline is known
     * at the first fault, before the trigger is gone.) */
    if (d->below_only && quiet < d->base_at)
        quiet = d->base_at;
    int64_t since = d->last_good > quiet ? d->last_good : quiet;
    if (end - since >= d->window_ns) {
        d->storm = true;
        d->storm_at = end;
    }
}

/* ---- Trajectories ----------------------------------------------------- */

/* A trial's configuration, shared by its trajectory and every copy of it
 * (a copy's sim borrows its original's: sim_clone), freed with the last
 * (refs, under the model's lock: copies of one trial may live on
 * different threads). */
typedef struct trial_cfg {
    sim_config cfg;
    int refs;
} trial_cfg;

typedef struct traj {
    trial_cfg *tc;         /* the sim borrows tc->cfg, and its stack */
    const sim_config *cfg; /* &tc->cfg */
    policy_setup ps;       /* a main trial's stack */
    pstack *own;           /* a copy's: pstack_clone of its original's */
    sim *s;
    detector d;
    uint64_t trial;
    sim_branch path; /* the re-keyings that made it; overflow: too many
                        to save */
    bool overflow;
} traj;

typedef struct model {
    const risk_setup *su;
    risk_importance imp;
    atomic_int *stop; /* risk_opts' */
    pthread_mutex_t lock;
    bool failed;
    sb_err err;
    bool found;
    uint64_t first_trial;
    int64_t first_at;
    sim_branch first_path;
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
    model *m = ctx;
    traj *t = st;
    if (t == NULL)
        return;
    sim_destroy(t->s);
    policy_setup_free(&t->ps);
    pstack_destroy(t->own);
    free(t->d.ring);
    if (t->tc) {
        pthread_mutex_lock(&m->lock);
        bool last = --t->tc->refs == 0;
        pthread_mutex_unlock(&m->lock);
        if (last)
            free(t->tc);
    }
    free(t);
}

/* The storm detector watches a trajectory's buckets (a copy's too: the
 * engine does not copy observers). */
static int watch(traj *t, sb_err *e)
{
    sim_observer ob = {&t->d, on_bucket, NULL, false};
    if (sim_observe(t->s, &ob) != 0)
        return err_set(e, "cannot watch the run");
    return 0;
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
    t->tc = malloc(sizeof *t->tc);
    if (t->tc == NULL) {
        err_set(&e, "out of memory");
        goto fail;
    }
    t->tc->refs = 1;
    t->tc->cfg = *su->cfg;
    t->tc->cfg.seed = su->cfg->seed + trial;
    t->tc->cfg.duration_ns = su->horizon_ns;
    t->tc->cfg.branch.n = 0;
    t->cfg = &t->tc->cfg;
    if (detector_init(&t->d, t->cfg, su->storm_window_ns, su->storm_queue) !=
        0) {
        err_set(&e, "out of memory");
        goto fail;
    }
    if (policy_setup_build(su->policy, su->plugins, su->n_plugins, su->params,
                           su->n_params, &t->ps, &e) != 0)
        goto fail;
    if (sim_create(t->cfg, t->ps.stack, &t->s, &e) != 0)
        goto fail;
    if (watch(t, &e) != 0)
        goto fail;
    return t;
fail:
    model_fail(m, &e);
    traj_free(m, t);
    return NULL;
}

/* The importance of a run's state (risk.h's kinds).  The default, the
 * attempts in the server (queued and in service): a retry storm is a
 * queue that does not drain, and the deeper it is the more of what it
 * serves is already abandoned.  A queue cannot see a black hole's
 * storm coming (the server idles while the attempts vanish), the
 * attempts sent per request can: the retries of the outage arrive when
 * their timeouts fire, and they are what the queue grows from.  The
 * share timing out is the feedback itself: past about 1/8 (in
 * metastable-tipping.ini's arithmetic) a storm feeds itself.  The
 * combination, queue x amplification, grows with either: a deep queue
 * fed by retries is further on its way than one of first tries. */
static double importance(risk_importance k, const traj *t)
{
    const window_counts *w = &t->d.sum;
    double amp = w->offered ? (double)w->attempts / (double)w->offered
                            : (double)w->attempts;
    if (k == RISK_IMP_AMPLIFICATION)
        return amp;
    if (k == RISK_IMP_TIMEOUTS)
        return w->ended ? (double)w->timeouts / (double)w->ended : 0.0;
    sim_server_now now;
    sim_server_state(t->s, &now);
    double q = (double)now.queued + (double)now.busy;
    return k == RISK_IMP_COMBINED ? q * amp : q;
}

static split_stop traj_advance(void *ctx, void *st, double up, double floor,
                               double *peak, double *work)
{
    model *m = ctx;
    traj *t = st;
    int64_t at = sim_now(t->s), end = t->cfg->duration_ns;
    double imp = importance(m->imp, t);
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
        /* Ctrl-C: the trajectory fails, and so the estimate, which
         * risk_estimate then says was stopped. */
        if (m->stop && atomic_load(m->stop)) {
            sb_err e;
            err_set(&e, "stopped");
            model_fail(m, &e);
            return SPLIT_FAIL;
        }
        int64_t next = (at / t->cfg->bucket_ns + 1) * t->cfg->bucket_ns;
        if (next > end)
            next = end;
        if (sim_run_until(t->s, next) != 0) {
            sb_err e;
            err_set(&e, "seed %llu: the run stopped at t=%.3f s: %s",
                    (unsigned long long)t->cfg->seed, (double)at / 1e9,
                    sim_error(t->s));
            model_fail(m, &e);
            return SPLIT_FAIL;
        }
        *work += (double)(next - at) / 1e9;
        at = next;
        imp = importance(m->imp, t);
        if (imp > *peak)
            *peak = imp;
    }
}

/* ---- Copies: splitting's branches ------------------------------------- */

/* A copy of a running trajectory (splitting.h's clone): its sim with a
 * stack of its own (pstack_clone: the hooks of one stack must not run on
 * two threads), its detector's window, its branch path so far; the
 * trial's configuration shared. */
static void *traj_clone(void *ctx, const void *st)
{
    model *m = ctx;
    const traj *src = st;
    sb_err e;
    traj *t = calloc(1, sizeof *t);
    if (t == NULL) {
        err_set(&e, "out of memory");
        model_fail(m, &e);
        return NULL;
    }
    pthread_mutex_lock(&m->lock);
    src->tc->refs++;
    pthread_mutex_unlock(&m->lock);
    t->tc = src->tc;
    t->cfg = src->cfg;
    t->trial = src->trial;
    t->path = src->path;
    t->overflow = src->overflow;
    t->d = src->d;
    t->d.ring = malloc(src->d.w * sizeof *t->d.ring);
    if (t->d.ring == NULL) {
        err_set(&e, "out of memory");
        goto fail;
    }
    memcpy(t->d.ring, src->d.ring, src->d.w * sizeof *t->d.ring);
    if (pstack_clone(src->own ? src->own : src->ps.stack, &t->own, &e) != 0 ||
        sim_clone(src->s, t->own, &t->s, &e) != 0)
        goto fail;
    if (watch(t, &e) != 0)
        goto fail;
    return t;
fail:
    model_fail(m, &e);
    traj_free(m, t);
    return NULL;
}

/* A copy's own random streams from now on, and the step on its path
 * (sim.h: a run with the trial's seed and this path replays it). */
static void traj_rekey(void *ctx, void *st, uint64_t key)
{
    (void)ctx;
    traj *t = st;
    sim_rekey(t->s, key);
    if (t->path.n == SIM_MAX_BRANCH) {
        t->overflow = true;
        return;
    }
    t->path.step[t->path.n++] = (sim_branch_step){sim_now(t->s), key};
}

static void traj_hit(void *ctx, uint64_t trial, const void *st)
{
    model *m = ctx;
    const traj *t = st;
    pthread_mutex_lock(&m->lock);
    if ((!m->found || trial < m->first_trial) && !t->overflow) {
        m->found = true;
        m->first_trial = trial;
        m->first_at = t->d.storm_at;
        m->first_path = t->path;
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

int risk_check_setup(const risk_setup *su, sb_err *e)
{
    const sim_config *c = su->cfg;
    if (su->horizon_ns <= c->warmup_ns)
        return err_set(e,
                       "--horizon %.0f s must be longer than the "
                       "scenario's warm-up (%.0f s)",
                       (double)su->horizon_ns / 1e9,
                       (double)c->warmup_ns / 1e9);
    if (su->storm_queue == 0 && su->storm_window_ns < c->recovery_window_ns)
        return err_set(e,
                       "--storm-window %.0f s must be at least the "
                       "scenario's recovery_window (%.0f s): shorter, "
                       "no recovery could be seen in it",
                       (double)su->storm_window_ns / 1e9,
                       (double)c->recovery_window_ns / 1e9);
    return 0;
}

/* Can this setup's runs be copied?  0; 1 with why in e when not: a
 * stack with a plug-in whose shared state changes and has no clone hook;
 * -1 with e set when the stack cannot be built at all (memory ran out:
 * plain runs, which build it too, would not do either, and an estimate
 * made "plain: out of memory" instead of the one asked for would be
 * another estimate, saved as this one). */
static int check_clonable(const risk_setup *su, sb_err *e)
{
    policy_setup ps;
    if (policy_setup_build(su->policy, su->plugins, su->n_plugins, su->params,
                           su->n_params, &ps, e) != 0)
        return -1;
    int rc = pstack_check_clonable(ps.stack, e);
    policy_setup_free(&ps);
    return rc != 0 ? 1 : 0;
}

static const char *const imp_names[] = {"queue", "amplification", "timeouts",
                                        "combined"};
/* ... in the note of a pilot that found no way up */
static const char *const imp_words[] = {
    "the server's attempts in the system", "the attempts sent per request",
    "the share of attempts timing out",
    "the server's attempts times the attempts per request"};

const char *risk_importance_name(risk_importance k)
{
    return (unsigned)k < 4 ? imp_names[k] : "?";
}

int risk_importance_parse(const char *s, risk_importance *k)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, imp_names[i]) == 0) {
            *k = (risk_importance)i;
            return 0;
        }
    return -1;
}

/* The pilot's trial numbers and keys, apart from the estimate's (trial
 * numbers 0, 1, ...: seed + trial, as plain Monte Carlo's). */
#define PILOT_FIRST_TRIAL (UINT64_C(1) << 40)
#define PILOT_KEY UINT64_C(0x5eed0f9110c0ffee)

/* The levels for splitting (split_pilot: adaptive, fixed effort), or
 * none when the pilot's first stage already sees storms often enough for
 * plain Monte Carlo (or never climbs towards one: then plain Monte Carlo
 * with a note).  -1 with e set on a failed run. */
static int choose_plan(const split_model *sm, const risk_opts *o,
                       risk_result *r, sb_err *e)
{
    uint32_t per_stage = o->pilot_runs ? o->pilot_runs : RISK_PILOT_RUNS;
    split_pilot_opts po = {per_stage,
                           0.2,
                           1000,
                           PILOT_FIRST_TRIAL,
                           PILOT_KEY,
                           RISK_LEVEL_GAP,
                           o->pilot_progress,
                           o->progress_arg};
    split_pilot_result pr;
    if (split_pilot(sm, &po, &r->plan, &pr, e) != 0)
        return -1;
    if (pr == SPLIT_PILOT_STUCK) {
        snprintf(r->note, sizeof r->note,
                 "the pilot's runs never climbed to a storm (%s did not "
                 "lead to one): plain Monte Carlo instead",
                 imp_words[o->importance]);
        r->plan.n_levels = 0;
    } else if (r->plan.no_return && r->plan.n_levels == 0) {
        snprintf(r->note, sizeof r->note,
                 "the pilot's first level (%s %.4g) is already past the "
                 "point of no return: plain Monte Carlo instead",
                 imp_words[o->importance], r->plan.no_return_level);
    } else if (o->method == RISK_AUTO && r->plan.n_levels == 0) {
        snprintf(r->note, sizeof r->note,
                 "the pilot saw storms in %.0f %% of its runs: plain Monte "
                 "Carlo is enough",
                 100.0 * r->plan.hit_share);
    }
    return 0;
}

/* The options of the estimate's main runs. */
static split_opts main_opts(const risk_opts *o)
{
    return (split_opts){o->confidence,
                        o->target_rel_error,
                        100,
                        10,
                        o->max_runs,
                        o->max_sim_s,
                        0,
                        32, /* not from the threads: the stopping rule is
                               read between batches */
                        o->threads,
                        1000000,
                        o->progress,
                        o->progress_arg,
                        0};
}

/* The splitting estimator asked for: RESTART or fixed effort. */
static risk_method splitter_of(const risk_opts *o)
{
    return o->method == RISK_RESTART || o->method == RISK_FIXED_EFFORT
               ? o->method
               : RISK_DEFAULT_SPLITTER;
}

/* What follows from the estimate: the first storm, the rate. */
static void finish(const risk_setup *su, const model *m, risk_result *r)
{
    r->found = m->found;
    r->first_trial = m->first_trial;
    r->first_seed = su->cfg->seed + m->first_trial;
    r->first_storm_ns = m->first_at;
    r->first_branch = m->first_path;
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
}

static bool stopped(const risk_opts *o)
{
    return o->stop && atomic_load(o->stop);
}

int risk_estimate(const risk_setup *su, const risk_opts *o, risk_result *r,
                  sb_err *e)
{
    memset(r, 0, sizeof *r);
    if (risk_check_setup(su, e) != 0)
        return -1;
    model m = {su,      o->importance,
               o->stop, PTHREAD_MUTEX_INITIALIZER,
               false,   {{0}},
               false,   0,
               0,       {0}};
    split_model sm = {&m,         traj_start,   traj_clone, traj_free,
                      traj_rekey, traj_advance, traj_hit};
    bool split = o->method != RISK_PLAIN;
    int clonable = split ? check_clonable(su, e) : 0;
    if (clonable < 0)
        return -1;
    if (clonable > 0) {
        if (o->method != RISK_AUTO)
            return -1;
        snprintf(r->note, sizeof r->note, "plain Monte Carlo: %s", e->msg);
        split = false;
    }
    if (split && choose_plan(&sm, o, r, e) != 0) {
        if (m.failed)
            *e = m.err;
        return stopped(o) ? 1 : -1;
    }
    r->splitting = r->plan.n_levels > 0;
    split_opts so = main_opts(o);
    r->fixed_effort = r->splitting && splitter_of(o) == RISK_FIXED_EFFORT;
    int rc = r->fixed_effort
                 ? split_fe_run(&sm, &r->plan, &so, &r->est, e)
                 : split_estimate_run(&sm, &r->plan, &so, &r->est, e);
    if (rc != 0 || m.failed) {
        if (m.failed)
            *e = m.err;
        return stopped(o) ? 1 : -1;
    }
    finish(su, &m, r);
    return 0;
}

/* ---- Plain Monte Carlo in parts ------------------------------------------ */

/* A part's model: risk_estimate's (first, so that the trajectories'
 * callbacks read it through the same pointer) and when each run was
 * judged a storm, -1 for none. */
typedef struct part_model {
    model m;
    uint64_t first;
    int64_t *at;
} part_model;

static void part_hit(void *ctx, uint64_t trial, const void *st)
{
    part_model *pm = ctx;
    const traj *t = st;
    pm->at[trial - pm->first] = t->d.storm_at;
}

int risk_plain_part(const risk_setup *su, const risk_opts *o, uint64_t first,
                    uint64_t n, risk_trial *out, sb_err *e)
{
    if (risk_check_setup(su, e) != 0)
        return -1;
    part_model pm = {{su,
                      o->importance,
                      o->stop,
                      PTHREAD_MUTEX_INITIALIZER,
                      false,
                      {{0}},
                      false,
                      0,
                      0,
                      {0}},
                     first,
                     calloc(n ? n : 1, sizeof(int64_t))};
    split_trial *t = calloc(n ? n : 1, sizeof *t);
    int rc = -1;
    if (pm.at == NULL || t == NULL) {
        err_set(e, "out of memory");
        goto done;
    }
    for (uint64_t i = 0; i < n; i++)
        pm.at[i] = -1;
    split_model sm = {&pm,        traj_start,   traj_clone, traj_free,
                      traj_rekey, traj_advance, part_hit};
    split_plan plain = {0};
    split_opts so = main_opts(o);
    rc = split_trials_run(&sm, &plain, &so, first, n, t, e);
    if (rc == 0 && pm.m.failed) {
        *e = pm.m.err;
        rc = -1;
    }
    for (uint64_t i = 0; rc == 0 && i < n; i++)
        out[i] = (risk_trial){t[i], pm.at[i]};
done:
    free(pm.at);
    free(t);
    return rc;
}

int risk_plain_merge(const risk_setup *su, const risk_opts *o,
                     const risk_trial *t, uint64_t n, risk_result *r, sb_err *e)
{
    memset(r, 0, sizeof *r);
    if (risk_check_setup(su, e) != 0)
        return -1;
    split_trial *y = calloc(n ? n : 1, sizeof *y);
    if (y == NULL)
        return err_set(e, "out of memory");
    for (uint64_t i = 0; i < n; i++)
        y[i] = t[i].t;
    split_opts so = main_opts(o);
    uint64_t used;
    int rc = split_estimate_replay(y, n, &r->plan, &so, &r->est, &used);
    free(y);
    if (rc != 0)
        return err_set(e,
                       "the stopping rule wants more than the %llu runs "
                       "found",
                       (unsigned long long)n);
    model m = {su,      o->importance,
               o->stop, PTHREAD_MUTEX_INITIALIZER,
               false,   {{0}},
               false,   0,
               0,       {0}};
    /* as risk_estimate: the lowest run that tipped of those its batches
     * ran */
    for (uint64_t i = 0; i < used && !m.found; i++)
        if (t[i].storm_ns >= 0) {
            m.found = true;
            m.first_trial = i;
            m.first_at = t[i].storm_ns;
        }
    finish(su, &m, r);
    return 0;
}
