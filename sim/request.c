/*
 * request.c -- the request lifecycle (request.h): starts, sends, answers,
 * timeouts, decisions and ends of every requester's requests.
 *
 * Two instances of one code.  Every step below is written once, as an
 * inline function of (requester, ops, top).  The top-level clients' events
 * run it with top = true and ops = &client_ops, both constants: their
 * hooks are called directly and what only calls have (a veto on retries,
 * hooks on sends) or only clients have (modes, partitions, traces,
 * hedges, the clients' timeout) costs nothing where it does not apply.
 * Every caller's events run it with top = false and its own ops.  The
 * clients' requests carry the large runs, and this is the engine's hot
 * path: each step is inline in its event handler, and what most requests
 * never need (the stack's view of a send, traces, the end's announcement)
 * is out of line.
 *
 * The requester's own time per call (call_time, client.c says why).  No
 * answer is known sooner than call_time after its attempt was sent, and a
 * send refused locally ends its request call_time later.
 */
#include "request.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "engine.h"
#include "tier.h"

_Static_assert(sizeof(request) <= 64, "a request record head stays 64 bytes");

/* The clients' hooks (client.h), a constant here so that their instance
 * calls them directly. */
static const requester_ops client_ops = {
    .ended = client_request_ended,
};

static inline requester *requester_of(sim *s, const request *r)
{
    return &s->rqs.rq[r->caller];
}

/* The metrics rq counts into: the run's, or those of the tier its calls
 * go to. */
static inline metrics *metrics_of(sim *s, const requester *rq, bool top)
{
    if (top || rq->counts_in == 0)
        return &s->m;
    return tiers_metrics(s, rq->counts_in);
}

/* The per-attempt timeout now: the clients' (faults may change it), or
 * the requester's own. */
static inline int64_t timeout_of(const sim *s, const requester *rq, bool top)
{
    return top || rq->timeout_ns == 0 ? s->cl.timeout_ns : rq->timeout_ns;
}

/* The requester whose state, stack and host rq's stack runs with. */
static inline const requester *state_of(const sim *s, const requester *rq,
                                        bool top)
{
    return !top && rq->shares_clients_state ? &s->rqs.rq[0] : rq;
}

/* ---- The host interface policies see ------------------------------------ */

static double host_uniform(const sb_ctx *ctx)
{
    requester *rq = ctx->host_data;
    uint32_t n = rq->draws[ctx->client]++;
    return engine_unit_draw(rq->s, ctx->client, rq->policy_stream, n);
}

static void host_breaker(const sb_ctx *ctx, int32_t open)
{
    requester *rq = ctx->host_data;
    metrics_breakers_add(metrics_of(rq->s, rq, false), open ? 1 : -1);
}

/* The levels (tokens, budget left) are charted for the clients' stack
 * only: a caller's own stack's are not. */
static void host_level(const sb_ctx *ctx, double fraction)
{
    requester *rq = ctx->host_data;
    if (rq->id == 0)
        client_policy_level(rq->s, ctx->process, fraction);
}

/* The stack's view of client `client` of rq (request r, or none).
 * Inline for the same reason as the stack's ctx_for: out of line it
 * returned its 56 bytes through memory at every failure. */
SB_ALWAYS_INLINE static inline pstack_call
call_for(sim *s, const requester *rq, bool top, request *r, uint32_t client)
{
    const requester *st = state_of(s, rq, top);
    pstack_call c;
    c.client = client;
    c.process = r ? r->process : requester_process_of(st, client);
    c.process_state =
        st->process_stride
            ? st->process_state + (size_t)c.process * st->process_stride
            : NULL;
    c.client_state = st->client_stride
                         ? st->client_state + (size_t)client * st->client_stride
                         : NULL;
    c.request_state =
        r && st->request_state_size ? (char *)r + REQUEST_HEAD : NULL;
    c.host = &st->host;
    c.host_data = (void *)st;
    return c;
}

/* The driver's view of request r.  Its flags are copied as they are, in
 * one byte: the driver's bits are the request's, and it ignores the
 * others. */
_Static_assert((int)RQ_KEYED == (int)DRIVER_KEYED &&
                   (int)RQ_CRITICAL == (int)DRIVER_CRITICAL &&
                   (int)RQ_HEDGE_PENDING == (int)DRIVER_HEDGE_PENDING,
               "a request's flags must be the driver's bits");
static inline driver_request view(const sim *s, const requester *rq, bool top,
                                  const request *r)
{
    driver_request d;
    d.start_ns = r->start;
    d.deadline_ns = r->deadline;
    d.timeout_ns = timeout_of(s, rq, top);
    d.attempts = r->attempts;
    d.outstanding = r->outstanding;
    d.op = r->op;
    d.flags = r->flags;
    return d;
}

/* How attempt t ended, from its answer (or its timeout), as the driver
 * takes it. */
static inline driver_result result_of(const attempt *t, sb_error_kind kind)
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

/* ---- Counting ----------------------------------------------------------- */

/* Count, in bucket b, how a request ended (successes, or failures by
 * cause; a refusal by why the send was refused). */
static inline void count_outcome(metrics_bucket *b, sb_outcome o,
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

/* Count, in bucket b, an error answer that found its requester waiting,
 * by who answered it (enum answer_by): the one place its class is
 * counted (a timeout is counted where it fires). */
static inline void count_error(metrics_bucket *b, const attempt *t)
{
    if (t->answer_by == ANSWER_REJECTED)
        b->rejections++;
    else if (t->answer_by == ANSWER_INJECTED)
        b->errors++;
    else
        b->other_errors++;
}

/* ---- Traces (the clients' sampled requests) ------------------------------ */

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
    const requester *rq = &s->rqs.rq[r->caller];
    t.stack = rq->stack;
    t.caller = r->caller ? rq->name : NULL;
    return t;
}

static void trace(sim *s, const sim_trace *t)
{
    observers_trace(&s->obs, t);
}

/* What the top-level client of r is doing now (sim_client_modes): only
 * the clients show modes; a caller's owner shows what it wants. */
static inline void note_mode(sim *s, bool top, const request *r,
                             sim_client_mode m)
{
    if (top)
        clients_show(&s->cl, r->client, m);
}

/* ---- The end ---------------------------------------------------------------- */

/* Tell the stack (on_request_end) and the trace that request r ends.  Out
 * of line: the end, without them, needs no frame for their records. */
SB_NOINLINE static void announce_end(sim *s, const requester *rq, bool top,
                                     request *r, sb_outcome outcome,
                                     const sb_attempt *a)
{
    if (rq->hears_end) {
        pstack_call call = call_for(s, rq, top, r, r->client);
        pstack_on_request_end(rq->stack, &call, a, outcome);
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
end_inline(sim *s, requester *rq, const requester_ops *ops, bool top,
           uint32_t ri, request *r, sb_outcome outcome, sb_refusal why,
           const char *reason, const sb_attempt *a)
{
    metrics *m = metrics_of(s, rq, top);
    r->flags |= RQ_FINISHED;
    r->gen++;
    count_outcome(m->cur, outcome, why);
    if (outcome == SB_OUTCOME_SUCCESS)
        metrics_latency(m, s->now - r->start);
    if (outcome != SB_OUTCOME_REFUSED)
        note_mode(s, top, r,
                  outcome == SB_OUTCOME_SUCCESS ? CLIENT_IDLE : CLIENT_GAVE_UP);
    if (rq->hears_end || (r->flags & RQ_TRACED))
        announce_end(s, rq, top, r, outcome, a);
    if (ops->ended)
        ops->ended(rq, ri, r, outcome, reason);
    engine_request_release(s, ri, r);
}

/* end_inline out of line, for every end but the two most common ones of
 * the clients (their last attempt timed out with nothing to hear of it,
 * or a success nobody hears of): inline there, the end cost a call of
 * ten arguments less, and the timeout handler's frame around it. */
SB_NOINLINE static void end_top(sim *s, uint32_t ri, request *r,
                                sb_outcome outcome, sb_refusal why,
                                const char *reason, const sb_attempt *a)
{
    end_inline(s, &s->rqs.rq[0], &client_ops, true, ri, r, outcome, why, reason,
               a);
}

SB_NOINLINE static void end_call(sim *s, requester *rq, uint32_t ri, request *r,
                                 sb_outcome outcome, sb_refusal why,
                                 const char *reason, const sb_attempt *a)
{
    end_inline(s, rq, rq->ops, false, ri, r, outcome, why, reason, a);
}

static inline void end(sim *s, requester *rq, bool top, uint32_t ri, request *r,
                       sb_outcome outcome, sb_refusal why, const char *reason,
                       const sb_attempt *a)
{
    if (top)
        end_top(s, ri, r, outcome, why, reason, a);
    else
        end_call(s, rq, ri, r, outcome, why, reason, a);
}

/* ---- Refused sends -------------------------------------------------------------
 *
 * A refused first try or retry ends the request call_time later (the
 * requester's own cost of the failed call); until then no event of the
 * request is live: its generation moves on.
 */
static void end_refused(sim *s, requester *rq, bool top, uint32_t ri,
                        request *r, const driver_send *ds)
{
    r->gen++;
    r->end_outcome = (uint8_t)ds->outcome;
    r->end_reason = ds->verdict.v.reason;
    int64_t cost = rq->call_time_ns;
    if (cost <= 0) {
        end(s, rq, top, ri, r, ds->outcome, ds->verdict.v.refusal,
            ds->verdict.v.reason, &ds->attempt);
        return;
    }
    r->end_refusal = (uint8_t)ds->verdict.v.refusal;
    engine_push(s, simtime_add(s->now, cost), EV_END, ri, r->gen);
}

void request_on_end(sim *s, uint32_t ri, uint32_t gen)
{
    request *r = req_at(s, ri);
    if (r->gen != gen || (r->flags & RQ_FINISHED))
        return;
    requester *rq = requester_of(s, r);
    bool top = r->caller == 0;
    driver_request d = view(s, rq, top, r);
    sb_attempt a;
    driver_attempt(&d, s->now, r->attempts + 1, false, &a);
    a.sent = 0;
    end(s, rq, top, ri, r, (sb_outcome)r->end_outcome,
        (sb_refusal)r->end_refusal, r->end_reason, &a);
}

/* ---- Sending ------------------------------------------------------------------ */

/* Act on the stack's answer to a send: trace it, count a refusal, end a
 * refused request, arm the next hedge.  False when the attempt may not
 * go. */
static bool act_on(sim *s, requester *rq, bool top, uint32_t ri, request *r,
                   bool hedge, const driver_send *ds)
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
        metrics_of(s, rq, top)->cur->refusals++;
        note_mode(s, top, r, CLIENT_REFUSED);
        if (ds->end)
            end_refused(s, rq, top, ri, r, ds);
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
static bool allowed(sim *s, requester *rq, bool top, uint32_t ri, request *r,
                    bool hedge)
{
    driver_request d = view(s, rq, top, r);
    pstack_call call = call_for(s, rq, top, r, r->client);
    driver_send ds;
    if (driver_before_send(rq->stack, &call, &d, s->now, hedge, &ds) != 0) {
        engine_fail(s, pstack_error(rq->stack));
        return false;
    }
    return act_on(s, rq, top, ri, r, hedge, &ds);
}

/* Take a connection of the process's pool, or join its queue: true when
 * the attempt may go.  Without pools (rq->pools NULL) it always may, and
 * that test is inline (take_connection and give_connection), not a call
 * at every attempt. */
static bool pooled_take(sim *s, requester *rq, uint32_t process, uint32_t ai)
{
    conn_pool *p = &rq->pools[process];
    if (p->busy < rq->connections) {
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

static inline bool take_connection(sim *s, requester *rq, uint32_t process,
                                   uint32_t ai)
{
    return rq->pools == NULL || pooled_take(s, rq, process, ai);
}

/* Attempt ai (t) of r leaves for the server of its tier, over rq's
 * network -- unless a partition cuts the client off: its own network
 * stack refuses at once, or the attempt vanishes (the timeout frees it).
 * Inline in launch, as launch is in the handlers. */
SB_ALWAYS_INLINE static inline void to_server(sim *s, const requester *rq,
                                              bool top, uint32_t ai, request *r,
                                              attempt *t)
{
    int cut =
        top && faults_any_cuts(&s->fl) ? faults_cut_off(s, r->client) : -1;
    if (cut == CUT_REFUSE) {
        engine_answer(s, ai, SB_ERR_REFUSED, 0, -1, 0);
        return;
    }
    if (cut == CUT_BLACKHOLE) {
        t->stage = ST_GONE;
        return;
    }
    t->stage = ST_TO_SERVER;
    int64_t d = engine_sample(s, rq->network, r->client, rq->net_stream,
                              rng_attempt_counter(r->index, t->number, 0));
    engine_push_after(s, d, EV_SERVER_ARRIVE, ai, t->gen);
}

/* A connection is free again: hand it to the oldest attempt still
 * waiting for one (attempts that timed out while waiting are dropped). */
static void pooled_give(sim *s, requester *rq, bool top, uint32_t process)
{
    conn_pool *p = &rq->pools[process];
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
        note_mode(s, top, r, CLIENT_WAITING);
        to_server(s, rq, top, ai, r, t);
        return;
    }
}

static inline void give_connection(sim *s, requester *rq, bool top,
                                   uint32_t process)
{
    if (rq->pools != NULL)
        pooled_give(s, rq, top, process);
}

/* A new attempt of request ri (its number, sent now, no Retry-After), in
 * *ai; NULL when the pool is out of memory (the run is failed). */
static inline attempt *attempt_new(sim *s, uint32_t ri, request *r,
                                   uint32_t *ai)
{
    attempt *t =
        pool_take(&s->rqs.attempts, ai, sizeof *t, offsetof(attempt, gen));
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

/* Send an attempt the stack allowed: its timeout runs from now, it waits
 * for a connection or goes.  Inline in its callers, as to_server is in
 * it: a retry went through five calls (the dispatch, the send, launch,
 * to_server, the queue), each saving and restoring registers. */
SB_ALWAYS_INLINE static inline void launch(sim *s, requester *rq,
                                           const requester_ops *ops, bool top,
                                           uint32_t ri, request *r, bool hedge)
{
    uint32_t ai;
    attempt *t = attempt_new(s, ri, r, &ai);
    if (t == NULL)
        return;
    t->hedge = hedge;
    int64_t timeout = timeout_of(s, rq, top);
    if (r->deadline != NO_DEADLINE && r->deadline - s->now < timeout)
        timeout = r->deadline - s->now;
    t->expires = simtime_add(s->now, timeout);
    t->waiting = 1;
    r->outstanding++;
    r->refs++;
    metrics_of(s, rq, top)->cur->attempts++;
    if (ops->sent)
        ops->sent(rq, r, t);
    engine_push(s, t->expires, EV_TIMEOUT, ai, t->gen);
    if (take_connection(s, rq, r->process, ai)) {
        note_mode(s, top, r, CLIENT_WAITING);
        to_server(s, rq, top, ai, r, t);
    } else {
        t->stage = ST_POOL;
        note_mode(s, top, r, CLIENT_POOL_WAIT);
    }
}

/* The send of an attempt the stack is asked about (a layer has
 * before_send, or the request is traced). */
SB_NOINLINE static void send_asked(sim *s, requester *rq, bool top, uint32_t ri,
                                   request *r, bool hedge)
{
    if (allowed(s, rq, top, ri, r, hedge)) {
        if (top)
            launch(s, rq, &client_ops, true, ri, r, hedge);
        else
            launch(s, rq, rq->ops, false, ri, r, hedge);
    }
}

/* Send an attempt of request ri.  Inline, with launch, in the handlers:
 * as a call of its own it saved and restored registers and set up a
 * frame for the stack's answer at every attempt; the stack's path is out
 * of line. */
SB_ALWAYS_INLINE static inline void send_attempt(sim *s, requester *rq,
                                                 const requester_ops *ops,
                                                 bool top, uint32_t ri,
                                                 request *r, bool hedge)
{
    if (rq->asks_before_send || (r->flags & RQ_TRACED))
        send_asked(s, rq, top, ri, r, hedge);
    else
        launch(s, rq, ops, top, ri, r, hedge);
}

/* ---- Answers, timeouts and decisions ------------------------------------ */

bool request_waits(const sim *s, const attempt *t)
{
    return attempt_awaited(t, req_at(s, t->req));
}

/* Act on what was decided after a failure of request ri (r): a is the
 * attempt the stack was shown, hedge the hedge's send (DRIVER_HEDGE);
 * inline_end: the request's end is inline (see end_top). */
SB_ALWAYS_INLINE static inline void
act_after(sim *s, requester *rq, const requester_ops *ops, bool top,
          uint32_t ri, request *r, const driver_decided *nx,
          const sb_attempt *a, const driver_send *hedge, bool inline_end)
{
    switch (nx->step) {
    case DRIVER_HEDGE:
        /* The pending hedge goes now: its timer dies with the gen. */
        r->gen++;
        r->flags &= (uint8_t)~RQ_HEDGE_PENDING;
        if (act_on(s, rq, top, ri, r, true, hedge))
            launch(s, rq, ops, top, ri, r, true);
        break;
    case DRIVER_RETRY:
        r->gen++;
        r->flags &= (uint8_t)~RQ_HEDGE_PENDING;
        note_mode(s, top, r, CLIENT_BACKING_OFF);
        if (ops->retry_in)
            ops->retry_in(rq, ri, r, nx->delay_ns);
        if (nx->delay_ns == 0)
            engine_push_now(s, EV_SEND, ri, r->gen);
        else
            engine_push(s, simtime_add(s->now, nx->delay_ns), EV_SEND, ri,
                        r->gen);
        break;
    case DRIVER_END:
        if (inline_end)
            end_inline(s, rq, ops, top, ri, r, nx->outcome, SB_REFUSAL_OTHER,
                       nx->final.reason, a);
        else
            end(s, rq, top, ri, r, nx->outcome, SB_REFUSAL_OTHER,
                nx->final.reason, a);
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
 * request's end is inline (end_inline).  Inline in attempt_failed (out of
 * line: answers, and the other timeouts) and in attempt_timed_out, where
 * kind is a constant, and what a timeout does not carry (status, defect,
 * Retry-After, pushback) is not picked twice, in result_of and in
 * driver_fill. */
SB_ALWAYS_INLINE static inline void failed(sim *s, requester *rq,
                                           const requester_ops *ops, bool top,
                                           const attempt *t, uint32_t ri,
                                           request *r, sb_error_kind kind,
                                           bool no_hedge_trace_or_decision)
{
    bool quick = no_hedge_trace_or_decision;
    driver_request d = view(s, rq, top, r);
    driver_result res = result_of(t, kind);
    pstack_call call = call_for(s, rq, top, r, r->client);
    sb_attempt a;
    pstack_decision stack;
    driver_send hedge;
    driver_decided nx;
    int rc = quick ? driver_failure_no_hedge_no_decision(
                         rq->stack, &call, &d, s->now, &res, &a, &stack, &nx)
                   : driver_failure(rq->stack, &call, &d, s->now, &res, &a,
                                    &stack, &hedge, &nx);
    if (rc != 0) {
        engine_fail(s, pstack_error(rq->stack));
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
    act_after(s, rq, ops, top, ri, r, &nx, &a, quick ? NULL : &hedge, quick);
}

SB_NOINLINE static void attempt_failed_top(sim *s, const attempt *t,
                                           uint32_t ri, request *r,
                                           sb_error_kind kind)
{
    failed(s, &s->rqs.rq[0], &client_ops, true, t, ri, r, kind, false);
}

SB_NOINLINE static void attempt_failed_call(sim *s, requester *rq,
                                            const attempt *t, uint32_t ri,
                                            request *r, sb_error_kind kind)
{
    failed(s, rq, rq->ops, false, t, ri, r, kind, false);
}

static inline void attempt_failed(sim *s, requester *rq, bool top,
                                  const attempt *t, uint32_t ri, request *r,
                                  sb_error_kind kind)
{
    if (top)
        attempt_failed_top(s, t, ri, r, kind);
    else
        attempt_failed_call(s, rq, t, ri, r, kind);
}

/* The clients' timeout.  noipa: left to itself, the optimiser split t
 * into five of its fields, loaded in the loop and passed in registers
 * and on the stack; the pointers cost the loop less to hand over.  GCC's
 * attribute; clang has no such split, and noinline is what is left of it
 * there. */
SB_NOIPA static void attempt_timed_out_top(sim *s, const attempt *t,
                                           uint32_t ri, request *r)
{
    requester *rq = &s->rqs.rq[0];
    if (!(r->flags & (RQ_TRACED | RQ_HEDGE_PENDING)) && !rq->hears_decision)
        failed(s, rq, &client_ops, true, t, ri, r, SB_ERR_TIMEOUT, true);
    else
        attempt_failed_top(s, t, ri, r, SB_ERR_TIMEOUT);
}

static inline void attempt_timed_out(sim *s, requester *rq, bool top,
                                     const attempt *t, uint32_t ri, request *r)
{
    if (top)
        attempt_timed_out_top(s, t, ri, r);
    else
        attempt_failed_call(s, rq, t, ri, r, SB_ERR_TIMEOUT);
}

/* A success a layer or a trace hears of (attempt_succeeded). */
SB_NOINLINE static void heard_success(sim *s, requester *rq, bool top,
                                      const attempt *t, uint32_t ri, request *r)
{
    driver_request d = view(s, rq, top, r);
    driver_result res = result_of(t, SB_ERR_NONE);
    pstack_call call = call_for(s, rq, top, r, r->client);
    sb_attempt a;
    driver_on_success(rq->stack, &call, &d, s->now, &res, &a);
    if (r->flags & RQ_TRACED) {
        sim_trace tr = trace_record(s, r, TRACE_RESULT, &a);
        trace(s, &tr);
    }
    end(s, rq, top, ri, r, SB_OUTCOME_SUCCESS, SB_REFUSAL_OTHER, NULL, &a);
}

/* The policy's view of a success is built only when a layer or a trace
 * will read it: with none (immediate, fixed, exponential ...) building it
 * was a large share of a success's work.  Inline, that test and the
 * end. */
SB_ALWAYS_INLINE static inline void
attempt_succeeded(sim *s, requester *rq, const requester_ops *ops, bool top,
                  const attempt *t, uint32_t ri, request *r)
{
    if (rq->hears_success || (r->flags & RQ_TRACED))
        heard_success(s, rq, top, t, ri, r);
    else
        end_inline(s, rq, ops, top, ri, r, SB_OUTCOME_SUCCESS, SB_REFUSAL_OTHER,
                   NULL, NULL);
}

/* An answer reaches the requester.  An error answer that finds it
 * waiting ends its attempt, counted by its class (count_error); an answer
 * to an attempt nobody waits for any more ends nothing: that attempt
 * ended when its requester stopped waiting. */
SB_ALWAYS_INLINE static inline void on_response(sim *s, requester *rq,
                                                const requester_ops *ops,
                                                bool top, uint32_t ai,
                                                attempt *t, uint32_t gen)
{
    /* No answer is known sooner than the requester's own time for a
     * call. */
    int64_t earliest = simtime_add(t->sent, rq->call_time_ns);
    if (s->now < earliest && t->waiting) {
        engine_push(s, earliest, EV_RESPONSE, ai, gen);
        return;
    }
    t->stage = ST_GONE;
    uint32_t ri = t->req;
    request *r = req_at(s, ri);
    if (attempt_awaited(t, r)) {
        metrics *m = metrics_of(s, rq, top);
        t->waiting = 0;
        r->outstanding--;
        uint32_t process = r->process;
        metrics_attempt_latency(m, s->now - t->sent);
        if (ops->attempt_ended)
            ops->attempt_ended(rq, r, t);
        if (t->result == SB_ERR_NONE) {
            attempt_succeeded(s, rq, ops, top, t, ri, r);
        } else {
            count_error(m->cur, t);
            attempt_failed(s, rq, top, t, ri, r, (sb_error_kind)t->result);
        }
        give_connection(s, rq, top, process);
    } else if (t->waiting) {
        t->waiting = 0;
        give_connection(s, rq, top, r->process);
    }
    /* r is still t's request: t holds a reference to it. */
    engine_attempt_release_of(s, ai, t, r);
}

/* The callers' instances of each event's handler are out of line: the
 * clients' alone is inline in the event loop. */
SB_NOINLINE static void on_response_call(sim *s, requester *rq, uint32_t ai,
                                         attempt *t, uint32_t gen)
{
    on_response(s, rq, rq->ops, false, ai, t, gen);
}

void request_on_response(sim *s, uint32_t ai, uint32_t gen)
{
    attempt *t = att_at(s, ai);
    if (t->gen != gen || t->stage != ST_TO_CLIENT)
        return;
    unsigned who = req_at(s, t->req)->caller;
    if (who == 0)
        on_response(s, &s->rqs.rq[0], &client_ops, true, ai, t, gen);
    else
        on_response_call(s, &s->rqs.rq[who], ai, t, gen);
}

SB_ALWAYS_INLINE static inline void on_timeout(sim *s, requester *rq,
                                               const requester_ops *ops,
                                               bool top, uint32_t ai,
                                               attempt *t)
{
    t->waiting = 0;
    uint32_t ri = t->req;
    request *r = req_at(s, ri);
    uint32_t process = r->process;
    bool pooled = t->stage == ST_POOL;
    if (!(r->flags & RQ_FINISHED)) {
        metrics *m = metrics_of(s, rq, top);
        r->outstanding--;
        m->cur->timeouts++;
        metrics_attempt_latency(m, s->now - t->sent);
        if (ops->attempt_ended)
            ops->attempt_ended(rq, r, t);
        attempt_timed_out(s, rq, top, t, ri, r);
    }
    /* An attempt still waiting for a connection holds none; the pool
     * drops it when its turn comes. */
    if (!pooled) {
        give_connection(s, rq, top, process);
        engine_attempt_release_of(s, ai, t, r);
    }
}

SB_NOINLINE static void on_timeout_call(sim *s, requester *rq, uint32_t ai,
                                        attempt *t)
{
    on_timeout(s, rq, rq->ops, false, ai, t);
}

void request_on_timeout(sim *s, uint32_t ai, uint32_t gen)
{
    attempt *t = att_at(s, ai);
    if (t->gen != gen || !t->waiting)
        return;
    unsigned who = req_at(s, t->req)->caller;
    if (who == 0)
        on_timeout(s, &s->rqs.rq[0], &client_ops, true, ai, t);
    else
        on_timeout_call(s, &s->rqs.rq[who], ai, t);
}

/* A retry is due: send it, unless the one who wanted it has gone. */
SB_ALWAYS_INLINE static inline void on_send(sim *s, requester *rq,
                                            const requester_ops *ops, bool top,
                                            uint32_t ri, request *r)
{
    if (ops->wanted && !ops->wanted(rq, ri)) {
        end(s, rq, top, ri, r, SB_OUTCOME_GAVE_UP, SB_REFUSAL_OTHER, NULL,
            NULL);
        return;
    }
    send_attempt(s, rq, ops, top, ri, r, false);
}

SB_NOINLINE static void on_send_call(sim *s, requester *rq, uint32_t ri,
                                     request *r)
{
    on_send(s, rq, rq->ops, false, ri, r);
}

void request_on_send(sim *s, uint32_t ri, uint32_t gen)
{
    request *r = req_at(s, ri);
    if (r->gen != gen || (r->flags & RQ_FINISHED))
        return;
    if (r->caller == 0)
        on_send(s, &s->rqs.rq[0], &client_ops, true, ri, r);
    else
        on_send_call(s, requester_of(s, r), ri, r);
}

/* A hedge is due.  Only the clients hedge (a caller refuses a hedge
 * layer): its send goes the way of a send the stack is asked about. */
void request_on_hedge(sim *s, uint32_t ri, uint32_t gen)
{
    request *r = req_at(s, ri);
    if (r->gen != gen)
        return;
    r->flags &= (uint8_t)~RQ_HEDGE_PENDING;
    if ((r->flags & RQ_FINISHED) || r->outstanding == 0)
        return;
    send_asked(s, requester_of(s, r), r->caller == 0, ri, r, true);
}

/* ---- Starting and abandoning ------------------------------------------- */

request *request_new(requester *rq, uint32_t client, uint32_t *ri)
{
    sim *s = rq->s;
    request *r = request_take(&s->rqs, rq, client, s->now, ri);
    if (r == NULL)
        engine_fail(s, "out of memory for requests");
    return r;
}

SB_ALWAYS_INLINE static inline void start(sim *s, requester *rq,
                                          const requester_ops *ops, bool top,
                                          uint32_t ri, request *r)
{
    metrics_of(s, rq, top)->cur->offered++;
    if (r->deadline <= s->now) {
        /* Whoever wanted it has given up already: nothing is sent. */
        end(s, rq, top, ri, r, SB_OUTCOME_DEADLINE, SB_REFUSAL_OTHER, NULL,
            NULL);
        return;
    }
    send_attempt(s, rq, ops, top, ri, r, false);
}

void request_start(sim *s, uint32_t ri, request *r)
{
    requester *rq = requester_of(s, r);
    if (r->caller == 0)
        start(s, rq, &client_ops, true, ri, r);
    else
        start(s, rq, rq->ops, false, ri, r);
}

void request_start_client(sim *s, uint32_t ri, request *r)
{
    start(s, &s->rqs.rq[0], &client_ops, true, ri, r);
}

void request_abandon(sim *s, uint32_t ri)
{
    request *r = req_at(s, ri);
    if (r->flags & RQ_FINISHED)
        return;
    end(s, requester_of(s, r), r->caller == 0, ri, r, SB_OUTCOME_GAVE_UP,
        SB_REFUSAL_OTHER, NULL, NULL);
}

void request_released(sim *s, uint32_t ri, const request *r)
{
    requester *rq = requester_of(s, r);
    if (rq->ops->released)
        rq->ops->released(rq, ri);
}

/* ---- Requesters ------------------------------------------------------------- */

void requests_init(request_table *q, size_t request_state)
{
    pool_init(&q->requests, REQUEST_HEAD + request_state);
    pool_init(&q->attempts, sizeof(attempt));
}

void requests_reset(request_table *q, size_t request_state)
{
    for (uint32_t i = 0; i < q->n_requesters; i++)
        requester_fini(&q->rq[i]);
    memset(q->rq, 0, sizeof q->rq);
    q->n_requesters = 0;
    pool_reset(&q->requests, REQUEST_HEAD + request_state);
    pool_reset(&q->attempts, sizeof(attempt));
}

void requests_fit_state(request_table *q, size_t request_state)
{
    assert(q->requests.next_new == 0);
    if (REQUEST_HEAD + request_state > q->requests.stride)
        pool_reset(&q->requests, REQUEST_HEAD + request_state);
}

void requests_fini(request_table *q)
{
    for (uint32_t i = 0; i < q->n_requesters; i++)
        requester_fini(&q->rq[i]);
    pool_fini(&q->requests);
    pool_fini(&q->attempts);
}

/* A copy of n bytes of src into *dst, or NULL for none; -1 out of
 * memory. */
static int dup_block(void *dst_, const void *src, size_t n)
{
    void **dst = dst_;
    *dst = NULL;
    if (src == NULL || n == 0)
        return 0;
    if ((*dst = malloc(n)) == NULL)
        return -1;
    memcpy(*dst, src, n);
    return 0;
}

static int clone_pools(requester *rq, const requester *src)
{
    if (src->pools == NULL)
        return 0;
    rq->pools = calloc(rq->n_processes, sizeof *rq->pools);
    if (rq->pools == NULL)
        return -1;
    for (uint32_t p = 0; p < rq->n_processes; p++) {
        rq->pools[p] = src->pools[p];
        if (dup_block(&rq->pools[p].waiting, src->pools[p].waiting,
                      src->pools[p].cap * sizeof(uint32_t)) != 0)
            return -1;
    }
    return 0;
}

/* rq (a copy of src by value) gets heap blocks of its own and its stack;
 * a caller's own stack is built only from built-in policies (caller.h),
 * so it holds no plug-in to load again. */
static int clone_requester(requester *rq, const requester *src, sim *s,
                           pstack *ps, sb_err *e)
{
    rq->s = s;
    rq->client_state = rq->process_state = NULL;
    rq->draws = NULL;
    rq->pools = NULL;
    memset(&rq->ps, 0, sizeof rq->ps);
    if (src->owns_stack) {
        assert(src->ps.n_plugins == 0);
        if (pstack_clone(src->ps.stack, &rq->ps.stack, e) != 0)
            return -1;
        rq->stack = rq->ps.stack;
    } else {
        rq->stack = ps;
    }
    if (!src->shares_clients_state &&
        (dup_block(&rq->draws, src->draws,
                   (size_t)src->n_clients * sizeof *src->draws) != 0 ||
         dup_block(&rq->client_state, src->client_state,
                   (size_t)src->n_clients * src->client_stride) != 0 ||
         dup_block(&rq->process_state, src->process_state,
                   (size_t)src->n_processes * src->process_stride) != 0 ||
         clone_pools(rq, src) != 0))
        return err_set(e, "out of memory for a copy of %s", src->name);
    return 0;
}

int requests_clone(sim *s, const sim *src, pstack *ps, sb_err *e)
{
    request_table *q = &s->rqs;
    const request_table *from = &src->rqs;
    const pstack *old = from->rq[0].stack;
    if (pstack_process_state_size(ps) != pstack_process_state_size(old) ||
        pstack_client_state_size(ps) != pstack_client_state_size(old) ||
        pstack_request_state_size(ps) != pstack_request_state_size(old))
        return err_set(e,
                       "a copy of a run needs a policy stack laid out as "
                       "the run's ('%s' is not '%s')",
                       pstack_name(ps), pstack_name(old));
    if (pool_clone(&q->requests, &from->requests) != 0 ||
        pool_clone(&q->attempts, &from->attempts) != 0)
        return err_set(e, "out of memory for a copy of the run's records");
    for (uint32_t i = 0; i < from->n_requesters; i++) {
        q->rq[i] = from->rq[i];
        q->n_requesters = i + 1;
        if (clone_requester(&q->rq[i], &from->rq[i], s, ps, e) != 0)
            return -1;
    }
    return 0;
}

requester *requester_add(sim *s, const char *name, const requester_ops *ops,
                         sb_err *e)
{
    request_table *q = &s->rqs;
    if (q->n_requesters == SIM_MAX_CALLERS + 1) {
        err_set(e, "more than %d callers (tiers and pipeline steps)",
                SIM_MAX_CALLERS);
        return NULL;
    }
    requester *rq = &q->rq[q->n_requesters];
    memset(rq, 0, sizeof *rq);
    rq->s = s;
    rq->id = (uint8_t)q->n_requesters++;
    rq->name = name;
    rq->ops = rq->id == 0 ? &client_ops : ops;
    rq->connections = SIM_UNLIMITED;
    rq->host.struct_size = sizeof rq->host;
    rq->host.uniform = host_uniform;
    rq->host.breaker = host_breaker;
    rq->host.level = host_level;
    return rq;
}

void requester_rename(sim *s, uint8_t id, const char *name)
{
    s->rqs.rq[id].name = name;
}

void requester_set_stack(requester *rq, pstack *stack)
{
    unsigned hooks = pstack_hooks(stack);
    rq->stack = stack;
    rq->asks_before_send = (hooks & PSTACK_HOOK_BEFORE_SEND) != 0;
    rq->hears_success =
        (hooks & (PSTACK_HOOK_ON_SUCCESS | PSTACK_HOOK_ON_REQUEST_END)) != 0;
    rq->hears_end = (hooks & PSTACK_HOOK_ON_REQUEST_END) != 0;
    rq->hears_decision = (hooks & PSTACK_HOOK_ON_DECISION) != 0;
    rq->request_state_size = pstack_request_state_size(stack);
}

void requester_share_clients(requester *rq)
{
    const requester *c = &rq->s->rqs.rq[0];
    requester_set_stack(rq, c->stack);
    rq->shares_clients_state = true;
    rq->n_clients = c->n_clients;
    rq->n_processes = c->n_processes;
}

/* A process's first client: the one its process_init is told of. */
static uint32_t first_client(const requester *rq, uint32_t p)
{
    return (uint32_t)(((uint64_t)p * rq->n_clients + rq->n_processes - 1) /
                      rq->n_processes);
}

int requester_start_state(requester *rq, uint32_t n_clients,
                          uint32_t n_processes, uint32_t connections, sb_err *e)
{
    pstack *ps = rq->stack;
    rq->n_clients = n_clients;
    rq->n_processes = n_processes ? n_processes : n_clients;
    if (rq->n_processes > n_clients)
        rq->n_processes = n_clients;
    rq->client_stride = pstack_client_state_size(ps);
    rq->process_stride = pstack_process_state_size(ps);
    rq->draws = calloc(n_clients, sizeof *rq->draws);
    if (rq->client_stride)
        rq->client_state = calloc(n_clients, rq->client_stride);
    if (rq->process_stride)
        rq->process_state = calloc(rq->n_processes, rq->process_stride);
    rq->connections = connections;
    if (connections != SIM_UNLIMITED)
        rq->pools = calloc(rq->n_processes, sizeof *rq->pools);
    if (rq->draws == NULL || (rq->client_stride && !rq->client_state) ||
        (rq->process_stride && !rq->process_state) ||
        (connections != SIM_UNLIMITED && !rq->pools))
        return err_set(e, "out of memory for %s", rq->name);
    for (uint32_t p = 0; p < rq->n_processes; p++) {
        pstack_call call =
            call_for(rq->s, rq, false, NULL, first_client(rq, p));
        call.process = p;
        call.client_state = NULL;
        pstack_process_init(ps, &call);
    }
    for (uint32_t c = 0; c < n_clients; c++) {
        pstack_call call = call_for(rq->s, rq, false, NULL, c);
        pstack_client_init(ps, &call);
    }
    return 0;
}

void requester_fini(requester *rq)
{
    if (rq->owns_stack && rq->ps.stack)
        policy_setup_free(&rq->ps);
    free(rq->client_state);
    free(rq->process_state);
    free(rq->draws);
    if (rq->pools)
        for (uint32_t p = 0; p < rq->n_processes; p++)
            free(rq->pools[p].waiting);
    free(rq->pools);
    memset(rq, 0, sizeof *rq);
}

/* ---- Invariants ------------------------------------------------------------- */

static bool requester_sane(const request_table *q, uint32_t i)
{
    const requester *rq = &q->rq[i];
    if (rq->id != i || rq->ops == NULL || rq->stack == NULL)
        return false;
    if (rq->n_processes < 1 || rq->n_processes > rq->n_clients)
        return false;
    if (rq->shares_clients_state)
        return i > 0 && rq->client_state == NULL && rq->draws == NULL;
    if (rq->draws == NULL || (rq->client_stride && !rq->client_state) ||
        (rq->process_stride && !rq->process_state))
        return false;
    if (rq->pools)
        for (uint32_t p = 0; p < rq->n_processes; p++)
            if (rq->pools[p].busy > rq->connections ||
                rq->pools[p].len > rq->pools[p].cap)
                return false;
    unsigned hooks = pstack_hooks(rq->stack);
    return rq->asks_before_send == ((hooks & PSTACK_HOOK_BEFORE_SEND) != 0) &&
           rq->hears_end == ((hooks & PSTACK_HOOK_ON_REQUEST_END) != 0) &&
           rq->hears_decision == ((hooks & PSTACK_HOOK_ON_DECISION) != 0);
}

/* Which records of pool p are free (on its free list): a table of
 * p->next_new flags, NULL when out of memory. */
static bool *free_records(const pool *p)
{
    bool *free_ = calloc(p->next_new ? p->next_new : 1, sizeof *free_);
    if (free_ != NULL)
        for (size_t i = 0; i < p->n_free; i++)
            free_[p->free_list[i]] = true;
    return free_;
}

/* Every live attempt belongs to a live request, and its requester waits
 * for it or the server (or the network) holds it; held[] counts each
 * request's live attempts, waiting[] those it waits for. */
static bool attempts_sane(const request_table *q, const bool *free_att,
                          uint32_t *held, uint32_t *waiting)
{
    for (uint32_t i = 0; i < q->attempts.next_new; i++) {
        if (free_att[i])
            continue;
        const attempt *t = pool_at(&q->attempts, i);
        if (t->req >= q->requests.next_new)
            return false;
        const request *r = pool_at(&q->requests, t->req);
        if (r->refs == 0 || t->number < 1 || t->number > r->attempts ||
            (!t->waiting && t->stage == ST_GONE))
            return false;
        held[t->req]++;
        waiting[t->req] += t->waiting;
    }
    return true;
}

bool requests_sane(const sim *s)
{
    const request_table *q = &s->rqs;
    if (q->n_requesters < 1)
        return false;
    for (uint32_t i = 0; i < q->n_requesters; i++)
        if (!requester_sane(q, i))
            return false;
    uint32_t n = q->requests.next_new;
    uint32_t *held = calloc(n ? n : 1, sizeof *held);
    uint32_t *waiting = calloc(n ? n : 1, sizeof *waiting);
    bool *free_att = free_records(&q->attempts);
    bool *free_req = free_records(&q->requests);
    bool ok = true; /* nothing can be said without memory */
    if (held && waiting && free_att && free_req) {
        ok = attempts_sane(q, free_att, held, waiting);
        for (uint32_t i = 0; i < n && ok; i++) {
            const request *r = pool_at(&q->requests, i);
            if (free_req[i]) {
                ok = r->refs == 0;
                continue;
            }
            bool open = !(r->flags & RQ_FINISHED);
            ok = r->caller < q->n_requesters && r->refs == held[i] + open &&
                 (!open || r->outstanding == waiting[i]);
        }
    }
    free(held);
    free(waiting);
    free(free_att);
    free(free_req);
    return ok;
}
