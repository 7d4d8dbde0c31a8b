/*
 * hedge.c -- hedged requests, as gRPC's hedgingPolicy and Polly v8's
 * hedging strategy send them: when an attempt has had no answer after
 * `delay`, send another copy, up to max_hedged extra copies per request,
 * each `delay` after the previous; the first answer wins and the engine
 * ignores the rest.  Defaults are Polly's (Delay 2 s, MaxHedgedAttempts 1);
 * gRPC has no default delay.
 *
 * Only reads and keyed writes are hedged: two copies of an unkeyed post
 * could both commit, and the issue keeps puts out too.  A hedge that fails
 * while another copy still waits decides nothing (the engine waits for the
 * last copy); the layer itself never asks for a retry.
 */
#include <stdlib.h>

#include "builtin.h"

typedef struct hedge {
    double delay;
    int64_t max_hedged;
} hedge;

enum { P_DELAY, P_MAX_HEDGED };

static const sb_param hedge_params[] = {
    [P_DELAY] = {"delay", SB_PARAM_DURATION, "2s",
     "send a copy when an attempt has no answer after this", NULL, 0.001,
     86400},
    [P_MAX_HEDGED] = {"max_hedged", SB_PARAM_INT, "1", "extra copies per request, at most", NULL,
     1, 10},
    {0}};

static int32_t hedge_create(const sb_value *v, void **shared, char *err,
                            size_t errlen)
{
    (void)err;
    (void)errlen;
    hedge *p = malloc(sizeof *p);
    if (p == NULL)
        return -1;
    p->delay = v[P_DELAY].d;
    p->max_hedged = v[P_MAX_HEDGED].i;
    *shared = p;
    return 0;
}

static size_t hedge_request_size(const void *shared)
{
    (void)shared;
    return sizeof(uint32_t); /* hedges sent so far */
}

static void hedge_before_send(const sb_ctx *ctx, const sb_attempt *a,
                              sb_verdict *out)
{
    const hedge *p = ctx->shared;
    uint32_t *sent = ctx->request_state;
    if (sent == NULL || (a->op != SB_OP_READ && !a->keyed))
        return;
    if (a->hedge)
        (*sent)++;
    if ((int64_t)*sent < p->max_hedged)
        out->hedge_after_s = p->delay;
}

static void hedge_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                             sb_decision *out)
{
    (void)ctx;
    (void)a;
    (void)out;
}

const sb_policy policy_hedge = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_LAYER,
    .name = "hedge",
    .doc = "Hedged requests (gRPC, Polly): after delay without an answer, "
           "send another copy; first answer wins.",
    .scope = "per request: the hedges sent",
    .params = hedge_params,
    .create = hedge_create,
    .destroy = free,
    .request_state_size = hedge_request_size,
    .before_send = hedge_before_send,
    .on_failure = hedge_on_failure,
};
