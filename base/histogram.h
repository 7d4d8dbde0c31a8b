/*
 * histogram.h -- log-bucketed latency histograms (HdrHistogram's layout).
 *
 * Values are nanoseconds.  Below 2^S they are counted exactly; above, each
 * power of two is split into 2^S equal sub-bins, so a bin is at most
 * 1/2^S of its lower bound wide and a quantile read from its midpoint is
 * within 1/2^(S+1) of the truth (S = 4: 3.2 %, S = 6: 0.8 %).  Values past
 * 2^42 ns (73 minutes) land in the last bin.
 *
 * The counts array belongs to the caller (it is embedded in metrics
 * buckets), so these are plain functions on (bits, counts).
 */
#ifndef SB_HISTOGRAM_H
#define SB_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#define HIST_MAX_EXP 42
/* Number of bins for 2^bits sub-bins per octave. */
#define HIST_BINS(bits) ((HIST_MAX_EXP - (bits) + 1) << (bits))

/* The bin of value v (ns, clamped to [0, 2^42)). */
static inline size_t hist_bin(unsigned bits, int64_t v)
{
    if (v < ((int64_t)1 << bits))
        return v < 0 ? 0 : (size_t)v;
    if (v >= ((int64_t)1 << HIST_MAX_EXP))
        return HIST_BINS(bits) - 1;
    unsigned e = 63u - (unsigned)__builtin_clzll((unsigned long long)v);
    size_t sub = (size_t)(v >> (e - bits)) & (((size_t)1 << bits) - 1);
    return ((size_t)(e - bits + 1) << bits) + sub;
}

/* hist_bin(bits, v), given fine = hist_bin(more, v) for more > bits:
 * the same bin, from the finer one by a shift where v is past the finer
 * histogram's exact bins (the octave's sub-bins nest: the coarse sub-bin
 * is the fine one's top bits; the last bins map to the last bin).  The
 * engine puts every latency in both a bucket's and the run's histogram:
 * one hist_bin and a shift, instead of two hist_bins. */
static inline size_t hist_bin_coarser(unsigned bits, unsigned more, size_t fine,
                                      int64_t v)
{
    if (fine < ((size_t)1 << more))
        return hist_bin(bits, v);
    return (fine >> (more - bits)) + ((size_t)(more - bits) << bits);
}

/* The midpoint of bin i, in ns. */
double hist_bin_mid(unsigned bits, size_t i);

/* The q-quantile (0 <= q <= 1) of the n counts in `counts` (bins of the
 * given bits), as a bin midpoint in ns; 0 when the histogram is empty.
 * Nearest rank: the smallest bin whose cumulative count reaches
 * ceil(q x total). */
double hist_quantile(unsigned bits, const uint32_t *counts, uint64_t total,
                     double q);

/* hist_quantile at each of nq ascending levels q[], into out[], in one
 * pass over bins [lo, hi] (every count outside them must be 0). */
void hist_quantiles(unsigned bits, const uint32_t *counts, size_t lo, size_t hi,
                    uint64_t total, const double *q, size_t nq, double *out);

#endif
