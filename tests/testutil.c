#include "testutil.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "classifier.h"
#include "engine.h"

extern char **environ;

const char *tu_temp_path(const char *name)
{
    static char path[1024];
    char dir[900];
    snprintf(dir, sizeof dir, "%s/test-tmp", SB_BUILD_DIR);
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/%d-%s", dir, (int)getpid(), name);
    return path;
}

const char *tu_write_temp(const char *name, const char *text)
{
    const char *path = tu_temp_path(name);
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
    return path;
}

char *tu_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    fclose(f);
    buf[len] = '\0';
    return buf;
}

unsigned tu_saved_runs(const char *dir)
{
    char runs[1100], path[1400];
    snprintf(runs, sizeof runs, "%s/runs", dir);
    DIR *d = opendir(runs);
    unsigned n = 0;
    if (d == NULL)
        return 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        size_t len = strlen(de->d_name);
        if (de->d_name[0] == '.' ||
            !((len > 4 && strcmp(de->d_name + len - 4, ".run") == 0) ||
              (len > 5 && strcmp(de->d_name + len - 5, ".runs") == 0)))
            continue;
        snprintf(path, sizeof path, "%s/%s", runs, de->d_name);
        char *text = tu_read_file(path);
        for (const char *p = text; p && *p; p = strchr(p, '\n')) {
            if (*p == '\n')
                p++;
            n += strncmp(p, "stormbench-run ", 15) == 0;
        }
        free(text);
    }
    closedir(d);
    return n;
}

/* The engine's invariants, which walk every record: at every 16th
 * bucket for the first 64 checks, then at every 32nd, and so on (a run of
 * 131 000 buckets, check_summary's, is checked 190 times, not 8 000). */
static void check_sane(void *ctx, const sim *s, const metrics_bucket *b,
                       const metrics_hist *h)
{
    (void)h;
    tu_sim *t = ctx;
    if (t->buckets++ % (16 << (t->checks / 64)) != 0)
        return;
    t->checks++;
    if (!sim_sane(s) && t->insane++ == 0)
        t->first_insane = b->start_ns;
}

/* Load, build the policy and create the sim; with `trace`, every request
 * is traced to it (the sampling rate is read when the sim is created). */
static tu_sim *prepare_edited(const char *ini, const char *policy,
                              const char *const *params, int n_params,
                              void (*trace)(void *, const sim_trace *),
                              void *ctx, void (*edit)(sim_config *, void *),
                              void *edit_ctx);

static tu_sim *prepare(const char *ini, const char *policy,
                       const char *const *params, int n_params,
                       void (*trace)(void *, const sim_trace *), void *ctx)
{
    return prepare_edited(ini, policy, params, n_params, trace, ctx, NULL,
                          NULL);
}

tu_sim *tu_sim_run_edited(const char *ini, const char *policy,
                          void (*edit)(sim_config *, void *), void *ctx)
{
    tu_sim *t = prepare_edited(ini, policy, NULL, 0, NULL, NULL, edit, ctx);
    if (sim_run_until(t->sim, t->sc.cfg.duration_ns) != 0)
        ck_abort_msg("run failed: %s", sim_error(t->sim));
    sim_finish(t->sim);
    summary_compute(t->sim, &t->sum);
    return t;
}

tu_sim *tu_sim_prepare_edited(const char *ini, const char *policy,
                              void (*edit)(sim_config *, void *), void *ctx)
{
    return prepare_edited(ini, policy, NULL, 0, NULL, NULL, edit, ctx);
}

static tu_sim *prepare_edited(const char *ini, const char *policy,
                              const char *const *params, int n_params,
                              void (*trace)(void *, const sim_trace *),
                              void *ctx, void (*edit)(sim_config *, void *),
                              void *edit_ctx)
{
    tu_sim *t = calloc(1, sizeof *t);
    ck_assert_ptr_nonnull(t);
    sb_err e;
    const char *path = tu_write_temp("scenario.ini", ini);
    if (scenario_load(path, NULL, 0, &t->sc, &e) != 0)
        ck_abort_msg("scenario did not load: %s", e.msg);
    if (trace)
        t->sc.cfg.trace_sample = 1;
    if (edit)
        edit(&t->sc.cfg, edit_ctx);
    setting settings[2 * PSTACK_MAX_SETTINGS];
    int n = 0;
    if (policy == NULL || strcmp(policy, t->sc.policy) == 0)
        for (int i = 0; i < t->sc.n_settings; i++)
            settings[n++] = t->sc.settings[i];
    for (int i = 0; i < n_params; i++)
        if (setting_parse(params[i], "--param", &settings[n++], &e) != 0)
            ck_abort_msg("bad test parameter: %s", e.msg);
    const char *plugins[SCENARIO_MAX_PLUGINS];
    for (int i = 0; i < t->sc.n_plugins; i++)
        plugins[i] = t->sc.plugins[i];
    if (policy_setup_build_at(policy ? policy : t->sc.policy,
                              policy ? "--policy" : t->sc.policy_origin,
                              plugins, t->sc.n_plugins, settings, n, &t->ps,
                              &e) != 0)
        ck_abort_msg("policy did not build: %s", e.msg);
    if (sim_create(&t->sc.cfg, t->ps.stack, &t->sim, &e) != 0)
        ck_abort_msg("sim did not build: %s", e.msg);
    sim_observer sane = {t, check_sane, NULL, false};
    ck_assert_int_eq(sim_observe(t->sim, &sane), 0);
    if (trace) {
        sim_observer o = {ctx, NULL, trace, false};
        ck_assert_int_eq(sim_observe(t->sim, &o), 0);
    }
    return t;
}

tu_sim *tu_sim_prepare(const char *ini, const char *policy,
                       const char *const *params, int n_params)
{
    return prepare(ini, policy, params, n_params, NULL, NULL);
}

tu_sim *tu_sim_run(const char *ini, const char *policy,
                   const char *const *params, int n_params)
{
    return tu_sim_run_traced(ini, policy, params, n_params, NULL, NULL);
}

tu_sim *tu_sim_run_traced(const char *ini, const char *policy,
                          const char *const *params, int n_params,
                          void (*trace)(void *, const sim_trace *), void *ctx)
{
    tu_sim *t = prepare(ini, policy, params, n_params, trace, ctx);
    if (sim_run_until(t->sim, t->sc.cfg.duration_ns) != 0)
        ck_abort_msg("run failed: %s", sim_error(t->sim));
    sim_finish(t->sim);
    summary_compute(t->sim, &t->sum);
    return t;
}

void tu_sim_free(tu_sim *t)
{
    if (t == NULL)
        return;
    if (t->sim && !sim_sane(t->sim) && t->insane++ == 0)
        t->first_insane = sim_now(t->sim);
    ck_assert_msg(t->insane == 0,
                  "the engine's invariants failed %d times, first at "
                  "t = %.6f s (sim_sane, engine.h)",
                  t->insane, (double)t->first_insane / 1e9);
    sim_destroy(t->sim);
    policy_setup_free(&t->ps);
    free(t);
}

int tu_stormbench(tu_output *o, const char *const *argl)
{
    const char *argv[64];
    int n = 0;
    argv[n++] = SB_BINARY;
    for (; argl[n - 1] && n < 63; n++)
        argv[n] = argl[n - 1];
    argv[n] = NULL;
    return tu_run(o, argv);
}

int tu_run(tu_output *o, const char *const *argv)
{
    memset(o, 0, sizeof *o);
    char out_path[1024], err_path[1024];
    snprintf(out_path, sizeof out_path, "%s", tu_temp_path("stdout"));
    snprintf(err_path, sizeof err_path, "%s", tu_temp_path("stderr"));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_path,
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_path,
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc =
        posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    ck_assert_msg(rc == 0, "cannot run %s: %s", argv[0], strerror(rc));
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    o->out = tu_read_file(out_path);
    o->err = tu_read_file(err_path);
    o->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return o->status;
}

void tu_output_free(tu_output *o)
{
    free(o->out);
    free(o->err);
    memset(o, 0, sizeof *o);
}

/* Position just after "last-part": in json, or NULL. */
static const char *find_path(const char *json, const char *path)
{
    char part[128];
    const char *p = json;
    while (*path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        snprintf(part, sizeof part, "\"%.*s\":", (int)n, path);
        p = strstr(p, part);
        if (p == NULL)
            return NULL;
        p += strlen(part);
        path += n + (dot != NULL);
    }
    while (*p == ' ')
        p++;
    return p;
}

double tu_json_number(const char *json, const char *path)
{
    const char *p = find_path(json, path);
    ck_assert_msg(p != NULL, "no key '%s' in JSON", path);
    char *end;
    double v = strtod(p, &end);
    ck_assert_msg(end != p, "key '%s' is not a number: %.20s", path, p);
    return v;
}

bool tu_json_is_null(const char *json, const char *path)
{
    const char *p = find_path(json, path);
    ck_assert_msg(p != NULL, "no key '%s' in JSON", path);
    return strncmp(p, "null", 4) == 0;
}

bool tu_json_is_true(const char *json, const char *path)
{
    const char *p = find_path(json, path);
    ck_assert_msg(p != NULL, "no key '%s' in JSON", path);
    return strncmp(p, "true", 4) == 0;
}

/* The index of `column` in the header line, or -1. */
static int csv_index(const char *csv, const char *column)
{
    size_t n = strlen(column);
    int idx = 0;
    for (const char *p = csv; *p && *p != '\n'; idx++) {
        const char *end = p + strcspn(p, ",\n");
        if ((size_t)(end - p) == n && strncmp(p, column, n) == 0)
            return idx;
        p = *end == ',' ? end + 1 : end;
    }
    return -1;
}

double tu_csv_sum(const char *csv, const char *column)
{
    int idx = csv_index(csv, column);
    ck_assert_msg(idx >= 0, "the CSV has no column '%s'", column);
    double sum = 0.0;
    for (const char *row = strchr(csv, '\n'); row && row[1];
         row = strchr(row + 1, '\n')) {
        const char *p = row + 1;
        for (int i = 0; i < idx && p; i++) {
            p = strpbrk(p, ",\n");
            p = p && *p == ',' ? p + 1 : NULL;
        }
        if (p)
            sum += strtod(p, NULL);
    }
    return sum;
}

char *tu_tool_output(const char *tool, const char *const *targs)
{
    ck_assert_msg(tool[0] && strstr(tool, "NOTFOUND") == NULL,
                  "a poppler tool (pdfinfo, pdftotext) was not found when "
                  "CMake configured: install poppler-utils (.ci/setup) and "
                  "configure again");
    const char *argv[12] = {tool};
    for (int i = 0; targs[i] && i < 10; i++)
        argv[i + 1] = targs[i];
    tu_output o;
    int st = tu_run(&o, argv);
    ck_assert_msg(st == 0, "%s failed (%d): %s", tool, st, o.err);
    char *out = o.out;
    o.out = NULL;
    tu_output_free(&o);
    return out;
}

int tu_count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

char *tu_run_json_tail(const char *name, const char *const *argl)
{
    char json[1024];
    snprintf(json, sizeof json, "%s", tu_temp_path(name));
    const char *a[24] = {"run", "--json",      json,
                         "-q",  "--no-timing", "--no-expect"};
    int n = 6;
    for (int i = 0; argl[i] && n < 23; i++)
        a[n++] = argl[i];
    a[n] = NULL;
    tu_output o;
    tu_stormbench(&o, a);
    ck_assert_msg(o.status == 0, "exit %d: %s%s", o.status, o.out, o.err);
    tu_output_free(&o);
    char *j = tu_read_file(json);
    ck_assert_ptr_nonnull(j);
    const char *f = strstr(j, "\"file\"");
    ck_assert_ptr_nonnull(f);
    char *tail = strdup(strchr(f, '\n'));
    free(j);
    return tail;
}
