/*
 * report_chart.h -- the charts of a report (report.h), drawn with chart.h
 * onto any cairo surface: the same code draws a chart into a PDF page and
 * into the SVG the HTML inlines, so both show the same picture.  Private
 * to report.c.
 *
 * A chart is `width` wide (the page's text width) and as high as
 * report_chart_height says; it is drawn with its top left corner at the
 * origin of the caller's user space (translate first).  Text is measured
 * on the context given, in the chart font (chart_font), so the height is
 * the same on any vector surface.  Nothing is kept: the caller's arrays
 * need only live through the call.
 */
#ifndef SB_REPORT_CHART_H
#define SB_REPORT_CHART_H

#include <cairo.h>
#include <stdio.h>

#include "chart.h"
#include "report.h"

/* The size of chart text in points: tick labels are 0.85 of it. */
#define REPORT_CHART_FONT 9.5

typedef enum report_chart_kind {
    REPORT_CHART_LINES,
    REPORT_CHART_BARS,
    REPORT_CHART_MAP
} report_chart_kind;

/* One chart of any kind; borrowed pointers, valid during the call. */
typedef struct report_chart {
    report_chart_kind kind;
    const report_lines *lines;
    const report_bars *bars;
    const report_map *map;
} report_chart;

/* The chart's title, for the HTML's figure label ("" when none). */
const char *report_chart_title(const report_chart *c);
/* Its height at `width`, in the same units. */
double report_chart_height(cairo_t *cr, const report_chart *c, double width);
/* Draw it in [0, width] x [0, height]. */
void report_chart_draw(cairo_t *cr, const report_chart *c, double width,
                       double height);

/* The layout of a bar chart's small multiples (report_bars.panels) at
 * `width`: a title line 1.9 em high, then rows of `cols` panels, each
 * row 1.9 em (the panel's title) + the plot + 1.6 em high, the plot
 * round(0.13 width) high like a single bar chart's.  Every plot has the
 * same width: the width less the first column's y label (1.3 em) and
 * each panel's tick labels (4.2 em) and right margin (1.6 em), shared
 * by the columns.  The legend goes under the last row. */
typedef struct report_grid {
    int cols, rows;
    double row_h;                        /* one row of panels */
    chart_rect outer[REPORT_PANELS_MAX]; /* panel k's, row by row */
    chart_rect plot[REPORT_PANELS_MAX];  /* its plot area */
} report_grid;
/* panels is cut to [1, REPORT_PANELS_MAX]. */
void report_grid_layout(int panels, double width, report_grid *g);

/* Where a bar chart drawn at width x height prints its figures
 * (report_bars.figures), bar by bar, panel by panel: the text, whole;
 * its box (its advance by the font's height, turned when upright); the
 * slot of its bar (the plot's width over the bars, the plot's height);
 * the size and whether upright.  Writes at most max and returns how many
 * there are (bars without a figure have none).  The drawing uses the
 * same places: a test reads from here that no figure leaves its slot. */
typedef struct report_figure {
    chart_rect box, slot;
    double size;
    bool upright;
    const char *text; /* the caller's string */
} report_figure;
int report_bars_figures(cairo_t *cr, const report_chart *c, double width,
                        double height, report_figure *out, int max);

/* ---- The HTML's interactive charts --------------------------------------
 * A line chart is written to the HTML as its frame (axes, grid, title,
 * spans) under an overlay on which the script draws the series from
 * the chart's data (report_lines_json), so it can hide a series (a
 * legend entry clicked) and redraw a zoomed range.  The legend is HTML
 * there.  Series k alone (a layer k >= 0) is still drawable. */

#define REPORT_LAYER_ALL (-1)   /* everything, legend included (the PDF) */
#define REPORT_LAYER_FRAME (-2) /* the frame alone */

/* The height of a chart's layers at `width`: a line chart's without its
 * legend; any other chart's whole height. */
double report_chart_layers_height(cairo_t *cr, const report_chart *c,
                                  double width);
/* Draw layer `layer` of it: REPORT_LAYER_ALL, REPORT_LAYER_FRAME or
 * series k (k >= 0: its band, line, points and never marks).  A chart
 * other than a line chart has only REPORT_LAYER_ALL and FRAME, both the
 * whole picture. */
void report_chart_draw_layer(cairo_t *cr, const report_chart *c, double width,
                             double height, int layer);
/* A line chart's data and geometry at `width` x `height` (its layers'
 * size) as one JSON object for the script: "plot" [x, y, w, h], "x" and
 * "y" [lo, hi] (the axes), "xlog", "ylog", "xunit", "yunit" (from the
 * axis labels; xunit "" when the x label has none in parentheses),
 * "xname" (the x label), "never", "spans" [[from, to, label]], "series" [{label,
 * colour "#rrggbb", dash, points, x, y, lo, hi}]; NaN is null, +infinity
 * "inf".  A series' x that repeats an earlier series' is that series'
 * number instead of an array.  Text is escaped for a <script> element. */
void report_lines_json(FILE *f, cairo_t *cr, const report_lines *c,
                       double width, double height);

/* The plot area of a line chart's layers at width x height; its
 * series k's colour as "#rrggbb"; its legend label (with "(same as
 * ...)"); the legend's words for the never marks, or NULL when it has
 * none. */
chart_rect report_lines_plot(const report_lines *c, double width,
                             double height);
void report_lines_colour(const report_lines *c, int k, char out[8]);
const char *report_lines_label(const report_lines *c, int k, char *buf,
                               size_t len);
const char *report_lines_never_label(const report_lines *c, char *buf,
                                     size_t len);

/* A region of a bar chart (a bar's slot) or a map (a cell) and what a
 * pointer over it is told: "exponential: 12.5 s [10.1, 15.2]; ...". */
typedef struct report_region {
    chart_rect r;
    char text[400];
} report_region;
/* Writes at most max regions of a bar chart or map drawn at width x
 * height and returns how many it wrote (0 for a line chart). */
int report_chart_regions(cairo_t *cr, const report_chart *c, double width,
                         double height, report_region *out, int max);

#endif
