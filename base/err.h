/*
 * err.h -- the one error type.
 *
 * Functions that can fail return 0 on success or a nonzero status and, on
 * failure, leave a message a user can act on in an sb_err the caller owns:
 * "scenarios/x.ini:14: [server] workers: expected a positive integer or
 * 'unlimited', got 'ten'".  Messages never end with a newline.
 */
#ifndef SB_ERR_H
#define SB_ERR_H

#include <stddef.h>

#include "compiler.h"
#define ERR_MSG_MAX 1024

typedef struct sb_err {
    char msg[ERR_MSG_MAX];
} sb_err;

/* Overwrite e's message (e may be NULL); returns -1 so callers can
 * `return err_set(e, ...)`. */
int err_set(sb_err *e, const char *fmt, ...) SB_PRINTF(2, 3);

/* Put "prefix: " in front of e's current message; returns -1. */
int err_prefix(sb_err *e, const char *fmt, ...) SB_PRINTF(2, 3);

#endif
