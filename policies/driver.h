/*
 * driver.h -- one logical request driven through a policy stack.
 *
 * The rules between a policy stack and whatever carries the attempts --
 * the engine, `validate`'s worst-case probe, `decide`, the policy tests --
 * live here once, so the four cannot drift apart:
 *
 *   - the sb_attempt a policy is shown: times in seconds, the effective
 *     timeout (the configured one, or the time left before the deadline if
 *     that is shorter), what the answer said;
 *   - before a send the stack is asked; a refused first attempt or retry
 *     ends the request -- as a deadline failure when the refusal is a
 *     deadline refusal, else as refused locally -- while a refused hedge is
 *     simply not sent;
 *   - after a failure the stack is asked, then the host's own limits
 *     apply, in this order:
 *       0. a hedge is still to come (its timer runs): it is sent at once
 *          if the stack allows a hedge now -- gRFC A6 and Polly send the
 *          next hedge immediately after a non-fatal failure, and the
 *          hedge layer refuses it after a fatal one -- and nothing is
 *          decided for the failure (DRIVER_HEDGE);
 *       1. another attempt of the request still waits (a hedge in
 *          flight): nothing is decided now; the last attempt decides;
 *       2. the deadline has passed: the request fails as a deadline;
 *       3. a retry is refused when the request has sent
 *          DRIVER_MAX_ATTEMPTS attempts (give up: a policy that retries
 *          forever must not keep a run alive), or when it would wake at
 *          or after the deadline (deadline: the client would only wake to
 *          fail);
 *     and every layer is told the final decision (on_decision), so a
 *     budget spends only on retries that really happen.
 *
 * The driver keeps no state: the caller owns the request's facts
 * (driver_request) and updates them (attempts sent, attempts still
 * awaited) as attempts go out and come back.  Times are int64 ns.
 */
#ifndef SB_DRIVER_H
#define SB_DRIVER_H

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"
#include "pstack.h"

#define DRIVER_NO_DEADLINE INT64_MAX
/* A request that has sent this many attempts gives up whatever its
 * policy says. */
#define DRIVER_MAX_ATTEMPTS 100000u

/* A request's flags (driver_request.flags).  The engine keeps its
 * requests' flags in the same bits (sim/request.c checks), so that its view
 * of a request copies them in one byte, not three bools. */
enum {
    DRIVER_KEYED = 1,         /* it carries an idempotency key */
    DRIVER_CRITICAL = 2,      /* it is on a critical path */
    DRIVER_HEDGE_PENDING = 16 /* a hedge's timer runs: one is still to
                                  come */
};

/* What the host knows about one logical request. */
typedef struct driver_request {
    int64_t start_ns;
    int64_t deadline_ns;  /* absolute; DRIVER_NO_DEADLINE when none */
    int64_t timeout_ns;   /* the configured per-attempt timeout */
    uint32_t attempts;    /* attempts sent so far */
    uint32_t outstanding; /* attempts still awaited */
    sb_op op;
    uint8_t flags; /* DRIVER_ bits; any other bit set is ignored */
} driver_request;

/* How one attempt ended, as the client observed it. */
typedef struct driver_result {
    uint32_t number; /* the attempt's number, from 1 */
    bool hedge;
    bool sent; /* it reached the wire */
    sb_error_kind error;
    int32_t status;
    sb_defect defect;
    int64_t sent_ns;        /* when it was issued */
    int64_t retry_after_ns; /* the server's Retry-After; -1 when absent */
    double pushback_s;      /* SB_PUSHBACK_NONE when absent */
} driver_result;

/* The answer to "may I send?". */
typedef struct driver_send {
    pstack_verdict verdict; /* the stack's, with the refusing layer */
    sb_attempt attempt;     /* what the stack was shown */
    bool send;              /* send the attempt */
    bool end;               /* the request ends now, with `outcome` */
    sb_outcome outcome;
    int64_t hedge_after_ns; /* > 0: send a hedge if no answer by then */
} driver_send;

typedef enum driver_step {
    DRIVER_RETRY = 0, /* send the next attempt after delay_ns */
    DRIVER_END = 1,   /* the request ends with `outcome` */
    DRIVER_WAIT = 2,  /* another attempt still waits: nothing decided */
    DRIVER_HEDGE = 3  /* send the pending hedge now (`hedge` is the stack's
                         answer, already asked): nothing decided */
} driver_step;

/* What was decided after a failure: driver_next but for what the stack
 * was shown and answered (driver_failure keeps the two apart). */
typedef struct driver_decided {
    driver_step step;
    int64_t delay_ns;   /* DRIVER_RETRY */
    sb_outcome outcome; /* DRIVER_END */
    sb_decision final;  /* what was finally decided (on_decision's) */
    const char *limit;  /* the host limit that overrode the stack, or NULL */
} driver_decided;

/* The answer to "this attempt failed: what now?". */
typedef struct driver_next {
    driver_step step;
    int64_t delay_ns;      /* DRIVER_RETRY */
    sb_outcome outcome;    /* DRIVER_END */
    pstack_decision stack; /* what the stack decided, before the limits */
    sb_decision final;     /* what was finally decided (on_decision's) */
    const char *limit;     /* the host limit that overrode the stack, or
                               NULL: "the deadline has passed" ... */
    sb_attempt attempt;    /* what the stack was shown */
    driver_send hedge;     /* DRIVER_HEDGE: the hedge's send, allowed;
                               otherwise hedge.send is false and the rest
                               is unset (unless a hedge was asked for) */
} driver_next;

/* The attempt `number` as a policy sees it before it is sent. */
void driver_attempt(const driver_request *r, int64_t now, uint32_t number,
                    bool hedge, sb_attempt *a);
/* The attempt as a policy sees it once it ended with `res` (inline,
 * below). */
static inline void driver_outcome(const driver_request *r, int64_t now,
                                  const driver_result *res, sb_attempt *a);

/* Ask the stack about attempt r->attempts + 1 (or a hedge).  Returns 0,
 * or -1 when a layer broke the ABI contract (pstack_error). */
int driver_before_send(pstack *ps, const pstack_call *call,
                       const driver_request *r, int64_t now, bool hedge,
                       driver_send *out);
/* An attempt failed (r->outstanding already counts it as answered).
 * Returns 0, or -1 when a layer broke the ABI contract.  (Inline, below.) */
static inline int driver_on_failure(pstack *ps, const pstack_call *call,
                                    const driver_request *r, int64_t now,
                                    const driver_result *res, driver_next *out);
/* An attempt succeeded; *a receives what the stack was shown. */
void driver_on_success(pstack *ps, const pstack_call *call,
                       const driver_request *r, int64_t now,
                       const driver_result *res, sb_attempt *a);

/* Seconds (a policy's delay, already checked by the stack to lie in
 * [0, PSTACK_MAX_DELAY_S]) to ns. */
static inline int64_t driver_ns(double seconds)
{
    assert(seconds >= 0 && seconds <= PSTACK_MAX_DELAY_S);
    return (int64_t)(seconds * 1e9 + 0.5);
}

/* ---- Inline: a failure, on the engine's hot path --------------------------
 *
 * driver_on_failure is inline in its callers, with what it needs: the
 * attempt is built from the caller's own values (the driver_result it
 * passes is never stored), the host's limits read from its registers;
 * out of line, behind one more call, every failure paid for the call and
 * the copies.  Rule 0 (a pending hedge) stays out of line: only hedging
 * stacks go there.
 */

static inline double driver_s(int64_t ns)
{
    return (double)ns / 1e9;
}

/* The attempt's timeout as it will really act: the configured one, cut
 * short by the deadline. */
static inline int64_t driver_effective_timeout(const driver_request *r,
                                               int64_t now)
{
    if (r->deadline_ns != DRIVER_NO_DEADLINE &&
        r->deadline_ns - now < r->timeout_ns)
        return r->deadline_ns > now ? r->deadline_ns - now : 0;
    return r->timeout_ns;
}

/* Every field of the sb_attempt, written once (it has no padding, so no
 * memset is needed first: a policy sees exactly these bytes), with the
 * outcome of `res` when it is not NULL.  Built in one pass instead of a
 * whole "before the send" attempt that the outcome then overwrote. */
SB_ALWAYS_INLINE static inline void
driver_fill(sb_attempt *a, const driver_request *r, int64_t now,
            uint32_t number, bool hedge, int64_t timeout_from,
            const driver_result *res)
{
    /* A timeout carries nothing of an answer. */
    bool answered = res && res->error != SB_ERR_TIMEOUT;
    *a = (sb_attempt){
        .struct_size = sizeof *a,
        .attempt = number,
        .op = r->op,
        .outstanding = r->outstanding,
        .keyed = (r->flags & DRIVER_KEYED) != 0,
        .critical = (r->flags & DRIVER_CRITICAL) != 0,
        .hedge = hedge,
        .sent = res ? res->sent : 1,
        .error = res ? res->error : SB_ERR_NONE,
        .status = answered ? res->status : 0,
        .defect = answered ? res->defect : SB_DEFECT_NONE,
        .now_s = driver_s(now),
        .elapsed_s = driver_s(now - r->start_ns),
        .remaining_s = r->deadline_ns == DRIVER_NO_DEADLINE
                           ? INFINITY
                           : driver_s(r->deadline_ns - now),
        .timeout_s = driver_s(driver_effective_timeout(r, timeout_from)),
        .latency_s = res ? driver_s(now - res->sent_ns) : 0.0,
        .retry_after_s = answered && res->retry_after_ns >= 0
                             ? driver_s(res->retry_after_ns)
                             : -1.0,
        .configured_timeout_s = driver_s(r->timeout_ns),
        .pushback_s = answered ? res->pushback_s : SB_PUSHBACK_NONE,
    };
}

/* The attempt as it ended: the timeout it was sent with, not what is
 * left of it now. */
SB_ALWAYS_INLINE static inline void driver_outcome(const driver_request *r,
                                                   int64_t now,
                                                   const driver_result *res,
                                                   sb_attempt *a)
{
    driver_fill(a, r, now, res->number, res->hedge, res->sent_ns, res);
}

static inline void driver_finalize(driver_decided *v, const sb_decision *d,
                                   driver_step step, sb_outcome outcome,
                                   sb_action action, const char *limit)
{
    v->step = step;
    v->outcome = outcome;
    v->limit = limit;
    v->final.struct_size = sizeof v->final;
    v->final.action = action;
    v->final.delay_s = 0.0;
    v->final.reason = limit ? limit : d->reason;
}

/* The host's limits over the stack's decision d (rules 1 to 3 above). */
static inline void driver_limits(const driver_request *r, int64_t now,
                                 const sb_decision *d, driver_decided *v)
{
    if (r->outstanding > 0) {
        driver_finalize(v, d, DRIVER_WAIT, SB_OUTCOME_GAVE_UP, SB_PASS,
                        "another attempt of the request still waits");
        return;
    }
    bool has_deadline = r->deadline_ns != DRIVER_NO_DEADLINE;
    if (has_deadline && now >= r->deadline_ns) {
        driver_finalize(v, d, DRIVER_END, SB_OUTCOME_DEADLINE, SB_GIVE_UP,
                        "the request's deadline has passed");
        return;
    }
    switch (d->action) {
    case SB_RETRY:
        v->delay_ns = driver_ns(d->delay_s);
        if (r->attempts >= DRIVER_MAX_ATTEMPTS) {
            driver_finalize(v, d, DRIVER_END, SB_OUTCOME_GAVE_UP, SB_GIVE_UP,
                            "the host's limit of attempts per request");
        } else if (has_deadline && v->delay_ns >= r->deadline_ns - now) {
            driver_finalize(v, d, DRIVER_END, SB_OUTCOME_DEADLINE, SB_GIVE_UP,
                            "the retry would start after the deadline");
        } else {
            driver_finalize(v, d, DRIVER_RETRY, SB_OUTCOME_GAVE_UP, SB_RETRY,
                            NULL);
            v->final.delay_s = d->delay_s;
        }
        break;
    case SB_QUARANTINE:
        driver_finalize(v, d, DRIVER_END, SB_OUTCOME_QUARANTINED, SB_QUARANTINE,
                        NULL);
        break;
    default:
        driver_finalize(v, d, DRIVER_END, SB_OUTCOME_GAVE_UP, SB_GIVE_UP, NULL);
        break;
    }
}

/* Rule 0: the hedge still to come goes now if the stack allows it.
 * Returns 1 when it goes (*hedge is its allowed send), 0 when it does
 * not, -1 when a layer broke the ABI contract. */
int driver_hedge_now(pstack *ps, const pstack_call *call,
                     const driver_request *r, int64_t now, driver_send *hedge);

/* driver_on_failure with its answer in four parts: the attempt the stack
 * is shown (*a), its answer (*stack), the hedge sent at once (*hedge, set
 * only for DRIVER_HEDGE) and what was decided (*v).  The engine's failure
 * path calls this: what was decided (*v) is never passed on by address,
 * so it stays in registers and what nobody reads is never stored -- as
 * one driver_next, whose address the stack's hook is given, every field
 * was written to memory at every failure. */
SB_ALWAYS_INLINE static inline int
driver_failure(pstack *ps, const pstack_call *call, const driver_request *r,
               int64_t now, const driver_result *res, sb_attempt *a,
               pstack_decision *stack, driver_send *hedge, driver_decided *v)
{
    v->delay_ns = 0;
    driver_outcome(r, now, res, a);
    if (pstack_on_failure(ps, call, a, stack) != 0)
        return -1;
    /* The calls out of line are given copies of the caller's request,
     * call and decision, made only on their (rare) paths: were their
     * addresses passed on, they would be kept in memory, stored and
     * loaded again, at every failure. */
    int hedged = 0;
    if (r->flags & DRIVER_HEDGE_PENDING) {
        pstack_call c = *call;
        driver_request q = *r;
        hedged = driver_hedge_now(ps, &c, &q, now, hedge);
    }
    if (hedged < 0)
        return -1;
    if (hedged == 0)
        driver_limits(r, now, &stack->d, v);
    else
        driver_finalize(v, &stack->d, DRIVER_HEDGE, SB_OUTCOME_GAVE_UP, SB_PASS,
                        "the next hedge is sent at once (a non-fatal "
                        "failure)");
    if (pstack_hooks(ps) & PSTACK_HOOK_ON_DECISION) {
        pstack_call c = *call;
        sb_decision f = v->final;
        pstack_on_decision(ps, &c, a, &f);
    }
    return 0;
}

/* driver_failure where rule 0 and on_decision cannot apply: no hedge is
 * pending and no layer of the stack has on_decision.  Nothing of the
 * request's copy or of the call is then needed once the stack has
 * answered, so the caller's need not be kept across its hook. */
SB_ALWAYS_INLINE static inline int
driver_failure_no_hedge_no_decision(pstack *ps, const pstack_call *call,
                                    const driver_request *r, int64_t now,
                                    const driver_result *res, sb_attempt *a,
                                    pstack_decision *stack, driver_decided *v)
{
    assert(!(r->flags & DRIVER_HEDGE_PENDING));
    assert(!(pstack_hooks(ps) & PSTACK_HOOK_ON_DECISION));
    v->delay_ns = 0;
    driver_outcome(r, now, res, a);
    if (pstack_on_failure(ps, call, a, stack) != 0)
        return -1;
    driver_limits(r, now, &stack->d, v);
    return 0;
}

SB_ALWAYS_INLINE static inline int
driver_on_failure(pstack *ps, const pstack_call *call, const driver_request *r,
                  int64_t now, const driver_result *res, driver_next *out)
{
    driver_decided v;
    out->hedge.send = false;
    if (driver_failure(ps, call, r, now, res, &out->attempt, &out->stack,
                       &out->hedge, &v) != 0)
        return -1;
    out->step = v.step;
    out->delay_ns = v.delay_ns;
    out->outcome = v.outcome;
    out->final = v.final;
    out->limit = v.limit;
    return 0;
}

#endif
