/*
 * check_import.c -- `stormbench import` and --policy-from: each format's
 * documentation example becomes the stack its documentation describes
 * (every expected value below is read off the format's own docs, cited),
 * every field is accounted for, malformed files are refused at their
 * line, and an imported configuration runs and decides byte for byte as
 * the built-in stack with the same parameters.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "backoff.h"
#include "import.h"
#include "scenario.h"
#include "units.h"
#include "testutil.h"
#include "writer.h"

#define EX(f) TU_SOURCE("tests/import/" f)

static import_result r;

static const char *param(const char *key)
{
    for (int i = 0; i < r.n_params; i++)
        if (strcmp(r.params[i].key, key) == 0)
            return r.params[i].value;
    return NULL;
}

static const char *set(const char *key)
{
    for (int i = 0; i < r.n_sets; i++)
        if (strcmp(r.sets[i].key, key) == 0)
            return r.sets[i].value;
    return NULL;
}

static bool unmapped(const char *path)
{
    for (int i = 0; i < r.n_fields; i++)
        if (r.fields[i].target[0] == '\0' && strstr(r.fields[i].path, path))
            return true;
    return false;
}

static void load(const char *path, const char *sel)
{
    sb_err e;
    int rc = import_load(path, NULL, sel, &r, &e);
    ck_assert_msg(rc == 0, "%s", e.msg);
}

/* gRFC A6's example retryPolicy: maxAttempts 4, initialBackoff 0.1s,
 * maxBackoff 1s, backoffMultiplier 2, UNAVAILABLE; retryThrottling 10 and
 * 0.1.  The timeout (10 s) bounds the whole call. */
START_TEST(grpc_retry_policy)
{
    load(EX("grpc-retry.json"), NULL);
    ck_assert_str_eq(r.format, "grpc");
    ck_assert_str_eq(r.policy, "exponential+token_bucket");
    ck_assert_str_eq(param("exponential.max_attempts"), "4");
    ck_assert_str_eq(param("exponential.base"), "100ms");
    ck_assert_str_eq(param("exponential.cap"), "1s");
    ck_assert_str_eq(param("exponential.multiplier"), "2");
    ck_assert_str_eq(param("exponential.jitter"), "full");
    ck_assert_str_eq(param("token_bucket.retryable_status_codes"),
                     "UNAVAILABLE");
    ck_assert_str_eq(param("token_bucket.max_tokens"), "10");
    ck_assert_str_eq(param("token_bucket.token_ratio"), "0.1");
    ck_assert_str_eq(set("clients.deadline"), "10s");
    ck_assert(unmapped("waitForReady"));
    ck_assert_int_eq(r.n_unmapped, 1);
}
END_TEST

/* The second methodConfig, selected by service: hedging, maxAttempts 3
 * = the first copy and 2 hedges, 0.5 s apart; under retryThrottling the
 * bucket is charged by the non-fatal codes (A6). */
START_TEST(grpc_hedging_policy)
{
    load(EX("grpc-retry.json"), "grpc.examples.echo.Echo");
    ck_assert_str_eq(r.policy, "none+hedge+token_bucket");
    ck_assert_str_eq(param("hedge.max_hedged"), "2");
    ck_assert_str_eq(param("hedge.delay"), "500ms");
    ck_assert_str_eq(param("token_bucket.retryable_status_codes"),
                     "UNAVAILABLE,INTERNAL,ABORTED");
}
END_TEST

/* Envoy: num_retries 3 -> 4 attempts; the backoff of the file; the
 * cluster's retry_budget 25 % and 5; outlier detection after 7 5xx for
 * 10 s, growing linearly to 300 s (Envoy's default max_ejection_time). */
START_TEST(envoy_route_and_cluster)
{
    load(EX("envoy-route.yaml"), NULL);
    ck_assert_str_eq(r.policy,
                     "exponential+retry_on+concurrent_budget+circuit_breaker");
    ck_assert_str_eq(param("exponential.max_attempts"), "4");
    ck_assert_str_eq(param("exponential.base"), "50ms");
    ck_assert_str_eq(param("exponential.cap"), "500ms");
    ck_assert_str_eq(param("concurrent_budget.budget_percent"), "25");
    ck_assert_str_eq(param("concurrent_budget.min_retry_concurrency"), "5");
    ck_assert_str_eq(param("circuit_breaker.threshold"), "7");
    ck_assert_str_eq(param("circuit_breaker.cooldown"), "10s");
    ck_assert_str_eq(param("circuit_breaker.cooldown_growth"), "linear");
    ck_assert_str_eq(param("circuit_breaker.max_cooldown"), "5m");
    ck_assert_str_eq(set("clients.timeout"), "1s");
    ck_assert_str_eq(set("clients.deadline"), "5s");
    /* retry_on: "5xx,reset,connect-failure,refused-stream", each a
     * condition of the retry_on layer. */
    ck_assert_str_eq(param("retry_on.conditions"),
                     "5xx,reset,connect-failure,refused-stream");
    ck_assert(unmapped("max_requests"));
    ck_assert(unmapped("outlier_detection.interval"));
    /* The other route is named, and selectable. */
    ck_assert_ptr_nonnull(strstr(r.others, "static"));
    load(EX("envoy-route.yaml"), "static");
    ck_assert_str_eq(r.policy, "none");
}
END_TEST

/* Envoy's jittered backoff as its source draws it (envoyproxy/envoy
 * @4280ef7, source/common/common/backoff_strategy.cc): next_interval_
 * starts at base_interval and, after each draw, doubles while it is under
 * max_interval / 2 (integer ms), else becomes max_interval; the draw is
 * random() % interval.  The imported exponential's full jitter draws
 * U(0, min(cap, base x multiplier^(n-1))): the two ranges agree for
 * every retry, for the docs' example (50 ms / 500 ms) and for Envoy's
 * defaults (25 ms, 10 x base: router docs, "retry_back_off"). */
static uint64_t envoy_interval_ms(uint64_t base, uint64_t max, uint32_t n)
{
    uint64_t next = base, interval = base;
    for (uint32_t i = 1; i <= n; i++) {
        interval = next;
        next = next < max / 2 ? next * 2 : max;
    }
    return interval;
}

static double param_s(const char *key)
{
    int64_t ns = 0;
    sb_err e;
    ck_assert_int_eq(units_duration(param(key), &ns, &e), 0);
    return (double)ns / 1e9;
}

START_TEST(envoy_backoff_as_its_source)
{
    static const struct {
        const char *file;
        uint64_t base_ms, max_ms;
    } cases[] = {{EX("envoy-route.yaml"), 50, 500},
                 {EX("envoy-defaults.yaml"), 25, 250}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        load(cases[c].file, NULL);
        ck_assert_str_eq(param("exponential.jitter"), "full");
        backoff b = {.base = param_s("exponential.base"),
                     .multiplier =
                         strtod(param("exponential.multiplier"), NULL),
                     .cap = param_s("exponential.cap"),
                     .jitter = JITTER_FULL};
        for (uint32_t n = 1; n <= 12; n++) {
            double envoy =
                (double)envoy_interval_ms(cases[c].base_ms, cases[c].max_ms, n);
            ck_assert_double_eq_tol(backoff_unjittered(&b, n) * 1e3, envoy,
                                    1e-9);
        }
    }
}
END_TEST

/* Istio: attempts 3 are retries (4 attempts), perTryTimeout 2s, route
 * timeout 10s; Envoy's 25 ms base and 250 ms cap (Istio sets none);
 * maxRetries 10 concurrent; baseEjectionTime 15m above Envoy's 300 s
 * default max makes the max 15m. */
START_TEST(istio_virtual_service_and_rule)
{
    load(EX("istio.yaml"), NULL);
    ck_assert_str_eq(r.format, "istio");
    ck_assert_str_eq(r.policy,
                     "exponential+retry_on+concurrent_budget+circuit_breaker");
    ck_assert_str_eq(param("exponential.max_attempts"), "4");
    ck_assert_str_eq(param("exponential.base"), "25ms");
    ck_assert_str_eq(param("exponential.cap"), "250ms");
    ck_assert_str_eq(param("concurrent_budget.min_retry_concurrency"), "10");
    ck_assert_str_eq(param("circuit_breaker.cooldown"), "15m");
    ck_assert_str_eq(param("circuit_breaker.max_cooldown"), "15m");
    ck_assert_str_eq(set("clients.timeout"), "2s");
    ck_assert_str_eq(set("clients.deadline"), "10s");
    ck_assert_str_eq(param("retry_on.conditions"),
                     "gateway-error,connect-failure,refused-stream");
}
END_TEST

/* resilience4j: backendA's own maxAttempts 4 and waitDuration 500ms win
 * over its baseConfig's; exponential x2 without jitter, no cap (a day);
 * the breaker's COUNT_BASED window of 10, 50 % (0.5), 5 calls, 3 probes,
 * 5 s open; the bulkhead's 10 calls; the time limiter's 2 s. */
START_TEST(resilience4j_instance)
{
    load(EX("resilience4j.yaml"), NULL);
    ck_assert_str_eq(r.selected, "instance backendA");
    ck_assert_str_eq(r.policy, "exponential+circuit_breaker");
    ck_assert_str_eq(param("exponential.max_attempts"), "4");
    ck_assert_str_eq(param("exponential.base"), "500ms");
    ck_assert_str_eq(param("exponential.jitter"), "none");
    ck_assert_str_eq(param("circuit_breaker.window_size"), "10");
    ck_assert_str_eq(param("circuit_breaker.failure_ratio"), "0.5");
    ck_assert_str_eq(param("circuit_breaker.min_calls"), "5");
    ck_assert_str_eq(param("circuit_breaker.probes"), "3");
    ck_assert_str_eq(param("circuit_breaker.cooldown"), "5s");
    ck_assert_str_eq(set("clients.connections"), "10");
    ck_assert_str_eq(set("clients.timeout"), "2s");
    ck_assert(unmapped("retryExceptions"));
    ck_assert(unmapped("registerHealthIndicator"));
    /* backendB: a fixed 10 s wait, 3 attempts (RetryConfig's). */
    load(EX("resilience4j.yaml"), "backendB");
    ck_assert_str_eq(r.policy, "fixed");
    ck_assert_str_eq(param("fixed.delay"), "10s");
    ck_assert_str_eq(param("fixed.max_attempts"), "3");
}
END_TEST

/* AWS: standard mode with max_attempts 5 is aws_quota with the guide's
 * 1 s base and 20 s cap; adaptive's rate limiter is named as not mapped;
 * legacy (boto3) is 5 attempts of exponential backoff; region is not
 * about retries. */
START_TEST(aws_profiles)
{
    load(EX("aws-config"), NULL);
    ck_assert_str_eq(r.policy, "aws_quota");
    ck_assert_str_eq(param("aws_quota.max_attempts"), "5");
    ck_assert_str_eq(param("aws_quota.base"), "1s");
    ck_assert(unmapped("region"));
    load(EX("aws-config"), "batch");
    ck_assert_str_eq(param("aws_quota.max_attempts"), "3");
    ck_assert(unmapped("retry_mode"));
    load(EX("aws-config"), "old");
    ck_assert_str_eq(r.policy, "exponential");
    ck_assert_str_eq(param("exponential.max_attempts"), "5");
}
END_TEST

/* A topology: the chain front -> api -> db becomes three tiers, each
 * caller's retries + 1 its max_attempts. */
START_TEST(topology_to_tiers)
{
    load(EX("topology.yaml"), NULL);
    ck_assert_int_eq(r.n_tiers, 3);
    ck_assert_str_eq(set("server.name"), "front");
    ck_assert_str_eq(set("server.downstream"), "api");
    ck_assert_str_eq(set("server.api.downstream"), "db");
    ck_assert_str_eq(set("policy.front.max_attempts"), "4");
    ck_assert_str_eq(set("policy.api.name"), "immediate");
    ck_assert_str_eq(set("policy.api.timeout"), "500ms");
    ck_assert_str_eq(param("max_attempts"), "3");
}
END_TEST

/* The field recorded at exactly path, or NULL. */
static const import_field *field_at(const char *path)
{
    for (int i = 0; i < r.n_fields; i++)
        if (strcmp(r.fields[i].path, path) == 0)
            return &r.fields[i];
    return NULL;
}

/* The field that sets retry_on.conditions (its note is the
 * classification the layer applies). */
static const import_field *conditions_field(void)
{
    for (int i = 0; i < r.n_fields; i++)
        if (strncmp(r.fields[i].target, "retry_on.conditions = ", 22) == 0)
            return &r.fields[i];
    return NULL;
}

/* Every retry_on condition in Envoy's router filter docs
 * (docs/root/configuration/http/http_filters/router_filter.rst,
 * x-envoy-retry-on and x-envoy-retry-grpc-on) is a field of its own:
 * mapped to the errors the docs give it -- 5xx "any 5xx response code,
 * or does not respond at all (disconnect/reset/read timeout)",
 * gateway-error "502, 503, or 504", reset "does not respond at all",
 * connect-failure "a connection failure", refused-stream REFUSED_STREAM,
 * retriable-4xx "the only response code in this category is 409", the
 * gRPC ones by their codes 1, 4, 13, 8, 14 -- or, with nothing in the
 * model to meet it (envoy-ratelimited, retriable-headers,
 * http3-post-connect-failure) or unknown, not mapped, by name.  The
 * mapped ones become the retry_on layer's conditions, and the field that
 * sets them says what the layer gives up on: for gateway-error and
 * retriable-4xx alone, the other 5xx and 4xx and every gRPC code; for
 * the whole list, only what no condition covers. */
START_TEST(envoy_retry_on_conditions_by_name)
{
    static const char *const mapped[][2] = {
        {"5xx", "HTTP 5xx, resets, refused connections and per-try"},
        {"gateway-error", "HTTP 502/503/504"},
        {"reset", "resets, refused connections and per-try timeouts"},
        {"connect-failure", "refused connections"},
        {"refused-stream", "REFUSED_STREAM"},
        {"retriable-4xx", "HTTP 409"},
        {"retriable-status-codes", "retriable_status_codes"},
        {"cancelled", "gRPC CANCELLED (1)"},
        {"deadline-exceeded", "gRPC DEADLINE_EXCEEDED (4)"},
        {"internal", "gRPC INTERNAL (13)"},
        {"resource-exhausted", "gRPC RESOURCE_EXHAUSTED (8)"},
        {"unavailable", "gRPC UNAVAILABLE (14)"}};
    static const char *const unmodelled[] = {
        "envoy-ratelimited", "retriable-headers", "http3-post-connect-failure",
        "bogus-condition"};
    const char *all = tu_write_temp(
        "retry-on.yaml",
        "name: r\nvirtual_hosts:\n- name: v\n  domains: ['*']\n  routes:\n"
        "  - match: {prefix: /}\n    route:\n      cluster: c\n"
        "      retry_policy:\n        retry_on: \"5xx, gateway-error,reset,"
        "connect-failure,refused-stream,retriable-4xx,"
        "retriable-status-codes,cancelled,deadline-exceeded,internal,"
        "resource-exhausted,unavailable,envoy-ratelimited,"
        "retriable-headers,http3-post-connect-failure,bogus-condition\"\n"
        "        retriable_status_codes: [429]\n");
    load(all, NULL);
    const char *at = NULL;
    for (int i = 0; i < r.n_fields && at == NULL; i++)
        if (strstr(r.fields[i].path, "retry_on: 5xx"))
            at = r.fields[i].path;
    ck_assert_ptr_nonnull(at);
    char base[200], p[300];
    snprintf(base, sizeof base, "%.*s", (int)(strstr(at, ": 5xx") - at), at);
    for (size_t i = 0; i < sizeof mapped / sizeof *mapped; i++) {
        snprintf(p, sizeof p, "%s: %s", base, mapped[i][0]);
        const import_field *f = field_at(p);
        ck_assert_msg(f && f->target[0] && strstr(f->note, mapped[i][1]),
                      "%s: %s", p, f ? f->note : "missing");
    }
    for (size_t i = 0; i < sizeof unmodelled / sizeof *unmodelled; i++) {
        snprintf(p, sizeof p, "%s: %s", base, unmodelled[i]);
        const import_field *f = field_at(p);
        ck_assert_msg(f && f->target[0] == '\0',
                      "%s not named as not "
                      "mapped",
                      p);
    }
    /* The layer gets every mapped condition and the 429 of
     * retriable_status_codes; it gives up on the 4xx other than 409 and
     * 429, and on the gRPC codes no condition names (ABORTED, UNKNOWN
     * ...), and says so. */
    ck_assert_str_eq(param("retry_on.conditions"),
                     "5xx,gateway-error,reset,connect-failure,refused-stream,"
                     "retriable-4xx,cancelled,deadline-exceeded,internal,"
                     "resource-exhausted,unavailable,retriable-status-codes");
    ck_assert_str_eq(param("retry_on.status_codes"), "429");
    const import_field *rest = conditions_field();
    ck_assert_msg(rest && strstr(rest->note, "gives up on other HTTP 4xx, "
                                             "other gRPC codes (but retries "
                                             "HTTP 429)"),
                  "%s", rest ? rest->note : "missing");
    const char *two = tu_write_temp(
        "retry-on-2.yaml",
        "name: r\nvirtual_hosts:\n- name: v\n  domains: ['*']\n  routes:\n"
        "  - match: {prefix: /}\n    route:\n      cluster: c\n"
        "      retry_policy:\n        retry_on: gateway-error,"
        "retriable-4xx\n");
    load(two, NULL);
    ck_assert_str_eq(param("retry_on.conditions"),
                     "gateway-error,retriable-4xx");
    ck_assert_ptr_null(param("retry_on.status_codes"));
    rest = conditions_field();
    ck_assert_msg(rest && strstr(rest->note, "gives up on other HTTP 5xx, "
                                             "other HTTP 4xx, gRPC CANCELLED"),
                  "%s", rest ? rest->note : "missing");
}
END_TEST

/* An unknown field is listed, not dropped. */
START_TEST(unknown_fields_are_named)
{
    const char *p = tu_write_temp(
        "unknown.json",
        "{\"methodConfig\": [{\"name\": [{}], \"retryPolicy\": "
        "{\"maxAttempts\": 2, \"initialBackoff\": \"1s\", \"maxBackoff\": "
        "\"2s\", \"backoffMultiplier\": 2, \"retryableStatusCodes\": "
        "[14], \"maxAtempts\": 3}}], \"fancy\": {\"a\": 1}}\n");
    load(p, NULL);
    ck_assert(unmapped("retryPolicy.maxAtempts"));
    ck_assert(unmapped("fancy.a"));
    ck_assert_str_eq(param("token_bucket.retryable_status_codes"),
                     "UNAVAILABLE");
}
END_TEST

static void expect_error(const char *const *argl, const char *text)
{
    tu_output o;
    ck_assert_int_eq(tu_stormbench(&o, argl), 2);
    ck_assert_msg(strstr(o.err, text), "expected '%s' in: %s", text, o.err);
    tu_output_free(&o);
}

/* Malformed files: the line and column jansson and libyaml report; a
 * value out of gRFC A6's range names its field. */
START_TEST(malformed_files_name_their_line)
{
    expect_error((const char *[]){"import", EX("broken.json"), NULL},
                 "broken.json:3:39: ");
    expect_error((const char *[]){"import", EX("broken.yaml"), NULL},
                 "broken.yaml:5:6: ");
    /* A scenario starts with '[' as an AWS config does: it was imported
     * as one (its sections unknown profiles).  lint checks scenarios
     * (check_lint.c). */
    expect_error((const char *[]){"import",
                                  TU_SOURCE("scenarios/retry-storm.ini"), NULL},
                 "retry-storm.ini: a stormbench scenario, not a "
                 "configuration to import");
    char p[1100], y[1100];
    snprintf(
        p, sizeof p, "%s",
        tu_write_temp(
            "one.json",
            "{\"methodConfig\": [{\"retryPolicy\": {\"maxAttempts\": 1}}]}\n"));
    expect_error(
        (const char *[]){"run", "retry-storm", "--policy-from", p, NULL},
        "methodConfig[0].retryPolicy.maxAttempts: expected a "
        "whole number from 2");
    snprintf(y, sizeof y, "%s",
             tu_write_temp("bad.yaml",
                           "resilience4j.retry:\n  instances:\n    a:\n"
                           "      waitDuration: soon\n"));
    expect_error((const char *[]){"import", y, NULL}, "bad.yaml:4: ");
}
END_TEST

/* A short run whose server answers 30 % of attempts with 503 and has a
 * 20 s outage: every layer of the imported stacks acts. */
static const char *run_scenario(void)
{
    return tu_write_temp(
        "import-run.ini",
        "[scenario]\nname = import-run\nduration = 60s\nwarmup = 5s\n"
        "[clients]\ncount = 50\nrate = 2/s\ntimeout = 1s\n"
        "[server]\nworkers = 8\nservice = exp(20ms)\n"
        "[policy]\nname = immediate\nmax_attempts = 5\n"
        "[fault.err]\ntype = errors\nstatus = 503\nprobability = 0.3\n"
        "start = 10s\nduration = 40s\n"
        "[fault.down]\ntype = outage\nstart = 20s\nduration = 20s\n");
}

/* run --policy-from FILE and run --policy STACK --param ... --set ...,
 * the import's own parameters and keys, give the same JSON, byte for
 * byte; so do the two decides. */
static void same_as_builtin(const char *file)
{
    char arg[1200];
    snprintf(arg, sizeof arg, "%s", file);
    char path[1024], sel[200];
    import_split(arg, path, sizeof path, sel, sizeof sel);
    load(path, sel);
    char sc[1100];
    snprintf(sc, sizeof sc, "%s", run_scenario());
    char a_json[1100], b_json[1100];
    snprintf(a_json, sizeof a_json, "%s", tu_temp_path("imp-a.json"));
    snprintf(b_json, sizeof b_json, "%s", tu_temp_path("imp-b.json"));
    const char *a[] = {"run",    sc,     "--no-timing",   "-q", "--no-expect",
                       "--json", a_json, "--policy-from", arg,  NULL};
    tu_output o;
    ck_assert_int_eq(tu_stormbench(&o, a), 0);
    tu_output_free(&o);
    static char kv[200][400];
    const char *b[420] = {"run",         sc,       "--no-timing", "-q",
                          "--no-expect", "--json", b_json,        "--policy",
                          r.policy};
    int n = 9, k = 0;
    for (int i = 0; i < r.n_params; i++, k++) {
        snprintf(kv[k], sizeof kv[k], "%s=%s", r.params[i].key,
                 r.params[i].value);
        b[n++] = "--param";
        b[n++] = kv[k];
    }
    bool topo = strcmp(r.format, "topology") == 0;
    for (int i = 0; i < r.n_sets; i++, k++) {
        if (topo && strncmp(r.sets[i].key, "clients.", 8) != 0)
            continue;
        snprintf(kv[k], sizeof kv[k], "%s=%s", r.sets[i].key, r.sets[i].value);
        b[n++] = "--set";
        b[n++] = kv[k];
    }
    b[n] = NULL;
    ck_assert_int_eq(tu_stormbench(&o, b), 0);
    tu_output_free(&o);
    char *ja = tu_read_file(a_json), *jb = tu_read_file(b_json);
    ck_assert_ptr_nonnull(ja);
    ck_assert_ptr_nonnull(jb);
    ck_assert_msg(strcmp(ja, jb) == 0, "%s: runs differ", file);
    /* And the stack acted: the faults make it retry, or its breaker
     * refuse (an outage of 20 s opens any of these breakers). */
    ck_assert(tu_json_number(ja, "attempts") > tu_json_number(ja, "offered") ||
              tu_json_number(ja, "failures.refused") > 0);
    free(ja);
    free(jb);
}

static const char *const files[] = {
    EX("grpc-retry.json"),   EX("grpc-retry.json#grpc.examples.echo.Echo"),
    EX("envoy-route.yaml"),  EX("istio.yaml"),
    EX("resilience4j.yaml"), EX("resilience4j.yaml#backendB"),
    EX("aws-config"),        EX("aws-config#old"),
    EX("topology.yaml")};

START_TEST(runs_exactly_as_the_builtin)
{
    same_as_builtin(files[_i]);
}
END_TEST

/* decide --policy-from FILE and decide --policy STACK --param ... give
 * the same decision, byte for byte, for every format's documentation
 * example (a 503 on attempt 2; it was tested for Envoy's alone, where
 * the decision is a retry). */
START_TEST(decides_exactly_as_the_builtin)
{
    char path[1024], sel[200];
    import_split(files[_i], path, sizeof path, sel, sizeof sel);
    load(path, sel);
    const char *a[] = {
        "decide",   "--policy-from", files[_i],   "--error", "http",
        "--status", "503",           "--attempt", "2",       NULL};
    tu_output oa, ob;
    ck_assert_int_eq(tu_stormbench(&oa, a), 0);
    static char kv[64][400];
    const char *b[200] = {"decide",  "--policy",  r.policy,
                          "--error", "http",      "--status",
                          "503",     "--attempt", "2"};
    int n = 9;
    for (int i = 0; i < r.n_params; i++) {
        snprintf(kv[i], sizeof kv[i], "%s=%s", r.params[i].key,
                 r.params[i].value);
        b[n++] = "--param";
        b[n++] = kv[i];
    }
    b[n] = NULL;
    ck_assert_int_eq(tu_stormbench(&ob, b), 0);
    ck_assert_msg(strcmp(oa.out, ob.out) == 0, "%s:\n%s\nvs\n%s", files[_i],
                  oa.out, ob.out);
    ck_assert_ptr_nonnull(strstr(oa.out, "\"action\": "));
    if (strcmp(files[_i], EX("envoy-route.yaml")) == 0)
        ck_assert_ptr_nonnull(strstr(oa.out, "\"action\": \"retry\""));
    tu_output_free(&oa);
    tu_output_free(&ob);
}
END_TEST

/* ---- retry_on in a run: a failure outside the list is not retried ---- */

static char *run_json(const char *ini, const char *extra, const char *name);

/* 100 clients send one request each in the first second (arrival =
 * once); the server answers every attempt 503 (an errors fault of
 * probability 1 over the whole run).  One process per client, so
 * Envoy's 3 concurrent retries are never reached, and the 15 s route
 * timeout outlasts 3 retries of at most 250 ms backoff each. */
static const char *all_503_scenario(void)
{
    return tu_write_temp(
        "all-503.ini",
        "[scenario]\nname = all-503\nduration = 30s\nwarmup = 0s\n"
        "[clients]\ncount = 100\narrival = once\nstart_window = 1s\n"
        "timeout = 1s\n"
        "[server]\nworkers = 8\nservice = const(10ms)\n"
        "[policy]\nname = none\n"
        "[fault.err]\ntype = errors\nstatus = 503\nprobability = 1\n"
        "start = 0s\nduration = 30s\n");
}

/* An Envoy route with num_retries: 3 and the given retry_on (and
 * retriable_status_codes, when codes is not NULL), run on
 * all_503_scenario: its amplification (attempts / offered). */
static double envoy_amplification(const char *retry_on, const char *codes)
{
    char yaml[600];
    snprintf(yaml, sizeof yaml,
             "name: r\nvirtual_hosts:\n- name: v\n  domains: ['*']\n"
             "  routes:\n  - match: {prefix: /}\n    route:\n"
             "      cluster: c\n      retry_policy:\n"
             "        num_retries: 3\n        retry_on: \"%s\"\n%s%s%s",
             retry_on, codes ? "        retriable_status_codes: [" : "",
             codes ? codes : "", codes ? "]\n" : "");
    char y[1100], sc[1100];
    snprintf(y, sizeof y, "%s", tu_write_temp("retry-on-run.yaml", yaml));
    snprintf(sc, sizeof sc, "%s", all_503_scenario());
    char *j = run_json(sc, y, "retry-on-run.json");
    double offered = tu_json_number(j, "offered");
    ck_assert_double_eq(offered, 100);
    double amp = tu_json_number(j, "attempts") / offered;
    free(j);
    return amp;
}

/* Envoy retries a 503 under 5xx ("any 5xx response code"),
 * gateway-error ("502, 503, or 504") and retriable-status-codes listing
 * 503; not under connect-failure, reset (no answer at all),
 * retriable-4xx (409 only) or retriable-status-codes listing only 429
 * (router filter docs, x-envoy-retry-on; retry_state_impl.cc,
 * wouldRetryFromHeaders).  Every attempt is a 503, so a route that
 * retries it makes 1 + num_retries = 4 attempts per request
 * (amplification 4.00), one that does not makes 1 (1.00).  Before the
 * retry_on layer every route here made 4. */
START_TEST(retry_on_gives_up_outside_its_conditions)
{
    ck_assert_double_eq(envoy_amplification("connect-failure", NULL), 1.0);
    ck_assert_double_eq(envoy_amplification("reset,refused-stream", NULL), 1.0);
    ck_assert_double_eq(envoy_amplification("retriable-4xx", NULL), 1.0);
    ck_assert_double_eq(envoy_amplification("retriable-status-codes", "429"),
                        1.0);
    ck_assert_double_eq(envoy_amplification("5xx", NULL), 4.0);
    ck_assert_double_eq(envoy_amplification("gateway-error", NULL), 4.0);
    ck_assert_double_eq(
        envoy_amplification("retriable-status-codes", "429, 503"), 4.0);
    /* The codes count only under retriable-status-codes (Envoy reads
     * retriable_status_codes_ only when the condition is set). */
    ck_assert_double_eq(envoy_amplification("connect-failure", "503"), 1.0);
}
END_TEST

/* decide on one failure: the action of the route's stack. */
static bool envoy_retries(const char *retry_on, const char *error,
                          const char *status)
{
    char yaml[600];
    snprintf(yaml, sizeof yaml,
             "name: r\nvirtual_hosts:\n- name: v\n  domains: ['*']\n"
             "  routes:\n  - match: {prefix: /}\n    route:\n"
             "      cluster: c\n      retry_policy:\n"
             "        num_retries: 3\n        retry_on: \"%s\"\n",
             retry_on);
    char y[1100];
    snprintf(y, sizeof y, "%s", tu_write_temp("retry-on-decide.yaml", yaml));
    const char *a[] = {"decide", "--policy-from",
                       y,        "--error",
                       error,    "--attempt",
                       "1",      status ? "--status" : NULL,
                       status,   NULL};
    tu_output o;
    ck_assert_int_eq(tu_stormbench(&o, a), 0);
    bool retry = strstr(o.out, "\"action\": \"retry\"") != NULL;
    ck_assert_msg(retry || strstr(o.out, "\"action\": \"give_up\""), "%s",
                  o.out);
    tu_output_free(&o);
    return retry;
}

/* The failures with no status, and gRPC codes, as retry_state_impl.cc
 * reads them: a per-try timeout or a reset is retried under 5xx,
 * gateway-error or reset (wouldRetryFromReset: "we count an upstream
 * reset as a 5xx"; per-try timeouts "are only retried if the applicable
 * retry policy specifies either RETRY_ON_5XX or RETRY_ON_GATEWAY_ERROR"),
 * never under connect-failure, which covers a refused connection only
 * (ConnectionFailure); a gRPC answer is retried by its grpc-status code,
 * never as an HTTP 5xx. */
START_TEST(retry_on_timeouts_resets_and_grpc)
{
    ck_assert(envoy_retries("gateway-error", "timeout", NULL));
    ck_assert(envoy_retries("5xx", "reset", NULL));
    ck_assert(envoy_retries("reset", "timeout", NULL));
    ck_assert(!envoy_retries("connect-failure", "timeout", NULL));
    ck_assert(!envoy_retries("connect-failure", "reset", NULL));
    ck_assert(envoy_retries("connect-failure", "refused", NULL));
    ck_assert(envoy_retries("5xx", "refused", NULL));
    ck_assert(!envoy_retries("retriable-4xx", "refused", NULL));
    ck_assert(envoy_retries("retriable-4xx", "http", "409"));
    ck_assert(!envoy_retries("retriable-4xx", "http", "429"));
    ck_assert(envoy_retries("unavailable", "grpc", "UNAVAILABLE"));
    ck_assert(!envoy_retries("unavailable", "grpc", "INTERNAL"));
    ck_assert(!envoy_retries("5xx", "grpc", "UNAVAILABLE"));
    ck_assert(envoy_retries("cancelled,internal", "grpc", "INTERNAL"));
}
END_TEST

/* A scenario beside a copy of the Envoy example; [policy] from names it
 * relative to the scenario.  Returns the scenario's path. */
static const char *from_scenario(const char *name, const char *policy)
{
    char *yaml = tu_read_file(EX("envoy-route.yaml"));
    ck_assert_ptr_nonnull(yaml);
    const char *y = tu_write_temp("from-envoy.yaml", yaml);
    free(yaml);
    const char *base = strrchr(y, '/') + 1;
    static char text[2048], path[1024];
    snprintf(text, sizeof text,
             "[scenario]\nname = from\nduration = 300s\nseed = 2\n"
             "[clients]\ncount = 50\nrate = 2/s\n"
             "[server]\nworkers = 4\nservice = exp(20ms)\n"
             "[fault.outage]\ntype = outage\nstart = 100s\nduration = 20s\n"
             "[policy]\nfrom = %s#api\n%s",
             base, policy);
    snprintf(path, sizeof path, "%s", tu_write_temp(name, text));
    return path;
}

static char *run_json(const char *ini, const char *extra, const char *name)
{
    char json[1024];
    snprintf(json, sizeof json, "%s", tu_temp_path(name));
    const char *a[] = {"run",
                       ini,
                       "--no-expect",
                       "--no-timing",
                       "--json",
                       json,
                       extra ? "--policy-from" : NULL,
                       extra,
                       NULL};
    tu_output o;
    int rc = tu_stormbench(&o, a);
    ck_assert_msg(rc == 0, "%s: exit %d: %s", ini, rc, o.err);
    tu_output_free(&o);
    char *j = tu_read_file(json);
    ck_assert_ptr_nonnull(j);
    return j;
}

/* A run's JSON after the line that names its scenario file. */
static const char *after_file(const char *json)
{
    const char *f = strstr(json, "\"file\"");
    ck_assert_ptr_nonnull(f);
    return strchr(f, '\n');
}

/* [policy] from = FILE#route runs byte for byte as --policy-from does
 * (the stack, every parameter and the route's timeouts: Envoy's
 * per_try_timeout 1 s and timeout 5 s); the writer writes it back as
 * from, absolute, and the saved file runs the same. */
START_TEST(scenario_policy_from)
{
    char ini[1024], saved[1024];
    snprintf(ini, sizeof ini, "%s", from_scenario("from.ini", ""));
    char *a = run_json(ini, NULL, "from-a.json");
    char *b = run_json(ini, EX("envoy-route.yaml#api"), "from-b.json");
    ck_assert_msg(strcmp(a, b) == 0, "from and --policy-from runs differ");
    scenario sc, back;
    sb_err e;
    ck_assert_msg(scenario_load(ini, NULL, 0, &sc, &e) == 0, "%s", e.msg);
    ck_assert_str_eq(sc.policy,
                     "exponential+retry_on+concurrent_budget+circuit_breaker");
    ck_assert_int_eq(sc.cfg.clients.timeout_ns, NS_PER_S);
    ck_assert_int_eq(sc.cfg.clients.deadline_ns, 5 * NS_PER_S);
    snprintf(saved, sizeof saved, "%s", tu_temp_path("from-saved.ini"));
    FILE *f = fopen(saved, "w");
    ck_assert_ptr_nonnull(f);
    writer_extra x = {NULL, sc.policy, sc.settings, sc.n_settings, NULL,
                      0,    sc.expect, sc.n_expect, sc.policy_from};
    ck_assert_int_eq(scenario_write(f, &sc.cfg, &x, &e), 0);
    fclose(f);
    char *text = tu_read_file(saved);
    ck_assert_ptr_nonnull(strstr(text, "from = /"));
    ck_assert_ptr_null(strstr(text, "\nname = exponential"));
    free(text);
    ck_assert_msg(scenario_load(saved, NULL, 0, &back, &e) == 0, "%s", e.msg);
    ck_assert_str_eq(back.policy, sc.policy);
    char *c = run_json(saved, NULL, "from-c.json");
    /* The same run but for the file's name. */
    ck_assert_msg(strcmp(after_file(a), after_file(c)) == 0,
                  "the saved scenario runs differently");
    free(a);
    free(b);
    free(c);
}
END_TEST

/* A parameter beside from overrides the imported one; a name beside it
 * is refused; a broken file is named at its line under the scenario's. */
START_TEST(scenario_policy_from_errors)
{
    scenario sc;
    sb_err e;
    const char *ini =
        from_scenario("from-over.ini", "exponential.max_attempts = 2\n");
    ck_assert_msg(scenario_load(ini, NULL, 0, &sc, &e) == 0, "%s", e.msg);
    int found = 0;
    for (int i = 0; i < sc.n_settings; i++)
        if (strcmp(sc.settings[i].key, "exponential.max_attempts") == 0) {
            ck_assert_str_eq(sc.settings[i].value, "2");
            found++;
        }
    ck_assert_int_eq(found, 1);
    ini = from_scenario("from-name.ini", "name = immediate\n");
    ck_assert_int_ne(scenario_load(ini, NULL, 0, &sc, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "from-name.ini:17: [policy] name: "
                                        "names the stack, and so does "
                                        "[policy] from"));
    const char *sets[] = {"policy.from=" EX("broken.yaml")};
    ck_assert_int_ne(scenario_load(ini, sets, 1, &sc, &e), 0);
    ini = from_scenario("from-broken.ini", "");
    ck_assert_int_ne(scenario_load(ini, sets, 1, &sc, &e), 0);
    ck_assert_ptr_nonnull(strstr(e.msg, "[policy] from: "));
    ck_assert_ptr_nonnull(strstr(e.msg, "broken.yaml:5:"));
    const char *a[] = {"run", ini, "--set", sets[0], NULL};
    tu_output o;
    ck_assert_int_eq(tu_stormbench(&o, a), 2);
    tu_output_free(&o);
}
END_TEST

/* The note on the scenario's [policy] parameters says "kept" only of
 * what the run keeps.  run_scenario()'s [policy] is immediate with
 * max_attempts = 5; the Envoy route api imports max_attempts 4 (its
 * num_retries 3 + 1), which comes after the file's and wins: the run
 * prints max_attempts=4, and no note (the file's one parameter is set
 * again).  Before, it said "kept max_attempts=5".  --param does the same;
 * without either, the note still says kept, as it is.  compare's entries
 * the same: an entry's own max_attempts=3 leaves the file's out of its
 * note, the entry beside it keeps it. */
START_TEST(policy_note_leaves_out_what_is_set_again)
{
    char sc[1100];
    snprintf(sc, sizeof sc, "%s", run_scenario());
    static const char kept[] = "the scenario's [policy] parameters were "
                               "written for immediate; kept max_attempts=5";
    tu_output o;
    const char *imp[] = {"run",
                         sc,
                         "--no-timing",
                         "--no-expect",
                         "--policy-from",
                         EX("envoy-route.yaml#api"),
                         NULL};
    ck_assert_int_eq(tu_stormbench(&o, imp), 0);
    ck_assert_msg(strstr(o.out, "max_attempts=4"), "%s", o.out);
    ck_assert_msg(strstr(o.err, "note:") == NULL, "%s", o.err);
    tu_output_free(&o);
    const char *par[] = {
        "run",         sc,        "--no-timing",    "--no-expect", "--policy",
        "exponential", "--param", "max_attempts=3", NULL};
    ck_assert_int_eq(tu_stormbench(&o, par), 0);
    ck_assert_msg(strstr(o.out, "max_attempts=3"), "%s", o.out);
    ck_assert_msg(strstr(o.err, "note:") == NULL, "%s", o.err);
    tu_output_free(&o);
    const char *plain[] = {"run",         sc,         "--no-timing",
                           "--no-expect", "--policy", "exponential",
                           NULL};
    ck_assert_int_eq(tu_stormbench(&o, plain), 0);
    ck_assert_msg(strstr(o.out, "max_attempts=5"), "%s", o.out);
    ck_assert_msg(strstr(o.err, kept), "%s", o.err);
    tu_output_free(&o);
    char dir[1100];
    snprintf(dir, sizeof dir, "%s", tu_temp_path("note-compare"));
    const char *cmp[] = {
        "compare",     sc,
        "--policies",  "exponential:max_attempts=3,exponential+token_bucket",
        "--seeds",     "1",
        "-j",          "1",
        "--no-report", "--force",
        "-o",          dir,
        NULL};
    ck_assert_int_eq(tu_stormbench(&o, cmp), 0);
    ck_assert_msg(strstr(o.err, "note: exponential:") == NULL, "%s", o.err);
    ck_assert_msg(strstr(o.err, "note: exponential+token_bucket: ") &&
                      strstr(o.err, kept),
                  "%s", o.err);
    tu_output_free(&o);
}
END_TEST

Suite *import_suite(void)
{
    Suite *s = suite_create("import");
    TCase *tc = tcase_create("formats");
    tcase_add_test(tc, grpc_retry_policy);
    tcase_add_test(tc, grpc_hedging_policy);
    tcase_add_test(tc, envoy_route_and_cluster);
    tcase_add_test(tc, envoy_backoff_as_its_source);
    tcase_add_test(tc, istio_virtual_service_and_rule);
    tcase_add_test(tc, resilience4j_instance);
    tcase_add_test(tc, aws_profiles);
    tcase_add_test(tc, topology_to_tiers);
    tcase_add_test(tc, unknown_fields_are_named);
    tcase_add_test(tc, envoy_retry_on_conditions_by_name);
    tcase_add_test(tc, malformed_files_name_their_line);
    suite_add_tcase(s, tc);
    TCase *run = tcase_create("same");
    tcase_set_timeout(run, 120);
    tcase_add_loop_test(run, runs_exactly_as_the_builtin, 0, 9);
    tcase_add_loop_test(run, decides_exactly_as_the_builtin, 0, 9);
    tcase_add_test(run, scenario_policy_from);
    tcase_add_test(run, retry_on_gives_up_outside_its_conditions);
    tcase_add_test(run, retry_on_timeouts_resets_and_grpc);
    tcase_add_test(run, scenario_policy_from_errors);
    tcase_add_test(run, policy_note_leaves_out_what_is_set_again);
    suite_add_tcase(s, run);
    return s;
}
