/*
 * tier.c -- service chains (tier.h): the tiers below the top, and the
 * tier clients that make each tier's calls to the next one down (a
 * caller each, caller.h).
 */
#include "tier.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caller.h"
#include "server.h"

/* A call's link (caller_link) is the held attempt it answers when it
 * ends: its index, and its generation when the call started (a lost
 * attempt's record may be reused). */
static uint64_t link_of(uint32_t ai, uint32_t gen)
{
    return (uint64_t)gen << 32 | ai;
}

static uint32_t held_of(const sim *s, uint32_t ri)
{
    return (uint32_t)caller_link(s, ri);
}

/* One tier.  `calls` is set when it has a downstream: its workers' calls
 * down are made by `caller`. */
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
    uint8_t caller;   /* its requester (request.h), when calls */
    uint32_t workers; /* its caller's clients: one per worker */
    char caller_name[SIM_NAME_MAX + 16];
} tier;

struct tier_set {
    unsigned n;
    tier t[SIM_MAX_TIERS];
};

static unsigned stream_of(unsigned tier_index)
{
    return tier_index << RNG_TIER_SHIFT;
}

/* ---- Calls down ---------------------------------------------------------- */

/* Is the attempt that call ri answers still held for it? */
static bool holder_waits(const sim *s, uint32_t ri)
{
    uint64_t l = caller_link(s, ri);
    const attempt *h = att_at(s, (uint32_t)l);
    return h->gen == (uint32_t)(l >> 32) && h->stage == ST_CALLING;
}

/* A retry is due.  A call whose held attempt was lost (an outage of the
 * calling tier answered or dropped it) sends no more: the worker that
 * made it is gone. */
static bool call_wanted(const requester *rq, uint32_t ri)
{
    return holder_waits(rq->s, ri);
}

/* The call ended: the held attempt, if it is still held, is answered. */
static void call_ended(requester *rq, uint32_t ri, request *r, sb_outcome o,
                       const char *reason)
{
    (void)r;
    (void)reason;
    sim *s = rq->s;
    const tier *tr = &s->tiers->t[rq->owner];
    if (holder_waits(s, ri))
        server_call_done(tr->srv, held_of(s, ri), o == SB_OUTCOME_SUCCESS);
}

static const requester_ops tier_calls = {
    .ended = call_ended,
    .wanted = call_wanted,
};

void tier_call_down(sim *s, unsigned caller_index, uint32_t ai)
{
    tier *tr = &s->tiers->t[caller_index];
    tier *down = tr + 1;
    const attempt *h = att_at(s, ai);
    const request *hr = req_at(s, h->req);
    uint32_t ri;
    request *r = caller_new_call(s, tr->caller, h->slot % tr->workers,
                                 link_of(ai, h->gen), &ri);
    if (r == NULL)
        return;
    r->tier = (uint8_t)down->index;
    r->index = down->next_call++;
    r->deadline = tr->cfg->propagate_deadline ? h->expires : NO_DEADLINE;
    r->op = hr->op;
    r->flags = hr->flags & (RQ_KEYED | RQ_CRITICAL);
    request_start(s, ri, r);
}

/* ---- Life cycle ---------------------------------------------------------- */

/* The tier client of a tier with a downstream: its stack and states. */
static int start_caller(tier *tr, sb_err *e)
{
    const tier_cfg *tc = tr->cfg;
    if (tr->server_cfg->workers == SIM_UNLIMITED)
        return err_set(e,
                       "tier '%s' calls tier '%s' and needs a finite "
                       "number of workers (they make its calls)",
                       tc->name, tc[1].name);
    tier *down = tr + 1;
    snprintf(tr->caller_name, sizeof tr->caller_name, "tier '%s'", tc->name);
    caller_spec spec = {
        .name = tr->caller_name,
        .ops = &tier_calls,
        .owner = tr->index,
        .counts_in = (uint8_t)down->index,
        .net_stream = RNG_NET + stream_of(down->index),
        .network = &down->server_cfg->network,
        .timeout_ns = tc->timeout_ns,
    };
    tr->calls = true;
    tr->workers = tr->server_cfg->workers;
    return caller_add_own(tr->s, &spec, tc->policy, tc->policy_origin,
                          tc->settings, (int)tc->n_settings, tr->workers,
                          tc->processes, RNG_POLICY + stream_of(tr->index + 1),
                          &tr->caller, e);
}

int tiers_create(sim *s, sb_err *e)
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
                return err_set(e, "out of memory for tier '%s'", tr->cfg->name);
            if (server_create(s, tr->server_cfg, tr->m, &tr->srv, e) != 0)
                return -1;
        }
        server_set_tier(tr->srv, (uint8_t)i, stream_of(i), i + 1 < ts->n);
    }
    /* Each caller needs the tier below it built. */
    for (unsigned i = 0; i + 1 < ts->n; i++)
        if (start_caller(&ts->t[i], e) != 0)
            return -1;
    return 0;
}

void tiers_destroy(sim *s)
{
    struct tier_set *ts = s->tiers;
    if (ts == NULL)
        return;
    for (unsigned i = 0; i < ts->n; i++) {
        tier *tr = &ts->t[i];
        if (i > 0) {
            server_destroy(tr->srv);
            metrics_fini(&tr->own);
        }
    }
    free(ts);
    s->tiers = NULL;
}

int tiers_clone(sim *s, const sim *src)
{
    struct tier_set *ts = malloc(sizeof *ts);
    if (ts == NULL)
        return -1;
    *ts = *src->tiers;
    for (unsigned i = 0; i < ts->n; i++) {
        ts->t[i].s = s;
        ts->t[i].srv = i == 0 ? s->srv : NULL;
        ts->t[i].own.buckets = NULL;
        ts->t[i].m = i == 0 ? &s->m : &ts->t[i].own;
    }
    s->tiers = ts;
    for (unsigned i = 1; i < ts->n; i++) {
        const tier *from = &src->tiers->t[i];
        tier *tr = &ts->t[i];
        if (metrics_clone(&tr->own, &from->own) != 0 ||
            server_clone(from->srv, s, &tr->own, &tr->srv) != 0)
            return -1;
    }
    for (unsigned i = 0; i < ts->n; i++)
        if (ts->t[i].calls)
            requester_rename(s, ts->t[i].caller, ts->t[i].caller_name);
    return 0;
}

server *tiers_server(const sim *s, unsigned i)
{
    return i == 0 ? s->srv : s->tiers->t[i].srv;
}

metrics *tiers_metrics(sim *s, unsigned i)
{
    return i == 0 ? &s->m : s->tiers->t[i].m;
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

bool tiers_sane(const sim *s)
{
    const struct tier_set *ts = s->tiers;
    if (ts->n < 2 || ts->n > SIM_MAX_TIERS)
        return false;
    for (unsigned i = 0; i < ts->n; i++) {
        const tier *tr = &ts->t[i];
        if (tr->index != i || (i == 0) != (tr->srv == s->srv) ||
            tr->m != (i == 0 ? &s->m : &tr->own) || !server_sane(tr->srv) ||
            (i > 0 && !metrics_sane(&tr->own)) || tr->calls != (i + 1 < ts->n))
            return false;
        if (tr->calls) {
            const requester *rq = &s->rqs.rq[tr->caller];
            if (rq->owner != i || rq->counts_in != i + 1 ||
                rq->n_clients != tr->workers)
                return false;
        }
    }
    return true;
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
    out->amplification =
        top_offered > 0 ? (double)t->attempts / top_offered : 0.0;
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
        t->service_ns > 0 ? (double)t->wasted_ns / (double)t->service_ns : 0.0;
}
