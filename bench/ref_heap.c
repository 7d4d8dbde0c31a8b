/*
 * ref_heap.c -- the reference loop (ref_model.h) on a plain 4-ary heap:
 * 16-byte entries (time; id; generation and type packed in 32 bits),
 * ordered by time alone with one integer compare.  Ties come out in
 * whatever order the heap leaves them, which is deterministic but not the
 * order they were pushed in: the engine pays for that guarantee and this
 * loop does not.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct rh_ent {
    int64_t time;
    uint32_t id;
    uint32_t tg; /* gen << 4 | type */
} rh_ent;

typedef struct rheap {
    rh_ent *h;
    size_t len, cap;
} rheap;

static int rh_init(rheap *q, size_t n)
{
    q->len = 0;
    q->cap = n + 1024;
    q->h = malloc(q->cap * sizeof *q->h);
    return q->h ? 0 : -1;
}

static void rh_fini(rheap *q)
{
    free(q->h);
}

static int rh_push(rheap *q, int64_t t, unsigned type, uint32_t id,
                   uint32_t gen)
{
    if (q->len == q->cap) {
        rh_ent *h = realloc(q->h, 2 * q->cap * sizeof *h);
        if (h == NULL)
            return -1;
        q->h = h;
        q->cap *= 2;
    }
    rh_ent e = {t, id, gen << 4 | type};
    size_t i = q->len++;
    while (i > 0) {
        size_t parent = (i - 1) / 4;
        if (q->h[parent].time <= t)
            break;
        q->h[i] = q->h[parent];
        i = parent;
    }
    q->h[i] = e;
    return 0;
}

/* Take the root; move the last entry down from the root, each step to
 * the smallest of up to four children. */
static void rh_take(rheap *q)
{
    rh_ent *h = q->h;
    rh_ent e = h[--q->len];
    size_t n = q->len, i = 0;
    for (;;) {
        size_t c = 4 * i + 1, best = c;
        if (c >= n)
            break;
        size_t end = c + 4 < n ? c + 4 : n;
        for (size_t k = c + 1; k < end; k++)
            if (h[k].time < h[best].time)
                best = k;
        if (h[best].time >= e.time)
            break;
        h[i] = h[best];
        i = best;
    }
    h[i] = e;
}

#define RQ rheap
#define rq_init(q, n) rh_init((q), (n))
#define rq_fini(q) rh_fini(q)
#define rq_push(q, t, type, id, gen) rh_push((q), (t), (type), (id), (gen))
#define rq_failed(q) ((void)(q), false)
#define REF_RUN ref_run_heap

struct ref_ev;
static bool rq_pop_before(rheap *q, int64_t limit, struct ref_ev *ev);

#include "ref_loop.h"

static bool rq_pop_before(rheap *q, int64_t limit, ref_ev *ev)
{
    if (q->len == 0 || q->h[0].time >= limit)
        return false;
    ev->time = q->h[0].time;
    ev->id = q->h[0].id;
    ev->type = q->h[0].tg & 15u;
    ev->gen = q->h[0].tg >> 4;
    rh_take(q);
    return true;
}
