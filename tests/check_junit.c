/*
 * check_junit.c -- `run --junit` and `compare --junit`: the file is valid
 * against the Jenkins/Ant JUnit schema (tests/junit-jenkins.xsd, checked
 * with libxml2's xmllint), says what the run said (a case per [expect]
 * assertion, failed exactly where the printed summary says FAIL), escapes
 * any scenario name into well-formed XML, and is the same bytes for the
 * same run.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define XSD TU_SOURCE("tests/junit-jenkins.xsd")
#define STORM TU_SOURCE("scenarios/retry-storm.ini")
#define HERD TU_SOURCE("scenarios/thundering-herd.ini")
#define TIERS TU_SOURCE("scenarios/tier-amplification.ini")

/* xmllint's verdict on file: 0 valid; its stderr in *why (malloc'd). */
static int xmllint(const char *file, char **why)
{
    ck_assert_msg(SB_XMLLINT[0] != '\0',
                  "xmllint not found: .ci/setup installs libxml2-utils");
    tu_output o;
    tu_run(&o, (const char *[]){SB_XMLLINT, "--noout", "--schema", XSD, file,
                                NULL});
    int rc = o.status;
    *why = strdup(o.err ? o.err : "");
    tu_output_free(&o);
    return rc;
}

static void assert_valid(const char *file)
{
    char *why;
    int rc = xmllint(file, &why);
    ck_assert_msg(rc == 0, "%s is not valid JUnit XML: %s", file, why);
    free(why);
}

/* tu_temp_path's static buffer, copied: running a program reuses it. */
static const char *keep(const char *path)
{
    static char kept[8][1024];
    static int next;
    char *k = kept[next++ % 8];
    snprintf(k, 1024, "%s", path);
    return k;
}

/* The schema check has teeth: a case without its name, a <skipped> with
 * an attribute the schema does not have, and cases after system-out are
 * each refused.  Without this, a test that passes xmllint could pass
 * against any schema. */
START_TEST(schema_refuses_what_jenkins_would)
{
    static const char *const bad[] = {
        "<testsuites><testsuite name=\"a\" tests=\"1\"><testcase "
        "classname=\"x\"/></testsuite></testsuites>",
        "<testsuites><testsuite name=\"a\" tests=\"1\"><testcase name=\"n\">"
        "<skipped message=\"m\"/></testcase></testsuite></testsuites>",
        "<testsuites><testsuite name=\"a\" tests=\"1\"><system-out>o"
        "</system-out><testcase name=\"n\"/></testsuite></testsuites>",
        "<testsuites><testsuite tests=\"0\"/></testsuites>"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char name[32];
        snprintf(name, sizeof name, "junit-bad-%zu.xml", i);
        char *why;
        int rc = xmllint(keep(tu_write_temp(name, bad[i])), &why);
        ck_assert_msg(rc != 0, "xmllint accepted bad document %zu", i);
        ck_assert_ptr_nonnull(strstr(why, "fails to validate"));
        free(why);
    }
    char *why;
    ck_assert_int_eq(
        xmllint(keep(tu_write_temp("junit-good.xml",
                                   "<testsuites><testsuite name=\"a\" "
                                   "tests=\"1\"><testcase name=\"n\"/>"
                                   "</testsuite></testsuites>")),
                &why),
        0);
    free(why);
}
END_TEST

/* A run's file: a case per assertion the summary prints, failed where it
 * prints FAIL, with the printed sentence as the failure's message. */
START_TEST(run_cases_are_the_printed_verdicts)
{
    const char *xml = keep(tu_temp_path("junit-run.xml"));
    tu_output o;
    tu_stormbench(&o, (const char *[]){"run", STORM, "--no-timing", "--set",
                                       "expect.amplification_max=2", "--junit",
                                       xml, NULL});
    ck_assert_int_eq(o.status, 1);
    int pass = tu_count(o.out, "\n  PASS  "),
        fail = tu_count(o.out, "\n  FAIL  ");
    /* retry-storm's [expect] says metastable = true, which holds; the
     * --set adds amplification_max = 2, which its 4.163 breaks (the
     * figure check_cli pins). */
    ck_assert_int_eq(pass, 1);
    ck_assert_int_eq(fail, 1);
    tu_output_free(&o);
    assert_valid(xml);
    char *x = tu_read_file(xml);
    ck_assert_ptr_nonnull(x);
    ck_assert_int_eq(tu_count(x, "<testcase "), pass + fail);
    ck_assert_int_eq(tu_count(x, "<failure "), fail);
    ck_assert_ptr_nonnull(strstr(x, "<testsuites name=\"stormbench run\" "
                                    "tests=\"2\" failures=\"1\" "
                                    "errors=\"0\">"));
    ck_assert_ptr_nonnull(strstr(
        x, "<testcase classname=\"stormbench.retry-storm.immediate\" "
           "name=\"amplification_max\">\n      <failure type=\"expectation\" "
           "message=\"amplification 4.163 exceeds limit 2\">"));
    ck_assert_ptr_nonnull(
        strstr(x, "<testcase classname=\"stormbench.retry-storm.immediate\" "
                  "name=\"metastable\"/>"));
    ck_assert_ptr_nonnull(strstr(x, "<property name=\"seed\" value=\"1\"/>"));
    /* The printed summary rides along as the suite's system-out. */
    ck_assert_ptr_nonnull(strstr(x, "<system-out>scenario  retry-storm"));
    /* --no-timing: no wall time, so no time attribute. */
    ck_assert_ptr_null(strstr(x, " time=\""));
    free(x);
}
END_TEST

/* Same run, same bytes (--no-timing); with timing the suite and the root
 * carry the run's wall time. */
START_TEST(same_run_same_bytes)
{
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s", tu_temp_path("junit-a.xml"));
    snprintf(b, sizeof b, "%s", tu_temp_path("junit-b.xml"));
    const char *files[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        tu_output o;
        tu_stormbench(&o, (const char *[]){"run", HERD, "--no-timing", "-q",
                                           "--junit", files[i], NULL});
        ck_assert_int_eq(o.status, 0);
        tu_output_free(&o);
    }
    char *x = tu_read_file(a), *y = tu_read_file(b);
    ck_assert_str_eq(x, y);
    free(x);
    free(y);
    tu_output o;
    tu_stormbench(&o, (const char *[]){"run", HERD, "-q", "--junit", a, NULL});
    ck_assert_int_eq(o.status, 0);
    tu_output_free(&o);
    assert_valid(a);
    x = tu_read_file(a);
    ck_assert_int_eq(tu_count(x, " time=\""), 2);
    free(x);
}
END_TEST

/* Any bytes in a scenario's name give a well-formed, valid file: markup
 * characters as entities, a control character as a space, a byte that is
 * not UTF-8 as '?', and UTF-8 kept. */
START_TEST(any_name_is_escaped)
{
    char *ini = tu_read_file(HERD);
    ck_assert_ptr_nonnull(ini);
    char *name = strstr(ini, "name = thundering-herd");
    ck_assert_ptr_nonnull(name);
    size_t head = (size_t)(name - ini);
    const char *rest = name + strlen("name = thundering-herd");
    size_t len = strlen(ini) + 64;
    char *text = malloc(len);
    snprintf(text, len, "%.*sname = a<b>&\"c\" 'd' \x01 \xff \xc3\xa9%s",
             (int)head, ini, rest);
    const char *path = keep(tu_write_temp("junit-name.ini", text));
    const char *xml = keep(tu_temp_path("junit-name.xml"));
    tu_output o;
    tu_stormbench(&o, (const char *[]){"run", path, "-q", "--no-timing",
                                       "--junit", xml, NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    assert_valid(xml);
    char *x = tu_read_file(xml);
    ck_assert_ptr_nonnull(strstr(
        x, "<testsuite name=\"a&lt;b&gt;&amp;&quot;c&quot; &apos;d&apos;   ? "
           "\xc3\xa9: exponential, seed 1\""));
    /* The class name's parts lose what Jenkins would split at. */
    ck_assert_ptr_nonnull(strstr(
        x, "classname=\"stormbench.a&lt;b&gt;&amp;&quot;c&quot;_&apos;d&apos;"
           "_ _?_\xc3\xa9.exponential\""));
    free(x);
    free(text);
    free(ini);
}
END_TEST

/* compare: a suite per policy, a case per assertion, failed on exactly
 * the seeds whose own `run` fails it -- checked against `run` itself,
 * seed by seed.  merge --junit writes the same bytes from the saved runs. */
START_TEST(compare_cases_agree_with_run)
{
    const char *dir = keep(tu_temp_path("junit-compare"));
    char xml[1024], merged[1024];
    snprintf(xml, sizeof xml, "%s", tu_temp_path("junit-compare.xml"));
    snprintf(merged, sizeof merged, "%s", tu_temp_path("junit-merged.xml"));
    tu_output o;
    /* latency_p99_max = 36 s splits exponential's seeds: its p99 is
     * 35.2 s, 42.1 s and 35.7 s on seeds 1, 2 and 3 (each seed's `run`
     * summary); immediate gives up fast and stays under it. */
    tu_stormbench(&o, (const char *[]){"compare", HERD, "--policies",
                                       "exponential,immediate", "--seeds", "3",
                                       "--no-report", "-q", "-o", dir, "--set",
                                       "expect.latency_p99_max=36s", "--junit",
                                       xml, NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    assert_valid(xml);
    char *x = tu_read_file(xml);
    ck_assert_int_eq(tu_count(x, "<testsuite "), 2);
    static const char *const pols[2] = {"exponential", "immediate"};
    for (int p = 0; p < 2; p++) {
        char failed_seeds[64] = "";
        int failed = 0;
        for (int seed = 1; seed <= 3; seed++) {
            char s[8];
            snprintf(s, sizeof s, "%d", seed);
            tu_stormbench(&o,
                          (const char *[]){"run", HERD, "-q", "--policy",
                                           pols[p], "--seed", s, "--set",
                                           "expect.latency_p99_max=36s", NULL});
            ck_assert_int_ne(o.status, 2);
            if (strstr(o.out, "FAIL  latency_p99_max")) {
                size_t n = strlen(failed_seeds);
                snprintf(failed_seeds + n, sizeof failed_seeds - n, "%s%d",
                         failed ? ", " : "", seed);
                failed++;
            }
            tu_output_free(&o);
        }
        char want[256];
        char cls[128];
        snprintf(cls, sizeof cls,
                 "<testcase classname=\"stormbench.thundering-herd.%s\" "
                 "name=\"latency_p99_max\"",
                 pols[p]);
        const char *c = strstr(x, cls);
        ck_assert_ptr_nonnull(c);
        if (failed) {
            snprintf(want, sizeof want,
                     "%s>\n      <failure type=\"expectation\" "
                     "message=\"failed on %d of 3 seeds (%s); seed ",
                     cls, failed, failed_seeds);
            ck_assert_msg(strncmp(c, want, strlen(want)) == 0, "%s: want %s",
                          pols[p], want);
        } else {
            snprintf(want, sizeof want, "%s/>", cls);
            ck_assert_msg(strncmp(c, want, strlen(want)) == 0, "%s: want %s",
                          pols[p], want);
        }
    }
    /* So the loop above saw a failure and a pass among one policy's
     * seeds, not only whole passes. */
    ck_assert_ptr_nonnull(strstr(x, "message=\"failed on 1 of 3 seeds "
                                    "(2); seed 2: p99 latency"));
    tu_stormbench(&o, (const char *[]){"merge", dir, "-q", "--no-report",
                                       "--junit", merged, NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    char *y = tu_read_file(merged);
    ck_assert_str_eq(x, y);
    free(y);
    free(x);
}
END_TEST

/* A tier's [expect.NAME] cannot be judged from compare's saved runs: each
 * is a skipped case that says why, not left out. */
/* Whether TEXT says "1 NOUNS" of a count of one: a "1" that is not the
 * end of a longer number ("121 runs/s" is a rate, and so is "1 runs/s"). */
static bool says_one_plural(const char *text, const char *nouns)
{
    char want[32];
    snprintf(want, sizeof want, "1 %s", nouns);
    for (const char *c = strstr(text, want); c; c = strstr(c + 1, want)) {
        bool digit_before = c > text && c[-1] >= '0' && c[-1] <= '9';
        bool rate = c[strlen(want)] == '/';
        if (!digit_before && !rate)
            return true;
    }
    return false;
}

/* One seed is "its only seed", never "1 of 1 seeds", in the JUnit
 * message, and one run is "1 of 1 run" in compare's lines.  Seed 2 of
 * thundering-herd gives exponential a p99 of 42.1 s
 * (compare_cases_agree_with_run), over latency_p99_max = 36 s. */
START_TEST(one_seed_is_its_only_seed)
{
    const char *dir = keep(tu_temp_path("junit-one-seed"));
    const char *xml = keep(tu_temp_path("junit-one-seed.xml"));
    tu_output o;
    tu_stormbench(&o, (const char *[]){"compare", HERD, "--policies",
                                       "exponential", "--seeds", "1", "--seed",
                                       "2", "--no-report", "-o", dir, "--set",
                                       "expect.latency_p99_max=36s", "--junit",
                                       xml, NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    ck_assert_msg(strstr(o.out, "thundering-herd: 1 policy x 1 seed (1 run)\n"),
                  "%s", o.out);
    ck_assert_msg(strstr(o.err, "compare: 1 of 1 run done in "), "%s", o.err);
    ck_assert_msg(!says_one_plural(o.out, "runs") &&
                      !says_one_plural(o.err, "runs") &&
                      !says_one_plural(o.out, "seeds"),
                  "%s%s", o.out, o.err);
    tu_output_free(&o);
    assert_valid(xml);
    char *x = tu_read_file(xml);
    ck_assert_msg(strstr(x, "message=\"failed on its only seed (2): p99 "
                            "latency"),
                  "%s", x);
    ck_assert_msg(!strstr(x, "of 1 seeds"), "%s", x);
    free(x);
}
END_TEST

START_TEST(compare_skips_tier_assertions)
{
    const char *dir = keep(tu_temp_path("junit-tiers"));
    const char *xml = keep(tu_temp_path("junit-tiers.xml"));
    tu_output o;
    tu_stormbench(&o, (const char *[]){"compare", TIERS, "--seeds", "1",
                                       "--no-report", "-q", "-o", dir,
                                       "--junit", xml, NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    assert_valid(xml);
    char *x = tu_read_file(xml);
    /* tier-amplification.ini has [expect.db] and [expect.api], two keys
     * each (read in the file). */
    ck_assert_int_eq(tu_count(x, "<skipped>a tier&apos;s [expect.NAME] is "
                                 "judged by `stormbench run`"),
                     4);
    ck_assert_ptr_nonnull(strstr(x, "name=\"db.amplification_max\">"));
    ck_assert_ptr_nonnull(strstr(x, " skipped=\"4\""));
    free(x);
}
END_TEST

Suite *junit_suite(void)
{
    Suite *s = suite_create("junit");
    TCase *tc = tcase_create("junit");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, schema_refuses_what_jenkins_would);
    tcase_add_test(tc, run_cases_are_the_printed_verdicts);
    tcase_add_test(tc, same_run_same_bytes);
    tcase_add_test(tc, any_name_is_escaped);
    tcase_add_test(tc, compare_cases_agree_with_run);
    tcase_add_test(tc, compare_skips_tier_assertions);
    tcase_add_test(tc, one_seed_is_its_only_seed);
    suite_add_tcase(s, tc);
    return s;
}
