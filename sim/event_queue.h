/*
 * event_queue.h -- the engine's pending events, ordered by (time, seq).
 *
 * Every pop returns the pending event with the smallest time, and of
 * events at the same time the one pushed first: seq comes from one
 * counter, so the order is exactly that of a single heap ordered by
 * (time, seq), whatever path an event takes inside (libuv breaks timer
 * ties the same way), and a run is deterministic.  Any int64_t time is
 * accepted -- negative, or up to INT64_MAX (292 years of ns) -- and an
 * event may be pushed earlier than the last one popped (it is then the
 * next one out); the engine never does either, but nothing here relies
 * on it.
 *
 * Two stores behind one interface (event_queue.c says why):
 *  - a *wheel*: 8 levels of 256 unordered slots, one per 8-bit digit of
 *    the time (a radix heap with radix 256, as a hierarchical timing
 *    wheel); a push appends to the slot of the first digit in which the
 *    event's time differs from the window's start, in O(1);
 *  - a *window*: the events up to a time `hi`, sorted by (time, seq),
 *    popped from the front; it is refilled from the earliest slot of the
 *    wheel when empty -- a slot of at most EVQ_LOAD events (or of one
 *    exact time) is loaded, a larger one is first spread over the finer
 *    levels.  A push no later than `hi` is inserted in order, or, if that
 *    would move more than a few events, goes to a small 4-ary heap beside
 *    the sorted run, so no operation costs more than O(log n).
 *
 * Memory: the wheel's slots are chains of blocks of EVQ_BLOCK events from
 * a free list, so the queue holds about as many bytes as it has pending
 * events (24 each) plus a partly filled block per occupied slot; it never
 * allocates per event, and keeps its peak until evq_fini.  Cancellation
 * is the caller's business and is lazy: an event carries the generation of
 * the thing it refers to, and the handler skips it when the generation
 * has moved on.  Searching for it to remove it would cost O(n), and most
 * timeouts never fire.
 *
 * Why this design (measured on the engine's own push/pop sequence for
 * bench/storm-10k.ini -- 1.06 M pushes, 1.01 M pops -- and for the same
 * storm with 1 M clients, replayed through each candidate; instructions by
 * callgrind, CPU ms best of 5 on a shared 2-core Xeon; the full engine's
 * instructions for `stormbench run bench/storm-10k.ini`):
 *
 *   candidate                              10k: Ir   ms   1M: Ir   ms  engine
 *   4-ary heap + 4 FIFO lanes (before)        310M   68     436M  150   516M
 *    same, 16-byte entries (no seq: inexact)  303M   61     413M  124
 *   binary radix heap                         ~660M engine-wide: rejected
 *   wheel, exact 1-ns slots, 1-event shortcut        see event_queue.c
 *   wheel + 4-ary heap window                 301M   58     388M   84
 *   wheel + heap window + FIFO lanes          281M   64     369M   91
 *   wheel + sorted window (this)              238M   37     323M   61
 *    same, 16-byte entries (no seq: inexact)  202M   37     264M   60
 *
 * (filled in from bench/README.md's "Event queue candidates"; the
 * numbers there are the reference.)
 */
#ifndef SB_EVENT_QUEUE_H
#define SB_EVENT_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct evq_event {
    int64_t time; /* ns */
    uint64_t key; /* seq << 8 | type: ordering by key orders by seq */
    uint32_t id;  /* what it refers to (client, request, attempt ...) */
    uint32_t gen; /* that thing's generation when the event was pushed */
} evq_event;

/* Callers may mark events that are "now + a constant" with a lane number
 * below this (evq_push_lane); the queue needs no such hint. */
#define EVQ_LANES 4

#define EVQ_LEVELS 8 /* 8-bit digits of a 64-bit key */
#define EVQ_SLOTS 256
#define EVQ_BLOCK 32 /* events per block of a slot's chain */
#define EVQ_LOAD 32  /* a slot this small goes to the window whole */

typedef struct evq_block {
    struct evq_block *next;
    uint32_t n;
    evq_event e[EVQ_BLOCK];
} evq_block;

/* A slot: a chain of blocks, all full but the tail; head == NULL when
 * empty.  Events in a slot are in no particular order. */
typedef struct evq_slot {
    evq_block *head, *tail;
} evq_slot;

typedef struct evq {
    /* The window: events whose key (the time as an unsigned number) is
     * at most hi.  run[rhead, rlen) is sorted by (time, seq); heap[0,
     * hlen) is a 4-ary heap by (time, seq) for what could not be inserted
     * in the run cheaply. */
    evq_event *run;
    size_t rhead, rlen, rcap;
    evq_event *heap;
    size_t hlen, hcap;
    uint64_t lo, hi; /* the window's slot: keys in [lo, hi] */

    /* The wheel: every event whose key is above hi, in the slot of
     * level l = (highest bit in which key and lo differ) / 8, at the key's
     * digit l.  occ and levels say which slots hold events. */
    evq_slot slot[EVQ_LEVELS][EVQ_SLOTS];
    uint64_t occ[EVQ_LEVELS][EVQ_SLOTS / 64];
    uint32_t levels;
    size_t wheel_len;

    evq_block *free_blocks;
    evq_block **arenas; /* every block ever allocated, for evq_fini */
    size_t n_arenas, cap_arenas;
    uint64_t next_seq;
    bool failed; /* memory ran out while moving events: see evq_failed */
} evq;

/* Caller-owned storage; evq_fini frees what the queue holds.
 * initial_cap is a hint (expected pending events).  -1 out of memory. */
int evq_init(evq *q, size_t initial_cap);
void evq_fini(evq *q);

/* Push an event of `type` (0..255) at any time.  Returns -1 only when out
 * of memory (the queue is then unchanged). */
int evq_push(evq *q, int64_t time, unsigned type, uint32_t id, uint32_t gen);

/* The same as evq_push: `lane` (0 .. EVQ_LANES-1) marks an event that is
 * "now + a constant".  Kept for the engine's call sites; the queue used to
 * keep such events in FIFO lanes, and now needs no hint. */
int evq_push_lane(evq *q, unsigned lane, int64_t time, unsigned type,
                  uint32_t id, uint32_t gen);

/* Is a earlier than b in the queue's order? */
static inline bool evq_before(const evq_event *a, const evq_event *b)
{
    return a->time < b->time || (a->time == b->time && a->key < b->key);
}

/* Remove the earliest event into *out if its time is before `limit`;
 * false when there is none -- or when memory ran out while moving events
 * inside the queue (evq_failed then says so, and every later pop fails). */
bool evq_pop_before(evq *q, int64_t limit, evq_event *out);

/* Remove the earliest event into *out, whatever its time; false when
 * empty (or evq_failed). */
bool evq_pop(evq *q, evq_event *out);

static inline unsigned evq_type(const evq_event *ev)
{
    return (unsigned)(ev->key & 0xffu);
}

/* Pending events. */
static inline size_t evq_len(const evq *q)
{
    return q->rlen - q->rhead + q->hlen + q->wheel_len;
}

/* Apply fn to the time of every pending event (fn may return any time),
 * then restore order in O(n).  Used to stretch or squeeze pending
 * arrivals when a load spike starts or ends.  Events keep their seq, so
 * ties still come out in push order.  -1 out of memory (before anything
 * changed, or with evq_failed set). */
int evq_retime(evq *q, int64_t (*fn)(const evq_event *ev, void *ctx),
               void *ctx);

/* Did memory run out while events were moved inside the queue (in a pop
 * or a retime)?  Events may then be lost: the run cannot go on, and the
 * queue is good only for evq_fini. */
bool evq_failed(const evq *q);

/* Do the queue's invariants hold (order of the window, every wheel event
 * in its slot, the counts)?  O(n): for tests. */
bool evq_valid(const evq *q);

/* Bytes allocated (not counting the evq struct itself). */
size_t evq_bytes(const evq *q);

#endif
