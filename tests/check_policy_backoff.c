/*
 * check_policy_backoff.c -- the `exponential` policy's delays under every
 * jitter mode, against the published formulas (backoff.h), with the
 * random draws scripted so each delay is a number worked out by hand.
 */
#include "policy_harness.h"

static ph *h;

static void teardown(void)
{
    ph_free(h);
    h = NULL;
}

static ph *expo(const char *jitter, const char *base, const char *cap)
{
    char j[64], b[64], c[64];
    snprintf(j, sizeof j, "jitter=%s", jitter);
    snprintf(b, sizeof b, "base=%s", base);
    snprintf(c, sizeof c, "cap=%s", cap);
    const char *params[] = {j, b, c};
    return ph_create("exponential", params, 3);
}

static double delay_after(uint32_t n)
{
    sb_decision d = ph_fail(h, n, SB_ERR_TIMEOUT, 0);
    ck_assert_int_eq(d.action, SB_RETRY);
    return d.delay_s;
}

/* Defaults: base 100 ms, x2, cap 20 s, 5 attempts, full jitter -- the
 * AWS Architecture Blog's recommendation.  Attempt 3's ceiling is
 * 0.1 x 2^2 = 0.4 s; full jitter with U = 0.25 waits 0.1 s.  Attempt 5 is
 * the last of 5: give up without drawing. */
START_TEST(defaults_are_full_jitter_100ms_x2_5_attempts)
{
    h = ph_create("exponential", NULL, 0);
    ph_script(h, 1, 0.25);
    ck_assert_double_eq_tol(delay_after(3), 0.1, 1e-12);
    ck_assert_int_eq(ph_fail(h, 5, SB_ERR_TIMEOUT, 0).action, SB_GIVE_UP);
    ck_assert_int_eq(h->drawn, 1);
}
END_TEST

/* No jitter: min(cap, base x 2^(n-1)) = 1, 2, 4, then 8 capped to 5. */
START_TEST(none_is_capped_exponential)
{
    h = expo("none", "1s", "5s");
    ph_script(h, 0);
    ck_assert_double_eq_tol(delay_after(1), 1.0, 1e-12);
    ck_assert_double_eq_tol(delay_after(2), 2.0, 1e-12);
    ck_assert_double_eq_tol(delay_after(3), 4.0, 1e-12);
    ck_assert_double_eq_tol(delay_after(4), 5.0, 1e-12);
}
END_TEST

/* Full: U(0, d).  d(4) = min(5, 8) = 5, U = 0.5 -> 2.5: the jitter is
 * applied to the capped value, as in the blog's formula. */
START_TEST(full_is_uniform_below_the_capped_delay)
{
    h = expo("full", "1s", "5s");
    ph_script(h, 2, 0.5, 0.0);
    ck_assert_double_eq_tol(delay_after(4), 2.5, 1e-12);
    ck_assert_double_eq_tol(delay_after(1), 0.0, 1e-12);
}
END_TEST

/* Equal: d/2 + U(0, d/2).  d(3) = 4: U = 0.5 -> 2 + 1 = 3; U = 0 -> 2,
 * never below half the delay. */
START_TEST(equal_keeps_half_the_delay)
{
    h = expo("equal", "1s", "60s");
    ph_script(h, 2, 0.5, 0.0);
    ck_assert_double_eq_tol(delay_after(3), 3.0, 1e-12);
    ck_assert_double_eq_tol(delay_after(3), 2.0, 1e-12);
}
END_TEST

/* Decorrelated: sleep = min(cap, U(base, 3 x sleep)), sleep from base.
 * base 1, cap 10: U(1, 3) at 0.5 = 2; U(1, 6) at 0.5 = 3.5; U(1, 10.5)
 * at 0.9 = 9.55; U(1, 28.65) at 0.9 = 25.9 -> capped to 10.  A new
 * request starts again from base: U(1, 3) at 0 = 1. */
START_TEST(decorrelated_grows_from_the_previous_sleep)
{
    h = expo("decorrelated", "1s", "10s");
    ph_new_request(h);
    ph_script(h, 5, 0.5, 0.5, 0.9, 0.9, 0.0);
    ck_assert_double_eq_tol(delay_after(1), 2.0, 1e-12);
    ck_assert_double_eq_tol(delay_after(2), 3.5, 1e-12);
    ck_assert_double_eq_tol(delay_after(3), 9.55, 1e-12);
    ck_assert_double_eq_tol(delay_after(4), 10.0, 1e-12);
    ph_new_request(h);
    ck_assert_double_eq_tol(delay_after(1), 1.0, 1e-12);
}
END_TEST

/* Polly's DecorrelatedJitterBackoffV2: t = i + U, next = 2^t tanh(sqrt(4t)),
 * delay = (next - prev) / 1.4 x base, i from 0, prev from 0.
 *   i = 0, U = 0.5:  next = 2^0.5 tanh(sqrt 2) = 1.41421 x 0.88839
 *                    = 1.25637; delay = 1.25637 / 1.4 = 0.89740 s
 *   i = 1, U = 0.5:  next = 2^1.5 tanh(sqrt 6) = 2.82843 x 0.98520
 *                    = 2.78657; delay = (2.78657 - 1.25637) / 1.4
 *                    = 1.09300 s
 *   i = 2, U = 0.25: t = 2.25, next = 4.73330; delay = (4.73330 -
 *                    2.78657) / 1.4 = 1.39052 s
 * (values from Python's math module, rounded to 5 digits). */
START_TEST(decorrelated_v2_is_pollys_soft_exponential)
{
    h = expo("decorrelated_v2", "1s", "20s");
    ph_new_request(h);
    ph_script(h, 3, 0.5, 0.5, 0.25);
    ck_assert_double_eq_tol(delay_after(1), 0.89740, 1e-5);
    ck_assert_double_eq_tol(delay_after(2), 1.09300, 1e-5);
    ck_assert_double_eq_tol(delay_after(3), 1.39052, 1e-5);
}
END_TEST

/* The formula scales with base: the same draws with base 200 ms give
 * 0.2 x the 1 s delays. */
START_TEST(decorrelated_v2_scales_with_base)
{
    h = expo("decorrelated_v2", "200ms", "20s");
    ph_new_request(h);
    ph_script(h, 2, 0.5, 0.5);
    ck_assert_double_eq_tol(delay_after(1), 0.2 * 0.89740, 1e-5);
    ck_assert_double_eq_tol(delay_after(2), 0.2 * 1.09300, 1e-5);
}
END_TEST

/* Far attempts: 2^t overflows to +inf past t = 1024 and inf - inf is NaN
 * (Polly issue #2163).  The delay must stay the cap, never NaN or inf,
 * which the stack would reject as a broken policy. */
START_TEST(decorrelated_v2_survives_overflow)
{
    const char *params[] = {"jitter=decorrelated_v2", "cap=30s",
                            "max_attempts=100000"};
    h = ph_create("exponential", params, 3);
    ph_new_request(h);
    ph_script(h, 2, 0.5, 0.5);
    ck_assert_double_eq(delay_after(1100), 30.0);
    ck_assert_double_eq(delay_after(1101), 30.0);
}
END_TEST

/* Ratio: d x (1 + ratio x U(-1, 1)), resilience4j's randomizationFactor.
 * d(2) = 0.2 s, ratio 0.2: U = 0.75 -> U(-1,1) = 0.5 -> 0.22 s; U = 0 ->
 * -1 -> 0.16 s, the bottom of the +/-20 % band.  (The default ratio is
 * now resilience4j's 0.5, so the test sets 0.2.) */
START_TEST(ratio_spreads_plus_minus_a_share)
{
    const char *params[] = {"jitter=ratio", "base=100ms", "cap=20s",
                            "max_attempts=1000000", "ratio=0.2"};
    h = ph_create("exponential", params, 5);
    ph_script(h, 2, 0.75, 0.0);
    ck_assert_double_eq_tol(delay_after(2), 0.22, 1e-12);
    ck_assert_double_eq_tol(delay_after(2), 0.16, 1e-12);
}
END_TEST

/* ratio jitters before the cap (resilience4j's ofExponentialRandomBackoff
 * takes min(randomized interval, maxInterval); Polly caps the jittered
 * delay at MaxDelay): d(6) = 3.2 s uncapped, cap 2 s, ratio 0.5: every
 * delay is at most 2 s -- before the fix the cap came first and U ~ 1
 * gave 2 x 1.5 = 3 s -- and U = 0 gives 3.2 x 0.5 = 1.6 s, below the cap,
 * where capping first gave 1 s. */
START_TEST(ratio_is_capped_after_jitter)
{
    const char *params[] = {"jitter=ratio", "base=100ms", "cap=2s",
                            "max_attempts=100"};
    h = ph_create("exponential", params, 4);
    ph_script(h, 2, 1.0 - 0x1.0p-53, 0.0);
    ck_assert_double_eq(delay_after(6), 2.0);
    ck_assert_double_eq_tol(delay_after(6), 1.6, 1e-12);
}
END_TEST

/* ---- Reference: each jitter mode against its library ------------------
 *
 * 300 requests of up to 7 attempts per mode, each draw from a fixed
 * sequence, each delay compared with the original's formula:
 *   none, full, equal, decorrelated: aws-samples/aws-arch-backoff-simulator
 *     src/backoff_simulator.py (commit
 *     095a07603079779edc86102ff1d91731a004cd2a),
 *     Backoff.expo, ExpoBackoff, ExpoBackoffFullJitter,
 *     ExpoBackoffEqualJitter, ExpoBackoffDecorr (sleep starts at base;
 *     random.uniform(a, b) = a + (b - a) x random()).  The simulator's
 *     first retry is backoff(1) = 2 x base; stormbench's first delay is
 *     base, so stormbench's retry n is the simulator's expo(n - 1).
 *   decorrelated_v2: App-vNext/Polly src/Polly.Core/Retry/RetryHelper.cs
 *     (commit 156a9bbee14397989490cc280f09de324ca85191),
 *     DecorrelatedJitterBackoffV2 then MaxDelay in GetRetryDelay; Polly
 *     truncates to 100 ns ticks, so within 1e-7 s.
 *   ratio: resilience4j/resilience4j resilience4j-core/.../core/
 *     IntervalFunction.java (commit 010b8d2b8013d8e53332f0087ebd272705e35f07),
 *     ofExponentialRandomBackoff: interval_n = (long)(interval_{n-1} x
 *     multiplier) ms, randomize(current, f) = (current - f current) +
 *     random() x 2 f current, cast to long ms, then min with maxInterval;
 *     resilience4j truncates to whole ms, so within 1 ms. */
static uint64_t lcg_state;

static double lcg_unit(void)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(lcg_state >> 11) * 0x1.0p-53;
}

static double sim_expo(int n, double base, double cap)
{
    return fmin(cap, pow(2, n) * base);
}

START_TEST(reference_jitter_modes)
{
    static const char *modes[] = {
        "none", "full", "equal", "decorrelated", "decorrelated_v2", "ratio"};
    const double base = 0.2, cap = 5.0;
    int compared = 0, capped = 0;
    for (int m = 0; m < 6; m++) {
        char j[64];
        snprintf(j, sizeof j, "jitter=%s", modes[m]);
        const char *params[] = {j, "base=200ms", "cap=5s", "max_attempts=1000",
                                "ratio=0.3"};
        h = ph_create("exponential", params, 5);
        lcg_state = (uint64_t)m + 1;
        for (int req = 0; req < 300; req++) {
            ph_new_request(h);
            double sleep = base, prev = 0; /* Decorr, V2 state */
            for (int n = 1; n <= 7; n++) {
                double u = lcg_unit(), want, tol = 1e-12;
                switch (m) {
                case 0:
                    want = sim_expo(n - 1, base, cap);
                    break;
                case 1:
                    want = 0 + (sim_expo(n - 1, base, cap) - 0) * u;
                    break;
                case 2: {
                    double v = sim_expo(n - 1, base, cap);
                    want = v / 2 + (v / 2 - 0) * u;
                    break;
                }
                case 3:
                    sleep = fmin(cap, base + (sleep * 3 - base) * u);
                    want = sleep;
                    break;
                case 4: {
                    double t = (n - 1) + u;
                    double next = pow(2, t) * tanh(sqrt(4.0 * t));
                    want = fmin((next - prev) * (1 / 1.4) * base, cap);
                    prev = next;
                    tol = 1e-7;
                    break;
                }
                default: {
                    double ms = 200;
                    for (int k = 1; k < n; k++)
                        ms = (double)(long)(ms * 2);
                    double delta = 0.3 * ms;
                    double r =
                        (double)(long)((ms - delta) +
                                       u * ((ms + delta) - (ms - delta)));
                    want = fmin(r, 5000) / 1000;
                    tol = 1e-3;
                    break;
                }
                }
                if (m == 0)
                    ph_script(h, 0);
                else
                    ph_script(h, 1, u);
                double got = delay_after((uint32_t)n);
                ck_assert_msg(fabs(got - want) <= tol,
                              "%s, request %d, retry %d, U = %.17g: the "
                              "library waits %.9f s, exponential %.9f s",
                              modes[m], req, n, u, want, got);
                ck_assert_double_le(got, cap);
                capped += want == cap;
                compared++;
            }
        }
        ph_free(h);
        h = NULL;
    }
    ck_assert_int_eq(compared, 6 * 300 * 7);
    ck_assert_int_ge(capped, 300);
}
END_TEST

/* cap below base is refused with both values in the message. */
START_TEST(cap_below_base_is_an_error)
{
    const char *params[] = {"base=2s", "cap=1s"};
    const char *msg = ph_build_error("exponential", params, 2);
    ck_assert_msg(strstr(msg, "cap (1s) must be at least base (2s)"), "got: %s",
                  msg);
}
END_TEST

Suite *policy_backoff_suite(void)
{
    Suite *s = suite_create("policy_backoff");
    TCase *tc = tcase_create("jitter");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, defaults_are_full_jitter_100ms_x2_5_attempts);
    tcase_add_test(tc, none_is_capped_exponential);
    tcase_add_test(tc, full_is_uniform_below_the_capped_delay);
    tcase_add_test(tc, equal_keeps_half_the_delay);
    tcase_add_test(tc, decorrelated_grows_from_the_previous_sleep);
    tcase_add_test(tc, decorrelated_v2_is_pollys_soft_exponential);
    tcase_add_test(tc, decorrelated_v2_scales_with_base);
    tcase_add_test(tc, decorrelated_v2_survives_overflow);
    tcase_add_test(tc, ratio_spreads_plus_minus_a_share);
    tcase_add_test(tc, ratio_is_capped_after_jitter);
    tcase_add_test(tc, reference_jitter_modes);
    tcase_add_test(tc, cap_below_base_is_an_error);
    suite_add_tcase(s, tc);
    return s;
}
