/*
 * token_bucket.c -- gRPC retry throttling (gRFC A6, "Client-side retry
 * throttling"), one bucket per process: gRPC keeps it per channel, and
 * a service instance shares its channel to a destination among all its
 * concurrent users ([clients] processes; by default each client is its
 * own process).
 *
 * The bucket starts full at max_tokens.  Every failed attempt with a
 * retryable status costs one token, every success adds token_ratio, the
 * count never leaves [0, max_tokens], and a retry (or a hedge) is allowed
 * only while tokens > max_tokens / 2.  First attempts are never throttled.
 *
 * Tokens are kept in thousandths, as gRPC does, so 10 - 1 + 0.1 is exact
 * and the threshold comparison never depends on rounding: A6 says
 * token_ratio has at most three decimals and further ones are ignored.
 *
 * "Retryable" here is the shared classifier's view (transient, resource
 * exhaustion or unknown): the layer does not know which codes the backoff
 * policy under it retries, and a permanent error (404, 422) would not be
 * retried at all, so charging for it would only drain the bucket on
 * traffic that never retries -- gRPC does not charge for those either.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "builtin.h"

typedef struct tb {
    int64_t max_milli;   /* max_tokens x 1000 */
    int64_t ratio_milli; /* token_ratio x 1000, truncated */
} tb;

enum { P_MAX_TOKENS, P_TOKEN_RATIO };

static const sb_param tb_params[] = {
    [P_MAX_TOKENS] = {"max_tokens", SB_PARAM_INT, "10",
     "bucket size; retries stop at or below half of it (gRFC A6)", NULL, 1,
     1000},
    [P_TOKEN_RATIO] = {"token_ratio", SB_PARAM_REAL, "0.1",
     "tokens a success adds back (3 decimals, as gRFC A6)", NULL, 0.001, 1000},
    {0}};

static int32_t tb_create(const sb_value *v, void **shared, char *err,
                         size_t errlen)
{
    (void)err;
    (void)errlen;
    tb *p = malloc(sizeof *p);
    if (p == NULL)
        return -1;
    p->max_milli = v[P_MAX_TOKENS].i * 1000;
    /* The epsilon keeps 1.001 x 1000 = 1000.9999... from truncating to
     * 1000: the user wrote three decimals and means them. */
    p->ratio_milli = (int64_t)floor(v[P_TOKEN_RATIO].d * 1000.0 + 1e-6);
    *shared = p;
    return 0;
}

static size_t tb_process_size(const void *shared)
{
    (void)shared;
    return sizeof(int64_t);
}

static void report_level(const sb_ctx *ctx, const tb *p, int64_t tokens)
{
    if (ctx->host->level)
        ctx->host->level(ctx, (double)tokens / (double)p->max_milli);
}

static void tb_process_init(const sb_ctx *ctx)
{
    const tb *p = ctx->shared;
    *(int64_t *)ctx->process_state = p->max_milli;
    report_level(ctx, p, p->max_milli);
}

static bool above_threshold(const tb *p, int64_t tokens)
{
    return 2 * tokens > p->max_milli;
}

static void tb_before_send(const sb_ctx *ctx, const sb_attempt *a,
                           sb_verdict *out)
{
    const tb *p = ctx->shared;
    int64_t tokens = *(int64_t *)ctx->process_state;
    if (a->hedge && !above_threshold(p, tokens))
        sb_refuse(out, SB_REFUSAL_BUDGET,
                  "token_bucket: hedging throttled (tokens <= max_tokens/2)");
}

static void tb_on_success(const sb_ctx *ctx, const sb_attempt *a)
{
    (void)a;
    const tb *p = ctx->shared;
    int64_t *tokens = ctx->process_state;
    *tokens += p->ratio_milli;
    if (*tokens > p->max_milli)
        *tokens = p->max_milli;
    report_level(ctx, p, *tokens);
}

static bool retryable(const sb_ctx *ctx, const sb_attempt *a)
{
    sb_error_class cls;
    sb_confidence conf;
    ctx->host->classify(a, &cls, &conf);
    return cls != SB_CLASS_PERMANENT && cls != SB_CLASS_DATA_DEFECT;
}

static void tb_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                          sb_decision *out)
{
    const tb *p = ctx->shared;
    int64_t *tokens = ctx->process_state;
    if (!retryable(ctx, a))
        return;
    *tokens -= 1000;
    if (*tokens < 0)
        *tokens = 0;
    report_level(ctx, p, *tokens);
    if (!above_threshold(p, *tokens))
        sb_give_up(out, "token_bucket: retries throttled (tokens <= "
                        "max_tokens/2)");
}

const sb_policy policy_token_bucket = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_LAYER,
    .name = "token_bucket",
    .doc = "gRPC retry throttling (gRFC A6): no retries while the "
           "process's tokens are at or below max_tokens/2.",
    .scope = "per process: one bucket per channel, shared by the "
             "process's clients (gRPC)",
    .params = tb_params,
    .create = tb_create,
    .destroy = free,
    .process_state_size = tb_process_size,
    .process_init = tb_process_init,
    .before_send = tb_before_send,
    .on_success = tb_on_success,
    .on_failure = tb_on_failure,
};
