#include "window.h"

#include <math.h>
#include <string.h>

/* The storage: the absolute number of the newest slice touched, then
 * slices x vals counters; slice s lives in row s mod slices. */
typedef struct win {
    int64_t slot;
    int64_t count[];
} win;

size_t window_bytes(const window_shape *w)
{
    return sizeof(win) + (size_t)w->slices * w->vals * sizeof(int64_t);
}

static int64_t *row(const window_shape *w, win *m, int64_t slot)
{
    return m->count + (size_t)(slot % w->slices) * w->vals;
}

/* Move the window forward to the slice that holds now_s, zeroing the rows
 * of the slices it skips over (at most all of them). */
static void advance(const window_shape *w, win *m, double now_s)
{
    int64_t slot = (int64_t)floor(now_s / w->slice_s);
    if (slot <= m->slot)
        return;
    int64_t gap = slot - m->slot;
    if (gap > (int64_t)w->slices)
        gap = w->slices;
    for (int64_t k = gap - 1; k >= 0; k--)
        memset(row(w, m, slot - k), 0, w->vals * sizeof(int64_t));
    m->slot = slot;
}

void window_add(const window_shape *w, void *mem, double now_s, uint32_t val,
                int64_t amount)
{
    win *m = mem;
    advance(w, m, now_s);
    row(w, m, m->slot)[val] += amount;
}

int64_t window_sum(const window_shape *w, void *mem, double now_s, uint32_t val)
{
    win *m = mem;
    advance(w, m, now_s);
    int64_t sum = 0;
    for (uint32_t i = 0; i < w->slices; i++)
        sum += m->count[(size_t)i * w->vals + val];
    return sum;
}

void window_clear(const window_shape *w, void *mem)
{
    win *m = mem;
    memset(m->count, 0, (size_t)w->slices * w->vals * sizeof(int64_t));
}
