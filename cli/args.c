#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
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

int args_u32(const args *a, const char *flag, const char *v, uint32_t lo,
             uint32_t hi, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (*v == '\0' || *v == '-' || *end != '\0' || errno || x < lo || x > hi)
        return args_usage_error(a,
                                "%s: expected a whole number from %u to "
                                "%u, got '%s'",
                                flag, lo, hi, v);
    *out = (uint32_t)x;
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
        if (!starts || p[0] != '-' ||
            !(isalpha((unsigned char)p[1]) || p[1] == '-'))
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
        int w = snprintf(buf + used, len - used, "%s'%s'", used ? " or " : "",
                         store[i]);
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
        return args_usage_error(a,
                                "one scenario at a time (got '%s' and "
                                "'%s')",
                                *scenario, arg);
    *scenario = arg;
    return 0;
}

int args_hook_timeout(args *a, int64_t *ns, const char **text)
{
    const char *v = args_value(a, "--hook-timeout");
    if (v == NULL)
        return EXIT_INPUT;
    sb_err e;
    int64_t t = 0;
    if (units_duration(v, &t, &e) != 0 || t <= 0)
        return args_usage_error(a,
                                "--hook-timeout: expected a positive "
                                "duration of wall time such as 200ms or "
                                "5s, got '%s'",
                                v);
    *ns = t;
    *text = v;
    return 0;
}

/* Does row o name the option at a->i?  *name is the spelling used. */
static bool option_named(const args *a, const arg_opt *o, const char **name)
{
    const char *arg = a->argv[a->i];
    bool flag =
        o->kind == ARG_HELP || o->kind == ARG_SET || o->kind == ARG_CLEAR;
    *name = o->name;
    if (o->alias && strcmp(arg, o->alias) == 0) {
        *name = o->alias;
        return true;
    }
    return flag ? strcmp(arg, o->name) == 0 : args_is(a, o->name);
}

/* An ARG_TYPED option's value, by its type; the messages say the type
 * and the range. */
static int typed_read(args *a, const arg_typed *t, const char *name)
{
    const char *v = args_value(a, name);
    sb_err e;
    int64_t n, ns;
    double x;
    if (v == NULL)
        return EXIT_INPUT;
    switch (t->type) {
    case ARG_DURATION_NS:
    case ARG_DURATION_S:
        if (units_duration(v, &ns, &e) != 0 || ns <= 0)
            return args_usage_error(a,
                                    "%s: expected a positive duration "
                                    "such as 1h or 300s, got '%s'",
                                    name, v);
        if (t->type == ARG_DURATION_NS)
            *(int64_t *)t->dest = ns;
        else
            *(double *)t->dest = (double)ns / 1e9;
        return 0;
    case ARG_REAL:
        if (units_real(v, &x, &e) != 0 || !(x > t->lo) || !(x < t->hi))
            return args_usage_error(a,
                                    "%s: expected a number between %g "
                                    "and %g, got '%s'",
                                    name, t->lo, t->hi, v);
        *(double *)t->dest = x;
        return 0;
    case ARG_INT64:
    case ARG_INT:
    case ARG_UINT64:
    case ARG_UINT32:
        if (units_int(v, &n, &e) != 0 || n < (int64_t)t->lo ||
            n > (int64_t)t->hi)
            return args_usage_error(a,
                                    "%s: expected a whole number from "
                                    "%lld to %lld, got '%s'",
                                    name, (long long)t->lo, (long long)t->hi,
                                    v);
        if (t->type == ARG_INT64)
            *(int64_t *)t->dest = n;
        else if (t->type == ARG_INT)
            *(int *)t->dest = (int)n;
        else if (t->type == ARG_UINT32)
            *(uint32_t *)t->dest = (uint32_t)n;
        else
            *(uint64_t *)t->dest = (uint64_t)n;
        return 0;
    case ARG_CALL:
        return t->call(a, name, v, t->dest);
    }
    return 1;
}

/* Read the option row o names, spelt `name`. */
static int option_read(args *a, const arg_opt *o, const char *name)
{
    const char *v;
    switch (o->kind) {
    case ARG_HELP:
        fputs(a->usage, stdout);
        return -1;
    case ARG_SET:
    case ARG_CLEAR:
        *(bool *)o->slot = o->kind == ARG_SET;
        return 0;
    case ARG_VALUE:
    case ARG_TEXT:
        v = args_value(a, name);
        /* "--json=" would run the whole simulation and then fail to
         * write a file named "". */
        if (v && *v == '\0' && o->kind == ARG_TEXT)
            return args_usage_error(a, "%s: expected a value, got ''", name);
        *(const char **)o->slot = v;
        return v ? 0 : EXIT_INPUT;
    case ARG_LIST:
        return args_list_add(a, (const char **)o->slot, o->n, name);
    case ARG_PARAM:
        return args_param(a, (setting *)o->slot, o->n);
    case ARG_WALLTIME:
        return args_hook_timeout(a, (int64_t *)o->slot, o->text);
    case ARG_TYPED:
        return typed_read(a, (const arg_typed *)o->slot, name);
    }
    return 1;
}

int args_option(args *a, const arg_opt *t, size_t n)
{
    const char *name;
    for (size_t i = 0; i < n; i++)
        if (option_named(a, &t[i], &name))
            return option_read(a, &t[i], name);
    return 1;
}

int args_positive_duration(args *a, const char *name, int64_t *ns)
{
    const char *v = args_value(a, name);
    sb_err e;
    if (v == NULL)
        return EXIT_INPUT;
    if (units_duration(v, ns, &e) != 0 || *ns <= 0)
        return args_usage_error(a,
                                "%s: expected a positive duration such "
                                "as 1h or 300s, got '%s'",
                                name, v);
    return 0;
}
