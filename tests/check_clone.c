/*
 * check_clone.c -- copies of a running simulation (sim_clone) and their
 * own random streams (sim_rekey), sim.h "Branching".
 *
 * What would fail if the code were wrong:
 *   - a copy made at t and run on without re-keying writes the same bytes
 *     as the run it was copied from and as a run never copied (series
 *     CSV, summary JSON, every tier's series and totals, the pipeline's
 *     totals, the count of events): a piece of state left out of the copy
 *     (a queue ring, a breaker's or a bucket's per-process state, a
 *     recurring fault's next occurrence, a pipeline job, a pool's waiting
 *     ring) changes what happens after t.  The original is destroyed
 *     before the copy runs on, so memory the two still shared would be
 *     used after it was freed (ASan in CI);
 *   - re-keyed copies differ from each other and from the original, and
 *     each is replayed exactly from the seed and its branch path;
 *   - a plug-in whose shared state changes is copied by its clone hook
 *     (the copy's count goes on from where the original's was, apart from
 *     it), and refused, by name, without one;
 *   - one engine reused for run after run (sim_reuse, as compare's workers
 *     do) writes a new engine's bytes for every variant, in either order,
 *     after a finished run or one stopped halfway (events still queued,
 *     records live): a piece of state the reset leaves behind (a queue
 *     block's events, a kept metrics row, a record's old fields, a pool's
 *     stride) changes the next run.  The previous run's scenario and stack
 *     are freed before the reset, so a reset that read them would be a
 *     use after free (ASan in CI).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classifier.h"
#include "export.h"
#include "pstack.h"
#include "registry.h"
#include "scenario.h"
#include "sim.h"
#include "summary.h"
#include "testutil.h"
#include "units.h"

/* ---- A run's bytes ------------------------------------------------------- */

/* Everything a run writes, as text: the series and summary that `run -o`
 * writes, each tier's series and totals, the pipeline's totals, and the
 * engine's count of events. */
static char *run_bytes(sim *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    const sim_config *c = sim_config_of(s);
    sim_summary sum;
    summary_compute(s, &sum);
    run_meta meta = {0};
    meta.scenario = c->name;
    meta.policy = "p";
    meta.seed = c->seed;
    meta.clients = c->clients.count;
    export_csv(f, sim_metrics(s), c->pipeline.n_steps > 0);
    export_json(f, &meta, &sum, NULL, 0);
    for (unsigned i = 1; i < sim_tiers(s); i++) {
        sim_tier_info ti;
        sim_tier_summary ts;
        sim_tier(s, i, &ti);
        sim_tier_summary_of(s, i, &ts);
        export_csv(f, ti.m, false);
        fprintf(f, "tier %s %llu %llu %llu %llu %llu %.17g %u %.17g\n", ts.name,
                (unsigned long long)ts.calls, (unsigned long long)ts.attempts,
                (unsigned long long)ts.served, (unsigned long long)ts.timeouts,
                (unsigned long long)ts.failures, ts.mean_busy_workers,
                ts.max_queue, ts.wasted_work_s);
    }
    sim_pipeline_summary ps;
    if (sim_pipeline_summary_of(s, &ps))
        fprintf(f,
                "pipeline %llu %llu %llu %llu %llu %llu %llu %.17g "
                "%.17g %.17g\n",
                (unsigned long long)ps.jobs, (unsigned long long)ps.completed,
                (unsigned long long)ps.failed,
                (unsigned long long)ps.compensated,
                (unsigned long long)ps.inconsistent,
                (unsigned long long)ps.reruns, (unsigned long long)ps.retries,
                ps.working_s, ps.blocked_s, ps.failed_s);
    sim_stats st;
    sim_get_stats(s, &st);
    fprintf(f, "events %llu\n", (unsigned long long)st.events);
    fclose(f);
    return buf;
}

/* Where two runs' bytes first differ, for the message (the texts are too
 * long for Check's). */
static void same_bytes(const char *got, const char *want, const char *what)
{
    size_t i = 0;
    while (got[i] && got[i] == want[i])
        i++;
    if (got[i] == want[i])
        return;
    size_t from = i > 60 ? i - 60 : 0;
    ck_abort_msg("%s: differs at byte %zu: '%.120s' vs '%.120s'", what, i,
                 got + from, want + from);
}

static void different_bytes(const char *a, const char *b, const char *what)
{
    ck_assert_msg(strcmp(a, b) != 0, "%s: the same bytes", what);
}

/* Run s on to the end of its scenario and return its bytes. */
static char *finish_bytes(sim *s)
{
    ck_assert_int_eq(sim_run_until(s, sim_config_of(s)->duration_ns), 0);
    sim_finish(s);
    return run_bytes(s);
}

typedef struct variant {
    const char *file;     /* a shipped scenario, or NULL */
    const char *ini;      /* or this text */
    const char *policy;   /* NULL: the scenario's */
    double branch_s;      /* where the copy is made */
    int64_t duration_ns;  /* 0: the scenario's */
    uint32_t connections; /* 0: the scenario's */
    double again_s;       /* a second branch point; 0: halfway from the
                              first to the end */
} variant;

static void edit(sim_config *c, void *ctx)
{
    const variant *v = ctx;
    if (v->duration_ns)
        c->duration_ns = v->duration_ns;
    if (v->connections)
        c->clients.connections = v->connections;
}

static tu_sim *prepare(const variant *v)
{
    char *text = v->file ? tu_read_file(v->file) : NULL;
    ck_assert(!v->file || text);
    tu_sim *t =
        tu_sim_prepare_edited(text ? text : v->ini, v->policy, edit, (void *)v);
    free(text);
    return t;
}

/* Recurring weather (exp gaps and lengths), token bucket on exponential
 * backoff, per-process pools of 2 connections: 10 processes of 20
 * clients, 100 requests/s at a server of 120/s. */
static const char weather_ini[] =
    "[scenario]\nname = weather\nduration = 120s\nwarmup = 10s\n"
    "seed = 11\n"
    "[clients]\ncount = 200\nprocesses = 10\nrate = 0.5/s\ntimeout = 1s\n"
    "connections = 2\n"
    "[server]\nworkers = 12\nservice = exp(100ms)\n"
    "network_delay = exp(2ms)\nqueue_limit = 200\n"
    "[policy]\nname = exponential+token_bucket\n"
    "[fault.blip]\ntype = errors\nstart = 15s\nduration = exp(3s)\n"
    "every = exp(20s)\nstatus = 503\nprobability = 0.7\n"
    "[fault.slow]\ntype = slowdown\nstart = 40s\nduration = 10s\n"
    "multiplier = 3\n";

static const variant variants[] = {
    /* Three tiers, immediate retries at each, an outage at the bottom. */
    {TU_SOURCE("scenarios/tier-amplification.ini"), NULL, NULL, 25.0, 0, 0, 0},
    /* Two tiers, a slowdown fault, the copy made while it runs. */
    {TU_SOURCE("scenarios/slow-database.ini"), NULL, NULL, 33.3, 0, 0, 0},
    /* A pipeline that compensates, with the plan policy: 20 minutes. */
    {TU_SOURCE("scenarios/nightly-compensate.ini"), NULL, NULL, 400.0,
     1200 * NS_PER_S, 0, 0},
    /* Circuit breakers per process through an outage, copied while the
     * breakers are open. */
    {TU_SOURCE("scenarios/breaker-outage.ini"), NULL, NULL, 150.5,
     240 * NS_PER_S, 0, 0},
    /* Token buckets per process (gRPC's retry throttling), copied while
     * timeouts drain them. */
    {TU_SOURCE("scenarios/brownout.ini"), NULL, NULL, 61.5, 150 * NS_PER_S, 0,
     0},
    /* The optimistic hot record, copied while 100 updates contend. */
    {TU_SOURCE("scenarios/hot-record.ini"), NULL, NULL, 0.35, 120 * NS_PER_S, 0,
     0.6},
    /* A partition running at the copy. */
    {TU_SOURCE("scenarios/partial-partition.ini"), NULL, NULL, 100.0, 0, 0, 0},
    /* Weather, pools, token bucket. */
    {NULL, weather_ini, NULL, 47.25, 0, 0, 0},
};

/* ---- Cloned without re-keying: the same bytes --------------------------- */

START_TEST(clone_continues_the_same)
{
    const variant *v = &variants[_i];
    tu_sim *ref = prepare(v);
    char *want = finish_bytes(ref->sim);

    tu_sim *orig = prepare(v);
    ck_assert_int_eq(sim_run_until(orig->sim, (int64_t)(v->branch_s * 1e9)), 0);
    sb_err e;
    sim *copy = NULL;
    ck_assert_msg(sim_clone(orig->sim, NULL, &copy, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(sim_now(copy), sim_now(orig->sim));
    /* The original runs on first and is destroyed before the copy moves:
     * anything they still shared is used after it was freed. */
    char *from_orig = finish_bytes(orig->sim);
    sim_destroy(orig->sim);
    orig->sim = NULL;
    char *from_copy = finish_bytes(copy);
    same_bytes(from_orig, want, "the original");
    same_bytes(from_copy, want, "the copy");
    /* A copy of a copy, made at the end, gives the end's bytes too. */
    sim *again = NULL;
    ck_assert_msg(sim_clone(copy, NULL, &again, &e) == 0, "%s", e.msg);
    sim_destroy(copy);
    char *from_again = run_bytes(again);
    same_bytes(from_again, want, "a copy of the copy");
    sim_destroy(again);
    free(want);
    free(from_orig);
    free(from_copy);
    free(from_again);
    tu_sim_free(ref);
    tu_sim_free(orig);
}
END_TEST

/* ---- Re-keyed: branches differ, and replay from their path -------------- */

typedef struct step {
    int64_t at;
    uint64_t key;
} step;

/* A fresh run of v taken down the branch path: run to each step's time,
 * re-key there. */
static char *replay(const variant *v, const step *path, int n)
{
    tu_sim *t = prepare(v);
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(sim_run_until(t->sim, path[i].at), 0);
        sim_rekey(t->sim, path[i].key);
    }
    char *b = finish_bytes(t->sim);
    tu_sim_free(t);
    return b;
}

START_TEST(rekeyed_branches_differ_and_replay)
{
    const variant *v = &variants[_i];
    int64_t t1 = (int64_t)(v->branch_s * 1e9);
    tu_sim *orig = prepare(v);
    ck_assert_int_eq(sim_run_until(orig->sim, t1), 0);
    sb_err e;
    sim *a = NULL, *b = NULL;
    ck_assert_msg(sim_clone(orig->sim, NULL, &a, &e) == 0, "%s", e.msg);
    ck_assert_msg(sim_clone(orig->sim, NULL, &b, &e) == 0, "%s", e.msg);
    sim_rekey(a, 1);
    sim_rekey(b, 2);
    ck_assert(sim_stream_key(a) != sim_stream_key(b));
    /* b branches again, halfway to the end, with key 7. */
    int64_t t2 = v->again_s > 0 ? (int64_t)(v->again_s * 1e9)
                                : (t1 + sim_config_of(b)->duration_ns) / 2;
    ck_assert_int_eq(sim_run_until(b, t2), 0);
    sim *c = NULL;
    ck_assert_msg(sim_clone(b, NULL, &c, &e) == 0, "%s", e.msg);
    sim_rekey(c, 7);
    char *plain = finish_bytes(orig->sim);
    char *ba = finish_bytes(a), *bb = finish_bytes(b), *bc = finish_bytes(c);
    different_bytes(ba, plain, "branch 1 and the original");
    different_bytes(bb, plain, "branch 2 and the original");
    different_bytes(ba, bb, "branches 1 and 2");
    different_bytes(bc, bb, "branch 2.7 and branch 2");
    step pa[] = {{t1, 1}}, pb[] = {{t1, 2}}, pc[] = {{t1, 2}, {t2, 7}};
    char *ra = replay(v, pa, 1), *rb = replay(v, pb, 1), *rc = replay(v, pc, 2);
    same_bytes(ra, ba, "branch 1 replayed");
    same_bytes(rb, bb, "branch 2 replayed");
    same_bytes(rc, bc, "branch 2.7 replayed");
    sim_destroy(a);
    sim_destroy(b);
    sim_destroy(c);
    free(plain);
    free(ba);
    free(bb);
    free(bc);
    free(ra);
    free(rb);
    free(rc);
    tu_sim_free(orig);
}
END_TEST

/* A scenario's branch path ([scenario] branch) is taken by a plain run:
 * the same bytes as the replay by hand. */
START_TEST(branch_key_replays)
{
    const variant *v = &variants[7];
    char ini[sizeof weather_ini + 128];
    const char *seed = strstr(weather_ini, "seed = 11\n");
    ck_assert_ptr_nonnull(seed);
    int head = (int)(seed - weather_ini) + 10;
    snprintf(ini, sizeof ini, "%.*sbranch = 47.25s:1 80s:00ff00ff00ff00ff\n%s",
             head, weather_ini, weather_ini + head);
    variant w = *v;
    w.ini = ini;
    tu_sim *t = prepare(&w);
    char *got = finish_bytes(t->sim);
    step path[] = {{47250 * NS_PER_MS, 1},
                   {80 * NS_PER_S, 0x00ff00ff00ff00ffu}};
    char *want = replay(v, path, 2);
    same_bytes(got, want, "the scenario's branch path");
    free(got);
    free(want);
    tu_sim_free(t);
}
END_TEST

/* A malformed path is refused naming the key and what was expected. */
START_TEST(branch_key_refused)
{
    static const char *const bad[][2] = {
        {"12s", "expected steps AT:KEY"},
        {"12s:xyz", "hexadecimal digits"},
        {"20s:1 10s:2", "must be positive and never decrease"},
        {"ten:1", "step 'ten:1'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char ini[512];
        snprintf(ini, sizeof ini,
                 "[scenario]\nname = b\nduration = 30s\n"
                 "branch = %s\n",
                 bad[i][0]);
        scenario sc;
        sb_err e;
        ck_assert_int_eq(
            scenario_load(tu_write_temp("branch.ini", ini), NULL, 0, &sc, &e),
            -1);
        ck_assert_msg(strstr(e.msg, ":4: [scenario] branch") &&
                          strstr(e.msg, bad[i][1]),
                      "%s", e.msg);
    }
}
END_TEST

/* Re-keying with the key a run already has is not a no-op: the key is
 * mixed, so a branch never repeats its parent by accident. */
START_TEST(rekey_mixes)
{
    const variant *v = &variants[7];
    tu_sim *t = prepare(v);
    uint64_t k0 = sim_stream_key(t->sim);
    ck_assert_uint_eq(k0, 11u); /* the scenario's seed, until re-keyed */
    sim_rekey(t->sim, k0);
    ck_assert_uint_ne(sim_stream_key(t->sim), k0);
    tu_sim_free(t);
}
END_TEST

/* ---- Policies' shared state ------------------------------------------- */

/* Every built-in says its shared state is read-only (a copy then builds
 * its own with create()); the stacks of shipped scenarios may be shared
 * by a run and its copies. */
START_TEST(builtins_are_read_only)
{
    for (int i = 0; i < registry_count(); i++)
        ck_assert_msg(registry_get(i)->flags & SB_POLICY_SHARED_READONLY,
                      "built-in '%s' lacks SB_POLICY_SHARED_READONLY",
                      registry_get(i)->name);
}
END_TEST

/* A plug-in (in process: a layer with an origin runs as one does) that
 * counts the successes its whole stack heard in its shared state. */
typedef struct counter {
    long n;
} counter;

static int32_t count_create(const sb_value *v, void **shared, char *err,
                            size_t len)
{
    (void)v;
    (void)err;
    (void)len;
    counter *c = calloc(1, sizeof *c);
    *shared = c;
    return c ? 0 : 1;
}

static void count_destroy(void *shared)
{
    free(shared);
}

static void count_success(const sb_ctx *ctx, const sb_attempt *a)
{
    (void)a;
    ((counter *)ctx->shared)->n++;
}

static void count_failure(const sb_ctx *ctx, const sb_attempt *a,
                          sb_decision *out)
{
    (void)ctx;
    (void)a;
    sb_give_up(out, NULL);
}

static int32_t count_clone(const void *shared, void **copy, char *err,
                           size_t len)
{
    (void)err;
    (void)len;
    counter *c = malloc(sizeof *c);
    if (c)
        *c = *(const counter *)shared;
    *copy = c;
    return c ? 0 : 1;
}

static const sb_param no_params[] = {{0, 0, 0, 0, 0, 0, 0}};

static sb_policy counting(bool with_clone)
{
    sb_policy p = {
        .abi_major = SB_POLICY_ABI_MAJOR,
        .abi_minor = SB_POLICY_ABI_MINOR,
        .struct_size = sizeof(sb_policy),
        .name = "counting",
        .doc = "counts successes in its shared state",
        .params = no_params,
        .create = count_create,
        .destroy = count_destroy,
        .on_success = count_success,
        .on_failure = count_failure,
        .clone = with_clone ? count_clone : NULL,
    };
    return p;
}

static const char small_ini[] =
    "[scenario]\nname = small\nduration = 20s\nseed = 3\n"
    "[clients]\ncount = 10\nrate = 2/s\ntimeout = 1s\n"
    "[server]\nworkers = 4\nservice = exp(50ms)\n"
    "network_delay = const(1ms)\n"
    "[policy]\nname = none\n";

static pstack *counting_stack(const sb_policy *p)
{
    pstack_layer_spec spec = {p, "/plugins/counting.so"};
    pstack *ps = NULL;
    sb_err e;
    ck_assert_msg(pstack_create(&spec, 1, NULL, 0, classify_error, &ps, &e) ==
                      0,
                  "%s", e.msg);
    return ps;
}

START_TEST(plugin_without_clone_is_refused)
{
    sb_policy p = counting(false);
    pstack *ps = counting_stack(&p);
    sb_err e;
    ck_assert(!pstack_shareable(ps));
    ck_assert_int_eq(pstack_check_clonable(ps, &e), -1);
    ck_assert_ptr_nonnull(strstr(e.msg, "'counting'"));
    ck_assert_ptr_nonnull(strstr(e.msg, "/plugins/counting.so"));
    ck_assert_ptr_nonnull(strstr(e.msg, "no clone hook"));
    ck_assert_ptr_nonnull(strstr(e.msg, "--method mc"));
    pstack *copy = NULL;
    ck_assert_int_eq(pstack_clone(ps, &copy, &e), -1);
    ck_assert_ptr_null(copy);
    /* A run with it: running is fine, copying it is refused. */
    tu_sim *t = tu_sim_prepare(small_ini, NULL, NULL, 0);
    sim *s = NULL;
    const sim_config *cfg = sim_config_of(t->sim);
    ck_assert_int_eq(sim_create(cfg, ps, &s, &e), 0);
    ck_assert_int_eq(sim_run_until(s, 5 * NS_PER_S), 0);
    sim *c = NULL;
    ck_assert_int_eq(sim_clone(s, NULL, &c, &e), -1);
    ck_assert_ptr_null(c);
    ck_assert_ptr_nonnull(strstr(e.msg, "no clone hook"));
    sim_destroy(s);
    tu_sim_free(t);
    pstack_destroy(ps);
}
END_TEST

START_TEST(plugin_clone_hook_copies_its_state)
{
    sb_policy p = counting(true);
    pstack *ps = counting_stack(&p);
    sb_err e;
    ck_assert(!pstack_shareable(ps));
    ck_assert_int_eq(pstack_check_clonable(ps, &e), 0);
    tu_sim *t = tu_sim_prepare(small_ini, NULL, NULL, 0);
    const sim_config *cfg = sim_config_of(t->sim);
    /* The reference: 20 s straight through. */
    sim *ref = NULL;
    pstack *ref_ps = counting_stack(&p);
    ck_assert_int_eq(sim_create(cfg, ref_ps, &ref, &e), 0);
    char *want = finish_bytes(ref);
    long want_n = ((counter *)pstack_layer_shared(ref_ps, 0))->n;
    ck_assert_int_gt(want_n, 300); /* ~400 requests, nearly all succeed */

    sim *s = NULL;
    ck_assert_int_eq(sim_create(cfg, ps, &s, &e), 0);
    ck_assert_int_eq(sim_run_until(s, 8 * NS_PER_S), 0);
    long at_branch = ((counter *)pstack_layer_shared(ps, 0))->n;
    pstack *cps = NULL;
    ck_assert_msg(pstack_clone(ps, &cps, &e) == 0, "%s", e.msg);
    sim *c = NULL;
    ck_assert_msg(sim_clone(s, cps, &c, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(((counter *)pstack_layer_shared(cps, 0))->n, at_branch);
    char *from_orig = finish_bytes(s);
    sim_destroy(s);
    pstack_destroy(ps);
    char *from_copy = finish_bytes(c);
    same_bytes(from_orig, want, "the original");
    same_bytes(from_copy, want, "the copy");
    /* Each counted its own successes after the branch: both end with the
     * straight run's count (had they shared one, it would be the sum of
     * both runs' successes after 8 s). */
    ck_assert_int_eq(((counter *)pstack_layer_shared(cps, 0))->n, want_n);
    sim_destroy(c);
    pstack_destroy(cps);
    sim_destroy(ref);
    pstack_destroy(ref_ps);
    free(want);
    free(from_orig);
    free(from_copy);
    tu_sim_free(t);
}
END_TEST

/* ---- One engine, reused run after run ----------------------------------- */

/* The weather scenario in buckets of 0.5 ms: 240 000 buckets, more than
 * the engine keeps rows for (METRICS_MAX_BUCKETS), so two merge into each
 * kept row -- a row is then added to, not copied, and one left unzeroed
 * by a reset would carry the last run's counts. */
static variant merged_rows(void)
{
    static char ini[sizeof weather_ini + 64];
    snprintf(ini, sizeof ini, "%s", weather_ini);
    char *at = strstr(ini, "seed = 11\n");
    ck_assert_ptr_nonnull(at);
    memcpy(at, "seed = 12\nbucket = 500us\n",
           sizeof "seed = 12\nbucket = 500us\n");
    strcat(ini, strstr(weather_ini, "[clients]"));
    return (variant){NULL, ini, NULL, 47.25, 0, 0, 0};
}

START_TEST(reused_engine_runs_as_new)
{
    variant all[sizeof variants / sizeof variants[0] + 1];
    int n = (int)(sizeof variants / sizeof variants[0]);
    memcpy(all, variants, sizeof variants);
    all[n++] = merged_rows();
    sim *kept = NULL;
    sb_err e;
    /* Every variant in order, then back in reverse, so that each reset
     * finds another scenario's queue, rows and records, larger or
     * smaller; every third run is first stopped halfway and reset again. */
    for (int k = 0; k < 2 * n; k++) {
        const variant *v = &all[k < n ? k : 2 * n - 1 - k];
        const char *what = v->file ? v->file : "the weather scenario";
        tu_sim *ref = prepare(v);
        char *want = finish_bytes(ref->sim);
        tu_sim_free(ref);
        tu_sim *t = prepare(v); /* its configuration and stack */
        if (k % 3 == 2) {
            ck_assert_msg(
                sim_reuse(&kept, sim_config_of(t->sim), t->ps.stack, &e) == 0,
                "%s", e.msg);
            ck_assert_int_eq(
                sim_run_until(kept, sim_config_of(t->sim)->duration_ns / 2), 0);
        }
        ck_assert_msg(
            sim_reuse(&kept, sim_config_of(t->sim), t->ps.stack, &e) == 0, "%s",
            e.msg);
        char *got = finish_bytes(kept);
        same_bytes(got, want, what);
        free(got);
        free(want);
        tu_sim_free(t); /* before the next reset, which must not read it */
    }
    sim_destroy(kept);
}
END_TEST

Suite *clone_suite(void)
{
    Suite *s = suite_create("clone");
    TCase *tc = tcase_create("clone");
    tcase_set_timeout(tc, 600);
    int n = (int)(sizeof variants / sizeof variants[0]);
    tcase_add_loop_test(tc, clone_continues_the_same, 0, n);
    tcase_add_loop_test(tc, rekeyed_branches_differ_and_replay, 0, n);
    tcase_add_test(tc, rekey_mixes);
    tcase_add_test(tc, branch_key_replays);
    tcase_add_test(tc, branch_key_refused);
    tcase_add_test(tc, builtins_are_read_only);
    tcase_add_test(tc, plugin_without_clone_is_refused);
    tcase_add_test(tc, plugin_clone_hook_copies_its_state);
    tcase_add_test(tc, reused_engine_runs_as_new);
    suite_add_tcase(s, tc);
    return s;
}
