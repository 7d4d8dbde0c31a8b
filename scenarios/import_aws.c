/*
 * import_aws.c -- an AWS SDK shared config file (~/.aws/config): a
 * profile's retry_mode and max_attempts, as the AWS SDKs and Tools
 * Reference Guide ("Retry behavior") defines them.  The file is INI, read
 * with inih like scenarios.
 *
 *   standard  aws_quota: max_attempts (default 3), backoff random(0, 1 s x
 *             2^(n-1)) capped at 20 s (the guide's b x r^i, b random in
 *             [0, 1], r = 2), a 500-token retry quota per SDK client (a
 *             process), 5 per retry, 10 after a timeout.  aws_quota
 *             replays botocore's standard mode; its default base is the
 *             Java SDK's 100 ms, so the import sets the guide's 1 s.
 *   adaptive  standard mode plus a client-side rate limiter, which has
 *             no built-in: named as not mapped.
 *   legacy    SDK-specific; boto3's: exponential, full jitter, base 1 s,
 *             max_attempts 5 by default, no quota.
 *
 * Only the retry keys are shown with their values: a config file also
 * holds keys that are nobody else's business, whose values are never
 * printed.
 */
#include <ini.h>
#include <stdio.h>
#include <string.h>

#include "import_fmt.h"

typedef struct aws_entry {
    char section[128];
    char key[96];
    char value[128];
    int line;
} aws_entry;

typedef struct aws_file {
    aws_entry e[256];
    int n;
    int line; /* of the line inih read last */
    FILE *in;
} aws_file;

/* inih's reader: counting lines here gives every key its line whatever
 * inih was built with (INI_HANDLER_LINENO or not), as the loader does. */
static char *reader(char *buf, int size, void *user)
{
    aws_file *f = user;
    char *s = fgets(buf, size, f->in);
    if (s)
        f->line++;
    return s;
}

static int handler(void *user, const char *section, const char *name,
                   const char *value)
{
    aws_file *f = user;
    int lineno = f->line;
    if (name == NULL || f->n == 256)
        return 1;
    aws_entry *x = &f->e[f->n++];
    snprintf(x->section, sizeof x->section, "%s", section);
    snprintf(x->key, sizeof x->key, "%s", name);
    snprintf(x->value, sizeof x->value, "%s", value ? value : "");
    x->line = lineno;
    return 1;
}

#if INI_HANDLER_LINENO
static int handler_lineno(void *user, const char *section, const char *name,
                          const char *value, int lineno)
{
    (void)lineno; /* counted by reader() */
    return handler(user, section, name, value);
}
#define AWS_HANDLER handler_lineno
#else
#define AWS_HANDLER handler
#endif

/* "default" for [default], NAME for [profile NAME]; NULL for others
 * ([sso-session ...], [services ...]). */
static const char *profile_of(const char *section)
{
    if (strcmp(section, "default") == 0)
        return "default";
    if (strncmp(section, "profile ", 8) == 0)
        return section + 8;
    return NULL;
}

static tree_node fake(const aws_entry *x)
{
    tree_node n;
    memset(&n, 0, sizeof n);
    n.kind = TREE_SCALAR;
    n.line = x->line;
    n.text = (char *)x->value;
    return n;
}

static void mode_stack(imp *m, const char *mode, aws_entry *me, aws_entry *ma)
{
    tree_node nm = me ? fake(me) : (tree_node){0};
    tree_node na = ma ? fake(ma) : (tree_node){0};
    bool legacy = strcmp(mode, "legacy") == 0;
    const char *pol = legacy ? "exponential" : "aws_quota";
    snprintf(m->r->policy, sizeof m->r->policy, "%s", pol);
    if (me)
        imp_note(m, "retry_mode", &nm, "%s mode", mode);
    else
        imp_note(m, "retry_mode", NULL,
                 "not set: the guide's default, "
                 "legacy (SDK-specific; this is boto3's)");
    int64_t att = legacy ? 5 : 3;
    char key[64], v[32];
    snprintf(key, sizeof key, "%s.max_attempts", pol);
    if (ma && imp_int(m, "max_attempts", &na, 1, 1000000, &att) != 0)
        return;
    snprintf(v, sizeof v, "%lld", (long long)att);
    imp_param(m, "max_attempts", ma ? &na : NULL, key, v, "%s",
              ma       ? ""
              : legacy ? "boto3's legacy default"
                       : "the guide's default "
                         "for standard and adaptive modes");
    snprintf(key, sizeof key, "%s.base", pol);
    imp_param(m, "(backoff)", NULL, key, "1s",
              "the guide: random(0, 1) x "
              "2^(n-1) seconds");
    snprintf(key, sizeof key, "%s.cap", pol);
    imp_param(m, "(backoff)", NULL, key, "20s", "the guide's MAX_BACKOFF");
    if (legacy) {
        imp_param(m, "(backoff)", NULL, "exponential.jitter", "full", NULL);
        imp_param(m, "(backoff)", NULL, "exponential.multiplier", "2", NULL);
        return;
    }
    imp_param(m, "(retry quota)", NULL, "aws_quota.initial_retry_tokens", "500",
              "the guide's INITIAL_RETRY_TOKENS, one quota per SDK "
              "client (per process)");
    imp_param(m, "(retry quota)", NULL, "aws_quota.retry_cost", "5", NULL);
    imp_param(m, "(retry quota)", NULL, "aws_quota.timeout_retry_cost", "10",
              NULL);
    if (strcmp(mode, "adaptive") == 0)
        imp_skip(m, "retry_mode", me ? &nm : NULL,
                 "adaptive mode's "
                 "client-side rate limiter (it delays sends after "
                 "throttling errors) has no built-in: the run has standard "
                 "mode's retries and quota only");
}

int import_aws(imp *m, const char *path, const char *sel)
{
    static aws_file f;
    memset(&f, 0, sizeof f);
    f.in = fopen(path, "r");
    if (f.in == NULL)
        return imp_fail(m, "file", NULL, "cannot be read");
    int rc = ini_parse_stream(reader, &f, AWS_HANDLER, &f);
    fclose(f.in);
    if (rc > 0) {
        err_set(m->e,
                "%s:%d: expected 'key = value' or a [profile NAME] "
                "section",
                path, rc);
        m->failed = -1;
        return -1;
    }
    const char *want = sel[0] ? sel : "default";
    aws_entry *me = NULL, *ma = NULL;
    bool seen = false;
    size_t used = 0;
    for (int i = 0; i < f.n; i++) {
        const char *p = profile_of(f.e[i].section);
        if (p == NULL || strcmp(p, want) != 0) {
            char pat[140];
            snprintf(pat, sizeof pat, "%s", p ? p : "");
            if (p && !strstr(m->r->others, pat) && used < sizeof m->r->others)
                used += (size_t)snprintf(m->r->others + used,
                                         sizeof m->r->others - used, "%s%s",
                                         used ? ", " : "profiles ", p);
            continue;
        }
        seen = true;
        if (strcmp(f.e[i].key, "retry_mode") == 0)
            me = &f.e[i];
        else if (strcmp(f.e[i].key, "max_attempts") == 0)
            ma = &f.e[i];
        else {
            tree_node n = fake(&f.e[i]);
            n.text = "";
            imp_skip(m, f.e[i].key, &n,
                     "not about retries (its value is "
                     "not shown)");
        }
    }
    if (!seen && (sel[0] || f.n > 0) && strcmp(want, "default") != 0)
        return imp_fail(m, "profile", NULL, "no [profile %s] in the file%s%s",
                        want, m->r->others[0] ? "; it has " : "", m->r->others);
    snprintf(m->r->selected, sizeof m->r->selected, "profile %s", want);
    const char *mode = me ? me->value : "legacy";
    if (strcmp(mode, "legacy") != 0 && strcmp(mode, "standard") != 0 &&
        strcmp(mode, "adaptive") != 0) {
        tree_node n = fake(me);
        return imp_fail(m, "retry_mode", &n,
                        "expected legacy, standard or "
                        "adaptive, got '%s'",
                        mode);
    }
    mode_stack(m, mode, me, ma);
    return m->failed;
}
