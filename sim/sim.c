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
#include "measured.h"
#include "pipeline.h"
#include "server.h"
#include "tier.h"

int engine_fail(sim *s, const char *msg)
{
    if (!s->failed) {
        s->failed = true;
        snprintf(s->error, sizeof s->error, "%s", msg);
    }
    return -1;
}

/* Out of line: its callers' common path (evq_push_quick) then saves no
 * registers for the queue's slow paths (engine.h). */
SB_NOINLINE void engine_push_slow(sim *s, int64_t t, unsigned type, uint32_t id,
                                  uint32_t gen)
{
    if (evq_push(&s->q, t, type, id, gen) != 0)
        engine_fail(s, "out of memory for the event queue");
}

void engine_push_fault(sim *s, int64_t t, unsigned type, uint32_t fault,
                       uint32_t gen)
{
    _Static_assert(MAX_ALL_FAULTS <= EVQ_RESERVED_SEQS,
                   "every fault needs a reserved sequence number");
    if (evq_push_reserved(&s->q, t, fault, type, fault, gen) != 0)
        engine_fail(s, "out of memory for the event queue");
}

/* Out of line, so that engine_push_now's common path saves no registers
 * for the queue's push. */
SB_NOINLINE void engine_push_now_queued(sim *s, unsigned type, uint32_t id,
                                        uint32_t gen)
{
    engine_push(s, s->now, type, id, gen);
}

/* ---- Random draws ------------------------------------------------------- */

/* The distributions that need more than a uniform and a logarithm. */
static double sample_shaped(const sim *s, const dist *d, uint32_t client,
                            unsigned stream, uint64_t counter, uint64_t x)
{
    switch (d->kind) {
    case DIST_LOGNORMAL: {
        uint64_t pair = rng_key(s->seed, client, stream | RNG_PAIR);
        double z = rng_normal(x, rng_at(pair, counter));
        return (double)d->mean_ns * exp(d->sigma * z);
    }
    case DIST_NORMAL:
        return rng_truncated_normal(x, (double)d->mean_ns, (double)d->sd_ns);
    case DIST_UNIFORM:
        return (double)d->lo_ns + rng_unit(x) * (double)(d->hi_ns - d->lo_ns);
    case DIST_EMPIRICAL:
    case DIST_HISTOGRAM:
        return (double)measured_at(d->table, rng_unit(x));
    default:
        return (double)d->mean_ns;
    }
}

/* A draw of d for (client, stream, counter).  Every distribution takes
 * its first (often only) uniform at (stream, counter); the lognormal takes
 * its second at (stream | RNG_PAIR, counter) -- rng.h has the layout and
 * why.  The truncated normal inverts its distribution function so that it
 * needs one uniform, like const, exp and uniform.  round_ns saturates at
 * the end of time: lognormal(1h, 5) can draw e^43 hours.  const (inline,
 * in engine_sample) and exp, the common cases, are tested first: this
 * runs for every service time and network delay. */
int64_t engine_sample_drawn(const sim *s, const dist *d, uint32_t client,
                            unsigned stream, uint64_t counter)
{
    uint64_t x = rng_at(rng_key(s->seed, client, stream), counter);
    if (d->kind == DIST_EXP)
        return round_ns(rng_exponential(x, (double)d->mean_ns));
    return round_ns(sample_shaped(s, d, client, stream, counter, x));
}

double engine_unit_draw(const sim *s, uint32_t client, unsigned stream,
                        uint64_t counter)
{
    return rng_unit(rng_at(rng_key(s->seed, client, stream), counter));
}

double engine_root_unit_draw(const sim *s, uint32_t client, unsigned stream,
                             uint64_t counter)
{
    return rng_unit(rng_at(rng_key(s->root_seed, client, stream), counter));
}

/* ---- Records ------------------------------------------------------------ */

void engine_answer(sim *s, uint32_t ai, sb_error_kind kind, int32_t status,
                   int64_t retry_after, int64_t delay)
{
    attempt *t = att_at(s, ai);
    t->result = (uint8_t)kind;
    t->status = status;
    t->retry_after = retry_after;
    t->stage = ST_TO_CLIENT;
    engine_push_after(s, delay, EV_RESPONSE, ai, t->gen);
}

/* ---- Dispatch ----------------------------------------------------------- */

/* The tier attempt ai is sent to (tier.h). */
static inline unsigned attempt_tier(const sim *s, uint32_t ai)
{
    return req_at(s, att_at(s, ai)->req)->tier;
}

/* Inlined into sim_run_until's loop.  As a function of its own, with the
 * handlers the compiler inlines into it, it saved and restored six
 * registers on every event.  It only dispatches: each kind of event has
 * one handler, whoever its subject belongs to. */
SB_ALWAYS_INLINE static inline void dispatch(sim *s, const evq_event *ev)
{
    switch (evq_type(ev)) {
    case EV_ARRIVAL:
        client_on_arrival(s, ev->id);
        break;
    case EV_SEND:
        request_on_send(s, ev->id, ev->gen);
        break;
    case EV_HEDGE:
        request_on_hedge(s, ev->id, ev->gen);
        break;
    /* A service chain's requests name their tier (tier.h), and an
     * attempt's is its request's; without a chain every record is the
     * top's.  A stale event may find its attempt reused by another tier:
     * the handler rejects it by generation wherever it is sent. */
    case EV_SERVER_ARRIVE:
        server_on_arrive(s->tiers ? tiers_server(s, attempt_tier(s, ev->id))
                                  : s->srv,
                         ev->id, ev->gen);
        break;
    case EV_SERVICE_DONE:
        server_on_service_done(
            s->tiers ? tiers_server(s, attempt_tier(s, ev->id)) : s->srv,
            ev->id, ev->gen);
        break;
    case EV_RESPONSE:
        request_on_response(s, ev->id, ev->gen);
        break;
    case EV_TIMEOUT:
        request_on_timeout(s, ev->id, ev->gen);
        break;
    case EV_FAULT_ON:
        faults_on(s, ev->id, true, ev->gen);
        break;
    case EV_FAULT_OFF:
        faults_on(s, ev->id, false, ev->gen);
        break;
    case EV_END:
        request_on_end(s, ev->id, ev->gen);
        break;
    case EV_TRIP:
        server_on_trip(s->srv, ev->id, ev->gen);
        break;
    case EV_JOB:
        pipeline_on_job(s, ev->id, ev->gen);
        break;
    default:
        engine_fail(s, "internal error: unknown event type");
    }
}

void engine_plan_phases(sim *s, bool first)
{
    const sim_config *c = s->cfg;
    phases_input in = {
        c->bucket_ns,          c->duration_ns,           c->warmup_ns,
        c->recovery_window_ns, sim_first_fault_start(s), sim_last_fault_end(s)};
    if (first)
        phases_init(&s->ph, &in);
    else
        phases_replan(&s->ph, &in);
}

void sim_phase_figures(const sim *s, sim_phase out[PHASE_COUNT])
{
    phases_figures(&s->ph, out);
}

static void bucket_closed(void *ctx, const metrics_bucket *b,
                          const metrics_hist *h)
{
    sim *s = ctx;
    if (s->pipe)
        pipeline_bucket_closed(s); /* may raise an alert in b */
    bool quiet = phases_bucket_quiet(b, h);
    phases_add(&s->ph, b, h, quiet);
    /* Every 256th bucket: the checks walk every record. */
    assert(b->start_ns / s->m.live_ns % 256 != 0 || sim_sane(s));
    observers_bucket(&s->obs, s, b, h, quiet);
}

/* The guard against a clock that stops.  The model makes progress by
 * construction (every attempt costs its client call_time), but with
 * call_time = 0, or a plug-in that retries at once forever, simulated
 * time can stand still while events pile up at one instant.  Legitimate
 * runs do put many events at one instant (a million clients starting
 * together), so the limit grows with the number of clients; a stopped
 * clock passes any limit. */
static uint64_t instant_limit(const sim *s)
{
    if (s->cfg->instant_event_limit)
        return s->cfg->instant_event_limit;
    return SIM_INSTANT_EVENTS + 32u * (uint64_t)s->cl.n;
}

static const char *doing(unsigned type)
{
    switch (type) {
    case EV_ARRIVAL:
        return "starting a request";
    case EV_SEND:
        return "sending a retry";
    case EV_HEDGE:
        return "sending a hedge";
    case EV_RESPONSE:
        return "receiving an answer";
    case EV_TIMEOUT:
        return "timing out an attempt";
    case EV_END:
        return "ending a request refused locally";
    case EV_JOB:
        return "rerunning a pipeline job";
    default:
        return "being served";
    }
}

static int clock_stopped(sim *s)
{
    char msg[ERR_MSG_MAX];
    snprintf(msg, sizeof msg,
             "simulated time stopped advancing: %llu events at t=%.6f s.  "
             "The last was client %u %s; the latest request to end %s%s%s%s.  "
             "Requests that end in zero simulated time "
             "and are followed at once by the next one never let the clock "
             "move: give [clients] call_time (the client's own time per "
             "call) a positive value, give closed-loop clients a think "
             "time, or a retry policy a delay",
             (unsigned long long)s->instant_events, (double)s->now / 1e9,
             s->last_client, doing(s->last_event),
             s->last_end ? s->last_end : "(none has ended)",
             s->last_end_reason ? " (" : "",
             s->last_end_reason ? s->last_end_reason : "",
             s->last_end_reason ? ")" : "");
    return engine_fail(s, msg);
}

static int run_until(sim *s, int64_t t);

/* The configured branch path's steps due by t are taken on the way: run
 * to the step's time, re-key there -- what the risk estimate did when it
 * branched the trajectory (sim.h). */
int sim_run_until(sim *s, int64_t t)
{
    const sim_branch *b = &s->cfg->branch;
    while (s->branch_next < b->n && b->step[s->branch_next].at_ns <= t) {
        const sim_branch_step *st = &b->step[s->branch_next++];
        if (run_until(s, st->at_ns) != 0)
            return -1;
        sim_rekey(s, st->key);
    }
    return run_until(s, t);
}

static int run_until(sim *s, int64_t t)
{
    if (s->failed)
        return -1;
    evq_event ev;
    uint64_t limit = instant_limit(s);
    for (;;) {
        /* s->stops: the run failed (in the last event's handler), or
         * s->next waits: one test of the two flags, not one of each, at
         * every event. */
        if (s->stops != 0 && (s->failed || s->next.time < t)) {
            if (s->failed)
                return -1;
            ev = s->next; /* see engine_push_now */
            s->has_next = false;
        } else if (!evq_pop_before(&s->q, t, &ev)) {
            break;
        }
        if (ev.time >= s->m.cur_end &&
            (metrics_roll(&s->m, ev.time, bucket_closed, s) != 0 ||
             (s->tiers && tiers_roll(s, ev.time) != 0)))
            return engine_fail(s, "out of memory for metrics");
        if (ev.time != s->now)
            s->instant_events = 0;
        s->now = ev.time;
        s->stats.events++;
        if (++s->instant_events > limit) {
            s->last_event = (uint8_t)evq_type(&ev);
            s->last_client = client_of_event(s, evq_type(&ev), ev.id);
            return clock_stopped(s);
        }
        dispatch(s, &ev);
    }
    if (evq_failed(&s->q))
        return engine_fail(s, "out of memory for the event queue");
    /* Every event before t has run, so a bucket that ends at t is
     * complete: it closes now, not when the next event comes, or a front
     * end stopped at t (the GUI's header, a run saved there) would show
     * one bucket less than the time it shows.  Rolling here or at the
     * next event closes the same bucket with the same sums.  The run's
     * last bucket is sim_finish's to close. */
    int64_t upto = t < s->cfg->duration_ns ? t : t - 1;
    if (upto >= s->m.cur_end &&
        (metrics_roll(&s->m, upto, bucket_closed, s) != 0 ||
         (s->tiers && tiers_roll(s, upto) != 0)))
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

/* What sim_create and sim_reuse do once s holds zeroes but for its
 * queue, metrics and record pools, which are set up: every module's
 * state, in the same order.  On failure s is the caller's to destroy. */
static int setup(sim *s, const sim_config *cfg, pstack *ps, sb_err *e)
{
    s->cfg = cfg;
    s->ps = ps;
    s->seed = cfg->seed;
    s->root_seed = cfg->seed;
    if (server_create(s, &cfg->server, &s->m, &s->srv, e) != 0)
        return -1;
    /* The clients are requester 0; the callers of tiers and pipeline
     * steps come after them, and may share their state. */
    if (clients_start(s, e) != 0)
        return -1;
    if (cfg->n_tiers >= 2 && tiers_create(s, e) != 0)
        return -1;
    faults_start(s);
    engine_plan_phases(s, true);
    if (cfg->pipeline.n_steps > 0 && pipeline_create(s, e) != 0)
        return -1;
    assert(sim_sane(s));
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
    requests_init(&s->rqs, pstack_request_state_size(ps));
    if (evq_init(&s->q) != 0 ||
        metrics_init(&s->m, cfg->bucket_ns, cfg->duration_ns,
                     METRICS_MAX_BUCKETS) != 0) {
        err_set(e, "out of memory");
        goto fail;
    }
    if (setup(s, cfg, ps, e) != 0)
        goto fail;
    *out = s;
    return 0;
fail:
    sim_destroy(s);
    return -1;
}

/* The three pieces that hold most of an engine's memory -- the event
 * queue's blocks, the metrics rows and the record pools -- are emptied
 * in place (evq_reset, metrics_reset, requests_reset: each leaves what
 * its init would, on the memory it has); everything else is freed as
 * sim_destroy frees it and the struct zeroed as calloc gave it, then set
 * up as sim_create does.  So the new run's state is a new engine's, bit
 * for bit, but for where its memory lives (check_sim's reuse test runs
 * different scenarios through one engine against new ones). */
int sim_reuse(sim **sp, const sim_config *cfg, pstack *ps, sb_err *e)
{
    sim *s = *sp;
    *sp = NULL;
    if (s == NULL)
        return sim_create(cfg, ps, sp, e);
    if (check_config(cfg, e) != 0) {
        sim_destroy(s);
        return -1;
    }
    clients_fini(&s->cl);
    call_links_fini(&s->links);
    pipeline_destroy(s);
    tiers_destroy(s);
    server_destroy(s->srv);
    requests_reset(&s->rqs, pstack_request_state_size(ps));
    evq_reset(&s->q);
    int ok = metrics_reset(&s->m, cfg->bucket_ns, cfg->duration_ns,
                           METRICS_MAX_BUCKETS);
    struct {
        evq q;
        metrics m;
        request_table rqs;
    } *kept = malloc(sizeof *kept);
    if (kept == NULL || ok != 0) {
        free(kept);
        err_set(e, "out of memory");
        evq_fini(&s->q);
        metrics_fini(&s->m);
        requests_fini(&s->rqs);
        free(s);
        return -1;
    }
    kept->q = s->q;
    kept->m = s->m;
    kept->rqs = s->rqs;
    memset(s, 0, sizeof *s);
    s->q = kept->q;
    s->m = kept->m;
    s->rqs = kept->rqs;
    free(kept);
    if (setup(s, cfg, ps, e) != 0) {
        sim_destroy(s);
        return -1;
    }
    *sp = s;
    return 0;
}

void sim_destroy(sim *s)
{
    if (s == NULL)
        return;
    evq_fini(&s->q);
    metrics_fini(&s->m);
    requests_fini(&s->rqs);
    clients_fini(&s->cl);
    call_links_fini(&s->links);
    pipeline_destroy(s);
    tiers_destroy(s);
    server_destroy(s->srv);
    free(s);
}

/* ---- Branching (sim.h) --------------------------------------------------- */

/* s is a copy of src by value: every pointer it holds to memory src owns
 * is cleared before anything can fail, so that sim_destroy frees only
 * what the copy made. */
static void unshare(sim *s)
{
    memset(&s->q, 0, sizeof s->q);
    s->m.buckets = NULL;
    memset(&s->rqs, 0, sizeof s->rqs);
    memset(&s->cl, 0, sizeof s->cl);
    memset(&s->links, 0, sizeof s->links);
    s->obs.n = 0;
    s->obs.hear_quiet = 0;
    s->srv = NULL;
    s->tiers = NULL;
    s->pipe = NULL;
}

int sim_clone(const sim *src, pstack *ps, sim **out, sb_err *e)
{
    *out = NULL;
    if (ps == NULL)
        ps = src->ps;
    if (ps == src->ps && !pstack_shareable(ps)) {
        if (pstack_check_clonable(ps, e) != 0)
            return -1;
        return err_set(e,
                       "policy '%s' keeps shared state that changes "
                       "while it runs: a copy of the run needs a copy of "
                       "the stack (pstack_clone), not the run's own",
                       pstack_name(ps));
    }
    sim *s = malloc(sizeof *s);
    if (s == NULL)
        return err_set(e, "out of memory");
    *s = *src;
    unshare(s);
    s->ps = ps;
    if (evq_clone(&s->q, &src->q) != 0 || metrics_clone(&s->m, &src->m) != 0 ||
        clients_clone(&s->cl, &src->cl, src->rqs.rq[0].n_processes) != 0 ||
        call_links_clone(&s->links, &src->links) != 0 ||
        server_clone(src->srv, s, &s->m, &s->srv) != 0) {
        err_set(e, "out of memory for a copy of the run");
        goto fail;
    }
    if (requests_clone(s, src, ps, e) != 0)
        goto fail;
    if ((src->tiers && tiers_clone(s, src) != 0) ||
        (src->pipe && pipeline_clone(s, src) != 0)) {
        err_set(e, "out of memory for a copy of the run");
        goto fail;
    }
    assert(sim_sane(s));
    *out = s;
    return 0;
fail:
    sim_destroy(s);
    return -1;
}

/* The new key mixes the old one with `key` through two rounds of
 * SplitMix64's finaliser: keys that differ in one bit give unrelated
 * streams, and a path of re-keyings gives what its steps give in order. */
void sim_rekey(sim *s, uint64_t key)
{
    s->seed = rng_mix(s->seed ^ rng_mix(key + RNG_GOLDEN));
}

uint64_t sim_stream_key(const sim *s)
{
    return s->seed;
}

int sim_observe(sim *s, const sim_observer *o)
{
    return observers_add(&s->obs, o);
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

void sim_server_state(const sim *s, sim_server_now *out)
{
    out->busy = server_busy(s->srv);
    out->workers = server_workers(s->srv);
    out->queued = server_queue_len(s->srv);
    out->queue_limit = s->cfg->server.queue_limit;
    out->down = server_is_down(s->srv);
    out->abandoned_estimated =
        server_abandoned(s->srv, SIM_ABANDONED_SAMPLE, &out->abandoned_busy,
                         &out->abandoned_queued);
}

void sim_finish(sim *s)
{
    uint64_t in_flight = 0;
    for (uint32_t i = 0; i < s->rqs.requests.next_new; i++) {
        const request *r = req_at(s, i);
        if (r->refs > 0 && !(r->flags & RQ_FINISHED))
            in_flight++;
    }
    metrics_finish(&s->m, s->now, in_flight, bucket_closed, s);
    if (s->tiers)
        tiers_finish(s, s->now);
    if (s->pipe)
        pipeline_finish(s);
    assert(sim_sane(s));
}

/* The memory a requester's state holds. */
static size_t requester_bytes(const requester *rq)
{
    size_t b = (size_t)rq->n_processes * rq->process_stride;
    if (!rq->shares_clients_state)
        b += (size_t)rq->n_clients * (sizeof(uint32_t) + rq->client_stride);
    if (rq->pools)
        for (uint32_t p = 0; p < rq->n_processes; p++)
            b += sizeof(conn_pool) + rq->pools[p].cap * sizeof(uint32_t);
    return b;
}

void sim_get_stats(const sim *s, sim_stats *out)
{
    *out = s->stats;
    out->queue_len = evq_len(&s->q) + s->has_next;
    out->heap_len = evq_len(&s->q); /* the queue; s->next is beside it */
    out->requests_live = pool_live(&s->rqs.requests);
    out->attempts_live = pool_live(&s->rqs.attempts);
    size_t requesters = 0;
    for (uint32_t i = 0; i < s->rqs.n_requesters; i++)
        requesters += requester_bytes(&s->rqs.rq[i]);
    out->bytes = sizeof *s + evq_bytes(&s->q) + pool_bytes(&s->rqs.requests) +
                 pool_bytes(&s->rqs.attempts) +
                 (size_t)s->cl.n * (sizeof(uint32_t) + sizeof(uint8_t)) +
                 requesters + s->links.cap * sizeof(uint64_t) +
                 server_bytes(s->srv) + metrics_bytes(&s->m) - sizeof s->m;
}

/* The core's invariants (engine.h). */
static bool core_sane(const sim *s)
{
    if ((s->stops != 0) != (s->failed || s->has_next))
        return false;
    if (s->has_next && s->next.time != s->now)
        return false;
    if (s->failed && s->error[0] == '\0')
        return false;
    return evq_valid(&s->q);
}

bool sim_sane(const sim *s)
{
    return core_sane(s) && metrics_sane(&s->m) && phases_sane(&s->ph) &&
           observers_sane(&s->obs) && clients_sane(s) && requests_sane(s) &&
           call_links_sane(s) && faults_sane(s) && server_sane(s->srv) &&
           (!s->tiers || tiers_sane(s)) && (!s->pipe || pipeline_sane(s));
}
