/*
 * compare_report.h -- the comparison's report as documents: the results
 * of reports/compare.h laid out with viz/report.h and written as a PDF
 * and a self-contained HTML file.
 *
 * reports/ sits above viz/ (DESIGN.md "Layout"): a report is drawn with
 * viz's charts; the window never needs reports/.  In a build without
 * cairo there is no viz/, and compare_report_none.c answers with an error
 * that says how to get the tables alone.
 */
#ifndef SB_COMPARE_REPORT_H
#define SB_COMPARE_REPORT_H

#include "err.h"

struct compare_result;

/* The comparison's report as a PDF and a self-contained HTML file (either
 * path may be NULL), each written whole or not at all.  dirs: where the
 * runs are saved (the time-series pages read their series back);
 * borrowed, valid during the call. */
int compare_report_write(const struct compare_result *r,
                         const char *const *dirs, int n_dirs, const char *pdf,
                         const char *html, sb_err *e);

#endif
