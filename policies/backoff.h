/*
 * backoff.h -- backoff delays with jitter, shared by every policy that
 * waits between attempts (exponential, classified, aws_quota, plan ...).
 *
 * After attempt n fails (n = 1, 2, ...), the un-jittered delay is
 *     d(n) = min(cap, base x multiplier^(n-1))
 * and the jitter modes are those of Marc Brooker, "Exponential Backoff And
 * Jitter", AWS Architecture Blog (2015), where multiplier = 2:
 *     none          d(n)
 *     full          U(0, d(n))
 *     equal         d(n)/2 + U(0, d(n)/2)
 *     decorrelated  min(cap, U(base, 3 x previous)), previous starting at base
 * plus two from .NET and Java clients:
 *     decorrelated_v2  Polly's DecorrelatedJitterBackoffV2 ("soft exponential
 *                      jitter"): t = (n-1) + U(0,1),
 *                      next = 2^t x tanh(sqrt(4t)),
 *                      delay = (next - prev) / 1.4 x base, capped, where base
 *                      is the median first delay and prev starts at 0.
 *     ratio         min(cap, base x multiplier^(n-1) x (1 + ratio x
 *                   U(-1, 1))): resilience4j's ofExponentialRandomBackoff
 *                   (randomizationFactor, default 0.5, then min with
 *                   maxInterval), Polly's constant and linear jitter
 *                   (ratio 0.25, then MaxDelay).  The jitter acts on the
 *                   uncapped delay and the cap comes last, so no delay
 *                   exceeds cap.  resilience4j works in whole
 *                   milliseconds, truncating each step; here seconds.
 * The decorrelated modes remember the previous value; the caller keeps it
 * per request (*prev, zero at the start of a request).
 */
#ifndef SB_BACKOFF_H
#define SB_BACKOFF_H

#include <stdint.h>

#include "stormbench/policy.h"

typedef enum backoff_jitter {
    JITTER_NONE = 0,
    JITTER_FULL,
    JITTER_EQUAL,
    JITTER_DECORRELATED,
    JITTER_DECORRELATED_V2,
    JITTER_RATIO
} backoff_jitter;

/* The choices string for an sb_param, in enum order. */
#define BACKOFF_JITTER_CHOICES                                                 \
    "none|full|equal|decorrelated|decorrelated_v2|ratio"

typedef struct backoff {
    double base, multiplier, cap; /* seconds, factor, seconds */
    backoff_jitter jitter;
    double ratio; /* JITTER_RATIO only */
} backoff;

/* The delay in seconds after attempt n (1-based) failed.  Draws from the
 * client's policy stream through ctx. */
double backoff_delay(const sb_ctx *ctx, const backoff *b, uint32_t n,
                     double *prev);

/* d(n) without jitter. */
double backoff_unjittered(const backoff *b, uint32_t n);

#endif
