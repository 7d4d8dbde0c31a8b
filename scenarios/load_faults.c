/*
 * load_faults.c -- [fault.NAME] (load_faults.h).
 */
#include "load_faults.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "classifier.h"
#include "load_basic.h"
#include "suggest.h"
#include "units.h"

int key_fault_status(load *ld, const key_row *k, entry *en,
                     const keys_target *t)
{
    (void)k;
    fault_cfg *f = t->base;
    const char *want = "an HTTP status (100-599), a gRPC code name such as "
                       "UNAVAILABLE, or 'reset'";
    if (strcmp(en->value, "reset") == 0) {
        f->kind = SB_ERR_RESET;
        f->status = 0;
        return 0;
    }
    int g = classify_grpc_parse(en->value);
    if (g > 0) {
        f->kind = SB_ERR_GRPC;
        f->status = g;
        return 0;
    }
    int64_t v;
    sb_err inner;
    if (units_int(en->value, &v, &inner) != 0 || v < 100 || v > 599)
        return load_bad_value(ld->e, en, want);
    if (v < 400)
        return load_bad_value(ld->e, en,
                              "an error status (400-599): an "
                              "errors fault answers with an error");
    f->kind = SB_ERR_HTTP;
    f->status = (int32_t)v;
    return 0;
}

/* duration = 5s, or a distribution (duration = exp(5s)): each
 * occurrence's length drawn (fault_cfg.length), duration_ns then its mean
 * until the first is drawn. */
int key_fault_duration(load *ld, const key_row *k, entry *en,
                       const keys_target *t)
{
    (void)k;
    fault_cfg *f = t->base;
    dist d;
    sb_err inner;
    if (units_dist(en->value, &d, &inner) != 0)
        return load_bad(ld->e, en, inner.msg);
    int64_t mean = (int64_t)llround(units_dist_mean(&d));
    if (mean <= 0)
        return load_bad_value(ld->e, en,
                              d.kind == DIST_CONST
                                  ? "a positive duration"
                                  : "a distribution of positive "
                                    "durations such as exp(5s)");
    memset(&f->length, 0, sizeof f->length);
    if (d.kind != DIST_CONST)
        f->length = d;
    f->duration_ns = mean;
    return 0;
}

/* every = exp(2h): the fault recurs, a gap drawn from this after each
 * occurrence's start (fault_cfg.every). */
int key_fault_every(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    (void)k;
    fault_cfg *f = t->base;
    sb_err inner;
    if (units_dist(en->value, &f->every, &inner) != 0)
        return load_bad(ld->e, en, inner.msg);
    if (!(units_dist_mean(&f->every) >= 1e6))
        return load_bad_value(ld->e, en,
                              "a gap of at least 1ms between "
                              "occurrences, such as exp(2h) or 30m");
    if (f->every.mean_ns <= 0)
        f->every.mean_ns = 1; /* recurring: mean_ns > 0 says so */
    return 0;
}

/* gRPC's grpc-retry-pushback-ms (gRFC A6): a delay of whole ms, or
 * "stop" (the header's negative value: do not retry). */
int key_fault_pushback(load *ld, const key_row *k, entry *en,
                       const keys_target *t)
{
    (void)k;
    fault_cfg *f = t->base;
    int64_t ns;
    sb_err inner;
    if (strcmp(en->value, "stop") == 0) {
        f->pushback = FAULT_PUSHBACK_STOP;
        return 0;
    }
    if (units_duration(en->value, &ns, &inner) != 0 || ns < 0 ||
        ns % 1000000 != 0 || ns / 1000000 > INT32_MAX)
        return load_bad_value(ld->e, en,
                              "a delay in whole milliseconds "
                              "(the grpc-retry-pushback-ms header), or "
                              "'stop'");
    f->pushback = FAULT_PUSHBACK_DELAY;
    f->pushback_ms = (int32_t)(ns / 1000000);
    return 0;
}

/* [section] without a type: a section of the file, or (when only --set
 * named it) most likely a typo of a fault the file has, so the --set and
 * the closest fault are named. */
static int no_type(load *ld, const char *section)
{
    char types[256];
    fault_type_list(types, sizeof types);
    int line = load_section_line(ld, section);
    if (line)
        return err_set(ld->e, "%s:%d: [%s] needs a 'type' (one of %s)",
                       ld->path, line, section, types);
    const char *faults[LOAD_MAX_SECTIONS];
    int n = 0;
    for (int i = 0; i < ld->n_sections; i++)
        if (strncmp(ld->sections[i].name, "fault.", 6) == 0)
            faults[n++] = ld->sections[i].name;
    const entry *any = load_first(ld, section);
    const char *best = suggest_closest(section, faults, n);
    if (best)
        return err_set(ld->e,
                       "%s: the scenario has no [%s] (did you mean "
                       "[%s]?); a new fault needs %s.type",
                       any ? any->origin : "--set", section, best, section);
    return err_set(ld->e,
                   "%s: the scenario has no [%s]; a new fault needs "
                   "%s.type (one of %s)",
                   any ? any->origin : "--set", section, section, types);
}

static int fault_type_of(load *ld, const char *section, fault_type *t)
{
    entry *type = load_find(ld, section, "type");
    if (type == NULL)
        return no_type(ld, section);
    type->used = true;
    if (fault_type_parse(type->value, t) != 0) {
        char types[256], want[270];
        snprintf(want, sizeof want, "one of %s",
                 fault_type_list(types, sizeof types));
        return load_bad_value(ld->e, type, want);
    }
    return 0;
}

/* The keys a fault of its type needs, in the table's order. */
static int fault_required(load *ld, const char *section, const fault_cfg *f)
{
    size_t n;
    const key_row *k = keys_of(KS_FAULT, &n);
    for (size_t i = 0; i < n; i++) {
        if (!(k[i].required & (1u << f->type)) ||
            load_find(ld, section, k[i].name))
            continue;
        return err_set(ld->e, "%s:%d: [%s] a fault of type '%s' needs '%s'",
                       ld->path, load_section_line(ld, section), section,
                       fault_type_name(f->type), k[i].name);
    }
    return 0;
}

static int load_fault(load *ld, const char *section)
{
    sim_config *c = &ld->sc->cfg;
    if (c->n_faults == SIM_MAX_FAULTS)
        return err_set(ld->e, "%s: at most %d faults", ld->path,
                       SIM_MAX_FAULTS);
    fault_cfg *f = &c->faults[c->n_faults];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", section + 6);
    if (fault_type_of(ld, section, &f->type) != 0)
        return -1;
    keys_target t = {.section = KS_FAULT,
                     .name = section,
                     .base = f,
                     .fault_bit = 1u << f->type};
    if (keys_defaults(ld, &t) != 0 || keys_apply(ld, &t) != 0 ||
        fault_required(ld, section, f) != 0)
        return -1;
    if (f->type == FAULT_RATE_LIMIT &&
        load_check_limit_rate(ld, load_find(ld, section, "rate"),
                              f->rate_per_s) != 0)
        return -1;
    const entry *pb = load_find(ld, section, "pushback");
    if (pb && f->kind != SB_ERR_GRPC)
        return load_bad(ld->e, pb,
                        "is gRPC metadata "
                        "(grpc-retry-pushback-ms): it needs a gRPC status, "
                        "such as UNAVAILABLE");
    c->n_faults++;
    return 0;
}

int load_faults(load *ld)
{
    /* In the order they first appear, so fault indices are stable. */
    for (int i = 0; i < ld->n; i++) {
        const char *section = ld->entries[i].section;
        if (strncmp(section, "fault.", 6) != 0 ||
            load_first(ld, section) != &ld->entries[i])
            continue;
        if (load_fault(ld, section) != 0)
            return -1;
    }
    /* A fault section with no keys at all. */
    for (int i = 0; i < ld->n_sections; i++) {
        const char *name = ld->sections[i].name;
        if (strncmp(name, "fault.", 6) == 0 && !load_find(ld, name, "type"))
            return no_type(ld, name);
    }
    return 0;
}

int load_check_crashes(load *ld)
{
    const sim_config *c = &ld->sc->cfg;
    if (c->pipeline.n_steps > 0)
        return 0;
    for (uint32_t i = 0; i < c->n_faults; i++) {
        if (c->faults[i].type != FAULT_CRASH)
            continue;
        char section[LOAD_SECTION_MAX];
        snprintf(section, sizeof section, "fault.%s", c->faults[i].name);
        const entry *en = load_find(ld, section, "type");
        if (en == NULL)
            return err_set(ld->e, "%s: [%s] a crash needs a [pipeline]",
                           ld->path, section);
        return load_bad(ld->e, en,
                        "a crash strikes a pipeline's job runners, and this "
                        "scenario has no [pipeline]");
    }
    return 0;
}
