/*
 * basic.c -- the policies that need no per-client state: none, immediate
 * and fixed.  Parameters live in a block create() allocates, so two stacks
 * in one process (the GUI's side-by-side runs) never share anything.
 */
#include <stdlib.h>

#include "builtin.h"

static const sb_param no_params[] = {{0}};

static void none_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                            sb_decision *out)
{
    (void)ctx;
    (void)a;
    sb_give_up(out, "none: never retries");
}

const sb_policy policy_none = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_SHARED_READONLY,
    .name = "none",
    .doc = "Never retry: every failure is final.",
    .params = no_params,
    .on_failure = none_on_failure,
};

/* ---- immediate and fixed share a shape: a delay and an attempt cap ---- */

typedef struct fixed_params {
    double delay_s;
    int64_t max_attempts;
    const char *reason; /* a retry's: chosen once, the delay is fixed */
} fixed_params;

enum { IMM_MAX_ATTEMPTS };
static const sb_param immediate_params[] = {
    [IMM_MAX_ATTEMPTS] = {"max_attempts", SB_PARAM_INT, "5",
                          "attempts in all, the first included", NULL, 1,
                          ATTEMPTS_MAX},
    {0}};

enum { FIXED_DELAY, FIXED_MAX_ATTEMPTS };
static const sb_param fixed_params_schema[] = {
    [FIXED_DELAY] = {"delay", SB_PARAM_DURATION, "1s", "wait between attempts",
                     NULL, 0, 86400},
    [FIXED_MAX_ATTEMPTS] = {"max_attempts", SB_PARAM_INT, "5",
                            "attempts in all, the first included", NULL, 1,
                            ATTEMPTS_MAX},
    {0}};

static int32_t make_fixed(double delay_s, int64_t max_attempts, void **shared)
{
    fixed_params *p = malloc(sizeof *p);
    if (p == NULL)
        return -1;
    p->delay_s = delay_s;
    p->max_attempts = max_attempts;
    p->reason = delay_s > 0 ? "fixed delay" : "retry at once";
    *shared = p;
    return 0;
}

static int32_t immediate_create(const sb_value *v, void **shared, char *err,
                                size_t errlen)
{
    (void)err;
    (void)errlen;
    return make_fixed(0.0, v[IMM_MAX_ATTEMPTS].i, shared);
}

static int32_t fixed_create(const sb_value *v, void **shared, char *err,
                            size_t errlen)
{
    (void)err;
    (void)errlen;
    return make_fixed(v[FIXED_DELAY].d, v[FIXED_MAX_ATTEMPTS].i, shared);
}

int32_t builtin_create_one(const sb_value *v, void **shared, char *err,
                           size_t errlen)
{
    (void)err;
    (void)errlen;
    double *p = malloc(sizeof *p);
    if (p == NULL)
        return -1;
    *p = v[0].d;
    *shared = p;
    return 0;
}

static void fixed_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                             sb_decision *out)
{
    const fixed_params *p = ctx->shared;
    if ((int64_t)a->attempt >= p->max_attempts)
        sb_give_up(out, "max_attempts reached");
    else
        sb_retry(out, p->delay_s, p->reason);
}

const sb_policy policy_immediate = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_SHARED_READONLY,
    .name = "immediate",
    .doc = "Retry at once, up to max_attempts: the naive retry loop.",
    .params = immediate_params,
    .create = immediate_create,
    .destroy = free,
    .on_failure = fixed_on_failure,
};

const sb_policy policy_fixed = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_SHARED_READONLY,
    .name = "fixed",
    .doc = "Retry after the same delay each time, up to max_attempts.",
    .params = fixed_params_schema,
    .create = fixed_create,
    .destroy = free,
    .on_failure = fixed_on_failure,
};
