/*
 * riskfile.c -- compare --risk's estimates, saved (riskfile.h).
 */
#define _GNU_SOURCE /* open_memstream */
#include "riskfile.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "runfile.h"

#define MAGIC "stormbench-risk-estimate"

/* ---- The fields of a line -------------------------------------------------- */

typedef enum ftype { F_U64, F_U32, F_I64, F_INT, F_DOUBLE, F_BOOL } ftype;

/* One NAME=VALUE of a line: its name, its type, where it is (written
 * from, read into). */
typedef struct field {
    const char *name;
    ftype type;
    void *at;
} field;

#define FIELD(n, t, p)                                                         \
    {                                                                          \
        n, t, (void *)(p)                                                      \
    }

static void put_value(FILE *f, const field *x)
{
    char buf[40];
    switch (x->type) {
    case F_U64:
        fprintf(f, "%" PRIu64, *(const uint64_t *)x->at);
        break;
    case F_U32:
        fprintf(f, "%" PRIu32, *(const uint32_t *)x->at);
        break;
    case F_I64:
        fprintf(f, "%" PRId64, *(const int64_t *)x->at);
        break;
    case F_INT:
        fprintf(f, "%d", *(const int *)x->at);
        break;
    case F_DOUBLE:
        /* runfile_double_text's fast path takes finite values only (an
         * infinity is cast to an integer there: undefined); a relative
         * error is infinite when p = 0. */
        if (isinf(*(const double *)x->at))
            fputs(*(const double *)x->at > 0 ? "inf" : "-inf", f);
        else {
            runfile_double_text(*(const double *)x->at, buf, sizeof buf);
            fputs(buf, f);
        }
        break;
    case F_BOOL:
        fputc(*(const bool *)x->at ? '1' : '0', f);
        break;
    }
}

/* "word a=1 b=2\n" */
static void put_line(FILE *f, const char *word, const field *x, size_t n)
{
    fputs(word, f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, " %s=", x[i].name);
        put_value(f, &x[i]);
    }
    fputc('\n', f);
}

/* The value text v (NUL-terminated) into x.  0, or -1. */
static int get_value(const field *x, const char *v)
{
    char *end;
    errno = 0;
    if (*v == '\0' || *v == ' ')
        return -1;
    switch (x->type) {
    case F_U64:
    case F_U32: {
        if (*v == '-')
            return -1;
        unsigned long long u = strtoull(v, &end, 10);
        if (*end || errno || (x->type == F_U32 && u > UINT32_MAX))
            return -1;
        if (x->type == F_U64)
            *(uint64_t *)x->at = (uint64_t)u;
        else
            *(uint32_t *)x->at = (uint32_t)u;
        return 0;
    }
    case F_I64:
    case F_INT: {
        long long s = strtoll(v, &end, 10);
        if (*end || errno ||
            (x->type == F_INT && (s < -2147483647 - 1 || s > 2147483647)))
            return -1;
        if (x->type == F_I64)
            *(int64_t *)x->at = (int64_t)s;
        else
            *(int *)x->at = (int)s;
        return 0;
    }
    case F_DOUBLE:
        *(double *)x->at = strtod(v, &end);
        return *end ? -1 : 0;
    case F_BOOL:
        if ((v[0] != '0' && v[0] != '1') || v[1])
            return -1;
        *(bool *)x->at = v[0] == '1';
        return 0;
    }
    return -1;
}

/* Line l (changed in place) as put_line wrote it: the word, then every
 * field of x in order, nothing after.  0, or -1 with why in e. */
static int get_line(char *l, const char *word, const field *x, size_t n,
                    sb_err *e)
{
    size_t w = strlen(word);
    if (strncmp(l, word, w) != 0 || (l[w] != ' ' && l[w] != '\0'))
        return err_set(e, "expected the '%s' line", word);
    char *p = l + w;
    for (size_t i = 0; i < n; i++) {
        size_t k = strlen(x[i].name);
        if (*p != ' ' || strncmp(p + 1, x[i].name, k) != 0 || p[1 + k] != '=')
            return err_set(e, "'%s': expected %s= next", word, x[i].name);
        char *v = p + 2 + k, *stop = strchr(v, ' ');
        if (stop)
            *stop = '\0';
        if (get_value(&x[i], v) != 0)
            return err_set(e, "'%s': %s: cannot read '%s'", word, x[i].name, v);
        if (stop)
            *stop = ' ';
        p = stop ? stop : v + strlen(v);
    }
    if (*p)
        return err_set(e, "'%s': more than its %zu fields", word, n);
    return 0;
}

/* ---- The record's lines ---------------------------------------------------- */

/* Every field of risk_result, of its split_estimate and split_plan and of
 * its sim_branch is in the record (the *_fields tables below): an
 * estimate read back is the estimate made, whatever an output reads of
 * it.  A field added to one of them changes its size and stops the build
 * here.  Then: write the field in the record (a table below), raise
 * RISKFILE_VERSION (saved estimates of the old layout are made again),
 * give it a valid value in check_compare_risk's every_field_round_trips
 * if it is a bool or a count bounding an array, and set the new size.
 * That test fills every byte of a risk_result, round-trips it and finds
 * a field left out even where a new one fits in padding.  The sizes are
 * LP64's (x86-64, aarch64), the ABI CI builds for. */
#if defined(__LP64__)
_Static_assert(sizeof(risk_result) == 3640,
               "risk_result changed: write the new field in riskfile.c");
_Static_assert(sizeof(split_estimate) == 120,
               "split_estimate changed: write the new field in riskfile.c");
_Static_assert(sizeof(split_plan) == 1328,
               "split_plan changed: write the new field in riskfile.c");
_Static_assert(sizeof(sim_branch) == 1032,
               "sim_branch changed: write the new field in riskfile.c");
#endif

#define N_OPTIONS 10
static void options_fields(const riskfile_key *k, uint64_t *seed, int *method,
                           int *importance, field *x)
{
    const risk_opts *ro = &k->o->ro;
    *seed = k->seed;
    *method = (int)ro->method;
    *importance = (int)ro->importance;
    field f[N_OPTIONS] = {
        FIELD("seed", F_U64, seed),
        FIELD("horizon_ns", F_I64, &k->o->horizon_ns),
        FIELD("storm_window_ns", F_I64, &k->o->storm_window_ns),
        FIELD("method", F_INT, method),
        FIELD("confidence", F_DOUBLE, &ro->confidence),
        FIELD("target_rel_error", F_DOUBLE, &ro->target_rel_error),
        FIELD("max_runs", F_U64, &ro->max_runs),
        FIELD("max_sim_s", F_DOUBLE, &ro->max_sim_s),
        FIELD("importance", F_INT, importance),
        FIELD("pilot_runs", F_U32, &ro->pilot_runs)};
    memcpy(x, f, sizeof f);
}

/* The first five lines, which say whose estimate it is, into f. */
static void put_head(FILE *f, const riskfile_key *k)
{
    fprintf(f, "%s %d\nfingerprint %s\ncell point=%" PRIu32 " policy=%d\n",
            MAGIC, RISKFILE_VERSION, k->fingerprint, k->point, k->policy);
    fprintf(f, "label %s\n", k->label);
    uint64_t seed;
    int method, importance;
    field x[N_OPTIONS];
    options_fields(k, &seed, &method, &importance, x);
    put_line(f, "options", x, N_OPTIONS);
}

#define N_ESTIMATE 17
static void estimate_fields(const split_estimate *s, field *x)
{
    field f[N_ESTIMATE] = {
        FIELD("p", F_DOUBLE, &s->p),
        FIELD("lo", F_DOUBLE, &s->lo),
        FIELD("hi", F_DOUBLE, &s->hi),
        FIELD("rel_error", F_DOUBLE, &s->rel_error),
        FIELD("trials", F_U64, &s->trials),
        FIELD("hit_trials", F_U64, &s->hit_trials),
        FIELD("hits", F_U64, &s->hits),
        FIELD("paths", F_U64, &s->paths),
        FIELD("work", F_DOUBLE, &s->work),
        FIELD("variance", F_DOUBLE, &s->variance),
        FIELD("work_variance", F_DOUBLE, &s->work_variance),
        FIELD("effective_runs", F_DOUBLE, &s->effective_runs),
        FIELD("plain", F_BOOL, &s->plain),
        FIELD("reached_target", F_BOOL, &s->reached_target),
        FIELD("fixed_effort", F_BOOL, &s->fixed_effort),
        FIELD("replicates", F_U64, &s->replicates),
        FIELD("per_level", F_U32, &s->per_level)};
    memcpy(x, f, sizeof f);
}

#define N_PLAN 6
static void plan_fields(const split_plan *s, field *x)
{
    field f[N_PLAN] = {FIELD("levels", F_INT, &s->n_levels),
                       FIELD("hit_share", F_DOUBLE, &s->hit_share),
                       FIELD("pilot_hits", F_U32, &s->pilot_hits),
                       FIELD("pilot_work", F_DOUBLE, &s->pilot_work),
                       FIELD("no_return", F_BOOL, &s->no_return),
                       FIELD("no_return_level", F_DOUBLE, &s->no_return_level)};
    memcpy(x, f, sizeof f);
}

#define N_LEVEL 3
static void level_fields(const split_plan *s, int i, field *x)
{
    field f[N_LEVEL] = {FIELD("value", F_DOUBLE, &s->level[i]),
                        FIELD("copies", F_U32, &s->copies[i]),
                        FIELD("crossed", F_DOUBLE, &s->crossed[i])};
    memcpy(x, f, sizeof f);
}

#define N_RESULT 11
static void result_fields(const risk_result *r, field *x)
{
    field f[N_RESULT] = {FIELD("splitting", F_BOOL, &r->splitting),
                         FIELD("fixed_effort", F_BOOL, &r->fixed_effort),
                         FIELD("found", F_BOOL, &r->found),
                         FIELD("first_trial", F_U64, &r->first_trial),
                         FIELD("first_seed", F_U64, &r->first_seed),
                         FIELD("first_storm_ns", F_I64, &r->first_storm_ns),
                         FIELD("one_shot", F_BOOL, &r->one_shot),
                         FIELD("rate_per_s", F_DOUBLE, &r->rate_per_s),
                         FIELD("rate_lo_per_s", F_DOUBLE, &r->rate_lo_per_s),
                         FIELD("rate_hi_per_s", F_DOUBLE, &r->rate_hi_per_s),
                         FIELD("exposure_s", F_DOUBLE, &r->exposure_s)};
    memcpy(x, f, sizeof f);
}

#define N_STEP 2
static void step_fields(const sim_branch *b, uint32_t i, field *x)
{
    field f[N_STEP] = {FIELD("at_ns", F_I64, &b->step[i].at_ns),
                       FIELD("key", F_U64, &b->step[i].key)};
    memcpy(x, f, sizeof f);
}

/* The record of r but its end line into f. */
static void put_record(FILE *f, const riskfile_key *k, const risk_result *r)
{
    field x[N_ESTIMATE];
    put_head(f, k);
    estimate_fields(&r->est, x);
    put_line(f, "estimate", x, N_ESTIMATE);
    plan_fields(&r->plan, x);
    put_line(f, "plan", x, N_PLAN);
    for (int i = 0; i < r->plan.n_levels && i < SPLIT_MAX_LEVELS; i++) {
        level_fields(&r->plan, i, x);
        put_line(f, "level", x, N_LEVEL);
    }
    result_fields(r, x);
    put_line(f, "result", x, N_RESULT);
    fprintf(f, "branch steps=%" PRIu32 "\n", r->first_branch.n);
    for (uint32_t i = 0; i < r->first_branch.n && i < SIM_MAX_BRANCH; i++) {
        step_fields(&r->first_branch, i, x);
        put_line(f, "step", x, N_STEP);
    }
    fputs("note ", f);
    for (const char *c = r->note; *c; c++) {
        if (*c == '\\')
            fputs("\\\\", f);
        else if (*c == '\n')
            fputs("\\n", f);
        else
            fputc(*c, f);
    }
    fputc('\n', f);
}

/* ---- Writing --------------------------------------------------------------- */

void riskfile_path(char *buf, size_t len, const char *dir, uint32_t point,
                   int policy)
{
    snprintf(buf, len, "%s/risk/point%" PRIu32 "-policy%d.risk", dir, point,
             policy);
}

int riskfile_write(const char *path, const riskfile_key *k,
                   const risk_result *r, sb_err *e)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m == NULL)
        return err_set(e, "out of memory");
    put_record(m, k, r);
    if (fclose(m) != 0 || text == NULL) {
        free(text);
        return err_set(e, "out of memory");
    }
    outfile o;
    int rc = outfile_open(&o, path, e);
    if (rc == 0) {
        fwrite(text, 1, len, o.f);
        fprintf(o.f, "end %016" PRIx64 "\n",
                runfile_hash(RUNFILE_FNV, text, len));
        rc = outfile_commit(&o, e);
    }
    free(text);
    return rc;
}

/* ---- Reading --------------------------------------------------------------- */

/* The next line of the record (changed in place: its '\n' becomes NUL),
 * or NULL at its end; *line counts them. */
static char *next_line(char **p, int *line)
{
    if (**p == '\0')
        return NULL;
    char *l = *p, *nl = strchr(l, '\n');
    if (nl) {
        *nl = '\0';
        *p = nl + 1;
    } else {
        *p = l + strlen(l);
    }
    (*line)++;
    return l;
}

/* The head's five lines, as k's record would have them, against the
 * file's: -1 with why when one differs. */
static int check_head(char **p, int *line, const riskfile_key *k, sb_err *e)
{
    static const char *const why[] = {
        "not a risk estimate this stormbench writes (another version)",
        /* parenthesised: one string split over lines, not two */
        ("an estimate of another comparison (its fingerprint differs: the "
         "scenario, a --set, a policy entry, a sweep or the stormbench "
         "changed)"),
        "the estimate of another policy or sweep point",
        "the estimate of another policy entry",
        ("made with other options (--horizon, --storm-window, --risk-runs, "
         "--risk-pilot-runs or the first seed)")};
    char *want = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&want, &len);
    if (m == NULL)
        return err_set(e, "out of memory");
    put_head(m, k);
    if (fclose(m) != 0 || want == NULL) {
        free(want);
        return err_set(e, "out of memory");
    }
    int rc = 0;
    char *w = want;
    for (int i = 0; i < 5 && rc == 0; i++) {
        int ignored = 0;
        char *mine = next_line(&w, &ignored), *got = next_line(p, line);
        if (mine == NULL || got == NULL || strcmp(mine, got) != 0)
            rc = err_set(e, "%d: %s", *line, why[i]);
    }
    free(want);
    return rc;
}

static void unescape(const char *s, char *out, size_t len)
{
    size_t n = 0;
    for (; *s && n + 1 < len; s++) {
        if (s[0] == '\\' && (s[1] == 'n' || s[1] == '\\')) {
            out[n++] = s[1] == 'n' ? '\n' : '\\';
            s++;
        } else {
            out[n++] = *s;
        }
    }
    out[n] = '\0';
}

/* The lines after the head into *r.  -1 with "LINE: why" in e. */
static int parse_body(char *p, int line, risk_result *r, sb_err *e)
{
    field x[N_ESTIMATE];
    char *l;
    sb_err why;
#define LINE(word, fields, n)                                                  \
    do {                                                                       \
        l = next_line(&p, &line);                                              \
        if (l == NULL)                                                         \
            return err_set(e, "%d: truncated (no '%s' line)", line + 1, word); \
        if (get_line(l, word, fields, n, &why) != 0)                           \
            return err_set(e, "%d: %s", line, why.msg);                        \
    } while (0)
    estimate_fields(&r->est, x);
    LINE("estimate", x, N_ESTIMATE);
    plan_fields(&r->plan, x);
    LINE("plan", x, N_PLAN);
    if (r->plan.n_levels < 0 || r->plan.n_levels > SPLIT_MAX_LEVELS)
        return err_set(e, "%d: levels=%d: at most %d", line, r->plan.n_levels,
                       SPLIT_MAX_LEVELS);
    for (int i = 0; i < r->plan.n_levels; i++) {
        level_fields(&r->plan, i, x);
        LINE("level", x, N_LEVEL);
    }
    result_fields(r, x);
    LINE("result", x, N_RESULT);
    field steps = FIELD("steps", F_U32, &r->first_branch.n);
    LINE("branch", &steps, 1);
    if (r->first_branch.n > SIM_MAX_BRANCH)
        return err_set(e, "%d: steps=%" PRIu32 ": at most %d", line,
                       r->first_branch.n, SIM_MAX_BRANCH);
    for (uint32_t i = 0; i < r->first_branch.n; i++) {
        step_fields(&r->first_branch, i, x);
        LINE("step", x, N_STEP);
    }
#undef LINE
    l = next_line(&p, &line);
    if (l == NULL || strncmp(l, "note ", 5) != 0)
        return err_set(e, "%d: expected the 'note' line", line);
    unescape(l + 5, r->note, sizeof r->note);
    if (*p)
        return err_set(e, "%d: more lines than a record has", line + 1);
    return 0;
}

/* The whole file at path, NUL-terminated, into *text.  0; 1 when it does
 * not exist; -1 with a message. */
static int slurp(const char *path, char **text, size_t *len, sb_err *e)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return errno == ENOENT ? 1
                               : err_set(e, "%s: %s", path, strerror(errno));
    char *m = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&m, &n);
    char buf[4096];
    size_t got;
    while (out && (got = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, got, out);
    bool bad = ferror(f);
    fclose(f);
    if (out == NULL || fclose(out) != 0 || m == NULL) {
        free(m);
        return err_set(e, "out of memory");
    }
    if (bad) {
        free(m);
        return err_set(e, "%s: cannot be read", path);
    }
    *text = m;
    *len = n;
    return 0;
}

int riskfile_read(const char *path, const riskfile_key *k, risk_result *r,
                  sb_err *e)
{
    char *text;
    size_t len;
    int rc = slurp(path, &text, &len, e);
    if (rc != 0)
        return rc;
    memset(r, 0, sizeof *r);
    sb_err why = {{0}};
    /* The end line: "end " and 16 hex digits, the last of the file. */
    const size_t end_len = 4 + 16 + 1;
    char *endline = len >= end_len ? text + len - end_len : NULL;
    int line = 0;
    for (size_t i = 0; i < len; i++)
        line += text[i] == '\n';
    if (endline == NULL || (endline > text && endline[-1] != '\n') ||
        strncmp(endline, "end ", 4) != 0 || text[len - 1] != '\n') {
        rc = err_set(&why, "%d: truncated (no end line)", line);
    } else {
        char hex[17];
        snprintf(hex, sizeof hex, "%016" PRIx64,
                 runfile_hash(RUNFILE_FNV, text, (size_t)(endline - text)));
        if (strncmp(endline + 4, hex, 16) != 0)
            rc = err_set(&why,
                         "%d: its checksum does not match (damaged or "
                         "edited)",
                         line);
    }
    if (rc == 0) {
        *endline = '\0';
        char *p = text;
        line = 0;
        rc = check_head(&p, &line, k, &why);
        if (rc == 0)
            rc = parse_body(p, line, r, &why);
    }
    free(text);
    if (rc != 0) {
        memset(r, 0, sizeof *r);
        return err_set(e, "%s:%s", path, why.msg);
    }
    return 0;
}
