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
/* [policy] from = FILE#SELECTOR: an imported configuration (import.h)
 * read before any section, its stack, parameters and scenario keys
 * added as keys the file did not write (what the file or --set writes
 * wins, so a key overrides one imported value).  FILE is relative to the
 * scenario.  With --set policy.name the import is left out.  0, or -1
 * naming the scenario's line and the imported file's. */
int load_policy_from(load *ld);
/* [expect] into ld->sc->expect.  0, or -1. */
int load_expect(load *ld);

/* Rows of the key table read here: [policy] name (the stack, and where
 * it was written) and plugin (a path relative to the scenario's folder,
 * one line per plug-in). */
key_parse key_policy_name, key_plugin, key_policy_from;

#endif
