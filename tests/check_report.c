/*
 * check_report.c -- the report document (viz/report.h): a document with
 * every kind of block written as PDF and HTML and read back with
 * poppler's pdfinfo and pdftotext and as text; the stability map's
 * boundary on grids worked by hand; and outputs written whole or not at
 * all when one of them cannot be.
 *
 * The poppler tools are found when CMake configures (tests/CMakeLists
 * .txt); a missing one fails these tests with its name, it does not skip
 * them.
 */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"
#include "chart.h"
#include "report_chart.h"
#include "testutil.h"

/* ---- The document
 * ------------------------------------------------------------ */

#define ROWS 30
#define COLS 6

static char doc_dir[1024], doc_pdf[1100], doc_html[1100];

static const char *const header[COLS] = {"policy",        "success ratio",
                                         "amplification", "recovery (s)",
                                         "p99 (ms)",      "note"};
static char cell_buf[ROWS][COLS][96];

/* Row i's cells: names that sort, numbers that can be found again
 * (row 7's success ratio is 0.9 + 7 x 0.0016 = 0.9112), one long note that has
 * to wrap, and characters HTML must escape. */
static void fill_table(const char **cells, uint8_t *emph)
{
    for (int i = 0; i < ROWS; i++) {
        snprintf(cell_buf[i][0], 96, "policy-%02d", i);
        snprintf(cell_buf[i][1], 96, "%.4f", 0.9 + i * 0.0016);
        snprintf(cell_buf[i][2], 96, "%.2f", 1.0 + i * 0.37);
        snprintf(cell_buf[i][3], 96,
                 i % 9 == 4 ? "did not recover in 2 of 5" : "%.1f",
                 4.0 + i * 1.5);
        snprintf(cell_buf[i][4], 96, "%d", 120 + i * 17);
        snprintf(cell_buf[i][5], 96, "%s",
                 i == 3   ? "exponential:jitter=full:base=10ms with a token "
                            "bucket in front"
                 : i == 5 ? "a < b & c"
                          : "");
        for (int c = 0; c < COLS; c++) {
            cells[i * COLS + c] = cell_buf[i][c];
            emph[i * COLS + c] = c == 1 && i == 29      ? REPORT_BEST
                                 : c == 2 && i % 4 == 1 ? REPORT_MUTED
                                                        : REPORT_PLAIN;
        }
    }
}

static void add_table(report *r)
{
    static const char *cells[ROWS * COLS];
    static uint8_t emph[ROWS * COLS];
    fill_table(cells, emph);
    report_table t = {"Mean and 95 % interval over 5 seeds; bold: the best "
                      "of its column, grey: not significantly different.",
                      COLS,
                      ROWS,
                      header,
                      cells,
                      emph,
                      "lrrrrl"};
    report_table_add(r, &t);
}

#define NT 300

/* Three policies over 300 s with a 10-90 % band each, two faults shaded,
 * one series broken by a gap (NaN). */
static void add_time_series(report *r)
{
    static double t[NT], y[3][NT], lo[3][NT], hi[3][NT];
    for (int i = 0; i < NT; i++) {
        t[i] = i;
        for (int k = 0; k < 3; k++) {
            double dip = i >= 60 && i < 70 ? 0.1 : 1.0;
            double rec = i >= 70 ? 1 - exp(-(i - 70) / (8.0 + 20 * k)) : 1;
            y[k][i] = 950 * dip * (i >= 70 ? rec : 1) + 20 * sin(i / 7.0 + k);
            lo[k][i] = y[k][i] * 0.9;
            hi[k][i] = y[k][i] * 1.08;
        }
    }
    y[2][150] = NAN;
    report_series s[3] = {
        {"exponential", t, y[0], lo[0], hi[0], NT, 0, 0, false, NULL},
        {"exponential+token_bucket", t, y[1], lo[1], hi[1], NT, 1, 1, false,
         NULL},
        {"immediate", t, y[2], lo[2], hi[2], NT, 2, 2, false, NULL}};
    report_span sp[2] = {{60, 70, "outage 10 s"},
                         {200, 215, "latency +200 ms"}};
    report_lines c = {"Goodput", "time (s)", "goodput (requests/s)",
                      s,         3,          sp,
                      2,         false,      NAN,
                      NAN,       false,      0,
                      NULL,      NULL};
    report_lines_add(r, &c);
}

/* Latency CDFs on a log x axis from 2 to 5 000 ms. */
static void add_cdf(report *r)
{
    static double x[200], y[3][200];
    for (int i = 0; i < 200; i++) {
        x[i] = 2 * pow(2500, i / 199.0);
        for (int k = 0; k < 3; k++)
            y[k][i] = 1 / (1 + pow(x[i] / (20.0 + 40 * k), -2.0));
    }
    report_series s[3] = {
        {"exponential", x, y[0], NULL, NULL, 200, 0, 0, 0, NULL},
        {"exponential+token_bucket", x, y[1], NULL, NULL, 200, 1, 1, 0, NULL},
        {"immediate", x, y[2], NULL, NULL, 200, 2, 2, 0, NULL}};
    report_lines c = {"Latency CDF",
                      "latency (ms)",
                      "share of requests",
                      s,
                      3,
                      NULL,
                      0,
                      true,
                      0,
                      1,
                      false,
                      0,
                      NULL,
                      NULL};
    report_lines_add(r, &c);
}

static void add_bars(report *r)
{
    static const char *labels[4] = {"exponential", "exponential+token_bucket",
                                    "immediate", "no retries"};
    static const double v[4] = {12.5, 8.25, INFINITY, 3.0};
    static const double lo[4] = {10.1, 7.0, NAN, 2.5};
    static const double hi[4] = {15.2, 9.9, NAN, 3.6};
    static const int colour[4] = {0, 1, 2, 4};
    static const char *notes[4] = {"2 of 5 seeds did not recover", NULL,
                                   "did not recover in 5 of 5 seeds", NULL};
    report_bars c = {
        "Recovery time", "recovery (s)", 4, labels, v,    lo,   hi,
        colour,          notes,          0, 0,      NULL, NULL, NULL};
    report_bars_add(r, &c);
}

/* A staircase of metastable cells in the upper right: on an 8 x 6 grid
 * of 5 seeds a cell, every seed tipped in cell (i, j) when i + j >= 9,
 * 2 of 5 on the diagonal i + j = 8 (bistable), none below; cell (0, 5)
 * has no value.  The second map: 1 of 3 tipped in (3, 2), 0 of 3
 * elsewhere (every cell bistable: 3 seeds cannot call a cell stable). */
#define MX 8
#define MY 6
static void add_maps(report *r)
{
    static double x[MX], y[MY], v[MX * MY], v2[MX * MY];
    static uint32_t k[MX * MY], n[MX * MY], k2[MX * MY], n2[MX * MY];
    for (int i = 0; i < MX; i++)
        x[i] = 0.5 + 0.1 * i;
    for (int j = 0; j < MY; j++)
        y[j] = 5 + 10 * j;
    for (int j = 0; j < MY; j++)
        for (int i = 0; i < MX; i++) {
            int c = j * MX + i;
            n[c] = 5;
            k[c] = i + j >= 9 ? 5 : i + j == 8 ? 2 : 0;
            v[c] = k[c] == 5 ? NAN : 2 + 6.0 * (i + j) * (i + j) / 8.0;
            n2[c] = 3;
            k2[c] = i == 3 && j == 2;
            v2[c] = 1.5 * i + j;
        }
    n[5 * MX + 0] = 0;
    report_map a = {"Stability map: exponential",
                    "offered load (share of capacity)",
                    "outage (s)",
                    MX,
                    MY,
                    x,
                    y,
                    k,
                    n,
                    v,
                    "s",
                    NULL};
    report_map_add(r, &a);
    report_map b = {"Stability map: immediate",
                    "offered load (share of capacity)",
                    "outage (s)",
                    MX,
                    MY,
                    x,
                    y,
                    k2,
                    n2,
                    v2,
                    "s",
                    NULL};
    report_map_add(r, &b);
}

static void add_sweep(report *r)
{
    static double x[7], y[2][7], lo[2][7], hi[2][7];
    for (int i = 0; i < 7; i++) {
        x[i] = 0.6 + 0.1 * i;
        for (int k = 0; k < 2; k++) {
            y[k][i] = 2 + (k + 1) * 30 * pow(x[i], 6);
            lo[k][i] = y[k][i] * 0.8;
            hi[k][i] = y[k][i] * 1.25;
        }
    }
    report_series s[2] = {
        {"exponential", x, y[0], lo[0], hi[0], 7, 0, 0, true, NULL},
        {"immediate", x, y[1], lo[1], hi[1], 7, 2, 1, true, NULL}};
    report_lines c = {"Recovery time against offered load",
                      "offered load (share of capacity)",
                      "recovery (s)",
                      s,
                      2,
                      NULL,
                      0,
                      false,
                      NAN,
                      NAN,
                      false,
                      0,
                      NULL,
                      NULL};
    report_lines_add(r, &c);
}

/* The layout rules (report.h) give 5 pages.  Text runs from y = 36 to
 * 549.28 pt; a level-1 heading takes 30 pt, a line of text 14, a table
 * row 17.3, the bar chart 146.5 (0.13 x 757.89 = 98.5 of plot and 47.5
 * of labels), a map 161.2 (0.15: 113.7 of plot), a line chart with one
 * legend row 206.7 (0.19: 144 of plot, 47.5 of labels, 15.2 of legend);
 * gaps are 8 pt above a table, 10 above a chart, 12 above a level-2
 * heading.
 * 1. "Results" and a line of text end at 80; 8 down, the header ends at
 *    105.3, and rows 0 to 24 fit ((549.28 - 105.3) / 17.3 = 25.7).
 * 2. The header again, rows 25 to 29 and the caption end at 155.3;
 *    "Recovery time" and the bar chart end at 333.8.
 * 3. "Time series" opens a page (to 66), then both line charts: 66 +
 *    206.7 + 10 + 206.7 = 489.4, which fits.
 * 4. "Stability maps" opens a page: 66 + 161.2 + 10 + 161.2 = 398.4.
 * 5. The page break; "Sweep", a line of text and the sweep chart. */
#define DOC_PAGES 5
#define DOC_CHARTS 6

static void build_document(void)
{
    snprintf(doc_dir, sizeof doc_dir, "%s", tu_temp_path("report"));
    mkdir(doc_dir, 0777);
    snprintf(doc_pdf, sizeof doc_pdf, "%s/report.pdf", doc_dir);
    snprintf(doc_html, sizeof doc_html, "%s/report.html", doc_dir);
    report *r;
    sb_err e;
    ck_assert_msg(
        report_open(&r, doc_pdf, doc_html, "stormbench test report", &e) == 0,
        "%s", e.msg);
    report_heading(r, 1, "Results");
    report_text(r, "Three policies on the retry-storm scenario, 5 seeds "
                   "each, paired.");
    add_table(r);
    report_heading(r, 2, "Recovery time");
    add_bars(r);
    report_heading(r, 1, "Time series");
    add_time_series(r);
    add_cdf(r);
    report_heading(r, 1, "Stability maps");
    add_maps(r);
    report_page_break(r);
    report_heading(r, 2, "Sweep");
    report_text(r, "Recovery time as the offered load grows.");
    add_sweep(r);
    ck_assert_msg(report_close(r, &e) == 0, "%s", e.msg);
}

static char *page_text(int page)
{
    char p[16];
    snprintf(p, sizeof p, "%d", page);
    return tu_tool_output(
        SB_PDFTOTEXT,
        (const char *[]){"-layout", "-f", p, "-l", p, doc_pdf, "-", NULL});
}

START_TEST(pdf_pages)
{
    char *info = tu_tool_output(SB_PDFINFO, (const char *[]){doc_pdf, NULL});
    const char *p = strstr(info, "Pages:");
    ck_assert_msg(p != NULL, "%s", info);
    ck_assert_int_eq(atoi(p + 6), DOC_PAGES);
    ck_assert_msg(strstr(info, "Title:") && strstr(info, "stormbench test "
                                                         "report"),
                  "%s", info);
    ck_assert_msg(strstr(info, "841.89 x 595.28 pts (A4)"), "A4 landscape: %s",
                  info);
    free(info);
}
END_TEST

/* Fails, naming it and the page, when one of the NULL-terminated
 * strings is not in the page's text. */
static void on_page(int page, const char *const *want)
{
    char *text = page_text(page);
    for (int k = 0; want[k]; k++)
        ck_assert_msg(strstr(text, want[k]) != NULL, "page %d lacks \"%s\": %s",
                      page, want[k], text);
    free(text);
}

/* The headings are on the pages the rules put them; the table's cells
 * are text, its header is repeated on page 2 where its last rows and
 * caption are; every page has its footer. */
START_TEST(pdf_text)
{
    on_page(1, (const char *[]){"Results", "policy-00", "0.9112",
                                "success ratio", "amplification", "2.11",
                                "did not recover in 2 of 5", "policy-24",
                                "exponential:jitter=full:base=10ms", "front",
                                "page 1", NULL});
    on_page(2, (const char *[]){"success ratio", "p99 (ms)", "policy-25",
                                "policy-29", "0.9464", "613", "Mean and 95 %",
                                "Recovery time", "page 2", NULL});
    on_page(3, (const char *[]){"Time series", "Goodput", "Latency CDF",
                                "stormbench test report", NULL});
    on_page(4, (const char *[]){"Stability maps", "Stability map: exponential",
                                "Stability map: immediate", "2/5", "5/5",
                                "never", "1/3", "bistable", NULL});
    on_page(5, (const char *[]){"Sweep", "Recovery time against offered load",
                                "page 5", NULL});
    char *t1 = page_text(1);
    ck_assert_msg(strstr(t1, "policy-29") == NULL, "page 1: %s", t1);
    free(t1);
}
END_TEST

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

static bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Nothing is fetched: no src=, no href= but to "#...", no url( but
 * url(#...), "http" only in the namespace declarations, and the scripts
 * are the one inline program and the line charts' JSON data (a <script>
 * with a src would fetch). */
static void no_external_reference(const char *h, int line_charts)
{
    ck_assert_msg(strstr(h, "src=") == NULL, "src=");
    ck_assert_int_eq(count(h, "<script>"), 1);
    ck_assert_int_eq(count(h, "<script type=\"application/json\""),
                     line_charts);
    ck_assert_int_eq(count(h, "<script"), 1 + line_charts);
    for (const char *p = strstr(h, "href="); p; p = strstr(p + 1, "href="))
        ck_assert_msg(starts(p, "href=\"#"), "external: %.60s", p);
    for (const char *p = strstr(h, "url("); p; p = strstr(p + 1, "url("))
        ck_assert_msg(starts(p, "url(#"), "external: %.60s", p);
    for (const char *p = strstr(h, "http"); p; p = strstr(p + 1, "http")) {
        bool ns = (p - h >= 7 && starts(p - 7, "xmlns=\"")) ||
                  (p - h >= 13 && starts(p - 13, "xmlns:xlink=\""));
        ck_assert_msg(ns, "http outside xmlns: %.80s", p - 20);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every id in the page is unique: the inline SVGs do not share glyph or
 * clip names (the page would draw one chart's glyphs in another). */
static void ids_unique(const char *h)
{
    int n = count(h, " id=\"");
    char **ids = malloc((size_t)(n + 1) * sizeof *ids);
    int k = 0;
    for (const char *p = strstr(h, " id=\""); p; p = strstr(p + 1, " id=\"")) {
        const char *q = strchr(p + 5, '"');
        ids[k++] = strndup(p + 5, (size_t)(q - p - 5));
    }
    qsort(ids, (size_t)k, sizeof *ids, cmp_str);
    for (int i = 1; i < k; i++)
        ck_assert_msg(strcmp(ids[i - 1], ids[i]) != 0, "id %s twice", ids[i]);
    for (int i = 0; i < k; i++)
        free(ids[i]);
    free(ids);
    ck_assert_int_gt(k, DOC_CHARTS); /* glyphs and clips have ids */
}

START_TEST(html_self_contained)
{
    char *h = tu_read_file(doc_html);
    ck_assert_ptr_nonnull(h);
    ck_assert_int_eq(count(h, "<figure"), DOC_CHARTS);
    ck_assert_int_eq(count(h, "<svg"), count(h, "</svg>"));
    ck_assert_ptr_null(strstr(h, "<?xml"));
    ck_assert(starts(h, "<!DOCTYPE html>"));
    no_external_reference(h, 3);
    ids_unique(h);
    /* Headings and the table as HTML, its cells escaped. */
    ck_assert_ptr_nonnull(strstr(h, "<h1>Results</h1>"));
    ck_assert_ptr_nonnull(strstr(h, "<h2>Recovery time</h2>"));
    ck_assert_int_eq(count(h, "<table>"), 1);
    ck_assert_int_eq(count(h, "<tr>"), ROWS + 1);
    ck_assert_ptr_nonnull(strstr(h, "<th class=\"r\">success ratio</th>"));
    ck_assert_ptr_nonnull(strstr(h, "<td class=\"r\">0.9112</td>"));
    ck_assert_ptr_nonnull(strstr(h, "<td class=\"r best\">0.9464</td>"));
    ck_assert_ptr_nonnull(strstr(h, "<td class=\"r muted\">1.37</td>"));
    ck_assert_ptr_nonnull(strstr(h, "<td class=\"l\">a &lt; b &amp; c</td>"));
    ck_assert_ptr_nonnull(strstr(h, "<title>stormbench test report</title>"));
    free(h);
}
END_TEST

/* A results table too wide for the page at 9 pt: nine columns of
 * intervals.  It is set smaller and its widest columns wrap, but no
 * cell is cut: every policy name and number is there in the text, and
 * no ellipsis. */
START_TEST(wide_table)
{
    static const char *hdr[9] = {"policy",         "success ratio",
                                 "amplification",  "peak amplification",
                                 "recovery (s)",   "p99 latency (ms)",
                                 "duplicates",     "quarantined",
                                 "wasted work (%)"};
    static const char *pol[3] = {"exponential+token_bucket",
                                 "exponential:jitter=full:base=10ms",
                                 "immediate"};
    static char b[3][9][64];
    static const char *cells[27];
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < 9; c++) {
            if (c == 0)
                snprintf(b[i][c], 64, "%s", pol[i]);
            else
                snprintf(b[i][c], 64, "%d.%03d [%d.%03d, %d.%03d]", i, c, i,
                         c + 100, i, c + 200);
            cells[i * 9 + c] = b[i][c];
        }
    char path[1100];
    snprintf(path, sizeof path, "%s/wide.pdf", doc_dir);
    report *r;
    sb_err e;
    ck_assert_int_eq(report_open(&r, path, NULL, "wide", &e), 0);
    report_table t = {NULL, 9, 3, hdr, cells, NULL, NULL};
    report_table_add(r, &t);
    ck_assert_int_eq(report_close(r, &e), 0);
    char *text =
        tu_tool_output(SB_PDFTOTEXT, (const char *[]){path, "-", NULL});
    ck_assert_msg(strstr(text, "\xe2\x80\xa6") == NULL, "cut: %s", text);
    ck_assert_msg(strstr(text, "token_") && strstr(text, "bucket") &&
                      strstr(text, "jitter=") && strstr(text, "base=10ms"),
                  "%s", text);
    for (int i = 0; i < 3; i++)
        for (int c = 1; c < 9; c++) {
            char num[16];
            snprintf(num, sizeof num, "%d.%03d", i, c + 200);
            ck_assert_msg(strstr(text, num), "%s missing: %s", num, text);
        }
    free(text);
}
END_TEST

/* ---- The stability map's boundary -------------------------------------------
 */

/* A grid whose marked cells (m[k] = 1) tipped on their one seed and
 * whose others did not. */
static uint32_t grid_k[64], grid_n[64];
static report_map grid(int nx, int ny, const double *v, const uint8_t *m)
{
    for (int c = 0; c < nx * ny; c++) {
        grid_k[c] = m ? m[c] : 0;
        grid_n[c] = 1;
    }
    return (report_map){"",   "x",    "y",    nx, ny,  NULL,
                        NULL, grid_k, grid_n, v,  "s", NULL};
}

static void expect_edges(const report_map *m, const report_edge *want, int n)
{
    report_edge got[64];
    ck_assert_int_eq(report_map_boundary(m, got, 64), n);
    for (int k = 0; k < n; k++) {
        ck_assert_int_eq(got[k].i, want[k].i);
        ck_assert_int_eq(got[k].j, want[k].j);
        ck_assert_int_eq(got[k].vertical, want[k].vertical);
    }
}

/* A staircase on 4 x 3 (j = 0 is the bottom row; X marked):
 *     j=2  . X X X
 *     j=1  . . X X
 *     j=0  . . . X
 * Vertical edges (between (i, j) and (i + 1, j)) at (2, 0), (1, 1),
 * (0, 2); horizontal ones (between (i, j) and (i, j + 1)) at (2, 0) and
 * (1, 1).  In the documented order -- rows from the bottom, cells from
 * the left, a cell's right edge before its upper one: (2,0,v), (2,0,h),
 * (1,1,v), (1,1,h), (0,2,v).  Five edges, a staircase of three steps. */
START_TEST(boundary_staircase)
{
    double v[12] = {0};
    uint8_t m[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1};
    report_map g = grid(4, 3, v, m);
    report_edge want[] = {
        {2, 0, true}, {2, 0, false}, {1, 1, true}, {1, 1, false}, {0, 2, true}};
    expect_edges(&g, want, 5);
    /* Asked for fewer, it writes fewer and still counts them all. */
    report_edge one[1];
    ck_assert_int_eq(report_map_boundary(&g, one, 1), 5);
    ck_assert_int_eq(one[0].i, 2);
    ck_assert_int_eq(report_map_boundary(&g, NULL, 0), 5);
}
END_TEST

/* One marked cell (1, 1) in the middle of 3 x 3: its four sides, as the
 * edges of (0, 1) right, (1, 0) up, (1, 1) right, (1, 1) up. */
START_TEST(boundary_isolated)
{
    double v[9] = {0};
    uint8_t m[9] = {0, 0, 0, 0, 1, 0, 0, 0, 0};
    report_map g = grid(3, 3, v, m);
    report_edge want[] = {
        {1, 0, false}, {0, 1, true}, {1, 1, true}, {1, 1, false}};
    expect_edges(&g, want, 4);
    /* A marked cell on the grid's edge has no boundary there: in the
     * corner (0, 0) of 2 x 2, just its right and upper sides. */
    uint8_t c[4] = {1, 0, 0, 0};
    double w[4] = {0};
    report_map h = grid(2, 2, w, c);
    report_edge want2[] = {{0, 0, true}, {0, 0, false}};
    expect_edges(&h, want2, 2);
    /* Nothing marked, or everything: no boundary. */
    uint8_t all[4] = {1, 1, 1, 1};
    h = grid(2, 2, w, all);
    ck_assert_int_eq(report_map_boundary(&h, NULL, 0), 0);
    h = grid(2, 2, w, NULL);
    ck_assert_int_eq(report_map_boundary(&h, NULL, 0), 0);
}
END_TEST

/* A marked cell is marked with or without a value (a storm that never
 * recovered has no recovery time): on 3 x 1 marked X X X with the middle
 * NaN there is no boundary; marked only in the middle (NaN), the boundary
 * is its two sides: (0, 0) right and (1, 0) right. */
START_TEST(boundary_nan)
{
    double v[3] = {5, NAN, 7};
    uint8_t m[3] = {1, 1, 1};
    report_map g = grid(3, 1, v, m);
    ck_assert_int_eq(report_map_boundary(&g, NULL, 0), 0);
    uint8_t m2[3] = {0, 1, 0};
    g = grid(3, 1, v, m2);
    report_edge want[] = {{0, 0, true}, {1, 0, true}};
    expect_edges(&g, want, 2);
}
END_TEST

/* A cell without a value (no seed judged: a fault too late for its
 * recovery window) lies on neither side of the boundary: on 3 x 2
 *     j=1  X X X       (3 of 3 tipped)
 *     j=0  - X .       (- empty, . 0 of 3)
 * the edges are the dot's left and upper sides, (1, 0) right and (2, 0)
 * up; the empty cell's right side was drawn as boundary too, a line
 * saying the storm stops where nothing was measured. */
START_TEST(boundary_empty)
{
    static const uint32_t k[6] = {0, 3, 0, 3, 3, 3}, n[6] = {0, 3, 3, 3, 3, 3};
    double v[6] = {NAN, NAN, 1, NAN, NAN, NAN};
    report_map m = {"", "x", "y", 3, 2, NULL, NULL, k, n, v, "s", NULL};
    report_edge want[] = {{1, 0, true}, {2, 0, false}};
    expect_edges(&m, want, 2);
}
END_TEST

/* ---- What a map's cell says ----------------------------------------------- */

/* The Wilson 95 % interval of k of n, worked by hand (z = 1.96, z^2 =
 * 3.8416): centre (k/n + z^2/2n) / (1 + z^2/n), half-width z sqrt(k/n
 * (1 - k/n)/n + z^2/4n^2) / (1 + z^2/n).
 *   0 of 5: 0.21725 -+ 0.21725 = [0, 0.4345]: below 1/2, stable;
 *   2 of 5: [0.1176, 0.7693]: holds 1/2, bistable;
 *   5 of 5: [0.5655, 1]: above, metastable;
 *   0 of 3: [0, 0.5615]: holds 1/2 -- three seeds cannot call a cell
 *           stable, so it is not healthy; but its seeds agreed, so it
 *           is too few seeds to tell, not bistable (which said they
 *           split);
 *   1 of 10: 0.2110 -+ 0.1931 = [0.0179, 0.4042]: stable;
 *   0 of 0: no value.
 * Then 3 of 3 ([0.4385, 1]: too few, the mirror of 0 of 3), 1 of 3
 * ([0.0615, 0.7924]: the seeds split, bistable) and 0 of 4 ([0,
 * 3.8415 / 7.8415 = 0.4899]: stable, the fewest seeds that can say so). */
START_TEST(cell_states)
{
    static const uint32_t k[6] = {0, 2, 5, 0, 1, 0};
    static const uint32_t n[6] = {5, 5, 5, 3, 10, 0};
    static const report_cell want[6] = {
        REPORT_CELL_STABLE,  REPORT_CELL_BISTABLE, REPORT_CELL_METASTABLE,
        REPORT_CELL_TOO_FEW, REPORT_CELL_STABLE,   REPORT_CELL_EMPTY};
    double v[6] = {1, 2, NAN, 3, 4, NAN};
    report_map m = {"", "x", "y", 6, 1, NULL, NULL, k, n, v, "s", NULL};
    for (int i = 0; i < 6; i++)
        ck_assert_msg(report_map_cell(&m, i, 0) == want[i], "%u of %u: %d",
                      k[i], n[i], report_map_cell(&m, i, 0));
    /* The boundary is where most seeds tip: between 2 of 5 (no) and 5 of
     * 5 (yes), and between 5 of 5 and 0 of 3: edges (1, 0) and (2, 0). */
    report_edge e[4];
    ck_assert_int_eq(report_map_boundary(&m, e, 4), 2);
    ck_assert_int_eq(e[0].i, 1);
    ck_assert_int_eq(e[1].i, 2);
    static const uint32_t k2[3] = {3, 1, 0}, n2[3] = {3, 3, 4};
    static const report_cell want2[3] = {
        REPORT_CELL_TOO_FEW, REPORT_CELL_BISTABLE, REPORT_CELL_STABLE};
    report_map m2 = {"", "x", "y", 3, 1, NULL, NULL, k2, n2, v, "s", NULL};
    for (int i = 0; i < 3; i++)
        ck_assert_msg(report_map_cell(&m2, i, 0) == want2[i], "%u of %u: %d",
                      k2[i], n2[i], report_map_cell(&m2, i, 0));
}
END_TEST

/* Issue 18: a map with bistable, too-few-seeds and empty cells at once
 * has a key of three swatches under its colour bar, and the key ran
 * 27 pt past the chart's bottom (to 189 of 161.5 at the PDF's width):
 * over the text under it in the PDF, cut off in the HTML's picture.
 * Drawn onto a recording surface at the PDF's width (757.89) and a
 * narrower one (500: a narrower key column, its labels on more lines),
 * everything the chart inks lies inside the size report_chart_height
 * gives it.  A map without marked cells keeps its height, round(0.15 W)
 * + 5 F = 114 + 47.5 = 161.5. */
START_TEST(map_key_fits)
{
    /* 0/5 stable, 2/5 and 1/5 bistable, 5/5 metastable, 0/3 and 3/3 too
     * few (cell_states), 0/0 empty */
    static const uint32_t k[10] = {0, 2, 5, 0, 0, 3, 1, 0, 4, 5};
    static const uint32_t n[10] = {5, 5, 5, 3, 0, 3, 5, 0, 5, 5};
    double v[10] = {1, 2, NAN, 3, NAN, NAN, 4, NAN, 5, NAN};
    double x[5] = {0.5, 0.6, 0.7, 0.8, 0.9}, y[2] = {1, 2};
    report_map m = {"exponential",
                    "offered load / capacity",
                    "clients.timeout (s)",
                    5,
                    2,
                    x,
                    y,
                    k,
                    n,
                    v,
                    "s",
                    NULL};
    ck_assert(report_map_cell(&m, 1, 0) == REPORT_CELL_BISTABLE);
    ck_assert(report_map_cell(&m, 3, 0) == REPORT_CELL_TOO_FEW);
    ck_assert(report_map_cell(&m, 4, 0) == REPORT_CELL_EMPTY);
    report_chart c = {REPORT_CHART_MAP, NULL, NULL, &m};
    const double widths[2] = {757.89, 500};
    for (int w = 0; w < 2; w++) {
        cairo_surface_t *s =
            cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
        cairo_t *cr = cairo_create(s);
        double h = report_chart_height(cr, &c, widths[w]);
        report_chart_draw(cr, &c, widths[w], h);
        cairo_destroy(cr);
        double ex, ey, ew, eh;
        cairo_recording_surface_ink_extents(s, &ex, &ey, &ew, &eh);
        ck_assert_msg(ex >= 0 && ey >= 0 && ex + ew <= widths[w] + 1e-6 &&
                          ey + eh <= h + 1e-6,
                      "at %.2f: ink [%.1f, %.1f] x [%.1f, %.1f] outside the "
                      "chart's %.1f x %.1f",
                      widths[w], ex, ex + ew, ey, ey + eh, widths[w], h);
        cairo_surface_destroy(s);
    }
    /* Without marked cells (0/5 and 5/5 only), the height it had. */
    static const uint32_t k2[2] = {0, 5}, n2[2] = {5, 5};
    report_map plain = {"", "x", "y", 2, 1, x, y, k2, n2, v, "s", NULL};
    report_chart c2 = {REPORT_CHART_MAP, NULL, NULL, &plain};
    cairo_surface_t *s =
        cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
    cairo_t *cr = cairo_create(s);
    ck_assert_double_eq_tol(report_chart_height(cr, &c2, 757.89), 161.5, 1e-9);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}
END_TEST

static uint32_t px_at(cairo_surface_t *s, int x, int y)
{
    const unsigned char *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    return *(const uint32_t *)(const void *)(d + y * stride + x * 4) & 0xffffff;
}

static double luma(uint32_t p)
{
    return 0.2126 * ((p >> 16) & 255) + 0.7152 * ((p >> 8) & 255) +
           0.0722 * (p & 255);
}

/* Issue 18: a cell where 2 of 5 seeds tipped into a storm was painted
 * as "0 s recovery" in the scale's best colour, like a cell where none
 * did.  Drawn, 0 of 5, 2 of 5 and 5 of 5 in a row: the lower left
 * quarter of each cell (clear of its figures) is sampled.  The 2 of 5
 * cell is darker than the 0 of 5 one on average and is hatched (it holds
 * pixels far darker than its own fill); 5 of 5 is darker still and not
 * hatched. */
START_TEST(two_of_five_is_not_healthy)
{
    static const uint32_t k[3] = {0, 2, 5}, n[3] = {5, 5, 5};
    double v[3] = {0.0, 0.0, NAN};
    report_map m = {"", "x", "y", 3,   1,   (double[]){1, 2, 3}, (double[]){1},
                    k,  n,   v,   "s", NULL};
    int w = 760, h = 240;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    report_chart c = {REPORT_CHART_MAP, NULL, NULL, &m};
    report_chart_draw(cr, &c, w, report_chart_height(cr, &c, w));
    cairo_surface_flush(s);
    /* The cells where map_draw puts them: a panel beside the key (a
     * fifth of the width), cut in three. */
    double H = report_chart_height(cr, &c, w);
    chart_axes ax = {"x", "y", false, false, false};
    chart_panel p;
    chart_panel_init_axes(
        &p, (chart_rect){0, 0, w - fmax(w * 0.2, 12 * REPORT_CHART_FONT), H},
        "", &ax, 0, 3, 0, 1, REPORT_CHART_FONT);
    double mean[3], darkest[3];
    for (int i = 0; i < 3; i++) {
        chart_rect r = chart_cell_rect(p.plot, 3, 1, i, 0);
        double sum = 0, dark = 255;
        int cnt = 0;
        for (int yy = (int)(r.y + r.h * 0.7); yy < (int)(r.y + r.h * 0.95);
             yy++)
            for (int xx = (int)(r.x + r.w * 0.05); xx < (int)(r.x + r.w * 0.3);
                 xx++) {
                double l = luma(px_at(s, xx, yy));
                sum += l;
                dark = fmin(dark, l);
                cnt++;
            }
        mean[i] = sum / cnt;
        darkest[i] = dark;
    }
    ck_assert_msg(mean[1] < mean[0] - 20,
                  "2 of 5 (%.0f) as light as 0 of 5 "
                  "(%.0f)",
                  mean[1], mean[0]);
    ck_assert_msg(mean[2] < mean[1], "5 of 5 (%.0f), 2 of 5 (%.0f)", mean[2],
                  mean[1]);
    ck_assert_msg(darkest[1] < mean[1] - 40, "2 of 5 not hatched: %.0f %.0f",
                  darkest[1], mean[1]);
    ck_assert_msg(darkest[0] > mean[0] - 10, "0 of 5 hatched: %.0f %.0f",
                  darkest[0], mean[0]);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}
END_TEST

/* Pixels of colour c (within 40 of each channel) in [x0, x1) x [y0, y1). */
static int count_colour(cairo_surface_t *s, int x0, int x1, int y0, int y1,
                        const chart_style *c)
{
    int n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            uint32_t p = px_at(s, x, y);
            n += abs((int)((p >> 16) & 255) - (int)lround(c->r * 255)) < 40 &&
                 abs((int)((p >> 8) & 255) - (int)lround(c->g * 255)) < 40 &&
                 abs((int)(p & 255) - (int)lround(c->b * 255)) < 40;
        }
    return n;
}

static cairo_surface_t *draw_chart(const report_chart *c, int w, chart_panel *p)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, 400);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    double h = report_chart_height(cr, c, w);
    ck_assert_double_lt(h, 400);
    report_chart_draw(cr, c, w, h);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    /* The plot area as report_chart.c lays a chart out: the panel of
     * chart_panel_init_axes, the legend's rows or the bars' labels
     * under it.  Only its x extent and its top are used below, which do
     * not depend on what is under it. */
    chart_axes ax = {"x", "y", false, false, false};
    chart_panel_init_axes(p, (chart_rect){0, 0, w, h}, "t", &ax, 0, 1, 0, 1,
                          REPORT_CHART_FONT);
    return s;
}

/* Issue 18: a policy that never recovered had no bar at all, so its slot
 * looked like the best policy's (a recovery of 0).  Now its bar is
 * hatched in its colour up to the axis top: its slot's upper half holds
 * its colour, the slot of a bar of 0 holds none. */
START_TEST(never_is_a_bar)
{
    static const char *labels[3] = {"a", "never", "zero"};
    static const double v[3] = {10, INFINITY, 0};
    static const int colour[3] = {4, 5, 2};
    report_bars b = {
        "Recovery time", "recovery (s)", 3, labels, v,    NULL, NULL,
        colour,          NULL,           0, 0,      NULL, NULL, NULL};
    report_chart c = {REPORT_CHART_BARS, NULL, &b, NULL};
    chart_panel p;
    cairo_surface_t *s = draw_chart(&c, 600, &p);
    double slot = p.plot.w / 3;
    int y0 = (int)(p.plot.y + 5), y1 = (int)(p.plot.y + 60);
    int never =
        count_colour(s, (int)(p.plot.x + slot * 1.3),
                     (int)(p.plot.x + slot * 1.7), y0, y1, &chart_palette[5]);
    int zero =
        count_colour(s, (int)(p.plot.x + slot * 2.3),
                     (int)(p.plot.x + slot * 2.7), y0, y1, &chart_palette[2]);
    ck_assert_msg(never > 200, "the never bar: %d pixels of its colour", never);
    ck_assert_int_eq(zero, 0);
    cairo_surface_destroy(s);
}
END_TEST

/* Small multiples (the tier chart): panel sizes and places by hand, at
 * the PDF's text width W = 841.89 - 2 x 42 = 757.89 pt and F = 9.5 pt.
 * Each panel takes 4.2 F = 39.9 for its tick labels and 1.6 F = 15.2 on
 * its right; the first column 1.3 F = 12.35 more for the y label.  So
 * with c columns a plot is (W - 12.35 - c x 55.1) / c wide: 3 columns
 * 580.24 / 3 = 193.4133, 2 columns 635.34 / 2 = 317.67, 1 column 690.44
 * (a line chart's plot: report_lines_json says the same).  A plot is
 * round(0.13 W) = round(98.53) = 99 high, under the chart's title line
 * and its own (1.9 F = 18.05 each: y = 36.1); a row is 18.05 + 99 +
 * 15.2 = 132.25 high. */
START_TEST(small_multiples_layout)
{
    const double W = 757.89, E = 1e-9;
    report_grid g;
    report_grid_layout(3, W, &g); /* tier-amplification: front, api, db */
    ck_assert_int_eq(g.cols, 3);
    ck_assert_int_eq(g.rows, 1);
    ck_assert_double_eq_tol(g.row_h, 132.25, E);
    ck_assert_double_eq_tol(g.plot[0].x, 52.25, E); /* 5.5 F */
    ck_assert_double_eq_tol(g.plot[0].y, 36.1, E);
    ck_assert_double_eq_tol(g.plot[0].w, 580.24 / 3, 1e-9);
    ck_assert_double_eq_tol(g.plot[0].h, 99, E);
    /* 12.35 + (55.1 + 193.4133) + 39.9 */
    ck_assert_double_eq_tol(g.plot[1].x, 300.763333333, 1e-6);
    ck_assert_double_eq_tol(g.plot[2].x, 549.276666667, 1e-6);
    /* The last plot ends 1.6 F short of the width: 757.89 - 15.2. */
    ck_assert_double_eq_tol(g.plot[2].x + g.plot[2].w, 742.69, 1e-9);

    report_grid_layout(4, W, &g); /* two rows of two */
    ck_assert_int_eq(g.cols, 2);
    ck_assert_int_eq(g.rows, 2);
    ck_assert_double_eq_tol(g.plot[1].w, 317.67, 1e-9);
    ck_assert_double_eq_tol(g.plot[1].x, 425.02, 1e-9); /* 12.35+372.77+39.9 */
    ck_assert_double_eq_tol(g.plot[2].x, 52.25, E);
    ck_assert_double_eq_tol(g.plot[2].y, 168.35, 1e-9); /* 36.1 + 132.25 */

    report_grid_layout(1, W, &g);
    ck_assert_double_eq_tol(g.plot[0].w, 690.44, 1e-9);

    /* Every count up to the most: no two panels overlap, every plot is
     * the same size and inside the width, and the rows of 9 panels
     * (three of three) fit a page's 513.28 pt of text with room for a
     * legend. */
    for (int n = 1; n <= REPORT_PANELS_MAX; n++) {
        report_grid_layout(n, W, &g);
        ck_assert_int_ge(g.cols * g.rows, n);
        ck_assert_int_lt(g.cols * (g.rows - 1), n); /* no empty row */
        for (int a = 0; a < n; a++) {
            chart_rect A = g.outer[a];
            ck_assert_double_ge(A.x, 0);
            ck_assert_double_le(A.x + A.w, W + E);
            ck_assert_double_eq_tol(g.plot[a].w, g.plot[0].w, E);
            ck_assert_double_eq_tol(g.plot[a].h, 99, E);
            ck_assert(g.plot[a].x >= A.x && g.plot[a].y >= A.y &&
                      g.plot[a].x + g.plot[a].w <= A.x + A.w + E &&
                      g.plot[a].y + g.plot[a].h <= A.y + A.h + E);
            for (int b = a + 1; b < n; b++) {
                chart_rect B = g.outer[b];
                bool apart = A.x + A.w <= B.x + E || B.x + B.w <= A.x + E ||
                             A.y + A.h <= B.y + E || B.y + B.h <= A.y + E;
                ck_assert_msg(apart, "%d panels: %d and %d overlap", n, a, b);
            }
        }
        ck_assert_double_le(18.05 + g.rows * g.row_h, 513.28 - 60);
    }
}
END_TEST

/* The panels share one axis: a bar of 64 in the first panel and one of
 * 32 in the last (second row) stand at 4/5 and 2/5 of their plots'
 * heights, and the chart with 6 panels of 8 bars and its legend is
 * less than a page high. */
START_TEST(small_multiples_share_an_axis)
{
    enum { T = 6, P = 8 };
    static const char *labels[T * P],
        *titles[T] = {"t1", "t2", "t3", "t4", "t5", "t6"};
    static double v[T * P];
    static int colour[T * P];
    static const char *names[P] = {
        "none", "immediate", "exponential", "exponential+token_bucket",
        "b",    "c",         "d",           "e"};
    for (int t = 0; t < T; t++)
        for (int i = 0; i < P; i++) {
            labels[t * P + i] = names[i];
            v[t * P + i] = i == 0 ? (t == 0 ? 64 : t == T - 1 ? 32 : 1) : 2;
            colour[t * P + i] = i == 0 ? 4 : 3;
        }
    report_bars b = {"Attempts", "attempts per request (x)",
                     T * P,      labels,
                     v,          NULL,
                     NULL,       colour,
                     NULL,       0,
                     T,          titles,
                     NULL,       NULL};
    report_chart c = {REPORT_CHART_BARS, NULL, &b, NULL};
    int w = 758;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, 600);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    double h = report_chart_height(cr, &c, w);
    ck_assert_double_lt(h, 513.28);
    report_chart_draw(cr, &c, w, h);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    report_grid g;
    report_grid_layout(T, w, &g);
    double top[2];
    for (int k = 0; k < 2; k++) {
        chart_rect pl = g.plot[k == 0 ? 0 : T - 1];
        /* the first bar's slot is the first eighth of the plot */
        int x0 = (int)(pl.x + pl.w / P * 0.4),
            x1 = (int)(pl.x + pl.w / P * 0.6);
        top[k] = -1;
        for (int y = (int)pl.y; y < (int)(pl.y + pl.h) && top[k] < 0; y++)
            if (count_colour(s, x0, x1, y, y + 1, &chart_palette[4]) > 0)
                top[k] = y - pl.y; /* below the plot's top */
    }
    /* 64 on an axis to 80 (chart_axis_top): 1/5 of the 99 pt plot down,
     * the outline's pixel included. */
    ck_assert_double_eq_tol(top[0], 99 / 5.0, 1.5);
    /* 32 on the same axis: 3/5 down (59.4 pt), where an axis of its own
     * (to 40) would put it 1/5 down, as high as the 64. */
    ck_assert_double_eq_tol(top[1], 99 * 3 / 5.0, 1.5);
    cairo_surface_destroy(s);
}
END_TEST

/* Issue 18: in 8 bars of a tier panel (3 panels a row: a slot of
 * 193.41 / 8 = 24.2 pt at W = 757.89) a figure as wide as "0.533x" was
 * wrapped as a note and cut to "0.5...".  Figures are set whole, all at
 * one size: smaller, or upright when they must.  Drawn as
 * compare_charts_tiers does, 8 policies x 6 tiers and then 16 x 3 (a
 * slot of 12.1 pt, too narrow for any level figure of 5 characters at
 * 0.8 of a note's 7.1 pt), every figure is whole, inside its bar's slot
 * with a gap to the next, below the plot's top, and of one size. */
static void figures_fit(int tiers, int policies, bool upright)
{
    enum { MAX = 6 * 16 };
    static const char *const values[] = {"0.533x", "63.3x", "123x",
                                         "1.00x",  "15.4x", "7.59x"};
    const char *labels[MAX],
        *titles[6] = {"front", "api", "svc", "cache", "store", "db"};
    const char *figures[MAX];
    double v[MAX], lo[MAX], hi[MAX];
    int colour[MAX], n = tiers * policies;
    for (int k = 0; k < n; k++) {
        int t = k / policies, i = k % policies;
        labels[k] = "exponential+token_bucket";
        figures[k] = values[(t + i) % 6];
        v[k] = strtod(figures[k], NULL);
        lo[k] = v[k] * 0.97;
        hi[k] = v[k] * 1.03;
        colour[k] = i % 8;
    }
    report_bars b = {"Attempts per request at each tier",
                     "attempts per request (x)",
                     n,
                     labels,
                     v,
                     lo,
                     hi,
                     colour,
                     NULL,
                     0,
                     tiers,
                     titles,
                     figures,
                     NULL};
    report_chart c = {REPORT_CHART_BARS, NULL, &b, NULL};
    cairo_surface_t *s =
        cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
    cairo_t *cr = cairo_create(s);
    const double W = 757.89;
    double h = report_chart_height(cr, &c, W);
    report_figure f[MAX];
    ck_assert_int_eq(report_bars_figures(cr, &c, W, h, f, MAX), n);
    for (int k = 0; k < n; k++) {
        ck_assert_str_eq(f[k].text, figures[k]); /* whole, not cut */
        ck_assert_msg(f[k].upright == upright, "%d: upright %d", k,
                      f[k].upright);
        ck_assert_double_eq(f[k].size, f[0].size);
        /* in its slot, a gap of at least 0.3 F to the next figure */
        ck_assert_msg(
            f[k].box.x >= f[k].slot.x + 1.4 &&
                f[k].box.x + f[k].box.w <= f[k].slot.x + f[k].slot.w - 1.4,
            "%d x %d, figure %d '%s': [%.2f, %.2f] in slot [%.2f, "
            "%.2f]",
            tiers, policies, k, f[k].text, f[k].box.x, f[k].box.x + f[k].box.w,
            f[k].slot.x, f[k].slot.x + f[k].slot.w);
        ck_assert_double_ge(f[k].box.y, f[k].slot.y);
        ck_assert_double_ge(f[k].size, upright ? 0 : 0.6 * REPORT_CHART_FONT);
    }
    /* The slots are what the layout says: a third of the grid's plots,
     * over the policies. */
    report_grid g;
    report_grid_layout(tiers, W, &g);
    ck_assert_double_eq_tol(f[0].slot.w, g.plot[0].w / policies, 1e-9);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

START_TEST(tier_figures_fit)
{
    figures_fit(6, 8, false);
    figures_fit(3, 16, true);
}
END_TEST

/* A sweep line's value of +infinity ("no seed recovered") is a mark on
 * the plot's top edge in the series' colour, not a gap in the line. */
START_TEST(never_is_a_mark_on_lines)
{
    static double x[5] = {1, 2, 3, 4, 5};
    static double y[5] = {2, 3, 5, INFINITY, INFINITY};
    report_series s = {"immediate", x, y, NULL, NULL, 5, 5, 0, true, NULL};
    report_lines l = {"Recovery",
                      "load",
                      "recovery (s)",
                      &s,
                      1,
                      NULL,
                      0,
                      false,
                      NAN,
                      NAN,
                      false,
                      0,
                      "no seed recovered",
                      NULL};
    report_chart c = {REPORT_CHART_LINES, &l, NULL, NULL};
    chart_panel p;
    cairo_surface_t *s4 = draw_chart(&c, 600, &p);
    /* The panel's own x axis maps 1..5; find x = 4 and 2 as
     * report_chart lays the line chart out (a tight x range). */
    chart_scale xs = {1, 5, p.plot.x, p.plot.x + p.plot.w, false, false};
    int x4 = (int)chart_scale_map(&xs, 4), x2 = (int)chart_scale_map(&xs, 2);
    int top0 = (int)p.plot.y, top1 = (int)(p.plot.y + 12);
    ck_assert_int_gt(
        count_colour(s4, x4 - 5, x4 + 5, top0, top1, &chart_palette[5]), 10);
    ck_assert_int_eq(
        count_colour(s4, x2 - 5, x2 + 5, top0, top1, &chart_palette[5]), 0);
    cairo_surface_destroy(s4);
}
END_TEST

/* A sweep point that stands for only some of the seeds (1 of 3 never
 * recovered; the mean is over the other 2) is ringed in ink, so it does
 * not read as the whole; a point without a note is not.  The ring, F / 2
 * around the point, puts dark pixels where the line and its dot (the
 * series' colour) do not reach; the legend says what a ring means. */
static double ring_y[5] = {2, 3, 5, 4, 3};
static const char *const ring_notes[5] = {
    NULL, NULL, "1 of 3 seeds never recovered", NULL, NULL};
static void ring_chart(report_lines *l, report_series *s)
{
    static double x[5] = {1, 2, 3, 4, 5};
    *s = (report_series){"immediate", x, ring_y, NULL, NULL,
                         5,           5, 0,      true, ring_notes};
    *l = (report_lines){"Recovery",
                        "load",
                        "recovery (s)",
                        s,
                        1,
                        NULL,
                        0,
                        false,
                        0,
                        6,
                        false,
                        0,
                        NULL,
                        "some seeds never recovered"};
}

static void add_ring(report *r)
{
    report_lines l;
    report_series s;
    ring_chart(&l, &s);
    report_lines_add(r, &l);
}

static char *one_chart_text(const char *name, void (*add)(report *));

START_TEST(partial_is_a_ring)
{
    report_lines l;
    report_series s;
    ring_chart(&l, &s);
    report_chart c = {REPORT_CHART_LINES, &l, NULL, NULL};
    chart_panel p;
    cairo_surface_t *img = draw_chart(&c, 600, &p);
    chart_scale xs = {1, 5, p.plot.x, p.plot.x + p.plot.w, false, false};
    static const chart_style ink = {0.16, 0.16, 0.16, 1, 1, 0};
    /* Ink in a column around each point, over the plot's upper 60 %
     * (the points at 3 and 5 of 0..6 are there; the legend and the tick
     * labels under the plot are not): the ring's arcs at point 3; at
     * point 2 only the line and its dot, in the series' colour. */
    int r = (int)(REPORT_CHART_FONT * 0.5) + 2;
    int y0 = (int)p.plot.y + 2, y1 = (int)(p.plot.y + 0.6 * p.plot.h);
    int x3 = (int)chart_scale_map(&xs, 3), x2 = (int)chart_scale_map(&xs, 2);
    int ink3 = count_colour(img, x3 - r, x3 + r + 1, y0, y1, &ink);
    int ink2 = count_colour(img, x2 - r, x2 + r + 1, y0, y1, &ink);
    ck_assert_msg(ink3 > 3, "the ring: %d ink pixels", ink3);
    ck_assert_int_eq(ink2, 0);
    cairo_surface_destroy(img);
    char *t = one_chart_text("ring", add_ring);
    ck_assert_msg(strstr(t, "ringed: some seeds never recovered"), "%s", t);
    free(t);
}
END_TEST

/* Text of a one-chart PDF made by add(r). */
static char *one_chart_text(const char *name, void (*add)(report *))
{
    char path[1100];
    snprintf(path, sizeof path, "%s/%s.pdf", tu_temp_path(name), name);
    char d[1100];
    snprintf(d, sizeof d, "%s", path);
    *strrchr(d, '/') = '\0';
    mkdir(d, 0777);
    report *r;
    sb_err e;
    ck_assert_int_eq(report_open(&r, path, NULL, name, &e), 0);
    add(r);
    ck_assert_int_eq(report_close(r, &e), 0);
    return tu_tool_output(SB_PDFTOTEXT, (const char *[]){path, "-", NULL});
}

static void add_twins(report *r)
{
    static double x[3] = {1, 2, 3}, a[3] = {5, 7, 6}, b[3] = {5, 7, 6},
                  c[3] = {5, 7, 6.5};
    report_series s[3] = {{"alpha", x, a, NULL, NULL, 3, 4, 0, false, NULL},
                          {"beta", x, b, NULL, NULL, 3, 5, 0, false, NULL},
                          {"gamma", x, c, NULL, NULL, 3, 2, 0, false, NULL}};
    report_lines l = {"Twins", "x", "y", s,     3, NULL, 0,
                      false,   NAN, NAN, false, 0, NULL, NULL};
    report_lines_add(r, &l);
}

/* Issue 18: a line hidden under an identical one said nothing.  beta
 * draws alpha's line exactly: its legend says so; gamma differs at one
 * point and does not. */
START_TEST(same_as_in_legend)
{
    char *t = one_chart_text("twins", add_twins);
    ck_assert_msg(strstr(t, "beta (same as alpha)"), "%s", t);
    ck_assert_msg(strstr(t, "gamma (same as") == NULL, "%s", t);
    free(t);
}
END_TEST

/* Issue 18: ratio axes stop at 100 %.  A t interval of 99 +- 2.5 reaches
 * 101.5, and the note above the bar wants room: the axis went to 120,
 * and a bar of 99 % stood at 82 % of the plot's height.  With the cap
 * the axis ends at 100: the bar's top is within 2 % of the plot's. */
START_TEST(share_axis_stops_at_100)
{
    static const char *labels[2] = {"a", "b"};
    static const double v[2] = {99.0, 60}, lo[2] = {96.5, 50},
                        hi[2] = {101.5, 70};
    static const char *notes[2] = {"a note above the bar", NULL};
    static const int colour[2] = {4, 5};
    report_bars b = {"Success ratio",
                     "success ratio (%)",
                     2,
                     labels,
                     v,
                     lo,
                     hi,
                     colour,
                     notes,
                     100,
                     0,
                     NULL,
                     NULL,
                     NULL};
    report_chart c = {REPORT_CHART_BARS, NULL, &b, NULL};
    int w = 600;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, 300);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    double h = report_chart_height(cr, &c, w);
    report_chart_draw(cr, &c, w, h);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    /* The plot as bars_draw lays it out: no x label, the labels' second
     * line in its place. */
    chart_axes ax = {NULL, "success ratio (%)", false, false, false};
    chart_panel p;
    chart_panel_init_axes(&p,
                          (chart_rect){0, 0, w, h - 1.5 * REPORT_CHART_FONT},
                          "Success ratio", &ax, 0, 1, 0, 1, REPORT_CHART_FONT);
    int x = (int)(p.plot.x + p.plot.w * 0.25) - 20, top = -1;
    for (int y = (int)p.plot.y; y < p.plot.y + p.plot.h && top < 0; y++)
        if (count_colour(s, x, x + 1, y, y + 1, &chart_palette[4]))
            top = y;
    ck_assert_int_ge(top, 0);
    double share = (p.plot.y + p.plot.h - top) / p.plot.h;
    ck_assert_msg(share > 0.97, "a bar of 99 %% at %.2f of the plot", share);
    cairo_surface_destroy(s);
}
END_TEST

/* How far an axis reaches, which picks the unit a report labels it in:
 * on a linear axis its nice top, chart_axis_top: 8858 (a p99 over time
 * in ms) gives a step of 2000 (the nice number nearest 8858 / 4 =
 * 2214.5) and a top of 5 steps, 10 000 -- 10 s, where a report's p99
 * turns to s; a bar whisker to 12 684 a step of 5000 (nearest 3171) and a
 * top of 15 000.  On a log axis the largest value drawn, 8791: its 1-2-5
 * end, 10 000, would turn a latency distribution that stays under 10 s
 * into s (0.002 to 10). */
START_TEST(axis_reach)
{
    static const double t[3] = {1, 2, 3}, y[3] = {400, 8858, 1200},
                        lat[3] = {3, 140, 8791}, q[3] = {50, 90, 99};
    report_series s = {"a", t, y, NULL, NULL, 3, 0, 0, false, NULL};
    report_lines l = {"p99", "time (s)", "p99 (ms)", &s,    1, NULL, 0,
                      false, NAN,        NAN,        false, 0, NULL, NULL};
    ck_assert_double_eq_tol(report_lines_reach(&l, false), 10000, 1e-9);
    /* A band above the line counts: its top 12 684 gives 15 000. */
    static const double hi[3] = {500, 12684, 1300};
    s.lo = y;
    s.hi = hi;
    ck_assert_double_eq_tol(report_lines_reach(&l, false), 15000, 1e-9);
    report_series d = {"a", lat, q, NULL, NULL, 3, 0, 0, false, NULL};
    report_lines cdf = {
        "latency", "latency (ms)", "%", &d,   1,   NULL, 0, true, 0,
        100,       false,          0,   NULL, NULL};
    ck_assert_double_eq_tol(report_lines_reach(&cdf, true), 8791, 1e-9);
    static const char *labels[2] = {"none", "fixed"};
    static const double v[2] = {495, 5436}, lo[2] = {362, 0},
                        bhi[2] = {628, 12684};
    report_bars b = {"P99", "p99 (ms)", 2, labels, v,    lo,   bhi,
                     NULL,  NULL,       0, 0,      NULL, NULL, NULL};
    ck_assert_double_eq_tol(report_bars_reach(&b), 15000, 1e-9);
}
END_TEST

/* ---- Whole or nothing
 * ------------------------------------------------------------ */

/* Names in dir (other than . and ..), joined by spaces. */
static int dir_entries(const char *dir, char *names, size_t len)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    names[0] = '\0';
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        size_t k = strlen(names);
        snprintf(names + k, len - k, "%s ", de->d_name);
        n++;
    }
    closedir(d);
    return n;
}

static void small_document(report *r)
{
    report_heading(r, 1, "Title");
    report_text(r, "text");
    add_bars(r);
}

/* The HTML's directory cannot be made (its parent is a file): the open
 * fails, saying which path, and the PDF's directory is left as it was:
 * no report.pdf, no temporary. */
START_TEST(unwritable_output)
{
    char dir[1024], pdf[1100], html[1100], blocker[1100];
    snprintf(dir, sizeof dir, "%s", tu_temp_path("unwritable"));
    mkdir(dir, 0777);
    snprintf(blocker, sizeof blocker, "%s/file", dir);
    FILE *f = fopen(blocker, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    snprintf(pdf, sizeof pdf, "%s/report.pdf", dir);
    snprintf(html, sizeof html, "%s/file/sub/report.html", dir);
    report *r = (report *)1;
    sb_err e = {{0}};
    ck_assert_int_ne(report_open(&r, pdf, html, "t", &e), 0);
    ck_assert_ptr_null(r);
    ck_assert_msg(strstr(e.msg, "report.html") != NULL, "%s", e.msg);
    char names[4096];
    ck_assert_int_eq(dir_entries(dir, names, sizeof names), 1);
    ck_assert_str_eq(names, "file ");
    /* The other way round: the PDF's directory fails. */
    snprintf(pdf, sizeof pdf, "%s/file/sub/report.pdf", dir);
    snprintf(html, sizeof html, "%s/report.html", dir);
    ck_assert_int_ne(report_open(&r, pdf, html, "t", &e), 0);
    ck_assert_int_eq(dir_entries(dir, names, sizeof names), 1);
}
END_TEST

/* The failure comes at the end: the HTML's target is a directory, so
 * its rename fails after both files were written.  The PDF, finished
 * first, must not appear either, and no temporary is left. */
START_TEST(error_at_close)
{
    char dir[1024], pdf[1100], html[1100];
    snprintf(dir, sizeof dir, "%s", tu_temp_path("at-close"));
    mkdir(dir, 0777);
    snprintf(pdf, sizeof pdf, "%s/report.pdf", dir);
    snprintf(html, sizeof html, "%s/report.html", dir);
    mkdir(html, 0777);
    report *r;
    sb_err e = {{0}};
    ck_assert_int_eq(report_open(&r, pdf, html, "t", &e), 0);
    small_document(r);
    ck_assert_int_ne(report_close(r, &e), 0);
    ck_assert_msg(strstr(e.msg, "report.html") != NULL, "%s", e.msg);
    char names[4096];
    ck_assert_int_eq(dir_entries(dir, names, sizeof names), 1);
    ck_assert_str_eq(names, "report.html ");
    struct stat st;
    ck_assert_int_eq(stat(html, &st), 0);
    ck_assert(S_ISDIR(st.st_mode));
    /* The same with the PDF's target a directory: neither appears. */
    rmdir(html);
    mkdir(pdf, 0777);
    ck_assert_int_eq(report_open(&r, pdf, html, "t", &e), 0);
    small_document(r);
    ck_assert_int_ne(report_close(r, &e), 0);
    ck_assert_int_eq(dir_entries(dir, names, sizeof names), 1);
    ck_assert_str_eq(names, "report.pdf ");
}
END_TEST

/* A caller's failure (out of memory for a chart's cells) fails the
 * document: report_close returns it and neither file appears -- a
 * report with a chart silently missing would pass for a whole one. */
START_TEST(caller_failure)
{
    char dir[1024], pdf[1100], html[1100];
    snprintf(dir, sizeof dir, "%s", tu_temp_path("caller-failure"));
    mkdir(dir, 0777);
    snprintf(pdf, sizeof pdf, "%s/report.pdf", dir);
    snprintf(html, sizeof html, "%s/report.html", dir);
    report *r;
    sb_err e = {{0}};
    ck_assert_int_eq(report_open(&r, pdf, html, "t", &e), 0);
    small_document(r);
    report_fail(r, "out of memory");
    report_fail(r, "a later error");
    small_document(r);
    ck_assert_int_ne(report_close(r, &e), 0);
    ck_assert_str_eq(e.msg, "out of memory");
    char names[4096];
    ck_assert_int_eq(dir_entries(dir, names, sizeof names), 0);
}
END_TEST

/* Either output alone; NULL for the other makes nothing of it. */
START_TEST(one_output)
{
    char dir[1024], path[1100];
    snprintf(dir, sizeof dir, "%s", tu_temp_path("one"));
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/only.html", dir);
    report *r;
    sb_err e;
    ck_assert_int_eq(report_open(&r, NULL, path, "t", &e), 0);
    small_document(r);
    ck_assert_int_eq(report_close(r, &e), 0);
    char *h = tu_read_file(path);
    ck_assert_int_eq(count(h, "<figure"), 1);
    free(h);
    snprintf(path, sizeof path, "%s/only.pdf", dir);
    ck_assert_int_eq(report_open(&r, path, NULL, "t", &e), 0);
    small_document(r);
    ck_assert_int_eq(report_close(r, &e), 0);
    char names[4096];
    ck_assert_int_eq(dir_entries(dir, names, sizeof names), 2);
    ck_assert_int_ne(report_open(&r, path, path, "t", &e), 0);
}
END_TEST

/* A test case of the given tests, added to s. */
static TCase *add_case(Suite *s, const char *name, const TTest *const *tests,
                       size_t n)
{
    TCase *tc = tcase_create(name);
    for (size_t k = 0; k < n; k++)
        tcase_add_test(tc, tests[k]);
    suite_add_tcase(s, tc);
    return tc;
}

#define ADD_CASE(s, name, ...)                                                 \
    add_case(s, name, (const TTest *const[]){__VA_ARGS__},                     \
             sizeof((const TTest *const[]){__VA_ARGS__}) / sizeof(TTest *))

Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *doc = ADD_CASE(s, "document", pdf_pages, pdf_text,
                          html_self_contained, wide_table);
    tcase_add_unchecked_fixture(doc, build_document, NULL);
    tcase_set_timeout(doc, 120);
    ADD_CASE(s, "boundary", boundary_staircase, boundary_isolated, boundary_nan,
             boundary_empty);
    ADD_CASE(s, "cells", cell_states, map_key_fits, two_of_five_is_not_healthy,
             never_is_a_bar, never_is_a_mark_on_lines, same_as_in_legend,
             share_axis_stops_at_100, partial_is_a_ring, axis_reach);
    ADD_CASE(s, "small_multiples", small_multiples_layout,
             small_multiples_share_an_axis, tier_figures_fit);
    ADD_CASE(s, "whole_or_nothing", unwritable_output, error_at_close,
             one_output, caller_failure);
    return s;
}
