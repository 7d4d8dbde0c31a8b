/*
 * load_pipeline.h -- [pipeline] and its [step.NAME] sections into
 * ld->sc->cfg.pipeline (sim/pipeline.h).
 *
 * steps = a, b, c names the [step.NAME] sections in the order a job runs
 * them.  A step's keys are its own (keys.c); in a step with a policy of
 * its own, every other key is a parameter of that stack, handed on as a
 * setting for the stack to check when it is built (as a tier's
 * [policy.NAME] parameters are).  Refused, each at the line that says it:
 * a listed name without its section, a [step.NAME] the list leaves out,
 * a step without [pipeline], and a pipeline with what it does not
 * support yet (a service chain, the hot-record model).
 */
#ifndef SB_LOAD_PIPELINE_H
#define SB_LOAD_PIPELINE_H

#include "keys.h"

/* The pipeline, after the chain and [server].  0, or -1. */
int load_pipeline(load *ld);

/* A row of the key table read here: a step's own stack (not empty), and
 * where it was written. */
key_parse key_step_policy;

#endif
