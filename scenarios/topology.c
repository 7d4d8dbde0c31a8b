/*
 * topology.c -- reading a topology file (topology.h) with libyaml.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "topology.h"
#include "tree.h"
#include "units.h"

typedef struct reader {
    const char *path;
    sb_err *e;
} reader;

static int bad(const reader *r, const tree_node *n, const char *where,
               const char *what)
{
    return err_set(r->e, "%s:%d: %s: %s", r->path, n ? n->line : 0, where,
                   what);
}

static int text_of(const reader *r, const tree_node *n, const char *where,
                   const char **out)
{
    if (n->kind != TREE_SCALAR)
        return bad(r, n, where, "expected a value, got a map or list");
    *out = n->text;
    return 0;
}

static int read_duration(const reader *r, const tree_node *n, const char *where,
                         int64_t *ns)
{
    const char *s;
    sb_err e;
    if (text_of(r, n, where, &s) != 0)
        return -1;
    if (units_duration(s, ns, &e) != 0)
        return err_set(r->e, "%s:%d: %s: %s", r->path, n->line, where, e.msg);
    return 0;
}

static int read_int(const reader *r, const tree_node *n, const char *where,
                    int lo, int hi, int *v)
{
    const char *s;
    int64_t x;
    sb_err e;
    if (text_of(r, n, where, &s) != 0)
        return -1;
    if (units_int(s, &x, &e) != 0 || x < lo || x > hi) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "expected a whole number from %d to %d, "
                 "got '%s'",
                 lo, hi, s);
        return bad(r, n, where, msg);
    }
    *v = (int)x;
    return 0;
}

static int read_bool(const reader *r, const tree_node *n, const char *where,
                     bool *v)
{
    const char *s;
    sb_err e;
    if (text_of(r, n, where, &s) != 0)
        return -1;
    if (units_bool(s, v, &e) != 0)
        return err_set(r->e, "%s:%d: %s: %s", r->path, n->line, where, e.msg);
    return 0;
}

static int read_breaker(const reader *r, tree_node *n, topo_caller *c)
{
    if (n->kind == TREE_SCALAR)
        return read_bool(r, n, "breaker", &c->breaker);
    c->breaker = true;
    for (size_t i = 0; i < n->n; i++) {
        const char *k = n->keys ? n->keys[i] : "";
        if (strcmp(k, "threshold") == 0) {
            if (read_int(r, n->items[i], "breaker.threshold", 1, 1000000,
                         &c->breaker_threshold) != 0)
                return -1;
        } else if (strcmp(k, "cooldown") == 0) {
            if (read_duration(r, n->items[i], "breaker.cooldown",
                              &c->breaker_cooldown_ns) != 0)
                return -1;
        } else
            return bad(r, n->items[i], k,
                       "unknown key in breaker; known: "
                       "threshold, cooldown");
    }
    return 0;
}

static int read_calls(const reader *r, tree_node *n, char calls[][TOPO_NAME],
                      int *count)
{
    if (n->kind == TREE_MAP)
        return bad(r, n, "calls", "expected a service name or a list");
    size_t k = n->kind == TREE_LIST ? n->n : 1;
    if (k > TOPO_MAX_CALLS)
        return bad(r, n, "calls", "at most 8 callees");
    for (size_t i = 0; i < k; i++) {
        const tree_node *c = n->kind == TREE_LIST ? n->items[i] : n;
        if (c->kind != TREE_SCALAR)
            return bad(r, c, "calls", "expected a service name");
        snprintf(calls[i], TOPO_NAME, "%s", c->text);
    }
    *count = (int)k;
    return 0;
}

/* One key of a caller (clients or a service); 1 when it is not a
 * caller's key. */
static int caller_key(const reader *r, const char *k, tree_node *v,
                      topo_caller *c)
{
    if (strcmp(k, "timeout") == 0) {
        c->timeout_line = v->line;
        return read_duration(r, v, "timeout", &c->timeout_ns);
    }
    if (strcmp(k, "retries") == 0) {
        c->retries_line = v->line;
        return read_int(r, v, "retries", 0, 1000, &c->retries);
    }
    if (strcmp(k, "backoff") == 0) {
        const char *s;
        if (text_of(r, v, "backoff", &s) != 0)
            return -1;
        if (strcmp(s, "exponential") && strcmp(s, "immediate") &&
            strcmp(s, "fixed"))
            return bad(r, v, "backoff",
                       "expected exponential, immediate or "
                       "fixed");
        snprintf(c->backoff, sizeof c->backoff, "%s", s);
        return 0;
    }
    if (strcmp(k, "breaker") == 0)
        return read_breaker(r, v, c);
    if (strcmp(k, "budget") == 0) {
        c->budget_line = v->line;
        return read_bool(r, v, "budget", &c->budget);
    }
    if (strcmp(k, "propagate_deadline") == 0) {
        c->propagate_line = v->line;
        return read_bool(r, v, "propagate_deadline", &c->propagate_deadline);
    }
    return 1;
}

static int read_service(const reader *r, const char *name, tree_node *m,
                        topo_service *s)
{
    snprintf(s->name, sizeof s->name, "%s", name);
    s->line = m->line;
    s->out.line = m->line;
    snprintf(s->out.backoff, sizeof s->out.backoff, "exponential");
    if (m->kind != TREE_MAP)
        return bad(r, m, name, "expected a map of the service's keys");
    for (size_t i = 0; i < m->n; i++) {
        const char *k = m->keys[i];
        tree_node *v = m->items[i];
        int rc = caller_key(r, k, v, &s->out);
        if (rc <= 0) {
            if (rc < 0)
                return -1;
            continue;
        }
        const char *txt;
        if (strcmp(k, "workers") == 0) {
            if (v->kind == TREE_SCALAR && strcmp(v->text, "unlimited") == 0)
                s->workers = 0;
            else if (read_int(r, v, "workers", 1, 10000000, &s->workers) != 0)
                return -1;
        } else if (strcmp(k, "service") == 0) {
            if (text_of(r, v, "service", &txt) != 0)
                return -1;
            snprintf(s->service, sizeof s->service, "%s", txt);
        } else if (strcmp(k, "calls") == 0) {
            s->calls_line = v->line;
            if (read_calls(r, v, s->calls, &s->n_calls) != 0)
                return -1;
        } else {
            char msg[300];
            snprintf(msg, sizeof msg,
                     "unknown key in service '%s'; known: "
                     "workers, service, calls, timeout, retries, backoff, "
                     "breaker, budget, propagate_deadline",
                     name);
            return bad(r, v, k, msg);
        }
    }
    return 0;
}

static int read_clients(const reader *r, tree_node *m, topology *t)
{
    t->clients.line = m->line;
    snprintf(t->clients.backoff, sizeof t->clients.backoff, "exponential");
    for (size_t i = 0; m->kind == TREE_MAP && i < m->n; i++) {
        const char *k = m->keys[i];
        tree_node *v = m->items[i];
        int rc = caller_key(r, k, v, &t->clients);
        if (rc < 0)
            return -1;
        if (rc == 0)
            continue;
        if (strcmp(k, "calls") == 0) {
            if (read_calls(r, v, t->entry, &t->n_entry) != 0)
                return -1;
        } else if (strcmp(k, "deadline") == 0) {
            t->clients.deadline_line = v->line;
            if (read_duration(r, v, "deadline", &t->clients.deadline_ns) != 0)
                return -1;
        } else
            return bad(r, v, k,
                       "unknown key in clients; known: calls, "
                       "timeout, retries, backoff, breaker, budget, deadline");
    }
    if (t->n_entry == 0)
        return bad(r, m, "clients",
                   "'calls' is required: the service the "
                   "clients call");
    return 0;
}

static int check_calls(const reader *r, const topology *t)
{
    for (int i = 0; i < t->n_entry; i++)
        if (topology_find(t, t->entry[i]) < 0) {
            char msg[200];
            snprintf(msg, sizeof msg,
                     "calls '%s', which is not under "
                     "services",
                     t->entry[i]);
            return err_set(r->e, "%s:%d: clients: %s", r->path, t->clients.line,
                           msg);
        }
    for (int i = 0; i < t->n; i++)
        for (int k = 0; k < t->s[i].n_calls; k++)
            if (topology_find(t, t->s[i].calls[k]) < 0)
                return err_set(r->e,
                               "%s:%d: %s: calls '%s', which is not "
                               "under services",
                               r->path, t->s[i].calls_line, t->s[i].name,
                               t->s[i].calls[k]);
    return 0;
}

/* Depth-first: a service met again on the path is a cycle. */
static int no_cycle(const reader *r, const topology *t, int at, int *path,
                    int depth)
{
    for (int i = 0; i < depth; i++)
        if (path[i] == at)
            return err_set(r->e,
                           "%s:%d: %s: calls form a cycle back to "
                           "'%s'",
                           r->path, t->s[path[depth - 1]].calls_line,
                           t->s[path[depth - 1]].name, t->s[at].name);
    path[depth] = at;
    for (int k = 0; k < t->s[at].n_calls; k++)
        if (no_cycle(r, t, topology_find(t, t->s[at].calls[k]), path,
                     depth + 1) != 0)
            return -1;
    return 0;
}

static int read_doc(const reader *r, tree_node *doc, topology *t)
{
    if (doc == NULL || doc->kind != TREE_MAP)
        return err_set(r->e, "%s: expected 'clients:' and 'services:'",
                       r->path);
    tree_node *svcs = NULL;
    for (size_t i = 0; i < doc->n; i++) {
        const char *k = doc->keys[i];
        if (strcmp(k, "services") == 0)
            svcs = doc->items[i];
        else if (strcmp(k, "clients") == 0) {
            if (read_clients(r, doc->items[i], t) != 0)
                return -1;
        } else if (strcmp(k, "topology") != 0)
            return bad(r, doc->items[i], k,
                       "unknown key; known: topology "
                       "(a name), clients, services");
    }
    if (svcs == NULL || svcs->kind != TREE_MAP || svcs->n == 0)
        return err_set(r->e,
                       "%s: 'services:' is required: a map of "
                       "services by name",
                       r->path);
    if (t->n_entry == 0)
        return err_set(r->e, "%s: 'clients:' is required, with 'calls:'",
                       r->path);
    if (svcs->n > TOPO_MAX_SERVICES)
        return bad(r, svcs, "services", "at most 32 services");
    for (size_t i = 0; i < svcs->n; i++)
        if (read_service(r, svcs->keys[i], svcs->items[i], &t->s[t->n++]) != 0)
            return -1;
    int path[TOPO_MAX_SERVICES + 1];
    if (check_calls(r, t) != 0)
        return -1;
    for (int i = 0; i < t->n; i++)
        if (no_cycle(r, t, i, path, 0) != 0)
            return -1;
    return 0;
}

int topology_load(const char *path, topology *out, sb_err *e)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path);
    tree t;
    if (tree_load(path, false, &t, e) != 0)
        return -1;
    reader r = {path, e};
    int rc = read_doc(&r, t.n_docs ? t.docs[0] : NULL, out);
    tree_free(&t);
    return rc;
}

int topology_find(const topology *t, const char *name)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->s[i].name, name) == 0)
            return i;
    return -1;
}

int64_t topology_call_worst_ns(const topo_caller *c)
{
    if (c->timeout_ns == 0)
        return 0;
    int64_t total = (int64_t)(c->retries + 1) * c->timeout_ns;
    for (int n = 1; n <= c->retries; n++) {
        if (strcmp(c->backoff, "fixed") == 0)
            total += NS_PER_S;
        else if (strcmp(c->backoff, "exponential") == 0)
            total += (int64_t)fmin(20e9, 100e6 * pow(2.0, n - 1));
    }
    return total;
}
