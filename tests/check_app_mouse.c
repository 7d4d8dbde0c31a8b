/*
 * check_app_mouse.c -- the GUI driven with the mouse as the window drives it
 * (viz/app.h), without a window: each frame is drawn to an image, and a
 * click lands where that frame drew the control (app_hits).  What a click
 * does to the run is what its script command does, and the message shows
 * that command; sliders, the legend, zooms, the policy picker, exports,
 * and the instants actions by hand take effect at.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app.h"
#include "controls.h"
#include "outfile.h"
#include "picker.h"
#include "scenario.h"
#include "testutil.h"
#include "writer.h"

#define W 1280
#define H 800

static scenario sc;
static cairo_surface_t *surf;
static cairo_t *cr;
static char out_dir[1024];

static int save(void *ctx, const char *path, const sim_config *cfg,
                const char *policy, const setting *params, int n_params,
                const char *const *plugins, int n_plugins,
                const setting *expect, int n_expect, sb_err *e)
{
    (void)ctx;
    writer_extra x = {NULL,      policy, params,   n_params, plugins,
                      n_plugins, expect, n_expect, NULL};
    outfile o;
    if (outfile_open(&o, path, e) != 0)
        return -1;
    if (scenario_write(o.f, cfg, &x, e) != 0) {
        outfile_abort(&o);
        return -1;
    }
    return outfile_commit(&o, e);
}

/* The default scenario without its own outage, run A immediate retries,
 * driven by `script` (NULL: none) at `speed`. */
static app *open_app(const char *script, double speed)
{
    static int n;
    sb_err e;
    if (scenario_load(TU_SOURCE("scenarios/retry-storm.ini"), NULL, 0, &sc,
                      &e) != 0)
        ck_abort_msg("%s", e.msg);
    sc.cfg.n_faults = 0;
    sc.cfg.duration_ns = 120 * NS_PER_S;
    static const char *const cycle[] = {"immediate",
                                        "exponential+token_bucket"};
    snprintf(out_dir, sizeof out_dir, "%s", tu_temp_path("app-out"));
    mkdir(out_dir, 0755);
    char name[64];
    snprintf(name, sizeof name, "app-%d.script", n++);
    app_options o;
    memset(&o, 0, sizeof o);
    o.cfg = &sc.cfg;
    o.policy = "immediate";
    o.params = sc.settings;
    o.n_params = sc.n_settings;
    o.cycle = cycle;
    o.n_cycle = 2;
    o.speed = speed;
    o.out_dir = out_dir;
    o.script = script ? tu_write_temp(name, script) : NULL;
    o.save = save;
    o.recording = true;
    app *a;
    if (app_create(&o, &a, &e) != 0)
        ck_abort_msg("%s", e.msg);
    if (surf == NULL) {
        surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, W, H);
        cr = cairo_create(surf);
    }
    return a;
}

/* A frame: what the window shows, and where (app_hits). */
static void frame(app *a)
{
    app_draw(a, cr, W, H);
    cairo_surface_flush(surf);
}

/* Run until the script pauses it (or the run ends), then draw. */
static void until_paused(app *a)
{
    for (int i = 0; i < 10000; i++) {
        app_advance(a, 0.1, INFINITY);
        frame(a);
        if (strstr(app_message(a) ? app_message(a) : "", "error"))
            ck_abort_msg("%s", app_message(a));
        if (session_done(app_run(a, 0)))
            return;
        /* Paused: a step of wall time moves nothing. */
        int64_t t = app_now(a);
        app_advance(a, 0.1, INFINITY);
        if (app_now(a) == t)
            return;
    }
    ck_abort_msg("never paused");
}

static const view_hit *find(app *a, int kind, int id, int arg)
{
    const view_hits *h = app_hits(a);
    for (int i = h->n - 1; i >= 0; i--)
        if (h->hit[i].kind == kind && h->hit[i].a == id &&
            (kind != HIT_CONTROL || h->hit[i].b == arg))
            return &h->hit[i];
    ck_abort_msg("no hit of kind %d, %d, %d drawn", kind, id, arg);
    return NULL;
}

static void click_at(app *a, double x, double y)
{
    app_pointer(a, x, y, true);
    app_button(a, x, y, true);
    app_button(a, x, y, false);
    frame(a);
}

static void click(app *a, int kind, int id, int arg)
{
    const view_hit *h = find(a, kind, id, arg);
    click_at(a, h->r.x + h->r.w / 2, h->r.y + h->r.h / 2);
}

static const fault_cfg *last_fault(app *a, int r)
{
    uint32_t n;
    const fault_cfg *f = sim_faults(session_sim(app_run(a, r)), &n);
    ck_assert_uint_gt(n, 0);
    return &f[n - 1];
}

static void assert_said(app *a, const char *what)
{
    const char *m = app_message(a);
    ck_assert_msg(m && strstr(m, what), "'%s' not in '%s'", what,
                  m ? m : "(none)");
}

/* The injection chosen with the menu (latency), its size stepped up from
 * 500 ms to 1 s on the 1-2-5 ladder, then "inject now" at 30 s: a
 * latency fault from 30 s for 10 s of 1 s; the message gives the script
 * line, and that line in a script makes the same fault, name and all. */
START_TEST(click_inject_is_its_script_line)
{
    app *a = open_app("at 30s pause\n", 0);
    until_paused(a);
    click(a, HIT_CONTROL, CTL_KIND, 0);
    click(a, HIT_CONTROL, CTL_KIND_PICK, 2); /* latency */
    click(a, HIT_CONTROL, CTL_SIZE, +1);
    click(a, HIT_CONTROL, CTL_INJECT, 0);
    assert_said(a, "(as a script line: at 30s inject latency 1s 10s)");
    fault_cfg got = *last_fault(a, 0);
    ck_assert_int_eq(got.type, FAULT_LATENCY);
    ck_assert_int_eq(got.start_ns, 30 * NS_PER_S);
    ck_assert_int_eq(got.duration_ns, 10 * NS_PER_S);
    ck_assert_int_eq(got.delay_ns, NS_PER_S);
    app *b = open_app("at 30s pause\nat 30s inject latency 1s 10s\n", 0);
    until_paused(b);
    const fault_cfg *want = last_fault(b, 0);
    ck_assert_str_eq(got.name, want->name);
    ck_assert_int_eq(got.start_ns, want->start_ns);
    ck_assert_int_eq(got.duration_ns, want->duration_ns);
    ck_assert_int_eq(got.delay_ns, want->delay_ns);
    /* The play button is a script line too. */
    click(a, HIT_CONTROL, CTL_PLAY, 0);
    assert_said(a, "(as a script line: at 30s resume)");
    app_destroy(a);
    app_destroy(b);
}
END_TEST

/* The workers slider is a log scale from 1 to 64 (four times the
 * scenario's 16): 5/6 of the way along is 64^(5/6) = 32 workers. */
START_TEST(slider_sets_workers)
{
    app *a = open_app("at 30s pause\n", 0);
    until_paused(a);
    const view_hit *h = find(a, HIT_CONTROL, CTL_SLIDER, CHANGE_WORKERS);
    double x = h->r.x + h->r.w * 5.0 / 6.0, y = h->r.y + h->r.h / 2;
    app_pointer(a, x, y, true);
    app_button(a, x, y, true);
    app_pointer(a, x, y, true);
    app_button(a, x, y, false);
    assert_said(a, "(as a script line: at 30s workers 32)");
    ck_assert_double_eq(session_current(app_run(a, 0), CHANGE_WORKERS), 32);
    app_destroy(a);
}
END_TEST

/* Pixels of colour c inside r of the last frame. */
static long count(chart_rect r, const chart_style *c)
{
    const unsigned char *d = cairo_image_surface_get_data(surf);
    int stride = cairo_image_surface_get_stride(surf);
    long n = 0;
    for (int y = (int)r.y; y < (int)(r.y + r.h); y++)
        for (int x = (int)r.x; x < (int)(r.x + r.w); x++) {
            uint32_t p =
                *(const uint32_t *)(const void *)(d + y * stride + x * 4);
            n += abs((int)((p >> 16) & 255) - (int)lround(c->r * 255)) < 8 &&
                 abs((int)((p >> 8) & 255) - (int)lround(c->g * 255)) < 8 &&
                 abs((int)(p & 255) - (int)lround(c->b * 255)) < 8;
        }
    return n;
}

/* A click on "attempts" in the load panel's legend takes its line (one
 * run: vermillion) off the plot; a second brings it back.  A's chip in
 * the header takes all of A's lines off. */
START_TEST(legend_switches_lines)
{
    app *a = open_app("at 30s pause\n", 0);
    until_paused(a);
    const chart_rect plot = find(a, HIT_PANEL, 0, 0)->r;
    long before = count(plot, &chart_palette[5]);
    ck_assert_int_gt(before, 50);
    click(a, HIT_LEGEND, LINE_ATTEMPTS, 0);
    assert_said(a, "at 30s hide attempts");
    ck_assert_int_eq(count(plot, &chart_palette[5]), 0);
    /* Offered (blue) is under attempts until they part at the storm:
     * with attempts off it shows in full. */
    long offered = count(plot, &chart_palette[4]);
    ck_assert_int_gt(offered, 50);
    click(a, HIT_LEGEND, LINE_ATTEMPTS, 0);
    assert_said(a, "at 30s show attempts");
    ck_assert_int_eq(count(plot, &chart_palette[5]), before);
    click(a, HIT_LEGEND, -1, 0); /* A's chip */
    assert_said(a, "hide A");
    ck_assert_int_eq(count(plot, &chart_palette[4]), 0);
    ck_assert_int_eq(count(plot, &chart_palette[5]), 0);
    app_destroy(a);
}
END_TEST

/* At 30 s the panels follow the run over [0, 120] s.  A drag on a panel
 * from 5 s to 20 s zooms to [5, 20] (pinned: 20 s is past); a wheel
 * click there shows 15 / 1.25 = 12 s around the pointer at 12.5 s (half
 * way): [6.5, 18.5], whole seconds outward, [6, 19]; a double-click
 * follows the run again, where a wheel click up shows 120 / 1.25 = 96 s
 * up to now. */
START_TEST(zoom_by_drag_double_click_and_wheel)
{
    app *a = open_app("at 30s pause\n", 0);
    until_paused(a);
    view_layout l;
    view_layout_compute(W, H, view_font_px(W, H), 1, &l);
    chart_panel p = view_panel_plot(&l, 1, 0, 120);
    double y = p.plot.y + p.plot.h / 2;
    double x5 = chart_scale_map(&p.x, 5), x20 = chart_scale_map(&p.x, 20);
    app_pointer(a, x5, y, true);
    app_button(a, x5, y, true);
    app_pointer(a, x20, y, true);
    app_button(a, x20, y, false);
    assert_said(a, "the panels show 5 to 20 s");
    assert_said(a, "at 30s zoom 5s 20s");
    frame(a);
    chart_panel z = view_panel_plot(&l, 1, 5, 20);
    app_wheel(a, chart_scale_map(&z.x, 12.5), y, 1);
    assert_said(a, "at 30s zoom 6s 19s");
    assert_said(a, "the panels show 6 to 19 s");
    frame(a);
    app_double_click(a, x20, y);
    assert_said(a, "the panels follow the run");
    frame(a);
    app_wheel(a, chart_scale_map(&p.x, 60), y, 1);
    assert_said(a, "at 30s zoom live 96s");
    assert_said(a, "the panels follow the run, 96 s wide");
    app_destroy(a);
}
END_TEST

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

/* A's policy in the header opens the picker; token_bucket stacks the
 * bucket on immediate retries, replayed to 30 s with the outage injected
 * at 20 s kept; a step up of max_attempts (5, the scenario's) sets 6. */
START_TEST(picker_changes_policy_keeping_the_run)
{
    app *a = open_app("at 20s inject outage blackhole 5s\nat 30s pause\n", 0);
    until_paused(a);
    click(a, HIT_POLICY, 0, 0);
    click(a, HIT_CONTROL, CTL_PICK_LAYER, catalogue_index("token_bucket"));
    assert_said(a, "at 30s policy A immediate+token_bucket");
    ck_assert_str_eq(session_policy(app_run(a, 0)), "immediate+token_bucket");
    ck_assert_int_eq(app_now(a), 30 * NS_PER_S);
    const fault_cfg *f = last_fault(a, 0);
    ck_assert_int_eq(f->type, FAULT_OUTAGE);
    ck_assert_int_eq(f->start_ns, 20 * NS_PER_S);
    click(a, HIT_CONTROL, CTL_PARAM, 2 * 0 + 1);
    assert_said(a, "at 30s param A max_attempts=6");
    const setting *ps;
    int n = session_params(app_run(a, 0), &ps);
    bool found = false;
    for (int i = 0; i < n; i++)
        found |= strcmp(ps[i].key, "max_attempts") == 0 &&
                 strcmp(ps[i].value, "6") == 0;
    ck_assert(found);
    app_destroy(a);
}
END_TEST

/* Keys pressed at 30.37 s: at 1 x real time the outage starts at the
 * next tenth of a second, 30.4 s; at 10 x, a rate change at the next
 * whole second, 31 s. */
START_TEST(hand_actions_at_readable_instants)
{
    app *a = open_app(NULL, 1);
    app_advance(a, 30.37, INFINITY);
    ck_assert_int_eq(app_now(a), 30370 * NS_PER_MS);
    app_key_down(a, 'i');
    app_key_down(a, '1');
    ck_assert_int_eq(last_fault(a, 0)->start_ns, 30400 * NS_PER_MS);
    app_key_down(a, '+'); /* 1 -> 2 */
    app_key_down(a, '+'); /* 5 */
    app_key_down(a, '+'); /* 10 */
    app_key_down(a, KEY_UP);
    ck_assert_int_eq(last_fault(a, 0)->start_ns, 31 * NS_PER_S);
    ck_assert_int_eq(last_fault(a, 0)->type, FAULT_LOAD_SPIKE);
    app_destroy(a);
}
END_TEST

/* With A/B on, "scenario" saves A's run and B's beside it, each with
 * its own policy; "CSV" writes the panels' window: a row per closed
 * bucket, A's and B's columns, each value the one drawn. */
START_TEST(exports_with_ab)
{
    app *a = open_app("at 10s ab on exponential+token_bucket\n"
                      "at 40s pause\n",
                      0);
    until_paused(a);
    click(a, HIT_CONTROL, CTL_EXPORT, EXPORT_SCENARIO);
    char pa[1200], pb[1200], pc[1200];
    snprintf(pa, sizeof pa, "%s/retry-storm-t40.ini", out_dir);
    snprintf(pb, sizeof pb, "%s/retry-storm-t40-B.ini", out_dir);
    assert_said(a, "saved A as");
    char *ta = tu_read_file(pa), *tb = tu_read_file(pb);
    ck_assert_msg(strstr(ta, "name = immediate\n"), "%s", ta);
    ck_assert_msg(strstr(tb, "name = exponential+token_bucket\n"), "%s", tb);
    free(ta);
    free(tb);
    click(a, HIT_CONTROL, CTL_EXPORT, EXPORT_CSV);
    snprintf(pc, sizeof pc, "%s/retry-storm-t40.csv", out_dir);
    char *csv = tu_read_file(pc);
    ck_assert_msg(strncmp(csv, "t_start_s,t_end_s,A_offered_per_s,", 34) == 0,
                  "%.80s", csv);
    ck_assert_msg(strstr(csv, ",B_goodput_per_s,") != NULL, "B's columns");
    const series *s = session_series(app_run(a, 0));
    int rows = 0;
    for (const char *p = strchr(csv, '\n'); p && p[1]; p = strchr(p + 1, '\n'))
        rows++;
    ck_assert_int_eq(rows, (int)s->n);
    /* Row 10 (the bucket [10, 11) s): A's goodput as the series has it. */
    const char *row = csv;
    for (int i = 0; i < 11; i++)
        row = strchr(row, '\n') + 1;
    double t0, t1, offered, attempts, capacity, goodput;
    ck_assert_int_eq(sscanf(row, "%lf,%lf,%lf,%lf,%lf,%lf", &t0, &t1, &offered,
                            &attempts, &capacity, &goodput),
                     6);
    ck_assert_double_eq(t0, 10);
    ck_assert_double_eq(t1, 11);
    ck_assert_double_eq_tol(goodput, series_at(s, 10, COL_goodput), 1e-6);
    free(csv);
    app_destroy(a);
}
END_TEST

static void teardown(void)
{
    if (cr)
        cairo_destroy(cr);
    if (surf)
        cairo_surface_destroy(surf);
    cr = NULL;
    surf = NULL;
}

Suite *app_mouse_suite(void)
{
    Suite *s = suite_create("app_mouse");
    TCase *tc = tcase_create("mouse");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, click_inject_is_its_script_line);
    tcase_add_test(tc, slider_sets_workers);
    tcase_add_test(tc, legend_switches_lines);
    tcase_add_test(tc, zoom_by_drag_double_click_and_wheel);
    tcase_add_test(tc, picker_changes_policy_keeping_the_run);
    tcase_add_test(tc, hand_actions_at_readable_instants);
    tcase_add_test(tc, exports_with_ab);
    suite_add_tcase(s, tc);
    return s;
}
