/*
 * pool.h -- fixed-size records addressed by a 32-bit index, from a free
 * list, in chunks of 4096 so that a record never moves (a handler may hold
 * a pointer to a request while it allocates an attempt).  Chunks are never
 * returned before pool_fini; a freed record keeps its bytes, so a
 * generation counter stored in it survives reuse (that is how stale events
 * are recognised).
 *
 * Two ways to take a record, which may be mixed on one pool:
 *   pool_alloc  the record as it was left (zeroed the first time it is
 *               handed out); the caller initialises what it needs.
 *   pool_take   the record zeroed, except its generation counter (a
 *               uint32_t at a given offset: 0 the first time, else kept).
 *               This is what the engine's records want, and a record is
 *               then zeroed once, not twice the first time.
 * Records are handed out from the free list first (last freed, first
 * out), then in index order: both ways hand out the same indices.
 *
 * Taking and freeing are inline: the engine does each once per request
 * and once per attempt.  Growing is out of line.
 */
#ifndef SB_POOL_H
#define SB_POOL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define POOL_SHIFT 12
#define POOL_CHUNK (1u << POOL_SHIFT)

typedef struct pool {
    char **chunks;
    size_t n_chunks, cap_chunks;
    size_t stride;
    uint32_t *free_list;
    size_t n_free, cap_free;
    uint32_t next_new; /* records [0, next_new) have been handed out once */
    uint32_t new_end;  /* ... and [next_new, new_end) are in chunks, never
                          handed out: n_chunks x POOL_CHUNK */
} pool;

void pool_init(pool *p, size_t stride);
void pool_fini(pool *p);
/* Empty p for records of `stride` bytes, as pool_init would, keeping its
 * chunks when the stride is the same (a reused engine, sim_reuse): the
 * records are handed out in the same order as from a new pool. */
void pool_reset(pool *p, size_t stride);
/* Make p a copy of src (p's old contents are not freed): the records
 * handed out so far, byte for byte, and the free list, so both hand out
 * the same indices from now on.  -1 out of memory (p is then good for
 * pool_fini only). */
int pool_clone(pool *p, const pool *src);
size_t pool_bytes(const pool *p);

/* Records handed out and not freed: every record below next_new is
 * either live or on the free list (one that pool_free could not list
 * leaked, and counts as live).  Derived, not kept: a counter cost an add
 * on every take and free. */
static inline uint32_t pool_live(const pool *p)
{
    return p->next_new - (uint32_t)p->n_free;
}

/* The slow paths of pool_alloc, pool_take and pool_free. */
int pool_alloc_new(pool *p, uint32_t *idx);
int pool_add_chunk(pool *p);
int pool_grow_free_list(pool *p);

static inline void *pool_at(const pool *p, uint32_t i)
{
    return p->chunks[i >> POOL_SHIFT] +
           (size_t)(i & (POOL_CHUNK - 1)) * p->stride;
}

/* A record's index in *idx; -1 when out of memory. */
static inline int pool_alloc(pool *p, uint32_t *idx)
{
    if (p->n_free == 0)
        return pool_alloc_new(p, idx);
    *idx = p->free_list[--p->n_free];
    return 0;
}

/* A record, its index in *idx, with its first `size` bytes (at most the
 * stride) zeroed except the uint32_t at gen_off (gen_off + 4 <= size),
 * its generation counter: 0 the first time the record is handed out,
 * else as it was left.  Bytes past `size` are unspecified the first
 * time.  NULL when out of memory.  With a constant size the memset is a
 * few stores.  A new record is taken inline, not through pool_alloc_new:
 * a large run takes hundreds of thousands of them (its high-water mark),
 * and that call would zero each twice. */
static inline void *pool_take(pool *p, uint32_t *idx, size_t size,
                              size_t gen_off)
{
    uint32_t i, gen = 0;
    char *rec;
    if (p->n_free > 0) {
        i = p->free_list[--p->n_free];
        rec = pool_at(p, i);
        memcpy(&gen, rec + gen_off, sizeof gen);
    } else {
        if (p->next_new == p->new_end && pool_add_chunk(p) != 0)
            return NULL;
        i = p->next_new++;
        rec = pool_at(p, i);
    }
    memset(rec, 0, size);
    memcpy(rec + gen_off, &gen, sizeof gen);
    *idx = i;
    return rec;
}

static inline void pool_free(pool *p, uint32_t idx)
{
    /* pool_add_chunk made room for every record on the free list, so it
     * never grows here (the check stays for a pool filled otherwise). */
    if (p->n_free == p->cap_free && pool_grow_free_list(p) != 0)
        return; /* the record leaks until pool_fini */
    p->free_list[p->n_free++] = idx;
}

#endif
