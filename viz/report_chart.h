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

#endif
