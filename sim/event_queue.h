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
 * Why this design.  Each candidate was measured by replaying the engine's
 * own pushes and pops (recorded from the storm at 10 000 and at 1 000 000
 * clients) through it, checking that all pop the same sequence; the
 * table of instructions, CPU time and memory is in bench/README.md ("The
 * event queue's candidates").  This queue is "wheel, adaptive slots +
 * sorted window": its pushes are appends and its pops read a short
 * sorted array, where a heap's compares are unpredictable branches over
 * memory it jumps around in; of all the candidates it took the fewest
 * instructions and the least CPU time, in the heap's memory.  Rejected:
 *  (a) 16-byte entries: time, id and gen fill them, and (time, seq) order
 *      needs seq -- dropping it, or cutting id or gen to make room,
 *      changes behaviour; they would save a third of the memory and
 *      little time (measured with a 24-bit seq, which is exact only for a
 *      replay of a million events).  One 64-bit key of time and seq
 *      packed cannot work either: a simulated year takes 55 bits of ns,
 *      leaving 9 bits of seq.
 *  (b) radix heaps whose buckets are FIFO keep ties in push order by
 *      themselves, so they could drop seq -- but then a retime could not
 *      restore push order; they need every push to be no earlier than the
 *      last pop, and an array per bucket held 4-7 times the memory (as
 *      measured, seq kept).  The binary one moves an event 14 times on
 *      average.
 *  Lanes: with the wheel, events that are "now + a constant" are cheap
 *  anyway; merging the lanes' heads on every pop cost more instructions
 *  for no time measurably saved.
 *  A calendar or ladder queue adapts its bucket width to the event
 *  density with heuristics; the wheel's levels adapt by themselves (a
 *  slot of more than EVQ_LOAD events is spread one level down).
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

/* Caller-owned storage; evq_fini frees what the queue holds.  Blocks
 * come as events need them.  -1 out of memory. */
int evq_init(evq *q);
void evq_fini(evq *q);
/* Empty q as evq_init would leave it, keeping the memory it holds (a
 * reused engine, sim_reuse): the same seqs and the same pop order as a
 * new queue.  q must have been set up by evq_init. */
void evq_reset(evq *q);

/* Make q a copy of src (q's old contents are not freed): the same
 * pending events with the same seq numbers, so both pop the same
 * sequence and later pushes get the same seqs.  Only the blocks that hold
 * events are copied, into fresh memory.  -1 out of memory (q is then good
 * for evq_fini only). */
int evq_clone(evq *q, const evq *src);

/* Push an event of `type` (0..255) at any time.  Returns -1 only when out
 * of memory (the queue is then unchanged). */
int evq_push(evq *q, int64_t time, unsigned type, uint32_t id, uint32_t gen);

/* Sequence numbers below EVQ_RESERVED_SEQS are never given by evq_push:
 * an event pushed with evq_push_reserved(seq) sorts before every evq_push
 * event of the same instant, and after reserved events of smaller seq,
 * whenever it was pushed.  The engine gives fault events their fault's
 * index, so a fault injected at t and one scheduled at t from the start
 * act at the same point, and the other events keep their seq numbers. */
#define EVQ_RESERVED_SEQS 256u
int evq_push_reserved(evq *q, int64_t time, unsigned seq, unsigned type,
                      uint32_t id, uint32_t gen);

/* The wheel's key of a time: its sign bit flipped, which keeps the
 * order of every int64_t as an unsigned number (event_queue.c). */
static inline uint64_t evq_key(int64_t t)
{
    return (uint64_t)t ^ (UINT64_C(1) << 63);
}

/* The wheel level of key k, which is after the window (or, while a slot
 * is spread, at least lo): the highest 8-bit digit in which k and lo
 * differ.  | 1: a key equal to lo goes to level 0. */
static inline unsigned evq_level(const evq *q, uint64_t k)
{
    return (unsigned)(63 - __builtin_clzll((k ^ q->lo) | 1u)) / 8;
}

/* evq_push's common case, inline and without a call: an event after the
 * window whose wheel slot has room in its last block is appended there.
 * Returns false, having done nothing, in every other case: then call
 * evq_push.  A push through here is exactly a push through evq_push
 * (the same seq, the same place). */
static inline bool evq_push_quick(evq *q, int64_t time, unsigned type,
                                  uint32_t id, uint32_t gen)
{
    uint64_t k = evq_key(time);
    if (k <= q->hi)
        return false;
    unsigned l = evq_level(q, k);
    evq_block *b = q->slot[l][(k >> (8 * l)) & (EVQ_SLOTS - 1)].tail;
    if (b == NULL || b->n == EVQ_BLOCK)
        return false;
    b->e[b->n++] =
        (evq_event){time, (q->next_seq++ << 8) | (type & 0xffu), id, gen};
    q->wheel_len++;
    return true;
}

/* Is a earlier than b in the queue's order? */
static inline bool evq_before(const evq_event *a, const evq_event *b)
{
    return a->time < b->time || (a->time == b->time && a->key < b->key);
}

/* Is an event pending at time t or earlier?  O(1): it looks at the
 * window only, so t must be the time of the last event popped (or
 * earlier) -- every event in the wheel is later than that.  The engine
 * asks it about "now". */
static inline bool evq_due(const evq *q, int64_t t)
{
    return (q->rhead < q->rlen && q->run[q->rhead].time <= t) ||
           (q->hlen > 0 && q->heap[0].time <= t);
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
