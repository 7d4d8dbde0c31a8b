/*
 * policy_harness.h -- drive a policy stack by hand, without the engine,
 * for the policy unit tests; and sum a run's metrics over a time window,
 * for the policy effect tests.
 *
 * A harness holds one client: a stack built from "a+b" and "key=value"
 * settings exactly as `--policy` and `--param` build it, that client's
 * state, one logical request's state, a clock (ph.now), and a fake host
 * whose uniform() hands out the numbers the test scripted with
 * ph_script(); a draw the test did not script fails the test, so every
 * random draw a policy makes is one the test expects (ph_fill() instead
 * answers every draw with one value, for tests that make hundreds).
 * breaker() reports are counted.  Up to PH_REQUESTS logical requests can
 * be open at once, each with its own state; ph_use() picks the one the
 * hooks see.
 *
 * Everything is static inline: tests/CMakeLists.txt compiles only the
 * check_*.c files into the runner, and a header is how they share code.
 */
#ifndef SB_POLICY_HARNESS_H
#define SB_POLICY_HARNESS_H

#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "classifier.h"
#include "driver.h"
#include "testutil.h"

#define PH_SCRIPT_MAX 64
#define PH_REQUESTS 64

typedef struct ph {
    policy_setup setup;
    void *pstate, *cstate, *rstate;
    char *rstates; /* PH_REQUESTS blocks of rstride bytes */
    size_t rsize, rstride;
    sb_host host;
    double script[PH_SCRIPT_MAX];
    int n_script, drawn;
    bool fill;
    double fill_value;
    int opened, closed; /* breaker() reports */
    double now;         /* the clock attempts are stamped with */
    bool hedge_pending; /* the driver is told a hedge's timer runs */
    double start;       /* when the current request started */
} ph;

static inline double ph_uniform(const sb_ctx *ctx)
{
    ph *h = ctx->host_data;
    if (h->fill && h->drawn >= h->n_script) {
        h->drawn++;
        return h->fill_value;
    }
    ck_assert_msg(h->drawn < h->n_script,
                  "the policy drew random number %d; the test scripted %d",
                  h->drawn + 1, h->n_script);
    return h->script[h->drawn++];
}

static inline void ph_breaker(const sb_ctx *ctx, int32_t open)
{
    ph *h = ctx->host_data;
    if (open)
        h->opened++;
    else
        h->closed++;
}

static inline pstack_call ph_call(ph *h)
{
    pstack_call c;
    c.client = 0;
    c.process = 0;
    c.process_state = h->pstate;
    c.client_state = h->cstate;
    c.request_state = h->rstate;
    c.host = &h->host;
    c.host_data = h;
    return c;
}

/* Build the stack `spec` with n "key=value" settings; fails the test when
 * it does not build. */
static inline ph *ph_create(const char *spec, const char *const *params, int n)
{
    ph *h = calloc(1, sizeof *h);
    ck_assert_ptr_nonnull(h);
    setting settings[PSTACK_MAX_SETTINGS];
    sb_err e;
    ck_assert_int_le(n, PSTACK_MAX_SETTINGS);
    for (int i = 0; i < n; i++)
        if (setting_parse(params[i], "--param", &settings[i], &e) != 0)
            ck_abort_msg("bad parameter: %s", e.msg);
    if (policy_setup_build(spec, NULL, 0, settings, n, &h->setup, &e) != 0)
        ck_abort_msg("policy '%s' did not build: %s", spec, e.msg);
    pstack *ps = h->setup.stack;
    h->pstate = calloc(1, pstack_process_state_size(ps) + 1);
    h->cstate = calloc(1, pstack_client_state_size(ps) + 1);
    h->rsize = pstack_request_state_size(ps);
    h->rstride = (h->rsize + 16u) & ~(size_t)15u;
    h->rstates = calloc(PH_REQUESTS, h->rstride);
    ck_assert_ptr_nonnull(h->rstates);
    h->rstate = h->rstates;
    h->host.struct_size = sizeof h->host;
    h->host.uniform = ph_uniform;
    h->host.breaker = ph_breaker;
    pstack_call c = ph_call(h);
    pstack_process_init(ps, &c);
    pstack_client_init(ps, &c);
    return h;
}

/* The stack's build error for spec + settings ("" when it builds). */
static inline const char *ph_build_error(const char *spec,
                                         const char *const *params, int n)
{
    static sb_err e;
    setting settings[PSTACK_MAX_SETTINGS];
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(setting_parse(params[i], "--param", &settings[i], &e),
                         0);
    policy_setup s;
    e.msg[0] = '\0';
    if (policy_setup_build(spec, NULL, 0, settings, n, &s, &e) == 0)
        policy_setup_free(&s);
    return e.msg;
}

static inline void ph_free(ph *h)
{
    if (h == NULL)
        return;
    policy_setup_free(&h->setup);
    free(h->pstate);
    free(h->cstate);
    free(h->rstates);
    free(h);
}

/* The random numbers the policy will draw next, in order. */
static inline void ph_script(ph *h, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    h->n_script = h->drawn = 0;
    for (int i = 0; i < n && i < PH_SCRIPT_MAX; i++)
        h->script[h->n_script++] = va_arg(ap, double);
    va_end(ap);
    h->fill = false;
}

/* Answer every draw from now on with v. */
static inline void ph_fill(ph *h, double v)
{
    h->n_script = h->drawn = 0;
    h->fill = true;
    h->fill_value = v;
}

/* Make request slot i (0 .. PH_REQUESTS-1) the one the hooks see. */
static inline void ph_use(ph *h, int i)
{
    ck_assert_int_lt(i, PH_REQUESTS);
    h->rstate = h->rstates + (size_t)i * h->rstride;
}

/* Start a new logical request now in the current slot: its state is
 * zeroed, as the engine zeroes it. */
static inline void ph_new_request(ph *h)
{
    memset(h->rstate, 0, h->rstride);
    h->start = h->now;
}

/* Attempt n of the current request, as the engine fills it before a send:
 * a read, sent, no deadline, 1 s timeout, no Retry-After. */
static inline sb_attempt ph_attempt(const ph *h, uint32_t n)
{
    sb_attempt a;
    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.attempt = n;
    a.op = SB_OP_READ;
    a.sent = 1;
    a.now_s = h->now;
    a.elapsed_s = h->now - h->start;
    a.remaining_s = INFINITY;
    a.timeout_s = 1.0;
    a.configured_timeout_s = 1.0;
    a.retry_after_s = -1.0;
    a.pushback_s = SB_PUSHBACK_NONE;
    return a;
}

/* Stamp a with the harness clock (after ph.now moved). */
static inline void ph_stamp(const ph *h, sb_attempt *a)
{
    double deadline = a->remaining_s + a->now_s;
    a->now_s = h->now;
    a->elapsed_s = h->now - h->start;
    if (isfinite(deadline))
        a->remaining_s = deadline - h->now;
}

/* Set a's outcome: error kind and status (HTTP status or gRPC code). */
static inline void ph_error(sb_attempt *a, sb_error_kind kind, int status)
{
    a->error = kind;
    a->status = status;
    a->sent = kind != SB_ERR_REFUSED;
}

/* The hooks, through the request driver (policies/driver.h) as the
 * engine calls them.  A test describes the attempt as a policy sees it
 * (an sb_attempt); the harness turns that back into the driver's facts
 * about the request, so every rule the engine applies -- the effective
 * timeout, the deadline and attempt limits, waiting for a hedge, the
 * final decision told to every layer -- applies here too. */
static inline int64_t ph_ns(double s)
{
    return (int64_t)llround(s * 1e9);
}

static inline driver_request ph_request(const ph *h, const sb_attempt *a,
                                        uint32_t sent_before)
{
    driver_request d;
    d.start_ns = ph_ns(h->start);
    d.deadline_ns = isfinite(a->remaining_s)
                        ? ph_ns(a->now_s) + ph_ns(a->remaining_s)
                        : DRIVER_NO_DEADLINE;
    d.timeout_ns = ph_ns(a->configured_timeout_s > 0 ? a->configured_timeout_s
                                                     : a->timeout_s);
    d.attempts = sent_before;
    d.outstanding = a->outstanding;
    d.op = a->op;
    d.flags = (a->keyed ? DRIVER_KEYED : 0) |
              (a->critical ? DRIVER_CRITICAL : 0) |
              (h->hedge_pending ? DRIVER_HEDGE_PENDING : 0);
    return d;
}

static inline driver_result ph_result(const sb_attempt *a)
{
    driver_result r;
    r.number = a->attempt;
    r.hedge = a->hedge != 0;
    r.sent = a->sent != 0;
    r.error = a->error;
    r.status = a->status;
    r.defect = a->defect;
    r.sent_ns = ph_ns(a->now_s) - ph_ns(a->latency_s);
    r.retry_after_ns = a->retry_after_s >= 0 ? ph_ns(a->retry_after_s) : -1;
    r.pushback_s = a->pushback_s;
    return r;
}

static inline pstack_verdict ph_send(ph *h, const sb_attempt *a)
{
    pstack_call c = ph_call(h);
    driver_request d = ph_request(h, a, a->attempt - 1);
    driver_send ds;
    ck_assert_int_eq(driver_before_send(h->setup.stack, &c, &d, ph_ns(a->now_s),
                                        a->hedge != 0, &ds),
                     0);
    return ds.verdict;
}

static inline bool ph_allowed(ph *h, const sb_attempt *a)
{
    return ph_send(h, a).v.action == SB_SEND_ALLOW;
}

static inline void ph_success(ph *h, const sb_attempt *a)
{
    pstack_call c = ph_call(h);
    driver_request d = ph_request(h, a, a->attempt);
    driver_result r = ph_result(a);
    sb_attempt seen;
    driver_on_success(h->setup.stack, &c, &d, ph_ns(a->now_s), &r, &seen);
}

/* on_failure through the driver: what was finally decided (the stack's
 * decision unless a host limit overrode it). */
static inline driver_next ph_failure_next(ph *h, const sb_attempt *a)
{
    pstack_call c = ph_call(h);
    driver_request d = ph_request(h, a, a->attempt);
    driver_result r = ph_result(a);
    driver_next nx;
    if (driver_on_failure(h->setup.stack, &c, &d, ph_ns(a->now_s), &r, &nx) !=
        0)
        ck_abort_msg("contract violation: %s", pstack_error(h->setup.stack));
    return nx;
}

/* The decision a failure leads to: the stack's, with the driver's limits
 * applied (SB_PASS when another attempt still waits). */
static inline sb_decision ph_failure(ph *h, const sb_attempt *a)
{
    return ph_failure_next(h, a).final;
}

/* on_failure for an error of this kind and status on attempt n. */
static inline sb_decision ph_fail(ph *h, uint32_t n, sb_error_kind kind,
                                  int status)
{
    sb_attempt a = ph_attempt(h, n);
    ph_error(&a, kind, status);
    return ph_failure(h, &a);
}

static inline void ph_end(ph *h, const sb_attempt *a, sb_outcome o)
{
    pstack_call c = ph_call(h);
    pstack_on_request_end(h->setup.stack, &c, a, o);
}

/* A whole request whose first attempt succeeds: send, success, end. */
static inline void ph_ok_request(ph *h)
{
    ph_new_request(h);
    sb_attempt a = ph_attempt(h, 1);
    ck_assert(ph_allowed(h, &a));
    ph_success(h, &a);
    ph_end(h, &a, SB_OUTCOME_SUCCESS);
}

/* ---- Effect tests: a run's counts over [from_s, to_s) ------------------ */

typedef struct ph_window {
    double offered, attempts, successes, failures;
    double gave_up, deadline, refused, quarantined, timeouts, rejections;
    double duplicates;
    int64_t open_breakers_min, open_breakers_max; /* at bucket ends */
} ph_window;

static inline ph_window ph_sum(const tu_sim *t, double from_s, double to_s)
{
    const metrics *m = sim_metrics(t->sim);
    double w = (double)m->bucket_ns / 1e9;
    ph_window s;
    memset(&s, 0, sizeof s);
    s.open_breakers_min = INT64_MAX;
    s.open_breakers_max = INT64_MIN;
    size_t from = (size_t)llround(from_s / w), to = (size_t)llround(to_s / w);
    ck_assert_uint_le(to, m->n_buckets);
    for (size_t i = from; i < to; i++) {
        const metrics_bucket *b = &m->buckets[i];
        s.offered += (double)b->offered;
        s.attempts += (double)b->attempts;
        s.successes += (double)b->successes;
        s.failures += (double)b->failures;
        s.gave_up += (double)b->gave_up;
        s.deadline += (double)b->deadline;
        s.refused += (double)b->refused;
        s.quarantined += (double)b->quarantined;
        s.timeouts += (double)b->timeouts;
        s.rejections += (double)b->rejections;
        s.duplicates += (double)b->duplicates;
        if (b->open_breakers < s.open_breakers_min)
            s.open_breakers_min = b->open_breakers;
        if (b->open_breakers > s.open_breakers_max)
            s.open_breakers_max = b->open_breakers;
    }
    return s;
}

/* Attempts per offered request over [from_s, to_s). */
static inline double ph_amplification(const tu_sim *t, double from_s,
                                      double to_s)
{
    ph_window s = ph_sum(t, from_s, to_s);
    ck_assert_msg(s.offered > 0, "no requests offered in [%g, %g)", from_s,
                  to_s);
    return s.attempts / s.offered;
}

/* Run ini under `policy` with every request traced to trace(ctx, record);
 * free with tu_sim_free. */
static inline tu_sim *ph_run_traced(const char *ini, const char *policy,
                                    const char *const *params, int n,
                                    void (*trace)(void *, const sim_trace *),
                                    void *ctx)
{
    return tu_sim_run_traced(ini, policy, params, n, trace, ctx);
}

#endif
