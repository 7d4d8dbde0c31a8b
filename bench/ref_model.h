/*
 * ref_model.h -- the reference loop: the benchmark's client/server/retry
 * model written as a plain C event loop, the yardstick the full engine is
 * measured against (bench_engine.c).
 *
 * It does the work the engine does for each request of the benchmark's
 * scenario, and nothing else: open-loop Poisson arrivals per client, an
 * attempt sent with one timeout event (cancelled lazily, by generation),
 * a network leg to the server, a FIFO queue in front of W workers,
 * exponential service, a network leg back, immediate retries up to a cap,
 * and a black-hole outage that drops what the server holds.  It keeps only
 * the counters it prints -- no metrics buckets, no histograms, no policy
 * stack, no traces -- which is what a hand-written simulator of this one
 * model would do.
 *
 * The random draws are the engine's own (base/rng.h, the same streams and
 * counters), so both simulate the same arrivals and service times and
 * their counts agree (bench_engine prints them side by side as a check
 * that the work is the same).
 *
 * Two builds of one loop (ref_loop.h): ref_run_heap() on a plain 4-ary
 * heap of 16-byte entries compared by time alone, as a hand-written loop
 * would have it; ref_run_evq() on the engine's event queue
 * (sim/event_queue.h), pushed the way the engine pushes.
 */
#ifndef SB_REF_MODEL_H
#define SB_REF_MODEL_H

#include <stddef.h>
#include <stdint.h>

typedef struct ref_params {
    uint32_t clients;
    double rate_per_s;       /* offered requests per second, all clients */
    int64_t duration_ns;     /* the run: events before this time */
    int64_t timeout_ns;      /* per attempt */
    int64_t net_ns;          /* one way, constant */
    int64_t service_mean_ns; /* exponential */
    uint32_t workers;
    uint32_t max_attempts;   /* the first included; retries are immediate */
    int64_t outage_start_ns; /* black hole: queued and in-service work is */
    int64_t outage_ns;       /* dropped, and arrivals too, while it lasts */
    uint64_t seed;
} ref_params;

typedef struct ref_result {
    uint64_t requests; /* logical requests that arrived */
    uint64_t attempts;
    uint64_t successes;
    uint64_t gave_up;  /* last attempt timed out */
    uint64_t timeouts; /* attempts */
    uint64_t events;   /* taken off the queue */
} ref_result;

/* Run the model; 0, or -1 when out of memory. */
int ref_run_heap(const ref_params *p, ref_result *r);
int ref_run_evq(const ref_params *p, ref_result *r);

#endif
