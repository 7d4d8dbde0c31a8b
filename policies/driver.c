/*
 * driver.c -- one logical request through a policy stack (driver.h has
 * the rules).
 */
#include "driver.h"

#include <assert.h>
#include <math.h>

int64_t driver_ns(double seconds)
{
    assert(seconds >= 0 && seconds <= PSTACK_MAX_DELAY_S);
    return (int64_t)(seconds * 1e9 + 0.5);
}

static double to_s(int64_t ns)
{
    return (double)ns / 1e9;
}

/* The attempt's timeout as it will really act: the configured one, cut
 * short by the deadline. */
static int64_t effective_timeout(const driver_request *r, int64_t now)
{
    if (r->deadline_ns != DRIVER_NO_DEADLINE &&
        r->deadline_ns - now < r->timeout_ns)
        return r->deadline_ns > now ? r->deadline_ns - now : 0;
    return r->timeout_ns;
}

/* Every field of the sb_attempt, written once (it has no padding, so
 * no memset is needed first: a policy sees exactly these bytes), with
 * the outcome of `res` when it is not NULL.  Each attempt built this way
 * is shown to every hook of a failure or a success, so it is on the
 * engine's hot path: built in one pass, inline, instead of a whole
 * "before the send" attempt that the outcome then overwrote -- 78 to
 * ~45 instructions a failure in the storm at 10 000 clients. */
__attribute__((always_inline)) static inline void
fill(sb_attempt *a, const driver_request *r, int64_t now, uint32_t number,
     bool hedge, int64_t timeout_from, const driver_result *res)
{
    /* A timeout carries nothing of an answer. */
    bool answered = res && res->error != SB_ERR_TIMEOUT;
    *a = (sb_attempt){
        .struct_size = sizeof *a,
        .attempt = number,
        .op = r->op,
        .outstanding = r->outstanding,
        .keyed = r->keyed,
        .critical = r->critical,
        .hedge = hedge,
        .sent = res ? res->sent : 1,
        .error = res ? res->error : SB_ERR_NONE,
        .status = answered ? res->status : 0,
        .defect = answered ? res->defect : SB_DEFECT_NONE,
        .now_s = to_s(now),
        .elapsed_s = to_s(now - r->start_ns),
        .remaining_s = r->deadline_ns == DRIVER_NO_DEADLINE
                           ? INFINITY
                           : to_s(r->deadline_ns - now),
        .timeout_s = to_s(effective_timeout(r, timeout_from)),
        .latency_s = res ? to_s(now - res->sent_ns) : 0.0,
        .retry_after_s = answered && res->retry_after_ns >= 0
                             ? to_s(res->retry_after_ns)
                             : -1.0,
        .configured_timeout_s = to_s(r->timeout_ns),
        .pushback_s = answered ? res->pushback_s : SB_PUSHBACK_NONE,
    };
}

void driver_attempt(const driver_request *r, int64_t now, uint32_t number,
                    bool hedge, sb_attempt *a)
{
    fill(a, r, now, number, hedge, now, NULL);
}

/* The timeout it was sent with, not what is left of it now. */
__attribute__((always_inline)) static inline void
outcome(const driver_request *r, int64_t now, const driver_result *res,
        sb_attempt *a)
{
    fill(a, r, now, res->number, res->hedge, res->sent_ns, res);
}

void driver_outcome(const driver_request *r, int64_t now,
                    const driver_result *res, sb_attempt *a)
{
    outcome(r, now, res, a);
}

int driver_before_send(pstack *ps, const pstack_call *call,
                       const driver_request *r, int64_t now, bool hedge,
                       driver_send *out)
{
    out->send = false;
    out->end = false;
    out->outcome = SB_OUTCOME_SUCCESS;
    out->hedge_after_ns = 0;
    driver_attempt(r, now, r->attempts + 1, hedge, &out->attempt);
    if (pstack_before_send(ps, call, &out->attempt, &out->verdict) != 0)
        return -1;
    const sb_verdict *v = &out->verdict.v;
    if (v->action == SB_SEND_ALLOW) {
        out->send = true;
        if (v->hedge_after_s > 0)
            out->hedge_after_ns = driver_ns(v->hedge_after_s);
        return 0;
    }
    /* A refused hedge is simply not sent; a refused first try or retry
     * ends the request, unless an earlier attempt still waits. */
    out->attempt.sent = 0;
    if (!hedge && r->outstanding == 0) {
        out->end = true;
        out->outcome = v->refusal == SB_REFUSAL_DEADLINE ? SB_OUTCOME_DEADLINE
                                                         : SB_OUTCOME_REFUSED;
    }
    return 0;
}

static void finalize(driver_next *out, driver_step step, sb_outcome outcome,
                     sb_action action, const char *limit)
{
    out->step = step;
    out->outcome = outcome;
    out->limit = limit;
    out->final.struct_size = sizeof out->final;
    out->final.action = action;
    out->final.delay_s = 0.0;
    out->final.reason = limit ? limit : out->stack.d.reason;
}

/* The host's limits over the stack's decision (driver.h, 1 to 3). */
static void apply_limits(const driver_request *r, int64_t now,
                         driver_next *out)
{
    const sb_decision *d = &out->stack.d;
    if (r->outstanding > 0) {
        finalize(out, DRIVER_WAIT, SB_OUTCOME_GAVE_UP, SB_PASS,
                 "another attempt of the request still waits");
        return;
    }
    bool has_deadline = r->deadline_ns != DRIVER_NO_DEADLINE;
    if (has_deadline && now >= r->deadline_ns) {
        finalize(out, DRIVER_END, SB_OUTCOME_DEADLINE, SB_GIVE_UP,
                 "the request's deadline has passed");
        return;
    }
    switch (d->action) {
    case SB_RETRY:
        out->delay_ns = driver_ns(d->delay_s);
        if (r->attempts >= DRIVER_MAX_ATTEMPTS) {
            finalize(out, DRIVER_END, SB_OUTCOME_GAVE_UP, SB_GIVE_UP,
                     "the host's limit of attempts per request");
        } else if (has_deadline && out->delay_ns >= r->deadline_ns - now) {
            finalize(out, DRIVER_END, SB_OUTCOME_DEADLINE, SB_GIVE_UP,
                     "the retry would start after the deadline");
        } else {
            finalize(out, DRIVER_RETRY, SB_OUTCOME_GAVE_UP, SB_RETRY, NULL);
            out->final.delay_s = d->delay_s;
        }
        break;
    case SB_QUARANTINE:
        finalize(out, DRIVER_END, SB_OUTCOME_QUARANTINED, SB_QUARANTINE, NULL);
        break;
    default:
        finalize(out, DRIVER_END, SB_OUTCOME_GAVE_UP, SB_GIVE_UP, NULL);
        break;
    }
}

/* Rule 0: a hedge still to come goes now, if the stack allows it. */
static int hedge_now(pstack *ps, const pstack_call *call,
                     const driver_request *r, int64_t now, driver_next *out)
{
    if (driver_before_send(ps, call, r, now, true, &out->hedge) != 0)
        return -1;
    if (out->hedge.send)
        finalize(out, DRIVER_HEDGE, SB_OUTCOME_GAVE_UP, SB_PASS,
                 "the next hedge is sent at once (a non-fatal failure)");
    return 0;
}

int driver_on_failure(pstack *ps, const pstack_call *call,
                      const driver_request *r, int64_t now,
                      const driver_result *res, driver_next *out)
{
    /* Not a memset of the whole answer (360 bytes, most of them the
     * hedge's, which only DRIVER_HEDGE fills): every other field is
     * written below, by finalize() at the latest. */
    out->step = DRIVER_WAIT;
    out->delay_ns = 0;
    out->hedge.send = false;
    outcome(r, now, res, &out->attempt);
    if (pstack_on_failure(ps, call, &out->attempt, &out->stack) != 0)
        return -1;
    if (r->hedge_pending && hedge_now(ps, call, r, now, out) != 0)
        return -1;
    if (out->step != DRIVER_HEDGE)
        apply_limits(r, now, out);
    pstack_on_decision(ps, call, &out->attempt, &out->final);
    return 0;
}

void driver_on_success(pstack *ps, const pstack_call *call,
                       const driver_request *r, int64_t now,
                       const driver_result *res, sb_attempt *a)
{
    outcome(r, now, res, a);
    pstack_on_success(ps, call, a);
}
