/*
 * ini_file.h -- a scenario file read into entries: the loader's first
 * pass, and the only code of the loader that includes inih.
 *
 * Every `key = value` line becomes an entry that remembers its file and
 * line; section headers are kept with their lines (a section may hold no
 * keys, which inih would not report).  Our reader hands inih each line in
 * a form that every build of inih reads the same way (see ini_file.c), so
 * the loader works with Debian's libinih and with an upstream one,
 * whatever their compile-time options.  What a line cannot be is refused
 * at its line: a section that is not one of the scenario's, a section
 * twice, a key twice (but [policy] plugin, keys.h), a key longer than 95
 * characters, a line longer than SCENARIO_LINE_MAX.
 */
#ifndef SB_INI_FILE_H
#define SB_INI_FILE_H

#include "load.h"

/* Read ld->path into ld's entries and sections.  0, or -1 with the
 * message in ld->e ("FILE:LINE: ..."). */
int ini_file_read(load *ld);

/* Apply one --set "section.key=value" as if it were a line of the file:
 * it replaces the file's entry, or adds one.  0, or -1 with the message
 * in ld->e ("--set section.key=value: ..."). */
int ini_file_set(load *ld, const char *set);
/* [section] key = value with the given origin, unless the file or a --set
 * already has the key (what the user wrote wins).  Returns 0, or -1 with
 * a message in ld->e when the scenario has too many keys. */
int ini_file_put_default(load *ld, const char *section, const char *key,
                         const char *value, const char *origin);

#endif
