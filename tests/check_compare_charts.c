/*
 * check_compare_charts.c -- the comparison report's chart pages
 * (reports/compare_charts.c), read back from a real comparison's HTML:
 * the data each line chart carries for its script (report_lines_json)
 * and the regions of its bar charts say what was drawn, as numbers.
 *
 * One comparison: retry-storm, none and immediate on 2 seeds.  Immediate
 * retries never recover from its outage (the README's storm: every
 * attempt times out, so each request sends all five); none does.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static char dir[1024];
static char *html;

static void run(void)
{
    snprintf(dir, sizeof dir, "%s", tu_temp_path("compare-charts"));
    const char *argl[] = {"compare",    TU_SOURCE("scenarios/retry-storm.ini"),
                          "--seeds",    "2",
                          "--policies", "none,immediate",
                          "-o",         dir,
                          "-q",         NULL};
    tu_output o;
    tu_stormbench(&o, argl);
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    char path[1100];
    snprintf(path, sizeof path, "%s/report.html", dir);
    html = tu_read_file(path);
    ck_assert_ptr_nonnull(html);
}

static void done(void)
{
    free(html);
}

/* The JSON of the line chart whose figure's aria-label is `title`. */
static const char *chart_data(const char *title)
{
    char key[300];
    snprintf(key, sizeof key, "aria-label=\"%s\"", title);
    const char *f = strstr(html, key);
    ck_assert_msg(f != NULL, "no chart '%s'", title);
    const char *d = strstr(f, "class=\"sbc-data\">");
    ck_assert_ptr_nonnull(d);
    return d + strlen("class=\"sbc-data\">");
}

/* The last number of the array after `"key":[` from p on. */
static double last_of(const char *p, const char *key)
{
    const char *a = strstr(p, key);
    ck_assert_ptr_nonnull(a);
    const char *end = strchr(a, ']');
    const char *c = end;
    while (c > a && c[-1] != ',' && c[-1] != '[')
        c--;
    return strtod(c, NULL);
}

/* Issue 18: the latency chart showed successes only, and the curves of
 * none (97 % of requests succeed) and immediate (20 %) coincided.  Of
 * every request that ended, the share answered within a latency tops
 * out at the success ratio: immediate's curve ends near 0.999 x 20 %,
 * none's near 0.999 x 97 %. */
START_TEST(latency_counts_failures)
{
    const char *d = chart_data("Latency distribution: successes, failures "
                               "never answered");
    const char *none = strstr(d, "\"label\":\"none\"");
    const char *imm = strstr(d, "\"label\":\"immediate\"");
    ck_assert_ptr_nonnull(none);
    ck_assert_ptr_nonnull(imm);
    double top_none = last_of(strstr(none, "\"y\":["), "\"y\":[");
    double top_imm = last_of(strstr(imm, "\"y\":["), "\"y\":[");
    ck_assert_msg(top_none > 90 && top_none <= 100, "none: %g", top_none);
    ck_assert_msg(top_imm > 5 && top_imm < 30, "immediate: %g", top_imm);
}
END_TEST

/* A policy that never recovered is a bar ("never"), with how many seeds
 * and the Wilson interval of the share: 2 of 2 gives [0.342, 1] (z =
 * 1.96: centre (1 + 1.9208/2) / (1 + 3.8416/2) = 0.671, half-width
 * 1.96 sqrt(3.8416/16) / 2.9208 = 0.329).  It had no bar at all. */
START_TEST(never_recovered_is_a_bar)
{
    ck_assert_msg(strstr(html, "data-tip=\"immediate: never; never "
                               "recovered (2 of 2 seeds; 95 % CI of the "
                               "share 34-100 %)\""),
                  "no never bar for immediate");
    ck_assert_msg(strstr(html, "data-tip=\"none: 0.000 s"), "none's bar");
}
END_TEST

/* One policy, one colour, the strongest first: none (the first) is
 * blue #0072b2 and immediate vermillion #d55e00 in every line chart;
 * they were orange and sky blue, 2.3:1 on white. */
START_TEST(policy_colours)
{
    int charts = 0;
    for (const char *p = strstr(html, "class=\"sbc-data\">"); p;
         p = strstr(p + 1, "class=\"sbc-data\">")) {
        const char *n = strstr(p, "\"label\":\"none\",\"colour\":\"#0072b2\"");
        const char *i = strstr(p, "\"label\":\"immediate\",\"colour\":"
                                  "\"#d55e00\"");
        const char *end = strstr(p, "</script>");
        ck_assert_msg(n && n < end && i && i < end, "%.200s", p);
        charts++;
    }
    ck_assert_int_ge(charts, 5);
}
END_TEST

/* ---- Units: nightly-pipeline, plan and none on 2 seeds ----------------
 * Its p99s are minutes long (plan's mean 240 s, none's 59.9 s) and its
 * runs take most of an hour (52.8 and 46.7 min): the tables and
 * verdicts print them in s and min (compare_shown_unit: s once the
 * largest mean reaches 10 000 ms, min from 600 s).  The charts' axes
 * said "p99 latency (ms)" up to 400 000 and "completion time (s)". */
static char *night;

static void run_night(void)
{
    char d[1100];
    snprintf(d, sizeof d, "%s", tu_temp_path("compare-charts-night"));
    const char *argl[] = {
        "compare",    TU_SOURCE("scenarios/nightly-pipeline.ini"),
        "--seeds",    "2",
        "--policies", "plan,none",
        "-o",         d,
        "-q",         NULL};
    tu_output o;
    tu_stormbench(&o, argl);
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    char path[1200];
    snprintf(path, sizeof path, "%s/report.html", d);
    night = tu_read_file(path);
    ck_assert_ptr_nonnull(night);
}

static void done_night(void)
{
    free(night);
}

/* The bars say what summary.md's table says, in its units: "240 [0,
 * 765]" s and "52.8 [50.7, 54.9]" min for plan; the p99 over time and
 * the latency distribution are in s too (their hover's unit). */
START_TEST(charts_in_the_tables_units)
{
    ck_assert_msg(strstr(night, "data-tip=\"plan: 240 s [0, 765]\""),
                  "p99 bar");
    ck_assert_msg(strstr(night, "data-tip=\"none: 59.9 s [59.9, 59.9]\""),
                  "p99 bar");
    ck_assert_msg(strstr(night, "data-tip=\"plan: 52.8 min [50.7, 54.9]\""),
                  "completion bar");
    ck_assert_msg(strstr(night, "aria-label=\"P99 latency\""), "p99 bars");
    const char *t = strstr(night, "aria-label=\"Latency of successful "
                                  "requests, p99\"");
    ck_assert_ptr_nonnull(t);
    ck_assert_msg(strstr(t, "\"yunit\":\"s\""), "p99 over time");
    const char *c = strstr(night, "aria-label=\"Latency distribution");
    ck_assert_ptr_nonnull(c);
    ck_assert_msg(strstr(c, "\"xname\":\"latency (s)\""), "latency CDF");
    /* No chart's axis in ms (the phase table is another matter). */
    ck_assert_ptr_null(strstr(night, "unit\":\"ms\""));
    ck_assert_ptr_null(strstr(night, "ms [" /* a bar's hover */));
}
END_TEST

Suite *compare_charts_suite(void)
{
    Suite *s = suite_create("compare_charts");
    TCase *tc = tcase_create("retry_storm");
    tcase_add_unchecked_fixture(tc, run, done);
    tcase_add_test(tc, latency_counts_failures);
    tcase_add_test(tc, never_recovered_is_a_bar);
    tcase_add_test(tc, policy_colours);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    TCase *units = tcase_create("units");
    tcase_add_unchecked_fixture(units, run_night, done_night);
    tcase_add_test(units, charts_in_the_tables_units);
    tcase_set_timeout(units, 120);
    suite_add_tcase(s, units);
    return s;
}
