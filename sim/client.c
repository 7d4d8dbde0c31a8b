/*
 * client.c -- the clients: when requests arrive, how attempts are sent,
 * what happens to answers and timeouts.  The policy stack is asked at each
 * step through the request driver (policies/driver.h), the same code
 * `validate`, `decide` and the tests use.  A policy is told only what a
 * real client would know.
 *
 * Processes.  Clients are spread over processes (service instances);
 * policy state is kept per process, per client and per request, and each
 * process may have a pool of connections: an attempt that finds every
 * connection busy waits at the client, its timeout already running (a
 * real client's per-attempt timeout covers the wait for a connection).
 *
 * The client's own time.  Every attempt costs its client at least
 * call_time (default 100 us): an answer that the network and server would
 * deliver sooner, and a send refused locally by a breaker or a budget,
 * are known only call_time after the call.  A real call is never free --
 * building it, the syscalls, the error path, the application's own
 * handling of the failure take tens to hundreds of microseconds -- and
 * without that cost a closed-loop client with no think time whose calls
 * fail in zero time would run requests forever at one instant.
 */
#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* A process's connection pool: connections in use, and the attempts
 * waiting for one, oldest first (a ring of attempt ids). */
typedef struct conn_pool {
    uint32_t busy;
    uint32_t head, len, cap;
    uint32_t *waiting;
} conn_pool;

/* ---- The host interface policies see ------------------------------------ */

static double host_uniform(const sb_ctx *ctx)
{
    sim *s = ctx->host_data;
    uint32_t n = s->policy_draws[ctx->client]++;
    return engine_unit_draw(s, ctx->client, RNG_POLICY, n);
}

static void host_breaker(const sb_ctx *ctx, int32_t open)
{
    sim *s = ctx->host_data;
    s->m.open_breakers += open ? 1 : -1;
}

/* The mean over processes that reported, kept as a running sum. */
static void host_level(const sb_ctx *ctx, double fraction)
{
    sim *s = ctx->host_data;
    if (!(fraction >= 0.0))
        fraction = 0.0;
    if (fraction > 1.0)
        fraction = 1.0;
    if (s->levels == NULL) {
        s->levels = malloc(s->n_processes * sizeof *s->levels);
        if (s->levels == NULL)
            return; /* the level goes unreported; nothing else depends on it */
        for (uint32_t i = 0; i < s->n_processes; i++)
            s->levels[i] = -1.0;
    }
    double *old = &s->levels[ctx->process];
    if (*old < 0) {
        s->level_count++;
        *old = 0.0;
    }
    s->level_sum += fraction - *old;
    *old = fraction;
    s->m.policy_level = s->level_sum / s->level_count;
}

/* Inline for the same reason as the stack's ctx_for: out of line it
 * returned its 56 bytes through memory at every failure. */
SB_ALWAYS_INLINE static inline pstack_call
call_for(sim *s, request *r, uint32_t client)
{
    pstack_call c;
    c.client = client;
    c.process = r ? r->process : process_of(s, client);
    c.process_state = process_state(s, c.process);
    c.client_state = client_state(s, client);
    c.request_state = r ? req_state(s, r) : NULL;
    c.host = &s->host;
    c.host_data = s;
    return c;
}

/* The driver's view of request r.  Its flags are copied as they are, in
 * one byte: the driver's bits are the request's (2 M instructions in the
 * storm at 10 000 clients, against three bools tested and stored). */
_Static_assert((int)RQ_KEYED == (int)DRIVER_KEYED &&
                   (int)RQ_CRITICAL == (int)DRIVER_CRITICAL &&
                   (int)RQ_HEDGE_PENDING == (int)DRIVER_HEDGE_PENDING,
               "a request's flags must be the driver's bits");
static driver_request view(const sim *s, const request *r)
{
    driver_request d;
    d.start_ns = r->start;
    d.deadline_ns = r->deadline;
    d.timeout_ns = s->timeout_ns;
    d.attempts = r->attempts;
    d.outstanding = r->outstanding;
    d.op = r->op;
    d.flags = r->flags;
    return d;
}

static void trace(sim *s, const sim_trace *t)
{
    for (int i = 0; i < s->n_obs; i++)
        if (s->obs[i].trace)
            s->obs[i].trace(s->obs[i].ctx, t);
}

/* A trace record of `kind` about request r, now; the caller fills in the
 * rest and passes it to trace(). */
static sim_trace trace_record(const sim *s, const request *r, trace_kind kind,
                              const sb_attempt *a)
{
    sim_trace t;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.time_ns = s->now;
    t.client = r->client;
    t.request = r->index;
    t.attempt = a;
    return t;
}

static void set_mode(sim *s, uint32_t c, sim_client_mode m)
{
    s->mode[c] = (uint8_t)m;
}

/* ---- Requests: start and finish ------------------------------------------ */

/* How a request ended, in words, by sb_outcome: a table, not a switch
 * (finish runs once a request; 2 M instructions in the storm at 10 000
 * clients). */
static const char *outcome_words(sb_outcome o)
{
    static const char *const words[] = {
        [SB_OUTCOME_SUCCESS] = "succeeded",
        [SB_OUTCOME_GAVE_UP] = "gave up",
        [SB_OUTCOME_DEADLINE] = "failed its deadline",
        [SB_OUTCOME_REFUSED] = "was refused locally",
        [SB_OUTCOME_QUARANTINED] = "was quarantined",
    };
    return o < sizeof words / sizeof words[0] ? words[o] : "gave up";
}

/* Tell the stack (on_request_end) and the trace that request r ends.
 * Out of line: finish, without them, needs no frame for their records
 * (3 M instructions in the storm). */
SB_NOINLINE static void
announce_end(sim *s, request *r, sb_outcome outcome, const sb_attempt *a)
{
    if (s->hears_end) {
        pstack_call call = call_for(s, r, r->client);
        pstack_on_request_end(s->ps, &call, a, outcome);
    }
    if (r->flags & RQ_TRACED) {
        sim_trace t = trace_record(s, r, TRACE_END, a);
        t.outcome = outcome;
        trace(s, &t);
    }
}

/* Request ri (r) ends with `outcome`; a describes its last attempt (NULL
 * when nobody would read it: no layer has on_request_end, and the request
 * is not traced). */
SB_ALWAYS_INLINE static inline void
finish_inline(sim *s, uint32_t ri, request *r, sb_outcome outcome,
              sb_refusal why, const char *reason, const sb_attempt *a)
{
    r->flags |= RQ_FINISHED;
    r->gen++;
    engine_count_outcome(s->m.cur, outcome, why);
    if (outcome == SB_OUTCOME_SUCCESS)
        metrics_latency(&s->m, s->now - r->start);
    if (outcome != SB_OUTCOME_REFUSED)
        set_mode(s, r->client, outcome == SB_OUTCOME_SUCCESS ? CLIENT_IDLE
                                                             : CLIENT_GAVE_UP);
    if (s->hears_end || (r->flags & RQ_TRACED))
        announce_end(s, r, outcome, a);
    s->last_end = outcome_words(outcome);
    s->last_end_reason = reason;
    if (s->cfg->clients.arrival == ARRIVAL_CLOSED)
        client_schedule_arrival(s, r->client);
    s->last_finish = s->now;
    engine_request_release(s, ri, r);
}

/* finish_inline out of line, for every caller but the timeout path with
 * no hedge, trace or on_decision (failed with no_hedge_trace_or_decision) and a success nobody hears of (attempt_succeeded).
 * There, inline, a request's end after its last timeout cost 10 M
 * instructions less in the storm at 10 000 clients (seven arguments, two
 * of them on the stack, and the timeout handler's frame around a call),
 * and after a success 7 M less (the optimiser then keeps start_request
 * out of the loop: forced back in, +0.4 M). */
static void finish(sim *s, uint32_t ri, request *r, sb_outcome outcome,
                   sb_refusal why, const char *reason, const sb_attempt *a)
{
    finish_inline(s, ri, r, outcome, why, reason, a);
}

static inline void send_attempt(sim *s, uint32_t ri, request *r, bool hedge);

/* What a request may have besides its op, by the run's settings: policy
 * state (zeroed), a deadline, a defect, a critical flag, an idempotency
 * key, a trace.  Out of line: a run whose requests have none of them
 * tests one flag (s->no_request_extras) instead of six settings at every
 * request (12 M instructions in the storm at 10 000 clients). */
SB_NOINLINE static void
start_extras(sim *s, request *r, uint64_t key, uint32_t k)
{
    const client_cfg *cc = &s->cfg->clients;
    if (s->request_state_size)
        memset(req_state(s, r), 0, s->request_state_size);
    r->deadline = cc->deadline_ns ? simtime_add(s->now, cc->deadline_ns)
                                  : NO_DEADLINE;
    /* A coin whose fraction is 0 is not tossed: no u in [0, 1) is below
     * it, and the streams are counters, so no other draw moves (two of
     * the three coins of a storm's request, 25 M instructions). */
    if (cc->defect_fraction > 0.0 &&
        rng_unit(rng_at(key, (uint64_t)k * 8 + 1)) < cc->defect_fraction)
        r->defect = rng_unit(rng_at(key, (uint64_t)k * 8 + 2)) < 0.5
                        ? SB_DEFECT_INVALID_SCHEMA
                        : SB_DEFECT_MISSING_FIELD;
    if (cc->critical_fraction > 0.0 &&
        rng_unit(rng_at(key, (uint64_t)k * 8 + 3)) < cc->critical_fraction)
        r->flags |= RQ_CRITICAL;
    if (r->op == SB_OP_POST && cc->idempotency_keys)
        r->flags |= RQ_KEYED;
    if (s->trace_on && s->offered_total % s->cfg->trace_sample == 0)
        r->flags |= RQ_TRACED;
}

static void start_request(sim *s, uint32_t c, uint32_t k)
{
    uint32_t ri;
    request *r =
        pool_take(&s->requests, &ri, REQUEST_HEAD, offsetof(request, gen));
    if (r == NULL) {
        engine_fail(s, "out of memory for requests");
        return;
    }
    const client_cfg *cc = &s->cfg->clients;
    r->gen++;
    r->client = c;
    r->process = process_of(s, c);
    r->index = k;
    r->start = s->now;
    r->refs = 1;
    uint64_t key = rng_key(s->seed, c, RNG_ATTR);
    double u = rng_unit(rng_at(key, (uint64_t)k * 8));
    r->op = u < cc->mix[0]                ? SB_OP_READ
            : u < cc->mix[0] + cc->mix[1] ? SB_OP_PUT
                                          : SB_OP_POST;
    if (s->no_request_extras)
        r->deadline = NO_DEADLINE;
    else
        start_extras(s, r, key, k);
    s->offered_total++;
    s->m.cur->offered++;
    send_attempt(s, ri, r, false);
}

/* ---- Arrivals --------------------------------------------------------------
 *
 * Open loop: request k of client c arrives a gap after request k-1, the gap
 * drawn from (seed, c, RNG_ARRIVAL, k) and divided by the load-spike
 * multiplier.  Closed loop: request k starts a think time (same stream)
 * after request k-1 ended.  Either way the arrival instants depend on the
 * policy only through request end times in closed loop.
 */
/* The gap before request k of client c when arrivals are not an open
 * loop's. */
SB_NOINLINE static int64_t
arrival_gap_other(const sim *s, uint32_t c, uint32_t k)
{
    const client_cfg *cc = &s->cfg->clients;
    if (cc->arrival == ARRIVAL_ONCE)
        return (int64_t)(rng_unit(rng_at(rng_key(s->seed, c, RNG_ARRIVAL), 0)) *
                         (double)cc->start_window_ns);
    return round_ns(
        (double)engine_sample(s, &cc->think, c, RNG_ARRIVAL, k) / s->spike);
}

/* Inline in the arrival handler, an open loop's gap: out of line, the
 * call cost 6 M instructions in the storm at 10 000 clients (its frame,
 * and the handler's registers saved around it). */
SB_ALWAYS_INLINE static inline int64_t
arrival_gap(const sim *s, uint32_t c, uint32_t k)
{
    const client_cfg *cc = &s->cfg->clients;
    if (cc->arrival != ARRIVAL_OPEN)
        return arrival_gap_other(s, c, k);
    double mean = s->gap_mean_ns; /* engine_gap_mean_ns */
    /* A rate so low that the mean gap is not even a double (1e-300/s):
     * no request ever comes.  (An exponential with an infinite mean would
     * be NaN for the uniform 1.) */
    if (isinf(mean))
        return SIMTIME_END;
    uint64_t x = rng_at(rng_key(s->seed, c, RNG_ARRIVAL), k);
    return round_ns(rng_exponential(x, mean));
}

/* Inline in the arrival handler: as a call it cost 3 M instructions in
 * the storm (its frame, and arguments the handler had in registers). */
SB_ALWAYS_INLINE static inline void schedule_arrival(sim *s,
                                                                   uint32_t c)
{
    int64_t gap = arrival_gap(s, c, s->next_request[c]);
    engine_push(s, simtime_add(s->now, gap), EV_ARRIVAL, c, 0);
}

void client_schedule_arrival(sim *s, uint32_t c)
{
    schedule_arrival(s, c);
}

void client_on_arrival(sim *s, uint32_t c)
{
    uint32_t k = s->next_request[c]++;
    if (s->cfg->clients.arrival == ARRIVAL_OPEN)
        schedule_arrival(s, c);
    start_request(s, c, k);
}

/* ---- Refused sends ---------------------------------------------------------
 *
 * A refused first try or retry ends the request call_time later (the
 * client's own cost of the failed call); until then no event of the
 * request is live: its generation moves on.
 */
static void end_refused(sim *s, uint32_t ri, request *r,
                        const driver_send *ds)
{
    r->gen++;
    r->end_outcome = (uint8_t)ds->outcome;
    r->end_reason = ds->verdict.v.reason;
    int64_t cost = s->cfg->clients.call_time_ns;
    if (cost <= 0) {
        finish(s, ri, r, ds->outcome, ds->verdict.v.refusal,
               ds->verdict.v.reason, &ds->attempt);
        return;
    }
    r->end_refusal = (uint8_t)ds->verdict.v.refusal;
    engine_push(s, simtime_add(s->now, cost), EV_END, ri, r->gen);
}

void client_on_end(sim *s, uint32_t ri, uint32_t gen)
{
    request *r = req_at(s, ri);
    if (r->gen != gen || (r->flags & RQ_FINISHED))
        return;
    driver_request d = view(s, r);
    sb_attempt a;
    driver_attempt(&d, s->now, r->attempts + 1, false, &a);
    a.sent = 0;
    finish(s, ri, r, (sb_outcome)r->end_outcome, (sb_refusal)r->end_refusal,
           r->end_reason, &a);
}

/* ---- Sending -------------------------------------------------------------- */

static void to_server(sim *s, uint32_t ai, request *r, attempt *t);

/* Act on the stack's answer to a send: trace it, count a refusal, end a
 * refused request, arm the next hedge.  False when the attempt may not
 * go. */
static bool act_on(sim *s, uint32_t ri, request *r, bool hedge,
                   const driver_send *ds)
{
    if (r->flags & RQ_TRACED) {
        sim_trace t = trace_record(s, r, TRACE_SEND, &ds->attempt);
        t.hedge = hedge;
        t.refused = !ds->send;
        t.refusal = ds->verdict.v.refusal;
        t.reason = ds->verdict.v.reason;
        trace(s, &t);
    }
    if (!ds->send) {
        s->m.cur->refusals++;
        set_mode(s, r->client, CLIENT_REFUSED);
        if (ds->end)
            end_refused(s, ri, r, ds);
        return false;
    }
    if (ds->hedge_after_ns > 0) {
        engine_push(s, simtime_add(s->now, ds->hedge_after_ns), EV_HEDGE, ri,
                    r->gen);
        r->flags |= RQ_HEDGE_PENDING;
    }
    return true;
}

/* Ask the stack whether the attempt may go; false when it may not (the
 * request may have ended). */
static bool allowed(sim *s, uint32_t ri, request *r, bool hedge)
{
    driver_request d = view(s, r);
    pstack_call call = call_for(s, r, r->client);
    driver_send ds;
    if (driver_before_send(s->ps, &call, &d, s->now, hedge, &ds) != 0) {
        engine_fail(s, pstack_error(s->ps));
        return false;
    }
    return act_on(s, ri, r, hedge, &ds);
}

/* Take a connection of the process's pool, or join its queue: true when
 * the attempt may go.  Without pools (s->pools NULL) it always may, and
 * that test is inline (take_connection and give_connection), not a call
 * at every attempt: see send_attempt. */
static bool pooled_take(sim *s, uint32_t process, uint32_t ai)
{
    conn_pool *p = &s->pools[process];
    if (p->busy < s->cfg->clients.connections) {
        p->busy++;
        return true;
    }
    if (p->len == p->cap) {
        uint32_t cap = p->cap ? p->cap * 2 : 16;
        uint32_t *w = malloc(cap * sizeof *w);
        if (w == NULL) {
            engine_fail(s, "out of memory for a connection pool");
            return false;
        }
        for (uint32_t i = 0; i < p->len; i++)
            w[i] = p->waiting[(p->head + i) % p->cap];
        free(p->waiting);
        p->waiting = w;
        p->head = 0;
        p->cap = cap;
    }
    p->waiting[(p->head + p->len) % p->cap] = ai;
    p->len++;
    return false;
}

static inline bool take_connection(sim *s, uint32_t process, uint32_t ai)
{
    return s->pools == NULL || pooled_take(s, process, ai);
}

/* A connection is free again: hand it to the oldest attempt still
 * waiting for one (attempts that timed out while waiting are dropped). */
static void pooled_give(sim *s, uint32_t process)
{
    conn_pool *p = &s->pools[process];
    p->busy--;
    while (p->len > 0) {
        uint32_t ai = p->waiting[p->head];
        p->head = (p->head + 1) % p->cap;
        p->len--;
        attempt *t = att_at(s, ai);
        request *r = req_at(s, t->req);
        if (!attempt_awaited(t, r)) {
            /* It timed out while waiting, or its request ended. */
            t->waiting = 0;
            t->stage = ST_GONE;
            engine_attempt_release(s, ai, t);
            continue;
        }
        p->busy++;
        set_mode(s, r->client, CLIENT_WAITING);
        to_server(s, ai, r, t);
        return;
    }
}

static inline void give_connection(sim *s, uint32_t process)
{
    if (s->pools != NULL)
        pooled_give(s, process);
}

static void launch(sim *s, uint32_t ri, request *r, bool hedge);

/* The send of an attempt the stack is asked about (a layer has
 * before_send, or the request is traced). */
SB_NOINLINE static void send_asked(sim *s, uint32_t ri,
                                                 request *r, bool hedge)
{
    if (allowed(s, ri, r, hedge))
        launch(s, ri, r, hedge);
}

/* Send an attempt of request ri.  Inline, with launch, in the handlers:
 * as a call of its own it saved and restored six registers and set up a
 * frame for the stack's answer at every attempt; the stack's path is out
 * of line.  With the pools' inline test: 2 134 M -> 2 091 M instructions
 * in the storm at 10 000 clients. */
SB_ALWAYS_INLINE static inline void
send_attempt(sim *s, uint32_t ri, request *r, bool hedge)
{
    if (s->asks_before_send || (r->flags & RQ_TRACED))
        send_asked(s, ri, r, hedge);
    else
        launch(s, ri, r, hedge);
}

/* Send an attempt the stack allowed.  Inline in its callers, as
 * to_server is in it: a retry went through five calls (the dispatch, the
 * send, launch, to_server, the queue), each saving and restoring
 * registers -- 43 M of the storm's 2.29 G instructions at 10 000
 * clients. */
SB_ALWAYS_INLINE static inline void
launch(sim *s, uint32_t ri, request *r, bool hedge)
{
    uint32_t ai;
    attempt *t = engine_attempt_new(s, ri, r, &ai);
    if (t == NULL)
        return;
    t->hedge = hedge;
    int64_t timeout = s->timeout_ns;
    if (r->deadline != NO_DEADLINE && r->deadline - s->now < timeout)
        timeout = r->deadline - s->now;
    t->expires = simtime_add(s->now, timeout);
    t->waiting = 1;
    r->outstanding++;
    r->refs++;
    s->m.cur->attempts++;
    engine_push(s, t->expires, EV_TIMEOUT, ai, t->gen);
    if (take_connection(s, r->process, ai)) {
        set_mode(s, r->client, CLIENT_WAITING);
        to_server(s, ai, r, t);
    } else {
        t->stage = ST_POOL;
        set_mode(s, r->client, CLIENT_POOL_WAIT);
    }
}

SB_ALWAYS_INLINE static inline void
to_server(sim *s, uint32_t ai, request *r, attempt *t)
{
    int cut = s->n_cuts ? faults_cut_off(s, r->client) : -1;
    if (cut == CUT_REFUSE) {
        /* Refused by the client's own network stack: at once. */
        engine_answer(s, ai, SB_ERR_REFUSED, 0, -1, 0);
        return;
    }
    if (cut == CUT_BLACKHOLE) {
        t->stage = ST_GONE;
        return;
    }
    t->stage = ST_TO_SERVER;
    engine_push(s, simtime_add(s->now, engine_net_delay(s, r, t, 0)),
                     EV_SERVER_ARRIVE, ai, t->gen);
}

/* ---- Answers, timeouts and decisions ------------------------------------ */

bool client_waits(const sim *s, const attempt *t)
{
    return attempt_awaited(t, req_at(s, t->req));
}

/* Act on what was decided after a failure of request ri (r): a is the
 * attempt the stack was shown, hedge the hedge's send (DRIVER_HEDGE);
 * inline_end: the request's end is inline (see finish). */
SB_ALWAYS_INLINE static inline void
act_after(sim *s, uint32_t ri, request *r, const driver_decided *nx,
          const sb_attempt *a, const driver_send *hedge, bool inline_end)
{
    switch (nx->step) {
    case DRIVER_HEDGE:
        /* The pending hedge goes now: its timer dies with the gen. */
        r->gen++;
        r->flags &= (uint8_t)~RQ_HEDGE_PENDING;
        if (act_on(s, ri, r, true, hedge))
            launch(s, ri, r, true);
        break;
    case DRIVER_RETRY:
        r->gen++;
        r->flags &= (uint8_t)~RQ_HEDGE_PENDING;
        set_mode(s, r->client, CLIENT_BACKING_OFF);
        if (nx->delay_ns == 0)
            engine_push_now(s, EV_SEND, ri, r->gen);
        else
            engine_push(s, simtime_add(s->now, nx->delay_ns), EV_SEND, ri,
                        r->gen);
        break;
    case DRIVER_END:
        if (inline_end)
            finish_inline(s, ri, r, nx->outcome, SB_REFUSAL_OTHER,
                          nx->final.reason, a);
        else
            finish(s, ri, r, nx->outcome, SB_REFUSAL_OTHER, nx->final.reason,
                   a);
        break;
    case DRIVER_WAIT:
        break;
    }
}

/* Attempt t of request r (index ri) failed with `kind`.
 * no_hedge_trace_or_decision, a constant at each call: r is not traced,
 * has no hedge pending, and no layer of the stack has on_decision -- the
 * driver then leaves rule 0 and on_decision out
 * (driver_failure_no_hedge_no_decision), there is no trace, and the
 * request's end is inline (finish_inline).  Inline in attempt_failed
 * (out of line: answers, and the other timeouts) and in
 * attempt_timed_out, where kind is a constant, and what a timeout does
 * not carry (status, defect, Retry-After, pushback) is not picked twice,
 * in engine_result_of and in driver_fill. */
SB_ALWAYS_INLINE static inline void
failed(sim *s, const attempt *t, uint32_t ri, request *r, sb_error_kind kind,
       bool no_hedge_trace_or_decision)
{
    bool quick = no_hedge_trace_or_decision;
    driver_request d = view(s, r);
    driver_result res = engine_result_of(t, kind);
    pstack_call call = call_for(s, r, r->client);
    sb_attempt a;
    pstack_decision stack;
    driver_send hedge;
    driver_decided nx;
    int rc = quick ? driver_failure_no_hedge_no_decision(
                         s->ps, &call, &d, s->now, &res, &a, &stack, &nx)
                   : driver_failure(s->ps, &call, &d, s->now, &res, &a,
                                    &stack, &hedge, &nx);
    if (rc != 0) {
        engine_fail(s, pstack_error(s->ps));
        return;
    }
    if (!quick && (r->flags & RQ_TRACED)) {
        sim_trace tr = trace_record(s, r, TRACE_RESULT, &a);
        bool undecided = nx.step == DRIVER_WAIT || nx.step == DRIVER_HEDGE;
        tr.decision = &stack;
        tr.decision_ignored = undecided;
        tr.limit = undecided ? NULL : nx.limit;
        trace(s, &tr);
    }
    act_after(s, ri, r, &nx, &a, quick ? NULL : &hedge, quick);
}

static void attempt_failed(sim *s, const attempt *t, uint32_t ri, request *r,
                           sb_error_kind kind)
{
    failed(s, t, ri, r, kind, false);
}

/* noipa: left to itself, the optimiser split t into five of its fields,
 * loaded in the loop and passed in registers and on the stack; the
 * pointers cost the loop less to hand over (5 M instructions in the storm
 * at 10 000 clients).  GCC's attribute; clang has no such split, and
 * noinline is what is left of it there. */
SB_NOIPA static void
attempt_timed_out(sim *s, const attempt *t, uint32_t ri, request *r)
{
    if (!(r->flags & (RQ_TRACED | RQ_HEDGE_PENDING)) &&
        !(pstack_hooks(s->ps) & PSTACK_HOOK_ON_DECISION))
        failed(s, t, ri, r, SB_ERR_TIMEOUT, true);
    else
        attempt_failed(s, t, ri, r, SB_ERR_TIMEOUT);
}

/* A success a layer or a trace hears of (attempt_succeeded). */
SB_NOINLINE static void
heard_success(sim *s, const attempt *t, uint32_t ri, request *r)
{
    driver_request d = view(s, r);
    driver_result res = engine_result_of(t, SB_ERR_NONE);
    pstack_call call = call_for(s, r, r->client);
    sb_attempt a;
    driver_on_success(s->ps, &call, &d, s->now, &res, &a);
    if (r->flags & RQ_TRACED) {
        sim_trace tr = trace_record(s, r, TRACE_RESULT, &a);
        trace(s, &tr);
    }
    finish(s, ri, r, SB_OUTCOME_SUCCESS, SB_REFUSAL_OTHER, NULL, &a);
}

/* The policy's view of a success is built only when a layer or a trace
 * will read it: with none (immediate, fixed, exponential ...) it cost a
 * fifth of a success's instructions.  Inline, that test and the call
 * to finish: 8 M instructions in the storm. */
static inline void attempt_succeeded(sim *s, const attempt *t, uint32_t ri,
                                     request *r)
{
    if (s->hears_success || (r->flags & RQ_TRACED))
        heard_success(s, t, ri, r);
    else
        finish_inline(s, ri, r, SB_OUTCOME_SUCCESS, SB_REFUSAL_OTHER, NULL,
                      NULL);
}

/* An answer reaches the client.  An error answer that finds it waiting
 * ends its attempt, counted by its class (engine_count_error); an answer
 * to an attempt nobody waits for any more ends nothing: that attempt
 * ended when its client stopped waiting. */
void client_on_response(sim *s, uint32_t ai, uint32_t gen)
{
    attempt *t = att_at(s, ai);
    if (t->gen != gen || t->stage != ST_TO_CLIENT)
        return;
    /* No answer is known sooner than the client's own time for a call. */
    int64_t earliest = simtime_add(t->sent, s->cfg->clients.call_time_ns);
    if (s->now < earliest && t->waiting) {
        engine_push(s, earliest, EV_RESPONSE, ai, gen);
        return;
    }
    t->stage = ST_GONE;
    uint32_t ri = t->req;
    request *r = req_at(s, ri);
    if (attempt_awaited(t, r)) {
        t->waiting = 0;
        r->outstanding--;
        uint32_t process = r->process;
        metrics_attempt_latency(&s->m, s->now - t->sent);
        if (t->result == SB_ERR_NONE) {
            attempt_succeeded(s, t, ri, r);
        } else {
            engine_count_error(s->m.cur, t);
            attempt_failed(s, t, ri, r, (sb_error_kind)t->result);
        }
        give_connection(s, process);
    } else if (t->waiting) {
        t->waiting = 0;
        give_connection(s, r->process);
    }
    /* r is still t's request: t holds a reference to it. */
    engine_attempt_release_of(s, ai, t, r);
}

void client_on_timeout(sim *s, uint32_t ai, uint32_t gen)
{
    attempt *t = att_at(s, ai);
    if (t->gen != gen || !t->waiting)
        return;
    t->waiting = 0;
    uint32_t ri = t->req;
    request *r = req_at(s, ri);
    uint32_t process = r->process;
    bool pooled = t->stage == ST_POOL;
    if (!(r->flags & RQ_FINISHED)) {
        r->outstanding--;
        s->m.cur->timeouts++;
        metrics_attempt_latency(&s->m, s->now - t->sent);
        attempt_timed_out(s, t, ri, r);
    }
    /* An attempt still waiting for a connection holds none; the pool
     * drops it when its turn comes. */
    if (!pooled) {
        give_connection(s, process);
        engine_attempt_release_of(s, ai, t, r);
    }
}

void client_on_send(sim *s, uint32_t ri, uint32_t gen)
{
    request *r = req_at(s, ri);
    if (r->gen != gen || (r->flags & RQ_FINISHED))
        return;
    send_attempt(s, ri, r, false);
}

void client_on_hedge(sim *s, uint32_t ri, uint32_t gen)
{
    request *r = req_at(s, ri);
    if (r->gen != gen)
        return;
    r->flags &= (uint8_t)~RQ_HEDGE_PENDING;
    if ((r->flags & RQ_FINISHED) || r->outstanding == 0)
        return;
    send_attempt(s, ri, r, true);
}

uint32_t client_of_event(const sim *s, unsigned type, uint32_t id)
{
    switch (type) {
    case EV_ARRIVAL:
        return id;
    case EV_SEND:
    case EV_HEDGE:
    case EV_END:
        return req_at(s, id)->client;
    case EV_SERVER_ARRIVE:
    case EV_SERVICE_DONE:
    case EV_RESPONSE:
    case EV_TIMEOUT:
        return req_at(s, att_at(s, id)->req)->client;
    default:
        return UINT32_MAX;
    }
}

/* ---- Life cycle ------------------------------------------------------------ */

static int init_processes(sim *s, sb_err *e)
{
    uint32_t n = s->n_processes;
    s->process_stride = pstack_process_state_size(s->ps);
    if (s->process_stride &&
        (s->process_state = calloc(n, s->process_stride)) == NULL)
        return err_set(e, "out of memory for %u processes", n);
    if (s->cfg->clients.connections != SIM_UNLIMITED &&
        (s->pools = calloc(n, sizeof *s->pools)) == NULL)
        return err_set(e, "out of memory for %u connection pools", n);
    for (uint32_t p = 0; p < n; p++) {
        pstack_call call = call_for(s, NULL, 0);
        call.process = p;
        call.process_state = process_state(s, p);
        call.client = (uint32_t)(((uint64_t)p * s->n_clients +
                                  s->n_processes - 1) / s->n_processes);
        call.client_state = NULL;
        pstack_process_init(s->ps, &call);
    }
    return 0;
}

int client_start_all(sim *s, sb_err *e)
{
    unsigned hooks = pstack_hooks(s->ps);
    s->asks_before_send = (hooks & PSTACK_HOOK_BEFORE_SEND) != 0;
    s->hears_success =
        (hooks & (PSTACK_HOOK_ON_SUCCESS | PSTACK_HOOK_ON_REQUEST_END)) != 0;
    s->hears_end = (hooks & PSTACK_HOOK_ON_REQUEST_END) != 0;
    const client_cfg *cc = &s->cfg->clients;
    s->no_request_extras = s->request_state_size == 0 && !cc->deadline_ns &&
                        !(cc->defect_fraction > 0.0) &&
                        !(cc->critical_fraction > 0.0) &&
                        !cc->idempotency_keys && !s->trace_on;
    s->host.struct_size = sizeof s->host;
    s->host.uniform = host_uniform;
    s->host.breaker = host_breaker;
    s->host.level = host_level;
    uint32_t n = s->n_clients;
    s->n_processes = s->cfg->clients.processes ? s->cfg->clients.processes : n;
    if (s->n_processes > n)
        s->n_processes = n;
    s->next_request = calloc(n, sizeof *s->next_request);
    s->policy_draws = calloc(n, sizeof *s->policy_draws);
    s->mode = calloc(n, sizeof *s->mode);
    s->client_stride = pstack_client_state_size(s->ps);
    if (s->client_stride)
        s->client_state = calloc(n, s->client_stride);
    if (!s->next_request || !s->policy_draws || !s->mode ||
        (s->client_stride && !s->client_state))
        return err_set(e, "out of memory for %u clients", n);
    if (init_processes(s, e) != 0)
        return -1;
    for (uint32_t c = 0; c < n; c++) {
        pstack_call call = call_for(s, NULL, c);
        pstack_client_init(s->ps, &call);
        client_schedule_arrival(s, c);
    }
    return s->failed ? err_set(e, "%s", s->error) : 0;
}

void client_free_all(sim *s)
{
    free(s->next_request);
    free(s->policy_draws);
    free(s->mode);
    free(s->client_state);
    free(s->process_state);
    free(s->levels);
    if (s->pools)
        for (uint32_t p = 0; p < s->n_processes; p++)
            free(s->pools[p].waiting);
    free(s->pools);
}

const uint8_t *sim_client_modes(const sim *s)
{
    return s->mode;
}

uint32_t sim_clients(const sim *s)
{
    return s->n_clients;
}

uint32_t sim_processes(const sim *s)
{
    return s->n_processes;
}
