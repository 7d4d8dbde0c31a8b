/*
 * keys.c -- the key table (keys.h), the value kinds its rows share, and
 * the two loops every section is read with: defaults, then entries.
 */
#include "keys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load_chain.h"
#include "load_faults.h"
#include "load_pipeline.h"
#include "load_policy.h"
#include "syntax.h"
#include "timeline.h"
#include "units.h"

/* ---- The table ----------------------------------------------------------
 *
 * One row per key, a section's rows together, in the order the messages
 * list them.  ROW(section, struct, name, parse, field, ...) with the rest
 * as designated initializers: .min, .max, .words, .def, .faults,
 * .required, .has, .list; a section's macro (CLIENTS(...)) names its
 * struct. */

#define SIZE(type, field) sizeof((type *)0)->field
#define ROW(sec, type, key_name, fn, field, ...)                               \
    {                                                                          \
        .section = sec, .name = key_name, .parse = fn,                         \
        .off = offsetof(type, field), .size = SIZE(type, field), __VA_ARGS__   \
    }
/* A row whose value its section's module reads (or refuses). */
#define BARE(sec, key_name, fn, ...)                                           \
    {                                                                          \
        .section = sec, .name = key_name, .parse = fn, __VA_ARGS__             \
    }

#define SCENARIO(...) ROW(KS_SCENARIO, sim_config, __VA_ARGS__)
#define CLIENTS(...) ROW(KS_CLIENTS, client_cfg, __VA_ARGS__)
#define SERVER(...) ROW(KS_SERVER, server_cfg, __VA_ARGS__)
#define FAULT(...) ROW(KS_FAULT, fault_cfg, __VA_ARGS__)
#define POLICY(...) ROW(KS_POLICY, scenario, __VA_ARGS__)
#define TIER_POLICY(...) ROW(KS_TIER_POLICY, tier_cfg, __VA_ARGS__)
#define TIER_EXPECT(name, fn, k, ...)                                          \
    ROW(KS_TIER_EXPECT, tier_cfg, name, fn, expect[k],                         \
        .has = offsetof(tier_cfg, has_expect[k]) + 1, __VA_ARGS__)
#define PIPELINE(...) ROW(KS_PIPELINE, pipeline_cfg, __VA_ARGS__)
#define STEP(...) ROW(KS_STEP, step_cfg, __VA_ARGS__)
#define HAS(type, field) .has = offsetof(type, field) + 1

/* Fault types, as bits. */
#define T(x) (1u << FAULT_##x)
#define ALL_FAULTS (~0u)

static const key_row table[] = {
    SCENARIO("name", key_text, name, .max = SIZE(sim_config, name)),
    SCENARIO("description", key_text, description,
             .max = SIZE(sim_config, description)),
    SCENARIO("duration", key_duration_pos, duration_ns, .def = NULL),
    SCENARIO("seed", key_seed, seed, .def = "1"),
    SCENARIO("branch", key_branch, branch, .def = "none"),
    SCENARIO("warmup", key_duration, warmup_ns, .def = "10s"),
    SCENARIO("bucket", key_duration_pos, bucket_ns, .def = "1s"),
    SCENARIO("recovery_window", key_duration_pos, recovery_window_ns,
             .def = "10s"),

    CLIENTS("count", key_count, count, .min = 1, .max = 1e8, .def = "100"),
    CLIENTS("processes", key_count, processes, .min = 1, .max = 1e8),
    CLIENTS("connections", key_count_unl, connections, .min = 1, .max = 1e8,
            .def = "unlimited"),
    CLIENTS("call_time", key_duration, call_time_ns, .def = "100us"),
    CLIENTS("arrival", key_arrival, arrival, .words = "open|closed|once",
            .def = "open"),
    CLIENTS("rate", key_rate_profile, rate_per_s, .def = "1/s"),
    CLIENTS("trace_scale", key_real, trace_scale, .min = 0.001, .max = 100,
            .def = "1"),
    CLIENTS("think", key_dist, think, .def = "exp(1s)"),
    CLIENTS("start_window", key_duration, start_window_ns, .def = "0s"),
    CLIENTS("read", key_prob, mix[0], .def = "1"),
    CLIENTS("put", key_prob, mix[1], .def = "0"),
    CLIENTS("post", key_prob, mix[2], .def = "0"),
    CLIENTS("timeout", key_duration_pos, timeout_ns, .def = "1s"),
    CLIENTS("deadline", key_duration_none, deadline_ns, .def = "none"),
    CLIENTS("idempotency_keys", key_bool, idempotency_keys, .def = "false"),
    CLIENTS("defect_fraction", key_prob, defect_fraction, .def = "0"),
    CLIENTS("critical_fraction", key_prob, critical_fraction, .def = "0"),

    SERVER("model", key_choice, model, .words = "queue|hot_record",
           .def = "queue"),
    SERVER("occ", key_choice, occ, .words = "one_step|two_round_trips",
           .def = "one_step"),
    SERVER("read_service", key_dist, read_service, .def = NULL),
    SERVER("workers", key_count_unl, workers, .min = 1, .max = 1e7,
           .def = "16"),
    SERVER("queue_limit", key_count_unl, queue_limit, .min = 0, .max = 1e8,
           .def = "unlimited"),
    SERVER("overflow", key_choice, overflow, .words = "reject|drop",
           .def = "reject"),
    SERVER("queue_order", key_choice, queue_order, .words = "fifo|lifo",
           .def = "fifo"),
    SERVER("retry_after", key_duration_none, overflow_retry_after_ns,
           .def = "none"),
    SERVER("service", key_dist, service, .def = "exp(10ms)"),
    SERVER("degradation", key_real, degradation, .min = 0, .max = 100,
           .def = "0"),
    SERVER("degradation_knee", key_count, degradation_knee, .min = 0,
           .max = 1e7),
    SERVER("network_delay", key_dist, network, .def = "const(0s)"),
    SERVER("rate_limit", key_rate_none, rate_limit_per_s, .def = "none"),
    SERVER("rate_limit_burst", key_count, rate_limit_burst, .min = 1,
           .max = 1e7, .def = "1"),
    SERVER("drop_expired", key_bool, drop_expired, .def = "false"),
    SERVER("drop_late", key_bool, drop_late, .def = "false"),
    SERVER("idempotency", key_bool, idempotency, .def = "true"),
    SERVER("dedupe_answer", key_choice, dedupe_answer,
           .words = "replay|conflict", .def = "replay"),
    /* The top's name and the tier below: read by load_chain.h. */
    BARE(KS_SERVER, "name", key_later, .def = "top"),
    BARE(KS_SERVER, "downstream", key_later, .def = NULL),

    /* The type is read first, by load_faults.h. */
    BARE(KS_FAULT, "type", key_later, .faults = ALL_FAULTS),
    FAULT("start", key_duration, start_ns, .faults = ALL_FAULTS,
          .required = ALL_FAULTS),
    FAULT("duration", key_fault_duration, duration_ns, .faults = ALL_FAULTS,
          .required = ALL_FAULTS),
    /* Weather: the fault recurs, a drawn gap after each start. */
    FAULT("every", key_fault_every, every, .faults = ALL_FAULTS),
    FAULT("workers", key_count, workers, .min = 0, .max = 1e7,
          .faults = T(CAPACITY), .required = T(CAPACITY)),
    FAULT("multiplier", key_real, multiplier, .min = 0.001, .max = 1000,
          .faults = T(LOAD_SPIKE) | T(SLOWDOWN),
          .required = T(LOAD_SPIKE) | T(SLOWDOWN)),
    FAULT("mode", key_choice, mode, .words = "refuse|blackhole",
          .faults = T(OUTAGE), .def = "refuse"),
    FAULT("mode", key_choice, mode, .words = "refuse|blackhole",
          .faults = T(PARTITION), .def = "blackhole"),
    FAULT("delay", key_duration_pos, delay_ns, .faults = T(LATENCY),
          .required = T(LATENCY)),
    FAULT("timeout", key_duration_pos, delay_ns, .faults = T(CLIENT_TIMEOUT),
          .required = T(CLIENT_TIMEOUT)),
    FAULT("status", key_fault_status, status, .faults = T(ERRORS),
          .required = T(ERRORS)),
    FAULT("retry_after", key_duration_pos, retry_after_ns, .faults = T(ERRORS)),
    FAULT("pushback", key_fault_pushback, pushback, .faults = T(ERRORS)),
    FAULT("probability", key_prob, probability,
          .faults = T(ERRORS) | T(LOST_ACK),
          .required = T(ERRORS) | T(LOST_ACK)),
    FAULT("fraction", key_prob, fraction, .faults = T(PARTITION),
          .required = T(PARTITION)),
    FAULT("rate", key_rate_pos, rate_per_s, .faults = T(RATE_LIMIT),
          .required = T(RATE_LIMIT)),
    FAULT("burst", key_count, burst, .min = 1, .max = 1e7,
          .faults = T(RATE_LIMIT), .def = "1"),
    /* The tier it strikes: faults at the server side only. */
    FAULT("target", key_fault_target, tier,
          .faults =
              ~(T(LOAD_SPIKE) | T(PARTITION) | T(CLIENT_TIMEOUT) | T(CRASH))),

    /* Every other key of [policy] is a parameter of the stack. */
    POLICY("name", key_policy_name, policy, .max = SIZE(scenario, policy),
           .def = "none"),
    POLICY("plugin", key_plugin, plugins, .list = true),
    POLICY("from", key_policy_from, policy_from,
           .max = SIZE(scenario, policy_from)),

    /* Every other key of [policy.NAME] is a parameter of its stack. */
    TIER_POLICY("name", key_tier_policy_name, policy,
                .max = SIZE(tier_cfg, policy), .def = "none"),
    TIER_POLICY("timeout", key_duration_pos, timeout_ns, .def = "1s"),
    TIER_POLICY("processes", key_tier_processes, processes, .min = 1,
                .max = 1e8),
    TIER_POLICY("propagate_deadline", key_bool, propagate_deadline,
                .def = "false"),
    BARE(KS_TIER_POLICY, "plugin", key_refused,
         .words = "a tier's calls run built-in policies only (plug-ins are "
                  "not supported there yet)"),

    TIER_EXPECT("amplification_min", key_real, TIER_EXPECT_AMPLIFICATION_MIN,
                .max = 1e12),
    TIER_EXPECT("amplification_max", key_real, TIER_EXPECT_AMPLIFICATION_MAX,
                .max = 1e12),
    TIER_EXPECT("utilization_min", key_share, TIER_EXPECT_UTILIZATION_MIN,
                .def = NULL),
    TIER_EXPECT("utilization_max", key_share, TIER_EXPECT_UTILIZATION_MAX,
                .def = NULL),

    /* The steps' names: read by load_pipeline.h. */
    BARE(KS_PIPELINE, "steps", key_later, .def = NULL),
    PIPELINE("on_failure", key_choice, strategy,
             .words = "fail_fast|continue|compensate|partial",
             .def = "fail_fast"),
    PIPELINE("checkpoints", key_bool, checkpoints, .def = "false"),
    PIPELINE("reruns", key_count, reruns, .max = SIM_MAX_RERUNS, .def = "0"),
    PIPELINE("rerun_delay", key_duration, rerun_delay_ns, .def = "0s"),
    PIPELINE("sla", key_duration_off, sla_ns, .def = "none"),
    PIPELINE("warn_retry", key_count, warn_retry, .min = 1, .max = 1e6,
             .def = "3"),
    PIPELINE("dead_letter_growth", key_count, dead_letter_growth, .min = 1,
             .max = 1e6, .def = "3"),

    /* With policy = NAME, every other key of a step is a parameter of its
     * stack. */
    STEP("policy", key_step_policy, policy, .max = SIZE(step_cfg, policy)),
    BARE(KS_STEP, "plugin", key_refused,
         .words = "a step's own stack runs built-in policies only (a "
                  "plug-in is loaded by [policy] plugin, for the run's "
                  "stack, which a step without policy = runs)"),
    STEP("timeout", key_duration_pos, timeout_ns, .def = NULL),
    STEP("service", key_dist, service, HAS(step_cfg, has_service)),
    STEP("transient", key_prob, transient, .def = "0"),
    STEP("permanent", key_prob, permanent, .def = "0"),
    STEP("defect", key_prob, defect, .def = "0"),
    STEP("items", key_count, items, .max = 1e6, .def = "0"),
    STEP("item_defect", key_prob, item_defect, .def = "0"),
    STEP("idempotent", key_bool, idempotent, .def = "false"),
    STEP("independent", key_bool, independent, .def = "false"),
    STEP("undo", key_dist, undo_service, HAS(step_cfg, has_undo)),
};

#define N_ROWS (sizeof table / sizeof *table)

const key_row *keys_of(key_section s, size_t *n)
{
    size_t first = 0;
    while (first < N_ROWS && table[first].section != s)
        first++;
    size_t end = first;
    while (end < N_ROWS && table[end].section == s)
        end++;
    *n = end - first;
    return table + first;
}

const key_row *keys_find(key_section s, const char *name, unsigned fault_bit)
{
    size_t n;
    const key_row *k = keys_of(s, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(k[i].name, name) == 0 &&
            (s != KS_FAULT || (k[i].faults & fault_bit)))
            return &k[i];
    return NULL;
}

key_section keys_section_of(const char *section)
{
    static const struct {
        const char *name;
        key_section s;
        bool named; /* "name.NAME" */
    } sections[] = {
        {"scenario", KS_SCENARIO, false}, {"clients", KS_CLIENTS, false},
        {"server", KS_SERVER, false},     {"policy", KS_POLICY, false},
        {"expect", KS_EXPECT, false},     {"pipeline", KS_PIPELINE, false},
        {"fault", KS_FAULT, true},        {"server", KS_SERVER, true},
        {"policy", KS_TIER_POLICY, true}, {"expect", KS_TIER_EXPECT, true},
        {"step", KS_STEP, true}};
    for (size_t i = 0; i < sizeof sections / sizeof *sections; i++) {
        size_t n = strlen(sections[i].name);
        if (strncmp(section, sections[i].name, n) != 0)
            continue;
        if (!sections[i].named && section[n] == '\0')
            return sections[i].s;
        if (sections[i].named && section[n] == '.' &&
            syntax_name_ok(section + n + 1))
            return sections[i].s;
    }
    return KS_NONE;
}

bool keys_is_list(const char *section, const char *key)
{
    key_section s = keys_section_of(section);
    const key_row *k = s == KS_NONE ? NULL : keys_find(s, key, ALL_FAULTS);
    return k && k->list;
}

/* ---- The two loops --------------------------------------------------- */

static void mark_given(const key_row *k, const keys_target *t)
{
    if (k->has)
        *((bool *)t->base + (k->has - 1)) = true;
}

int keys_defaults(load *ld, const keys_target *t)
{
    size_t n;
    const key_row *k = keys_of(t->section, &n);
    entry def; /* a few kB; not static: loads may run in threads */
    for (size_t i = 0; i < n; i++) {
        if (k[i].def == NULL ||
            (t->section == KS_FAULT && !(k[i].faults & t->fault_bit)))
            continue;
        memset(&def, 0, sizeof def);
        snprintf(def.section, sizeof def.section, "%s", t->name);
        snprintf(def.key, sizeof def.key, "%s", k[i].name);
        snprintf(def.value, sizeof def.value, "%s", k[i].def);
        if (k[i].parse(ld, &k[i], &def, t) != 0)
            return -1;
    }
    return 0;
}

/* The names of t's rows, for "known keys: ...": those a file may write
 * in it (not a refused one). */
static int names_of(const keys_target *t, const char **names, int max)
{
    size_t n;
    const key_row *k = keys_of(t->section, &n);
    int m = 0;
    for (size_t i = 0; i < n && m < max; i++) {
        if ((t->section == KS_FAULT && !(k[i].faults & t->fault_bit)) ||
            k[i].parse == key_refused)
            continue;
        names[m++] = k[i].name;
    }
    return m;
}

int keys_unknown(load *ld, const entry *en, const keys_target *t)
{
    const char *names[48];
    return load_unknown_key(ld->e, en, names, names_of(t, names, 48));
}

static int apply_one(load *ld, entry *en, const keys_target *t)
{
    const key_row *k = keys_find(t->section, en->key, t->fault_bit);
    if (k == NULL && t->section == KS_FAULT &&
        keys_find(KS_FAULT, en->key, ALL_FAULTS)) {
        char msg[200];
        snprintf(msg, sizeof msg, "does not apply to a fault of type '%s'",
                 fault_type_name(((const fault_cfg *)t->base)->type));
        return load_bad(ld->e, en, msg);
    }
    if (k == NULL && t->other)
        return t->other(ld, en, t);
    if (k == NULL)
        return keys_unknown(ld, en, t);
    if (k->parse(ld, k, en, t) != 0)
        return -1;
    mark_given(k, t);
    return 0;
}

int keys_apply(load *ld, const keys_target *t)
{
    for (int i = 0; i < ld->n; i++) {
        entry *en = &ld->entries[i];
        if (en->used || strcmp(en->section, t->name) != 0)
            continue;
        en->used = true;
        if (apply_one(ld, en, t) != 0)
            return -1;
    }
    return 0;
}

/* ---- The value kinds ---------------------------------------------------- */

static void *field(const key_row *k, const keys_target *t)
{
    return (char *)t->base + k->off;
}

static int count(load *ld, const key_row *k, entry *en, const keys_target *t,
                 bool unlimited)
{
    uint32_t *out = field(k, t);
    char want[160];
    snprintf(want, sizeof want, "a whole number from %.0f to %.0f%s", k->min,
             k->max, unlimited ? ", or 'unlimited'" : "");
    if (unlimited && strcmp(en->value, "unlimited") == 0) {
        *out = SIM_UNLIMITED;
        return 0;
    }
    int64_t v;
    sb_err inner;
    if (units_int(en->value, &v, &inner) != 0 || (double)v < k->min ||
        (double)v > k->max)
        return load_bad_value(ld->e, en, want);
    *out = (uint32_t)v;
    return 0;
}

int key_count(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    return count(ld, k, en, t, false);
}

int key_count_unl(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    return count(ld, k, en, t, true);
}

/* A duration: at least min_ns (0 or 1), or "none" (0) when none. */
static int duration(load *ld, entry *en, int64_t *out, int64_t min_ns,
                    bool none)
{
    sb_err inner;
    if (none && strcmp(en->value, "none") == 0) {
        *out = 0;
        return 0;
    }
    if (units_duration(en->value, out, &inner) != 0) {
        if (none)
            err_prefix(&inner, "'none' or");
        return load_bad(ld->e, en, inner.msg);
    }
    if (*out >= min_ns)
        return 0;
    if (min_ns == 0)
        return load_bad_value(ld->e, en,
                              "a duration of at least 0, or "
                              "'none'");
    return load_bad_value(ld->e, en,
                          none ? "a positive duration or 'none'"
                               : "a positive duration");
}

int key_duration(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    /* units_duration reads no negative duration: >= 0 holds. */
    return duration(ld, en, field(k, t), INT64_MIN, false);
}

int key_duration_pos(load *ld, const key_row *k, entry *en,
                     const keys_target *t)
{
    return duration(ld, en, field(k, t), 1, false);
}

int key_duration_none(load *ld, const key_row *k, entry *en,
                      const keys_target *t)
{
    return duration(ld, en, field(k, t), 1, true);
}

int key_duration_off(load *ld, const key_row *k, entry *en,
                     const keys_target *t)
{
    return duration(ld, en, field(k, t), 0, true);
}

static int rate(load *ld, entry *en, double *r, bool none)
{
    sb_err inner;
    if (none && strcmp(en->value, "none") == 0) {
        *r = 0;
        return 0;
    }
    if (units_rate(en->value, r, &inner) != 0)
        return load_bad(ld->e, en, inner.msg);
    if (*r <= 0)
        return load_bad_value(ld->e, en, "a positive rate such as 100/s");
    return 0;
}

int key_rate_pos(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    return rate(ld, en, field(k, t), false);
}

int key_rate_none(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    return rate(ld, en, field(k, t), true);
}

int key_prob(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    sb_err inner;
    if (units_probability(en->value, field(k, t), &inner) != 0)
        return load_bad(ld->e, en, inner.msg);
    return 0;
}

/* As reports/expect.c reads [expect]'s shares, with its words. */
int key_share(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    double *x = field(k, t);
    sb_err inner;
    if (units_share(en->value, x, &inner) != 0 || !(*x >= 0.0) || *x > 1.0)
        return load_bad_value(ld->e, en,
                              "a share between 0 and 1, or a "
                              "percentage from 0% to 100%");
    return 0;
}

int key_real(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    double *x = field(k, t);
    char want[96];
    sb_err inner;
    snprintf(want, sizeof want, "a number from %g to %g", k->min, k->max);
    if (units_real(en->value, x, &inner) != 0 || *x < k->min || *x > k->max)
        return load_bad_value(ld->e, en, want);
    return 0;
}

int key_bool(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    sb_err inner;
    if (units_bool(en->value, field(k, t), &inner) != 0)
        return load_bad(ld->e, en, inner.msg);
    return 0;
}

/* The folder a file named by en's value is relative to: the scenario
 * file's ("x/y/"), or "" for a value from --set (the current folder). */
static void file_dir(const load *ld, const entry *en, char *dir, size_t len)
{
    const char *slash = strrchr(ld->path, '/');
    dir[0] = '\0';
    if (slash && !load_from_set(en))
        snprintf(dir, len, "%.*s", (int)(slash - ld->path + 1), ld->path);
}

/* A file a distribution names (empirical(FILE), histogram(FILE)) is
 * relative to the scenario file, as a plug-in's path is (load_path). */
int key_dist(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    sb_err inner;
    char dir[1100];
    file_dir(ld, en, dir, sizeof dir);
    if (units_dist_in(en->value, dir, field(k, t), &inner) != 0)
        return load_bad(ld->e, en, inner.msg);
    return 0;
}

/* The arguments of "NAME(A, B, ...)" in en's value, trimmed, into arg
 * (at most max; the rest NULL) and the first, a file, relative to
 * file_dir into path.  0; 1 when the value is not a call of name; -1
 * with a message for a call with no file or too many arguments. */
static int file_call(load *ld, entry *en, const char *name, char *buf,
                     size_t len, char **arg, int max, char *path, size_t plen,
                     const char *example)
{
    size_t n = strlen(name), vlen = strlen(en->value);
    const char *v = en->value;
    if (strncmp(v, name, n) != 0)
        return 1;
    v += n;
    while (*v == ' ')
        v++;
    if (*v != '(' || vlen < 2 || en->value[vlen - 1] != ')')
        return 1;
    snprintf(buf, len, "%.*s", (int)(en->value + vlen - 1 - (v + 1)), v + 1);
    int got = 0;
    for (char *p = buf, *c; p; p = c) {
        c = strchr(p, ',');
        if (c)
            *c++ = '\0';
        if (got == max) {
            char msg[300];
            snprintf(msg, sizeof msg,
                     "%s takes a file and at most %d more "
                     "arguments, such as %s",
                     name, max - 1, example);
            return load_bad(ld->e, en, msg);
        }
        arg[got++] = syntax_trim(p);
    }
    for (int i = got; i < max; i++)
        arg[i] = NULL;
    if (arg[0][0] == '\0') {
        char msg[300];
        snprintf(msg, sizeof msg, "%s needs a file, such as %s", name, example);
        return load_bad(ld->e, en, msg);
    }
    char dir[1100];
    file_dir(ld, en, dir, sizeof dir);
    if (snprintf(path, plen, "%s%s", arg[0][0] == '/' ? "" : dir, arg[0]) >=
        (int)plen)
        return load_bad(ld->e, en, "names a file whose path is too long");
    return 0;
}

/* [clients] arrival: open, closed, once -- or trace(FILE[, COLUMN[,
 * UNIT[, CALLER]]]), the requests of a trace replayed (timeline.h). */
int key_arrival(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    client_cfg *c = t->base;
    char buf[1400], path[1400], *arg[4];
    int rc = file_call(ld, en, "trace", buf, sizeof buf, arg, 4, path,
                       sizeof path, "trace(access.csv, time, s, client_ip)");
    c->trace = NULL;
    if (rc == 1 && key_choice(ld, k, en, t) != 0)
        return load_bad_value(ld->e, en,
                              "one of open, closed, once, or "
                              "trace(FILE) to replay a trace's requests");
    if (rc == 1)
        return 0;
    if (rc != 0)
        return -1;
    sb_err inner;
    if (trace_read(path, arg[1], arg[2], arg[3], &c->trace, &inner) != 0)
        return load_bad(ld->e, en, inner.msg);
    c->arrival = ARRIVAL_TRACE;
    return 0;
}

/* [clients] rate: a rate, or profile(FILE[, total]), a rate that changes
 * over the run (timeline.h). */
int key_rate_profile(load *ld, const key_row *k, entry *en,
                     const keys_target *t)
{
    client_cfg *c = t->base;
    char buf[1400], path[1400], *arg[2];
    int rc = file_call(ld, en, "profile", buf, sizeof buf, arg, 2, path,
                       sizeof path, "profile(day.csv, total)");
    c->profile = NULL;
    if (rc == 1)
        return key_rate_pos(ld, k, en, t);
    if (rc != 0)
        return -1;
    bool total = arg[1] && strcmp(arg[1], "total") == 0;
    if (arg[1] && !total && strcmp(arg[1], "per_client") != 0) {
        char msg[300];
        snprintf(msg, sizeof msg,
                 "profile's second argument: expected "
                 "total (the file's rates are all the clients' together) "
                 "or per_client (each client's), got '%.60s'",
                 arg[1]);
        return load_bad(ld->e, en, msg);
    }
    sb_err inner;
    if (profile_read(path, total, &c->profile, &inner) != 0)
        return load_bad(ld->e, en, inner.msg);
    if (!(profile_peak(c->profile) > 0))
        return load_bad(ld->e, en,
                        "names a profile whose rates are all 0: "
                        "no request would ever arrive");
    c->rate_per_s = profile_peak(c->profile); /* per client: check_clients */
    return 0;
}

int key_text(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    size_t size = (size_t)k->max, len = strlen(en->value);
    if (len >= size) {
        char msg[96];
        snprintf(msg, sizeof msg, "is longer than %zu characters", size - 1);
        return load_bad(ld->e, en, msg);
    }
    memcpy(field(k, t), en->value, len + 1);
    return 0;
}

/* The whole uint64 range, as `run --seed` promises and the writer may
 * write back (a seed drawn by the GUI). */
int key_seed(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    sb_err inner;
    if (units_u64(en->value, field(k, t), &inner) != 0)
        return load_bad(ld->e, en, inner.msg);
    return 0;
}

/* One step of a branch path, "AT:KEY": a duration, a colon, a 64-bit
 * key in hexadecimal. */
static int branch_step(const char *tok, sim_branch_step *st, char *why,
                       size_t len)
{
    const char *colon = strchr(tok, ':');
    char at[64];
    sb_err inner;
    if (colon == NULL || (size_t)(colon - tok) >= sizeof at) {
        snprintf(why, len,
                 "expected steps AT:KEY (a time, a colon, a key "
                 "in hexadecimal: 12s:9e3779b97f4a7c15), got '%s'",
                 tok);
        return -1;
    }
    memcpy(at, tok, (size_t)(colon - tok));
    at[colon - tok] = '\0';
    if (units_duration(at, &st->at_ns, &inner) != 0) {
        snprintf(why, len, "step '%s': %s", tok, inner.msg);
        return -1;
    }
    char *end = NULL;
    errno = 0;
    st->key = strtoull(colon + 1, &end, 16);
    if (colon[1] == '\0' || *end != '\0' || errno != 0 || colon[1] == '-') {
        snprintf(why, len,
                 "step '%s': expected a key of 1 to 16 "
                 "hexadecimal digits after the colon",
                 tok);
        return -1;
    }
    return 0;
}

/* A branch path (sim_config.branch): "none", or steps AT:KEY separated by
 * spaces, their times never decreasing (a copy made where another was
 * made is re-keyed twice at one instant) -- what `stormbench risk` writes
 * for the storm it found by splitting. */
int key_branch(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    sim_branch *b = field(k, t);
    memset(b, 0, sizeof *b);
    if (strcmp(en->value, "none") == 0)
        return 0;
    char buf[4096], why[ERR_MSG_MAX / 2];
    if (strlen(en->value) >= sizeof buf)
        return load_bad(ld->e, en, "is too long for a branch path");
    snprintf(buf, sizeof buf, "%s", en->value);
    char *save = NULL;
    for (char *tok = strtok_r(buf, " ,\t", &save); tok;
         tok = strtok_r(NULL, " ,\t", &save)) {
        if (b->n == SIM_MAX_BRANCH) {
            snprintf(why, sizeof why, "has more than %d steps", SIM_MAX_BRANCH);
            return load_bad(ld->e, en, why);
        }
        sim_branch_step *st = &b->step[b->n];
        if (branch_step(tok, st, why, sizeof why) != 0)
            return load_bad(ld->e, en, why);
        if (st->at_ns <= 0 || (b->n && st->at_ns < b->step[b->n - 1].at_ns)) {
            snprintf(why, sizeof why,
                     "step '%s': the steps' times must be "
                     "positive and never decrease",
                     tok);
            return load_bad(ld->e, en, why);
        }
        b->n++;
    }
    if (b->n == 0)
        return load_bad_value(ld->e, en, "none, or steps AT:KEY");
    return 0;
}

/* One of k->words ("a|b|c"), stored as its index (an enum's value). */
int key_choice(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    int idx = 0;
    size_t len = strlen(en->value);
    for (const char *c = k->words;; idx++) {
        const char *bar = strchr(c, '|');
        size_t n = bar ? (size_t)(bar - c) : strlen(c);
        if (n == len && strncmp(c, en->value, n) == 0) {
            *(int *)field(k, t) = idx;
            return 0;
        }
        if (bar == NULL)
            break;
        c = bar + 1;
    }
    char want[200];
    snprintf(want, sizeof want, "one of %s", k->words);
    return load_bad_value(ld->e, en, want);
}

/* Read by its section's module (a chain's downstream, the steps), in
 * an order of its own. */
int key_later(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    (void)ld, (void)k, (void)en, (void)t;
    return 0;
}

int key_refused(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    (void)t;
    return load_bad(ld->e, en, k->words);
}
