/*
 * window.h -- counters over a sliding window of simulated time, kept in
 * storage the caller owns (a policy's per-client state).
 *
 * The window is `slices` slices of `slice_s` seconds each, aligned on
 * multiples of slice_s.  A sum covers the slice that holds `now` and the
 * slices-1 before it, so a count made at time t still counts at now when
 * floor(now/slice_s) - floor(t/slice_s) < slices: for at least
 * (slices-1) x slice_s and less than slices x slice_s seconds.  Finagle's
 * WindowedAdder (behind its RetryBudget) and Polly's rolling health metrics
 * (behind its time-based circuit breaker) age their counts the same way;
 * an exact sliding window would need a timestamp per event, which a
 * million simulated clients cannot afford.
 *
 * Storage: window_bytes() bytes, aligned for int64_t.  Zeroed storage is an
 * empty window at time 0.  Time must not go backwards between calls on one
 * window (the engine's clock never does).  Each call is O(slices x vals)
 * at worst, O(vals) when time stays inside one slice.
 */
#ifndef SB_WINDOW_H
#define SB_WINDOW_H

#include <stddef.h>
#include <stdint.h>

typedef struct window_shape {
    double slice_s;  /* > 0 */
    uint32_t slices; /* >= 1 */
    uint32_t vals;   /* counters per slice, >= 1 */
} window_shape;

/* Bytes of storage one window of this shape needs. */
size_t window_bytes(const window_shape *w);
/* Add `amount` (may be negative) to counter `val` at time now_s. */
void window_add(const window_shape *w, void *mem, double now_s, uint32_t val,
                int64_t amount);
/* The sum of counter `val` over the window that ends at now_s. */
int64_t window_sum(const window_shape *w, void *mem, double now_s,
                   uint32_t val);
/* Forget every count (the clock position is kept). */
void window_clear(const window_shape *w, void *mem);

#endif
