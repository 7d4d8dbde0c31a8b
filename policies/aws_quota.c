/*
 * aws_quota.c -- the AWS SDKs' "standard" retry mode: the retry strategy
 * of botocore (retries/standard.py) and the AWS SDK for Java 2.x, with its
 * client-wide retry quota.
 *
 *   quota      starts at initial_retry_tokens (500), at most that much;
 *              one per process, as one per SDK client object, which a
 *              service instance shares among its concurrent callers
 *   a retry    costs retry_cost (5), timeout_retry_cost (10) after a
 *              timeout, throttling_retry_cost (5) after a throttling
 *              error; no quota left for it => no retry.  botocore's
 *              default "standard" mode (retries/standard.py, STANDARD_
 *              RETRY_MODE_VERSION 2.0, RetryQuotaChecker) charges 5 and
 *              10 after ConnectTimeoutError/ReadTimeoutError; its 2.1
 *              charges 5 after a throttling error and 14 after any
 *              other (retry_cost = timeout_retry_cost = 14)
 *   a success  refunds the cost of the request's last retry, or
 *              no_retry_increment (1) if it was not retried
 *   backoff    full jitter: U(0, min(cap, base x 2^(n-1))) after attempt
 *              n, base 100 ms (Java 2.x; botocore uses 1 s), cap 20 s
 *   attempts   3 in all
 *
 * Retryable, as in botocore's StandardRetryConditions: timeouts and
 * connection errors (ConnectionError, HTTPClientError), HTTP 500, 502,
 * 503 and 504 (TransientRetryableChecker), and by error code: the
 * transient RequestTimeout and the throttling codes (Throttling,
 * ThrottlingException, TooManyRequestsException, SlowDown ...:
 * ThrottledRetryableChecker).  The simulated server sends no AWS error
 * codes, so its HTTP 408 is read as RequestTimeout and its 429 as a
 * throttling code, as the AWS services send them with those statuses;
 * gRPC codes (which no AWS service speaks) as the shared classifier's
 * transient ones.  Anything else fails at once without touching the
 * quota.
 *
 * The quota is taken when the retry is decided, as botocore does before
 * it sleeps: on_failure checks there is enough for the retry and
 * on_decision takes it once the whole stack (and the host's deadline)
 * agree to retry, so a retry another layer vetoed spends nothing.  A
 * failure while another attempt of the request (a hedge) still waits
 * decides nothing, so it takes nothing.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "backoff.h"
#include "builtin.h"

typedef struct quota {
    backoff b;
    int64_t max_attempts;
    int64_t initial, retry_cost, timeout_cost, no_retry_increment;
    int64_t throttling_cost;
} quota;

/* What one logical request remembers: the cost of its last retry. */
typedef struct quota_req {
    int64_t cost;
    bool retried;
} quota_req;

enum {
    P_MAX_ATTEMPTS,
    P_BASE,
    P_CAP,
    P_INITIAL_RETRY_TOKENS,
    P_RETRY_COST,
    P_TIMEOUT_RETRY_COST,
    P_NO_RETRY_INCREMENT,
    P_THROTTLING_RETRY_COST
};

static const sb_param quota_params[] = {
    [P_MAX_ATTEMPTS] = {"max_attempts", SB_PARAM_INT, "3",
                        "attempts in all, the first included", NULL, 1,
                        ATTEMPTS_MAX},
    [P_BASE] = {"base", SB_PARAM_DURATION, "100ms",
                "backoff base: the first retry waits U(0, base)", NULL, 0,
                86400},
    [P_CAP] = {"cap", SB_PARAM_DURATION, "20s", "largest backoff (MAX_BACKOFF)",
               NULL, 0, 86400},
    [P_INITIAL_RETRY_TOKENS] = {"initial_retry_tokens", SB_PARAM_INT, "500",
                                "size of the retry quota (one per process)",
                                NULL, 0, 1e9},
    [P_RETRY_COST] = {"retry_cost", SB_PARAM_INT, "5", "quota a retry takes",
                      NULL, 0, 1e9},
    [P_TIMEOUT_RETRY_COST] = {"timeout_retry_cost", SB_PARAM_INT, "10",
                              "quota a retry after a timeout takes", NULL, 0,
                              1e9},
    [P_NO_RETRY_INCREMENT] = {"no_retry_increment", SB_PARAM_INT, "1",
                              "quota a success on the first attempt gives back",
                              NULL, 0, 1e9},
    [P_THROTTLING_RETRY_COST] =
        {"throttling_retry_cost", SB_PARAM_INT, "5",
         "quota a retry after a throttling error (429) takes (botocore 2.0 and "
         "2.1: 5; with 2.1 set retry_cost and timeout_retry_cost to 14)",
         NULL, 0, 1e9},
    {0}};

static int32_t quota_create(const sb_value *v, void **shared, char *err,
                            size_t errlen)
{
    if (v[P_CAP].d < v[P_BASE].d) {
        snprintf(err, errlen, "cap (%gs) must be at least base (%gs)",
                 v[P_CAP].d, v[P_BASE].d);
        return -1;
    }
    quota *p = malloc(sizeof *p);
    if (p == NULL)
        return -1;
    p->max_attempts = v[P_MAX_ATTEMPTS].i;
    p->b.base = v[P_BASE].d;
    p->b.multiplier = 2.0;
    p->b.cap = v[P_CAP].d;
    p->b.jitter = JITTER_FULL;
    p->b.ratio = 0.0;
    p->initial = v[P_INITIAL_RETRY_TOKENS].i;
    p->retry_cost = v[P_RETRY_COST].i;
    p->timeout_cost = v[P_TIMEOUT_RETRY_COST].i;
    p->no_retry_increment = v[P_NO_RETRY_INCREMENT].i;
    p->throttling_cost = v[P_THROTTLING_RETRY_COST].i;
    *shared = p;
    return 0;
}

static size_t quota_process_size(const void *shared)
{
    (void)shared;
    return sizeof(int64_t);
}

static size_t quota_request_size(const void *shared)
{
    (void)shared;
    return sizeof(quota_req);
}

static void report_level(const sb_ctx *ctx, const quota *p, int64_t tokens)
{
    if (ctx->host->level && p->initial > 0)
        ctx->host->level(ctx, (double)tokens / (double)p->initial);
}

static void quota_process_init(const sb_ctx *ctx)
{
    const quota *p = ctx->shared;
    *(int64_t *)ctx->process_state = p->initial;
    report_level(ctx, p, p->initial);
}

static bool http_retryable(int status)
{
    static const int codes[] = {408, 429, 500, 502, 503, 504};
    for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
        if (codes[i] == status)
            return true;
    return false;
}

static bool retryable(const sb_ctx *ctx, const sb_attempt *a)
{
    sb_error_class cls;
    sb_confidence conf;
    switch (a->error) {
    case SB_ERR_TIMEOUT:
    case SB_ERR_REFUSED:
    case SB_ERR_RESET:
        return true;
    case SB_ERR_HTTP:
        return http_retryable(a->status);
    case SB_ERR_GRPC:
        /* RESOURCE_EXHAUSTED is a throttling error: the SDKs retry it. */
        ctx->host->classify(a, &cls, &conf);
        return cls == SB_CLASS_TRANSIENT || cls == SB_CLASS_RESOURCE_EXHAUSTION;
    default:
        return false;
    }
}

static int64_t cost_of(const quota *p, const sb_attempt *a)
{
    if (a->error == SB_ERR_HTTP && a->status == 429)
        return p->throttling_cost;
    return a->error == SB_ERR_TIMEOUT ? p->timeout_cost : p->retry_cost;
}

static void quota_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                             sb_decision *out)
{
    const quota *p = ctx->shared;
    if (a->outstanding > 0)
        return;
    if (!retryable(ctx, a)) {
        sb_give_up(out, "aws_quota: not a retryable error");
        return;
    }
    if ((int64_t)a->attempt >= p->max_attempts) {
        sb_give_up(out, "max_attempts reached");
        return;
    }
    if (*(const int64_t *)ctx->process_state < cost_of(p, a)) {
        sb_give_up(out, "aws_quota: retry quota exhausted");
        return;
    }
    double scratch = 0.0;
    sb_retry(out, backoff_delay(ctx, &p->b, a->attempt, &scratch),
             "aws_quota: full-jitter backoff");
}

static void quota_on_decision(const sb_ctx *ctx, const sb_attempt *a,
                              const sb_decision *final)
{
    const quota *p = ctx->shared;
    if (final->action != SB_RETRY)
        return;
    int64_t *tokens = ctx->process_state;
    int64_t cost = cost_of(p, a);
    *tokens -= cost;
    quota_req *r = ctx->request_state;
    if (r) {
        r->cost = cost;
        r->retried = true;
    }
    report_level(ctx, p, *tokens);
}

static void quota_on_success(const sb_ctx *ctx, const sb_attempt *a)
{
    (void)a;
    const quota *p = ctx->shared;
    const quota_req *r = ctx->request_state;
    int64_t *tokens = ctx->process_state;
    *tokens += r && r->retried ? r->cost : p->no_retry_increment;
    if (*tokens > p->initial)
        *tokens = p->initial;
    report_level(ctx, p, *tokens);
}

const sb_policy policy_aws_quota = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_SHARED_READONLY,
    .name = "aws_quota",
    .doc = "AWS SDK standard retry mode: 3 attempts, full-jitter backoff and "
           "a 500-token retry quota per process.",
    .scope = "per process: one retry quota per SDK client object, shared "
             "by the process's callers",
    .params = quota_params,
    .create = quota_create,
    .destroy = free,
    .process_state_size = quota_process_size,
    .request_state_size = quota_request_size,
    .process_init = quota_process_init,
    .on_success = quota_on_success,
    .on_failure = quota_on_failure,
    .on_decision = quota_on_decision,
};
