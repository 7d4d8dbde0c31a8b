/*
 * sim.c -- the engine's life cycle and event loop, the records every
 * module shares, and random draws.  See sim.h for the contract, engine.h
 * for how the modules divide the work, DESIGN.md for the model.
 */
#include "sim.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

int engine_fail(sim *s, const char *msg)
{
    if (!s->failed) {
        s->failed = true;
        snprintf(s->error, sizeof s->error, "%s", msg);
    }
    return -1;
}

void engine_push(sim *s, int64_t t, unsigned type, uint32_t id, uint32_t gen)
{
    if (evq_push(&s->q, t, type, id, gen) != 0)
        engine_fail(s, "out of memory for the event queue");
    if (evq_len(&s->q) > s->stats.queue_peak)
        s->stats.queue_peak = evq_len(&s->q);
}

void engine_push_lane(sim *s, unsigned lane, int64_t t, unsigned type,
                      uint32_t id, uint32_t gen)
{
    if (evq_push_lane(&s->q, lane, t, type, id, gen) != 0)
        engine_fail(s, "out of memory for the event queue");
}

/* ---- Random draws ------------------------------------------------------- */

int64_t engine_sample(const sim *s, const dist *d, uint32_t client,
                      unsigned stream, uint64_t counter)
{
    if (d->kind == DIST_CONST)
        return d->mean_ns;
    uint64_t key = rng_key(s->seed, client, stream);
    if (d->kind == DIST_EXP)
        return round_ns(
            rng_exponential(rng_at(key, counter), (double)d->mean_ns));
    double z = rng_normal(rng_at(key, counter), rng_at(key, counter | 8u));
    return round_ns((double)d->mean_ns * exp(d->sigma * z));
}

double engine_unit_draw(const sim *s, uint32_t client, unsigned stream,
                        uint64_t counter)
{
    return rng_unit(rng_at(rng_key(s->seed, client, stream), counter));
}

int64_t engine_net_delay(const sim *s, const request *r, const attempt *a,
                         unsigned slot)
{
    return engine_sample(s, &s->cfg->server.network, r->client, RNG_NET,
                         rng_attempt_counter(r->index, a->number, slot));
}

/* ---- Records ------------------------------------------------------------ */

void engine_request_release(sim *s, uint32_t ri)
{
    request *r = req_at(s, ri);
    assert(r->refs > 0);
    if (--r->refs == 0)
        pool_free(&s->requests, ri);
}

void engine_attempt_release(sim *s, uint32_t ai)
{
    attempt *t = att_at(s, ai);
    if (t->waiting || t->stage != ST_GONE)
        return;
    uint32_t ri = t->req;
    t->gen++;
    pool_free(&s->attempts, ai);
    engine_request_release(s, ri);
}

/* ---- Dispatch ----------------------------------------------------------- */

static void dispatch(sim *s, const evq_event *ev)
{
    switch (evq_type(ev)) {
    case EV_ARRIVAL:
        client_on_arrival(s, ev->id);
        break;
    case EV_SEND:
        client_on_send(s, ev->id, ev->gen);
        break;
    case EV_HEDGE:
        client_on_hedge(s, ev->id, ev->gen);
        break;
    case EV_SERVER_ARRIVE:
        server_on_arrive(s, ev->id, ev->gen);
        break;
    case EV_SERVICE_DONE:
        server_on_service_done(s, ev->id, ev->gen);
        break;
    case EV_RESPONSE:
        client_on_response(s, ev->id, ev->gen);
        break;
    case EV_TIMEOUT:
        client_on_timeout(s, ev->id, ev->gen);
        break;
    case EV_FAULT_ON:
        faults_on(s, ev->id, true, ev->gen);
        break;
    case EV_FAULT_OFF:
        faults_on(s, ev->id, false, ev->gen);
        break;
    default:
        engine_fail(s, "internal error: unknown event type");
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
            return engine_fail(s, "out of memory for metrics");
        s->now = ev.time;
        s->stats.events++;
        dispatch(s, &ev);
        if (s->failed)
            return -1;
    }
    if (evq_failed(&s->q))
        return engine_fail(s, "out of memory for the event queue");
    if (t > s->m.cur_end && metrics_roll(&s->m, t - 1, bucket_closed, s) != 0)
        return engine_fail(s, "out of memory for metrics");
    if (t > s->now)
        s->now = t;
    return 0;
}

/* ---- Life cycle ------------------------------------------------------------
 */

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
        engine_push(s, cfg->faults[i].start_ns, EV_FAULT_ON, i, 0);
    }
    s->n_faults = cfg->n_faults;
    if (client_start_all(s, e) != 0)
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

int64_t sim_now(const sim *s)
{
    return s->now;
}
int64_t sim_last_finish(const sim *s)
{
    return s->last_finish;
}
const sim_config *sim_config_of(const sim *s)
{
    return s->cfg;
}
const metrics *sim_metrics(const sim *s)
{
    return &s->m;
}
const char *sim_error(const sim *s)
{
    return s->error;
}

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
    out->heap_len = evq_len(&s->q); /* one store: no FIFO lanes */
    out->requests_live = s->requests.live;
    out->attempts_live = s->attempts.live;
    out->bytes =
        sizeof *s + evq_bytes(&s->q) + pool_bytes(&s->requests) +
        pool_bytes(&s->attempts) +
        (size_t)s->n_clients * (2 * sizeof(uint32_t) + s->client_stride) +
        (s->q_cap + s->svc_cap) * sizeof(uint32_t) +
        s->m.cap * sizeof(metrics_bucket);
}
