/* dladdr1, to tell a function from data in a plug-in's symbol table. */
#define _GNU_SOURCE
#include "registry.h"

#include <dlfcn.h>
#include <link.h> /* ElfW, STT_FUNC */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "hookguard.h"
#include "schema.h"

/* The ABI's layout is pinned in stormbench/policy.h itself, so a
 * plug-in's own build checks it too. */

static const sb_policy *const builtins[] = {
    &policy_none,
    &policy_immediate,
    &policy_fixed,
    &policy_exponential,
    &policy_plan,
    &policy_classified,
    &policy_aws_quota,
    &policy_token_bucket,
    &policy_retry_budget,
    &policy_concurrent_budget,
    &policy_adaptive_throttle,
    &policy_circuit_breaker,
    &policy_deadline,
    &policy_retry_after,
    &policy_retry_on,
    &policy_hedge,
};

int registry_count(void)
{
    return (int)(sizeof builtins / sizeof *builtins);
}

const sb_policy *registry_get(int i)
{
    return i >= 0 && i < registry_count() ? builtins[i] : NULL;
}

const sb_policy *registry_find(const char *name)
{
    for (int i = 0; i < registry_count(); i++)
        if (strcmp(builtins[i]->name, name) == 0)
            return builtins[i];
    return NULL;
}

struct plugin {
    void *handle;
    const sb_policy *policy;
    char path[1024];
};

static int refuse(plugin *p, sb_err *e)
{
    (void)e;
    if (p->handle)
        dlclose(p->handle);
    free(p);
    return -1;
}

/* Is the entry point code?  A plug-in that exports its table under the
 * entry point's name (`const sb_policy sb_policy_plugin = {...}`) instead
 * of a function returning it would be called as code and crash the host;
 * the symbol's type in the plug-in's symbol table tells the two apart.
 * Where dladdr1 is missing (not glibc) the check is skipped. */
static bool is_function(void *sym)
{
#ifdef __GLIBC__
    Dl_info info;
    const ElfW(Sym) *s = NULL;
    if (dladdr1(sym, &info, (void **)&s, RTLD_DL_SYMENT) == 0 || s == NULL)
        return true; /* no symbol information: cannot tell, assume code */
    int type = ELF64_ST_TYPE(s->st_info); /* the same macro for ELF32 */
    return type == STT_FUNC || type == STT_GNU_IFUNC;
#else
    (void)sym;
    return true;
#endif
}

int plugin_open(const char *path, plugin **out, sb_err *e)
{
    *out = NULL;
    plugin *p = calloc(1, sizeof *p);
    if (p == NULL)
        return err_set(e, "out of memory");
    /* A truncated path could name another file: refuse it instead. */
    if (strlen(path) + 2 >= sizeof p->path) {
        err_set(e,
                "%.60s...: the plug-in's path is longer than %zu "
                "characters",
                path, sizeof p->path - 3);
        return refuse(p, e);
    }
    snprintf(p->path, sizeof p->path, "%s%s", strchr(path, '/') ? "" : "./",
             path);
    /* Loading runs the plug-in's constructors, and the entry point is its
     * code too: a crash or a hang in either is named (hookguard.h), the
     * policy's name not being known yet. */
    hookguard_enter(NULL, path, "its load-time code (constructors)",
                    HOOKGUARD_BEFORE_RUN);
    p->handle = dlopen(p->path, RTLD_NOW | RTLD_LOCAL);
    hookguard_leave();
    if (p->handle == NULL) {
        err_set(e, "%s: cannot load policy plug-in: %s", path, dlerror());
        return refuse(p, e);
    }
    void *sym = dlsym(p->handle, SB_PLUGIN_ENTRY_NAME);
    if (sym == NULL) {
        err_set(e,
                "%s: not a stormbench policy plug-in: it exports no '%s' "
                "function (see policies/examples/)",
                path, SB_PLUGIN_ENTRY_NAME);
        return refuse(p, e);
    }
    if (!is_function(sym)) {
        err_set(e,
                "%s: '%s' is data, not a function: export a function "
                "that returns a pointer to the plug-in's sb_policy (see "
                "policies/examples/)",
                path, SB_PLUGIN_ENTRY_NAME);
        return refuse(p, e);
    }
    sb_plugin_entry_fn entry;
    *(void **)&entry = sym;
    hookguard_enter(NULL, path, SB_PLUGIN_ENTRY_NAME "()",
                    HOOKGUARD_BEFORE_RUN);
    p->policy = entry();
    hookguard_leave();
    if (schema_check_policy(p->policy, path, e) != 0)
        return refuse(p, e);
    if (registry_find(p->policy->name)) {
        err_set(e,
                "%s: plug-in policy '%s' has the name of a built-in "
                "policy; rename it",
                path, p->policy->name);
        return refuse(p, e);
    }
    *out = p;
    return 0;
}

const sb_policy *plugin_policy(const plugin *p)
{
    return p->policy;
}
const char *plugin_path(const plugin *p)
{
    return p->path;
}

void plugin_close(plugin *p)
{
    if (p == NULL)
        return;
    dlclose(p->handle);
    free(p);
}
