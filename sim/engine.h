/*
 * engine.h -- the engine's insides, shared by its modules and by nothing
 * else (front ends use sim.h).
 *
 *   sim.c         life cycle, the event loop, records, random draws
 *   client.c      clients: arrivals, attempts, answers, timeouts, the policy
 *   server.c      a server (server.h): admission, queue, service, commits,
 *                 answers; server_hot.c its hot-record model
 *   faults.c      faults: the running set and what it does to the rest
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

#include "compiler.h"
#include "driver.h"
#include "event_queue.h"
#include "pool.h"
#include "rng.h"
#include "sim.h"
#include "simtime.h"

typedef struct server server;

#define NO_DEADLINE DRIVER_NO_DEADLINE
#define MAX_OBSERVERS 8
#define MAX_ALL_FAULTS (SIM_MAX_FAULTS * 2)
/* Callers (caller.h) a sim can hold: request.caller is 1 .. this. */
#define SIM_MAX_CALLERS 32

enum event_type {
    EV_ARRIVAL = 1,   /* id: client */
    EV_SEND,          /* id: request, gen: request gen -- a retry is due */
    EV_HEDGE,         /* id: request, gen: request gen -- a hedge is due */
    EV_SERVER_ARRIVE, /* id: attempt, gen: attempt gen */
    EV_SERVICE_DONE,  /* id: attempt */
    EV_RESPONSE,      /* id: attempt -- the answer reaches the client */
    EV_TIMEOUT,       /* id: attempt -- the client stops waiting */
    EV_FAULT_ON,      /* id: fault index */
    EV_FAULT_OFF,     /* id: fault index, gen: fault generation */
    EV_END,           /* id: request, gen: request gen -- a request refused
                         locally ends, call_time after the refusal */
    EV_TRIP,          /* id: attempt, gen: attempt gen -- the answer to
                         its first round trip reaches the client */
    EV_JOB            /* id: job, gen: job gen -- a pipeline job's rerun
                         is due (pipeline.h) */
};

/* ---- Records -------------------------------------------------------------
 *
 * A request is one logical operation of a client; it lives from its
 * arrival until it has finished AND no attempt of it is still alive (an
 * attempt that timed out may still be queued at the server, and when it is
 * served its commit is counted against this request: that is how duplicate
 * writes are found).  `refs` counts live attempts plus one while the
 * request is unfinished.  The policy's per-request state follows the
 * struct in the same pool record.
 */
enum {
    RQ_KEYED = 1,
    RQ_CRITICAL = 2,
    RQ_TRACED = 4,
    RQ_FINISHED = 8,
    RQ_HEDGE_PENDING = 16 /* an EV_HEDGE of the current gen is scheduled */
};

typedef struct request {
    int64_t start;
    int64_t deadline; /* absolute; NO_DEADLINE */
    const char *end_reason; /* why it was refused, while it ends (EV_END) */
    uint32_t client;
    uint32_t process;
    uint32_t index; /* the client's request number: its random streams */
    uint32_t gen;   /* bumped when it finishes or schedules a retry */
    uint32_t attempts;
    uint32_t outstanding; /* attempts the client still waits for */
    uint32_t refs;
    uint32_t commits;
    uint8_t op;
    uint8_t flags;
    uint8_t defect;
    uint8_t end_outcome; /* the sb_outcome it ends with at EV_END */
    uint8_t end_refusal; /* ... and why its send was refused */
    uint8_t tier;        /* the tier its attempts go to (tier.h): 0, the
                            top.  An attempt's tier is its request's:
                            kept here, the attempt record stays 80 bytes */
    uint8_t caller;      /* who makes it: 0, a client (client.c); else
                            the caller (caller.h) s->callers[caller] */
} request;

#define REQUEST_HEAD ((sizeof(request) + 15u) & ~(size_t)15u)

/* An attempt lives while the client waits for it or the server (or the
 * network) still holds it: both sides must let go before it is freed. */
enum stage {
    ST_TO_SERVER = 0, /* on the wire to the server */
    ST_QUEUED,
    ST_IN_SERVICE,
    ST_TO_CLIENT, /* the answer is on the wire back */
    ST_GONE,      /* the server side is over */
    ST_POOL,      /* still at the client, waiting for a connection of its
                     process's pool */
    ST_CALLING    /* served by a tier that now calls its downstream,
                     holding the worker (tier.h) */
};

/* Who answered an attempt with an error, so that the client counts the
 * attempt's end once, in the right class, when the answer reaches it
 * while it still waits (client.c).  Counting at the server instead counted
 * attempts nobody waited for any more, and attempts that later timed out
 * at the client, twice. */
enum answer_by {
    ANSWER_SERVED = 0, /* the server's own answer after service, or the
                          client's network (a partition refusing) */
    ANSWER_REJECTED,   /* the server turned it away: 503 queue full, 429
                          rate limited, refused or reset in an outage */
    ANSWER_INJECTED    /* an errors fault answered it */
};

typedef struct attempt {
    int64_t sent;
    int64_t expires; /* when the client stops waiting: the propagated
                        deadline a drop_expired server honours */
    int64_t service; /* drawn when service starts */
    int64_t enqueued;
    int64_t retry_after;   /* of the answer; -1 none */
    uint64_t read_version; /* hot record: the version it read */
    uint32_t req;
    uint32_t gen;
    uint32_t number;
    uint32_t slot; /* index in its server's in_service while in service */
    int32_t status;
    int32_t pushback_ms; /* of the answer, when pushback is _DELAY */
    uint8_t pushback;    /* FAULT_PUSHBACK_NONE, _DELAY or _STOP */
    uint8_t waiting;
    uint8_t stage;
    uint8_t result; /* sb_error_kind of the answer */
    uint8_t defect;
    uint8_t hedge;
    uint8_t trip; /* its round trip to the server: 0 the first, 1 the
                     second of a two-round-trip update (server.h) */
    uint8_t answer_by; /* enum answer_by of its answer */
} attempt;

struct sim {
    const sim_config *cfg;
    pstack *ps;
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
    char error[ERR_MSG_MAX];
    metrics m;
    phases ph; /* every closed bucket, reduced by phase */
    sim_stats stats;

    /* Clients, struct-of-arrays: the request counter doubles as the
     * arrival stream's counter; the policy counter feeds sb_uniform;
     * mode is what each client is doing now, for front ends. */
    uint32_t n_clients;
    uint32_t *next_request;
    uint32_t *policy_draws;
    uint8_t *mode; /* sim_client_mode */
    char *client_state;
    size_t client_stride;
    uint64_t seed;

    /* Processes: client c belongs to process c x n_processes / n_clients
     * (contiguous blocks).  Policy state per process, the connection
     * pools (NULL when unlimited) and the policy's reported levels
     * (allocated at the first report). */
    uint32_t n_processes;
    char *process_state;
    size_t process_stride;
    struct conn_pool *pools;
    double *levels;
    double level_sum;
    uint32_t level_count;

    pool requests, attempts;
    size_t request_state_size;

    /* The server (server.h): the top tier's.  A service chain's tiers
     * below it, and their calls, are in `tiers` (tier.h; NULL without a
     * chain). */
    server *srv;
    struct tier_set *tiers;
    struct pipeline *pipe; /* jobs of steps (pipeline.h); NULL without */
    struct caller *callers[SIM_MAX_CALLERS + 1]; /* by id, 1 .. n */
    uint8_t n_callers;
    uint64_t *call_links; /* by request index: each call's owner's word
                             (caller_link); NULL without callers */
    size_t call_links_cap;

    /* Faults: configured ones first, then injected ones. */
    fault_cfg faults[MAX_ALL_FAULTS];
    bool active[MAX_ALL_FAULTS];
    uint32_t fault_gen[MAX_ALL_FAULTS];
    uint64_t fault_key[MAX_ALL_FAULTS]; /* rng_named(name): its draws */
    uint32_t n_faults;
    double spike; /* arrival multiplier */
    /* The open loop's mean gap (engine_gap_mean_ns): set where spike is
     * (sim_create, set_spike), not at every arrival (2.3 M instructions
     * at 10 000 clients). */
    double gap_mean_ns;
    uint8_t errors[MAX_ALL_FAULTS], n_errors;
    uint8_t lost[MAX_ALL_FAULTS], n_lost;
    uint8_t cuts[MAX_ALL_FAULTS], n_cuts;

    int64_t timeout_ns;     /* the clients' attempt timeout now (faults) */
    uint64_t offered_total; /* for 1-in-N trace sampling */
    int64_t last_finish;    /* when the last request ended */
    /* The guard against a clock that stops (sim.c): events at the
     * current instant, and who caused the latest. */
    uint64_t instant_events;
    uint32_t last_client;
    uint8_t last_event;
    const char *last_end; /* how the latest request ended, in words */
    const char *last_end_reason; /* ... and the policy's reason, or NULL */
    sim_observer obs[MAX_OBSERVERS];
    int n_obs;
    bool trace_on;
    evq_event next; /* see has_next */
    bool asks_before_send; /* a layer has a before_send hook */
    bool hears_success;    /* ... on_success or on_request_end */
    bool hears_end;        /* ... on_request_end */
    bool no_request_extras; /* a request starts with nothing but its op
                              drawn (client.c start_request) */
    sb_host host;
};
/* stops covers both flags (sim_run_until tests the two as one word). */
_Static_assert(offsetof(sim, failed) == offsetof(sim, stops) &&
                   offsetof(sim, has_next) + sizeof(bool) <=
                       offsetof(sim, stops) + sizeof(uint16_t),
               "sim.stops must cover failed and has_next");

static inline request *req_at(const sim *s, uint32_t i)
{
    return pool_at(&s->requests, i);
}

static inline attempt *att_at(const sim *s, uint32_t i)
{
    return pool_at(&s->attempts, i);
}

static inline void *req_state(const sim *s, request *r)
{
    return s->request_state_size ? (char *)r + REQUEST_HEAD : NULL;
}

static inline void *client_state(const sim *s, uint32_t c)
{
    return s->client_stride ? s->client_state + (size_t)c * s->client_stride
                            : NULL;
}

static inline uint32_t process_of(const sim *s, uint32_t c)
{
    return (uint32_t)((uint64_t)c * s->n_processes / s->n_clients);
}

static inline void *process_state(const sim *s, uint32_t p)
{
    return s->process_stride
               ? s->process_state + (size_t)p * s->process_stride
               : NULL;
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

/* ---- sim.c -------------------------------------------------------------- */

/* The open loop's mean gap between a client's requests, in ns, at the
 * current spike: what s->gap_mean_ns keeps. */
static inline double engine_gap_mean_ns(const sim *s)
{
    return 1e9 / (s->cfg->clients.rate_per_s * s->spike);
}

/* Stop the run with msg (the first failure wins); returns -1. */
int engine_fail(sim *s, const char *msg);
/* Push an event to the queue.  The common push (an append to a wheel
 * slot with room, 98 % of them in the storm) is inline and calls
 * nothing (evq_push_quick); the rest, and running out of memory, go
 * through engine_push_slow.  The whole queue push inline grew the loop
 * past the optimiser's limit, and GCC took the wrappers out of line
 * again, where the queue's slow paths made them save and restore six
 * registers on every push: 1 805 M -> 1 698 M instructions in the storm
 * at 10 000 clients (bench_engine --only model). */
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
 * of line, sim.c).  Inline: as a call it cost 2.8 M instructions in the
 * storm at 10 000 clients.
 *
 * An event at now, pushed while no other event is due at now, would be
 * popped next: every event pushed after it has a later seq, and every
 * event already pending is later.  So it waits in s->next, and the loop
 * dispatches it before it pops again -- the same order, the same count
 * of events, without a trip through the queue (an immediate retry's push
 * and pop cost about a hundred instructions).  Later seqs come one
 * earlier, which changes no order.  A second such event while one waits
 * goes to the queue: its seq puts it after the waiting one, as it
 * should. */
void engine_push_now_queued(sim *s, unsigned type, uint32_t id,
                            uint32_t gen);
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
/* Draws from a distribution, a uniform, a one-way network delay.  A
 * constant takes no draw, inline (every network leg of most scenarios);
 * the rest draw out of line. */
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
int64_t engine_net_delay(const sim *s, const request *r, const attempt *a,
                         unsigned slot);
/* Cut the run into phases by the fault schedule as it is now (at
 * creation, and when a fault is injected or ended by hand). */
void engine_plan_phases(sim *s, bool first);
/* Answer attempt ai with (kind, status, retry_after; -1 none): the answer
 * reaches the client after `delay`. */
void engine_answer(sim *s, uint32_t ai, sb_error_kind kind, int32_t status,
                   int64_t retry_after, int64_t delay);
/* Records travel with their index through the hot paths: a lookup
 * (pool_at) is a load, a multiply and two more loads, and the engine
 * made about 34 of them per request when each function looked its
 * records up again. */

/* Call ri's record is about to be freed (caller.c): its caller's owner
 * may let go of what the call's late attempts could still touch. */
void caller_released(sim *s, uint32_t ri, const request *r);

/* Drop a reference to request ri (r is its record); free it at the
 * last.  A call's (r->caller > 0) is announced to its caller first. */
static inline void engine_request_release(sim *s, uint32_t ri, request *r)
{
    assert(r->refs > 0);
    if (--r->refs == 0) {
        if (r->caller)
            caller_released(s, ri, r);
        pool_free(&s->requests, ri);
    }
}

/* A new attempt of request ri (its number, sent now, no Retry-After), in
 * *ai; NULL when the pool is out of memory (the run is failed).  The
 * client's and a tier's launch both start here. */
static inline attempt *engine_attempt_new(sim *s, uint32_t ri, request *r,
                                          uint32_t *ai)
{
    attempt *t =
        pool_take(&s->attempts, ai, sizeof *t, offsetof(attempt, gen));
    if (t == NULL) {
        engine_fail(s, "out of memory for attempts");
        return NULL;
    }
    t->req = ri;
    t->number = ++r->attempts;
    t->sent = s->now;
    t->retry_after = -1;
    return t;
}

/* Free attempt ai (t is its record, r its request's) once neither the
 * client nor the server holds it.  For a handler that has r at hand:
 * looking it up again cost the client's answers and timeouts 10 M
 * instructions in the storm at 10 000 clients. */
static inline void engine_attempt_release_of(sim *s, uint32_t ai, attempt *t,
                                             request *r)
{
    if (t->waiting || t->stage != ST_GONE)
        return;
    uint32_t ri = t->req;
    t->gen++;
    pool_free(&s->attempts, ai);
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

/* How attempt t ended, from its answer (or its timeout), as the request
 * driver takes it: a client's attempt (client.c) and a call's (caller.c)
 * alike. */
static inline driver_result engine_result_of(const attempt *t,
                                             sb_error_kind kind)
{
    driver_result res;
    res.number = t->number;
    res.hedge = t->hedge;
    res.sent = t->stage != ST_POOL && kind != SB_ERR_REFUSED;
    res.error = kind;
    res.status = kind == SB_ERR_TIMEOUT ? 0 : t->status;
    res.defect = kind == SB_ERR_TIMEOUT ? SB_DEFECT_NONE : t->defect;
    res.sent_ns = t->sent;
    res.retry_after_ns = kind == SB_ERR_TIMEOUT ? -1 : t->retry_after;
    res.pushback_s =
        kind == SB_ERR_TIMEOUT || t->pushback == FAULT_PUSHBACK_NONE
            ? SB_PUSHBACK_NONE
        : t->pushback == FAULT_PUSHBACK_STOP ? SB_PUSHBACK_STOP
                                             : t->pushback_ms / 1e3;
    return res;
}

/* Count, in bucket b, how a request ended (successes, or failures by
 * cause; a refusal by why the send was refused): a client's request
 * (client.c) and a call (caller.c) alike. */
static inline void engine_count_outcome(metrics_bucket *b, sb_outcome o,
                                        sb_refusal why)
{
    if (o == SB_OUTCOME_SUCCESS) {
        b->successes++;
        return;
    }
    b->failures++;
    if (o == SB_OUTCOME_GAVE_UP) {
        b->gave_up++;
    } else if (o == SB_OUTCOME_DEADLINE) {
        b->deadline++;
    } else if (o == SB_OUTCOME_REFUSED) {
        b->refused++;
        if (why == SB_REFUSAL_BUDGET)
            b->refused_budget++;
        else if (why == SB_REFUSAL_BREAKER)
            b->refused_breaker++;
        else
            b->refused_other++;
    } else if (o == SB_OUTCOME_QUARANTINED) {
        b->quarantined++;
    }
}

/* Count, in bucket b, an error answer that found its caller waiting, by
 * who answered it (enum answer_by): the one place its class is counted
 * (a timeout is counted where it fires). */
static inline void engine_count_error(metrics_bucket *b, const attempt *t)
{
    if (t->answer_by == ANSWER_REJECTED)
        b->rejections++;
    else if (t->answer_by == ANSWER_INJECTED)
        b->errors++;
    else
        b->other_errors++;
}

/* Does the client still wait for attempt t of request r? */
static inline bool attempt_awaited(const attempt *t, const request *r)
{
    return t->waiting && !(r->flags & RQ_FINISHED);
}

/* ---- client.c ------------------------------------------------------------ */

/* Set up the host interface, every client's policy state and its first
 * arrival. */
int client_start_all(sim *s, sb_err *e);
void client_schedule_arrival(sim *s, uint32_t c);
void client_on_arrival(sim *s, uint32_t c);
void client_on_send(sim *s, uint32_t ri, uint32_t gen);
void client_on_hedge(sim *s, uint32_t ri, uint32_t gen);
void client_on_response(sim *s, uint32_t ai, uint32_t gen);
void client_on_timeout(sim *s, uint32_t ai, uint32_t gen);
void client_on_end(sim *s, uint32_t ri, uint32_t gen);
/* Free what client_start_all allocated. */
void client_free_all(sim *s);
/* The client of an event's subject, for the stopped-clock message. */
uint32_t client_of_event(const sim *s, unsigned type, uint32_t id);
/* Is the client still waiting for this attempt's answer? */
bool client_waits(const sim *s, const attempt *t);

/* ---- server.c: see server.h ------------------------------------------- */

/* ---- faults.c ------------------------------------------------------------ */

/* Recompute the server's effective state from the running faults. */
void faults_apply(sim *s);
/* The errors fault that answers attempt t, if any: the coin is (seed,
 * client, fault, request, attempt), so the same attempts fail under every
 * policy. */
const fault_cfg *faults_error(const sim *s, const request *r, const attempt *t);
/* Does a lost_ack fault lose t's answer? */
bool faults_ack_lost(const sim *s, const request *r, const attempt *t);
/* Is client c cut off by a running partition: -1 no, or its cut_mode. */
int faults_cut_off(const sim *s, uint32_t c);
/* A fault's start or end event. */
void faults_on(sim *s, uint32_t i, bool on, uint32_t gen);

#endif
