/*
 * check_jobs.c -- a pipeline's jobs in the run's outputs (reports/jobs.h,
 * export.h, expect.h): a summary with pipeline figures set by hand is
 * printed, written as JSON and judged by the pipeline's [expect] keys, and
 * each output must carry those figures; without a pipeline, none of the
 * outputs changes (no block, no "pipeline" key, no CSV column).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "export.h"
#include "jobs.h"
#include "print.h"
#include "testutil.h"

/* A compensating pipeline of two steps after 50 jobs: 36 completed (30 of
 * them within the SLA), 10 failed, 3 compensated, 1 inconsistent, none
 * unfinished (36 + 10 + 3 + 1 = 50); 62 runs of which 12 reruns. */
static void hand_pipeline(sim_summary *s)
{
    sim_pipeline_summary *p = &s->pipeline;
    s->has_pipeline = true;
    memset(p, 0, sizeof *p);
    p->strategy = PIPELINE_COMPENSATE;
    p->checkpoints = false;
    p->steps = 2;
    p->jobs = 50;
    p->completed = 36;
    p->within_sla = 30;
    p->failed = 10;
    p->compensated = 3;
    p->inconsistent = 1;
    p->runs = 62;
    p->reruns = 12;
    p->retries = 210;
    p->late_retries = 12;
    p->items_committed = 4800;
    p->items_duplicated = 120;
    p->items_quarantined = 35;
    p->dead_letters = 40;
    p->alerts_log = 120;
    p->alerts_warning = 14;
    p->alerts_critical = 3;
    p->working_s = 125.5;
    p->blocked_s = 45.25;
    p->failed_s = 78.75;
    p->step[0] = (sim_step_summary){"extract", 62, 70, 60, 2, 0, 8, 3, 1};
    p->step[1] = (sim_step_summary){"load", 60, 140, 40, 20, 2, 4, 0, 0};
}

/* What f wrote, as a malloc'd string. */
typedef struct capture {
    FILE *f;
    char *text;
    size_t len;
} capture;

static FILE *cap_open(capture *c)
{
    c->text = NULL;
    c->len = 0;
    c->f = open_memstream(&c->text, &c->len);
    ck_assert_ptr_nonnull(c->f);
    return c->f;
}

static char *cap_close(capture *c)
{
    ck_assert_int_eq(fclose(c->f), 0);
    return c->text;
}

/* A small run with no pipeline, for a real summary and policy stack. */
static const char plain_ini[] =
    "[scenario]\nname = plain\nduration = 20s\nseed = 3\n"
    "[clients]\ncount = 10\nrate = 2/s\ntimeout = 1s\n"
    "[server]\nworkers = 4\nservice = exp(20ms)\n"
    "[policy]\nname = exponential\n";

static char *printed(const tu_sim *t, const sim_config *c, const sim_summary *s)
{
    capture cap;
    print_summary(cap_open(&cap), c, "plain.ini", t->ps.stack, s);
    return cap_close(&cap);
}

/* ---- The printed summary ------------------------------------------------- */

START_TEST(print_block_carries_the_figures)
{
    tu_sim *t = tu_sim_run(plain_ini, NULL, NULL, 0);
    char *before = printed(t, &t->sc.cfg, &t->sum);
    ck_assert_ptr_null(strstr(before, "pipeline"));
    ck_assert_ptr_null(strstr(before, "jobs started"));

    sim_summary s = t->sum;
    sim_config c = t->sc.cfg;
    c.pipeline.sla_ns = 2000000000; /* an SLA: "within the SLA" is said */
    hand_pipeline(&s);
    /* In a pipeline every request is a step's call, and its duplicate
     * writes are writes of steps and batch items committed again. */
    s.duplicates = 125;
    char *after = printed(t, &c, &s);
    ck_assert_ptr_nonnull(strstr(after, "  duplicates            125 "
                                        "duplicate writes (steps' writes "
                                        "and batch items committed "
                                        "again)\n"));
    ck_assert_ptr_null(strstr(after, "(posts)"));
    /* The block is appended after the lines every run has. */
    const char *end = strstr(before, "  server    ");
    ck_assert_ptr_nonnull(end);
    size_t tail = strlen(end);
    const char *b = strstr(after, "  pipeline              ");
    ck_assert_ptr_nonnull(b);
    ck_assert_int_eq(strncmp(b - tail, end, tail), 0);
    ck_assert_ptr_nonnull(strstr(b, "  pipeline              2 steps, "
                                    "strategy compensate, without "
                                    "checkpoints\n"));
    ck_assert_ptr_nonnull(strstr(b, "  jobs started          50\n"));
    /* 36 / 50 = 72 %, 30 / 50 = 60 %, 10 / 50 = 20 %, 3 / 50 = 6 %. */
    ck_assert_ptr_nonnull(strstr(b, "    completed           36 (72.0%), "
                                    "30 within the SLA (60.0%)\n"));
    ck_assert_ptr_nonnull(strstr(b, "    failed              10 (20.0%)\n"));
    ck_assert_ptr_nonnull(strstr(b, "    compensated         3 (6.0%)\n"));
    ck_assert_ptr_nonnull(strstr(b, "    inconsistent        1 (2.0%)\n"));
    ck_assert_ptr_nonnull(strstr(b, "    unfinished          0 (0.0%)\n"));
    /* compensate cannot end a job partial: no line for it. */
    ck_assert_ptr_null(strstr(b, "partial"));
    ck_assert_ptr_nonnull(strstr(b, "  job runs              62 (12 reruns)"));
    ck_assert_ptr_nonnull(strstr(
        b, "    extract                   62        70        60         2"
           "         0         8         3           1\n"));
    ck_assert_ptr_nonnull(strstr(
        b, "    load                      60       140        40        20"
           "         2         4         0           0\n"));
    ck_assert_ptr_nonnull(strstr(b, "4800 committed, 120 duplicated, 35 "
                                    "quarantined"));
    ck_assert_ptr_nonnull(strstr(b, "  dead-letter queue     40 at the end"));
    ck_assert_ptr_nonnull(strstr(b, "210 step retries, 12 late"));
    /* 125.5 s = 2.09 min; under 2 min in seconds. */
    ck_assert_ptr_nonnull(strstr(b, "working 2.1 min, blocked 45.2 s, "
                                    "failed 78.8 s (all jobs)"));
    /* Per job: 125.5 / 50 = 2.51, 45.25 / 50 = 0.905, 78.75 / 50 = 1.575. */
    ck_assert_ptr_nonnull(strstr(b, "per job (mean)      working 2.510 s, "
                                    "blocked 0.905 s, failed 1.575 s\n"));
    ck_assert_ptr_nonnull(strstr(b, "  alerts                120 logged, 14 "
                                    "warning, 3 critical\n"));
    free(before);
    free(after);
    tu_sim_free(t);
}
END_TEST

/* Without an SLA, "within the SLA" would repeat "completed"; under
 * continue, the partial jobs are shown. */
START_TEST(print_follows_the_strategy)
{
    sim_config c;
    config_defaults(&c);
    sim_summary s;
    memset(&s, 0, sizeof s);
    hand_pipeline(&s);
    s.pipeline.strategy = PIPELINE_CONTINUE;
    s.pipeline.checkpoints = true;
    s.pipeline.partial = 4;
    s.pipeline.compensated = s.pipeline.inconsistent = 0;
    capture cap;
    jobs_print(cap_open(&cap), &c, &s.pipeline);
    char *b = cap_close(&cap);
    ck_assert_ptr_nonnull(strstr(b, "strategy continue, with checkpoints"));
    ck_assert_ptr_nonnull(strstr(b, "    completed           36 (72.0%)\n"));
    ck_assert_ptr_null(strstr(b, "SLA"));
    ck_assert_ptr_nonnull(strstr(b, "    partial             4 (8.0%)\n"));
    ck_assert_ptr_null(strstr(b, "compensated"));
    free(b);
}
END_TEST

/* ---- JSON ---------------------------------------------------------------- */

static char *json_of(const sim_summary *s, const expect_result *r, int n)
{
    run_meta meta = {"plain", "plain.ini", "exponential", NULL, 3, 10,
                     false,   0,           NULL,          NULL};
    capture cap;
    export_json(cap_open(&cap), &meta, s, r, n);
    return cap_close(&cap);
}

START_TEST(json_pipeline_object)
{
    sim_summary s;
    memset(&s, 0, sizeof s);
    s.duration_s = 20;
    char *plain = json_of(&s, NULL, 0);
    ck_assert_ptr_null(strstr(plain, "\"pipeline\""));
    hand_pipeline(&s);
    char *j = json_of(&s, NULL, 0);
    ck_assert_ptr_nonnull(strstr(j, "\"pipeline\": {"));
    ck_assert_ptr_nonnull(strstr(j, "\"strategy\": \"compensate\""));
    ck_assert(!tu_json_is_true(j, "pipeline.checkpoints"));
    static const struct {
        const char *key;
        double v;
    } want[] = {
        {"pipeline.jobs", 50},
        {"pipeline.completed", 36},
        {"pipeline.within_sla", 30},
        {"pipeline.partial", 0},
        {"pipeline.failed", 10},
        {"pipeline.compensated", 3},
        {"pipeline.inconsistent", 1},
        {"pipeline.unfinished", 0},
        {"pipeline.runs", 62},
        {"pipeline.reruns", 12},
        {"pipeline.retries", 210},
        {"pipeline.late_retries", 12},
        {"pipeline.items_committed", 4800},
        {"pipeline.items_duplicated", 120},
        {"pipeline.items_quarantined", 35},
        {"pipeline.dead_letters", 40},
        {"pipeline.alerts_log", 120},
        {"pipeline.alerts_warning", 14},
        {"pipeline.alerts_critical", 3},
        {"pipeline.working_s", 125.5},
        {"pipeline.blocked_s", 45.25},
        {"pipeline.failed_s", 78.75},
        /* The path's parts are searched in order: the first step's. */
        {"pipeline.steps.calls", 62},
        {"pipeline.steps.redone", 8},
        {"pipeline.steps.undo_failed", 1},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ck_assert_msg(tu_json_number(j, want[i].key) == want[i].v,
                      "%s: %g, expected %g", want[i].key,
                      tu_json_number(j, want[i].key), want[i].v);
    /* Both steps, in order, with every field. */
    const char *e = strstr(j, "\"name\": \"extract\"");
    const char *l = strstr(j, "\"name\": \"load\"");
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_nonnull(l);
    ck_assert(e < l);
    ck_assert_double_eq(tu_json_number(l, "attempts"), 140);
    ck_assert_double_eq(tu_json_number(l, "succeeded"), 40);
    ck_assert_double_eq(tu_json_number(l, "failed"), 20);
    ck_assert_double_eq(tu_json_number(l, "skipped"), 2);
    ck_assert_double_eq(tu_json_number(l, "redone"), 4);
    ck_assert_double_eq(tu_json_number(l, "undone"), 0);
    /* Apart from the object, the JSON is the one without a pipeline. */
    const char *open = strstr(j, "  \"pipeline\": {");
    const char *close = strstr(open, "\n  },\n");
    ck_assert_ptr_nonnull(close);
    size_t head = (size_t)(open - j);
    ck_assert_int_eq(strncmp(plain, j, head), 0);
    ck_assert_str_eq(plain + head, close + strlen("\n  },\n"));
    free(plain);
    free(j);
}
END_TEST

/* ---- CSV ----------------------------------------------------------------- */

START_TEST(csv_pipeline_columns)
{
    metrics_bucket rows[2];
    memset(rows, 0, sizeof rows);
    for (int i = 0; i < 2; i++) {
        rows[i].start_ns = (int64_t)i * 1000000000;
        rows[i].width_ns = 1000000000;
        rows[i].p50_bin = rows[i].p99_bin = METRICS_NO_BIN;
        rows[i].attempt_p50_bin = rows[i].attempt_p99_bin = METRICS_NO_BIN;
        rows[i].policy_level = -1;
    }
    rows[1].job_runs = 7;
    rows[1].jobs_completed = 5;
    rows[1].job_runs_failed = 2;
    rows[1].items_committed = 300;
    rows[1].items_duplicated = 11;
    rows[1].items_quarantined = 13;
    rows[1].alerts_log = 17;
    rows[1].alerts_warning = 19;
    rows[1].alerts_critical = 23;
    metrics m;
    memset(&m, 0, sizeof m);
    m.buckets = rows;
    m.n_buckets = 2;

    capture cap;
    export_csv(cap_open(&cap), &m, false);
    char *plain = cap_close(&cap);
    ck_assert_ptr_null(strstr(plain, "job_runs"));
    export_csv(cap_open(&cap), &m, true);
    char *piped = cap_close(&cap);
    /* Each line is the plain one with the nine columns appended. */
    const char *nl = strchr(plain, '\n');
    size_t hl = (size_t)(nl - plain);
    ck_assert_int_eq(strncmp(plain, piped, hl), 0);
    ck_assert(strncmp(piped + hl,
                      ",job_runs,jobs_completed,job_runs_failed,"
                      "items_committed,items_duplicated,items_quarantined,"
                      "alerts_log,alerts_warning,alerts_critical\n",
                      strlen(",job_runs,jobs_completed,job_runs_failed,"
                             "items_committed,items_duplicated,"
                             "items_quarantined,alerts_log,alerts_warning,"
                             "alerts_critical\n")) == 0);
    ck_assert_double_eq(tu_csv_sum(piped, "job_runs"), 7);
    ck_assert_double_eq(tu_csv_sum(piped, "jobs_completed"), 5);
    ck_assert_double_eq(tu_csv_sum(piped, "job_runs_failed"), 2);
    ck_assert_double_eq(tu_csv_sum(piped, "items_committed"), 300);
    ck_assert_double_eq(tu_csv_sum(piped, "items_duplicated"), 11);
    ck_assert_double_eq(tu_csv_sum(piped, "items_quarantined"), 13);
    ck_assert_double_eq(tu_csv_sum(piped, "alerts_log"), 17);
    ck_assert_double_eq(tu_csv_sum(piped, "alerts_warning"), 19);
    ck_assert_double_eq(tu_csv_sum(piped, "alerts_critical"), 23);
    /* The last row ends with the bucket's counters, in column order. */
    ck_assert_ptr_nonnull(strstr(piped, ",7,5,2,300,11,13,17,19,23\n"));
    ck_assert_ptr_nonnull(strstr(piped, ",0,0,0,0,0,0,0,0,0\n"));
    free(plain);
    free(piped);
}
END_TEST

/* The real binary on a scenario without a pipeline: no column. */
START_TEST(csv_without_pipeline_from_the_binary)
{
    const char *ini = tu_write_temp("jobs-plain.ini", plain_ini);
    char path[1024], csv[1024], json[1024];
    snprintf(path, sizeof path, "%s", ini);
    snprintf(csv, sizeof csv, "%s", tu_temp_path("jobs-plain.csv"));
    snprintf(json, sizeof json, "%s", tu_temp_path("jobs-plain.json"));
    tu_output o;
    ck_assert_int_eq(
        tu_stormbench(&o, (const char *[]){"run", path, "--csv", csv, "--json",
                                           json, NULL}),
        0);
    ck_assert_ptr_null(strstr(o.out, "jobs started"));
    tu_output_free(&o);
    char *c = tu_read_file(csv), *j = tu_read_file(json);
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_null(strstr(c, "job_runs"));
    ck_assert_ptr_null(strstr(c, "alerts_"));
    ck_assert_ptr_null(strstr(j, "\"pipeline\""));
    free(c);
    free(j);
}
END_TEST

/* ---- [expect] ------------------------------------------------------------ */

static expect_result judge(const sim_summary *s, const char *key,
                           const char *value)
{
    setting x;
    memset(&x, 0, sizeof x);
    snprintf(x.key, sizeof x.key, "%s", key);
    snprintf(x.value, sizeof x.value, "%s", value);
    snprintf(x.origin, sizeof x.origin, "test: [expect]");
    expect_set set;
    sb_err e;
    ck_assert_msg(expect_parse(&x, 1, &set, &e) == 0, "%s", e.msg);
    expect_result r[EXPECT_KIND_COUNT];
    ck_assert_int_eq(expect_eval(&set, s, r), 1);
    ck_assert_str_eq(r[0].name, key);
    return r[0];
}

typedef struct verdict_case {
    const char *key, *value;
    bool ok;
    double v;
    const char *explain;
} verdict_case;

/* On hand_pipeline's figures: completed 36 / 50 = 72 %; failed (10 + 3 +
 * 1) / 50 = 28 %; within the SLA 30 / 50 = 60 %; 3 critical alerts, 14
 * warnings, 35 items quarantined, 120 duplicated, 8 + 4 = 12 redone.
 * Each limit is on both sides of the figure (equal passes). */
static const verdict_case verdicts[] = {
    {"jobs_completed_min", "0.9", false, 0.72,
     "72 % of 50 jobs completed (10 failed, 3 compensated, 1 "
     "inconsistent), below the minimum 90 %"},
    {"jobs_completed_min", "0.72", true, 0.72,
     "72 % of 50 jobs completed (10 failed, 3 compensated, 1 "
     "inconsistent), meets the minimum 72 %"},
    {"jobs_failed_max", "0.2", false, 0.28,
     "28 % of 50 jobs failed (10 failed, 3 compensated, 1 inconsistent), "
     "exceeds the limit 20 %"},
    {"jobs_failed_max", "0.3", true, 0.28,
     "28 % of 50 jobs failed (10 failed, 3 compensated, 1 inconsistent), "
     "within the limit 30 %"},
    {"jobs_within_sla_min", "0.6", true, 0.6,
     "60 % of 50 jobs completed within the SLA (36 completed in all), "
     "meets the minimum 60 %"},
    {"jobs_within_sla_min", "0.61", false, 0.6,
     "60 % of 50 jobs completed within the SLA (36 completed in all), "
     "below the minimum 61 %"},
    {"alerts_critical_max", "3", true, 3,
     "3 critical alerts, within the limit 3"},
    {"alerts_critical_max", "2", false, 3,
     "3 critical alerts, exceeds the limit 2"},
    {"alerts_warning_max", "10", false, 14,
     "14 warnings, exceeds the limit 10"},
    {"quarantined_items_min", "36", false, 35,
     "35 items quarantined (40 in the dead-letter queue at the end), below "
     "the minimum 36"},
    {"quarantined_items_min", "35", true, 35,
     "35 items quarantined (40 in the dead-letter queue at the end), meets "
     "the minimum 35"},
    {"quarantined_items_max", "35", true, 35,
     "35 items quarantined (40 in the dead-letter queue at the end), within "
     "the limit 35"},
    {"quarantined_items_max", "34", false, 35,
     "35 items quarantined (40 in the dead-letter queue at the end), "
     "exceeds the limit 34"},
    {"duplicate_items_max", "0", false, 120,
     "120 duplicate item commits (of 4800 items committed), exceeds the "
     "limit 0"},
    {"steps_redone_max", "12", true, 12,
     "12 step calls redid a step an earlier run had done (extract 8, load "
     "4), within the limit 12"},
    {"steps_redone_max", "11", false, 12,
     "12 step calls redid a step an earlier run had done (extract 8, load "
     "4), exceeds the limit 11"},
};

START_TEST(expect_pipeline_verdicts)
{
    sim_summary s;
    memset(&s, 0, sizeof s);
    hand_pipeline(&s);
    const verdict_case *c = &verdicts[_i];
    expect_result r = judge(&s, c->key, c->value);
    ck_assert_msg(r.ok == c->ok, "%s = %s: %s", c->key, c->value, r.explain);
    ck_assert(r.has_value);
    ck_assert_double_eq_tol(r.value, c->v, 1e-12);
    ck_assert_str_eq(r.explain, c->explain);
}
END_TEST

static const char *const pipeline_keys[] = {
    "jobs_completed_min",    "jobs_failed_max",     "jobs_within_sla_min",
    "alerts_critical_max",   "alerts_warning_max",  "quarantined_items_min",
    "quarantined_items_max", "duplicate_items_max", "steps_redone_max"};

/* A pipeline key in a scenario without [pipeline] fails, with no value,
 * even a limit any figure would meet (0 critical alerts at most: a run
 * with no pipeline has none, but the key is a mistake). */
START_TEST(expect_without_pipeline)
{
    sim_summary s;
    memset(&s, 0, sizeof s);
    expect_result r = judge(&s, pipeline_keys[_i], "0");
    ck_assert(!r.ok);
    ck_assert(!r.has_value);
    ck_assert_str_eq(r.explain, "no [pipeline] in this scenario");
    /* JSON writes the missing value as null. */
    char *j = json_of(&s, &r, 1);
    ck_assert(tu_json_is_null(j, "expectations.value"));
    ck_assert_ptr_nonnull(strstr(j, "\"explanation\": \"no [pipeline] in "
                                    "this scenario\""));
    free(j);
}
END_TEST

/* Every job completed: nothing to list; one of a thing is singular. */
START_TEST(expect_sentences_read_well)
{
    sim_summary s;
    memset(&s, 0, sizeof s);
    hand_pipeline(&s);
    s.pipeline.completed = 50;
    s.pipeline.failed = s.pipeline.compensated = s.pipeline.inconsistent = 0;
    s.pipeline.alerts_critical = 1;
    s.pipeline.step[1].redone = 0;
    s.pipeline.step[0].redone = 1;
    expect_result r = judge(&s, "jobs_completed_min", "0.9");
    ck_assert_str_eq(r.explain, "100 % of 50 jobs completed, meets the "
                                "minimum 90 %");
    r = judge(&s, "alerts_critical_max", "0");
    ck_assert_str_eq(r.explain, "1 critical alert, exceeds the limit 0");
    r = judge(&s, "steps_redone_max", "1");
    ck_assert_str_eq(r.explain, "1 step call redid a step an earlier run had "
                                "done (extract 1), within the limit 1");
}
END_TEST

/* No job started: a share has no value. */
START_TEST(expect_no_job)
{
    sim_summary s;
    memset(&s, 0, sizeof s);
    s.has_pipeline = true;
    s.pipeline.steps = 1;
    for (int k = 0; k < 3; k++) {
        expect_result r = judge(&s, pipeline_keys[k], "0.5");
        ck_assert(!r.ok);
        ck_assert(!r.has_value);
        ck_assert_str_eq(r.explain, "cannot be judged: no job started");
    }
    /* Counts are judged: none of anything. */
    expect_result r = judge(&s, "alerts_critical_max", "0");
    ck_assert(r.ok);
    ck_assert_str_eq(r.explain, "0 critical alerts, within the limit 0");
}
END_TEST

START_TEST(expect_pipeline_limits_refused)
{
    static const struct {
        const char *key, *value, *msg;
    } bad[] = {
        {"jobs_completed_min", "1.5",
         "test: [expect] jobs_completed_min: expected a share between 0 "
         "and 1"},
        {"jobs_failed_max", "lots", "test: [expect] jobs_failed_max: "},
        {"alerts_critical_max", "-1",
         "test: [expect] alerts_critical_max: expected a whole number of at "
         "least 0, got '-1'"},
        {"steps_redone_max", "2.5",
         "test: [expect] steps_redone_max: expected a whole number of at "
         "least 0, got '2.5'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setting x;
        memset(&x, 0, sizeof x);
        snprintf(x.key, sizeof x.key, "%s", bad[i].key);
        snprintf(x.value, sizeof x.value, "%s", bad[i].value);
        snprintf(x.origin, sizeof x.origin, "test: [expect]");
        expect_set set;
        sb_err e;
        ck_assert_int_eq(expect_parse(&x, 1, &set, &e), -1);
        ck_assert_msg(strncmp(e.msg, bad[i].msg, strlen(bad[i].msg)) == 0, "%s",
                      e.msg);
    }
}
END_TEST

/* The binary: a pipeline key on a scenario without one fails the run
 * (exit 1) and says why. */
START_TEST(expect_without_pipeline_from_the_binary)
{
    char ini[sizeof plain_ini + 64];
    snprintf(ini, sizeof ini, "%s[expect]\njobs_completed_min = 0.9\n",
             plain_ini);
    const char *p = tu_write_temp("jobs-expect.ini", ini);
    char path[1024];
    snprintf(path, sizeof path, "%s", p);
    tu_output o;
    ck_assert_int_eq(tu_stormbench(&o, (const char *[]){"run", path, NULL}),
                     EXIT_EXPECT);
    ck_assert_ptr_nonnull(strstr(o.out, "  FAIL  jobs_completed_min: no "
                                        "[pipeline] in this scenario\n"));
    tu_output_free(&o);
}
END_TEST

/* validate warns about it before anything runs, and still says ok. */
START_TEST(validate_warns_without_pipeline)
{
    char ini[sizeof plain_ini + 64];
    snprintf(ini, sizeof ini,
             "%s[expect]\nalerts_critical_max = 0\n"
             "success_min = 0.5\n",
             plain_ini);
    const char *p = tu_write_temp("jobs-validate.ini", ini);
    char path[1024];
    snprintf(path, sizeof path, "%s", p);
    tu_output o;
    ck_assert_int_eq(
        tu_stormbench(&o, (const char *[]){"validate", path, NULL}), 0);
    char want[1200];
    snprintf(want, sizeof want,
             "%s: warning: [expect] alerts_critical_max: "
             "the scenario has no [pipeline], so this expectation fails "
             "every run\n",
             path);
    ck_assert_msg(strstr(o.err, want) != NULL, "%s", o.err);
    /* Only the pipeline's key. */
    ck_assert_ptr_null(strstr(o.err, "success_min"));
    tu_output_free(&o);
}
END_TEST

/* ---- A real run --------------------------------------------------------- */

/* 20 runners starting jobs at 1/s each for 30 s, through three steps:
 * a flaky extract (30 % of attempts reset), a batch transform of 10
 * items (10 % defective, not idempotent), and a load that fails for good
 * in 10 % of jobs; fail_fast with one rerun and no checkpoints, so
 * reruns redo (and recommit) what the first run did, with an SLA. */
static const char pipe_ini[] =
    "[scenario]\nname = pipe\nduration = 30s\nseed = 5\n"
    "[clients]\ncount = 20\nrate = 1/s\ntimeout = 2s\n"
    "[server]\nworkers = 32\nservice = exp(20ms)\n"
    "[policy]\nname = exponential\nbase = 50ms\nmax_attempts = 3\n";

static void pipe_edit(sim_config *c, void *ctx)
{
    (void)ctx;
    pipeline_cfg *p = &c->pipeline;
    p->n_steps = 3;
    p->strategy = PIPELINE_FAIL_FAST;
    p->reruns = 1;
    p->rerun_delay_ns = 500000000;
    p->sla_ns = 3000000000;
    p->warn_retry = 2;
    p->dead_letter_growth = 3;
    static const char *const names[] = {"extract", "transform", "load"};
    for (int i = 0; i < 3; i++) {
        config_step_defaults(&p->steps[i]);
        snprintf(p->steps[i].name, sizeof p->steps[i].name, "%s", names[i]);
    }
    p->steps[0].transient = 0.3;
    p->steps[1].items = 10;
    p->steps[1].item_defect = 0.1;
    p->steps[2].permanent = 0.1;
}

/* The sum over the CSV's rows of a column, as an integer count. */
static uint64_t col(const char *csv, const char *name)
{
    return (uint64_t)llround(tu_csv_sum(csv, name));
}

/* The outputs of a real run carry the engine's figures: the CSV's
 * per-bucket counters add up to the summary's totals, and the printed
 * summary, the JSON and [expect] say the same numbers. */
START_TEST(real_run_outputs_agree)
{
    tu_sim *t = tu_sim_run_edited(pipe_ini, NULL, pipe_edit, NULL);
    const sim_summary *s = &t->sum;
    const sim_pipeline_summary *p = &s->pipeline;
    ck_assert(s->has_pipeline);
    /* The run is not trivial: every way of ending shows up. */
    ck_assert_uint_gt(p->jobs, 400);
    ck_assert_uint_gt(p->completed, 0);
    ck_assert_uint_gt(p->failed, 0);
    ck_assert_uint_gt(p->reruns, 0);
    ck_assert_uint_gt(p->items_committed, 0);
    ck_assert_uint_gt(p->alerts_critical, 0);

    capture cap;
    ck_assert_int_eq(chain_csv(cap_open(&cap), t->sim), 0);
    char *csv = cap_close(&cap);
    ck_assert_uint_eq(col(csv, "job_runs"), p->runs);
    ck_assert_uint_eq(col(csv, "jobs_completed"), p->completed);
    /* Every run that failed was rerun, ended its job failed, or waits
     * for its rerun at the end (its job unfinished). */
    uint64_t runs_failed = col(csv, "job_runs_failed");
    ck_assert_uint_ge(runs_failed, p->reruns + p->failed);
    ck_assert_uint_le(runs_failed, p->reruns + p->failed + p->unfinished);
    ck_assert_uint_eq(col(csv, "items_committed"), p->items_committed);
    ck_assert_uint_eq(col(csv, "items_duplicated"), p->items_duplicated);
    ck_assert_uint_eq(col(csv, "items_quarantined"), p->items_quarantined);
    ck_assert_uint_eq(col(csv, "alerts_log"), p->alerts_log);
    ck_assert_uint_eq(col(csv, "alerts_warning"), p->alerts_warning);
    ck_assert_uint_eq(col(csv, "alerts_critical"), p->alerts_critical);
    free(csv);

    char *j = json_of(s, NULL, 0);
    ck_assert_double_eq(tu_json_number(j, "pipeline.jobs"), (double)p->jobs);
    ck_assert_double_eq(tu_json_number(j, "pipeline.completed"),
                        (double)p->completed);
    ck_assert_double_eq(tu_json_number(j, "pipeline.reruns"),
                        (double)p->reruns);
    const char *st = strstr(j, "\"name\": \"transform\"");
    ck_assert_ptr_nonnull(st);
    ck_assert_double_eq(tu_json_number(st, "calls"), (double)p->step[1].calls);
    ck_assert_double_eq(tu_json_number(st, "redone"),
                        (double)p->step[1].redone);
    free(j);

    char *out = printed(t, &t->sc.cfg, s);
    if (getenv("SB_SHOW"))
        fputs(out, stderr);
    char want[200];
    snprintf(want, sizeof want, "  jobs started          %llu\n",
             (unsigned long long)p->jobs);
    ck_assert_msg(strstr(out, want) != NULL, "%s", out);
    snprintf(want, sizeof want, "    %-18s %9llu %9llu %9llu %9llu",
             "transform", (unsigned long long)p->step[1].calls,
             (unsigned long long)p->step[1].attempts,
             (unsigned long long)p->step[1].succeeded,
             (unsigned long long)p->step[1].failed);
    ck_assert_msg(strstr(out, want) != NULL, "%s", out);
    free(out);

    expect_result r = judge(s, "jobs_completed_min", "0");
    ck_assert(r.ok);
    ck_assert_double_eq_tol(r.value, (double)p->completed / (double)p->jobs,
                            1e-12);
    r = judge(s, "steps_redone_max", "0");
    uint64_t redone = p->step[0].redone + p->step[1].redone + p->step[2].redone;
    ck_assert_double_eq(r.value, (double)redone);
    ck_assert(r.ok == (redone == 0));
    tu_sim_free(t);
}
END_TEST

/* ---- Through the binary, from a scenario file ---------------------------- */

/* Runners whose jobs extract (20 % of attempts reset) and load a batch
 * of 20 items (5 % defective; 10 % of jobs refused for good), undone on
 * failure, rerun once; [expect] passes one key and fails another. */
static const char pipe_file[] =
    "[scenario]\nname = pipe-e2e\nduration = 30s\nseed = 3\n"
    "[clients]\ncount = 20\nrate = 1/s\ntimeout = 2s\n"
    "[server]\nworkers = 32\nservice = exp(20ms)\n"
    "[policy]\nname = exponential\nbase = 50ms\nmax_attempts = 3\n"
    "[pipeline]\nsteps = extract, load\non_failure = compensate\n"
    "reruns = 1\nrerun_delay = 500ms\nsla = 5s\n"
    "[step.extract]\ntransient = 0.2\nundo = const(10ms)\n"
    "[step.load]\nitems = 20\nitem_defect = 0.05\npermanent = 0.1\n"
    "undo = const(10ms)\n"
    "[expect]\njobs_completed_min = 0.01\nalerts_critical_max = 0\n";

static const char *pipe_path(void)
{
    static char path[1024];
    if (path[0] == '\0')
        snprintf(path, sizeof path, "%s",
                 tu_write_temp("jobs-pipe.ini", pipe_file));
    return path;
}

/* stormbench run: the summary's block, the JSON, the CSV and the
 * expectations agree, and a failed pipeline key fails the run. */
START_TEST(run_from_a_scenario_file)
{
    char csv[1024], json[1024];
    snprintf(csv, sizeof csv, "%s", tu_temp_path("jobs-pipe.csv"));
    snprintf(json, sizeof json, "%s", tu_temp_path("jobs-pipe.json"));
    tu_output o;
    ck_assert_int_eq(
        tu_stormbench(&o,
                      (const char *[]){"run", pipe_path(), "--csv", csv,
                                       "--json", json, "--no-timing", NULL}),
        EXIT_EXPECT);
    char *c = tu_read_file(csv), *j = tu_read_file(json);
    double jobs = tu_json_number(j, "pipeline.jobs");
    double critical = tu_json_number(j, "pipeline.alerts_critical");
    ck_assert_double_gt(jobs, 100);
    ck_assert_double_gt(critical, 0);
    ck_assert_ptr_nonnull(strstr(o.out, "  pipeline              2 steps, "
                                        "strategy compensate, without "
                                        "checkpoints\n"));
    char want[200];
    snprintf(want, sizeof want, "  jobs started          %.0f\n", jobs);
    ck_assert_msg(strstr(o.out, want) != NULL, "%s", o.out);
    ck_assert_ptr_nonnull(strstr(o.out, "    extract        "));
    ck_assert_ptr_nonnull(strstr(o.out, "  PASS  jobs_completed_min: "));
    snprintf(want, sizeof want,
             "  FAIL  alerts_critical_max: %.0f critical "
             "alerts, exceeds the limit 0\n",
             critical);
    ck_assert_msg(strstr(o.out, want) != NULL, "%s", o.out);
    /* The CSV's buckets add up to the JSON's totals. */
    ck_assert_double_eq(tu_csv_sum(c, "alerts_critical"), critical);
    ck_assert_double_eq(tu_csv_sum(c, "jobs_completed"),
                        tu_json_number(j, "pipeline.completed"));
    ck_assert_double_eq(tu_csv_sum(c, "items_committed"),
                        tu_json_number(j, "pipeline.items_committed"));
    ck_assert_double_eq(tu_csv_sum(c, "job_runs"),
                        tu_json_number(j, "pipeline.runs"));
    free(c);
    free(j);
    tu_output_free(&o);
}
END_TEST

/* validate: jobs_within_sla_min without an SLA judges completion only,
 * and says so; with one, nothing is said. */
START_TEST(validate_warns_within_sla_without_sla)
{
    char ini[sizeof pipe_file + 64];
    snprintf(ini, sizeof ini, "%sjobs_within_sla_min = 0.5\n", pipe_file);
    char with[1024], without[1024];
    snprintf(with, sizeof with, "%s", tu_write_temp("jobs-sla.ini", ini));
    /* The same file without its sla line. */
    char *at = strstr(ini, "sla = 5s\n");
    ck_assert_ptr_nonnull(at);
    memmove(at, at + strlen("sla = 5s\n"),
            strlen(at + strlen("sla = 5s\n")) + 1);
    snprintf(without, sizeof without, "%s",
             tu_write_temp("jobs-nosla.ini", ini));
    tu_output o;
    ck_assert_int_eq(
        tu_stormbench(&o, (const char *[]){"validate", without, NULL}), 0);
    char want[1200];
    snprintf(want, sizeof want,
             "%s: warning: [expect] jobs_within_sla_min: "
             "[pipeline] has no sla, so it judges the jobs completed (set "
             "sla, or use jobs_completed_min)\n",
             without);
    ck_assert_msg(strstr(o.err, want) != NULL, "%s", o.err);
    tu_output_free(&o);
    ck_assert_int_eq(
        tu_stormbench(&o, (const char *[]){"validate", with, NULL}), 0);
    ck_assert_msg(strstr(o.err, "jobs_within_sla_min") == NULL, "%s", o.err);
    ck_assert_msg(strstr(o.err, "alerts_critical_max") == NULL, "%s", o.err);
    tu_output_free(&o);
}
END_TEST

/* stormbench compare: the jobs' metrics are in the tables. */
START_TEST(compare_from_a_scenario_file)
{
    char dir[1024], cmd[1100];
    snprintf(dir, sizeof dir, "%s", tu_temp_path("jobs-cmp"));
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
    tu_output o;
    ck_assert_int_eq(
        tu_stormbench(&o,
                      (const char *[]){"compare", pipe_path(), "--policies",
                                       "none,exponential", "--seeds", "3", "-o",
                                       dir, "--no-report", "-q", NULL}),
        0);
    tu_output_free(&o);
    char path[1200];
    snprintf(path, sizeof path, "%s/summary.md", dir);
    char *md = tu_read_file(path);
    ck_assert_ptr_nonnull(md);
    ck_assert_ptr_nonnull(strstr(md, "| jobs completed (%) |"));
    ck_assert_ptr_nonnull(strstr(md, "| critical alerts |"));
    ck_assert_ptr_nonnull(strstr(md, "- **blocked time per job**: "));
    snprintf(path, sizeof path, "%s/runs.csv", dir);
    char *csv = tu_read_file(path);
    ck_assert_ptr_nonnull(csv);
    /* Six runs, each with jobs. */
    ck_assert_double_gt(tu_csv_sum(csv, "pipeline_jobs"), 6 * 100);
    free(md);
    free(csv);
}
END_TEST

Suite *jobs_suite(void)
{
    Suite *s = suite_create("jobs");
    TCase *tc = tcase_create("print");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, print_block_carries_the_figures);
    tcase_add_test(tc, print_follows_the_strategy);
    suite_add_tcase(s, tc);
    tc = tcase_create("export");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, json_pipeline_object);
    tcase_add_test(tc, csv_pipeline_columns);
    tcase_add_test(tc, csv_without_pipeline_from_the_binary);
    suite_add_tcase(s, tc);
    tc = tcase_create("expect");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, expect_pipeline_verdicts, 0,
                        (int)(sizeof verdicts / sizeof *verdicts));
    tcase_add_loop_test(tc, expect_without_pipeline, 0,
                        (int)(sizeof pipeline_keys / sizeof *pipeline_keys));
    tcase_add_test(tc, expect_no_job);
    tcase_add_test(tc, expect_sentences_read_well);
    tcase_add_test(tc, expect_pipeline_limits_refused);
    tcase_add_test(tc, expect_without_pipeline_from_the_binary);
    tcase_add_test(tc, validate_warns_without_pipeline);
    suite_add_tcase(s, tc);
    tc = tcase_create("real");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, real_run_outputs_agree);
    tcase_add_test(tc, run_from_a_scenario_file);
    tcase_add_test(tc, compare_from_a_scenario_file);
    tcase_add_test(tc, validate_warns_within_sla_without_sla);
    suite_add_tcase(s, tc);
    return s;
}
