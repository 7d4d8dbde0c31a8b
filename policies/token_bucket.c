/*
 * token_bucket.c -- gRPC retry throttling (gRFC A6, "Throttling Retry
 * Attempts and Hedged RPCs" and "Pushback"), with the part of gRPC's
 * retryPolicy that decides which failures count: one bucket per process
 * (gRPC keeps it per channel, and a service instance shares its channel
 * to a destination among all its concurrent users; [clients] processes,
 * by default each client is its own process).
 *
 * Which failures count.  In gRPC the statuses the throttle charges are
 * exactly the statuses the retry policy retries: retryableStatusCodes.  A
 * layer cannot see what the policy under it would retry, so the layer
 * carries the list itself (retryable_status_codes) and is the retry
 * policy's status check as well as its throttle:
 *   - every failure is first read as the gRPC status a gRPC client would
 *     see (classifier.h, classify_as_grpc: an HTTP 503 without grpc-status
 *     is UNAVAILABLE, a timed-out attempt DEADLINE_EXCEEDED ...);
 *   - a status in the list, or a "do not retry" pushback, costs one token
 *     (A6: "The only RPCs that are counted as failures for the throttling
 *     policy are RPCs that fail with a status code that qualifies as a
 *     retryable or non-fatal status code, or that receive a pushback
 *     response indicating not to retry"), and is throttled -- the layer
 *     gives up -- when the tokens left are at or below max_tokens / 2;
 *   - a status outside the list is not retried (gRPC returns it to the
 *     application) and costs nothing.
 * So `immediate+token_bucket` is gRPC's retryPolicy {maxAttempts 5,
 * retryableStatusCodes} with throttling, and the layer under it supplies
 * the attempts and the backoff.  Stacked on a policy that retries fewer
 * statuses than the list (classified, aws_quota), a listed status that
 * policy does not retry still costs a token, as it would in gRPC.
 *
 * Pushback (grpc-retry-pushback-ms, sb_attempt.pushback_s), when
 * pushback = true as in gRPC: "do not retry" costs a token and ends the
 * request; a delay of n ms becomes the least delay of the retry, whatever
 * the status (grpc-java's makeRetryDecision retries on a pushback >= 0
 * even for a status outside the list).  gRPC waits exactly n ms and
 * resets its backoff; here the delay is the larger of n and the backoff
 * below, and the backoff below is not reset.
 *
 * Under hedge, gRPC charges the hedging policy's nonFatalStatusCodes
 * instead; here a hedge's failure is charged by this list too, so give
 * the two layers the same codes.
 *
 * With throttling = false there is no bucket: the layer is a retryPolicy
 * of a channel without retryThrottling (the status check and pushback).
 *
 * The bucket starts full at max_tokens; a success adds token_ratio; the
 * count stays in [0, max_tokens].  A hedge is sent only while tokens >
 * max_tokens / 2; first attempts are never throttled.  Tokens are kept in
 * thousandths, as gRPC does, so 10 - 1 + 0.1 is exact and the threshold
 * comparison never depends on rounding: A6 says token_ratio has at most
 * three decimals and further ones are ignored.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "builtin.h"
#include "classifier.h"

typedef struct tb {
    int64_t max_milli;   /* max_tokens x 1000 */
    int64_t ratio_milli; /* token_ratio x 1000, truncated */
    int64_t retryable;   /* bit i: gRPC code i is retried and counts */
    bool pushback;
    bool throttling;
} tb;

enum { P_MAX_TOKENS, P_TOKEN_RATIO, P_RETRYABLE, P_PUSHBACK, P_THROTTLING };

static const sb_param tb_params[] = {
    [P_MAX_TOKENS] =
        {"max_tokens", SB_PARAM_INT, "10",
         "bucket size; retries stop at or below half of it (gRFC A6)", NULL, 1,
         1000},
    [P_TOKEN_RATIO] = {"token_ratio", SB_PARAM_REAL, "0.1",
                       "tokens a success adds back (3 decimals, as gRFC A6)",
                       NULL, 0.001, 1000},
    [P_RETRYABLE] =
        {"retryable_status_codes", SB_PARAM_SET,
         "UNAVAILABLE,DEADLINE_EXCEEDED,RESOURCE_EXHAUSTED,ABORTED",
         "gRPC retryableStatusCodes: retried, and cost a token; others are not "
         "retried (gRPC requires the list; default: the classifier's transient)",
         GRPC_CODE_CHOICES, 0, 0},
    [P_PUSHBACK] = {"pushback", SB_PARAM_BOOL, "true",
                    "honour the server's grpc-retry-pushback-ms (gRPC does)",
                    NULL, 0, 0},
    [P_THROTTLING] =
        {"throttling", SB_PARAM_BOOL, "true",
         "false: gRPC's retryPolicy without retryThrottling (the status check "
         "and pushback alone, no bucket)",
         NULL, 0, 0},
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
     * 1000: the user wrote three decimals and means them (gRPC C-core
     * reads the decimal digits; grpc-java's float cast would drop it). */
    p->ratio_milli = (int64_t)floor(v[P_TOKEN_RATIO].d * 1000.0 + 1e-6);
    p->retryable = v[P_RETRYABLE].i;
    p->pushback = v[P_PUSHBACK].i != 0;
    p->throttling = v[P_THROTTLING].i != 0;
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
    if (p->throttling && ctx->host->level)
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
    if (a->hedge && p->throttling && !above_threshold(p, tokens))
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

/* A qualified failure: one token less; true while still above the
 * threshold (grpc-java's onQualifiedFailureThenCheckIsAboveThreshold). */
static bool charge(const sb_ctx *ctx, const tb *p)
{
    if (!p->throttling)
        return true;
    int64_t *tokens = ctx->process_state;
    *tokens -= 1000;
    if (*tokens < 0)
        *tokens = 0;
    report_level(ctx, p, *tokens);
    return above_threshold(p, *tokens);
}

static void tb_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                          sb_decision *out)
{
    const tb *p = ctx->shared;
    bool retryable = (p->retryable >> classify_as_grpc(a)) & 1;
    bool stop = p->pushback && a->pushback_s == SB_PUSHBACK_STOP;
    bool throttled = (retryable || stop) && !charge(ctx, p);
    if (stop)
        sb_give_up(out, "token_bucket: server pushback says do not retry");
    else if (throttled)
        sb_give_up(out, "token_bucket: retries throttled (tokens <= "
                        "max_tokens/2)");
    else if (p->pushback && a->pushback_s >= 0) {
        out->delay_s = a->pushback_s; /* a pass: the least delay */
        out->reason = "token_bucket: server pushback";
    } else if (!retryable)
        sb_give_up(out, "token_bucket: status not in "
                        "retryable_status_codes");
}

const sb_policy policy_token_bucket = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_LAYER | SB_POLICY_SHARED_READONLY,
    .name = "token_bucket",
    .doc = "gRPC retryableStatusCodes, pushback and retry throttling (gRFC "
           "A6): no retries while tokens <= max_tokens/2.",
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
