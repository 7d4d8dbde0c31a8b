/*
 * server.h -- a modeled server: admission (outage, rate limit, injected
 * errors, the queue bound), a queue, workers, service with overload
 * degradation, commits and deduplication, answers.  Internal to sim/.
 *
 * A server is an object of its own, so that a sim may hold several (a
 * later chain of tiers gives each its own queue, workers and faults).  It
 * belongs to one sim, whose records (attempts, requests), event queue and
 * random draws it uses, and reports into one metrics (both borrowed, both
 * must outlive it).  Faults change it only through the setters below;
 * nothing else writes its fields.
 *
 * What a request does to the server's data is a *model*: a small table of
 * hooks (server_model_ops) called by one shared core at the start and the end
 * of each service.  The plain queue model (every request is independent
 * work) and the hot-record model (every request is an optimistic update of
 * one shared record) are its implementations.
 *
 * A model can make an attempt take two round trips (the hot record's read
 * of the version, then its conditional write): it answers the first with
 * server_round_trip, and when that answer reaches a client that still
 * waits, the client sends the attempt's second trip at once.  The pair is
 * one attempt: one timeout covers both, and the client's policy sees only
 * the final outcome (or the first trip's error, which ends the attempt).
 * Each trip is a request of its own to the server: it is admitted (outage,
 * rate limit, injected errors, the queue bound), queued and served.
 *
 * Random draws of an attempt (rng_attempt_counter slots; 8 and up are
 * taken by lognormal's second normal):
 *   RNG_SERVICE  0 the service of the first trip, or of the second of
 *                  two; 1 the first of two (so the write of a two-round-
 *                  trip update is served as long as a one-step update)
 *   RNG_NET      0 to the server, 1 the final answer back, 2 the first
 *                  trip's answer back, 3 the second trip to the server
 *   RNG_FAULT+i  0 the first trip's error coin, 1 the lost-ack coin,
 *                  2 the second trip's error coin
 *
 * Every handler runs inside sim_run_until at the sim's current time.
 */
#ifndef SB_SERVER_H
#define SB_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

/* What became of an attempt whose service ended (server_model_ops.end). */
typedef enum service_end {
    SERVICE_DONE,     /* the work is done: a write commits; answer it */
    SERVICE_CONFLICT, /* an optimistic update lost: answer gRPC ABORTED */
    SERVICE_TAKEN,    /* the model answered this trip: server_round_trip */
    SERVICE_ANSWERED  /* the model set the answer (t->result, status,
                         defect) and made its commits itself: send it */
} service_end;

/* A server model: what a request does to the server's data.  The hooks
 * must not start or end services themselves. */
typedef struct server_model_ops {
    const char *name;
    /* Bytes of state the model keeps per server (server_model_state),
     * zeroed at creation. */
    size_t state_size;
    /* The distribution attempt t's next service time is drawn from; sets
     * *slot, the random draw of its attempt it uses (rng.h).  NULL: the
     * configured `service`, draw 0. */
    const dist *(*service)(const server *sv, const attempt *t, unsigned *slot);
    /* t's service starts now.  NULL: nothing to note. */
    void (*start)(server *sv, attempt *t);
    /* t's service has ended and its worker is free.  Unless this returns
     * SERVICE_TAKEN or SERVICE_ANSWERED, a request with a data defect is
     * answered 422 whatever it returns.  NULL: SERVICE_DONE. */
    service_end (*end)(server *sv, uint32_t ai, attempt *t, const request *r);
} server_model_ops;

extern const server_model_ops server_queue_ops;
extern const server_model_ops server_hot_record_ops;     /* one step */
extern const server_model_ops server_hot_record_2rt_ops; /* two trips */

/* Build a server for s with configuration cfg, reporting into m (all
 * borrowed; they must outlive it).  Free with server_destroy. */
int server_create(sim *s, const server_cfg *cfg, metrics *m, server **out,
                  sb_err *e);
void server_destroy(server *sv);
/* A copy of src for the copy s of its sim, reporting into m (a clone of
 * src's metrics): its queue, attempts in service, model state and fault
 * settings as they are now.  Free with server_destroy. */
int server_clone(const server *src, sim *s, metrics *m, server **out);

/* Serve with another model from now on (a pipeline's steps, pipeline.h):
 * one that keeps no state of its own (state_size 0).  Borrowed. */
void server_set_model(server *sv, const server_model_ops *ops);

/* ---- Faults: what the running faults make of the server ---------------- */

/* Workers now (capacity faults); attempts in service finish, and queued
 * ones start while workers are free (unless the server is down). */
void server_set_capacity(server *sv, uint32_t workers);
/* A token-bucket rate limit (rate 0: none); a change keeps the tokens
 * earned so far, capped by the new burst. */
void server_set_rate_limit(server *sv, double rate_per_s, double burst);
/* Service time multiplier (slowdown faults). */
void server_set_slowdown(server *sv, double multiplier);
/* Added to every answer (latency faults). */
void server_set_latency(server *sv, int64_t ns);
/* The server goes down (mode CUT_REFUSE or CUT_BLACKHOLE): queued and
 * in-service attempts are lost, new ones are refused or vanish.  Crashing
 * a server that is down only changes how it refuses. */
void server_crash(server *sv, int mode);
/* The server is up again (a no-op when it is up). */
void server_restart(server *sv);
/* The sim's running error faults (faults.h) changed: faults_apply
 * calls this for every server after counting them. */
void server_note_faults(server *sv);

/* ---- Events ------------------------------------------------------------ */

/* An attempt reaches the server (EV_SERVER_ARRIVE). */
void server_on_arrive(server *sv, uint32_t ai, uint32_t gen);
/* An attempt's service ends (EV_SERVICE_DONE). */
void server_on_service_done(server *sv, uint32_t ai, uint32_t gen);
/* The answer to an attempt's first trip reaches the client (EV_TRIP). */
void server_on_trip(server *sv, uint32_t ai, uint32_t gen);

/* ---- Tiers (tier.h) ------------------------------------------------------ */

/* Its place in a chain: tier index, the offset of its random streams
 * (rng.h), and whether it calls a downstream tier after its own
 * service (holding the worker meanwhile). */
void server_set_tier(server *sv, uint8_t tier, unsigned stream,
                     bool calls_down);
/* The call down for attempt ai (in stage ST_CALLING) ended, successfully
 * or not: free its worker and answer it. */
void server_call_done(server *sv, uint32_t ai, bool ok);

/* ---- For models --------------------------------------------------------- */

/* Answer the first trip of attempt ai and expect its second: the answer
 * pays the network delay back and any latency fault; then the client, if
 * it still waits, sends the second trip.  The caller returns
 * SERVICE_TAKEN. */
void server_round_trip(server *sv, uint32_t ai);

const server_cfg *server_config(const server *sv);
/* The sim it belongs to. */
sim *server_sim(const server *sv);
/* The model's own state (state_size bytes), or NULL when it keeps none. */
void *server_model_state(server *sv);

/* ---- Gauges ------------------------------------------------------------- */

uint32_t server_busy(const server *sv);      /* attempts in service */
uint32_t server_queue_len(const server *sv); /* attempts queued */
uint32_t server_workers(const server *sv);   /* workers now */
size_t server_bytes(const server *sv);       /* memory it holds */
bool server_is_down(const server *sv);       /* an outage is running */
/* Do its invariants (server.c) hold?  O(1). */
bool server_sane(const server *sv);
/* Attempts in service and queued whose client no longer waits for them.
 * A queue longer than `sample` (0: no limit) is sampled at that many
 * evenly spaced places and scaled; returns true when it was.  For front
 * ends, not the hot path. */
bool server_abandoned(const server *sv, uint32_t sample, uint32_t *in_service,
                      uint32_t *queued);

#endif
