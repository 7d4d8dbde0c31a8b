/*
 * compare_report.c -- the comparison's report: reports/compare.h's
 * results laid out as a document (viz/report.h), written as a PDF and a
 * self-contained HTML file.
 *
 * Nothing here computes a statistic; it chooses what to show and says it
 * in words.
 *
 * Pages: a title page (the scenario, its faults, the policies with every
 * parameter, the seeds, the version and date); the results table with a
 * verdict per metric; the same figures per phase; the runs over time
 * (median across seeds with a 10-90 % band, faults shaded); each metric
 * as bars with 95 % intervals; latency distributions.  With one sweep,
 * every metric against the swept value; with two, a stability map per
 * policy.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compare.h"
#include "compare_report.h"
#include "report.h"
#include "units.h"

/* ---- Words and numbers ------------------------------------------------------ */

/* v with about three significant digits and its unit. */
static const char *fmt_unit(double v, const char *unit, char *buf,
                            size_t len)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "n/a");
        return buf;
    }
    double a = fabs(v);
    int dec = a == 0 ? 0 : a < 1 ? 3 : a < 10 ? 2 : a < 100 ? 1 : 0;
    const char *sep = *unit && strcmp(unit, "x") != 0 ? " " : "";
    if (strcmp(unit, "x") == 0)
        snprintf(buf, len, "%.*f x", a < 10 ? 2 : 1, v);
    else
        snprintf(buf, len, "%.*f%s%s", dec, v, sep, unit);
    return buf;
}

/* "99.2 % +- 0.4", or the count of missing values for recovery. */
static void cell_text(const compare_result *r, uint32_t point, int policy,
                      compare_metric m, char *buf, size_t len)
{
    const compare_stat *st = compare_stat_at(r, point, policy, m);
    const char *unit = compare_metrics[m].unit;
    char a[48], b[48];
    uint32_t failed = 0, applies = 0;
    if (m == CM_RECOVERY_S)
        compare_failures(r, point, policy, m, &failed, &applies);
    if (failed > 0 && failed == applies) {
        snprintf(buf, len, "did not recover (%u of %u)", failed, applies);
        return;
    }
    fmt_unit(st->ci.mean, unit, a, sizeof a);
    if (isfinite(st->ci.half_width) && st->ci.n > 1)
        snprintf(buf, len, "%s \xc2\xb1 %s", a,
                 fmt_unit(st->ci.half_width, "", b, sizeof b));
    else
        snprintf(buf, len, "%s", a);
    if (failed > 0) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "; %u of %u did not recover",
                 failed, applies);
    }
}

/* The run date: SOURCE_DATE_EPOCH when set (reproducible documents),
 * else today. */
static void report_date(char *buf, size_t len)
{
    const char *env = getenv("SOURCE_DATE_EPOCH");
    time_t t = env && *env ? (time_t)strtoll(env, NULL, 10) : time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%d", &tm);
}

/* A table of strings built cell by cell. */
typedef struct table_buf {
    int cols, rows;
    char (*text)[160];
    const char **cells;
    uint8_t *emph;
} table_buf;

static int table_init(table_buf *t, int cols, int rows)
{
    t->cols = cols;
    t->rows = rows;
    size_t n = (size_t)cols * (size_t)rows;
    t->text = calloc(n ? n : 1, sizeof *t->text);
    t->cells = calloc(n ? n : 1, sizeof *t->cells);
    t->emph = calloc(n ? n : 1, 1);
    if (t->text == NULL || t->cells == NULL || t->emph == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        t->cells[i] = t->text[i];
    return 0;
}

static char *table_cell(table_buf *t, int row, int col)
{
    return t->text[(size_t)row * (size_t)t->cols + (size_t)col];
}

static void table_free(table_buf *t)
{
    free(t->text);
    free(t->cells);
    free(t->emph);
}

/* ---- The title page ----------------------------------------------------------- */

static void scenario_table(report *d, const compare_plan *p)
{
    const sim_config *c = &p->points[0].cfg;
    table_buf t;
    if (table_init(&t, 2, 6 + (int)c->n_faults) != 0)
        return;
    char a[64], b[64], w[64];
    int row = 0;
    snprintf(table_cell(&t, row, 0), 160, "run");
    snprintf(table_cell(&t, row++, 1), 160, "%s simulated, buckets of %s, "
             "warm-up %s",
             units_fmt_duration(c->duration_ns, a, sizeof a),
             units_fmt_duration(c->bucket_ns, b, sizeof b),
             units_fmt_duration(c->warmup_ns, w, sizeof w));
    snprintf(table_cell(&t, row, 0), 160, "clients");
    snprintf(table_cell(&t, row++, 1), 160, "%u in %u processes, %s "
             "arrivals",
             c->clients.count,
             c->clients.processes ? c->clients.processes : c->clients.count,
             c->clients.arrival == ARRIVAL_OPEN     ? "open-loop"
             : c->clients.arrival == ARRIVAL_CLOSED ? "closed-loop"
                                                    : "one-shot");
    snprintf(table_cell(&t, row, 0), 160, "attempt timeout");
    snprintf(table_cell(&t, row++, 1), 160, "%s",
             units_fmt_duration(c->clients.timeout_ns, a, sizeof a));
    snprintf(table_cell(&t, row, 0), 160, "server");
    if (c->server.workers == SIM_UNLIMITED)
        snprintf(table_cell(&t, row++, 1), 160, "unlimited workers");
    else
        snprintf(table_cell(&t, row++, 1), 160, "%u workers, mean service "
                 "%s",
                 c->server.workers,
                 units_fmt_duration(
                     (int64_t)units_dist_mean(&c->server.service), a,
                     sizeof a));
    snprintf(table_cell(&t, row, 0), 160, "seeds");
    snprintf(table_cell(&t, row++, 1), 160, "%u: %llu to %llu (every policy "
             "runs on each, with the same arrivals, service times and "
             "faults)",
             p->n_seeds, (unsigned long long)p->seed0,
             (unsigned long long)(p->seed0 + p->n_seeds - 1));
    snprintf(table_cell(&t, row, 0), 160, "faults");
    snprintf(table_cell(&t, row++, 1), 160, "%s",
             c->n_faults ? "" : "none");
    for (uint32_t i = 0; i < c->n_faults; i++, row++) {
        const fault_cfg *f = &c->faults[i];
        snprintf(table_cell(&t, row, 0), 160, "  %s", f->name);
        snprintf(table_cell(&t, row, 1), 160, "%s from %s for %s",
                 fault_type_name(f->type),
                 units_fmt_duration(f->start_ns, a, sizeof a),
                 units_fmt_duration(f->duration_ns, b, sizeof b));
    }
    static const char *const head[] = {"scenario", ""};
    report_table tb = {NULL, 2, row, head, t.cells, NULL, "ll"};
    report_table_add(d, &tb);
    table_free(&t);
}

static void policies_table(report *d, const compare_plan *p)
{
    table_buf t;
    if (table_init(&t, 2, p->n_policies) != 0)
        return;
    for (int i = 0; i < p->n_policies; i++) {
        const compare_policy *cp = &p->policies[i];
        snprintf(table_cell(&t, i, 0), 160, "%s", cp->label);
        char *c = table_cell(&t, i, 1);
        size_t used = 0;
        used += (size_t)snprintf(c, 160, "%s", cp->n_params ? "" :
                                 "defaults");
        for (int j = 0; j < cp->n_params && used < 160; j++)
            used += (size_t)snprintf(c + used, 160 - used, "%s%s=%s",
                                     j ? ", " : "", cp->params[j].key,
                                     cp->params[j].value);
    }
    static const char *const head[] = {"policy", "parameters set"};
    report_table tb = {"Parameters not listed take the policy's defaults "
                       "(stormbench policies NAME lists them).",
                       2, p->n_policies, head, t.cells, NULL, "ll"};
    report_table_add(d, &tb);
    table_free(&t);
}

static void title_page(report *d, const compare_plan *p)
{
    char line[1400], date[32];
    snprintf(line, sizeof line, "%s: %d %s compared", p->name,
             p->n_policies, p->n_policies == 1 ? "policy" : "policies");
    report_heading(d, 1, line);
    if (p->description[0])
        report_text(d, p->description);
    report_date(date, sizeof date);
    snprintf(line, sizeof line, "Scenario file %s. stormbench %s, %s. "
             "Every figure is a mean over the seeds with its 95 %% "
             "confidence interval (Student's t), unless it says otherwise.",
             p->scenario, SB_VERSION, date);
    report_text(d, line);
    scenario_table(d, p);
    policies_table(d, p);
    for (int a = 0; a < p->n_axes; a++) {
        const compare_axis *ax = &p->axes[a];
        snprintf(line, sizeof line, "Swept: %s from %g%s to %g%s in steps "
                 "of %g%s (%u values)%s.",
                 strcmp(ax->key, "load") == 0
                     ? "load (offered requests as a share of the server's "
                       "capacity)"
                     : ax->key,
                 ax->from, ax->unit, ax->to, ax->unit, ax->step, ax->unit,
                 ax->n, ax->policy_param ? ", given to every policy" : "");
        report_text(d, line);
    }
}

/* ---- Results at one point ----------------------------------------------------- */

/* One table of metrics ms[0..n) (a pipeline's jobs get a table of their
 * own: the run's nine and its five in one would not fit the page). */
static void metrics_table(report *d, const compare_result *r, uint32_t pt,
                          const compare_metric *ms, int n)
{
    const compare_plan *p = r->plan;
    table_buf t;
    if (table_init(&t, n + 1, p->n_policies) != 0)
        return;
    const char *head[CM_COUNT + 1];
    char heads[CM_COUNT + 1][64];
    snprintf(heads[0], sizeof heads[0], "policy");
    head[0] = heads[0];
    for (int c = 0; c < n; c++) {
        compare_metric m = ms[c];
        snprintf(heads[c + 1], sizeof heads[0], "%s%s%s%s",
                 compare_metrics[m].name, *compare_metrics[m].unit ? " (" :
                 "", compare_metrics[m].unit,
                 *compare_metrics[m].unit ? ")" : "");
        head[c + 1] = heads[c + 1];
    }
    for (int i = 0; i < p->n_policies; i++) {
        snprintf(table_cell(&t, i, 0), 160, "%s", p->policies[i].label);
        for (int c = 0; c < n; c++) {
            compare_metric m = ms[c];
            cell_text(r, pt, i, m, table_cell(&t, i, c + 1), 160);
            const compare_verdict *v =
                &r->verdict[(size_t)pt * CM_COUNT + (size_t)m];
            const compare_stat *st = compare_stat_at(r, pt, i, m);
            uint8_t *em = &t.emph[(size_t)i * (size_t)t.cols + (size_t)c + 1];
            if (st->ci.n == 0)
                *em = REPORT_MUTED;
            else if (v->best == i && v->significant && p->n_policies > 1)
                *em = REPORT_BEST;
        }
    }
    char caption[400];
    snprintf(caption, sizeof caption, "Mean \xc2\xb1 half-width of the 95 %% "
             "confidence interval over %u seeds. Bold: the best value of "
             "its column, when the difference from every other policy is "
             "significant (paired tests across seeds, Holm-adjusted, "
             "p < 0.05).", p->n_seeds);
    report_table tb = {caption, n + 1, p->n_policies, head, t.cells,
                       t.emph, NULL};
    report_table_add(d, &tb);
    table_free(&t);
}

static void results_table(report *d, const compare_result *r, uint32_t pt)
{
    compare_metric run[CM_COUNT], jobs[CM_COUNT];
    int n_run = 0, n_jobs = 0;
    for (int m = 0; m < CM_COUNT; m++) {
        if (!compare_metric_shown(r->plan, (compare_metric)m))
            continue;
        if (m < CM_JOBS_COMPLETED)
            run[n_run++] = (compare_metric)m;
        else
            jobs[n_jobs++] = (compare_metric)m;
    }
    metrics_table(d, r, pt, run, n_run);
    if (n_jobs) {
        report_text(d, "The pipeline's jobs:");
        metrics_table(d, r, pt, jobs, n_jobs);
    }
}

static void verdicts(report *d, const compare_result *r, uint32_t pt)
{
    if (r->plan->n_policies < 2)
        return;
    report_heading(d, 2, "Verdicts");
    for (int m = 0; m < CM_COUNT; m++) {
        if (!compare_metric_shown(r->plan, (compare_metric)m))
            continue;
        char line[900];
        snprintf(line, sizeof line, "%s: %s", compare_metrics[m].name,
                 r->verdict[(size_t)pt * CM_COUNT + (size_t)m].text);
        report_text(d, line);
    }
}

static void phase_tables(report *d, const compare_result *r, uint32_t pt)
{
    const compare_plan *p = r->plan;
    static const char *const phase_names[PHASE_COUNT] = {
        "before the first fault", "during the faults",
        "after the faults (recovering)", "steady state at the end"};
    static const char *const head[CP_COUNT + 1] = {
        "policy", "offered (/s)", "goodput (/s)", "success (%)",
        "amplification (x)", "p99 (ms)", "duplicates"};
    static const char *const units[CP_COUNT] = {"/s", "/s", "%", "x", "ms",
                                                ""};
    report_heading(d, 2, "By phase");
    for (int ph = 0; ph < PHASE_COUNT; ph++) {
        /* A phase the runs do not have (no fault) is left out. */
        const compare_run *first = &r->runs[(size_t)pt * (size_t)p->n_policies *
                                            p->n_seeds];
        if (!first->sum.phase[ph].present)
            continue;
        table_buf t;
        if (table_init(&t, CP_COUNT + 1, p->n_policies) != 0)
            return;
        for (int i = 0; i < p->n_policies; i++) {
            snprintf(table_cell(&t, i, 0), 160, "%s", p->policies[i].label);
            for (int f = 0; f < CP_COUNT; f++) {
                const compare_stat *st =
                    &r->phase_stat[(((size_t)pt * (size_t)p->n_policies +
                                     (size_t)i) * PHASE_COUNT + (size_t)ph) *
                                       CP_COUNT + (size_t)f];
                char a[48], b[48];
                if (st->ci.n == 0) {
                    snprintf(table_cell(&t, i, f + 1), 160, "n/a");
                    t.emph[(size_t)i * (size_t)t.cols + (size_t)f + 1] =
                        REPORT_MUTED;
                } else if (st->ci.n > 1 && isfinite(st->ci.half_width)) {
                    snprintf(table_cell(&t, i, f + 1), 160, "%s \xc2\xb1 %s",
                             fmt_unit(st->ci.mean, "", a, sizeof a),
                             fmt_unit(st->ci.half_width, "", b, sizeof b));
                } else {
                    snprintf(table_cell(&t, i, f + 1), 160, "%s",
                             fmt_unit(st->ci.mean, "", a, sizeof a));
                }
                (void)units;
            }
        }
        char caption[200];
        snprintf(caption, sizeof caption, "%s: %.0f s to %.0f s.",
                 phase_names[ph], first->sum.phase[ph].from_s,
                 first->sum.phase[ph].to_s);
        caption[0] = (char)(caption[0] - 'a' + 'A');
        report_table tb = {caption, CP_COUNT + 1, p->n_policies, head,
                           t.cells, t.emph, NULL};
        report_table_add(d, &tb);
        table_free(&t);
    }
}

/* ---- Over time -------------------------------------------------------------------- */

/* The bands of every policy at the only point, read from the saved runs
 * before the document opens (a missing file is then an error that leaves
 * no half-written report). */
typedef struct bands {
    compare_series *lo, *mid, *hi;
} bands;

static int bands_load(bands *b, const compare_result *r,
                      const char *const *dirs, int n_dirs, sb_err *e)
{
    int np = r->plan->n_policies;
    b->lo = calloc((size_t)np * 3, sizeof *b->lo);
    if (b->lo == NULL)
        return err_set(e, "out of memory");
    b->mid = b->lo + np;
    b->hi = b->lo + 2 * np;
    for (int i = 0; i < np; i++)
        if (compare_series_bands(r, dirs, n_dirs, 0, i, &b->lo[i],
                                 &b->mid[i], &b->hi[i], e) != 0)
            return -1;
    return 0;
}

static void time_pages(report *d, const compare_result *r, const bands *b)
{
    const compare_plan *p = r->plan;
    static const struct {
        compare_col col;
        const char *title, *y;
    } charts[] = {
        {CC_ATTEMPTS, "Load on the server: attempts sent", "attempts/s"},
        {CC_GOODPUT, "Goodput: requests that succeeded", "successes/s"},
        {CC_QUEUE, "Server queue", "queued attempts (mean)"},
        {CC_P99_MS, "Latency of successful requests, p99", "p99 (ms)"},
        {CC_DUPLICATES, "Duplicate writes, cumulative", "duplicates"},
    };
    enum { N_CHARTS = sizeof charts / sizeof *charts };
    int np = p->n_policies;
    uint32_t rows = b->mid[0].n_rows;
    /* x, then per policy its line, band low and band high */
    double *buf = calloc((size_t)rows * (1 + 3 * (size_t)np) + 1,
                         sizeof *buf);
    if (buf == NULL)
        return;
    double *x = buf;
    for (uint32_t k = 0; k < rows; k++)
        x[k] = ((double)k + 0.5) * b->mid[0].row_s;
    const sim_config *c = &p->points[0].cfg;
    report_span spans[SIM_MAX_FAULTS];
    for (uint32_t f = 0; f < c->n_faults; f++)
        spans[f] = (report_span){(double)c->faults[f].start_ns / 1e9,
                                 (double)(c->faults[f].start_ns +
                                          c->faults[f].duration_ns) / 1e9,
                                 c->faults[f].name};
    report_heading(d, 1, "Over time");
    char intro[300];
    snprintf(intro, sizeof intro, "Each line is the median over the %u "
             "seeds of a policy, the band around it the 10th to 90th "
             "percentile; faults are shaded.", p->n_seeds);
    report_text(d, intro);
    for (int ch = 0; ch < N_CHARTS; ch++) {
        report_series s[COMPARE_MAX_POLICIES];
        for (int i = 0; i < np; i++) {
            double *y = buf + rows * (1 + 3 * (size_t)i);
            double *yl = y + rows, *yh = yl + rows;
            for (uint32_t k = 0; k < rows; k++) {
                y[k] = b->mid[i].v[k][charts[ch].col];
                yl[k] = b->lo[i].v[k][charts[ch].col];
                yh[k] = b->hi[i].v[k][charts[ch].col];
            }
            /* With two seeds a 10-90 % band says nothing. */
            bool band = p->n_seeds > 2;
            s[i] = (report_series){p->policies[i].label, x, y,
                                   band ? yl : NULL, band ? yh : NULL,
                                   rows, i % 8, 0, false};
        }
        report_lines lc = {charts[ch].title, "time (s)", charts[ch].y, s, np,
                           spans, (int)c->n_faults, false, NAN, NAN};
        report_lines_add(d, &lc);
    }
    free(buf);
}

/* ---- Bars and distributions ----------------------------------------------------- */

static void bar_pages(report *d, const compare_result *r, uint32_t pt)
{
    const compare_plan *p = r->plan;
    int np = p->n_policies;
    report_heading(d, 1, "Each metric, with its 95 % interval");
    char skipped[512] = "";
    size_t used = 0;
    for (int m = 0; m < CM_COUNT; m++) {
        if (!compare_metric_shown(p, (compare_metric)m))
            continue;
        /* A chart with no bar, or with the same bar for every policy and
         * no spread, says nothing the verdict does not: named below. */
        int valued = 0, missing = 0;
        bool flat = true;
        const compare_stat *s0 = compare_stat_at(r, pt, 0, (compare_metric)m);
        for (int i = 0; i < np; i++) {
            const compare_stat *st = compare_stat_at(r, pt, i,
                                                     (compare_metric)m);
            uint32_t failed, applies;
            compare_failures(r, pt, i, (compare_metric)m, &failed,
                             &applies);
            valued += isfinite(st->ci.mean);
            missing += failed > 0; /* did not recover: something to draw */
            flat = flat && st->ci.mean == s0->ci.mean &&
                   !(st->ci.half_width > 0);
        }
        if ((valued == 0 && (m != CM_RECOVERY_S || missing == 0)) ||
            (valued == np && flat)) {
            if (used < sizeof skipped)
                used += (size_t)snprintf(
                    skipped + used, sizeof skipped - used, "%s%s (%s)",
                    used ? "; " : "", compare_metrics[m].name,
                    valued ? "the same value for every policy and seed"
                           : "no run has a value");
            continue;
        }
        const char *labels[COMPARE_MAX_POLICIES], *notes[COMPARE_MAX_POLICIES];
        char note[COMPARE_MAX_POLICIES][64];
        double v[COMPARE_MAX_POLICIES], lo[COMPARE_MAX_POLICIES],
            hi[COMPARE_MAX_POLICIES];
        int colour[COMPARE_MAX_POLICIES];
        for (int i = 0; i < np; i++) {
            const compare_stat *st = compare_stat_at(r, pt, i,
                                                     (compare_metric)m);
            labels[i] = p->policies[i].label;
            v[i] = st->ci.mean;
            lo[i] = isfinite(st->ci.lo) ? st->ci.lo : st->ci.mean;
            hi[i] = isfinite(st->ci.hi) ? st->ci.hi : st->ci.mean;
            colour[i] = i % 8;
            notes[i] = NULL;
            uint32_t failed = 0, applies = 0;
            if (m == CM_RECOVERY_S)
                compare_failures(r, pt, i, CM_RECOVERY_S, &failed, &applies);
            if (failed) {
                snprintf(note[i], sizeof note[i], "%u of %u did not recover",
                         failed, applies);
                notes[i] = note[i];
            }
        }
        char title[96], y[64];
        snprintf(title, sizeof title, "%s", compare_metrics[m].name);
        title[0] = (char)(title[0] - 'a' + 'A');
        snprintf(y, sizeof y, "%s%s%s%s", compare_metrics[m].name,
                 *compare_metrics[m].unit ? " (" : "",
                 compare_metrics[m].unit,
                 *compare_metrics[m].unit ? ")" : "");
        report_bars b = {title, y, np, labels, v, lo, hi, colour, notes};
        report_bars_add(d, &b);
    }
    if (skipped[0]) {
        char text[600];
        snprintf(text, sizeof text, "Not drawn: %s.", skipped);
        report_text(d, text);
    }
}

static void latency_cdf(report *d, const compare_result *r, uint32_t pt)
{
    const compare_plan *p = r->plan;
    int np = p->n_policies;
    double x[COMPARE_MAX_POLICIES][COMPARE_CDF_POINTS];
    double y[COMPARE_CDF_POINTS];
    double *col = malloc(p->n_seeds * sizeof *col);
    if (col == NULL)
        return;
    report_series s[COMPARE_MAX_POLICIES];
    for (int q = 0; q < COMPARE_CDF_POINTS; q++)
        y[q] = compare_cdf_q[q];
    for (int i = 0; i < np; i++) {
        for (int q = 0; q < COMPARE_CDF_POINTS; q++) {
            for (uint32_t k = 0; k < p->n_seeds; k++) {
                size_t run = ((size_t)pt * (size_t)np + (size_t)i) *
                                 p->n_seeds + k;
                col[k] = r->runs[run].latency_ms[q];
            }
            x[i][q] = stats_quantile(col, p->n_seeds, 0.5);
        }
        s[i] = (report_series){p->policies[i].label, x[i], y, NULL, NULL,
                               COMPARE_CDF_POINTS, i % 8, 0, false};
    }
    free(col);
    report_heading(d, 2, "Latency of successful requests");
    report_text(d, "The share of successful requests answered within each "
                   "latency, end to end (retries included): for each "
                   "quantile, the median over the seeds.");
    /* The curve is x = latency at quantile y: a report_lines with a log x
     * axis. */
    report_lines lc = {"Latency distribution (successes)", "latency (ms)",
                       "share answered within", s, np, NULL, 0, true, 0,
                       1};
    report_lines_add(d, &lc);
}

/* ---- Sweeps ---------------------------------------------------------------------- */

static void sweep_pages(report *d, const compare_result *r)
{
    const compare_plan *p = r->plan;
    const compare_axis *ax = &p->axes[0];
    int np = p->n_policies;
    uint32_t n = ax->n;
    double *buf = calloc((size_t)n * (1 + 3 * (size_t)np), sizeof *buf);
    if (buf == NULL)
        return;
    double *x = buf;
    for (uint32_t k = 0; k < n; k++)
        x[k] = compare_axis_value(ax, k);
    char xl[160], head[200];
    snprintf(xl, sizeof xl, "%s%s%s%s",
             strcmp(ax->key, "load") == 0 ? "offered load / capacity"
                                          : ax->key,
             *ax->unit ? " (" : "", ax->unit, *ax->unit ? ")" : "");
    snprintf(head, sizeof head, "Against %s", xl);
    report_heading(d, 1, head);
    report_text(d, "Each line is a policy's mean over the seeds at each "
                   "value; the band is its 95 % confidence interval.");
    for (int m = 0; m < CM_COUNT; m++) {
        if (!compare_metric_shown(p, (compare_metric)m))
            continue;
        report_series s[COMPARE_MAX_POLICIES];
        for (int i = 0; i < np; i++) {
            double *y = buf + n * (1 + 3 * (size_t)i), *lo = y + n,
                   *hi = lo + n;
            for (uint32_t k = 0; k < n; k++) {
                const compare_stat *st = compare_stat_at(r, k, i,
                                                         (compare_metric)m);
                y[k] = st->ci.mean;
                lo[k] = isfinite(st->ci.lo) ? st->ci.lo : st->ci.mean;
                hi[k] = isfinite(st->ci.hi) ? st->ci.hi : st->ci.mean;
            }
            s[i] = (report_series){p->policies[i].label, x, y, lo, hi, n,
                                   i % 8, 0, true};
        }
        char title[96], y[64];
        snprintf(title, sizeof title, "%s", compare_metrics[m].name);
        title[0] = (char)(title[0] - 'a' + 'A');
        snprintf(y, sizeof y, "%s%s%s%s", compare_metrics[m].name,
                 *compare_metrics[m].unit ? " (" : "",
                 compare_metrics[m].unit,
                 *compare_metrics[m].unit ? ")" : "");
        report_lines lc = {title, xl, y, s, np, NULL, 0, false, NAN, NAN};
        report_lines_add(d, &lc);
    }
    free(buf);
}

/* A cell of a stability map is marked when most of its seeds never
 * recovered (metastable: the faults ended and goodput did not come back
 * within the run). */
static bool cell_metastable(const compare_result *r, uint32_t pt, int policy)
{
    const compare_plan *p = r->plan;
    uint32_t stuck = 0;
    for (uint32_t k = 0; k < p->n_seeds; k++) {
        size_t run = ((size_t)pt * (size_t)p->n_policies + (size_t)policy) *
                         p->n_seeds + k;
        stuck += r->runs[run].sum.metastable;
    }
    return 2 * stuck > p->n_seeds;
}

static void axis_label(const compare_axis *ax, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s",
             strcmp(ax->key, "load") == 0 ? "offered load / capacity"
                                          : ax->key,
             *ax->unit ? " (" : "", ax->unit, *ax->unit ? ")" : "");
}

/* The map's marked cells in words, row by row (the map drawn from the same
 * marks): "policy.max_attempts 3: did not recover from offered load 0.70
 * up" when the marked cells of a row are those from one value up, else
 * the values listed; "recovered everywhere" when none is. */
static void map_in_words(report *d, const compare_axis *ax,
                         const compare_axis *ay, const double *x,
                         const double *y, const uint8_t *marked)
{
    char text[4096];
    size_t used = (size_t)snprintf(text, sizeof text, "Where it did not "
                                   "recover, by %s: ", ay->key);
    uint32_t nx = ax->n;
    const char *xname = strcmp(ax->key, "load") == 0 ? "offered load"
                                                      : ax->key;
    char xname_sp[128];
    snprintf(xname_sp, sizeof xname_sp, "%s ", xname);
    for (uint32_t j = 0; j < ay->n && used < sizeof text; j++) {
        const uint8_t *row = marked + (size_t)j * nx;
        uint32_t first = nx, count = 0;
        for (uint32_t i = 0; i < nx; i++)
            if (row[i]) {
                count++;
                if (first == nx)
                    first = i;
            }
        used += (size_t)snprintf(text + used, sizeof text - used,
                                 "%s%s %g%s: ", j ? "; " : "", ay->key,
                                 y[j], ay->unit);
        if (used >= sizeof text)
            break;
        if (count == 0)
            used += (size_t)snprintf(text + used, sizeof text - used,
                                     "recovered everywhere");
        else if (count == nx - first)
            used += (size_t)snprintf(text + used, sizeof text - used,
                                     "from %s %g%s up", xname, x[first],
                                     ax->unit);
        else
            for (uint32_t i = 0, k = 0; i < nx && used < sizeof text; i++)
                if (row[i]) {
                    used += (size_t)snprintf(text + used, sizeof text - used,
                                             "%s%s%g%s", k ? ", " : "at ",
                                             k ? "" : xname_sp, x[i], ax->unit);
                    k++;
                }
    }
    if (used < sizeof text)
        snprintf(text + used, sizeof text - used, ".");
    report_text(d, text);
}

static void map_pages(report *d, const compare_result *r)
{
    const compare_plan *p = r->plan;
    const compare_axis *ax = &p->axes[0], *ay = &p->axes[1];
    size_t cells = (size_t)ax->n * ay->n;
    double *x = calloc(ax->n + ay->n + cells, sizeof *x);
    uint8_t *marked = calloc(cells, 1);
    if (x == NULL || marked == NULL) {
        free(x);
        free(marked);
        return;
    }
    double *y = x + ax->n, *v = y + ay->n;
    for (uint32_t i = 0; i < ax->n; i++)
        x[i] = compare_axis_value(ax, i);
    for (uint32_t j = 0; j < ay->n; j++)
        y[j] = compare_axis_value(ay, j);
    double vmax = 0;
    for (uint32_t k = 0; k < p->n_points; k++)
        for (int i = 0; i < p->n_policies; i++) {
            double m = compare_stat_at(r, k, i, CM_RECOVERY_S)->ci.mean;
            if (isfinite(m) && m > vmax)
                vmax = m;
        }
    char xl[160], yl[160];
    axis_label(ax, xl, sizeof xl);
    axis_label(ay, yl, sizeof yl);
    report_heading(d, 1, "Stability maps");
    report_text(d, "For each policy, every combination of the two swept "
                   "values: the cell's colour is the mean recovery time "
                   "after the last fault over the seeds that recovered; a "
                   "hatched cell did not recover in most seeds (a "
                   "metastable failure: the faults ended and goodput never "
                   "came back). The thick line is the boundary between "
                   "the two: where the policy tips into a storm.");
    for (int i = 0; i < p->n_policies; i++) {
        for (uint32_t k = 0; k < p->n_points; k++) {
            const compare_point *pt = &p->points[k];
            size_t cell = (size_t)pt->index[1] * ax->n + pt->index[0];
            marked[cell] = cell_metastable(r, k, i);
            v[cell] = compare_stat_at(r, k, i, CM_RECOVERY_S)->ci.mean;
        }
        char title[220];
        snprintf(title, sizeof title, "%s", p->policies[i].label);
        report_map m = {title,       xl,
                        yl,          "recovery time (s)",
                        (int)ax->n,  (int)ay->n,
                        x,           y,
                        v,           marked,
                        "did not recover", 0, vmax > 0 ? vmax : 1};
        report_map_add(d, &m);
        map_in_words(d, ax, ay, x, y, marked);
    }
    free(x);
    free(marked);
}

/* ---- The document ------------------------------------------------------------------ */

int compare_report_write(const compare_result *r, const char *const *dirs,
                         int n_dirs, const char *pdf, const char *html,
                         sb_err *e)
{
    const compare_plan *p = r->plan;
    bands b = {NULL, NULL, NULL};
    if (p->n_axes == 0 && bands_load(&b, r, dirs, n_dirs, e) != 0) {
        free(b.lo);
        return -1;
    }
    char title[160];
    snprintf(title, sizeof title, "stormbench: %s, %d %s", p->name,
             p->n_policies, p->n_policies == 1 ? "policy" : "policies");
    report *d;
    if (report_open(&d, pdf, html, title, e) != 0) {
        free(b.lo);
        return -1;
    }
    title_page(d, p);
    if (p->n_axes == 0) {
        report_heading(d, 1, "Results");
        results_table(d, r, 0);
        verdicts(d, r, 0);
        phase_tables(d, r, 0);
        time_pages(d, r, &b);
        bar_pages(d, r, 0);
        latency_cdf(d, r, 0);
    } else if (p->n_axes == 1) {
        sweep_pages(d, r);
    } else {
        map_pages(d, r);
    }
    free(b.lo);
    return report_close(d, e);
}
