/*
 * cli.h -- what the subcommands of `stormbench` share: argument parsing,
 * building a policy stack from names and plug-ins, and exit codes.
 */
#ifndef SB_CLI_H
#define SB_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"
#include "policy_setup.h"

/* Exit codes (README.md "Exit codes"). */
enum {
    EXIT_OK = 0,
    EXIT_EXPECT = 1, /* an [expect] assertion failed */
    EXIT_INPUT = 2   /* bad input, usage, or a run that could not finish */
};

#define CLI_MAX_LIST 64

/* ---- args.c: a tiny getopt_long that also accepts --opt=value ---------- */

typedef struct args {
    int argc;
    char **argv;
    int i;
    const char *cmd; /* for messages: "run" */
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
int args_param(args *a, setting *params, int *n);

/* ---- the subcommands ------------------------------------------------------ */

int cmd_run(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_policies(int argc, char **argv);
int cmd_decide(int argc, char **argv);

#endif
