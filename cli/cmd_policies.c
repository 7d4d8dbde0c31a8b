/*
 * cmd_policies.c -- `stormbench policies`: every policy, its parameters,
 * their types, defaults and one-line docs.
 */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "builtin.h"
#include "commands.h"

static const char policies_usage[] =
    "Usage: stormbench policies [--policy-plugin FILE.so]... [NAME]\n"
    "\n"
    "List the built-in policies (and those of the plug-ins given) with\n"
    "their parameters: name, type, default, range and a line of doc.\n"
    "Policies stack: --policy exponential+token_bucket; a layer's\n"
    "parameter is set with --param token_bucket.max_tokens=20.\n";

static const char *type_name(const sb_param *p)
{
    switch (p->type) {
    case SB_PARAM_INT:
        return "int";
    case SB_PARAM_REAL:
        return "real";
    case SB_PARAM_DURATION:
        return "duration";
    case SB_PARAM_BOOL:
        return "bool";
    case SB_PARAM_CHOICE:
        return "choice";
    case SB_PARAM_SET:
        return "set";
    }
    return "?";
}

static void show(const sb_policy *p, const char *origin)
{
    printf("%s%s%s%s\n    %s\n", p->name,
           (p->flags & SB_POLICY_LAYER) ? "  (layer: stack it on a backoff "
                                          "policy)"
                                        : "",
           origin ? "  from " : "", origin ? origin : "", p->doc);
    printf("    state: %s\n", p->scope ? p->scope : "none (stateless)");
    for (int j = 0; p->params && p->params[j].name; j++) {
        const sb_param *q = &p->params[j];
        char range[512] = "";
        if (q->type == SB_PARAM_CHOICE)
            snprintf(range, sizeof range, "%s", q->choices);
        else if (q->type == SB_PARAM_SET)
            snprintf(range, sizeof range, "any of %s, comma-separated",
                     q->choices);
        else if (q->type == SB_PARAM_DURATION)
            snprintf(range, sizeof range, "%.15gs..%.15gs", q->min, q->max);
        else if (q->type != SB_PARAM_BOOL)
            snprintf(range, sizeof range, "%.15g..%.15g", q->min, q->max);
        printf("    %-22s %-8s default %-8s %-s%s%s%s\n", q->name, type_name(q),
               q->default_value, q->doc, range[0] ? " [" : "", range,
               range[0] ? "]" : "");
    }
    if (p == &policy_classified) {
        char table[2048];
        fputs(classified_presets_text(table, sizeof table), stdout);
    }
    printf("\n");
}

int cmd_policies(int argc, char **argv)
{
    args a = {argc, argv, 1, "policies", policies_usage};
    const char *paths[CLI_MAX_LIST];
    int np = 0;
    const char *only = NULL;
    const arg_opt opts[] = {
        {"--help", "-h", ARG_HELP, NULL, NULL, NULL},
        {"--policy-plugin", NULL, ARG_LIST, paths, &np, NULL},
    };
    for (; a.i < argc; a.i++) {
        const char *arg = argv[a.i];
        int rc = args_option(&a, opts, sizeof opts / sizeof *opts);
        if (rc < 0)
            return EXIT_OK; /* --help */
        if (rc == EXIT_INPUT)
            return rc;
        if (np > 8)
            return args_usage_error(&a, "at most 8 plug-ins");
        if (rc == 0)
            continue;
        if (arg[0] == '-')
            return args_unknown_option(&a, arg);
        if (only) /* the first name used to be dropped without a word */
            return args_usage_error(&a,
                                    "one policy name at a time (got "
                                    "'%s' and '%s')",
                                    only, arg);
        only = arg;
    }
    plugin *loaded[8];
    int nl = 0;
    sb_err e;
    int rc = EXIT_OK;
    for (int i = 0; i < np; i++) {
        if (plugin_open(paths[i], &loaded[nl], &e) != 0) {
            fprintf(stderr, "stormbench policies: %s\n", e.msg);
            rc = EXIT_INPUT;
            goto done;
        }
        nl++;
    }
    int shown = 0;
    for (int i = 0; i < registry_count(); i++)
        if (!only || strcmp(only, registry_get(i)->name) == 0) {
            show(registry_get(i), NULL);
            shown++;
        }
    for (int i = 0; i < nl; i++)
        if (!only || strcmp(only, plugin_policy(loaded[i])->name) == 0) {
            show(plugin_policy(loaded[i]), plugin_path(loaded[i]));
            shown++;
        }
    if (only && shown == 0) {
        policy_unknown(only, loaded, nl, &e);
        fprintf(stderr, "stormbench policies: %s\n", e.msg);
        rc = EXIT_INPUT;
    }
done:
    for (int i = 0; i < nl; i++)
        plugin_close(loaded[i]);
    return rc;
}
