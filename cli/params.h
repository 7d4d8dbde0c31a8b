/*
 * params.h -- the policy parameters a stack gets from a scenario's
 * [policy] section and the command line's --set policy.KEY.
 */
#ifndef SB_PARAMS_H
#define SB_PARAMS_H

#include <stddef.h>

#include "err.h"
#include "policy_setup.h"

struct scenario;
/* The parameters stack `spec` gets from the scenario's [policy] section.
 * All of them when spec is the stack the file names.  Otherwise (--policy,
 * --set policy.name, a compare entry) those of the file's that name a
 * parameter of spec's layers -- so a comparison stays like for like: the
 * file's max_attempts = 5 stays 5 for the other stack -- and every --set
 * policy.KEY.  note (may be NULL) gets one line saying what was kept and
 * dropped, or "" when the file had none.  later[0..n_later) are the
 * settings the caller applies after these (--param, a compare entry's
 * own, a --policy-from's): a kept one they set again is still in out but
 * not said kept (the run uses theirs), and with nothing left to say the
 * note is "".  -1 when spec does not build. */
int cli_scenario_params(const struct scenario *sc, const char *spec,
                        const char *const *plugins, int n_plugins,
                        const setting *later, int n_later, setting *out, int *n,
                        char *note, size_t len, sb_err *e);

#endif
