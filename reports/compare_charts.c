/*
 * compare_charts.c -- the comparison report's chart pages (see
 * compare_charts.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_charts.h"

/* ---- Over time -------------------------------------------------------------------- */

int compare_bands_load(compare_bands *b, const compare_result *r,
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

void compare_charts_time(report *d, const compare_result *r,
                         const compare_bands *b)
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

void compare_charts_bars(report *d, const compare_result *r, uint32_t pt)
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

void compare_charts_latency(report *d, const compare_result *r, uint32_t pt)
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

void compare_charts_sweep(report *d, const compare_result *r)
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

void compare_charts_maps(report *d, const compare_result *r)
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

