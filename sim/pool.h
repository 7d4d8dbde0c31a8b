/*
 * pool.h -- fixed-size records addressed by a 32-bit index, from a free
 * list, in chunks of 4096 so that a record never moves (a handler may hold
 * a pointer to a request while it allocates an attempt).  A record is
 * zeroed the first time it is handed out, and chunks are never returned
 * before pool_fini; a freed record keeps its bytes, so a generation
 * counter stored in it survives reuse (that is how stale events are
 * recognised).
 *
 * Allocating from the free list and freeing are inline: the engine does
 * each once per request and once per attempt.  Growing is out of line.
 */
#ifndef SB_POOL_H
#define SB_POOL_H

#include <stddef.h>
#include <stdint.h>

#define POOL_SHIFT 12
#define POOL_CHUNK (1u << POOL_SHIFT)

typedef struct pool {
    char **chunks;
    size_t n_chunks, cap_chunks;
    size_t stride;
    uint32_t *free_list;
    size_t n_free, cap_free;
    uint32_t next_new; /* records [0, next_new) have been handed out once */
    uint32_t live;
} pool;

void pool_init(pool *p, size_t stride);
void pool_fini(pool *p);
size_t pool_bytes(const pool *p);

/* The slow paths of pool_alloc and pool_free. */
int pool_alloc_new(pool *p, uint32_t *idx);
int pool_grow_free_list(pool *p);

/* A record's index in *idx; -1 when out of memory. */
static inline int pool_alloc(pool *p, uint32_t *idx)
{
    if (p->n_free == 0)
        return pool_alloc_new(p, idx);
    *idx = p->free_list[--p->n_free];
    p->live++;
    return 0;
}

static inline void pool_free(pool *p, uint32_t idx)
{
    if (p->n_free == p->cap_free && pool_grow_free_list(p) != 0)
        return; /* the record leaks until pool_fini; never wrong */
    p->free_list[p->n_free++] = idx;
    p->live--;
}

static inline void *pool_at(const pool *p, uint32_t i)
{
    return p->chunks[i >> POOL_SHIFT] + (size_t)(i & (POOL_CHUNK - 1)) *
                                            p->stride;
}

#endif
