/*
 * compare_charts.c -- the comparison report's chart pages (see
 * compare_charts.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
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
        if (compare_series_bands(r, dirs, n_dirs, 0, i, &b->lo[i], &b->mid[i],
                                 &b->hi[i], e) != 0)
            return -1;
    return 0;
}

/* Values that span two decades or more, all of them above 0 (where a
 * log axis can show them): a latency's p99 from 80 ms to 3 s.  On a
 * linear axis everything below a tenth of the top is a flat line. */
static bool spans_decades(const report_series *s, int n)
{
    double lo = INFINITY, hi = 0;
    for (int k = 0; k < n; k++)
        for (size_t i = 0; i < s[k].n; i++) {
            double v = s[k].y[i];
            if (!isfinite(v))
                continue;
            if (v <= 0)
                return false;
            lo = fmin(lo, v);
            hi = fmax(hi, v);
        }
    return hi >= 100 * lo;
}

/* Nothing to draw: every point of every series 0 or without a value. */
static bool all_zero(const report_series *s, int n)
{
    for (int k = 0; k < n; k++)
        for (size_t i = 0; i < s[k].n; i++)
            if (isfinite(s[k].y[i]) ? s[k].y[i] != 0 : isinf(s[k].y[i]))
                return false;
    return true;
}

/* The note under a section for the charts it left out: "Not drawn: a
 * (why); b (why)." */
typedef struct skipped {
    char text[600];
    size_t used;
} skipped;

static void skip(skipped *k, const char *what, const char *why)
{
    if (k->used < sizeof k->text)
        k->used += (size_t)snprintf(k->text + k->used, sizeof k->text - k->used,
                                    "%s%s (%s)",
                                    k->used ? "; " : "Not drawn: ", what, why);
}

static void skip_note(report *d, const skipped *k)
{
    if (k->used == 0)
        return;
    char text[sizeof k->text + 2];
    snprintf(text, sizeof text, "%s.", k->text);
    report_text(d, text);
}

/* n values divided by div, in place: a chart's figures set in a larger
 * unit once its axis's top is known. */
static void divide(double *v, size_t n, double div)
{
    for (size_t i = 0; div != 1.0 && i < n; i++)
        v[i] /= div;
}

void compare_charts_time(report *d, const compare_result *r,
                         const compare_bands *b)
{
    const compare_plan *p = r->plan;
    static const struct {
        compare_col col;
        const char *title, *y, *what;
    } charts[] = {
        {CC_ATTEMPTS, "Load on the server: attempts sent", "attempts/s",
         "attempts"},
        {CC_GOODPUT, "Goodput: requests that succeeded", "successes/s",
         "goodput"},
        {CC_QUEUE, "Server queue", "mean queue (attempts)", "server queue"},
        {CC_P99_MS, "Latency of successful requests, p99", "p99 (ms)",
         "p99 latency"},
        {CC_DUPLICATES, "Duplicate writes, cumulative", "duplicates",
         "duplicate writes"},
    };
    enum { N_CHARTS = sizeof charts / sizeof *charts };
    int np = p->n_policies;
    uint32_t rows = b->mid[0].n_rows;
    /* x, then per policy its line, band low and band high */
    double *buf = calloc((size_t)rows * (1 + 3 * (size_t)np) + 1, sizeof *buf);
    if (buf == NULL) {
        report_fail(d, "out of memory");
        return;
    }
    double *x = buf;
    for (uint32_t k = 0; k < rows; k++)
        x[k] = ((double)k + 0.5) * b->mid[0].row_s;
    const sim_config *c = &p->points[0].cfg;
    report_span spans[SIM_MAX_FAULTS];
    for (uint32_t f = 0; f < c->n_faults; f++)
        spans[f] = (report_span){
            (double)c->faults[f].start_ns / 1e9,
            (double)(c->faults[f].start_ns + c->faults[f].duration_ns) / 1e9,
            c->faults[f].name};
    report_heading(d, 1, "Charts");
    report_heading(d, 2, "Over time");
    char intro[400];
    snprintf(intro, sizeof intro,
             "Each line is the median over the %u "
             "seeds of a policy%s; faults are shaded. A policy keeps its "
             "colour in every chart.",
             p->n_seeds,
             p->n_seeds > 2 ? ", the band around it the 10th to 90th "
                              "percentile"
                            : "");
    report_text(d, intro);
    skipped sk = {"", 0};
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
            s[i] = (report_series){p->policies[i].label,
                                   x,
                                   y,
                                   band ? yl : NULL,
                                   band ? yh : NULL,
                                   rows,
                                   compare_charts_colour(i),
                                   i / 8,
                                   false,
                                   NULL};
        }
        if (all_zero(s, np)) {
            skip(&sk, charts[ch].what, "zero throughout, for every policy");
            continue;
        }
        bool log = spans_decades(s, np);
        char y_label[64];
        report_lines lc = {charts[ch].title,
                           "time (s)",
                           y_label,
                           s,
                           np,
                           spans,
                           (int)c->n_faults,
                           false,
                           NAN,
                           NAN,
                           log,
                           0,
                           NULL,
                           NULL};
        if (charts[ch].col == CC_P99_MS) {
            /* p99 in the unit its axis reads best in: the tables' rule
             * (compare_unit_for) applied to how far the axis reaches, not
             * to the means: a peak of 40 s reads in s though every
             * policy's mean p99 is under 10 s. */
            double div;
            const char *unit =
                compare_unit_for("ms", report_lines_reach(&lc, false), &div);
            /* every policy's line and band, after the shared x */
            divide(buf + rows, rows * 3 * (size_t)np, div);
            snprintf(y_label, sizeof y_label, "p99 (%s)%s", unit,
                     log ? ", log scale" : "");
        } else {
            snprintf(y_label, sizeof y_label, "%s%s", charts[ch].y,
                     log ? ", log scale" : "");
        }
        report_lines_add(d, &lc);
    }
    skip_note(d, &sk);
    free(buf);
}

/* ---- Bars and distributions ----------------------------------------------------- */

/* Palette order for policies: the colours that stand out most on white
 * first (contrast 5.2, 3.9, 3.4, 3.1, 21 and 4.5 to 1: blue, vermillion,
 * bluish green, reddish purple, black, grey), orange and sky blue (2.3)
 * only for a seventh and eighth policy; past eight, colours repeat and
 * the line is dashed. */
int compare_charts_colour(int policy)
{
    static const int order[8] = {4, 5, 2, 6, 7, 3, 0, 1};
    return order[(policy % 8 + 8) % 8];
}

/* For recovery and completion: the note of a bar whose runs did not all
 * get there, and its value -- +infinity (the report's "never", a hatched
 * bar to the top) when none did, else the mean of those that did, said
 * so with their count.  NULL when every run got there. */
static const char *failure_note(const compare_result *r, uint32_t pt, int i,
                                compare_metric m, char *buf, size_t len,
                                double *value)
{
    uint32_t failed = 0, applies = 0;
    if (m != CM_RECOVERY_S && m != CM_COMPLETION_S)
        return NULL;
    compare_failures(r, pt, i, m, &failed, &applies);
    if (failed == 0)
        return NULL;
    const char *what = m == CM_RECOVERY_S ? "recovered" : "completed";
    compare_tipping t;
    compare_tipping_counts(failed, applies, &t);
    if (failed == applies) {
        *value = INFINITY;
        snprintf(buf, len,
                 "never %s (%u of %u seed%s; 95 %% CI of the "
                 "share %.0f-100 %%)",
                 what, failed, applies, applies == 1 ? "" : "s", t.lo * 100);
    } else {
        snprintf(buf, len,
                 "mean of the %u that %s; %u of %u never did "
                 "(95 %% CI %.0f-%.0f %%)",
                 applies - failed, what, failed, applies, t.lo * 100,
                 t.hi * 100);
    }
    return buf;
}

void compare_charts_bars(report *d, const compare_result *r, uint32_t pt)
{
    const compare_plan *p = r->plan;
    int np = p->n_policies;
    report_heading(d, 2, "Each metric, with its 95 % interval");
    skipped sk = {"", 0};
    for (int m = 0; m < CM_COUNT; m++) {
        if (!compare_metric_shown(p, (compare_metric)m))
            continue;
        /* A chart with no bar, or with the same bar for every policy and
         * no spread, says nothing the verdict does not: named below. */
        int valued = 0, missing = 0;
        bool flat = true;
        const compare_stat *s0 = compare_stat_at(r, pt, 0, (compare_metric)m);
        for (int i = 0; i < np; i++) {
            const compare_stat *st =
                compare_stat_at(r, pt, i, (compare_metric)m);
            uint32_t failed, applies;
            compare_failures(r, pt, i, (compare_metric)m, &failed, &applies);
            valued += isfinite(st->ci.mean);
            missing += failed > 0; /* never got there: something to draw */
            flat =
                flat && st->ci.mean == s0->ci.mean && !(st->ci.half_width > 0);
        }
        if ((valued == 0 && missing == 0) || (valued == np && flat)) {
            skip(&sk, compare_metrics[m].name,
                 valued ? "the same value for every policy and seed"
                        : "no run has a value");
            continue;
        }
        const char *labels[COMPARE_MAX_POLICIES], *notes[COMPARE_MAX_POLICIES];
        char note[COMPARE_MAX_POLICIES][128];
        double v[COMPARE_MAX_POLICIES], lo[COMPARE_MAX_POLICIES],
            hi[COMPARE_MAX_POLICIES];
        int colour[COMPARE_MAX_POLICIES];
        for (int i = 0; i < np; i++) {
            const compare_stat *st =
                compare_stat_at(r, pt, i, (compare_metric)m);
            labels[i] = p->policies[i].label;
            v[i] = st->ci.mean;
            lo[i] = isfinite(st->ci.lo) ? st->ci.lo : st->ci.mean;
            hi[i] = isfinite(st->ci.hi) ? st->ci.hi : st->ci.mean;
            colour[i] = compare_charts_colour(i);
            notes[i] = failure_note(r, pt, i, (compare_metric)m, note[i],
                                    sizeof note[i], &v[i]);
        }
        char title[96], y[64];
        snprintf(title, sizeof title, "%s", compare_metrics[m].name);
        title[0] = (char)(title[0] - 'a' + 'A');
        report_bars b = {
            title, y,
            np,    labels,
            v,     lo,
            hi,    colour,
            notes, strcmp(compare_metrics[m].unit, "%") == 0 ? 100 : 0,
            0,     NULL,
            NULL,  NULL};
        /* A duration in the unit its axis reads best in: the tables'
         * rule applied to how far the axis reaches (a p99 whisker to
         * 12.7 s: s, though the means are under 10 s). */
        double div;
        const char *unit = compare_unit_for(compare_metrics[m].unit,
                                            report_bars_reach(&b), &div);
        divide(v, (size_t)np, div);
        divide(lo, (size_t)np, div);
        divide(hi, (size_t)np, div);
        snprintf(y, sizeof y, "%s%s%s%s", compare_metrics[m].name,
                 *unit ? " (" : "", unit, *unit ? ")" : "");
        report_bars_add(d, &b);
    }
    skip_note(d, &sk);
}

/* A tier bar's hover, what its printed mean does not say: the 95 %
 * interval and the seeds it is over ("95 % interval 63.1 to 63.5x, over
 * 5 seeds"; "the same on all 5 seeds"; "1 seed: no interval"; "no
 * value"). */
static void tier_tip(const compare_numbers *num, const char *unit, size_t n,
                     char *buf, size_t len)
{
    char hi[48];
    if (num->mean[0] == '\0') {
        snprintf(buf, len, "no value");
    } else if (num->lo[0] == '\0') {
        snprintf(buf, len, "%zu seed%s: no interval", n, n == 1 ? "" : "s");
    } else if (strcmp(num->lo, num->hi) == 0) {
        snprintf(buf, len, "the same on all %zu seeds", n);
    } else {
        compare_with_unit(num->hi, unit, hi, sizeof hi);
        snprintf(buf, len, "95 %% interval %s to %s, over %zu seeds", num->lo,
                 hi, n);
    }
}

void compare_charts_tiers(report *d, const compare_result *r, uint32_t pt)
{
    const compare_plan *p = r->plan;
    int np = p->n_policies;
    if (r->n_tiers == 0)
        return;
    int f = compare_tier_lead_figure(r, pt);
    enum { MAX_BARS = SIM_MAX_TIERS * COMPARE_MAX_POLICIES };
    _Static_assert(SIM_MAX_TIERS <= REPORT_PANELS_MAX, "a panel per tier");
    /* Small multiples: a panel per tier, in the chain's order, each with
     * a bar per policy in the policy's colour, on one axis, so a tier's
     * policies compare side by side and the tiers' growth reads across
     * (one bar per tier and policy in a row was unreadable past a dozen:
     * 6 tiers x 8 policies is 48 bars of 14 pt with 2-line labels). */
    const char *labels[MAX_BARS], *titles[SIM_MAX_TIERS], *figures[MAX_BARS],
        *tips[MAX_BARS];
    /* Each bar says its mean ("63.6x"): on an axis up to db's 64 a
     * front's 1.0x is a sliver, but its figure still reads.  The hover
     * says the rest, not the mean again: "95 % interval 63.1 to 63.5x,
     * over 5 seeds". */
    char figure[MAX_BARS][48], tip[MAX_BARS][128];
    double v[MAX_BARS], lo[MAX_BARS], hi[MAX_BARS];
    int colour[MAX_BARS], n = 0;
    for (uint32_t t = 0; t < r->n_tiers; t++) {
        titles[t] = compare_tier_name(p, t);
        for (int i = 0; i < np; i++, n++) {
            const compare_stat *st = compare_tier_stat_at(r, pt, i, t, f);
            labels[n] = p->policies[i].label;
            compare_numbers num;
            compare_stat_numbers(st, &num);
            compare_with_unit(num.mean, compare_tier_figures[f].unit, figure[n],
                              sizeof figure[n]);
            figures[n] = num.mean[0] ? figure[n] : NULL;
            tier_tip(&num, compare_tier_figures[f].unit, st->ci.n, tip[n],
                     sizeof tip[n]);
            tips[n] = tip[n];
            v[n] = st->ci.mean;
            lo[n] = isfinite(st->ci.lo) ? st->ci.lo : st->ci.mean;
            hi[n] = isfinite(st->ci.hi) ? st->ci.hi : st->ci.mean;
            colour[n] = compare_charts_colour(i);
        }
    }
    report_heading(d, 2, "Attempts at each tier");
    char text[600];
    snprintf(text, sizeof text,
             "Attempts that reached each tier per "
             "request the clients offered, %s: the mean over the %u seed%s "
             "with its 95 %% interval. Each tier retries its calls to the "
             "next with its own policy (the scenario's [policy.NAME]); the "
             "policies compared replace the clients' policy only, whose "
             "attempts are the %s bars.",
             f == TF_DURING_AMP ? "during the faults" : "over the run",
             p->n_seeds, p->n_seeds == 1 ? "" : "s", compare_tier_name(p, 0));
    report_text(d, text);
    char title[96];
    snprintf(title, sizeof title, "Attempts per request at each tier%s",
             f == TF_DURING_AMP ? ", during the faults" : "");
    report_bars b = {title,
                     "attempts per request (x)",
                     n,
                     labels,
                     v,
                     lo,
                     hi,
                     colour,
                     NULL,
                     0,
                     (int)r->n_tiers,
                     titles,
                     figures,
                     tips};
    report_bars_add(d, &b);
}

/* The curve of a policy: for each quantile level q of its successes'
 * latency, the median over the seeds of that latency (x), at the share
 * of every request that ended q x the median success ratio (y, in %).  A
 * failed request has no latency -- it was never answered, a censored
 * observation -- so the curve levels off at the success ratio; of
 * successes alone the curves of very different policies coincide. */
static void latency_curve(const compare_result *r, uint32_t pt, int i,
                          double *col, double *x, double *y)
{
    const compare_plan *p = r->plan;
    int np = p->n_policies;
    size_t first = ((size_t)pt * (size_t)np + (size_t)i) * p->n_seeds;
    for (uint32_t k = 0; k < p->n_seeds; k++)
        col[k] = compare_metric_of(&r->runs[first + k], CM_SUCCESS_RATIO);
    double ok = stats_quantile(col, p->n_seeds, 0.5) / 100.0;
    for (int q = 0; q < COMPARE_CDF_POINTS; q++) {
        for (uint32_t k = 0; k < p->n_seeds; k++)
            col[k] = r->runs[first + k].latency_ms[q];
        x[q] = stats_quantile(col, p->n_seeds, 0.5);
        y[q] = compare_cdf_q[q] * ok * 100.0;
    }
}

void compare_charts_latency(report *d, const compare_result *r, uint32_t pt)
{
    const compare_plan *p = r->plan;
    int np = p->n_policies;
    double x[COMPARE_MAX_POLICIES][COMPARE_CDF_POINTS];
    double y[COMPARE_MAX_POLICIES][COMPARE_CDF_POINTS];
    double *col = malloc(p->n_seeds * sizeof *col);
    if (col == NULL) {
        report_fail(d, "out of memory");
        return;
    }
    report_series s[COMPARE_MAX_POLICIES];
    (void)stats_out_of_memory();
    for (int i = 0; i < np; i++) {
        latency_curve(r, pt, i, col, x[i], y[i]);
        s[i] = (report_series){p->policies[i].label,
                               x[i],
                               y[i],
                               NULL,
                               NULL,
                               COMPARE_CDF_POINTS,
                               compare_charts_colour(i),
                               i / 8,
                               false,
                               NULL};
    }
    free(col);
    if (stats_out_of_memory()) {
        report_fail(d, "out of memory");
        return;
    }
    report_heading(d, 2, "Latency of every request");
    char text[600];
    snprintf(text, sizeof text,
             "Of every request that ended, the share "
             "answered successfully within each latency, end to end "
             "(retries and their delays included): the median over the %u "
             "seeds. A failed request was never answered, so a curve levels "
             "off at its policy's success ratio; the gap above it is the "
             "requests that failed.",
             p->n_seeds);
    report_text(d, text);
    /* The curve is x = latency at quantile y: a report_lines with a log x
     * axis. */
    char x_label[32];
    report_lines lc = {"Latency distribution: successes, failures never "
                       "answered",
                       x_label,
                       "requests answered within (%)",
                       s,
                       np,
                       NULL,
                       0,
                       true,
                       0,
                       100,
                       false,
                       0,
                       NULL,
                       NULL};
    /* In the unit its x axis reads best in (the tables' rule applied to
     * the largest latency drawn). */
    double div;
    const char *unit =
        compare_unit_for("ms", report_lines_reach(&lc, true), &div);
    for (int i = 0; i < np; i++)
        divide(x[i], COMPARE_CDF_POINTS, div);
    snprintf(x_label, sizeof x_label, "latency (%s)", unit);
    report_lines_add(d, &lc);
}

/* ---- Sweeps ---------------------------------------------------------------------- */

/* A sweep point's value of a metric for its chart: the mean, with its
 * interval cut to the metric's domain (not below 0, a share not above
 * 100); for recovery and completion, +infinity (the chart's "never"
 * mark) where no seed got there. */
static void sweep_value(const compare_result *r, uint32_t k, int i,
                        compare_metric m, double *y, double *lo, double *hi)
{
    const compare_stat *st = compare_stat_at(r, k, i, m);
    *y = st->ci.mean;
    *lo = isfinite(st->ci.lo) ? fmax(st->ci.lo, 0.0) : st->ci.mean;
    *hi = isfinite(st->ci.hi) ? st->ci.hi : st->ci.mean;
    if (strcmp(compare_metrics[m].unit, "%") == 0)
        *hi = fmin(*hi, 100.0);
    if (m == CM_RECOVERY_S || m == CM_COMPLETION_S) {
        uint32_t failed = 0, applies = 0;
        compare_failures(r, k, i, m, &failed, &applies);
        if (failed > 0 && failed == applies) {
            *y = INFINITY;
            *lo = *hi = NAN;
        }
    }
}

/* The note of a sweep point where only some seeds recovered or
 * completed ("1 of 3 seeds never recovered"): its mean is over the
 * others, and the chart rings it.  NULL elsewhere. */
static const char *sweep_note(const compare_result *r, uint32_t k, int i,
                              compare_metric m, char *buf, size_t len)
{
    if (m != CM_RECOVERY_S && m != CM_COMPLETION_S)
        return NULL;
    uint32_t failed = 0, applies = 0;
    compare_failures(r, k, i, m, &failed, &applies);
    if (failed == 0 || failed == applies)
        return NULL;
    snprintf(buf, len, "%u of %u seeds never %s", failed, applies,
             m == CM_RECOVERY_S ? "recovered" : "completed");
    return buf;
}

#define NOTE_LEN 48

void compare_charts_sweep(report *d, const compare_result *r)
{
    const compare_plan *p = r->plan;
    const compare_axis *ax = &p->axes[0];
    int np = p->n_policies;
    uint32_t n = ax->n;
    size_t cells = (size_t)n * (size_t)np;
    double *buf = calloc((size_t)n * (1 + 3 * (size_t)np), sizeof *buf);
    char(*note)[NOTE_LEN] = calloc(cells, sizeof *note);
    const char **notes = calloc(cells, sizeof *notes);
    if (buf == NULL || note == NULL || notes == NULL) {
        report_fail(d, "out of memory");
        goto done;
    }
    double *x = buf;
    for (uint32_t k = 0; k < n; k++)
        x[k] = compare_axis_value(ax, k);
    char xl[160], head[200];
    snprintf(xl, sizeof xl, "%s%s%s%s",
             strcmp(ax->key, "load") == 0 ? "offered load / capacity" : ax->key,
             *ax->unit ? " (" : "", ax->unit, *ax->unit ? ")" : "");
    snprintf(head, sizeof head, "Against %s", xl);
    report_heading(d, 1, head);
    report_text(d, "Each line is a policy's mean over the seeds at each "
                   "value; the band is its 95 % confidence interval, cut "
                   "to what the quantity can be (not below 0, a share not "
                   "above 100 %). Recovery and completion are the means of "
                   "the seeds that got there: a ring marks a value where "
                   "only some did, a triangle on the top edge one where no "
                   "seed did.");
    skipped sk = {"", 0};
    for (int m = 0; m < CM_COUNT; m++) {
        if (!compare_metric_shown(p, (compare_metric)m))
            continue;
        report_series s[COMPARE_MAX_POLICIES];
        bool any_note = false;
        for (int i = 0; i < np; i++) {
            double *y = buf + n * (1 + 3 * (size_t)i), *lo = y + n,
                   *hi = lo + n;
            const char **nt = notes + (size_t)i * n;
            for (uint32_t k = 0; k < n; k++) {
                sweep_value(r, k, i, (compare_metric)m, &y[k], &lo[k], &hi[k]);
                nt[k] = sweep_note(r, k, i, (compare_metric)m,
                                   note[(size_t)i * n + k], NOTE_LEN);
                any_note = any_note || nt[k] != NULL;
            }
            s[i] = (report_series){
                p->policies[i].label,     x,     y,    lo, hi, n,
                compare_charts_colour(i), i / 8, true, nt};
        }
        bool none = true;
        for (int i = 0; i < np && none; i++)
            for (uint32_t k = 0; k < n && none; k++)
                none = isnan(s[i].y[k]);
        if (none) {
            skip(&sk, compare_metrics[m].name, "no run has a value");
            continue;
        }
        bool log = spans_decades(s, np);
        char title[96], y[80];
        snprintf(title, sizeof title, "%s", compare_metrics[m].name);
        title[0] = (char)(title[0] - 'a' + 'A');
        bool share = strcmp(compare_metrics[m].unit, "%") == 0;
        bool rec = m == CM_RECOVERY_S;
        report_lines lc = {title,
                           xl,
                           y,
                           s,
                           np,
                           NULL,
                           0,
                           false,
                           NAN,
                           NAN,
                           log,
                           share ? 100 : 0,
                           rec ? "no seed recovered" : "no seed completed",
                           !any_note ? NULL
                           : rec     ? "some seeds never recovered; the "
                                       "mean is over the others"
                                     : "some seeds never completed; the "
                                       "mean is over the others"};
        /* One unit along the sweep, the one its axis reads best in (the
         * tables' rule applied to how far it reaches). */
        double div;
        const char *unit = compare_unit_for(
            compare_metrics[m].unit, report_lines_reach(&lc, false), &div);
        divide(buf + n, n * 3 * (size_t)np, div);
        snprintf(y, sizeof y, "%s%s%s%s%s", compare_metrics[m].name,
                 *unit ? " (" : "", unit, *unit ? ")" : "",
                 log ? ", log scale" : "");
        report_lines_add(d, &lc);
    }
    skip_note(d, &sk);
done:
    free(buf);
    free(note);
    free(notes);
}

static void axis_label(const compare_axis *ax, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s",
             strcmp(ax->key, "load") == 0 ? "offered load / capacity" : ax->key,
             *ax->unit ? " (" : "", ax->unit, *ax->unit ? ")" : "");
}

/* Appends to text (of len, used so far in *used) and keeps *used at most
 * len. */
static void say(char *text, size_t len, size_t *used, const char *fmt, ...)
    SB_PRINTF(4, 5);
static void say(char *text, size_t len, size_t *used, const char *fmt, ...)
{
    if (*used >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text + *used, len - *used, fmt, ap);
    va_end(ap);
    *used = n < 0 ? len : fmin(len, *used + (size_t)n);
}

/* The values of the marked cells of a row ("at offered load 0.7,
 * 0.75"), or "from offered load 0.7 up" when they are the row's last
 * ones. */
static void row_cells(char *text, size_t len, size_t *used, const report_map *m,
                      const bool *mark, const char *xname, const char *unit)
{
    int first = -1, count = 0;
    for (int i = 0; i < m->nx; i++)
        if (mark[i]) {
            count++;
            first = first < 0 ? i : first;
        }
    if (count > 1 && count == m->nx - first) {
        say(text, len, used, "from %s %g%s up", xname, m->x[first], unit);
        return;
    }
    bool first_one = true;
    for (int i = 0; i < m->nx; i++)
        if (mark[i]) {
            say(text, len, used, "%s%s%s%g%s", first_one ? "at " : ", ",
                first_one ? xname : "", first_one ? " " : "", m->x[i], unit);
            first_one = false;
        }
}

/* Row j of the map in words: where most seeds tip (the boundary's
 * side), and which of the cells are bistable (their seeds split); the
 * cells too few seeds could tell are said once, after the rows. */
static void row_in_words(char *text, size_t len, size_t *used,
                         const report_map *m, int j, const char *xname,
                         const char *unit)
{
    bool tips[512], bi[512], none[512], any_tip = false, any_bi = false,
                                        any_k = false;
    int nx = m->nx < 512 ? m->nx : 512, judged = 0;
    for (int i = 0; i < nx; i++) {
        size_t c = (size_t)j * (size_t)m->nx + (size_t)i;
        tips[i] = 2 * m->tipped[c] > m->judged[c];
        bi[i] = report_map_cell(m, i, j) == REPORT_CELL_BISTABLE;
        none[i] = m->judged[c] == 0;
        any_tip |= tips[i];
        any_bi |= bi[i];
        any_k |= m->tipped[c] > 0;
        judged += !none[i];
    }
    /* A cell without a value is no evidence either way: "no seed
     * tipped" was said of a row where no seed was judged. */
    if (judged == 0) {
        say(text, len, used, "recovery not judged at any value");
        return;
    }
    if (any_tip) {
        say(text, len, used, "most seeds tip ");
        row_cells(text, len, used, m, tips, xname, unit);
    } else {
        say(text, len, used,
            any_k ? "fewer than half the seeds tip "
                    "anywhere"
                  : "no seed tipped");
    }
    if (any_bi) {
        say(text, len, used, " (bistable, the seeds split, ");
        row_cells(text, len, used, m, bi, xname, unit);
        say(text, len, used, ")");
    }
    if (judged < nx) {
        say(text, len, used, " (recovery not judged ");
        row_cells(text, len, used, m, none, xname, unit);
        say(text, len, used, ")");
    }
}

/* The map in words, row by row, from the same counts the map draws;
 * then, when some cell had too few seeds to be called either way, how
 * many it takes. */
static void map_in_words(report *d, const compare_axis *ax,
                         const compare_axis *ay, const report_map *m)
{
    char text[4096];
    size_t used = 0;
    const char *xname = strcmp(ax->key, "load") == 0 ? "offered load" : ax->key;
    bool too_few = false;
    uint32_t n_max = 0;
    for (int j = 0; j < m->ny; j++)
        for (int i = 0; i < m->nx; i++) {
            too_few |= report_map_cell(m, i, j) == REPORT_CELL_TOO_FEW;
            size_t c = (size_t)j * (size_t)m->nx + (size_t)i;
            n_max = m->judged[c] > n_max ? m->judged[c] : n_max;
        }
    say(text, sizeof text, &used, "Where it tips, by %s: ", ay->key);
    for (int j = 0; j < m->ny; j++) {
        say(text, sizeof text, &used, "%s%g%s: ", j ? "; " : "", m->y[j],
            ay->unit);
        row_in_words(text, sizeof text, &used, m, j, xname, ax->unit);
    }
    say(text, sizeof text, &used, ".");
    if (too_few && n_max < compare_tipping_seeds(0)) {
        char caveat[600];
        compare_tipping_caveat(n_max, "cell", caveat, sizeof caveat);
        say(text, sizeof text, &used, " %s", caveat);
    }
    report_text(d, text);
}

void compare_charts_maps(report *d, const compare_result *r)
{
    const compare_plan *p = r->plan;
    const compare_axis *ax = &p->axes[0], *ay = &p->axes[1];
    size_t cells = (size_t)ax->n * ay->n;
    double *x = calloc(ax->n + ay->n + cells, sizeof *x);
    uint32_t *counts = calloc(2 * cells, sizeof *counts);
    if (x == NULL || counts == NULL) {
        free(x);
        free(counts);
        report_fail(d, "out of memory");
        return;
    }
    double *y = x + ax->n, *v = y + ay->n;
    uint32_t *tipped = counts, *judged = counts + cells;
    for (uint32_t i = 0; i < ax->n; i++)
        x[i] = compare_axis_value(ax, i);
    for (uint32_t j = 0; j < ay->n; j++)
        y[j] = compare_axis_value(ay, j);
    char xl[160], yl[160], intro[900];
    axis_label(ax, xl, sizeof xl);
    axis_label(ay, yl, sizeof yl);
    report_heading(d, 1, "Stability maps");
    snprintf(intro, sizeof intro,
             "For each policy, every pair of swept "
             "values, %u seed%s each. Colour: the share of the seeds that "
             "tipped into a storm and never recovered after the last fault "
             "(metastable); in a cell, how many of how many, and the mean "
             "recovery of the others (never: none recovered). Hatched: "
             "bistable, the seeds split and the share's 95 %% interval "
             "(Wilson) includes one half.%s Thick line: where most seeds "
             "tip.",
             p->n_seeds, p->n_seeds == 1 ? "" : "s",
             p->n_seeds < compare_tipping_seeds(0)
                 ? " Dashed outline: too few seeds to tell, every seed "
                   "agreed but too few for that interval to exclude one "
                   "half."
                 : "");
    report_text(d, intro);
    for (int i = 0; i < p->n_policies; i++) {
        for (uint32_t k = 0; k < p->n_points; k++) {
            const compare_point *pt = &p->points[k];
            size_t cell = (size_t)pt->index[1] * ax->n + pt->index[0];
            compare_tipping t; /* the counts every table and verdict use */
            compare_tipping_of(r, k, i, &t);
            tipped[cell] = t.tipped;
            judged[cell] = t.n;
            v[cell] = compare_stat_at(r, k, i, CM_RECOVERY_S)->ci.mean;
        }
        report_map m = {p->policies[i].label,
                        xl,
                        yl,
                        (int)ax->n,
                        (int)ay->n,
                        x,
                        y,
                        tipped,
                        judged,
                        v,
                        "s",
                        "recovery was not judged on any seed (no fault, "
                        "no baseline before it, or no room after it)"};
        report_map_add(d, &m);
        map_in_words(d, ax, ay, &m);
    }
    free(x);
    free(counts);
}
