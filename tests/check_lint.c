/*
 * check_lint.c -- `stormbench lint` on tests/import/topology.yaml, whose
 * figures are worked by hand in the comments, and its SARIF against the
 * SARIF 2.1.0 schema's required properties.
 */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define TOPO TU_SOURCE("tests/import/topology.yaml")

/* front: 4 attempts of 1 s + exponential 0.1 + 0.2 + 0.4 s = 4.7 s,
 * against the clients' 2 s timeout; api: 4 x 0.5 s, immediate, = 2 s
 * against front's 1 s: two inversions, errors (exit 1).  db is reached
 * (2+1) x (3+1) x (3+1) = 48 times per request, over 10, with 3 hops
 * retrying; the clients' 3 attempts of 2 s + 0.1 + 0.2 s = 6.3 s exceed
 * their 5 s deadline, which front and api do not propagate. */
START_TEST(classic_inversions)
{
    tu_output o;
    ck_assert_int_eq(tu_stormbench(&o, (const char *[]){"lint", TOPO, NULL}),
                     1);
    const char *want[] = {
        "timeout-inversion: 2 errors -- ",
        "topology.yaml:6: clients waits 2 s per attempt for front, which "
        "can take 4.7 s",
        "topology.yaml:14: front waits 1 s per attempt for api, which can "
        "take 2 s",
        "retry-amplification: 1 warning -- ",
        ": clients -> front -> api -> db: each request can reach db 48 "
        "times (3 x 4 x 4 attempts)",
        "retries-at-several-layers: 1 warning -- ",
        ": clients -> front -> api -> db: 3 hops retry",
        "deadline-shorter-than-retries: 1 warning -- ",
        ": the clients' deadline, 5 s, ends before their 3 attempts of 2 s "
        "could (6.3 s with backoff)",
        "deadline-not-propagated: 2 warnings -- ",
        ": front retries its calls",
        ": api retries its calls",
        "2 errors, 5 warnings in 1 file"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ck_assert_msg(strstr(o.out, want[i]), "missing '%s' in:\n%s", want[i],
                      o.out);
    tu_output_free(&o);
}
END_TEST

/* A fixed topology: one layer retries, timeouts nest, a budget on the
 * shared service: nothing to say, exit 0.  A service called by two
 * retrying callers without a budget is flagged. */
START_TEST(clean_and_fan_in)
{
    char p[1100];
    snprintf(
        p, sizeof p, "%s",
        tu_write_temp("ok.yaml",
                      "clients:\n  calls: front\n  timeout: 10s\n  retries: 2\n"
                      "  budget: true\nservices:\n  front:\n    calls: db\n"
                      "    timeout: 1s\n  db:\n    workers: 4\n"));
    tu_output o;
    ck_assert_int_eq(tu_stormbench(&o, (const char *[]){"lint", p, NULL}), 0);
    ck_assert_ptr_nonnull(strstr(o.out, "0 errors, 0 warnings in 1 file"));
    tu_output_free(&o);
    snprintf(
        p, sizeof p, "%s",
        tu_write_temp("fan.yaml",
                      "clients:\n  calls: [a, b]\n  timeout: 10s\nservices:\n"
                      "  a:\n    calls: db\n    timeout: 1s\n    retries: 1\n"
                      "  b:\n    calls: db\n    timeout: 1s\n    retries: 2\n"
                      "  db:\n    workers: 4\n"));
    ck_assert_int_eq(
        tu_stormbench(
            &o, (const char *[]){"lint", p, "--warnings-as-errors", NULL}),
        1);
    ck_assert_msg(strstr(o.out, "fan-in-without-budget: 1 warning -- ") &&
                      strstr(o.out, "fan.yaml:14: db is called by 2 "
                                    "callers, 2 of them retrying"),
                  "%s", o.out);
    tu_output_free(&o);
}
END_TEST

/* SARIF 2.1.0's schema requires version "2.1.0" and runs; a run requires
 * tool.driver.name; a result requires message.text (ruleId, level and
 * physicalLocation.region.startLine >= 1 as the schema types them). */
START_TEST(sarif_has_the_required_fields)
{
    char s[1100];
    snprintf(s, sizeof s, "%s", tu_temp_path("lint.sarif"));
    tu_output o;
    ck_assert_int_eq(
        tu_stormbench(&o, (const char *[]){"lint", TOPO, "--sarif", s, NULL}),
        1);
    tu_output_free(&o);
    json_error_t je;
    json_t *root = json_load_file(s, 0, &je);
    ck_assert_msg(root != NULL, "%s:%d: %s", s, je.line, je.text);
    ck_assert_str_eq(json_string_value(json_object_get(root, "version")),
                     "2.1.0");
    json_t *runs = json_object_get(root, "runs");
    ck_assert(json_is_array(runs) && json_array_size(runs) == 1);
    json_t *run = json_array_get(runs, 0);
    json_t *driver = json_object_get(json_object_get(run, "tool"), "driver");
    ck_assert_str_eq(json_string_value(json_object_get(driver, "name")),
                     "stormbench");
    json_t *results = json_object_get(run, "results");
    ck_assert_int_eq(json_array_size(results), 7);
    size_t i;
    json_t *r;
    json_array_foreach(results, i, r)
    {
        ck_assert(json_is_string(
            json_object_get(json_object_get(r, "message"), "text")));
        const char *lv = json_string_value(json_object_get(r, "level"));
        ck_assert(strcmp(lv, "error") == 0 || strcmp(lv, "warning") == 0);
        json_t *loc = json_array_get(json_object_get(r, "locations"), 0);
        json_t *reg =
            json_object_get(json_object_get(loc, "physicalLocation"), "region");
        ck_assert(json_integer_value(json_object_get(reg, "startLine")) >= 1);
    }
    json_decref(root);
}
END_TEST

/* A scenario's chain, as tier-amplification.ini's comments work it out:
 * the clients, front and api each make 4 attempts (immediate), so db is
 * reached 4 x 4 x 4 = 64 times per request, with 3 hops retrying.  The
 * worst cases, all attempts timing out: front's 4 calls of 5 s = 20 s
 * against the clients' 10 s ([clients] timeout, line 47: the key's line,
 * not its section's, 44), api's 4 x 2 s = 8 s against front's 5 s
 * ([policy.front] timeout, line 63): two inversions.  The
 * findings point at db's [server.db] (line 76).  retry-storm.ini has one
 * tier: no path of several retrying hops, 5 attempts under 10. */
START_TEST(scenario_chain)
{
    tu_output o;
    const char *tier = TU_SOURCE("scenarios/tier-amplification.ini");
    ck_assert_int_eq(tu_stormbench(&o, (const char *[]){"lint", tier, NULL}),
                     1);
    const char *want[] = {
        "timeout-inversion: 2 errors -- ",
        "tier-amplification.ini:47: clients waits 10 s per attempt for "
        "front, which can take 20 s",
        "tier-amplification.ini:63: front waits 5 s per attempt for api, "
        "which can take 8 s",
        "retry-amplification: 1 warning -- ",
        "tier-amplification.ini:76: clients -> front -> api -> db: each "
        "request can reach db 64 times (4 x 4 x 4 attempts)",
        "retries-at-several-layers: 1 warning -- ",
        "tier-amplification.ini:76: clients -> front -> api -> db: 3 hops "
        "retry",
        "2 errors, 2 warnings in 1 file"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ck_assert_msg(strstr(o.out, want[i]), "missing '%s' in:\n%s", want[i],
                      o.out);
    tu_output_free(&o);
    ck_assert_int_eq(
        tu_stormbench(
            &o, (const char *[]){"lint", TU_SOURCE("scenarios/retry-storm.ini"),
                                 NULL}),
        0);
    ck_assert_msg(strstr(o.out, "several-layers") == NULL &&
                      strstr(o.out, "0 errors, 0 warnings in 1 file"),
                  "%s", o.out);
    tu_output_free(&o);
    /* A scenario the loader refuses: its error, file and line, exit 2. */
    char bad[1100];
    snprintf(bad, sizeof bad, "%s",
             tu_write_temp("bad.ini",
                           "[scenario]\nname = x\n\n[clients]\nbogus = 1\n"));
    ck_assert_int_eq(tu_stormbench(&o, (const char *[]){"lint", bad, NULL}), 2);
    ck_assert_msg(strstr(o.err, "bad.ini:5: [clients] unknown key 'bogus'"),
                  "%s", o.err);
    tu_output_free(&o);
}
END_TEST

/* --set as run takes it: with the clients' policy none, the clients'
 * inversion remains (front still takes 20 s against their 10 s) but they
 * do not retry -- the message says they give up, not that they "time out
 * and retry" -- and only front and api retry (2 hops; 1 x 4 x 4 = 16 at
 * db).  A --set on a topology is refused, exit 2. */
START_TEST(set_and_a_caller_that_does_not_retry)
{
    tu_output o;
    const char *tier = TU_SOURCE("scenarios/tier-amplification.ini");
    ck_assert_int_eq(
        tu_stormbench(&o, (const char *[]){"lint", tier, "--set",
                                           "policy.name=none", NULL}),
        1);
    ck_assert_msg(strstr(o.out, "tier-amplification.ini:47: clients waits "
                                "10 s") &&
                      strstr(o.out, "the client times out and gives up "
                                    "while front still works") &&
                      strstr(o.out, "the client times out and retries") ==
                          NULL &&
                      strstr(o.out, "can reach db 16 times") &&
                      strstr(o.out, "2 hops retry"),
                  "%s", o.out);
    tu_output_free(&o);
    ck_assert_int_eq(
        tu_stormbench(&o,
                      (const char *[]){"lint",
                                       TU_SOURCE("tests/import/topology.yaml"),
                                       "--set", "clients.count=2", NULL}),
        2);
    ck_assert_msg(strstr(o.err, "--set applies to scenarios"), "%s", o.err);
    tu_output_free(&o);
}
END_TEST

/* A pipeline's steps in the call graph and the seeds' SLA rule.  Five
 * steps each running `plan` with base 1min, cap 10min, 4 attempts (the
 * README's example): retry delays 1 + 2 + 4 = 7 min a step, 35 min in
 * all, over half a 60 min SLA (30 min): a warning at the sla key's line
 * (line 13).  With sla = 2h (half: 60 min) it fits: no finding.  The
 * steps are stages of one job, not five callers whose retries add up:
 * no fan-in-without-budget (it said "called by 5 callers"). */
static const char pipe_ini[] =
    "[scenario]\nname = p\nduration = 10m\n"
    "[clients]\ncount = 1\narrival = once\n"
    "[server]\nworkers = 4\n"
    "[policy]\nname = plan\n"
    "[pipeline]\nsteps = a, b, c, d, e\n"
    "sla = %s\n"
    "[step.a]\n[step.b]\n[step.c]\n[step.d]\n[step.e]\n";

START_TEST(pipeline_sla_rule)
{
    tu_output o;
    char ini[2048], path[1100];
    snprintf(ini, sizeof ini, pipe_ini, "60m");
    snprintf(path, sizeof path, "%s", tu_write_temp("pipe.ini", ini));
    const char *plan[] = {"lint",  path,
                          "--set", "policy.base=1min",
                          "--set", "policy.cap=10min",
                          "--set", "policy.max_attempts=4",
                          NULL};
    ck_assert_int_eq(tu_stormbench(&o, plan), 0);
    ck_assert_msg(strstr(o.out, "pipeline-retries-over-half-sla: 1 "
                                "warning -- ") &&
                      strstr(o.out, "pipe.ini:13: the steps' worst-case "
                                    "retry delays add up to 2100 s") &&
                      strstr(o.out, "fan-in") == NULL,
                  "%s", o.out);
    tu_output_free(&o);
    snprintf(ini, sizeof ini, pipe_ini, "2h");
    snprintf(path, sizeof path, "%s", tu_write_temp("pipe.ini", ini));
    ck_assert_int_eq(tu_stormbench(&o, plan), 0);
    ck_assert_msg(strstr(o.out, "over-half-sla") == NULL, "%s", o.out);
    tu_output_free(&o);
}
END_TEST

/* nightly-pipeline.ini, read against its file: a job runs at most 3
 * times (reruns = 2, line 71) and each step call makes at most 4
 * attempts (plan's default max_attempts, the file's own "4 attempts in
 * all"; lint assumed 5 and said 15), so each step's call can reach the
 * server 3 x 4 = 12 times, over 10, and two hops retry (the scheduler's
 * reruns and the step's plan): 5 paths, one per step, each named at its
 * step's section (lines 75, 78, 81, 85, 88), under one heading per rule
 * with its count and its advice once.  No fan-in: the five steps are one
 * job's stages.  SARIF keeps one result per finding, each message whole
 * with the rule's advice. */
START_TEST(pipeline_findings_grouped)
{
    const char *ini = TU_SOURCE("scenarios/nightly-pipeline.ini");
    char s[1100];
    snprintf(s, sizeof s, "%s", tu_temp_path("nightly.sarif"));
    tu_output o;
    ck_assert_int_eq(
        tu_stormbench(&o, (const char *[]){"lint", ini, "--sarif", s, NULL}),
        0);
    ck_assert_int_eq(tu_count(o.out, "retry-amplification: 5 warnings -- "), 1);
    ck_assert_int_eq(
        tu_count(o.out, "retries-at-several-layers: 5 warnings -- "), 1);
    ck_assert_int_eq(tu_count(o.out, "can reach the server 12 times "
                                     "(3 x 4 attempts)"),
                     5);
    ck_assert_int_eq(tu_count(o.out, "2 hops retry (3 x 4 attempts)"), 5);
    ck_assert_int_eq(tu_count(o.out, "  what to do: "), 2);
    static const int lines[] = {75, 78, 81, 85, 88};
    static const char *const steps[] = {"extract", "clean", "enrich", "load",
                                        "report"};
    for (int i = 0; i < 5; i++) {
        char want[200];
        snprintf(want, sizeof want,
                 "nightly-pipeline.ini:%d: clients -> "
                 "step %s -> the server: ",
                 lines[i], steps[i]);
        ck_assert_msg(tu_count(o.out, want) == 2, "'%s' twice in:\n%s", want,
                      o.out);
    }
    ck_assert_msg(strstr(o.out, "fan-in") == NULL, "%s", o.out);
    ck_assert_msg(strstr(o.out, "0 errors, 10 warnings in 1 file"), "%s",
                  o.out);
    tu_output_free(&o);
    json_error_t je;
    json_t *root = json_load_file(s, 0, &je);
    ck_assert_msg(root != NULL, "%s:%d: %s", s, je.line, je.text);
    json_t *results = json_object_get(
        json_array_get(json_object_get(root, "runs"), 0), "results");
    ck_assert_int_eq(json_array_size(results), 10);
    const char *m = json_string_value(json_object_get(
        json_object_get(json_array_get(results, 1), "message"), "text"));
    ck_assert_msg(strstr(m, "2 hops retry (3 x 4 attempts): retry at one "
                            "layer"),
                  "%s", m);
    json_decref(root);
}
END_TEST

Suite *lint_suite(void)
{
    Suite *s = suite_create("lint");
    TCase *tc = tcase_create("lint");
    tcase_add_test(tc, classic_inversions);
    tcase_add_test(tc, clean_and_fan_in);
    tcase_add_test(tc, sarif_has_the_required_fields);
    tcase_add_test(tc, scenario_chain);
    tcase_add_test(tc, set_and_a_caller_that_does_not_retry);
    tcase_add_test(tc, pipeline_sla_rule);
    tcase_add_test(tc, pipeline_findings_grouped);
    suite_add_tcase(s, tc);
    return s;
}
