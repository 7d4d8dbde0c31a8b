/*
 * capped_backoff.c -- an example stormbench policy plug-in, written to be
 * copied.  It is a tutorial of the plug-in ABI (stormbench/policy.h) and a
 * realistic small policy at the same time:
 *
 *   - capped exponential backoff with "equal" jitter: after attempt n fails
 *     wait d/2 + U(0, d/2), where d = min(cap, base x 2^(n-1));
 *   - honours the server's Retry-After: never waits less than it asks;
 *   - stops on errors a retry cannot fix: a 4xx (other than 408 and 429)
 *     gives up, a payload the server rejected as defective is quarantined;
 *   - never repeats a non-idempotent write (a POST without an idempotency
 *     key) that may already have been committed;
 *   - gives up when attempts, the request's total wait, or its deadline
 *     run out;
 *   - sheds retries while its process sees nothing but failures: after
 *     `shed_after` failed attempts in a row it sends first attempts only,
 *     until one succeeds.  (A real client does this so that a dead server
 *     is not hit with every request times max_attempts.)
 *
 * Build it (see README.md next to this file):
 *     cc $(pkg-config --cflags stormbench) -shared -fPIC capped_backoff.c \
 *        -o libcapped_backoff.so
 * and try it:
 *     stormbench policies --policy-plugin ./libcapped_backoff.so
 *     stormbench decide --policy-plugin ./libcapped_backoff.so \
 *        --policy capped_backoff --error http --status 503 --attempt 1
 *     stormbench run scenarios/retry-storm.ini \
 *        --policy-plugin ./libcapped_backoff.so --policy capped_backoff
 *
 * A plug-in needs nothing but the one header: no library to link against.
 * This file even avoids libm, so the command above needs no -lm.
 */
#include <stdio.h>
#include <stdlib.h>

#include <stormbench/policy.h>

/* ---- 1. Parameters ----------------------------------------------------------
 *
 * The host reads this table to list the policy (`stormbench policies`), to
 * parse `--param key=value` and `[policy] key = value`, and to refuse bad
 * values with a message that quotes this table, all before create() is
 * called.  So create() only ever sees values of the declared type inside
 * [min, max].  Durations are written with units ("250ms") and arrive as
 * seconds.  The table ends with an entry whose name is NULL.
 */
enum {
    P_BASE,
    P_CAP,
    P_MAX_ATTEMPTS,
    P_MAX_TOTAL,
    P_JITTER,
    P_RETRY_AFTER,
    P_SHED_AFTER
};

static const sb_param params[] = {
    [P_BASE] = {"base", SB_PARAM_DURATION, "100ms",
                "delay after the first failure, before jitter", NULL, 0, 3600},
    [P_CAP] = {"cap", SB_PARAM_DURATION, "10s", "largest backoff delay", NULL,
               0, 86400},
    [P_MAX_ATTEMPTS] = {"max_attempts", SB_PARAM_INT, "4",
                        "attempts in all, the first included", NULL, 1, 100},
    [P_MAX_TOTAL] = {"max_total_delay", SB_PARAM_DURATION, "30s",
                     "give up once one request's waits would pass this", NULL,
                     0, 86400},
    [P_JITTER] = {"jitter", SB_PARAM_BOOL, "true",
                  "equal jitter: wait d/2 + U(0, d/2) instead of d", NULL, 0,
                  0},
    [P_RETRY_AFTER] = {"honour_retry_after", SB_PARAM_BOOL, "true",
                       "wait at least the server's Retry-After", NULL, 0, 0},
    [P_SHED_AFTER] = {"shed_after", SB_PARAM_INT, "20",
                      "send no retries after this many failed attempts in "
                      "a row, until one succeeds (0: never)",
                      NULL, 0, 1000000},
    {0}};

/* ---- 2. Shared state: the parameters, checked and converted ----------------
 *
 * create() receives one sb_value per parameter, in table order: .d for
 * durations and reals (seconds), .i for ints, bools (0/1) and choices (the
 * index).  Whatever it stores in *shared comes back as ctx->shared in every
 * hook.  Keep it read-only after create(): one policy instance serves every
 * client of a run, and two runs (the GUI's side-by-side view) each get
 * their own.
 */
typedef struct capped {
    double base_s, cap_s, max_total_s;
    uint32_t max_attempts;
    int jitter, honour_retry_after;
    uint32_t shed_after;
} capped;

static int32_t capped_create(const sb_value *v, void **shared, char *err,
                             size_t errlen)
{
    /* Checks that span parameters are create()'s job; the message goes
     * to the user as "policy 'capped_backoff' (from FILE): MESSAGE". */
    if (v[P_CAP].d < v[P_BASE].d) {
        snprintf(err, errlen, "cap (%gs) must be at least base (%gs)",
                 v[P_CAP].d, v[P_BASE].d);
        return -1;
    }
    capped *p = malloc(sizeof *p);
    if (p == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    p->base_s = v[P_BASE].d;
    p->cap_s = v[P_CAP].d;
    p->max_attempts = (uint32_t)v[P_MAX_ATTEMPTS].i;
    p->max_total_s = v[P_MAX_TOTAL].d;
    p->jitter = (int)v[P_JITTER].i;
    p->honour_retry_after = (int)v[P_RETRY_AFTER].i;
    p->shed_after = (uint32_t)v[P_SHED_AFTER].i;
    *shared = p;
    return 0;
}

/* destroy() frees what create() made; here plain free() would do, but a
 * named function is where a policy with more to free would do it. */
static void capped_destroy(void *shared)
{
    free(shared);
}

/* ---- 3. Per-process, per-client and per-request state ----------------------
 *
 * A policy never allocates per call.  It tells the host how many bytes it
 * wants for each process, each simulated client and each logical request
 * (a request and all its retries), and the host hands it those blocks,
 * zeroed, as ctx->process_state, ctx->client_state and ctx->request_state.
 * Zero must therefore be a valid starting state -- or the policy sets one
 * in process_init() / client_init().  The blocks are aligned for any type.
 *
 * Per process: what a service instance shares among all its concurrent
 * users -- a breaker, a budget, here a failure streak ([clients]
 * processes = N groups the clients; by default each client is its own
 * process).  Per client: what one caller keeps to itself.  Per request:
 * what one retry loop remembers (here how long it has waited so far).
 */
typedef struct capped_process {
    uint32_t failure_streak; /* failed attempts in a row, any request */
} capped_process;

typedef struct capped_request {
    double waited_s; /* sum of the delays this request was given */
} capped_request;

static size_t capped_process_size(const void *shared)
{
    (void)shared;
    return sizeof(capped_process);
}

static size_t capped_request_size(const void *shared)
{
    (void)shared;
    return sizeof(capped_request);
}

/* ---- 4. Hooks -------------------------------------------------------------
 *
 * Every hook gets an sb_ctx (who is asking, and the state blocks) and an
 * sb_attempt: what the client knows about this attempt -- its number, the
 * operation, whether it carries an idempotency key, the time elapsed and
 * left before the request's deadline, and after the attempt ended, how it
 * failed.  Both are borrowed: do not keep pointers to them.
 *
 * Hooks must be deterministic given their inputs and the host's random
 * numbers: no rand(), no clock, no I/O.  That is what makes a stormbench
 * run repeatable and two policies comparable on the same random numbers.
 */

/* Is the error one a retry cannot fix?  The host's classifier
 * (sb_host.classify) sorts errors the way the built-in policies do: 4xx
 * other than 408 and 429 are permanent, a 4xx whose body names a data
 * defect (invalid schema, missing field, duplicate key) is a data defect,
 * and so on; `stormbench decide` prints the class of any error you give
 * it.
 *
 * sb_host, like every growable ABI struct, begins with its size and only
 * grows at the end: a field may be read only when the size covers it.
 * classify is in ABI 2.0, so this check always passes today; it is here
 * to show the rule, which matters for fields added later. */
static sb_error_class classify(const sb_ctx *ctx, const sb_attempt *a)
{
    const sb_host *h = ctx->host;
    if (h->struct_size < offsetof(sb_host, classify) + sizeof h->classify)
        return SB_CLASS_UNKNOWN;
    sb_error_class cls;
    sb_confidence conf;
    h->classify(a, &cls, &conf);
    return cls;
}

/* d(n) = min(cap, base x 2^(n-1)), by doubling: no pow(), so no libm. */
static double backoff(const capped *p, uint32_t attempt)
{
    double d = p->base_s;
    for (uint32_t i = 1; i < attempt && d < p->cap_s; i++)
        d *= 2.0;
    return d < p->cap_s ? d : p->cap_s;
}

/* Before every attempt.  The host hands in a verdict that says "allow";
 * sb_refuse() turns it into a refusal, which ends the request without
 * sending (the run counts it as "refused locally", by the reason given:
 * here a budget-like one).  First attempts are never shed: they are how
 * the client learns that the server is back.  before_send must not spend
 * anything: a layer after this one in a stack may still refuse. */
static void capped_before_send(const sb_ctx *ctx, const sb_attempt *a,
                               sb_verdict *out)
{
    const capped *p = ctx->shared;
    const capped_process *c = ctx->process_state;
    if (a->attempt > 1 && p->shed_after > 0 &&
        c->failure_streak >= p->shed_after)
        /* The reason is a static string: traces print it. */
        sb_refuse(out, SB_REFUSAL_BUDGET,
                  "shedding retries: the server keeps failing");
}

static void capped_on_success(const sb_ctx *ctx, const sb_attempt *a)
{
    (void)a;
    capped_process *c = ctx->process_state;
    c->failure_streak = 0;
}

/* After every failed attempt: the decision.  The host hands in a
 * decision that says SB_PASS (no opinion, for layers in a stack); change
 * it with
 *     sb_retry(out, delay_s, reason)   retry after delay_s seconds
 *     sb_give_up(out, reason)          the request fails
 *     sb_quarantine(out, reason)       the request fails and is set aside
 * The host checks the answer: a delay that is negative, NaN or over one
 * day, or an action outside this list, stops the run with an error naming
 * this plug-in -- a bug in a policy must not pass for a result. */
static void capped_on_failure(const sb_ctx *ctx, const sb_attempt *a,
                              sb_decision *out)
{
    const capped *p = ctx->shared;
    capped_process *c = ctx->process_state;
    const capped_request *r = ctx->request_state;

    sb_error_class cls = classify(ctx, a);
    if (cls == SB_CLASS_DATA_DEFECT) {
        sb_quarantine(out, "data defect: retrying cannot fix the payload");
        return;
    }
    if (cls == SB_CLASS_PERMANENT) {
        sb_give_up(out, "permanent error (4xx): the request itself is wrong");
        return;
    }
    /* Only transient-looking failures count towards shedding: a 4xx means
     * the server is up and answering. */
    c->failure_streak++;

    /* A POST without an idempotency key that reached the server and then
     * timed out or lost its connection may have been committed: a retry
     * could commit it twice.  Only a refused connection (never sent) is
     * safe to repeat. */
    if (a->op == SB_OP_POST && !a->keyed && a->sent &&
        (a->error == SB_ERR_TIMEOUT || a->error == SB_ERR_RESET)) {
        sb_give_up(out, "post without idempotency key may have committed");
        return;
    }
    if (a->attempt >= p->max_attempts) {
        sb_give_up(out, "max_attempts reached");
        return;
    }

    double delay = backoff(p, a->attempt);
    const char *why = "capped backoff";
    if (p->jitter)
        /* Randomness only from the host: the same seed gives the same
         * draws, and every client has its own stream. */
        delay = delay / 2.0 + sb_uniform(ctx) * delay / 2.0;
    /* retry_after_s is negative when the server sent none.  It is not
     * capped: the server knows better than `cap` when it will be ready. */
    if (p->honour_retry_after && a->retry_after_s > delay) {
        delay = a->retry_after_s;
        why = "Retry-After";
    }

    if (r->waited_s + delay > p->max_total_s) {
        sb_give_up(out, "max_total_delay reached");
        return;
    }
    /* remaining_s is +inf when the request has no deadline; a whole
     * attempt (its configured timeout) must fit after the delay. */
    if (delay + a->configured_timeout_s > a->remaining_s) {
        sb_give_up(out, "no time left before the deadline");
        return;
    }
    sb_retry(out, delay, why);
}

/* What was finally decided, after every layer of the stack and the
 * host's own limits (a deadline, its cap on attempts).  This is the place
 * to spend: only a retry that will really happen counts, and with the
 * delay that will really be waited (another layer may have asked for a
 * longer one). */
static void capped_on_decision(const sb_ctx *ctx, const sb_attempt *a,
                               const sb_decision *final)
{
    (void)a;
    capped_request *r = ctx->request_state;
    if (final->action == SB_RETRY)
        r->waited_s += final->delay_s;
}

/* ---- 5. The table and the entry point ------------------------------------
 *
 * abi_major, abi_minor and struct_size come first and are written from the
 * header's macros: the host refuses a table built for another major
 * version, or shorter than the version it speaks, with a message that
 * names this file and both versions -- rebuilding against the new header
 * is the fix.  Hooks you do not need stay NULL (on_failure is required).
 */
static const sb_policy capped_backoff = {
    .abi_major = SB_POLICY_ABI_MAJOR,
    .abi_minor = SB_POLICY_ABI_MINOR,
    .struct_size = sizeof(sb_policy),
    /* SB_POLICY_LAYER for a layer that never retries itself;
     * SB_POLICY_SHARED_READONLY because no hook writes what create()
     * made, so `stormbench risk` may branch a running simulation by
     * calling create() again (a policy whose shared state changes needs
     * a .clone hook instead). */
    .flags = SB_POLICY_SHARED_READONLY,
    .name = "capped_backoff", /* [a-z0-9_]+, not a built-in's name */
    .doc = "Capped exponential backoff with equal jitter; honours "
           "Retry-After, stops on 4xx (example plug-in).",
    .scope = "per process: the failure streak that sheds retries; per "
             "request: the time waited",
    .params = params,
    .create = capped_create,
    .destroy = capped_destroy,
    .process_state_size = capped_process_size,
    .client_state_size = NULL,
    .request_state_size = capped_request_size,
    .process_init = NULL, /* zeroed state is the right start */
    .client_init = NULL,
    .before_send = capped_before_send,
    .on_success = capped_on_success,
    .on_failure = capped_on_failure,
    .on_decision = capped_on_decision,
    .on_request_end = NULL,
    .clone = NULL, /* not needed: the shared state is read-only */
};

/* The one symbol the host looks up (SB_PLUGIN_ENTRY_NAME).  Build with
 * -fvisibility=hidden so nothing else leaks out of the .so, and mark this
 * function SB_EXPORT so it alone is visible.  It returns a table that
 * lives as long as the library is loaded. */
SB_EXPORT const sb_policy *sb_policy_plugin(void);

SB_EXPORT const sb_policy *sb_policy_plugin(void)
{
    return &capped_backoff;
}
