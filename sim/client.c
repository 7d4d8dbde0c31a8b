/*
 * client.c -- the clients: when requests arrive, how attempts are sent,
 * what happens to answers and timeouts, and the policy stack asked at
 * each step.  A policy is told only what a real client would know.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* ---- The host interface policies see ------------------------------------ */

static double host_uniform(const sb_ctx *ctx)
{
    sim *s = ctx->host_data;
    uint32_t n = s->policy_draws[ctx->client]++;
    return engine_unit_draw(s, ctx->client, RNG_POLICY, n);
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

/* Fill the outcome part of a from attempt t's server_answer (or its timeout).
 */
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
    a->retry_after_s =
        t->retry_after >= 0 ? (double)t->retry_after / 1e9 : -1.0;
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

/* ---- Requests: start and finish ------------------------------------------ */

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
static void finish(sim *s, uint32_t ri, sb_outcome outcome, const sb_attempt *a)
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
        sim_trace t = trace_record(s, r, TRACE_END, a);
        t.outcome = outcome;
        trace(s, &t);
    }
    if (s->cfg->clients.arrival == ARRIVAL_CLOSED)
        client_schedule_arrival(s, r->client);
    s->last_finish = s->now;
    engine_request_release(s, ri);
}

static void send_attempt(sim *s, uint32_t ri, bool hedge);

static void start_request(sim *s, uint32_t c, uint32_t k)
{
    uint32_t ri;
    if (pool_alloc(&s->requests, &ri) != 0) {
        engine_fail(s, "out of memory for requests");
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
    r->op = u < cc->mix[0]                ? SB_OP_READ
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
        return (int64_t)(rng_unit(rng_at(rng_key(s->seed, c, RNG_ARRIVAL), 0)) *
                         (double)cc->start_window_ns);
    if (cc->arrival == ARRIVAL_CLOSED)
        return round_ns(
            (double)engine_sample(s, &cc->think, c, RNG_ARRIVAL, k) / s->spike);
    double mean = 1e9 / (cc->rate_per_s * s->spike);
    uint64_t x = rng_at(rng_key(s->seed, c, RNG_ARRIVAL), k);
    return round_ns(rng_exponential(x, mean));
}

void client_schedule_arrival(sim *s, uint32_t c)
{
    int64_t gap = arrival_gap(s, c, s->next_request[c]);
    engine_push(s, s->now + gap, EV_ARRIVAL, c, 0);
}

void client_on_arrival(sim *s, uint32_t c)
{
    uint32_t k = s->next_request[c]++;
    if (s->cfg->clients.arrival == ARRIVAL_OPEN)
        client_schedule_arrival(s, c);
    start_request(s, c, k);
}

/* ---- Sending --------------------------------------------------------------
 */

static void to_server(sim *s, uint32_t ai, request *r, attempt *t);

static bool refused_locally(sim *s, uint32_t ri, bool hedge)
{
    request *r = req_at(s, ri);
    if (!s->asks_before_send && !(r->flags & RQ_TRACED))
        return false;
    sb_attempt a;
    info_for(s, r, r->attempts + 1, &a);
    a.hedge = hedge;
    pstack_call call = call_for(s, r, r->client);
    pstack_verdict v;
    if (pstack_before_send(s->ps, &call, &a, &v) != 0) {
        engine_fail(s, pstack_error(s->ps));
        return true;
    }
    if (r->flags & RQ_TRACED) {
        sim_trace t = trace_record(s, r, TRACE_SEND, &a);
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
        engine_push(s, s->now + round_ns(v.v.hedge_after_s * 1e9),
                    EV_HEDGE, ri, r->gen);
    return false;
}

static void send_attempt(sim *s, uint32_t ri, bool hedge)
{
    if (refused_locally(s, ri, hedge))
        return;
    request *r = req_at(s, ri);
    uint32_t ai;
    if (pool_alloc(&s->attempts, &ai) != 0) {
        engine_fail(s, "out of memory for attempts");
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
    engine_push_lane(s, LANE_TIMEOUT, t->expires, EV_TIMEOUT, ai, t->gen);
    to_server(s, ai, r, t);
}

/* Is client c cut off by a running partition?  Membership is a pure
 * function of (seed, client, fault), so the same clients are cut off
 * under every policy. */
static int cut_off(const sim *s, uint32_t c)
{
    for (unsigned i = 0; i < s->n_cuts; i++) {
        const fault_cfg *f = &s->faults[s->cuts[i]];
        if (engine_unit_draw(s, c, RNG_PARTITION, s->cuts[i]) < f->fraction)
            return (int)f->mode;
    }
    return -1;
}

static void to_server(sim *s, uint32_t ai, request *r, attempt *t)
{
    int cut = s->n_cuts ? cut_off(s, r->client) : -1;
    if (cut == CUT_REFUSE) {
        server_answer(s, ai, SB_ERR_REFUSED, 0, -1, false);
        return;
    }
    if (cut == CUT_BLACKHOLE) {
        t->stage = ST_GONE;
        return;
    }
    t->stage = ST_TO_SERVER;
    engine_push_lane(s, LANE_TO_SERVER, s->now + engine_net_delay(s, r, t, 0),
                     EV_SERVER_ARRIVE, ai, t->gen);
}

/* ---- Answers, timeouts and decisions ------------------------------------ */

bool client_waits(const sim *s, const attempt *t)
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
        int64_t delay = round_ns(d->d.delay_s * 1e9);
        if (r->attempts >= MAX_ATTEMPTS_PER_REQUEST) {
            finish(s, ri, SB_OUTCOME_GAVE_UP, a);
        } else if (r->deadline != NO_DEADLINE &&
                   s->now + delay >= r->deadline) {
            /* The client would wake after its deadline: it fails now. */
            finish(s, ri, SB_OUTCOME_DEADLINE, a);
        } else {
            r->gen++;
            if (delay == 0)
                engine_push_lane(s, LANE_NOW, s->now, EV_SEND, ri, r->gen);
            else
                engine_push(s, s->now + delay, EV_SEND, ri, r->gen);
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
        engine_fail(s, pstack_error(s->ps));
        return;
    }
    /* While a hedge of this request still waits, one failure does not
     * end it: the decision is taken when the last attempt fails. */
    bool ignored = r->outstanding > 0;
    if (r->flags & RQ_TRACED) {
        sim_trace tr = trace_record(s, r, TRACE_RESULT, &a);
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
    if (r->flags & RQ_TRACED) {
        sim_trace tr = trace_record(s, r, TRACE_RESULT, &a);
        trace(s, &tr);
    }
    finish(s, t->req, SB_OUTCOME_SUCCESS, &a);
}

void client_on_response(sim *s, uint32_t ai, uint32_t gen)
{
    attempt *t = att_at(s, ai);
    if (t->gen != gen || t->stage != ST_TO_CLIENT)
        return;
    t->stage = ST_GONE;
    if (client_waits(s, t)) {
        t->waiting = 0;
        req_at(s, t->req)->outstanding--;
        metrics_attempt_latency(&s->m, s->now - t->sent);
        if (t->result == SB_ERR_NONE)
            attempt_succeeded(s, ai);
        else
            attempt_failed(s, ai, (sb_error_kind)t->result);
    } else {
        t->waiting = 0;
    }
    engine_attempt_release(s, ai);
}

void client_on_timeout(sim *s, uint32_t ai, uint32_t gen)
{
    attempt *t = att_at(s, ai);
    if (t->gen != gen || !t->waiting)
        return;
    t->waiting = 0;
    request *r = req_at(s, t->req);
    if (!(r->flags & RQ_FINISHED)) {
        r->outstanding--;
        s->m.cur->timeouts++;
        metrics_attempt_latency(&s->m, s->now - t->sent);
        attempt_failed(s, ai, SB_ERR_TIMEOUT);
    }
    engine_attempt_release(s, ai);
}

void client_on_send(sim *s, uint32_t ri, uint32_t gen)
{
    request *r = req_at(s, ri);
    if (r->gen != gen || (r->flags & RQ_FINISHED))
        return;
    send_attempt(s, ri, false);
}

void client_on_hedge(sim *s, uint32_t ri, uint32_t gen)
{
    request *r = req_at(s, ri);
    if (r->gen != gen || (r->flags & RQ_FINISHED) || r->outstanding == 0)
        return;
    send_attempt(s, ri, true);
}

int client_start_all(sim *s, sb_err *e)
{
    s->asks_before_send = pstack_has_before_send(s->ps);
    s->host.struct_size = sizeof s->host;
    s->host.uniform = host_uniform;
    s->host.breaker = host_breaker;
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
        client_schedule_arrival(s, c);
    }
    return s->failed ? err_set(e, "%s", s->error) : 0;
}
