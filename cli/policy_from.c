/*
 * policy_from.c -- `--policy-from FILE[#NAME]` on run, compare, gui and
 * decide: an imported configuration (scenarios/import.h) run directly.
 *
 * The option is expanded, before the command parses its arguments, into
 * the options that command already takes: `--policy STACK` (compare:
 * `--policy STACK:KEY=VALUE:...`), a `--param` for EVERY parameter of
 * every layer -- those the file set, and the built-in values of the rest
 * -- and a `--set` for each scenario key the file set (timeouts,
 * deadlines, tiers).  So the stack's parameters come from the file alone
 * (a scenario's [policy] parameters cannot leak in), the run is exactly
 * the run of the printed equivalent, and each command's own checks and
 * messages apply unchanged.  The stack is built once here first, so a
 * value it refuses is named at its line in the imported file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "import.h"
#include "policy_from.h"

int cli_policy_from(const char *arg, const char *sel, const char *format,
                    import_result *r, policy_setup *ps, sb_err *e)
{
    char path[1024], hash[200];
    import_split(arg, path, sizeof path, hash, sizeof hash);
    if (sel == NULL || *sel == '\0')
        sel = hash;
    if (import_load(path, format, sel, r, e) != 0)
        return -1;
    char origin[1200];
    snprintf(origin, sizeof origin, "%s (imported)", path);
    return policy_setup_build_at(r->policy, origin, NULL, 0, r->params,
                                 r->n_params, ps, e);
}

/* Every parameter of the built stack as "layer.key=value". */
static int all_params(const policy_setup *ps, char out[][400], int max)
{
    int n = 0;
    for (int l = 0; l < pstack_layers(ps->stack); l++) {
        const sb_policy *p = pstack_layer(ps->stack, l);
        for (int k = 0; p->params && p->params[k].name && n < max; k++)
            snprintf(out[n++], 400, "%s.%s=%s", p->name, p->params[k].name,
                     pstack_param_text(ps->stack, l, k));
    }
    return n;
}

typedef struct grow {
    char **v;
    int n;
} grow;

static int push(grow *g, const char *s)
{
    char **v = realloc(g->v, (size_t)(g->n + 2) * sizeof *v);
    if (v == NULL)
        return -1;
    g->v = v;
    g->v[g->n] = strdup(s);
    if (g->v[g->n] == NULL)
        return -1;
    g->v[++g->n] = NULL;
    return 0;
}

/* The last --policy-from expanded (not compare's), and the stack it
 * became: a scenario saved from the run names the file again. */
static char used_arg[1300], used_stack[256];

const char *cli_policy_from_used(const char **stack)
{
    if (stack)
        *stack = used_stack;
    return used_arg[0] ? used_arg : NULL;
}

/* The options one --policy-from becomes for cmd. */
static int expand_one(const char *cmd, const char *arg, grow *g, sb_err *e)
{
    static import_result r;
    policy_setup ps;
    if (cli_policy_from(arg, NULL, NULL, &r, &ps, e) != 0)
        return -1;
    static char params[PSTACK_MAX_SETTINGS * 2][400];
    int n = all_params(&ps, params, PSTACK_MAX_SETTINGS * 2);
    policy_setup_free(&ps);
    int rc = 0;
    if (strcmp(cmd, "compare") == 0) {
        static char entry[PSTACK_MAX_SETTINGS * 2 * 400];
        size_t used = (size_t)snprintf(entry, sizeof entry, "%s", r.policy);
        for (int i = 0; i < n && used < sizeof entry; i++)
            used += (size_t)snprintf(entry + used, sizeof entry - used, ":%s",
                                     params[i]);
        rc |= push(g, "--policy") | push(g, entry);
    } else {
        snprintf(used_arg, sizeof used_arg, "%s", arg);
        snprintf(used_stack, sizeof used_stack, "%s", r.policy);
        rc |= push(g, "--policy") | push(g, r.policy);
        for (int i = 0; i < n; i++)
            rc |= push(g, "--param") | push(g, params[i]);
    }
    char sets[IMPORT_MAX_SETS][320];
    int ns = import_set_args(&r, sets, IMPORT_MAX_SETS);
    if (strcmp(cmd, "decide") == 0 && ns > 0)
        fprintf(stderr,
                "stormbench decide: note: %s: the file's scenario "
                "keys (%s ...) do not apply to one decision\n",
                arg, sets[0]);
    /* A scenario's tiers are its own sections: --set cannot make them, so
     * a topology's tiers are for pasting from `stormbench import`. */
    bool topo = strcmp(r.format, "topology") == 0;
    if (topo && strcmp(cmd, "decide") != 0)
        fprintf(stderr,
                "stormbench %s: note: %s: the clients' policy and "
                "[clients] keys apply; the tiers do not (paste them from "
                "'stormbench import %s')\n",
                cmd, arg, arg);
    for (int i = 0; i < ns && strcmp(cmd, "decide") != 0; i++)
        if (!topo || strncmp(sets[i], "clients.", 8) == 0)
            rc |= push(g, "--set") | push(g, sets[i]);
    if (rc != 0)
        return err_set(e, "out of memory");
    return 0;
}

static void grow_free(grow *g)
{
    for (int i = 0; i < g->n; i++)
        free(g->v[i]);
    free(g->v);
}

/* The arguments with each --policy-from expanded; on an error, nothing
 * is kept (the caller exits). */
static int expand_all(const char *cmd, bool ok, int argc, char **argv, grow *g,
                      int *found)
{
    args a = {argc, argv, 0, cmd, NULL};
    sb_err e;
    for (; a.i < argc; a.i++) {
        if (!args_is(&a, "--policy-from")) {
            if (push(g, argv[a.i]) != 0) {
                fprintf(stderr, "stormbench %s: out of memory\n", cmd);
                return EXIT_INPUT;
            }
            continue;
        }
        if (!ok)
            return args_usage_error(&a, "--policy-from is for run, "
                                        "compare, gui and decide");
        const char *v = args_value(&a, "--policy-from");
        if (v == NULL)
            return EXIT_INPUT;
        if ((*found)++ && strcmp(cmd, "compare") != 0)
            return args_usage_error(&a, "one --policy-from at a time");
        if (expand_one(cmd, v, g, &e) != 0) {
            fprintf(stderr, "stormbench %s: --policy-from %s: %s\n", cmd, v,
                    e.msg);
            return EXIT_INPUT;
        }
    }
    return 0;
}

int cli_expand_policy_from(const char *cmd, int *argc, char ***argv)
{
    static const char *const takes[] = {"run", "compare", "gui", "decide"};
    bool ok = false;
    for (size_t i = 0; i < 4; i++)
        ok |= strcmp(cmd, takes[i]) == 0;
    grow g = {NULL, 0};
    int found = 0;
    int rc = expand_all(cmd, ok, *argc, *argv, &g, &found);
    if (rc != 0) {
        grow_free(&g);
        return rc;
    }
    if (found) {
        *argc = g.n;
        *argv = g.v; /* lives until the program ends */
    } else {
        grow_free(&g);
    }
    return 0;
}
