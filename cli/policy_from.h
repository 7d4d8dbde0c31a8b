/*
 * policy_from.h -- --policy-from FILE[#NAME]: a policy imported from
 * another tool's configuration (gRPC, Envoy, Istio, Resilience4j, AWS),
 * for every command that takes --policy.
 */
#ifndef SB_POLICY_FROM_H
#define SB_POLICY_FROM_H

#include "err.h"
#include "policy_setup.h"

struct import_result;
/* Import arg ("FILE#NAME"; sel, when given, names the configuration
 * instead) in format (NULL: detected) into *r, and build its stack into
 * *ps (free with policy_setup_free).  0, or -1 with "FILE:LINE: ..." in
 * e. */
int cli_policy_from(const char *arg, const char *sel, const char *format,
                    struct import_result *r, policy_setup *ps, sb_err *e);
/* Replace each --policy-from in argv (argv[0] is the command's name) by
 * the --policy, --param and --set options it stands for.  0, or
 * EXIT_INPUT after a message. */
int cli_expand_policy_from(const char *cmd, int *argc, char ***argv);
/* The FILE#NAME of the --policy-from that cli_expand_policy_from
 * expanded for run, gui or decide, and in *stack (when not NULL) the
 * stack it became; NULL when there was none. */
const char *cli_policy_from_used(const char **stack);

#endif
