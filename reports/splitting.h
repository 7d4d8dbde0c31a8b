/*
 * splitting.h -- the probability of a rare event by multilevel splitting,
 * over any model that can copy a running trajectory and give the copy
 * randomness of its own.
 *
 * The estimator is RESTART (Villen-Altamirano and Villen-Altamirano 1991,
 * 1994; analysed by Garvels 2000, ch. 3): a trajectory that climbs an
 * importance function I through level L[j] is split into R[j] copies,
 * each carrying weight 1 / (R[1] ... R[j]); a copy made at level j is
 * killed when it falls back below L[j], while the original goes on down
 * and gets its weight back.  Every trajectory ends when the rare event
 * happens (a hit: it adds its weight) or when the model says the run is
 * over (the horizon).  The sum Y of the weights of one main trial and all
 * its copies is an unbiased estimate of P(hit before the end), whatever
 * the levels and copy counts: they change only Y's variance.  Main trials
 * are independent, so the mean of Y over n trials has a Student-t
 * interval, and n grows until the interval is as tight as asked.
 *
 * Levels come from a pilot (split_pilot), the adaptive scheme of Cerou and
 * Guyader 2007 in fixed-effort form: run a stage of trajectories from the
 * current level, put the next level where a share p0 of them reached, and
 * copy R = 1 / (climbs through it per trajectory) at it ("balanced
 * growth": about one copy climbs to the next level).  The pilot's trajectories are not used
 * for the estimate, so the levels are fixed before the estimate starts
 * and its unbiasedness holds.  A plan with no level is plain Monte Carlo:
 * Y is 0 or 1, and the interval is Wilson's.
 *
 * Randomness: trial t starts from the model's start(t); the copy c made
 * at the n-th climb of a path with key k through level j gets key
 * split_child_key(k, j, n, c), so every copy is reproducible from the
 * trial number and its path of (level, climb, copy) triples.  The
 * original keeps its randomness.
 *
 * Threads: trials run in batches on `threads` threads; results are summed
 * in trial order and the stopping rule is read between batches, so the
 * estimate is the same bytes whatever the thread count.  The model's
 * callbacks are called concurrently on distinct states and must be safe
 * for that (ctx is shared, read-only or locked by the model).
 */
#ifndef SB_SPLITTING_H
#define SB_SPLITTING_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

#define SPLIT_MAX_LEVELS 64

/* Why advance stopped. */
typedef enum split_stop {
    SPLIT_UP,   /* the importance reached `up` (checked first, before any
                   event: a state already there returns at once) */
    SPLIT_DOWN, /* the importance fell below `floor` (likewise) */
    SPLIT_HIT,  /* the rare event happened; the trajectory is over */
    SPLIT_END,  /* the run is over without it (the horizon) */
    SPLIT_FAIL  /* the model failed; it said why in ctx's way */
} split_stop;

/* A model, borrowed for the call that takes it. */
typedef struct split_model {
    void *ctx;
    /* Main trial `trial` from the model's start; NULL on failure. */
    void *(*start)(void *ctx, uint64_t trial);
    /* A copy of a running trajectory; NULL on failure. */
    void *(*clone)(void *ctx, const void *state);
    void (*destroy)(void *ctx, void *state);
    /* Gives a copy its own randomness from now on. */
    void (*rekey)(void *ctx, void *state, uint64_t key);
    /* Runs until one of the stops above.  A hit wins over a level reached
     * by the same event.  *peak: the highest importance seen during the
     * call (start included); *work += what the call cost, in the model's
     * unit (simulated seconds, for the engine). */
    split_stop (*advance)(void *ctx, void *state, double up, double floor,
                          double *peak, double *work);
    /* Optional: called for every hit, before the trajectory is destroyed,
     * with its main trial's number (from any thread). */
    void (*on_hit)(void *ctx, uint64_t trial, const void *state);
} split_model;

/* Levels and copy counts.  level[0] < level[1] < ...; copies[i] >= 1 is R
 * at level[i].  n_levels = 0: plain Monte Carlo. */
typedef struct split_plan {
    int n_levels;
    double level[SPLIT_MAX_LEVELS];
    uint32_t copies[SPLIT_MAX_LEVELS];
    /* The pilot's figures, for the printout: the climbs through each
     * level per trajectory of its stage, and the share of the last stage
     * that hit. */
    double crossed[SPLIT_MAX_LEVELS];
    double hit_share;
    uint32_t pilot_hits; /* hits in the last stage */
    double pilot_work;
    /* The pilot stopped at a point of no return: from the level it would
     * have added next (no_return_level), fewer than a share p0 of its
     * stage's trajectories fell back below it -- they hit or ran to the
     * end whatever came after -- so that level and any above it were
     * left out (copies there would all share one fate: cost, no
     * variance saved). */
    bool no_return;
    double no_return_level;
} split_plan;

typedef struct split_pilot_opts {
    uint32_t per_stage;   /* trajectories per stage (200) */
    double p0;            /* the share each level should keep (0.2) */
    uint32_t max_copies;  /* R at most (1000) */
    uint64_t first_trial; /* the pilot's trial numbers start here */
    uint64_t key;         /* the pilot's copies' keys derive from this */
    /* The least gap between two levels, relative to the lower one's
     * size: level[j] >= level[j-1] + min_gap x |level[j-1]| (0: none).
     * Where the importance barely drifts (near a tipping point), the
     * share p0 is reached a step or two above the floor (from a level,
     * a walk of +-1 steps without drift climbs k more before falling
     * below it with probability 1/(k+1)), and levels a step apart cost
     * copies that die at the next step down.  The next level is then
     * the lowest peak of the stage at or above that gap (fewer than p0
     * reach it: R grows to match).  When no trajectory of the stage got
     * that far, the pilot stops if some of the stage hit (its last stage
     * runs from there to the event), else the share p0's level stands
     * (the only way up). */
    double min_gap;
    /* Optional: called after each stage with the plan so far (its
     * levels, pilot_work) and the stage's hits, from the caller's
     * thread. */
    void (*progress)(void *arg, const split_plan *sofar, int stage,
                     uint32_t hits);
    void *progress_arg;
} split_pilot_opts;

typedef enum split_pilot_result {
    SPLIT_PILOT_OK,   /* plan is filled; at least one stage hit */
    SPLIT_PILOT_STUCK /* no trajectory of the last stage went above its
                           level or hit: the importance function does not
                           lead to the event (plan holds the levels found) */
} split_pilot_result;

/* Finds levels: stage 0 runs per_stage main trials; while fewer than
 * p0 x per_stage of a stage hit, the next level is the highest importance
 * that at least that many reached, its entrance states are found again by
 * replaying those trajectories up to it, and the next stage starts from
 * them (killed below the level).  A stage in which fewer than p0 x per_stage
 * of the trajectories fell back below their level is past the point of no
 * return: its level is dropped and the pilot stops (plan->no_return).
 * Returns -1 with e set on failure. */
int split_pilot(const split_model *m, const split_pilot_opts *o,
                split_plan *plan, split_pilot_result *res, sb_err *e);

struct split_estimate;

typedef struct split_opts {
    double confidence;       /* 0.95 */
    double target_rel_error; /* stop when half-width / estimate <= this */
    uint64_t min_trials;     /* never stop before (100) */
    uint32_t min_hit_trials; /* ... nor before this many trials hit (10) */
    uint64_t max_trials;     /* stop here whatever the error */
    double max_work;         /* or when the work exceeds this (0: none) */
    uint64_t first_trial;    /* trial numbers start here */
    uint32_t batch;          /* trials per batch (64) */
    int threads;             /* >= 1 */
    uint64_t max_paths;      /* copies alive in one trial at most (1e6):
                                a plan whose copies explode is refused */
    /* Optional: called after each batch with the estimate so far, from
     * the caller's thread (split_estimate_run only). */
    void (*progress)(void *arg, const struct split_estimate *sofar);
    void *progress_arg;
    /* Fixed-effort splitting's trajectories per level (split_fe_run; 0:
     * SPLIT_FE_PER_LEVEL).  Not read by RESTART. */
    uint32_t per_level;
} split_opts;

#define SPLIT_FE_PER_LEVEL 100

typedef struct split_estimate {
    double p;      /* the estimate */
    double lo, hi; /* its interval at opts.confidence */
    /* The interval's half-width over the estimate: Student t's t x s /
     * sqrt(n) / p before lo is clipped at 0 (a clipped interval's
     * (hi - lo) / 2 / p would say 149 % for 199 %); Wilson's (hi - lo) /
     * 2 / p (never clipped).  inf when p = 0. */
    double rel_error;
    uint64_t trials;     /* main trials run */
    uint64_t hit_trials; /* of them, with at least one hit */
    uint64_t hits;       /* hits over all copies */
    uint64_t paths;      /* trajectories run: trials and copies */
    double work;         /* in the model's unit */
    double variance;     /* sample variance of one trial's Y */
    /* Var(Y) x mean work per trial: the variance the estimator would
     * have for one unit of work (lower is better; compare with plain
     * Monte Carlo's p (1 - p) x its mean work per run). */
    double work_variance;
    /* The number of plain Monte Carlo runs whose estimate would have the
     * same variance: p (1 - p) / Var(estimate). */
    double effective_runs;
    bool plain;          /* no levels: Wilson's interval */
    bool reached_target; /* the relative error is at most asked */
    /* Fixed-effort splitting (split_fe_run): `replicates` independent
     * estimates of `per_level` trajectories a level; trials counts their
     * main runs (replicates x per_level), hit_trials the replicates that
     * found the event (their estimate is not 0), and the variance and the
     * interval are over the replicates' estimates. */
    bool fixed_effort;
    uint64_t replicates;
    uint32_t per_level;
} split_estimate;

/* Runs main trials in batches until the interval is tight enough (or a
 * limit).  Returns -1 with e set when the model fails or a trial's copies
 * pass opts.max_paths. */
int split_estimate_run(const split_model *m, const split_plan *plan,
                       const split_opts *o, split_estimate *out, sb_err *e);

/* Fixed-effort splitting (Garvels 2000, ch. 2; L'Ecuyer, Demers and
 * Tuffin 2007; Cerou and Guyader 2007) on the same plan's levels.  One
 * replicate runs per_level trajectories at each level: stage 0 from main
 * trials (first_trial + r x per_level + i for replicate r), stage k from
 * the states where stage k - 1's trajectories first reached level[k-1],
 * drawn uniformly with replacement, each copy re-keyed.  A trajectory
 * runs until it reaches the stage's level, hits, or ends (nothing kills
 * it below a level: the event need not pass back through the levels).
 * A hit counts as reaching every level above (the importance of a run
 * that hit is taken as infinite, so the events stay nested).  The
 * replicate's estimate is the product of the stages' shares, prod_k
 * (reached_k / per_level), unbiased (Del Moral 2004, the multinomial
 * resampling of a Feynman-Kac particle system); it is 0 when a stage
 * reaches nothing.  Replicates are independent: their mean has a
 * Student-t interval over the replicates, which stays honest when one
 * replicate's estimate is heavy tailed (the interval widens instead of
 * a run of main trials hiding the tail).  Replicates run in batches of
 * SPLIT_FE_BATCH on the threads; the stopping rule (o's target, at least
 * SPLIT_FE_MIN_REPLICATES replicates and min_hit_trials of them not 0,
 * max_trials main runs, max_work) is read between batches, so the
 * estimate is the same bytes whatever the thread count. */
int split_fe_run(const split_model *m, const split_plan *plan,
                 const split_opts *o, split_estimate *out, sb_err *e);

#define SPLIT_FE_BATCH 4
#define SPLIT_FE_MIN_REPLICATES 10

/* What one main trial added up to (its copies included): for running
 * trials in parts (an emitted job each) and making the estimate from all
 * of them afterwards. */
typedef struct split_trial {
    double y; /* the weights of its hits */
    double work;
    uint64_t hits, paths;
} split_trial;

/* Runs main trials first .. first + n - 1 into out[0..n).  -1 with e
 * set as split_estimate_run. */
int split_trials_run(const split_model *m, const split_plan *plan,
                     const split_opts *o, uint64_t first, uint64_t n,
                     split_trial *out, sb_err *e);

/* The estimate split_estimate_run makes when its trials give t[0..n) in
 * order (o->first_trial's first): the same batches, the same stopping
 * rule, the same bytes.  *used: the trials it read (it stops where the
 * run would have).  -1 when t runs out before the rule stops (more
 * trials are needed). */
int split_estimate_replay(const split_trial *t, uint64_t n,
                          const split_plan *plan, const split_opts *o,
                          split_estimate *out, uint64_t *used);

/* The key of copy c made at the n-th climb through level j of a path
 * whose key is k. */
uint64_t split_child_key(uint64_t k, int j, uint64_t n, uint32_t c);

#endif
