/*
 * load_chain.h -- a service chain: [server]'s name and downstream, each
 * [server.NAME] below it, [policy.NAME] (the policy of the calls tier
 * NAME makes to its downstream) and [expect.NAME] (assertions about tier
 * NAME), into ld->sc->cfg.tiers (sim/tier.h).
 *
 * Refused, each at the line that says it: a downstream that names no
 * tier, a cycle, a tier the chain does not reach, a [policy.NAME] of no
 * calling tier, a calling tier without a finite worker count or with the
 * hot-record model.  A single server is no chain: n_tiers stays 0.
 */
#ifndef SB_LOAD_CHAIN_H
#define SB_LOAD_CHAIN_H

#include "keys.h"

/* The chain, after [server] is read.  0, or -1. */
int load_chain(load *ld);

/* Rows of the key table read here: a fault's target (a tier's name,
 * after load_chain), [policy.NAME] name (the stack, and where it was
 * written) and processes (at most the tier's workers: t->ctx points to
 * them). */
key_parse key_fault_target, key_tier_policy_name, key_tier_processes;

#endif
