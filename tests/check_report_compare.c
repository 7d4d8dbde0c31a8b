/*
 * check_report_compare.c -- `stormbench compare` and `stormbench merge`
 * end to end, through the real binary: the files a user hands to the
 * team (report.pdf, report.html, summary.md, summary.json, runs.csv),
 * read back and checked against each other and against statistics the
 * test computes itself from runs.csv; a stability map against queueing
 * arithmetic; a run stopped and resumed; jobs emitted, run apart and
 * merged.
 */
#define _DEFAULT_SOURCE /* strsep, usleep */
#include <check.h>
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* A small server that tips into a retry storm: 4 workers of exp(50 ms),
 * so a capacity of 80 attempts/s; a 1 s attempt timeout; 10 s at one
 * worker (20/s) from t = 20 s builds a backlog whose waits pass the
 * timeout.  50 clients at 1/s offer 50/s, a load rho = 0.625. */
static const char tipping[] =
    "[scenario]\nname = tipping\ndescription = immediate retries after a "
    "capacity drop\nduration = 150s\nwarmup = 10s\nrecovery_window = 10s\n"
    "seed = 1\n"
    "[clients]\ncount = 50\nrate = 1/s\ntimeout = 1s\n"
    "[server]\nworkers = 4\nservice = exp(50ms)\nnetwork_delay = "
    "const(1ms)\n"
    "[policy]\nname = immediate\nmax_attempts = 1\n"
    "[fault.drop]\ntype = capacity\nstart = 20s\nduration = 10s\n"
    "workers = 1\n";

#define SEEDS 5
#define N_POLICIES 3
static const char *const labels[N_POLICIES] = {
    "none", "immediate:max_attempts=3", "exponential:jitter=full"};
static const char policies_arg[] =
    "none,immediate:max_attempts=3,exponential:jitter=full";

/* ---- Helpers --------------------------------------------------------------- */

static char scenario_path[1024];

static const char *tipping_path(void)
{
    if (scenario_path[0] == '\0')
        snprintf(scenario_path, sizeof scenario_path, "%s",
                 tu_write_temp("tipping.ini", tipping));
    return scenario_path;
}

/* A fresh, empty directory (removed first if a previous run left it). */
static const char *fresh_dir(const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s", tu_temp_path(name));
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    ck_assert_int_eq(system(cmd), 0);
    return out;
}

static char *file_in(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = tu_read_file(path);
    ck_assert_msg(text != NULL, "%s was not written", path);
    return text;
}

static bool exists(const char *dir, const char *name)
{
    char path[1200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

static void compare(const char *dir, const char *const *extra, int want)
{
    const char *argl[32] = {
        "compare", tipping_path(), "--policies", policies_arg, "--seeds",
        "5",       "-o",           dir,          "-q"};
    int n = 9;
    for (int i = 0; extra && extra[i]; i++)
        argl[n++] = extra[i];
    argl[n] = NULL;
    tu_output o;
    tu_stormbench(&o, argl);
    ck_assert_msg(o.status == want, "compare exited %d, not %d: %s", o.status,
                  want, o.err);
    tu_output_free(&o);
}

/* ---- runs.csv, read by the test ------------------------------------------------ */

typedef struct csv {
    char *text;
    int n_cols, n_rows;
    char *cell[64][160]; /* [row][col], pointers into text */
    char *head[160];
} csv;

static void csv_load(csv *c, const char *dir)
{
    memset(c, 0, sizeof *c);
    c->text = file_in(dir, "runs.csv");
    char *save, *line = strtok_r(c->text, "\n", &save);
    ck_assert_ptr_nonnull(line);
    for (char *s = line, *f; (f = strsep(&s, ",")) != NULL;) {
        ck_assert_int_lt(c->n_cols, 160);
        c->head[c->n_cols++] = f;
    }
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        ck_assert_int_lt(c->n_rows, 64);
        int k = 0;
        for (char *s = line, *f; (f = strsep(&s, ",")) != NULL;) {
            ck_assert_int_lt(k, c->n_cols);
            c->cell[c->n_rows][k++] = f;
        }
        ck_assert_msg(k == c->n_cols, "row %d has %d fields, not %d", c->n_rows,
                      k, c->n_cols);
        c->n_rows++;
    }
}

static int csv_col(const csv *c, const char *name)
{
    for (int i = 0; i < c->n_cols; i++)
        if (strcmp(c->head[i], name) == 0)
            return i;
    ck_abort_msg("runs.csv has no column '%s'", name);
    return -1;
}

/* The mean and sample standard deviation of `column` over one policy's
 * rows, and how many rows it has. */
static void csv_stats(const csv *c, const char *policy, const char *column,
                      double *mean, double *sd, int *n)
{
    int pc = csv_col(c, "policy"), vc = csv_col(c, column);
    double sum = 0, sq = 0;
    *n = 0;
    for (int r = 0; r < c->n_rows; r++)
        if (strcmp(c->cell[r][pc], policy) == 0) {
            double v = strtod(c->cell[r][vc], NULL);
            sum += v;
            sq += v * v;
            (*n)++;
        }
    ck_assert_int_gt(*n, 1);
    *mean = sum / *n;
    *sd = sqrt(fmax(0, (sq - sum * sum / *n) / (*n - 1)));
}

/* ---- summary.json, by text --------------------------------------------------- */

/* The text of the number after "key": for the dotted path (parts found
 * in order), into buf; its decimals in *dec. */
static void json_num_text(const char *json, const char *path, char *buf,
                          size_t len, int *dec)
{
    const char *p = json;
    char part[128], copy[256];
    snprintf(copy, sizeof copy, "%s", path);
    char *save;
    for (char *k = strtok_r(copy, ".", &save); k;
         k = strtok_r(NULL, ".", &save)) {
        snprintf(part, sizeof part, "\"%s\":", k);
        p = strstr(p, part);
        ck_assert_msg(p != NULL, "summary.json has no %s", path);
        p += strlen(part);
    }
    while (*p == ' ')
        p++;
    size_t n = strspn(p, "-0123456789.eE");
    ck_assert_msg(n > 0 && n < len, "%s is not a number", path);
    memcpy(buf, p, n);
    buf[n] = '\0';
    const char *dot = strchr(buf, '.');
    *dec = dot ? (int)strlen(dot + 1) : 0;
}

/* ---- The report of three policies on five seeds --------------------------------- */

static char main_dir[1024];

static const char *main_report(void)
{
    if (main_dir[0] == '\0') {
        fresh_dir("cmp-main", main_dir, sizeof main_dir);
        compare(main_dir, NULL, 0);
    }
    return main_dir;
}

/* Every output is there, and runs.csv has one row per policy and seed:
 * 3 x 5 = 15, each policy on seeds 1 to 5 (the scenario's seed and the
 * four after it). */
START_TEST(every_output_and_every_run)
{
    const char *dir = main_report();
    const char *want[] = {"report.pdf",   "report.html", "summary.md",
                          "summary.json", "runs.csv",    "command"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ck_assert_msg(exists(dir, want[i]), "no %s", want[i]);
    csv c;
    csv_load(&c, dir);
    ck_assert_int_eq(c.n_rows, N_POLICIES * SEEDS);
    int pc = csv_col(&c, "policy"), sc = csv_col(&c, "seed");
    for (int p = 0; p < N_POLICIES; p++) {
        unsigned seen = 0;
        for (int r = 0; r < c.n_rows; r++)
            if (strcmp(c.cell[r][pc], labels[p]) == 0)
                seen |= 1u << atoi(c.cell[r][sc]);
        ck_assert_msg(seen == 0x3e, "%s: seeds 1-5 not each once (%#x)",
                      labels[p], seen);
    }
    /* Nothing half-written is left beside them. */
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        ck_assert_msg(strstr(e->d_name, ".tmp") == NULL, "left: %s", e->d_name);
    closedir(d);
    free(c.text);
}
END_TEST

/* summary.json's means and 95 % intervals are the statistics of runs.csv,
 * computed here from scratch: the mean over the five seeds, and mean -+
 * t(0.975, 4) s / sqrt(5), t(0.975, 4) = 2.776445 (Student's t table).
 * The JSON keeps every digit, so each figure must equal ours to the
 * precision of the t quantile written here. */
START_TEST(summary_is_the_statistics_of_the_runs)
{
    const char *dir = main_report();
    csv c;
    csv_load(&c, dir);
    char *json = file_in(dir, "summary.json");
    const char *figures[] = {"success_pct", "amplification", "p99_ms",
                             "wasted_work_pct"};
    for (int p = 0; p < N_POLICIES; p++)
        for (size_t m = 0; m < sizeof figures / sizeof *figures; m++) {
            double mean, sd;
            int n;
            csv_stats(&c, labels[p], figures[m], &mean, &sd, &n);
            ck_assert_int_eq(n, SEEDS);
            double half = 2.776445 * sd / sqrt(SEEDS);
            const char *field[3] = {"mean", "lo", "hi"};
            double want[3] = {mean, mean - half, mean + half};
            for (int f = 0; f < 3; f++) {
                char path[256], text[64];
                int dec;
                snprintf(path, sizeof path, "results.%s.%s.%s", labels[p],
                         figures[m], field[f]);
                json_num_text(json, path, text, sizeof text, &dec);
                double got = strtod(text, NULL);
                /* summary.json has every digit; t(0.975, 4) above has
                 * seven, so the interval agrees to 1e-6 of its size. */
                double tol = 1e-6 * (fabs(want[f]) + half) + 1e-12;
                (void)dec;
                /* An interval of a share is cut at 0 % and 100 %, of
                 * any other figure at 0. */
                double w = fmax(want[f], 0);
                if (strstr(figures[m], "_pct"))
                    w = fmin(w, 100);
                ck_assert_msg(fabs(got - w) <= tol * 1.0001,
                              "%s: %s printed, %.6g computed", path, text,
                              want[f]);
            }
        }
    free(json);
    free(c.text);
}
END_TEST

/* summary.md prints summary.json's numbers rounded: JSON keeps every
 * digit, each cell of the Markdown results table is "mean [lo, hi]" to
 * three significant digits of the mean, the interval at the same
 * decimal place. */
static void rounded_cell(const char *json, const char *policy, const char *key,
                         char *cell, size_t len)
{
    char path[256], text[3][64];
    const char *field[3] = {"mean", "lo", "hi"};
    double v[3];
    for (int i = 0; i < 3; i++) {
        int dec;
        snprintf(path, sizeof path, "results.%s.%s.%s", policy, key, field[i]);
        json_num_text(json, path, text[i], sizeof text[i], &dec);
        v[i] = strtod(text[i], NULL);
    }
    double scale = v[0] != 0 ? v[0] : v[2] - v[0];
    int d = scale == 0 ? 0 : 2 - (int)floor(log10(fabs(scale)));
    d = d < 0 ? 0 : d > 6 ? 6 : d;
    snprintf(cell, len, "| %.*f [%.*f, %.*f]", d, v[0], d, v[1], d, v[2]);
}

START_TEST(markdown_says_what_json_says)
{
    const char *dir = main_report();
    char *md = file_in(dir, "summary.md"), *json = file_in(dir, "summary.json");
    const char *rows[] = {"| success ratio (%) |", "| amplification (x) |",
                          "| p99 latency (ms) |"};
    const char *keys[] = {"success_pct", "amplification", "p99_ms"};
    for (int k = 0; k < 3; k++) {
        const char *row = strstr(md, rows[k]);
        ck_assert_msg(row != NULL, "summary.md has no row %s", rows[k]);
        const char *end = strchr(row, '\n');
        for (int p = 0; p < N_POLICIES; p++) {
            char cell[256];
            rounded_cell(json, labels[p], keys[k], cell, sizeof cell);
            /* Cells are in the policies' order: the p-th "| " after the
             * row's name. */
            const char *c = row + strlen(rows[k]) - 1;
            for (int i = 0; i < p; i++)
                c = strstr(c + 1, "| ");
            ck_assert_msg(c && c < end && strncmp(c, cell, strlen(cell)) == 0,
                          "summary.md %s, policy %s: want %s in %.*s", rows[k],
                          labels[p], cell, (int)(end - row), row);
        }
    }
    /* Its phase rows are named as people read them (the summary's and
     * the verdicts' words), not by the JSON's keys. */
    ck_assert_msg(strstr(md, "| before the fault (") &&
                      strstr(md, "| recovery ("),
                  "%s", md);
    ck_assert_ptr_null(strstr(md, "| after ("));
    free(md);
    free(json);
}
END_TEST

/* The PDF: A4 pages, the scenario's name in its title, and the results
 * table's figures as summary.json has them ("mean ± half-width"), each
 * policy named. */
START_TEST(pdf_carries_the_results)
{
    const char *dir = main_report();
    char pdf[1200];
    snprintf(pdf, sizeof pdf, "%s/report.pdf", dir);
    char *info = tu_tool_output(SB_PDFINFO, (const char *[]){pdf, NULL});
    const char *pg = strstr(info, "Pages:");
    ck_assert_ptr_nonnull(pg);
    /* Title page, results with verdicts, phases, time series, bars,
     * latency: at least six pages. */
    ck_assert_int_ge(atoi(pg + 6), 6);
    ck_assert_msg(strstr(info, "tipping, 3 policies"), "%s", info);
    char *text = tu_tool_output(SB_PDFTOTEXT, (const char *[]){pdf, "-", NULL});
    char *json = file_in(dir, "summary.json");
    for (int p = 0; p < N_POLICIES; p++) {
        ck_assert_msg(strstr(text, labels[p]), "no %s in the PDF", labels[p]);
        /* The cell as summary.md has it: "| 1.25 [1.20, 1.30]"; the PDF
         * may wrap it before the bracket (the bracket is kept whole by a
         * no-break space, which pdftotext gives back as a space). */
        char cell[256], mean[64], interval[128];
        rounded_cell(json, labels[p], "amplification", cell, sizeof cell);
        sscanf(cell, "| %63s", mean);
        snprintf(interval, sizeof interval, "%s", strchr(cell, '['));
        ck_assert_msg(strstr(text, mean), "PDF lacks '%s' (%s)", mean,
                      labels[p]);
        ck_assert_msg(strstr(text, interval), "PDF lacks '%s' (%s)", interval,
                      labels[p]);
    }
    ck_assert_ptr_nonnull(strstr(text, "Verdicts"));
    ck_assert_ptr_nonnull(strstr(text, "By phase"));
    /* The title page lists every parameter, defaults marked: the entry
     * set exponential's jitter and immediate's max_attempts (not
     * defaults); exponential's base stays at its default of 100 ms. */
    ck_assert_msg(strstr(text, "base=100ms (default)"), "%s", text);
    ck_assert_ptr_nonnull(strstr(text, "jitter=full"));
    ck_assert_ptr_null(strstr(text, "jitter=full (default)"));
    ck_assert_ptr_nonnull(strstr(text, "max_attempts=3"));
    ck_assert_ptr_null(strstr(text, "max_attempts=3 (default)"));
    /* The fault is one row, labelled and saying what it does: its name
     * (not its type's), 1 worker, when.  It was a "faults" row with an
     * empty value and the fault below it ("drop | capacity from 20s for
     * 10s", the worker count left out). */
    ck_assert_msg(strstr(text, "\nfault\n\ndrop, capacity: 1 worker; from "
                               "20s for 10s\n"),
                  "%s", text);
    ck_assert_ptr_null(strstr(text, "\nfaults\n"));
    free(text);
    free(json);
    free(info);
}
END_TEST

/* A scenario without a fault has no recovery to judge: the PDF must not
 * say a run "did not recover" (it once counted every run without a
 * recovery time as not recovered, in the table and under the bars). */
START_TEST(no_fault_no_recovery_verdict)
{
    char dir[1024];
    fresh_dir("cmp-nofault", dir, sizeof dir);
    tu_output o;
    tu_stormbench(&o, (const char *[]){"compare",
                                       SB_SOURCE_DIR
                                       "/scenarios/batch-ingestion.ini",
                                       "--policies", "exponential,plan",
                                       "--seeds", "2", "-o", dir, "-q", NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    char pdf[1200];
    snprintf(pdf, sizeof pdf, "%s/report.pdf", dir);
    char *text = tu_tool_output(SB_PDFTOTEXT, (const char *[]){pdf, "-", NULL});
    ck_assert_msg(strstr(text, "did not recover") == NULL, "%s", text);
    ck_assert_ptr_nonnull(strstr(text, "recovery was not judged"));
    /* Nor a phase "before the first fault" spanning the whole run (it
     * once had one table, so captioned): the one phase is the results. */
    ck_assert_msg(strstr(text, "before the first fault") == NULL &&
                      strstr(text, "Before the first fault") == NULL,
                  "%s", text);
    ck_assert_ptr_nonnull(strstr(text, "One phase only: no fault falls"));
    free(text);
    char *md = file_in(dir, "summary.md");
    ck_assert_msg(strstr(md, "By phase: one phase only, as no fault falls") &&
                      !strstr(md, "before the fault ("),
                  "%s", md);
    free(md);
}
END_TEST

/* A pipeline's runs complete when their jobs do: nightly-pipeline's 400
 * jobs all end (plan completes them, none fails some for good after its
 * two reruns, well inside the 2 h run), so neither policy "did not
 * complete".  Its requests are the steps' calls, more than the 400
 * clients, which the completion test once compared them with.  Every
 * job needs 5 steps of 60 s of service, so the last ends after 300 s,
 * and before the run's 7200 s end. */
START_TEST(pipeline_runs_complete_when_their_jobs_do)
{
    char dir[1024];
    fresh_dir("cmp-pipe-complete", dir, sizeof dir);
    tu_output o;
    tu_stormbench(
        &o, (const char *[]){"compare",
                             SB_SOURCE_DIR "/scenarios/nightly-pipeline.ini",
                             "--policies", "plan,none", "--seeds", "2", "-o",
                             dir, "-q", "--no-report", NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    char *md = file_in(dir, "summary.md"), *json = file_in(dir, "summary.json");
    ck_assert_msg(strstr(md, "did not complete") == NULL, "%s", md);
    static const char *const pols[] = {"plan", "none"};
    for (int i = 0; i < 2; i++) {
        char path[128], num[64];
        int dec;
        snprintf(path, sizeof path, "results.%s.completion_s.n", pols[i]);
        json_num_text(json, path, num, sizeof num, &dec);
        ck_assert_str_eq(num, "2");
        snprintf(path, sizeof path, "results.%s.completion_s.mean", pols[i]);
        json_num_text(json, path, num, sizeof num, &dec);
        double t = strtod(num, NULL);
        ck_assert_msg(t > 300 && t <= 7200, "%s: %s", pols[i], num);
    }
    free(md);
    free(json);
}
END_TEST

/* report.pdf is reproducible under SOURCE_DATE_EPOCH: its metadata's
 * dates are that time, not the time it was written (cairo stamps "now"
 * unless told).  31536000 s after the epoch is 1971-01-01 00:00:00 UTC
 * (365 days of 86400 s). */
START_TEST(pdf_dates_follow_source_date_epoch)
{
    char dir[1024];
    fresh_dir("cmp-epoch", dir, sizeof dir);
    setenv("SOURCE_DATE_EPOCH", "31536000", 1);
    tu_output o;
    tu_stormbench(&o, (const char *[]){"compare",
                                       SB_SOURCE_DIR
                                       "/scenarios/tier-amplification.ini",
                                       "--seeds", "2", "-o", dir, "-q", NULL});
    unsetenv("SOURCE_DATE_EPOCH");
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    char path[1200];
    snprintf(path, sizeof path, "%s/report.pdf", dir);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char pdf[1 << 21];
    size_t n = fread(pdf, 1, sizeof pdf - 1, f);
    fclose(f);
    int dates = 0;
    for (size_t i = 0; i + 40 < n; i++)
        if (memcmp(pdf + i, "/CreationDate (", 15) == 0 ||
            memcmp(pdf + i, "/ModDate (", 10) == 0) {
            const char *d = memchr(pdf + i, '(', 20) + 1;
            if (d[0] == 'D' && d[1] == ':')
                d += 2;
            ck_assert_msg(memcmp(d, "19710101000000", 14) == 0, "a date: %.30s",
                          pdf + i);
            dates++;
        }
    ck_assert_int_eq(dates, 2);
}
END_TEST

/* -o DIR holding another comparison is refused in one line, unless
 * --force; the same comparison again, with more seeds, resumes. */
START_TEST(another_comparison_in_the_directory_is_refused)
{
    char dir[1024];
    fresh_dir("cmp-claim", dir, sizeof dir);
    const char *scen = SB_SOURCE_DIR "/scenarios/tier-amplification.ini";
    tu_output o;
    tu_stormbench(&o, (const char *[]){"compare", scen, "--seeds", "2", "-o",
                                       dir, "-q", "--no-report", NULL});
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    tu_stormbench(&o, (const char *[]){"compare", scen, "--policies",
                                       "none,immediate", "--seeds", "2", "-o",
                                       dir, "-q", "--no-report", NULL});
    ck_assert_int_eq(o.status, 2);
    ck_assert_msg(strstr(o.err, "holds another comparison") &&
                      strstr(o.err, "--force"),
                  "%s", o.err);
    ck_assert_msg(strchr(o.err, '\n') == o.err + strlen(o.err) - 1,
                  "not one line: %s", o.err);
    tu_output_free(&o);
    /* Nothing of the first was touched: its runs.csv has 2 rows. */
    char *rows = file_in(dir, "runs.csv");
    int lines = 0;
    for (const char *c = rows; *c; c++)
        lines += *c == '\n';
    ck_assert_int_eq(lines, 3);
    free(rows);
    tu_stormbench(&o, (const char *[]){"compare", scen, "--seeds", "3", "-o",
                                       dir, "-q", "--no-report", NULL});
    ck_assert_msg(o.status == 0, "the same comparison resumed: %s", o.err);
    tu_output_free(&o);
    tu_stormbench(&o,
                  (const char *[]){"compare", scen, "--policies",
                                   "none,immediate", "--seeds", "2", "-o", dir,
                                   "-q", "--no-report", "--force", NULL});
    ck_assert_msg(o.status == 0, "--force: %s", o.err);
    tu_output_free(&o);
}
END_TEST

/* The HTML stands alone: every chart inline SVG inside its <figure>
 * (one picture of each: its frame layer), links only to fragments of
 * the page itself, no src=, no stylesheet or script fetched; the only
 * URLs are the SVG and XLink namespace names, which are never fetched.
 * Each chart's title is a heading in the PDF too: the same document. */
START_TEST(html_stands_alone)
{
    const char *dir = main_report();
    char *html = file_in(dir, "report.html");
    int svgs = 0, figures = 0;
    for (const char *p = html; (p = strstr(p, "<svg class=\"sbc-frame\"")); p++)
        svgs++;
    for (const char *p = html; (p = strstr(p, "<figure")) != NULL; p++)
        figures++;
    ck_assert_int_ge(svgs, 8);
    ck_assert_int_eq(svgs, figures);
    ck_assert_ptr_null(strstr(html, "src="));
    ck_assert_ptr_null(strstr(html, "<link"));
    ck_assert_ptr_null(strstr(html, "<script src"));
    ck_assert_ptr_null(strstr(html, "url(http"));
    for (const char *p = html; (p = strstr(p, "href=\"")) != NULL; p++)
        ck_assert_msg(p[6] == '#', "external link: %.60s", p);
    for (const char *p = html; (p = strstr(p, "http")) != NULL; p++)
        ck_assert_msg(strncmp(p, "http://www.w3.org/2000/svg", 26) == 0 ||
                          strncmp(p, "http://www.w3.org/1999/xlink", 28) == 0,
                      "a URL: %.60s", p);
    char pdf[1200];
    snprintf(pdf, sizeof pdf, "%s/report.pdf", dir);
    char *text = tu_tool_output(SB_PDFTOTEXT, (const char *[]){pdf, "-", NULL});
    for (const char *p = html; (p = strstr(p, "<figure")) != NULL; p++) {
        const char *t = strstr(p, " aria-label=\"") + strlen(" aria-label=\"");
        const char *q = strchr(t, '"');
        char title[200];
        snprintf(title, sizeof title, "%.*s", (int)(q - t), t);
        ck_assert_msg(strstr(text, title), "chart '%s' is not in the PDF",
                      title);
    }
    free(text);
    free(html);
}
END_TEST

/* ---- A stability map against queueing arithmetic ----------------------------- */

/* Immediate retries, k attempts at most, offered load rho (a share of the
 * 80/s capacity).  Once the capacity drop has made queue waits pass the
 * 1 s timeout, every attempt times out and every request sends all k:
 * the server is offered k rho of its capacity, and with no drop of
 * expired work it serves all of it.  k rho > 1: the queue only grows,
 * the storm sustains itself though the fault has ended (metastable).
 * k rho < 1: the backlog drains at (1 - k rho) x 80/s and goodput comes
 * back.  Before the fault waits stay far below 1 s (M/M/4 at rho <= 0.9
 * waits more than 1 s with probability about e^-8), so the storm needs
 * the trigger.  Cells within 0.85 < k rho < 1.25 are left out: near 1
 * the drain is too slow, or the push too weak, to call within 120 s. */
START_TEST(stability_map_tips_where_k_rho_passes_one)
{
    char dir[1024];
    fresh_dir("cmp-map", dir, sizeof dir);
    const char *argl[] = {"compare", tipping_path(),
                          "--seeds", "3",
                          "--sweep", "load=0.3:0.9:0.15",
                          "--sweep", "policy.max_attempts=1:4:1",
                          "-o",      dir,
                          "-q",      NULL};
    tu_output o;
    tu_stormbench(&o, argl);
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    csv c;
    csv_load(&c, dir);
    ck_assert_int_eq(c.n_rows, 5 * 4 * 3);
    int lc = csv_col(&c, "load"), kc = csv_col(&c, "policy.max_attempts"),
        mc = csv_col(&c, "metastable");
    /* Swept values as typed: 0.45, not 0.3 + 0.15 = 0.44999999999999996
     * (point 1: load varies fastest, three seeds a point). */
    ck_assert_str_eq(c.cell[3][lc], "0.45");
    ck_assert_str_eq(c.cell[9][lc], "0.75");
    char *json = file_in(dir, "summary.json");
    ck_assert_msg(strstr(json, "\"load\": 0.45,"), "no load 0.45 in "
                                                   "summary.json's points");
    free(json);
    /* The description is of the scenario as written, the load swept
     * (compare_description_text); policy.max_attempts is the policy's
     * parameter, which no description of the scenario states. */
    char *md = file_in(dir, "summary.md");
    ck_assert_msg(strstr(md, "\n\nThe scenario as written: immediate "
                             "retries after a capacity drop. This "
                             "comparison sweeps the offered load.\n"),
                  "%.400s", md);
    free(md);
    int judged = 0;
    for (int r = 0; r < c.n_rows; r++) {
        double rho = strtod(c.cell[r][lc], NULL);
        int k = atoi(c.cell[r][kc]);
        bool stuck = atoi(c.cell[r][mc]) != 0;
        double kr = k * rho;
        if (kr > 0.85 && kr < 1.25)
            continue;
        judged++;
        ck_assert_msg(stuck == (kr > 1),
                      "load %.2f, %d attempts (k rho = "
                      "%.2f): %s",
                      rho, k, kr, stuck ? "did not recover" : "recovered");
    }
    ck_assert_int_ge(judged, 40);
    /* The report draws the map: its page, its key, its axes. */
    char pdf[1200];
    snprintf(pdf, sizeof pdf, "%s/report.pdf", dir);
    char *text = tu_tool_output(SB_PDFTOTEXT, (const char *[]){pdf, "-", NULL});
    ck_assert_ptr_nonnull(strstr(text, "Stability maps"));
    ck_assert_ptr_nonnull(strstr(text, "never recovered"));
    ck_assert_ptr_nonnull(strstr(text, "offered load / capacity"));
    ck_assert_ptr_nonnull(strstr(text, "policy.max_attempts"));
    /* The boundary as drawn (the page says in words where most seeds
     * tip; with 3 seeds no cell can be called either way): k = 1 never
     * tips, k = 2 from rho = 0.6 (k rho = 1.2), k = 3
     * from 0.45 (1.35; 0.3 gives 0.9).  k = 4 at 0.3 (k rho = 1.2) is
     * the weakest push of all, in the band the arithmetic cannot call:
     * from 0.3 or from 0.45. */
    for (char *p = text; *p; p++)
        if (*p == '\n')
            *p = ' ';
    ck_assert_msg(strstr(text, "by policy.max_attempts: 1: no seed tipped"),
                  "%s", text);
    ck_assert_msg(strstr(text, "; 2: most seeds tip from offered load 0.6 "
                               "up"),
                  "%s", text);
    ck_assert_msg(strstr(text, "; 3: most seeds tip from offered load 0.45 "
                               "up"),
                  "%s", text);
    ck_assert_msg(strstr(text, "; 4: most seeds tip from offered load 0.3 "
                               "up") ||
                      strstr(text, "; 4: most seeds tip from offered load "
                                   "0.45 up"),
                  "%s", text);
    /* Once, what 3 seeds cannot say and what it takes (it said "every
     * cell is bistable", as if the seeds split; 0 of 4 is Wilson's first
     * stable share, 3.84 / 7.84 = 49 %). */
    ck_assert_msg(strstr(text, "With 3 seeds a cell, no cell can be called "
                               "stable or metastable"),
                  "%s", text);
    ck_assert_msg(strstr(text, "It takes 4 seeds agreeing to call one (0 "
                               "of 4: up to 49 %)"),
                  "%s", text);
    ck_assert_ptr_null(strstr(text, "every cell is bistable"));
    /* The title page's model is the first point's: the swept scenario
     * key says its range there (it said nothing: load 0.3 alone). */
    ck_assert_msg(strstr(text, "load from 0.3 to 0.9 (5 values"), "%s", text);
    free(text);
    free(c.text);
}
END_TEST

/* ---- Stopped, resumed, spread over machines -------------------------------- */

/* The outputs that must not depend on how the runs were scheduled. */
static void assert_same_outputs(const char *a, const char *b)
{
    const char *names[] = {"runs.csv", "summary.json", "summary.md"};
    for (int i = 0; i < 3; i++) {
        char *x = file_in(a, names[i]), *y = file_in(b, names[i]);
        ck_assert_msg(strcmp(x, y) == 0, "%s differs between %s and %s",
                      names[i], a, b);
        free(x);
        free(y);
    }
}

static int count_runs(const char *dir)
{
    return (int)tu_saved_runs(dir);
}

/* A plan run in pieces: --run K runs only run K and writes no report;
 * the whole command again runs only what is missing (it says so) and
 * gives, byte for byte, what one uninterrupted command gives. */
START_TEST(resumed_runs_only_what_is_missing)
{
    char dir[1024];
    fresh_dir("cmp-resume", dir, sizeof dir);
    compare(dir, (const char *[]){"--run", "0", "--run", "7", NULL}, 0);
    ck_assert_int_eq(count_runs(dir), 2);
    ck_assert(!exists(dir, "summary.json"));
    const char *argl[] = {
        "compare", tipping_path(), "--policies", policies_arg, "--seeds",
        "5",       "-o",           dir,          NULL};
    tu_output o;
    tu_stormbench(&o, argl);
    ck_assert_msg(o.status == 0, "%s", o.err);
    ck_assert_msg(strstr(o.err, "13 of 15") || strstr(o.out, "13 of 15") ||
                      strstr(o.err, "2 of 15") || strstr(o.out, "2 of 15"),
                  "does not say what it reused or ran: %s%s", o.out, o.err);
    tu_output_free(&o);
    ck_assert_int_eq(count_runs(dir), 15);
    assert_same_outputs(dir, main_report());
}
END_TEST

/* Ctrl-C: exit 130, the runs that finished saved whole, no report; the
 * command again finishes the plan with the same outputs as one
 * uninterrupted command.  The plan (200 seeds) takes seconds; the signal
 * comes once the first run is saved (so the handler is in place: under
 * a loaded machine and the sanitizers, a fixed 0.5 s came before it). */
START_TEST(interrupted_then_resumed)
{
    char dir[1024], ref[1024];
    fresh_dir("cmp-int", dir, sizeof dir);
    fresh_dir("cmp-int-ref", ref, sizeof ref);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1);
        dup2(fd, 2);
        execl(SB_BINARY, SB_BINARY, "compare", tipping_path(), "--policies",
              policies_arg, "--seeds", "200", "-j", "2", "-o", dir,
              (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 1200 && count_runs(dir) == 0; i++)
        usleep(50 * 1000);
    kill(pid, SIGINT);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 130,
                  "exit status %#x, not 130", st);
    int saved = count_runs(dir);
    ck_assert_msg(saved > 0 && saved < 600, "%d runs saved", saved);
    ck_assert(!exists(dir, "summary.json"));
    const char *more[] = {
        "compare", tipping_path(), "--policies", policies_arg, "--seeds",
        "200",     "-j",           "2",          "-q",         "-o",
        NULL,      "--no-report",  NULL};
    const char *argl[13];
    memcpy(argl, more, sizeof more);
    argl[10] = dir;
    tu_output o;
    tu_stormbench(&o, argl);
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    argl[10] = ref;
    tu_stormbench(&o, argl);
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    ck_assert_int_eq(count_runs(dir), 600);
    assert_same_outputs(dir, ref);
}
END_TEST

/* merge --compact with a copy of dir whose runs/ cannot be written:
 * refused before anything is written (it wrote the outputs, then failed
 * at runs/.lock), exit status 2, saying why.  Root writes through a
 * mode, so as root runs/ is made read-only by a read-only bind mount in
 * a mount namespace of its own (unshare -rm); where the kernel allows
 * no such namespace the case is skipped, saying so. */
static void compact_read_only(const char *dir, const char *other)
{
    char copy[1024], cmd[8192], out[1100];
    fresh_dir("cmp-jobs-ro", copy, sizeof copy);
    snprintf(out, sizeof out, "%s", tu_temp_path("merge-ro.err"));
    snprintf(cmd, sizeof cmd,
             "cp -r '%s' '%s' && rm '%s/summary.json' && "
             "chmod a-w '%s/runs'",
             dir, copy, copy, copy);
    ck_assert_int_eq(system(cmd), 0);
    if (geteuid() != 0)
        snprintf(cmd, sizeof cmd, "'%s' merge '%s' '%s' --compact 2>'%s'",
                 SB_BINARY, copy, other, out);
    else if (system("unshare -rm true 2>/dev/null") == 0)
        snprintf(cmd, sizeof cmd,
                 "unshare -rm sh -c \"mount --bind -o ro '%s/runs' "
                 "'%s/runs' && exec '%s' merge '%s' '%s' --compact\" 2>'%s'",
                 copy, copy, SB_BINARY, copy, other, out);
    else {
        fprintf(stderr, "emitted_jobs_then_merge: skipped merge --compact "
                        "on a read-only runs/: running as root, and no "
                        "mount namespace (unshare -rm) to make it one\n");
        return;
    }
    int st = system(cmd);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 2);
    char *err = tu_read_file(out);
    ck_assert_ptr_nonnull(err);
    ck_assert_msg(strstr(err, "stormbench merge: --compact: ") &&
                      strstr(err, "/runs: cannot be written (") &&
                      strstr(err, "), so its stale records cannot be "
                                  "compacted; nothing written (without "
                                  "--compact, merge only reads the DIRs)\n"),
                  "%s", err);
    free(err);
    ck_assert(!exists(copy, "summary.json"));
    ck_assert_int_eq(count_runs(copy), 9);
    snprintf(cmd, sizeof cmd, "chmod u+w '%s/runs'", copy);
    ck_assert_int_eq(system(cmd), 0);
}

/* --emit-jobs writes one command per run and runs nothing; GNU parallel
 * runs the jobs two at a time into one directory, then merge
 * builds the outputs, identical to those of one compare command.  Half
 * the runs in a second directory (another machine's copy): merge reads
 * both. */
START_TEST(emitted_jobs_then_merge)
{
    char dir[1024], jobs[1024], other[1024];
    fresh_dir("cmp-jobs", dir, sizeof dir);
    fresh_dir("cmp-jobs2", other, sizeof other);
    snprintf(jobs, sizeof jobs, "%s", tu_temp_path("jobs.txt"));
    compare(dir, (const char *[]){"--emit-jobs", jobs, NULL}, 0);
    ck_assert_int_eq(count_runs(dir), 0);
    char *text = tu_read_file(jobs);
    ck_assert_ptr_nonnull(text);
    int lines = 0;
    for (const char *p = text; (p = strchr(p, '\n')) != NULL; p++)
        lines++;
    ck_assert_int_eq(lines, N_POLICIES * SEEDS);
    free(text);
    /* Jobs 0-7 into dir, two at a time with GNU parallel (Debian's
     * package: .ci/setup installs it); 8-14 into other, the same commands
     * with the directory changed, as another machine would. */
    ck_assert_msg(SB_PARALLEL[0] && strstr(SB_PARALLEL, "NOTFOUND") == NULL,
                  "GNU parallel was not found when CMake configured: "
                  "install parallel (.ci/setup) and configure again");
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "head -n 8 '%s' | '%s' --will-cite -j 2 && "
             "tail -n +9 '%s' | sed \"s|-o '%s'|-o '%s'|\" | "
             "'%s' --will-cite -j 2",
             jobs, SB_PARALLEL, jobs, dir, other, SB_PARALLEL);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(count_runs(dir), 8);
    ck_assert_int_eq(count_runs(other), 7);
    /* One directory alone lacks runs: merge says which, writes nothing. */
    const char *alone[] = {"merge", dir, "-q", NULL};
    tu_output o;
    tu_stormbench(&o, alone);
    ck_assert_int_eq(o.status, 2);
    ck_assert_msg(strstr(o.err, "missing") || strstr(o.err, "not found"), "%s",
                  o.err);
    tu_output_free(&o);
    ck_assert(!exists(dir, "summary.json"));
    /* A run two jobs ran (a job run again elsewhere, copied back): its
     * second record is stale.  merge only reads; --compact drops it from
     * the DIR that has it, into one file, and leaves the other alone. */
    snprintf(cmd, sizeof cmd,
             "cd '%s/runs' && cp \"$(ls | head -n 1)\" again.runs", dir);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(count_runs(dir), 9);
    const char *both[] = {"merge", dir, other, "-q", NULL};
    tu_stormbench(&o, both);
    ck_assert_msg(o.status == 0, "%s", o.err);
    tu_output_free(&o);
    ck_assert(exists(dir, "runs/again.runs"));
    assert_same_outputs(dir, main_report());
    compact_read_only(dir, other);
    const char *compact[] = {"merge", dir, other, "--compact", NULL};
    tu_stormbench(&o, compact);
    ck_assert_msg(o.status == 0, "%s", o.err);
    char said[2400], real[PATH_MAX];
    ck_assert_ptr_nonnull(realpath(dir, real)); /* as merge names it */
    snprintf(said, sizeof said,
             "merge: dropped 1 stale saved record (damaged, of another plan, "
             "or repeated) from %s/runs: its 9 files are now %s/runs/"
             "compacted.runs\n",
             real, real);
    ck_assert_msg(strstr(o.err, said) != NULL, "%s", o.err);
    ck_assert_msg(strstr(o.err, other) == NULL, "%s", o.err);
    tu_output_free(&o);
    ck_assert_int_eq(count_runs(dir), 8);
    ck_assert(exists(dir, "runs/compacted.runs"));
    ck_assert(!exists(dir, "runs/again.runs"));
    ck_assert_int_eq(count_runs(other), 7);
    assert_same_outputs(dir, main_report());
}
END_TEST

/* ---- A service chain's tiers -------------------------------------------------- */

/* From `stormbench run`'s per-bucket CSV of one seed, on its own path
 * (chain.c's columns, not compare's reduction): db's attempts per request
 * offered at the top over the run, over the outage's buckets (t_s 20 to
 * 29: the scenario's db-down fault is 20 s + 10 s), and the largest
 * bucket's. */
static void tier_from_csv(const char *csv_text, double *whole, double *during,
                          double *peak)
{
    char *text = strdup(csv_text), *save;
    int c_t = -1, c_off = -1, c_att = -1, c_amp = -1, k = 0;
    char *line = strtok_r(text, "\n", &save);
    for (char *s = line, *f; (f = strsep(&s, ",")) != NULL; k++) {
        c_t = strcmp(f, "t_s") == 0 ? k : c_t;
        c_off = strcmp(f, "offered") == 0 ? k : c_off;
        c_att = strcmp(f, "db.attempts") == 0 ? k : c_att;
        c_amp = strcmp(f, "db.amplification") == 0 ? k : c_amp;
    }
    ck_assert(c_t >= 0 && c_off >= 0 && c_att >= 0 && c_amp >= 0 &&
              c_amp < 256 && c_att < 256);
    double off = 0, att = 0, off_d = 0, att_d = 0;
    *peak = 0;
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        double v[256] = {0};
        k = 0;
        for (char *s = line, *f; (f = strsep(&s, ",")) != NULL && k < 256;)
            v[k++] = strtod(f, NULL);
        off += v[c_off];
        att += v[c_att];
        if (v[c_t] >= 20 && v[c_t] < 30) {
            off_d += v[c_off];
            att_d += v[c_att];
        }
        *peak = fmax(*peak, v[c_amp]);
    }
    free(text);
    *whole = att / off;
    *during = att_d / off_d;
}

/* The first cell of summary.md's row starting with `row` ("63.3 [63.1,
 * 63.5]") against the HTML's hover of the bar `tip` names: "95 %
 * interval 63.1 to 63.5x, over 3 seeds", without the mean, which the
 * figure above the bar prints ("63.3x"). */
static void compare_numbers_of_row(const char *md, const char *row,
                                   const char *html, const char *tip)
{
    const char *r = strstr(md, row);
    ck_assert_msg(r != NULL, "no row '%s'", row);
    char mean[32], lo[32], hi[32];
    ck_assert_int_eq(
        sscanf(r + strlen(row), "%31s [%31[^,], %31[^]]", mean, lo, hi), 3);
    char want[200];
    snprintf(want, sizeof want,
             "data-tip=\"%s95 %% interval %s to %sx, over 3 seeds\"", tip, lo,
             hi);
    ck_assert_msg(strstr(html, want) != NULL, "no hover '%s'", want);
    /* The whole hover (up to its closing quote) is that: no mean, in
     * any spelling ("63.3x", "63.3 x"), and no note after it. */
    ck_assert_msg(strcmp(mean, lo) != 0 && strcmp(mean, hi) != 0,
                  "the mean %s is an end of [%s, %s]: pick another row", mean,
                  lo, hi);
    ck_assert_ptr_null(strstr(want, mean));
}

/* tier-amplification's point: retries multiply down the chain, and
 * compare shows it per tier (issue 18; before, no output of compare
 * named a tier).  summary.json's db figures are the means over the
 * seeds of what `stormbench run` counts for each seed, and the outage's
 * figure is the scenario's hand arithmetic. */
START_TEST(tiers_carry_the_amplification_down_the_chain)
{
    char dir[1024];
    fresh_dir("cmp-tiers", dir, sizeof dir);
    const char *argl[] = {"compare",    "tier-amplification",
                          "--policies", "immediate,none",
                          "--seeds",    "3",
                          "-o",         dir,
                          "-q",         NULL};
    tu_output o;
    tu_stormbench(&o, argl);
    ck_assert_msg(o.status == 0, "compare: %s", o.err);
    tu_output_free(&o);
    char *json = file_in(dir, "summary.json");
    double whole = 0, during = 0, peak = 0;
    for (int seed = 1; seed <= 3; seed++) {
        char seed_s[8], csv_path[1200];
        snprintf(seed_s, sizeof seed_s, "%d", seed);
        snprintf(csv_path, sizeof csv_path, "%s/run%d.csv", dir, seed);
        const char *run[] = {
            "run", "tier-amplification", "--seed", seed_s, "--csv", csv_path,
            NULL};
        tu_stormbench(&o, run);
        tu_output_free(&o);
        char *csv_text = tu_read_file(csv_path);
        ck_assert_ptr_nonnull(csv_text);
        double w, d, pk;
        tier_from_csv(csv_text, &w, &d, &pk);
        free(csv_text);
        whole += w / 3;
        during += d / 3;
        peak += pk / 3;
    }
    const char *at = strstr(json, "\"immediate\": {");
    ck_assert_ptr_nonnull(at);
    at = strstr(at, "\"tiers\":");
    ck_assert_ptr_nonnull(at);
    at = strstr(at, "\"db\":");
    ck_assert_ptr_nonnull(at);
    /* The same counts, so the same doubles up to summing order; the CSV's
     * per-bucket amplification has 4 decimals. */
    ck_assert_double_eq_tol(tu_json_number(at, "amplification.mean"), whole,
                            1e-9 * whole);
    ck_assert_double_eq_tol(tu_json_number(at, "during_amplification.mean"),
                            during, 1e-9 * during);
    ck_assert_double_eq_tol(tu_json_number(at, "peak_amplification.mean"), peak,
                            1e-4);
    /* The scenario's arithmetic: in the outage a request's 4 attempts at
     * front become 4 x 4 = 16 at api and 4 x 4 x 4 = 64 at db.  Requests
     * offered in the last 0.2 s of it (4 attempts of 50 ms at front) meet
     * db up again and send fewer: at most 0.2 s / 10 s = 2 % less; a
     * request offered in the 3 ms before it whose call reaches db in it
     * adds 64 unoffered ones: at most 0.3 of ~1000 requests, 0.03 %
     * more.  With no retries at the clients (none) the same holds of
     * 4 x 4 = 16. */
    ck_assert_double_ge(during, 64 * 0.98);
    ck_assert_double_le(during, 64 * 1.0003);
    const char *none = strstr(json, "\"none\": {");
    ck_assert_ptr_nonnull(none);
    none = strstr(strstr(none, "\"tiers\":"), "\"db\":");
    double dn = tu_json_number(none, "during_amplification.mean");
    ck_assert_double_ge(dn, 16 * 0.98);
    ck_assert_double_le(dn, 16 * 1.0003);
    /* And the tiers' own policies are said to stay: the plan names each
     * tier's stack, summary.md says what --policies replaces. */
    /* front and api call down with immediate; db, the bottom, calls
     * nothing. */
    ck_assert_int_eq(tu_count(json, "\"calls_with\": \"immediate\""), 2);
    ck_assert_int_eq(tu_count(json, "\"calls_with\": null"), 1);
    char *md = file_in(dir, "summary.md");
    /* The bottom line cites that point: db's figure in the outage, none
     * against immediate, as the table prints them (before, it weighed the
     * clients' figures alone and named no tier). */
    char want[400];
    snprintf(want, sizeof want,
             "Service tiers: at db, the deepest of 3 "
             "tiers, each request the clients offered became %.1f attempts "
             "during the faults with none (the fewest; no retries at the "
             "clients), against %.1f with immediate (the most)",
             dn, tu_json_number(at, "during_amplification.mean"));
    ck_assert_msg(strstr(md, want) != NULL, "no '%s' in the bottom line", want);
    ck_assert_ptr_nonnull(strstr(md, "replace the clients' policy only"));
    ck_assert_ptr_nonnull(strstr(md, "| db | attempts per request during "
                                     "the faults (x) |"));
    /* The tier chart prints each bar's mean above it ("63.3x"); its
     * hover says what that figure does not, the interval summary.md
     * prints and the seeds, and not the mean again (it said "db:
     * immediate: 63.3 x [63.1, 63.5]; 63.3x": the mean twice). */
    char *html = file_in(dir, "report.html");
    compare_numbers_of_row(md,
                           "| db | attempts per request during the "
                           "faults (x) | ",
                           html, "db: immediate: ");
    free(html);
    free(md);
    free(json);
}
END_TEST

Suite *report_compare_suite(void)
{
    Suite *s = suite_create("report_compare");
    TCase *tc = tcase_create("compare");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, every_output_and_every_run);
    tcase_add_test(tc, summary_is_the_statistics_of_the_runs);
    tcase_add_test(tc, markdown_says_what_json_says);
    tcase_add_test(tc, pdf_carries_the_results);
    tcase_add_test(tc, no_fault_no_recovery_verdict);
    tcase_add_test(tc, pipeline_runs_complete_when_their_jobs_do);
    tcase_add_test(tc, pdf_dates_follow_source_date_epoch);
    tcase_add_test(tc, another_comparison_in_the_directory_is_refused);
    tcase_add_test(tc, html_stands_alone);
    tcase_add_test(tc, stability_map_tips_where_k_rho_passes_one);
    tcase_add_test(tc, resumed_runs_only_what_is_missing);
    tcase_add_test(tc, interrupted_then_resumed);
    tcase_add_test(tc, emitted_jobs_then_merge);
    tcase_add_test(tc, tiers_carry_the_amplification_down_the_chain);
    suite_add_tcase(s, tc);
    return s;
}
