/*
 * event_queue.h -- the engine's pending events: a 4-ary min-heap.
 *
 * Owns a growable array of fixed-size events ordered by (time, seq).  seq
 * comes from one counter, so two events at the same instant come out in the
 * order they were pushed (libuv breaks timer ties the same way) and a run
 * is deterministic.  The queue never allocates per event: the array doubles
 * when full and is never shrunk.
 *
 * Cancellation is the caller's business and is lazy: an event carries the
 * generation of the thing it refers to, and the handler skips it when the
 * generation has moved on.  Searching the heap to remove it would cost
 * O(n), and most timeouts never fire.
 */
#ifndef SB_EVENT_QUEUE_H
#define SB_EVENT_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct evq_event {
    int64_t time;  /* ns */
    uint64_t key;  /* seq << 8 | type: ordering by key orders by seq */
    uint32_t id;   /* what it refers to (client, request, attempt ...) */
    uint32_t gen;  /* that thing's generation when the event was pushed */
} evq_event;

typedef struct evq {
    evq_event *heap;
    size_t len, cap;
    uint64_t next_seq;
} evq;

/* Caller-owned storage; evq_fini frees the array. */
int evq_init(evq *q, size_t initial_cap);
void evq_fini(evq *q);

/* Push an event of `type` (0..255).  Returns -1 only when out of memory. */
int evq_push(evq *q, int64_t time, unsigned type, uint32_t id, uint32_t gen);

/* Remove the earliest event into *out; false when empty. */
bool evq_pop(evq *q, evq_event *out);

/* The earliest event, or NULL when empty.  Borrowed until the next push. */
static inline const evq_event *evq_peek(const evq *q)
{
    return q->len ? &q->heap[0] : NULL;
}

static inline unsigned evq_type(const evq_event *ev)
{
    return (unsigned)(ev->key & 0xffu);
}

/* Apply fn to the time of every pending event (fn may change it but not
 * make it earlier than the earliest possible "now"), then restore heap
 * order in O(n).  Used to stretch or squeeze pending arrivals when a load
 * spike starts or ends.  Ties keep their seq order. */
void evq_retime(evq *q, int64_t (*fn)(const evq_event *ev, void *ctx),
                void *ctx);

/* Bytes held. */
size_t evq_bytes(const evq *q);

#endif
