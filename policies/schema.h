/*
 * schema.h -- the checks every policy table passes before use, built-in or
 * plug-in, and the parsing of parameter values from text.
 */
#ifndef SB_SCHEMA_H
#define SB_SCHEMA_H

#include <stddef.h>

#include "err.h"
#include "stormbench/policy.h"

#define SCHEMA_MAX_PARAMS 24

/* ABI version, struct size, name, hooks and parameter schema (every default
 * must parse).  `origin` (a plug-in path, or NULL) goes into the message. */
int schema_check_policy(const sb_policy *p, const char *origin, sb_err *e);

/* Parse `text` as a value of parameter p; the message says what was
 * expected ("expected a duration ... got 'x'", "expected a number between
 * 1 and 100, got '500'"). */
int schema_parse_value(const sb_param *p, const char *text, sb_value *v,
                       sb_err *e);

/* Entries before the NULL-named terminator. */
int schema_count_params(const sb_policy *p);

/* "policy 'x'" or "policy 'x' (from path)". */
const char *schema_describe(const sb_policy *p, const char *origin, char *buf,
                            size_t len);

#endif
