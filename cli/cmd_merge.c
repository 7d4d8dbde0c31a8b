/*
 * cmd_merge.c -- `stormbench merge DIR...`: a comparison's outputs from
 * runs saved in several directories (the jobs of one `compare
 * --emit-jobs`, run on several machines), its plan rebuilt from the
 * command compare saved (compare_setup.h).
 */
/* realpath */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "compare.h"
#include "compare_risk.h"
#include "compare_setup.h"
#include "runstore.h"

static const char merge_usage[] =
    "Usage: stormbench merge DIR... [-o OUT] [--no-report] [--junit FILE]\n"
    "                        [--compact] [-q]\n"
    "\n"
    "Build a comparison's outputs from runs saved in several directories:\n"
    "the runs of one `stormbench compare ... --emit-jobs FILE`, run on\n"
    "several machines and copied back.  The plan is rebuilt from the\n"
    "command saved in the first DIR that has one (DIR/command); every run\n"
    "must be in one of the DIRs.  Outputs go to OUT (default: the first\n"
    "DIR); --junit FILE as compare writes it.  A comparison with --risk\n"
    "needs its estimates too (DIR/risk/, one job each).\n"
    "\n"
    "--compact: once the outputs are written, drop the stale saved records\n"
    "of each DIR/runs/ (damaged ones, another plan's, a run's second\n"
    "record: jobs that ran one run twice) into one file,\n"
    "DIR/runs/compacted.runs, as compare does in its own directory.  A DIR\n"
    "that a job is still writing to is left as it is, saying so; one whose\n"
    "runs/ cannot be written is refused before anything is written (exit\n"
    "status 2).  Without it, merge only reads the DIRs.\n"
    "\n"
    "The runs of `stormbench risk ... --method mc --emit-jobs FILE` merge\n"
    "the same way: the estimate, risk.json, risk.md and first-storm.ini\n"
    "as the one process would have made them.\n";

int cmd_merge(int argc, char **argv)
{
    const char *dirs[CLI_MAX_LIST], *out = NULL, *junit = NULL;
    int n_dirs = 0;
    bool quiet = false, report = true, compact = false;
    args a = {argc, argv, 1, "merge", merge_usage};
    const arg_opt opts[] = {
        {"--help", "-h", ARG_HELP, NULL, NULL, NULL},
        {"--quiet", "-q", ARG_SET, &quiet, NULL, NULL},
        {"--no-report", NULL, ARG_CLEAR, &report, NULL, NULL},
        {"--compact", NULL, ARG_SET, &compact, NULL, NULL},
        {"--junit", NULL, ARG_VALUE, &junit, NULL, NULL},
        {"--out", "-o", ARG_VALUE, &out, NULL, NULL},
    };
    for (; a.i < argc; a.i++) {
        const char *arg = argv[a.i];
        int rc = args_option(&a, opts, sizeof opts / sizeof *opts);
        if (rc == 0)
            continue;
        if (rc != 1)
            return rc == -1 ? EXIT_OK : rc;
        if (arg[0] == '-' && arg[1] != '\0')
            return args_unknown_option(&a, arg);
        if (n_dirs == CLI_MAX_LIST)
            return args_usage_error(&a, "at most %d directories", CLI_MAX_LIST);
        dirs[n_dirs++] = arg;
    }
    if (n_dirs == 0)
        return args_usage_error(&a, "no directory given");
    /* Directories as absolute paths: the plan is rebuilt where the
     * compare command ran. */
    char abs[CLI_MAX_LIST][PATH_MAX], absout[PATH_MAX], absjunit[PATH_MAX];
    sb_err e = {{0}};
    for (int i = 0; i < n_dirs; i++) {
        if (realpath(dirs[i], abs[i]) == NULL) {
            fprintf(stderr, "stormbench merge: %s: %s\n", dirs[i],
                    strerror(errno));
            return EXIT_INPUT;
        }
        dirs[i] = abs[i];
    }
    if (out && *out != '/') {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof cwd) == NULL)
            return EXIT_INPUT;
        if (snprintf(absout, sizeof absout, "%s/%s", cwd, out) >=
            (int)sizeof absout) {
            fprintf(stderr,
                    "stormbench merge: -o %s: the path is too "
                    "long\n",
                    out);
            return EXIT_INPUT;
        }
        out = absout;
    }
    if (junit && *junit != '/') {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof cwd) == NULL ||
            snprintf(absjunit, sizeof absjunit, "%s/%s", cwd, junit) >=
                (int)sizeof absjunit) {
            fprintf(stderr,
                    "stormbench merge: --junit %s: the path is too "
                    "long\n",
                    junit);
            return EXIT_INPUT;
        }
        junit = absjunit;
    }
    /* `risk --emit-jobs`'s runs: their own merge */
    for (int i = 0; i < n_dirs; i++)
        if (cmd_risk_saved(dirs[i]))
            return compact ? args_usage_error(&a,
                                              "--compact: %s holds the runs "
                                              "of `risk`, which are not "
                                              "compacted (a comparison's are)",
                                              dirs[i])
                           : cmd_risk_merge(dirs, n_dirs, out, quiet);
    char *buf = NULL, **cargv = NULL, cwd[PATH_MAX] = "";
    int cargc = 0, which = -1;
    for (int i = 0; i < n_dirs && which < 0; i++)
        if (compare_setup_read_saved(dirs[i], &buf, &cargv, &cargc, cwd,
                                     sizeof cwd, &e) == 0)
            which = i;
    if (which < 0) {
        fprintf(stderr,
                "stormbench merge: no saved command in any "
                "directory given (%s)\n",
                e.msg);
        return EXIT_INPUT;
    }
    if (chdir(cwd) != 0) {
        fprintf(stderr,
                "stormbench merge: the comparison ran in %s, which "
                "cannot be entered here: %s\n",
                cwd, strerror(errno));
        free(cargv);
        free(buf);
        return EXIT_INPUT;
    }
    compare_setup *s = compare_setup_create();
    int rc = EXIT_INPUT;
    if (s == NULL)
        goto done;
    if (compare_setup_parse(cargc, cargv, &s->o) != 0)
        goto done;
    s->o.quiet = true; /* the warnings were given when it ran */
    /* Before anything is written: --compact on a folder it cannot
     * write failed after writing the outputs, at runs/.lock, leaving
     * the reader to guess what had been done. */
    for (int i = 0; compact && i < n_dirs; i++)
        if (runstore_compact_writable(dirs[i], &e) != 0) {
            fprintf(stderr,
                    "stormbench merge: --compact: %s; nothing written "
                    "(without --compact, merge only reads the DIRs)\n",
                    e.msg);
            goto done;
        }
    compare_result *res;
    if (compare_setup_build(s, &e) != 0 ||
        compare_load(&s->plan, dirs, n_dirs, &res, &e) != 0) {
        fprintf(stderr, "stormbench merge: %s\n", e.msg);
        goto done;
    }
    /* compare --risk's estimates: each saved by the command or its job
     * (compare_risk.h), all of them needed. */
    compare_risk *risk = NULL;
    compare_risk_opts ro = compare_setup_risk_opts(s, 0);
    bool written = !s->o.risk || compare_risk_load(&s->plan, &ro, dirs, n_dirs,
                                                   &risk, &e) == 0;
    res->risk = risk;
    written = written &&
              compare_setup_write(res, dirs, n_dirs, out ? out : dirs[0],
                                  report, quiet, &e) == 0 &&
              (junit == NULL || compare_setup_junit(s, res, junit, &e) == 0);
    /* After the outputs: a merge that fails leaves its DIRs as they were. */
    for (int i = 0; written && compact && i < n_dirs; i++)
        written = compare_compact(&s->plan, dirs[i], "merge",
                                  quiet ? NULL : stderr, &e) == 0;
    rc = written ? EXIT_OK : EXIT_INPUT;
    if (rc != EXIT_OK)
        fprintf(stderr, "stormbench merge: %s\n", e.msg);
    compare_risk_free(risk);
    compare_result_free(res);
done:
    compare_setup_destroy(s);
    free(cargv);
    free(buf);
    return rc;
}
