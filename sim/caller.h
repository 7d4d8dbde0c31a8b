/*
 * caller.h -- calls: logical requests made through a policy stack by
 * something other than the clients -- a tier's workers calling the tier
 * below (tier.h), a pipeline's steps (pipeline.h).  Internal to sim/.
 *
 * A call is a request record (request.caller names its caller) driven
 * through the request driver (driver.h) exactly as a client's request is:
 * the stack is asked before each attempt and after each failure (retry
 * after d, give up, quarantine), with the caller's per-attempt timeout
 * capped by the call's deadline, and it is told of the end.  So the
 * policy rules -- what a policy is shown, the host's limits,
 * on_decision -- are shared with client.c, not copied.
 *
 * Why not client.c's clients: those carry what calls do not have
 * (arrivals, connection pools, call_time, hedges, traces, the GUI's client
 * modes), are tuned for the large runs, and are keyed by [clients].  A
 * call has one attempt in flight at a time: a hedge layer is refused.
 *
 * A caller owns its stack and its per-client and per-process policy state
 * (caller_init_own), or borrows the run's stack and the clients' state
 * (caller_init_shared: a pipeline step that runs the run's own policy in
 * its runner's state).  Its owner says where the attempts go (each call
 * names its tier, request.tier, whose server the engine sends them to;
 * the caller holds the metrics that count the calls and attempts, and
 * the network's delay and random stream), and hears the calls' ends
 * through caller_ops.
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

#include "engine.h"
#include "policy_setup.h"

typedef struct caller caller;

/* What a caller's owner hears.  Every hook may be NULL except `ended`. */
typedef struct caller_ops {
    /* Call ri (r) ended with outcome o.  The caller has counted it and
     * told the stack; the owner's last chance to read r: the record is
     * released after this returns. */
    void (*ended)(caller *c, uint32_t ri, request *r, sb_outcome o);
    /* A retry of call ri is due: may it still be sent?  false ends the
     * call as given up (the one who wanted it is gone). */
    bool (*wanted)(const caller *c, uint32_t ri);
    /* Attempt t of call r was sent (t->number 1 is the first try). */
    void (*sent)(caller *c, const request *r, const attempt *t);
    /* Attempt t of call r ended while the call waited for it: answered
     * or timed out. */
    void (*attempt_ended)(caller *c, const request *r, const attempt *t);
    /* The stack decided to retry call ri (r) after delay_ns. */
    void (*retry_in)(caller *c, uint32_t ri, const request *r,
                     int64_t delay_ns);
    /* Call ri's record is freed now: the call ended and the last of its
     * attempts has left the server and the network, so no event of it
     * is left (a late attempt of an ended call is still served, and its
     * owner may need to know whose it is until then). */
    void (*released)(caller *c, uint32_t ri);
} caller_ops;

struct caller {
    sim *s;
    uint8_t id;        /* request.caller of its calls */
    const char *name;  /* for messages: "tier 'api'", "step 'load'" */
    /* Where the attempts go: the server of the tier its calls name
     * (request.tier; the engine sends them there), with: */
    metrics *m;        /* counts the calls (offered, outcomes), attempts,
                          timeouts, errors and breakers */
    unsigned net_stream; /* RNG_NET + that server's stream offset */
    const dist *network; /* its one-way delay */
    int64_t timeout_ns;  /* per attempt; 0: the clients' timeout now */
    const caller_ops *ops;
    void *owner;
    /* The stack and its state. */
    pstack *stack;
    bool owns;           /* ps, the states and draws are its own */
    policy_setup ps;
    size_t request_state_size;
    uint32_t n_clients, n_processes;
    char *client_state, *process_state;
    size_t client_stride, process_stride;
    uint32_t *draws;     /* per client: sb_host.uniform's counter */
    unsigned policy_stream;
    bool asks_before_send, hears_success, hears_end;
    sb_host host;
};

/* A caller with a stack of its own, built from spec (built-in policies
 * only), and n_clients / n_processes of state.  *request_size is raised
 * to fit the stack's per-request state.  Registers it with s (its id). */
int caller_init_own(caller *c, sim *s, const char *name, const char *spec,
                    const char *origin, const setting *settings,
                    int n_settings, uint32_t n_clients, uint32_t n_processes,
                    unsigned policy_stream, size_t *request_size, sb_err *e);
/* A caller that runs the run's stack in the clients' state. */
int caller_init_shared(caller *c, sim *s, const char *name, sb_err *e);
void caller_fini(caller *c);

/* A new call of client `client` (process from the caller's spread),
 * zeroed, started now, no deadline, one reference; NULL when memory ran
 * out (the run is failed).  `link` is the owner's word for it (the held
 * attempt a tier's call answers, the job a step's call belongs to), kept
 * until its record is freed: caller_link.  The owner sets index,
 * deadline, op and flags, then calls caller_start. */
request *caller_new_call(caller *c, uint32_t client, uint64_t link,
                         uint32_t *ri);
/* The link call ri was made with. */
static inline uint64_t caller_link(const sim *s, uint32_t ri)
{
    return s->call_links[ri];
}
/* Count the call as offered and send its first attempt (or end it at
 * once when its deadline has passed: a deadline failure, nothing sent). */
void caller_start(caller *c, uint32_t ri, request *r);

/* Whoever wanted call ri has gone (a crashed runner): it ends now, given
 * up; its attempts still out are answered to nobody (wasted work). */
void caller_abandon(caller *c, uint32_t ri);

/* Events of calls (requests with caller > 0): a retry is due, an answer,
 * a timeout. */
void caller_on_send(sim *s, uint32_t ri, uint32_t gen);
void caller_on_response(sim *s, uint32_t ai, uint32_t gen);
void caller_on_timeout(sim *s, uint32_t ai, uint32_t gen);

/* The caller of call r. */
caller *caller_of(const sim *s, const request *r);

#endif
