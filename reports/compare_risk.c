/*
 * compare_risk.c -- the probability of a storm per policy for compare
 * (compare_risk.h).
 */
#include "compiler.h"
#include "compare_risk.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "riskfile.h"
#include "stats.h"

/* ---- Estimates ------------------------------------------------------------ */

/* The setup of policy pol at point pt: the point's configuration with the
 * comparison's first seed, the policy's parameters then the sweep's. */
static int estimate_one(const compare_plan *p, uint32_t pt, int pol,
                        const compare_risk_opts *o, risk_result *out, sb_err *e)
{
    const compare_point *point = &p->points[pt];
    const compare_policy *cp = &p->policies[pol];
    static _Thread_local sim_config cfg;
    cfg = point->cfg;
    cfg.seed = p->seed0;
    setting params[COMPARE_MAX_PARAMS + COMPARE_MAX_AXES];
    int n = 0;
    for (int i = 0; i < cp->n_params; i++)
        params[n++] = cp->params[i];
    for (int i = 0; i < point->n_policy_sets; i++)
        params[n++] = point->policy_sets[i];
    const char *plugins[COMPARE_MAX_PLUGINS];
    for (int i = 0; i < p->n_plugins; i++)
        plugins[i] = p->plugins[i];
    risk_setup su = {&cfg,    cp->stack,    params,        n,
                     plugins, p->n_plugins, o->horizon_ns, o->storm_window_ns,
                     0};
    return risk_estimate(&su, &o->ro, out, e);
}

uint32_t compare_risk_n_cells(const compare_plan *p)
{
    return p->n_points * (uint32_t)p->n_policies;
}

/* "policy 'immediate'", with the sweep point's values when there is a
 * sweep: " at clients.rate = 50/s". */
static void cell_name(const compare_plan *p, uint32_t pt, int pol, char *buf,
                      size_t len)
{
    size_t used =
        (size_t)snprintf(buf, len, "policy '%s'", p->policies[pol].label);
    for (int a = 0; a < p->n_axes && used < len; a++)
        used += (size_t)snprintf(buf + used, len - used, "%s %s = %g%s",
                                 a ? "," : " at", p->axes[a].key,
                                 p->points[pt].value[a], p->axes[a].unit);
}

static riskfile_key key_of(const compare_plan *p, const compare_risk_opts *o,
                           uint32_t pt, int pol)
{
    return (riskfile_key){p->fingerprint,         p->seed0, pt, pol,
                          p->policies[pol].label, o};
}

static void say_progress(FILE *progress, const compare_plan *p, uint32_t cell,
                         const risk_result *c, bool saved)
{
    int pol = (int)(cell % (uint32_t)p->n_policies);
    uint32_t pt = cell / (uint32_t)p->n_policies;
    char text[160];
    compare_risk_cell(c, text, sizeof text);
    fprintf(progress, "risk %u/%u: %s", cell + 1, compare_risk_n_cells(p),
            p->policies[pol].label);
    for (int a = 0; a < p->n_axes; a++)
        fprintf(progress, "%s %s = %g", a ? "," : " at", p->axes[a].key,
                p->points[pt].value[a]);
    fprintf(progress, ": %s%s\n", text, saved ? " (saved before)" : "");
}

int compare_risk_check(const compare_plan *p, const compare_risk_opts *o,
                       sb_err *e)
{
    for (uint32_t pt = 0; pt < p->n_points; pt++) {
        risk_setup su = {
            &p->points[pt].cfg, NULL, NULL, 0, NULL, 0, o->horizon_ns,
            o->storm_window_ns, 0};
        sb_err why;
        if (risk_check_setup(&su, &why) == 0)
            continue;
        if (p->n_axes == 0)
            return err_set(e, "--risk: %s", why.msg);
        /* the point's values, as cell_name says them */
        char at[600];
        size_t used = 0;
        at[0] = '\0';
        for (int a = 0; a < p->n_axes && used < sizeof at; a++)
            used += (size_t)snprintf(at + used, sizeof at - used, "%s%s = %g%s",
                                     a ? ", " : "", p->axes[a].key,
                                     p->points[pt].value[a], p->axes[a].unit);
        return err_set(e, "--risk at %s: %s", at, why.msg);
    }
    return 0;
}

/* Cell `cell`'s estimate into dir, unless a valid one is there. */
static int make_cell(const compare_plan *p, const compare_risk_opts *o,
                     const char *dir, uint32_t cell, FILE *progress, sb_err *e)
{
    int pol = (int)(cell % (uint32_t)p->n_policies);
    uint32_t pt = cell / (uint32_t)p->n_policies;
    riskfile_key k = key_of(p, o, pt, pol);
    char path[1200];
    riskfile_path(path, sizeof path, dir, pt, pol);
    static _Thread_local risk_result c;
    sb_err ignored; /* damaged or stale: made again, over it */
    if (riskfile_read(path, &k, &c, &ignored) == 0) {
        if (progress)
            say_progress(progress, p, cell, &c, true);
        return 0;
    }
    int rc = estimate_one(p, pt, pol, o, &c, e);
    if (rc > 0)
        return 1; /* Ctrl-C */
    if (rc != 0) {
        char name[sizeof e->msg]; /* whole: -O0 checks the cut */
        memcpy(name, e->msg, sizeof name);
        return err_set(e, "--risk: policy '%s': %s", p->policies[pol].label,
                       name);
    }
    if (riskfile_write(path, &k, &c, e) != 0)
        return -1;
    if (progress)
        say_progress(progress, p, cell, &c, false);
    return 0;
}

int compare_risk_make(const compare_plan *p, const compare_risk_opts *o,
                      const char *dir, const uint32_t *cells, uint32_t n_cells,
                      FILE *progress, sb_err *e)
{
    uint32_t n = cells ? n_cells : compare_risk_n_cells(p);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t cell = cells ? cells[i] : i;
        if (cell >= compare_risk_n_cells(p))
            return err_set(e, "risk estimate %u: the plan has %u", cell,
                           compare_risk_n_cells(p));
        if (o->ro.stop && atomic_load(o->ro.stop))
            return 1;
        int rc = make_cell(p, o, dir, cell, progress, e);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* "DIR/risk" or "DIR/risk, DIR2/risk": where the estimates were looked
 * for. */
static void dirs_text(const char *const *dirs, int n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s/risk",
                                 i ? ", " : "", dirs[i]);
}

/* Cell `cell` from the first directory with a valid record of it: 0; 1
 * when none has one (*why: the first record refused, "" for none). */
static int load_cell(const compare_plan *p, const compare_risk_opts *o,
                     const char *const *dirs, int n_dirs, uint32_t cell,
                     risk_result *c, sb_err *why)
{
    int pol = (int)(cell % (uint32_t)p->n_policies);
    uint32_t pt = cell / (uint32_t)p->n_policies;
    riskfile_key k = key_of(p, o, pt, pol);
    why->msg[0] = '\0';
    for (int d = 0; d < n_dirs; d++) {
        char path[1200];
        riskfile_path(path, sizeof path, dirs[d], pt, pol);
        sb_err e;
        int rc = riskfile_read(path, &k, c, &e);
        if (rc == 0)
            return 0;
        if (rc < 0 && why->msg[0] == '\0')
            *why = e;
    }
    return 1;
}

int compare_risk_load(const compare_plan *p, const compare_risk_opts *o,
                      const char *const *dirs, int n_dirs, compare_risk **out,
                      sb_err *e)
{
    compare_risk *r = calloc(1, sizeof *r);
    uint32_t cells = compare_risk_n_cells(p);
    if (r == NULL || (r->cell = calloc(cells, sizeof *r->cell)) == NULL) {
        free(r);
        return err_set(e, "out of memory");
    }
    r->o = *o;
    r->n_points = p->n_points;
    r->n_policies = p->n_policies;
    uint32_t missing = 0, first = 0;
    sb_err why = {{0}}, first_why = {{0}};
    for (uint32_t i = 0; i < cells; i++) {
        if (load_cell(p, o, dirs, n_dirs, i, &r->cell[i], &why) == 0)
            continue;
        if (missing++ == 0) {
            first = i;
            first_why = why;
        }
    }
    if (missing == 0) {
        *out = r;
        return 0;
    }
    compare_risk_free(r);
    char name[600], where[2048];
    cell_name(p, first / (uint32_t)p->n_policies,
              (int)(first % (uint32_t)p->n_policies), name, sizeof name);
    dirs_text(dirs, n_dirs, where, sizeof where);
    uint32_t job = compare_n_runs(p) + first;
    if (first_why.msg[0] && cells == 1)
        return err_set(
            e,
            "the comparison's one risk estimate is not usable in %s (%s: "
            "%s); run the same compare command again, which "
            "makes only what is missing, or its job with --run "
            "%u",
            where, name, first_why.msg, job);
    if (first_why.msg[0])
        return err_set(e,
                       "%u of %u risk estimates are not usable in %s (the "
                       "first: %s: %s); run the same compare command "
                       "again, which makes only what is missing, or its "
                       "job with --run %u",
                       missing, cells, where, name, first_why.msg, job);
    if (cells == 1)
        return err_set(
            e,
            "the comparison's one risk estimate is not saved in %s (%s); run "
            "the same compare command again, which makes only "
            "what is missing, or its job with --run %u",
            where, name, job);
    return err_set(e,
                   "%u of %u risk estimates are not saved in %s (the "
                   "first: %s); run the same compare command again, which "
                   "makes only what is missing, or its job with --run %u",
                   missing, cells, where, name, job);
}

void compare_risk_free(compare_risk *r)
{
    if (r == NULL)
        return;
    free(r->cell);
    free(r);
}

/* ---- Words ---------------------------------------------------------------- */

void compare_risk_pct(double p, char *buf, size_t len)
{
    double v = 100 * p;
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else if (v == 0)
        snprintf(buf, len, "0");
    else if (v >= 99.95)
        snprintf(buf, len, "100");
    else if (v >= 10)
        snprintf(buf, len, "%.1f", v);
    else if (v >= 0.01)
        snprintf(buf, len, "%#.3g", v); /* 9.00, 0.951: three digits */
    else
        snprintf(buf, len, "%.2e", v);
}

void compare_risk_cell(const risk_result *c, char *buf, size_t len)
{
    char p[32], lo[32], hi[32];
    compare_risk_pct(c->est.p, p, sizeof p);
    compare_risk_pct(c->est.lo, lo, sizeof lo);
    compare_risk_pct(c->est.hi, hi, sizeof hi);
    if (c->est.plain)
        snprintf(buf, len, "%s %% [%s, %s]; %llu of %llu run%s", p, lo, hi,
                 (unsigned long long)c->est.hit_trials,
                 (unsigned long long)c->est.trials,
                 c->est.trials == 1 ? "" : "s");
    else
        snprintf(buf, len,
                 "%s %% [%s, %s]; splitting, as precise as %.0f "
                 "runs",
                 p, lo, hi, c->est.effective_runs);
}

void compare_risk_horizon(const compare_risk *r, char *buf, size_t len)
{
    double s = (double)r->o.horizon_ns / 1e9;
    if (s >= 86400 && fmod(s, 86400) == 0)
        snprintf(buf, len, "within %g day%s", s / 86400, s == 86400 ? "" : "s");
    else if (s >= 3600 && fmod(s, 3600) == 0)
        snprintf(buf, len, "within %g h", s / 3600);
    else if (s >= 60 && fmod(s, 60) == 0)
        snprintf(buf, len, "within %g min", s / 60);
    else
        snprintf(buf, len, "within %g s", s);
}

static void say(char *buf, size_t len, size_t *used, const char *fmt, ...)
    SB_PRINTF(4, 5);
static void say(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
    if (*used >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, len - *used, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used += (size_t)n;
}

static void p_text(double p, char *buf, size_t len)
{
    if (!isfinite(p))
        snprintf(buf, len, "intervals apart");
    else if (p < 0.001)
        snprintf(buf, len, "p < 0.001");
    else
        snprintf(buf, len, "p = %.3f", p);
}

/* The p of best against other: Fisher's exact test on plain estimates;
 * a splitting estimate has no counts, so there: 0 when the intervals do
 * not overlap (NaN marks it), 1 when they do. */
static double versus(const risk_result *a, const risk_result *b)
{
    if (a->est.plain && b->est.plain)
        return stats_fisher_exact(a->est.hit_trials, a->est.trials,
                                  b->est.hit_trials, b->est.trials);
    return a->est.hi < b->est.lo || b->est.hi < a->est.lo ? NAN : 1;
}

static int by_risk(const risk_result *a, int ia, const risk_result *b, int ib)
{
    if (a->est.p != b->est.p)
        return a->est.p < b->est.p ? -1 : 1;
    if (a->est.hi != b->est.hi)
        return a->est.hi < b->est.hi ? -1 : 1;
    return ia - ib;
}

int compare_risk_verdict(const compare_result *r, uint32_t pt, int *best,
                         char *buf, size_t len)
{
    const compare_plan *p = r->plan;
    const compare_risk *k = r->risk;
    int n = p->n_policies, order[COMPARE_MAX_POLICIES];
    size_t used = 0;
    char h[64], a[32], b[32], c[32];
    compare_risk_horizon(k, h, sizeof h);
    if (best)
        *best = -1;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        int j = i;
        while (j > 0 &&
               by_risk(compare_risk_at(k, pt, order[j - 1]), order[j - 1],
                       compare_risk_at(k, pt, i), i) > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    const risk_result *top = compare_risk_at(k, pt, order[0]);
    const risk_result *last = compare_risk_at(k, pt, order[n - 1]);
    if (last->est.p == 0) {
        compare_risk_pct(last->est.hi, a, sizeof a);
        say(buf, len, &used,
            "no run of any policy tipped into a storm %s: "
            "each P(storm) is below %s %% (the widest 95 %% interval's "
            "top); more runs (--risk-runs) narrow it",
            h, a);
        return 0;
    }
    if (n == 1) {
        char cell[160];
        compare_risk_cell(top, cell, sizeof cell);
        say(buf, len, &used, "P(storm %s) = %s", h, cell);
        return 0;
    }
    /* The best against each other policy, Holm-adjusted. */
    double pv[COMPARE_MAX_POLICIES];
    bool apart[COMPARE_MAX_POLICIES] = {false};
    for (int i = 1; i < n; i++) {
        pv[i - 1] = versus(top, compare_risk_at(k, pt, order[i]));
        apart[i] = isnan(pv[i - 1]);
        if (apart[i])
            pv[i - 1] = 0;
    }
    (void)stats_out_of_memory(); /* a failure before this is not ours */
    stats_holm(pv, (size_t)(n - 1));
    if (stats_out_of_memory()) {
        snprintf(buf, len, "out of memory");
        return -1;
    }
    int leaders = 1;
    while (leaders < n && pv[leaders - 1] >= 0.05)
        leaders++;
    const risk_result *next = compare_risk_at(k, pt, order[1]);
    compare_risk_pct(top->est.p, a, sizeof a);
    compare_risk_pct(next->est.p, b, sizeof b);
    char pt_text[32];
    p_text(apart[1] ? NAN : pv[0], pt_text, sizeof pt_text);
    const char *test = !(top->est.plain && next->est.plain) ? "95 % intervals"
                       : n > 2 ? "Fisher's exact test, Holm-adjusted"
                               : "Fisher's exact test";
    if (leaders == n) {
        say(buf, len, &used,
            "nothing separates the policies: %s is least "
            "likely to tip into a storm %s (%s %%) against %s %% for %s, "
            "not significant (%s, %s); more runs (--risk-runs) would tell "
            "them apart",
            p->policies[order[0]].label, h, a, b, p->policies[order[1]].label,
            test, pt_text);
        return 0;
    }
    if (best)
        *best = leaders == 1 ? order[0] : -1;
    if (leaders == 1) {
        char lo[32], hi[32];
        compare_risk_pct(top->est.lo, lo, sizeof lo);
        compare_risk_pct(top->est.hi, hi, sizeof hi);
        /* The next best, with every policy whose estimate is the same
         * (the same blips tip them alike): named together, not one of
         * them picked by the order given. */
        char names[COMPARE_MAX_POLICIES * 170] = "";
        size_t nu = 0;
        int same = 0;
        for (int i = 1; i < n; i++) {
            const risk_result *c2 = compare_risk_at(k, pt, order[i]);
            if (c2->est.p != next->est.p || c2->est.hi != next->est.hi)
                break;
            same++;
        }
        for (int i = 1; i <= same; i++)
            say(names, sizeof names, &nu, "%s%s",
                i == 1      ? ""
                : i == same ? " and "
                            : ", ",
                p->policies[order[i]].label);
        say(buf, len, &used,
            "%s: least likely to tip into a storm %s, %s "
            "%% [%s, %s] vs %s %% for %s (the next best%s), significant "
            "(%s, %s)",
            p->policies[order[0]].label, h, a, lo, hi, b, names,
            same > 1 ? ", tied" : "", test, pt_text);
        return 0;
    }
    for (int i = 0; i < leaders; i++) {
        compare_risk_pct(compare_risk_at(k, pt, order[i])->est.p, c, sizeof c);
        say(buf, len, &used, "%s%s (%s %%)",
            i == 0             ? ""
            : i == leaders - 1 ? " and "
                               : ", ",
            p->policies[order[i]].label, c);
    }
    const risk_result *out = compare_risk_at(k, pt, order[leaders]);
    compare_risk_pct(out->est.p, c, sizeof c);
    p_text(apart[leaders] ? NAN : pv[leaders - 1], pt_text, sizeof pt_text);
    say(buf, len, &used,
        " tie for the least risk of a storm %s; %s%s "
        "tips significantly more often than %s (%s %%, %s, %s)",
        h, p->policies[order[leaders]].label,
        leaders + 1 < n ? " and the rest" : "", p->policies[order[0]].label, c,
        test, pt_text);
    return 0;
}

/* ---- summary.md and summary.json ------------------------------------------- */

/* Storms a day at the rate the estimate implies, as a table prints it. */
static void per_day(double rate_per_s, char *buf, size_t len)
{
    double d = rate_per_s * 86400;
    if (!isfinite(d))
        snprintf(buf, len, "-");
    else if (d == 0 || d >= 0.1)
        snprintf(buf, len, "%.2g", d);
    else
        snprintf(buf, len, "%.2e", d);
}

int compare_risk_md(FILE *f, const compare_result *r, uint32_t pt)
{
    const compare_risk *k = r->risk;
    char h[64], w[64], text[1200];
    compare_risk_horizon(k, h, sizeof h);
    snprintf(w, sizeof w, "%g s", (double)k->o.storm_window_ns / 1e9);
    fprintf(f, "\n### Risk of a storm %s\n\n", h);
    fprintf(f,
            "Each run: the scenario for the horizon under its faults' "
            "weather, seeds from %llu on; a storm: after the trigger is "
            "gone, goodput not back within 10 %% of baseline for %s in "
            "a row (`stormbench risk`).\n\n",
            (unsigned long long)r->plan->seed0, w);
    fputs("| policy | P(storm) (%) | 95 % interval (%) | runs tipped | "
          "storms a day | estimator |\n|---|--:|--:|--:|--:|---|\n",
          f);
    for (int pol = 0; pol < r->plan->n_policies; pol++) {
        const risk_result *c = compare_risk_at(k, pt, pol);
        char p[32], lo[32], hi[32], day[32];
        compare_risk_pct(c->est.p, p, sizeof p);
        compare_risk_pct(c->est.lo, lo, sizeof lo);
        compare_risk_pct(c->est.hi, hi, sizeof hi);
        per_day(c->rate_per_s, day, sizeof day);
        fprintf(f, "| `%s` | %s | [%s, %s] | ", r->plan->policies[pol].label, p,
                lo, hi);
        if (c->est.plain)
            fprintf(f, "%llu of %llu", (unsigned long long)c->est.hit_trials,
                    (unsigned long long)c->est.trials);
        else
            fputs("-", f);
        fprintf(f, " | %s | %s |\n", day,
                c->est.plain ? "plain Monte Carlo (Wilson)"
                             : "RESTART splitting (Student t)");
    }
    /* Why an estimate is not what the estimator column might suggest
     * (plain Monte Carlo because the pilot found no way up, or found
     * storms common): said under the table, once per policy. */
    bool noted = false;
    for (int pol = 0; pol < r->plan->n_policies; pol++) {
        const risk_result *c = compare_risk_at(k, pt, pol);
        if (c->note[0] == '\0')
            continue;
        if (!noted)
            fputs("\nNotes on the estimates:\n\n", f);
        noted = true;
        fprintf(f, "- `%s`: %s\n", r->plan->policies[pol].label, c->note);
    }
    if (compare_risk_verdict(r, pt, NULL, text, sizeof text) != 0)
        return -1;
    fprintf(f, "\n- **risk of a storm**: %s\n", text);
    return 0;
}

static void exact(jw *w, const char *key, double v)
{
    char buf[40] = "";
    for (int digits = 15; isfinite(v) && digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (buf[0])
        jw_number_text(w, key, buf);
    else
        jw_null(w, key);
}

int compare_risk_json(struct jw *w, const compare_result *r, uint32_t pt)
{
    const compare_risk *k = r->risk;
    const compare_plan *p = r->plan;
    jw_object(w, "risk");
    exact(w, "horizon_s", (double)k->o.horizon_ns / 1e9);
    exact(w, "storm_window_s", (double)k->o.storm_window_ns / 1e9);
    exact(w, "confidence", k->o.ro.confidence);
    jw_object(w, "policies");
    for (int pol = 0; pol < p->n_policies; pol++) {
        const risk_result *c = compare_risk_at(k, pt, pol);
        jw_object(w, p->policies[pol].label);
        jw_string(w, "estimator",
                  c->est.plain ? "plain Monte Carlo" : "RESTART");
        exact(w, "probability", c->est.p);
        exact(w, "lo", c->est.lo);
        exact(w, "hi", c->est.hi);
        jw_uint(w, "runs", c->est.trials);
        jw_uint(w, "runs_tipped", c->est.hit_trials);
        exact(w, "effective_runs", c->est.effective_runs);
        exact(w, "simulated_s", c->est.work);
        exact(w, "storms_per_day", c->rate_per_s * 86400);
        jw_end(w);
    }
    jw_end(w);
    int best;
    char text[1200];
    if (compare_risk_verdict(r, pt, &best, text, sizeof text) != 0)
        return -1;
    jw_string(w, "best", best >= 0 ? p->policies[best].label : NULL);
    jw_string(w, "verdict", text);
    jw_end(w);
    return 0;
}
