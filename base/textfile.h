/*
 * textfile.h -- reading the small data files users bring (latency logs,
 * Prometheus histograms, arrival traces, rate profiles): lines with
 * their numbers for messages, and CSV fields.  Used by measured.c and
 * timeline.c; no state of its own.
 */
#ifndef SB_TEXTFILE_H
#define SB_TEXTFILE_H

#include <stdbool.h>

#include "err.h"

/* The longest line read, newline included. */
#define TEXTFILE_LINE_MAX 8192

/* Called with each line that is not blank (and, with comments, not a
 * '#' comment), trimmed and writable, and its 1-based number.  A nonzero
 * return stops the reading and is returned. */
typedef int (*textfile_line_fn)(void *ctx, char *line, int no, sb_err *e);

/* Calls fn for the lines of path (above).  Errors name path (and the line
 * for one too long). */
int textfile_each_line(const char *path, bool comments, textfile_line_fn fn,
                       void *ctx, sb_err *e);
/* s without leading and trailing white space (s is written to). */
char *textfile_trim(char *s);
/* Field col (1-based) of a CSV line, trimmed and its quotes dropped, or
 * NULL when the line has fewer fields.  The line is written to. */
char *textfile_csv_field(char *line, long col);
/* What one unit ("ns", "us", "ms", "s", "m", "h") is in ns; -1 with a
 * message for anything else. */
int textfile_unit_ns(const char *unit, double *ns, sb_err *e);

#endif
