#include "event_queue.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
/* ---- Keys ------------------------------------------------------------------
 *
 * The wheel works on unsigned 64-bit keys: a time with its sign bit
 * flipped, which keeps the order of every int64_t (INT64_MIN -> 0,
 * 0 -> 2^63, INT64_MAX -> 2^64 - 1).  No bits are given up to pack
 * anything else in, so the whole int64_t range of ns is usable (evq_key,
 * evq_level: event_queue.h).
 */
#define ARENA_BLOCKS 64 /* blocks per malloc */
#define D 4             /* the overflow heap's arity */
#define RUN_SCAN 32     /* most run entries a push may shift */

/* The window is the slot at `level` that starts at lo: keys in
 * [lo, lo + 256^level - 1], just lo at level 0 -- one exact time.  lo is
 * a multiple of 256^level, so hi does not overflow. */
static void set_window(evq *q, uint64_t lo, unsigned level)
{
    q->lo = lo;
    q->hi = lo + ((UINT64_C(1) << (8 * level)) - 1);
}

int evq_init(evq *q)
{
    memset(q, 0, sizeof *q);
    q->next_seq = EVQ_RESERVED_SEQS;
    q->rcap = 64;
    q->hcap = 64;
    q->run = malloc(q->rcap * sizeof *q->run);
    q->heap = malloc(q->hcap * sizeof *q->heap);
    set_window(q, evq_key(0), 0);
    return q->run && q->heap ? 0 : -1;
}

/* The blocks go back on the free list arena by arena, as block_new puts
 * a new arena's: which block holds which event changes no order. */
void evq_reset(evq *q)
{
    evq_event *run = q->run, *heap = q->heap;
    size_t rcap = q->rcap, hcap = q->hcap;
    evq_block **arenas = q->arenas;
    size_t n_arenas = q->n_arenas, cap_arenas = q->cap_arenas;
    memset(q, 0, sizeof *q);
    q->next_seq = EVQ_RESERVED_SEQS;
    q->run = run;
    q->rcap = rcap;
    q->heap = heap;
    q->hcap = hcap;
    q->arenas = arenas;
    q->n_arenas = n_arenas;
    q->cap_arenas = cap_arenas;
    for (size_t a = n_arenas; a-- > 0;)
        for (int i = ARENA_BLOCKS - 1; i >= 0; i--) {
            arenas[a][i].next = q->free_blocks;
            q->free_blocks = &arenas[a][i];
        }
    set_window(q, evq_key(0), 0);
}

void evq_fini(evq *q)
{
    free(q->run);
    free(q->heap);
    for (size_t i = 0; i < q->n_arenas; i++)
        free(q->arenas[i]);
    free(q->arenas);
    memset(q, 0, sizeof *q);
}

bool evq_failed(const evq *q)
{
    return q->failed;
}

/* ---- The overflow heap -----------------------------------------------------
 *
 * Holds window events that a sorted insertion would have cost more than
 * RUN_SCAN moves for; usually empty.  d = 4 and the bottom-up pop (walk
 * the hole down along the smaller children, then sift the last element
 * up: Wegener) as the engine's heap had them.
 */

static void sift_up(evq_event *h, size_t i, evq_event ev)
{
    while (i > 0) {
        size_t parent = (i - 1) / D;
        if (!evq_before(&ev, &h[parent]))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = ev;
}

static void sift_down(evq_event *h, size_t len, size_t i, evq_event ev)
{
    for (;;) {
        size_t first = i * D + 1;
        if (first >= len)
            break;
        size_t best = first;
        size_t last = first + D < len ? first + D : len;
        for (size_t c = first + 1; c < last; c++)
            if (evq_before(&h[c], &h[best]))
                best = c;
        if (!evq_before(&h[best], &ev))
            break;
        h[i] = h[best];
        i = best;
    }
    h[i] = ev;
}

static void heap_remove_top(evq_event *h, size_t len)
{
    evq_event last = h[len];
    size_t i = 0;
    for (;;) {
        size_t first = i * D + 1;
        if (first >= len)
            break;
        size_t best = first;
        size_t end = first + D < len ? first + D : len;
        for (size_t c = first + 1; c < end; c++)
            if (evq_before(&h[c], &h[best]))
                best = c;
        h[i] = h[best];
        i = best;
    }
    sift_up(h, i, last);
}

/* Floyd's heap construction: sift down every internal node, last first.
 * O(n), and exact: (time, seq) is a total order. */
static void heapify(evq_event *h, size_t len)
{
    if (len < 2)
        return;
    for (size_t i = (len - 2) / D + 1; i-- > 0;)
        sift_down(h, len, i, h[i]);
}

static int reserve(evq_event **v, size_t *cap, size_t n)
{
    if (n <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < n)
        c *= 2;
    evq_event *p = realloc(*v, c * sizeof *p);
    if (p == NULL)
        return -1;
    *v = p;
    *cap = c;
    return 0;
}

/* ---- The window's sorted run ----------------------------------------------
 */

/* Insertion sort for the usual few events; a loaded slot of one exact
 * time can be large, but then it is nearly always in push order already. */
static int by_order(const void *a, const void *b)
{
    const evq_event *x = a, *y = b;
    return evq_before(x, y) ? -1 : evq_before(y, x);
}

static void sort_run(evq_event *r, size_t n)
{
    size_t i = 1;
    if (n > 64) {
        while (i < n && !evq_before(&r[i], &r[i - 1]))
            i++;
        if (i < n)
            qsort(r, n, sizeof *r, by_order);
        return;
    }
    for (; i < n; i++) {
        evq_event e = r[i];
        size_t j = i;
        while (j > 0 && evq_before(&e, &r[j - 1])) {
            r[j] = r[j - 1];
            j--;
        }
        r[j] = e;
    }
}

/* ev belongs to the window: insert it in order, scanning from the back,
 * or put it in the overflow heap when that would shift more than
 * RUN_SCAN.  An event that sorts before the whole run -- the engine's
 * retry at "now", pushed by the handler of the event just popped -- goes
 * into the slot that pop freed, in O(1): scanning the run from the back
 * cost it the whole window (a third of a retry's cost in the storm). */
static int window_put(evq *q, const evq_event *ev)
{
    size_t i = q->rlen;
    if (i > q->rhead && evq_before(ev, &q->run[i - 1]) && q->rhead > 0 &&
        evq_before(ev, &q->run[q->rhead])) {
        q->run[--q->rhead] = *ev;
        return 0;
    }
    while (i > q->rhead && evq_before(ev, &q->run[i - 1])) {
        if (q->rlen - i == RUN_SCAN) {
            if (reserve(&q->heap, &q->hcap, q->hlen + 1) != 0)
                return -1;
            sift_up(q->heap, q->hlen++, *ev);
            return 0;
        }
        i--;
    }
    if (q->rlen == q->rcap && q->rhead > 0) {
        size_t n = q->rlen - q->rhead;
        memmove(q->run, q->run + q->rhead, n * sizeof *q->run);
        i -= q->rhead;
        q->rlen = n;
        q->rhead = 0;
    }
    if (reserve(&q->run, &q->rcap, q->rlen + 1) != 0)
        return -1;
    memmove(q->run + i + 1, q->run + i, (q->rlen - i) * sizeof *q->run);
    q->run[i] = *ev;
    q->rlen++;
    return 0;
}

/* ---- The wheel -------------------------------------------------------------
 *
 * A radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990) with radix 256: an
 * event lives at level l = (highest bit where its key differs from lo) / 8,
 * in the slot of its key's digit l.  All keys in the wheel are at least
 * hi + 1 > lo, so every occupied slot of level l has a digit above lo's, and
 * the lowest occupied slot of the lowest occupied level holds the earliest
 * events.  Moving lo forward to the start of that slot keeps every other
 * event's level and slot (they agree with lo above their own digit), so
 * only that slot's events move -- each event moves at most once per level,
 * and a slot small enough goes to the window whole.
 */

static evq_block *block_new(evq *q)
{
    if (q->free_blocks == NULL) {
        if (q->n_arenas == q->cap_arenas) {
            size_t cap = q->cap_arenas ? q->cap_arenas * 2 : 16;
            evq_block **a = realloc(q->arenas, cap * sizeof *a);
            if (a == NULL)
                return NULL;
            q->arenas = a;
            q->cap_arenas = cap;
        }
        evq_block *b = malloc(ARENA_BLOCKS * sizeof *b);
        if (b == NULL)
            return NULL;
        q->arenas[q->n_arenas++] = b;
        for (int i = ARENA_BLOCKS - 1; i >= 0; i--) {
            b[i].next = q->free_blocks;
            q->free_blocks = &b[i];
        }
    }
    evq_block *b = q->free_blocks;
    q->free_blocks = b->next;
    b->next = NULL;
    b->n = 0;
    return b;
}

static void block_free(evq *q, evq_block *b)
{
    b->next = q->free_blocks;
    q->free_blocks = b;
}

/* A copy of a slot's chain, block for block (each block's count kept, so
 * the copy is full but for its tail, as the original). */
static int copy_chain(evq *q, evq_slot *dst, const evq_slot *src)
{
    for (const evq_block *b = src->head; b; b = b->next) {
        evq_block *nb = block_new(q);
        if (nb == NULL)
            return -1;
        nb->n = b->n;
        memcpy(nb->e, b->e, b->n * sizeof *nb->e);
        if (dst->tail)
            dst->tail->next = nb;
        else
            dst->head = nb;
        dst->tail = nb;
    }
    return 0;
}

/* Order within a slot and the blocks' places do not matter (a slot is
 * sorted by (time, seq) when it is loaded), but seq does: it is copied
 * with every event, and next_seq with the scalars. */
int evq_clone(evq *q, const evq *src)
{
    *q = *src;
    q->run = q->heap = NULL;
    q->free_blocks = NULL;
    q->arenas = NULL;
    q->n_arenas = q->cap_arenas = 0;
    memset(q->slot, 0, sizeof q->slot);
    q->run = malloc(q->rcap * sizeof *q->run);
    q->heap = malloc(q->hcap * sizeof *q->heap);
    if (q->run == NULL || q->heap == NULL)
        return -1;
    memcpy(q->run + q->rhead, src->run + src->rhead,
           (src->rlen - src->rhead) * sizeof *q->run);
    memcpy(q->heap, src->heap, src->hlen * sizeof *q->heap);
    for (unsigned l = 0; l < EVQ_LEVELS; l++)
        for (unsigned i = 0; i < EVQ_SLOTS; i++)
            if (src->slot[l][i].head &&
                copy_chain(q, &q->slot[l][i], &src->slot[l][i]) != 0)
                return -1;
    return 0;
}

/* ev's key is after the window (or, while a slot is spread, at least lo). */
static inline int wheel_put(evq *q, const evq_event *ev)
{
    uint64_t k = evq_key(ev->time);
    unsigned l = evq_level(q, k);
    unsigned s = (unsigned)(k >> (8 * l)) & (EVQ_SLOTS - 1);
    evq_slot *sl = &q->slot[l][s];
    evq_block *b = sl->tail;
    if (b == NULL || b->n == EVQ_BLOCK) {
        evq_block *nb = block_new(q);
        if (nb == NULL)
            return -1;
        if (b == NULL) {
            sl->head = nb;
            q->occ[l][s / 64] |= UINT64_C(1) << (s % 64);
            q->levels |= 1u << l;
        } else {
            b->next = nb;
        }
        sl->tail = b = nb;
    }
    b->e[b->n++] = *ev;
    q->wheel_len++;
    return 0;
}

static unsigned lowest_slot(const uint64_t *occ)
{
    for (unsigned w = 0;; w++)
        if (occ[w])
            return w * 64 + (unsigned)__builtin_ctzll(occ[w]);
}

/* Unlink slot (l, s); returns its chain. */
static evq_block *take_slot(evq *q, unsigned l, unsigned s)
{
    evq_slot *sl = &q->slot[l][s];
    evq_block *b = sl->head;
    sl->head = sl->tail = NULL;
    uint64_t *occ = q->occ[l];
    occ[s / 64] &= ~(UINT64_C(1) << (s % 64));
    if ((occ[0] | occ[1] | occ[2] | occ[3]) == 0)
        q->levels &= ~(1u << l);
    return b;
}

/* Load slot (l, s), which starts at lo, into the empty window. */
static int load(evq *q, unsigned l, unsigned s, uint64_t lo)
{
    size_t n = 0;
    for (const evq_block *p = q->slot[l][s].head; p; p = p->next)
        n += p->n;
    if (reserve(&q->run, &q->rcap, n) != 0)
        return -1;
    set_window(q, lo, l);
    q->rhead = q->rlen = 0;
    for (evq_block *p = take_slot(q, l, s), *next; p; p = next) {
        next = p->next;
        memcpy(q->run + q->rlen, p->e, p->n * sizeof *p->e);
        q->rlen += p->n;
        block_free(q, p);
    }
    q->wheel_len -= n;
    sort_run(q->run, q->rlen);
    return 0;
}

/* Spread slot (l, s), which starts at lo, over the levels below l. */
static int spread(evq *q, unsigned l, unsigned s, uint64_t lo)
{
    q->lo = lo; /* the window stays empty, and before lo */
    for (evq_block *p = take_slot(q, l, s), *next; p; p = next) {
        next = p->next;
        q->wheel_len -= p->n;
        for (uint32_t j = 0; j < p->n; j++)
            if (wheel_put(q, &p->e[j]) != 0)
                return -1; /* events of p and later are lost */
        block_free(q, p);
    }
    return 0;
}

/* The window is empty: refill it from the earliest slot.  0 when the
 * wheel is empty too, 1 refilled, -1 out of memory. */
static int refill(evq *q)
{
    while (q->levels != 0) {
        unsigned l = (unsigned)__builtin_ctz(q->levels);
        unsigned s = lowest_slot(q->occ[l]);
        uint64_t above = l == EVQ_LEVELS - 1 ? 0 : ~UINT64_C(0) << (8 * l + 8);
        uint64_t lo = (q->lo & above) | ((uint64_t)s << (8 * l));
        const evq_slot *sl = &q->slot[l][s];
        /* A slot of one block holds at most EVQ_LOAD events. */
        if (l == 0 || sl->head == sl->tail)
            return load(q, l, s, lo) == 0 ? 1 : -1;
        if (spread(q, l, s, lo) != 0)
            return -1;
    }
    return 0;
}

/* ---- The interface ---------------------------------------------------------
 */

static int put(evq *q, const evq_event *ev)
{
    if (evq_key(ev->time) <= q->hi)
        return window_put(q, ev);
    return wheel_put(q, ev);
}

int evq_push(evq *q, int64_t time, unsigned type, uint32_t id, uint32_t gen)
{
    evq_event ev = {time, (q->next_seq << 8) | (type & 0xffu), id, gen};
    if (put(q, &ev) != 0)
        return -1;
    q->next_seq++;
    return 0;
}

int evq_push_reserved(evq *q, int64_t time, unsigned seq, unsigned type,
                      uint32_t id, uint32_t gen)
{
    assert(seq < EVQ_RESERVED_SEQS);
    evq_event ev = {time, ((uint64_t)seq << 8) | (type & 0xffu), id, gen};
    return put(q, &ev);
}

/* The window is empty: refill it.  Out of line, so that the common pop
 * (the next event of the sorted run) stays small enough to inline and
 * saves no registers it does not need.  false when nothing is left. */
SB_NOINLINE static bool window_refill(evq *q)
{
    int rc = q->failed ? -1 : refill(q);
    if (rc < 0)
        q->failed = true;
    return rc > 0;
}

/* Take from the run or the overflow heap, whichever is earlier; the
 * window holds events. */
SB_NOINLINE static bool take_merged(evq *q, bool bounded, int64_t limit,
                                    evq_event *out)
{
    if (q->rhead < q->rlen && evq_before(&q->run[q->rhead], &q->heap[0])) {
        if (bounded && q->run[q->rhead].time >= limit)
            return false;
        *out = q->run[q->rhead++];
        return true;
    }
    if (bounded && q->heap[0].time >= limit)
        return false;
    *out = q->heap[0];
    if (--q->hlen > 0)
        heap_remove_top(q->heap, q->hlen);
    return true;
}

/* Take the earliest event if it is before limit, or whatever its time
 * when bounded is false. */
static inline bool take(evq *q, bool bounded, int64_t limit, evq_event *out)
{
    if (q->rhead == q->rlen && q->hlen == 0 && !window_refill(q))
        return false;
    if (q->hlen != 0)
        return take_merged(q, bounded, limit, out);
    const evq_event *e = &q->run[q->rhead];
    if (bounded && e->time >= limit)
        return false;
    *out = *e;
    q->rhead++;
    return true;
}

bool evq_pop_before(evq *q, int64_t limit, evq_event *out)
{
    return take(q, true, limit, out);
}

bool evq_pop(evq *q, evq_event *out)
{
    return take(q, false, 0, out);
}

int evq_retime(evq *q, int64_t (*fn)(const evq_event *ev, void *ctx), void *ctx)
{
    /* Everything into the heap array, retimed; what is still before the
     * window's end stays there as the overflow heap, the rest goes back
     * to the wheel.  Every event keeps its key, so order stays exact. */
    size_t n = evq_len(q);
    if (reserve(&q->heap, &q->hcap, n) != 0)
        return -1;
    evq_event *h = q->heap;
    size_t k = q->hlen;
    memcpy(h + k, q->run + q->rhead, (q->rlen - q->rhead) * sizeof *h);
    k += q->rlen - q->rhead;
    q->rhead = q->rlen = 0;
    for (unsigned l = 0; l < EVQ_LEVELS; l++)
        for (unsigned s = 0; s < EVQ_SLOTS; s++) {
            if (q->slot[l][s].head == NULL)
                continue;
            for (evq_block *p = take_slot(q, l, s), *next; p; p = next) {
                next = p->next;
                memcpy(h + k, p->e, p->n * sizeof *h);
                k += p->n;
                block_free(q, p);
            }
        }
    assert(k == n);
    q->wheel_len = 0;
    q->hlen = 0;
    for (size_t i = 0; i < n; i++) {
        evq_event ev = h[i];
        ev.time = fn(&h[i], ctx);
        if (evq_key(ev.time) <= q->hi) {
            h[q->hlen++] = ev;
        } else if (wheel_put(q, &ev) != 0) {
            q->failed = true; /* the events after this one are lost */
            q->hlen = 0;
            return -1;
        }
    }
    heapify(h, q->hlen);
    return 0;
}

/* ---- Invariants ------------------------------------------------------------
 */

static bool heap_ordered(const evq *q)
{
    for (size_t i = 1; i < q->hlen; i++)
        if (evq_before(&q->heap[i], &q->heap[(i - 1) / D]))
            return false;
    return true;
}

static bool window_valid(const evq *q)
{
    for (size_t i = q->rhead; i < q->rlen; i++)
        if (evq_key(q->run[i].time) > q->hi ||
            (i > q->rhead && evq_before(&q->run[i], &q->run[i - 1])))
            return false;
    for (size_t i = 0; i < q->hlen; i++)
        if (evq_key(q->heap[i].time) > q->hi)
            return false;
    return heap_ordered(q);
}

/* Every event of slot (l, s) belongs there; the count of its events. */
static bool slot_valid(const evq *q, unsigned l, unsigned s, size_t *n)
{
    const evq_slot *sl = &q->slot[l][s];
    bool occupied = (q->occ[l][s / 64] >> (s % 64)) & 1u;
    if (occupied != (sl->head != NULL))
        return false;
    for (const evq_block *p = sl->head; p; p = p->next) {
        if (p->n == 0 || (p->next && p->n != EVQ_BLOCK) ||
            (p->next == NULL && p != sl->tail))
            return false;
        for (uint32_t j = 0; j < p->n; j++) {
            uint64_t k = evq_key(p->e[j].time);
            unsigned lk = evq_level(q, k);
            if (k <= q->hi || lk != l || ((k >> (8 * l)) & 255u) != s)
                return false;
        }
        *n += p->n;
    }
    return true;
}

bool evq_valid(const evq *q)
{
    if (!window_valid(q))
        return false;
    size_t n = 0;
    for (unsigned l = 0; l < EVQ_LEVELS; l++) {
        const uint64_t *occ = q->occ[l];
        bool any = (occ[0] | occ[1] | occ[2] | occ[3]) != 0;
        if (any != ((q->levels >> l) & 1u))
            return false;
        for (unsigned s = 0; s < EVQ_SLOTS; s++)
            if (!slot_valid(q, l, s, &n))
                return false;
    }
    return n == q->wheel_len;
}

size_t evq_bytes(const evq *q)
{
    return (q->rcap + q->hcap) * sizeof(evq_event) +
           q->n_arenas * ARENA_BLOCKS * sizeof(evq_block) +
           q->cap_arenas * sizeof(evq_block *);
}
