/*
 * check_trace_pipeline.c -- `run --trace` on a pipeline: every step's
 * calls are traced like a client's requests (the file was empty: only
 * the clients' requests were sampled, and a pipeline's clients send
 * none), each line naming its step ("caller": "step 'b'") and, in a
 * decision, a layer of the stack that step really runs -- its own
 * (`policy =`) or the run's.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Two steps, half their attempts reset: a runs the run's stack
 * (exponential), b its own (fixed).  Four jobs, once each. */
static const char ini[] =
    "[scenario]\nname = pipe-trace\nduration = 120s\n"
    "[clients]\ncount = 4\narrival = once\ntimeout = 1s\n"
    "[server]\nworkers = unlimited\nservice = const(10ms)\n"
    "[policy]\nname = exponential\n"
    "[pipeline]\nsteps = a, b\n"
    "[step.a]\ntransient = 0.5\n"
    "[step.b]\npolicy = fixed\ntransient = 0.5\n";

/* The sum of the "calls" of each step in the run's JSON ("steps": [...]
 * is the pipeline's last array). */
static int step_calls(const char *json, const char *name)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"name\": \"%s\",\n        \"calls\": ", name);
    const char *p = strstr(json, pat);
    ck_assert_msg(p != NULL, "no step %s in %s", name, json);
    return atoi(p + strlen(pat));
}

START_TEST(steps_are_traced_with_their_stack)
{
    char path[1024], trace[1024], json[1024];
    snprintf(path, sizeof path, "%s", tu_write_temp("pt.ini", ini));
    snprintf(trace, sizeof trace, "%s", tu_temp_path("pt.jsonl"));
    snprintf(json, sizeof json, "%s", tu_temp_path("pt.json"));
    tu_output o;
    tu_stormbench(&o, (const char *[]){"run", path, "-q", "--trace", trace,
                                       "--trace-sample", "1", "--json", json,
                                       NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    char *t = tu_read_file(trace), *j = tu_read_file(json);
    ck_assert_ptr_nonnull(t);
    ck_assert_ptr_nonnull(j);
    int lines = tu_count(t, "\n");
    int a = tu_count(t, "\"caller\": \"step 'a'\"");
    int b = tu_count(t, "\"caller\": \"step 'b'\"");
    ck_assert_int_gt(lines, 0);
    ck_assert_int_eq(a + b, lines);
    /* One "end" per call, every call traced (1 in 1). */
    int ends_a = 0, ends_b = 0, layers_a = 0, layers_b = 0;
    for (char *l = t, *nl; l && *l; l = nl ? nl + 1 : NULL) {
        nl = strchr(l, '\n');
        if (nl)
            *nl = '\0';
        bool is_a = strstr(l, "\"caller\": \"step 'a'\"") != NULL;
        if (strstr(l, "\"event\": \"end\""))
            *(is_a ? &ends_a : &ends_b) += 1;
        const char *layer = strstr(l, "\"layer\": \"");
        if (layer) {
            layer += strlen("\"layer\": \"");
            const char *want = is_a ? "exponential\"" : "fixed\"";
            ck_assert_msg(strncmp(layer, want, strlen(want)) == 0,
                          "step %s decided by %s", is_a ? "a" : "b", layer);
            *(is_a ? &layers_a : &layers_b) += 1;
        }
    }
    ck_assert_int_eq(ends_a, step_calls(j, "a"));
    ck_assert_int_eq(ends_b, step_calls(j, "b"));
    /* Half the attempts are reset: both steps retried at least once on
     * this seed (the JSON's attempts > calls for each), so both stacks'
     * decisions were read. */
    ck_assert_int_gt(layers_a, 0);
    ck_assert_int_gt(layers_b, 0);
    free(t);
    free(j);
}
END_TEST

Suite *trace_pipeline_suite(void)
{
    Suite *s = suite_create("trace_pipeline");
    TCase *tc = tcase_create("trace_pipeline");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, steps_are_traced_with_their_stack);
    suite_add_tcase(s, tc);
    return s;
}
