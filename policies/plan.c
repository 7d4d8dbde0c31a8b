/*
 * plan.c -- a pipeline task's retry plan, the kind written down in a
 * runbook and then coded by hand:
 *
 *   invalid_schema, missing_field,        permanent: the data is wrong,
 *   duplicate_business_key                retrying cannot fix it, so the
 *                                         record is quarantined
 *   timeout, connection_reset,            transient: retry after
 *   rate_limited                          min(base x 2^(n-1), cap) =
 *                                         min(6 x 2^(n-1), 48) s after
 *                                         attempt n, while n < max_attempts
 *   anything else                         stop (give up)
 *
 * So: timeout at attempt 2 => retry after 12 s; invalid_schema at attempt
 * 1 => quarantine; rate_limited at attempt 4 => stop.
 *
 * Error names, as the engine reports them: the three defects are the
 * sb_defect codes in a 4xx body (checked first: a 409 with
 * duplicate_business_key is a defect whatever its status); timeout is
 * SB_ERR_TIMEOUT; connection_reset is SB_ERR_RESET, and SB_ERR_REFUSED
 * too -- a refused connection is the same "the connection failed, try
 * again" to a task, and it never reached the server; rate_limited is HTTP
 * 429 or gRPC RESOURCE_EXHAUSTED.
 *
 * Options, all off by default so the plan above is what runs:
 *   jitter       +/- this share of the delay, still never above cap
 *   retry_after  wait at least the server's Retry-After
 *   deadline     stop when the retry would start later than this after
 *                the task started (elapsed + delay >= deadline)
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "backoff.h"
#include "builtin.h"

typedef struct plan {
    backoff b;
    int64_t max_attempts;
    double jitter;
    bool retry_after;
    double deadline; /* 0: none */
} plan;

typedef enum plan_error {
    PLAN_OTHER = 0,
    PLAN_DEFECT,
    PLAN_TRANSIENT
} plan_error;

enum {
    P_MAX_ATTEMPTS,
    P_BASE,
    P_MULTIPLIER,
    P_CAP,
    P_JITTER,
    P_RETRY_AFTER,
    P_DEADLINE
};

static const sb_param plan_params[] = {
    [P_MAX_ATTEMPTS] = {"max_attempts", SB_PARAM_INT, "4",
                        "attempts in all, the first included", NULL, 1,
                        ATTEMPTS_MAX},
    [P_BASE] = {"base", SB_PARAM_DURATION, "6s",
                "delay after the first attempt", NULL, 0, 86400},
    [P_MULTIPLIER] = {"multiplier", SB_PARAM_REAL, "2", "growth per attempt",
                      NULL, 1, 100},
    [P_CAP] = {"cap", SB_PARAM_DURATION, "48s", "largest delay", NULL, 0,
               86400},
    [P_JITTER] =
        {"jitter", SB_PARAM_REAL, "0",
         "bounded jitter: +/- this share of the delay, never above cap", NULL,
         0, 1},
    [P_RETRY_AFTER] = {"retry_after", SB_PARAM_BOOL, "false",
                       "wait at least the server's Retry-After", NULL, 0, 0},
    [P_DEADLINE] =
        {"deadline", SB_PARAM_DURATION, "0s",
         "stop when a retry would start this long after the start; 0: never",
         NULL, 0, 86400 * 30},
    {0}};

static int32_t plan_create(const sb_value *v, void **shared, char *err,
                           size_t errlen)
{
    if (v[P_CAP].d < v[P_BASE].d) {
        snprintf(err, errlen, "cap (%gs) must be at least base (%gs)",
                 v[P_CAP].d, v[P_BASE].d);
        return -1;
    }
    plan *p = malloc(sizeof *p);
    if (p == NULL)
        return -1;
    p->max_attempts = v[P_MAX_ATTEMPTS].i;
    p->b.base = v[P_BASE].d;
    p->b.multiplier = v[P_MULTIPLIER].d;
    p->b.cap = v[P_CAP].d;
    p->b.jitter = JITTER_NONE;
    p->b.ratio = 0.0;
    p->jitter = v[P_JITTER].d;
    p->retry_after = v[P_RETRY_AFTER].i != 0;
    p->deadline = v[P_DEADLINE].d;
    *shared = p;
    return 0;
}

static plan_error plan_classify(const sb_attempt *a)
{
    if (a->defect != SB_DEFECT_NONE)
        return PLAN_DEFECT;
    switch (a->error) {
    case SB_ERR_TIMEOUT:
    case SB_ERR_RESET:
    case SB_ERR_REFUSED:
        return PLAN_TRANSIENT;
    case SB_ERR_HTTP:
        return a->status == 429 ? PLAN_TRANSIENT : PLAN_OTHER;
    case SB_ERR_GRPC:
        return a->status == SB_GRPC_RESOURCE_EXHAUSTED ? PLAN_TRANSIENT
                                                       : PLAN_OTHER;
    default:
        return PLAN_OTHER;
    }
}

static double plan_delay(const sb_ctx *ctx, const plan *p, const sb_attempt *a)
{
    double d = backoff_unjittered(&p->b, a->attempt);
    if (p->jitter > 0) {
        double spread = p->jitter * (2.0 * sb_uniform(ctx) - 1.0);
        d = fmin(p->b.cap, d * (1.0 + spread));
    }
    if (p->retry_after && a->retry_after_s > d)
        d = a->retry_after_s;
    return d;
}

static void plan_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                            sb_decision *out)
{
    const plan *p = ctx->shared;
    switch (plan_classify(a)) {
    case PLAN_DEFECT:
        sb_quarantine(out, "plan: data defect");
        return;
    case PLAN_OTHER:
        sb_give_up(out, "plan: not a transient error");
        return;
    case PLAN_TRANSIENT:
        break;
    }
    if ((int64_t)a->attempt >= p->max_attempts) {
        sb_give_up(out, "max_attempts reached");
        return;
    }
    double d = plan_delay(ctx, p, a);
    if (p->deadline > 0 && a->elapsed_s + d >= p->deadline)
        sb_give_up(out, "plan: past its deadline");
    else
        sb_retry(out, d, "plan: transient error");
}

const sb_policy policy_plan = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_SHARED_READONLY,
    .name = "plan",
    .doc = "A pipeline task's plan: quarantine data defects, retry "
           "timeouts/resets/429 after min(6s x 2^(n-1), 48s), 4 attempts.",
    .params = plan_params,
    .create = plan_create,
    .destroy = free,
    .on_failure = plan_on_failure,
};
