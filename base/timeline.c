/* realpath */
#define _XOPEN_SOURCE 700

#include "timeline.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "simtime.h"
#include "textfile.h"
#include "units.h"

/* More requests than this is a trace to sample first (120 MB of times
 * and callers); more points, not a rate curve. */
#define MAX_REQUESTS 10000000u
#define MAX_POINTS 1000000u

/* What both kinds share: where they came from, to be found again. */
typedef struct origin {
    char spec[1400];
    char shown[300];
    long long size, mtime_ns; /* the file when read: an edited file is
                                 read again */
} origin;

struct trace {
    trace *next; /* the process's traces, newest first */
    origin o;
    uint32_t n, n_callers;
    int64_t *at;      /* ns from the first, ascending */
    uint32_t *caller; /* NULL: dealt in turn */
};

struct rate_profile {
    rate_profile *next;
    origin o;
    bool total;
    uint32_t n;
    int64_t *at;  /* from at[0] = 0, strictly increasing */
    double *rate; /* per second, from at[i] to at[i + 1] */
    double *cum;  /* profile_mass at at[i] */
};

static trace *traces;
static rate_profile *profiles;

/* The spec written back names the file absolutely, so a scenario saved
 * elsewhere reads the same file; shown is its last component.  args:
 * the arguments after the file, already joined ("col, s"), or "". */
static int make_origin(origin *o, const char *fn, const char *path,
                       const char *args, sb_err *e)
{
    char abs[PATH_MAX];
    struct stat st;
    if (realpath(path, abs) == NULL || stat(abs, &st) != 0)
        return err_set(e, "%s: cannot open: %s", path, strerror(errno));
    o->size = (long long)st.st_size;
    o->mtime_ns =
        (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    const char *slash = strrchr(abs, '/');
    int n = snprintf(o->spec, sizeof o->spec, "%s(%s%s%s)", fn, abs,
                     args[0] ? ", " : "", args);
    if (n < 0 || (size_t)n >= sizeof o->spec)
        return err_set(e, "%s: the path is too long", path);
    snprintf(o->shown, sizeof o->shown, "%s(%.160s%s%.100s)", fn,
             slash ? slash + 1 : abs, args[0] ? ", " : "", args);
    return 0;
}

static bool same(const origin *a, const origin *b)
{
    return strcmp(a->spec, b->spec) == 0 && a->size == b->size &&
           a->mtime_ns == b->mtime_ns;
}

/* ---- Exact times --------------------------------------------------------- */

static int exact_ns(const char *s, int64_t unit_ns, int64_t *ns);

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* An ISO 8601 / RFC 3339 timestamp, as access logs write them:
 * "2026-12-01T10:00:00.250Z", a space for the T, an offset "+01:00" or
 * none (UTC).  ns from 1970; -1 for anything else. */
static int iso_ns(const char *s, int64_t *ns)
{
    int y, mo, d, h, mi, sec, used = 0;
    if (sscanf(s, "%4d-%2d-%2d%*1[T ]%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec,
               &used) != 6 ||
        used != 19 || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
        h > 23 || mi > 59 || sec > 60)
        return -1;
    const char *p = s + used;
    int64_t frac = 0;
    if (*p == '.') {
        size_t n = strspn(p + 1, "0123456789");
        if (n == 0)
            return -1;
        for (size_t i = 0; i < 9; i++) /* ns: the first 9 digits */
            frac = frac * 10 + (i < n ? p[1 + i] - '0' : 0);
        p += 1 + n;
    }
    int64_t offset = 0;
    if (*p == '+' || *p == '-') {
        int oh, om, n = 0;
        if (sscanf(p + 1, "%2d:%2d%n", &oh, &om, &n) != 2 || n != 5 ||
            p[6] != '\0')
            return -1;
        offset = (*p == '+' ? 1 : -1) * (oh * 3600 + om * 60);
        p += 6;
    } else if (*p == 'Z')
        p++;
    if (*p != '\0')
        return -1;
    int64_t secs =
        days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset;
    *ns = secs * 1000000000 + frac;
    return secs >= 0 ? 0 : -1;
}

/* A time "DIGITS[.DIGITS][UNIT]" in ns, read digit by digit: an epoch
 * timestamp in seconds has 19 significant digits at ns resolution, more
 * than a double's 16, so strtod would move requests by up to 256 ns.
 * unit_ns: what a bare number means.  An ISO 8601 timestamp is read as
 * ns from 1970.  -1 for anything else, a negative time, or one past
 * SIMTIME_END. */
static int exact_ns(const char *s, int64_t unit_ns, int64_t *ns)
{
    if (iso_ns(s, ns) == 0)
        return 0;
    const char *p = s;
    if (*p == '+')
        p++;
    if (!isdigit((unsigned char)*p) &&
        !(*p == '.' && isdigit((unsigned char)p[1])))
        return -1;
    static const struct {
        const char *name;
        int64_t ns;
    } units[] = {{"ns", 1},         {"us", 1000},       {"ms", 1000000},
                 {"s", 1000000000}, {"m", 60000000000}, {"h", 3600000000000}};
    const char *end = p + strspn(p, "0123456789.");
    if (*end != '\0') {
        unit_ns = 0;
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (strcmp(end, units[i].name) == 0)
                unit_ns = units[i].ns;
        if (unit_ns == 0)
            return -1;
    }
    int64_t whole = 0;
    for (; isdigit((unsigned char)*p); p++) {
        if (whole > (SIMTIME_END - 9) / 10)
            return -1;
        whole = whole * 10 + (*p - '0');
    }
    long double frac = 0, scale = 1;
    if (*p == '.')
        for (p++; isdigit((unsigned char)*p); p++)
            if (scale < 1e30L) {
                scale *= 10;
                frac = frac * 10 + (*p - '0');
            }
    if (p != end || whole > SIMTIME_END / unit_ns)
        return -1;
    int64_t part = (int64_t)llroundl(frac * (long double)unit_ns / scale);
    if (whole * unit_ns > SIMTIME_END - part)
        return -1;
    *ns = whole * unit_ns + part;
    return 0;
}

/* ---- Columns ------------------------------------------------------------- */

/* A column as the user named it: a 1-based number, or a header name
 * (then the first line is the header). */
typedef struct column {
    long no;          /* 0 with a name until the header is read; 0
                         without either: the whole line */
    const char *name; /* NULL: by number */
} column;

static int parse_column(column *c, const char *text, const char *what,
                        sb_err *e)
{
    c->no = 0;
    c->name = NULL;
    if (text == NULL || text[0] == '\0')
        return 0;
    char *end;
    errno = 0;
    long col = strtol(text, &end, 10);
    if (end != text && *end == '\0') {
        if (errno != 0 || col < 1 || col > 100000)
            return err_set(e, "expected %s column from 1, got '%s'", what,
                           text);
        c->no = col;
        return 0;
    }
    c->name = text;
    return 0;
}

/* Finds each named column in the header line. */
static int read_header(column *const *cols, int n, const char *path,
                       const char *line, int no, sb_err *e)
{
    for (int i = 0; i < n; i++) {
        if (cols[i]->name == NULL)
            continue;
        for (long col = 1;; col++) {
            char copy[TEXTFILE_LINE_MAX];
            snprintf(copy, sizeof copy, "%s", line);
            char *f = textfile_csv_field(copy, col);
            if (f == NULL)
                return err_set(e, "%s:%d: the header has no column '%s'", path,
                               no, cols[i]->name);
            if (strcmp(f, cols[i]->name) == 0) {
                cols[i]->no = col;
                break;
            }
        }
    }
    return 0;
}

/* Field c of line (a copy is cut), or the whole line without a column. */
static const char *field(const column *c, const char *line, char *buf,
                         size_t len)
{
    snprintf(buf, len, "%s", line);
    return c->no ? textfile_csv_field(buf, c->no) : textfile_trim(buf);
}

/* ---- Callers ------------------------------------------------------------- */

/* Distinct callers by a 64-bit FNV-1a hash of their name, in an open
 * addressing table: two names colliding (about n^2 / 2^65: 3e-6 for ten
 * million callers) would be one caller, which changes nothing a run
 * measures beyond which client sends. */
typedef struct callers {
    uint64_t *key; /* 0: empty (a hash of 0 is stored as 1) */
    uint32_t *index;
    size_t cap;
    uint32_t n;
} callers;

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h ? h : 1;
}

static int callers_grow(callers *c)
{
    size_t cap = c->cap ? c->cap * 2 : 1024;
    uint64_t *key = calloc(cap, sizeof *key);
    uint32_t *index = malloc(cap * sizeof *index);
    if (key == NULL || index == NULL) {
        free(key);
        free(index);
        return -1;
    }
    for (size_t i = 0; i < c->cap; i++) {
        if (c->key[i] == 0)
            continue;
        size_t j = c->key[i] & (cap - 1);
        while (key[j])
            j = (j + 1) & (cap - 1);
        key[j] = c->key[i];
        index[j] = c->index[i];
    }
    free(c->key);
    free(c->index);
    c->key = key;
    c->index = index;
    c->cap = cap;
    return 0;
}

/* The caller's index, a new one for a name not seen; -1 out of memory. */
static int callers_of(callers *c, const char *name, uint32_t *out)
{
    if (((size_t)c->n + 1) * 2 > c->cap && callers_grow(c) != 0)
        return -1;
    uint64_t h = fnv(name);
    size_t j = h & (c->cap - 1);
    while (c->key[j] && c->key[j] != h)
        j = (j + 1) & (c->cap - 1);
    if (c->key[j] == 0) {
        c->key[j] = h;
        c->index[j] = c->n++;
    }
    *out = c->index[j];
    return 0;
}

/* ---- Traces -------------------------------------------------------------- */

typedef struct trace_ctx {
    const char *path;
    int64_t unit_ns;
    column time, who;
    bool header_seen;
    callers seen;
    int64_t *at;
    uint32_t *caller;
    size_t n, cap;
} trace_ctx;

static int trace_grow(trace_ctx *c, int no, sb_err *e)
{
    if (c->n >= MAX_REQUESTS)
        return err_set(e,
                       "%s:%d: more than %u requests: sample the trace "
                       "first",
                       c->path, no, MAX_REQUESTS);
    size_t cap = c->cap ? c->cap * 2 : 1024;
    int64_t *at = realloc(c->at, cap * sizeof *at);
    if (at == NULL)
        return err_set(e, "%s: out of memory", c->path);
    c->at = at;
    if (c->who.no || c->who.name) {
        uint32_t *w = realloc(c->caller, cap * sizeof *w);
        if (w == NULL)
            return err_set(e, "%s: out of memory", c->path);
        c->caller = w;
    }
    c->cap = cap;
    return 0;
}

static int trace_line(void *ctx, char *line, int no, sb_err *e)
{
    trace_ctx *c = ctx;
    if ((c->time.name || c->who.name) && !c->header_seen) {
        column *cols[2] = {&c->time, &c->who};
        c->header_seen = true;
        return read_header(cols, 2, c->path, line, no, e);
    }
    char buf[TEXTFILE_LINE_MAX];
    const char *f = field(&c->time, line, buf, sizeof buf);
    if (f == NULL)
        return err_set(e, "%s:%d: the line has no column %ld", c->path, no,
                       c->time.no);
    if (c->n == c->cap && trace_grow(c, no, e) != 0)
        return -1;
    if (exact_ns(f, c->unit_ns, &c->at[c->n]) != 0)
        return err_set(e,
                       "%s:%d: expected a request's timestamp (a number "
                       "of seconds such as 1764684000.125, a time with a "
                       "unit such as 1500ms, or an ISO 8601 time such as "
                       "2026-12-01T10:00:00.250Z), got '%.80s'",
                       c->path, no, f);
    if (c->who.no || c->who.name) {
        f = field(&c->who, line, buf, sizeof buf);
        if (f == NULL)
            return err_set(e,
                           "%s:%d: the line has no column %ld (the "
                           "caller)",
                           c->path, no, c->who.no);
        if (callers_of(&c->seen, f, &c->caller[c->n]) != 0)
            return err_set(e, "%s: out of memory", c->path);
    }
    c->n++;
    return 0;
}

/* A request's time and its place in the file (ties keep the file's
 * order), for sorting. */
typedef struct stamped {
    int64_t at;
    uint32_t i;
} stamped;

static int cmp_stamped(const void *a, const void *b)
{
    const stamped *x = a, *y = b;
    if (x->at != y->at)
        return (x->at > y->at) - (x->at < y->at);
    return (x->i > y->i) - (x->i < y->i);
}

/* Sorts the requests by time and makes the times relative to the
 * first: t takes c's arrays. */
static int trace_fill(trace *t, trace_ctx *c, sb_err *e)
{
    if (c->n == 0)
        return err_set(e, "%s: no request timestamps in the file", c->path);
    stamped *s = malloc(c->n * sizeof *s);
    t->at = malloc(c->n * sizeof *t->at);
    if (c->caller)
        t->caller = malloc(c->n * sizeof *t->caller);
    if (s == NULL || t->at == NULL || (c->caller && t->caller == NULL)) {
        free(s);
        return err_set(e, "%s: out of memory", c->path);
    }
    for (size_t i = 0; i < c->n; i++)
        s[i] = (stamped){c->at[i], (uint32_t)i};
    qsort(s, c->n, sizeof *s, cmp_stamped);
    for (size_t i = 0; i < c->n; i++) {
        t->at[i] = s[i].at - s[0].at;
        if (c->caller)
            t->caller[i] = c->caller[s[i].i];
    }
    free(s);
    t->n = (uint32_t)c->n;
    t->n_callers = c->caller ? c->seen.n : t->n;
    return 0;
}

static void trace_drop(trace *t)
{
    if (t == NULL)
        return;
    free(t->at);
    free(t->caller);
    free(t);
}

static int trace_load(trace *t, const char *path, const char *column_,
                      const char *unit, const char *caller, sb_err *e)
{
    trace_ctx c = {.path = path};
    double u;
    int rc = textfile_unit_ns(unit && unit[0] ? unit : "s", &u, e);
    c.unit_ns = (int64_t)u;
    if (rc == 0)
        rc = parse_column(&c.time, column_, "a time", e);
    if (rc == 0)
        rc = parse_column(&c.who, caller, "a caller", e);
    if (rc == 0 && (caller && caller[0]) && !(column_ && column_[0]))
        rc = err_set(e,
                     "%s: with a caller column, name the time's column "
                     "too: trace(FILE, TIME, UNIT, CALLER)",
                     path);
    if (rc == 0)
        rc = textfile_each_line(path, true, trace_line, &c, e);
    if (rc == 0 && (c.time.name || c.who.name) && !c.header_seen)
        rc = err_set(e, "%s: no header line naming column '%s'", path,
                     c.time.name ? c.time.name : c.who.name);
    if (rc == 0)
        rc = trace_fill(t, &c, e);
    free(c.at);
    free(c.caller);
    free(c.seen.key);
    free(c.seen.index);
    return rc;
}

int trace_read(const char *path, const char *column_, const char *unit,
               const char *caller, const trace **out, sb_err *e)
{
    trace *t = calloc(1, sizeof *t);
    if (t == NULL)
        return err_set(e, "%s: out of memory", path);
    char args[400];
    const char *a[3] = {column_ ? column_ : "", unit ? unit : "",
                        caller ? caller : ""};
    int last = a[2][0] ? 3 : a[1][0] ? 2 : a[0][0] ? 1 : 0;
    snprintf(args, sizeof args, "%.120s%s%.30s%s%.120s", last ? a[0] : "",
             last > 1 ? ", " : "", last > 1 ? a[1] : "", last > 2 ? ", " : "",
             last > 2 ? a[2] : "");
    int rc = make_origin(&t->o, "trace", path, args, e);
    for (const trace *f = traces; rc == 0 && f; f = f->next)
        if (same(&f->o, &t->o)) {
            trace_drop(t);
            *out = f;
            return 0;
        }
    if (rc == 0)
        rc = trace_load(t, path, column_, unit, caller, e);
    if (rc != 0) {
        trace_drop(t);
        return -1;
    }
    t->next = traces;
    traces = t;
    *out = t;
    return 0;
}

uint32_t trace_count(const trace *t)
{
    return t->n;
}

const int64_t *trace_times(const trace *t)
{
    return t->at;
}

const uint32_t *trace_callers(const trace *t)
{
    return t->caller;
}

uint32_t trace_n_callers(const trace *t)
{
    return t->n_callers;
}

const char *trace_spec(const trace *t)
{
    return t->o.spec;
}

const char *trace_shown(const trace *t)
{
    return t->o.shown;
}

/* ---- Rate profiles ------------------------------------------------------- */

typedef struct profile_ctx {
    const char *path;
    bool any; /* a line was read: a later one is not a header */
    int last_line;
    int64_t first;
    int64_t *at;
    double *rate;
    size_t n, cap;
} profile_ctx;

/* Splits "TIME, RATE" or "TIME RATE" into its two fields; -1 unless
 * there are exactly two. */
static int two_fields(char *line, char **x, char **y)
{
    char *cut = strchr(line, ',');
    if (cut == NULL)
        cut = line + strcspn(line, " \t");
    if (*cut == '\0')
        return -1;
    *cut = '\0';
    *x = textfile_trim(line);
    *y = textfile_trim(cut + 1);
    return (*x)[0] && (*y)[0] && strchr(*y, ',') == NULL &&
                   (*y)[strcspn(*y, " \t")] == '\0'
               ? 0
               : -1;
}

static int profile_rate(const char *s, double *r)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end != s && *end == '\0') {
        if (errno != 0 || !(x >= 0) || !isfinite(x))
            return -1;
        *r = x;
        return 0;
    }
    sb_err inner;
    return units_rate(s, r, &inner);
}

static int profile_grow(profile_ctx *c, int no, sb_err *e)
{
    if (c->n >= MAX_POINTS)
        return err_set(e, "%s:%d: more than %u points", c->path, no,
                       MAX_POINTS);
    size_t cap = c->cap ? c->cap * 2 : 64;
    int64_t *at = realloc(c->at, cap * sizeof *at);
    if (at != NULL)
        c->at = at;
    double *rate = at ? realloc(c->rate, cap * sizeof *rate) : NULL;
    if (rate == NULL)
        return err_set(e, "%s: out of memory", c->path);
    c->rate = rate;
    c->cap = cap;
    return 0;
}

static int profile_line(void *ctx, char *line, int no, sb_err *e)
{
    profile_ctx *c = ctx;
    char *x, *y;
    if (two_fields(line, &x, &y) != 0)
        return err_set(e,
                       "%s:%d: expected a time and a rate (\"90m, "
                       "40/s\" or \"5400 40\"), got '%.80s'",
                       c->path, no, line);
    bool first = !c->any;
    c->any = true;
    int64_t t;
    if (exact_ns(x, 1000000000, &t) != 0) {
        if (first && !isdigit((unsigned char)x[0]) && x[0] != '.' &&
            x[0] != '+' && x[0] != '-')
            return 0; /* a header */
        return err_set(e,
                       "%s:%d: expected a time (a number of seconds "
                       "from 0, or a duration such as 90m), got '%.80s'",
                       c->path, no, x);
    }
    if (c->n == 0)
        c->first = t;
    t -= c->first;
    if (c->n > 0 && t <= c->at[c->n - 1])
        return err_set(e,
                       "%s:%d: expected a time after the previous "
                       "line's (line %d): times must increase, got '%.80s'",
                       c->path, no, c->last_line, x);
    double r;
    if (profile_rate(y, &r) != 0)
        return err_set(e,
                       "%s:%d: expected a rate (\"40/s\", \"600/m\", or "
                       "a number per second, at least 0), got '%.80s'",
                       c->path, no, y);
    if (c->n == c->cap && profile_grow(c, no, e) != 0)
        return -1;
    c->at[c->n] = t;
    c->rate[c->n++] = r;
    c->last_line = no;
    return 0;
}

static int profile_fill(rate_profile *p, profile_ctx *c, sb_err *e)
{
    if (c->n == 0)
        return err_set(e,
                       "%s: no rates in the file (expected lines \"TIME, "
                       "RATE\")",
                       c->path);
    p->cum = malloc(c->n * sizeof *p->cum);
    if (p->cum == NULL)
        return err_set(e, "%s: out of memory", c->path);
    p->at = c->at;
    p->rate = c->rate;
    c->at = NULL;
    c->rate = NULL;
    p->n = (uint32_t)c->n;
    p->cum[0] = 0;
    for (uint32_t i = 1; i < p->n; i++)
        p->cum[i] = p->cum[i - 1] +
                    p->rate[i - 1] * (double)(p->at[i] - p->at[i - 1]) / 1e9;
    return 0;
}

static void profile_drop(rate_profile *p)
{
    if (p == NULL)
        return;
    free(p->at);
    free(p->rate);
    free(p->cum);
    free(p);
}

int profile_read(const char *path, bool total, const rate_profile **out,
                 sb_err *e)
{
    rate_profile *p = calloc(1, sizeof *p);
    profile_ctx c = {.path = path};
    if (p == NULL)
        return err_set(e, "%s: out of memory", path);
    p->total = total;
    int rc = make_origin(&p->o, "profile", path, total ? "total" : "", e);
    for (const rate_profile *f = profiles; rc == 0 && f; f = f->next)
        if (same(&f->o, &p->o)) {
            profile_drop(p);
            *out = f;
            return 0;
        }
    if (rc == 0)
        rc = textfile_each_line(path, true, profile_line, &c, e);
    if (rc == 0)
        rc = profile_fill(p, &c, e);
    free(c.at);
    free(c.rate);
    if (rc != 0) {
        profile_drop(p);
        return -1;
    }
    p->next = profiles;
    profiles = p;
    *out = p;
    return 0;
}

/* The segment t falls in: the last i with at[i] <= t. */
static uint32_t segment_of(const rate_profile *p, int64_t t)
{
    uint32_t lo = 0, hi = p->n - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (p->at[mid] <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

double profile_mass(const rate_profile *p, int64_t t)
{
    if (t <= 0)
        return 0;
    uint32_t i = segment_of(p, t);
    return p->cum[i] + p->rate[i] * (double)(t - p->at[i]) / 1e9;
}

/* Inverting the cumulative rate: the first segment whose end's mass
 * reaches m, then linear within it (its rate is above 0, or the mass
 * would have been reached at its start). */
int64_t profile_time_at(const rate_profile *p, double m)
{
    if (!(m > 0))
        return 0;
    uint32_t lo = 0, hi = p->n - 1;
    if (p->cum[hi] < m) {
        if (!(p->rate[hi] > 0))
            return SIMTIME_END;
        lo = hi;
    } else
        while (lo < hi) { /* the last i with cum[i] < m */
            uint32_t mid = lo + (hi - lo + 1) / 2;
            if (p->cum[mid] < m)
                lo = mid;
            else
                hi = mid - 1;
        }
    double t = (double)p->at[lo] + (m - p->cum[lo]) / p->rate[lo] * 1e9;
    if (!(t < (double)SIMTIME_END))
        return SIMTIME_END;
    return (int64_t)llround(t);
}

double profile_peak(const rate_profile *p)
{
    double peak = 0;
    for (uint32_t i = 0; i < p->n; i++)
        if (p->rate[i] > peak)
            peak = p->rate[i];
    return peak;
}

double profile_mean(const rate_profile *p, int64_t t)
{
    return t > 0 ? profile_mass(p, t) / ((double)t / 1e9) : p->rate[0];
}

bool profile_total(const rate_profile *p)
{
    return p->total;
}

uint32_t profile_count(const rate_profile *p)
{
    return p->n;
}

const char *profile_spec(const rate_profile *p)
{
    return p->o.spec;
}

const char *profile_shown(const rate_profile *p)
{
    return p->o.shown;
}
