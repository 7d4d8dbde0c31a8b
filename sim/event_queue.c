#include "event_queue.h"

#include <assert.h>
#include <stdlib.h>

/* d = 4: a node's children share one or two cache lines, and the tree is
 * half as deep as a binary heap, which matters most for pop, the
 * operation every event pays. */
#define D 4

static inline bool before(const evq_event *a, const evq_event *b)
{
    return a->time < b->time || (a->time == b->time && a->key < b->key);
}

int evq_init(evq *q, size_t initial_cap)
{
    q->len = 0;
    q->next_seq = 0;
    q->cap = initial_cap < 16 ? 16 : initial_cap;
    q->heap = malloc(q->cap * sizeof *q->heap);
    return q->heap ? 0 : -1;
}

void evq_fini(evq *q)
{
    free(q->heap);
    q->heap = NULL;
    q->len = q->cap = 0;
}

static void sift_up(evq_event *h, size_t i, evq_event ev)
{
    while (i > 0) {
        size_t parent = (i - 1) / D;
        if (!before(&ev, &h[parent]))
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
            if (before(&h[c], &h[best]))
                best = c;
        if (!before(&h[best], &ev))
            break;
        h[i] = h[best];
        i = best;
    }
    h[i] = ev;
}

int evq_push(evq *q, int64_t time, unsigned type, uint32_t id, uint32_t gen)
{
    if (q->len == q->cap) {
        size_t cap = q->cap * 2;
        evq_event *h = realloc(q->heap, cap * sizeof *h);
        if (h == NULL)
            return -1;
        q->heap = h;
        q->cap = cap;
    }
    evq_event ev = {time, (q->next_seq++ << 8) | (type & 0xffu), id, gen};
    sift_up(q->heap, q->len++, ev);
    return 0;
}

bool evq_pop(evq *q, evq_event *out)
{
    if (q->len == 0)
        return false;
    *out = q->heap[0];
    evq_event last = q->heap[--q->len];
    if (q->len > 0)
        sift_down(q->heap, q->len, 0, last);
    return true;
}

void evq_retime(evq *q, int64_t (*fn)(const evq_event *ev, void *ctx),
                void *ctx)
{
    for (size_t i = 0; i < q->len; i++)
        q->heap[i].time = fn(&q->heap[i], ctx);
    /* Floyd's heap construction: sift down every internal node, last
     * first.  O(n), and exact: (time, seq) is a total order. */
    if (q->len < 2)
        return;
    for (size_t i = (q->len - 2) / D + 1; i-- > 0;)
        sift_down(q->heap, q->len, i, q->heap[i]);
}

size_t evq_bytes(const evq *q)
{
    return q->cap * sizeof(evq_event);
}
