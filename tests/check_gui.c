/*
 * check_gui.c -- the real window, under Xvfb, driven by a script: pause,
 * inject an outage, resume, switch on A/B, take a screenshot, save the
 * run as a scenario, quit.  The screenshot is read back from the window
 * (what SDL shows), and checked where the layout says each thing is: its
 * size, each panel's series colours inside its plot area, the fault's
 * shading after the injection and not before, the client fields' state
 * colours.  The saved scenario, run headless, gives the figures the
 * window printed when it saved it.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cairo.h>

#include "chart.h"
#include "testutil.h"
#include "view.h"

#define W 1280
#define H 800

static cairo_surface_t *shot, *storm_shot;
static char out[4096], saved[1024];

/* Run the window's argv into o.  Under the sanitizers the window's
 * process is not checked for leaks: SDL leaves libdbus's connection and
 * X11's input-method state allocated at exit (a five-line SDL program
 * does the same), and the X libraries it unloaded cannot be named in a
 * suppression.  Our code in that process (app, view, session) is
 * leak-checked where it runs without SDL: the --frames test and
 * check_session. */
static void run_argv(tu_output *o, const char *const *argv)
{
    const char *asan = getenv("ASAN_OPTIONS");
    char *saved_asan = asan ? strdup(asan) : NULL;
    char window_asan[1024];
    snprintf(window_asan, sizeof window_asan, "%s%sdetect_leaks=0",
             asan ? asan : "", asan && *asan ? ":" : "");
    setenv("ASAN_OPTIONS", window_asan, 1);
    tu_run(o, argv);
    if (saved_asan) {
        setenv("ASAN_OPTIONS", saved_asan, 1);
        free(saved_asan);
    } else {
        unsetenv("ASAN_OPTIONS");
    }
}

/* Run the window once for every test of the suite. */
static void run_window(void)
{
    char script[1024], png[1024], png2[1024];
    snprintf(png, sizeof png, "%s", tu_temp_path("gui-shot.png"));
    snprintf(png2, sizeof png2, "%s", tu_temp_path("gui-storm.png"));
    snprintf(saved, sizeof saved, "%s", tu_temp_path("gui-found.ini"));
    char text[2048];
    snprintf(text, sizeof text,
             "# the test's script\n"
             "at 40s pause\n"
             "at 40s inject outage blackhole 10s\n"
             "at 40s resume\n"
             "at 45s ab on exponential+circuit_breaker\n"
             "at 100s screenshot %s\n"
             "at 100s save %s\n"
             "at 101s hide B\n"
             "at 101s zoom 55s 95s\n"
             "at 102s screenshot %s\n"
             "at 102s quit\n",
             png, saved, png2);
    snprintf(script, sizeof script, "%s", tu_write_temp("gui.script", text));
    char size[32];
    snprintf(size, sizeof size, "%dx%d", W, H);
    /* The scenario's own outage is moved past the run: the one this test
     * injects is the only fault it sees. */
    const char *argv[] = {SB_XVFB_RUN,
                          "-a",
                          "-s",
                          "-screen 0 1600x1000x24",
                          SB_BINARY,
                          "gui",
                          TU_SOURCE("scenarios/retry-storm.ini"),
                          "--set",
                          "fault.outage.start=250s",
                          "--script",
                          script,
                          "--speed",
                          "max",
                          "--size",
                          size,
                          NULL};
    tu_output o;
    run_argv(&o, argv);
    ck_assert_msg(o.status == 0, "the window exited %d: %s%s", o.status, o.out,
                  o.err);
    snprintf(out, sizeof out, "%s", o.out);
    tu_output_free(&o);
    shot = cairo_image_surface_create_from_png(png);
    ck_assert_int_eq(cairo_surface_status(shot), CAIRO_STATUS_SUCCESS);
    storm_shot = cairo_image_surface_create_from_png(png2);
    ck_assert_int_eq(cairo_surface_status(storm_shot), CAIRO_STATUS_SUCCESS);
}

static void setup(void)
{
    if (shot == NULL)
        run_window();
}

static uint32_t px_of(cairo_surface_t *img, int x, int y)
{
    const unsigned char *d = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img);
    return *(const uint32_t *)(const void *)(d + y * stride + x * 4) &
           0xffffffu;
}

static uint32_t px(int x, int y)
{
    return px_of(shot, x, y);
}

static bool near(uint32_t p, const chart_style *c, int tol)
{
    int r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;
    return abs(r - (int)lround(c->r * 255)) <= tol &&
           abs(g - (int)lround(c->g * 255)) <= tol &&
           abs(b - (int)lround(c->b * 255)) <= tol;
}

/* Pixels of colour c inside rectangle r of img. */
static long count_in(cairo_surface_t *img, chart_rect r, const chart_style *c,
                     int tol)
{
    long n = 0;
    for (int y = (int)r.y; y < (int)(r.y + r.h); y++)
        for (int x = (int)r.x; x < (int)(r.x + r.w); x++)
            n += near(px_of(img, x, y), c, tol);
    return n;
}

/* ... of the window's screenshot. */
static long count(chart_rect r, const chart_style *c, int tol)
{
    return count_in(shot, r, c, tol);
}

static view_layout layout(void)
{
    view_layout l;
    view_layout_compute(W, H, view_font_px(W, H), 2, &l);
    return l;
}

/* The plot area of panel k, as chart_panel_init lays it out (its time
 * range does not move it). */
static chart_panel plot_of(int k, double t0, double t1)
{
    view_layout l = layout();
    return view_panel_plot(&l, k, t0, t1);
}

START_TEST(screenshot_is_the_window)
{
    ck_assert_int_eq(cairo_image_surface_get_width(shot), W);
    ck_assert_int_eq(cairo_image_surface_get_height(shot), H);
}
END_TEST

/* Each panel draws its series in their colours inside its plot area,
 * A's in its cool family and B's in its warm one (view_family: slot i is
 * a panel's i-th line): at 100 s into the storm, load has A's attempts
 * (slot 1), B's offered (slot 0, drawn over A's: an open loop offers the
 * same to both) and B's attempts; goodput B's (A's is 0,
 * on the axis); queue wait A's; duplicates A's (B's are 0); the policy panel
 * B's open breakers (slot 0) and refusals (slot 1). */
START_TEST(panels_show_their_series)
{
    static const struct {
        int panel, run, slot;
    } want[] = {{0, 0, 1}, {0, 1, 0}, {0, 1, 1}, {1, 1, 0},
                {2, 0, 0}, {3, 0, 0}, {4, 1, 0}, {4, 1, 1}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        chart_panel p = plot_of(want[i].panel, 0, 120);
        const chart_style *c = &view_family[want[i].run][want[i].slot];
        long n = count(p.plot, c, 30);
        ck_assert_msg(n > 20, "panel %d has %ld pixels of run %c's colour %d",
                      want[i].panel, n, 'A' + want[i].run, want[i].slot);
    }
}
END_TEST

/* The outage injected at 40 s for 10 s is shaded over [40, 50) s in every
 * panel (Okabe-Ito vermillion at 13 % over white), and nowhere at 20 s.
 * The panels show [0, 120] s at 100 s of a 120 s window. */
START_TEST(fault_is_shaded_after_the_injection)
{
    chart_style shade = {(255 - 0.13 * (255 - 213)) / 255.0,
                         (255 - 0.13 * (255 - 94)) / 255.0,
                         (255 - 0.13 * 255) / 255.0,
                         1,
                         1,
                         0};
    for (int k = 0; k < VIEW_PANELS; k++) {
        chart_panel p = plot_of(k, 0, 120);
        int in = 0, before = 0;
        for (int i = 1; i < 10; i++) {
            int y = (int)(p.plot.y + p.plot.h * i / 10.0);
            in += near(px((int)chart_scale_map(&p.x, 45), y), &shade, 6);
            before += near(px((int)chart_scale_map(&p.x, 20), y), &shade, 6);
        }
        ck_assert_msg(in >= 5, "panel %d: the outage is not shaded (%d/9)", k,
                      in);
        ck_assert_msg(before == 0, "panel %d: shaded before the fault", k);
    }
}
END_TEST

/* A's clients (immediate retries, in the storm) are waiting on attempts
 * or have just failed; B's (a circuit breaker) are refused locally by
 * their open breakers. */
START_TEST(client_fields_show_states)
{
    view_layout l = layout();
    long waiting = count(l.field[0], &view_mode_colours[CLIENT_WAITING], 2);
    long failed = count(l.field[0], &view_mode_colours[CLIENT_GAVE_UP], 2);
    long refused = count(l.field[1], &view_mode_colours[CLIENT_REFUSED], 2);
    ck_assert_msg(waiting > 500 && failed > 500,
                  "A: %ld waiting, %ld failed pixels", waiting, failed);
    ck_assert_msg(refused > 500, "B: %ld refused pixels", refused);
}
END_TEST

/* The window printed the saved run's figures; the saved file, run
 * headless, gives the same ones, and its [expect] section holds. */
START_TEST(saved_scenario_reproduces_headless)
{
    const char *line = strstr(out, "saved ");
    ck_assert_msg(line != NULL, "%s", out);
    double amp, success, p99;
    unsigned long long dups;
    char fmt[1200];
    snprintf(fmt, sizeof fmt,
             "saved %s: 100 s, amplification %%lf, success ratio %%lf, "
             "duplicates %%llu, p99 %%lf ms",
             saved);
    ck_assert_int_eq(sscanf(line, fmt, &amp, &success, &dups, &p99), 4);
    char json[1024];
    snprintf(json, sizeof json, "%s", tu_temp_path("gui-found.json"));
    tu_output o;
    tu_stormbench(&o,
                  (const char *[]){"run", saved, "--json", json, "-q", NULL});
    ck_assert_msg(o.status == 0, "exit %d: %s%s", o.status, o.out, o.err);
    tu_output_free(&o);
    char *j = tu_read_file(json);
    ck_assert_double_eq_tol(tu_json_number(j, "amplification"), amp, 5e-5);
    ck_assert_double_eq_tol(tu_json_number(j, "success_ratio"), success, 5e-5);
    ck_assert_double_eq(tu_json_number(j, "duplicates"), (double)dups);
    ck_assert_double_eq_tol(tu_json_number(j, "latency_ms.p99"), p99, 0.05);
    ck_assert_double_eq(tu_json_number(j, "duration_s"), 100);
    free(j);
}
END_TEST

static bool same_bytes(const char *a, const char *b)
{
    FILE *f = fopen(a, "rb"), *g = fopen(b, "rb");
    bool same = f && g;
    int x = 0, y = 0;
    while (same && x != EOF) {
        x = getc(f);
        y = getc(g);
        same = x == y;
    }
    if (f)
        fclose(f);
    if (g)
        fclose(g);
    return same;
}

/* The second screenshot: A alone (B hidden), zoomed on [55, 95] s, well
 * into the storm the outage at [40, 50) s left behind: A's goodput is 0
 * across the whole view. */

/* Pixels of img in r that pass is(pixel). */
static long count_if(cairo_surface_t *img, chart_rect r, bool (*is)(uint32_t))
{
    long n = 0;
    for (int y = (int)r.y; y < (int)(r.y + r.h); y++)
        for (int x = (int)r.x; x < (int)(r.x + r.w); x++)
            n += is(px_of(img, x, y));
    return n;
}

/* The baseline's dashed grey: chart_ink (40, 40, 40) at alpha 0.5, a
 * 1-pixel line that falls across two rows, the darker of them between
 * 40 + 0.5 x 215 = 147 (on a row) and 255 - 0.5 x 0.5 x 215 = 201 (half
 * on each); the grid's lines, alpha 0.12, are 229 and do not pass. */
static bool baseline_grey(uint32_t p)
{
    int r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;
    return r == g && g == b && r >= 145 && r <= 205;
}

/* The fault names' brown, RGB(140, 59, 0), antialiased over white: red
 * well above green, green above blue. */
static bool brownish(uint32_t p)
{
    int r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;
    return r - b > 60 && r > g + 20 && g > b;
}

/* The goodput axis keeps the baseline on it: some row of the goodput
 * plot (its foot left out, where the 0 lines are) is at least 30 % the
 * baseline's dashed grey (a dash pattern is half on).  The axis used to
 * fit 0-1 to the zeros and the baseline (about 137/s) fell off it: no
 * such row (1 pixel at best). */
START_TEST(baseline_stays_when_goodput_is_zero)
{
    chart_panel p = plot_of(1, 55, 95);
    long best = 0;
    for (int y = (int)p.plot.y; y < (int)(p.plot.y + p.plot.h) - 4; y++) {
        chart_rect row = {p.plot.x, y, p.plot.w, 1};
        long n = count_if(storm_shot, row, baseline_grey);
        best = n > best ? n : best;
    }
    ck_assert_msg(best >= 0.3 * p.plot.w,
                  "no baseline: at best %ld of %.0f pixels of a row", best,
                  p.plot.w);
}
END_TEST

/* The outage that set the storm off ended at 50 s, before the view, and
 * is still named at the left of every panel's top ("<- outage at 40 s,
 * ended at 50 s", in the fault names' brown).  It used to vanish with
 * its shading: no brown there in any panel (0 pixels in the load
 * panel). */
START_TEST(cause_is_named_out_of_view)
{
    view_layout l = layout();
    for (int k = 0; k < VIEW_PANELS; k++) {
        chart_panel p = plot_of(k, 55, 95);
        chart_rect top = {p.plot.x, p.plot.y, p.plot.w / 3, l.font_px * 1.3};
        long n = count_if(storm_shot, top, brownish);
        ck_assert_msg(n > 60, "panel %d: %ld pixels of the fault's name", k, n);
    }
}
END_TEST

/* --frames renders the same app with no window: frame k shows the run
 * after k / fps seconds of wall time at the app's speed, so at speed 10,
 * 1 frame/s, until 30 s there are frames 0..3 (t = 0, 10, 20, 30 s).
 * Twice, the same bytes: frames are a function of their inputs. */
START_TEST(frames_are_deterministic)
{
    char dir[2][1024];
    for (int k = 0; k < 2; k++) {
        snprintf(dir[k], sizeof dir[k], "%s",
                 tu_temp_path(k ? "frames-b" : "frames-a"));
        ck_assert_int_eq(mkdir(dir[k], 0755), 0);
        tu_output o;
        tu_stormbench(&o, (const char *[]){
                              "gui", TU_SOURCE("scenarios/retry-storm.ini"),
                              "--frames", dir[k], "--speed", "10", "--fps", "1",
                              "--until", "30s", "--size", "960x600", NULL});
        ck_assert_msg(o.status == 0, "exit %d: %s%s", o.status, o.out, o.err);
        tu_output_free(&o);
    }
    char a[1200], b[1200];
    for (int i = 0; i < 5; i++) {
        snprintf(a, sizeof a, "%s/frame-%05d.png", dir[0], i);
        snprintf(b, sizeof b, "%s/frame-%05d.png", dir[1], i);
        struct stat sa, sb;
        if (i == 4) {
            ck_assert_msg(stat(a, &sa) != 0 && stat(b, &sb) != 0,
                          "a fifth frame");
            break;
        }
        ck_assert_msg(stat(a, &sa) == 0 && stat(b, &sb) == 0,
                      "frame %d missing", i);
        cairo_surface_t *f = cairo_image_surface_create_from_png(a);
        ck_assert_int_eq(cairo_image_surface_get_width(f), 960);
        ck_assert_int_eq(cairo_image_surface_get_height(f), 600);
        cairo_surface_destroy(f);
        ck_assert_msg(same_bytes(a, b), "frame %d differs", i);
    }
}
END_TEST

/* A pipeline's run draws, in the panel of duplicates, its dead letters
 * and alerts: batch-ingestion with whole-batch retries raises warnings
 * (sky blue, dashed) and critical alerts (blue) from about 7
 * minutes on, counted on an axis of their own; the frame at 15 min has
 * both lines in the panel's plot, and the duplicates' vermillion. */
START_TEST(pipeline_panel_shows_alerts)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", tu_temp_path("frames-pipe"));
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    char size[32];
    snprintf(size, sizeof size, "%dx%d", W, H);
    tu_output o;
    tu_stormbench(&o, (const char *[]){
                          "gui", TU_SOURCE("scenarios/batch-ingestion.ini"),
                          "--set", "pipeline.on_failure=fail_fast", "--frames",
                          dir, "--speed", "300", "--fps", "1", "--until", "15m",
                          "--span", "15m", "--size", size, NULL});
    ck_assert_msg(o.status == 0, "exit %d: %s%s", o.status, o.out, o.err);
    tu_output_free(&o);
    char png[1200];
    snprintf(png, sizeof png, "%s/frame-00002.png", dir);
    cairo_surface_t *f = cairo_image_surface_create_from_png(png);
    ck_assert_int_eq(cairo_surface_status(f), CAIRO_STATUS_SUCCESS);
    chart_panel p = plot_of(3, 0, 900);
    static const int colours[] = {1, 4, 5};
    for (size_t i = 0; i < sizeof colours / sizeof *colours; i++) {
        long n = count_in(f, p.plot, &chart_palette[colours[i]], 30);
        ck_assert_msg(n > 20, "the pipeline panel has %ld pixels of colour %d",
                      n, colours[i]);
    }
    cairo_surface_destroy(f);
}
END_TEST

/* Without a display there is no window to show: SDL would fall back on
 * its offscreen driver and run forever with nothing on screen (it did,
 * at 85 % of a core).  The window must say it cannot open and exit 2.
 * The script quits at 1 s, so a window that opened anyway exits 0 at
 * once instead of hanging the test. */
START_TEST(no_display_is_an_error)
{
    char script[1024];
    snprintf(script, sizeof script, "%s",
             tu_write_temp("gui-nodisplay.script", "at 1s quit\n"));
    unsetenv("DISPLAY");
    unsetenv("WAYLAND_DISPLAY");
    unsetenv("SDL_VIDEODRIVER");
    tu_output o;
    tu_stormbench(
        &o, (const char *[]){"gui", TU_SOURCE("scenarios/retry-storm.ini"),
                             "--speed", "max", "--script", script, NULL});
    ck_assert_msg(o.status == 2, "exit %d: %s%s", o.status, o.out, o.err);
    /* Our line, whatever SDL's probes of Wayland printed before it. */
    const char *line = strstr(o.err, "stormbench gui: cannot open a window");
    ck_assert_msg(line && (line == o.err || line[-1] == '\n'), "%s", o.err);
    ck_assert_msg(strstr(o.err, "--frames") != NULL, "%s", o.err);
    tu_output_free(&o);
}
END_TEST

/* The window saves the run it ran: --param over the scenario's own
 * parameter (the later value, once: both used to be written, and the
 * file did not load, "duplicate key"), and a --policy-plugin beside the
 * scenario's plug-in (two plugin lines, which the loader used to refuse
 * the same way).  The saved file runs headless with them. */
START_TEST(saved_scenario_keeps_param_and_plugins)
{
    char ini[2048], dir[1024], script[1024], saved_ini[1024];
    snprintf(dir, sizeof dir, "%s", tu_temp_path("frames-save"));
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(saved_ini, sizeof saved_ini, "%s/saved.ini", dir);
    snprintf(ini, sizeof ini,
             "[scenario]\nname = t\nduration = 60s\nwarmup = 5s\n"
             "[clients]\ncount = 20\nrate = 2/s\n[server]\nworkers = 4\n"
             "[policy]\nname = immediate\nmax_attempts = 5\n"
             "plugin = %s/tests/plugins/libsbt_ok.so\n",
             SB_BUILD_DIR);
    char path[1024], text[1200];
    snprintf(path, sizeof path, "%s", tu_write_temp("gui-save.ini", ini));
    snprintf(text, sizeof text, "at 30s save %s\nat 30s quit\n", saved_ini);
    snprintf(script, sizeof script, "%s",
             tu_write_temp("gui-save.script", text));
    tu_output o;
    tu_stormbench(&o, (const char *[]){"gui", path, "--param", "max_attempts=3",
                                       "--policy-plugin",
                                       SB_BUILD_DIR "/policies/examples/"
                                                    "libcapped_backoff.so",
                                       "--frames", dir, "--speed", "max",
                                       "--fps", "1", "--script", script, NULL});
    ck_assert_msg(o.status == 0, "exit %d: %s%s", o.status, o.out, o.err);
    ck_assert_msg(strstr(o.out, "saved ") != NULL, "%s%s", o.out, o.err);
    tu_output_free(&o);
    tu_stormbench(&o, (const char *[]){"run", saved_ini, NULL});
    ck_assert_msg(o.status == 0, "exit %d: %s%s", o.status, o.out, o.err);
    ck_assert_msg(strstr(o.out, "policy    immediate (max_attempts=3)\n"), "%s",
                  o.out);
    tu_output_free(&o);
    char *text_saved = tu_read_file(saved_ini);
    ck_assert_ptr_nonnull(strstr(text_saved, "libsbt_ok.so\nplugin = "));
    free(text_saved);
}
END_TEST

/* ---- A scenario whose policy is imported --------------------------------
 *
 * The window's save (the w key) writes [policy] from = FILE#SELECTOR
 * again, FILE absolute, whether the policy came from the scenario's own
 * [policy] from or from --policy-from; the saved file runs exactly as the
 * run the window showed: the same JSON as `run` of the original for the
 * saved duration, but for the file's name and the saved [expect]. */

/* The Envoy example beside a scenario; policy is its [policy] lines. */
static const char *envoy_scenario(const char *name, const char *policy)
{
    char *yaml = tu_read_file(TU_SOURCE("tests/import/envoy-route.yaml"));
    ck_assert_ptr_nonnull(yaml);
    tu_write_temp("gui-envoy.yaml", yaml);
    free(yaml);
    static char text[2048], path[1024];
    snprintf(text, sizeof text,
             "[scenario]\nname = gfrom\nduration = 120s\nseed = 3\n"
             "warmup = 5s\n[clients]\ncount = 50\nrate = 2/s\n"
             "[server]\nworkers = 4\nservice = exp(20ms)\n"
             "[fault.outage]\ntype = outage\nstart = 10s\nduration = 10s\n"
             "[policy]\n%s",
             policy);
    snprintf(path, sizeof path, "%s", tu_write_temp(name, text));
    return path;
}

/* The window under Xvfb with script "at 30s key w", saving into dir;
 * extra: one more option and its value, or NULLs.  The saved file's
 * path (DIR/gfrom-t30.ini, the w key's default name) into kept. */
static void window_saves(const char *ini, const char *dir, const char *opt,
                         const char *val, char *kept, size_t len)
{
    char script[1024];
    snprintf(script, sizeof script, "%s",
             tu_write_temp("gui-from.script", "at 30s key w\nat 30s quit\n"));
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    const char *argv[] = {
        SB_XVFB_RUN, "-a",      "-s",  "-screen 0 1600x1000x24",
        SB_BINARY,   "gui",     ini,   "--script",
        script,      "--speed", "max", "--size",
        "1280x800",  "-o",      dir,   opt,
        val,         NULL};
    tu_output o;
    run_argv(&o, argv);
    ck_assert_msg(o.status == 0, "the window exited %d: %s%s", o.status, o.out,
                  o.err);
    snprintf(kept, len, "%s/gfrom-t30.ini", dir);
    char said[1200];
    snprintf(said, sizeof said, "saved %s: 30 s", kept);
    ck_assert_msg(strstr(o.out, said), "'%s' not in: %s", said, o.out);
    tu_output_free(&o);
}

/* The saved file's [policy] names the import, not the stack. */
static void names_the_import(const char *kept, const char *yaml)
{
    char *text = tu_read_file(kept);
    ck_assert_ptr_nonnull(text);
    const char *pol = strstr(text, "\n[policy]\n");
    ck_assert_msg(pol != NULL, "%s", text);
    char want[1200];
    snprintf(want, sizeof want, "\n[policy]\nfrom = %s#api\n", yaml);
    ck_assert_msg(strstr(text, want), "'%s' not in:\n%s", want, text);
    const char *next = strstr(pol + 1, "\n[");
    const char *name = strstr(pol, "\nname = ");
    ck_assert_msg(name == NULL || (next && name > next),
                  "the stack is named beside from:\n%s", text);
    free(text);
}

START_TEST(saved_scenario_keeps_policy_from)
{
    char dir[1024], kept[1100], yaml[1024];
    snprintf(yaml, sizeof yaml, "%s", tu_temp_path("gui-envoy.yaml"));
    /* 1: the scenario's own [policy] from, relative to it. */
    char from[1100];
    snprintf(from, sizeof from, "from = %s#api\n", strrchr(yaml, '/') + 1);
    const char *ini = envoy_scenario("gui-from.ini", from);
    char orig[1024];
    snprintf(orig, sizeof orig, "%s", ini);
    snprintf(dir, sizeof dir, "%s", tu_temp_path("gui-from-1"));
    window_saves(orig, dir, NULL, NULL, kept, sizeof kept);
    names_the_import(kept, yaml);
    char *a = tu_run_json_tail("gfrom-a.json", (const char *[]){kept, NULL});
    char *b = tu_run_json_tail(
        "gfrom-b.json",
        (const char *[]){orig, "--set", "scenario.duration=30s", NULL});
    ck_assert_msg(strcmp(a, b) == 0, "the saved scenario runs differently");
    /* The stack acted: in the outage at 10-20 s it retried, or its
     * breaker (7 consecutive 5xx) refused. */
    ck_assert(tu_json_number(a, "attempts") > tu_json_number(a, "offered") ||
              tu_json_number(a, "failures.refused") > 0);
    free(a);
    free(b);
    /* 2: --policy-from on a scenario without it. */
    ini = envoy_scenario("gui-plain.ini", "name = none\n");
    snprintf(orig, sizeof orig, "%s", ini);
    char arg[1100];
    snprintf(arg, sizeof arg, "%s#api", yaml);
    snprintf(dir, sizeof dir, "%s", tu_temp_path("gui-from-2"));
    window_saves(orig, dir, "--policy-from", arg, kept, sizeof kept);
    names_the_import(kept, yaml);
    a = tu_run_json_tail("gfrom-c.json", (const char *[]){kept, NULL});
    b = tu_run_json_tail("gfrom-d.json",
                         (const char *[]){orig, "--policy-from", arg, "--set",
                                          "scenario.duration=30s", NULL});
    ck_assert_msg(strcmp(a, b) == 0, "the saved scenario runs differently");
    free(a);
    free(b);
}
END_TEST

Suite *gui_suite(void)
{
    Suite *s = suite_create("gui");
    TCase *tc = tcase_create("window");
    tcase_set_timeout(tc, 300);
    tcase_add_unchecked_fixture(tc, setup, NULL);
    tcase_add_test(tc, screenshot_is_the_window);
    tcase_add_test(tc, panels_show_their_series);
    tcase_add_test(tc, fault_is_shaded_after_the_injection);
    tcase_add_test(tc, client_fields_show_states);
    tcase_add_test(tc, saved_scenario_reproduces_headless);
    tcase_add_test(tc, baseline_stays_when_goodput_is_zero);
    tcase_add_test(tc, cause_is_named_out_of_view);
    suite_add_tcase(s, tc);
    TCase *fw = tcase_create("save from");
    tcase_set_timeout(fw, 300);
    tcase_add_test(fw, saved_scenario_keeps_policy_from);
    suite_add_tcase(s, fw);
    TCase *fr = tcase_create("frames");
    tcase_set_timeout(fr, 300);
    tcase_add_test(fr, frames_are_deterministic);
    tcase_add_test(fr, pipeline_panel_shows_alerts);
    tcase_add_test(fr, saved_scenario_keeps_param_and_plugins);
    suite_add_tcase(s, fr);
    TCase *nd = tcase_create("no display");
    tcase_add_test(nd, no_display_is_an_error);
    suite_add_tcase(s, nd);
    return s;
}
