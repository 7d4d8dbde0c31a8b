/*
 * check_plugin_host.c -- every host stormbench has hands a plug-in every
 * sb_host function its header promises: the simulation's clients, a
 * pipeline step's calls, a tier's calls, `run`'s pre-check and
 * `validate`'s probe of the worst case, `decide`, `compare`.  The
 * plug-in (tests/plugins/host_calls.c) calls uniform, breaker, classify
 * and level from every hook; a NULL among them crashes it, and
 * stormbench exits 3 naming the hook (host->level was NULL in `decide`
 * and in run's pre-check).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define HOST SB_BUILD_DIR "/tests/plugins/libsbt_host_calls.so"
#define HERD TU_SOURCE("scenarios/thundering-herd.ini")

static void expect_ok(const char *what, const char *const *argl)
{
    tu_output o;
    tu_stormbench(&o, argl);
    ck_assert_msg(o.status == 0, "%s: exit %d\n%s%s", what, o.status, o.out,
                  o.err);
    tu_output_free(&o);
}

START_TEST(decide_hands_every_function)
{
    expect_ok("decide",
              (const char *[]){"decide", "--policy-plugin", HOST, "--policy",
                               "sbt_host_calls", "--error", "http", "--status",
                               "503", "--attempt", "1", NULL});
}
END_TEST

/* run: the pre-check probes the worst case before the simulation, then
 * the clients run it. */
START_TEST(run_hands_every_function)
{
    expect_ok("run",
              (const char *[]){"run", HERD, "--policy-plugin", HOST, "--policy",
                               "sbt_host_calls", "-q", "--no-expect", NULL});
}
END_TEST

START_TEST(validate_hands_every_function)
{
    char ini[1024];
    snprintf(ini, sizeof ini,
             "[scenario]\nname = host\nduration = 30s\n"
             "[clients]\ncount = 10\nrate = 1/s\ntimeout = 1s\n"
             "deadline = 5s\n"
             "[server]\nworkers = 2\n"
             "[policy]\nplugin = %s\nname = sbt_host_calls\n",
             HOST);
    char path[1024];
    snprintf(path, sizeof path, "%s", tu_write_temp("host.ini", ini));
    expect_ok("validate", (const char *[]){"validate", path, NULL});
}
END_TEST

START_TEST(compare_hands_every_function)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", tu_temp_path("host-compare"));
    expect_ok("compare",
              (const char *[]){"compare", HERD, "--policy-plugin", HOST,
                               "--policies", "sbt_host_calls,exponential",
                               "--seeds", "1", "-q", "--no-report", "-o", dir,
                               NULL});
}
END_TEST

Suite *plugin_host_suite(void)
{
    Suite *s = suite_create("plugin_host");
    TCase *tc = tcase_create("plugin_host");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, decide_hands_every_function);
    tcase_add_test(tc, run_hands_every_function);
    tcase_add_test(tc, validate_hands_every_function);
    tcase_add_test(tc, compare_hands_every_function);
    suite_add_tcase(s, tc);
    return s;
}
