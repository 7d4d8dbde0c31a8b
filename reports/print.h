/*
 * print.h -- the human-readable run summary printed by `stormbench run`.
 */
#ifndef SB_PRINT_H
#define SB_PRINT_H

#include <stdio.h>

#include "config.h"
#include "expect.h"
#include "pstack.h"
#include "summary.h"

/* "exponential (base=100ms, ...)" into buf. */
const char *print_policy(const pstack *ps, char *buf, size_t len);

/* "HEAD exponential (base=100ms, ...)TAIL" on one line when it fits in 80
 * columns; else "HEAD exponential+circuit_breakerTAIL", then a line per
 * layer, "exponential: base=100ms, multiplier=2, ...", indented by
 * `indent` and wrapped at 80 columns. */
void print_policy_block(FILE *f, const char *head, const char *tail, int indent,
                        const pstack *ps);

/* path: the scenario file, for the first line. */
void print_summary(FILE *f, const sim_config *c, const char *path,
                   const pstack *ps, const sim_summary *s);
/* One line per expectation, PASS / FAIL with its explanation. */
void print_expectations(FILE *f, const expect_result *r, int n);

#endif
