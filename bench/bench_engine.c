/*
 * bench_engine.c -- simulated requests per CPU second of the full engine,
 * against a plain C loop of the same model (ref_model.h).
 *
 * For N = 1k, 10k, 100k and 1M clients it runs one retry storm (the same
 * total load at every N, so only the number of clients -- and with it the
 * number of pending events -- changes) three ways, each in a child process
 * of its own so that its CPU time and peak RSS are its own:
 *
 *   model     the full engine on the scenario below (sim_create + run)
 *   ref heap  the reference loop on a plain 4-ary heap
 *   ref evq   the reference loop on the engine's event queue
 *
 * and prints logical requests simulated per CPU second (getrusage user +
 * system: the machines are shared, wall time measures the neighbours), the
 * ratio model / reference, and peak RSS per client.  Requests, not events:
 * the engine takes more events per request than the plain loop (a retry
 * is an event of its own, for one), so events per second would flatter it.
 * Each cell is run --runs times, interleaved, and shown as best/median;
 * ratios are taken run by run (the model and the reference ran seconds
 * apart) and shown as worst/median.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "args.h"
#include "ref_model.h"
#include "scenario.h"
#include "sim.h"

/* The storm: 20 000 requests/s offered to 2 500 workers of exp(100 ms)
 * (capacity 25 000/s, utilization 0.8), a 5 s black-hole outage at 10 s,
 * immediate retries up to 3 attempts with a 1 s timeout, 1 ms each way on
 * the network; 30 s simulated.  Per-client rate: 20 000 / N. */
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
#define MAX_COUNTS 16
#define MAX_RUNS 9

enum { K_MODEL, K_HEAP, K_EVQ, N_KINDS };
static const char *const kind_name[N_KINDS] = {"model", "ref heap", "ref evq"};

/* What a child measured. */
typedef struct measure {
    double cpu_s;
    long rss_kb, rss_base_kb;
    uint64_t requests, attempts, successes, timeouts, events;
} measure;

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static long rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* The full model: load the scenario (not timed), then create the sim --
 * which sets up every client and its first arrival -- and run it. */
static int run_model(long clients, measure *m)
{
    char ini[2048];
    snprintf(ini, sizeof ini, storm_fmt, DURATION_S, clients,
             TOTAL_RATE / (double)clients);
    char path[] = "/tmp/stormbench-bench-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    ssize_t len = (ssize_t)strlen(ini);
    ssize_t put = write(fd, ini, (size_t)len);
    close(fd);
    static scenario sc;
    sb_err e;
    policy_setup ps;
    sim *s = NULL;
    int rc = put == len ? scenario_load(path, NULL, 0, &sc, &e) : -1;
    unlink(path);
    if (rc != 0 || policy_setup_build(sc.policy, NULL, 0, sc.settings,
                                      sc.n_settings, &ps, &e) != 0) {
        fprintf(stderr, "bench: %s\n", rc == 0 ? e.msg : "cannot load");
        return -1;
    }
    m->rss_base_kb = rss_kb();
    double t0 = cpu_s();
    if (sim_create(&sc.cfg, ps.stack, &s, &e) != 0) {
        fprintf(stderr, "bench: %s\n", e.msg);
        return -1;
    }
    if (sim_run_until(s, sc.cfg.duration_ns) != 0) {
        fprintf(stderr, "bench: %s\n", sim_error(s));
        return -1;
    }
    m->cpu_s = cpu_s() - t0;
    m->rss_kb = rss_kb();
    sim_stats st;
    sim_get_stats(s, &st);
    sim_finish(s);
    const metrics_bucket *t = &sim_metrics(s)->total.sum;
    m->requests = t->offered;
    m->attempts = t->attempts;
    m->successes = t->successes;
    m->timeouts = t->timeouts;
    m->events = st.events;
    sim_destroy(s);
    policy_setup_free(&ps);
    return 0;
}

static int run_ref(int kind, long clients, measure *m)
{
    ref_params p = {
        .clients = (uint32_t)clients,
        .rate_per_s = TOTAL_RATE,
        .duration_ns = DURATION_S * NS_PER_S,
        .timeout_ns = NS_PER_S,
        .net_ns = NS_PER_S / 1000,
        .service_mean_ns = NS_PER_S / 10,
        .workers = 2500,
        .max_attempts = 3,
        .outage_start_ns = 10 * NS_PER_S,
        .outage_ns = 5 * NS_PER_S,
        .seed = 1, /* the scenario's default seed */
    };
    ref_result r;
    m->rss_base_kb = rss_kb();
    double t0 = cpu_s();
    int rc = kind == K_HEAP ? ref_run_heap(&p, &r) : ref_run_evq(&p, &r);
    m->cpu_s = cpu_s() - t0;
    m->rss_kb = rss_kb();
    m->requests = r.requests;
    m->attempts = r.attempts;
    m->successes = r.successes;
    m->timeouts = r.timeouts;
    m->events = r.events;
    return rc;
}

static int child(int kind, long clients, int out_fd)
{
    measure m;
    memset(&m, 0, sizeof m);
    int rc =
        kind == K_MODEL ? run_model(clients, &m) : run_ref(kind, clients, &m);
    if (rc != 0)
        return 1;
    return write(out_fd, &m, sizeof m) == (ssize_t)sizeof m ? 0 : 1;
}

/* Run one measurement in a child process of its own. */
static int run_one(int kind, long clients, measure *m)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fds[0]);
        _exit(child(kind, clients, fds[1]));
    }
    close(fds[1]);
    ssize_t got = read(fds[0], m, sizeof *m);
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return got == (ssize_t)sizeof *m && WIFEXITED(status) &&
                   WEXITSTATUS(status) == 0
               ? 0
               : -1;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n values (sorted in place); the lower middle when even. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return v[(n - 1) / 2];
}

static double smallest(const double *v, int n)
{
    double x = v[0];
    for (int i = 1; i < n; i++)
        x = v[i] < x ? v[i] : x;
    return x;
}

static double largest(const double *v, int n)
{
    double x = v[0];
    for (int i = 1; i < n; i++)
        x = v[i] > x ? v[i] : x;
    return x;
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: bench_engine [--runs R] [CLIENTS...]\n"
            "\n"
            "Simulated requests per CPU second of the full engine and of a\n"
            "plain C loop of the same model (bench/ref_model.h), on a retry\n"
            "storm with %.0f requests/s offered in all, %d s simulated.\n"
            "Each cell runs R times (default 3, at most %d) in a child\n"
            "process of its own; CLIENTS defaults to 1000 10000 100000\n"
            "1000000.\n"
            "\n"
            "  --runs R    measurements per cell\n"
            "  --only K    run only model, heap or evq, once per N, and\n"
            "              print its counts (for callgrind: see README)\n"
            "  -h, --help  this help\n",
            TOTAL_RATE, DURATION_S, MAX_RUNS);
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_args(int argc, char **argv, long *counts, int *n, int *runs,
                      int *only)
{
    long def[] = {1000, 10000, 100000, 1000000};
    *n = 0;
    *runs = 3;
    *only = -1;
    for (int i = 1; i < argc; i++) {
        long v;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(argv[i], "--runs") && i + 1 < argc &&
                   parse_long(argv[i + 1], 1, MAX_RUNS, &v) == 0) {
            *runs = (int)v;
            i++;
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            for (int k = 0; k < N_KINDS; k++)
                if (!strcmp(argv[i + 1], k == K_MODEL  ? "model"
                                         : k == K_HEAP ? "heap"
                                                       : "evq"))
                    *only = k;
            if (*only < 0) {
                fprintf(stderr, "bench_engine: --only model|heap|evq\n");
                return -1;
            }
            i++;
        } else if (*n < MAX_COUNTS &&
                   parse_long(argv[i], 1, 100000000, &v) == 0) {
            counts[(*n)++] = v;
        } else {
            fprintf(stderr, "bench_engine: bad argument '%s'\n", argv[i]);
            usage(stderr);
            return -1;
        }
    }
    if (*n == 0) {
        memcpy(counts, def, sizeof def);
        *n = 4;
    }
    return 0;
}

static void print_header(int runs)
{
    printf("stormbench engine benchmark: retry storm, %.0f requests/s "
           "offered, %d s simulated,\nsingle thread, %d run%s per cell "
           "(best/median; ratios worst/median)\n\n",
           TOTAL_RATE, DURATION_S, runs, runs > 1 ? "s" : "");
    printf("%9s %8s | %15s | %15s %11s | %15s %11s | %15s\n", "", "", "model",
           "ref heap", "model/heap", "ref evq", "model/evq",
           "peak RSS B/client");
    printf("%9s %8s | %15s | %15s %11s | %15s %11s | %5s %4s %4s\n", "clients",
           "requests", "k req/CPU-s", "k req/CPU-s", "", "k req/CPU-s", "",
           "model", "heap", "evq");
}

/* One row: speeds best/median, ratios worst/median over the paired runs. */
static void print_row(long clients, measure m[][N_KINDS], int runs)
{
    double speed[N_KINDS][MAX_RUNS], ratio[2][MAX_RUNS];
    for (int r = 0; r < runs; r++) {
        for (int k = 0; k < N_KINDS; k++)
            speed[k][r] = (double)m[r][k].requests / m[r][k].cpu_s / 1e3;
        ratio[0][r] = speed[K_MODEL][r] / speed[K_HEAP][r];
        ratio[1][r] = speed[K_MODEL][r] / speed[K_EVQ][r];
    }
    double rss[N_KINDS];
    for (int k = 0; k < N_KINDS; k++)
        rss[k] = (double)m[0][k].rss_kb * 1024.0 / (double)clients;
    double best[N_KINDS], med[N_KINDS], worst[2], mr[2];
    for (int k = 0; k < N_KINDS; k++) {
        best[k] = largest(speed[k], runs);
        med[k] = median(speed[k], runs);
    }
    for (int i = 0; i < 2; i++) {
        worst[i] = smallest(ratio[i], runs);
        mr[i] = median(ratio[i], runs);
    }
    printf("%9ld %8llu | %7.0f/%-7.0f | %7.0f/%-7.0f %5.2f/%-5.2f | "
           "%7.0f/%-7.0f %5.2f/%-5.2f | %5.0f %4.0f %4.0f\n",
           clients, (unsigned long long)m[0][K_MODEL].requests, best[0], med[0],
           best[1], med[1], worst[0], mr[0], best[2], med[2], worst[1], mr[1],
           rss[0], rss[1], rss[2]);
}

/* The same model should do the same work: its counts next to the
 * reference's (they differ only where events tie, which the plain heap
 * breaks in its own order). */
static void print_check(const long *counts, int n,
                        measure all[][MAX_RUNS][N_KINDS])
{
    printf("\nSame work? Counts of the first run (requests / attempts / "
           "successes / timeouts; events per request):\n");
    for (int i = 0; i < n; i++)
        for (int k = 0; k < N_KINDS; k++) {
            const measure *m = &all[i][0][k];
            printf("%9ld %-8s %8llu %8llu %8llu %8llu   %.2f\n", counts[i],
                   kind_name[k], (unsigned long long)m->requests,
                   (unsigned long long)m->attempts,
                   (unsigned long long)m->successes,
                   (unsigned long long)m->timeouts,
                   (double)m->events / (double)m->requests);
        }
}

/* One kind at each N, in this process (for callgrind). */
static int run_only(int kind, const long *counts, int n)
{
    for (int i = 0; i < n; i++) {
        measure m;
        memset(&m, 0, sizeof m);
        if ((kind == K_MODEL ? run_model(counts[i], &m)
                             : run_ref(kind, counts[i], &m)) != 0)
            return 1;
        printf("%ld clients, %s: %llu requests, %llu events, %.2f CPU s\n",
               counts[i], kind_name[kind], (unsigned long long)m.requests,
               (unsigned long long)m.events, m.cpu_s);
    }
    return 0;
}

int main(int argc, char **argv)
{
    long counts[MAX_COUNTS];
    int n, runs, only;
    if (parse_args(argc, argv, counts, &n, &runs, &only) != 0)
        return 2;
    if (only >= 0)
        return run_only(only, counts, n);
    static measure all[MAX_COUNTS][MAX_RUNS][N_KINDS];
    for (int r = 0; r < runs; r++)
        for (int i = 0; i < n; i++)
            for (int k = 0; k < N_KINDS; k++)
                if (run_one(k, counts[i], &all[i][r][k]) != 0) {
                    fprintf(stderr,
                            "bench_engine: %s at %ld clients "
                            "failed\n",
                            kind_name[k], counts[i]);
                    return 1;
                }
    print_header(runs);
    for (int i = 0; i < n; i++)
        print_row(counts[i], all[i], runs);
    print_check(counts, n, all);
    printf("\nk req/CPU-s: thousands of logical requests simulated per "
           "second of CPU time.\nmodel/heap, model/evq: the model's speed "
           "over the reference loop's, run by run\n(goals: >= 1 against "
           "the heap, >= 0.8 against evq).  Peak RSS / clients,\nfirst "
           "run: at small N mostly the storm's own state and the "
           "process itself.\n");
    return 0;
}
