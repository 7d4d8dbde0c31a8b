/*
 * check_gui_mouse.c -- the real window under Xvfb, driven with the mouse
 * by xdotool, as a person drives it: the run pauses at 30 s (its
 * script), then the mouse chooses an injection in the menu, steps its
 * size and length, injects it; drags the workers slider; takes a line
 * off the load panel by its legend; switches A/B on and picks B's policy
 * and a layer in the picker; zooms with the wheel; exports the series,
 * the view and the run; and resumes (the script quits at 31 s).
 *
 * Where to click comes from the app itself, driven the same way in this
 * process and drawn at the window's size (app_hits): the window is then
 * clicked where it drew each control.  What it did is checked three
 * ways: each action's script line in its output, the scenarios it saved
 * (the faults at the times and sizes chosen, B's with B's policy), and
 * the screen as the X server shows it (read by xshot, not by the
 * program): B's field is there, and the line switched off is not.
 */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
#include "compiler.h"
#include "controls.h"
#include "picker.h"
#include "scenario.h"
#include "testutil.h"

#define W 1280
#define H 800

static scenario sc;
static app *twin;
static cairo_surface_t *surf;
static cairo_t *cr;
static char steps[16384];
static size_t used;

/* The app as the window runs it: retry-storm as shipped, paused at 30 s
 * by its script, policy cycle as the CLI makes it; what it exports goes
 * to out_dir, out of the window's way. */
static void open_twin(const char *out_dir)
{
    sb_err e;
    if (scenario_load(TU_SOURCE("scenarios/retry-storm.ini"), NULL, 0, &sc,
                      &e) != 0)
        ck_abort_msg("%s", e.msg);
    static const char *const cycle[] = {"immediate", "none", "exponential"};
    app_options o;
    memset(&o, 0, sizeof o);
    o.cfg = &sc.cfg;
    o.policy = "immediate";
    o.params = sc.settings;
    o.n_params = sc.n_settings;
    o.cycle = cycle;
    o.n_cycle = 3;
    o.speed = 0;
    o.script = tu_write_temp("mouse-twin.script", "at 30s pause\n");
    o.out_dir = out_dir;
    o.recording = true;
    if (app_create(&o, &twin, &e) != 0)
        ck_abort_msg("%s", e.msg);
    surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
    cr = cairo_create(surf);
    while (app_now(twin) < 30 * NS_PER_S)
        app_advance(twin, 1.0, INFINITY);
    app_draw(twin, cr, W, H);
}

static void say(const char *fmt, ...) SB_PRINTF(1, 2);

static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(steps + used, sizeof steps - used, fmt, ap);
    va_end(ap);
    ck_assert(n > 0 && used + (size_t)n < sizeof steps);
    used += (size_t)n;
}

static chart_rect where(int kind, int id, int arg)
{
    const view_hits *h = app_hits(twin);
    for (int i = h->n - 1; i >= 0; i--)
        if (h->hit[i].kind == kind && h->hit[i].a == id &&
            (kind != HIT_CONTROL || h->hit[i].b == arg))
            return h->hit[i].r;
    ck_abort_msg("the twin drew no hit %d %d %d", kind, id, arg);
    return (chart_rect){0, 0, 0, 0};
}

/* Click the control in the twin, and write the same click for xdotool. */
static void click(int kind, int id, int arg)
{
    chart_rect r = where(kind, id, arg);
    double x = r.x + r.w / 2, y = r.y + r.h / 2;
    app_pointer(twin, x, y, true);
    app_button(twin, x, y, true);
    app_button(twin, x, y, false);
    app_draw(twin, cr, W, H);
    say("xdotool mousemove --window \"$W\" %.0f %.0f click 1\nsleep 0.2\n", x,
        y);
}

static int catalogue_index(const char *name)
{
    static picker_catalogue c;
    picker_catalogue_load(&c, NULL, 0);
    for (int i = 0; i < c.n; i++)
        if (strcmp(c.name[i], name) == 0)
            return i;
    ck_abort_msg("%s not offered", name);
    return -1;
}

/* The person's session, in the twin and as the driver's lines. */
static void session_by_mouse(const char *shot)
{
    click(HIT_CONTROL, CTL_KIND, 0);
    click(HIT_CONTROL, CTL_KIND_PICK, 2); /* latency */
    click(HIT_CONTROL, CTL_SIZE, +1);     /* 500 ms -> 1 s */
    click(HIT_CONTROL, CTL_LENGTH, +1);   /* 10 s -> 20 s */
    click(HIT_CONTROL, CTL_INJECT, 0);
    /* The workers slider, dragged to 5/6 of its 1-64 log scale: 32. */
    chart_rect s = where(HIT_CONTROL, CTL_SLIDER, CHANGE_WORKERS);
    double y = s.y + s.h / 2, x0 = s.x + s.w * 0.2, x1 = s.x + s.w * 5 / 6;
    app_pointer(twin, x0, y, true);
    app_button(twin, x0, y, true);
    app_pointer(twin, x1, y, true);
    app_button(twin, x1, y, false);
    app_draw(twin, cr, W, H);
    say("xdotool mousemove --window \"$W\" %.0f %.0f mousedown 1\n"
        "sleep 0.2\nxdotool mousemove --window \"$W\" %.0f %.0f\nsleep 0.2\n"
        "xdotool mouseup 1\nsleep 0.2\n",
        x0, y, x1, y);
    click(HIT_LEGEND, LINE_ATTEMPTS, 0);
    click(HIT_CONTROL, CTL_AB, 0); /* B: the next policy, none */
    click(HIT_POLICY, 1, 0);
    click(HIT_CONTROL, CTL_PICK_BASE, catalogue_index("exponential"));
    click(HIT_CONTROL, CTL_PICK_LAYER, catalogue_index("token_bucket"));
    click(HIT_CONTROL, CTL_PICK_CLOSE, 0);
    chart_rect p = where(HIT_PANEL, 1, 0);
    app_wheel(twin, p.x + p.w / 2, p.y + p.h / 2, 1);
    app_draw(twin, cr, W, H);
    say("xdotool mousemove --window \"$W\" %.0f %.0f click 4\nsleep 0.2\n",
        p.x + p.w / 2, p.y + p.h / 2);
    click(HIT_CONTROL, CTL_EXPORT, EXPORT_CSV);
    click(HIT_CONTROL, CTL_EXPORT, EXPORT_PNG);
    click(HIT_CONTROL, CTL_EXPORT, EXPORT_SVG);
    click(HIT_CONTROL, CTL_EXPORT, EXPORT_SCENARIO);
    /* The screen as the X server has it, the pointer off the panels. */
    chart_rect t = where(HIT_TIMELINE, 0, 0);
    say("xdotool mousemove --window \"$W\" %.0f %.0f\nsleep 0.5\n"
        "\"%s\" \"%s\" || exit 4\n",
        t.x + 2, t.y - 4, SB_XSHOT, shot);
    click(HIT_CONTROL, CTL_PLAY, 0);
}

static void assert_has(const char *text, const char *what)
{
    ck_assert_msg(strstr(text, what) != NULL, "'%s' not in:\n%s", what, text);
}

/* Pixels of colour c (within 6 of each channel) inside r of img. */
static long count(cairo_surface_t *img, chart_rect r, const chart_style *c)
{
    const unsigned char *d = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img);
    long n = 0;
    for (int y = (int)r.y; y < (int)(r.y + r.h); y++)
        for (int x = (int)r.x; x < (int)(r.x + r.w); x++) {
            uint32_t p =
                *(const uint32_t *)(const void *)(d + y * stride + x * 4);
            n += abs((int)((p >> 16) & 255) - (int)lround(c->r * 255)) <= 6 &&
                 abs((int)((p >> 8) & 255) - (int)lround(c->g * 255)) <= 6 &&
                 abs((int)(p & 255) - (int)lround(c->b * 255)) <= 6;
        }
    return n;
}

/* x as cairo's SVG writes a percentage: six decimals at most, trailing
 * zeros (and a bare point) dropped: 10, 33.72549. */
static void svg_number(double x, char *buf, size_t len)
{
    snprintf(buf, len, "%.6f", x);
    size_t n = strlen(buf);
    while (n > 0 && buf[n - 1] == '0')
        buf[--n] = '\0';
    if (n > 0 && buf[n - 1] == '.')
        buf[--n] = '\0';
}

/* cairo's SVG writes a fill colour as rgb(R%,G%,B%). */
static bool svg_has_fill(const char *svg, const chart_style *c)
{
    char want[128], r[32], g[32], b[32];
    svg_number(c->r * 100, r, sizeof r);
    svg_number(c->g * 100, g, sizeof g);
    svg_number(c->b * 100, b, sizeof b);
    snprintf(want, sizeof want, "rgb(%s%%,%s%%,%s%%)", r, g, b);
    return strstr(svg, want) != NULL;
}

/* The rightmost column in r of img with a pixel darker than 100 of 255
 * (the footer's message is drawn at 0.1 grey on 0.96), or -1. */
static int ink_right(cairo_surface_t *img, chart_rect r)
{
    const unsigned char *d = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img);
    for (int x = (int)(r.x + r.w) - 1; x >= (int)r.x; x--)
        for (int y = (int)r.y; y < (int)(r.y + r.h); y++) {
            uint32_t p =
                *(const uint32_t *)(const void *)(d + y * stride + x * 4);
            if (((p >> 8) & 255) < 100)
                return x;
        }
    return -1;
}

/* The PNG shows the window as it was when its button was pressed: its
 * footer says the export with one script line, not the CSV export's
 * message before it with its note and then the PNG's (both were there:
 * the note was added to whatever the footer said).  The message's ink
 * ends where that text, in the footer's font, ends: within a pixel of
 * anti-aliasing, and a character or more short of it with a second
 * note or the CSV's message. */
static void assert_footer_one_note(cairo_surface_t *img, const char *png,
                                   const view_layout *l)
{
    char want[1400];
    snprintf(want, sizeof want,
             "screenshot %s      (as a script line: at 30s export png)", png);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 8, 8);
    cairo_t *c = cairo_create(s);
    double f = l->font_px;
    chart_font(c, f * 0.9, true);
    double end = f * 0.6 + chart_text_width(c, want);
    cairo_destroy(c);
    cairo_surface_destroy(s);
    /* The message's line: from the status box's top to below its
     * baseline (s.y + 1.1 f), above the hints' line (s.y + 2.45 f). */
    chart_rect band = {0, l->status.y, l->status.w, f * 1.5};
    int right = ink_right(img, band);
    ck_assert_msg(fabs(right - end) <= 2.0,
                  "the footer's message ends at x = %d, '%s' at %.1f", right,
                  want, end);
}

/* The view exported by its PNG and SVG buttons: the PNG is the window's
 * picture at its size in pixels, B's field in it as on the screen; the
 * SVG is the same view in vector form at the window's size, with A's
 * and B's lines and fields in their colours. */
static void assert_view_exported(const char *dir, const view_layout *l)
{
    char png[1200], svg[1200];
    snprintf(png, sizeof png, "%s/retry-storm-t30.png", dir);
    snprintf(svg, sizeof svg, "%s/retry-storm-t30.svg", dir);
    cairo_surface_t *img = cairo_image_surface_create_from_png(png);
    ck_assert_msg(cairo_surface_status(img) == CAIRO_STATUS_SUCCESS, "%s: %s",
                  png, cairo_status_to_string(cairo_surface_status(img)));
    ck_assert_int_eq(cairo_image_surface_get_width(img), W);
    ck_assert_int_eq(cairo_image_surface_get_height(img), H);
    long idle = count(img, l->field[1], &view_mode_colours[CLIENT_IDLE]);
    ck_assert_msg(idle > 500, "B's field in the PNG: %ld idle pixels", idle);
    assert_footer_one_note(img, png, l);
    cairo_surface_destroy(img);
    char *text = tu_read_file(svg);
    ck_assert_msg(text != NULL, "%s was not written", svg);
    char size[96];
    snprintf(size, sizeof size, "width=\"%dpt\" height=\"%dpt\"", W, H);
    assert_has(text, "<svg");
    assert_has(text, size);
    ck_assert_msg(svg_has_fill(text, &view_mode_colours[CLIENT_IDLE]),
                  "no idle cell in the SVG");
    ck_assert_msg(svg_has_fill(text, &view_mode_colours[CLIENT_WAITING]),
                  "no waiting cell in the SVG");
    free(text);
}

START_TEST(window_driven_with_the_mouse)
{
    char dir[1024], script[1200], driver[1200], shot[1200], size[32];
    snprintf(dir, sizeof dir, "%s", tu_temp_path("mouse"));
    mkdir(dir, 0755);
    snprintf(shot, sizeof shot, "%s/screen.png", dir);
    char text[2048];
    snprintf(text, sizeof text,
             "at 30s pause\n"
             "at 30s export csv %s/ready.csv\n"
             "at 31s quit\n",
             dir);
    snprintf(script, sizeof script, "%s", tu_write_temp("mouse.script", text));
    char twin_dir[1200];
    snprintf(twin_dir, sizeof twin_dir, "%s/twin", dir);
    mkdir(twin_dir, 0755);
    open_twin(twin_dir);
    session_by_mouse(shot);
    snprintf(size, sizeof size, "%dx%d", W, H);
    /* The driver: start the window, wait for the pause, click. */
    char *body = malloc(sizeof steps + 4096);
    snprintf(body, sizeof steps + 4096,
             "#!/bin/sh\n"
             "\"%s\" gui \"%s\" --script \"%s\" --speed max --size %s "
             "-o \"%s\" > \"%s/log\" 2>&1 &\n"
             "pid=$!\n"
             "n=0\n"
             "while [ ! -f \"%s/ready.csv\" ]; do\n"
             "  n=$((n + 1)); [ $n -gt 600 ] && exit 3; sleep 0.05\n"
             "done\n"
             "W=$(xdotool search --sync --name 'stormbench: retry-storm' |"
             " head -1)\n"
             "sleep 0.2\n"
             "%s"
             "wait $pid\n",
             SB_BINARY, TU_SOURCE("scenarios/retry-storm.ini"), script, size,
             dir, dir, dir, steps);
    snprintf(driver, sizeof driver, "%s",
             tu_write_temp("mouse-driver.sh", body));
    free(body);
    chmod(driver, 0755);
    tu_output o;
    tu_run(&o, (const char *[]){SB_XVFB_RUN, "-a", "-s",
                                "-screen 0 1600x1000x24", driver, NULL});
    char logp[1200];
    snprintf(logp, sizeof logp, "%s/log", dir);
    char *log = tu_read_file(logp);
    ck_assert_msg(o.status == 0, "driver exited %d: %s%s\n%s", o.status, o.out,
                  o.err, log);
    tu_output_free(&o);
    /* Each action, said as a script line ("script: at ..." on stdout). */
    static const char *const lines[] = {
        "at 30s inject latency 1s 20s",
        "at 30s workers 32",
        "at 30s hide attempts",
        "at 30s ab on",
        "at 30s policy B exponential",
        "at 30s policy B exponential+token_bucket",
        "at 30s zoom live 96s",
        "at 30s export csv",
        "at 30s export png",
        "at 30s export svg",
        "at 30s export scenario",
        "at 30s resume"};
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        assert_has(log, lines[i]);
    free(log);
    /* The scenarios: A's and B's, with the latency from 30 s for 20 s of
     * 1 s and 32 workers from 30 s (the run saved at 30 s ends there: the
     * faults that started before are in it, none started at its end). */
    char pa[1200], pb[1200];
    snprintf(pa, sizeof pa, "%s/retry-storm-t30.ini", dir);
    snprintf(pb, sizeof pb, "%s/retry-storm-t30-B.ini", dir);
    char *a = tu_read_file(pa), *b = tu_read_file(pb);
    ck_assert_msg(a && b, "the scenarios were not saved");
    assert_has(a, "[policy]\nname = immediate\n");
    assert_has(b, "[policy]\nname = exponential+token_bucket\n");
    free(a);
    free(b);
    /* The screen: B's field beside A's; attempts switched off. */
    cairo_surface_t *img = cairo_image_surface_create_from_png(shot);
    ck_assert_int_eq(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
    int ox = (1600 - W) / 2, oy = (1000 - H) / 2; /* centred */
    view_layout l;
    view_layout_compute(W, H, view_font_px(W, H), 2, &l);
    chart_rect fb = l.field[1];
    fb.x += ox;
    fb.y += oy;
    long idle = count(img, fb, &view_mode_colours[CLIENT_IDLE]);
    ck_assert_msg(idle > 500, "B's field: %ld idle pixels", idle);
    chart_panel p = view_panel_plot(&l, 0, 0, 1);
    p.plot.x += ox;
    p.plot.y += oy;
    ck_assert_int_eq(count(img, p.plot, &view_family[0][1]), 0);
    ck_assert_int_eq(count(img, p.plot, &view_family[1][1]), 0);
    ck_assert_int_gt(count(img, p.plot, &view_family[1][0]), 20);
    cairo_surface_destroy(img);
    assert_view_exported(dir, &l);
    app_destroy(twin);
    cairo_destroy(cr);
    cairo_surface_destroy(surf);
}
END_TEST

/* The window asked to shrink to 500x300 (as a window manager's resize
 * would) stays at its minimum, 960x600 (GUI_MIN_WIDTH x GUI_MIN_HEIGHT:
 * below that its labels overlap), and draws the whole view at that size:
 * its screenshot, taken with 's' after the resize, is 960x600, and A's
 * field, where the layout for 960x600 puts it, holds its cells. */
START_TEST(window_keeps_its_minimum_size)
{
    char dir[1024], script[1200], driver[1200], shot[1200];
    snprintf(dir, sizeof dir, "%s", tu_temp_path("minsize"));
    mkdir(dir, 0755);
    char text[1400];
    snprintf(text, sizeof text,
             "at 20s pause\nat 20s export csv %s/ready.csv\n", dir);
    snprintf(script, sizeof script, "%s",
             tu_write_temp("minsize.script", text));
    char *body = malloc(8192);
    snprintf(body, 8192,
             "#!/bin/sh\n"
             "\"%s\" gui \"%s\" --script \"%s\" --speed max --size "
             "1280x800 -o \"%s\" > \"%s/log\" 2>&1 &\n"
             "pid=$!\n"
             "n=0\n"
             "while [ ! -f \"%s/ready.csv\" ]; do\n"
             "  n=$((n + 1)); [ $n -gt 600 ] && exit 3; sleep 0.05\n"
             "done\n"
             "W=$(xdotool search --sync --name 'stormbench: retry-storm' |"
             " head -1)\n"
             "xdotool windowsize \"$W\" 500 300\nsleep 0.5\n"
             "xdotool getwindowgeometry \"$W\"\n"
             "xdotool key --window \"$W\" s\nsleep 0.5\n"
             "xdotool key --window \"$W\" q\n"
             "wait $pid\n",
             SB_BINARY, TU_SOURCE("scenarios/retry-storm.ini"), script, dir,
             dir, dir);
    snprintf(driver, sizeof driver, "%s",
             tu_write_temp("minsize-driver.sh", body));
    free(body);
    chmod(driver, 0755);
    tu_output o;
    tu_run(&o, (const char *[]){SB_XVFB_RUN, "-a", "-s",
                                "-screen 0 1600x1000x24", driver, NULL});
    ck_assert_msg(o.status == 0, "driver exited %d: %s%s", o.status, o.out,
                  o.err);
    assert_has(o.out, "Geometry: 960x600");
    tu_output_free(&o);
    snprintf(shot, sizeof shot, "%s/retry-storm-t20.png", dir);
    cairo_surface_t *img = cairo_image_surface_create_from_png(shot);
    ck_assert_msg(cairo_surface_status(img) == CAIRO_STATUS_SUCCESS, "%s: %s",
                  shot, cairo_status_to_string(cairo_surface_status(img)));
    ck_assert_int_eq(cairo_image_surface_get_width(img), 960);
    ck_assert_int_eq(cairo_image_surface_get_height(img), 600);
    view_layout l;
    view_layout_compute(960, 600, view_font_px(960, 600), 1, &l);
    long idle = count(img, l.field[0], &view_mode_colours[CLIENT_IDLE]);
    ck_assert_msg(idle > 500, "A's field at 960x600: %ld idle pixels", idle);
    cairo_surface_destroy(img);
}
END_TEST

Suite *gui_mouse_suite(void)
{
    Suite *s = suite_create("gui_mouse");
    TCase *tc = tcase_create("xdotool");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, window_driven_with_the_mouse);
    tcase_add_test(tc, window_keeps_its_minimum_size);
    suite_add_tcase(s, tc);
    return s;
}
