#include "units.h"
#include "textfile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "measured.h"

/* Reads a plain decimal number (digits, one optional '.', optional
 * exponent) from the start of s.  strtod alone would also accept "inf",
 * "nan" and hex floats, which no user means in a scenario file. */
static int read_number(const char *s, double *x, const char **end)
{
    const char *p = s;
    if (*p == '-' || *p == '+')
        p++;
    if (!isdigit((unsigned char)*p) &&
        !(*p == '.' && isdigit((unsigned char)p[1])))
        return -1;
    errno = 0;
    char *e;
    double v = strtod(s, &e);
    if (e == s || errno == ERANGE || !isfinite(v))
        return -1;
    /* "-0" is 0: a negative zero would be written back as "0" and read
     * as another double (found by fuzz_scenario).  x + 0.0 is +0.0 for
     * either zero and x for anything else. */
    *x = v + 0.0;
    *end = e;
    return 0;
}

static const char *skip_space(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

static const struct {
    const char *name;
    int64_t ns;
} duration_units[] = {
    {"ns", 1},
    {"us", NS_PER_US},
    {"ms", NS_PER_MS},
    {"s", NS_PER_S},
    {"m", 60 * NS_PER_S},
    {"h", 3600 * NS_PER_S},
    /* The usual longer spellings, so "5sec" or "2 minutes" is not an
     * error. */
    {"nsec", 1},
    {"nanosecond", 1},
    {"nanoseconds", 1},
    {"\xc2\xb5s", NS_PER_US}, /* µs */
    {"usec", NS_PER_US},
    {"microsecond", NS_PER_US},
    {"microseconds", NS_PER_US},
    {"msec", NS_PER_MS},
    {"millisecond", NS_PER_MS},
    {"milliseconds", NS_PER_MS},
    {"sec", NS_PER_S},
    {"secs", NS_PER_S},
    {"second", NS_PER_S},
    {"seconds", NS_PER_S},
    {"min", 60 * NS_PER_S},
    {"mins", 60 * NS_PER_S},
    {"minute", 60 * NS_PER_S},
    {"minutes", 60 * NS_PER_S},
    {"hr", 3600 * NS_PER_S},
    {"hrs", 3600 * NS_PER_S},
    {"hour", 3600 * NS_PER_S},
    {"hours", 3600 * NS_PER_S},
};

int units_duration(const char *s, int64_t *ns, sb_err *e)
{
    const char *want = "expected a duration with a unit (ns, us, ms, s, m, "
                       "h), such as 250ms or 2s";
    double x;
    const char *p;
    if (read_number(s, &x, &p) != 0)
        return err_set(e, "%s, got '%s'", want, s);
    p = skip_space(p);
    /* Zero of any unit is the same time: "timeout = 0" needs none. */
    if (*p == '\0' && x == 0.0) {
        *ns = 0;
        return 0;
    }
    if (*p == '\0')
        return err_set(e, "%s, got '%s' (no unit)", want, s);
    for (size_t i = 0; i < sizeof duration_units / sizeof *duration_units;
         i++) {
        if (strcmp(p, duration_units[i].name) != 0)
            continue;
        if (x < 0)
            return err_set(e, "expected a non-negative duration, got '%s'", s);
        /* Past the end of time the engine could only saturate, turning
         * the user's number into another one without a word: refuse. */
        double v = x * (double)duration_units[i].ns;
        if (v > (double)SIMTIME_END)
            return err_set(e,
                           "duration '%s' is too long: at most %llds "
                           "(about 63 years), the end of simulated time",
                           s, (long long)(SIMTIME_END / NS_PER_S));
        *ns = (int64_t)llround(v);
        return 0;
    }
    return err_set(e, "%s, got '%s' (unknown unit '%s')", want, s, p);
}

int units_rate(const char *s, double *per_s, sb_err *e)
{
    const char *want = "expected a rate such as 100/s, 6000/m or 10/h";
    double x;
    const char *p;
    if (read_number(s, &x, &p) != 0)
        return err_set(e, "%s, got '%s'", want, s);
    p = skip_space(p);
    if (*p != '/')
        return err_set(e, "%s, got '%s' (no '/unit')", want, s);
    p = skip_space(p + 1);
    /* Per second, minute or hour: the duration units of at least a
     * second ("/sec", "/minute", "/hr" ...). */
    double div = 0;
    for (size_t i = 0; i < sizeof duration_units / sizeof *duration_units; i++)
        if (duration_units[i].ns >= NS_PER_S &&
            strcmp(p, duration_units[i].name) == 0)
            div = (double)(duration_units[i].ns / NS_PER_S);
    if (div == 0)
        return err_set(e, "%s, got '%s' (unknown unit '/%s')", want, s, p);
    if (x < 0)
        return err_set(e, "expected a non-negative rate, got '%s'", s);
    *per_s = x / div;
    return 0;
}

int units_real(const char *s, double *x, sb_err *e)
{
    const char *p;
    if (read_number(s, x, &p) != 0 || *skip_space(p) != '\0')
        return err_set(e, "expected a number, got '%s'", s);
    return 0;
}

int units_probability(const char *s, double *prob, sb_err *e)
{
    double x;
    sb_err inner;
    /* Written as a share or as a percentage, as [expect] and GUI scripts
     * take them; "-0%" is -0.0 / 100, so + 0.0 once more (see
     * read_number). */
    if (units_share(s, &x, &inner) != 0 || !(x >= 0.0) || x > 1.0)
        return err_set(e,
                       "expected a probability between 0 and 1, or a "
                       "percentage from 0%% to 100%%, got '%s'",
                       s);
    *prob = x + 0.0;
    return 0;
}

/* A percentage is divided by 100 here, once, so a limit reads the same
 * whichever way it was written; a caller that kept the '%' and divided
 * later would have to say in every message which form it saw. */
int units_share(const char *s, double *x, sb_err *e)
{
    double v;
    const char *p;
    if (read_number(s, &v, &p) != 0)
        return err_set(e, "expected a number or a percentage, got '%s'", s);
    p = skip_space(p);
    if (*p == '%') {
        v /= 100.0;
        p = skip_space(p + 1);
    }
    if (*p != '\0')
        return err_set(e, "expected a number or a percentage, got '%s'", s);
    *x = v;
    return 0;
}

int units_int(const char *s, int64_t *v, sb_err *e)
{
    const char *p = s;
    if (*p == '-')
        p++;
    if (!isdigit((unsigned char)*p))
        return err_set(e, "expected an integer, got '%s'", s);
    errno = 0;
    char *end;
    long long x = strtoll(s, &end, 10);
    if (errno == ERANGE)
        return err_set(e, "integer '%s' is out of range", s);
    if (*skip_space(end) != '\0')
        return err_set(e, "expected an integer, got '%s'", s);
    *v = x;
    return 0;
}

/* Digits only, checked before strtoull: it would take "-1" as
 * UINT64_MAX and " 7" or "+7" as 7, none of which a seed is written as. */
int units_u64(const char *s, uint64_t *v, sb_err *e)
{
    const char *p = s;
    while (isdigit((unsigned char)*p))
        p++;
    errno = 0;
    unsigned long long x = *s ? strtoull(s, NULL, 10) : 0;
    if (*s == '\0' || *p != '\0' || errno == ERANGE)
        return err_set(e, "expected a whole number from 0 to %llu, got '%s'",
                       (unsigned long long)UINT64_MAX, s);
    *v = (uint64_t)x;
    return 0;
}

int units_bool(const char *s, bool *b, sb_err *e)
{
    static const char *yes[] = {"true", "yes", "on", "1"};
    static const char *no[] = {"false", "no", "off", "0"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *b = true;
            return 0;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *b = false;
            return 0;
        }
    }
    return err_set(e, "expected true or false, got '%s'", s);
}

/* Splits "name(args)" into name and the text between the parentheses. */
static int split_call(const char *s, char *name, size_t nlen, char *args,
                      size_t alen)
{
    const char *open = strchr(s, '(');
    size_t len = strlen(s);
    if (open == NULL || len == 0 || s[len - 1] != ')')
        return -1;
    size_t n = (size_t)(open - s);
    size_t a = len - n - 2;
    if (n >= nlen || a >= alen)
        return -1;
    memcpy(name, s, n);
    name[n] = '\0';
    while (n > 0 && isspace((unsigned char)name[n - 1]))
        name[--n] = '\0';
    memcpy(args, open + 1, a);
    args[a] = '\0';
    return 0;
}

/* Splits "X, Y" (a trimmed, writable copy) into its two trimmed halves;
 * -1 without exactly one comma. */
static int split_pair(char *a, char **x, char **y)
{
    char *comma = strchr(a, ',');
    if (comma == NULL || strchr(comma + 1, ',') != NULL)
        return -1;
    *comma = '\0';
    *x = textfile_trim(a);
    *y = textfile_trim(comma + 1);
    return 0;
}

static int parse_lognormal(const char *s, char *a, dist *d, sb_err *e)
{
    char *x, *y;
    sb_err inner;
    if (split_pair(a, &x, &y) != 0)
        return err_set(e,
                       "in '%s': lognormal takes a median and a "
                       "sigma, such as lognormal(80ms, 0.5)",
                       s);
    if (units_duration(x, &d->mean_ns, &inner) != 0)
        return err_set(e, "in '%s': %s", s, inner.msg);
    if (units_real(y, &d->sigma, &inner) != 0 || d->sigma < 0.0 ||
        d->sigma > 5.0)
        return err_set(e,
                       "in '%s': expected a sigma between 0 and 5, "
                       "got '%s'",
                       s, y);
    d->kind = DIST_LOGNORMAL;
    return 0;
}

/* normal(MEAN, SD): both durations, SD may be 0 (a constant). */
static int parse_normal(const char *s, char *a, dist *d, sb_err *e)
{
    char *x, *y;
    sb_err inner;
    if (split_pair(a, &x, &y) != 0)
        return err_set(e,
                       "in '%s': normal takes a mean and a standard "
                       "deviation, such as normal(100ms, 20ms)",
                       s);
    if (units_duration(x, &d->mean_ns, &inner) != 0)
        return err_set(e, "in '%s': mean: %s", s, inner.msg);
    if (units_duration(y, &d->sd_ns, &inner) != 0)
        return err_set(e, "in '%s': standard deviation: %s", s, inner.msg);
    d->kind = DIST_NORMAL;
    return 0;
}

/* uniform(A, B): durations with A <= B (A = B is a constant). */
static int parse_uniform(const char *s, char *a, dist *d, sb_err *e)
{
    char *x, *y;
    sb_err inner;
    if (split_pair(a, &x, &y) != 0)
        return err_set(e,
                       "in '%s': uniform takes a low and a high end, "
                       "such as uniform(50ms, 150ms)",
                       s);
    if (units_duration(x, &d->lo_ns, &inner) != 0)
        return err_set(e, "in '%s': low end: %s", s, inner.msg);
    if (units_duration(y, &d->hi_ns, &inner) != 0)
        return err_set(e, "in '%s': high end: %s", s, inner.msg);
    if (d->lo_ns > d->hi_ns)
        return err_set(e,
                       "in '%s': the low end '%s' is above the high end "
                       "'%s'",
                       s, x, y);
    d->mean_ns = d->lo_ns + (d->hi_ns - d->lo_ns) / 2;
    d->kind = DIST_UNIFORM;
    return 0;
}

/* empirical(FILE[, COLUMN[, UNIT]]) and histogram(FILE[, NAME[, UNIT]]):
 * a table read from FILE, dir in front of a relative one. */
static int parse_measured(const char *s, const char *name, char *a,
                          const char *dir, dist *d, sb_err *e)
{
    char *arg[3] = {a, NULL, NULL};
    int n = 1;
    for (char *c = strchr(a, ','); c && n < 4; c = strchr(c + 1, ',')) {
        *c = '\0';
        if (n < 3)
            arg[n] = c + 1;
        n++;
    }
    if (n > 3 || textfile_trim(arg[0])[0] == '\0')
        return err_set(e,
                       "in '%s': %s takes a file and up to two more "
                       "arguments, such as %s",
                       s, name,
                       name[0] == 'e' ? "empirical(latencies.csv, "
                                        "duration_ms, ms)"
                                      : "histogram(metrics.txt, "
                                        "http_request_duration_seconds)");
    char path[1400];
    const char *file = textfile_trim(arg[0]);
    if (snprintf(path, sizeof path, "%s%s", file[0] == '/' ? "" : dir, file) >=
        (int)sizeof path)
        return err_set(e, "in '%s': the path is too long", s);
    const char *x = arg[1] ? textfile_trim(arg[1]) : NULL;
    const char *y = arg[2] ? textfile_trim(arg[2]) : NULL;
    const struct measured *t;
    int rc = name[0] == 'e' ? measured_values(path, x, y, &t, e)
                            : measured_histogram(path, x, y, &t, e);
    if (rc != 0)
        return -1;
    d->kind = name[0] == 'e' ? DIST_EMPIRICAL : DIST_HISTOGRAM;
    d->table = t;
    d->mean_ns = (int64_t)llround(measured_mean(t));
    return 0;
}

int units_dist(const char *s, dist *d, sb_err *e)
{
    return units_dist_in(s, "", d, e);
}

int units_dist_in(const char *s, const char *dir, dist *d, sb_err *e)
{
    const char *want = "expected a distribution: const(D), exp(D), "
                       "lognormal(MEDIAN, SIGMA), normal(MEAN, SD), "
                       "uniform(A, B), empirical(FILE), histogram(FILE) "
                       "or a duration D";
    char name[32], args[1400];
    sb_err inner;
    memset(d, 0, sizeof *d);
    if (strchr(s, '(') == NULL) {
        if (units_duration(s, &d->mean_ns, &inner) != 0)
            return err_set(e, "%s, got '%s'", want, s);
        d->kind = DIST_CONST;
        return 0;
    }
    if (split_call(s, name, sizeof name, args, sizeof args) != 0)
        return err_set(e, "%s, got '%s'", want, s);
    char *a = textfile_trim(args);
    if (strcmp(name, "const") == 0 || strcmp(name, "exp") == 0) {
        if (units_duration(a, &d->mean_ns, &inner) != 0)
            return err_set(e, "in '%s': %s", s, inner.msg);
        d->kind = strcmp(name, "const") == 0 ? DIST_CONST : DIST_EXP;
        return 0;
    }
    if (strcmp(name, "lognormal") == 0)
        return parse_lognormal(s, a, d, e);
    if (strcmp(name, "normal") == 0)
        return parse_normal(s, a, d, e);
    if (strcmp(name, "uniform") == 0)
        return parse_uniform(s, a, d, e);
    if (strcmp(name, "empirical") == 0 || strcmp(name, "histogram") == 0)
        return parse_measured(s, name, a, dir, d, e);
    return err_set(e, "%s, got '%s' (unknown distribution '%s')", want, s,
                   name);
}

double units_dist_mean(const dist *d)
{
    switch (d->kind) {
    case DIST_LOGNORMAL:
        return (double)d->mean_ns * exp(d->sigma * d->sigma / 2.0);
    case DIST_NORMAL: {
        if (d->sd_ns <= 0)
            return (double)d->mean_ns;
        double mu = (double)d->mean_ns, sd = (double)d->sd_ns;
        double a = -mu / sd;
        double phi = exp(-a * a / 2.0) / 2.5066282746310002; /* sqrt(2 pi) */
        double tail = 0.5 * erfc(a / sqrt(2.0));             /* 1 - Phi(a) */
        return mu + sd * phi / tail;
    }
    case DIST_UNIFORM:
        return ((double)d->lo_ns + (double)d->hi_ns) / 2.0;
    case DIST_EMPIRICAL:
    case DIST_HISTOGRAM:
        return measured_mean(d->table);
    default:
        return (double)d->mean_ns;
    }
}

const char *units_fmt_duration(int64_t ns, char *buf, int len)
{
    static const struct {
        const char *name;
        int64_t ns;
    } u[] = {{"h", 3600 * NS_PER_S}, {"m", 60 * NS_PER_S}, {"s", NS_PER_S},
             {"ms", NS_PER_MS},      {"us", NS_PER_US},    {"ns", 1}};
    if (ns == 0) {
        snprintf(buf, (size_t)len, "0s");
        return buf;
    }
    for (size_t i = 0; i < sizeof u / sizeof *u; i++) {
        if (ns % u[i].ns == 0) {
            snprintf(buf, (size_t)len, "%lld%s", (long long)(ns / u[i].ns),
                     u[i].name);
            return buf;
        }
    }
    return buf;
}

const char *units_fmt_dist(const dist *d, char *buf, int len)
{
    char m[32], x[32], y[32];
    units_fmt_duration(d->mean_ns, m, sizeof m);
    switch (d->kind) {
    case DIST_CONST:
        snprintf(buf, (size_t)len, "const(%s)", m);
        break;
    case DIST_EXP:
        snprintf(buf, (size_t)len, "exp(%s)", m);
        break;
    case DIST_LOGNORMAL:
        snprintf(buf, (size_t)len, "lognormal(%s, %g)", m, d->sigma);
        break;
    case DIST_NORMAL:
        snprintf(buf, (size_t)len, "normal(%s, %s)", m,
                 units_fmt_duration(d->sd_ns, x, sizeof x));
        break;
    case DIST_UNIFORM:
        snprintf(buf, (size_t)len, "uniform(%s, %s)",
                 units_fmt_duration(d->lo_ns, x, sizeof x),
                 units_fmt_duration(d->hi_ns, y, sizeof y));
        break;
    case DIST_EMPIRICAL:
    case DIST_HISTOGRAM:
        snprintf(buf, (size_t)len, "%s", measured_shown(d->table));
        break;
    }
    return buf;
}
