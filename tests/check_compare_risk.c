/*
 * check_compare_risk.c -- compare --risk: the verdict on the risk of a
 * storm (who is least likely to tip, against whom, by which test), and
 * the estimates compare writes being `stormbench risk`'s own.
 */
#define _DEFAULT_SOURCE /* usleep */

#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare_risk.h"
#include "riskfile.h"
#include "stats.h"
#include "testutil.h"

/* A comparison of n policies at one point whose risk estimates are
 * plain Monte Carlo counts: tipped[i] of runs[i]. */
typedef struct fake {
    compare_plan plan;
    compare_risk risk;
    risk_result cell[COMPARE_MAX_POLICIES];
    compare_result res;
} fake;

static fake *fake_of(int n, const char *const *names, const int *tipped,
                     const int *runs)
{
    fake *f = calloc(1, sizeof *f);
    ck_assert_ptr_nonnull(f);
    f->plan.n_policies = n;
    f->plan.n_points = 1;
    for (int i = 0; i < n; i++) {
        snprintf(f->plan.policies[i].label, sizeof f->plan.policies[i].label,
                 "%s", names[i]);
        split_estimate *e = &f->cell[i].est;
        e->plain = true;
        e->trials = (uint64_t)runs[i];
        e->hit_trials = (uint64_t)tipped[i];
        e->p = (double)tipped[i] / runs[i];
        stats_wilson((size_t)tipped[i], (size_t)runs[i], 0.95, &e->lo, &e->hi);
    }
    f->risk.o.horizon_ns = (int64_t)3600 * 1000000000;
    f->risk.o.storm_window_ns = (int64_t)300 * 1000000000;
    f->risk.n_points = 1;
    f->risk.n_policies = n;
    f->risk.cell = f->cell;
    f->res.plan = &f->plan;
    f->res.risk = &f->risk;
    return f;
}

static void verdict(const fake *f, int *best, char *buf, size_t len)
{
    compare_risk_verdict(&f->res, 0, best, buf, len);
}

/* One policy never tipped in 400 runs, the others 44 and 50 of 400: the
 * never-tipping one leads (listed second, so the ranking is by the
 * estimate, not the order given), against the next best by the estimate
 * (44/400 = 11.0 %, not the worst), and Fisher's exact test on 0 of 400
 * against 44 of 400 is far below 0.001 (the table's probability alone is
 * C(400,0) C(400,44) / C(800,44) < (400/800)^44 ~ 6e-14).  Wilson's top
 * for 0 of 400 is z^2 / (n + z^2) = 3.8415 / 403.84 = 0.951 %. */
START_TEST(the_least_likely_leads_against_the_next_best)
{
    const char *names[] = {"immediate", "exponential+token_bucket",
                           "exponential"};
    fake *f = fake_of(3, names, (const int[]){50, 0, 44},
                      (const int[]){400, 400, 400});
    int best;
    char text[1300];
    verdict(f, &best, text, sizeof text);
    ck_assert_int_eq(best, 1);
    ck_assert_str_eq(text, "exponential+token_bucket: least likely to tip "
                           "into a storm within 1 h, 0 % [0, 0.951] vs "
                           "11.0 % for exponential (the next best), "
                           "significant (Fisher's exact test, "
                           "Holm-adjusted, p < 0.001)");
    free(f);
    /* Two policies with the same estimate behind it: both are the next
     * best, named together. */
    f = fake_of(3, names, (const int[]){46, 0, 46},
                (const int[]){400, 400, 400});
    verdict(f, &best, text, sizeof text);
    ck_assert_int_eq(best, 1);
    ck_assert_msg(strstr(text, "vs 11.5 % for immediate and exponential "
                               "(the next best, tied), significant"),
                  "%s", text);
    free(f);
}
END_TEST

static bool always(void)
{
    return true;
}

/* Out of memory in Holm's adjustment is an error, never a verdict: with
 * the statistics' scratch allocations failing (stats_fail_alloc), the
 * verdict of the first test's three policies (Holm over two Fisher
 * tests) returns -1 and says "out of memory"; summary.md's risk section
 * fails the same way, so compare writes no file (compare_setup_write
 * tries every verdict before the first file) and exits 2.  Before, the
 * unadjusted p was printed as if adjusted.  With the allocator back,
 * the same call gives the Holm-adjusted verdict, and the flag the
 * failure set was consumed. */
START_TEST(out_of_memory_in_holm_is_an_error)
{
    const char *names[] = {"immediate", "exponential+token_bucket",
                           "exponential"};
    fake *f = fake_of(3, names, (const int[]){50, 0, 44},
                      (const int[]){400, 400, 400});
    char text[1300];
    int best = 7;
    stats_fail_alloc(always);
    int rc = compare_risk_verdict(&f->res, 0, &best, text, sizeof text);
    FILE *md = tmpfile();
    ck_assert_ptr_nonnull(md);
    int md_rc = compare_risk_md(md, &f->res, 0);
    stats_fail_alloc(NULL);
    fclose(md);
    ck_assert_int_eq(rc, -1);
    ck_assert_str_eq(text, "out of memory");
    ck_assert_int_eq(best, -1);
    ck_assert_int_eq(md_rc, -1);
    ck_assert(!stats_out_of_memory());
    ck_assert_int_eq(compare_risk_verdict(&f->res, 0, &best, text, sizeof text),
                     0);
    ck_assert_int_eq(best, 1);
    ck_assert_msg(strstr(text, "Holm-adjusted, p < 0.001") != NULL, "%s", text);
    free(f);
}
END_TEST

/* 1 of 100 and 2 of 100 cannot be told apart (Fisher's p is 1: the
 * tables 1/2 and 2/1 are equally likely, and every other table less
 * likely than them: all of them count), 30 of 100 can from 1 of 100
 * (p = 2.7e-9, Holm-doubled still far below 0.001):
 * the first two tie, the third tips more often, and no single policy is
 * recommended. */
START_TEST(indistinguishable_leaders_tie)
{
    const char *names[] = {"a", "b", "c"};
    fake *f = fake_of(3, names, (const int[]){2, 1, 30},
                      (const int[]){100, 100, 100});
    ck_assert_double_eq_tol(stats_fisher_exact(1, 100, 2, 100), 1, 1e-9);
    int best;
    char text[1300];
    verdict(f, &best, text, sizeof text);
    ck_assert_int_eq(best, -1);
    static const char want[] = "b (1.00 %) and a (2.00 %) tie for the least "
                               "risk of a storm within 1 h; c tips "
                               "significantly more often than b (30.0 %, "
                               "Fisher's exact test, Holm-adjusted, "
                               "p < 0.001)";
    ck_assert_msg(strcmp(text, want) == 0, "%s", text);
    free(f);
}
END_TEST

/* No run of any policy tipped: nothing is ranked, and the sentence gives
 * the widest interval's top, Wilson's for 0 of 100: 3.8415 / 103.84 =
 * 3.70 %. */
START_TEST(no_storm_anywhere_ranks_nothing)
{
    const char *names[] = {"a", "b"};
    fake *f = fake_of(2, names, (const int[]){0, 0}, (const int[]){400, 100});
    int best;
    char text[1300];
    verdict(f, &best, text, sizeof text);
    ck_assert_int_eq(best, -1);
    ck_assert_msg(strstr(text, "no run of any policy tipped into a storm "
                               "within 1 h: each P(storm) is below 3.70 % "),
                  "%s", text);
    free(f);
}
END_TEST

/* 3 of 20 against 5 of 20: Fisher's p is 0.695 (R: fisher.test(
 * matrix(c(3,17,5,15), 2))), not significant: said, and no leader. */
START_TEST(close_estimates_are_not_separated)
{
    const char *names[] = {"a", "b"};
    fake *f = fake_of(2, names, (const int[]){5, 3}, (const int[]){20, 20});
    ck_assert_double_eq_tol(stats_fisher_exact(3, 20, 5, 20), 0.6948, 1e-4);
    int best;
    char text[1300];
    verdict(f, &best, text, sizeof text);
    ck_assert_int_eq(best, -1);
    ck_assert_msg(strstr(text, "nothing separates the policies: b is least "
                               "likely to tip into a storm within 1 h "
                               "(15.0 %) against 25.0 % for a, not "
                               "significant (Fisher's exact test, "
                               "p = 0.695)"),
                  "%s", text);
    free(f);
}
END_TEST

/* compare --risk on retry-storm: each policy's estimate is the one
 * `stormbench risk` makes on the same seeds (check_risk.c explains the
 * numbers: immediate tips on 3 of 3 runs, judged at 190 s, Wilson's
 * interval [0.4385, 1]; without retries none does, and Wilson's top for
 * 0 of 3 is 3.8415 / 6.8415 = 0.5615).  3 of 3 against 0 of 3 is not
 * enough to tell them apart: Fisher's p is 2 / C(6,3) = 0.1.
 * summary.json and summary.md carry them and the verdict. */
START_TEST(compare_writes_the_risk_commands_estimates)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", tu_temp_path("compare-risk"));
    tu_output o;
    tu_stormbench(
        &o, (const char *[]){"compare", TU_SOURCE("scenarios/retry-storm.ini"),
                             "--policies", "immediate,none", "--seeds", "2",
                             "--risk", "--horizon", "300s", "--storm-window",
                             "120s", "--risk-runs", "3", "--no-report", "-j",
                             "2", "-o", dir, NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    ck_assert_msg(strstr(o.out, "risk of a storm    nothing separates the "
                                "policies"),
                  "the printed verdicts lack the risk's");
    tu_output_free(&o);
    char path[1200];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    char *j = tu_read_file(path);
    ck_assert_double_eq(tu_json_number(j, "risk.horizon_s"), 300);
    ck_assert_double_eq(
        tu_json_number(j, "risk.policies.immediate.runs_tipped"), 3);
    ck_assert_double_eq(tu_json_number(j, "risk.policies.immediate.runs"), 3);
    ck_assert_double_eq(tu_json_number(j, "risk.policies.none.runs_tipped"), 0);
    ck_assert_double_eq_tol(tu_json_number(j, "risk.policies.none.hi"),
                            3.8415 / 6.8415, 1e-4);
    free(j);
    snprintf(path, sizeof path, "%s/summary.md", dir);
    char *md = tu_read_file(path);
    ck_assert_msg(strstr(md, "### Risk of a storm within 5 min"),
                  "summary.md lacks the risk section");
    ck_assert_msg(strstr(md, "| `immediate` | 100 | [43.9, 100] | 3 of 3 |"),
                  "summary.md lacks the risk table");
    /* Why each estimate is plain Monte Carlo, under the table (it was
     * only in the saved record): immediate tips in every one of the
     * pilot's 200 runs, none's pilot never climbs. */
    ck_assert_msg(strstr(md, "\nNotes on the estimates:\n\n"
                             "- `immediate`: the pilot saw storms in 100 % "
                             "of its runs: plain Monte Carlo is enough\n"
                             "- `none`: the pilot's runs never climbed to "
                             "a storm"),
                  "summary.md lacks the estimates' notes:\n%s", md);
    free(md);
    /* --risk's options alone are refused. */
    tu_stormbench(&o, (const char *[]){"compare", "retry-storm", "--horizon",
                                       "1h", NULL});
    ck_assert_int_eq(o.status, 2);
    ck_assert_msg(strstr(o.err, "are for --risk"), "%s", o.err);
    tu_output_free(&o);
    tu_stormbench(&o, (const char *[]){"compare", "retry-storm",
                                       "--risk-pilot-runs", "10", NULL});
    ck_assert_int_eq(o.status, 2);
    ck_assert_msg(strstr(o.err, "are for --risk"), "%s", o.err);
    tu_output_free(&o);
    /* The pilot's runs per stage: at least 10, as `risk --pilot-runs`
     * takes them. */
    tu_stormbench(&o, (const char *[]){"compare", "retry-storm", "--risk",
                                       "--risk-pilot-runs", "9", NULL});
    ck_assert_int_eq(o.status, 2);
    ck_assert_msg(strstr(o.err, "--risk-pilot-runs: expected a whole number "
                                "from 10 to 1000000, got '9'"),
                  "%s", o.err);
    tu_output_free(&o);
    /* --risk-pilot-runs 10 reaches the estimate: its record says so, and
     * its pilot saw 2 storms in 10 runs (the allocation-failure sweep's
     * case, tests/failalloc/sweep; the default pilot of 200 made 7 093
     * allocations there, this one 653 in all). */
    snprintf(dir, sizeof dir, "%s", tu_temp_path("compare-risk-pilot"));
    tu_stormbench(&o, (const char *[]){
                          "compare",    TU_SOURCE("tests/failalloc/small.ini"),
                          "--policies", "immediate",
                          "--seeds",    "1",
                          "--risk",     "--risk-runs",
                          "2",          "--risk-pilot-runs",
                          "10",         "--horizon",
                          "30s",        "--storm-window",
                          "5s",         "--no-report",
                          "-q",         "-o",
                          dir,          NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    snprintf(path, sizeof path, "%s/risk/point0-policy0.risk", dir);
    char *rec = tu_read_file(path);
    ck_assert_msg(strstr(rec, " pilot_runs=10\n") &&
                      strstr(rec, "\nplan levels=0 hit_share=0.2 "
                                  "pilot_hits=2 "),
                  "%s", rec);
    free(rec);
}
END_TEST

/* ---- Saved estimates, jobs and merge ------------------------------------ */

static bool exists(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* The whole file at path (binary: a PDF holds NULs) into *len bytes. */
static char *bytes_of(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s: cannot be read", path);
    size_t cap = 1 << 16, n = 0, got;
    char *b = malloc(cap);
    ck_assert_ptr_nonnull(b);
    while ((got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            b = realloc(b, cap *= 2);
            ck_assert_ptr_nonnull(b);
        }
    }
    fclose(f);
    *len = n;
    return b;
}

/* dir a's and dir b's file name hold the same bytes. */
static void same_file(const char *a, const char *b, const char *name)
{
    char pa[1200], pb[1200];
    snprintf(pa, sizeof pa, "%s/%s", a, name);
    snprintf(pb, sizeof pb, "%s/%s", b, name);
    size_t na, nb;
    char *x = bytes_of(pa, &na), *y = bytes_of(pb, &nb);
    ck_assert_msg(na == nb && memcmp(x, y, na) == 0, "%s: %s and %s differ",
                  name, a, b);
    free(x);
    free(y);
}

/* No output of a comparison in dir, and no temporary file left in it. */
static void no_outputs(const char *dir)
{
    static const char *const outs[] = {"summary.md", "summary.json", "runs.csv",
                                       "report.pdf", "report.html"};
    for (size_t i = 0; i < sizeof outs / sizeof *outs; i++)
        ck_assert_msg(!exists(dir, outs[i]), "%s/%s was written", dir, outs[i]);
    char cmd[1200];
    snprintf(cmd, sizeof cmd,
             "test -z \"$(find '%s' -name '*.tmp*' 2>/dev/null)\"", dir);
    ck_assert_msg(system(cmd) == 0, "a temporary file is left in %s", dir);
}

static void fresh(const char *name, char *dir, size_t len)
{
    snprintf(dir, len, "%s", tu_temp_path(name));
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* Built without cairo, merge writes the tables alone. */
#ifdef SB_HAVE_VIZ
#define NO_REPORT NULL
#else
#define NO_REPORT "--no-report"
#endif

/* compare --risk's arguments, then more (NULL-terminated) */
static void run_risk_compare(tu_output *o, const char *const *more)
{
    const char *argl[40] = {
        "compare",    TU_SOURCE("scenarios/retry-storm.ini"),
        "--policies", "immediate,none",
        "--seeds",    "1",
        "--risk",     "--horizon",
        "300s",       "--storm-window",
        "120s",       "--risk-runs",
        "3"};
    int n = 13;
#ifndef SB_HAVE_VIZ
    argl[n++] = "--no-report"; /* built without cairo: the tables alone */
#endif
    for (int i = 0; more[i]; i++)
        argl[n++] = more[i];
    argl[n] = NULL;
    tu_stormbench(o, argl);
}

/* compare --risk spread over jobs: --emit-jobs writes the 2 runs (2
 * policies x 1 seed) and then one job per estimate (2 policies at one
 * point: jobs 2 and 3); with job 3 not run, merge names the estimate
 * missing (policy 'none', the job that makes it) and writes nothing; with
 * it, merge writes summary.md, summary.json, runs.csv, report.pdf and
 * report.html byte for byte as the one command does (under
 * SOURCE_DATE_EPOCH, the report's date).  Before, --risk with
 * --emit-jobs was refused.  A saved estimate damaged is refused by file
 * and line, and its job run again makes it anew; the one command again
 * makes no estimate (both are saved) and writes the same bytes. */
START_TEST(risk_in_jobs_merges_to_the_same_bytes)
{
    char direct[1024], dir[1024], jobs[1024], cmd[4096], path[1200];
    fresh("compare-risk-direct", direct, sizeof direct);
    fresh("compare-risk-jobs", dir, sizeof dir);
    snprintf(jobs, sizeof jobs, "%s", tu_temp_path("compare-risk-jobs.txt"));
    setenv("SOURCE_DATE_EPOCH", "31536000", 1);
    tu_output o;
    run_risk_compare(&o, (const char *[]){"-j", "2", "-o", direct, NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    run_risk_compare(&o,
                     (const char *[]){"--emit-jobs", jobs, "-o", dir, NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    ck_assert_msg(strstr(o.out, "wrote 4 jobs to ") &&
                      strstr(o.out, "(2 runs, then 2 estimates of risk)"),
                  "%s", o.out);
    tu_output_free(&o);
    char *text = tu_read_file(jobs);
    ck_assert_ptr_nonnull(text);
    ck_assert_int_eq(tu_count(text, "\n"), 4);
    ck_assert_msg(strstr(text, " --run 3\n") && !strstr(text, " --run 4\n"),
                  "%s", text);
    free(text);
    snprintf(cmd, sizeof cmd, "head -n 3 '%s' | sh", jobs);
    ck_assert_int_eq(system(cmd), 0);
    tu_stormbench(&o, (const char *[]){"merge", dir, "-q", NO_REPORT, NULL});
    ck_assert_int_eq(o.status, 2);
    ck_assert_msg(strstr(o.err, "1 of 2 risk estimates are not saved in ") &&
                      strstr(o.err, "(the first: policy 'none')") &&
                      strstr(o.err, "its job with --run 3"),
                  "%s", o.err);
    tu_output_free(&o);
    no_outputs(dir);
    snprintf(cmd, sizeof cmd, "tail -n 1 '%s' | sh", jobs);
    ck_assert_int_eq(system(cmd), 0);
    tu_stormbench(&o, (const char *[]){"merge", dir, "-q", NO_REPORT, NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    static const char *const outs[] = {"summary.md", "summary.json", "runs.csv",
                                       "report.pdf", "report.html"};
#ifdef SB_HAVE_VIZ
    size_t n_outs = 5;
#else
    size_t n_outs = 3; /* no report without cairo */
#endif
    for (size_t i = 0; i < n_outs; i++)
        same_file(direct, dir, outs[i]);
    /* A damaged estimate: its p's first digit changed. */
    snprintf(path, sizeof path, "%s/risk/point0-policy0.risk", dir);
    text = tu_read_file(path);
    ck_assert_ptr_nonnull(text);
    char *p = strstr(text, "\nestimate p=1 ");
    ck_assert_msg(p != NULL, "%s", text);
    p[12] = '0';
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    free(text);
    tu_stormbench(&o, (const char *[]){"merge", dir, "-q", NO_REPORT, NULL});
    ck_assert_int_eq(o.status, 2);
    ck_assert_msg(strstr(o.err, "point0-policy0.risk:") &&
                      strstr(o.err, "its checksum does not match") &&
                      strstr(o.err, "--run 2"),
                  "%s", o.err);
    tu_output_free(&o);
    snprintf(cmd, sizeof cmd, "sed -n 3p '%s' | sh", jobs);
    ck_assert_int_eq(system(cmd), 0);
    tu_stormbench(&o, (const char *[]){"merge", dir, "-q", NO_REPORT, NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    same_file(direct, dir, "summary.json");
    /* The one command again: nothing to estimate. */
    run_risk_compare(&o, (const char *[]){"-j", "2", "-o", direct, NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    ck_assert_msg(strstr(o.err, "risk 1/2: immediate: 100 % [43.9, 100]; "
                                "3 of 3 runs (saved before)") &&
                      strstr(o.err, "risk 2/2: none: 0 % [0, 56.1]; 0 of "
                                    "3 runs (saved before)"),
                  "%s", o.err);
    tu_output_free(&o);
    unsetenv("SOURCE_DATE_EPOCH");
    for (size_t i = 0; i < n_outs; i++)
        same_file(direct, dir, outs[i]);
#ifdef SB_HAVE_VIZ
    /* The report says each estimate's note under the verdict. */
    snprintf(path, sizeof path, "%s/report.html", dir);
    char *html = tu_read_file(path);
    ck_assert_ptr_nonnull(html);
    ck_assert_msg(strstr(html, "Note on none&#39;s estimate: the pilot&#39;s "
                               "runs never climbed to a storm"),
                  "report.html lacks none's note");
    free(html);
#endif
}
END_TEST

/* When the risk part of compare --risk fails, the command exits 2 with
 * the reason and writes no output (no summary, table or report, no
 * temporary file).  Two ways:
 *  - a horizon no longer than retry-storm's 20 s warm-up (every run would
 *    be over before a storm could be judged: risk.h), said before any
 *    run is made: no run saved (it used to be said by the first estimate,
 *    after the comparison's 2 runs), nor for a sweep, where the point
 *    whose warm-up is too long is named;
 *  - an estimate that cannot be saved (DIR/risk is a file, not a
 *    directory): the comparison's runs, made before, stay saved for the
 *    next try (2: 2 policies x 1 seed). */
START_TEST(risk_failure_writes_no_outputs)
{
    char dir[1024], path[1200];
    fresh("compare-risk-fails", dir, sizeof dir);
    tu_output o;
    tu_stormbench(&o, (const char *[]){"compare",
                                       TU_SOURCE("scenarios/retry-storm.ini"),
                                       "--policies", "immediate,none",
                                       "--seeds", "1", "--risk", "--horizon",
                                       "20s", "-j", "2", "-o", dir, NULL});
    ck_assert_int_eq(o.status, 2);
    ck_assert_msg(strstr(o.err, "stormbench compare: --risk: --horizon 20 s "
                                "must be longer than the scenario's "
                                "warm-up (20 s)\n"),
                  "%s", o.err);
    tu_output_free(&o);
    no_outputs(dir);
    ck_assert_int_eq(tu_saved_runs(dir), 0);
    /* warm-up 10 s, then 30 s: the second point cannot use a 30 s
     * horizon */
    tu_stormbench(
        &o, (const char *[]){"compare", TU_SOURCE("scenarios/retry-storm.ini"),
                             "--policies", "none", "--seeds", "1", "--sweep",
                             "scenario.warmup=10s:30s:20s", "--risk",
                             "--horizon", "30s", "-o", dir, NULL});
    ck_assert_int_eq(o.status, 2);
    ck_assert_msg(strstr(o.err, "--risk at scenario.warmup = 30"), "%s", o.err);
    ck_assert_msg(strstr(o.err, "warm-up (30 s)"), "%s", o.err);
    tu_output_free(&o);
    ck_assert_int_eq(tu_saved_runs(dir), 0);
    fresh("compare-risk-nodir", dir, sizeof dir);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(path, sizeof path, "%s/risk", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    run_risk_compare(&o, (const char *[]){"-j", "2", "-o", dir, NULL});
    ck_assert_int_eq(o.status, 2);
    ck_assert_msg(strstr(o.err, "/risk/point0-policy0.risk"), "%s", o.err);
    tu_output_free(&o);
    no_outputs(dir);
    ck_assert_int_eq(tu_saved_runs(dir), 2);
}
END_TEST

/* Ctrl-C during compare --risk's estimates behaves as during its runs:
 * exit 130 and a message that says what is saved and how to go on.  The
 * estimate finished before is saved (immediate's: its pilot sees storms
 * in every run, so 128 plain runs, two batches past the least 100), the
 * one in the making is not (none's: none tips, so its interval never
 * narrows to 20 % and it would make all 2000 runs), and no output is
 * written.  Before, the signal's default action killed the command
 * without a word (no exit status, the shell's 130 aside). */
START_TEST(interrupted_estimates_are_said_and_kept)
{
    char dir[1024], err[1100], path[1200];
    fresh("compare-risk-int", dir, sizeof dir);
    snprintf(err, sizeof err, "%s.err", dir);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        execl(SB_BINARY, SB_BINARY, "compare",
              TU_SOURCE("scenarios/retry-storm.ini"), "--policies",
              "immediate,none", "--seeds", "1", "--risk", "--horizon", "100s",
              "--storm-window", "20s", "--risk-runs", "2000", "--no-report",
              "-j", "2", "-o", dir, (char *)NULL);
        _exit(127);
    }
    snprintf(path, sizeof path, "%s/risk/point0-policy0.risk", dir);
    for (int i = 0; i < 12000 && access(path, F_OK) != 0; i++)
        usleep(50 * 1000);
    kill(pid, SIGINT);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    char *text = tu_read_file(err);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 130,
                  "exit status %#x, not 130: %s", st, text ? text : "");
    ck_assert_msg(text && strstr(text, "stormbench compare: stopped; the runs "
                                       "are saved in "),
                  "%s", text ? text : "");
    ck_assert_msg(strstr(text, "/risk: run the same command again to go on"),
                  "%s", text);
    free(text);
    ck_assert_int_eq(access(path, F_OK), 0);
    snprintf(path, sizeof path, "%s/risk/point0-policy1.risk", dir);
    ck_assert_int_ne(access(path, F_OK), 0);
    no_outputs(dir);
    ck_assert_int_eq(tu_saved_runs(dir), 2);
}
END_TEST

/* A saved estimate reads back as the very estimate written, every field:
 * a splitting one (two levels, a first storm found on a branch of two
 * re-keyings), no rate (NaN), an infinite relative error, a note with a
 * line break and a backslash.  Written again, it gives the same bytes;
 * its doubles are bit for bit the same.  Asked for with other options
 * (--risk-runs 401 for 400) or by another plan's fingerprint, it is
 * refused naming the line; an estimate never saved is 1, not an error. */
START_TEST(saved_estimate_reads_back_exactly)
{
    static risk_result r, back;
    memset(&r, 0, sizeof r);
    r.est = (split_estimate){.p = 1.0 / 3,
                             .lo = 0.1,
                             .hi = 0.7,
                             .rel_error = INFINITY,
                             .trials = 400,
                             .hit_trials = 12,
                             .hits = 57,
                             .paths = 913,
                             .work = 1e5,
                             .variance = 2e-3,
                             .work_variance = 0.25,
                             .effective_runs = 4321,
                             .plain = false,
                             .reached_target = true};
    r.plan.n_levels = 2;
    r.plan.level[0] = 87.5;
    r.plan.level[1] = 145;
    r.plan.copies[0] = 5;
    r.plan.copies[1] = 7;
    r.plan.crossed[0] = 0.22;
    r.plan.crossed[1] = 0.2;
    r.plan.hit_share = 0.05;
    r.plan.pilot_hits = 9;
    r.plan.pilot_work = 81145.25;
    r.splitting = true;
    r.found = true;
    r.first_trial = 17;
    r.first_seed = 18;
    r.first_storm_ns = 181000000000;
    r.first_branch.n = 2;
    r.first_branch.step[0] = (sim_branch_step){66000000000, UINT64_MAX};
    r.first_branch.step[1] = (sim_branch_step){67000000001, 1};
    r.one_shot = true;
    r.rate_per_s = r.rate_lo_per_s = r.rate_hi_per_s = NAN;
    r.exposure_s = 280;
    snprintf(r.note, sizeof r.note, "a note\nwith a \\ in it");
    compare_risk_opts o = {(int64_t)300 * 1000000000,
                           (int64_t)120 * 1000000000,
                           {RISK_AUTO, 0.95, 0.2, 400, 0, 2, RISK_IMP_QUEUE, 0,
                            NULL, NULL, NULL, NULL}};
    riskfile_key k = {"0123456789abcdef", 1, 3, 1, "exponential:base=1ms", &o};
    char path[1024], again[1024];
    snprintf(path, sizeof path, "%s", tu_temp_path("estimate.risk"));
    snprintf(again, sizeof again, "%s", tu_temp_path("estimate-again.risk"));
    sb_err e;
    ck_assert_msg(riskfile_write(path, &k, &r, &e) == 0, "%s", e.msg);
    ck_assert_msg(riskfile_read(path, &k, &back, &e) == 0, "%s", e.msg);
    ck_assert(memcmp(&back.est.p, &r.est.p, sizeof r.est.p) == 0);
    ck_assert(isinf(back.est.rel_error) && isnan(back.rate_per_s));
    ck_assert_double_eq(back.est.effective_runs, 4321);
    ck_assert(!back.est.plain && back.est.reached_target);
    ck_assert_int_eq(back.plan.n_levels, 2);
    ck_assert_int_eq(back.plan.copies[1], 7);
    ck_assert_uint_eq(back.first_branch.n, 2);
    ck_assert_uint_eq(back.first_branch.step[0].key, UINT64_MAX);
    ck_assert_int_eq(back.first_branch.step[1].at_ns, 67000000001);
    ck_assert_str_eq(back.note, r.note);
    ck_assert_msg(riskfile_write(again, &k, &back, &e) == 0, "%s", e.msg);
    size_t na, nb;
    char *a = bytes_of(path, &na), *b = bytes_of(again, &nb);
    ck_assert_msg(na == nb && memcmp(a, b, na) == 0, "%s\n---\n%s", a, b);
    free(a);
    free(b);
    o.ro.max_runs = 401;
    ck_assert_int_eq(riskfile_read(path, &k, &back, &e), -1);
    ck_assert_msg(strstr(e.msg, "estimate.risk:5: made with other options"),
                  "%s", e.msg);
    o.ro.max_runs = 400;
    k.fingerprint = "fedcba9876543210";
    ck_assert_int_eq(riskfile_read(path, &k, &back, &e), -1);
    ck_assert_msg(strstr(e.msg, "estimate.risk:2: an estimate of another "
                                "comparison"),
                  "%s", e.msg);
    ck_assert_int_eq(riskfile_read(tu_temp_path("none.risk"), &k, &back, &e),
                     1);
}
END_TEST

/* Every field of a risk_result survives a saved record: each byte of one
 * is filled (byte i a printable character other than DEL, so every
 * double made of them is finite and normal -- its exponent bits neither
 * all 0 nor all 1 -- and reads back exactly, and the note needs no
 * escape but '\\'), the fields that must hold a valid value are given
 * one (a bool 0 or 1; the levels and branch steps, all of them, so that
 * every array element is written), the padding is cleared, and the
 * record read back must be the same bytes.  A field riskfile.c does not
 * write comes back 0 and fails this, naming its offset.  Version 1 of
 * the record left out fixed-effort splitting's four fields (estimate
 * fixed_effort, replicates, per_level, result fixed_effort): this failed
 * on them (byte 98, est.fixed_effort).
 *
 * The padding: inside est, plan and first_branch, gcc's
 * __builtin_clear_padding finds it (on each of them: gcc 12 clears the
 * wrong bytes of a struct holding an array of structs when called on the
 * whole risk_result); between risk_result's own members it is the bytes
 * none of the members listed here covers, and their number is pinned:
 * a member added where padding was (riskfile.c's size checks do not see
 * it) makes it smaller, one added past the end larger, and both fail
 * here.  Built without __builtin_clear_padding (clang 14), the record
 * written again from what was read must be the same bytes, and the four
 * fields are checked by name. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_clear_padding)
#define HAVE_CLEAR_PADDING 1
#endif
#endif

#define MEMBER(m)                                                              \
    {                                                                          \
        offsetof(risk_result, m), sizeof(((risk_result *)0)->m)                \
    }

/* risk_result's bytes between its members zeroed in r; how many. */
static size_t clear_top_padding(risk_result *r)
{
    static const size_t member[][2] = {
        MEMBER(est),           MEMBER(plan),          MEMBER(splitting),
        MEMBER(fixed_effort),  MEMBER(note),          MEMBER(found),
        MEMBER(first_trial),   MEMBER(first_seed),    MEMBER(first_storm_ns),
        MEMBER(first_branch),  MEMBER(one_shot),      MEMBER(rate_per_s),
        MEMBER(rate_lo_per_s), MEMBER(rate_hi_per_s), MEMBER(exposure_s)};
    unsigned char *b = (unsigned char *)r;
    size_t gap = 0;
    for (size_t i = 0; i < sizeof *r; i++) {
        bool in = false;
        for (size_t m = 0; m < sizeof member / sizeof *member && !in; m++)
            in = i >= member[m][0] && i < member[m][0] + member[m][1];
        if (!in) {
            b[i] = 0;
            gap++;
        }
    }
    return gap;
}

START_TEST(every_field_round_trips)
{
    static risk_result r, back;
    unsigned char *b = (unsigned char *)&r;
    for (size_t i = 0; i < sizeof r; i++)
        b[i] = (unsigned char)(0x21 + (i * 7 + i / 94) % 94);
    r.est.plain = true;
    r.est.reached_target = false;
    r.est.fixed_effort = true;
    r.plan.n_levels = SPLIT_MAX_LEVELS;
    r.plan.no_return = true;
    r.splitting = false;
    r.fixed_effort = true;
    r.note[sizeof r.note - 1] = '\0';
    r.found = true;
    r.first_branch.n = SIM_MAX_BRANCH;
    r.one_shot = false;
    size_t gap = clear_top_padding(&r);
#if defined(__LP64__)
    /* 5 after found (the note ends at 1450 + 1088 = 2538, found takes
     * 2538, first_trial starts at 2544) and 7 after one_shot (3600;
     * rate_per_s at 3608): LP64's */
    ck_assert_msg(gap == 12,
                  "%zu bytes of risk_result are no member listed here: "
                  "a member was added (write it in riskfile.c and list "
                  "it here)",
                  gap);
#endif
#ifdef HAVE_CLEAR_PADDING
    __builtin_clear_padding(&r.est);
    __builtin_clear_padding(&r.plan);
    __builtin_clear_padding(&r.first_branch);
#endif
    compare_risk_opts o = {(int64_t)300 * 1000000000,
                           (int64_t)120 * 1000000000,
                           {RISK_AUTO, 0.95, 0.2, 400, 0, 2, RISK_IMP_QUEUE, 0,
                            NULL, NULL, NULL, NULL}};
    riskfile_key k = {"0123456789abcdef", 1, 0, 0, "none", &o};
    char path[1024];
    snprintf(path, sizeof path, "%s", tu_temp_path("every-field.risk"));
    sb_err e;
    ck_assert_msg(riskfile_write(path, &k, &r, &e) == 0, "%s", e.msg);
    ck_assert_msg(riskfile_read(path, &k, &back, &e) == 0, "%s", e.msg);
#ifdef HAVE_CLEAR_PADDING
    __builtin_clear_padding(&back.est);
    __builtin_clear_padding(&back.plan);
    __builtin_clear_padding(&back.first_branch);
    clear_top_padding(&back);
    const unsigned char *x = (const unsigned char *)&back;
    for (size_t i = 0; i < sizeof r; i++)
        ck_assert_msg(x[i] == b[i],
                      "byte %zu of risk_result did not come back (est at "
                      "%zu, plan at %zu, note at %zu, first_branch at %zu, "
                      "exposure_s at %zu): a field riskfile.c does not "
                      "write",
                      i, offsetof(risk_result, est),
                      offsetof(risk_result, plan), offsetof(risk_result, note),
                      offsetof(risk_result, first_branch),
                      offsetof(risk_result, exposure_s));
#else
    char again[1024];
    snprintf(again, sizeof again, "%s", tu_temp_path("every-field-2.risk"));
    ck_assert_msg(riskfile_write(again, &k, &back, &e) == 0, "%s", e.msg);
    size_t na, nb;
    char *ta = bytes_of(path, &na), *tb = bytes_of(again, &nb);
    ck_assert(na == nb && memcmp(ta, tb, na) == 0);
    free(ta);
    free(tb);
    ck_assert(back.est.fixed_effort && back.fixed_effort);
    ck_assert_uint_eq(back.est.replicates, r.est.replicates);
    ck_assert_uint_eq(back.est.per_level, r.est.per_level);
#endif
}
END_TEST

Suite *compare_risk_suite(void)
{
    Suite *s = suite_create("compare_risk");
    TCase *tc = tcase_create("verdicts");
    tcase_add_test(tc, the_least_likely_leads_against_the_next_best);
    tcase_add_test(tc, indistinguishable_leaders_tie);
    tcase_add_test(tc, out_of_memory_in_holm_is_an_error);
    tcase_add_test(tc, no_storm_anywhere_ranks_nothing);
    tcase_add_test(tc, close_estimates_are_not_separated);
    tcase_add_test(tc, saved_estimate_reads_back_exactly);
    tcase_add_test(tc, every_field_round_trips);
    suite_add_tcase(s, tc);
    TCase *run = tcase_create("compare");
    tcase_set_timeout(run, 300);
    tcase_add_test(run, compare_writes_the_risk_commands_estimates);
    suite_add_tcase(s, run);
    /* Each makes several estimates, each with its pilot of 200 runs:
     * minutes under the sanitizers. */
    run = tcase_create("jobs");
    tcase_set_timeout(run, 900);
    tcase_add_test(run, risk_in_jobs_merges_to_the_same_bytes);
    tcase_add_test(run, risk_failure_writes_no_outputs);
    tcase_add_test(run, interrupted_estimates_are_said_and_kept);
    suite_add_tcase(s, run);
    return s;
}
