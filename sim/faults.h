/*
 * faults.h -- the run's faults: the configured ones and those injected
 * while it runs, which of them are running, and what the running ones do
 * to the rest.  Internal to sim/ (front ends use sim.h: sim_inject,
 * sim_end_fault, sim_faults).
 *
 * A fault acts only through its owner's setters: faults_apply recomputes
 * every server's effective state (server_set_capacity and the rest), the
 * clients' load spike and attempt timeout (clients_set_load) and whether
 * a pipeline's runners are down, from the running set, whenever a fault
 * starts or ends.  The coins that decide which attempts an errors or a
 * lost_ack fault strikes, and which clients a partition cuts off, are
 * drawn here: keyed by the fault's name, so that the same attempts and
 * clients are struck under every policy.
 */
#ifndef SB_FAULTS_H
#define SB_FAULTS_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "request.h"

#define MAX_ALL_FAULTS (SIM_MAX_FAULTS * 2)

/* Invariants (faults_sane):
 *   the configured faults come first (cfg->n_faults of them), then the
 *   injected ones; n <= MAX_ALL_FAULTS;
 *   key[i] is rng_named(fault[i].name);
 *   errors[0 .. n_errors), lost[...] and cuts[...] list, in index order,
 *   the running faults of type errors, lost_ack and partition: they are
 *   recomputed only by faults_apply, which runs whenever a fault starts
 *   or ends (so they are never stale when a handler reads them). */
typedef struct faults {
    fault_cfg fault[MAX_ALL_FAULTS];
    bool active[MAX_ALL_FAULTS];
    uint32_t gen[MAX_ALL_FAULTS]; /* bumped at each start and hand end: a
                                     stale EV_FAULT_OFF is skipped */
    uint64_t key[MAX_ALL_FAULTS]; /* rng_named(name): its coins */
    uint32_t n;
    /* Recurring faults (fault_cfg.every) and drawn lengths: the
     * occurrence now or last begun (fault[i].start_ns and duration_ns
     * describe it), the start of the first, and the next one's start and
     * length once the current has ended. */
    uint32_t occurrence[MAX_ALL_FAULTS];
    int64_t first_start[MAX_ALL_FAULTS];
    int64_t next_start[MAX_ALL_FAULTS], next_len[MAX_ALL_FAULTS];
    int64_t fixed_len[MAX_ALL_FAULTS]; /* the configured duration */
    uint8_t errors[MAX_ALL_FAULTS], n_errors;
    uint8_t lost[MAX_ALL_FAULTS], n_lost;
    uint8_t cuts[MAX_ALL_FAULTS], n_cuts;
} faults;

/* Take the configured faults and schedule their starts. */
void faults_start(sim *s);

/* Recompute what the running faults make of the servers, the clients
 * and the pipeline's runners. */
void faults_apply(sim *s);
/* A fault's start or end event. */
void faults_on(sim *s, uint32_t i, bool on, uint32_t gen);

/* Is an errors, a lost_ack, a partition fault running? */
static inline bool faults_any_errors(const faults *f)
{
    return f->n_errors > 0;
}
static inline bool faults_any_lost(const faults *f)
{
    return f->n_lost > 0;
}
static inline bool faults_any_cuts(const faults *f)
{
    return f->n_cuts > 0;
}

/* The errors fault that answers attempt t of r, if any: the coin is
 * (seed, client, fault, request, attempt), so the same attempts fail
 * under every policy. */
const fault_cfg *faults_error(const sim *s, const request *r, const attempt *t);
/* Does a lost_ack fault lose t's answer? */
bool faults_ack_lost(const sim *s, const request *r, const attempt *t);
/* Is client c cut off by a running partition: -1 no, or its cut_mode. */
int faults_cut_off(const sim *s, uint32_t c);

/* Do the invariants above hold? */
bool faults_sane(const sim *s);

#endif
