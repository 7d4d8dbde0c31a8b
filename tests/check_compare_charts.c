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

/* compare SCEN over 2 seeds with EXTRA (NULL-ended: policies,
 * sweeps) into a fresh directory D named after TAG. */
static void compare_into(const char *scen, const char *const *extra,
                         const char *tag, char *d, size_t len)
{
    snprintf(d, len, "%s", tu_temp_path(tag));
    const char *argl[16] = {"compare", scen, "--seeds", "2"};
    int n = 4;
    while (*extra && n < 12)
        argl[n++] = *extra++;
    argl[n++] = "-o";
    argl[n++] = d;
    argl[n++] = "-q";
    argl[n] = NULL;
    tu_output o;
    tu_stormbench(&o, argl);
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
}

#define RETRY_STORM TU_SOURCE("scenarios/retry-storm.ini")

static void run(void)
{
    compare_into(RETRY_STORM,
                 (const char *[]){"--policies", "none,immediate", NULL},
                 "compare-charts", dir, sizeof dir);
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
    compare_into(TU_SOURCE("scenarios/nightly-pipeline.ini"),
                 (const char *[]){"--policies", "plan,none", NULL},
                 "compare-charts-night", d, sizeof d);
    char path[1200];
    snprintf(path, sizeof path, "%s/report.html", d);
    night = tu_read_file(path);
    ck_assert_ptr_nonnull(night);
}

static void done_night(void)
{
    free(night);
}

/* The charts use the tables' rule, applied to how far their axes reach
 * (report_lines_reach): the completion bars say what summary.md's
 * table says, "52.8 [50.7, 54.9]" min for plan.  The p99 over time peaks
 * at 283 s, on an axis to 300 s (chart_axis_top: step 50, the nice
 * number nearest 283 / 4), and the latency distribution ends at 281 s:
 * both in s, as the table's p99.  But plan's p99 bar has a whisker to
 * 765 s, on an axis to 800 s (step 200, nearest 191): past 10 min, so in
 * min (240 s = 4.00 min, 765 s = 12.75, none's 59.9 s = 0.998) though
 * the table, by the means, prints s. */
START_TEST(charts_in_the_tables_units)
{
    ck_assert_msg(strstr(night, "data-tip=\"plan: 4.00 min [0.00, 12.75]\""),
                  "p99 bar");
    ck_assert_msg(strstr(night, "data-tip=\"none: 0.998 min [0.998, "
                                "0.998]\""),
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

/* ---- Units from the axis: retry-storm, none and fixed on 2 seeds ------
 * Fixed retries' p99 is 5436 ms on average, none's 495: the tables print
 * both in ms (summary.md: "5436 [0, 12684]"), by their means.  But the
 * charts draw more than the means.  Fixed's bar has a whisker to
 * 12 684 ms, so its axis reaches chart_axis_top(12684) = 15 000 ms (a
 * step of 5000: the nice number nearest 12684 / 4); the median p99 over
 * time peaks at 8858 ms, on an axis to chart_axis_top(8858) = 10 000 ms
 * (step 2000).  Both reach 10 s: s, the tables' rule applied to the
 * axis.  Both were in ms (from the means), an axis reading 0 to 15 000.
 * The latency distribution's log axis ends at its largest latency,
 * 8791 ms: under 10 s, ms (its 1-2-5 end, 10 000, lies past the data). */
static char *fixed_html, *fixed_md;

static void run_fixed(void)
{
    char d[1100];
    compare_into(RETRY_STORM,
                 (const char *[]){"--policies", "none,fixed", NULL},
                 "compare-charts-fixed", d, sizeof d);
    char path[1200];
    snprintf(path, sizeof path, "%s/report.html", d);
    fixed_html = tu_read_file(path);
    snprintf(path, sizeof path, "%s/summary.md", d);
    fixed_md = tu_read_file(path);
    ck_assert_ptr_nonnull(fixed_html);
    ck_assert_ptr_nonnull(fixed_md);
}

static void done_fixed(void)
{
    free(fixed_html);
    free(fixed_md);
}

START_TEST(unit_from_the_axis)
{
    /* The tables, by the means: ms. */
    ck_assert_msg(strstr(fixed_md, "| p99 latency (ms) | 495 [362, 628] | "
                                   "5436 [0, 12684] |"),
                  "summary.md's p99 row");
    /* The bars, by their axis: s (5436 ms = 5.44 s, 12 684 = 12.68). */
    ck_assert_msg(strstr(fixed_html, "data-tip=\"fixed: 5.44 s [0.00, "
                                     "12.68]\""),
                  "fixed's p99 bar");
    ck_assert_ptr_null(strstr(fixed_html, "data-tip=\"fixed: 5436 ms"));
    /* The p99 over time: s, its peak 8.858. */
    const char *t = strstr(fixed_html, "aria-label=\"Latency of successful "
                                       "requests, p99\"");
    ck_assert_ptr_nonnull(t);
    const char *end = strstr(t, "</script>");
    const char *u = strstr(t, "\"yunit\":\"s\"");
    ck_assert_msg(u && u < end, "p99 over time not in s");
    /* The distribution: ms, its largest latency under 10 s. */
    const char *c = strstr(fixed_html, "aria-label=\"Latency distribution");
    ck_assert_ptr_nonnull(c);
    ck_assert_msg(strstr(c, "\"xname\":\"latency (ms)\""), "latency CDF");
}
END_TEST

/* A map with a row of empty cells: retry-storm's outage swept to start
 * at 60 s and at 290 s, 10 s before the run ends, which leaves no window
 * to judge recovery in (immediate, 2 seeds, load 0.7 and 0.8).  The
 * words said "290s: no seed tipped", a claim about seeds never judged;
 * they say recovery was not judged there. */
START_TEST(map_words_for_empty_cells)
{
    char d[1100];
    compare_into(RETRY_STORM,
                 (const char *[]){"--policies", "immediate", "--sweep",
                                  "load=0.7:0.8:0.1", "--sweep",
                                  "fault.outage.start=60s:290s:230s", NULL},
                 "compare-charts-map", d, sizeof d);
    char path[1200];
    snprintf(path, sizeof path, "%s/report.html", d);
    char *h = tu_read_file(path);
    ck_assert_ptr_nonnull(h);
    ck_assert_msg(strstr(h, "fault.outage.start (s) 290: no value: recovery "
                            "was not judged on any seed"),
                  "the 290 s cells are empty, and say why");
    ck_assert_msg(strstr(h, "; 290s: recovery not judged at any value."),
                  "the words for the empty row");
    ck_assert_ptr_null(strstr(h, "290s: no seed tipped"));
    free(h);
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
    TCase *axis = tcase_create("axis_units");
    tcase_add_unchecked_fixture(axis, run_fixed, done_fixed);
    tcase_add_test(axis, unit_from_the_axis);
    tcase_set_timeout(axis, 120);
    suite_add_tcase(s, axis);
    TCase *map = tcase_create("map");
    tcase_add_test(map, map_words_for_empty_cells);
    tcase_set_timeout(map, 120);
    suite_add_tcase(s, map);
    return s;
}
