/*
 * outfile.h -- output files written whole or not at all.
 *
 * outfile_open() creates a temporary file next to the target (creating
 * missing parent directories); outfile_commit() flushes, syncs and renames
 * it over the target, so a reader never sees half a file and a failed run
 * leaves the previous file in place.  "-" means standard output, which is
 * written directly.
 */
#ifndef SB_OUTFILE_H
#define SB_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"

typedef struct outfile {
    FILE *f;
    bool is_stdout;
    char path[1024];
    char tmp[1040];
} outfile;

int outfile_open(outfile *o, const char *path, sb_err *e);
/* Flush, sync and close the temporary, without renaming it: a caller
 * that writes several files finishes them all before it renames any, so
 * a write error in one leaves every target untouched.  Returns -1 with a
 * message when anything failed (the temporary is then removed). */
int outfile_finish(outfile *o, sb_err *e);
/* Finish (unless done) and rename the temporary over the target.
 * Returns -1 with a message when anything failed (the target is then
 * untouched and the temporary removed). */
int outfile_commit(outfile *o, sb_err *e);
/* Write len bytes to path whole, in one go: a temporary file beside it,
 * renamed over it, without fsync and without creating directories (see
 * outfile_make_parents).  For files written by the thousand and cheap to
 * make again -- a comparison's saved runs -- where whole-or-nothing
 * matters and surviving a power cut does not. */
int outfile_write_whole(const char *path, const void *data, size_t len,
                        sb_err *e);

/* Create the missing directories of path's directory part (mkdir -p). */
int outfile_make_parents(const char *path, sb_err *e);

/* Give up: remove the temporary.  Safe after commit or on a zeroed o. */
void outfile_abort(outfile *o);

#endif
