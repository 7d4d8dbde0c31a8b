/*
 * deadline.c -- a layer that refuses a retry whose delay plus the expected
 * time of one more attempt would pass the request's deadline: an attempt
 * that cannot finish in time is load on the server and nothing for the
 * caller.
 *
 * The expected attempt time is attempt_time, or, when that is 0 (the
 * default), the configured attempt timeout: the time an attempt is
 * allowed to take, so a retry that starts is one that could still
 * succeed.
 *
 * A layer's on_failure does not learn the delay the stack will choose
 * (another layer proposes it), so the check is made twice: on_failure
 * gives up at once when even an immediate retry would be too late
 * (remaining < attempt time), and before_send refuses the retry -- and a
 * hedge -- when, after its delay, remaining < attempt time.  A first
 * attempt is never refused.  Without a deadline (remaining = +inf) the
 * layer does nothing.
 */
#include <stdlib.h>

#include "builtin.h"

static const sb_param deadline_params[] = {
    {"attempt_time", SB_PARAM_DURATION, "0s",
     "expected time of one attempt; 0: the attempt timeout", NULL, 0, 86400},
    {0}};

/* The time one more attempt needs: attempt_time, or the configured
 * timeout -- not the effective one, which the deadline itself cuts short
 * and which would make the check pass by construction. */
static double attempt_time(const sb_ctx *ctx, const sb_attempt *a)
{
    double t = *(const double *)ctx->shared;
    return t > 0.0 ? t : a->configured_timeout_s;
}

static void deadline_before_send(const sb_ctx *ctx, const sb_attempt *a,
                                 sb_verdict *out)
{
    if ((a->attempt > 1 || a->hedge) && a->remaining_s < attempt_time(ctx, a))
        sb_refuse(out, SB_REFUSAL_DEADLINE,
                  "deadline: the attempt would end after the deadline");
}

static void deadline_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                                sb_decision *out)
{
    if (a->remaining_s < attempt_time(ctx, a))
        sb_give_up(out, "deadline: no time left for another attempt");
}

const sb_policy policy_deadline = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_LAYER | SB_POLICY_SHARED_READONLY,
    .name = "deadline",
    .doc = "Refuse a retry that could not finish before the request's "
           "deadline.",
    .params = deadline_params,
    .create = builtin_create_one,
    .destroy = free,
    .before_send = deadline_before_send,
    .on_failure = deadline_on_failure,
};
