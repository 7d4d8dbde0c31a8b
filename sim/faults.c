/*
 * faults.c -- the running faults and what they do: the server's effective
 * workers, rate limit, outage, latency, slowdown, error and lost-ack
 * coins, partitions and the arrival multiplier.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "server.h"
#include "pipeline.h"
#include "tier.h"

static int64_t stretch(const evq_event *ev, void *ctx)
{
    const double *k = ctx; /* k[0] = now, k[1] = old/new multiplier */
    /* An arrival at the end of time never comes, at any rate: rescaling
     * it would bring it back into the run. */
    if (evq_type(ev) != EV_ARRIVAL || ev->time >= SIMTIME_END)
        return ev->time;
    double now = k[0];
    return round_ns(now + ((double)ev->time - now) * k[1]);
}

/* Pending arrivals were drawn at the old rate; by the memoryless property
 * (and for think times, by rescaling) the remaining time to each scales by
 * old/new.  One O(n) pass, no random draws, so the arrival sequence stays
 * the same under every policy. */
static void set_spike(sim *s, double spike)
{
    if (spike == s->spike)
        return;
    double k[2] = {(double)s->now, s->spike / spike};
    s->spike = spike;
    s->gap_mean_ns = engine_gap_mean_ns(s);
    if (evq_retime(&s->q, stretch, k) != 0)
        engine_fail(s, "out of memory for the event queue");
}

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
    for (uint32_t i = 0; i < s->n_faults; i++) {
        const fault_cfg *f = &s->faults[i];
        if (!s->active[i] || f->tier != tier)
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
    double spike = 1.0;
    int64_t timeout = s->cfg->clients.timeout_ns, timeout_from = -1;
    bool crashed = false;
    s->n_errors = s->n_lost = s->n_cuts = 0;
    for (uint32_t i = 0; i < s->n_faults; i++) {
        if (!s->active[i])
            continue;
        const fault_cfg *f = &s->faults[i];
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
            s->errors[s->n_errors++] = (uint8_t)i;
            break;
        case FAULT_LOST_ACK:
            s->lost[s->n_lost++] = (uint8_t)i;
            break;
        case FAULT_PARTITION:
            s->cuts[s->n_cuts++] = (uint8_t)i;
            break;
        case FAULT_CRASH:
            crashed = true;
            break;
        default:
            break;
        }
    }
    set_spike(s, spike);
    s->timeout_ns = timeout;
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
    uint64_t key = rng_key(s->seed ^ s->fault_key[fi], client, RNG_FAULT);
    return rng_unit(rng_at(key, ctr));
}

/* Each round trip of an attempt flips its own coin: draw 0 for the
 * first, 2 for the second (draw 1 is the lost-ack coin). */
const fault_cfg *faults_error(const sim *s, const request *r, const attempt *t)
{
    unsigned slot = t->trip ? 2u : 0u;
    for (unsigned i = 0; i < s->n_errors; i++) {
        unsigned fi = s->errors[i];
        if (s->faults[fi].tier != r->tier)
            continue;
        uint64_t ctr = rng_attempt_counter(r->index, t->number, slot);
        if (fault_draw(s, fi, r->client, ctr) < s->faults[fi].probability)
            return &s->faults[fi];
    }
    return NULL;
}

bool faults_ack_lost(const sim *s, const request *r, const attempt *t)
{
    for (unsigned i = 0; i < s->n_lost; i++) {
        unsigned fi = s->lost[i];
        if (s->faults[fi].tier != r->tier)
            continue;
        uint64_t ctr = rng_attempt_counter(r->index, t->number, 1);
        if (fault_draw(s, fi, r->client, ctr) < s->faults[fi].probability)
            return true;
    }
    return false;
}

/* Membership is a pure function of (seed, client, fault), so the same
 * clients are cut off under every policy. */
int faults_cut_off(const sim *s, uint32_t c)
{
    for (unsigned i = 0; i < s->n_cuts; i++) {
        const fault_cfg *f = &s->faults[s->cuts[i]];
        if (engine_unit_draw(s, c, RNG_PARTITION, s->fault_key[s->cuts[i]]) < f->fraction)
            return (int)f->mode;
    }
    return -1;
}

/* A fault's events carry the generation they were pushed in: its start
 * event generation 0, its end event the one its start made.  Ending a
 * fault (by hand, or before it began) moves the generation on, so the
 * stale event is skipped when it surfaces, as timeouts are. */
void faults_on(sim *s, uint32_t i, bool on, uint32_t gen)
{
    if (on) {
        if (s->active[i] || gen != s->fault_gen[i])
            return;
        s->active[i] = true;
        s->fault_gen[i]++;
        const fault_cfg *f = &s->faults[i];
        engine_push_fault(s, simtime_add(s->now, f->duration_ns), EV_FAULT_OFF,
                          i, s->fault_gen[i]);
    } else {
        if (!s->active[i] || gen != s->fault_gen[i])
            return;
        s->active[i] = false;
    }
    faults_apply(s);
}

int sim_inject(sim *s, const fault_cfg *f, sb_err *e)
{
    if (s->n_faults == MAX_ALL_FAULTS)
        return err_set(e, "at most %d faults per run", MAX_ALL_FAULTS);
    if (f->name[0] == '\0')
        return err_set(e, "an injected fault needs a name");
    if (f->tier != 0 && f->tier >= sim_tiers(s))
        return err_set(e, "fault '%s' targets tier %u, and the run has %u",
                       f->name, (unsigned)f->tier, sim_tiers(s));
    for (uint32_t k = 0; k < s->n_faults; k++)
        if (strcmp(s->faults[k].name, f->name) == 0)
            return err_set(e, "there is already a fault named '%s'",
                           f->name);
    uint32_t i = s->n_faults++;
    s->faults[i] = *f;
    s->fault_key[i] = rng_named(f->name);
    if (s->faults[i].start_ns < s->now)
        s->faults[i].start_ns = s->now;
    engine_push_fault(s, s->faults[i].start_ns, EV_FAULT_ON, i, 0);
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
    if (index < 0 || (uint32_t)index >= s->n_faults)
        return false;
    fault_cfg *f = &s->faults[index];
    if (s->active[index]) {
        /* The real end, so the summary measures recovery from it. */
        f->duration_ns = s->now - f->start_ns;
        s->active[index] = false;
    } else if (s->fault_gen[index] == 0) {
        f->duration_ns = 0; /* it never began */
    } else {
        return false; /* over already */
    }
    s->fault_gen[index]++;
    engine_plan_phases(s, false);
    faults_apply(s);
    return true;
}

bool sim_fault_active(const sim *s, int index)
{
    return index >= 0 && (uint32_t)index < s->n_faults && s->active[index];
}

int64_t sim_last_fault_end(const sim *s)
{
    int64_t end = -1;
    for (uint32_t i = 0; i < s->n_faults; i++) {
        const fault_cfg *f = &s->faults[i];
        if (f->duration_ns == 0) /* ended before it began */
            continue;
        int64_t e = simtime_add(f->start_ns, f->duration_ns);
        if (e > end)
            end = e;
    }
    return end;
}

int64_t sim_first_fault_start(const sim *s)
{
    int64_t start = -1;
    for (uint32_t i = 0; i < s->n_faults; i++)
        if (s->faults[i].duration_ns > 0 &&
            (start < 0 || s->faults[i].start_ns < start))
            start = s->faults[i].start_ns;
    return start;
}
