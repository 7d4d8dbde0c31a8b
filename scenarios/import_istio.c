/*
 * import_istio.c -- an Istio VirtualService's http routes (HTTPRetry:
 * attempts, perTryTimeout, retryOn; the route's timeout) with the
 * DestinationRule of the same host, when the file has one
 * (trafficPolicy.connectionPool.http.maxRetries, outlierDetection),
 * from networking.istio.io v1/v1beta1/v1alpha3, several documents in
 * one file (---).
 *
 * Istio programs Envoy, so the stack is Envoy's (import_envoy.c): Istio
 * sets no retry_back_off, so Envoy's 25 ms base and 250 ms cap apply.
 * Istio's defaults differ from Envoy's: a route without `retries`
 * retries 2 times on "connect-failure,refused-stream,unavailable,
 * cancelled,retriable-status-codes" (503); maxRetries defaults to
 * 2^32 - 1, so there is no concurrent-retry limit unless it is set;
 * the route has no timeout unless it is set.
 */
#include <stdio.h>
#include <string.h>

#include "import_fmt.h"
#include "units.h"

#define ISTIO_ATTEMPTS 2
#define ISTIO_RETRY_ON                                                         \
    "connect-failure,refused-stream,unavailable,cancelled,503"

static tree_node *doc_of_kind(tree *t, const char *kind, size_t from)
{
    for (size_t i = from; i < t->n_docs; i++) {
        const tree_node *k = tree_peek(t->docs[i], "kind");
        if (k && strcmp(imp_value(k), kind) == 0)
            return t->docs[i];
    }
    return NULL;
}

static void retries(imp *m, tree_node *http, const char *at)
{
    char p[200], v[32];
    tree_node *r = tree_get(http, "retries");
    int64_t n = ISTIO_ATTEMPTS;
    tree_node *a = tree_get(r, "attempts");
    snprintf(p, sizeof p, "%s.retries.attempts", at);
    if (a && imp_int(m, p, a, 0, 999999, &n) != 0)
        return;
    char rat[200];
    snprintf(rat, sizeof rat, "%s.retries", at);
    imp_envoy_backoff(m, rat, p, a, n, NULL, 25 * NS_PER_MS, NULL, 0);
    snprintf(p, sizeof p, "%s.retries.retryOn", at);
    imp_retry_on(m, p, tree_get(r, "retryOn"), ISTIO_RETRY_ON, NULL);
    tree_node *rrl = tree_get(r, "retryRemoteLocalities");
    if (rrl)
        imp_skip(m, "retries.retryRemoteLocalities", rrl,
                 "localities are "
                 "not modelled");
    int64_t route_ns = 0, per_try = 0;
    tree_node *t = tree_get(http, "timeout");
    snprintf(p, sizeof p, "%s.timeout", at);
    if (t && imp_duration(m, p, t, "go", &route_ns) != 0)
        return;
    if (route_ns > 0) {
        imp_fmt_duration(route_ns, v, sizeof v);
        imp_set(m, p, t, "clients.deadline", v,
                "the route's timeout "
                "covers every retry");
    } else
        imp_note(m, p, t,
                 "no route timeout (Istio's default): the "
                 "scenario's [clients] deadline stays");
    tree_node *pt = tree_get(r, "perTryTimeout");
    snprintf(p, sizeof p, "%s.retries.perTryTimeout", at);
    if (pt && imp_duration(m, p, pt, "go", &per_try) != 0)
        return;
    if (per_try > 0) {
        imp_fmt_duration(per_try, v, sizeof v);
        imp_set(m, p, pt, "clients.timeout", v, "per attempt");
    } else if (route_ns > 0) {
        imp_fmt_duration(route_ns, v, sizeof v);
        imp_set(m, p, NULL, "clients.timeout", v,
                "Istio's default: the "
                "route's timeout");
    } else
        imp_note(m, p, NULL,
                 "no per-try or route timeout: the scenario's "
                 "[clients] timeout stays");
    if (r)
        imp_sweep(m, r, "retries", "Istio's HTTPRetry");
}

static void destination_rule(imp *m, tree_node *dr)
{
    char p[200], v[32];
    tree_node *spec = tree_get(dr, "spec");
    tree_node *tp = tree_get(spec, "trafficPolicy");
    tree_node *http = tree_get(tree_get(tp, "connectionPool"), "http");
    tree_node *mr = tree_get(http, "maxRetries");
    int64_t n;
    snprintf(p, sizeof p,
             "DestinationRule.trafficPolicy.connectionPool."
             "http.maxRetries");
    if (mr && imp_int(m, p, mr, 0, 4294967295LL, &n) == 0) {
        snprintf(m->r->policy + strlen(m->r->policy),
                 sizeof m->r->policy - strlen(m->r->policy),
                 "+concurrent_budget");
        snprintf(v, sizeof v, "%lld", (long long)(n > 1000000 ? 1000000 : n));
        imp_param(m, p, mr, "concurrent_budget.min_retry_concurrency", v,
                  "retries outstanding at once, per Envoy (process)");
        imp_param(m, p, NULL, "concurrent_budget.budget_percent", "0",
                  "a flat limit");
    } else if (mr == NULL)
        imp_note(m, p, NULL,
                 "not set: Istio's default, 2^32 - 1, leaves "
                 "retries unlimited");
    static const char *const pool[] = {
        "http1MaxPendingRequests",  "http2MaxRequests",
        "maxRequestsPerConnection", "idleTimeout",
        "h2UpgradePolicy",          "useClientProtocol"};
    for (size_t i = 0; i < sizeof pool / sizeof *pool; i++) {
        tree_node *x = tree_get(http, pool[i]);
        if (x) {
            snprintf(p, sizeof p, "connectionPool.http.%s", pool[i]);
            imp_skip(m, p, x,
                     "Envoy answers 503 locally past this limit; "
                     "stormbench's [clients] connections makes attempts "
                     "wait instead, so it is not set");
        }
    }
    tree_node *od = tree_get(tp, "outlierDetection");
    if (od) {
        imp_envoy_outlier(m, "outlierDetection", od, true);
        snprintf(m->r->policy + strlen(m->r->policy),
                 sizeof m->r->policy - strlen(m->r->policy),
                 "+circuit_breaker");
    }
    tree_use_all(tree_get(dr, "apiVersion"));
    tree_use_all(tree_get(dr, "kind"));
    tree_use_all(tree_get(dr, "metadata"));
    tree_use_all(tree_get(spec, "host"));
    imp_sweep(m, spec, "DestinationRule.spec", "an Istio DestinationRule");
}

static const char *http_name(tree_node *h, size_t i, char *buf, size_t len)
{
    const tree_node *n = tree_peek(h, "name");
    if (n && n->kind == TREE_SCALAR)
        snprintf(buf, len, "%s", n->text);
    else
        snprintf(buf, len, "#%zu", i);
    return buf;
}

int import_istio(imp *m, tree *t, const char *sel)
{
    tree_node *vs = doc_of_kind(t, "VirtualService", 0);
    tree_node *dr = doc_of_kind(t, "DestinationRule", 0);
    snprintf(m->r->policy, sizeof m->r->policy, "exponential");
    tree_node *http = NULL;
    char name[128] = "";
    if (vs) {
        tree_use_all(tree_get(vs, "apiVersion"));
        tree_use_all(tree_get(vs, "kind"));
        tree_use_all(tree_get(vs, "metadata"));
        tree_node *spec = tree_get(vs, "spec");
        tree_use_all(tree_get(spec, "hosts"));
        tree_use_all(tree_get(spec, "gateways"));
        tree_node *list = tree_get(spec, "http");
        size_t used = 0;
        for (size_t i = 0; list && i < list->n; i++) {
            char nm[128];
            http_name(list->items[i], i, nm, sizeof nm);
            char idx[24];
            snprintf(idx, sizeof idx, "#%zu", i);
            if (http == NULL && (sel[0] == '\0' || strcmp(sel, nm) == 0 ||
                                 strcmp(sel, idx) == 0)) {
                http = list->items[i];
                snprintf(name, sizeof name, "%s", nm);
                continue;
            }
            tree_use_all(list->items[i]);
            used += (size_t)snprintf(m->r->others + used,
                                     sizeof m->r->others - used, "%s%s",
                                     used ? ", " : "http routes ", nm);
            if (used >= sizeof m->r->others)
                used = sizeof m->r->others - 1;
        }
        if (http == NULL)
            return imp_fail(m, "spec.http", list, "no http route%s%s%s%s",
                            sel[0] ? " named '" : "", sel,
                            sel[0] ? "'; the file has: " : "", m->r->others);
        char at[160];
        snprintf(at, sizeof at, "http %s", name);
        snprintf(m->r->selected, sizeof m->r->selected,
                 "VirtualService http route %s", name);
        tree_use_all(tree_get(http, "name"));
        tree_use_all(tree_get(http, "match"));
        tree_node *route = tree_get(http, "route");
        tree_use_all(route);
        imp_note(m, "route", route,
                 "where the requests go: the scenario's "
                 "server");
        retries(m, http, at);
        imp_sweep(m, http, at, "an Istio HTTPRoute");
        imp_sweep(m, spec, "VirtualService.spec", "an Istio VirtualService");
    }
    if (vs == NULL && dr)
        retries(m, NULL, "http (Istio's default)");
    if (dr)
        destination_rule(m, dr);
    else if (vs)
        imp_note(m, "DestinationRule", NULL,
                 "none in the file: no "
                 "concurrent-retry limit and no outlier detection");
    if (vs == NULL && dr == NULL)
        return imp_fail(m, "kind", NULL,
                        "no VirtualService or "
                        "DestinationRule in the file");
    if (vs == NULL)
        snprintf(m->r->selected, sizeof m->r->selected,
                 "DestinationRule "
                 "only (no VirtualService: Istio's default retries)");
    return m->failed;
}
