/*
 * saved_command.h -- the command a spread-out estimate was started with,
 * kept in DIR/command so that `merge` can rebuild it, and the jobs file
 * of shell lines that run its parts (`compare` and `risk` with
 * --emit-jobs).
 *
 * DIR/command: a magic line naming the command and the format's version,
 * the directory the command ran in, then its arguments one a line, the
 * options that only say how to run (-j, -o, -q ...) left out.  An
 * argument holding a line break cannot be saved and is refused.
 */
#ifndef SB_SAVED_COMMAND_H
#define SB_SAVED_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* Is arg an option that only says how to run, not what?  *takes_value:
 * its value is the next argument. */
typedef bool saved_command_skip(const char *arg, bool *takes_value);

/* The command of argv (argv[0] the command's name; skip's options left
 * out), run in cwd, into dir/command under magic.  0, or -1 with e set
 * (no file is left half written). */
int saved_command_write(const char *dir, const char *magic, const char *cwd,
                        int argc, char **argv, saved_command_skip *skip,
                        sb_err *e);

/* Does dir/command hold a command saved under magic? */
bool saved_command_is(const char *dir, const char *magic);

/* Rebuild the command saved under magic in dir/command: *argv_out with
 * argv[0] = name (strings owned by *buf: free both), and the directory
 * it ran in into cwd.  0, or -1 with e set (naming the file). */
int saved_command_read(const char *dir, const char *magic, const char *name,
                       char **buf, char ***argv_out, int *argc_out, char *cwd,
                       size_t cwd_len, sb_err *e);

/* Into the file at path, n shell lines, the K-th (from 0):
 *   cd CWD && THIS-BINARY NAME ARGS -q -j 1 -o DIR PART_OPTION K
 * (each word quoted for a POSIX shell; skip's options left out of ARGS;
 * cwd the current directory, dir made absolute).  0, or -1 with e set. */
int saved_command_emit_jobs(const char *path, const char *name, int argc,
                            char **argv, saved_command_skip *skip,
                            const char *dir, const char *part_option,
                            uint64_t n, sb_err *e);

#endif
