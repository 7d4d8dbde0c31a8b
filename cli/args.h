/*
 * args.h -- the command line of every subcommand: a tiny getopt_long that
 * also accepts --opt=value, a table of a command's options read by one
 * parser, and the exit codes.
 *
 * Everything here only reads argv and writes the slots a table names;
 * the strings handed back point into argv (borrowed for the program's
 * life).  Usage errors are printed on stderr as
 * "stormbench CMD: MESSAGE\nTry 'stormbench CMD --help'." and returned as
 * EXIT_INPUT.
 */
#ifndef SB_ARGS_H
#define SB_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
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
int args_usage_error(const args *a, const char *fmt, ...) SB_PRINTF(2, 3);

/* The repeatable options: append the option's value to list (at most
 * CLI_MAX_LIST), or parse --param into params (at most
 * PSTACK_MAX_SETTINGS).  0, or EXIT_INPUT after a usage message. */
int args_list_add(args *a, const char **list, int *n, const char *name);
int args_param(args *a, setting *params, int *n);
/* The value v of option flag as a whole number in [lo, hi] into *out: 0,
 * or EXIT_INPUT after "FLAG: expected a whole number from LO to HI". */
int args_u32(const args *a, const char *flag, const char *v, uint32_t lo,
             uint32_t hi, uint32_t *out);
/* 0 when v is a seed (a whole number that fits 64 bits), written to
 * *seed unless seed is NULL; else EXIT_INPUT after a usage message naming
 * --seed.  run, gui and decide share it, so they share the range. */
int args_check_seed(const args *a, const char *v, uint64_t *seed);
/* Parse --hook-timeout DURATION at a->i: 0 with the value in *ns and its
 * text in *text, or EXIT_INPUT after a usage message. */
int args_hook_timeout(args *a, int64_t *ns, const char **text);
/* The value of option `name` at a->i as a positive duration ("1h",
 * "300s") in *ns: 0, or EXIT_INPUT after a usage message naming it. */
int args_positive_duration(args *a, const char *name, int64_t *ns);
/* The argument at a->i that is no option: the one SCENARIO a command
 * takes, into *scenario.  A usage error for an unknown option or a
 * second scenario. */
int args_scenario(const args *a, const char *arg, const char **scenario);
/* "unknown option '--polcy' (did you mean '--policy'?)": the usage error
 * for arg, with the option of a->usage it is within two edits of. */
int args_unknown_option(const args *a, const char *arg);

/* ---- A command's option table ---------------------------------------------
 *
 * Each command lists its options once, as rows of what the option is and
 * where its value goes; args_option reads the one at a->i by the table.
 * The options several commands share (--set, --param, --policy-plugin,
 * --hook-timeout, --seed, --force, -q) are parsed by the one code of their
 * kind, whichever command has them. */
typedef enum arg_kind {
    ARG_HELP,     /* print a->usage on stdout; args_option returns -1 */
    ARG_SET,      /* *(bool *)slot = true */
    ARG_CLEAR,    /* *(bool *)slot = false */
    ARG_VALUE,    /* *(const char **)slot = the value */
    ARG_TEXT,     /* ARG_VALUE, and an empty value is a usage error */
    ARG_LIST,     /* appended to (const char **)slot, count in *n */
    ARG_PARAM,    /* --param: into (setting *)slot, count in *n */
    ARG_WALLTIME, /* --hook-timeout: *(int64_t *)slot, its text in *text */
    ARG_TYPED,    /* a value of its own type: slot is an arg_typed */
} arg_kind;

/* What an ARG_TYPED option reads, and where it goes. */
typedef enum arg_type {
    ARG_DURATION_NS, /* a positive duration: *(int64_t *)dest, ns */
    ARG_DURATION_S,  /* a positive duration: *(double *)dest, seconds */
    ARG_REAL,        /* a number in (lo, hi): *(double *)dest */
    ARG_INT64,       /* a whole number in [lo, hi]: *(int64_t *)dest */
    ARG_INT,         /* ... into *(int *)dest */
    ARG_UINT64,      /* ... into *(uint64_t *)dest */
    ARG_UINT32,      /* ... into *(uint32_t *)dest */
    ARG_CALL,        /* call(a, name, value, dest): 0, or a usage error's
                        status */
} arg_type;

typedef struct arg_typed {
    arg_type type;
    void *dest;
    double lo, hi;
    int (*call)(args *a, const char *name, const char *value, void *dest);
} arg_typed;

typedef struct arg_opt {
    const char *name;  /* "--out": matched with or without "=value" (a
                          flag, ARG_HELP, ARG_SET or ARG_CLEAR, only
                          exactly) */
    const char *alias; /* "-o", matched exactly; or NULL */
    arg_kind kind;
    void *slot;
    int *n;            /* ARG_LIST, ARG_PARAM: the count */
    const char **text; /* ARG_WALLTIME: the value's text */
} arg_opt;

/* The option at a->i by the n rows of t: 0 when read, -1 after --help,
 * EXIT_INPUT after a usage message, 1 when no row names it. */
int args_option(args *a, const arg_opt *t, size_t n);

#endif
