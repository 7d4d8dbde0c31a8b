/*
 * compare.c -- a comparison's plan, its metrics, and its results: the
 * saved runs loaded (from one directory, or several to merge), the
 * statistics across seeds, and the series bands the report draws.
 * Running is in compare_exec.c, the verdicts in compare_verdict.c, the
 * tables in compare_out.c.
 */
#include "compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs.h"
#include "outfile.h"
#include "runfile.h"
#include "runstore.h"

const double compare_cdf_q[COMPARE_CDF_POINTS] = {
    0.01,  0.025, 0.05,  0.075, 0.1,   0.125, 0.15,  0.175, 0.2,   0.225, 0.25,
    0.275, 0.3,   0.325, 0.35,  0.375, 0.4,   0.425, 0.45,  0.475, 0.5,   0.525,
    0.55,  0.575, 0.6,   0.625, 0.65,  0.675, 0.7,   0.725, 0.75,  0.775, 0.8,
    0.825, 0.85,  0.875, 0.9,   0.925, 0.95,  0.975, 0.99,  0.999};

/* compare.h's table, then the metric table's added counts (sim/metrics.h):
 * their JSON key and label. */
const compare_metric_info compare_metrics[CM_COUNT] = {
#define METRIC(id, key, label, phrase, unit, better, value)                    \
    {key, label, unit, better, phrase},
    COMPARE_METRICS(METRIC)
#undef METRIC
#define PHRASE_LOW "fewest "
#define PHRASE_HIGH "most "
#define INFO(f, reduce, in_summary, csv, json, label, compare)                 \
    METRICS_IF_##compare(                                                      \
        {json, label, "", METRICS_BETTER_##compare, PHRASE_##compare label}, )
        METRICS_ADDED(INFO)
#undef INFO
};

int compare_metric_field(compare_metric m)
{
    switch ((int)m) {
#define FIELD_OF(f, reduce, in_summary, csv, json, label, compare)             \
    METRICS_IF_##compare(case CM_##f : return MF_##f;)
        METRICS_ADDED(FIELD_OF)
#undef FIELD_OF
    default:
        return -1;
    }
}

const compare_metric_info compare_phase_figures[CP_COUNT] = {
#define PHASE_INFO(id, key, label, column, unit, better, json, print, scale,   \
                   value)                                                      \
    {key, label, unit, better, NULL},
    PHASES_FIGURES(PHASE_INFO)
#undef PHASE_INFO
};

const char *const compare_phase_columns[CP_COUNT] = {
#define PHASE_COLUMN(id, key, label, column, unit, better, json, print, scale, \
                     value)                                                    \
    column,
    PHASES_FIGURES(PHASE_COLUMN)
#undef PHASE_COLUMN
};

const compare_metric_info compare_tier_figures[TF_COUNT] = {
#define TIER_INFO(id, key, label, unit, better, value)                         \
    {key, label, unit, better, NULL},
    COMPARE_TIER_FIGURES(TIER_INFO)
#undef TIER_INFO
};

double compare_tier_value(const compare_run *r, uint32_t t, int f)
{
    if (t >= r->n_tiers || r->sum.offered == 0)
        return NAN;
    const compare_tier *ti = &r->tier[t];
    switch (f) {
#define TIER_VALUE(id, key, label, unit, better, value)                        \
    case TF_##id:                                                              \
        return (value);
        COMPARE_TIER_FIGURES(TIER_VALUE)
#undef TIER_VALUE
    default:
        return NAN;
    }
}

int compare_tier_lead_figure(const compare_result *r, uint32_t pt)
{
    /* The faults are the scenario's: all runs of a point share them. */
    for (int i = 0; i < r->plan->n_policies; i++)
        if (!isfinite(
                compare_tier_stat_at(r, pt, i, 0, TF_DURING_AMP)->ci.mean))
            return TF_AMPLIFICATION;
    return TF_DURING_AMP;
}

const char *compare_tier_name(const compare_plan *p, uint32_t t)
{
    return p->points[0].cfg.tiers[t].name;
}

/* ---- The plan ------------------------------------------------------------- */

double compare_axis_value(const compare_axis *a, uint32_t i)
{
    return a->from + (double)i * a->step;
}

uint32_t compare_n_runs(const compare_plan *p)
{
    return p->n_points * (uint32_t)p->n_policies * p->n_seeds;
}

void compare_run_at(const compare_plan *p, uint32_t r, uint32_t *point,
                    uint32_t *policy, uint32_t *seed)
{
    *seed = r % p->n_seeds;
    r /= p->n_seeds;
    *policy = r % (uint32_t)p->n_policies;
    *point = r / (uint32_t)p->n_policies;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
    return runfile_hash(h, s, strlen(s) + 1); /* the NUL separates */
}

static uint64_t hash_num(uint64_t h, double v)
{
    char t[40];
    snprintf(t, sizeof t, "%.17g", v);
    return hash_str(h, t);
}

/* The plan's own hash, from h on: the scenario and sets (extra), the
 * policies, the sweeps, the plug-ins. */
static uint64_t hash_plan(uint64_t h, const compare_plan *plan,
                          const void *extra, size_t extra_len)
{
    h = runfile_hash(h, extra, extra_len);
    for (int i = 0; i < plan->n_policies; i++) {
        const compare_policy *cp = &plan->policies[i];
        h = hash_str(hash_str(h, cp->label), cp->stack);
        for (int j = 0; j < cp->n_params; j++)
            h = hash_str(hash_str(h, cp->params[j].key), cp->params[j].value);
    }
    for (int a = 0; a < plan->n_axes; a++) {
        const compare_axis *ax = &plan->axes[a];
        h = hash_str(hash_str(h, ax->key), ax->unit);
        h = hash_num(hash_num(hash_num(h, ax->from), ax->to), ax->step);
        h = hash_num(hash_num(h, ax->n), ax->policy_param);
    }
    for (int i = 0; i < plan->n_plugins; i++)
        h = hash_str(h, plan->plugins[i]);
    return h;
}

/* The seeds are left out: a run is saved under its seed, so asking for
 * more seeds later reuses the runs already made. */
void compare_plan_fingerprint(compare_plan *plan, const void *extra,
                              size_t extra_len)
{
    uint64_t h = hash_str(RUNFILE_FNV, "stormbench " SB_VERSION);
    h = hash_num(h, RUNFILE_VERSION);
    h = hash_plan(h, plan, extra, extra_len);
    snprintf(plan->fingerprint, sizeof plan->fingerprint, "%016llx",
             (unsigned long long)h);
    h = hash_plan(RUNFILE_FNV, plan, extra, extra_len);
    snprintf(plan->identity, sizeof plan->identity, "%016llx",
             (unsigned long long)h);
}

#define CLAIM_MAGIC "stormbench-comparison 1"

/* DIR/comparison: the magic, the identity, and for people the scenario
 * and the policies. */
int compare_claim_dir(const compare_plan *p, const char *dir, bool force,
                      sb_err *e)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/comparison", dir);
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        char magic[64] = "", id[64] = "", name[512] = "";
        bool ok = fgets(magic, sizeof magic, f) && fgets(id, sizeof id, f);
        if (ok && fgets(name, sizeof name, f))
            name[strcspn(name, "\n")] = '\0';
        fclose(f);
        bool same = ok &&
                    strncmp(magic, CLAIM_MAGIC, strlen(CLAIM_MAGIC)) == 0 &&
                    strncmp(id, "identity ", 9) == 0 &&
                    strncmp(id + 9, p->identity, 16) == 0;
        if (same)
            return 0; /* written already: emitted jobs share it */
        if (!force)
            return err_set(e,
                           "%s holds another comparison (%s): choose "
                           "another -o DIR, or add --force to replace its "
                           "results",
                           dir, name[0] ? name : "unreadable");
    }
    outfile o;
    if (outfile_open(&o, path, e) != 0)
        return -1;
    fprintf(o.f, "%s\nidentity %s\n%s, %d %s:", CLAIM_MAGIC, p->identity,
            p->name, p->n_policies, p->n_policies == 1 ? "policy" : "policies");
    for (int i = 0; i < p->n_policies; i++)
        fprintf(o.f, "%s %s", i ? "," : "", p->policies[i].label);
    for (int a = 0; a < p->n_axes; a++)
        fprintf(o.f, "%s %s", a ? "," : "; sweeping", p->axes[a].key);
    fputc('\n', o.f);
    return outfile_commit(&o, e);
}

/* ---- Metrics --------------------------------------------------------------- */

bool compare_metric_shown(const compare_plan *p, compare_metric m)
{
    /* The pipeline's are JOBS_COMPLETED to JOB_BLOCKED_S: a metric the
     * table gains after them is every run's. */
    if (m < CM_JOBS_COMPLETED || m > CM_JOB_BLOCKED_S)
        return true;
    for (uint32_t i = 0; i < p->n_points; i++)
        if (p->points[i].cfg.pipeline.n_steps > 0)
            return true;
    return false;
}

/* A run's value of metric m, as compare.h's table computes it. */
double compare_metric_of(const compare_run *r, compare_metric m)
{
    const sim_summary *s = &r->sum;
    if (m >= CM_FIRST_ADDED)
        return (double)summary_count(s, compare_metric_field(m));
    switch (m) {
#define VALUE(id, key, label, phrase, unit, better, value)                     \
    case CM_##id:                                                              \
        return value;
        COMPARE_METRICS(VALUE)
#undef VALUE
    default:
        return NAN;
    }
}

int compare_metric_failed(const compare_plan *p, const compare_run *r,
                          compare_metric m)
{
    const sim_summary *s = &r->sum;
    if (m == CM_RECOVERY_S)
        return s->recovery_judged ? !s->recovered : -1;
    if (m == CM_COMPLETION_S &&
        p->points[r->point].cfg.clients.arrival == ARRIVAL_ONCE)
        return !s->has_completion;
    return -1;
}

double compare_phase_value(const compare_run *r, compare_phase_kind k,
                           int field)
{
    const compare_phase *ph = &r->sum.phase[k];
    if (!ph->present)
        return NAN;
    switch (field) {
#define PHASE_VALUE(id, key, label, column, unit, better, json, print, scale,  \
                    value)                                                     \
    case CP_##id:                                                              \
        return (scale) * (value);
        PHASES_FIGURES(PHASE_VALUE)
#undef PHASE_VALUE
    default:
        return NAN;
    }
}

/* ---- Loading --------------------------------------------------------------- */

static void dirs_text(const char *const *dirs, int n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s/runs",
                                 i ? ", " : "", dirs[i]);
}

/* A policy parameter's sweep changes no scenario key, so it cannot
 * contradict the description; any other axis can. */
void compare_description_text(const compare_plan *p, char *buf, size_t len)
{
    int keys[COMPARE_MAX_AXES], n = 0;
    for (int a = 0; a < p->n_axes; a++)
        if (!p->axes[a].policy_param)
            keys[n++] = a;
    size_t dl = strlen(p->description);
    if (n == 0 || dl == 0) {
        snprintf(buf, len, "%s", p->description);
        return;
    }
    bool stop = strchr(".!?", p->description[dl - 1]) != NULL;
    size_t used = (size_t)snprintf(buf, len,
                                   "The scenario as written: %s%s This "
                                   "comparison sweeps ",
                                   p->description, stop ? "" : ".");
    for (int i = 0; i < n && used < len; i++) {
        const char *key = p->axes[keys[i]].key;
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 i == 0       ? ""
                                 : i == n - 1 ? " and "
                                              : ", ",
                                 strcmp(key, "load") == 0 ? "the offered load"
                                                          : key);
    }
    if (used < len)
        snprintf(buf + used, len - used, ".");
}

void compare_run_name(const compare_plan *p, uint32_t r, char *buf, size_t len)
{
    uint32_t pt, pol, sd;
    compare_run_at(p, r, &pt, &pol, &sd);
    size_t used = (size_t)snprintf(buf, len, "run %u: policy '%s', seed %llu",
                                   r, p->policies[pol].label,
                                   (unsigned long long)(p->seed0 + sd));
    for (int a = 0; a < p->n_axes && used < len; a++)
        used += (size_t)snprintf(buf + used, len - used, ", %s = %g%s",
                                 p->axes[a].key, p->points[pt].value[a],
                                 p->axes[a].unit);
}

/* A saved run's steps have no names in its file (runfile.h): they are
 * the scenario's, which outlives the result. */
static void name_steps(const compare_plan *p, compare_run *r)
{
    const pipeline_cfg *pc = &p->points[r->point].cfg.pipeline;
    sim_pipeline_summary *pl = &r->sum.pipeline;
    for (uint32_t i = 0; i < pl->steps && i < pc->n_steps; i++)
        pl->step[i].name = pc->steps[i].name;
}

/* Every run of the plan into res->runs, from the saved records the
 * store indexed; what is missing or unusable is one error naming the
 * first of them and what to do. */
static int load_runs(compare_result *res, runstore *st, const char *const *dirs,
                     int n_dirs, sb_err *e)
{
    const compare_plan *p = res->plan;
    uint32_t n = compare_n_runs(p), missing = 0, bad = 0, first_missing = 0;
    sb_err bad_why;
    char name[600];
    for (uint32_t r = 0; r < n; r++) {
        sb_err why = {""};
        int rc = runstore_read(st, r, &res->runs[r], NULL, &why);
        /* A run saved without its tiers (by a stormbench that did not
         * keep them) cannot fill the tiers' tables: run it again. */
        uint32_t want = p->points[res->runs[r].point].cfg.n_tiers;
        if (rc == 0 && res->runs[r].n_tiers != want)
            rc = err_set(&why,
                         "saved without the scenario's %u tiers (by "
                         "an older stormbench)",
                         want);
        if (rc == 0) {
            name_steps(p, &res->runs[r]);
            continue;
        }
        if (rc > 0 && runstore_why(st, r)) {
            rc = -1;
            err_set(&why, "%s", runstore_why(st, r));
        }
        if (rc > 0 && missing++ == 0)
            first_missing = r;
        if (rc < 0 && bad++ == 0) {
            compare_run_name(p, r, name, sizeof name);
            err_set(&bad_why, "%s: %s", name, why.msg);
        }
    }
    if (bad)
        return err_set(e,
                       "%s%s; run the same compare command again: it "
                       "runs what is missing or unusable again",
                       bad_why.msg,
                       bad > 1 ? " (and more saved runs like it)" : "");
    if (missing) {
        char where[2048];
        dirs_text(dirs, n_dirs, where, sizeof where);
        compare_run_name(p, first_missing, name, sizeof name);
        if (n == 1)
            return err_set(
                e,
                "the comparison's one run is not saved in %s (%s); "
                "run the same compare command again, which runs only "
                "what is missing, or its job with --run %u",
                where, name, first_missing);
        return err_set(e,
                       "%u of %u runs are not saved in %s (the first: "
                       "%s); run the same compare command again, which "
                       "runs only what is missing, or its job with --run %u",
                       missing, n, where, name, first_missing);
    }
    return 0;
}

/* ---- Statistics ------------------------------------------------------------- */

/* The figure over the seeds, its interval cut to the unit's domain
 * (compare.h above compare_stat says why). */
static void stat_of(const double *v, uint32_t n, const char *unit,
                    compare_stat *st)
{
    stats_mean_ci(v, n, 0.95, &st->ci);
    st->median = stats_quantile(v, n, 0.5);
    st->missing = n - (uint32_t)st->ci.n;
    if (isfinite(st->ci.lo))
        st->ci.lo = fmax(st->ci.lo, 0.0);
    if (isfinite(st->ci.hi) && strcmp(unit, "%") == 0)
        st->ci.hi = fmin(st->ci.hi, 100.0);
}

static const compare_run *run_of(const compare_result *res, uint32_t pt,
                                 int pol, uint32_t sd)
{
    const compare_plan *p = res->plan;
    return &res->runs[((size_t)pt * (size_t)p->n_policies + (size_t)pol) *
                          p->n_seeds +
                      sd];
}

static void compute_stats(compare_result *res, double *v)
{
    const compare_plan *p = res->plan;
    for (uint32_t pt = 0; pt < p->n_points; pt++)
        for (int pol = 0; pol < p->n_policies; pol++) {
            size_t at = (size_t)pt * (size_t)p->n_policies + (size_t)pol;
            for (int m = 0; m < CM_COUNT; m++) {
                for (uint32_t sd = 0; sd < p->n_seeds; sd++)
                    v[sd] = compare_metric_of(run_of(res, pt, pol, sd), m);
                stat_of(v, p->n_seeds, compare_metrics[m].unit,
                        &res->stat[at * CM_COUNT + m]);
            }
            for (int k = 0; k < PHASE_COUNT; k++)
                for (int f = 0; f < CP_COUNT; f++) {
                    for (uint32_t sd = 0; sd < p->n_seeds; sd++)
                        v[sd] =
                            compare_phase_value(run_of(res, pt, pol, sd), k, f);
                    stat_of(v, p->n_seeds, compare_phase_figures[f].unit,
                            &res->phase_stat[(at * PHASE_COUNT + k) * CP_COUNT +
                                             f]);
                }
            for (uint32_t t = 0; t < res->n_tiers; t++)
                for (int f = 0; f < TF_COUNT; f++) {
                    for (uint32_t sd = 0; sd < p->n_seeds; sd++)
                        v[sd] =
                            compare_tier_value(run_of(res, pt, pol, sd), t, f);
                    stat_of(v, p->n_seeds, compare_tier_figures[f].unit,
                            &res->tier_stat[(at * res->n_tiers + t) * TF_COUNT +
                                            f]);
                }
        }
}

static int alloc_result(const compare_plan *p, compare_result **out, sb_err *e)
{
    compare_result *res = calloc(1, sizeof *res);
    size_t cells = (size_t)p->n_points * (size_t)p->n_policies;
    if (res) {
        res->plan = p;
        res->runs = calloc(compare_n_runs(p) ? compare_n_runs(p) : 1,
                           sizeof *res->runs);
        res->stat = calloc(cells * CM_COUNT, sizeof *res->stat);
        res->phase_stat =
            calloc(cells * PHASE_COUNT * CP_COUNT, sizeof *res->phase_stat);
        res->verdict =
            calloc((size_t)p->n_points * CM_COUNT, sizeof *res->verdict);
        res->n_tiers = p->points[0].cfg.n_tiers;
        res->tier_stat =
            calloc(cells * (res->n_tiers ? res->n_tiers : 1) * TF_COUNT,
                   sizeof *res->tier_stat);
    }
    if (res == NULL || !res->runs || !res->stat || !res->phase_stat ||
        !res->verdict || !res->tier_stat) {
        compare_result_free(res);
        return err_set(e, "out of memory for %u runs", compare_n_runs(p));
    }
    *out = res;
    return 0;
}

int compare_load(const compare_plan *p, const char *const *dirs, int n_dirs,
                 compare_result **out, sb_err *e)
{
    *out = NULL;
    if (p->n_policies < 1 || p->n_seeds < 1 || p->n_points < 1)
        return err_set(e,
                       "an empty comparison: %d policies, %u seeds, %u "
                       "points",
                       p->n_policies, p->n_seeds, p->n_points);
    compare_result *res;
    if (alloc_result(p, &res, e) != 0)
        return -1;
    double *v = malloc((size_t)p->n_seeds * sizeof *v);
    if (v == NULL) {
        compare_result_free(res);
        return err_set(e, "out of memory");
    }
    if (runstore_open(p, dirs, n_dirs, &res->saved, e) != 0 ||
        load_runs(res, res->saved, dirs, n_dirs, e) != 0) {
        free(v);
        compare_result_free(res);
        return -1;
    }
    (void)stats_out_of_memory(); /* a failure before this is not ours */
    compute_stats(res, v);
    free(v);
    for (uint32_t pt = 0; pt < p->n_points; pt++)
        for (int m = 0; m < CM_COUNT; m++)
            if (compare_verdict_at(res, pt, m,
                                   &res->verdict[(size_t)pt * CM_COUNT + m],
                                   e) != 0) {
                compare_result_free(res);
                return -1;
            }
    /* A median or a test that lost its memory is NaN, not a result. */
    if (stats_out_of_memory()) {
        compare_result_free(res);
        return err_set(e, "out of memory computing the statistics");
    }
    *out = res;
    return 0;
}

void compare_result_free(compare_result *r)
{
    if (r == NULL)
        return;
    free(r->runs);
    free(r->stat);
    free(r->phase_stat);
    free(r->verdict);
    free(r->tier_stat);
    runstore_close(r->saved);
    free(r);
}

/* ---- Series bands --------------------------------------------------------- */

static void band_cell(const compare_series *all, uint32_t n, uint32_t row,
                      int col, double *v, compare_series *lo,
                      compare_series *mid, compare_series *hi)
{
    for (uint32_t s = 0; s < n; s++)
        v[s] = row < all[s].n_rows ? (double)all[s].v[row][col] : NAN;
    lo->v[row][col] = (float)stats_quantile(v, n, 0.1);
    mid->v[row][col] = (float)stats_quantile(v, n, 0.5);
    hi->v[row][col] = (float)stats_quantile(v, n, 0.9);
}

int compare_series_bands(const compare_result *r, const char *const *dirs,
                         int n_dirs, uint32_t point, int policy,
                         compare_series *lo, compare_series *mid,
                         compare_series *hi, sb_err *e)
{
    const compare_plan *p = r->plan;
    if (point >= p->n_points || policy < 0 || policy >= p->n_policies)
        return err_set(e, "no point %u, policy %d in the plan", point, policy);
    uint32_t n = p->n_seeds;
    compare_series *all = malloc((size_t)n * sizeof *all);
    double *v = malloc((size_t)n * sizeof *v);
    compare_run *tmp = malloc(sizeof *tmp);
    runstore *st = r->saved, *own = NULL;
    int rc = all && v && tmp ? 0 : err_set(e, "out of memory");
    if (rc == 0 && st == NULL) {
        rc = runstore_open(p, dirs, n_dirs, &own, e);
        st = own;
    }
    uint32_t rows = 0;
    for (uint32_t s = 0; s < n && rc == 0; s++) {
        uint32_t run =
            ((point * (uint32_t)p->n_policies) + (uint32_t)policy) * n + s;
        int got = runstore_read(st, run, tmp, &all[s], e);
        if (got > 0) {
            char name[600];
            compare_run_name(p, run, name, sizeof name);
            got = err_set(e, "%s: its saved file is gone", name);
        }
        rc = got;
        if (rc == 0 && all[s].n_rows > rows)
            rows = all[s].n_rows;
    }
    (void)stats_out_of_memory();
    for (uint32_t row = 0; row < rows && rc == 0; row++)
        for (int c = 0; c < CC_COUNT; c++)
            band_cell(all, n, row, c, v, lo, mid, hi);
    if (rc == 0 && stats_out_of_memory())
        rc = err_set(e, "out of memory computing the series' bands");
    if (rc == 0) {
        lo->n_rows = mid->n_rows = hi->n_rows = rows;
        lo->row_s = mid->row_s = hi->row_s = all[0].row_s;
    }
    runstore_close(own);
    free(all);
    free(v);
    free(tmp);
    return rc;
}
