/*
 * retry_after.c -- a layer that makes the delay before a retry at least
 * the server's Retry-After (HTTP 429/503; gRPC's retry pushback plays the
 * same role).  It proposes the Retry-After as a PASS delay, which the
 * stack takes as a floor under whatever the backoff layer chose; it never
 * asks for a retry by itself.  With max_wait set, a server that asks for a
 * longer wait than that is not waited for: the request gives up (as
 * clients that cap how long they honour Retry-After do).
 */
#include <stdlib.h>

#include "builtin.h"

static const sb_param ra_params[] = {
    {"max_wait", SB_PARAM_DURATION, "0s",
     "give up when Retry-After asks for longer; 0: always wait", NULL, 0,
     86400},
    {0}};

static void ra_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                          sb_decision *out)
{
    double max_wait = *(const double *)ctx->shared;
    if (a->retry_after_s < 0)
        return;
    if (max_wait > 0 && a->retry_after_s > max_wait) {
        sb_give_up(out, "retry_after: the server asks for too long a wait");
        return;
    }
    out->delay_s = a->retry_after_s; /* a floor under the chosen delay */
    out->reason = "retry_after: server's wait";
}

const sb_policy policy_retry_after = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_LAYER | SB_POLICY_SHARED_READONLY,
    .name = "retry_after",
    .doc = "Wait at least the server's Retry-After before a retry.",
    .params = ra_params,
    .create = builtin_create_one,
    .destroy = free,
    .on_failure = ra_on_failure,
};
