/*
 * chart.c -- the geometry and drawing of chart.h.
 */
#include "chart.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- Geometry ------------------------------------------------------------ */

double chart_nice_number(double x, bool round)
{
    if (!(x > 0) || !isfinite(x))
        return 1.0;
    double e = floor(log10(x));
    double f = x / pow(10.0, e);
    double nf;
    if (round)
        nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
    else
        nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
    return nf * pow(10.0, e);
}

void chart_ticks_for(double lo, double hi, int max_ticks, chart_ticks *out)
{
    if (max_ticks < 2)
        max_ticks = 2;
    if (!(hi > lo)) {
        hi = lo + 1.0;
    }
    double step = chart_nice_number((hi - lo) / max_ticks * (1 - 1e-12),
                                    false);
    double first = ceil(lo / step - 1e-9) * step;
    int count = (int)floor((hi - first) / step + 1e-9) + 1;
    /* A step that leaves a single tick in the range steps down through
     * the nice numbers (5 -> 2 -> 1 -> 0.5 ...) until two fit. */
    while (count < 2) {
        double e = pow(10.0, floor(log10(step) + 1e-9));
        double f = step / e;
        step = f > 4 ? 2 * e : f > 1.5 ? e : 0.5 * e;
        first = ceil(lo / step - 1e-9) * step;
        count = (int)floor((hi - first) / step + 1e-9) + 1;
    }
    out->first = first == 0.0 ? 0.0 : first; /* no "-0" */
    out->step = step;
    out->count = count < 0 ? 0 : count;
    int d = (int)-floor(log10(step) + 1e-9);
    out->decimals = d > 0 ? d : 0;
}

double chart_axis_top(double max, double floor_v)
{
    double m = max > floor_v ? max : floor_v;
    if (!(m > 0))
        return 1.0;
    double step = chart_nice_number(m / 4.0, true);
    return ceil(m / step - 1e-9) * step;
}

double chart_scale_map(const chart_scale *s, double v)
{
    if (s->hi == s->lo)
        return s->p0;
    return s->p0 + (v - s->lo) / (s->hi - s->lo) * (s->p1 - s->p0);
}

double chart_scale_unmap(const chart_scale *s, double p)
{
    if (s->p1 == s->p0)
        return s->lo;
    return s->lo + (p - s->p0) / (s->p1 - s->p0) * (s->hi - s->lo);
}

void chart_time_window(double now, double span, double *lo, double *hi)
{
    if (now <= span) {
        *lo = 0.0;
        *hi = span;
    } else {
        *lo = now - span;
        *hi = now;
    }
}

const char *chart_format(double v, int decimals, char *buf, size_t len)
{
    static const struct {
        double scale;
        const char *suffix;
    } si[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    if (!isfinite(v)) {
        snprintf(buf, len, "-");
        return buf;
    }
    double a = fabs(v);
    for (size_t i = 0; a >= 1e4 && i < sizeof si / sizeof *si; i++) {
        if (a < si[i].scale)
            continue;
        double x = v / si[i].scale;
        if (fabs(x - nearbyint(x)) < 0.05)
            snprintf(buf, len, "%.0f%s", x, si[i].suffix);
        else
            snprintf(buf, len, "%.1f%s", x, si[i].suffix);
        return buf;
    }
    snprintf(buf, len, "%.*f", decimals, v == 0.0 ? 0.0 : v);
    return buf;
}

/* ---- Styles --------------------------------------------------------------- */

#define RGB(r, g, b) (r) / 255.0, (g) / 255.0, (b) / 255.0
const chart_style chart_palette[CHART_PALETTE_SIZE] = {
    {RGB(230, 159, 0), 1.0, 2.0, 0},   /* orange */
    {RGB(86, 180, 233), 1.0, 2.0, 0},  /* sky blue */
    {RGB(0, 158, 115), 1.0, 2.0, 0},   /* bluish green */
    {RGB(240, 228, 66), 1.0, 2.0, 0},  /* yellow */
    {RGB(0, 114, 178), 1.0, 2.0, 0},   /* blue */
    {RGB(213, 94, 0), 1.0, 2.0, 0},    /* vermillion */
    {RGB(204, 121, 167), 1.0, 2.0, 0}, /* reddish purple */
    {RGB(0, 0, 0), 1.0, 2.0, 0},       /* black */
};
const chart_style chart_ink = {RGB(40, 40, 40), 1.0, 1.0, 0};
const chart_style chart_grid = {RGB(40, 40, 40), 0.12, 1.0, 0};
const chart_style chart_fault = {RGB(213, 94, 0), 0.13, 1.0, 0};

static void set_style(cairo_t *cr, const chart_style *st, double font_px)
{
    cairo_set_source_rgba(cr, st->r, st->g, st->b, st->a);
    double w = st->width * font_px / 12.0;
    cairo_set_line_width(cr, w);
    if (st->dash == 1) {
        double d[] = {5 * w, 3 * w};
        cairo_set_dash(cr, d, 2, 0);
    } else if (st->dash == 2) {
        double d[] = {1 * w, 2.5 * w};
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
        cairo_set_dash(cr, d, 2, 0);
    } else {
        cairo_set_dash(cr, NULL, 0, 0);
    }
}

/* ---- Text ------------------------------------------------------------------ */

void chart_font(cairo_t *cr, double px, bool bold)
{
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD
                                : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, px);
}

double chart_text_width(cairo_t *cr, const char *text)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, text, &e);
    return e.x_advance;
}

/* Text with its left (align 0), centre (0.5) or right (1) at x and its
 * baseline at y. */
static void text_at(cairo_t *cr, double x, double y, double align,
                    const char *text)
{
    cairo_move_to(cr, x - align * chart_text_width(cr, text), y);
    cairo_show_text(cr, text);
}

/* ---- Panels ---------------------------------------------------------------- */

void chart_panel_init(chart_panel *p, chart_rect outer, const char *title,
                      const char *unit, double t_lo, double t_hi,
                      double y_lo, double y_hi, double font_px)
{
    memset(p, 0, sizeof *p);
    p->outer = outer;
    p->title = title;
    p->unit = unit;
    p->font_px = font_px;
    /* Room for a title line above, tick labels left (six characters of
     * about 0.6 em) and below, a little air on the right. */
    double left = font_px * 4.2, top = font_px * 1.7;
    double bottom = font_px * 1.6, right = font_px * 0.8;
    p->plot.x = outer.x + left;
    p->plot.y = outer.y + top;
    p->plot.w = fmax(1.0, outer.w - left - right);
    p->plot.h = fmax(1.0, outer.h - top - bottom);
    p->x = (chart_scale){t_lo, t_hi, p->plot.x, p->plot.x + p->plot.w};
    p->y = (chart_scale){y_lo, y_hi, p->plot.y + p->plot.h, p->plot.y};
    int xmax = (int)(p->plot.w / (font_px * 5.0));
    int ymax = (int)(p->plot.h / (font_px * 2.2));
    chart_ticks_for(t_lo, t_hi, xmax < 2 ? 2 : xmax, &p->xt);
    chart_ticks_for(y_lo, y_hi, ymax < 2 ? 2 : ymax, &p->yt);
}

bool chart_panel_hit(const chart_panel *p, double px, double py)
{
    return px >= p->plot.x && px <= p->plot.x + p->plot.w &&
           py >= p->plot.y && py <= p->plot.y + p->plot.h;
}

/* Clip to the plot area, shrunk to whole pixels: a clip edge inside a
 * pixel would blend what is drawn there, while the direct writes below
 * paint a pixel or not (and a crisp edge is what a plot should have). */
static void clip_plot(cairo_t *cr, const chart_panel *p)
{
    double x0 = ceil(p->plot.x), y0 = ceil(p->plot.y);
    double x1 = floor(p->plot.x + p->plot.w);
    double y1 = floor(p->plot.y + p->plot.h);
    cairo_rectangle(cr, x0, y0, fmax(x1 - x0, 0), fmax(y1 - y0, 0));
    cairo_clip(cr);
}

/* The panel's title as drawn by chart_panel_frame. */
static void panel_title(const chart_panel *p, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s", p->title ? p->title : "",
             p->unit ? " (" : "", p->unit ? p->unit : "", p->unit ? ")" : "");
}

void chart_panel_frame(cairo_t *cr, const chart_panel *p)
{
    char buf[32];
    double f = p->font_px;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, p->plot.x, p->plot.y, p->plot.w, p->plot.h);
    cairo_fill(cr);
    set_style(cr, &chart_grid, f);
    for (int i = 0; i < p->yt.count; i++) {
        double y = round(chart_scale_map(&p->y, p->yt.first + i * p->yt.step));
        cairo_move_to(cr, p->plot.x, y + 0.5);
        cairo_line_to(cr, p->plot.x + p->plot.w, y + 0.5);
    }
    for (int i = 0; i < p->xt.count; i++) {
        double x = round(chart_scale_map(&p->x, p->xt.first + i * p->xt.step));
        cairo_move_to(cr, x + 0.5, p->plot.y);
        cairo_line_to(cr, x + 0.5, p->plot.y + p->plot.h);
    }
    cairo_stroke(cr);
    set_style(cr, &chart_ink, f);
    cairo_rectangle(cr, p->plot.x + 0.5, p->plot.y + 0.5, p->plot.w - 1,
                    p->plot.h - 1);
    cairo_stroke(cr);
    chart_font(cr, f * 0.85, false);
    cairo_set_source_rgb(cr, chart_ink.r, chart_ink.g, chart_ink.b);
    for (int i = 0; i < p->yt.count; i++) {
        double v = p->yt.first + i * p->yt.step;
        double y = chart_scale_map(&p->y, v);
        text_at(cr, p->plot.x - f * 0.35, y + f * 0.3, 1.0,
                chart_format(v, p->yt.decimals, buf, sizeof buf));
    }
    for (int i = 0; i < p->xt.count; i++) {
        double v = p->xt.first + i * p->xt.step;
        double x = chart_scale_map(&p->x, v);
        chart_format(v, p->xt.decimals, buf, sizeof buf);
        if (i == p->xt.count - 1) { /* the unit, once, on the last label */
            size_t len = strlen(buf);
            snprintf(buf + len, sizeof buf - len, " s");
        }
        /* The last label is kept inside the panel. */
        double half = chart_text_width(cr, buf) / 2;
        if (x + half > p->outer.x + p->outer.w)
            x = p->outer.x + p->outer.w - half;
        text_at(cr, x, p->plot.y + p->plot.h + f * 1.1, 0.5, buf);
    }
    chart_font(cr, f, true);
    char title[256];
    panel_title(p, title, sizeof title);
    text_at(cr, p->outer.x + f * 0.3, p->outer.y + f * 1.15, 0.0, title);
    cairo_restore(cr);
}

/* ---- Opaque boxes, straight into an image ---------------------------------
 *
 * The client field and dense series are thousands of small opaque boxes
 * on whole pixels, drawn without anti-aliasing.  On an image surface, with
 * no scaling or rotation, writing their pixels directly costs a fraction of
 * building and filling a cairo path of them, and gives the same pixels: a
 * pixel is painted when its centre is inside the box, as cairo fills with
 * CAIRO_ANTIALIAS_NONE, and the box is cut to the clip's extents (only
 * rectangular clips are used here).  On any other surface (PDF, SVG) the
 * boxes go through cairo as paths, so vector output stays vector. */
typedef struct boxes {
    cairo_t *cr;
    cairo_surface_t *img; /* the image written to, or NULL */
    bool direct;          /* boxes now go to the pixels, not through cairo */
    unsigned char *data;
    int stride;
    double dx, dy;        /* user space to pixels: a translation */
    int cx0, cy0, cx1, cy1; /* the clip, in pixels, [x0, x1) x [y0, y1) */
    uint32_t pixel;
} boxes;

/* The pixel edge cairo puts a box's edge at without anti-aliasing: the
 * coordinate in its 24.8 fixed point (rounded to nearest), then rounded
 * to a whole pixel, halves down (_cairo_fixed_integer_round_down). */
static int pixel_edge(double v)
{
    double f = nearbyint(v * 256.0);
    return (int)floor((f + 127.0) / 256.0);
}

static void boxes_begin(boxes *b, cairo_t *cr)
{
    memset(b, 0, sizeof *b);
    b->cr = cr;
    cairo_surface_t *t = cairo_get_group_target(cr);
    cairo_matrix_t m;
    cairo_get_matrix(cr, &m);
    if (cairo_surface_get_type(t) != CAIRO_SURFACE_TYPE_IMAGE ||
        (cairo_image_surface_get_format(t) != CAIRO_FORMAT_RGB24 &&
         cairo_image_surface_get_format(t) != CAIRO_FORMAT_ARGB32) ||
        m.xx != 1 || m.yy != 1 || m.xy != 0 || m.yx != 0)
        return;
    double ox, oy;
    cairo_surface_get_device_offset(t, &ox, &oy);
    b->dx = m.x0 + ox;
    b->dy = m.y0 + oy;
    double x0, y0, x1, y1;
    cairo_clip_extents(cr, &x0, &y0, &x1, &y1);
    int w = cairo_image_surface_get_width(t);
    int h = cairo_image_surface_get_height(t);
    b->cx0 = (int)fmax(0, pixel_edge(x0 + b->dx));
    b->cy0 = (int)fmax(0, pixel_edge(y0 + b->dy));
    b->cx1 = (int)fmin(w, pixel_edge(x1 + b->dx));
    b->cy1 = (int)fmin(h, pixel_edge(y1 + b->dy));
    cairo_surface_flush(t);
    b->img = t;
    b->direct = true;
    b->data = cairo_image_surface_get_data(t);
    b->stride = cairo_image_surface_get_stride(t);
}

/* An opaque colour as a pixel of the image (alpha, red, green, blue). */
static uint32_t pixel_of(const chart_style *c)
{
    uint32_t r = (uint32_t)lround(fmin(fmax(c->r, 0), 1) * 255);
    uint32_t g = (uint32_t)lround(fmin(fmax(c->g, 0), 1) * 255);
    uint32_t b = (uint32_t)lround(fmin(fmax(c->b, 0), 1) * 255);
    return 0xff000000u | r << 16 | g << 8 | b;
}

/* The colour of the boxes that follow.  Only opaque ones go straight to
 * the pixels: a translucent one sends this and every later box through
 * cairo. */
static void boxes_colour(boxes *b, const chart_style *c)
{
    cairo_set_source_rgba(b->cr, c->r, c->g, c->b, c->a);
    if (c->a < 1.0)
        b->direct = false;
    b->pixel = pixel_of(c);
}

static void boxes_add(boxes *b, double x, double y, double w, double h)
{
    if (!b->direct) {
        cairo_rectangle(b->cr, x, y, w, h);
        return;
    }
    int x0 = pixel_edge(x + b->dx), x1 = pixel_edge(x + w + b->dx);
    int y0 = pixel_edge(y + b->dy), y1 = pixel_edge(y + h + b->dy);
    if (x0 < b->cx0)
        x0 = b->cx0;
    if (y0 < b->cy0)
        y0 = b->cy0;
    if (x1 > b->cx1)
        x1 = b->cx1;
    if (y1 > b->cy1)
        y1 = b->cy1;
    for (int yy = y0; yy < y1; yy++) {
        uint32_t *row = (uint32_t *)(void *)(b->data + (size_t)yy * b->stride);
        for (int xx = x0; xx < x1; xx++)
            row[xx] = b->pixel;
    }
}

/* Paint what went through cairo since the last colour. */
static void boxes_fill(boxes *b)
{
    if (!b->direct)
        cairo_fill(b->cr);
}

static void boxes_end(boxes *b)
{
    if (b->img)
        cairo_surface_mark_dirty(b->img);
}

/* Dense series (more points than half the plot's pixel columns, such as
 * 30 minutes of 1 s buckets in a 1 200 px panel) are drawn column by
 * column: each pixel column gets one opaque span from the lowest to the
 * highest value of the line through it, widened by the line's width, and
 * a dash pattern switches columns on and off.  It looks the same as the
 * stroked line at that density and costs a tenth: cairo's anti-aliased
 * stroke of a jagged 1 800-point line took 4.4 ms per series, and a frame
 * draws twenty. */
static void series_columns(cairo_t *cr, const chart_panel *p,
                           const chart_scale *y, const chart_data *d,
                           const chart_style *st)
{
    size_t k = d->stride ? d->stride : 1;
    double lw = st->width * p->font_px / 12.0;
    int x0 = (int)floor(p->plot.x), cols = (int)ceil(p->plot.w) + 1;
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    boxes bx;
    boxes_begin(&bx, cr);
    boxes_colour(&bx, st);
    int col = -1;
    double lo = 0, hi = 0, prev = NAN;
    for (size_t i = 0; i <= d->n; i++) {
        double t = i < d->n ? d->t[i * k] : NAN;
        double v = i < d->n ? d->v[i * k] : NAN;
        bool ok = isfinite(t) && isfinite(v);
        int c = ok ? (int)floor(chart_scale_map(&p->x, t)) - x0 : -1;
        double py = ok ? chart_scale_map(y, v) : NAN;
        if (col >= 0 && (c != col || !ok)) { /* flush the column */
            double on = st->dash == 1   ? fmod(col, 8 * lw) < 5 * lw
                        : st->dash == 2 ? fmod(col, 3.5 * lw) < 1.2 * lw
                                        : 1;
            if (on && col < cols)
                boxes_add(&bx, x0 + col, lo - lw / 2, 1.0, hi - lo + lw);
            prev = py;
            col = -1;
        }
        if (!ok) {
            prev = NAN;
            continue;
        }
        if (col < 0) { /* a new column starts where the line came from */
            col = c;
            lo = hi = py;
            if (isfinite(prev)) {
                lo = fmin(lo, prev);
                hi = fmax(hi, prev);
            }
        }
        lo = fmin(lo, py);
        hi = fmax(hi, py);
    }
    boxes_fill(&bx);
    boxes_end(&bx);
}

void chart_panel_series(cairo_t *cr, const chart_panel *p,
                        const chart_scale *y, const chart_data *d,
                        const chart_style *st)
{
    if (y == NULL)
        y = &p->y;
    size_t k = d->stride ? d->stride : 1;
    cairo_save(cr);
    clip_plot(cr, p);
    if ((double)d->n > p->plot.w * 0.5) {
        series_columns(cr, p, y, d, st);
        cairo_restore(cr);
        return;
    }
    set_style(cr, st, p->font_px);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_BEVEL);
    bool pen = false;
    for (size_t i = 0; i < d->n; i++) {
        double t = d->t[i * k], v = d->v[i * k];
        if (!isfinite(v) || !isfinite(t)) {
            pen = false;
            continue;
        }
        double px = chart_scale_map(&p->x, t), py = chart_scale_map(y, v);
        if (pen)
            cairo_line_to(cr, px, py);
        else
            cairo_move_to(cr, px, py);
        pen = true;
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

chart_scale chart_panel_right_axis(cairo_t *cr, const chart_panel *p,
                                   double lo, double hi, const char *unit)
{
    chart_scale y = {lo, hi, p->plot.y + p->plot.h, p->plot.y};
    chart_ticks t;
    int max = (int)(p->plot.h / (p->font_px * 2.2));
    chart_ticks_for(lo, hi, max < 2 ? 2 : max, &t);
    char buf[32];
    cairo_save(cr);
    chart_font(cr, p->font_px * 0.8, false);
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    double x = p->plot.x + p->plot.w;
    for (int i = 0; i < t.count; i++) {
        double v = t.first + i * t.step;
        double py = chart_scale_map(&y, v);
        cairo_move_to(cr, x - p->font_px * 0.3, py);
        cairo_line_to(cr, x, py);
        cairo_set_line_width(cr, 1.0);
        cairo_stroke(cr);
        text_at(cr, x - p->font_px * 0.4, py + p->font_px * 0.3, 1.0,
                chart_format(v, t.decimals, buf, sizeof buf));
    }
    if (unit) { /* on the title line, at the right */
        chart_font(cr, p->font_px * 0.85, false);
        text_at(cr, x, p->outer.y + p->font_px * 1.15, 1.0, unit);
    }
    cairo_restore(cr);
    return y;
}

void chart_panel_band(cairo_t *cr, const chart_panel *p, const double *t,
                      const double *lo, const double *hi, size_t n,
                      const chart_style *st)
{
    if (n == 0)
        return;
    cairo_save(cr);
    clip_plot(cr, p);
    cairo_set_source_rgba(cr, st->r, st->g, st->b, 0.25 * st->a);
    for (size_t i = 0; i < n; i++)
        cairo_line_to(cr, chart_scale_map(&p->x, t[i]),
                      chart_scale_map(&p->y, hi[i]));
    for (size_t i = n; i-- > 0;)
        cairo_line_to(cr, chart_scale_map(&p->x, t[i]),
                      chart_scale_map(&p->y, lo[i]));
    cairo_close_path(cr);
    cairo_fill(cr);
    cairo_restore(cr);
}

void chart_panel_hline(cairo_t *cr, const chart_panel *p, double v,
                       const char *label, const chart_style *st)
{
    double y = chart_scale_map(&p->y, v);
    if (y < p->plot.y || y > p->plot.y + p->plot.h)
        return;
    cairo_save(cr);
    clip_plot(cr, p);
    set_style(cr, st, p->font_px);
    cairo_move_to(cr, p->plot.x, y);
    cairo_line_to(cr, p->plot.x + p->plot.w, y);
    cairo_stroke(cr);
    if (label) {
        chart_font(cr, p->font_px * 0.8, false);
        text_at(cr, p->plot.x + p->plot.w - p->font_px * 0.3,
                y - p->font_px * 0.3, 1.0, label);
    }
    cairo_restore(cr);
}

void chart_panel_window(cairo_t *cr, const chart_panel *p, double t0,
                        double t1, const char *label)
{
    double x0 = fmax(chart_scale_map(&p->x, t0), p->plot.x);
    double x1 = fmin(chart_scale_map(&p->x, t1), p->plot.x + p->plot.w);
    if (x1 <= x0)
        return;
    cairo_save(cr);
    cairo_set_source_rgba(cr, chart_fault.r, chart_fault.g, chart_fault.b,
                          chart_fault.a);
    cairo_rectangle(cr, x0, p->plot.y, x1 - x0, p->plot.h);
    cairo_fill(cr);
    if (label && x1 - x0 > p->font_px) {
        clip_plot(cr, p);
        chart_font(cr, p->font_px * 0.75, false);
        cairo_set_source_rgb(cr, 0.55, 0.23, 0.0);
        text_at(cr, x0 + p->font_px * 0.2, p->plot.y + p->font_px * 0.9, 0.0,
                label);
    }
    cairo_restore(cr);
}

void chart_panel_marker(cairo_t *cr, const chart_panel *p, double t,
                        const char *label)
{
    double x = chart_scale_map(&p->x, t);
    if (x < p->plot.x || x > p->plot.x + p->plot.w)
        return;
    cairo_save(cr);
    clip_plot(cr, p);
    chart_style st = chart_ink;
    st.dash = 1;
    set_style(cr, &st, p->font_px);
    cairo_move_to(cr, x, p->plot.y);
    cairo_line_to(cr, x, p->plot.y + p->plot.h);
    cairo_stroke(cr);
    if (label) {
        chart_font(cr, p->font_px * 0.75, false);
        text_at(cr, x + p->font_px * 0.2, p->plot.y + p->plot.h -
                                              p->font_px * 0.3,
                0.0, label);
    }
    cairo_restore(cr);
}

/* ---- Legends ------------------------------------------------------------------- */

int chart_legend_layout(const double *widths, int n, double swatch,
                        double gap, double line, double width, double *xs,
                        double *ys)
{
    double x = 0.0, y = 0.0;
    int rows = n > 0 ? 1 : 0;
    for (int i = 0; i < n; i++) {
        double w = swatch + gap * 0.5 + widths[i];
        if (x > 0.0 && x + w > width) {
            x = 0.0;
            y += line;
            rows++;
        }
        xs[i] = x;
        ys[i] = y;
        x += w + gap;
    }
    return rows;
}

#define LEGEND_MAX 16

/* The legend goes on the title line, after the title, so it never hides
 * a series; items that do not fit there wrap into the top of the plot. */
void chart_legend(cairo_t *cr, const chart_panel *p,
                  const chart_legend_item *items, int n)
{
    if (n > LEGEND_MAX)
        n = LEGEND_MAX;
    double f = p->font_px * 0.8;
    double widths[LEGEND_MAX] = {0}, xs[LEGEND_MAX], ys[LEGEND_MAX];
    char title[256];
    panel_title(p, title, sizeof title);
    cairo_save(cr);
    chart_font(cr, p->font_px, true);
    double x0 = p->outer.x + p->font_px * 0.3 + chart_text_width(cr, title) +
                p->font_px * 1.5;
    chart_font(cr, f, false);
    for (int i = 0; i < n; i++)
        widths[i] = chart_text_width(cr, items[i].label);
    double swatch = f * 1.6, gap = f, line = f * 1.3;
    double right = p->plot.x + p->plot.w - p->font_px * 4.0;
    chart_legend_layout(widths, n, swatch, gap, line, right - x0, xs, ys);
    double y0 = p->outer.y + p->font_px * 0.25;
    for (int i = 0; i < n; i++) {
        double x = x0 + xs[i], y = y0 + ys[i] + line * 0.5;
        if (ys[i] > 0) { /* a wrapped row: on a backing inside the plot */
            cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
            cairo_rectangle(cr, x - gap * 0.3, y - line * 0.5,
                            swatch + gap + widths[i], line);
            cairo_fill(cr);
        }
        set_style(cr, items[i].style, p->font_px);
        cairo_move_to(cr, x, y);
        cairo_line_to(cr, x + swatch, y);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, chart_ink.r, chart_ink.g, chart_ink.b);
        text_at(cr, x + swatch + gap * 0.5, y + f * 0.35, 0.0,
                items[i].label);
    }
    cairo_restore(cr);
}

/* ---- The field of clients -------------------------------------------------------- */

/* Does a grid of `cells` squares of side s fit in w x h? */
static bool fits(double w, double h, uint32_t cells, double s)
{
    double cols = floor(w / s);
    if (cols < 1)
        return false;
    return ceil(cells / cols) * s <= h + 1e-9;
}

void chart_field_layout(chart_field *f, chart_rect area, uint32_t items,
                        double min_cell)
{
    memset(f, 0, sizeof *f);
    f->area = area;
    f->items = items;
    if (items == 0 || area.w < min_cell || area.h < min_cell)
        return;
    uint64_t max_cols = (uint64_t)(area.w / min_cell);
    uint64_t max_rows = (uint64_t)(area.h / min_cell);
    uint64_t cap = max_cols * max_rows;
    f->per_cell = (uint32_t)((items + cap - 1) / cap);
    f->cells = (items + f->per_cell - 1) / f->per_cell;
    /* The largest cell that still fits, by bisection: fits() is monotone
     * in s. */
    double lo = min_cell, hi = fmax(area.w, area.h);
    for (int i = 0; i < 60; i++) {
        double mid = (lo + hi) / 2;
        if (fits(area.w, area.h, f->cells, mid))
            lo = mid;
        else
            hi = mid;
    }
    f->cell = floor(lo * 100.0) / 100.0;
    f->cols = (uint32_t)floor(area.w / f->cell);
    f->rows = (f->cells + f->cols - 1) / f->cols;
}

uint8_t chart_field_cell_state(const chart_field *f, const uint8_t *states,
                               uint32_t cell, int n_states)
{
    uint32_t count[32] = {0};
    if (n_states > 32)
        n_states = 32;
    uint64_t from = (uint64_t)cell * f->per_cell;
    uint64_t to = from + f->per_cell;
    if (to > f->items)
        to = f->items;
    for (uint64_t i = from; i < to; i++)
        if (states[i] < n_states)
            count[states[i]]++;
    int best = 0;
    for (int s = 1; s < n_states; s++)
        if (count[s] >= count[best])
            best = s;
    return (uint8_t)best;
}

void chart_field_draw(cairo_t *cr, const chart_field *f, const uint8_t *states,
                      const chart_style *colours, int n_states)
{
    if (f->cells == 0 || n_states < 1)
        return;
    cairo_save(cr);
    /* Cells on whole pixels, without anti-aliasing: a field of ten
     * thousand cells is ten thousand rectangles, and rasterising their
     * edges at fractional positions costs more than all the rest of a
     * frame. */
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    double gap = f->cell >= 4 ? 1.0 : 0.0;
    boxes bx;
    boxes_begin(&bx, cr);
    bool opaque = n_states <= 256;
    for (int s = 0; s < n_states && opaque; s++)
        opaque = colours[s].a >= 1.0;
    if (bx.direct && opaque) { /* one pass, each cell in its colour */
        uint32_t pixel[256];
        for (int s = 0; s < n_states; s++)
            pixel[s] = pixel_of(&colours[s]);
        for (uint32_t i = 0; i < f->cells; i++) {
            bx.pixel = pixel[chart_field_cell_state(f, states, i, n_states)];
            double x0 = round(f->area.x + (i % f->cols) * f->cell);
            double y0 = round(f->area.y + (i / f->cols) * f->cell);
            double x1 = round(f->area.x + (i % f->cols + 1) * f->cell);
            double y1 = round(f->area.y + (i / f->cols + 1) * f->cell);
            boxes_add(&bx, x0, y0, x1 - x0 - gap, y1 - y0 - gap);
        }
        n_states = 0;
    }
    for (int s = 0; s < n_states; s++) {
        /* One fill per state: a path of all its cells. */
        boxes_colour(&bx, &colours[s]);
        bool any = false;
        for (uint32_t i = 0; i < f->cells; i++) {
            if (chart_field_cell_state(f, states, i, n_states) != s)
                continue;
            double x0 = round(f->area.x + (i % f->cols) * f->cell);
            double y0 = round(f->area.y + (i / f->cols) * f->cell);
            double x1 = round(f->area.x + (i % f->cols + 1) * f->cell);
            double y1 = round(f->area.y + (i / f->cols + 1) * f->cell);
            boxes_add(&bx, x0, y0, x1 - x0 - gap, y1 - y0 - gap);
            any = true;
        }
        if (any)
            boxes_fill(&bx);
    }
    boxes_end(&bx);
    cairo_restore(cr);
}
