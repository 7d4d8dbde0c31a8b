/*
 * import_envoy.c -- an Envoy route's retry_policy and its cluster's
 * circuit_breakers and outlier_detection (route_components.proto,
 * circuit_breaker.proto, outlier_detection.proto; v3 field names and
 * defaults), in YAML or JSON: a whole bootstrap, a RouteConfiguration,
 * a virtual host, a route or a cluster.  Routes are found wherever they
 * are (inside typed_config too), by name or by their match's prefix or
 * path.
 *
 * The stack: exponential (num_retries + 1 attempts, full jitter from
 * base_interval, 25 ms by default, capped at max_interval, 10 x base by
 * default), + retry_after under rate_limited_retry_back_off, +
 * concurrent_budget (the cluster's retry_budget, or max_retries -- 3
 * by default, always in force in Envoy -- as a flat limit of concurrent
 * retries), + circuit_breaker when outlier_detection ejects on
 * consecutive 5xx.  The retry budget is Envoy's own arithmetic
 * (concurrent_budget replays RetryBudgetImpl).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_fmt.h"
#include "units.h"

/* Envoy (router_filter docs): a retry_policy retries once by default;
 * the backoff base is 25 ms and its cap 10 x base; a route's timeout is
 * 15 s; a cluster allows 3 concurrent retries; outlier detection ejects
 * after 5 consecutive 5xx for 30 s, at most 300 s. */
#define ENVOY_NUM_RETRIES 1
#define ENVOY_BASE_NS (25 * NS_PER_MS)
#define ENVOY_ROUTE_TIMEOUT_NS (15 * NS_PER_S)
#define ENVOY_MAX_RETRIES 3

/* What a stormbench client can see go wrong, as Envoy's retry_on
 * conditions divide it. */
enum {
    E_TIMEOUT = 1 << 0, /* per-try timeout */
    E_REFUSED = 1 << 1, /* connection refused: never processed */
    E_RESET = 1 << 2,   /* reset after the request was sent */
    E_GATEWAY = 1 << 3, /* HTTP 502, 503, 504 */
    E_5XX = 1 << 4,     /* the other 5xx */
    E_409 = 1 << 5,
    E_4XX = 1 << 6, /* the other 4xx (429 among them) */
    E_GRPC_CANCELLED = 1 << 7,
    E_GRPC_DEADLINE = 1 << 8,
    E_GRPC_EXHAUSTED = 1 << 9,
    E_GRPC_INTERNAL = 1 << 10,
    E_GRPC_UNAVAILABLE = 1 << 11,
    E_GRPC_OTHER = 1 << 12,
    E_ALL = (1 << 13) - 1
};

static const char *const error_names[] = {
    "per-try timeouts",        "refused connections", "resets",
    "HTTP 502/503/504",        "other HTTP 5xx",      "HTTP 409",
    "other HTTP 4xx",          "gRPC CANCELLED",      "gRPC DEADLINE_EXCEEDED",
    "gRPC RESOURCE_EXHAUSTED", "gRPC INTERNAL",       "gRPC UNAVAILABLE",
    "other gRPC codes"};

/* Envoy's conditions (router filter docs, x-envoy-retry-on and
 * x-envoy-retry-grpc-on) as the errors each covers.  5xx: "any 5xx
 * response code, or does not respond at all (disconnect/reset/read
 * timeout). (Includes connect-failure and refused-stream)";
 * gateway-error: 502, 503 or 504, and like 5xx a reset or a per-try
 * timeout (retry_state_impl.cc retries a reset under 5xx or
 * gateway-error); reset: "does not respond at all (disconnect/reset/read
 * timeout.)"; connect-failure: "a connection failure to the upstream
 * server (connect timeout, etc.)"; refused-stream: "resets the stream
 * with a REFUSED_STREAM error code ... safe to retry" -- a request never
 * processed, as a refused connection; retriable-4xx: "the only response
 * code in this category is 409"; the gRPC ones by their codes (1, 4, 8,
 * 13, 14). */
static const struct {
    const char *name;
    int covers;
    const char *says;
} conditions[] = {
    {"5xx", E_TIMEOUT | E_REFUSED | E_RESET | E_GATEWAY | E_5XX,
     "HTTP 5xx, resets, refused connections and per-try timeouts"},
    {"gateway-error", E_TIMEOUT | E_REFUSED | E_RESET | E_GATEWAY,
     "HTTP 502/503/504, resets, refused connections and per-try "
     "timeouts"},
    {"reset", E_TIMEOUT | E_REFUSED | E_RESET,
     "resets, refused connections and per-try timeouts (no answer at "
     "all)"},
    {"connect-failure", E_REFUSED, "refused connections"},
    {"refused-stream", E_REFUSED,
     "refused connections (never processed, "
     "as REFUSED_STREAM)"},
    {"retriable-4xx", E_409, "HTTP 409"},
    {"cancelled", E_GRPC_CANCELLED, "gRPC CANCELLED (1)"},
    {"deadline-exceeded", E_GRPC_DEADLINE, "gRPC DEADLINE_EXCEEDED (4)"},
    {"resource-exhausted", E_GRPC_EXHAUSTED, "gRPC RESOURCE_EXHAUSTED (8)"},
    {"internal", E_GRPC_INTERNAL, "gRPC INTERNAL (13)"},
    {"unavailable", E_GRPC_UNAVAILABLE, "gRPC UNAVAILABLE (14)"},
};

/* Documented conditions with nothing in the model to meet them. */
static const struct {
    const char *name, *why;
} unmodelled[] = {
    {"envoy-ratelimited",
     "retries answers carrying Envoy's own "
     "x-envoy-ratelimited header; the modelled server sends none (its "
     "rate limit answers 429)"},
    {"retriable-headers", "retries answers carrying given headers; the "
                          "model has no response headers"},
    {"http3-post-connect-failure", "retries HTTP/3 requests that failed "
                                   "after connecting; the model has no HTTP/3"},
};

/* An HTTP status named in retryOn (Istio) or retriable_status_codes. */
static int status_covers(long code)
{
    if (code >= 502 && code <= 504)
        return E_GATEWAY;
    if (code >= 500 && code <= 599)
        return E_5XX;
    if (code == 409)
        return E_409;
    return code >= 400 && code <= 499 ? E_4XX : 0;
}

/* What the retry_on layer is given: its conditions and the statuses
 * retriable-status-codes retries, each as the layer's SET text. */
typedef struct retry_on_set {
    char conditions[200];
    char codes[200];
    bool status_codes; /* retriable-status-codes is listed */
} retry_on_set;

static void add_word(char *buf, size_t len, const char *w)
{
    char find[64];
    snprintf(find, sizeof find, ",%s,", w);
    char have[210];
    snprintf(have, sizeof have, ",%s,", buf);
    if (strstr(have, find))
        return;
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", used ? "," : "", w);
}

/* A status the retry_on layer can list (every registered 4xx and 5xx):
 * added; otherwise named as not mapped. */
static void add_code(imp *m, const char *path, tree_node *n, long code,
                     retry_on_set *set)
{
    static const int registered[] = {
        400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412,
        413, 414, 415, 416, 417, 421, 422, 423, 424, 425, 426, 428, 429,
        431, 451, 500, 501, 502, 503, 504, 505, 506, 507, 508, 510, 511};
    for (size_t i = 0; i < sizeof registered / sizeof *registered; i++)
        if (registered[i] == code) {
            char w[24]; /* a long, whatever the compiler can prove of it */
            snprintf(w, sizeof w, "%ld", code);
            add_word(set->codes, sizeof set->codes, w);
            return;
        }
    imp_skip(m, path, n,
             "HTTP %ld is not a registered 4xx or 5xx status: the "
             "retry_on layer cannot list it, so it is not retried",
             code);
}

/* One condition of the list: its field, mapped or not, by name; the
 * errors it covers are added to *covered, the condition to set. */
static void one_condition(imp *m, const char *path, tree_node *n, const char *c,
                          bool codes, int *covered, retry_on_set *set)
{
    char p[300], *end;
    snprintf(p, sizeof p, "%s: %s", path, c);
    for (size_t i = 0; i < sizeof conditions / sizeof *conditions; i++)
        if (strcmp(c, conditions[i].name) == 0) {
            *covered |= conditions[i].covers;
            add_word(set->conditions, sizeof set->conditions, c);
            imp_note(m, p, n, "retries %s", conditions[i].says);
            return;
        }
    for (size_t i = 0; i < sizeof unmodelled / sizeof *unmodelled; i++)
        if (strcmp(c, unmodelled[i].name) == 0) {
            imp_skip(m, p, n, "%s", unmodelled[i].why);
            return;
        }
    if (strcmp(c, "retriable-status-codes") == 0) {
        set->status_codes = true;
        imp_note(m, p, n, "retries the statuses %s lists",
                 codes ? "retriable_status_codes" : "the route does not: none");
        return;
    }
    long code = strtol(c, &end, 10);
    if (end != c && *end == '\0' && status_covers(code)) {
        set->status_codes = true;
        add_code(m, p, n, code, set);
        imp_note(m, p, n, "retries HTTP %ld (Istio: a status in retryOn)",
                 code);
        return;
    }
    imp_skip(m, p, n,
             "not a retry condition Envoy documents (5xx, "
             "gateway-error, reset, connect-failure, envoy-ratelimited, "
             "retriable-4xx, refused-stream, retriable-status-codes, "
             "retriable-headers, http3-post-connect-failure; gRPC: "
             "cancelled, deadline-exceeded, internal, resource-exhausted, "
             "unavailable)");
}

/* The classification the retry_on layer applies, in words: what it
 * retries (the conditions' errors, and the listed statuses) and what it
 * gives up on. */
static void classification(int covered, const retry_on_set *set, char *buf,
                           size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "gives up on ");
    bool any = false;
    for (int b = 0; (1 << b) & E_ALL; b++)
        if (!(covered & (1 << b)) && used < len) {
            used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                     any ? ", " : "", error_names[b]);
            any = true;
        }
    if (!any)
        snprintf(buf, len, "covers every error the model produces");
    else if (set->codes[0] && used < len)
        snprintf(buf + used, len - used, " (but retries HTTP %s)", set->codes);
}

void imp_retry_on(imp *m, const char *path, tree_node *n, const char *dflt,
                  tree_node *codes)
{
    const char *on = n ? imp_value(n) : dflt;
    int covered = 0;
    retry_on_set set;
    memset(&set, 0, sizeof set);
    char list[600];
    snprintf(list, sizeof list, "%s", on);
    for (char *save = NULL, *c = strtok_r(list, ",", &save); c;
         c = strtok_r(NULL, ",", &save)) {
        while (*c == ' ' || *c == '\t')
            c++;
        size_t len = strlen(c);
        while (len && (c[len - 1] == ' ' || c[len - 1] == '\t'))
            c[--len] = '\0';
        if (len)
            one_condition(m, path, n, c, codes != NULL, &covered, &set);
    }
    /* Envoy reads retriable_status_codes only under
     * retriable-status-codes (retry_state_impl.cc). */
    for (size_t i = 0; set.status_codes && codes && i < codes->n; i++)
        add_code(m, path, codes->items[i],
                 strtol(imp_value(codes->items[i]), NULL, 10), &set);
    if (set.status_codes && set.codes[0])
        add_word(set.conditions, sizeof set.conditions,
                 "retriable-status-codes");
    char says[400];
    classification(covered, &set, says, sizeof says);
    snprintf(m->r->policy + strlen(m->r->policy),
             sizeof m->r->policy - strlen(m->r->policy), "+retry_on");
    if (set.codes[0])
        imp_param(m, path, NULL, "retry_on.status_codes", set.codes,
                  "the statuses retriable-status-codes retries");
    /* Envoy retries nothing when retry_on is empty: so does the layer. */
    imp_param(m, path, n, "retry_on.conditions", set.conditions,
              "%s%s: the retry_on layer %s (Envoy's retry_state_impl.cc)",
              on[0] ? on : "(nothing)", n ? "" : " (the default)", says);
    if (!n && m->r->n_fields > 0)
        m->r->fields[m->r->n_fields - 1].defaulted = true;
}

void imp_envoy_backoff(imp *m, const char *at, const char *count_path,
                       tree_node *n_retries, int64_t retries, tree_node *base,
                       int64_t base_ns, tree_node *max, int64_t max_ns)
{
    char p[200], v[32];
    snprintf(v, sizeof v, "%lld", (long long)retries + 1);
    imp_param(m, count_path, n_retries, "exponential.max_attempts", v,
              "retries + the first attempt%s",
              n_retries ? ""
                        : "; Envoy's "
                          "default is 1 retry");
    imp_fmt_duration(base_ns, v, sizeof v);
    snprintf(p, sizeof p, "%s.retry_back_off.base_interval", at);
    imp_param(m, p, base, "exponential.base", v,
              base ? NULL : "Envoy's default");
    if (max_ns == 0)
        max_ns = 10 * base_ns;
    imp_fmt_duration(max_ns, v, sizeof v);
    snprintf(p, sizeof p, "%s.retry_back_off.max_interval", at);
    imp_param(m, p, max, "exponential.cap", v,
              max ? NULL : "Envoy's default: 10 x base_interval");
    /* Envoy's source, not its docs: the router's jittered backoff
     * (source/common/common/backoff_strategy.cc, envoyproxy/envoy
     * @4280ef7) returns random() % next_interval_, next_interval_
     * starting at the base and doubling while it is under max/2, then
     * max_interval -- so retry n waits U[0, min(max, base x 2^(n-1))):
     * exponential's full jitter with multiplier 2 (in whole ms, and
     * max itself where base x 2^(n-1) falls 1 ms short of it by max/2's
     * rounding).  The router docs' (2^N - 1) x base is the multiplier of
     * the strategy that file had before (@18a4509). */
    imp_param(m, "(Envoy backoff)", NULL, "exponential.jitter", "full",
              "Envoy's jittered backoff (backoff_strategy.cc): retry n waits "
              "random(0, min(max_interval, base x 2^(n-1)))");
    imp_param(m, "(Envoy backoff)", NULL, "exponential.multiplier", "2",
              "the interval doubles per retry (Envoy's source; its docs' "
              "(2^n - 1) x base is an older strategy's); Envoy draws "
              "whole milliseconds");
}

/* Envoy: "consecutive_5xx ... defaults to 5", base_ejection_time 30 s,
 * max_ejection_time 300 s; each ejection lasts base x the number of
 * times the host was ejected (linear growth). */
void imp_envoy_outlier(imp *m, const char *at, tree_node *od, bool istio)
{
    char p[200], v[32];
    int64_t n = 5, ns = 30 * NS_PER_S, max_ns = 300 * NS_PER_S;
    const char *k_5xx = istio ? "consecutive5xxErrors" : "consecutive_5xx";
    const char *k_base = istio ? "baseEjectionTime" : "base_ejection_time";
    const char *k_max = istio ? "maxEjectionTime" : "max_ejection_time";
    const char *style = istio ? "go" : "proto";
    tree_node *c = tree_get(od, k_5xx);
    snprintf(p, sizeof p, "%s.%s", at, k_5xx);
    if (c && imp_int(m, p, c, 0, 1000000, &n) != 0)
        return;
    snprintf(v, sizeof v, "%lld", (long long)n);
    imp_param(m, p, c, "circuit_breaker.threshold", v, "%s",
              c ? "failures in a row that open it" : "the default");
    imp_param(m, "(ejection)", NULL, "circuit_breaker.mode", "consecutive",
              "one server is modelled: ejecting it is a breaker that opens "
              "(Envoy ejects one host of a pool; with a single host its "
              "panic threshold would keep sending to it)");
    tree_node *b = tree_get(od, k_base);
    snprintf(p, sizeof p, "%s.%s", at, k_base);
    if (b && imp_duration(m, p, b, style, &ns) != 0)
        return;
    imp_fmt_duration(ns, v, sizeof v);
    imp_param(m, p, b, "circuit_breaker.cooldown", v, b ? NULL : "the default");
    imp_param(m, "(ejection time)", NULL, "circuit_breaker.cooldown_growth",
              "linear", "the n-th ejection lasts base x n");
    tree_node *x = tree_get(od, k_max);
    snprintf(p, sizeof p, "%s.%s", at, k_max);
    if (x && imp_duration(m, p, x, style, &max_ns) != 0)
        return;
    /* Envoy: unset, it is 300 s or base_ejection_time, the larger. */
    if (x == NULL && ns > max_ns)
        max_ns = ns;
    imp_fmt_duration(max_ns, v, sizeof v);
    imp_param(m, p, x, "circuit_breaker.max_cooldown", v,
              x ? NULL
                : "the default: 300s, or the base ejection time if longer");
    static const char *const envoy_k[] = {
        "interval",
        "max_ejection_percent",
        "enforcing_consecutive_5xx",
        "consecutive_gateway_failure",
        "enforcing_consecutive_gateway_failure",
        "success_rate_minimum_hosts",
        "success_rate_request_volume",
        "success_rate_stdev_factor",
        "enforcing_success_rate",
        "failure_percentage_threshold",
        "split_external_local_origin_errors",
        "consecutive_local_origin_failure",
        NULL};
    static const char *const istio_k[] = {"interval",
                                          "maxEjectionPercent",
                                          "minHealthPercent",
                                          "consecutiveGatewayErrors",
                                          "splitExternalLocalOriginErrors",
                                          "consecutiveLocalOriginFailures",
                                          NULL};
    for (const char *const *k = istio ? istio_k : envoy_k; *k; k++) {
        tree_node *o = tree_get(od, *k);
        if (o) {
            snprintf(p, sizeof p, "%s.%s", at, *k);
            imp_skip(m, p, o,
                     "a pool of hosts is not modelled: the breaker "
                     "opens at the failure that reaches the threshold, not "
                     "at a sweep every interval, and only consecutive "
                     "5xx open it");
        }
    }
}

/* ---- finding routes and clusters ---------------------------------------- */

typedef struct found {
    tree_node *routes[64];
    char route_names[64][128];
    int n_routes;
    tree_node *clusters[64];
    int n_clusters;
} found;

static void route_name(tree_node *r, int i, char *buf, size_t len)
{
    const tree_node *name = tree_peek(r, "name");
    const tree_node *match = tree_peek(r, "match");
    const tree_node *prefix = tree_peek(match, "prefix");
    const tree_node *path = tree_peek(match, "path");
    if (name && name->kind == TREE_SCALAR)
        snprintf(buf, len, "%s", name->text);
    else if (prefix && prefix->kind == TREE_SCALAR)
        snprintf(buf, len, "%s", prefix->text);
    else if (path && path->kind == TREE_SCALAR)
        snprintf(buf, len, "%s", path->text);
    else
        snprintf(buf, len, "#%d", i);
}

/* Routes (a map with a route action, or a retry_policy of its own) and
 * clusters (a map with circuit_breakers or outlier_detection), anywhere
 * under n, in document order. */
static void find(tree_node *n, found *f)
{
    if (n->kind == TREE_MAP) {
        tree_node *action = tree_peek(n, "route");
        bool route =
            (action && action->kind == TREE_MAP &&
             (tree_peek(n, "match") || tree_peek(action, "retry_policy"))) ||
            tree_peek(n, "retry_policy");
        if (route && f->n_routes < 64) {
            route_name(n, f->n_routes, f->route_names[f->n_routes], 128);
            f->routes[f->n_routes++] = n;
        }
        if ((tree_peek(n, "circuit_breakers") ||
             tree_peek(n, "outlier_detection")) &&
            f->n_clusters < 64)
            f->clusters[f->n_clusters++] = n;
        if (route)
            return;
    }
    for (size_t i = 0; i < n->n; i++)
        find(n->items[i], f);
}

static tree_node *pick_cluster(found *f, const char *name)
{
    for (int i = 0; i < f->n_clusters; i++) {
        const tree_node *nm = tree_peek(f->clusters[i], "name");
        if (name == NULL || (nm && strcmp(imp_value(nm), name) == 0))
            return f->clusters[i];
    }
    return NULL;
}

/* ---- the route ---------------------------------------------------------- */

static void retry_policy(imp *m, tree_node *rp, const char *at)
{
    char p[200];
    int64_t retries = ENVOY_NUM_RETRIES, base = ENVOY_BASE_NS, max = 0;
    tree_node *nr = tree_get(rp, "num_retries");
    snprintf(p, sizeof p, "%s.num_retries", at);
    if (nr && imp_int(m, p, nr, 0, 999999, &retries) != 0)
        return;
    tree_node *bo = tree_get(rp, "retry_back_off");
    tree_node *b = tree_get(bo, "base_interval");
    tree_node *x = tree_get(bo, "max_interval");
    snprintf(p, sizeof p, "%s.retry_back_off", at);
    if ((b && imp_duration(m, p, b, "proto", &base) != 0) ||
        (x && imp_duration(m, p, x, "proto", &max) != 0))
        return;
    snprintf(p, sizeof p, "%s.num_retries", at);
    imp_envoy_backoff(m, at, p, nr, retries, b, base, x, max);
    tree_node *codes = tree_get(rp, "retriable_status_codes");
    snprintf(p, sizeof p, "%s.retry_on", at);
    imp_retry_on(m, p, tree_get(rp, "retry_on"), "", codes);
    if (codes) {
        tree_use_all(codes);
        snprintf(p, sizeof p, "%s.retriable_status_codes", at);
        imp_note(m, p, codes,
                 "the statuses retry_on's "
                 "retriable-status-codes retries");
    }
    tree_node *rl = tree_get(rp, "rate_limited_retry_back_off");
    if (rl) {
        tree_node *hdr = tree_get(rl, "reset_headers");
        tree_use_all(hdr);
        snprintf(p, sizeof p, "%s.rate_limited_retry_back_off.reset_headers",
                 at);
        imp_note(m, p, hdr,
                 "the server's Retry-After sets the delay: "
                 "the retry_after layer");
        int64_t mi = 300 * NS_PER_S;
        tree_node *mx = tree_get(rl, "max_interval");
        snprintf(p, sizeof p, "%s.rate_limited_retry_back_off.max_interval",
                 at);
        char v[32];
        if (mx && imp_duration(m, p, mx, "proto", &mi) != 0)
            return;
        imp_fmt_duration(mi, v, sizeof v);
        imp_param(m, p, mx, "retry_after.max_wait", v,
                  "%sdifference: a "
                  "longer Retry-After gives up here, Envoy falls back to "
                  "its backoff",
                  mx ? "" : "Envoy's default; ");
    }
    static const char *const pool[] = {
        "retry_host_predicate", "host_selection_retry_max_attempts",
        "retry_priority", "retriable_request_headers", "retriable_headers"};
    for (size_t i = 0; i < sizeof pool / sizeof *pool; i++) {
        tree_node *n = tree_get(rp, pool[i]);
        if (n) {
            tree_use_all(n);
            snprintf(p, sizeof p, "%s.%s", at, pool[i]);
            imp_skip(m, p, n,
                     "one server is modelled, not hosts to choose "
                     "among, nor request headers");
        }
    }
}

static void route_timeouts(imp *m, tree_node *action, tree_node *rp,
                           const char *at)
{
    char p[200], v[32];
    int64_t ns = ENVOY_ROUTE_TIMEOUT_NS, per_try = 0;
    tree_node *t = tree_get(action, "timeout");
    snprintf(p, sizeof p, "%s.timeout", at);
    if (t && imp_duration(m, p, t, "proto", &ns) != 0)
        return;
    imp_fmt_duration(ns, v, sizeof v);
    if (ns == 0)
        imp_note(m, p, t,
                 "0 disables the route's timeout: the scenario's "
                 "[clients] deadline stays");
    else
        imp_set(m, p, t, "clients.deadline", v, "%s",
                t ? "the route's timeout covers every retry"
                  : "Envoy's default route timeout, 15s, covers every retry");
    tree_node *pt = tree_get(rp, "per_try_timeout");
    char rpp[220];
    snprintf(rpp, sizeof rpp, "%s.retry_policy.per_try_timeout", at);
    if (pt && imp_duration(m, rpp, pt, "proto", &per_try) != 0)
        return;
    if (per_try > 0) {
        imp_fmt_duration(per_try, v, sizeof v);
        imp_set(m, rpp, pt, "clients.timeout", v, "per attempt");
    } else if (ns > 0)
        imp_set(m, rpp, NULL, "clients.timeout", v,
                "no per_try_timeout: "
                "an attempt may use the route's whole timeout");
}

static void budget(imp *m, tree_node *cluster)
{
    char v[32];
    tree_node *cb = tree_get(cluster, "circuit_breakers");
    tree_node *th = tree_get(cb, "thresholds");
    tree_node *def = NULL;
    for (size_t i = 0; th && th->kind == TREE_LIST && i < th->n; i++) {
        const tree_node *pr = tree_peek(th->items[i], "priority");
        if (pr == NULL || strcmp(imp_value(pr), "DEFAULT") == 0) {
            if (def == NULL) {
                def = th->items[i];
                def->used = true;
                continue;
            }
        }
        tree_use_all(th->items[i]);
        imp_skip(m, "circuit_breakers.thresholds", th->items[i],
                 "HIGH "
                 "priority traffic is not modelled: every request is "
                 "DEFAULT");
    }
    snprintf(m->r->policy + strlen(m->r->policy),
             sizeof m->r->policy - strlen(m->r->policy), "+concurrent_budget");
    tree_node *rb = tree_get(def, "retry_budget");
    const char *at = "circuit_breakers.thresholds[DEFAULT]";
    char p[200];
    if (rb) {
        double pct = 20;
        int64_t minc = ENVOY_MAX_RETRIES;
        tree_node *bp = tree_get(rb, "budget_percent");
        tree_node *bv = tree_get(bp, "value");
        if (bp && bp->kind == TREE_SCALAR)
            bv = bp;
        tree_node *mc = tree_get(rb, "min_retry_concurrency");
        snprintf(p, sizeof p, "%s.retry_budget.budget_percent", at);
        if (bv && imp_real(m, p, bv, 0, 100, &pct) != 0)
            return;
        snprintf(v, sizeof v, "%g", pct);
        imp_param(m, p, bv, "concurrent_budget.budget_percent", v, "%s",
                  bv ? "" : "Envoy's default");
        snprintf(p, sizeof p, "%s.retry_budget.min_retry_concurrency", at);
        if (mc && imp_int(m, p, mc, 0, 1000000, &minc) != 0)
            return;
        snprintf(v, sizeof v, "%lld", (long long)minc);
        imp_param(m, p, mc, "concurrent_budget.min_retry_concurrency", v, "%s",
                  mc ? "" : "Envoy's default");
        tree_node *mr = tree_get(def, "max_retries");
        if (mr) {
            snprintf(p, sizeof p, "%s.max_retries", at);
            imp_note(m, p, mr, "ignored by Envoy when retry_budget is set");
        }
    } else {
        int64_t mr = ENVOY_MAX_RETRIES;
        tree_node *n = tree_get(def, "max_retries");
        snprintf(p, sizeof p, "%s.max_retries", at);
        if (n && imp_int(m, p, n, 0, 1000000, &mr) != 0)
            return;
        snprintf(v, sizeof v, "%lld", (long long)mr);
        imp_param(m, p, n, "concurrent_budget.min_retry_concurrency", v, "%s",
                  n ? "concurrent retries per Envoy (process)"
                    : "Envoy's default circuit breaker: 3 concurrent retries "
                      "per Envoy (process), in force even when the file has no "
                      "cluster");
        imp_param(m, p, NULL, "concurrent_budget.budget_percent", "0",
                  "a flat limit: no share of the active requests");
    }
    static const char *const pool[] = {
        "max_connections", "max_pending_requests", "max_requests",
        "max_connection_pools", "track_remaining"};
    for (size_t i = 0; i < sizeof pool / sizeof *pool; i++) {
        tree_node *n = tree_get(def, pool[i]);
        if (n) {
            snprintf(p, sizeof p, "%s.%s", at, pool[i]);
            imp_skip(m, p, n,
                     "Envoy answers 503 locally past this limit; "
                     "stormbench's [clients] connections makes attempts "
                     "wait instead, so it is not set");
        }
    }
}

static int pick_route(imp *m, found *f, const char *sel)
{
    int pick = -1;
    for (int i = 0; i < f->n_routes && pick < 0; i++) {
        char idx[16];
        snprintf(idx, sizeof idx, "#%d", i);
        if (sel[0] == '\0' || strcmp(sel, f->route_names[i]) == 0 ||
            strcmp(sel, idx) == 0)
            pick = i;
    }
    size_t used = 0;
    for (int i = 0; i < f->n_routes; i++) {
        if (i == pick)
            continue;
        tree_use_all(f->routes[i]);
        used += (size_t)snprintf(m->r->others + used,
                                 sizeof m->r->others - used, "%s%s",
                                 used ? ", " : "routes ", f->route_names[i]);
        if (used >= sizeof m->r->others)
            used = sizeof m->r->others - 1;
    }
    if (pick < 0 && f->n_routes)
        imp_fail(m, "route", NULL, "no route named '%s'; the file has: %s", sel,
                 m->r->others);
    return pick;
}

int import_envoy(imp *m, tree *t, const char *sel)
{
    found f;
    memset(&f, 0, sizeof f);
    for (size_t i = 0; i < t->n_docs; i++)
        find(t->docs[i], &f);
    int pick = pick_route(m, &f, sel);
    if (m->failed)
        return -1;
    tree_node *cluster = NULL;
    snprintf(m->r->policy, sizeof m->r->policy, "exponential");
    if (pick >= 0) {
        tree_node *r = f.routes[pick];
        tree_node *action = tree_get(r, "route");
        if (action == NULL)
            action = r; /* a virtual host's, or a bare retry_policy */
        tree_node *rp = tree_get(action, "retry_policy");
        char at[200];
        snprintf(at, sizeof at, "route %s", f.route_names[pick]);
        snprintf(m->r->selected, sizeof m->r->selected, "%s", at);
        tree_node *match = tree_get(r, "match");
        tree_use_all(match);
        tree_use_all(tree_get(r, "name"));
        tree_node *cl = tree_get(action, "cluster");
        if (rp == NULL) {
            imp_note(m, at, r, "no retry_policy: Envoy does not retry");
            snprintf(m->r->policy, sizeof m->r->policy, "none");
        } else {
            char rpat[220];
            snprintf(rpat, sizeof rpat, "%s.retry_policy", at);
            retry_policy(m, rp, rpat);
            if (tree_get(rp, "rate_limited_retry_back_off"))
                snprintf(m->r->policy + strlen(m->r->policy),
                         sizeof m->r->policy - strlen(m->r->policy),
                         "+retry_after");
        }
        route_timeouts(m, action, rp, at);
        if (cl) {
            imp_note(m, "cluster", cl,
                     "its circuit_breakers and "
                     "outlier_detection apply");
            cluster = pick_cluster(&f, imp_value(cl));
        }
        imp_sweep(m, r, at, "an Envoy route");
    } else
        cluster = pick_cluster(&f, NULL);
    if (pick >= 0 || cluster) {
        if (strcmp(m->r->policy, "none") != 0)
            budget(m, cluster);
        tree_node *od = tree_get(cluster, "outlier_detection");
        if (od) {
            imp_envoy_outlier(m, "outlier_detection", od, false);
            snprintf(m->r->policy + strlen(m->r->policy),
                     sizeof m->r->policy - strlen(m->r->policy),
                     "+circuit_breaker");
            imp_sweep(m, od, "outlier_detection",
                      "Envoy's outlier "
                      "detection (only consecutive 5xx ejection maps)");
        }
        if (cluster)
            imp_sweep(m, tree_get(cluster, "circuit_breakers"),
                      "circuit_breakers", "Envoy's circuit breakers");
    }
    if (pick < 0 && cluster == NULL)
        return imp_fail(m, "route", NULL,
                        "no route with a retry_policy and "
                        "no cluster with circuit_breakers or "
                        "outlier_detection in the file");
    return m->failed;
}
