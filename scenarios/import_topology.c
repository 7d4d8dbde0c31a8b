/*
 * import_topology.c -- a topology (topology.h) as service tiers: the
 * service the clients call is [server], each service's one callee its
 * downstream [server.NAME], and each caller's timeout, retries, backoff,
 * breaker and budget its [policy.NAME] (the clients': the result's
 * policy).  Tiers are a chain: a service that calls two others cannot
 * become one (stormbench lint still checks its graph).
 */
#include <stdio.h>
#include <string.h>

#include "import_fmt.h"
#include "topology.h"

/* A caller's stack and its parameters, as "name" and key=value pairs
 * written through emit (a policy.NAME set, or the result's params). */
static void stack_of(const topo_caller *c, char *name, size_t len)
{
    const char *base = c->retries == 0 ? "none" : c->backoff;
    snprintf(name, len, "%s%s%s", base,
             c->budget && c->retries ? "+retry_budget" : "",
             c->breaker ? "+circuit_breaker" : "");
}

static void caller_params(imp *m, const topo_caller *c, const char *who,
                          const char *prefix, bool as_sets)
{
    char key[160], v[32], path[160];
    tree_node at = {.kind = TREE_SCALAR, .line = c->line, .text = ""};
#define EMIT(k, val, note)                                                     \
    do {                                                                       \
        snprintf(key, sizeof key, "%s%s", prefix, k);                          \
        if (as_sets)                                                           \
            imp_set(m, path, &at, key, val, note);                             \
        else                                                                   \
            imp_param(m, path, &at, key, val, note);                           \
    } while (0)
    if (c->retries > 0) {
        snprintf(path, sizeof path, "%s.retries", who);
        at.line = c->retries_line;
        snprintf(v, sizeof v, "%d", c->retries + 1);
        EMIT("max_attempts", v, "retries + the first attempt");
    }
    if (c->breaker) {
        snprintf(path, sizeof path, "%s.breaker", who);
        at.line = c->line;
        if (c->breaker_threshold) {
            snprintf(v, sizeof v, "%d", c->breaker_threshold);
            EMIT("threshold", v, NULL);
        }
        if (c->breaker_cooldown_ns) {
            imp_fmt_duration(c->breaker_cooldown_ns, v, sizeof v);
            EMIT("cooldown", v, NULL);
        }
    }
#undef EMIT
}

static void tier(imp *m, const topology *t, int i, bool top)
{
    const topo_service *s = &t->s[i];
    char key[160], v[64], path[160];
    tree_node at = {.kind = TREE_SCALAR, .line = s->line, .text = ""};
    const char *sec = top ? "server" : NULL;
    char secbuf[96];
    if (!top) {
        snprintf(secbuf, sizeof secbuf, "server.%s", s->name);
        sec = secbuf;
    } else {
        snprintf(path, sizeof path, "services.%s", s->name);
        imp_set(m, path, &at, "server.name", s->name, "the top tier");
    }
    snprintf(path, sizeof path, "services.%s.workers", s->name);
    snprintf(key, sizeof key, "%s.workers", sec);
    if (s->workers)
        snprintf(v, sizeof v, "%d", s->workers);
    else
        snprintf(v, sizeof v, "unlimited");
    imp_set(m, path, &at, key, v, NULL);
    if (s->service[0]) {
        snprintf(path, sizeof path, "services.%s.service", s->name);
        snprintf(key, sizeof key, "%s.service", sec);
        imp_set(m, path, &at, key, s->service, NULL);
    }
    if (s->n_calls == 0)
        return;
    snprintf(path, sizeof path, "services.%s.calls", s->name);
    at.line = s->calls_line;
    snprintf(key, sizeof key, "%s.downstream", sec);
    imp_set(m, path, &at, key, s->calls[0], NULL);
    char name[128], pre[96];
    stack_of(&s->out, name, sizeof name);
    snprintf(key, sizeof key, "policy.%s.name", s->name);
    imp_set(m, path, &at, key, name, "how it calls its downstream");
    if (s->out.timeout_ns) {
        imp_fmt_duration(s->out.timeout_ns, v, sizeof v);
        snprintf(key, sizeof key, "policy.%s.timeout", s->name);
        at.line = s->out.timeout_line;
        snprintf(path, sizeof path, "services.%s.timeout", s->name);
        imp_set(m, path, &at, key, v, "per attempt");
    }
    if (s->out.propagate_deadline) {
        snprintf(key, sizeof key, "policy.%s.propagate_deadline", s->name);
        at.line = s->out.propagate_line;
        snprintf(path, sizeof path, "services.%s.propagate_deadline", s->name);
        imp_set(m, path, &at, key, "true", NULL);
    }
    snprintf(pre, sizeof pre, "policy.%s.", s->name);
    snprintf(path, sizeof path, "services.%s", s->name);
    caller_params(m, &s->out, path, pre, true);
}

int import_topology(imp *m, tree *t, const char *sel)
{
    (void)t;
    (void)sel;
    static topology topo;
    if (topology_load(m->file, &topo, m->e) != 0) {
        m->failed = -1;
        return -1;
    }
    import_result *r = m->r;
    if (topo.n_entry != 1)
        return imp_fail(m, "clients.calls", NULL,
                        "the clients call %d "
                        "services; tiers are a chain with one top (check "
                        "the graph with stormbench lint)",
                        topo.n_entry);
    int at = topology_find(&topo, topo.entry[0]);
    int chain[TOPO_MAX_SERVICES], n = 0;
    for (; at >= 0; n++) {
        const topo_service *s = &topo.s[at];
        if (s->n_calls > 1)
            return imp_fail(m, s->name, NULL,
                            "calls %d services; tiers are "
                            "a chain, each calling at most one (check the "
                            "graph with stormbench lint)",
                            s->n_calls);
        if (n == IMPORT_MAX_TIERS)
            return imp_fail(m, s->name, NULL,
                            "the chain is longer than the "
                            "engine's %d tiers",
                            IMPORT_MAX_TIERS);
        chain[n] = at;
        at = s->n_calls ? topology_find(&topo, s->calls[0]) : -1;
    }
    for (int i = 0; i < topo.n; i++) {
        bool in = false;
        for (int k = 0; k < n; k++)
            in |= chain[k] == i;
        if (!in)
            imp_skip(m, topo.s[i].name, NULL,
                     "not on the chain from the "
                     "clients: no tier");
    }
    stack_of(&topo.clients, r->policy, sizeof r->policy);
    caller_params(m, &topo.clients, "clients", "", false);
    char v[32];
    tree_node cl = {.kind = TREE_SCALAR, .line = topo.clients.line, .text = ""};
    if (topo.clients.timeout_ns) {
        imp_fmt_duration(topo.clients.timeout_ns, v, sizeof v);
        cl.line = topo.clients.timeout_line;
        imp_set(m, "clients.timeout", &cl, "clients.timeout", v, NULL);
    }
    if (topo.clients.deadline_ns) {
        imp_fmt_duration(topo.clients.deadline_ns, v, sizeof v);
        cl.line = topo.clients.deadline_line;
        imp_set(m, "clients.deadline", &cl, "clients.deadline", v, NULL);
    }
    for (int i = 0; i < n; i++) {
        tier(m, &topo, chain[i], i == 0);
        snprintf(r->tiers[r->n_tiers++].name, TOPO_NAME, "%s",
                 topo.s[chain[i]].name);
    }
    size_t used = 0;
    for (int i = 0; i < n; i++)
        used += (size_t)snprintf(r->selected + used, sizeof r->selected - used,
                                 "%s%s", i ? " -> " : "tiers ",
                                 topo.s[chain[i]].name);
    return m->failed;
}
