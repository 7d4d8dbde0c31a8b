/*
 * caller.c -- calls through a policy stack (caller.h).
 */
#include "caller.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

_Static_assert(sizeof(request) <= 64, "a request record head stays 64 bytes");

caller *caller_of(const sim *s, const request *r)
{
    assert(r->caller > 0 && r->caller <= s->n_callers);
    return s->callers[r->caller];
}

/* ---- The host interface a caller's own stack sees ---------------------- */

static double host_uniform(const sb_ctx *ctx)
{
    caller *c = ctx->host_data;
    uint32_t n = c->draws[ctx->client]++;
    return engine_unit_draw(c->s, ctx->client, c->policy_stream, n);
}

static void host_breaker(const sb_ctx *ctx, int32_t open)
{
    caller *c = ctx->host_data;
    c->m->open_breakers += open ? 1 : -1;
}

/* The levels (tokens, budget left) of a caller's own stack are not
 * charted: the chart shows the clients'. */
static void host_level(const sb_ctx *ctx, double fraction)
{
    (void)ctx;
    (void)fraction;
}

static uint32_t process_for(const caller *c, uint32_t client)
{
    return (uint32_t)((uint64_t)client * c->n_processes / c->n_clients);
}

static pstack_call call_for(caller *c, request *r, uint32_t client)
{
    sim *s = c->s;
    pstack_call k;
    k.client = client;
    k.process = r ? r->process : process_for(c, client);
    if (c->owns) {
        k.process_state =
            c->process_stride
                ? c->process_state + (size_t)k.process * c->process_stride
                : NULL;
        k.client_state =
            c->client_stride
                ? c->client_state + (size_t)client * c->client_stride
                : NULL;
        k.request_state =
            r && c->request_state_size ? (char *)r + REQUEST_HEAD : NULL;
        k.host = &c->host;
        k.host_data = c;
    } else {
        k.process_state = process_state(s, k.process);
        k.client_state = client_state(s, client);
        k.request_state = r ? req_state(s, r) : NULL;
        k.host = &s->host;
        k.host_data = s;
    }
    return k;
}

static int64_t timeout_of(const caller *c)
{
    return c->timeout_ns ? c->timeout_ns : c->s->timeout_ns;
}

static driver_request view(const caller *c, const request *r)
{
    driver_request d;
    memset(&d, 0, sizeof d);
    d.start_ns = r->start;
    d.deadline_ns = r->deadline;
    d.timeout_ns = timeout_of(c);
    d.attempts = r->attempts;
    d.outstanding = r->outstanding;
    d.op = r->op;
    d.flags = r->flags & (DRIVER_KEYED | DRIVER_CRITICAL);
    return d;
}

/* ---- Calls: start and end ---------------------------------------------- */

/* Call ri (r) ends with `outcome`; a is its last attempt as the policy
 * saw it (NULL when no layer hears of the end). */
static void end_call(caller *c, uint32_t ri, request *r, sb_outcome outcome,
                     sb_refusal why, const sb_attempt *a)
{
    sim *s = c->s;
    r->flags |= RQ_FINISHED;
    r->gen++;
    engine_count_outcome(c->m->cur, outcome, why);
    if (outcome == SB_OUTCOME_SUCCESS)
        metrics_latency(c->m, s->now - r->start);
    if (c->hears_end) {
        pstack_call call = call_for(c, r, r->client);
        pstack_on_request_end(c->stack, &call, a, outcome);
    }
    c->ops->ended(c, ri, r, outcome);
    engine_request_release(s, ri, r);
}

/* Send attempt r->attempts + 1 of call ri: the stack allowed it. */
static void launch(caller *c, uint32_t ri, request *r)
{
    sim *s = c->s;
    uint32_t ai;
    attempt *t = engine_attempt_new(s, ri, r, &ai);
    if (t == NULL)
        return;
    int64_t timeout = timeout_of(c);
    if (r->deadline != NO_DEADLINE && r->deadline - s->now < timeout)
        timeout = r->deadline - s->now;
    t->expires = simtime_add(s->now, timeout);
    t->waiting = 1;
    t->stage = ST_TO_SERVER;
    r->outstanding++;
    r->refs++;
    c->m->cur->attempts++;
    if (c->ops->sent)
        c->ops->sent(c, r, t);
    engine_push(s, t->expires, EV_TIMEOUT, ai, t->gen);
    int64_t d = engine_sample(s, c->network, r->client, c->net_stream,
                              rng_attempt_counter(r->index, t->number, 0));
    engine_push(s, simtime_add(s->now, d),
                     EV_SERVER_ARRIVE, ai, t->gen);
}

/* Ask the stack, then send (or end the call refused). */
static void send_call(caller *c, uint32_t ri, request *r)
{
    sim *s = c->s;
    if (c->asks_before_send) {
        driver_request d = view(c, r);
        pstack_call call = call_for(c, r, r->client);
        driver_send ds;
        if (driver_before_send(c->stack, &call, &d, s->now, false, &ds) !=
            0) {
            engine_fail(s, pstack_error(c->stack));
            return;
        }
        if (!ds.send) {
            c->m->cur->refusals++;
            end_call(c, ri, r, ds.outcome, ds.verdict.v.refusal,
                     &ds.attempt);
            return;
        }
    }
    launch(c, ri, r);
}

/* Room in s->call_links for request index ri. */
static int grow_links(sim *s, uint32_t ri)
{
    if (ri < s->call_links_cap)
        return 0;
    size_t cap = s->call_links_cap ? s->call_links_cap : 1024;
    while (cap <= ri)
        cap *= 2;
    uint64_t *l = realloc(s->call_links, cap * sizeof *l);
    if (l == NULL)
        return -1;
    s->call_links = l;
    s->call_links_cap = cap;
    return 0;
}

request *caller_new_call(caller *c, uint32_t client, uint64_t link,
                         uint32_t *ri)
{
    sim *s = c->s;
    if (pool_alloc(&s->requests, ri) != 0) {
        engine_fail(s, "out of memory for calls");
        return NULL;
    }
    if (grow_links(s, *ri) != 0) {
        pool_free(&s->requests, *ri);
        engine_fail(s, "out of memory for calls");
        return NULL;
    }
    s->call_links[*ri] = link;
    request *r = req_at(s, *ri);
    uint32_t gen = r->gen;
    memset(r, 0, REQUEST_HEAD + c->request_state_size);
    r->gen = gen + 1;
    r->caller = c->id;
    r->client = client;
    r->process = process_for(c, client);
    r->start = s->now;
    r->deadline = NO_DEADLINE;
    r->refs = 1;
    return r;
}

void caller_start(caller *c, uint32_t ri, request *r)
{
    c->m->cur->offered++;
    if (r->deadline <= c->s->now) {
        /* Whoever wanted it has given up already: nothing is sent. */
        end_call(c, ri, r, SB_OUTCOME_DEADLINE, SB_REFUSAL_OTHER, NULL);
        return;
    }
    send_call(c, ri, r);
}

/* ---- Answers, timeouts, decisions ------------------------------------- */

static void call_failed(caller *c, const attempt *t, uint32_t ri, request *r,
                        sb_error_kind kind)
{
    sim *s = c->s;
    driver_request d = view(c, r);
    driver_result res = engine_result_of(t, kind);
    pstack_call call = call_for(c, r, r->client);
    driver_next nx;
    if (driver_on_failure(c->stack, &call, &d, s->now, &res, &nx) != 0) {
        engine_fail(s, pstack_error(c->stack));
        return;
    }
    switch (nx.step) {
    case DRIVER_RETRY:
        r->gen++;
        if (c->ops->retry_in)
            c->ops->retry_in(c, ri, r, nx.delay_ns);
        if (nx.delay_ns == 0)
            engine_push_now(s, EV_SEND, ri, r->gen);
        else
            engine_push(s, simtime_add(s->now, nx.delay_ns), EV_SEND, ri,
                        r->gen);
        break;
    case DRIVER_END:
        end_call(c, ri, r, nx.outcome, SB_REFUSAL_OTHER, &nx.attempt);
        break;
    default:
        /* DRIVER_WAIT and _HEDGE need a second attempt in flight, and a
         * call has one at a time (a hedge layer is refused when the
         * caller is built): left unanswered, the call would hang. */
        engine_fail(s, "internal error: a call was told to wait for a "
                       "second attempt, and it has only one");
        break;
    }
}

static void call_succeeded(caller *c, const attempt *t, uint32_t ri,
                           request *r)
{
    if (!c->hears_success) {
        end_call(c, ri, r, SB_OUTCOME_SUCCESS, SB_REFUSAL_OTHER, NULL);
        return;
    }
    driver_request d = view(c, r);
    driver_result res = engine_result_of(t, SB_ERR_NONE);
    pstack_call call = call_for(c, r, r->client);
    sb_attempt a;
    driver_on_success(c->stack, &call, &d, c->s->now, &res, &a);
    end_call(c, ri, r, SB_OUTCOME_SUCCESS, SB_REFUSAL_OTHER, &a);
}

void caller_on_response(sim *s, uint32_t ai, uint32_t gen)
{
    attempt *t = att_at(s, ai);
    if (t->gen != gen || t->stage != ST_TO_CLIENT)
        return;
    t->stage = ST_GONE;
    uint32_t ri = t->req;
    request *r = req_at(s, ri);
    caller *c = caller_of(s, r);
    if (attempt_awaited(t, r)) {
        t->waiting = 0;
        r->outstanding--;
        metrics_attempt_latency(c->m, s->now - t->sent);
        if (c->ops->attempt_ended)
            c->ops->attempt_ended(c, r, t);
        if (t->result == SB_ERR_NONE) {
            call_succeeded(c, t, ri, r);
        } else {
            engine_count_error(c->m->cur, t);
            call_failed(c, t, ri, r, (sb_error_kind)t->result);
        }
    } else {
        t->waiting = 0;
    }
    engine_attempt_release(s, ai, t);
}

void caller_on_timeout(sim *s, uint32_t ai, uint32_t gen)
{
    attempt *t = att_at(s, ai);
    if (t->gen != gen || !t->waiting)
        return;
    t->waiting = 0;
    uint32_t ri = t->req;
    request *r = req_at(s, ri);
    if (!(r->flags & RQ_FINISHED)) {
        caller *c = caller_of(s, r);
        r->outstanding--;
        c->m->cur->timeouts++;
        metrics_attempt_latency(c->m, s->now - t->sent);
        if (c->ops->attempt_ended)
            c->ops->attempt_ended(c, r, t);
        call_failed(c, t, ri, r, SB_ERR_TIMEOUT);
    }
    engine_attempt_release(s, ai, t);
}

void caller_released(sim *s, uint32_t ri, const request *r)
{
    caller *c = caller_of(s, r);
    if (c->ops->released)
        c->ops->released(c, ri);
}

void caller_abandon(caller *c, uint32_t ri)
{
    request *r = req_at(c->s, ri);
    if (r->flags & RQ_FINISHED)
        return;
    end_call(c, ri, r, SB_OUTCOME_GAVE_UP, SB_REFUSAL_OTHER, NULL);
}

void caller_on_send(sim *s, uint32_t ri, uint32_t gen)
{
    request *r = req_at(s, ri);
    if (r->gen != gen || (r->flags & RQ_FINISHED))
        return;
    caller *c = caller_of(s, r);
    if (c->ops->wanted && !c->ops->wanted(c, ri)) {
        end_call(c, ri, r, SB_OUTCOME_GAVE_UP, SB_REFUSAL_OTHER, NULL);
        return;
    }
    send_call(c, ri, r);
}

/* ---- Life cycle ---------------------------------------------------------- */

static int enroll(caller *c, sim *s, sb_err *e)
{
    if (s->n_callers == SIM_MAX_CALLERS)
        return err_set(e, "more than %d callers (tiers and pipeline steps)",
                       SIM_MAX_CALLERS);
    c->s = s;
    c->id = ++s->n_callers;
    s->callers[c->id] = c;
    return 0;
}

static void hooks_of(caller *c)
{
    unsigned hooks = pstack_hooks(c->stack);
    c->asks_before_send = (hooks & PSTACK_HOOK_BEFORE_SEND) != 0;
    c->hears_success =
        (hooks & (PSTACK_HOOK_ON_SUCCESS | PSTACK_HOOK_ON_REQUEST_END)) != 0;
    c->hears_end = (hooks & PSTACK_HOOK_ON_REQUEST_END) != 0;
}

/* A hedge's timer would be ignored: refuse rather than run a stack that
 * does not do what it says. */
static int refuse_hedge(const caller *c, const char *origin, sb_err *e)
{
    for (int i = 0; i < pstack_layers(c->stack); i++)
        if (strcmp(pstack_layer(c->stack, i)->name, "hedge") == 0)
            return err_set(e, "%s: the calls of %s cannot hedge yet (a "
                           "call has one attempt in flight at a time; the "
                           "hedge layer runs for [policy] only)",
                           origin, c->name);
    return 0;
}

static int start_states(caller *c, sb_err *e)
{
    pstack *ps = c->stack;
    c->client_stride = pstack_client_state_size(ps);
    c->process_stride = pstack_process_state_size(ps);
    c->draws = calloc(c->n_clients, sizeof *c->draws);
    if (c->client_stride)
        c->client_state = calloc(c->n_clients, c->client_stride);
    if (c->process_stride)
        c->process_state = calloc(c->n_processes, c->process_stride);
    if (c->draws == NULL || (c->client_stride && !c->client_state) ||
        (c->process_stride && !c->process_state))
        return err_set(e, "out of memory for %s", c->name);
    for (uint32_t p = 0; p < c->n_processes; p++) {
        /* The process's first client, as client.c does. */
        uint32_t k = (uint32_t)(((uint64_t)p * c->n_clients +
                                 c->n_processes - 1) / c->n_processes);
        pstack_call call = call_for(c, NULL, k);
        call.process = p;
        call.client_state = NULL;
        pstack_process_init(ps, &call);
    }
    for (uint32_t k = 0; k < c->n_clients; k++) {
        pstack_call call = call_for(c, NULL, k);
        pstack_client_init(ps, &call);
    }
    return 0;
}

int caller_init_own(caller *c, sim *s, const char *name, const char *spec,
                    const char *origin, const setting *settings,
                    int n_settings, uint32_t n_clients, uint32_t n_processes,
                    unsigned policy_stream, size_t *request_size, sb_err *e)
{
    c->name = name;
    if (enroll(c, s, e) != 0)
        return -1;
    if (policy_setup_build_at(spec, origin, NULL, 0, settings, n_settings,
                              &c->ps, e) != 0)
        return -1;
    c->owns = true;
    c->stack = c->ps.stack;
    if (refuse_hedge(c, origin, e) != 0)
        return -1;
    hooks_of(c);
    c->host.struct_size = sizeof c->host;
    c->host.uniform = host_uniform;
    c->host.breaker = host_breaker;
    c->host.level = host_level;
    c->policy_stream = policy_stream;
    c->n_clients = n_clients;
    c->n_processes = n_processes ? n_processes : n_clients;
    if (c->n_processes > c->n_clients)
        c->n_processes = c->n_clients;
    c->request_state_size = pstack_request_state_size(c->stack);
    if (REQUEST_HEAD + c->request_state_size > *request_size)
        *request_size = REQUEST_HEAD + c->request_state_size;
    return start_states(c, e);
}

int caller_init_shared(caller *c, sim *s, const char *name, sb_err *e)
{
    c->name = name;
    if (enroll(c, s, e) != 0)
        return -1;
    c->owns = false;
    c->stack = s->ps;
    if (refuse_hedge(c, "[policy] name", e) != 0)
        return -1;
    hooks_of(c);
    c->n_clients = s->n_clients;
    c->n_processes = s->n_processes;
    c->request_state_size = s->request_state_size;
    return 0;
}

void caller_fini(caller *c)
{
    if (c->owns) {
        if (c->ps.stack)
            policy_setup_free(&c->ps);
        free(c->client_state);
        free(c->process_state);
        free(c->draws);
    }
    memset(c, 0, sizeof *c);
}
