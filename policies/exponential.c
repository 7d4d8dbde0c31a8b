/*
 * exponential.c -- capped exponential backoff with the usual jitters
 * (formulas in backoff.h).  The default, full jitter, is what the AWS
 * Architecture Blog measured to finish a contended workload with the least
 * total work.
 */
#include <stdio.h>
#include <stdlib.h>

#include "backoff.h"
#include "builtin.h"

typedef struct expo {
    backoff b;
    int64_t max_attempts;
} expo;

static const sb_param expo_params[] = {
    {"base", SB_PARAM_DURATION, "100ms",
     "first delay (median first delay for decorrelated_v2)", NULL, 0, 86400},
    {"multiplier", SB_PARAM_REAL, "2", "growth per attempt", NULL, 1, 100},
    {"cap", SB_PARAM_DURATION, "20s", "largest delay", NULL, 0, 86400},
    {"max_attempts", SB_PARAM_INT, "5", "attempts in all, the first included",
     NULL, 1, ATTEMPTS_MAX},
    {"jitter", SB_PARAM_CHOICE, "full", "how the delay is randomised",
     BACKOFF_JITTER_CHOICES, 0, 0},
    {"ratio", SB_PARAM_REAL, "0.2", "spread of ratio jitter: +/- this share",
     NULL, 0, 1},
    {0}};

static int expo_create(const sb_value *v, void **shared, char *err,
                       size_t errlen)
{
    if (v[2].d < v[0].d) {
        snprintf(err, errlen, "cap (%gs) must be at least base (%gs)", v[2].d,
                 v[0].d);
        return -1;
    }
    expo *p = malloc(sizeof *p);
    if (p == NULL)
        return -1;
    p->b.base = v[0].d;
    p->b.multiplier = v[1].d;
    p->b.cap = v[2].d;
    p->max_attempts = v[3].i;
    p->b.jitter = (backoff_jitter)v[4].i;
    p->b.ratio = v[5].d;
    *shared = p;
    return 0;
}

static size_t expo_request_size(const void *shared)
{
    (void)shared;
    return sizeof(double); /* the previous delay, for decorrelated modes */
}

static sb_decision expo_on_failure(const sb_ctx *ctx, const sb_attempt *a)
{
    const expo *p = ctx->shared;
    if ((int64_t)a->attempt >= p->max_attempts)
        return sb_give_up("max_attempts reached");
    double scratch = 0.0;
    double *prev = ctx->request_state ? ctx->request_state : &scratch;
    return sb_retry(backoff_delay(ctx, &p->b, a->attempt, prev), "backoff");
}

const sb_policy policy_exponential = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .name = "exponential",
    .doc = "Capped exponential backoff with jitter (AWS, Polly and "
           "resilience4j formulas).",
    .params = expo_params,
    .create = expo_create,
    .destroy = free,
    .request_state_size = expo_request_size,
    .on_failure = expo_on_failure,
};
