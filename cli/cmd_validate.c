/*
 * cmd_validate.c -- `stormbench validate FILE...`: load every scenario and
 * build its policy stack, without running anything.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "print.h"
#include "scenario.h"

static const char validate_usage[] =
    "Usage: stormbench validate [--policy-plugin FILE.so]... FILE...\n"
    "\n"
    "Check scenario files: every section, key and value, the policy and its\n"
    "parameters.  Prints 'ok' or the first problem of each file, and any\n"
    "warnings.\n"
    "\n"
    "Exit status: 0 all files are valid, 2 at least one is not.\n";

static int validate_one(const char *path, const char *const *plugins,
                        int n_plugins)
{
    scenario *sc = calloc(1, sizeof *sc);
    if (sc == NULL)
        return EXIT_INPUT;
    sb_err e;
    policy_setup ps;
    memset(&ps, 0, sizeof ps);
    int rc = EXIT_INPUT;
    if (scenario_load(path, NULL, 0, sc, &e) != 0) {
        fprintf(stderr, "%s\n", e.msg);
        goto done;
    }
    const char *all[SCENARIO_MAX_PLUGINS + CLI_MAX_LIST];
    int n = 0;
    for (int i = 0; i < sc->n_plugins; i++)
        all[n++] = sc->plugins[i];
    for (int i = 0; i < n_plugins; i++)
        all[n++] = plugins[i];
    if (policy_setup_build(sc->policy, all, n, sc->settings, sc->n_settings,
                           &ps, &e) != 0) {
        fprintf(stderr, "%s: [policy] %s\n", path, e.msg);
        goto done;
    }
    char pol[512];
    printf("%s: ok (%s; policy %s)\n", path, sc->cfg.name,
           print_policy(ps.stack, pol, sizeof pol));
    for (const char *p = sc->warnings; *p;) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(stderr, "%s: warning: %.*s\n", path, len, p);
        p += len + (nl != NULL);
    }
    rc = EXIT_OK;
done:
    policy_setup_free(&ps);
    free(sc);
    return rc;
}

int cmd_validate(int argc, char **argv)
{
    args a = {argc, argv, 1, "validate"};
    const char *files[CLI_MAX_LIST * 4];
    const char *plugins[CLI_MAX_LIST];
    int nf = 0, np = 0;
    for (; a.i < argc; a.i++) {
        const char *arg = argv[a.i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs(validate_usage, stdout);
            return EXIT_OK;
        }
        if (args_is(&a, "--policy-plugin")) {
            const char *v = args_value(&a, "--policy-plugin");
            if (v == NULL)
                return EXIT_INPUT;
            if (np == CLI_MAX_LIST)
                return args_usage_error(&a, "too many plug-ins");
            plugins[np++] = v;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return args_usage_error(&a, "unknown option '%s'", arg);
        } else if (nf < CLI_MAX_LIST * 4) {
            files[nf++] = arg;
        } else {
            return args_usage_error(&a, "too many files");
        }
    }
    if (nf == 0)
        return args_usage_error(&a, "no scenario file given");
    int rc = EXIT_OK;
    for (int i = 0; i < nf; i++)
        if (validate_one(files[i], plugins, np) != EXIT_OK)
            rc = EXIT_INPUT;
    return rc;
}
