/*
 * ref_evq.c -- the reference loop (ref_model.h) on the engine's event
 * queue (sim/event_queue.h), pushed the way the engine pushes: what the
 * plain loop would run at with the engine's queue.
 */
#include <stdbool.h>
#include <stdint.h>

#include "event_queue.h"

#define RQ evq
#define rq_init(q, n) ((void)(n), evq_init(q))
#define rq_fini(q) evq_fini(q)
/* The queue's inline common push, as the engine has it (engine.h): the
 * reference gets every speed-up of the queue the engine gets, so that the
 * two differ only in the work each does around it. */
#define rq_push(q, t, type, id, gen)                                           \
    (evq_push_quick((q), (t), (type), (id), (gen))                             \
         ? 0                                                                   \
         : evq_push((q), (t), (type), (id), (gen)))
#define rq_failed(q) evq_failed(q)
#define REF_RUN ref_run_evq

struct ref_ev;
static bool rq_pop_before(evq *q, int64_t limit, struct ref_ev *ev);

#include "ref_loop.h"

static bool rq_pop_before(evq *q, int64_t limit, ref_ev *ev)
{
    evq_event e;
    if (!evq_pop_before(q, limit, &e))
        return false; /* or evq_failed: ref_run_evq reports it */
    ev->time = e.time;
    ev->id = e.id;
    ev->type = evq_type(&e);
    ev->gen = e.gen;
    return true;
}
