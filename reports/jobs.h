/*
 * jobs.h -- a data pipeline's jobs (sim/pipeline.h) in the run's outputs:
 * a block under the printed summary and a "pipeline" object in the JSON.
 * The CSV's per-bucket pipeline columns are export_csv's (export.h), and
 * the pipeline's [expect] keys expect.c's.  A run without a pipeline
 * writes none of them, so its outputs are unchanged.
 *
 * Everything here reads a finished run's sim_pipeline_summary (sim.h),
 * borrowed for the call; nothing is kept.
 */
#ifndef SB_JOBS_H
#define SB_JOBS_H

#include <stdio.h>

#include "config.h"
#include "json.h"
#include "sim.h"

/* The pipeline block of the run summary: c for the SLA (said only when
 * there is one), p the run's figures. */
void jobs_print(FILE *f, const sim_config *c, const sim_pipeline_summary *p);

/* "pipeline": {..., "steps": [...]} into an open JSON object: every
 * figure of p under its field's name. */
void jobs_json(jw *w, const sim_pipeline_summary *p);

/* Jobs that failed in any way: failed + compensated + inconsistent (what
 * [expect] jobs_failed_max counts and compare's jobs failed share). */
uint64_t jobs_failed_all(const sim_pipeline_summary *p);

#endif
