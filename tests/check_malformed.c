/*
 * check_malformed.c -- malformed input of every kind, through the real
 * binary: flags of every subcommand (bad values, missing values, unknown
 * options, conflicting ones), policy plug-ins that are not plug-ins, and
 * scenario files broken key by key in every section.  Each case gives
 * its exact message and exit status 2, prints nothing on stdout, and --
 * for `run`, which is given --json and --csv before the case's own
 * arguments -- leaves no output file behind, not even a temporary one.
 * Under the sanitizer build the same cases also prove that none of them
 * crashes or leaks (LeakSanitizer would change the exit status).
 *
 * tests/check_scenario_errors.c holds 65 such cases and
 * tests/check_decide.c 24 of `decide`; this table adds what they lacked
 * (none of theirs is repeated here).  In a case's arguments and message,
 * @F is the case's scenario file, @d the directory it is in, @N a text
 * file named like a plug-in and @E an empty one.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define PLUGIN_DIR SB_BUILD_DIR "/tests/plugins/"

/* A valid scenario; cases add a section or a line.  Lines:
 *  1 [scenario]   2 name   3 duration   4 [clients]   5 count   6 rate
 *  7 [server]     8 workers  9 [policy]  10 name */
#define BASE                                                                   \
    "[scenario]\nname = t\nduration = 60s\n"                                   \
    "[clients]\ncount = 10\nrate = 1/s\n"                                      \
    "[server]\nworkers = 2\n"                                                  \
    "[policy]\nname = none\n"

typedef struct malformed {
    const char *name;
    const char *ini;      /* the scenario file, or NULL when none is used */
    const char *argv[12]; /* after the program's name */
    const char *err;      /* stderr, exactly */
} malformed;

static const malformed cases[] = {
    {"run-policy-missing-value",
     BASE,
     {"run", "@F", "--policy", NULL},
     "stormbench run: option --policy needs a value\nTry 'stormbench run "
     "--help'.\n"},
    {"run-seed-empty",
     BASE,
     {"run", "@F", "--seed=", NULL},
     "stormbench run: --seed: expected a value, got ''\nTry 'stormbench run "
     "--help'.\n"},
    {"run-seed-fraction",
     BASE,
     {"run", "@F", "--seed", "1.5", NULL},
     "stormbench run: --seed: expected a whole number from 0 to "
     "18446744073709551615, got '1.5'\nTry 'stormbench run --help'.\n"},
    {"run-trace-sample-word",
     BASE,
     {"run", "@F", "--trace-sample", "abc", NULL},
     "stormbench run: --trace-sample: expected a whole number from 1 to "
     "1000000000, got 'abc'\nTry 'stormbench run --help'.\n"},
    {"run-trace-sample-huge",
     BASE,
     {"run", "@F", "--trace-sample", "2000000000", NULL},
     "stormbench run: --trace-sample: expected a whole number from 1 to "
     "1000000000, got '2000000000'\nTry 'stormbench run --help'.\n"},
    {"run-param-missing-value",
     BASE,
     {"run", "@F", "--param", NULL},
     "stormbench run: option --param needs a value\nTry 'stormbench run "
     "--help'.\n"},
    {"run-param-no-equals",
     BASE,
     {"run", "@F", "--param", "base", NULL},
     "stormbench run: --param base: expected name=value (or "
     "layer.name=value)\nTry 'stormbench run --help'.\n"},
    {"run-param-empty-key",
     BASE,
     {"run", "@F", "--param", "=5", NULL},
     "stormbench run: --param =5: expected name=value (or "
     "layer.name=value)\nTry 'stormbench run --help'.\n"},
    {"run-set-no-equals",
     BASE,
     {"run", "@F", "--set", "server.workers", NULL},
     "stormbench run: --set server.workers: expected section.key=value\n"},
    {"run-set-no-dot",
     BASE,
     {"run", "@F", "--set", "workers=4", NULL},
     "stormbench run: --set workers=4: expected section.key=value\n"},
    {"run-set-unknown-key",
     BASE,
     {"run", "@F", "--set", "server.wrokers=4", NULL},
     "stormbench run: --set server.wrokers=4: [server] unknown key "
     "'wrokers' (did you mean 'workers'?); known keys: model, occ, "
     "read_service, workers, queue_limit, overflow, queue_order, "
     "retry_after, service, degradation, degradation_knee, network_delay, "
     "rate_limit, rate_limit_burst, drop_expired, drop_late, idempotency, "
     "dedupe_answer, name, downstream\n"},
    {"run-set-seed-word",
     BASE,
     {"run", "@F", "--set", "scenario.seed=abc", NULL},
     "stormbench run: --set scenario.seed=abc: [scenario] seed: expected a "
     "whole number from 0 to 18446744073709551615, got 'abc'\n"},
    {"run-policy-twice-in-stack",
     BASE,
     {"run", "@F", "--policy", "exponential+exponential", NULL},
     "stormbench run: --policy: policy 'exponential' appears twice in the "
     "stack 'exponential+exponential'\n"},
    {"run-param-bad-value",
     BASE,
     {"run", "@F", "--policy", "exponential", "--param", "base=fast", NULL},
     "stormbench run: --param base: expected a duration with a unit (ns, "
     "us, ms, s, m, h), such as 250ms or 2s, got 'fast'\n"},
    {"run-param-unknown",
     BASE,
     {"run", "@F", "--policy", "exponential", "--param", "bsae=1s", NULL},
     "stormbench run: --param bsae: policy 'exponential' has no such "
     "parameter; its parameters are: base, multiplier, cap, max_attempts, "
     "jitter, ratio\n"},
    {"run-hook-timeout-word",
     BASE,
     {"run", "@F", "--hook-timeout", "abc", NULL},
     "stormbench run: --hook-timeout: expected a positive duration of wall "
     "time such as 200ms or 5s, got 'abc'\nTry 'stormbench run --help'.\n"},
    {"run-hook-timeout-zero",
     BASE,
     {"run", "@F", "--hook-timeout", "0s", NULL},
     "stormbench run: --hook-timeout: expected a positive duration of wall "
     "time such as 200ms or 5s, got '0s'\nTry 'stormbench run --help'.\n"},
    {"run-hook-timeout-no-unit",
     BASE,
     {"run", "@F", "--hook-timeout", "200", NULL},
     "stormbench run: --hook-timeout: expected a positive duration of wall "
     "time such as 200ms or 5s, got '200'\nTry 'stormbench run --help'.\n"},
    {"run-hook-timeout-missing",
     BASE,
     {"run", "@F", "--hook-timeout", NULL},
     "stormbench run: option --hook-timeout needs a value\nTry 'stormbench "
     "run --help'.\n"},
    {"run-two-scenarios",
     BASE,
     {"run", "@F", "@F", NULL},
     "stormbench run: one scenario at a time (got '@F' and '@F')\nTry "
     "'stormbench run --help'.\n"},
    {"run-unknown-short-option",
     BASE,
     {"run", "@F", "-x", NULL},
     "stormbench run: unknown option '-x'\nTry 'stormbench run --help'.\n"},
    /* A near miss of an option names the option meant (its help lists
     * them); one near nothing does not guess. */
    {"run-option-misspelt",
     BASE,
     {"run", "@F", "--polcy", "none", NULL},
     "stormbench run: unknown option '--polcy' (did you mean '--policy'?)\n"
     "Try 'stormbench run --help'.\n"},
    {"run-option-misspelt-with-value",
     BASE,
     {"run", "@F", "--jsn=x.json", NULL},
     "stormbench run: unknown option '--jsn=x.json' (did you mean "
     "'--json'?)\nTry 'stormbench run --help'.\n"},
    /* Two at one edit: both are named. */
    {"gui-option-misspelt",
     BASE,
     {"gui", "@F", "--sped", "2", NULL},
     "stormbench gui: unknown option '--sped' (did you mean '--seed' or "
     "'--speed'?)\nTry 'stormbench gui --help'.\n"},
    {"validate-option-misspelt",
     BASE,
     {"validate", "@F", "--no-plugin", NULL},
     "stormbench validate: unknown option '--no-plugin' (did you mean "
     "'--no-plugins'?)\nTry 'stormbench validate --help'.\n"},
    {"policies-option-misspelt",
     NULL,
     {"policies", "--policy-plugn", "x.so", NULL},
     "stormbench policies: unknown option '--policy-plugn' (did you mean "
     "'--policy-plugin'?)\nTry 'stormbench policies --help'.\n"},
    {"run-plugin-missing-value",
     BASE,
     {"run", "@F", "--policy-plugin", NULL},
     "stormbench run: option --policy-plugin needs a value\nTry 'stormbench "
     "run --help'.\n"},
    {"run-json-empty",
     BASE,
     {"run", "@F", "--json=", NULL},
     "stormbench run: --json: expected a value, got ''\nTry 'stormbench run "
     "--help'.\n"},
    {"run-seed-negative",
     BASE,
     {"run", "@F", "--seed=-1", NULL},
     "stormbench run: --seed: expected a whole number from 0 to "
     "18446744073709551615, got '-1'\nTry 'stormbench run --help'.\n"},
    {"run-set-empty",
     BASE,
     {"run", "@F", "--set=", NULL},
     "stormbench run: --set : expected section.key=value\n"},
    {"validate-no-file",
     NULL,
     {"validate", NULL},
     "stormbench validate: no scenario file given\nTry 'stormbench validate "
     "--help'.\n"},
    {"validate-unknown-option",
     BASE,
     {"validate", "--bogus", "@F", NULL},
     "stormbench validate: unknown option '--bogus'\nTry 'stormbench "
     "validate --help'.\n"},
    {"validate-missing-file",
     NULL,
     {"validate", "/nonexistent/x.ini", NULL},
     "/nonexistent/x.ini: cannot open scenario file: No such file or "
     "directory\n"},
    {"validate-plugin-missing-value",
     BASE,
     {"validate", "@F", "--policy-plugin", NULL},
     "stormbench validate: option --policy-plugin needs a value\nTry "
     "'stormbench validate --help'.\n"},
    {"validate-bad-file",
     BASE "[server]\nworkers = 0\n",
     {"validate", "@F", NULL},
     "@F:11: section [server] appears twice (first at line 7)\n"},
    {"policies-unknown-option",
     NULL,
     {"policies", "--bogus", NULL},
     "stormbench policies: unknown option '--bogus'\nTry 'stormbench "
     "policies --help'.\n"},
    /* The first name used to be dropped without a word. */
    {"policies-two-names",
     NULL,
     {"policies", "none", "fixed", NULL},
     "stormbench policies: one policy name at a time (got 'none' and "
     "'fixed')\nTry 'stormbench policies --help'.\n"},
    {"decide-nothing",
     NULL,
     {"decide", NULL},
     "stormbench decide: --policy is required\nTry 'stormbench decide "
     "--help'.\n"},
    {"decide-elapsed-word",
     NULL,
     {"decide", "--policy", "exponential", "--error", "timeout", "--attempt",
      "1", "--elapsed", "abc", NULL},
     "stormbench decide: --elapsed: expected a duration with a unit (ns, "
     "us, ms, s, m, h), such as 250ms or 2s, got 'abc'\nTry 'stormbench "
     "decide --help'.\n"},
    {"decide-deadline-negative",
     NULL,
     {"decide", "--policy", "exponential", "--error", "timeout", "--attempt",
      "1", "--deadline", "-1s", NULL},
     "stormbench decide: --deadline: 'none' or expected a non-negative "
     "duration, got '-1s'\nTry 'stormbench decide --help'.\n"},
    {"decide-retry-after-word",
     NULL,
     {"decide", "--policy", "exponential", "--error", "timeout", "--attempt",
      "1", "--retry-after", "soon", NULL},
     "stormbench decide: --retry-after: expected a duration with a unit "
     "(ns, us, ms, s, m, h), such as 250ms or 2s, got 'soon'\nTry "
     "'stormbench decide --help'.\n"},
    {"decide-seed-word",
     NULL,
     {"decide", "--policy", "exponential", "--error", "timeout", "--attempt",
      "1", "--seed", "abc", NULL},
     "stormbench decide: --seed: expected a whole number from 0 to "
     "18446744073709551615, got 'abc'\nTry 'stormbench decide --help'.\n"},
#ifdef SB_HAVE_VIZ /* without the GUI, `gui` says so before its options */
    {"gui-speed-word",
     BASE,
     {"gui", "@F", "--speed", "fast", NULL},
     "stormbench gui: --speed: expected a number of simulated seconds per "
     "second (such as 10) or 'max', got 'fast'\nTry 'stormbench gui "
     "--help'.\n"},
    {"gui-size-half",
     BASE,
     {"gui", "@F", "--size", "10x", NULL},
     "stormbench gui: --size: expected WIDTHxHEIGHT, at least 960x600, got "
     "'10x'\nTry 'stormbench gui --help'.\n"},
    {"gui-fps-zero",
     BASE,
     {"gui", "@F", "--fps", "0", NULL},
     "stormbench gui: --fps: expected 1 to 240, got '0'\nTry 'stormbench "
     "gui --help'.\n"},
    {"gui-until-word",
     BASE,
     {"gui", "@F", "--until", "later", NULL},
     "stormbench gui: --until: expected a duration with a unit (ns, us, ms, "
     "s, m, h), such as 250ms or 2s, got 'later'\nTry 'stormbench gui "
     "--help'.\n"},
    {"gui-span-zero",
     BASE,
     {"gui", "@F", "--span", "0s", NULL},
     "stormbench gui: --span: expected a positive duration, got '0s'\nTry "
     "'stormbench gui --help'.\n"},
#endif
    {"gui-unknown-option",
     BASE,
     {"gui", "@F", "--bogus", NULL},
     "stormbench gui: unknown option '--bogus'\nTry 'stormbench gui "
     "--help'.\n"},
    {"gui-hook-timeout-word",
     BASE,
     {"gui", "@F", "--hook-timeout", "abc", NULL},
     "stormbench gui: --hook-timeout: expected a positive duration of wall "
     "time such as 200ms or 5s, got 'abc'\nTry 'stormbench gui --help'.\n"},
    {"gui-two-scenarios",
     BASE,
     {"gui", "@F", "@F", NULL},
     "stormbench gui: one scenario at a time (got '@F' and '@F')\nTry "
     "'stormbench gui --help'.\n"},
    {"plugin-not-a-shared-object",
     BASE,
     {"run", "@F", "--policy-plugin", "@N", NULL},
     "stormbench run: @N: cannot load policy plug-in: @N: file too short\n"},
    {"plugin-empty-file",
     BASE,
     {"run", "@F", "--policy-plugin", "@E", NULL},
     "stormbench run: @E: cannot load policy plug-in: @E: file too short\n"},
    {"plugin-directory",
     BASE,
     {"run", "@F", "--policy-plugin", "/tmp", NULL},
     "stormbench run: /tmp: cannot load policy plug-in: /tmp: cannot read "
     "file data: Is a directory\n"},
    {"plugin-same-name-twice",
     BASE,
     {"run", "@F", "--policy-plugin", PLUGIN_DIR "libsbt_ok.so",
      "--policy-plugin", PLUGIN_DIR "libsbt_ok.so", "--policy", "sbt_ok", NULL},
     "stormbench run: " PLUGIN_DIR "libsbt_ok.so and " PLUGIN_DIR
     "libsbt_ok.so both define policy 'sbt_ok'; load one of them\n"},
    {"plugin-missing-in-file",
     BASE "plugin = nowhere/libx.so\n",
     {"run", "@F", NULL},
     "stormbench run: @d/nowhere/libx.so: cannot load policy plug-in: "
     "@d/nowhere/libx.so: cannot open shared object file: No such file or "
     "directory\n"},
    {"plugin-wrong-abi-policies",
     NULL,
     {"policies", "--policy-plugin", PLUGIN_DIR "libsbt_abi.so", NULL},
     "stormbench policies: " PLUGIN_DIR
     "libsbt_abi.so: policy plug-in built for policy ABI 1.0, but this "
     "stormbench speaks policy ABI 2.2: rebuild it against this version's "
     "stormbench/policy.h\n"},
    {"plugin-no-entry-validate",
     BASE,
     {"validate", "--policy-plugin", PLUGIN_DIR "libsbt_no_entry.so", "@F",
      NULL},
     "@F: " PLUGIN_DIR
     "libsbt_no_entry.so: not a stormbench policy plug-in: it exports no "
     "'sb_policy_plugin' function (see policies/examples/)\n"},
    {"scenario-seed-negative",
     "[scenario]\nname = t\nduration = 60s\nseed = -1\n",
     {"run", "@F", NULL},
     "stormbench run: @F:4: [scenario] seed: expected a whole number from 0 "
     "to 18446744073709551615, got '-1'\n"},
    {"scenario-seed-word",
     "[scenario]\nname = t\nduration = 60s\nseed = abc\n",
     {"run", "@F", NULL},
     "stormbench run: @F:4: [scenario] seed: expected a whole number from 0 "
     "to 18446744073709551615, got 'abc'\n"},
    {"scenario-seed-past-uint64",
     "[scenario]\nname = t\nduration = 60s\nseed = 18446744073709551616\n",
     {"run", "@F", NULL},
     "stormbench run: @F:4: [scenario] seed: expected a whole number from 0 "
     "to 18446744073709551615, got '18446744073709551616'\n"},
    {"scenario-warmup-word",
     "[scenario]\nname = t\nduration = 60s\nwarmup = soon\n",
     {"run", "@F", NULL},
     "stormbench run: @F:4: [scenario] warmup: expected a duration with a "
     "unit (ns, us, ms, s, m, h), such as 250ms or 2s, got 'soon'\n"},
    {"scenario-bucket-zero",
     "[scenario]\nname = t\nduration = 60s\nbucket = 0s\n",
     {"run", "@F", NULL},
     "stormbench run: @F:4: [scenario] bucket: expected a positive "
     "duration, got '0s'\n"},
    {"scenario-unknown-key",
     "[scenario]\nname = t\nduration = 60s\nlength = 60s\n",
     {"run", "@F", NULL},
     "stormbench run: @F:4: [scenario] unknown key 'length'; known keys: "
     "name, description, duration, seed, branch, warmup, bucket, recovery_window\n"},
    {"scenario-duration-bad-unit",
     "[scenario]\nname = t\nduration = 60 parsecs\n",
     {"run", "@F", NULL},
     "stormbench run: @F:3: [scenario] duration: expected a duration with a "
     "unit (ns, us, ms, s, m, h), such as 250ms or 2s, got '60 parsecs' "
     "(unknown unit 'parsecs')\n"},
    {"clients-count-zero",
     "[scenario]\nname = t\nduration = 60s\n[server]\nworkers = "
     "2\n[policy]\nname = none\n[clients]\ncount = 0\n",
     {"run", "@F", NULL},
     "stormbench run: @F:9: [clients] count: expected a whole number from 1 "
     "to 100000000, got '0'\n"},
    {"clients-count-too-many",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = "
     "1000000000\nrate = 1/s\n[server]\nworkers = 2\n[policy]\nname = none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:5: [clients] count: expected a whole number from 1 "
     "to 100000000, got '1000000000'\n"},
    {"clients-processes-zero",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = "
     "10\nprocesses = 0\nrate = 1/s\n[server]\nworkers = 2\n[policy]\nname "
     "= none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:6: [clients] processes: expected a whole number "
     "from 1 to 100000000, got '0'\n"},
    {"clients-arrival-unknown",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\narrival "
     "= sometimes\nrate = 1/s\n[server]\nworkers = 2\n[policy]\nname = "
     "none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:6: [clients] arrival: expected one of open, "
     "closed, once, or trace(FILE) to replay a trace's requests, got "
     "'sometimes'\n"},
    {"clients-timeout-negative",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\ntimeout "
     "= -1s\nrate = 1/s\n[server]\nworkers = 2\n[policy]\nname = none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:6: [clients] timeout: expected a non-negative "
     "duration, got '-1s'\n"},
    {"clients-deadline-word",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\ndeadline "
     "= soon\nrate = 1/s\n[server]\nworkers = 2\n[policy]\nname = none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:6: [clients] deadline: 'none' or: expected a "
     "duration with a unit (ns, us, ms, s, m, h), such as 250ms or 2s, got "
     "'soon'\n"},
    {"clients-keys-not-bool",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = "
     "10\nidempotency_keys = maybe\nrate = 1/s\n[server]\nworkers = "
     "2\n[policy]\nname = none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:6: [clients] idempotency_keys: expected true or "
     "false, got 'maybe'\n"},
    {"clients-critical-above-one",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = "
     "10\ncritical_fraction = 2\nrate = 1/s\n[server]\nworkers = "
     "2\n[policy]\nname = none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:6: [clients] critical_fraction: expected a "
     "probability between 0 and 1, or a percentage from 0% to 100%, got "
     "'2'\n"},
    {"clients-think-bad-dist",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\narrival "
     "= closed\nthink = exp(abc)\n[server]\nworkers = 2\n[policy]\nname = "
     "none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:7: [clients] think: in 'exp(abc)': expected a "
     "duration with a unit (ns, us, ms, s, m, h), such as 250ms or 2s, got "
     "'abc'\n"},
    {"clients-connections-zero",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = "
     "10\nconnections = 0\nrate = 1/s\n[server]\nworkers = "
     "2\n[policy]\nname = none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:6: [clients] connections: expected a whole number "
     "from 1 to 100000000, or 'unlimited', got '0'\n"},
    {"clients-rate-negative",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "-1/s\n[server]\nworkers = 2\n[policy]\nname = none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:6: [clients] rate: expected a non-negative rate, "
     "got '-1/s'\n"},
    {"clients-rate-bad-unit",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/fortnight\n[server]\nworkers = 2\n[policy]\nname = none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:6: [clients] rate: expected a rate such as 100/s, "
     "6000/m or 10/h, got '1/fortnight' (unknown unit '/fortnight')\n"},
    {"server-model-unknown",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/s\n[server]\nworkers = 2\nmodel = sql\n[policy]\nname = none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:9: [server] model: expected one of "
     "queue|hot_record, got 'sql'\n"},
    {"server-queue-limit-negative",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/s\n[server]\nworkers = 2\nqueue_limit = -1\n[policy]\nname = none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:9: [server] queue_limit: expected a whole number "
     "from 0 to 100000000, or 'unlimited', got '-1'\n"},
    {"server-overflow-unknown",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/s\n[server]\nworkers = 2\noverflow = explode\n[policy]\nname = "
     "none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:9: [server] overflow: expected one of reject|drop, "
     "got 'explode'\n"},
    {"server-queue-order-unknown",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/s\n[server]\nworkers = 2\nqueue_order = random\n[policy]\nname = "
     "none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:9: [server] queue_order: expected one of "
     "fifo|lifo, got 'random'\n"},
    {"server-retry-after-word",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/s\n[server]\nworkers = 2\nretry_after = soon\n[policy]\nname = "
     "none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:9: [server] retry_after: 'none' or: expected a "
     "duration with a unit (ns, us, ms, s, m, h), such as 250ms or 2s, got "
     "'soon'\n"},
    {"server-degradation-negative",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/s\n[server]\nworkers = 2\ndegradation = -1\ndegradation_knee = "
     "4\n[policy]\nname = none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:9: [server] degradation: expected a number from 0 "
     "to 100, got '-1'\n"},
    {"server-lognormal-one-argument",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/s\n[server]\nworkers = 2\nnetwork_delay = "
     "lognormal(1ms)\n[policy]\nname = none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:9: [server] network_delay: in 'lognormal(1ms)': "
     "lognormal takes a median and a sigma, such as lognormal(80ms, 0.5)\n"},
    {"server-rate-limit-word",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/s\n[server]\nworkers = 2\nrate_limit = fast\n[policy]\nname = none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:9: [server] rate_limit: expected a rate such as "
     "100/s, 6000/m or 10/h, got 'fast'\n"},
    {"server-drop-expired-not-bool",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/s\n[server]\nworkers = 2\ndrop_expired = perhaps\n[policy]\nname = "
     "none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:9: [server] drop_expired: expected true or false, "
     "got 'perhaps'\n"},
    {"server-dedupe-answer-unknown",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/s\n[server]\nworkers = 2\ndedupe_answer = ignore\n[policy]\nname = "
     "none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:9: [server] dedupe_answer: expected one of "
     "replay|conflict, got 'ignore'\n"},
    {"server-occ-unknown",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/s\n[server]\nworkers = 2\nmodel = hot_record\nocc = "
     "three_steps\n[policy]\nname = none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:10: [server] occ: expected one of "
     "one_step|two_round_trips, got 'three_steps'\n"},
    {"server-service-negative",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/s\n[server]\nworkers = 2\nservice = const(-1ms)\n[policy]\nname = "
     "none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:9: [server] service: in 'const(-1ms)': expected a "
     "non-negative duration, got '-1ms'\n"},
    {"server-exp-no-unit",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/s\n[server]\nworkers = 2\nservice = exp(10)\n[policy]\nname = none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:9: [server] service: in 'exp(10)': expected a "
     "duration with a unit (ns, us, ms, s, m, h), such as 250ms or 2s, got "
     "'10' (no unit)\n"},
    {"server-burst-zero",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/s\n[server]\nworkers = 2\nrate_limit = 10/s\nrate_limit_burst = "
     "0\n[policy]\nname = none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:10: [server] rate_limit_burst: expected a whole "
     "number from 1 to 10000000, got '0'\n"},
    {"fault-start-negative",
     BASE "[fault.a]\ntype = outage\nstart = -1s\nduration = 5s\n",
     {"run", "@F", NULL},
     "stormbench run: @F:13: [fault.a] start: expected a non-negative "
     "duration, got '-1s'\n"},
    {"fault-outage-mode-unknown",
     BASE
     "[fault.a]\ntype = outage\nstart = 10s\nduration = 5s\nmode = partial\n",
     {"run", "@F", NULL},
     "stormbench run: @F:15: [fault.a] mode: expected one of "
     "refuse|blackhole, got 'partial'\n"},
    {"fault-spike-multiplier-zero",
     BASE
     "[fault.a]\ntype = load_spike\nstart = 10s\nduration = 5s\nmultiplier "
     "= 0\n",
     {"run", "@F", NULL},
     "stormbench run: @F:15: [fault.a] multiplier: expected a number from "
     "0.001 to 1000, got '0'\n"},
    {"fault-errors-status-999",
     BASE "[fault.a]\ntype = errors\nstart = 10s\nduration = 5s\nstatus = "
          "999\nprobability = 0.5\n",
     {"run", "@F", NULL},
     "stormbench run: @F:15: [fault.a] status: expected an HTTP status "
     "(100-599), a gRPC code name such as UNAVAILABLE, or 'reset', got "
     "'999'\n"},
    {"fault-errors-probability-two",
     BASE "[fault.a]\ntype = errors\nstart = 10s\nduration = 5s\nstatus = "
          "503\nprobability = 2\n",
     {"run", "@F", NULL},
     "stormbench run: @F:16: [fault.a] probability: expected a probability "
     "between 0 and 1, or a percentage from 0% to 100%, got '2'\n"},
    {"fault-partition-fraction-negative",
     BASE "[fault.a]\ntype = partition\nstart = 10s\nduration = 5s\nfraction = "
          "-0.1\n",
     {"run", "@F", NULL},
     "stormbench run: @F:15: [fault.a] fraction: expected a probability "
     "between 0 and 1, or a percentage from 0% to 100%, got '-0.1'\n"},
    {"fault-latency-without-delay",
     BASE "[fault.a]\ntype = latency\nstart = 10s\nduration = 5s\n",
     {"run", "@F", NULL},
     "stormbench run: @F:11: [fault.a] a fault of type 'latency' needs "
     "'delay'\n"},
    {"fault-name-with-space",
     BASE "[fault.a b]\ntype = outage\nstart = 10s\nduration = 5s\n",
     {"run", "@F", NULL},
     "stormbench run: @F:11: unknown section [fault.a b]; known sections: "
     "[scenario], [clients], [server], [policy], [expect], [fault.NAME], "
     "[server.NAME], [policy.NAME], [expect.NAME], [pipeline], "
     "[step.NAME]\n"},
    {"fault-name-empty",
     BASE "[fault.]\ntype = outage\nstart = 10s\nduration = 5s\n",
     {"run", "@F", NULL},
     "stormbench run: @F:11: unknown section [fault.]; known sections: "
     "[scenario], [clients], [server], [policy], [expect], [fault.NAME], "
     "[server.NAME], [policy.NAME], [expect.NAME], [pipeline], "
     "[step.NAME]\n"},
    {"fault-capacity-workers-zero",
     BASE
     "[fault.a]\ntype = capacity\nstart = 10s\nduration = 5s\nworkers = -1\n",
     {"run", "@F", NULL},
     "stormbench run: @F:15: [fault.a] workers: expected a whole number "
     "from 0 to 10000000, got '-1'\n"},
    {"fault-slowdown-multiplier-word",
     BASE
     "[fault.a]\ntype = slowdown\nstart = 10s\nduration = 5s\nmultiplier = "
     "lots\n",
     {"run", "@F", NULL},
     "stormbench run: @F:15: [fault.a] multiplier: expected a number from "
     "0.001 to 1000, got 'lots'\n"},
    {"fault-lost-ack-probability-word",
     BASE
     "[fault.a]\ntype = lost_ack\nstart = 10s\nduration = 5s\nprobability = "
     "half\n",
     {"run", "@F", NULL},
     "stormbench run: @F:15: [fault.a] probability: expected a probability "
     "between 0 and 1, or a percentage from 0% to 100%, got 'half'\n"},
    {"fault-client-timeout-zero",
     BASE
     "[fault.a]\ntype = client_timeout\nstart = 10s\nduration = 5s\ntimeout "
     "= 0s\n",
     {"run", "@F", NULL},
     "stormbench run: @F:15: [fault.a] timeout: expected a positive "
     "duration, got '0s'\n"},
    {"fault-rate-limit-burst-word",
     BASE "[fault.a]\ntype = rate_limit\nstart = 10s\nduration = 5s\nrate = "
          "10/s\nburst = big\n",
     {"run", "@F", NULL},
     "stormbench run: @F:16: [fault.a] burst: expected a whole number from "
     "1 to 10000000, got 'big'\n"},
    {"fault-twice",
     BASE
     "[fault.a]\ntype = outage\nstart = 10s\nduration = 5s\n[fault.a]\ntype "
     "= outage\nstart = 20s\nduration = 5s\n",
     {"run", "@F", NULL},
     "stormbench run: @F:15: section [fault.a] appears twice (first at line "
     "11)\n"},
    {"set-fault-unknown-key",
     BASE "[fault.a]\ntype = outage\nstart = 10s\nduration = 5s\n",
     {"run", "@F", "--set", "fault.a.strat=20s", NULL},
     "stormbench run: --set fault.a.strat=20s: [fault.a] unknown key "
     "'strat' (did you mean 'start'?); known keys: type, start, duration, "
     "every, mode, target\n"},
    {"policy-param-wrong-type",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/s\n[server]\nworkers = 2\n[policy]\nname = exponential\nbase = "
     "fast\n",
     {"run", "@F", NULL},
     "stormbench run: @F:11: [policy] base: expected a duration with a unit "
     "(ns, us, ms, s, m, h), such as 250ms or 2s, got 'fast'\n"},
    {"policy-name-missing",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/s\n[server]\nworkers = 2\n[policy]\nbase = 1s\n",
     {"run", "@F", NULL},
     "stormbench run: @F:10: [policy] base: policy 'none' has no such "
     "parameter; it has no parameters\n"},
    {"policy-layer-alone-twice",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/s\n[server]\nworkers = 2\n[policy]\nname = "
     "token_bucket+token_bucket\n",
     {"run", "@F", NULL},
     "stormbench run: @F:10: [policy] name: policy 'token_bucket' appears "
     "twice in the stack 'token_bucket+token_bucket'\n"},
    {"expect-success-above-one",
     BASE "[expect]\nsuccess_min = 2\n",
     {"run", "@F", NULL},
     "stormbench run: @F:12: [expect] success_min: expected a share between "
     "0 and 1, or a percentage from 0% to 100%, got '2'\n"},
    {"expect-recovers-within-word",
     BASE "[expect]\nrecovers_within = soon\n",
     {"run", "@F", NULL},
     "stormbench run: @F:12: [expect] recovers_within: expected a duration "
     "with a unit (ns, us, ms, s, m, h), such as 250ms or 2s, got 'soon'\n"},
    {"expect-amplification-negative",
     BASE "[expect]\namplification_max = -1\n",
     {"run", "@F", NULL},
     "stormbench run: @F:12: [expect] amplification_max: expected a number "
     "of at least 1 (attempts per offered request), got '-1'\n"},
    {"expect-duplicates-fraction",
     BASE "[expect]\nduplicates_max = 1.5\n",
     {"run", "@F", NULL},
     "stormbench run: @F:12: [expect] duplicates_max: expected a whole "
     "number of at least 0, got '1.5'\n"},
    {"header-trailing-text",
     "[scenario]\nname = t\nduration = 60s\n[clients]\ncount = 10\nrate = "
     "1/s\n[server] junk\nworkers = 2\n[policy]\nname = none\n",
     {"run", "@F", NULL},
     "stormbench run: @F:7: unexpected text after section header [server]\n"},
};
#define N_CASES (int)(sizeof cases / sizeof *cases)

static char scenario_file[1024], scenario_dir[1024];
static char not_so[1024], empty_so[1024];

/* tmpl with @F, @d, @N and @E replaced, into a static buffer of its own
 * (slot): each argument keeps its own. */
static const char *subst(const char *tmpl, int slot)
{
    static char buf[16][4096];
    char *o = buf[slot];
    size_t n = 0;
    for (const char *p = tmpl; *p && n < sizeof buf[slot] - 1; p++) {
        const char *with = NULL;
        if (p[0] == '@' && p[1] == 'F')
            with = scenario_file;
        else if (p[0] == '@' && p[1] == 'd')
            with = scenario_dir;
        else if (p[0] == '@' && p[1] == 'N')
            with = not_so;
        else if (p[0] == '@' && p[1] == 'E')
            with = empty_so;
        if (with) {
            n += (size_t)snprintf(o + n, sizeof buf[slot] - n, "%s", with);
            p++;
        } else {
            o[n++] = *p;
        }
    }
    o[n < sizeof buf[slot] ? n : sizeof buf[slot] - 1] = '\0';
    return o;
}

static int files_in(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    int n = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;)
        n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    closedir(d);
    return n;
}

START_TEST(malformed_input_is_named_and_refused)
{
    const malformed *c = &cases[_i];
    char file[96];
    snprintf(file, sizeof file, "mal-%s.ini", c->name);
    snprintf(scenario_file, sizeof scenario_file, "%s",
             c->ini ? tu_write_temp(file, c->ini) : tu_temp_path(file));
    snprintf(scenario_dir, sizeof scenario_dir, "%s", scenario_file);
    *strrchr(scenario_dir, '/') = '\0';
    snprintf(not_so, sizeof not_so, "%s",
             tu_write_temp("mal-notaso.so", "this is text\n"));
    snprintf(empty_so, sizeof empty_so, "%s",
             tu_write_temp("mal-empty.so", ""));

    /* run: --json and --csv into a directory of their own, first, so the
     * case's own arguments (a missing value at the end) stay last. */
    char out_dir[1024], json[1100], csv[1100];
    snprintf(out_dir, sizeof out_dir, "%s", tu_temp_path("mal-out"));
    snprintf(json, sizeof json, "%s/run.json", out_dir);
    snprintf(csv, sizeof csv, "%s/run.csv", out_dir);
    bool run = strcmp(c->argv[0], "run") == 0;
    const char *argl[20];
    int n = 0, slot = 0;
    argl[n++] = c->argv[0];
    if (run) {
        argl[n++] = "--json";
        argl[n++] = json;
        argl[n++] = "--csv";
        argl[n++] = csv;
    }
    for (int i = 1; c->argv[i]; i++)
        argl[n++] = subst(c->argv[i], slot++);
    argl[n] = NULL;

    tu_output o;
    tu_stormbench(&o, argl);
    ck_assert_msg(o.status == EXIT_INPUT, "%s: exit %d, stderr: %s", c->name,
                  o.status, o.err);
    ck_assert_str_eq(o.out, "");
    ck_assert_str_eq(o.err, subst(c->err, 15));
    tu_output_free(&o);
    if (run)
        ck_assert_msg(files_in(out_dir) == 0, "%s: left a file in %s", c->name,
                      out_dir);
}
END_TEST

/* Together with check_scenario_errors.c's 65, over 100 malformed inputs
 * (issue 10); each name is one input, named once. */
START_TEST(cases_are_distinct)
{
    for (int i = 0; i < N_CASES; i++)
        for (int j = 0; j < i; j++)
            ck_assert_msg(strcmp(cases[i].name, cases[j].name) != 0,
                          "case '%s' twice", cases[i].name);
    ck_assert_int_ge(N_CASES + 65, 100);
}
END_TEST

Suite *malformed_suite(void)
{
    Suite *s = suite_create("malformed");
    TCase *tc = tcase_create("malformed");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, malformed_input_is_named_and_refused, 0, N_CASES);
    tcase_add_test(tc, cases_are_distinct);
    suite_add_tcase(s, tc);
    return s;
}
