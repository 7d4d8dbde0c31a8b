/*
 * check_report_pipeline.c -- a comparison's report (reports/compare_report.c)
 * when the scenario has a pipeline: the jobs' metrics get a table of
 * their own and a verdict each, in the PDF and the HTML; without a
 * pipeline the report names none of them.  And its phase table's units
 * (a p99 in s past 10 s, as the results table has it).  The runs are
 * saved by hand (reports/runfile.h), so every figure is known.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare.h"
#include "compare_report.h"
#include "runfile.h"
#include "testutil.h"

#define SEEDS 3

typedef struct fixture {
    compare_plan plan;
    compare_point point;
} fixture;

static fixture *plan_of(bool pipeline)
{
    static const char *const labels[] = {"immediate", "exponential"};
    fixture *f = calloc(1, sizeof *f);
    ck_assert_ptr_nonnull(f);
    compare_plan *p = &f->plan;
    snprintf(p->name, sizeof p->name, "jobs");
    for (int i = 0; i < 2; i++) {
        snprintf(p->policies[i].label, sizeof p->policies[i].label, "%s",
                 labels[i]);
        snprintf(p->policies[i].stack, sizeof p->policies[i].stack, "%s",
                 labels[i]);
    }
    p->n_policies = 2;
    p->seed0 = 1;
    p->n_seeds = SEEDS;
    config_defaults(&f->point.cfg);
    if (pipeline) {
        pipeline_cfg *pc = &f->point.cfg.pipeline;
        pc->n_steps = 1;
        snprintf(pc->steps[0].name, sizeof pc->steps[0].name, "load");
    }
    p->points = &f->point;
    p->n_points = 1;
    compare_plan_fingerprint(p, "jobs", 4);
    return f;
}

static const char *fresh_dir(const char *name)
{
    static char d[1024];
    snprintf(d, sizeof d, "%s", tu_temp_path(name));
    char cmd[1100], runs[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(runs, sizeof runs, "%s/runs", d);
    mkdir(d, 0777);
    mkdir(runs, 0777);
    return d;
}

/* Run (policy, seed): 100 requests all served; with a pipeline, 50 jobs
 * of which `completed` completed and the rest failed; with a
 * during_p99_ms above 0, two phases: before the fault (0 to 60 s, p99
 * 100 + 10 sd ms) and during it (60 to 70 s, p99 during_p99_ms). */
static void save_run(const fixture *f, const char *dir, int pol, uint32_t sd,
                     bool pipeline, uint64_t completed, double during_p99_ms)
{
    compare_run r;
    memset(&r, 0, sizeof r);
    r.policy = (uint32_t)pol;
    r.seed = f->plan.seed0 + sd;
    r.sum.duration_s = 3;
    r.sum.offered = r.sum.successes = 100 + sd;
    r.sum.attempts = 150 + 10 * (uint64_t)pol + sd;
    r.sum.amplification = (double)r.sum.attempts / (double)r.sum.offered;
    r.sum.success_ratio = 1;
    if (pipeline) {
        sim_pipeline_summary *pl = &r.sum.pipeline;
        r.sum.has_pipeline = true;
        pl->steps = 1;
        pl->jobs = 50;
        pl->completed = completed;
        pl->failed = 50 - completed;
        pl->alerts_critical = 50 - completed;
        pl->blocked_s = (double)(50 - completed);
    }
    if (during_p99_ms > 0) {
        r.sum.phase[PHASE_BEFORE] =
            (sim_phase){true, 0, 60, 100, 100, 1.0, 1.0, 100.0 + 10.0 * sd, 0};
        r.sum.phase[PHASE_DURING] =
            (sim_phase){true, 60, 70, 100, 50, 0.5, 2.0, during_p99_ms, 0};
    }
    for (int i = 0; i < COMPARE_CDF_POINTS; i++)
        r.latency_ms[i] = (float)(10 + i);
    compare_series *s = calloc(1, sizeof *s);
    s->n_rows = 3;
    s->row_s = 1;
    for (uint32_t i = 0; i < s->n_rows; i++)
        for (int c = 0; c < CC_COUNT; c++)
            s->v[i][c] = 1.0f + (float)i;
    char path[1200];
    runfile_path(path, sizeof path, dir, 0, (uint32_t)pol, r.seed);
    runfile_buf buf = {0};
    sb_err e;
    ck_assert_msg(runfile_write(&buf, path, f->plan.fingerprint,
                                f->plan.policies[pol].label, &r, s, &e) == 0,
                  "%s", e.msg);
    runfile_buf_free(&buf);
    free(s);
}

/* The report of a comparison with or without a pipeline (or, with
 * `phased`, without one and with phases): its PDF's text and its HTML,
 * malloc'd.  During the fault immediate's p99 is 59 000, 60 000, 61 000
 * ms, exponential's 2 000, 3 000, 4 000. */
static void report_of_runs(bool pipeline, bool phased, char **text, char **html)
{
    fixture *f = plan_of(pipeline);
    const char *dir = fresh_dir(phased     ? "rp-phases"
                                : pipeline ? "rp-pipe"
                                           : "rp-plain");
    /* exponential completes 45 to 47 jobs of 50, immediate 30 to 32. */
    for (uint32_t sd = 0; sd < SEEDS; sd++) {
        save_run(f, dir, 0, sd, pipeline, 30 + sd,
                 phased ? 59000.0 + 1000.0 * sd : 0);
        save_run(f, dir, 1, sd, pipeline, 45 + sd,
                 phased ? 2000.0 + 1000.0 * sd : 0);
    }
    const char *dirs[1] = {dir};
    compare_result *res;
    sb_err e;
    ck_assert_msg(compare_load(&f->plan, dirs, 1, &res, &e) == 0, "%s", e.msg);
    char pdf[1200], htm[1200];
    snprintf(pdf, sizeof pdf, "%s/report.pdf", dir);
    snprintf(htm, sizeof htm, "%s/report.html", dir);
    ck_assert_msg(compare_report_write(res, dirs, 1, pdf, htm, &e) == 0, "%s",
                  e.msg);
    if (phased) {
        char path[1200];
        snprintf(path, sizeof path, "%s/summary.md", dir);
        ck_assert_msg(compare_write_md(res, path, &e) == 0, "%s", e.msg);
        snprintf(path, sizeof path, "%s/summary.json", dir);
        ck_assert_msg(compare_write_json(res, path, &e) == 0, "%s", e.msg);
    }
    *text = tu_tool_output(SB_PDFTOTEXT, (const char *[]){pdf, "-", NULL});
    *html = tu_read_file(htm);
    ck_assert_ptr_nonnull(*html);
    compare_result_free(res);
    free(f);
}

static void report_of(bool pipeline, char **text, char **html)
{
    report_of_runs(pipeline, false, text, html);
}

START_TEST(pipeline_report_has_the_jobs)
{
    char *text, *html;
    report_of(true, &text, &html);
    ck_assert_msg(strstr(text, "The pipeline's jobs:") != NULL, "%s", text);
    /* Column heads may wrap in the PDF's table: the words, then. */
    ck_assert_ptr_nonnull(strstr(text, "jobs completed"));
    ck_assert_ptr_nonnull(strstr(text, "blocked time per job"));
    ck_assert_ptr_nonnull(strstr(html, "jobs completed (%)"));
    ck_assert_ptr_nonnull(strstr(html, "critical alerts"));
    /* (45 + 46 + 47) / 3 / 50 = 92 %, (30 + 31 + 32) / 3 / 50 = 62 %. */
    ck_assert_ptr_nonnull(strstr(html, "jobs completed: exponential: most "
                                       "jobs completed (92.0 % vs 62.0 % "
                                       "for immediate, the next "
                                       "best)"));
    ck_assert_ptr_nonnull(strstr(html, "fewest critical alerts"));
    free(text);
    free(html);
}
END_TEST

START_TEST(plain_report_has_no_jobs)
{
    char *text, *html;
    report_of(false, &text, &html);
    ck_assert_ptr_nonnull(strstr(text, "Verdicts"));
    ck_assert_ptr_null(strstr(text, "jobs completed"));
    ck_assert_ptr_null(strstr(text, "The pipeline's jobs"));
    ck_assert_ptr_null(strstr(html, "jobs completed"));
    ck_assert_ptr_null(strstr(html, "critical alerts"));
    free(text);
    free(html);
}
END_TEST

/* Issue 18: the phase table printed "59861" under "p99 (ms)" where the
 * results table said "59.9 s".  Now each phase's table takes the unit
 * of compare_shown_unit's rule from its own figures: during the fault
 * the largest mean is 60 000 ms (10 s or more), so seconds: immediate
 * 60.0 [57.5, 62.5] (sd 1 s, t(0.975, 2) = 4.303, 4.303 / sqrt 3 =
 * 2.484), exponential 3.00 [0.52, 5.48]; before it the p99 is 100, 110,
 * 120 ms (mean 110, under 10 s): ms, "110 [85, 135]". */
START_TEST(phase_table_prints_seconds_past_ten)
{
    char *text, *html;
    report_of_runs(false, true, &text, &html);
    ck_assert_msg(strstr(html, "p99 (s)") != NULL, "%s", html);
    ck_assert_msg(strstr(html, "60.0 [57.5,\xc2\xa0"
                               "62.5]") != NULL,
                  "%s", html);
    ck_assert_msg(strstr(html, "3.00 [0.52,\xc2\xa0"
                               "5.48]") != NULL,
                  "%s", html);
    ck_assert_msg(strstr(html, "p99 (ms)") != NULL, "%s", html);
    ck_assert_msg(strstr(html, "110 [85,\xc2\xa0"
                               "135]") != NULL,
                  "%s", html);
    ck_assert_ptr_null(strstr(html, "60000 ["));
    ck_assert_msg(strstr(text, "p99 (s)") != NULL, "%s", text);
    ck_assert_msg(strstr(text, "60.0 [57.5") != NULL, "%s", text);
    free(text);
    free(html);
    /* summary.md the same; summary.json keeps ms, for programs. */
    char path[1200];
    snprintf(path, sizeof path, "%s/summary.md", tu_temp_path("rp-phases"));
    char *md = tu_read_file(path);
    ck_assert_ptr_nonnull(md);
    ck_assert_msg(strstr(md,
                         "| during faults (60 to 70 s) | p99 latency (s) "
                         "| 60.0 [57.5, 62.5] | 3.00 [0.52, 5.48] |") != NULL,
                  "%s", md);
    ck_assert_msg(strstr(md, "| before the fault (0 to 60 s) | p99 latency "
                             "(ms) | 110 [85, 135] |") != NULL,
                  "%s", md);
    free(md);
    snprintf(path, sizeof path, "%s/summary.json", tu_temp_path("rp-phases"));
    char *json = tu_read_file(path);
    ck_assert_ptr_nonnull(json);
    ck_assert_msg(strstr(json, "\"mean\": 60000") != NULL, "%s", json);
    free(json);
}
END_TEST

Suite *report_pipeline_suite(void)
{
    Suite *s = suite_create("report_pipeline");
    TCase *tc = tcase_create("report");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, pipeline_report_has_the_jobs);
    tcase_add_test(tc, plain_report_has_no_jobs);
    tcase_add_test(tc, phase_table_prints_seconds_past_ten);
    suite_add_tcase(s, tc);
    return s;
}
