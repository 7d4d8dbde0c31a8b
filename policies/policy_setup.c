/*
 * policy_setup.c -- from "exponential+token_bucket" and --policy-plugin
 * paths to a checked, parameterised policy stack.
 */
#include "policy_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classifier.h"
#include "suggest.h"

int policy_unknown(const char *name, plugin *const *plugins, int n_plugins,
                   sb_err *e)
{
    const char *list[64];
    int n = 0;
    for (int i = 0; i < registry_count() && n < 64; i++)
        list[n++] = registry_get(i)->name;
    for (int i = 0; i < n_plugins && n < 64; i++)
        list[n++] = plugin_policy(plugins[i])->name;
    char names[ERR_MSG_MAX];
    suggest_list(list, n, names, sizeof names);
    const char *best = suggest_closest(name, list, n);
    return err_set(e, "unknown policy '%s'%s%s%s; known policies: %s", name,
                   best ? " (did you mean '" : "", best ? best : "",
                   best ? "'?)" : "", names);
}

static int find_layer(const policy_setup *p, const char *name,
                      const char *origin, pstack_layer_spec *out, sb_err *e)
{
    for (int i = 0; i < p->n_plugins; i++) {
        if (strcmp(plugin_policy(p->plugins[i])->name, name) == 0) {
            out->policy = plugin_policy(p->plugins[i]);
            out->origin = plugin_path(p->plugins[i]);
            return 0;
        }
    }
    out->policy = registry_find(name);
    out->origin = NULL;
    if (out->policy)
        return 0;
    sb_err why;
    policy_unknown(name, p->plugins, p->n_plugins, &why);
    return err_set(e, "%s: %s (see 'stormbench policies')", origin, why.msg);
}

int policy_setup_build_at(const char *spec, const char *spec_origin,
                          const char *const *plugin_paths, int n_plugins,
                          const setting *settings, int n_settings,
                          policy_setup *out, sb_err *e)
{
    memset(out, 0, sizeof *out);
    if (n_plugins > POLICY_SETUP_MAX_PLUGINS)
        return err_set(e, "at most %d policy plug-ins",
                       POLICY_SETUP_MAX_PLUGINS);
    for (int i = 0; i < n_plugins; i++) {
        if (plugin_open(plugin_paths[i], &out->plugins[i], e) != 0)
            goto fail;
        out->n_plugins++;
        const char *name = plugin_policy(out->plugins[i])->name;
        for (int k = 0; k < i; k++)
            if (strcmp(plugin_policy(out->plugins[k])->name, name) == 0) {
                err_set(e,
                        "%s and %s both define policy '%s'; load one of "
                        "them",
                        plugin_path(out->plugins[k]),
                        plugin_path(out->plugins[i]), name);
                goto fail;
            }
    }
    pstack_layer_spec layers[PSTACK_MAX_LAYERS];
    int n = 0;
    char buf[512];
    if (strlen(spec) >= sizeof buf) {
        err_set(e, "policy '%.40s...' is too long", spec);
        goto fail;
    }
    snprintf(buf, sizeof buf, "%s", spec);
    size_t len = strlen(buf);
    if (len == 0) {
        err_set(e, "%s: empty policy name", spec_origin);
        goto fail;
    }
    /* strtok would skip the empty name in "immediate+", "+immediate" and
     * "a++b" and run a stack the user did not write. */
    if (buf[0] == '+' || buf[len - 1] == '+' || strstr(buf, "++")) {
        err_set(e,
                "%s: policy '%s' has an empty layer name; write a stack "
                "as names joined by '+', such as exponential+token_bucket",
                spec_origin, spec);
        goto fail;
    }
    for (char *save = NULL, *tok = strtok_r(buf, "+", &save); tok;
         tok = strtok_r(NULL, "+", &save)) {
        if (n == PSTACK_MAX_LAYERS) {
            err_set(e, "%s: policy '%s' has more than %d layers", spec_origin,
                    spec, PSTACK_MAX_LAYERS);
            goto fail;
        }
        if (find_layer(out, tok, spec_origin, &layers[n++], e) != 0)
            goto fail;
        /* Here, where the stack was named (pstack_create says it too,
         * but knows no file or flag). */
        for (int k = 0; k < n - 1; k++)
            if (layers[k].policy == layers[n - 1].policy) {
                err_set(e,
                        "%s: policy '%s' appears twice in the stack "
                        "'%s'",
                        spec_origin, tok, spec);
                goto fail;
            }
    }
    if (pstack_create(layers, n, settings, n_settings, classify_error,
                      &out->stack, e) != 0)
        goto fail;
    return 0;
fail:
    policy_setup_free(out);
    return -1;
}

int policy_setup_build(const char *spec, const char *const *plugin_paths,
                       int n_plugins, const setting *settings, int n_settings,
                       policy_setup *out, sb_err *e)
{
    return policy_setup_build_at(spec, "--policy", plugin_paths, n_plugins,
                                 settings, n_settings, out, e);
}

void policy_setup_free(policy_setup *p)
{
    pstack_destroy(p->stack);
    p->stack = NULL;
    for (int i = 0; i < p->n_plugins; i++)
        plugin_close(p->plugins[i]);
    p->n_plugins = 0;
}

int policy_setup_filter(const char *spec, const char *const *plugin_paths,
                        int n_plugins, const setting *in, int n, setting *kept,
                        int *n_kept, setting *dropped, int *n_dropped,
                        sb_err *e)
{
    policy_setup ps;
    *n_kept = *n_dropped = 0;
    if (policy_setup_build(spec, plugin_paths, n_plugins, NULL, 0, &ps, e) != 0)
        return -1;
    for (int i = 0; i < n; i++) {
        if (pstack_has_param(ps.stack, &in[i]))
            kept[(*n_kept)++] = in[i];
        else
            dropped[(*n_dropped)++] = in[i];
    }
    policy_setup_free(&ps);
    return 0;
}
