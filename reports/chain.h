/*
 * chain.h -- a service chain's tiers (sim/tier.h) in the run's outputs:
 * a table under the printed summary, a "tiers" array in the JSON, and
 * per-tier columns appended to the CSV.  A run without a chain writes
 * none of them, so single-server outputs are unchanged.
 */
#ifndef SB_CHAIN_H
#define SB_CHAIN_H

#include <stdio.h>

#include "json.h"
#include "sim.h"

/* The tiers table (nothing without a chain).  s: finished. */
void chain_print(FILE *f, const sim *s);
/* "tiers": [...] into an open JSON object; ctx is the sim (run_meta's
 * `more` hook, export.h). */
void chain_json(jw *w, const void *ctx);
/* export_csv of the top's metrics, each line followed by every tier's
 * columns (NAME.attempts, ...).  -1 when out of memory. */
int chain_csv(FILE *f, const sim *s);

#endif
