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

double rng_normal_cdf(double z)
{
    return 0.5 * erfc(-z * 0.70710678118654752440);
}

/* A rational function of degree 7 over degree 7, coefficients from the
 * constant term up (Horner). */
static double ratio7(const double *num, const double *den, double r)
{
    double n = num[7], d = den[7];
    for (int i = 6; i >= 0; i--) {
        n = n * r + num[i];
        d = d * r + den[i];
    }
    return n / d;
}

/* Wichura, "The percentage points of the normal distribution", Applied
 * Statistics 37 (1988), algorithm AS 241 (PPND16): three rational
 * approximations -- the centre |p - 1/2| <= 0.425, then in r =
 * sqrt(-log(min(p, 1 - p))) up to 5 and beyond -- good to about 1e-16.
 * Acklam's shorter approximation (1e-9) would need a Newton step on erfc
 * to match. */
double rng_normal_quantile(double p)
{
    static const double a[8] = {
        3.3871328727963666080e0,  1.3314166789178437745e+2,
        1.9715909503065514427e+3, 1.3731693765509461125e+4,
        4.5921953931549871457e+4, 6.7265770927008700853e+4,
        3.3430575583588128105e+4, 2.5090809287301226727e+3};
    static const double b[8] = {1.0,
                                4.2313330701600911252e+1,
                                6.8718700749205790830e+2,
                                5.3941960214247511077e+3,
                                2.1213794301586595867e+4,
                                3.9307895800092710610e+4,
                                2.8729085735721942674e+4,
                                5.2264952788528545610e+3};
    static const double c[8] = {
        1.42343711074968357734e0,  4.63033784615654529590e0,
        5.76949722146069140550e0,  3.64784832476320460504e0,
        1.27045825245236838258e0,  2.41780725177450611770e-1,
        2.27238449892691845833e-2, 7.74545014278341407640e-4};
    static const double d[8] = {1.0,
                                2.05319162663775882187e0,
                                1.67638483018380384940e0,
                                6.89767334985100004550e-1,
                                1.48103976427480074590e-1,
                                1.51986665636164571966e-2,
                                5.47593808499534494600e-4,
                                1.05075007164441684324e-9};
    static const double e[8] = {
        6.65790464350110377720e0,  5.46378491116411436990e0,
        1.78482653991729133580e0,  2.96560571828504891230e-1,
        2.65321895265761230930e-2, 1.24266094738807843860e-3,
        2.71155556874348757815e-5, 2.01033439929228813265e-7};
    static const double f[8] = {1.0,
                                5.99832206555887937690e-1,
                                1.36929880922735805310e-1,
                                1.48753612908506148525e-2,
                                7.86869131145613259100e-4,
                                1.84631831751005468180e-5,
                                1.42151175831644588870e-7,
                                2.04426310338993978564e-15};
    if (!(p > 0.0))
        return -HUGE_VAL;
    if (!(p < 1.0))
        return HUGE_VAL;
    double q = p - 0.5;
    if (fabs(q) <= 0.425)
        return q * ratio7(a, b, 0.180625 - q * q);
    double r = sqrt(-log(q < 0.0 ? p : 1.0 - p));
    double z = r <= 5.0 ? ratio7(c, d, r - 1.6) : ratio7(e, f, r - 5.0);
    return q < 0.0 ? -z : z;
}

/* X ~ normal(m, s) given X > 0.  With b = m / s, the conditional survival
 * function is P(X > x | X > 0) = Phi((m - x) / s) / Phi(b); setting it to
 * v, uniform in (0, 1], gives x = m - s Phi^-1(v Phi(b)).  Working with the
 * survival function keeps the argument of Phi^-1 a product of small
 * numbers in the upper tail, where the draws are long, instead of
 * 1 - (something close to 1).  v = 1 gives exactly the truncation point
 * 0; rounding can only push a draw below it by an ulp, so the clamp. */
double rng_truncated_normal(uint64_t x, double mean, double sd)
{
    if (sd <= 0.0)
        return mean;
    double v = rng_unit_open0(x);
    double draw =
        mean - sd * rng_normal_quantile(v * rng_normal_cdf(mean / sd));
    return draw > 0.0 ? draw : 0.0;
}
