/*
 * registry.h -- the built-in policies by name, and user plug-ins.
 *
 * Built-ins are static tables; plug-ins are .so files opened with dlopen
 * and checked exactly like built-ins (schema_check_policy) before use.
 * A plugin handle owns the loaded library: close it only after every
 * stack that uses its policy is destroyed.
 */
#ifndef SB_REGISTRY_H
#define SB_REGISTRY_H

#include "err.h"
#include "stormbench/policy.h"

int registry_count(void);
const sb_policy *registry_get(int i);
/* NULL when no built-in has that name. */
const sb_policy *registry_find(const char *name);

typedef struct plugin plugin;

/* Load a plug-in.  A bare file name is looked up in the current directory,
 * not the system's library path.  Refuses (with dlclose) a path too long
 * to hold, a library that cannot be opened, one that lacks the entry point
 * or exports it as data rather than a function, one whose entry returns
 * NULL, speaks another ABI version, has a short struct, or reuses a
 * built-in's name. */
int plugin_open(const char *path, plugin **out, sb_err *e);
const sb_policy *plugin_policy(const plugin *p);
const char *plugin_path(const plugin *p);
void plugin_close(plugin *p);

#endif
