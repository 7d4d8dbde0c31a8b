/*
 * check_scenario_pipeline.c -- [pipeline] and [step.NAME] in scenario
 * files: what loads, into which fields, and every way to get them wrong,
 * each refused with a message that names the file, the line, the key and
 * what was expected (exit status 2, nothing on stdout).  The bad cases
 * run the real binary; the good ones load in process to look at the
 * config.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* A valid scenario without a pipeline.  Lines:
 *  1 [scenario]   2 name   3 duration   4 [clients]   5 count   6 rate
 *  7 [server]     8 workers  9 [policy]  10 name
 * so a case's own lines start at 11. */
#define BASE                                                                   \
    "[scenario]\nname = t\nduration = 60s\n"                                   \
    "[clients]\ncount = 10\nrate = 1/s\n"                                      \
    "[server]\nworkers = 2\n"                                                  \
    "[policy]\nname = none\n"

/* ... and a pipeline of two steps: 11 [pipeline]  12 steps = a, b
 * 13 [step.a]  14 [step.b]; a case's lines after it start at 15 (in
 * [step.b]). */
#define PIPE BASE "[pipeline]\nsteps = a, b\n[step.a]\n[step.b]\n"

typedef struct bad_case {
    const char *name;
    const char *ini;
    const char *extra[3]; /* more arguments after the file */
    const char *message;  /* after "stormbench run: "; @F is the file */
} bad_case;

static const bad_case cases[] = {
    /* A crash of the job runners, with no runners to crash. */
    {"crash-without-pipeline",
     BASE "[fault.oom]\ntype = crash\nstart = 1s\nduration = 1s\n",
     {NULL},
     "@F:12: [fault.oom] type: a crash strikes a pipeline's job runners, "
     "and this scenario has no [pipeline]"},
    /* The shape of the pipeline. */
    {"no-steps",
     BASE "[pipeline]\non_failure = continue\n[step.a]\n",
     {NULL},
     "@F:11: [pipeline] needs 'steps': the names of its [step.NAME] "
     "sections, in the order a job runs them, such as steps = extract, "
     "load"},
    {"listed-without-section",
     BASE "[pipeline]\nsteps = a, b\n[step.a]\n",
     {NULL},
     "@F:12: [pipeline] steps: expected the names of [step.NAME] sections, "
     "but there is no [step.b] section, got 'a, b'"},
    {"section-not-listed",
     BASE "[pipeline]\nsteps = a\n[step.a]\n[step.b]\ntimeout = 1s\n",
     {NULL},
     "@F:14: [step.b] is not run: [pipeline] steps (@F:12) does not list "
     "it; expected every [step.NAME] to be one of the steps, got steps = "
     "'a'"},
    {"step-without-pipeline",
     BASE "[step.a]\ntimeout = 1s\n",
     {NULL},
     "@F:11: [step.a] is a step of a pipeline, but the scenario has no "
     "[pipeline]; expected a [pipeline] section with steps = a (the steps "
     "in the order a job runs them)"},
    {"step-listed-twice",
     BASE "[pipeline]\nsteps = a, b, a\n[step.a]\n[step.b]\n",
     {NULL},
     "@F:12: [pipeline] steps: expected each step once, but 'a' is listed "
     "twice, got 'a, b, a'"},
    {"step-name-with-space",
     BASE "[pipeline]\nsteps = a, b c\n[step.a]\n",
     {NULL},
     "@F:12: [pipeline] steps: expected a comma-separated list of step "
     "names (letters, digits, _ and -, at most 63 each), each the name of a "
     "[step.NAME] section, got 'a, b c'"},
    {"steps-empty-item",
     BASE "[pipeline]\nsteps = a,,b\n[step.a]\n"
          "[step.b]\n",
     {NULL},
     "@F:12: [pipeline] steps: expected a comma-separated list of step "
     "names (letters, digits, _ and -, at most 63 each), each the name of a "
     "[step.NAME] section, got 'a,,b'"},
    {"steps-empty",
     BASE "[pipeline]\nsteps =\n",
     {NULL},
     "@F:12: [pipeline] steps: expected at least one step: the names of "
     "[step.NAME] sections, in the order they run, got ''"},
    {"seventeen-steps",
     BASE "[pipeline]\nsteps = s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, "
          "s11, s12, s13, s14, s15, s16, s17\n"
          "[step.s1]\n[step.s2]\n[step.s3]\n[step.s4]\n[step.s5]\n"
          "[step.s6]\n[step.s7]\n[step.s8]\n[step.s9]\n[step.s10]\n"
          "[step.s11]\n[step.s12]\n[step.s13]\n[step.s14]\n[step.s15]\n"
          "[step.s16]\n[step.s17]\n",
     {NULL},
     "@F:12: [pipeline] steps: expected at most 16 steps, got 's1, s2, s3, "
     "s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15, s16, s17'"},
    {"bad-step-section-name",
     BASE "[pipeline]\nsteps = a\n[step.a b]\n",
     {NULL},
     "@F:13: unknown section [step.a b]; known sections: [scenario], "
     "[clients], [server], [policy], [expect], [fault.NAME], "
     "[server.NAME], [policy.NAME], [expect.NAME], [pipeline], "
     "[step.NAME]"},
    /* What a pipeline does not run with yet. */
    {"with-a-chain",
     "[scenario]\nname = t\nduration = 60s\n[server]\nworkers = 2\n"
     "downstream = db\n[server.db]\n[pipeline]\nsteps = a\n[step.a]\n",
     {NULL},
     "@F:6: [server] downstream: expected no downstream with a pipeline "
     "([pipeline] steps, @F:9): a pipeline together with a service chain "
     "is not supported yet, got 'db'"},
    {"on-the-hot-record",
     "[scenario]\nname = t\nduration = 60s\n[server]\nmodel = hot_record\n"
     "[pipeline]\nsteps = a\n[step.a]\n",
     {NULL},
     "@F:5: [server] model: expected queue with a pipeline ([pipeline] "
     "steps, @F:7): a step's answers come from the queue model; a pipeline "
     "on the hot record is not supported yet, got 'hot_record'"},
    /* [pipeline]'s keys. */
    {"pipeline-twice",
     PIPE "[pipeline]\n",
     {NULL},
     "@F:15: section [pipeline] appears twice (first at line 11)"},
    {"on-failure-word",
     BASE "[pipeline]\nsteps = a\non_failure = retry\n[step.a]\n",
     {NULL},
     "@F:13: [pipeline] on_failure: expected one of "
     "fail_fast|continue|compensate|partial, got 'retry'"},
    {"reruns-too-many",
     BASE "[pipeline]\nsteps = a\nreruns = 8\n[step.a]\n",
     {NULL},
     "@F:13: [pipeline] reruns: expected a whole number from 0 to 7, got "
     "'8'"},
    {"rerun-delay-word",
     BASE "[pipeline]\nsteps = a\nrerun_delay = soon\n[step.a]\n",
     {NULL},
     "@F:13: [pipeline] rerun_delay: expected a duration with a unit (ns, "
     "us, ms, s, m, h), such as 250ms or 2s, got 'soon'"},
    {"sla-negative",
     BASE "[pipeline]\nsteps = a\nsla = -1s\n[step.a]\n",
     {NULL},
     "@F:13: [pipeline] sla: 'none' or: expected a non-negative duration, "
     "got '-1s'"},
    {"checkpoints-not-bool",
     BASE "[pipeline]\nsteps = a\ncheckpoints = maybe\n[step.a]\n",
     {NULL},
     "@F:13: [pipeline] checkpoints: expected true or false, got 'maybe'"},
    {"warn-retry-zero",
     BASE "[pipeline]\nsteps = a\nwarn_retry = 0\n[step.a]\n",
     {NULL},
     "@F:13: [pipeline] warn_retry: expected a whole number from 1 to "
     "1000000, got '0'"},
    {"dead-letter-growth-zero",
     BASE "[pipeline]\nsteps = a\ndead_letter_growth = 0\n[step.a]\n",
     {NULL},
     "@F:13: [pipeline] dead_letter_growth: expected a whole number from 1 "
     "to 1000000, got '0'"},
    {"pipeline-unknown-key",
     BASE "[pipeline]\nsteps = a\nstrategy = partial\n[step.a]\n",
     {NULL},
     "@F:13: [pipeline] unknown key 'strategy'; known keys: steps, "
     "on_failure, checkpoints, reruns, rerun_delay, sla, warn_retry, "
     "dead_letter_growth"},
    /* [step.NAME]'s keys (line 15 is in [step.b]). */
    {"step-timeout-zero",
     PIPE "timeout = 0s\n",
     {NULL},
     "@F:15: [step.b] timeout: expected a positive duration, got '0s'"},
    {"step-service-bad",
     PIPE "service = gamma(1s)\n",
     {NULL},
     "@F:15: [step.b] service: expected a distribution: const(D), exp(D), "
     "lognormal(MEDIAN, SIGMA), normal(MEAN, SD), uniform(A, B), "
     "empirical(FILE), histogram(FILE) or a duration D, got 'gamma(1s)' "
     "(unknown distribution 'gamma')"},
    {"step-transient-above-one",
     PIPE "transient = 1.5\n",
     {NULL},
     "@F:15: [step.b] transient: expected a probability between 0 and 1, "
     "or a percentage from 0% to 100%, got '1.5'"},
    {"step-permanent-negative",
     PIPE "permanent = -0.1\n",
     {NULL},
     "@F:15: [step.b] permanent: expected a probability between 0 and 1, "
     "or a percentage from 0% to 100%, got '-0.1'"},
    {"step-defect-word",
     PIPE "defect = some\n",
     {NULL},
     "@F:15: [step.b] defect: expected a probability between 0 and 1, or a "
     "percentage from 0% to 100%, got 'some'"},
    {"step-items-negative",
     PIPE "items = -1\n",
     {NULL},
     "@F:15: [step.b] items: expected a whole number from 0 to 1000000, "
     "got '-1'"},
    {"step-item-defect-above-one",
     PIPE "items = 5\nitem_defect = 2\n",
     {NULL},
     "@F:16: [step.b] item_defect: expected a probability between 0 and 1, "
     "or a percentage from 0% to 100%, got '2'"},
    {"item-defect-without-items",
     PIPE "item_defect = 0.1\n",
     {NULL},
     "@F:15: [step.b] item_defect: expected 0 in a step that is not a "
     "batch (item_defect is the share of a batch's items with a defect; "
     "set items = N to make the step a batch of N items), got '0.1'"},
    {"item-defect-with-items-zero",
     PIPE "items = 0\nitem_defect = 0.1\n",
     {NULL},
     "@F:16: [step.b] item_defect: expected 0 in a step that is not a "
     "batch (item_defect is the share of a batch's items with a defect; "
     "set items = N to make the step a batch of N items), got '0.1'"},
    {"step-idempotent-not-bool",
     PIPE "idempotent = yes please\n",
     {NULL},
     "@F:15: [step.b] idempotent: expected true or false, got 'yes "
     "please'"},
    {"step-independent-not-bool",
     PIPE "independent = 2\n",
     {NULL},
     "@F:15: [step.b] independent: expected true or false, got '2'"},
    {"step-undo-bad",
     PIPE "undo = exp(5)\n",
     {NULL},
     "@F:15: [step.b] undo: in 'exp(5)': expected a duration with a unit "
     "(ns, us, ms, s, m, h), such as 250ms or 2s, got '5' (no unit)"},
    {"step-policy-empty",
     PIPE "policy =\n",
     {NULL},
     "@F:15: [step.b] policy: expected a policy stack such as exponential "
     "or plan+token_bucket (leave the key out to run the run's own stack), "
     "got ''"},
    {"step-plugin",
     PIPE "policy = exponential\nplugin = x.so\n",
     {NULL},
     "@F:16: [step.b] plugin: a step's own stack runs built-in policies "
     "only (a plug-in is loaded by [policy] plugin, for the run's stack, "
     "which a step without policy = runs)"},
    /* A key that is no step key: a policy parameter only in a step with
     * a stack of its own. */
    {"step-key-typo",
     PIPE "timeot = 1s\n",
     {NULL},
     "@F:15: [step.b] unknown key 'timeot' (did you mean 'timeout'?); "
     "known keys: policy, timeout, service, transient, permanent, defect, "
     "items, item_defect, idempotent, independent, undo; a policy "
     "parameter needs the step's own policy (policy = NAME): without one "
     "the step runs the run's stack, whose parameters are set in "
     "[policy]"},
    {"parameter-without-own-policy",
     PIPE "base = 2s\n",
     {NULL},
     "@F:15: [step.b] unknown key 'base'; known keys: policy, timeout, "
     "service, transient, permanent, defect, items, item_defect, "
     "idempotent, independent, undo; a policy parameter needs the step's "
     "own policy (policy = NAME): without one the step runs the run's "
     "stack, whose parameters are set in [policy]"},
    {"too-many-parameters",
     PIPE "policy = exponential\nk1 = 1\nk2 = 2\nk3 = 3\nk4 = 4\nk5 = 5\n"
          "k6 = 6\nk7 = 7\nk8 = 8\nk9 = 9\n",
     {NULL},
     "@F:24: [step.b] k9: too many policy parameters for a step (at most "
     "8)"},
    /* --set reaches the pipeline, with the same checks. */
    {"set-step-timeout",
     PIPE,
     {"--set", "step.a.timeout=0s", NULL},
     "--set step.a.timeout=0s: [step.a] timeout: expected a positive "
     "duration, got '0s'"},
    {"set-unlisted-step",
     PIPE,
     {"--set", "step.c.timeout=1s", NULL},
     "--set step.c.timeout=1s: [step.c] is not run: [pipeline] steps "
     "(@F:12) does not list it; expected every [step.NAME] to be one of "
     "the steps, got steps = 'a, b'"},
    {"set-steps-without-section",
     PIPE,
     {"--set", "pipeline.steps=a,c", NULL},
     "--set pipeline.steps=a,c: [pipeline] steps: expected the names of "
     "[step.NAME] sections, but there is no [step.c] section, got 'a,c'"},
    {"set-step-without-pipeline",
     BASE,
     {"--set", "step.a.timeout=1s", NULL},
     "--set step.a.timeout=1s: [step.a] is a step of a pipeline, but the "
     "scenario has no [pipeline]; expected a [pipeline] section with steps "
     "= a (the steps in the order a job runs them)"},
};

/* s with every @F replaced by path. */
static void subst(const char *s, const char *path, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (const char *p = s; *p && used + 1 < len;) {
        if (strncmp(p, "@F", 2) == 0) {
            used += (size_t)snprintf(out + used, len - used, "%s", path);
            p += 2;
        } else {
            out[used++] = *p++;
            out[used] = '\0';
        }
    }
}

START_TEST(bad_pipeline_is_named_and_refused)
{
    const bad_case *c = &cases[_i];
    char file[80], path[1024];
    snprintf(file, sizeof file, "pipe-%s.ini", c->name);
    snprintf(path, sizeof path, "%s", tu_write_temp(file, c->ini));
    const char *argl[8] = {"run", path};
    int n = 2;
    for (int i = 0; i < 3 && c->extra[i]; i++)
        argl[n++] = c->extra[i];
    argl[n] = NULL;
    tu_output o;
    tu_stormbench(&o, argl);
    ck_assert_msg(o.status == 2, "%s: exit %d, stderr: %s", c->name, o.status,
                  o.err);
    ck_assert_str_eq(o.out, "");
    char msg[2048], want[2100];
    subst(c->message, path, msg, sizeof msg);
    snprintf(want, sizeof want, "stormbench run: %s\n", msg);
    ck_assert_str_eq(o.err, want);
    tu_output_free(&o);
}
END_TEST

/* ---- What loads ---------------------------------------------------------- */

static scenario sc;

static void load(const char *ini, const char *const *sets, int n_sets)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", tu_write_temp("pipe-good.ini", ini));
    sb_err e;
    if (scenario_load(path, sets, n_sets, &sc, &e) != 0)
        ck_abort_msg("%s", e.msg);
}

/* Steps are filled in the order steps = lists them, not the order of
 * their sections; every key lands in its field. */
START_TEST(every_key_lands_in_its_field)
{
    load(BASE "[pipeline]\nsteps = load, extract\non_failure = partial\n"
              "checkpoints = true\nreruns = 7\nrerun_delay = 90s\n"
              "sla = 30min\nwarn_retry = 1\ndead_letter_growth = 6\n"
              "[step.extract]\npolicy = exponential+token_bucket\n"
              "timeout = 3s\nservice = const(40ms)\ntransient = 0.25\n"
              "permanent = 0.125\ndefect = 0.5\nidempotent = true\n"
              "independent = true\nundo = const(7ms)\nbase = 1s\n"
              "token_bucket.max_tokens = 4\n"
              "[step.load]\nitems = 250\nitem_defect = 0.75\n",
         NULL, 0);
    const pipeline_cfg *p = &sc.cfg.pipeline;
    ck_assert_uint_eq(p->n_steps, 2);
    ck_assert_int_eq(p->strategy, PIPELINE_PARTIAL);
    ck_assert(p->checkpoints);
    ck_assert_uint_eq(p->reruns, 7);
    ck_assert_int_eq(p->rerun_delay_ns, 90 * NS_PER_S);
    ck_assert_int_eq(p->sla_ns, 1800 * NS_PER_S);
    ck_assert_uint_eq(p->warn_retry, 1);
    ck_assert_uint_eq(p->dead_letter_growth, 6);
    const step_cfg *load = &p->steps[0], *ex = &p->steps[1];
    ck_assert_str_eq(load->name, "load");
    ck_assert_uint_eq(load->items, 250);
    ck_assert_double_eq(load->item_defect, 0.75);
    ck_assert_str_eq(load->policy, "");
    ck_assert_int_eq(load->timeout_ns, 0); /* the clients' */
    ck_assert(!load->has_service && !load->has_undo);
    ck_assert_str_eq(ex->name, "extract");
    ck_assert_str_eq(ex->policy, "exponential+token_bucket");
    ck_assert_int_eq(ex->timeout_ns, 3 * NS_PER_S);
    ck_assert(ex->has_service);
    ck_assert_int_eq(ex->service.kind, DIST_CONST);
    ck_assert_int_eq(ex->service.mean_ns, 40 * NS_PER_MS);
    ck_assert_double_eq(ex->transient, 0.25);
    ck_assert_double_eq(ex->permanent, 0.125);
    ck_assert_double_eq(ex->defect, 0.5);
    ck_assert(ex->idempotent && ex->independent && ex->has_undo);
    ck_assert_int_eq(ex->undo_service.mean_ns, 7 * NS_PER_MS);
    /* The stack's parameters, in order, each with where it was written
     * (the stack names it so when it refuses one). */
    ck_assert_uint_eq(ex->n_settings, 2);
    ck_assert_str_eq(ex->settings[0].key, "base");
    ck_assert_str_eq(ex->settings[0].value, "1s");
    ck_assert_str_eq(ex->settings[1].key, "token_bucket.max_tokens");
    char want[1100];
    snprintf(want, sizeof want, "%s:30: [step.extract]", sc.path);
    ck_assert_str_eq(ex->settings[0].origin, want);
    snprintf(want, sizeof want, "%s:21: [step.extract] policy", sc.path);
    ck_assert_str_eq(ex->policy_origin, want);
}
END_TEST

/* A step with no keys is config_step_defaults with its name; a
 * [pipeline] with steps alone has config_defaults' pipeline values. */
START_TEST(defaults)
{
    load(BASE "[pipeline]\nsteps = only\n[step.only]\n", NULL, 0);
    step_cfg want;
    config_step_defaults(&want);
    snprintf(want.name, sizeof want.name, "only");
    ck_assert_uint_eq(sc.cfg.pipeline.n_steps, 1);
    ck_assert(memcmp(&sc.cfg.pipeline.steps[0], &want, sizeof want) == 0);
    sim_config d;
    config_defaults(&d);
    ck_assert_int_eq(sc.cfg.pipeline.strategy, d.pipeline.strategy);
    ck_assert_int_eq(sc.cfg.pipeline.strategy, PIPELINE_FAIL_FAST);
    ck_assert_uint_eq(sc.cfg.pipeline.warn_retry, 3);
    ck_assert_uint_eq(sc.cfg.pipeline.dead_letter_growth, 3);
    ck_assert(!sc.cfg.pipeline.checkpoints);
    ck_assert_uint_eq(sc.cfg.pipeline.reruns, 0);
    ck_assert_int_eq(sc.cfg.pipeline.sla_ns, 0);
    /* Without [pipeline], no steps. */
    load(BASE, NULL, 0);
    ck_assert_uint_eq(sc.cfg.pipeline.n_steps, 0);
}
END_TEST

/* sla: 0 and "none" both mean no SLA. */
START_TEST(sla_zero_or_none)
{
    load(BASE "[pipeline]\nsteps = a\nsla = none\n[step.a]\n", NULL, 0);
    ck_assert_int_eq(sc.cfg.pipeline.sla_ns, 0);
    load(BASE "[pipeline]\nsteps = a\nsla = 0s\n[step.a]\n", NULL, 0);
    ck_assert_int_eq(sc.cfg.pipeline.sla_ns, 0);
}
END_TEST

/* compensate with nothing to undo is accepted: every compensation is
 * then empty. */
START_TEST(compensate_without_undo_loads)
{
    load(BASE "[pipeline]\nsteps = a, b\non_failure = compensate\n"
              "[step.a]\n[step.b]\n",
         NULL, 0);
    ck_assert_int_eq(sc.cfg.pipeline.strategy, PIPELINE_COMPENSATE);
    ck_assert(!sc.cfg.pipeline.steps[0].has_undo);
}
END_TEST

/* --set reaches [pipeline] and a step's keys; a --set that chooses a
 * step's stack drops the file's parameters (written for the file's
 * stack), as for [policy.NAME], and keeps its own. */
START_TEST(set_reaches_the_pipeline)
{
    const char *ini = BASE "[pipeline]\nsteps = a, b\n[step.a]\n"
                           "policy = exponential\nbase = 1s\n[step.b]\n";
    const char *sets[] = {"pipeline.steps=b, a", "step.b.items=3",
                          "pipeline.reruns=2"};
    load(ini, sets, 3);
    const pipeline_cfg *p = &sc.cfg.pipeline;
    ck_assert_str_eq(p->steps[0].name, "b");
    ck_assert_uint_eq(p->steps[0].items, 3);
    ck_assert_uint_eq(p->reruns, 2);
    ck_assert_uint_eq(p->steps[1].n_settings, 1);
    const char *swap[] = {"step.a.policy=fixed", "step.a.delay=2s"};
    load(ini, swap, 2);
    const step_cfg *a = &sc.cfg.pipeline.steps[0];
    ck_assert_str_eq(a->policy, "fixed");
    ck_assert_uint_eq(a->n_settings, 1);
    ck_assert_str_eq(a->settings[0].key, "delay");
    ck_assert_str_eq(a->settings[0].origin, "--set step.a.delay=2s: [step.a]");
}
END_TEST

/* A step's own stack checks its parameters when it is built, by
 * `validate` and by `run` alike, and names the parameter by its file,
 * line and key, with the parameters the stack takes (as a tier's
 * [policy.NAME] parameters are named).  Lines: 11 [pipeline], 12 steps,
 * 13 [step.a], 14 policy, 15 bogus. */
START_TEST(a_bad_step_parameter_is_named)
{
    char p[1024], want[1200];
    snprintf(p, sizeof p, "%s",
             tu_write_temp("pipe-param.ini",
                           BASE "[pipeline]\nsteps = a\n[step.a]\n"
                                "policy = immediate\nbogus = 3\n"));
    snprintf(want, sizeof want,
             "%s:15: [step.a] bogus: policy 'immediate' "
             "has no such parameter; its parameters are: max_attempts",
             p);
    const char *cmds[2][4] = {{"validate", p, NULL}, {"run", p, "-q", NULL}};
    for (int k = 0; k < 2; k++) {
        tu_output o;
        tu_stormbench(&o, cmds[k]);
        ck_assert_int_eq(o.status, 2);
        ck_assert_msg(strstr(o.err, want) != NULL, "%s: %s", cmds[k][0], o.err);
        tu_output_free(&o);
    }
}
END_TEST

Suite *scenario_pipeline_suite(void)
{
    Suite *s = suite_create("scenario_pipeline");
    TCase *tc = tcase_create("bad_input");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, bad_pipeline_is_named_and_refused, 0,
                        (int)(sizeof cases / sizeof *cases));
    suite_add_tcase(s, tc);
    tc = tcase_create("loads");
    tcase_add_test(tc, every_key_lands_in_its_field);
    tcase_add_test(tc, defaults);
    tcase_add_test(tc, sla_zero_or_none);
    tcase_add_test(tc, compensate_without_undo_loads);
    tcase_add_test(tc, set_reaches_the_pipeline);
    tcase_add_test(tc, a_bad_step_parameter_is_named);
    suite_add_tcase(s, tc);
    return s;
}
