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
 * Finagle's RetryFilter withdraws when it has decided to retry, before
 * it backs off: here on_failure checks that a withdrawal would succeed
 * (and gives up if not), and the withdrawal is made in on_decision, once
 * the whole stack has decided to retry -- a retry another layer vetoed
 * spends nothing.  Hedges neither deposit nor withdraw (Finagle's backup
 * requests have their own budget).
 *
 * One budget per process: a Finagle client (a service instance) shares
 * its budget among all the requests it sends.
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

enum { P_TTL, P_MIN_PER_S, P_PERCENT };

static const sb_param budget_params[] = {
    [P_TTL] = {"ttl", SB_PARAM_DURATION, "10s",
               "how long a request's deposit counts (Finagle: 1s to 60s)", NULL,
               1, 60},
    [P_MIN_PER_S] = {"min_per_s", SB_PARAM_INT, "10",
                     "retries per second allowed whatever the traffic", NULL, 0,
                     1e6},
    [P_PERCENT] =
        {"percent", SB_PARAM_REAL, "0.2",
         "retries per request allowed (Finagle percentCanRetry: 0.2 = 20%)",
         NULL, 0, 1000},
    {0}};

static int32_t budget_create(const sb_value *v, void **shared, char *err,
                             size_t errlen)
{
    (void)err;
    (void)errlen;
    budget *p = malloc(sizeof *p);
    if (p == NULL)
        return -1;
    double ttl = v[P_TTL].d, percent = v[P_PERCENT].d;
    p->w.slice_s = ttl / BUDGET_SLICES;
    p->w.slices = BUDGET_SLICES;
    p->w.vals = 1;
    p->deposit = percent == 0.0 ? 0 : 1000;
    p->withdrawal = percent == 0.0 ? 1 : (int64_t)(1000.0 / percent);
    if (p->withdrawal < 1)
        p->withdrawal = 1; /* percent > 1000 is refused by the range */
    p->reserve = v[P_MIN_PER_S].i * (int64_t)floor(ttl) * p->withdrawal;
    *shared = p;
    return 0;
}

static size_t budget_process_size(const void *shared)
{
    const budget *p = shared;
    return window_bytes(&p->w);
}

static int64_t balance(const budget *p, const sb_ctx *ctx, double now)
{
    return p->reserve + window_sum(&p->w, ctx->process_state, now, 0);
}

static void report_level(const sb_ctx *ctx, const budget *p, double now)
{
    if (ctx->host->level == NULL)
        return;
    /* Full: a reserve and no retries yet; the deposits of a busy process
     * can take it above that, which still reads as full. */
    double full = p->reserve > 0 ? (double)p->reserve : (double)p->withdrawal;
    double f = (double)balance(p, ctx, now) / full;
    ctx->host->level(ctx, f < 0 ? 0 : f > 1 ? 1 : f);
}

static void budget_before_send(const sb_ctx *ctx, const sb_attempt *a,
                               sb_verdict *out)
{
    (void)out;
    const budget *p = ctx->shared;
    if (a->hedge || a->attempt > 1)
        return;
    window_add(&p->w, ctx->process_state, a->now_s, 0, p->deposit);
    report_level(ctx, p, a->now_s);
}

static void budget_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                              sb_decision *out)
{
    const budget *p = ctx->shared;
    if (balance(p, ctx, a->now_s) < p->withdrawal)
        sb_give_up(out, "retry_budget: budget exhausted");
}

static void budget_on_decision(const sb_ctx *ctx, const sb_attempt *a,
                               const sb_decision *final)
{
    const budget *p = ctx->shared;
    if (final->action != SB_RETRY)
        return;
    window_add(&p->w, ctx->process_state, a->now_s, 0, -p->withdrawal);
    report_level(ctx, p, a->now_s);
}

const sb_policy policy_retry_budget = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_LAYER | SB_POLICY_SHARED_READONLY,
    .name = "retry_budget",
    .doc = "Finagle/Linkerd retry budget: retries <= percent of the last "
           "ttl's requests + min_per_s x ttl.",
    .scope = "per process: one budget per Finagle client, shared by the "
             "process's requests",
    .params = budget_params,
    .create = budget_create,
    .destroy = free,
    .process_state_size = budget_process_size,
    .before_send = budget_before_send,
    .on_failure = budget_on_failure,
    .on_decision = budget_on_decision,
};
