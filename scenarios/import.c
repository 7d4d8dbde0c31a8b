/*
 * import.c -- finding a file's format, recording what each field became,
 * reading the values the formats write, and printing the result.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "import_fmt.h"
#include "suggest.h"
#include "units.h"

/* ---- recording ---------------------------------------------------------- */

static import_field *new_field(imp *m, const char *path, tree_node *n)
{
    tree_use_all(n); /* a list or map mapped as a whole */
    import_result *r = m->r;
    if (r->n_fields == IMPORT_MAX_FIELDS) {
        /* The last slot says so rather than dropping fields unsaid. */
        import_field *f = &r->fields[IMPORT_MAX_FIELDS - 1];
        snprintf(f->path, sizeof f->path, "(more fields)");
        snprintf(f->note, sizeof f->note,
                 "the file has more than %d "
                 "fields in the selected configuration; the rest are not "
                 "listed",
                 IMPORT_MAX_FIELDS);
        f->target[0] = '\0';
        return NULL;
    }
    import_field *f = &r->fields[r->n_fields++];
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", path);
    f->line = n ? n->line : 0;
    f->defaulted = n == NULL;
    snprintf(f->value, sizeof f->value, "%s", imp_value(n));
    return f;
}

static void add_setting(setting *s, const char *key, const char *value,
                        const imp *m, const char *path, const tree_node *n)
{
    snprintf(s->key, sizeof s->key, "%s", key);
    snprintf(s->value, sizeof s->value, "%s", value);
    if (n && n->line)
        snprintf(s->origin, sizeof s->origin, "%s:%d: %s, imported as", m->file,
                 n->line, path);
    else
        snprintf(s->origin, sizeof s->origin, "%s: %s, imported as", m->file,
                 path);
}

SB_PRINTF(7, 0)
static void record(imp *m, const char *path, tree_node *n, const char *key,
                   const char *value, bool param, const char *fmt, va_list ap)
{
    import_result *r = m->r;
    setting *list = param ? r->params : r->sets;
    int *count = param ? &r->n_params : &r->n_sets;
    int max = param ? PSTACK_MAX_SETTINGS : IMPORT_MAX_SETS;
    /* A later mapping of the same key wins, as in [policy]. */
    int i = 0;
    while (i < *count && strcmp(list[i].key, key) != 0)
        i++;
    if (i == max) {
        imp_fail(m, path, n, "too many settings (at most %d)", max);
        return;
    }
    add_setting(&list[i], key, value, m, path, n);
    if (i == *count)
        (*count)++;
    import_field *f = new_field(m, path, n);
    if (f == NULL)
        return;
    snprintf(f->target, sizeof f->target, "%s = %s", key, value);
    if (fmt)
        vsnprintf(f->note, sizeof f->note, fmt, ap);
}

void imp_param(imp *m, const char *path, tree_node *n, const char *key,
               const char *value, const char *note, ...)
{
    va_list ap;
    va_start(ap, note);
    record(m, path, n, key, value, true, note, ap);
    va_end(ap);
}

void imp_set(imp *m, const char *path, tree_node *n, const char *key,
             const char *value, const char *note, ...)
{
    va_list ap;
    va_start(ap, note);
    record(m, path, n, key, value, false, note, ap);
    va_end(ap);
}

void imp_note(imp *m, const char *path, tree_node *n, const char *fmt, ...)
{
    import_field *f = new_field(m, path, n);
    if (f == NULL)
        return;
    snprintf(f->target, sizeof f->target, "(read)");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->note, sizeof f->note, fmt, ap);
    va_end(ap);
}

void imp_skip(imp *m, const char *path, tree_node *n, const char *why, ...)
{
    import_field *f = new_field(m, path, n);
    m->r->n_unmapped++;
    if (f == NULL)
        return;
    va_list ap;
    va_start(ap, why);
    vsnprintf(f->note, sizeof f->note, why, ap);
    va_end(ap);
}

typedef struct sweep_ctx {
    imp *m;
    const char *format;
} sweep_ctx;

static void sweep_one(void *ctx, const char *path, tree_node *n)
{
    sweep_ctx *s = ctx;
    imp_skip(s->m, path, n,
             "not a field stormbench knows in %s: nothing "
             "in the run reflects it",
             s->format);
}

void imp_sweep(imp *m, tree_node *n, const char *prefix, const char *format)
{
    if (n == NULL)
        return;
    sweep_ctx s = {m, format};
    tree_unused(n, prefix, sweep_one, &s);
}

int imp_fail(imp *m, const char *path, const tree_node *n, const char *fmt, ...)
{
    if (m->failed)
        return -1;
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n && n->line)
        err_set(m->e, "%s:%d: %s: %s", m->file, n->line, path, msg);
    else
        err_set(m->e, "%s: %s: %s", m->file, path, msg);
    m->failed = -1;
    return -1;
}

/* ---- values ------------------------------------------------------------- */

const char *imp_value(const tree_node *n)
{
    if (n == NULL || n->kind != TREE_SCALAR)
        return "";
    return n->null ? "null" : n->text;
}

void imp_fmt_duration(int64_t ns, char *buf, size_t len)
{
    static const struct {
        int64_t per;
        const char *unit;
    } u[] = {{3600 * NS_PER_S, "h"}, {60 * NS_PER_S, "m"}, {NS_PER_S, "s"},
             {NS_PER_MS, "ms"},      {NS_PER_US, "us"},    {1, "ns"}};
    if (ns == 0) {
        snprintf(buf, len, "0s");
        return;
    }
    for (size_t i = 0; i < sizeof u / sizeof *u; i++)
        if (ns % u[i].per == 0) {
            snprintf(buf, len, "%lld%s", (long long)(ns / u[i].per), u[i].unit);
            return;
        }
}

static int scalar(imp *m, const char *path, const tree_node *n,
                  const char *what)
{
    if (n == NULL || n->kind != TREE_SCALAR || n->null)
        return imp_fail(m, path, n, "expected %s, got %s", what,
                        n == NULL              ? "nothing"
                        : n->kind == TREE_MAP  ? "a map"
                        : n->kind == TREE_LIST ? "a list"
                                               : "null");
    return 0;
}

/* "PT1H2M3.5S" (ISO 8601, as java.time.Duration writes it). */
static int iso_duration(const char *s, double *sec)
{
    if (toupper((unsigned char)s[0]) != 'P' ||
        toupper((unsigned char)s[1]) != 'T' || s[2] == '\0')
        return -1;
    double total = 0;
    for (const char *p = s + 2; *p;) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno || v < 0)
            return -1;
        int u = toupper((unsigned char)*end);
        total += u == 'H'   ? v * 3600
                 : u == 'M' ? v * 60
                 : u == 'S' ? v
                            : -1e300;
        if (total < 0)
            return -1;
        p = end + 1;
    }
    *sec = total;
    return 0;
}

static int sec_to_ns(double sec, int64_t *ns)
{
    if (!(sec >= 0) || sec > (double)SIMTIME_END / 1e9)
        return -1;
    *ns = (int64_t)llround(sec * 1e9);
    return 0;
}

/* Protobuf JSON: decimal seconds, then 's' ("0.1s", "1.5s"). */
static int proto_duration(const char *s, int64_t *ns)
{
    size_t len = strlen(s);
    if (len < 2 || s[len - 1] != 's')
        return -1;
    char num[64];
    if (len - 1 >= sizeof num)
        return -1;
    memcpy(num, s, len - 1);
    num[len - 1] = '\0';
    char *end;
    errno = 0;
    double v = strtod(num, &end);
    if (*end != '\0' || end == num || errno || !isdigit((unsigned char)num[0]))
        return -1;
    return sec_to_ns(v, ns);
}

int imp_duration(imp *m, const char *path, const tree_node *n,
                 const char *style, int64_t *ns)
{
    if (scalar(m, path, n, "a duration") != 0)
        return -1;
    const char *s = n->text;
    sb_err e;
    double sec;
    if (strcmp(style, "proto") == 0) {
        if (proto_duration(s, ns) == 0)
            return 0;
        return imp_fail(m, path, n,
                        "expected a protobuf duration (seconds "
                        "with an 's', as \"0.1s\"), got '%s'",
                        s);
    }
    if (strcmp(style, "spring") == 0) {
        char *end;
        long long ms = strtoll(s, &end, 10);
        if (end != s && *end == '\0' && ms >= 0)
            return sec_to_ns((double)ms / 1e3, ns) == 0
                       ? 0
                       : imp_fail(m, path, n, "duration out of range");
        if (iso_duration(s, &sec) == 0 && sec_to_ns(sec, ns) == 0)
            return 0;
        if (units_duration(s, ns, &e) == 0)
            return 0;
        return imp_fail(m, path, n,
                        "expected a duration (500ms, 10s, "
                        "PT10S, or a number of milliseconds), got '%s'",
                        s);
    }
    /* Go and Istio: "1h", "1m30s", "25ms"; units_duration reads one
     * number and unit, so split compound ones. */
    int64_t total = 0;
    for (const char *p = s; *p;) {
        const char *q = p;
        while (*q && (isdigit((unsigned char)*q) || *q == '.'))
            q++;
        while (*q && isalpha((unsigned char)*q))
            q++;
        char part[64];
        if (q == p || (size_t)(q - p) >= sizeof part)
            return imp_fail(m, path, n,
                            "expected a duration (1h, 1m30s, "
                            "2s, 25ms), got '%s'",
                            s);
        memcpy(part, p, (size_t)(q - p));
        part[q - p] = '\0';
        int64_t one;
        if (units_duration(part, &one, &e) != 0)
            return imp_fail(m, path, n,
                            "expected a duration (1h, 1m30s, "
                            "2s, 25ms), got '%s'",
                            s);
        total += one;
        p = q;
    }
    *ns = total;
    return 0;
}

int imp_int(imp *m, const char *path, const tree_node *n, int64_t lo,
            int64_t hi, int64_t *v)
{
    if (scalar(m, path, n, "a whole number") != 0)
        return -1;
    char *end;
    errno = 0;
    long long x = strtoll(n->text, &end, 10);
    if (end == n->text || *end != '\0' || errno || x < lo || x > hi)
        return imp_fail(m, path, n,
                        "expected a whole number from %lld to "
                        "%lld, got '%s'",
                        (long long)lo, (long long)hi, n->text);
    *v = x;
    return 0;
}

int imp_real(imp *m, const char *path, const tree_node *n, double lo, double hi,
             double *v)
{
    if (scalar(m, path, n, "a number") != 0)
        return -1;
    char *end;
    errno = 0;
    double x = strtod(n->text, &end);
    if (end == n->text || *end != '\0' || errno || !(x >= lo && x <= hi))
        return imp_fail(m, path, n,
                        "expected a number from %g to %g, got "
                        "'%s'",
                        lo, hi, n->text);
    *v = x;
    return 0;
}

int imp_bool(imp *m, const char *path, const tree_node *n, bool *v)
{
    if (scalar(m, path, n, "true or false") != 0)
        return -1;
    if (strcmp(n->text, "true") == 0 || strcmp(n->text, "false") == 0) {
        *v = n->text[0] == 't';
        return 0;
    }
    return imp_fail(m, path, n, "expected true or false, got '%s'", n->text);
}

/* ---- formats ------------------------------------------------------------ */

static const struct {
    const char *id, *name;
} formats[] = {{"grpc", "gRPC service config"},
               {"envoy", "Envoy route and cluster"},
               {"istio", "Istio VirtualService and DestinationRule"},
               {"resilience4j", "resilience4j configuration"},
               {"aws", "AWS SDK shared config"},
               {"topology", "stormbench topology"}};

static bool has_key_prefix(const tree_node *d, const char *prefix)
{
    if (d == NULL || d->kind != TREE_MAP)
        return false;
    for (size_t i = 0; i < d->n; i++)
        if (strncmp(d->keys[i], prefix, strlen(prefix)) == 0)
            return true;
    return false;
}

static const char *detect_tree(const tree *t)
{
    for (size_t i = 0; i < t->n_docs; i++) {
        const tree_node *d = t->docs[i];
        const tree_node *kind = tree_peek(d, "kind");
        if (kind && kind->kind == TREE_SCALAR &&
            (strcmp(kind->text, "VirtualService") == 0 ||
             strcmp(kind->text, "DestinationRule") == 0))
            return "istio";
        if (tree_peek(d, "methodConfig") || tree_peek(d, "retryThrottling"))
            return "grpc";
        if (has_key_prefix(d, "resilience4j"))
            return "resilience4j";
        if (tree_peek(d, "services"))
            return "topology";
        static const char *const envoy[] = {
            "static_resources", "virtual_hosts",
            "routes",           "route",
            "retry_policy",     "clusters",
            "route_config",     "circuit_breakers"};
        for (size_t k = 0; k < sizeof envoy / sizeof *envoy; k++)
            if (tree_peek(d, envoy[k]))
                return "envoy";
    }
    return NULL;
}

/* The first character that is not blank or a comment line's: '{' is
 * JSON, '[' an INI section (AWS), anything else YAML. */
static int first_char(const char *path, sb_err *e)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return err_set(e, "%s: %s", path, strerror(errno));
    int c;
    bool comment = false;
    while ((c = fgetc(f)) != EOF) {
        if (comment) {
            comment = c != '\n';
            continue;
        }
        if (c == '#' || c == ';')
            comment = true;
        else if (!isspace(c))
            break;
    }
    fclose(f);
    return c == EOF ? 0 : c;
}

/* A stormbench scenario ([scenario] among its sections) begins with '['
 * as an AWS config does; taken for one, its sections would be listed as
 * unknown profiles and nothing said. */
static bool is_scenario(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f)) {
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        found = strncmp(s, "[scenario]", 10) == 0;
    }
    if (f)
        fclose(f);
    return found;
}

const char *import_detect(const char *path, sb_err *e)
{
    int c = first_char(path, e);
    if (c < 0)
        return NULL;
    if (c == 0) {
        err_set(e, "%s: the file is empty", path);
        return NULL;
    }
    if (c == '[' && is_scenario(path)) {
        err_set(e,
                "%s: a stormbench scenario, not a configuration to "
                "import (its [policy] is already stormbench's; 'stormbench "
                "validate %s' checks it)",
                path, path);
        return NULL;
    }
    if (c == '[')
        return "aws";
    tree t;
    if (tree_load(path, c == '{', &t, e) != 0)
        return NULL;
    const char *f = detect_tree(&t);
    tree_free(&t);
    if (f == NULL)
        err_set(e,
                "%s: not a format stormbench imports: expected a gRPC "
                "service config (methodConfig), an Envoy route or cluster "
                "(retry_policy, circuit_breakers), an Istio VirtualService "
                "or DestinationRule, resilience4j settings, an AWS shared "
                "config ([profile NAME]) or a topology (services); name "
                "one with --format",
                path);
    return f;
}

void import_split(const char *arg, char *path, size_t plen, char *selector,
                  size_t slen)
{
    const char *hash = strrchr(arg, '#');
    if (hash == NULL) {
        snprintf(path, plen, "%s", arg);
        snprintf(selector, slen, "%s", "");
        return;
    }
    snprintf(path, plen, "%.*s", (int)(hash - arg), arg);
    snprintf(selector, slen, "%s", hash + 1);
}

static int dispatch(imp *m, const char *format, const char *path,
                    const char *sel)
{
    if (strcmp(format, "aws") == 0)
        return import_aws(m, path, sel);
    tree t;
    int c = first_char(path, m->e);
    if (c < 0 || tree_load(path, c == '{', &t, m->e) != 0)
        return -1;
    int rc = strcmp(format, "grpc") == 0       ? import_grpc(m, &t, sel)
             : strcmp(format, "envoy") == 0    ? import_envoy(m, &t, sel)
             : strcmp(format, "istio") == 0    ? import_istio(m, &t, sel)
             : strcmp(format, "topology") == 0 ? import_topology(m, &t, sel)
                                               : import_r4j(m, &t, sel);
    tree_free(&t);
    return rc != 0 || m->failed ? -1 : 0;
}

int import_load(const char *path, const char *format, const char *selector,
                import_result *out, sb_err *e)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path);
    if (format == NULL && (format = import_detect(path, e)) == NULL)
        return -1;
    size_t i = 0;
    while (i < sizeof formats / sizeof *formats &&
           strcmp(formats[i].id, format) != 0)
        i++;
    if (i == sizeof formats / sizeof *formats)
        return err_set(e,
                       "--format %s: expected grpc, envoy, istio, "
                       "resilience4j, aws or topology",
                       format);
    snprintf(out->format, sizeof out->format, "%s", formats[i].id);
    snprintf(out->format_name, sizeof out->format_name, "%s", formats[i].name);
    imp m = {out, path, e, 0};
    return dispatch(&m, format, path, selector ? selector : "");
}

/* ---- output ------------------------------------------------------------- */

int import_set_args(const import_result *r, char out[][320], int max)
{
    int n = 0;
    for (int i = 0; i < r->n_sets && n < max; i++) {
        /* a key (96) and a value (256) fit in 320 but for the longest of
         * both, which no format maps: cut, it would set another key */
        int w =
            snprintf(out[n], 320, "%s=%s", r->sets[i].key, r->sets[i].value);
        if (w < 0 || w >= 320)
            continue;
        n++;
    }
    return n;
}

/* The scenario keys grouped by section, as INI. */
static void print_sets(FILE *f, const import_result *r)
{
    char done[IMPORT_MAX_SETS][96];
    int n_done = 0;
    for (int i = 0; i < r->n_sets; i++) {
        char section[96];
        const char *dot = strrchr(r->sets[i].key, '.');
        snprintf(section, sizeof section, "%.*s", (int)(dot - r->sets[i].key),
                 r->sets[i].key);
        bool seen = false;
        for (int k = 0; k < n_done; k++)
            seen |= strcmp(done[k], section) == 0;
        if (seen)
            continue;
        snprintf(done[n_done++], sizeof done[0], "%s", section);
        fprintf(f, "\n    [%s]\n", section);
        for (int k = i; k < r->n_sets; k++) {
            const char *d = strrchr(r->sets[k].key, '.');
            if ((size_t)(d - r->sets[k].key) == strlen(section) &&
                strncmp(r->sets[k].key, section, strlen(section)) == 0)
                fprintf(f, "    %s = %s\n", d + 1, r->sets[k].value);
        }
    }
}

static void print_fields(FILE *f, const import_result *r, bool mapped)
{
    for (int i = 0; i < r->n_fields; i++) {
        const import_field *x = &r->fields[i];
        if ((x->target[0] != '\0') != mapped)
            continue;
        char line[16];
        if (x->defaulted)
            snprintf(line, sizeof line, "default");
        else if (x->line)
            snprintf(line, sizeof line, "line %d", x->line);
        else
            snprintf(line, sizeof line, "-");
        fprintf(f, "  %-8s %s%s%s\n", line, x->path, x->value[0] ? " = " : "",
                x->value);
        if (mapped && strcmp(x->target, "(read)") != 0)
            fprintf(f, "           -> %s\n", x->target);
        if (x->note[0])
            fprintf(f, "           %s%s\n", mapped ? "   " : "", x->note);
    }
}

void import_print(FILE *f, const import_result *r)
{
    fprintf(f, "imported  %s (%s)%s%s\n", r->path, r->format_name,
            r->selected[0] ? ": " : "", r->selected);
    if (r->others[0])
        fprintf(f,
                "also      %s (choose with FILE#NAME, or --route / "
                "--method)\n",
                r->others);
    fprintf(f,
            "\nas a policy stack (--policy-from %s%s runs it directly, "
            "in run, compare, gui and decide):\n\n    --policy %s",
            r->path, r->others[0] ? "#NAME" : "", r->policy);
    for (int i = 0; i < r->n_params; i++)
        fprintf(f, " \\\n      --param %s=%s", r->params[i].key,
                r->params[i].value);
    fprintf(f, "\n\nas scenario sections:\n\n    [policy]\n    name = %s\n",
            r->policy);
    for (int i = 0; i < r->n_params; i++)
        fprintf(f, "    %s = %s\n", r->params[i].key, r->params[i].value);
    print_sets(f, r);
    int mapped = r->n_fields - r->n_unmapped;
    fprintf(f, "\nmapped (%d field%s, defaults of the format included)\n",
            mapped, mapped == 1 ? "" : "s");
    print_fields(f, r, true);
    fprintf(f, "\nnot mapped (%d field%s)%s\n", r->n_unmapped,
            r->n_unmapped == 1 ? "" : "s",
            r->n_unmapped ? ": the run does not reflect these" : "");
    print_fields(f, r, false);
}
