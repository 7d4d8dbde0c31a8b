#include "event_queue.h"

#include <stdlib.h>
#include <string.h>

/* d = 4: a node's children share one or two cache lines, and the tree is
 * half as deep as a binary heap, which matters most for pop, the
 * operation every event pays. */
#define D 4

int evq_init(evq *q, size_t initial_cap)
{
    memset(q, 0, sizeof *q);
    q->cap = initial_cap < 16 ? 16 : initial_cap;
    q->heap = malloc(q->cap * sizeof *q->heap);
    int ok = q->heap != NULL;
    for (int i = 0; i < EVQ_LANES; i++) {
        q->lanes[i].cap = 256;
        q->lanes[i].ring = malloc(256 * sizeof(evq_event));
        ok = ok && q->lanes[i].ring != NULL;
    }
    return ok ? 0 : -1;
}

void evq_fini(evq *q)
{
    free(q->heap);
    for (int i = 0; i < EVQ_LANES; i++)
        free(q->lanes[i].ring);
    memset(q, 0, sizeof *q);
}

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

/* The smallest of the four children starting at f: a tournament of three
 * comparisons with no loop, for the common case where all four exist. */
static inline size_t min_of_four(const evq_event *h, size_t f)
{
    size_t a = evq_before(&h[f + 1], &h[f]) ? f + 1 : f;
    size_t b = evq_before(&h[f + 3], &h[f + 2]) ? f + 3 : f + 2;
    return evq_before(&h[b], &h[a]) ? b : a;
}

/* Pop for a heap: the bottom-up variant (Wegener; Floyd).  The element
 * moved up from the end of the array nearly always belongs near the
 * bottom again, so instead of comparing it at every level on the way
 * down, walk the hole down along the smaller children to a leaf (one
 * comparison fewer per level) and then sift the element up from there,
 * which usually takes a step or two. */
static void heap_remove_top(evq_event *h, size_t len)
{
    evq_event last = h[len];
    size_t i = 0;
    for (;;) {
        size_t first = i * D + 1;
        size_t best;
        if (first + D <= len) {
            best = min_of_four(h, first);
        } else if (first < len) {
            best = first;
            for (size_t c = first + 1; c < len; c++)
                if (evq_before(&h[c], &h[best]))
                    best = c;
        } else {
            break;
        }
        h[i] = h[best];
        i = best;
    }
    sift_up(h, i, last);
}

static int grow_heap(evq *q)
{
    size_t cap = q->cap * 2;
    evq_event *h = realloc(q->heap, cap * sizeof *h);
    if (h == NULL)
        return -1;
    q->heap = h;
    q->cap = cap;
    return 0;
}

int evq_push(evq *q, int64_t time, unsigned type, uint32_t id, uint32_t gen)
{
    if (q->len == q->cap && grow_heap(q) != 0)
        return -1;
    evq_event ev = {time, (q->next_seq++ << 8) | (type & 0xffu), id, gen};
    sift_up(q->heap, q->len++, ev);
    return 0;
}

static int grow_lane(evq_lane *l)
{
    size_t cap = l->cap * 2;
    evq_event *r = malloc(cap * sizeof *r);
    if (r == NULL)
        return -1;
    for (size_t i = 0; i < l->len; i++)
        r[i] = l->ring[(l->head + i) & (l->cap - 1)];
    free(l->ring);
    l->ring = r;
    l->head = 0;
    l->cap = cap;
    return 0;
}

int evq_push_lane(evq *q, unsigned lane, int64_t time, unsigned type,
                  uint32_t id, uint32_t gen)
{
    evq_lane *l = &q->lanes[lane % EVQ_LANES];
    if (l->len > 0 && time < l->ring[(l->head + l->len - 1) & (l->cap - 1)].time)
        return evq_push(q, time, type, id, gen);
    if (l->len == l->cap && grow_lane(l) != 0)
        return -1;
    evq_event ev = {time, (q->next_seq++ << 8) | (type & 0xffu), id, gen};
    l->ring[(l->head + l->len) & (l->cap - 1)] = ev;
    l->len++;
    q->lane_len++;
    return 0;
}

/* Which store holds the earliest event: 0..EVQ_LANES-1 a lane, EVQ_LANES
 * the heap, -1 none. */
static int earliest(const evq *q)
{
    const evq_event *best = q->len ? &q->heap[0] : NULL;
    int where = best ? EVQ_LANES : -1;
    if (q->lane_len == 0)
        return where;
    for (int i = 0; i < EVQ_LANES; i++) {
        const evq_lane *l = &q->lanes[i];
        if (l->len == 0)
            continue;
        const evq_event *h = &l->ring[l->head];
        if (best == NULL || evq_before(h, best)) {
            best = h;
            where = i;
        }
    }
    return where;
}

static void take(evq *q, int where, evq_event *out)
{
    if (where == EVQ_LANES) {
        *out = q->heap[0];
        if (--q->len > 0)
            heap_remove_top(q->heap, q->len);
        return;
    }
    evq_lane *l = &q->lanes[where];
    *out = l->ring[l->head];
    l->head = (l->head + 1) & (l->cap - 1);
    l->len--;
    q->lane_len--;
}

bool evq_pop_before(evq *q, int64_t limit, evq_event *out)
{
    int where = earliest(q);
    if (where < 0)
        return false;
    const evq_event *e = where == EVQ_LANES
                             ? &q->heap[0]
                             : &q->lanes[where].ring[q->lanes[where].head];
    if (e->time >= limit)
        return false;
    take(q, where, out);
    return true;
}

bool evq_pop(evq *q, evq_event *out)
{
    return evq_pop_before(q, INT64_MAX, out);
}

int evq_retime(evq *q, int64_t (*fn)(const evq_event *ev, void *ctx),
               void *ctx)
{
    /* Retimed events may no longer be in FIFO order: move the lanes into
     * the heap first (they keep their seq, so ties still break the same
     * way). */
    for (int i = 0; i < EVQ_LANES; i++) {
        evq_lane *l = &q->lanes[i];
        while (l->len > 0) {
            if (q->len == q->cap && grow_heap(q) != 0)
                return -1;
            q->heap[q->len++] = l->ring[l->head];
            l->head = (l->head + 1) & (l->cap - 1);
            l->len--;
            q->lane_len--;
        }
    }
    for (size_t i = 0; i < q->len; i++)
        q->heap[i].time = fn(&q->heap[i], ctx);
    /* Floyd's heap construction: sift down every internal node, last
     * first.  O(n), and exact: (time, seq) is a total order. */
    if (q->len < 2)
        return 0;
    for (size_t i = (q->len - 2) / D + 1; i-- > 0;)
        sift_down(q->heap, q->len, i, q->heap[i]);
    return 0;
}

size_t evq_bytes(const evq *q)
{
    size_t n = q->cap;
    for (int i = 0; i < EVQ_LANES; i++)
        n += q->lanes[i].cap;
    return n * sizeof(evq_event);
}
