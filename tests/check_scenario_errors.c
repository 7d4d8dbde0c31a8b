/*
 * check_scenario_errors.c -- bad input gets a clear error that names the
 * file, the line, the key and what was expected; exit status 2; never a
 * crash, never silent acceptance.  Each case runs the real binary.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* A valid scenario the cases below break one line at a time.  Lines:
 *  1 [scenario]   2 name   3 duration   4 [clients]   5 count   6 rate
 *  7 [server]     8 workers  9 [policy]  10 name */
#define BASE                                                                   \
    "[scenario]\nname = t\nduration = 60s\n"                                   \
    "[clients]\ncount = 10\nrate = 1/s\n"                                      \
    "[server]\nworkers = 2\n"                                                  \
    "[policy]\nname = none\n"

/* Ten and ninety x's: a key of 103 bytes ("max_attempts_" and 90 x),
 * 8 past the loader's 95 (issue 23: it used to be cut to 95 without a
 * word), and one of exactly 95, the longest taken. */
#define X10 "xxxxxxxxxx"
#define X90 X10 X10 X10 X10 X10 X10 X10 X10 X10
#define KEY95 "k" X90 "xxxx"

typedef struct bad_case {
    const char *name;
    const char *ini;
    const char *extra[4]; /* more arguments after the file */
    const char *message;  /* after "stormbench run: "; %s = the file */
} bad_case;

static const bad_case cases[] = {
    {"unknown-section",
     BASE "[servr]\nworkers = 3\n",
     {NULL},
     "%s:11: unknown section [servr]; known sections: [scenario], [clients], "
     "[server], [policy], [expect], [fault.NAME], [server.NAME], "
     "[policy.NAME], [expect.NAME], [pipeline], [step.NAME]"},
    {"unknown-key",
     "[scenario]\nname = t\nduration = 60s\n[server]\nworkerz = 2\n",
     {NULL},
     "%s:5: [server] unknown key 'workerz' (did you mean 'workers'?); known "
     "keys: model, occ, read_service, workers, queue_limit, overflow, "
     "queue_order, retry_after, service, "
     "degradation, degradation_knee, network_delay, rate_limit, "
     "rate_limit_burst, drop_expired, drop_late, idempotency, dedupe_answer, "
     "name, downstream"},
    {"negative-workers",
     "[scenario]\nname = t\nduration = 60s\n[server]\nworkers = -4\n",
     {NULL},
     "%s:5: [server] workers: expected a whole number from 1 to 10000000, or "
     "'unlimited', got '-4'"},
    {"words-for-number",
     "[scenario]\nname = t\nduration = 60s\n[server]\nworkers = ten\n",
     {NULL},
     "%s:5: [server] workers: expected a whole number from 1 to 10000000, or "
     "'unlimited', got 'ten'"},
    {"probability-above-one",
     "[scenario]\nname = t\nduration = 60s\n[clients]\n"
     "defect_fraction = 1.5\n",
     {NULL},
     "%s:5: [clients] defect_fraction: expected a probability between 0 and "
     "1, or a percentage from 0%% to 100%%, got '1.5'"},
    {"probability-percentage-above-range",
     "[scenario]\nname = t\nduration = 60s\n[clients]\n"
     "defect_fraction = 150%\n",
     {NULL},
     "%s:5: [clients] defect_fraction: expected a probability between 0 and "
     "1, or a percentage from 0%% to 100%%, got '150%%'"},
    /* The name is free text, but not none at all. */
    {"empty-scenario-name",
     "[scenario]\nname =\nduration = 60s\n",
     {NULL},
     "%s:2: [scenario] name: expected a name to show in outputs, such as "
     "retry-storm, got ''"},
    /* A share may be a percentage, but not past its range. */
    {"expect-percentage-above-range",
     BASE "[expect]\nsuccess_min = 150%\n",
     {NULL},
     "%s:12: [expect] success_min: expected a share between 0 and 1, or a "
     "percentage from 0%% to 100%%, got '150%%'"},
    {"zero-duration",
     "[scenario]\nname = t\nduration = 0s\n",
     {NULL},
     "%s:3: [scenario] duration: expected a positive duration, got '0s'"},
    {"duration-without-unit",
     "[scenario]\nname = t\nduration = 5\n",
     {NULL},
     "%s:3: [scenario] duration: expected a duration with a unit (ns, us, "
     "ms, s, m, h), such as 250ms or 2s, got '5' (no unit)"},
    {"rate-without-unit",
     "[scenario]\nname = t\nduration = 60s\n[clients]\nrate = 100\n",
     {NULL},
     "%s:5: [clients] rate: expected a rate such as 100/s, 6000/m or 10/h, "
     "got '100' (no '/unit')"},
    {"unknown-distribution",
     "[scenario]\nname = t\nduration = 60s\n[server]\nservice = gamma(1s)\n",
     {NULL},
     "%s:5: [server] service: expected a distribution: const(D), exp(D), "
     "lognormal(MEDIAN, SIGMA), normal(MEAN, SD), uniform(A, B), "
     "empirical(FILE), histogram(FILE) or a duration D, got 'gamma(1s)' "
     "(unknown distribution 'gamma')"},
    {"mix-not-one",
     "[scenario]\nname = t\nduration = 60s\n[clients]\nread = 0.5\n"
     "post = 0.2\n",
     {NULL},
     "%s:6: [clients] post: read + put + post must add up to 1, got 0.7 "
     "(read 0.5, put 0, post 0.2)"},
    {"duplicate-key",
     "[scenario]\nname = t\nduration = 60s\nduration = 90s\n",
     {NULL},
     "%s:4: duplicate key 'duration' (first set at %s:3)"},
    {"key-before-section",
     "x = 1\n" BASE,
     {NULL},
     "%s:1: 'x' comes before any [section]"},
    /* The fuzzer's: a line "=wasted_max = 0.31" in [expect] loaded (its
     * keys are checked when a run reads them) and could not be written. */
    {"empty-key",
     "[scenario]\nname = t\nduration = 60s\n[expect]\n"
     "=wasted_max = 0.31\n",
     {NULL},
     "%s:5: expected 'key = value': the key is empty"},
    {"fault-without-type",
     BASE "[fault.a]\nstart = 10s\nduration = 5s\n",
     {NULL},
     "%s:11: [fault.a] needs a 'type' (one of capacity, load_spike, outage, "
     "latency, slowdown, errors, lost_ack, partition, rate_limit, client_timeout, "
     "crash)"},
    {"fault-unknown-type",
     BASE "[fault.a]\ntype = meteor\nstart = 10s\nduration = 5s\n",
     {NULL},
     "%s:12: [fault.a] type: expected one of capacity, load_spike, outage, "
     "latency, slowdown, errors, lost_ack, partition, rate_limit, client_timeout, "
     "crash, got "
     "'meteor'"},
    {"fault-key-of-other-type",
     BASE "[fault.a]\ntype = outage\nstart = 10s\nduration = 5s\n"
          "multiplier = 3\n",
     {NULL},
     "%s:15: [fault.a] multiplier: does not apply to a fault of type "
     "'outage'"},
    {"fault-missing-key",
     BASE "[fault.a]\ntype = errors\nstart = 10s\nduration = 5s\n"
          "status = 503\n",
     {NULL},
     "%s:11: [fault.a] a fault of type 'errors' needs 'probability'"},
    {"fault-zero-duration",
     BASE "[fault.a]\ntype = outage\nstart = 10s\nduration = 0s\n",
     {NULL},
     "%s:14: [fault.a] duration: expected a positive duration, got '0s'"},
    {"pushback-needs-grpc",
     BASE "[fault.a]\ntype = errors\nstart = 10s\nduration = 5s\n"
          "status = 503\nprobability = 0.5\npushback = 100ms\n",
     {NULL},
     "%s:17: [fault.a] pushback: is gRPC metadata (grpc-retry-pushback-ms): "
     "it needs a gRPC status, such as UNAVAILABLE"},
    {"pushback-whole-ms",
     BASE "[fault.a]\ntype = errors\nstart = 10s\nduration = 5s\n"
          "status = UNAVAILABLE\nprobability = 0.5\npushback = 1500us\n",
     {NULL},
     "%s:17: [fault.a] pushback: expected a delay in whole milliseconds "
     "(the grpc-retry-pushback-ms header), or 'stop', got '1500us'"},
    {"error-status-not-an-error",
     BASE "[fault.a]\ntype = errors\nstart = 10s\nduration = 5s\n"
          "status = 200\nprobability = 0.5\n",
     {NULL},
     "%s:15: [fault.a] status: expected an error status (400-599): an errors "
     "fault answers with an error, got '200'"},
    {"line-without-equals",
     "[scenario]\nname = t\nduration = 60s\n[server]\nworkers 2\n",
     {NULL},
     "%s:5: expected 'key = value', a [section] or a comment"},
    {"malformed-header",
     "[scenario]\nname = t\nduration = 60s\n[server\n",
     {NULL},
     "%s:4: malformed section header '[server': expected [name]"},
    {"section-twice",
     BASE "[server]\nqueue_limit = 3\n",
     {NULL},
     "%s:11: section [server] appears twice (first at line 7)"},
    {"closed-loop-with-rate",
     "[scenario]\nname = t\nduration = 60s\n[clients]\narrival = closed\n"
     "rate = 1/s\n",
     {NULL},
     "%s:6: [clients] rate: only open-loop clients (arrival = open) have a "
     "rate"},
    {"warmup-too-long",
     "[scenario]\nname = t\nduration = 60s\nwarmup = 60s\n",
     {NULL},
     "%s:4: [scenario] warmup: must be shorter than the duration of the run"},
    /* The default 10 s warmup (1 s bucket) is what is too long for a
     * 5 s (500 ms) run: name it, and the key that changes it. */
    {"default-warmup-too-long",
     "[scenario]\nname = t\nduration = 5s\n",
     {NULL},
     "%s:3: [scenario] duration: warmup (default 10s) must be shorter than "
     "the duration (5s); set [scenario] warmup"},
    {"default-bucket-too-long",
     "[scenario]\nname = t\nduration = 500ms\nwarmup = 0s\n",
     {NULL},
     "%s:3: [scenario] duration: bucket (default 1s) must not be longer "
     "than the duration (500ms); set [scenario] bucket"},
    /* Past the end of simulated time (2e9 s): 2000000 h is 7.2e9 s.  A
     * fault there used to be accepted, and start + duration overflowed. */
    {"run-past-the-end-of-time",
     "[scenario]\nname = t\nduration = 2000000h\n",
     {NULL},
     "%s:3: [scenario] duration: duration '2000000h' is too long: at most "
     "2000000000s (about 63 years), the end of simulated time"},
    {"fault-past-the-end-of-time",
     BASE "[fault.a]\ntype = outage\nstart = 2000000h\n"
          "duration = 2000000h\n",
     {NULL},
     "%s:13: [fault.a] start: duration '2000000h' is too long: at most "
     "2000000000s (about 63 years), the end of simulated time"},
    /* 1e10/s: a mean gap of 0.1 ns, which rounds to 0 for 99 % of gaps. */
    {"rate-finer-than-1ns",
     "[scenario]\nname = t\nduration = 60s\n[clients]\nrate = 1e10/s\n",
     {NULL},
     "%s:5: [clients] rate: 1e+10/s per client is too fast for the engine's "
     "time resolution of 1 ns: the mean gap between a client's requests "
     "would be 0.1 ns, and gaps are rounded to whole ns; at most 1e+07/s "
     "per client (a mean gap of 100 ns) is allowed; spread the load over "
     "more clients"},
    /* A rate limit's Retry-After is up to 1/rate s: below 5e-10/s that
     * is past the end of time (and used to overflow an int64). */
    {"rate-limit-below-end-of-time",
     "[scenario]\nname = t\nduration = 60s\n[server]\n"
     "rate_limit = 1e-12/s\n",
     {NULL},
     "%s:5: [server] rate_limit: 1e-12/s is below 5e-10/s, one request per "
     "2000000000s (the end of simulated time): the Retry-After of a refused "
     "attempt would be longer than any run; to refuse everything, use an "
     "outage fault"},
    {"fault-rate-limit-below-end-of-time",
     BASE "[fault.a]\ntype = rate_limit\nstart = 10s\nduration = 5s\n"
          "rate = 1e-10/s\n",
     {NULL},
     "%s:15: [fault.a] rate: 1e-10/s is below 5e-10/s, one request per "
     "2000000000s (the end of simulated time): the Retry-After of a refused "
     "attempt would be longer than any run; to refuse everything, use an "
     "outage fault"},
    {"normal-one-argument",
     "[scenario]\nname = t\nduration = 60s\n[server]\n"
     "service = normal(10ms)\n",
     {NULL},
     "%s:5: [server] service: in 'normal(10ms)': normal takes a mean and a "
     "standard deviation, such as normal(100ms, 20ms)"},
    {"uniform-reversed",
     "[scenario]\nname = t\nduration = 60s\n[server]\n"
     "network_delay = uniform(5ms, 1ms)\n",
     {NULL},
     "%s:5: [server] network_delay: in 'uniform(5ms, 1ms)': the low end "
     "'5ms' is above the high end '1ms'"},
    {"empty-layer-in-file",
     "[scenario]\nname = t\nduration = 60s\n[policy]\nname = immediate+\n",
     {NULL},
     "%s:5: [policy] name: policy 'immediate+' has an empty layer name; "
     "write a stack as names joined by '+', such as "
     "exponential+token_bucket"},
    {"empty-layer-at-end",
     BASE,
     {"--policy", "immediate+", NULL},
     "--policy: policy 'immediate+' has an empty layer name; write a stack "
     "as names joined by '+', such as exponential+token_bucket"},
    {"empty-layer-at-start",
     BASE,
     {"--policy", "+immediate", NULL},
     "--policy: policy '+immediate' has an empty layer name; write a stack "
     "as names joined by '+', such as exponential+token_bucket"},
    {"empty-layer-between",
     BASE,
     {"--policy", "exponential++hedge", NULL},
     "--policy: policy 'exponential++hedge' has an empty layer name; write "
     "a stack as names joined by '+', such as exponential+token_bucket"},
    {"empty-file",
     "",
     {NULL},
     "%s: [scenario] needs a name and a duration (how long to simulate), "
     "e.g. name = my-test and duration = 300s"},
    {"degradation-without-knee",
     "[scenario]\nname = t\nduration = 60s\n[server]\ndegradation = 0.1\n",
     {NULL},
     "%s:5: [server] degradation: needs degradation_knee too: the number of "
     "attempts in service beyond which service slows down"},
    {"expect-typo",
     BASE "[expect]\nrecover_within = 10s\n",
     {NULL},
     "%s:12: [expect] unknown key 'recover_within' (did you mean "
     "'recovers_within'?); known keys: recovers_within, metastable, "
     "amplification_max, peak_amplification_max, success_min, "
     "duplicates_max, latency_p99_max, unfinished_max, completion_within, "
     "wasted_max, during_fault_success_min, recovery_amplification_max, "
     "steady_success_min, steady_goodput_min, steady_latency_p99_max, "
     "jobs_completed_min, jobs_failed_max, jobs_within_sla_min, "
     "alerts_critical_max, alerts_warning_max, quarantined_items_min, "
     "quarantined_items_max, duplicate_items_max, steps_redone_max"},
    {"unknown-policy",
     "[scenario]\nname = t\nduration = 60s\n[policy]\nname = expo\n",
     {NULL},
     "%s:5: [policy] name: unknown policy 'expo'; known policies: none, "
     "immediate, fixed, exponential%s (see 'stormbench policies')"},
    {"unknown-policy-parameter",
     "[scenario]\nname = t\nduration = 60s\n[policy]\nname = exponential\n"
     "bse = 1s\n",
     {NULL},
     "%s:6: [policy] bse: policy 'exponential' has no such parameter; its "
     "parameters are: base, multiplier, cap, max_attempts, jitter, ratio"},
    {"policy-parameter-out-of-range",
     "[scenario]\nname = t\nduration = 60s\n[policy]\nname = exponential\n"
     "max_attempts = 0\n",
     {NULL},
     "%s:6: [policy] max_attempts: expected a whole number from 1 to "
     "1000000, got '0'"},
    /* Flags: the same checks apply to what the command line overrides. */
    {"set-bad-value",
     BASE,
     {"--set", "server.workers=zero", NULL},
     "--set server.workers=zero: [server] workers: expected a whole number "
     "from 1 to 10000000, or 'unlimited', got 'zero'"},
    {"set-unknown-section",
     BASE,
     {"--set", "nosuch.key=1", NULL},
     "--set nosuch.key=1: unknown section [nosuch]; known sections: "
     "scenario, clients, server, policy, expect, fault.NAME, server.NAME, "
     "policy.NAME, expect.NAME, pipeline, step.NAME"},
    {"set-fault-typo",
     BASE "[fault.outage]\ntype = outage\nstart = 10s\n"
          "duration = 5s\n",
     {"--set", "fault.outge.start=20s", NULL},
     "--set fault.outge.start=20s: the scenario has no [fault.outge] (did "
     "you mean [fault.outage]?); a new fault needs fault.outge.type"},
    {"set-new-fault-without-type",
     BASE,
     {"--set", "fault.extra.start=20s", NULL},
     "--set fault.extra.start=20s: the scenario has no [fault.extra]; a new "
     "fault needs fault.extra.type (one of capacity, load_spike, outage, "
     "latency, slowdown, errors, lost_ack, partition, rate_limit, "
     "client_timeout, crash)"},
    {"param-for-parameterless-policy",
     BASE,
     {"--param", "max_attempts=3", NULL},
     "--param max_attempts: policy 'none' has no such parameter; it has no "
     "parameters"},
    {"param-bad-duration",
     BASE,
     {"--policy", "exponential", "--param", "base=fast"},
     "--param base: expected a duration with a unit (ns, us, ms, s, m, h), "
     "such as 250ms or 2s, got 'fast'"},
    {"param-ambiguous-in-stack",
     BASE,
     {"--policy", "exponential+immediate", "--param", "max_attempts=2"},
     "--param max_attempts: ambiguous in policy 'exponential+immediate'; "
     "write exponential.max_attempts or immediate.max_attempts"},
    {"set-policy-name-typo",
     BASE,
     {"--set", "policy.name=exponentail", NULL},
     "%.0s--set policy.name=exponentail: [policy] name: unknown policy "
     "'exponentail' (did you mean 'exponential'?); known policies: none, "
     "immediate, fixed, exponential%s (see 'stormbench policies')"},
    /* A key longer than a key may be is refused whole, at its line (it
     * was cut to 95 bytes: an unknown key named a key not in the file,
     * two keys equal in their first 95 bytes passed the duplicate check,
     * and the cut key written back could end in a space and load as
     * another).  Quoted by its first 40 bytes. */
    {"key-too-long",
     BASE "max_attempts_" X90 " = 3\n",
     {NULL},
     "%s:11: [policy] expected a key of at most 95 characters, got "
     "'max_attempts_xxxxxxxxxxxxxxxxxxxxxxxxxxx...' (103 characters)"},
    {"set-key-too-long",
     BASE,
     {"--set", "policy.max_attempts_" X90 "=3"},
     "--set policy.max_attempts_" X90 "=3: expected a key of at most 95 "
     "characters, got 'max_attempts_xxxxxxxxxxxxxxxxxxxxxxxxxxx...' (103 "
     "characters)"},
    /* A section of a chain that the chain does not use is refused even
     * when it holds no key (such empty ones were ignored, while an
     * unlisted empty [step.NAME] was refused: one check now). */
    {"empty-tier-not-in-chain",
     BASE "[server.orphan]\n",
     {NULL},
     "%s:11: [server.orphan] is not part of the service chain: no tier "
     "reached from [server] has downstream = orphan"},
    {"empty-policy-of-bottom-tier",
     BASE "[server.db]\n[policy.db]\n",
     {"--set", "server.downstream=db"},
     "%s:12: [policy.db]: tier 'db' has no downstream, so it makes no "
     "calls for a policy to drive"},
    /* --set says what a line of the file could say, no more: in a file
     * "description = a ; b" means "a", so a run given it could not be
     * saved as the scenario it ran (the writer refuses it). */
    {"set-value-with-a-comment",
     BASE,
     {"--set", "scenario.description=storm ; with jitter", NULL},
     "--set scenario.description=storm ; with jitter: expected a value a "
     "scenario file can hold, got 'storm ; with jitter': it holds ';' after "
     "a blank, which starts a comment"},
    {"set-key-with-a-colon",
     BASE,
     {"--set", "policy.a:b=1", NULL},
     "--set policy.a:b=1: expected a key a scenario file can hold, got "
     "'a:b': it holds '=' or ':', which end a key"},
    /* 95 is taken, and named whole. */
    {"key-of-95-is-named-whole",
     "[scenario]\nname = t\nduration = 60s\n" KEY95 " = 1\n",
     {NULL},
     "%s:4: [scenario] unknown key '" KEY95 "'; known keys: name, "
     "description, duration, seed, branch, warmup, bucket, recovery_window"},
    {"policy-flag-unknown",
     BASE,
     {"--policy", "nonesuch", NULL},
     "%.0s--policy: unknown policy 'nonesuch'; known policies: none, immediate, "
     "fixed, exponential%s (see 'stormbench policies')"},
};

/* The built-in list grows with the policy library; the message must list
 * at least the engine's four, then whatever else, then the hint. */
static bool matches_policy_list(const char *got, const char *want_fmt,
                                const char *path)
{
    char head[2048];
    snprintf(head, sizeof head, want_fmt, path, "");
    const char *cut = strstr(head, " (see");
    size_t n = (size_t)(cut - head);
    return strncmp(got, head, n) == 0 &&
           strstr(got, " (see 'stormbench policies')\n") != NULL;
}

START_TEST(bad_input_is_named_and_refused)
{
    const bad_case *c = &cases[_i];
    char file[64];
    snprintf(file, sizeof file, "bad-%s.ini", c->name);
    char path[1024];
    snprintf(path, sizeof path, "%s", tu_write_temp(file, c->ini));
    const char *argl[8] = {"run", path};
    int n = 2;
    for (int i = 0; i < 4 && c->extra[i]; i++)
        argl[n++] = c->extra[i];
    argl[n] = NULL;
    tu_output o;
    tu_stormbench(&o, argl);
    ck_assert_msg(o.status == 2, "%s: exit %d, stderr: %s", c->name, o.status,
                  o.err);
    ck_assert_str_eq(o.out, "");
    if (strstr(c->message, "known policies")) {
        ck_assert_msg(matches_policy_list(o.err + strlen("stormbench run: "),
                                          c->message, path),
                      "%s: got %s", c->name, o.err);
    } else {
        char want[2048];
        snprintf(want, sizeof want, "stormbench run: ");
        snprintf(want + strlen(want), sizeof want - strlen(want), c->message,
                 path, path);
        strcat(want, "\n");
        ck_assert_str_eq(o.err, want);
    }
    tu_output_free(&o);
}
END_TEST

/* Usage errors: a message, a hint, exit 2. */
START_TEST(usage_errors)
{
    static const struct {
        const char *args[5];
        const char *err;
    } u[] = {
        {{"run", NULL},
         "stormbench run: no scenario file given\n"
         "Try 'stormbench run --help'.\n"},
        {{"run", "x.ini", "--bogus", NULL},
         "stormbench run: unknown option '--bogus'\n"
         "Try 'stormbench run --help'.\n"},
        {{"run", "x.ini", "--json", NULL},
         "stormbench run: option --json needs a value\n"
         "Try 'stormbench run --help'.\n"},
        {{"run", "x.ini", "--trace-sample", "0"},
         "stormbench run: --trace-sample: expected a whole number from 1 "
         "to 1000000000, got '0'\nTry 'stormbench run --help'.\n"},
        {{"frobnicate", NULL},
         "stormbench: unknown command 'frobnicate'\n"
         "Try 'stormbench --help'.\n"},
        {{"run", "/nonexistent/x.ini", NULL},
         "stormbench run: /nonexistent/x.ini: cannot open scenario file: No "
         "such file or directory\n"},
        /* Not a scenario at all: a binary stream (it used to read as
         * empty lines for ever), a directory. */
        {{"run", "/dev/zero", NULL},
         "stormbench run: /dev/zero:1: holds a NUL byte: not a text file\n"},
        {{"run", "/", NULL},
         "stormbench run: /: is a directory, not a scenario file\n"},
        /* --seed is named as itself, not as the --set it becomes. */
        {{"run", "x.ini", "--seed", "abc"},
         "stormbench run: --seed: expected a whole number from 0 to "
         "18446744073709551615, got 'abc'\nTry 'stormbench run --help'.\n"},
        {{"run", "x.ini", "--seed", "18446744073709551616"},
         "stormbench run: --seed: expected a whole number from 0 to "
         "18446744073709551615, got '18446744073709551616'\n"
         "Try 'stormbench run --help'.\n"},
        {{"gui", "x.ini", "--seed", "-1"},
         "stormbench gui: --seed: expected a whole number from 0 to "
         "18446744073709551615, got '-1'\nTry 'stormbench gui --help'.\n"},
    };
    for (size_t i = 0; i < sizeof u / sizeof *u; i++) {
        tu_output o;
        tu_stormbench(&o, u[i].args);
        ck_assert_int_eq(o.status, 2);
        ck_assert_str_eq(o.err, u[i].err);
        tu_output_free(&o);
    }
}
END_TEST

/* Nothing written when the input is bad: outputs are whole or absent. */
START_TEST(no_output_file_on_bad_input)
{
    const char *json = "bad-out.json";
    char out[1024];
    snprintf(out, sizeof out, "%s", tu_temp_path(json));
    remove(out);
    char path[1024];
    snprintf(path, sizeof path, "%s",
             tu_write_temp("bad-out.ini", "[scenario]\nname = t\n"
                                          "duration = 5\n"));
    tu_output o;
    tu_stormbench(&o, (const char *[]){"run", path, "--json", out, NULL});
    ck_assert_int_eq(o.status, 2);
    FILE *f = fopen(out, "r");
    ck_assert_ptr_null(f);
    tu_output_free(&o);
}
END_TEST

Suite *scenario_errors_suite(void)
{
    Suite *s = suite_create("scenario_errors");
    TCase *tc = tcase_create("bad_input");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, bad_input_is_named_and_refused, 0,
                        (int)(sizeof cases / sizeof *cases));
    tcase_add_test(tc, usage_errors);
    tcase_add_test(tc, no_output_file_on_bad_input);
    suite_add_tcase(s, tc);
    return s;
}
