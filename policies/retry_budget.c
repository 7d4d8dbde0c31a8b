/*
 * retry_budget.c -- Finagle's RetryBudget (also Linkerd 1's): retries may
 * be at most `percent` of the requests of the last `ttl`, plus a reserve
 * of min_per_s x ttl so that a quiet client can still retry.
 *
 * This is Finagle's TokenRetryBudget, arithmetic included, so its numbers
 * are what a Finagle user gets:
 *   deposit    = 1000 per request          (0 when percent = 0)
 *   withdrawal = (int)(1000 / percent) per retry   (1 when percent = 0)
 *   reserve    = min_per_s x (whole seconds of ttl) x withdrawal
 *   a retry is allowed when reserve + deposits - withdrawals of the last
 *   ttl >= withdrawal, i.e. retries + 1 <= percent x requests +
 *   min_per_s x ttl.
 * Deposits and withdrawals age out of a window of 10 slices of ttl/10
 * (window.h), Finagle's LeakyTokenBucket over a WindowedAdder.
 *
 * Finagle withdraws when its RetryFilter has decided to retry.  A layer
 * does not see the stack's decision, so on_failure only checks that a
 * withdrawal would succeed (and forbids the retry if not), and the
 * withdrawal is made when the retry is actually sent; if the budget ran
 * dry during the backoff the retry is refused then.  Hedges neither
 * deposit nor withdraw (Finagle's backup requests have their own budget).
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "builtin.h"
#include "window.h"

#define BUDGET_SLICES 10 /* Finagle's WindowedAdder slices */

typedef struct budget {
    window_shape w;
    int64_t deposit, withdrawal, reserve;
} budget;

static const sb_param budget_params[] = {
    {"ttl", SB_PARAM_DURATION, "10s",
     "how long a request's deposit counts (Finagle: 1s to 60s)", NULL, 1, 60},
    {"min_per_s", SB_PARAM_INT, "10",
     "retries per second allowed whatever the traffic", NULL, 0, 1e6},
    {"percent", SB_PARAM_REAL, "0.2",
     "retries per request allowed (Finagle percentCanRetry: 0.2 = 20%)", NULL,
     0, 1000},
    {0}};

static int budget_create(const sb_value *v, void **shared, char *err,
                         size_t errlen)
{
    (void)err;
    (void)errlen;
    budget *p = malloc(sizeof *p);
    if (p == NULL)
        return -1;
    double ttl = v[0].d, percent = v[2].d;
    p->w.slice_s = ttl / BUDGET_SLICES;
    p->w.slices = BUDGET_SLICES;
    p->w.vals = 1;
    p->deposit = percent == 0.0 ? 0 : 1000;
    p->withdrawal = percent == 0.0 ? 1 : (int64_t)(1000.0 / percent);
    if (p->withdrawal < 1)
        p->withdrawal = 1; /* percent > 1000 is refused by the range */
    p->reserve = v[1].i * (int64_t)floor(ttl) * p->withdrawal;
    *shared = p;
    return 0;
}

static size_t budget_client_size(const void *shared)
{
    const budget *p = shared;
    return window_bytes(&p->w);
}

static bool can_withdraw(const budget *p, const sb_ctx *ctx, double now)
{
    int64_t balance = p->reserve + window_sum(&p->w, ctx->client_state, now, 0);
    return balance >= p->withdrawal;
}

static sb_verdict budget_before_send(const sb_ctx *ctx, const sb_attempt *a)
{
    const budget *p = ctx->shared;
    if (a->hedge)
        return sb_allow();
    if (a->attempt <= 1) {
        window_add(&p->w, ctx->client_state, a->now_s, 0, p->deposit);
        return sb_allow();
    }
    if (!can_withdraw(p, ctx, a->now_s)) {
        sb_verdict v = {SB_SEND_REFUSE, 0.0,
                        "retry_budget: spent while the retry waited"};
        return v;
    }
    window_add(&p->w, ctx->client_state, a->now_s, 0, -p->withdrawal);
    return sb_allow();
}

static sb_decision budget_on_failure(const sb_ctx *ctx, const sb_attempt *a)
{
    const budget *p = ctx->shared;
    if (can_withdraw(p, ctx, a->now_s))
        return sb_pass();
    return sb_give_up("retry_budget: budget exhausted");
}

const sb_policy policy_retry_budget = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_LAYER,
    .name = "retry_budget",
    .doc = "Finagle/Linkerd retry budget: retries <= percent of the last "
           "ttl's requests + min_per_s x ttl.",
    .params = budget_params,
    .create = budget_create,
    .destroy = free,
    .client_state_size = budget_client_size,
    .before_send = budget_before_send,
    .on_failure = budget_on_failure,
};
