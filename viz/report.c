/*
 * report.c -- the document of report.h: laid out onto A4 landscape PDF
 * pages with cairo, and written as one self-contained HTML file.
 *
 * Each block is drawn the moment it is added -- onto the current PDF page
 * and into the HTML file -- so nothing of the caller's is kept and memory
 * does not grow with the document.  The one thing held back is headings:
 * a heading waits for the block after it so the two land on one page (a
 * heading alone at the foot of a page, its table on the next, is the
 * first thing a reader notices).  The rejected alternative, building the
 * whole document in memory and laying it out at the end, would only buy
 * "page N of M" footers.
 *
 * Both outputs go to temporary files beside their targets (base/
 * outfile.h); report_close finishes both before it renames either, so an
 * error in one leaves both targets as they were.
 */
#include "compiler.h"
#include "report.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "chart.h"
#include "outfile.h"
#include "report_chart.h"
#include "report_js.h"
#include "svg_inline.h"

/* ---- Page geometry, in points ------------------------------------------- */

/* A4 is 210 x 297 mm; landscape, 841.89 x 595.28 pt.  Blocks flow between
 * TOP and BOTTOM; the footer sits below BOTTOM. */
#define PAGE_W 841.89
#define PAGE_H 595.28
#define MARGIN_X 42.0
#define TOP 36.0
#define BOTTOM (PAGE_H - 46.0)
#define TEXT_W (PAGE_W - 2 * MARGIN_X)

#define BODY_PT 10.0
#define BODY_LINE (BODY_PT * 1.4)
#define TABLE_PT 9.0
#define TABLE_MIN_PT 7.0
#define CELL_PAD_X 6.0
#define CELL_PAD_Y 2.8
#define CELL_LINES 4
#define CAPTION_PT 8.5
#define CAPTION_LINE (CAPTION_PT * 1.35)
#define FOOTER_PT 8.0

/* Space above a block, unless it opens a page or follows its heading. */
#define GAP_TEXT 6.0
#define GAP_TABLE 8.0
#define GAP_CHART 10.0

typedef struct heading_style {
    double pt, line, before, after;
} heading_style;
static const heading_style heading_styles[2] = {{17.0, 21.0, 0.0, 9.0},
                                                {12.5, 16.0, 12.0, 4.0}};

#define HELD_MAX 4

typedef struct held_heading {
    int level; /* 1 or 2 */
    char *text;
} held_heading;

struct report {
    char *title;
    bool failed;
    sb_err err; /* the first error, when failed */

    bool pdf_on;
    outfile pdf_file;
    cairo_surface_t *pdf;
    cairo_t *cr;
    int page;           /* from 1 */
    double y;           /* where the next block goes */
    bool page_used;     /* something is on this page */
    bool after_heading; /* the last thing drawn was a heading */
    held_heading held[HELD_MAX];
    int n_held;
    int outline_parent; /* the PDF outline entry of the last level 1 */

    bool html_on;
    outfile html_file;
    cairo_surface_t *measure; /* a null SVG surface: chart heights */
    cairo_t *mcr;
    int n_charts;      /* for each inline SVG's id prefix */
    svgi_page *glyphs; /* the glyph outlines the page defines */
};

static void fail(report *r, const char *fmt, ...) SB_PRINTF(2, 3);

/* Keep the first error: the later ones are usually its consequences. */
static void fail(report *r, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err.msg, sizeof r->err.msg, fmt, ap);
    va_end(ap);
}

void report_fail(report *r, const char *why)
{
    fail(r, "%s", why);
}

static bool pdf_live(const report *r)
{
    return r->pdf_on && !r->failed;
}

static bool html_live(const report *r)
{
    return r->html_on && !r->failed;
}

/* ---- PDF: pages and flow ------------------------------------------------- */

static void set_ink(cairo_t *cr, double grey)
{
    if (grey > 0)
        cairo_set_source_rgb(cr, grey, grey, grey);
    else
        cairo_set_source_rgb(cr, chart_ink.r, chart_ink.g, chart_ink.b);
}

/* One line of text cut to width, drawn as chart_text does. */
static void text_cut(cairo_t *cr, const char *text, double x, double y,
                     double width, double align)
{
    chart_line l;
    chart_wrap(cr, text, width, &l, 1);
    chart_text_line(cr, x, y, align, text, &l);
}

static void footer(report *r)
{
    cairo_t *cr = r->cr;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 0.75, 0.75, 0.75);
    cairo_set_line_width(cr, 0.5);
    cairo_move_to(cr, MARGIN_X, PAGE_H - 33);
    cairo_line_to(cr, PAGE_W - MARGIN_X, PAGE_H - 33);
    cairo_stroke(cr);
    chart_font(cr, FOOTER_PT, false);
    set_ink(cr, 0.4);
    text_cut(cr, r->title, MARGIN_X, PAGE_H - 21, TEXT_W * 0.8, 0.0);
    char buf[32];
    snprintf(buf, sizeof buf, "page %d", r->page);
    chart_text(cr, PAGE_W - MARGIN_X, PAGE_H - 21, 1.0, buf);
    cairo_restore(cr);
}

static void new_page(report *r)
{
    footer(r);
    cairo_show_page(r->cr);
    r->page++;
    r->y = TOP;
    r->page_used = false;
    r->after_heading = false;
}

/* Wrap text to width in the current font.  Returns the lines (malloc'd,
 * free them) and their count in *n, or NULL when out of memory. */
static chart_line *wrap_all(report *r, const char *text, double width, int max,
                            int *n)
{
    size_t cap = strlen(text) + 1;
    if (max > 0 && (size_t)max < cap)
        cap = (size_t)max;
    chart_line *l = malloc(cap * sizeof *l);
    if (l == NULL) {
        fail(r, "out of memory");
        return NULL;
    }
    *n = chart_wrap(r->cr, text, width, l, (int)cap);
    return l;
}

static double heading_height(report *r, const held_heading *h)
{
    const heading_style *s = &heading_styles[h->level - 1];
    chart_font(r->cr, s->pt, true);
    int n = 0;
    free(wrap_all(r, h->text, TEXT_W, 3, &n));
    return n * s->line + s->after;
}

/* A heading, and its entry in the PDF's outline (the viewer's sidebar):
 * level 2 under the last level 1. */
static void heading_draw(report *r, const held_heading *h)
{
    const heading_style *s = &heading_styles[h->level - 1];
    if (r->page_used && !r->after_heading)
        r->y += s->before;
    char link[64];
    snprintf(link, sizeof link, "page=%d pos=[%.1f %.1f]", r->page, MARGIN_X,
             r->y);
    int id = cairo_pdf_surface_add_outline(
        r->pdf, h->level == 1 ? CAIRO_PDF_OUTLINE_ROOT : r->outline_parent,
        h->text, link, h->level == 1 ? CAIRO_PDF_OUTLINE_FLAG_OPEN : 0);
    if (h->level == 1)
        r->outline_parent = id;
    chart_font(r->cr, s->pt, true);
    set_ink(r->cr, 0);
    int n = 0;
    chart_line *l = wrap_all(r, h->text, TEXT_W, 3, &n);
    for (int i = 0; l && i < n; i++)
        chart_text_line(r->cr, MARGIN_X, r->y + s->pt + i * s->line, 0.0,
                        h->text, &l[i]);
    free(l);
    r->y += n * s->line + s->after;
    r->page_used = true;
    r->after_heading = true;
}

/* Make room for a block whose first unbreakable part is h high, `gap`
 * below what is above it, and draw the held headings above it: all on
 * the current page when they fit, else all on the next.  A held level-1
 * heading always opens a page (unless this one is still empty). */
static void block_begin(report *r, double h, double gap)
{
    bool opens = false;
    double need = h;
    for (int i = 0; i < r->n_held; i++) {
        need += heading_height(r, &r->held[i]);
        if (i == 0 && r->page_used && !r->after_heading)
            need += heading_styles[r->held[i].level - 1].before;
        opens |= r->held[i].level == 1;
    }
    if (r->n_held == 0 && r->page_used && !r->after_heading)
        need += gap;
    if (r->page_used && (opens || r->y + need > BOTTOM))
        new_page(r);
    for (int i = 0; i < r->n_held; i++) {
        heading_draw(r, &r->held[i]);
        free(r->held[i].text);
    }
    r->n_held = 0;
    if (r->page_used && !r->after_heading)
        r->y += gap;
    r->after_heading = false;
}

/* ---- PDF: blocks --------------------------------------------------------- */

/* A paragraph that fits on a page is kept whole; a longer one breaks
 * between lines, its first two kept together. */
static void pdf_text(report *r, const char *text)
{
    chart_font(r->cr, BODY_PT, false);
    int n = 0;
    chart_line *l = wrap_all(r, text, TEXT_W, 0, &n);
    if (l == NULL)
        return;
    double all = n * BODY_LINE;
    block_begin(r, all <= BOTTOM - TOP ? all : 2 * BODY_LINE, GAP_TEXT);
    chart_font(r->cr, BODY_PT, false);
    set_ink(r->cr, 0);
    for (int i = 0; i < n; i++) {
        if (r->y + BODY_LINE > BOTTOM)
            new_page(r);
        chart_text_line(r->cr, MARGIN_X, r->y + BODY_PT, 0.0, text, &l[i]);
        r->y += BODY_LINE;
        r->page_used = true;
    }
    free(l);
}

static void pdf_chart(report *r, const report_chart *c)
{
    double h = report_chart_height(r->cr, c, TEXT_W);
    block_begin(r, h, GAP_CHART);
    cairo_save(r->cr);
    cairo_translate(r->cr, MARGIN_X, r->y);
    report_chart_draw(r->cr, c, TEXT_W, h);
    cairo_restore(r->cr);
    r->y += h;
    r->page_used = true;
}

/* ---- PDF: tables --------------------------------------------------------- */

typedef struct table_layout {
    const report_table *t;
    double pt;     /* the cells' text size */
    double *w;     /* n_cols column widths, padding included */
    double width;  /* their sum */
    double *row_h; /* n_rows + 1: the header's first */
} table_layout;

static const char *cell_text(const report_table *t, int row, int col)
{
    const char *s =
        row < 0 ? t->header[col] : t->cells[(size_t)row * t->n_cols + col];
    return s ? s : "";
}

static int cell_emph(const report_table *t, int row, int col)
{
    return row < 0 || t->emph == NULL ? REPORT_PLAIN
                                      : t->emph[(size_t)row * t->n_cols + col];
}

static void cell_font(cairo_t *cr, const table_layout *L, int row, int col)
{
    chart_font(cr, L->pt, row < 0 || cell_emph(L->t, row, col) == REPORT_BEST);
}

static bool right_aligned(const report_table *t, int col)
{
    return t->align ? t->align[col] == 'r' : col > 0;
}

/* The widest piece of text that wrapping cannot break: a word, or a
 * part of one between break characters (chart_wrap). */
static double widest_piece(cairo_t *cr, const char *text)
{
    char buf[256];
    double w = 0;
    size_t n = 0;
    for (const char *p = text;; p++) {
        bool ends = *p == '\0' || *p == ' ' || *p == '\n';
        if (!ends && n < sizeof buf - 1)
            buf[n++] = *p;
        if (ends || strchr(":+/,=_-", *p)) {
            buf[n] = '\0';
            w = fmax(w, chart_text_width(cr, buf));
            n = 0;
        }
        if (*p == '\0')
            return w;
    }
}

/* Each column's widest cell (into w) and widest unbreakable piece (into
 * min, at most a quarter of the text width), padding included; returns
 * the sum of w. */
static double measure_columns(report *r, table_layout *L, double *min)
{
    const report_table *t = L->t;
    double sum = 0;
    for (int c = 0; c < t->n_cols; c++) {
        L->w[c] = min[c] = 0;
        for (int row = -1; row < t->n_rows; row++) {
            const char *text = cell_text(t, row, c);
            cell_font(r->cr, L, row, c);
            L->w[c] = fmax(L->w[c], chart_text_width(r->cr, text));
            min[c] = fmax(min[c], widest_piece(r->cr, text));
        }
        L->w[c] += 2 * CELL_PAD_X;
        min[c] = fmin(min[c] + 2 * CELL_PAD_X, fmin(L->w[c], TEXT_W / 4));
        sum += L->w[c];
    }
    return sum;
}

/* The widths of columns whose widest cells are w, capped at `cap` but
 * not below their unbreakable pieces: their sum. */
static double capped_sum(const double *w, const double *min, int n, double cap)
{
    double sum = 0;
    for (int c = 0; c < n; c++)
        sum += fmax(min[c], fmin(w[c], cap));
    return sum;
}

/* Column widths.  A table too wide for the page at 9 pt is set smaller,
 * down to 7 pt, before anything wraps (a typesetter's \small: numbers
 * split over lines read worse than small ones).  If it is still too
 * wide, the widest columns are narrowed to a common width, found by
 * bisection, until the table fits: the widest are usually the text
 * (policy names, "did not recover in 2 of 5"), which wraps well, and
 * the numbers keep their lines.  No column goes below its widest
 * unbreakable piece; when even those do not fit, all shrink alike and
 * cells are cut. */
static void table_widths(report *r, table_layout *L)
{
    int n = L->t->n_cols;
    double *min = L->row_h; /* scratch: the row heights come later */
    L->pt = TABLE_PT;
    double sum_w = measure_columns(r, L, min);
    if (sum_w > TEXT_W) {
        double pad = 2 * CELL_PAD_X * n;
        L->pt = fmax(TABLE_MIN_PT,
                     TABLE_PT * (TEXT_W - pad) / fmax(sum_w - pad, 1));
        sum_w = measure_columns(r, L, min);
    }
    if (sum_w > TEXT_W) {
        double lo = 0, hi = TEXT_W;
        for (int k = 0; k < 50; k++) {
            double mid = (lo + hi) / 2;
            if (capped_sum(L->w, min, n, mid) > TEXT_W)
                hi = mid;
            else
                lo = mid;
        }
        double shrink = fmin(1, TEXT_W / capped_sum(L->w, min, n, lo));
        for (int c = 0; c < n; c++)
            L->w[c] = fmax(min[c], fmin(L->w[c], lo)) * shrink;
    }
    L->width = 0;
    for (int c = 0; c < n; c++)
        L->width += L->w[c];
}

static int cell_lines(report *r, const table_layout *L, int row, int col,
                      chart_line *l)
{
    cell_font(r->cr, L, row, col);
    return chart_wrap(r->cr, cell_text(L->t, row, col),
                      L->w[col] - 2 * CELL_PAD_X, l, CELL_LINES);
}

static double row_height(report *r, const table_layout *L, int row)
{
    chart_line l[CELL_LINES];
    int n = 1;
    for (int c = 0; c < L->t->n_cols; c++) {
        int k = cell_lines(r, L, row, c, l);
        n = k > n ? k : n;
    }
    return n * L->pt * 1.3 + 2 * CELL_PAD_Y;
}

static void rule(report *r, double y, double width, double weight)
{
    cairo_save(r->cr);
    set_ink(r->cr, 0);
    cairo_set_line_width(r->cr, weight);
    cairo_move_to(r->cr, MARGIN_X, y);
    cairo_line_to(r->cr, MARGIN_X + width, y);
    cairo_stroke(r->cr);
    cairo_restore(r->cr);
}

/* Row `row` (-1: the header) at r->y: every other body row shaded, cells
 * wrapped to their column, numbers right-aligned, emphasis as asked. */
static void row_draw(report *r, const table_layout *L, int row)
{
    const report_table *t = L->t;
    cairo_t *cr = r->cr;
    double h = L->row_h[row + 1];
    if (row >= 0 && row % 2 == 1) {
        cairo_set_source_rgb(cr, 0.95, 0.95, 0.95);
        cairo_rectangle(cr, MARGIN_X, r->y, L->width, h);
        cairo_fill(cr);
    }
    double x = MARGIN_X;
    for (int c = 0; c < t->n_cols; c++) {
        chart_line l[CELL_LINES];
        int n = cell_lines(r, L, row, c, l);
        set_ink(cr, cell_emph(t, row, c) == REPORT_MUTED ? 0.55 : 0);
        bool right = right_aligned(t, c);
        double tx = right ? x + L->w[c] - CELL_PAD_X : x + CELL_PAD_X;
        for (int i = 0; i < n; i++)
            chart_text_line(cr, tx,
                            r->y + CELL_PAD_Y + L->pt * 0.95 + i * L->pt * 1.3,
                            right ? 1.0 : 0.0, cell_text(t, row, c), &l[i]);
        x += L->w[c];
    }
    r->y += h;
    r->page_used = true;
}

static void table_header(report *r, const table_layout *L)
{
    rule(r, r->y, L->width, 0.9);
    row_draw(r, L, -1);
    rule(r, r->y, L->width, 0.5);
}

static double caption_height(report *r, const report_table *t, double width)
{
    if (t->caption == NULL || !t->caption[0])
        return 0.0;
    chart_font(r->cr, CAPTION_PT, false);
    int n = 0;
    free(wrap_all(r, t->caption, width, 0, &n));
    return 4.0 + n * CAPTION_LINE;
}

static void caption_draw(report *r, const report_table *t, double width)
{
    if (t->caption == NULL || !t->caption[0])
        return;
    chart_font(r->cr, CAPTION_PT, false);
    set_ink(r->cr, 0.35);
    int n = 0;
    chart_line *l = wrap_all(r, t->caption, width, 0, &n);
    for (int i = 0; l && i < n; i++)
        chart_text_line(r->cr, MARGIN_X,
                        r->y + 4.0 + CAPTION_PT + i * CAPTION_LINE, 0.0,
                        t->caption, &l[i]);
    free(l);
    r->y += 4.0 + n * CAPTION_LINE;
}

/* The rows flow down the pages; a row that does not fit (with the
 * caption, after the last row) goes to the next page under the header
 * drawn again.  A table that fits on one page starts on a new page
 * rather than break; a longer one starts where it is. */
static void table_flow(report *r, table_layout *L)
{
    const report_table *t = L->t;
    double cw = fmax(L->width, TEXT_W * 0.5);
    double cap = caption_height(r, t, cw), all = cap;
    for (int row = -1; row < t->n_rows; row++)
        all += L->row_h[row + 1];
    double first = L->row_h[0] + (t->n_rows > 0 ? L->row_h[1] : 0);
    block_begin(r, all <= BOTTOM - TOP ? all : first, GAP_TABLE);
    table_header(r, L);
    for (int row = 0; row < t->n_rows; row++) {
        double need = L->row_h[row + 1] + (row == t->n_rows - 1 ? cap : 0);
        if (r->y + need > BOTTOM) {
            rule(r, r->y, L->width, 0.9);
            new_page(r);
            table_header(r, L);
        }
        row_draw(r, L, row);
    }
    rule(r, r->y, L->width, 0.9);
    caption_draw(r, t, cw);
}

static void pdf_table(report *r, const report_table *t)
{
    table_layout L = {t, TABLE_PT, NULL, 0, NULL};
    size_t n_h = (size_t)(t->n_rows > t->n_cols ? t->n_rows : t->n_cols) + 1;
    L.w = malloc((size_t)t->n_cols * sizeof *L.w);
    L.row_h = malloc(n_h * sizeof *L.row_h);
    if (L.w == NULL || L.row_h == NULL) {
        fail(r, "out of memory");
    } else {
        table_widths(r, &L);
        for (int row = -1; row < t->n_rows; row++)
            L.row_h[row + 1] = row_height(r, &L, row);
        table_flow(r, &L);
    }
    free(L.w);
    free(L.row_h);
}

/* ---- HTML ---------------------------------------------------------------- */

static void html(report *r, const char *s)
{
    fputs(s, r->html_file.f);
}

/* What c is written as in HTML text: an entity for & < > " ', a line
 * break (or a space) for a newline; NULL for itself. */
static const char *html_entity(char c, bool breaks)
{
    static const char *const ent[][2] = {{"&", "&amp;"},
                                         {"<", "&lt;"},
                                         {">", "&gt;"},
                                         {"\"", "&quot;"},
                                         {"'", "&#39;"}};
    if (c == '\n')
        return breaks ? "<br>\n" : " ";
    for (size_t k = 0; k < sizeof ent / sizeof *ent; k++)
        if (c == ent[k][0][0])
            return ent[k][1];
    return NULL;
}

/* text escaped; newlines as <br> when `breaks`. */
static void html_text(report *r, const char *s, bool breaks)
{
    for (; *s; s++) {
        const char *e = html_entity(*s, breaks);
        if (e)
            html(r, e);
        else
            fputc(*s, r->html_file.f);
    }
}

/* The only styling: no font, image or sheet is fetched. */
static const char html_style[] =
    "body{font-family:'DejaVu Sans',Verdana,sans-serif;color:#282828;"
    "max-width:1120px;margin:2em auto;padding:0 1.5em;line-height:1.45}\n"
    "h1{font-size:1.55em;margin:1.8em 0 .5em;padding-bottom:.2em;"
    "border-bottom:1px solid #bbb}\n"
    "h2{font-size:1.15em;margin:1.5em 0 .4em}\n"
    "table{border-collapse:collapse;margin:.8em 0 1.2em;font-size:.88em;"
    "border-top:1.5px solid #282828;border-bottom:1.5px solid #282828}\n"
    "caption{caption-side:bottom;text-align:left;color:#595959;"
    "font-size:.92em;padding-top:.45em}\n"
    "th,td{padding:.25em .65em;vertical-align:top;text-align:left}\n"
    "thead th{border-bottom:1px solid #282828}\n"
    ".tw{overflow-x:auto}\n"
    "tbody tr:nth-child(even){background:#f2f2f2}\n"
    ".r{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".best{font-weight:bold}\n.muted{color:#8c8c8c}\n"
    "figure{margin:1.2em 0;position:relative}\n"
    "figure svg{display:block;width:100%;height:auto}\n"
    ".sbc-plot{position:relative}\n"
    ".sbc-plot svg+svg{position:absolute;left:0;top:0;height:100%}\n"
    ".sbc-ui{cursor:crosshair}\n"
    ".sbc-legend{display:flex;flex-wrap:wrap;gap:.1em 1em;"
    "margin:.2em 0 0 4.5em;font-size:.8em}\n"
    ".sbc-legend button{font:inherit;color:inherit;background:none;"
    "border:0;padding:.1em .2em;cursor:pointer}\n"
    ".sbc-legend button[aria-pressed=false]{opacity:.4;"
    "text-decoration:line-through}\n"
    ".sbc-legend svg{display:inline;width:2.2em;height:.8em;"
    "vertical-align:middle;margin-right:.35em}\n"
    ".sbc-reset{font:inherit;font-size:.8em;margin-left:4.5em}\n"
    ".sbc-tip{position:absolute;z-index:2;pointer-events:none;"
    "background:rgba(255,255,255,.96);border:1px solid #999;"
    "padding:.3em .55em;font-size:.8em;white-space:nowrap;"
    "box-shadow:0 1px 4px rgba(0,0,0,.2)}\n"
    ".sbc-sw{display:inline-block;width:.8em;height:.8em;"
    "margin-right:.4em;vertical-align:-.05em}\n"
    ".sbc-hint{color:#767676;font-size:.75em;margin:.2em 0 0 5.6em}\n";

static void html_begin(report *r)
{
    html(r, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
            "<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
            "content=\"width=device-width, initial-scale=1\">\n<title>");
    html_text(r, r->title, false);
    html(r, "</title>\n<style>\n");
    html(r, html_style);
    html(r, "</style>\n</head>\n<body>\n");
}

/* A table wider than the page (ten metrics' columns in a narrow window)
 * scrolls in its own box: the page itself never scrolls sideways. */
static void html_table(report *r, const report_table *t)
{
    html(r, "<div class=\"tw\"><table>\n");
    if (t->caption && t->caption[0]) {
        html(r, "<caption>");
        html_text(r, t->caption, true);
        html(r, "</caption>\n");
    }
    html(r, "<thead><tr>");
    for (int c = 0; c < t->n_cols; c++) {
        html(r, right_aligned(t, c) ? "<th class=\"r\">" : "<th>");
        html_text(r, cell_text(t, -1, c), true);
        html(r, "</th>");
    }
    html(r, "</tr></thead>\n<tbody>\n");
    for (int row = 0; row < t->n_rows; row++) {
        html(r, "<tr>");
        for (int c = 0; c < t->n_cols; c++) {
            int em = cell_emph(t, row, c);
            fprintf(r->html_file.f, "<td class=\"%s%s\">",
                    right_aligned(t, c) ? "r" : "l",
                    em == REPORT_BEST    ? " best"
                    : em == REPORT_MUTED ? " muted"
                                         : "");
            html_text(r, cell_text(t, row, c), true);
            html(r, "</td>");
        }
        html(r, "</tr>\n");
    }
    html(r, "</tbody>\n</table></div>\n");
}

/* cairo's SVG output, gathered in memory. */
typedef struct membuf {
    char *data;
    size_t len, cap;
    bool oom;
} membuf;

static cairo_status_t membuf_write(void *closure, const unsigned char *data,
                                   unsigned int len)
{
    membuf *b = closure;
    if (b->len + len + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 65536) + len;
        char *d = realloc(b->data, cap);
        if (d == NULL) {
            b->oom = true;
            return CAIRO_STATUS_NO_MEMORY;
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return CAIRO_STATUS_SUCCESS;
}

/* Copy an <svg> element, from just after its "<svg", into the page with
 * every id, and every reference to one, prefixed by the chart's number
 * and the layer's: cairo numbers its clips and gradients from 1 in each
 * SVG, and ids are global to an HTML page, so two inline charts (or two
 * layers of one) would otherwise use each other's.  Glyphs are shared by
 * the whole page and numbers rounded to a hundredth of a point
 * (svg_inline.h: that halves a report's size). */
static void html_svg(report *r, const char *svg, int layer)
{
    char prefix[32];
    snprintf(prefix, sizeof prefix, "c%d-%d-", r->n_charts, layer + 2);
    if (svgi_write(r->glyphs, r->html_file.f, svg, prefix) != 0)
        fail(r, "out of memory");
}

/* Layer `layer` of a chart drawn on cairo's SVG surface, into memory
 * (b->data, free it); false after an error, which is kept. */
static bool svg_draw(report *r, const report_chart *c, double h, int layer,
                     membuf *b)
{
    *b = (membuf){NULL, 0, 0, false};
    cairo_surface_t *s =
        cairo_svg_surface_create_for_stream(membuf_write, b, TEXT_W, h);
    cairo_t *cr = cairo_create(s);
    report_chart_draw_layer(cr, c, TEXT_W, h, layer);
    cairo_status_t st = cairo_status(cr);
    cairo_destroy(cr);
    cairo_surface_finish(s);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(s);
    cairo_surface_destroy(s);
    if (st != CAIRO_STATUS_SUCCESS || b->oom || b->data == NULL) {
        fail(r, "%s: drawing a chart: %s", r->html_file.path,
             b->oom ? "out of memory" : cairo_status_to_string(st));
        return false;
    }
    return true;
}

/* Inline layer `layer` as an <svg> with the given attributes added to
 * its tag (its ids prefixed as html_svg does, with the layer too). */
static void svg_layer(report *r, const report_chart *c, double h, int layer,
                      const char *attrs)
{
    membuf b;
    if (svg_draw(r, c, h, layer, &b)) {
        const char *svg = strstr(b.data, "<svg");
        if (svg) {
            html(r, "<svg ");
            html(r, attrs);
            html_svg(r, svg + 4, layer);
        }
    }
    free(b.data);
}

/* The overlay the script draws on: the chart's size, its plot clipped
 * (a zoomed chart's drawing stays inside). */
static void svg_ui_open(report *r, double h, const chart_rect *plot)
{
    fprintf(r->html_file.f,
            "<svg class=\"sbc-ui\" xmlns=\"http://www.w3.org/2000/svg\" "
            "viewBox=\"0 0 %.2f %.2f\"><defs><clipPath id=\"sbc-%d-clip\">"
            "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/>"
            "</clipPath></defs>",
            TEXT_W, h, r->n_charts, plot ? plot->x : 0, plot ? plot->y : 0,
            plot ? plot->w : 0, plot ? plot->h : 0);
}

/* A legend entry's swatch: its line, dashed as drawn. */
static void legend_swatch(report *r, const char *colour, int dash)
{
    fprintf(r->html_file.f,
            "<svg viewBox=\"0 0 22 8\" aria-hidden=\"true\"><line x1=\"1\" "
            "y1=\"4\" x2=\"21\" y2=\"4\" stroke=\"%s\" stroke-width=\"2.5\"%s/>"
            "</svg>",
            colour,
            dash == 1   ? " stroke-dasharray=\"5 3\""
            : dash == 2 ? " stroke-dasharray=\"1.5 3\""
                        : "");
}

/* Without the script a line chart has no line: where to see them. */
static void html_noscript(report *r)
{
    const char *pdf = r->pdf_on ? strrchr(r->pdf_file.path, '/') : NULL;
    pdf = pdf ? pdf + 1 : r->pdf_on ? r->pdf_file.path : NULL;
    html(r, "<noscript><p class=\"sbc-hint\">This chart's lines are drawn "
            "by the page's script, which is off here");
    if (pdf) {
        html(r, "; ");
        html_text(r, pdf, false);
        html(r, ", written with this page, has them");
    }
    html(r, ".</p></noscript>\n");
}

/* A line chart: its frame (axes, grid, title, spans) as cairo drew it,
 * the overlay the script draws the lines on from the data (each series
 * shipped once: as a drawing too, it doubled a 5-policy report's
 * lines), an HTML legend of buttons, the tooltip and the data. */
static void html_lines(report *r, const report_chart *c)
{
    const report_lines *l = c->lines;
    double h = report_chart_layers_height(r->mcr, c, TEXT_W);
    fprintf(r->html_file.f, "<div class=\"sbc-plot\">\n");
    svg_layer(r, c, h, REPORT_LAYER_FRAME, "class=\"sbc-frame\"");
    chart_rect plot = report_lines_plot(l, TEXT_W, h);
    svg_ui_open(r, h, &plot);
    html(r, "</svg>\n</div>\n<div class=\"sbc-legend\">");
    for (int k = 0; k < l->n_series; k++) {
        char colour[8], label[400];
        report_lines_colour(l, k, colour);
        fprintf(r->html_file.f,
                "<button type=\"button\" data-s=\"%d\" "
                "aria-pressed=\"true\" title=\"show or hide\">",
                k);
        legend_swatch(r, colour, l->series[k].dash);
        html_text(r, report_lines_label(l, k, label, sizeof label), false);
        html(r, "</button>");
    }
    char never[400];
    if (report_lines_never_label(l, never, sizeof never)) {
        html(r, "<span>");
        html_text(r, never, false);
        html(r, "</span>");
    }
    html(r, "</div>\n<button type=\"button\" class=\"sbc-reset\" hidden>"
            "reset zoom</button>\n<p class=\"sbc-hint\">Hover for values; "
            "click a legend entry to hide its line; drag across the chart to "
            "zoom, double-click to zoom out.</p>\n"
            "<div class=\"sbc-tip\" hidden></div>\n");
    html_noscript(r);
    html(r, "<script type=\"application/json\" class=\"sbc-data\">");
    report_lines_json(r->html_file.f, r->mcr, l, TEXT_W, h);
    html(r, "</script>\n");
}

/* A bar chart or a map: the picture, and over it a region per bar or
 * cell that the script tells about on hover. */
static void html_regions(report *r, const report_chart *c)
{
    double h = report_chart_height(r->mcr, c, TEXT_W);
    html(r, "<div class=\"sbc-plot\">\n");
    svg_layer(r, c, h, REPORT_LAYER_ALL, "class=\"sbc-frame\"");
    svg_ui_open(r, h, NULL);
    enum { MAX_REGIONS = 4096 };
    report_region *reg = malloc(MAX_REGIONS * sizeof *reg);
    if (reg == NULL) {
        /* Without its regions the chart would lose its hover values
         * silently: a different file, not a smaller one. */
        fail(r, "out of memory");
        return;
    }
    int n = report_chart_regions(r->mcr, c, TEXT_W, h, reg, MAX_REGIONS);
    for (int k = 0; k < n; k++) {
        fprintf(r->html_file.f,
                "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                "height=\"%.2f\" fill=\"transparent\" data-tip=\"",
                reg[k].r.x, reg[k].r.y, reg[k].r.w, reg[k].r.h);
        html_text(r, reg[k].text, false);
        html(r, "\"/>");
    }
    free(reg);
    html(r, "</svg>\n</div>\n<div class=\"sbc-tip\" hidden></div>\n");
}

/* A chart as a <figure class="sbc"> the script makes interactive. */
static void html_chart(report *r, const report_chart *c)
{
    r->n_charts++;
    fprintf(r->html_file.f,
            "<figure class=\"sbc\" id=\"sbc-%d\" "
            "aria-label=\"",
            r->n_charts);
    html_text(r, report_chart_title(c), false);
    html(r, "\">\n");
    if (c->kind == REPORT_CHART_LINES)
        html_lines(r, c);
    else
        html_regions(r, c);
    html(r, "</figure>\n");
}

/* ---- The document -------------------------------------------------------- */

static cairo_status_t file_write(void *closure, const unsigned char *data,
                                 unsigned int len)
{
    return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS
                                                : CAIRO_STATUS_WRITE_ERROR;
}

/* The document's date under SOURCE_DATE_EPOCH (reproducible-builds.org:
 * whole seconds since 1970, UTC), as cairo's metadata takes it; false
 * when it is not set or not a number, and cairo stamps the time now. */
static bool source_date(char *buf, size_t len)
{
    const char *env = getenv("SOURCE_DATE_EPOCH");
    if (env == NULL || *env == '\0')
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(env, &end, 10);
    if (*end != '\0' || errno || v < 0)
        return false;
    time_t t = (time_t)v;
    struct tm tm;
    if (gmtime_r(&t, &tm) == NULL)
        return false;
    return strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0;
}

static int pdf_open(report *r, const char *path, sb_err *e)
{
    if (outfile_open(&r->pdf_file, path, e) != 0)
        return -1;
    r->pdf_on = true;
    r->pdf = cairo_pdf_surface_create_for_stream(file_write, r->pdf_file.f,
                                                 PAGE_W, PAGE_H);
    cairo_pdf_surface_set_metadata(r->pdf, CAIRO_PDF_METADATA_TITLE, r->title);
    cairo_pdf_surface_set_metadata(r->pdf, CAIRO_PDF_METADATA_CREATOR,
                                   "stormbench " SB_VERSION);
    char date[32];
    if (source_date(date, sizeof date)) {
        cairo_pdf_surface_set_metadata(r->pdf, CAIRO_PDF_METADATA_CREATE_DATE,
                                       date);
        cairo_pdf_surface_set_metadata(r->pdf, CAIRO_PDF_METADATA_MOD_DATE,
                                       date);
    }
    r->cr = cairo_create(r->pdf);
    if (cairo_status(r->cr) != CAIRO_STATUS_SUCCESS)
        return err_set(e, "%s: %s", path,
                       cairo_status_to_string(cairo_status(r->cr)));
    r->page = 1;
    r->y = TOP;
    return 0;
}

static int html_open(report *r, const char *path, sb_err *e)
{
    if (outfile_open(&r->html_file, path, e) != 0)
        return -1;
    r->html_on = true;
    r->glyphs = svgi_page_create();
    if (r->glyphs == NULL)
        return err_set(e, "out of memory");
    r->measure = cairo_svg_surface_create_for_stream(NULL, NULL, TEXT_W, 100);
    r->mcr = cairo_create(r->measure);
    if (cairo_status(r->mcr) != CAIRO_STATUS_SUCCESS)
        return err_set(e, "%s: %s", path,
                       cairo_status_to_string(cairo_status(r->mcr)));
    html_begin(r);
    return 0;
}

/* Free everything, removing the temporaries that are left.  cairo is
 * torn down first: destroying the PDF surface still writes to its file.
 * cairo's destroy functions take NULL, and outfile_abort a zeroed
 * outfile, so this serves a half-opened report too. */
static void discard(report *r)
{
    cairo_destroy(r->cr);
    cairo_surface_destroy(r->pdf);
    cairo_destroy(r->mcr);
    cairo_surface_destroy(r->measure);
    outfile_abort(&r->pdf_file);
    outfile_abort(&r->html_file);
    svgi_page_destroy(r->glyphs);
    for (int i = 0; i < r->n_held; i++)
        free(r->held[i].text);
    free(r->title);
    free(r);
}

int report_open(report **out, const char *pdf_path, const char *html_path,
                const char *title, sb_err *e)
{
    *out = NULL;
    if (pdf_path && html_path && strcmp(pdf_path, html_path) == 0)
        return err_set(e, "%s: the PDF and the HTML cannot be one file",
                       pdf_path);
    report *r = calloc(1, sizeof *r);
    if (r == NULL)
        return err_set(e, "out of memory");
    r->title = strdup(title ? title : "");
    if (r->title == NULL) {
        free(r);
        return err_set(e, "out of memory");
    }
    if ((pdf_path && pdf_open(r, pdf_path, e) != 0) ||
        (html_path && html_open(r, html_path, e) != 0)) {
        discard(r);
        return -1;
    }
    *out = r;
    return 0;
}

/* Headings wait for their block (block_begin); a level 1 first lets the
 * ones before it go, so it opens its page at the top. */
void report_heading(report *r, int level, const char *text)
{
    level = level <= 1 ? 1 : 2;
    if (html_live(r)) {
        html(r, level == 1 ? "<h1>" : "<h2>");
        html_text(r, text, false);
        html(r, level == 1 ? "</h1>\n" : "</h2>\n");
    }
    if (!pdf_live(r))
        return;
    if (r->n_held == HELD_MAX || (level == 1 && r->n_held > 0))
        block_begin(r, 0, 0);
    char *copy = strdup(text);
    if (copy == NULL) {
        fail(r, "out of memory");
        return;
    }
    held_heading *h = &r->held[r->n_held++];
    h->level = level;
    h->text = copy; /* freed when the heading is placed or discarded */
}

void report_text(report *r, const char *text)
{
    if (html_live(r)) {
        html(r, "<p>");
        html_text(r, text, true);
        html(r, "</p>\n");
    }
    if (pdf_live(r))
        pdf_text(r, text);
}

void report_page_break(report *r)
{
    if (pdf_live(r) && r->page_used)
        new_page(r);
}

void report_table_add(report *r, const report_table *t)
{
    if (t->n_cols <= 0)
        return;
    if (html_live(r))
        html_table(r, t);
    if (pdf_live(r))
        pdf_table(r, t);
}

static void chart_add(report *r, const report_chart *c)
{
    if (html_live(r))
        html_chart(r, c);
    if (pdf_live(r))
        pdf_chart(r, c);
}

void report_lines_add(report *r, const report_lines *c)
{
    chart_add(r, &(report_chart){REPORT_CHART_LINES, c, NULL, NULL});
}

void report_bars_add(report *r, const report_bars *c)
{
    chart_add(r, &(report_chart){REPORT_CHART_BARS, NULL, c, NULL});
}

void report_map_add(report *r, const report_map *c)
{
    chart_add(r, &(report_chart){REPORT_CHART_MAP, NULL, NULL, c});
}

/* The last page's footer, then the PDF's trailer, written through cairo
 * into the temporary file. */
static void pdf_end(report *r)
{
    if (r->n_held > 0)
        block_begin(r, 0, 0);
    footer(r);
    cairo_show_page(r->cr);
    cairo_status_t st = cairo_status(r->cr);
    cairo_destroy(r->cr);
    r->cr = NULL;
    cairo_surface_finish(r->pdf);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(r->pdf);
    cairo_surface_destroy(r->pdf);
    r->pdf = NULL;
    if (st != CAIRO_STATUS_SUCCESS)
        fail(r, "%s: %s", r->pdf_file.path, cairo_status_to_string(st));
}

/* Both files are finished (written, synced, closed) before either is
 * renamed.  If the second rename still fails, a first target that did
 * not exist before is removed again; one that did has been replaced and
 * cannot be brought back. */
static void commit(report *r)
{
    if (r->pdf_on && outfile_finish(&r->pdf_file, &r->err) != 0)
        r->failed = true;
    if (!r->failed && r->html_on && outfile_finish(&r->html_file, &r->err) != 0)
        r->failed = true;
    if (r->failed)
        return;
    bool pdf_new = r->pdf_on && access(r->pdf_file.path, F_OK) != 0;
    if (r->pdf_on && outfile_commit(&r->pdf_file, &r->err) != 0) {
        r->failed = true;
    } else if (r->html_on && outfile_commit(&r->html_file, &r->err) != 0) {
        r->failed = true;
        if (pdf_new)
            unlink(r->pdf_file.path);
    }
}

int report_close(report *r, sb_err *e)
{
    if (r == NULL)
        return 0;
    if (pdf_live(r))
        pdf_end(r);
    if (html_live(r)) {
        html(r, "<script>\n");
        html(r, report_js);
        html(r, "</script>\n</body>\n</html>\n");
    }
    if (!r->failed)
        commit(r);
    int status = 0;
    if (r->failed) {
        status = -1;
        if (e)
            snprintf(e->msg, sizeof e->msg, "%s", r->err.msg);
    }
    discard(r);
    return status;
}
