/*
 * compare_out.c -- a comparison's tables: runs.csv (every run, every
 * figure, for other tools), summary.md (the results for a pull request)
 * and summary.json (the same numbers for programs).
 *
 * summary.md and summary.json print every statistic through
 * compare_stat_numbers, so the two carry the same digits: a test (and a
 * reader) can check one against the other.  Nothing in them depends on
 * the clock or on the order the runs finished in.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "compare_risk.h"
#include "json.h"
#include "outfile.h"
#include "runfile.h"

/* Writes the file; 0, or -1 when out of memory (the file is dropped). */
typedef int (*writer_fn)(FILE *f, const compare_result *r);

static int write_file(const compare_result *r, const char *path, writer_fn fn,
                      sb_err *e)
{
    outfile o;
    if (outfile_open(&o, path, e) != 0)
        return -1;
    if (fn(o.f, r) != 0) {
        outfile_abort(&o);
        return err_set(e, "%s: out of memory computing the statistics", path);
    }
    return outfile_commit(&o, e);
}

static const compare_run *run_of(const compare_result *r, uint32_t pt, int pol,
                                 uint32_t sd)
{
    const compare_plan *p = r->plan;
    return &r->runs[((size_t)pt * (size_t)p->n_policies + (size_t)pol) *
                        p->n_seeds +
                    sd];
}

/* An axis value as written in its unit: "50", "2.5s". */
static void axis_value_text(const compare_plan *p, uint32_t pt, int a,
                            char *buf, size_t len)
{
    snprintf(buf, len, "%.10g%s", p->points[pt].value[a], p->axes[a].unit);
}

/* ---- runs.csv -------------------------------------------------------------- */

/* RFC 4180: a field with a comma, quote or line break is quoted. */
static void csv_text(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n\r") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A value read back exactly; NaN as an empty cell. */
static void csv_num(FILE *f, double v)
{
    char t[40];
    fputc(',', f);
    if (isnan(v))
        return;
    runfile_double_text(v, t, sizeof t);
    fputs(t, f);
}

static bool is_metric_key(const char *name)
{
    for (int m = 0; m < CM_COUNT; m++)
        if (strcmp(compare_metrics[m].key, name) == 0)
            return true;
    return false;
}

static void csv_header(FILE *f, const compare_plan *p)
{
    fputs("run,point", f);
    for (int a = 0; a < p->n_axes; a++) {
        fputc(',', f);
        csv_text(f, p->axes[a].key);
    }
    fputs(",policy,seed", f);
    for (int m = 0; m < CM_COUNT; m++)
        if (compare_metric_shown(p, m))
            fprintf(f, ",%s", compare_metrics[m].key);
    for (size_t i = 0; i < runfile_n_summary_fields; i++)
        if (!is_metric_key(runfile_summary_fields[i].name))
            fprintf(f, ",%s", runfile_summary_fields[i].name);
    for (int k = 0; k < PHASE_COUNT; k++) {
        fprintf(f, ",%s_from_s,%s_to_s", phases_name(k), phases_name(k));
        for (int c = 0; c < CP_COUNT; c++)
            fprintf(f, ",%s_%s", phases_name(k), compare_phase_figures[c].key);
    }
    if (compare_metric_shown(p, CM_JOBS_COMPLETED)) {
        fputs(",pipeline_strategy", f);
        for (size_t i = 0; i < runfile_n_pipeline_fields; i++)
            fprintf(f, ",pipeline_%s", runfile_pipeline_fields[i].name);
    }
    for (uint32_t t = 0; t < p->points[0].cfg.n_tiers; t++) {
        const char *name = compare_tier_name(p, t);
        fprintf(f, ",%s.calls,%s.attempts", name, name);
        for (int c = 0; c < TF_COUNT; c++)
            fprintf(f, ",%s.%s", name, compare_tier_figures[c].key);
    }
    fputc('\n', f);
}

/* A service chain's tiers (runs.csv's last columns, only in a comparison
 * of a chain). */
static void csv_tiers(FILE *f, const compare_plan *p, const compare_run *run)
{
    for (uint32_t t = 0; t < p->points[0].cfg.n_tiers; t++) {
        if (t >= run->n_tiers) {
            fputs(",,", f);
            for (int c = 0; c < TF_COUNT; c++)
                fputc(',', f);
            continue;
        }
        fprintf(f, ",%llu,%llu", (unsigned long long)run->tier[t].calls,
                (unsigned long long)run->tier[t].attempts);
        for (int c = 0; c < TF_COUNT; c++)
            csv_num(f, compare_tier_value(run, t, c));
    }
}

/* A pipeline's figures (runs.csv's last columns, only in a comparison of
 * a pipeline); empty cells for a run without one. */
static void csv_pipeline(FILE *f, const compare_run *run)
{
    const sim_pipeline_summary *pl = &run->sum.pipeline;
    if (!run->sum.has_pipeline) {
        for (size_t i = 0; i <= runfile_n_pipeline_fields; i++)
            fputc(',', f);
        return;
    }
    fprintf(f, ",%s", pipeline_strategy_name(pl->strategy));
    for (size_t i = 0; i < runfile_n_pipeline_fields; i++) {
        char t[40];
        runfile_value_text(pl, &runfile_pipeline_fields[i], t, sizeof t);
        fprintf(f, ",%s", strcmp(t, "nan") == 0 ? "" : t);
    }
}

/* A summary field that has no value in this run, though the summary
 * holds a number there: the latency of successes when none succeeded,
 * of attempts when none ended (a p99 of 0.000 ms would read as fast). */
static bool no_value(const sim_summary *s, const runfile_field *sf)
{
    if (strncmp(sf->name, "latency_", 8) == 0)
        return s->successes == 0;
    if (strncmp(sf->name, "attempt_", 8) == 0)
        return s->attempts_ended == 0;
    return false;
}

static void csv_row(FILE *f, const compare_plan *p, uint32_t n,
                    const compare_run *run)
{
    fprintf(f, "%u,%u", n, run->point);
    for (int a = 0; a < p->n_axes; a++)
        csv_num(f, p->points[run->point].value[a]);
    fputc(',', f);
    csv_text(f, p->policies[run->policy].label);
    fprintf(f, ",%llu", (unsigned long long)run->seed);
    for (int m = 0; m < CM_COUNT; m++)
        if (compare_metric_shown(p, m))
            csv_num(f, compare_metric_of(run, m));
    for (size_t i = 0; i < runfile_n_summary_fields; i++) {
        const runfile_field *sf = &runfile_summary_fields[i];
        char t[40];
        if (is_metric_key(sf->name))
            continue;
        runfile_field_text(&run->sum, sf, t, sizeof t);
        fprintf(f, ",%s",
                strcmp(t, "nan") == 0 || no_value(&run->sum, sf) ? "" : t);
    }
    for (int k = 0; k < PHASE_COUNT; k++) {
        const compare_phase *ph = &run->sum.phase[k];
        csv_num(f, ph->present ? ph->from_s : NAN);
        csv_num(f, ph->present ? ph->to_s : NAN);
        for (int c = 0; c < CP_COUNT; c++)
            csv_num(f, compare_phase_value(run, k, c));
    }
    if (compare_metric_shown(p, CM_JOBS_COMPLETED))
        csv_pipeline(f, run);
    csv_tiers(f, p, run);
    fputc('\n', f);
}

static int csv_all(FILE *f, const compare_result *r)
{
    csv_header(f, r->plan);
    for (uint32_t i = 0; i < compare_n_runs(r->plan); i++)
        csv_row(f, r->plan, i, &r->runs[i]);
    return 0;
}

int compare_write_csv(const compare_result *r, const char *path, sb_err *e)
{
    return write_file(r, path, csv_all, e);
}

/* ---- What both summaries say ---------------------------------------------- */

void compare_failures(const compare_result *r, uint32_t pt, int pol,
                      compare_metric m, uint32_t *failed, uint32_t *applies)
{
    *failed = *applies = 0;
    for (uint32_t sd = 0; sd < r->plan->n_seeds; sd++) {
        int f = compare_metric_failed(r->plan, run_of(r, pt, pol, sd), m);
        *failed += f == 1;
        *applies += f >= 0;
    }
}

void compare_tipping_counts(uint32_t k, uint32_t n, compare_tipping *out)
{
    memset(out, 0, sizeof *out);
    out->tipped = k;
    out->n = n;
    out->share = out->lo = out->hi = NAN;
    out->stability = CS_UNJUDGED;
    if (n == 0)
        return;
    out->share = (double)k / (double)n;
    stats_wilson(k, n, 0.95, &out->lo, &out->hi);
    int side = stats_wilson_side(k, n, 0.95, 0.5);
    out->stability = side < 0   ? CS_STABLE
                     : side > 0 ? CS_METASTABLE
                                : CS_BISTABLE;
    out->bistable = out->stability == CS_BISTABLE;
    out->too_few = out->bistable && (k == 0 || k == n);
}

void compare_tipping_of(const compare_result *r, uint32_t pt, int pol,
                        compare_tipping *out)
{
    uint32_t k, n;
    compare_failures(r, pt, pol, CM_RECOVERY_S, &k, &n);
    compare_tipping_counts(k, n, out);
}

const char *compare_stability_name(compare_stability s)
{
    static const char *const names[] = {"not judged", "stable", "bistable",
                                        "metastable"};
    return names[s];
}

const char *compare_tipping_call(const compare_tipping *t)
{
    return t->too_few ? "too few seeds to tell"
                      : compare_stability_name(t->stability);
}

const char *compare_tipping_json_name(const compare_tipping *t)
{
    return t->too_few ? "too few seeds" : compare_stability_name(t->stability);
}

uint32_t compare_tipping_seeds(uint32_t against)
{
    return (uint32_t)stats_wilson_min_n(against, 0.95, 0.5);
}

/* The arithmetic is Wilson's (stats_wilson), not a rounded z^2 = 3.84
 * written here: the figures printed are the ones the maps use. */
void compare_tipping_caveat(uint32_t n, const char *noun, char *buf, size_t len)
{
    uint32_t n0 = compare_tipping_seeds(0), n1 = compare_tipping_seeds(1);
    double lo, hi, hi0, hi1;
    stats_wilson(0, n, 0.95, &lo, &hi);
    stats_wilson(0, n0, 0.95, &lo, &hi0);
    stats_wilson(1, n1, 0.95, &lo, &hi1);
    snprintf(buf, len,
             "With %u seed%s a %s, no %s can be called stable or "
             "metastable: even when every seed agrees, the 95 %% interval "
             "of the share that never recovered holds one half (0 of %u: 0 "
             "to %.0f %%), too few seeds to tell. It takes %u seeds "
             "agreeing to call one (0 of %u: up to %.0f %%), or %u with one "
             "seed the other way (1 of %u: up to %.0f %%).",
             n, n == 1 ? "" : "s", noun, noun, n, 100.0 * hi, n0, n0,
             100.0 * hi0, n1, n1, 100.0 * hi1);
}

/* A phase's span at a point, as text in seconds ("15", "37.5"); false
 * when the phase is not present.  The span is the same for every run of
 * the point (faults are in the scenario), so the first policy's first
 * seed says it. */
static bool phase_span(const compare_result *r, uint32_t pt, int k, char *from,
                       char *to, size_t len)
{
    const compare_phase *ph = &run_of(r, pt, 0, 0)->sum.phase[k];
    if (!ph->present)
        return false;
    snprintf(from, len, "%.6g", ph->from_s);
    snprintf(to, len, "%.6g", ph->to_s);
    return true;
}

/* ---- summary.md ------------------------------------------------------------ */

/* Text for a Markdown table cell: '|' escaped, line breaks as spaces. */
static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else
            fputc(*s == '\n' ? ' ' : *s, f);
    }
}

/* "99.2 [98.9, 99.5]", "3.00" (one value), "-" (none); with " (3
 * seeds)" when the figure comes from fewer seeds than the comparison's. */
static void md_stat(FILE *f, const compare_stat *st, uint32_t n_seeds)
{
    compare_numbers n;
    compare_stat_numbers(st, &n);
    if (n.mean[0] == '\0')
        fputs("-", f);
    else if (n.lo[0] == '\0')
        fputs(n.mean, f);
    else
        fprintf(f, "%s [%s, %s]", n.mean, n.lo, n.hi);
    if (st->ci.n > 0 && st->ci.n < n_seeds)
        fprintf(f, " (%zu seed%s)", st->ci.n, st->ci.n == 1 ? "" : "s");
}

/* The cell, then the policy's significance group as a code span. */
static void md_metric_cell(FILE *f, const compare_result *r, uint32_t pt,
                           int pol, compare_metric m)
{
    char cell[200];
    compare_cell_text(r, pt, pol, m, cell, sizeof cell);
    md_cell(f, cell);
    const char *g = compare_verdict_of(r, pt, m)->letters[pol];
    if (g[0])
        fprintf(f, " `%s`", g);
}

/* Is recovery judged in any run at point pt? */
static bool recovery_judged(const compare_result *r, uint32_t pt)
{
    for (int pol = 0; pol < r->plan->n_policies; pol++) {
        compare_tipping t;
        compare_tipping_of(r, pt, pol, &t);
        if (t.n > 0)
            return true;
    }
    return false;
}

/* The row under recovery time: the share of seeds that did not recover,
 * its Wilson interval and the call. */
static void md_tipping_row(FILE *f, const compare_result *r, uint32_t pt)
{
    fputs("| did not recover (seeds) |", f);
    for (int pol = 0; pol < r->plan->n_policies; pol++) {
        compare_tipping t;
        char text[96];
        compare_tipping_of(r, pt, pol, &t);
        compare_tipping_text(&t, text, sizeof text);
        fprintf(f, " %s%s%s |", text, t.n ? "; " : "",
                t.n ? compare_tipping_call(&t) : "");
    }
    fputc('\n', f);
}

/* The header of a table whose first columns are `first` ("metric", or
 * "phase | figure") and then one column per policy. */
static void md_head(FILE *f, const compare_plan *p, const char *first,
                    int n_first)
{
    fprintf(f, "| %s |", first);
    for (int pol = 0; pol < p->n_policies; pol++) {
        fputs(" `", f);
        md_cell(f, p->policies[pol].label);
        fputs("` |", f);
    }
    fputs("\n|", f);
    for (int i = 0; i < n_first; i++)
        fputs("---|", f);
    for (int pol = 0; pol < p->n_policies; pol++)
        fputs("--:|", f);
    fputc('\n', f);
}

/* "p99 latency (s)": a figure's name and the unit its row prints in. */
static void md_info_name(FILE *f, const compare_metric_info *mi,
                         const char *unit)
{
    if (unit[0])
        fprintf(f, "%s (%s)", mi->name, unit);
    else
        fputs(mi->name, f);
}

/* "p99 latency (s)": the unit the results table prints m in at pt
 * (compare_shown_unit). */
static void md_unit_name(FILE *f, const compare_result *r, uint32_t pt,
                         compare_metric m)
{
    double div;
    const char *unit = compare_shown_unit(r, pt, m, &div);
    if (unit[0])
        fprintf(f, "%s (%s)", compare_metrics[m].name, unit);
    else
        fputs(compare_metrics[m].name, f);
}

static void md_results(FILE *f, const compare_result *r, uint32_t pt)
{
    const compare_plan *p = r->plan;
    md_head(f, p, "metric", 1);
    for (int m = 0; m < CM_COUNT; m++) {
        if (!compare_metric_shown(p, m))
            continue;
        fputs("| ", f);
        md_unit_name(f, r, pt, m);
        fputs(" |", f);
        for (int pol = 0; pol < p->n_policies; pol++) {
            fputc(' ', f);
            md_metric_cell(f, r, pt, pol, m);
            fputs(" |", f);
        }
        fputc('\n', f);
        if (m == CM_RECOVERY_S && recovery_judged(r, pt))
            md_tipping_row(f, r, pt);
    }
    fputs("\nVerdicts:\n\n", f);
    for (int m = 0; m < CM_COUNT; m++) {
        if (!compare_metric_shown(p, m))
            continue;
        fprintf(f, "- **%s**: ", compare_metrics[m].name);
        md_cell(f, compare_verdict_of(r, pt, m)->text);
        fputc('\n', f);
    }
}

static void md_phases(FILE *f, const compare_result *r, uint32_t pt)
{
    const compare_plan *p = r->plan;
    /* Without a fault the one phase is the whole run: the results above
     * (compare_report.c's phase_tables says the same). */
    char during_from[32], during_to[32];
    if (!phase_span(r, pt, PHASE_DURING, during_from, during_to,
                    sizeof during_from)) {
        fputs("\nBy phase: one phase only, as no fault falls in the run: "
              "the results above.\n",
              f);
        return;
    }
    fputs("\nBy phase (the same figures over each part of the run):\n\n", f);
    md_head(f, p, "phase | figure", 2);
    for (int k = 0; k < PHASE_COUNT; k++) {
        char from[32], to[32];
        if (!phase_span(r, pt, k, from, to, sizeof from))
            continue;
        for (int c = 0; c < CP_COUNT; c++) {
            double div;
            const char *unit = compare_phase_unit(r, pt, k, c, &div);
            fprintf(f, "| %s (%s to %s s) | ", phases_label(k), from, to);
            md_info_name(f, &compare_phase_figures[c], unit);
            fputs(" |", f);
            for (int pol = 0; pol < p->n_policies; pol++) {
                compare_stat st;
                compare_stat_divided(compare_phase_stat_at(r, pt, pol, k, c),
                                     div, &st);
                fputc(' ', f);
                md_stat(f, &st, p->n_seeds);
                fputs(" |", f);
            }
            fputc('\n', f);
        }
    }
}

/* A service chain: what reached each tier, per request the clients
 * offered, and whose policy the comparison changed. */
static void md_tiers(FILE *f, const compare_result *r, uint32_t pt)
{
    const compare_plan *p = r->plan;
    if (r->n_tiers == 0)
        return;
    fputs("\nService tiers (the figures per request the clients offered; "
          "the policies compared replace the clients' policy only: every "
          "tier below calls the next through its own [policy.NAME]):\n\n",
          f);
    md_head(f, p, "tier | figure", 2);
    for (uint32_t t = 0; t < r->n_tiers; t++)
        for (int c = 0; c < TF_COUNT; c++) {
            double div;
            const char *unit = compare_tier_unit(r, pt, t, c, &div);
            fprintf(f, "| %s%s | ", compare_tier_name(p, t),
                    t == 0 ? " (top)" : "");
            md_info_name(f, &compare_tier_figures[c], unit);
            fputs(" |", f);
            for (int pol = 0; pol < p->n_policies; pol++) {
                compare_stat st;
                compare_stat_divided(compare_tier_stat_at(r, pt, pol, t, c),
                                     div, &st);
                fputc(' ', f);
                md_stat(f, &st, p->n_seeds);
                fputs(" |", f);
            }
            fputc('\n', f);
        }
}

static void md_intro(FILE *f, const compare_plan *p)
{
    fprintf(f, "# Comparison: %s\n\n", p->name);
    if (p->description[0]) {
        char text[1024];
        compare_description_text(p, text, sizeof text);
        fprintf(f, "%s\n\n", text);
    }
    fprintf(f, "- scenario: `%s`\n", p->scenario);
    fprintf(f,
            "- policies: %d, each on the same %u seed%s (%llu to %llu: "
            "paired, every policy saw the same arrivals and faults)\n",
            p->n_policies, p->n_seeds, p->n_seeds == 1 ? "" : "s",
            (unsigned long long)p->seed0,
            (unsigned long long)(p->seed0 + p->n_seeds - 1));
    for (int a = 0; a < p->n_axes; a++)
        fprintf(f,
                "- swept: `%s` from %.10g%s to %.10g%s in steps of "
                "%.10g%s (%u value%s)\n",
                p->axes[a].key, p->axes[a].from, p->axes[a].unit, p->axes[a].to,
                p->axes[a].unit, p->axes[a].step, p->axes[a].unit, p->axes[a].n,
                p->axes[a].n == 1 ? "" : "s");
    fprintf(f, "- runs: %u\n\n", compare_n_runs(p));
    fputs("Each cell: the mean over the seeds [its 95 % confidence "
          "interval, Student t, cut at 0 and at 100 %]; - where no run "
          "has a value; (3 seeds) where only some seeds have one.  Recovery "
          "time is over the seeds that recovered; the share that did not "
          "is a Wilson 95 % interval, bistable when it holds 1/2 and the "
          "seeds split, too few seeds to tell when it holds 1/2 though "
          "they all agreed (stable below, metastable above).  Policies "
          "that share a `letter` do "
          "not differ significantly: every pair is tested, paired across "
          "the seeds, Holm-adjusted over the pairs.\n",
          f);
}

static int md_all(FILE *f, const compare_result *r)
{
    const compare_plan *p = r->plan;
    md_intro(f, p);
    if (p->n_points == 1) {
        compare_bottom b;
        compare_bottom_line(r, 0, &b);
        fputs("\n## Bottom line\n\n", f);
        fprintf(f, "%s\n", b.text);
    }
    if (p->n_axes == 1) {
        fputs("\n## Where each policy tips\n\n", f);
        for (int i = 0; i < p->n_policies; i++) {
            char line[2048];
            compare_tips_text(r, i, line, sizeof line);
            fprintf(f, "- %s\n", line);
        }
        char line[1024];
        if (compare_tips_caveat(r, line, sizeof line))
            fprintf(f, "\n%s\n", line);
    }
    for (uint32_t pt = 0; pt < p->n_points; pt++) {
        if (p->n_axes == 0) {
            fputs("\n## Results\n\n", f);
        } else {
            fputs("\n##", f);
            for (int a = 0; a < p->n_axes; a++) {
                char v[64];
                axis_value_text(p, pt, a, v, sizeof v);
                fprintf(f, "%s %s = %s", a ? "," : "", p->axes[a].key, v);
            }
            fputs("\n\n", f);
        }
        md_results(f, r, pt);
        md_tiers(f, r, pt);
        if (r->risk && compare_risk_md(f, r, pt) != 0)
            return -1;
        md_phases(f, r, pt);
    }
    return 0;
}

int compare_write_md(const compare_result *r, const char *path, sb_err *e)
{
    return write_file(r, path, md_all, e);
}

/* ---- summary.json ------------------------------------------------------------ */

/* A number at full precision (the digits that read back as the same
 * double), null when it has none: for programs, which round as they
 * please; the tables round to three digits. */
static void json_exact(jw *w, const char *key, double v)
{
    char t[40];
    if (!isfinite(v)) {
        jw_null(w, key);
        return;
    }
    runfile_double_text(v, t, sizeof t);
    jw_number_text(w, key, t);
}

/* The statistic's fields into the object open at w. */
static void json_stat(jw *w, const compare_stat *st)
{
    json_exact(w, "mean", st->ci.mean);
    json_exact(w, "lo", st->ci.lo);
    json_exact(w, "hi", st->ci.hi);
    json_exact(w, "sd", st->ci.sd);
    json_exact(w, "median", st->median);
    jw_int(w, "n", (int64_t)st->ci.n);
    jw_int(w, "missing", st->missing);
}

/* The share of seeds that did not recover, with its Wilson interval. */
static void json_tipping(jw *w, const compare_result *r, uint32_t pt, int pol)
{
    compare_tipping t;
    compare_tipping_of(r, pt, pol, &t);
    if (t.n == 0)
        return;
    jw_object(w, "did_not_recover");
    jw_int(w, "seeds", t.tipped);
    jw_int(w, "of", t.n);
    json_exact(w, "share", t.share);
    json_exact(w, "lo", t.lo);
    json_exact(w, "hi", t.hi);
    jw_string(w, "stability", compare_tipping_json_name(&t));
    if (t.too_few)
        jw_int(w, "seeds_to_tell", compare_tipping_seeds(0));
    jw_end(w);
}

static void json_plan(jw *w, const compare_plan *p)
{
    jw_object(w, "scenario");
    jw_string(w, "file", p->scenario);
    jw_string(w, "name", p->name);
    jw_string(w, "description", p->description);
    jw_end(w);
    jw_string(w, "fingerprint", p->fingerprint);
    jw_object(w, "seeds");
    jw_uint(w, "first", p->seed0);
    jw_int(w, "count", p->n_seeds);
    jw_end(w);
    jw_double(w, "confidence", 0.95);
    jw_array(w, "policies");
    for (int i = 0; i < p->n_policies; i++) {
        jw_object(w, NULL);
        jw_string(w, "label", p->policies[i].label);
        jw_string(w, "stack", p->policies[i].stack);
        jw_object(w, "params");
        for (int j = 0; j < p->policies[i].n_params; j++)
            jw_string(w, p->policies[i].params[j].key,
                      p->policies[i].params[j].value);
        jw_end(w);
        jw_end(w);
    }
    jw_end(w);
    /* A chain's tiers and the stacks of their calls, which the policies
     * compared do not replace. */
    const sim_config *c = &p->points[0].cfg;
    if (c->n_tiers > 0) {
        jw_array(w, "tiers");
        for (uint32_t t = 0; t < c->n_tiers; t++) {
            jw_object(w, NULL);
            jw_string(w, "name", c->tiers[t].name);
            jw_string(w, "calls_with",
                      t + 1 < c->n_tiers ? c->tiers[t].policy : NULL);
            jw_end(w);
        }
        jw_end(w);
    }
    jw_array(w, "axes");
    for (int a = 0; a < p->n_axes; a++) {
        jw_object(w, NULL);
        jw_string(w, "key", p->axes[a].key);
        jw_string(w, "unit", p->axes[a].unit);
        json_exact(w, "from", p->axes[a].from);
        json_exact(w, "to", p->axes[a].to);
        json_exact(w, "step", p->axes[a].step);
        jw_int(w, "values", p->axes[a].n);
        jw_end(w);
    }
    jw_end(w);
}

static void json_metrics(jw *w, const compare_plan *p)
{
    jw_array(w, "metrics");
    for (int m = 0; m < CM_COUNT; m++) {
        if (!compare_metric_shown(p, m))
            continue;
        jw_object(w, NULL);
        jw_string(w, "key", compare_metrics[m].key);
        jw_string(w, "name", compare_metrics[m].name);
        jw_string(w, "unit", compare_metrics[m].unit);
        jw_string(w, "better",
                  compare_metrics[m].better > 0 ? "higher" : "lower");
        jw_end(w);
    }
    jw_end(w);
}

static void json_phases(jw *w, const compare_result *r, uint32_t pt, int pol)
{
    jw_object(w, "phases");
    for (int k = 0; k < PHASE_COUNT; k++) {
        char from[32], to[32];
        if (!phase_span(r, pt, k, from, to, sizeof from))
            continue;
        jw_object(w, phases_name(k));
        jw_number_text(w, "from_s", from);
        jw_number_text(w, "to_s", to);
        for (int c = 0; c < CP_COUNT; c++) {
            jw_object(w, compare_phase_figures[c].key);
            json_stat(w, compare_phase_stat_at(r, pt, pol, k, c));
            jw_end(w);
        }
        jw_end(w);
    }
    jw_end(w);
}

/* Per tier, its figures over the seeds (only in a comparison of a
 * chain). */
static void json_tiers(jw *w, const compare_result *r, uint32_t pt, int pol)
{
    if (r->n_tiers == 0)
        return;
    jw_object(w, "tiers");
    for (uint32_t t = 0; t < r->n_tiers; t++) {
        jw_object(w, compare_tier_name(r->plan, t));
        for (int c = 0; c < TF_COUNT; c++) {
            jw_object(w, compare_tier_figures[c].key);
            json_stat(w, compare_tier_stat_at(r, pt, pol, t, c));
            jw_end(w);
        }
        jw_end(w);
    }
    jw_end(w);
}

static void json_results(jw *w, const compare_result *r, uint32_t pt)
{
    const compare_plan *p = r->plan;
    jw_object(w, "results");
    for (int pol = 0; pol < p->n_policies; pol++) {
        jw_object(w, p->policies[pol].label);
        for (int m = 0; m < CM_COUNT; m++) {
            if (!compare_metric_shown(p, m))
                continue;
            jw_object(w, compare_metrics[m].key);
            json_stat(w, compare_stat_at(r, pt, pol, m));
            uint32_t failed, applies;
            compare_failures(r, pt, pol, m, &failed, &applies);
            if (applies)
                jw_int(w, "failed", failed);
            jw_end(w);
        }
        json_tipping(w, r, pt, pol);
        json_phases(w, r, pt, pol);
        json_tiers(w, r, pt, pol);
        jw_end(w);
    }
    jw_end(w);
}

static void json_verdicts(jw *w, const compare_result *r, uint32_t pt)
{
    jw_object(w, "verdicts");
    for (int m = 0; m < CM_COUNT; m++) {
        if (!compare_metric_shown(r->plan, m))
            continue;
        const compare_verdict *v = compare_verdict_of(r, pt, m);
        const compare_plan *p = r->plan;
        jw_object(w, compare_metrics[m].key);
        jw_string(w, "best", v->best >= 0 ? p->policies[v->best].label : NULL);
        jw_string(w, "runner_up",
                  v->runner_up >= 0 ? p->policies[v->runner_up].label : NULL);
        jw_bool(w, "significant", v->significant);
        json_exact(w, "p", v->p);
        char tests[80];
        compare_tests_text(v->tests, tests, sizeof tests);
        jw_string(w, "tests", tests[0] ? tests : NULL);
        jw_array(w, "leaders");
        for (int i = 0; i < p->n_policies && v->best >= 0; i++)
            if (v->leaders & (1u << v->order[i]))
                jw_string(w, NULL, p->policies[v->order[i]].label);
        jw_end(w);
        jw_object(w, "groups");
        for (int i = 0; i < p->n_policies; i++)
            if (v->letters[i][0])
                jw_string(w, p->policies[i].label, v->letters[i]);
        jw_end(w);
        jw_string(w, "text", v->text);
        jw_end(w);
    }
    jw_end(w);
}

static int json_all(FILE *f, const compare_result *r)
{
    const compare_plan *p = r->plan;
    jw w;
    jw_init(&w, f, true);
    jw_object(&w, NULL);
    json_plan(&w, p);
    json_metrics(&w, p);
    jw_array(&w, "points");
    for (uint32_t pt = 0; pt < p->n_points; pt++) {
        jw_object(&w, NULL);
        jw_object(&w, "values");
        for (int a = 0; a < p->n_axes; a++)
            json_exact(&w, p->axes[a].key, p->points[pt].value[a]);
        jw_end(&w);
        json_results(&w, r, pt);
        json_verdicts(&w, r, pt);
        if (r->risk && compare_risk_json(&w, r, pt) != 0)
            return -1;
        compare_bottom b;
        compare_bottom_line(r, pt, &b);
        jw_object(&w, "bottom_line");
        jw_string(&w, "recommended",
                  b.recommended >= 0 ? p->policies[b.recommended].label : NULL);
        jw_array(&w, "figures");
        for (int i = 0; i < b.n_figures; i++)
            jw_string(&w, NULL, compare_metrics[b.figures[i]].key);
        jw_end(&w);
        jw_string(&w, "text", b.text);
        jw_end(&w);
        jw_end(&w);
    }
    jw_end(&w);
    jw_end(&w);
    return 0;
}

int compare_write_json(const compare_result *r, const char *path, sb_err *e)
{
    return write_file(r, path, json_all, e);
}
