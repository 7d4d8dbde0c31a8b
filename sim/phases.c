/*
 * phases.c -- a run's phases and their figures (phases.h).
 *
 * Moved here from the comparison runner (reports/compare_exec.c), which
 * defined them first, so that the run summary, [expect] and comparisons
 * cut a run the same way.  The engine feeds every closed bucket to its
 * run's phases (sim.c), which costs a pass over the bucket's histogram
 * bins in use -- the same pass the comparison's observer made.
 */
#include "phases.h"

#include <math.h>
#include <string.h>

static const char *const names[PHASE_COUNT] = {"before", "during", "after",
                                               "end"};
static const char *const labels[PHASE_COUNT] = {
    "before the fault", "during faults", "recovery", "steady state"};

const char *phases_name(phase_kind k)
{
    return (unsigned)k < PHASE_COUNT ? names[k] : "?";
}

const char *phases_label(phase_kind k)
{
    return (unsigned)k < PHASE_COUNT ? labels[k] : "?";
}

/* ---- Sums ------------------------------------------------------------------ */

/* Field by field, not a memset of the fields before the histogram: that
 * size made GCC use `rep stos`, whose start-up cost was most of a
 * comparison's series row (one clear per row; bench/README.md). */
void phases_sum_clear(phases_sum *a)
{
    for (size_t i = a->lo; i <= a->hi && a->lo <= a->hi; i++)
        a->latency[i] = 0;
    a->buckets = 0;
    a->width_ns = 0;
    a->offered = a->attempts = a->successes = 0;
    a->failures = a->duplicates = a->refusals = 0;
    a->queue_ns = 0.0;
    a->n_latency = 0;
    a->lo = BUCKET_HIST_BINS;
    a->hi = 0;
}
_Static_assert(offsetof(phases_sum, latency) ==
                   9 * sizeof(uint64_t) + sizeof(double) + 2 * sizeof(size_t),
               "phases_sum_clear clears every field before the histogram: "
               "a new field needs its line there");

void phases_sum_add(phases_sum *a, const metrics_bucket *b,
                    const metrics_hist *h)
{
    a->buckets++;
    a->width_ns += b->width_ns;
    a->offered += b->offered;
    a->attempts += b->attempts;
    a->successes += b->successes;
    a->failures += b->failures;
    a->duplicates += b->duplicates;
    a->refusals += b->refusals;
    a->queue_ns += b->queue_ns;
    if (h->lat_lo > h->lat_hi)
        return;
    /* The span's ends are bins with counts (metrics.h), so the sum's
     * [lo, hi] takes them as they are; the bins between are added
     * whether empty or not, without a branch on each. */
    uint64_t n = 0;
    for (size_t i = h->lat_lo; i <= h->lat_hi; i++) {
        a->latency[i] += h->latency[i];
        n += h->latency[i];
    }
    a->n_latency += n;
    if (h->lat_lo < a->lo)
        a->lo = h->lat_lo;
    if (h->lat_hi > a->hi)
        a->hi = h->lat_hi;
}

double phases_sum_p99_ms(const phases_sum *a)
{
    if (a->n_latency == 0)
        return NAN;
    double q = 0.99, v;
    hist_quantiles(BUCKET_HIST_BITS, a->latency, a->lo, a->hi, a->n_latency, &q,
                   1, &v);
    return v / 1e6;
}

/* ---- The plan -------------------------------------------------------------- */

static uint64_t ceil_div(int64_t a, int64_t b)
{
    return a <= 0 ? 0 : (uint64_t)((a + b - 1) / b);
}

/* "before" is the buckets wholly before the first fault, as the summary's
 * baseline; "during" every bucket a fault touches; "end" the last
 * recovery window, when it lies wholly after the faults.  A first fault
 * inside the warm-up leaves "before" empty. */
void phases_plan_of(const phases_input *in, phases_plan *o)
{
    int64_t w = in->bucket_ns;
    uint64_t n = ceil_div(in->duration_ns, w);
    uint64_t warm = ceil_div(in->warmup_ns, w);
    memset(o, 0, sizeof *o);
    if (in->first_fault < 0) {
        o->from[PHASE_BEFORE] = warm < n ? warm : n;
        o->to[PHASE_BEFORE] = n;
        return;
    }
    uint64_t fs = (uint64_t)(in->first_fault / w);
    uint64_t fe = ceil_div(in->last_fault_end, w);
    if (fs > n)
        fs = n;
    if (fe > n)
        fe = n;
    uint64_t window = ceil_div(in->recovery_window_ns, w);
    uint64_t end = n - (window < 1 ? 1 : window > n ? n : window);
    o->from[PHASE_BEFORE] = warm < fs ? warm : fs;
    o->to[PHASE_BEFORE] = fs;
    o->from[PHASE_DURING] = fs;
    o->to[PHASE_DURING] = fe;
    o->from[PHASE_AFTER] = fe;
    o->to[PHASE_AFTER] = fe <= end ? end : n;
    if (fe <= end) {
        o->from[PHASE_END] = end;
        o->to[PHASE_END] = n;
    }
}

/* ---- A run's phases -------------------------------------------------------- */

void phases_init(phases *p, const phases_input *in)
{
    memset(p, 0, sizeof *p);
    p->bucket_ns = in->bucket_ns;
    for (int k = 0; k < PHASE_COUNT; k++) {
        p->sum[k].lo = BUCKET_HIST_BINS;
        p->sum[k].hi = 0;
    }
    phases_plan_of(in, &p->plan);
}

void phases_replan(phases *p, const phases_input *in)
{
    phases_plan_of(in, &p->plan);
}

void phases_add(phases *p, const metrics_bucket *b, const metrics_hist *h,
                bool quiet)
{
    uint64_t i = (uint64_t)(b->start_ns / p->bucket_ns);
    for (int k = 0; k < PHASE_COUNT; k++)
        if (i >= p->plan.from[k] && i < p->plan.to[k]) {
            phases_sum *a = &p->sum[k];
            if (a->buckets == 0)
                p->first[k] = i;
            if (quiet) {
                a->buckets++;
                a->width_ns += b->width_ns;
            } else {
                phases_sum_add(a, b, h);
            }
            return;
        }
}

static void figures(const phases_sum *a, uint64_t first, int64_t w,
                    sim_phase *p)
{
    memset(p, 0, sizeof *p);
    if (a->buckets == 0)
        return;
    double width_s = (double)a->width_ns / 1e9;
    uint64_t ended = a->successes + a->failures;
    p->present = true;
    p->from_s = (double)first * (double)w / 1e9;
    p->to_s = p->from_s + width_s;
    p->offered_per_s = (double)a->offered / width_s;
    p->goodput_per_s = (double)a->successes / width_s;
    p->success_ratio = ended ? (double)a->successes / (double)ended : NAN;
    p->amplification =
        a->offered ? (double)a->attempts / (double)a->offered : NAN;
    p->p99_ms = phases_sum_p99_ms(a);
    p->duplicates = (double)a->duplicates;
}

void phases_figures(const phases *p, sim_phase out[PHASE_COUNT])
{
    for (int k = 0; k < PHASE_COUNT; k++)
        figures(&p->sum[k], p->first[k], p->bucket_ns, &out[k]);
}

static bool sum_sane(const phases_sum *a)
{
    if (a->lo <= a->hi && a->hi >= BUCKET_HIST_BINS)
        return false;
    uint64_t n = 0;
    for (size_t i = 0; i < BUCKET_HIST_BINS; i++) {
        if (a->latency[i] && (a->lo > a->hi || i < a->lo || i > a->hi))
            return false;
        n += a->latency[i];
    }
    return n == a->n_latency;
}

bool phases_sane(const phases *p)
{
    uint64_t end = 0;
    for (int k = 0; k < PHASE_COUNT; k++) {
        const phases_plan *pl = &p->plan;
        if (pl->from[k] > pl->to[k])
            return false;
        if (pl->from[k] < pl->to[k]) {
            if (pl->from[k] < end)
                return false;
            end = pl->to[k];
        }
        if (!sum_sane(&p->sum[k]))
            return false;
    }
    return true;
}
