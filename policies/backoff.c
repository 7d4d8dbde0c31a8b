#include "backoff.h"

#include <math.h>

static double uniform(const sb_ctx *ctx, double lo, double hi)
{
    return lo + (hi - lo) * sb_uniform(ctx);
}

double backoff_unjittered(const backoff *b, uint32_t n)
{
    return fmin(b->cap, b->base * pow(b->multiplier, (double)n - 1.0));
}

/* Polly's DecorrelatedJitterBackoffV2 for retry index i (0-based). */
static double soft_exponential(const sb_ctx *ctx, const backoff *b, uint32_t i,
                               double *prev)
{
    double t = (double)i + sb_uniform(ctx);
    double next = pow(2.0, t) * tanh(sqrt(4.0 * t));
    double delay = (next - *prev) / 1.4 * b->base;
    *prev = next;
    return delay;
}

double backoff_delay(const sb_ctx *ctx, const backoff *b, uint32_t n,
                     double *prev)
{
    double d = backoff_unjittered(b, n);
    switch (b->jitter) {
    case JITTER_NONE:
        return d;
    case JITTER_FULL:
        return uniform(ctx, 0.0, d);
    case JITTER_EQUAL:
        return d / 2.0 + uniform(ctx, 0.0, d / 2.0);
    case JITTER_DECORRELATED: {
        double last = n == 1 || *prev <= 0 ? b->base : *prev;
        double next = fmin(b->cap, uniform(ctx, b->base, 3.0 * last));
        *prev = next;
        return next;
    }
    case JITTER_DECORRELATED_V2:
        if (n == 1)
            *prev = 0.0;
        return fmin(b->cap, soft_exponential(ctx, b, n - 1, prev));
    case JITTER_RATIO:
        /* Jitter the uncapped delay, then cap: resilience4j's
         * ofExponentialRandomBackoff takes min(randomized, maxInterval)
         * and Polly caps the jittered delay at MaxDelay, so `cap` stays
         * the largest delay. */
        return fmin(b->cap, b->base * pow(b->multiplier, (double)n - 1.0) *
                                (1.0 + b->ratio * uniform(ctx, -1.0, 1.0)));
    }
    return d;
}
