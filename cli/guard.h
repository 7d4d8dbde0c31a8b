/*
 * guard.h -- a policy plug-in that crashes or hangs in a hook stops the
 * run with a message that names it (guard.c says how).
 */
#ifndef SB_GUARD_H
#define SB_GUARD_H

#include <stdint.h>

#include "err.h"

/* Catch SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT (on an alternate
 * stack): one raised inside a plug-in's hook prints "stormbench CMD:
 * policy 'P' (from FILE) crashed in HOOK at simulated time T: SIGNAL; the
 * run is stopped", removes the files given to cli_guard_forget and exits
 * with EXIT_PLUGIN; any other goes to the action installed before (a core
 * dump, or a sanitizer's report).  cmd is borrowed for good. */
void cli_guard_install(const char *cmd);
/* A temporary output file to remove if the run is stopped so: tmp is
 * borrowed and read only then ("" for none by that time).  At most 8. */
void cli_guard_forget(const char *tmp);
/* Start the watchdog: a plug-in hook still running after timeout_ns of
 * wall time stops the run the same way.  text is the flag's value, for
 * the message.  0, or -1 with a message in e. */
int cli_guard_watch(int64_t timeout_ns, const char *text, sb_err *e);

#endif
