/*
 * syntax.h -- what a line of a scenario file can say: the rules the
 * loader reads lines by and the writer writes them by, in one place, so
 * that what one writes the other reads back the same.
 *
 * A line is "key = value".  A ';' after a blank starts a comment (the
 * loader cuts it, as inih's inline comments do); blanks around the key
 * and the value are dropped; a key ends at the first '=' or ':'; a line
 * that starts with ';' or '#' is a comment, one that starts with '[' a
 * section header.  A name (the NAME of [fault.NAME], [server.NAME],
 * [policy.NAME], [expect.NAME] and [step.NAME], and a tier or step named
 * in a value) is letters, digits, '_' and '-', at most SIM_NAME_MAX - 1
 * bytes, so that it reads the same in a header, in a value and in every
 * output.  Free text (a scenario's name, a policy's) is not a name.
 */
#ifndef SB_SYNTAX_H
#define SB_SYNTAX_H

#include <stdbool.h>

/* The name rule as a message says it ("a tier name (" SYNTAX_NAME_RULE
 * ")"). */
#define SYNTAX_NAME_RULE "letters, digits, _ and -, at most 63"

/* Is name a name (non-empty, by the rule above)? */
bool syntax_name_ok(const char *name);

/* s without its blanks around, as a line's key and value are read: cut
 * in place, the start returned. */
char *syntax_trim(char *s);

/* Where the text of a line stops: at its inline comment (a ';' after a
 * blank), or at its end. */
const char *syntax_comment(const char *s);

/* Why `key = value` would not read back as this key, or as this value
 * ("holds a line break", "holds ';' after a blank, which starts a
 * comment" ...); NULL when it reads back the same.  A value starting
 * with ';' reads back when written "key =;..." (no blank before it). */
const char *syntax_key_problem(const char *key);
const char *syntax_value_problem(const char *value);

#endif
