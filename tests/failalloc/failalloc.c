/*
 * failalloc.c -- allocation failure on demand, for the sweep in
 * tests/failalloc/sweep (the way SQLite tests its out-of-memory paths).
 *
 * Linked into a build made with -DSB_FAILALLOC=ON, where the linker routes
 * every malloc, calloc, realloc and strdup of the program's own code
 * through the __wrap_ functions below (-Wl,--wrap=...); libraries (libc's
 * internals, inih, cairo, GSL) keep the real ones.  With SB_FAIL_ALLOC=N
 * in the environment the N-th allocation (counting from 1) returns NULL,
 * once; every other succeeds.  With SB_FAIL_ALLOC_COUNT=FILE the number
 * of allocations the run made is written to FILE at exit, so the sweep
 * knows how many to fail in turn.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

static long fail_at = -1;
static atomic_long count;
static const char *count_file;

static void report(void)
{
    FILE *f = fopen(count_file, "w");
    if (f != NULL) {
        fprintf(f, "%ld\n", (long)atomic_load(&count));
        fclose(f);
    }
}

__attribute__((constructor)) static void failalloc_init(void)
{
    const char *v = getenv("SB_FAIL_ALLOC");
    if (v != NULL && *v != '\0') {
        char *end;
        long n = strtol(v, &end, 10);
        if (*end == '\0' && n > 0)
            fail_at = n;
    }
    count_file = getenv("SB_FAIL_ALLOC_COUNT");
    if (count_file != NULL && *count_file != '\0')
        atexit(report);
}

/* true for the allocation that is to fail */
static int failing(void)
{
    return atomic_fetch_add(&count, 1) + 1 == fail_at;
}

void *__wrap_malloc(size_t n)
{
    return failing() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return failing() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
    return failing() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
    return failing() ? NULL : __real_strdup(s);
}
