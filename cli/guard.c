/*
 * guard.c -- a policy plug-in that crashes or hangs in a hook stops the
 * run with a message that names it, instead of a bare "Segmentation
 * fault" (or a run that never ends).
 *
 * The stack runner records which plug-in hook each thread is in
 * (policies/hookguard.h).  The signal handler below reads that record on
 * the crashing thread; when it is set, the crash is the plug-in's: the
 * handler writes the message with write(2) alone (everything here is
 * async-signal-safe: no stdio, no malloc, numbers formatted by hand),
 * removes the temporary output files it was told of and _exits with
 * EXIT_PLUGIN.  When it is not set, the crash is ours: the handler puts
 * back the action that was there before (the default, which dumps core,
 * or a sanitizer's, which reports) and lets the fault happen again, so
 * our own bugs are reported as they were.
 *
 * The handlers run on an alternate signal stack, so a plug-in that
 * overflows its stack is caught too: the main thread's is static, and
 * every other thread gets one the first time it enters a plug-in hook.
 *
 * --hook-timeout: a watchdog thread wakes a few times per timeout and
 * samples each thread's hook counter; the same hook call still in
 * progress after the timeout stops the run the same way.  The hook path
 * itself makes no system call.
 */
/* sigaltstack, SA_ONSTACK: XSI, beyond the POSIX base the build asks for. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "guard.h"
#include "hookguard.h"
#include "units.h"

#define ALT_STACK_SIZE (64 * 1024)
#define MAX_FORGET 8

static const char *guard_cmd = "run";
static const char *forget[MAX_FORGET];
static int n_forget;

static const struct {
    int sig;
    const char *what;
} signals[] = {
    {SIGSEGV, "SIGSEGV (segmentation fault: a bad memory access, or a "
              "stack overflow)"},
    {SIGBUS, "SIGBUS (bus error: a bad memory access)"},
    {SIGFPE, "SIGFPE (arithmetic error, such as an integer division by "
             "zero)"},
    {SIGILL, "SIGILL (illegal instruction)"},
    {SIGABRT, "SIGABRT (abort: an assertion failed, or the plug-in called "
              "abort)"},
};
#define N_SIGNALS (sizeof signals / sizeof *signals)
static struct sigaction previous[N_SIGNALS];

/* ---- A message built without stdio ------------------------------------ */

typedef struct msgbuf {
    char s[8192]; /* a rerun command may hold a few paths */
    size_t n;
} msgbuf;

static void put(msgbuf *m, const char *s)
{
    for (; s && *s && m->n < sizeof m->s - 1; s++)
        m->s[m->n++] = *s;
    m->s[m->n] = '\0';
}

static void put_uint(msgbuf *m, uint64_t v, int min_digits)
{
    char d[24];
    int k = 0;
    do {
        d[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v || k < min_digits);
    while (k > 0 && m->n < sizeof m->s - 1)
        m->s[m->n++] = d[--k];
    m->s[m->n] = '\0';
}

/* "0.25 s" as "0.250 s": seconds to the nanosecond, trailing zeros
 * dropped but three decimals kept, as the other messages print them. */
static void put_seconds(msgbuf *m, double s)
{
    uint64_t ns = s > 0 ? (uint64_t)(s * 1e9 + 0.5) : 0;
    put_uint(m, ns / 1000000000u, 1);
    put(m, ".");
    uint64_t frac = ns % 1000000000u;
    int digits = 9;
    while (digits > 3 && frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    put_uint(m, frac, digits);
    put(m, " s");
}

/* "stormbench run: policy 'x' (from p) ", or "... plug-in p " while it
 * is loaded and its policy's name is not known yet. */
static void put_who(msgbuf *m, const hookguard_snapshot *g)
{
    put(m, "stormbench ");
    put(m, guard_cmd);
    if (g->policy == NULL) {
        put(m, ": policy plug-in ");
        put(m, g->origin);
        put(m, " ");
        return;
    }
    put(m, ": policy '");
    put(m, g->policy);
    put(m, "' (from ");
    put(m, g->origin);
    put(m, ") ");
}

static void put_when(msgbuf *m, const hookguard_snapshot *g)
{
    if (g->context) {
        put(m, g->context);
    } else if (g->now_s == HOOKGUARD_BEFORE_RUN) {
        put(m, "before the simulation started");
    } else if (g->now_s == HOOKGUARD_AFTER_RUN) {
        put(m, "after the simulation ended");
    } else {
        put(m, "at simulated time ");
        put_seconds(m, g->now_s);
    }
    if (g->run) {
        put(m, " in ");
        put(m, g->run);
    }
}

/* Set by the first thread to stop the run: when a plug-in crashes on
 * several threads at once (compare runs one per thread), one message is
 * written and the others wait for the exit. */
static atomic_flag stopping = ATOMIC_FLAG_INIT;

/* Remove the temporaries, say why, and how to see it again when one of
 * several runs crashed (compare: the seed and policy of the run), and
 * exit.  Async-signal-safe. */
static void stop(msgbuf *m, const hookguard_snapshot *g)
{
    if (atomic_flag_test_and_set(&stopping))
        for (;;)
            pause();
    for (int i = 0; i < n_forget; i++)
        if (forget[i] && forget[i][0])
            unlink(forget[i]);
    put(m, "; the run is stopped\n");
    if (g->rerun) {
        put(m, "stormbench ");
        put(m, guard_cmd);
        put(m, ": to run it alone: ");
        put(m, g->rerun);
        put(m, "\n");
    }
    size_t done = 0;
    while (done < m->n) {
        ssize_t w = write(STDERR_FILENO, m->s + done, m->n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    _exit(EXIT_PLUGIN);
}

/* ---- The crash handler --------------------------------------------------- */

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    size_t i = 0;
    while (i < N_SIGNALS - 1 && signals[i].sig != sig)
        i++;
    hookguard_snapshot g;
    if (hookguard_current(&g)) {
        msgbuf m = {.n = 0};
        put_who(&m, &g);
        put(&m, "crashed in ");
        put(&m, g.hook);
        put(&m, g.now_s < 0 || g.context ? ", " : " ");
        put_when(&m, &g);
        put(&m, ": ");
        put(&m, signals[i].what);
        stop(&m, &g);
    }
    /* Not a plug-in's: the action from before, and the fault again.  A
     * fault the kernel raised (si_code > 0) happens again on return from
     * the handler, with its true address, for a sanitizer to report; one
     * sent by kill() or abort() is sent again. */
    int saved = errno;
    sigaction(sig, &previous[i], NULL);
    if (si == NULL || si->si_code <= 0)
        raise(sig);
    errno = saved;
}

static void alt_stack_free(void *p)
{
    stack_t off = {.ss_flags = SS_DISABLE};
    sigaltstack(&off, NULL);
    free(p);
}

static pthread_key_t alt_key;
static pthread_once_t alt_once = PTHREAD_ONCE_INIT;

static void make_alt_key(void)
{
    if (pthread_key_create(&alt_key, alt_stack_free) != 0)
        alt_key = (pthread_key_t)-1;
}

/* hookguard_on_new_thread: an alternate stack for a thread that has none
 * (a thread of the comparison runner), freed when the thread exits. */
static void thread_alt_stack(void)
{
    stack_t cur;
    if (sigaltstack(NULL, &cur) != 0 || !(cur.ss_flags & SS_DISABLE))
        return;
    pthread_once(&alt_once, make_alt_key);
    if (alt_key == (pthread_key_t)-1)
        return;
    stack_t st = {.ss_sp = malloc(ALT_STACK_SIZE), .ss_size = ALT_STACK_SIZE};
    if (st.ss_sp == NULL)
        return;
    if (sigaltstack(&st, NULL) != 0 ||
        pthread_setspecific(alt_key, st.ss_sp) != 0) {
        alt_stack_free(st.ss_sp);
        return;
    }
}

void cli_guard_install(const char *cmd)
{
    static char main_stack[ALT_STACK_SIZE];
    guard_cmd = cmd;
    stack_t st = {.ss_sp = main_stack, .ss_size = sizeof main_stack};
    sigaltstack(&st, NULL);
    hookguard_on_new_thread = thread_alt_stack;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_SIGNALS; i++)
        sigaction(signals[i].sig, &sa, &previous[i]);
}

void cli_guard_forget(const char *tmp)
{
    if (n_forget < MAX_FORGET)
        forget[n_forget++] = tmp;
}

/* ---- The watchdog ------------------------------------------------------- */

typedef struct watch {
    int64_t timeout_ns;
    char text[64]; /* the flag's value as the user wrote it */
} watch;

static watch the_watch;

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void stuck(const watch *w, const hookguard_snapshot *g)
{
    msgbuf m = {.n = 0};
    put_who(&m, g);
    put(&m, "has not returned from ");
    put(&m, g->hook);
    put(&m, " within --hook-timeout ");
    put(&m, w->text);
    put(&m, " (called ");
    put_when(&m, g);
    put(&m, ")");
    stop(&m, g);
}

/* Sleep a quarter of the timeout (1 ms to 100 ms), look at every record:
 * a hook call (an odd counter) seen with the same count for the whole
 * timeout is stuck.  So a hang is stopped between the timeout and a
 * quarter more. */
static void *watch_main(void *arg)
{
    const watch *w = arg;
    static unsigned long seen[HOOKGUARD_MAX_THREADS];
    static int64_t since[HOOKGUARD_MAX_THREADS];
    int64_t period = w->timeout_ns / 4;
    if (period < 1000000)
        period = 1000000;
    if (period > 100000000)
        period = 100000000;
    struct timespec nap = {(time_t)(period / 1000000000),
                           (long)(period % 1000000000)};
    static hookguard_snapshot g[HOOKGUARD_MAX_THREADS];
    for (;;) {
        nanosleep(&nap, NULL);
        int64_t now = mono_ns();
        int n = hookguard_scan(g, HOOKGUARD_MAX_THREADS);
        for (int k = 0; k < n; k++) {
            int s = g[k].slot;
            if (seen[s] != g[k].entries) {
                seen[s] = g[k].entries;
                since[s] = now;
            } else if (now - since[s] >= w->timeout_ns) {
                stuck(w, &g[k]);
            }
        }
    }
    return NULL;
}

int cli_guard_watch(int64_t timeout_ns, const char *text, sb_err *e)
{
    the_watch.timeout_ns = timeout_ns;
    size_t n = strlen(text);
    if (n >= sizeof the_watch.text)
        n = sizeof the_watch.text - 1;
    memcpy(the_watch.text, text, n);
    the_watch.text[n] = '\0';
    pthread_t th;
    int rc = pthread_create(&th, NULL, watch_main, &the_watch);
    if (rc != 0)
        return err_set(e,
                       "--hook-timeout: cannot start the watchdog "
                       "thread: %s",
                       strerror(rc));
    pthread_detach(th);
    return 0;
}
