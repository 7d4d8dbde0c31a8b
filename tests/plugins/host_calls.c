/*
 * host_calls.c -- a plug-in written from stormbench/policy.h alone that
 * calls every function of sb_host from every hook it has, as the header
 * allows: uniform, breaker, classify and level, with the ctx it was
 * given.  tests/check_plugin_host.c runs it through every host there is
 * (run and its pre-check, validate's probe, decide, compare, a pipeline
 * step, a tier): a host that hands it a NULL function pointer crashes it,
 * and stormbench then exits 3 naming the hook.
 *
 * It counts its calls in its process state so a test can see the hooks
 * ran: every hook adds one, and on_failure retries after 10 ms up to 3
 * attempts (the intact policy of broken.c), so the run has failures,
 * decisions and request ends to call from.
 */
#include <stdint.h>

#include "stormbench/policy.h"

typedef struct counts {
    uint64_t calls;
} counts;

/* Every host function, through the ctx the hook was given.  The header
 * says every field of sb_host its struct_size covers is set; a plug-in
 * built against this header may rely on it. */
static void call_host(const sb_ctx *ctx, const sb_attempt *a)
{
    const sb_host *h = ctx->host;
    volatile double u = h->uniform(ctx);
    (void)u;
    h->breaker(ctx, 0);
    sb_attempt none = {.struct_size = sizeof none,
                       .attempt = 1,
                       .op = SB_OP_READ,
                       .error = SB_ERR_HTTP,
                       .status = 503,
                       .retry_after_s = -1,
                       .pushback_s = SB_PUSHBACK_NONE};
    sb_error_class cls;
    sb_confidence conf;
    h->classify(a ? a : &none, &cls, &conf);
    h->level(ctx, 0.5);
    if (ctx->process_state)
        ((counts *)ctx->process_state)->calls++;
}

static size_t psize(const void *shared)
{
    (void)shared;
    return sizeof(counts);
}

static void process_init(const sb_ctx *ctx)
{
    call_host(ctx, 0);
}
static void client_init(const sb_ctx *ctx)
{
    call_host(ctx, 0);
}

static void before_send(const sb_ctx *ctx, const sb_attempt *a, sb_verdict *out)
{
    (void)out;
    call_host(ctx, a);
}

static void on_success(const sb_ctx *ctx, const sb_attempt *a)
{
    call_host(ctx, a);
}

static void on_failure(const sb_ctx *ctx, const sb_attempt *a, sb_decision *out)
{
    call_host(ctx, a);
    if (a->attempt < 3)
        sb_retry(out, 0.01, "host_calls: retry");
    else
        sb_give_up(out, "host_calls: 3 attempts");
}

static void on_decision(const sb_ctx *ctx, const sb_attempt *a,
                        const sb_decision *final)
{
    (void) final;
    call_host(ctx, a);
}

static void on_request_end(const sb_ctx *ctx, const sb_attempt *a,
                           sb_outcome outcome)
{
    (void)outcome;
    call_host(ctx, a);
}

static const sb_param params[] = {{0, 0, 0, 0, 0, 0, 0}};

static const sb_policy policy = {SB_POLICY_ABI_MAJOR,
                                 SB_POLICY_ABI_MINOR,
                                 sizeof(sb_policy),
                                 0,
                                 "sbt_host_calls",
                                 "calls every host function from every hook",
                                 "per process: a count of its calls",
                                 params,
                                 0,
                                 0,
                                 psize,
                                 0,
                                 0,
                                 process_init,
                                 client_init,
                                 before_send,
                                 on_success,
                                 on_failure,
                                 on_decision,
                                 on_request_end,
                                 0};

SB_EXPORT const sb_policy *sb_policy_plugin(void);
SB_EXPORT const sb_policy *sb_policy_plugin(void)
{
    return &policy;
}
