/*
 * hedge.c -- hedged requests, as gRPC's hedgingPolicy (gRFC A6, "Hedging
 * Policy") and Polly v8's hedging strategy send them: when an attempt has
 * had no answer after `delay`, send another copy, up to max_hedged extra
 * copies per request, each `delay` after the previous; the first success
 * wins and the engine ignores the rest.  Defaults are Polly's (Delay 2 s,
 * MaxHedgedAttempts 1, ShouldHandle: every failure); gRPC has no default
 * delay, and its maxAttempts counts the first copy too (max_hedged + 1).
 *
 * A failure of one copy, read as the gRPC status a gRPC client sees
 * (classify_as_grpc):
 *   non-fatal  (in non_fatal_status_codes; Polly: handled by ShouldHandle)
 *              the next hedge, if one is still to come, is sent at once,
 *              shortcutting its delay (A6: "the next hedged request in
 *              line is sent immediately"; the request driver's rule 0),
 *              and later hedges resume at `delay` after it;
 *   fatal      no further hedge is sent for the request.  gRPC also
 *              cancels the copies still out and fails the call at once;
 *              here the copies out still finish (a later success still
 *              wins) and the last one's failure decides.
 * A "do not retry" pushback stops further hedges (A6, "Pushback").  A
 * pushback delay, which in gRPC postpones the next hedge, is ignored.
 * When no copy is left and no hedge is to come, the layers under this one
 * decide: the layer itself never asks for a retry.
 *
 * A delay of 0 (gRPC: "send all maxAttempts at once") sends the copies one
 * nanosecond apart, the clock's resolution: a verdict's hedge_after_s of
 * 0 means "no hedge".
 *
 * Only reads and keyed writes are hedged: two copies of an unkeyed post
 * could both commit, and the issue keeps puts out too.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "builtin.h"
#include "classifier.h"

typedef struct hedge {
    double delay;
    int64_t max_hedged;
    int64_t non_fatal; /* bit i: gRPC code i */
} hedge;

typedef struct hedge_req {
    uint32_t sent;    /* hedges sent so far */
    uint32_t stopped; /* a fatal failure or a "do not retry" pushback */
} hedge_req;

enum { P_DELAY, P_MAX_HEDGED, P_NON_FATAL };

static const sb_param hedge_params[] = {
    [P_DELAY] =
        {"delay", SB_PARAM_DURATION, "2s",
         "send a copy when an attempt has no answer after this (0: at once, as "
         "gRPC's hedgingDelay 0)",
         NULL, 0, 86400},
    [P_MAX_HEDGED] = {"max_hedged", SB_PARAM_INT, "1",
                      "extra copies per request, at most", NULL, 1, 10},
    [P_NON_FATAL] =
        {"non_fatal_status_codes", SB_PARAM_SET, "all",
         "failures that send the next hedge at once; others stop hedging "
         "(Polly: all; gRPC nonFatalStatusCodes: none by default)",
         GRPC_CODE_CHOICES, 0, 0},
    {0}};

static int32_t hedge_create(const sb_value *v, void **shared, char *err,
                            size_t errlen)
{
    (void)err;
    (void)errlen;
    hedge *p = malloc(sizeof *p);
    if (p == NULL)
        return -1;
    /* One nanosecond, the engine's clock step, for gRPC's delay 0. */
    p->delay = v[P_DELAY].d > 0 ? v[P_DELAY].d : 1e-9;
    p->max_hedged = v[P_MAX_HEDGED].i;
    p->non_fatal = v[P_NON_FATAL].i;
    *shared = p;
    return 0;
}

static size_t hedge_request_size(const void *shared)
{
    (void)shared;
    return sizeof(hedge_req);
}

static void hedge_before_send(const sb_ctx *ctx, const sb_attempt *a,
                              sb_verdict *out)
{
    const hedge *p = ctx->shared;
    hedge_req *r = ctx->request_state;
    if (r == NULL || (a->op != SB_OP_READ && !a->keyed))
        return;
    if (!a->hedge) {
        r->stopped = 0; /* a retry by the layers below starts afresh */
    } else if (r->stopped) {
        sb_refuse(out, SB_REFUSAL_OTHER,
                  "hedge: no more hedges (a fatal status or pushback)");
        return;
    } else {
        r->sent++;
    }
    if ((int64_t)r->sent < p->max_hedged)
        out->hedge_after_s = p->delay;
}

static void hedge_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                             sb_decision *out)
{
    (void)out;
    const hedge *p = ctx->shared;
    hedge_req *r = ctx->request_state;
    if (r == NULL)
        return;
    bool fatal = !((p->non_fatal >> classify_as_grpc(a)) & 1);
    if (fatal || a->pushback_s == SB_PUSHBACK_STOP)
        r->stopped = 1;
}

const sb_policy policy_hedge = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_LAYER | SB_POLICY_SHARED_READONLY,
    .name = "hedge",
    .doc = "Hedged requests (gRPC, Polly): after delay without an answer, "
           "or at once after a non-fatal failure, send another copy.",
    .scope = "per request: the hedges sent",
    .params = hedge_params,
    .create = hedge_create,
    .destroy = free,
    .request_state_size = hedge_request_size,
    .before_send = hedge_before_send,
    .on_failure = hedge_on_failure,
};
