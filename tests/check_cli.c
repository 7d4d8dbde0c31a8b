/*
 * check_cli.c -- the headless contract other tools and CI rely on: JSON
 * keys, CSV columns, exit codes, byte-identical reruns, whole-or-nothing
 * output files.  Runs the real binary on the shipped scenarios.
 */
#include <check.h>
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define STORM TU_SOURCE("scenarios/retry-storm.ini")
#define DUPS TU_SOURCE("scenarios/duplicate-writes.ini")

static char *run_json(const char *file, const char *name,
                      const char *const *extra, int *status)
{
    char out[1024];
    snprintf(out, sizeof out, "%s", tu_temp_path(name));
    const char *argl[16] = {"run", file, "--json", out, "-q"};
    int n = 5;
    for (int i = 0; extra && extra[i]; i++)
        argl[n++] = extra[i];
    argl[n] = NULL;
    tu_output o;
    *status = tu_stormbench(&o, argl);
    tu_output_free(&o);
    return tu_read_file(out);
}

/* Every key the issue lists, and the arithmetic between them. */
START_TEST(json_has_the_documented_keys)
{
    int st;
    char *j = run_json(STORM, "keys.json", NULL, &st);
    ck_assert_int_eq(st, 0);
    ck_assert_ptr_nonnull(j);
    static const char *const keys[] = {
        "\"scenario\": \"retry-storm\"", "\"policy\": \"immediate\"",
        "\"seed\": 1", "\"duration_s\": 300",
        "\"offered\":", "\"attempts\":", "\"successes\":", "\"failures\": {",
        "\"gave_up\":", "\"deadline\":", "\"refused\":", "\"quarantined\":",
        "\"amplification\":", "\"peak_amplification\":", "\"success_ratio\":",
        "\"goodput_baseline_per_s\":", "\"recovery_time_s\": null",
        "\"metastable\": true", "\"latency_ms\": {",
        "\"p50\":", "\"p99\":", "\"p999\":", "\"mean\":", "\"duplicates\":",
        "\"wasted_work_share\":", "\"server\": {",
        "\"utilization\":", "\"max_queue\":", "\"events\":", "\"wall_s\":",
        "\"events_per_s\":", "\"expectations\": [", "\"name\": \"metastable\"",
        "\"limit\": true", "\"value\": true", "\"ok\": true",
        "\"processes\": 1000", "\"refused_by\": {",
        "\"sends_refused_locally\":", "\"success_ratio_finished\":",
        /* parameters are typed: retry-storm's immediate has
         * max_attempts = 5, a number, not "5" */
        "\"policy_params\": {", "\"max_attempts\": 5"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        ck_assert_msg(strstr(j, keys[i]) != NULL, "JSON lacks %s", keys[i]);
    double offered = tu_json_number(j, "offered");
    double attempts = tu_json_number(j, "attempts");
    double successes = tu_json_number(j, "successes");
    double failures = tu_json_number(j, "failures.total");
    ck_assert_double_eq_tol(tu_json_number(j, "amplification"),
                            attempts / offered, 1e-5);
    /* Of requests started (unfinished ones have not succeeded), and of
     * those that finished. */
    ck_assert_double_eq_tol(tu_json_number(j, "success_ratio"),
                            successes / offered, 1e-5);
    ck_assert_double_eq_tol(tu_json_number(j, "success_ratio_finished"),
                            successes / (successes + failures), 1e-5);
    ck_assert_double_eq(offered, successes + failures +
                                     tu_json_number(j, "in_flight_at_end"));
    ck_assert_double_eq(failures,
                        tu_json_number(j, "failures.gave_up") +
                            tu_json_number(j, "failures.deadline") +
                            tu_json_number(j, "failures.refused") +
                            tu_json_number(j, "failures.quarantined"));
    ck_assert_double_eq(tu_json_number(j, "failures.refused"),
                        tu_json_number(j, "refused_by.budget") +
                            tu_json_number(j, "refused_by.breaker") +
                            tu_json_number(j, "refused_by.other"));
    free(j);
}
END_TEST

/* The CSV: the documented header, one row per bucket, and columns that sum
 * to the JSON's totals. */
START_TEST(csv_rows_add_up_to_the_json)
{
    char csv[1024], json[1024];
    snprintf(csv, sizeof csv, "%s", tu_temp_path("sum.csv"));
    snprintf(json, sizeof json, "%s", tu_temp_path("sum.json"));
    tu_output o;
    ck_assert_int_eq(
        tu_stormbench(&o, (const char *[]){"run", DUPS, "--csv", csv, "--json",
                                           json, "-q", NULL}),
        0);
    tu_output_free(&o);
    char *c = tu_read_file(csv), *j = tu_read_file(json);
    const char *header =
        "t_s,offered,attempts,successes,failures,timeouts,rejections,"
        "busy_workers,queue_len,wasted_work_s,duplicates,p50_ms,p99_ms,"
        "open_breakers,";
    ck_assert_int_eq(strncmp(c, header, strlen(header)), 0);
    long rows = 0;
    double sum[5] = {0}; /* offered attempts successes failures dups */
    for (char *line = strchr(c, '\n') + 1; *line;
         line = strchr(line, '\n') + 1) {
        double v[11];
        int n = sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf",
                       &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
                       &v[8], &v[9], &v[10]);
        ck_assert_int_eq(n, 11);
        ck_assert_double_eq(v[0], (double)rows); /* 1 s buckets */
        sum[0] += v[1];
        sum[1] += v[2];
        sum[2] += v[3];
        sum[3] += v[4];
        sum[4] += v[10];
        rows++;
    }
    ck_assert_int_eq(rows, 120); /* 120 s in 1 s buckets */
    ck_assert_double_eq(sum[0], tu_json_number(j, "offered"));
    ck_assert_double_eq(sum[1], tu_json_number(j, "attempts"));
    ck_assert_double_eq(sum[2], tu_json_number(j, "successes"));
    ck_assert_double_eq(sum[3], tu_json_number(j, "failures.total"));
    ck_assert_double_eq(sum[4], tu_json_number(j, "duplicates"));
    free(c);
    free(j);
}
END_TEST

/* Same scenario, seed and policy: the same bytes.  Without --no-timing
 * the JSON differs at most in its two wall-clock lines. */
START_TEST(reruns_are_byte_identical)
{
    char *out[2][2];
    for (int r = 0; r < 2; r++) {
        char csv[1024], json[1024], name[32];
        snprintf(name, sizeof name, "det%d.csv", r);
        snprintf(csv, sizeof csv, "%s", tu_temp_path(name));
        snprintf(name, sizeof name, "det%d.json", r);
        snprintf(json, sizeof json, "%s", tu_temp_path(name));
        tu_output o;
        tu_stormbench(&o, (const char *[]){"run", STORM, "--csv", csv, "--json",
                                           json, "--no-timing", "-q", NULL});
        tu_output_free(&o);
        out[r][0] = tu_read_file(csv);
        out[r][1] = tu_read_file(json);
    }
    ck_assert_str_eq(out[0][0], out[1][0]);
    ck_assert_str_eq(out[0][1], out[1][1]);
    ck_assert_ptr_nonnull(strstr(out[0][1], "\"wall_s\": null"));
    /* The printed summary too: no wall time in it. */
    tu_output p[2];
    for (int r = 0; r < 2; r++)
        tu_stormbench(&p[r],
                      (const char *[]){"run", DUPS, "--no-timing", NULL});
    ck_assert_str_eq(p[0].out, p[1].out);
    ck_assert_ptr_null(strstr(p[0].out, "wall time"));
    ck_assert_ptr_nonnull(strstr(p[0].out, " events\n"));
    tu_output_free(&p[0]);
    tu_output_free(&p[1]);
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 2; k++)
            free(out[r][k]);
}
END_TEST

START_TEST(timing_lines_are_the_only_difference)
{
    int st;
    char *a = run_json(STORM, "t1.json", NULL, &st);
    char *b = run_json(STORM, "t2.json", NULL, &st);
    char *sa, *sb;
    char *la = strtok_r(a, "\n", &sa), *lb = strtok_r(b, "\n", &sb);
    int differing = 0;
    for (; la && lb;
         la = strtok_r(NULL, "\n", &sa), lb = strtok_r(NULL, "\n", &sb)) {
        if (strcmp(la, lb) == 0)
            continue;
        ck_assert_msg(strstr(la, "\"wall_s\"") ||
                          strstr(la, "\"events_per_s\""),
                      "line differs: %s", la);
        differing++;
    }
    ck_assert_ptr_null(la);
    ck_assert_ptr_null(lb);
    ck_assert_int_le(differing, 2);
    free(a);
    free(b);
}
END_TEST

/* Another seed is another run; the seed is in the JSON. */
START_TEST(seed_changes_the_run)
{
    int st;
    const char *seed7[] = {"--seed", "7", "--no-timing", NULL};
    char *a = run_json(DUPS, "s1.json", NULL, &st);
    char *b = run_json(DUPS, "s7.json", seed7, &st);
    ck_assert_double_eq(tu_json_number(b, "seed"), 7);
    ck_assert_double_ne(tu_json_number(a, "offered"),
                        tu_json_number(b, "offered"));
    free(a);
    free(b);
}
END_TEST

/* `run --seed` takes the whole uint64 range it names in its message;
 * the loader once refused seeds past INT64_MAX ("--set scenario.seed=...:
 * expected a whole number of at least 0") and the JSON would have printed
 * them negative.  The digits are compared: 2^64 - 1 is no double. */
START_TEST(seed_takes_the_whole_uint64_range)
{
    int st;
    const char *big[] = {"--seed", "18446744073709551615", "--no-timing", NULL};
    char *j = run_json(DUPS, "smax.json", big, &st);
    ck_assert_int_eq(st, 0);
    ck_assert_ptr_nonnull(j);
    ck_assert_msg(strstr(j, "\"seed\": 18446744073709551615,") != NULL, "%s",
                  j);
    free(j);
}
END_TEST

/* A shipped scenario can be named instead of given as a file (from the
 * source tree, ./scenarios is where it is found); a misspelt name gets
 * the closest one and the list of shipped names. */
START_TEST(scenarios_by_name)
{
    char cwd[1024];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(SB_SOURCE_DIR), 0);
    tu_output o;
    tu_stormbench(&o, (const char *[]){"run", "duplicate-writes", "-q", NULL});
    ck_assert_msg(o.status == 0, "exit %d: %s%s", o.status, o.out, o.err);
    tu_output_free(&o);
    tu_stormbench(&o, (const char *[]){"validate", "retry-storm", NULL});
    ck_assert_msg(o.status == 0, "exit %d: %s%s", o.status, o.out, o.err);
    tu_output_free(&o);
    tu_stormbench(&o, (const char *[]){"run", "retry-strom", NULL});
    ck_assert_int_eq(o.status, 2);
    ck_assert_msg(strstr(o.err,
                         "retry-strom: no such scenario file, nor a "
                         "shipped scenario of that name (did you "
                         "mean 'retry-storm'?); shipped scenarios: ") != NULL,
                  "%s", o.err);
    ck_assert_ptr_nonnull(strstr(o.err, "duplicate-writes"));
    tu_output_free(&o);
    ck_assert_int_eq(chdir(cwd), 0);
}
END_TEST

/* Another stack keeps the file's [policy] parameters it also has and
 * drops the others, saying so: duplicate-writes is written for
 * exponential (base = 50ms, max_attempts = 4, jitter = full); immediate
 * has max_attempts only.  --set policy.name does the same as --policy
 * (retry-storm's max_attempts = 5 is no parameter of none).  --no-expect
 * runs a fixed policy on the storm scenario without its expectation that
 * the storm happens (exit 0, no verdict printed). */
START_TEST(other_stack_keeps_what_applies)
{
    tu_output o;
    tu_stormbench(&o, (const char *[]){"run", DUPS, "--policy", "immediate",
                                       "--no-expect", NULL});
    ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
    ck_assert_str_eq(o.err, "stormbench run: note: immediate: the "
                            "scenario's [policy] parameters were written "
                            "for exponential; kept max_attempts=4; dropped "
                            "base=50ms, jitter=full (not parameters of "
                            "immediate)\n");
    ck_assert_ptr_nonnull(strstr(o.out, "policy    immediate "
                                        "(max_attempts=4)\n"));
    tu_output_free(&o);
    tu_stormbench(&o,
                  (const char *[]){"run", STORM, "--set", "policy.name=none",
                                   "--no-expect", NULL});
    ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
    ck_assert_str_eq(o.err, "stormbench run: note: none: the scenario's "
                            "[policy] parameters were written for immediate; "
                            "dropped max_attempts=5 (not parameters of "
                            "none)\n");
    ck_assert_ptr_null(strstr(o.out, "expectations"));
    tu_output_free(&o);
    /* Without --no-expect the storm scenario's expectation fails. */
    tu_stormbench(
        &o, (const char *[]){"run", STORM, "--policy", "none", "-q", NULL});
    ck_assert_int_eq(o.status, 1);
    ck_assert_ptr_nonnull(strstr(o.out, "FAIL  metastable: "));
    tu_output_free(&o);
}
END_TEST

/* A run that never finished cannot look perfect.  hot-record without
 * jitter: 100 clients retry in lockstep and each round lets one through,
 * so at the end of the run some are still retrying.  The success ratio
 * counts them (successes / requests started, from the JSON's own counts),
 * success_min fails, and the new keys say what happened. */
START_TEST(unfinished_runs_fail_their_checks)
{
    char json[1024];
    snprintf(json, sizeof json, "%s", tu_temp_path("lockstep.json"));
    tu_output o;
    tu_stormbench(
        &o, (const char *[]){
                "run", TU_SOURCE("scenarios/hot-record.ini"), "--param",
                "jitter=none", "--set", "expect.unfinished_max=0.05", "--set",
                "expect.completion_within=100s", "--json", json, "-q", NULL});
    ck_assert_int_eq(o.status, 1);
    char *j = tu_read_file(json);
    double offered = tu_json_number(j, "offered");
    double ok = tu_json_number(j, "successes");
    double open = tu_json_number(j, "in_flight_at_end");
    free(j);
    ck_assert_double_eq(offered, 100);
    ck_assert_double_gt(open, 0);
    char want[1024];
    snprintf(want, sizeof want,
             "FAIL  success_min: success ratio %.2f%% is below minimum "
             "100.00%%\n"
             "FAIL  unfinished_max: requests unfinished at the end %.2f%% "
             "exceeds limit 5.00%%\n"
             "FAIL  completion_within: did not complete: %.0f of 100 "
             "requests were still open when the run ended at 600 s\n",
             100 * ok / offered, 100 * open / offered, open);
    ck_assert_str_eq(o.out, want);
    tu_output_free(&o);
    /* With jitter (the scenario's own) it completes, and says when. */
    tu_stormbench(&o,
                  (const char *[]){"run", TU_SOURCE("scenarios/hot-record.ini"),
                                   "--set", "expect.completion_within=100s",
                                   "--set", "expect.unfinished_max=0", "--set",
                                   "expect.wasted_max=0.01", NULL});
    ck_assert_msg(o.status == 0, "%s", o.out);
    ck_assert_ptr_nonnull(strstr(o.out, "PASS  completion_within: every "
                                        "request ended by "));
    ck_assert_ptr_nonnull(strstr(o.out, "PASS  unfinished_max: requests "
                                        "unfinished at the end 0.00% within "
                                        "limit 0.00%\n"));
    tu_output_free(&o);
}
END_TEST

/* Accepted, but almost surely a mistake: validate (and run) warn.  A
 * stack of layers alone never retries (token_bucket only gates another
 * policy's retries); a hedge that waits longer than the attempt timeout
 * is never sent.  A hedge delay under the timeout is fine. */
START_TEST(policy_mistakes_are_warned)
{
    static const struct {
        const char *policy;
        const char *warning; /* NULL: none */
    } cases[] = {
        {"name = token_bucket\n",
         "[policy] token_bucket: every layer of it only limits or shapes the "
         "retries of a policy stacked under it, so alone it never retries; "
         "stack it on one that does, such as exponential+token_bucket"},
        {"name = exponential+hedge\nhedge.delay = 2s\n",
         "[policy] hedge.delay 2s is not shorter than the [clients] timeout "
         "1s: every attempt times out before its hedge would be sent, so no "
         "hedge ever is"},
        {"name = exponential+hedge\nhedge.delay = 200ms\n", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char ini[1024], path[1024];
        snprintf(ini, sizeof ini,
                 "[scenario]\nname = w\nduration = 60s\n"
                 "[clients]\ntimeout = 1s\n[policy]\n%s",
                 cases[i].policy);
        snprintf(path, sizeof path, "%s", tu_write_temp("warn.ini", ini));
        tu_output o;
        tu_stormbench(&o, (const char *[]){"validate", path, NULL});
        ck_assert_msg(o.status == 0, "%s", o.err);
        if (cases[i].warning) {
            char want[1024];
            snprintf(want, sizeof want, "%s: warning: %s\n", path,
                     cases[i].warning);
            ck_assert_str_eq(o.err, want);
        } else {
            ck_assert_str_eq(o.err, "");
        }
        tu_output_free(&o);
    }
}
END_TEST

/* `policies classified` lists what each preset sets: the table of
 * classified.c's header (the spec the preset tests check behaviour
 * against), printed from the table the policy runs on. */
START_TEST(classified_lists_its_presets)
{
    tu_output o;
    tu_stormbench(&o, (const char *[]){"policies", "classified", NULL});
    ck_assert_int_eq(o.status, 0);
    static const char *const rows[] = {
        "      payment       5         100ms   5s      respected    408 429 "
        "502 503 504\n",
        "      analytics     2         50ms    500ms   ignored      502 503 "
        "504\n",
        "      external_api  3         1s      60s     respected    429 500 "
        "502 503 504\n",
        "      internal      4         100ms   2s      respected    408 429 "
        "500 502 503 504\n"};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        ck_assert_msg(strstr(o.out, rows[i]) != NULL, "missing: %s in %s",
                      rows[i], o.out);
    tu_output_free(&o);
}
END_TEST

/* A long run shows its progress on a terminal, and only there: under a
 * pseudo-terminal (util-linux `script`) the progress line comes, and is
 * wiped before the summary; through a pipe (a CI log) it never does.
 * STORMBENCH_PROGRESS_AFTER=0 shows it at once instead of after 1 s. */
START_TEST(progress_only_on_a_terminal)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s run %s", SB_BINARY, DUPS);
    setenv("STORMBENCH_PROGRESS_AFTER", "0", 1);
    tu_output o;
    tu_run(&o,
           (const char *[]){"/usr/bin/script", "-qec", cmd, "/dev/null", NULL});
    ck_assert_msg(o.status == 0, "%s%s", o.out, o.err);
    ck_assert_msg(strstr(o.out, "\r  t = ") != NULL, "no progress: %s", o.out);
    ck_assert_ptr_nonnull(strstr(o.out, "\rscenario  duplicate-writes"));
    tu_output_free(&o);
    tu_stormbench(&o, (const char *[]){"run", DUPS, NULL});
    ck_assert_int_eq(o.status, 0);
    ck_assert_ptr_null(strstr(o.err, "t = "));
    ck_assert_ptr_null(strchr(o.err, '\r'));
    tu_output_free(&o);
    unsetenv("STORMBENCH_PROGRESS_AFTER");
}
END_TEST

/* A violated expectation: exit 1, and the log says why in a sentence. */
START_TEST(violated_expectation_exits_one)
{
    tu_output o;
    tu_stormbench(&o, (const char *[]){"run", STORM, "--set",
                                       "expect.recovers_within=30s", NULL});
    ck_assert_int_eq(o.status, 1);
    ck_assert_ptr_nonnull(strstr(
        o.out, "FAIL  recovers_within: did not recover: goodput 0% of "
               "baseline (139.8/s) over the last window, 230 s after the "
               "fault ended\n"));
    ck_assert_ptr_nonnull(strstr(o.out, "PASS  metastable: "));
    tu_output_free(&o);
    /* Quiet mode prints only the failure. */
    tu_stormbench(&o, (const char *[]){"run", STORM, "-q", "--set",
                                       "expect.amplification_max=2", NULL});
    ck_assert_int_eq(o.status, 1);
    ck_assert_str_eq(o.out, "FAIL  amplification_max: amplification 4.163 "
                            "exceeds limit 2\n");
    tu_output_free(&o);
}
END_TEST

/* A fault that outlasts the run (retry-storm's outage moved to 280 s for
 * 100 s, in a run of 300 s; a scenario saved from the window, where a
 * live change runs to the end of the original run, is the same):
 * recovery is not judged, and the messages say why without a negative
 * time ("the run ends -80 s after the last fault"). */
START_TEST(fault_past_the_end_is_said_so)
{
    tu_output o;
    tu_stormbench(&o, (const char *[]){"run", STORM, "--set",
                                       "fault.outage.start=280s", "--set",
                                       "fault.outage.duration=100s", "--set",
                                       "expect.recovers_within=30s", "--set",
                                       "expect.metastable=false", NULL});
    ck_assert_int_eq(o.status, 1);
    const char *why = "the last fault runs past the end of the run (it "
                      "ends at 380 s, the run at 300 s)";
    char want[512];
    snprintf(want, sizeof want, "  recovery              not judged: %s\n",
             why);
    ck_assert_msg(strstr(o.out, want) != NULL, "%s", o.out);
    snprintf(want, sizeof want, "FAIL  recovers_within: cannot be judged: %s\n",
             why);
    ck_assert_msg(strstr(o.out, want) != NULL, "%s", o.out);
    ck_assert_msg(strstr(o.err, "warning") && strstr(o.err, why), "%s", o.err);
    for (const char *m = strstr(o.out, " -"); m; m = strstr(m + 1, " -"))
        ck_assert_msg(!isdigit((unsigned char)m[2]), "%s", o.out);
    tu_output_free(&o);
}
END_TEST

/* --json - puts the JSON alone on stdout; the table moves to stderr. */
START_TEST(json_to_stdout)
{
    tu_output o;
    tu_stormbench(
        &o, (const char *[]){"run", DUPS, "--json", "-", "--no-timing", NULL});
    ck_assert_int_eq(o.status, 0);
    ck_assert_int_eq(o.out[0], '{');
    ck_assert_ptr_null(strstr(o.out, "scenario  "));
    ck_assert_ptr_nonnull(strstr(o.err, "scenario  duplicate-writes"));
    /* About 446 by hand (see the scenario's comment). */
    ck_assert_double_eq_tol(tu_json_number(o.out, "duplicates"), 446, 45);
    tu_output_free(&o);
}
END_TEST

/* An existing output file is replaced whole on success, untouched when the
 * run cannot start, and no temporary file is left either way. */
START_TEST(outputs_are_whole_or_untouched)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", tu_write_temp("keep.json", "old\n"));
    tu_output o;
    tu_stormbench(&o, (const char *[]){"run", DUPS, "--json", path, "--set",
                                       "server.workers=0", NULL});
    ck_assert_int_eq(o.status, 2);
    tu_output_free(&o);
    char *c = tu_read_file(path);
    ck_assert_str_eq(c, "old\n");
    free(c);
    tu_stormbench(&o,
                  (const char *[]){"run", DUPS, "--json", path, "-q", NULL});
    ck_assert_int_eq(o.status, 0);
    tu_output_free(&o);
    c = tu_read_file(path);
    ck_assert_int_eq(c[0], '{');
    ck_assert_int_eq(c[strlen(c) - 2], '}');
    free(c);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    DIR *d = opendir(dir);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        ck_assert_msg(strstr(e->d_name, ".tmp") == NULL, "left behind: %s",
                      e->d_name);
    closedir(d);
}
END_TEST

/* The livelock, through the binary with the default guard: ten
 * closed-loop clients without think time behind breakers that open, and
 * no cost per call.  The run stops (exit 2) with a message that says
 * what happened and what to change, writes no output file, and validate
 * warns about the setting beforehand. */
START_TEST(stopped_clock_exits_two)
{
    const char *ini = tu_write_temp(
        "stopped.ini",
        "[scenario]\nname = closed-breaker\nduration = 60s\n"
        "[clients]\ncount = 10\narrival = closed\nthink = 0s\n"
        "call_time = 0s\n"
        "[server]\nnetwork_delay = const(1ms)\n"
        "[policy]\nname = exponential+circuit_breaker\n"
        "[fault.outage]\ntype = outage\nstart = 20s\nduration = 5s\n");
    char path[1024], json[1024];
    snprintf(path, sizeof path, "%s", ini);
    snprintf(json, sizeof json, "%s", tu_temp_path("stopped.json"));
    tu_output o;
    tu_stormbench(&o, (const char *[]){"run", path, "--json", json, NULL});
    ck_assert_int_eq(o.status, 2);
    /* After run's warning about call_time (the same as validate's). */
    ck_assert_msg(strstr(o.err, "\nstormbench run: the run stopped at t=20.") !=
                      NULL,
                  "%s", o.err);
    ck_assert_ptr_nonnull(strstr(o.err, ": simulated time stopped advancing: "
                                        "10000"));
    ck_assert_ptr_nonnull(strstr(o.err, "was refused locally "
                                        "(circuit_breaker: open)"));
    ck_assert_ptr_nonnull(strstr(o.err, "give [clients] call_time"));
    ck_assert_ptr_null(tu_read_file(json));
    tu_output_free(&o);
    tu_stormbench(&o, (const char *[]){"validate", path, NULL});
    ck_assert_int_eq(o.status, 0);
    ck_assert_ptr_nonnull(strstr(o.err, "warning: [clients] call_time = 0 "
                                        "with closed-loop clients that do "
                                        "not think"));
    tu_output_free(&o);
}
END_TEST

/* Every shipped scenario is valid. */
START_TEST(shipped_scenarios_validate)
{
    DIR *d = opendir(TU_SOURCE("scenarios"));
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".ini") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", TU_SOURCE("scenarios"), e->d_name);
        tu_output o;
        tu_stormbench(&o, (const char *[]){"validate", path, NULL});
        ck_assert_msg(o.status == 0, "%s: %s", e->d_name, o.err);
        ck_assert_ptr_nonnull(strstr(o.out, ": ok ("));
        tu_output_free(&o);
        n++;
    }
    closedir(d);
    ck_assert_int_ge(n, 2);
}
END_TEST

/* `policies NAME` with a name it does not know says which it knows, and
 * the one meant when the name is a near miss, as --policy does. */
START_TEST(policies_unknown_name_suggests)
{
    tu_output o;
    tu_stormbench(&o, (const char *[]){"policies", "exponentail", NULL});
    ck_assert_int_eq(o.status, 2);
    const char *head = "stormbench policies: unknown policy 'exponentail' "
                       "(did you mean 'exponential'?); known policies: "
                       "none, immediate, fixed, exponential, ";
    ck_assert_msg(strncmp(o.err, head, strlen(head)) == 0, "%s", o.err);
    tu_output_free(&o);
    tu_stormbench(&o, (const char *[]){"policies", "nonesuch", NULL});
    ck_assert_int_eq(o.status, 2);
    head = "stormbench policies: unknown policy 'nonesuch'; known "
           "policies: none, immediate, fixed, exponential, ";
    ck_assert_msg(strncmp(o.err, head, strlen(head)) == 0, "%s", o.err);
    ck_assert_msg(strstr(o.err, "circuit_breaker") != NULL, "%s", o.err);
    tu_output_free(&o);
}
END_TEST

/* A stack of many parameters is printed a layer to a line, wrapped at 80
 * columns, every parameter still there: exponential+circuit_breaker's
 * policy line was 700 characters.  validate's 'ok' line likewise.  A
 * short one stays on one line ("policy    immediate (max_attempts=5)"). */
START_TEST(policy_line_is_wrapped)
{
    char ini[1024];
    snprintf(ini, sizeof ini, "%s",
             tu_write_temp("breaker.ini",
                           "[scenario]\nname = b\nduration = 60s\n"
                           "[clients]\ncount = 10\nrate = 1/s\n"
                           "[policy]\nname = exponential+circuit_breaker\n"));
    tu_output o;
    for (int k = 0; k < 2; k++) {
        if (k)
            tu_stormbench(&o, (const char *[]){"validate", ini, NULL});
        else
            tu_stormbench(&o, (const char *[]){"run", STORM, "--policy",
                                               "exponential+circuit_breaker",
                                               NULL});
        /* (run: 1 when the storm's [expect] no longer holds) */
        ck_assert_msg(o.status == 0 || (k == 0 && o.status == 1), "%s", o.err);
        /* The policy's lines: up to "run " (run), or after the line that
         * names the file, whatever its path's length (validate). */
        const char *end = strstr(o.out, "\nrun ");
        const char *l = k ? strchr(o.out, '\n') + 1 : o.out;
        ck_assert_msg(k == 0 || strstr(o.out, "ok (b; policy "
                                              "exponential+circuit_breaker)\n"),
                      "%s", o.out);
        while (*l && (!end || l < end)) {
            size_t n = strcspn(l, "\n");
            ck_assert_msg(n <= 80, "%zu columns: %.*s", n, (int)n, l);
            l += n + (l[n] != '\0');
        }
        const char *want[] = {"exponential: base=100ms, ",
                              "circuit_breaker: mode=consecutive, ",
                              "cooldown_growth=exponential\n"};
        for (size_t i = 0; i < 3; i++)
            ck_assert_msg(strstr(o.out, want[i]) != NULL, "%s", o.out);
        tu_output_free(&o);
    }
    tu_stormbench(&o, (const char *[]){"run", STORM, NULL});
    ck_assert_ptr_nonnull(
        strstr(o.out, "\npolicy    immediate (max_attempts=5)\n"));
    tu_output_free(&o);
}
END_TEST

START_TEST(help_version_and_policies)
{
    tu_output o;
    tu_stormbench(&o, (const char *[]){"--version", NULL});
    ck_assert_int_eq(o.status, 0);
    ck_assert_str_eq(o.out, "stormbench " SB_VERSION " (policy ABI 2.2)\n");
    tu_output_free(&o);
    tu_stormbench(&o, (const char *[]){"--help", NULL});
    ck_assert_int_eq(o.status, 0);
    ck_assert_ptr_nonnull(strstr(o.out, "run SCENARIO"));
    tu_output_free(&o);
    tu_stormbench(&o, (const char *[]){"run", "--help", NULL});
    ck_assert_int_eq(o.status, 0);
    ck_assert_ptr_nonnull(strstr(o.out, "--json FILE"));
    ck_assert_ptr_nonnull(strstr(o.out, "Exit status: 0"));
    tu_output_free(&o);
    tu_stormbench(&o, (const char *[]){"policies", NULL});
    ck_assert_int_eq(o.status, 0);
    ck_assert_ptr_nonnull(strstr(o.out, "exponential\n"));
    ck_assert_ptr_nonnull(strstr(o.out, "    base                   duration"
                                        " default 100ms"));
    ck_assert_ptr_nonnull(strstr(o.out, "none|full|equal|decorrelated|"
                                        "decorrelated_v2|ratio"));
    tu_output_free(&o);
}
END_TEST

Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("contract");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, json_has_the_documented_keys);
    tcase_add_test(tc, csv_rows_add_up_to_the_json);
    tcase_add_test(tc, reruns_are_byte_identical);
    tcase_add_test(tc, timing_lines_are_the_only_difference);
    tcase_add_test(tc, seed_changes_the_run);
    tcase_add_test(tc, seed_takes_the_whole_uint64_range);
    tcase_add_test(tc, scenarios_by_name);
    tcase_add_test(tc, other_stack_keeps_what_applies);
    tcase_add_test(tc, unfinished_runs_fail_their_checks);
    tcase_add_test(tc, policy_mistakes_are_warned);
    tcase_add_test(tc, classified_lists_its_presets);
    tcase_add_test(tc, progress_only_on_a_terminal);
    tcase_add_test(tc, violated_expectation_exits_one);
    tcase_add_test(tc, fault_past_the_end_is_said_so);
    tcase_add_test(tc, json_to_stdout);
    tcase_add_test(tc, outputs_are_whole_or_untouched);
    tcase_add_test(tc, shipped_scenarios_validate);
    tcase_add_test(tc, help_version_and_policies);
    tcase_add_test(tc, policy_line_is_wrapped);
    tcase_add_test(tc, policies_unknown_name_suggests);
    tcase_add_test(tc, stopped_clock_exits_two);
    suite_add_tcase(s, tc);
    return s;
}
