/*
 * driver.c -- one logical request through a policy stack (driver.h has
 * the rules).
 */
#include "driver.h"

void driver_attempt(const driver_request *r, int64_t now, uint32_t number,
                    bool hedge, sb_attempt *a)
{
    driver_fill(a, r, now, number, hedge, now, NULL);
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

int driver_hedge_now(pstack *ps, const pstack_call *call,
                     const driver_request *r, int64_t now, driver_send *hedge)
{
    if (driver_before_send(ps, call, r, now, true, hedge) != 0)
        return -1;
    return hedge->send ? 1 : 0;
}

void driver_on_success(pstack *ps, const pstack_call *call,
                       const driver_request *r, int64_t now,
                       const driver_result *res, sb_attempt *a)
{
    driver_outcome(r, now, res, a);
    pstack_on_success(ps, call, a);
}
