/*
 * caller.h -- calls: requests made through a policy stack by something
 * other than the clients -- a tier's workers calling the tier below
 * (tier.h), a pipeline's steps (pipeline.h).  Internal to sim/.
 *
 * A caller is a requester of the request lifecycle (request.h): its calls
 * run exactly as the clients' requests do -- the stack asked before each
 * attempt and after each failure, the host's limits, on_decision, the
 * end -- so the policy rules are shared with the clients, not copied.
 * What a caller has that the clients do not is an owner who hears its
 * calls through requester_ops (the tier answers the attempt it holds, the
 * pipeline moves its job on) and a link per call: the owner's word for
 * the call (the held attempt a tier's call answers, the job a step's call
 * belongs to), kept until the call's record is freed.
 *
 * What a call does not have (yet): arrivals, connection pools, a
 * call_time, hedges (a hedge layer is refused: a call has one attempt in
 * flight at a time), partitions, traces, client modes.
 *
 * A caller owns its stack and its per-client and per-process policy
 * state (caller_add_own), or runs the run's stack in the clients' state
 * (caller_add_shared: a pipeline step without a policy of its own).
 *
 * Random draws.  An attempt's network delay to the server is drawn from
 * (client, net_stream, rng_attempt_counter(request index, attempt, 0)):
 * the owner numbers its calls so that the draws are the same under every
 * policy where it can.  Policy draws (sb_host.uniform) come from
 * policy_stream by a counter per client of the caller.
 */
#ifndef SB_CALLER_H
#define SB_CALLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "request.h"
#include "setting.h"

/* Where a caller's attempts go, and who owns it. */
typedef struct caller_spec {
    const char *name;         /* for messages: "tier 'api'"; borrowed */
    const requester_ops *ops; /* its owner's hooks */
    uint32_t owner;           /* the owner's index, for its hooks */
    uint8_t counts_in;        /* the tier whose metrics count its calls,
                                 attempts, timeouts, errors, breakers */
    unsigned net_stream;      /* RNG_NET + that tier's stream offset */
    const dist *network;      /* its one-way delay; borrowed */
    int64_t timeout_ns;       /* per attempt; 0: the clients' now */
} caller_spec;

/* The calls' links: one word per request record, for calls only.
 *
 * Invariant (call_links_sane): every live call's record index is below
 * cap (links are kept for the records calls have ever used). */
typedef struct call_links {
    uint64_t *link; /* by request index */
    size_t cap;
} call_links;

/* A caller with a stack of its own, built from `policy` (built-in
 * policies only), and n_clients / n_processes of state (n_processes 0:
 * one per client).  Its id in *id. */
int caller_add_own(sim *s, const caller_spec *spec, const char *policy,
                   const char *origin, const setting *settings, int n_settings,
                   uint32_t n_clients, uint32_t n_processes,
                   unsigned policy_stream, uint8_t *id, sb_err *e);
/* A caller that runs the run's stack in the clients' state. */
int caller_add_shared(sim *s, const caller_spec *spec, uint8_t *id, sb_err *e);

/* A new call of caller `id` by its client `client` (process from the
 * caller's spread), zeroed, started now, no deadline, one reference, in
 * *ri; NULL when memory ran out (the run is failed).  `link` is the
 * owner's word for it.  The owner sets index, deadline, op, flags and
 * tier, then calls request_start. */
request *caller_new_call(sim *s, uint8_t id, uint32_t client, uint64_t link,
                         uint32_t *ri);
/* The link call ri was made with. */
uint64_t caller_link(const sim *s, uint32_t ri);

void call_links_fini(call_links *l);
/* Make l a copy of src; -1 out of memory (l is then good for
 * call_links_fini only). */
int call_links_clone(call_links *l, const call_links *src);
bool call_links_sane(const sim *s);

#endif
