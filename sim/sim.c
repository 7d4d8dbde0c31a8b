/*
 * sim.c -- the engine.  See sim.h for the contract and DESIGN.md for the
 * model.  Reading order: the records (request, attempt), the client side
 * (arrivals, sending, answers, timeouts, decisions), the server side
 * (admission, queue, service), faults, then the dispatch loop.
 */
#include "sim.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_queue.h"
#include "pool.h"
#include "rng.h"

#define NO_DEADLINE INT64_MAX
#define MAX_OBSERVERS 8
#define MAX_ALL_FAULTS (SIM_MAX_FAULTS * 2)
/* A request that has sent this many attempts gives up whatever its policy
 * says: a policy that retries forever would otherwise keep the run alive
 * after every client has given up in reality. */
#define MAX_ATTEMPTS_PER_REQUEST 100000u

enum event_type {
    EV_ARRIVAL = 1,   /* id: client */
    EV_SEND,          /* id: request, gen: request gen -- a retry is due */
    EV_HEDGE,         /* id: request, gen: request gen -- a hedge is due */
    EV_SERVER_ARRIVE, /* id: attempt, gen: attempt gen */
    EV_SERVICE_DONE,  /* id: attempt */
    EV_RESPONSE,      /* id: attempt -- the answer reaches the client */
    EV_TIMEOUT,       /* id: attempt -- the client stops waiting */
    EV_FAULT_ON,      /* id: fault index */
    EV_FAULT_OFF      /* id: fault index, gen: fault generation */
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
    RQ_FINISHED = 8
};

typedef struct request {
    int64_t start;
    int64_t deadline; /* absolute; NO_DEADLINE */
    uint32_t client;
    uint32_t index; /* the client's request number: its random streams */
    uint32_t gen;   /* bumped when it finishes or schedules a retry */
    uint32_t attempts;
    uint32_t outstanding; /* attempts the client still waits for */
    uint32_t refs;
    uint32_t commits;
    uint8_t op;
    uint8_t flags;
    uint8_t defect;
} request;

#define REQUEST_HEAD ((sizeof(request) + 15u) & ~(size_t)15u)

/* An attempt lives while the client waits for it or the server (or the
 * network) still holds it: both sides must let go before it is freed. */
enum stage {
    ST_TO_SERVER = 0, /* on the wire to the server */
    ST_QUEUED,
    ST_IN_SERVICE,
    ST_TO_CLIENT, /* the answer is on the wire back */
    ST_GONE       /* the server side is over */
};

typedef struct attempt {
    int64_t sent;
    int64_t expires; /* when the client stops waiting: the propagated
                        deadline a drop_expired server honours */
    int64_t service; /* drawn when service starts */
    int64_t enqueued;
    int64_t retry_after; /* of the answer; -1 none */
    uint64_t read_version; /* hot record: the version its service read */
    uint32_t req;
    uint32_t gen;
    uint32_t number;
    uint32_t slot; /* index in sim.in_service while in service */
    int32_t status;
    uint8_t waiting;
    uint8_t stage;
    uint8_t result; /* sb_error_kind of the answer */
    uint8_t defect;
    uint8_t hedge;
} attempt;

struct sim {
    const sim_config *cfg;
    pstack *ps;
    evq q;
    int64_t now;
    bool failed;
    char error[ERR_MSG_MAX];
    metrics m;
    sim_stats stats;

    /* Clients, struct-of-arrays: the request counter doubles as the
     * arrival stream's counter; the policy counter feeds sb_uniform. */
    uint32_t n_clients;
    uint32_t *next_request;
    uint32_t *policy_draws;
    char *client_state;
    size_t client_stride;
    uint64_t seed;

    pool requests, attempts;
    size_t request_state_size;

    /* Server. */
    uint32_t workers; /* now, after capacity faults */
    uint32_t busy;
    uint32_t *queue;  /* ring of attempt ids */
    size_t q_head, q_len, q_cap;
    uint32_t *in_service; /* attempt ids, unordered */
    size_t svc_cap;
    uint64_t record_version; /* hot record: committed updates so far */
    double tokens;
    int64_t tokens_t;
    double limit_rate; /* effective rate limit; 0 none */
    double limit_burst;

    /* Faults: configured ones first, then injected ones. */
    fault_cfg faults[MAX_ALL_FAULTS];
    bool active[MAX_ALL_FAULTS];
    uint32_t fault_gen[MAX_ALL_FAULTS];
    uint32_t n_faults;
    double spike;      /* arrival multiplier */
    double slowdown;   /* service multiplier */
    int64_t latency;   /* added to every answer */
    int outage;        /* -1, CUT_REFUSE or CUT_BLACKHOLE */
    uint8_t errors[MAX_ALL_FAULTS], n_errors;
    uint8_t lost[MAX_ALL_FAULTS], n_lost;
    uint8_t cuts[MAX_ALL_FAULTS], n_cuts;

    uint64_t offered_total; /* for 1-in-N trace sampling */
    int64_t last_finish;    /* when the last request ended */
    sim_observer obs[MAX_OBSERVERS];
    int n_obs;
    bool trace_on;
    sb_host host;
};

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

static int fail(sim *s, const char *msg)
{
    if (!s->failed) {
        s->failed = true;
        snprintf(s->error, sizeof s->error, "%s", msg);
    }
    return -1;
}

static void push(sim *s, int64_t t, unsigned type, uint32_t id, uint32_t gen)
{
    if (evq_push(&s->q, t, type, id, gen) != 0)
        fail(s, "out of memory for the event queue");
    if (evq_len(&s->q) > s->stats.queue_peak)
        s->stats.queue_peak = evq_len(&s->q);
}

/* Events that are usually "now + a constant" -- attempt timeouts, a
 * constant network delay each way, retries with no delay -- go to one
 * FIFO lane each, where they are already in time order (event_queue.h). */
enum { LANE_TIMEOUT = 0, LANE_TO_SERVER, LANE_TO_CLIENT, LANE_NOW };

static void push_lane(sim *s, unsigned lane, int64_t t, unsigned type,
                      uint32_t id, uint32_t gen)
{
    if (evq_push_lane(&s->q, lane, t, type, id, gen) != 0)
        fail(s, "out of memory for the event queue");
}

/* ---- Random draws ------------------------------------------------------- */

static int64_t sample(const sim *s, const dist *d, uint32_t client,
                      unsigned stream, uint64_t counter)
{
    if (d->kind == DIST_CONST)
        return d->mean_ns;
    uint64_t key = rng_key(s->seed, client, stream);
    if (d->kind == DIST_EXP)
        return (int64_t)llround(
            rng_exponential(rng_at(key, counter), (double)d->mean_ns));
    double z = rng_normal(rng_at(key, counter), rng_at(key, counter | 8u));
    return (int64_t)llround((double)d->mean_ns * exp(d->sigma * z));
}

static double unit_draw(const sim *s, uint32_t client, unsigned stream,
                        uint64_t counter)
{
    return rng_unit(rng_at(rng_key(s->seed, client, stream), counter));
}

static int64_t net_delay(const sim *s, const request *r, const attempt *a,
                         unsigned slot)
{
    return sample(s, &s->cfg->server.network, r->client, RNG_NET,
                  rng_attempt_counter(r->index, a->number, slot));
}

/* ---- The host interface policies see ------------------------------------ */

static double host_uniform(const sb_ctx *ctx)
{
    sim *s = ctx->host_data;
    uint32_t n = s->policy_draws[ctx->client]++;
    return unit_draw(s, ctx->client, RNG_POLICY, n);
}

static void host_breaker(const sb_ctx *ctx, int open)
{
    sim *s = ctx->host_data;
    s->m.open_breakers += open ? 1 : -1;
}

static pstack_call call_for(sim *s, request *r, uint32_t client)
{
    pstack_call c;
    c.client = client;
    c.client_state = client_state(s, client);
    c.request_state = r ? req_state(s, r) : NULL;
    c.host = &s->host;
    c.host_data = s;
    return c;
}

static void info_for(const sim *s, const request *r, uint32_t number,
                     sb_attempt *a)
{
    memset(a, 0, sizeof *a);
    a->struct_size = sizeof *a;
    a->attempt = number;
    a->op = (sb_op)r->op;
    a->keyed = (r->flags & RQ_KEYED) != 0;
    a->critical = (r->flags & RQ_CRITICAL) != 0;
    a->sent = 1;
    a->now_s = (double)s->now / 1e9;
    a->elapsed_s = (double)(s->now - r->start) / 1e9;
    a->remaining_s = r->deadline == NO_DEADLINE
                         ? INFINITY
                         : (double)(r->deadline - s->now) / 1e9;
    a->timeout_s = (double)s->cfg->clients.timeout_ns / 1e9;
    a->retry_after_s = -1.0;
    a->outstanding = r->outstanding;
}

/* Fill the outcome part of a from attempt t's answer (or its timeout). */
static void info_result(const sim *s, const attempt *t, sb_error_kind kind,
                        sb_attempt *a)
{
    a->latency_s = (double)(s->now - t->sent) / 1e9;
    a->error = kind;
    a->hedge = t->hedge;
    if (kind == SB_ERR_TIMEOUT)
        return;
    a->status = t->status;
    a->defect = (sb_defect)t->defect;
    a->sent = kind != SB_ERR_REFUSED;
    a->retry_after_s = t->retry_after >= 0 ? (double)t->retry_after / 1e9
                                           : -1.0;
}

static void trace(sim *s, const sim_trace *t)
{
    for (int i = 0; i < s->n_obs; i++)
        if (s->obs[i].trace)
            s->obs[i].trace(s->obs[i].ctx, t);
}

static void trace_simple(sim *s, const request *r, trace_kind kind,
                         const sb_attempt *a)
{
    sim_trace t;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.time_ns = s->now;
    t.client = r->client;
    t.request = r->index;
    t.attempt = a;
    trace(s, &t);
}

/* ---- Requests: start, finish, free --------------------------------------- */

static void schedule_arrival(sim *s, uint32_t c);

static void request_release(sim *s, uint32_t ri)
{
    request *r = req_at(s, ri);
    assert(r->refs > 0);
    if (--r->refs == 0)
        pool_free(&s->requests, ri);
}

static void count_outcome(sim *s, sb_outcome o)
{
    metrics_bucket *b = s->m.cur;
    if (o == SB_OUTCOME_SUCCESS) {
        b->successes++;
        return;
    }
    b->failures++;
    switch (o) {
    case SB_OUTCOME_GAVE_UP:
        b->gave_up++;
        break;
    case SB_OUTCOME_DEADLINE:
        b->deadline++;
        break;
    case SB_OUTCOME_REFUSED:
        b->refused++;
        break;
    case SB_OUTCOME_QUARANTINED:
        b->quarantined++;
        break;
    default:
        break;
    }
}

/* The request ends with `outcome`; a describes its last attempt. */
static void finish(sim *s, uint32_t ri, sb_outcome outcome,
                   const sb_attempt *a)
{
    request *r = req_at(s, ri);
    r->flags |= RQ_FINISHED;
    r->gen++;
    count_outcome(s, outcome);
    if (outcome == SB_OUTCOME_SUCCESS)
        metrics_latency(&s->m, s->now - r->start);
    pstack_call call = call_for(s, r, r->client);
    pstack_on_request_end(s->ps, &call, a, outcome);
    if (r->flags & RQ_TRACED) {
        sim_trace t;
        memset(&t, 0, sizeof t);
        t.kind = TRACE_END;
        t.time_ns = s->now;
        t.client = r->client;
        t.request = r->index;
        t.attempt = a;
        t.outcome = outcome;
        trace(s, &t);
    }
    if (s->cfg->clients.arrival == ARRIVAL_CLOSED)
        schedule_arrival(s, r->client);
    s->last_finish = s->now;
    request_release(s, ri);
}

static void attempt_release(sim *s, uint32_t ai)
{
    attempt *t = att_at(s, ai);
    if (t->waiting || t->stage != ST_GONE)
        return;
    uint32_t ri = t->req;
    t->gen++;
    pool_free(&s->attempts, ai);
    request_release(s, ri);
}

static void send_attempt(sim *s, uint32_t ri, bool hedge);

static void start_request(sim *s, uint32_t c, uint32_t k)
{
    uint32_t ri;
    if (pool_alloc(&s->requests, &ri) != 0) {
        fail(s, "out of memory for requests");
        return;
    }
    request *r = req_at(s, ri);
    const client_cfg *cc = &s->cfg->clients;
    uint32_t gen = r->gen;
    memset(r, 0, REQUEST_HEAD + s->request_state_size);
    r->gen = gen + 1;
    r->client = c;
    r->index = k;
    r->start = s->now;
    r->deadline = cc->deadline_ns ? s->now + cc->deadline_ns : NO_DEADLINE;
    r->refs = 1;
    uint64_t key = rng_key(s->seed, c, RNG_ATTR);
    double u = rng_unit(rng_at(key, (uint64_t)k * 8));
    r->op = u < cc->mix[0] ? SB_OP_READ
            : u < cc->mix[0] + cc->mix[1] ? SB_OP_PUT
                                          : SB_OP_POST;
    if (rng_unit(rng_at(key, (uint64_t)k * 8 + 1)) < cc->defect_fraction)
        r->defect = rng_unit(rng_at(key, (uint64_t)k * 8 + 2)) < 0.5
                        ? SB_DEFECT_INVALID_SCHEMA
                        : SB_DEFECT_MISSING_FIELD;
    if (rng_unit(rng_at(key, (uint64_t)k * 8 + 3)) < cc->critical_fraction)
        r->flags |= RQ_CRITICAL;
    if (r->op == SB_OP_POST && cc->idempotency_keys)
        r->flags |= RQ_KEYED;
    if (s->trace_on && s->offered_total % s->cfg->trace_sample == 0)
        r->flags |= RQ_TRACED;
    s->offered_total++;
    s->m.cur->offered++;
    send_attempt(s, ri, false);
}

/* ---- Arrivals --------------------------------------------------------------
 *
 * Open loop: request k of client c arrives a gap after request k-1, the gap
 * drawn from (seed, c, RNG_ARRIVAL, k) and divided by the load-spike
 * multiplier.  Closed loop: request k starts a think time (same stream)
 * after request k-1 ended.  Either way the arrival instants depend on the
 * policy only through request end times in closed loop.
 */
static int64_t arrival_gap(const sim *s, uint32_t c, uint32_t k)
{
    const client_cfg *cc = &s->cfg->clients;
    if (cc->arrival == ARRIVAL_ONCE)
        return (int64_t)(rng_unit(rng_at(rng_key(s->seed, c, RNG_ARRIVAL),
                                         0)) *
                         (double)cc->start_window_ns);
    if (cc->arrival == ARRIVAL_CLOSED)
        return (int64_t)llround(
            (double)sample(s, &cc->think, c, RNG_ARRIVAL, k) / s->spike);
    double mean = 1e9 / (cc->rate_per_s * s->spike);
    uint64_t x = rng_at(rng_key(s->seed, c, RNG_ARRIVAL), k);
    return (int64_t)llround(rng_exponential(x, mean));
}

static void schedule_arrival(sim *s, uint32_t c)
{
    int64_t gap = arrival_gap(s, c, s->next_request[c]);
    push(s, s->now + gap, EV_ARRIVAL, c, 0);
}

static void on_arrival(sim *s, uint32_t c)
{
    uint32_t k = s->next_request[c]++;
    if (s->cfg->clients.arrival == ARRIVAL_OPEN)
        schedule_arrival(s, c);
    start_request(s, c, k);
}

/* ---- Sending -------------------------------------------------------------- */

static void to_server(sim *s, uint32_t ai, request *r, attempt *t);

static bool refused_locally(sim *s, uint32_t ri, bool hedge)
{
    request *r = req_at(s, ri);
    sb_attempt a;
    info_for(s, r, r->attempts + 1, &a);
    a.hedge = hedge;
    pstack_call call = call_for(s, r, r->client);
    pstack_verdict v;
    if (pstack_before_send(s->ps, &call, &a, &v) != 0) {
        fail(s, pstack_error(s->ps));
        return true;
    }
    if (r->flags & RQ_TRACED) {
        sim_trace t;
        memset(&t, 0, sizeof t);
        t.kind = TRACE_SEND;
        t.time_ns = s->now;
        t.client = r->client;
        t.request = r->index;
        t.attempt = &a;
        t.hedge = hedge;
        t.refused = v.v.action == SB_SEND_REFUSE;
        t.reason = v.v.reason;
        trace(s, &t);
    }
    if (v.v.action == SB_SEND_REFUSE) {
        /* A refused hedge is simply not sent; a refused first try or
         * retry ends the request. */
        if (!hedge && r->outstanding == 0) {
            a.sent = 0;
            finish(s, ri, SB_OUTCOME_REFUSED, &a);
        }
        return true;
    }
    if (v.v.hedge_after_s > 0)
        push(s, s->now + (int64_t)llround(v.v.hedge_after_s * 1e9), EV_HEDGE,
             ri, r->gen);
    return false;
}

static void send_attempt(sim *s, uint32_t ri, bool hedge)
{
    if (refused_locally(s, ri, hedge))
        return;
    request *r = req_at(s, ri);
    uint32_t ai;
    if (pool_alloc(&s->attempts, &ai) != 0) {
        fail(s, "out of memory for attempts");
        return;
    }
    attempt *t = att_at(s, ai);
    uint32_t gen = t->gen;
    memset(t, 0, sizeof *t);
    t->gen = gen;
    t->req = ri;
    t->number = ++r->attempts;
    t->sent = s->now;
    t->hedge = hedge;
    t->retry_after = -1;
    int64_t timeout = s->cfg->clients.timeout_ns;
    if (r->deadline != NO_DEADLINE && r->deadline - s->now < timeout)
        timeout = r->deadline - s->now;
    t->expires = s->now + timeout;
    t->waiting = 1;
    r->outstanding++;
    r->refs++;
    s->m.cur->attempts++;
    push_lane(s, LANE_TIMEOUT, t->expires, EV_TIMEOUT, ai, t->gen);
    to_server(s, ai, r, t);
}

/* Is client c cut off by a running partition?  Membership is a pure
 * function of (seed, client, fault), so the same clients are cut off
 * under every policy. */
static int cut_off(const sim *s, uint32_t c)
{
    for (unsigned i = 0; i < s->n_cuts; i++) {
        const fault_cfg *f = &s->faults[s->cuts[i]];
        if (unit_draw(s, c, RNG_PARTITION, s->cuts[i]) < f->fraction)
            return (int)f->mode;
    }
    return -1;
}

static void answer(sim *s, uint32_t ai, sb_error_kind kind, int32_t status,
                   int64_t retry_after, bool via_network);

static void to_server(sim *s, uint32_t ai, request *r, attempt *t)
{
    int cut = s->n_cuts ? cut_off(s, r->client) : -1;
    if (cut == CUT_REFUSE) {
        answer(s, ai, SB_ERR_REFUSED, 0, -1, false);
        return;
    }
    if (cut == CUT_BLACKHOLE) {
        t->stage = ST_GONE;
        return;
    }
    t->stage = ST_TO_SERVER;
    push_lane(s, LANE_TO_SERVER, s->now + net_delay(s, r, t, 0),
              EV_SERVER_ARRIVE, ai, t->gen);
}

/* ---- Answers, timeouts and decisions ------------------------------------ */

static bool client_waits(const sim *s, const attempt *t)
{
    return t->waiting && !(req_at(s, t->req)->flags & RQ_FINISHED);
}

static void retry_or_end(sim *s, uint32_t ri, const sb_attempt *a,
                         const pstack_decision *d)
{
    request *r = req_at(s, ri);
    if (r->deadline != NO_DEADLINE && s->now >= r->deadline) {
        finish(s, ri, SB_OUTCOME_DEADLINE, a);
        return;
    }
    switch (d->d.action) {
    case SB_RETRY: {
        int64_t delay = (int64_t)llround(d->d.delay_s * 1e9);
        if (r->attempts >= MAX_ATTEMPTS_PER_REQUEST) {
            finish(s, ri, SB_OUTCOME_GAVE_UP, a);
        } else if (r->deadline != NO_DEADLINE &&
                   s->now + delay >= r->deadline) {
            /* The client would wake after its deadline: it fails now. */
            finish(s, ri, SB_OUTCOME_DEADLINE, a);
        } else {
            r->gen++;
            if (delay == 0)
                push_lane(s, LANE_NOW, s->now, EV_SEND, ri, r->gen);
            else
                push(s, s->now + delay, EV_SEND, ri, r->gen);
        }
        break;
    }
    case SB_QUARANTINE:
        finish(s, ri, SB_OUTCOME_QUARANTINED, a);
        break;
    default:
        finish(s, ri, SB_OUTCOME_GAVE_UP, a);
        break;
    }
}

static void attempt_failed(sim *s, uint32_t ai, sb_error_kind kind)
{
    attempt *t = att_at(s, ai);
    uint32_t ri = t->req;
    request *r = req_at(s, ri);
    sb_attempt a;
    info_for(s, r, t->number, &a);
    info_result(s, t, kind, &a);
    pstack_call call = call_for(s, r, r->client);
    pstack_decision d;
    if (pstack_on_failure(s->ps, &call, &a, &d) != 0) {
        fail(s, pstack_error(s->ps));
        return;
    }
    /* While a hedge of this request still waits, one failure does not
     * end it: the decision is taken when the last attempt fails. */
    bool ignored = r->outstanding > 0;
    if (r->flags & RQ_TRACED) {
        sim_trace tr;
        memset(&tr, 0, sizeof tr);
        tr.kind = TRACE_RESULT;
        tr.time_ns = s->now;
        tr.client = r->client;
        tr.request = r->index;
        tr.attempt = &a;
        tr.decision = &d;
        tr.decision_ignored = ignored;
        trace(s, &tr);
    }
    if (!ignored)
        retry_or_end(s, ri, &a, &d);
}

static void attempt_succeeded(sim *s, uint32_t ai)
{
    attempt *t = att_at(s, ai);
    request *r = req_at(s, t->req);
    sb_attempt a;
    info_for(s, r, t->number, &a);
    info_result(s, t, SB_ERR_NONE, &a);
    pstack_call call = call_for(s, r, r->client);
    pstack_on_success(s->ps, &call, &a);
    if (r->flags & RQ_TRACED)
        trace_simple(s, r, TRACE_RESULT, &a);
    finish(s, t->req, SB_OUTCOME_SUCCESS, &a);
}

static void on_response(sim *s, uint32_t ai, uint32_t gen)
{
    attempt *t = att_at(s, ai);
    if (t->gen != gen || t->stage != ST_TO_CLIENT)
        return;
    t->stage = ST_GONE;
    if (client_waits(s, t)) {
        t->waiting = 0;
        req_at(s, t->req)->outstanding--;
        if (t->result == SB_ERR_NONE)
            attempt_succeeded(s, ai);
        else
            attempt_failed(s, ai, (sb_error_kind)t->result);
    } else {
        t->waiting = 0;
    }
    attempt_release(s, ai);
}

static void on_timeout(sim *s, uint32_t ai, uint32_t gen)
{
    attempt *t = att_at(s, ai);
    if (t->gen != gen || !t->waiting)
        return;
    t->waiting = 0;
    request *r = req_at(s, t->req);
    if (!(r->flags & RQ_FINISHED)) {
        r->outstanding--;
        s->m.cur->timeouts++;
        attempt_failed(s, ai, SB_ERR_TIMEOUT);
    }
    attempt_release(s, ai);
}

static void on_send(sim *s, uint32_t ri, uint32_t gen)
{
    request *r = req_at(s, ri);
    if (r->gen != gen || (r->flags & RQ_FINISHED))
        return;
    send_attempt(s, ri, false);
}

static void on_hedge(sim *s, uint32_t ri, uint32_t gen)
{
    request *r = req_at(s, ri);
    if (r->gen != gen || (r->flags & RQ_FINISHED) || r->outstanding == 0)
        return;
    send_attempt(s, ri, true);
}

/* ---- The server ------------------------------------------------------------ */

/* Send an answer back.  From the server it takes the network delay plus
 * any latency fault; a refusal made by the client's own network stack (a
 * partition) arrives at once. */
static void answer(sim *s, uint32_t ai, sb_error_kind kind, int32_t status,
                   int64_t retry_after, bool via_network)
{
    attempt *t = att_at(s, ai);
    request *r = req_at(s, t->req);
    t->result = (uint8_t)kind;
    t->status = status;
    t->retry_after = retry_after;
    t->stage = ST_TO_CLIENT;
    int64_t back = via_network ? net_delay(s, r, t, 1) + s->latency : 0;
    push_lane(s, LANE_TO_CLIENT, s->now + back, EV_RESPONSE, ai, t->gen);
}

static void server_drop(sim *s, uint32_t ai)
{
    att_at(s, ai)->stage = ST_GONE;
    attempt_release(s, ai);
}

static void refill_tokens(sim *s)
{
    double dt = (double)(s->now - s->tokens_t) / 1e9;
    s->tokens = fmin(s->limit_burst, s->tokens + dt * s->limit_rate);
    s->tokens_t = s->now;
}

/* Token-bucket rate limit.  Returns the Retry-After to send with a 429,
 * in whole seconds as HTTP has it (at least 1 s), or 0 when admitted. */
static int64_t rate_limited(sim *s)
{
    if (s->limit_rate <= 0)
        return 0;
    refill_tokens(s);
    if (s->tokens >= 1.0) {
        s->tokens -= 1.0;
        return 0;
    }
    double wait = ceil((1.0 - s->tokens) / s->limit_rate);
    return (int64_t)fmax(1.0, wait) * NS_PER_S;
}

/* An error fault answers this attempt?  The coin is (seed, client,
 * fault, request, attempt): the same attempts fail under every policy. */
static const fault_cfg *error_fault(const sim *s, const request *r,
                                    const attempt *t)
{
    for (unsigned i = 0; i < s->n_errors; i++) {
        unsigned fi = s->errors[i];
        uint64_t ctr = rng_attempt_counter(r->index, t->number, 0);
        if (unit_draw(s, r->client, RNG_FAULT + fi, ctr) <
            s->faults[fi].probability)
            return &s->faults[fi];
    }
    return NULL;
}

static void start_service(sim *s, uint32_t ai);

static void enqueue(sim *s, uint32_t ai)
{
    if (s->q_len == s->q_cap) {
        size_t cap = s->q_cap ? s->q_cap * 2 : 1024;
        uint32_t *q = malloc(cap * sizeof *q);
        if (q == NULL) {
            fail(s, "out of memory for the server queue");
            return;
        }
        for (size_t i = 0; i < s->q_len; i++)
            q[i] = s->queue[(s->q_head + i) % s->q_cap];
        free(s->queue);
        s->queue = q;
        s->q_head = 0;
        s->q_cap = cap;
    }
    s->queue[(s->q_head + s->q_len) % s->q_cap] = ai;
    s->q_len++;
    attempt *t = att_at(s, ai);
    t->stage = ST_QUEUED;
    t->enqueued = s->now;
    metrics_set_queue(&s->m, s->now, (uint32_t)s->q_len);
}

static uint32_t dequeue(sim *s)
{
    uint32_t ai = s->queue[s->q_head];
    s->q_head = (s->q_head + 1) % s->q_cap;
    s->q_len--;
    metrics_set_queue(&s->m, s->now, (uint32_t)s->q_len);
    return ai;
}

static void on_server_arrive(sim *s, uint32_t ai, uint32_t gen)
{
    attempt *t = att_at(s, ai);
    if (t->gen != gen || t->stage != ST_TO_SERVER)
        return;
    const server_cfg *sc = &s->cfg->server;
    if (s->outage >= 0) {
        s->m.cur->rejections++;
        if (s->outage == CUT_REFUSE)
            answer(s, ai, SB_ERR_REFUSED, 0, -1, true);
        else
            server_drop(s, ai);
        return;
    }
    int64_t retry_after = rate_limited(s);
    if (retry_after > 0) {
        s->m.cur->rejections++;
        answer(s, ai, SB_ERR_HTTP, 429, retry_after, true);
        return;
    }
    const fault_cfg *f = s->n_errors ? error_fault(s, req_at(s, t->req), t)
                                     : NULL;
    if (f) {
        s->m.cur->errors++;
        answer(s, ai, f->kind, f->status,
               f->retry_after_ns > 0 ? f->retry_after_ns : -1, true);
        return;
    }
    if (s->busy < s->workers) {
        start_service(s, ai);
    } else if (sc->queue_limit == SIM_UNLIMITED ||
               s->q_len < sc->queue_limit) {
        enqueue(s, ai);
    } else {
        s->m.cur->rejections++;
        if (sc->overflow == OVERFLOW_DROP)
            server_drop(s, ai);
        else
            answer(s, ai, SB_ERR_HTTP, 503,
                   sc->overflow_retry_after_ns > 0 ? sc->overflow_retry_after_ns
                                                   : -1,
                   true);
    }
}

static void start_service(sim *s, uint32_t ai)
{
    attempt *t = att_at(s, ai);
    request *r = req_at(s, t->req);
    const server_cfg *sc = &s->cfg->server;
    if (s->busy == s->svc_cap) {
        size_t cap = s->svc_cap ? s->svc_cap * 2 : 256;
        uint32_t *v = realloc(s->in_service, cap * sizeof *v);
        if (v == NULL) {
            fail(s, "out of memory for the server");
            return;
        }
        s->in_service = v;
        s->svc_cap = cap;
    }
    metrics_gauge(&s->m, s->now);
    t->slot = s->busy;
    s->in_service[s->busy++] = ai;
    s->m.busy = s->busy;
    double base = (double)sample(s, &sc->service, r->client, RNG_SERVICE,
                                 rng_attempt_counter(r->index, t->number, 0));
    double thrash = 1.0;
    if (sc->degradation > 0 && s->busy > sc->degradation_knee)
        thrash += sc->degradation * (double)(s->busy - sc->degradation_knee);
    t->service = (int64_t)llround(base * s->slowdown * thrash);
    t->read_version = s->record_version;
    if (t->stage == ST_QUEUED) {
        s->m.total.queue_wait_sum_ns += s->now - t->enqueued;
    }
    s->m.total.queue_waits++;
    t->stage = ST_IN_SERVICE;
    push(s, s->now + t->service, EV_SERVICE_DONE, ai, t->gen);
}

/* Start queued attempts while workers are free; a drop_expired server
 * skips the ones whose caller has already given up on them. */
static void dispatch_queue(sim *s)
{
    while (s->busy < s->workers && s->q_len > 0) {
        uint32_t ai = dequeue(s);
        attempt *t = att_at(s, ai);
        if (s->cfg->server.drop_expired && s->now >= t->expires) {
            s->m.cur->expired++;
            server_drop(s, ai);
            continue;
        }
        start_service(s, ai);
    }
}

/* The work is done: a write commits here, whether or not the answer ever
 * reaches the client.  A keyed post that already committed is recognised
 * when the server deduplicates; any other repeat commits again. */
static void commit(sim *s, request *r, attempt *t)
{
    const server_cfg *sc = &s->cfg->server;
    if ((r->flags & RQ_KEYED) && sc->idempotency && r->commits > 0) {
        if (sc->dedupe_answer == DEDUPE_CONFLICT) {
            t->result = SB_ERR_HTTP;
            t->status = 409;
            t->defect = SB_DEFECT_DUPLICATE_BUSINESS_KEY;
        }
        return;
    }
    if (r->commits++ > 0) {
        if (r->op == SB_OP_POST)
            s->m.cur->duplicates++;
        else
            s->m.cur->repeats++;
    }
}

static bool ack_lost(const sim *s, const request *r, const attempt *t)
{
    for (unsigned i = 0; i < s->n_lost; i++) {
        unsigned fi = s->lost[i];
        uint64_t ctr = rng_attempt_counter(r->index, t->number, 1);
        if (unit_draw(s, r->client, RNG_FAULT + fi, ctr) <
            s->faults[fi].probability)
            return true;
    }
    return false;
}

static void on_service_done(sim *s, uint32_t ai, uint32_t gen)
{
    attempt *t = att_at(s, ai);
    if (t->gen != gen || t->stage != ST_IN_SERVICE)
        return;
    request *r = req_at(s, t->req);
    metrics_gauge(&s->m, s->now);
    uint32_t last = s->in_service[--s->busy];
    s->in_service[t->slot] = last;
    att_at(s, last)->slot = t->slot;
    s->m.busy = s->busy;
    s->m.cur->service_ns += t->service;
    t->result = SB_ERR_NONE;
    t->status = 200;
    t->defect = SB_DEFECT_NONE;
    if (r->defect) {
        t->result = SB_ERR_HTTP;
        t->status = 422;
        t->defect = r->defect;
    } else if (s->cfg->server.model == MODEL_HOT_RECORD &&
               t->read_version != s->record_version) {
        t->result = SB_ERR_GRPC; /* another update won: a conflict */
        t->status = SB_GRPC_ABORTED;
        s->m.cur->conflicts++;
    } else {
        if (s->cfg->server.model == MODEL_HOT_RECORD)
            s->record_version++;
        if (r->op != SB_OP_READ)
            commit(s, r, t);
    }
    bool lost = s->n_lost && ack_lost(s, r, t);
    int64_t back = net_delay(s, r, t, 1) + s->latency;
    /* Wasted: nobody will use this answer -- the client stopped waiting,
     * the answer is lost, or it will arrive after the client's timeout. */
    if (lost || !client_waits(s, t) || s->now + back >= t->expires)
        s->m.cur->wasted_ns += t->service;
    if (lost) {
        s->m.cur->lost_acks++;
        server_drop(s, ai);
    } else {
        t->stage = ST_TO_CLIENT;
        push_lane(s, LANE_TO_CLIENT, s->now + back, EV_RESPONSE, ai, t->gen);
    }
    dispatch_queue(s);
}

/* ---- Faults --------------------------------------------------------------- */

static int64_t stretch(const evq_event *ev, void *ctx)
{
    const double *k = ctx; /* k[0] = now, k[1] = old/new multiplier */
    if (evq_type(ev) != EV_ARRIVAL)
        return ev->time;
    double now = k[0];
    return (int64_t)llround(now + ((double)ev->time - now) * k[1]);
}

/* Pending arrivals were drawn at the old rate; by the memoryless property
 * (and for think times, by rescaling) the remaining time to each scales by
 * old/new.  One O(n) pass, no random draws, so the arrival sequence stays
 * the same under every policy. */
static void set_spike(sim *s, double spike)
{
    if (spike == s->spike)
        return;
    double k[2] = {(double)s->now, s->spike / spike};
    s->spike = spike;
    if (evq_retime(&s->q, stretch, k) != 0)
        fail(s, "out of memory for the event queue");
}

/* Connections die with the server: queued and in-service attempts are
 * reset (refuse) or vanish (blackhole). */
static void crash(sim *s, int mode)
{
    metrics_gauge(&s->m, s->now);
    while (s->q_len > 0) {
        uint32_t ai = dequeue(s);
        if (mode == CUT_REFUSE)
            answer(s, ai, SB_ERR_RESET, 0, -1, true);
        else
            server_drop(s, ai);
    }
    /* In-service attempts: their SERVICE_DONE events are skipped because
     * the stage moves on. */
    while (s->busy > 0) {
        uint32_t ai = s->in_service[--s->busy];
        if (mode == CUT_REFUSE)
            answer(s, ai, SB_ERR_RESET, 0, -1, true);
        else
            server_drop(s, ai);
    }
    s->m.busy = 0;
}

/* Recompute the server's effective state from the running faults. */
static void apply_faults(sim *s)
{
    const server_cfg *sc = &s->cfg->server;
    double spike = 1.0, slowdown = 1.0;
    int64_t latency = 0;
    int outage = -1;
    uint32_t workers = sc->workers;
    double rate = sc->rate_limit_per_s, burst = sc->rate_limit_burst;
    s->n_errors = s->n_lost = s->n_cuts = 0;
    for (uint32_t i = 0; i < s->n_faults; i++) {
        if (!s->active[i])
            continue;
        const fault_cfg *f = &s->faults[i];
        switch (f->type) {
        case FAULT_CAPACITY:
            if (f->workers < workers)
                workers = f->workers;
            break;
        case FAULT_LOAD_SPIKE:
            spike *= f->multiplier;
            break;
        case FAULT_OUTAGE:
            if (outage != CUT_BLACKHOLE)
                outage = (int)f->mode;
            break;
        case FAULT_LATENCY:
            latency += f->delay_ns;
            break;
        case FAULT_SLOWDOWN:
            slowdown *= f->multiplier;
            break;
        case FAULT_ERRORS:
            s->errors[s->n_errors++] = (uint8_t)i;
            break;
        case FAULT_LOST_ACK:
            s->lost[s->n_lost++] = (uint8_t)i;
            break;
        case FAULT_PARTITION:
            s->cuts[s->n_cuts++] = (uint8_t)i;
            break;
        case FAULT_RATE_LIMIT:
            if (rate <= 0 || f->rate_per_s < rate) {
                rate = f->rate_per_s;
                burst = f->burst;
            }
            break;
        default:
            break;
        }
    }
    set_spike(s, spike);
    s->slowdown = slowdown;
    s->latency = latency;
    if (outage >= 0 && s->outage < 0)
        crash(s, outage);
    s->outage = outage;
    if (rate != s->limit_rate || burst != s->limit_burst) {
        if (s->limit_rate > 0)
            refill_tokens(s);
        else
            s->tokens = burst;
        s->tokens_t = s->now;
        s->limit_rate = rate;
        s->limit_burst = burst;
        if (s->tokens > burst)
            s->tokens = burst;
    }
    s->workers = workers;
    s->m.capacity = workers;
    if (s->outage < 0)
        dispatch_queue(s);
}

static void on_fault(sim *s, uint32_t i, bool on, uint32_t gen)
{
    if (on) {
        if (s->active[i])
            return;
        s->active[i] = true;
        s->fault_gen[i]++;
        const fault_cfg *f = &s->faults[i];
        if (f->duration_ns < INT64_MAX - s->now)
            push(s, s->now + f->duration_ns, EV_FAULT_OFF, i,
                 s->fault_gen[i]);
    } else {
        if (!s->active[i] || gen != s->fault_gen[i])
            return;
        s->active[i] = false;
    }
    apply_faults(s);
}

/* ---- Dispatch ----------------------------------------------------------- */

static void dispatch(sim *s, const evq_event *ev)
{
    switch (evq_type(ev)) {
    case EV_ARRIVAL:
        on_arrival(s, ev->id);
        break;
    case EV_SEND:
        on_send(s, ev->id, ev->gen);
        break;
    case EV_HEDGE:
        on_hedge(s, ev->id, ev->gen);
        break;
    case EV_SERVER_ARRIVE:
        on_server_arrive(s, ev->id, ev->gen);
        break;
    case EV_SERVICE_DONE:
        on_service_done(s, ev->id, ev->gen);
        break;
    case EV_RESPONSE:
        on_response(s, ev->id, ev->gen);
        break;
    case EV_TIMEOUT:
        on_timeout(s, ev->id, ev->gen);
        break;
    case EV_FAULT_ON:
        on_fault(s, ev->id, true, ev->gen);
        break;
    case EV_FAULT_OFF:
        on_fault(s, ev->id, false, ev->gen);
        break;
    default:
        fail(s, "internal error: unknown event type");
    }
}

static void bucket_closed(void *ctx, size_t index)
{
    sim *s = ctx;
    for (int i = 0; i < s->n_obs; i++)
        if (s->obs[i].bucket_closed)
            s->obs[i].bucket_closed(s->obs[i].ctx, s, index);
}

int sim_run_until(sim *s, int64_t t)
{
    if (s->failed)
        return -1;
    evq_event ev;
    while (evq_pop_before(&s->q, t, &ev)) {
        if (ev.time >= s->m.cur_end &&
            metrics_roll(&s->m, ev.time, bucket_closed, s) != 0)
            return fail(s, "out of memory for metrics");
        s->now = ev.time;
        s->stats.events++;
        dispatch(s, &ev);
        if (s->failed)
            return -1;
    }
    if (t > s->m.cur_end && metrics_roll(&s->m, t - 1, bucket_closed, s) != 0)
        return fail(s, "out of memory for metrics");
    if (t > s->now)
        s->now = t;
    return 0;
}

/* ---- Life cycle ------------------------------------------------------------ */

static int check_config(const sim_config *c, sb_err *e)
{
    if (c->clients.count < 1)
        return err_set(e, "a scenario needs at least one client");
    if (c->bucket_ns <= 0 || c->duration_ns <= 0)
        return err_set(e, "duration and bucket must be positive");
    if (c->clients.arrival == ARRIVAL_OPEN && c->clients.rate_per_s <= 0)
        return err_set(e, "open-loop clients need a positive rate");
    if (c->n_faults > SIM_MAX_FAULTS)
        return err_set(e, "at most %d faults", SIM_MAX_FAULTS);
    return 0;
}

static int init_clients(sim *s, sb_err *e)
{
    uint32_t n = s->n_clients;
    s->next_request = calloc(n, sizeof *s->next_request);
    s->policy_draws = calloc(n, sizeof *s->policy_draws);
    s->client_stride = pstack_client_state_size(s->ps);
    if (s->client_stride)
        s->client_state = calloc(n, s->client_stride);
    if (!s->next_request || !s->policy_draws ||
        (s->client_stride && !s->client_state))
        return err_set(e, "out of memory for %u clients", n);
    for (uint32_t c = 0; c < n; c++) {
        pstack_call call = call_for(s, NULL, c);
        pstack_client_init(s->ps, &call);
        schedule_arrival(s, c);
    }
    return s->failed ? err_set(e, "%s", s->error) : 0;
}

int sim_create(const sim_config *cfg, pstack *ps, sim **out, sb_err *e)
{
    *out = NULL;
    if (check_config(cfg, e) != 0)
        return -1;
    sim *s = calloc(1, sizeof *s);
    if (s == NULL)
        return err_set(e, "out of memory");
    s->cfg = cfg;
    s->ps = ps;
    s->seed = cfg->seed;
    s->n_clients = cfg->clients.count;
    s->spike = s->slowdown = 1.0;
    s->outage = -1;
    s->workers = cfg->server.workers;
    s->trace_on = cfg->trace_sample > 0;
    s->host.struct_size = sizeof s->host;
    s->host.uniform = host_uniform;
    s->host.breaker = host_breaker;
    s->request_state_size = pstack_request_state_size(ps);
    pool_init(&s->requests, REQUEST_HEAD + s->request_state_size);
    pool_init(&s->attempts, sizeof(attempt));
    if (evq_init(&s->q, (size_t)s->n_clients + 1024) != 0 ||
        metrics_init(&s->m, cfg->bucket_ns, cfg->duration_ns) != 0) {
        err_set(e, "out of memory");
        goto fail;
    }
    s->m.capacity = s->workers;
    s->limit_rate = cfg->server.rate_limit_per_s;
    s->limit_burst = cfg->server.rate_limit_burst;
    s->tokens = s->limit_burst;
    for (uint32_t i = 0; i < cfg->n_faults; i++) {
        s->faults[i] = cfg->faults[i];
        push(s, cfg->faults[i].start_ns, EV_FAULT_ON, i, 0);
    }
    s->n_faults = cfg->n_faults;
    if (init_clients(s, e) != 0)
        goto fail;
    *out = s;
    return 0;
fail:
    sim_destroy(s);
    return -1;
}

void sim_destroy(sim *s)
{
    if (s == NULL)
        return;
    evq_fini(&s->q);
    metrics_fini(&s->m);
    pool_fini(&s->requests);
    pool_fini(&s->attempts);
    free(s->next_request);
    free(s->policy_draws);
    free(s->client_state);
    free(s->queue);
    free(s->in_service);
    free(s);
}

int sim_observe(sim *s, const sim_observer *o)
{
    if (s->n_obs == MAX_OBSERVERS)
        return -1;
    s->obs[s->n_obs++] = *o;
    return 0;
}

int sim_inject(sim *s, const fault_cfg *f, sb_err *e)
{
    if (s->n_faults == MAX_ALL_FAULTS)
        return err_set(e, "at most %d faults per run", MAX_ALL_FAULTS);
    uint32_t i = s->n_faults++;
    s->faults[i] = *f;
    if (s->faults[i].start_ns < s->now)
        s->faults[i].start_ns = s->now;
    push(s, s->faults[i].start_ns, EV_FAULT_ON, i, 0);
    return (int)i;
}

void sim_end_fault(sim *s, int index)
{
    if (index < 0 || (uint32_t)index >= s->n_faults || !s->active[index])
        return;
    /* Record the real end so the summary measures recovery from it. */
    s->faults[index].duration_ns = s->now - s->faults[index].start_ns;
    s->active[index] = false;
    s->fault_gen[index]++;
    apply_faults(s);
}

bool sim_fault_active(const sim *s, int index)
{
    return index >= 0 && (uint32_t)index < s->n_faults && s->active[index];
}

int64_t sim_now(const sim *s) { return s->now; }
int64_t sim_last_finish(const sim *s) { return s->last_finish; }
const sim_config *sim_config_of(const sim *s) { return s->cfg; }
const metrics *sim_metrics(const sim *s) { return &s->m; }
const char *sim_error(const sim *s) { return s->error; }

void sim_finish(sim *s)
{
    metrics_gauge(&s->m, s->now);
    s->m.cur->open_breakers = s->m.open_breakers;
    s->m.cur->capacity = s->m.capacity;
    uint64_t in_flight = 0;
    for (uint32_t i = 0; i < s->requests.next_new; i++) {
        const request *r = req_at(s, i);
        if (r->refs > 0 && !(r->flags & RQ_FINISHED))
            in_flight++;
    }
    metrics_finish(&s->m, in_flight);
}

void sim_get_stats(const sim *s, sim_stats *out)
{
    *out = s->stats;
    out->queue_len = evq_len(&s->q);
    out->heap_len = s->q.len;
    out->requests_live = s->requests.live;
    out->attempts_live = s->attempts.live;
    out->bytes = sizeof *s + evq_bytes(&s->q) + pool_bytes(&s->requests) +
                 pool_bytes(&s->attempts) +
                 (size_t)s->n_clients * (2 * sizeof(uint32_t) +
                                         s->client_stride) +
                 (s->q_cap + s->svc_cap) * sizeof(uint32_t) +
                 s->m.cap * sizeof(metrics_bucket);
}

int64_t sim_last_fault_end(const sim *s)
{
    int64_t end = -1;
    for (uint32_t i = 0; i < s->n_faults; i++) {
        const fault_cfg *f = &s->faults[i];
        int64_t e = f->duration_ns > INT64_MAX - f->start_ns
                        ? INT64_MAX
                        : f->start_ns + f->duration_ns;
        if (e > end)
            end = e;
    }
    return end;
}

int64_t sim_first_fault_start(const sim *s)
{
    int64_t start = -1;
    for (uint32_t i = 0; i < s->n_faults; i++)
        if (start < 0 || s->faults[i].start_ns < start)
            start = s->faults[i].start_ns;
    return start;
}
