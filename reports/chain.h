/*
 * chain.h -- a service chain's tiers (sim/tier.h) in the run's outputs:
 * a table under the printed summary, a "tiers" array in the JSON, and
 * per-tier columns appended to the CSV.  A run without a chain writes
 * none of them, so single-server outputs are unchanged.
 */
#ifndef SB_CHAIN_H
#define SB_CHAIN_H

#include <stdio.h>

#include "expect.h"
#include "json.h"
#include "sim.h"

/* The tiers table (nothing without a chain).  s: finished. */
void chain_print(FILE *f, const sim *s);
/* "tiers": [...] into an open JSON object; ctx is the sim (run_meta's
 * `more` hook, export.h). */
void chain_json(jw *w, const void *ctx);
/* export_csv of the top's metrics (with the pipeline's columns when the
 * run has one), each line followed by every tier's columns
 * (NAME.attempts, ...).  -1 when out of memory. */
int chain_csv(FILE *f, const sim *s);

/* The most tier assertions a run has ([expect.NAME], config.h). */
#define CHAIN_MAX_EXPECT (SIM_MAX_TIERS * TIER_EXPECT_KINDS)

/* The key of tier assertion kind k (TIER_EXPECT_*): "amplification_max". */
const char *chain_expect_key(int k);

/* Evaluate every tier's [expect.NAME] on a finished run into out (room
 * for CHAIN_MAX_EXPECT); each result's name ("db.amplification_min") is
 * kept in names[i], which must live as long as out.  Returns how many
 * were written. */
int chain_expect_eval(const sim *s, expect_result *out,
                      char (*names)[SIM_NAME_MAX + 32]);

#endif
