#include "hookguard.h"

#include <pthread.h>

/* The records live in a static table rather than in thread-local storage,
 * so the watchdog may read one whatever its thread does: a thread that
 * exits gives its slot back (the key's destructor), and a stale read of a
 * slot being reused only shows an even counter or a changed one, neither
 * of which fires.  Thread-local storage would be freed under the reader's
 * feet. */
static hookguard table[HOOKGUARD_MAX_THREADS];
/* For a thread that finds the table full: crashes are still named. */
static _Thread_local hookguard overflow;
_Thread_local hookguard *hookguard_self;
void (*hookguard_on_new_thread)(void);

static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void release(void *slot)
{
    hookguard *g = slot;
    atomic_store_explicit(&g->taken, false, memory_order_release);
}

static void make_key(void)
{
    if (pthread_key_create(&key, release) != 0)
        key = (pthread_key_t)-1;
}

hookguard *hookguard_claim(void)
{
    if (hookguard_on_new_thread)
        hookguard_on_new_thread();
    pthread_once(&key_once, make_key);
    hookguard *g = &overflow;
    for (int i = 0; i < HOOKGUARD_MAX_THREADS; i++) {
        bool free_slot = false;
        if (atomic_compare_exchange_strong(&table[i].taken, &free_slot, true)) {
            g = &table[i];
            if (key != (pthread_key_t)-1)
                pthread_setspecific(key, g);
            break;
        }
    }
    /* A reused slot's counter may be odd if its last thread died inside
     * a hook (it cannot: that ends the process); make it even anyway. */
    unsigned long n = atomic_load(&g->entries);
    atomic_store(&g->entries, n + (n & 1u));
    /* A slot's last thread may have left its run's names behind, in
     * storage that is gone. */
    atomic_store(&g->run, NULL);
    atomic_store(&g->rerun, NULL);
    hookguard_self = g;
    return g;
}

void hookguard_set_context(const char *phrase)
{
    hookguard *g = hookguard_self;
    if (g == NULL)
        g = hookguard_claim();
    atomic_store_explicit(&g->context, phrase, memory_order_relaxed);
}

void hookguard_set_run(const char *run, const char *rerun)
{
    hookguard *g = hookguard_self;
    if (g == NULL)
        g = hookguard_claim();
    atomic_store_explicit(&g->run, run, memory_order_relaxed);
    atomic_store_explicit(&g->rerun, rerun, memory_order_relaxed);
}

static void snapshot(const hookguard *g, unsigned long n,
                     hookguard_snapshot *out)
{
    hookguard *w = (hookguard *)g; /* atomic loads want non-const */
    out->entries = n;
    out->policy = atomic_load_explicit(&w->policy, memory_order_relaxed);
    out->origin = atomic_load_explicit(&w->origin, memory_order_relaxed);
    out->hook = atomic_load_explicit(&w->hook, memory_order_relaxed);
    uint64_t bits = atomic_load_explicit(&w->now_bits, memory_order_relaxed);
    memcpy(&out->now_s, &bits, sizeof bits);
    out->context = atomic_load_explicit(&w->context, memory_order_relaxed);
    out->run = atomic_load_explicit(&w->run, memory_order_relaxed);
    out->rerun = atomic_load_explicit(&w->rerun, memory_order_relaxed);
}

bool hookguard_current(hookguard_snapshot *out)
{
    hookguard *g = hookguard_self;
    if (g == NULL)
        return false;
    unsigned long n = atomic_load_explicit(&g->entries, memory_order_relaxed);
    if ((n & 1u) == 0)
        return false;
    snapshot(g, n, out);
    out->slot = g == &overflow ? -1 : (int)(g - table);
    return true;
}

int hookguard_scan(hookguard_snapshot *out, int max)
{
    int k = 0;
    for (int i = 0; i < HOOKGUARD_MAX_THREADS && k < max; i++) {
        hookguard *g = &table[i];
        if (!atomic_load_explicit(&g->taken, memory_order_acquire))
            continue;
        unsigned long n =
            atomic_load_explicit(&g->entries, memory_order_acquire);
        if ((n & 1u) == 0)
            continue;
        snapshot(g, n, &out[k]);
        /* Still the same hook call after reading it: the fields belong to
         * it (the writer stores them before it makes the counter odd). */
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&g->entries, memory_order_relaxed) != n)
            continue;
        out[k].slot = i;
        k++;
    }
    return k;
}
