#include "pool.h"

#include <stdlib.h>
#include <string.h>

void pool_init(pool *p, size_t stride)
{
    memset(p, 0, sizeof *p);
    p->stride = (stride + 7u) & ~(size_t)7u;
}

void pool_fini(pool *p)
{
    for (size_t i = 0; i < p->n_chunks; i++)
        free(p->chunks[i]);
    free(p->chunks);
    free(p->free_list);
    memset(p, 0, sizeof *p);
}

static int add_chunk(pool *p)
{
    if (p->n_chunks == p->cap_chunks) {
        size_t cap = p->cap_chunks ? p->cap_chunks * 2 : 8;
        char **c = realloc(p->chunks, cap * sizeof *c);
        if (c == NULL)
            return -1;
        p->chunks = c;
        p->cap_chunks = cap;
    }
    char *chunk = calloc(POOL_CHUNK, p->stride);
    if (chunk == NULL)
        return -1;
    p->chunks[p->n_chunks++] = chunk;
    return 0;
}

int pool_alloc(pool *p, uint32_t *idx)
{
    if (p->n_free > 0) {
        *idx = p->free_list[--p->n_free];
    } else {
        if (p->next_new == UINT32_MAX)
            return -1;
        if ((p->next_new >> POOL_SHIFT) >= p->n_chunks && add_chunk(p) != 0)
            return -1;
        *idx = p->next_new++;
    }
    p->live++;
    return 0;
}

void pool_free(pool *p, uint32_t idx)
{
    if (p->n_free == p->cap_free) {
        size_t cap = p->cap_free ? p->cap_free * 2 : 1024;
        uint32_t *f = realloc(p->free_list, cap * sizeof *f);
        if (f == NULL)
            return; /* the record leaks until pool_fini; never wrong */
        p->free_list = f;
        p->cap_free = cap;
    }
    p->free_list[p->n_free++] = idx;
    p->live--;
}

size_t pool_bytes(const pool *p)
{
    return p->n_chunks * POOL_CHUNK * p->stride +
           p->cap_chunks * sizeof(char *) + p->cap_free * sizeof(uint32_t);
}
