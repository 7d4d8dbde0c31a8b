/*
 * check_inih_builds.c -- the scenario loader reads every file the same
 * way whatever build of inih it runs on.
 *
 * Upstream inih is configured at compile time (INI_MAX_LINE,
 * INI_ALLOW_MULTILINE, INI_STOP_ON_FIRST_ERROR, INI_USE_STACK,
 * INI_ALLOW_REALLOC, INI_ALLOW_INLINE_COMMENTS, INI_ALLOW_NO_VALUE ...);
 * Debian's libinih, alone, also exposes each option as a variable.  The
 * loader used to set those variables, so it did not build with an
 * upstream inih, and would have read files differently with one (an
 * upstream default build has a 200-byte line buffer and takes an
 * indented line for the continuation of the value above).  Now it sets
 * none (scenarios/ini_file.c, reader()).
 *
 * This suite plays the upstream builds on the library at hand: Debian's
 * variables put the library in the state an upstream build with those
 * -D options would be in, and every input must load into the same bytes,
 * or fail with the same message, as under the reference (the settings
 * the loader used to impose).  So it is built only where the library has
 * the variables (tests/CMakeLists.txt); that the loader compiles against
 * upstream's interface alone is checked by the inih_upstream_api target.
 * This file is the one test that includes inih, to configure it.
 */
#include <check.h>
#include <dirent.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* One build's settings. */
typedef struct build {
    const char *name;
    bool multiline, stop_on_first_error, use_stack, allow_realloc;
    bool inline_comments, no_value;
    int max_line, initial_alloc;
} build;

static const build builds[] = {
    /* What the loader used to set on Debian's library: the reference. */
    {"debian-as-configured", false, true, false, false, true, false, 1003,
     1003},
    /* Upstream's defaults: ini.h with no -D at all. */
    {"upstream-default", true, false, true, false, true, false, 200, 200},
    /* A small stack buffer: every key line of the shipped scenarios that
     * is longer than 37 characters goes through hand_over_long. */
    {"upstream-max-line-40", true, false, true, false, true, false, 40, 40},
    /* The heap, growing with realloc. */
    {"upstream-heap-realloc", true, false, false, true, true, false, 4000, 64},
    /* The other options a build may turn. */
    {"upstream-no-inline-comments", false, true, true, false, false, false, 200,
     200},
    {"upstream-no-value", true, false, true, false, true, true, 200, 200},
};
#define N_BUILDS (int)(sizeof builds / sizeof *builds)

static void use(const build *b)
{
    ini_allow_multiline = b->multiline;
    ini_stop_on_first_error = b->stop_on_first_error;
    ini_use_stack = b->use_stack;
    ini_allow_realloc = b->allow_realloc;
    ini_allow_inline_comments = b->inline_comments;
    ini_allow_no_value = b->no_value;
    ini_max_line = b->max_line;
    ini_initial_alloc = b->initial_alloc;
}

/* Load path under build b: the status, the message, the result. */
static int load(const build *b, const char *path, scenario *sc, sb_err *e)
{
    use(b);
    memset(e, 0, sizeof *e);
    return scenario_load(path, NULL, 0, sc, e);
}

/* path loads under every build as under the reference: the same status,
 * the same message, the same bytes.  Returns the reference's status and
 * leaves its message in *e and its result in *ref. */
static int same_everywhere(const char *path, scenario *ref, sb_err *e)
{
    int want = load(&builds[0], path, ref, e);
    scenario *sc = calloc(1, sizeof *sc);
    ck_assert_ptr_nonnull(sc);
    for (int i = 1; i < N_BUILDS; i++) {
        sb_err got;
        int rc = load(&builds[i], path, sc, &got);
        ck_assert_msg(rc == want, "%s, %s: status %d, not %d (%s)",
                      builds[i].name, path, rc, want, got.msg);
        ck_assert_msg(strcmp(got.msg, e->msg) == 0, "%s, %s: '%s', not '%s'",
                      builds[i].name, path, got.msg, e->msg);
        ck_assert_msg(memcmp(sc, ref, sizeof *sc) == 0,
                      "%s, %s: loads into other values", builds[i].name, path);
    }
    free(sc);
    use(&builds[0]);
    return want;
}

START_TEST(shipped_scenarios_load_the_same)
{
    DIR *d = opendir(TU_SOURCE("scenarios"));
    ck_assert_ptr_nonnull(d);
    scenario *ref = calloc(1, sizeof *ref);
    int n = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".ini") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", TU_SOURCE("scenarios"),
                 de->d_name);
        sb_err e;
        ck_assert_msg(same_everywhere(path, ref, &e) == 0, "%s", e.msg);
        n++;
    }
    closedir(d);
    free(ref);
    ck_assert_int_ge(n, 4); /* the four shipped in README.md, at least */
}
END_TEST

/* The file as text: inputs that builds used to read differently. */
static int load_text(const char *text, scenario *sc, sb_err *e)
{
    return same_everywhere(tu_write_temp("inih-build.ini", text), sc, e);
}

#define HEAD "[scenario]\nname = x\nduration = 20s\nwarmup = 5s\n"

/* A 500-character description (the config holds up to 511): longer
 * than an upstream build's 200-byte line, so handed over long. */
START_TEST(long_line_loads_whole)
{
    char text[2048], desc[501];
    for (int i = 0; i < 500; i++)
        desc[i] = (char)('a' + i % 26);
    desc[500] = '\0';
    snprintf(text, sizeof text, HEAD "description =  %s  ; a comment\n", desc);
    scenario sc;
    sb_err e;
    ck_assert_msg(load_text(text, &sc, &e) == 0, "%s", e.msg);
    ck_assert_str_eq(sc.cfg.description, desc);
}
END_TEST

/* 2001 characters of value: past the 2000 a line may hold
 * (SCENARIO_LINE_MAX). */
START_TEST(line_over_the_limit_is_refused_at_its_line)
{
    char text[4096], desc[2002];
    memset(desc, 'd', 2001);
    desc[2001] = '\0';
    snprintf(text, sizeof text, HEAD "description = %s\n", desc);
    scenario sc;
    sb_err e;
    ck_assert_int_eq(load_text(text, &sc, &e), -1);
    char want[1200];
    snprintf(want, sizeof want, "%s:5: line is longer than 2000 characters",
             tu_temp_path("inih-build.ini"));
    ck_assert_str_eq(e.msg, want);
}
END_TEST

/* Upstream's default build would take "  workers = 4" for more of the
 * value of "service" above it. */
START_TEST(indented_line_is_a_key)
{
    scenario sc;
    sb_err e;
    ck_assert_msg(load_text(HEAD "[server]\nservice = const(10ms)\n"
                                 "    workers = 4\n",
                            &sc, &e) == 0,
                  "%s", e.msg);
    ck_assert_uint_eq(sc.cfg.server.workers, 4);
}
END_TEST

/* A build that does not stop at the first error would go on to the
 * duplicate key at line 8 and report that instead. */
START_TEST(first_error_is_the_one_reported)
{
    scenario sc;
    sb_err e;
    ck_assert_int_eq(load_text(HEAD "[server]\nworkers\nworkers = 1\n"
                                    "workers = 2\n",
                               &sc, &e),
                     -1);
    char want[1200];
    snprintf(want, sizeof want,
             "%s:6: expected 'key = value', a [section] "
             "or a comment",
             tu_temp_path("inih-build.ini"));
    ck_assert_str_eq(e.msg, want);
}
END_TEST

/* An error's line number and key, however the line was handed over. */
START_TEST(error_names_line_and_key)
{
    scenario sc;
    sb_err e;
    ck_assert_int_eq(
        load_text(HEAD "[server]\n\n  workers =   ten   ; x\n", &sc, &e), -1);
    char want[1200];
    snprintf(want, sizeof want,
             "%s:7: [server] workers: expected a "
             "whole number from 1 to 10000000, or 'unlimited', got 'ten'",
             tu_temp_path("inih-build.ini"));
    ck_assert_str_eq(e.msg, want);
}
END_TEST

/* Inline comments, ':' for '=', tabs, a byte order mark, comment lines
 * of both kinds: read alike by every build. */
START_TEST(comments_colons_and_bom)
{
    scenario sc;
    sb_err e;
    ck_assert_msg(load_text("\xEF\xBB\xBF" HEAD "# hash\n; semicolon\n"
                            "[server]\nworkers: 7 ; seven\n"
                            "\tqueue_limit\t=\t9\n",
                            &sc, &e) == 0,
                  "%s", e.msg);
    ck_assert_uint_eq(sc.cfg.server.workers, 7);
    ck_assert_uint_eq(sc.cfg.server.queue_limit, 9);
}
END_TEST

Suite *inih_builds_suite(void)
{
    Suite *s = suite_create("inih_builds");
    TCase *tc = tcase_create("builds");
    tcase_add_test(tc, shipped_scenarios_load_the_same);
    tcase_add_test(tc, long_line_loads_whole);
    tcase_add_test(tc, line_over_the_limit_is_refused_at_its_line);
    tcase_add_test(tc, indented_line_is_a_key);
    tcase_add_test(tc, first_error_is_the_one_reported);
    tcase_add_test(tc, error_names_line_and_key);
    tcase_add_test(tc, comments_colons_and_bom);
    suite_add_tcase(s, tc);
    return s;
}
