/*
 * find.h -- where a scenario named on the command line is: a path, or a
 * shipped scenario looked up in ./scenarios or the installed library.
 */
#ifndef SB_FIND_H
#define SB_FIND_H

#include <limits.h>
#include <stddef.h>

#include "err.h"

/* The scenario file `arg` names: a path, or the name of a shipped
 * scenario ("retry-storm") in ./scenarios or the installed library.
 * 0 with the path in out, or -1 with a message listing the shipped ones. */
int cli_find_scenario(const char *arg, char *out, size_t len, sb_err *e);
/* The directories a shipped scenario is looked up in, those that exist,
 * in the order cli_find_scenario tries them (find.c says which); returns
 * how many (at most max). */
int cli_scenario_dirs(char dirs[][PATH_MAX], int max);

#endif
