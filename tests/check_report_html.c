/*
 * check_report_html.c -- the HTML report in a browser: a document with a
 * line chart, a bar chart and a stability map is written (viz/report.h)
 * and opened in headless Chromium, Debian's `chromium`, with no driver:
 * `--dump-dom` prints the page after its script ran, `--screenshot`
 * paints it.  The URL fragment #sb-test is the script's documented test
 * hook (viz/report.js): it hovers every chart, clicks a line chart's
 * first legend entry and drags across the middle half of its x range,
 * and writes what each showed into <pre id="sb-test">.
 *
 * Chromium is found when CMake configures; .ci/setup installs it.  Only
 * when it is absent are these tests skipped, saying so on stderr.  It
 * runs with a fresh profile and no network service of its own
 * (--disable-background-networking and the rest), on file:// only.
 */
#include <cairo.h>
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chart.h"
#include "report.h"
#include "testutil.h"

static char dir[1024], html[1100], url[1200];

static bool have_chromium(void)
{
    const char *c = SB_CHROMIUM;
    if (c[0] && strstr(c, "NOTFOUND") == NULL)
        return true;
    fprintf(stderr, "report_html: SKIPPED: chromium not found when CMake "
                    "configured; the HTML report's script is not tested in a "
                    "browser (./.ci/setup installs it)\n");
    return false;
}

/* alpha is 250 req/s throughout, beta 40, over 0..100 s: a hover at the
 * plot's middle (x = 50) reads exactly those.  Bars: b is 12.5 s with
 * [10, 15].  Map: cell (1, 0) is 2 of 5 seeds tipped. */
static void build(void)
{
    snprintf(dir, sizeof dir, "%s", tu_temp_path("report-html"));
    mkdir(dir, 0777);
    snprintf(html, sizeof html, "%s/report.html", dir);
    snprintf(url, sizeof url, "file://%s", html);
    report *r;
    sb_err e;
    ck_assert_msg(report_open(&r, NULL, html, "browser test", &e) == 0, "%s",
                  e.msg);
    static double t[101], a[101], b[101];
    for (int i = 0; i <= 100; i++) {
        t[i] = i;
        a[i] = 250;
        b[i] = 40;
    }
    report_series s[2] = {{"alpha", t, a, NULL, NULL, 101, 4, 0, false, NULL},
                          {"beta", t, b, NULL, NULL, 101, 5, 0, false, NULL}};
    report_lines l = {"Load", "time (s)", "load (req/s)", s,   2,
                      NULL,   0,          false,          NAN, NAN,
                      false,  0,          NULL,           NULL};
    /* A results table as wide as a report's with ten metrics and more:
     * 16 columns of 20-character headers and cells, ~2 500 px at the
     * table's font, where the page is at most 1 120 px wide. */
    enum { WIDE = 16 };
    static const char *head[WIDE], *cells[WIDE];
    for (int c = 0; c < WIDE; c++) {
        head[c] = "a_metric_heading_wide";
        cells[c] = "12345.6 [12000, 12500]";
    }
    report_table wide = {"wide", WIDE, 1, head, cells, NULL, NULL};
    report_table_add(r, &wide);
    report_heading(r, 1, "Charts");
    report_lines_add(r, &l);
    static const char *labels[2] = {"bar-a", "bar-b"};
    static const double v[2] = {3, 12.5}, lo[2] = {2, 10}, hi[2] = {4, 15};
    report_bars bars = {
        "Recovery", "recovery (s)", 2, labels, v,    lo,   hi,
        NULL,       NULL,           0, 0,      NULL, NULL, NULL};
    report_bars_add(r, &bars);
    static const uint32_t k[2] = {0, 2}, n[2] = {5, 5};
    static const double mv[2] = {1.5, 4};
    report_map m = {
        "Map",         "load", "attempts", 2,  1,   (double[]){0.5, 0.6},
        (double[]){3}, k,      n,          mv, "s", NULL};
    report_map_add(r, &m);
    ck_assert_msg(report_close(r, &e) == 0, "%s", e.msg);
}

static char *chromium(const char *what, const char *target)
{
    char profile[1100];
    snprintf(profile, sizeof profile, "--user-data-dir=%s/profile-%s", dir,
             what[2] == 'd' ? "dom" : "shot");
    const char *argv[] = {SB_CHROMIUM,
                          "--headless",
                          "--no-sandbox",
                          "--disable-gpu",
                          "--disable-background-networking",
                          "--disable-component-update",
                          "--disable-sync",
                          "--no-first-run",
                          "--hide-scrollbars",
                          "--window-size=1200,1500",
                          profile,
                          what,
                          target,
                          NULL};
    tu_output o;
    int st = tu_run(&o, argv);
    ck_assert_msg(st == 0, "chromium failed (%d): %s", st, o.err);
    char *out = o.out;
    o.out = NULL;
    tu_output_free(&o);
    return out;
}

/* The test hook's result: the text of <pre id="sb-test">. */
static char *hook_result(void)
{
    char target[1300];
    snprintf(target, sizeof target, "%s#sb-test", url);
    char *dom = chromium("--dump-dom", target);
    char *p = strstr(dom, "<pre id=\"sb-test\">");
    ck_assert_msg(p != NULL, "the script did not run: %.300s", dom);
    p += strlen("<pre id=\"sb-test\">");
    char *end = strstr(p, "</pre>");
    ck_assert_ptr_nonnull(end);
    *end = '\0';
    char *res = strdup(p);
    free(dom);
    return res;
}

/* The script draws each series' line from the chart's data; hover
 * shows each series' value with its unit at the x under the pointer
 * (and the x with its); a legend click hides the first series (its
 * line is gone, and its button says so); a drag over the middle half
 * zooms to about [25, 75] s, with new tick labels and only the visible
 * series redrawn; bars and map cells tell their figures on hover. */
START_TEST(script_is_wired)
{
    if (!have_chromium())
        return;
    build();
    char *res = hook_result();
    /* Chromium escapes the JSON's quotes as &quot; in the DOM dump. */
    for (char *q; (q = strstr(res, "&quot;")) != NULL;)
        memmove(q + 1, q + 6, strlen(q + 6) + 1), *q = '"';
    ck_assert_msg(strstr(res, "\"tip\":\"50 salpha: 250 req/sbeta: 40 "
                              "req/s\""),
                  "%s", res);
    /* The lines are drawn by the script from the data (the page carries
     * no other drawing of them): both, alpha's through its 101 points
     * (t = 0..100, none missing). */
    ck_assert_msg(strstr(res, "\"lines\":2,\"points0\":101,"), "%s", res);
    ck_assert_msg(strstr(res, "\"hidden0\":true,\"lines1\":1,"), "%s", res);
    ck_assert_msg(strstr(res, "\"pressed0\":\"false\""), "%s", res);
    const char *z = strstr(res, "\"zoom\":[");
    ck_assert_ptr_nonnull(z);
    double z0 = strtod(z + 8, NULL), z1 = strtod(strchr(z, ',') + 1, NULL);
    /* A drag from 1/4 to 3/4 of the plot's width over 0..100. */
    ck_assert_msg(fabs(z0 - 25) < 1 && fabs(z1 - 75) < 1, "%s", res);
    ck_assert_msg(strstr(res, "\"paths\":1,"), "one series redrawn: %s", res);
    ck_assert_msg(strstr(res, "\"tipZoomed\":\"50 sbeta: 40 req/s\""), "%s",
                  res);
    const char *tk = strstr(res, "\"ticks\":");
    ck_assert_ptr_nonnull(tk);
    ck_assert_int_ge(atoi(tk + 8), 3);
    ck_assert_msg(strstr(res, "bar-a: 3.00 s [2.00, 4.00]"), "%s", res);
    /* The wide table scrolls in its own box; the page (1 200 px) does
     * not scroll sideways. */
    ck_assert_msg(strstr(res, "{\"kind\":\"page\",\"overflowX\":false}"), "%s",
                  res);
    ck_assert_msg(strstr(res, "load 0.5, attempts 3: 0 of 5 seeds never "
                              "recovered (0 %, 95 % CI 0-43 %): stable"),
                  "%s", res);
    free(res);
    /* Every cell tells its figures: the 2 of 5 one too.  Wilson's 95 %
     * interval of 2 of 5 is [0.118, 0.769] (check_report's cell_states
     * works it by hand). */
    char *h = tu_read_file(html);
    ck_assert_msg(strstr(h, "load 0.6, attempts 3: 2 of 5 seeds never "
                            "recovered (40 %, 95 % CI 12-77 %): bistable "
                            "(the seeds split); "
                            "mean recovery of the 3 others 4 s"),
                  "%s", h);
    free(h);
}
END_TEST

static long colour_pixels(cairo_surface_t *s, int r, int g, int b)
{
    const unsigned char *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    long n = 0;
    for (int y = 0; y < cairo_image_surface_get_height(s); y++)
        for (int x = 0; x < cairo_image_surface_get_width(s); x++) {
            uint32_t p =
                *(const uint32_t *)(const void *)(d + y * stride + x * 4);
            n += abs((int)((p >> 16) & 255) - r) < 30 &&
                 abs((int)((p >> 8) & 255) - g) < 30 &&
                 abs((int)(p & 255) - b) < 30;
        }
    return n;
}

static cairo_surface_t *screenshot(const char *fragment, const char *name)
{
    char png[1100], arg[1200], target[1300];
    snprintf(png, sizeof png, "%s/%s.png", dir, name);
    snprintf(arg, sizeof arg, "--screenshot=%s", png);
    snprintf(target, sizeof target, "%s%s", url, fragment);
    free(chromium(arg, target));
    cairo_surface_t *s = cairo_image_surface_create_from_png(png);
    ck_assert_msg(cairo_surface_status(s) == CAIRO_STATUS_SUCCESS, "%s: %s",
                  png, cairo_status_to_string(cairo_surface_status(s)));
    return s;
}

/* The page paints the charts: alpha's blue (palette 4, 0/114/178) and
 * beta's vermillion (palette 5, 213/94/0) lines are on the screen.
 * With the hook run, alpha is hidden and the chart redrawn zoomed: its
 * blue is gone (its legend swatch is drawn faded), beta's line is still
 * there. */
START_TEST(screenshot_shows_the_script_at_work)
{
    if (!have_chromium())
        return;
    build();
    cairo_surface_t *plain = screenshot("", "plain");
    cairo_surface_t *test = screenshot("#sb-test", "hooked");
    long blue0 = colour_pixels(plain, 0, 114, 178);
    long red0 = colour_pixels(plain, 213, 94, 0);
    long blue1 = colour_pixels(test, 0, 114, 178);
    long red1 = colour_pixels(test, 213, 94, 0);
    ck_assert_msg(blue0 > 800 && red0 > 800, "lines: %ld blue, %ld red", blue0,
                  red0);
    ck_assert_msg(blue1 < blue0 / 10, "hidden: %ld blue of %ld", blue1, blue0);
    ck_assert_msg(red1 > red0 / 2, "beta kept: %ld of %ld", red1, red0);
    cairo_surface_destroy(plain);
    cairo_surface_destroy(test);
}
END_TEST

/* An empty cell's hover says why it has no value, as the report's
 * words under the map do ("recovery not judged"): it said "no value"
 * alone.  Cell (0, 0) judged on no seed, cell (1, 0) on 5. */
START_TEST(empty_cell_says_why)
{
    char d[1100], path[1200];
    snprintf(d, sizeof d, "%s", tu_temp_path("report-html-empty"));
    mkdir(d, 0777);
    snprintf(path, sizeof path, "%s/report.html", d);
    report *r;
    sb_err e;
    ck_assert_msg(report_open(&r, NULL, path, "empty cell", &e) == 0, "%s",
                  e.msg);
    static const uint32_t k[2] = {0, 0}, n[2] = {0, 5};
    static const double mv[2] = {NAN, 4};
    report_map m = {
        "Map",         "load", "attempts", 2,  1,   (double[]){0.5, 0.6},
        (double[]){3}, k,      n,          mv, "s", "recovery was not judged"};
    report_map_add(r, &m);
    ck_assert_msg(report_close(r, &e) == 0, "%s", e.msg);
    char *h = tu_read_file(path);
    ck_assert_ptr_nonnull(h);
    ck_assert_msg(strstr(h, "load 0.5, attempts 3: no value: recovery was "
                            "not judged"),
                  "%.2000s", strstr(h, "load 0.5") ? strstr(h, "load 0.5") : h);
    free(h);
}
END_TEST

Suite *report_html_suite(void)
{
    Suite *s = suite_create("report_html");
    TCase *tc = tcase_create("browser");
    tcase_add_test(tc, script_is_wired);
    tcase_add_test(tc, empty_cell_says_why);
    tcase_add_test(tc, screenshot_shows_the_script_at_work);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}
