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
    tcase_add_test(tc, cap_below_base_is_an_error);
    suite_add_tcase(s, tc);
    return s;
}
