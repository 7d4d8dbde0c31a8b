#include <stdarg.h>
#include <string.h>

#include "cli.h"

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
