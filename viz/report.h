/*
 * report.h -- a document of headings, paragraphs, tables and charts,
 * written at once as a PDF (A4 landscape pages, drawn with cairo) and as
 * one self-contained HTML file (tables as HTML tables, each chart as
 * inline SVG drawn by cairo's SVG surface, made interactive by one
 * inline script, viz/report.js: hover for values with their units, a
 * legend entry hides its series, a drag zooms a line chart on an x range;
 * no stylesheet, script, font or image fetched from anywhere: it reads
 * the same offline).  The script draws the line charts' lines from
 * their data, which the page carries once; without it a line chart
 * shows its frame and legend and a note that the PDF has the lines,
 * and bar charts and maps are whole.
 * The script's test hook: with #sb-test in the URL it counts the lines
 * it drew, hovers every chart, clicks each line chart's first legend
 * entry, zooms on the middle half of its x range and writes what it saw
 * as JSON into <pre id="sb-test"> (tests/check_report_html.c reads it).
 *
 * The comparison report is built from this by reports/compare_report.c
 * and compare_charts.c, which map reports/compare.h's results onto it;
 * nothing here knows about policies or seeds.  Charts use chart.h's geometry,
 * palette and text, so a report looks like the GUI.
 *
 * Both files are written to temporary names beside their targets and
 * renamed by report_close when everything succeeded: whole or not at all.
 * Each block is drawn into both outputs as it is added, so the caller's
 * strings and arrays need only live through the call.  Errors are kept
 * (the first one) and reported by report_close; the adding functions
 * cannot fail, and after an error they do nothing.
 *
 * PDF layout, in points (A4 landscape, 841.89 x 595.28): text is 757.89
 * wide between 42 pt margins and runs from y = 36 to 549.28; below that
 * sits the footer (the document's title, "page N").  Blocks flow down
 * the page, 6 pt apart (8 above a table, 10 above a chart, none after a
 * heading), and:
 * - a block that does not fit on what is left of a page starts the next
 *   one; a table or paragraph longer than a whole page instead starts
 *   where it is and breaks between rows (the table's header repeated on
 *   each page) or lines;
 * - a heading is kept on the page of the block after it; a level-1
 *   heading opens a new page unless the page is empty;
 * - text: headings 17 pt (level 1, 30 pt with its space) and 12.5 pt
 *   (level 2, 20 pt, 12 above it), paragraphs 10 pt on 14 pt lines,
 *   captions 8.5 pt;
 * - table cells are 9 pt, a row 17.3 pt high per line; columns take
 *   their widest cell.  A table too wide for the page is set smaller,
 *   down to 7 pt; if it is still too wide, the widest columns are
 *   narrowed to a common width and their cells wrap (at spaces, or
 *   after : + / , = _ - inside a word too long for a line; at most 4
 *   lines; what still does not fit is cut with an ellipsis).  A
 *   no-break space (U+00A0) keeps words together: "0.91 [0.90,\u00a0
 *   0.92]" wraps before the bracket, not inside it;
 * - a chart is the text's width wide; a line chart 0.19 of it plus its
 *   labels high (191.5 pt; its legend under it adds 15.2 pt a row), a
 *   bar chart 0.13 (146.5 pt), a map 0.15 (161.2 pt): two line charts,
 *   three bar charts or two maps fit on a page.
 * The HTML has the same blocks in the same order, charts as the same
 * drawings at the same size (scaled down to a narrower window); a line
 * chart's legend is HTML buttons there.
 */
#ifndef SB_REPORT_H
#define SB_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

typedef struct report report;

/* Start a document.  pdf_path or html_path may be NULL (that output is
 * not made); they may not be the same path.  Missing directories are
 * created.  `title` is in every PDF page footer, the PDF's metadata and
 * the HTML <title>.  On failure *out is NULL, nothing is left behind and
 * e says which path and why. */
int report_open(report **out, const char *pdf_path, const char *html_path,
                const char *title, sb_err *e);

/* Level 1: a section (in the PDF, starts a new page unless the page is
 * empty); 2: a subsection (any other level counts as the nearer of the
 * two).  Both are entries of the PDF's outline, the viewer's sidebar. */
void report_heading(report *r, int level, const char *text);
/* A paragraph; wrapped to the page width; a newline breaks the line. */
void report_text(report *r, const char *text);
/* PDF: continue on a new page (nothing when the page is still empty).
 * HTML: nothing. */
void report_page_break(report *r);

typedef enum report_emph {
    REPORT_PLAIN = 0,
    REPORT_BEST, /* bold: the best value of its column */
    REPORT_MUTED /* grey: no value, or a difference that is not
                      significant */
} report_emph;

typedef struct report_table {
    const char *caption; /* under the table; may be NULL */
    int n_cols, n_rows;
    const char *const *header; /* n_cols */
    const char *const *cells;  /* n_rows x n_cols, row by row */
    const uint8_t *emph;       /* n_rows x n_cols report_emph, or NULL */
    const char *align;         /* n_cols of 'l' / 'r', or NULL: the
                                     first column left, the rest right */
} report_table;
void report_table_add(report *r, const report_table *t);

/* ---- Charts ----------------------------------------------------------------
 * Each chart is a block of the page's width and a given aspect; colours
 * are chart_palette indices, so policy i has the same colour in every
 * chart of a report. */

typedef struct report_series {
    const char *label;     /* in the legend */
    const double *x, *y;   /* n points; a NaN y breaks the line */
    const double *lo, *hi; /* a band around it (10-90 %, a 95 %
                                     interval), or NULL */
    size_t n;
    int colour;               /* chart_palette index */
    int dash;                 /* 0 solid, 1 dashed, 2 dotted */
    bool points;              /* mark each point (a sweep's values) */
    const char *const *notes; /* n strings or NULL; a non-NULL one
                                     marks a point that stands for only
                                     some of the seeds ("2 of 5 seeds
                                     never recovered"): a ring around
                                     it, the note in the HTML's hover */
} report_series;

/* A shaded x range with a label: a fault's window. */
typedef struct report_span {
    double from, to;
    const char *label;
} report_span;

typedef struct report_lines {
    const char *title;
    const char *x_label, *y_label; /* with units: "time (s)", "p99 (ms)" */
    const report_series *series;
    int n_series;
    const report_span *spans;
    int n_spans;
    bool x_log;          /* a log x axis (latency CDFs) */
    double y_min, y_max; /* NaN: 0 (or the data's minimum when it
                                     is negative) to a nice top above the
                                     data, bands included */
    bool y_log;          /* a log y axis, for values that span
                                     decades: from a 1-2-5 number below
                                     the smallest positive value */
    double y_cap;        /* the automatic top stops there (a
                                     share's 100 %); 0: no cap */
    const char *never;   /* a y of +infinity is a mark on the
                                     plot's top edge, the legend's last
                                     item says what ("never recovered");
                                     NULL: "never" */
    const char *partial; /* the legend's words for the ringed
                                     points of report_series.notes ("some
                                     seeds never recovered"); NULL: "only
                                     some seeds" */
} report_lines;
/* A series that draws the same line as one before it (the same points,
 * within a millionth of the axis) would hide under it: its legend entry
 * says "(same as NAME)". */
void report_lines_add(report *r, const report_lines *c);
/* How far an axis of c reaches, in the data's unit, for the unit a
 * caller labels it in (an axis to 40 000 ms reads in s): its y axis, or
 * with x_axis its x axis.  On a linear axis its top as report_lines_add
 * draws it (a nice number above every point and band, or y_max, or the
 * cap); on a log axis the largest value drawn, since its 1-2-5 end can
 * lie 2.5 times past the data (a latency distribution ending at 5.6 s
 * reads 2 to 10k ms, not 0.002 to 10 s). */
double report_lines_reach(const report_lines *c, bool x_axis);

/* One bar per item with an interval whisker and an optional note above
 * it ("2 of 5 seeds did not recover"). */
typedef struct report_bars {
    const char *title, *y_label;
    int n;
    const char *const *labels;     /* under each bar */
    const double *value, *lo, *hi; /* lo/hi NULL: no whiskers; NaN value:
                                     no bar, the note only; +infinity:
                                     never reached (a run that did not
                                     recover), drawn as a hatched bar to
                                     the axis top with its note inside:
                                     worse than any value, never mistaken
                                     for a short bar or none */
    const int *colour;
    const char *const *notes; /* n, entries may be NULL; or NULL */
    double y_cap;             /* the axis stops there (a share's 100);
                                     0: no cap */
    /* Small multiples: 0 or 1, one chart; k > 1 (at most
     * REPORT_PANELS_MAX), the n bars are k panels of n / k bars each,
     * panel j titled panel_titles[j], in rows of at most three (four
     * panels in two rows of two), on one shared value axis (its label
     * beside the first column).  Bar i of every panel is the same item
     * in the same colour, named once in a legend under the panels (by
     * labels[i]) instead of under each bar; the hover says "panel:
     * label: value". */
    int panels;
    const char *const *panel_titles;
    /* n figures printed above the bars ("63.3x"), or NULL; an entry may
     * be NULL.  A bar's figure takes its note's place.  Each is set on
     * one line, never wrapped or cut, all at one size: a note's, or
     * smaller (down to 0.8 of it) when the widest would not fit its
     * bar's slot, or else turned upright, reading up. */
    const char *const *figures;
    /* n texts the HTML's hover says after "label: ", or NULL; an entry
     * may be NULL (the default: the value with its interval, and the
     * note).  For what the printed figure does not say -- the interval,
     * the seeds -- so that the hover does not repeat it. */
    const char *const *tips;
} report_bars;
#define REPORT_PANELS_MAX 9
/* colour may be NULL: bar i (of a panel) takes palette colour i.  Labels wrap to two
 * lines under their bar, notes to three above its whisker; the value
 * axis grows to leave the notes room.  A whisker is cut to the axis
 * (0 and y_cap): an interval does not leave its quantity's domain. */
void report_bars_add(report *r, const report_bars *c);
/* How far the value axis of c's bars reaches, for the unit it is
 * labelled in (as report_lines_reach): a nice number above every bar and
 * whisker, at most the cap, before any room for their notes. */
double report_bars_reach(const report_bars *c);

/* A stability map.  Metastability is a probability, not a majority
 * vote: each cell is coloured by the share of its seeds that tipped into
 * a storm and never recovered (a sequential, colour-blind-safe scale
 * from light, none, to dark, all, with its key), and says in figures
 * "k/n" and the mean recovery time of the seeds that did recover
 * ("never" when none did: distinct from a fast recovery).  A cell whose
 * share's Wilson 95 % interval includes 1/2 is neither clearly stable
 * nor clearly metastable: hatched, "bistable", when its seeds split
 * (some tipped, some did not); dotted, "too few seeds to tell", when
 * they all agreed but were too few for any interval to exclude 1/2
 * (3 seeds or fewer at 95 %).  The boundary is
 * drawn where the share crosses 1/2 (between a cell with k/n > 1/2 and
 * one without), as a thick line along the cell edges; the hatched cells
 * beside it are its uncertainty. */
typedef struct report_map {
    const char *title;
    const char *x_label, *y_label;
    int nx, ny;
    const double *x, *y; /* the cells' axis values, nx and ny */
    /* Per cell, [j * nx + i] at (x[i], y[j]): of judged[k] seeds (0: no
     * value, drawn empty), tipped[k] never recovered; value[k] is the
     * mean recovery time of the others (NaN when none recovered). */
    const uint32_t *tipped, *judged;
    const double *value;
    const char *value_unit; /* of value: "s" */
    /* Why a cell has no value, for its hover in report.html ("recovery
     * not judged ..."); NULL: it says only "no value". */
    const char *empty_why;
} report_map;
void report_map_add(report *r, const report_map *c);

/* What a cell of a map says, from its counts: no value (judged 0);
 * stable, bistable or metastable as the share's Wilson 95 % interval
 * lies below 1/2, includes it, or lies above it; an interval that
 * includes it though every seed agreed (0 of n or n of n) says only
 * that n is too small: too few seeds to tell, not bistable. */
typedef enum report_cell {
    REPORT_CELL_EMPTY,
    REPORT_CELL_STABLE,
    REPORT_CELL_BISTABLE,
    REPORT_CELL_METASTABLE,
    REPORT_CELL_TOO_FEW
} report_cell;
report_cell report_map_cell(const report_map *m, int i, int j);

/* The boundary report_map_add draws, as cell edges: the edge between
 * cell (i, j) and (i + 1, j) when `vertical`, else between (i, j) and
 * (i, j + 1), for every such pair of which exactly one tipped in more
 * than half its seeds, neither of them empty (a cell without a value
 * lies on neither side, so no line says the storm stops there; the
 * grid's outer edge is no boundary either).  In order: rows from j = 0 up, cells from i = 0 right, a
 * cell's vertical edge before its horizontal one.  Writes at most max
 * edges to out (NULL when max is 0) and returns how many there are. */
typedef struct report_edge {
    int i, j;
    bool vertical;
} report_edge;
int report_map_boundary(const report_map *m, report_edge *out, int max);

/* An error of the caller's while it built a block (out of memory for
 * its cells): kept like the document's own (the first one wins), so
 * nothing more is added and report_close fails, leaving neither target
 * touched -- a report never goes out with a chart or table silently
 * missing.  `why` is copied. */
void report_fail(report *r, const char *why);

/* Finish both files and rename them into place.  On an error neither
 * target is touched, the temporaries are removed, and e says why.  r is
 * freed either way (NULL: nothing to do, returns 0).  Both files are
 * written and synced before either is renamed; should the second rename
 * still fail, the first target is removed again if it did not exist
 * before (one that did has been replaced). */
int report_close(report *r, sb_err *e);

#endif
