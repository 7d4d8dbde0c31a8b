/*
 * check_plugins.c -- user plug-ins through the real loading path.
 *
 * tests/plugins/broken.c is built once per defect (libsbt_<variant>.so);
 * policies/examples/ builds the example users copy.  Each is loaded the
 * way users load them: policy_setup_build() in process (what `run`,
 * `validate` and `decide` call), and the `stormbench` binary.  A refused
 * plug-in must give its exact message, exit status 2, and be unloaded
 * again (dlopen with RTLD_NOLOAD finds it gone); a contract-breaking one
 * must stop the run with a message naming the plug-in.
 */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define PLUGIN_DIR SB_BUILD_DIR "/tests/plugins/"
#define SBT(v) PLUGIN_DIR "libsbt_" v ".so"
#define EXAMPLE SB_BUILD_DIR "/policies/examples/libcapped_backoff.so"

static char msg[2 * ERR_MSG_MAX];

/* Build a stack from one plug-in and the policy spec; returns the status
 * and leaves the error message in e. */
static int build(const char *spec, const char *path, policy_setup *ps,
                 sb_err *e)
{
    const char *paths[1] = {path};
    return policy_setup_build(spec, paths, 1, NULL, 0, ps, e);
}

/* The library at path is no longer mapped into this process. */
static void assert_unloaded(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (h)
        dlclose(h);
    ck_assert_msg(h == NULL, "%s is still loaded after a refusal", path);
}

/* Refused in process with exactly `want`, and unloaded. */
static void assert_refused(const char *path, const char *want)
{
    policy_setup ps;
    sb_err e;
    ck_assert_int_eq(build("sbt_ok", path, &ps, &e), -1);
    ck_assert_str_eq(e.msg, want);
    ck_assert_int_eq(ps.n_plugins, 0);
    ck_assert_ptr_null(ps.stack);
    assert_unloaded(path);
}

/* Refused by the binary: `stormbench policies` and `stormbench run` both
 * print "stormbench CMD: <want>" and exit 2. */
static void assert_binary_refuses(const char *path, const char *want)
{
    tu_output o;
    const char *policies[] = {"policies", "--policy-plugin", path, NULL};
    ck_assert_int_eq(tu_stormbench(&o, policies), EXIT_INPUT);
    snprintf(msg, sizeof msg, "stormbench policies: %s\n", want);
    ck_assert_str_eq(o.err, msg);
    ck_assert_str_eq(o.out, "");
    tu_output_free(&o);

    const char *run[] = {"run",
                         TU_SOURCE("scenarios/retry-storm.ini"),
                         "--policy-plugin",
                         path,
                         "--policy",
                         "sbt_ok",
                         NULL};
    ck_assert_int_eq(tu_stormbench(&o, run), EXIT_INPUT);
    snprintf(msg, sizeof msg, "stormbench run: %s\n", want);
    ck_assert_str_eq(o.err, msg);
    tu_output_free(&o);
}

static void refused_everywhere(const char *path, const char *want)
{
    assert_refused(path, want);
    assert_binary_refuses(path, want);
}

/* ---- refused at load time ----------------------------------------------- */

/* The message names the file and both versions (DESIGN.md, the ABI). */
START_TEST(wrong_abi_major_is_refused)
{
    refused_everywhere(SBT("abi"),
                       SBT("abi") ": policy plug-in built for policy ABI "
                                  "1.0, but this stormbench speaks policy "
                                  "ABI 2.2: rebuild it against this "
                                  "version's stormbench/policy.h");
}
END_TEST

/* 144 = sizeof(sb_policy) in ABI 2.0, pinned in stormbench/policy.h. */
START_TEST(short_struct_is_refused)
{
    refused_everywhere(SBT("short"),
                       SBT("short") ": policy plug-in has an sb_policy of 16 "
                                    "bytes, shorter than the 144 bytes of "
                                    "policy ABI 2.0: rebuild it against this "
                                    "version's stormbench/policy.h");
}
END_TEST

START_TEST(missing_entry_point_is_refused)
{
    refused_everywhere(SBT("no_entry"),
                       SBT("no_entry") ": not a stormbench policy plug-in: it "
                                       "exports no 'sb_policy_plugin' "
                                       "function (see policies/examples/)");
}
END_TEST

START_TEST(null_table_is_refused)
{
    refused_everywhere(SBT("null"), SBT("null") ": the sb_policy_plugin "
                                                "entry point returned NULL");
}
END_TEST

START_TEST(builtin_name_is_refused)
{
    refused_everywhere(SBT("builtin_name"),
                       SBT("builtin_name") ": plug-in policy 'exponential' "
                                           "has the name of a built-in "
                                           "policy; rename it");
}
END_TEST

/* Calling a table as code would crash the host. */
START_TEST(data_entry_point_is_refused)
{
    refused_everywhere(SBT("data_entry"),
                       SBT("data_entry") ": 'sb_policy_plugin' is data, not "
                                         "a function: export a function that "
                                         "returns a pointer to the plug-in's "
                                         "sb_policy (see policies/examples/)");
}
END_TEST

/* A path that would not fit is refused, not truncated into another. */
START_TEST(overlong_path_is_refused)
{
    char path[1100];
    memset(path, 'x', sizeof path - 1);
    path[sizeof path - 1] = '\0';
    policy_setup ps;
    sb_err e;
    ck_assert_int_eq(build("sbt_ok", path, &ps, &e), -1);
    snprintf(msg, sizeof msg,
             "%.60s...: the plug-in's path is longer than "
             "1021 characters",
             path);
    ck_assert_str_eq(e.msg, msg);
}
END_TEST

/* dlerror's own text follows; only our part is pinned. */
START_TEST(missing_file_is_refused)
{
    const char *path = PLUGIN_DIR "libsbt_does_not_exist.so";
    policy_setup ps;
    sb_err e;
    ck_assert_int_eq(build("sbt_ok", path, &ps, &e), -1);
    snprintf(msg, sizeof msg, "%s: cannot load policy plug-in: ", path);
    ck_assert_msg(strncmp(e.msg, msg, strlen(msg)) == 0, "got: %s", e.msg);
}
END_TEST

/* A plug-in built against a later 1.x header has a longer table and a
 * higher minor version: within one major version that must load. */
START_TEST(newer_minor_version_loads)
{
    policy_setup ps;
    sb_err e;
    ck_assert_msg(build("sbt_newer_minor", SBT("newer_minor"), &ps, &e) == 0,
                  "%s", e.msg);
    ck_assert_str_eq(pstack_name(ps.stack), "sbt_newer_minor");
    policy_setup_free(&ps);
}
END_TEST

/* ---- good plug-ins load and run ------------------------------------------ */

/* From 2 s on every connection is refused, so every attempt fails and
 * the plug-in's on_failure is called within a few milliseconds. */
static const char contract_head[] =
    "[scenario]\nname = plugin-contract\nduration = 5s\nwarmup = 1s\n"
    "seed = 7\n"
    "[clients]\ncount = 5\nrate = 5/s\ntimeout = 100ms\n"
    "[server]\nworkers = 4\nservice = const(10ms)\n"
    "[fault.down]\ntype = outage\nstart = 2s\nduration = 3s\n"
    "mode = refuse\n";

/* The scenario with a [policy] section of the given lines. */
static const char *contract_ini(const char *policy_lines)
{
    static char ini[2048];
    snprintf(ini, sizeof ini, "%s[policy]\n%s", contract_head, policy_lines);
    return ini;
}

/* Write the scenario (policy `none`) and return its path. */
static const char *contract_file(void)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s",
             tu_write_temp("contract.ini", contract_ini("name = none\n")));
    return path;
}

START_TEST(good_plugin_loads_and_runs)
{
    tu_output o;
    const char *list[] = {"policies", "--policy-plugin", SBT("ok"), "sbt_ok",
                          NULL};
    ck_assert_int_eq(tu_stormbench(&o, list), EXIT_OK);
    ck_assert_ptr_nonnull(strstr(o.out, "sbt_ok  from " SBT("ok")));
    tu_output_free(&o);

    const char *path = contract_file();
    const char *json = tu_temp_path("contract.json");
    char jpath[1024];
    snprintf(jpath, sizeof jpath, "%s", json);
    const char *run[] = {"run",      path,     "--policy-plugin", SBT("ok"),
                         "--policy", "sbt_ok", "--json",          jpath,
                         "-q",       NULL};
    ck_assert_int_eq(tu_stormbench(&o, run), EXIT_OK);
    ck_assert_str_eq(o.err, "");
    tu_output_free(&o);
    /* sbt_ok retries after every failure, up to 3 attempts: during the
     * outage each request makes 3 attempts, so attempts > offered. */
    char *text = tu_read_file(jpath);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, "\"policy\": \"sbt_ok\""));
    ck_assert_double_gt(tu_json_number(text, "attempts"),
                        tu_json_number(text, "offered"));
    free(text);
}
END_TEST

/* ---- contract breakers stop the run ------------------------------------ */

/* In process: the stack builds (the table is well formed), the run stops
 * with sim_error() == want. */
static void assert_run_stops(const char *variant, const char *path,
                             const char *want)
{
    char lines[1200];
    snprintf(lines, sizeof lines, "name = %s\nplugin = %s\n", variant, path);
    tu_sim *t = tu_sim_prepare(contract_ini(lines), NULL, NULL, 0);
    ck_assert_int_eq(sim_run_until(t->sim, t->sc.cfg.duration_ns), -1);
    ck_assert_msg(strstr(sim_error(t->sim), want) != NULL,
                  "expected '%s' in '%s'", want, sim_error(t->sim));
    tu_sim_free(t);
}

/* By the binary: exit 2, "stormbench run: the run stopped at t=... s: "
 * and the message. */
static void assert_binary_stops(const char *variant, const char *path,
                                const char *want)
{
    tu_output o;
    const char *run[] = {"run",
                         contract_file(),
                         "--policy-plugin",
                         path,
                         "--policy",
                         variant,
                         "-q",
                         NULL};
    ck_assert_int_eq(tu_stormbench(&o, run), EXIT_INPUT);
    const char *head = "stormbench run: the run stopped at t=";
    ck_assert_msg(strncmp(o.err, head, strlen(head)) == 0, "got: %s", o.err);
    ck_assert_msg(strstr(o.err, want) != NULL, "expected '%s' in '%s'", want,
                  o.err);
    tu_output_free(&o);
}

static void stops_everywhere(const char *variant, const char *path,
                             const char *want)
{
    assert_run_stops(variant, path, want);
    assert_binary_stops(variant, path, want);
}

#define DELAY_RANGE "; a delay must be a number between 0 and 86400 s"

START_TEST(negative_delay_stops_the_run)
{
    stops_everywhere(
        "sbt_neg_delay", SBT("neg_delay"),
        "policy 'sbt_neg_delay' (from " SBT(
            "neg_delay") ") returned a negative delay -1 s from on_failure" DELAY_RANGE);
}
END_TEST

START_TEST(nan_delay_stops_the_run)
{
    stops_everywhere(
        "sbt_nan_delay", SBT("nan_delay"),
        "policy 'sbt_nan_delay' (from " SBT(
            "nan_delay") ") returned a NaN delay from on_failure" DELAY_RANGE);
}
END_TEST

/* Two days: over PSTACK_MAX_DELAY_S (one day). */
START_TEST(absurd_delay_stops_the_run)
{
    stops_everywhere(
        "sbt_huge_delay", SBT("huge_delay"),
        "policy 'sbt_huge_delay' (from " SBT(
            "huge_delay") ") returned an absurd delay 172800 s from on_failure" DELAY_RANGE);
}
END_TEST

START_TEST(unknown_action_stops_the_run)
{
    stops_everywhere(
        "sbt_action", SBT("action"),
        "policy 'sbt_action' (from " SBT(
            "action") ") returned an unknown action 42 from on_failure "
                      "(expected SB_PASS, SB_RETRY, SB_GIVE_UP or "
                      "SB_QUARANTINE)");
}
END_TEST

START_TEST(unknown_send_action_stops_the_run)
{
    stops_everywhere(
        "sbt_send", SBT("send"),
        "policy 'sbt_send' (from " SBT(
            "send") ") returned an unknown send action 7 from before_send "
                    "(expected SB_SEND_ALLOW or SB_SEND_REFUSE)");
}
END_TEST

/* ---- the example plug-in ------------------------------------------------- */

START_TEST(example_plugin_is_listed)
{
    tu_output o;
    const char *list[] = {"policies", "--policy-plugin", EXAMPLE,
                          "capped_backoff", NULL};
    ck_assert_int_eq(tu_stormbench(&o, list), EXIT_OK);
    ck_assert_ptr_nonnull(strstr(o.out, "capped_backoff  from " EXAMPLE));
    /* Its parameters with their defaults, as documented in the source. */
    const char *rows[] = {"base",         "cap",
                          "max_attempts", "max_total_delay",
                          "jitter",       "honour_retry_after",
                          "shed_after"};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        char row[64];
        snprintf(row, sizeof row, "\n    %s ", rows[i]);
        ck_assert_msg(strstr(o.out, row), "no row for %s in:\n%s", rows[i],
                      o.out);
    }
    tu_output_free(&o);
}
END_TEST

/* The example runs a whole scenario: the shipped retry storm, whose
 * blackhole outage makes every attempt time out for 10 s.  It retries
 * then (attempts > offered), and never past max_attempts = 4 per request
 * (attempts <= 4 x offered; not per bucket, where retries of an earlier
 * bucket's requests land). */
START_TEST(example_plugin_runs_a_scenario)
{
    char json[1024];
    snprintf(json, sizeof json, "%s", tu_temp_path("example.json"));
    tu_output o;
    const char *run[] = {"run",
                         TU_SOURCE("scenarios/retry-storm.ini"),
                         "--policy-plugin",
                         EXAMPLE,
                         "--policy",
                         "capped_backoff",
                         "--set",
                         "scenario.duration=90s",
                         "--set",
                         "clients.count=200",
                         "--json",
                         json,
                         "-q",
                         NULL};
    int rc = tu_stormbench(&o, run);
    /* 0 or 1: whether the storm's own [expect] holds is not the point. */
    ck_assert_msg(rc == EXIT_OK || rc == EXIT_EXPECT, "exit %d: %s", rc, o.err);
    tu_output_free(&o);
    char *text = tu_read_file(json);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, "\"policy\": \"capped_backoff\""));
    double offered = tu_json_number(text, "offered");
    double attempts = tu_json_number(text, "attempts");
    ck_assert_double_gt(attempts, offered);
    ck_assert_double_le(attempts, 4 * offered);
    free(text);
}
END_TEST

/* Checking a policy loads its plug-in, and loading a library runs its
 * code: sbt_loud creates a file when it is loaded.  validate loads it
 * (the file appears); validate --no-plugins checks the rest of the
 * scenario, says the policy was not checked, and never loads it. */
START_TEST(validate_no_plugins_loads_nothing)
{
    char ini[2048], marker[1024];
    snprintf(marker, sizeof marker, "%s", tu_temp_path("loud-was-loaded"));
    setenv("SBT_LOUD_FILE", marker, 1);
    snprintf(ini, sizeof ini,
             "[scenario]\nname = loud\nduration = 60s\n"
             "[policy]\nname = sbt_loud\nplugin = %s\n",
             SBT("loud"));
    char path[1024];
    snprintf(path, sizeof path, "%s", tu_write_temp("loud.ini", ini));
    remove(marker);
    tu_output o;
    tu_stormbench(&o, (const char *[]){"validate", "--no-plugins", path, NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    char want[2048];
    snprintf(want, sizeof want,
             "%s: ok (loud; policy sbt_loud not checked: "
             "it needs %s, and --no-plugins loads none)\n",
             path, SBT("loud"));
    ck_assert_str_eq(o.out, want);
    tu_output_free(&o);
    ck_assert_msg(access(marker, F_OK) != 0, "the plug-in was loaded");
    tu_stormbench(&o, (const char *[]){"validate", path, NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    ck_assert_msg(access(marker, F_OK) == 0, "the plug-in was not loaded");
    unsetenv("SBT_LOUD_FILE");
}
END_TEST

Suite *plugins_suite(void)
{
    Suite *s = suite_create("plugins");
    TCase *tc = tcase_create("refused");
    tcase_add_test(tc, wrong_abi_major_is_refused);
    tcase_add_test(tc, validate_no_plugins_loads_nothing);
    tcase_add_test(tc, short_struct_is_refused);
    tcase_add_test(tc, missing_entry_point_is_refused);
    tcase_add_test(tc, null_table_is_refused);
    tcase_add_test(tc, builtin_name_is_refused);
    tcase_add_test(tc, missing_file_is_refused);
    tcase_add_test(tc, data_entry_point_is_refused);
    tcase_add_test(tc, overlong_path_is_refused);
    tcase_add_test(tc, newer_minor_version_loads);
    suite_add_tcase(s, tc);
    tc = tcase_create("contract");
    tcase_add_test(tc, good_plugin_loads_and_runs);
    tcase_add_test(tc, negative_delay_stops_the_run);
    tcase_add_test(tc, nan_delay_stops_the_run);
    tcase_add_test(tc, absurd_delay_stops_the_run);
    tcase_add_test(tc, unknown_action_stops_the_run);
    tcase_add_test(tc, unknown_send_action_stops_the_run);
    suite_add_tcase(s, tc);
    tc = tcase_create("example");
    tcase_add_test(tc, example_plugin_is_listed);
    tcase_add_test(tc, example_plugin_runs_a_scenario);
    suite_add_tcase(s, tc);
    return s;
}
