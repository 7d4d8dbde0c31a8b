/*
 * event_queue.h -- the engine's pending events, ordered by (time, seq).
 *
 * Several stores behind one interface.  A 4-ary min-heap takes any event.
 * EVQ_LANES FIFO lanes take events that the caller pushes in
 * nondecreasing time order -- "now + a constant", such as attempt
 * timeouts or a constant network delay, comes sorted for free -- at O(1)
 * instead of O(log n).  A push that would break a lane's order goes to the
 * heap instead.  Pop takes the earliest head of all of them by (time,
 * seq); seq comes from one counter shared by all, so the order is exactly
 * that of a single heap: two events at the same instant come out in the
 * order they were pushed (libuv breaks timer ties the same way) and a run
 * is deterministic.
 *
 * The queue never allocates per event: both arrays double when full and
 * are never shrunk.  Cancellation is the caller's business and is lazy: an
 * event carries the generation of the thing it refers to, and the handler
 * skips it when the generation has moved on.  Searching for it to remove
 * it would cost O(n), and most timeouts never fire.
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

#define EVQ_LANES 4

typedef struct evq_lane {
    evq_event *ring; /* [head, head + len) mod cap; cap a power of two */
    size_t head, len, cap;
} evq_lane;

typedef struct evq {
    evq_event *heap;
    size_t len, cap;
    evq_lane lanes[EVQ_LANES];
    size_t lane_len; /* events in all lanes */
    uint64_t next_seq;
} evq;

/* Caller-owned storage; evq_fini frees the arrays. */
int evq_init(evq *q, size_t initial_cap);
void evq_fini(evq *q);

/* Push an event of `type` (0..255).  Returns -1 only when out of memory. */
int evq_push(evq *q, int64_t time, unsigned type, uint32_t id, uint32_t gen);

/* Push an event to FIFO lane `lane` (0 .. EVQ_LANES-1).  Cheapest when it
 * is never earlier than the last event pushed to that lane; one that would
 * be goes to the heap instead, so order is always exact. */
int evq_push_lane(evq *q, unsigned lane, int64_t time, unsigned type,
                  uint32_t id, uint32_t gen);

static inline bool evq_before(const evq_event *a, const evq_event *b)
{
    return a->time < b->time || (a->time == b->time && a->key < b->key);
}

/* Remove the earliest event into *out if it is earlier than `limit`;
 * false when there is none. */
bool evq_pop_before(evq *q, int64_t limit, evq_event *out);

/* Remove the earliest event into *out; false when empty. */
bool evq_pop(evq *q, evq_event *out);

static inline unsigned evq_type(const evq_event *ev)
{
    return (unsigned)(ev->key & 0xffu);
}

/* Pending events in all stores. */
static inline size_t evq_len(const evq *q)
{
    return q->len + q->lane_len;
}

/* Apply fn to the time of every pending event (fn may change it but not
 * make it earlier than the earliest possible "now"), then restore order in
 * O(n).  Used to stretch or squeeze pending arrivals when a load spike
 * starts or ends.  Ties keep their seq order. */
int evq_retime(evq *q, int64_t (*fn)(const evq_event *ev, void *ctx),
               void *ctx);

/* Bytes held. */
size_t evq_bytes(const evq *q);

#endif
