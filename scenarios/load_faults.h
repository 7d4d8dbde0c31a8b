/*
 * load_faults.h -- [fault.NAME] sections into ld->sc->cfg.faults, in the
 * order they first appear (so a fault's index, which its random stream
 * hangs on, is stable).  A fault's keys are those of its type (keys.c's
 * rows say which apply and which are required); each is refused by name
 * in a fault of another type.
 */
#ifndef SB_LOAD_FAULTS_H
#define SB_LOAD_FAULTS_H

#include "keys.h"

/* Every [fault.NAME], after the chain (a target names a tier).  0, or
 * -1. */
int load_faults(load *ld);

/* A crash strikes a pipeline's job runners: refused without one (after
 * load_pipeline).  0, or -1. */
int load_check_crashes(load *ld);

/* Rows of the key table read here: an errors fault's status (an HTTP
 * status, a gRPC code name or "reset") and its gRPC pushback. */
key_parse key_fault_status, key_fault_pushback;

#endif
