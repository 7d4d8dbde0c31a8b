/*
 * concurrent_budget.c -- Envoy's retry budget (cluster circuit breakers,
 * retry_budget): a retry is allowed while the process's active retries are
 * fewer than
 *     max(budget_percent / 100 x active requests, min_retry_concurrency)
 * the product truncated to a whole number, as Envoy's uint64 conversion
 * does.  Defaults 20 % and 3 are Envoy's.  Over budget, Envoy counts
 * upstream_rq_retry_overflow and returns the failure: here, give up.
 *
 * What is counted, per process (an Envoy instance's cluster), as Envoy's
 * ResourceManagerImpl::RetryBudgetImpl counts it
 * (source/common/upstream/resource_manager_impl.h):
 *   active requests  upstream requests: attempts in flight plus those
 *                    waiting for a connection of the pool (Envoy's
 *                    rq_active + rq_pending).  A request waiting out its
 *                    backoff has no upstream request and does not count.
 *   active retries   Envoy's retries resource: taken when a retry is
 *                    granted (RetryStateImpl::shouldRetry inc()), held
 *                    through the backoff and the retry's flight, given
 *                    back at the retry's answer or the request's end
 *                    (resetRetry).
 * A layer is not told when an attempt really leaves (a later layer may
 * refuse it), so each hook reconciles the process's count with the
 * request's own: before_send counts the attempt it is asked about, and
 * every later hook of the request sets the request's share back to
 * a->outstanding, the attempts the host says are still awaited.  Hedges
 * count as active requests; they are not retries and are not limited
 * here (Envoy's per-try-timeout hedges take the retries resource).
 */
#include <stdbool.h>
#include <stdlib.h>

#include "builtin.h"

typedef struct cbud {
    double percent;
    int64_t min_concurrency;
} cbud;

typedef struct cbud_process {
    int64_t active_requests;
    int64_t active_retries;
} cbud_process;

typedef struct cbud_req {
    uint32_t inflight; /* its attempts counted in active_requests */
    bool retrying;     /* counted in active_retries */
} cbud_req;

enum { P_BUDGET_PERCENT, P_MIN_RETRY_CONCURRENCY };

static const sb_param cbud_params[] = {
    [P_BUDGET_PERCENT] =
        {"budget_percent", SB_PARAM_REAL, "20",
         "active retries allowed, in % of active requests (Envoy)", NULL, 0,
         100},
    [P_MIN_RETRY_CONCURRENCY] =
        {"min_retry_concurrency", SB_PARAM_INT, "3",
         "active retries allowed whatever the traffic (Envoy)", NULL, 0, 1e6},
    {0}};

static int32_t cbud_create(const sb_value *v, void **shared, char *err,
                           size_t errlen)
{
    (void)err;
    (void)errlen;
    cbud *p = malloc(sizeof *p);
    if (p == NULL)
        return -1;
    p->percent = v[P_BUDGET_PERCENT].d;
    p->min_concurrency = v[P_MIN_RETRY_CONCURRENCY].i;
    *shared = p;
    return 0;
}

static size_t cbud_process_size(const void *shared)
{
    (void)shared;
    return sizeof(cbud_process);
}

static size_t cbud_request_size(const void *shared)
{
    (void)shared;
    return sizeof(cbud_req);
}

/* The largest number of active retries allowed now. */
static int64_t limit(const cbud *p, const cbud_process *c)
{
    int64_t share = (int64_t)(p->percent / 100.0 * (double)c->active_requests);
    return share > p->min_concurrency ? share : p->min_concurrency;
}

static void retry_done(cbud_process *c, cbud_req *r)
{
    if (r->retrying) {
        r->retrying = false;
        c->active_retries--;
    }
}

/* The request has n attempts out: make the process's count agree. */
static void set_inflight(cbud_process *c, cbud_req *r, uint32_t n)
{
    c->active_requests += (int64_t)n - (int64_t)r->inflight;
    r->inflight = n;
}

static void cbud_before_send(const sb_ctx *ctx, const sb_attempt *a,
                             sb_verdict *out)
{
    (void)out;
    cbud_req *r = ctx->request_state;
    if (r)
        set_inflight(ctx->process_state, r, a->outstanding + 1);
}

static void cbud_on_success(const sb_ctx *ctx, const sb_attempt *a)
{
    cbud_req *r = ctx->request_state;
    if (r == NULL)
        return;
    set_inflight(ctx->process_state, r, a->outstanding);
    retry_done(ctx->process_state, r);
}

static void cbud_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                            sb_decision *out)
{
    const cbud *p = ctx->shared;
    cbud_process *c = ctx->process_state;
    cbud_req *r = ctx->request_state;
    if (r == NULL)
        return;
    set_inflight(c, r, a->outstanding);
    retry_done(c, r);
    if (a->outstanding > 0)
        return; /* a hedge still waits: nothing is decided now */
    if (c->active_retries >= limit(p, c))
        sb_give_up(out, "concurrent_budget: retry overflow");
}

/* A retry granted by the whole stack is active from now until its
 * answer or the request's end. */
static void cbud_on_decision(const sb_ctx *ctx, const sb_attempt *a,
                             const sb_decision *final)
{
    (void)a;
    cbud_process *c = ctx->process_state;
    cbud_req *r = ctx->request_state;
    if (r == NULL || final->action != SB_RETRY || r->retrying)
        return;
    r->retrying = true;
    c->active_retries++;
}

static void cbud_on_request_end(const sb_ctx *ctx, const sb_attempt *a,
                                sb_outcome outcome)
{
    (void)a;
    (void)outcome;
    cbud_process *c = ctx->process_state;
    cbud_req *r = ctx->request_state;
    if (r == NULL)
        return;
    retry_done(c, r);
    set_inflight(c, r, 0); /* its copies still out are abandoned */
}

const sb_policy policy_concurrent_budget = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_LAYER | SB_POLICY_SHARED_READONLY,
    .name = "concurrent_budget",
    .doc = "Envoy retry budget: active retries <= max(budget_percent% of "
           "upstream requests in flight or pending, min_retry_concurrency).",
    .scope = "per process: one budget per Envoy instance's cluster",
    .params = cbud_params,
    .create = cbud_create,
    .destroy = free,
    .process_state_size = cbud_process_size,
    .request_state_size = cbud_request_size,
    .before_send = cbud_before_send,
    .on_success = cbud_on_success,
    .on_failure = cbud_on_failure,
    .on_decision = cbud_on_decision,
    .on_request_end = cbud_on_request_end,
};
