/*
 * import_grpc.c -- a gRPC service config (JSON), read as gRFC A6 "gRPC
 * Retry Design" and the service config documentation define it.
 *
 * A methodConfig's retryPolicy is exponential backoff with full jitter
 * (A6: the n-th retry waits random(0, min(initialBackoff x
 * backoffMultiplier^(n-1), maxBackoff)), stormbench's exponential with
 * jitter = full) under token_bucket, which carries retryableStatusCodes,
 * pushback and, when the config has retryThrottling, the bucket; without
 * it the layer runs with throttling = false.  This is the stack the
 * gRPC built-in replays against grpc-java (check_policy_token_bucket.c).
 * A hedgingPolicy is `none+hedge` (A6: a method has a retryPolicy or a
 * hedgingPolicy, never both), with token_bucket over it under
 * retryThrottling, charged by the nonFatalStatusCodes.
 *
 * timeout is the whole call's deadline (clients.deadline); an attempt
 * without perAttemptRecvTimeout may use all of it (clients.timeout).
 */
#include <stdio.h>
#include <string.h>

#include "classifier.h"
#include "import_fmt.h"

/* A6: "maxAttempts ... MUST be an integer greater than 1 ... values
 * greater than 5 are treated as 5". */
#define GRPC_MAX_ATTEMPTS 5

static bool name_matches(tree_node *name, const char *sel)
{
    const char *svc = tree_text(name, "service");
    const char *meth = tree_text(name, "method");
    char full[300];
    snprintf(full, sizeof full, "%s/%s", svc ? svc : "", meth ? meth : "");
    if (strcmp(full, sel) == 0)
        return true;
    /* "pkg.Service" selects a config for the whole service. */
    return svc && strcmp(svc, sel) == 0 && (meth == NULL || !*meth);
}

/* "grpc.testing.Echo/Call, grpc.testing.Echo" of one methodConfig. */
static void describe_names(tree_node *mc, char *buf, size_t len)
{
    tree_node *names = tree_peek(mc, "name");
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0;
         names && names->kind == TREE_LIST && i < names->n && used < len; i++) {
        const tree_node *nm = names->items[i];
        const tree_node *s = tree_peek(nm, "service");
        const tree_node *m = tree_peek(nm, "method");
        used += (size_t)snprintf(
            buf + used, len - used, "%s%s%s%s", used ? ", " : "",
            s && s->text[0] ? s->text : "(every service)",
            m && m->text[0] ? "/" : "", m && m->text[0] ? m->text : "");
    }
    if (used == 0)
        snprintf(buf, len, "(no name)");
}

static int codes(imp *m, const char *path, tree_node *list, char *out,
                 size_t len)
{
    out[0] = '\0';
    if (list == NULL)
        return 0;
    if (list->kind != TREE_LIST)
        return imp_fail(m, path, list, "expected a list of status codes");
    size_t used = 0;
    for (size_t i = 0; i < list->n; i++) {
        const tree_node *c = list->items[i];
        int code = -1;
        if (c->kind == TREE_SCALAR && c->string)
            code = classify_grpc_parse(c->text);
        else if (c->kind == TREE_SCALAR) {
            int64_t v;
            code = imp_int(m, path, c, 0, 16, &v) == 0 ? (int)v : -1;
        }
        if (code < 0)
            return imp_fail(m, path, c,
                            "expected a gRPC status code name "
                            "(UNAVAILABLE, ...) or number 0-16, got '%s'",
                            imp_value(c));
        used += (size_t)snprintf(out + used, len - used, "%s%s",
                                 used ? "," : "", classify_grpc_name(code));
    }
    return 0;
}

static int attempts(imp *m, const char *path, tree_node *n, const char *key,
                    int64_t minus)
{
    int64_t v;
    if (n == NULL)
        return imp_fail(m, path, NULL, "required by gRFC A6, missing");
    if (imp_int(m, path, n, 2, 1000000, &v) != 0)
        return -1;
    char val[32];
    int64_t eff = v > GRPC_MAX_ATTEMPTS ? GRPC_MAX_ATTEMPTS : v;
    snprintf(val, sizeof val, "%lld", (long long)(eff - minus));
    if (v > GRPC_MAX_ATTEMPTS)
        imp_param(m, path, n, key, val,
                  "gRFC A6 treats maxAttempts above 5 "
                  "as 5");
    else
        imp_param(m, path, n, key, val,
                  minus ? "hedges after the first "
                          "copy: maxAttempts - 1"
                        : NULL);
    return 0;
}

static void duration_param(imp *m, const char *path, tree_node *n,
                           const char *key, bool required, const char *dflt)
{
    int64_t ns;
    char v[32];
    if (n == NULL) {
        if (required)
            imp_fail(m, path, NULL, "required by gRFC A6, missing");
        else
            imp_param(m, path, NULL, key, dflt, "gRFC A6's default");
        return;
    }
    if (imp_duration(m, path, n, "proto", &ns) != 0)
        return;
    if (required && ns == 0) {
        imp_fail(m, path, n, "must be above 0 (gRFC A6)");
        return;
    }
    imp_fmt_duration(ns, v, sizeof v);
    imp_param(m, path, n, key, v, NULL);
}

static void retry_policy(imp *m, tree_node *rp, const char *at)
{
    char p[200];
#define P(k) (snprintf(p, sizeof p, "%s.retryPolicy." k, at), p)
    attempts(m, P("maxAttempts"), tree_get(rp, "maxAttempts"),
             "exponential.max_attempts", 0);
    duration_param(m, P("initialBackoff"), tree_get(rp, "initialBackoff"),
                   "exponential.base", true, NULL);
    duration_param(m, P("maxBackoff"), tree_get(rp, "maxBackoff"),
                   "exponential.cap", true, NULL);
    tree_node *mult = tree_get(rp, "backoffMultiplier");
    double x;
    if (mult == NULL)
        imp_fail(m, P("backoffMultiplier"), NULL,
                 "required by gRFC A6, "
                 "missing");
    else if (imp_real(m, P("backoffMultiplier"), mult, 1, 100, &x) == 0)
        imp_param(m, p, mult, "exponential.multiplier", mult->text, NULL);
    imp_param(m, P("(backoff jitter)"), NULL, "exponential.jitter", "full",
              "gRFC A6: each retry waits random(0, the current backoff)");
    char list[400];
    tree_node *rc = tree_get(rp, "retryableStatusCodes");
    P("retryableStatusCodes");
    if (rc == NULL || (rc->kind == TREE_LIST && rc->n == 0))
        imp_fail(m, p, rc,
                 "required by gRFC A6 and "
                 "must not be empty");
    else if (codes(m, p, rc, list, sizeof list) == 0)
        imp_param(m, p, rc, "token_bucket.retryable_status_codes", list,
                  "retried, and charged to the bucket; other statuses are "
                  "returned to the caller");
    tree_node *pa = tree_get(rp, "perAttemptRecvTimeout");
    int64_t ns;
    char v[32];
    if (pa &&
        imp_duration(m, P("perAttemptRecvTimeout"), pa, "proto", &ns) == 0) {
        imp_fmt_duration(ns, v, sizeof v);
        imp_set(m, p, pa, "clients.timeout", v, "per attempt");
    }
#undef P
}

static void hedging_policy(imp *m, tree_node *hp, const char *at)
{
    char p[200];
#define P(k) (snprintf(p, sizeof p, "%s.hedgingPolicy." k, at), p)
    attempts(m, P("maxAttempts"), tree_get(hp, "maxAttempts"),
             "hedge.max_hedged", 1);
    duration_param(m, P("hedgingDelay"), tree_get(hp, "hedgingDelay"),
                   "hedge.delay", false, "0s");
    char list[400];
    tree_node *nf = tree_get(hp, "nonFatalStatusCodes");
    if (codes(m, P("nonFatalStatusCodes"), nf, list, sizeof list) == 0)
        imp_param(m, p, nf, "hedge.non_fatal_status_codes", list,
                  nf ? NULL
                     : "gRFC A6's default: none (any failure stops "
                       "hedging)");
#undef P
}

static void throttling(imp *m, tree_node *doc, bool hedging,
                       const char *nonfatal)
{
    tree_node *rt = tree_get(doc, "retryThrottling");
    if (rt == NULL) {
        imp_param(m, "retryThrottling", NULL, "token_bucket.throttling",
                  "false",
                  "the config has no retryThrottling: retries are "
                  "not throttled");
        return;
    }
    imp_param(m, "retryThrottling", rt, "token_bucket.throttling", "true",
              NULL);
    int64_t tokens;
    double ratio;
    tree_node *mt = tree_get(rt, "maxTokens");
    tree_node *tr = tree_get(rt, "tokenRatio");
    if (mt == NULL || tr == NULL) {
        imp_fail(
            m, mt ? "retryThrottling.tokenRatio" : "retryThrottling.maxTokens",
            rt, "required by gRFC A6, missing");
        return;
    }
    if (imp_int(m, "retryThrottling.maxTokens", mt, 1, 1000, &tokens) == 0)
        imp_param(m, "retryThrottling.maxTokens", mt, "token_bucket.max_tokens",
                  mt->text, NULL);
    if (imp_real(m, "retryThrottling.tokenRatio", tr, 0.001, 1000, &ratio) == 0)
        imp_param(m, "retryThrottling.tokenRatio", tr,
                  "token_bucket.token_ratio", tr->text,
                  "gRFC A6 keeps 3 decimals");
    if (hedging)
        imp_param(m, "hedgingPolicy.nonFatalStatusCodes", NULL,
                  "token_bucket.retryable_status_codes", nonfatal,
                  "under hedging gRPC charges the bucket for the "
                  "non-fatal statuses");
}

static void timeouts(imp *m, tree_node *mc, const char *at)
{
    char p[200];
    snprintf(p, sizeof p, "%s.timeout", at);
    tree_node *t = tree_get(mc, "timeout");
    int64_t ns;
    char v[32];
    if (t == NULL) {
        imp_note(m, p, NULL,
                 "no deadline in the config: the scenario's "
                 "[clients] deadline and timeout stay");
        return;
    }
    if (imp_duration(m, p, t, "proto", &ns) != 0)
        return;
    imp_fmt_duration(ns, v, sizeof v);
    imp_set(m, p, t, "clients.deadline", v,
            "the whole call, every attempt "
            "included");
    bool per_attempt = false;
    for (int i = 0; i < m->r->n_sets; i++)
        per_attempt |= strcmp(m->r->sets[i].key, "clients.timeout") == 0;
    if (!per_attempt)
        imp_set(m, p, t, "clients.timeout", v,
                "without "
                "perAttemptRecvTimeout an attempt may use the whole "
                "deadline");
}

static const char *const not_retry[][2] = {
    {"waitForReady", "waiting for a connection to become ready is not "
                     "modelled: an attempt is sent at once"},
    {"maxRequestMessageBytes", "message sizes are not modelled"},
    {"maxResponseMessageBytes", "message sizes are not modelled"},
};

/* The methodConfig the selector names (first when none), and the names
 * of the others into r->others. */
static tree_node *select_method(imp *m, tree_node *list, const char *sel,
                                size_t *index)
{
    tree_node *pick = NULL;
    size_t used = 0;
    for (size_t i = 0; list && list->kind == TREE_LIST && i < list->n; i++) {
        tree_node *mc = list->items[i];
        tree_node *names = tree_peek(mc, "name");
        bool match = sel[0] == '\0';
        for (size_t k = 0; !match && names && k < names->n; k++)
            match = name_matches(names->items[k], sel);
        if (match && pick == NULL) {
            pick = mc;
            *index = i;
            continue;
        }
        char d[300];
        describe_names(mc, d, sizeof d);
        tree_use_all(mc);
        used +=
            (size_t)snprintf(m->r->others + used, sizeof m->r->others - used,
                             "%s%s", used ? "; " : "methods ", d);
        if (used >= sizeof m->r->others)
            used = sizeof m->r->others - 1;
    }
    return pick;
}

int import_grpc(imp *m, tree *t, const char *sel)
{
    tree_node *doc = t->docs[0];
    tree_node *list = tree_get(doc, "methodConfig");
    size_t idx = 0;
    tree_node *mc = select_method(m, list, sel, &idx);
    if (mc == NULL)
        return imp_fail(m, "methodConfig", list,
                        sel[0] ? "no methodConfig names '%s'; the file has: %s"
                               : "no methodConfig in the file%s%s",
                        sel, m->r->others);
    char at[64], d[sizeof m->r->selected - 8];
    snprintf(at, sizeof at, "methodConfig[%zu]", idx);
    describe_names(mc, d, sizeof d);
    snprintf(m->r->selected, sizeof m->r->selected, "method %s", d);
    tree_node *names = tree_get(mc, "name");
    tree_use_all(names);
    char p[200];
    snprintf(p, sizeof p, "%s.name", at);
    imp_note(m, p, names, "selects the method");
    tree_node *rp = tree_get(mc, "retryPolicy");
    tree_node *hp = tree_get(mc, "hedgingPolicy");
    if (rp && hp)
        return imp_fail(m, at, mc,
                        "has both a retryPolicy and a "
                        "hedgingPolicy; gRFC A6 allows one");
    char nonfatal[400] = "";
    if (hp) {
        hedging_policy(m, hp, at);
        for (int i = 0; i < m->r->n_params; i++)
            if (strcmp(m->r->params[i].key, "hedge.non_fatal_status_codes") ==
                0)
                snprintf(nonfatal, sizeof nonfatal, "%s",
                         m->r->params[i].value);
    } else if (rp)
        retry_policy(m, rp, at);
    else
        imp_note(m, at, mc,
                 "neither retryPolicy nor hedgingPolicy: the "
                 "method is not retried");
    bool throttled = tree_peek(doc, "retryThrottling") != NULL;
    snprintf(m->r->policy, sizeof m->r->policy, "%s",
             hp   ? (throttled ? "none+hedge+token_bucket" : "none+hedge")
             : rp ? "exponential+token_bucket"
                  : "none");
    if (rp || (hp && throttled))
        throttling(m, doc, hp != NULL, nonfatal);
    else
        tree_use_all(tree_get(doc, "retryThrottling"));
    timeouts(m, mc, at);
    for (size_t i = 0; i < sizeof not_retry / sizeof *not_retry; i++) {
        tree_node *n = tree_get(mc, not_retry[i][0]);
        if (n) {
            snprintf(p, sizeof p, "%s.%s", at, not_retry[i][0]);
            imp_skip(m, p, n, "%s", not_retry[i][1]);
        }
    }
    static const char *const top[] = {
        "loadBalancingConfig", "loadBalancingPolicy", "healthCheckConfig"};
    for (size_t i = 0; i < sizeof top / sizeof *top; i++) {
        tree_node *n = tree_get(doc, top[i]);
        if (n) {
            tree_use_all(n);
            imp_skip(m, top[i], n,
                     "one server is modelled, not a pool of "
                     "backends to balance or health-check");
        }
    }
    imp_sweep(m, mc, at, "a gRPC methodConfig");
    imp_sweep(m, doc, "", "a gRPC service config");
    return m->failed;
}
