/*
 * ref_loop.h -- the reference loop's body (ref_model.h), written once and
 * compiled against two queues.  Not a header of declarations: a file that
 * defines it includes this after defining
 *
 *   RQ                         the queue type
 *   rq_init(q, n), rq_fini(q)  n: a hint, the number of clients
 *   rq_push(q, t, type, id, gen)             0, or -1 out of memory
 *   rq_pop_before(q, limit, ev)  the earliest event before limit into
 *                              *ev (a ref_ev); false when there is none
 *   rq_failed(q)               did the queue run out of memory inside?
 *   REF_RUN                    the name of the function to define
 *
 * so that both builds run exactly the same model code: only the queue
 * differs.  A generation is kept in 28 bits (the plain heap packs it with
 * the event type into 32), the same in both builds.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ref_model.h"
#include "rng.h"

typedef struct ref_ev {
    int64_t time;
    unsigned type;
    uint32_t id, gen;
} ref_ev;

enum { R_ARRIVAL = 1, R_AT_SERVER, R_DONE, R_RESPONSE, R_TIMEOUT, R_OUTAGE };
enum { A_TO_SERVER, A_IN_SERVICE, A_TO_CLIENT, A_GONE };
#define GEN_MASK 0x0fffffffu
#define NONE UINT32_MAX

typedef struct rreq {
    int64_t start;
    uint32_t client, index, attempts, next_free;
} rreq;

/* An attempt carries its request's client and index (the keys of its
 * service draw), because a timed-out attempt may still be served after
 * its request has ended. */
typedef struct ratt {
    uint32_t req, client, index, gen, epoch, next_free;
    uint8_t number, waiting, stage;
} ratt;

typedef struct rstate {
    RQ q;
    const ref_params *p;
    ref_result *r;
    int64_t now;
    double gap_mean_ns;
    uint32_t *next_request; /* per client */
    rreq *req;
    uint32_t req_len, req_cap, req_free;
    ratt *att;
    uint32_t att_len, att_cap, att_free;
    uint32_t *fifo; /* the server's queue: ring of attempts */
    size_t f_head, f_len, f_cap;
    uint32_t busy, epoch; /* epoch: bumped when the outage drops work */
    bool outage, oom;
} rstate;

static void push(rstate *s, int64_t t, unsigned type, uint32_t id, uint32_t gen)
{
    if (rq_push(&s->q, t, type, id, gen) != 0)
        s->oom = true;
}

static uint32_t req_alloc(rstate *s)
{
    if (s->req_free != NONE) {
        uint32_t i = s->req_free;
        s->req_free = s->req[i].next_free;
        return i;
    }
    if (s->req_len == s->req_cap) {
        uint32_t cap = s->req_cap ? s->req_cap * 2 : 1024;
        rreq *v = realloc(s->req, cap * sizeof *v);
        if (v == NULL) {
            s->oom = true;
            return NONE;
        }
        s->req = v;
        s->req_cap = cap;
    }
    return s->req_len++;
}

static void req_free(rstate *s, uint32_t i)
{
    s->req[i].next_free = s->req_free;
    s->req_free = i;
}

static uint32_t att_alloc(rstate *s)
{
    if (s->att_free != NONE) {
        uint32_t i = s->att_free;
        s->att_free = s->att[i].next_free;
        return i;
    }
    if (s->att_len == s->att_cap) {
        uint32_t cap = s->att_cap ? s->att_cap * 2 : 1024;
        ratt *v = realloc(s->att, cap * sizeof *v);
        if (v == NULL) {
            s->oom = true;
            return NONE;
        }
        s->att = v;
        s->att_cap = cap;
    }
    s->att[s->att_len].gen = 0;
    return s->att_len++;
}

/* Free an attempt once the client has stopped waiting and the server has
 * let go; the new generation makes its pending events stale. */
static void att_release(rstate *s, uint32_t ai)
{
    ratt *a = &s->att[ai];
    if (a->waiting || a->stage != A_GONE)
        return;
    a->gen = (a->gen + 1) & GEN_MASK;
    a->next_free = s->att_free;
    s->att_free = ai;
}

static void schedule_arrival(rstate *s, uint32_t c)
{
    uint64_t x =
        rng_at(rng_key(s->p->seed, c, RNG_ARRIVAL), s->next_request[c]);
    int64_t gap = (int64_t)(rng_exponential(x, s->gap_mean_ns) + 0.5);
    push(s, s->now + gap, R_ARRIVAL, c, 0);
}

static void send_attempt(rstate *s, uint32_t ri)
{
    uint32_t ai = att_alloc(s);
    if (ai == NONE)
        return;
    rreq *q = &s->req[ri];
    ratt *a = &s->att[ai];
    a->req = ri;
    a->client = q->client;
    a->index = q->index;
    a->number = (uint8_t)++q->attempts;
    a->waiting = 1;
    a->stage = A_TO_SERVER;
    s->r->attempts++;
    push(s, s->now + s->p->timeout_ns, R_TIMEOUT, ai, a->gen);
    push(s, s->now + s->p->net_ns, R_AT_SERVER, ai, a->gen);
}

static void on_arrival(rstate *s, uint32_t c)
{
    uint32_t k = s->next_request[c]++;
    schedule_arrival(s, c);
    uint32_t ri = req_alloc(s);
    if (ri == NONE)
        return;
    s->req[ri] = (rreq){s->now, c, k, 0, NONE};
    s->r->requests++;
    send_attempt(s, ri);
}

static void start_service(rstate *s, uint32_t ai)
{
    ratt *a = &s->att[ai];
    s->busy++;
    a->stage = A_IN_SERVICE;
    a->epoch = s->epoch;
    uint64_t key = rng_key(s->p->seed, a->client, RNG_SERVICE);
    uint64_t x = rng_at(key, rng_attempt_counter(a->index, a->number, 0));
    double t = rng_exponential(x, (double)s->p->service_mean_ns);
    push(s, s->now + (int64_t)(t + 0.5), R_DONE, ai, a->gen);
}

static void enqueue(rstate *s, uint32_t ai)
{
    if (s->f_len == s->f_cap) {
        size_t cap = s->f_cap ? s->f_cap * 2 : 1024;
        uint32_t *v = malloc(cap * sizeof *v);
        if (v == NULL) {
            s->oom = true;
            return;
        }
        for (size_t i = 0; i < s->f_len; i++)
            v[i] = s->fifo[(s->f_head + i) & (s->f_cap - 1)];
        free(s->fifo);
        s->fifo = v;
        s->f_head = 0;
        s->f_cap = cap;
    }
    s->fifo[(s->f_head + s->f_len++) & (s->f_cap - 1)] = ai;
}

static uint32_t dequeue(rstate *s)
{
    uint32_t ai = s->fifo[s->f_head];
    s->f_head = (s->f_head + 1) & (s->f_cap - 1);
    s->f_len--;
    return ai;
}

static void on_at_server(rstate *s, uint32_t ai, uint32_t gen)
{
    ratt *a = &s->att[ai];
    if (a->gen != gen || a->stage != A_TO_SERVER)
        return;
    if (s->outage) {
        a->stage = A_GONE;
        att_release(s, ai);
    } else if (s->busy < s->p->workers) {
        start_service(s, ai);
    } else {
        enqueue(s, ai);
    }
}

static void on_done(rstate *s, uint32_t ai, uint32_t gen)
{
    ratt *a = &s->att[ai];
    if (a->gen != gen || a->stage != A_IN_SERVICE)
        return;
    if (a->epoch != s->epoch) { /* the outage dropped it */
        a->stage = A_GONE;
        att_release(s, ai);
        return;
    }
    s->busy--;
    a->stage = A_TO_CLIENT;
    push(s, s->now + s->p->net_ns, R_RESPONSE, ai, gen);
    while (s->busy < s->p->workers && s->f_len > 0)
        start_service(s, dequeue(s));
}

static void on_response(rstate *s, uint32_t ai, uint32_t gen)
{
    ratt *a = &s->att[ai];
    if (a->gen != gen || a->stage != A_TO_CLIENT)
        return;
    a->stage = A_GONE;
    if (a->waiting) {
        a->waiting = 0;
        s->r->successes++;
        req_free(s, a->req);
    }
    att_release(s, ai);
}

static void on_timeout(rstate *s, uint32_t ai, uint32_t gen)
{
    ratt *a = &s->att[ai];
    if (a->gen != gen || !a->waiting)
        return; /* answered already: cancelled lazily */
    a->waiting = 0;
    s->r->timeouts++;
    uint32_t ri = a->req;
    att_release(s, ai);
    if (s->req[ri].attempts < s->p->max_attempts) {
        send_attempt(s, ri);
    } else {
        s->r->gave_up++;
        req_free(s, ri);
    }
}

static void on_outage(rstate *s, bool on)
{
    s->outage = on;
    if (!on)
        return;
    s->epoch++;
    s->busy = 0;
    while (s->f_len > 0) {
        uint32_t ai = dequeue(s);
        s->att[ai].stage = A_GONE;
        att_release(s, ai);
    }
}

static void dispatch(rstate *s, const ref_ev *ev)
{
    switch (ev->type) {
    case R_ARRIVAL:
        on_arrival(s, ev->id);
        break;
    case R_AT_SERVER:
        on_at_server(s, ev->id, ev->gen);
        break;
    case R_DONE:
        on_done(s, ev->id, ev->gen);
        break;
    case R_RESPONSE:
        on_response(s, ev->id, ev->gen);
        break;
    case R_TIMEOUT:
        on_timeout(s, ev->id, ev->gen);
        break;
    case R_OUTAGE:
        on_outage(s, ev->gen != 0);
        break;
    default:
        break;
    }
}

int REF_RUN(const ref_params *p, ref_result *r)
{
    rstate s;
    memset(&s, 0, sizeof s);
    memset(r, 0, sizeof *r);
    s.p = p;
    s.r = r;
    s.req_free = s.att_free = NONE;
    s.gap_mean_ns = 1e9 * (double)p->clients / p->rate_per_s;
    s.next_request = calloc(p->clients, sizeof *s.next_request);
    int rc = -1;
    if (s.next_request == NULL || rq_init(&s.q, p->clients) != 0)
        goto done;
    push(&s, p->outage_start_ns, R_OUTAGE, 0, 1);
    push(&s, p->outage_start_ns + p->outage_ns, R_OUTAGE, 0, 0);
    for (uint32_t c = 0; c < p->clients; c++)
        schedule_arrival(&s, c);
    ref_ev ev;
    while (!s.oom && rq_pop_before(&s.q, p->duration_ns, &ev)) {
        s.now = ev.time;
        r->events++;
        dispatch(&s, &ev);
    }
    rc = s.oom || rq_failed(&s.q) ? -1 : 0;
done:
    rq_fini(&s.q);
    free(s.next_request);
    free(s.req);
    free(s.att);
    free(s.fifo);
    return rc;
}
