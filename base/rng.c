#include "rng.h"

#include <math.h>

double rng_exponential(uint64_t x, double mean)
{
    return -log(rng_unit_open0(x)) * mean;
}

double rng_normal(uint64_t x1, uint64_t x2)
{
    double u1 = rng_unit_open0(x1);
    double u2 = rng_unit(x2);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
}
