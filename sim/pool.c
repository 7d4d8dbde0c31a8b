#include "pool.h"

#include <stdlib.h>
#include <string.h>

void pool_init(pool *p, size_t stride)
{
    memset(p, 0, sizeof *p);
    p->stride = (stride + 7u) & ~(size_t)7u;
}

void pool_reset(pool *p, size_t stride)
{
    stride = (stride + 7u) & ~(size_t)7u;
    if (stride != p->stride) {
        pool_fini(p);
        pool_init(p, stride);
        return;
    }
    /* Records are zeroed as each is first handed out (pool_take,
     * pool_alloc_new), so the kept chunks need no clearing; the free list
     * keeps its room for every record, as pool_add_chunk left it. */
    p->n_free = 0;
    p->next_new = 0;
}

void pool_fini(pool *p)
{
    for (size_t i = 0; i < p->n_chunks; i++)
        free(p->chunks[i]);
    free(p->chunks);
    free(p->free_list);
    memset(p, 0, sizeof *p);
}

/* Records past next_new were never handed out: their bytes are
 * unspecified (pool_take zeroes them first), so they are not copied. */
int pool_clone(pool *p, const pool *src)
{
    *p = *src;
    p->chunks = NULL;
    p->free_list = NULL;
    p->n_chunks = 0;
    p->chunks =
        malloc((src->cap_chunks ? src->cap_chunks : 1) * sizeof *p->chunks);
    p->free_list =
        malloc((src->cap_free ? src->cap_free : 1) * sizeof *p->free_list);
    if (p->chunks == NULL || p->free_list == NULL)
        return -1;
    memcpy(p->free_list, src->free_list, src->n_free * sizeof *p->free_list);
    for (size_t i = 0; i < src->n_chunks; i++) {
        p->chunks[i] = malloc((size_t)POOL_CHUNK * p->stride);
        if (p->chunks[i] == NULL)
            return -1;
        p->n_chunks++;
        size_t first = i << POOL_SHIFT;
        size_t used = src->next_new > first ? src->next_new - first : 0;
        if (used > POOL_CHUNK)
            used = POOL_CHUNK;
        memcpy(p->chunks[i], src->chunks[i], used * p->stride);
    }
    return 0;
}

/* A chunk is not zeroed here but record by record as each is first handed
 * out (pool_alloc_new, pool_take): the records a run never reaches stay
 * untouched, and a record is zeroed just before its first use, while it
 * is about to be written anyway (calloc zeroed 4096 records at once,
 * most of them never used).  new_end stays below UINT32_MAX: the last
 * chunk would end at 2^32. */
int pool_add_chunk(pool *p)
{
    if (p->n_chunks >= (UINT32_MAX >> POOL_SHIFT))
        return -1;
    if (p->n_chunks == p->cap_chunks) {
        size_t cap = p->cap_chunks ? p->cap_chunks * 2 : 8;
        char **c = realloc(p->chunks, cap * sizeof *c);
        if (c == NULL)
            return -1;
        p->chunks = c;
        p->cap_chunks = cap;
    }
    /* The free list gets room for every record first, so pool_free never
     * has to allocate: a record freed while memory is short would
     * otherwise be neither live nor on the list, and the sanity checks
     * (requests_sane) would read its stale fields as a live record's. */
    size_t records = (p->n_chunks + 1) << POOL_SHIFT;
    while (p->cap_free < records)
        if (pool_grow_free_list(p) != 0)
            return -1;
    char *chunk = malloc((size_t)POOL_CHUNK * p->stride);
    if (chunk == NULL)
        return -1;
    p->chunks[p->n_chunks++] = chunk;
    p->new_end = (uint32_t)(p->n_chunks << POOL_SHIFT);
    return 0;
}

int pool_alloc_new(pool *p, uint32_t *idx)
{
    if (p->next_new == p->new_end && pool_add_chunk(p) != 0)
        return -1;
    *idx = p->next_new++;
    memset(pool_at(p, *idx), 0, p->stride);
    return 0;
}

int pool_grow_free_list(pool *p)
{
    size_t cap = p->cap_free ? p->cap_free * 2 : 1024;
    uint32_t *f = realloc(p->free_list, cap * sizeof *f);
    if (f == NULL)
        return -1;
    p->free_list = f;
    p->cap_free = cap;
    return 0;
}

size_t pool_bytes(const pool *p)
{
    return p->n_chunks * POOL_CHUNK * p->stride +
           p->cap_chunks * sizeof(char *) + p->cap_free * sizeof(uint32_t);
}
