/*
 * budget.h -- what a run will cost, estimated from its configuration and
 * its policy before it starts: the events the engine will process and the
 * memory it will hold at its peak, and the limits past which a front end
 * should refuse to start it (the CLI does, unless --force).
 *
 * The estimate is a worst case built from the scenario alone: every
 * request is taken to make as many attempts as its policy allows, and a
 * server without a queue limit to fall behind by the whole excess of
 * those attempts over its capacity.  Real runs usually cost less; the
 * point is to stop the absurd ones (rate = 1e15/s, a million clients
 * each holding a 10 000-call window) before they take an hour or the
 * machine's memory, with a message that says which setting to change.
 * Load spikes in the configuration are counted; faults injected while
 * the run goes are not.  A pipeline's job counts as the calls it makes at
 * most: each step in each of its runs, and an undo each under compensate.
 *
 * Pure: reads the config, allocates nothing.
 */
#ifndef SB_BUDGET_H
#define SB_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "err.h"

/* Events a run may process: about an hour of CPU at the engine's measured
 * 3 to 5 million events per second (bench/README.md: 3 M/s with a million
 * clients, 5 to 7 M/s with fewer), so 1e10 events is 35 to 55 minutes.  A
 * CI job or a person at a terminal waiting longer than that has almost
 * certainly mistyped a rate or a duration; a deliberate long run passes
 * --force. */
#define BUDGET_MAX_EVENTS 1e10

/* Peak memory: 8 GB, half of a 16 GB machine (a typical laptop, GitHub's
 * standard Linux CI runner), leaving the rest to the system and to the
 * other jobs of a parallel test run.  A fixed figure rather than a share
 * of this machine's RAM, so a scenario is accepted or refused the same
 * way on every machine -- a CI run must not start failing because the
 * runner changed.  Bigger machines pass --force. */
#define BUDGET_MAX_BYTES 8e9

/* Events per attempt: a first attempt costs its request's arrival, its
 * arrival at the server, the end of its service, its answer and its
 * timeout (pushed for every attempt, skipped when stale); a retry costs
 * its send instead of an arrival.  Hedges and refusals change this a
 * little either way. */
#define BUDGET_EVENTS_PER_ATTEMPT 5

/* Where the memory goes. */
typedef enum budget_part {
    BUDGET_CLIENTS = 0, /* per client: counters, its mode, policy state
                           (its own and its share of its process's), its
                           next event */
    BUDGET_REQUESTS,    /* requests in memory: record + policy state */
    BUDGET_ATTEMPTS,    /* attempts in memory: waiting or held by the server */
    BUDGET_METRICS,     /* the kept metrics rows (metrics.h) */
    BUDGET_PARTS
} budget_part;

typedef struct budget {
    double requests; /* logical requests the run will offer */
    double attempts; /* at most, per request (the policy's worst case) */
    double events;   /* requests x attempts x BUDGET_EVENTS_PER_ATTEMPT */
    double count[BUDGET_PARTS];         /* clients, requests, attempts, rows */
    double each[BUDGET_PARTS];          /* bytes of one */
    size_t client_state, request_state; /* the policy's, per client/request */
    double bytes;                       /* peak memory: sum of count x each */
} budget_cost;

/* Estimate a run of c by a policy stack that keeps client_state bytes per
 * client (its own and its share of its process's) and request_state
 * bytes per request and, at worst, makes
 * max_attempts attempts per request (capped at budget_attempts_cap()). */
void budget_estimate(const sim_config *c, size_t client_state,
                     size_t request_state, double max_attempts,
                     budget_cost *out);

/* 0 when b is within both limits; otherwise -1 with a message in e that
 * names the figure, how it was reached, the limit, and the settings to
 * lower ("this run would process about 1.5e18 events (...); the limit is
 * 1e10 (about an hour of CPU); lower [clients] rate or count, ...").  The
 * events are checked first. */
int budget_check(const sim_config *c, const budget_cost *b, sb_err *e);

/* The most attempts the engine lets one request make, whatever its policy
 * asks: the worst case of a policy that never stops retrying. */
uint32_t budget_attempts_cap(void);

#endif
