/*
 * cmd_lint.c -- `stormbench lint FILE...`: static checks of retry
 * configurations before any simulation, for people (text) and for code
 * scanning (SARIF 2.1.0).
 *
 * Every file becomes a call graph: a topology as written; an imported
 * configuration (gRPC, Envoy, Istio, resilience4j, AWS) as one hop from
 * the clients to the service; a scenario as its chain of tiers.  Each
 * caller has its attempts, timeout, deadline and whether a budget or
 * breaker bounds its retries.  The rules walk every
 * path from the clients down:
 *   retry-amplification      attempts multiply along a path: (r1+1) x
 *                            (r2+1) x ... reach the bottom per request
 *   retries-at-several-layers more than one hop of a path retries
 *   timeout-inversion        a caller's per-attempt timeout is shorter
 *                            than its callee's worst case (its own calls'
 *                            attempts x timeouts + backoff): the caller
 *                            gives up and retries while the callee is
 *                            still working -- the work is wasted
 *   deadline-shorter-than-retries  the clients' deadline ends before
 *                            their own attempts could
 *   fan-in-without-budget    a service called by several retrying callers,
 *                            none bounded by a budget or breaker
 *   deadline-not-propagated  a service retries its calls with a deadline
 *                            above it but does not pass it on
 *   pipeline-retries-over-half-sla  a scenario's [pipeline]: its steps'
 *                            worst-case retry delays, every step
 *                            exhausting its retries, over half the SLA
 *                            (validate's rule, policy_check.h)
 * A pipeline's steps are services between the clients (its job runners,
 * retrying by reruns) and [server].  A finding names the line of the key
 * it is about (a caller's timeout, the clients' deadline, the SLA), its
 * section's when the key is a default.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "args.h"
#include "commands.h"
#include "import.h"
#include "outfile.h"
#include "policy_check.h"
#include "policy_setup.h"
#include "registry.h"
#include "scenario.h"
#include "topology.h"
#include "units.h"

static const char lint_usage[] =
    "Usage: stormbench lint FILE... [--sarif FILE] [--max-amplification N]\n"
    "                       [--set SECTION.KEY=VALUE]... [--warnings-as-errors]\n"
    "\n"
    "Check retry configurations without running them: a topology YAML, a\n"
    "scenario's service chain, or any file 'stormbench import' reads\n"
    "(gRPC, Envoy, Istio, resilience4j, AWS).  Rules: retry-amplification (attempts multiplied\n"
    "along every call path, over N: default 10), retries-at-several-layers,\n"
    "timeout-inversion (a caller's timeout shorter than its callee's worst\n"
    "case with retries), deadline-shorter-than-retries,\n"
    "fan-in-without-budget, deadline-not-propagated, and for a scenario's\n"
    "[pipeline] (its steps are callers of the server)\n"
    "pipeline-retries-over-half-sla: the steps' worst-case retry delays,\n"
    "every step exhausting its retries, over half the SLA.  A finding\n"
    "names the line of the key it is about.\n"
    "\n"
    "  --sarif FILE          also write the findings as SARIF 2.1.0 for\n"
    "                        code scanning ('-': standard output, and the\n"
    "                        text goes to standard error)\n"
    "  --set SECTION.KEY=VALUE  override a scenario's key, as run does\n"
    "                        (repeatable; scenarios only)\n"
    "  --warnings-as-errors  exit 1 on warnings too\n"
    "\n"
    "Exit status: 0 no errors, 1 an error-level finding (or a warning with\n"
    "--warnings-as-errors), 2 a file that cannot be read.\n";

typedef struct finding {
    const char *rule;
    const char *level; /* "error", "warning" */
    char file[1024];
    int line;
    char msg[600];
} finding;

typedef struct lint {
    finding *f;
    int n, cap;
    int max_amp;
} lint;

static void add(lint *l, const char *rule, const char *level, const char *file,
                int line, const char *fmt, ...) SB_PRINTF(6, 7);

static void add(lint *l, const char *rule, const char *level, const char *file,
                int line, const char *fmt, ...)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        finding *f = realloc(l->f, (size_t)cap * sizeof *f);
        if (f == NULL)
            return;
        l->f = f;
        l->cap = cap;
    }
    finding *x = &l->f[l->n++];
    x->rule = rule;
    x->level = level;
    snprintf(x->file, sizeof x->file, "%s", file);
    x->line = line > 0 ? line : 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->msg, sizeof x->msg, fmt, ap);
    va_end(ap);
}

/* The worst case of a call to service i: its own calls, one after the
 * other, each with all its attempts timing out. */
static int64_t service_worst(const topology *t, int i)
{
    const topo_service *s = &t->s[i];
    int64_t w = 0;
    for (int k = 0; k < s->n_calls; k++)
        w += topology_call_worst_ns(&s->out);
    return w;
}

static bool bounded(const topo_caller *c)
{
    return c->budget || c->breaker;
}

/* Depth-first over paths from the clients; path holds the callers
 * (-1 for the clients) down to service `at`; factors the attempts of
 * each hop so far, "3 x 4". */
static void walk(lint *l, const topology *t, int at, int *path, int depth,
                 double amp, int retrying, const char *factors)
{
    const topo_caller *in =
        path[depth - 1] < 0 ? &t->clients : &t->s[path[depth - 1]].out;
    amp *= in->retries + 1;
    retrying += in->retries > 0;
    char fac[200];
    snprintf(fac, sizeof fac, "%s%s%d", factors, factors[0] ? " x " : "",
             in->retries + 1);
    const topo_service *s = &t->s[at];
    int64_t worst = service_worst(t, at);
    /* A caller that does not retry (policy none) gives up: its callee's
     * work is wasted all the same, but nothing is sent again. */
    if (in->timeout_ns > 0 && worst > in->timeout_ns)
        add(l, "timeout-inversion", "error", t->path, in->timeout_line,
            "%s waits %.3g s per attempt for %s, which can take %.3g s "
            "(its calls' %d attempts of %.3g s and their backoff): %s "
            "times out and %s while %s still works, and the work is "
            "wasted; give %s a timeout above %.3g s or cut %s's retries",
            path[depth - 1] < 0 ? "clients" : t->s[path[depth - 1]].name,
            (double)in->timeout_ns / 1e9, s->name, (double)worst / 1e9,
            s->out.retries + 1, (double)s->out.timeout_ns / 1e9,
            path[depth - 1] < 0 ? "the client" : t->s[path[depth - 1]].name,
            in->retries > 0 ? "retries" : "gives up", s->name,
            path[depth - 1] < 0 ? "the clients" : t->s[path[depth - 1]].name,
            (double)worst / 1e9, s->name);
    if (s->n_calls == 0) {
        char chain[512] = "clients";
        size_t used = strlen(chain);
        for (int i = 1; i < depth; i++)
            used += (size_t)snprintf(chain + used, sizeof chain - used,
                                     " -> %s", t->s[path[i]].name);
        snprintf(chain + used, sizeof chain - used, " -> %s", s->name);
        /* Paths through a pipeline's steps all end at the server: each
         * is named at its step's section, which tells them apart. */
        int line = s->line;
        if (depth > 1 && path[depth - 1] >= 0 && t->s[path[depth - 1]].step)
            line = t->s[path[depth - 1]].line;
        if (amp > l->max_amp)
            add(l, "retry-amplification", "warning", t->path, line,
                "%s: each request can reach %s %.0f times (%s attempts)", chain,
                s->name, amp, fac);
        if (retrying > 1)
            add(l, "retries-at-several-layers", "warning", t->path, line,
                "%s: %d hops retry (%s attempts)", chain, retrying, fac);
        return;
    }
    path[depth] = at;
    for (int k = 0; k < s->n_calls; k++)
        walk(l, t, topology_find(t, s->calls[k]), path, depth + 1, amp,
             retrying, fac);
}

/* A service called by several retrying callers, none bounded.  A
 * pipeline's steps are stages of one job, which is in one step at a
 * time: together they are one caller (the job runners), whose retries
 * the amplification rule already counts, not several whose retries add
 * up. */
static void fan_in(lint *l, const topology *t)
{
    for (int i = 0; i < t->n; i++) {
        int callers = 0, retrying = 0, unbounded = 0;
        const topo_caller *c[TOPO_MAX_SERVICES + 1];
        const topo_caller *steps = NULL;
        for (int k = 0; k < t->n_entry; k++)
            if (strcmp(t->entry[k], t->s[i].name) == 0)
                c[callers++] = &t->clients;
        for (int j = 0; j < t->n; j++)
            for (int k = 0; k < t->s[j].n_calls; k++) {
                if (strcmp(t->s[j].calls[k], t->s[i].name) != 0)
                    continue;
                if (!t->s[j].step)
                    c[callers++] = &t->s[j].out;
                else if (steps == NULL ||
                         (steps->retries == 0 && t->s[j].out.retries > 0))
                    steps = &t->s[j].out;
            }
        if (steps)
            c[callers++] = steps;
        for (int k = 0; k < callers; k++) {
            retrying += c[k]->retries > 0;
            unbounded += c[k]->retries > 0 && !bounded(c[k]);
        }
        if (callers > 1 && retrying > 0 && unbounded == retrying)
            add(l, "fan-in-without-budget", "warning", t->path, t->s[i].line,
                "%s is called by %d callers, %d of them retrying, none with "
                "a retry budget or breaker: in an outage of %s their "
                "retries add up with nothing to stop them",
                t->s[i].name, callers, retrying, t->s[i].name);
    }
}

static void deadlines(lint *l, const topology *t)
{
    const topo_caller *c = &t->clients;
    int64_t own = topology_call_worst_ns(c);
    /* A timeout as long as the deadline is no per-attempt timeout (gRPC
     * without perAttemptRecvTimeout): the attempts share the deadline. */
    if (c->deadline_ns > 0 && c->timeout_ns < c->deadline_ns &&
        own > c->deadline_ns)
        add(l, "deadline-shorter-than-retries", "warning", t->path,
            c->deadline_line,
            "the clients' deadline, %.3g s, ends before "
            "their %d attempts of %.3g s could (%.3g s with backoff): the "
            "last attempts never run",
            (double)c->deadline_ns / 1e9, c->retries + 1,
            (double)c->timeout_ns / 1e9, (double)own / 1e9);
    if (c->deadline_ns == 0)
        return;
    for (int i = 0; i < t->n; i++)
        if (t->s[i].n_calls && t->s[i].out.retries > 0 &&
            !t->s[i].out.propagate_deadline)
            add(l, "deadline-not-propagated", "warning", t->path, t->s[i].line,
                "%s retries its calls but does not propagate "
                "the clients' %.3g s deadline: it keeps calling for "
                "requests whose clients have given up",
                t->s[i].name, (double)c->deadline_ns / 1e9);
}

static void check_topology(lint *l, const topology *t)
{
    int path[TOPO_MAX_SERVICES + 2];
    path[0] = -1;
    for (int k = 0; k < t->n_entry; k++)
        walk(l, t, topology_find(t, t->entry[k]), path, 1, 1.0, 0, "");
    fan_in(l, t);
    deadlines(l, t);
}

/* An imported configuration as one hop: clients -> the service. */
/* The whole number s starts with, or 0 (an origin's line, "file:12",
 * read after its colon; a max_attempts import wrote): strtol with its end
 * checked, since atoi cannot tell "x" from "0". */
static int leading_int(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || errno == ERANGE || v < INT_MIN || v > INT_MAX)
        return 0;
    return (int)v;
}

static void from_import(const import_result *r, topology *t)
{
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", r->path);
    t->n = 1;
    snprintf(t->s[0].name, sizeof t->s[0].name, "the service");
    t->s[0].line = 1;
    t->n_entry = 1;
    snprintf(t->entry[0], sizeof t->entry[0], "the service");
    topo_caller *c = &t->clients;
    snprintf(c->backoff, sizeof c->backoff, "exponential");
    for (int i = 0; i < r->n_params; i++) {
        const setting *s = &r->params[i];
        const char *dot = strrchr(s->key, '.');
        const char *k = dot ? dot + 1 : s->key;
        const char *colon = strstr(s->origin, ":");
        int line = colon ? leading_int(colon + 1) : 0;
        if (strcmp(k, "max_attempts") == 0) {
            c->retries = leading_int(s->value) - 1;
            c->retries_line = line;
        }
    }
    c->budget = strstr(r->policy, "budget") || strstr(r->policy, "quota") ||
                strstr(r->policy, "token_bucket");
    c->breaker = strstr(r->policy, "circuit_breaker") != NULL;
    sb_err e;
    for (int i = 0; i < r->n_sets; i++) {
        const setting *s = &r->sets[i];
        const char *colon = strstr(s->origin, ":");
        int line = colon ? leading_int(colon + 1) : 0;
        int64_t ns;
        if (units_duration(s->value, &ns, &e) != 0)
            continue;
        if (strcmp(s->key, "clients.timeout") == 0) {
            c->timeout_ns = ns;
            c->timeout_line = line;
        } else if (strcmp(s->key, "clients.deadline") == 0) {
            c->deadline_ns = ns;
            c->deadline_line = line;
        }
    }
}

/* The line of the section header hdr ("[server.api]") in path, or 0. */
static int section_line(const char *path, const char *hdr)
{
    FILE *f = fopen(path, "r");
    char buf[SCENARIO_LINE_MAX + 2];
    int n = 0, found = 0;
    size_t len = strlen(hdr);
    while (f && !found && fgets(buf, sizeof buf, f)) {
        n++;
        const char *s = buf;
        while (*s == ' ' || *s == '\t')
            s++;
        if (strncmp(s, hdr, len) == 0)
            found = n;
    }
    if (f)
        fclose(f);
    return found;
}

/* The line of `key = ...` in [section] of path; else the section's
 * header line ("[section]"); else fallback.  A finding names the line
 * that says what it is about, not the section around it. */
static int key_line(const char *path, const char *section, const char *key,
                    int fallback)
{
    FILE *f = fopen(path, "r");
    char buf[SCENARIO_LINE_MAX + 2], hdr[TOPO_NAME + 16];
    snprintf(hdr, sizeof hdr, "[%s]", section);
    int n = 0, in = 0, found = 0;
    size_t klen = strlen(key), hlen = strlen(hdr);
    while (f && !found && fgets(buf, sizeof buf, f)) {
        n++;
        const char *s = buf;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '[') {
            if (in && !found)
                break;
            in = strncmp(s, hdr, hlen) == 0 ? n : 0;
        } else if (in && strncmp(s, key, klen) == 0 &&
                   strchr(" \t=", s[klen]) && s[klen] != '\0')
            found = n;
    }
    if (f)
        fclose(f);
    if (found)
        return found;
    return in ? in
              : (section_line(path, hdr) ? section_line(path, hdr) : fallback);
}

/* The attempts a stack makes when the scenario does not say: the
 * default max_attempts of its first layer that has one (plan's 4,
 * immediate's 5, aws_quota's 3); 5 when none has (a plug-in). */
static int default_attempts(const char *policy)
{
    char layer[128];
    for (const char *p = policy; *p;) {
        size_t n = strcspn(p, "+");
        snprintf(layer, sizeof layer, "%.*s", (int)n, p);
        const sb_policy *sp = registry_find(layer);
        for (int k = 0; sp && sp->params && sp->params[k].name; k++)
            if (strcmp(sp->params[k].name, "max_attempts") == 0 &&
                leading_int(sp->params[k].default_value) > 0)
                return leading_int(sp->params[k].default_value);
        p += n + (p[n] == '+');
    }
    return 5;
}

/* A max_attempts setting: "max_attempts", or a layer's
 * ("exponential.max_attempts", as [policy] from writes them). */
static bool is_max_attempts(const char *key)
{
    const char *dot = strrchr(key, '.');
    return strcmp(dot ? dot + 1 : key, "max_attempts") == 0;
}

/* One caller of a scenario: its stack's name, parameters and timeout.
 * Without max_attempts a retrying stack makes its own default's. */
static void scenario_caller(topo_caller *c, const char *policy,
                            const setting *set, int n_set, int64_t timeout_ns,
                            int line)
{
    c->line = line;
    c->timeout_ns = timeout_ns;
    c->timeout_line = line;
    bool none = strcmp(policy, "none") == 0 || policy[0] == 0;
    c->retries = none ? 0 : default_attempts(policy) - 1;
    c->retries_line = line;
    /* A max_attempts left over from another stack (--set policy.name=none)
     * does not make `none` retry. */
    for (int i = 0; i < n_set && !none; i++)
        if (is_max_attempts(set[i].key)) {
            c->retries = leading_int(set[i].value) - 1;
            const char *colon = strstr(set[i].origin, ":");
            int l = colon ? leading_int(colon + 1) : 0;
            c->retries_line = l > 0 ? l : line;
        }
    if (c->retries < 0)
        c->retries = 0;
    snprintf(c->backoff, sizeof c->backoff, "%s",
             strstr(policy, "immediate") ? "immediate"
             : strstr(policy, "fixed")   ? "fixed"
                                         : "exponential");
    c->budget = strstr(policy, "budget") || strstr(policy, "quota") ||
                strstr(policy, "token_bucket");
    c->breaker = strstr(policy, "circuit_breaker") != NULL;
}

/* A pipeline's steps as the services between the clients (the job
 * runners) and [server]: each step calls the server through its own
 * stack ([step.NAME] policy, or the run's) with its own timeout (or the
 * clients'); a job run again (reruns) repeats every step, so the
 * clients' retries are the reruns, and they time nothing out. */
static void pipeline_steps(const scenario *sc, topology *t)
{
    const pipeline_cfg *p = &sc->cfg.pipeline;
    topo_caller *cl = &t->clients;
    cl->retries = (int)p->reruns;
    cl->retries_line = key_line(sc->path, "pipeline", "reruns", cl->line);
    cl->timeout_ns = 0;
    cl->deadline_ns = 0;
    cl->budget = cl->breaker = false;
    t->n_entry = 0;
    for (uint32_t i = 0; i < p->n_steps && t->n < TOPO_MAX_SERVICES &&
                         t->n_entry < TOPO_MAX_CALLS;
         i++) {
        const step_cfg *st = &p->steps[i];
        topo_service *s = &t->s[t->n++];
        char sec[TOPO_NAME + 8];
        snprintf(sec, sizeof sec, "step.%.*s", TOPO_NAME - 1, st->name);
        snprintf(s->name, sizeof s->name, "step %.*s", TOPO_NAME - 6, st->name);
        char hdr[TOPO_NAME + 16];
        snprintf(hdr, sizeof hdr, "[%s]", sec);
        s->line = section_line(sc->path, hdr);
        s->step = true;
        s->n_calls = 1;
        snprintf(s->calls[0], sizeof s->calls[0], "%s", t->s[0].name);
        bool own = st->policy[0] != '\0';
        int pol = own ? key_line(sc->path, sec, "policy", s->line)
                      : key_line(sc->path, "policy", "name", s->line);
        scenario_caller(
            &s->out, own ? st->policy : sc->policy,
            own ? st->settings : sc->settings,
            own ? (int)st->n_settings : sc->n_settings,
            st->timeout_ns ? st->timeout_ns : sc->cfg.clients.timeout_ns, pol);
        s->out.timeout_line =
            st->timeout_ns ? key_line(sc->path, sec, "timeout", s->line)
                           : key_line(sc->path, "clients", "timeout", s->line);
        snprintf(t->entry[t->n_entry++], sizeof t->entry[0], "%s", s->name);
    }
}

/* A scenario as a chain: the clients call [server], each tier its
 * downstream through its [policy.NAME]; with [pipeline], through its
 * steps.  Each caller's finding names the line of the key it is about
 * (timeout, max_attempts, deadline), or its section's when the key is
 * a default. */
static void from_scenario(const scenario *sc, topology *t)
{
    const sim_config *cfg = &sc->cfg;
    const char *path = sc->path;
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", path);
    int cli = section_line(path, "[clients]");
    int pol = key_line(path, "policy", "name", cli);
    scenario_caller(&t->clients, sc->policy, sc->settings, sc->n_settings,
                    cfg->clients.timeout_ns, pol);
    t->clients.line = cli;
    t->clients.timeout_line = key_line(path, "clients", "timeout", cli);
    t->clients.deadline_ns = cfg->clients.deadline_ns;
    t->clients.deadline_line = key_line(path, "clients", "deadline", cli);
    int n = cfg->n_tiers ? (int)cfg->n_tiers : 1;
    if (n > TOPO_MAX_SERVICES)
        n = TOPO_MAX_SERVICES;
    t->n = n;
    for (int i = 0; i < n; i++) {
        topo_service *s = &t->s[i];
        char sec[TOPO_NAME + 16];
        if (cfg->n_tiers == 0 || i == 0) {
            snprintf(s->name, sizeof s->name, "%s",
                     cfg->n_tiers && cfg->tiers[0].name[0] ? cfg->tiers[0].name
                                                           : "the server");
            s->line = section_line(path, "[server]");
        } else {
            snprintf(s->name, sizeof s->name, "%s", cfg->tiers[i].name);
            snprintf(sec, sizeof sec, "[server.%s]", cfg->tiers[i].name);
            s->line = section_line(path, sec);
        }
        if (i + 1 < n) {
            const tier_cfg *tc = &cfg->tiers[i];
            snprintf(sec, sizeof sec, "policy.%s", tc->name);
            int pl = key_line(path, sec, "name", s->line);
            s->n_calls = 1;
            snprintf(s->calls[0], sizeof s->calls[0], "%s",
                     cfg->tiers[i + 1].name);
            scenario_caller(&s->out, tc->policy, tc->settings,
                            (int)tc->n_settings, tc->timeout_ns, pl);
            s->out.timeout_line = key_line(path, sec, "timeout", pl);
            s->out.propagate_deadline = tc->propagate_deadline;
        }
    }
    t->n_entry = 1;
    snprintf(t->entry[0], sizeof t->entry[0], "%s", t->s[0].name);
    if (cfg->pipeline.n_steps > 0)
        pipeline_steps(sc, t);
}

/* Each rule: its id, what it finds, and what to do about any of its
 * findings (said once under the rule's heading, and in each SARIF
 * result, which stands alone). */
static const struct {
    const char *id, *text, *advice;
} rules[] = {
    {"timeout-inversion",
     "A caller's timeout is shorter than its callee's "
     "worst case with retries",
     NULL},
    {"retry-amplification",
     "Attempts multiplied along a call path exceed "
     "the limit",
     "retry at one layer, cap max_attempts, or bound the "
     "retries with a budget"},
    {"retries-at-several-layers",
     "More than one hop of a call path "
     "retries",
     "retry at one layer (usually the top, or the one next to "
     "the failure) and let the others fail fast"},
    {"deadline-shorter-than-retries",
     "The deadline ends before the "
     "attempts could",
     "lengthen the deadline, or make fewer or shorter "
     "attempts"},
    {"fan-in-without-budget",
     "A service with several retrying callers and "
     "no budget or breaker",
     "bound the callers' retries with a budget or "
     "breaker (a topology's budget: true)"},
    {"deadline-not-propagated",
     "A retrying service does not pass its "
     "caller's deadline on",
     "pass the deadline on (propagate_deadline)"},
    {"pipeline-retries-over-half-sla",
     "A pipeline's worst-case retry "
     "delays, every step exhausting its retries, exceed half its SLA",
     "keep the steps' retries x delay under SLA/2"},
};

#define N_RULES (sizeof rules / sizeof *rules)

static size_t rule_index(const char *id)
{
    for (size_t i = 0; i < N_RULES; i++)
        if (strcmp(rules[i].id, id) == 0)
            return i;
    return 0;
}

/* A JSON string's characters (SARIF messages quote file names). */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

/* SARIF 2.1.0 (OASIS): one run, the rules, one result per finding. */
static void write_sarif(FILE *f, const lint *l)
{
    fprintf(f,
            "{\n  \"$schema\": \"https://json.schemastore.org/"
            "sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n"
            "  \"runs\": [{\n    \"tool\": {\"driver\": {\"name\": "
            "\"stormbench\", \"version\": \"%s\", \"rules\": [",
            SB_VERSION);
    for (size_t i = 0; i < N_RULES; i++) {
        fprintf(f,
                "%s\n      {\"id\": \"%s\", \"shortDescription\": "
                "{\"text\": ",
                i ? "," : "", rules[i].id);
        json_str(f, rules[i].text);
        fprintf(f, "}}");
    }
    fprintf(f, "]}},\n    \"results\": [");
    for (int i = 0; i < l->n; i++) {
        const finding *x = &l->f[i];
        fprintf(f,
                "%s\n      {\"ruleId\": \"%s\", \"level\": \"%s\", "
                "\"message\": {\"text\": ",
                i ? "," : "", x->rule, x->level);
        const char *advice = rules[rule_index(x->rule)].advice;
        char text[sizeof x->msg + 200];
        snprintf(text, sizeof text, "%s%s%s", x->msg, advice ? ": " : "",
                 advice ? advice : "");
        json_str(f, text);
        fprintf(f, "}, \"locations\": [{\"physicalLocation\": "
                   "{\"artifactLocation\": {\"uri\": ");
        json_str(f, x->file);
        fprintf(f, "}, \"region\": {\"startLine\": %d}}}]}", x->line);
    }
    fprintf(f, "%s]\n  }]\n}\n", l->n ? "\n    " : "");
}

/* The seeds' SLA rule (validate's, policy_check.h): a pipeline's steps'
 * retry delays, added up with every step exhausting its retries, should
 * stay under half the job's SLA, so the attempts themselves have time.
 * The steps' stacks are built and probed, as validate does. */
static int sla_rule(lint *l, const scenario *sc)
{
    const pipeline_cfg *p = &sc->cfg.pipeline;
    if (p->n_steps == 0 || p->sla_ns <= 0)
        return 0;
    policy_setup ps;
    pipeline_probe pp;
    sb_err e;
    memset(&ps, 0, sizeof ps);
    const char *plugins[SCENARIO_MAX_PLUGINS];
    for (int i = 0; i < sc->n_plugins; i++)
        plugins[i] = sc->plugins[i];
    if (policy_setup_build_at(sc->policy, sc->policy_origin, plugins,
                              sc->n_plugins, sc->settings, sc->n_settings, &ps,
                              &e) != 0 ||
        policy_probe_pipeline(sc, ps.stack, &pp, &e) != 0) {
        policy_setup_free(&ps);
        fprintf(stderr, "stormbench lint: %s: %s\n", sc->path, e.msg);
        return -1;
    }
    policy_setup_free(&ps);
    if (!pp.over)
        return 0;
    double sla = (double)p->sla_ns / 1e9;
    char worst[160] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < p->n_steps && used < sizeof worst; i++)
        used += (size_t)snprintf(worst + used, sizeof worst - used,
                                 "%s%s %.4g s", i ? ", " : "", p->steps[i].name,
                                 pp.steps[i].delay_s);
    add(l, "pipeline-retries-over-half-sla", "warning", sc->path,
        key_line(sc->path, "pipeline", "sla", 1),
        "the steps' worst-case retry delays add up to %s%.4g s (%s), over "
        "half the %.4g s SLA (%.4g s): if every step exhausts its "
        "retries, a job spends more than half its SLA waiting between "
        "attempts",
        pp.at_least ? "at least " : "", pp.delay_s, worst, sla, sla / 2);
    return 0;
}

static int lint_file(lint *l, const char *path, const char *const *sets,
                     int n_sets)
{
    sb_err e;
    const char *fmt = import_detect(path, &e);
    static topology t;
    static import_result r;
    static scenario sc;
    if (fmt == NULL && section_line(path, "[scenario]") > 0) {
        if (scenario_load(path, sets, n_sets, &sc, &e) != 0) {
            fprintf(stderr, "stormbench lint: %s\n", e.msg);
            return -1;
        }
        from_scenario(&sc, &t);
        check_topology(l, &t);
        return sla_rule(l, &sc);
    }
    if (fmt == NULL) {
        fprintf(stderr, "stormbench lint: %s\n", e.msg);
        return -1;
    }
    if (n_sets > 0) {
        fprintf(stderr,
                "stormbench lint: %s: --set applies to scenarios, "
                "and this is a%s %s file\n",
                path, strcmp(fmt, "topology") == 0 ? "" : "n imported", fmt);
        return -1;
    }
    if (strcmp(fmt, "topology") == 0) {
        if (topology_load(path, &t, &e) != 0) {
            fprintf(stderr, "stormbench lint: %s\n", e.msg);
            return -1;
        }
    } else {
        if (import_load(path, fmt, NULL, &r, &e) != 0) {
            fprintf(stderr, "stormbench lint: %s\n", e.msg);
            return -1;
        }
        from_import(&r, &t);
    }
    check_topology(l, &t);
    return 0;
}

/* The findings for people: one heading per rule (its findings' count
 * and level, what it finds), each finding's FILE:LINE: and message under
 * it, in the order found, and what to do once.  Eleven findings of two
 * rules on one pipeline read as two short lists, not eleven long lines
 * repeating the same advice. */
static void print_grouped(FILE *f, const lint *l)
{
    for (size_t r = 0; r < N_RULES; r++) {
        int count = 0;
        const char *level = "warning";
        for (int i = 0; i < l->n; i++)
            if (rule_index(l->f[i].rule) == r) {
                count++;
                level = l->f[i].level;
            }
        if (count == 0)
            continue;
        char what[300];
        snprintf(what, sizeof what, "%s", rules[r].text);
        if (r == rule_index("retry-amplification"))
            snprintf(what, sizeof what,
                     "Attempts multiplied along a call "
                     "path exceed %d",
                     l->max_amp);
        fprintf(f, "%s: %d %s%s -- %s\n", rules[r].id, count, level,
                count == 1 ? "" : "s", what);
        for (int i = 0; i < l->n; i++)
            if (rule_index(l->f[i].rule) == r)
                fprintf(f, "  %s:%d: %s\n", l->f[i].file, l->f[i].line,
                        l->f[i].msg);
        if (rules[r].advice)
            fprintf(f, "  what to do: %s\n", rules[r].advice);
        fputc('\n', f);
    }
}

/* --max-amplification N: a whole number from 1 to 1000000. */
static int max_amplification(args *a, lint *l)
{
    const char *v = args_value(a, "--max-amplification");
    char *end;
    long m = v ? strtol(v, &end, 10) : 0;
    if (v == NULL || *end || m < 1 || m > 1000000)
        return args_usage_error(a, "--max-amplification: expected a whole "
                                   "number from 1 to 1000000");
    l->max_amp = (int)m;
    return 0;
}

int cmd_lint(int argc, char **argv)
{
    args a = {argc, argv, 1, "lint", lint_usage};
    const char *files[CLI_MAX_LIST], *sarif = NULL;
    const char *sets[CLI_MAX_LIST];
    int n = 0, n_sets = 0;
    bool strict = false;
    lint l = {NULL, 0, 0, 10};
    const arg_opt opts[] = {
        {"--help", "-h", ARG_HELP, NULL, NULL, NULL},
        {"--warnings-as-errors", NULL, ARG_SET, &strict, NULL, NULL},
        {"--sarif", NULL, ARG_VALUE, &sarif, NULL, NULL},
        {"--set", NULL, ARG_LIST, sets, &n_sets, NULL},
    };
    for (; a.i < argc; a.i++) {
        const char *arg = argv[a.i];
        int rc = args_is(&a, "--max-amplification")
                     ? max_amplification(&a, &l)
                     : args_option(&a, opts, sizeof opts / sizeof *opts);
        if (rc < 0)
            return EXIT_OK; /* --help */
        if (rc == EXIT_INPUT)
            return rc;
        if (rc == 0)
            continue;
        if (arg[0] == '-' && arg[1])
            return args_unknown_option(&a, arg);
        if (n < CLI_MAX_LIST)
            files[n++] = arg;
    }
    if (n == 0)
        return args_usage_error(&a, "no file given");
    int rc = EXIT_OK;
    for (int i = 0; i < n; i++)
        if (lint_file(&l, files[i], sets, n_sets) != 0)
            rc = EXIT_INPUT;
    FILE *text = sarif && strcmp(sarif, "-") == 0 ? stderr : stdout;
    int errors = 0, warnings = 0;
    for (int i = 0; i < l.n; i++) {
        errors += strcmp(l.f[i].level, "error") == 0;
        warnings += strcmp(l.f[i].level, "warning") == 0;
    }
    print_grouped(text, &l);
    fprintf(text, "%d error%s, %d warning%s in %d file%s\n", errors,
            errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s", n,
            n == 1 ? "" : "s");
    if (sarif && strcmp(sarif, "-") == 0)
        write_sarif(stdout, &l);
    else if (sarif) {
        outfile out;
        sb_err e;
        if (outfile_open(&out, sarif, &e) != 0 ||
            (write_sarif(out.f, &l), outfile_commit(&out, &e)) != 0) {
            fprintf(stderr, "stormbench lint: %s\n", e.msg);
            rc = EXIT_INPUT;
        }
    }
    free(l.f);
    if (rc == EXIT_OK && (errors || (strict && warnings)))
        rc = EXIT_EXPECT;
    return rc;
}
