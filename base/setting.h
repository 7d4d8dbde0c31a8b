/*
 * setting.h -- one `key = value` as a user wrote it, remembered with where
 * it was written, so that the layer that finally interprets it can point
 * there in its error messages.
 *
 * The scenario loader (scenarios/) reads [policy] and [expect] keys but
 * cannot know what they mean: policy parameters belong to the policy stack
 * (policies/), expectations to the verdicts (reports/).  It hands them on
 * as settings; the layer that owns them checks them.  origin is
 * "scenarios/x.ini:12: [policy]", "--param" or "--set expect.k=v", and
 * messages read "<origin> <key>: what was expected".
 */
#ifndef SB_SETTING_H
#define SB_SETTING_H

#include "err.h"

typedef struct setting {
    char key[96];
    char value[256];
    char origin[320];
} setting;

/* "key=value" (as --param gives it) into s, with the given origin.
 * Returns 0, or -1 with a message in e naming `flag`. */
int setting_parse(const char *arg, const char *flag, setting *s, sb_err *e);

#endif
