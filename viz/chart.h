/*
 * chart.h -- time-series charts drawn with cairo onto any surface: an
 * image for the live window and PNG frames, PDF and SVG for the reports.
 *
 * The geometry (nice ticks, scales, the scrolling time window, legend
 * layout, the client field's grouping) is plain arithmetic with no cairo
 * in it, so it is unit-tested on its own; the drawing functions take a
 * cairo context the caller owns and leave its state as they found it
 * (cairo_save/restore around each).  Nothing here allocates per call or
 * keeps a pointer to what it is given.
 *
 * Units: positions are in device units of the surface (pixels for an
 * image, points for PDF/SVG); `font_px` sets the text size and everything
 * scales from it, so HiDPI is one factor.
 *
 * Colours come from the Okabe-Ito palette (Okabe and Ito, "Color
 * Universal Design", 2002): distinguishable under the common forms of
 * colour blindness, and a series is also told apart by its dash.
 */
#ifndef SB_CHART_H
#define SB_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cairo.h>

/* ---- Geometry ------------------------------------------------------------ */

typedef struct chart_rect {
    double x, y, w, h;
} chart_rect;

/* Tick marks: values first, first + step, ... (count of them) inside the
 * range they were made for. */
typedef struct chart_ticks {
    double first, step;
    int count;
    int decimals; /* digits after the point that tell the ticks apart */
} chart_ticks;

/* A "nice" number near x: 1, 2 or 5 times a power of ten (round: the
 * nearest; else the smallest not below x).  Heckbert, "Nice numbers for
 * graph labels", Graphics Gems (1990). */
double chart_nice_number(double x, bool round);

/* Ticks for [lo, hi] with at most max_ticks intervals (at least 2): the
 * step is the smallest nice number not below (hi - lo) / max_ticks, the
 * ticks are its multiples that fall inside [lo, hi] (tight labelling: the
 * axis keeps the data's range). */
void chart_ticks_for(double lo, double hi, int max_ticks, chart_ticks *out);

/* The upper end of a value axis that starts at 0 and must show `max`:
 * max rounded up to a multiple of a nice step, and at least `floor` (so
 * an idle series does not make a flat line fill the panel). */
double chart_axis_top(double max, double floor);

/* A map from values [lo, hi] to device positions [p0, p1] (p1 < p0 for
 * a y axis that grows upwards): linear, or linear in log10(v) when `log`
 * (then 0 < lo < hi, and a value that is not positive maps to NaN). */
typedef struct chart_scale {
    double lo, hi, p0, p1;
    bool log;
    bool symlog; /* linear in sign(v) log10(1 + |v|): 0 stays 0 and a
                    value of 1 or more is as on a log axis (a queue of
                    0 to 120k); ticks 0, 1, 10, 100 ... */
} chart_scale;

double chart_scale_map(const chart_scale *s, double v);
double chart_scale_unmap(const chart_scale *s, double p);

/* The time range a scrolling panel shows at time now: [0, span] until
 * now passes span, then [now - span, now]. */
void chart_time_window(double now, double span, double *lo, double *hi);

/* The ends of a log axis that shows [lo, hi] (0 < lo <= hi): lo rounded
 * down and hi rounded up to a 1-2-5 number (1, 2 or 5 times a power of
 * ten).  Non-positive or non-finite input gives [1, 10]. */
void chart_log_range(double *lo, double *hi);

/* Ticks of a log axis over [lo, hi] (0 < lo < hi) with at most max_ticks
 * intervals, coarsening until they fit: every 1-2-5 number in the range,
 * else every power of ten, else every 2nd, 5th, 10th ... power of ten
 * (Cleveland's decade labelling).  Writes at most n values to out in
 * increasing order and returns how many it wrote. */
int chart_log_ticks(double lo, double hi, int max_ticks, double *out, int n);

/* "120", "2.5", "1.2k", "3.4M": v with `decimals` digits, or with an SI
 * suffix when it is 10 000 or more. */
const char *chart_format(double v, int decimals, char *buf, size_t len);

/* ---- Styles --------------------------------------------------------------- */

typedef struct chart_style {
    double r, g, b, a;
    double width; /* line width, in units of font_px / 12 */
    int dash;     /* 0 solid, 1 dashed, 2 dotted */
} chart_style;

/* The Okabe-Ito palette: orange, sky blue, bluish green, grey, blue,
 * vermillion, reddish purple, black -- with a grey where Okabe and Ito
 * have yellow, which as a line on white is all but invisible (contrast
 * 1.3:1; the grey's is 4.5:1). */
#define CHART_PALETTE_SIZE 8
extern const chart_style chart_palette[CHART_PALETTE_SIZE];
/* Fault shading and grid/ink colours. */
extern const chart_style chart_ink, chart_grid, chart_fault;

/* ---- Panels ---------------------------------------------------------------- */

/* One chart: an outer rectangle with a title line, a plot area inside it
 * with room for the tick labels, a time axis and a value axis.  The
 * strings are borrowed: valid while the panel is drawn. */
typedef struct chart_panel {
    chart_rect outer, plot;
    const char *title;
    const char *unit;     /* of the value axis, after the title: "ms" */
    const char *x_suffix; /* after the last x tick label: the GUI's " s" */
    const char *x_label;  /* centred under the x tick labels, or NULL */
    const char *y_label;  /* along the y axis, turned, or NULL */
    double font_px;
    chart_scale x, y;
    chart_ticks xt, yt; /* xt.count 0: no x ticks (a bar chart's) */
} chart_panel;

/* Lay a panel out in `outer` showing times [t_lo, t_hi] (seconds) and
 * values [y_lo, y_hi]. */
void chart_panel_init(chart_panel *p, chart_rect outer, const char *title,
                      const char *unit, double t_lo, double t_hi, double y_lo,
                      double y_hi, double font_px);

/* What a report's panel has that the GUI's does not: axis labels, and a
 * log x axis (its ticks from chart_log_ticks). */
typedef struct chart_axes {
    const char *x_label, *y_label; /* borrowed, as the panel's title */
    bool x_log;                    /* then 0 < x_lo < x_hi */
    bool y_log;                    /* then 0 < y_lo < y_hi; its ticks from
                                      chart_log_ticks too */
    bool y_symlog;                 /* a symlog y axis (chart_scale) */
} chart_axes;

/* Lay a panel out as chart_panel_init does, with room for the axis
 * labels and no unit on the title line or after the last tick. */
void chart_panel_init_axes(chart_panel *p, chart_rect outer, const char *title,
                           const chart_axes *ax, double x_lo, double x_hi,
                           double y_lo, double y_hi, double font_px);

/* Is the device point (px, py) inside the plot area? */
bool chart_panel_hit(const chart_panel *p, double px, double py);

/* Background, grid, axes, tick labels and title. */
void chart_panel_frame(cairo_t *cr, const chart_panel *p);
/* n points (t[i * stride], v[i * stride]); stride 0 means 1, so plain
 * arrays and a column of a row-major table both draw without a copy. */
typedef struct chart_data {
    const double *t, *v;
    size_t n, stride;
} chart_data;

/* A line through the points; a NaN value (or, on a log x axis, an x
 * that is not positive) breaks it.  Drawn against the
 * value scale y (NULL: the panel's own) and clipped to the plot area. */
void chart_panel_series(cairo_t *cr, const chart_panel *p, const chart_scale *y,
                        const chart_data *d, const chart_style *st);
/* A second value axis, [lo, hi] in `unit`, on the right edge of the plot
 * area: its ticks, labels and unit; returns its scale for series drawn
 * against it. */
chart_scale chart_panel_right_axis(cairo_t *cr, const chart_panel *p, double lo,
                                   double hi, const char *unit);
/* A filled band between lo[i] and hi[i] at x t[i] (a 10-90 % range), in
 * st's colour at a quarter of its opacity; a point with a NaN (or, on a
 * log x axis, a non-positive x) breaks it. */
void chart_panel_band(cairo_t *cr, const chart_panel *p, const double *t,
                      const double *lo, const double *hi, size_t n,
                      const chart_style *st);
/* A dot at each point (a sweep's measured values), clipped to the plot. */
void chart_panel_points(cairo_t *cr, const chart_panel *p, const chart_data *d,
                        const chart_style *st);

/* ---- Bars ---------------------------------------------------------------- */

/* Bar i of n side by side across the plot area: each has a slot of
 * plot.w / n, the bar `share` of it, centred; it spans from the value 0
 * (or the axis end nearest 0) to v.  A v outside the axis is cut to it. */
chart_rect chart_bar_rect(const chart_panel *p, int n, int i, double share,
                          double v);
/* Bar i of n at value v (NaN: none) in st's colour, outlined, with a
 * whisker from lo to hi (NaN: none) capped at both ends. */
void chart_panel_bar(cairo_t *cr, const chart_panel *p, int n, int i, double v,
                     double lo, double hi, const chart_style *st);
/* A horizontal reference line at value v (capacity, the client timeout),
 * labelled at its right end. */
void chart_panel_hline(cairo_t *cr, const chart_panel *p, double v,
                       const char *label, const chart_style *st);
/* Shade [t0, t1] (a fault), with a label at the top. */
void chart_panel_window(cairo_t *cr, const chart_panel *p, double t0, double t1,
                        const char *label);
/* A vertical marker at t (a live change), labelled. */
void chart_panel_marker(cairo_t *cr, const chart_panel *p, double t,
                        const char *label);

/* ---- Legends ----------------------------------------------------------------- */

typedef struct chart_legend_item {
    const char *label;
    const chart_style *style;
    bool band;   /* the swatch shows a band behind the line */
    bool points; /* and a dot on it */
} chart_legend_item;

/* Flow n items of the given text widths into rows of at most `width`:
 * each item is a swatch, a gap and its label; items are `gap` apart.
 * Writes each item's offset from the legend's top-left into xs, ys and
 * returns the number of rows. */
int chart_legend_layout(const double *widths, int n, double swatch, double gap,
                        double line, double width, double *xs, double *ys);
/* Draw a legend along the top of the plot area. */
void chart_legend(cairo_t *cr, const chart_panel *p,
                  const chart_legend_item *items, int n);
/* A legend in rows of `width` from (x, y) at text size font_px * 0.8
 * (a report puts it under its chart): returns its height, and draws it
 * only when `draw` (so a chart can make room for it first). */
double chart_legend_rows(cairo_t *cr, double x, double y, double width,
                         double font_px, const chart_legend_item *items, int n,
                         bool draw);

/* ---- Cell grids (stability maps) ----------------------------------------- */

/* Cell (i, j) of an nx x ny grid that fills r: i counts from the left, j
 * from the bottom (so j grows with the y axis). */
chart_rect chart_cell_rect(chart_rect r, int nx, int ny, int i, int j);

/* A sequential colour scale: viridis (van der Walt and Smith, for
 * matplotlib, 2015), dark purple at 0 to yellow at 1, lightness rising
 * evenly, so it reads under the common colour blindnesses and in grey.
 * t is clamped to [0, 1]; NaN gives 0. */
chart_style chart_viridis(double t);

/* Hatching of r: lines rising at 45 degrees, x + y = k * gap for whole k
 * (a lattice fixed to the surface, so neighbouring cells' lines meet),
 * cut to r.  Writes up to max segments (x0, y0, x1, y1: the lower left
 * end first) to xy, 4 doubles each, and returns how many there are. */
int chart_hatch_lines(chart_rect r, double gap, double *xy, int max);
/* Draw that hatching in st. */
void chart_hatch(cairo_t *cr, chart_rect r, double gap, const chart_style *st);

/* ---- The field of clients ------------------------------------------------------ */

/* n items (clients or processes) in a grid of square cells inside
 * `area`; when they do not fit at min_cell, several items share a cell
 * (per_cell of them, consecutive). */
typedef struct chart_field {
    chart_rect area;
    uint32_t items, per_cell, cells, cols, rows;
    double cell; /* side of a cell, gap included */
} chart_field;

void chart_field_layout(chart_field *f, chart_rect area, uint32_t items,
                        double min_cell);
/* count[s] = how many of states[from .. to) are s, for s < n_states
 * (at most 32); a state past n_states counts as state 0. */
void chart_count_states(const uint8_t *states, uint32_t from, uint32_t to,
                        int n_states, uint32_t *count);
/* The state a cell shows: the most common of its items' states; a tie
 * goes to the higher state number (states are numbered by how much they
 * matter: a breaker's refusal over an idle client). */
uint8_t chart_field_cell_state(const chart_field *f, const uint8_t *states,
                               uint32_t cell, int n_states);
/* Draw every cell in the colour of its state. */
void chart_field_draw(cairo_t *cr, const chart_field *f, const uint8_t *states,
                      const chart_style *colours, int n_states);
/* Draw every cell as the shares of its items' states: each state gets
 * as many of the cell's pixels as its share (rounded by largest
 * remainder, so they fill the cell; a state with any item at all gets a
 * pixel at least), filled from the foot row up, left to right, the
 * highest state first: a small stacked bar per cell.  Where a cell holds
 * hundreds of clients, the mode alone would paint the field in the
 * commonest state (idle) and hide a third that are waiting.  (Whole
 * rows, one band per state, gave a state with 3 clients of 875 a row of
 * seven, and those rows lined up from cell to cell into stripes across
 * the field.) */
void chart_field_draw_shares(cairo_t *cr, const chart_field *f,
                             const uint8_t *states, const chart_style *colours,
                             int n_states);

/* ---- Text ------------------------------------------------------------------------ */

/* Select the chart font (sans-serif through fontconfig) at `px`. */
void chart_font(cairo_t *cr, double px, bool bold);
/* Width of text in the current font. */
double chart_text_width(cairo_t *cr, const char *text);
/* Text with its left (align 0), centre (0.5) or right (1) at x and its
 * baseline at y. */
void chart_text(cairo_t *cr, double x, double y, double align,
                const char *text);

/* One line of wrapped text: bytes [start, start + len) of it, then an
 * ellipsis when `cut`. */
typedef struct chart_line {
    size_t start, len;
    bool cut;
} chart_line;
/* Break UTF-8 text into lines no wider than `width` in the current font:
 * at spaces, and always at a newline.  A word wider than a line breaks
 * after the last of : + / , = _ - that fits, or else is cut to fit with
 * an ellipsis (the rest of it dropped); the last line is cut so too when
 * the text needs more than max lines.  Writes at most max
 * lines (max >= 1) and returns how many; "" is one empty line. */
int chart_wrap(cairo_t *cr, const char *text, double width, chart_line *lines,
               int max);
/* Draw line l of text (from chart_wrap) as chart_text does. */
void chart_text_line(cairo_t *cr, double x, double y, double align,
                     const char *text, const chart_line *l);

#endif
