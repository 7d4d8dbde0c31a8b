/*
 * compare.h -- a comparison: one scenario, several policies, the same N
 * seeds for each (paired: common random numbers), at every point of up
 * to two sweeps.  Each run is reduced the moment it ends (its summary,
 * its phases, its latency quantiles, and a short series for the report's
 * time-series pages) and saved under DIR/runs/, a checksummed record
 * appended to the file of the thread that ran it, so that
 *
 *   - an interrupted comparison resumes: only runs with no valid saved
 *     record are run again (a saved run is valid when its fingerprint --
 *     of the scenario, the policies, the sweeps, the seed and the program
 *     version -- is the plan's);
 *   - runs spread over machines (--emit-jobs) are merged by loading the
 *     saved records of several directories;
 *   - memory stays bounded: the result keeps each run's reduction (about
 *     1 kB), not its metrics.
 *
 * The saved record's format is reports/runfile.h's: versioned text, read
 * strictly, with a checksum -- a truncated, edited or stale record is
 * never used (execute runs it again; load names its file and line); which
 * runs are saved where is reports/runstore.h's.
 *
 * Then statistics across seeds (base/stats.h) per point, policy and
 * metric, a verdict per metric, and the tabular outputs: runs.csv,
 * summary.md, summary.json.  The PDF and HTML report are composed by the
 * CLI from compare_result with viz/report.h (reports/ does not include
 * viz/: they are the same layer).
 *
 * Runs execute on a pool of threads; the engine shares nothing between
 * sims, and every run is a function of its plan entry, so results do not
 * depend on the number of threads or the order runs finish in.
 */
#ifndef SB_COMPARE_H
#define SB_COMPARE_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "err.h"
#include "setting.h"
#include "stats.h"
#include "summary.h"

#define COMPARE_MAX_POLICIES 16
#define COMPARE_MAX_PARAMS 32
#define COMPARE_MAX_AXES 2
#define COMPARE_MAX_SEEDS 100000
#define COMPARE_MAX_POINTS 4096
#define COMPARE_MAX_PLUGINS 8
/* A run's series for the report: at most this many rows (buckets are
 * merged into rows of equal width), a few columns. */
#define COMPARE_ROWS 360
/* Latency quantiles kept per run, at compare_cdf_q[]: 0.01, the 39
 * multiples of 0.025 from 0.025 to 0.975, 0.99 and 0.999. */
#define COMPARE_CDF_POINTS 42

/* ---- The plan -------------------------------------------------------------- */

/* One policy entry as the user wrote it: "exponential+token_bucket" or
 * "exponential:jitter=full:base=10ms". */
typedef struct compare_policy {
    char label[160]; /* as written: the name used in every output */
    char stack[128]; /* the policy stack: "exponential+token_bucket" */
    /* Every parameter the stack gets, in order of precedence as
     * policy_setup applies them: the scenario's [policy] settings when the
     * stack is the scenario's own, then the entry's, then --param ones. */
    setting params[COMPARE_MAX_PARAMS];
    int n_params;
} compare_policy;

/* A swept key: FROM:TO:STEP, inclusive of TO when it falls on a step. */
typedef struct compare_axis {
    char key[96];          /* as written: "clients.rate", "fault.outage.
                            duration", or a policy parameter
                            "exponential.max_attempts" */
    char unit[16];         /* the unit FROM was written with: "/s", "s",
                            "ms", "" -- values are printed back in it */
    double from, to, step; /* in that unit */
    uint32_t n;            /* values: floor((to - from) / step + 1e-9) + 1 */
    bool policy_param;     /* the key is a policy parameter */
} compare_axis;

/* The value of axis a at index i: from + i x step. */
double compare_axis_value(const compare_axis *a, uint32_t i);

/* One point of the sweep grid: the scenario with the sweep's values set,
 * loaded by the caller (the loader is in scenarios/, which reports/ does
 * not include).  Without a sweep there is one point. */
typedef struct compare_point {
    uint32_t index[COMPARE_MAX_AXES]; /* on each axis */
    double value[COMPARE_MAX_AXES];   /* in the axis's unit */
    sim_config cfg;                   /* seed: overwritten per run */
    /* Sweep values that are policy parameters, given to every policy
     * after its own. */
    setting policy_sets[COMPARE_MAX_AXES];
    int n_policy_sets;
    /* The other sweep values as `--set` takes them ("clients.rate=50/s";
     * `load` as the rate it sets), for a command that reruns one run. */
    char scenario_sets[COMPARE_MAX_AXES][160];
    int n_scenario_sets;
} compare_point;

typedef struct compare_plan {
    char scenario[1024]; /* the file, as given */
    char name[64];       /* [scenario] name */
    char description[512];
    /* Hex digest of everything that determines the runs: the scenario
     * file's bytes, --set overrides, every policy entry and parameter,
     * the sweeps, the plug-ins' file names, the program version.  Set by
     * compare_plan_fingerprint once the rest is filled.  Not the seeds:
     * a run is saved under its own seed, so --seeds 20 after --seeds 10
     * runs only the ten new ones. */
    char fingerprint[17];
    /* The same without the program's version: which comparison this is,
     * whatever stormbench ran it (compare_claim_dir). */
    char identity[17];
    compare_policy policies[COMPARE_MAX_POLICIES];
    int n_policies;
    uint64_t seed0; /* seeds seed0, seed0 + 1, ... */
    uint32_t n_seeds;
    compare_axis axes[COMPARE_MAX_AXES];
    int n_axes;
    compare_point *points; /* n_points, axis 0 varying fastest; owned by
                                the caller */
    uint32_t n_points;
    char plugins[COMPARE_MAX_PLUGINS][1024];
    int n_plugins;
} compare_plan;

/* Fill plan->fingerprint from the plan and `extra` (the scenario file's
 * bytes and the --set list, as the caller read them). */
void compare_plan_fingerprint(compare_plan *plan, const void *extra,
                              size_t extra_len);

/* Make dir the home of this comparison: a directory that holds another
 * one (its DIR/comparison names another identity: other policies,
 * sweeps, scenario or --set) is refused with an error that says so and
 * how to go on, unless `force`; the same comparison (a resumed or grown
 * one, more seeds included) is welcome.  DIR/comparison then names this
 * one (written when it did not, so emitted jobs sharing the directory
 * only read it).  A directory without that file (new, or written before
 * it existed) is taken as it is. */
int compare_claim_dir(const compare_plan *p, const char *dir, bool force,
                      sb_err *e);

/* Runs are numbered r = (point x n_policies + policy) x n_seeds + seed. */
uint32_t compare_n_runs(const compare_plan *p);
void compare_run_at(const compare_plan *p, uint32_t r, uint32_t *point,
                    uint32_t *policy, uint32_t *seed);

/* ---- One run, reduced ------------------------------------------------------ */

/* The phases of a run, for the per-phase table: before, during and after
 * the faults, and the steady state at the end.  Defined once, in
 * sim/phases.h, for the run summary, [expect] and comparisons alike; a
 * run's phases are its summary's (compare_run.sum.phase). */
typedef phase_kind compare_phase_kind;
typedef sim_phase compare_phase;

/* Columns of a run's series (per second where it says so). */
typedef enum compare_col {
    CC_OFFERED,    /* requests/s */
    CC_ATTEMPTS,   /* attempts/s */
    CC_GOODPUT,    /* successes/s */
    CC_QUEUE,      /* mean queue length */
    CC_P99_MS,     /* successes' p99 latency, ms; NaN when none */
    CC_DUPLICATES, /* cumulative duplicate writes */
    CC_REFUSED,    /* sends refused locally /s */
    CC_COUNT
} compare_col;

/* The quantile levels of a run's latency distribution (successes, end to
 * end): 0.01, 0.025, 0.05 ... 0.975, 0.99 and 0.999 -- COMPARE_CDF_POINTS,
 * ascending. */
extern const double compare_cdf_q[COMPARE_CDF_POINTS];

/* A service chain's tier in a run (sim/tier.h; sim_tier_summary has the
 * definitions): what reached it, per request the clients offered.  Its
 * name is the scenario's (cfg.tiers[i].name), which the plan has.  The
 * tiers keep their own [policy.NAME] stacks whatever the comparison's
 * policies are: those replace the clients' stack only. */
typedef struct compare_tier {
    uint64_t calls;              /* logical requests that reached it */
    uint64_t attempts;           /* attempts sent to it */
    double amplification;        /* attempts / the top's offered requests */
    double peak_amplification;   /* the largest of any bucket with offered
                                  requests at the top: attempts / offered */
    double during_amplification; /* over the buckets of the faults' phase
                                    (sum.phase[PHASE_DURING]): attempts /
                                    the top's offered; NaN without it */
    double utilization;          /* mean busy workers / workers; 0 when
                                  unlimited */
    uint32_t max_queue;
} compare_tier;

typedef struct compare_run {
    uint32_t point, policy, seed_index;
    uint64_t seed;
    sim_summary sum;                      /* its phases in sum.phase */
    float latency_ms[COMPARE_CDF_POINTS]; /* at compare_cdf_q; NaN: none */
    uint32_t n_tiers;                     /* 0 without a chain */
    compare_tier tier[SIM_MAX_TIERS];     /* from the top down */
} compare_run;

/* A run's series, kept in its saved file and read back for the report's
 * time-series pages only (so the result does not hold them all). */
typedef struct compare_series {
    uint32_t n_rows;
    double row_s; /* rows start at 0, row_s wide */
    float v[COMPARE_ROWS][CC_COUNT];
} compare_series;

/* ---- Running ------------------------------------------------------------- */

typedef struct compare_opts {
    const char *dir;      /* saved runs go to dir/runs/ */
    int jobs;             /* threads; 0: the number of online CPUs */
    const uint32_t *only; /* run just these (an emitted job), or NULL */
    uint32_t n_only;
    /* Progress on this stream (stderr): a bar when it is a terminal
     * (runs done / total, runs/s, ETA), else a line every few seconds;
     * NULL: quiet. */
    FILE *progress;
    /* Set (by a SIGINT handler) to stop: runs in flight finish and are
     * saved, no new ones start.  Atomic, not volatile sig_atomic_t: the
     * worker threads read it, and volatile orders nothing between
     * threads (ThreadSanitizer saw the race). */
    atomic_int *stop;
    /* What a command that reruns one run alone starts with: `stormbench
     * run`, the scenario as given, the comparison's --set options and
     * --policy-plugin files.  Each run adds its policy, parameters, sweep
     * values and seed, and a plug-in that crashes in it prints the whole
     * (cli/guard.c).  scenario NULL: none.  Borrowed, for the call. */
    struct {
        const char *scenario;
        const char *const *sets;
        int n_sets;
        const char *const *plugins;
        int n_plugins;
    } rerun;
} compare_opts;

/* Run every run of the plan that has no valid saved record (or only
 * o->only), saving each, whole, as it ends; then, without o->only, drop
 * the stale records of o->dir/runs/ (runstore_compact).  Returns 0 when
 * all were done, 1 when stopped early (what finished is saved), -1 on an
 * error (a run that fails -- a broken plug-in, memory -- is an error that
 * names the run: policy, seed, point). */
int compare_execute(const compare_plan *p, const compare_opts *o, sb_err *e);

/* Drop the stale records of dir/runs/ for plan p (runstore_compact),
 * saying on progress (when not NULL), after "WHO: ", what was dropped,
 * or that a job still writing kept runs/ as it was.  0, or -1 with a
 * message. */
int compare_compact(const compare_plan *p, const char *dir, const char *who,
                    FILE *progress, sb_err *e);

/* ---- Results ------------------------------------------------------------- */

/* Which of sim/metrics.h's metrics a comparison tests: LOW or HIGH (which
 * is better) in its compare column; NO, not. */
#define COMPARE_ADDED_ID(f, reduce, in_summary, csv, json, label, compare)     \
    METRICS_IF_##compare(CM_##f, )

/* ---- The metrics a comparison tests, once each ------------------------------
 *
 *   X(ID, key, label, phrase, unit, better, value)
 *   - ID: CM_ID, its id;
 *   - key: its key in runs.csv and summary.json ("success_pct"; not the
 *     summary's field name where the value differs, so runs.csv can carry
 *     both);
 *   - label: what the tables and verdicts call it;
 *   - phrase: what the verdict says its leader has ("lowest
 *     amplification");
 *   - unit: "%", "x", "s", "ms", or "" for a count;
 *   - better: +1 higher is better, -1 lower;
 *   - value: how it is computed, an expression of s (the run's
 *     sim_summary, const *), in its unit; NaN when the run has no value.
 * Success ratio is the % of requests that ended; peak amplification the
 * largest bucket's attempts / offered; recovery the s after the last
 * fault (NaN: not recovered, or not judged); p99 the successes' latency;
 * wasted work the % of service time spent for nobody; completion, with
 * arrival = once, when the last request ended (NaN: not every one did;
 * Brooker's hot-record study compares jitter by this and by the work,
 * amplification).  A pipeline's jobs (sim/pipeline.h, from
 * JOBS_COMPLETED on) are compared only when the scenario has one
 * (compare_metric_shown), NaN in a run without one: the % of jobs
 * started that completed, and that failed, were compensated or were left
 * inconsistent (NaN: none started), critical alerts, items committed
 * again, and the s per job started spent waiting out retry delays.
 * compare_metric's ids, compare_metrics[] and compare_metric_of read it,
 * and with them every table, chart, verdict and run file of a comparison.
 * Appended to, never reordered.  After these come the counts of
 * sim/metrics.h's table added since it was written with LOW or HIGH
 * (METRICS_ADDED): CM_field, the summary's count, unit none, phrase
 * "fewest LABEL" (LOW) or "most LABEL" (HIGH). */
#define COMPARE_METRICS(X)                                                     \
    X(SUCCESS_RATIO, "success_pct", "success ratio", "highest success ratio",  \
      "%", +1, s->offered ? 100.0 * s->success_ratio : NAN)                    \
    X(AMPLIFICATION, "amplification", "amplification", "lowest amplification", \
      "x", -1, s->offered ? s->amplification : NAN)                            \
    X(PEAK_AMP, "peak_amplification", "peak amplification",                    \
      "lowest peak amplification", "x", -1,                                    \
      s->offered ? s->peak_amplification : NAN)                                \
    X(RECOVERY_S, "recovery_s", "recovery time", "fastest recovery", "s", -1,  \
      s->recovered ? s->recovery_time_s : NAN)                                 \
    X(P99_MS, "p99_ms", "p99 latency", "lowest p99 latency", "ms", -1,         \
      s->successes ? s->latency_p99_ms : NAN)                                  \
    X(DUPLICATES, "duplicates", "duplicate writes", "fewest duplicate writes", \
      "", -1, (double)s->duplicates)                                           \
    X(QUARANTINED, "quarantined", "quarantined",                               \
      "fewest quarantined requests", "", -1, (double)s->quarantined)           \
    X(WASTED_SHARE, "wasted_work_pct", "wasted work", "least wasted work",     \
      "%", -1, 100.0 * s->wasted_work_share)                                   \
    X(COMPLETION_S, "completion_s", "completion time",                         \
      "shortest completion time", "s", -1,                                     \
      s->has_completion ? s->completion_time_s : NAN)                          \
    X(JOBS_COMPLETED, "jobs_completed_pct", "jobs completed",                  \
      "most jobs completed", "%", +1,                                          \
      s->has_pipeline && s->pipeline.jobs                                      \
          ? 100.0 * (double)s->pipeline.completed / (double)s->pipeline.jobs   \
          : NAN)                                                               \
    X(JOBS_FAILED, "jobs_failed_pct", "jobs failed", "fewest jobs failed",     \
      "%", -1,                                                                 \
      s->has_pipeline && s->pipeline.jobs                                      \
          ? 100.0 * (double)jobs_failed_all(&s->pipeline) /                    \
                (double)s->pipeline.jobs                                       \
          : NAN)                                                               \
    X(ALERTS_CRITICAL, "alerts_critical", "critical alerts",                   \
      "fewest critical alerts", "", -1,                                        \
      s->has_pipeline ? (double)s->pipeline.alerts_critical : NAN)             \
    X(ITEMS_DUPLICATED, "items_duplicated", "duplicate items",                 \
      "fewest duplicate items", "", -1,                                        \
      s->has_pipeline ? (double)s->pipeline.items_duplicated : NAN)            \
    X(JOB_BLOCKED_S, "job_blocked_s", "blocked time per job",                  \
      "least blocked time per job", "s", -1,                                   \
      s->has_pipeline && s->pipeline.jobs                                      \
          ? s->pipeline.blocked_s / (double)s->pipeline.jobs                   \
          : NAN)

#define COMPARE_ID(id, key, label, phrase, unit, better, value) CM_##id,
typedef enum compare_metric {
    COMPARE_METRICS(COMPARE_ID) METRICS_ADDED(COMPARE_ADDED_ID) CM_COUNT
} compare_metric;
#undef COMPARE_ID

/* The first of the table's added counts (CM_COUNT when there is none). */
#define COMPARE_ONE(id, key, label, phrase, unit, better, value) +1
#define CM_FIRST_ADDED ((int)(0 COMPARE_METRICS(COMPARE_ONE)))

/* Is metric m compared in plan p?  Every metric, but the pipeline's only
 * when the scenario has a pipeline (at some point of the sweep): without
 * one they have no value, and the outputs stay as they were before
 * pipelines.  Every table, list and verdict skips the metrics not
 * shown. */
bool compare_metric_shown(const compare_plan *p, compare_metric m);

typedef struct compare_metric_info {
    const char *key;  /* "success_pct": JSON and CSV */
    const char *name; /* "success ratio": tables */
    const char *unit; /* "%", "x", "s", "ms", "" */
    int better;       /* +1 higher is better, -1 lower */
    /* "highest success ratio": what a verdict says its leader has; NULL
     * for the phase and tier figures, which get no verdict */
    const char *phrase;
} compare_metric_info;
extern const compare_metric_info compare_metrics[CM_COUNT];

/* A metric's value in a run, in the metric's unit (NaN when it has none:
 * success ratio and amplification when nothing was offered or ended, p99
 * when nothing succeeded, recovery when the run did not recover or
 * recovery was not judged, completion when not every request ended). */
double compare_metric_of(const compare_run *r, compare_metric m);

/* The metric table's id (sim/metrics.h, MF_...) of metric m, for one the
 * table added (m >= CM_FIRST_ADDED); -1 for the others. */
int compare_metric_field(compare_metric m);

/* For the metrics a run can fail to reach -- recovery (judged and not
 * recovered) and completion (arrival = once and some request never
 * ended): 1 when run r failed, 0 when it has a value, -1 when the metric
 * does not apply to it.  -1 for every other metric. */
int compare_metric_failed(const compare_plan *p, const compare_run *r,
                          compare_metric m);

/* A figure over the seeds.  Its interval respects the figure's domain:
 * Student's t interval of the mean, cut at 0 (every figure here is a
 * count, a time, a rate or a ratio) and at 100 for a share in %.  The
 * true mean lies in the domain, so cutting the interval there leaves its
 * coverage exactly as it was -- what a transform (log, logit) would not
 * (it moves the interval to another mean, and breaks on the zeros a
 * comparison is full of: 0 duplicates, 0 % wasted), nor a bootstrap
 * (which covers too little with 5 seeds).  ci.half_width stays t's, so
 * the cut interval is lo and hi, not mean -+ half_width.  Shares of
 * seeds (how many tipped) are Wilson intervals: compare_tipping. */
typedef struct compare_stat {
    stats_ci ci; /* 95 %; lo and hi cut to the domain */
    double median;
    uint32_t missing; /* runs without a value (recovery: not
                             recovered, or not judged) */
} compare_stat;

/* Which policies did best on a metric at a point, which differences are
 * more than noise, and the sentence that says so.  The rules:
 *   - The ranking: the better mean over the seeds (higher or lower, as
 *     the metric says), a policy with no value last.  For recovery and
 *     completion time, first the fewest runs that failed (did not
 *     recover, did not complete) of those where the metric applies, then
 *     the better mean over the runs that have a value.  Equal places go
 *     to the policy listed first.
 *   - Every pair of policies is tested, paired across the seeds:
 *       recovery and completion, when the two failed in different
 *         numbers of runs: the exact McNemar test (the sign test over the
 *         seeds where exactly one of them failed) -- the counts decide
 *         the ranking, so they are what is tested; else the paired t
 *         test over the seeds where both have a value (the times of the
 *         runs that recovered);
 *       counts (duplicate writes, quarantined, critical alerts,
 *         duplicate items) when sparse -- both policies' means under
 *         COMPARE_SPARSE_COUNT per seed, such as duplicates that are 0
 *         or 1 -- the exact sign test over the seeds where they differ:
 *         a t test's p rests on a normal mean, which a handful of 0s and
 *         1s is not;
 *       everything else: the paired t test over the seeds where both
 *         have a value.
 *     A pair identical on every seed is not tested: p = 1.
 *   - The p values are Holm-adjusted over all n (n - 1) / 2 pairs, and a
 *     pair differs significantly when its adjusted p is below 0.05 (a
 *     pair that cannot be tested -- fewer than 2 seeds with values under
 *     both -- does not).
 *   - The leaders: the best-ranked policy and every policy that does not
 *     differ significantly from it (tied for best).  `significant`: the
 *     best leads alone, significantly better than every other.
 *   - Significance groups (a compact letter display, Piepho's insert and
 *     absorb): two policies share a letter unless they differ
 *     significantly; "a" is the group of the best.
 *   - best is -1 when no policy has a value, or when every policy has the
 *     same value on every seed (nothing to choose). */
#define COMPARE_SPARSE_COUNT 5.0

typedef enum compare_test {
    CT_NONE = 0,     /* identical on every seed, or not testable */
    CT_PAIRED_T = 1, /* the paired t test */
    CT_SIGN = 2,     /* the exact sign test (sparse counts) */
    CT_MCNEMAR = 4   /* the exact McNemar test on failures */
} compare_test;

typedef struct compare_verdict {
    int best;         /* policy index; -1: no values, or a tie */
    bool significant; /* best leads alone */
    double p;         /* the adjusted p `significant` turns on: with
                             best alone, the largest against the others;
                             with other leaders, the smallest against them
                             (the nearest any came to separating); NaN
                             when nothing was tested */
    int runner_up;    /* second in the ranking; -1 */
    int n_leaders;    /* tied for best, best included; 0 with best -1 */
    uint32_t leaders; /* bit i: policy i is a leader */
    int order[COMPARE_MAX_POLICIES]; /* the ranking, best first */
    unsigned tests; /* compare_test bits of the pairs the text cites */
    /* Bit i: leader i is not told apart from best over these seeds --
     * not significantly different, but by a test that could not have
     * been significant over so few (compare_verdict.c, pair_test):
     * "not told apart", never "tied". */
    uint32_t untold;
    /* Significance groups per policy ("a", "ab", "b"); "" when every
     * policy shares one group (no pair differs) or there is no ranking. */
    char letters[COMPARE_MAX_POLICIES][8];
    char text[1024]; /* "exponential+token_bucket: lowest p99 latency
                             (412 ms vs 2310 ms for immediate, the next
                             best), significant (paired t, p < 0.001)" */
} compare_verdict;

/* "paired t", "exact sign test", "paired t and exact McNemar test": the
 * tests of a compare_test bit set, as the verdicts name them. */
void compare_tests_text(unsigned tests, char *buf, size_t len);

/* The fewest seeds over which an exact test (McNemar, sign) can reach p
 * < 0.05 two-sided: 6 (2 / 2^6 = 0.031; 2 / 2^5 = 0.0625). */
uint32_t compare_exact_seeds(void);

/* ---- The bottom line ---------------------------------------------------------- */

/* What page 1 opens with, at one point: the policy to take, the three
 * figures that justify it, what it costs, and the caveats.  The rule: the
 * policy that leads (is best, or not significantly worse than the best)
 * on the most metrics that separate the policies (some policy is
 * significantly worse than the best); equal counts go to the one that
 * leads on the metric that matters more (success, recovery, latency,
 * duplicates before amplification and waste: compare_bottom.c's order).
 * The figures: the first three metrics it leads on, in that order, each
 * against the best policy of the rest.  Costs: the metrics where it is
 * significantly worse than the best.  Caveats: metrics where it ties,
 * policies whose tipping is bistable, metrics where no policy is
 * significantly better than another, metrics identical everywhere. */
typedef struct compare_bottom {
    int recommended; /* -1: nothing separates the policies, or
                                only one */
    compare_metric figures[3];
    int n_figures;
    char text[2048];
} compare_bottom;

struct compare_result;
void compare_bottom_line(const struct compare_result *r, uint32_t pt,
                         compare_bottom *out);

/* A one-key sweep: where policy pol tips, in words -- the seeds that
 * never recovered at each value (equal counts over a run of values said
 * once) with the Wilson 95 % interval and the call, then where most
 * seeds tip (the share above 1/2, the maps' boundary): "immediate, seeds
 * that never recovered: 0 of 3 from 0.5 to 0.9 (95 % CI 0-56 %,
 * bistable); 1 of 3 at 0.95 (...); 3 of 3 at 1 (...). Most seeds tip at
 * 1." */
void compare_tips_text(const struct compare_result *r, int pol, char *buf,
                       size_t len);
/* After those lines: when some value was too few seeds to tell, and no
 * value had enough to call one (compare_tipping_seeds), how many it
 * takes (compare_tipping_caveat); false, buf untouched, otherwise. */
bool compare_tips_caveat(const struct compare_result *r, char *buf, size_t len);

typedef struct compare_result {
    const compare_plan *plan;
    compare_run *runs; /* compare_n_runs(plan), by run number */
    /* [point][policy][metric] */
    compare_stat *stat;
    /* [point][policy][phase][field]: the compare_phase fields
     * offered_per_s .. duplicates, as CP_* */
    compare_stat *phase_stat;
    /* [point][metric] */
    compare_verdict *verdict;
    /* compare --risk's estimates (compare_risk.h), or NULL; borrowed. */
    const struct compare_risk *risk;
    /* A service chain's tiers (the first point's; a sweep does not change
     * the chain): n_tiers of them, 0 without one, and per point, policy
     * and tier the compare_tier_figures over the seeds:
     * [point][policy][tier][TF_*]. */
    uint32_t n_tiers;
    compare_stat *tier_stat;
    /* Where the runs were loaded from (reports/runstore.h): the series
     * are read back from there.  Owned; NULL in a result built by hand. */
    struct runstore *saved;
} compare_result;

/* ---- A service chain's tier figures, once each ----------------------------
 *
 * The figures of the service tiers' table, over the seeds (compare_tier's,
 * per request the clients offered):
 *   X(ID, key, label, unit, better, value)
 *   - ID: TF_ID; key: its key in summary.json, and after "TIER." its
 *     column of runs.csv; label: what the tables and charts call it;
 *   - unit: "x", "%" or "" (a count); better: -1 lower, +1 higher, 0
 *     neither (utilization);
 *   - value: an expression of ti (the run's compare_tier, const *), in its
 *     unit.
 * TF_*, compare_tier_figures[] and compare_tier_value read it, and with
 * them the tiers' table of runs.csv, summary.md, summary.json and the
 * report, and their charts.  Appended to, never reordered.  A figure that
 * needs a new compare_tier field changes the run record (runfile.h). */
#define COMPARE_TIER_FIGURES(X)                                                \
    X(AMPLIFICATION, "amplification", "attempts per request", "x", -1,         \
      ti->amplification)                                                       \
    X(DURING_AMP, "during_amplification",                                      \
      "attempts per request during the faults", "x", -1,                       \
      ti->during_amplification)                                                \
    X(PEAK_AMP, "peak_amplification", "peak attempts per request", "x", -1,    \
      ti->peak_amplification)                                                  \
    X(UTILIZATION, "utilization_pct", "utilization", "%", 0,                   \
      100.0 * ti->utilization)                                                 \
    X(MAX_QUEUE, "max_queue", "max queue", "", -1, (double)ti->max_queue)

#define COMPARE_TIER_ID(id, key, label, unit, better, value) TF_##id,
enum { COMPARE_TIER_FIGURES(COMPARE_TIER_ID) TF_COUNT };
#undef COMPARE_TIER_ID
extern const compare_metric_info compare_tier_figures[TF_COUNT];

/* Tier t's figure f (TF_*) of a run, in compare_tier_figures' unit; NaN
 * when the run has no such tier or nothing was offered. */
double compare_tier_value(const compare_run *r, uint32_t t, int f);

/* The tiers' figure the report leads with at a point: attempts per
 * request during the faults (TF_DURING_AMP) when every policy's runs have
 * that phase, else over the run (TF_AMPLIFICATION). */
int compare_tier_lead_figure(const struct compare_result *r, uint32_t pt);

/* The name of tier t ("front", "api", "db"). */
const char *compare_tier_name(const compare_plan *p, uint32_t t);

/* The runs of a policy at a point that failed a metric (recovery,
 * completion: compare_metric_failed 1), and those it applies to (0 or
 * 1). */
void compare_failures(const compare_result *r, uint32_t pt, int pol,
                      compare_metric m, uint32_t *failed, uint32_t *applies);

/* ---- Metastability as a probability ----------------------------------------
 *
 * Whether a policy tips into a storm at a point is a probability, not a
 * majority vote: of the n seeds whose recovery was judged, k did not
 * recover (the faults ended and goodput never came back within the run).
 * Every table, verdict and chart that judges recovery reports k of n and
 * the Wilson 95 % interval of k / n (base/stats.h: it stays in [0, 1] and
 * is not empty at k = 0 or k = n, unlike p +- 1.96 sqrt(p(1-p)/n)), and
 * gives recovery time over the n - k seeds that recovered only.
 *
 * The call: clearly stable when the interval lies below 1/2, clearly
 * metastable when it lies above, bistable when it holds 1/2 -- the seeds
 * cannot tell whether the policy tips more often than not.  At k = 0 the
 * interval's top is z^2 / (n + z^2) = 3.84 / (n + 3.84), below 1/2 only
 * from n = 4: with 3 seeds or fewer no cell is called either way.  What
 * people read tells the two ways an interval holds 1/2 apart
 * (compare_tipping_call): the seeds split (bistable), or they all agreed
 * and were too few (0 of 3, 3 of 3).  summary.json tells them apart
 * too (compare_tipping_json_name): "bistable" only for seeds that split,
 * "too few seeds" with "seeds_to_tell" for seeds that agreed. */
typedef enum compare_stability {
    CS_UNJUDGED,  /* no run's recovery was judged (no fault, no baseline,
                      no room for the recovery window) */
    CS_STABLE,    /* hi < 1/2 */
    CS_BISTABLE,  /* lo <= 1/2 <= hi */
    CS_METASTABLE /* lo > 1/2 */
} compare_stability;

typedef struct compare_tipping {
    uint32_t tipped; /* seeds that did not recover */
    uint32_t n;      /* seeds whose recovery was judged */
    double share;    /* tipped / n; NaN when n = 0 */
    double lo, hi;   /* Wilson 95 % interval of share; NaN when n = 0 */
    compare_stability stability;
    bool bistable; /* stability == CS_BISTABLE */
    bool too_few;  /* bistable, though every seed agreed (k = 0 or k =
                      n): n is too small for any interval to exclude 1/2 */
} compare_tipping;

/* The tipping of policy pol at point pt (every seed's run of it). */
void compare_tipping_of(const compare_result *r, uint32_t pt, int pol,
                        compare_tipping *out);
/* The same from counts: k of n tipped. */
void compare_tipping_counts(uint32_t k, uint32_t n, compare_tipping *out);
/* "stable", "bistable", "metastable", "not judged". */
const char *compare_stability_name(compare_stability s);
/* The call as the report and summary.md say it: the name, but "too few
 * seeds to tell" for a bistable call whose seeds all agreed. */
const char *compare_tipping_call(const compare_tipping *t);
/* The call as summary.json's "stability" says it: "stable",
 * "metastable", "bistable" (the seeds split), "too few seeds" (they all
 * agreed, but n < compare_tipping_seeds(0)). */
const char *compare_tipping_json_name(const compare_tipping *t);
/* The seeds a cell needs before it can be called stable when none tips
 * (or metastable when all do): 4 at 95 % (0 of 4: up to 49 %); with one
 * seed the other way, 8 (1 of 8: up to 47 %).  stats_wilson_min_n. */
uint32_t compare_tipping_seeds(uint32_t against);
/* One sentence for a map or sweep whose cells (values) had n seeds
 * judged, n < compare_tipping_seeds(0), so that none could be called
 * either way: "With 3 seeds a cell, no cell can be called stable or
 * metastable: ... (0 of 3: 0 to 56 %), too few seeds to tell. It takes
 * 4 seeds agreeing to call one (0 of 4: up to 49 %), or 8 with one seed
 * the other way (1 of 8: up to 47 %)."  noun: "cell", "value". */
void compare_tipping_caveat(uint32_t n, const char *noun, char *buf,
                            size_t len);

/* ---- The per-phase figures -------------------------------------------------
 *
 * The figures of the per-phase table (sim/phases.h: before, during and
 * after the faults, and the steady state at the end), over the seeds: one
 * per line of sim/phases.h's PHASES_FIGURES, CP_ID, in the unit it is
 * shown in (its value x its scale). */
#define COMPARE_PHASE_ID(id, ...) CP_##id,
enum { PHASES_FIGURES(COMPARE_PHASE_ID) CP_COUNT };
#undef COMPARE_PHASE_ID

static inline const compare_stat *compare_stat_at(const compare_result *r,
                                                  uint32_t point, int policy,
                                                  compare_metric m)
{
    return &r->stat[((size_t)point * (size_t)r->plan->n_policies +
                     (size_t)policy) *
                        CM_COUNT +
                    m];
}

/* The figures of the per-phase table (CP_*): key, name, unit, which way
 * is better (0: neither).  The phase statistics are in these units: the
 * success ratio in %, as the metric's. */
extern const compare_metric_info compare_phase_figures[CP_COUNT];
/* Their shorter names, the report's column heads ("success"). */
extern const char *const compare_phase_columns[CP_COUNT];

/* A phase figure of a run (CP_*), in compare_phase_figures' unit; NaN when
 * the phase is not present or the figure has no value. */
double compare_phase_value(const compare_run *r, compare_phase_kind k,
                           int field);

static inline const compare_stat *
compare_phase_stat_at(const compare_result *r, uint32_t point, int policy,
                      compare_phase_kind k, int field)
{
    return &r->phase_stat[(((size_t)point * (size_t)r->plan->n_policies +
                            (size_t)policy) *
                               PHASE_COUNT +
                           k) *
                              CP_COUNT +
                          field];
}

static inline const compare_stat *compare_tier_stat_at(const compare_result *r,
                                                       uint32_t point,
                                                       int policy,
                                                       uint32_t tier, int f)
{
    return &r->tier_stat[(((size_t)point * (size_t)r->plan->n_policies +
                           (size_t)policy) *
                              r->n_tiers +
                          tier) *
                             TF_COUNT +
                         (size_t)f];
}

static inline const compare_verdict *
compare_verdict_of(const compare_result *r, uint32_t point, compare_metric m)
{
    return &r->verdict[(size_t)point * CM_COUNT + m];
}

/* The scenario's description as the report's first page and summary.md
 * give it: as written, or, when the comparison sweeps a scenario key
 * (whose value the description may state: "10 s outage" over
 * fault.outage.duration 2 s to 10 s), "The scenario as written: 10 s
 * outage. This comparison sweeps fault.outage.duration."  "" without a
 * description. */
void compare_description_text(const compare_plan *p, char *buf, size_t len);

/* "run 17: policy 'immediate', seed 3, clients.count = 50": run r, as
 * messages name it. */
void compare_run_name(const compare_plan *p, uint32_t r, char *buf, size_t len);

/* Work out the verdict of metric m at a point from r's runs (compare_load
 * does it for every point and metric).  -1 and e set when out of
 * memory. */
int compare_verdict_at(const compare_result *r, uint32_t point,
                       compare_metric m, compare_verdict *out, sb_err *e);

/* A statistic as the tables print it: mean, lo and hi with the decimals
 * that give the mean three significant digits (0 to 6 decimals; the
 * ends fewer, two digits of the half width, when one of them would
 * print as a zero with decimals: "0.0319 [0.000, 0.096]"), ""
 * where there is no value.  summary.md, summary.json and the verdicts
 * print these strings, so they agree to the digit; the report can too. */
typedef struct compare_numbers {
    char mean[32], lo[32], hi[32];
} compare_numbers;
void compare_stat_numbers(const compare_stat *s, compare_numbers *out);
/* The same with `decimals` decimals (the default's when below 0): two
 * figures that differ significantly but print the same at three digits
 * are printed with more until they differ. */
void compare_stat_numbers_at(const compare_stat *s, int decimals,
                             compare_numbers *out);
/* The decimals compare_stat_numbers gives s: three significant digits of
 * its mean (of its half width when the mean is 0), 0 to 6. */
int compare_stat_decimals(const compare_stat *s);

/* A results table's cell, as summary.md and the report print it: "99.2
 * [98.9, 99.5]" (mean [95 % interval]); "3.00" (one seed: no interval);
 * "-" (no value).  Recovery adds the seeds its mean is over when some
 * did not recover ("22.0 [20.1, 23.9] over 3 seeds"); completion the runs
 * that did not complete ("-; did not complete in 4 of 4"); any other
 * figure the seeds without a value ("; no value in 2 of 5"). */
void compare_cell_text(const compare_result *r, uint32_t pt, int pol,
                       compare_metric m, char *buf, size_t len);
/* The unit a duration metric's figures print in at a point, with the
 * divisor from the metric's own unit: minutes when the largest mean of
 * any policy there is 10 min or more, seconds when it is 10 s or more
 * (a p99 of "59.9 s", not "59861 ms"), else the metric's unit (div 1).
 * One unit for every policy at a point, so that figures set side by side
 * ("59.9 s against 239 s") compare at a glance.  Not a duration: its
 * unit, div 1.  Only what people read is scaled: the verdicts, the
 * bottom line, the results, phase and tier tables; summary.json and
 * runs.csv keep the metric's unit. */
const char *compare_shown_unit(const compare_result *r, uint32_t pt,
                               compare_metric m, double *div);
/* A policy's statistic of m in that unit. */
void compare_stat_shown(const compare_result *r, uint32_t pt, int pol,
                        compare_metric m, compare_stat *out);
/* The rule itself, for any figures in `unit` whose largest absolute mean
 * is `top` (in that unit): the unit they print in, and the divisor. */
const char *compare_unit_for(const char *unit, double top, double *div);
/* The same rule for a row of the phase table (figure f of phase k, over
 * the policies at pt) and of the service tiers' table (figure f of tier
 * t): the report and summary.md print both in it. */
const char *compare_phase_unit(const compare_result *r, uint32_t pt,
                               compare_phase_kind k, int f, double *div);
const char *compare_tier_unit(const compare_result *r, uint32_t pt, uint32_t t,
                              int f, double *div);
/* *s with its mean, sd, half width, interval and median divided by div. */
void compare_stat_divided(const compare_stat *s, double div, compare_stat *out);

/* "2 of 5, 40 % [12, 77]": k of n and the share with its Wilson 95 %
 * interval, in %; "-" when nothing was judged. */
void compare_tipping_text(const compare_tipping *t, char *buf, size_t len);

/* "99.2 %", "1.23x", "412 ms", "250/s", "3.20": a printed number and a
 * unit of compare_metrics or compare_phase_figures. */
void compare_with_unit(const char *number, const char *unit, char *buf,
                       size_t len);

/* Load every run of the plan from the saved records under dirs[i]/runs/
 * (one dir for a comparison, several for a merge: the first valid record
 * of a run is used) and compute the statistics and verdicts.  A run missing
 * from all of them is an error naming the first such run, how many there
 * are, and what runs them (the same compare command, or its emitted job
 * --run K); a file that cannot be used (truncated, corrupt, saved by
 * another plan) with no valid one elsewhere is an error naming the file,
 * the line and why. */
int compare_load(const compare_plan *p, const char *const *dirs, int n_dirs,
                 compare_result **out, sb_err *e);
void compare_result_free(compare_result *r);

/* For the report's time-series pages: the series of every seed of one
 * point and policy, read back from their saved records (where r was
 * loaded from; from dirs when r was built by hand), reduced row by row
 * and column by column to the 10th percentile (lo), the median (mid) and
 * the 90th percentile (hi) across seeds (stats_quantile).  Holds one
 * point and policy's series at a time (n_seeds x 10 kB). */
int compare_series_bands(const compare_result *r, const char *const *dirs,
                         int n_dirs, uint32_t point, int policy,
                         compare_series *lo, compare_series *mid,
                         compare_series *hi, sb_err *e);

/* ---- Tabular outputs, each written whole or not at all ------------------ */

/* One row per run, in run order: run, point, the sweep values (a column
 * per axis, named by its key), policy, seed; the metrics, named by
 * compare_metrics' keys, in their units; every other sim_summary field by
 * its name (reports/runfile.h's table); then per phase PHASE_from_s,
 * PHASE_to_s and PHASE_<compare_phase_figures key>.  A cell with no value
 * is empty.  Numbers read back as the exact doubles the statistics used. */
int compare_write_csv(const compare_result *r, const char *path, sb_err *e);
/* The results table (mean and 95 % interval per metric per policy, per
 * point) and the verdicts, in Markdown for a pull request. */
int compare_write_md(const compare_result *r, const char *path, sb_err *e);
/* The same figures as summary.md, and the plan, in JSON. */
int compare_write_json(const compare_result *r, const char *path, sb_err *e);

#endif
