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
    if (total == 0)
        return 0.0;
    uint64_t rank = (uint64_t)ceil(q * (double)total);
    if (rank < 1)
        rank = 1;
    uint64_t seen = 0;
    size_t n = HIST_BINS(bits);
    for (size_t i = 0; i < n; i++) {
        seen += counts[i];
        if (seen >= rank)
            return hist_bin_mid(bits, i);
    }
    return hist_bin_mid(bits, n - 1);
}
