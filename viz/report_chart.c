/*
 * report_chart.c -- line charts, bar charts and stability maps for
 * report.c, built from chart.h's panels.
 *
 * Every chart has the same frame: a title line, a plot area 0.22 of the
 * width high (so two charts with a row of legend each fit on an A4
 * landscape page under a level-1 heading), tick labels, and the axis
 * labels; a line chart's legend goes
 * under it, in as many rows as it needs, where it cannot hide a line (the
 * GUI's legend sits on the title line and wraps into the plot, which a
 * report with long policy names would fill).  Sizes scale with
 * REPORT_CHART_FONT.
 */
#include "report_chart.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chart.h"

#define F REPORT_CHART_FONT
#define LEGEND_ITEMS 16

static double plot_height(double width)
{
    return round(width * 0.20);
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
 * negative minimum) to a nice top above the data and its bands. */
static void lines_y_range(const report_lines *c, double *lo, double *hi)
{
    double a = INFINITY, b = -INFINITY;
    for (int k = 0; k < c->n_series; k++) {
        const report_series *s = &c->series[k];
        for (size_t i = 0; i < s->n; i++) {
            if (!x_usable(c, s->x[i]))
                continue;
            widen(s->y[i], &a, &b);
            if (s->lo)
                widen(s->lo[i], &a, &b);
            if (s->hi)
                widen(s->hi[i], &a, &b);
        }
    }
    *lo = isfinite(c->y_min) ? c->y_min : a < 0 ? -chart_axis_top(-a, 0) : 0.0;
    *hi = isfinite(c->y_max) ? c->y_max
          : b > 0            ? chart_axis_top(b, 0)
          : *lo < 0          ? 0.0
                             : 1.0;
    if (!(*hi > *lo))
        *hi = *lo + 1.0;
}

static chart_style series_style(const report_series *s)
{
    chart_style st = *colour_of(s->colour);
    st.dash = s->dash;
    return st;
}

/* The legend's items: one per labelled series; styles[] holds theirs. */
static int lines_legend(const report_lines *c, chart_legend_item *items,
                        chart_style *styles)
{
    int n = 0;
    for (int k = 0; k < c->n_series && n < LEGEND_ITEMS; k++) {
        const report_series *s = &c->series[k];
        if (s->label == NULL)
            continue;
        styles[n] = series_style(s);
        items[n] = (chart_legend_item){
            s->label, &styles[n], s->lo != NULL && s->hi != NULL, s->points};
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
    chart_legend_item items[LEGEND_ITEMS];
    chart_style styles[LEGEND_ITEMS];
    int n = lines_legend(c, items, styles);
    if (n == 0)
        return 0.0;
    return F * 0.4 + chart_legend_rows(cr, 0, 0, width - legend_x() - F, F,
                                       items, n, false);
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

static void lines_data(cairo_t *cr, const chart_panel *p, const report_lines *c)
{
    for (int k = 0; k < c->n_series; k++) {
        const report_series *s = &c->series[k];
        if (s->lo && s->hi)
            chart_panel_band(cr, p, s->x, s->lo, s->hi, s->n,
                             colour_of(s->colour));
    }
    for (int k = 0; k < c->n_series; k++) {
        const report_series *s = &c->series[k];
        chart_style st = series_style(s);
        chart_data d = {s->x, s->y, s->n, 0};
        chart_panel_series(cr, p, NULL, &d, &st);
        if (s->points)
            chart_panel_points(cr, p, &d, &st);
    }
}

static double lines_height(cairo_t *cr, const report_lines *c, double width)
{
    return panel_height(width) + lines_legend_height(cr, c, width);
}

static void lines_draw(cairo_t *cr, const report_lines *c, double width,
                       double height)
{
    double xl, xh, yl, yh;
    lines_x_range(c, &xl, &xh);
    lines_y_range(c, &yl, &yh);
    double lh = lines_legend_height(cr, c, width);
    chart_axes ax = {c->x_label, c->y_label, c->x_log};
    chart_panel p;
    chart_panel_init_axes(&p, (chart_rect){0, 0, width, height - lh}, c->title,
                          &ax, xl, xh, yl, yh, F);
    chart_panel_frame(cr, &p);
    lines_spans(cr, &p, c);
    lines_data(cr, &p, c);
    chart_legend_item items[LEGEND_ITEMS];
    chart_style styles[LEGEND_ITEMS];
    int n = lines_legend(c, items, styles);
    chart_legend_rows(cr, legend_x(), height - lh + F * 0.4,
                      width - legend_x() - F, F, items, n, true);
}

/* ---- Bar charts ---------------------------------------------------------- */

#define NOTE_FONT (F * 0.75)
#define NOTE_LINE (NOTE_FONT * 1.2)
#define NOTE_LINES 3
#define LABEL_FONT (F * 0.85)
#define LABEL_LINE (LABEL_FONT * 1.15)

/* The top of bar i's whisker (or bar), where its note sits; 0 without
 * either. */
static double bar_top(const report_bars *c, int i)
{
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
        if (c->lo && isfinite(c->lo[i]))
            lo = fmin(lo, c->lo[i]);
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

/* The axis top that leaves every note room above its bar: bar i's top
 * must map at least its note's height below the plot's top, so the axis
 * spans (top_i - lo) / (1 - note_i / plot height) above lo. */
static double bars_top(cairo_t *cr, const report_bars *c, const chart_panel *p,
                       double lo)
{
    double need = 0.0;
    double slot = p->plot.w / (c->n > 0 ? c->n : 1);
    for (int i = 0; i < c->n; i++) {
        double room = note_lines(cr, c, i, slot) * NOTE_LINE + F * 0.5;
        double share = fmax(0.2, 1.0 - room / p->plot.h);
        need = fmax(need, (bar_top(c, i) - lo) / share);
    }
    return lo + chart_axis_top(need, 0);
}

static void bars_notes_labels(cairo_t *cr, const chart_panel *p,
                              const report_bars *c)
{
    double slot = p->plot.w / c->n;
    cairo_save(cr);
    cairo_set_source_rgb(cr, chart_ink.r, chart_ink.g, chart_ink.b);
    for (int i = 0; i < c->n; i++) {
        double x = p->plot.x + slot * (i + 0.5);
        int n = note_lines(cr, c, i, slot); /* sets the note font */
        double y = chart_scale_map(&p->y, bar_top(c, i)) - F * 0.35 -
                   (n - 1) * NOTE_LINE;
        if (n > 0)
            text_block(cr, c->notes[i], x, y, slot * 0.94, NOTE_LINE, 0.5,
                       NOTE_LINES, true);
        chart_font(cr, LABEL_FONT, false);
        if (c->labels && c->labels[i])
            text_block(cr, c->labels[i], x,
                       p->plot.y + p->plot.h + LABEL_FONT * 1.3, slot * 0.94,
                       LABEL_LINE, 0.5, 2, true);
    }
    cairo_restore(cr);
}

static void bars_draw(cairo_t *cr, const report_bars *c, double width,
                      double height)
{
    /* The labels take the x label's line as their second. */
    chart_rect outer = {0, 0, width, height - F * 1.5};
    chart_axes ax = {NULL, c->y_label, false};
    chart_panel p;
    double lo = bars_low(c);
    chart_panel_init_axes(&p, outer, c->title, &ax, 0, 1, lo, lo + 1, F);
    double top = c->n > 0 ? bars_top(cr, c, &p, lo) : lo + 1;
    chart_panel_init_axes(&p, outer, c->title, &ax, 0, 1, lo, top, F);
    p.xt.count = 0;
    chart_panel_frame(cr, &p);
    if (c->n <= 0)
        return;
    for (int i = 0; i < c->n; i++)
        chart_panel_bar(cr, &p, c->n, i, c->value[i], c->lo ? c->lo[i] : NAN,
                        c->hi ? c->hi[i] : NAN,
                        colour_of(c->colour ? c->colour[i] : i));
    bars_notes_labels(cr, &p, c);
}

/* ---- Stability maps ------------------------------------------------------ */

static bool cell_marked(const report_map *m, int i, int j)
{
    size_t k = (size_t)j * m->nx + i;
    return m->marked && m->marked[k];
}

/* Is the edge right of (vertical) or above cell (i, j) on the boundary? */
static bool boundary_at(const report_map *m, int i, int j, bool vertical)
{
    if (vertical)
        return i + 1 < m->nx &&
               cell_marked(m, i, j) != cell_marked(m, i + 1, j);
    return j + 1 < m->ny && cell_marked(m, i, j) != cell_marked(m, i, j + 1);
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

static void map_scale(const report_map *m, double *lo, double *hi)
{
    *lo = m->v_min;
    *hi = m->v_max;
    if (isfinite(*lo) && isfinite(*hi) && *hi > *lo)
        return;
    double a = INFINITY, b = -INFINITY;
    for (int k = 0; k < m->nx * m->ny; k++)
        widen(m->value[k], &a, &b);
    *lo = isfinite(a) ? a : 0.0;
    *hi = b > *lo ? b : *lo + 1.0;
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

static const chart_style hatch_ink = {0.16, 0.16, 0.16, 0.55, 0.7, 0};

/* A cell as the map and its key show it: empty (white, outlined), marked
 * (the scale's end colour, hatched) or coloured by t in [0, 1]. */
static void cell_paint(cairo_t *cr, chart_rect r, int state, double t)
{
    chart_style c = state == 2 ? chart_viridis(1) : chart_viridis(t);
    cairo_rectangle(cr, r.x, r.y, r.w, r.h);
    if (state == 0) {
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 0.75, 0.75, 0.75);
        cairo_set_line_width(cr, 0.5);
        cairo_stroke(cr);
        return;
    }
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
    cairo_fill(cr);
    if (state == 2)
        chart_hatch(cr, r, F * 0.55, &hatch_ink);
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

/* The value in the cell when it fits, in white on dark colours. */
static void cell_value(cairo_t *cr, chart_rect r, double v, double t)
{
    char buf[32];
    chart_format(v, fabs(v) < 10 && v != floor(v) ? 1 : 0, buf, sizeof buf);
    if (chart_text_width(cr, buf) > r.w - F * 0.4 || r.h < F * 1.05)
        return;
    chart_style c = chart_viridis(t);
    if (is_dark(&c))
        cairo_set_source_rgb(cr, 1, 1, 1);
    else
        cairo_set_source_rgb(cr, chart_ink.r, chart_ink.g, chart_ink.b);
    chart_text(cr, r.x + r.w / 2, r.y + r.h / 2 + F * 0.27, 0.5, buf);
}

static void map_cells(cairo_t *cr, const chart_panel *p, const report_map *m,
                      double lo, double hi)
{
    cairo_save(cr);
    chart_font(cr, F * 0.75, false);
    for (int j = 0; j < m->ny; j++)
        for (int i = 0; i < m->nx; i++) {
            double v = m->value[(size_t)j * m->nx + i];
            int state = cell_marked(m, i, j) ? 2 : isnan(v) ? 0 : 1;
            double t = (v - lo) / (hi - lo);
            chart_rect r = cell_inner(p, m, i, j);
            cell_paint(cr, r, state, t);
            if (state == 1)
                cell_value(cr, r, v, t);
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

/* The colour bar, lo at the bottom, with its ticks on the right. */
static void key_bar(cairo_t *cr, chart_rect b, double lo, double hi)
{
    cairo_pattern_t *g = cairo_pattern_create_linear(0, b.y + b.h, 0, b.y);
    for (int k = 0; k <= 10; k++) {
        chart_style c = chart_viridis(k / 10.0);
        cairo_pattern_add_color_stop_rgb(g, k / 10.0, c.r, c.g, c.b);
    }
    cairo_rectangle(cr, b.x, b.y, b.w, b.h);
    cairo_set_source(cr, g);
    cairo_fill(cr);
    cairo_pattern_destroy(g);
    chart_ticks t;
    chart_ticks_for(lo, hi, (int)fmax(2, b.h / (F * 2.2)), &t);
    chart_scale s = {lo, hi, b.y + b.h, b.y, false};
    char buf[32];
    cairo_set_source_rgb(cr, chart_ink.r, chart_ink.g, chart_ink.b);
    cairo_set_line_width(cr, 0.6);
    for (int i = 0; i < t.count; i++) {
        double v = t.first + i * t.step, y = chart_scale_map(&s, v);
        cairo_move_to(cr, b.x + b.w, y);
        cairo_line_to(cr, b.x + b.w + F * 0.3, y);
        cairo_stroke(cr);
        chart_text(cr, b.x + b.w + F * 0.7, y + F * 0.27, 0.0,
                   chart_format(v, t.decimals, buf, sizeof buf));
    }
}

/* A swatch and its label, wrapped; returns the height used. */
static double key_swatch(cairo_t *cr, double x, double y, double width,
                         int state, const char *label)
{
    double s = F * 1.3;
    cell_paint(cr, (chart_rect){x, y, s, s}, state, 0);
    cairo_set_source_rgb(cr, chart_ink.r, chart_ink.g, chart_ink.b);
    int n = text_block(cr, label, x + s + F * 0.5, y + s * 0.5 + F * 0.27,
                       width - s - F * 0.5, F * 0.95, 0.0, 3, true);
    return fmax(s, n * F * 0.95) + F * 0.5;
}

static bool map_any(const report_map *m, bool marked)
{
    for (int j = 0; j < m->ny; j++)
        for (int i = 0; i < m->nx; i++)
            if (marked ? cell_marked(m, i, j)
                       : isnan(m->value[(size_t)j * m->nx + i]))
                return true;
    return false;
}

static void map_key(cairo_t *cr, const chart_panel *p, const report_map *m,
                    double width, double lo, double hi)
{
    double kw = key_width(width) - F * 1.5, x = width - kw;
    double y = p->plot.y + F * 0.8;
    cairo_save(cr);
    chart_font(cr, F * 0.85, false);
    cairo_set_source_rgb(cr, chart_ink.r, chart_ink.g, chart_ink.b);
    if (m->value_label)
        y += text_block(cr, m->value_label, x, y, kw, F * 1.0, 0.0, 3, true) *
             F * 1.0;
    double bh = fmax(F * 4, p->plot.y + p->plot.h * 0.62 - y);
    key_bar(cr, (chart_rect){x, y, F * 1.1, bh}, lo, hi);
    y += bh + F * 1.0;
    if (m->marked_label && map_any(m, true))
        y += key_swatch(cr, x, y, kw, 2, m->marked_label);
    if (map_any(m, false))
        key_swatch(cr, x, y, kw, 0, "no value");
    cairo_restore(cr);
}

static void map_draw(cairo_t *cr, const report_map *m, double width,
                     double height)
{
    double lo, hi;
    map_scale(m, &lo, &hi);
    chart_axes ax = {m->x_label, m->y_label, false};
    chart_panel p;
    chart_panel_init_axes(&p,
                          (chart_rect){0, 0, width - key_width(width), height},
                          m->title, &ax, 0, m->nx, 0, m->ny, F);
    p.xt.count = p.yt.count = 0; /* the cells' own labels instead */
    chart_panel_frame(cr, &p);
    if (m->nx <= 0 || m->ny <= 0)
        return;
    map_cells(cr, &p, m, lo, hi);
    map_boundary(cr, &p, m);
    map_ticks(cr, &p, m);
    map_key(cr, &p, m, width, lo, hi);
}

/* ---- Any chart ----------------------------------------------------------- */

const char *report_chart_title(const report_chart *c)
{
    const char *t = c->kind == REPORT_CHART_LINES  ? c->lines->title
                    : c->kind == REPORT_CHART_BARS ? c->bars->title
                                                   : c->map->title;
    return t ? t : "";
}

double report_chart_height(cairo_t *cr, const report_chart *c, double width)
{
    if (c->kind == REPORT_CHART_LINES)
        return lines_height(cr, c->lines, width);
    return panel_height(width);
}

void report_chart_draw(cairo_t *cr, const report_chart *c, double width,
                       double height)
{
    cairo_save(cr);
    if (c->kind == REPORT_CHART_LINES)
        lines_draw(cr, c->lines, width, height);
    else if (c->kind == REPORT_CHART_BARS)
        bars_draw(cr, c->bars, width, height);
    else
        map_draw(cr, c->map, width, height);
    cairo_restore(cr);
}
