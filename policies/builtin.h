/*
 * builtin.h -- the built-in policy tables.  Each lives in its own .c file
 * and goes through the same ABI a plug-in does; registry.c lists them.
 */
#ifndef SB_BUILTIN_H
#define SB_BUILTIN_H

#include "stormbench/policy.h"

extern const sb_policy policy_none;
extern const sb_policy policy_immediate;
extern const sb_policy policy_fixed;
extern const sb_policy policy_exponential;

/* Common parameter limits. */
#define ATTEMPTS_MAX 1000000.0

#endif
