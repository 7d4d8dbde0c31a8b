/*
 * check_compare_risk.c -- compare --risk: the verdict on the risk of a
 * storm (who is least likely to tip, against whom, by which test), and
 * the estimates compare writes being `stormbench risk`'s own.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare_risk.h"
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
    free(md);
    /* --risk's options alone, and --risk with emitted jobs, are refused. */
    tu_stormbench(&o, (const char *[]){"compare", "retry-storm", "--horizon",
                                       "1h", NULL});
    ck_assert_int_eq(o.status, 2);
    ck_assert_msg(strstr(o.err, "are for --risk"), "%s", o.err);
    tu_output_free(&o);
}
END_TEST

/* compare --risk does not run in jobs (its estimates are made in the one
 * process, not saved as runs): --emit-jobs and --run with it are refused
 * (exit 2) saying what to run instead, and no jobs file is written; a
 * saved command that holds --risk (edited by hand: compare never writes
 * one) is refused by merge, naming the file, instead of merging the
 * comparison without its risk. */
START_TEST(risk_in_jobs_is_refused)
{
    char dir[1024], jobs[1024], path[1200];
    snprintf(dir, sizeof dir, "%s", tu_temp_path("compare-risk-jobs"));
    snprintf(jobs, sizeof jobs, "%s", tu_temp_path("compare-risk-jobs.txt"));
    unlink(jobs);
    tu_output o;
    tu_stormbench(&o,
                  (const char *[]){"compare", "retry-storm", "--policies",
                                   "immediate,none", "--seeds", "1", "--risk",
                                   "--emit-jobs", jobs, "-o", dir, NULL});
    ck_assert_int_eq(o.status, 2);
    ck_assert_msg(strstr(o.err, "--risk runs in one process, not with "
                                "--emit-jobs") &&
                      strstr(o.err, "--method mc --emit-jobs"),
                  "%s", o.err);
    tu_output_free(&o);
    ck_assert_ptr_null(fopen(jobs, "r"));
    tu_stormbench(&o,
                  (const char *[]){"compare", "retry-storm", "--policies",
                                   "immediate,none", "--seeds", "1", "--risk",
                                   "--run", "0", "-o", dir, NULL});
    ck_assert_int_eq(o.status, 2);
    ck_assert_msg(strstr(o.err, "not with --run"), "%s", o.err);
    tu_output_free(&o);
    /* the same comparison without --risk emits; its command given --risk */
    tu_stormbench(&o, (const char *[]){"compare", "retry-storm", "--policies",
                                       "immediate,none", "--seeds", "1",
                                       "--emit-jobs", jobs, "-o", dir, NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    snprintf(path, sizeof path, "%s/command", dir);
    FILE *f = fopen(path, "a");
    ck_assert_ptr_nonnull(f);
    fputs("--risk\n", f);
    fclose(f);
    tu_stormbench(&o, (const char *[]){"merge", dir, "-q", NULL});
    ck_assert_int_eq(o.status, 2);
    ck_assert_msg(strstr(o.err, "/command asks for --risk"), "%s", o.err);
    tu_output_free(&o);
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
    suite_add_tcase(s, tc);
    TCase *run = tcase_create("compare");
    tcase_set_timeout(run, 300);
    tcase_add_test(run, compare_writes_the_risk_commands_estimates);
    tcase_add_test(run, risk_in_jobs_is_refused);
    suite_add_tcase(s, run);
    return s;
}
