/*
 * check_trace.c -- `stormbench run --trace FILE [--trace-sample N]`: the
 * JSON lines it writes, read back and checked against what the scenario
 * must produce.
 *
 * The main scenario: 3 clients, 200 ms attempt timeouts, `fixed` 300 ms x
 * 3 attempts, and a latency fault adding 1 s to every answer for the first
 * 2 s.  So during the fault every attempt times out; after it every
 * attempt succeeds in 1 + 10 + 1 ms; requests that straddle its end time
 * out, then succeed.  Every traced request must read as a well-formed
 * story: send 1, result 1, (send k, result k)..., end, with the times and
 * numbers those rules give.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define EXAMPLE SB_BUILD_DIR "/policies/examples/libcapped_backoff.so"

/* One trace line, parsed.  Absent numbers are NAN, absent strings "". */
typedef struct tline {
    double t, delay, latency, elapsed, retry_after;
    long client, request, attempt, status;
    char event[8], op[8], error[16], cls[24], conf[8], decision[16];
    char reason[96], layer[32], outcome[16];
} tline;

#define MAX_LINES 20000

static tline *lines;
static int n_lines;
static char json_path[1024], trace_path[1024];

/* After "key": in line, or NULL. */
static const char *value_of(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(line, pat);
    return p ? p + strlen(pat) : NULL;
}

static double num(const char *line, const char *key)
{
    const char *p = value_of(line, key);
    return p ? strtod(p, NULL) : NAN;
}

static void str(const char *line, const char *key, char *out, size_t len)
{
    const char *p = value_of(line, key);
    out[0] = '\0';
    if (p == NULL || *p != '"')
        return;
    const char *end = strchr(p + 1, '"');
    ck_assert_ptr_nonnull(end);
    snprintf(out, len, "%.*s", (int)(end - p - 1), p + 1);
}

static void parse_line(const char *s, tline *l)
{
    /* The fields every line has. */
    const char *always[] = {"t_s",   "client",  "request",
                            "event", "attempt", "op"};
    for (size_t i = 0; i < sizeof always / sizeof *always; i++)
        ck_assert_msg(value_of(s, always[i]), "no %s in %s", always[i], s);
    l->t = num(s, "t_s");
    l->client = (long)num(s, "client");
    l->request = (long)num(s, "request");
    l->attempt = (long)num(s, "attempt");
    l->delay = num(s, "delay_s");
    l->latency = num(s, "latency_s");
    l->elapsed = num(s, "elapsed_s");
    l->retry_after = num(s, "retry_after_s");
    double st = num(s, "status");
    l->status = isnan(st) ? 0 : (long)st;
    str(s, "event", l->event, sizeof l->event);
    str(s, "op", l->op, sizeof l->op);
    str(s, "error", l->error, sizeof l->error);
    str(s, "class", l->cls, sizeof l->cls);
    str(s, "confidence", l->conf, sizeof l->conf);
    str(s, "decision", l->decision, sizeof l->decision);
    str(s, "reason", l->reason, sizeof l->reason);
    str(s, "layer", l->layer, sizeof l->layer);
    str(s, "outcome", l->outcome, sizeof l->outcome);
}

static void read_trace(void)
{
    char *text = tu_read_file(trace_path);
    ck_assert_ptr_nonnull(text);
    free(lines);
    lines = calloc(MAX_LINES, sizeof *lines);
    n_lines = 0;
    for (char *save = NULL, *s = strtok_r(text, "\n", &save); s;
         s = strtok_r(NULL, "\n", &save)) {
        ck_assert_int_lt(n_lines, MAX_LINES);
        ck_assert_msg(s[0] == '{' && s[strlen(s) - 1] == '}',
                      "not a JSON "
                      "object: %s",
                      s);
        parse_line(s, &lines[n_lines++]);
    }
    free(text);
}

/* Run ini with a trace (sampling 1 in `sample`) and a JSON summary. */
static void run_traced(const char *ini, const char *const *extra, int sample)
{
    const char *p = tu_write_temp("trace.ini", ini);
    char ini_path[1024];
    snprintf(ini_path, sizeof ini_path, "%s", p);
    snprintf(trace_path, sizeof trace_path, "%s", tu_temp_path("trace.jsonl"));
    snprintf(json_path, sizeof json_path, "%s", tu_temp_path("trace.json"));
    char n[16];
    snprintf(n, sizeof n, "%d", sample);
    const char *argl[24] = {"run",      ini_path,         "--trace",
                            trace_path, "--trace-sample", n,
                            "--json",   json_path,        "-q"};
    int k = 9;
    for (int i = 0; extra && extra[i]; i++)
        argl[k++] = extra[i];
    argl[k] = NULL;
    tu_output o;
    int rc = tu_stormbench(&o, argl);
    ck_assert_msg(rc == EXIT_OK, "exit %d: %s", rc, o.err);
    tu_output_free(&o);
    read_trace();
}

static double summary_number(const char *key)
{
    char *json = tu_read_file(json_path);
    ck_assert_ptr_nonnull(json);
    double v = tu_json_number(json, key);
    free(json);
    return v;
}

static void teardown(void)
{
    free(lines);
    lines = NULL;
    n_lines = 0;
}

/* The lines of one request, in file order. */
static int request_lines(long client, long request, const tline **out, int max)
{
    int n = 0;
    for (int i = 0; i < n_lines && n < max; i++)
        if (lines[i].client == client && lines[i].request == request)
            out[n++] = &lines[i];
    return n;
}

#define TIME_EPS 2e-6 /* times are printed to the microsecond */

/* Check one request's story; returns its number of lines.  `timeout` is
 * the scenario's attempt timeout. */
static int check_story(const tline *first, double timeout)
{
    const tline *l[64];
    int n = request_lines(first->client, first->request, l, 64);
    ck_assert_str_eq(l[0]->event, "send");
    ck_assert_int_eq(l[0]->attempt, 1);
    for (int i = 0; i < n; i++) {
        const tline *x = l[i];
        if (i > 0)
            ck_assert_double_ge(x->t, l[i - 1]->t);
        if (strcmp(x->event, "end") == 0) {
            ck_assert_int_eq(i, n - 1); /* nothing after the end */
            ck_assert_double_eq_tol(x->elapsed, (x->t - l[0]->t), TIME_EPS);
            ck_assert_int_eq(x->attempt, l[i - 1]->attempt);
            continue;
        }
        if (strcmp(x->event, "send") == 0) {
            ck_assert_int_eq(x->attempt, 1 + i / 2);
            if (strcmp(x->decision, "refuse") == 0) {
                ck_assert_str_ne(x->reason, "");
                continue;
            }
            ck_assert_str_eq(x->decision, "send");
            if (i > 0) { /* a retry: the previous result's delay later */
                ck_assert_str_eq(l[i - 1]->decision, "retry");
                ck_assert_double_eq_tol((x->t - l[i - 1]->t), l[i - 1]->delay,
                                        TIME_EPS);
            }
            continue;
        }
        ck_assert_str_eq(x->event, "result");
        ck_assert_str_eq(l[i - 1]->event, "send");
        ck_assert_int_eq(x->attempt, l[i - 1]->attempt);
        ck_assert_double_eq_tol(x->latency, (x->t - l[i - 1]->t), TIME_EPS);
        if (strcmp(x->error, "none") == 0) {
            ck_assert_str_eq(x->decision, "");
            ck_assert_str_eq(x->cls, "");
            ck_assert_msg(i + 1 == n ||
                              strcmp(l[i + 1]->outcome, "success") == 0,
                          "a success not followed by its end");
            continue;
        }
        /* A failure: its class and the policy's decision, with reason. */
        ck_assert_str_ne(x->cls, "");
        ck_assert_str_ne(x->conf, "");
        ck_assert_str_ne(x->decision, "");
        ck_assert_str_ne(x->reason, "");
        if (strcmp(x->error, "timeout") == 0)
            ck_assert_double_le(x->latency, timeout + TIME_EPS);
        if (strcmp(x->decision, "retry") == 0)
            ck_assert(x->delay >= 0);
        else
            ck_assert(isnan(x->delay)); /* no delay_s unless a retry */
    }
    return n;
}

static const char latency_ini[] =
    "[scenario]\nname = trace\nduration = 4s\nwarmup = 1s\nseed = 3\n"
    "[clients]\ncount = 3\nrate = 2/s\ntimeout = 200ms\n"
    "[server]\nworkers = 4\nservice = const(10ms)\n"
    "network_delay = const(1ms)\n"
    "[policy]\nname = fixed\ndelay = 300ms\nmax_attempts = 3\n"
    "[fault.slow]\ntype = latency\nstart = 0s\nduration = 2s\n"
    "delay = 1s\n";

/* Every traced request reads as a well-formed story, and the two stories
 * this scenario must contain are there with their hand-computed times:
 *   timeout then success: 200 ms timeout + 300 ms delay + 12 ms = 512 ms;
 *   three timeouts:       3 x 200 ms + 2 x 300 ms = 1.2 s, gave_up.
 * The failure lines carry error, class, confidence, decision, delay,
 * reason and layer as the policy gave them. */
START_TEST(every_request_tells_its_story)
{
    run_traced(latency_ini, NULL, 1);
    ck_assert_int_gt(n_lines, 20);
    int stories = 0, recovered = 0, exhausted = 0;
    for (int i = 0; i < n_lines; i++) {
        if (i > 0)
            ck_assert_double_ge(lines[i].t, lines[i - 1].t);
        if (strcmp(lines[i].event, "send") != 0 || lines[i].attempt != 1)
            continue;
        stories++;
        check_story(&lines[i], 0.2);
        const tline *l[64];
        int n = request_lines(lines[i].client, lines[i].request, l, 64);
        if (n == 5 && strcmp(l[1]->error, "timeout") == 0 &&
            strcmp(l[3]->error, "none") == 0) {
            recovered++;
            ck_assert_str_eq(l[1]->cls, "transient");
            ck_assert_str_eq(l[1]->conf, "high");
            ck_assert_str_eq(l[1]->decision, "retry");
            ck_assert_double_eq_tol(l[1]->delay, 0.3, 1e-9);
            ck_assert_str_eq(l[1]->reason, "fixed delay");
            ck_assert_str_eq(l[1]->layer, "fixed");
            ck_assert_double_eq_tol(l[1]->latency, 0.2, 1e-9);
            ck_assert_int_eq(l[2]->attempt, 2);
            ck_assert_double_eq_tol(l[3]->latency, 0.012, 1e-9);
            ck_assert_str_eq(l[4]->outcome, "success");
            ck_assert_double_eq_tol(l[4]->elapsed, 0.512, 1e-9);
        }
        if (n == 7 && strcmp(l[6]->outcome, "gave_up") == 0) {
            exhausted++;
            ck_assert_str_eq(l[5]->decision, "give_up");
            ck_assert_str_eq(l[5]->reason, "max_attempts reached");
            ck_assert_int_eq(l[6]->attempt, 3);
            ck_assert_double_eq_tol(l[6]->elapsed, 1.2, 1e-9);
        }
    }
    /* Every request of the run is traced (1 in 1). */
    ck_assert_int_eq(stories, (int)summary_number("offered"));
    ck_assert_int_gt(recovered, 0);
    ck_assert_int_gt(exhausted, 0);
}
END_TEST

/* 1 in N: requests are numbered in arrival order across clients and
 * request k is traced when k mod N = 0, so ceil(offered / N) of them. */
START_TEST(sampling_one_in_n)
{
    for (int sample = 2; sample <= 5; sample += 3) {
        run_traced(latency_ini, NULL, sample);
        int stories = 0;
        for (int i = 0; i < n_lines; i++)
            if (strcmp(lines[i].event, "send") == 0 && lines[i].attempt == 1) {
                stories++;
                check_story(&lines[i], 0.2);
            }
        int offered = (int)summary_number("offered");
        ck_assert_int_eq(stories, (offered + sample - 1) / sample);
    }
}
END_TEST

/* HTTP errors carry their status and Retry-After; a policy that never
 * retries gives up with its own reason, and no delay. */
START_TEST(http_error_fields)
{
    static const char ini[] =
        "[scenario]\nname = trace-http\nduration = 3s\nwarmup = 1s\n"
        "[clients]\ncount = 2\nrate = 5/s\ntimeout = 1s\n"
        "[server]\nworkers = 4\nservice = const(10ms)\n"
        "[policy]\nname = none\n"
        "[fault.busy]\ntype = errors\nstart = 0s\nduration = 3s\n"
        "status = 503\nretry_after = 2s\nprobability = 1\n";
    run_traced(ini, NULL, 1);
    int results = 0;
    for (int i = 0; i < n_lines; i++) {
        const tline *l = &lines[i];
        if (strcmp(l->event, "result") != 0)
            continue;
        results++;
        check_story(l, 1.0);
        ck_assert_str_eq(l->error, "http");
        ck_assert_int_eq(l->status, 503);
        ck_assert_double_eq_tol(l->retry_after, 2.0, 1e-9);
        ck_assert_str_eq(l->cls, "transient");
        ck_assert_str_eq(l->decision, "give_up");
        ck_assert_str_eq(l->reason, "none: never retries");
        ck_assert_str_eq(l->layer, "none");
        ck_assert(isnan(l->delay));
        ck_assert_str_eq(lines[i + 1].outcome, "gave_up");
    }
    ck_assert_int_gt(results, 5);
}
END_TEST

/* A send refused by the policy is traced with its reason, and the
 * request ends "refused".  The example plug-in with shed_after = 1 sheds
 * every retry once its client has seen one failure; a refusing outage
 * gives it one at once. */
START_TEST(refused_send_has_its_reason)
{
    static const char ini[] =
        "[scenario]\nname = trace-shed\nduration = 3s\nwarmup = 1s\n"
        "[clients]\ncount = 2\nrate = 5/s\ntimeout = 1s\n"
        "[server]\nworkers = 4\nservice = const(10ms)\n"
        "[policy]\nname = capped_backoff\nplugin = " EXAMPLE "\n"
        "shed_after = 1\n"
        "[fault.down]\ntype = outage\nstart = 0s\nduration = 3s\n"
        "mode = refuse\n";
    run_traced(ini, NULL, 1);
    int refusals = 0;
    for (int i = 0; i < n_lines; i++) {
        const tline *l = &lines[i];
        if (strcmp(l->event, "send") == 0 && l->attempt == 1)
            check_story(l, 1.0);
        if (strcmp(l->decision, "refuse") != 0)
            continue;
        refusals++;
        ck_assert_str_eq(l->event, "send");
        ck_assert_int_eq(l->attempt, 2);
        ck_assert_str_eq(l->reason,
                         "shedding retries: the server keeps failing");
        ck_assert_str_eq(lines[i + 1].event, "end");
        ck_assert_str_eq(lines[i + 1].outcome, "refused");
        /* The failure before it: a refused connection, transient. */
        const tline *prev[8];
        int n = request_lines(l->client, l->request, prev, 8);
        ck_assert_int_eq(n, 4);
        ck_assert_str_eq(prev[1]->error, "refused");
        ck_assert_str_eq(prev[1]->cls, "transient");
        ck_assert_str_eq(prev[1]->decision, "retry");
        ck_assert_str_eq(prev[1]->layer, "capped_backoff");
    }
    ck_assert_int_gt(refusals, 5);
}
END_TEST

/* The engine ends a request at its deadline even when the policy asked
 * for a retry: the result line keeps the policy's decision and the end
 * line says why it ended.  Deadline 600 ms: attempt 1 times out at
 * 200 ms, retry after 300 ms; attempt 2 gets the 100 ms left, times out
 * at 600 ms, and the request ends there, "deadline". */
START_TEST(deadline_end_after_a_retry_decision)
{
    static const char ini[] =
        "[scenario]\nname = trace-deadline\nduration = 3s\nwarmup = 1s\n"
        "[clients]\ncount = 2\nrate = 2/s\ntimeout = 200ms\n"
        "deadline = 600ms\n"
        "[server]\nworkers = 4\nservice = const(10ms)\n"
        "[policy]\nname = fixed\ndelay = 300ms\nmax_attempts = 5\n"
        "[fault.down]\ntype = outage\nstart = 0s\nduration = 3s\n"
        "mode = blackhole\n";
    run_traced(ini, NULL, 1);
    int ended = 0;
    for (int i = 0; i < n_lines; i++) {
        if (strcmp(lines[i].event, "end") != 0)
            continue;
        const tline *l[16];
        int n = request_lines(lines[i].client, lines[i].request, l, 16);
        check_story(l[0], 0.2);
        ck_assert_int_eq(n, 5);
        ck_assert_str_eq(l[4]->outcome, "deadline");
        ck_assert_double_eq_tol(l[4]->elapsed, 0.6, 1e-9);
        ck_assert_double_eq_tol(l[3]->latency, 0.1, 1e-9);
        ck_assert_str_eq(l[3]->decision, "retry");
        ended++;
    }
    ck_assert_int_gt(ended, 3);
}
END_TEST

Suite *trace_suite(void)
{
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("lines");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, every_request_tells_its_story);
    tcase_add_test(tc, sampling_one_in_n);
    tcase_add_test(tc, http_error_fields);
    tcase_add_test(tc, refused_send_has_its_reason);
    tcase_add_test(tc, deadline_end_after_a_retry_decision);
    suite_add_tcase(s, tc);
    return s;
}
