/*
 * picker.c -- the policy picker's content (picker.h).
 */
#include "picker.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "registry.h"
#include "units.h"

static void add(picker_catalogue *c, const sb_policy *p)
{
    if (c->n == CONTROLS_MAX_POLICIES)
        return;
    snprintf(c->name[c->n], sizeof c->name[0], "%s", p->name);
    c->layer[c->n] = (p->flags & SB_POLICY_LAYER) != 0;
    c->n++;
}

int picker_catalogue_load(picker_catalogue *c, const char *const *plugins,
                          int n_plugins)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < registry_count(); i++)
        add(c, registry_get(i));
    for (int i = 0; i < n_plugins; i++) {
        plugin *pl;
        sb_err e;
        if (plugin_open(plugins[i], &pl, &e) != 0)
            continue;
        add(c, plugin_policy(pl));
        plugin_close(pl);
    }
    return c->n;
}

/* The names of spec ("a+b+c"), up to max, into names (each < 64). */
static int split(const char *spec, char names[][64], int max)
{
    int n = 0;
    for (const char *p = spec; *p && n < max;) {
        size_t len = strcspn(p, "+");
        snprintf(names[n++], 64, "%.*s", (int)len, p);
        p += len;
        if (*p == '+')
            p++;
    }
    return n;
}

static bool holds(char names[][64], int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

/* Parameter k of the stack as picker_fill counts them: its layer and
 * index; false when there is no such parameter. */
static bool param_at(const pstack *ps, int k, int *layer, int *param)
{
    for (int i = 0; i < pstack_layers(ps); i++) {
        const sb_policy *p = pstack_layer(ps, i);
        for (int j = 0; p->params && p->params[j].name; j++)
            if (k-- == 0) {
                *layer = i;
                *param = j;
                return true;
            }
    }
    return false;
}

/* "base" when no other layer of the stack has a parameter of that name
 * (as a user writes it), "exponential.base" when one does. */
static void param_key(const pstack *ps, int layer, int param, char *buf,
                      size_t len)
{
    const sb_policy *p = pstack_layer(ps, layer);
    const char *name = p->params[param].name;
    bool shared = false;
    for (int i = 0; i < pstack_layers(ps); i++) {
        const sb_policy *q = pstack_layer(ps, i);
        for (int j = 0; i != layer && q->params && q->params[j].name; j++)
            shared |= strcmp(q->params[j].name, name) == 0;
    }
    if (shared)
        snprintf(buf, len, "%s.%s", p->name, name);
    else
        snprintf(buf, len, "%s", name);
}

void picker_fill(controls_picker *p, const picker_catalogue *c,
                 const session *ss, int run)
{
    char names[16][64];
    int n = split(session_policy(ss), names, 16);
    p->run = run;
    p->n_policies = c->n;
    for (int i = 0; i < c->n; i++)
        p->policies[i] = (controls_policy){c->name[i], c->layer[i],
                                           holds(names, n, c->name[i])};
    const pstack *ps = session_stack(ss);
    int layer, param;
    p->n_params = 0;
    while (p->n_params < CONTROLS_MAX_PARAMS &&
           param_at(ps, p->n_params, &layer, &param)) {
        controls_param *cp = &p->params[p->n_params++];
        param_key(ps, layer, param, cp->name, sizeof cp->name);
        snprintf(cp->value, sizeof cp->value, "%s",
                 pstack_param_text(ps, layer, param));
        cp->editable =
            pstack_layer(ps, layer)->params[param].type != SB_PARAM_SET;
    }
}

static bool is_layer(const picker_catalogue *c, const char *name)
{
    for (int j = 0; j < c->n; j++)
        if (strcmp(c->name[j], name) == 0)
            return c->layer[j];
    return false; /* not offered: a retry policy as far as we know */
}

int picker_click(const picker_catalogue *c, const char *spec, int i, char *out,
                 size_t len)
{
    char names[16][64];
    int n = split(spec, names, 16);
    if (i < 0 || i >= c->n)
        return -1;
    /* The retry policy first (the one clicked, or the one there is),
     * then the layers, the clicked one added or dropped. */
    const char *base = c->layer[i] ? NULL : c->name[i];
    for (int k = 0; k < n && base == NULL; k++)
        if (!is_layer(c, names[k]))
            base = names[k];
    size_t used = (size_t)snprintf(out, len, "%s", base ? base : "");
    for (int k = 0; k < n && used < len; k++) {
        if (!is_layer(c, names[k]) ||
            (c->layer[i] && strcmp(names[k], c->name[i]) == 0))
            continue;
        used += (size_t)snprintf(out + used, len - used, "%s%s",
                                 used ? "+" : "", names[k]);
    }
    if (c->layer[i] && !holds(names, n, c->name[i]) && used < len)
        used += (size_t)snprintf(out + used, len - used, "%s%s",
                                 used ? "+" : "", c->name[i]);
    if (used >= len || out[0] == '\0' || strcmp(out, spec) == 0)
        return -1;
    return 0;
}

double picker_ladder(double x, int dir, double floor_v)
{
    static const double m[] = {1, 2, 5};
    if (!(x > 0))
        return dir > 0 ? floor_v : 0;
    double e = floor(log10(x) + 1e-9);
    double best = dir > 0 ? INFINITY : 0;
    for (double k = e - 1; k <= e + 1; k++)
        for (int i = 0; i < 3; i++) {
            double v = m[i] * pow(10.0, k);
            if (dir > 0 && v > x * (1 + 1e-9) && v < best)
                best = v;
            if (dir < 0 && v < x * (1 - 1e-9) && v > best)
                best = v;
        }
    return best;
}

/* The next value of a number parameter, within [min, max]. */
static double number_step(const sb_param *d, double x, int dir)
{
    double v;
    if (d->type == SB_PARAM_INT)
        v = x < 10 || (dir < 0 && x <= 10) ? x + dir : x + dir * ceil(x * 0.1);
    else if (d->type == SB_PARAM_REAL && d->max <= 1)
        v = round((x + dir * 0.05) * 100) / 100;
    else
        v = picker_ladder(x, dir, d->type == SB_PARAM_DURATION ? 0.01 : 0.1);
    return fmin(fmax(v, d->min), d->max);
}

int picker_step(const pstack *ps, int k, int dir, char *out, size_t len)
{
    int layer, param;
    if (!param_at(ps, k, &layer, &param))
        return -1;
    const sb_param *d = &pstack_layer(ps, layer)->params[param];
    sb_value v = pstack_param_value(ps, layer, param);
    char key[128], val[64];
    param_key(ps, layer, param, key, sizeof key);
    switch (d->type) {
    case SB_PARAM_INT:
    case SB_PARAM_REAL:
    case SB_PARAM_DURATION: {
        double x = d->type == SB_PARAM_INT ? (double)v.i : v.d;
        double y = number_step(d, x, dir);
        if (y == x)
            return -1;
        if (d->type == SB_PARAM_INT)
            snprintf(val, sizeof val, "%.0f", y);
        else if (d->type == SB_PARAM_REAL)
            snprintf(val, sizeof val, "%.6g", y);
        else
            units_fmt_duration((int64_t)llround(y * 1e9), val, sizeof val);
        break;
    }
    case SB_PARAM_BOOL:
        snprintf(val, sizeof val, "%s", v.i ? "false" : "true");
        break;
    case SB_PARAM_CHOICE: {
        char names[32][64];
        int n = 0;
        for (const char *p = d->choices; p && *p && n < 32;) {
            size_t l = strcspn(p, "|");
            snprintf(names[n++], 64, "%.*s", (int)l, p);
            p += l + (p[l] == '|');
        }
        if (n < 2)
            return -1;
        snprintf(val, sizeof val, "%s", names[((int)v.i + dir + n) % n]);
        break;
    }
    default:
        return -1;
    }
    int w = snprintf(out, len, "%s=%s", key, val);
    return w < 0 || (size_t)w >= len ? -1 : 0;
}
