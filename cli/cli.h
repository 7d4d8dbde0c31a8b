/*
 * cli.h -- what the subcommands of `stormbench` share: argument parsing,
 * building a policy stack from names and plug-ins, and exit codes.
 */
#ifndef SB_CLI_H
#define SB_CLI_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "budget.h"
#include "err.h"
#include "policy_setup.h"

/* Exit codes (README.md "Exit codes"). */
enum {
    EXIT_OK = 0,
    EXIT_EXPECT = 1, /* an [expect] assertion failed */
    EXIT_INPUT = 2,  /* bad input, usage, or a run that could not finish */
    EXIT_PLUGIN = 3  /* a policy plug-in crashed, or hung past
                        --hook-timeout, in one of its hooks */
};

#define CLI_MAX_LIST 64

/* ---- args.c: a tiny getopt_long that also accepts --opt=value ---------- */

typedef struct args {
    int argc;
    char **argv;
    int i;
    const char *cmd;   /* for messages: "run" */
    const char *usage; /* its --help text, whose options an unknown one
                          is matched against; may be NULL */
} args;

/* Is argv[i] the option `name` (with or without "=value")? */
bool args_is(const args *a, const char *name);
/* The option's value: after '=' or the next argument.  Prints a usage
 * error and returns NULL when it is missing. */
const char *args_value(args *a, const char *name);
/* Print "stormbench CMD: MESSAGE\nTry 'stormbench CMD --help'." */
int args_usage_error(const args *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The repeatable options: append the option's value to list (at most
 * CLI_MAX_LIST), or parse --param into params (at most
 * PSTACK_MAX_SETTINGS).  0, or EXIT_INPUT after a usage message. */
int args_list_add(args *a, const char **list, int *n, const char *name);
/* 0 when v is a seed (a whole number that fits 64 bits), written to
 * *seed unless seed is NULL; else EXIT_INPUT after a usage message naming
 * --seed.  run, gui and decide share it, so they share the range. */
int args_check_seed(const args *a, const char *v, uint64_t *seed);
int args_param(args *a, setting *params, int *n);
/* The argument at a->i that is no option: the one SCENARIO a command
 * takes, into *scenario.  A usage error for an unknown option or a
 * second scenario. */
int args_scenario(const args *a, const char *arg, const char **scenario);
/* "unknown option '--polcy' (did you mean '--policy'?)": the usage error
 * for arg, with the option of a->usage it is within two edits of. */
int args_unknown_option(const args *a, const char *arg);

/* ---- cmd_validate.c: a policy stack's worst case, without a simulation - */

/* One kind of request driven through the stack with every attempt timing
 * out and every random draw at its largest. */
typedef struct policy_probe {
    sb_op op;           /* the kind of request: operation, critical or not */
    bool critical;
    uint32_t attempts;  /* attempts sent */
    uint32_t retries;   /* retry decisions (each with its delay) */
    double delay_s;     /* the retry delays, added up */
    double total_s;     /* ... plus every attempt's timeout */
    bool still_going;   /* still asking for retries at the limit */
} policy_probe;

/* Probe each kind of request the scenario sends (every operation in its
 * mix, critical or not when some are), at most `limit` attempts each:
 * *by_delay is the kind whose retry delays add up to the most,
 * *by_attempts the one that sent the most attempts.  -1 when a layer
 * broke its contract (the message in e). */
int policy_probe_worst(pstack *ps, const client_cfg *cc, uint32_t limit,
                       policy_probe *by_delay, policy_probe *by_attempts,
                       sb_err *e);

/* The load budget (sim/budget.h) of running cfg with ps, its worst-case
 * attempts probed as above, in *out.  0 within the limits; over them, 1
 * with force (the message, without the path, in e: a warning), else -1
 * with "PATH: this run would ...; lower ..., or pass --force" in e.  When
 * a layer breaks its contract under the probe: -1 with its message, or,
 * when lenient (`run`, whose simulation reports it when it happens), the
 * estimate goes on with the attempts probed until then. */
int cli_budget(const char *path, const sim_config *cfg, pstack *ps,
               bool force, bool lenient, budget_cost *out, sb_err *e);

struct scenario;
/* Warnings about a policy that is accepted but almost surely not what
 * was meant (a stack of layers alone, which never retries; a hedge delay
 * not shorter than the attempt timeout), one per line in out; returns how
 * many. */
int cli_policy_warnings(const struct scenario *sc, const pstack *ps,
                        char *out, size_t len);

/* ---- params.c ------------------------------------------------------------ */

/* The parameters stack `spec` gets from the scenario's [policy] section.
 * All of them when spec is the stack the file names.  Otherwise (--policy,
 * --set policy.name, a compare entry) those of the file's that name a
 * parameter of spec's layers -- so a comparison stays like for like: the
 * file's max_attempts = 5 stays 5 for the other stack -- and every --set
 * policy.KEY.  note (may be NULL) gets one line saying what was kept and
 * dropped, or "" when the file had none.  -1 when spec does not build. */
int cli_scenario_params(const struct scenario *sc, const char *spec,
                        const char *const *plugins, int n_plugins,
                        setting *out, int *n, char *note, size_t len,
                        sb_err *e);

/* ---- find.c --------------------------------------------------------------- */

/* The scenario file `arg` names: a path, or the name of a shipped
 * scenario ("retry-storm") in ./scenarios or the installed library.
 * 0 with the path in out, or -1 with a message listing the shipped ones. */
int cli_find_scenario(const char *arg, char *out, size_t len, sb_err *e);
/* The directories a shipped scenario is looked up in, those that exist,
 * in the order cli_find_scenario tries them (find.c says which); returns
 * how many (at most max). */
int cli_scenario_dirs(char dirs[][PATH_MAX], int max);

/* ---- guard.c: a plug-in that crashes or hangs in a hook ------------------ */

/* Catch SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT (on an alternate
 * stack): one raised inside a plug-in's hook prints "stormbench CMD:
 * policy 'P' (from FILE) crashed in HOOK at simulated time T: SIGNAL; the
 * run is stopped", removes the files given to cli_guard_forget and exits
 * with EXIT_PLUGIN; any other goes to the action installed before (a core
 * dump, or a sanitizer's report).  cmd is borrowed for good. */
void cli_guard_install(const char *cmd);
/* A temporary output file to remove if the run is stopped so: tmp is
 * borrowed and read only then ("" for none by that time).  At most 8. */
void cli_guard_forget(const char *tmp);
/* Start the watchdog: a plug-in hook still running after timeout_ns of
 * wall time stops the run the same way.  text is the flag's value, for
 * the message.  0, or -1 with a message in e. */
int cli_guard_watch(int64_t timeout_ns, const char *text, sb_err *e);
/* Parse --hook-timeout DURATION at a->i: 0 with the value in *ns and its
 * text in *text, or EXIT_INPUT after a usage message. */
int args_hook_timeout(args *a, int64_t *ns, const char **text);

/* ---- policy_from.c: --policy-from FILE[#NAME] -------------------------- */

struct import_result;
/* Import arg ("FILE#NAME"; sel, when given, names the configuration
 * instead) in format (NULL: detected) into *r, and build its stack into
 * *ps (free with policy_setup_free).  0, or -1 with "FILE:LINE: ..." in
 * e. */
int cli_policy_from(const char *arg, const char *sel, const char *format,
                    struct import_result *r, policy_setup *ps, sb_err *e);
/* Replace each --policy-from in argv (argv[0] is the command's name) by
 * the --policy, --param and --set options it stands for.  0, or
 * EXIT_INPUT after a message. */
int cli_expand_policy_from(const char *cmd, int *argc, char ***argv);

/* ---- the subcommands ------------------------------------------------------ */

int cmd_run(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_policies(int argc, char **argv);
int cmd_decide(int argc, char **argv);
int cmd_gui(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_risk(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_lint(int argc, char **argv);
int cmd_scenarios(int argc, char **argv);

#endif
