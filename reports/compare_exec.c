/*
 * compare_exec.c -- running a comparison: a pool of threads, each taking
 * the next run that has no valid saved file, running it exactly as
 * `stormbench run` would (the same config with the run's seed, the same
 * policy stack and parameters), reducing it while it runs, and saving it
 * whole the moment it ends.
 *
 * A run's reduction is its summary (with its phases, which the engine
 * reduces as buckets close: sim/phases.h) and an observer of every
 * bucket the engine closes, at the scenario's bucket width, that folds
 * them into at most COMPARE_ROWS series rows.  So nothing of the run's
 * metrics outlives it, and the reduction costs one pass over the
 * buckets, done while they are hot.
 */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compare.h"
#include "hookguard.h"
#include "outfile.h"
#include "policy_setup.h"
#include "runfile.h"
#include "runstore.h"
#include "sim.h"

/* ---- One run, reduced as it goes ---------------------------------------- */

/* The run's phases are its summary's (sim/phases.h, reduced by the
 * engine); this reduction only folds the buckets into the series rows,
 * with the same sums (phases_sum).  The engine tells it of the buckets
 * that are not quiet only (sim_observer.skip_quiet); the quiet ones
 * between, and after the last, are counted in by their number. */
typedef struct reducer {
    uint64_t per_row;  /* buckets per series row */
    int64_t bucket_ns; /* every bucket's width */
    uint64_t next;     /* the first bucket not yet in a row */
    uint64_t n;        /* the run's buckets */
    phases_sum row;
    bool busy; /* a bucket of the row was not quiet: row holds more than
                  its width and count of buckets */
    uint64_t duplicates;   /* so far, for the cumulative column */
    float quiet[CC_COUNT]; /* the figures of a row of quiet buckets */
    compare_series *series;
} reducer;

static uint64_t ceil_div(int64_t a, int64_t b)
{
    return a <= 0 ? 0 : (uint64_t)((a + b - 1) / b);
}

static void reducer_start(reducer *rd, const sim_config *c,
                          compare_series *series)
{
    rd->duplicates = 0;
    rd->series = series;
    phases_sum_clear(&rd->row);
    rd->busy = false;
    /* As row_flush computes them from sums of 0: 0 / width is +0 for any
     * width, and the p99 of no successes is NaN. */
    for (int col = 0; col < CC_COUNT; col++)
        rd->quiet[col] = 0.0f;
    rd->quiet[CC_P99_MS] = (float)NAN;
    rd->bucket_ns = c->bucket_ns;
    rd->next = 0;
    rd->n = ceil_div(c->duration_ns, c->bucket_ns); /* sim_observer */
    rd->per_row =
        rd->n <= COMPARE_ROWS ? 1 : ceil_div((int64_t)rd->n, COMPARE_ROWS);
    series->n_rows = 0;
    series->row_s = (double)rd->per_row * (double)c->bucket_ns / 1e9;
}

static void row_flush(reducer *rd)
{
    phases_sum *a = &rd->row;
    compare_series *s = rd->series;
    if (a->buckets == 0 || s->n_rows == COMPARE_ROWS)
        return;
    float *v = s->v[s->n_rows++];
    /* A quiet row (most of a short run's) is rd->quiet, without the five
     * divisions below; one of quiet buckets only has no sums to clear
     * but the width and the count. */
    if (!rd->busy) {
        memcpy(v, rd->quiet, sizeof rd->quiet);
        a->buckets = 0;
        a->width_ns = 0;
        return;
    }
    rd->busy = false;
    if ((a->offered | a->attempts | a->successes | a->refusals |
         a->n_latency) == 0 &&
        a->queue_ns == 0.0 && !signbit(a->queue_ns)) {
        memcpy(v, rd->quiet, sizeof rd->quiet);
        phases_sum_clear(a);
        return;
    }
    double width_s = (double)a->width_ns / 1e9;
    v[CC_OFFERED] = (float)((double)a->offered / width_s);
    v[CC_ATTEMPTS] = (float)((double)a->attempts / width_s);
    v[CC_GOODPUT] = (float)((double)a->successes / width_s);
    v[CC_QUEUE] = (float)(a->queue_ns / (double)a->width_ns);
    v[CC_P99_MS] = (float)phases_sum_p99_ms(a);
    v[CC_DUPLICATES] = (float)rd->duplicates;
    v[CC_REFUSED] = (float)((double)a->refusals / width_s);
    phases_sum_clear(a);
}

/* k more quiet buckets into the open row (at most the room it has). */
static void quiet_in_row(reducer *rd, uint64_t k)
{
    rd->row.buckets += k;
    rd->row.width_ns += (int64_t)k * rd->bucket_ns;
    rd->next += k;
    if (rd->row.buckets == rd->per_row)
        row_flush(rd);
}

/* The quiet buckets up to (not including) bucket `to` into the rows, as
 * phases_sum_add would add them (phases_bucket_quiet): the open row
 * filled, then whole rows of them as rd->quiet (row_flush's quiet row),
 * then the start of the next. */
static void quiet_until(reducer *rd, uint64_t to)
{
    compare_series *s = rd->series;
    if (rd->next >= to)
        return;
    if (rd->row.buckets > 0 && rd->row.buckets < rd->per_row) {
        uint64_t room = rd->per_row - rd->row.buckets;
        quiet_in_row(rd, to - rd->next < room ? to - rd->next : room);
    }
    if (rd->row.buckets == 0) {
        uint64_t rows = (to - rd->next) / rd->per_row;
        if (rows > COMPARE_ROWS - s->n_rows)
            rows = COMPARE_ROWS - s->n_rows;
        for (uint64_t r = 0; r < rows; r++)
            memcpy(s->v[s->n_rows + r], rd->quiet, sizeof rd->quiet);
        s->n_rows += (uint32_t)rows;
        rd->next += rows * rd->per_row;
    }
    uint64_t room = rd->per_row - rd->row.buckets; /* 0: the series is full */
    if (rd->next < to && room > 0)
        quiet_in_row(rd, to - rd->next < room ? to - rd->next : room);
}

/* A bucket that is not quiet (the engine skips the others). */
static void on_bucket(void *ctx, const sim *s, const metrics_bucket *b,
                      const metrics_hist *h)
{
    (void)s;
    reducer *rd = ctx;
    quiet_until(rd, (uint64_t)(b->start_ns / rd->bucket_ns));
    rd->next++;
    rd->busy = true;
    rd->duplicates += b->duplicates;
    rd->quiet[CC_DUPLICATES] = (float)rd->duplicates;
    phases_sum_add(&rd->row, b, h);
    if (rd->row.buckets == rd->per_row)
        row_flush(rd);
}

/* The run has ended (sim_finish): its quiet buckets after the last one
 * told of, and the last row, however short. */
static void reducer_end(reducer *rd)
{
    quiet_until(rd, rd->n);
    row_flush(rd);
}

/* The run's summary and its latency CDF, from one pass over the whole-run
 * histogram (summary_compute_cdf). */
static void summary_and_cdf(const sim *s, compare_run *r)
{
    double v[COMPARE_CDF_POINTS];
    summary_compute_cdf(s, &r->sum, compare_cdf_q, COMPARE_CDF_POINTS, v);
    uint64_t n = sim_metrics(s)->total.sum.successes;
    for (int i = 0; i < COMPARE_CDF_POINTS; i++)
        r->latency_ms[i] = n ? (float)(v[i] / 1e6) : NAN;
}

/* A service chain's tiers, from the run's own per-tier counters
 * (sim_tier_summary_of); the peak over the buckets with offered requests
 * at the top, as the summary's peak amplification is over the top's. */
static void tiers_of(const sim *s, compare_run *r)
{
    const metrics *top = sim_metrics(s);
    const sim_phase *during = &r->sum.phase[PHASE_DURING];
    r->n_tiers = sim_tiers(s);
    for (uint32_t i = 0; i < r->n_tiers && i < SIM_MAX_TIERS; i++) {
        sim_tier_summary ts;
        sim_tier_info ti;
        sim_tier_summary_of(s, i, &ts);
        sim_tier(s, i, &ti);
        compare_tier *t = &r->tier[i];
        t->calls = ts.calls;
        t->attempts = ts.attempts;
        t->amplification = ts.amplification;
        t->utilization = ts.utilization;
        t->max_queue = ts.max_queue;
        t->peak_amplification = 0;
        uint64_t offered = 0, attempts = 0;
        for (size_t b = 0; b < top->n_buckets && b < ti.m->n_buckets; b++) {
            const metrics_bucket *tb = &top->buckets[b];
            if (tb->offered > 0)
                t->peak_amplification = fmax(t->peak_amplification,
                                             (double)ti.m->buckets[b].attempts /
                                                 (double)tb->offered);
            double from = (double)tb->start_ns / 1e9;
            if (during->present && from >= during->from_s &&
                from < during->to_s) {
                offered += tb->offered;
                attempts += ti.m->buckets[b].attempts;
            }
        }
        t->during_amplification =
            offered ? (double)attempts / (double)offered : NAN;
    }
}

/* ---- The pool ------------------------------------------------------------ */

typedef struct pool {
    const compare_plan *plan;
    const compare_opts *opts;
    uint32_t *todo;
    uint32_t n_todo;
    uint32_t stale;   /* stale records found before the runs */
    atomic_uint next; /* index into todo of the next run to start */
    atomic_uint done; /* runs finished and saved */
    atomic_int failed;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int running; /* workers not yet returned */
    sb_err err;  /* the first failure */
} pool;

typedef struct worker {
    pool *pool;
    pthread_t thread;
    sim_config cfg;
    uint32_t cfg_point; /* + 1: the point cfg is of; 0: none yet */
    reducer red;
    compare_series series;
    runfile_buf buf;
    runfile_log log; /* the thread's file of records */
    sim *sim;        /* the thread's engine, reused run after run
                             (sim_reuse): a new one per run cost a tenth
                             of a short run (bench/README.md) */
    char name[600];  /* hookguard_set_run's, for the run in progress */
    char rerun[8192];
    char origin[200];       /* build_stack's, for origin_policy */
    uint32_t origin_policy; /* + 1; 0: origin not yet written */
} worker;

/* "policy 'P', seed S, clients.count = 50": which run failed. */
static void run_name(const compare_plan *p, uint32_t pt, uint32_t pol,
                     uint64_t seed, char *buf, size_t len)
{
    size_t used =
        (size_t)snprintf(buf, len, "policy '%s', seed %llu",
                         p->policies[pol].label, (unsigned long long)seed);
    for (int a = 0; a < p->n_axes && used < len; a++)
        used += (size_t)snprintf(buf + used, len - used, ", %s = %g%s",
                                 p->axes[a].key, p->points[pt].value[a],
                                 p->axes[a].unit);
}

/* Append " word" to buf, single-quoted when the shell would split or
 * expand it; returns the new length (len or more when it did not fit). */
static size_t put_word(char *buf, size_t len, size_t used, const char *w)
{
    bool unquoted = w[0] != '\0';
    for (const char *c = w; *c; c++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789_./:=+,-%@",
                    *c))
            unquoted = false;
    if (used < len)
        used += (size_t)snprintf(buf + used, len - used,
                                 unquoted ? " %s" : " '", w);
    for (const char *c = w; !unquoted && *c && used < len; c++)
        used += (size_t)snprintf(buf + used, len - used, "%s",
                                 *c == '\'' ? "'\\''" : (char[]){*c, 0});
    if (!unquoted && used < len)
        used += (size_t)snprintf(buf + used, len - used, "'");
    return used;
}

/* "stormbench run x.ini --set a=b --policy-plugin p.so --policy P
 * --param k=v --set sweep=v --seed S": o->rerun, then what makes this run
 * run r.  The entry's parameters are all given (the scenario's own
 * [policy] ones too, when the stack is the file's), so the command does
 * not depend on how `run` picks them. */
static void rerun_text(const compare_plan *p, const compare_opts *o,
                       uint32_t pt, uint32_t pol, uint64_t seed, char *buf,
                       size_t len)
{
    const compare_policy *cp = &p->policies[pol];
    const compare_point *point = &p->points[pt];
    char kv[400], num[32];
    size_t used = (size_t)snprintf(buf, len, "stormbench run");
    used = put_word(buf, len, used, o->rerun.scenario);
    for (int i = 0; i < o->rerun.n_sets; i++) {
        used = put_word(buf, len, used, "--set");
        used = put_word(buf, len, used, o->rerun.sets[i]);
    }
    for (int i = 0; i < o->rerun.n_plugins; i++) {
        used = put_word(buf, len, used, "--policy-plugin");
        used = put_word(buf, len, used, o->rerun.plugins[i]);
    }
    used = put_word(buf, len, used, "--policy");
    used = put_word(buf, len, used, cp->stack);
    for (int i = 0; i < cp->n_params + point->n_policy_sets; i++) {
        const setting *st = i < cp->n_params
                                ? &cp->params[i]
                                : &point->policy_sets[i - cp->n_params];
        snprintf(kv, sizeof kv, "%s=%s", st->key, st->value);
        used = put_word(buf, len, used, "--param");
        used = put_word(buf, len, used, kv);
    }
    for (int i = 0; i < point->n_scenario_sets; i++) {
        used = put_word(buf, len, used, "--set");
        used = put_word(buf, len, used, point->scenario_sets[i]);
    }
    snprintf(num, sizeof num, "%llu", (unsigned long long)seed);
    used = put_word(buf, len, used, "--seed");
    used = put_word(buf, len, used, num);
    if (used >= len)
        buf[0] = '\0'; /* cut short, it would run something else */
}

static int build_stack(worker *w, uint32_t pt, uint32_t pol, policy_setup *ps,
                       sb_err *e)
{
    const compare_plan *p = w->pool->plan;
    const compare_policy *cp = &p->policies[pol];
    const compare_point *point = &p->points[pt];
    setting all[COMPARE_MAX_PARAMS + COMPARE_MAX_AXES];
    int n = 0;
    for (int i = 0; i < cp->n_params; i++)
        all[n++] = cp->params[i];
    for (int i = 0; i < point->n_policy_sets; i++)
        all[n++] = point->policy_sets[i];
    const char *plugins[COMPARE_MAX_PLUGINS];
    for (int i = 0; i < p->n_plugins; i++)
        plugins[i] = p->plugins[i];
    /* For error messages only: written when the entry changes (the
     * seeds of an entry run one after another). */
    if (w->origin_policy != pol + 1) {
        snprintf(w->origin, sizeof w->origin, "policy entry '%s'", cp->label);
        w->origin_policy = pol + 1;
    }
    return policy_setup_build_at(cp->stack, w->origin, plugins, p->n_plugins,
                                 all, n, ps, e);
}

/* Run r of the plan and save it. */
static int run_one(worker *w, uint32_t r, sb_err *e)
{
    const compare_plan *p = w->pool->plan;
    uint32_t pt, pol, sd;
    compare_run_at(p, r, &pt, &pol, &sd);
    /* The point's config (174 kB) copied only when the point changes:
     * its runs come one after another (compare_run_at), and the engine
     * reads its config, never writes it. */
    if (w->cfg_point != pt + 1) {
        w->cfg = p->points[pt].cfg;
        w->cfg.trace_sample = 0;
        w->cfg_point = pt + 1;
    }
    w->cfg.seed = p->seed0 + sd;
    compare_run run;
    memset(&run, 0, sizeof run);
    run.point = pt;
    run.policy = pol;
    run.seed_index = sd;
    run.seed = w->cfg.seed;
    policy_setup ps;
    sim *s;
    const compare_opts *o = w->pool->opts;
    /* Named before the stack is built: a plug-in may crash in create.
     * Only hookguard reads the name and the command, and only inside a
     * plug-in's hook: without plug-ins they are not written (their
     * printf of the axes' values was a percent or two of a short run). */
    if (p->n_plugins > 0) {
        char what[sizeof w->name - 32];
        run_name(p, pt, pol, run.seed, what, sizeof what);
        snprintf(w->name, sizeof w->name, "run %u (%s)", r, what);
        w->rerun[0] = '\0';
        if (o->rerun.scenario)
            rerun_text(p, o, pt, pol, run.seed, w->rerun, sizeof w->rerun);
        hookguard_set_run(w->name, w->rerun[0] ? w->rerun : NULL);
    }
    if (build_stack(w, pt, pol, &ps, e) != 0) {
        hookguard_set_run(NULL, NULL);
        return -1;
    }
    if (sim_reuse(&w->sim, &w->cfg, ps.stack, e) != 0)
        goto done;
    s = w->sim;
    reducer_start(&w->red, &w->cfg, &w->series);
    sim_observer obs = {&w->red, on_bucket, NULL, true};
    if (sim_observe(s, &obs) != 0) {
        err_set(e, "cannot observe the run");
        goto done;
    }
    if (sim_run_until(s, w->cfg.duration_ns) != 0) {
        err_set(e, "the run stopped at t=%.3f s: %s", (double)sim_now(s) / 1e9,
                sim_error(s));
        goto done;
    }
    sim_finish(s);
    summary_and_cdf(s, &run);
    reducer_end(&w->red);
    tiers_of(s, &run);
    /* The engine keeps pointers to the stack until its next sim_reuse,
     * which reads none of them. */
    policy_setup_free(&ps);
    hookguard_set_run(NULL, NULL);
    if (runfile_format(&w->buf, p->fingerprint, p->policies[pol].label, &run,
                       &w->series, e) != 0)
        return -1;
    return runfile_log_append(&w->log, o->dir, &w->buf, e);
done:
    sim_destroy(w->sim); /* a failed run's engine is not reused */
    w->sim = NULL;
    policy_setup_free(&ps);
    hookguard_set_run(NULL, NULL);
    return -1;
}

static bool stopping(const pool *pl)
{
    return atomic_load(&pl->failed) ||
           (pl->opts->stop && atomic_load(pl->opts->stop));
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    pool *pl = w->pool;
    while (!stopping(pl)) {
        unsigned i = atomic_fetch_add(&pl->next, 1);
        if (i >= pl->n_todo)
            break;
        uint32_t r = pl->todo[i];
        sb_err e;
        if (run_one(w, r, &e) != 0) {
            uint32_t pt, pol, sd;
            compare_run_at(pl->plan, r, &pt, &pol, &sd);
            char name[512];
            run_name(pl->plan, pt, pol, pl->plan->seed0 + sd, name,
                     sizeof name);
            pthread_mutex_lock(&pl->lock);
            if (!atomic_load(&pl->failed))
                err_set(&pl->err, "run %u (%s): %s", r, name, e.msg);
            atomic_store(&pl->failed, 1);
            pthread_mutex_unlock(&pl->lock);
            break;
        }
        atomic_fetch_add(&pl->done, 1);
    }
    sim_destroy(w->sim);
    w->sim = NULL;
    pthread_mutex_lock(&pl->lock);
    pl->running--;
    pthread_cond_signal(&pl->cond);
    pthread_mutex_unlock(&pl->lock);
    return NULL;
}

/* ---- Progress ------------------------------------------------------------ */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void eta_text(double s, char *buf, size_t len)
{
    if (!isfinite(s))
        snprintf(buf, len, "?");
    else if (s < 100)
        snprintf(buf, len, "%.0f s", s);
    else if (s < 6000)
        snprintf(buf, len, "%.0f min", s / 60);
    else
        snprintf(buf, len, "%.1f h", s / 3600);
}

/* A bar redrawn in place on a terminal; elsewhere (a log, CI) a line
 * now and then, since a bar's carriage returns make one endless line. */
static void progress(FILE *f, bool tty, unsigned done, unsigned total,
                     double elapsed, bool last)
{
    double rate = elapsed > 0 ? done / elapsed : 0;
    char eta[32];
    eta_text(rate > 0 ? (total - done) / rate : NAN, eta, sizeof eta);
    if (tty) {
        enum { WIDTH = 30 };
        char bar[WIDTH + 1];
        int full = total ? (int)((double)WIDTH * done / total) : WIDTH;
        for (int i = 0; i < WIDTH; i++)
            bar[i] = i < full ? '#' : '.';
        bar[WIDTH] = '\0';
        if (last)
            fprintf(f, "\r[%s] %u/%u run%s  %.0f runs/s  %s\n", bar, done,
                    total, total == 1 ? "" : "s", rate,
                    done < total ? "stopped" : "done    ");
        else
            fprintf(f, "\r[%s] %u/%u run%s  %.0f runs/s  ETA %s   ", bar, done,
                    total, total == 1 ? "" : "s", rate, eta);
    } else if (last) {
        fprintf(f, "compare: %u of %u run%s done in %.1f s (%.0f runs/s)%s\n",
                done, total, total == 1 ? "" : "s", elapsed, rate,
                done < total ? ", stopped" : "");
    } else {
        fprintf(f,
                "compare: %u of %u run%s done (%.0f %%), %.0f runs/s, "
                "about %s left\n",
                done, total, total == 1 ? "" : "s",
                total ? 100.0 * done / total : 100.0, rate, eta);
    }
    fflush(f);
}

/* Wait for the workers, drawing progress: every 0.2 s on a terminal,
 * every 10 s otherwise. */
static void watch(pool *pl, FILE *f)
{
    bool tty = f && isatty(fileno(f));
    double start = now_s(), shown = start;
    double every = tty ? 0.2 : 10.0;
    pthread_mutex_lock(&pl->lock);
    while (pl->running > 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 200 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&pl->cond, &pl->lock, &ts);
        double t = now_s();
        if (f && pl->running > 0 && t - shown >= every) {
            progress(f, tty, atomic_load(&pl->done), pl->n_todo, t - start,
                     false);
            shown = t;
        }
    }
    pthread_mutex_unlock(&pl->lock);
    if (f)
        progress(f, tty, atomic_load(&pl->done), pl->n_todo, now_s() - start,
                 true);
}

/* ---- Which runs to do ---------------------------------------------------- */

/* The runs without a whole saved record of this plan; one with a
 * damaged or stale record says why on the progress stream, and is run
 * again. */
static int list_todo(const compare_plan *p, const compare_opts *o, pool *pl,
                     sb_err *e)
{
    uint32_t total = o->only ? o->n_only : compare_n_runs(p);
    pl->todo = malloc((total ? total : 1) * sizeof *pl->todo);
    if (pl->todo == NULL)
        return err_set(e, "out of memory");
    runstore *st;
    if (runstore_open(p, &o->dir, 1, &st, e) != 0)
        return -1;
    pl->n_todo = 0;
    for (uint32_t i = 0; i < total; i++) {
        uint32_t r = o->only ? o->only[i] : i;
        if (r >= compare_n_runs(p)) {
            runstore_close(st);
            return err_set(e, "run %u: the plan has runs 0 to %u", r,
                           compare_n_runs(p) - 1);
        }
        if (runstore_has(st, r))
            continue;
        if (runstore_why(st, r) && o->progress)
            fprintf(o->progress, "compare: %s; running it again\n",
                    runstore_why(st, r));
        pl->todo[pl->n_todo++] = r;
    }
    pl->stale = runstore_stale(st);
    runstore_close(st);
    return 0;
}

static int start_workers(pool *pl, worker **ws, int jobs, sb_err *e)
{
    for (int i = 0; i < jobs; i++) {
        ws[i] = calloc(1, sizeof *ws[i]);
        if (ws[i] == NULL)
            return err_set(e, "out of memory");
        ws[i]->pool = pl;
        pthread_mutex_lock(&pl->lock);
        pl->running++;
        pthread_mutex_unlock(&pl->lock);
        if (pthread_create(&ws[i]->thread, NULL, worker_main, ws[i]) != 0) {
            pthread_mutex_lock(&pl->lock);
            pl->running--;
            pthread_mutex_unlock(&pl->lock);
            free(ws[i]);
            ws[i] = NULL;
            /* The threads started so far stop at their next run. */
            atomic_store(&pl->failed, 1);
            return err_set(e, "cannot start a thread");
        }
    }
    return 0;
}

static int jobs_for(const compare_opts *o, uint32_t n_todo)
{
    long jobs = o->jobs > 0 ? o->jobs : sysconf(_SC_NPROCESSORS_ONLN);
    if (jobs < 1)
        jobs = 1;
    if (jobs > (long)n_todo)
        jobs = (long)n_todo;
    return (int)jobs;
}

/* Why say it: a directory that keeps its stale records is one the user
 * might wonder about (it grows); one whose records were dropped has lost
 * files the user may have looked at. */
int compare_compact(const compare_plan *p, const char *dir, const char *who,
                    FILE *progress, sb_err *e)
{
    runstore_compaction c;
    if (runstore_compact(p, dir, &c, e) != 0)
        return -1;
    if (c.busy && progress)
        fprintf(progress,
                "%s: left %s/runs as it is: a job is still writing to it "
                "(its stale records go at the next compare or merge "
                "--compact)\n",
                who, dir);
    if (c.stale && progress)
        fprintf(progress,
                "%s: dropped %u stale saved %s (damaged, of another "
                "plan, or repeated) from %s/runs: its %u %s now %s/runs/"
                "compacted.runs\n",
                who, c.stale, c.stale == 1 ? "record" : "records", dir, c.files,
                c.files == 1 ? "file is" : "files are", dir);
    return 0;
}

int compare_execute(const compare_plan *p, const compare_opts *o, sb_err *e)
{
    pool pl;
    memset(&pl, 0, sizeof pl);
    pl.plan = p;
    pl.opts = o;
    char runs[1200];
    snprintf(runs, sizeof runs, "%s/runs/", o->dir);
    if (outfile_make_parents(runs, e) != 0)
        return -1;
    if (list_todo(p, o, &pl, e) != 0) {
        free(pl.todo);
        return -1;
    }
    int jobs = jobs_for(o, pl.n_todo);
    uint32_t asked = o->only ? o->n_only : compare_n_runs(p);
    if (o->progress && pl.n_todo < asked && asked == 1)
        fprintf(o->progress,
                "compare: the comparison's one run is saved already\n");
    else if (o->progress && pl.n_todo < asked)
        fprintf(o->progress, "compare: %u of %u runs are saved already%s\n",
                asked - pl.n_todo, asked,
                pl.n_todo ? "; running the rest" : "");
    worker **ws = calloc(jobs ? (size_t)jobs : 1, sizeof *ws);
    if (ws == NULL) {
        free(pl.todo);
        return err_set(e, "out of memory");
    }
    pthread_mutex_init(&pl.lock, NULL);
    pthread_cond_init(&pl.cond, NULL);
    int rc = start_workers(&pl, ws, jobs, e);
    watch(&pl, rc == 0 && pl.n_todo ? o->progress : NULL);
    for (int i = 0; i < jobs; i++) {
        if (ws[i] == NULL)
            continue;
        pthread_join(ws[i]->thread, NULL);
        sb_err ce;
        if (runfile_log_close(&ws[i]->log, &ce) != 0 && rc == 0 &&
            !atomic_load(&pl.failed)) {
            atomic_store(&pl.failed, 1);
            pl.err = ce;
        }
        runfile_buf_free(&ws[i]->buf);
        free(ws[i]);
    }
    free(ws);
    pthread_cond_destroy(&pl.cond);
    pthread_mutex_destroy(&pl.lock);
    if (rc == 0 && atomic_load(&pl.failed))
        rc = err_set(e, "%s", pl.err.msg);
    else if (rc == 0 && atomic_load(&pl.done) < pl.n_todo)
        rc = 1;
    free(pl.todo);
    /* The runs just made add no stale record (each was missing, and is
     * written once), so what the index found decides. */
    if (rc == 0 && o->only == NULL && pl.stale > 0)
        rc = compare_compact(p, o->dir, "compare", o->progress, e);
    return rc;
}
