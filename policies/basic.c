/*
 * basic.c -- the policies that need no per-client state: none, immediate
 * and fixed.  Parameters live in a block create() allocates, so two stacks
 * in one process (the GUI's side-by-side runs) never share anything.
 */
#include <stdlib.h>

#include "builtin.h"

static const sb_param no_params[] = {{0}};

static sb_decision none_on_failure(const sb_ctx *ctx, const sb_attempt *a)
{
    (void)ctx;
    (void)a;
    return sb_give_up("none: never retries");
}

const sb_policy policy_none = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .name = "none",
    .doc = "Never retry: every failure is final.",
    .params = no_params,
    .on_failure = none_on_failure,
};

/* ---- immediate and fixed share a shape: a delay and an attempt cap ---- */

typedef struct fixed_params {
    double delay_s;
    int64_t max_attempts;
} fixed_params;

static const sb_param immediate_params[] = {
    {"max_attempts", SB_PARAM_INT, "5", "attempts in all, the first included",
     NULL, 1, ATTEMPTS_MAX},
    {0}};

static const sb_param fixed_params_schema[] = {
    {"delay", SB_PARAM_DURATION, "1s", "wait between attempts", NULL, 0,
     86400},
    {"max_attempts", SB_PARAM_INT, "5", "attempts in all, the first included",
     NULL, 1, ATTEMPTS_MAX},
    {0}};

static int immediate_create(const sb_value *v, void **shared, char *err,
                            size_t errlen)
{
    (void)err;
    (void)errlen;
    fixed_params *p = malloc(sizeof *p);
    if (p == NULL)
        return -1;
    p->delay_s = 0.0;
    p->max_attempts = v[0].i;
    *shared = p;
    return 0;
}

static int fixed_create(const sb_value *v, void **shared, char *err,
                        size_t errlen)
{
    (void)err;
    (void)errlen;
    fixed_params *p = malloc(sizeof *p);
    if (p == NULL)
        return -1;
    p->delay_s = v[0].d;
    p->max_attempts = v[1].i;
    *shared = p;
    return 0;
}

int builtin_create_one(const sb_value *v, void **shared, char *err,
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

static sb_decision fixed_on_failure(const sb_ctx *ctx, const sb_attempt *a)
{
    const fixed_params *p = ctx->shared;
    if ((int64_t)a->attempt >= p->max_attempts)
        return sb_give_up("max_attempts reached");
    return sb_retry(p->delay_s, p->delay_s > 0 ? "fixed delay" : "retry at once");
}

const sb_policy policy_immediate = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
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
    .name = "fixed",
    .doc = "Retry after the same delay each time, up to max_attempts.",
    .params = fixed_params_schema,
    .create = fixed_create,
    .destroy = free,
    .on_failure = fixed_on_failure,
};
