/*
 * server.c -- the modeled server: admission (outage, rate limit, injected
 * errors, the queue bound), the FIFO queue, service with overload
 * degradation, commits and deduplication, and answers.
 */
#include <math.h>
#include <stdlib.h>

#include "engine.h"

/* Send an answer back.  From the server it takes the network delay plus
 * any latency fault; a refusal made by the client's own network stack (a
 * partition) arrives at once. */
void server_answer(sim *s, uint32_t ai, sb_error_kind kind, int32_t status,
                   int64_t retry_after, bool via_network)
{
    attempt *t = att_at(s, ai);
    request *r = req_at(s, t->req);
    t->result = (uint8_t)kind;
    t->status = status;
    t->retry_after = retry_after;
    t->stage = ST_TO_CLIENT;
    int64_t back = via_network ? engine_net_delay(s, r, t, 1) + s->latency : 0;
    engine_push_lane(s, LANE_TO_CLIENT, s->now + back, EV_RESPONSE, ai, t->gen);
}

void server_drop(sim *s, uint32_t ai)
{
    att_at(s, ai)->stage = ST_GONE;
    engine_attempt_release(s, ai);
}

void server_refill_tokens(sim *s)
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
    server_refill_tokens(s);
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
        if (engine_unit_draw(s, r->client, RNG_FAULT + fi, ctr) <
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
            engine_fail(s, "out of memory for the server queue");
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

/* The next attempt to serve: the oldest (FIFO), or the newest (LIFO: under
 * overload the newest are the ones whose clients are still waiting, the
 * idea behind Facebook's adaptive LIFO).  The crash path always empties
 * the queue whatever the order. */
static uint32_t dequeue(sim *s)
{
    uint32_t ai;
    if (s->cfg->server.queue_order == QUEUE_LIFO) {
        ai = s->queue[(s->q_head + s->q_len - 1) % s->q_cap];
    } else {
        ai = s->queue[s->q_head];
        s->q_head = (s->q_head + 1) % s->q_cap;
    }
    s->q_len--;
    metrics_set_queue(&s->m, s->now, (uint32_t)s->q_len);
    return ai;
}

void server_on_arrive(sim *s, uint32_t ai, uint32_t gen)
{
    attempt *t = att_at(s, ai);
    if (t->gen != gen || t->stage != ST_TO_SERVER)
        return;
    const server_cfg *sc = &s->cfg->server;
    if (s->outage >= 0) {
        s->m.cur->rejections++;
        if (s->outage == CUT_REFUSE)
            server_answer(s, ai, SB_ERR_REFUSED, 0, -1, true);
        else
            server_drop(s, ai);
        return;
    }
    int64_t retry_after = rate_limited(s);
    if (retry_after > 0) {
        s->m.cur->rejections++;
        server_answer(s, ai, SB_ERR_HTTP, 429, retry_after, true);
        return;
    }
    const fault_cfg *f =
        s->n_errors ? error_fault(s, req_at(s, t->req), t) : NULL;
    if (f) {
        s->m.cur->errors++;
        server_answer(s, ai, f->kind, f->status,
                      f->retry_after_ns > 0 ? f->retry_after_ns : -1, true);
        t->pushback = f->pushback;
        t->pushback_ms = f->pushback_ms;
        return;
    }
    if (s->busy < s->workers) {
        start_service(s, ai);
    } else if (sc->queue_limit == SIM_UNLIMITED || s->q_len < sc->queue_limit) {
        enqueue(s, ai);
    } else {
        s->m.cur->rejections++;
        if (sc->overflow == OVERFLOW_DROP)
            server_drop(s, ai);
        else
            server_answer(s, ai, SB_ERR_HTTP, 503,
                          sc->overflow_retry_after_ns > 0
                              ? sc->overflow_retry_after_ns
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
            engine_fail(s, "out of memory for the server");
            return;
        }
        s->in_service = v;
        s->svc_cap = cap;
    }
    metrics_gauge(&s->m, s->now);
    t->slot = s->busy;
    s->in_service[s->busy++] = ai;
    s->m.busy = s->busy;
    double base =
        (double)engine_sample(s, &sc->service, r->client, RNG_SERVICE,
                              rng_attempt_counter(r->index, t->number, 0));
    double thrash = 1.0;
    if (sc->degradation > 0 && s->busy > sc->degradation_knee)
        thrash += sc->degradation * (double)(s->busy - sc->degradation_knee);
    t->service = round_ns(base * s->slowdown * thrash);
    t->read_version = s->record_version;
    if (t->stage == ST_QUEUED) {
        s->m.total.queue_wait_sum_ns += s->now - t->enqueued;
    }
    s->m.total.queue_waits++;
    t->stage = ST_IN_SERVICE;
    engine_push(s, s->now + t->service, EV_SERVICE_DONE, ai, t->gen);
}

/* Start queued attempts while workers are free; a drop_expired server
 * skips the ones whose caller has already given up on them. */
void server_dispatch_queue(sim *s)
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
        if (engine_unit_draw(s, r->client, RNG_FAULT + fi, ctr) <
            s->faults[fi].probability)
            return true;
    }
    return false;
}

void server_on_service_done(sim *s, uint32_t ai, uint32_t gen)
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
    int64_t back = engine_net_delay(s, r, t, 1) + s->latency;
    /* Wasted: nobody will use this answer -- the client stopped waiting,
     * the answer is lost, or it will arrive after the client's timeout. */
    if (lost || !client_waits(s, t) || s->now + back >= t->expires)
        s->m.cur->wasted_ns += t->service;
    if (lost) {
        s->m.cur->lost_acks++;
        server_drop(s, ai);
    } else {
        t->stage = ST_TO_CLIENT;
        engine_push_lane(s, LANE_TO_CLIENT, s->now + back, EV_RESPONSE, ai,
                         t->gen);
    }
    server_dispatch_queue(s);
}

/* Connections die with the server: queued and in-service attempts are
 * reset (refuse) or vanish (blackhole). */
void server_crash(sim *s, int mode)
{
    metrics_gauge(&s->m, s->now);
    while (s->q_len > 0) {
        uint32_t ai = dequeue(s);
        if (mode == CUT_REFUSE)
            server_answer(s, ai, SB_ERR_RESET, 0, -1, true);
        else
            server_drop(s, ai);
    }
    /* In-service attempts: their SERVICE_DONE events are skipped because
     * the stage moves on. */
    while (s->busy > 0) {
        uint32_t ai = s->in_service[--s->busy];
        if (mode == CUT_REFUSE)
            server_answer(s, ai, SB_ERR_RESET, 0, -1, true);
        else
            server_drop(s, ai);
    }
    s->m.busy = 0;
}
