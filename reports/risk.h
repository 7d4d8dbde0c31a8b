/*
 * risk.h -- the probability that a run tips into a storm within a
 * horizon: `stormbench risk`.
 *
 * What "entered a storm" means (README "Risk"), the one definition every
 * part uses: after the trigger is gone -- no fault running, or, in a
 * scenario without faults, after the warm-up -- goodput has not come back
 * within 10 % of the baseline for a recovery window (the scenario's
 * recovery_window, the same test `run` uses to say "recovered") for
 * storm_window in a row.  It is `run`'s "metastable: did not recover",
 * judged after storm_window instead of at the end of the run.  The
 * baseline is `run`'s: goodput from the warm-up to the first fault (or,
 * without faults, over the storm window after the warm-up).  Without
 * faults there is no trigger to wait for: a storm is goodput more than
 * 10 % below the baseline in every recovery window for storm_window in a
 * row, counted from when the baseline is known (warm-up + storm window;
 * the earliest storm is judged at warm-up + 2 x storm window), and
 * goodput above the baseline is not off (noise, not a storm).
 *
 * Each trial is one run of the scenario for the horizon, with seed
 * (scenario seed + trial number); it is checked at every bucket.  The
 * probability is estimated by reports/splitting.h: plain Monte Carlo with
 * Wilson's interval when storms are common enough for the budget, else
 * RESTART on an importance function (risk_importance: by default the
 * server's attempts in the system) when the engine can copy a running
 * simulation.
 *
 * Threads: trials run on opts.threads; the result does not depend on
 * their number.
 */
#ifndef SB_RISK_H
#define SB_RISK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "err.h"
#include "setting.h"
#include "splitting.h"

/* What to run: the scenario and the policy, borrowed for the call. */
typedef struct risk_setup {
    const sim_config *cfg; /* its duration is replaced by horizon */
    const char *policy;    /* "exponential+token_bucket" */
    const setting *params;
    int n_params;
    const char *const *plugins;
    int n_plugins;
    int64_t horizon_ns;      /* each trial runs this long */
    int64_t storm_window_ns; /* no recovery for this long: a storm */
    /* 0: the storm above.  N > 0: a storm is instead N attempts waiting
     * in the server's queue (in service not counted) at any moment of a
     * bucket that starts at or after the warm-up -- the bucket's max
     * queue reaching N, judged at its end (`risk --storm-queue N`);
     * storm_window_ns is then not read.  A queue alarm's definition, and
     * one with a closed form: in an M/M/1 queue, P(N waiting) is the
     * chance the number in the system reaches N + 1 (check_risk). */
    uint32_t storm_queue;
} risk_setup;

typedef enum risk_method {
    RISK_AUTO, /* plain Monte Carlo when the pilot sees enough
                       storms, else splitting */
    RISK_PLAIN,
    RISK_SPLITTING, /* RISK_DEFAULT_SPLITTER's splitting */
    /* Splitting by one estimator (splitting.h) on the pilot's levels: */
    RISK_RESTART,     /* split_estimate_run: main runs, copies killed
                         below their level, Student t over main runs */
    RISK_FIXED_EFFORT /* split_fe_run: SPLIT_FE_PER_LEVEL runs a level,
                         Student t over independent replicates */
} risk_method;

/* The importance function splitting climbs (README "Risk"): how far a
 * run is on its way to a storm.  Read at every bucket's end; the
 * amplification and the share timing out are over the last
 * recovery_window of buckets (the window the storm test reads goodput
 * over). */
typedef enum risk_importance {
    RISK_IMP_QUEUE,         /* attempts at the server, queued and in
                               service (the default) */
    RISK_IMP_AMPLIFICATION, /* attempts sent / requests started, over the
                               window */
    RISK_IMP_TIMEOUTS,      /* share of the attempts that ended by timing
                               out, over the window */
    RISK_IMP_COMBINED       /* the queue x the amplification */
} risk_importance;

/* "queue", "amplification", "timeouts", "combined". */
const char *risk_importance_name(risk_importance k);

/* The kind named s, or -1. */
int risk_importance_parse(const char *s, risk_importance *k);

typedef struct risk_opts {
    risk_method method;
    double confidence;       /* 0.95 */
    double target_rel_error; /* 0.2 */
    uint64_t max_runs;       /* main trials at most */
    double max_sim_s;        /* simulated seconds at most (0: no limit) */
    int threads;
    risk_importance importance; /* splitting's; RISK_IMP_QUEUE by default */
    /* The pilot's trajectories per stage (0: RISK_PILOT_RUNS).  More give
     * steadier levels and copy counts (each is a share of them) for a
     * cost of about this many runs of the horizon. */
    uint32_t pilot_runs;
    /* Optional progress, called from the caller's thread: after each of
     * the pilot's stages that placed a level, and after each batch of
     * main runs with the estimate so far. */
    void (*pilot_progress)(void *arg, const split_plan *sofar, int stage,
                           uint32_t hits);
    void (*progress)(void *arg, const split_estimate *sofar);
    void *progress_arg;
    /* Optional: set (by a SIGINT handler) to stop; every run in flight
     * stops at its next bucket and risk_estimate returns 1. */
    atomic_int *stop;
} risk_opts;

#define RISK_PILOT_RUNS 200

/* The splitting estimator used unless asked (bench/README.md compares
 * them on bench_risk's case). */
#define RISK_DEFAULT_SPLITTER RISK_RESTART

/* The least gap between two of splitting's levels, as a share of the
 * lower one (split_pilot_opts.min_gap): at 137 requests/s of bench_risk's
 * case the pilot put levels at 87 and 89, 102 and 103 attempts without
 * it. */
#define RISK_LEVEL_GAP 0.05

typedef struct risk_result {
    split_estimate est;
    split_plan plan;   /* n_levels 0 for plain Monte Carlo */
    bool splitting;    /* the estimator used */
    bool fixed_effort; /* ... splitting by fixed effort, else RESTART */
    /* Why plain Monte Carlo was used when the pilot asked for splitting,
     * or "" */
    char note[ERR_MSG_MAX + 64]; /* whole: an sb_err's message fits */
    /* The first storm found: the lowest trial that tipped, the seed that
     * replays it and when it was judged a storm. */
    bool found;
    uint64_t first_trial, first_seed;
    int64_t first_storm_ns;
    /* ... and, when splitting found it, the branch path that reached it
     * ([scenario] branch: a run with first_seed and this path replays
     * it); n = 0 for a plain run. */
    sim_branch first_branch;
    /* Storms as a Poisson process over the exposed time (horizon minus
     * warm-up): rate = -ln(1 - p) / exposure; NaN when p is 0 or 1, and
     * when one_shot: the scenario's faults strike once (none has
     * `every`), so p is per run of that trigger and has no rate. */
    bool one_shot;
    double rate_per_s, rate_lo_per_s, rate_hi_per_s;
    double exposure_s;
} risk_result;

/* 0 when su's horizon and storm window suit its scenario (a horizon
 * past the warm-up, a storm window at least the recovery window), else
 * -1 with the option and what was expected in e.  risk_estimate checks
 * it first; a caller with other work to do before the estimate (compare
 * --risk's runs) checks it before that work. */
int risk_check_setup(const risk_setup *su, sb_err *e);

/* Estimates P(storm within the horizon).  -1 with e set on bad input or
 * a failed run; 1 when o->stop was set before it was made (r holds
 * nothing to use). */
int risk_estimate(const risk_setup *su, const risk_opts *o, risk_result *r,
                  sb_err *e);

/* Plain Monte Carlo in parts, for runs spread over machines (risk
 * --emit-jobs, then merge): one run's outcome. */
typedef struct risk_trial {
    split_trial t;    /* y: 1 if it tipped; work: its simulated seconds */
    int64_t storm_ns; /* when it was judged a storm; -1: it was not */
} risk_trial;

/* Runs first .. first + n - 1 of plain Monte Carlo (o's method is not
 * read) into out[0..n).  -1 with e set on bad input or a failed run. */
int risk_plain_part(const risk_setup *su, const risk_opts *o, uint64_t first,
                    uint64_t n, risk_trial *out, sb_err *e);

/* The estimate risk_estimate makes with RISK_PLAIN when its runs come
 * out as t[0..n) (runs 0, 1, ...): the same stopping rule read on the
 * same batches, so the same result to the bit.  -1 with e set when the
 * rule would have run more than n. */
int risk_plain_merge(const risk_setup *su, const risk_opts *o,
                     const risk_trial *t, uint64_t n, risk_result *r,
                     sb_err *e);

/* P(at least one storm in `span_s` seconds) at a rate: 1 - exp(-rate x
 * span). */
double risk_within(double rate_per_s, double span_s);

#endif
