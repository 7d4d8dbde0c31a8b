/*
 * compare_verdict.c -- which policy did best on each metric, whether
 * that is more than noise, and the sentence that says so; and how the
 * tables print their numbers, which the sentences share.
 *
 * The rules are in compare.h above compare_verdict.  The paired t test
 * is the one the verdict rests on, not the Wilcoxon test: with the few
 * seeds a comparison usually has (5 to 20) the t test has more power,
 * and the differences of paired runs are far closer to normal than the
 * runs themselves.  The Wilcoxon p is there (stats_paired) for a reader
 * who wants it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void compare_stat_numbers(const compare_stat *s, compare_numbers *out)
{
    double scale = s->ci.mean;
    if (scale == 0.0 && isfinite(s->ci.half_width))
        scale = s->ci.half_width;
    int d = decimals_for(scale);
    number(out->mean, sizeof out->mean, s->ci.mean, d);
    number(out->lo, sizeof out->lo, s->ci.lo, d);
    number(out->hi, sizeof out->hi, s->ci.hi, d);
}

void compare_with_unit(const char *num, const char *unit, char *buf,
                       size_t len)
{
    bool spaced = strcmp(unit, "%") == 0 || strcmp(unit, "s") == 0 ||
                  strcmp(unit, "ms") == 0;
    snprintf(buf, len, "%s%s%s", num, spaced ? " " : "", unit);
}

/* ---- Verdicts ------------------------------------------------------------ */

/* One point and metric, every policy's runs side by side. */
typedef struct contest {
    const compare_result *res;
    uint32_t point;
    compare_metric m;
    int n_pol;
    uint32_t n_seeds;
    bool by_failures;    /* recovery, completion: failures count first */
    double *v;           /* [policy][seed] values */
    int8_t *failed;      /* [policy][seed]: compare_metric_failed */
    uint32_t *fails;     /* [policy] runs failed */
    uint32_t *applies;   /* [policy] runs the metric applies to */
} contest;

static const compare_run *run_at(const contest *c, int pol, uint32_t sd)
{
    const compare_plan *p = c->res->plan;
    return &c->res->runs[((size_t)c->point * (size_t)p->n_policies +
                          (size_t)pol) * p->n_seeds + sd];
}

static double mean_of(const contest *c, int pol)
{
    return compare_stat_at(c->res, c->point, pol, c->m)->ci.mean;
}

static bool contest_fill(contest *c)
{
    size_t cells = (size_t)c->n_pol * c->n_seeds;
    c->v = malloc(cells * sizeof *c->v);
    c->failed = malloc(cells * sizeof *c->failed);
    c->fails = calloc((size_t)c->n_pol, sizeof *c->fails);
    c->applies = calloc((size_t)c->n_pol, sizeof *c->applies);
    if (!c->v || !c->failed || !c->fails || !c->applies)
        return false;
    for (int pol = 0; pol < c->n_pol; pol++)
        for (uint32_t sd = 0; sd < c->n_seeds; sd++) {
            const compare_run *r = run_at(c, pol, sd);
            size_t i = (size_t)pol * c->n_seeds + sd;
            c->v[i] = compare_metric_of(r, c->m);
            c->failed[i] = (int8_t)compare_metric_failed(c->res->plan, r,
                                                         c->m);
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

/* One comparison of the best policy against another. */
typedef struct duel {
    double p;          /* raw, then Holm-adjusted */
    bool sign_test;    /* by failures, not values */
    bool same;         /* identical on every seed */
} duel;

static void duel_run(const contest *c, int best, int o, duel *d)
{
    const double *a = c->v + (size_t)best * c->n_seeds;
    const double *b = c->v + (size_t)o * c->n_seeds;
    const int8_t *fa = c->failed + (size_t)best * c->n_seeds;
    const int8_t *fb = c->failed + (size_t)o * c->n_seeds;
    memset(d, 0, sizeof *d);
    if (c->by_failures && c->fails[best] != c->fails[o]) {
        size_t only_b = 0, only_a = 0;
        for (uint32_t s = 0; s < c->n_seeds; s++)
            if (fa[s] >= 0 && fb[s] >= 0) {
                only_b += fa[s] == 0 && fb[s] == 1;
                only_a += fa[s] == 1 && fb[s] == 0;
            }
        d->sign_test = true;
        d->p = stats_sign_test(only_b, only_a);
        return;
    }
    stats_paired t;
    stats_paired_test(a, b, c->n_seeds, 0.95, &t);
    d->p = t.p_t;
    d->same = true;
    for (uint32_t s = 0; s < c->n_seeds && d->same; s++)
        d->same = fa[s] == fb[s] &&
                  (a[s] == b[s] || (isnan(a[s]) && isnan(b[s])));
}

/* "99.2 %", or "none" when the policy has no value. */
static void mean_text(const contest *c, int pol, char *buf, size_t len)
{
    compare_numbers n;
    compare_stat_numbers(compare_stat_at(c->res, c->point, pol, c->m), &n);
    if (n.mean[0] == '\0')
        snprintf(buf, len, "none");
    else
        compare_with_unit(n.mean, compare_metrics[c->m].unit, buf, len);
}

static const char *failure_verb(compare_metric m)
{
    return m == CM_RECOVERY_S ? "did not recover" : "did not complete";
}

/* "highest success ratio (99.2 % vs 71.4 % for immediate)" */
static void claim(const contest *c, int best, int o, const duel *d,
                  char *buf, size_t len)
{
    static const char *const phrase[CM_COUNT] = {
        "highest success ratio", "lowest amplification",
        "lowest peak amplification", "fastest recovery",
        "lowest p99 latency", "fewest duplicate writes",
        "fewest quarantined requests", "least wasted work",
        "shortest completion time", "most jobs completed",
        "fewest jobs failed", "fewest critical alerts",
        "fewest duplicate items", "least blocked time per job"};
    const char *label = c->res->plan->policies[o].label;
    if (d->sign_test) {
        snprintf(buf, len, "fewest runs that %s (%u of %u seeds vs %u of "
                 "%u for %s)", failure_verb(c->m), c->fails[best],
                 c->applies[best], c->fails[o], c->applies[o], label);
        return;
    }
    char a[64], b[64];
    mean_text(c, best, a, sizeof a);
    mean_text(c, o, b, sizeof b);
    size_t used = (size_t)snprintf(buf, len, "%s (%s vs %s for %s",
                                   phrase[c->m], a, b, label);
    if (c->by_failures && c->fails[best] > 0 && used < len)
        used += (size_t)snprintf(buf + used, len - used, "; each %s in %u "
                                 "of %u seeds", failure_verb(c->m),
                                 c->fails[best], c->applies[best]);
    if (used < len)
        snprintf(buf + used, len - used, ")");
}

static void p_text(double p, char *buf, size_t len)
{
    if (p < 0.001)
        snprintf(buf, len, "p < 0.001");
    else
        snprintf(buf, len, "p = %.2g", p);
}

/* The sentence after the claim: significant or not, and why. */
static void judgement(const contest *c, const duel *d, int n_tested,
                      bool untested, double p, char *buf, size_t len)
{
    char pt[32];
    p_text(p, pt, sizeof pt);
    const char *test = d->sign_test ? "sign test" : "paired t";
    if (untested)
        snprintf(buf, len, "cannot be tested: fewer than 2 seeds with a "
                 "value under both");
    else if (p < SIGNIFICANCE && n_tested == 2)
        snprintf(buf, len, "significant against both others (%s, %s "
                 "after Holm's adjustment)", test, pt);
    else if (p < SIGNIFICANCE && n_tested > 2)
        snprintf(buf, len, "significant against all %d others (%s, %s "
                 "after Holm's adjustment)", n_tested, test, pt);
    else if (p < SIGNIFICANCE)
        snprintf(buf, len, "significant (%s, %s)", test, pt);
    else
        snprintf(buf, len, "not significant (%s): the difference is within "
                 "the noise of %u seeds", pt, c->n_seeds);
}

/* Every policy the same on every seed: there is nothing to choose. */
static void tie(const contest *c, compare_verdict *out)
{
    char v[64];
    mean_text(c, 0, v, sizeof v);
    const compare_stat *st = compare_stat_at(c->res, c->point, 0, c->m);
    snprintf(out->text, sizeof out->text, "no difference: every policy "
             "gives the same value on every seed (%s%s)",
             st->ci.sd > 0.0 ? "mean " : "", v);
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

static void decide(contest *c, compare_verdict *out)
{
    int best = 0;
    for (int pol = 1; pol < c->n_pol; pol++)
        if (better(c, pol, best))
            best = pol;
    duel *d = calloc((size_t)c->n_pol, sizeof *d);
    double *p = malloc((size_t)c->n_pol * sizeof *p);
    if (d == NULL || p == NULL) {
        snprintf(out->text, sizeof out->text, "out of memory");
        free(d);
        free(p);
        return;
    }
    bool all_same = true, untested = false;
    int n = 0;
    for (int o = 0; o < c->n_pol; o++) {
        if (o == best)
            continue;
        duel_run(c, best, o, &d[o]);
        all_same = all_same && d[o].same;
        untested = untested || isnan(d[o].p);
        p[n++] = d[o].p;
    }
    if (all_same) {
        tie(c, out);
        free(d);
        free(p);
        return;
    }
    stats_holm(p, (size_t)n);
    int closest = -1, k = 0;
    out->p = NAN;
    for (int o = 0; o < c->n_pol; o++) {
        if (o == best)
            continue;
        double q = p[k++];
        if (closest < 0 || (isnan(q) && !isnan(out->p)) || q > out->p) {
            closest = o;
            out->p = q;
        }
    }
    out->best = best;
    out->significant = !untested && out->p < SIGNIFICANCE;
    char what[256], verdict[200];
    claim(c, best, closest, &d[closest], what, sizeof what);
    judgement(c, &d[closest], n, untested, out->p, verdict, sizeof verdict);
    snprintf(out->text, sizeof out->text, "%s: %s, %s",
             c->res->plan->policies[best].label, what, verdict);
    free(d);
    free(p);
}

void compare_verdict_at(const compare_result *r, uint32_t point,
                        compare_metric m, compare_verdict *out)
{
    memset(out, 0, sizeof *out);
    out->best = -1;
    out->p = NAN;
    contest c = {r, point, m, r->plan->n_policies, r->plan->n_seeds,
                 m == CM_RECOVERY_S || m == CM_COMPLETION_S,
                 NULL, NULL, NULL, NULL};
    if (!contest_fill(&c)) {
        snprintf(out->text, sizeof out->text, "out of memory");
        contest_free(&c);
        return;
    }
    bool any = false;
    for (int pol = 0; pol < c.n_pol; pol++)
        any = any || c.fails[pol] > 0 ||
              compare_stat_at(r, point, pol, m)->ci.n > 0;
    if (!any)
        no_values(&c, out);
    else if (c.n_pol == 1) {
        out->best = 0;
        snprintf(out->text, sizeof out->text, "%s: the only policy; nothing "
                 "to compare it with", r->plan->policies[0].label);
    } else
        decide(&c, out);
    contest_free(&c);
}
