/*
 * tier.c -- service chains (tier.h): the tiers below the top, and the
 * tier clients that make each tier's calls to the next one down.
 *
 * Why a tier client of its own rather than client.c's clients: those
 * carry what a tier's calls do not have (arrivals, connection pools,
 * call_time, hedges, traces, the GUI's client modes), are tuned for the
 * large runs, and are keyed by [clients]; a call down is one logical
 * request driven through the same request driver (driver.h), so the
 * policy rules (what a policy is shown, the host's limits, on_decision)
 * are shared, not copied.
 */
#include "tier.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "policy_setup.h"
#include "server.h"

/* The held attempt a call answers when it ends: its index and its
 * generation when the call started (a lost attempt's record may be
 * reused). */
typedef struct tier_link {
    uint32_t ai, gen;
} tier_link;

/* One tier.  Fields from `calls` on describe its calls down, and are
 * set only when it has a downstream. */
typedef struct tier {
    sim *s;
    unsigned index;
    const tier_cfg *cfg;
    const server_cfg *server_cfg;
    server *srv;        /* owned unless index 0 (s->srv) */
    metrics own;        /* index > 0 */
    metrics *m;         /* &s->m at the top, else &own */
    uint32_t next_call; /* numbers the calls made to this tier */
    bool calls;
    bool has_stack;
    policy_setup ps;
    size_t request_state_size;
    uint32_t n_clients, n_processes;
    char *client_state, *process_state;
    size_t client_stride, process_stride;
    uint32_t *draws; /* per tier client: sb_host.uniform's counter */
    bool asks_before_send, hears_success, hears_end;
    sb_host host;
} tier;

struct tier_set {
    unsigned n;
    tier t[SIM_MAX_TIERS];
    tier_link *links; /* by request index: calls only */
    size_t links_cap;
};

static unsigned stream_of(unsigned tier_index)
{
    return tier_index << RNG_TIER_SHIFT;
}

/* The tier that makes call r (a request with tier > 0), and the one it
 * calls. */
static tier *caller_of(const sim *s, const request *r)
{
    assert(r->tier > 0 && r->tier < s->tiers->n);
    return &s->tiers->t[r->tier - 1];
}

static tier *callee_of(tier *tr)
{
    return tr + 1;
}

/* ---- The host interface a tier's policies see ------------------------- */

static double host_uniform(const sb_ctx *ctx)
{
    tier *tr = ctx->host_data;
    uint32_t n = tr->draws[ctx->client]++;
    return engine_unit_draw(tr->s, ctx->client,
                            RNG_POLICY + stream_of(tr->index + 1), n);
}

static void host_breaker(const sb_ctx *ctx, int32_t open)
{
    tier *tr = ctx->host_data;
    callee_of(tr)->m->open_breakers += open ? 1 : -1;
}

/* The levels (tokens, budget left) of a tier's policies are not charted
 * yet. */
static void host_level(const sb_ctx *ctx, double fraction)
{
    (void)ctx;
    (void)fraction;
}

static pstack_call call_for(tier *tr, request *r, uint32_t client)
{
    pstack_call c;
    c.client = client;
    c.process = r ? r->process
                  : (uint32_t)((uint64_t)client * tr->n_processes /
                               tr->n_clients);
    c.process_state = tr->process_stride
                          ? tr->process_state +
                                (size_t)c.process * tr->process_stride
                          : NULL;
    c.client_state = tr->client_stride
                         ? tr->client_state + (size_t)client * tr->client_stride
                         : NULL;
    c.request_state = r && tr->request_state_size
                          ? (char *)r + REQUEST_HEAD
                          : NULL;
    c.host = &tr->host;
    c.host_data = tr;
    return c;
}

static driver_request view(const tier *tr, const request *r)
{
    driver_request d;
    memset(&d, 0, sizeof d);
    d.start_ns = r->start;
    d.deadline_ns = r->deadline;
    d.timeout_ns = tr->cfg->timeout_ns;
    d.attempts = r->attempts;
    d.outstanding = r->outstanding;
    d.op = r->op;
    d.keyed = (r->flags & RQ_KEYED) != 0;
    d.critical = (r->flags & RQ_CRITICAL) != 0;
    d.hedge_pending = false;
    return d;
}

static driver_result result_of(const attempt *t, sb_error_kind kind)
{
    driver_result res;
    bool timeout = kind == SB_ERR_TIMEOUT;
    res.number = t->number;
    res.hedge = false;
    res.sent = kind != SB_ERR_REFUSED;
    res.error = kind;
    res.status = timeout ? 0 : t->status;
    res.defect = timeout ? SB_DEFECT_NONE : t->defect;
    res.sent_ns = t->sent;
    res.retry_after_ns = timeout ? -1 : t->retry_after;
    res.pushback_s = timeout || t->pushback == FAULT_PUSHBACK_NONE
                         ? SB_PUSHBACK_NONE
                     : t->pushback == FAULT_PUSHBACK_STOP
                         ? SB_PUSHBACK_STOP
                         : t->pushback_ms / 1e3;
    return res;
}

/* ---- Calls: start and end ---------------------------------------------- */

static void count_outcome(metrics_bucket *b, sb_outcome o)
{
    if (o == SB_OUTCOME_SUCCESS) {
        b->successes++;
        return;
    }
    b->failures++;
    if (o == SB_OUTCOME_GAVE_UP)
        b->gave_up++;
    else if (o == SB_OUTCOME_DEADLINE)
        b->deadline++;
    else if (o == SB_OUTCOME_REFUSED)
        b->refused++;
    else if (o == SB_OUTCOME_QUARANTINED)
        b->quarantined++;
}

/* Is the attempt that call ri answers still held for it? */
static bool holder_waits(const sim *s, uint32_t ri)
{
    tier_link l = s->tiers->links[ri];
    const attempt *h = att_at(s, l.ai);
    return h->gen == l.gen && h->stage == ST_CALLING;
}

/* Call ri (r) of tier tr ends with `outcome`; a is its last attempt as
 * the policy saw it (NULL when no layer hears of the end).  The held
 * attempt, if it is still held, is answered. */
static void end_call(sim *s, tier *tr, uint32_t ri, request *r,
                     sb_outcome outcome, const sb_attempt *a)
{
    tier *down = callee_of(tr);
    r->flags |= RQ_FINISHED;
    r->gen++;
    count_outcome(down->m->cur, outcome);
    if (outcome == SB_OUTCOME_SUCCESS)
        metrics_latency(down->m, s->now - r->start);
    if (tr->hears_end) {
        pstack_call call = call_for(tr, r, r->client);
        pstack_on_request_end(tr->ps.stack, &call, a, outcome);
    }
    bool held = holder_waits(s, ri);
    uint32_t holder = s->tiers->links[ri].ai;
    engine_request_release(s, ri, r);
    if (held)
        server_call_done(tr->srv, holder, outcome == SB_OUTCOME_SUCCESS);
}

/* Send attempt r->attempts + 1 of call ri: the policy allowed it. */
static void launch(sim *s, tier *tr, uint32_t ri, request *r)
{
    tier *down = callee_of(tr);
    uint32_t ai;
    attempt *t = engine_attempt_new(s, ri, r, &ai);
    if (t == NULL)
        return;
    int64_t timeout = tr->cfg->timeout_ns;
    if (r->deadline != NO_DEADLINE && r->deadline - s->now < timeout)
        timeout = r->deadline - s->now;
    t->expires = simtime_add(s->now, timeout);
    t->waiting = 1;
    t->stage = ST_TO_SERVER;
    r->outstanding++;
    r->refs++;
    down->m->cur->attempts++;
    engine_push_lane(s, LANE_TIMEOUT, t->expires, EV_TIMEOUT, ai, t->gen);
    int64_t d = engine_sample(s, &down->server_cfg->network, r->client,
                              RNG_NET + stream_of(down->index),
                              rng_attempt_counter(r->index, t->number, 0));
    engine_push_lane(s, LANE_TO_SERVER, simtime_add(s->now, d),
                     EV_SERVER_ARRIVE, ai, t->gen);
}

/* Ask the stack, then send (or end the call refused). */
static void send_call(sim *s, tier *tr, uint32_t ri, request *r)
{
    if (tr->asks_before_send) {
        driver_request d = view(tr, r);
        pstack_call call = call_for(tr, r, r->client);
        driver_send ds;
        if (driver_before_send(tr->ps.stack, &call, &d, s->now, false,
                               &ds) != 0) {
            engine_fail(s, pstack_error(tr->ps.stack));
            return;
        }
        if (!ds.send) {
            callee_of(tr)->m->cur->refusals++;
            end_call(s, tr, ri, r, ds.outcome, &ds.attempt);
            return;
        }
    }
    launch(s, tr, ri, r);
}

static int grow_links(struct tier_set *ts, uint32_t ri)
{
    if (ri < ts->links_cap)
        return 0;
    size_t cap = ts->links_cap ? ts->links_cap : 1024;
    while (cap <= ri)
        cap *= 2;
    tier_link *l = realloc(ts->links, cap * sizeof *l);
    if (l == NULL)
        return -1;
    ts->links = l;
    ts->links_cap = cap;
    return 0;
}

void tier_call_down(sim *s, unsigned caller, uint32_t ai)
{
    tier *tr = &s->tiers->t[caller];
    tier *down = callee_of(tr);
    const attempt *h = att_at(s, ai);
    const request *hr = req_at(s, h->req);
    uint32_t ri;
    if (pool_alloc(&s->requests, &ri) != 0 || grow_links(s->tiers, ri) != 0) {
        engine_fail(s, "out of memory for a tier's calls");
        return;
    }
    request *r = req_at(s, ri);
    uint32_t gen = r->gen;
    memset(r, 0, REQUEST_HEAD + tr->request_state_size);
    r->gen = gen + 1;
    r->tier = (uint8_t)down->index;
    r->client = h->slot % tr->n_clients;
    r->process = (uint32_t)((uint64_t)r->client * tr->n_processes /
                            tr->n_clients);
    r->index = down->next_call++;
    r->start = s->now;
    r->deadline = tr->cfg->propagate_deadline ? h->expires : NO_DEADLINE;
    r->refs = 1;
    r->op = hr->op;
    r->flags = hr->flags & (RQ_KEYED | RQ_CRITICAL);
    s->tiers->links[ri] = (tier_link){ai, h->gen};
    down->m->cur->offered++;
    if (r->deadline <= s->now) {
        /* Its caller has given up already: nothing is sent. */
        end_call(s, tr, ri, r, SB_OUTCOME_DEADLINE, NULL);
        return;
    }
    send_call(s, tr, ri, r);
}

/* ---- Answers, timeouts, decisions ------------------------------------- */

static void call_failed(sim *s, tier *tr, const attempt *t, uint32_t ri,
                        request *r, sb_error_kind kind)
{
    driver_request d = view(tr, r);
    driver_result res = result_of(t, kind);
    pstack_call call = call_for(tr, r, r->client);
    driver_next nx;
    if (driver_on_failure(tr->ps.stack, &call, &d, s->now, &res, &nx) != 0) {
        engine_fail(s, pstack_error(tr->ps.stack));
        return;
    }
    switch (nx.step) {
    case DRIVER_RETRY:
        r->gen++;
        if (nx.delay_ns == 0)
            engine_push_now(s, EV_SEND, ri, r->gen);
        else
            engine_push(s, simtime_add(s->now, nx.delay_ns), EV_SEND, ri,
                        r->gen);
        break;
    case DRIVER_END:
        end_call(s, tr, ri, r, nx.outcome, &nx.attempt);
        break;
    default:
        /* DRIVER_WAIT and _HEDGE need a second attempt in flight: a
         * tier's call has one at a time. */
        break;
    }
}

static void call_succeeded(sim *s, tier *tr, const attempt *t, uint32_t ri,
                           request *r)
{
    if (!tr->hears_success) {
        end_call(s, tr, ri, r, SB_OUTCOME_SUCCESS, NULL);
        return;
    }
    driver_request d = view(tr, r);
    driver_result res = result_of(t, SB_ERR_NONE);
    pstack_call call = call_for(tr, r, r->client);
    sb_attempt a;
    driver_on_success(tr->ps.stack, &call, &d, s->now, &res, &a);
    end_call(s, tr, ri, r, SB_OUTCOME_SUCCESS, &a);
}

/* An error answer that finds the calling tier waiting: counted in the
 * callee's metrics, once, by its class (as client.c counts a client's). */
static void count_error(metrics_bucket *b, const attempt *t)
{
    if (t->answer_by == ANSWER_REJECTED)
        b->rejections++;
    else if (t->answer_by == ANSWER_INJECTED)
        b->errors++;
    else
        b->other_errors++;
}

void tier_on_response(sim *s, uint32_t ai, uint32_t gen)
{
    attempt *t = att_at(s, ai);
    if (t->gen != gen || t->stage != ST_TO_CLIENT)
        return;
    t->stage = ST_GONE;
    uint32_t ri = t->req;
    request *r = req_at(s, ri);
    tier *tr = caller_of(s, r);
    if (attempt_awaited(t, r)) {
        t->waiting = 0;
        r->outstanding--;
        metrics_attempt_latency(callee_of(tr)->m, s->now - t->sent);
        if (t->result == SB_ERR_NONE)
            call_succeeded(s, tr, t, ri, r);
        else {
            count_error(callee_of(tr)->m->cur, t);
            call_failed(s, tr, t, ri, r, (sb_error_kind)t->result);
        }
    } else {
        t->waiting = 0;
    }
    engine_attempt_release(s, ai, t);
}

void tier_on_timeout(sim *s, uint32_t ai, uint32_t gen)
{
    attempt *t = att_at(s, ai);
    if (t->gen != gen || !t->waiting)
        return;
    t->waiting = 0;
    uint32_t ri = t->req;
    request *r = req_at(s, ri);
    if (!(r->flags & RQ_FINISHED)) {
        tier *tr = caller_of(s, r);
        r->outstanding--;
        callee_of(tr)->m->cur->timeouts++;
        metrics_attempt_latency(callee_of(tr)->m, s->now - t->sent);
        call_failed(s, tr, t, ri, r, SB_ERR_TIMEOUT);
    }
    engine_attempt_release(s, ai, t);
}

/* A retry is due.  A call whose held attempt was lost (an outage of the
 * calling tier answered or dropped it) sends no more: the worker that
 * made it is gone. */
void tier_on_send(sim *s, uint32_t ri, uint32_t gen)
{
    request *r = req_at(s, ri);
    if (r->gen != gen || (r->flags & RQ_FINISHED))
        return;
    tier *tr = caller_of(s, r);
    if (!holder_waits(s, ri)) {
        end_call(s, tr, ri, r, SB_OUTCOME_GAVE_UP, NULL);
        return;
    }
    send_call(s, tr, ri, r);
}

/* ---- Life cycle ---------------------------------------------------------- */

static int start_states(tier *tr, sb_err *e)
{
    pstack *ps = tr->ps.stack;
    tr->client_stride = pstack_client_state_size(ps);
    tr->process_stride = pstack_process_state_size(ps);
    tr->draws = calloc(tr->n_clients, sizeof *tr->draws);
    if (tr->client_stride)
        tr->client_state = calloc(tr->n_clients, tr->client_stride);
    if (tr->process_stride)
        tr->process_state = calloc(tr->n_processes, tr->process_stride);
    if (tr->draws == NULL || (tr->client_stride && !tr->client_state) ||
        (tr->process_stride && !tr->process_state))
        return err_set(e, "out of memory for tier '%s'", tr->cfg->name);
    for (uint32_t p = 0; p < tr->n_processes; p++) {
        /* The process's first client, as client.c does. */
        uint32_t c = (uint32_t)(((uint64_t)p * tr->n_clients +
                                 tr->n_processes - 1) / tr->n_processes);
        pstack_call call = call_for(tr, NULL, c);
        call.process = p;
        call.process_state =
            tr->process_stride
                ? tr->process_state + (size_t)p * tr->process_stride
                : NULL;
        call.client_state = NULL;
        pstack_process_init(ps, &call);
    }
    for (uint32_t c = 0; c < tr->n_clients; c++) {
        pstack_call call = call_for(tr, NULL, c);
        pstack_client_init(ps, &call);
    }
    return 0;
}

/* The tier client of a tier with a downstream: its stack and states. */
static int start_caller(tier *tr, size_t *request_size, sb_err *e)
{
    const tier_cfg *tc = tr->cfg;
    if (tr->server_cfg->workers == SIM_UNLIMITED)
        return err_set(e, "tier '%s' calls tier '%s' and needs a finite "
                       "number of workers (they make its calls)",
                       tc->name, tc[1].name);
    if (policy_setup_build_at(tc->policy, tc->policy_origin, NULL, 0,
                              tc->settings, (int)tc->n_settings, &tr->ps,
                              e) != 0)
        return -1;
    tr->has_stack = true;
    tr->calls = true;
    /* A hedge's timer would be ignored: refuse rather than run a stack
     * that does not do what it says. */
    for (int i = 0; i < pstack_layers(tr->ps.stack); i++)
        if (strcmp(pstack_layer(tr->ps.stack, i)->name, "hedge") == 0)
            return err_set(e, "%s: a tier's calls cannot hedge yet (the "
                           "hedge layer runs for [policy] only)",
                           tc->policy_origin);
    unsigned hooks = pstack_hooks(tr->ps.stack);
    tr->asks_before_send = (hooks & PSTACK_HOOK_BEFORE_SEND) != 0;
    tr->hears_success =
        (hooks & (PSTACK_HOOK_ON_SUCCESS | PSTACK_HOOK_ON_REQUEST_END)) != 0;
    tr->hears_end = (hooks & PSTACK_HOOK_ON_REQUEST_END) != 0;
    tr->host.struct_size = sizeof tr->host;
    tr->host.uniform = host_uniform;
    tr->host.breaker = host_breaker;
    tr->host.level = host_level;
    tr->n_clients = tr->server_cfg->workers;
    tr->n_processes = tc->processes ? tc->processes : tr->n_clients;
    if (tr->n_processes > tr->n_clients)
        tr->n_processes = tr->n_clients;
    tr->request_state_size = pstack_request_state_size(tr->ps.stack);
    if (REQUEST_HEAD + tr->request_state_size > *request_size)
        *request_size = REQUEST_HEAD + tr->request_state_size;
    return start_states(tr, e);
}

int tiers_create(sim *s, size_t *request_size, sb_err *e)
{
    const sim_config *c = s->cfg;
    assert(c->n_tiers >= 2 && c->n_tiers <= SIM_MAX_TIERS);
    struct tier_set *ts = calloc(1, sizeof *ts);
    if (ts == NULL)
        return err_set(e, "out of memory for the tiers");
    s->tiers = ts;
    ts->n = c->n_tiers;
    for (unsigned i = 0; i < ts->n; i++) {
        tier *tr = &ts->t[i];
        tr->s = s;
        tr->index = i;
        tr->cfg = &c->tiers[i];
        tr->server_cfg = i == 0 ? &c->server : &c->tiers[i].server;
        if (i == 0) {
            tr->m = &s->m;
            tr->srv = s->srv;
        } else {
            tr->m = &tr->own;
            if (metrics_init(&tr->own, c->bucket_ns, c->duration_ns,
                             METRICS_MAX_BUCKETS) != 0)
                return err_set(e, "out of memory for tier '%s'",
                               tr->cfg->name);
            if (server_create(s, tr->server_cfg, tr->m, &tr->srv, e) != 0)
                return -1;
        }
        server_set_tier(tr->srv, (uint8_t)i, stream_of(i), i + 1 < ts->n);
        if (i + 1 < ts->n && start_caller(tr, request_size, e) != 0)
            return -1;
    }
    return 0;
}

void tiers_destroy(sim *s)
{
    struct tier_set *ts = s->tiers;
    if (ts == NULL)
        return;
    for (unsigned i = 0; i < ts->n; i++) {
        tier *tr = &ts->t[i];
        if (tr->has_stack)
            policy_setup_free(&tr->ps);
        free(tr->client_state);
        free(tr->process_state);
        free(tr->draws);
        if (i > 0) {
            server_destroy(tr->srv);
            metrics_fini(&tr->own);
        }
    }
    free(ts->links);
    free(ts);
    s->tiers = NULL;
}

server *tiers_server(const sim *s, unsigned i)
{
    return i == 0 ? s->srv : s->tiers->t[i].srv;
}

int tiers_roll(sim *s, int64_t t)
{
    for (unsigned i = 1; i < s->tiers->n; i++)
        if (metrics_roll(&s->tiers->t[i].own, t, NULL, NULL) != 0)
            return -1;
    return 0;
}

void tiers_finish(sim *s, int64_t t)
{
    for (unsigned i = 1; i < s->tiers->n; i++)
        metrics_finish(&s->tiers->t[i].own, t, 0, NULL, NULL);
}

/* ---- sim.h ---------------------------------------------------------------- */

uint32_t sim_tiers(const sim *s)
{
    return s->tiers ? s->tiers->n : 0;
}

void sim_tier(const sim *s, unsigned i, sim_tier_info *out)
{
    const tier *tr = &s->tiers->t[i];
    out->name = tr->cfg->name;
    out->m = tr->m;
    out->calls_down = tr->calls;
    out->workers = server_workers(tr->srv);
}

/* The same arithmetic as the run summary's (summary.c) for the top:
 * time averages over the configured duration, utilization against the
 * configured workers. */
void sim_tier_summary_of(const sim *s, unsigned i, sim_tier_summary *out)
{
    const tier *tr = &s->tiers->t[i];
    const metrics_bucket *t = &tr->m->total.sum;
    double top_offered = (double)s->m.total.sum.offered;
    double dur = (double)s->cfg->duration_ns;
    memset(out, 0, sizeof *out);
    out->name = tr->cfg->name;
    out->workers = tr->server_cfg->workers;
    out->calls_down = tr->calls;
    out->calls = t->offered;
    out->attempts = t->attempts;
    out->amplification = top_offered > 0 ? (double)t->attempts / top_offered
                                         : 0.0;
    out->served = t->served;
    out->rejections = t->rejections;
    out->timeouts = t->timeouts;
    out->successes = t->successes;
    out->failures = t->failures;
    out->mean_busy_workers = t->busy_ns / dur;
    out->utilization = out->workers == SIM_UNLIMITED
                           ? 0.0
                           : out->mean_busy_workers / out->workers;
    out->max_queue = tr->m->total.max_queue;
    out->wasted_work_s = (double)t->wasted_ns / 1e9;
    out->wasted_work_share =
        t->service_ns > 0 ? (double)t->wasted_ns / (double)t->service_ns
                          : 0.0;
}
