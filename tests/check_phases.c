/*
 * check_phases.c -- a run cut into phases around its faults (sim/phases.h):
 * the spans by hand, each phase's figures by hand and against the CSV's
 * buckets, the summary's table and the JSON, and the per-phase [expect]
 * keys passing, failing, not judgeable, and refused when malformed.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "testutil.h"

/* ---- Spans ------------------------------------------------------------------ */

typedef struct span_case {
    const char *what;
    int64_t first, last; /* the faults, s; -1: none */
    uint64_t from[PHASE_COUNT], to[PHASE_COUNT];
} span_case;

/* A 30 s run in 1 s buckets, warm-up 3 s, recovery window 5 s: buckets 0
 * to 29, of which 0-2 are warm-up and 25-29 the last window.  A fault in
 * 10-15 s touches buckets 10-14; the baseline (before) is 3-9, recovery
 * (after) 15-24, the steady state (end) 25-29. */
static const span_case spans[] = {
    {"fault 10-15 s", 10, 15, {3, 10, 15, 25}, {10, 15, 25, 30}},
    /* No fault: one phase, from the warm-up to the end. */
    {"no fault", -1, -1, {3, 0, 0, 0}, {30, 0, 0, 0}},
    /* A fault ending inside the last window: no steady state, and the
     * recovery runs to the end. */
    {"fault 20-27 s", 20, 27, {3, 20, 27, 0}, {20, 27, 30, 0}},
    /* A fault inside the warm-up: nothing before it counts. */
    {"fault 1-4 s", 1, 4, {1, 1, 4, 25}, {1, 4, 25, 30}},
};

START_TEST(spans_by_hand)
{
    const span_case *c = &spans[_i];
    phases_input in = {1000000000,
                       30000000000,
                       3000000000,
                       5000000000,
                       c->first < 0 ? -1 : c->first * 1000000000,
                       c->last < 0 ? -1 : c->last * 1000000000};
    phases_plan p;
    phases_plan_of(&in, &p);
    for (int k = 0; k < PHASE_COUNT; k++) {
        bool empty = c->from[k] >= c->to[k];
        bool got_empty = p.from[k] >= p.to[k];
        ck_assert_msg(empty == got_empty, "%s, %s: [%llu, %llu)", c->what,
                      phases_name((phase_kind)k), (unsigned long long)p.from[k],
                      (unsigned long long)p.to[k]);
        if (!empty) {
            ck_assert_uint_eq(p.from[k], c->from[k]);
            ck_assert_uint_eq(p.to[k], c->to[k]);
        }
    }
}
END_TEST

/* A fault that starts and ends inside buckets (10.5-14.2 s) touches
 * buckets 10 to 14: 10 is not wholly before it, 14 not wholly after. */
START_TEST(a_fault_inside_buckets_takes_them_whole)
{
    phases_input in = {1000000000, 30000000000, 3000000000,
                       5000000000, 10500000000, 14200000000};
    phases_plan p;
    phases_plan_of(&in, &p);
    ck_assert_uint_eq(p.to[PHASE_BEFORE], 10);
    ck_assert_uint_eq(p.from[PHASE_DURING], 10);
    ck_assert_uint_eq(p.to[PHASE_DURING], 15);
    ck_assert_uint_eq(p.from[PHASE_AFTER], 15);
}
END_TEST

/* ---- Figures, by hand ------------------------------------------------------
 *
 * 10 closed-loop clients, think const 1 s, service const 100 ms, no
 * network delay, timeout 1 s, immediate retries up to 3 attempts; a
 * black-hole outage in [10, 15) s; warm-up 2 s, 30 s in 1 s buckets,
 * recovery window 5 s.  Phases: before [2, 10), during [10, 15), after
 * [15, 25), end [25, 30).  Every client does the same (const draws):
 *   requests start at 1.0, 2.1, 3.2 ... 9.8 s, each a success 0.1 s later
 *   10.9  into the hole: attempts at 10.9, 11.9, 12.9 time out; gives up
 *         at 13.9 (3 attempts)
 *   14.9  into the hole; times out at 15.9, retried to a server that is
 *         up: a success at 16.0, 1.1 s after it started
 *   17.0, 18.1 ... 29.1  each a success 0.1 s later
 * Per client and phase:
 *   before  starts 2.1 ... 9.8: 8 offered, 8 attempts, 8 successes
 *           (2.2 ... 9.9), none failed; goodput 80 / 8 s = 10/s
 *   during  starts 10.9, 14.9: 2 offered; attempts 10.9, 11.9, 12.9, 14.9:
 *           4 (amplification 2); no success, 1 failure (13.9)
 *   after   starts 17.0 ... 24.7: 8 offered; attempts: the retry at 15.9
 *           and 8: 9 (amplification 9/8); successes 16.0 and 17.1 ...
 *           24.8: 9 (goodput 90 / 10 s = 9/s); a ninth of them took
 *           1.1 s, so p99 is 1.1 s
 *   end     starts 25.8, 26.9, 28.0, 29.1: 4 offered, 4 attempts, 4
 *           successes (goodput 40 / 5 s = 8/s, 80 % of the baseline)
 * Latency is 100 ms end to end but for those 10 of 1.1 s; the summary
 * gives a histogram bin's midpoint, within 3.2 %. */
static const char hand_ini[] =
    "[scenario]\nname = phases\nduration = 30s\nwarmup = 2s\nbucket = 1s\n"
    "recovery_window = 5s\n"
    "[clients]\ncount = 10\narrival = closed\nthink = const(1s)\n"
    "timeout = 1s\n%s"
    "[server]\nworkers = unlimited\nservice = const(100ms)\n"
    "network_delay = const(0ms)\n"
    "[policy]\nname = immediate\nmax_attempts = 3\n"
    "[fault.hole]\ntype = outage\nmode = blackhole\nstart = 10s\n"
    "duration = 5s\n%s";

static tu_sim *run_hand(const char *clients_extra, const char *expect)
{
    char ini[sizeof hand_ini + 1024];
    snprintf(ini, sizeof ini, hand_ini, clients_extra, expect);
    return tu_sim_run(ini, NULL, NULL, 0);
}

static void near_ms(double got, double want)
{
    ck_assert_double_eq_tol(got, want, want * 0.032);
}

START_TEST(figures_by_hand)
{
    tu_sim *t = run_hand("", "");
    const sim_phase *ph = t->sum.phase;
    static const double from[] = {2, 10, 15, 25}, to[] = {10, 15, 25, 30};
    for (int k = 0; k < PHASE_COUNT; k++) {
        ck_assert(ph[k].present);
        ck_assert_double_eq(ph[k].from_s, from[k]);
        ck_assert_double_eq(ph[k].to_s, to[k]);
        ck_assert_double_eq(ph[k].duplicates, 0);
    }
    /* before: 80 offered over 8 s. */
    ck_assert_double_eq(ph[PHASE_BEFORE].offered_per_s, 10.0);
    ck_assert_double_eq(ph[PHASE_BEFORE].goodput_per_s, 10.0);
    ck_assert_double_eq(ph[PHASE_BEFORE].success_ratio, 1.0);
    ck_assert_double_eq(ph[PHASE_BEFORE].amplification, 1.0);
    near_ms(ph[PHASE_BEFORE].p99_ms, 100.0);
    /* during: 20 offered over 5 s, 40 attempts, 10 failures. */
    ck_assert_double_eq(ph[PHASE_DURING].offered_per_s, 4.0);
    ck_assert_double_eq(ph[PHASE_DURING].goodput_per_s, 0.0);
    ck_assert_double_eq(ph[PHASE_DURING].success_ratio, 0.0);
    ck_assert_double_eq(ph[PHASE_DURING].amplification, 2.0);
    ck_assert(isnan(ph[PHASE_DURING].p99_ms));
    /* after: 80 offered over 10 s, 90 attempts, 90 successes. */
    ck_assert_double_eq(ph[PHASE_AFTER].offered_per_s, 8.0);
    ck_assert_double_eq(ph[PHASE_AFTER].goodput_per_s, 9.0);
    ck_assert_double_eq(ph[PHASE_AFTER].success_ratio, 1.0);
    ck_assert_double_eq(ph[PHASE_AFTER].amplification, 90.0 / 80.0);
    near_ms(ph[PHASE_AFTER].p99_ms, 1100.0);
    /* end: 40 offered over 5 s. */
    ck_assert_double_eq(ph[PHASE_END].offered_per_s, 8.0);
    ck_assert_double_eq(ph[PHASE_END].goodput_per_s, 8.0);
    ck_assert_double_eq(ph[PHASE_END].success_ratio, 1.0);
    ck_assert_double_eq(ph[PHASE_END].amplification, 1.0);
    near_ms(ph[PHASE_END].p99_ms, 100.0);
    /* The baseline is the `before` phase. */
    ck_assert_double_eq(t->sum.baseline_goodput_per_s, 10.0);
    tu_sim_free(t);
}
END_TEST

/* ---- Figures, against the CSV --------------------------------------------- */

/* A CSV's column `name` as an array of its rows' values (malloc'd; *n
 * rows). */
static double *csv_column(const char *csv, const char *name, size_t *n)
{
    const char *nl = strchr(csv, '\n');
    int idx = -1, i = 0;
    for (const char *p = csv; p < nl; i++) {
        const char *end = strpbrk(p, ",\n");
        if ((size_t)(end - p) == strlen(name) &&
            strncmp(p, name, strlen(name)) == 0)
            idx = i;
        p = end + 1;
    }
    ck_assert_msg(idx >= 0, "no column %s", name);
    size_t cap = 1024;
    double *v = malloc(cap * sizeof *v);
    *n = 0;
    for (const char *row = nl + 1; *row; row = strchr(row, '\n') + 1) {
        const char *p = row;
        for (int k = 0; k < idx; k++)
            p = strchr(p, ',') + 1;
        if (*n == cap)
            v = realloc(v, (cap *= 2) * sizeof *v);
        v[(*n)++] = strtod(p, NULL);
    }
    return v;
}

/* The storm's phases in its JSON are the sums of its CSV rows over each
 * phase's span, worked out here from the rows alone (t_s, width_s and the
 * counts), not from the engine's phase sums.  JSON numbers have 6
 * significant digits. */
START_TEST(figures_match_the_csv)
{
    const char *storm = TU_SOURCE("scenarios/retry-storm.ini");
    char csv_path[1024], json_path[1024];
    snprintf(csv_path, sizeof csv_path, "%s", tu_temp_path("phases.csv"));
    snprintf(json_path, sizeof json_path, "%s", tu_temp_path("phases.json"));
    tu_output o;
    ck_assert_int_eq(
        tu_stormbench(&o,
                      (const char *[]){"run", storm, "--no-expect", "--csv",
                                       csv_path, "--json", json_path, NULL}),
        0);
    tu_output_free(&o);
    char *csv = tu_read_file(csv_path), *json = tu_read_file(json_path);
    size_t n;
    double *t = csv_column(csv, "t_s", &n);
    double *w = csv_column(csv, "width_s", &n);
    double *off = csv_column(csv, "offered", &n);
    double *att = csv_column(csv, "attempts", &n);
    double *ok = csv_column(csv, "successes", &n);
    double *bad = csv_column(csv, "failures", &n);
    double *dup = csv_column(csv, "duplicates", &n);
    ck_assert_uint_eq(n, 300);
    /* retry-storm: warm-up 20 s, the outage 60-70 s, window 10 s. */
    static const double from[] = {20, 60, 70, 290}, to[] = {60, 70, 290, 300};
    for (int k = 0; k < PHASE_COUNT; k++) {
        double o_ = 0, a = 0, s = 0, f = 0, d = 0, width = 0;
        for (size_t i = 0; i < n; i++)
            if (t[i] >= from[k] && t[i] < to[k]) {
                o_ += off[i];
                a += att[i];
                s += ok[i];
                f += bad[i];
                d += dup[i];
                width += w[i];
            }
        ck_assert_double_eq(width, to[k] - from[k]);
        char key[96];
        const char *name = phases_name((phase_kind)k);
#define FIG(field)                                                             \
    (snprintf(key, sizeof key, "phases.%s.%s", name, field),                   \
     tu_json_number(json, key))
        ck_assert_double_eq(FIG("from_s"), from[k]);
        ck_assert_double_eq(FIG("to_s"), to[k]);
        ck_assert_double_eq_tol(FIG("offered_per_s"), o_ / width,
                                1e-5 * o_ / width);
        ck_assert_double_eq_tol(FIG("goodput_per_s"), s / width,
                                1e-5 * s / width + 1e-12);
        ck_assert_double_eq_tol(FIG("amplification"), a / o_, 1e-5 * a / o_);
        ck_assert_double_eq(FIG("duplicates"), d);
        if (s + f > 0)
            ck_assert_double_eq_tol(FIG("success_ratio"), s / (s + f),
                                    1e-5 * s / (s + f) + 1e-12);
#undef FIG
    }
    /* A phase with no success has no p99: null, not a string or 0. */
    ck_assert(tu_json_is_null(json, "phases.end.p99_ms"));
    free(t);
    free(w);
    free(off);
    free(att);
    free(ok);
    free(bad);
    free(dup);
    free(csv);
    free(json);
}
END_TEST

/* ---- The summary's table ---------------------------------------------------- */

START_TEST(summary_prints_the_phases)
{
    tu_output o;
    const char *storm = TU_SOURCE("scenarios/retry-storm.ini");
    ck_assert_int_eq(
        tu_stormbench(&o, (const char *[]){"run", storm, "--no-expect", NULL}),
        0);
    const char *head = strstr(o.out, "  by phase              t (s)");
    ck_assert_ptr_nonnull(head);
    ck_assert_ptr_nonnull(strstr(head, "\n    before the fault    20-60 "));
    ck_assert_ptr_nonnull(strstr(head, "\n    during faults       60-70 "));
    ck_assert_ptr_nonnull(strstr(head, "\n    recovery            70-290 "));
    ck_assert_ptr_nonnull(strstr(head, "\n    steady state        290-300 "));
    tu_output_free(&o);
    /* Without a fault the run is one phase: no table. */
    const char *ini =
        tu_write_temp("nofault.ini", "[scenario]\nname = calm\nduration = 20s\n"
                                     "[clients]\ncount = 10\nrate = 1/s\n"
                                     "[policy]\nname = none\n");
    char path[1024];
    snprintf(path, sizeof path, "%s", ini);
    ck_assert_int_eq(tu_stormbench(&o, (const char *[]){"run", path, NULL}), 0);
    ck_assert_ptr_null(strstr(o.out, "by phase"));
    tu_output_free(&o);
    /* ... and in the JSON, the one phase and nulls for the others. */
    char json[1024];
    snprintf(json, sizeof json, "%s", tu_temp_path("nofault.json"));
    ck_assert_int_eq(
        tu_stormbench(&o, (const char *[]){"run", path, "--json", json, NULL}),
        0);
    tu_output_free(&o);
    char *j = tu_read_file(json);
    /* From the default warm-up, 10 s (sim/config.c), to the end. */
    ck_assert_double_eq(tu_json_number(j, "phases.before.from_s"), 10);
    ck_assert_double_eq(tu_json_number(j, "phases.before.to_s"), 20);
    ck_assert(tu_json_is_null(j, "phases.during"));
    ck_assert(tu_json_is_null(j, "phases.after"));
    ck_assert(tu_json_is_null(j, "phases.end"));
    free(j);
}
END_TEST

/* ---- [expect] ----------------------------------------------------------------- */

/* Evaluate one key = value on a summary. */
static expect_result judge(const sim_summary *s, const char *key,
                           const char *value)
{
    setting x;
    memset(&x, 0, sizeof x);
    snprintf(x.key, sizeof x.key, "%s", key);
    snprintf(x.value, sizeof x.value, "%s", value);
    snprintf(x.origin, sizeof x.origin, "test: [expect]");
    expect_set set;
    sb_err e;
    ck_assert_msg(expect_parse(&x, 1, &set, &e) == 0, "%s", e.msg);
    expect_result r[EXPECT_KIND_COUNT];
    ck_assert_int_eq(expect_eval(&set, s, r), 1);
    return r[0];
}

typedef struct verdict_case {
    const char *key, *value;
    bool ok;
    const char *explain;
} verdict_case;

/* On the run worked out by hand above: during faults 0 % succeeded,
 * recovery amplification 9/8 = 1.125, the steady state all succeeded at
 * 8/s (80 % of the baseline 10/s) with p99 100 ms. */
static const verdict_case verdicts[] = {
    {"during_fault_success_min", "0", true,
     "during faults (t = 10-15 s): success ratio 0 % meets the minimum 0 %"},
    {"during_fault_success_min", "0.01", false,
     "during faults (t = 10-15 s): success ratio 0 % is below 1 %"},
    {"recovery_amplification_max", "1.125", true,
     "recovery (t = 15-25 s): amplification 1.125 is within the limit "
     "1.125"},
    {"recovery_amplification_max", "1.12", false,
     "recovery (t = 15-25 s): amplification 1.125 exceeds the limit 1.12"},
    {"steady_success_min", "1", true,
     "steady state (t = 25-30 s): success ratio 100 % meets the minimum "
     "100 %"},
    {"steady_goodput_min", "0.8", true,
     "steady state (t = 25-30 s): goodput 8/s is 80 % of the baseline "
     "10/s, meeting the minimum 80 %"},
    {"steady_goodput_min", "0.81", false,
     "steady state (t = 25-30 s): goodput 8/s is 80 % of the baseline "
     "10/s, below the minimum 81 %"},
    /* 100 ms lies in the bin [2^26 + 7 x 2^22, 2^26 + 8 x 2^22) ns of a
     * 4-bit log histogram (16 bins per power of two): [96.47, 100.66) ms,
     * whose midpoint, 98.57 ms, stands for it. */
    {"steady_latency_p99_max", "104ms", true,
     "steady state (t = 25-30 s): p99 latency 98.57 ms is within the limit "
     "104 ms"},
    {"steady_latency_p99_max", "96ms", false,
     "steady state (t = 25-30 s): p99 latency 98.57 ms exceeds the limit "
     "96 ms"},
};

/* A verdict prints as many digits as it takes to tell the value from the
 * limit: an amplification of 1.00007 against a limit of 1 printed as "1
 * exceeds limit 1" (4 significant digits), and a success ratio of
 * 99.996 % against 100 % as "100.00% is below minimum 100.00%" (2
 * decimals).  One digit more tells them apart: 1.0001 (1.00007 to 5
 * digits) and 99.996; 250.0001 ms needs 7.  Equal numbers keep the
 * usual digits. */
START_TEST(verdicts_print_the_digits_that_differ)
{
    sim_summary s;
    memset(&s, 0, sizeof s);
    s.offered = 100000;
    s.amplification = 1.00007;
    s.success_ratio = 0.99996;
    s.latency_p99_ms = 250.0001;
    expect_result r = judge(&s, "amplification_max", "1");
    ck_assert(!r.ok);
    ck_assert_str_eq(r.explain, "amplification 1.0001 exceeds limit 1");
    r = judge(&s, "success_min", "1");
    ck_assert(!r.ok);
    ck_assert_str_eq(r.explain,
                     "success ratio 99.996% is below minimum 100.000%");
    r = judge(&s, "latency_p99_max", "250ms");
    ck_assert(!r.ok);
    ck_assert_str_eq(r.explain, "p99 latency 250.0001 ms exceeds limit "
                                "250 ms");
    s.amplification = 1.5;
    r = judge(&s, "amplification_max", "1.5");
    ck_assert(r.ok);
    ck_assert_str_eq(r.explain, "amplification 1.5 within limit 1.5");
}
END_TEST

START_TEST(phase_keys_pass_and_fail)
{
    tu_sim *t = run_hand("", "");
    const verdict_case *c = &verdicts[_i];
    expect_result r = judge(&t->sum, c->key, c->value);
    ck_assert_msg(r.ok == c->ok, "%s = %s: %s", c->key, c->value, r.explain);
    ck_assert(r.has_value);
    ck_assert_str_eq(r.explain, c->explain);
    tu_sim_free(t);
}
END_TEST

/* A steady state in which every request fails: every request carries a
 * data defect (422), so none can succeed, in any phase. */
START_TEST(steady_success_min_fails_when_nothing_succeeds)
{
    tu_sim *t = run_hand("defect_fraction = 1\n", "");
    expect_result r = judge(&t->sum, "steady_success_min", "0.5");
    ck_assert(!r.ok);
    ck_assert_double_eq(r.value, 0.0);
    ck_assert_str_eq(r.explain, "steady state (t = 25-30 s): success ratio "
                                "0 % is below 50 %");
    r = judge(&t->sum, "steady_latency_p99_max", "1s");
    ck_assert(!r.ok);
    ck_assert(!r.has_value);
    ck_assert_str_eq(r.explain, "cannot be judged: steady state (t = 25-30 "
                                "s): no request succeeded in it, so there is "
                                "no latency");
    tu_sim_free(t);
}
END_TEST

/* The same through the binary: PASS lines and exit 0, then a FAIL and
 * exit 1. */
START_TEST(phase_keys_through_the_binary)
{
    char ini[sizeof hand_ini + 1024];
    snprintf(ini, sizeof ini, hand_ini, "",
             "[expect]\nsteady_success_min = 0.99\nsteady_goodput_min = 0.8\n"
             "recovery_amplification_max = 1.2\n");
    char path[1024];
    snprintf(path, sizeof path, "%s", tu_write_temp("phases-pass.ini", ini));
    tu_output o;
    ck_assert_int_eq(tu_stormbench(&o, (const char *[]){"run", path, NULL}), 0);
    ck_assert_ptr_nonnull(strstr(o.out, "  PASS  steady_success_min: steady "
                                        "state (t = 25-30 s): success ratio "
                                        "100 % meets the minimum 99 %\n"));
    tu_output_free(&o);
    snprintf(ini, sizeof ini, hand_ini, "",
             "[expect]\nduring_fault_success_min = 0.5\n");
    snprintf(path, sizeof path, "%s", tu_write_temp("phases-fail.ini", ini));
    ck_assert_int_eq(tu_stormbench(&o, (const char *[]){"run", path, NULL}), 1);
    ck_assert_ptr_nonnull(strstr(o.out, "  FAIL  during_fault_success_min: "
                                        "during faults (t = 10-15 s): success "
                                        "ratio 0 % is below 50 %\n"));
    tu_output_free(&o);
}
END_TEST

/* A phase the run does not have fails, and says why. */
START_TEST(missing_phases_cannot_be_judged)
{
    tu_sim *t = tu_sim_run("[scenario]\nname = calm\nduration = 20s\n"
                           "[clients]\ncount = 10\nrate = 1/s\n"
                           "[policy]\nname = none\n",
                           NULL, NULL, 0);
    expect_result r = judge(&t->sum, "steady_success_min", "0.9");
    ck_assert(!r.ok);
    ck_assert_str_eq(r.explain, "cannot be judged: no steady state phase: "
                                "the scenario has no fault, so the run is "
                                "one phase (the whole-run keys judge it)");
    r = judge(&t->sum, "during_fault_success_min", "0.9");
    ck_assert(!r.ok);
    tu_sim_free(t);
    /* The outage moved to 22-27 s: it ends 3 s before the end, inside the
     * last 5 s window. */
    t = tu_sim_run("[scenario]\nname = late\nduration = 30s\n"
                   "recovery_window = 5s\n"
                   "[clients]\ncount = 10\nrate = 1/s\n"
                   "[policy]\nname = none\n"
                   "[fault.out]\ntype = outage\nstart = 22s\n"
                   "duration = 5s\n",
                   NULL, NULL, 0);
    r = judge(&t->sum, "steady_goodput_min", "0.9");
    ck_assert(!r.ok);
    ck_assert_str_eq(r.explain, "cannot be judged: no steady state phase: "
                                "the last fault ends at t = 27 s, 3 s before "
                                "the end of the run, inside the last "
                                "recovery_window");
    r = judge(&t->sum, "recovery_amplification_max", "2");
    ck_assert(r.ok); /* the recovery runs to the end: 27-30 s */
    tu_sim_free(t);
    /* An outage until the end: no recovery either. */
    t = tu_sim_run("[scenario]\nname = end\nduration = 30s\n"
                   "[clients]\ncount = 10\nrate = 1/s\n"
                   "[policy]\nname = none\n"
                   "[fault.out]\ntype = outage\nstart = 20s\n"
                   "duration = 10s\n",
                   NULL, NULL, 0);
    r = judge(&t->sum, "recovery_amplification_max", "2");
    ck_assert(!r.ok);
    ck_assert_str_eq(r.explain, "cannot be judged: no recovery phase: the "
                                "last fault lasts until t = 30 s, the end of "
                                "the run or later");
    tu_sim_free(t);
}
END_TEST

/* ---- Malformed values ------------------------------------------------------ */

static const struct {
    const char *line, *message;
} malformed[] = {
    {"during_fault_success_min = 1.5",
     "during_fault_success_min: expected a share between 0 and 1, or a "
     "percentage from 0% to 100%, got '1.5'"},
    {"during_fault_success_min = 150%",
     "during_fault_success_min: expected a share between 0 and 1, or a "
     "percentage from 0% to 100%, got '150%'"},
    {"recovery_amplification_max = 0.5",
     "recovery_amplification_max: expected a number of at least 1 (attempts "
     "per offered request), got '0.5'"},
    {"steady_success_min = high",
     "steady_success_min: expected a share between 0 and 1, or a percentage "
     "from 0% to 100%, got 'high'"},
    {"steady_goodput_min = -1",
     "steady_goodput_min: expected a share of the baseline goodput between 0 "
     "and 10, or a percentage from 0% to 1000% (0.9 = 90%), got '-1'"},
    {"steady_goodput_min = 1500%",
     "steady_goodput_min: expected a share of the baseline goodput between 0 "
     "and 10, or a percentage from 0% to 1000% (0.9 = 90%), got '1500%'"},
    {"steady_latency_p99_max = 100",
     "steady_latency_p99_max: expected a duration with a unit (ns, us, ms, "
     "s, m, h), such as 250ms or 2s, got '100' (no unit)"},
};

/* Line 12 is the key (after 11 lines: [scenario] 1-3, [clients] 4-6,
 * [server] 7-8, [policy] 9-10, [expect] 11); `run` and `validate` both
 * refuse it with file, line, key and what was expected, exit 2, and
 * nothing on stdout. */
START_TEST(malformed_phase_keys_are_refused)
{
    char ini[512];
    snprintf(ini, sizeof ini,
             "[scenario]\nname = t\nduration = 60s\n"
             "[clients]\ncount = 10\nrate = 1/s\n"
             "[server]\nworkers = 2\n"
             "[policy]\nname = none\n"
             "[expect]\n%s\n",
             malformed[_i].line);
    char path[1024];
    snprintf(path, sizeof path, "%s", tu_write_temp("bad-phase.ini", ini));
    static const char *const cmds[] = {"run", "validate"};
    for (int c = 0; c < 2; c++) {
        tu_output o;
        ck_assert_int_eq(
            tu_stormbench(&o, (const char *[]){cmds[c], path, NULL}), 2);
        char want[1024];
        /* validate reports problems as a list: no program prefix. */
        snprintf(want, sizeof want, "%s%s:12: [expect] %s\n",
                 c == 0 ? "stormbench run: " : "", path, malformed[_i].message);
        ck_assert_str_eq(o.err, want);
        ck_assert_str_eq(o.out, "");
        tu_output_free(&o);
    }
}
END_TEST

/* Every share key (expect.h: a share or ratio 0..1) takes "50%" as 0.5,
 * the way the verdicts print it, and a plain 0.5 as before; "150%" is
 * refused with the range.  steady_goodput_min's range is 0..10, so 150%
 * (1.5 x the baseline) is a limit it takes. */
static const char *const share_keys[] = {
    "success_min",         "unfinished_max",
    "wasted_max",          "during_fault_success_min",
    "steady_success_min",  "steady_goodput_min",
    "jobs_completed_min",  "jobs_failed_max",
    "jobs_within_sla_min",
};

static int parse_one(const char *key, const char *value, expect_set *set,
                     sb_err *e)
{
    setting x;
    memset(&x, 0, sizeof x);
    snprintf(x.key, sizeof x.key, "%s", key);
    snprintf(x.value, sizeof x.value, "%s", value);
    snprintf(x.origin, sizeof x.origin, "test: [expect]");
    return expect_parse(&x, 1, set, e);
}

START_TEST(share_keys_take_percentages)
{
    const char *key = share_keys[_i];
    expect_kind k;
    ck_assert_int_eq(expect_parse_name(key, &k), 0);
    expect_set set;
    sb_err e;
    ck_assert_msg(parse_one(key, "50%", &set, &e) == 0, "%s", e.msg);
    ck_assert_double_eq(set.limit[k], 0.5);
    ck_assert_msg(parse_one(key, "99.5 %", &set, &e) == 0, "%s", e.msg);
    ck_assert_double_eq_tol(set.limit[k], 0.995, 1e-15);
    ck_assert_msg(parse_one(key, "0.25", &set, &e) == 0, "%s", e.msg);
    ck_assert_double_eq(set.limit[k], 0.25);
    int rc = parse_one(key, "150%", &set, &e);
    if (k == EXPECT_STEADY_GOODPUT_MIN) {
        ck_assert_int_eq(rc, 0);
        ck_assert_double_eq(set.limit[k], 1.5);
        return;
    }
    ck_assert_int_eq(rc, -1);
    char want[256];
    snprintf(want, sizeof want,
             "test: [expect] %s: expected a share "
             "between 0 and 1, or a percentage from 0%% to 100%%, got "
             "'150%%'",
             key);
    ck_assert_str_eq(e.msg, want);
    ck_assert_int_eq(parse_one(key, "-1%", &set, &e), -1);
}
END_TEST

/* The binary: a percentage in a scenario's [expect] is judged as the
 * share it means.  The run of 60 s with no fault and 2 workers for 10
 * clients at 1/s each succeeds in full: 100 % against a minimum of 50 %
 * (were "50%" read as 50, it would be refused or fail). */
START_TEST(percentages_through_the_binary)
{
    const char *ini = "[scenario]\nname = t\nduration = 60s\n"
                      "[clients]\ncount = 10\nrate = 1/s\n"
                      "[server]\nworkers = 2\n"
                      "[policy]\nname = none\n"
                      "[expect]\nsuccess_min = 50%\n";
    char path[1024];
    snprintf(path, sizeof path, "%s", tu_write_temp("pct-expect.ini", ini));
    tu_output o;
    ck_assert_int_eq(tu_stormbench(&o, (const char *[]){"run", path, NULL}), 0);
    ck_assert_msg(strstr(o.out, "PASS  success_min: success ratio "
                                "100.00% meets minimum 50.00%") != NULL,
                  "%s", o.out);
    tu_output_free(&o);
}
END_TEST

Suite *phases_suite(void)
{
    Suite *s = suite_create("phases");
    TCase *tc = tcase_create("spans");
    tcase_add_loop_test(tc, spans_by_hand, 0,
                        (int)(sizeof spans / sizeof *spans));
    tcase_add_test(tc, a_fault_inside_buckets_takes_them_whole);
    suite_add_tcase(s, tc);
    tc = tcase_create("figures");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, figures_by_hand);
    tcase_add_test(tc, figures_match_the_csv);
    tcase_add_test(tc, summary_prints_the_phases);
    suite_add_tcase(s, tc);
    tc = tcase_create("expect");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, phase_keys_pass_and_fail, 0,
                        (int)(sizeof verdicts / sizeof *verdicts));
    tcase_add_test(tc, steady_success_min_fails_when_nothing_succeeds);
    tcase_add_test(tc, verdicts_print_the_digits_that_differ);
    tcase_add_test(tc, phase_keys_through_the_binary);
    tcase_add_test(tc, missing_phases_cannot_be_judged);
    tcase_add_loop_test(tc, malformed_phase_keys_are_refused, 0,
                        (int)(sizeof malformed / sizeof *malformed));
    tcase_add_loop_test(tc, share_keys_take_percentages, 0,
                        (int)(sizeof share_keys / sizeof *share_keys));
    tcase_add_test(tc, percentages_through_the_binary);
    suite_add_tcase(s, tc);
    return s;
}
