/*
 * cmd_compare.c -- `stormbench compare`: several policies on the same
 * seeds, at every point of up to two sweeps, and the report a team reads.
 *
 * The command line becomes a plan (compare_setup.h); this file has the
 * runner execute what is not saved yet and writes the outputs.
 * `--emit-jobs` writes one command per run instead (and with --risk one
 * per estimate of risk), which `merge` (cmd_merge.c) gathers.
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

/* The jobs of the plan: its runs, then with --risk its estimates of
 * risk (reports/compare_risk.h), one each. */
static uint32_t n_jobs(const compare_setup *s)
{
    return compare_n_runs(&s->plan) +
           (s->o.risk ? compare_risk_n_cells(&s->plan) : 0);
}

/* One line per job: cd to where the command was run, then this very
 * binary with the same arguments and --run K. */
static int emit_jobs(const compare_setup *s, const char *dir, int argc,
                     char **argv, sb_err *e)
{
    return saved_command_emit_jobs(s->o.emit, "compare", argc, argv,
                                   compare_setup_run_only, dir, "--run",
                                   n_jobs(s), e);
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

/* --run K: which of the plan's runs (K below their count), and which of
 * its risk estimates (the jobs after them), into s->o.runs[0..*n_runs)
 * and cells[0..*n_cells). */
static int split_jobs(compare_setup *s, uint32_t *n_runs, uint32_t *cells,
                      uint32_t *n_cells, sb_err *e)
{
    uint32_t runs = compare_n_runs(&s->plan);
    *n_runs = *n_cells = 0;
    for (uint32_t i = 0; i < s->o.n_runs; i++) {
        uint32_t k = s->o.runs[i];
        if (k >= n_jobs(s)) {
            if (s->o.risk)
                return err_set(e,
                               "--run %u: the plan has runs 0 to %u and "
                               "risk estimates %u to %u",
                               k, runs - 1, runs, n_jobs(s) - 1);
            return err_set(e, "--run %u: the plan has runs 0 to %u", k,
                           runs - 1);
        }
        if (k < runs)
            s->o.runs[(*n_runs)++] = k;
        else
            cells[(*n_cells)++] = k - runs;
    }
    return 0;
}

/* Ctrl-C sets stop_flag from here until the old handler is back. */
static void catch_sigint(struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, old);
}

/* The runs asked for (all of them when no --run), saved in dir: 0, 1
 * when Ctrl-C stopped them, -1 with e set. */
static int execute(compare_setup *s, const char *dir, uint32_t jobs,
                   uint32_t n_runs, sb_err *e)
{
    if (s->o.n_runs && n_runs == 0)
        return 0; /* risk estimates only */
    struct sigaction old;
    catch_sigint(&old);
    compare_opts co = {
        dir,
        (int)jobs,
        s->o.n_runs ? s->o.runs : NULL,
        n_runs,
        s->o.quiet ? NULL : stderr,
        &stop_flag,
        {s->o.scenario, s->o.sets, s->o.n_sets, s->o.plugins, s->o.n_plugins}};
    int rc = compare_execute(&s->plan, &co, e);
    sigaction(SIGINT, &old, NULL);
    return rc;
}

/* The outputs, from what dir holds: the runs and, with --risk, the
 * estimates (read back from their files, as merge reads them). */
static int write_outputs(const compare_setup *s, const char *dir, sb_err *e)
{
    const char *dirs[1] = {dir};
    compare_result *res;
    if (compare_load(&s->plan, dirs, 1, &res, e) != 0)
        return -1;
    compare_risk *risk = NULL;
    compare_risk_opts ro = compare_setup_risk_opts(s, 0);
    if (s->o.risk && compare_risk_load(&s->plan, &ro, dirs, 1, &risk, e) != 0) {
        compare_result_free(res);
        return -1;
    }
    res->risk = risk;
    int rc =
        compare_setup_write(res, dirs, 1, dir, !s->o.no_report, s->o.quiet, e);
    if (rc == 0 && s->o.junit)
        rc = compare_setup_junit(s, res, s->o.junit, e);
    compare_risk_free(risk);
    compare_result_free(res);
    return rc;
}

static int run_compare(compare_setup *s, int argc, char **argv, sb_err *e)
{
    compare_plan *p = &s->plan;
    char dir[PATH_MAX];
    if (s->o.out)
        snprintf(dir, sizeof dir, "%s", s->o.out);
    else
        snprintf(dir, sizeof dir, "out/compare-%s", p->name);
    /* A --horizon or --storm-window the scenario cannot use is said now,
     * not after the comparison's runs (or in every emitted job). */
    compare_risk_opts checked = compare_setup_risk_opts(s, 1);
    if (s->o.risk && compare_risk_check(p, &checked, e) != 0)
        return EXIT_INPUT;
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
        if (!s->o.quiet) {
            printf("wrote %u job%s to %s", n_jobs(s), n_jobs(s) == 1 ? "" : "s",
                   s->o.emit);
            if (s->o.risk)
                printf(" (%u run%s, then %u estimate%s of risk)",
                       compare_n_runs(p), compare_n_runs(p) == 1 ? "" : "s",
                       compare_risk_n_cells(p),
                       compare_risk_n_cells(p) == 1 ? "" : "s");
            printf("; run them (GNU parallel: parallel < %s), then: "
                   "stormbench merge %s\n",
                   s->o.emit, dir);
        }
        return EXIT_OK;
    }
    uint32_t jobs = 0;
    if (s->o.jobs) {
        args a = {argc, argv, 0, "compare", compare_usage};
        if (args_u32(&a, "--jobs", s->o.jobs, 1, 1024, &jobs) != 0)
            return EXIT_INPUT;
    }
    static uint32_t cells[MAX_RUN_ARGS];
    uint32_t n_runs, n_cells;
    if (split_jobs(s, &n_runs, cells, &n_cells, e) != 0)
        return EXIT_INPUT;
    if (s->o.hook_timeout_ns &&
        cli_guard_watch(s->o.hook_timeout_ns, s->o.hook_timeout, e) != 0)
        return EXIT_INPUT;
    int rc = execute(s, dir, jobs, n_runs, e);
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
    /* compare --risk: every policy's P(storm) at every point, after the
     * comparison's runs; each estimate saved as it is made, so that the
     * same command again makes only those missing. */
    compare_risk_opts ro = compare_setup_risk_opts(s, jobs);
    ro.ro.stop = &stop_flag;
    if (s->o.risk && (s->o.n_runs == 0 || n_cells > 0)) {
        /* Ctrl-C as during the runs: the estimate in the making is
         * dropped, those made are saved, and the command again goes on. */
        struct sigaction old;
        catch_sigint(&old);
        rc = compare_risk_make(p, &ro, dir, s->o.n_runs ? cells : NULL, n_cells,
                               s->o.quiet ? NULL : stderr, e);
        sigaction(SIGINT, &old, NULL);
        if (rc < 0)
            return EXIT_INPUT;
        if (rc > 0) {
            fprintf(stderr,
                    "stormbench compare: stopped; the runs are saved in "
                    "%s/runs and the risk estimates that finished in "
                    "%s/risk: run the same command again to go on\n",
                    dir, dir);
            return 130;
        }
    }
    if (s->o.n_runs)
        return EXIT_OK; /* an emitted job: merge makes the outputs */
    return write_outputs(s, dir, e) == 0 ? EXIT_OK : EXIT_INPUT;
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
