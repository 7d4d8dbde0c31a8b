/*
 * simtime.h -- simulated time: int64 nanoseconds, the end of time, the one
 * checked conversion from a real number of seconds (or nanoseconds) and
 * the one saturating addition.
 *
 * Invariant the engine relies on: every time and every duration it holds
 * lies in [0, SIMTIME_END].  The scenario loader refuses a duration past
 * SIMTIME_END (units_duration), every draw and every conversion of a user's
 * number saturates there, and sums of times use simtime_add.  The end of
 * time sits well below INT64_MAX on purpose: 4 x SIMTIME_END = 8e18 still
 * fits in an int64 (max 9.22e18), so a sum of up to four such values --
 * "now + network delay + latency fault", say -- cannot overflow even where
 * it is written as a plain `+`.  Saturating at INT64_MAX instead would make
 * every later `+` a potential overflow.
 *
 * A time at SIMTIME_END means "never": no run is that long (the loader
 * refuses a run duration past it), so an event scheduled there never
 * fires and an answer delayed there never arrives.
 *
 * Everything here is inline: the conversion runs for every random draw.
 */
#ifndef SB_SIMTIME_H
#define SB_SIMTIME_H

#include <math.h>
#include <stdint.h>

/* The end of simulated time: 2e18 ns = 2 000 000 000 s, about 63.4 years
 * (printed "2000000000s"), a round number that prints exactly. */
#define SIMTIME_END INT64_C(2000000000000000000)

/* x nanoseconds, a real number, as whole nanoseconds rounded to nearest
 * (half up, the same as llround for the non-negative values the engine
 * converts).  A finite x >= 0 is clamped to SIMTIME_END and 0 returned.
 * NaN, an infinity or a negative x is not a duration: -1 is returned and
 * *ns is still set to a defined value -- SIMTIME_END for +inf (an infinite
 * wait is a wait past the end of time), 0 for NaN, -inf and negatives --
 * so a caller that can meet +inf (a gap at a rate that underflowed) may use
 * it, and one that cannot treats -1 as a bug. */
static inline int simtime_from_ns(double x, int64_t *ns)
{
    if (x >= 0.0 && x < (double)SIMTIME_END) {
        *ns = (int64_t)(x + 0.5);
        return 0;
    }
    if (x >= (double)SIMTIME_END) {
        *ns = SIMTIME_END;
        return isinf(x) ? -1 : 0;
    }
    *ns = 0;
    return -1;
}

/* s seconds as nanoseconds: simtime_from_ns(s * 1e9), same contract (a
 * finite s too large for s * 1e9 to be finite still saturates). */
static inline int simtime_from_s(double s, int64_t *ns)
{
    if (s >= (double)(SIMTIME_END / 1000000000)) {
        *ns = SIMTIME_END;
        return isinf(s) ? -1 : 0;
    }
    return simtime_from_ns(s * 1e9, ns);
}

/* t + d for times in [0, SIMTIME_END]: the sum, or SIMTIME_END when it
 * would pass the end of time.  Never overflows for t, d <= INT64_MAX/2;
 * a negative d is not a duration and is not expected. */
static inline int64_t simtime_add(int64_t t, int64_t d)
{
    return d > SIMTIME_END - t ? SIMTIME_END : t + d;
}

#endif
