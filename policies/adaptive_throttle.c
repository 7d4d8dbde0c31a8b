/*
 * adaptive_throttle.c -- client-side adaptive throttling, Google SRE book
 * chapter 21 ("Handling Overload").  Each process (the book's "client
 * task") keeps, over the last `window` (2 minutes):
 *     requests  attempts the application tried to send, including those
 *               this layer refused (the book counts them: that is what
 *               lets the rejection probability reach 1 - 1/(requests+1));
 *     accepts   attempts the backend accepted,
 * and refuses an attempt locally with probability
 *     max(0, (requests - K x accepts) / (requests + 1)),   K = 2.
 * The probability is computed from the counts before the attempt is
 * added.  Every attempt goes through it: first tries, retries, hedges.
 *
 * "Accepted" means the backend took the request and answered it: any
 * success, and any error that is not an overload signal.  Not accepted:
 * timeouts, refused or reset connections, HTTP 429/502/503/504 and gRPC
 * RESOURCE_EXHAUSTED/UNAVAILABLE/DEADLINE_EXCEEDED.  A 404 or a 422 was
 * accepted: the backend did the work of saying no.
 *
 * The window is 12 slices of window/12 (window.h): 10 s at the default.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "builtin.h"
#include "window.h"

#define THROTTLE_SLICES 12

enum { REQUESTS = 0, ACCEPTS = 1 };

typedef struct throttle {
    window_shape w;
    double k;
} throttle;

enum { P_K, P_WINDOW };

static const sb_param throttle_params[] = {
    [P_K] = {"k", SB_PARAM_REAL, "2",
             "accepts multiplier K: lower throttles sooner (SRE book: 2)", NULL,
             1, 1000},
    [P_WINDOW] = {"window", SB_PARAM_DURATION, "2m",
                  "history the request and accept counts cover", NULL, 1,
                  86400},
    {0}};

static int32_t throttle_create(const sb_value *v, void **shared, char *err,
                               size_t errlen)
{
    (void)err;
    (void)errlen;
    throttle *p = malloc(sizeof *p);
    if (p == NULL)
        return -1;
    p->k = v[P_K].d;
    p->w.slice_s = v[P_WINDOW].d / THROTTLE_SLICES;
    p->w.slices = THROTTLE_SLICES;
    p->w.vals = 2;
    *shared = p;
    return 0;
}

static size_t throttle_process_size(const void *shared)
{
    const throttle *p = shared;
    return window_bytes(&p->w);
}

static double reject_probability(const throttle *p, void *win, double now)
{
    double req = (double)window_sum(&p->w, win, now, REQUESTS);
    double acc = (double)window_sum(&p->w, win, now, ACCEPTS);
    double x = (req - p->k * acc) / (req + 1.0);
    return x > 0.0 ? x : 0.0;
}

static void throttle_before_send(const sb_ctx *ctx, const sb_attempt *a,
                                 sb_verdict *out)
{
    const throttle *p = ctx->shared;
    double pr = reject_probability(p, ctx->process_state, a->now_s);
    /* Counting the request is not spending: the book counts every
     * request the application tried, refused locally or not. */
    window_add(&p->w, ctx->process_state, a->now_s, REQUESTS, 1);
    if (ctx->host->level)
        ctx->host->level(ctx, 1.0 - pr);
    /* Draw only when a refusal is possible, so a healthy client's policy
     * random stream is left to the other layers. */
    if (pr > 0.0 && sb_uniform(ctx) < pr)
        sb_refuse(out, SB_REFUSAL_BUDGET,
                  "adaptive_throttle: rejected locally");
}

static bool accepted(const sb_attempt *a)
{
    switch (a->error) {
    case SB_ERR_NONE:
        return true;
    case SB_ERR_HTTP:
        return a->status != 429 && a->status != 502 && a->status != 503 &&
               a->status != 504;
    case SB_ERR_GRPC:
        return a->status != SB_GRPC_RESOURCE_EXHAUSTED &&
               a->status != SB_GRPC_UNAVAILABLE &&
               a->status != SB_GRPC_DEADLINE_EXCEEDED;
    default:
        return false; /* timeout, refused, reset */
    }
}

static void throttle_on_success(const sb_ctx *ctx, const sb_attempt *a)
{
    const throttle *p = ctx->shared;
    window_add(&p->w, ctx->process_state, a->now_s, ACCEPTS, 1);
}

static void throttle_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                                sb_decision *out)
{
    (void)out;
    const throttle *p = ctx->shared;
    if (accepted(a))
        window_add(&p->w, ctx->process_state, a->now_s, ACCEPTS, 1);
}

const sb_policy policy_adaptive_throttle = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_LAYER | SB_POLICY_SHARED_READONLY,
    .name = "adaptive_throttle",
    .doc = "SRE-book client-side throttling: refuse with probability "
           "(requests - K x accepts) / (requests + 1).",
    .scope = "per process: one history per client task (the SRE book)",
    .params = throttle_params,
    .create = throttle_create,
    .destroy = free,
    .process_state_size = throttle_process_size,
    .before_send = throttle_before_send,
    .on_success = throttle_on_success,
    .on_failure = throttle_on_failure,
};
