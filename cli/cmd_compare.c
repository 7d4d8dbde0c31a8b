/*
 * cmd_compare.c -- `stormbench compare`: several policies on the same
 * seeds, at every point of up to two sweeps, and the report a team reads.
 *
 * The command line becomes a plan (compare_setup.h); this file has the
 * runner execute what is not saved yet and writes the outputs.
 * `--emit-jobs` writes one command per run instead, which `merge`
 * (cmd_merge.c) gathers.
 */
/* realpath */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "compare.h"
#include "compare_risk.h"
#include "compare_setup.h"
#include "guard.h"
#include "saved_command.h"

/* ---- Emitted jobs ---------------------------------------------------- */

/* One line per run: cd to where the command was run, then this very
 * binary with the same arguments and --run K. */
static int emit_jobs(const compare_setup *s, const char *dir, int argc,
                     char **argv, sb_err *e)
{
    return saved_command_emit_jobs(s->o.emit, "compare", argc, argv,
                                   compare_setup_run_only, dir, "--run",
                                   compare_n_runs(&s->plan), e);
}

/* ---- Ctrl-C -------------------------------------------------------------------- */

/* A lock-free atomic store is safe in a signal handler (C11 7.14.1.1)
 * and visible to the worker threads that poll it. */
static atomic_int stop_flag;

static void on_sigint(int sig)
{
    (void)sig;
    atomic_store(&stop_flag, 1);
}

/* ---- compare -------------------------------------------------------------------- */

/* compare --risk: every policy's P(storm) at every point, after the
 * comparison's runs (reports/compare_risk.h). */
static int estimate_risk(const compare_setup *s, uint32_t jobs,
                         compare_risk **out, sb_err *e)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    compare_risk_opts o = {
        s->o.horizon_ns ? s->o.horizon_ns : (int64_t)3600 * 1000000000,
        s->o.storm_window_ns ? s->o.storm_window_ns : (int64_t)300 * 1000000000,
        {RISK_AUTO, 0.95, 0.2, s->o.risk_runs ? (uint64_t)s->o.risk_runs : 400,
         0,
         jobs       ? (int)jobs
         : cpus > 0 ? (int)cpus
                    : 1,
         RISK_IMP_QUEUE, 0, NULL, NULL, NULL}};
    return compare_risk_run(&s->plan, &o, s->o.quiet ? NULL : stderr, out, e);
}

static int run_compare(compare_setup *s, int argc, char **argv, sb_err *e)
{
    compare_plan *p = &s->plan;
    char dir[PATH_MAX];
    if (s->o.out)
        snprintf(dir, sizeof dir, "%s", s->o.out);
    else
        snprintf(dir, sizeof dir, "out/compare-%s", p->name);
    if (compare_claim_dir(p, dir, s->o.force, e) != 0)
        return EXIT_INPUT;
    /* Every job of a spread comparison would write the same file: the
     * first one does. */
    char cmdpath[PATH_MAX + 16];
    snprintf(cmdpath, sizeof cmdpath, "%s/command", dir);
    if ((s->o.n_runs == 0 || access(cmdpath, F_OK) != 0) &&
        compare_setup_save(dir, argc, argv, e) != 0)
        return EXIT_INPUT;
    if (s->o.emit) {
        if (emit_jobs(s, dir, argc, argv, e) != 0)
            return EXIT_INPUT;
        if (!s->o.quiet)
            printf("wrote %u jobs to %s; run them (GNU parallel: parallel "
                   "< %s), then: stormbench merge %s\n",
                   compare_n_runs(p), s->o.emit, s->o.emit, dir);
        return EXIT_OK;
    }
    uint32_t jobs = 0;
    if (s->o.jobs) {
        args a = {argc, argv, 0, "compare", compare_usage};
        if (args_u32(&a, "--jobs", s->o.jobs, 1, 1024, &jobs) != 0)
            return EXIT_INPUT;
    }
    for (uint32_t i = 0; i < s->o.n_runs; i++)
        if (s->o.runs[i] >= compare_n_runs(p)) {
            err_set(e, "--run %u: the plan has runs 0 to %u", s->o.runs[i],
                    compare_n_runs(p) - 1);
            return EXIT_INPUT;
        }
    if (s->o.hook_timeout_ns &&
        cli_guard_watch(s->o.hook_timeout_ns, s->o.hook_timeout, e) != 0)
        return EXIT_INPUT;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    compare_opts co = {
        dir,
        (int)jobs,
        s->o.n_runs ? s->o.runs : NULL,
        s->o.n_runs,
        s->o.quiet ? NULL : stderr,
        &stop_flag,
        {s->o.scenario, s->o.sets, s->o.n_sets, s->o.plugins, s->o.n_plugins}};
    int rc = compare_execute(p, &co, e);
    sigaction(SIGINT, &old, NULL);
    if (rc < 0)
        return EXIT_INPUT;
    if (rc > 0) {
        fprintf(stderr,
                "stormbench compare: stopped; the runs that "
                "finished are saved in %s/runs: run the same command "
                "again to go on\n",
                dir);
        return 130;
    }
    if (s->o.n_runs)
        return EXIT_OK; /* an emitted job: merge makes the outputs */
    const char *dirs[1] = {dir};
    compare_result *res;
    if (compare_load(p, dirs, 1, &res, e) != 0)
        return EXIT_INPUT;
    compare_risk *risk = NULL;
    if (s->o.risk && estimate_risk(s, jobs, &risk, e) != 0) {
        compare_result_free(res);
        return EXIT_INPUT;
    }
    res->risk = risk;
    rc = compare_setup_write(res, dirs, 1, dir, !s->o.no_report, s->o.quiet, e);
    compare_risk_free(risk);
    if (rc == 0 && s->o.junit)
        rc = compare_setup_junit(s, res, s->o.junit, e);
    compare_result_free(res);
    return rc == 0 ? EXIT_OK : EXIT_INPUT;
}

int cmd_compare(int argc, char **argv)
{
    compare_setup *s = compare_setup_create();
    if (s == NULL) {
        fprintf(stderr, "stormbench compare: out of memory\n");
        return EXIT_INPUT;
    }
    int rc = compare_setup_parse(argc, argv, &s->o);
    if (rc != 0) {
        compare_setup_destroy(s);
        return rc < 0 ? EXIT_OK : rc;
    }
    sb_err e = {{0}};
    if (compare_setup_build(s, &e) != 0)
        rc = EXIT_INPUT;
    else
        rc = run_compare(s, argc, argv, &e);
    if (rc == EXIT_INPUT)
        fprintf(stderr, "stormbench compare: %s\n", e.msg);
    compare_setup_destroy(s);
    return rc;
}
