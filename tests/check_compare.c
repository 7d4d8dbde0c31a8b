/*
 * check_compare.c -- the comparison runner (reports/compare.h): runs
 * reduced and saved, resumed, merged, checked; statistics, verdicts and
 * the tables.
 *
 * Most tests run a small retry storm (20 clients, 40 s, a 5 s outage:
 * about 2 ms a run, 30 under ASan) with 3 policies x 4 seeds.  The
 * verdict and band tests write saved runs by hand instead, so that their
 * expected numbers can be worked out on paper.
 */
#include <check.h>
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compare.h"
#include "policy_setup.h"
#include "outfile.h"
#include "runfile.h"
#include "runstore.h"
#include "testutil.h"

/* The storm: 40 requests/s against 4 workers of exp(50 ms) (utilization
 * 0.5), a 5 s black-hole outage at 15 s, 20 % posts and, from 15 to 25 s,
 * 20 % of answers lost, so that retries make duplicates.  No warmup, so
 * the phases cover the whole run: before [0, 15), during [15, 25), after
 * [25, 35), end [35, 40) (the recovery window is 5 s). */
static const char storm_fmt[] =
    "[scenario]\nname = cmp\ndescription = a small storm\nduration = 40s\n"
    "warmup = 0s\nrecovery_window = 5s\nseed = %d\n"
    "[clients]\ncount = 20\nrate = 2/s\ntimeout = 500ms\nread = 0.8\n"
    "post = 0.2\n"
    "[server]\nworkers = 4\nservice = exp(50ms)\nnetwork_delay = const(1ms)\n"
    "[policy]\nname = exponential\nbase = 50ms\nmax_attempts = 4\n"
    "[fault.outage]\ntype = outage\nstart = 15s\nduration = 5s\n"
    "mode = blackhole\n"
    "[fault.acks]\ntype = lost_ack\nstart = 15s\nduration = 10s\n"
    "probability = 0.2\n";

#define SEED0 7
#define SEEDS 4

static const char *const entries[] = {"none", "immediate",
                                      "exponential:jitter=full"};
#define N_ENTRIES 3

/* A test's plan and the scenario it was built from. */
typedef struct fixture {
    compare_plan plan;
    compare_point point;
    scenario sc;
    char path[1024];
} fixture;

/* An entry as the CLI fills it (cli_scenario_params): all the scenario's
 * [policy] settings when the stack is the scenario's own, else those its
 * layers also have, then the entry's "key=value"s. */
static void fill_entry(const scenario *sc, const char *text, compare_policy *cp)
{
    sb_err e;
    memset(cp, 0, sizeof *cp);
    snprintf(cp->label, sizeof cp->label, "%s", text);
    char copy[160];
    snprintf(copy, sizeof copy, "%s", text);
    char *save, *tok = strtok_r(copy, ":", &save);
    snprintf(cp->stack, sizeof cp->stack, "%s", tok);
    if (strcmp(cp->stack, sc->policy) == 0) {
        for (int i = 0; i < sc->n_settings; i++)
            cp->params[cp->n_params++] = sc->settings[i];
    } else { /* the file's parameters the stack also has, as run --policy */
        setting dropped[PSTACK_MAX_SETTINGS];
        int n_dropped;
        ck_assert_int_eq(policy_setup_filter(cp->stack, NULL, 0, sc->settings,
                                             sc->n_settings, cp->params,
                                             &cp->n_params, dropped, &n_dropped,
                                             &e),
                         0);
    }
    while ((tok = strtok_r(NULL, ":", &save)) != NULL)
        ck_assert_int_eq(
            setting_parse(tok, "test", &cp->params[cp->n_params++], &e), 0);
}

/* The plan of the scenario fmt (with its seed's %d) for the entries. */
static fixture *plan_of(const char *fmt)
{
    fixture *f = calloc(1, sizeof *f);
    ck_assert_ptr_nonnull(f);
    char ini[2048];
    snprintf(ini, sizeof ini, fmt, SEED0);
    snprintf(f->path, sizeof f->path, "%s", tu_write_temp("compare.ini", ini));
    sb_err e;
    ck_assert_msg(scenario_load(f->path, NULL, 0, &f->sc, &e) == 0, "%s",
                  e.msg);
    compare_plan *p = &f->plan;
    snprintf(p->scenario, sizeof p->scenario, "%s", f->path);
    snprintf(p->name, sizeof p->name, "%s", f->sc.cfg.name);
    snprintf(p->description, sizeof p->description, "%s",
             f->sc.cfg.description);
    for (int i = 0; i < N_ENTRIES; i++)
        fill_entry(&f->sc, entries[i], &p->policies[i]);
    p->n_policies = N_ENTRIES;
    p->seed0 = SEED0;
    p->n_seeds = SEEDS;
    f->point.cfg = f->sc.cfg;
    p->points = &f->point;
    p->n_points = 1;
    compare_plan_fingerprint(p, ini, strlen(ini));
    return f;
}

static fixture *storm_plan(void)
{
    return plan_of(storm_fmt);
}

/* A new, empty directory under the build tree. */
static const char *fresh_dir(const char *name)
{
    static char dirs[8][1024];
    static int next;
    char *d = dirs[next++ % 8];
    snprintf(d, 1024, "%s", tu_temp_path(name));
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    ck_assert_int_eq(system(cmd), 0);
    return d;
}

static void execute(const compare_plan *p, const char *dir, int jobs)
{
    compare_opts o = {dir, jobs, NULL, 0, NULL, NULL, {NULL, NULL, 0, NULL, 0}};
    sb_err e;
    int rc = compare_execute(p, &o, &e);
    ck_assert_msg(rc == 0, "compare_execute: %d %s", rc, rc < 0 ? e.msg : "");
}

static compare_result *load(const compare_plan *p, const char *dir)
{
    const char *dirs[1] = {dir};
    compare_result *r;
    sb_err e;
    ck_assert_msg(compare_load(p, dirs, 1, &r, &e) == 0, "%s", e.msg);
    return r;
}

/* runs.csv, summary.md and summary.json of a result, written into dir. */
static void write_tables(const compare_result *r, const char *dir)
{
    char path[1200];
    sb_err e;
    snprintf(path, sizeof path, "%s/runs.csv", dir);
    ck_assert_msg(compare_write_csv(r, path, &e) == 0, "%s", e.msg);
    snprintf(path, sizeof path, "%s/summary.md", dir);
    ck_assert_msg(compare_write_md(r, path, &e) == 0, "%s", e.msg);
    snprintf(path, sizeof path, "%s/summary.json", dir);
    ck_assert_msg(compare_write_json(r, path, &e) == 0, "%s", e.msg);
}

static char *read_in(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = tu_read_file(path);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    return text;
}

static void assert_same_file(const char *a, const char *b, const char *name)
{
    char *x = read_in(a, name), *y = read_in(b, name);
    ck_assert_msg(strcmp(x, y) == 0, "%s differs between %s and %s", name, a,
                  b);
    free(x);
    free(y);
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every record saved under dir/runs/, sorted, as one text: the runs
 * saved, whichever files and order they were saved in. */
static char *records_of(const char *dir)
{
    char runs[1100], path[1400];
    snprintf(runs, sizeof runs, "%s/runs", dir);
    char *rec[64];
    int n = 0;
    size_t total = 1;
    DIR *d = opendir(runs);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", runs, de->d_name);
        char *text = tu_read_file(path);
        for (char *p = text; *p;) {
            char *next = strstr(p + 1, "\nstormbench-run ");
            size_t len = next ? (size_t)(next + 1 - p) : strlen(p);
            ck_assert_int_lt(n, 64);
            rec[n] = strndup(p, len);
            total += len;
            n++;
            p += len;
        }
        free(text);
    }
    closedir(d);
    qsort(rec, (size_t)n, sizeof *rec, by_text);
    char *all = malloc(total);
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(rec[i]);
        memcpy(all + used, rec[i], len);
        used += len;
        free(rec[i]);
    }
    all[used] = '\0';
    return all;
}

static const char *const tables[3] = {"runs.csv", "summary.md", "summary.json"};

/* Both directories' runs loaded and their tables written: the tables
 * are byte-identical. */
static void assert_same_tables(const compare_plan *p, const char *a,
                               const char *b)
{
    compare_result *ra = load(p, a), *rb = load(p, b);
    write_tables(ra, a);
    write_tables(rb, b);
    for (int i = 0; i < 3; i++)
        assert_same_file(a, b, tables[i]);
    compare_result_free(ra);
    compare_result_free(rb);
}

/* ---- Determinism --------------------------------------------------------- */

/* The same plan on 1 and on 2 threads: the same saved runs, byte for
 * byte, and so the same tables -- results are a function of the plan,
 * not of which thread ran what or in which order runs finished. */
START_TEST(threads_do_not_change_results)
{
    fixture *f = storm_plan();
    const char *one = fresh_dir("cmp-j1"), *two = fresh_dir("cmp-j2");
    execute(&f->plan, one, 1);
    execute(&f->plan, two, 2);
    char *x = records_of(one), *y = records_of(two);
    ck_assert_uint_eq(tu_saved_runs(one), compare_n_runs(&f->plan));
    ck_assert_msg(strcmp(x, y) == 0, "the saved runs differ");
    free(x);
    free(y);
    assert_same_tables(&f->plan, one, two);
    free(f);
}
END_TEST

/* Every run's summary, read back from its file, is bit for bit the one
 * the engine gives for that policy and seed run on its own, as
 * `stormbench run --policy P --param ... --seed S` builds it (testutil's
 * tu_sim_run does what cmd_run does).  memcmp covers every field: both
 * summaries are zeroed before they are filled, so a field the saved
 * format forgot would differ. */
START_TEST(a_run_is_the_run_sim_gives)
{
    fixture *f = storm_plan();
    const char *dir = fresh_dir("cmp-same");
    execute(&f->plan, dir, 2);
    compare_result *res = load(&f->plan, dir);
    for (int pol = 0; pol < N_ENTRIES; pol++)
        for (uint32_t sd = 0; sd < SEEDS; sd += 3) {
            char ini[2048];
            snprintf(ini, sizeof ini, storm_fmt, (int)(SEED0 + sd));
            /* The entry's parameters, the file's it kept included. */
            const compare_policy *cp = &f->plan.policies[pol];
            char text[PSTACK_MAX_SETTINGS][360];
            const char *params[PSTACK_MAX_SETTINGS];
            for (int i = 0; i < cp->n_params; i++) {
                snprintf(text[i], sizeof text[i], "%s=%s", cp->params[i].key,
                         cp->params[i].value);
                params[i] = text[i];
            }
            tu_sim *t = tu_sim_run(ini, cp->stack, params, cp->n_params);
            const compare_run *r = &res->runs[(uint32_t)pol * SEEDS + sd];
            ck_assert_uint_eq(r->seed, SEED0 + sd);
            ck_assert_msg(memcmp(&r->sum, &t->sum, sizeof t->sum) == 0,
                          "%s seed %u: the saved summary differs", entries[pol],
                          SEED0 + sd);
            tu_sim_free(t);
        }
    /* And through the real binary, for one of them. */
    tu_output o;
    const char *argl[] = {"run",         f->path, "--policy", "immediate",
                          "--seed",      "10",    "--json",   "-",
                          "--no-timing", "-q",    NULL};
    tu_stormbench(&o, argl);
    const compare_run *r = &res->runs[1 * SEEDS + 3];
    ck_assert_double_eq_tol(tu_json_number(o.out, "amplification"),
                            r->sum.amplification, 1e-5 * r->sum.amplification);
    ck_assert_double_eq(tu_json_number(o.out, "duplicates"),
                        (double)r->sum.duplicates);
    ck_assert_double_eq(tu_json_number(o.out, "offered"),
                        (double)r->sum.offered);
    tu_output_free(&o);
    compare_result_free(res);
    free(f);
}
END_TEST

/* The storm's clients as job runners: two steps, a flaky extract and a
 * batch load of 5 items that fails for good in 20 % of jobs, one rerun
 * without checkpoints. */
static void storm_pipeline(sim_config *c, void *ctx)
{
    (void)ctx;
    pipeline_cfg *p = &c->pipeline;
    p->n_steps = 2;
    p->strategy = PIPELINE_FAIL_FAST;
    p->reruns = 1;
    p->rerun_delay_ns = 200000000;
    p->warn_retry = 2;
    p->dead_letter_growth = 3;
    config_step_defaults(&p->steps[0]);
    config_step_defaults(&p->steps[1]);
    snprintf(p->steps[0].name, sizeof p->steps[0].name, "extract");
    snprintf(p->steps[1].name, sizeof p->steps[1].name, "load");
    p->steps[0].transient = 0.2;
    p->steps[1].items = 5;
    p->steps[1].permanent = 0.2;
}

/* A comparison of a pipeline saves and loads each run's jobs whole: the
 * loaded summary is the one a run of the same seed gives, pipeline and
 * steps included (their names from the scenario), and the jobs'
 * metrics are compared. */
START_TEST(a_pipeline_run_is_the_run_sim_gives)
{
    fixture *f = storm_plan();
    storm_pipeline(&f->point.cfg, NULL);
    /* The scenario's own policy, so that tu_sim_run_edited runs it. */
    fill_entry(&f->sc, "exponential", &f->plan.policies[2]);
    const char *dir = fresh_dir("cmp-pipe-same");
    execute(&f->plan, dir, 2);
    compare_result *res = load(&f->plan, dir);
    for (uint32_t sd = 0; sd < SEEDS; sd += 3) {
        char ini[2048];
        snprintf(ini, sizeof ini, storm_fmt, (int)(SEED0 + sd));
        tu_sim *t = tu_sim_run_edited(ini, NULL, storm_pipeline, NULL);
        compare_run r = res->runs[2 * SEEDS + sd];
        ck_assert(r.sum.has_pipeline);
        ck_assert_uint_gt(r.sum.pipeline.jobs, 0);
        ck_assert_uint_gt(r.sum.pipeline.reruns, 0);
        ck_assert_str_eq(r.sum.pipeline.step[0].name, "extract");
        ck_assert_str_eq(r.sum.pipeline.step[1].name, "load");
        for (int i = 0; i < 2; i++) /* the same names, elsewhere */
            r.sum.pipeline.step[i].name = t->sum.pipeline.step[i].name;
        ck_assert_msg(memcmp(&r.sum, &t->sum, sizeof t->sum) == 0,
                      "seed %u: the saved summary differs", SEED0 + sd);
        tu_sim_free(t);
    }
    for (int m = CM_JOBS_COMPLETED; m < CM_COUNT; m++) {
        ck_assert(compare_metric_shown(&f->plan, m));
        for (int pol = 0; pol < N_ENTRIES; pol++)
            ck_assert_uint_eq(compare_stat_at(res, 0, pol, m)->ci.n, SEEDS);
    }
    compare_result_free(res);
    free(f);
}
END_TEST

/* ---- Interrupt and resume --------------------------------------------- */

typedef struct watcher {
    const char *dir;
    unsigned after;
    atomic_int stop;
    atomic_int quit;
} watcher;

static unsigned saved_runs(const char *dir)
{
    return tu_saved_runs(dir);
}

/* Ctrl-C, as the CLI's handler gives it: the flag is set once `after`
 * runs are saved. */
static void *watch_runs(void *arg)
{
    watcher *w = arg;
    while (!atomic_load(&w->quit) && !atomic_load(&w->stop)) {
        if (saved_runs(w->dir) >= w->after)
            atomic_store(&w->stop, 1);
        nanosleep(&(struct timespec){0, 200000}, NULL);
    }
    return NULL;
}

/* The record files under dir/runs/ and their text, to see that a later
 * execute left them as they were. */
typedef struct files {
    int n;
    char name[16][256];
    char *text[16];
} files;

static void files_of(const char *dir, files *out)
{
    char runs[1100], path[1400];
    snprintf(runs, sizeof runs, "%s/runs", dir);
    out->n = 0;
    DIR *d = opendir(runs);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        if (de->d_name[0] == '.')
            continue;
        ck_assert_int_lt(out->n, 16);
        snprintf(out->name[out->n], sizeof out->name[0], "%s", de->d_name);
        snprintf(path, sizeof path, "%s/%s", runs, de->d_name);
        out->text[out->n++] = tu_read_file(path);
    }
    closedir(d);
}

static void files_free(files *f)
{
    for (int i = 0; i < f->n; i++)
        free(f->text[i]);
}

/* Stopped after a few runs, a comparison keeps what finished; run again,
 * it runs only what is missing (the files saved so far are left as they
 * were, and every run has one record in all), and its tables are
 * byte-identical to those of a comparison never interrupted. */
START_TEST(interrupt_then_resume)
{
    fixture *f = storm_plan();
    uint32_t n = compare_n_runs(&f->plan);
    const char *whole = fresh_dir("cmp-whole"), *dir = fresh_dir("cmp-int");
    execute(&f->plan, whole, 2);
    watcher w = {dir, 3, 0, 0};
    pthread_t th;
    pthread_create(&th, NULL, watch_runs, &w);
    compare_opts o = {dir, 1, NULL, 0, NULL, &w.stop, {NULL, NULL, 0, NULL, 0}};
    sb_err e;
    int rc = compare_execute(&f->plan, &o, &e);
    atomic_store(&w.quit, 1);
    pthread_join(th, NULL);
    ck_assert_int_eq(rc, 1);
    unsigned kept = saved_runs(dir);
    ck_assert_uint_ge(kept, 3);
    ck_assert_uint_lt(kept, n);
    files before, after;
    files_of(dir, &before);
    ck_assert_int_eq(before.n, 1); /* one thread, one file */
    /* What was missing is now there; what was saved was not run again. */
    execute(&f->plan, dir, 2);
    ck_assert_uint_eq(saved_runs(dir), n);
    files_of(dir, &after);
    ck_assert_int_ge(after.n, 2);
    for (int i = 0; i < after.n; i++)
        if (strcmp(after.name[i], before.name[0]) == 0)
            ck_assert_msg(strcmp(after.text[i], before.text[0]) == 0,
                          "%s was written again", before.name[0]);
    files_free(&before);
    files_free(&after);
    assert_same_tables(&f->plan, whole, dir);
    free(f);
}
END_TEST

/* An emitted job runs just its runs (opts.only); runs saved in several
 * directories merge into the same tables as one comparison. */
START_TEST(only_and_merge)
{
    fixture *f = storm_plan();
    uint32_t n = compare_n_runs(&f->plan);
    const char *whole = fresh_dir("cmp-all"), *a = fresh_dir("cmp-ma"),
               *b = fresh_dir("cmp-mb");
    execute(&f->plan, whole, 2);
    uint32_t odd[32], even[32], n_odd = 0, n_even = 0;
    for (uint32_t r = 0; r < n; r++) {
        if (r % 2)
            odd[n_odd++] = r;
        else
            even[n_even++] = r;
    }
    sb_err e;
    compare_opts oa = {a, 1, odd, n_odd, NULL, NULL, {NULL, NULL, 0, NULL, 0}};
    compare_opts ob = {
        b, 2, even, n_even, NULL, NULL, {NULL, NULL, 0, NULL, 0}};
    ck_assert_int_eq(compare_execute(&f->plan, &oa, &e), 0);
    ck_assert_int_eq(compare_execute(&f->plan, &ob, &e), 0);
    ck_assert_uint_eq(saved_runs(a), n_odd);
    ck_assert_uint_eq(saved_runs(b), n_even);
    /* One directory alone lacks half the runs: an error that names the
     * first missing run and the job that makes it. */
    const char *only_a[1] = {a};
    compare_result *r;
    ck_assert_int_eq(compare_load(&f->plan, only_a, 1, &r, &e), -1);
    ck_assert_msg(strstr(e.msg, "6 of 12 runs are not saved") &&
                      strstr(e.msg, "run 0: policy 'none', seed 7") &&
                      strstr(e.msg, "--run 0"),
                  "%s", e.msg);
    const char *both[2] = {a, b};
    ck_assert_msg(compare_load(&f->plan, both, 2, &r, &e) == 0, "%s", e.msg);
    compare_result *w = load(&f->plan, whole);
    write_tables(r, a);
    write_tables(w, whole);
    for (int i = 0; i < 3; i++)
        assert_same_file(whole, a, tables[i]);
    compare_result_free(r);
    compare_result_free(w);
    free(f);
}
END_TEST

/* ---- Damaged saved runs ----------------------------------------------- */

static void truncate_file(const char *path, long keep)
{
    char *text = tu_read_file(path);
    ck_assert_ptr_nonnull(text);
    FILE *out = fopen(path, "w");
    fwrite(text, 1, (size_t)keep, out);
    fclose(out);
    free(text);
}

/* A digit changed somewhere in the middle: only the checksum tells. */
static void flip_digit(const char *path)
{
    char *text = tu_read_file(path);
    char *p = strstr(text, "attempts=") + strlen("attempts=");
    *p = *p == '9' ? '8' : (char)(*p + 1);
    FILE *out = fopen(path, "w");
    fputs(text, out);
    fclose(out);
    free(text);
}

/* Run r of plan p alone, its record moved into dir/runs/name: a file
 * holding that run only, to damage. */
static void save_alone(const compare_plan *p, uint32_t r, const char *dir,
                       const char *name, char *path, size_t len)
{
    const char *tmp = fresh_dir("cmp-alone");
    compare_opts o = {tmp, 1, &r, 1, NULL, NULL, {NULL, NULL, 0, NULL, 0}};
    sb_err e;
    ck_assert_msg(compare_execute(p, &o, &e) == 0, "%s", e.msg);
    files fs;
    files_of(tmp, &fs);
    ck_assert_int_eq(fs.n, 1);
    char from[1400];
    snprintf(from, sizeof from, "%s/runs/%s", tmp, fs.name[0]);
    snprintf(path, len, "%s/runs/%s", dir, name);
    sb_err me;
    ck_assert_int_eq(outfile_make_parents(path, &me), 0);
    ck_assert_int_eq(rename(from, path), 0);
    files_free(&fs);
}

/* A truncated record, an edited one and one saved by another plan are
 * each refused by file and line when loading -- never used -- and run
 * again by the next execute, after which the tables are those of an
 * undamaged comparison. */
START_TEST(damaged_runs_are_refused_and_rerun)
{
    fixture *f = storm_plan();
    const char *whole = fresh_dir("cmp-ok"), *dir = fresh_dir("cmp-bad");
    execute(&f->plan, whole, 2);
    char cut[1200], edited[1200], stale[1200];
    uint32_t all_but[16], n_but = 0;
    for (uint32_t r = 0; r < compare_n_runs(&f->plan); r++)
        if (r != 2 && r != 5 && r != 9)
            all_but[n_but++] = r;
    compare_opts ob = {
        dir, 2, all_but, n_but, NULL, NULL, {NULL, NULL, 0, NULL, 0}};
    sb_err e;
    ck_assert_int_eq(compare_execute(&f->plan, &ob, &e), 0);
    save_alone(&f->plan, 2, dir, "cut.runs", cut, sizeof cut);
    save_alone(&f->plan, 5, dir, "edited.runs", edited, sizeof edited);
    /* Another plan's run 9: the same scenario with another fingerprint. */
    compare_plan other = f->plan;
    snprintf(other.fingerprint, sizeof other.fingerprint, "0123456789abcdef");
    save_alone(&other, 9, dir, "stale.runs", stale, sizeof stale);
    struct stat st;
    ck_assert_int_eq(stat(cut, &st), 0);
    truncate_file(cut, st.st_size / 2);
    flip_digit(edited);

    struct {
        const char *path, *why;
    } cases[3] = {{cut, "truncated"},
                  {edited, "its checksum does not match"},
                  {stale, "saved by another plan"}};
    for (int i = 0; i < 3; i++) {
        const char *dirs[1] = {dir};
        compare_result *r;
        ck_assert_int_eq(compare_load(&f->plan, dirs, 1, &r, &e), -1);
        ck_assert_msg(strstr(e.msg, cases[i].path) &&
                          strstr(e.msg, cases[i].why),
                      "case %d: %s", i, e.msg);
        /* execute runs the damaged run again, so that the next case's
         * record is the first bad one. */
        if (i < 2) {
            uint32_t again = i == 0 ? 2 : 5;
            compare_opts o = {
                dir, 1, &again, 1, NULL, NULL, {NULL, NULL, 0, NULL, 0}};
            ck_assert_int_eq(compare_execute(&f->plan, &o, &e), 0);
        }
    }
    /* execute itself reruns a damaged record, the stale one here; then,
     * every run saved, it drops the three refused records (runstore.h's
     * compaction): 14 saved, + run 9, - 3 = one record per run. */
    ck_assert_uint_eq(saved_runs(dir), 14); /* 9 + 2 reruns + 3 refused */
    execute(&f->plan, dir, 2);
    ck_assert_uint_eq(saved_runs(dir), compare_n_runs(&f->plan));
    assert_same_tables(&f->plan, whole, dir);
    free(f);
}
END_TEST

static bool has_file(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/runs/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* Stale records -- a second record of a run, a torn one, another plan's
 * -- are dropped once a compare has every run: runs/ is then one file of
 * one record per run, plus a record of a seed beyond the plan (a later
 * --seeds 5 reuses it), and the tables are the same bytes.  A job (--run)
 * leaves runs/ alone, and so does a compare with nothing stale. */
START_TEST(stale_records_are_compacted)
{
    fixture *f = storm_plan();
    uint32_t n = compare_n_runs(&f->plan);
    const char *whole = fresh_dir("cmp-clean"), *dir = fresh_dir("cmp-stale");
    execute(&f->plan, whole, 2);
    execute(&f->plan, dir, 2);
    ck_assert(!has_file(dir, "compacted.runs")); /* nothing stale */
    char path[1200];
    save_alone(&f->plan, 3, dir, "dup.runs", path, sizeof path);
    save_alone(&f->plan, 4, dir, "torn.runs", path, sizeof path);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    truncate_file(path, st.st_size / 2);
    compare_plan other = f->plan, more = f->plan;
    snprintf(other.fingerprint, sizeof other.fingerprint, "0123456789abcdef");
    save_alone(&other, 9, dir, "other.runs", path, sizeof path);
    more.n_seeds = SEEDS + 1; /* run 4: policy 0, seed SEED0 + 4 */
    save_alone(&more, 4, dir, "more.runs", path, sizeof path);
    ck_assert_uint_eq(saved_runs(dir), n + 4);
    /* The index counts what compaction will drop, so a compare with
     * nothing stale skips the second read: dup (a second record of run
     * 3), torn (refused), other (another plan's); more's seed beyond the
     * plan is not stale. */
    {
        runstore *ix;
        const char *ds[1] = {dir};
        sb_err ie;
        ck_assert_int_eq(runstore_open(&f->plan, ds, 1, &ix, &ie), 0);
        ck_assert_uint_eq(runstore_stale(ix), 3);
        runstore_close(ix);
    }

    /* A job has runs 0 and 1 saved: it runs nothing and keeps all. */
    uint32_t job[2] = {0, 1};
    compare_opts o = {dir, 1, job, 2, NULL, NULL, {NULL, NULL, 0, NULL, 0}};
    sb_err e;
    ck_assert_int_eq(compare_execute(&f->plan, &o, &e), 0);
    ck_assert_uint_eq(saved_runs(dir), n + 4);
    ck_assert(has_file(dir, "dup.runs"));

    execute(&f->plan, dir, 2);
    files fs;
    files_of(dir, &fs);
    ck_assert_int_eq(fs.n, 1);
    ck_assert_str_eq(fs.name[0], "compacted.runs");
    files_free(&fs);
    ck_assert_uint_eq(saved_runs(dir), n + 1); /* - dup, torn, other */
    assert_same_tables(&f->plan, whole, dir);
    runstore *rs;
    const char *dirs[1] = {dir};
    ck_assert_int_eq(runstore_open(&more, dirs, 1, &rs, &e), 0);
    for (uint32_t r = 0; r < compare_n_runs(&more); r++)
        ck_assert_int_eq(runstore_has(rs, r),
                         r % (SEEDS + 1) < SEEDS || r == 4);
    runstore_close(rs);

    /* Compacted, nothing is stale: the next compare rewrites nothing. */
    ck_assert_int_eq(stat(path, &st), -1); /* more.runs: removed */
    char kept[1200];
    snprintf(kept, sizeof kept, "%s/runs/compacted.runs", dir);
    struct stat a, b;
    ck_assert_int_eq(stat(kept, &a), 0);
    execute(&f->plan, dir, 2);
    ck_assert_int_eq(stat(kept, &b), 0);
    ck_assert_uint_eq(a.st_ino, b.st_ino);
    ck_assert_uint_eq(saved_runs(dir), n + 1);
    free(f);
}
END_TEST

/* A job of another process, appending to runs/: its first record when
 * started, its second when told to (a byte on go), then it exits. */
typedef struct job_proc {
    pid_t pid;
    int ready[2], go[2];
} job_proc;

static void job_appends(job_proc *j, const char *dir, const runfile_buf *a,
                        const runfile_buf *b)
{
    runfile_log l;
    memset(&l, 0, sizeof l);
    sb_err e;
    char c = 0;
    if (runfile_log_append(&l, dir, a, &e) != 0 ||
        write(j->ready[1], "r", 1) != 1 || read(j->go[0], &c, 1) != 1 ||
        runfile_log_append(&l, dir, b, &e) != 0 ||
        runfile_log_close(&l, &e) != 0)
        _exit(1);
    _exit(0);
}

/* Let the job append its second record and wait for it to exit. */
static void job_finishes(void *arg)
{
    job_proc *j = arg;
    if (j->pid == 0)
        return;
    ck_assert_int_eq(write(j->go[1], "g", 1), 1);
    int st;
    ck_assert_int_eq(waitpid(j->pid, &st, 0), j->pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "job: %#x", st);
    j->pid = 0;
}

/* A record of plan p's run r, as a job appends it. */
static void record_of(const compare_plan *p, uint32_t r, runfile_buf *b)
{
    char path[1200];
    save_alone(p, r, fresh_dir("cmp-rec"), "r.runs", path, sizeof path);
    sb_err e;
    ck_assert_msg(runfile_slurp(b, path, &e) == 0, "%s", e.msg);
}

/* A compaction while a job (another process) still has its file open:
 * the job appends a record after the compaction has read every file
 * (runstore_compact_hook, the one moment it can be lost).  Without the
 * lock, the compaction then removed the job's file, record and all (the
 * record of run 4 of the larger plan was gone: 12 records left of the 12
 * + 2 saved, the duplicate rightly dropped with it).  With it, a
 * compaction that finds a job writing leaves runs/ alone, and the next
 * one, the job gone, drops the stale record. */
START_TEST(compaction_leaves_a_job_writing_alone)
{
    fixture *f = storm_plan();
    uint32_t n = compare_n_runs(&f->plan);
    compare_plan more = f->plan;
    more.n_seeds = SEEDS + 1; /* run 4: policy 0, seed SEED0 + 4 */
    const char *dir = fresh_dir("cmp-busy");
    execute(&f->plan, dir, 2);
    runfile_buf dup = {NULL, 0, 0}, beyond = {NULL, 0, 0};
    record_of(&f->plan, 3, &dup); /* stale: run 3 is saved already */
    record_of(&more, 4, &beyond);
    job_proc j;
    ck_assert_int_eq(pipe(j.ready), 0);
    ck_assert_int_eq(pipe(j.go), 0);
    j.pid = fork();
    ck_assert_int_ge(j.pid, 0);
    if (j.pid == 0)
        job_appends(&j, dir, &dup, &beyond);
    char c;
    ck_assert_int_eq(read(j.ready[0], &c, 1), 1);

    runstore_compact_hook = job_finishes;
    runstore_compact_hook_arg = &j;
    runstore_compaction rc;
    sb_err e;
    ck_assert_msg(runstore_compact(&f->plan, dir, &rc, &e) == 0, "%s", e.msg);
    runstore_compact_hook = NULL;
    job_finishes(&j); /* when the compaction did not */
    runstore *rs;
    const char *dirs[1] = {dir};
    ck_assert_int_eq(runstore_open(&more, dirs, 1, &rs, &e), 0);
    ck_assert_msg(runstore_has(rs, 4), "the job's record was dropped");
    runstore_close(rs);
    ck_assert_uint_eq(saved_runs(dir), n + 2);
    ck_assert(rc.busy);
    ck_assert_uint_eq(rc.stale, 0);

    ck_assert_int_eq(runstore_compact(&f->plan, dir, &rc, &e), 0);
    ck_assert(!rc.busy);
    ck_assert_uint_eq(rc.stale, 1); /* the second record of run 3 */
    ck_assert_uint_eq(saved_runs(dir), n + 1);
    ck_assert(has_file(dir, "compacted.runs"));
    runfile_buf_free(&dup);
    runfile_buf_free(&beyond);
    free(f);
}
END_TEST

/* The one record of a file (runfile_write's). */
static int read_back(runfile_buf *b, const char *path, const char *fp,
                     compare_run *r, compare_series *s, sb_err *e)
{
    int rc = runfile_slurp(b, path, e);
    if (rc != 0)
        return -1;
    return runfile_parse(b->p, b->len, path, 0, fp, r, s, e);
}

/* The series rows by their definition: each the sums (phases_sum) of
 * its run of per_row buckets, every bucket added, the last row however
 * short, the figures computed without a shortcut.  Counts the quiet
 * buckets (phases_bucket_quiet), which compare's reducer never sees. */
typedef struct fold_ref {
    uint64_t per_row, duplicates, quiet, buckets;
    phases_sum row;
    compare_series s;
} fold_ref;

static void fold_ref_flush(fold_ref *f)
{
    phases_sum *a = &f->row;
    if (a->buckets == 0)
        return;
    float *v = f->s.v[f->s.n_rows++];
    double width_s = (double)a->width_ns / 1e9;
    v[CC_OFFERED] = (float)((double)a->offered / width_s);
    v[CC_ATTEMPTS] = (float)((double)a->attempts / width_s);
    v[CC_GOODPUT] = (float)((double)a->successes / width_s);
    v[CC_QUEUE] = (float)(a->queue_ns / (double)a->width_ns);
    v[CC_P99_MS] = (float)phases_sum_p99_ms(a);
    v[CC_DUPLICATES] = (float)f->duplicates;
    v[CC_REFUSED] = (float)((double)a->refusals / width_s);
    phases_sum_clear(a);
}

static void fold_ref_bucket(void *ctx, const sim *s, const metrics_bucket *b,
                            const metrics_hist *h)
{
    (void)s;
    fold_ref *f = ctx;
    f->buckets++;
    f->quiet += phases_bucket_quiet(b, h);
    f->duplicates += b->duplicates;
    phases_sum_add(&f->row, b, h);
    if (f->row.buckets == f->per_row)
        fold_ref_flush(f);
}

/* The storm in 10 ms buckets, over 40.005 s: 4 001 buckets (the last one
 * past the duration: a run closes ceil(duration / bucket)), 12 to a row
 * (ceil(4 001 / 360)), so 334 rows, the last of 5 buckets; at 40 requests
 * a second, many buckets have nothing in them. */
static const char fine_fmt[] =
    "[scenario]\nname = cmp\ndescription = a small storm\n"
    "duration = 40005ms\nbucket = 10ms\n"
    "warmup = 0s\nrecovery_window = 5s\nseed = %d\n"
    "[clients]\ncount = 20\nrate = 2/s\ntimeout = 500ms\nread = 0.8\n"
    "post = 0.2\n"
    "[server]\nworkers = 4\nservice = exp(50ms)\nnetwork_delay = const(1ms)\n"
    "[policy]\nname = exponential\nbase = 50ms\nmax_attempts = 4\n"
    "[fault.outage]\ntype = outage\nstart = 15s\nduration = 5s\n"
    "mode = blackhole\n"
    "[fault.acks]\ntype = lost_ack\nstart = 15s\nduration = 10s\n"
    "probability = 0.2\n";

static bool same_float(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

/* A saved run's series is its buckets folded by definition, bit for bit,
 * although compare's reducer is told only of the buckets that are not
 * quiet (sim_observer.skip_quiet) and counts the others in by number: a
 * row boundary, a width or a row at the end off by one bucket would
 * change a rate. */
START_TEST(series_rows_fold_every_bucket)
{
    fixture *f = plan_of(fine_fmt);
    const char *dir = fresh_dir("cmp-fold");
    compare_series *got = malloc(sizeof *got);
    fold_ref *ref = calloc(1, sizeof *ref);
    ck_assert_ptr_nonnull(got);
    ck_assert_ptr_nonnull(ref);
    for (int pol = 0; pol < N_ENTRIES; pol++) {
        uint32_t r = (uint32_t)pol * SEEDS + 1;
        char path[1200], name[32];
        snprintf(name, sizeof name, "fold%d.runs", pol);
        save_alone(&f->plan, r, dir, name, path, sizeof path);
        runfile_buf buf = {0};
        compare_run run;
        sb_err e;
        ck_assert_msg(
            read_back(&buf, path, f->plan.fingerprint, &run, got, &e) == 0,
            "%s", e.msg);
        runfile_buf_free(&buf);

        char ini[2048];
        snprintf(ini, sizeof ini, fine_fmt, (int)(SEED0 + 1));
        const compare_policy *cp = &f->plan.policies[pol];
        char text[PSTACK_MAX_SETTINGS][360];
        const char *params[PSTACK_MAX_SETTINGS];
        for (int i = 0; i < cp->n_params; i++) {
            snprintf(text[i], sizeof text[i], "%s=%s", cp->params[i].key,
                     cp->params[i].value);
            params[i] = text[i];
        }
        memset(ref, 0, sizeof *ref);
        phases_sum_clear(&ref->row);
        ref->per_row = 12;
        tu_sim *t = tu_sim_prepare(ini, cp->stack, params, cp->n_params);
        sim_observer o = {ref, fold_ref_bucket, NULL, false};
        ck_assert_int_eq(sim_observe(t->sim, &o), 0);
        ck_assert_int_eq(sim_run_until(t->sim, t->sc.cfg.duration_ns), 0);
        sim_finish(t->sim);
        fold_ref_flush(ref);
        tu_sim_free(t);

        ck_assert_uint_eq(ref->buckets, 4001);
        ck_assert_uint_eq(ref->s.n_rows, 334);
        /* Both kinds of bucket, and rows of both kinds. */
        ck_assert_uint_gt(ref->quiet, 100);
        ck_assert_uint_lt(ref->quiet, 3900);
        ck_assert_uint_eq(got->n_rows, ref->s.n_rows);
        ck_assert_double_eq(got->row_s, 0.12);
        for (uint32_t i = 0; i < got->n_rows; i++)
            for (int c = 0; c < CC_COUNT; c++)
                ck_assert_msg(same_float(got->v[i][c], ref->s.v[i][c]),
                              "%s: row %u column %d: saved %.9g, by "
                              "definition %.9g",
                              entries[pol], i, c, (double)got->v[i][c],
                              (double)ref->s.v[i][c]);
    }
    free(got);
    free(ref);
    free(f);
}
END_TEST

/* Every prefix of a saved run is refused; the whole record is the run
 * its "run" line says, even read from a damaged copy. */
START_TEST(every_truncation_is_refused)
{
    fixture *f = storm_plan();
    const char *dir = fresh_dir("cmp-trunc");
    char path[1200];
    save_alone(&f->plan, 1, dir, "one.runs", path, sizeof path);
    char *text = tu_read_file(path);
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    compare_run *r = malloc(sizeof *r);
    compare_series *s = malloc(sizeof *s);
    sb_err e;
    uint32_t pt, pol;
    uint64_t seed;
    for (size_t keep = 0; keep < len; keep += 1 + keep / 64) {
        memcpy(copy, text, keep);
        copy[keep] = '\0';
        ck_assert_int_eq(
            runfile_parse(copy, keep, "cut", 0, f->plan.fingerprint, r, s, &e),
            -1);
    }
    memcpy(copy, text, len + 1);
    ck_assert_msg(runfile_whose(copy, len / 2, &pt, &pol, &seed), "%s", copy);
    ck_assert_uint_eq(pt, 0);
    ck_assert_uint_eq(pol, 0);
    ck_assert_uint_eq(seed, SEED0 + 1);
    ck_assert_msg(
        runfile_parse(copy, len, path, 0, f->plan.fingerprint, r, s, &e) == 0,
        "%s", e.msg);
    ck_assert_uint_eq(r->point, 0);
    ck_assert_uint_eq(r->policy, 0);
    ck_assert_uint_eq(r->seed, SEED0 + 1);
    free(copy);
    free(text);
    free(r);
    free(s);
    free(f);
}
END_TEST

/* ---- The tables ------------------------------------------------------- */

/* The column of `name` in a CSV header. */
static int csv_column(const char *csv, const char *name)
{
    int idx = 0;
    size_t n = strlen(name);
    for (const char *p = csv; *p && *p != '\n'; idx++) {
        size_t len = strcspn(p, ",\n");
        if (len == n && strncmp(p, name, n) == 0)
            return idx;
        p += len + (p[len] == ',');
    }
    return -1;
}

/* Field `col` of the line at p (no quoting in these rows). */
static double csv_field(const char *p, int col)
{
    for (int i = 0; i < col; i++)
        p = strchr(p, ',') + 1;
    if (*p == ',' || *p == '\n')
        return NAN;
    return strtod(p, NULL);
}

/* runs.csv: one row per run, in run order, and each policy's mean of a
 * metric column recomputed here is the statistic's mean. */
START_TEST(csv_rows_and_means)
{
    fixture *f = storm_plan();
    const char *dir = fresh_dir("cmp-csv");
    execute(&f->plan, dir, 2);
    compare_result *res = load(&f->plan, dir);
    write_tables(res, dir);
    char *csv = read_in(dir, "runs.csv");
    int rows = 0;
    for (const char *p = csv; *p; p++)
        rows += *p == '\n';
    ck_assert_int_eq(rows, 1 + (int)compare_n_runs(&f->plan));
    for (int m = 0; m < CM_COUNT; m++) {
        int col = csv_column(csv, compare_metrics[m].key);
        /* The pipeline's metrics only with a pipeline: none here. */
        if (!compare_metric_shown(&f->plan, m)) {
            ck_assert_int_lt(col, 0);
            continue;
        }
        ck_assert_int_ge(col, 0);
        double sum[N_ENTRIES] = {0};
        int n[N_ENTRIES] = {0};
        const char *line = strchr(csv, '\n') + 1;
        for (uint32_t r = 0; r < compare_n_runs(&f->plan); r++) {
            ck_assert_int_eq(atoi(line), (int)r);
            double v = csv_field(line, col);
            int pol = (int)(r / SEEDS);
            if (!isnan(v)) {
                sum[pol] += v;
                n[pol]++;
            }
            line = strchr(line, '\n') + 1;
        }
        for (int pol = 0; pol < N_ENTRIES; pol++) {
            const compare_stat *st = compare_stat_at(res, 0, pol, m);
            ck_assert_uint_eq(st->ci.n, (size_t)n[pol]);
            if (n[pol])
                ck_assert_double_eq_tol(sum[pol] / n[pol], st->ci.mean,
                                        1e-12 * (1 + fabs(st->ci.mean)));
        }
    }
    free(csv);
    compare_result_free(res);
    free(f);
}
END_TEST

/* The literal after "k1": ... "kn": in json (each key searched after the
 * one before), up to the next ',', '\n' or '}'. */
static void json_literal(const char *json, const char *const *keys, int n,
                         char *buf, size_t len)
{
    const char *p = json;
    for (int i = 0; i < n; i++) {
        char k[200];
        snprintf(k, sizeof k, "\"%s\": ", keys[i]);
        p = strstr(p, k);
        ck_assert_msg(p != NULL, "no key %s in the JSON", keys[i]);
        p += strlen(k);
    }
    size_t l = strcspn(p, ",\n}");
    snprintf(buf, len, "%.*s", (int)l, p);
}

/* The cells of a Markdown table row whose first cell starts with `head`:
 * cell c (0 = the first) into buf. */
static void md_cell(const char *md, const char *head, int c, char *buf,
                    size_t len)
{
    char start[200];
    snprintf(start, sizeof start, "\n| %s |", head);
    const char *p = strstr(md, start);
    ck_assert_msg(p != NULL, "no row '%s' in the Markdown", head);
    p += 3;
    for (int i = 0; i < c; i++)
        p = strstr(p, " | ") + 3;
    size_t l = strstr(p, " |") - p;
    snprintf(buf, len, "%.*s", (int)l, p);
}

/* summary.md prints the numbers summary.json has, rounded: summary.json
 * keeps every digit (the double itself, for programs), summary.md three
 * significant digits of the mean, and its interval to the same decimal
 * place -- so for every policy and metric the Markdown cell starts with
 * "mean [lo, hi]" as printf rounds the JSON's numbers. */
START_TEST(markdown_has_the_json_numbers)
{
    fixture *f = storm_plan();
    const char *dir = fresh_dir("cmp-md");
    execute(&f->plan, dir, 2);
    compare_result *res = load(&f->plan, dir);
    write_tables(res, dir);
    char *md = read_in(dir, "summary.md"), *json = read_in(dir, "summary.json");
    int checked = 0;
    for (int m = 0; m < CM_COUNT; m++)
        for (int pol = 0; pol < N_ENTRIES && compare_metric_shown(&f->plan, m);
             pol++) {
            const char *keys[4] = {"results", entries[pol],
                                   compare_metrics[m].key, "mean"};
            char mean[40], lo[40], hi[40], cell[200], head[100], want[200];
            json_literal(json, keys, 4, mean, sizeof mean);
            keys[3] = "lo";
            json_literal(json, keys, 4, lo, sizeof lo);
            keys[3] = "hi";
            json_literal(json, keys, 4, hi, sizeof hi);
            if (compare_metrics[m].unit[0])
                snprintf(head, sizeof head, "%s (%s)", compare_metrics[m].name,
                         compare_metrics[m].unit);
            else
                snprintf(head, sizeof head, "%s", compare_metrics[m].name);
            md_cell(md, head, pol + 1, cell, sizeof cell);
            double mv = strtod(mean, NULL), lv = strtod(lo, NULL),
                   hv = strtod(hi, NULL);
            /* Three significant digits of the mean (of the interval's
             * half-width when the mean is 0), 0 to 6 decimals. */
            double scale = mv != 0 ? mv : hv - mv;
            int d = scale == 0 ? 0 : 2 - (int)floor(log10(fabs(scale)));
            d = d < 0 ? 0 : d > 6 ? 6 : d;
            /* The ends: at d, unless one of them prints a zero there;
             * then two significant digits of the half width (hi less
             * the mean: no hi here is cut at 100 %), when fewer. */
            int e = d;
            double half = 0.5 * pow(10.0, -d);
            if (d > 0 && hv - mv > 0 && (fabs(lv) < half || fabs(hv) < half)) {
                int w = 1 - (int)floor(log10(hv - mv));
                w = w < 0 ? 0 : w;
                e = w < d ? w : d;
            }
            if (strcmp(mean, "null") == 0)
                snprintf(want, sizeof want, "-");
            else if (strcmp(lo, "null") == 0) /* one value: no interval */
                snprintf(want, sizeof want, "%.*f", d, mv);
            else
                snprintf(want, sizeof want, "%.*f [%.*f, %.*f]", d, mv, e, lv,
                         e, hv);
            ck_assert_msg(strncmp(cell, want, strlen(want)) == 0,
                          "%s, %s: Markdown '%s', JSON '%s'", head,
                          entries[pol], cell, want);
            checked += strcmp(mean, "null") != 0;
        }
    ck_assert_int_ge(checked, 20);
    /* The verdict sentences are the same text in both. */
    for (int m = 0; m < CM_COUNT; m++)
        if (compare_metric_shown(&f->plan, m))
            ck_assert_ptr_nonnull(
                strstr(md, compare_verdict_of(res, 0, m)->text));
    free(md);
    free(json);
    compare_result_free(res);
    free(f);
}
END_TEST

/* The phases of the storm: before [0, 15), during [15, 25), after [25,
 * 35) and end [35, 40) s -- they tile the run (no warmup), so their
 * offered rates times their widths add up to every request offered. */
START_TEST(phases_tile_the_run)
{
    fixture *f = storm_plan();
    const char *dir = fresh_dir("cmp-phase");
    execute(&f->plan, dir, 2);
    compare_result *res = load(&f->plan, dir);
    static const double from[PHASE_COUNT] = {0, 15, 25, 35};
    static const double to[PHASE_COUNT] = {15, 25, 35, 40};
    for (uint32_t r = 0; r < compare_n_runs(&f->plan); r++) {
        const compare_run *run = &res->runs[r];
        double offered = 0, dups = 0;
        for (int k = 0; k < PHASE_COUNT; k++) {
            const compare_phase *ph = &run->sum.phase[k];
            ck_assert(ph->present);
            ck_assert_double_eq(ph->from_s, from[k]);
            ck_assert_double_eq(ph->to_s, to[k]);
            offered += ph->offered_per_s * (ph->to_s - ph->from_s);
            dups += ph->duplicates;
        }
        ck_assert_double_eq_tol(offered, (double)run->sum.offered, 1e-6);
        ck_assert_double_eq(dups, (double)run->sum.duplicates);
    }
    /* Retries of posts whose answers were lost make duplicates, and
     * immediate retries keep the storm going. */
    ck_assert_double_gt(compare_stat_at(res, 0, 1, CM_DUPLICATES)->ci.mean, 0);
    compare_result_free(res);
    free(f);
}
END_TEST

/* ---- Verdicts and bands on runs written by hand ------------------------- */

/* A plan of `n_pol` policies and `seeds` seeds at one open-loop point,
 * for runs saved by hand. */
static fixture *hand_plan_of(const char *const *labels, int n_pol,
                             uint32_t seeds)
{
    fixture *f = calloc(1, sizeof *f);
    compare_plan *p = &f->plan;
    snprintf(p->name, sizeof p->name, "hand");
    for (int i = 0; i < n_pol; i++) {
        snprintf(p->policies[i].label, sizeof p->policies[i].label, "%s",
                 labels[i]);
        snprintf(p->policies[i].stack, sizeof p->policies[i].stack, "%s",
                 labels[i]);
    }
    p->n_policies = n_pol;
    p->seed0 = 1;
    p->n_seeds = seeds;
    config_defaults(&f->point.cfg);
    p->points = &f->point;
    p->n_points = 1;
    compare_plan_fingerprint(p, "hand", 4);
    return f;
}

static fixture *hand_plan(int n_pol, uint32_t seeds)
{
    static const char *const labels[] = {
        "immediate", "exponential+token_bucket", "exponential"};
    return hand_plan_of(labels, n_pol, seeds);
}

/* What a run saved by hand has: a success ratio, a recovery time (NaN:
 * it did not recover), duplicate writes, and a series whose every cell
 * is `cell`. */
typedef struct hand {
    double success, recovery;
    uint64_t duplicates;
    float cell;
    double p99_ms; /* of the successes; 0 unless set */
} hand;

static void hand_save(const fixture *f, const char *dir, int pol, uint32_t sd,
                      const hand *h)
{
    double success = h->success, recovery = h->recovery;
    float cell = h->cell;
    compare_run r;
    memset(&r, 0, sizeof r);
    r.policy = (uint32_t)pol;
    r.seed = f->plan.seed0 + sd;
    r.sum.offered = 1000;
    r.sum.attempts = 1500;
    r.sum.amplification = 1.5;
    r.sum.successes = (uint64_t)llround(success * 1000);
    r.sum.failures = 1000 - r.sum.successes;
    r.sum.success_ratio = (double)r.sum.successes / 1000.0;
    r.sum.recovery_judged = true;
    r.sum.recovered = !isnan(recovery);
    r.sum.recovery_time_s = isnan(recovery) ? 0 : recovery;
    r.sum.metastable = isnan(recovery);
    r.sum.duplicates = h->duplicates;
    r.sum.latency_p99_ms = h->p99_ms;
    for (int i = 0; i < COMPARE_CDF_POINTS; i++)
        r.latency_ms[i] = NAN;
    compare_series *s = calloc(1, sizeof *s);
    s->n_rows = 3;
    s->row_s = 1;
    for (uint32_t i = 0; i < s->n_rows; i++)
        for (int c = 0; c < CC_COUNT; c++)
            s->v[i][c] = cell + (float)i;
    char path[1200];
    runfile_path(path, sizeof path, dir, 0, (uint32_t)pol, r.seed);
    runfile_buf buf = {0};
    sb_err e;
    ck_assert_msg(runfile_write(&buf, path, f->plan.fingerprint,
                                f->plan.policies[pol].label, &r, s, &e) == 0,
                  "%s", e.msg);
    runfile_buf_free(&buf);
    free(s);
}

static void hand_run(const fixture *f, const char *dir, int pol, uint32_t sd,
                     double success, double recovery, float cell)
{
    hand h = {success, recovery, 0, cell, 0};
    hand_save(f, dir, pol, sd, &h);
}

static void make_dir(const char *dir)
{
    char runs[1100];
    snprintf(runs, sizeof runs, "%s/runs", dir);
    mkdir(dir, 0777);
    mkdir(runs, 0777);
}

/* The brief's example, worked by hand.  Success ratios over 5 seeds:
 * exponential+token_bucket 99.0 99.2 99.4 99.1 99.3 (mean 99.2),
 * immediate 70.0 72.0 71.0 73.0 71.0 (mean 71.4); the differences 29.0
 * 27.2 28.4 26.1 28.3 have mean 27.8 and sd 1.13, so t = 27.8 / (1.13 /
 * sqrt 5) = 55 on 4 degrees of freedom: p < 0.001. */
START_TEST(verdict_reads_like_a_person_wrote_it)
{
    static const double tb[5] = {0.990, 0.992, 0.994, 0.991, 0.993};
    static const double im[5] = {0.700, 0.720, 0.710, 0.730, 0.710};
    fixture *f = hand_plan(2, 5);
    const char *dir = fresh_dir("cmp-verdict");
    make_dir(dir);
    for (uint32_t s = 0; s < 5; s++) {
        hand_run(f, dir, 0, s, im[s], 10.0 + s, 0);
        hand_run(f, dir, 1, s, tb[s], 10.0 + s, 0);
    }
    compare_result *res = load(&f->plan, dir);
    const compare_verdict *v = compare_verdict_of(res, 0, CM_SUCCESS_RATIO);
    ck_assert_int_eq(v->best, 1);
    ck_assert(v->significant);
    ck_assert_str_eq(v->text, "exponential+token_bucket: highest success "
                              "ratio (99.2 % vs 71.4 % for immediate, the "
                              "next best), significant (paired t, p < "
                              "0.001)");
    /* Same amplification on every seed: a tie, nobody best. */
    v = compare_verdict_of(res, 0, CM_AMPLIFICATION);
    ck_assert_int_eq(v->best, -1);
    ck_assert_ptr_nonnull(strstr(v->text, "no difference"));
    /* Recovery 10..14 s for both: the same, a tie too. */
    ck_assert_int_eq(compare_verdict_of(res, 0, CM_RECOVERY_S)->best, -1);
    compare_result_free(res);
    free(f);
}
END_TEST

/* Recovery counts non-recoveries first.  Over 5 seeds, immediate never
 * recovers, exponential+token_bucket always does, exponential in 4 of 5
 * seeds.  Fewer failures rank first: token_bucket, exponential,
 * immediate.  Each pair differs in its count, so each is an exact
 * McNemar test over the seeds where one of the two failed: token_bucket
 * - immediate 5 such seeds, 2 / 2^5 = 0.0625 (the smallest p 5 pairs can
 * give); exponential - immediate 4, 2 / 2^4 = 0.125; token_bucket -
 * exponential 1, p = 1.  Holm: 0.1875, 0.25, 1.  However clear it
 * looks, five seeds cannot tell them apart, and the verdict says so,
 * with each share and its Wilson interval (1 of 5: [0.036, 0.624]):
 * not "not significantly worse", which reads as if the test had room to
 * find a difference -- no pair over 5 seeds can reach p < 0.05, not even
 * 0 of 5 against 5 of 5 (tier-amplification's breaker).
 */
START_TEST(recovery_counts_failures_first)
{
    fixture *f = hand_plan(3, 5);
    const char *dir = fresh_dir("cmp-recovery");
    make_dir(dir);
    for (uint32_t s = 0; s < 5; s++) {
        hand_run(f, dir, 0, s, 0.5, NAN, 0);
        hand_run(f, dir, 1, s, 0.9, 30.0 + s, 0);
        hand_run(f, dir, 2, s, 0.9, s == 2 ? NAN : 5.0 + s, 0);
    }
    compare_result *res = load(&f->plan, dir);
    const compare_verdict *v = compare_verdict_of(res, 0, CM_RECOVERY_S);
    ck_assert_int_eq(v->best, 1);
    ck_assert_int_eq(v->order[1], 2);
    ck_assert_int_eq(v->order[2], 0);
    ck_assert(!v->significant);
    ck_assert_double_eq_tol(v->p, 0.1875, 1e-12);
    ck_assert_str_eq(v->text,
                     "exponential+token_bucket has the fewest seeds that "
                     "did not recover (0 of 5 seeds), but exponential (1 of "
                     "5 seeds) and immediate (5 of 5 seeds) are not told "
                     "apart from it over these 5 seeds (exact McNemar "
                     "test, p \xe2\x89\xa5 0.19 after Holm's adjustment; "
                     "it cannot reach p < 0.05 over fewer than 6 seeds): "
                     "more seeds may tell them apart; did not "
                     "recover: exponential+token_bucket on 0 of 5 seeds (95 "
                     "% CI 0\xe2\x80\x93"
                     "43 %), exponential on 1 of 5 "
                     "seeds (95 % CI 4\xe2\x80\x93"
                     "62 %), immediate on "
                     "5 of 5 seeds (95 % CI 57\xe2\x80\x93"
                     "100 %)");
    const compare_stat *st = compare_stat_at(res, 0, 0, CM_RECOVERY_S);
    ck_assert_uint_eq(st->missing, 5);
    ck_assert_uint_eq(st->ci.n, 0);
    st = compare_stat_at(res, 0, 2, CM_RECOVERY_S);
    ck_assert_uint_eq(st->missing, 1);
    /* (5 + 6 + 8 + 9) / 4 = 7 s over the seeds that recovered. */
    ck_assert_double_eq(st->ci.mean, 7.0);
    compare_result_free(res);
    free(f);
}
END_TEST

/* ---- Verdicts that say the truth (issue 18) -------------------------------- */

/* Ties are grouped and said, never a duel of the best with its twin.
 * Success ratios (%) over 5 seeds: plan 80 82 81 83 80 (mean 81.2),
 * exponential 95 96 94 97 95 (95.4) and immediate the same on every
 * seed, none 50 52 49 51 50 (50.4).  exponential - plan: 15 14 13 14 15,
 * mean 14.2, sd 0.837, t = 14.2 / (0.837 / sqrt 5) = 37.9 on 4 degrees
 * of freedom, p = 3e-6; the other differences are as steady, so every
 * tested pair's p is far below 0.001 / 5 and stays below 0.001 after
 * Holm over the 5 tested pairs (the twins are not a test: identical on
 * every seed).  nightly-pipeline's critical alerts had this shape and
 * were called "not significant (p = 1)". */
START_TEST(ties_are_grouped_and_said)
{
    static const char *const labels[] = {"plan", "exponential", "immediate",
                                         "none"};
    static const double v[4][5] = {{.80, .82, .81, .83, .80},
                                   {.95, .96, .94, .97, .95},
                                   {.95, .96, .94, .97, .95},
                                   {.50, .52, .49, .51, .50}};
    fixture *f = hand_plan_of(labels, 4, 5);
    const char *dir = fresh_dir("cmp-ties");
    make_dir(dir);
    for (int pol = 0; pol < 4; pol++)
        for (uint32_t s = 0; s < 5; s++)
            hand_run(f, dir, pol, s, v[pol][s], 10.0, 0);
    compare_result *res = load(&f->plan, dir);
    const compare_verdict *v0 = compare_verdict_of(res, 0, CM_SUCCESS_RATIO);
    ck_assert_str_eq(v0->text, "exponential and immediate tie for the "
                               "highest success ratio (95.4 %, identical on "
                               "every seed); both significantly better than "
                               "plan (81.2 %) and none (50.4 %) (paired t, "
                               "p < 0.001 after Holm's adjustment)");
    ck_assert_int_eq(v0->best, 1);
    ck_assert(!v0->significant);
    ck_assert_int_eq(v0->n_leaders, 2);
    ck_assert_uint_eq(v0->leaders, (1u << 1) | (1u << 2));
    /* Significance groups: the twins a, plan b, none c. */
    ck_assert_str_eq(v0->letters[1], "a");
    ck_assert_str_eq(v0->letters[2], "a");
    ck_assert_str_eq(v0->letters[0], "b");
    ck_assert_str_eq(v0->letters[3], "c");
    compare_result_free(res);
    free(f);
}
END_TEST

/* The policy after "vs" is the second best by the metric, not the one
 * with the largest p.  Success ratios (%): exponential 90 91 92 90 91
 * (90.8), immediate 5 points below on every seed (85.8: the difference
 * has sd 0, p_t = 0), exponential+token_bucket 50 49 54 49 52 (50.8:
 * differences 40 42 38 41 39, t = 40 / (1.58 / sqrt 5) = 56.6, p = 6e-7,
 * the largest p of the two, and 3 x 6e-7 < 0.001 after Holm).  The old
 * verdict named the largest p's policy: "vs 50.8 % for
 * exponential+token_bucket". */
START_TEST(runner_up_is_the_second_best)
{
    static const char *const labels[] = {"exponential", "immediate",
                                         "exponential+token_bucket"};
    static const double v[3][5] = {{.90, .91, .92, .90, .91},
                                   {.85, .86, .87, .85, .86},
                                   {.50, .49, .54, .49, .52}};
    fixture *f = hand_plan_of(labels, 3, 5);
    const char *dir = fresh_dir("cmp-runner-up");
    make_dir(dir);
    for (int pol = 0; pol < 3; pol++)
        for (uint32_t s = 0; s < 5; s++)
            hand_run(f, dir, pol, s, v[pol][s], 10.0, 0);
    compare_result *res = load(&f->plan, dir);
    const compare_verdict *v0 = compare_verdict_of(res, 0, CM_SUCCESS_RATIO);
    ck_assert_str_eq(v0->text, "exponential: highest success ratio (90.8 % "
                               "vs 85.8 % for immediate, the next best), "
                               "significant against both others (paired t, "
                               "p < 0.001 after Holm's adjustment)");
    ck_assert(v0->significant);
    ck_assert_int_eq(v0->runner_up, 1);
    ck_assert_str_eq(v0->letters[0], "a");
    ck_assert_str_eq(v0->letters[1], "b");
    ck_assert_str_eq(v0->letters[2], "c");
    compare_result_free(res);
    free(f);
}
END_TEST

/* A significant difference is never printed as two equal numbers
 * ("99.9 % vs 99.9 %, significant").  Over 20 seeds immediate succeeds
 * on 99.9 % of its 1000 requests every time; exponential+token_bucket
 * on 99.9 % in 14 seeds and 99.8 % in 6: mean 99.87 %, which prints as
 * 99.9 % at three digits.  The differences are 0.1 six times and 0
 * fourteen: mean 0.03, sd sqrt(0.3 x 0.7 x 20/19) x 0.1 = 0.0470, t =
 * 0.03 / (0.0470 / sqrt 20) = 2.85 on 19 degrees of freedom, p = 0.010:
 * significant.  Two decimals tell them apart: 99.90 % vs 99.87 %.
 * Before, the verdict said "99.9 % vs 99.9 %". */
START_TEST(significant_means_print_apart)
{
    fixture *f = hand_plan(2, 20);
    const char *dir = fresh_dir("cmp-digits");
    make_dir(dir);
    for (uint32_t s = 0; s < 20; s++) {
        hand_run(f, dir, 0, s, 0.999, 10.0, 0);
        hand_run(f, dir, 1, s, s % 10 < 3 ? 0.998 : 0.999, 10.0, 0);
    }
    compare_result *res = load(&f->plan, dir);
    const compare_verdict *v = compare_verdict_of(res, 0, CM_SUCCESS_RATIO);
    ck_assert_int_eq(v->best, 0);
    ck_assert(v->significant);
    ck_assert_str_eq(v->text, "immediate: highest success ratio (99.90 % "
                              "vs 99.87 % for exponential+token_bucket, the "
                              "next best), significant (paired t, p = "
                              "0.01)");
    /* And so does the bottom line (it said "99.9 %, against 99.9 %"). */
    compare_bottom b;
    compare_bottom_line(res, 0, &b);
    ck_assert_int_eq(b.recommended, 0);
    ck_assert_msg(strstr(b.text, "success ratio 99.90 %, against 99.87 % "
                                 "for exponential+token_bucket") != NULL,
                  "%s", b.text);
    compare_result_free(res);
    free(f);
}
END_TEST

/* Recovery: the counts of seeds that did not recover first (exact
 * McNemar), then the times of those that did (paired), and the sentence
 * cites what decides.  tier-amplification's shape over 10 seeds:
 * immediate recovers in 1 0 0 0 0 0 0 0 0 9 s (mean 1.00), exponential
 * in 1 1 0 1 0 0 0 0 0 9 (1.20), circuit_breaker never.  immediate -
 * exponential: 0 -1 0 -1 0 0 0 0 0 0, mean -0.2, sd 0.4216, t = -1.5 on
 * 9 degrees of freedom, p = 0.168; each against circuit_breaker: 10
 * discordant seeds, p = 2 / 2^10 = 0.00195.  Holm over the three: 3 x
 * 0.00195 = 0.0059, then 0.168.  The old verdict: "immediate: fastest
 * recovery (1.00 s vs 1.20 s for exponential), not significant (p =
 * 0.17)", silent on the breaker that never recovered.  Wilson: 0 of 10
 * is [0, 0.2775], 10 of 10 [0.7225, 1]. */
START_TEST(recovery_counts_then_times)
{
    static const char *const labels[] = {"immediate", "exponential",
                                         "circuit_breaker"};
    static const double im[10] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 9};
    static const double ex[10] = {1, 1, 0, 1, 0, 0, 0, 0, 0, 9};
    fixture *f = hand_plan_of(labels, 3, 10);
    const char *dir = fresh_dir("cmp-recovery-ties");
    make_dir(dir);
    for (uint32_t s = 0; s < 10; s++) {
        hand_run(f, dir, 0, s, 0.8, im[s], 0);
        hand_run(f, dir, 1, s, 0.8, ex[s], 0);
        hand_run(f, dir, 2, s, 0.8, NAN, 0);
    }
    compare_result *res = load(&f->plan, dir);
    const compare_verdict *v = compare_verdict_of(res, 0, CM_RECOVERY_S);
    ck_assert_str_eq(v->text,
                     "immediate has the fastest recovery (1.00 s), but "
                     "exponential (1.20 s) is not significantly worse "
                     "(paired t, p = 0.17 after Holm's adjustment); both "
                     "significantly better than circuit_breaker (exact "
                     "McNemar test, p = 0.0059 after Holm's adjustment); "
                     "did not recover: immediate and exponential on 0 of "
                     "10 seeds (95 % CI 0\xe2\x80\x93"
                     "28 %), "
                     "circuit_breaker on 10 of 10 seeds (95 % CI "
                     "72\xe2\x80\x93"
                     "100 %)");
    ck_assert_int_eq(v->best, 0);
    ck_assert_int_eq(v->n_leaders, 2);
    compare_result_free(res);
    free(f);
}
END_TEST

/* Sparse counts get an exact test.  Duplicates over 20 seeds: none 0 on
 * every seed, exponential+circuit_breaker 1 on 4 seeds (mean 0.200).  A
 * paired t test calls that significant: d = -1 on 4 of 20, sd 0.4104, t
 * = 0.2 / (0.4104 / sqrt 20) = 2.18 on 19 degrees of freedom, p = 0.042;
 * but a mean of four 1s among sixteen 0s is far from normal.  The exact
 * sign test over the 4 seeds that differ: 2 x (1/2)^4 = 0.125, printed
 * to two digits as 0.12 (retry-storm's duplicates had this shape). */
START_TEST(sparse_counts_use_an_exact_test)
{
    static const char *const labels[] = {"none", "exponential+circuit_breaker"};
    fixture *f = hand_plan_of(labels, 2, 20);
    const char *dir = fresh_dir("cmp-sparse");
    make_dir(dir);
    for (uint32_t s = 0; s < 20; s++) {
        hand h = {0.9, 10.0, 0, 0, 0};
        hand_save(f, dir, 0, s, &h);
        h.duplicates = s == 3 || s == 8 || s == 12 || s == 17;
        hand_save(f, dir, 1, s, &h);
    }
    compare_result *res = load(&f->plan, dir);
    const compare_verdict *v = compare_verdict_of(res, 0, CM_DUPLICATES);
    ck_assert_str_eq(v->text, "none has the fewest duplicate writes (0), "
                              "but exponential+circuit_breaker (0.200) is "
                              "not significantly worse (exact sign test, p "
                              "= 0.12): the differences are within the "
                              "noise of 20 seeds");
    ck_assert(!v->significant);
    ck_assert_double_eq_tol(v->p, 0.125, 1e-12);
    compare_result_free(res);
    free(f);
}
END_TEST

/* Intervals respect their domain.  Success ratios 99.9, 100, 99.0 %:
 * mean 99.633, sd 0.5508, t(0.975, 2) = 4.3027, half-width 4.3027 x
 * 0.5508 / sqrt 3 = 1.368: t's interval [98.27, 101.00] passes 100 %,
 * and is cut there.  Recovery times 0, 0, 3 s: mean 1, sd 1.732,
 * half-width 4.3027: [-3.30, 5.30], cut at 0.  The mean and t's
 * half-width are kept. */
START_TEST(intervals_stay_in_their_domain)
{
    fixture *f = hand_plan(1, 3);
    const char *dir = fresh_dir("cmp-domain");
    make_dir(dir);
    static const double ok[3] = {0.999, 1.0, 0.990}, rec[3] = {0, 0, 3};
    for (uint32_t s = 0; s < 3; s++)
        hand_run(f, dir, 0, s, ok[s], rec[s], 0);
    compare_result *res = load(&f->plan, dir);
    const compare_stat *st = compare_stat_at(res, 0, 0, CM_SUCCESS_RATIO);
    ck_assert_double_eq_tol(st->ci.mean, 99.633333, 1e-5);
    ck_assert_double_eq_tol(st->ci.half_width, 1.368, 1e-3);
    ck_assert_double_eq_tol(st->ci.lo, 98.265, 1e-3);
    ck_assert_double_eq(st->ci.hi, 100.0);
    st = compare_stat_at(res, 0, 0, CM_RECOVERY_S);
    ck_assert_double_eq_tol(st->ci.mean, 1.0, 1e-12);
    ck_assert_double_eq(st->ci.lo, 0.0);
    ck_assert_double_eq_tol(st->ci.hi, 5.3027, 1e-4);
    compare_result_free(res);
    free(f);
}
END_TEST

/* The description is of the scenario as written: "10 s outage" on the
 * first page of a comparison that sweeps fault.outage.duration from 2 s
 * to 10 s said of every point what is true of one.  A sweep of a policy
 * parameter changes nothing the description says: it stays as written. */
START_TEST(a_swept_key_marks_the_description)
{
    static compare_plan p;
    char buf[1024];
    snprintf(p.description, sizeof p.description, "10 s outage");
    compare_description_text(&p, buf, sizeof buf);
    ck_assert_str_eq(buf, "10 s outage");
    p.n_axes = 1;
    snprintf(p.axes[0].key, sizeof p.axes[0].key, "fault.outage.duration");
    compare_description_text(&p, buf, sizeof buf);
    ck_assert_str_eq(buf, "The scenario as written: 10 s outage. This "
                          "comparison sweeps fault.outage.duration.");
    p.n_axes = 2;
    snprintf(p.axes[1].key, sizeof p.axes[1].key, "load");
    snprintf(p.description, sizeof p.description, "A storm.");
    compare_description_text(&p, buf, sizeof buf);
    ck_assert_str_eq(buf, "The scenario as written: A storm. This "
                          "comparison sweeps fault.outage.duration and the "
                          "offered load.");
    p.n_axes = 1;
    p.axes[0].policy_param = true;
    compare_description_text(&p, buf, sizeof buf);
    ck_assert_str_eq(buf, "A storm.");
}
END_TEST

/* An interval's two ends print at one precision, and a sensible one.
 * Wasted work over 3 seeds of 0, 0 and 0.0957 %: mean 0.0319, sd
 * 0.0553, half width t(0.975, 2) 4.303 x 0.0553 / sqrt 3 = 0.137, so
 * [-0.105, 0.169], cut at 0.  Three digits of the mean are 4 decimals,
 * and the ends printed "[0.0000, 0.1691]" at them: four decimals of a
 * zero that the interval cannot tell from 0.1.  Two digits of the half
 * width are 2 decimals (0.137 -> 0.14): "[0.00, 0.17]".  An interval
 * clear of zero keeps the mean's decimals (99.2 [98.9, 99.5]), as every
 * table did. */
START_TEST(interval_ends_share_a_precision)
{
    compare_stat st = {{3, 0.0319, 0.0553, 0.1373, 0.0, 0.1691}, 0.0, 0};
    compare_numbers n;
    compare_stat_numbers(&st, &n);
    ck_assert_str_eq(n.mean, "0.0319");
    ck_assert_str_eq(n.lo, "0.00");
    ck_assert_str_eq(n.hi, "0.17");
    /* The default's decimals asked for by number: the same ends. */
    compare_stat_numbers_at(&st, 4, &n);
    ck_assert_str_eq(n.lo, "0.00");
    st = (compare_stat){{3, 99.2, 0.12, 0.3, 98.9, 99.5}, 99.2, 0};
    compare_stat_numbers(&st, &n);
    ck_assert_str_eq(n.mean, "99.2");
    ck_assert_str_eq(n.lo, "98.9");
    ck_assert_str_eq(n.hi, "99.5");
}
END_TEST

/* A run where nothing succeeded has no latency: runs.csv leaves its p99
 * (and the other latency columns) empty, not 0 -- a p99 of 0.000 ms
 * reads as the fastest of all.  Its attempts' latency stays, when some
 * ended. */
START_TEST(no_success_no_latency_in_csv)
{
    fixture *f = hand_plan(1, 1);
    const char *dir = fresh_dir("cmp-nolatency");
    make_dir(dir);
    hand_run(f, dir, 0, 0, 0.0, NAN, 0);
    compare_result *res = load(&f->plan, dir);
    ck_assert_uint_eq(res->runs[0].sum.successes, 0);
    write_tables(res, dir);
    char *csv = read_in(dir, "runs.csv");
    const char *row = strchr(csv, '\n') + 1;
    static const char *const empty[] = {"p99_ms",          "latency_mean_ms",
                                        "latency_p50_ms",  "latency_p99_ms",
                                        "latency_p999_ms", "attempt_p99_ms"};
    for (size_t i = 0; i < sizeof empty / sizeof *empty; i++) {
        int col = csv_column(csv, empty[i]);
        ck_assert_int_ge(col, 0);
        ck_assert_msg(isnan(csv_field(row, col)), "%s is not empty", empty[i]);
    }
    /* Counts stay, zero or not. */
    ck_assert_double_eq(csv_field(row, csv_column(csv, "successes")), 0);
    free(csv);
    compare_result_free(res);
    free(f);
}
END_TEST

/* The bottom line counts the verdicts a reader can check.  Over 10
 * seeds: none succeeds 96 or 97 % (mean 96.5), recovers at once (0 s),
 * writes no duplicate; exponential+circuit_breaker 10 points lower on
 * every seed (86.5), recovers in 56 s (57 on two seeds: 56.2), writes one
 * duplicate on one seed (0.100); immediate succeeds 20 or 21 % (20.5),
 * never recovers, writes 2900 + 2 x seed duplicates (2909).  Success
 * and recovery separate the policies with none alone (success: a
 * difference of 10 on every seed, p_t = 0; recovery: times against the
 * breaker, p ~ 1e-12, and 10 seeds that did not recover against
 * immediate, McNemar 2 / 2^10, Holm at most 0.0039); duplicates with
 * none and the breaker together (sparse: a sign test on 1 seed, p = 1)
 * ahead of immediate.  Every other figure is the same everywhere: the
 * hand runs share amplification 1.5, peak 0, p99 0, no waste.  So none
 * leads all three, alone on two, and ties on duplicates. */
START_TEST(bottom_line_names_the_policy_and_why)
{
    static const char *const labels[] = {"none", "exponential+circuit_breaker",
                                         "immediate"};
    fixture *f = hand_plan_of(labels, 3, 10);
    const char *dir = fresh_dir("cmp-bottom");
    make_dir(dir);
    for (uint32_t s = 0; s < 10; s++) {
        double up = (double)(s % 2) / 100.0;
        hand h = {0.96 + up, 0.0, 0, 0, 0};
        hand_save(f, dir, 0, s, &h);
        h = (hand){0.86 + up, s == 3 || s == 7 ? 57.0 : 56.0, s == 2, 0, 0};
        hand_save(f, dir, 1, s, &h);
        h = (hand){0.20 + up, NAN, 2900 + 2 * s, 0, 0};
        hand_save(f, dir, 2, s, &h);
    }
    compare_result *res = load(&f->plan, dir);
    compare_bottom b;
    compare_bottom_line(res, 0, &b);
    ck_assert_int_eq(b.recommended, 0);
    ck_assert_int_eq(b.n_figures, 3);
    ck_assert_int_eq(b.figures[0], CM_SUCCESS_RATIO);
    ck_assert_int_eq(b.figures[1], CM_RECOVERY_S);
    ck_assert_int_eq(b.figures[2], CM_DUPLICATES);
    ck_assert_str_eq(
        b.text,
        "Recommended: none. It is the best, or not significantly worse "
        "than the best, on all 3 metrics that separate the policies "
        "(alone on 2): success ratio 96.5 %, against 86.5 % for "
        "exponential+circuit_breaker, the best of the rest; recovery time 0 "
        "s on all 10 seeds, against 56.2 s on all 10 seeds for "
        "exponential+circuit_breaker, the best of the rest; duplicate "
        "writes 0, tied with exponential+circuit_breaker (0.100), against "
        "2909 for immediate, the best of the rest. Caveats: it ties with "
        "another policy on duplicate writes (with "
        "exponential+circuit_breaker); every policy gives the same value "
        "on every seed on p99 latency, amplification, peak amplification, "
        "wasted work, quarantined.");
    compare_result_free(res);
    free(f);
}
END_TEST

/* How deep the brackets of a sentence go: a figure inside a figure's
 * brackets ("tied with immediate (never recovered (3 of 3 seeds))")
 * reads as a typo. */
static int bracket_depth(const char *s)
{
    int depth = 0, most = 0;
    for (; *s; s++) {
        depth += *s == '(';
        depth -= *s == ')';
        most = depth > most ? depth : most;
    }
    return most;
}

/* "Tied" only when the test could have told the two apart.  Over 3
 * seeds none recovers at once, exponential+circuit_breaker in 56, 57, 56
 * s (56.3), immediate never.  none against immediate: 3 seeds where one
 * of them recovered, all one way: exact McNemar 2 / 2^3 = 0.25, and no
 * outcome over 3 seeds can do better -- the least p over n seeds is 2 /
 * 2^n, below 0.05 from n = 6 (2 / 64 = 0.031; 2 / 32 = 0.0625).  Holm
 * over the three pairs: none - breaker, differences 56 57 56, sd 0.577,
 * t = 56.33 / (0.577 / sqrt 3) = 169 on 2 degrees of freedom, p = 1 -
 * 169 / sqrt(169^2 + 2) = 3.5e-5, x 3 = 1.1e-4; then 2 x 0.25 = 0.5
 * for both McNemar pairs.  So immediate stays among the leaders (not
 * significantly worse than none), but 0 of 3 against 3 of 3 is no
 * evidence of a tie: the verdict and the bottom line say "not told
 * apart over these 3 seeds", never "tied", and nest no brackets (they
 * said "tied with immediate (never recovered (3 of 3 seeds))").  The
 * policy only one leader beats is named with the one it does not
 * ("worse than none, but not than immediate": immediate's McNemar p
 * against it is 0.5), not "worse than none only", which left the
 * reader to work out whom it was not worse than.  The
 * other case, a tie the test could have broken, is
 * bottom_line_names_the_policy_and_why's duplicates: 0 against 0.100
 * over 10 seeds, where a sign test can reach 2 / 2^10. */
START_TEST(few_seeds_tell_nothing_apart)
{
    static const char *const labels[] = {"none", "exponential+circuit_breaker",
                                         "immediate"};
    fixture *f = hand_plan_of(labels, 3, 3);
    const char *dir = fresh_dir("cmp-untold");
    make_dir(dir);
    for (uint32_t s = 0; s < 3; s++) {
        double up = (double)(s % 2) / 100.0;
        hand h = {0.96 + up, 0.0, 0, 0, 0};
        hand_save(f, dir, 0, s, &h);
        h = (hand){0.86 + up, s == 1 ? 57.0 : 56.0, 0, 0, 0};
        hand_save(f, dir, 1, s, &h);
        h = (hand){0.20 + up, NAN, 0, 0, 0};
        hand_save(f, dir, 2, s, &h);
    }
    ck_assert_uint_eq(compare_exact_seeds(), 6);
    compare_result *res = load(&f->plan, dir);
    const compare_verdict *v = compare_verdict_of(res, 0, CM_RECOVERY_S);
    ck_assert_int_eq(v->best, 0);
    ck_assert_int_eq(v->n_leaders, 2);
    ck_assert_uint_eq(v->untold, 1u << 2);
    ck_assert_str_eq(v->text,
                     "none has the fewest seeds that did not recover (0 of "
                     "3 seeds), but immediate (3 of 3 seeds) is not told "
                     "apart from it over these 3 seeds (exact McNemar "
                     "test, p = 0.5 after Holm's adjustment; it cannot "
                     "reach p < 0.05 over fewer than 6 seeds); "
                     "exponential+circuit_breaker (56.3 s) is "
                     "significantly worse than none (paired t, p < "
                     "0.001 after Holm's adjustment), but not than "
                     "immediate; did not recover: "
                     "none and exponential+circuit_breaker on 0 of 3 "
                     "seeds (95 % CI 0\xe2\x80\x93"
                     "56 %), immediate on 3 of 3 seeds (95 % CI "
                     "44\xe2\x80\x93"
                     "100 %)");
    compare_bottom b;
    compare_bottom_line(res, 0, &b);
    ck_assert_int_eq(b.recommended, 0);
    ck_assert_msg(strstr(b.text, "tied") == NULL, "%s", b.text);
    ck_assert_msg(strstr(b.text, "ties") == NULL, "%s", b.text);
    ck_assert_msg(
        strstr(b.text,
               "recovery time 0 s on all 3 seeds, against 56.3 s on all 3 "
               "seeds for exponential+circuit_breaker, the best of the "
               "rest, and, over these 3 seeds, too few for an exact test "
               "to reach p < 0.05 (it needs 6), not told apart from "
               "immediate (never recovered on any of the 3 seeds).") != NULL,
        "%s", b.text);
    ck_assert_msg(strstr(b.text, "Caveats: these 3 seeds, too few for an "
                                 "exact test (it needs 6), do not tell it "
                                 "apart from another policy on recovery "
                                 "time (with immediate);") != NULL,
                  "%s", b.text);
    ck_assert_int_le(bracket_depth(b.text), 1);
    ck_assert_int_le(bracket_depth(v->text), 1);
    compare_result_free(res);
    free(f);
}
END_TEST

/* tier-amplification's shape over 5 seeds: none and immediate recover
 * in 0 0 0 0 1 s (0.200), exponential in 0 1 0 1 1 (0.600), the breaker
 * never.  The breaker's pairs are decided by counts (exact McNemar, 2 /
 * 2^5 = 0.0625, Holm x 5 = 0.31: not told apart over 5 seeds); the
 * others' by times (none - exponential: differences 0 -1 0 -1 0, mean
 * -0.4, sd 0.548, t = 1.63 on 4 degrees of freedom, p = 0.18, Holm x 2
 * = 0.36).  Each leader shows the figure its own test compared: the
 * time for those decided by times (it said "exponential (0 of 5
 * seeds) ... not significantly worse (paired t ...)", a count beside a
 * test of times).  immediate is none on every seed: a tie, no test, so
 * said as one; exponential's is the one pair tested, so its p is "=
 * 0.36" (it said "immediate (..., identical on every seed) and
 * exponential (0.600 s) are not significantly worse (paired t, p >=
 * 0.36 ...)": a smallest p over two tests, of which one never ran). */
START_TEST(each_leader_shows_what_its_test_compared)
{
    static const char *const labels[] = {"none", "immediate", "exponential",
                                         "exponential+circuit_breaker"};
    static const double quick[5] = {0, 0, 0, 0, 1}, slow[5] = {0, 1, 0, 1, 1};
    fixture *f = hand_plan_of(labels, 4, 5);
    const char *dir = fresh_dir("cmp-mixed");
    make_dir(dir);
    for (uint32_t s = 0; s < 5; s++) {
        hand_run(f, dir, 0, s, 0.9, quick[s], 0);
        hand_run(f, dir, 1, s, 0.9, quick[s], 0);
        hand_run(f, dir, 2, s, 0.9, slow[s], 0);
        hand_run(f, dir, 3, s, 0.9, NAN, 0);
    }
    compare_result *res = load(&f->plan, dir);
    const compare_verdict *v = compare_verdict_of(res, 0, CM_RECOVERY_S);
    ck_assert_msg(strstr(v->text, "none has the fewest seeds that did not "
                                  "recover (0 of 5 seeds) and, of the "
                                  "policies that failed as often, the "
                                  "fastest recovery (0.200 s), but "
                                  "immediate ties with it (identical on "
                                  "every seed) and exponential (0.600 s) "
                                  "is not significantly worse (paired t, "
                                  "p = 0.36 after Holm's adjustment); "
                                  "exponential+circuit_breaker (5 of 5 "
                                  "seeds) is not told apart from it over "
                                  "these 5 seeds (exact McNemar test, p = "
                                  "0.31 after Holm's adjustment;") != NULL,
                  "%s", v->text);
    compare_result_free(res);
    free(f);
}
END_TEST

/* One seed is "1 seed", never "1 seeds" or "these 1 seeds": three
 * policies on one seed (success 90, 80, 70 %; a recovers in 5 s, b and
 * c never), where nothing can be tested (a paired test needs 2 seeds)
 * and every recovery share is "too few seeds to tell" (0 of 1: Wilson's
 * top 3.84 / 4.84 = 79 %). */
/* Too few seeds to tell, said once.  Four policies over 3 seeds: a
 * does not recover on 1 (Wilson 95 %: [0.0615, 0.7924], it holds 1/2
 * and the seeds split: bistable), b and c recover on all 3 ([0, 3.8415
 * / 6.8415 = 0.5615]), d on none ([0.4385, 1]).  b, c and d all agreed
 * but 3 seeds cannot call them (0 of n is called stable from n = 4:
 * 3.8415 / 7.8415 = 0.4899).  The bottom line names a alone and says
 * the rest once, "the other 3 policies", with the two counts' intervals
 * and the 4 seeds it takes (it listed each policy with its interval:
 * five lines for 5 policies).  summary.json says "bistable" for a only
 * and "too few seeds" with "seeds_to_tell": 4 for b, c and d (it said
 * "bistable" for all four, which a script read as seeds that split). */
START_TEST(too_few_seeds_are_said_once_and_not_bistable)
{
    static const char *const labels[] = {"a", "b", "c", "d"};
    fixture *f = hand_plan_of(labels, 4, 3);
    const char *dir = fresh_dir("cmp-too-few");
    make_dir(dir);
    for (uint32_t s = 0; s < 3; s++) {
        hand_run(f, dir, 0, s, 0.90, s == 1 ? NAN : 10.0 + s, 0);
        hand_run(f, dir, 1, s, 0.95, 5.0 + s, 0);
        hand_run(f, dir, 2, s, 0.94, 6.0 + s, 0);
        hand_run(f, dir, 3, s, 0.50, NAN, 0);
    }
    compare_result *res = load(&f->plan, dir);
    compare_bottom b;
    compare_bottom_line(res, 0, &b);
    ck_assert_msg(strstr(b.text, " bistable, its seeds split on whether it "
                                 "recovers (the 95 % interval of the share "
                                 "that did not recover holds \xc2\xbd): a "
                                 "(1 of 3 seeds did not recover, 95 % CI "
                                 "6\xe2\x80\x93"
                                 "79 %); for the other 3 policies, 3 seeds "
                                 "are too few to call recovery stable or "
                                 "metastable, though every seed agreed (the "
                                 "95 % interval of the share that did not "
                                 "recover holds \xc2\xbd until 4 seeds "
                                 "agree; 0 of 3: 0\xe2\x80\x93"
                                 "56 %, 3 of 3: 44\xe2\x80\x93"
                                 "100 %)") != NULL,
                  "%s", b.text);
    ck_assert_msg(strstr(b.text, "b (0 of 3") == NULL, "%s", b.text);
    write_tables(res, dir);
    char *json = read_in(dir, "summary.json");
    const char *at = json;
    static const char *const calls[] = {"bistable", "too few seeds",
                                        "too few seeds", "too few seeds"};
    for (int i = 0; i < 4; i++) {
        char key[64];
        snprintf(key, sizeof key, "\"stability\": \"%s\"", calls[i]);
        at = strstr(at, "\"did_not_recover\"");
        ck_assert_msg(at != NULL, "%s", json);
        const char *end = strchr(at, '}');
        const char *hit = strstr(at, key);
        ck_assert_msg(hit != NULL && hit < end, "policy %s: %.200s", labels[i],
                      at);
        const char *to_tell = strstr(at, "\"seeds_to_tell\": 4");
        ck_assert_msg((to_tell != NULL && to_tell < end) == (i > 0),
                      "policy %s: %.200s", labels[i], at);
        at = end;
    }
    free(json);
    compare_result_free(res);
    free(f);
}
END_TEST

/* Every compared metric has its verdict phrase in compare.h's table,
 * and the phrase points the way the metric is better: "highest" or
 * "most" for +1, "lowest", "fewest", "least", "fastest" or "shortest"
 * for -1 (a metric added without one printed "(null)"). */
START_TEST(every_metric_has_its_verdict_phrase)
{
    static const char *const up[] = {"highest ", "most "};
    static const char *const down[] = {"lowest ", "fewest ", "least ",
                                       "fastest ", "shortest "};
    for (int m = 0; m < CM_COUNT; m++) {
        const compare_metric_info *i = &compare_metrics[m];
        ck_assert_msg(i->phrase != NULL, "%s has no phrase", i->key);
        const char *const *w = i->better > 0 ? up : down;
        int n = i->better > 0 ? 2 : 5, hit = 0;
        for (int k = 0; k < n; k++)
            hit |= strncmp(i->phrase, w[k], strlen(w[k])) == 0;
        ck_assert_msg(hit, "%s: '%s' for better = %d", i->key, i->phrase,
                      i->better);
    }
}
END_TEST

START_TEST(one_seed_is_said_in_the_singular)
{
    static const char *const labels[] = {"a", "b", "c"};
    fixture *f = hand_plan_of(labels, 3, 1);
    const char *dir = fresh_dir("cmp-one-seed");
    make_dir(dir);
    hand_run(f, dir, 0, 0, 0.9, 5.0, 0);
    hand_run(f, dir, 1, 0, 0.8, NAN, 0);
    hand_run(f, dir, 2, 0, 0.7, NAN, 0);
    compare_result *res = load(&f->plan, dir);
    const compare_verdict *v = compare_verdict_of(res, 0, CM_SUCCESS_RATIO);
    ck_assert_msg(strstr(v->text, "not told apart from it over this 1 seed "
                                  "(not testable") != NULL,
                  "%s", v->text);
    v = compare_verdict_of(res, 0, CM_RECOVERY_S);
    ck_assert_msg(strstr(v->text, "(0 of 1 seed)") != NULL, "%s", v->text);
    compare_bottom b;
    compare_bottom_line(res, 0, &b);
    ck_assert_msg(strstr(b.text, "over this 1 seed: nothing to recommend") !=
                      NULL,
                  "%s", b.text);
    /* Wilson's 95 % interval of 0 of 1 is [0, 3.84 / 4.84 = 79 %], of 1
     * of 1 [21 %, 1]. */
    ck_assert_msg(strstr(b.text, "for all 3 policies, 1 seed is too few to "
                                 "call recovery stable or metastable (the "
                                 "95 % interval of the share that did not "
                                 "recover holds \xc2\xbd until 4 seeds "
                                 "agree; 0 of 1: 0\xe2\x80\x93"
                                 "79 %, 1 of 1: 21\xe2\x80\x93"
                                 "100 %)") != NULL,
                  "%s", b.text);
    write_tables(res, dir);
    char *md = read_in(dir, "summary.md");
    ck_assert_msg(strstr(md, "each on the same 1 seed (1 to 1") != NULL, "%s",
                  md);
    for (int m = 0; m < CM_COUNT; m++)
        ck_assert_msg(strstr(compare_verdict_of(res, 0, m)->text, "1 seeds") ==
                          NULL,
                      "%s", compare_verdict_of(res, 0, m)->text);
    ck_assert_msg(strstr(b.text, "1 seeds") == NULL, "%s", b.text);
    ck_assert_msg(strstr(md, "1 seeds") == NULL, "%s", md);
    free(md);
    compare_result_free(res);
    free(f);
}
END_TEST

/* Durations print in a unit a reader reads.  p99 over 3 seeds: fast
 * 59 000, 60 000, 61 000 ms (mean 60 000, sd 1000, t(0.975, 2) x 1000 /
 * sqrt 3 = 2484: [57 516, 62 484]); slow 179 000 ms more on every seed
 * (240 000: [237 516, 242 484], "238" and "242" at no decimals).  At 10 s and past, seconds: "60.0 s vs 240 s", the table
 * "60.0 [57.5, 62.5]" under "p99 latency (s)" (it said "60000 ms
 * against 240000 ms").  summary.json and runs.csv keep milliseconds:
 * programs read them.  The unit is one per metric and point, from the
 * largest mean: 9999 ms stays ms, 10 000 ms is 10.0 s, 600 000 ms (10
 * min) 10.0 min; recovery of 599 s stays s. */
START_TEST(durations_print_in_readable_units)
{
    static const char *const labels[] = {"fast", "slow"};
    fixture *f = hand_plan_of(labels, 2, 3);
    const char *dir = fresh_dir("cmp-units");
    make_dir(dir);
    for (uint32_t s = 0; s < 3; s++) {
        hand h = {0.9, 5.0, 0, 0, 59000.0 + 1000.0 * s};
        hand_save(f, dir, 0, s, &h);
        h.p99_ms += 180000.0;
        hand_save(f, dir, 1, s, &h);
    }
    compare_result *res = load(&f->plan, dir);
    const compare_verdict *v = compare_verdict_of(res, 0, CM_P99_MS);
    ck_assert_str_eq(v->text, "fast: lowest p99 latency (60.0 s vs 240 s for "
                              "slow, the next best), significant (paired "
                              "t, p < 0.001)");
    char cell[200];
    compare_cell_text(res, 0, 0, CM_P99_MS, cell, sizeof cell);
    ck_assert_str_eq(cell, "60.0 [57.5, 62.5]");
    compare_bottom b;
    compare_bottom_line(res, 0, &b);
    ck_assert_msg(strstr(b.text, "p99 latency 60.0 s, against 240 s for "
                                 "slow") != NULL,
                  "%s", b.text);
    write_tables(res, dir);
    char *md = read_in(dir, "summary.md");
    ck_assert_msg(strstr(md, "| p99 latency (s) | 60.0 [57.5, 62.5] `a` | "
                             "240 [238, 242] `b` |") != NULL,
                  "%s", md);
    free(md);
    char *json = read_in(dir, "summary.json");
    ck_assert_msg(strstr(json, "\"mean\": 60000") != NULL, "%s", json);
    free(json);
    char *csv = read_in(dir, "runs.csv");
    const char *row = strchr(csv, '\n') + 1;
    ck_assert_double_eq(csv_field(row, csv_column(csv, "p99_ms")), 59000.0);
    free(csv);
    /* The thresholds, on the same result's stats: fast at 1 ms, slow
     * at each. */
    double div;
    ((compare_stat *)compare_stat_at(res, 0, 0, CM_P99_MS))->ci.mean = 1.0;
    ((compare_stat *)compare_stat_at(res, 0, 0, CM_RECOVERY_S))->ci.mean = 1.0;
    compare_stat *st = (compare_stat *)compare_stat_at(res, 0, 1, CM_P99_MS);
    static const struct {
        double ms;
        const char *unit;
        double div;
    } p99[] = {{9999.0, "ms", 1.0},
               {10000.0, "s", 1000.0},
               {599999.0, "s", 1000.0},
               {600000.0, "min", 60000.0}};
    for (size_t i = 0; i < sizeof p99 / sizeof *p99; i++) {
        st->ci.mean = p99[i].ms;
        ck_assert_str_eq(compare_shown_unit(res, 0, CM_P99_MS, &div),
                         p99[i].unit);
        ck_assert_double_eq(div, p99[i].div);
    }
    st = (compare_stat *)compare_stat_at(res, 0, 1, CM_RECOVERY_S);
    st->ci.mean = 599.0;
    ck_assert_str_eq(compare_shown_unit(res, 0, CM_RECOVERY_S, &div), "s");
    st->ci.mean = 600.0;
    ck_assert_str_eq(compare_shown_unit(res, 0, CM_RECOVERY_S, &div), "min");
    ck_assert_double_eq(div, 60.0);
    compare_result_free(res);
    free(f);
}
END_TEST

/* Metastability as a probability.  Over 5 seeds, immediate tips in 2
 * (Wilson 95 %: [0.1176, 0.7693], check_stats' hand calculation): the
 * interval holds 1/2, so bistable.  exponential+token_bucket never tips:
 * [0, 3.8415 / 8.8415 = 0.43448], below 1/2: stable.  exponential always
 * does: [0.56552, 1], above: metastable.  From counts alone, 0 of 3 is
 * [0, 3.8415 / 6.8415 = 0.5615]: three seeds cannot call a cell stable;
 * 0 of 0 is not judged.  0 of 3 and 3 of 3 are bistable by the interval
 * but said "too few seeds to tell" (summary.json: "too few seeds"): the
 * seeds agreed; 1 of 3 ([0.0615, 0.7924]) is bistable, the seeds split.
 * The seeds it takes: 0 of n is called stable from n = 4 (3.8415 /
 * 7.8415 = 0.4899 < 1/2; at n = 3, 0.5615); 1 of n from n = 8 (Wilson's
 * top 0.4709; at n = 7, 0.5131). */
START_TEST(tipping_is_a_share_with_its_interval)
{
    fixture *f = hand_plan(3, 5);
    const char *dir = fresh_dir("cmp-tipping");
    make_dir(dir);
    for (uint32_t s = 0; s < 5; s++) {
        hand_run(f, dir, 0, s, 0.5, s == 1 || s == 3 ? NAN : 20.0 + s, 0);
        hand_run(f, dir, 1, s, 0.9, 30.0 + s, 0);
        hand_run(f, dir, 2, s, 0.5, NAN, 0);
    }
    compare_result *res = load(&f->plan, dir);
    compare_tipping t;
    compare_tipping_of(res, 0, 0, &t);
    ck_assert_uint_eq(t.tipped, 2);
    ck_assert_uint_eq(t.n, 5);
    ck_assert_double_eq_tol(t.share, 0.4, 1e-15);
    ck_assert_double_eq_tol(t.lo, 0.117621, 1e-5);
    ck_assert_double_eq_tol(t.hi, 0.769278, 1e-5);
    ck_assert_int_eq(t.stability, CS_BISTABLE);
    ck_assert(t.bistable);
    /* Recovery time is over the 3 seeds that recovered: (20 + 22 + 24)
     * / 3 = 22 s. */
    const compare_stat *st = compare_stat_at(res, 0, 0, CM_RECOVERY_S);
    ck_assert_uint_eq(st->ci.n, 3);
    ck_assert_double_eq_tol(st->ci.mean, 22.0, 1e-12);
    compare_tipping_of(res, 0, 1, &t);
    ck_assert_uint_eq(t.tipped, 0);
    ck_assert_double_eq(t.lo, 0.0);
    ck_assert_double_eq_tol(t.hi, 0.434482, 1e-5);
    ck_assert_int_eq(t.stability, CS_STABLE);
    ck_assert(!t.bistable);
    compare_tipping_of(res, 0, 2, &t);
    ck_assert_uint_eq(t.tipped, 5);
    ck_assert_double_eq_tol(t.lo, 0.565518, 1e-5);
    ck_assert_double_eq(t.hi, 1.0);
    ck_assert_int_eq(t.stability, CS_METASTABLE);
    ck_assert(!t.too_few);
    ck_assert_str_eq(compare_tipping_call(&t), "metastable");
    compare_tipping_of(res, 0, 0, &t);
    ck_assert(!t.too_few); /* 2 of 5: the seeds split */
    ck_assert_str_eq(compare_tipping_call(&t), "bistable");
    compare_tipping_counts(0, 3, &t);
    ck_assert_double_eq_tol(t.hi, 0.561491, 1e-5);
    ck_assert_int_eq(t.stability, CS_BISTABLE);
    ck_assert(t.too_few);
    ck_assert_str_eq(compare_tipping_call(&t), "too few seeds to tell");
    ck_assert_str_eq(compare_stability_name(t.stability), "bistable");
    ck_assert_str_eq(compare_tipping_json_name(&t), "too few seeds");
    compare_tipping_counts(3, 3, &t);
    ck_assert(t.bistable && t.too_few);
    compare_tipping_counts(1, 3, &t);
    ck_assert(t.bistable && !t.too_few);
    ck_assert_str_eq(compare_tipping_call(&t), "bistable");
    ck_assert_str_eq(compare_tipping_json_name(&t), "bistable");
    ck_assert_uint_eq(compare_tipping_seeds(0), 4);
    ck_assert_uint_eq(compare_tipping_seeds(1), 8);
    char caveat[600];
    compare_tipping_caveat(3, "cell", caveat, sizeof caveat);
    ck_assert_str_eq(caveat,
                     "With 3 seeds a cell, no cell can be called stable or "
                     "metastable: even when every seed agrees, the 95 % "
                     "interval of the share that never recovered holds one "
                     "half (0 of 3: 0 to 56 %), too few seeds to tell. It "
                     "takes 4 seeds agreeing to call one (0 of 4: up to 49 "
                     "%), or 8 with one seed the other way (1 of 8: up to "
                     "47 %).");
    compare_tipping_caveat(1, "value", caveat, sizeof caveat);
    ck_assert_msg(strstr(caveat, "With 1 seed a value, no value ") == caveat,
                  "%s", caveat);
    compare_tipping_counts(0, 0, &t);
    ck_assert_int_eq(t.stability, CS_UNJUDGED);
    ck_assert(isnan(t.share) && isnan(t.lo) && isnan(t.hi));
    ck_assert_str_eq(compare_stability_name(CS_BISTABLE), "bistable");
    compare_result_free(res);
    free(f);
}
END_TEST

/* Where each policy tips along a one-key sweep, in words.  A sweep of
 * load over 0.8, 0.9, 1, 1.1 with 5 seeds, built in memory: "calm"
 * never tips; "storm" tips in 0, 0, 2 and 5 of 5 seeds.  The counts
 * are runs of equal values said once, with Wilson's interval (0 of 5:
 * [0, 3.84 / 8.84 = 43 %], stable; 2 of 5: [12, 77 %], bistable; 5 of
 * 5: [57, 100 %], metastable); most seeds tip where k > n / 2: at 1.1
 * only.  A policy tipping in most seeds at 1 and 1.1 "tips from 1 up". */
START_TEST(sweep_says_where_each_policy_tips)
{
    static const uint32_t storm[4] = {0, 0, 2, 5}, late[4] = {0, 1, 3, 4};
    compare_plan *p = calloc(1, sizeof *p);
    compare_point pts[4];
    memset(pts, 0, sizeof pts);
    snprintf(p->name, sizeof p->name, "hand");
    snprintf(p->policies[0].label, sizeof p->policies[0].label, "calm");
    snprintf(p->policies[1].label, sizeof p->policies[1].label, "storm");
    snprintf(p->policies[2].label, sizeof p->policies[2].label, "late");
    p->n_policies = 3;
    p->n_seeds = 5;
    p->n_axes = 1;
    snprintf(p->axes[0].key, sizeof p->axes[0].key, "load");
    p->axes[0].n = 4;
    for (uint32_t k = 0; k < 4; k++) {
        pts[k].index[0] = k;
        pts[k].value[0] = 0.8 + 0.1 * k;
    }
    p->points = pts;
    p->n_points = 4;
    compare_run *runs = calloc(compare_n_runs(p), sizeof *runs);
    for (uint32_t r = 0; r < compare_n_runs(p); r++) {
        uint32_t pt, pol, sd;
        compare_run_at(p, r, &pt, &pol, &sd);
        runs[r].point = pt;
        runs[r].policy = pol;
        runs[r].sum.recovery_judged = true;
        uint32_t tips = pol == 0 ? 0 : pol == 1 ? storm[pt] : late[pt];
        runs[r].sum.recovered = sd >= tips;
    }
    compare_result res = {p, runs, NULL, NULL, NULL, NULL, 0, NULL, NULL};
    char text[2048];
    compare_tips_text(&res, 0, text, sizeof text);
    ck_assert_str_eq(text, "calm, seeds that never recovered: 0 of 5 from "
                           "0.8 to 1.1 (95 % CI 0\xe2\x80\x93"
                           "43 %, "
                           "stable). At no value did more than half the "
                           "seeds tip.");
    compare_tips_text(&res, 1, text, sizeof text);
    ck_assert_str_eq(text, "storm, seeds that never recovered: 0 of 5 from "
                           "0.8 to 0.9 (95 % CI 0\xe2\x80\x93"
                           "43 %, "
                           "stable); 2 of 5 at 1 (95 % CI 12\xe2\x80\x93"
                           "77 %, bistable); 5 of 5 at 1.1 (95 % CI "
                           "57\xe2\x80\x93"
                           "100 %, metastable). Most "
                           "seeds tip at 1.1.");
    compare_tips_text(&res, 2, text, sizeof text);
    ck_assert_ptr_nonnull(strstr(text, "Most seeds tip from 1 up."));
    /* 5 seeds can call a value either way: no caveat. */
    ck_assert(!compare_tips_caveat(&res, text, sizeof text));
    /* The same sweep on 3 seeds, none tipping: every value 0 of 3,
     * "too few seeds to tell" (not "bistable": the seeds agreed), and
     * the caveat says once what it takes (compare_tipping_caveat). */
    p->n_seeds = 3;
    memset(runs, 0, compare_n_runs(p) * sizeof *runs);
    for (uint32_t r = 0; r < compare_n_runs(p); r++) {
        uint32_t pt, pol, sd;
        compare_run_at(p, r, &pt, &pol, &sd);
        runs[r].point = pt;
        runs[r].policy = pol;
        runs[r].sum.recovery_judged = true;
        runs[r].sum.recovered = true;
    }
    compare_tips_text(&res, 0, text, sizeof text);
    ck_assert_str_eq(text, "calm, seeds that never recovered: 0 of 3 from "
                           "0.8 to 1.1 (95 % CI 0\xe2\x80\x93"
                           "56 %, too few seeds to tell). At no value did "
                           "more than half the seeds tip.");
    ck_assert(compare_tips_caveat(&res, text, sizeof text));
    ck_assert_msg(strstr(text, "With 3 seeds a value, no value can be "
                               "called stable or metastable") == text,
                  "%s", text);
    /* One seed a value: "most seeds" is that seed.  The storm policy's
     * one seed tips at 1 and 1.1 (storm[] is 2 and 5 there, above seed
     * 0) and not at 0.8 or 0.9 (0 there). */
    p->n_seeds = 1;
    memset(runs, 0, compare_n_runs(p) * sizeof *runs);
    for (uint32_t r = 0; r < compare_n_runs(p); r++) {
        uint32_t pt, pol, sd;
        compare_run_at(p, r, &pt, &pol, &sd);
        runs[r].point = pt;
        runs[r].policy = pol;
        runs[r].sum.recovery_judged = true;
        runs[r].sum.recovered = sd >= (pol == 1 ? storm[pt] : 0);
    }
    compare_tips_text(&res, 1, text, sizeof text);
    ck_assert_msg(strstr(text, ". The seed tips from 1 up.") != NULL, "%s",
                  text);
    ck_assert_msg(strstr(text, "Most seeds") == NULL, "%s", text);
    compare_tips_text(&res, 0, text, sizeof text);
    ck_assert_msg(strstr(text, ". At no value did the seed tip.") != NULL, "%s",
                  text);
    /* Not judged anywhere: said, not counted as 0 of 0. */
    for (uint32_t r = 0; r < compare_n_runs(p); r++)
        runs[r].sum.recovery_judged = false;
    compare_tips_text(&res, 0, text, sizeof text);
    ck_assert_str_eq(text, "calm: recovery was not judged at any value (no "
                           "fault, no baseline before it, or no room after "
                           "it)");
    free(runs);
    free(p);
}
END_TEST

/* Bands are type-7 quantiles across the seeds, row by row.  Five seeds
 * whose cells are 0, 10, 20, 30, 40 (+ the row number): h = 4q, so
 * the 10th percentile is 0 + 0.4 x 10 = 4, the median 20, the 90th
 * 30 + 0.6 x 10 = 36 (plus the row). */
START_TEST(bands_are_quantiles_across_seeds)
{
    fixture *f = hand_plan(1, 5);
    const char *dir = fresh_dir("cmp-bands");
    make_dir(dir);
    static const float cells[5] = {20, 0, 40, 10, 30};
    for (uint32_t s = 0; s < 5; s++)
        hand_run(f, dir, 0, s, 0.9, 1.0, cells[s]);
    compare_result *res = load(&f->plan, dir);
    compare_series *lo = malloc(sizeof *lo), *mid = malloc(sizeof *mid),
                   *hi = malloc(sizeof *hi);
    const char *dirs[1] = {dir};
    sb_err e;
    ck_assert_msg(compare_series_bands(res, dirs, 1, 0, 0, lo, mid, hi, &e) ==
                      0,
                  "%s", e.msg);
    ck_assert_uint_eq(mid->n_rows, 3);
    ck_assert_double_eq(mid->row_s, 1.0);
    for (uint32_t i = 0; i < 3; i++)
        for (int c = 0; c < CC_COUNT; c++) {
            ck_assert_float_eq_tol(lo->v[i][c], 4.0f + (float)i, 1e-5);
            ck_assert_float_eq_tol(mid->v[i][c], 20.0f + (float)i, 1e-5);
            ck_assert_float_eq_tol(hi->v[i][c], 36.0f + (float)i, 1e-5);
        }
    free(lo);
    free(mid);
    free(hi);
    compare_result_free(res);
    free(f);
}
END_TEST

/* What a file keeps is exactly what was saved: NaN, negative zero,
 * floats of every size, repeated rows (written once with "= K"). */
/* runfile_double_text writes "%.15g" when those digits read back as the
 * value, else "%.17g" (runs.csv and every saved run depend on it, byte
 * for byte): its printf-free path must give printf's text exactly.  The
 * reference here is that rule written with snprintf and strtod; the
 * doubles are random bit patterns over [1e-12, 1e18) (either side of
 * the fast path's range), simple fractions, and the neighbours of powers
 * of ten and two, where rounding carries into a new digit or a tie
 * decides. */
static void printf_double_text(double v, char *buf, size_t len)
{
    if (v == 0.0 || isnan(v) ||
        (fabs(v) < 9007199254740992.0 && v == floor(v))) {
        runfile_double_text(v, buf, len); /* not the path under test */
        return;
    }
    snprintf(buf, len, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, len, "%.17g", v);
}

static void same_as_printf(double v, int *checked)
{
    char got[40], want[40];
    runfile_double_text(v, got, sizeof got);
    printf_double_text(v, want, sizeof want);
    ck_assert_msg(strcmp(got, want) == 0, "%a: got %s, printf gives %s", v, got,
                  want);
    ++*checked;
}

START_TEST(doubles_print_as_printf)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    int checked = 0;
    for (int i = 0; i < 300000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        /* exponents of 2^-40 .. 2^60, any mantissa, either sign */
        uint64_t bits = (x & 0x800fffffffffffffull) |
                        ((uint64_t)(1023 - 40 + (int)((x >> 52) % 101)) << 52);
        double v;
        memcpy(&v, &bits, sizeof v);
        same_as_printf(v, &checked);
    }
    for (int a = 1; a < 400; a++)
        for (int b = 1; b < 60; b++)
            same_as_printf((double)a / (double)b, &checked);
    double p10 = 1e-12;
    for (int k = -12; k <= 18; k++, p10 *= 10) {
        for (int s = -40; s <= 40; s++) {
            double v = p10;
            for (int j = 0; j < (s < 0 ? -s : s); j++)
                v = nextafter(v, s < 0 ? 0.0 : INFINITY);
            same_as_printf(v, &checked);
            same_as_printf(v * 0.999999999999999, &checked);
            same_as_printf(v * 1.0000000000000005, &checked);
        }
    }
    for (int e = -40; e < 60; e++)
        for (int s = -3; s <= 3; s++)
            same_as_printf(nextafter(ldexp(1.0, e), ldexp(1.0, e + s)),
                           &checked);
    /* Infinities and the largest finite double leave the fast path
     * before any cast to an integer (UBSan flagged the cast of
     * infinity); printf writes "inf". */
    same_as_printf(INFINITY, &checked);
    same_as_printf(-INFINITY, &checked);
    same_as_printf(DBL_MAX, &checked);
    same_as_printf(-DBL_MAX, &checked);
    char inf[40];
    runfile_double_text(INFINITY, inf, sizeof inf);
    ck_assert_str_eq(inf, "inf");
    ck_assert_int_gt(checked, 300000);
}
END_TEST

START_TEST(saved_values_read_back_exactly)
{
    fixture *f = hand_plan(1, 1);
    const char *dir = fresh_dir("cmp-exact");
    make_dir(dir);
    compare_run r;
    memset(&r, 0, sizeof r);
    r.seed = 1;
    r.sum.amplification = 1.0 / 3.0;
    r.sum.latency_p99_ms = -0.0;
    r.sum.recovery_time_s = NAN;
    r.sum.offered = UINT64_MAX;
    r.sum.wasted_work_share = 1e-300;
    r.sum.phase[PHASE_AFTER].present = true;
    r.sum.phase[PHASE_AFTER].p99_ms = NAN;
    r.sum.phase[PHASE_AFTER].to_s = 123.456;
    static const float odd[] = {1e-7f, 0.1f,        3.14159274f, 47.5f,
                                1e9f,  16777217.0f, -2.5e-5f,    123456.789f};
    for (int i = 0; i < COMPARE_CDF_POINTS; i++)
        r.latency_ms[i] = odd[i % 8] * (float)(i + 1);
    compare_series *s = calloc(1, sizeof *s), *back = calloc(1, sizeof *back);
    s->n_rows = COMPARE_ROWS;
    s->row_s = 0.1;
    for (uint32_t i = 0; i < s->n_rows; i++)
        for (int c = 0; c < CC_COUNT; c++)
            s->v[i][c] = i < 5     ? odd[(i + (uint32_t)c) % 8]
                         : i < 300 ? NAN
                                   : 7.0f;
    char path[1200];
    runfile_path(path, sizeof path, dir, 0, 0, 1);
    runfile_buf buf = {0};
    sb_err e;
    ck_assert_int_eq(
        runfile_write(&buf, path, f->plan.fingerprint, "x", &r, s, &e), 0);
    compare_run got;
    ck_assert_msg(read_back(&buf, path, f->plan.fingerprint, &got, back, &e) ==
                      0,
                  "%s", e.msg);
    /* The summary, its phases included. */
    ck_assert(memcmp(&got.sum, &r.sum, sizeof r.sum) == 0);
    ck_assert(memcmp(got.latency_ms, r.latency_ms, sizeof r.latency_ms) == 0);
    ck_assert_uint_eq(back->n_rows, s->n_rows);
    ck_assert_double_eq(back->row_s, s->row_s);
    ck_assert(memcmp(back->v, s->v, sizeof s->v[0] * s->n_rows) == 0);
    /* 360 rows, of which 295 NaN rows and 60 sevens are two lines each. */
    char *text = tu_read_file(path);
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    ck_assert_int_lt(lines, 30);
    free(text);
    runfile_buf_free(&buf);
    free(s);
    free(back);
    free(f);
}
END_TEST

/* A pipeline's run, saved: has_pipeline, its figures and its steps read
 * back bit for bit (the steps' names are not saved: NULL here, and
 * compare_load names them from the scenario), and a run without one
 * writes "pipeline -". */
START_TEST(pipeline_read_back_exactly)
{
    fixture *f = hand_plan(1, 1);
    const char *dir = fresh_dir("cmp-pipe-exact");
    make_dir(dir);
    compare_run r;
    memset(&r, 0, sizeof r);
    r.seed = 1;
    for (int i = 0; i < COMPARE_CDF_POINTS; i++)
        r.latency_ms[i] = NAN;
    compare_series *s = calloc(1, sizeof *s);
    char path[1200];
    runfile_path(path, sizeof path, dir, 0, 0, 1);
    runfile_buf buf = {0};
    sb_err e;
    ck_assert_int_eq(
        runfile_write(&buf, path, f->plan.fingerprint, "x", &r, s, &e), 0);
    char *text = tu_read_file(path);
    ck_assert_ptr_nonnull(strstr(text, "\npipeline -\nlatency_ms "));
    free(text);

    sim_pipeline_summary *pl = &r.sum.pipeline;
    r.sum.has_pipeline = true;
    pl->strategy = PIPELINE_COMPENSATE;
    pl->checkpoints = true;
    pl->steps = 3;
    pl->jobs = UINT64_MAX;
    pl->completed = 36;
    pl->inconsistent = 1;
    pl->alerts_critical = 7;
    pl->working_s = 1.0 / 3.0;
    pl->blocked_s = 1e-300;
    pl->failed_s = NAN;
    pl->step[0].calls = 62;
    pl->step[1].undo_failed = 5;
    pl->step[2].redone = 9;
    ck_assert_int_eq(
        runfile_write(&buf, path, f->plan.fingerprint, "x", &r, s, &e), 0);
    compare_run got;
    ck_assert_msg(read_back(&buf, path, f->plan.fingerprint, &got, NULL, &e) ==
                      0,
                  "%s", e.msg);
    ck_assert(memcmp(&got.sum, &r.sum, sizeof r.sum) == 0);
    text = tu_read_file(path);
    ck_assert_ptr_nonnull(strstr(text, "\npipeline strategy=compensate "
                                       "checkpoints=1 steps=3 jobs="));
    ck_assert_ptr_nonnull(strstr(text, "\nstep calls=62 attempts=0 "));
    /* A file whose pipeline lost a step is refused. */
    char *cut = strstr(text, "\nstep calls=62");
    ck_assert_ptr_nonnull(cut);
    memmove(cut, strchr(cut + 1, '\n'), strlen(strchr(cut + 1, '\n')) + 1);
    char *endline = strstr(text, "\nend ") + 1;
    snprintf(endline, 40, "end %016llx\n",
             (unsigned long long)runfile_hash(RUNFILE_FNV, text,
                                              (size_t)(endline - text)));
    FILE *out = fopen(path, "wb");
    ck_assert_ptr_nonnull(out);
    fputs(text, out);
    ck_assert_int_eq(fclose(out), 0);
    ck_assert_int_eq(read_back(&buf, path, f->plan.fingerprint, &got, NULL, &e),
                     -1);
    ck_assert_msg(strstr(e.msg, "expected a step of the pipeline") != NULL,
                  "%s", e.msg);
    free(text);
    runfile_buf_free(&buf);
    free(s);
    free(f);
}
END_TEST

/* Save run (policy, seed) of a pipeline: 50 jobs, `completed` of them
 * completed and the rest failed; `critical` critical alerts, `dup`
 * duplicated items, `blocked` s blocked per job. */
static void pipeline_run(const fixture *f, const char *dir, int pol,
                         uint32_t sd, uint64_t completed, uint64_t critical,
                         uint64_t dup, double blocked)
{
    compare_run r;
    memset(&r, 0, sizeof r);
    r.policy = (uint32_t)pol;
    r.seed = f->plan.seed0 + sd;
    r.sum.offered = 100;
    r.sum.successes = 100;
    r.sum.success_ratio = 1;
    r.sum.has_pipeline = true;
    sim_pipeline_summary *pl = &r.sum.pipeline;
    pl->strategy = PIPELINE_FAIL_FAST;
    pl->steps = 2;
    pl->jobs = 50;
    pl->completed = completed;
    pl->failed = 50 - completed;
    pl->alerts_critical = critical;
    pl->items_duplicated = dup;
    pl->blocked_s = 50 * blocked;
    pl->step[1].calls = completed;
    for (int i = 0; i < COMPARE_CDF_POINTS; i++)
        r.latency_ms[i] = NAN;
    compare_series *s = calloc(1, sizeof *s);
    char path[1200];
    runfile_path(path, sizeof path, dir, 0, (uint32_t)pol, r.seed);
    runfile_buf buf = {0};
    sb_err e;
    ck_assert_msg(runfile_write(&buf, path, f->plan.fingerprint,
                                f->plan.policies[pol].label, &r, s, &e) == 0,
                  "%s", e.msg);
    runfile_buf_free(&buf);
    free(s);
}

/* A comparison of a scenario with a pipeline compares its jobs: the
 * metrics, their statistics and verdicts, in every table. */
START_TEST(pipeline_metrics_compared)
{
    fixture *f = hand_plan(2, 3);
    pipeline_cfg *pc = &f->point.cfg.pipeline;
    pc->n_steps = 2;
    snprintf(pc->steps[0].name, sizeof pc->steps[0].name, "extract");
    snprintf(pc->steps[1].name, sizeof pc->steps[1].name, "load");
    const char *dir = fresh_dir("cmp-pipe");
    make_dir(dir);
    /* Policy 0 completes 30, 31, 32 jobs of 50 (mean 62 %), policy 1 45,
     * 46, 47 (92 %); failed are the rest (38 % and 8 %). */
    for (uint32_t sd = 0; sd < 3; sd++) {
        pipeline_run(f, dir, 0, sd, 30 + sd, 10 + sd, 100 + sd, 2.0 + sd);
        pipeline_run(f, dir, 1, sd, 45 + sd, sd, 0, 0.5);
    }
    compare_result *res = load(&f->plan, dir);
    for (int m = 0; m < CM_COUNT; m++)
        ck_assert(compare_metric_shown(&f->plan, m));
    ck_assert_str_eq(res->runs[0].sum.pipeline.step[0].name, "extract");
    ck_assert_str_eq(res->runs[0].sum.pipeline.step[1].name, "load");
    static const struct {
        compare_metric m;
        double mean0, mean1;
    } want[] = {
        {CM_JOBS_COMPLETED, 62, 92}, {CM_JOBS_FAILED, 38, 8},
        {CM_ALERTS_CRITICAL, 11, 1}, {CM_ITEMS_DUPLICATED, 101, 0},
        {CM_JOB_BLOCKED_S, 3, 0.5},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        compare_metric m = want[i].m;
        ck_assert_double_eq_tol(compare_stat_at(res, 0, 0, m)->ci.mean,
                                want[i].mean0, 1e-9);
        ck_assert_double_eq_tol(compare_stat_at(res, 0, 1, m)->ci.mean,
                                want[i].mean1, 1e-9);
        /* Policy 1 is better on each, by as much on every seed. */
        ck_assert_int_eq(compare_verdict_of(res, 0, m)->best, 1);
    }
    ck_assert_ptr_nonnull(
        strstr(compare_verdict_of(res, 0, CM_JOBS_COMPLETED)->text,
               "most jobs completed (92.0 % vs 62.0 % for "
               "immediate, the next best)"));
    write_tables(res, dir);
    char *csv = read_in(dir, "runs.csv"), *md = read_in(dir, "summary.md"),
         *json = read_in(dir, "summary.json");
    ck_assert_int_ge(csv_column(csv, "jobs_completed_pct"), 0);
    ck_assert_int_ge(csv_column(csv, "job_blocked_s"), 0);
    /* The pipeline's figures too, last: run 0 is policy 0, seed 0 (30
     * of 50 jobs completed, 20 failed, blocked 50 x 2 s). */
    int strat = csv_column(csv, "pipeline_strategy");
    ck_assert_int_ge(strat, 0);
    ck_assert_int_eq(csv_column(csv, "pipeline_checkpoints"), strat + 1);
    const char *row0 = strchr(csv, '\n') + 1;
    ck_assert_double_eq(csv_field(row0, csv_column(csv, "pipeline_jobs")), 50);
    ck_assert_double_eq(csv_field(row0, csv_column(csv, "pipeline_completed")),
                        30);
    ck_assert_double_eq(csv_field(row0, csv_column(csv, "pipeline_failed")),
                        20);
    ck_assert_double_eq(csv_field(row0, csv_column(csv, "pipeline_blocked_s")),
                        100);
    ck_assert_ptr_nonnull(strstr(row0, ",fail_fast,0,2,50,30,"));
    ck_assert_ptr_nonnull(strstr(md, "| jobs completed (%) |"));
    ck_assert_ptr_nonnull(strstr(md, "- **blocked time per job**: "));
    ck_assert_ptr_nonnull(strstr(json, "\"items_duplicated\": {"));
    free(csv);
    free(md);
    free(json);
    compare_result_free(res);
    free(f);
}
END_TEST

/* Without a pipeline none of its metrics is anywhere. */
START_TEST(no_pipeline_no_job_metrics)
{
    fixture *f = hand_plan(2, 2);
    const char *dir = fresh_dir("cmp-nopipe");
    make_dir(dir);
    for (uint32_t sd = 0; sd < 2; sd++) {
        hand_run(f, dir, 0, sd, 0.9, 10.0, 0);
        hand_run(f, dir, 1, sd, 0.95, 12.0, 0);
    }
    compare_result *res = load(&f->plan, dir);
    ck_assert(!compare_metric_shown(&f->plan, CM_JOBS_COMPLETED));
    ck_assert(!compare_metric_shown(&f->plan, CM_JOB_BLOCKED_S));
    ck_assert(compare_metric_shown(&f->plan, CM_COMPLETION_S));
    ck_assert(isnan(compare_metric_of(&res->runs[0], CM_ALERTS_CRITICAL)));
    write_tables(res, dir);
    char *csv = read_in(dir, "runs.csv"), *md = read_in(dir, "summary.md"),
         *json = read_in(dir, "summary.json");
    ck_assert_ptr_null(strstr(csv, "jobs_"));
    ck_assert_ptr_null(strstr(csv, "pipeline"));
    ck_assert_ptr_null(strstr(md, "jobs completed"));
    ck_assert_ptr_null(strstr(md, "jobs failed"));
    ck_assert_ptr_null(strstr(json, "jobs_completed_pct"));
    ck_assert_ptr_null(strstr(json, "alerts_critical"));
    ck_assert_ptr_nonnull(strstr(md, "completion time"));
    free(csv);
    free(md);
    free(json);
    compare_result_free(res);
    free(f);
}
END_TEST

Suite *compare_suite(void)
{
    Suite *s = suite_create("compare");
    TCase *tc = tcase_create("compare");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, threads_do_not_change_results);
    tcase_add_test(tc, a_run_is_the_run_sim_gives);
    tcase_add_test(tc, series_rows_fold_every_bucket);
    tcase_add_test(tc, interrupt_then_resume);
    tcase_add_test(tc, doubles_print_as_printf);
    tcase_add_test(tc, only_and_merge);
    tcase_add_test(tc, damaged_runs_are_refused_and_rerun);
    tcase_add_test(tc, stale_records_are_compacted);
    tcase_add_test(tc, compaction_leaves_a_job_writing_alone);
    tcase_add_test(tc, every_truncation_is_refused);
    tcase_add_test(tc, csv_rows_and_means);
    tcase_add_test(tc, markdown_has_the_json_numbers);
    tcase_add_test(tc, phases_tile_the_run);
    tcase_add_test(tc, verdict_reads_like_a_person_wrote_it);
    tcase_add_test(tc, recovery_counts_failures_first);
    tcase_add_test(tc, tipping_is_a_share_with_its_interval);
    tcase_add_test(tc, too_few_seeds_are_said_once_and_not_bistable);
    tcase_add_test(tc, sweep_says_where_each_policy_tips);
    tcase_add_test(tc, ties_are_grouped_and_said);
    tcase_add_test(tc, intervals_stay_in_their_domain);
    tcase_add_test(tc, interval_ends_share_a_precision);
    tcase_add_test(tc, a_swept_key_marks_the_description);
    tcase_add_test(tc, no_success_no_latency_in_csv);
    tcase_add_test(tc, bottom_line_names_the_policy_and_why);
    tcase_add_test(tc, few_seeds_tell_nothing_apart);
    tcase_add_test(tc, each_leader_shows_what_its_test_compared);
    tcase_add_test(tc, durations_print_in_readable_units);
    tcase_add_test(tc, every_metric_has_its_verdict_phrase);
    tcase_add_test(tc, one_seed_is_said_in_the_singular);
    tcase_add_test(tc, runner_up_is_the_second_best);
    tcase_add_test(tc, significant_means_print_apart);
    tcase_add_test(tc, recovery_counts_then_times);
    tcase_add_test(tc, sparse_counts_use_an_exact_test);
    tcase_add_test(tc, bands_are_quantiles_across_seeds);
    tcase_add_test(tc, saved_values_read_back_exactly);
    tcase_add_test(tc, pipeline_read_back_exactly);
    tcase_add_test(tc, a_pipeline_run_is_the_run_sim_gives);
    tcase_add_test(tc, pipeline_metrics_compared);
    tcase_add_test(tc, no_pipeline_no_job_metrics);
    suite_add_tcase(s, tc);
    return s;
}
