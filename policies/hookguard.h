/*
 * hookguard.h -- which plug-in hook each thread is inside, so that a
 * crash or a hang in a plug-in can be blamed on it.
 *
 * The stack runner (pstack.c) calls hookguard_enter() just before it
 * calls a hook of a plug-in layer (built-in layers are trusted and pay
 * nothing) and hookguard_leave() just after.  What is recorded -- the
 * policy's name, the plug-in's path, the hook and the simulated time --
 * is read by two readers the CLI installs (cli/guard.c):
 *   - a signal handler (SIGSEGV, SIGFPE, ...), on the crashing thread:
 *     hookguard_current();
 *   - a watchdog thread (--hook-timeout), on another thread:
 *     hookguard_scan(), which sees every thread that ever entered a
 *     plug-in hook.
 *
 * Each thread has a record of its own (the comparison runner runs
 * simulations on several threads), claimed the first time it enters a
 * plug-in hook from a fixed table, and given back when the thread exits.
 * Entering and leaving are a handful of plain stores and no system call:
 * an `entries` counter, odd while inside a hook, that the watchdog
 * samples -- the same odd value seen for longer than the timeout is a hook
 * that has not returned.
 *
 * The strings recorded are borrowed: they must outlive the hook call
 * (the stack's layer name and origin, and string literals, do).  Every
 * reader here is async-signal-safe.
 */
#ifndef SB_HOOKGUARD_H
#define SB_HOOKGUARD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Simulated times that are not times: the hook ran while the stack was
 * built (create, the state sizes) or torn down (destroy). */
#define HOOKGUARD_BEFORE_RUN (-1.0)
#define HOOKGUARD_AFTER_RUN (-2.0)

typedef struct hookguard {
    atomic_ulong entries; /* hooks entered + hooks left: odd inside one */
    _Atomic(const char *) policy;
    _Atomic(const char *) origin;
    _Atomic(const char *) hook;
    atomic_uint_least64_t now_bits; /* the simulated time, a double's bits */
    _Atomic(const char *) context;  /* hookguard_set_context's, or NULL */
    _Atomic(const char *) run;      /* hookguard_set_run's, or NULL */
    _Atomic(const char *) rerun;
    atomic_bool taken; /* the slot belongs to a live thread */
} hookguard;

/* What a reader sees of one record. */
typedef struct hookguard_snapshot {
    int slot;              /* which record (for the watchdog) */
    unsigned long entries; /* odd: inside a hook */
    const char *policy;    /* "sbt_segv"; NULL while the plug-in loads */
    const char *origin;    /* the plug-in's path */
    const char *hook;      /* "on_failure" */
    double now_s;          /* simulated time, or HOOKGUARD_*_RUN */
    const char *context;   /* NULL in a simulation */
    const char *run;       /* "run 3 (policy 'x', seed 2)", or NULL */
    const char *rerun;     /* a command that runs it alone, or NULL */
} hookguard_snapshot;

/* This thread's record; NULL until it first enters a plug-in hook. */
extern _Thread_local hookguard *hookguard_self;

/* Claim this thread's record (out of line: once per thread). */
hookguard *hookguard_claim(void);

/* Called on each thread the first time it claims a record, before the
 * record is used, when set (the CLI gives that thread an alternate
 * signal stack).  Set it before any plug-in runs. */
extern void (*hookguard_on_new_thread)(void);

/* Outside a simulation -- `validate` and `run` probe a policy's worst
 * case by driving its stack by hand -- the hooks' simulated time is not
 * a time of the run: a caller that does so says what it is doing, as a
 * phrase ("while its worst case was probed, before the run"), and puts
 * NULL back after.  The phrase is borrowed until then. */
void hookguard_set_context(const char *phrase);

/* A thread that runs one of many runs (compare's workers) names the run
 * it is in ("run 3 (policy 'x', seed 2)") and a command that runs it
 * alone ("stormbench run x.ini --policy x --seed 2"), so a crash says
 * what to run to see it again; either may be NULL.  Both are borrowed
 * until the thread sets them again (NULL, NULL when it is done). */
void hookguard_set_run(const char *run, const char *rerun);

static inline void hookguard_enter(const char *policy, const char *origin,
                                   const char *hook, double now_s)
{
    hookguard *g = hookguard_self;
    if (g == NULL)
        g = hookguard_claim();
    uint64_t bits;
    memcpy(&bits, &now_s, sizeof bits);
    atomic_store_explicit(&g->policy, policy, memory_order_relaxed);
    atomic_store_explicit(&g->origin, origin, memory_order_relaxed);
    atomic_store_explicit(&g->hook, hook, memory_order_relaxed);
    atomic_store_explicit(&g->now_bits, bits, memory_order_relaxed);
    unsigned long n = atomic_load_explicit(&g->entries, memory_order_relaxed);
    atomic_store_explicit(&g->entries, n + 1, memory_order_release);
}

static inline void hookguard_leave(void)
{
    hookguard *g = hookguard_self;
    unsigned long n = atomic_load_explicit(&g->entries, memory_order_relaxed);
    atomic_store_explicit(&g->entries, n + 1, memory_order_release);
}

/* Is this thread inside a plug-in hook?  Then true, with what it is in
 * *out.  Async-signal-safe. */
bool hookguard_current(hookguard_snapshot *out);

/* Snapshots of every claimed record, at most max; returns how many.  A
 * record whose thread moved on while it was read is left out (it is not
 * stuck).  Async-signal-safe, and safe from any thread. */
int hookguard_scan(hookguard_snapshot *out, int max);

/* The most threads watched at once; more still run, and a crash on one is
 * still named, but the watchdog does not see them. */
#define HOOKGUARD_MAX_THREADS 256

#endif
