/*
 * commands.h -- the subcommands of `stormbench`, each in its cmd_*.c:
 * argc and argv from main (argv[0] is the command's name); each returns
 * the program's exit status (args.h).
 */
#ifndef SB_COMMANDS_H
#define SB_COMMANDS_H

#include <stdbool.h>

int cmd_run(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_policies(int argc, char **argv);
int cmd_decide(int argc, char **argv);
int cmd_gui(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_risk(int argc, char **argv);
int cmd_merge(int argc, char **argv);

/* Does DIR hold a command saved by `risk --emit-jobs`? */
bool cmd_risk_saved(const char *dir);

/* merge for risk's jobs: the estimate from the runs in dirs, written to
 * out (default dirs[0]) as `risk -o` writes it. */
int cmd_risk_merge(const char *const *dirs, int n_dirs, const char *out,
                   bool quiet);
int cmd_import(int argc, char **argv);
int cmd_lint(int argc, char **argv);
int cmd_scenarios(int argc, char **argv);

#endif
