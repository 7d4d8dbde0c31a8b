/*
 * caller.c -- calls through a policy stack (caller.h): callers built,
 * calls made and linked to what their owners know them by.  The calls
 * themselves run in the request lifecycle (request.c).
 */
#include "caller.h"

#include <stdlib.h>
#include <string.h>

#include "engine.h"

static requester *add(sim *s, const caller_spec *spec, sb_err *e)
{
    requester *rq = requester_add(s, spec->name, spec->ops, e);
    if (rq == NULL)
        return NULL;
    rq->owner = spec->owner;
    rq->counts_in = spec->counts_in;
    rq->net_stream = spec->net_stream;
    rq->network = spec->network;
    rq->timeout_ns = spec->timeout_ns;
    return rq;
}

/* A hedge's timer would be ignored: refuse rather than run a stack that
 * does not do what it says. */
static int refuse_hedge(const requester *rq, const char *origin, sb_err *e)
{
    for (int i = 0; i < pstack_layers(rq->stack); i++)
        if (strcmp(pstack_layer(rq->stack, i)->name, "hedge") == 0)
            return err_set(e,
                           "%s: the calls of %s cannot hedge yet (a "
                           "call has one attempt in flight at a time; the "
                           "hedge layer runs for [policy] only)",
                           origin, rq->name);
    return 0;
}

int caller_add_own(sim *s, const caller_spec *spec, const char *policy,
                   const char *origin, const setting *settings, int n_settings,
                   uint32_t n_clients, uint32_t n_processes,
                   unsigned policy_stream, uint8_t *id, sb_err *e)
{
    requester *rq = add(s, spec, e);
    if (rq == NULL)
        return -1;
    *id = rq->id;
    if (policy_setup_build_at(policy, origin, NULL, 0, settings, n_settings,
                              &rq->ps, e) != 0)
        return -1;
    rq->owns_stack = true;
    requester_set_stack(rq, rq->ps.stack);
    if (refuse_hedge(rq, origin, e) != 0)
        return -1;
    rq->policy_stream = policy_stream;
    requests_fit_state(&s->rqs, rq->request_state_size);
    return requester_start_state(rq, n_clients, n_processes, SIM_UNLIMITED, e);
}

int caller_add_shared(sim *s, const caller_spec *spec, uint8_t *id, sb_err *e)
{
    requester *rq = add(s, spec, e);
    if (rq == NULL)
        return -1;
    *id = rq->id;
    requester_share_clients(rq);
    return refuse_hedge(rq, "[policy] name", e);
}

/* Room in the links for request index ri. */
static int grow_links(call_links *l, uint32_t ri)
{
    if (ri < l->cap)
        return 0;
    size_t cap = l->cap ? l->cap : 1024;
    while (cap <= ri)
        cap *= 2;
    uint64_t *w = realloc(l->link, cap * sizeof *w);
    if (w == NULL)
        return -1;
    l->link = w;
    l->cap = cap;
    return 0;
}

request *caller_new_call(sim *s, uint8_t id, uint32_t client, uint64_t link,
                         uint32_t *ri)
{
    request *r = request_new(&s->rqs.rq[id], client, ri);
    if (r == NULL)
        return NULL;
    if (grow_links(&s->links, *ri) != 0) {
        r->refs = 0;
        pool_free(&s->rqs.requests, *ri);
        engine_fail(s, "out of memory for calls");
        return NULL;
    }
    s->links.link[*ri] = link;
    return r;
}

uint64_t caller_link(const sim *s, uint32_t ri)
{
    return s->links.link[ri];
}

void call_links_fini(call_links *l)
{
    free(l->link);
    memset(l, 0, sizeof *l);
}

int call_links_clone(call_links *l, const call_links *src)
{
    l->cap = 0;
    l->link = NULL;
    if (src->cap == 0)
        return 0;
    l->link = malloc(src->cap * sizeof *l->link);
    if (l->link == NULL)
        return -1;
    memcpy(l->link, src->link, src->cap * sizeof *l->link);
    l->cap = src->cap;
    return 0;
}

bool call_links_sane(const sim *s)
{
    const pool *p = &s->rqs.requests;
    for (uint32_t i = 0; i < p->next_new; i++) {
        const request *r = pool_at(p, i);
        if (r->refs > 0 && r->caller > 0 && i >= s->links.cap)
            return false;
    }
    return true;
}
