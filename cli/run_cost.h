/*
 * run_cost.h -- the gate every command passes before it runs a scenario:
 * the load budget (sim/budget.h) of the run, its worst-case attempts per
 * request probed (policy_check.h) through the clients' stack and every
 * tier's, checked against the limits (1e10 events, 8 GB).
 */
#ifndef SB_RUN_COST_H
#define SB_RUN_COST_H

#include <stdbool.h>

#include "budget.h"
#include "config.h"
#include "err.h"
#include "pstack.h"

/* The load budget of running cfg with ps in *out.  0 within the limits;
 * over them, 1 with force (the message, without the path, in e: a
 * warning), else -1 with "PATH: this run would ...; lower ..., or pass
 * --force" in e.  When a layer breaks its contract under the probe: -1
 * with its message, or, when lenient (`run`, whose simulation reports it
 * when it happens), the estimate goes on with the attempts probed until
 * then. */
int run_cost_gate(const char *path, const sim_config *cfg, pstack *ps,
                  bool force, bool lenient, budget_cost *out, sb_err *e);

#endif
