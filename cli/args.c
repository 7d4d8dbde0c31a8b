#include <stdarg.h>
#include <string.h>

#include "cli.h"
#include "units.h"

bool args_is(const args *a, const char *name)
{
    const char *s = a->argv[a->i];
    size_t n = strlen(name);
    return strncmp(s, name, n) == 0 && (s[n] == '\0' || s[n] == '=');
}

const char *args_value(args *a, const char *name)
{
    const char *s = a->argv[a->i];
    const char *eq = strchr(s, '=');
    if (eq && strncmp(s, name, (size_t)(eq - s)) == 0)
        return eq + 1;
    if (a->i + 1 >= a->argc) {
        args_usage_error(a, "option %s needs a value", name);
        return NULL;
    }
    return a->argv[++a->i];
}

int args_usage_error(const args *a, const char *fmt, ...)
{
    fprintf(stderr, "stormbench %s: ", a->cmd);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'stormbench %s --help'.\n", a->cmd);
    return EXIT_INPUT;
}

int args_list_add(args *a, const char **list, int *n, const char *name)
{
    const char *v = args_value(a, name);
    if (v == NULL)
        return EXIT_INPUT;
    if (*n == CLI_MAX_LIST)
        return args_usage_error(a, "too many %s options", name);
    list[(*n)++] = v;
    return 0;
}

int args_param(args *a, setting *params, int *n)
{
    const char *v = args_value(a, "--param");
    if (v == NULL)
        return EXIT_INPUT;
    if (*n == PSTACK_MAX_SETTINGS)
        return args_usage_error(a, "too many --param options");
    sb_err e;
    if (setting_parse(v, "--param", &params[(*n)++], &e) != 0)
        return args_usage_error(a, "%s", e.msg);
    return 0;
}

int args_check_seed(const args *a, const char *v, uint64_t *seed)
{
    /* The loader's own check would name "--set scenario.seed=...", which
     * the user never wrote. */
    uint64_t s;
    sb_err e;
    if (units_u64(v, &s, &e) != 0)
        return args_usage_error(a, "--seed: %s", e.msg);
    if (seed)
        *seed = s;
    return 0;
}

int args_scenario(const args *a, const char *arg, const char **scenario)
{
    if (arg[0] == '-' && arg[1] != '\0')
        return args_usage_error(a, "unknown option '%s'", arg);
    if (*scenario)
        return args_usage_error(a, "one scenario at a time (got '%s' and "
                                "'%s')", *scenario, arg);
    *scenario = arg;
    return 0;
}
