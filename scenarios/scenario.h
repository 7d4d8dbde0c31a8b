/*
 * scenario.h -- a scenario file, loaded: the engine's config, the policy
 * to run and the [expect] assertions, both as written: the policy stack
 * (policies/policy_setup.h) and the verdicts (reports/expect.h) check them.
 *
 * The loader is the only code that includes inih.  It reports the first
 * problem as "FILE:LINE: [section] key: what was expected, got 'value'";
 * unknown sections and keys are errors, never ignored.  --set overrides
 * are applied as if they were lines of the file, and errors in them say
 * "--set section.key=value: ...".
 */
#ifndef SB_SCENARIO_H
#define SB_SCENARIO_H

#include "config.h"
#include "err.h"
#include "pstack.h"
#include "setting.h"

#define SCENARIO_MAX_PLUGINS 4
#define SCENARIO_MAX_EXPECT 32
/* The longest line of a scenario file and the longest key, in bytes: the
 * loader refuses longer ones, and the writer (writer.h) writes none.  A
 * line holds any value the loader keeps (a plug-in's path, with the
 * scenario's folder, the longest: 1023) after any key. */
#define SCENARIO_LINE_MAX 2000
#define SCENARIO_KEY_MAX 95

typedef struct scenario {
    char path[1024];
    sim_config cfg;
    /* [policy]: name = a+b+c, plugin = path (relative to the file), and
     * every other key as a setting for the stack to resolve. */
    char policy[256];
    char policy_origin[1100];
    /* The stack the file's [policy] parameters were written for: its own
     * name, even when --set policy.name chose another (whose parameters
     * then come only from --set). */
    char file_policy[256];
    /* [policy] from = FILE#SELECTOR: the imported configuration the stack,
     * its parameters and the file's scenario keys came from (the path as
     * opened, relative to the current folder); "" without one. */
    char policy_from[1300];
    char plugins[SCENARIO_MAX_PLUGINS][1024];
    int n_plugins;
    setting settings[PSTACK_MAX_SETTINGS];
    int n_settings;
    /* [expect]: every key as written, for reports/expect.h to check. */
    setting expect[SCENARIO_MAX_EXPECT];
    int n_expect;
    /* Warnings that do not stop a run ("the run ends 5 s after the last
     * fault: too soon to judge recovery"), one per line. */
    char warnings[2048];
} scenario;

/* Load path, then apply the n_sets overrides ("section.key=value",
 * "fault.NAME.key=value").  Returns 0, or -1 with the message in e. */
int scenario_load(const char *path, const char *const *sets, int n_sets,
                  scenario *out, sb_err *e);

#endif
