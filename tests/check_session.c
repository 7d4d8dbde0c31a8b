/*
 * check_session.c -- a run explored by hand (viz/session.h): what the user
 * does replays exactly, going back in time gives the same run, and the run
 * saved as a scenario reproduces headless, its [expect] section passing.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "session.h"
#include "testutil.h"

static session *open_storm(void)
{
    static scenario sc;
    sb_err e;
    if (scenario_load(TU_SOURCE("scenarios/retry-storm.ini"), NULL, 0, &sc,
                      &e) != 0)
        ck_abort_msg("%s", e.msg);
    /* A shorter, smaller storm so the test is quick. */
    sc.cfg.duration_ns = 200 * NS_PER_S;
    sc.cfg.n_faults = 0; /* the outage comes by hand */
    session_opts o = {&sc.cfg, sc.policy, sc.settings, sc.n_settings, NULL, 0};
    session *ss;
    if (session_create(&o, &ss, &e) != 0)
        ck_abort_msg("%s", e.msg);
    return ss;
}

/* An outage injected at 60 s for 10 s, arrivals x1.2 from 100 s, 12
 * workers from 120 s: the things a user does in the window. */
static void explore(session *ss)
{
    sb_err e;
    ck_assert_int_eq(session_run_until(ss, 60 * NS_PER_S), 0);
    fault_cfg out;
    memset(&out, 0, sizeof out);
    out.type = FAULT_OUTAGE;
    out.mode = CUT_BLACKHOLE;
    out.duration_ns = 10 * NS_PER_S;
    ck_assert_int_ge(session_inject(ss, &out, &e), 0);
    ck_assert_int_eq(session_run_until(ss, 100 * NS_PER_S), 0);
    ck_assert_int_eq(session_change(ss, CHANGE_RATE, 1.2, &e), 0);
    ck_assert_int_eq(session_run_until(ss, 120 * NS_PER_S), 0);
    ck_assert_int_eq(session_change(ss, CHANGE_WORKERS, 12, &e), 0);
    ck_assert_double_eq(session_current(ss, CHANGE_WORKERS), 12);
    ck_assert_int_eq(session_run_until(ss, 150 * NS_PER_S), 0);
}

static void assert_same_rows(const series *a, const series *b, size_t n)
{
    ck_assert_uint_ge(a->n, n);
    ck_assert_uint_ge(b->n, n);
    ck_assert_msg(memcmp(a->rows, b->rows, n * COL_COUNT * sizeof(double)) == 0,
                  "the runs differ");
}

/* Going back to 80 s replays the outage and runs on: the same rows, and
 * the changes made after 80 s are gone from the log. */
START_TEST(seek_replays_exactly)
{
    session *a = open_storm();
    explore(a);
    series copy = *session_series(a);
    size_t n = copy.n;
    copy.rows = malloc(n * COL_COUNT * sizeof(double));
    memcpy(copy.rows, session_series(a)->rows, n * COL_COUNT * sizeof(double));
    sb_err e;
    ck_assert_int_eq(session_seek(a, 80 * NS_PER_S, &e), 0);
    const session_action *log;
    ck_assert_int_eq(session_actions(a, &log), 1);
    /* At 80 s every event before 80 s has run: the buckets up to
     * [79, 80) are complete, 80 of them. */
    ck_assert_uint_eq(session_series(a)->n, 80);
    assert_same_rows(&copy, session_series(a), 80);
    /* Replay the rest by hand: the same rows to the end. */
    ck_assert_int_eq(session_run_until(a, 100 * NS_PER_S), 0);
    ck_assert_int_eq(session_change(a, CHANGE_RATE, 1.2, &e), 0);
    ck_assert_int_eq(session_run_until(a, 120 * NS_PER_S), 0);
    ck_assert_int_eq(session_change(a, CHANGE_WORKERS, 12, &e), 0);
    ck_assert_int_eq(session_run_until(a, 150 * NS_PER_S), 0);
    assert_same_rows(&copy, session_series(a), n);
    free(copy.rows);
    session_destroy(a);
}
END_TEST

/* Saved at 150 s, the run is a scenario of 150 s with three scheduled
 * faults; running it headless gives the same buckets the window drew
 * (the engine orders a fault's events before any other at its instant,
 * scheduled or injected), and an [expect] section made from its summary
 * holds on it. */
START_TEST(saved_scenario_reproduces)
{
    session *a = open_storm();
    explore(a);
    sim_config cfg;
    sim_summary sum;
    sb_err e;
    ck_assert_int_eq(session_as_scenario(a, &cfg, &sum, &e), 0);
    ck_assert_int_eq(cfg.duration_ns, 150 * NS_PER_S);
    ck_assert_uint_eq(cfg.n_faults, 3);
    ck_assert_int_eq(cfg.faults[0].type, FAULT_OUTAGE);
    ck_assert_int_eq(cfg.faults[0].start_ns, 60 * NS_PER_S);
    /* Headless, in process: the same rows as the session's series. */
    policy_setup ps;
    ck_assert_int_eq(
        policy_setup_build(session_policy(a), NULL, 0, NULL, 0, &ps, &e), 0);
    series s;
    series_init(&s, 0.1);
    sim *h;
    ck_assert_int_eq(sim_create(&cfg, ps.stack, &h, &e), 0);
    ck_assert_int_eq(sim_run_until(h, cfg.duration_ns), 0);
    sim_finish(h);
    const metrics *m = sim_metrics(h);
    for (size_t i = 0; i < m->n_buckets; i++)
        series_add(&s, &m->buckets[i]);
    assert_same_rows(session_series(a), &s, 150); /* all of them */
    ck_assert_uint_eq(s.n, 150);
    /* The expectations hold on the saved run's summary. */
    setting x[SESSION_MAX_EXPECT];
    int n = session_expectations(&sum, x, SESSION_MAX_EXPECT);
    /* The live changes run to the end, so recovery is not judged: the
     * amplification, success, duplicate and latency limits; and a limit
     * for each phase figure the run has (during the fault, after it, the
     * steady end), which the saved scenario must meet as well. */
    int phase_keys = 0;
    for (int i = 0; i < n; i++)
        phase_keys += strncmp(x[i].key, "during_", 7) == 0 ||
                      strncmp(x[i].key, "recovery_", 9) == 0 ||
                      strncmp(x[i].key, "steady_", 7) == 0;
    ck_assert_int_eq(n, 4 + phase_keys);
    ck_assert_int_ge(phase_keys, 1);
    bool during = false, steady = false;
    for (int i = 0; i < n; i++) {
        during |= strcmp(x[i].key, "during_fault_success_min") == 0;
        steady |= strcmp(x[i].key, "steady_success_min") == 0;
    }
    ck_assert_int_eq(during,
                     sum.phase[PHASE_DURING].present &&
                         isfinite(sum.phase[PHASE_DURING].success_ratio));
    ck_assert_int_eq(steady, sum.phase[PHASE_END].present &&
                                 isfinite(sum.phase[PHASE_END].success_ratio));
    expect_set set;
    ck_assert_int_eq(expect_parse(x, n, &set, &e), 0);
    expect_result res[EXPECT_KIND_COUNT];
    int nr = expect_eval(&set, &sum, res);
    for (int i = 0; i < nr; i++)
        ck_assert_msg(res[i].ok, "%s: %s", res[i].name, res[i].explain);
    series_fini(&s);
    sim_destroy(h);
    policy_setup_free(&ps);
    session_destroy(a);
}
END_TEST

/* A pipeline's run saves its jobs and pages as limits: 378 of 400 jobs
 * completed is 0.945 (rounded down, so the same run passes), and its 22
 * critical alerts a maximum of 22. */
START_TEST(saved_pipeline_expectations)
{
    sim_summary sum;
    memset(&sum, 0, sizeof sum);
    sum.has_pipeline = true;
    sum.pipeline.jobs = 400;
    sum.pipeline.completed = 378;
    sum.pipeline.alerts_critical = 22;
    setting x[SESSION_MAX_EXPECT];
    int n = session_expectations(&sum, x, SESSION_MAX_EXPECT);
    bool jobs = false, alerts = false;
    for (int i = 0; i < n; i++) {
        if (strcmp(x[i].key, "jobs_completed_min") == 0) {
            ck_assert_str_eq(x[i].value, "0.945");
            jobs = true;
        }
        if (strcmp(x[i].key, "alerts_critical_max") == 0) {
            ck_assert_str_eq(x[i].value, "22");
            alerts = true;
        }
    }
    ck_assert(jobs && alerts);
}
END_TEST

/* A fault's draws are keyed by its name, not its place in the list.  In
 * the session the scenario's own outage (at 180 s) is fault 0 and the
 * injected 503s fault 1; saved at 150 s the outage, not yet begun, is
 * left out and the 503s become fault 0.  Had the coins followed the
 * index, the saved run would fail other attempts than the window did. */
START_TEST(saved_scenario_keeps_fault_draws)
{
    static scenario sc;
    sb_err e;
    if (scenario_load(TU_SOURCE("scenarios/retry-storm.ini"), NULL, 0, &sc,
                      &e) != 0)
        ck_abort_msg("%s", e.msg);
    sc.cfg.duration_ns = 200 * NS_PER_S;
    ck_assert_uint_eq(sc.cfg.n_faults, 1);
    sc.cfg.faults[0].start_ns = 180 * NS_PER_S;
    session_opts o = {&sc.cfg, sc.policy, sc.settings, sc.n_settings, NULL, 0};
    session *a;
    ck_assert_int_eq(session_create(&o, &a, &e), 0);
    ck_assert_int_eq(session_run_until(a, 60 * NS_PER_S), 0);
    fault_cfg f;
    memset(&f, 0, sizeof f);
    f.type = FAULT_ERRORS;
    f.kind = SB_ERR_HTTP;
    f.status = 503;
    f.probability = 0.5;
    f.duration_ns = 20 * NS_PER_S;
    ck_assert_int_eq(session_inject(a, &f, &e), 1);
    ck_assert_int_eq(session_run_until(a, 150 * NS_PER_S), 0);
    sim_config cfg;
    sim_summary sum;
    ck_assert_int_eq(session_as_scenario(a, &cfg, &sum, &e), 0);
    ck_assert_uint_eq(cfg.n_faults, 1);
    ck_assert_int_eq(cfg.faults[0].type, FAULT_ERRORS);
    /* The 503s halved goodput while they lasted: the coins mattered. */
    const series *w = session_series(a);
    ck_assert_double_lt(series_at(w, 70, COL_success),
                        series_at(w, 50, COL_success));
    policy_setup ps;
    ck_assert_int_eq(
        policy_setup_build(session_policy(a), NULL, 0, NULL, 0, &ps, &e), 0);
    series s;
    series_init(&s, 0.1);
    sim *h;
    ck_assert_int_eq(sim_create(&cfg, ps.stack, &h, &e), 0);
    ck_assert_int_eq(sim_run_until(h, cfg.duration_ns), 0);
    sim_finish(h);
    const metrics *m = sim_metrics(h);
    for (size_t i = 0; i < m->n_buckets; i++)
        series_add(&s, &m->buckets[i]);
    assert_same_rows(w, &s, 150);
    series_fini(&s);
    sim_destroy(h);
    policy_setup_free(&ps);
    session_destroy(a);
}
END_TEST

/* Four presses of the right arrow at one instant (a paused window, or a
 * script's four 'at 30s key right' lines) ask for 17, 18, 19 and 20
 * workers: each change must end where the next begins, so the server
 * runs 20, and the saved scenario says 20 from 30 s -- then 21 from 40 s
 * after one more change, the 20 ending there.  (Each change used to
 * leave the one before it running: a capacity fault takes the fewest
 * workers of those running, so the server ran 17.) */
START_TEST(changes_at_one_instant_replace_each_other)
{
    session *a = open_storm();
    sb_err e;
    ck_assert_int_eq(session_run_until(a, 30 * NS_PER_S), 0);
    for (int w = 17; w <= 20; w++)
        ck_assert_int_eq(session_change(a, CHANGE_WORKERS, w, &e), 0);
    ck_assert_double_eq(session_current(a, CHANGE_WORKERS), 20);
    ck_assert_int_eq(session_run_until(a, 40 * NS_PER_S), 0);
    sim_server_now sv;
    sim_server_state(session_sim(a), &sv);
    ck_assert_uint_eq(sv.workers, 20);
    ck_assert_int_eq(session_change(a, CHANGE_WORKERS, 21, &e), 0);
    ck_assert_int_eq(session_run_until(a, 50 * NS_PER_S), 0);
    sim_server_state(session_sim(a), &sv);
    ck_assert_uint_eq(sv.workers, 21);
    sim_config cfg;
    sim_summary sum;
    ck_assert_int_eq(session_as_scenario(a, &cfg, &sum, &e), 0);
    ck_assert_uint_eq(cfg.n_faults, 2);
    ck_assert_int_eq(cfg.faults[0].type, FAULT_CAPACITY);
    ck_assert_uint_eq(cfg.faults[0].workers, 20);
    ck_assert_int_eq(cfg.faults[0].start_ns, 30 * NS_PER_S);
    ck_assert_int_eq(cfg.faults[0].duration_ns, 10 * NS_PER_S);
    ck_assert_uint_eq(cfg.faults[1].workers, 21);
    ck_assert_int_eq(cfg.faults[1].start_ns, 40 * NS_PER_S);
    /* Replayed (going back in time), the same: 20 workers at 35 s. */
    ck_assert_int_eq(session_seek(a, 35 * NS_PER_S, &e), 0);
    sim_server_state(session_sim(a), &sv);
    ck_assert_uint_eq(sv.workers, 20);
    ck_assert_double_eq(session_current(a, CHANGE_WORKERS), 20);
    session_destroy(a);
}
END_TEST

/* Choosing another policy keeps what the user did: the outage, the new
 * rate and the new workers of explore() are replayed under it to where
 * the run was (150 s), so the storm just made is compared under both.
 * The independent check is a session that ran the new policy from the
 * start with the same actions: the same rows, to the byte. */
START_TEST(new_policy_keeps_the_log)
{
    session *a = open_storm();
    explore(a);
    sb_err e;
    ck_assert_int_eq(session_set_policy(a, "exponential", NULL, 0, &e), 0);
    ck_assert_str_eq(session_policy(a), "exponential");
    ck_assert_int_eq(session_now(a), 150 * NS_PER_S);
    const session_action *log;
    ck_assert_int_eq(session_actions(a, &log), 3);
    ck_assert_double_eq(session_current(a, CHANGE_RATE), 1.2);
    ck_assert_double_eq(session_current(a, CHANGE_WORKERS), 12);
    session *b = open_storm();
    ck_assert_int_eq(session_set_policy(b, "exponential", NULL, 0, &e), 0);
    explore(b);
    ck_assert_uint_eq(session_series(a)->n, session_series(b)->n);
    assert_same_rows(session_series(a), session_series(b),
                     session_series(b)->n);
    session_destroy(a);
    session_destroy(b);
}
END_TEST

Suite *session_suite(void)
{
    Suite *s = suite_create("session");
    TCase *tc = tcase_create("replay");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, seek_replays_exactly);
    tcase_add_test(tc, saved_scenario_reproduces);
    tcase_add_test(tc, saved_pipeline_expectations);
    tcase_add_test(tc, saved_scenario_keeps_fault_draws);
    tcase_add_test(tc, changes_at_one_instant_replace_each_other);
    tcase_add_test(tc, new_policy_keeps_the_log);
    suite_add_tcase(s, tc);
    return s;
}
