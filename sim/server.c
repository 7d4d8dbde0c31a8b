/*
 * server.c -- the shared core of a modeled server (server.h): admission,
 * the queue, workers, service with overload degradation, commits and
 * deduplication, answers; and the plain queue model.
 *
 * Why one core with three small hooks rather than a table of whole event
 * handlers per model: the models differ only in which distribution a
 * service is drawn from and in what a request does to the data when its
 * service starts and ends (the two-round-trip update also answers its
 * read before its write comes).  Admission, queueing, workers, faults,
 * commits, lost answers and wasted work are the same for all, and whole
 * handlers would copy them into each model.
 */
#include "server.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tier.h"

/* Invariants (server_sane):
 *   in_service[0 .. busy) are the attempts in service, each in stage
 *   ST_IN_SERVICE with `slot` its index there;
 *   while down (down >= 0) nothing is queued or in service;
 *   while up, an attempt waits in the queue only when every worker is
 *   busy (q_len > 0 implies busy >= workers), so the queue needs
 *   dispatching only when a worker frees up or workers are added;
 *   the cached flags are what note_features and note_gate make of the
 *   fields they read (cache_sane): each setter that changes such a field
 *   calls the one that recomputes them. */
struct server {
    sim *s;                        /* borrowed: records, events, draws */
    const server_cfg *cfg;         /* borrowed */
    const server_model_ops *model; /* one of the tables; not owned */
    metrics *m;                    /* borrowed: where it counts and gauges */
    void *model_state;             /* model->state_size bytes, or NULL */
    uint32_t workers;              /* now, after capacity faults */
    uint32_t busy;
    uint32_t *queue;             /* ring of attempt ids */
    size_t q_head, q_len, q_cap; /* q_cap: 0 or a power of two */
    uint32_t *in_service;        /* attempt ids, unordered */
    size_t svc_cap;
    int down;        /* -1 up, or CUT_REFUSE / CUT_BLACKHOLE */
    double slowdown; /* service multiplier */
    int64_t latency; /* added to every answer */
    double tokens;   /* the rate limiter's bucket */
    int64_t tokens_t;
    double limit_rate; /* 0: none */
    double limit_burst;
    /* Tiers (tier.h): its place in a chain.  stream is added to its
     * random streams (0 for the top tier, so a single server draws as it
     * always did); a server that calls down holds an attempt's worker
     * after its own service, until tier_call_down's call ends. */
    unsigned stream;
    uint8_t tier;
    bool calls_down;
    /* A service time is the configured distribution's draw as it is:
     * the model picks no distribution and notes no start, no slowdown
     * runs and nothing degrades (note_features keeps it). */
    bool service_is_draw;
    /* An outage, a rate limit or an error fault is running: arrivals
     * pass gate() (kept by note_gate; one test instead of three per
     * arrival). */
    bool gated;
    /* A service's end needs no hook: no call down, no model hook at the
     * end (note_features). */
    bool end_without_hooks;
    /* From the configuration, which does not change during a run: kept
     * here, beside the fields the hot paths read, so that no path loads
     * cfg for them. */
    bool lifo;      /* queue_order is QUEUE_LIFO */
    bool judge;     /* drop_expired or drop_late: queued ones are judged */
    size_t q_limit; /* queue_limit, SIZE_MAX when unlimited */
    /* The delay of every answer when the network is a constant: its
     * delay plus the latency fault's; -1 when the network draws. */
    int64_t back_const;
};

static void note_features(server *sv);
static void note_gate(server *sv);

/* The cached flags are what note_features and note_gate would set now:
 * neither was left stale by a change that should have recomputed it. */
static bool cache_sane(const server *sv)
{
    server now = *sv;
    note_features(&now);
    note_gate(&now);
    return now.service_is_draw == sv->service_is_draw &&
           now.end_without_hooks == sv->end_without_hooks &&
           now.back_const == sv->back_const && now.gated == sv->gated;
}

/* The invariants above, which cost O(1) to check: asserted after every
 * change in debug builds, and by sim_sane in the tests. */
bool server_sane(const server *sv)
{
    if (sv->busy > sv->svc_cap || sv->q_len > sv->q_cap || !cache_sane(sv))
        return false;
    if (sv->down >= 0)
        return sv->busy == 0 && sv->q_len == 0;
    return sv->q_len == 0 || sv->busy >= sv->workers;
}

/* What start_service may skip: recomputed whenever the model or the
 * slowdown changes (the configuration does not, during a run). */
static void note_features(server *sv)
{
    sv->end_without_hooks = !sv->calls_down && sv->model->end == NULL;
    sv->service_is_draw = sv->model->service == NULL &&
                          sv->model->start == NULL && sv->slowdown == 1.0 &&
                          !(sv->cfg->degradation > 0);
    sv->back_const = sv->cfg->network.kind == DIST_CONST
                         ? simtime_add(sv->cfg->network.mean_ns, sv->latency)
                         : -1;
}

static void note_gate(server *sv)
{
    sv->gated =
        sv->down >= 0 || sv->limit_rate > 0 || faults_any_errors(&sv->s->fl);
}

/* ---- The plain queue model: every request is independent work --------- */

/* Its hooks are the core's defaults: service drawn from `service`, and
 * every service done.  NULL rather than functions that say so, because
 * this model carries the large runs and an indirect call per hook per
 * attempt is measurable there. */
const server_model_ops server_queue_ops = {
    .name = "queue",
    .state_size = 0,
    .service = NULL,
    .start = NULL,
    .end = NULL,
};

/* ---- Life cycle ---------------------------------------------------------- */

int server_create(sim *s, const server_cfg *cfg, metrics *m, server **out,
                  sb_err *e)
{
    *out = NULL;
    server *sv = calloc(1, sizeof *sv);
    if (sv == NULL)
        return err_set(e, "out of memory for the server");
    sv->s = s;
    sv->cfg = cfg;
    sv->m = m;
    sv->model = cfg->model != MODEL_HOT_RECORD    ? &server_queue_ops
                : cfg->occ == OCC_TWO_ROUND_TRIPS ? &server_hot_record_2rt_ops
                                                  : &server_hot_record_ops;
    if (sv->model->state_size &&
        (sv->model_state = calloc(1, sv->model->state_size)) == NULL) {
        free(sv);
        return err_set(e, "out of memory for the server");
    }
    sv->workers = cfg->workers;
    sv->lifo = cfg->queue_order == QUEUE_LIFO;
    sv->judge = cfg->drop_expired || cfg->drop_late;
    sv->q_limit =
        cfg->queue_limit == SIM_UNLIMITED ? SIZE_MAX : cfg->queue_limit;
    sv->down = -1;
    sv->slowdown = 1.0;
    sv->limit_rate = cfg->rate_limit_per_s;
    sv->limit_burst = cfg->rate_limit_burst;
    sv->tokens = sv->limit_burst;
    note_features(sv);
    note_gate(sv);
    metrics_set_capacity(m, s->now, sv->workers);
    *out = sv;
    return 0;
}

void server_destroy(server *sv)
{
    if (sv == NULL)
        return;
    free(sv->queue);
    free(sv->in_service);
    free(sv->model_state);
    free(sv);
}

/* The ring is copied whole, slots past its live part included: q_head
 * and the indices stay as they are.  Those slots were written, or never
 * read. */
int server_clone(const server *src, sim *s, metrics *m, server **out)
{
    *out = NULL;
    server *sv = malloc(sizeof *sv);
    if (sv == NULL)
        return -1;
    *sv = *src;
    sv->s = s;
    sv->m = m;
    sv->queue = NULL;
    sv->in_service = NULL;
    sv->model_state = NULL;
    if ((src->q_cap &&
         (sv->queue = malloc(src->q_cap * sizeof *sv->queue)) == NULL) ||
        (src->svc_cap &&
         (sv->in_service = malloc(src->svc_cap * sizeof *sv->in_service)) ==
             NULL) ||
        (src->model_state &&
         (sv->model_state = malloc(src->model->state_size)) == NULL)) {
        server_destroy(sv);
        return -1;
    }
    if (src->q_cap)
        memcpy(sv->queue, src->queue, src->q_cap * sizeof *sv->queue);
    if (src->busy)
        memcpy(sv->in_service, src->in_service,
               src->busy * sizeof *sv->in_service);
    if (src->model_state)
        memcpy(sv->model_state, src->model_state, src->model->state_size);
    *out = sv;
    return 0;
}

const server_cfg *server_config(const server *sv)
{
    return sv->cfg;
}

sim *server_sim(const server *sv)
{
    return sv->s;
}

void server_set_model(server *sv, const server_model_ops *ops)
{
    assert(ops->state_size == 0 && sv->model->state_size == 0);
    sv->model = ops;
    note_features(sv);
}

void *server_model_state(server *sv)
{
    return sv->model_state;
}

uint32_t server_busy(const server *sv)
{
    return sv->busy;
}

uint32_t server_queue_len(const server *sv)
{
    return (uint32_t)sv->q_len;
}

uint32_t server_workers(const server *sv)
{
    return sv->workers;
}

/* Attempts whose client no longer waits for them: work the server does
 * (or will do) for nobody.  In service: all counted.  Queued: all counted
 * up to `sample`, else `sample` evenly spaced ones, scaled (true is then
 * returned).  For front ends, once a frame, not for the hot path: each
 * queued attempt looked at is a cache miss in a long queue. */
bool server_abandoned(const server *sv, uint32_t sample, uint32_t *in_service,
                      uint32_t *queued)
{
    uint32_t a = 0;
    uint64_t q = 0;
    for (uint32_t i = 0; i < sv->busy; i++)
        a += !request_waits(sv->s, att_at(sv->s, sv->in_service[i]));
    size_t n = sv->q_len, looked = 0;
    size_t step = sample == 0 || n <= sample ? 1 : (n + sample - 1) / sample;
    size_t at = sv->q_head;
    for (size_t i = 0; i < n; i += step, looked++) {
        q += !request_waits(sv->s, att_at(sv->s, sv->queue[at]));
        at += step;
        while (at >= sv->q_cap)
            at -= sv->q_cap;
    }
    *in_service = a;
    *queued = looked ? (uint32_t)(q * n / looked) : 0;
    return step > 1;
}

bool server_is_down(const server *sv)
{
    return sv->down >= 0;
}

size_t server_bytes(const server *sv)
{
    return sizeof *sv + sv->model->state_size +
           (sv->q_cap + sv->svc_cap) * sizeof(uint32_t);
}

/* ---- Answers ------------------------------------------------------------- */

/* One-way network delay of draw `slot` of attempt t of r (rng.h). */
static int64_t net_delay(const server *sv, const request *r, const attempt *t,
                         unsigned slot)
{
    return engine_sample(sv->s, &sv->cfg->network, r->client,
                         RNG_NET + sv->stream,
                         rng_attempt_counter(r->index, t->number, slot));
}

/* The delay of the answer to t of r (draw 1): the network's back and any
 * latency fault.  A constant network's is kept (back_const): no draw's
 * counter and no sum at every answer. */
static inline int64_t answer_delay(const server *sv, const request *r,
                                   const attempt *t)
{
    if (sv->back_const >= 0)
        return sv->back_const;
    return simtime_add(net_delay(sv, r, t, 1), sv->latency);
}

/* Answer ai now: the answer pays the network delay back and any latency
 * fault. */
static void answer(server *sv, uint32_t ai, sb_error_kind kind, int32_t status,
                   int64_t retry_after)
{
    const attempt *t = att_at(sv->s, ai);
    int64_t back = answer_delay(sv, req_at(sv->s, t->req), t);
    engine_answer(sv->s, ai, kind, status, retry_after, back);
}

/* Turn ai away with an error (kind, status, retry_after; -1 none): the
 * client counts it as rejected if the answer finds it still waiting. */
static void turn_away(server *sv, uint32_t ai, sb_error_kind kind,
                      int32_t status, int64_t retry_after)
{
    att_at(sv->s, ai)->answer_by = ANSWER_REJECTED;
    answer(sv, ai, kind, status, retry_after);
}

/* Let go of an attempt without answering. */
static void drop(server *sv, uint32_t ai)
{
    attempt *t = att_at(sv->s, ai);
    t->stage = ST_GONE;
    engine_attempt_release(sv->s, ai, t);
}

/* ---- Rate limit ---------------------------------------------------------- */

static void refill_tokens(server *sv)
{
    int64_t now = sv->s->now;
    double dt = (double)(now - sv->tokens_t) / 1e9;
    sv->tokens = fmin(sv->limit_burst, sv->tokens + dt * sv->limit_rate);
    sv->tokens_t = now;
}

/* Token-bucket rate limit.  Returns the Retry-After to send with a 429,
 * in whole seconds as HTTP has it (at least 1 s), or 0 when admitted. */
static int64_t rate_limited(server *sv)
{
    if (sv->limit_rate <= 0)
        return 0;
    refill_tokens(sv);
    if (sv->tokens >= 1.0) {
        sv->tokens -= 1.0;
        return 0;
    }
    double wait = ceil((1.0 - sv->tokens) / sv->limit_rate);
    return (int64_t)fmax(1.0, wait) * NS_PER_S;
}

void server_set_rate_limit(server *sv, double rate_per_s, double burst)
{
    if (rate_per_s == sv->limit_rate && burst == sv->limit_burst)
        return;
    if (sv->limit_rate > 0)
        refill_tokens(sv);
    else
        sv->tokens = burst;
    sv->tokens_t = sv->s->now;
    sv->limit_rate = rate_per_s;
    sv->limit_burst = burst;
    if (sv->tokens > burst)
        sv->tokens = burst;
    note_gate(sv);
}

/* ---- Queue --------------------------------------------------------------- */

static void enqueue(server *sv, uint32_t ai, attempt *t)
{
    if (sv->q_len == sv->q_cap) {
        size_t cap = sv->q_cap ? sv->q_cap * 2 : 1024;
        uint32_t *q = malloc(cap * sizeof *q);
        if (q == NULL) {
            engine_fail(sv->s, "out of memory for the server queue");
            return;
        }
        /* Full: the ring is [q_head, q_cap) then [0, q_head). */
        size_t tail = sv->q_cap - sv->q_head;
        if (sv->q_len > 0) {
            memcpy(q, sv->queue + sv->q_head, tail * sizeof *q);
            memcpy(q + tail, sv->queue, sv->q_head * sizeof *q);
        }
        free(sv->queue);
        sv->queue = q;
        sv->q_head = 0;
        sv->q_cap = cap;
    }
    sv->queue[(sv->q_head + sv->q_len) & (sv->q_cap - 1)] = ai;
    sv->q_len++;
    t->stage = ST_QUEUED;
    t->enqueued = sv->s->now;
    metrics_queue_step(sv->m, sv->s->now, +1, (uint32_t)sv->q_len);
}

/* The next attempt to serve: the oldest (FIFO), or the newest (LIFO: under
 * overload the newest are the ones whose clients are still waiting, the
 * idea behind Facebook's adaptive LIFO).  The crash path always empties
 * the queue whatever the order. */
static inline uint32_t dequeue(server *sv)
{
    uint32_t ai;
    if (sv->lifo) {
        ai = sv->queue[(sv->q_head + sv->q_len - 1) & (sv->q_cap - 1)];
    } else {
        ai = sv->queue[sv->q_head];
        sv->q_head = (sv->q_head + 1) & (sv->q_cap - 1);
    }
    sv->q_len--;
    metrics_queue_step(sv->m, sv->s->now, -1, (uint32_t)sv->q_len);
    return ai;
}

/* ---- Service ------------------------------------------------------------- */

/* Overload degradation: the factor on the service time of an attempt that
 * starts while n attempts (itself included) are in service. */
static double thrash(const server *sv, uint32_t n)
{
    double k = 1.0;
    if (sv->cfg->degradation > 0 && n > sv->cfg->degradation_knee)
        k += sv->cfg->degradation * (double)(n - sv->cfg->degradation_knee);
    return k;
}

/* The distribution t's next service is drawn from, and its draw. */
static const dist *service_dist(const server *sv, const attempt *t,
                                unsigned *slot)
{
    *slot = 0;
    return sv->model->service ? sv->model->service(sv, t, slot)
                              : &sv->cfg->service;
}

/* What a drop_late server expects t's service to take if it started now:
 * the mean of its distribution, times the running slowdown and the
 * overload degradation it would start under -- what a server that tracks
 * its recent service times would see.  The answer's trip back is not
 * counted: the server does not know the network. */
static double expected_service(const server *sv, const attempt *t)
{
    unsigned slot;
    return units_dist_mean(service_dist(sv, t, &slot)) * sv->slowdown *
           thrash(sv, sv->busy + 1);
}

/* The service time of a draw x taken as it is (service_is_draw):
 * x x 1.0 x 1.0, rounded, is x whenever x is a double's exact integer and
 * x + 0.5 is exact too, below 2^52, so the conversions are skipped at
 * every service.  Anything else takes the general path's arithmetic. */
static inline int64_t draw_as_service_ns(int64_t x)
{
    return (uint64_t)x < (UINT64_C(1) << 52) ? x : round_ns((double)x);
}

/* t's service time when it is not the draw as it is: drawn from the model's
 * distribution and scaled by the slowdown and the overload degradation it
 * starts under (busy already counts it); then the model notes the start. */
static void set_service_time(server *sv, attempt *t, const request *r)
{
    unsigned slot;
    const dist *d = service_dist(sv, t, &slot);
    double base =
        (double)engine_sample(sv->s, d, r->client, RNG_SERVICE + sv->stream,
                              rng_attempt_counter(r->index, t->number, slot));
    t->service = round_ns(base * sv->slowdown * thrash(sv, sv->busy));
    if (sv->model->start)
        sv->model->start(sv, t);
}

/* Room for one more attempt in service; -1 when out of memory (the run
 * is failed).  Out of line: it runs a dozen times a run. */
SB_NOINLINE static int grow_in_service(server *sv)
{
    size_t cap = sv->svc_cap ? sv->svc_cap * 2 : 256;
    uint32_t *v = realloc(sv->in_service, cap * sizeof *v);
    if (v == NULL)
        return engine_fail(sv->s, "out of memory for the server");
    sv->in_service = v;
    sv->svc_cap = cap;
    return 0;
}

/* Start serving ai (t is its record).  Inlined into its two callers
 * (admission and dispatch), whose records and registers it shares.
 * queued: t comes from the queue, a
 * constant in each caller (admission serves only arrivals, dispatch only
 * queued attempts), so that neither loads t's stage to learn it. */
SB_ALWAYS_INLINE static inline void start_service(server *sv, uint32_t ai,
                                                  attempt *t, bool queued)
{
    sim *s = sv->s;
    const request *r = req_at(s, t->req);
    if (sv->busy == sv->svc_cap && grow_in_service(sv) != 0)
        return;
    t->slot = sv->busy;
    sv->in_service[sv->busy++] = ai;
    metrics_busy_step(sv->m, s->now, +1, sv->busy);
    if (sv->service_is_draw)
        t->service = draw_as_service_ns(engine_sample(
            s, &sv->cfg->service, r->client, RNG_SERVICE + sv->stream,
            rng_attempt_counter(r->index, t->number, 0)));
    else
        set_service_time(sv, t, r);
    if (queued)
        sv->m->cur->queue_wait_ns += s->now - t->enqueued;
    sv->m->cur->served++;
    t->stage = ST_IN_SERVICE;
    engine_push(s, simtime_add(s->now, t->service), EV_SERVICE_DONE, ai,
                t->gen);
}

/* A drop_expired server skips a queued attempt whose caller has already
 * given up on it (counted as expired); a drop_late server also skips one
 * whose caller will give up before its service could end, by the server's
 * expectation (counted as late -- and so is an expired one when
 * drop_expired is off).  Both drop silently: the client learns by its own
 * timeout, which a dropped attempt was going to reach anyway.  Only queued
 * attempts are judged: one that finds a free worker is served.  Returns
 * whether it dropped ai. */
static bool dropped_from_queue(server *sv, uint32_t ai)
{
    const server_cfg *sc = sv->cfg;
    const attempt *t = att_at(sv->s, ai);
    int64_t left = t->expires - sv->s->now;
    if (sc->drop_expired && left <= 0) {
        sv->m->cur->expired++;
    } else if (sc->drop_late && (double)left < expected_service(sv, t)) {
        sv->m->cur->late++;
    } else {
        return false;
    }
    drop(sv, ai);
    return true;
}

/* Start queued attempts while workers are free. */
static void dispatch(server *sv)
{
    while (sv->busy < sv->workers && sv->q_len > 0) {
        uint32_t ai = dequeue(sv);
        if (!sv->judge || !dropped_from_queue(sv, ai))
            start_service(sv, ai, att_at(sv->s, ai), true);
    }
}

/* Admitted: serve at once, queue, or turn away when the queue is full. */
static void admit(server *sv, uint32_t ai, attempt *t)
{
    const server_cfg *sc = sv->cfg;
    if (sv->busy < sv->workers) {
        start_service(sv, ai, t, false);
    } else if (sv->q_len < sv->q_limit) {
        enqueue(sv, ai, t);
    } else if (sc->overflow == OVERFLOW_DROP) {
        /* Its client learns by its timeout, and counts it there. */
        sv->m->cur->overflowed++;
        drop(sv, ai);
    } else {
        turn_away(sv, ai, SB_ERR_HTTP, 503,
                  sc->overflow_retry_after_ns > 0 ? sc->overflow_retry_after_ns
                                                  : -1);
    }
}

/* An outage, a rate limit or an error fault is running (sv->gated): turn
 * ai away, or answer it with an injected error, if one says so; returns
 * whether it did. */
static bool gate(server *sv, uint32_t ai, attempt *t)
{
    sim *s = sv->s;
    /* A black hole answers nothing: the client times out, and that is
     * the attempt's one end. */
    if (sv->down >= 0) {
        if (sv->down == CUT_REFUSE)
            turn_away(sv, ai, SB_ERR_REFUSED, 0, -1);
        else
            drop(sv, ai);
        return true;
    }
    int64_t retry_after = rate_limited(sv);
    if (retry_after > 0) {
        turn_away(sv, ai, SB_ERR_HTTP, 429, retry_after);
        return true;
    }
    const fault_cfg *f = faults_any_errors(&s->fl)
                             ? faults_error(s, req_at(s, t->req), t)
                             : NULL;
    if (f) {
        t->answer_by = ANSWER_INJECTED;
        t->pushback = f->pushback;
        t->pushback_ms = f->pushback_ms;
        answer(sv, ai, f->kind, f->status,
               f->retry_after_ns > 0 ? f->retry_after_ns : -1);
        return true;
    }
    return false;
}

void server_on_arrive(server *sv, uint32_t ai, uint32_t gen)
{
    sim *s = sv->s;
    attempt *t = att_at(s, ai);
    if (t->gen != gen || t->stage != ST_TO_SERVER)
        return;
    if (sv->gated && gate(sv, ai, t))
        return;
    admit(sv, ai, t);
    assert(server_sane(sv));
}

/* ---- The end of a service ------------------------------------------------ */

/* The work is done: a write commits here, whether or not the answer ever
 * reaches the client.  A keyed post that already committed is recognised
 * when the server deduplicates; any other repeat commits again. */
static void commit(server *sv, request *r, attempt *t)
{
    const server_cfg *sc = sv->cfg;
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
            sv->m->cur->duplicates++;
        else
            sv->m->cur->repeats++;
    }
}

/* What the answer says: a data defect, a lost update, or success (and a
 * commit). */
static void outcome(server *sv, attempt *t, request *r, service_end end)
{
    t->result = SB_ERR_NONE;
    t->status = 200;
    t->defect = SB_DEFECT_NONE;
    if (r->defect) {
        t->result = SB_ERR_HTTP;
        t->status = 422;
        t->defect = r->defect;
    } else if (end == SERVICE_CONFLICT) {
        t->result = SB_ERR_GRPC; /* another update won */
        t->status = SB_GRPC_ABORTED;
        sv->m->cur->conflicts++;
    } else if (r->op != SB_OP_READ) {
        commit(sv, r, t);
    }
}

/* Send the answer of a finished service back, unless a lost_ack fault
 * loses it. */
static inline void send_reply(server *sv, uint32_t ai, attempt *t,
                              const request *r, bool lost, int64_t at)
{
    /* Wasted: nobody will use this answer -- the client stopped waiting,
     * the answer is lost, or it will arrive after the client's timeout. */
    if (lost || !attempt_awaited(t, r) || at >= t->expires)
        sv->m->cur->wasted_ns += t->service;
    if (lost) {
        sv->m->cur->lost_acks++;
        drop(sv, ai);
    } else {
        t->stage = ST_TO_CLIENT;
        engine_push_after(sv->s, at - sv->s->now, EV_RESPONSE, ai, t->gen);
    }
}

/* ... while a lost_ack fault runs or the network draws its delays.  Out
 * of line (LTO would inline the fault's coin here), so that the common
 * answer saves no registers around calls it does not make. */
SB_NOINLINE static void reply_drawn(server *sv, uint32_t ai, attempt *t,
                                    const request *r)
{
    sim *s = sv->s;
    bool lost = faults_any_lost(&s->fl) && faults_ack_lost(s, r, t);
    send_reply(sv, ai, t, r, lost, simtime_add(s->now, answer_delay(sv, r, t)));
}

static void reply(server *sv, uint32_t ai, attempt *t, const request *r)
{
    if (faults_any_lost(&sv->s->fl) || sv->back_const < 0)
        reply_drawn(sv, ai, t, r);
    else
        send_reply(sv, ai, t, r, false,
                   simtime_add(sv->s->now, sv->back_const));
}

/* Take t off its worker. */
static inline void release_worker(server *sv, attempt *t)
{
    uint32_t last = sv->in_service[--sv->busy];
    sv->in_service[t->slot] = last;
    att_at(sv->s, last)->slot = t->slot;
    metrics_busy_step(sv->m, sv->s->now, -1, sv->busy);
}

/* The end of t's service.  without_hooks (a constant in each caller):
 * the server calls no tier down and its model has no end hook
 * (end_without_hooks),
 * so the service simply ends (SERVICE_DONE); the compiler then drops
 * the rest.  Inlined into the two callers below: the common end without
 * the hooks' branches and the registers they need. */
SB_ALWAYS_INLINE static inline void
end_service(server *sv, uint32_t ai, attempt *t, request *r, bool without_hooks)
{
    sim *s = sv->s;
    if (!without_hooks && sv->calls_down && !r->defect) {
        /* A tier's worker stays held while it calls down (tier.h). */
        sv->m->cur->service_ns += t->service;
        t->stage = ST_CALLING;
        tier_call_down(s, sv->tier, ai);
        return;
    }
    release_worker(sv, t);
    sv->m->cur->service_ns += t->service;
    service_end end = !without_hooks && sv->model->end
                          ? sv->model->end(sv, ai, t, r)
                          : SERVICE_DONE;
    if (end == SERVICE_ANSWERED) {
        reply(sv, ai, t, r);
    } else if (end != SERVICE_TAKEN) {
        outcome(sv, t, r, end);
        reply(sv, ai, t, r);
    }
    if (sv->q_len > 0)
        dispatch(sv);
    assert(server_sane(sv));
}

/* The end of a service with a call down or an end hook
 * (!end_without_hooks). */
static void end_service_hooked(server *sv, uint32_t ai, attempt *t, request *r)
{
    end_service(sv, ai, t, r, false);
}

void server_on_service_done(server *sv, uint32_t ai, uint32_t gen)
{
    attempt *t = att_at(sv->s, ai);
    if (t->gen != gen || t->stage != ST_IN_SERVICE)
        return;
    request *r = req_at(sv->s, t->req);
    if (sv->end_without_hooks)
        end_service(sv, ai, t, r, true);
    else
        end_service_hooked(sv, ai, t, r);
}

/* ---- Tiers (tier.h) ------------------------------------------------------ */

void server_set_tier(server *sv, uint8_t tier, unsigned stream, bool calls_down)
{
    sv->tier = tier;
    sv->stream = stream;
    sv->calls_down = calls_down;
    note_features(sv);
}

/* The call that held ai's worker ended: the worker is free, and the
 * attempt is answered -- as after a service of its own when the call
 * succeeded, else 503 (its dependency failed), which the caller's policy
 * sees like any 503. */
void server_call_done(server *sv, uint32_t ai, bool ok)
{
    attempt *t = att_at(sv->s, ai);
    assert(t->stage == ST_CALLING);
    request *r = req_at(sv->s, t->req);
    release_worker(sv, t);
    t->stage = ST_IN_SERVICE;
    if (ok) {
        outcome(sv, t, r, SERVICE_DONE);
        reply(sv, ai, t, r);
    } else {
        answer(sv, ai, SB_ERR_HTTP, 503, -1);
    }
    dispatch(sv);
    assert(server_sane(sv));
}

/* ---- Two round trips ----------------------------------------------------- */

/* The first trip's answer is wasted work when nobody will use it: the
 * client has stopped waiting or will have by the time it arrives (it then
 * sends no second trip).  A first trip whose answer is used is not wasted
 * even if the second's answer is not: each trip's service is counted with
 * its own answer. */
void server_round_trip(server *sv, uint32_t ai)
{
    sim *s = sv->s;
    attempt *t = att_at(s, ai);
    int64_t back =
        simtime_add(net_delay(sv, req_at(s, t->req), t, 2), sv->latency);
    if (!request_waits(s, t) || simtime_add(s->now, back) >= t->expires)
        sv->m->cur->wasted_ns += t->service;
    t->stage = ST_TO_CLIENT;
    engine_push(s, simtime_add(s->now, back), EV_TRIP, ai, t->gen);
}

/* The client's half of a round trip is mechanical -- it sends the second
 * trip at once, and its policy is not asked -- so it is modelled here
 * rather than in the request lifecycle (request.c).  The second trip leaves from the client, so a
 * partition that started in between cuts it off. */
void server_on_trip(server *sv, uint32_t ai, uint32_t gen)
{
    sim *s = sv->s;
    attempt *t = att_at(s, ai);
    if (t->gen != gen || t->stage != ST_TO_CLIENT)
        return;
    if (!request_waits(s, t)) {
        t->waiting = 0; /* as an answer nobody waits for does (request.c) */
        drop(sv, ai);
        return;
    }
    const request *r = req_at(s, t->req);
    t->trip++;
    int cut = faults_any_cuts(&s->fl) ? faults_cut_off(s, r->client) : -1;
    if (cut == CUT_REFUSE) {
        engine_answer(s, ai, SB_ERR_REFUSED, 0, -1, 0);
        return;
    }
    if (cut == CUT_BLACKHOLE) {
        t->stage = ST_GONE; /* the client's timeout frees it */
        return;
    }
    t->stage = ST_TO_SERVER;
    engine_push(s, simtime_add(s->now, net_delay(sv, r, t, 3)),
                EV_SERVER_ARRIVE, ai, t->gen);
}

/* ---- Faults -------------------------------------------------------------- */

void server_set_capacity(server *sv, uint32_t workers)
{
    sv->workers = workers;
    metrics_set_capacity(sv->m, sv->s->now, workers);
    if (sv->down < 0)
        dispatch(sv);
    assert(server_sane(sv));
}

void server_set_slowdown(server *sv, double multiplier)
{
    sv->slowdown = multiplier;
    note_features(sv);
}

void server_set_latency(server *sv, int64_t ns)
{
    sv->latency = ns;
    note_features(sv);
}

/* Connections die with the server: queued and in-service attempts are
 * reset (refuse) or vanish (blackhole). */
void server_crash(server *sv, int mode)
{
    if (sv->down >= 0) {
        sv->down = mode;
        return;
    }
    while (sv->q_len > 0) {
        uint32_t ai = dequeue(sv);
        if (mode == CUT_REFUSE)
            turn_away(sv, ai, SB_ERR_RESET, 0, -1);
        else
            drop(sv, ai);
    }
    /* In-service attempts: their SERVICE_DONE events are skipped because
     * the stage moves on. */
    while (sv->busy > 0) {
        uint32_t ai = sv->in_service[--sv->busy];
        if (mode == CUT_REFUSE)
            turn_away(sv, ai, SB_ERR_RESET, 0, -1);
        else
            drop(sv, ai);
    }
    metrics_set_busy(sv->m, sv->s->now, 0);
    sv->down = mode;
    note_gate(sv);
    assert(server_sane(sv));
}

void server_note_faults(server *sv)
{
    note_gate(sv);
}

/* Nothing was queued or in service while it was down, so there is nothing
 * to dispatch. */
void server_restart(server *sv)
{
    sv->down = -1;
    note_gate(sv);
}
