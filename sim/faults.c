/*
 * faults.c -- the running faults and what they do (faults.h): the
 * servers' effective workers, rate limit, outage, latency, slowdown,
 * error and lost-ack coins, partitions, the arrival multiplier and the
 * clients' timeout, the pipeline's crashed runners.
 */
#include "faults.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "classifier.h"
#include "client.h"
#include "compiler.h"
#include "engine.h"
#include "pipeline.h"
#include "server.h"
#include "tier.h"

/* What the running faults that strike tier `tier` make of its server.
 * The order matters to a run's bytes: a crash answers with the new
 * latency, and capacity comes last because it starts queued work. */
static void apply_server(sim *s, unsigned tier, server *sv)
{
    const server_cfg *sc = server_config(sv);
    double slowdown = 1.0;
    int64_t latency = 0;
    int outage = -1;
    uint32_t workers = sc->workers;
    bool capacity_set = false;
    double rate = sc->rate_limit_per_s, burst = sc->rate_limit_burst;
    const faults *fl = &s->fl;
    for (uint32_t i = 0; i < fl->n; i++) {
        const fault_cfg *f = &fl->fault[i];
        if (!fl->active[i] || f->tier != tier)
            continue;
        switch (f->type) {
        case FAULT_CAPACITY:
            /* The server has f->workers, fewer or more than configured;
             * of several at once, the fewest. */
            if (!capacity_set || f->workers < workers)
                workers = f->workers;
            capacity_set = true;
            break;
        case FAULT_OUTAGE:
            if (outage != CUT_BLACKHOLE)
                outage = (int)f->mode;
            break;
        case FAULT_LATENCY:
            /* Latencies add; past the end of time an answer never comes. */
            latency = simtime_add(latency, f->delay_ns);
            break;
        case FAULT_SLOWDOWN:
            slowdown *= f->multiplier;
            break;
        case FAULT_RATE_LIMIT:
            if (rate <= 0 || f->rate_per_s < rate) {
                rate = f->rate_per_s;
                burst = f->burst;
            }
            break;
        default:
            break;
        }
    }
    server_note_faults(sv);
    server_set_slowdown(sv, slowdown);
    server_set_latency(sv, latency);
    if (outage >= 0)
        server_crash(sv, outage);
    else
        server_restart(sv);
    server_set_rate_limit(sv, rate, burst);
    server_set_capacity(sv, workers);
}

/* Recompute the clients' and every server's effective state from the
 * running faults.  Client-side faults (load spikes, timeouts,
 * partitions) strike the top-level clients; the rest strike the tier
 * they target (0, the top, without a chain). */
void faults_apply(sim *s)
{
    faults *fl = &s->fl;
    double spike = 1.0;
    int64_t timeout = s->cfg->clients.timeout_ns, timeout_from = -1;
    bool crashed = false;
    fl->n_errors = fl->n_lost = fl->n_cuts = 0;
    for (uint32_t i = 0; i < fl->n; i++) {
        if (!fl->active[i])
            continue;
        const fault_cfg *f = &fl->fault[i];
        switch (f->type) {
        case FAULT_CLIENT_TIMEOUT:
            /* The last one started (a later fault, a later change by
             * hand) sets the clients' attempt timeout. */
            if (f->start_ns >= timeout_from) {
                timeout = f->delay_ns;
                timeout_from = f->start_ns;
            }
            break;
        case FAULT_LOAD_SPIKE:
            spike *= f->multiplier;
            break;
        case FAULT_ERRORS:
            fl->errors[fl->n_errors++] = (uint8_t)i;
            break;
        case FAULT_LOST_ACK:
            fl->lost[fl->n_lost++] = (uint8_t)i;
            break;
        case FAULT_PARTITION:
            fl->cuts[fl->n_cuts++] = (uint8_t)i;
            break;
        case FAULT_CRASH:
            crashed = true;
            break;
        default:
            break;
        }
    }
    clients_set_load(s, spike, timeout);
    unsigned n = s->tiers ? sim_tiers(s) : 1;
    for (unsigned i = 0; i < n; i++)
        apply_server(s, i, tiers_server(s, i));
    if (s->pipe)
        pipeline_runners_down(s, crashed);
}

/* Fault fi's coin for a client's attempt: keyed by the fault's name. */
static double fault_draw(const sim *s, unsigned fi, uint32_t client,
                         uint64_t ctr)
{
    uint64_t key = rng_key(s->seed ^ s->fl.key[fi], client, RNG_FAULT);
    return rng_unit(rng_at(key, ctr));
}

/* Each round trip of an attempt flips its own coin: draw 0 for the
 * first, 2 for the second (draw 1 is the lost-ack coin). */
const fault_cfg *faults_error(const sim *s, const request *r, const attempt *t)
{
    const faults *fl = &s->fl;
    unsigned slot = t->trip ? 2u : 0u;
    for (unsigned i = 0; i < fl->n_errors; i++) {
        unsigned fi = fl->errors[i];
        if (fl->fault[fi].tier != r->tier)
            continue;
        uint64_t ctr = rng_attempt_counter(r->index, t->number, slot);
        if (fault_draw(s, fi, r->client, ctr) < fl->fault[fi].probability)
            return &fl->fault[fi];
    }
    return NULL;
}

bool faults_ack_lost(const sim *s, const request *r, const attempt *t)
{
    const faults *fl = &s->fl;
    for (unsigned i = 0; i < fl->n_lost; i++) {
        unsigned fi = fl->lost[i];
        if (fl->fault[fi].tier != r->tier)
            continue;
        uint64_t ctr = rng_attempt_counter(r->index, t->number, 1);
        if (fault_draw(s, fi, r->client, ctr) < fl->fault[fi].probability)
            return true;
    }
    return false;
}

/* Membership is a pure function of (seed, client, fault), so the same
 * clients are cut off under every policy -- and in every branch of a run
 * (the scenario's seed: sim_rekey), so a partition running at a branch
 * point goes on cutting the clients it cut. */
int faults_cut_off(const sim *s, uint32_t c)
{
    const faults *fl = &s->fl;
    for (unsigned i = 0; i < fl->n_cuts; i++) {
        const fault_cfg *f = &fl->fault[fl->cuts[i]];
        if (engine_root_unit_draw(s, c, RNG_PARTITION, fl->key[fl->cuts[i]]) <
            f->fraction)
            return (int)f->mode;
    }
    return -1;
}

/* ---- Weather: recurring faults and drawn lengths ------------------------- */

static bool recurring(const fault_cfg *f)
{
    return f->every.mean_ns > 0;
}

/* Occurrence k's gap before it (slot 0) or its length (slot 1), drawn
 * from the fault's own stream: keyed by its name, so that adding or
 * moving another fault changes nothing, and by the run's seed, so that a
 * branch re-keyed at t (sim_rekey) draws its own weather after t. */
static int64_t occurrence_draw(const sim *s, uint32_t i, const dist *d,
                               uint32_t k, unsigned slot)
{
    return engine_sample(s, d, (uint32_t)s->fl.key[i], RNG_FAULT_TIMES,
                         2 * (uint64_t)k + slot);
}

/* Occurrence k's length: drawn, or the configured duration. */
static int64_t occurrence_length(const sim *s, uint32_t i, uint32_t k,
                                 int64_t fixed)
{
    const fault_cfg *f = &s->fl.fault[i];
    if (f->length.mean_ns <= 0)
        return fixed;
    int64_t len = occurrence_draw(s, i, &f->length, k, 1);
    return len > 0 ? len : 1; /* a fault of no length never begins */
}

/* The first occurrence of fault i, set up when it is taken: a recurring
 * fault's comes a drawn gap after its start. */
static void occurrence_first(sim *s, uint32_t i)
{
    faults *fl = &s->fl;
    fault_cfg *f = &fl->fault[i];
    fl->fixed_len[i] = f->duration_ns;
    if (recurring(f))
        f->start_ns =
            simtime_add(f->start_ns, occurrence_draw(s, i, &f->every, 0, 0));
    f->duration_ns = occurrence_length(s, i, 0, f->duration_ns);
    fl->first_start[i] = f->start_ns;
    fl->occurrence[i] = 0;
}

/* Occurrence k of a recurring fault has just ended: the next begins a
 * drawn gap after its start, and not before now. */
static void occurrence_next(sim *s, uint32_t i)
{
    faults *fl = &s->fl;
    const fault_cfg *f = &fl->fault[i];
    uint32_t k = fl->occurrence[i] + 1;
    int64_t at =
        simtime_add(f->start_ns, occurrence_draw(s, i, &f->every, k, 0));
    fl->next_start[i] = at > s->now ? at : s->now;
    fl->next_len[i] = occurrence_length(s, i, k, fl->fixed_len[i]);
    engine_push_fault(s, fl->next_start[i], EV_FAULT_ON, i, fl->gen[i]);
}

/* A fault's events carry the generation they were pushed in: its start
 * event generation 0, its end event the one its start made (a recurring
 * fault's next start, the one its end holds).  Ending a fault (by hand,
 * or before it began) moves the generation on, so the stale event is
 * skipped when it surfaces, as timeouts are -- and a recurring fault
 * ended by hand recurs no more. */
void faults_on(sim *s, uint32_t i, bool on, uint32_t gen)
{
    faults *fl = &s->fl;
    fault_cfg *f = &fl->fault[i];
    if (on) {
        if (fl->active[i] || gen != fl->gen[i])
            return;
        if (fl->gen[i] > 0 && recurring(f)) {
            fl->occurrence[i]++;
            f->start_ns = fl->next_start[i];
            f->duration_ns = fl->next_len[i];
            engine_plan_phases(s, false);
        }
        fl->active[i] = true;
        fl->gen[i]++;
        engine_push_fault(s, simtime_add(s->now, f->duration_ns), EV_FAULT_OFF,
                          i, fl->gen[i]);
    } else {
        if (!fl->active[i] || gen != fl->gen[i])
            return;
        fl->active[i] = false;
        if (recurring(f))
            occurrence_next(s, i);
    }
    faults_apply(s);
}

void faults_start(sim *s)
{
    faults *fl = &s->fl;
    const sim_config *c = s->cfg;
    for (uint32_t i = 0; i < c->n_faults; i++) {
        fl->fault[i] = c->faults[i];
        fl->key[i] = rng_named(c->faults[i].name);
        occurrence_first(s, i);
        engine_push_fault(s, fl->fault[i].start_ns, EV_FAULT_ON, i, 0);
    }
    fl->n = c->n_faults;
}

int sim_inject(sim *s, const fault_cfg *f, sb_err *e)
{
    faults *fl = &s->fl;
    if (fl->n == MAX_ALL_FAULTS)
        return err_set(e, "at most %d faults per run", MAX_ALL_FAULTS);
    if (f->name[0] == '\0')
        return err_set(e, "an injected fault needs a name");
    if (f->tier != 0 && f->tier >= sim_tiers(s))
        return err_set(e, "fault '%s' targets tier %u, and the run has %u",
                       f->name, (unsigned)f->tier, sim_tiers(s));
    for (uint32_t k = 0; k < fl->n; k++)
        if (strcmp(fl->fault[k].name, f->name) == 0)
            return err_set(e, "there is already a fault named '%s'", f->name);
    /* As the loader refuses it in a file (loader.c check_trace): a spike
     * would change nothing, and its saved scenario would not load. */
    if (f->type == FAULT_LOAD_SPIKE && s->cfg->clients.arrival == ARRIVAL_TRACE)
        return err_set(e, "the clients replay a trace (arrival = "
                          "trace(FILE)) as recorded, which a load spike "
                          "cannot change; scale it with [clients] "
                          "trace_scale");
    uint32_t i = fl->n++;
    fl->fault[i] = *f;
    fl->key[i] = rng_named(f->name);
    if (fl->fault[i].start_ns < s->now)
        fl->fault[i].start_ns = s->now;
    occurrence_first(s, i);
    engine_push_fault(s, fl->fault[i].start_ns, EV_FAULT_ON, i, 0);
    engine_plan_phases(s, false);
    return (int)i;
}

/* A fault injected now starts with its event, after this call returns:
 * a second change at the same instant (a key pressed twice between two
 * frames) ends the first before it began.  It must then never begin --
 * left to start, it ran its whole duration beside the change that
 * replaced it.  Its duration becomes 0: it did not happen, and counts
 * for no phase. */
bool sim_end_fault(sim *s, int index)
{
    faults *fl = &s->fl;
    if (index < 0 || (uint32_t)index >= fl->n)
        return false;
    fault_cfg *f = &fl->fault[index];
    if (fl->active[index]) {
        /* The real end, so the summary measures recovery from it. */
        f->duration_ns = s->now - f->start_ns;
        fl->active[index] = false;
    } else if (fl->gen[index] == 0) {
        f->duration_ns = 0; /* it never began */
    } else if (!recurring(f)) {
        return false; /* over already */
    }                 /* else between two occurrences: the next is called off */
    fl->gen[index]++;
    engine_plan_phases(s, false);
    faults_apply(s);
    return true;
}

bool sim_fault_active(const sim *s, int index)
{
    return index >= 0 && (uint32_t)index < s->fl.n && s->fl.active[index];
}

uint32_t sim_fault_occurrences(const sim *s, int index)
{
    if (index < 0 || (uint32_t)index >= s->fl.n || s->fl.gen[index] == 0 ||
        s->fl.fault[index].duration_ns == 0) /* ended before it began */
        return 0;
    /* occurrence counts from 0 and moves on as each later one begins */
    return s->fl.occurrence[index] + 1;
}

int64_t sim_last_fault_end(const sim *s)
{
    int64_t end = -1;
    for (uint32_t i = 0; i < s->fl.n; i++) {
        const fault_cfg *f = &s->fl.fault[i];
        if (f->duration_ns == 0) /* ended before it began */
            continue;
        int64_t e = simtime_add(f->start_ns, f->duration_ns);
        if (e > end)
            end = e;
    }
    return end;
}

/* The first start of each fault: a recurring fault's first occurrence
 * (fault[i] describes its latest). */
int64_t sim_first_fault_start(const sim *s)
{
    int64_t start = -1;
    for (uint32_t i = 0; i < s->fl.n; i++)
        if (s->fl.fault[i].duration_ns > 0 &&
            (start < 0 || s->fl.first_start[i] < start))
            start = s->fl.first_start[i];
    return start;
}

const fault_cfg *sim_faults(const sim *s, uint32_t *n)
{
    *n = s->fl.n;
    return s->fl.fault;
}

/* ---- In words (config.h) ---------------------------------------------- */

/* Append to buf, as far as it holds. */
static void put(char *buf, size_t len, const char *fmt, ...) SB_PRINTF(3, 4);
static void put(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

/* "1.5 s", "500 ms", "2 min": a label's duration in the unit that reads
 * best. */
static const char *label_duration(int64_t ns, char *buf, size_t len)
{
    double s = (double)ns / 1e9;
    if (s >= 120 && fmod(s, 60) == 0)
        snprintf(buf, len, "%.0f min", s / 60);
    else if (s >= 1)
        snprintf(buf, len, "%.3g s", s);
    else
        snprintf(buf, len, "%.3g ms", s * 1e3);
    return buf;
}

/* An errors fault's answer, the long way: "by a connection reset",
 * "UNAVAILABLE", "503". */
static const char *errors_answer(const fault_cfg *f, char *buf, size_t len)
{
    if (f->kind == SB_ERR_RESET)
        snprintf(buf, len, "by a connection reset");
    else if (f->kind == SB_ERR_GRPC)
        snprintf(buf, len, "%s", classify_grpc_name(f->status));
    else
        snprintf(buf, len, "%d", (int)f->status);
    return buf;
}

/* Each case says its type both ways; no default, so that a type added
 * to fault_type without its words is a compiler warning here. */
const char *fault_words(const fault_cfg *f, fault_words_form form, char *buf,
                        size_t len)
{
    bool brief = form == FAULT_WORDS_BRIEF;
    char a[64];
    if (len == 0)
        return buf;
    buf[0] = '\0';
    switch (f->type) {
    case FAULT_CAPACITY:
        put(buf, len, "%s%u worker%s", brief ? "" : "capacity: ", f->workers,
            f->workers == 1 ? "" : "s");
        return buf;
    case FAULT_LOAD_SPIKE:
        if (brief)
            put(buf, len, "load x%.3g", f->multiplier);
        else
            put(buf, len, "load spike: arrivals x%g", f->multiplier);
        return buf;
    case FAULT_OUTAGE:
        if (brief)
            put(buf, len, "%s",
                f->mode == CUT_REFUSE ? "outage (refused)" : "outage");
        else
            put(buf, len, "%s",
                f->mode == CUT_BLACKHOLE
                    ? "black-hole outage: nothing answers, clients time out"
                    : "outage: attempts refused at once");
        return buf;
    case FAULT_LATENCY:
        if (brief)
            put(buf, len, "latency +%s",
                label_duration(f->delay_ns, a, sizeof a));
        else
            put(buf, len, "latency: every answer %s later",
                units_fmt_duration(f->delay_ns, a, sizeof a));
        return buf;
    case FAULT_SLOWDOWN:
        if (brief)
            put(buf, len, "slowdown x%.3g", f->multiplier);
        else
            put(buf, len, "slowdown: service time x%g", f->multiplier);
        return buf;
    case FAULT_ERRORS:
        if (brief) {
            put(buf, len, "%ds on %.0f %%", (int)f->status,
                100.0 * f->probability);
            return buf;
        }
        put(buf, len, "errors: %g %% of attempts answered %s",
            100 * f->probability, errors_answer(f, a, sizeof a));
        if (f->retry_after_ns > 0)
            put(buf, len, " with Retry-After %s",
                units_fmt_duration(f->retry_after_ns, a, sizeof a));
        if (f->pushback == FAULT_PUSHBACK_DELAY)
            put(buf, len, " with a pushback of %d ms", (int)f->pushback_ms);
        else if (f->pushback == FAULT_PUSHBACK_STOP)
            put(buf, len, " with a pushback of 'do not retry'");
        return buf;
    case FAULT_LOST_ACK:
        if (brief)
            put(buf, len, "%.0f %% acks lost", 100.0 * f->probability);
        else
            put(buf, len,
                "lost acknowledgements: %g %% of answers lost, the work "
                "done",
                100 * f->probability);
        return buf;
    case FAULT_PARTITION:
        if (brief)
            put(buf, len, "partition of %.0f %%", 100.0 * f->fraction);
        else
            put(buf, len, "partition: %g %% of the clients cut off (%s)",
                100 * f->fraction,
                f->mode == CUT_BLACKHOLE ? "black hole" : "refused");
        return buf;
    case FAULT_RATE_LIMIT:
        if (brief)
            put(buf, len, "rate limit %.3g/s", f->rate_per_s);
        else
            put(buf, len, "rate limit: %g/s, burst %u (429 with Retry-After)",
                f->rate_per_s, f->burst);
        return buf;
    case FAULT_CLIENT_TIMEOUT:
        if (brief)
            put(buf, len, "timeout %s",
                label_duration(f->delay_ns, a, sizeof a));
        else
            put(buf, len, "client timeout: %s per attempt",
                units_fmt_duration(f->delay_ns, a, sizeof a));
        return buf;
    case FAULT_CRASH:
        put(buf, len, "%s",
            brief ? "crash" : "crash of the pipeline's job runners");
        return buf;
    case FAULT_TYPE_COUNT:
        break;
    }
    put(buf, len, "%s", fault_type_name(f->type));
    return buf;
}

/* A running list of fault type `type` must be exactly the running
 * faults of that type, in index order. */
static bool list_sane(const faults *fl, const uint8_t *list, uint8_t n,
                      fault_type type)
{
    uint8_t k = 0;
    for (uint32_t i = 0; i < fl->n; i++)
        if (fl->active[i] && fl->fault[i].type == type)
            if (k >= n || list[k++] != i)
                return false;
    return k == n;
}

bool faults_sane(const sim *s)
{
    const faults *fl = &s->fl;
    if (fl->n > MAX_ALL_FAULTS || fl->n < s->cfg->n_faults)
        return false;
    for (uint32_t i = 0; i < fl->n; i++)
        if (fl->key[i] != rng_named(fl->fault[i].name))
            return false;
    return list_sane(fl, fl->errors, fl->n_errors, FAULT_ERRORS) &&
           list_sane(fl, fl->lost, fl->n_lost, FAULT_LOST_ACK) &&
           list_sane(fl, fl->cuts, fl->n_cuts, FAULT_PARTITION);
}
