/*
 * writer.c -- scenario_write: keys in the loader's order, values in the
 * loader's syntax, numbers exact.
 *
 * Only keys the loader accepts in their context are written: a rate for
 * open-loop clients only, a think time for closed ones, a burst only with
 * a rate limit, a queue's Retry-After only when overflow answers; fault
 * keys by the fault's type.  Reals are written in the shortest form that
 * reads back to the same double.
 *
 * Every `key = value` line goes through put(), and every section header
 * through section(): they alone know how the loader reads a line, and
 * refuse what it would read otherwise.  A value printed by hand is how
 * "name =;immediate" came to be written "name = ;immediate" (issue 23),
 * which reads back as an empty name and a comment.
 */
#include "compiler.h"
#include "writer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classifier.h"
#include "keys.h"
#include "measured.h"
#include "scenario.h"
#include "syntax.h"
#include "timeline.h"
#include "units.h"

/* Keys of one section, to refuse one written twice: the loader would
 * refuse the file ("duplicate key").  [policy] holds the most: a name,
 * the plug-ins, and the GUI's parameters, the scenario's and --param's. */
#define WRITER_MAX_KEYS (2 * PSTACK_MAX_SETTINGS + SCENARIO_MAX_PLUGINS + 1)

/* The file being written: its stream, the section being written (for
 * messages and the duplicate check), and the first thing that could not
 * be written, after which nothing more is. */
typedef struct writer {
    FILE *f;
    sb_err *e;
    bool failed;
    char section[SIM_NAME_MAX + 16];
    const char *keys[WRITER_MAX_KEYS];
    int n_keys;
    int sections; /* begun so far */
} writer;

/* "cannot write the scenario: [section] ...": the first failure is
 * kept, and nothing is written after it. */
static void fail(writer *w, const char *fmt, ...) SB_PRINTF(2, 3);
static void fail(writer *w, const char *fmt, ...)
{
    if (w->failed)
        return;
    w->failed = true;
    char msg[ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    err_set(w->e, "cannot write the scenario: [%s] %s", w->section, msg);
}

/* Text quoted in a message: its first 80 bytes. */
#define QUOTE(s) 80, (s), strlen(s) > 80 ? "..." : ""

/* "key = value": the one way a value is written.  "key =value" when the
 * value starts with ';': after a blank, ';' starts a comment, and the
 * value (read from "key =;..." or given by --set) would be lost. */
static void put(writer *w, const char *key, const char *value)
{
    const char *why;
    if (w->failed)
        return;
    if ((why = syntax_key_problem(key)) != NULL) {
        fail(w, "the key '%.*s%s' %s", QUOTE(key), why);
        return;
    }
    if ((why = syntax_value_problem(value)) != NULL) {
        fail(w, "%s: the value '%.*s%s' %s", key, QUOTE(value), why);
        return;
    }
    bool list = keys_is_list(w->section, key); /* a line per item */
    for (int i = 0; i < w->n_keys && !list; i++) {
        if (strcmp(w->keys[i], key) == 0) {
            fail(w, "%s: the key is given twice, which the loader refuses",
                 key);
            return;
        }
    }
    if (strlen(key) + strlen(value) + 3 > SCENARIO_LINE_MAX) {
        fail(w,
             "%s: the value '%.*s%s' is too long for a line (at most "
             "%d characters)",
             key, QUOTE(value), SCENARIO_LINE_MAX);
        return;
    }
    if (w->n_keys == WRITER_MAX_KEYS) {
        fail(w, "%s: more than %d keys in one section", key, WRITER_MAX_KEYS);
        return;
    }
    w->keys[w->n_keys++] = key;
    fprintf(w->f, value[0] == ';' ? "%s =%s\n" : "%s = %s\n", key, value);
}

/* "[kind]", or "[kind.NAME]" when name is not NULL: a name by syntax.h's
 * rule, which is what the loader takes in a header. */
static void section(writer *w, const char *kind, const char *name)
{
    if (w->failed)
        return;
    if (name && !syntax_name_ok(name)) {
        snprintf(w->section, sizeof w->section, "%s.NAME", kind);
        fail(w, "expected a name (" SYNTAX_NAME_RULE "), got '%.*s%s'",
             QUOTE(name));
        return;
    }
    snprintf(w->section, sizeof w->section, "%s%s%s", kind, name ? "." : "",
             name ? name : "");
    w->n_keys = 0;
    fprintf(w->f, "%s[%s]\n", w->sections++ ? "\n" : "", w->section);
}

/* The shortest %g that strtod reads back exactly (17 digits always do). */
static const char *real(double x, char *buf, size_t len)
{
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, x);
        if (strtod(buf, NULL) == x)
            return buf;
    }
    return buf;
}

/* A rate as units_rate reads it. */
static const char *rate(double per_s, char *buf, size_t len)
{
    char x[40];
    snprintf(buf, len, "%s/s", real(per_s, x, sizeof x));
    return buf;
}

static const char *dur(int64_t ns, char *buf, size_t len)
{
    return units_fmt_duration(ns, buf, (int)len);
}

/* A duration, or "none" for 0. */
static const char *dur_none(int64_t ns, char *buf, size_t len)
{
    if (ns == 0) {
        snprintf(buf, len, "none");
        return buf;
    }
    return dur(ns, buf, len);
}

/* Room for any distribution's text: a file's table is written with its
 * absolute path (measured.h). */
#define DIST_TEXT_MAX 1500

/* A distribution as units_dist reads it; the lognormal's shape exact. */
static const char *dist_text(const dist *d, char *buf, size_t len)
{
    char a[48], b[48];
    if (d->kind == DIST_EMPIRICAL || d->kind == DIST_HISTOGRAM) {
        snprintf(buf, len, "%s", measured_spec(d->table));
        return buf;
    }
    if (d->kind != DIST_LOGNORMAL)
        return units_fmt_dist(d, buf, (int)len);
    snprintf(buf, len, "lognormal(%s, %s)", dur(d->mean_ns, a, sizeof a),
             real(d->sigma, b, sizeof b));
    return buf;
}

static const char *yes(bool b)
{
    return b ? "true" : "false";
}

static const char *count(uint64_t v, char *buf, size_t len)
{
    snprintf(buf, len, "%" PRIu64, v);
    return buf;
}

static const char *count_unl(uint32_t v, char *buf, size_t len)
{
    if (v == SIM_UNLIMITED) {
        snprintf(buf, len, "unlimited");
        return buf;
    }
    return count(v, buf, len);
}

static void scenario_section(writer *w, const sim_config *c)
{
    char a[64];
    section(w, "scenario", NULL);
    put(w, "name", c->name);
    if (c->description[0])
        put(w, "description", c->description);
    put(w, "duration", dur(c->duration_ns, a, sizeof a));
    put(w, "seed", count(c->seed, a, sizeof a));
    if (c->branch.n > 0) {
        char path[SIM_MAX_BRANCH * 64];
        size_t used = 0;
        for (uint32_t i = 0; i < c->branch.n && used < sizeof path; i++)
            used += (size_t)snprintf(path + used, sizeof path - used,
                                     "%s%s:%016llx", i ? " " : "",
                                     dur(c->branch.step[i].at_ns, a, sizeof a),
                                     (unsigned long long)c->branch.step[i].key);
        put(w, "branch", path);
    }
    put(w, "warmup", dur(c->warmup_ns, a, sizeof a));
    put(w, "bucket", dur(c->bucket_ns, a, sizeof a));
    put(w, "recovery_window", dur(c->recovery_window_ns, a, sizeof a));
}

static void clients_section(writer *w, const client_cfg *k)
{
    static const char *const arrivals[] = {"open", "closed", "once"};
    static const char *const ops[] = {"read", "put", "post"};
    char a[DIST_TEXT_MAX];
    section(w, "clients", NULL);
    put(w, "count", count(k->count, a, sizeof a));
    if (k->processes)
        put(w, "processes", count(k->processes, a, sizeof a));
    put(w, "connections", count_unl(k->connections, a, sizeof a));
    put(w, "call_time", dur(k->call_time_ns, a, sizeof a));
    if (k->arrival == ARRIVAL_TRACE) {
        put(w, "arrival", trace_spec(k->trace));
        if (k->trace_scale != 1.0)
            put(w, "trace_scale", real(k->trace_scale, a, sizeof a));
    } else
        put(w, "arrival", arrivals[k->arrival]);
    if (k->arrival == ARRIVAL_OPEN)
        put(w, "rate",
            k->profile ? profile_spec(k->profile)
                       : rate(k->rate_per_s, a, sizeof a));
    if (k->arrival == ARRIVAL_CLOSED)
        put(w, "think", dist_text(&k->think, a, sizeof a));
    if (k->arrival == ARRIVAL_ONCE)
        put(w, "start_window", dur(k->start_window_ns, a, sizeof a));
    for (int i = 0; i < 3; i++)
        put(w, ops[i], real(k->mix[i], a, sizeof a));
    put(w, "timeout", dur(k->timeout_ns, a, sizeof a));
    put(w, "deadline", dur_none(k->deadline_ns, a, sizeof a));
    put(w, "idempotency_keys", yes(k->idempotency_keys));
    put(w, "defect_fraction", real(k->defect_fraction, a, sizeof a));
    put(w, "critical_fraction", real(k->critical_fraction, a, sizeof a));
}

/* [server]'s keys, or a tier's [server.NAME]'s, under a section already
 * begun. */
static void server_keys(writer *w, const server_cfg *s)
{
    static const char *const models[] = {"queue", "hot_record"};
    static const char *const overflow[] = {"reject", "drop"};
    static const char *const order[] = {"fifo", "lifo"};
    static const char *const dedupe[] = {"replay", "conflict"};
    char a[DIST_TEXT_MAX];
    put(w, "model", models[s->model]);
    if (s->model == MODEL_HOT_RECORD) {
        put(w, "occ",
            s->occ == OCC_TWO_ROUND_TRIPS ? "two_round_trips" : "one_step");
        if (s->occ == OCC_TWO_ROUND_TRIPS)
            put(w, "read_service", dist_text(&s->read_service, a, sizeof a));
    }
    put(w, "workers", count_unl(s->workers, a, sizeof a));
    put(w, "queue_limit", count_unl(s->queue_limit, a, sizeof a));
    put(w, "overflow", overflow[s->overflow]);
    put(w, "queue_order", order[s->queue_order]);
    if (s->overflow == OVERFLOW_REJECT)
        put(w, "retry_after",
            dur_none(s->overflow_retry_after_ns, a, sizeof a));
    put(w, "service", dist_text(&s->service, a, sizeof a));
    /* The knee alone too: the loader takes it without a degradation, and
     * dropping it changed the config (found by fuzz_scenario). */
    if (s->degradation > 0 || s->degradation_knee != SIM_UNLIMITED) {
        put(w, "degradation", real(s->degradation, a, sizeof a));
        put(w, "degradation_knee", count(s->degradation_knee, a, sizeof a));
    }
    put(w, "network_delay", dist_text(&s->network, a, sizeof a));
    if (s->rate_limit_per_s > 0) {
        put(w, "rate_limit", rate(s->rate_limit_per_s, a, sizeof a));
        put(w, "rate_limit_burst", count(s->rate_limit_burst, a, sizeof a));
    } else {
        put(w, "rate_limit", "none");
    }
    put(w, "drop_expired", yes(s->drop_expired));
    put(w, "drop_late", yes(s->drop_late));
    put(w, "idempotency", yes(s->idempotency));
    put(w, "dedupe_answer", dedupe[s->dedupe_answer]);
}

/* An errors fault's status as the loader reads it. */
static const char *status_text(const fault_cfg *ft, char *buf, size_t len);

static void fault_keys(writer *w, const fault_cfg *ft)
{
    char a[160];
    switch (ft->type) {
    case FAULT_CAPACITY:
        put(w, "workers", count(ft->workers, a, sizeof a));
        break;
    case FAULT_LOAD_SPIKE:
    case FAULT_SLOWDOWN:
        put(w, "multiplier", real(ft->multiplier, a, sizeof a));
        break;
    case FAULT_OUTAGE:
    case FAULT_PARTITION:
        put(w, "mode", ft->mode == CUT_REFUSE ? "refuse" : "blackhole");
        if (ft->type == FAULT_PARTITION)
            put(w, "fraction", real(ft->fraction, a, sizeof a));
        break;
    case FAULT_LATENCY:
        put(w, "delay", dur(ft->delay_ns, a, sizeof a));
        break;
    case FAULT_ERRORS:
        put(w, "status", status_text(ft, a, sizeof a));
        if (ft->retry_after_ns > 0)
            put(w, "retry_after", dur(ft->retry_after_ns, a, sizeof a));
        put(w, "probability", real(ft->probability, a, sizeof a));
        if (ft->pushback == FAULT_PUSHBACK_STOP)
            put(w, "pushback", "stop");
        else if (ft->pushback == FAULT_PUSHBACK_DELAY)
            put(w, "pushback",
                dur((int64_t)ft->pushback_ms * NS_PER_MS, a, sizeof a));
        break;
    case FAULT_LOST_ACK:
        put(w, "probability", real(ft->probability, a, sizeof a));
        break;
    case FAULT_RATE_LIMIT:
        put(w, "rate", rate(ft->rate_per_s, a, sizeof a));
        put(w, "burst", count(ft->burst, a, sizeof a));
        break;
    case FAULT_CLIENT_TIMEOUT:
        put(w, "timeout", dur(ft->delay_ns, a, sizeof a));
        break;
    case FAULT_CRASH: /* only the keys every fault has */
    case FAULT_TYPE_COUNT:
        break;
    } /* no default: a new type without its keys here does not compile */
}

static void fault_section(writer *w, const sim_config *c, const fault_cfg *ft)
{
    char a[DIST_TEXT_MAX];
    section(w, "fault", ft->name);
    put(w, "type", fault_type_name(ft->type));
    if (ft->tier > 0 && ft->tier < c->n_tiers)
        put(w, "target", c->tiers[ft->tier].name);
    put(w, "start", dur(ft->start_ns, a, sizeof a));
    if (ft->length.mean_ns > 0)
        put(w, "duration", dist_text(&ft->length, a, sizeof a));
    else
        put(w, "duration", dur(ft->duration_ns, a, sizeof a));
    if (ft->every.mean_ns > 0)
        put(w, "every", dist_text(&ft->every, a, sizeof a));
    fault_keys(w, ft);
}

static const char *status_text(const fault_cfg *ft, char *buf, size_t len)
{
    if (ft->kind == SB_ERR_RESET)
        snprintf(buf, len, "reset");
    else if (ft->kind == SB_ERR_GRPC && classify_grpc_name(ft->status))
        snprintf(buf, len, "%s", classify_grpc_name(ft->status));
    else
        snprintf(buf, len, "%" PRId32, ft->status);
    return buf;
}

/* A stack's parameters, in order.  A key given twice (the scenario's
 * own, then the GUI's --param) is written once, with its later value:
 * the stack applies them in order, so the later is the one the run
 * used, and the loader refuses a key twice in a section. */
static void params(writer *w, const setting *s, int n)
{
    for (int i = 0; i < n; i++) {
        bool later = false;
        for (int j = i + 1; j < n && !later; j++)
            later = strcmp(s[i].key, s[j].key) == 0;
        if (!later)
            put(w, s[i].key, s[i].value);
    }
}

/* A plug-in's path as the loader resolved it: absolute, or relative to
 * the directory the program runs in.  Written absolute, so that the file
 * loads the same library wherever it is saved (the loader would take a
 * relative path as relative to the written file's folder). */
static void absolute(writer *w, const char *key, const char *path)
{
    char abs[1400], cwd[1024];
    if (path[0] == '/') {
        put(w, key, path);
        return;
    }
    if (getcwd(cwd, sizeof cwd) == NULL)
        fail(w,
             "%s: '%.*s%s' is relative to the current folder, which "
             "is unknown: %s",
             key, QUOTE(path), strerror(errno));
    else if (snprintf(abs, sizeof abs, "%s/%s", cwd, path) >= (int)sizeof abs)
        fail(w,
             "%s: '%.*s%s' is longer than %zu characters once made "
             "absolute",
             key, QUOTE(path), sizeof abs - 1);
    else
        put(w, key, abs);
}

static void plugin(writer *w, const char *path)
{
    absolute(w, "plugin", path);
}

static void policy_section(writer *w, const writer_extra *x)
{
    section(w, "policy", NULL);
    /* An imported stack is written as its import, so the saved file
     * still follows its configuration; the parameters written beside it
     * are the imported values (or the user's), and keep the run the same
     * even if the configuration changes later. */
    if (x->policy_from && x->policy_from[0])
        absolute(w, "from", x->policy_from);
    else
        put(w, "name", x->policy ? x->policy : "none");
    if (x->n_plugins > SCENARIO_MAX_PLUGINS)
        fail(w, "plugin: %d plug-ins, and a scenario names at most %d",
             x->n_plugins, SCENARIO_MAX_PLUGINS);
    for (int i = 0; i < x->n_plugins; i++)
        plugin(w, x->plugins[i]);
    params(w, x->params, x->n_params);
}

/* A service chain: the top's name and downstream (still in [server]),
 * then each tier below and the policy of each tier's calls. */
static void chain_top(writer *w, const sim_config *c)
{
    if (c->n_tiers < 2)
        return;
    put(w, "name", c->tiers[0].name);
    put(w, "downstream", c->tiers[1].name);
}

static void tier_policy(writer *w, const tier_cfg *t)
{
    char a[64];
    section(w, "policy", t->name);
    put(w, "name", t->policy);
    put(w, "timeout", dur(t->timeout_ns, a, sizeof a));
    if (t->processes)
        put(w, "processes", count(t->processes, a, sizeof a));
    put(w, "propagate_deadline", yes(t->propagate_deadline));
    params(w, t->settings, (int)t->n_settings);
}

static void chain_sections(writer *w, const sim_config *c)
{
    for (uint32_t i = 0; i < c->n_tiers; i++) {
        const tier_cfg *t = &c->tiers[i];
        if (i + 1 < c->n_tiers)
            tier_policy(w, t);
        if (i == 0)
            continue;
        section(w, "server", t->name);
        server_keys(w, &t->server);
        if (i + 1 < c->n_tiers)
            put(w, "downstream", c->tiers[i + 1].name);
    }
}

/* Each tier's [expect.NAME], the keys the loader reads, exactly. */
static void tier_expect(writer *w, const sim_config *c)
{
    static const char *const keys[TIER_EXPECT_KINDS] = {
        [TIER_EXPECT_AMPLIFICATION_MIN] = "amplification_min",
        [TIER_EXPECT_AMPLIFICATION_MAX] = "amplification_max",
        [TIER_EXPECT_UTILIZATION_MIN] = "utilization_min",
        [TIER_EXPECT_UTILIZATION_MAX] = "utilization_max"};
    for (uint32_t i = 0; i < c->n_tiers; i++) {
        const tier_cfg *t = &c->tiers[i];
        bool header = false;
        for (int k = 0; k < TIER_EXPECT_KINDS; k++) {
            if (!t->has_expect[k])
                continue;
            if (!header)
                section(w, "expect", t->name);
            header = true;
            char a[40];
            snprintf(a, sizeof a, "%.17g", t->expect[k]);
            put(w, keys[k], a);
        }
    }
}

/* A step, in the order they run.  A timeout of 0 (the clients') and its
 * service and undo when it has none are left out: the loader then gives
 * the same; its own stack's parameters follow its policy, as written. */
static void step_section(writer *w, const step_cfg *st)
{
    char a[DIST_TEXT_MAX];
    section(w, "step", st->name);
    if (st->policy[0])
        put(w, "policy", st->policy);
    if (st->timeout_ns > 0)
        put(w, "timeout", dur(st->timeout_ns, a, sizeof a));
    if (st->has_service)
        put(w, "service", dist_text(&st->service, a, sizeof a));
    put(w, "transient", real(st->transient, a, sizeof a));
    put(w, "permanent", real(st->permanent, a, sizeof a));
    put(w, "defect", real(st->defect, a, sizeof a));
    put(w, "items", count(st->items, a, sizeof a));
    if (st->items > 0)
        put(w, "item_defect", real(st->item_defect, a, sizeof a));
    put(w, "idempotent", yes(st->idempotent));
    put(w, "independent", yes(st->independent));
    if (st->has_undo)
        put(w, "undo", dist_text(&st->undo_service, a, sizeof a));
    params(w, st->settings, (int)st->n_settings);
}

/* "a, b, c": the steps' names (each a name, syntax.h: no ',' in one). */
static const char *step_list(const pipeline_cfg *p, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < p->n_steps && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                                 p->steps[i].name);
    return buf;
}

static void pipeline_sections(writer *w, const sim_config *c)
{
    const pipeline_cfg *p = &c->pipeline;
    char a[SIM_MAX_STEPS * (SIM_NAME_MAX + 2)];
    if (p->n_steps == 0)
        return;
    section(w, "pipeline", NULL);
    put(w, "steps", step_list(p, a, sizeof a));
    put(w, "on_failure", pipeline_strategy_name(p->strategy));
    put(w, "checkpoints", yes(p->checkpoints));
    put(w, "reruns", count(p->reruns, a, sizeof a));
    put(w, "rerun_delay", dur(p->rerun_delay_ns, a, sizeof a));
    put(w, "sla", dur_none(p->sla_ns, a, sizeof a));
    put(w, "warn_retry", count(p->warn_retry, a, sizeof a));
    put(w, "dead_letter_growth", count(p->dead_letter_growth, a, sizeof a));
    for (uint32_t i = 0; i < p->n_steps; i++)
        step_section(w, &p->steps[i]);
}

static void comment(FILE *f, const char *text)
{
    while (text && *text) {
        const char *nl = strchr(text, '\n');
        int n = nl ? (int)(nl - text) : (int)strlen(text);
        fprintf(f, "; %.*s\n", n, text);
        text += n + (nl != NULL);
    }
    if (text)
        fputc('\n', f);
}

int scenario_write(FILE *f, const sim_config *cfg, const writer_extra *x,
                   sb_err *e)
{
    writer w = {.f = f, .e = e};
    errno = 0;
    comment(f, x->comment);
    scenario_section(&w, cfg);
    clients_section(&w, &cfg->clients);
    section(&w, "server", NULL);
    server_keys(&w, &cfg->server);
    chain_top(&w, cfg);
    policy_section(&w, x);
    chain_sections(&w, cfg);
    for (uint32_t i = 0; i < cfg->n_faults; i++)
        fault_section(&w, cfg, &cfg->faults[i]);
    if (x->n_expect > 0)
        section(&w, "expect", NULL);
    for (int i = 0; i < x->n_expect; i++)
        put(&w, x->expect[i].key, x->expect[i].value);
    tier_expect(&w, cfg);
    pipeline_sections(&w, cfg);
    if (w.failed)
        return -1;
    if (ferror(f))
        return err_set(e, "cannot write the scenario: %s",
                       errno ? strerror(errno) : "write error");
    return 0;
}
