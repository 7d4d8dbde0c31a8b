/*
 * bench_clone.c -- what one copy of a running simulation costs (sim_clone,
 * the risk estimate's branch point), at 1k, 10k and 100k clients.
 *
 * The run is bench_engine's storm (20 000 requests/s at every N, 2 500
 * workers, immediate retries, a 5 s black-hole outage from 10 s), stopped
 * at 12 s, in the outage, where the queue holds the most: every attempt
 * of the outage is pending (its timeout), the server's queue is full of
 * retries.  At that point it prints, per N: the engine's memory and
 * pending events, the CPU time of one copy (the best and the median of
 * --copies copies, each destroyed at once), the copy's speed in MB/s, and
 * the copy's cost in simulated time: how many milliseconds of the run
 * itself (at its mean speed from 0 to 12 s) the same CPU buys, and its
 * share of replaying the run to the branch point.  The last is the figure
 * splitting cares about: a branch is worth it when the copy costs less
 * than the replay it saves.
 * CPU time (getrusage): the machines are shared.
 *
 *   ./build/bench/bench_clone [--copies K]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "policy_setup.h"
#include "scenario.h"
#include "sim.h"
#include "units.h"

static const char storm_fmt[] =
    "[scenario]\nname = bench-storm\nduration = 30s\nwarmup = 5s\n"
    "[clients]\ncount = %ld\nrate = %.9g/s\nread = 0.8\nput = 0.1\n"
    "post = 0.1\ntimeout = 1s\n"
    "[server]\nworkers = 2500\nservice = exp(100ms)\n"
    "network_delay = const(1ms)\n"
    "[policy]\nname = immediate\nmax_attempts = 3\n"
    "[fault.outage]\ntype = outage\nstart = 10s\nduration = 5s\n"
    "mode = blackhole\n";

#define TOTAL_RATE 20000.0
#define BRANCH_S 12
#define MAX_COPIES 101

static double cpu_s(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec / 1e6 +
           (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int load(long clients, scenario *sc, policy_setup *ps)
{
    char ini[2048];
    snprintf(ini, sizeof ini, storm_fmt, clients, TOTAL_RATE / (double)clients);
    char path[] = "/tmp/stormbench-bench-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    ssize_t len = (ssize_t)strlen(ini);
    ssize_t put = write(fd, ini, (size_t)len);
    close(fd);
    sb_err e;
    int rc = put == len ? scenario_load(path, NULL, 0, sc, &e) : -1;
    unlink(path);
    if (rc != 0 || policy_setup_build(sc->policy, NULL, 0, sc->settings,
                                      sc->n_settings, ps, &e) != 0) {
        fprintf(stderr, "bench: %s\n", rc == 0 ? e.msg : "cannot load");
        return -1;
    }
    return 0;
}

static int one(long clients, int copies)
{
    static scenario sc;
    policy_setup ps;
    sb_err e;
    sim *s = NULL;
    if (load(clients, &sc, &ps) != 0)
        return -1;
    double t0 = cpu_s();
    if (sim_create(&sc.cfg, ps.stack, &s, &e) != 0 ||
        sim_run_until(s, BRANCH_S * NS_PER_S) != 0) {
        fprintf(stderr, "bench: %s\n", s ? sim_error(s) : e.msg);
        return -1;
    }
    double to_branch = cpu_s() - t0;
    double took[MAX_COPIES];
    for (int i = 0; i < copies; i++) {
        sim *c = NULL;
        double c0 = cpu_s();
        if (sim_clone(s, NULL, &c, &e) != 0) {
            fprintf(stderr, "bench: %s\n", e.msg);
            return -1;
        }
        took[i] = cpu_s() - c0;
        sim_destroy(c);
    }
    qsort(took, (size_t)copies, sizeof *took, cmp_double);
    sim_stats st;
    sim_get_stats(s, &st);
    double med = took[copies / 2];
    printf("%7ld  %8.1f  %9zu  %9llu  %9.2f  %9.2f  %7.0f  %9.1f  %7.4f\n",
           clients, (double)st.bytes / 1e6, st.queue_len,
           (unsigned long long)st.requests_live, took[0] * 1e3, med * 1e3,
           (double)st.bytes / 1e6 / med, med / to_branch * BRANCH_S * 1e3,
           med / to_branch);
    sim_destroy(s);
    policy_setup_free(&ps);
    return 0;
}

int main(int argc, char **argv)
{
    int copies = 21;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "--copies") == 0 && i + 1 < argc) {
            long k = strtol(argv[++i], &end, 10);
            copies = *end == '\0' && k > 0 && k <= MAX_COPIES ? (int)k : 0;
        } else {
            fprintf(stderr, "usage: bench_clone [--copies K]\n");
            return 2;
        }
    }
    if (copies < 1 || copies > MAX_COPIES) {
        fprintf(stderr, "bench_clone: --copies takes 1 to %d\n", MAX_COPIES);
        return 2;
    }
    printf("One copy of the storm at %d s (in the outage), %d copies each; "
           "CPU time.\n",
           BRANCH_S, copies);
    printf("%7s  %8s  %9s  %9s  %9s  %9s  %7s  %9s  %7s\n", "clients",
           "MB held", "events", "requests", "best ms", "median ms", "MB/s",
           "= sim ms", "/replay");
    static const long counts[] = {1000, 10000, 100000};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (one(counts[i], copies) != 0)
            return 1;
    printf("= sim ms: simulated milliseconds of the run that the median "
           "copy's CPU time buys (at the run's mean speed, 0 to 12 s).\n"
           "/replay: the median copy's CPU time over replaying the run to "
           "the branch point.\n");
    return 0;
}
