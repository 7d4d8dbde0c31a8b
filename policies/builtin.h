/*
 * builtin.h -- the built-in policy tables.  Each lives in its own .c file
 * and goes through the same ABI a plug-in does; registry.c lists them.
 */
#ifndef SB_BUILTIN_H
#define SB_BUILTIN_H

#include <stddef.h>

#include "stormbench/policy.h"

extern const sb_policy policy_none;
extern const sb_policy policy_immediate;
extern const sb_policy policy_fixed;
extern const sb_policy policy_exponential;
extern const sb_policy policy_plan;
extern const sb_policy policy_classified;
/* classified's presets as a table, for `stormbench policies`. */
const char *classified_presets_text(char *buf, size_t len);
extern const sb_policy policy_aws_quota;
/* Layers (SB_POLICY_LAYER): stacked on a policy that retries. */
extern const sb_policy policy_token_bucket;
extern const sb_policy policy_retry_budget;
extern const sb_policy policy_concurrent_budget;
extern const sb_policy policy_adaptive_throttle;
extern const sb_policy policy_circuit_breaker;
extern const sb_policy policy_deadline;
extern const sb_policy policy_retry_after;
extern const sb_policy policy_retry_on;
extern const sb_policy policy_hedge;

/* create() for a policy whose only parameter is one number (REAL or
 * DURATION): its shared state is that double.  Free with free(). */
int32_t builtin_create_one(const sb_value *v, void **shared, char *err,
                           size_t errlen);

/* Common parameter limits. */
#define ATTEMPTS_MAX 1000000.0

#endif
