/*
 * compare_setup.h -- a comparison set up from its command line: what
 * `stormbench compare` (cmd_compare.c) and `stormbench merge`
 * (cmd_merge.c) share.
 *
 * compare_setup_parse reads the arguments into s->o (its strings borrowed
 * from argv, but for the --policies values, which s owns);
 * compare_setup_build loads the scenario at every sweep point and builds
 * the plan (reports/compare.h) into s->plan.  The output directory keeps
 * the command (DIR/command: the directory it was run in, then its
 * arguments one per line, those that only say how to run left out), from
 * which merge rebuilds the same plan.
 */
#ifndef SB_COMPARE_SETUP_H
#define SB_COMPARE_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "args.h"
#include "compare.h"
#include "compare_risk.h"
#include "err.h"
#include "scenario.h"

#define MAX_RUN_ARGS 4096

typedef struct compare_args {
    const char *scenario;
    const char *entries[CLI_MAX_LIST];
    int n_entries;
    char *owned[CLI_MAX_LIST]; /* --policies values, split in place */
    int n_owned;
    const char *sets[CLI_MAX_LIST];
    int n_sets;
    const char *plugins[CLI_MAX_LIST];
    int n_plugins;
    setting params[PSTACK_MAX_SETTINGS];
    int n_params;
    const char *sweeps[COMPARE_MAX_AXES];
    int n_sweeps;
    const char *seeds, *seed, *jobs, *out, *emit, *junit;
    uint32_t runs[MAX_RUN_ARGS];
    uint32_t n_runs;
    bool quiet, no_report, force, risk;
    int64_t horizon_ns, storm_window_ns, risk_runs; /* 0: the default */
    int64_t risk_pilot_runs;                        /* 0: the default */
    int64_t hook_timeout_ns;                        /* 0: none */
    const char *hook_timeout;
} compare_args;

typedef struct compare_setup {
    compare_args o;
    char path[1024]; /* the scenario file found */
    scenario *sc;    /* as loaded, with --set and --seed, no sweep */
    scenario *tmp;   /* scratch for the sweep points */
    compare_plan plan;
    int decimals[COMPARE_MAX_AXES];
    char seed_set[96];
} compare_setup;

/* `stormbench compare --help`. */
extern const char compare_usage[];

/* A zeroed setup with room for its scenarios, or NULL when out of
 * memory.  Free with compare_setup_destroy (NULL is fine). */
compare_setup *compare_setup_create(void);
void compare_setup_destroy(compare_setup *s);

/* The arguments of `compare` (argv[0] is the command's name) into *o:
 * 0, -1 after --help, or EXIT_INPUT after a usage message. */
int compare_setup_parse(int argc, char **argv, compare_args *o);
/* Find and load the scenario, resolve the entries, sweeps and seeds, and
 * check every stack and run cost: s->plan.  0, or -1 with e set. */
int compare_setup_build(compare_setup *s, sb_err *e);

/* Is arg an option that only says how to run (--run, -j, -o, -q...),
 * not what?  *takes_value: its value is the next argument. */
bool compare_setup_run_only(const char *arg, bool *takes_value);
/* Save the command (argv, argv[0] the command's name) in dir/command. */
int compare_setup_save(const char *dir, int argc, char **argv, sb_err *e);
/* Rebuild the command saved in dir/command into *argv_out (strings owned
 * by *buf: free both), and the directory it ran in into cwd. */
int compare_setup_read_saved(const char *dir, char **buf, char ***argv_out,
                             int *argc_out, char *cwd, size_t cwd_len,
                             sb_err *e);

/* compare --risk's options (reports/compare_risk.h): --horizon,
 * --storm-window and --risk-runs or their defaults, on `jobs` threads (0:
 * one per core; the estimates do not depend on it). */
compare_risk_opts compare_setup_risk_opts(const compare_setup *s,
                                          uint32_t jobs);

/* runs.csv, summary.md, summary.json and (report) report.pdf and
 * report.html in out; unless quiet, the verdicts on stdout. */
int compare_setup_write(const compare_result *r, const char *const *dirs,
                        int n_dirs, const char *out, bool report, bool quiet,
                        sb_err *e);
/* The scenario's [expect] as JUnit XML at path. */
int compare_setup_junit(const compare_setup *s, const compare_result *r,
                        const char *path, sb_err *e);

#endif
