/*
 * bench_engine.c -- how fast the engine runs, and how close it comes to
 * the limit of its design.
 *
 * For N = 1k, 10k, 100k and 1M clients it runs the full model on a retry
 * storm with the same total load at every N (so only the number of
 * clients, and with it the number of pending events, changes), and then a
 * bare reference loop: the same 4-ary heap holding the same number of
 * pending events, where each handler only pushes the next event (the
 * classic "hold" benchmark for priority queues).  The bare loop is the
 * most any engine built on this heap could do; the ratio says how much
 * the model costs on top of it.
 *
 * Each N runs in a child process so its peak RSS is its own.  Prints one
 * table; takes no options but an optional list of client counts.
 * Figures vary with the machine: compare ratios within one run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "event_queue.h"
#include "rng.h"
#include "scenario.h"
#include "sim.h"

/* The storm: 20 000 requests/s offered to 2 500 workers of exp(100 ms)
 * (capacity 25 000/s, utilization 0.8), a 5 s black-hole outage at 10 s,
 * immediate retries up to 3 attempts with a 1 s timeout.  Per-client rate
 * is 20 000 / N. */
static const char storm_fmt[] =
    "[scenario]\nname = bench-storm\nduration = %ds\nwarmup = 5s\n"
    "[clients]\ncount = %ld\nrate = %.9g/s\nread = 0.8\nput = 0.1\n"
    "post = 0.1\ntimeout = 1s\n"
    "[server]\nworkers = 2500\nservice = exp(100ms)\n"
    "network_delay = const(1ms)\n"
    "[policy]\nname = immediate\nmax_attempts = 3\n"
    "[fault.outage]\ntype = outage\nstart = 10s\nduration = 5s\n"
    "mode = blackhole\n";

#define TOTAL_RATE 20000.0
#define DURATION_S 30

typedef struct result {
    long clients;
    double wall_s, events, pending_mean, heap_mean;
    double bare_wall_s, bare_events;
    long rss_kb, rss_base_kb;
} result;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

typedef struct pending_probe {
    double sum, heap_sum;
    long samples;
} pending_probe;

static void probe(void *ctx, const sim *s, const metrics_bucket *b,
                  const metrics_hist *h)
{
    (void)b;
    (void)h;
    pending_probe *p = ctx;
    sim_stats st;
    sim_get_stats(s, &st);
    p->sum += (double)st.queue_len;
    p->heap_sum += (double)st.heap_len;
    p->samples++;
}

static int full_model(long clients, result *r)
{
    char ini[2048];
    snprintf(ini, sizeof ini, storm_fmt, DURATION_S, clients,
             TOTAL_RATE / (double)clients);
    char path[] = "/tmp/stormbench-bench-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, ini, strlen(ini)) != (ssize_t)strlen(ini))
        return -1;
    close(fd);
    static scenario sc;
    sb_err e;
    policy_setup ps;
    sim *s = NULL;
    int rc = scenario_load(path, NULL, 0, &sc, &e);
    unlink(path);
    if (rc != 0 || policy_setup_build(sc.policy, NULL, 0, sc.settings,
                                      sc.n_settings, &ps, &e) != 0) {
        fprintf(stderr, "bench: %s\n", e.msg);
        return -1;
    }
    if (sim_create(&sc.cfg, ps.stack, &s, &e) != 0) {
        fprintf(stderr, "bench: %s\n", e.msg);
        return -1;
    }
    pending_probe p = {0, 0, 0};
    sim_observer o = {&p, probe, NULL};
    sim_observe(s, &o);
    double t0 = now_s();
    if (sim_run_until(s, sc.cfg.duration_ns) != 0) {
        fprintf(stderr, "bench: %s\n", sim_error(s));
        return -1;
    }
    r->wall_s = now_s() - t0;
    sim_stats st;
    sim_get_stats(s, &st);
    r->events = (double)st.events;
    r->pending_mean = p.samples ? p.sum / (double)p.samples : 0;
    r->heap_mean = p.samples ? p.heap_sum / (double)p.samples : 0;
    r->rss_kb = rss_kb();
    sim_destroy(s);
    policy_setup_free(&ps);
    return 0;
}

/* The hold model: n pending events in the heap, n = the mean number the
 * full model kept in its heap (its timeouts, in the FIFO lane, are left
 * out: that only makes the bare loop faster and the ratio stricter); each
 * step pops the earliest and pushes one at now + Exp(mean), mean chosen so
 * that event times spread like the model's (n pending events at the
 * model's event rate). */
static void bare_loop(const result *full, result *r)
{
    evq q;
    size_t n = (size_t)(full->heap_mean > 1 ? full->heap_mean : 1);
    double rate = full->events / DURATION_S;
    double mean_ns = (double)n / rate * 1e9;
    evq_init(&q, n + 16);
    uint64_t key = rng_key(99, 0, 1), ctr = 0;
    for (size_t i = 0; i < n; i++)
        evq_push(&q, (int64_t)rng_exponential(rng_at(key, ctr++), mean_ns), 1,
                 (uint32_t)i, 0);
    long steps = (long)full->events;
    uint64_t sink = 0;
    double t0 = now_s();
    for (long i = 0; i < steps; i++) {
        evq_event ev;
        evq_pop(&q, &ev);
        sink += ev.id;
        int64_t dt = (int64_t)rng_exponential(rng_at(key, ctr++), mean_ns);
        evq_push(&q, ev.time + dt, 1, ev.id, ev.gen);
    }
    r->bare_wall_s = now_s() - t0;
    r->bare_events = (double)steps;
    if (sink == 42)
        puts(""); /* keep the loop from being optimised away */
    evq_fini(&q);
}

static int child(long clients, int out_fd)
{
    result r;
    memset(&r, 0, sizeof r);
    r.clients = clients;
    r.rss_base_kb = rss_kb();
    if (full_model(clients, &r) != 0)
        return 1;
    bare_loop(&r, &r);
    return write(out_fd, &r, sizeof r) == (ssize_t)sizeof r ? 0 : 1;
}

static int run_one(long clients, result *r)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        _exit(child(clients, fds[1]));
    }
    close(fds[1]);
    ssize_t got = read(fds[0], r, sizeof *r);
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return got == (ssize_t)sizeof *r && WIFEXITED(status) &&
                   WEXITSTATUS(status) == 0
               ? 0
               : -1;
}

int main(int argc, char **argv)
{
    long def[] = {1000, 10000, 100000, 1000000};
    long counts[16];
    int n = 0;
    for (int i = 1; i < argc && n < 16; i++)
        counts[n++] = atol(argv[i]);
    if (n == 0) {
        memcpy(counts, def, sizeof def);
        n = 4;
    }
    printf("stormbench engine benchmark: retry storm, %.0f requests/s "
           "offered, %d s simulated, single thread\n\n",
           TOTAL_RATE, DURATION_S);
    printf("%9s %11s %9s %8s %9s %9s | %9s %8s | %6s | %9s %9s\n",
           "clients", "events", "M ev/s", "ns/ev", "in heap", "in FIFO",
           "bare M/s", "bare ns", "ratio", "RSS B/cl", "+RSS B/cl");
    for (int i = 0; i < n; i++) {
        result r;
        if (run_one(counts[i], &r) != 0) {
            printf("%9ld  failed\n", counts[i]);
            return 1;
        }
        double eps = r.events / r.wall_s, bare = r.bare_events / r.bare_wall_s;
        printf("%9ld %11.0f %9.2f %8.1f %9.0f %9.0f | %9.2f %8.1f | %6.2f | "
               "%9.0f %9.0f\n",
               r.clients, r.events, eps / 1e6, 1e9 / eps, r.heap_mean,
               r.pending_mean - r.heap_mean,
               bare / 1e6, 1e9 / bare, eps / bare,
               (double)r.rss_kb * 1024.0 / (double)r.clients,
               (double)(r.rss_kb - r.rss_base_kb) * 1024.0 /
                   (double)r.clients);
        fflush(stdout);
    }
    printf("\nratio = full model events/s / bare loop events/s (target >= "
           "0.5).\nRSS B/cl = peak RSS / clients; +RSS excludes the "
           "process's RSS before the run.\n");
    return 0;
}
