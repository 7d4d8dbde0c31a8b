/*
 * concurrent_budget.c -- Envoy's retry budget (cluster circuit breakers,
 * retry_budget): a retry is allowed while the client's active retries are
 * fewer than
 *     max(budget_percent / 100 x active requests, min_retry_concurrency)
 * the product truncated to a whole number, as Envoy's uint64 conversion
 * does.  Defaults 20 % and 3 are Envoy's.  Over budget, Envoy counts
 * upstream_rq_retry_overflow and returns the failure: here, give up.
 *
 * What is counted, per client (an Envoy instance's cluster):
 *   active requests  logical requests from their first send to their end;
 *   active retries   requests granted a retry, from the grant until that
 *                    retry's answer (or the request's end).
 * Envoy counts upstream requests (attempts) as active; counting logical
 * requests differs only while hedges are in flight.  Hedges are not
 * retries and are not limited here.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "builtin.h"

typedef struct cbud {
    double percent;
    int64_t min_concurrency;
} cbud;

typedef struct cbud_client {
    int64_t active_requests;
    int64_t active_retries;
} cbud_client;

typedef struct cbud_req {
    bool counted;  /* counted in active_requests */
    bool retrying; /* counted in active_retries */
} cbud_req;

static const sb_param cbud_params[] = {
    {"budget_percent", SB_PARAM_REAL, "20",
     "active retries allowed, in % of active requests (Envoy)", NULL, 0, 100},
    {"min_retry_concurrency", SB_PARAM_INT, "3",
     "active retries allowed whatever the traffic (Envoy)", NULL, 0, 1e6},
    {0}};

static int cbud_create(const sb_value *v, void **shared, char *err,
                       size_t errlen)
{
    (void)err;
    (void)errlen;
    cbud *p = malloc(sizeof *p);
    if (p == NULL)
        return -1;
    p->percent = v[0].d;
    p->min_concurrency = v[1].i;
    *shared = p;
    return 0;
}

static size_t cbud_client_size(const void *shared)
{
    (void)shared;
    return sizeof(cbud_client);
}

static size_t cbud_request_size(const void *shared)
{
    (void)shared;
    return sizeof(cbud_req);
}

/* The largest number of active retries allowed now. */
static int64_t limit(const cbud *p, const cbud_client *c)
{
    int64_t share = (int64_t)(p->percent / 100.0 * (double)c->active_requests);
    return share > p->min_concurrency ? share : p->min_concurrency;
}

static void retry_done(cbud_client *c, cbud_req *r)
{
    if (r->retrying) {
        r->retrying = false;
        c->active_retries--;
    }
}

static sb_verdict cbud_before_send(const sb_ctx *ctx, const sb_attempt *a)
{
    (void)a;
    cbud_client *c = ctx->client_state;
    cbud_req *r = ctx->request_state;
    if (r && !r->counted) {
        r->counted = true;
        c->active_requests++;
    }
    return sb_allow();
}

static void cbud_on_success(const sb_ctx *ctx, const sb_attempt *a)
{
    (void)a;
    if (ctx->request_state)
        retry_done(ctx->client_state, ctx->request_state);
}

static sb_decision cbud_on_failure(const sb_ctx *ctx, const sb_attempt *a)
{
    const cbud *p = ctx->shared;
    cbud_client *c = ctx->client_state;
    cbud_req *r = ctx->request_state;
    if (r == NULL)
        return sb_pass();
    retry_done(c, r);
    if (a->outstanding > 0)
        return sb_pass(); /* a hedge still waits: nothing is decided now */
    if (c->active_retries >= limit(p, c))
        return sb_give_up("concurrent_budget: retry overflow");
    r->retrying = true;
    c->active_retries++;
    return sb_pass();
}

static void cbud_on_request_end(const sb_ctx *ctx, const sb_attempt *a,
                                sb_outcome outcome)
{
    (void)a;
    (void)outcome;
    cbud_client *c = ctx->client_state;
    cbud_req *r = ctx->request_state;
    if (r == NULL)
        return;
    retry_done(c, r);
    if (r->counted) {
        r->counted = false;
        c->active_requests--;
    }
}

const sb_policy policy_concurrent_budget = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_LAYER,
    .name = "concurrent_budget",
    .doc = "Envoy retry budget: active retries <= max(budget_percent% of "
           "active requests, min_retry_concurrency).",
    .params = cbud_params,
    .create = cbud_create,
    .destroy = free,
    .client_state_size = cbud_client_size,
    .request_state_size = cbud_request_size,
    .before_send = cbud_before_send,
    .on_success = cbud_on_success,
    .on_failure = cbud_on_failure,
    .on_request_end = cbud_on_request_end,
};
