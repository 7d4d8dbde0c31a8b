/*
 * svg_inline.c -- cairo's SVG rewritten for inlining (svg_inline.h).
 *
 * A scan, not a parser: cairo's SVG writer (1.16 to 1.18) is the only
 * input, and it always spells the pieces read here the same way: glyphs
 * as <symbol overflow="visible" id="glyphF-G"> ... </symbol>, references
 * as xlink:href="#..." and url(#...), path data and positions in
 * attributes written as ` d="`, ` x="`, ` y="`.  Anything else is copied.
 */
#include "svg_inline.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The page's outlines, in the order they were defined: glyph n is
 * "sbg<n>".  Linear search: a report has a few hundred at most (one per
 * character, size and weight), and each SVG looks up only its own. */
struct svgi_page {
    char **glyph;
    size_t n, cap;
};

svgi_page *svgi_page_create(void)
{
    return calloc(1, sizeof(svgi_page));
}

void svgi_page_destroy(svgi_page *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->n; i++)
        free(p->glyph[i]);
    free(p->glyph);
    free(p);
}

const char *svgi_round(const char *s, size_t n, char out[32])
{
    char tok[32];
    if (n >= sizeof tok)
        n = sizeof tok - 1;
    memcpy(tok, s, n);
    tok[n] = '\0';
    char *end;
    double v = strtod(tok, &end);
    if (n == 0 || *end != '\0') {
        memcpy(out, tok, n + 1);
        return out;
    }
    snprintf(out, 32, "%.2f", v);
    char *dot = strchr(out, '.');
    if (dot) {
        char *z = out + strlen(out);
        while (z > dot + 1 && z[-1] == '0')
            *--z = '\0';
        if (z == dot + 1)
            *dot = '\0';
    }
    if (strcmp(out, "-0") == 0)
        out[0] = '0', out[1] = '\0';
    return out;
}

static bool number_char(char c)
{
    return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' ||
           c == 'e' || c == 'E';
}

/* s up to the closing quote, its numbers rounded; returns the quote (or
 * the string's end). */
static const char *write_rounded(FILE *f, const char *s)
{
    char buf[32];
    while (*s && *s != '"') {
        if (!number_char(*s)) {
            fputc(*s++, f);
            continue;
        }
        const char *e = s;
        while (number_char(*e))
            e++;
        fputs(svgi_round(s, (size_t)(e - s), buf), f);
        s = e;
    }
    return s;
}

/* ---- Path data ------------------------------------------------------------
 * cairo writes absolute commands with six decimals: "M 52.25 135.480469
 * L 54.558594 133.933594 ...", fifteen bytes a point.  Rewritten in
 * hundredths of a point, relative after the first move ("l2.31-1.55
 * 2.31 3.89", nine or ten), and a point of a straight run dropped when it
 * lies within TOLERANCE of the segment drawn instead (flat stretches of a
 * series, a band's edges).  Relative steps are differences of
 * rounded positions, so they add up to the rounded positions exactly: no
 * drift along a 600-point band. */

/* A point dropped from a straight run lies within 0.1 pt of the segment
 * drawn instead: 0.15 px at the page's widest, under the antialiasing
 * of a 2 pt line. */
#define TOLERANCE 10.0 /* hundredths of a point */
/* Positions are kept to these steps, in hundredths: a glyph's outline
 * to 0.01 pt (it is 6 pt tall, and a browser zooms it), the charts' own
 * paths to 0.05 pt (0.07 px at the page's widest). */
#define GLYPH_STEP 1
#define PLOT_STEP 5
/* At most this many points are held back while a run stays straight
 * (each new point is checked against all of them). */
#define HELD 64

typedef struct pen {
    FILE *f;
    long cx, cy;    /* the current point */
    long sx, sy;    /* the subpath's start, where Z returns */
    char cmd;       /* the command last written, 0 none */
    bool after_num; /* the last thing written was a number */
    long kx, ky;    /* a straight run: its last point written */
    long hx[HELD], hy[HELD];
    int held; /* points after k, the last the run's end so far */
} pen;

static void pen_num(pen *p, long v)
{
    if (p->after_num && v >= 0)
        fputc(' ', p->f);
    long a = v < 0 ? -v : v;
    if (a % 100 == 0)
        fprintf(p->f, "%s%ld", v < 0 ? "-" : "", a / 100);
    else if (a % 10 == 0)
        fprintf(p->f, "%s%ld.%ld", v < 0 ? "-" : "", a / 100, a / 10 % 10);
    else
        fprintf(p->f, "%s%ld.%02ld", v < 0 ? "-" : "", a / 100, a % 100);
    p->after_num = true;
}

static void pen_cmd(pen *p, char c)
{
    if (p->cmd == c && c != 'M' && c != 'Z')
        return; /* repeated: SVG lets the letter go */
    fputc(c, p->f);
    p->cmd = c;
    p->after_num = false;
}

static void line_to(pen *p, long x, long y)
{
    pen_cmd(p, 'l');
    pen_num(p, x - p->cx);
    pen_num(p, y - p->cy);
    p->cx = x;
    p->cy = y;
}

/* Distance from (x, y) to the segment a-b, in hundredths. */
static double off_segment(long x, long y, long ax, long ay, long bx, long by)
{
    double dx = (double)(bx - ax), dy = (double)(by - ay);
    double px = (double)(x - ax), py = (double)(y - ay);
    double l2 = dx * dx + dy * dy;
    double t = l2 > 0 ? (px * dx + py * dy) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double ex = px - t * dx, ey = py - t * dy;
    return sqrt(ex * ex + ey * ey);
}

/* The run's end so far written; what it stood for is dropped. */
static void run_flush(pen *p)
{
    if (p->held == 0)
        return;
    line_to(p, p->hx[p->held - 1], p->hy[p->held - 1]);
    p->kx = p->cx;
    p->ky = p->cy;
    p->held = 0;
}

/* A point of a straight run: held while every point since the last one
 * written stays within TOLERANCE of the segment to it. */
static void run_add(pen *p, long x, long y)
{
    if (p->held == 0) {
        p->kx = p->cx;
        p->ky = p->cy;
    }
    bool straight = p->held < HELD;
    for (int i = 0; straight && i < p->held; i++)
        straight =
            off_segment(p->hx[i], p->hy[i], p->kx, p->ky, x, y) <= TOLERANCE;
    if (!straight)
        run_flush(p);
    p->hx[p->held] = x;
    p->hy[p->held] = y;
    p->held++;
}

static bool path_number(const char **s, long q, long *v)
{
    while (**s == ' ' || **s == ',')
        (*s)++;
    char *end;
    double d = strtod(*s, &end);
    if (end == *s || !isfinite(d) || fabs(d) > 1e12)
        return false;
    *s = end;
    *v = lround(d * 100 / (double)q) * q;
    return true;
}

/* Path data from s to its closing quote, rewritten; NULL when it is not
 * made of M, L, C and Z alone (the caller then only rounds it). */
static const char *write_path(FILE *f, const char *s, long q)
{
    pen p = {f, 0, 0, 0, 0, 0, false, 0, 0, {0}, {0}, 0};
    long v[6];
    for (;;) {
        while (*s == ' ')
            s++;
        char c = *s;
        if (c == '"' || c == '\0')
            break;
        s++;
        int n = c == 'M' || c == 'L' ? 2 : c == 'C' ? 6 : c == 'Z' ? 0 : -1;
        if (n < 0)
            return NULL;
        for (int i = 0; i < n; i++)
            if (!path_number(&s, q, &v[i]))
                return NULL;
        if (c == 'L') {
            run_add(&p, v[0], v[1]);
            continue;
        }
        run_flush(&p);
        if (c == 'M') {
            pen_cmd(&p, 'M');
            pen_num(&p, v[0]);
            pen_num(&p, v[1]);
            p.cx = p.sx = v[0];
            p.cy = p.sy = v[1];
        } else if (c == 'C') {
            pen_cmd(&p, 'c');
            for (int i = 0; i < 6; i++)
                pen_num(&p, v[i] - (i % 2 ? p.cy : p.cx));
            p.cx = v[4];
            p.cy = v[5];
        } else {
            pen_cmd(&p, 'Z');
            p.cx = p.sx;
            p.cy = p.sy;
        }
    }
    run_flush(&p);
    return s;
}

/* Path data: compacted when it can be, else rounded. */
static const char *write_d(FILE *f, const char *s, long step)
{
    /* Checked before anything is written: only M, L, C, Z and numbers. */
    const char *e = s + strcspn(s, "\"");
    for (const char *c = s; c < e; c++)
        if (!number_char(*c) && *c != ' ' && *c != 'M' && *c != 'L' &&
            *c != 'C' && *c != 'Z')
            return write_rounded(f, s);
    const char *end = write_path(f, s, step);
    return end ? end : e;
}

/* A local glyph id and the page's number for it. */
typedef struct local_glyph {
    char id[32];
    size_t n;
} local_glyph;

typedef struct scan {
    svgi_page *page;
    FILE *f;
    const char *prefix;
    local_glyph *local;
    size_t n_local, cap_local;
} scan;

static bool glyph_remember(scan *sc, const char *id, size_t len, size_t n)
{
    if (sc->n_local == sc->cap_local) {
        size_t cap = sc->cap_local ? sc->cap_local * 2 : 64;
        local_glyph *l = realloc(sc->local, cap * sizeof *l);
        if (l == NULL)
            return false;
        sc->local = l;
        sc->cap_local = cap;
    }
    local_glyph *g = &sc->local[sc->n_local++];
    if (len >= sizeof g->id)
        len = sizeof g->id - 1;
    memcpy(g->id, id, len);
    g->id[len] = '\0';
    g->n = n;
    return true;
}

static const local_glyph *glyph_find(const scan *sc, const char *id, size_t len)
{
    for (size_t i = 0; i < sc->n_local; i++)
        if (strlen(sc->local[i].id) == len &&
            memcmp(sc->local[i].id, id, len) == 0)
            return &sc->local[i];
    return NULL;
}

/* The page's number for an outline (its text, rounded), defining it
 * when new; -1 when out of memory. */
static long page_glyph(svgi_page *p, char *text, bool *is_new)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->glyph[i], text) == 0) {
            free(text);
            *is_new = false;
            return (long)i;
        }
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 128;
        char **g = realloc(p->glyph, cap * sizeof *g);
        if (g == NULL) {
            free(text);
            return -1;
        }
        p->glyph = g;
        p->cap = cap;
    }
    p->glyph[p->n] = text;
    *is_new = true;
    return (long)p->n++;
}

/* The outline between a <symbol>'s tags, rounded, as a new string. */
static char *outline_text(const char *from, const char *to)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m == NULL)
        return NULL;
    for (const char *s = from; s < to;) {
        const char *d = strstr(s, " d=\"");
        if (d == NULL || d >= to) {
            fwrite(s, 1, (size_t)(to - s), m);
            break;
        }
        fwrite(s, 1, (size_t)(d - s) + 4, m);
        s = write_d(m, d + 4, GLYPH_STEP);
    }
    bool bad = ferror(m) != 0;
    if (fclose(m) != 0 || bad) {
        free(text);
        return NULL;
    }
    return text;
}

/* A <symbol> at s: its definition when the page has none like it, and
 * its id remembered either way.  Returns where the scan goes on (past
 * the symbol and its newline), or NULL when out of memory; s itself
 * when it is not a glyph cairo wrote. */
static const char *symbol(scan *sc, const char *s)
{
    const char *open_end = strchr(s, '>');
    const char *close = strstr(s, "</symbol>");
    const char *id = strstr(s, " id=\"");
    if (!open_end || !close || !id || id > open_end)
        return s;
    id += 5;
    const char *id_end = strchr(id, '"');
    if (id_end == NULL || id_end > open_end)
        return s;
    char *text = outline_text(open_end + 1, close);
    if (text == NULL)
        return NULL;
    bool is_new;
    long n = page_glyph(sc->page, text, &is_new);
    if (n < 0 || !glyph_remember(sc, id, (size_t)(id_end - id), (size_t)n))
        return NULL;
    if (is_new)
        fprintf(sc->f, "<symbol overflow=\"visible\" id=\"sbg%ld\">%s</symbol>",
                n, text);
    s = close + strlen("</symbol>");
    if (!is_new && *s == '\n')
        s++;
    return s;
}

/* A reference at s (just after its "#"): the page's glyph, or the id
 * prefixed. */
static void reference(scan *sc, const char *s)
{
    size_t len = strcspn(s, "\")");
    const local_glyph *g = glyph_find(sc, s, len);
    if (g)
        fprintf(sc->f, "sbg%zu", g->n);
    else {
        fputs(sc->prefix, sc->f);
        fwrite(s, 1, len, sc->f);
    }
}

int svgi_write(svgi_page *p, FILE *f, const char *svg, const char *prefix)
{
    static const char *const ids[] = {" id=\"", "url(#"};
    static const char *const nums[] = {" d=\"", " x=\"", " y=\""};
    scan sc = {p, f, prefix, NULL, 0, 0};
    const char *s = svg, *from = svg;
    int status = 0;
    while (*s) {
        const char *next = NULL;
        if (strncmp(s, "<symbol ", 8) == 0) {
            fwrite(from, 1, (size_t)(s - from), f);
            next = symbol(&sc, s);
            if (next == NULL) {
                status = -1;
                break;
            }
            if (next == s) { /* not one of cairo's glyphs: copied */
                from = s;
                s++;
                continue;
            }
        } else if (strncmp(s, "href=\"#", 7) == 0) {
            fwrite(from, 1, (size_t)(s - from) + 7, f);
            reference(&sc, s + 7);
            next = s + 7 + strcspn(s + 7, "\")");
        }
        for (int k = 0; next == NULL && k < 2; k++)
            if (strncmp(s, ids[k], strlen(ids[k])) == 0) {
                size_t n = strlen(ids[k]);
                fwrite(from, 1, (size_t)(s - from) + n, f);
                fputs(prefix, f);
                next = s + n;
            }
        for (int k = 0; next == NULL && k < 3; k++)
            if (strncmp(s, nums[k], 4) == 0) {
                fwrite(from, 1, (size_t)(s - from) + 4, f);
                next = k == 0 ? write_d(f, s + 4, PLOT_STEP)
                              : write_rounded(f, s + 4);
            }
        if (next) {
            from = s = next;
            continue;
        }
        s++;
    }
    if (status == 0)
        fputs(from, f);
    free(sc.local);
    return status;
}
