/*
 * check_timeline.c -- arrivals measured elsewhere (base/timeline.h):
 * `rate = profile(FILE)`, a piecewise rate over time, and `arrival =
 * trace(FILE)`, recorded request instants replayed.  The files' readers
 * against hand-computed integrals and exact instants; runs against
 * Poisson counts; bad files against messages naming file, line and what
 * was expected.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "timeline.h"

/* ---- Rate profiles ------------------------------------------------------ */

/* 10/s for 60 s, then 30/s: Lambda(t) = 10 t for t <= 60, 600 + 30 (t -
 * 60) after.  Lambda(120 s) = 600 + 1800 = 2400. */
static const char step_csv[] = "# a step\ntime,rate\n0,10\n60s, 30/s\n";

START_TEST(profile_mass_is_the_rate_integral)
{
    const rate_profile *p;
    sb_err e;
    const char *path = tu_write_temp("step.csv", step_csv);
    ck_assert_int_eq(profile_read(path, false, &p, &e), 0);
    ck_assert_uint_eq(profile_count(p), 2);
    ck_assert_double_eq_tol(profile_mass(p, 30 * NS_PER_S), 300, 1e-9);
    ck_assert_double_eq_tol(profile_mass(p, 120 * NS_PER_S), 2400, 1e-9);
    ck_assert_double_eq_tol(profile_mean(p, 120 * NS_PER_S), 20, 1e-12);
    ck_assert_double_eq(profile_peak(p), 30);
    /* The inverse: 600 arrivals are reached at 60 s; one more takes
     * 1/30 s at 30/s. */
    ck_assert_int_eq(profile_time_at(p, 600), 60 * NS_PER_S);
    ck_assert_int_eq(profile_time_at(p, 601), 60 * NS_PER_S + 33333333);
    ck_assert_int_eq(profile_time_at(p, 0.5), 50 * NS_PER_MS);
}
END_TEST

/* Epoch times are taken from the first; a zero-rate stretch has no
 * mass, and the inverse skips it; a last rate of 0 never reaches more. */
START_TEST(profile_with_a_pause_and_epoch_times)
{
    const rate_profile *p;
    sb_err e;
    const char *path = tu_write_temp("pause.txt", "1764684000 2\n"
                                                  "1764684010 0\n"
                                                  "1764684020 4\n"
                                                  "1764684030 0\n");
    ck_assert_int_eq(profile_read(path, true, &p, &e), 0);
    ck_assert(profile_total(p));
    /* 2/s x 10 s = 20; nothing from 10 s to 20 s; 4/s x 10 s = 40. */
    ck_assert_double_eq_tol(profile_mass(p, 15 * NS_PER_S), 20, 1e-9);
    ck_assert_int_eq(profile_time_at(p, 21), 20 * NS_PER_S + 250000000);
    ck_assert_int_eq(profile_time_at(p, 60), 30 * NS_PER_S);
    ck_assert_int_eq(profile_time_at(p, 60.5), SIMTIME_END);
}
END_TEST

static const char profile_ini[] =
    "[scenario]\nname = profile\nduration = 120s\nwarmup = 10s\n"
    "[clients]\ncount = %d\nrate = profile(%s%s)\n"
    "[server]\nworkers = unlimited\nservice = const(1ms)\n"
    "[policy]\nname = none\n%s";

static tu_sim *profile_run(int clients, const char *how, const char *extra)
{
    char ini[2048];
    const char *path = tu_write_temp("step.csv", step_csv);
    snprintf(ini, sizeof ini, profile_ini, clients, path, how, extra);
    return tu_sim_run(ini, NULL, NULL, 0);
}

/* The example, per client: 100 clients each at 10/s then 30/s
 * offer a Poisson count with mean 100 x 2400 = 240000, sd sqrt(240000) =
 * 490; within 4 sd (a false alarm once in 16000 runs).  The halves
 * separately: 60000 (sd 245) and 180000 (sd 424), which a constant rate
 * of the same mean (120000 each) fails by hundreds of sd. */
static int64_t first_half;

static void count_first_half(void *ctx, const sim_trace *tr)
{
    (void)ctx;
    if (tr->kind == TRACE_SEND && tr->attempt->attempt == 1 &&
        tr->time_ns < 60 * NS_PER_S)
        first_half++;
}

START_TEST(profile_run_offers_its_integral)
{
    char ini[2048];
    const char *path = tu_write_temp("step.csv", step_csv);
    snprintf(ini, sizeof ini, profile_ini, 100, path, "", "");
    first_half = 0;
    tu_sim *t = tu_sim_run_traced(ini, NULL, NULL, 0, count_first_half, NULL);
    ck_assert_double_le(fabs((double)t->sum.offered - 240000), 4 * 490);
    ck_assert_double_le(fabs((double)first_half - 60000), 4 * 245);
    ck_assert_double_le(
        fabs((double)(t->sum.offered - (uint64_t)first_half) - 180000),
        4 * 424);
    tu_sim_free(t);
}
END_TEST

/* `total`: the file's rates are the 100 clients' together, so the run
 * offers 2400 (sd 49) rather than 240000. */
START_TEST(profile_total_is_shared_by_the_clients)
{
    tu_sim *t = profile_run(100, ", total", "");
    ck_assert_double_le(fabs((double)t->sum.offered - 2400), 4 * 49);
    tu_sim_free(t);
}
END_TEST

/* The recovery-noise warning counts the requests of one recovery window
 * where recovery is judged, after the last fault.  200/s in all until
 * 60 s, then 20/s; the outage ends at 60 s: a 10 s window holds 20 x 10
 * = 200 requests, noise 1/sqrt(200) = 7 % against the 10 % band: a
 * warning.  With the peak (200/s: 2000 requests) or the run's mean
 * ((200 + 20) / 2 = 110/s: 1100) there was none.  The same profile the
 * other way round (200/s after the outage: 2000 requests) has none. */
START_TEST(profile_noise_warning_uses_the_rate_after_the_fault)
{
    static const char ini_fmt[] =
        "[scenario]\nname = noise\nduration = 120s\nwarmup = 10s\n"
        "recovery_window = 10s\n"
        "[clients]\ncount = 100\nrate = profile(%s, total)\n"
        "[server]\nworkers = unlimited\nservice = const(1ms)\n"
        "[policy]\nname = none\n"
        "[fault.out]\ntype = outage\nstart = 40s\nduration = 20s\n";
    static const char *const csv[2] = {"0,200\n60s,20\n", "0,20\n60s,200\n"};
    for (int k = 0; k < 2; k++) {
        char ini[1024], prof[1024], path[1024];
        snprintf(prof, sizeof prof, "%s", tu_write_temp("noise.csv", csv[k]));
        snprintf(ini, sizeof ini, ini_fmt, prof);
        snprintf(path, sizeof path, "%s", tu_write_temp("noise.ini", ini));
        tu_output o;
        ck_assert_int_eq(
            tu_stormbench(&o, (const char *[]){"validate", path, NULL}), 0);
        const char *w = strstr(o.err, "recovery_window holds about");
        if (k == 0)
            ck_assert_msg(w && strstr(w, "about 200 requests (the profile's "
                                         "mean rate after the last fault, "
                                         "20/s in all): goodput noise of "
                                         "about 7%"),
                          "%s", o.err);
        else
            ck_assert_msg(w == NULL, "%s", o.err);
        tu_output_free(&o);
    }
}
END_TEST

/* Recovery is judged against the baseline (goodput from warm-up to the
 * first fault, within the 10 % band: sim/summary.h).  200/s in all
 * from 0 to 60 s, 20/s after; warm-up 10 s, the outage 40-60 s: the
 * baseline window offers 200/s, the time after the last fault 20/s, so
 * goodput at its new level is (200 - 20) / 200 = 90 % below: a warning
 * naming the file and both rates.  The other way round, 20/s then
 * 200/s: 900 % above.  A flat 100/s: none.  A trace of one request
 * every 10 ms until 60 s and every 20 ms after: 100/s, then 50/s, 50 %
 * below (30 s x 100 = 3000 requests in [10 s, 40 s), 60 s x 50 = 3000
 * in [60 s, 120 s)). */
START_TEST(rate_after_the_faults_unlike_the_baseline_is_warned)
{
    static const char ini_fmt[] =
        "[scenario]\nname = level\nduration = 120s\nwarmup = 10s\n"
        "recovery_window = 10s\n"
        "[clients]\ncount = 100\n%s = %s(%s%s)\n"
        "[server]\nworkers = unlimited\nservice = const(1ms)\n"
        "[policy]\nname = none\n"
        "[fault.out]\ntype = outage\nstart = 40s\nduration = 20s\n";
    static char times[100000];
    size_t used = 0;
    for (int ms = 0; ms < 120000; ms += ms < 60000 ? 10 : 20)
        used += (size_t)snprintf(times + used, sizeof times - used, "%d.%03d\n",
                                 ms / 1000, ms % 1000);
    static const struct {
        const char *key, *kind, *file, *extra, *says;
    } cases[] = {
        {"rate", "profile", "0,200\n60s,20\n", ", total",
         "offers 200/s in all from warm-up to the first fault (the baseline "
         "recovery is judged against) but 20/s after the last fault: "
         "goodput back at the new level is 90% below the baseline"},
        {"rate", "profile", "0,20\n60s,200\n", ", total",
         "offers 20/s in all from warm-up to the first fault (the baseline "
         "recovery is judged against) but 200/s after the last fault: "
         "goodput back at the new level is 900% above the baseline"},
        {"rate", "profile", "0,100\n", ", total", NULL},
        {"arrival", "trace", times, "",
         "offers 100/s in all from warm-up to the first fault (the baseline "
         "recovery is judged against) but 50/s after the last fault: "
         "goodput back at the new level is 50% below the baseline"}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char ini[1024], file[1024], path[1024], key[1100];
        snprintf(file, sizeof file, "%s",
                 tu_write_temp("level.csv", cases[k].file));
        snprintf(ini, sizeof ini, ini_fmt, cases[k].key, cases[k].kind, file,
                 cases[k].extra);
        snprintf(path, sizeof path, "%s", tu_write_temp("level.ini", ini));
        tu_output o;
        ck_assert_int_eq(
            tu_stormbench(&o, (const char *[]){"validate", path, NULL}), 0);
        const char *w = strstr(o.err, "so recovery would be judged against "
                                      "the wrong level");
        if (cases[k].says == NULL)
            ck_assert_msg(w == NULL, "%s", o.err);
        else {
            snprintf(key, sizeof key, "[clients] %s = %s(%s%s) %s",
                     cases[k].key, cases[k].kind, file, cases[k].extra,
                     cases[k].says);
            ck_assert_msg(w && strstr(o.err, key), "%s\nwanted: %s", o.err,
                          key);
        }
        tu_output_free(&o);
    }
}
END_TEST

/* A load spike x2 from 30 s to 90 s on the profile: the rate doubles in
 * mass, not in time -- 10/s x (30 + 2 x 30) + 30/s x (2 x 30 + 30) =
 * 900 + 2700 = 3600 per client; 100 clients: 360000, sd 600. */
START_TEST(profile_under_a_load_spike)
{
    tu_sim *t = profile_run(100, "",
                            "[fault.spike]\ntype = load_spike\n"
                            "start = 30s\nduration = 60s\n"
                            "multiplier = 2\n");
    ck_assert_double_le(fabs((double)t->sum.offered - 360000), 4 * 600);
    tu_sim_free(t);
}
END_TEST

/* ---- Traces ------------------------------------------------------------- */

/* Sends of first attempts, by time: a trace's requests, replayed. */
static int64_t sent_at[16];
static int n_sent;

static void record_sends(void *ctx, const sim_trace *tr)
{
    (void)ctx;
    if (tr->kind == TRACE_SEND && tr->attempt->attempt == 1 && n_sent < 16)
        sent_at[n_sent++] = tr->time_ns;
}

static const char trace_ini[] =
    "[scenario]\nname = trace\nduration = 20s\nwarmup = 1s\n"
    "recovery_window = 1s\n"
    "[clients]\ncount = %d\narrival = trace(%s)\n%s"
    "[server]\nworkers = unlimited\nservice = const(1ms)\n"
    "[policy]\nname = none\n";

/* Out of order in the file, a unit on one, ns digits a double would
 * lose on an epoch time: replayed at exactly the recorded instants from
 * the first (1764684000.000000000 s is 0). */
START_TEST(trace_replays_exact_instants)
{
    const char *path =
        tu_write_temp("trace.txt", "1764684000.000000000\n1764684007.5\n"
                                   "1764684001.000000001\n1764684000250ms\n");
    char ini[2048];
    snprintf(ini, sizeof ini, trace_ini, 1, path, "");
    n_sent = 0;
    tu_sim *t = tu_sim_run_traced(ini, NULL, NULL, 0, record_sends, NULL);
    static const int64_t want[] = {0, 250000000, 1000000001, 7500000000};
    ck_assert_int_eq(n_sent, 4);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(sent_at[i], want[i]);
    tu_sim_free(t);
}
END_TEST

/* ISO 8601 times from an access log's column (tests/data/access.csv:
 * 10:00:00Z to 10:00:03Z, one a second), by header name. */
START_TEST(trace_from_an_access_log_column)
{
    char ini[2048], path[1024];
    snprintf(path, sizeof path, "%s/tests/data/access.csv, time",
             SB_SOURCE_DIR);
    snprintf(ini, sizeof ini, trace_ini, 2, path, "");
    n_sent = 0;
    tu_sim *t = tu_sim_run_traced(ini, NULL, NULL, 0, record_sends, NULL);
    ck_assert_int_eq(n_sent, 4);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(sent_at[i], i * NS_PER_S);
    tu_sim_free(t);
}
END_TEST

/* 1000 requests.  trace_scale = 2: every request twice, exactly 2000;
 * 0.5: each kept with probability 1/2, Binomial(1000, 0.5): mean 500,
 * sd 15.8; 2.5: 2000 + Binomial(1000, 0.5). */
static tu_sim *scaled_run(const char *scale)
{
    static char text[20000];
    size_t o = 0;
    for (int i = 0; i < 1000; i++)
        o += (size_t)snprintf(text + o, sizeof text - o, "%d.%03d\n", i / 100,
                              (i % 100) * 10);
    const char *path = tu_write_temp("thousand.txt", text);
    char ini[2048], extra[64];
    snprintf(extra, sizeof extra, "trace_scale = %s\n", scale);
    snprintf(ini, sizeof ini, trace_ini, 10, path, extra);
    return tu_sim_run(ini, NULL, NULL, 0);
}

START_TEST(trace_scale_multiplies_the_requests)
{
    tu_sim *t = scaled_run("1");
    ck_assert_uint_eq(t->sum.offered, 1000);
    tu_sim_free(t);
    t = scaled_run("2");
    ck_assert_uint_eq(t->sum.offered, 2000);
    tu_sim_free(t);
    t = scaled_run("0.5");
    ck_assert_double_le(fabs((double)t->sum.offered - 500), 4 * 15.8);
    tu_sim_free(t);
    t = scaled_run("2.5");
    ck_assert_double_le(fabs((double)t->sum.offered - 2500), 4 * 15.8);
    tu_sim_free(t);
}
END_TEST

/* A caller column: every request of one caller goes to one client.  Two
 * callers, 3 and 1 requests, 2 clients: client 0 (caller a, seen first)
 * sends 3, client 1 sends 1. */
static int per_client[2];

static void count_clients(void *ctx, const sim_trace *tr)
{
    (void)ctx;
    if (tr->kind == TRACE_SEND && tr->attempt->attempt == 1 && tr->client < 2)
        per_client[tr->client]++;
}

START_TEST(trace_callers_keep_their_client)
{
    const char *file = tu_write_temp("callers.csv", "t,who\n0,a\n1,b\n"
                                                    "2,a\n3,a\n");
    char ini[2048], arg[1200];
    snprintf(arg, sizeof arg, "%s, t, s, who", file);
    snprintf(ini, sizeof ini, trace_ini, 2, arg, "");
    memset(per_client, 0, sizeof per_client);
    tu_sim *t = tu_sim_run_traced(ini, NULL, NULL, 0, count_clients, NULL);
    ck_assert_int_eq(per_client[0], 3);
    ck_assert_int_eq(per_client[1], 1);
    tu_sim_free(t);
}
END_TEST

/* ---- Bad files ---------------------------------------------------------- */

static void expect_error(int rc, const sb_err *e, const char *file_line,
                         const char *what)
{
    ck_assert_int_ne(rc, 0);
    ck_assert_msg(strstr(e->msg, file_line) && strstr(e->msg, what),
                  "message '%s' lacks '%s' or '%s'", e->msg, file_line, what);
}

START_TEST(bad_files_name_file_line_and_what)
{
    const rate_profile *p;
    const trace *t;
    sb_err e;
    const char *path = tu_write_temp("bad1.csv", "0,10\n60,fast\n");
    expect_error(profile_read(path, false, &p, &e), &e,
                 "bad1.csv:2:", "expected a rate");
    path = tu_write_temp("bad2.csv", "0,10\n60,20\n30,5\n");
    expect_error(profile_read(path, false, &p, &e), &e,
                 "bad2.csv:3:", "times must increase");
    path = tu_write_temp("bad3.csv", "0,10\n60\n");
    expect_error(profile_read(path, false, &p, &e), &e,
                 "bad3.csv:2:", "expected a time and a rate");
    path = tu_write_temp("bad4.txt", "1.5\n2.5\nyesterday\n");
    expect_error(trace_read(path, NULL, NULL, NULL, &t, &e), &e,
                 "bad4.txt:3:", "expected a request's timestamp");
    path = tu_write_temp("bad5.txt", "1.5\n-2\n");
    expect_error(trace_read(path, NULL, NULL, NULL, &t, &e), &e,
                 "bad5.txt:2:", "expected a request's timestamp");
    path = tu_write_temp("bad6.csv", "when,who\n1,a\n");
    expect_error(trace_read(path, "time", NULL, NULL, &t, &e), &e,
                 "bad6.csv:1:", "no column 'time'");
}
END_TEST

/* The scenario keys: a trace with a load spike is refused at the fault's
 * type line; trace_scale without a trace at its own line; both exit 2
 * from the command line. */
START_TEST(scenario_refuses_what_a_trace_cannot_do)
{
    const char *tfile = tu_write_temp("t.txt", "0\n1\n");
    char ini[2048];
    snprintf(ini, sizeof ini,
             "[scenario]\nname = x\nduration = 20s\n"
             "[clients]\narrival = trace(%s)\n"
             "[fault.s]\ntype = load_spike\nstart = 12s\nduration = 1s\n"
             "multiplier = 2\n",
             tfile);
    char ini_path[1024]; /* tu_stormbench reuses tu_temp_path's buffer */
    snprintf(ini_path, sizeof ini_path, "%s", tu_write_temp("spike.ini", ini));
    tu_output o;
    const char *argl[] = {"validate", ini_path, NULL};
    ck_assert_int_eq(tu_stormbench(&o, argl), 2);
    ck_assert_msg(strstr(o.err, "spike.ini:7:") && strstr(o.err, "trace_scale"),
                  "%s", o.err);
    tu_output_free(&o);
    snprintf(ini_path, sizeof ini_path, "%s",
             tu_write_temp("scale.ini", "[scenario]\nname = x\n"
                                        "duration = 20s\n[clients]\n"
                                        "rate = 2/s\ntrace_scale = 2\n"));
    const char *argl2[] = {"validate", ini_path, NULL};
    ck_assert_int_eq(tu_stormbench(&o, argl2), 2);
    ck_assert_msg(strstr(o.err, "scale.ini:6:") &&
                      strstr(o.err, "arrival = trace(FILE)"),
                  "%s", o.err);
    tu_output_free(&o);
}
END_TEST

/* Nor can a spike be injected into a running trace (the GUI's rate keys
 * and its inject menu do so): it would change nothing, and the scenario
 * saved from that run would be refused by the check above.  An outage
 * is taken as ever. */
START_TEST(running_trace_refuses_an_injected_spike)
{
    const char *path = tu_write_temp("trace-i.txt", "0\n1\n2\n");
    char ini[2048];
    snprintf(ini, sizeof ini, trace_ini, 1, path, "");
    tu_sim *t = tu_sim_prepare(ini, NULL, NULL, 0);
    fault_cfg f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "spike_1");
    f.type = FAULT_LOAD_SPIKE;
    f.multiplier = 2;
    f.duration_ns = 1000000000;
    sb_err e;
    ck_assert_int_eq(sim_inject(t->sim, &f, &e), -1);
    ck_assert_msg(strstr(e.msg, "trace_scale"), "%s", e.msg);
    snprintf(f.name, sizeof f.name, "outage_1");
    f.type = FAULT_OUTAGE;
    ck_assert_int_ge(sim_inject(t->sim, &f, &e), 0);
    tu_sim_free(t);
}
END_TEST

Suite *timeline_suite(void)
{
    Suite *s = suite_create("timeline");
    TCase *tc = tcase_create("profile");
    tcase_add_test(tc, profile_noise_warning_uses_the_rate_after_the_fault);
    tcase_add_test(tc, rate_after_the_faults_unlike_the_baseline_is_warned);
    tcase_add_test(tc, profile_mass_is_the_rate_integral);
    tcase_add_test(tc, profile_with_a_pause_and_epoch_times);
    tcase_add_test(tc, profile_run_offers_its_integral);
    tcase_add_test(tc, profile_total_is_shared_by_the_clients);
    tcase_add_test(tc, profile_under_a_load_spike);
    suite_add_tcase(s, tc);
    tc = tcase_create("trace");
    tcase_add_test(tc, trace_replays_exact_instants);
    tcase_add_test(tc, trace_from_an_access_log_column);
    tcase_add_test(tc, trace_scale_multiplies_the_requests);
    tcase_add_test(tc, trace_callers_keep_their_client);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_add_test(tc, bad_files_name_file_line_and_what);
    tcase_add_test(tc, scenario_refuses_what_a_trace_cannot_do);
    tcase_add_test(tc, running_trace_refuses_an_injected_spike);
    suite_add_tcase(s, tc);
    return s;
}
