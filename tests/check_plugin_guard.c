/*
 * check_plugin_guard.c -- a policy plug-in that crashes or hangs in a hook
 * (cli/guard.c, policies/hookguard.c), through the real binary.
 *
 * tests/plugins/broken.c builds one plug-in per way to die: a null store
 * (SIGSEGV), an integer division by zero (SIGFPE), abort() (SIGABRT),
 * __builtin_trap() (SIGILL), unbounded recursion (SIGSEGV on the
 * alternate stack), a loop that never ends, and a create() that faults.
 * Each must stop `stormbench run` with exit status 3, exactly one line
 * naming the policy, its file, the hook and the simulated time, and no
 * output file -- neither the ones asked for nor a temporary.
 *
 * The sanitizer build: ASan installs its own SIGSEGV, SIGBUS and SIGFPE
 * handlers at start-up, but lets a program replace them
 * (allow_user_segv_handler, on by default), and guard.c puts them back
 * for a crash that is not a plug-in's; the crashing plug-ins themselves
 * are built without sanitizers (tests/plugins/CMakeLists.txt), so the
 * CPU's fault, not a sanitizer's check, is what reaches the handler.
 * Nothing needs ASAN_OPTIONS.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "testutil.h"

extern char **environ;

#define PLUGIN_DIR SB_BUILD_DIR "/tests/plugins/"
#define SBT(v) PLUGIN_DIR "libsbt_" v ".so"

/* Two clients each send one request at t = 0 (arrival = once, and a
 * start window of 0 puts every arrival at 0); the server takes 1 s per
 * request and the timeout is 250 ms, so both first attempts time out at
 * exactly t = 0.250 s, where each client's on_failure is first called.
 * Client 1 exists only in the simulation: before it, `run` probes the
 * policy's worst case as client 0 (cli/cmd_validate.c). */
static const char scenario_text[] =
    "[scenario]\nname = plugin-crash\nduration = 2s\nwarmup = 1s\nseed = 1\n"
    "[clients]\ncount = 2\narrival = once\ntimeout = 250ms\n"
    "[server]\nworkers = 1\nservice = const(1s)\n"
    "[policy]\nname = none\n";

static char scenario_path[1024];
static char out_dir[1024];
static char json[1100], csv[1100], trace[1100];

static void setup(void)
{
    snprintf(scenario_path, sizeof scenario_path, "%s",
             tu_write_temp("plugin-crash.ini", scenario_text));
    snprintf(out_dir, sizeof out_dir, "%s", tu_temp_path("crash-out"));
    snprintf(json, sizeof json, "%s/run.json", out_dir);
    snprintf(csv, sizeof csv, "%s/run.csv", out_dir);
    snprintf(trace, sizeof trace, "%s/trace.jsonl", out_dir);
}

/* Files in out_dir (0 when it does not exist: the run stopped before it
 * made it). */
static int files_in_out_dir(void)
{
    DIR *d = opendir(out_dir);
    if (d == NULL)
        return 0;
    int n = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* Run variant with every output asked for; the exit status and stderr
 * in *o. */
static int run_variant(tu_output *o, const char *variant, const char *extra)
{
    char path[1024], policy[64];
    snprintf(path, sizeof path, PLUGIN_DIR "libsbt_%s.so", variant);
    snprintf(policy, sizeof policy, "sbt_%s", variant);
    const char *argv[] = {"run",
                          scenario_path,
                          "--policy-plugin",
                          path,
                          "--policy",
                          policy,
                          "--json",
                          json,
                          "--csv",
                          csv,
                          "--trace",
                          trace,
                          "--trace-sample",
                          "1",
                          "-q",
                          extra,
                          extra ? "200ms" : NULL,
                          NULL};
    return tu_stormbench(o, argv);
}

static const char *expected(const char *variant, const char *where,
                            const char *what)
{
    static char want[1024];
    snprintf(want, sizeof want,
             "stormbench run: policy 'sbt_%s' (from " PLUGIN_DIR
             "libsbt_%s.so) crashed in %s: %s; the run is stopped\n",
             variant, variant, where, what);
    return want;
}

static void assert_stopped(const char *variant, const char *where,
                           const char *what)
{
    tu_output o;
    ck_assert_int_eq(run_variant(&o, variant, NULL), EXIT_PLUGIN);
    ck_assert_str_eq(o.err, expected(variant, where, what));
    ck_assert_str_eq(o.out, "");
    tu_output_free(&o);
    ck_assert_int_eq(files_in_out_dir(), 0);
}

static const struct {
    const char *variant;
    const char *what;
} crashes[] = {
    {"segv", "SIGSEGV (segmentation fault: a bad memory access, or a stack "
             "overflow)"},
    {"fpe", "SIGFPE (arithmetic error, such as an integer division by "
            "zero)"},
    {"abort", "SIGABRT (abort: an assertion failed, or the plug-in called "
              "abort)"},
    {"ill", "SIGILL (illegal instruction)"},
    {"bus", "SIGBUS (bus error: a bad memory access)"},
    /* On the alternate signal stack: the thread's own is gone. */
    {"stack", "SIGSEGV (segmentation fault: a bad memory access, or a "
              "stack overflow)"},
};

/* In the simulation, at client 1's first failure: t = 0.250 s (above). */
START_TEST(crash_in_a_hook_names_plugin_hook_and_time)
{
    setenv("SBT_CRASH_CLIENT", "1", 1);
    assert_stopped(crashes[_i].variant, "on_failure at simulated time 0.250 s",
                   crashes[_i].what);
}
END_TEST

/* Client 0's first on_failure comes in the worst-case probe before the
 * run, whose times are not the run's: the message says so instead. */
START_TEST(crash_in_the_probe_says_so)
{
    unsetenv("SBT_CRASH_CLIENT");
    assert_stopped("segv",
                   "on_failure, while its worst case was probed, "
                   "before the simulation",
                   crashes[0].what);
}
END_TEST

START_TEST(crash_in_create_is_before_the_simulation)
{
    assert_stopped("create_segv", "create, before the simulation started",
                   crashes[0].what);
}
END_TEST

/* Before a policy has a name: its loading and its entry point. */
START_TEST(crash_while_loading_names_the_file)
{
    static const struct {
        const char *variant, *where, *what;
    } load[] = {
        {"load_abort", "its load-time code (constructors)",
         "SIGABRT (abort: an assertion failed, or the plug-in called "
         "abort)"},
        {"entry_segv", "sb_policy_plugin()",
         "SIGSEGV (segmentation fault: a bad memory access, or a stack "
         "overflow)"},
    };
    for (size_t i = 0; i < sizeof load / sizeof *load; i++) {
        tu_output o;
        ck_assert_int_eq(run_variant(&o, load[i].variant, NULL), EXIT_PLUGIN);
        char want[1024];
        snprintf(want, sizeof want,
                 "stormbench run: policy plug-in " PLUGIN_DIR
                 "libsbt_%s.so crashed in %s, before the simulation "
                 "started: %s; the run is stopped\n",
                 load[i].variant, load[i].where, load[i].what);
        ck_assert_str_eq(o.err, want);
        tu_output_free(&o);
        ck_assert_int_eq(files_in_out_dir(), 0);
    }
}
END_TEST

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Without --hook-timeout this plug-in would spin for ever: the test runs
 * it only with the flag.  The watchdog looks every 50 ms (a quarter of
 * the timeout), so it stops the hang between 200 and 250 ms after the
 * hook was entered; 10 s leaves room for a loaded machine and still
 * fails a watchdog that never fires long before Check's own timeout. */
START_TEST(hang_is_bounded_by_hook_timeout)
{
    setenv("SBT_CRASH_CLIENT", "1", 1);
    tu_output o;
    double t0 = now_s();
    ck_assert_int_eq(run_variant(&o, "hang", "--hook-timeout"), EXIT_PLUGIN);
    double took = now_s() - t0;
    ck_assert_str_eq(
        o.err, "stormbench run: policy 'sbt_hang' (from " SBT(
                   "hang") ") has not returned from on_failure within "
                           "--hook-timeout 200ms (called at simulated time "
                           "0.250 s); the run is stopped\n");
    tu_output_free(&o);
    ck_assert_double_ge(took, 0.2);
    ck_assert_double_lt(took, 10.0);
    ck_assert_int_eq(files_in_out_dir(), 0);
}
END_TEST

/* The GUI takes the flag too; headless (--frames) it needs no display. */
START_TEST(gui_hang_is_bounded_by_hook_timeout)
{
    setenv("SBT_CRASH_CLIENT", "1", 1);
    tu_output o;
    const char *argv[] = {"gui",       scenario_path,    "--policy-plugin",
                          SBT("hang"), "--policy",       "sbt_hang",
                          "--frames",  out_dir,          "--until",
                          "1s",        "--hook-timeout", "200ms",
                          NULL};
    int rc = tu_stormbench(&o, argv);
    if (strstr(o.err, "built without cairo") == NULL) {
        ck_assert_int_eq(rc, EXIT_PLUGIN);
        ck_assert_str_eq(
            o.err, "stormbench gui: policy 'sbt_hang' (from " SBT(
                       "hang") ") has not returned from on_failure within "
                               "--hook-timeout 200ms (called at simulated time "
                               "0.250 s); the run is stopped\n");
    }
    tu_output_free(&o);
}
END_TEST

/* The message compare prints when run r (seed 1 + r: the scenario's seed
 * is 1) of plug-in `variant` crashed or hung: which run, its seed and
 * policy, and a `stormbench run` command that runs it alone. */
static void compare_stop_message(int variant, int r, const char *path,
                                 char *buf, size_t len)
{
    char run[200];
    snprintf(run, sizeof run, "run %d (policy 'sbt_%s', seed %d)", r,
             variant ? "hang" : "segv", 1 + r);
    if (variant == 0)
        snprintf(buf, len,
                 "stormbench compare: policy 'sbt_segv' (from %s) crashed "
                 "in on_failure at simulated time 0.250 s in %s: SIGSEGV "
                 "(segmentation fault: a bad memory access, or a stack "
                 "overflow); the run is stopped\n",
                 path, run);
    else
        snprintf(buf, len,
                 "stormbench compare: policy 'sbt_hang' (from %s) has not "
                 "returned from on_failure within --hook-timeout 200ms "
                 "(called at simulated time 0.250 s in %s); the run is "
                 "stopped\n",
                 path, run);
    size_t used = strlen(buf);
    snprintf(buf + used, len - used,
             "stormbench compare: to run it alone: stormbench run %s "
             "--policy-plugin %s --policy sbt_%s --seed %d\n",
             scenario_path, path, variant ? "hang" : "segv", 1 + r);
}

/* compare runs the plug-in on a pool of threads: a crash in any of them
 * stops the comparison the same way, and --hook-timeout bounds a hang
 * there too; the message names the run (either of the two seeds may be
 * first) and how to run it alone, and that command crashes the same way.
 * No run of the crashed policy is saved. */
START_TEST(compare_stops_on_a_crash_or_a_hang)
{
    setenv("SBT_CRASH_CLIENT", "1", 1);
    const char *variants[] = {"segv", "hang"};
    for (int i = 0; i < 2; i++) {
        char path[1024], policy[64], dir[1100], want[2][4096];
        snprintf(path, sizeof path, PLUGIN_DIR "libsbt_%s.so", variants[i]);
        snprintf(policy, sizeof policy, "sbt_%s", variants[i]);
        snprintf(dir, sizeof dir, "%s/compare-%s", out_dir, variants[i]);
        const char *argv[] = {"compare",
                              scenario_path,
                              "--policy-plugin",
                              path,
                              "--policies",
                              policy,
                              "--seeds",
                              "2",
                              "-j",
                              "2",
                              "-o",
                              dir,
                              "-q",
                              i ? "--hook-timeout" : NULL,
                              "200ms",
                              NULL};
        tu_output o;
        ck_assert_int_eq(tu_stormbench(&o, argv), EXIT_PLUGIN);
        compare_stop_message(i, 0, path, want[0], sizeof want[0]);
        compare_stop_message(i, 1, path, want[1], sizeof want[1]);
        int r = strcmp(o.err, want[0]) == 0 ? 0 : 1;
        ck_assert_str_eq(o.err, want[r]);
        tu_output_free(&o);
        /* The command it gives, run: the same crash, as `run` names it. */
        char seed[8];
        snprintf(seed, sizeof seed, "%d", 1 + r);
        const char *again[] = {
            "run",    scenario_path, "--policy-plugin",
            path,     "--policy",    policy,
            "--seed", seed,          i ? "--hook-timeout" : NULL,
            "200ms",  NULL};
        ck_assert_int_eq(tu_stormbench(&o, again), EXIT_PLUGIN);
        ck_assert_msg(strstr(o.err, i ? "has not returned from on_failure"
                                      : "crashed in on_failure at simulated "
                                        "time 0.250 s") != NULL,
                      "%s", o.err);
        tu_output_free(&o);
        char runs[1200];
        snprintf(runs, sizeof runs, "%s/runs", dir);
        DIR *d = opendir(runs);
        int n = 0;
        for (struct dirent *de; d && (de = readdir(d)) != NULL;)
            n += de->d_name[0] != '.';
        if (d)
            closedir(d);
        ck_assert_int_eq(n, 0);
    }
}
END_TEST

/* A plug-in that behaves is not slowed into a false alarm: the same run
 * with the intact plug-in and the watchdog on finishes and writes all. */
START_TEST(hook_timeout_leaves_a_good_plugin_alone)
{
    tu_output o;
    ck_assert_int_eq(run_variant(&o, "ok", "--hook-timeout"), EXIT_OK);
    ck_assert_str_eq(o.err, "");
    tu_output_free(&o);
    ck_assert_int_eq(files_in_out_dir(), 3);
}
END_TEST

/* Our own crash is not blamed on a plug-in: outside any plug-in hook
 * the handler puts back the action from before and the signal does what
 * it did without it.  A long run of a built-in policy is sent SIGABRT
 * (as abort() or a failed assert() would raise it) while it runs: it must
 * die of it (no core file: RLIMIT_CORE 0), say nothing about a plug-in,
 * and not exit with status 3.  ASan leaves SIGABRT alone (handle_abort=0),
 * so the sanitizer build expects the same. */
START_TEST(our_own_crash_is_not_blamed_on_a_plugin)
{
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    const char *err_path = tu_temp_path("own-crash.err");
    char err_copy[1024];
    snprintf(err_copy, sizeof err_copy, "%s", err_path);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, err_copy,
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const char *argv[] = {SB_BINARY,
                          "run",
                          TU_SOURCE("scenarios/retry-storm.ini"),
                          "-q",
                          "--no-expect",
                          "--set",
                          "scenario.duration=24h",
                          NULL};
    pid_t pid;
    ck_assert_int_eq(
        posix_spawn(&pid, SB_BINARY, &fa, NULL, (char *const *)argv, environ),
        0);
    posix_spawn_file_actions_destroy(&fa);
    /* Long enough for main() to install the handler (its first act),
     * far shorter than the run (about 35 s of CPU). */
    struct timespec nap = {0, 300000000};
    nanosleep(&nap, NULL);
    kill(pid, SIGABRT);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
                  "status %#x: not killed by SIGABRT", status);
    char *err = tu_read_file(err_copy);
    ck_assert_ptr_nonnull(err);
    ck_assert_ptr_null(strstr(err, "crashed"));
    free(err);
}
END_TEST

START_TEST(help_and_readme_document_exit_status_3)
{
    tu_output o;
    const char *help[] = {"run", "--help", NULL};
    ck_assert_int_eq(tu_stormbench(&o, help), EXIT_OK);
    ck_assert_ptr_nonnull(strstr(o.out, "--hook-timeout DURATION"));
    ck_assert_ptr_nonnull(strstr(o.out, "3 a policy plug-in crashed"));
    tu_output_free(&o);
    char *readme = tu_read_file(TU_SOURCE("README.md"));
    ck_assert_ptr_nonnull(readme);
    ck_assert_ptr_nonnull(strstr(readme, "| 3 | a policy plug-in crashed"));
    ck_assert_ptr_nonnull(strstr(readme, "--hook-timeout"));
    free(readme);
}
END_TEST

Suite *plugin_guard_suite(void)
{
    Suite *s = suite_create("plugin_guard");
    TCase *tc = tcase_create("crash");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_loop_test(tc, crash_in_a_hook_names_plugin_hook_and_time, 0,
                        (int)(sizeof crashes / sizeof *crashes));
    tcase_add_test(tc, crash_in_the_probe_says_so);
    tcase_add_test(tc, crash_in_create_is_before_the_simulation);
    tcase_add_test(tc, crash_while_loading_names_the_file);
    tcase_add_test(tc, hang_is_bounded_by_hook_timeout);
    tcase_add_test(tc, gui_hang_is_bounded_by_hook_timeout);
    tcase_add_test(tc, compare_stops_on_a_crash_or_a_hang);
    tcase_add_test(tc, hook_timeout_leaves_a_good_plugin_alone);
    tcase_add_test(tc, our_own_crash_is_not_blamed_on_a_plugin);
    tcase_add_test(tc, help_and_readme_document_exit_status_3);
    suite_add_tcase(s, tc);
    return s;
}
