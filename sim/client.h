/*
 * client.h -- the top-level clients: when their work arrives, what each
 * of them is doing, what their requests carry.  Internal to sim/.
 *
 * The clients are requester 0 of the request lifecycle (request.h),
 * which owns their policy state, their connection pools and the run of
 * each request.  What is theirs alone is here: the arrival of work (a
 * request, or with [pipeline] a job: pipeline.h), the attributes a
 * request starts with, the modes front ends show, the policy levels
 * charted, and the two things faults change about them -- the load spike
 * and the attempt timeout.
 *
 * Arrivals.  Open loop: request k of client c arrives a gap after request
 * k-1, the gap drawn from (seed, c, RNG_ARRIVAL, k) and divided by the
 * load-spike multiplier.  Closed loop: request k starts a think time
 * (same stream) after request k-1 ended.  Once: one request per client, at
 * a uniform time in the start window.  Either way the arrival instants
 * depend on the policy only through request end times in closed loop.
 * A rate profile (open loop, rate = profile(FILE)) makes the Poisson
 * process nonhomogeneous: the gap's exponential draw is a mass of the
 * cumulative rate, inverted to a time (client.c).  A trace (arrival =
 * trace(FILE)) replays recorded instants, dealt to the clients when the
 * run starts; a load spike leaves a trace's instants alone (the loader
 * refuses the pair; the GUI's rate keys do nothing to a trace).
 *
 * The client's own time.  Every attempt costs its client at least
 * call_time (default 100 us): an answer that the network and server would
 * deliver sooner, and a send refused locally by a breaker or a budget,
 * are known only call_time after the call (request.c keeps to it).  A
 * real call is never free -- building it, the syscalls, the error path,
 * the application's own handling of the failure take tens to hundreds of
 * microseconds -- and without that cost a closed-loop client with no
 * think time whose calls fail in zero time would run requests forever at
 * one instant.
 *
 * Processes.  Clients are spread over processes (service instances):
 * client c belongs to process c x processes / clients (contiguous
 * blocks); policy state is kept per process, per client and per request,
 * and each process may have a pool of connections (request.h).
 */
#ifndef SB_CLIENT_H
#define SB_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "request.h"
#include "sim.h"

/* Invariants (clients_sane):
 *   next_request, mode: n entries each; every mode a sim_client_mode;
 *   spike > 0, and gap_mean_ns is engine_gap_mean_ns at that spike (set
 *   only by clients_set_load and clients_start);
 *   timeout_ns > 0: the clients' attempt timeout now (set only by
 *   clients_set_load, from the running faults);
 *   no_request_extras is what clients_start found (the configuration
 *   and the stack do not change during a run);
 *   levels: NULL until the first report, then one per process, each in
 *   [0, 1] or -1 (never reported); level_count of them reported, summing
 *   to level_sum. */
typedef struct clients {
    uint32_t n;
    uint32_t *next_request; /* per client: the number of its next request,
                               which is also its arrival stream's counter */
    uint8_t *mode;          /* per client: sim_client_mode */
    double spike;           /* arrival multiplier (load spikes) */
    /* The open loop's mean gap (engine_gap_mean_ns) at that spike: kept,
     * not computed at every arrival. */
    double gap_mean_ns;
    int64_t timeout_ns; /* the attempt timeout now */
    uint64_t offered;   /* requests and jobs started: the 1-in-N trace
                               sample counts them */
    /* A request starts with nothing but its op drawn: no policy state to
     * zero, no deadline, no defect or critical coin, no idempotency key,
     * no trace (start_extras is skipped). */
    bool no_request_extras;
    /* rate = profile(FILE): a gap is one unit of exponential mass times
     * this (the clients' count when the profile's rates are the
     * population's, else 1), divided by the spike (client.c). */
    double mass_scale;
    /* arrival = trace(FILE): client c's requests arrive at
     * trace_at[trace_first[c] ...  trace_first[c + 1]), ascending
     * (clients_start deals them); NULL otherwise. */
    uint32_t *trace_first;
    int64_t *trace_at;
    double *levels; /* per process: the policy's level, or -1 */
    double level_sum;
    uint32_t level_count;
} clients;

/* Set up the clients of s->cfg: requester 0 with the run's stack, their
 * policy state and first arrivals.  Free with clients_fini. */
int clients_start(sim *s, sb_err *e);
void clients_fini(clients *cl);
/* Make cl a copy of src (its arrays copied); -1 out of memory (cl is then
 * good for clients_fini only). */
int clients_clone(clients *cl, const clients *src, uint32_t n_processes);

/* Client c's work arrives (EV_ARRIVAL): a request, or a job. */
void client_on_arrival(sim *s, uint32_t c);
/* Schedule client c's next arrival (open loop: at once after the last;
 * closed loop: when its work ended). */
void client_schedule_arrival(sim *s, uint32_t c);
/* Client c's work (a job) ended: what it shows, and in closed loop its
 * next arrival. */
void client_work_ended(sim *s, uint32_t c, sim_client_mode shown);

/* The running faults' load spike and attempt timeout (faults.c): pending
 * arrivals are rescaled to the new rate. */
void clients_set_load(sim *s, double spike, int64_t timeout_ns);

/* What client c is doing now, for front ends. */
static inline void clients_show(clients *cl, uint32_t c, sim_client_mode m)
{
    cl->mode[c] = (uint8_t)m;
}

/* The lifecycle's hook (request.h): request ri of a client ended. */
void client_request_ended(requester *rq, uint32_t ri, request *r, sb_outcome o,
                          const char *reason);
/* The policy of process p reports its level (sb_host.level). */
void client_policy_level(sim *s, uint32_t p, double fraction);

/* The client of an event's subject, for the stopped-clock message. */
uint32_t client_of_event(const sim *s, unsigned type, uint32_t id);

/* Do the clients' invariants hold (above)?  O(clients). */
bool clients_sane(const sim *s);

#endif
