/* realpath */
#define _XOPEN_SOURCE 700

#include "measured.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "textfile.h"
#include "units.h"

/* More values than this is a log that should be summarised first (80 MB
 * of table); more series or buckets, a file that is not one histogram. */
#define MAX_VALUES 10000000u
#define MAX_BUCKETS 4096u

struct measured {
    measured *next; /* the process's tables, newest first */
    char spec[1400];
    char shown[300];
    long long size, mtime_ns; /* the file when read: an edited file (the
                                 GUI reloading its scenario) is read
                                 again */
    bool linear;              /* a histogram: linear within buckets */
    uint32_t n;               /* values, or finite buckets */
    int64_t *x;               /* values sorted; or the n + 1 bounds, x[0] = 0 */
    double *cum;              /* histogram: cumulative counts at x[0..n] */
    double total;             /* histogram: the count, +Inf bucket included */
    double mean_ns;
};

static measured *tables;

/* ---- The process's tables ------------------------------------------------ */

static const measured *find(const measured *want)
{
    for (const measured *t = tables; t; t = t->next)
        if (strcmp(t->spec, want->spec) == 0 && t->size == want->size &&
            t->mtime_ns == want->mtime_ns)
            return t;
    return NULL;
}

static void keep(measured *t)
{
    t->next = tables;
    tables = t;
}

static void drop(measured *t)
{
    if (t == NULL)
        return;
    free(t->x);
    free(t->cum);
    free(t);
}

/* The spec written back names the file absolutely, so a scenario saved
 * elsewhere reads the same file; shown is its last component. */
static int make_spec(measured *t, const char *fn, const char *path,
                     const char *a2, const char *a3, sb_err *e)
{
    char abs[PATH_MAX];
    struct stat st;
    if (realpath(path, abs) == NULL || stat(abs, &st) != 0)
        return err_set(e, "%s: cannot open: %s", path, strerror(errno));
    t->size = (long long)st.st_size;
    t->mtime_ns =
        (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    const char *slash = strrchr(abs, '/');
    const char *base = slash ? slash + 1 : abs;
    bool two = a2 && a2[0], three = a3 && a3[0];
    int n = snprintf(t->spec, sizeof t->spec, "%s(%s%s%s%s%s)", fn, abs,
                     two || three ? ", " : "", two ? a2 : "", three ? ", " : "",
                     three ? a3 : "");
    if (n < 0 || (size_t)n >= sizeof t->spec)
        return err_set(e, "%s: the path is too long", path);
    snprintf(t->shown, sizeof t->shown, "%s(%.120s%s%.80s%s%.16s)", fn, base,
             two ? ", " : "", two ? a2 : "", three ? ", " : "",
             three ? a3 : "");
    return 0;
}

/* ---- Reading lines ------------------------------------------------------- */

/* ---- Units --------------------------------------------------------------- */

/* A bare number in unit_ns, or a duration with its own unit. */
static int value_ns(const char *s, double unit, int64_t *ns)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end != s && *end == '\0' && errno == 0) {
        double v = x * unit;
        if (!(v >= 0.0) || v > (double)SIMTIME_END)
            return -1;
        *ns = (int64_t)llround(v);
        return 0;
    }
    sb_err inner;
    return units_duration(s, ns, &inner);
}

/* ---- Latencies ----------------------------------------------------------- */

typedef struct values_ctx {
    const char *path;
    double unit;
    long column;      /* 1-based; 0 until a header names it */
    const char *name; /* the header's name, or NULL */
    bool header_seen;
    int64_t *v;
    size_t n, cap;
} values_ctx;

static int find_header(values_ctx *c, char *line, int no, sb_err *e)
{
    c->header_seen = true;
    for (long col = 1;; col++) {
        char copy[TEXTFILE_LINE_MAX];
        snprintf(copy, sizeof copy, "%s", line);
        char *f = textfile_csv_field(copy, col);
        if (f == NULL)
            return err_set(e, "%s:%d: the header has no column '%s'", c->path,
                           no, c->name);
        if (strcmp(f, c->name) == 0) {
            c->column = col;
            return 0;
        }
    }
}

static int add_value(void *ctx, char *line, int no, sb_err *e)
{
    values_ctx *c = ctx;
    if (c->name && !c->header_seen)
        return find_header(c, line, no, e);
    char *f = c->column ? textfile_csv_field(line, c->column) : line;
    if (f == NULL)
        return err_set(e, "%s:%d: the line has no column %ld", c->path, no,
                       c->column);
    int64_t ns;
    if (value_ns(f, c->unit, &ns) != 0)
        return err_set(e,
                       "%s:%d: expected a latency (a number, or a "
                       "duration such as 12ms), at least 0, got '%.80s'",
                       c->path, no, f);
    if (c->n == c->cap) {
        if (c->n >= MAX_VALUES)
            return err_set(e, "%s:%d: more than %u values", c->path, no,
                           MAX_VALUES);
        size_t cap = c->cap ? c->cap * 2 : 1024;
        int64_t *v = realloc(c->v, cap * sizeof *v);
        if (v == NULL)
            return err_set(e, "%s: out of memory", c->path);
        c->v = v;
        c->cap = cap;
    }
    c->v[c->n++] = ns;
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int parse_column(values_ctx *c, const char *column, sb_err *e)
{
    if (column == NULL || column[0] == '\0')
        return 0;
    char *end;
    errno = 0;
    long col = strtol(column, &end, 10);
    if (end != column && *end == '\0') {
        if (errno != 0 || col < 1 || col > 100000)
            return err_set(e, "expected a column from 1, got '%s'", column);
        c->column = col;
        return 0;
    }
    c->name = column;
    return 0;
}

static int fill_values(measured *t, values_ctx *c, sb_err *e)
{
    if (c->n == 0)
        return err_set(e, "%s: no latencies in the file", c->path);
    qsort(c->v, c->n, sizeof *c->v, cmp_i64);
    long double sum = 0;
    for (size_t i = 0; i < c->n; i++)
        sum += (long double)c->v[i];
    t->x = c->v;
    c->v = NULL;
    t->n = (uint32_t)c->n;
    t->mean_ns = (double)(sum / (long double)c->n);
    return 0;
}

int measured_values(const char *path, const char *column, const char *unit,
                    const measured **out, sb_err *e)
{
    measured *t = calloc(1, sizeof *t);
    values_ctx c = {.path = path};
    if (t == NULL)
        return err_set(e, "%s: out of memory", path);
    int rc = make_spec(t, "empirical", path, column, unit, e);
    if (rc == 0 && (*out = find(t)) != NULL) {
        drop(t);
        return 0;
    }
    if (rc == 0)
        rc = textfile_unit_ns(unit && unit[0] ? unit : "s", &c.unit, e);
    if (rc == 0)
        rc = parse_column(&c, column, e);
    if (rc == 0)
        rc = textfile_each_line(path, true, add_value, &c, e);
    if (rc == 0 && c.name && !c.header_seen)
        rc = err_set(e, "%s: no header line naming column '%s'", path, c.name);
    if (rc == 0)
        rc = fill_values(t, &c, e);
    free(c.v);
    if (rc != 0) {
        drop(t);
        return rc;
    }
    keep(t);
    *out = t;
    return 0;
}

/* ---- Prometheus histograms ----------------------------------------------- */

/* One bucket line of the file. */
typedef struct bucket_row {
    uint32_t series; /* index into hist_ctx.series */
    double le;       /* the bound as written; INFINITY for +Inf */
    double count;    /* cumulative, as the format has it */
    int line;
} bucket_row;

typedef struct hist_ctx {
    const char *path;
    const char *want_name; /* NULL: any */
    char want_labels[600]; /* 'a="b",c="d"' the series must have */
    char names[8][200];    /* histogram names seen, for messages */
    int n_names;
    char (*series)[700]; /* "name{labels without le}" */
    uint32_t n_series;
    bucket_row *rows;
    size_t n_rows, cap_rows;
} hist_ctx;

/* Parses a label set after '{' into "k=\"v\"" pairs joined by ','
 * (without le), le's value into le; *p is left after '}'. */
static int parse_labels(char **p, char *out, size_t outlen, char *le,
                        size_t lelen)
{
    char *s = *p;
    size_t o = 0;
    out[0] = '\0';
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == ',')
            s++;
        if (*s == '}') {
            *p = s + 1;
            return 0;
        }
        char name[128];
        size_t n = 0;
        while ((isalnum((unsigned char)*s) || *s == '_') && n < 127)
            name[n++] = *s++;
        name[n] = '\0';
        while (*s == ' ')
            s++;
        if (n == 0 || *s++ != '=')
            return -1;
        while (*s == ' ')
            s++;
        if (*s++ != '"')
            return -1;
        char val[512];
        size_t v = 0;
        for (; *s && *s != '"'; s++) {
            if (*s == '\\' && s[1])
                s++;
            if (v < sizeof val - 1)
                val[v++] = *s;
        }
        val[v] = '\0';
        if (*s++ != '"')
            return -1;
        if (strcmp(name, "le") == 0)
            snprintf(le, lelen, "%s", val);
        else {
            int w = snprintf(out + o, outlen - o, "%s%s=\"%s\"", o ? "," : "",
                             name, val);
            if (w < 0 || (size_t)w >= outlen - o)
                return -1;
            o += (size_t)w;
        }
    }
}

/* The format's sample value: a float, +Inf, -Inf or NaN. */
static int parse_number(const char *s, double *x)
{
    if (strcmp(s, "+Inf") == 0 || strcmp(s, "Inf") == 0) {
        *x = INFINITY;
        return 0;
    }
    char *end;
    errno = 0;
    *x = strtod(s, &end);
    return end != s && *end == '\0' ? 0 : -1;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Every label of want ('a="b",c="d"') is among have's. */
static bool has_labels(const char *have, const char *want)
{
    char copy[600], *save = NULL;
    snprintf(copy, sizeof copy, "%s", want);
    for (char *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        const char *at = strstr(have, tok);
        size_t k = strlen(tok);
        if (at == NULL || !(at == have || at[-1] == ',') ||
            !(at[k] == '\0' || at[k] == ','))
            return false;
    }
    return true;
}

static void note_name(hist_ctx *c, const char *name)
{
    for (int i = 0; i < c->n_names; i++)
        if (strcmp(c->names[i], name) == 0)
            return;
    if (c->n_names < 8)
        snprintf(c->names[c->n_names++], sizeof c->names[0], "%s", name);
}

static int series_index(hist_ctx *c, const char *key, uint32_t *out, sb_err *e,
                        int no)
{
    for (uint32_t i = 0; i < c->n_series; i++)
        if (strcmp(c->series[i], key) == 0) {
            *out = i;
            return 0;
        }
    if (c->n_series >= MAX_BUCKETS)
        return err_set(e, "%s:%d: more than %u series", c->path, no,
                       MAX_BUCKETS);
    if (c->n_series % 64 == 0) {
        void *s = realloc(c->series, (c->n_series + 64) * sizeof *c->series);
        if (s == NULL)
            return err_set(e, "%s: out of memory", c->path);
        c->series = s;
    }
    snprintf(c->series[c->n_series], sizeof c->series[0], "%s", key);
    *out = c->n_series++;
    return 0;
}

static int add_row(hist_ctx *c, bucket_row r, sb_err *e)
{
    if (c->n_rows == c->cap_rows) {
        if (c->n_rows >= (size_t)MAX_BUCKETS * 16)
            return err_set(e, "%s:%d: too many buckets", c->path, r.line);
        size_t cap = c->cap_rows ? c->cap_rows * 2 : 64;
        bucket_row *rows = realloc(c->rows, cap * sizeof *rows);
        if (rows == NULL)
            return err_set(e, "%s: out of memory", c->path);
        c->rows = rows;
        c->cap_rows = cap;
    }
    c->rows[c->n_rows++] = r;
    return 0;
}

/* A bucket line of a matching histogram: its series and bound. */
static int take_bucket(hist_ctx *c, const char *name, const char *labels,
                       const char *le, double count, int no, sb_err *e)
{
    char base[200];
    snprintf(base, sizeof base, "%.*s", (int)(strlen(name) - 7), name);
    note_name(c, base);
    if ((c->want_name && strcmp(base, c->want_name) != 0) ||
        !has_labels(labels, c->want_labels))
        return 0;
    bucket_row r = {.count = count, .line = no};
    if (le[0] == '\0')
        return err_set(e, "%s:%d: a _bucket sample without an le label",
                       c->path, no);
    if (parse_number(le, &r.le) != 0 || !(r.le >= 0.0))
        return err_set(e,
                       "%s:%d: expected le, a bucket's upper bound, to "
                       "be a number at least 0 or \"+Inf\", got '%s'",
                       c->path, no, le);
    if (!(count >= 0.0) || isinf(count))
        return err_set(e,
                       "%s:%d: expected a bucket's count, a number at "
                       "least 0, got %g",
                       c->path, no, count);
    char key[700];
    snprintf(key, sizeof key, "%s{%s}", base, labels);
    if (series_index(c, key, &r.series, e, no) != 0)
        return -1;
    return add_row(c, r, e);
}

static int hist_line(void *ctx, char *line, int no, sb_err *e)
{
    hist_ctx *c = ctx;
    if (line[0] == '#')
        return 0; /* # HELP, # TYPE and comments */
    char name[200], labels[600] = "", le[64] = "";
    size_t n = 0;
    char *s = line;
    while ((isalnum((unsigned char)*s) || *s == '_' || *s == ':') && n < 199)
        name[n++] = *s++;
    name[n] = '\0';
    if (n == 0 || isdigit((unsigned char)name[0]))
        return err_set(e,
                       "%s:%d: expected a sample, 'name{labels} value', "
                       "got '%.80s'",
                       c->path, no, line);
    if (*s == '{' &&
        (s++, parse_labels(&s, labels, sizeof labels, le, sizeof le)) != 0)
        return err_set(e,
                       "%s:%d: expected labels such as "
                       "{le=\"0.1\",code=\"200\"}, got '%.80s'",
                       c->path, no, line);
    char *v = textfile_trim(s), *ts = v;
    while (*ts && !isspace((unsigned char)*ts))
        ts++;
    if (*ts)
        *ts++ = '\0'; /* an optional timestamp follows */
    double count;
    if (parse_number(v, &count) != 0 && strcmp(v, "NaN") != 0 &&
        strcmp(v, "-Inf") != 0)
        return err_set(e,
                       "%s:%d: expected a sample value after '%s', got "
                       "'%.40s'",
                       c->path, no, name, v);
    if (!ends_with(name, "_bucket"))
        return 0; /* _sum, _count, other metrics */
    return take_bucket(c, name, labels, le, count, no, e);
}

static int cmp_row(const void *a, const void *b)
{
    const bucket_row *x = a, *y = b;
    if (x->series != y->series)
        return x->series < y->series ? -1 : 1;
    return (x->le > y->le) - (x->le < y->le);
}

/* The rows of series 0 give the bounds; every other series must have the
 * same, and every series must be cumulative and end at +Inf. */
static int check_series(hist_ctx *c, uint32_t per, sb_err *e)
{
    for (uint32_t s = 0; s < c->n_series; s++) {
        const bucket_row *r = c->rows + (size_t)s * per;
        for (uint32_t i = 0; i < per; i++) {
            if (r[i].series != s || r[i].le != c->rows[i].le)
                return err_set(e,
                               "%s:%d: the series %s has other buckets "
                               "than %s: they cannot be added",
                               c->path, r[i].line, c->series[r[i].series],
                               c->series[0]);
            if (i > 0 && r[i].le == r[i - 1].le)
                return err_set(e, "%s:%d: le=\"%g\" a second time in %s",
                               c->path, r[i].line, r[i].le, c->series[s]);
            if (i > 0 && r[i].count < r[i - 1].count)
                return err_set(e,
                               "%s:%d: bucket le=\"%g\" counts %g, fewer "
                               "than the %g of the bucket below (buckets "
                               "are cumulative)",
                               c->path, r[i].line, r[i].le, r[i].count,
                               r[i - 1].count);
        }
        if (!isinf(r[per - 1].le))
            return err_set(e,
                           "%s:%d: %s has no le=\"+Inf\" bucket (the "
                           "format requires one: it holds the count)",
                           c->path, r[per - 1].line, c->series[s]);
    }
    return 0;
}

static int no_match(hist_ctx *c, const char *select, sb_err *e)
{
    char list[900] = "";
    size_t o = 0;
    for (int i = 0; i < c->n_names && o < sizeof list; i++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "",
                              c->names[i]);
    if (c->n_names == 0)
        return err_set(e,
                       "%s: no histogram (no _bucket samples) in the "
                       "file",
                       c->path);
    return err_set(e, "%s: no histogram matches '%s'; the file has %s", c->path,
                   select, list);
}

static int fill_histogram(measured *t, hist_ctx *c, double unit, sb_err *e)
{
    qsort(c->rows, c->n_rows, sizeof *c->rows, cmp_row);
    uint32_t per = (uint32_t)(c->n_rows / c->n_series);
    if ((size_t)per * c->n_series != c->n_rows)
        per = 0;
    if (per == 0 || check_series(c, per, e) != 0)
        return per == 0 ? err_set(e,
                                  "%s: the series %s have different "
                                  "buckets: they cannot be added",
                                  c->path, c->series[0])
                        : -1;
    t->n = per - 1; /* the finite buckets */
    t->x = calloc(per, sizeof *t->x);
    t->cum = calloc(per, sizeof *t->cum);
    if (t->x == NULL || t->cum == NULL)
        return err_set(e, "%s: out of memory", c->path);
    double sum = 0;
    for (uint32_t i = 0; i < per; i++) {
        double count = 0;
        for (uint32_t s = 0; s < c->n_series; s++)
            count += c->rows[(size_t)s * per + i].count;
        if (i + 1 < per) {
            if (c->rows[i].le * unit > (double)SIMTIME_END)
                return err_set(e,
                               "%s:%d: le=\"%g\" is longer than any "
                               "run",
                               c->path, c->rows[i].line, c->rows[i].le);
            t->x[i + 1] = (int64_t)llround(c->rows[i].le * unit);
            t->cum[i + 1] = count;
            sum += (count - t->cum[i]) *
                   ((double)t->x[i] + (double)t->x[i + 1]) / 2;
        } else
            t->total = count;
    }
    if (!(t->total > 0))
        return err_set(e,
                       "%s: the histogram counts nothing (its +Inf "
                       "bucket is 0)",
                       c->path);
    sum += (t->total - t->cum[t->n]) * (double)t->x[t->n];
    t->mean_ns = sum / t->total;
    t->linear = true;
    return 0;
}

static int parse_select(hist_ctx *c, const char *select, char *name, size_t len,
                        sb_err *e)
{
    if (select == NULL || select[0] == '\0')
        return 0;
    snprintf(name, len, "%s", select);
    char *brace = strchr(name, '{');
    if (brace) {
        char *p = brace + 1, le[8] = "";
        if (parse_labels(&p, c->want_labels, sizeof c->want_labels, le,
                         sizeof le) != 0 ||
            *p != '\0')
            return err_set(e,
                           "expected a histogram's name with labels "
                           "such as http_seconds{code=\"200\"}, got '%s'",
                           select);
        *brace = '\0';
    }
    if (ends_with(name, "_bucket"))
        name[strlen(name) - 7] = '\0';
    c->want_name = name[0] ? name : NULL;
    return 0;
}

static const char *default_unit(const hist_ctx *c)
{
    const char *name = c->series[0];
    const char *brace = strchr(name, '{');
    char base[200];
    snprintf(base, sizeof base, "%.*s", (int)(brace - name), name);
    if (ends_with(base, "_milliseconds") || ends_with(base, "_ms"))
        return "ms";
    if (ends_with(base, "_microseconds") || ends_with(base, "_us"))
        return "us";
    return "s";
}

static int read_histogram(measured *t, hist_ctx *c, const char *select,
                          const char *unit, sb_err *e)
{
    char name[600];
    double u;
    if (parse_select(c, select, name, sizeof name, e) != 0 ||
        textfile_each_line(c->path, false, hist_line, c, e) != 0)
        return -1;
    if (c->n_series == 0)
        return no_match(c, select ? select : "", e);
    if (c->want_name == NULL && c->n_names > 1)
        return err_set(e,
                       "%s: the file has several histograms (%s, %s%s): "
                       "name one, histogram(FILE, NAME)",
                       c->path, c->names[0], c->names[1],
                       c->n_names > 2 ? ", ..." : "");
    if (textfile_unit_ns(unit && unit[0] ? unit : default_unit(c), &u, e) != 0)
        return -1;
    return fill_histogram(t, c, u, e);
}

int measured_histogram(const char *path, const char *select, const char *unit,
                       const measured **out, sb_err *e)
{
    measured *t = calloc(1, sizeof *t);
    hist_ctx c = {.path = path};
    if (t == NULL)
        return err_set(e, "%s: out of memory", path);
    int rc = make_spec(t, "histogram", path, select, unit, e);
    if (rc == 0 && (*out = find(t)) != NULL) {
        drop(t);
        return 0;
    }
    if (rc == 0)
        rc = read_histogram(t, &c, select, unit, e);
    free(c.series);
    free(c.rows);
    if (rc != 0) {
        drop(t);
        return rc;
    }
    keep(t);
    *out = t;
    return 0;
}

/* ---- Draws --------------------------------------------------------------- */

/* The first bucket i in 1..n whose cumulative count passes rank. */
static uint32_t bucket_of(const measured *t, double rank)
{
    uint32_t lo = 1, hi = t->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->cum[mid] > rank)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

int64_t measured_at(const measured *t, double u)
{
    if (!t->linear) {
        uint64_t i = (uint64_t)(u * (double)t->n);
        return t->x[i < t->n ? i : t->n - 1];
    }
    double rank = u * t->total;
    if (t->n == 0 || rank >= t->cum[t->n])
        return t->x[t->n]; /* the +Inf bucket: the highest bound */
    uint32_t b = bucket_of(t, rank);
    double lo = (double)t->x[b - 1], hi = (double)t->x[b];
    double in = t->cum[b] - t->cum[b - 1];
    return (int64_t)llround(lo + (hi - lo) * (rank - t->cum[b - 1]) / in);
}

double measured_mean(const measured *t)
{
    return t->mean_ns;
}

const char *measured_spec(const measured *t)
{
    return t->spec;
}

const char *measured_shown(const measured *t)
{
    return t->shown;
}

uint32_t measured_count(const measured *t)
{
    return t->n;
}
