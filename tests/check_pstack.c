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
    int decisions;     /* on_decision calls seen */
    sb_decision final; /* the last final decision seen */
} knob;

static const sb_param knob_params[] = {
    {"action", SB_PARAM_INT, "0", "sb_action to return", NULL, -5, 99},
    {"delay", SB_PARAM_REAL, "0", "delay_s to return", NULL, -1e9, 1e9},
    {"hedge", SB_PARAM_REAL, "0", "hedge_after_s to return", NULL, -1e9, 1e9},
    {"refuse", SB_PARAM_INT, "0", "refuse sends (1) or not", NULL, 0, 5},
    {"refusal", SB_PARAM_INT, "0", "sb_refusal to refuse with", NULL, 0, 99},
    {"pstate", SB_PARAM_INT, "0", "bytes of process state", NULL, 0, 100},
    {0}};

static knob knobs[4];
static int n_knobs;

static int refusals[4];
static size_t pstate_sizes[4];

static int32_t knob_create(const sb_value *v, void **shared, char *err,
                           size_t len)
{
    (void)err;
    (void)len;
    int i = n_knobs++;
    knob *k = &knobs[i];
    memset(k, 0, sizeof *k);
    k->action = (int)v[0].i;
    k->delay = v[1].d;
    k->hedge = v[2].d;
    k->refuse = (int)v[3].i;
    refusals[i] = (int)v[4].i;
    pstate_sizes[i] = (size_t)v[5].i;
    *shared = k;
    return 0;
}

static void knob_fail(const sb_ctx *ctx, const sb_attempt *a, sb_decision *out)
{
    (void)a;
    const knob *k = ctx->shared;
    out->action = (sb_action)k->action;
    out->delay_s = k->delay;
    out->reason = "knob";
}

static void knob_send(const sb_ctx *ctx, const sb_attempt *a, sb_verdict *out)
{
    (void)a;
    const knob *k = ctx->shared;
    out->action = (sb_send)k->refuse;
    out->refusal = (sb_refusal)refusals[k - knobs];
    out->hedge_after_s = k->hedge;
    out->reason = "knob refuses";
}

static void knob_decision(const sb_ctx *ctx, const sb_attempt *a,
                          const sb_decision *final)
{
    (void)a;
    knob *k = ctx->shared;
    k->decisions++;
    k->final = *final;
    /* Each layer sees its own block of process state, zeroed. */
    if (ctx->process_state)
        ((unsigned char *)ctx->process_state)[0]++;
}

static size_t knob_pstate(const void *shared)
{
    return pstate_sizes[(const knob *)shared - knobs];
}

#define KNOB(nm)                                                               \
    {                                                                          \
        .abi_major = SB_POLICY_ABI_MAJOR, .abi_minor = SB_POLICY_ABI_MINOR,    \
        .struct_size = sizeof(sb_policy), .name = nm, .doc = "test layer",     \
        .params = knob_params, .create = knob_create,                          \
        .process_state_size = knob_pstate, .before_send = knob_send,           \
        .on_failure = knob_fail, .on_decision = knob_decision                  \
    }

static const sb_policy knob_a = KNOB("a"), knob_b = KNOB("b"),
                       knob_c = KNOB("c");

static double fake_uniform(const sb_ctx *ctx)
{
    (void)ctx;
    return 0.5;
}

static void fake_breaker(const sb_ctx *ctx, int32_t open)
{
    (void)ctx;
    (void)open;
}

static const sb_host host = {sizeof(sb_host), 0,    fake_uniform,
                             fake_breaker,    NULL, NULL};

static pstack *build(const char *const *settings, int n, sb_err *e)
{
    n_knobs = 0;
    pstack_layer_spec layers[] = {
        {&knob_a, NULL}, {&knob_b, NULL}, {&knob_c, NULL}};
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
    pstack_call call = {0, 0, NULL, NULL, NULL, &host, NULL};
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
    const char *retry_pass[] = {"a.action=1", "a.delay=2",  "b.action=0",
                                "b.delay=5",  "c.action=1", "c.delay=3"};
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
    pstack_call call = {0, 0, NULL, NULL, NULL, &host, NULL};
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
        pstack_call call = {0, 0, NULL, NULL, NULL, &host, NULL};
        sb_attempt a = {.struct_size = sizeof a, .attempt = 1};
        pstack_decision d;
        ck_assert_int_eq(pstack_on_failure(ps, &call, &a, &d), -1);
        ck_assert_str_eq(pstack_error(ps), bad[i].msg);
        pstack_destroy(ps);
    }
    /* An unknown refusal kind is refused too. */
    {
        const char *r[] = {"b.refuse=1", "b.refusal=9"};
        sb_err e;
        pstack *ps = build(r, 2, &e);
        pstack_call call = {0, 0, NULL, NULL, NULL, &host, NULL};
        sb_attempt a = {.struct_size = sizeof a, .attempt = 1};
        pstack_verdict v;
        ck_assert_int_eq(pstack_before_send(ps, &call, &a, &v), -1);
        ck_assert_str_eq(pstack_error(ps),
                         "policy 'b' refused a send for an unknown reason 9 "
                         "(expected one of the SB_REFUSAL_ constants)");
        pstack_destroy(ps);
    }
    /* NaN cannot come through a parameter; set it directly. */
    sb_err e;
    pstack *ps = build(NULL, 0, &e);
    knobs[0].action = SB_RETRY;
    knobs[0].delay = NAN;
    pstack_call call = {0, 0, NULL, NULL, NULL, &host, NULL};
    sb_attempt a = {.struct_size = sizeof a, .attempt = 1};
    pstack_decision d;
    ck_assert_int_eq(pstack_on_failure(ps, &call, &a, &d), -1);
    ck_assert_str_eq(pstack_error(ps),
                     "policy 'a' returned a NaN delay from on_failure; a "
                     "delay must be a number between 0 and 86400 s");
    pstack_destroy(ps);
}
END_TEST

/* The refusing layer's reason kind comes through; the layers after the
 * first refusal are not asked. */
START_TEST(refusal_kind_is_kept)
{
    sb_err e;
    const char *s[] = {"b.refuse=1", "b.refusal=3", "c.refuse=1",
                       "c.refusal=2"};
    pstack *ps = build(s, 4, &e);
    pstack_call call = {0, 0, NULL, NULL, NULL, &host, NULL};
    sb_attempt a = {.struct_size = sizeof a, .attempt = 2};
    pstack_verdict v;
    ck_assert_int_eq(pstack_before_send(ps, &call, &a, &v), 0);
    ck_assert_int_eq(v.v.action, SB_SEND_REFUSE);
    ck_assert_int_eq(v.layer, 1);
    ck_assert_int_eq(v.v.refusal, SB_REFUSAL_BREAKER);
    ck_assert_str_eq(pstack_refusal_name(v.v.refusal), "breaker");
    pstack_destroy(ps);
}
END_TEST

/* on_decision reaches every layer with the same final decision, whoever
 * decided it. */
START_TEST(every_layer_hears_the_final_decision)
{
    sb_err e;
    pstack *ps = build(NULL, 0, &e);
    pstack_call call = {0, 0, NULL, NULL, NULL, &host, NULL};
    sb_attempt a = {.struct_size = sizeof a, .attempt = 1};
    sb_decision final = {sizeof final, SB_RETRY, 1.5, "final"};
    pstack_on_decision(ps, &call, &a, &final);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(knobs[i].decisions, 1);
        ck_assert_int_eq(knobs[i].final.action, SB_RETRY);
        ck_assert_double_eq(knobs[i].final.delay_s, 1.5);
        ck_assert_str_eq(knobs[i].final.reason, "final");
    }
    pstack_destroy(ps);
}
END_TEST

/* Per-process state: each layer's block is its own, side by side and
 * aligned to 16 bytes, and the stack reports the total. */
START_TEST(process_state_is_laid_out_per_layer)
{
    sb_err e;
    const char *s[] = {"a.pstate=3", "c.pstate=20"};
    pstack *ps = build(s, 2, &e);
    /* a: 3 bytes -> 16; b: none; c: 20 -> 32. */
    ck_assert_uint_eq(pstack_process_state_size(ps), 48);
    unsigned char block[48];
    memset(block, 0, sizeof block);
    pstack_call call = {0, 0, block, NULL, NULL, &host, NULL};
    sb_attempt a = {.struct_size = sizeof a, .attempt = 1};
    sb_decision final = {sizeof final, SB_GIVE_UP, 0.0, "x"};
    pstack_on_decision(ps, &call, &a, &final);
    pstack_on_decision(ps, &call, &a, &final);
    ck_assert_uint_eq(block[0], 2);  /* a's block starts at 0 */
    ck_assert_uint_eq(block[16], 2); /* c's at 16 */
    for (int i = 1; i < 48; i++)
        if (i != 16)
            ck_assert_uint_eq(block[i], 0);
    char buf[64];
    ck_assert_str_eq(pstack_layer_scope(ps, 0, buf, sizeof buf), "per process");
    ck_assert_str_eq(pstack_layer_scope(ps, 1, buf, sizeof buf), "stateless");
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
    tcase_add_test(tc, refusal_kind_is_kept);
    tcase_add_test(tc, every_layer_hears_the_final_decision);
    tcase_add_test(tc, process_state_is_laid_out_per_layer);
    suite_add_tcase(s, tc);
    return s;
}
