/*
 * writer.c -- scenario_write: keys in the loader's order, values in the
 * loader's syntax, numbers exact.
 *
 * Only keys the loader accepts in their context are written: a rate for
 * open-loop clients only, a think time for closed ones, a burst only with
 * a rate limit, a queue's Retry-After only when overflow answers; fault
 * keys by the fault's type.  Reals are written in the shortest form that
 * reads back to the same double.
 */
#include "writer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

/* The shortest %g that strtod reads back exactly (17 digits always do). */
/* "key = value", or "key =value" when the value starts with ';': inih
 * takes a ';' after whitespace for a comment, and the value (which was
 * read from "key =;..." or given by --set) would be lost.  A loaded value
 * never holds whitespace then ';' elsewhere: inih cut it there. */
static void text_kv(FILE *f, const char *key, const char *value)
{
    fprintf(f, value[0] == ';' ? "%s =%s\n" : "%s = %s\n", key, value);
}

static const char *real(double x, char *buf, size_t len)
{
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, x);
        if (strtod(buf, NULL) == x)
            return buf;
    }
    return buf;
}

static const char *dur(int64_t ns, char *buf, size_t len)
{
    return units_fmt_duration(ns, buf, (int)len);
}

/* A distribution as units_dist reads it; the lognormal's shape exact. */
static const char *dist_text(const dist *d, char *buf, size_t len)
{
    char a[48], b[48];
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

static const char *count_unl(uint32_t v, char *buf, size_t len)
{
    if (v == SIM_UNLIMITED)
        snprintf(buf, len, "unlimited");
    else
        snprintf(buf, len, "%" PRIu32, v);
    return buf;
}

static void scenario_section(FILE *f, const sim_config *c)
{
    char a[64];
    fprintf(f, "[scenario]\n");
    text_kv(f, "name", c->name);
    if (c->description[0])
        text_kv(f, "description", c->description);
    fprintf(f, "duration = %s\n", dur(c->duration_ns, a, sizeof a));
    fprintf(f, "seed = %" PRIu64 "\n", c->seed);
    fprintf(f, "warmup = %s\n", dur(c->warmup_ns, a, sizeof a));
    fprintf(f, "bucket = %s\n", dur(c->bucket_ns, a, sizeof a));
    fprintf(f, "recovery_window = %s\n",
            dur(c->recovery_window_ns, a, sizeof a));
}

static void clients_section(FILE *f, const client_cfg *k)
{
    static const char *const arrivals[] = {"open", "closed", "once"};
    char a[160];
    fprintf(f, "\n[clients]\ncount = %" PRIu32 "\n", k->count);
    if (k->processes)
        fprintf(f, "processes = %" PRIu32 "\n", k->processes);
    fprintf(f, "connections = %s\n", count_unl(k->connections, a, sizeof a));
    fprintf(f, "call_time = %s\n", dur(k->call_time_ns, a, sizeof a));
    fprintf(f, "arrival = %s\n", arrivals[k->arrival]);
    if (k->arrival == ARRIVAL_OPEN)
        fprintf(f, "rate = %s/s\n", real(k->rate_per_s, a, sizeof a));
    if (k->arrival == ARRIVAL_CLOSED)
        fprintf(f, "think = %s\n", dist_text(&k->think, a, sizeof a));
    if (k->arrival == ARRIVAL_ONCE)
        fprintf(f, "start_window = %s\n",
                dur(k->start_window_ns, a, sizeof a));
    static const char *const ops[] = {"read", "put", "post"};
    for (int i = 0; i < 3; i++)
        fprintf(f, "%s = %s\n", ops[i], real(k->mix[i], a, sizeof a));
    fprintf(f, "timeout = %s\n", dur(k->timeout_ns, a, sizeof a));
    fprintf(f, "deadline = %s\n",
            k->deadline_ns ? dur(k->deadline_ns, a, sizeof a) : "none");
    fprintf(f, "idempotency_keys = %s\n", yes(k->idempotency_keys));
    fprintf(f, "defect_fraction = %s\n",
            real(k->defect_fraction, a, sizeof a));
    fprintf(f, "critical_fraction = %s\n",
            real(k->critical_fraction, a, sizeof a));
}

/* [server], or a tier's [server.NAME] (header "server.NAME"). */
static void server_section(FILE *f, const char *header, const server_cfg *s)
{
    static const char *const models[] = {"queue", "hot_record"};
    static const char *const overflow[] = {"reject", "drop"};
    static const char *const order[] = {"fifo", "lifo"};
    static const char *const dedupe[] = {"replay", "conflict"};
    char a[160];
    fprintf(f, "\n[%s]\nmodel = %s\n", header, models[s->model]);
    if (s->model == MODEL_HOT_RECORD) {
        fprintf(f, "occ = %s\n", s->occ == OCC_TWO_ROUND_TRIPS
                                     ? "two_round_trips"
                                     : "one_step");
        if (s->occ == OCC_TWO_ROUND_TRIPS)
            fprintf(f, "read_service = %s\n",
                    dist_text(&s->read_service, a, sizeof a));
    }
    fprintf(f, "workers = %s\n", count_unl(s->workers, a, sizeof a));
    fprintf(f, "queue_limit = %s\n", count_unl(s->queue_limit, a, sizeof a));
    fprintf(f, "overflow = %s\n", overflow[s->overflow]);
    fprintf(f, "queue_order = %s\n", order[s->queue_order]);
    if (s->overflow == OVERFLOW_REJECT)
        fprintf(f, "retry_after = %s\n",
                s->overflow_retry_after_ns
                    ? dur(s->overflow_retry_after_ns, a, sizeof a)
                    : "none");
    fprintf(f, "service = %s\n", dist_text(&s->service, a, sizeof a));
    /* The knee alone too: the loader takes it without a degradation, and
     * dropping it changed the config (found by fuzz_scenario). */
    if (s->degradation > 0 || s->degradation_knee != SIM_UNLIMITED) {
        fprintf(f, "degradation = %s\n", real(s->degradation, a, sizeof a));
        fprintf(f, "degradation_knee = %" PRIu32 "\n", s->degradation_knee);
    }
    fprintf(f, "network_delay = %s\n", dist_text(&s->network, a, sizeof a));
    if (s->rate_limit_per_s > 0) {
        fprintf(f, "rate_limit = %s/s\n",
                real(s->rate_limit_per_s, a, sizeof a));
        fprintf(f, "rate_limit_burst = %" PRIu32 "\n", s->rate_limit_burst);
    } else {
        fprintf(f, "rate_limit = none\n");
    }
    fprintf(f, "drop_expired = %s\n", yes(s->drop_expired));
    fprintf(f, "drop_late = %s\n", yes(s->drop_late));
    fprintf(f, "idempotency = %s\n", yes(s->idempotency));
    fprintf(f, "dedupe_answer = %s\n", dedupe[s->dedupe_answer]);
}

/* An errors fault's status as the loader reads it. */
static const char *status_text(const fault_cfg *ft, char *buf, size_t len);

static void fault_section(FILE *f, const sim_config *c, const fault_cfg *ft)
{
    char a[160];
    fprintf(f, "\n[fault.%s]\ntype = %s\n", ft->name,
            fault_type_name(ft->type));
    if (ft->tier > 0 && ft->tier < c->n_tiers)
        fprintf(f, "target = %s\n", c->tiers[ft->tier].name);
    fprintf(f, "start = %s\n", dur(ft->start_ns, a, sizeof a));
    fprintf(f, "duration = %s\n", dur(ft->duration_ns, a, sizeof a));
    switch (ft->type) {
    case FAULT_CAPACITY:
        fprintf(f, "workers = %" PRIu32 "\n", ft->workers);
        break;
    case FAULT_LOAD_SPIKE:
    case FAULT_SLOWDOWN:
        fprintf(f, "multiplier = %s\n", real(ft->multiplier, a, sizeof a));
        break;
    case FAULT_OUTAGE:
    case FAULT_PARTITION:
        fprintf(f, "mode = %s\n",
                ft->mode == CUT_REFUSE ? "refuse" : "blackhole");
        if (ft->type == FAULT_PARTITION)
            fprintf(f, "fraction = %s\n", real(ft->fraction, a, sizeof a));
        break;
    case FAULT_LATENCY:
        fprintf(f, "delay = %s\n", dur(ft->delay_ns, a, sizeof a));
        break;
    case FAULT_ERRORS:
        fprintf(f, "status = %s\n", status_text(ft, a, sizeof a));
        if (ft->retry_after_ns > 0)
            fprintf(f, "retry_after = %s\n",
                    dur(ft->retry_after_ns, a, sizeof a));
        fprintf(f, "probability = %s\n", real(ft->probability, a, sizeof a));
        if (ft->pushback == FAULT_PUSHBACK_STOP)
            fprintf(f, "pushback = stop\n");
        else if (ft->pushback == FAULT_PUSHBACK_DELAY)
            fprintf(f, "pushback = %s\n",
                    dur((int64_t)ft->pushback_ms * NS_PER_MS, a, sizeof a));
        break;
    case FAULT_LOST_ACK:
        fprintf(f, "probability = %s\n", real(ft->probability, a, sizeof a));
        break;
    case FAULT_RATE_LIMIT:
        fprintf(f, "rate = %s/s\n", real(ft->rate_per_s, a, sizeof a));
        fprintf(f, "burst = %" PRIu32 "\n", ft->burst);
        break;
    case FAULT_CLIENT_TIMEOUT:
        fprintf(f, "timeout = %s\n", dur(ft->delay_ns, a, sizeof a));
        break;
    default:
        break;
    }
}

/* gRPC code names in grpc/status.h order (what the loader accepts). */
static const char *const grpc_names[] = {
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
    "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};

static const char *status_text(const fault_cfg *ft, char *buf, size_t len)
{
    if (ft->kind == SB_ERR_RESET)
        snprintf(buf, len, "reset");
    else if (ft->kind == SB_ERR_GRPC && ft->status >= 0 && ft->status <= 16)
        snprintf(buf, len, "%s", grpc_names[ft->status]);
    else
        snprintf(buf, len, "%" PRId32, ft->status);
    return buf;
}

static void policy_section(FILE *f, const writer_extra *x)
{
    fprintf(f, "\n[policy]\nname = %s\n", x->policy ? x->policy : "none");
    for (int i = 0; i < x->n_plugins; i++)
        text_kv(f, "plugin", x->plugins[i]);
    for (int i = 0; i < x->n_params; i++)
        text_kv(f, x->params[i].key, x->params[i].value);
}

/* A service chain: the top's name and downstream (still in [server]),
 * then each tier below and the policy of each tier's calls. */
static void chain_top(FILE *f, const sim_config *c)
{
    if (c->n_tiers < 2)
        return;
    fprintf(f, "name = %s\ndownstream = %s\n", c->tiers[0].name,
            c->tiers[1].name);
}

static void chain_sections(FILE *f, const sim_config *c)
{
    char a[160], header[SIM_NAME_MAX + 8];
    for (uint32_t i = 0; i < c->n_tiers; i++) {
        const tier_cfg *t = &c->tiers[i];
        if (i + 1 < c->n_tiers) {
            fprintf(f, "\n[policy.%s]\nname = %s\ntimeout = %s\n", t->name,
                    t->policy, dur(t->timeout_ns, a, sizeof a));
            if (t->processes)
                fprintf(f, "processes = %" PRIu32 "\n", t->processes);
            fprintf(f, "propagate_deadline = %s\n",
                    yes(t->propagate_deadline));
            for (uint32_t k = 0; k < t->n_settings; k++)
                text_kv(f, t->settings[k].key, t->settings[k].value);
        }
        if (i == 0)
            continue;
        /* Tier names are under SIM_NAME_MAX (the loader's rule). */
        snprintf(header, sizeof header, "server.%.*s", SIM_NAME_MAX - 1,
                 t->name);
        server_section(f, header, &t->server);
        if (i + 1 < c->n_tiers)
            fprintf(f, "downstream = %s\n", c->tiers[i + 1].name);
    }
}

/* Each tier's [expect.NAME], the keys the loader reads, exactly. */
static void tier_expect(FILE *f, const sim_config *c)
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
                fprintf(f, "\n[expect.%s]\n", t->name);
            header = true;
            fprintf(f, "%s = %.17g\n", keys[k], t->expect[k]);
        }
    }
}

/* [pipeline] and its steps, in the order they run.  A step's timeout
 * of 0 (the clients') and its service and undo when it has none are left
 * out: the loader then gives the same; its own stack's parameters follow
 * its policy, as written. */
static void step_section(FILE *f, const step_cfg *st)
{
    char a[160];
    fprintf(f, "\n[step.%s]\n", st->name);
    if (st->policy[0])
        fprintf(f, "policy = %s\n", st->policy);
    if (st->timeout_ns > 0)
        fprintf(f, "timeout = %s\n", dur(st->timeout_ns, a, sizeof a));
    if (st->has_service)
        fprintf(f, "service = %s\n", dist_text(&st->service, a, sizeof a));
    fprintf(f, "transient = %s\n", real(st->transient, a, sizeof a));
    fprintf(f, "permanent = %s\n", real(st->permanent, a, sizeof a));
    fprintf(f, "defect = %s\n", real(st->defect, a, sizeof a));
    fprintf(f, "items = %" PRIu32 "\n", st->items);
    if (st->items > 0)
        fprintf(f, "item_defect = %s\n", real(st->item_defect, a, sizeof a));
    fprintf(f, "idempotent = %s\n", yes(st->idempotent));
    fprintf(f, "independent = %s\n", yes(st->independent));
    if (st->has_undo)
        fprintf(f, "undo = %s\n", dist_text(&st->undo_service, a, sizeof a));
    for (uint32_t k = 0; k < st->n_settings; k++)
        text_kv(f, st->settings[k].key, st->settings[k].value);
}

static void pipeline_sections(FILE *f, const sim_config *c)
{
    const pipeline_cfg *p = &c->pipeline;
    char a[160];
    if (p->n_steps == 0)
        return;
    fprintf(f, "\n[pipeline]\nsteps = ");
    for (uint32_t i = 0; i < p->n_steps; i++)
        fprintf(f, "%s%s", i ? ", " : "", p->steps[i].name);
    fprintf(f, "\non_failure = %s\n", pipeline_strategy_name(p->strategy));
    fprintf(f, "checkpoints = %s\n", yes(p->checkpoints));
    fprintf(f, "reruns = %" PRIu32 "\n", p->reruns);
    fprintf(f, "rerun_delay = %s\n", dur(p->rerun_delay_ns, a, sizeof a));
    fprintf(f, "sla = %s\n",
            p->sla_ns ? dur(p->sla_ns, a, sizeof a) : "none");
    fprintf(f, "warn_retry = %" PRIu32 "\n", p->warn_retry);
    fprintf(f, "dead_letter_growth = %" PRIu32 "\n", p->dead_letter_growth);
    for (uint32_t i = 0; i < p->n_steps; i++)
        step_section(f, &p->steps[i]);
}

static void comment(FILE *f, const char *text)
{
    while (text && *text) {
        const char *nl = strchr(text, '\n');
        int n = nl ? (int)(nl - text) : (int)strlen(text);
        fprintf(f, "; %.*s\n", n, text);
        text += n + (nl != NULL);
    }
}

int scenario_write(FILE *f, const sim_config *cfg, const writer_extra *x,
                   sb_err *e)
{
    errno = 0;
    if (x->comment) {
        comment(f, x->comment);
        fputc('\n', f);
    }
    scenario_section(f, cfg);
    clients_section(f, &cfg->clients);
    server_section(f, "server", &cfg->server);
    chain_top(f, cfg);
    policy_section(f, x);
    chain_sections(f, cfg);
    for (uint32_t i = 0; i < cfg->n_faults; i++)
        fault_section(f, cfg, &cfg->faults[i]);
    if (x->n_expect > 0) {
        fprintf(f, "\n[expect]\n");
        for (int i = 0; i < x->n_expect; i++)
            text_kv(f, x->expect[i].key, x->expect[i].value);
    }
    tier_expect(f, cfg);
    pipeline_sections(f, cfg);
    if (ferror(f))
        return err_set(e, "cannot write the scenario: %s",
                       errno ? strerror(errno) : "write error");
    return 0;
}
