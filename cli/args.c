#include <ctype.h>
#include <stdarg.h>
#include <string.h>

#include "cli.h"
#include "suggest.h"
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

/* The options a command's help lists: each "--word" (and "-x") that
 * starts a word of its usage text, at most max, into names (pointers
 * into store). */
static int usage_options(const char *usage, char store[][32], int max)
{
    int n = 0;
    for (const char *p = usage; *p && n < max; p++) {
        bool starts = p == usage || *(p - 1) == ' ' || *(p - 1) == '[' ||
                      *(p - 1) == '\n' || *(p - 1) == '(';
        if (!starts || p[0] != '-' || !(isalpha((unsigned char)p[1]) ||
                                        p[1] == '-'))
            continue;
        size_t len = strspn(p, "-abcdefghijklmnopqrstuvwxyz0123456789");
        if (len < 2 || len >= sizeof store[0])
            continue;
        memcpy(store[n], p, len);
        store[n][len] = '\0';
        n++;
        p += len - 1;
    }
    return n;
}

/* The options nearest to word ("--sped": --seed and --speed, one edit
 * each), as "'--seed' or '--speed'" in buf; empty when none is within
 * two edits, or word is too short to guess from (-x is no near miss of
 * -q). */
static void nearest_options(const char *word, char store[][32], int n,
                            char *buf, size_t len)
{
    buf[0] = '\0';
    if (strlen(word + strspn(word, "-")) < 3)
        return;
    int best = 3;
    for (int i = 0; i < n; i++) {
        int d = suggest_distance(word, store[i]);
        if (d > 0 && d < best)
            best = d;
    }
    size_t used = 0;
    for (int i = 0; i < n && best < 3 && used < len; i++) {
        bool seen = false;
        for (int j = 0; j < i; j++)
            seen |= strcmp(store[i], store[j]) == 0;
        if (seen || suggest_distance(word, store[i]) != best)
            continue;
        int w = snprintf(buf + used, len - used, "%s'%s'",
                         used ? " or " : "", store[i]);
        used += w > 0 ? (size_t)w : 0;
    }
}

int args_unknown_option(const args *a, const char *arg)
{
    char store[64][32], word[64], near[160];
    int n = a->usage ? usage_options(a->usage, store, 64) : 0;
    snprintf(word, sizeof word, "%.*s", (int)strcspn(arg, "="), arg);
    nearest_options(word, store, n, near, sizeof near);
    if (near[0])
        return args_usage_error(a, "unknown option '%s' (did you mean %s?)",
                                arg, near);
    return args_usage_error(a, "unknown option '%s'", arg);
}

int args_scenario(const args *a, const char *arg, const char **scenario)
{
    if (arg[0] == '-' && arg[1] != '\0')
        return args_unknown_option(a, arg);
    if (*scenario)
        return args_usage_error(a, "one scenario at a time (got '%s' and "
                                "'%s')", *scenario, arg);
    *scenario = arg;
    return 0;
}
