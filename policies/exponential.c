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

enum { P_BASE, P_MULTIPLIER, P_CAP, P_MAX_ATTEMPTS, P_JITTER, P_RATIO };

static const sb_param expo_params[] = {
    [P_BASE] = {"base", SB_PARAM_DURATION, "100ms",
                "first delay (median first delay for decorrelated_v2)", NULL, 0,
                86400},
    [P_MULTIPLIER] = {"multiplier", SB_PARAM_REAL, "2", "growth per attempt",
                      NULL, 1, 100},
    [P_CAP] = {"cap", SB_PARAM_DURATION, "20s", "largest delay", NULL, 0,
               86400},
    [P_MAX_ATTEMPTS] = {"max_attempts", SB_PARAM_INT, "5",
                        "attempts in all, the first included", NULL, 1,
                        ATTEMPTS_MAX},
    [P_JITTER] = {"jitter", SB_PARAM_CHOICE, "full",
                  "how the delay is randomised", BACKOFF_JITTER_CHOICES, 0, 0},
    [P_RATIO] =
        {"ratio", SB_PARAM_REAL, "0.5",
         "ratio jitter: +/- this share (resilience4j randomizationFactor 0.5; "
         "Polly 0.25)",
         NULL, 0, 1},
    {0}};

static int32_t expo_create(const sb_value *v, void **shared, char *err,
                           size_t errlen)
{
    if (v[P_CAP].d < v[P_BASE].d) {
        snprintf(err, errlen, "cap (%gs) must be at least base (%gs)",
                 v[P_CAP].d, v[P_BASE].d);
        return -1;
    }
    expo *p = malloc(sizeof *p);
    if (p == NULL)
        return -1;
    p->b.base = v[P_BASE].d;
    p->b.multiplier = v[P_MULTIPLIER].d;
    p->b.cap = v[P_CAP].d;
    p->max_attempts = v[P_MAX_ATTEMPTS].i;
    p->b.jitter = (backoff_jitter)v[P_JITTER].i;
    p->b.ratio = v[P_RATIO].d;
    *shared = p;
    return 0;
}

static size_t expo_request_size(const void *shared)
{
    (void)shared;
    return sizeof(double); /* the previous delay, for decorrelated modes */
}

static void expo_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                            sb_decision *out)
{
    const expo *p = ctx->shared;
    if ((int64_t)a->attempt >= p->max_attempts) {
        sb_give_up(out, "max_attempts reached");
        return;
    }
    double scratch = 0.0;
    double *prev = ctx->request_state ? ctx->request_state : &scratch;
    sb_retry(out, backoff_delay(ctx, &p->b, a->attempt, prev), "backoff");
}

const sb_policy policy_exponential = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_SHARED_READONLY,
    .name = "exponential",
    .doc = "Capped exponential backoff with jitter (AWS, Polly and "
           "resilience4j formulas).",
    .scope = "per request: the previous delay (decorrelated jitter)",
    .params = expo_params,
    .create = expo_create,
    .destroy = free,
    .request_state_size = expo_request_size,
    .on_failure = expo_on_failure,
};
