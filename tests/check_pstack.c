/*
 * check_pstack.c -- how a stack of policies combines, and how it holds
 * every layer to the ABI's contract.  Uses small policies defined here so
 * each rule is seen in isolation.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "classifier.h"
#include "pstack.h"

/* A configurable test layer: its decision and verdict come from params. */
typedef struct knob {
    int action;
    double delay, hedge;
    int refuse;
} knob;

static const sb_param knob_params[] = {
    {"action", SB_PARAM_INT, "0", "sb_action to return", NULL, -5, 99},
    {"delay", SB_PARAM_REAL, "0", "delay_s to return", NULL, -1e9, 1e9},
    {"hedge", SB_PARAM_REAL, "0", "hedge_after_s to return", NULL, -1e9, 1e9},
    {"refuse", SB_PARAM_INT, "0", "refuse sends (1) or not", NULL, 0, 5},
    {0}};

static knob knobs[4];
static int n_knobs;

static int knob_create(const sb_value *v, void **shared, char *err,
                       size_t len)
{
    (void)err;
    (void)len;
    knob *k = &knobs[n_knobs++];
    k->action = (int)v[0].i;
    k->delay = v[1].d;
    k->hedge = v[2].d;
    k->refuse = (int)v[3].i;
    *shared = k;
    return 0;
}

static sb_decision knob_fail(const sb_ctx *ctx, const sb_attempt *a)
{
    (void)a;
    const knob *k = ctx->shared;
    sb_decision d = {(sb_action)k->action, k->delay, "knob"};
    return d;
}

static sb_verdict knob_send(const sb_ctx *ctx, const sb_attempt *a)
{
    (void)a;
    const knob *k = ctx->shared;
    sb_verdict v = {(sb_send)k->refuse, k->hedge, "knob refuses"};
    return v;
}

#define KNOB(nm)                                                               \
    {SB_POLICY_ABI_MAJOR, SB_POLICY_ABI_MINOR, sizeof(sb_policy), 0, nm,       \
     "test layer", knob_params, knob_create, NULL, NULL, NULL, NULL,           \
     knob_send, NULL, knob_fail, NULL}

static const sb_policy knob_a = KNOB("a"), knob_b = KNOB("b"),
                       knob_c = KNOB("c");

static double fake_uniform(const sb_ctx *ctx)
{
    (void)ctx;
    return 0.5;
}

static void fake_breaker(const sb_ctx *ctx, int open)
{
    (void)ctx;
    (void)open;
}

static const sb_host host = {sizeof(sb_host), fake_uniform, fake_breaker,
                             NULL};

static pstack *build(const char *const *settings, int n, sb_err *e)
{
    n_knobs = 0;
    pstack_layer_spec layers[] = {{&knob_a, NULL}, {&knob_b, NULL},
                                  {&knob_c, NULL}};
    setting s[8];
    for (int i = 0; i < n; i++) {
        const char *eq = strchr(settings[i], '=');
        snprintf(s[i].key, sizeof s[i].key, "%.*s", (int)(eq - settings[i]),
                 settings[i]);
        snprintf(s[i].value, sizeof s[i].value, "%s", eq + 1);
        snprintf(s[i].origin, sizeof s[i].origin, "--param");
    }
    pstack *ps = NULL;
    pstack_create(layers, 3, s, n, classify_error, &ps, e);
    return ps;
}

static pstack_decision fail_with(const char *const *settings, int n)
{
    sb_err e;
    pstack *ps = build(settings, n, &e);
    ck_assert_msg(ps != NULL, "%s", e.msg);
    pstack_call call = {0, NULL, NULL, &host, NULL};
    sb_attempt a = {.struct_size = sizeof a, .attempt = 1};
    pstack_decision d;
    ck_assert_int_eq(pstack_on_failure(ps, &call, &a, &d), 0);
    pstack_destroy(ps);
    return d;
}

/* Quarantine beats give-up beats retry beats pass; the delay is the
 * largest any layer proposed, a passing layer's included. */
START_TEST(strongest_action_and_largest_delay_win)
{
    const char *retry_pass[] = {"a.action=1", "a.delay=2", "b.action=0",
                                "b.delay=5", "c.action=1", "c.delay=3"};
    pstack_decision d = fail_with(retry_pass, 6);
    ck_assert_int_eq(d.d.action, SB_RETRY);
    ck_assert_double_eq(d.d.delay_s, 5.0);
    ck_assert_int_eq(d.layer, 0);       /* a decided to retry ... */
    ck_assert_int_eq(d.delay_layer, 1); /* ... b's floor set the delay */
    const char *giveup[] = {"a.action=1", "a.delay=2", "b.action=2"};
    d = fail_with(giveup, 3);
    ck_assert_int_eq(d.d.action, SB_GIVE_UP);
    ck_assert_int_eq(d.layer, 1);
    ck_assert_double_eq(d.d.delay_s, 0.0);
    const char *quarantine[] = {"a.action=2", "c.action=3"};
    d = fail_with(quarantine, 2);
    ck_assert_int_eq(d.d.action, SB_QUARANTINE);
    ck_assert_int_eq(d.layer, 2);
}
END_TEST

/* Nobody asks for a retry: the request gives up. */
START_TEST(all_pass_means_give_up)
{
    pstack_decision d = fail_with(NULL, 0);
    ck_assert_int_eq(d.d.action, SB_GIVE_UP);
    ck_assert_int_eq(d.layer, -1);
    ck_assert_str_eq(d.d.reason, "no layer asked for a retry");
}
END_TEST

/* Every layer must allow a send; the first refusal is reported; the
 * smallest positive hedge delay is kept. */
START_TEST(sends_need_every_layer)
{
    sb_err e;
    const char *s[] = {"a.hedge=0.3", "b.hedge=0.1", "c.refuse=1"};
    pstack *ps = build(s, 2, &e);
    pstack_call call = {0, NULL, NULL, &host, NULL};
    sb_attempt a = {.struct_size = sizeof a, .attempt = 1};
    pstack_verdict v;
    ck_assert_int_eq(pstack_before_send(ps, &call, &a, &v), 0);
    ck_assert_int_eq(v.v.action, SB_SEND_ALLOW);
    ck_assert_double_eq(v.v.hedge_after_s, 0.1);
    pstack_destroy(ps);
    ps = build(s, 3, &e);
    ck_assert_int_eq(pstack_before_send(ps, &call, &a, &v), 0);
    ck_assert_int_eq(v.v.action, SB_SEND_REFUSE);
    ck_assert_int_eq(v.layer, 2);
    pstack_destroy(ps);
}
END_TEST

/* What a layer returns is checked: a broken layer stops the run with a
 * message naming it, whatever it is. */
START_TEST(contract_violations_are_caught)
{
    static const struct {
        const char *set[2];
        const char *msg;
    } bad[] = {
        {{"b.action=1", "b.delay=-1"},
         "policy 'b' returned a negative delay -1 s from on_failure; a delay "
         "must be a number between 0 and 86400 s"},
        {{"b.action=1", "b.delay=1e6"},
         "policy 'b' returned an absurd delay 1e+06 s from on_failure; a delay "
         "must be a number between 0 and 86400 s"},
        {{"b.action=7", "b.delay=0"},
         "policy 'b' returned an unknown action 7 from on_failure (expected "
         "SB_PASS, SB_RETRY, SB_GIVE_UP or SB_QUARANTINE)"},
    };
    for (int i = 0; i < 3; i++) {
        sb_err e;
        pstack *ps = build(bad[i].set, 2, &e);
        pstack_call call = {0, NULL, NULL, &host, NULL};
        sb_attempt a = {.struct_size = sizeof a, .attempt = 1};
        pstack_decision d;
        ck_assert_int_eq(pstack_on_failure(ps, &call, &a, &d), -1);
        ck_assert_str_eq(pstack_error(ps), bad[i].msg);
        pstack_destroy(ps);
    }
    /* NaN cannot come through a parameter; set it directly. */
    sb_err e;
    pstack *ps = build(NULL, 0, &e);
    knobs[0].action = SB_RETRY;
    knobs[0].delay = NAN;
    pstack_call call = {0, NULL, NULL, &host, NULL};
    sb_attempt a = {.struct_size = sizeof a, .attempt = 1};
    pstack_decision d;
    ck_assert_int_eq(pstack_on_failure(ps, &call, &a, &d), -1);
    ck_assert_str_eq(pstack_error(ps),
                     "policy 'a' returned a NaN delay from on_failure; a "
                     "delay must be a number between 0 and 86400 s");
    pstack_destroy(ps);
}
END_TEST

/* The same layer twice is refused; the name is "a+b+c". */
START_TEST(stack_names_and_duplicates)
{
    sb_err e;
    pstack *ps = build(NULL, 0, &e);
    ck_assert_str_eq(pstack_name(ps), "a+b+c");
    ck_assert_str_eq(pstack_param_text(ps, 1, 1), "0");
    pstack_destroy(ps);
    pstack_layer_spec twice[] = {{&knob_a, NULL}, {&knob_a, NULL}};
    ck_assert_int_ne(pstack_create(twice, 2, NULL, 0, classify_error, &ps, &e),
                     0);
    ck_assert_str_eq(e.msg, "policy 'a' appears twice in the stack");
}
END_TEST

Suite *pstack_suite(void)
{
    Suite *s = suite_create("pstack");
    TCase *tc = tcase_create("combine");
    tcase_add_test(tc, strongest_action_and_largest_delay_win);
    tcase_add_test(tc, all_pass_means_give_up);
    tcase_add_test(tc, sends_need_every_layer);
    tcase_add_test(tc, contract_violations_are_caught);
    tcase_add_test(tc, stack_names_and_duplicates);
    suite_add_tcase(s, tc);
    return s;
}
