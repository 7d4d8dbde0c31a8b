/*
 * compare_verdict.c -- which policies did best on each metric, which
 * differences are more than noise, and the sentence that says so; and
 * how the tables print their numbers, which the sentences share.
 *
 * The rules are in compare.h above compare_verdict.  Every pair is
 * tested, not only the best against each other policy: a verdict that
 * duelled the best with the others named the one with the largest p (a
 * twin, identical on every seed, gave "not significant (p = 1)" while the
 * rest were far behind), and only all the pairs give the significance
 * groups and the ties a reader needs.  Holm's adjustment over all of them
 * costs power against the family of n - 1 duels; with the 5 to 20 seeds
 * a comparison has, a real difference between paired runs still gives p
 * far below 0.05 / 10.
 *
 * The paired t test is the one most pairs rest on, not the Wilcoxon test:
 * with few seeds the t test has more power, and the differences of paired
 * runs are far closer to normal than the runs themselves.  Not so for a
 * handful of 0s and 1s (sparse counts: the exact sign test), nor for the
 * runs that failed to recover or complete (their counts: the exact
 * McNemar test).  The Wilcoxon p is there (stats_paired) for a reader who
 * wants it.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "compare.h"

#define SIGNIFICANCE 0.05

/* ---- Numbers as the tables print them ------------------------------------ */

/* Decimals that show x with three significant digits. */
static int decimals_for(double x)
{
    if (!isfinite(x) || x == 0.0)
        return 0;
    int d = 2 - (int)floor(log10(fabs(x)));
    return d < 0 ? 0 : d > 6 ? 6 : d;
}

static void number(char *buf, size_t len, double v, int decimals)
{
    if (!isfinite(v)) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, len, "%.*f", decimals, v);
    /* -0.04 at one decimal is "-0.0": a sign on nothing. */
    if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
        memmove(buf, buf + 1, strlen(buf));
}

int compare_stat_decimals(const compare_stat *s)
{
    double scale = s->ci.mean;
    if (scale == 0.0 && isfinite(s->ci.half_width))
        scale = s->ci.half_width;
    return decimals_for(scale);
}

void compare_stat_numbers(const compare_stat *s, compare_numbers *out)
{
    compare_stat_numbers_at(s, -1, out);
}

/* The decimals of s's interval ends, given the mean's d: d, unless an
 * end rounds to zero there, as a lower end cut at 0 does; then the
 * decimals that give the half width two significant digits, when fewer.
 * Wasted work printed "0.0319 [0.0000, 0.0957]": four decimals of a zero
 * the interval cannot tell from 0.0004; now "0.0319 [0.000, 0.096]",
 * both ends to the interval's own precision.  Not for every interval
 * (that would be the rule in general): it would reprint every table
 * whose ends now agree with their mean's digits. */
static int ends_decimals(const compare_stat *s, int d)
{
    double hw = s->ci.half_width, half_unit = 0.5 * pow(10.0, -d);
    if (d == 0 || !(hw > 0.0) || !isfinite(hw) || !isfinite(s->ci.lo) ||
        !isfinite(s->ci.hi))
        return d;
    if (fabs(s->ci.lo) >= half_unit && fabs(s->ci.hi) >= half_unit)
        return d;
    int w = 1 - (int)floor(log10(hw));
    w = w < 0 ? 0 : w;
    return w < d ? w : d;
}

void compare_stat_numbers_at(const compare_stat *s, int decimals,
                             compare_numbers *out)
{
    int d = decimals >= 0 ? decimals : compare_stat_decimals(s);
    int e = ends_decimals(s, d);
    number(out->mean, sizeof out->mean, s->ci.mean, d);
    number(out->lo, sizeof out->lo, s->ci.lo, e);
    number(out->hi, sizeof out->hi, s->ci.hi, e);
}

/* Seconds in one of a duration unit; 0 for any other unit. */
static double unit_seconds(const char *unit)
{
    return strcmp(unit, "ms") == 0 ? 1e-3 : strcmp(unit, "s") == 0 ? 1.0 : 0.0;
}

/* Ten of the unit up, as a reader would say it: past 10 s the
 * milliseconds are digits no one reads ("239444 ms"), past 10 min the
 * seconds are ("3612 s" for an hour); below ten of the next unit the
 * smaller one keeps its digits ("9.50 s", not "0.158 min"). */
const char *compare_unit_for(const char *unit, double top, double *div)
{
    double sec = unit_seconds(unit);
    *div = 1.0;
    if (sec == 0.0)
        return unit;
    if (top * sec >= 600.0) {
        *div = 60.0 / sec;
        return "min";
    }
    if (top * sec >= 10.0 && sec < 1.0) {
        *div = 1.0 / sec;
        return "s";
    }
    return unit;
}

/* top, or s's absolute mean when that is finite and larger. */
static double top_mean(double top, const compare_stat *s)
{
    double v = fabs(s->ci.mean);
    return isfinite(v) && v > top ? v : top;
}

const char *compare_shown_unit(const compare_result *r, uint32_t pt,
                               compare_metric m, double *div)
{
    double top = 0.0;
    for (int pol = 0; pol < r->plan->n_policies; pol++)
        top = top_mean(top, compare_stat_at(r, pt, pol, m));
    return compare_unit_for(compare_metrics[m].unit, top, div);
}

const char *compare_phase_unit(const compare_result *r, uint32_t pt,
                               compare_phase_kind k, int f, double *div)
{
    double top = 0.0;
    for (int pol = 0; pol < r->plan->n_policies; pol++)
        top = top_mean(top, compare_phase_stat_at(r, pt, pol, k, f));
    return compare_unit_for(compare_phase_figures[f].unit, top, div);
}

const char *compare_tier_unit(const compare_result *r, uint32_t pt, uint32_t t,
                              int f, double *div)
{
    double top = 0.0;
    for (int pol = 0; pol < r->plan->n_policies; pol++)
        top = top_mean(top, compare_tier_stat_at(r, pt, pol, t, f));
    return compare_unit_for(compare_tier_figures[f].unit, top, div);
}

void compare_stat_divided(const compare_stat *s, double div, compare_stat *out)
{
    *out = *s;
    if (div == 1.0)
        return;
    out->ci.mean /= div;
    out->ci.sd /= div;
    out->ci.half_width /= div;
    out->ci.lo /= div;
    out->ci.hi /= div;
    out->median /= div;
}

void compare_stat_shown(const compare_result *r, uint32_t pt, int pol,
                        compare_metric m, compare_stat *out)
{
    double div;
    compare_shown_unit(r, pt, m, &div);
    compare_stat_divided(compare_stat_at(r, pt, pol, m), div, out);
}

static void stat_text(const compare_stat *st, char *buf, size_t len)
{
    compare_numbers n;
    compare_stat_numbers(st, &n);
    if (n.mean[0] == '\0')
        snprintf(buf, len, "-");
    else if (n.lo[0] == '\0')
        snprintf(buf, len, "%s", n.mean);
    else
        snprintf(buf, len, "%s [%s, %s]", n.mean, n.lo, n.hi);
}

void compare_cell_text(const compare_result *r, uint32_t pt, int pol,
                       compare_metric m, char *buf, size_t len)
{
    compare_stat shown;
    compare_stat_shown(r, pt, pol, m, &shown);
    const compare_stat *st = &shown;
    stat_text(st, buf, len);
    size_t used = strlen(buf);
    uint32_t failed, applies;
    compare_failures(r, pt, pol, m, &failed, &applies);
    if (m == CM_RECOVERY_S && failed > 0 && st->ci.n > 0)
        snprintf(buf + used, len - used, " over %zu seed%s", st->ci.n,
                 st->ci.n == 1 ? "" : "s");
    else if (m == CM_COMPLETION_S && failed > 0)
        snprintf(buf + used, len - used, "; did not complete in %u of %u",
                 failed, applies);
    else if (m != CM_RECOVERY_S && st->missing && st->ci.n)
        snprintf(buf + used, len - used, "; no value in %u of %u", st->missing,
                 r->plan->n_seeds);
}

void compare_tipping_text(const compare_tipping *t, char *buf, size_t len)
{
    if (t->n == 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%u of %u, %.0f %% [%.0f, %.0f]", t->tipped, t->n,
                 100.0 * t->share, 100.0 * t->lo, 100.0 * t->hi);
}

void compare_with_unit(const char *num, const char *unit, char *buf, size_t len)
{
    bool spaced = strcmp(unit, "%") == 0 || strcmp(unit, "s") == 0 ||
                  strcmp(unit, "ms") == 0 || strcmp(unit, "min") == 0;
    snprintf(buf, len, "%s%s%s", num, spaced ? " " : "", unit);
}

/* ---- Verdicts ------------------------------------------------------------ */

/* A growing sentence: appends past the end are dropped, never overrun. */
typedef struct words {
    char *buf;
    size_t len, used;
} words;

static void say(words *w, const char *fmt, ...) SB_PRINTF(2, 3);

static void say(words *w, const char *fmt, ...)
{
    if (w->used >= w->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(w->buf + w->used, w->len - w->used, fmt, ap);
    va_end(ap);
    if (n > 0)
        w->used += (size_t)n;
}

/* One comparison of two policies across the seeds. */
typedef struct pair {
    double p;       /* raw, then Holm-adjusted; NaN: not testable */
    unsigned test;  /* compare_test */
    bool same;      /* identical on every seed: not tested */
    bool sig;       /* adjusted p below SIGNIFICANCE */
    bool decidable; /* the test could reach p < SIGNIFICANCE over its
                       seeds (see pair_decidable) */
} pair;

/* One point and metric, every policy's runs side by side. */
typedef struct contest {
    const compare_result *res;
    uint32_t point;
    compare_metric m;
    int n_pol;
    uint32_t n_seeds;
    bool by_failures;  /* recovery, completion: failures count first */
    double *v;         /* [policy][seed] values */
    int8_t *failed;    /* [policy][seed]: compare_metric_failed */
    uint32_t *fails;   /* [policy] runs failed */
    uint32_t *applies; /* [policy] runs the metric applies to */
    pair *pairs;       /* [a * n_pol + b], the same both ways */
    int order[COMPARE_MAX_POLICIES]; /* the ranking, best first */
} contest;

static const compare_run *run_at(const contest *c, int pol, uint32_t sd)
{
    const compare_plan *p = c->res->plan;
    return &c->res->runs[((size_t)c->point * (size_t)p->n_policies +
                          (size_t)pol) *
                             p->n_seeds +
                         sd];
}

static double mean_of(const contest *c, int pol)
{
    return compare_stat_at(c->res, c->point, pol, c->m)->ci.mean;
}

static pair *pair_of(const contest *c, int a, int b)
{
    return &c->pairs[(size_t)a * (size_t)c->n_pol + (size_t)b];
}

static bool contest_fill(contest *c)
{
    size_t cells = (size_t)c->n_pol * c->n_seeds;
    c->v = malloc(cells * sizeof *c->v);
    c->failed = malloc(cells * sizeof *c->failed);
    c->fails = calloc((size_t)c->n_pol, sizeof *c->fails);
    c->applies = calloc((size_t)c->n_pol, sizeof *c->applies);
    c->pairs = calloc((size_t)c->n_pol * (size_t)c->n_pol, sizeof *c->pairs);
    if (!c->v || !c->failed || !c->fails || !c->applies || !c->pairs)
        return false;
    for (int pol = 0; pol < c->n_pol; pol++)
        for (uint32_t sd = 0; sd < c->n_seeds; sd++) {
            const compare_run *r = run_at(c, pol, sd);
            size_t i = (size_t)pol * c->n_seeds + sd;
            c->v[i] = compare_metric_of(r, c->m);
            c->failed[i] = (int8_t)compare_metric_failed(c->res->plan, r, c->m);
            c->fails[pol] += c->failed[i] == 1;
            c->applies[pol] += c->failed[i] >= 0;
        }
    return true;
}

static void contest_free(contest *c)
{
    free(c->v);
    free(c->failed);
    free(c->fails);
    free(c->applies);
    free(c->pairs);
}

/* Is a better than b?  Fewer failures first (when they count), then the
 * mean, a missing mean last. */
static bool better(const contest *c, int a, int b)
{
    if (c->by_failures && c->fails[a] != c->fails[b])
        return c->fails[a] < c->fails[b];
    double x = mean_of(c, a), y = mean_of(c, b);
    if (isnan(y))
        return !isnan(x);
    if (isnan(x))
        return false;
    return compare_metrics[c->m].better > 0 ? x > y : x < y;
}

/* The ranking, best first; equal places keep the order of the listing
 * (an insertion sort, stable by construction). */
static void rank(contest *c)
{
    for (int i = 0; i < c->n_pol; i++) {
        int j = i;
        while (j > 0 && better(c, i, c->order[j - 1])) {
            c->order[j] = c->order[j - 1];
            j--;
        }
        c->order[j] = i;
    }
}

static bool is_count(compare_metric m)
{
    return m == CM_DUPLICATES || m == CM_QUARANTINED ||
           m == CM_ALERTS_CRITICAL || m == CM_ITEMS_DUPLICATED;
}

/* Counts too small for a mean to be near normal: both means under
 * COMPARE_SPARSE_COUNT (a count of 0 or 1 per seed, a few alerts). */
static bool sparse(const contest *c, int a, int b)
{
    double x = mean_of(c, a), y = mean_of(c, b);
    return is_count(c->m) && isfinite(x) && isfinite(y) &&
           x < COMPARE_SPARSE_COUNT && y < COMPARE_SPARSE_COUNT;
}

/* The exact sign test over the seeds where a and b both have a value
 * and differ. */
static double sign_test_values(const double *a, const double *b, uint32_t n)
{
    size_t above = 0, below = 0;
    for (uint32_t s = 0; s < n; s++)
        if (isfinite(a[s]) && isfinite(b[s])) {
            above += a[s] > b[s];
            below += a[s] < b[s];
        }
    return stats_sign_test(above, below);
}

/* When is a difference that is not significant a tie?  Only when the
 * test could have told the two apart: a pair identical on every seed
 * ties, and so does one whose test could reach p < 0.05 over the seeds
 * it had, had every seed gone one way (`decidable`).  The exact tests
 * over n seeds -- McNemar on failures, the sign test on sparse counts --
 * reach no lower than 2 / 2^n: 0.0625 at 5 seeds, so that over 5 seeds
 * or fewer not even 0 of n against n of n (never recovered on any seed
 * against recovered on all) is significant, and "tied" would read as
 * evidence that the two are alike where the seeds hold none.  Such a
 * pair is "not told apart over these n seeds", with the seeds the test
 * needs (compare_exact_seeds: 6, 2 / 64 = 0.031).  The paired t test
 * over 2 or more seeds can reach any p.  The bound is the raw p, before
 * Holm's adjustment: when the raw p cannot reach 0.05 neither can the
 * adjusted one, so "not told apart" is never said of a pair the test
 * could separate; the rejected alternative, a bound after the
 * adjustment, turns on the other pairs' p values, which a reader cannot
 * check from the pair's own counts.  (The pairs are matched seeds -- the
 * same arrivals and faults -- so the paired McNemar test is the one that
 * applies, not Fisher's test for two independent samples, which for 0 of
 * n against n of n gives 2 / C(2n, n): 0.1 at 3 seeds, 0.029 at 4.) */
static void pair_test(const contest *c, int i, int j, pair *d)
{
    const double *a = c->v + (size_t)i * c->n_seeds;
    const double *b = c->v + (size_t)j * c->n_seeds;
    const int8_t *fa = c->failed + (size_t)i * c->n_seeds;
    const int8_t *fb = c->failed + (size_t)j * c->n_seeds;
    memset(d, 0, sizeof *d);
    d->same = true;
    for (uint32_t s = 0; s < c->n_seeds && d->same; s++)
        d->same =
            fa[s] == fb[s] && (a[s] == b[s] || (isnan(a[s]) && isnan(b[s])));
    if (d->same) {
        d->p = NAN; /* not a hypothesis: left out of Holm's family */
        d->decidable = true;
        return;
    }
    size_t both = 0; /* the seeds the test rests on */
    if (c->by_failures && c->fails[i] != c->fails[j]) {
        size_t only_b = 0, only_a = 0;
        for (uint32_t s = 0; s < c->n_seeds; s++)
            if (fa[s] >= 0 && fb[s] >= 0) {
                only_b += fa[s] == 0 && fb[s] == 1;
                only_a += fa[s] == 1 && fb[s] == 0;
                both++;
            }
        d->test = CT_MCNEMAR;
        d->p = stats_sign_test(only_b, only_a);
        d->decidable = stats_sign_test(both, 0) < SIGNIFICANCE;
        return;
    }
    for (uint32_t s = 0; s < c->n_seeds; s++)
        both += isfinite(a[s]) && isfinite(b[s]);
    if (sparse(c, i, j)) {
        d->test = CT_SIGN;
        d->p = sign_test_values(a, b, c->n_seeds);
        d->decidable = stats_sign_test(both, 0) < SIGNIFICANCE;
    } else {
        stats_paired t;
        stats_paired_test(a, b, c->n_seeds, 0.95, &t);
        d->test = CT_PAIRED_T;
        d->p = t.p_t;
        d->decidable = both >= 2;
    }
}

/* Test every pair, then Holm over those tested. */
static bool test_pairs(contest *c)
{
    int n = c->n_pol;
    double *p = malloc((size_t)n * (size_t)n * sizeof *p);
    if (p == NULL)
        return false;
    size_t k = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            pair_test(c, i, j, pair_of(c, i, j));
            p[k++] = pair_of(c, i, j)->p;
        }
    stats_holm(p, k);
    k = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            pair *d = pair_of(c, i, j);
            d->p = d->same ? 1.0 : p[k];
            k++;
            d->sig = !isnan(d->p) && d->p < SIGNIFICANCE;
            *pair_of(c, j, i) = *d;
        }
    free(p);
    return true;
}

/* ---- Significance groups ---------------------------------------------------- */

#define MAX_GROUPS 64

/* Drop every group that another one holds (Piepho's absorb step). */
static int absorb(uint32_t *g, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        bool held = false;
        for (int j = 0; j < n && !held; j++)
            held = j != i && (g[i] & g[j]) == g[i] && (g[i] != g[j] || j < i);
        if (!held)
            g[k++] = g[i];
    }
    return k;
}

/* The best ranking place among a group's members. */
static int group_place(const contest *c, uint32_t g)
{
    for (int r = 0; r < c->n_pol; r++)
        if (g & (1u << c->order[r]))
            return r;
    return c->n_pol;
}

/* Piepho (2004): start with one group of every policy; for each pair
 * that differs, split every group holding both into one without either
 * member, then absorb.  The groups that are left are the maximal sets of
 * policies no two of which differ; letters go by the best place in each. */
static void letters(const contest *c, compare_verdict *out)
{
    uint32_t g[MAX_GROUPS * 2];
    int n = 1;
    g[0] = (c->n_pol >= 32 ? ~0u : (1u << c->n_pol) - 1u);
    bool any = false;
    for (int i = 0; i < c->n_pol; i++)
        for (int j = i + 1; j < c->n_pol; j++) {
            if (!pair_of(c, i, j)->sig)
                continue;
            any = true;
            uint32_t both = (1u << i) | (1u << j);
            int m = n;
            for (int k = 0; k < m; k++)
                if ((g[k] & both) == both) {
                    g[n++] = g[k] & ~(1u << i);
                    g[k] &= ~(1u << j);
                }
            n = absorb(g, n);
            if (n > MAX_GROUPS)
                return; /* no letters: too many to read anyway */
        }
    if (!any || n > 26)
        return;
    /* Order the groups by their best place (selection: n is small). */
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (group_place(c, g[b]) < group_place(c, g[a])) {
                uint32_t t = g[a];
                g[a] = g[b];
                g[b] = t;
            }
    for (int pol = 0; pol < c->n_pol; pol++) {
        size_t k = 0;
        for (int a = 0; a < n && k + 1 < sizeof out->letters[0]; a++)
            if (g[a] & (1u << pol))
                out->letters[pol][k++] = (char)('a' + a);
        out->letters[pol][k] = '\0';
    }
}

/* ---- The sentence ------------------------------------------------------------ */

void compare_tests_text(unsigned tests, char *buf, size_t len)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{CT_PAIRED_T, "paired t"},
                 {CT_SIGN, "exact sign test"},
                 {CT_MCNEMAR, "exact McNemar test"}};
    words w = {buf, len, 0};
    buf[0] = '\0';
    int n = 0, total = 0;
    for (size_t i = 0; i < 3; i++)
        total += (tests & names[i].bit) != 0;
    for (size_t i = 0; i < 3; i++)
        if (tests & names[i].bit) {
            say(&w, "%s%s",
                n == 0           ? ""
                : n == total - 1 ? " and "
                                 : ", ",
                names[i].name);
            n++;
        }
}

/* "99.2 %", or "no value" when the policy has none; with `decimals`
 * decimals when it is 0 or more, else the tables' three digits. */
static void mean_text_at(const contest *c, int pol, int decimals, char *buf,
                         size_t len)
{
    compare_stat st;
    compare_stat_shown(c->res, c->point, pol, c->m, &st);
    double div;
    const char *unit = compare_shown_unit(c->res, c->point, c->m, &div);
    compare_numbers n;
    compare_stat_numbers(&st, &n);
    if (decimals >= 0)
        number(n.mean, sizeof n.mean, st.ci.mean, decimals);
    if (n.mean[0] == '\0')
        snprintf(buf, len, "no value");
    else
        compare_with_unit(n.mean, unit, buf, len);
}

static void mean_text(const contest *c, int pol, char *buf, size_t len)
{
    mean_text_at(c, pol, -1, buf, len);
}

static const char *failure_verb(compare_metric m)
{
    return m == CM_RECOVERY_S ? "did not recover" : "did not complete";
}

/* A policy's figure in a sentence.  By counts (the failures decide):
 * "1 of 5 seeds".  Else its mean, and for recovery and completion what
 * the mean is over: "22.0 s over the 3 seeds that recovered", "never
 * recovered". */
static void value_text_at(const contest *c, int pol, bool counts, int decimals,
                          char *buf, size_t len)
{
    if (counts) {
        snprintf(buf, len, "%u of %u seed%s", c->fails[pol], c->applies[pol],
                 c->applies[pol] == 1 ? "" : "s");
        return;
    }
    if (c->by_failures && c->fails[pol] > 0 &&
        c->fails[pol] == c->applies[pol]) {
        snprintf(buf, len, "%s",
                 c->m == CM_RECOVERY_S ? "never recovered" : "never completed");
        return;
    }
    char m[64];
    mean_text_at(c, pol, decimals, m, sizeof m);
    if (c->by_failures && c->fails[pol] > 0)
        snprintf(buf, len, "%s over the %u seed%s that %s", m,
                 c->applies[pol] - c->fails[pol],
                 c->applies[pol] - c->fails[pol] == 1 ? "" : "s",
                 c->m == CM_RECOVERY_S ? "recovered" : "completed");
    else
        snprintf(buf, len, "%s", m);
}

static void value_text(const contest *c, int pol, bool counts, char *buf,
                       size_t len)
{
    value_text_at(c, pol, counts, -1, buf, len);
}

/* Two means that differ significantly but print the same at three
 * digits ("1.00x vs 1.00x") read as a contradiction: print both with as
 * many more decimals as it takes to tell them apart (up to four more).
 * false when even that does not (a and b are left at three digits). */
static bool distinct_values(const contest *c, int p1, int p2, char *a, char *b,
                            size_t len)
{
    compare_stat st;
    compare_stat_shown(c->res, c->point, p1, c->m, &st);
    int d0 = compare_stat_decimals(&st);
    char x[128], y[128];
    for (int d = d0 + 1; d <= d0 + 4; d++) {
        value_text_at(c, p1, false, d, x, sizeof x);
        value_text_at(c, p2, false, d, y, sizeof y);
        if (strcmp(x, y) != 0) {
            snprintf(a, len, "%s", x);
            snprintf(b, len, "%s", y);
            return true;
        }
    }
    return false;
}

static void p_text(double p, char *buf, size_t len)
{
    if (p < 0.001)
        snprintf(buf, len, "p < 0.001");
    else
        snprintf(buf, len, "p = %.2g", p);
}

/* The verdict's words for metric m: compare.h's table's phrase. */
static const char *phrase_of(int m)
{
    return compare_metrics[m].phrase;
}

/* The claim's words when the failures decide ("fewest seeds that did not
 * recover"), else the metric's. */
static const char *claim_phrase(const contest *c, bool counts)
{
    if (!counts)
        return phrase_of(c->m);
    return c->m == CM_RECOVERY_S ? "fewest seeds that did not recover"
                                 : "fewest seeds that did not complete";
}

/* "A", "A and B", "A, B and C" of the policies in list[0..n). */
static void say_names(words *w, const contest *c, const int *list, int n,
                      bool with_values, bool counts)
{
    for (int i = 0; i < n; i++) {
        say(w, "%s%s",
            i == 0       ? ""
            : i == n - 1 ? " and "
                         : ", ",
            c->res->plan->policies[list[i]].label);
        if (with_values) {
            char v[128];
            value_text(c, list[i], counts, v, sizeof v);
            say(w, " (%s)", v);
        }
    }
}

/* The tests of, and the largest adjusted p over, the pairs (a, b) for a
 * in as[0..na), b in bs[0..nb) that were tested. */
static double pairs_p(const contest *c, const int *as, int na, const int *bs,
                      int nb, bool largest, unsigned *tests)
{
    double p = NAN;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            const pair *d = pair_of(c, as[i], bs[j]);
            if (d->same || isnan(d->p))
                continue;
            *tests |= d->test;
            if (isnan(p) || (largest ? d->p > p : d->p < p))
                p = d->p;
        }
    return p;
}

/* "(paired t, p < 0.001 after Holm's adjustment)"; at_least: the
 * smallest of several p ("p \u2265 0.31"). */
static void say_test(words *w, const contest *c, unsigned tests, double p,
                     bool at_least)
{
    char t[80], pt[32];
    compare_tests_text(tests, t, sizeof t);
    if (at_least && !(p < 0.001) && p < 1.0)
        snprintf(pt, sizeof pt, "p \xe2\x89\xa5 %.2g", p);
    else
        p_text(p, pt, sizeof pt);
    if (isnan(p))
        say(w, " (not testable: fewer than 2 seeds with a value under "
               "both)");
    else
        say(w, " (%s, %s%s)", t, pt,
            c->n_pol > 2 ? " after Holm's adjustment" : "");
}

/* The leader alone, significantly better than every other. */
static void say_alone(words *w, const contest *c, compare_verdict *out)
{
    int best = c->order[0], next = c->order[1];
    const pair *d = pair_of(c, best, next);
    bool counts = d->test == CT_MCNEMAR;
    char a[128], b[128];
    value_text(c, best, counts, a, sizeof a);
    value_text(c, next, counts, b, sizeof b);
    bool below = !counts && strcmp(a, b) == 0 &&
                 !distinct_values(c, best, next, a, b, sizeof a);
    say(w, "%s: %s (%s vs %s for %s, the next best%s), significant",
        c->res->plan->policies[best].label, claim_phrase(c, counts), a, b,
        c->res->plan->policies[next].label,
        below ? ": they differ below the digits shown" : "");
    if (c->n_pol == 3)
        say(w, " against both others");
    else if (c->n_pol > 3)
        say(w, " against all %d others", c->n_pol - 1);
    unsigned tests = 0;
    out->p = pairs_p(c, &best, 1, c->order + 1, c->n_pol - 1, true, &tests);
    out->tests = tests;
    say_test(w, c, tests, out->p, false);
}

uint32_t compare_exact_seeds(void)
{
    uint32_t n = 1;
    while (!(stats_sign_test(n, 0) < SIGNIFICANCE))
        n++;
    return n;
}

/* The leaders lead[1..nl) a sentence says together, by how their pair
 * with lead[0] came out: identical on every seed (a tie, no test), told
 * by a test that could have separated them, or not told apart. */
typedef enum group_kind { G_SAME, G_TESTED, G_UNTOLD } group_kind;

static int group_of(const contest *c, const int *lead, int nl, group_kind kind,
                    int *list)
{
    int n = 0;
    for (int i = 1; i < nl; i++) {
        const pair *d = pair_of(c, lead[0], lead[i]);
        group_kind k = !d->decidable ? G_UNTOLD : d->same ? G_SAME : G_TESTED;
        if (k == kind)
            list[n++] = lead[i];
    }
    return n;
}

/* "A (v), B (v) and C (v)", the leaders of one kind, each by what its
 * own test compared (counts, or times); an identical one by its name
 * alone (its figures are lead[0]'s).  Returns their count. */
static int say_group(words *w, const contest *c, const int *lead, int nl,
                     bool counts, group_kind kind)
{
    int list[COMPARE_MAX_POLICIES];
    int n = group_of(c, lead, nl, kind, list);
    for (int i = 0; i < n; i++) {
        say(w, "%s%s",
            i == 0       ? ""
            : i == n - 1 ? " and "
                         : ", ",
            c->res->plan->policies[list[i]].label);
        if (kind == G_SAME)
            continue;
        char v[128];
        value_text(c, list[i],
                   counts && pair_of(c, lead[0], list[i])->test == CT_MCNEMAR,
                   v, sizeof v);
        say(w, " (%s)", v);
    }
    return n;
}

/* The tests and the smallest p of lead[0] against the leaders of one
 * kind; *n_p: how many pairs have a p (more than one: the sentence says
 * "p >= the smallest", one: its p). */
static double group_p(const contest *c, const int *lead, int nl,
                      group_kind kind, unsigned *tests, int *n_p)
{
    int list[COMPARE_MAX_POLICIES];
    int n = group_of(c, lead, nl, kind, list);
    *n_p = 0;
    for (int i = 0; i < n; i++) {
        const pair *d = pair_of(c, lead[0], list[i]);
        *n_p += !d->same && !isnan(d->p);
    }
    return pairs_p(c, lead, 1, list, n, false, tests);
}

/* Several leaders: tied (identical on every seed), or the best and
 * those not significantly worse than it; those whose test could not
 * have told them from it over these seeds said apart ("not told apart
 * over these 3 seeds"), never as a tie (pair_test). */
static void say_leaders(words *w, const contest *c, const int *lead, int nl,
                        compare_verdict *out)
{
    bool identical = true;
    for (int i = 0; i < nl; i++)
        for (int j = i + 1; j < nl; j++)
            identical = identical && pair_of(c, lead[i], lead[j])->same;
    if (identical) {
        char v[128];
        value_text(c, lead[0], false, v, sizeof v);
        say_names(w, c, lead, nl, false, false);
        say(w, " tie for the %s (%s, identical on every seed)", phrase_of(c->m),
            v);
        out->p = NAN;
        return;
    }
    bool counts = false;
    for (int i = 1; i < nl; i++)
        counts = counts || pair_of(c, lead[0], lead[i])->test == CT_MCNEMAR;
    /* Counts decide some pairs, times others (the leaders that failed
     * as often as the best): the best's figure of each. */
    bool times = false;
    for (int i = 1; i < nl; i++)
        times = times || (pair_of(c, lead[0], lead[i])->test != CT_MCNEMAR &&
                          !pair_of(c, lead[0], lead[i])->same);
    char v[128];
    value_text(c, lead[0], counts, v, sizeof v);
    say(w, "%s has the %s (%s)", c->res->plan->policies[lead[0]].label,
        claim_phrase(c, counts), v);
    if (counts && times) {
        value_text(c, lead[0], false, v, sizeof v);
        say(w, " and, of the policies that failed as often, the %s (%s)",
            phrase_of(c->m), v);
    }
    say(w, ", but ");
    for (int i = 1; i < nl; i++)
        if (!pair_of(c, lead[0], lead[i])->decidable)
            out->untold |= 1u << lead[i];
    /* An identical policy ties, and is said to: a p of its pair would
     * be 1 by fiat, and "p >= 0.36" over it and one tested pair
     * claimed a second test that was never run. */
    int n_p, told = say_group(w, c, lead, nl, counts, G_SAME);
    if (told > 0)
        say(w, " %s with it (identical on every seed)",
            told == 1 ? "ties" : "tie");
    unsigned tests = 0;
    int list[COMPARE_MAX_POLICIES];
    if (group_of(c, lead, nl, G_TESTED, list) > 0) {
        if (told > 0)
            say(w, " and ");
        int n = say_group(w, c, lead, nl, counts, G_TESTED);
        say(w, " %s not significantly worse", n == 1 ? "is" : "are");
        out->p = group_p(c, lead, nl, G_TESTED, &tests, &n_p);
        out->tests |= tests;
        if (!isnan(out->p))
            say_test(w, c, tests, out->p, n_p > 1);
        told += n;
    }
    if (out->untold == 0)
        return;
    if (told > 0)
        say(w, "; ");
    int n = say_group(w, c, lead, nl, counts, G_UNTOLD);
    say(w, " %s not told apart from it over %s %u seed%s",
        n == 1 ? "is" : "are", c->n_seeds == 1 ? "this" : "these", c->n_seeds,
        c->n_seeds == 1 ? "" : "s");
    unsigned t2 = 0;
    double p = group_p(c, lead, nl, G_UNTOLD, &t2, &n_p);
    out->tests |= t2;
    if (isnan(out->p) || (!isnan(p) && p < out->p))
        out->p = p;
    char names[80], pt[32];
    compare_tests_text(t2, names, sizeof names);
    if (isnan(p)) {
        say(w, " (not testable: fewer than 2 seeds with a value under "
               "both)");
        return;
    }
    if (n_p > 1 && !(p < 0.001) && p < 1.0)
        snprintf(pt, sizeof pt, "p \xe2\x89\xa5 %.2g", p);
    else
        p_text(p, pt, sizeof pt);
    say(w, " (%s, %s%s; it cannot reach p < 0.05 over fewer than %u seeds)",
        names, pt, c->n_pol > 2 ? " after Holm's adjustment" : "",
        compare_exact_seeds());
}

/* "three", "four" ... "ten", then digits. */
static const char *count_word(int n)
{
    static const char *const w[] = {"none",  "one",  "two", "three",
                                    "four",  "five", "six", "seven",
                                    "eight", "nine", "ten"};
    static char digits[16];
    if (n >= 0 && n <= 10)
        return w[n];
    snprintf(digits, sizeof digits, "%d", n);
    return digits;
}

/* What the leaders beat: "; both significantly better than plan (24.9)
 * and none (350) (paired t, p < 0.001 after Holm's adjustment)", and any
 * policy only some of them beat: "; plan (24.9) is significantly worse
 * than none (paired t, p = 0.01), but not than immediate". */
static void say_beaten(words *w, const contest *c, const int *lead, int nl,
                       const int *rest, int nr, compare_verdict *out)
{
    int all[COMPARE_MAX_POLICIES], some[COMPARE_MAX_POLICIES];
    int na = 0, ns = 0;
    for (int i = 0; i < nr; i++) {
        bool by_all = true;
        for (int j = 0; j < nl; j++)
            by_all = by_all && pair_of(c, lead[j], rest[i])->sig;
        if (by_all)
            all[na++] = rest[i];
        else
            some[ns++] = rest[i];
    }
    bool counts = false;
    for (int i = 0; i < nr; i++)
        counts = counts || pair_of(c, lead[0], rest[i])->test == CT_MCNEMAR;
    if (na > 0) {
        if (nl == 2)
            say(w, "; both significantly better than ");
        else
            say(w, "; all %s significantly better than ", count_word(nl));
        /* By counts, the figures come once, in say_failures. */
        say_names(w, c, all, na, !counts, false);
        unsigned tests = 0;
        double p = pairs_p(c, lead, nl, all, na, true, &tests);
        out->tests |= tests;
        say_test(w, c, tests, p, false);
    }
    for (int i = 0; i < ns; i++) {
        int beats[COMPARE_MAX_POLICIES], nb = 0;
        for (int j = 0; j < nl; j++)
            if (pair_of(c, lead[j], some[i])->sig)
                beats[nb++] = lead[j];
        char v[128];
        value_text(c, some[i], false, v, sizeof v);
        if (counts)
            say(w, "; %s is significantly worse than ",
                c->res->plan->policies[some[i]].label);
        else
            say(w, "; %s (%s) is significantly worse than ",
                c->res->plan->policies[some[i]].label, v);
        say_names(w, c, beats, nb, false, false);
        unsigned tests = 0;
        double p = pairs_p(c, beats, nb, some + i, 1, true, &tests);
        out->tests |= tests;
        say_test(w, c, tests, p, false);
        /* The leaders it is not worse than, by name: "worse than none
         * only" left the reader to work them out. */
        int spared[COMPARE_MAX_POLICIES], nsp = 0;
        for (int j = 0; j < nl; j++)
            if (!pair_of(c, lead[j], some[i])->sig)
                spared[nsp++] = lead[j];
        say(w, ", but not than ");
        say_names(w, c, spared, nsp, false, false);
    }
}

/* For recovery and completion, every policy's share of seeds that
 * failed, with its Wilson 95 % interval: "; did not recover: none on 0
 * of 20 seeds (95 % CI 0-16 %), immediate and exponential on 20 of 20
 * (95 % CI 84-100 %)".  Policies with the same count are named
 * together, in ranking order. */
static void say_failures(words *w, const contest *c)
{
    if (!c->by_failures)
        return;
    /* Completion is not a probability the reader came for: said only
     * when some run did not complete.  Recovery always is. */
    bool any = false;
    for (int pol = 0; pol < c->n_pol; pol++)
        any = any || c->fails[pol] > 0;
    if (c->m == CM_COMPLETION_S && !any)
        return;
    bool done[COMPARE_MAX_POLICIES] = {false};
    bool first = true;
    for (int r = 0; r < c->n_pol; r++) {
        int pol = c->order[r];
        if (done[pol] || c->applies[pol] == 0)
            continue;
        int same[COMPARE_MAX_POLICIES], n = 0;
        for (int q = r; q < c->n_pol; q++) {
            int o = c->order[q];
            if (!done[o] && c->fails[o] == c->fails[pol] &&
                c->applies[o] == c->applies[pol]) {
                same[n++] = o;
                done[o] = true;
            }
        }
        compare_tipping t;
        compare_tipping_counts(c->fails[pol], c->applies[pol], &t);
        say(w, "%s", first ? "; " : ", ");
        if (first)
            say(w, "%s: ", failure_verb(c->m));
        say_names(w, c, same, n, false, false);
        say(w, " on %u of %u seed%s (95 %% CI %.0f\xe2\x80\x93%.0f %%)",
            t.tipped, t.n, t.n == 1 ? "" : "s", 100.0 * t.lo, 100.0 * t.hi);
        first = false;
    }
}

/* Every policy the same on every seed: there is nothing to choose. */
static void tie(const contest *c, compare_verdict *out)
{
    char v[64];
    mean_text(c, 0, v, sizeof v);
    const compare_stat *st = compare_stat_at(c->res, c->point, 0, c->m);
    snprintf(out->text, sizeof out->text,
             "no difference: every policy "
             "gives the same value on every seed (%s%s)",
             st->ci.sd > 0.0 ? "mean " : "",
             strcmp(v, "no value") == 0 ? "none" : v);
}

static void no_values(const contest *c, compare_verdict *out)
{
    static const char *const why[CM_COUNT] = {
        [CM_SUCCESS_RATIO] = "no request ended",
        [CM_AMPLIFICATION] = "nothing was offered",
        [CM_PEAK_AMP] = "nothing was offered",
        [CM_RECOVERY_S] = "recovery was not judged (no fault, no baseline "
                          "before it, or no recovery window after it)",
        [CM_P99_MS] = "no request succeeded",
        [CM_COMPLETION_S] = "only runs with arrival = once complete",
        [CM_JOBS_COMPLETED] = "no job started",
        [CM_JOBS_FAILED] = "no job started",
        [CM_ALERTS_CRITICAL] = "the scenario has no pipeline",
        [CM_ITEMS_DUPLICATED] = "the scenario has no pipeline",
        [CM_JOB_BLOCKED_S] = "no job started",
    };
    snprintf(out->text, sizeof out->text, "no values: %s",
             why[c->m] ? why[c->m] : "no run has one");
}

static int decide(contest *c, compare_verdict *out)
{
    rank(c);
    if (!test_pairs(c))
        return -1;
    bool all_same = true;
    for (int i = 1; i < c->n_pol; i++)
        all_same = all_same && pair_of(c, 0, i)->same;
    if (all_same) {
        tie(c, out);
        return 0;
    }
    int best = c->order[0];
    int lead[COMPARE_MAX_POLICIES], rest[COMPARE_MAX_POLICIES];
    int nl = 0, nr = 0;
    for (int r = 0; r < c->n_pol; r++) {
        int pol = c->order[r];
        if (pol == best || !pair_of(c, best, pol)->sig)
            lead[nl++] = pol;
        else
            rest[nr++] = pol;
    }
    memcpy(out->order, c->order, sizeof out->order);
    out->best = best;
    out->runner_up = c->order[1];
    out->n_leaders = nl;
    for (int i = 0; i < nl; i++)
        out->leaders |= 1u << lead[i];
    out->significant = nl == 1;
    letters(c, out);
    words w = {out->text, sizeof out->text, 0};
    if (nl == 1) {
        say_alone(&w, c, out);
    } else {
        say_leaders(&w, c, lead, nl, out);
        if (nr > 0)
            say_beaten(&w, c, lead, nl, rest, nr, out);
        else if (out->untold == 0)
            say(&w, ": the differences are within the noise of %u seed%s",
                c->n_seeds, c->n_seeds == 1 ? "" : "s");
        else
            say(&w, ": more seeds may tell them apart");
    }
    say_failures(&w, c);
    return 0;
}

/* Out of memory is an error, never a verdict: a verdict that read "out
 * of memory" went into the tables as if it were one. */
int compare_verdict_at(const compare_result *r, uint32_t point,
                       compare_metric m, compare_verdict *out, sb_err *e)
{
    memset(out, 0, sizeof *out);
    out->best = out->runner_up = -1;
    out->p = NAN;
    contest c = {r,
                 point,
                 m,
                 r->plan->n_policies,
                 r->plan->n_seeds,
                 m == CM_RECOVERY_S || m == CM_COMPLETION_S,
                 NULL,
                 NULL,
                 NULL,
                 NULL,
                 NULL,
                 {0}};
    int rc = 0;
    if (!contest_fill(&c)) {
        contest_free(&c);
        return err_set(e, "out of memory");
    }
    bool any = false;
    for (int pol = 0; pol < c.n_pol; pol++)
        any = any || c.fails[pol] > 0 ||
              compare_stat_at(r, point, pol, m)->ci.n > 0;
    if (!any)
        no_values(&c, out);
    else if (c.n_pol == 1) {
        out->best = 0;
        out->n_leaders = 1;
        out->leaders = 1;
        snprintf(out->text, sizeof out->text,
                 "%s: the only policy; nothing "
                 "to compare it with",
                 r->plan->policies[0].label);
    } else if (decide(&c, out) != 0)
        rc = err_set(e, "out of memory");
    contest_free(&c);
    return rc;
}
