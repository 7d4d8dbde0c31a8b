/*
 * junit.c -- [expect] verdicts as JUnit XML (junit.h).
 */
#include "junit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The length of the UTF-8 sequence at s (1 to 4), or 0 when it is not
 * one: a stray continuation byte, a truncated sequence, an overlong form,
 * a surrogate or a code point past U+10FFFF.  XML parsers refuse a
 * document with any of these, so they are written as '?'. */
static int utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    int n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (n == 0 || c > 0xF4)
        return 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0) ||
        (c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90))
        return 0;
    return n;
}

/* s as XML character data or an attribute value. */
static void text(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n = utf8_len(p);
        if (n == 0) {
            fputc('?', f);
            p++;
            continue;
        }
        if (n > 1) {
            fwrite(p, 1, (size_t)n, f);
            p += n;
            continue;
        }
        switch (*p) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        default:
            /* XML 1.0 allows tab, line feed and carriage return of the
             * control characters, and no other (not even as &#1;). */
            if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
                fputc(' ', f);
            else
                fputc(*p, f);
        }
        p++;
    }
}

static void attr(FILE *f, const char *name, const char *value)
{
    fprintf(f, " %s=\"", name);
    text(f, value ? value : "");
    fputc('"', f);
}

static void count_attrs(FILE *f, int tests, int failures, int skipped)
{
    fprintf(f, " tests=\"%d\" failures=\"%d\" errors=\"0\"", tests, failures);
    if (skipped >= 0)
        fprintf(f, " skipped=\"%d\"", skipped);
}

static void one_case(FILE *f, const char *classname, const junit_case *c)
{
    fputs("    <testcase", f);
    attr(f, "classname", classname);
    attr(f, "name", c->name);
    if (c->status == JUNIT_PASSED) {
        fputs("/>\n", f);
        return;
    }
    fputs(">\n", f);
    if (c->status == JUNIT_SKIPPED) {
        /* The schema's <skipped> holds text only, no attribute. */
        fputs("      <skipped>", f);
        text(f, c->message ? c->message : "");
        fputs("</skipped>\n", f);
    } else {
        fputs("      <failure type=\"expectation\"", f);
        attr(f, "message", c->message);
        fputc('>', f);
        text(f, c->detail ? c->detail : "");
        fputs("</failure>\n", f);
    }
    fputs("    </testcase>\n", f);
}

static void one_suite(FILE *f, const junit_suite *s, int id)
{
    int failures = 0, skipped = 0;
    for (int i = 0; i < s->n_cases; i++) {
        failures += s->cases[i].status == JUNIT_FAILED;
        skipped += s->cases[i].status == JUNIT_SKIPPED;
    }
    fputs("  <testsuite", f);
    attr(f, "name", s->name);
    count_attrs(f, s->n_cases, failures, skipped);
    if (s->time_s >= 0 && isfinite(s->time_s))
        fprintf(f, " time=\"%.3f\"", s->time_s);
    fprintf(f, " id=\"%d\" package=\"stormbench\">\n", id);
    if (s->n_props > 0) {
        fputs("    <properties>\n", f);
        for (int i = 0; i < s->n_props; i++) {
            fputs("      <property", f);
            attr(f, "name", s->props[i].name);
            attr(f, "value", s->props[i].value);
            fputs("/>\n", f);
        }
        fputs("    </properties>\n", f);
    }
    for (int i = 0; i < s->n_cases; i++)
        one_case(f, s->classname, &s->cases[i]);
    if (s->system_out) {
        fputs("    <system-out>", f);
        text(f, s->system_out);
        fputs("</system-out>\n", f);
    }
    fputs("  </testsuite>\n", f);
}

void junit_write(FILE *f, const char *name, const junit_suite *suites,
                 int n_suites)
{
    int tests = 0, failures = 0;
    double time = 0;
    bool timed = n_suites > 0;
    for (int i = 0; i < n_suites; i++) {
        tests += suites[i].n_cases;
        for (int j = 0; j < suites[i].n_cases; j++)
            failures += suites[i].cases[j].status == JUNIT_FAILED;
        timed = timed && suites[i].time_s >= 0;
        time += suites[i].time_s;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", f);
    attr(f, "name", name);
    /* The root has no skipped attribute in the schema. */
    count_attrs(f, tests, failures, -1);
    if (timed && isfinite(time))
        fprintf(f, " time=\"%.3f\"", time);
    fputs(">\n", f);
    for (int i = 0; i < n_suites; i++)
        one_suite(f, &suites[i], i);
    fputs("</testsuites>\n", f);
}

void junit_case_of(const expect_result *r, junit_case *c, char *detail,
                   size_t len)
{
    c->name = r->name;
    c->message = r->explain;
    c->status = r->ok ? JUNIT_PASSED : JUNIT_FAILED;
    c->detail = detail;
    if (r->has_value)
        snprintf(detail, len, "%s: measured %.6g%s%s, limit %.6g%s%s\n%s",
                 r->name, r->value, *r->unit ? " " : "", r->unit, r->limit,
                 *r->unit ? " " : "", r->unit, r->explain);
    else
        snprintf(detail, len, "%s: no value (limit %.6g%s%s)\n%s", r->name,
                 r->limit, *r->unit ? " " : "", r->unit, r->explain);
}

/* s with the characters a report would split or mangle as '_'. */
static void class_part(const char *s, char *out, size_t len)
{
    snprintf(out, len, "%s", s);
    for (char *p = out; *p; p++)
        if (*p == '.' || *p == ' ' || *p == '/')
            *p = '_';
}

void junit_classname(const char *scenario, const char *policy, char *out,
                     size_t len)
{
    char a[128], b[128];
    class_part(scenario, a, sizeof a);
    class_part(policy, b, sizeof b);
    snprintf(out, len, "stormbench.%s.%s", a, b);
}

/* ---- A comparison ---------------------------------------------------------- */

/* What one assertion did over a policy's seeds at one point. */
typedef struct seed_tally {
    uint32_t failed;
    unsigned long long first_seed;
    char message[560]; /* "failed on 2 of 10 seeds (3, 7): ...": room for
                           seeds and first whole */
    char seeds[160];   /* the failing seeds, the first few */
    char first[320];   /* the first failure's sentence */
    char detail[6144]; /* a line per seed, as many as fit */
    size_t used;
} seed_tally;

static void tally_seed(seed_tally *t, const expect_result *res,
                       unsigned long long seed)
{
    if (!res->ok) {
        if (t->failed == 0) {
            t->first_seed = seed;
            snprintf(t->first, sizeof t->first, "%s", res->explain);
        }
        size_t n = strlen(t->seeds);
        if (t->failed < 12)
            snprintf(t->seeds + n, sizeof t->seeds - n, "%s%llu",
                     t->failed ? ", " : "", seed);
        else if (t->failed == 12)
            snprintf(t->seeds + n, sizeof t->seeds - n, ", ...");
        t->failed++;
    }
    if (t->used < sizeof t->detail) {
        int w = snprintf(t->detail + t->used, sizeof t->detail - t->used,
                         "seed %llu: %s  %s\n", seed, res->ok ? "PASS" : "FAIL",
                         res->explain);
        t->used += w > 0 ? (size_t)w : 0;
    }
}

/* "retry-storm: exponential at clients.rate=50/s". */
static void suite_name(const compare_result *r, uint32_t pt, int pol, char *buf,
                       size_t len)
{
    const compare_plan *p = r->plan;
    int n = snprintf(buf, len, "%s: %s", p->name, p->policies[pol].label);
    for (int a = 0; a < p->n_axes && n > 0 && (size_t)n < len; a++)
        n += snprintf(buf + n, len - (size_t)n, "%s%s=%g%s", a ? ", " : " at ",
                      p->axes[a].key, p->points[pt].value[a], p->axes[a].unit);
}

static void compare_suite(const compare_result *r, uint32_t pt, int pol,
                          const expect_set *x, seed_tally *t, int n_x)
{
    const compare_plan *p = r->plan;
    expect_result res[EXPECT_KIND_COUNT];
    memset(t, 0, (size_t)n_x * sizeof *t);
    for (uint32_t s = 0; s < p->n_seeds; s++) {
        const compare_run *run =
            &r->runs[((size_t)pt * (size_t)p->n_policies + (size_t)pol) *
                         p->n_seeds +
                     s];
        int n = expect_eval(x, &run->sum, res);
        for (int i = 0; i < n && i < n_x; i++)
            tally_seed(&t[i], &res[i], (unsigned long long)run->seed);
    }
    for (int i = 0; i < n_x; i++)
        if (t[i].failed && p->n_seeds == 1) /* not "1 of 1 seeds" */
            snprintf(t[i].message, sizeof t[i].message,
                     "failed on its only seed (%llu): %s", t[i].first_seed,
                     t[i].first);
        else if (t[i].failed)
            snprintf(t[i].message, sizeof t[i].message,
                     "failed on %u of %u seeds (%s); seed %llu: %s",
                     t[i].failed, p->n_seeds, t[i].seeds, t[i].first_seed,
                     t[i].first);
}

int junit_compare(FILE *f, const compare_result *r, const expect_set *x,
                  const char *const *skipped, int n_skipped, const char *why)
{
    const compare_plan *p = r->plan;
    int n_x = 0;
    expect_kind kinds[EXPECT_KIND_COUNT];
    for (int k = 0; k < EXPECT_KIND_COUNT; k++)
        if (x->has[k])
            kinds[n_x++] = (expect_kind)k;
    size_t n_suites = (size_t)p->n_points * (size_t)p->n_policies;
    junit_suite *suites = calloc(n_suites ? n_suites : 1, sizeof *suites);
    junit_case *cases =
        calloc(n_suites * (size_t)(n_x + n_skipped) + 1, sizeof *cases);
    seed_tally *tally = calloc(n_suites * (size_t)n_x + 1, sizeof *tally);
    char(*names)[512] = calloc(n_suites + 1, sizeof *names);
    char cls[COMPARE_MAX_POLICIES][256];
    char seeds[32];
    junit_prop props[3] = {
        {"scenario", p->name}, {"file", p->scenario}, {"seeds", seeds}};
    if (!suites || !cases || !tally || !names) {
        free(suites), free(cases), free(tally), free(names);
        return -1;
    }
    snprintf(seeds, sizeof seeds, "%u from %llu", p->n_seeds,
             (unsigned long long)p->seed0);
    for (int pol = 0; pol < p->n_policies; pol++) {
        junit_classname(p->name, p->policies[pol].label, cls[pol],
                        sizeof cls[pol]);
    }
    for (size_t i = 0; i < n_suites; i++) {
        uint32_t pt = (uint32_t)(i / (size_t)p->n_policies);
        int pol = (int)(i % (size_t)p->n_policies);
        seed_tally *t = &tally[i * (size_t)n_x];
        junit_case *c = &cases[i * (size_t)(n_x + n_skipped)];
        compare_suite(r, pt, pol, x, t, n_x);
        for (int k = 0; k < n_x; k++)
            c[k] = (junit_case){expect_name(kinds[k]),
                                t[k].failed ? JUNIT_FAILED : JUNIT_PASSED,
                                t[k].message, t[k].detail};
        for (int k = 0; k < n_skipped; k++)
            c[n_x + k] = (junit_case){skipped[k], JUNIT_SKIPPED, why, NULL};
        suite_name(r, pt, pol, names[i], sizeof names[i]);
        suites[i] = (junit_suite){names[i], cls[pol],        props, 3,
                                  c,        n_x + n_skipped, -1,    NULL};
    }
    junit_write(f, "stormbench compare", suites, (int)n_suites);
    free(suites), free(cases), free(tally), free(names);
    return 0;
}
