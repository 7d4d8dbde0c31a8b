/*
 * splitting.c -- RESTART and its pilot (see splitting.h).
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "splitting.h"
#include "stats.h"

uint64_t split_child_key(uint64_t k, int j, uint64_t n, uint32_t c)
{
    uint64_t where = ((uint64_t)(uint32_t)j << 56) ^ (n << 20) ^ c;
    return rng_mix(k ^ rng_mix(where + RNG_GOLDEN));
}

/* The path key of main trial t: its copies' keys derive from it. */
static uint64_t trial_key(uint64_t t)
{
    return rng_mix(t ^ UINT64_C(0x5e11c0ffee));
}

/* ---- One main trial and its copies --------------------------------------- */

/* What one trial adds up to. */
typedef struct trial_sum {
    double y; /* sum of the weights of its hits */
    double work;
    uint64_t hits, paths;
    int status; /* 0, or -1: model failure; -2: too many paths */
} trial_sum;

typedef struct trial_run {
    const split_model *m;
    const split_plan *plan;
    const double *weight; /* weight[j]: 1 / (R[1] ... R[j]); weight[0] = 1 */
    uint64_t trial, max_paths;
    trial_sum *sum;
} trial_run;

static double level_up(const split_plan *p, int j)
{
    return j < p->n_levels ? p->level[j] : INFINITY;
}

static double level_floor(const split_plan *p, int j)
{
    return j > 0 ? p->level[j - 1] : -INFINITY;
}

/* Runs the trajectory st, now in region j (level[j-1] <= I < level[j]),
 * born at level `birth` (0 for the main trial, which nothing kills), until
 * it hits, ends, or (a copy) falls below its birth level.  Copies are run
 * depth first as they are made, so at most one copy per level is alive. */
static void explore(trial_run *r, void *st, int j, int birth, uint64_t key)
{
    const split_model *m = r->m;
    uint64_t climbs = 0;
    double peak;
    for (;;) {
        split_stop s =
            m->advance(m->ctx, st, level_up(r->plan, j),
                       level_floor(r->plan, j), &peak, &r->sum->work);
        if (s == SPLIT_HIT) {
            r->sum->y += r->weight[j];
            r->sum->hits++;
            if (m->on_hit)
                m->on_hit(m->ctx, r->trial, st);
            return;
        }
        if (s == SPLIT_END)
            return;
        if (s == SPLIT_FAIL) {
            r->sum->status = -1;
            return;
        }
        if (s == SPLIT_DOWN) {
            if (j == birth)
                return;
            j--;
            continue;
        }
        j++;
        climbs++;
        for (uint32_t c = 1; c < r->plan->copies[j - 1]; c++) {
            if (r->sum->paths >= r->max_paths) {
                r->sum->status = -2;
                return;
            }
            void *copy = m->clone(m->ctx, st);
            if (copy == NULL) {
                r->sum->status = -1;
                return;
            }
            uint64_t ck = split_child_key(key, j, climbs, c);
            m->rekey(m->ctx, copy, ck);
            r->sum->paths++;
            explore(r, copy, j, j, ck);
            m->destroy(m->ctx, copy);
            if (r->sum->status != 0)
                return;
        }
    }
}

static void trial_once(trial_run *r)
{
    memset(r->sum, 0, sizeof *r->sum);
    void *st = r->m->start(r->m->ctx, r->trial);
    if (st == NULL) {
        r->sum->status = -1;
        return;
    }
    r->sum->paths = 1;
    explore(r, st, 0, 0, trial_key(r->trial));
    r->m->destroy(r->m->ctx, st);
}

/* ---- A batch on threads ---------------------------------------------------- */

typedef struct batch {
    const split_model *m;
    const split_plan *plan;
    const double *weight;
    uint64_t first, n, max_paths;
    trial_sum *sums;
    pthread_mutex_t lock;
    uint64_t next;
} batch;

static void *batch_worker(void *arg)
{
    batch *b = arg;
    for (;;) {
        pthread_mutex_lock(&b->lock);
        uint64_t i = b->next++;
        pthread_mutex_unlock(&b->lock);
        if (i >= b->n)
            return NULL;
        trial_run r = {b->m,         b->plan,      b->weight,
                       b->first + i, b->max_paths, &b->sums[i]};
        trial_once(&r);
    }
}

/* worker(arg) on this thread and threads - 1 more (at most 64 in all;
 * fewer when a thread cannot be started: the workers take their items
 * from a shared counter, so fewer threads only take longer). */
static void on_threads(void *(*worker)(void *), void *arg, int threads)
{
    pthread_t tid[64];
    int started = 0;
    if (threads > 64)
        threads = 64;
    for (int t = 1; t < threads; t++)
        if (pthread_create(&tid[started], NULL, worker, arg) == 0)
            started++;
    worker(arg);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
}

/* Runs trials first .. first + n - 1 into sums[0..n). */
static int batch_run(batch *b, int threads, sb_err *e)
{
    b->next = 0;
    if (pthread_mutex_init(&b->lock, NULL) != 0)
        return err_set(e, "cannot create a lock");
    on_threads(batch_worker, b, threads);
    pthread_mutex_destroy(&b->lock);
    return 0;
}

/* ---- The estimate ---------------------------------------------------------- */

/* Running sums of Y in trial order (Welford, for a stable variance). */
typedef struct acc {
    uint64_t n, hit_trials, hits, paths;
    double mean, m2, work;
} acc;

static void acc_add(acc *a, const trial_sum *s)
{
    a->n++;
    double d = s->y - a->mean;
    a->mean += d / (double)a->n;
    a->m2 += d * (s->y - a->mean);
    a->hit_trials += s->y > 0;
    a->hits += s->hits;
    a->paths += s->paths;
    a->work += s->work;
}

static void acc_result(const acc *a, const split_plan *plan, double conf,
                       split_estimate *out)
{
    memset(out, 0, sizeof *out);
    out->plain = plan->n_levels == 0;
    out->trials = a->n;
    out->hit_trials = a->hit_trials;
    out->hits = a->hits;
    out->paths = a->paths;
    out->work = a->work;
    /* plain: the share that hit, exactly (the running mean may differ in
     * its last bit) */
    out->p =
        out->plain && a->n ? (double)a->hit_trials / (double)a->n : a->mean;
    out->variance = a->n > 1 ? a->m2 / (double)(a->n - 1) : NAN;
    if (out->plain) {
        stats_wilson(a->hit_trials, a->n, conf, &out->lo, &out->hi);
    } else {
        double half = NAN;
        if (a->n > 1) {
            double t =
                stats_t_quantile(1.0 - (1.0 - conf) / 2.0, (double)(a->n - 1));
            half = t * sqrt(out->variance / (double)a->n);
        }
        out->lo = fmax(0.0, a->mean - half);
        out->hi = a->mean + half;
        /* from the unclipped half-width: (hi - lo) / 2 / p with lo
         * clipped at 0 understates it (149 % for 199 %) */
        out->rel_error = out->p > 0 ? half / out->p : INFINITY;
    }
    if (out->plain)
        out->rel_error =
            out->p > 0 ? (out->hi - out->lo) / 2.0 / out->p : INFINITY;
    double var_est = out->variance / (double)a->n;
    out->work_variance = out->variance * a->work / (double)a->n;
    out->effective_runs =
        var_est > 0 ? out->p * (1.0 - out->p) / var_est : (double)a->n;
}

static bool enough(const acc *a, const split_plan *plan, const split_opts *o,
                   split_estimate *est)
{
    acc_result(a, plan, o->confidence, est);
    est->reached_target =
        a->hit_trials > 0 && est->rel_error <= o->target_rel_error;
    if (o->max_trials && a->n >= o->max_trials)
        return true;
    if (o->max_work > 0 && a->work >= o->max_work)
        return true;
    return a->n >= o->min_trials && a->hit_trials >= o->min_hit_trials &&
           est->reached_target;
}

static int trial_failed(const trial_sum *s, uint64_t trial, const split_opts *o,
                        sb_err *e)
{
    if (s->status == -2)
        return err_set(e,
                       "trial %llu made more than %llu copies: the "
                       "levels split too often (the pilot's shares "
                       "were too low); raise the pilot's trajectories",
                       (unsigned long long)trial,
                       (unsigned long long)o->max_paths);
    return err_set(e, "trial %llu: the model failed",
                   (unsigned long long)trial);
}

static void trial_of(const trial_sum *s, split_trial *t)
{
    *t = (split_trial){s->y, s->work, s->hits, s->paths};
}

static void acc_add_trial(acc *a, const split_trial *t)
{
    trial_sum s = {t->y, t->work, t->hits, t->paths, 0};
    acc_add(a, &s);
}

/* Runs one batch of n trials from `first` into sums; -1 with e set. */
static int batch_once(const split_model *m, const split_plan *plan,
                      const double *weight, const split_opts *o, uint64_t first,
                      uint64_t n, trial_sum *sums, sb_err *e)
{
    batch b = {m,      plan,
               weight, first,
               n,      o->max_paths ? o->max_paths : 1000000,
               sums,   PTHREAD_MUTEX_INITIALIZER,
               0};
    if (batch_run(&b, o->threads > 0 ? o->threads : 1, e) != 0)
        return -1;
    for (uint64_t i = 0; i < n; i++)
        if (sums[i].status != 0)
            return trial_failed(&sums[i], first + i, o, e);
    return 0;
}

static void weights_of(const split_plan *plan, double *weight)
{
    weight[0] = 1.0;
    for (int j = 1; j <= plan->n_levels; j++)
        weight[j] = weight[j - 1] / (double)plan->copies[j - 1];
}

static uint32_t batch_size(const split_opts *o)
{
    return o->batch ? o->batch : 64;
}

/* The size of the batch after `done` trials. */
static uint64_t next_batch(const split_opts *o, uint64_t done)
{
    uint64_t n = batch_size(o);
    if (o->max_trials && done + n > o->max_trials)
        n = o->max_trials - done;
    return n;
}

int split_estimate_run(const split_model *m, const split_plan *plan,
                       const split_opts *o, split_estimate *out, sb_err *e)
{
    double weight[SPLIT_MAX_LEVELS + 1];
    weights_of(plan, weight);
    trial_sum *sums = calloc(batch_size(o), sizeof *sums);
    if (sums == NULL)
        return err_set(e, "out of memory");
    acc a = {0};
    int rc = 0;
    for (;;) {
        uint64_t n = next_batch(o, a.n);
        rc = batch_once(m, plan, weight, o, o->first_trial + a.n, n, sums, e);
        if (rc != 0)
            break;
        for (uint64_t i = 0; i < n; i++)
            acc_add(&a, &sums[i]);
        bool done = enough(&a, plan, o, out);
        if (o->progress)
            o->progress(o->progress_arg, out);
        if (done)
            break;
    }
    free(sums);
    return rc;
}

int split_trials_run(const split_model *m, const split_plan *plan,
                     const split_opts *o, uint64_t first, uint64_t n,
                     split_trial *out, sb_err *e)
{
    double weight[SPLIT_MAX_LEVELS + 1];
    weights_of(plan, weight);
    trial_sum *sums = calloc(batch_size(o), sizeof *sums);
    if (sums == NULL)
        return err_set(e, "out of memory");
    int rc = 0;
    for (uint64_t done = 0; done < n && rc == 0;) {
        uint64_t k = n - done < batch_size(o) ? n - done : batch_size(o);
        rc = batch_once(m, plan, weight, o, first + done, k, sums, e);
        for (uint64_t i = 0; i < k && rc == 0; i++)
            trial_of(&sums[i], &out[done + i]);
        done += k;
    }
    free(sums);
    return rc;
}

int split_estimate_replay(const split_trial *t, uint64_t n,
                          const split_plan *plan, const split_opts *o,
                          split_estimate *out, uint64_t *used)
{
    acc a = {0};
    for (;;) {
        uint64_t k = next_batch(o, a.n);
        if (a.n + k > n) {
            *used = a.n;
            return -1;
        }
        for (uint64_t i = 0; i < k; i++)
            acc_add_trial(&a, &t[a.n]);
        if (enough(&a, plan, o, out)) {
            *used = a.n;
            return 0;
        }
    }
}

/* ---- Fixed-effort splitting ------------------------------------------------ */

/* An entrance state of a stage: where a trajectory of the stage before
 * first reached its level, and the main trial it descends from.  hit: it
 * hit on the way (st is NULL then): it counts as above every level. */
typedef struct fe_entr {
    void *st;
    uint64_t root;
    bool hit;
} fe_entr;

typedef struct fe_rep {
    const split_model *m;
    const split_plan *plan;
    uint32_t n;
    uint64_t first; /* its main trials' numbers: first .. first + n - 1 */
    uint64_t key;   /* its copies' keys derive from this */
    fe_entr *cur, *next;
    uint32_t n_cur, n_next;
    trial_sum *sum;
} fe_rep;

static void fe_drop(const split_model *m, fe_entr *v, uint32_t *n)
{
    for (uint32_t i = 0; i < *n; i++)
        if (v[i].st != NULL)
            m->destroy(m->ctx, v[i].st);
    *n = 0;
}

/* Trajectory i of stage k: a main trial at stage 0, else a re-keyed copy
 * of an entrance drawn uniformly (with replacement).  Its end goes to
 * the next stage's entrances when it reached the level or hit.  -1 when
 * the model failed. */
static int fe_one(fe_rep *r, int k, uint32_t i)
{
    const split_model *m = r->m;
    uint64_t root = r->first + i;
    void *st;
    if (k == 0) {
        st = m->start(m->ctx, root);
    } else {
        uint64_t u = rng_at(r->key ^ rng_mix((uint64_t)k), i);
        const fe_entr *f = &r->cur[u % r->n_cur];
        root = f->root;
        if (f->hit) {
            r->next[r->n_next++] = (fe_entr){NULL, root, true};
            return 0;
        }
        st = m->clone(m->ctx, f->st);
        if (st != NULL)
            m->rekey(m->ctx, st, split_child_key(r->key, k, i, 1));
    }
    if (st == NULL)
        return -1;
    r->sum->paths++;
    double peak;
    split_stop s = m->advance(m->ctx, st, level_up(r->plan, k), -INFINITY,
                              &peak, &r->sum->work);
    if (s == SPLIT_HIT) {
        r->sum->hits++;
        if (m->on_hit)
            m->on_hit(m->ctx, root, st);
        m->destroy(m->ctx, st);
        r->next[r->n_next++] = (fe_entr){NULL, root, true};
        return 0;
    }
    if (s == SPLIT_UP) {
        r->next[r->n_next++] = (fe_entr){st, root, false};
        return 0;
    }
    m->destroy(m->ctx, st);
    return s == SPLIT_FAIL ? -1 : 0;
}

/* One replicate: the product of its stages' shares in sum->y. */
static void fe_replicate(fe_rep *r)
{
    double y = 1.0;
    for (int k = 0; k <= r->plan->n_levels && y > 0; k++) {
        r->n_next = 0;
        for (uint32_t i = 0; i < r->n; i++)
            if (fe_one(r, k, i) != 0) {
                r->sum->status = -1;
                fe_drop(r->m, r->next, &r->n_next);
                return;
            }
        fe_drop(r->m, r->cur, &r->n_cur);
        fe_entr *t = r->cur;
        r->cur = r->next;
        r->next = t;
        r->n_cur = r->n_next;
        r->n_next = 0;
        y *= (double)r->n_cur / (double)r->n;
    }
    fe_drop(r->m, r->cur, &r->n_cur);
    r->sum->y = y;
}

typedef struct fe_batch {
    const split_model *m;
    const split_plan *plan;
    uint32_t n;
    uint64_t first_rep, first_trial, count;
    trial_sum *sums;
    pthread_mutex_t lock;
    uint64_t next;
} fe_batch;

static void *fe_worker(void *arg)
{
    fe_batch *b = arg;
    fe_entr *buf = malloc(2 * (size_t)b->n * sizeof *buf);
    for (;;) {
        pthread_mutex_lock(&b->lock);
        uint64_t i = b->next++;
        pthread_mutex_unlock(&b->lock);
        if (i >= b->count)
            break;
        trial_sum *sum = &b->sums[i];
        memset(sum, 0, sizeof *sum);
        if (buf == NULL) {
            sum->status = -1;
            continue;
        }
        /* Keys from the replicate's first main trial, so that estimates
         * with other first_trials draw other copies. */
        uint64_t first = b->first_trial + (b->first_rep + i) * b->n;
        fe_rep r = {b->m,
                    b->plan,
                    b->n,
                    first,
                    rng_mix(first ^ UINT64_C(0xfe5eedf1fed0)),
                    buf,
                    buf + b->n,
                    0,
                    0,
                    sum};
        fe_replicate(&r);
    }
    free(buf);
    return NULL;
}

/* Runs replicates first_rep .. first_rep + count - 1 into sums. */
static int fe_batch_run(fe_batch *b, int threads, sb_err *e)
{
    b->next = 0;
    if (pthread_mutex_init(&b->lock, NULL) != 0)
        return err_set(e, "cannot create a lock");
    on_threads(fe_worker, b, threads);
    pthread_mutex_destroy(&b->lock);
    for (uint64_t i = 0; i < b->count; i++)
        if (b->sums[i].status != 0)
            return err_set(e, "replicate %llu: the model failed",
                           (unsigned long long)(b->first_rep + i));
    return 0;
}

/* The estimate over a's replicates (acc's trials are replicates). */
static bool fe_enough(const acc *a, const split_plan *plan, const split_opts *o,
                      uint32_t n, split_estimate *est)
{
    split_plan levels = *plan;
    if (levels.n_levels == 0)
        levels.n_levels = 1; /* Student t over replicates, not Wilson */
    acc_result(a, &levels, o->confidence, est);
    est->fixed_effort = true;
    est->replicates = a->n;
    est->per_level = n;
    est->trials = a->n * n;
    est->effective_runs = est->variance > 0 ? est->p * (1.0 - est->p) /
                                                  (est->variance / (double)a->n)
                                            : (double)est->trials;
    est->reached_target =
        a->hit_trials > 0 && est->rel_error <= o->target_rel_error;
    if (o->max_trials && (a->n + SPLIT_FE_BATCH) * n > o->max_trials)
        return true;
    if (o->max_work > 0 && a->work >= o->max_work)
        return true;
    return a->n >= SPLIT_FE_MIN_REPLICATES &&
           a->hit_trials >= o->min_hit_trials && est->reached_target;
}

int split_fe_run(const split_model *m, const split_plan *plan,
                 const split_opts *o, split_estimate *out, sb_err *e)
{
    uint32_t n = o->per_level ? o->per_level : SPLIT_FE_PER_LEVEL;
    trial_sum sums[SPLIT_FE_BATCH];
    acc a = {0};
    for (;;) {
        fe_batch b = {m,
                      plan,
                      n,
                      a.n,
                      o->first_trial,
                      SPLIT_FE_BATCH,
                      sums,
                      PTHREAD_MUTEX_INITIALIZER,
                      0};
        if (fe_batch_run(&b, o->threads > 0 ? o->threads : 1, e) != 0)
            return -1;
        for (uint32_t i = 0; i < SPLIT_FE_BATCH; i++)
            acc_add(&a, &sums[i]);
        bool done = fe_enough(&a, plan, o, n, out);
        if (o->progress)
            o->progress(o->progress_arg, out);
        if (done)
            return 0;
    }
}

/* ---- The pilot --------------------------------------------------------------- */

/* One pilot trajectory: where it started and what it did. */
typedef struct probe {
    uint32_t from; /* index of its entrance state (stage > 0) */
    uint64_t key;  /* its copy's key (stage > 0) */
    double peak;
    split_stop how;
} probe;

typedef struct pilot {
    const split_model *m;
    const split_pilot_opts *o;
    void **entr; /* entrance states of the current stage */
    uint32_t n_entr;
    probe *pr; /* per_stage of them */
} pilot;

/* Starts trajectory i of stage `stage` (0: a main trial): a fresh state. */
static void *probe_start(pilot *pl, int stage, uint32_t i)
{
    const split_model *m = pl->m;
    if (stage == 0)
        return m->start(m->ctx, pl->o->first_trial + i);
    void *st = m->clone(m->ctx, pl->entr[pl->pr[i].from]);
    if (st != NULL)
        m->rekey(m->ctx, st, pl->pr[i].key);
    return st;
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* The next level: the highest importance that at least `want` of the
 * stage reached, or else the lowest one above the current floor; raised
 * to the lowest peak at least gap x |floor| above the floor when one got
 * there (split_pilot_opts.min_gap), else *close is set.  NaN when
 * nothing went above it. */
static double next_level(const probe *pr, uint32_t n, uint32_t want,
                         double floor, double gap, bool *close)
{
    *close = false;
    double *peaks = malloc((size_t)n * sizeof *peaks);
    if (peaks == NULL)
        return NAN;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (pr[i].peak > floor)
            peaks[k++] = pr[i].peak;
    double lv = NAN;
    if (k > 0) {
        qsort(peaks, k, sizeof *peaks, cmp_desc);
        lv = peaks[(want <= k ? want : k) - 1];
        /* At least the gap above the floor: the lowest peak there (the
         * peaks are in descending order), if any got that far. */
        double least = floor + gap * fabs(floor);
        if (gap > 0 && isfinite(floor) && lv < least) {
            *close = peaks[0] < least;
            uint32_t i = 0;
            while (i + 1 < k && peaks[i + 1] >= least)
                i++;
            if (!*close)
                lv = peaks[i];
        }
    }
    free(peaks);
    return lv;
}

static void entr_free(pilot *pl)
{
    for (uint32_t i = 0; i < pl->n_entr; i++)
        pl->m->destroy(pl->m->ctx, pl->entr[i]);
    free(pl->entr);
    pl->entr = NULL;
    pl->n_entr = 0;
}

/* Keeps a copy of st as an entrance state of the next stage (the first
 * `cap` in trajectory order: deterministic). */
static int keep_entrance(pilot *pl, void ***next, uint32_t *k, uint32_t cap,
                         const void *st)
{
    if (*k == cap)
        return 0;
    void *c = pl->m->clone(pl->m->ctx, st);
    if (c == NULL)
        return -1;
    (*next)[(*k)++] = c;
    return 0;
}

/* Trajectory i of the stage run again with the same randomness, counting
 * its climbs through lv until it falls below the stage's floor (or ends
 * or hits); a state at each climb is kept as an entrance of the next
 * stage.  Returns the climbs, or -1. */
static int climbs_of(pilot *pl, int stage, uint32_t i, double lv, double floor,
                     void ***next, uint32_t *k, uint32_t cap, double *work)
{
    void *st = probe_start(pl, stage, i);
    if (st == NULL)
        return -1;
    int n = 0;
    double peak;
    for (;;) {
        split_stop s = pl->m->advance(pl->m->ctx, st, lv, floor, &peak, work);
        if (s == SPLIT_FAIL)
            n = -1;
        if (s != SPLIT_UP)
            break;
        n++;
        if (keep_entrance(pl, next, k, cap, st) != 0) {
            n = -1;
            break;
        }
        s = pl->m->advance(pl->m->ctx, st, INFINITY, lv, &peak, work);
        if (s == SPLIT_FAIL)
            n = -1;
        if (s != SPLIT_DOWN)
            break;
    }
    pl->m->destroy(pl->m->ctx, st);
    return n;
}

/* The climbs through lv of the stage's trajectories, and the entrance
 * states at lv for the next stage.  RESTART copies a path R times at
 * every climb, and each copy climbs the next level as often as the
 * pilot's trajectories did (they too are killed below the floor), so R =
 * 1 / (climbs per trajectory) keeps the number of paths level by level
 * ("balanced growth").  Setting R from the share that climbed at all
 * instead undercounts a path that falls back and climbs again, and the
 * copies multiply: at K = 31 of check_splitting's walk, past 10^6 paths
 * in one trial. */
static int entrances(pilot *pl, int stage, double lv, double floor,
                     double *climbs, double *work, sb_err *e)
{
    uint32_t n = pl->o->per_stage, k = 0, cap = 4 * n;
    void **next = calloc(cap, sizeof *next);
    if (next == NULL)
        return err_set(e, "out of memory");
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (pl->pr[i].peak < lv)
            continue;
        int c = climbs_of(pl, stage, i, lv, floor, &next, &k, cap, work);
        if (c < 0) {
            for (uint32_t j = 0; j < k; j++)
                pl->m->destroy(pl->m->ctx, next[j]);
            free(next);
            return err_set(e, "the model failed in the pilot");
        }
        total += (uint64_t)c;
    }
    entr_free(pl);
    pl->entr = next;
    pl->n_entr = k;
    *climbs = (double)total / n;
    return 0;
}

/* Runs one stage; returns the number of hits, or -1; *downs: how many
 * fell back below the floor. */
static int stage_run(pilot *pl, int stage, double floor, double *work,
                     uint32_t *downs, sb_err *e)
{
    const split_pilot_opts *o = pl->o;
    int hits = 0;
    *downs = 0;
    for (uint32_t i = 0; i < o->per_stage; i++) {
        probe *p = &pl->pr[i];
        p->from = stage == 0 ? 0 : i % pl->n_entr;
        p->key = split_child_key(o->key, stage, i, 0);
        void *st = probe_start(pl, stage, i);
        if (st == NULL)
            return err_set(e, "the model failed in the pilot");
        p->how =
            pl->m->advance(pl->m->ctx, st, INFINITY, floor, &p->peak, work);
        pl->m->destroy(pl->m->ctx, st);
        if (p->how == SPLIT_FAIL)
            return err_set(e, "the model failed in the pilot");
        hits += p->how == SPLIT_HIT;
        *downs += p->how == SPLIT_DOWN;
    }
    return hits;
}

int split_pilot(const split_model *m, const split_pilot_opts *o,
                split_plan *plan, split_pilot_result *res, sb_err *e)
{
    memset(plan, 0, sizeof *plan);
    pilot pl = {m, o, NULL, 0, calloc(o->per_stage, sizeof(probe))};
    if (pl.pr == NULL)
        return err_set(e, "out of memory");
    uint32_t want = (uint32_t)ceil(o->p0 * o->per_stage);
    if (want < 1)
        want = 1;
    int rc = 0;
    *res = SPLIT_PILOT_OK;
    for (int stage = 0;; stage++) {
        double floor = stage == 0 ? -INFINITY : plan->level[stage - 1];
        uint32_t downs;
        int hits = stage_run(&pl, stage, floor, &plan->pilot_work, &downs, e);
        if (hits < 0) {
            rc = -1;
            break;
        }
        /* The point of no return: from this level hardly any trajectory
         * falls back, so what decides a hit happened below it; copies
         * made here and above would all share one fate.  Drop the level
         * and stop (the stage's hit share is then the previous one's
         * business: the estimate does not read it). */
        if (stage > 0 && downs < want) {
            plan->no_return = true;
            plan->no_return_level = floor;
            plan->n_levels = stage - 1;
            break;
        }
        plan->pilot_hits = (uint32_t)hits;
        plan->hit_share = (double)hits / o->per_stage;
        if ((uint32_t)hits >= want || stage == SPLIT_MAX_LEVELS)
            break;
        bool close;
        double lv =
            next_level(pl.pr, o->per_stage, want, floor, o->min_gap, &close);
        /* No trajectory got the gap above this level, yet some hit: the
         * last stage runs from here to the event (fewer than p0 hit, but
         * a level closer than the gap costs more than it saves). */
        if (close && hits > 0)
            break;
        if (isnan(lv)) {
            if (hits == 0)
                *res = SPLIT_PILOT_STUCK;
            break;
        }
        double climbs;
        if (entrances(&pl, stage, lv, floor, &climbs, &plan->pilot_work, e) !=
            0) {
            rc = -1;
            break;
        }
        if (pl.n_entr == 0) {
            *res = hits == 0 ? SPLIT_PILOT_STUCK : SPLIT_PILOT_OK;
            break;
        }
        double r = round(1.0 / climbs);
        plan->level[stage] = lv;
        plan->crossed[stage] = climbs;
        plan->copies[stage] = (uint32_t)fmin(fmax(r, 1.0), o->max_copies);
        plan->n_levels = stage + 1;
        if (o->progress)
            o->progress(o->progress_arg, plan, stage, (uint32_t)hits);
    }
    entr_free(&pl);
    free(pl.pr);
    return rc;
}
