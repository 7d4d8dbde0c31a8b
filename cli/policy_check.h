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
    sb_op op;           /* the kind of request: operation, critical or not */
    bool critical;
    uint32_t attempts;  /* attempts sent */
    uint32_t retries;   /* retry decisions (each with its delay) */
    double delay_s;     /* the retry delays, added up */
    double total_s;     /* ... plus every attempt's timeout */
    bool still_going;   /* still asking for retries at the limit */
} policy_probe;

/* Probe each kind of request the scenario sends (every operation in its
 * mix, critical or not when some are), at most `limit` attempts each:
 * *by_delay is the kind whose retry delays add up to the most,
 * *by_attempts the one that sent the most attempts.  -1 when a layer
 * broke its contract (the message in e). */
int policy_probe_worst(pstack *ps, const client_cfg *cc, uint32_t limit,
                       policy_probe *by_delay, policy_probe *by_attempts,
                       sb_err *e);

struct scenario;
/* Warnings about a policy that is accepted but almost surely not what
 * was meant (a stack of layers alone, which never retries; a hedge delay
 * not shorter than the attempt timeout), one per line in out; returns how
 * many. */
int policy_warnings(const struct scenario *sc, const pstack *ps, char *out,
                    size_t len);

#endif
