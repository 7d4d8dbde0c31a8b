/*
 * engine.h -- the engine's insides, shared by its modules and by nothing
 * else (front ends use sim.h).
 *
 * The run's state has owners.  Each module below owns the state it keeps,
 * declared in its header with its invariants above the struct and a
 * checker (x_sane) that the tests run at every closed bucket (sim_sane,
 * check_engine_sane.c) and debug builds assert where it is cheap; other
 * modules call its functions and never write its fields.  Every piece of
 * a run's state is reachable from struct sim:
 *
 *   field    owner         what
 *   (core)   sim.c         the clock, the event queue and the event at now
 *                          beside it, the failure, the stopped-clock guard
 *                          and the run log (last end, last finish), stats
 *   m, ph    metrics.h,    the run's (the top tier's) counts by bucket,
 *            phases.h      and the buckets reduced by phase
 *   rqs      request.h     the records (requests, attempts) and the
 *                          requesters: their policy state, stacks,
 *                          connection pools -- the request lifecycle
 *   cl       client.h      the clients' arrivals, modes, levels, load
 *   links    caller.h      what each call's owner knows it by
 *   fl       faults.h      the faults and which of them run
 *   obs      observers.h   the front ends' observers
 *   srv      server.h      the top tier's server
 *   tiers    tier.h        a service chain's tiers below the top
 *   pipe     pipeline.h    a pipeline's jobs
 *
 * Cached facts.  Every value kept because recomputing it on the hot path
 * costs, has one place that recomputes it and a rule for when:
 *   stops (failed | has_next)     engine_fail; engine_push_now and the loop
 *   requester: asks_before_send,  requester_set_stack, once per requester
 *     hears_success, hears_end,   (a run's stacks do not change)
 *     hears_decision
 *   clients: gap_mean_ns          clients_set_load, when the spike changes
 *   clients: timeout_ns           clients_set_load, from faults_apply
 *   clients: no_request_extras    clients_start (the config and the stack
 *                                 do not change during a run)
 *   faults: errors, lost, cuts    faults_apply, whenever a fault starts or
 *                                 ends
 *   server: service_is_draw,      note_features (server.c), whenever its
 *     end_without_hooks,          model, slowdown, latency or tier change
 *     back_const
 *   server: gated                 note_gate (server.c), whenever it goes
 *                                 down or up, its rate limit or the
 *                                 running error faults change
 *   metrics: exact                open_live (metrics.c), at each bucket;
 *                                 cleared by metrics_set_busy and
 *                                 metrics_set_capacity when a gauge
 *                                 passes exact_lim
 *
 * What a clone must copy.  A running sim can be copied at a branch point
 * (the risk estimate runs one past it under other random streams) by
 * copying every owner deeply -- there is no pointer between owners but
 * the ones listed here:
 *   - by value: the core's scalars, `next`, the error text, stats, the
 *     guard and log (last_end and last_end_reason point at static text
 *     or a policy's reason string: shared), faults (no heap), phases;
 *   - the event queue: its pending events (evq's blocks and window are
 *     heap memory; every event keeps its time, key and id, gen);
 *   - metrics: the kept rows (heap) and everything by value; each tier
 *     below the top has its own (tier.h);
 *   - requests: both record pools chunk by chunk with their free lists
 *     (indices are ids: every reference to a record is an index, so the
 *     copy's ids are the same); each requester by value, then its heap
 *     blocks (client_state, process_state, draws, pools and their
 *     waiting rings), rebinding requester.s; a requester with its own
 *     stack (owns_stack) needs its own stack built again from the same
 *     specification (policy_setup), as the clients' stack (s->ps, which
 *     the sim borrows) does -- a layer's shared state is made by its
 *     create hook from its parameters, and the plug-in ABI has no hook to
 *     copy it if a layer changes it while running;
 *   - clients: next_request, mode, levels; links: the array;
 *   - the server(s): queue ring, in_service, model state, rebinding
 *     server.s and server.m (to the copy's metrics); tiers: the set,
 *     each tier's metrics and server, rebinding tier.s and tier.m;
 *     the pipeline: its job pool, live and deferred lists, rebinding
 *     pipeline.s;
 *   - observers belong to the front ends: a clone starts with none;
 *   - shared, not copied: the configuration (cfg, and every pointer
 *     into it: server.cfg, requester.network, tier.cfg, the pipeline's
 *     step configs) and the static tables (requester_ops,
 *     server_model_ops).
 * sim_clone (sim.c) does the above, each owner copying its own
 * (evq_clone, pool_clone, metrics_clone, requests_clone, clients_clone,
 * call_links_clone, server_clone, tiers_clone, pipeline_clone); a layer's
 * shared state is copied by pstack_clone (a clone hook, or create()
 * again for a read-only one) or the stack is shared when no layer's
 * changes (pstack_shareable).
 * Random draws are functions of (seed, client, stream, counter): a
 * clone re-keys every stream from the branch point by changing `seed`
 * alone (fault coins use seed ^ the fault's key); the counters (a
 * client's next request, its policy draws, a tier's next call) carry on.
 * root_seed keeps the draws that must not change at a branch point.
 *
 * Every handler runs inside sim_run_until with s->now set to its event's
 * time, and may push events no earlier than now.
 */
#ifndef SB_ENGINE_H
#define SB_ENGINE_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "caller.h"
#include "client.h"
#include "compiler.h"
#include "driver.h"
#include "event_queue.h"
#include "faults.h"
#include "observers.h"
#include "pool.h"
#include "request.h"
#include "rng.h"
#include "sim.h"
#include "simtime.h"

typedef struct server server;

#define NO_DEADLINE DRIVER_NO_DEADLINE

enum event_type {
    EV_ARRIVAL = 1,   /* id: client */
    EV_SEND,          /* id: request, gen: request gen -- a retry is due */
    EV_HEDGE,         /* id: request, gen: request gen -- a hedge is due */
    EV_SERVER_ARRIVE, /* id: attempt, gen: attempt gen */
    EV_SERVICE_DONE,  /* id: attempt */
    EV_RESPONSE,      /* id: attempt -- the answer reaches the requester */
    EV_TIMEOUT,       /* id: attempt -- the requester stops waiting */
    EV_FAULT_ON,      /* id: fault index */
    EV_FAULT_OFF,     /* id: fault index, gen: fault generation */
    EV_END,           /* id: request, gen: request gen -- a request refused
                         locally ends, call_time after the refusal */
    EV_TRIP,          /* id: attempt, gen: attempt gen -- the answer to
                         its first round trip reaches the client */
    EV_JOB            /* id: job, gen: job gen -- a pipeline job's rerun
                         is due (pipeline.h) */
};

/* Invariants of the core (sim_sane, with every owner's):
 *   now never decreases; the queue holds no event before now, and
 *   `next`, while has_next, is an event at now;
 *   stops is nonzero exactly when failed or has_next is set;
 *   failed is set once, with the error text, and never cleared. */
struct sim {
    const sim_config *cfg; /* borrowed, immutable */
    pstack *ps;            /* borrowed: the clients' stack */
    uint64_t seed;         /* every random stream's key: the scenario's
                              seed, until a branch re-keys it
                              (sim_rekey) */
    uint32_t branch_next;  /* the next step of cfg->branch to take */
    uint64_t root_seed;    /* the scenario's seed, whatever the branch:
                              the draws sim.h says stay (partitions,
                              pipeline jobs' fates) */
    evq q;
    int64_t now;
    /* Both flags in one word: the loop tests them with one compare per
     * event (sim_run_until). */
    union {
        struct {
            bool failed;
            bool has_next; /* `next` is the next event (engine_push_now) */
        };
        uint16_t stops;
    };
    evq_event next; /* see has_next */
    char error[ERR_MSG_MAX];
    sim_stats stats;
    /* The guard against a clock that stops (sim.c): events at the
     * current instant, and who caused the latest. */
    uint64_t instant_events;
    uint32_t last_client;
    uint8_t last_event;
    /* The run log: how the latest request ended, in words, and the
     * policy's reason (or NULL); when the last request or job ended. */
    const char *last_end;
    const char *last_end_reason;
    int64_t last_finish;
    metrics m;
    phases ph; /* every closed bucket, reduced by phase */

    request_table rqs;
    clients cl;
    call_links links;
    faults fl;
    observers obs;
    server *srv;
    struct tier_set *tiers; /* NULL without a chain */
    struct pipeline *pipe;  /* NULL without */
};
/* stops covers both flags (sim_run_until tests the two as one word). */
_Static_assert(offsetof(sim, failed) == offsetof(sim, stops) &&
                   offsetof(sim, has_next) + sizeof(bool) <=
                       offsetof(sim, stops) + sizeof(uint16_t),
               "sim.stops must cover failed and has_next");

/* Records travel with their index through the hot paths: a lookup
 * (pool_at) is a load, a multiply and two more loads, paid again by every
 * function that looks its record up anew. */
static inline request *req_at(const sim *s, uint32_t i)
{
    return pool_at(&s->rqs.requests, i);
}

static inline attempt *att_at(const sim *s, uint32_t i)
{
    return pool_at(&s->rqs.attempts, i);
}

/* A non-negative time in ns, rounded to the nearest (half up): the same
 * as llround for the values the engine converts (durations, delays), and
 * an add and a truncation instead of a call into libm.  Saturates at
 * SIMTIME_END (simtime.h): a draw or a product past the end of time means
 * "never".  The engine never computes a NaN or negative time; if it did,
 * it would get 0 (simtime_from_ns). */
static inline int64_t round_ns(double x)
{
    int64_t ns;
    (void)simtime_from_ns(x, &ns);
    return ns;
}

/* ---- sim.c: the core -------------------------------------------------- */

/* The open loop's mean gap between a client's requests, in ns, at the
 * current spike: what the clients keep (gap_mean_ns). */
static inline double engine_gap_mean_ns(const sim *s)
{
    return 1e9 / (s->cfg->clients.rate_per_s * s->cl.spike);
}

/* Stop the run with msg (the first failure wins); returns -1. */
int engine_fail(sim *s, const char *msg);

/* Push an event to the queue.  The common push (an append to a wheel
 * slot with room, nearly every push) is inline and calls nothing
 * (evq_push_quick); the rest, and running out of memory, go through
 * engine_push_slow, out of line.  The whole queue push inline grew the
 * loop past the optimiser's limit, and GCC then took the wrappers out of
 * line again, where the queue's slow paths made them save and restore
 * six registers on every push. */
void engine_push_slow(sim *s, int64_t t, unsigned type, uint32_t id,
                      uint32_t gen);
static inline void engine_push(sim *s, int64_t t, unsigned type, uint32_t id,
                               uint32_t gen)
{
    if (!evq_push_quick(&s->q, t, type, id, gen))
        engine_push_slow(s, t, type, id, gen);
}
/* A fault's event: ordered by fault index before other events of the
 * same instant (see evq_push_reserved). */
void engine_push_fault(sim *s, int64_t t, unsigned type, uint32_t fault,
                       uint32_t gen);
/* Push an event at now (a retry with no delay).  When nothing else is
 * due at now, it is the next event whatever the handler does after this,
 * and it waits beside the queue instead; else it goes to the queue (out
 * of line, sim.c).  Inline: it runs at every immediate retry.
 *
 * An event at now, pushed while no other event is due at now, would be
 * popped next: every event pushed after it has a later seq, and every
 * event already pending is later.  So it waits in s->next, and the loop
 * dispatches it before it pops again -- the same order, the same count
 * of events, without a trip through the queue.  Later seqs come one
 * earlier, which changes no order.  A second such event while one waits
 * goes to the queue: its seq puts it after the waiting one, as it
 * should. */
void engine_push_now_queued(sim *s, unsigned type, uint32_t id, uint32_t gen);
static inline void engine_push_now(sim *s, unsigned type, uint32_t id,
                                   uint32_t gen)
{
    if (s->has_next || evq_due(&s->q, s->now)) {
        engine_push_now_queued(s, type, id, gen);
        return;
    }
    s->next = (evq_event){s->now, type & 0xffu, id, gen};
    s->has_next = true;
}
/* Push an event d after now.  A leg of a network without delay (d == 0:
 * the default network, and a tier's) takes engine_push_now's way beside
 * the queue when nothing else is due at now -- the same order and the
 * same count of events, without a trip through the queue.  Inline: it
 * runs at every network leg. */
static inline void engine_push_after(sim *s, int64_t d, unsigned type,
                                     uint32_t id, uint32_t gen)
{
    if (d == 0)
        engine_push_now(s, type, id, gen);
    else
        engine_push(s, simtime_add(s->now, d), type, id, gen);
}
/* Draws from a distribution, and a uniform.  A constant takes no draw,
 * inline (every network leg of most scenarios); the rest draw out of
 * line. */
int64_t engine_sample_drawn(const sim *s, const dist *d, uint32_t client,
                            unsigned stream, uint64_t counter);
static inline int64_t engine_sample(const sim *s, const dist *d,
                                    uint32_t client, unsigned stream,
                                    uint64_t counter)
{
    if (d->kind == DIST_CONST)
        return d->mean_ns;
    return engine_sample_drawn(s, d, client, stream, counter);
}
double engine_unit_draw(const sim *s, uint32_t client, unsigned stream,
                        uint64_t counter);
/* The same from the scenario's seed, whatever the branch (sim.h,
 * sim_rekey). */
double engine_root_unit_draw(const sim *s, uint32_t client, unsigned stream,
                             uint64_t counter);
/* Cut the run into phases by the fault schedule as it is now (at
 * creation, and when a fault is injected or ended by hand). */
void engine_plan_phases(sim *s, bool first);
/* Answer attempt ai with (kind, status, retry_after; -1 none): the answer
 * reaches its requester after `delay`. */
void engine_answer(sim *s, uint32_t ai, sb_error_kind kind, int32_t status,
                   int64_t retry_after, int64_t delay);

/* The run log: how the latest request ended (words: static text), and
 * why (the policy's reason, or NULL); the latest end of a request or
 * job. */
static inline void engine_log_end(sim *s, const char *words, const char *reason)
{
    s->last_end = words;
    s->last_end_reason = reason;
}
static inline void engine_log_finish(sim *s)
{
    s->last_finish = s->now;
}

/* Do the core's invariants, and every owner's, hold?  O(records and
 * events): for tests, and for debug builds at every closed bucket. */
bool sim_sane(const sim *s);

/* ---- Records: their release (the lifecycle and the servers) ------------ */

/* Request ri's record is about to be freed (request.c): its requester's
 * owner may let go of what the request's late attempts could still
 * touch. */
void request_released(sim *s, uint32_t ri, const request *r);

/* Drop a reference to request ri (r is its record); free it at the
 * last.  A call's (r->caller > 0) is announced to its owner first. */
static inline void engine_request_release(sim *s, uint32_t ri, request *r)
{
    assert(r->refs > 0);
    if (--r->refs == 0) {
        if (r->caller)
            request_released(s, ri, r);
        pool_free(&s->rqs.requests, ri);
    }
}

/* Free attempt ai (t is its record, r its request's) once neither the
 * requester nor the server holds it.  For a handler that has r at hand:
 * looking it up again costs a lookup at every answer and timeout. */
static inline void engine_attempt_release_of(sim *s, uint32_t ai, attempt *t,
                                             request *r)
{
    if (t->waiting || t->stage != ST_GONE)
        return;
    uint32_t ri = t->req;
    t->gen++;
    pool_free(&s->rqs.attempts, ai);
    engine_request_release(s, ri, r);
}

/* The same, looking the request up only when t is freed (the test is
 * repeated so that a held attempt costs no lookup). */
static inline void engine_attempt_release(sim *s, uint32_t ai, attempt *t)
{
    if (t->waiting || t->stage != ST_GONE)
        return;
    engine_attempt_release_of(s, ai, t, req_at(s, t->req));
}

/* Does the requester still wait for attempt t of request r? */
static inline bool attempt_awaited(const attempt *t, const request *r)
{
    return t->waiting && !(r->flags & RQ_FINISHED);
}

#endif
