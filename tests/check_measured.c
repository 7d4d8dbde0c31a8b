/*
 * check_measured.c -- latencies and histograms read from files
 * (base/measured.h): the quantiles and means each file gives, worked by
 * hand from the file; the scenario keys that use them, with paths
 * relative to the scenario and written back so the saved file runs the
 * same; bad files refused at their line; and a run whose service times
 * come from Prometheus' documentation histogram showing its quantiles.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measured.h"
#include "scenario.h"
#include "testutil.h"
#include "units.h"
#include "writer.h"

#define DATA(f) TU_SOURCE("tests/data/" f)

static const measured *values(const char *file, const char *col,
                              const char *unit)
{
    const measured *t = NULL;
    sb_err e;
    int rc = measured_values(file, col, unit, &t, &e);
    ck_assert_msg(rc == 0, "%s", e.msg);
    return t;
}

static const measured *hist(const char *file, const char *sel)
{
    const measured *t = NULL;
    sb_err e;
    int rc = measured_histogram(file, sel, NULL, &t, &e);
    ck_assert_msg(rc == 0, "%s", e.msg);
    return t;
}

/* latencies.txt: 10, 20, 20, 50, 100 ms (sorted); bare numbers are
 * seconds.  Mean 200 / 5 = 40 ms.  Each value is drawn with probability
 * 1/5: u in [0, 0.2) gives 10 ms, [0.4, 0.6) the second 20 ms, [0.8, 1)
 * 100 ms. */
START_TEST(values_one_a_line)
{
    const measured *t = values(DATA("latencies.txt"), NULL, NULL);
    ck_assert_uint_eq(measured_count(t), 5);
    ck_assert_double_eq_tol(measured_mean(t), 40e6, 1e-6);
    ck_assert_int_eq(measured_at(t, 0.0), 10 * NS_PER_MS);
    ck_assert_int_eq(measured_at(t, 0.199), 10 * NS_PER_MS);
    ck_assert_int_eq(measured_at(t, 0.2), 20 * NS_PER_MS);
    ck_assert_int_eq(measured_at(t, 0.5), 20 * NS_PER_MS);
    ck_assert_int_eq(measured_at(t, 0.79), 50 * NS_PER_MS);
    ck_assert_int_eq(measured_at(t, 0.999999), 100 * NS_PER_MS);
    /* Read once: the same file and arguments give the same table. */
    ck_assert_ptr_eq(values(DATA("latencies.txt"), NULL, NULL), t);
}
END_TEST

/* access.csv's duration_ms column, by name and by number, in ms: 12, 8
 * (quoted), 30, 10: mean 15 ms, sorted 8, 10, 12, 30. */
START_TEST(values_from_a_csv_column)
{
    const measured *a = values(DATA("access.csv"), "duration_ms", "ms");
    ck_assert_uint_eq(measured_count(a), 4);
    ck_assert_double_eq_tol(measured_mean(a), 15e6, 1e-6);
    ck_assert_int_eq(measured_at(a, 0.0), 8 * NS_PER_MS);
    ck_assert_int_eq(measured_at(a, 0.9), 30 * NS_PER_MS);
    /* By number every line is data: the header line is an error. */
    const measured *t;
    sb_err e;
    ck_assert_int_ne(measured_values(DATA("access.csv"), "4", "ms", &t, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "access.csv:1: expected a latency"));
    ck_assert_int_ne(
        measured_values(DATA("access.csv"), "latency", "ms", &t, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "access.csv:1: the header has no "
                                        "column 'latency'"));
}
END_TEST

/* Prometheus' documentation histogram (tests/data/prometheus-histogram.txt,
 * from "Exposition formats"): buckets 0.05, 0.1, 0.2, 0.5, 1 s holding
 * 24054, 33444, 100392, 129389, 133988 of 144320 requests, cumulative.
 * histogram_quantile (Prometheus docs, "Functions") interpolates
 * linearly within the bucket the rank falls in, the lowest starting at 0:
 *   q 0.5: rank 72160 in (0.1, 0.2]: 0.1 + 0.1 (72160 - 33444) / 66948
 *          = 0.157830 s;
 *   q 0.9: rank 129888 in (0.5, 1]: 0.5 + 0.5 (129888 - 129389) / 4599
 *          = 0.554251 s;
 *   q 0.99: rank 142877, above the 1 s bucket's 133988: the +Inf bucket,
 *          answered with the highest finite bound, 1 s;
 *   q 0.1: rank 14432 in (0, 0.05]: 0.05 x 14432 / 24054 = 0.029999 s.
 * Mean: each bucket's midpoint by its count, the 10332 above 1 s at 1 s:
 *   (24054 x 0.025 + 9390 x 0.075 + 66948 x 0.15 + 28997 x 0.35
 *    + 4599 x 0.75 + 10332 x 1) / 144320 = 35278 / 144320 = 0.244443 s.
 * (The file's _sum / _count, 0.370 s, is higher: the +Inf bucket's
 * requests took longer than 1 s, and no bucket says how much.) */
START_TEST(prometheus_histogram_quantiles)
{
    const measured *t = hist(DATA("prometheus-histogram.txt"), NULL);
    ck_assert_uint_eq(measured_count(t), 5);
    ck_assert_double_eq_tol(measured_at(t, 0.5) / 1e9, 0.157830, 1e-6);
    ck_assert_double_eq_tol(measured_at(t, 0.9) / 1e9, 0.554251, 1e-6);
    ck_assert_int_eq(measured_at(t, 0.99), NS_PER_S);
    ck_assert_double_eq_tol(measured_at(t, 0.1) / 1e9, 0.029999, 1e-6);
    ck_assert_double_eq_tol(measured_mean(t) / 1e9, 35278.0 / 144320, 1e-9);
}
END_TEST

/* two-histograms.txt: db_query_milliseconds (ms by its name) in two
 * series, added by le: 8, 18, 20.  Median: rank 10 in (10, 20]:
 * 10 + 10 x (10 - 8) / 10 = 12 ms; mean (8 x 5 + 10 x 15 + 2 x 20) / 20
 * = 11.5 ms.  The orders series alone: 2, 8, 10: mean (2 x 5 + 6 x 15 +
 * 2 x 20) / 10 = 14 ms. */
START_TEST(histogram_selected_and_added)
{
    const measured *t;
    sb_err e;
    ck_assert_int_ne(
        measured_histogram(DATA("two-histograms.txt"), NULL, NULL, &t, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "several histograms "
                                        "(db_query_milliseconds, "
                                        "cache_seconds)"));
    t = hist(DATA("two-histograms.txt"), "db_query_milliseconds");
    ck_assert_int_eq(measured_at(t, 0.5), 12 * NS_PER_MS);
    ck_assert_double_eq_tol(measured_mean(t), 11.5e6, 1e-6);
    t = hist(DATA("two-histograms.txt"),
             "db_query_milliseconds{table=\"orders\"}");
    ck_assert_double_eq_tol(measured_mean(t), 14e6, 1e-6);
    ck_assert_int_ne(measured_histogram(DATA("two-histograms.txt"),
                                        "http_seconds", NULL, &t, &e),
                     0);
    ck_assert_ptr_nonnull(strstr(e.msg, "no histogram matches "
                                        "'http_seconds'; the file has "
                                        "db_query_milliseconds, "
                                        "cache_seconds"));
}
END_TEST

/* Bad files name their line and say what was expected. */
START_TEST(bad_files_name_their_line)
{
    static const struct {
        const char *text, *want;
        bool histogram;
    } cases[] = {
        {"0.1\n0.2\nfast\n", "bad.txt:3: expected a latency", false},
        {"0.1\n-0.2\n", "bad.txt:2: expected a latency", false},
        {"# nothing\n\n", "bad.txt: no latencies in the file", false},
        {"h_bucket{le=\"0.1\"} 5\nh_bucket{le=\"0.2\"} 3\n"
         "h_bucket{le=\"+Inf\"} 9\n",
         "bad.txt:2: bucket le=\"0.2\" counts 3, fewer than the 5", true},
        {"h_bucket{le=\"0.1\"} 5\n", "bad.txt:1: h{} has no le=\"+Inf\"", true},
        {"h_bucket{le=\"0.1\" 5\n", "bad.txt:1: expected labels", true},
        {"h_bucket{le=\"0.1\"} five\n",
         "bad.txt:1: expected a sample "
         "value",
         true},
        {"h_bucket{le=\"-1\"} 5\n", "bad.txt:1: expected le", true},
        {"h_bucket{le=\"+Inf\"} 0\n", "counts nothing", true},
        {"x 1\n", "bad.txt: no histogram (no _bucket samples)", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32], p[1024];
        snprintf(name, sizeof name, "%zu-bad.txt", i);
        snprintf(p, sizeof p, "%s", tu_write_temp(name, cases[i].text));
        const measured *t;
        sb_err e;
        int rc = cases[i].histogram ? measured_histogram(p, NULL, NULL, &t, &e)
                                    : measured_values(p, NULL, NULL, &t, &e);
        ck_assert_int_ne(rc, 0);
        ck_assert_msg(strstr(e.msg, cases[i].want) != NULL,
                      "case %zu: '%s' lacks '%s'", i, e.msg, cases[i].want);
        remove(p);
    }
}
END_TEST

/* A copy of a data file beside the scenario; returns its name there. */
static const char *copy_beside(const char *file, const char *name)
{
    char *text = tu_read_file(file);
    ck_assert_ptr_nonnull(text);
    const char *p = tu_write_temp(name, text);
    free(text);
    const char *slash = strrchr(p, '/');
    return slash + 1;
}

/* The scenario's files are relative to it; the writer writes them back
 * absolute, and the saved file loads the same tables (the same config,
 * byte for byte). */
START_TEST(scenario_keys_and_writer)
{
    char h[256], l[256], ini_text[1024], ini[1024], saved[1024];
    snprintf(h, sizeof h, "%s",
             copy_beside(DATA("prometheus-histogram.txt"), "hist.txt"));
    snprintf(l, sizeof l, "%s", copy_beside(DATA("latencies.txt"), "l.txt"));
    snprintf(ini_text, sizeof ini_text,
             "[scenario]\nname = measured\nduration = 20s\n"
             "[server]\nservice = histogram(%s)\n"
             "network_delay = empirical(%s)\n",
             h, l);
    snprintf(ini, sizeof ini, "%s", tu_write_temp("m.ini", ini_text));
    snprintf(saved, sizeof saved, "%s", tu_temp_path("saved.ini"));
    scenario a, b;
    sb_err e;
    int rc = scenario_load(ini, NULL, 0, &a, &e);
    ck_assert_msg(rc == 0, "%s", e.msg);
    ck_assert_int_eq(a.cfg.server.service.kind, DIST_HISTOGRAM);
    ck_assert_int_eq(a.cfg.server.network.kind, DIST_EMPIRICAL);
    ck_assert_int_eq(a.cfg.server.network.mean_ns, 40 * NS_PER_MS);
    FILE *f = fopen(saved, "w");
    ck_assert_ptr_nonnull(f);
    writer_extra x = {.policy = "none"};
    ck_assert_int_eq(scenario_write(f, &a.cfg, &x, &e), 0);
    fclose(f);
    char *text = tu_read_file(saved);
    ck_assert_ptr_nonnull(strstr(text, "service = histogram(/"));
    ck_assert_ptr_nonnull(strstr(text, "-l.txt)"));
    free(text);
    rc = scenario_load(saved, NULL, 0, &b, &e);
    ck_assert_msg(rc == 0, "%s", e.msg);
    ck_assert(memcmp(&a.cfg.server, &b.cfg.server, sizeof a.cfg.server) == 0);
    /* A bad file: the scenario's key, then the file's line. */
    const char *sets[] = {
        "server.service=empirical(" DATA("access.csv") ", 4)"};
    ck_assert_int_ne(scenario_load(saved, sets, 1, &b, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "[server] service: "));
    ck_assert_ptr_nonnull(strstr(e.msg, "access.csv:1: expected a latency"));
}
END_TEST

/* A run whose service times are drawn from Prometheus' documentation
 * histogram, with unlimited workers and no network delay, so a request's
 * latency is its service time: 200 000 requests.  The run's quantiles
 * are histogram_quantile's (prometheus_histogram_quantiles: p50
 * 157.83 ms, p99 1 s) within the latency histogram's 3.2 % bins
 * (base/histogram.h) and the sample's noise (p50: sqrt(0.25 / n) /
 * density 4.64/s = 0.24 ms); the mean is 244.44 ms within 4 standard
 * errors, sd 0.2606 s / sqrt(n) = 0.58 ms each. */
START_TEST(run_draws_from_a_histogram)
{
    char ini_text[1024], ini[1024], json[1024];
    snprintf(ini_text, sizeof ini_text,
             "[scenario]\nname = measured-run\nduration = 2000s\n"
             "warmup = 0s\nseed = 3\n"
             "[clients]\ncount = 100\nrate = 1/s\ntimeout = 10s\n"
             "[server]\nworkers = unlimited\nservice = histogram(%s)\n"
             "[policy]\nname = none\n",
             DATA("prometheus-histogram.txt"));
    snprintf(ini, sizeof ini, "%s", tu_write_temp("run.ini", ini_text));
    snprintf(json, sizeof json, "%s", tu_temp_path("run.json"));
    tu_output o;
    const char *a[] = {"run", ini, "--json", json, "--no-expect", NULL};
    ck_assert_int_eq(tu_stormbench(&o, a), 0);
    tu_output_free(&o);
    char *j = tu_read_file(json);
    ck_assert_ptr_nonnull(j);
    double n = tu_json_number(j, "successes");
    ck_assert_double_gt(n, 190000);
    double se = 260.6 / sqrt(n);
    ck_assert_double_eq_tol(tu_json_number(j, "latency_ms.mean"), 244.443,
                            4 * se);
    ck_assert_double_eq_tol(tu_json_number(j, "latency_ms.p50"), 157.83,
                            157.83 * 0.032 + 1.0);
    ck_assert_double_eq_tol(tu_json_number(j, "latency_ms.p99"), 1000.0,
                            1000.0 * 0.032);
    free(j);
    /* A bad file stops the run: exit 2, the scenario's key and the
     * file's line. */
    const char *b[] = {"run", ini, "--set",
                       "server.service=histogram(" DATA("latencies.txt") ")",
                       NULL};
    ck_assert_int_eq(tu_stormbench(&o, b), 2);
    ck_assert_ptr_nonnull(strstr(o.err, "[server] service: "));
    ck_assert_ptr_nonnull(strstr(o.err, "latencies.txt:3: expected a "
                                        "sample"));
    tu_output_free(&o);
}
END_TEST

/* The "Done when": a latency histogram and an arrival trace drive
 * one run whose moments match.  The trace: 20 000 requests, one every
 * 50 ms (0, 0.05, ... 999.95 s); the service: the Prometheus
 * documentation histogram, workers unlimited, no network delay, no
 * retries.  Every request of the trace is offered, exactly (20 000:
 * 20/s over 1000 s); the successes' mean latency is the histogram's mean,
 * 244.44 ms, within 4 standard errors (sd 260.6 ms / sqrt(n), n about
 * 20 000: 1.84 ms each); p50 its 157.83 ms within the latency bins'
 * 3.2 % and the sample's noise (sqrt(0.25 / n) / 4.64/s = 0.8 ms). */
START_TEST(trace_and_histogram_drive_one_run)
{
    size_t cap = 20000 * 16;
    char *times = malloc(cap), ini_text[2048], ini[1024], json[1024];
    ck_assert_ptr_nonnull(times);
    size_t used = 0;
    for (int i = 0; i < 20000; i++)
        used += (size_t)snprintf(times + used, cap - used, "%d.%02d\n", i / 20,
                                 (i % 20) * 5);
    char trace[1024];
    snprintf(trace, sizeof trace, "%s", tu_write_temp("every-50ms.txt", times));
    free(times);
    snprintf(ini_text, sizeof ini_text,
             "[scenario]\nname = trace-histogram\nduration = 1100s\n"
             "warmup = 0s\nseed = 5\n"
             "[clients]\ncount = 100\narrival = trace(%s)\ntimeout = 20s\n"
             "[server]\nworkers = unlimited\nservice = histogram(%s)\n"
             "[policy]\nname = none\n",
             trace, DATA("prometheus-histogram.txt"));
    snprintf(ini, sizeof ini, "%s", tu_write_temp("trace-hist.ini", ini_text));
    snprintf(json, sizeof json, "%s", tu_temp_path("trace-hist.json"));
    tu_output o;
    const char *a[] = {"run", ini, "--json", json, "--no-expect", NULL};
    ck_assert_int_eq(tu_stormbench(&o, a), 0);
    tu_output_free(&o);
    char *j = tu_read_file(json);
    ck_assert_ptr_nonnull(j);
    ck_assert_double_eq(tu_json_number(j, "offered"), 20000);
    ck_assert_double_eq(tu_json_number(j, "attempts"), 20000);
    double n = tu_json_number(j, "successes");
    ck_assert_double_gt(n, 0.95 * 20000);
    double se = 260.6 / sqrt(n);
    ck_assert_double_eq_tol(tu_json_number(j, "latency_ms.mean"), 244.443,
                            4 * se);
    ck_assert_double_eq_tol(tu_json_number(j, "latency_ms.p50"), 157.83,
                            157.83 * 0.032 + 4 * 0.8);
    free(j);
}
END_TEST

Suite *measured_suite(void)
{
    Suite *s = suite_create("measured");
    TCase *tc = tcase_create("files");
    tcase_add_test(tc, values_one_a_line);
    tcase_add_test(tc, values_from_a_csv_column);
    tcase_add_test(tc, prometheus_histogram_quantiles);
    tcase_add_test(tc, trace_and_histogram_drive_one_run);
    tcase_add_test(tc, histogram_selected_and_added);
    tcase_add_test(tc, bad_files_name_their_line);
    tcase_add_test(tc, scenario_keys_and_writer);
    suite_add_tcase(s, tc);
    TCase *run = tcase_create("run");
    tcase_set_timeout(run, 60);
    tcase_add_test(run, run_draws_from_a_histogram);
    suite_add_tcase(s, run);
    return s;
}
