/*
 * import_r4j.c -- resilience4j's Spring Boot YAML (resilience4j.retry,
 * .circuitbreaker, .bulkhead, .timelimiter; `instances` and `configs`,
 * an instance's baseConfig, else configs.default), with RetryConfig's,
 * CircuitBreakerConfig's, BulkheadConfig's and TimeLimiterConfig's field
 * names and defaults.  The keys may be dotted ("resilience4j.retry:") or
 * nested ("resilience4j: retry:").
 *
 * The retry: a constant waitDuration is `fixed`; with
 * enableExponentialBackoff it is `exponential` without jitter; with
 * enableRandomizedWait, `exponential` with jitter = ratio (resilience4j's
 * IntervalFunction, which the built-in replays).  The circuit breaker is
 * circuit_breaker in window mode (the built-in replays resilience4j's
 * CircuitBreakerMetrics).  The decorators nest as resilience4j's default
 * aspect order does, Retry(CircuitBreaker(TimeLimiter(Bulkhead(call)))):
 * every attempt passes the breaker, the time limit and the bulkhead.
 */
#include <stdio.h>
#include <string.h>

#include "import_fmt.h"
#include "units.h"

typedef struct r4j {
    imp *m;
    const char *module; /* "retry" */
    tree_node *inst;    /* the instance's own map */
    tree_node *base;    /* its baseConfig, or configs.default */
    char at[160];       /* "resilience4j.retry.instances.backendA" */
} r4j;

static tree_node *module(tree_node *doc, const char *name)
{
    char dotted[64];
    snprintf(dotted, sizeof dotted, "resilience4j.%s", name);
    tree_node *n = tree_get(doc, dotted);
    if (n == NULL)
        n = tree_get(tree_get(doc, "resilience4j"), name);
    return n;
}

/* A field of the instance, else of its base config; its path in *path. */
static tree_node *field(r4j *c, const char *key, char *path, size_t len)
{
    tree_node *n = tree_get(c->inst, key);
    if (n) {
        snprintf(path, len, "%s.%s", c->at, key);
        return n;
    }
    n = tree_get(c->base, key);
    snprintf(path, len, "resilience4j.%s.configs.%s", c->module, key);
    return n;
}

static int open_module(imp *m, tree_node *doc, const char *name,
                       const char *sel, r4j *c)
{
    memset(c, 0, sizeof *c);
    c->m = m;
    c->module = name;
    tree_node *mod = module(doc, name);
    if (mod == NULL)
        return 0;
    tree_node *insts = tree_get(mod, "instances");
    tree_node *configs = tree_get(mod, "configs");
    c->inst = tree_get(insts, sel);
    if (c->inst == NULL)
        return 0;
    snprintf(c->at, sizeof c->at, "resilience4j.%s.instances.%s", name, sel);
    const char *bc = tree_text(c->inst, "baseConfig");
    c->base = tree_get(configs, bc ? bc : "default");
    if (bc && c->base == NULL)
        return imp_fail(m, c->at, tree_peek(c->inst, "baseConfig"),
                        "baseConfig '%s' names no entry of "
                        "resilience4j.%s.configs",
                        bc, name);
    return 1;
}

static void dur(r4j *c, const char *key, const char *to, int64_t dflt,
                const char *note, int64_t *out)
{
    char p[220], v[32];
    tree_node *n = field(c, key, p, sizeof p);
    int64_t ns = dflt;
    if (n && imp_duration(c->m, p, n, "spring", &ns) != 0)
        return;
    imp_fmt_duration(ns, v, sizeof v);
    if (out)
        *out = ns;
    if (to)
        imp_param(c->m, p, n, to, v, "%s",
                  n ? note
                    : "resilience4j's "
                      "default");
}

static bool flag(r4j *c, const char *key)
{
    char p[220];
    tree_node *n = field(c, key, p, sizeof p);
    bool v = false;
    if (n && imp_bool(c->m, p, n, &v) == 0)
        imp_note(c->m, p, n, "%s", v ? "on" : "off");
    return v;
}

static void number(r4j *c, const char *key, const char *to, double dflt,
                   double scale, double lo, double hi)
{
    char p[220], v[32];
    tree_node *n = field(c, key, p, sizeof p);
    double x = dflt;
    if (n && imp_real(c->m, p, n, lo, hi, &x) != 0)
        return;
    snprintf(v, sizeof v, "%.15g", x * scale);
    imp_param(c->m, p, n, to, v, "%s",
              n ? (scale != 1 ? "a percentage, "
                                "as a ratio"
                              : "")
                : "resilience4j's default");
}

static void skip_fields(r4j *c, const char *const *keys, const char *why)
{
    char p[220];
    for (; *keys; keys++) {
        tree_node *n = field(c, *keys, p, sizeof p);
        if (n) {
            tree_use_all(n);
            imp_skip(c->m, p, n, "%s", why);
        }
    }
}

static const char *const exceptions[] = {
    "retryExceptions",          "ignoreExceptions",
    "recordExceptions",         "retryOnResultPredicate",
    "retryExceptionPredicate",  "recordFailurePredicate",
    "ignoreExceptionPredicate", NULL};

static void retry(r4j *c, char *stack, size_t len)
{
    bool expo = flag(c, "enableExponentialBackoff");
    bool rnd = flag(c, "enableRandomizedWait");
    const char *pol = expo || rnd ? "exponential" : "fixed";
    snprintf(stack, len, "%s", pol);
    char key[64];
    snprintf(key, sizeof key, "%s.max_attempts", pol);
    number(c, "maxAttempts", key, 3, 1, 1, 1000000);
    snprintf(key, sizeof key, "%s.%s", pol, expo || rnd ? "base" : "delay");
    dur(c, "waitDuration", key, 500 * NS_PER_MS, "", NULL);
    if (expo || rnd) {
        if (expo)
            number(c, "exponentialBackoffMultiplier", "exponential.multiplier",
                   1.5, 1, 1, 100);
        else
            imp_param(c->m, "(randomized wait)", NULL, "exponential.multiplier",
                      "1",
                      "a constant wait, "
                      "randomized");
        char p[220];
        tree_node *mx = field(c, "exponentialMaxWaitDuration", p, sizeof p);
        if (mx)
            dur(c, "exponentialMaxWaitDuration", "exponential.cap", 0, "",
                NULL);
        else
            imp_param(c->m, "exponentialMaxWaitDuration", NULL,
                      "exponential.cap", "86400s",
                      "resilience4j has no cap "
                      "by default; a day is the largest the built-in takes");
        imp_param(c->m, rnd ? "enableRandomizedWait" : "(no jitter)", NULL,
                  "exponential.jitter", rnd ? "ratio" : "none", NULL);
        if (rnd)
            number(c, "randomizedWaitFactor", "exponential.ratio", 0.5, 1, 0,
                   1);
    }
    skip_fields(c, exceptions,
                "exceptions are not modelled: every failure "
                "the run's server gives is retried");
    static const char *const other[] = {
        "failAfterMaxAttempts", "intervalFunction", "intervalBiFunction",
        "eventConsumerBufferSize", NULL};
    skip_fields(c, other, "changes no decision in a run");
}

static void breaker(r4j *c)
{
    imp *m = c->m;
    imp_param(m, c->at, NULL, "circuit_breaker.mode", "window",
              "resilience4j's breaker judges a failure rate over a window");
    imp_param(m, c->at, NULL, "circuit_breaker.half_open", "ratio",
              "half-open probes decided by their failure rate");
    char p[220];
    tree_node *wt = field(c, "slidingWindowType", p, sizeof p);
    bool time = wt && strcmp(imp_value(wt), "TIME_BASED") == 0;
    if (wt && !time && strcmp(imp_value(wt), "COUNT_BASED") != 0) {
        imp_fail(m, p, wt, "expected COUNT_BASED or TIME_BASED, got '%s'",
                 imp_value(wt));
        return;
    }
    imp_param(m, p, wt, "circuit_breaker.window_type", time ? "time" : "count",
              "%s", wt ? "" : "resilience4j's default");
    if (time) {
        tree_node *ws = field(c, "slidingWindowSize", p, sizeof p);
        int64_t s = 100;
        char v[32];
        if (ws && imp_int(m, p, ws, 1, 86400, &s) != 0)
            return;
        snprintf(v, sizeof v, "%llds", (long long)s);
        imp_param(m, p, ws, "circuit_breaker.window_duration", v,
                  "seconds "
                  "in a TIME_BASED window");
    } else
        number(c, "slidingWindowSize", "circuit_breaker.window_size", 100, 1, 1,
               10000);
    number(c, "failureRateThreshold", "circuit_breaker.failure_ratio", 50, 0.01,
           0.1, 100);
    number(c, "slowCallRateThreshold", "circuit_breaker.slow_call_ratio", 100,
           0.01, 0.1, 100);
    dur(c, "slowCallDurationThreshold", "circuit_breaker.slow_call_duration",
        60 * NS_PER_S, "", NULL);
    number(c, "minimumNumberOfCalls", "circuit_breaker.min_calls", 100, 1, 1,
           1000000);
    number(c, "permittedNumberOfCallsInHalfOpenState", "circuit_breaker.probes",
           10, 1, 1, 1000);
    dur(c, "waitDurationInOpenState", "circuit_breaker.cooldown", 60 * NS_PER_S,
        "", NULL);
    skip_fields(c, exceptions,
                "exceptions are not modelled: every failure "
                "the classifier calls transient, unknown or resource "
                "exhaustion counts");
    static const char *const other[] = {
        "automaticTransitionFromOpenToHalfOpenEnabled",
        "maxWaitDurationInHalfOpenState",
        "registerHealthIndicator",
        "eventConsumerBufferSize",
        "writableStackTraceEnabled",
        "allowHealthIndicatorToFail",
        NULL};
    skip_fields(c, other,
                "not modelled: the breaker goes half-open at the "
                "first call after its wait, and stays there until its probes "
                "are decided");
}

static void bulkhead(r4j *c)
{
    char p[220], v[32];
    tree_node *n = field(c, "maxConcurrentCalls", p, sizeof p);
    int64_t k = 25;
    if (n && imp_int(c->m, p, n, 1, 1000000, &k) != 0)
        return;
    snprintf(v, sizeof v, "%lld", (long long)k);
    imp_set(c->m, p, n, "clients.connections", v,
            "%sattempts in flight at "
            "once per process; difference: past it resilience4j refuses "
            "after maxWaitDuration, stormbench waits (the attempt's timeout "
            "running)",
            n ? "" : "resilience4j's default; ");
    static const char *const other[] = {"maxWaitDuration",
                                        "eventConsumerBufferSize", NULL};
    skip_fields(c, other,
                "a refusal after a wait is not modelled (see "
                "maxConcurrentCalls)");
}

static void timelimiter(r4j *c)
{
    char p[220], v[32];
    tree_node *n = field(c, "timeoutDuration", p, sizeof p);
    int64_t ns = NS_PER_S;
    if (n && imp_duration(c->m, p, n, "spring", &ns) != 0)
        return;
    imp_fmt_duration(ns, v, sizeof v);
    imp_set(c->m, p, n, "clients.timeout", v,
            "%sper attempt: the time "
            "limiter sits inside the retry",
            n ? ""
              : "resilience4j's "
                "default; ");
    static const char *const other[] = {"cancelRunningFuture", NULL};
    skip_fields(c, other,
                "a timed-out attempt is never cancelled at the "
                "server: it is still served (wasted work)");
}

/* The instance names of every module, for the default and the message. */
static void instance_names(tree_node *doc, char *buf, size_t len,
                           const char **first)
{
    static const char *const mods[] = {"retry", "circuitbreaker", "bulkhead",
                                       "timelimiter"};
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < 4; i++) {
        tree_node *mod = module(doc, mods[i]);
        tree_node *insts = tree_peek(mod, "instances");
        for (size_t k = 0; insts && insts->kind == TREE_MAP && k < insts->n;
             k++) {
            if (*first == NULL)
                *first = insts->keys[k];
            char pat[140];
            snprintf(pat, sizeof pat, "%s,", insts->keys[k]);
            if (strstr(buf, pat) == NULL && used < len)
                used += (size_t)snprintf(buf + used, len - used, "%s,",
                                         insts->keys[k]);
        }
    }
}

int import_r4j(imp *m, tree *t, const char *sel)
{
    tree_node *doc = t->docs[0];
    char names[500];
    const char *first = NULL;
    instance_names(doc, names, sizeof names, &first);
    if (sel[0] == '\0')
        sel = first;
    if (sel == NULL)
        return imp_fail(m, "resilience4j", NULL,
                        "no instances in the file "
                        "(resilience4j.retry.instances.NAME ...)");
    char stack[128] = "none";
    r4j c;
    int found = 0;
    if (open_module(m, doc, "retry", sel, &c) > 0) {
        found++;
        retry(&c, stack, sizeof stack);
        imp_sweep(m, c.inst, c.at, "resilience4j's RetryConfig");
    }
    if (open_module(m, doc, "circuitbreaker", sel, &c) > 0) {
        found++;
        snprintf(stack + strlen(stack), sizeof stack - strlen(stack),
                 "+circuit_breaker");
        breaker(&c);
        imp_sweep(m, c.inst, c.at, "resilience4j's CircuitBreakerConfig");
    }
    if (open_module(m, doc, "bulkhead", sel, &c) > 0) {
        found++;
        bulkhead(&c);
        imp_sweep(m, c.inst, c.at, "resilience4j's BulkheadConfig");
    }
    if (open_module(m, doc, "timelimiter", sel, &c) > 0) {
        found++;
        timelimiter(&c);
        imp_sweep(m, c.inst, c.at, "resilience4j's TimeLimiterConfig");
    }
    if (m->failed)
        return -1;
    if (found == 0)
        return imp_fail(m, "resilience4j", NULL,
                        "no instance '%s'; the "
                        "file has: %s",
                        sel, names);
    snprintf(m->r->policy, sizeof m->r->policy, "%s", stack);
    snprintf(m->r->selected, sizeof m->r->selected, "instance %s", sel);
    /* The other instances: named, not read. */
    char pat[140];
    snprintf(pat, sizeof pat, "%s,", sel);
    char *p = strstr(names, pat);
    if (p)
        memmove(p, p + strlen(pat), strlen(p + strlen(pat)) + 1);
    if (names[0]) {
        names[strlen(names) - 1] = '\0';
        snprintf(m->r->others, sizeof m->r->others, "instances %s", names);
    }
    static const char *const mods[] = {"retry", "circuitbreaker", "bulkhead",
                                       "timelimiter", "ratelimiter"};
    for (size_t i = 0; i < 5; i++) {
        tree_node *mod = module(doc, mods[i]);
        tree_node *insts = tree_get(mod, "instances");
        for (size_t k = 0; insts && k < insts->n; k++)
            if (strcmp(insts->keys[k], sel) != 0)
                tree_use_all(insts->items[k]);
        tree_node *cfgs = tree_get(mod, "configs");
        tree_use_all(cfgs); /* read through baseConfig where they apply */
        if (strcmp(mods[i], "ratelimiter") == 0 && mod) {
            tree_use_all(mod);
            imp_skip(m, "resilience4j.ratelimiter", mod,
                     "a client-side rate "
                     "limiter is not a built-in");
        }
    }
    imp_sweep(m, doc, "", "resilience4j's configuration");
    return m->failed;
}
