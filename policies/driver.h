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

#include <stdbool.h>
#include <stdint.h>

#include "pstack.h"

#define DRIVER_NO_DEADLINE INT64_MAX
/* A request that has sent this many attempts gives up whatever its
 * policy says. */
#define DRIVER_MAX_ATTEMPTS 100000u

/* What the host knows about one logical request. */
typedef struct driver_request {
    int64_t start_ns;
    int64_t deadline_ns; /* absolute; DRIVER_NO_DEADLINE when none */
    int64_t timeout_ns;  /* the configured per-attempt timeout */
    uint32_t attempts;   /* attempts sent so far */
    uint32_t outstanding; /* attempts still awaited */
    sb_op op;
    bool keyed, critical;
    bool hedge_pending; /* a hedge's timer runs: one is still to come */
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

/* The answer to "this attempt failed: what now?". */
typedef struct driver_next {
    driver_step step;
    int64_t delay_ns;       /* DRIVER_RETRY */
    sb_outcome outcome;     /* DRIVER_END */
    pstack_decision stack;  /* what the stack decided, before the limits */
    sb_decision final;      /* what was finally decided (on_decision's) */
    const char *limit;      /* the host limit that overrode the stack, or
                               NULL: "the deadline has passed" ... */
    sb_attempt attempt;     /* what the stack was shown */
    driver_send hedge;      /* DRIVER_HEDGE: the hedge's send, allowed;
                               otherwise hedge.send is false and the rest
                               is unset (unless a hedge was asked for) */
} driver_next;

/* The attempt `number` as a policy sees it before it is sent. */
void driver_attempt(const driver_request *r, int64_t now, uint32_t number,
                    bool hedge, sb_attempt *a);
/* The attempt as a policy sees it once it ended with `res`. */
void driver_outcome(const driver_request *r, int64_t now,
                    const driver_result *res, sb_attempt *a);

/* Ask the stack about attempt r->attempts + 1 (or a hedge).  Returns 0,
 * or -1 when a layer broke the ABI contract (pstack_error). */
int driver_before_send(pstack *ps, const pstack_call *call,
                       const driver_request *r, int64_t now, bool hedge,
                       driver_send *out);
/* An attempt failed (r->outstanding already counts it as answered).
 * Returns 0, or -1 when a layer broke the ABI contract. */
int driver_on_failure(pstack *ps, const pstack_call *call,
                      const driver_request *r, int64_t now,
                      const driver_result *res, driver_next *out);
/* An attempt succeeded; *a receives what the stack was shown. */
void driver_on_success(pstack *ps, const pstack_call *call,
                       const driver_request *r, int64_t now,
                       const driver_result *res, sb_attempt *a);

/* Seconds (a policy's delay, already checked by the stack to lie in
 * [0, PSTACK_MAX_DELAY_S]) to ns. */
int64_t driver_ns(double seconds);

#endif
