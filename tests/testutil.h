/*
 * testutil.h -- what the Check suites share: running a scenario in
 * process, running the real `stormbench` binary, temporary files, and
 * reading numbers out of JSON text.
 */
#ifndef SB_TESTUTIL_H
#define SB_TESTUTIL_H

#include <stdbool.h>
#include <stdio.h>

#include "args.h"
#include "scenario.h"
#include "sim.h"
#include "summary.h"

/* A scenario run in process.  Free with tu_sim_free.  Every such run
 * checks the engine's invariants (sim_sane, engine.h) at every 16th
 * closed bucket (sparser in long runs) and at its end; tu_sim_free fails
 * the test if one did not hold. */
typedef struct tu_sim {
    scenario sc;
    policy_setup ps;
    sim *sim;
    sim_summary sum;
    char error[ERR_MSG_MAX];
    int buckets, checks;  /* buckets closed; sim_sane checks made */
    int insane;           /* checks that failed */
    int64_t first_insane; /* the first such bucket's start */
} tu_sim;

/* Write ini_text to a temporary file, load it, build the policy (NULL:
 * the scenario's own, with its [policy] settings), run it to the end and
 * summarise.  Returns NULL and fails the test with the message when any
 * step fails. */
tu_sim *tu_sim_run(const char *ini_text, const char *policy,
                   const char *const *params, int n_params);
/* Same, with every request traced to trace(ctx, record). */
tu_sim *tu_sim_run_traced(const char *ini_text, const char *policy,
                          const char *const *params, int n_params,
                          void (*trace)(void *, const sim_trace *), void *ctx);
/* Same, but stops before running: t->sim is created and at time 0. */
tu_sim *tu_sim_prepare(const char *ini_text, const char *policy,
                       const char *const *params, int n_params);
/* Same as tu_sim_run, with the loaded configuration handed to
 * edit(cfg, ctx) before the sim is built (what a scenario file cannot say
 * yet, or says at length). */
tu_sim *tu_sim_run_edited(const char *ini_text, const char *policy,
                          void (*edit)(sim_config *, void *), void *ctx);
/* The same, stopped before running (as tu_sim_prepare). */
tu_sim *tu_sim_prepare_edited(const char *ini_text, const char *policy,
                              void (*edit)(sim_config *, void *), void *ctx);
void tu_sim_free(tu_sim *t);

/* A fresh path under the build tree for a test file named `name`. */
const char *tu_temp_path(const char *name);
/* Write text to tu_temp_path(name); returns the path (static buffer per
 * call site is not kept: copy it if needed). */
const char *tu_write_temp(const char *name, const char *text);
/* The whole file, NUL-terminated, malloc'd; NULL when it cannot be read. */
char *tu_read_file(const char *path);
/* The runs saved under dir/runs/ (reports/runfile.h): the records begun
 * in its record files, whole or not. */
unsigned tu_saved_runs(const char *dir);

/* Run the stormbench binary with args (argv[0] is added).  Captures
 * stdout and stderr (malloc'd, free with tu_output_free); returns the exit
 * status, or -1 when it died from a signal. */
typedef struct tu_output {
    char *out;
    char *err;
    int status;
} tu_output;
int tu_stormbench(tu_output *o, const char *const *argl);
/* run's JSON for argl (after "run"; at most 16 words), written to
 * tu_temp_path(name), from the line after the one that names the
 * scenario file: the same run under another file name gives the same
 * text.  Fails the test when run fails; free the result. */
char *tu_run_json_tail(const char *name, const char *const *argl);
/* Run the program argv[0] (a path) with argv, the same way. */
int tu_run(tu_output *o, const char *const *argv);
void tu_output_free(tu_output *o);
/* The standard output of a tool found when CMake configured (pdfinfo,
 * pdftotext: SB_PDFINFO ...) run with targs; fails the test when it was
 * not found or fails.  malloc'd. */
char *tu_tool_output(const char *tool, const char *const *targs);

/* The number after "key": in json, where key may be a dotted path whose
 * parts are searched in order ("latency_ms.p99").  Fails the test when
 * absent or not a number. */
double tu_json_number(const char *json, const char *path);
/* The sum over a CSV's rows of the column named `column` (found in the
 * header line).  Fails the test when there is no such column. */
double tu_csv_sum(const char *csv, const char *column);

/* How many times needle occurs in hay (overlapping ones too). */
int tu_count(const char *hay, const char *needle);

/* Is the value after "key": the literal null / true? */
bool tu_json_is_null(const char *json, const char *path);
bool tu_json_is_true(const char *json, const char *path);

/* Paths of the source tree (for shipped scenarios) and the binary. */
#define TU_SOURCE(rel) SB_SOURCE_DIR "/" rel

#endif
