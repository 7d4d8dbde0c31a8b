/*
 * tier.h -- service chains: tiers of servers that call each other, each
 * call retried by the calling tier's own policy stack.  Internal to sim/.
 *
 * The model.  A tier is a server (server.h: workers, a queue, service,
 * faults) with at most one downstream tier.  An attempt that reaches a
 * tier is served as usual -- queued, then its own service time -- and
 * then, if the tier has a downstream, the worker that served it makes a
 * *call* to the downstream tier and stays held until the call ends: that
 * is what lets a slow database starve the front end of workers.  The call
 * is a logical request of the tier's *tier client*, which runs the
 * tier's [policy.NAME] stack through the request driver (driver.h)
 * exactly as the top-level clients run theirs: before each attempt,
 * after each failure (retry after d, give up), with the tier's own
 * per-attempt timeout.  The held attempt is then answered: as after a
 * service of its own when the call succeeded (a write commits at every
 * tier it passes), else with HTTP 503 -- its dependency failed -- which
 * the caller's policy sees like any other 503.  A request with a data
 * defect is answered 422 by the first tier, without a call.
 *
 * Chain shape.  The top tier is [server]; every tier names at most one
 * downstream, and only the top is called by clients, so the tiers form
 * one chain: index 0 the top, i + 1 the downstream of i (the loader
 * refuses cycles and tiers the top does not reach).  Requests name their
 * tier: request.tier is the tier its attempts go to (0: a client's
 * request; i > 0: a call of tier i - 1, made through that tier's caller
 * -- caller.h), and an attempt's tier is its request's.
 *
 * Tier clients and processes.  A tier's calls are made by its workers:
 * the tier has one tier client per configured worker (the call made by
 * the worker in slot w belongs to client w mod workers), and the workers
 * are spread over `processes` service instances ([policy.NAME] processes;
 * default one per worker, as [clients] has one process per client), so a
 * per-process retry budget or breaker is shared by the workers of one
 * instance, as in a real service.  A tier with a downstream therefore
 * needs a finite worker count.
 *
 * Deadlines.  By default a call has none: the tier keeps calling for an
 * attempt whose caller has stopped waiting, as a server that does not
 * propagate deadlines does.  With propagate_deadline the call's deadline
 * is the held attempt's `expires` (when its caller stops waiting): the
 * driver caps each attempt's timeout at the time left and refuses
 * retries past it, a call whose caller has already given up ends at once
 * (a deadline failure, nothing sent), and a drop_expired tier below
 * skips what nobody waits for.
 *
 * What a tier client does not do (yet): hedge (a hedge layer is refused),
 * pool connections, pay a call_time, fall under partitions, or trace.  A call whose held attempt was lost (an
 * outage of the calling tier) sends no more attempts.
 *
 * Random draws.  Tier i's server draws its service times and network
 * delays from streams RNG_SERVICE and RNG_NET plus i << RNG_TIER_SHIFT
 * (rng.h), and its calls' attempts are numbered by a counter of the tier
 * they go to: the top tier (i = 0) draws exactly what a single server
 * draws, so adding tiers below changes none of the top's draws.
 *
 * Metrics.  The top tier counts into the sim's metrics as a single server
 * does; tier i > 0 has a metrics of its own, rolled with the sim's, into
 * which its server counts (served, rejections, busy, queue, wasted work)
 * and its caller's tier client counts the calls made to it (offered), the
 * attempts sent to it (attempts), their timeouts, and the calls'
 * outcomes (successes, failures, refused).
 */
#ifndef SB_TIER_H
#define SB_TIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

/* Build the chain of s->cfg (n_tiers >= 2): every tier's policy stack
 * (built-in policies only) and its states, the servers below the top,
 * their metrics.  Call after the top server and the clients exist.  Free
 * with tiers_destroy. */
int tiers_create(sim *s, sb_err *e);
void tiers_destroy(sim *s);
/* Make s's tiers a copy of src's, for the copy s of sim src whose top
 * server, metrics and requesters are already copied: the servers and
 * metrics below the top, and the callers' names rebound.  -1 out of
 * memory (tiers_destroy then frees what was made). */
int tiers_clone(sim *s, const sim *src);

/* The server of tier i (0: s->srv). */
server *tiers_server(const sim *s, unsigned i);
/* The metrics tier i counts into (0: the run's). */
metrics *tiers_metrics(sim *s, unsigned i);

/* Roll every tier's metrics to t, as the sim's own are rolled. */
int tiers_roll(sim *s, int64_t t);
/* Close every tier's metrics at t (sim_finish). */
void tiers_finish(sim *s, int64_t t);

/* Invariants (tiers_sane): tier i is at index i, the top's server and
 * metrics are the run's, every other tier has its own; every tier but the
 * bottom calls down through a caller it owns (requester.owner), whose
 * calls count into the tier below's metrics, with one client per worker;
 * every tier's server is sane. */
bool tiers_sane(const sim *s);

/* Attempt ai, served by tier `caller` (stage ST_CALLING, its worker
 * held), needs its call down: start it.  The call ends in
 * server_call_done on the caller's server, unless the attempt was lost
 * meanwhile. */
void tier_call_down(sim *s, unsigned caller, uint32_t ai);

/* A tier's calls are a caller's (caller.h): their events are the request
 * lifecycle's (request.h). */

#endif
