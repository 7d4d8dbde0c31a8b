/*
 * bench_compare.c -- what a batch of short runs costs in a comparison:
 * the OCC hot-record study of Marc Brooker's "Exponential Backoff And
 * Jitter" (AWS Architecture Blog, 2015) as `stormbench compare` plans
 * it -- scenarios/hot-record.ini at 19 client counts (5 to 95 by 5),
 * 5 policies (exponential backoff with no, full, equal and decorrelated
 * jitter, and immediate retries), 100 seeds: 9 500 runs -- run in process
 * with compare_execute, every run saved under DIR/runs/.
 *
 * It prints the wall and CPU time of the comparison, runs per second,
 * and the overhead per run against the engine's own time: the same runs
 * done bare (sim_create, run, summary; no reduction, no file) on one
 * thread -- a thread of its own, as compare's worker is (-j 1), so that
 * both sides allocate from a thread's arena and run beside an idle main
 * thread.  For each side: page faults and context switches per run
 * (getrusage), and where the machine has hardware counters
 * (perf_event_open; not in most VMs) cycles and instructions per run in
 * user space, and the overhead by each: cycles are what CPU time counts
 * without the neighbours' noise, instructions what callgrind counts.
 * Then "same work?": the requests, attempts and successes of all the
 * runs on each side (the compare side's from its saved records), which
 * must agree to the request.  Then the time to load the 9 500 saved runs,
 * compute the statistics and write runs.csv, summary.md and
 * summary.json.
 *
 *   bench_compare [-j JOBS] [--seeds N] [--repeat R] [--dir DIR]
 *                 [--no-bare | --bare-only] [--bare-reuse] [--progress]
 *
 * --bare-reuse runs the bare side on one engine reused from run to run
 * (sim_reuse, as compare's workers do), not a new one per run: the
 * engine's own work without its creation.
 *
 * --no-bare and --bare-only run one side alone, for counting each side's
 * instructions with `perf stat -e instructions:u,instructions:k` (counts
 * do not depend on the neighbours, as times on a shared machine do).
 *
 * Each figure is the best of R repetitions (default 3), interleaved:
 * the machine is shared, and the best is the one least disturbed.  The
 * overhead is also given repetition by repetition (each compare against
 * the bare side run just before or after it; the sides take turns to go
 * first) with the median and range of those R figures: on a shared
 * machine that median is the figure to read, and the range says how far
 * to trust it.
 */
#define _GNU_SOURCE /* syscall, for perf_event_open */
#include <linux/perf_event.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "compare.h"
#include "policy_setup.h"
#include "scenario.h"
#include "sim.h"

#define SCENARIO SB_SOURCE_DIR "/scenarios/hot-record.ini"

static const char *const entries[][3] = {
    /* label, stack, the entry's own parameter */
    {"exponential:jitter=none", "exponential", "jitter=none"},
    {"exponential:jitter=full", "exponential", "jitter=full"},
    {"exponential:jitter=equal", "exponential", "jitter=equal"},
    {"exponential:jitter=decorrelated", "exponential", "jitter=decorrelated"},
    /* Immediate retries without the default cap of 5 attempts, so every
     * update commits: 100 + 99 + ... + 1 attempts at 100 clients. */
    {"immediate:max_attempts=1000", "immediate", "max_attempts=1000"},
};
#define N_ENTRIES (int)(sizeof entries / sizeof *entries)

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* ---- What one side cost ------------------------------------------------- */

/* Hardware counters of this process and the threads it starts after
 * counters_open (inherit: a thread's counts join the process's when it
 * exits, and both sides join their thread before reading).  User space
 * only: perf_event_paranoid 2, the usual setting, allows no more. */
static int hw_fd[2] = {-1, -1}; /* cycles, instructions */

static void counters_open(void)
{
    static const uint64_t config[2] = {PERF_COUNT_HW_CPU_CYCLES,
                                       PERF_COUNT_HW_INSTRUCTIONS};
    for (int i = 0; i < 2; i++) {
        struct perf_event_attr a;
        memset(&a, 0, sizeof a);
        a.size = sizeof a;
        a.type = PERF_TYPE_HARDWARE;
        a.config = config[i];
        a.exclude_kernel = 1;
        a.exclude_hv = 1;
        a.inherit = 1;
        hw_fd[i] = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    }
    if (hw_fd[0] < 0 || hw_fd[1] < 0) { /* both, or neither */
        for (int i = 0; i < 2; i++)
            if (hw_fd[i] >= 0)
                close(hw_fd[i]);
        hw_fd[0] = hw_fd[1] = -1;
    }
}

static uint64_t counter(int i)
{
    uint64_t v = 0;
    if (hw_fd[i] < 0 || read(hw_fd[i], &v, sizeof v) != (ssize_t)sizeof v)
        return 0;
    return v;
}

typedef struct cost {
    double cpu, sys;             /* s, user + system; system */
    double faults, switches;     /* page faults; context switches */
    double cycles, instructions; /* user space; 0: no counters */
} cost;

static void cost_now(cost *c)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    c->sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    c->cpu =
        (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + c->sys;
    c->faults = (double)ru.ru_minflt + (double)ru.ru_majflt;
    c->switches = (double)ru.ru_nvcsw + (double)ru.ru_nivcsw;
    c->cycles = (double)counter(0);
    c->instructions = (double)counter(1);
}

/* *c = what happened since *c was taken. */
static void cost_since(cost *c)
{
    cost now;
    cost_now(&now);
    c->cpu = now.cpu - c->cpu;
    c->sys = now.sys - c->sys;
    c->faults = now.faults - c->faults;
    c->switches = now.switches - c->switches;
    c->cycles = now.cycles - c->cycles;
    c->instructions = now.instructions - c->instructions;
}

/* Keep the repetition with the least CPU time: the least disturbed. */
static void cost_best(cost *best, const cost *c)
{
    if (c->cpu < best->cpu)
        *best = *c;
}

_Noreturn static void die(const char *what, const sb_err *e)
{
    fprintf(stderr, "bench_compare: %s: %s\n", what, e->msg);
    exit(1);
}

/* An entry as the CLI would fill it: the scenario's [policy] settings
 * when the stack is the scenario's own, then the entry's parameter. */
static void fill_policy(const scenario *sc, int i, compare_policy *cp)
{
    sb_err e;
    memset(cp, 0, sizeof *cp);
    snprintf(cp->label, sizeof cp->label, "%s", entries[i][0]);
    snprintf(cp->stack, sizeof cp->stack, "%s", entries[i][1]);
    if (strcmp(cp->stack, sc->policy) == 0)
        for (int k = 0; k < sc->n_settings; k++)
            cp->params[cp->n_params++] = sc->settings[k];
    if (setting_parse(entries[i][2], "bench", &cp->params[cp->n_params++],
                      &e) != 0)
        die(entries[i][0], &e);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = malloc(1 << 20);
    *len = buf ? fread(buf, 1, 1 << 20, f) : 0;
    fclose(f);
    return buf;
}

static void build_plan(compare_plan *p, uint32_t seeds)
{
    sb_err e;
    scenario *sc = malloc(sizeof *sc);
    if (sc == NULL || scenario_load(SCENARIO, NULL, 0, sc, &e) != 0)
        die(SCENARIO, &e);
    memset(p, 0, sizeof *p);
    snprintf(p->scenario, sizeof p->scenario, "%s", SCENARIO);
    snprintf(p->name, sizeof p->name, "%s", sc->cfg.name);
    for (int i = 0; i < N_ENTRIES; i++)
        fill_policy(sc, i, &p->policies[i]);
    p->n_policies = N_ENTRIES;
    p->seed0 = sc->cfg.seed;
    p->n_seeds = seeds;
    compare_axis *ax = &p->axes[0];
    snprintf(ax->key, sizeof ax->key, "clients.count");
    ax->from = 5;
    ax->to = 95;
    ax->step = 5;
    ax->n = 19;
    p->n_axes = 1;
    p->n_points = ax->n;
    p->points = calloc(p->n_points, sizeof *p->points);
    for (uint32_t k = 0; k < p->n_points; k++) {
        char set[64];
        const char *sets[1] = {set};
        p->points[k].value[0] = compare_axis_value(ax, k);
        p->points[k].index[0] = k;
        snprintf(set, sizeof set, "clients.count=%g", p->points[k].value[0]);
        if (scenario_load(SCENARIO, sets, 1, sc, &e) != 0)
            die(set, &e);
        p->points[k].cfg = sc->cfg;
    }
    size_t len;
    char *bytes = read_all(SCENARIO, &len);
    compare_plan_fingerprint(p, bytes, len);
    free(bytes);
    free(sc);
}

/* What the runs did, summed: the two sides must agree. */
typedef struct work {
    uint64_t offered, attempts, successes;
} work;

static void work_add(work *w, const sim_summary *s)
{
    w->offered += s->offered;
    w->attempts += s->attempts;
    w->successes += s->successes;
}

typedef struct bare_job {
    const compare_plan *plan;
    bool reuse;
    work done;
} bare_job;

/* The engine alone on every run of the plan. */
static void *bare_runs(void *arg)
{
    bare_job *j = arg;
    const compare_plan *p = j->plan;
    sim *kept = NULL;
    sim_config *cfg = malloc(sizeof *cfg);
    uint32_t cfg_point = 0; /* + 1, as compare's worker */
    memset(&j->done, 0, sizeof j->done);
    for (uint32_t r = 0; r < compare_n_runs(p); r++) {
        uint32_t pt, pol, sd;
        compare_run_at(p, r, &pt, &pol, &sd);
        /* The config copied when the point changes, as compare's worker
         * does (a copy per run was 174 kB on both sides). */
        if (cfg_point != pt + 1) {
            *cfg = p->points[pt].cfg;
            cfg_point = pt + 1;
        }
        cfg->seed = p->seed0 + sd;
        const compare_policy *cp = &p->policies[pol];
        policy_setup ps;
        sim *s;
        sim_summary sum;
        sb_err e;
        if (policy_setup_build(cp->stack, NULL, 0, cp->params, cp->n_params,
                               &ps, &e) != 0 ||
            (j->reuse ? sim_reuse(&kept, cfg, ps.stack, &e)
                      : sim_create(cfg, ps.stack, &kept, &e)) != 0)
            die(cp->label, &e);
        s = kept;
        sim_run_until(s, cfg->duration_ns);
        sim_finish(s);
        summary_compute(s, &sum);
        work_add(&j->done, &sum);
        if (!j->reuse) {
            sim_destroy(s);
            kept = NULL;
        }
        policy_setup_free(&ps);
    }
    sim_destroy(kept);
    free(cfg);
    return NULL;
}

/* The bare side on a thread of its own, as compare's -j 1 worker: what
 * it cost, and what the runs did. */
static void bare_once(const compare_plan *p, bool reuse, cost *c, work *w)
{
    bare_job j = {p, reuse, {0, 0, 0}};
    pthread_t t;
    cost_now(c);
    if (pthread_create(&t, NULL, bare_runs, &j) != 0) {
        fprintf(stderr, "bench_compare: cannot start a thread\n");
        exit(1);
    }
    pthread_join(t, NULL);
    cost_since(c);
    *w = j.done;
}

/* One comparison into a new directory: wall and CPU seconds.  Not one
 * emptied just before: for a minute or more after thousands of files
 * are deleted, ext4 searches past their inodes for each new file, and a
 * repetition would measure that (bench/README.md). */
static void execute_once(const compare_plan *p, const char *dir, int jobs,
                         FILE *progress, double *wall, cost *c)
{
    sb_err e;
    compare_opts o = {
        dir, jobs, NULL, 0, progress, NULL, {NULL, NULL, 0, NULL, 0}};
    double w0 = wall_s();
    cost_now(c);
    if (compare_execute(p, &o, &e) != 0)
        die("compare_execute", &e);
    cost_since(c);
    *wall = wall_s() - w0;
}

static void outputs(const compare_plan *p, const char *dir, work *done)
{
    const char *dirs[1] = {dir};
    compare_result *res;
    sb_err e;
    char path[1200];
    double w0 = wall_s(), c0 = cpu_s();
    if (compare_load(p, dirs, 1, &res, &e) != 0)
        die("compare_load", &e);
    double load_wall = wall_s() - w0;
    memset(done, 0, sizeof *done);
    for (uint32_t r = 0; r < compare_n_runs(p); r++)
        work_add(done, &res->runs[r].sum);
    static const char *const names[3] = {"runs.csv", "summary.md",
                                         "summary.json"};
    int (*const write[3])(const compare_result *, const char *, sb_err *) = {
        compare_write_csv, compare_write_md, compare_write_json};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (write[i](res, path, &e) != 0)
            die(path, &e);
    }
    printf("load + statistics  %6.2f s wall; with runs.csv, summary.md, "
           "summary.json %.2f s wall, %.2f s CPU\n",
           load_wall, wall_s() - w0, cpu_s() - c0);
    compare_result_free(res);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The overheads of the repetitions, each against its own bare side, in
 * order, then their median and range: the figure to read on a shared
 * machine (the best of each side, above, may come from different
 * minutes). */
static void overhead_by_pair(double *pct, int n)
{
    printf("  by repetition (compare against the engine alone run beside "
           "it): ");
    for (int k = 0; k < n; k++)
        printf("%s%.1f", k ? ", " : "", pct[k]);
    qsort(pct, (size_t)n, sizeof *pct, by_value);
    double median = n % 2 ? pct[n / 2] : (pct[n / 2 - 1] + pct[n / 2]) / 2;
    printf(" %%\n  median %.1f %%, from %.1f to %.1f %% (%d repetitions)\n",
           median, pct[0], pct[n - 1], n);
}

static unsigned long number(const char *flag, const char *v)
{
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    if (*v == '\0' || *end != '\0' || n < 1) {
        fprintf(stderr,
                "bench_compare: %s: expected a whole number of at "
                "least 1, got '%s'\n",
                flag, v);
        exit(2);
    }
    return n;
}

int main(int argc, char **argv)
{
    int jobs = 2, repeat = 3;
    uint32_t seeds = 100;
    const char *dir = "out/bench-compare";
    bool bare = true, execute = true, reuse = false;
    FILE *progress = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-j") == 0 && i + 1 < argc)
            jobs = (int)number("-j", argv[++i]);
        else if (strcmp(argv[i], "--seeds") == 0 && i + 1 < argc)
            seeds = (uint32_t)number("--seeds", argv[++i]);
        else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = (int)number("--repeat", argv[++i]);
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--no-bare") == 0)
            bare = false;
        else if (strcmp(argv[i], "--bare-reuse") == 0)
            reuse = true;
        else if (strcmp(argv[i], "--progress") == 0)
            progress = stderr;
        else if (strcmp(argv[i], "--bare-only") == 0)
            execute = false;
        else {
            fprintf(stderr, "usage: bench_compare [-j JOBS] [--seeds N] "
                            "[--repeat R] [--dir DIR] [--no-bare | "
                            "--bare-only] [--bare-reuse] [--progress]\n");
            return 2;
        }
    }
    compare_plan *p = malloc(sizeof *p);
    build_plan(p, seeds);
    uint32_t n = compare_n_runs(p);
    printf("hot-record: 19 client counts x %d policies x %u seeds = %u "
           "runs, %d threads, saved under %s/K/runs; best of %d\n",
           N_ENTRIES, seeds, n, jobs, dir, repeat);
    counters_open();
    double wall = INFINITY;
    cost cmp = {INFINITY, 0, 0, 0, 0, 0}, eng = cmp;
    work cmp_work, eng_work = {0, 0, 0};
    char rep[1100], cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    /* Each repetition's overhead, compare against the bare side run just
     * before or after it: the load of a shared machine moves both alike
     * within seconds, not between minutes. */
    double *pair = calloc((size_t)repeat, sizeof *pair);
    if (pair == NULL)
        return 1;
    for (int k = 0; k < repeat; k++) {
        double w;
        cost c, one_cmp = {0, 0, 0, 0, 0, 0}, one_eng = one_cmp;
        snprintf(rep, sizeof rep, "%s/%d", dir, k);
        /* Sides in turn first, so that neither always follows the other
         * (a cache, a frequency, a neighbour's build starting). */
        for (int side = 0; side < 2; side++) {
            if ((side == k % 2) && execute) {
                execute_once(p, rep, jobs, progress, &w, &c);
                wall = fmin(wall, w);
                cost_best(&cmp, &c);
                one_cmp = c;
            }
            if ((side != k % 2) && bare) {
                bare_once(p, reuse, &c, &eng_work);
                cost_best(&eng, &c);
                one_eng = c;
            }
        }
        pair[k] = 100.0 * (one_cmp.cpu - one_eng.cpu) / one_eng.cpu;
    }
    if (execute)
        printf("compare_execute    %6.2f s wall  %6.2f s CPU (%.2f s in the "
               "kernel)  %6.0f runs/s  %5.0f us CPU per run\n",
               wall, cmp.cpu, cmp.sys, n / wall, cmp.cpu / n * 1e6);
    if (bare)
        printf("engine alone                     %6.2f s CPU  (its own "
               "thread; no reduction, no file; %s)  %5.0f us per run\n",
               eng.cpu, reuse ? "one engine reused" : "a new engine per run",
               eng.cpu / n * 1e6);
    if (bare && execute)
        printf("overhead                         %6.2f s CPU  %.0f us per "
               "run, %.0f %% of the engine's time\n",
               cmp.cpu - eng.cpu, (cmp.cpu - eng.cpu) / n * 1e6,
               100.0 * (cmp.cpu - eng.cpu) / eng.cpu);
    if (bare && execute)
        overhead_by_pair(pair, repeat);
    free(pair);
    const cost *side[2] = {execute ? &cmp : NULL, bare ? &eng : NULL};
    static const char *const side_name[2] = {"compare", "engine alone"};
    for (int i = 0; i < 2; i++)
        if (side[i])
            printf("  %-13s per run: %.1f page faults, %.2f context "
                   "switches\n",
                   side_name[i], side[i]->faults / n, side[i]->switches / n);
    if (hw_fd[0] < 0) {
        printf("  cycles, instructions: no hardware counters here "
               "(perf_event_open)\n");
    } else {
        for (int i = 0; i < 2; i++)
            if (side[i])
                printf("  %-13s per run: %.0f k cycles, %.0f k instructions "
                       "(user space; %.2f per cycle)\n",
                       side_name[i], side[i]->cycles / n / 1e3,
                       side[i]->instructions / n / 1e3,
                       side[i]->instructions / side[i]->cycles);
        if (bare && execute)
            printf("  overhead by cycles %.1f %%, by instructions %.1f %%\n",
                   100.0 * (cmp.cycles - eng.cycles) / eng.cycles,
                   100.0 * (cmp.instructions - eng.instructions) /
                       eng.instructions);
    }
    if (!execute)
        return 0;
    printf("the result holds %zu bytes per run: %.1f MB for these runs\n",
           sizeof(compare_run), (double)n * sizeof(compare_run) / 1e6);
    outputs(p, rep, &cmp_work);
    if (bare)
        printf("same work? requests %llu / %llu, attempts %llu / %llu, "
               "successes %llu / %llu (compare / engine alone): %s\n",
               (unsigned long long)cmp_work.offered,
               (unsigned long long)eng_work.offered,
               (unsigned long long)cmp_work.attempts,
               (unsigned long long)eng_work.attempts,
               (unsigned long long)cmp_work.successes,
               (unsigned long long)eng_work.successes,
               memcmp(&cmp_work, &eng_work, sizeof cmp_work) == 0
                   ? "the same"
                   : "NOT THE SAME: the overhead compares unlike runs");
    free(p->points);
    free(p);
    return 0;
}
