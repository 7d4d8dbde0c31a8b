/*
 * retry_on.c -- Envoy's retry conditions (a route's retry_on, with
 * retriable_status_codes; Istio's retryOn) as a layer: a failure that
 * no listed condition covers gives up, one that a condition covers is
 * left to the layers below and beside it (the backoff, the budget).
 * It never asks for a retry by itself.
 *
 * Which failures each condition covers is Envoy's router, as
 * source/common/router/retry_state_impl.cc decides it
 * (wouldRetryFromHeaders, wouldRetryFromReset; envoyproxy/envoy
 * @00d9abb) and the router filter docs (x-envoy-retry-on,
 * x-envoy-retry-grpc-on) define it:
 *
 *   5xx             any HTTP 5xx; and every reset, refused connection
 *                   and per-try timeout ("Currently we count an upstream
 *                   reset as a 5xx"; a per-try timeout resets the
 *                   upstream request and is retried only under 5xx or
 *                   gateway-error -- the comment above
 *                   shouldHedgeRetryPerTryTimeout)
 *   gateway-error   HTTP 502, 503, 504; resets, refused connections and
 *                   per-try timeouts, as 5xx
 *   reset           resets, refused connections, per-try timeouts ("does
 *                   not respond at all (disconnect/reset/read timeout)")
 *   connect-failure a refused connection only (ConnectionFailure)
 *   refused-stream  a refused connection only: never processed, as
 *                   REMOTE_REFUSED_STREAM_RESET
 *   retriable-4xx   HTTP 409 ("the only response code in this category")
 *   retriable-status-codes  the statuses in status_codes
 *   cancelled, deadline-exceeded, internal, resource-exhausted,
 *   unavailable     the gRPC answers with code 1, 4, 13, 8, 14 (the
 *                   grpc-status of the answer; an HTTP status is not
 *                   one of them, as a gRPC error is not an HTTP 5xx)
 *
 * The alternative, a list of statuses in classified's style, was
 * rejected: Envoy's conditions are not statuses (a timeout is "5xx" to
 * Envoy), and an imported route should read as the route does.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "builtin.h"

enum {
    C_5XX,
    C_GATEWAY,
    C_RESET,
    C_CONNECT,
    C_REFUSED_STREAM,
    C_409,
    C_STATUS_CODES,
    C_CANCELLED,
    C_DEADLINE,
    C_INTERNAL,
    C_EXHAUSTED,
    C_UNAVAILABLE
};

/* Every registered HTTP 4xx and 5xx status (IANA), in the order of the
 * bits of status_codes: 39 of SB_PARAM_SET's 63. */
static const int codes[] = {400, 401, 402, 403, 404, 405, 406, 407, 408, 409,
                            410, 411, 412, 413, 414, 415, 416, 417, 421, 422,
                            423, 424, 425, 426, 428, 429, 431, 451, 500, 501,
                            502, 503, 504, 505, 506, 507, 508, 510, 511};

static const sb_param ron_params[] = {
    {"conditions", SB_PARAM_SET, "5xx",
     "Envoy retry_on conditions: a failure none covers gives up",
     "5xx|gateway-error|reset|connect-failure|refused-stream|retriable-4xx|"
     "retriable-status-codes|cancelled|deadline-exceeded|internal|"
     "resource-exhausted|unavailable",
     0, 0},
    {"status_codes", SB_PARAM_SET, "",
     "retriable_status_codes: retried under retriable-status-codes",
     "400|401|402|403|404|405|406|407|408|409|410|411|412|413|414|415|416|"
     "417|421|422|423|424|425|426|428|429|431|451|500|501|502|503|504|505|"
     "506|507|508|510|511",
     0, 0},
    {0}};

typedef struct ron {
    int64_t on, codes;
} ron;

static int32_t ron_create(const sb_value *v, void **shared, char *err,
                          size_t errlen)
{
    (void)err;
    (void)errlen;
    ron *r = malloc(sizeof *r);
    if (r == NULL)
        return -1;
    r->on = v[0].i;
    r->codes = v[1].i;
    *shared = r;
    return 0;
}

static bool has(int64_t set, int bit)
{
    return (set >> bit) & 1;
}

static bool listed(const ron *r, int status)
{
    for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
        if (codes[i] == status)
            return has(r->on, C_STATUS_CODES) && has(r->codes, (int)i);
    return false;
}

static bool http_covered(const ron *r, int s)
{
    return (has(r->on, C_5XX) && s >= 500 && s <= 599) ||
           (has(r->on, C_GATEWAY) && s >= 502 && s <= 504) ||
           (has(r->on, C_409) && s == 409) || listed(r, s);
}

static bool grpc_covered(const ron *r, int code)
{
    return (has(r->on, C_CANCELLED) && code == SB_GRPC_CANCELLED) ||
           (has(r->on, C_DEADLINE) && code == SB_GRPC_DEADLINE_EXCEEDED) ||
           (has(r->on, C_INTERNAL) && code == SB_GRPC_INTERNAL) ||
           (has(r->on, C_EXHAUSTED) && code == SB_GRPC_RESOURCE_EXHAUSTED) ||
           (has(r->on, C_UNAVAILABLE) && code == SB_GRPC_UNAVAILABLE);
}

/* NULL when a listed condition covers the failure, else why not (a
 * static string: the trace keeps the pointer). */
static const char *uncovered(const ron *r, const sb_attempt *a)
{
    bool any_reset =
        has(r->on, C_5XX) || has(r->on, C_GATEWAY) || has(r->on, C_RESET);
    switch (a->error) {
    case SB_ERR_TIMEOUT:
        return any_reset ? NULL
                         : "retry_on: a per-try timeout is not retried "
                           "(only 5xx, gateway-error or reset cover it)";
    case SB_ERR_RESET:
        return any_reset ? NULL
                         : "retry_on: a reset is not retried (only 5xx, "
                           "gateway-error or reset cover it)";
    case SB_ERR_REFUSED:
        return any_reset || has(r->on, C_CONNECT) ||
                       has(r->on, C_REFUSED_STREAM)
                   ? NULL
                   : "retry_on: a refused connection is not retried";
    case SB_ERR_HTTP:
        return http_covered(r, a->status)
                   ? NULL
                   : "retry_on: an HTTP status no condition covers";
    case SB_ERR_GRPC:
        return grpc_covered(r, a->status)
                   ? NULL
                   : "retry_on: a gRPC code no condition covers";
    default:
        return NULL;
    }
}

static void ron_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                           sb_decision *out)
{
    const char *why = uncovered(ctx->shared, a);
    if (why)
        sb_give_up(out, why);
}

const sb_policy policy_retry_on = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_LAYER | SB_POLICY_SHARED_READONLY,
    .name = "retry_on",
    .doc = "Envoy's retry_on: give up on a failure no listed condition "
           "covers (5xx, gateway-error, reset, connect-failure, ...).",
    .params = ron_params,
    .create = ron_create,
    .destroy = free,
    .on_failure = ron_on_failure,
};
