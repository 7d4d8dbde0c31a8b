/*
 * check_scenario_writer.c -- a scenario written back (scenarios/writer.h)
 * loads into the same config, bit for bit, and keeps its policy and
 * expectations: what the GUI's "save as scenario" relies on to make a
 * storm found by hand reproduce headless.
 */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenario.h"
#include "keys.h"
#include "scenario_same.h"
#include "testutil.h"
#include "writer.h"

/* Write cfg and x to a file and load it into *b.  0, or -1 with the
 * writer's or the loader's message in e. */
static int write_and_load(const sim_config *cfg, const writer_extra *x,
                          scenario *b, sb_err *e)
{
    char out[1024];
    snprintf(out, sizeof out, "%s", tu_temp_path("written.ini"));
    FILE *f = fopen(out, "w");
    ck_assert_ptr_nonnull(f);
    int rc = scenario_write(f, cfg, x, e);
    ck_assert_int_eq(fclose(f), 0);
    if (rc != 0)
        return -1;
    if (scenario_load(out, NULL, 0, b, e) != 0)
        return err_prefix(e, "written back, it does not load");
    return 0;
}

/* Load path, write it, load the result: the two must run the same run
 * (scenario_same.h: equal byte for byte but for where things were
 * written).  Returns the scenario loaded back. */
static const scenario *round_trip(const char *path)
{
    static scenario a, b;
    sb_err e;
    if (scenario_load(path, NULL, 0, &a, &e) != 0)
        ck_abort_msg("%s", e.msg);
    const char *plugins[SCENARIO_MAX_PLUGINS];
    for (int i = 0; i < a.n_plugins; i++)
        plugins[i] = a.plugins[i];
    writer_extra x = {"written back\nby the test",
                      a.policy,
                      a.settings,
                      a.n_settings,
                      plugins,
                      a.n_plugins,
                      a.expect,
                      a.n_expect,
                      a.policy_from};
    if (write_and_load(&a.cfg, &x, &b, &e) != 0)
        ck_abort_msg("%s: %s", path, e.msg);
    /* Compared on copies: the caller reads b's origins. */
    static scenario ca, cb;
    memcpy(&ca, &a, sizeof a);
    memcpy(&cb, &b, sizeof b);
    const char *part = scenario_differs(&ca, &cb);
    ck_assert_msg(part == NULL, "%s: %s differs after a round trip", path,
                  part);
    return &b;
}

/* Every shipped scenario (each .ini in scenarios/, chains and pipelines
 * included, new ones too) and the benchmark's. */
START_TEST(shipped_scenarios_round_trip)
{
    DIR *d = opendir(TU_SOURCE("scenarios"));
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        size_t len = strlen(de->d_name);
        if (len < 4 || strcmp(de->d_name + len - 4, ".ini") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", TU_SOURCE("scenarios"),
                 de->d_name);
        round_trip(path);
        n++;
    }
    closedir(d);
    ck_assert_int_ge(n, 19); /* 19 in the library when this was written */
    round_trip(TU_SOURCE("bench/storm-10k.ini"));
}
END_TEST

/* Every key in a context where the loader takes it, every fault type,
 * numbers that have no short exact decimal form. */
static const char every_key_ini[] =
    "[scenario]\nname = all-keys\ndescription = every key once\n"
    "duration = 123456789123ns\nseed = 987654321\nwarmup = 1.5s\n"
    "branch = 12.5s:9e3779b97f4a7c15 40000000001ns:1\n"
    "bucket = 250ms\nrecovery_window = 7s\n"
    "[clients]\ncount = 333\nprocesses = 7\nconnections = 9\n"
    "call_time = 37us\narrival = closed\n"
    "think = lognormal(80ms, 0.123456789012345)\n"
    "read = 0.1\nput = 0.2\npost = 0.7\ntimeout = 900ms\n"
    "deadline = 4s\nidempotency_keys = true\n"
    "defect_fraction = 0.0333333333333333\ncritical_fraction = 0.01\n"
    "[server]\nmodel = hot_record\nocc = two_round_trips\n"
    "read_service = exp(3ms)\ndrop_late = true\n"
    "workers = 17\nqueue_limit = 40\n"
    "overflow = reject\nqueue_order = lifo\nretry_after = 3s\n"
    "service = normal(10ms, 3ms)\ndegradation = 0.05\n"
    "degradation_knee = 12\nnetwork_delay = uniform(1ms, 3ms)\n"
    "rate_limit = 123.456/s\nrate_limit_burst = 4\ndrop_expired = true\n"
    "idempotency = false\ndedupe_answer = conflict\n"
    "[policy]\nname = exponential+token_bucket\nbase = 20ms\n"
    "token_bucket.max_tokens = 20\n"
    "[fault.cap]\ntype = capacity\nstart = 5s\nduration = 1s\n"
    "workers = 3\n"
    "[fault.spike]\ntype = load_spike\nstart = 6s\nduration = exp(1s)\n"
    "every = uniform(10s, 20s)\n"
    "multiplier = 2.718281828459045\n"
    "[fault.out]\ntype = outage\nstart = 7s\nduration = 1s\n"
    "mode = blackhole\n"
    "[fault.slow]\ntype = latency\nstart = 8s\nduration = 1s\n"
    "delay = 150ms\n"
    "[fault.thrash]\ntype = slowdown\nstart = 9s\nduration = 1s\n"
    "multiplier = 3\n"
    "[fault.err]\ntype = errors\nstart = 10s\nduration = 1s\n"
    "status = UNAVAILABLE\nretry_after = 2s\nprobability = 0.3\n"
    "pushback = 250ms\n"
    "[fault.err2]\ntype = errors\nstart = 10s\nduration = 1s\n"
    "status = 503\nprobability = 0.1\n"
    "[fault.stop]\ntype = errors\nstart = 10s\nduration = 1s\n"
    "status = RESOURCE_EXHAUSTED\nprobability = 0.2\npushback = stop\n"
    "[fault.rst]\ntype = errors\nstart = 10s\nduration = 1s\n"
    "status = reset\nprobability = 0.05\n"
    "[fault.lost]\ntype = lost_ack\nstart = 11s\nduration = 1s\n"
    "probability = 0.4\n"
    "[fault.part]\ntype = partition\nstart = 12s\nduration = 1s\n"
    "fraction = 0.25\nmode = refuse\n"
    "[fault.limit]\ntype = rate_limit\nstart = 13s\nduration = 1s\n"
    "rate = 50/s\nburst = 5\n"
    "[fault.impatient]\ntype = client_timeout\nstart = 14s\n"
    "duration = 1s\ntimeout = 120ms\n"
    "[expect]\nsuccess_min = 0.9\nrecovers_within = 30s\n";

START_TEST(every_key_round_trips)
{
    char path[1024];
    snprintf(path, sizeof path, "%s",
             tu_write_temp("all-keys.ini", every_key_ini));
    round_trip(path);
}
END_TEST

/* Open-loop and once clients write their own keys. */
START_TEST(arrival_modes_round_trip)
{
    static const char *const inis[] = {
        "[scenario]\nname = o\nduration = 60s\n[clients]\nrate = 0.1/s\n",
        "[scenario]\nname = o\nduration = 60s\n[clients]\narrival = once\n"
        "start_window = 10s\n[server]\noverflow = drop\n",
    };
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s", tu_write_temp("modes.ini", inis[i]));
        round_trip(path);
    }
}
END_TEST

/* Found by fuzz_scenario (issue 10), two ways a round trip was not bit
 * for bit.  A real number written "-0" loaded as the double -0.0 and was
 * written back as "0", which loads as +0.0: every real key now reads -0
 * as 0 (a negative zero means nothing in a scenario); the lines below put
 * one in three sections.  And a degradation_knee without a positive
 * degradation (the fuzzer's "degradation = -0") was not written back. */
START_TEST(negative_zero_round_trips)
{
    const char *ini =
        "[scenario]\nname = t\nduration = 60s\n"
        "[clients]\ncount = 10\nrate = 1/s\ncritical_fraction = -0\n"
        "[server]\nworkers = 2\ndegradation = -0\ndegradation_knee = 4\n"
        "[fault.f]\ntype = errors\nstart = 10s\nduration = 5s\n"
        "status = 503\nprobability = -0.0\n"
        "[policy]\nname = none\n";
    char path[1024];
    snprintf(path, sizeof path, "%s", tu_write_temp("minus-zero.ini", ini));
    round_trip(path);
}
END_TEST

/* Probabilities written as percentages (issue 21) load as the same
 * doubles as the shares, and the writer's shares load back as them; -0%
 * is 0 as -0 is. */
START_TEST(percent_probabilities_round_trip)
{
    const char *ini =
        "[scenario]\nname = t\nduration = 60s\n"
        "[clients]\ncount = 10\nrate = 1/s\ncritical_fraction = 12.5%\n"
        "defect_fraction = -0%\n"
        "[fault.f]\ntype = errors\nstart = 10s\nduration = 5s\n"
        "status = 503\nprobability = 7%\n"
        "[policy]\nname = none\n";
    char path[1024];
    snprintf(path, sizeof path, "%s", tu_write_temp("percent.ini", ini));
    const scenario *b = round_trip(path);
    ck_assert_double_eq(b->cfg.clients.critical_fraction, 0.125);
    ck_assert_double_eq(b->cfg.clients.defect_fraction, 0.0);
    ck_assert(!signbit(b->cfg.clients.defect_fraction));
}
END_TEST

/* A text value that starts with ';' (written "description =;...": inih
 * takes a ';' only after whitespace for a comment) keeps it when written
 * back -- "description = ;..." would read back empty.  Found by the
 * fuzzer in CI; the same holds for policy parameters and [expect], and
 * for the name (found by the fuzzer in CI again: the writer wrote
 * "name = ;t" by hand, and it read back empty). */
START_TEST(a_value_starting_with_a_semicolon_round_trips)
{
    const char *ini = "[scenario]\nname =;t\nduration = 60s\n"
                      "description =; odd, but it loads\n"
                      "[clients]\ncount = 10\nrate = 1/s\n"
                      "[server]\nworkers = 2\n"
                      "[policy]\nname = none\n";
    char path[1024];
    snprintf(path, sizeof path, "%s", tu_write_temp("semicolon.ini", ini));
    const scenario *b = round_trip(path);
    ck_assert_str_eq(b->cfg.description, "; odd, but it loads");
    ck_assert_str_eq(b->cfg.name, ";t");
}
END_TEST

/* Issue 23: the writer printed the policy names by hand, not through
 * text_kv, so "name =;immediate" was written "name = ;immediate", which
 * reads back as an empty name and a comment: [policy] name, a tier's
 * [policy.NAME] name and a step's policy.  The loader takes such a name
 * (the stack refuses it when the run is built, by its line). */
START_TEST(policy_names_starting_with_a_semicolon_round_trip)
{
    static const char *const inis[] = {
        "[scenario]\nname = t\nduration = 60s\n"
        "[server]\nworkers = 4\ndownstream = db\n[server.db]\n"
        "[policy]\nname =;immediate\n"
        "[policy.top]\nname =;exponential\n",
        "[scenario]\nname = t\nduration = 60s\n"
        "[pipeline]\nsteps = a\n[step.a]\npolicy =;plan\n"};
    static const char *const want[][2] = {{";immediate", ";exponential"},
                                          {"none", ";plan"}};
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s", tu_write_temp("semi.ini", inis[i]));
        const scenario *b = round_trip(path);
        ck_assert_str_eq(b->policy, want[i][0]);
        ck_assert_str_eq(i == 0 ? b->cfg.tiers[0].policy
                                : b->cfg.pipeline.steps[0].policy,
                         want[i][1]);
    }
}
END_TEST

/* A pipeline with every key of [pipeline] and [step.NAME]: a step with a
 * stack of its own and two of its parameters (kept in order), numbers
 * without a short exact form, a -0, a batch, an undo. */
static const char pipeline_ini[] =
    "[scenario]\nname = pipe\nduration = 60s\n"
    "[clients]\ncount = 10\nrate = 1/s\n"
    "[server]\nworkers = 4\n"
    "[policy]\nname = exponential\n"
    "[pipeline]\nsteps = extract, transform, load\n"
    "on_failure = compensate\ncheckpoints = true\nreruns = 7\n"
    "rerun_delay = 1.5s\nsla = 123456789ns\nwarn_retry = 2\n"
    "dead_letter_growth = 5\n"
    "[step.extract]\npolicy = exponential+token_bucket\n"
    "timeout = 250ms\nservice = lognormal(20ms, 0.123456789012345)\n"
    "transient = 0.0333333333333333\npermanent = 0.01\ndefect = -0\n"
    "idempotent = true\nbase = 20ms\ntoken_bucket.max_tokens = 20\n"
    "undo = exp(3ms)\n"
    "[step.transform]\nitems = 1000\nitem_defect = 0.00123456789\n"
    "independent = true\n"
    "[step.load]\n";

START_TEST(pipeline_round_trips)
{
    char path[1024];
    snprintf(path, sizeof path, "%s",
             tu_write_temp("pipe-all.ini", pipeline_ini));
    const scenario *b = round_trip(path);
    /* The round trip compares whole configs; these say the file was read
     * at all (a pipeline dropped by both would compare equal too). */
    const pipeline_cfg *p = &b->cfg.pipeline;
    ck_assert_uint_eq(p->n_steps, 3);
    ck_assert_str_eq(p->steps[0].name, "extract");
    ck_assert_str_eq(p->steps[2].name, "load");
    ck_assert_int_eq(p->strategy, PIPELINE_COMPENSATE);
    ck_assert_str_eq(p->steps[0].policy, "exponential+token_bucket");
    ck_assert_uint_eq(p->steps[0].n_settings, 2);
    ck_assert_str_eq(p->steps[0].settings[1].key, "token_bucket.max_tokens");
    ck_assert(p->steps[0].has_service && p->steps[0].has_undo);
    ck_assert_uint_eq(p->steps[1].items, 1000);
    ck_assert_str_eq(p->steps[1].policy, "");
    ck_assert(!p->steps[2].has_service && !p->steps[2].has_undo);
}
END_TEST

/* The defaults, and what only has_service / has_undo tell apart: a
 * service and an undo of 0 s are the same dist as none at all. */
START_TEST(pipeline_defaults_round_trip)
{
    const char *ini = "[scenario]\nname = pipe\nduration = 60s\n"
                      "[pipeline]\nsteps = only, zero\nsla = 0s\n"
                      "[step.only]\n"
                      "[step.zero]\nservice = 0s\nundo = 0s\n";
    char path[1024];
    snprintf(path, sizeof path, "%s", tu_write_temp("pipe-min.ini", ini));
    const scenario *b = round_trip(path);
    const pipeline_cfg *p = &b->cfg.pipeline;
    ck_assert_uint_eq(p->n_steps, 2);
    ck_assert_int_eq(p->strategy, PIPELINE_FAIL_FAST);
    ck_assert_int_eq(p->sla_ns, 0);
    ck_assert_uint_eq(p->warn_retry, 3);
    ck_assert_uint_eq(p->dead_letter_growth, 3);
    ck_assert(!p->steps[0].has_service && !p->steps[0].has_undo);
    ck_assert(p->steps[1].has_service && p->steps[1].has_undo);
}
END_TEST

/* 63 bytes, the longest name a section header may carry
 * (SIM_NAME_MAX - 1); each differs from the others only in its last
 * byte, past the 42 that fitted before. */
#define N60 "n123456789n123456789n123456789n123456789n123456789n123456789"
#define NAME63(c) N60 "ab" c

/* Names as long as they may be are kept whole (issue 23's class): inih
 * cuts a section's name at 49 bytes (its MAX_SECTION), so the keys of
 * [server.NAME], [fault.NAME] or [step.NAME] went to a section cut to
 * "server." and 42 bytes of NAME: a 63-byte tier was "not part of the
 * service chain", a fault took a shorter name, and two steps equal in
 * their first 44 bytes (after "step.") had "duplicate keys". */
START_TEST(names_as_long_as_allowed_are_kept_whole)
{
    static const char chain[] =
        "[scenario]\nname = long\nduration = 60s\n"
        "[clients]\ncount = 10\nrate = 1/s\n"
        "[server]\nworkers = 4\nname = " NAME63(
            "t") "\n"
                 "downstream = " NAME63(
                     "u") "\n"
                          "[server." NAME63(
                              "u") "]\nworkers = 2\n"
                                   "[policy." NAME63(
                                       "t") "]\nname = exponential\n"
                                            "[expect." NAME63(
                                                "u") "]\nutilization_max = 0.9\n"
                                                     "[fault." NAME63(
                                                         "f") "]\ntype = outage\nstart = 20s\n"
                                                              "duration = 5s\ntarget = " NAME63(
                                                                  "u") "\n"
                                                                       "[fault." NAME63(
                                                                           "g") "]\ntype = latency\nstart = 30s\n"
                                                                                "duration = 5s\ndelay = 1ms\n";
    char path[1024];
    snprintf(path, sizeof path, "%s", tu_write_temp("long-chain.ini", chain));
    const scenario *b = round_trip(path);
    ck_assert_uint_eq(b->cfg.n_tiers, 2);
    ck_assert_str_eq(b->cfg.tiers[0].name, NAME63("t"));
    ck_assert_str_eq(b->cfg.tiers[1].name, NAME63("u"));
    ck_assert_str_eq(b->cfg.tiers[0].policy, "exponential");
    ck_assert(b->cfg.tiers[1].has_expect[TIER_EXPECT_UTILIZATION_MAX]);
    ck_assert_uint_eq(b->cfg.n_faults, 2);
    ck_assert_str_eq(b->cfg.faults[0].name, NAME63("f"));
    ck_assert_uint_eq(b->cfg.faults[0].tier, 1);
    ck_assert_str_eq(b->cfg.faults[1].name, NAME63("g"));
    static const char pipe[] =
        "[scenario]\nname = long\nduration = 60s\n"
        "[pipeline]\nsteps = " NAME63("a") ", " NAME63(
            "b") "\n"
                 "[step." NAME63("a") "]\ntransient = 0.25\n"
                                      "[step." NAME63(
                                          "b") "]\ntransient = 0.5\n";
    snprintf(path, sizeof path, "%s", tu_write_temp("long-pipe.ini", pipe));
    b = round_trip(path);
    ck_assert_uint_eq(b->cfg.pipeline.n_steps, 2);
    ck_assert_str_eq(b->cfg.pipeline.steps[0].name, NAME63("a"));
    ck_assert_double_eq(b->cfg.pipeline.steps[0].transient, 0.25);
    ck_assert_double_eq(b->cfg.pipeline.steps[1].transient, 0.5);
}
END_TEST

/* ---- The writer writes every key of the table -------------------------
 *
 * A key added to the table (scenarios/keys.c) and not to the writer would
 * be lost by every saved scenario: the files the writer makes of these
 * scenarios -- every key above, the two other arrival modes, a chain,
 * the pipeline -- hold every key of every section, each in a section of
 * its kind.  (Refused keys, such as a step's plugin, excepted.) */

/* A chain with everything a chain has: names, a downstream, a tier
 * policy with processes, a deadline and a parameter, each of the four
 * [expect.NAME] keys, a fault with a target, a plug-in. */
static const char chain_ini[] =
    "[scenario]\nname = chain\nduration = 60s\n"
    "[clients]\ncount = 10\nrate = 1/s\n"
    "[server]\nworkers = 8\nname = front\ndownstream = db\n"
    "[server.db]\nworkers = 2\n"
    "[policy]\nname = exponential\nplugin = /opt/lib/libmine.so\n"
    "[policy.front]\nname = exponential\ntimeout = 2s\nprocesses = 2\n"
    "propagate_deadline = true\nmax_attempts = 3\n"
    "[expect.db]\namplification_min = 1\namplification_max = 3\n"
    "utilization_min = 0\nutilization_max = 90%\n"
    "[fault.down]\ntype = outage\nstart = 20s\nduration = 5s\n"
    "target = db\n";

/* Is "[kind...]" then "key =" somewhere in text, in a section of kind? */
static bool written(const char *text, key_section kind, const char *key)
{
    key_section at = KS_NONE;
    size_t klen = strlen(key);
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (line[0] == '[' && len > 2) {
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(len - 2), line + 1);
            at = keys_section_of(name);
        } else if (at == kind && len > klen + 1 &&
                   strncmp(line, key, klen) == 0 &&
                   strncmp(line + klen, " =", 2) == 0) {
            return true;
        }
        line += len + (nl != NULL);
    }
    return false;
}

START_TEST(the_writer_writes_every_key_of_the_table)
{
    static const char *const inis[] = {
        every_key_ini,
        "[scenario]\nname = o\nduration = 60s\n[clients]\nrate = 2/s\n",
        "[scenario]\nname = o\nduration = 60s\n[clients]\narrival = once\n"
        "start_window = 10s\n",
        chain_ini,
        pipeline_ini,
        "[scenario]\nname = o\nduration = 60s\n[clients]\narrival = "
        "trace(" TU_SOURCE("tests/data/access.csv") ", time)\n"
                                                    "trace_scale = 2.5\n",
        "[scenario]\nname = o\nduration = 60s\n[clients]\nrate = "
        "profile(" TU_SOURCE("tests/data/day-profile.csv") ", total)\n",
        "[scenario]\nname = o\nduration = 60s\n[policy]\nfrom = " TU_SOURCE(
            "tests/import/envoy-route.yaml") "#api\n"};
    size_t total = 0;
    char *all = NULL;
    for (size_t i = 0; i < sizeof inis / sizeof *inis; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s", tu_write_temp("keys.ini", inis[i]));
        round_trip(path);
        char *text = tu_read_file(tu_temp_path("written.ini"));
        ck_assert_ptr_nonnull(text);
        all = realloc(all, total + strlen(text) + 1);
        memcpy(all + total, text, strlen(text) + 1);
        total += strlen(text);
        free(text);
    }
    int rows = 0;
    for (key_section s = KS_SCENARIO; s <= KS_STEP; s++) {
        size_t n;
        const key_row *k = keys_of(s, &n);
        for (size_t i = 0; i < n; i++, rows++)
            ck_assert_msg(k[i].parse == key_refused ||
                              written(all, s, k[i].name),
                          "no saved scenario holds %s (section %d): does "
                          "scenarios/writer.c write it?",
                          k[i].name, (int)s);
    }
    ck_assert_int_ge(rows, 90); /* 92 rows when this was written */
    free(all);
}
END_TEST

/* ---- What the GUI hands the writer ------------------------------------
 *
 * The window saves its run with the scenario's policy, parameters and
 * plug-ins plus its own --param and --policy-plugin (cli/cmd_gui.c), not
 * only what a file loaded.  The saved file must run that run, or not be
 * written. */

static scenario gui_base;

static const scenario *load_gui_base(void)
{
    static const char ini[] =
        "[scenario]\nname = t\nduration = 60s\n"
        "[clients]\ncount = 10\nrate = 1/s\n[server]\nworkers = 4\n"
        "[policy]\nname = exponential\nmax_attempts = 5\n"
        "[fault.f]\ntype = outage\nstart = 20s\nduration = 5s\n";
    sb_err e;
    if (scenario_load(tu_write_temp("gui-base.ini", ini), NULL, 0, &gui_base,
                      &e) != 0)
        ck_abort_msg("%s", e.msg);
    return &gui_base;
}

/* --param max_attempts=3 over the file's max_attempts = 5: the stack
 * takes the later, and the loader refuses a key twice.  Both used to be
 * written, and the saved file did not load ("duplicate key"). */
START_TEST(a_parameter_given_twice_is_saved_once)
{
    const scenario *a = load_gui_base();
    setting params[2] = {a->settings[0], {"max_attempts", "3", "--param"}};
    writer_extra x = {NULL, "exponential", params, 2, NULL, 0, NULL, 0, NULL};
    static scenario b;
    sb_err e;
    ck_assert_msg(write_and_load(&a->cfg, &x, &b, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(b.n_settings, 1);
    ck_assert_str_eq(b.settings[0].key, "max_attempts");
    ck_assert_str_eq(b.settings[0].value, "3");
}
END_TEST

/* A plug-in the window got as --policy-plugin rel/libmine.so is
 * relative to where the program runs; written as is, the saved file
 * would load rel/libmine.so from its own folder.  It is written
 * absolute.  (The loader does not open plug-ins: the path is all.) */
START_TEST(a_relative_plugin_is_saved_absolute)
{
    const scenario *a = load_gui_base();
    const char *plugins[] = {"rel/libmine.so"};
    writer_extra x = {NULL, "exponential", a->settings, a->n_settings, plugins,
                      1,    NULL,          0,           NULL};
    static scenario b;
    sb_err e;
    ck_assert_msg(write_and_load(&a->cfg, &x, &b, &e) == 0, "%s", e.msg);
    char cwd[1024], want[1100];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    snprintf(want, sizeof want, "%s/rel/libmine.so", cwd);
    ck_assert_int_eq(b.n_plugins, 1);
    ck_assert_str_eq(b.plugins[0], want);
}
END_TEST

/* The scenario's plug-in and one from --policy-plugin: two `plugin`
 * lines, which the loader refused as a duplicate key; [policy] takes
 * one line per plug-in now, up to SCENARIO_MAX_PLUGINS. */
START_TEST(two_plugins_are_saved_and_load_back)
{
    const scenario *a = load_gui_base();
    const char *plugins[] = {"/opt/a/liba.so", "/opt/b/libb.so"};
    writer_extra x = {NULL, "a+b", NULL, 0, plugins, 2, NULL, 0, NULL};
    static scenario b;
    sb_err e;
    ck_assert_msg(write_and_load(&a->cfg, &x, &b, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(b.n_plugins, 2);
    ck_assert_str_eq(b.plugins[0], "/opt/a/liba.so");
    ck_assert_str_eq(b.plugins[1], "/opt/b/libb.so");
}
END_TEST

/* What the loader would read as something else is not written: the
 * writer fails with the section, the key and why, and the GUI keeps no
 * file (cli/cmd_gui.c aborts its outfile).  Each used to be written and
 * to load as another scenario, or not at all. */
START_TEST(what_would_load_otherwise_is_not_written)
{
    static const struct {
        const char *key, *value; /* a [policy] parameter, or NULL */
        const char *description, *policy, *fault;
        const char *message;
    } cases[] = {
        {"base", "20ms ;x", NULL, NULL, NULL,
         "[policy] base: the value '20ms ;x' holds ';' after a blank, which "
         "starts a comment"},
        {"a:b", "1", NULL, NULL, NULL,
         "[policy] the key 'a:b' holds '=' or ':', which end a key"},
        {";k", "1", NULL, NULL, NULL,
         "[policy] the key ';k' starts as a comment or a section header "
         "does"},
        {"base", "", NULL, NULL, NULL, NULL}, /* empty: it loads */
        {NULL, NULL, "two\nlines", NULL, NULL,
         "[scenario] description: the value 'two\nlines' holds a line "
         "break"},
        {NULL, NULL, NULL, "exponential ", NULL,
         "[policy] name: the value 'exponential ' starts or ends with a "
         "blank, which the loader drops"},
        {NULL, NULL, NULL, NULL, "my fault",
         "[fault.NAME] expected a name (letters, digits, _ and -, at most "
         "63), got 'my fault'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        static scenario a, b;
        memcpy(&a, load_gui_base(), sizeof a);
        setting p = {"", "", "--param"};
        if (cases[i].key) {
            snprintf(p.key, sizeof p.key, "%s", cases[i].key);
            snprintf(p.value, sizeof p.value, "%s", cases[i].value);
        }
        if (cases[i].description)
            snprintf(a.cfg.description, sizeof a.cfg.description, "%s",
                     cases[i].description);
        if (cases[i].fault)
            snprintf(a.cfg.faults[0].name, sizeof a.cfg.faults[0].name, "%s",
                     cases[i].fault);
        writer_extra x = {
            NULL, cases[i].policy ? cases[i].policy : "exponential",
            &p,   cases[i].key != NULL,
            NULL, 0,
            NULL, 0,
            NULL};
        sb_err e;
        int rc = write_and_load(&a.cfg, &x, &b, &e);
        if (cases[i].message == NULL) {
            ck_assert_msg(rc == 0, "case %zu: %s", i, e.msg);
            continue;
        }
        ck_assert_msg(rc == -1, "case %zu was written", i);
        char want[512];
        snprintf(want, sizeof want, "cannot write the scenario: %s",
                 cases[i].message);
        ck_assert_str_eq(e.msg, want);
    }
}
END_TEST

/* An [expect] key twice: not written (the loader would refuse the
 * file), whatever reports/expect.c would make of two. */
START_TEST(an_expectation_given_twice_is_not_written)
{
    const scenario *a = load_gui_base();
    setting x2[2] = {{"success_min", "0.9", ""}, {"success_min", "0.8", ""}};
    writer_extra x = {NULL, "exponential", NULL, 0, NULL, 0, x2, 2, NULL};
    static scenario b;
    sb_err e;
    ck_assert_int_eq(write_and_load(&a->cfg, &x, &b, &e), -1);
    ck_assert_str_eq(e.msg, "cannot write the scenario: [expect] "
                            "success_min: the key is given twice, which "
                            "the loader refuses");
}
END_TEST

/* ---- Every free-text value at its extreme (issue 23) -------------------
 *
 * Each free-text value starts with ';' (which after a blank starts a
 * comment), holds blanks, and is as long as the loader keeps: 63 bytes
 * for the scenario's name, 511 for its description, 255 for a policy's
 * name and a parameter's or an expectation's value, 1023 for a plug-in's
 * path with the scenario's folder; a key is 95 bytes.  In the file each
 * is followed by a blank, which every reader drops (a value cannot end
 * with one: the writer refuses it, above).  The names of tiers, faults
 * and steps are names (names.h), never free text: they are 63 bytes. */

/* n bytes: ';', then letters with a blank every tenth byte (never one
 * before a ';', nor at the end). */
static const char *semi(char *buf, size_t n, int tag)
{
    buf[0] = ';';
    for (size_t i = 1; i < n; i++) {
        bool blank = i % 10 == 5 && i + 1 < n;
        buf[i] = blank ? ' ' : (char)('a' + (i + (size_t)tag) % 26);
    }
    buf[n] = '\0';
    return buf;
}

/* A key of 95 bytes. */
#define K95 "k" X94
#define X47 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstu"
#define X94 X47 X47

/* "key =VALUE \n" onto buf at *used. */
static void line(char *buf, size_t len, size_t *used, const char *key,
                 const char *value)
{
    *used +=
        (size_t)snprintf(buf + *used, len - *used, "%s =%s \n", key, value);
    ck_assert_uint_lt(*used, len);
}

START_TEST(every_free_text_value_at_its_extreme_round_trips)
{
    static char ini[16384], name[64], desc[512], pol[3][256], val[4][256],
        plug[1024];
    static char path[1024], dir[1024], want_plugin[1024];
    snprintf(path, sizeof path, "%s", tu_temp_path("extreme.ini"));
    snprintf(dir, sizeof dir, "%s", path);
    strrchr(dir, '/')[1] = '\0';
    size_t n = 0, len = sizeof ini;
    n += (size_t)snprintf(ini, len, "[scenario]\n");
    line(ini, len, &n, "name", semi(name, 63, 0));
    line(ini, len, &n, "description", semi(desc, 511, 1));
    n += (size_t)snprintf(
        ini + n, len - n,
        "duration = 60s\n[clients]\ncount = 10\n"
        "rate = 1/s\n[server]\nworkers = 4\n"
        "name = " NAME63("t") "\ndownstream = " NAME63("u") "\n[policy]\n");
    line(ini, len, &n, "name", semi(pol[0], 255, 2));
    /* With the folder, the path is 1023 bytes. */
    line(ini, len, &n, "plugin", semi(plug, 1023 - strlen(dir), 3));
    line(ini, len, &n, K95, semi(val[0], 255, 4));
    n += (size_t)snprintf(ini + n, len - n, "[policy." NAME63("t") "]\n");
    line(ini, len, &n, "name", semi(pol[1], 255, 5));
    line(ini, len, &n, K95, semi(val[1], 255, 6));
    n += (size_t)snprintf(
        ini + n, len - n,
        "[server." NAME63(
            "u") "]\nworkers = 2\n"
                 "[fault." NAME63(
                     "f") "]\ntype = outage\n"
                          "start = 20s\nduration = 5s\ntarget = " NAME63(
                              "u") "\n[expect]\n");
    line(ini, len, &n, K95, semi(val[2], 255, 7));
    n += (size_t)snprintf(ini + n, len - n,
                          "[expect." NAME63("u") "]\nutilization_max = "
                                                 "0.9\n");
    ck_assert_uint_lt(n, len);
    tu_write_temp("extreme.ini", ini);
    const scenario *b = round_trip(path);
    /* Kept whole, each at its longest: the round trip alone would also
     * pass if both loads cut a value the same way. */
    snprintf(want_plugin, sizeof want_plugin, "%s%s", dir, plug);
    ck_assert_uint_eq(strlen(want_plugin), 1023);
    ck_assert_str_eq(b->cfg.name, name);
    ck_assert_str_eq(b->cfg.description, desc);
    ck_assert_str_eq(b->policy, pol[0]);
    ck_assert_int_eq(b->n_plugins, 1);
    ck_assert_str_eq(b->plugins[0], want_plugin);
    ck_assert_str_eq(b->settings[0].key, K95);
    ck_assert_str_eq(b->settings[0].value, val[0]);
    ck_assert_str_eq(b->cfg.tiers[0].policy, pol[1]);
    ck_assert_str_eq(b->cfg.tiers[0].settings[0].key, K95);
    ck_assert_str_eq(b->cfg.tiers[0].settings[0].value, val[1]);
    ck_assert_str_eq(b->cfg.faults[0].name, NAME63("f"));
    ck_assert_str_eq(b->expect[0].key, K95);
    ck_assert_str_eq(b->expect[0].value, val[2]);

    /* The pipeline's sections, in a scenario of their own (a pipeline
     * does not run with a chain). */
    n = (size_t)snprintf(ini, len,
                         "[scenario]\nname = p\n"
                         "duration = 60s\n[pipeline]\nsteps = " NAME63(
                             "a") ", " NAME63("b") "\n"
                                                   "[step." NAME63("a") "]\n");
    line(ini, len, &n, "policy", semi(pol[2], 255, 8));
    line(ini, len, &n, K95, semi(val[3], 255, 9));
    n += (size_t)snprintf(ini + n, len - n, "[step." NAME63("b") "]\n");
    ck_assert_uint_lt(n, len);
    snprintf(path, sizeof path, "%s", tu_write_temp("extreme-pipe.ini", ini));
    b = round_trip(path);
    const step_cfg *st = &b->cfg.pipeline.steps[0];
    ck_assert_str_eq(st->name, NAME63("a"));
    ck_assert_str_eq(st->policy, pol[2]);
    ck_assert_str_eq(st->settings[0].key, K95);
    ck_assert_str_eq(st->settings[0].value, val[3]);
}
END_TEST

Suite *scenario_writer_suite(void)
{
    Suite *s = suite_create("scenario_writer");
    TCase *tc = tcase_create("round_trip");
    tcase_add_test(tc, shipped_scenarios_round_trip);
    tcase_add_test(tc, every_key_round_trips);
    tcase_add_test(tc, arrival_modes_round_trip);
    tcase_add_test(tc, negative_zero_round_trips);
    tcase_add_test(tc, percent_probabilities_round_trip);
    tcase_add_test(tc, a_value_starting_with_a_semicolon_round_trips);
    tcase_add_test(tc, pipeline_round_trips);
    tcase_add_test(tc, pipeline_defaults_round_trip);
    tcase_add_test(tc, names_as_long_as_allowed_are_kept_whole);
    tcase_add_test(tc, policy_names_starting_with_a_semicolon_round_trip);
    tcase_add_test(tc, every_free_text_value_at_its_extreme_round_trips);
    tcase_add_test(tc, the_writer_writes_every_key_of_the_table);
    tcase_add_test(tc, a_parameter_given_twice_is_saved_once);
    tcase_add_test(tc, a_relative_plugin_is_saved_absolute);
    tcase_add_test(tc, two_plugins_are_saved_and_load_back);
    tcase_add_test(tc, what_would_load_otherwise_is_not_written);
    tcase_add_test(tc, an_expectation_given_twice_is_not_written);
    suite_add_tcase(s, tc);
    return s;
}
