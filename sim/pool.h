/*
 * pool.h -- fixed-size records addressed by a 32-bit index, from a free
 * list, in chunks of 4096 so that a record never moves (a handler may hold
 * a pointer to a request while it allocates an attempt).  Chunks are
 * zeroed when first allocated and never returned before pool_fini; a
 * freed record keeps its bytes, so a generation counter stored in it
 * survives reuse (that is how stale events are recognised).
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
/* A record's index in *idx; -1 when out of memory. */
int pool_alloc(pool *p, uint32_t *idx);
void pool_free(pool *p, uint32_t idx);
size_t pool_bytes(const pool *p);

static inline void *pool_at(const pool *p, uint32_t i)
{
    return p->chunks[i >> POOL_SHIFT] + (size_t)(i & (POOL_CHUNK - 1)) *
                                            p->stride;
}

#endif
