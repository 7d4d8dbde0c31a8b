/*
 * writer.h -- a scenario written back as an INI file that loads into the
 * same config, bit for bit.
 *
 * The GUI's "save as scenario" writes what the user explored by hand --
 * the scenario with every injected fault and live change as a scheduled
 * fault, the policy, and an [expect] section filled from what was
 * observed -- so that a storm found by hand becomes a CI check.  Every
 * key is written explicitly (defaults included) so the file does not
 * depend on a later version's defaults, and every number is written so
 * that reading it back gives the same double or the same nanosecond.
 */
#ifndef SB_WRITER_H
#define SB_WRITER_H

#include <stdio.h>

#include "config.h"
#include "err.h"
#include "setting.h"

/* What goes into the file besides the engine's config. */
typedef struct writer_extra {
    const char *comment;   /* lines put at the top as "; " comments,
                                  or NULL */
    const char *policy;    /* "exponential+token_bucket" */
    const setting *params; /* its [policy] keys, as written */
    int n_params;
    const char *const *plugins; /* [policy] plugin = ... */
    int n_plugins;
    const setting *expect; /* [expect] keys, as written */
    int n_expect;
    const char *policy_from; /* [policy] from = FILE#SELECTOR (the
                                  scenario's policy_from), written instead
                                  of name, FILE made absolute; NULL or ""
                                  to write the stack by name */
} writer_extra;

/* Write cfg and x as a scenario file.  Returns 0, or -1 with a message
 * in e (a write error). */
int scenario_write(FILE *f, const sim_config *cfg, const writer_extra *x,
                   sb_err *e);

#endif
