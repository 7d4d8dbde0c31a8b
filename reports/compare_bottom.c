/*
 * compare_bottom.c -- a comparison's bottom line: the policy to take,
 * the three figures that justify it, what it costs, and what the reader
 * should not over-read (compare.h, compare_bottom_line).
 *
 * The recommendation is a count, not a weighting: the policy that is
 * best, or not significantly worse than the best, on the most metrics
 * that separate the policies at all.  A weighting (recovery counts
 * double, amplification half) would be a judgement the reader cannot
 * see; a count of the verdicts they can read below it is one they can
 * check.  Equal counts go to the policy that leads on the metric that
 * matters more, in the order of `importance` -- whether requests
 * succeed and the system comes back before how much it costs.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compiler.h"
#include "compare.h"

/* The metrics, most important first: the order of the figures and of
 * the tie-break; sim/metrics.h's added ones last. */
static const compare_metric importance[CM_COUNT] = {
    CM_SUCCESS_RATIO, CM_JOBS_COMPLETED,   CM_RECOVERY_S,
    CM_JOBS_FAILED,   CM_COMPLETION_S,     CM_P99_MS,
    CM_DUPLICATES,    CM_ITEMS_DUPLICATED, CM_ALERTS_CRITICAL,
    CM_AMPLIFICATION, CM_PEAK_AMP,         CM_WASTED_SHARE,
    CM_QUARANTINED,   CM_JOB_BLOCKED_S,    METRICS_ADDED(COMPARE_ADDED_ID)};

typedef struct text {
    char *buf;
    size_t len, used;
} text;

static void put(text *t, const char *fmt, ...) SB_PRINTF(2, 3);

static void put(text *t, const char *fmt, ...)
{
    if (t->used >= t->len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->used, t->len - t->used, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->used += (size_t)n;
    /* Cut: used stays on the text (its last byte the terminator's
     * neighbour), so buf[used - 1] is always inside the buffer. */
    if (t->used >= t->len)
        t->used = t->len - 1;
}

/* Does the verdict of m separate the policies: a ranking, and some
 * policy significantly worse than the best? */
static bool separates(const compare_verdict *v, int n_pol)
{
    return v->best >= 0 && v->n_leaders < n_pol;
}

static bool leads(const compare_verdict *v, int pol)
{
    return v->best >= 0 && (v->leaders & (1u << pol)) != 0;
}

/* A policy's figure: "96.5 %"; recovery with its seeds ("0 s on all 10
 * seeds", "22.0 s over the 3 of 5 seeds that recovered", "never
 * recovered on any of the 10 seeds"), without brackets, as the
 * sentences put it in some. */
static void figure_at(const compare_result *r, uint32_t pt, int pol,
                      compare_metric m, int decimals, char *buf, size_t len)
{
    compare_numbers n;
    compare_stat st;
    char v[64];
    double div;
    compare_stat_shown(r, pt, pol, m, &st);
    compare_stat_numbers_at(&st, decimals, &n);
    if (n.mean[0])
        compare_with_unit(n.mean, compare_shown_unit(r, pt, m, &div), v,
                          sizeof v);
    else
        snprintf(v, sizeof v, "no value");
    if (m != CM_RECOVERY_S) {
        snprintf(buf, len, "%s", v);
        return;
    }
    compare_tipping t;
    compare_tipping_of(r, pt, pol, &t);
    if (t.n > 0 && t.tipped == t.n)
        snprintf(buf, len, "never recovered on %s %u seed%s",
                 t.n == 1 ? "its" : "any of the", t.n, t.n == 1 ? "" : "s");
    else if (t.tipped > 0)
        snprintf(buf, len, "%s over the %u of %u seeds that recovered", v,
                 t.n - t.tipped, t.n);
    else if (t.n == 1)
        snprintf(buf, len, "%s on its 1 seed", v);
    else if (t.n > 1)
        snprintf(buf, len, "%s on all %u seeds", v, t.n);
    else
        snprintf(buf, len, "%s", v);
}

static void figure(const compare_result *r, uint32_t pt, int pol,
                   compare_metric m, char *buf, size_t len)
{
    figure_at(r, pt, pol, m, -1, buf, len);
}

/* The figures of two policies that differ significantly (a leader and
 * one that is not): as the verdicts do, with as many more decimals as it
 * takes to print them apart (up to four more), never "99.9 % against
 * 99.9 %"; at three digits when even that does not tell them apart. */
static void figures_apart(const compare_result *r, uint32_t pt, int p1, int p2,
                          compare_metric m, char *a, char *b, size_t len)
{
    figure(r, pt, p1, m, a, len);
    figure(r, pt, p2, m, b, len);
    if (strcmp(a, b) != 0)
        return;
    compare_stat st;
    compare_stat_shown(r, pt, p1, m, &st);
    int d0 = compare_stat_decimals(&st);
    char x[160], y[160];
    for (int d = d0 + 1; d <= d0 + 4; d++) {
        figure_at(r, pt, p1, m, d, x, sizeof x);
        figure_at(r, pt, p2, m, d, y, sizeof y);
        if (strcmp(x, y) != 0) {
            snprintf(a, len, "%s", x);
            snprintf(b, len, "%s", y);
            return;
        }
    }
}

/* The policy with the most metrics led; equal counts by importance. */
static int recommend(const compare_result *r, uint32_t pt, int *n_sep,
                     int *n_led)
{
    const compare_plan *p = r->plan;
    int count[COMPARE_MAX_POLICIES] = {0};
    *n_sep = 0;
    for (int m = 0; m < CM_COUNT; m++) {
        const compare_verdict *v = compare_verdict_of(r, pt, m);
        if (!compare_metric_shown(p, m) || !separates(v, p->n_policies))
            continue;
        (*n_sep)++;
        for (int pol = 0; pol < p->n_policies; pol++)
            count[pol] += leads(v, pol);
    }
    if (*n_sep == 0)
        return -1;
    int best = 0;
    for (int pol = 1; pol < p->n_policies; pol++) {
        if (count[pol] != count[best]) {
            if (count[pol] > count[best])
                best = pol;
            continue;
        }
        for (int i = 0; i < CM_COUNT; i++) {
            const compare_verdict *v = compare_verdict_of(r, pt, importance[i]);
            if (!compare_metric_shown(p, importance[i]) ||
                !separates(v, p->n_policies) || leads(v, pol) == leads(v, best))
                continue;
            if (leads(v, pol))
                best = pol;
            break;
        }
    }
    *n_led = count[best];
    return best;
}

/* "A (fig), B (fig) and C (fig)" of list[0..n), after `lead`. */
static void say_others(text *t, const compare_result *r, uint32_t pt,
                       compare_metric m, const int *list, int n,
                       const char *lead)
{
    char b[160];
    for (int i = 0; i < n; i++) {
        figure(r, pt, list[i], m, b, sizeof b);
        put(t, "%s%s (%s)",
            i == 0       ? lead
            : i == n - 1 ? " and "
                         : ", ",
            r->plan->policies[list[i]].label, b);
    }
}

/* "success ratio 96.5 % against 86.5 % for X, the best of the rest",
 * naming the other leaders it ties with, and those it is not told apart
 * from over these seeds (compare_verdict.untold): never "tied" with a
 * policy the test could not have separated from it. */
static void say_figure(text *t, const compare_result *r, uint32_t pt, int pol,
                       compare_metric m)
{
    const compare_plan *p = r->plan;
    const compare_verdict *v = compare_verdict_of(r, pt, m);
    char a[160], rest[160];
    /* The best of the rest: its figure and ours printed apart. */
    int other = -1;
    for (int i = 0; i < p->n_policies && other < 0; i++)
        if (!leads(v, v->order[i]))
            other = v->order[i];
    if (other >= 0)
        figures_apart(r, pt, pol, other, m, a, rest, sizeof a);
    else
        figure(r, pt, pol, m, a, sizeof a);
    put(t, "%s %s", compare_metrics[m].name, a);
    /* v->untold judges the best's own pairs: with pol another leader,
     * the best is untold from pol when pol is from it. */
    uint32_t untold = v->untold;
    if (pol != v->best && (untold & (1u << pol)))
        untold = (untold & ~(1u << pol)) | (1u << v->best);
    int list[COMPARE_MAX_POLICIES], n = 0;
    for (int i = 0; i < p->n_policies; i++) {
        int o = v->order[i];
        if (o != pol && leads(v, o) && !(untold & (1u << o)))
            list[n++] = o;
    }
    say_others(t, r, pt, m, list, n, ", tied with ");
    if (other >= 0)
        put(t, ", against %s for %s, the best of the rest", rest,
            p->policies[other].label);
    n = 0;
    for (int i = 0; i < p->n_policies; i++)
        if (untold & (1u << v->order[i]))
            list[n++] = v->order[i];
    if (n == 0)
        return;
    char lead[160];
    snprintf(lead, sizeof lead,
             "%s over %s %u seed%s, too few for an exact test to reach p "
             "< 0.05 (it needs %u), not told apart from ",
             other >= 0 ? ", and," : ",", p->n_seeds == 1 ? "this" : "these",
             p->n_seeds, p->n_seeds == 1 ? "" : "s", compare_exact_seeds());
    say_others(t, r, pt, m, list, n, lead);
}

/* A tier's figure of a policy, with `decimals` (the default's below 0),
 * without its unit: "63.4". */
static void tier_number(const compare_result *r, uint32_t pt, int pol,
                        uint32_t tier, int f, int decimals, char *buf,
                        size_t len)
{
    compare_numbers n;
    compare_stat_numbers_at(compare_tier_stat_at(r, pt, pol, tier, f), decimals,
                            &n);
    snprintf(buf, len, "%s", n.mean[0] ? n.mean : "no value");
}

/* The tier figures of n policies into out[], with one number of
 * decimals: the default's, or as many more (up to four) as it takes to
 * print apart every two whose means differ. */
static void tier_numbers(const compare_result *r, uint32_t pt, const int *pols,
                         int n, uint32_t tier, int f, char out[][64])
{
    int d0 =
        compare_stat_decimals(compare_tier_stat_at(r, pt, pols[0], tier, f));
    for (int d = d0; d <= d0 + 4; d++) {
        bool apart = true;
        for (int i = 0; i < n; i++)
            tier_number(r, pt, pols[i], tier, f, d == d0 ? -1 : d, out[i], 64);
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                apart &=
                    strcmp(out[i], out[j]) != 0 ||
                    compare_tier_stat_at(r, pt, pols[i], tier, f)->ci.mean ==
                        compare_tier_stat_at(r, pt, pols[j], tier, f)->ci.mean;
        if (apart)
            return;
    }
    for (int i = 0; i < n; i++)
        tier_number(r, pt, pols[i], tier, f, -1, out[i], 64);
}

/* The tier where retries multiply most: the largest mean of the lead
 * figure over the policies (the deeper on equal ones), or -1. */
static int worst_tier(const compare_result *r, uint32_t pt, int f)
{
    int worst = -1;
    double top = -INFINITY;
    for (uint32_t k = 0; k < r->n_tiers; k++)
        for (int i = 0; i < r->plan->n_policies; i++) {
            double v = compare_tier_stat_at(r, pt, i, k, f)->ci.mean;
            if (isfinite(v) && v >= top) {
                top = v;
                worst = (int)k;
            }
        }
    return worst;
}

/* The policies a tier sentence cites, each once with its roles. */
typedef struct cited {
    int pol[4], n;
    char role[4][64];
} cited;

static void cite(cited *c, int pol, const char *role)
{
    if (pol < 0)
        return;
    int i = 0;
    while (i < c->n && c->pol[i] != pol)
        i++;
    if (i == c->n) {
        c->pol[c->n++] = pol;
        c->role[i][0] = '\0';
    }
    if (*role) {
        size_t used = strlen(c->role[i]);
        snprintf(c->role[i] + used, sizeof c->role[i] - used, "%s%s",
                 used ? "; " : "", role);
    }
}

/* A service chain's point, which the clients' own figures cannot show:
 * the attempts per offered request at the tier where retries multiply
 * most, for the recommended policy (pol; none when -1) against the fewest,
 * `none` (what the tiers' own retries make) and the most.  "At db, the
 * deepest of 3 tiers, each request the clients offered became 62.5
 * attempts during the faults with exponential, against 8.54 with B (the
 * fewest), 16.0 with none (no retries at the clients) and 63.4 with
 * immediate (the most)".  The recommendation does not count it (no
 * verdict tests it): it is said, to be weighed. */
static void say_tiers(text *t, const compare_result *r, uint32_t pt, int pol)
{
    const compare_plan *p = r->plan;
    int f = compare_tier_lead_figure(r, pt);
    int k = worst_tier(r, pt, f);
    if (k < 0 || p->n_policies < 2)
        return;
    uint32_t tier = (uint32_t)k;
    int lo = -1, hi = -1, none = -1;
    for (int i = 0; i < p->n_policies; i++) {
        double v = compare_tier_stat_at(r, pt, i, tier, f)->ci.mean;
        if (!isfinite(v))
            continue;
        if (lo < 0 || v < compare_tier_stat_at(r, pt, lo, tier, f)->ci.mean)
            lo = i;
        if (hi < 0 || v > compare_tier_stat_at(r, pt, hi, tier, f)->ci.mean)
            hi = i;
        if (strcmp(p->policies[i].stack, "none") == 0)
            none = i;
    }
    if (lo < 0)
        return;
    const char *during = f == TF_DURING_AMP ? " during the faults" : "";
    put(t, " Service tiers: at %s, ", compare_tier_name(p, tier));
    if (tier + 1 == r->n_tiers)
        put(t, "the deepest of %u tiers", r->n_tiers);
    else
        put(t, "tier %u of %u from the clients", tier + 1, r->n_tiers);
    put(t, ", each request the clients offered became ");
    char v[4][64];
    if (compare_tier_stat_at(r, pt, lo, tier, f)->ci.mean ==
        compare_tier_stat_at(r, pt, hi, tier, f)->ci.mean) {
        tier_number(r, pt, lo, tier, f, -1, v[0], sizeof v[0]);
        put(t, "%s attempts%s with every policy", v[0], during);
    } else {
        cited c = {.n = 0};
        cite(&c, pol, "");
        cite(&c, lo, "the fewest");
        cite(&c, none, "no retries at the clients");
        cite(&c, hi, "the most");
        tier_numbers(r, pt, c.pol, c.n, tier, f, v);
        for (int i = 0; i < c.n; i++) {
            put(t, "%s%s%s%s with %s",
                i == 0         ? ""
                : i == 1       ? ", against "
                : i == c.n - 1 ? " and "
                               : ", ",
                v[i], i == 0 ? " attempts" : "", i == 0 ? during : "",
                p->policies[c.pol[i]].label);
            if (c.role[i][0])
                put(t, " (%s)", c.role[i]);
        }
    }
    put(t, "; each tier below the clients retries with its own policy, "
           "which the policies compared do not replace.");
}

/* Metrics the recommended policy is significantly worse on: what it
 * costs, and who does better. */
static void say_costs(text *t, const compare_result *r, uint32_t pt, int pol)
{
    const compare_plan *p = r->plan;
    int n = 0;
    for (int i = 0; i < CM_COUNT; i++) {
        compare_metric m = importance[i];
        const compare_verdict *v = compare_verdict_of(r, pt, m);
        if (!compare_metric_shown(p, m) || !separates(v, p->n_policies) ||
            leads(v, pol))
            continue;
        char a[160], b[160];
        figures_apart(r, pt, v->best, pol, m, a, b, sizeof a);
        put(t, "%s%s is better with %s (%s against %s)",
            n++ ? "; " : " It costs: ", compare_metrics[m].name,
            p->policies[v->best].label, a, b);
    }
    if (n)
        put(t, ".");
}

/* The labels of the policies in mask: "a", "a and b", "a, b and c". */
static void put_labels(text *t, const compare_plan *p, uint32_t mask)
{
    int n = 0, k = 0;
    for (int i = 0; i < p->n_policies; i++)
        n += (mask >> i) & 1u;
    for (int i = 0; i < p->n_policies; i++) {
        if (!((mask >> i) & 1u))
            continue;
        k++;
        put(t, "%s%s",
            k == 1   ? ""
            : k == n ? " and "
                     : ", ",
            p->policies[i].label);
    }
}

/* The policies whose recovery is too few seeds to tell (their seeds
 * agreed, but the interval still holds 1/2), said once: who, how many
 * seeds, what each count's interval is and what it takes.  Who is "all
 * 5 policies", or "the other 3 policies" after the bistable ones (n_bist
 * named before), or the names; the same count of the same seeds is said
 * once ("0 of 3: 0-56 %, 3 of 3: 44-100 %").  A list of every policy
 * with its own interval, as this said first, ran to five lines of the
 * bottom line for a question one number answers.  Nothing when no
 * policy is too few to tell. */
static void say_too_few(text *t, const compare_result *r, uint32_t pt,
                        int n_bist)
{
    const compare_plan *p = r->plan;
    compare_tipping tp[COMPARE_MAX_POLICIES];
    int n_few = 0, first = -1;
    bool one_n = true;
    for (int i = 0; i < p->n_policies; i++) {
        compare_tipping_of(r, pt, i, &tp[i]);
        if (!tp[i].too_few)
            continue;
        if (first < 0)
            first = i;
        one_n &= tp[i].n == tp[first].n;
        n_few++;
    }
    if (n_few == 0)
        return;
    uint32_t n = tp[first].n;
    if (one_n && n_few == p->n_policies)
        put(t, "for all %d policies, ", n_few);
    else if (one_n && n_few + n_bist == p->n_policies && n_few > 1)
        put(t, "for the other %d policies, ", n_few);
    else if (one_n) {
        uint32_t few = 0;
        for (int i = 0; i < p->n_policies; i++)
            few |= tp[i].too_few ? 1u << i : 0;
        put(t, "for ");
        put_labels(t, p, few);
        put(t, ", ");
    }
    if (one_n)
        put(t,
            "%u seed%s %s too few to call recovery stable or metastable%s "
            "(the 95 %% interval of the share that did not recover holds "
            "\xc2\xbd until %u seeds agree; ",
            n, n == 1 ? "" : "s", n == 1 ? "is" : "are",
            n == 1 ? "" : ", though every seed agreed",
            compare_tipping_seeds(0));
    else
        put(t,
            "too few seeds to call recovery stable or metastable, though "
            "every seed agreed (the 95 %% interval of the share that did "
            "not recover holds \xc2\xbd until %u seeds agree; ",
            compare_tipping_seeds(0));
    /* Each count once, in the order the policies first have it; with
     * seeds that differ, the policies that have it. */
    int said = 0;
    for (int i = 0; i < p->n_policies; i++) {
        if (!tp[i].too_few)
            continue;
        bool before = false;
        for (int j = 0; j < i && !before; j++)
            before = tp[j].too_few && tp[j].tipped == tp[i].tipped &&
                     tp[j].n == tp[i].n;
        if (before)
            continue;
        put(t, "%s", said++ ? ", " : "");
        if (!one_n) {
            uint32_t same = 0;
            for (int j = i; j < p->n_policies; j++)
                if (tp[j].too_few && tp[j].tipped == tp[i].tipped &&
                    tp[j].n == tp[i].n)
                    same |= 1u << j;
            put_labels(t, p, same);
            put(t, " ");
        }
        put(t, "%u of %u: %.0f\xe2\x80\x93%.0f %%", tp[i].tipped, tp[i].n,
            100.0 * tp[i].lo, 100.0 * tp[i].hi);
    }
    put(t, ")");
}

/* Ties of the recommended policy, bistable policies, and the metrics
 * where no policy stands out. */
static void say_caveats(text *t, const compare_result *r, uint32_t pt, int pol)
{
    const compare_plan *p = r->plan;
    char ties[400] = "", flat[400] = "", noise[400] = "", bist[600] = "",
         untold[400] = "", few[600] = "";
    text tt = {ties, sizeof ties, 0}, tf = {flat, sizeof flat, 0},
         tu = {untold, sizeof untold, 0}, tn = {noise, sizeof noise, 0},
         tb = {bist, sizeof bist, 0}, tw = {few, sizeof few, 0};
    for (int i = 0; i < CM_COUNT; i++) {
        compare_metric m = importance[i];
        const compare_verdict *v = compare_verdict_of(r, pt, m);
        if (!compare_metric_shown(p, m))
            continue;
        if (pol >= 0 && separates(v, p->n_policies) && leads(v, pol) &&
            v->n_leaders > 1) {
            uint32_t apart = v->untold;
            if (pol != v->best && (apart & (1u << pol)))
                apart = (apart & ~(1u << pol)) | (1u << v->best);
            for (int u = 0; u < 2; u++) {
                text *tx = u ? &tu : &tt;
                int k = 0;
                for (int j = 0; j < p->n_policies; j++) {
                    int o = v->order[j];
                    if (o == pol || !leads(v, o) ||
                        ((apart & (1u << o)) != 0) != (u == 1))
                        continue;
                    put(tx, "%s%s",
                        k          ? ", "
                        : tx->used ? ", "
                                   : "",
                        k ? "" : compare_metrics[m].name);
                    put(tx, "%s%s", k ? "" : " (with ", p->policies[o].label);
                    k++;
                }
                if (k)
                    put(tx, ")");
            }
        } else if (v->best < 0 && strncmp(v->text, "no difference", 13) == 0)
            put(&tf, "%s%s", tf.used ? ", " : "", compare_metrics[m].name);
        else if (v->best >= 0 && v->n_leaders == p->n_policies &&
                 p->n_policies > 1)
            put(&tn, "%s%s", tn.used ? ", " : "", compare_metrics[m].name);
    }
    int n_bist = 0;
    for (int i = 0; i < p->n_policies; i++) {
        compare_tipping tp;
        compare_tipping_of(r, pt, i, &tp);
        if (tp.bistable && !tp.too_few) {
            n_bist++;
            put(&tb,
                "%s%s (%u of %u seed%s did not recover, 95 %% CI "
                "%.0f\xe2\x80\x93%.0f %%)",
                tb.used ? ", " : "", p->policies[i].label, tp.tipped, tp.n,
                tp.n == 1 ? "" : "s", 100.0 * tp.lo, 100.0 * tp.hi);
        }
    }
    say_too_few(&tw, r, pt, n_bist);
    if (!ties[0] && !untold[0] && !noise[0] && !bist[0] && !flat[0] && !few[0])
        return;
    put(t, " Caveats:");
    if (ties[0])
        put(t, " it ties with another policy on %s;", ties);
    if (untold[0])
        put(t,
            " %s %u seed%s, too few for an exact test (it needs %u), %s "
            "not tell it apart from another policy on %s;",
            p->n_seeds == 1 ? "this" : "these", p->n_seeds,
            p->n_seeds == 1 ? "" : "s", compare_exact_seeds(),
            p->n_seeds == 1 ? "does" : "do", untold);
    if (bist[0])
        put(t,
            " bistable, its seeds split on whether it recovers (the 95 %% "
            "interval of the share that did not recover holds \xc2\xbd): "
            "%s;",
            bist);
    if (few[0])
        put(t, " %s;", few);
    if (noise[0])
        put(t,
            " no policy is significantly better than another on %s "
            "(more seeds may tell);",
            noise);
    if (flat[0])
        put(t, " every policy gives the same value on every seed on %s;", flat);
    t->buf[t->used - 1] = '.';
}

void compare_bottom_line(const compare_result *r, uint32_t pt,
                         compare_bottom *out)
{
    const compare_plan *p = r->plan;
    memset(out, 0, sizeof *out);
    out->recommended = -1;
    text t = {out->text, sizeof out->text, 0};
    if (p->n_policies < 2) {
        put(&t, "One policy, nothing to choose between: the tables give "
                "its figures.");
        return;
    }
    int n_sep = 0, n_led = 0;
    int pol = recommend(r, pt, &n_sep, &n_led);
    out->recommended = pol;
    if (pol < 0) {
        put(&t,
            "No policy is significantly better than another on any "
            "metric over %s %u seed%s: nothing to recommend yet (more "
            "seeds may tell).",
            p->n_seeds == 1 ? "this" : "these", p->n_seeds,
            p->n_seeds == 1 ? "" : "s");
        say_tiers(&t, r, pt, -1);
        say_caveats(&t, r, pt, -1);
        return;
    }
    int alone = 0;
    for (int m = 0; m < CM_COUNT; m++) {
        const compare_verdict *v = compare_verdict_of(r, pt, m);
        alone += compare_metric_shown(p, m) && separates(v, p->n_policies) &&
                 v->n_leaders == 1 && v->best == pol;
    }
    put(&t,
        "Recommended: %s. It is the best, or not significantly worse "
        "than the best, on ",
        p->policies[pol].label);
    if (n_led == n_sep && n_sep == 1)
        put(&t, "the one metric that separates the policies");
    else if (n_led == n_sep && n_sep == 2)
        put(&t, "both metrics that separate the policies");
    else if (n_led == n_sep)
        put(&t, "all %d metrics that separate the policies", n_sep);
    else
        put(&t, "%d of the %d metrics that separate the policies", n_led,
            n_sep);
    if (alone)
        put(&t, " (alone on %d)", alone);
    put(&t, ":");
    int shown = 0;
    for (int i = 0; i < CM_COUNT && shown < 3; i++) {
        compare_metric m = importance[i];
        const compare_verdict *v = compare_verdict_of(r, pt, m);
        if (!compare_metric_shown(p, m) || !separates(v, p->n_policies) ||
            !leads(v, pol))
            continue;
        out->figures[out->n_figures++] = m;
        put(&t, "%s", shown++ ? "; " : " ");
        say_figure(&t, r, pt, pol, m);
    }
    put(&t, ".");
    say_tiers(&t, r, pt, pol);
    say_costs(&t, r, pt, pol);
    say_caveats(&t, r, pt, pol);
}

/* ---- Where each policy tips, along a sweep ------------------------------------ */

/* The values of points [from, to] of the one axis: "at 0.95", "from 0.5
 * to 0.9". */
static void put_values(text *t, const compare_plan *p, uint32_t from,
                       uint32_t to)
{
    const compare_axis *ax = &p->axes[0];
    if (from == to)
        put(t, "at %.10g%s", p->points[from].value[0], ax->unit);
    else
        put(t, "from %.10g%s to %.10g%s", p->points[from].value[0], ax->unit,
            p->points[to].value[0], ax->unit);
}

/* Seeds that tipped, value by value, runs of equal counts together:
 * "0 of 3 from 0.5 to 0.9 (95 % CI 0-56 %, bistable), 1 of 3 at 0.95
 * (...)".  Returns whether recovery was judged at any value. */
static bool put_counts(text *t, const compare_result *r, int pol)
{
    const compare_plan *p = r->plan;
    bool any = false;
    uint32_t k = 0;
    while (k < p->n_points) {
        compare_tipping a, b;
        compare_tipping_of(r, k, pol, &a);
        uint32_t end = k;
        while (end + 1 < p->n_points) {
            compare_tipping_of(r, end + 1, pol, &b);
            if (b.tipped != a.tipped || b.n != a.n)
                break;
            end++;
        }
        put(t, "%s", k ? "; " : "");
        if (a.n == 0) {
            put(t, "not judged ");
        } else {
            put(t, "%u of %u ", a.tipped, a.n);
            any = true;
        }
        put_values(t, p, k, end);
        if (a.n)
            put(t, " (95 %% CI %.0f\xe2\x80\x93%.0f %%, %s)", 100.0 * a.lo,
                100.0 * a.hi, compare_tipping_call(&a));
        k = end + 1;
    }
    return any;
}

void compare_tips_text(const compare_result *r, int pol, char *buf, size_t len)
{
    const compare_plan *p = r->plan;
    text t = {buf, len, 0};
    buf[0] = '\0';
    put(&t, "%s, seeds that never recovered: ", p->policies[pol].label);
    if (!put_counts(&t, r, pol)) {
        t.used = 0;
        put(&t,
            "%s: recovery was not judged at any value (no fault, no "
            "baseline before it, or no room after it)",
            p->policies[pol].label);
        return;
    }
    /* Where most seeds tip: the side of the maps' boundary. */
    uint32_t first = p->n_points, count = 0, n_max = 0;
    bool suffix = true;
    for (uint32_t k = 0; k < p->n_points; k++) {
        compare_tipping a;
        compare_tipping_of(r, k, pol, &a);
        n_max = a.n > n_max ? a.n : n_max;
        bool most = a.n > 0 && 2 * a.tipped > a.n;
        if (most) {
            first = first < p->n_points ? first : k;
            count++;
        } else if (first < p->n_points) {
            suffix = false;
        }
    }
    /* With one seed a value, "most seeds" is that seed. */
    const char *who = n_max == 1 ? "The seed tips" : "Most seeds tip";
    if (count == 0) {
        put(&t, n_max == 1 ? ". At no value did the seed tip."
                           : ". At no value did more than half the seeds tip.");
    } else if (suffix && count > 1) {
        put(&t, ". %s from %.10g%s up.", who, p->points[first].value[0],
            p->axes[0].unit);
    } else {
        put(&t, ". %s at ", who);
        bool one = true;
        for (uint32_t k = 0; k < p->n_points; k++) {
            compare_tipping a;
            compare_tipping_of(r, k, pol, &a);
            if (a.n > 0 && 2 * a.tipped > a.n) {
                put(&t, "%s%.10g%s", one ? "" : ", ", p->points[k].value[0],
                    p->axes[0].unit);
                one = false;
            }
        }
        put(&t, ".");
    }
}

bool compare_tips_caveat(const compare_result *r, char *buf, size_t len)
{
    const compare_plan *p = r->plan;
    uint32_t n_max = 0;
    bool too_few = false;
    for (int i = 0; i < p->n_policies; i++)
        for (uint32_t k = 0; k < p->n_points; k++) {
            compare_tipping t;
            compare_tipping_of(r, k, i, &t);
            too_few |= t.too_few;
            n_max = t.n > n_max ? t.n : n_max;
        }
    if (!too_few || n_max >= compare_tipping_seeds(0))
        return false;
    compare_tipping_caveat(n_max, "value", buf, len);
    return true;
}
