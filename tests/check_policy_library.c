/*
 * check_policy_library.c -- what every built-in policy promises, swept
 * over the registry: a valid table with documented parameters, defaults
 * that build, errors that list the parameters, modest per-client state,
 * layers that never retry by themselves, full policies that keep to their
 * attempt limit, and runs that repeat exactly.
 */
#include "policy_harness.h"

#include "registry.h"
#include "schema.h"

static int n_builtins(void)
{
    return registry_count();
}

/* The table passes the checks a plug-in must pass, and says what it is. */
START_TEST(table_is_valid_and_documented)
{
    const sb_policy *p = registry_get(_i);
    sb_err e;
    ck_assert_msg(schema_check_policy(p, NULL, &e) == 0, "%s", e.msg);
    ck_assert_msg(p->doc && strlen(p->doc) > 10, "%s has no doc", p->name);
    for (int j = 0; p->params[j].name; j++)
        ck_assert_msg(p->params[j].doc && strlen(p->params[j].doc) > 5,
                      "%s.%s has no doc", p->name, p->params[j].name);
    for (int k = 0; k < _i; k++)
        ck_assert_str_ne(registry_get(k)->name, p->name);
}
END_TEST

/* Built with its defaults it states its per-client state, and keeps it
 * small: a million clients must fit (DESIGN.md), so no layer may take
 * more than 256 bytes per client at its defaults. */
START_TEST(defaults_build_and_client_state_is_small)
{
    const sb_policy *p = registry_get(_i);
    ph *h = ph_create(p->name, NULL, 0);
    ck_assert_uint_le(pstack_client_state_size(h->setup.stack), 256);
    ph_free(h);
}
END_TEST

/* An unknown parameter is an error that lists the policy's parameters. */
START_TEST(unknown_parameter_lists_the_valid_ones)
{
    const sb_policy *p = registry_get(_i);
    const char *params[] = {"no_such_knob=1"};
    const char *msg = ph_build_error(p->name, params, 1);
    ck_assert_msg(strstr(msg, "no_such_knob"), "got: %s", msg);
    if (p->params[0].name)
        ck_assert_msg(strstr(msg, p->params[0].name), "got: %s", msg);
}
END_TEST

/* ---- Runs: 20 clients x 2/s; connections refused from 10 s to 30 s ---- */

static const char outage_ini[] =
    "[scenario]\nname = sweep\nduration = 40s\nwarmup = 5s\n"
    "[clients]\ncount = 20\nrate = 2/s\ntimeout = 1s\n"
    "[server]\nworkers = unlimited\nservice = const(10ms)\n"
    "[policy]\nname = none\n"
    "[fault.down]\ntype = outage\nstart = 10s\nduration = 20s\n"
    "mode = refuse\n";

/* A layer alone never asks for a retry, so the stack gives up after
 * every failure: even in the outage each request either sends exactly
 * one attempt or is refused locally before sending any (the breaker, the
 * throttle).  The hedge layer is the exception that proves it: its 2 s
 * delay never runs out (every answer comes in 10 ms), but a refused
 * connection is a non-fatal failure, after which gRPC and Polly send the
 * pending hedge at once -- so each failed request made exactly 2
 * attempts, and no more. */
START_TEST(layers_alone_never_retry)
{
    const sb_policy *p = registry_get(_i);
    if (!(p->flags & SB_POLICY_LAYER))
        return;
    tu_sim *t = tu_sim_run(outage_ini, p->name, NULL, 0);
    ck_assert_uint_gt(t->sum.failures, 100);
    uint64_t hedges = strcmp(p->name, "hedge") == 0 ? t->sum.failures : 0;
    ck_assert_uint_eq(t->sum.attempts + t->sum.refused,
                      t->sum.offered + hedges);
    tu_sim_free(t);
}
END_TEST

/* The attempt limit a full policy has by default: its max_attempts, the
 * internal preset's 4 for classified, 1 for none. */
static int64_t default_limit(const sb_policy *p)
{
    if (strcmp(p->name, "classified") == 0)
        return 4;
    for (int j = 0; p->params[j].name; j++)
        if (strcmp(p->params[j].name, "max_attempts") == 0)
            return strtoll(p->params[j].default_value, NULL, 10);
    return 1;
}

/* A full policy retries in the outage, but never past its limit: over
 * the whole run attempts <= limit x offered.  (A window of buckets may
 * hold retries of requests offered just before it.) */
START_TEST(full_policies_keep_their_attempt_limit)
{
    const sb_policy *p = registry_get(_i);
    if (p->flags & SB_POLICY_LAYER)
        return;
    tu_sim *t = tu_sim_run(outage_ini, p->name, NULL, 0);
    double limit = (double)default_limit(p);
    ck_assert_double_le(t->sum.amplification, limit);
    if (limit > 1)
        ck_assert_double_gt(ph_amplification(t, 15, 25), 1.5);
    tu_sim_free(t);
}
END_TEST

/* Same scenario, seed and policy: the same run, to the last count (the
 * policy draws only from the host's per-client stream). */
START_TEST(runs_repeat_exactly)
{
    const sb_policy *p = registry_get(_i);
    tu_sim *a = tu_sim_run(outage_ini, p->name, NULL, 0);
    tu_sim *b = tu_sim_run(outage_ini, p->name, NULL, 0);
    ck_assert_uint_eq(a->sum.attempts, b->sum.attempts);
    ck_assert_uint_eq(a->sum.successes, b->sum.successes);
    ck_assert_uint_eq(a->sum.refused, b->sum.refused);
    ck_assert_uint_eq(a->sum.events, b->sum.events);
    ck_assert_double_eq(a->sum.latency_mean_ms, b->sum.latency_mean_ms);
    tu_sim_free(a);
    tu_sim_free(b);
}
END_TEST

Suite *policy_library_suite(void)
{
    Suite *s = suite_create("policy_library");
    TCase *tc = tcase_create("tables");
    tcase_add_loop_test(tc, table_is_valid_and_documented, 0, n_builtins());
    tcase_add_loop_test(tc, defaults_build_and_client_state_is_small, 0,
                        n_builtins());
    tcase_add_loop_test(tc, unknown_parameter_lists_the_valid_ones, 0,
                        n_builtins());
    suite_add_tcase(s, tc);
    TCase *r = tcase_create("runs");
    tcase_add_loop_test(r, layers_alone_never_retry, 0, n_builtins());
    tcase_add_loop_test(r, full_policies_keep_their_attempt_limit, 0,
                        n_builtins());
    tcase_add_loop_test(r, runs_repeat_exactly, 0, n_builtins());
    suite_add_tcase(s, r);
    return s;
}
