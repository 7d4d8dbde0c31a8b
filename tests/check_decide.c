/*
 * check_decide.c -- `stormbench decide`, through the real binary: the
 * decision of built-in policies and of the example plug-in for one
 * failure, the error's class, the host's random stream, and every way the
 * input can be wrong (exit 2 with the message).
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "testutil.h"

#define EXAMPLE SB_BUILD_DIR "/policies/examples/libcapped_backoff.so"
#define SBT(v) SB_BUILD_DIR "/tests/plugins/libsbt_" v ".so"

static tu_output o;

/* Run `stormbench decide ARGS...` (NULL-terminated); returns the status. */
static int decide(const char *first, ...)
{
    tu_output_free(&o);
    const char *argl[48] = {"decide", first};
    int n = 2;
    va_list ap;
    va_start(ap, first);
    const char *s;
    while ((s = va_arg(ap, const char *)) != NULL && n < 47)
        argl[n++] = s;
    va_end(ap);
    argl[n] = NULL;
    return tu_stormbench(&o, argl);
}

static void teardown(void)
{
    tu_output_free(&o);
}

static void assert_string(const char *key, const char *want)
{
    char pat[256];
    snprintf(pat, sizeof pat, "\"%s\": \"%s\"", key, want);
    ck_assert_msg(strstr(o.out, pat) != NULL, "no %s in:\n%s", pat, o.out);
}

/* The decision fields: action, delay, reason, deciding layer. */
static void assert_decision(const char *action, double delay,
                            const char *reason, const char *layer)
{
    ck_assert_msg(o.status == EXIT_OK, "exit %d: %s", o.status, o.err);
    assert_string("action", action);
    ck_assert_double_eq_tol(tu_json_number(o.out, "delay_s"), delay, 1e-6);
    assert_string("reason", reason);
    if (layer)
        assert_string("layer", layer);
    else
        ck_assert(tu_json_is_null(o.out, "layer"));
}

/* ---- built-in policies -------------------------------------------------- */

/* exponential without jitter: d(n) = base x 2^(n-1) = 100 ms x 4 at n = 3
 * (backoff.h; defaults base 100ms, multiplier 2). */
START_TEST(exponential_plain_delay)
{
    decide("--policy", "exponential", "--param", "jitter=none", "--error",
           "timeout", "--attempt", "3", NULL);
    assert_decision("retry", 0.4, "backoff", "exponential");
    assert_string("class", "transient");
    assert_string("confidence", "high");
    assert_string("before_send\": {\n    \"action", "allow");
    ck_assert_double_eq(tu_json_number(o.out, "random_draws"), 0);
}
END_TEST

/* max_attempts 5 (the default) counts the first: attempt 5 is the last. */
START_TEST(exponential_gives_up_at_max_attempts)
{
    decide("--policy", "exponential", "--error", "timeout", "--attempt", "5",
           NULL);
    assert_decision("give_up", 0, "max_attempts reached", "exponential");
    decide("--policy", "exponential", "--param", "max_attempts=7", "--error",
           "timeout", "--attempt", "5", NULL);
    assert_string("action", "retry");
}
END_TEST

/* Full jitter draws U from client 0's policy stream of the seed, exactly
 * as a run does (sim.c host_uniform): delay = U x d(1) = U x 100 ms. */
START_TEST(jitter_draws_from_the_seed)
{
    /* Seeds past INT64_MAX are seeds of a run too (scenario.seed is a
     * uint64); 2^63 was once clamped to 2^63 - 1 without a word. */
    static const uint64_t seeds[] = {1, 2, 3, UINT64_C(9223372036854775808),
                                     UINT64_MAX};
    for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
        uint64_t seed = seeds[i];
        char s[32], want[48];
        snprintf(s, sizeof s, "%llu", (unsigned long long)seed);
        decide("--policy", "exponential", "--error", "timeout", "--attempt",
               "1", "--seed", s, NULL);
        double u = rng_unit(rng_at(rng_key(seed, 0, RNG_POLICY), 0));
        assert_decision("retry", u * 0.1, "backoff", "exponential");
        /* The digits, not a double: 2^63 and 2^63 - 1 are one double. */
        snprintf(want, sizeof want, "\"seed\": %s,", s);
        ck_assert_msg(strstr(o.out, want) != NULL, "%s", o.out);
        ck_assert_double_eq(tu_json_number(o.out, "random_draws"), 1);
    }
}
END_TEST

START_TEST(none_gives_up)
{
    decide("--policy", "none", "--error", "reset", "--attempt", "1", NULL);
    assert_decision("give_up", 0, "none: never retries", "none");
}
END_TEST

/* A stack: the action of highest rank, the largest delay (pstack.h).
 * fixed asks 1 s, exponential without jitter 100 ms: retry after 1 s,
 * decided by the first layer to ask for a retry. */
START_TEST(stack_takes_largest_delay)
{
    decide("--policy", "fixed+exponential", "--param",
           "exponential.jitter=none", "--error", "timeout", "--attempt", "1",
           NULL);
    assert_decision("retry", 1.0, "fixed delay", "fixed");
    assert_string("policy", "fixed+exponential");
}
END_TEST

/* ---- what the classifier makes of each kind of error -------------------- */

typedef struct class_case {
    const char *args[4]; /* --error KIND [--status N] */
    const char *cls, *conf;
    const char *status; /* the JSON's "status" value, or NULL */
} class_case;

/* classifier.h's table, one row per line of it the shorthands reach. */
static const class_case class_cases[] = {
    {{"timeout"}, "transient", "high", NULL},
    {{"refused"}, "transient", "high", NULL},
    {{"connection_reset"}, "transient", "high", NULL},
    {{"http", "--status", "503"}, "transient", "high", "503"},
    {{"http", "--status", "500"}, "unknown", "low", "500"},
    {{"http", "--status", "404"}, "permanent", "high", "404"},
    {{"rate_limited"}, "transient", "high", "429"},
    {{"invalid_schema"}, "data_defect", "high", "422"},
    {{"missing_field"}, "data_defect", "high", "422"},
    {{"duplicate_business_key"}, "data_defect", "high", "409"},
    {{"grpc", "--status", "UNAVAILABLE"},
     "transient",
     "high",
     "\"UNAVAILABLE\""},
    {{"grpc", "--status", "3"}, "permanent", "high", "\"INVALID_ARGUMENT\""},
    {{"grpc", "--status", "INTERNAL"}, "unknown", "low", "\"INTERNAL\""},
};

START_TEST(error_class_and_confidence)
{
    const class_case *c = &class_cases[_i];
    decide("--policy", "none", "--attempt", "1", "--error", c->args[0],
           c->args[1], c->args[2], NULL);
    ck_assert_msg(o.status == EXIT_OK, "%s: %s", c->args[0], o.err);
    assert_string("class", c->cls);
    assert_string("confidence", c->conf);
    if (c->status) {
        char pat[64];
        snprintf(pat, sizeof pat, "\"status\": %s", c->status);
        ck_assert_msg(strstr(o.out, pat), "no %s in:\n%s", pat, o.out);
    } else {
        ck_assert_ptr_null(strstr(o.out, "\"status\""));
    }
}
END_TEST

/* The shorthands carry their defect into what the policy sees. */
START_TEST(shorthand_defects)
{
    decide("--policy", "none", "--attempt", "1", "--error",
           "duplicate_business_key", NULL);
    assert_string("defect", "duplicate_business_key");
    assert_string("error", "http");
}
END_TEST

/* ---- the example plug-in, decision by decision -------------------------- */

#define EX "--policy-plugin", EXAMPLE, "--policy", "capped_backoff"

/* d(n) = min(cap, base x 2^(n-1)); without jitter, attempt 3: 400 ms. */
START_TEST(example_backoff)
{
    decide(EX, "--param", "jitter=false", "--error", "timeout", "--attempt",
           "3", NULL);
    assert_decision("retry", 0.4, "capped backoff", "capped_backoff");
    /* cap = 300ms clips it. */
    decide(EX, "--param", "jitter=false", "--param", "cap=300ms", "--error",
           "timeout", "--attempt", "3", NULL);
    assert_decision("retry", 0.3, "capped backoff", "capped_backoff");
    /* Equal jitter: d/2 + U x d/2 with U the seed's first draw. */
    decide(EX, "--error", "timeout", "--attempt", "1", NULL);
    double u = rng_unit(rng_at(rng_key(1, 0, RNG_POLICY), 0));
    assert_decision("retry", 0.05 + u * 0.05, "capped backoff",
                    "capped_backoff");
}
END_TEST

/* Retry-After wins when longer, and is not capped; ignored on request. */
START_TEST(example_retry_after)
{
    decide(EX, "--error", "http", "--status", "503", "--retry-after", "20s",
           "--attempt", "1", NULL);
    assert_decision("retry", 20.0, "Retry-After", "capped_backoff");
    decide(EX, "--param", "honour_retry_after=false", "--param", "jitter=false",
           "--error", "rate_limited", "--retry-after", "20s", "--attempt", "1",
           NULL);
    assert_decision("retry", 0.1, "capped backoff", "capped_backoff");
}
END_TEST

START_TEST(example_stops)
{
    decide(EX, "--error", "http", "--status", "404", "--attempt", "1", NULL);
    assert_decision("give_up", 0,
                    "permanent error (4xx): the request itself is wrong",
                    "capped_backoff");
    decide(EX, "--error", "invalid_schema", "--attempt", "1", NULL);
    assert_decision("quarantine", 0,
                    "data defect: retrying cannot fix the payload",
                    "capped_backoff");
    decide(EX, "--error", "timeout", "--attempt", "4", NULL);
    assert_decision("give_up", 0, "max_attempts reached", "capped_backoff");
    /* A Retry-After of 31 s alone passes max_total_delay (30 s); the
     * 20 s of example_retry_after did not. */
    decide(EX, "--error", "http", "--status", "503", "--retry-after", "31s",
           "--attempt", "1", NULL);
    assert_decision("give_up", 0, "max_total_delay reached", "capped_backoff");
}
END_TEST

/* An unkeyed post that timed out may have committed; refused, it was
 * never sent; keyed, the server dedupes it. */
START_TEST(example_unkeyed_post)
{
    decide(EX, "--op", "post", "--error", "timeout", "--attempt", "1", NULL);
    assert_decision("give_up", 0,
                    "post without idempotency key may have committed",
                    "capped_backoff");
    decide(EX, "--op", "post", "--error", "refused", "--attempt", "1", NULL);
    assert_string("action", "retry");
    decide(EX, "--op", "post", "--keyed", "--error", "timeout", "--attempt",
           "1", NULL);
    assert_string("action", "retry");
}
END_TEST

/* 0.5 s left: a 50-100 ms delay plus a 1 s attempt does not fit; with a
 * 200 ms timeout it does. */
START_TEST(example_deadline)
{
    decide(EX, "--error", "reset", "--attempt", "1", "--elapsed", "4.5s",
           "--deadline", "5s", NULL);
    assert_decision("give_up", 0, "no time left before the deadline",
                    "capped_backoff");
    ck_assert_double_eq_tol(tu_json_number(o.out, "attempt.remaining_s"), 0.5,
                            1e-9);
    decide(EX, "--error", "reset", "--attempt", "1", "--elapsed", "4.5s",
           "--deadline", "5s", "--timeout", "200ms", NULL);
    assert_string("action", "retry");
}
END_TEST

/* ---- a contract-breaking plug-in ---------------------------------------- */

START_TEST(broken_plugin_is_an_error)
{
    decide("--policy-plugin", SBT("neg_delay"), "--policy", "sbt_neg_delay",
           "--error", "timeout", "--attempt", "1", NULL);
    ck_assert_int_eq(o.status, EXIT_INPUT);
    ck_assert_str_eq(
        o.err,
        "stormbench decide: policy 'sbt_neg_delay' (from " SBT(
            "neg_delay") ") returned a negative delay "
                         "-1 s from on_failure; a delay must be a number "
                         "between 0 and 86400 s\n");
    ck_assert_str_eq(o.out, "");
    decide("--policy-plugin", SBT("send"), "--policy", "sbt_send", "--error",
           "timeout", "--attempt", "1", NULL);
    ck_assert_int_eq(o.status, EXIT_INPUT);
    ck_assert_ptr_nonnull(strstr(o.err, "returned an unknown send action 7 "
                                        "from before_send"));
    decide("--policy-plugin", SBT("abi"), "--policy", "sbt_abi", "--error",
           "timeout", "--attempt", "1", NULL);
    ck_assert_int_eq(o.status, EXIT_INPUT);
    ck_assert_ptr_nonnull(strstr(o.err, "built for policy ABI 1.0, but this "
                                        "stormbench speaks policy ABI 2.2"));
}
END_TEST

/* ---- bad input ----------------------------------------------------------- */

typedef struct bad_case {
    const char *args[12];
    const char *msg; /* the first line of stderr after "stormbench decide: " */
} bad_case;

#define KINDS                                                                  \
    "timeout, refused, reset, http, grpc, invalid_schema, missing_field, "     \
    "duplicate_business_key, rate_limited"

static const bad_case bad_cases[] = {
    {{"--policy", "none", "--error", "boom", "--attempt", "1"},
     "--error: unknown kind 'boom'; expected one of " KINDS},
    {{"--policy", "none", "--error", "timeout"},
     "--attempt is required: the number of the attempt that failed, from 1"},
    {{"--policy", "none", "--attempt", "1"},
     "--error is required (one of " KINDS ")"},
    {{"--error", "timeout", "--attempt", "1"}, "--policy is required"},
    {{"--policy", "none", "--error", "timeout", "--attempt", "0"},
     "--attempt: expected a whole number from 1 to 1000000, got '0'"},
    {{"--policy", "none", "--error", "timeout", "--attempt", "two"},
     "--attempt: expected a whole number from 1 to 1000000, got 'two'"},
    {{"--policy", "none", "--error", "http", "--attempt", "1"},
     "--error http needs --status (an HTTP status from 100 to 599)"},
    {{"--policy", "none", "--error", "http", "--status", "600", "--attempt",
      "1"},
     "--status: expected a whole number from 100 to 599, got '600'"},
    {{"--policy", "none", "--error", "http", "--status", "99", "--attempt",
      "1"},
     "--status: expected a whole number from 100 to 599, got '99'"},
    {{"--policy", "none", "--error", "grpc", "--status", "BUSY", "--attempt",
      "1"},
     "--status: expected a gRPC error code such as UNAVAILABLE, "
     "RESOURCE_EXHAUSTED or INVALID_ARGUMENT (or its number, 1-16), got "
     "'BUSY'"},
    {{"--policy", "none", "--error", "grpc", "--status", "OK", "--attempt",
      "1"},
     "--status: expected a gRPC error code such as UNAVAILABLE, "
     "RESOURCE_EXHAUSTED or INVALID_ARGUMENT (or its number, 1-16), got "
     "'OK'"},
    {{"--policy", "none", "--error", "timeout", "--status", "503", "--attempt",
      "1"},
     "--status goes with --error http or grpc; --error timeout has no "
     "status"},
    {{"--policy", "none", "--error", "rate_limited", "--status", "503",
      "--attempt", "1"},
     "--status goes with --error http or grpc; --error rate_limited implies "
     "its own status"},
    {{"--policy", "none", "--error", "timeout", "--attempt", "1", "--op",
      "delete"},
     "--op: expected read, put or post, got 'delete'"},
    {{"--policy", "none", "--error", "timeout", "--attempt", "1", "--elapsed",
      "5"},
     "--elapsed: expected a duration with a unit (ns, us, ms, s, m, h), "
     "such as 250ms or 2s, got '5' (no unit)"},
    {{"--policy", "none", "--error", "timeout", "--attempt", "1", "--elapsed",
      "6s", "--deadline", "5s"},
     "--elapsed (6s) is past --deadline (5s): the request would already "
     "have ended"},
    {{"--policy", "none", "--error", "timeout", "--attempt", "1", "--seed",
      "-1"},
     "--seed: expected a whole number from 0 to 18446744073709551615, got "
     "'-1'"},
    /* The range and words of `run --seed` (check_scenario_errors). */
    {{"--policy", "none", "--error", "timeout", "--attempt", "1", "--seed",
      "18446744073709551616"},
     "--seed: expected a whole number from 0 to 18446744073709551615, got "
     "'18446744073709551616'"},
    {{"--policy", "none", "--error", "timeout", "--attempt", "1", "--bogus"},
     "unknown option '--bogus'"},
    {{"--policy", "none", "--error", "timeout", "--attempt"},
     "option --attempt needs a value"},
};

START_TEST(bad_input_exits_2)
{
    const bad_case *c = &bad_cases[_i];
    const char *argl[16] = {"decide"};
    int n = 1;
    for (int i = 0; c->args[i]; i++)
        argl[n++] = c->args[i];
    argl[n] = NULL;
    tu_output_free(&o);
    ck_assert_int_eq(tu_stormbench(&o, argl), EXIT_INPUT);
    char want[1024];
    snprintf(want, sizeof want,
             "stormbench decide: %s\nTry 'stormbench decide --help'.\n",
             c->msg);
    ck_assert_str_eq(o.err, want);
    ck_assert_str_eq(o.out, "");
}
END_TEST

/* Errors of the policy itself come from the shared setup code. */
START_TEST(bad_policy_exits_2)
{
    decide("--policy", "nope", "--error", "timeout", "--attempt", "1", NULL);
    ck_assert_int_eq(o.status, EXIT_INPUT);
    /* 'nope' is two edits from 'none': suggested. */
    const char *head = "stormbench decide: --policy: unknown policy 'nope' "
                       "(did you mean 'none'?); known policies: none, ";
    ck_assert_msg(strncmp(o.err, head, strlen(head)) == 0, "%s", o.err);
    decide("--policy", "exponential", "--param", "base=fast", "--error",
           "timeout", "--attempt", "1", NULL);
    ck_assert_int_eq(o.status, EXIT_INPUT);
    ck_assert_str_eq(o.err, "stormbench decide: --param base: expected a "
                            "duration with a unit (ns, us, ms, s, m, h), "
                            "such as 250ms or 2s, got 'fast'\n");
}
END_TEST

START_TEST(help_says_the_client_is_fresh)
{
    decide("--help", NULL);
    ck_assert_int_eq(o.status, EXIT_OK);
    ck_assert_ptr_nonnull(strstr(o.out, "The client is fresh: per-client "
                                        "state (circuit breakers, budgets,"));
    ck_assert_ptr_nonnull(strstr(o.out, "--retry-after T"));
}
END_TEST

Suite *decide_suite(void)
{
    Suite *s = suite_create("decide");
    TCase *tc = tcase_create("builtin");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, exponential_plain_delay);
    tcase_add_test(tc, exponential_gives_up_at_max_attempts);
    tcase_add_test(tc, jitter_draws_from_the_seed);
    tcase_add_test(tc, none_gives_up);
    tcase_add_test(tc, stack_takes_largest_delay);
    tcase_add_loop_test(tc, error_class_and_confidence, 0,
                        (int)(sizeof class_cases / sizeof *class_cases));
    tcase_add_test(tc, shorthand_defects);
    suite_add_tcase(s, tc);
    tc = tcase_create("example");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, example_backoff);
    tcase_add_test(tc, example_retry_after);
    tcase_add_test(tc, example_stops);
    tcase_add_test(tc, example_unkeyed_post);
    tcase_add_test(tc, example_deadline);
    tcase_add_test(tc, broken_plugin_is_an_error);
    suite_add_tcase(s, tc);
    tc = tcase_create("input");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_loop_test(tc, bad_input_exits_2, 0,
                        (int)(sizeof bad_cases / sizeof *bad_cases));
    tcase_add_test(tc, bad_policy_exits_2);
    tcase_add_test(tc, help_says_the_client_is_fresh);
    suite_add_tcase(s, tc);
    return s;
}
