/*
 * export.h -- a run's results in the formats other tools read: the
 * per-bucket CSV and the summary JSON.  Both are the documented contract
 * (README.md "Outputs"): columns and keys are only ever added.
 */
#ifndef SB_EXPORT_H
#define SB_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "expect.h"
#include "json.h"
#include "metrics.h"
#include "summary.h"

/* What the JSON says about the run besides its numbers. */
typedef struct run_meta {
    const char *scenario; /* its name */
    const char *file;     /* the scenario file, or NULL */
    const char *policy;   /* "exponential+token_bucket" */
    const pstack *stack;  /* for the effective parameter values */
    unsigned long long seed;
    uint32_t clients;
    bool timing; /* write wall_s and events_per_s (they vary run to run) */
    double wall_s;
    /* More keys at the end of the object (a service chain's "tiers":
     * chain.h), or NULL. */
    void (*more)(jw *w, const void *ctx);
    const void *more_ctx;
} run_meta;

/* One header line, then one row per bucket.  pipeline: the run has one
 * (sim_config.pipeline.n_steps > 0), so each row ends with its counters
 * job_runs ... alerts_critical; without, those columns are absent. */
void export_csv(FILE *f, const metrics *m, bool pipeline);
/* The summary object (pretty-printed). */
void export_json(FILE *f, const run_meta *meta, const sim_summary *s,
                 const expect_result *res, int n_res);

#endif
