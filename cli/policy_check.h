/*
 * policy_check.h -- what can be told of a policy stack without running a
 * simulation: its worst case under every attempt timing out (validate's
 * deadline check and the run cost gate use it), and settings that are
 * accepted but almost surely not what was meant.
 *
 * The probe drives the stack through the request driver with fresh
 * state it allocates and frees itself; the stack is borrowed.
 */
#ifndef SB_POLICY_CHECK_H
#define SB_POLICY_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "err.h"
#include "pstack.h"

/* One kind of request driven through the stack with every attempt timing
 * out and every random draw at its largest. */
typedef struct policy_probe {
    sb_op op; /* the kind of request: operation, critical or not */
    bool critical;
    uint32_t attempts; /* attempts sent */
    uint32_t retries;  /* retry decisions (each with its delay) */
    double delay_s;    /* the retry delays, added up */
    double total_s;    /* ... plus every attempt's timeout */
    bool still_going;  /* still asking for retries at the limit */
} policy_probe;

/* Probe each kind of request the scenario sends (every operation in its
 * mix, critical or not when some are), at most `limit` attempts each:
 * *by_delay is the kind whose retry delays add up to the most,
 * *by_attempts the one that sent the most attempts.  -1 when a layer
 * broke its contract (the message in e). */
int policy_probe_worst(pstack *ps, const client_cfg *cc, uint32_t limit,
                       policy_probe *by_delay, policy_probe *by_attempts,
                       sb_err *e);

/* The most attempts a probe drives one request through: a stack still
 * retrying then is reported "at least". */
#define PROBE_MAX_ATTEMPTS 100

struct scenario;

/* A pipeline's steps probed for its SLA rule: each step's stack (its own
 * [step.NAME] policy, or the run's) driven as the engine sends a step's
 * calls, every attempt timing out; the steps' retry delays added up
 * (every step exhausts its retries) against half the SLA. */
typedef struct pipeline_probe {
    policy_probe steps[SIM_MAX_STEPS];
    char stack[SIM_MAX_STEPS][256]; /* the stack each step ran */
    double delay_s;                 /* the steps' delays, added up */
    bool at_least;                  /* a step still retried at the limit */
    bool over;                      /* delay_s > sla / 2 */

} pipeline_probe;

/* Build every step's own stack (run: the run's stack, borrowed) and,
 * with a [pipeline] sla, probe each step's into *pp.  -1 with the message
 * in e when a stack does not build or a layer broke its contract. */
int policy_probe_pipeline(const struct scenario *sc, pstack *run,
                          pipeline_probe *pp, sb_err *e);

/* Warnings about a policy that is accepted but almost surely not what
 * was meant (a stack of layers alone, which never retries; a hedge delay
 * not shorter than the attempt timeout), one per line in out; returns how
 * many. */
int policy_warnings(const struct scenario *sc, const pstack *ps, char *out,
                    size_t len);

#endif
