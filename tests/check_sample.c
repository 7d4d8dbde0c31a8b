/*
 * check_sample.c -- engine_sample, the one place the engine turns a
 * distribution and a (client, stream, counter) into a time: every
 * distribution's mean and variance against its formula, over counters of
 * every bit pattern the engine uses; draws at different counters are
 * independent; and a closed loop with lognormal think times obeys the
 * response-time law.
 *
 * The counters: raw request numbers 0 .. 2^17 - 1 (what the closed loop
 * passes for think times: every pattern of the low 17 bits, bit 3 set in
 * half of them), and rng_attempt_counter(k, a, slot) for 256 requests x 32
 * attempts x all 16 slots (what service, network and fault draws pass).
 * Before the stream layout was fixed, the lognormal's second uniform came
 * from `counter | 8`: the counter itself whenever bit 3 was set (so both
 * uniforms of Box-Muller were one number) and request k + 8's counter
 * otherwise.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "engine.h"
#include "testutil.h"

#define N_DRAWS 131072 /* 2^17 per counter family */

static const char seed_ini[] =
    "[scenario]\nname = sample\nduration = 1s\nwarmup = 0s\nseed = 7\n"
    "[clients]\ncount = 4\n";

/* The counter of draw i in family f: 0 raw, 1 attempt counters. */
static uint64_t counter_of(int family, uint32_t i)
{
    if (family == 0)
        return i;
    return rng_attempt_counter(i >> 9, ((i >> 4) & 31u) + 1, i & 15u);
}

typedef struct moments {
    double mean, var, m4; /* m4: the fourth central moment */
} moments;

/* The draws of d over family f, in ns, as doubles. */
static double *draws(const sim *s, const dist *d, int family)
{
    double *x = malloc(N_DRAWS * sizeof *x);
    ck_assert_ptr_nonnull(x);
    for (uint32_t i = 0; i < N_DRAWS; i++)
        x[i] =
            (double)engine_sample(s, d, 2, RNG_SERVICE, counter_of(family, i));
    return x;
}

static moments moments_of(const double *x, int n)
{
    moments m = {0, 0, 0};
    for (int i = 0; i < n; i++)
        m.mean += x[i];
    m.mean /= n;
    for (int i = 0; i < n; i++) {
        double d2 = (x[i] - m.mean) * (x[i] - m.mean);
        m.var += d2;
        m.m4 += d2 * d2;
    }
    m.var /= n;
    m.m4 /= n;
    return m;
}

/* Standard normal density and distribution function, from libm's erfc:
 * independent of base/rng.c's AS 241. */
static double phi(double z)
{
    return exp(-0.5 * z * z) / 2.50662827463100050242; /* sqrt(2 pi) */
}

static double big_phi(double z)
{
    return 0.5 * erfc(-z / sqrt(2.0));
}

typedef struct dist_case {
    const char *name;
    dist d;
    double mean, var; /* ns, ns^2: from the formulas below */
} dist_case;

/* The formulas (ns):
 *   exp(m)               mean m, variance m^2
 *   lognormal(M, s)      mean M e^(s^2/2), variance (e^(s^2) - 1) M^2 e^(s^2)
 *   normal(mu, sd) | >0  with a = -mu/sd and lambda = phi(a) / (1 - Phi(a)):
 *                        mean mu + sd lambda,
 *                        variance sd^2 (1 + a lambda - lambda^2)
 *                        (Johnson, Kotz and Balakrishnan, Continuous
 *                        Univariate Distributions vol. 1, ch. 13)
 *   uniform(A, B)        mean (A + B) / 2, variance (B - A)^2 / 12 */
static dist_case make_case(const char *name, dist d)
{
    dist_case c = {name, d, 0, 0};
    double m = (double)d.mean_ns;
    switch (d.kind) {
    case DIST_CONST:
        c.mean = m;
        break;
    case DIST_EXP:
        c.mean = m;
        c.var = m * m;
        break;
    case DIST_LOGNORMAL: {
        double s2 = d.sigma * d.sigma;
        c.mean = m * exp(s2 / 2);
        c.var = (exp(s2) - 1) * m * m * exp(s2);
        break;
    }
    case DIST_NORMAL: {
        double sd = (double)d.sd_ns, a = -m / sd;
        double lambda = phi(a) / (1 - big_phi(a));
        c.mean = m + sd * lambda;
        c.var = sd * sd * (1 + a * lambda - lambda * lambda);
        break;
    }
    case DIST_UNIFORM: {
        double w = (double)(d.hi_ns - d.lo_ns);
        c.mean = (double)(d.lo_ns + d.hi_ns) / 2;
        c.var = w * w / 12;
        break;
    }
    case DIST_EMPIRICAL:
    case DIST_HISTOGRAM:
        break; /* from the file: setup_cases works them out */
    }
    return c;
}

/* A file's table as a dist, its moments given. */
static dist_case file_case(const char *spec, double mean, double var)
{
    dist d;
    sb_err e;
    int rc = units_dist(spec, &d, &e);
    ck_assert_msg(rc == 0, "%s", e.msg);
    dist_case c = make_case(spec, d);
    c.mean = mean;
    c.var = var;
    return c;
}

/* Prometheus' documentation histogram (tests/data/prometheus-histogram.txt)
 * drawn uniformly within each bucket (a, b] holding n: the bucket adds
 * n (a + b) / 2 to the sum and n (a^2 + ab + b^2) / 3 to the sum of
 * squares; the 10332 requests above 1 s are drawn at 1 s. */
static dist_case prometheus_case(const char *spec)
{
    static const double le[] = {0, 0.05, 0.1, 0.2, 0.5, 1};
    static const double cum[] = {0, 24054, 33444, 100392, 129389, 133988};
    const double total = 144320;
    double s1 = 0, s2 = 0;
    for (int i = 1; i < 6; i++) {
        double a = le[i - 1], b = le[i], n = cum[i] - cum[i - 1];
        s1 += n * (a + b) / 2;
        s2 += n * (a * a + a * b + b * b) / 3;
    }
    s1 += (total - cum[5]) * 1.0;
    s2 += (total - cum[5]) * 1.0;
    double mean = s1 / total;
    return file_case(spec, mean * 1e9, (s2 / total - mean * mean) * 1e18);
}

static dist_case cases[11];

static void setup_cases(void)
{
    const int64_t ms = NS_PER_MS;
    int n = 0;
    cases[n++] = make_case("const(20ms)",
                           (dist){.kind = DIST_CONST, .mean_ns = 20 * ms});
    cases[n++] =
        make_case("exp(100ms)", (dist){.kind = DIST_EXP, .mean_ns = 100 * ms});
    cases[n++] = make_case(
        "lognormal(80ms, 0.5)",
        (dist){.kind = DIST_LOGNORMAL, .mean_ns = 80 * ms, .sigma = 0.5});
    cases[n++] = make_case(
        "lognormal(10ms, 1)",
        (dist){.kind = DIST_LOGNORMAL, .mean_ns = 10 * ms, .sigma = 1.0});
    /* Truncation removes 10.6 % of the parent here (Phi(-1.25)): the mean
     * rises from 100 to 116.3 ms and the sd falls from 80 to 67.1 ms --
     * clamping at 0 instead would give a mean of 104.0 ms
     * (mu Phi(mu/sd) + sd phi(mu/sd)), outside the test's band. */
    cases[n++] = make_case(
        "normal(100ms, 80ms)",
        (dist){.kind = DIST_NORMAL, .mean_ns = 100 * ms, .sd_ns = 80 * ms});
    /* mu = 0: the half-normal, mean sd sqrt(2/pi), var sd^2 (1 - 2/pi). */
    cases[n++] =
        make_case("normal(0s, 30ms)",
                  (dist){.kind = DIST_NORMAL, .mean_ns = 0, .sd_ns = 30 * ms});
    /* Six sd above 0: the truncation is invisible (1e-9 of the mass). */
    cases[n++] = make_case(
        "normal(60ms, 10ms)",
        (dist){.kind = DIST_NORMAL, .mean_ns = 60 * ms, .sd_ns = 10 * ms});
    cases[n++] = make_case("uniform(50ms, 150ms)", (dist){.kind = DIST_UNIFORM,
                                                          .mean_ns = 100 * ms,
                                                          .lo_ns = 50 * ms,
                                                          .hi_ns = 150 * ms});
    cases[n++] = make_case("uniform(0s, 1ms)", (dist){.kind = DIST_UNIFORM,
                                                      .mean_ns = 500000,
                                                      .lo_ns = 0,
                                                      .hi_ns = 1 * ms});
    /* latencies.txt: 10, 20, 20, 50, 100 ms, each drawn 1 in 5: mean
     * 40 ms, variance (30^2 + 2 x 20^2 + 10^2 + 60^2) / 5 = 1080 ms^2. */
    cases[n++] = file_case(
        "empirical(" TU_SOURCE("tests/data/latencies.txt") ")", 40e6, 1080e12);
    cases[n++] = prometheus_case(
        "histogram(" TU_SOURCE("tests/data/prometheus-histogram.txt") ")");
}

/* The sample mean has standard error sqrt(var / n), the sample variance
 * sqrt((mu4 - var^2) / n) (mu4 estimated from the sample); 5 standard
 * errors, plus 1 ns for the rounding of each draw to whole ns.  The draws
 * are a fixed function of the seed, so the test is deterministic; the band
 * says how far off a correct generator could be. */
START_TEST(every_distribution_has_its_mean_and_variance)
{
    setup_cases();
    tu_sim *t = tu_sim_prepare(seed_ini, NULL, NULL, 0);
    const dist_case *c = &cases[_i];
    for (int family = 0; family < 2; family++) {
        double *x = draws(t->sim, &c->d, family);
        moments m = moments_of(x, N_DRAWS);
        free(x);
        double se_mean = sqrt(c->var / N_DRAWS);
        double se_var = sqrt(fmax(m.m4 - m.var * m.var, 0.0) / N_DRAWS);
        ck_assert_msg(fabs(m.mean - c->mean) <= 5 * se_mean + 1.0,
                      "%s, %s counters: mean %.6g ns, formula %.6g ns", c->name,
                      family ? "attempt" : "raw", m.mean, c->mean);
        ck_assert_msg(fabs(m.var - c->var) <= 5 * se_var + 1.0,
                      "%s, %s counters: variance %.6g, formula %.6g (se %.3g)",
                      c->name, family ? "attempt" : "raw", m.var, c->var,
                      se_var);
        if (c->d.kind != DIST_CONST)
            ck_assert_double_gt(m.var, 0.0);
    }
    tu_sim_free(t);
}
END_TEST

/* No two draws may share a uniform: the draws at counters k and k + j are
 * independent, so their correlation over 2^17 pairs is 0 within a
 * standard error of 1/sqrt(n) = 0.0028 (5 sigma: 0.014).  Lags 8 (the old
 * `counter | 8`) and 1, 16 (neighbouring slots and attempts) and, for the
 * lognormal, the normal deviate log(x / M) / s itself, which Box-Muller
 * would correlate most directly. */
START_TEST(draws_at_different_counters_are_independent)
{
    tu_sim *t = tu_sim_prepare(seed_ini, NULL, NULL, 0);
    const dist d = {
        .kind = DIST_LOGNORMAL, .mean_ns = 80 * NS_PER_MS, .sigma = 0.5};
    const int lags[] = {1, 8, 16};
    const int n = N_DRAWS;
    double *z = malloc((size_t)(n + 16) * sizeof *z);
    for (uint32_t k = 0; k < (uint32_t)n + 16; k++)
        z[k] = log((double)engine_sample(t->sim, &d, 1, RNG_ARRIVAL, k) /
                   (double)d.mean_ns) /
               d.sigma;
    for (int l = 0; l < 3; l++) {
        double sx = 0, sy = 0, sxy = 0, sxx = 0, syy = 0;
        for (int k = 0; k < n; k++) {
            double x = z[k], y = z[k + lags[l]];
            sx += x;
            sy += y;
            sxy += x * y;
            sxx += x * x;
            syy += y * y;
        }
        double cov = sxy / n - (sx / n) * (sy / n);
        double r = cov / sqrt((sxx / n - (sx / n) * (sx / n)) *
                              (syy / n - (sy / n) * (sy / n)));
        ck_assert_msg(fabs(r) < 5.0 / sqrt(n), "lag %d: correlation %f",
                      lags[l], r);
    }
    free(z);
    tu_sim_free(t);
}
END_TEST

/* The first uniform of every draw stays where it was, so const and exp
 * draws -- every shipped scenario -- are unchanged: an exp draw is still
 * -mean log(u) for u from (stream, counter), rounded to whole ns. */
START_TEST(exp_draws_use_the_first_uniform_only)
{
    tu_sim *t = tu_sim_prepare(seed_ini, NULL, NULL, 0);
    const dist d = {.kind = DIST_EXP, .mean_ns = 100 * NS_PER_MS};
    uint64_t key = rng_key(7, 3, RNG_NET);
    for (uint64_t k = 0; k < 1000; k++) {
        double want = -log(rng_unit_open0(rng_at(key, k))) * 1e8;
        ck_assert_int_eq(engine_sample(t->sim, &d, 3, RNG_NET, k),
                         (int64_t)(want + 0.5));
    }
    tu_sim_free(t);
}
END_TEST

static const char closed_ini[] =
    "[scenario]\nname = closed-lognormal\nduration = 20000s\nwarmup = 0s\n"
    "[clients]\ncount = 20\narrival = closed\nthink = lognormal(1s, 0.5)\n"
    "timeout = 1h\n"
    "[server]\nworkers = 1\nservice = exp(50ms)\n"
    "[policy]\nname = none\n";

/* The interactive response-time law X = N / (R + Z) (Denning and Buzen
 * 1978) holds for any think-time distribution: over a long run each of the
 * N clients cycles through a think of mean Z and a request of mean R.  Z
 * is the lognormal's mean e^(0.5^2 / 2) s = 1.1331 s.  The run offers
 * about 300 000 requests, so the measured mean think time is within
 * 0.60 s / sqrt(300 000) = 0.0011 s of Z (its sd is Z sqrt(e^0.25 - 1) =
 * 0.60 s), 0.08 % of R + Z; with the requests cut off at the end (at most
 * 20), 0.5 % is a band of over 5 sigma.  When the lognormal reused its
 * first uniform (every counter with bit 3 set), the think times were
 * biased and the offered rate was off by far more. */
START_TEST(closed_loop_lognormal_think_obeys_response_time_law)
{
    tu_sim *t = tu_sim_run(closed_ini, NULL, NULL, 0);
    double z = exp(0.125);
    double x = (double)t->sum.offered / t->sum.duration_s;
    double r = t->sum.latency_mean_ms / 1000.0;
    double law = 20.0 / (r + z);
    ck_assert_uint_eq(t->sum.failures, 0);
    ck_assert_msg(fabs(x - law) / law < 0.005,
                  "offered %.4f/s, N/(R+Z) = %.4f/s (R %.4f s, Z %.4f s)", x,
                  law, r, z);
    tu_sim_free(t);
}
END_TEST

Suite *sample_suite(void)
{
    Suite *s = suite_create("sample");
    TCase *tc = tcase_create("distributions");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, every_distribution_has_its_mean_and_variance, 0,
                        (int)(sizeof cases / sizeof *cases));
    tcase_add_test(tc, draws_at_different_counters_are_independent);
    tcase_add_test(tc, exp_draws_use_the_first_uniform_only);
    tcase_add_test(tc, closed_loop_lognormal_think_obeys_response_time_law);
    suite_add_tcase(s, tc);
    return s;
}
