/*
 * request.h -- the request lifecycle: a logical request from its start to
 * its end, and its attempts, for everyone in the run who makes requests.
 * Internal to sim/.
 *
 * Who makes requests is a *requester*: the top-level clients (requester
 * 0, client.c), a tier's workers calling the tier below (tier.h) and a
 * pipeline's steps (pipeline.h) -- the last two through caller.h.  Every
 * request of every requester goes through the one lifecycle below, driven
 * through its requester's policy stack by the request driver (driver.h):
 *
 *   start     counted as offered; its first attempt is sent (or it ends at
 *             once, a deadline failure, when its deadline has passed)
 *   send      the stack is asked (before_send); a refused first attempt
 *             or retry ends the request, call_time later; an allowed one
 *             is launched: its timeout runs from now (the per-attempt
 *             timeout, cut short by the deadline), it waits for a
 *             connection of its process's pool if there is one, and goes
 *             to the server of its request's tier (request.tier) over
 *             its requester's network
 *   answer    an answer reaches the requester (not sooner than call_time
 *             after the send): a success ends the request, an error is a
 *             failure
 *   timeout   the requester stops waiting: a failure
 *   failure   the stack decides (retry after d, give up, quarantine), the
 *             host's limits apply (driver.h); a retry is an EV_SEND, a
 *             pending hedge goes at once
 *   end       counted (outcome, latency), the stack told
 *             (on_request_end), traced; the record is freed when no
 *             attempt of it is left at the server or on the network
 *
 * What differs between requesters is data in their record (struct
 * requester: its stack and policy state, its metrics, its timeout, its
 * network, call_time, connection pools, whether partitions cut it off
 * and whether it shows client modes) and a table of hooks
 * (requester_ops), the way server_model_ops lets server models differ:
 * the owner of a caller hears of sends, attempts that ended, retries and
 * ends, and may veto a retry.  The top-level clients' table has the same
 * hooks; the lifecycle runs their requests as an instance of its own in
 * which that table is a constant, so their hooks are called directly and
 * what they do not have costs no test.
 *
 * Requesters live by value in the lifecycle's table (struct request_table,
 * below), indexed by id: request.caller.  The records -- requests and
 * attempts -- are in two pools; a request's policy state follows its
 * record (REQUEST_HEAD), sized for the largest requester's.
 *
 * Every handler runs inside sim_run_until at the sim's current time.
 */
#ifndef SB_REQUEST_H
#define SB_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config.h"
#include "driver.h"
#include "metrics.h"
#include "policy_setup.h"
#include "pool.h"
#include "pstack.h"

typedef struct sim sim;

/* Requesters a sim can hold besides its clients (tiers and pipeline
 * steps): request.caller is 0 .. this. */
#define SIM_MAX_CALLERS 32

/* ---- Records -------------------------------------------------------------
 *
 * A request is one logical operation of a requester; it lives from its
 * start until it has finished AND no attempt of it is still alive (an
 * attempt that timed out may still be queued at the server, and when it
 * is served its commit is counted against this request: that is how
 * duplicate writes are found).  `refs` counts live attempts plus one
 * while the request is unfinished.  The policy's per-request state
 * follows the struct in the same pool record (REQUEST_HEAD).
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
    int64_t deadline;       /* absolute; NO_DEADLINE */
    const char *end_reason; /* why it was refused, while it ends (EV_END);
                               static text, or the policy's */
    uint32_t client;        /* of its requester */
    uint32_t process;
    uint32_t index; /* its random streams' counter: the client's request
                       number, or what a caller's owner gives */
    uint32_t gen;   /* bumped when it finishes or schedules a retry */
    uint32_t attempts;
    uint32_t outstanding; /* attempts the requester still waits for */
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
    uint8_t caller;      /* its requester: 0 the clients, else a caller */
} request;

#define REQUEST_HEAD ((sizeof(request) + 15u) & ~(size_t)15u)

/* An attempt lives while its requester waits for it or the server (or
 * the network) still holds it: both sides must let go before it is
 * freed. */
enum stage {
    ST_TO_SERVER = 0, /* on the wire to the server */
    ST_QUEUED,
    ST_IN_SERVICE,
    ST_TO_CLIENT, /* the answer is on the wire back */
    ST_GONE,      /* the server side is over */
    ST_POOL,      /* still at the requester, waiting for a connection of
                     its process's pool */
    ST_CALLING    /* served by a tier that now calls its downstream,
                     holding the worker (tier.h) */
};

/* Who answered an attempt with an error, so that the requester counts
 * the attempt's end once, in the right class, when the answer reaches it
 * while it still waits.  Counting at the server instead counted attempts
 * nobody waited for any more, and attempts that later timed out, twice. */
enum answer_by {
    ANSWER_SERVED = 0, /* the server's own answer after service, or the
                          client's network (a partition refusing) */
    ANSWER_REJECTED,   /* the server turned it away: 503 queue full, 429
                          rate limited, refused or reset in an outage */
    ANSWER_INJECTED    /* an errors fault answered it */
};

typedef struct attempt {
    int64_t sent;
    int64_t expires; /* when the requester stops waiting: the propagated
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
    uint8_t trip;      /* its round trip to the server: 0 the first, 1 the
                     second of a two-round-trip update (server.h) */
    uint8_t answer_by; /* enum answer_by of its answer */
} attempt;

/* ---- Requesters ------------------------------------------------------- */

typedef struct requester requester;

/* What a requester's owner hears, and may say.  Every hook may be NULL:
 * nothing to hear.  Hooks must not start or end requests of their own
 * requester, except `ended` (a pipeline starts its job's next step). */
typedef struct requester_ops {
    /* Request ri (r) ended with outcome o (reason: the policy's or the
     * host's, NULL for none): counted, the stack told.  The owner's last
     * chance to read r: the record is released after this returns. */
    void (*ended)(requester *rq, uint32_t ri, request *r, sb_outcome o,
                  const char *reason);
    /* A retry of ri is due: may it still be sent?  false ends it as
     * given up (the one who wanted it is gone). */
    bool (*wanted)(const requester *rq, uint32_t ri);
    /* Attempt t of r was launched (t->number 1 is the first try). */
    void (*sent)(requester *rq, const request *r, const attempt *t);
    /* Attempt t of r ended while r waited for it: answered or timed
     * out. */
    void (*attempt_ended)(requester *rq, const request *r, const attempt *t);
    /* The stack decided to retry ri (r) after delay_ns. */
    void (*retry_in)(requester *rq, uint32_t ri, const request *r,
                     int64_t delay_ns);
    /* Request ri's record is freed now: it ended and the last of its
     * attempts has left the server and the network, so no event of it is
     * left (a late attempt of an ended request is still served, and its
     * owner may need to know whose it is until then). */
    void (*released)(requester *rq, uint32_t ri);
} requester_ops;

/* A process's connection pool: connections in use, and the attempts
 * waiting for one, oldest first (a ring of attempt ids). */
typedef struct conn_pool {
    uint32_t busy;
    uint32_t head, len, cap;
    uint32_t *waiting;
} conn_pool;

/* Invariants (requester_sane):
 *   its id is its index in the table, and 0 only for the clients;
 *   the policy state it owns has room for n_clients and n_processes
 *   (a requester that shares the clients' state owns none);
 *   1 <= n_processes <= n_clients;
 *   the cached hook flags are pstack_hooks(stack)'s, set once by
 *   requester_set_stack (a run's stacks do not change);
 *   a pool's busy is at most `connections`, and only attempts in stage
 *   ST_POOL (or ones it drops when their turn comes) wait in it. */
struct requester {
    sim *s;                    /* back to the run: rebound by a clone */
    const requester_ops *ops;  /* static: every hook may be NULL */
    const char *name;          /* for messages: "tier 'api'", "step 'load'" */
    uint8_t id;                /* request.caller of its requests */
    uint8_t counts_in;         /* the tier whose metrics count its
                                 requests and attempts (0: the run's) */
    bool shares_clients_state; /* runs the clients' stack in their state
                                  and with their host (requester 0) */
    bool partitioned;          /* partitions cut it off (the clients) */
    bool shows_modes;          /* keeps sim_client_modes (the clients) */
    uint32_t owner;            /* the owner's index: a tier, a step */
    /* Where and how its attempts go. */
    unsigned net_stream;  /* RNG_NET + its server's stream offset */
    const dist *network;  /* borrowed from the config */
    int64_t timeout_ns;   /* per attempt; 0: the clients' timeout now */
    int64_t call_time_ns; /* its own time per call: no answer or
                                 refusal is known sooner (client.h) */
    uint32_t connections; /* per process; SIM_UNLIMITED: no pools */
    conn_pool *pools;     /* per process; NULL without */
    /* Its stack and policy state. */
    pstack *stack; /* borrowed (the run's) or ps.stack */
    bool owns_stack;
    policy_setup ps; /* when it owns its stack */
    size_t request_state_size;
    uint32_t n_clients, n_processes;
    char *client_state, *process_state; /* owned; NULL when shared */
    size_t client_stride, process_stride;
    uint32_t *draws;        /* per client: sb_host.uniform's counter */
    unsigned policy_stream; /* RNG_POLICY + its stream offset */
    bool asks_before_send, hears_success, hears_end, hears_decision;
    sb_host host;
};

/* The lifecycle's state: its records and its requesters.
 *
 * Invariants (requests_sane, O(records): tests and debug builds):
 *   n_requesters >= 1 (requester 0, the clients, once they are set up);
 *   every live request names a requester that exists, refs = its live
 *   attempts + (1 while unfinished), outstanding <= attempts, and an
 *   unfinished request's gen is what its pending events carry;
 *   every live attempt names a live request; one its requester waits
 *   for belongs to an unfinished request. */
typedef struct request_table {
    pool requests, attempts;           /* records; requests: REQUEST_HEAD + the
                                largest requester's request state */
    requester rq[SIM_MAX_CALLERS + 1]; /* by id */
    uint32_t n_requesters;
} request_table;

/* ---- Life cycle (sim.c, client.c, caller.c) ----------------------------- */

/* Lay the record pools out for requests with request_state bytes of
 * policy state; before any record exists. */
void requests_init(request_table *q, size_t request_state);
/* Raise the request records' policy state to fit request_state bytes
 * (no record may exist yet). */
void requests_fit_state(request_table *q, size_t request_state);
void requests_fini(request_table *q);
/* requests_fini then requests_init, keeping the pools' memory (pool_reset):
 * for a reused engine (sim_reuse). */
void requests_reset(request_table *q, size_t request_state);
/* Make s->rqs a copy of src->rqs for the copy s of a sim: both record
 * pools, and every requester with its policy state, connection pools
 * and draw counters; the clients (and the callers that share their
 * state) run `ps` (borrowed; its layers' state sizes must be src's), a
 * caller with its own stack a copy of it (pstack_clone).  A requester's
 * name is left borrowed from src: its owner (tiers_clone,
 * pipeline_clone) rebinds it.  s->rqs must be zeroed before; -1 with a
 * message in e (s->rqs is then good for requests_fini only). */
int requests_clone(sim *s, const sim *src, pstack *ps, sb_err *e);

/* Enroll the next requester: its id is its index (the clients' must be
 * first, id 0).  NULL with a message in e when the table is full. */
requester *requester_add(sim *s, const char *name, const requester_ops *ops,
                         sb_err *e);
/* Give rq its stack (borrowed) and cache what hooks it has. */
void requester_set_stack(requester *rq, pstack *stack);
/* Requester id's name for messages is now `name` (borrowed): its owner
 * rebinds it to its own copy after requests_clone. */
void requester_rename(sim *s, uint8_t id, const char *name);
/* Allocate rq's own policy state for n_clients and n_processes (0: one
 * per client) and run the stack's process_init and client_init; with a
 * pool of `connections` per process unless SIM_UNLIMITED. */
int requester_start_state(requester *rq, uint32_t n_clients,
                          uint32_t n_processes, uint32_t connections,
                          sb_err *e);
/* Share the clients' (requester 0's) stack, state and host. */
void requester_share_clients(requester *rq);
void requester_fini(requester *rq);

/* The process of rq's client c: clients are spread over processes in
 * contiguous blocks. */
static inline uint32_t requester_process_of(const requester *rq, uint32_t c)
{
    return (uint32_t)((uint64_t)c * rq->n_processes / rq->n_clients);
}

/* ---- Requests ----------------------------------------------------------- */

/* request_new's record, inline for the clients' arrivals: NULL when out
 * of memory, and the caller fails the run. */
static inline request *request_take(request_table *q, const requester *rq,
                                    uint32_t client, int64_t now, uint32_t *ri)
{
    request *r =
        pool_take(&q->requests, ri, REQUEST_HEAD, offsetof(request, gen));
    if (r == NULL)
        return NULL;
    if (rq->request_state_size)
        memset((char *)r + REQUEST_HEAD, 0, rq->request_state_size);
    r->gen++;
    r->caller = rq->id;
    r->client = client;
    r->process = requester_process_of(rq, client);
    r->start = now;
    r->deadline = DRIVER_NO_DEADLINE;
    r->refs = 1;
    return r;
}

/* A new request of rq's client `client`: zeroed (its policy state too),
 * started now, no deadline, one reference, in *ri; NULL when memory ran
 * out (the run is failed).  The owner sets what it needs (index, op,
 * flags, deadline, tier), then calls request_start. */
request *request_new(requester *rq, uint32_t client, uint32_t *ri);
/* Count r as offered and send its first attempt, or end it at once (a
 * deadline failure, nothing sent) when its deadline has passed. */
void request_start(sim *s, uint32_t ri, request *r);
/* Whoever wanted request ri has gone (a crashed runner): it ends now,
 * given up; its attempts still out are answered to nobody. */
void request_abandon(sim *s, uint32_t ri);

/* The events of requests and attempts (dispatched by sim.c). */
void request_on_send(sim *s, uint32_t ri, uint32_t gen);
void request_on_hedge(sim *s, uint32_t ri, uint32_t gen);
void request_on_end(sim *s, uint32_t ri, uint32_t gen);
void request_on_response(sim *s, uint32_t ai, uint32_t gen);
void request_on_timeout(sim *s, uint32_t ai, uint32_t gen);

/* request_start for a request of the clients (client.c): their
 * instance alone, inline in their arrival's handler. */
void request_start_client(sim *s, uint32_t ri, request *r);

/* Does its requester still wait for attempt t? */
bool request_waits(const sim *s, const attempt *t);

/* Do the lifecycle's invariants hold (above)?  O(records). */
bool requests_sane(const sim *s);

#endif
