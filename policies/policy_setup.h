/*
 * policy_setup.h -- from "exponential+token_bucket" and plug-in paths to a
 * checked, parameterised policy stack: what the CLI, the GUI and the
 * comparison reports all do before they can run a policy.
 *
 * A policy_setup owns the plug-ins it loaded and the stack built on them;
 * policy_setup_free releases both (the stack first).
 */
#ifndef SB_POLICY_SETUP_H
#define SB_POLICY_SETUP_H

#include "err.h"
#include "pstack.h"
#include "registry.h"
#include "setting.h"

#define POLICY_SETUP_MAX_PLUGINS 8

typedef struct policy_setup {
    plugin *plugins[POLICY_SETUP_MAX_PLUGINS];
    int n_plugins;
    pstack *stack;
} policy_setup;

/* Load the plug-ins, resolve "a+b+c" against built-ins and plug-ins, and
 * build the stack with the settings.  spec_origin says where spec was
 * written ("x.ini:9: [policy] name", "--policy") for messages.  On failure
 * everything is released. */
int policy_setup_build_at(const char *spec, const char *spec_origin,
                          const char *const *plugin_paths, int n_plugins,
                          const setting *settings, int n_settings,
                          policy_setup *out, sb_err *e);
/* The same, with spec_origin "--policy". */
int policy_setup_build(const char *spec, const char *const *plugin_paths,
                       int n_plugins, const setting *settings, int n_settings,
                       policy_setup *out, sb_err *e);
void policy_setup_free(policy_setup *p);

/* "unknown policy 'expo' (did you mean 'exponential'?); known policies:
 * none, immediate, ...": the built-ins and the plug-ins' policies, and
 * the one within two edits of name.  Returns -1. */
int policy_unknown(const char *name, plugin *const *plugins, int n_plugins,
                   sb_err *e);

/* Settings written for another stack, carried over to `spec`: those that
 * name a parameter of one of its layers are kept, the rest dropped (both
 * in their order).  kept and dropped hold n each.  -1 when spec itself
 * does not build (the message in e). */
int policy_setup_filter(const char *spec, const char *const *plugin_paths,
                        int n_plugins, const setting *in, int n, setting *kept,
                        int *n_kept, setting *dropped, int *n_dropped,
                        sb_err *e);

#endif
