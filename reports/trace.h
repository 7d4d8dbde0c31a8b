/*
 * trace.h -- the --trace observer: one JSON object per line for every
 * attempt sent, attempt ended (with the policy's decision) and request
 * ended, for 1 in N requests.
 */
#ifndef SB_TRACE_H
#define SB_TRACE_H

#include <stdio.h>

#include "sim.h"

typedef struct trace_writer {
    FILE *f;
    const pstack *stack;
} trace_writer;

/* sim_observer.trace for a trace_writer. */
void trace_write(void *ctx, const sim_trace *t);

#endif
