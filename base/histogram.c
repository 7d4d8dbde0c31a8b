#include "histogram.h"

#include <math.h>

double hist_bin_mid(unsigned bits, size_t i)
{
    size_t exact = (size_t)1 << bits;
    if (i < exact)
        return (double)i;
    size_t octave = (i >> bits) - 1; /* 0 for [2^bits, 2^(bits+1)) */
    size_t sub = i & (exact - 1);
    double width = ldexp(1.0, (int)octave);
    double low = (double)(exact + sub) * width;
    return low + width / 2.0;
}

double hist_quantile(unsigned bits, const uint32_t *counts, uint64_t total,
                     double q)
{
    double v;
    hist_quantiles(bits, counts, 0, HIST_BINS(bits) - 1, total, &q, 1, &v);
    return v;
}

/* One pass for every level: the levels ascend, so each one's bin lies at
 * or after the previous one's.  A run's latency CDF asks for 42 levels of
 * a 2 368-bin histogram, which one scan per level made the largest cost
 * of reducing a short run. */
void hist_quantiles(unsigned bits, const uint32_t *counts, size_t lo, size_t hi,
                    uint64_t total, const double *q, size_t nq, double *out)
{
    size_t k = 0;
    if (total > 0) {
        uint64_t seen = 0, rank = 0;
        for (size_t i = lo; i <= hi && k < nq; i++) {
            seen += counts[i];
            while (k < nq) {
                if (rank == 0) { /* the rank of level k, once */
                    rank = (uint64_t)ceil(q[k] * (double)total);
                    rank = rank < 1 ? 1 : rank;
                }
                if (seen < rank)
                    break;
                out[k++] = hist_bin_mid(bits, i);
                rank = 0;
            }
        }
    }
    for (; k < nq; k++)
        out[k] = total ? hist_bin_mid(bits, hi) : 0.0;
}
