/*
 * bench_risk.c -- what splitting saves at a probability near 10^-6: the
 * engine's own storm, estimated by `stormbench risk`'s RESTART
 * (reports/risk.h) to a relative error of 20 %, against what plain Monte
 * Carlo would need for the same error (issue 19's efficiency goal: at most
 * 1 % of plain Monte Carlo's simulated time).
 *
 * The case: metastable-tipping.ini's system with no fault at all (16
 * workers of exp(100 ms): 160/s of capacity; 1 s timeout; immediate
 * retries, 5 attempts), 100 clients offering 135 requests/s (utilization
 * 0.84) -- the storm comes from Poisson noise alone: a queue that happens
 * to pass ~127 attempts (a wait of ~0.8 s, where answers start to come
 * after the timeout, metastable-tipping.ini has the arithmetic) feeds
 * itself.  A storm is goodput off its baseline for 30 s in a row; each run
 * lasts 5 min (20 s of warm-up).  At 150/s (0.94) plain Monte Carlo sees
 * 7 storms in 200 runs; every 5 requests/s less make it about a hundred
 * times rarer (measured by splitting: 1.35e-3 at 145/s, ~1e-5 at 140/s).
 *
 * Plain Monte Carlo is not run: its variance is known without running
 * 10^6 runs.  One run is a Bernoulli(p) trial costing the horizon in
 * simulated time (a run that tips stops when the storm is judged, a
 * saving of at most the horizon x p), so its variance per unit of
 * simulated time is p (1 - p) x horizon, and for a relative half-width
 * h at confidence z it needs n = z^2 (1 - p) / (p h^2) runs.  Splitting's
 * is measured: the sample variance of one main run's weight sum Y times
 * the mean simulated time of a main run and its copies.  The ratio of the
 * two work-normalised variances is the ratio of simulated time the two
 * need for any one error.  The pilot's time (finding the levels) is
 * counted on splitting's side too.
 *
 *   ./build/bench/bench_risk [--rate R] [--max-runs N] [-j N]
 *                            [--importance queue|amplification|...]
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "risk.h"
#include "scenario.h"
#include "stats.h"

static const char noise_fmt[] =
    "[scenario]\nname = bench-noise\nduration = 300s\nseed = 1\n"
    "warmup = 20s\nrecovery_window = 10s\n"
    "[clients]\ncount = 100\nrate = %.9g/s\ntimeout = 1s\n"
    "[server]\nworkers = 16\nservice = exp(100ms)\n"
    "queue_limit = unlimited\nnetwork_delay = const(1ms)\n"
    "[policy]\nname = immediate\nmax_attempts = 5\n";

#define HORIZON_S 300
#define WINDOW_S 30

static int load(double rate, scenario *sc)
{
    char ini[1024];
    snprintf(ini, sizeof ini, noise_fmt, rate);
    char path[] = "/tmp/stormbench-bench-risk-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    ssize_t len = (ssize_t)strlen(ini);
    ssize_t put = write(fd, ini, (size_t)len);
    close(fd);
    sb_err e;
    int rc = put == len ? scenario_load(path, NULL, 0, sc, &e) : -1;
    unlink(path);
    if (rc != 0)
        fprintf(stderr, "bench_risk: %s\n",
                put == len ? e.msg
                           : "cannot "
                             "write");
    return rc;
}

/* CPU seconds of this process so far (all threads). */
static double cpu_s(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return NAN;
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* Progress on stderr: every level the pilot places, and the estimate so
 * far at most every PROGRESS_S CPU seconds (and at the last batch). */
#define PROGRESS_S 30.0

typedef struct progress {
    double last_cpu;
    double target;
    uint64_t max_runs;
} progress;

static void pilot_progress(void *arg, const split_plan *sofar, int stage,
                           uint32_t hits)
{
    (void)arg;
    int j = sofar->n_levels - 1;
    fprintf(stderr,
            "pilot: stage %d: %u hit; level %d at %.4g attempts, %u copies "
            "(%.3g climbs a run); %.4g s simulated; %.0f CPU s\n",
            stage, hits, j + 1, sofar->level[j], sofar->copies[j],
            sofar->crossed[j], sofar->pilot_work, cpu_s());
}

static void main_progress(void *arg, const split_estimate *est)
{
    progress *pg = arg;
    double now = cpu_s();
    bool last = (est->reached_target && est->hit_trials >= 10) ||
                est->trials >= pg->max_runs;
    if (!last && now - pg->last_cpu < PROGRESS_S)
        return;
    pg->last_cpu = now;
    if (est->fixed_effort)
        fprintf(stderr,
                "replicates: %llu done (%llu main runs), %llu found "
                "a storm, ",
                (unsigned long long)est->replicates,
                (unsigned long long)est->trials,
                (unsigned long long)est->hit_trials);
    else
        fprintf(stderr, "main runs: %llu done, %llu tipped, ",
                (unsigned long long)est->trials,
                (unsigned long long)est->hit_trials);
    fprintf(stderr,
            "%llu paths; p = %.4g [%.4g, %.4g], relative error %.1f %% "
            "(goal %.0f %%); work-normalised variance %.4g; %.4g s "
            "simulated; %.0f CPU s\n",
            (unsigned long long)est->paths, est->p, est->lo, est->hi,
            100 * est->rel_error, 100 * pg->target, est->work_variance,
            est->work, now);
}

static int arg_num(const char *v, double lo, double hi, double *x)
{
    char *end = NULL;
    *x = strtod(v, &end);
    return end != v && *end == '\0' && *x >= lo && *x <= hi ? 0 : -1;
}

static void report(const risk_result *r, double rate, double target,
                   uint32_t pilot_runs)
{
    const split_estimate *est = &r->est;
    double z = stats_t_quantile(0.975, 1e9);
    double p = est->p, horizon = HORIZON_S;
    double work = est->work + r->plan.pilot_work;
    printf("P(storm within %d s) at %.0f requests/s = %.3g  [%.3g, %.3g] "
           "(95 %%), relative error %.1f %%\n",
           HORIZON_S, rate * 100, p, est->lo, est->hi, 100 * est->rel_error);
    printf("pilot: %u runs a stage, %.4g s simulated\n", pilot_runs,
           r->plan.pilot_work);
    if (est->fixed_effort)
        printf("fixed effort: %d levels; %llu replicates of %u runs a level "
               "(%llu of them found a storm); %llu paths; %.4g s simulated "
               "(replicates %.4g s + pilot %.4g s)\n",
               r->plan.n_levels, (unsigned long long)est->replicates,
               est->per_level, (unsigned long long)est->hit_trials,
               (unsigned long long)est->paths, work, est->work,
               r->plan.pilot_work);
    else
        printf("RESTART: %d levels; %llu main runs, %llu of them tipped; "
               "%llu paths; %.4g s simulated (main runs %.4g s + pilot "
               "%.4g s)\n",
               r->plan.n_levels, (unsigned long long)est->trials,
               (unsigned long long)est->hit_trials,
               (unsigned long long)est->paths, work, est->work,
               r->plan.pilot_work);
    printf("levels (attempts in the server : copies):");
    for (int i = 0; i < r->plan.n_levels; i++)
        printf(" %.0f:%u", r->plan.level[i], r->plan.copies[i]);
    if (r->plan.no_return)
        printf("; point of no return at %.0f (fewer than a fifth of the "
               "pilot's runs from there fell back: no level there or above)",
               r->plan.no_return_level);
    printf("\n\n");
    if (!(p > 0)) {
        printf("no run tipped: nothing to compare\n");
        return;
    }
    /* Work-normalised variance: Var(one unit's estimate) x its cost. */
    double wv_split = est->work_variance;
    double units =
        est->fixed_effort ? (double)est->replicates : (double)est->trials;
    double wv_mc = p * (1 - p) * horizon;
    double n_mc = z * z * (1 - p) / (p * target * target);
    double mc_work = n_mc * horizon;
    printf("work-normalised variance (variance of one run's estimate x "
           "its simulated seconds; lower is better)\n");
    if (est->fixed_effort)
        printf("  fixed effort        %.4g   (Var(one replicate's estimate) "
               "%.4g x %.1f s per replicate)\n",
               wv_split, est->variance, est->work / units);
    else
        printf("  RESTART             %.4g   (Var(Y) %.4g x %.1f s per main "
               "run and its copies)\n",
               wv_split, est->variance, est->work / units);
    printf("  plain Monte Carlo   %.4g   (p (1 - p) x %d s per run: "
           "computed, not run)\n",
           wv_mc, HORIZON_S);
    printf("  ratio               %.4g %%\n\n", 100 * wv_split / wv_mc);
    printf("simulated time for a relative error of %.0f %%\n", 100 * target);
    printf("  splitting           %.4g s (%.1f days), pilot included%s\n", work,
           work / 86400, est->reached_target ? "" : " -- target NOT reached");
    printf("  plain Monte Carlo   %.4g s (%.0f years): %.3g runs of %d s "
           "(z^2 (1 - p) / (p x %.2f^2))\n",
           mc_work, mc_work / (365.25 * 86400), n_mc, HORIZON_S, target);
    printf("  splitting / plain   %.4g %%   (goal: at most 1 %%)\n",
           100 * work / mc_work);
    /* The variance falls as 1 / runs: the runs for the target from the
     * error reached (what the table above says in variances). */
    double need =
        est->work * pow(est->rel_error / target, 2) + r->plan.pilot_work;
    if (!est->reached_target)
        printf("  projected to %.0f %%  %.4g s of splitting: %.4g %% of "
               "plain Monte Carlo's\n",
               100 * target, need, 100 * need / mc_work);
    printf("  at the interval's ends, plain Monte Carlo would need "
           "%.3g to %.3g runs\n",
           z * z * (1 - est->hi) / (est->hi * target * target),
           est->lo > 0 ? z * z * (1 - est->lo) / (est->lo * target * target)
                       : INFINITY);
}

int main(int argc, char **argv)
{
    double rate = 1.35, max_runs = 100000, threads = 2, target = 0.2;
    double pilot = 1000;
    risk_importance imp = RISK_IMP_QUEUE;
    risk_method method = RISK_SPLITTING;
    for (int i = 1; i < argc; i++) {
        int bad = i + 1 >= argc;
        if (!bad && strcmp(argv[i], "--rate") == 0)
            bad = arg_num(argv[++i], 0.01, 10, &rate);
        else if (!bad && strcmp(argv[i], "--max-runs") == 0)
            bad = arg_num(argv[++i], 1, 1e9, &max_runs);
        else if (!bad && strcmp(argv[i], "-j") == 0)
            bad = arg_num(argv[++i], 1, 64, &threads);
        else if (!bad && strcmp(argv[i], "--pilot-runs") == 0)
            bad = arg_num(argv[++i], 10, 1e6, &pilot);
        else if (!bad && strcmp(argv[i], "--importance") == 0)
            bad = risk_importance_parse(argv[++i], &imp);
        else if (!bad && strcmp(argv[i], "--method") == 0) {
            i++;
            method = strcmp(argv[i], "restart") == 0        ? RISK_RESTART
                     : strcmp(argv[i], "fixed-effort") == 0 ? RISK_FIXED_EFFORT
                                                            : RISK_AUTO;
            bad = method == RISK_AUTO;
        } else
            bad = 1;
        if (bad) {
            fprintf(stderr, "usage: bench_risk [--rate PER_CLIENT_PER_S] "
                            "[--max-runs N] [-j N]\n"
                            "                  [--importance KIND] "
                            "[--pilot-runs N]\n"
                            "                  [--method "
                            "restart|fixed-effort]\n");
            return 2;
        }
    }
    static scenario sc;
    if (load(rate, &sc) != 0)
        return 1;
    risk_setup su = {&sc.cfg,
                     sc.policy,
                     sc.settings,
                     sc.n_settings,
                     NULL,
                     0,
                     (int64_t)HORIZON_S * 1000000000,
                     (int64_t)WINDOW_S * 1000000000,
                     0};
    progress pg = {cpu_s(), target, (uint64_t)max_runs};
    risk_opts o = {
        method,       0.95, target,          (uint64_t)max_runs, 0,
        (int)threads, imp,  (uint32_t)pilot, pilot_progress,     main_progress,
        &pg,          NULL};
    static risk_result r;
    sb_err e;
    printf("Noise alone (no fault): 100 clients x %.3g/s against 160/s, "
           "horizon %d s, storm window %d s; %s to a %.0f %% relative "
           "error (at most %.0f main runs), %d threads; importance: %s.\n\n",
           rate, HORIZON_S, WINDOW_S,
           method == RISK_FIXED_EFFORT ? "fixed-effort splitting"
           : method == RISK_RESTART    ? "RESTART"
                                       : "splitting (the default estimator)",
           100 * target, max_runs, (int)threads, risk_importance_name(imp));
    if (risk_estimate(&su, &o, &r, &e) != 0) {
        fprintf(stderr, "bench_risk: %s\n", e.msg);
        return 1;
    }
    report(&r, rate, target, (uint32_t)pilot);
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        printf("\nCPU time of this process: %.1f s user + %.1f s system\n",
               (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
               (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
    return 0;
}
