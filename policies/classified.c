/*
 * classified.c -- classify the error, then decide, with presets for four
 * kinds of caller.
 *
 * 1. The shared classifier's class: permanent and data-defect errors
 *    fail fast.
 * 2. The preset's status list: a status it does not list is never
 *    retried (analytics does not retry 429; payment never
 *    400/401/402/403/404/409/422).  gRPC codes go through the same list
 *    by their HTTP equivalents in google.rpc.Code (RESOURCE_EXHAUSTED
 *    429, UNAVAILABLE 503, DEADLINE_EXCEEDED 504, ABORTED and
 *    ALREADY_EXISTS 409, INTERNAL and UNKNOWN 500 ...), so a preset means
 *    the same thing on both protocols.  Timeouts and connection errors
 *    carry no status and are not filtered.
 * 3. The class, with the operation, decides:
 *      transient + read                     retry
 *      transient + put, or keyed post       retry
 *      transient + unkeyed post             retry only if it was never
 *                                           sent (connection refused):
 *                                           never after a timeout, a reset
 *                                           or an answer -- it may have
 *                                           committed
 *      permanent or data defect             fail fast
 *      unknown + read                       at most unknown_read_retries
 *                                           (2) retries: attempt <= 2
 *      unknown + write                      no retry
 * 4. Preconditions before any retry: attempts left (the preset's; writes
 *    at most write_max_attempts, 3; critical-path requests get
 *    critical_extra, 2, more, at most critical_max_attempts, 7); the
 *    delay, raised to the Retry-After where the preset respects it, plus
 *    one more attempt (its timeout) fits before the deadline.  "Breaker
 *    not open" is the circuit_breaker layer's job: stack it
 *    (classified+circuit_breaker), it gives up while open.
 *
 * Backoff is exponential with full jitter: U(0, min(cap, base x
 * 2^(n-1))) after attempt n.
 *
 *   preset        attempts  base    cap   Retry-After  retried statuses
 *   payment       5         100ms   5s    respected    408 429 502 503 504
 *   analytics     2         50ms    500ms ignored      502 503 504
 *   external_api  3         1s      60s   respected    429 500 502 503 504
 *   internal      4         100ms   2s    respected    408 429 500 502
 *                                                      503 504
 * The issue leaves internal's Retry-After open; it retries 429, and
 * retrying a 429 sooner than the server asked only earns another 429.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "backoff.h"
#include "builtin.h"

#define MAX_STATUSES 8

typedef struct preset {
    int64_t max_attempts;
    double base, cap;
    bool retry_after;
    int statuses[MAX_STATUSES]; /* 0-terminated */
} preset;

/* In the order of the `preset` choice. */
static const preset presets[] = {
    {5, 0.100, 5.0, true, {408, 429, 502, 503, 504}},
    {2, 0.050, 0.5, false, {502, 503, 504}},
    {3, 1.0, 60.0, true, {429, 500, 502, 503, 504}},
    {4, 0.100, 2.0, true, {408, 429, 500, 502, 503, 504}},
};

/* The presets as `stormbench policies classified` prints them: made from
 * the table above, so the listing cannot drift from what runs. */
static const char *const preset_names[] = {"payment", "analytics",
                                           "external_api", "internal"};

/* 0.1 -> "100ms", 60 -> "60s". */
static void delay_text(double s, char *buf, size_t len)
{
    if (s >= 1)
        snprintf(buf, len, "%gs", s);
    else
        snprintf(buf, len, "%gms", s * 1e3);
}

const char *classified_presets_text(char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len,
                                   "    presets (max_attempts, base and cap "
                                   "of 0 take these):\n"
                                   "      %-13s %-9s %-7s %-7s %-12s %s\n",
                                   "preset", "attempts", "base", "cap",
                                   "Retry-After", "statuses retried");
    for (size_t i = 0; i < sizeof presets / sizeof *presets && used < len;
         i++) {
        const preset *p = &presets[i];
        char base[16], cap[16], st[64] = "";
        delay_text(p->base, base, sizeof base);
        delay_text(p->cap, cap, sizeof cap);
        size_t k = 0;
        for (int j = 0; j < MAX_STATUSES && p->statuses[j]; j++)
            k += (size_t)snprintf(st + k, sizeof st - k, "%s%d", j ? " " : "",
                                  p->statuses[j]);
        used += (size_t)snprintf(
            buf + used, len - used, "      %-13s %-9lld %-7s %-7s %-12s %s\n",
            preset_names[i], (long long)p->max_attempts, base, cap,
            p->retry_after ? "respected" : "ignored", st);
    }
    if (used < len)
        snprintf(buf + used, len - used,
                 "      writes: at most write_max_attempts; critical-path "
                 "requests: critical_extra more, at most "
                 "critical_max_attempts\n");
    return buf;
}

typedef struct classified {
    preset p;
    backoff b;
    int64_t write_max, critical_extra, critical_max, unknown_retries;
} classified;

enum {
    P_PRESET,
    P_MAX_ATTEMPTS,
    P_BASE,
    P_CAP,
    P_JITTER,
    P_RATIO,
    P_WRITE_MAX_ATTEMPTS,
    P_CRITICAL_EXTRA,
    P_CRITICAL_MAX_ATTEMPTS,
    P_UNKNOWN_READ_RETRIES
};

static const sb_param classified_params[] = {
    [P_PRESET] = {"preset", SB_PARAM_CHOICE, "internal",
                  "attempts, backoff, Retry-After and statuses retried",
                  "payment|analytics|external_api|internal", 0, 0},
    [P_MAX_ATTEMPTS] = {"max_attempts", SB_PARAM_INT, "0",
                        "attempts in all for reads; 0: the preset's", NULL, 0,
                        ATTEMPTS_MAX},
    [P_BASE] = {"base", SB_PARAM_DURATION, "0s",
                "backoff base; 0: the preset's", NULL, 0, 86400},
    [P_CAP] = {"cap", SB_PARAM_DURATION, "0s",
               "largest backoff; 0: the preset's", NULL, 0, 86400},
    [P_JITTER] = {"jitter", SB_PARAM_CHOICE, "full",
                  "how the delay is randomised", BACKOFF_JITTER_CHOICES, 0, 0},
    [P_RATIO] =
        {"ratio", SB_PARAM_REAL, "0.5",
         "ratio jitter: +/- this share (resilience4j randomizationFactor 0.5; "
         "Polly 0.25)",
         NULL, 0, 1},
    [P_WRITE_MAX_ATTEMPTS] = {"write_max_attempts", SB_PARAM_INT, "3",
                              "attempts in all for puts and posts, at most",
                              NULL, 1, ATTEMPTS_MAX},
    [P_CRITICAL_EXTRA] = {"critical_extra", SB_PARAM_INT, "2",
                          "extra attempts for critical-path requests", NULL, 0,
                          ATTEMPTS_MAX},
    [P_CRITICAL_MAX_ATTEMPTS] =
        {"critical_max_attempts", SB_PARAM_INT, "7",
         "attempts in all for critical-path requests, at most", NULL, 1,
         ATTEMPTS_MAX},
    [P_UNKNOWN_READ_RETRIES] =
        {"unknown_read_retries", SB_PARAM_INT, "2",
         "retries of a read after an unknown error (500)", NULL, 0,
         ATTEMPTS_MAX},
    {0}};

static int32_t classified_create(const sb_value *v, void **shared, char *err,
                                 size_t errlen)
{
    classified *c = malloc(sizeof *c);
    if (c == NULL)
        return -1;
    c->p = presets[v[P_PRESET].i];
    if (v[P_MAX_ATTEMPTS].i > 0)
        c->p.max_attempts = v[P_MAX_ATTEMPTS].i;
    if (v[P_BASE].d > 0)
        c->p.base = v[P_BASE].d;
    if (v[P_CAP].d > 0)
        c->p.cap = v[P_CAP].d;
    if (c->p.cap < c->p.base) {
        snprintf(err, errlen, "cap (%gs) must be at least base (%gs)", c->p.cap,
                 c->p.base);
        free(c);
        return -1;
    }
    c->b.base = c->p.base;
    c->b.multiplier = 2.0;
    c->b.cap = c->p.cap;
    c->b.jitter = (backoff_jitter)v[P_JITTER].i;
    c->b.ratio = v[P_RATIO].d;
    c->write_max = v[P_WRITE_MAX_ATTEMPTS].i;
    c->critical_extra = v[P_CRITICAL_EXTRA].i;
    c->critical_max = v[P_CRITICAL_MAX_ATTEMPTS].i;
    c->unknown_retries = v[P_UNKNOWN_READ_RETRIES].i;
    *shared = c;
    return 0;
}

static size_t classified_request_size(const void *shared)
{
    (void)shared;
    return sizeof(double); /* the previous delay, for decorrelated jitter */
}

/* The HTTP status google.rpc.Code gives a gRPC code. */
static int grpc_as_http(int code)
{
    static const int http[] = {200, 499, 500, 400, 504, 404, 409, 403, 429,
                               400, 409, 400, 501, 500, 503, 500, 401};
    return code >= 0 && code <= SB_GRPC_UNAUTHENTICATED ? http[code] : 500;
}

static bool preset_retries(const preset *p, const sb_attempt *a)
{
    int status;
    if (a->error == SB_ERR_HTTP)
        status = a->status;
    else if (a->error == SB_ERR_GRPC)
        status = grpc_as_http(a->status);
    else
        return true; /* timeouts and connection errors have no status */
    for (int i = 0; i < MAX_STATUSES && p->statuses[i]; i++)
        if (p->statuses[i] == status)
            return true;
    return false;
}

/* Attempts this request may make in all. */
static int64_t attempt_cap(const classified *c, const sb_attempt *a)
{
    int64_t cap = c->p.max_attempts;
    if (a->op != SB_OP_READ && cap > c->write_max)
        cap = c->write_max;
    if (a->critical) {
        cap += c->critical_extra;
        if (cap > c->critical_max)
            cap = c->critical_max;
    }
    return cap;
}

/* The decision matrix: NULL when a retry is allowed, else why not.  A
 * permanent error is named as such before the preset's list is looked
 * at, so the reason a trace shows is the deeper one. */
static const char *refusal(const sb_ctx *ctx, const classified *c,
                           const sb_attempt *a)
{
    sb_error_class cls;
    sb_confidence conf;
    ctx->host->classify(a, &cls, &conf);
    if (cls != SB_CLASS_TRANSIENT && cls != SB_CLASS_RESOURCE_EXHAUSTION &&
        cls != SB_CLASS_UNKNOWN)
        return "classified: permanent error, fail fast";
    if (!preset_retries(&c->p, a))
        return "classified: status not retried by the preset";
    if (cls == SB_CLASS_UNKNOWN) {
        if (a->op != SB_OP_READ)
            return "classified: unknown error on a write";
        if ((int64_t)a->attempt > c->unknown_retries)
            return "classified: unknown error, read retries used";
        return NULL;
    }
    if (a->op == SB_OP_POST && !a->keyed && a->sent)
        return "classified: an unkeyed post may have committed";
    return NULL;
}

static void classified_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                                  sb_decision *out)
{
    const classified *c = ctx->shared;
    const char *why = refusal(ctx, c, a);
    if (why == NULL && (int64_t)a->attempt >= attempt_cap(c, a))
        why = "max_attempts reached";
    if (why) {
        sb_give_up(out, why);
        return;
    }
    double scratch = 0.0;
    double *prev = ctx->request_state ? ctx->request_state : &scratch;
    double d = backoff_delay(ctx, &c->b, a->attempt, prev);
    if (c->p.retry_after && a->retry_after_s > d)
        d = a->retry_after_s;
    /* A whole attempt (its configured timeout) must fit after the delay. */
    if (a->remaining_s < d + a->configured_timeout_s)
        sb_give_up(out, "classified: no time left before the deadline");
    else
        sb_retry(out, d, "classified: retry");
}

const sb_policy policy_classified = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_SHARED_READONLY,
    .name = "classified",
    .doc = "Classify the error, then retry by operation and preset "
           "(payment, analytics, external_api, internal).",
    .scope = "per request: the previous delay (decorrelated jitter)",
    .params = classified_params,
    .create = classified_create,
    .destroy = free,
    .request_state_size = classified_request_size,
    .on_failure = classified_on_failure,
};
