/*
 * report_chart.c -- line charts, bar charts and stability maps for
 * report.c, built from chart.h's panels.
 *
 * Every chart has the same frame: a title line, a plot area (0.19 of the
 * width high for a line chart, 0.13 for bars, 0.15 for a map: see
 * report_chart_height), tick labels, and the axis labels; a line
 * chart's legend goes under it, in as many rows as it needs, where it cannot hide a line (the
 * GUI's legend sits on the title line and wraps into the plot, which a
 * report with long policy names would fill).  Sizes scale with
 * REPORT_CHART_FONT.
 */
#include "report_chart.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chart.h"
#include "stats.h"

#define F REPORT_CHART_FONT
#define LEGEND_ITEMS 16

/* 0.19 of the width: two line charts with a legend row each fit under
 * a level-1 heading and three lines of text (a sweep's first page). */
static double plot_height(double width)
{
    return round(width * 0.19);
}

/* A panel's height around its plot: title line 1.9 em, tick labels 1.6
 * em and an x label line 1.5 em (chart_panel_init_axes). */
static double panel_height(double width)
{
    return plot_height(width) + F * 5.0;
}

static const chart_style *colour_of(int c)
{
    int k = c % CHART_PALETTE_SIZE;
    return &chart_palette[k < 0 ? k + CHART_PALETTE_SIZE : k];
}

/* text cut to one line of `width` in the current font, with an ellipsis
 * when cut, into buf; NULL when not even a character fits. */
static const char *fit_text(cairo_t *cr, const char *text, double width,
                            char *buf, size_t len)
{
    chart_line l;
    chart_wrap(cr, text, width, &l, 1);
    if (l.len == 0 && text[0])
        return NULL;
    snprintf(buf, len, "%.*s%s", (int)l.len, text + l.start,
             l.cut ? "\xe2\x80\xa6" : "");
    return buf;
}

/* Draw text wrapped to `width` in at most max lines, each `line` apart,
 * the first baseline at y; returns the lines drawn (or, when !draw, that
 * would be). */
static int text_block(cairo_t *cr, const char *text, double x, double y,
                      double width, double line, double align, int max,
                      bool draw)
{
    chart_line l[8];
    int n = chart_wrap(cr, text, width, l, max < 8 ? max : 8);
    for (int i = 0; draw && i < n; i++)
        chart_text_line(cr, x, y + i * line, align, text, &l[i]);
    return n;
}

/* ---- Line charts --------------------------------------------------------- */

static bool x_usable(const report_lines *c, double x)
{
    return isfinite(x) && (!c->x_log || x > 0);
}

/* The x axis: the data's and the spans' range, tight for a linear axis
 * (as the GUI's), out to 1-2-5 numbers for a log one. */
static void lines_x_range(const report_lines *c, double *lo, double *hi)
{
    double a = INFINITY, b = -INFINITY;
    for (int k = 0; k < c->n_series; k++)
        for (size_t i = 0; i < c->series[k].n; i++)
            if (x_usable(c, c->series[k].x[i])) {
                a = fmin(a, c->series[k].x[i]);
                b = fmax(b, c->series[k].x[i]);
            }
    for (int k = 0; k < c->n_spans; k++) {
        double e[2] = {c->spans[k].from, c->spans[k].to};
        for (int m = 0; m < 2; m++)
            if (x_usable(c, e[m])) {
                a = fmin(a, e[m]);
                b = fmax(b, e[m]);
            }
    }
    if (!(b >= a)) {
        a = c->x_log ? 1 : 0;
        b = c->x_log ? 10 : 1;
    }
    if (c->x_log)
        chart_log_range(&a, &b);
    else if (b == a)
        b = a + 1;
    *lo = a;
    *hi = b;
}

static void widen(double v, double *lo, double *hi)
{
    if (isfinite(v)) {
        *lo = fmin(*lo, v);
        *hi = fmax(*hi, v);
    }
}

/* The y axis: what the caller set, else 0 (or a nice number below a
 * negative minimum) to a nice top above the data and its bands, no
 * higher than the cap; a log axis from a 1-2-5 number below the
 * smallest positive value to one above the largest. */
static void lines_y_range(const report_lines *c, double *lo, double *hi)
{
    double a = INFINITY, b = -INFINITY;
    for (int k = 0; k < c->n_series; k++) {
        const report_series *s = &c->series[k];
        for (size_t i = 0; i < s->n; i++) {
            if (!x_usable(c, s->x[i]))
                continue;
            const double v[3] = {s->y[i], s->lo ? s->lo[i] : NAN,
                                 s->hi ? s->hi[i] : NAN};
            for (int m = 0; m < 3; m++)
                if (!c->y_log || v[m] > 0)
                    widen(v[m], &a, &b);
        }
    }
    if (c->y_log) {
        *lo = isfinite(c->y_min) && c->y_min > 0 ? c->y_min : a;
        *hi = isfinite(c->y_max) ? c->y_max : b;
        chart_log_range(lo, hi);
        return;
    }
    *lo = isfinite(c->y_min) ? c->y_min : a < 0 ? -chart_axis_top(-a, 0) : 0.0;
    /* A top that the data reach exactly (250 on an axis to 250) would
     * put a line under the plot's frame, where it cannot be seen: the
     * next nice top up then. */
    double top = b > 0 ? chart_axis_top(b, 0) : 0;
    if (b > 0 && top - b < (top - *lo) * 0.02)
        top = chart_axis_top(b + (top - *lo) * 0.05, 0);
    *hi = isfinite(c->y_max) ? c->y_max : b > 0 ? top : *lo < 0 ? 0.0 : 1.0;
    if (!isfinite(c->y_max) && c->y_cap > 0 && *hi > c->y_cap && c->y_cap > *lo)
        *hi = c->y_cap;
    if (!(*hi > *lo))
        *hi = *lo + 1.0;
}

static chart_style series_style(const report_series *s)
{
    chart_style st = *colour_of(s->colour);
    st.dash = s->dash;
    return st;
}

/* Does series b draw the same line as series a: the same points, each
 * y within a millionth of the axis (NaN where the other is NaN)? */
static bool same_line(const report_series *a, const report_series *b,
                      double span)
{
    if (a->n != b->n || a->n == 0)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        if (a->x[i] != b->x[i] && !(isnan(a->x[i]) && isnan(b->x[i])))
            return false;
        double ya = a->y[i], yb = b->y[i];
        if (isnan(ya) != isnan(yb) ||
            (!isnan(ya) && ya != yb && !(fabs(ya - yb) <= span * 1e-6)))
            return false;
    }
    return true;
}

/* Legend labels: room for "NAME (same as OTHER)". */
#define LABEL_MAX 400
typedef struct legend_buf {
    chart_legend_item items[LEGEND_ITEMS];
    chart_style styles[LEGEND_ITEMS];
    char labels[LEGEND_ITEMS][LABEL_MAX];
} legend_buf;

static bool any_never(const report_lines *c)
{
    for (int k = 0; k < c->n_series; k++)
        for (size_t i = 0; i < c->series[k].n; i++)
            if (isinf(c->series[k].y[i]) && c->series[k].y[i] > 0 &&
                x_usable(c, c->series[k].x[i]))
                return true;
    return false;
}

static const chart_style never_style = {0.16, 0.16, 0.16, 1.0, 1.0, 0};

static bool any_partial(const report_lines *c)
{
    for (int k = 0; k < c->n_series; k++)
        for (size_t i = 0; c->series[k].notes && i < c->series[k].n; i++)
            if (c->series[k].notes[i] && isfinite(c->series[k].y[i]) &&
                x_usable(c, c->series[k].x[i]))
                return true;
    return false;
}

const char *report_lines_never_label(const report_lines *c, char *buf,
                                     size_t len);

/* The legend's items: one per labelled series, "(same as ...)" after a
 * series hidden under an earlier one, and a last item for the marks of
 * "never" when there are any. */
static int lines_legend(const report_lines *c, legend_buf *L)
{
    double ylo, yhi;
    lines_y_range(c, &ylo, &yhi);
    int n = 0;
    for (int k = 0; k < c->n_series && n < LEGEND_ITEMS; k++) {
        const report_series *s = &c->series[k];
        if (s->label == NULL)
            continue;
        snprintf(L->labels[n], LABEL_MAX, "%s", s->label);
        for (int j = 0; j < k; j++)
            if (c->series[j].label && same_line(&c->series[j], s, yhi - ylo)) {
                snprintf(L->labels[n], LABEL_MAX, "%s (same as %s)", s->label,
                         c->series[j].label);
                break;
            }
        L->styles[n] = series_style(s);
        L->items[n] =
            (chart_legend_item){L->labels[n], &L->styles[n],
                                s->lo != NULL && s->hi != NULL, s->points};
        n++;
    }
    if (any_partial(c) && n < LEGEND_ITEMS) {
        snprintf(L->labels[n], LABEL_MAX, "\xe2\x97\x8b ringed: %s",
                 c->partial ? c->partial : "only some seeds");
        L->styles[n] = never_style;
        L->styles[n].a = 0.0;
        L->items[n] =
            (chart_legend_item){L->labels[n], &L->styles[n], false, false};
        n++;
    }
    if (any_never(c) && n < LEGEND_ITEMS) {
        report_lines_never_label(c, L->labels[n], LABEL_MAX);
        L->styles[n] = never_style;
        L->styles[n].a = 0.0; /* no line in the swatch: the mark says it */
        L->items[n] =
            (chart_legend_item){L->labels[n], &L->styles[n], false, false};
        n++;
    }
    return n;
}

/* Where the legend goes: under the x label, from the plot's left edge. */
static double legend_x(void)
{
    return F * 5.5;
}

static double lines_legend_height(cairo_t *cr, const report_lines *c,
                                  double width)
{
    legend_buf L;
    int n = lines_legend(c, &L);
    if (n == 0)
        return 0.0;
    return F * 0.4 + chart_legend_rows(cr, 0, 0, width - legend_x() - F, F,
                                       L.items, n, false);
}

/* Shade the spans; a label is cut to the room before the next span. */
static void lines_spans(cairo_t *cr, const chart_panel *p,
                        const report_lines *c)
{
    cairo_save(cr);
    chart_font(cr, p->font_px * 0.75, false);
    for (int k = 0; k < c->n_spans; k++) {
        const report_span *s = &c->spans[k];
        double x0 = fmax(chart_scale_map(&p->x, s->from), p->plot.x);
        double room = p->plot.x + p->plot.w - x0;
        for (int m = 0; m < c->n_spans; m++) {
            double xm = chart_scale_map(&p->x, c->spans[m].from);
            if (m != k && xm > x0 && xm - x0 < room)
                room = xm - x0;
        }
        char buf[256];
        const char *label =
            s->label ? fit_text(cr, s->label, room - p->font_px * 0.5, buf,
                                sizeof buf)
                     : NULL;
        chart_panel_window(cr, p, s->from, s->to, label);
    }
    cairo_restore(cr);
}

/* A mark on the plot's top edge at each x where a series' y is
 * +infinity: a triangle pointing up, in the series' colour, outlined. */
static void lines_never(cairo_t *cr, const chart_panel *p,
                        const report_lines *c, int only)
{
    double r = F * 0.45, top = p->plot.y + r * 0.9;
    cairo_save(cr);
    for (int k = 0; k < c->n_series; k++) {
        if (only >= 0 && k != only)
            continue;
        const report_series *s = &c->series[k];
        const chart_style *st = colour_of(s->colour);
        for (size_t i = 0; i < s->n; i++) {
            double x = chart_scale_map(&p->x, s->x[i]);
            if (!(isinf(s->y[i]) && s->y[i] > 0) || !isfinite(x))
                continue;
            cairo_move_to(cr, x, top - r * 0.9);
            cairo_line_to(cr, x + r, top + r * 0.8);
            cairo_line_to(cr, x - r, top + r * 0.8);
            cairo_close_path(cr);
            cairo_set_source_rgba(cr, st->r, st->g, st->b, 1.0);
            cairo_fill_preserve(cr);
            cairo_set_source_rgb(cr, never_style.r, never_style.g,
                                 never_style.b);
            cairo_set_line_width(cr, F / 14.0);
            cairo_stroke(cr);
        }
    }
    cairo_restore(cr);
}

/* A ring around each point of a series that has a note: the point
 * stands for only some of the seeds.  In ink, not the series' colour,
 * so it reads on every line, and wider than chart_panel_points' dot. */
static void lines_partial(cairo_t *cr, const chart_panel *p,
                          const report_lines *c, int only)
{
    cairo_save(cr);
    cairo_set_source_rgb(cr, never_style.r, never_style.g, never_style.b);
    cairo_set_line_width(cr, F / 10.0);
    for (int k = 0; k < c->n_series; k++) {
        const report_series *s = &c->series[k];
        if ((only >= 0 && k != only) || s->notes == NULL)
            continue;
        for (size_t i = 0; i < s->n; i++) {
            double x = chart_scale_map(&p->x, s->x[i]);
            double y = chart_scale_map(&p->y, s->y[i]);
            if (s->notes[i] == NULL || !isfinite(x) || !isfinite(y))
                continue;
            cairo_new_sub_path(cr);
            cairo_arc(cr, x, y, F * 0.5, 0, 6.28318530717958647692);
            cairo_stroke(cr);
        }
    }
    cairo_restore(cr);
}

/* Every series (only < 0) or series `only` alone: bands first, so no
 * band covers a line. */
static void lines_data(cairo_t *cr, const chart_panel *p, const report_lines *c,
                       int only)
{
    for (int k = 0; k < c->n_series; k++) {
        const report_series *s = &c->series[k];
        if (s->lo && s->hi && (only < 0 || k == only))
            chart_panel_band(cr, p, s->x, s->lo, s->hi, s->n,
                             colour_of(s->colour));
    }
    for (int k = 0; k < c->n_series; k++) {
        if (only >= 0 && k != only)
            continue;
        const report_series *s = &c->series[k];
        chart_style st = series_style(s);
        chart_data d = {s->x, s->y, s->n, 0};
        chart_panel_series(cr, p, NULL, &d, &st);
        if (s->points)
            chart_panel_points(cr, p, &d, &st);
    }
    lines_partial(cr, p, c, only);
    lines_never(cr, p, c, only);
}

static double lines_height(cairo_t *cr, const report_lines *c, double width)
{
    return panel_height(width) + lines_legend_height(cr, c, width);
}

/* A symlog y axis (chart_scale) when the caller set no range, no value
 * is below 0, and a series whose peak, though above 0, is under a
 * hundredth of the highest peak: on a linear axis it would lie within
 * 1.4 pt of the zero line (a plot is 144 pt high), drawn as if it were
 * 0.  retry-storm's queue: 120k for immediate, under 10 for the rest. */
static bool lines_symlog(const report_lines *c)
{
    if (c->y_log || isfinite(c->y_min) || isfinite(c->y_max))
        return false;
    double top = 0, low_peak = INFINITY;
    for (int k = 0; k < c->n_series; k++) {
        const report_series *s = &c->series[k];
        double peak = 0;
        for (size_t i = 0; i < s->n; i++) {
            double v = s->y[i];
            if (isfinite(v) && v < 0)
                return false;
            if (isfinite(v))
                peak = fmax(peak, v);
        }
        top = fmax(top, peak);
        if (peak > 0)
            low_peak = fmin(low_peak, peak);
    }
    return top > 0 && low_peak < top / 100;
}

/* The panel of a line chart `height` high (its legend, when it has one
 * under it, included). */
static void lines_panel(const report_lines *c, double width, double height,
                        double legend_h, chart_panel *p)
{
    double xl, xh, yl, yh;
    lines_x_range(c, &xl, &xh);
    lines_y_range(c, &yl, &yh);
    chart_axes ax = {c->x_label, c->y_label, c->x_log, c->y_log,
                     lines_symlog(c)};
    chart_panel_init_axes(p, (chart_rect){0, 0, width, height - legend_h},
                          c->title, &ax, xl, xh, yl, yh, F);
}

static void lines_draw(cairo_t *cr, const report_lines *c, double width,
                       double height, int layer)
{
    bool legend = layer == REPORT_LAYER_ALL;
    double lh = legend ? lines_legend_height(cr, c, width) : 0.0;
    chart_panel p;
    lines_panel(c, width, height, lh, &p);
    if (layer < 0) {
        chart_panel_frame(cr, &p);
        lines_spans(cr, &p, c);
    }
    if (layer != REPORT_LAYER_FRAME)
        lines_data(cr, &p, c, layer);
    if (!legend)
        return;
    legend_buf L;
    int n = lines_legend(c, &L);
    chart_legend_rows(cr, legend_x(), height - lh + F * 0.4,
                      width - legend_x() - F, F, L.items, n, true);
}

double report_lines_reach(const report_lines *c, bool x_axis)
{
    double lo, hi;
    if (x_axis ? !c->x_log : !c->y_log) {
        if (x_axis)
            lines_x_range(c, &lo, &hi);
        else
            lines_y_range(c, &lo, &hi);
        return hi;
    }
    double top = 0.0;
    for (int k = 0; k < c->n_series; k++) {
        const report_series *s = &c->series[k];
        for (size_t i = 0; i < s->n; i++) {
            double v = x_axis ? s->x[i] : fmax(s->y[i], s->hi ? s->hi[i] : NAN);
            if (isfinite(v) && x_usable(c, s->x[i]))
                top = fmax(top, v);
        }
    }
    return top;
}

chart_rect report_lines_plot(const report_lines *c, double width, double height)
{
    chart_panel p;
    lines_panel(c, width, height, 0.0, &p);
    return p.plot;
}

void report_lines_colour(const report_lines *c, int k, char out[8])
{
    const chart_style *st = colour_of(c->series[k].colour);
    snprintf(out, 8, "#%02x%02x%02x", (int)lround(st->r * 255) & 255,
             (int)lround(st->g * 255) & 255, (int)lround(st->b * 255) & 255);
}

const char *report_lines_label(const report_lines *c, int k, char *buf,
                               size_t len)
{
    legend_buf L;
    int n = lines_legend(c, &L), item = 0;
    for (int j = 0; j < k && j < c->n_series; j++)
        item += c->series[j].label != NULL;
    snprintf(buf, len, "%s",
             c->series[k].label && item < n ? L.labels[item] : "");
    return buf;
}

const char *report_lines_never_label(const report_lines *c, char *buf,
                                     size_t len)
{
    if (!any_never(c))
        return NULL;
    snprintf(buf, len, "\xe2\x96\xb2 on the top edge: %s",
             c->never ? c->never : "never");
    return buf;
}

/* ---- A line chart's data, for the HTML's script ---------------------------- */

static void json_num(FILE *f, double v)
{
    if (isnan(v))
        fputs("null", f);
    else if (isinf(v))
        fputs(v > 0 ? "\"inf\"" : "null", f);
    else
        fprintf(f, "%.6g", v);
}

static void json_nums(FILE *f, const double *v, size_t n)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        json_num(f, v ? v[i] : NAN);
    }
    fputc(']', f);
}

/* A JSON string, escaped; inside a <script> element, so '<' is written
 * as \u003c and no "</script" can end it early. */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&')
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* The unit of an axis label: what is in its last parentheses ("time
 * (s)": "s"), else the label itself ("attempts/s"). */
static void label_unit(const char *label, char *buf, size_t len)
{
    const char *open = label ? strrchr(label, '(') : NULL;
    const char *close = open ? strchr(open, ')') : NULL;
    if (open && close)
        snprintf(buf, len, "%.*s", (int)(close - open - 1), open + 1);
    else
        snprintf(buf, len, "%s", label ? label : "");
}

static void json_colour(FILE *f, const chart_style *st)
{
    fprintf(f, "\"#%02x%02x%02x\"", (int)lround(st->r * 255),
            (int)lround(st->g * 255), (int)lround(st->b * 255));
}

/* The first series before series k with the same x values, or -1: its
 * x is then written as that series' number, not repeated (a time chart's
 * series share their buckets; 2 kB each of 300). */
static int same_x_as(const report_lines *c, int k)
{
    const report_series *s = &c->series[k];
    for (int j = 0; j < k; j++) {
        const report_series *o = &c->series[j];
        if (o->n == s->n && o->x && s->x &&
            (o->x == s->x || memcmp(o->x, s->x, s->n * sizeof *s->x) == 0))
            return j;
    }
    return -1;
}

void report_lines_json(FILE *f, cairo_t *cr, const report_lines *c,
                       double width, double height)
{
    (void)cr;
    chart_panel p;
    lines_panel(c, width, height, 0.0, &p);
    char unit[128];
    fprintf(f,
            "{\"w\":%.6g,\"h\":%.6g,\"font\":%.6g,\"plot\":[%.6g,%.6g,"
            "%.6g,%.6g],\"x\":[%.9g,%.9g],\"y\":[%.9g,%.9g],\"xlog\":%s,"
            "\"ylog\":%s,\"ysymlog\":%s,\"xunit\":",
            width, height, F, p.plot.x, p.plot.y, p.plot.w, p.plot.h, p.x.lo,
            p.x.hi, p.y.lo, p.y.hi, c->x_log ? "true" : "false",
            c->y_log ? "true" : "false", p.y.symlog ? "true" : "false");
    /* A unit only when the label has one in parentheses ("time (s)");
     * else the hover names the axis: "offered load / capacity 0.8". */
    label_unit(c->x_label, unit, sizeof unit);
    json_str(f, c->x_label && strchr(c->x_label, '(') ? unit : "");
    fputs(",\"xname\":", f);
    json_str(f, c->x_label ? c->x_label : "");
    fputs(",\"yunit\":", f);
    label_unit(c->y_label, unit, sizeof unit);
    json_str(f, unit);
    fputs(",\"never\":", f);
    json_str(f, c->never ? c->never : "never");
    fputs(",\"spans\":[", f);
    for (int k = 0; k < c->n_spans; k++) {
        fprintf(f, "%s[", k ? "," : "");
        json_num(f, c->spans[k].from);
        fputc(',', f);
        json_num(f, c->spans[k].to);
        fputc(',', f);
        json_str(f, c->spans[k].label);
        fputc(']', f);
    }
    fputs("],\"series\":[", f);
    for (int k = 0; k < c->n_series; k++) {
        const report_series *s = &c->series[k];
        fprintf(f, "%s{\"label\":", k ? "," : "");
        json_str(f, s->label);
        fputs(",\"colour\":", f);
        json_colour(f, colour_of(s->colour));
        fprintf(f, ",\"dash\":%d,\"points\":%s,\"x\":", s->dash,
                s->points ? "true" : "false");
        int same = same_x_as(c, k);
        if (same >= 0)
            fprintf(f, "%d", same);
        else
            json_nums(f, s->x, s->n);
        fputs(",\"y\":", f);
        json_nums(f, s->y, s->n);
        if (s->lo && s->hi) {
            fputs(",\"lo\":", f);
            json_nums(f, s->lo, s->n);
            fputs(",\"hi\":", f);
            json_nums(f, s->hi, s->n);
        }
        if (s->notes) {
            fputs(",\"notes\":[", f);
            for (size_t i = 0; i < s->n; i++) {
                if (i)
                    fputc(',', f);
                if (s->notes[i])
                    json_str(f, s->notes[i]);
                else
                    fputs("null", f);
            }
            fputc(']', f);
        }
        fputc('}', f);
    }
    fputs("]}", f);
}

/* ---- Bar charts ---------------------------------------------------------- */

#define NOTE_FONT (F * 0.75)
#define NOTE_LINE (NOTE_FONT * 1.2)
#define NOTE_LINES 3
#define LABEL_FONT (F * 0.85)
#define LABEL_LINE (LABEL_FONT * 1.15)

static bool bar_never(const report_bars *c, int i)
{
    return isinf(c->value[i]) && c->value[i] > 0;
}

/* The top of bar i's whisker (or bar), where its note sits; 0 without
 * either. */
static double bar_top(const report_bars *c, int i)
{
    if (bar_never(c, i))
        return 0.0; /* its note goes inside it */
    double t = isfinite(c->value[i]) ? c->value[i] : 0.0;
    if (c->hi && isfinite(c->hi[i]))
        t = fmax(t, c->hi[i]);
    return t;
}

static double bars_low(const report_bars *c)
{
    double lo = 0.0;
    for (int i = 0; i < c->n; i++) {
        if (isfinite(c->value[i]))
            lo = fmin(lo, c->value[i]);
        if (c->lo && isfinite(c->lo[i]) && isfinite(c->value[i]))
            lo = fmin(lo, fmax(c->lo[i], 0.0 * (c->value[i] >= 0)));
    }
    return lo < 0 ? -chart_axis_top(-lo, 0) : 0.0;
}

/* The lines of bar i's note at the slot's width. */
static int note_lines(cairo_t *cr, const report_bars *c, int i, double slot)
{
    if (c->notes == NULL || c->notes[i] == NULL || !c->notes[i][0])
        return 0;
    chart_font(cr, NOTE_FONT, false);
    return text_block(cr, c->notes[i], 0, 0, slot * 0.94, NOTE_LINE, 0.5,
                      NOTE_LINES, false);
}

/* ---- Figures above bars ---- */

#define FIGURE_GAP (F * 0.3) /* between neighbouring bars' figures */
#define FIGURE_SMALLEST (NOTE_FONT * 0.8)

/* How every figure of a chart is set: at one size, level or upright. */
typedef struct figure_set {
    double size;
    bool upright;
} figure_set;

static const char *figure_of(const report_bars *c, int i)
{
    if (c->figures == NULL || c->figures[i] == NULL || !c->figures[i][0] ||
        bar_never(c, i))
        return NULL;
    return c->figures[i];
}

/* The widest of c's figures at `size`. */
static double figures_widest(cairo_t *cr, const report_bars *c, double size)
{
    double w = 0.0;
    cairo_save(cr);
    chart_font(cr, size, false);
    for (int i = 0; i < c->n; i++)
        if (figure_of(c, i))
            w = fmax(w, chart_text_width(cr, figure_of(c, i)));
    cairo_restore(cr);
    return w;
}

/* A line's height at `size`: the font's ascent and descent. */
static double figure_line(cairo_t *cr, double size, double *ascent)
{
    cairo_font_extents_t fe;
    cairo_save(cr);
    chart_font(cr, size, false);
    cairo_font_extents(cr, &fe);
    cairo_restore(cr);
    if (ascent)
        *ascent = fe.ascent;
    return fe.ascent + fe.descent;
}

/* Level at a note's size when the widest figure fits its slot (less a
 * gap to the next); else level at the size at which it fits, down to
 * FIGURE_SMALLEST; else upright at a note's size (or less, should even
 * a line not fit: 16 bars in a third of a page still leave 9 pt).  One
 * choice for the chart, so that figures side by side compare.  Never
 * cut: in 8 bars of a tier panel 0.533x was drawn "0.5...", which says
 * nothing; nor with fewer digits than the tables print. */
static figure_set figures_set(cairo_t *cr, const report_bars *c, double slot)
{
    double room = slot - FIGURE_GAP;
    double w = figures_widest(cr, c, NOTE_FONT);
    if (w <= room)
        return (figure_set){NOTE_FONT, false};
    /* Widths do not scale exactly with the size (hinting): measured. */
    double size = NOTE_FONT * room / w;
    while (size >= FIGURE_SMALLEST && figures_widest(cr, c, size) > room)
        size *= 0.98;
    if (size >= FIGURE_SMALLEST)
        return (figure_set){size, false};
    double line = figure_line(cr, NOTE_FONT, NULL);
    return (figure_set){line <= room ? NOTE_FONT : NOTE_FONT * room / line,
                        true};
}

/* Bar i's figure in panel p, set as fs: its box (the advance by the
 * font's height, turned when upright) standing F * 0.35 above the
 * bar's top (its whisker's), centred on the bar. */
static void figure_place(cairo_t *cr, const report_bars *c,
                         const chart_panel *p, int i, const figure_set *fs,
                         report_figure *out)
{
    double slot = p->plot.w / c->n, x = p->plot.x + slot * (i + 0.5);
    double base = chart_scale_map(&p->y, bar_top(c, i)) - F * 0.35, ascent;
    double line = figure_line(cr, fs->size, &ascent);
    cairo_save(cr);
    chart_font(cr, fs->size, false);
    double w = chart_text_width(cr, figure_of(c, i));
    cairo_restore(cr);
    out->slot = (chart_rect){p->plot.x + slot * i, p->plot.y, slot, p->plot.h};
    out->text = figure_of(c, i);
    out->size = fs->size;
    out->upright = fs->upright;
    if (fs->upright)
        out->box = (chart_rect){x - line / 2, base - w, line, w};
    else
        out->box = (chart_rect){x - w / 2, base - ascent, w, line};
}

static void figure_draw(cairo_t *cr, const report_figure *f)
{
    double ascent;
    figure_line(cr, f->size, &ascent);
    cairo_save(cr);
    chart_font(cr, f->size, false);
    if (f->upright) {
        /* turned a quarter left: the glyphs' tops face left */
        cairo_translate(cr, f->box.x + ascent, f->box.y + f->box.h);
        cairo_rotate(cr, -1.57079632679489661923); /* -pi/2 */
        chart_text(cr, 0, 0, 0.0, f->text);
    } else {
        chart_text(cr, f->box.x, f->box.y + ascent, 0.0, f->text);
    }
    cairo_restore(cr);
}

/* The room bar i needs above its top for its figure or note. */
static double bar_room(cairo_t *cr, const report_bars *c, int i, double slot,
                       const figure_set *fs)
{
    if (figure_of(c, i) == NULL)
        return note_lines(cr, c, i, slot) * NOTE_LINE + F * 0.5;
    if (!fs->upright)
        return figure_line(cr, fs->size, NULL) + F * 0.5;
    double w;
    cairo_save(cr);
    chart_font(cr, fs->size, false);
    w = chart_text_width(cr, figure_of(c, i));
    cairo_restore(cr);
    return w + F * 0.5;
}

/* The axis top that leaves every note room above its bar: bar i's top
 * must map at least its note's height below the plot's top, so the axis
 * spans (top_i - lo) / (1 - note_i / plot height) above lo. */
static double bars_top(cairo_t *cr, const report_bars *c, const chart_panel *p,
                       double lo, const figure_set *fs)
{
    double need = 0.0;
    double slot = p->plot.w / (c->n > 0 ? c->n : 1);
    for (int i = 0; i < c->n; i++) {
        double room = bar_room(cr, c, i, slot, fs);
        double share = fmax(0.2, 1.0 - room / p->plot.h);
        need = fmax(need, (bar_top(c, i) - lo) / share);
    }
    double top = lo + chart_axis_top(need, 0);
    return c->y_cap > 0 && top > c->y_cap ? c->y_cap : top;
}

double report_bars_reach(const report_bars *c)
{
    double lo = bars_low(c), top = 0.0;
    for (int i = 0; i < c->n; i++)
        top = fmax(top, bar_top(c, i) - lo);
    top = lo + chart_axis_top(top, 0);
    return c->y_cap > 0 && top > c->y_cap ? c->y_cap : top;
}

static void bars_notes_labels(cairo_t *cr, const chart_panel *p,
                              const report_bars *c, const figure_set *fs)
{
    double slot = p->plot.w / c->n;
    cairo_save(cr);
    cairo_set_source_rgb(cr, chart_ink.r, chart_ink.g, chart_ink.b);
    for (int i = 0; i < c->n; i++) {
        double x = p->plot.x + slot * (i + 0.5);
        if (figure_of(c, i)) {
            report_figure f;
            figure_place(cr, c, p, i, fs, &f);
            figure_draw(cr, &f);
        }
        /* note_lines sets the note font when there is a note */
        int n = figure_of(c, i) ? 0 : note_lines(cr, c, i, slot);
        double y = chart_scale_map(&p->y, bar_top(c, i)) - F * 0.35 -
                   (n - 1) * NOTE_LINE;
        if (bar_never(c, i))
            y = p->plot.y + F * 1.2;
        if (n > 0 && bar_never(c, i)) { /* on a backing, over the hatch */
            cairo_set_source_rgba(cr, 1, 1, 1, 0.9);
            cairo_rectangle(cr, x - slot * 0.3, y - NOTE_FONT, slot * 0.6,
                            n * NOTE_LINE + NOTE_FONT * 0.3);
            cairo_fill(cr);
            cairo_set_source_rgb(cr, chart_ink.r, chart_ink.g, chart_ink.b);
        }
        if (n > 0)
            text_block(cr, c->notes[i], x, y, slot * 0.94, NOTE_LINE, 0.5,
                       NOTE_LINES, true);
        else if (c->value[i] == 0 && !figure_of(c, i)) /* no bar: say it */
            chart_text(cr, x, chart_scale_map(&p->y, 0) - F * 0.35, 0.5, "0");
        chart_font(cr, LABEL_FONT, false);
        if (c->labels && c->labels[i])
            text_block(cr, c->labels[i], x,
                       p->plot.y + p->plot.h + LABEL_FONT * 1.3, slot * 0.94,
                       LABEL_LINE, 0.5, 2, true);
    }
    cairo_restore(cr);
}

/* A bar that never reached a value: hatched in its colour from 0 to the
 * axis top, outlined dashed, so it reads as "off the scale", not as a
 * short bar or a missing one. */
static void bar_never_draw(cairo_t *cr, const chart_panel *p, int n, int i,
                           const chart_style *st)
{
    chart_rect b = chart_bar_rect(p, n, i, 0.6, p->y.hi);
    cairo_save(cr);
    cairo_set_source_rgba(cr, st->r, st->g, st->b, 0.18);
    cairo_rectangle(cr, b.x, b.y, b.w, b.h);
    cairo_fill(cr);
    chart_style h = *st;
    h.a = 0.9;
    h.width = F * 0.12;
    chart_hatch(cr, b, F * 0.6, &h);
    cairo_set_source_rgba(cr, chart_ink.r, chart_ink.g, chart_ink.b, 0.7);
    cairo_set_line_width(cr, F / 14.0);
    double dash[] = {F * 0.4, F * 0.25};
    cairo_set_dash(cr, dash, 2, 0);
    cairo_rectangle(cr, b.x, b.y, b.w, b.h);
    cairo_stroke(cr);
    cairo_restore(cr);
}

/* A single bar chart's panel, and how its figures are set. */
static void bars_panel(cairo_t *cr, const report_bars *c, double width,
                       double height, chart_panel *p, figure_set *fs)
{
    /* The labels take the x label's line as their second. */
    chart_rect outer = {0, 0, width, height - F * 1.5};
    chart_axes ax = {NULL, c->y_label, false, false, false};
    double lo = bars_low(c);
    chart_panel_init_axes(p, outer, c->title, &ax, 0, 1, lo, lo + 1, F);
    *fs = figures_set(cr, c, p->plot.w / (c->n > 0 ? c->n : 1));
    double top = c->n > 0 ? bars_top(cr, c, p, lo, fs) : lo + 1;
    chart_panel_init_axes(p, outer, c->title, &ax, 0, 1, lo, top, F);
    p->xt.count = 0;
}

/* The bars of c in the panel p, framed: each with its whisker, note and
 * label. */
static void bars_in(cairo_t *cr, const report_bars *c, const chart_panel *p0,
                    const figure_set *fs)
{
    chart_panel p = *p0;
    chart_panel_frame(cr, &p);
    if (c->n <= 0)
        return;
    for (int i = 0; i < c->n; i++) {
        const chart_style *st = colour_of(c->colour ? c->colour[i] : i);
        if (bar_never(c, i)) {
            bar_never_draw(cr, &p, c->n, i, st);
            continue;
        }
        /* The whisker within the axis: [0, cap] for what cannot be
         * negative or above the cap. */
        double wl = c->lo ? c->lo[i] : NAN, wh = c->hi ? c->hi[i] : NAN;
        if (isfinite(wl) && c->value[i] >= 0)
            wl = fmax(wl, 0.0);
        if (isfinite(wh) && c->y_cap > 0)
            wh = fmin(wh, c->y_cap);
        chart_panel_bar(cr, &p, c->n, i, c->value[i], wl, wh, st);
    }
    bars_notes_labels(cr, &p, c, fs);
}

/* ---- Small multiples of bars --------------------------------------------- */

#define GRID_TITLE (F * 1.9)

static bool grid_on(const report_bars *c)
{
    return c->panels > 1 && c->n >= c->panels;
}

static int grid_count(const report_bars *c)
{
    return c->panels < REPORT_PANELS_MAX ? c->panels : REPORT_PANELS_MAX;
}

void report_grid_layout(int panels, double width, report_grid *g)
{
    int n = panels < 1                   ? 1
            : panels > REPORT_PANELS_MAX ? REPORT_PANELS_MAX
                                         : panels;
    g->cols = n <= 3 ? n : n == 4 ? 2 : 3;
    g->rows = (n + g->cols - 1) / g->cols;
    double pw = (width - F * 1.3 - g->cols * F * 5.8) / g->cols;
    double ph = round(width * 0.13);
    g->row_h = F * 1.9 + ph + F * 1.6;
    for (int k = 0; k < n; k++) {
        int row = k / g->cols, col = k % g->cols;
        double label = col == 0 ? F * 1.3 : 0.0; /* the y label's line */
        g->outer[k] = (chart_rect){
            col == 0 ? 0.0 : F * 1.3 + col * (F * 5.8 + pw),
            GRID_TITLE + row * g->row_h, label + F * 5.8 + pw, g->row_h};
        g->plot[k] = (chart_rect){g->outer[k].x + label + F * 4.2,
                                  g->outer[k].y + F * 1.9, pw, ph};
    }
}

/* Panel k's bars: a view into c's arrays, without labels (the legend
 * names them). */
static report_bars grid_sub(const report_bars *c, int k)
{
    int per = c->n / c->panels;
    size_t at = (size_t)k * (size_t)per;
    report_bars b = *c;
    b.title = c->panel_titles ? c->panel_titles[k] : NULL;
    b.n = per;
    b.labels = NULL;
    b.value = c->value + at;
    b.lo = c->lo ? c->lo + at : NULL;
    b.hi = c->hi ? c->hi + at : NULL;
    b.colour = c->colour ? c->colour + at : NULL;
    b.notes = c->notes ? c->notes + at : NULL;
    b.figures = c->figures ? c->figures + at : NULL;
    b.tips = c->tips ? c->tips + at : NULL;
    b.panels = 0;
    return b;
}

/* Panel k on the axis [lo, top] (top 0: a first guess, lo + 1). */
static void grid_panel(const report_bars *sub, const report_grid *g, int k,
                       double lo, double top, chart_panel *p)
{
    chart_axes ax = {NULL, k % g->cols == 0 ? sub->y_label : NULL, false, false,
                     false};
    chart_panel_init_axes(p, g->outer[k], sub->title, &ax, 0, 1, lo,
                          top > lo ? top : lo + 1, F);
    p->xt.count = 0;
    assert(fabs(p->plot.x - g->plot[k].x) < 1e-9 &&
           fabs(p->plot.w - g->plot[k].w) < 1e-9 &&
           fabs(p->plot.h - g->plot[k].h) < 1e-9);
}

/* The shared axis: from the lowest panel's low to the highest top any
 * panel needs for its bars and notes; and how the figures of all the
 * panels are set (one size for all: they compare across panels too). */
static void grid_axis(cairo_t *cr, const report_bars *c, const report_grid *g,
                      double *lo, double *top, figure_set *fs)
{
    int per = c->n / c->panels;
    *fs = figures_set(cr, c, g->plot[0].w / (per > 0 ? per : 1));
    *lo = 0.0;
    for (int k = 0; k < grid_count(c); k++) {
        report_bars b = grid_sub(c, k);
        *lo = fmin(*lo, bars_low(&b));
    }
    *top = *lo + 1;
    for (int k = 0; k < grid_count(c); k++) {
        report_bars b = grid_sub(c, k);
        chart_panel p;
        grid_panel(&b, g, k, *lo, 0, &p);
        if (b.n > 0)
            *top = fmax(*top, bars_top(cr, &b, &p, *lo, fs));
    }
}

/* The legend: the first panel's bars, by label and colour. */
static int grid_legend(const report_bars *c, legend_buf *L)
{
    int per = c->n / c->panels, n = 0;
    for (int i = 0; i < per && n < LEGEND_ITEMS; i++, n++) {
        snprintf(L->labels[n], LABEL_MAX, "%s",
                 c->labels && c->labels[i] ? c->labels[i] : "");
        L->styles[n] = *colour_of(c->colour ? c->colour[i] : i);
        L->items[n] =
            (chart_legend_item){L->labels[n], &L->styles[n], true, false};
    }
    return n;
}

static double grid_height(cairo_t *cr, const report_bars *c, double width)
{
    report_grid g;
    report_grid_layout(grid_count(c), width, &g);
    legend_buf L;
    int n = grid_legend(c, &L);
    double legend =
        n == 0 ? 0.0
               : F * 0.4 + chart_legend_rows(cr, 0, 0, width - legend_x() - F,
                                             F, L.items, n, false);
    return GRID_TITLE + g.rows * g.row_h + legend;
}

static void grid_draw(cairo_t *cr, const report_bars *c, double width)
{
    report_grid g;
    report_grid_layout(grid_count(c), width, &g);
    double lo, top;
    figure_set fs;
    grid_axis(cr, c, &g, &lo, &top, &fs);
    cairo_save(cr);
    cairo_set_source_rgb(cr, chart_ink.r, chart_ink.g, chart_ink.b);
    chart_font(cr, F, true);
    chart_text(cr, F * 0.3, F * 1.15, 0.0, c->title ? c->title : "");
    cairo_restore(cr);
    for (int k = 0; k < grid_count(c); k++) {
        report_bars b = grid_sub(c, k);
        chart_panel p;
        grid_panel(&b, &g, k, lo, top, &p);
        cairo_save(cr);
        bars_in(cr, &b, &p, &fs);
        cairo_restore(cr);
    }
    legend_buf L;
    int n = grid_legend(c, &L);
    chart_legend_rows(cr, legend_x(), GRID_TITLE + g.rows * g.row_h + F * 0.4,
                      width - legend_x() - F, F, L.items, n, true);
}

static void bars_draw(cairo_t *cr, const report_bars *c, double width,
                      double height)
{
    if (grid_on(c)) {
        grid_draw(cr, c, width);
        return;
    }
    chart_panel p;
    figure_set fs;
    bars_panel(cr, c, width, height, &p, &fs);
    bars_in(cr, c, &p, &fs);
}

/* ---- Stability maps ------------------------------------------------------ */

static size_t cell_at(const report_map *m, int i, int j)
{
    return (size_t)j * (size_t)m->nx + (size_t)i;
}

static uint32_t cell_judged(const report_map *m, int i, int j)
{
    return m->judged ? m->judged[cell_at(m, i, j)] : 0;
}

static uint32_t cell_tipped(const report_map *m, int i, int j)
{
    return m->tipped ? m->tipped[cell_at(m, i, j)] : 0;
}

/* The share of a cell's seeds that tipped; NaN without any. */
static double cell_share(const report_map *m, int i, int j)
{
    uint32_t n = cell_judged(m, i, j);
    return n ? (double)cell_tipped(m, i, j) / n : NAN;
}

/* The Wilson interval, not the normal one: with 5 seeds and 0 tipped
 * the normal interval is the single point 0, which would call a cell
 * clearly stable on evidence that cannot say so.  With 3 seeds, 0 of 3
 * has an interval up to 56 %: the seeds agreed, and calling the cell
 * bistable (as this did) said they split. */
report_cell report_map_cell(const report_map *m, int i, int j)
{
    uint32_t n = cell_judged(m, i, j), k = cell_tipped(m, i, j);
    if (n == 0)
        return REPORT_CELL_EMPTY;
    int side = stats_wilson_side(k, n, 0.95, 0.5);
    return side < 0           ? REPORT_CELL_STABLE
           : side > 0         ? REPORT_CELL_METASTABLE
           : k == 0 || k == n ? REPORT_CELL_TOO_FEW
                              : REPORT_CELL_BISTABLE;
}

/* Did most of the cell's seeds tip?  The boundary's side. */
static bool cell_tips(const report_map *m, int i, int j)
{
    return 2 * cell_tipped(m, i, j) > cell_judged(m, i, j);
}

/* Is the edge right of (vertical) or above cell (i, j) on the boundary?
 * Not beside an empty cell: with no seed judged there (a fault too late
 * for a recovery window), a line would say the storm stops where
 * nothing was measured. */
static bool boundary_at(const report_map *m, int i, int j, bool vertical)
{
    int i2 = vertical ? i + 1 : i, j2 = vertical ? j : j + 1;
    if (i2 >= m->nx || j2 >= m->ny || cell_judged(m, i, j) == 0 ||
        cell_judged(m, i2, j2) == 0)
        return false;
    return cell_tips(m, i, j) != cell_tips(m, i2, j2);
}

/* Row by row from the bottom, cell by cell from the left, its right
 * edge before its upper one: the order the tests and the drawing use. */
int report_map_boundary(const report_map *m, report_edge *out, int max)
{
    int n = 0;
    for (int j = 0; j < m->ny; j++)
        for (int i = 0; i < m->nx; i++)
            for (int v = 1; v >= 0; v--) {
                if (!boundary_at(m, i, j, v))
                    continue;
                if (n < max)
                    out[n] = (report_edge){i, j, v};
                n++;
            }
    return n;
}

/* The share's colour: viridis turned round, so that no storm is light
 * and a storm on every seed is dark (lightness falls evenly: it reads
 * in grey and under the common colour blindnesses). */
static chart_style share_colour(double share)
{
    return chart_viridis(1.0 - share);
}

/* The key's width on the right of the map. */
static double key_width(double width)
{
    return fmax(width * 0.2, F * 12);
}

/* Digits that tell neighbouring axis values apart: 0.25 and 0.5 need
 * two. */
static int axis_decimals(const double *v, int n)
{
    double step = INFINITY;
    for (int i = 1; i < n; i++)
        if (fabs(v[i] - v[i - 1]) > 0)
            step = fmin(step, fabs(v[i] - v[i - 1]));
    int d = 0;
    while (d < 4 && isfinite(step) &&
           fabs(step * pow(10, d) - round(step * pow(10, d))) > 1e-6)
        d++;
    return d;
}

static bool is_dark(const chart_style *c)
{
    return 0.2126 * c->r + 0.7152 * c->g + 0.0722 * c->b < 0.45;
}

static const chart_style hatch_dark = {0.16, 0.16, 0.16, 0.75, 0.8, 0};
static const chart_style hatch_light = {1, 1, 1, 0.8, 0.8, 0};

/* A cell as the map and its key show it: empty (white, outlined), or
 * filled in the colour of its share, hatched when bistable, a dashed
 * outline inside it when its seeds were too few to tell (in ink that
 * shows on that colour).  Not a second hatch: the seeds of such a cell
 * agreed, and a pattern like the bistable one would say they split. */
static void cell_paint(cairo_t *cr, chart_rect r, report_cell state,
                       double share)
{
    cairo_rectangle(cr, r.x, r.y, r.w, r.h);
    if (state == REPORT_CELL_EMPTY) {
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 0.75, 0.75, 0.75);
        cairo_set_line_width(cr, 0.5);
        cairo_stroke(cr);
        return;
    }
    chart_style c = share_colour(share);
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
    cairo_fill(cr);
    if (state == REPORT_CELL_BISTABLE)
        chart_hatch(cr, r, F * 0.55, is_dark(&c) ? &hatch_light : &hatch_dark);
    if (state == REPORT_CELL_TOO_FEW) {
        const chart_style *ink = is_dark(&c) ? &hatch_light : &hatch_dark;
        double in = fmin(F * 0.25, fmin(r.w, r.h) * 0.1),
               dash[2] = {F * 0.4, F * 0.25};
        cairo_save(cr);
        cairo_rectangle(cr, r.x + in, r.y + in, r.w - 2 * in, r.h - 2 * in);
        cairo_set_source_rgba(cr, ink->r, ink->g, ink->b, ink->a);
        cairo_set_line_width(cr, ink->width * 1.2);
        cairo_set_dash(cr, dash, 2, 0);
        cairo_stroke(cr);
        cairo_restore(cr);
    }
}

/* The cell inset by half the white gap between cells (which also keeps
 * viewers from drawing hairline seams between abutting fills). */
static chart_rect cell_inner(const chart_panel *p, const report_map *m, int i,
                             int j)
{
    chart_rect r = chart_cell_rect(p->plot, m->nx, m->ny, i, j);
    double g = fmin(0.6, fmin(r.w, r.h) * 0.1);
    return (chart_rect){r.x + g, r.y + g, r.w - 2 * g, r.h - 2 * g};
}

/* A line of text centred in r at height y when it fits its width, on a
 * white backing when the cell is hatched (hatching through text is
 * unreadable); returns whether it was drawn. */
static bool cell_line(cairo_t *cr, chart_rect r, double y, const char *text,
                      const chart_style *bg, bool backing)
{
    double w = chart_text_width(cr, text);
    if (w > r.w - F * 0.8)
        return false;
    if (backing) {
        cairo_set_source_rgb(cr, bg->r, bg->g, bg->b);
        cairo_rectangle(cr, r.x + (r.w - w) / 2 - F * 0.35, y - F * 0.62,
                        w + F * 0.7, F * 0.82);
        cairo_fill(cr);
    }
    if (is_dark(bg))
        cairo_set_source_rgb(cr, 1, 1, 1);
    else
        cairo_set_source_rgb(cr, chart_ink.r, chart_ink.g, chart_ink.b);
    chart_text(cr, r.x + r.w / 2, y, 0.5, text);
    return true;
}

/* The cell's figures: "2/5" (seeds that never recovered, of those
 * judged) and the mean recovery of the others ("12 s"), or "never" when
 * none recovered; the second line only when the cell is tall enough. */
static void cell_figures(cairo_t *cr, chart_rect r, const report_map *m, int i,
                         int j)
{
    report_cell state = report_map_cell(m, i, j);
    if (state == REPORT_CELL_EMPTY)
        return;
    chart_style bg = share_colour(cell_share(m, i, j));
    char a[32], b[48], num[32];
    snprintf(a, sizeof a, "%u/%u", cell_tipped(m, i, j), cell_judged(m, i, j));
    double v = m->value ? m->value[cell_at(m, i, j)] : NAN;
    if (cell_tipped(m, i, j) == cell_judged(m, i, j))
        snprintf(b, sizeof b, "never");
    else
        snprintf(b, sizeof b, "%s%s%s",
                 chart_format(v, fabs(v) < 10 && v != floor(v) ? 1 : 0, num,
                              sizeof num),
                 m->value_unit ? " " : "", m->value_unit ? m->value_unit : "");
    bool hatched = state == REPORT_CELL_BISTABLE;
    bool two = m->value && r.h >= F * 1.75; /* no value: counts alone */
    double mid = r.y + r.h / 2;
    if (two) {
        cell_line(cr, r, mid - F * 0.1, a, &bg, hatched);
        cell_line(cr, r, mid + F * 0.72, b, &bg, hatched);
    } else if (r.h >= F * 0.9) {
        cell_line(cr, r, mid + F * 0.27, a, &bg, hatched);
    }
}

static void map_cells(cairo_t *cr, const chart_panel *p, const report_map *m)
{
    cairo_save(cr);
    chart_font(cr, F * 0.7, false);
    for (int j = 0; j < m->ny; j++)
        for (int i = 0; i < m->nx; i++) {
            chart_rect r = cell_inner(p, m, i, j);
            cell_paint(cr, r, report_map_cell(m, i, j), cell_share(m, i, j));
            cell_figures(cr, r, m, i, j);
        }
    cairo_restore(cr);
}

/* The boundary, along the cell edges: black over a white halo, so it
 * shows on dark and light cells alike; round caps join the steps. */
static void map_boundary(cairo_t *cr, const chart_panel *p, const report_map *m)
{
    cairo_save(cr);
    cairo_rectangle(cr, p->plot.x, p->plot.y, p->plot.w, p->plot.h);
    cairo_clip(cr);
    for (int j = 0; j < m->ny; j++)
        for (int i = 0; i < m->nx; i++)
            for (int v = 1; v >= 0; v--) {
                if (!boundary_at(m, i, j, v))
                    continue;
                chart_rect r = chart_cell_rect(p->plot, m->nx, m->ny, i, j);
                double x0 = v ? r.x + r.w : r.x, y0 = r.y;
                cairo_move_to(cr, x0, y0);
                cairo_line_to(cr, v ? x0 : r.x + r.w, v ? r.y + r.h : y0);
            }
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_set_line_width(cr, F * 0.5);
    cairo_stroke_preserve(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, F * 0.25);
    cairo_stroke(cr);
    cairo_restore(cr);
}

/* The axis values at the cells' centres; every k-th when they crowd. */
static void map_ticks(cairo_t *cr, const chart_panel *p, const report_map *m)
{
    char buf[32];
    cairo_save(cr);
    chart_font(cr, F * 0.85, false);
    cairo_set_source_rgb(cr, chart_ink.r, chart_ink.g, chart_ink.b);
    int dx = m->x ? axis_decimals(m->x, m->nx) : 0;
    int dy = m->y ? axis_decimals(m->y, m->ny) : 0;
    double wmax = 0;
    for (int i = 0; m->x && i < m->nx; i++)
        wmax = fmax(wmax, chart_text_width(
                              cr, chart_format(m->x[i], dx, buf, sizeof buf)));
    double cw = p->plot.w / m->nx, ch = p->plot.h / m->ny;
    int kx = (int)ceil((wmax + F * 0.6) / cw), ky = (int)ceil(F * 1.1 / ch);
    for (int i = 0; m->x && i < m->nx; i += kx)
        chart_text(cr, p->plot.x + cw * (i + 0.5),
                   p->plot.y + p->plot.h + F * 1.1, 0.5,
                   chart_format(m->x[i], dx, buf, sizeof buf));
    for (int j = 0; m->y && j < m->ny; j += ky)
        chart_text(cr, p->plot.x - F * 0.35,
                   p->plot.y + p->plot.h - ch * (j + 0.5) + F * 0.3, 1.0,
                   chart_format(m->y[j], dy, buf, sizeof buf));
    cairo_restore(cr);
}

/* The colour bar of the share, 0 at the bottom, with its ticks in % on
 * the right and a mark at 50 %, where the boundary is drawn. */
static void key_bar(cairo_t *cr, chart_rect b)
{
    cairo_pattern_t *g = cairo_pattern_create_linear(0, b.y + b.h, 0, b.y);
    for (int k = 0; k <= 10; k++) {
        chart_style c = share_colour(k / 10.0);
        cairo_pattern_add_color_stop_rgb(g, k / 10.0, c.r, c.g, c.b);
    }
    cairo_rectangle(cr, b.x, b.y, b.w, b.h);
    cairo_set_source(cr, g);
    cairo_fill(cr);
    cairo_pattern_destroy(g);
    chart_scale s = {0, 100, b.y + b.h, b.y, false, false};
    char buf[32];
    cairo_set_source_rgb(cr, chart_ink.r, chart_ink.g, chart_ink.b);
    cairo_set_line_width(cr, 0.6);
    for (int v = 0; v <= 100; v += 25) {
        double y = chart_scale_map(&s, v);
        cairo_move_to(cr, b.x + b.w, y);
        cairo_line_to(cr, b.x + b.w + F * (v == 50 ? 0.6 : 0.3), y);
        cairo_stroke(cr);
        snprintf(buf, sizeof buf, "%d %%", v);
        chart_text(cr, b.x + b.w + F * 0.8, y + F * 0.27, 0.0, buf);
    }
    double y = chart_scale_map(&s, 50);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, F * 0.25);
    cairo_move_to(cr, b.x - F * 0.2, y);
    cairo_line_to(cr, b.x + b.w, y);
    cairo_stroke(cr);
}

/* A swatch and its label, wrapped; returns the height used.  Measures
 * only, unless draw. */
static double key_swatch(cairo_t *cr, double x, double y, double width,
                         report_cell state, double share, const char *label,
                         bool draw)
{
    double s = F * 1.3;
    if (draw) {
        cell_paint(cr, (chart_rect){x, y, s, s}, state, share);
        cairo_set_source_rgb(cr, chart_ink.r, chart_ink.g, chart_ink.b);
    }
    int n = text_block(cr, label, x + s + F * 0.5, y + F * 0.75,
                       width - s - F * 0.5, F * 0.95, 0.0, 3, draw);
    return fmax(s, n * F * 0.95) + F * 0.4;
}

static bool map_any(const report_map *m, report_cell state)
{
    for (int j = 0; j < m->ny; j++)
        for (int i = 0; i < m->nx; i++)
            if (report_map_cell(m, i, j) == state)
                return true;
    return false;
}

/* The key, in a column on the right of the chart from `top` (the plot's
 * top) down: what the colour says, its bar, what a cell says, then a
 * swatch for each kind of marked cell the map has.  Returns where it
 * ends; draws it only when draw (report_chart_height measures it: a
 * map with bistable, too-few and empty cells at once needs more than
 * the plot's height, and the chart grows to hold it). */
static double map_key(cairo_t *cr, const report_map *m, double width,
                      double top, bool draw)
{
    double kw = key_width(width) - F * 1.5, x = width - kw;
    double y = top + F * 0.8;
    cairo_save(cr);
    chart_font(cr, F * 0.8, false);
    cairo_set_source_rgb(cr, chart_ink.r, chart_ink.g, chart_ink.b);
    y += text_block(cr,
                    "seeds that never recovered (colour; in a cell: "
                    "how many of how many)",
                    x, y, kw, F * 0.95, 0.0, 3, draw) *
         F * 0.95;
    double bh = F * 4.0;
    if (draw)
        key_bar(cr, (chart_rect){x, y + F * 0.3, F * 1.1, bh});
    y += bh + F * 1.9;
    y += text_block(cr,
                    "under it: mean recovery of the others (never: "
                    "none did). Thick line: most seeds tip.",
                    x, y, kw, F * 0.95, 0.0, 4, draw) *
             F * 0.95 +
         F * 0.2;
    if (map_any(m, REPORT_CELL_BISTABLE))
        y += key_swatch(cr, x, y, kw, REPORT_CELL_BISTABLE, 0.4,
                        "bistable: the seeds split (95 % interval, "
                        "Wilson, holds 1/2)",
                        draw);
    if (map_any(m, REPORT_CELL_TOO_FEW))
        y += key_swatch(cr, x, y, kw, REPORT_CELL_TOO_FEW, 0.0,
                        "too few seeds to tell", draw);
    if (map_any(m, REPORT_CELL_EMPTY))
        y += key_swatch(cr, x, y, kw, REPORT_CELL_EMPTY, NAN, "no value", draw);
    cairo_restore(cr);
    return y;
}

/* A map's panel in [0, width - the key's] x [0, height]. */
static void map_panel(const report_map *m, double width, double height,
                      chart_panel *p)
{
    chart_axes ax = {m->x_label, m->y_label, false, false, false};
    chart_panel_init_axes(p,
                          (chart_rect){0, 0, width - key_width(width), height},
                          m->title, &ax, 0, m->nx, 0, m->ny, F);
}

/* A map is 0.15 of the width high plus its labels, or as high as its
 * key needs, when taller: the key's last swatch ends F * 0.4 above the
 * chart's bottom, as every swatch ends above the next.  (A second column
 * of swatches would not do: the key column is 137 pt wide at the PDF's
 * width, and "too few seeds to tell" alone takes 90.) */
static double map_height(cairo_t *cr, const report_map *m, double width)
{
    double h = round(width * 0.15) + F * 5.0;
    if (m->nx <= 0 || m->ny <= 0)
        return h;
    chart_panel p;
    map_panel(m, width, h, &p);
    return fmax(h, map_key(cr, m, width, p.plot.y, false));
}

static void map_draw(cairo_t *cr, const report_map *m, double width,
                     double height)
{
    chart_panel p;
    map_panel(m, width, height, &p);
    p.xt.count = p.yt.count = 0; /* the cells' own labels instead */
    chart_panel_frame(cr, &p);
    if (m->nx <= 0 || m->ny <= 0)
        return;
    map_cells(cr, &p, m);
    map_boundary(cr, &p, m);
    map_ticks(cr, &p, m);
    map_key(cr, m, width, p.plot.y, true);
}

/* ---- Any chart ----------------------------------------------------------- */

const char *report_chart_title(const report_chart *c)
{
    const char *t = c->kind == REPORT_CHART_LINES  ? c->lines->title
                    : c->kind == REPORT_CHART_BARS ? c->bars->title
                                                   : c->map->title;
    return t ? t : "";
}

/* ---- Hover regions ------------------------------------------------------- */

/* "12.5 s [10.1, 15.2]" */
static void value_text(double v, double lo, double hi, const char *unit,
                       char *buf, size_t len)
{
    char a[32];
    int d = fabs(v) >= 100 ? 0 : fabs(v) >= 10 ? 1 : fabs(v) >= 1 ? 2 : 3;
    snprintf(a, sizeof a, "%.*f", d, v);
    if (isfinite(lo) && isfinite(hi))
        snprintf(buf, len, "%s %s [%.*f, %.*f]", a, unit, d, lo, d, hi);
    else
        snprintf(buf, len, "%s %s", a, unit);
}

static int bars_regions_in(const report_bars *c, const chart_panel *pp,
                           const char *panel, const char *const *labels,
                           report_region *out, int max);

/* Each panel's bars, named "panel: label". */
static int grid_regions(cairo_t *cr, const report_bars *c, double width,
                        report_region *out, int max)
{
    report_grid g;
    report_grid_layout(grid_count(c), width, &g);
    double lo, top;
    figure_set fs;
    grid_axis(cr, c, &g, &lo, &top, &fs);
    int n = 0;
    for (int k = 0; k < grid_count(c); k++) {
        report_bars b = grid_sub(c, k);
        chart_panel p;
        grid_panel(&b, &g, k, lo, top, &p);
        n += bars_regions_in(&b, &p, b.title, c->labels, out + n, max - n);
    }
    return n;
}

static int bars_regions(cairo_t *cr, const report_bars *c, double width,
                        double height, report_region *out, int max)
{
    if (grid_on(c))
        return grid_regions(cr, c, width, out, max);
    chart_panel p;
    figure_set fs;
    bars_panel(cr, c, width, height, &p, &fs);
    return bars_regions_in(c, &p, NULL, c->labels, out, max);
}

/* The regions of c's bars in panel pp: bar i's slot tells "label:
 * value" (labels[i]), after "panel: " when panel is not NULL. */
static int bars_regions_in(const report_bars *c, const chart_panel *pp,
                           const char *panel, const char *const *labels,
                           report_region *out, int max)
{
    chart_panel p = *pp;
    char unit[64], v[128];
    label_unit(c->y_label, unit, sizeof unit);
    double slot = p.plot.w / (c->n > 0 ? c->n : 1);
    int n = 0;
    for (int i = 0; i < c->n && n < max; i++, n++) {
        out[n].r = (chart_rect){p.plot.x + slot * i, p.plot.y, slot, p.plot.h};
        const char *label = labels && labels[i] ? labels[i] : "";
        const char *note = c->notes && c->notes[i] ? c->notes[i] : NULL;
        if (c->tips && c->tips[i]) {
            snprintf(out[n].text, sizeof out[n].text, "%s%s%s: %s",
                     panel ? panel : "", panel ? ": " : "", label, c->tips[i]);
            continue;
        }
        if (bar_never(c, i))
            snprintf(v, sizeof v, "never");
        else if (isnan(c->value[i]))
            snprintf(v, sizeof v, "no value");
        else
            value_text(c->value[i], c->lo ? c->lo[i] : NAN,
                       c->hi ? c->hi[i] : NAN, unit, v, sizeof v);
        snprintf(out[n].text, sizeof out[n].text, "%s%s%s: %s%s%s",
                 panel ? panel : "", panel ? ": " : "", label, v,
                 note ? "; " : "", note ? note : "");
    }
    return n;
}

/* The figures of c's bars in panel p, set as fs, at out (at most max). */
static int figures_in(cairo_t *cr, const report_bars *c, const chart_panel *p,
                      const figure_set *fs, report_figure *out, int max)
{
    int n = 0;
    for (int i = 0; i < c->n && n < max; i++)
        if (figure_of(c, i))
            figure_place(cr, c, p, i, fs, &out[n++]);
    return n;
}

int report_bars_figures(cairo_t *cr, const report_chart *c, double width,
                        double height, report_figure *out, int max)
{
    if (c->kind != REPORT_CHART_BARS)
        return 0;
    const report_bars *b = c->bars;
    chart_panel p;
    figure_set fs;
    if (!grid_on(b)) {
        bars_panel(cr, b, width, height, &p, &fs);
        return figures_in(cr, b, &p, &fs, out, max);
    }
    report_grid g;
    report_grid_layout(grid_count(b), width, &g);
    double lo, top;
    grid_axis(cr, b, &g, &lo, &top, &fs);
    int n = 0;
    for (int k = 0; k < grid_count(b); k++) {
        report_bars sub = grid_sub(b, k);
        grid_panel(&sub, &g, k, lo, top, &p);
        n += figures_in(cr, &sub, &p, &fs, out + n, max - n);
    }
    return n;
}

static int map_regions(const report_map *m, double width, double height,
                       report_region *out, int max)
{
    chart_panel p;
    map_panel(m, width, height, &p);
    int n = 0;
    for (int j = 0; j < m->ny; j++)
        for (int i = 0; i < m->nx && n < max; i++, n++) {
            out[n].r = chart_cell_rect(p.plot, m->nx, m->ny, i, j);
            char where[200];
            snprintf(where, sizeof where, "%s %g, %s %g",
                     m->x_label ? m->x_label : "x", m->x ? m->x[i] : i,
                     m->y_label ? m->y_label : "y", m->y ? m->y[j] : j);
            uint32_t k = cell_tipped(m, i, j), nn = cell_judged(m, i, j);
            if (nn == 0) {
                snprintf(out[n].text, sizeof out[n].text, "%s: no value%s%s",
                         where, m->empty_why ? ": " : "",
                         m->empty_why ? m->empty_why : "");
                continue;
            }
            double lo, hi, v = m->value ? m->value[cell_at(m, i, j)] : NAN;
            stats_wilson(k, nn, 0.95, &lo, &hi);
            char rec[96] = "";
            if (k < nn && isfinite(v))
                snprintf(rec, sizeof rec,
                         "; mean recovery of the %u other%s "
                         "%.3g %s",
                         nn - k, nn - k == 1 ? "" : "s", v,
                         m->value_unit ? m->value_unit : "");
            static const char *const names[] = {
                "", "stable", "bistable (the seeds split)", "metastable",
                "too few seeds to tell"};
            snprintf(out[n].text, sizeof out[n].text,
                     "%s: %u of %u seed%s "
                     "never recovered (%.0f %%, 95 %% CI %.0f-%.0f %%): "
                     "%s%s",
                     where, k, nn, nn == 1 ? "" : "s", 100.0 * k / nn, lo * 100,
                     hi * 100, names[report_map_cell(m, i, j)], rec);
        }
    return n;
}

int report_chart_regions(cairo_t *cr, const report_chart *c, double width,
                         double height, report_region *out, int max)
{
    if (c->kind == REPORT_CHART_BARS)
        return bars_regions(cr, c->bars, width, height, out, max);
    if (c->kind == REPORT_CHART_MAP)
        return map_regions(c->map, width, height, out, max);
    return 0;
}

double report_chart_layers_height(cairo_t *cr, const report_chart *c,
                                  double width)
{
    if (c->kind == REPORT_CHART_LINES)
        return panel_height(width);
    return report_chart_height(cr, c, width);
}

void report_chart_draw_layer(cairo_t *cr, const report_chart *c, double width,
                             double height, int layer)
{
    cairo_save(cr);
    if (c->kind == REPORT_CHART_LINES)
        lines_draw(cr, c->lines, width, height, layer);
    else if (layer < 0)
        report_chart_draw(cr, c, width, height);
    cairo_restore(cr);
}

/* Bars and maps are lower than line charts: a handful of bars, or a map
 * with its words under it, read as well at 0.13 and 0.17 of the width,
 * and three bar charts, or two maps with their words, then fill a page
 * where two left a third of it white (0.15: the map's key, 145 pt, just
 * fits beside its 114 pt plot and the labels under it). */
double report_chart_height(cairo_t *cr, const report_chart *c, double width)
{
    if (c->kind == REPORT_CHART_LINES)
        return lines_height(cr, c->lines, width);
    if (c->kind == REPORT_CHART_BARS && grid_on(c->bars))
        return grid_height(cr, c->bars, width);
    if (c->kind == REPORT_CHART_MAP)
        return map_height(cr, c->map, width);
    double plot = round(width * (c->kind == REPORT_CHART_BARS ? 0.13 : 0.15));
    return plot + F * 5.0;
}

void report_chart_draw(cairo_t *cr, const report_chart *c, double width,
                       double height)
{
    cairo_save(cr);
    if (c->kind == REPORT_CHART_LINES)
        lines_draw(cr, c->lines, width, height, REPORT_LAYER_ALL);
    else if (c->kind == REPORT_CHART_BARS)
        bars_draw(cr, c->bars, width, height);
    else
        map_draw(cr, c->map, width, height);
    cairo_restore(cr);
}
