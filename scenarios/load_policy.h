/*
 * load_policy.h -- [policy] (the stack the run's clients use, its
 * plug-ins and parameters) and [expect] (the run's assertions), kept as
 * written for the layers that own their meaning: the policy stack
 * (policies/policy_setup.h) and the verdicts (reports/expect.h), which
 * name the line of each in their messages.
 */
#ifndef SB_LOAD_POLICY_H
#define SB_LOAD_POLICY_H

#include "keys.h"

/* [policy] into ld->sc (policy, plugins, settings).  0, or -1. */
int load_policy(load *ld);
/* [expect] into ld->sc->expect.  0, or -1. */
int load_expect(load *ld);

/* Rows of the key table read here: [policy] name (the stack, and where
 * it was written) and plugin (a path relative to the scenario's folder,
 * one line per plug-in). */
key_parse key_policy_name, key_plugin;

#endif
