/*
 * faults.c -- the running faults and what they do: the server's effective
 * workers, rate limit, outage, latency, slowdown, error and lost-ack
 * coins, partitions and the arrival multiplier.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"

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
    if (evq_retime(&s->q, stretch, k) != 0)
        engine_fail(s, "out of memory for the event queue");
}

/* Recompute the server's effective state from the running faults. */
void faults_apply(sim *s)
{
    const server_cfg *sc = &s->cfg->server;
    double spike = 1.0, slowdown = 1.0;
    int64_t latency = 0;
    int outage = -1;
    uint32_t workers = sc->workers;
    double rate = sc->rate_limit_per_s, burst = sc->rate_limit_burst;
    s->n_errors = s->n_lost = s->n_cuts = 0;
    for (uint32_t i = 0; i < s->n_faults; i++) {
        if (!s->active[i])
            continue;
        const fault_cfg *f = &s->faults[i];
        switch (f->type) {
        case FAULT_CAPACITY:
            if (f->workers < workers)
                workers = f->workers;
            break;
        case FAULT_LOAD_SPIKE:
            spike *= f->multiplier;
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
        case FAULT_ERRORS:
            s->errors[s->n_errors++] = (uint8_t)i;
            break;
        case FAULT_LOST_ACK:
            s->lost[s->n_lost++] = (uint8_t)i;
            break;
        case FAULT_PARTITION:
            s->cuts[s->n_cuts++] = (uint8_t)i;
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
    set_spike(s, spike);
    s->slowdown = slowdown;
    s->latency = latency;
    if (outage >= 0 && s->outage < 0)
        server_crash(s, outage);
    s->outage = outage;
    if (rate != s->limit_rate || burst != s->limit_burst) {
        if (s->limit_rate > 0)
            server_refill_tokens(s);
        else
            s->tokens = burst;
        s->tokens_t = s->now;
        s->limit_rate = rate;
        s->limit_burst = burst;
        if (s->tokens > burst)
            s->tokens = burst;
    }
    s->workers = workers;
    s->m.capacity = workers;
    if (s->outage < 0)
        server_dispatch_queue(s);
}

void faults_on(sim *s, uint32_t i, bool on, uint32_t gen)
{
    if (on) {
        if (s->active[i])
            return;
        s->active[i] = true;
        s->fault_gen[i]++;
        const fault_cfg *f = &s->faults[i];
        engine_push(s, simtime_add(s->now, f->duration_ns), EV_FAULT_OFF, i,
                    s->fault_gen[i]);
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
    uint32_t i = s->n_faults++;
    s->faults[i] = *f;
    if (s->faults[i].start_ns < s->now)
        s->faults[i].start_ns = s->now;
    engine_push(s, s->faults[i].start_ns, EV_FAULT_ON, i, 0);
    return (int)i;
}

void sim_end_fault(sim *s, int index)
{
    if (index < 0 || (uint32_t)index >= s->n_faults || !s->active[index])
        return;
    /* Record the real end so the summary measures recovery from it. */
    s->faults[index].duration_ns = s->now - s->faults[index].start_ns;
    s->active[index] = false;
    s->fault_gen[index]++;
    faults_apply(s);
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
        if (start < 0 || s->faults[i].start_ns < start)
            start = s->faults[i].start_ns;
    return start;
}
