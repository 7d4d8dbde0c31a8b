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
    double step = chart_nice_number((hi - lo) / max_ticks * (1 - 1e-12), false);
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

/* The symlog transform: linear near 0, log10 above 1. */
static double symlog(double v)
{
    return v < 0 ? -log10(1 - v) : log10(1 + v);
}

static double symlog_inverse(double f)
{
    return f < 0 ? 1 - pow(10, -f) : pow(10, f) - 1;
}

double chart_scale_map(const chart_scale *s, double v)
{
    if (s->hi == s->lo)
        return s->p0;
    if (s->symlog)
        return s->p0 + (symlog(v) - symlog(s->lo)) /
                           (symlog(s->hi) - symlog(s->lo)) * (s->p1 - s->p0);
    if (s->log)
        return v > 0 ? s->p0 + log10(v / s->lo) / log10(s->hi / s->lo) *
                                   (s->p1 - s->p0)
                     : NAN;
    return s->p0 + (v - s->lo) / (s->hi - s->lo) * (s->p1 - s->p0);
}

double chart_scale_unmap(const chart_scale *s, double p)
{
    if (s->p1 == s->p0)
        return s->lo;
    if (s->symlog)
        return symlog_inverse(symlog(s->lo) +
                              (p - s->p0) / (s->p1 - s->p0) *
                                  (symlog(s->hi) - symlog(s->lo)));
    if (s->log)
        return s->lo * pow(s->hi / s->lo, (p - s->p0) / (s->p1 - s->p0));
    return s->lo + (p - s->p0) / (s->p1 - s->p0) * (s->hi - s->lo);
}

/* m times 10^e, correctly rounded for negative e too (0.2 is 2 / 10, not
 * 2 * 0.1). */
static double times_ten_to(double m, int e)
{
    return e >= 0 ? m * pow(10.0, e) : m / pow(10.0, -e);
}

/* The largest 1-2-5 number not above x (x > 0); a relative 1e-9 of
 * slack so that 0.3 / 0.1 = 2.9999999999999996 still counts as 3. */
static double nice_below(double x)
{
    int e = (int)floor(log10(x) + 1e-12);
    double f = x / times_ten_to(1.0, e);
    double m = f >= 5 * (1 - 1e-9) ? 5 : f >= 2 * (1 - 1e-9) ? 2 : 1;
    if (f >= 10 * (1 - 1e-9)) /* log10 rounded down past a power */
        return times_ten_to(1.0, e + 1);
    return times_ten_to(m, e);
}

void chart_log_range(double *lo, double *hi)
{
    if (!(*lo > 0) || !(*hi >= *lo) || !isfinite(*hi)) {
        *lo = 1.0;
        *hi = 10.0;
        return;
    }
    *lo = nice_below(*lo);
    double h = chart_nice_number(*hi * (1 - 1e-12), false);
    if (!(h > *lo)) /* a single value: the next 1-2-5 number up */
        h = chart_nice_number(*lo * 1.01, false);
    *hi = h;
}

/* The k-th of 1, 2, 5, 10, 20, 50 ... (k from 0). */
static int stride_125(int k)
{
    static const int m[] = {1, 2, 5};
    int p = 1;
    for (int i = 0; i < k / 3; i++)
        p *= 10;
    return m[k % 3] * p;
}

/* The ticks of one pattern of chart_log_ticks: level 0 every 1-2-5
 * number, level k > 0 every stride_125(k - 1)-th power of ten.  Writes
 * at most n to out, returns how many there are. */
static int log_pattern(double lo, double hi, int level, double *out, int n)
{
    static const double m125[] = {1, 2, 5};
    int stride = level == 0 ? 1 : stride_125(level - 1);
    int per_decade = level == 0 ? 3 : 1;
    int e0 = (int)floor(log10(lo)) - 1, e1 = (int)ceil(log10(hi)) + 1;
    int count = 0;
    for (int e = e0; e <= e1; e++) {
        if ((e % stride + stride) % stride != 0)
            continue;
        for (int k = 0; k < per_decade; k++) {
            double v = times_ten_to(m125[k], e);
            if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9))
                continue;
            if (count < n)
                out[count] = v;
            count++;
        }
    }
    return count;
}

/* The finest pattern with at most max_ticks intervals; when a coarser
 * pattern leaves fewer than two ticks (a range of a decade or two), the
 * finer one before it, too many ticks being better than one.  Strides
 * stop at 10 000 decades, past any double's range. */
int chart_log_ticks(double lo, double hi, int max_ticks, double *out, int n)
{
    if (!(lo > 0) || !(hi > lo) || !isfinite(hi) || n <= 0)
        return 0;
    if (max_ticks < 2)
        max_ticks = 2;
    int chosen = 0;
    for (int level = 0; level < 14; level++) {
        int c = log_pattern(lo, hi, level, NULL, 0);
        if (c < 2 && level > 0)
            break;
        chosen = level;
        if (c - 1 <= max_ticks)
            break;
    }
    int c = log_pattern(lo, hi, chosen, out, n);
    return c < n ? c : n;
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
    {RGB(119, 119, 119), 1.0, 2.0, 0}, /* grey, not the yellow */
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

void chart_text(cairo_t *cr, double x, double y, double align, const char *text)
{
    cairo_move_to(cr, x - align * chart_text_width(cr, text), y);
    cairo_show_text(cr, text);
}

/* Slices of text are measured and drawn from a copy on the stack, so
 * nothing allocates.  A slice too long for it (over a thousand bytes) is
 * wider than any line a chart or a page has, and is treated so. */
#define SLICE_MAX 1024
static const char ellipsis[] = "\xe2\x80\xa6"; /* U+2026 */

/* text[from, to), then an ellipsis when cut, into buf; false when it
 * does not fit. */
static bool slice(char *buf, const char *text, size_t from, size_t to, bool cut)
{
    size_t len = to - from;
    if (len + sizeof ellipsis > SLICE_MAX)
        return false;
    memcpy(buf, text + from, len);
    if (cut)
        memcpy(buf + len, ellipsis, sizeof ellipsis - 1);
    buf[len + (cut ? sizeof ellipsis - 1 : 0)] = '\0';
    return true;
}

static double slice_width(cairo_t *cr, const char *text, size_t from, size_t to,
                          bool cut)
{
    char buf[SLICE_MAX];
    return slice(buf, text, from, to, cut) ? chart_text_width(cr, buf)
                                           : INFINITY;
}

/* The end of the longest prefix of text[from, to), on a UTF-8 character
 * boundary, that fits in width with an ellipsis after it. */
static size_t cut_to_fit(cairo_t *cr, const char *text, size_t from, size_t to,
                         double width)
{
    size_t end = from;
    for (size_t k = from + 1; k <= to; k++) {
        if (k < to && ((unsigned char)text[k] & 0xc0) == 0x80)
            continue; /* inside a character */
        if (slice_width(cr, text, from, k, true) > width)
            break;
        end = k;
    }
    return end;
}

/* The end of the longest prefix of the word text[from, to) that ends
 * just after a break character and fits in width, or from when none
 * does: a policy such as exponential:jitter=full:base=10ms breaks after
 * a colon rather than lose its end. */
static size_t break_to_fit(cairo_t *cr, const char *text, size_t from,
                           size_t to, double width)
{
    size_t best = from;
    for (size_t k = from + 1; k < to; k++) {
        if (strchr(":+/,=_-", text[k - 1]) == NULL)
            continue;
        if (slice_width(cr, text, from, k, false) > width)
            break;
        best = k;
    }
    return best;
}

/* The end of the word at i: the next space, newline or the end. */
static size_t word_end(const char *text, size_t i)
{
    while (text[i] && text[i] != ' ' && text[i] != '\n')
        i++;
    return i;
}

/* One line from pos: the words that fit, or a first word cut to fit.
 * Returns where scanning stopped (at the spaces before the word that did
 * not fit, a newline or the end). */
static size_t wrap_line(cairo_t *cr, const char *text, size_t pos, double width,
                        chart_line *l)
{
    size_t i = pos;
    *l = (chart_line){pos, 0, false};
    for (;;) {
        size_t s = i;
        while (text[s] == ' ')
            s++;
        size_t we = word_end(text, s);
        if (we == s)
            return s;
        if (slice_width(cr, text, pos, we, false) <= width) {
            l->len = we - pos;
            i = we;
            continue;
        }
        if (l->len == 0) { /* a word wider than the line */
            size_t k = break_to_fit(cr, text, pos, we, width);
            if (k > pos) {
                l->len = k - pos;
                return k;
            }
            l->len = cut_to_fit(cr, text, pos, we, width) - pos;
            l->cut = true;
            return we;
        }
        return i;
    }
}

int chart_wrap(cairo_t *cr, const char *text, double width, chart_line *lines,
               int max)
{
    size_t pos = 0;
    for (int n = 0;; n++) {
        chart_line l;
        size_t next = wrap_line(cr, text, pos, width, &l);
        while (text[next] == ' ')
            next++;
        bool more = text[next] != '\0';
        if (text[next] == '\n')
            next++;
        if (more && n == max - 1) { /* the last line there is room for */
            if (!l.cut ||
                slice_width(cr, text, l.start, l.start + l.len, true) > width)
                l.len = cut_to_fit(cr, text, l.start, l.start + l.len, width) -
                        l.start;
            l.cut = true;
            more = false;
        }
        lines[n] = l;
        if (!more)
            return n + 1;
        pos = next;
    }
}

void chart_text_line(cairo_t *cr, double x, double y, double align,
                     const char *text, const chart_line *l)
{
    char buf[SLICE_MAX];
    if (slice(buf, text, l->start, l->start + l->len, l->cut))
        chart_text(cr, x, y, align, buf);
}

/* ---- Panels ---------------------------------------------------------------- */

/* The plot area inside outer with the given margins, its scales and
 * ticks. */
static void panel_layout(chart_panel *p, double left, double top, double bottom,
                         double right, double x_lo, double x_hi, double y_lo,
                         double y_hi)
{
    chart_rect outer = p->outer;
    double font_px = p->font_px;
    p->plot.x = outer.x + left;
    p->plot.y = outer.y + top;
    p->plot.w = fmax(1.0, outer.w - left - right);
    p->plot.h = fmax(1.0, outer.h - top - bottom);
    p->x = (chart_scale){x_lo,  x_hi, p->plot.x, p->plot.x + p->plot.w,
                         false, false};
    p->y = (chart_scale){y_lo,      y_hi,  p->plot.y + p->plot.h,
                         p->plot.y, false, false};
    int xmax = (int)(p->plot.w / (font_px * 5.0));
    int ymax = (int)(p->plot.h / (font_px * 2.2));
    chart_ticks_for(x_lo, x_hi, xmax < 2 ? 2 : xmax, &p->xt);
    chart_ticks_for(y_lo, y_hi, ymax < 2 ? 2 : ymax, &p->yt);
}

void chart_panel_init(chart_panel *p, chart_rect outer, const char *title,
                      const char *unit, double t_lo, double t_hi, double y_lo,
                      double y_hi, double font_px)
{
    memset(p, 0, sizeof *p);
    p->outer = outer;
    p->title = title;
    p->unit = unit;
    p->x_suffix = " s";
    p->font_px = font_px;
    /* Room for a title line above, tick labels left (six characters of
     * about 0.6 em) and below, a little air on the right. */
    panel_layout(p, font_px * 4.2, font_px * 1.7, font_px * 1.6, font_px * 0.8,
                 t_lo, t_hi, y_lo, y_hi);
}

void chart_panel_init_axes(chart_panel *p, chart_rect outer, const char *title,
                           const chart_axes *ax, double x_lo, double x_hi,
                           double y_lo, double y_hi, double font_px)
{
    memset(p, 0, sizeof *p);
    p->outer = outer;
    p->title = title;
    p->x_label = ax->x_label;
    p->y_label = ax->y_label;
    p->font_px = font_px;
    /* As the GUI's, with a line under the x tick labels for the x label,
     * a turned line left of the y tick labels for the y label, and room
     * on the right for the last x tick label's other half. */
    double f = font_px;
    panel_layout(p, f * (4.2 + (ax->y_label ? 1.3 : 0)),
                 f * (title && title[0] ? 1.9 : 0.6),
                 f * (1.6 + (ax->x_label ? 1.5 : 0)), f * 1.6, x_lo, x_hi, y_lo,
                 y_hi);
    p->x.log = ax->x_log;
    p->y.log = ax->y_log;
    p->y.symlog = ax->y_symlog && !ax->y_log;
}
bool chart_panel_hit(const chart_panel *p, double px, double py)
{
    return px >= p->plot.x && px <= p->plot.x + p->plot.w && py >= p->plot.y &&
           py <= p->plot.y + p->plot.h;
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

/* The x axis's ticks: the linear ones of p->xt, or a log axis's. */
#define X_TICKS_MAX 64
static int x_ticks(const chart_panel *p, double *v)
{
    if (p->x.log) {
        int max = (int)(p->plot.w / (p->font_px * 5.0));
        return chart_log_ticks(p->x.lo, p->x.hi, max, v, X_TICKS_MAX);
    }
    int n = p->xt.count < X_TICKS_MAX ? p->xt.count : X_TICKS_MAX;
    for (int i = 0; i < n; i++)
        v[i] = p->xt.first + i * p->xt.step;
    return n;
}

/* The y axis's ticks: the linear ones of p->yt, or a log axis's. */
static int y_ticks(const chart_panel *p, double *v)
{
    if (p->y.symlog) { /* 0, then the powers of ten up to the top */
        int n = 0;
        if (p->y.lo <= 0)
            v[n++] = 0;
        for (double t = 1; t <= p->y.hi * (1 + 1e-9) && n < X_TICKS_MAX;
             t *= 10) {
            /* 1 sits 2 % up a 0-to-100k axis: its label would touch
             * 0's, so it is left out when closer than 1.1 lines. */
            double gap = n ? fabs(chart_scale_map(&p->y, t) -
                                  chart_scale_map(&p->y, v[n - 1]))
                           : INFINITY;
            if (t >= p->y.lo && gap >= p->font_px * 1.1)
                v[n++] = t;
        }
        return n;
    }
    if (p->y.log) {
        int max = (int)(p->plot.h / (p->font_px * 2.2));
        return chart_log_ticks(p->y.lo, p->y.hi, max, v, X_TICKS_MAX);
    }
    int n = p->yt.count < X_TICKS_MAX ? p->yt.count : X_TICKS_MAX;
    for (int i = 0; i < n; i++)
        v[i] = p->yt.first + i * p->yt.step;
    return n;
}

static void frame_grid(cairo_t *cr, const chart_panel *p, const double *xv,
                       int nx)
{
    double yv[X_TICKS_MAX];
    int ny = y_ticks(p, yv);
    double f = p->font_px;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, p->plot.x, p->plot.y, p->plot.w, p->plot.h);
    cairo_fill(cr);
    set_style(cr, &chart_grid, f);
    for (int i = 0; i < ny; i++) {
        double y = round(chart_scale_map(&p->y, yv[i]));
        cairo_move_to(cr, p->plot.x, y + 0.5);
        cairo_line_to(cr, p->plot.x + p->plot.w, y + 0.5);
    }
    for (int i = 0; i < nx; i++) {
        double x = round(chart_scale_map(&p->x, xv[i]));
        cairo_move_to(cr, x + 0.5, p->plot.y);
        cairo_line_to(cr, x + 0.5, p->plot.y + p->plot.h);
    }
    cairo_stroke(cr);
    set_style(cr, &chart_ink, f);
    cairo_rectangle(cr, p->plot.x + 0.5, p->plot.y + 0.5, p->plot.w - 1,
                    p->plot.h - 1);
    cairo_stroke(cr);
}

/* The digits a log axis's tick needs: 0.05 two, 20 none. */
static int log_decimals(double v)
{
    int d = (int)-floor(log10(v) + 1e-9);
    return d > 0 ? d : 0;
}

static void frame_tick_labels(cairo_t *cr, const chart_panel *p,
                              const double *xv, int nx)
{
    char buf[32];
    double f = p->font_px;
    chart_font(cr, f * 0.85, false);
    cairo_set_source_rgb(cr, chart_ink.r, chart_ink.g, chart_ink.b);
    double yv[X_TICKS_MAX];
    int ny = y_ticks(p, yv);
    for (int i = 0; i < ny; i++) {
        double y = chart_scale_map(&p->y, yv[i]);
        chart_text(cr, p->plot.x - f * 0.35, y + f * 0.3, 1.0,
                   chart_format(yv[i],
                                p->y.log      ? log_decimals(yv[i])
                                : p->y.symlog ? 0
                                              : p->yt.decimals,
                                buf, sizeof buf));
    }
    for (int i = 0; i < nx; i++) {
        double x = chart_scale_map(&p->x, xv[i]);
        chart_format(xv[i], p->x.log ? log_decimals(xv[i]) : p->xt.decimals,
                     buf, sizeof buf);
        if (i == nx - 1 && p->x_suffix) { /* the unit, once, on the last */
            size_t len = strlen(buf);
            snprintf(buf + len, sizeof buf - len, "%s", p->x_suffix);
        }
        /* The last label is kept inside the panel. */
        double half = chart_text_width(cr, buf) / 2;
        if (x + half > p->outer.x + p->outer.w)
            x = p->outer.x + p->outer.w - half;
        chart_text(cr, x, p->plot.y + p->plot.h + f * 1.1, 0.5, buf);
    }
}

#define HALF_PI 1.57079632679489661923

/* The title, and a report's axis labels: the x label centred under the
 * tick labels, the y label turned to read upwards, centred on the plot. */
static void frame_labels(cairo_t *cr, const chart_panel *p)
{
    double f = p->font_px;
    chart_font(cr, f, true);
    char title[256];
    panel_title(p, title, sizeof title);
    chart_text(cr, p->outer.x + f * 0.3, p->outer.y + f * 1.15, 0.0, title);
    chart_font(cr, f * 0.9, false);
    if (p->x_label)
        chart_text(cr, p->plot.x + p->plot.w / 2,
                   p->plot.y + p->plot.h + f * 2.6, 0.5, p->x_label);
    if (p->y_label) {
        cairo_save(cr);
        cairo_translate(cr, p->outer.x + f * 1.0, p->plot.y + p->plot.h / 2);
        cairo_rotate(cr, -HALF_PI);
        char label[256]; /* a symlog axis says so: its ticks are not even */
        snprintf(label, sizeof label, "%s%s", p->y_label,
                 p->y.symlog ? ", log" : "");
        chart_text(cr, 0, 0, 0.5, label);
        cairo_restore(cr);
    }
}

void chart_panel_frame(cairo_t *cr, const chart_panel *p)
{
    double xv[X_TICKS_MAX];
    int nx = x_ticks(p, xv);
    cairo_save(cr);
    frame_grid(cr, p, xv, nx);
    frame_tick_labels(cr, p, xv, nx);
    frame_labels(cr, p);
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
    double dx, dy;          /* user space to pixels: a translation */
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
 * column on a raster target: each pixel column gets one opaque span from
 * the lowest to the highest value the line takes inside it (every
 * segment through the column, interpolated at its edges), widened by
 * the line's width, and a dash pattern switches columns on and off.  It
 * looks the same as the stroked line at that density and costs a tenth:
 * cairo's anti-aliased stroke of a jagged 1 800-point line took 4.4 ms
 * per series, and a frame draws twenty.  A column no point falls in
 * still gets the segment that crosses it: painting only the columns of
 * the points drew a 360-point report line as a row of dots. */
typedef struct column_run {
    boxes bx;
    int x0, cols;  /* the plot's first pixel column and how many */
    int col;       /* the column being gathered; -1: none */
    double lo, hi; /* its span so far */
    double lw;
    int dash;
} column_run;

static void column_flush(column_run *c)
{
    if (c->col < 0)
        return;
    double lw = c->lw;
    bool on = c->dash == 1   ? fmod(c->col, 8 * lw) < 5 * lw
              : c->dash == 2 ? fmod(c->col, 3.5 * lw) < 1.2 * lw
                             : true;
    if (on && c->col < c->cols)
        boxes_add(&c->bx, c->x0 + c->col, c->lo - lw / 2, 1.0,
                  c->hi - c->lo + lw);
    c->col = -1;
}

static void column_take(column_run *c, int col, double a, double b)
{
    if (col != c->col) {
        column_flush(c);
        c->col = col;
        c->lo = c->hi = a;
    }
    c->lo = fmin(c->lo, fmin(a, b));
    c->hi = fmax(c->hi, fmax(a, b));
}

/* The segment (ax, ay)-(bx, by), in device units, column by column. */
static void column_segment(column_run *c, double ax, double ay, double bx,
                           double by)
{
    if (bx < ax) {
        double tx = ax, ty = ay;
        ax = bx;
        ay = by;
        bx = tx;
        by = ty;
    }
    int c0 = (int)floor(ax) - c->x0, c1 = (int)floor(bx) - c->x0;
    c0 = c0 < -1 ? -1 : c0 > c->cols ? c->cols : c0;
    c1 = c1 < -1 ? -1 : c1 > c->cols ? c->cols : c1;
    double slope = bx > ax ? (by - ay) / (bx - ax) : 0.0;
    for (int k = c0; k <= c1; k++) {
        double l = fmax(ax, c->x0 + k), r = fmin(bx, c->x0 + k + 1.0);
        if (r < l)
            r = l;
        double yl = bx > ax ? ay + (l - ax) * slope : ay;
        double yr = bx > ax ? ay + (r - ax) * slope : by;
        column_take(c, k, yl, yr);
    }
}

static void series_columns(cairo_t *cr, const chart_panel *p,
                           const chart_scale *y, const chart_data *d,
                           const chart_style *st)
{
    size_t k = d->stride ? d->stride : 1;
    column_run c = {.x0 = (int)floor(p->plot.x),
                    .cols = (int)ceil(p->plot.w) + 1,
                    .col = -1,
                    .lw = st->width * p->font_px / 12.0,
                    .dash = st->dash};
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    boxes_begin(&c.bx, cr);
    boxes_colour(&c.bx, st);
    double qx = NAN, qy = NAN;
    for (size_t i = 0; i < d->n; i++) {
        double t = d->t[i * k], v = d->v[i * k];
        double px = chart_scale_map(&p->x, t), py = chart_scale_map(y, v);
        if (!isfinite(px) || !isfinite(py)) { /* NaN, or x <= 0 on log */
            column_flush(&c);
            qx = NAN;
            continue;
        }
        if (isfinite(qx))
            column_segment(&c, qx, qy, px, py);
        else
            column_take(&c, (int)floor(px) - c.x0, py, py);
        qx = px;
        qy = py;
    }
    column_flush(&c);
    boxes_fill(&c.bx);
    boxes_end(&c.bx);
}

/* Documents (PDF, PostScript, SVG) are read zoomed in and printed: they
 * get the stroked line whatever its density.  Raster targets -- an image,
 * or a recording replayed onto one -- get the columns when dense. */
static bool raster_target(cairo_t *cr)
{
    cairo_surface_type_t t = cairo_surface_get_type(cairo_get_group_target(cr));
    return t != CAIRO_SURFACE_TYPE_PDF && t != CAIRO_SURFACE_TYPE_PS &&
           t != CAIRO_SURFACE_TYPE_SVG;
}

void chart_panel_series(cairo_t *cr, const chart_panel *p, const chart_scale *y,
                        const chart_data *d, const chart_style *st)
{
    if (y == NULL)
        y = &p->y;
    size_t k = d->stride ? d->stride : 1;
    cairo_save(cr);
    clip_plot(cr, p);
    if ((double)d->n > p->plot.w * 0.5 && raster_target(cr)) {
        series_columns(cr, p, y, d, st);
        cairo_restore(cr);
        return;
    }
    set_style(cr, st, p->font_px);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_BEVEL);
    bool pen = false;
    for (size_t i = 0; i < d->n; i++) {
        double t = d->t[i * k], v = d->v[i * k];
        double px = chart_scale_map(&p->x, t), py = chart_scale_map(y, v);
        if (!isfinite(px) || !isfinite(py)) { /* NaN, or x <= 0 on log */
            pen = false;
            continue;
        }
        if (pen)
            cairo_line_to(cr, px, py);
        else
            cairo_move_to(cr, px, py);
        pen = true;
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

chart_scale chart_panel_right_axis(cairo_t *cr, const chart_panel *p, double lo,
                                   double hi, const char *unit)
{
    chart_scale y = {lo, hi, p->plot.y + p->plot.h, p->plot.y, false, false};
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
        chart_text(cr, x - p->font_px * 0.4, py + p->font_px * 0.3, 1.0,
                   chart_format(v, t.decimals, buf, sizeof buf));
    }
    if (unit) { /* on the title line, at the right */
        chart_font(cr, p->font_px * 0.85, false);
        chart_text(cr, x, p->outer.y + p->font_px * 1.15, 1.0, unit);
    }
    cairo_restore(cr);
    return y;
}

/* Is band point i drawable: its x on the axis, both ends numbers? */
static bool band_ok(const chart_panel *p, const double *t, const double *lo,
                    const double *hi, size_t i)
{
    return isfinite(chart_scale_map(&p->x, t[i])) && isfinite(lo[i]) &&
           isfinite(hi[i]);
}

void chart_panel_band(cairo_t *cr, const chart_panel *p, const double *t,
                      const double *lo, const double *hi, size_t n,
                      const chart_style *st)
{
    cairo_save(cr);
    clip_plot(cr, p);
    cairo_set_source_rgba(cr, st->r, st->g, st->b, 0.25 * st->a);
    /* One polygon per run of drawable points: along hi, back along lo. */
    for (size_t a = 0; a < n;) {
        if (!band_ok(p, t, lo, hi, a)) {
            a++;
            continue;
        }
        size_t b = a;
        while (b < n && band_ok(p, t, lo, hi, b))
            b++;
        cairo_new_sub_path(cr);
        for (size_t i = a; i < b; i++)
            cairo_line_to(cr, chart_scale_map(&p->x, t[i]),
                          chart_scale_map(&p->y, hi[i]));
        for (size_t i = b; i-- > a;)
            cairo_line_to(cr, chart_scale_map(&p->x, t[i]),
                          chart_scale_map(&p->y, lo[i]));
        cairo_close_path(cr);
        a = b;
    }
    cairo_fill(cr);
    cairo_restore(cr);
}

void chart_panel_points(cairo_t *cr, const chart_panel *p, const chart_data *d,
                        const chart_style *st)
{
    size_t k = d->stride ? d->stride : 1;
    double r = fmax(1.5, st->width * p->font_px / 12.0 * 1.5);
    cairo_save(cr);
    clip_plot(cr, p);
    cairo_set_source_rgba(cr, st->r, st->g, st->b, st->a);
    for (size_t i = 0; i < d->n; i++) {
        double x = chart_scale_map(&p->x, d->t[i * k]);
        double y = chart_scale_map(&p->y, d->v[i * k]);
        if (!isfinite(x) || !isfinite(y))
            continue;
        cairo_new_sub_path(cr);
        cairo_arc(cr, x, y, r, 0, 4 * HALF_PI);
    }
    cairo_fill(cr);
    cairo_restore(cr);
}

/* ---- Bars ---------------------------------------------------------------- */

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

chart_rect chart_bar_rect(const chart_panel *p, int n, int i, double share,
                          double v)
{
    double slot = p->plot.w / (n > 0 ? n : 1);
    double w = slot * share;
    double lo = fmin(p->y.lo, p->y.hi), hi = fmax(p->y.lo, p->y.hi);
    double y0 = chart_scale_map(&p->y, clamp(0.0, lo, hi));
    double y1 = chart_scale_map(&p->y, clamp(v, lo, hi));
    return (chart_rect){p->plot.x + slot * i + (slot - w) / 2, fmin(y0, y1), w,
                        fabs(y1 - y0)};
}

void chart_panel_bar(cairo_t *cr, const chart_panel *p, int n, int i, double v,
                     double lo, double hi, const chart_style *st)
{
    double f = p->font_px;
    cairo_save(cr);
    clip_plot(cr, p);
    if (isfinite(v)) {
        chart_rect b = chart_bar_rect(p, n, i, 0.6, v);
        cairo_rectangle(cr, b.x, b.y, b.w, b.h);
        cairo_set_source_rgba(cr, st->r, st->g, st->b, st->a);
        cairo_fill_preserve(cr);
        cairo_set_source_rgba(cr, chart_ink.r, chart_ink.g, chart_ink.b, 0.6);
        cairo_set_line_width(cr, f / 16.0);
        cairo_stroke(cr);
    }
    if (isfinite(lo) && isfinite(hi)) {
        chart_rect b = chart_bar_rect(p, n, i, 0.6, v);
        double x = b.x + b.w / 2, cap = b.w * 0.18;
        double y0 = chart_scale_map(&p->y, lo), y1 = chart_scale_map(&p->y, hi);
        set_style(cr, &chart_ink, f);
        cairo_set_line_width(cr, f / 8.0);
        cairo_move_to(cr, x, y0);
        cairo_line_to(cr, x, y1);
        cairo_move_to(cr, x - cap, y0);
        cairo_line_to(cr, x + cap, y0);
        cairo_move_to(cr, x - cap, y1);
        cairo_line_to(cr, x + cap, y1);
        cairo_stroke(cr);
    }
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
        chart_text(cr, p->plot.x + p->plot.w - p->font_px * 0.3,
                   y - p->font_px * 0.3, 1.0, label);
    }
    cairo_restore(cr);
}

void chart_panel_window(cairo_t *cr, const chart_panel *p, double t0, double t1,
                        const char *label)
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
        chart_text(cr, x0 + p->font_px * 0.2, p->plot.y + p->font_px * 0.9, 0.0,
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
        chart_text(cr, x + p->font_px * 0.2,
                   p->plot.y + p->plot.h - p->font_px * 0.3, 0.0, label);
    }
    cairo_restore(cr);
}

/* ---- Legends ------------------------------------------------------------------- */

int chart_legend_layout(const double *widths, int n, double swatch, double gap,
                        double line, double width, double *xs, double *ys)
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

/* A legend item's swatch (a line of its style, over a band and with a
 * dot when it has them) from (x, y) on, `swatch` long, and its label. */
static void legend_item(cairo_t *cr, double x, double y, double swatch,
                        double gap, double font_px, const chart_legend_item *it)
{
    double f = font_px * 0.8;
    const chart_style *st = it->style;
    if (it->band) {
        cairo_set_source_rgba(cr, st->r, st->g, st->b, 0.25 * st->a);
        cairo_rectangle(cr, x, y - f * 0.45, swatch, f * 0.9);
        cairo_fill(cr);
    }
    set_style(cr, st, font_px);
    cairo_move_to(cr, x, y);
    cairo_line_to(cr, x + swatch, y);
    cairo_stroke(cr);
    if (it->points) {
        cairo_arc(cr, x + swatch / 2, y,
                  fmax(1.5, st->width * font_px / 12.0 * 1.5), 0, 4 * HALF_PI);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, chart_ink.r, chart_ink.g, chart_ink.b);
    chart_text(cr, x + swatch + gap * 0.5, y + f * 0.35, 0.0, it->label);
}

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
        legend_item(cr, x, y, swatch, gap, p->font_px, &items[i]);
    }
    cairo_restore(cr);
}

double chart_legend_rows(cairo_t *cr, double x, double y, double width,
                         double font_px, const chart_legend_item *items, int n,
                         bool draw)
{
    if (n > LEGEND_MAX)
        n = LEGEND_MAX;
    if (n <= 0)
        return 0.0;
    double f = font_px * 0.8;
    double widths[LEGEND_MAX], xs[LEGEND_MAX], ys[LEGEND_MAX];
    cairo_save(cr);
    chart_font(cr, f, false);
    for (int i = 0; i < n; i++)
        widths[i] = fmin(chart_text_width(cr, items[i].label), width * 0.8);
    double swatch = f * 2.4, gap = f * 1.6, line = f * 1.5;
    int rows = chart_legend_layout(widths, n, swatch, gap, line, width, xs, ys);
    for (int i = 0; draw && i < n; i++)
        legend_item(cr, x + xs[i], y + ys[i] + line * 0.5, swatch, gap, font_px,
                    &items[i]);
    cairo_restore(cr);
    return rows * line;
}

/* ---- Cell grids ---------------------------------------------------------- */

chart_rect chart_cell_rect(chart_rect r, int nx, int ny, int i, int j)
{
    double w = r.w / (nx > 0 ? nx : 1), h = r.h / (ny > 0 ? ny : 1);
    return (chart_rect){r.x + i * w, r.y + r.h - (j + 1) * h, w, h};
}

/* Viridis at 0, 0.1, ... 1 (matplotlib's _viridis_data sampled, as R's
 * viridisLite gives it); between them linear in sRGB, which keeps the
 * lightness rising and is within a few units of the full 256-entry
 * table. */
chart_style chart_viridis(double t)
{
    static const unsigned char v[11][3] = {
        {68, 1, 84},    {72, 37, 118},  {65, 68, 135},  {53, 95, 141},
        {42, 120, 142}, {33, 145, 140}, {34, 168, 132}, {66, 190, 113},
        {122, 209, 81}, {187, 223, 39}, {253, 231, 37}};
    if (!(t > 0))
        t = 0;
    if (t > 1)
        t = 1;
    int k = (int)(t * 10);
    if (k > 9)
        k = 9;
    double u = t * 10 - k;
    chart_style c = {0, 0, 0, 1.0, 1.0, 0};
    c.r = ((1 - u) * v[k][0] + u * v[k + 1][0]) / 255.0;
    c.g = ((1 - u) * v[k][1] + u * v[k + 1][1]) / 255.0;
    c.b = ((1 - u) * v[k][2] + u * v[k + 1][2]) / 255.0;
    return c;
}

/* Line x + y = c cut to r: from where it leaves the bottom or left edge
 * to where it meets the right or top edge. */
static bool hatch_segment(chart_rect r, double c, double *seg)
{
    double xa = fmax(r.x, c - (r.y + r.h)), xb = fmin(r.x + r.w, c - r.y);
    if (!(xb > xa))
        return false;
    seg[0] = xa;
    seg[1] = c - xa;
    seg[2] = xb;
    seg[3] = c - xb;
    return true;
}

int chart_hatch_lines(chart_rect r, double gap, double *xy, int max)
{
    if (!(gap > 0) || !(r.w > 0) || !(r.h > 0))
        return 0;
    double k0 = ceil((r.x + r.y) / gap);
    double k1 = floor((r.x + r.w + r.y + r.h) / gap);
    int n = 0;
    for (double k = k0; k <= k1; k++) {
        double seg[4];
        if (!hatch_segment(r, k * gap, seg))
            continue;
        if (n < max)
            memcpy(xy + 4 * n, seg, sizeof seg);
        n++;
    }
    return n;
}

void chart_hatch(cairo_t *cr, chart_rect r, double gap, const chart_style *st)
{
    if (!(gap > 0) || !(r.w > 0) || !(r.h > 0))
        return;
    cairo_save(cr);
    cairo_rectangle(cr, r.x, r.y, r.w, r.h);
    cairo_clip(cr);
    cairo_set_source_rgba(cr, st->r, st->g, st->b, st->a);
    cairo_set_line_width(cr, st->width);
    double k1 = floor((r.x + r.w + r.y + r.h) / gap);
    for (double k = ceil((r.x + r.y) / gap); k <= k1; k++) {
        double seg[4];
        if (!hatch_segment(r, k * gap, seg))
            continue;
        cairo_move_to(cr, seg[0], seg[1]);
        cairo_line_to(cr, seg[2], seg[3]);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

/* ---- The field of clients -------------------------------------------------------- */

/* The counting below reads 8 states at once.  A field's states are
 * mostly one value (idle), and counting byte by byte into count[state]
 * makes each increment wait for the last one to the same counter: at a
 * million clients per run that walk was most of a frame.  Here a word
 * of 8 idle states is skipped with one test, and any other word adds,
 * for each state s > 0, a 1 in each byte lane equal to s (lane sums
 * added up every 255 words, before a lane can overflow). */
#define ONES 0x0101010101010101ull

/* 1 in each byte of w that is zero, else 0. */
static uint64_t zero_lanes(uint64_t w)
{
    uint64_t hi = (((w & 0x7f7f7f7f7f7f7f7full) + 0x7f7f7f7f7f7f7f7full) | w) &
                  0x8080808080808080ull;
    return (~hi >> 7) & ONES;
}

static uint32_t lane_sum(uint64_t lanes)
{
    uint32_t n = 0;
    for (int i = 0; i < 8; i++)
        n += (uint32_t)((lanes >> (8 * i)) & 255u);
    return n;
}

/* Adds the lane sums to count[1 ...] and returns how many they were. */
static uint32_t flush_lanes(uint64_t *lanes, int n_states, uint32_t *count)
{
    uint32_t all = 0;
    for (int s = 1; s < n_states; s++) {
        uint32_t n = lane_sum(lanes[s]);
        count[s] += n;
        all += n;
        lanes[s] = 0;
    }
    return all;
}

void chart_count_states(const uint8_t *states, uint32_t from, uint32_t to,
                        int n_states, uint32_t *count)
{
    if (n_states > 32)
        n_states = 32;
    if (n_states < 1)
        return;
    memset(count, 0, (size_t)n_states * sizeof *count);
    uint32_t i = from;
    for (; i < to && ((uintptr_t)(states + i) & 7u); i++) /* head */
        count[states[i] < n_states ? states[i] : 0]++;
    uint32_t words_from = i, not_idle = 0;
    uint64_t lanes[32] = {0};
    int pending = 0;
    for (; to >= 8 && i <= to - 8; i += 8) {
        uint64_t w;
        memcpy(&w, states + i, sizeof w);
        if (w == 0)
            continue;
        for (int s = 1; s < n_states; s++)
            lanes[s] += zero_lanes(w ^ (ONES * (uint64_t)s));
        if (++pending == 255) {
            not_idle += flush_lanes(lanes, n_states, count);
            pending = 0;
        }
    }
    not_idle += flush_lanes(lanes, n_states, count);
    /* Idle, and any state past n_states (counted as idle): the rest. */
    count[0] += (i - words_from) - not_idle;
    for (; i < to; i++) /* tail */
        count[states[i] < n_states ? states[i] : 0]++;
}

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

/* How many of a cell's h pixels each state gets: count[s] of total
 * items, by largest remainder, so they add up to h exactly; then a state
 * with any item at all gets a pixel, taken from the largest share: at a
 * million clients 3 failed among 550 idle are 0.3 of a 49-pixel cell,
 * and a field of idle grey would hide them (the legend gives the
 * shares). */
static void band_heights(const uint32_t *count, int n, uint32_t total, int h,
                         int *out)
{
    double rem[32];
    int used = 0;
    for (int s = 0; s < n; s++) {
        double exact = total ? (double)count[s] * h / total : 0;
        out[s] = (int)floor(exact);
        rem[s] = exact - out[s];
        used += out[s];
    }
    for (; used < h && total; used++) {
        int best = 0;
        for (int s = 1; s < n; s++)
            if (rem[s] > rem[best])
                best = s;
        out[best]++;
        rem[best] = -1;
    }
    for (int s = 0; s < n; s++) {
        if (count[s] == 0 || out[s] > 0)
            continue;
        int tall = 0;
        for (int k = 1; k < n; k++)
            if (out[k] > out[tall])
                tall = k;
        if (out[tall] > 1) {
            out[tall]--;
            out[s] = 1;
        }
    }
}

/* The pixels of a w x h cell in the order states fill them: the foot
 * row first, left to right, then the row above.  A state with a few
 * pixels is a short run at the foot, one with many fills rows: a cell
 * reads as a small stacked bar.  (An ordered dither, spreading each
 * state's pixels over the cell, read as grey noise at nine clients a
 * cell.) */
#define DITHER_MAX 64
typedef struct fill_order {
    int w, h;
    uint16_t at[DITHER_MAX * DITHER_MAX]; /* y * w + x */
} fill_order;

static void fill_order_make(fill_order *o, int w, int h)
{
    o->w = w;
    o->h = h;
    int n = 0;
    for (int y = h - 1; y >= 0; y--)
        for (int x = 0; x < w; x++)
            o->at[n++] = (uint16_t)(y * w + x);
}

/* One cell's pixels: each state's number of them (largest remainder, a
 * pixel at least for a state with any item), then the states in fill
 * order, the weightiest first (at the foot). */
static void cell_pixels(const uint32_t *count, int n_states, uint32_t total,
                        const fill_order *o, uint8_t *out)
{
    int n = o->w * o->h, px[32];
    band_heights(count, n_states, total, n, px);
    int k = 0;
    for (int s = n_states - 1; s >= 0; s--)
        for (int j = 0; j < px[s] && k < n; j++)
            out[o->at[k++]] = (uint8_t)s;
    while (k < n)
        out[o->at[k++]] = 0;
}

void chart_field_draw_shares(cairo_t *cr, const chart_field *f,
                             const uint8_t *states, const chart_style *colours,
                             int n_states)
{
    if (f->cells == 0 || n_states < 1)
        return;
    if (n_states > 32)
        n_states = 32;
    cairo_save(cr);
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    double gap = f->cell >= 4 ? 1.0 : 0.0;
    boxes bx;
    boxes_begin(&bx, cr);
    uint32_t pixel[32];
    for (int s = 0; s < n_states; s++)
        pixel[s] = pixel_of(&colours[s]);
    bool direct = bx.direct;
    for (int s = 0; s < n_states; s++)
        direct = direct && colours[s].a >= 1.0;
    /* The cell sizes rounding gives (zeroed: 32 kB, ~2 us a field, and
     * cppcheck cannot see that only order[0..n_order) is read). */
    fill_order order[4] = {{0}};
    int n_order = 0;
    uint8_t map[DITHER_MAX * DITHER_MAX];
    for (uint32_t i = 0; i < f->cells; i++) {
        uint32_t count[32];
        uint64_t from = (uint64_t)i * f->per_cell, to = from + f->per_cell;
        if (to > f->items)
            to = f->items;
        chart_count_states(states, (uint32_t)from, (uint32_t)to, n_states,
                           count);
        double x0 = round(f->area.x + (i % f->cols) * f->cell);
        double y0 = round(f->area.y + (i / f->cols) * f->cell);
        int w =
            (int)(round(f->area.x + (i % f->cols + 1) * f->cell) - gap - x0);
        int h =
            (int)(round(f->area.y + (i / f->cols + 1) * f->cell) - gap - y0);
        w = w < 1 ? 1 : w > DITHER_MAX ? DITHER_MAX : w;
        h = h < 1 ? 1 : h > DITHER_MAX ? DITHER_MAX : h;
        int o = 0;
        while (o < n_order && (order[o].w != w || order[o].h != h))
            o++;
        if (o == n_order) {
            o = n_order < 4 ? n_order++ : 3;
            fill_order_make(&order[o], w, h);
        }
        cell_pixels(count, n_states, (uint32_t)(to - from), &order[o], map);
        /* Runs of one state along each row: as pixels, or (vector
         * output, a scaled surface) one path per state and cell. */
        for (int s = direct ? -1 : 0; s < (direct ? 0 : n_states); s++) {
            bool any = false;
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w;) {
                    uint8_t st = map[y * w + x];
                    int e = x + 1;
                    while (e < w && map[y * w + e] == st)
                        e++;
                    if (direct || st == s) {
                        if (direct)
                            bx.pixel = pixel[st];
                        else if (!any)
                            boxes_colour(&bx, &colours[s]);
                        any = true;
                        boxes_add(&bx, x0 + x, y0 + y, e - x, 1);
                    }
                    x = e;
                }
            if (any && !direct)
                boxes_fill(&bx);
        }
    }
    boxes_end(&bx);
    cairo_restore(cr);
}
