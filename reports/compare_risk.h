/*
 * compare_risk.h -- `compare --risk`: the probability of a storm per
 * policy (and per sweep point), next to the comparison's figures.
 *
 * Each policy at each point is estimated as `stormbench risk` would
 * (reports/risk.h: the same storm definition, horizon and estimator),
 * with the scenario's own seed as the first run's: every policy meets
 * the same weather, run for run (a fault's draws are keyed by its name
 * and the seed).  The verdict ranks the policies by the estimate and
 * tells the best from each other policy with Fisher's exact test on the
 * runs that tipped (Holm-adjusted over those comparisons); runs are
 * paired by seed, so the unpaired test is conservative.
 *
 * Each estimate is saved the moment it is made (reports/riskfile.h), in
 * the comparison's directory: the outputs read them back from there
 * (compare_risk_load), one command's and a merge's alike, and the same
 * command again, or an emitted job (one per estimate), makes only those
 * missing.
 *
 * The results table, summary.md, summary.json, the report (a table, and
 * on a two-axis sweep a map of P(storm) per cell) and the printed
 * verdicts read them from compare_result.risk; NULL without --risk.
 */
#ifndef SB_COMPARE_RISK_H
#define SB_COMPARE_RISK_H

#include <stdint.h>
#include <stdio.h>

#include "compare.h"
#include "risk.h"

typedef struct compare_risk_opts {
    int64_t horizon_ns;      /* each run's length */
    int64_t storm_window_ns; /* no recovery this long: a storm */
    risk_opts ro;            /* method, confidence, runs, threads */
} compare_risk_opts;

typedef struct compare_risk {
    compare_risk_opts o;
    uint32_t n_points;
    int n_policies;
    risk_result *cell; /* [point][policy] */
} compare_risk;

/* The estimates of a plan: one per policy at each point, numbered
 * cell = point x n_policies + policy.  An emitted job makes one: job
 * compare_n_runs(p) + cell. */
uint32_t compare_risk_n_cells(const compare_plan *p);

/* 0 when o's --horizon and --storm-window suit the scenario at every
 * point of the plan (risk_check_setup), else -1 with the option, the
 * sweep point and what was expected in e: for checking before
 * compare's runs, which would otherwise be made before the estimates
 * find it out. */
int compare_risk_check(const compare_plan *p, const compare_risk_opts *o,
                       sb_err *e);

/* Makes the estimates cells[0..n_cells) (cells NULL: all of them) that
 * dir does not hold yet, saving each in dir the moment it is made
 * (reports/riskfile.h: a valid saved one is not made again, a damaged or
 * stale one is made again over it).  progress (or NULL) gets a line per
 * estimate.  -1 with e set when a run fails or a file cannot be written,
 * 1 when o->ro.stop was set (Ctrl-C: the estimate in the making is
 * dropped): the estimates made before either stay saved. */
int compare_risk_make(const compare_plan *p, const compare_risk_opts *o,
                      const char *dir, const uint32_t *cells, uint32_t n_cells,
                      FILE *progress, sb_err *e);

/* Every estimate of the plan from the first of dirs[0..n_dirs) that holds
 * a valid one, into *out (free with compare_risk_free).  One missing from
 * all of them is an error naming the first (its policy, its point, why a
 * file of it was refused), how many are missing, and what makes them
 * (the same compare command, or its job with --run K). */
int compare_risk_load(const compare_plan *p, const compare_risk_opts *o,
                      const char *const *dirs, int n_dirs, compare_risk **out,
                      sb_err *e);
void compare_risk_free(compare_risk *r);

static inline const risk_result *compare_risk_at(const compare_risk *r,
                                                 uint32_t pt, int pol)
{
    return &r->cell[(size_t)pt * (size_t)r->n_policies + (size_t)pol];
}

/* A probability in percent as tables print it: "11.2", "0.41", "0". */
void compare_risk_pct(double p, char *buf, size_t len);

/* "11.2 % [8.9, 14.0]; 88 of 800 runs" (plain Monte Carlo) or "3.1e-04 %
 * [...]; splitting, as precise as 9000 runs". */
void compare_risk_cell(const risk_result *c, char *buf, size_t len);

/* The verdict on the risk of a storm at a point: which policy is least
 * likely to tip, against the next best, with the test that decides.
 * best (or NULL) gets the leader, -1 when nothing separates them.
 * Returns 0, or -1 when an allocation of Holm's adjustment failed (the p
 * would be unadjusted): buf then says "out of memory" and the caller
 * fails, writing no verdict. */
int compare_risk_verdict(const compare_result *r, uint32_t pt, int *best,
                         char *buf, size_t len);

/* summary.md's section at a point: a table (policy, P(storm), its
 * interval, runs tipped, storms a day, estimator) and the verdict. */
int compare_risk_md(FILE *f, const compare_result *r, uint32_t pt);

/* summary.json's "risk" object at a point, inside the point's object. */
struct jw;
int compare_risk_json(struct jw *w, const compare_result *r, uint32_t pt);

/* "within 1 h" for the horizon: the words every heading uses. */
void compare_risk_horizon(const compare_risk *r, char *buf, size_t len);

#endif
