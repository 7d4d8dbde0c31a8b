/*
 * compare_charts.h -- the comparison report's chart pages: the runs over
 * time, each metric as bars, the latency distribution, a one-key sweep's
 * lines and a two-key sweep's stability maps.  compare_report.c lays out
 * the document (title page, tables, verdicts) and calls these in order.
 *
 * Each page function adds headings, text and charts to an open document
 * (viz/report.h); a chart that cannot be drawn (out of memory) fails
 * the document (report_fail): report_close then writes nothing, rather
 * than a report with a chart silently missing.  Nothing here computes a statistic; the
 * figures come from reports/compare.h.
 */
#ifndef SB_COMPARE_CHARTS_H
#define SB_COMPARE_CHARTS_H

#include <stdint.h>

#include "compare.h"
#include "report.h"

/* The bands of every policy at the only point, read from the saved runs
 * before the document opens (a missing file is then an error that leaves
 * no half-written report).  lo holds all three arrays; free(b->lo). */
typedef struct compare_bands {
    compare_series *lo, *mid, *hi;
} compare_bands;

/* Reads every policy's 10 %, median and 90 % series; on failure b->lo may
 * still need freeing. */
int compare_bands_load(compare_bands *b, const compare_result *r,
                       const char *const *dirs, int n_dirs, sb_err *e);

/* The chart colour (a chart_palette index) of policy i in every chart of
 * the report: one policy, one colour. */
int compare_charts_colour(int policy);

/* "Over time": load, goodput, queue, p99 and duplicates, median and band
 * per policy, faults shaded. */
void compare_charts_time(report *d, const compare_result *r,
                         const compare_bands *b);
/* Each metric as bars with its 95 % interval, at point pt. */
void compare_charts_bars(report *d, const compare_result *r, uint32_t pt);
/* A service chain (r->n_tiers > 0): attempts per request the clients
 * offered at each tier, per policy, with 95 % intervals, at point pt --
 * during the faults when the runs have that phase, else over the run. */
void compare_charts_tiers(report *d, const compare_result *r, uint32_t pt);
/* The latency distribution of successes, at point pt. */
void compare_charts_latency(report *d, const compare_result *r, uint32_t pt);
/* A one-key sweep: every metric against the swept value. */
void compare_charts_sweep(report *d, const compare_result *r);
/* A two-key sweep: a stability map per policy, with the map in words. */
void compare_charts_maps(report *d, const compare_result *r);
/* compare --risk (r->risk set): P(storm) per policy as a table and bars
 * with its interval, and the verdict; on a two-key sweep a map per
 * policy coloured by P(storm) (compare_risk_report.c). */
void compare_charts_risk(report *d, const compare_result *r);

#endif
