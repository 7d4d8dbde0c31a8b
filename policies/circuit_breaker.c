/*
 * circuit_breaker.c -- a client-side circuit breaker, one per process for
 * its destination, as resilience4j, Polly, Hystrix and Envoy keep them:
 * every caller in a service instance shares the breaker for a backend.
 * ([clients] processes = N; by default each client is its own process.)
 *
 *   closed     attempts go out; failures are counted:
 *                consecutive mode: `threshold` (5) failures in a row open
 *                  it (Polly v7's CircuitBreaker, Hystrix-style, Envoy's
 *                  consecutive_5xx);
 *                window mode: once the window holds min_calls calls, a
 *                  failure ratio >= failure_ratio, or a slow-call ratio
 *                  >= slow_call_ratio, opens it (resilience4j, Polly v8);
 *                  the window is the last window_size calls (count,
 *                  checked after every call, as resilience4j) or the
 *                  last window_duration (time, 10 slices, checked when a
 *                  failure is recorded, as Polly v8).
 *   open       every attempt is refused locally, and a failure gives up
 *              rather than wait for a retry the breaker would refuse;
 *              after the cooldown (60 s) the next attempt finds it
 *   half-open  and is let through as a probe, up to `probes` (1) at a
 *              time; the rest are refused.  How the probes decide
 *              (half_open):
 *                all    a probe that fails reopens it at once; once
 *                       `probes` have succeeded it closes (Polly, Hystrix:
 *                       one trial call);
 *                ratio  once min(probes, min_calls) answers are in (all
 *                       the probes, unless min_calls is smaller), a
 *                       failure ratio >=
 *                       failure_ratio or a slow ratio >= slow_call_ratio
 *                       among them reopens it, else it closes
 *                       (resilience4j's permittedNumberOfCallsIn
 *                       HalfOpenState, whose default is 10);
 *                auto   (default) all in consecutive mode, ratio in
 *                       window mode.
 *              Each reopening waits the break duration: cooldown x
 *              cooldown_multiplier^n (cooldown_growth = exponential) or
 *              cooldown x (n + 1) (linear, Envoy's ejection time x
 *              ejections), n the failed half-open rounds in a row, at
 *              most max_cooldown -- the shapes of Polly v8's
 *              BreakDurationGenerator (its HalfOpenAttempts).  The default
 *              multiplier 1 keeps it constant, as resilience4j's
 *              waitDurationInOpenState, Polly's BreakDuration and
 *              Hystrix's sleep window do.  Closing resets it.
 *
 * A failure is what the shared classifier calls transient, unknown or
 * resource exhaustion: timeouts, refused and reset connections, 5xx, 408,
 * 429.  A 404 or a 422 shows a server that works, and counts as a success
 * (resilience4j and Polly record every exception by default).  Answers to
 * attempts sent before the breaker opened are ignored while it is open or
 * half-open: only the probes' answers decide.  A probe that never answers
 * (its request ended first) gives its slot back when its request ends,
 * so the breaker cannot stay half-open forever.
 *
 * The host is told (sb_host.breaker) when the breaker opens and when it
 * closes; half-open counts as open.
 */
#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "builtin.h"
#include "window.h"

enum { CB_CLOSED = 0, CB_OPEN = 1, CB_HALF_OPEN = 2 };
enum { MODE_CONSECUTIVE = 0, MODE_WINDOW = 1 };
enum { WINDOW_COUNT = 0, WINDOW_TIME = 1 };
enum { CALLS = 0, FAILED = 1, SLOW = 2 }; /* time-window counters */
enum { HALF_AUTO = 0, HALF_ALL = 1, HALF_RATIO = 2 };
enum { GROW_EXPONENTIAL = 0, GROW_LINEAR = 1 };
enum { OUT_FAILED = 1, OUT_SLOW = 2 }; /* count-window bits */

#define TIME_SLICES 10 /* Polly's rolling health metrics */

typedef struct breaker {
    int mode, window_type, half_open, growth;
    int64_t threshold, probes;
    double cooldown, multiplier, max_cooldown;
    int64_t window_size, min_calls;
    int64_t half_open_calls; /* ratio: answers the probes' ratio needs */
    window_shape tw;
    double failure_ratio, slow_duration, slow_ratio;
} breaker;

/* Per process; the count window's ring (window_size bytes) or the time
 * window follows it. */
typedef struct cb_state {
    double open_until;
    double cooldown; /* the current break duration */
    uint32_t state;
    uint32_t failures; /* consecutive */
    uint32_t probes_out, probes_ok;
    uint32_t probes_failed, probes_slow; /* half_open = ratio */
    uint32_t reopened;                   /* failed half-open rounds in a row */
    uint32_t ring_next, ring_len, ring_failed, ring_slow;
} cb_state;

enum {
    P_MODE,
    P_THRESHOLD,
    P_COOLDOWN,
    P_COOLDOWN_MULTIPLIER,
    P_MAX_COOLDOWN,
    P_PROBES,
    P_WINDOW_TYPE,
    P_WINDOW_SIZE,
    P_WINDOW_DURATION,
    P_FAILURE_RATIO,
    P_MIN_CALLS,
    P_SLOW_CALL_DURATION,
    P_SLOW_CALL_RATIO,
    P_HALF_OPEN,
    P_COOLDOWN_GROWTH
};

static const sb_param cb_params[] = {
    [P_MODE] =
        {"mode", SB_PARAM_CHOICE, "consecutive",
         "what opens it: failures in a row, or a failure ratio over a window",
         "consecutive|window", 0, 0},
    [P_THRESHOLD] = {"threshold", SB_PARAM_INT, "5",
                     "consecutive mode: failures in a row", NULL, 1, 1e6},
    [P_COOLDOWN] = {"cooldown", SB_PARAM_DURATION, "60s",
                    "how long it stays open before a probe", NULL, 0.001,
                    86400},
    [P_COOLDOWN_MULTIPLIER] =
        {"cooldown_multiplier", SB_PARAM_REAL, "1",
         "exponential growth: the cooldown x this per failed half-open round "
         "(1: constant, as resilience4j, Polly, Hystrix)",
         NULL, 1, 100},
    [P_MAX_COOLDOWN] = {"max_cooldown", SB_PARAM_DURATION, "300s",
                        "the cooldown never grows past this", NULL, 0.001,
                        86400},
    [P_PROBES] =
        {"probes", SB_PARAM_INT, "1",
         "attempts let through when half-open (Polly 1; resilience4j 10)", NULL,
         1, 1000},
    [P_WINDOW_TYPE] =
        {"window_type", SB_PARAM_CHOICE, "count",
         "window mode: the last window_size calls, or window_duration",
         "count|time", 0, 0},
    [P_WINDOW_SIZE] = {"window_size", SB_PARAM_INT, "100",
                       "count window: calls it holds", NULL, 1, 10000},
    [P_WINDOW_DURATION] = {"window_duration", SB_PARAM_DURATION, "30s",
                           "time window: how far back it looks", NULL, 0.01,
                           86400},
    [P_FAILURE_RATIO] = {"failure_ratio", SB_PARAM_REAL, "0.5",
                         "window mode: failed / calls that opens it", NULL,
                         0.001, 1},
    [P_MIN_CALLS] = {"min_calls", SB_PARAM_INT, "100",
                     "window mode: calls needed before the ratio counts", NULL,
                     1, 1e6},
    [P_SLOW_CALL_DURATION] = {"slow_call_duration", SB_PARAM_DURATION, "60s",
                              "window mode: a call slower than this is slow",
                              NULL, 0.001, 86400},
    [P_SLOW_CALL_RATIO] = {"slow_call_ratio", SB_PARAM_REAL, "1",
                           "window mode: slow / calls that opens it", NULL,
                           0.001, 1},
    [P_HALF_OPEN] =
        {"half_open", SB_PARAM_CHOICE, "auto",
         "how probes decide: all must succeed (Polly), or their failure ratio "
         "(resilience4j); auto: all in consecutive mode, ratio in window mode",
         "auto|all|ratio", 0, 0},
    [P_COOLDOWN_GROWTH] =
        {"cooldown_growth", SB_PARAM_CHOICE, "exponential",
         "break duration after n failed rounds: cooldown x multiplier^n, or "
         "cooldown x (n+1) (Envoy's ejections)",
         "exponential|linear", 0, 0},
    {0}};

static int32_t cb_create(const sb_value *v, void **shared, char *err,
                         size_t errlen)
{
    if (v[P_MAX_COOLDOWN].d < v[P_COOLDOWN].d) {
        snprintf(err, errlen,
                 "max_cooldown (%gs) must be at least cooldown "
                 "(%gs)",
                 v[P_MAX_COOLDOWN].d, v[P_COOLDOWN].d);
        return -1;
    }
    breaker *p = malloc(sizeof *p);
    if (p == NULL)
        return -1;
    p->mode = (int)v[P_MODE].i;
    p->threshold = v[P_THRESHOLD].i;
    p->cooldown = v[P_COOLDOWN].d;
    p->multiplier = v[P_COOLDOWN_MULTIPLIER].d;
    p->max_cooldown = v[P_MAX_COOLDOWN].d;
    p->probes = v[P_PROBES].i;
    p->half_open = (int)v[P_HALF_OPEN].i;
    if (p->half_open == HALF_AUTO)
        p->half_open = p->mode == MODE_WINDOW ? HALF_RATIO : HALF_ALL;
    p->growth = (int)v[P_COOLDOWN_GROWTH].i;
    p->window_type = (int)v[P_WINDOW_TYPE].i;
    p->window_size = v[P_WINDOW_SIZE].i;
    p->tw.slice_s = v[P_WINDOW_DURATION].d / TIME_SLICES;
    p->tw.slices = TIME_SLICES;
    p->tw.vals = 3;
    p->failure_ratio = v[P_FAILURE_RATIO].d;
    /* resilience4j: a count window smaller than min_calls makes its size
     * the minimum, or the breaker could never open. */
    p->min_calls = v[P_MIN_CALLS].i;
    /* resilience4j's half-open metrics: a count window of the permitted
     * calls, whose minimum is min(minimumNumberOfCalls, permitted). */
    p->half_open_calls = p->min_calls < p->probes ? p->min_calls : p->probes;
    if (p->window_type == WINDOW_COUNT && p->min_calls > p->window_size)
        p->min_calls = p->window_size;
    p->slow_duration = v[P_SLOW_CALL_DURATION].d;
    p->slow_ratio = v[P_SLOW_CALL_RATIO].d;
    *shared = p;
    return 0;
}

static size_t cb_process_size(const void *shared)
{
    const breaker *p = shared;
    if (p->mode == MODE_CONSECUTIVE)
        return sizeof(cb_state);
    if (p->window_type == WINDOW_COUNT)
        return sizeof(cb_state) + (size_t)p->window_size;
    return sizeof(cb_state) + window_bytes(&p->tw);
}

static size_t cb_request_size(const void *shared)
{
    (void)shared;
    return sizeof(uint32_t); /* the attempt number of its probe, or 0 */
}

static void cb_process_init(const sb_ctx *ctx)
{
    const breaker *p = ctx->shared;
    cb_state *c = ctx->process_state;
    c->cooldown = p->cooldown;
}

static void *window_of(cb_state *c)
{
    return c + 1;
}

#ifndef NDEBUG
/* The breaker state's invariants: a known state, no more probes out than
 * allowed, a count window no fuller than its size, counts within it, and
 * a cooldown between the base and the cap.  Checked in assert() only. */
static bool cb_sane(const breaker *p, const cb_state *c)
{
    return c->state <= CB_HALF_OPEN && c->probes_out <= (uint64_t)p->probes &&
           c->ring_len <= (uint64_t)p->window_size &&
           c->ring_failed <= c->ring_len && c->ring_slow <= c->ring_len &&
           c->cooldown >= p->cooldown && c->cooldown <= p->max_cooldown;
}
#endif

static void report(const sb_ctx *ctx, int open)
{
    if (ctx->host->breaker)
        ctx->host->breaker(ctx, open);
}

static void clear_window(const breaker *p, cb_state *c)
{
    c->failures = 0;
    c->ring_next = c->ring_len = c->ring_failed = c->ring_slow = 0;
    if (p->mode == MODE_WINDOW && p->window_type == WINDOW_TIME)
        window_clear(&p->tw, window_of(c));
}

static void trip(const sb_ctx *ctx, cb_state *c, double now)
{
    const breaker *p = ctx->shared;
    if (c->state == CB_CLOSED)
        report(ctx, 1);
    c->state = CB_OPEN;
    c->open_until = now + c->cooldown;
    clear_window(p, c);
}

static void close_breaker(const sb_ctx *ctx, cb_state *c)
{
    const breaker *p = ctx->shared;
    c->state = CB_CLOSED;
    c->cooldown = p->cooldown;
    c->reopened = 0;
    clear_window(p, c);
    report(ctx, 0);
}

/* The break duration after another failed half-open round. */
static double next_cooldown(const breaker *p, cb_state *c)
{
    c->reopened++;
    double d = p->growth == GROW_LINEAR
                   ? p->cooldown * (double)(c->reopened + 1)
                   : c->cooldown * p->multiplier;
    return fmin(d, p->max_cooldown);
}

/* Ratios are compared as failed / calls, not failed >= ratio x calls:
 * 3 / 10 rounds to the same double as the literal 0.3, 0.3 x 10 does not
 * round to 3. */
static bool ratios_trip(const breaker *p, int64_t calls, int64_t failed,
                        int64_t slow)
{
    return (double)failed / (double)calls >= p->failure_ratio ||
           (double)slow / (double)calls >= p->slow_ratio;
}

static bool window_trips(const breaker *p, int64_t calls, int64_t failed,
                         int64_t slow)
{
    return calls >= p->min_calls && ratios_trip(p, calls, failed, slow);
}

static void probe_result(const sb_ctx *ctx, cb_state *c, const sb_attempt *a,
                         bool failed)
{
    const breaker *p = ctx->shared;
    bool reopen, done;
    if (p->half_open == HALF_ALL) {
        reopen = failed;
        done = failed || ++c->probes_ok >= p->probes;
    } else {
        c->probes_ok++;
        c->probes_failed += failed;
        c->probes_slow += a->latency_s > p->slow_duration;
        done = c->probes_ok >= p->half_open_calls;
        /* resilience4j: once the half-open metrics hold their minimum
         * number of calls, the thresholds decide. */
        reopen = done &&
                 ratios_trip(p, c->probes_ok, c->probes_failed, c->probes_slow);
    }
    if (!done)
        return;
    if (reopen) {
        c->cooldown = next_cooldown(p, c);
        trip(ctx, c, a->now_s);
    } else {
        close_breaker(ctx, c);
    }
}

/* Push one outcome into the count window; returns calls in it. */
static int64_t count_window(const breaker *p, cb_state *c, unsigned out,
                            int64_t *failed, int64_t *slow)
{
    uint8_t *ring = window_of(c);
    if (c->ring_len == (uint32_t)p->window_size) {
        c->ring_failed -= ring[c->ring_next] & OUT_FAILED;
        c->ring_slow -= (ring[c->ring_next] & OUT_SLOW) != 0;
    } else {
        c->ring_len++;
    }
    ring[c->ring_next] = (uint8_t)out;
    c->ring_failed += (out & OUT_FAILED) != 0;
    c->ring_slow += (out & OUT_SLOW) != 0;
    c->ring_next = (c->ring_next + 1) % (uint32_t)p->window_size;
    *failed = c->ring_failed;
    *slow = c->ring_slow;
    return c->ring_len;
}

/* Push one outcome into the time window; returns calls in it. */
static int64_t time_window(const breaker *p, cb_state *c, unsigned out,
                           double now, int64_t *failed, int64_t *slow)
{
    void *w = window_of(c);
    window_add(&p->tw, w, now, CALLS, 1);
    window_add(&p->tw, w, now, FAILED, (out & OUT_FAILED) != 0);
    window_add(&p->tw, w, now, SLOW, (out & OUT_SLOW) != 0);
    *failed = window_sum(&p->tw, w, now, FAILED);
    *slow = window_sum(&p->tw, w, now, SLOW);
    return window_sum(&p->tw, w, now, CALLS);
}

static void closed_outcome(const sb_ctx *ctx, cb_state *c, const sb_attempt *a,
                           bool failed)
{
    const breaker *p = ctx->shared;
    if (p->mode == MODE_CONSECUTIVE) {
        c->failures = failed ? c->failures + 1 : 0;
        if (c->failures >= (uint64_t)p->threshold)
            trip(ctx, c, a->now_s);
        return;
    }
    unsigned out = (failed ? OUT_FAILED : 0) |
                   (a->latency_s > p->slow_duration ? OUT_SLOW : 0);
    int64_t f, s;
    int64_t calls = p->window_type == WINDOW_COUNT
                        ? count_window(p, c, out, &f, &s)
                        : time_window(p, c, out, a->now_s, &f, &s);
    /* resilience4j (the count window) checks its thresholds after every
     * call; Polly v8 (the time window) only when it records a failure
     * (AdvancedCircuitBehavior.OnActionFailure). */
    bool check = p->window_type == WINDOW_COUNT || failed;
    if (check && window_trips(p, calls, f, s))
        trip(ctx, c, a->now_s);
}

static void record(const sb_ctx *ctx, const sb_attempt *a, bool failed)
{
    cb_state *c = ctx->process_state;
    assert(cb_sane(ctx->shared, c));
    uint32_t *probe = ctx->request_state;
    bool is_probe = probe && *probe != 0 && *probe == a->attempt;
    if (is_probe)
        *probe = 0;
    if (c->state == CB_HALF_OPEN) {
        if (is_probe)
            probe_result(ctx, c, a, failed);
        return;
    }
    if (c->state == CB_CLOSED)
        closed_outcome(ctx, c, a, failed);
}

static void cb_before_send(const sb_ctx *ctx, const sb_attempt *a,
                           sb_verdict *out)
{
    const breaker *p = ctx->shared;
    cb_state *c = ctx->process_state;
    assert(cb_sane(p, c));
    if (c->state == CB_OPEN) {
        if (a->now_s < c->open_until) {
            sb_refuse(out, SB_REFUSAL_BREAKER, "circuit_breaker: open");
            return;
        }
        c->state = CB_HALF_OPEN;
        c->probes_out = c->probes_ok = 0;
        c->probes_failed = c->probes_slow = 0;
    }
    if (c->state == CB_HALF_OPEN) {
        if (c->probes_out >= (uint64_t)p->probes) {
            sb_refuse(out, SB_REFUSAL_BREAKER,
                      "circuit_breaker: half-open, probe in flight");
            return;
        }
        c->probes_out++;
        if (ctx->request_state)
            *(uint32_t *)ctx->request_state = a->attempt;
    }
}

static bool is_failure(const sb_ctx *ctx, const sb_attempt *a)
{
    sb_error_class cls;
    sb_confidence conf;
    ctx->host->classify(a, &cls, &conf);
    return cls == SB_CLASS_TRANSIENT || cls == SB_CLASS_UNKNOWN ||
           cls == SB_CLASS_RESOURCE_EXHAUSTION;
}

static void cb_on_success(const sb_ctx *ctx, const sb_attempt *a)
{
    record(ctx, a, false);
}

static void cb_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                          sb_decision *out)
{
    const cb_state *c = ctx->process_state;
    record(ctx, a, is_failure(ctx, a));
    if (c->state == CB_OPEN)
        sb_give_up(out, "circuit_breaker: open");
}

static void cb_on_request_end(const sb_ctx *ctx, const sb_attempt *a,
                              sb_outcome outcome)
{
    (void)a;
    (void)outcome;
    cb_state *c = ctx->process_state;
    uint32_t *probe = ctx->request_state;
    if (probe == NULL || *probe == 0)
        return;
    *probe = 0;
    if (c->state == CB_HALF_OPEN && c->probes_out > 0)
        c->probes_out--;
}

const sb_policy policy_circuit_breaker = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    .flags = SB_POLICY_LAYER | SB_POLICY_SHARED_READONLY,
    .name = "circuit_breaker",
    .doc = "Circuit breaker per process: consecutive failures or a failure "
           "ratio over a window; half-open probes.",
    .scope = "per process: one breaker per destination, shared by the "
             "process's callers",
    .params = cb_params,
    .create = cb_create,
    .destroy = free,
    .process_state_size = cb_process_size,
    .request_state_size = cb_request_size,
    .process_init = cb_process_init,
    .before_send = cb_before_send,
    .on_success = cb_on_success,
    .on_failure = cb_on_failure,
    .on_request_end = cb_on_request_end,
};
