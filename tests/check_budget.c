/*
 * check_budget.c -- `run` and `validate` refuse a run whose estimated cost
 * is absurd (sim/budget.h), with a message that names the figure, how it
 * was reached, the limit and what to lower; `--force` goes ahead; the
 * shipped scenarios and the benchmark's million-client storm are within
 * the limits.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "event_queue.h"
#include "budget.h"
#include "testutil.h"

static char path[1024];

static const char *write_ini(const char *name, const char *text)
{
    snprintf(path, sizeof path, "%s", tu_write_temp(name, text));
    return path;
}

static bool exists(const char *file)
{
    struct stat st;
    return stat(file, &st) == 0;
}

/* `run` refuses: exit 2, exactly "stormbench run: PATH: " + want on
 * stderr, nothing on stdout, and none of the three output files made. */
static void assert_run_refused(const char *ini, const char *want)
{
    char json[1024], csv[1024], trace[1024], line[2048];
    snprintf(json, sizeof json, "%s", tu_temp_path("refused.json"));
    snprintf(csv, sizeof csv, "%s", tu_temp_path("refused.csv"));
    snprintf(trace, sizeof trace, "%s", tu_temp_path("refused.trace"));
    remove(json);
    remove(csv);
    remove(trace);
    tu_output o;
    tu_stormbench(&o, (const char *[]){"run", ini, "--json", json, "--csv", csv,
                                       "--trace", trace, NULL});
    ck_assert_int_eq(o.status, EXIT_INPUT);
    snprintf(line, sizeof line, "stormbench run: %s: %s\n", ini, want);
    ck_assert_str_eq(o.err, line);
    ck_assert_str_eq(o.out, "");
    ck_assert(!exists(json));
    ck_assert(!exists(csv));
    ck_assert(!exists(trace));
    tu_output_free(&o);
}

/* `validate` refuses: exit 2, exactly "PATH: " + want on stderr. */
static void assert_validate_refused(const char *ini, const char *want)
{
    char line[2048];
    tu_output o;
    tu_stormbench(&o, (const char *[]){"validate", ini, NULL});
    ck_assert_int_eq(o.status, EXIT_INPUT);
    snprintf(line, sizeof line, "%s: %s\n", ini, want);
    ck_assert_str_eq(o.err, line);
    ck_assert_str_eq(o.out, "");
    tu_output_free(&o);
}

/* ---- Too many events ------------------------------------------------------
 *
 * 1000 clients at 1e6 requests/s each (under the loader's 1e7/s per
 * client, the engine's time resolution) for 60 s offer 6e10 requests;
 * `immediate` makes up to 5 attempts; 5 events per attempt: 1.5e12
 * events, 150 times the 1e10 limit (at 5 M events/s, more than 3 days).
 */
static const char rate_ini[] = "[scenario]\nname = rate\nduration = 60s\n"
                               "[clients]\ncount = 1000\nrate = 1e6/s\n"
                               "[policy]\nname = immediate\n";

static const char rate_msg[] =
    "this run would process about 1.5e12 events (6e10 requests x up to 5 "
    "attempts x ~5 events each); the limit is 1e10 (about an hour of CPU); "
    "lower [clients] rate or count, [scenario] duration or the policy's "
    "attempts, or pass --force";

START_TEST(events_refused_by_run)
{
    assert_run_refused(write_ini("rate.ini", rate_ini), rate_msg);
}
END_TEST

START_TEST(events_refused_by_validate)
{
    assert_validate_refused(write_ini("rate.ini", rate_ini), rate_msg);
}
END_TEST

/* ---- Too much memory ------------------------------------------------------
 *
 * A million clients, each its own process with a circuit breaker over a
 * count window of 10 000 calls: the stack's per-process state is the
 * breaker's record and its 10 000-byte ring (read from the stack, rounded
 * up to 16 bytes); every client also costs two 32-bit counters, its mode
 * byte and its pending arrival event.  The rest is small: 0.1 requests/s per thousand clients is 100
 * requests/s against 1 600/s of capacity, so about 500 requests live
 * (100/s x 5 attempts x 1 s) and the server holds no backlog.  So the
 * total is the clients' part to well within the 0.5 GB that rounding
 * to "10" allows.
 */
static const char clients_ini[] =
    "[scenario]\nname = clients\nduration = 60s\n"
    "[clients]\ncount = 1000000\nrate = 0.0001/s\n"
    "[policy]\nname = exponential+circuit_breaker\nmode = window\n"
    "window_type = count\nwindow_size = 10000\n";

static void clients_msg(char *buf, size_t len)
{
    policy_setup ps;
    sb_err e;
    const setting s[] = {{"mode", "window", "test"},
                         {"window_type", "count", "test"},
                         {"window_size", "10000", "test"}};
    ck_assert_int_eq(policy_setup_build("exponential+circuit_breaker", NULL, 0,
                                        s, 3, &ps, &e),
                     0);
    size_t state = pstack_process_state_size(ps.stack) +
                   pstack_client_state_size(ps.stack);
    policy_setup_free(&ps);
    ck_assert_uint_ge(state, 10000); /* the ring is in it */
    size_t each = state + 2 * sizeof(uint32_t) + 1 + sizeof(evq_event);
    double gb = 1e6 * (double)each / 1e9;
    ck_assert(gb > 9.5 && gb < 10.5); /* "about 10 GB" */
    snprintf(buf, len,
             "this run could need about 10 GB of memory at its peak, most "
             "of it for 1e6 clients x %zu B each, %zu B of it policy state; "
             "the limit is 8 GB; lower [clients] count or the policy's "
             "per-client state, or pass --force",
             each, state);
}

START_TEST(memory_refused_by_run)
{
    char msg[1024];
    clients_msg(msg, sizeof msg);
    assert_run_refused(write_ini("clients.ini", clients_ini), msg);
}
END_TEST

START_TEST(memory_refused_by_validate)
{
    char msg[1024];
    clients_msg(msg, sizeof msg);
    assert_validate_refused(write_ini("clients.ini", clients_ini), msg);
}
END_TEST

/* ---- --force --------------------------------------------------------------
 *
 * A policy that retries (almost) forever is costed at the engine's cap of
 * 100 000 attempts per request: 100 clients x 1/s x 300 s = 30 000
 * requests x 100 000 attempts x 5 events = 1.5e10, over the limit.  The
 * server is far from busy (100 requests/s against 1 600/s), so in reality
 * every request succeeds at its first attempt and the run is over in a
 * blink.  The memory estimate stays under its limit: a request lives at
 * most the 300 s run, so it feeds a backlog with at most 300 timed-out
 * attempts (30 000 attempts/s against 1 600/s of capacity: 8.5e6 attempts
 * of 108 B, 0.9 GB).
 */
static const char forever_ini[] =
    "[scenario]\nname = forever\nduration = 300s\n"
    "[clients]\ncount = 100\nrate = 1/s\n"
    "[policy]\nname = immediate\nmax_attempts = 1000000\n";

static const char forever_msg[] =
    "this run would process about 1.5e10 events (30000 requests x up to "
    "100000 attempts x ~5 events each); the limit is 1e10 (about an hour of "
    "CPU); lower [clients] rate or count, [scenario] duration or the "
    "policy's attempts";

START_TEST(force_runs_it)
{
    const char *ini = write_ini("forever.ini", forever_ini);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s, or pass --force", forever_msg);
    assert_run_refused(ini, msg);
    char json[1024], warn[2048];
    snprintf(json, sizeof json, "%s", tu_temp_path("forced.json"));
    tu_output o;
    tu_stormbench(
        &o, (const char *[]){"run", ini, "--force", "--json", json, NULL});
    ck_assert_msg(o.status == EXIT_OK, "exit %d: %s", o.status, o.err);
    snprintf(warn, sizeof warn,
             "stormbench run: warning: %s: %s; running anyway (--force)\n", ini,
             forever_msg);
    ck_assert_str_eq(o.err, warn);
    tu_output_free(&o);
    char *j = tu_read_file(json);
    ck_assert_ptr_nonnull(j);
    /* Poisson arrivals: 30 000 expected, sd 173. */
    ck_assert_double_eq_tol(tu_json_number(j, "offered"), 30000, 1000);
    ck_assert_double_eq(tu_json_number(j, "attempts"),
                        tu_json_number(j, "offered"));
    free(j);
    tu_stormbench(&o, (const char *[]){"validate", "--force", ini, NULL});
    ck_assert_int_eq(o.status, EXIT_OK);
    ck_assert_ptr_nonnull(strstr(o.out, ": ok ("));
    snprintf(warn, sizeof warn, "%s: warning: %s (--force: accepted)\n", ini,
             forever_msg);
    ck_assert_str_eq(o.err, warn);
    tu_output_free(&o);
}
END_TEST

/* ---- Within the limits ------------------------------------------------- */

/* sim/budget.c's estimate, in process, for a policy that makes at most
 * `attempts` attempts per request (what `run` probes the stack for; the
 * binary tests above cover the probe): the scenario loaded and its policy
 * built, no sim created (a million clients would take a while). */
static budget_cost estimate_of(const char *ini_text, double attempts)
{
    static scenario sc;
    policy_setup ps;
    sb_err e;
    const char *file = tu_write_temp("estimate.ini", ini_text);
    ck_assert_msg(scenario_load(file, NULL, 0, &sc, &e) == 0, "%s", e.msg);
    ck_assert_msg(policy_setup_build(sc.policy, NULL, 0, sc.settings,
                                     sc.n_settings, &ps, &e) == 0,
                  "%s", e.msg);
    budget_cost b;
    budget_estimate(&sc.cfg, pstack_client_state_size(ps.stack),
                    pstack_request_state_size(ps.stack), attempts, &b);
    ck_assert_msg(budget_check(&sc.cfg, &b, &e) == 0, "%s", e.msg);
    policy_setup_free(&ps);
    return b;
}

/* bench/bench_engine.c's storm at 1 000 000 clients (its storm_fmt): 20 000
 * requests/s for 30 s = 6e5 requests x 3 attempts x 5 = 9e6 events; its
 * memory is dominated by the backlog a storm builds (60 000 attempts/s
 * against 25 000/s of capacity for 30 s: about a million attempts of
 * 108 B) and the clients (32 B each): well under a gigabyte. */
START_TEST(bench_storm_is_within_the_limits)
{
    static const char ini[] =
        "[scenario]\nname = bench-storm\nduration = 30s\nwarmup = 5s\n"
        "[clients]\ncount = 1000000\nrate = 0.02/s\nread = 0.8\n"
        "put = 0.1\npost = 0.1\ntimeout = 1s\n"
        "[server]\nworkers = 2500\nservice = exp(100ms)\n"
        "network_delay = const(1ms)\n"
        "[policy]\nname = immediate\nmax_attempts = 3\n"
        "[fault.outage]\ntype = outage\nstart = 10s\nduration = 5s\n"
        "mode = blackhole\n";
    budget_cost b = estimate_of(ini, 3);
    ck_assert_double_eq_tol(b.requests, 6e5, 1e-3);
    ck_assert_double_eq(b.attempts, 3);
    ck_assert_double_eq_tol(b.events, 9e6, 1e-2);
    ck_assert_double_lt(b.bytes, 1e9);
    ck_assert_double_gt(b.bytes, 1e6 * 32); /* at least the clients */
}
END_TEST

/* Every shipped scenario passes (validate says ok to them all, which
 * check_cli tests); here, with room to spare: under a thousandth of the
 * events limit and a hundredth of the memory limit (retry-storm.ini's
 * metastable backlog -- 123 358 attempts queued at its worst -- is real
 * and costs tens of megabytes). */
START_TEST(shipped_scenarios_are_cheap)
{
    /* Each with its policy's max_attempts (none has its own). */
    static const struct {
        const char *file;
        double attempts;
    } shipped[] = {{"scenarios/retry-storm.ini", 5},
                   {"scenarios/duplicate-writes.ini", 4},
                   {"scenarios/hot-record.ini", 1000},
                   {"scenarios/overload-thrash.ini", 1},
                   {"scenarios/metastable-tipping.ini", 5},
                   {"scenarios/thundering-herd.ini", 12},
                   {"scenarios/retry-after.ini", 10},
                   {"scenarios/poison-data.ini", 4},
                   {"scenarios/breaker-outage.ini", 5},
                   {"scenarios/brownout.ini", 5},
                   {"scenarios/deadline-bound.ini", 5},
                   {"scenarios/partial-partition.ini", 5},
                   {"scenarios/processes-not-users.ini", 5}};
    for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++) {
        char file[1024];
        snprintf(file, sizeof file, "%s/%s", SB_SOURCE_DIR, shipped[i].file);
        char *text = tu_read_file(file);
        ck_assert_ptr_nonnull(text);
        budget_cost b = estimate_of(text, shipped[i].attempts);
        free(text);
        ck_assert_msg(b.events < BUDGET_MAX_EVENTS / 1000, "%s: %g events",
                      shipped[i].file, b.events);
        ck_assert_msg(b.bytes < BUDGET_MAX_BYTES / 100, "%s: %g bytes",
                      shipped[i].file, b.bytes);
    }
}
END_TEST

/* Load spikes multiply the arrival rate while they last, and overlapping
 * ones multiply each other: 10 clients at 1/s for 100 s, x2 over
 * [10, 20) s and x3 over [15, 25) s, offer 10 x (85 s at x1 + 5 s at x2 +
 * 5 s at x6 + 5 s at x3) = 10 x (85 + 10 + 30 + 15) = 1400 requests. */
START_TEST(spikes_are_counted)
{
    static const char ini[] =
        "[scenario]\nname = spikes\nduration = 100s\nwarmup = 5s\n"
        "[clients]\ncount = 10\nrate = 1/s\n"
        "[policy]\nname = none\n"
        "[fault.a]\ntype = load_spike\nstart = 10s\nduration = 10s\n"
        "multiplier = 2\n"
        "[fault.b]\ntype = load_spike\nstart = 15s\nduration = 10s\n"
        "multiplier = 3\n";
    budget_cost b = estimate_of(ini, 1);
    ck_assert_double_eq_tol(b.requests, 1400, 1e-9);
    ck_assert_double_eq(b.attempts, 1);
}
END_TEST

/* A pipeline's job is a request per step per run, and an undo per step
 * under compensate: 10 jobs of 5 steps, rerun at most twice, compensated:
 * 10 x 5 x 2 x 3 = 300 calls; the same with fail_fast, 150. */
START_TEST(pipeline_jobs_count_their_calls)
{
    static const char ini[] =
        "[scenario]\nname = jobs\nduration = 100s\nwarmup = 5s\n"
        "[clients]\ncount = 10\narrival = once\n"
        "[policy]\nname = none\n";
    static scenario sc;
    policy_setup ps;
    sb_err e;
    const char *file = tu_write_temp("estimate-jobs.ini", ini);
    ck_assert_msg(scenario_load(file, NULL, 0, &sc, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(policy_setup_build(sc.policy, NULL, 0, NULL, 0, &ps, &e),
                     0);
    sc.cfg.pipeline.n_steps = 5;
    sc.cfg.pipeline.reruns = 2;
    sc.cfg.pipeline.strategy = PIPELINE_COMPENSATE;
    budget_cost b;
    budget_estimate(&sc.cfg, 0, 0, 1, &b);
    ck_assert_double_eq_tol(b.requests, 300, 1e-9);
    sc.cfg.pipeline.strategy = PIPELINE_FAIL_FAST;
    budget_estimate(&sc.cfg, 0, 0, 1, &b);
    ck_assert_double_eq_tol(b.requests, 150, 1e-9);
    policy_setup_free(&ps);
}
END_TEST

Suite *budget_suite(void)
{
    Suite *s = suite_create("budget");
    TCase *tc = tcase_create("refusals");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, events_refused_by_run);
    tcase_add_test(tc, events_refused_by_validate);
    tcase_add_test(tc, memory_refused_by_run);
    tcase_add_test(tc, memory_refused_by_validate);
    tcase_add_test(tc, force_runs_it);
    suite_add_tcase(s, tc);
    tc = tcase_create("estimate");
    tcase_add_test(tc, bench_storm_is_within_the_limits);
    tcase_add_test(tc, shipped_scenarios_are_cheap);
    tcase_add_test(tc, spikes_are_counted);
    tcase_add_test(tc, pipeline_jobs_count_their_calls);
    suite_add_tcase(s, tc);
    return s;
}
