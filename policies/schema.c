/*
 * schema.c -- checking a policy table and parsing its parameter values.
 * Used for built-ins and plug-ins alike, so both are held to one contract.
 */
#include "schema.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "units.h"

const char *schema_describe(const sb_policy *p, const char *origin, char *buf,
                            size_t len)
{
    const char *name = p && p->name ? p->name : "?";
    if (origin && *origin)
        snprintf(buf, len, "policy '%s' (from %s)", name, origin);
    else
        snprintf(buf, len, "policy '%s'", name);
    return buf;
}

static bool valid_name(const char *s)
{
    if (s == NULL || *s == '\0' || strlen(s) > 32)
        return false;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) ||
              *s == '_'))
            return false;
    return true;
}

int schema_count_params(const sb_policy *p)
{
    int n = 0;
    if (p->params)
        while (p->params[n].name)
            n++;
    return n;
}

static int choice_index(const char *choices, const char *text)
{
    int idx = 0;
    size_t tl = strlen(text);
    for (const char *c = choices; *c;) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (len == tl && strncmp(c, text, len) == 0)
            return idx;
        idx++;
        if (!bar)
            break;
        c = bar + 1;
    }
    return -1;
}

static int count_choices(const char *choices)
{
    int n = 1;
    for (const char *c = choices; *c; c++)
        n += *c == '|';
    return n;
}

/* "A,B" (spaces around a name allowed), "" or "all" as a bit set. */
static int parse_set(const sb_param *p, const char *text, sb_value *v,
                     sb_err *e)
{
    v->i = 0;
    if (strcmp(text, "all") == 0) {
        v->i = (int64_t)((UINT64_C(1) << count_choices(p->choices)) - 1);
        return 0;
    }
    for (const char *c = text; *c;) {
        while (*c == ' ')
            c++;
        size_t len = strcspn(c, ",");
        size_t end = len;
        while (end > 0 && c[end - 1] == ' ')
            end--;
        char name[64];
        if (end == 0 || end >= sizeof name)
            return err_set(e,
                           "expected a comma-separated list of %s (or "
                           "'all', or nothing), got '%s'",
                           p->choices, text);
        memcpy(name, c, end);
        name[end] = '\0';
        int idx = choice_index(p->choices, name);
        if (idx < 0 && strcmp(name, text) == 0)
            return err_set(e,
                           "expected a comma-separated list of %s (or "
                           "'all', or nothing), got '%s'",
                           p->choices, text);
        if (idx < 0)
            return err_set(e,
                           "expected a comma-separated list of %s (or "
                           "'all', or nothing), got '%s' in '%s'",
                           p->choices, name, text);
        v->i |= (int64_t)(UINT64_C(1) << idx);
        c += len;
        if (*c == ',')
            c++;
    }
    return 0;
}

static int check_range(const sb_param *p, double x, const char *text, sb_err *e)
{
    if (x >= p->min && x <= p->max)
        return 0;
    if (p->type == SB_PARAM_DURATION)
        return err_set(e,
                       "expected a duration from %.15gs to %.15gs, got "
                       "'%s'",
                       p->min, p->max, text);
    return err_set(e, "expected a %s from %.15g to %.15g, got '%s'",
                   p->type == SB_PARAM_INT ? "whole number" : "number", p->min,
                   p->max, text);
}

int schema_parse_value(const sb_param *p, const char *text, sb_value *v,
                       sb_err *e)
{
    switch (p->type) {
    case SB_PARAM_INT: {
        int64_t i;
        if (units_int(text, &i, e) != 0)
            return -1;
        v->i = i;
        return check_range(p, (double)i, text, e);
    }
    case SB_PARAM_REAL:
        if (units_real(text, &v->d, e) != 0)
            return -1;
        return check_range(p, v->d, text, e);
    case SB_PARAM_DURATION: {
        int64_t ns;
        if (units_duration(text, &ns, e) != 0)
            return -1;
        v->d = (double)ns / 1e9;
        return check_range(p, v->d, text, e);
    }
    case SB_PARAM_BOOL: {
        bool b;
        if (units_bool(text, &b, e) != 0)
            return -1;
        v->i = b;
        return 0;
    }
    case SB_PARAM_CHOICE: {
        int idx = choice_index(p->choices, text);
        if (idx < 0)
            return err_set(e, "expected one of %s, got '%s'", p->choices, text);
        v->i = idx;
        return 0;
    }
    case SB_PARAM_SET:
        return parse_set(p, text, v, e);
    }
    return err_set(e, "parameter has an unknown type %d", (int)p->type);
}

/* Only the first three fields -- abi_major, abi_minor, struct_size -- sit at
 * the same place in every version of the ABI.  Until the version and the
 * size are accepted nothing else may be read: under another major version
 * `name` need not be a string, and a short table may end before it.  So
 * these two messages name a plug-in by its file, never by its name. */
static int check_header(const sb_policy *p, const char *origin, sb_err *e)
{
    char who[320];
    if (origin && *origin)
        snprintf(who, sizeof who, "%s: policy plug-in", origin);
    else
        snprintf(who, sizeof who, "built-in policy table");
    if (p->abi_major != SB_POLICY_ABI_MAJOR)
        return err_set(e,
                       "%s built for policy ABI %u.%u, but this "
                       "stormbench speaks policy ABI %d.%d: rebuild it "
                       "against this version's stormbench/policy.h",
                       who, p->abi_major, p->abi_minor, SB_POLICY_ABI_MAJOR,
                       SB_POLICY_ABI_MINOR);
    if (p->struct_size < SB_POLICY_MIN_SIZE)
        return err_set(e,
                       "%s has an sb_policy of %u bytes, shorter than "
                       "the %zu bytes of policy ABI %d.0: rebuild it "
                       "against this version's stormbench/policy.h",
                       who, p->struct_size, (size_t)SB_POLICY_MIN_SIZE,
                       SB_POLICY_ABI_MAJOR);
    return 0;
}

int schema_check_policy(const sb_policy *p, const char *origin, sb_err *e)
{
    if (p == NULL)
        return err_set(e, "%s: the %s entry point returned NULL",
                       origin && *origin ? origin : "built-in policy",
                       SB_PLUGIN_ENTRY_NAME);
    if (check_header(p, origin, e) != 0)
        return -1;
    char who[320];
    schema_describe(p, origin, who, sizeof who);
    if (!valid_name(p->name))
        return err_set(e,
                       "%s: its name must be 1-32 characters of a-z, 0-9 "
                       "and _",
                       who);
    if (p->on_failure == NULL)
        return err_set(e, "%s: it has no on_failure hook", who);
    int n = schema_count_params(p);
    if (n > SCHEMA_MAX_PARAMS)
        return err_set(e, "%s: it declares %d parameters, at most %d allowed",
                       who, n, SCHEMA_MAX_PARAMS);
    for (int i = 0; i < n; i++) {
        const sb_param *q = &p->params[i];
        if (!valid_name(q->name))
            return err_set(e, "%s: parameter %d has an invalid name", who, i);
        if ((q->type == SB_PARAM_CHOICE || q->type == SB_PARAM_SET) &&
            q->choices == NULL)
            return err_set(e, "%s: choice parameter '%s' lists no choices", who,
                           q->name);
        if (q->type == SB_PARAM_SET && count_choices(q->choices) > 63)
            return err_set(e,
                           "%s: set parameter '%s' has more than 63 "
                           "choices",
                           who, q->name);
        if (q->default_value == NULL)
            return err_set(e, "%s: parameter '%s' has no default", who,
                           q->name);
        sb_value v;
        sb_err inner;
        if (schema_parse_value(q, q->default_value, &v, &inner) != 0)
            return err_set(e,
                           "%s: the default of parameter '%s' is invalid: "
                           "%s",
                           who, q->name, inner.msg);
    }
    return 0;
}
