/*
 * check_view.c -- the GUI's picture (viz/view.h) and the policy picker's
 * content (viz/picker.h), without a window: labels on lanes, faults named
 * as a person names them, values in their units, the field's shares; and,
 * drawn on an image, that no two labels of a panel overprint (crowded
 * with faults and changes, A/B, at the smallest size), that the tooltip
 * stays inside its panel, that the help fits its box, and that a cell of
 * many clients shows each state's share.
 */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controls.h"
#include "picker.h"
#include "policy_setup.h"
#include "scenario.h"
#include "testutil.h"
#include "view.h"

/* Five labels, two lanes, 2 apart: by x, [0, 30) takes lane 0; [10, 40)
 * starts before 30 + 2, so lane 1; [20, 50) fits neither (32, 42): none;
 * [100, 110) lane 0 again; [105, 115) is before 110 + 2, so lane 1. */
START_TEST(lanes_by_hand)
{
    double x[] = {20, 0, 100, 10, 105}, w[] = {30, 30, 10, 30, 10};
    int lane[5];
    view_lanes(x, w, 5, 2, 2.0, lane);
    ck_assert_int_eq(lane[1], 0);
    ck_assert_int_eq(lane[3], 1);
    ck_assert_int_eq(lane[0], -1);
    ck_assert_int_eq(lane[2], 0);
    ck_assert_int_eq(lane[4], 1);
}
END_TEST

/* Whatever the labels, two on one lane keep the gap between them. */
START_TEST(lanes_never_overlap)
{
    srand(7);
    for (int round = 0; round < 200; round++) {
        double x[40], w[40];
        int lane[40], n = 1 + rand() % 40;
        for (int i = 0; i < n; i++) {
            x[i] = rand() % 1000;
            w[i] = 5 + rand() % 120;
        }
        view_lanes(x, w, n, 3, 4.0, lane);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (i != j && lane[i] >= 0 && lane[i] == lane[j] &&
                    x[i] <= x[j])
                    ck_assert_msg(x[j] >= x[i] + w[i] + 4.0,
                                  "lane %d: [%g, %g) and [%g, %g)", lane[i],
                                  x[i], x[i] + w[i], x[j], x[j] + w[j]);
    }
}
END_TEST

START_TEST(faults_named_as_a_person_would)
{
    char buf[128];
    fault_cfg f;
    memset(&f, 0, sizeof f);
    f.type = FAULT_OUTAGE;
    f.mode = CUT_BLACKHOLE;
    ck_assert_str_eq(view_fault_text(&f, 107, buf, sizeof buf),
                     "outage at 107 s");
    f.mode = CUT_REFUSE;
    ck_assert_str_eq(view_fault_text(&f, -1, buf, sizeof buf),
                     "outage (refused)");
    f.type = FAULT_LATENCY;
    f.delay_ns = 500 * NS_PER_MS;
    ck_assert_str_eq(view_fault_text(&f, 40, buf, sizeof buf),
                     "latency +500 ms at 40 s");
    f.type = FAULT_ERRORS;
    f.status = 503;
    f.probability = 0.5;
    ck_assert_str_eq(view_fault_text(&f, -1, buf, sizeof buf), "503s on 50 %");
    f.type = FAULT_CAPACITY;
    f.workers = 8;
    ck_assert_str_eq(view_fault_text(&f, -1, buf, sizeof buf), "8 workers");
    f.type = FAULT_LOAD_SPIKE;
    f.multiplier = 2;
    ck_assert_str_eq(view_fault_text(&f, 60, buf, sizeof buf),
                     "load x2 at 60 s");
    f.type = FAULT_CLIENT_TIMEOUT;
    f.delay_ns = 1500 * NS_PER_MS;
    ck_assert_str_eq(view_fault_text(&f, -1, buf, sizeof buf), "timeout 1.5 s");
}
END_TEST

/* Each value in its line's unit; counts whole with their thousands
 * apart, small measured values with a decimal. */
START_TEST(values_carry_units)
{
    char buf[64];
    ck_assert_str_eq(view_value_text(LINE_DUPLICATES, 48213, buf, sizeof buf),
                     "48 213");
    ck_assert_str_eq(view_value_text(LINE_BREAKERS, 1234567, buf, sizeof buf),
                     "1 234 567");
    ck_assert_str_eq(view_value_text(LINE_GOODPUT, 152.4, buf, sizeof buf),
                     "152 /s");
    ck_assert_str_eq(view_value_text(LINE_REFUSED, 0.4, buf, sizeof buf),
                     "0.4 /s");
    ck_assert_str_eq(view_value_text(LINE_P99, 4.5, buf, sizeof buf), "4.5 ms");
    ck_assert_str_eq(view_value_text(LINE_P99, 12345.6, buf, sizeof buf),
                     "12 346 ms");
    ck_assert_str_eq(view_value_text(LINE_SUCCESS, 98.46, buf, sizeof buf),
                     "98.5 %");
    ck_assert_str_eq(view_value_text(LINE_QUEUE, NAN, buf, sizeof buf), "-");
    ck_assert_int_eq(view_line_find("queue_wait"), LINE_QUEUE_WAIT);
    ck_assert_int_eq(view_line_find("nonesuch"), -1);
}
END_TEST

START_TEST(state_counts)
{
    uint8_t s[] = {0, 1, 1, 5, 5, 5, 9};
    uint32_t c[6];
    view_state_counts(s, 1, 7, 6, c);
    /* Items 1..6: two 1s, three 5s, and a 9 out of range counted as 0. */
    ck_assert_uint_eq(c[0], 1);
    ck_assert_uint_eq(c[1], 2);
    ck_assert_uint_eq(c[5], 3);
    ck_assert_uint_eq(c[2] + c[3] + c[4], 0);
}
END_TEST

/* HiDPI (issue 21; Xvfb cannot scale, so by arithmetic): the scale is
 * the drawable's pixels over the window's units, 3840/1920 = 2,
 * 2880/1920 = 1.5, 1920/1920 = 1, and 1 before the window has a size.
 * At each scale the layout of a 960x600 window (the minimum) drawn in
 * its pixels is the 1x layout times the scale, box for box (within the
 * pixel each edge is rounded to): text and
 * the boxes the pointer is tested against (in pixels, as the pointer's
 * positions are mapped by the same scale) grow together.  Before, the
 * font came from the pixels alone: 17.5 px at 1920x1200, not 2 x 10. */
START_TEST(hidpi_scale_is_drawable_over_window)
{
    ck_assert_double_eq(view_pixel_scale(3840, 1920), 2.0);
    ck_assert_double_eq(view_pixel_scale(2880, 1920), 1.5);
    ck_assert_double_eq(view_pixel_scale(1920, 1920), 1.0);
    ck_assert_double_eq(view_pixel_scale(0, 0), 1.0);
    static const double scales[] = {1.0, 1.5, 2.0};
    view_layout one, at;
    view_layout_compute(960, 600, view_font_px(960, 600), 2, &one);
    for (int i = 0; i < 3; i++) {
        double s = scales[i];
        int pw = (int)(960 * s), ph = (int)(600 * s);
        ck_assert_double_eq(view_pixel_scale(pw, 960), s);
        double f = view_font_px_scaled(pw, ph, s);
        ck_assert_double_eq_tol(f, s * 10.0, 1e-9); /* the 10 px floor */
        view_layout_compute(pw, ph, f, 2, &at);
        const chart_rect *a = &one.header, *b = &at.header;
        int n = (int)(offsetof(view_layout, status) / sizeof(chart_rect)) + 1;
        for (int k = 0; k < n; k++) {
            ck_assert_double_eq_tol(b[k].x, s * a[k].x, 1.5);
            ck_assert_double_eq_tol(b[k].y, s * a[k].y, 1.5);
            ck_assert_double_eq_tol(b[k].w, s * a[k].w, 1.5);
            ck_assert_double_eq_tol(b[k].h, s * a[k].h, 1.5);
        }
    }
}
END_TEST

/* ---- Drawn ------------------------------------------------------------------ */

static scenario sc;

static session *storm(const char *policy)
{
    sb_err e;
    if (scenario_load(TU_SOURCE("scenarios/retry-storm.ini"), NULL, 0, &sc,
                      &e) != 0)
        ck_abort_msg("%s", e.msg);
    sc.cfg.duration_ns = 120 * NS_PER_S;
    session_opts o = {&sc.cfg, policy, NULL, 0, NULL, 0};
    session *ss;
    if (session_create(&o, &ss, &e) != 0)
        ck_abort_msg("%s", e.msg);
    return ss;
}

/* A crowd: faults every two seconds from 30 s, each of another kind and
 * several at once, and live changes between them, in both runs. */
static void crowd(session *ss)
{
    sb_err e;
    fault_cfg f;
    for (int i = 0; i < 10; i++) {
        ck_assert_int_eq(session_run_until(ss, (30 + 2 * i) * NS_PER_S), 0);
        memset(&f, 0, sizeof f);
        f.type = i % 2 ? FAULT_LATENCY : FAULT_ERRORS;
        f.delay_ns = 300 * NS_PER_MS;
        f.status = 503;
        f.probability = 0.3;
        f.kind = SB_ERR_HTTP;
        f.duration_ns = 5 * NS_PER_S;
        ck_assert_int_ge(session_inject(ss, &f, &e), 0);
        ck_assert_int_eq(session_change(ss,
                                        i % 3 == 0   ? CHANGE_RATE
                                        : i % 3 == 1 ? CHANGE_WORKERS
                                                     : CHANGE_TIMEOUT,
                                        i % 3 == 0   ? 1.0 + 0.1 * i
                                        : i % 3 == 1 ? 10.0 + i
                                                     : (1.0 + i) * 1e8,
                                        &e),
                         0);
    }
    ck_assert_int_eq(session_run_until(ss, 60 * NS_PER_S), 0);
}

static bool overlap(chart_rect a, chart_rect b)
{
    /* Half a pixel of slack: boxes that only touch do not overprint. */
    return a.x + 0.5 < b.x + b.w && b.x + 0.5 < a.x + a.w &&
           a.y + 0.5 < b.y + b.h && b.y + 0.5 < a.y + a.h;
}

static bool within(chart_rect in, chart_rect out)
{
    return in.x >= out.x - 0.5 && in.y >= out.y - 0.5 &&
           in.x + in.w <= out.x + out.w + 0.5 &&
           in.y + in.h <= out.y + out.h + 0.5;
}

/* Draw a and b at w x h with the pointer at (hx, hy), every label
 * recorded. */
static bool hide_b; /* draw_ab switches B's lines off */

static void draw_ab_on(cairo_surface_t *s, session *a, session *b, int w, int h,
                       double hx, double hy, view_hits *hits);

static void draw_ab(session *a, session *b, int w, int h, double hx, double hy,
                    view_hits *hits)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    draw_ab_on(s, a, b, w, h, hx, hy, hits);
    cairo_surface_destroy(s);
}

static void draw_ab_on(cairo_surface_t *s, session *a, session *b, int w, int h,
                       double hx, double hy, view_hits *hits)
{
    cairo_t *cr = cairo_create(s);
    view_state v;
    memset(&v, 0, sizeof v);
    v.scenario = "crowd";
    v.runs[0] = a;
    v.runs[1] = b;
    v.n_runs = 2;
    v.run_hidden[1] = hide_b;
    v.span_s = 40;
    v.end_s = -1;
    v.select_t0 = v.select_t1 = v.drag_t = -1;
    v.hover = true;
    v.hx = hx;
    v.hy = hy;
    hits->labels = true;
    v.hits = hits;
    view_draw(cr, w, h, &v);
    cairo_destroy(cr);
}

/* At the smallest size and at 1920x1080, crowded: within each panel no
 * two labels (title, legend items, right-axis ticks and unit, fault and
 * change names, reference lines' names) overlap, and each is inside its
 * panel. */
START_TEST(labels_never_overprint)
{
    session *a = storm("immediate"), *b = storm("exponential+token_bucket");
    crowd(a);
    crowd(b);
    static const int sizes[][2] = {{960, 600}, {1280, 800}, {1920, 1080}};
    static view_hits hits;
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        draw_ab(a, b, sizes[z][0], sizes[z][1], -100, -100, &hits);
        view_layout l;
        view_layout_compute(sizes[z][0], sizes[z][1],
                            view_font_px(sizes[z][0], sizes[z][1]), 2, &l);
        int labels = 0;
        for (int i = 0; i < hits.n; i++) {
            const view_hit *p = &hits.hit[i];
            if (p->kind != HIT_LABEL || p->a < 0 || p->b == VIEW_LABEL_STRIP)
                continue;
            labels++;
            ck_assert_msg(within(p->r, l.panels[p->a]),
                          "%dx%d: a label of panel %d outside it", sizes[z][0],
                          sizes[z][1], p->a);
            for (int j = i + 1; j < hits.n; j++) {
                const view_hit *q = &hits.hit[j];
                if (q->kind == HIT_LABEL && q->a == p->a &&
                    q->b != VIEW_LABEL_STRIP)
                    ck_assert_msg(!overlap(p->r, q->r),
                                  "%dx%d, panel %d: labels %d and %d "
                                  "overprint ([%.0f %.0f %.0f %.0f] and "
                                  "[%.0f %.0f %.0f %.0f])",
                                  sizes[z][0], sizes[z][1], p->a, i, j, p->r.x,
                                  p->r.y, p->r.w, p->r.h, q->r.x, q->r.y,
                                  q->r.w, q->r.h);
            }
        }
        /* The title, three legend items and five x ticks at least. */
        ck_assert_int_gt(labels, 5 * 5);
    }
    session_destroy(a);
    session_destroy(b);
}
END_TEST

/* Pixels in r (less a pixel all round) of img with a colour: a channel
 * 60 or more from another.  The panels' text, grid, reference lines and
 * backings are grey; every run's line is coloured (view_family). */
static long coloured(cairo_surface_t *img, chart_rect r)
{
    cairo_surface_flush(img);
    const unsigned char *d = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img);
    long n = 0;
    for (int y = (int)ceil(r.y + 1); y < (int)floor(r.y + r.h - 1); y++)
        for (int x = (int)ceil(r.x + 1); x < (int)floor(r.x + r.w - 1); x++) {
            uint32_t p =
                *(const uint32_t *)(const void *)(d + y * stride + x * 4);
            int c[3] = {(int)(p >> 16) & 255, (int)(p >> 8) & 255,
                        (int)p & 255};
            int hi = c[0] > c[1] ? c[0] : c[1], lo = c[0] < c[1] ? c[0] : c[1];
            hi = hi > c[2] ? hi : c[2];
            lo = lo < c[2] ? lo : c[2];
            n += hi - lo >= 60;
        }
    return n;
}

/* Issue 21: a reference line's name ("baseline", "client timeout") is
 * never under a run's line: it went to the right end of its line (or
 * the left) whatever passed there, and B's success ratio, falling
 * through the baseline's height in a storm, was drawn across it.  A
 * storm (an outage of 10 s at 30 s, immediate against exponential with
 * a token bucket) is drawn each second from 32 to 110 s, following the
 * run, at 1280x800: in every frame, the box of each reference name
 * (hits tagged 2) holds no coloured pixel.  Some frames must have
 * moved the baseline's name off the right end, or the scan met no line
 * there and tested nothing. */
START_TEST(reference_names_clear_of_lines)
{
    session *a = storm("immediate"), *b = storm("exponential+token_bucket");
    fault_cfg f;
    memset(&f, 0, sizeof f);
    f.type = FAULT_OUTAGE;
    f.mode = CUT_BLACKHOLE;
    f.duration_ns = 10 * NS_PER_S;
    sb_err e;
    for (int r = 0; r < 2; r++) {
        session *ss = r ? b : a;
        ck_assert_int_eq(session_run_until(ss, 30 * NS_PER_S), 0);
        ck_assert_int_ge(session_inject(ss, &f, &e), 0);
    }
    const int w = 1280, h = 800;
    view_layout l;
    view_layout_compute(w, h, view_font_px(w, h), 2, &l);
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    static view_hits hits;
    int moved = 0, named = 0;
    for (int t = 32; t <= 110; t++) {
        ck_assert_int_eq(session_run_until(a, t * NS_PER_S), 0);
        ck_assert_int_eq(session_run_until(b, t * NS_PER_S), 0);
        draw_ab_on(img, a, b, w, h, -100, -100, &hits);
        for (int i = 0; i < hits.n; i++) {
            const view_hit *q = &hits.hit[i];
            if (q->kind != HIT_LABEL || q->b != 2)
                continue;
            named++;
            long n = coloured(img, q->r);
            ck_assert_msg(n == 0,
                          "t = %d s, panel %d: %ld coloured pixels under "
                          "the name at [%.0f %.0f %.0f %.0f]",
                          t, q->a, n, q->r.x, q->r.y, q->r.w, q->r.h);
            chart_panel p = view_panel_plot(&l, q->a, 0, 1);
            moved +=
                q->a == 1 && q->r.x + q->r.w < p.plot.x + p.plot.w - l.font_px;
        }
    }
    ck_assert_int_gt(named, 79);
    ck_assert_int_gt(moved, 0);
    cairo_surface_destroy(img);
    session_destroy(a);
    session_destroy(b);
}
END_TEST

/* With the pointer near a corner of each panel's plot, the tooltip's box
 * is inside the panel. */
START_TEST(tooltip_stays_inside)
{
    session *a = storm("immediate"), *b = storm("exponential+token_bucket");
    crowd(a);
    crowd(b);
    static view_hits hits;
    view_layout l;
    view_layout_compute(960, 600, view_font_px(960, 600), 2, &l);
    for (int k = 0; k < VIEW_PANELS; k++)
        for (int corner = 0; corner < 4; corner++) {
            chart_panel p = view_panel_plot(&l, k, 20, 60);
            /* Not the last pixels on the right: the bucket there has not
             * closed, and an open bucket has no tooltip. */
            double x = corner % 2 ? p.plot.x + p.plot.w * 0.96 : p.plot.x + 2;
            double y = corner / 2 ? p.plot.y + p.plot.h - 2 : p.plot.y + 2;
            draw_ab(a, b, 960, 600, x, y, &hits);
            int found = 0;
            for (int i = 0; i < hits.n; i++)
                if (hits.hit[i].kind == HIT_LABEL && hits.hit[i].b == 1) {
                    found++;
                    ck_assert_msg(within(hits.hit[i].r, l.panels[k]),
                                  "panel %d, corner %d: the tooltip leaves "
                                  "the panel",
                                  k, corner);
                }
            ck_assert_int_eq(found, 1);
        }
    session_destroy(a);
    session_destroy(b);
}
END_TEST

/* The tooltip's box, or a zero-sized one. */
static chart_rect tip_box(const view_hits *hits)
{
    for (int i = 0; i < hits->n; i++)
        if (hits->hit[i].kind == HIT_LABEL && hits->hit[i].b == 1)
            return hits->hit[i].r;
    return (chart_rect){0, 0, 0, 0};
}

/* Issue 21: with B's lines switched off the tooltip has no B column (it
 * showed B's values): its box is narrower than with B shown, by at least
 * a value's width (a column is a value plus 1.2 fonts of gap). */
START_TEST(tooltip_hides_a_hidden_run)
{
    session *a = storm("immediate"), *b = storm("exponential+token_bucket");
    crowd(a);
    crowd(b);
    static view_hits hits;
    view_layout l;
    view_layout_compute(960, 600, view_font_px(960, 600), 2, &l);
    chart_panel p = view_panel_plot(&l, 0, 20, 60);
    double x = p.plot.x + 2, y = p.plot.y + p.plot.h * 0.5; /* no fault yet */
    hide_b = false;
    draw_ab(a, b, 960, 600, x, y, &hits);
    chart_rect both = tip_box(&hits);
    hide_b = true;
    draw_ab(a, b, 960, 600, x, y, &hits);
    chart_rect only_a = tip_box(&hits);
    hide_b = false;
    ck_assert_double_gt(both.w, 0);
    ck_assert_double_gt(only_a.w, 0);
    ck_assert_msg(only_a.w < both.w - view_font_px(960, 600),
                  "tooltip %.1f px wide with B hidden, %.1f with B shown",
                  only_a.w, both.w);
    session_destroy(a);
    session_destroy(b);
}
END_TEST

/* On black, the help's text (bright) lies inside its box (dark grey):
 * no line runs past its edge, at the smallest size and a large one. */
START_TEST(help_fits_its_box)
{
    static const int sizes[][2] = {{960, 600}, {1920, 1080}};
    for (size_t z = 0; z < 2; z++) {
        int w = sizes[z][0], h = sizes[z][1];
        cairo_surface_t *s =
            cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
        cairo_t *cr = cairo_create(s);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_paint(cr);
        view_help(cr, w, h);
        cairo_surface_flush(s);
        const unsigned char *d = cairo_image_surface_get_data(s);
        int stride = cairo_image_surface_get_stride(s);
        int bx0 = w, by0 = h, bx1 = -1, by1 = -1, text = 0, out = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int g = d[y * stride + x * 4 + 1];
                if (g > 10 && g < 40) { /* the box: 0.1 at 92 % */
                    bx0 = x < bx0 ? x : bx0;
                    by0 = y < by0 ? y : by0;
                    bx1 = x > bx1 ? x : bx1;
                    by1 = y > by1 ? y : by1;
                }
            }
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                if (d[y * stride + x * 4 + 1] > 128) {
                    text++;
                    out += x < bx0 || x > bx1 || y < by0 || y > by1;
                }
        ck_assert_int_gt(text, 1000);
        ck_assert_msg(out == 0,
                      "%dx%d: %d of %d text pixels outside the "
                      "box",
                      w, h, out, text);
        ck_assert_int_le(bx1 - bx0, w);
        cairo_destroy(cr);
        cairo_surface_destroy(s);
    }
}
END_TEST

/* Pixels of colour c in the 9 x 9 drawn part of cell (cx, cy) of a
 * field of 10 px cells; and whether any row of it is all c. */
static int cell_count(cairo_surface_t *s, int cx, int cy, uint32_t c,
                      bool *full_row)
{
    const unsigned char *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s), n = 0;
    *full_row = false;
    for (int y = cy * 10; y < cy * 10 + 9; y++) {
        int in_row = 0;
        for (int x = cx * 10; x < cx * 10 + 9; x++)
            in_row +=
                (*(const uint32_t *)(const void *)(d + y * stride + x * 4) &
                 0xffffffu) == c;
        n += in_row;
        *full_row = *full_row || in_row == 9;
    }
    return n;
}

static void draw_cells(cairo_surface_t *s, const uint8_t *st, uint32_t n,
                       uint32_t per_cell, uint32_t cols)
{
    chart_field f;
    memset(&f, 0, sizeof f);
    f.items = n;
    f.per_cell = per_cell;
    f.cells = n / per_cell;
    f.cols = cols;
    f.rows = (f.cells + cols - 1) / cols;
    f.cell = 10;
    f.area = (chart_rect){0, 0, cols * 10.0, f.rows * 10.0};
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    chart_field_draw_shares(cr, &f, st, view_mode_colours, CLIENT_MODE_COUNT);
    cairo_destroy(cr);
    cairo_surface_flush(s);
}

#define RGBOF(c)                                                               \
    (((uint32_t)lround((c).r * 255) << 16) |                                   \
     ((uint32_t)lround((c).g * 255) << 8) | (uint32_t)lround((c).b * 255))

/* Four cells of 100 items, 10 px apart: 81 pixels drawn each (9 x 9, a
 * 1 px gap), shared by largest remainder and filled from the foot row
 * up, the highest state first.  Cell 0, 99 idle and 1 failed: 80.19 and
 * 0.81 px, the pixel left to failed: 80 and 1, the failed one at the
 * foot's left (as a band it was the whole foot row, 9).  Cell 1, 75 idle
 * and 25 failed: 60.75 and 20.25, the pixel left to idle: 61 and 20.
 * Cell 2, half waiting, half refused: 40.5 each, the tie to the lower
 * state (waiting): 41 and 40.  Cell 3: all 81 backing off. */
START_TEST(cells_show_shares)
{
    uint8_t st[400];
    for (int i = 0; i < 400; i++)
        st[i] = i < 99    ? CLIENT_IDLE
                : i < 100 ? CLIENT_GAVE_UP
                : i < 175 ? CLIENT_IDLE
                : i < 200 ? CLIENT_GAVE_UP
                : i < 250 ? CLIENT_WAITING
                : i < 300 ? CLIENT_REFUSED
                          : CLIENT_BACKING_OFF;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 40, 10);
    draw_cells(s, st, 400, 100, 4);
    uint32_t idle = RGBOF(view_mode_colours[CLIENT_IDLE]);
    uint32_t failed = RGBOF(view_mode_colours[CLIENT_GAVE_UP]);
    uint32_t waiting = RGBOF(view_mode_colours[CLIENT_WAITING]);
    uint32_t refused = RGBOF(view_mode_colours[CLIENT_REFUSED]);
    uint32_t backing = RGBOF(view_mode_colours[CLIENT_BACKING_OFF]);
    bool row;
    ck_assert_int_eq(cell_count(s, 0, 0, idle, &row), 80);
    ck_assert_int_eq(cell_count(s, 0, 0, failed, &row), 1);
    ck_assert_msg(!row, "cell 0: a whole row for 1 %% failed");
    ck_assert_int_eq(cell_count(s, 1, 0, idle, &row), 61);
    ck_assert_int_eq(cell_count(s, 1, 0, failed, &row), 20);
    ck_assert_int_eq(cell_count(s, 2, 0, waiting, &row), 41);
    ck_assert_int_eq(cell_count(s, 2, 0, refused, &row), 40);
    ck_assert_int_eq(cell_count(s, 3, 0, backing, &row), 81);
    const unsigned char *d = cairo_image_surface_get_data(s);
    ck_assert_uint_eq(
        *(const uint32_t *)(const void *)(d +
                                          9 * cairo_image_surface_get_stride(
                                                  s) +
                                          4 * 4) &
            0xffffffu,
        0xffffffu); /* the gap */
    cairo_surface_destroy(s);
}
END_TEST

/* A million clients' field as the window has it: 875 to a cell, 1.2 %
 * failed (10 a cell) and 0.6 % waiting (5).  Failed are 0.93 of a cell's
 * 81 pixels, so 1 by largest remainder; waiting 0.46, rounded away, but a
 * state with a client keeps a pixel (taken from idle): 1.  So each cell
 * shows 1 failed and 1 waiting pixel and 79 idle, and the field reads as
 * idle with a sprinkle.  As bands, each cell had a whole row of each (9
 * pixels, 11 % of the cell for 1.2 % of the clients), and the rows of
 * neighbouring cells lined up into black and blue stripes across the
 * field. */
START_TEST(million_clients_show_no_stripes)
{
    enum { PER = 875, COLS = 8, CELLS = 32 };
    static uint8_t st[PER * CELLS];
    for (int c = 0; c < CELLS; c++)
        for (int i = 0; i < PER; i++)
            st[c * PER + i] = i < 10   ? CLIENT_GAVE_UP
                              : i < 15 ? CLIENT_WAITING
                                       : CLIENT_IDLE;
    cairo_surface_t *s =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, COLS * 10, 40);
    draw_cells(s, st, PER * CELLS, PER, COLS);
    uint32_t failed = RGBOF(view_mode_colours[CLIENT_GAVE_UP]);
    uint32_t waiting = RGBOF(view_mode_colours[CLIENT_WAITING]);
    uint32_t idle = RGBOF(view_mode_colours[CLIENT_IDLE]);
    for (int c = 0; c < CELLS; c++) {
        bool row;
        ck_assert_int_eq(cell_count(s, c % COLS, c / COLS, failed, &row), 1);
        ck_assert_msg(!row, "cell %d: a row all failed", c);
        ck_assert_int_eq(cell_count(s, c % COLS, c / COLS, waiting, &row), 1);
        ck_assert_msg(!row, "cell %d: a row all waiting", c);
        ck_assert_int_eq(cell_count(s, c % COLS, c / COLS, idle, &row), 79);
    }
    cairo_surface_destroy(s);
}
END_TEST

/* retry-storm's outage at 60-70 s, and by hand: 12 workers at 62 s,
 * latency at 64 s, 20 workers at 66 s.  A change's mark is its strip
 * at the foot, and its name belongs to it alone: no name lies over
 * another change's strip (a name starts 0.3 of a font past its own
 * strip's start).  Before, "12 workers at 62 s" ran on over the strip
 * of the 20 workers set at 66 s; and a dashed line at 62 s crossed the
 * outage's shading from top to foot, as if it were the outage's: the
 * column at 62 s, between the faults' names and the strips, now holds
 * no dark ink but where a line crosses it (the capacity line: a pixel
 * or two; the dashed line was half the column). */
START_TEST(marks_belong_to_their_own_fault)
{
    sb_err e;
    session *a = storm("immediate");
    fault_cfg lat;
    memset(&lat, 0, sizeof lat);
    lat.type = FAULT_LATENCY;
    lat.delay_ns = NS_PER_S;
    lat.duration_ns = 20 * NS_PER_S;
    ck_assert_int_eq(session_run_until(a, 62 * NS_PER_S), 0);
    ck_assert_int_eq(session_change(a, CHANGE_WORKERS, 12, &e), 0);
    ck_assert_int_eq(session_run_until(a, 64 * NS_PER_S), 0);
    ck_assert_int_ge(session_inject(a, &lat, &e), 0);
    ck_assert_int_eq(session_run_until(a, 66 * NS_PER_S), 0);
    ck_assert_int_eq(session_change(a, CHANGE_WORKERS, 20, &e), 0);
    ck_assert_int_eq(session_run_until(a, 100 * NS_PER_S), 0);
    int w = 1280, h = 800;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t *cr = cairo_create(s);
    static view_hits hits;
    memset(&hits, 0, sizeof hits);
    hits.labels = true;
    view_state v;
    memset(&v, 0, sizeof v);
    v.scenario = "marks";
    v.runs[0] = a;
    v.n_runs = 1;
    v.span_s = 120;
    v.end_s = -1;
    v.select_t0 = v.select_t1 = v.drag_t = -1;
    v.hits = &hits;
    view_draw(cr, w, h, &v);
    cairo_destroy(cr);
    view_layout l;
    view_layout_compute(w, h, view_font_px(w, h), 1, &l);
    int names = 0;
    for (int i = 0; i < hits.n; i++) {
        const view_hit *n = &hits.hit[i];
        if (n->kind != HIT_LABEL || n->b != VIEW_LABEL_CHANGE || n->a != 0)
            continue;
        names++;
        for (int j = 0; j < hits.n; j++) {
            const view_hit *st = &hits.hit[j];
            if (st->kind != HIT_LABEL || st->b != VIEW_LABEL_STRIP ||
                st->a != 0 || !overlap(n->r, st->r))
                continue;
            ck_assert_msg(st->r.x <= n->r.x && n->r.x - st->r.x < l.font_px,
                          "a change's name at x %.0f lies over the strip "
                          "of another, from %.0f to %.0f",
                          n->r.x, st->r.x, st->r.x + st->r.w);
        }
    }
    ck_assert_int_eq(names, 2); /* each change named */
    chart_panel p = view_panel_plot(&l, 0, 0, 120);
    int x = (int)lround(chart_scale_map(&p.x, 62.0));
    cairo_surface_flush(s);
    const unsigned char *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    double line = l.font_px * 0.75 * 1.35;
    int dark = 0, from = (int)(p.plot.y + 3 * line),
        to = (int)(p.plot.y + p.plot.h - 3 * line);
    for (int y = from; y < to; y++) {
        uint32_t px = *(const uint32_t *)(const void *)(d + y * stride + x * 4);
        int r = (px >> 16) & 255, g = (px >> 8) & 255, b = px & 255;
        dark += r < 110 && g < 110 && b < 110;
    }
    ck_assert_msg(dark <= 4, "%d dark pixels of %d at 62 s", dark, to - from);
    cairo_surface_destroy(s);
    session_destroy(a);
}
END_TEST

/* The field's legend: a state some clients are in never reads 0.  15
 * waiting of 100 000 (0.015 %) read "0.0 %" beside a field that showed
 * them; now "< 0.1 %".  0.05 % and up round as before: 50 of 100 000 is
 * "0.1 %", 4 000 of a million "0.4 %", 12 of 100 "12 %", 0 "0 %". */
START_TEST(shares_never_read_zero_for_some)
{
    char b[32];
    ck_assert_str_eq(view_share_text(15, 100000, b, sizeof b), "< 0.1 %");
    ck_assert_str_eq(view_share_text(1, 1000000, b, sizeof b), "< 0.1 %");
    ck_assert_str_eq(view_share_text(50, 100000, b, sizeof b), "0.1 %");
    ck_assert_str_eq(view_share_text(4000, 1000000, b, sizeof b), "0.4 %");
    ck_assert_str_eq(view_share_text(12, 100, b, sizeof b), "12 %");
    ck_assert_str_eq(view_share_text(0, 100, b, sizeof b), "0 %");
    ck_assert_str_eq(view_share_text(100, 100, b, sizeof b), "100 %");
}
END_TEST

/* ---- The controls ---------------------------------------------------------- */

static void controls_at(int w, int h, const controls_state *c, view_hits *hits)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t *cr = cairo_create(s);
    view_layout l;
    view_layout_compute(w, h, view_font_px(w, h), 2, &l);
    memset(hits, 0, sizeof *hits);
    controls_draw(cr, &l, c, hits);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

/* Found by driving the window with xdotool: a control whose text changes
 * moved every control after it.  Pausing turned "pause" into the
 * narrower "run", so "step", the speed and everything right of them
 * moved left by 13 px, and a click aimed at "+" hit nothing; choosing an
 * injection with a size (latency) put its stepper in and pushed "for",
 * "inject now" and the rest right.  Now every control keeps its place
 * whatever the state (pause/run, speed 10 x / 1000 x / max, outage /
 * latency / 128 fewer workers, A/B on/off), at 1280x800 and at the
 * smallest window, 960x600, where they all still fit in their row. */
START_TEST(controls_keep_their_places)
{
    static const char *const kinds[] = {"outage (black hole)",
                                        "outage (refused)",
                                        "latency",
                                        "errors (503)",
                                        "fewer workers",
                                        "load spike",
                                        "slowdown",
                                        "lost acks",
                                        "partition"};
    static const int ids[] = {CTL_PLAY,   CTL_STEP,   CTL_SPEED, CTL_KIND,
                              CTL_LENGTH, CTL_INJECT, CTL_END,   CTL_AB,
                              CTL_FOLLOW, CTL_HELP};
    static const int sizes[][2] = {{1280, 800}, {960, 600}};
    static view_hits first, now;
    for (int z = 0; z < 2; z++) {
        view_layout l;
        view_layout_compute(sizes[z][0], sizes[z][1],
                            view_font_px(sizes[z][0], sizes[z][1]), 2, &l);
        for (int k = 0; k < 24; k++) {
            controls_state c;
            memset(&c, 0, sizeof c);
            c.n_kinds = 9;
            for (int i = 0; i < 9; i++)
                c.kind_names[i] = kinds[i];
            c.paused = k % 2;
            c.speed = (k / 2) % 3 == 0 ? 10 : (k / 2) % 3 == 1 ? 1000 : 0;
            c.kind = (k / 6) % 2 ? 2 : (k / 12) ? 4 : 0;
            snprintf(c.size_text, sizeof c.size_text, "%s",
                     c.kind == 2   ? "500 ms"
                     : c.kind == 4 ? "128 workers"
                                   : "");
            c.inject_s = k % 3 ? 10 : 300;
            c.ab = (k / 3) % 2;
            c.following = true;
            controls_at(sizes[z][0], sizes[z][1], &c, k ? &now : &first);
            const view_hits *h = k ? &now : &first;
            for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
                for (int j = 0; j < h->n; j++) {
                    const view_hit *t = &h->hit[j];
                    if (t->kind != HIT_CONTROL || t->a != ids[i])
                        continue;
                    ck_assert_msg(within(t->r, l.controls),
                                  "%dx%d: control %d outside the bar",
                                  sizes[z][0], sizes[z][1], ids[i]);
                    for (int q = 0; k && q < first.n; q++) {
                        const view_hit *o = &first.hit[q];
                        if (o->kind == HIT_CONTROL && o->a == t->a &&
                            o->b == t->b)
                            ck_assert_msg(fabs(o->r.x - t->r.x) < 0.01 &&
                                              fabs(o->r.w - t->r.w) < 0.01,
                                          "%dx%d, state %d: control %d "
                                          "(%d) at x %.1f w %.1f, was "
                                          "%.1f w %.1f",
                                          sizes[z][0], sizes[z][1], k, t->a,
                                          t->b, t->r.x, t->r.w, o->r.x, o->r.w);
                    }
                }
        }
    }
}
END_TEST

/* ---- The picker ------------------------------------------------------------ */

static int index_of(const picker_catalogue *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->name[i], name) == 0)
            return i;
    ck_abort_msg("%s is not offered", name);
    return -1;
}

START_TEST(picker_clicks_make_stacks)
{
    picker_catalogue c;
    ck_assert_int_gt(picker_catalogue_load(&c, NULL, 0), 10);
    ck_assert(!c.layer[index_of(&c, "exponential")]);
    ck_assert(c.layer[index_of(&c, "token_bucket")]);
    char out[256];
    const char *spec = "exponential+token_bucket";
    ck_assert_int_eq(picker_click(&c, spec, index_of(&c, "circuit_breaker"),
                                  out, sizeof out),
                     0);
    ck_assert_str_eq(out, "exponential+token_bucket+circuit_breaker");
    ck_assert_int_eq(
        picker_click(&c, spec, index_of(&c, "token_bucket"), out, sizeof out),
        0);
    ck_assert_str_eq(out, "exponential");
    ck_assert_int_eq(
        picker_click(&c, spec, index_of(&c, "immediate"), out, sizeof out), 0);
    ck_assert_str_eq(out, "immediate+token_bucket");
    /* The retry policy it already has: nothing to do. */
    ck_assert_int_eq(
        picker_click(&c, spec, index_of(&c, "exponential"), out, sizeof out),
        -1);
}
END_TEST

/* 1-2-5 steps: 0.1 -> 0.2 -> 0.5 -> 1 and back; 0 up is the floor. */
START_TEST(picker_ladder_steps)
{
    ck_assert_double_eq_tol(picker_ladder(0.1, +1, 0.01), 0.2, 1e-12);
    ck_assert_double_eq_tol(picker_ladder(0.2, +1, 0.01), 0.5, 1e-12);
    ck_assert_double_eq_tol(picker_ladder(0.5, +1, 0.01), 1.0, 1e-12);
    ck_assert_double_eq_tol(picker_ladder(1.0, -1, 0.01), 0.5, 1e-12);
    ck_assert_double_eq_tol(picker_ladder(0.3, -1, 0.01), 0.2, 1e-12);
    ck_assert_double_eq_tol(picker_ladder(0, +1, 0.01), 0.01, 1e-12);
}
END_TEST

/* exponential+token_bucket's parameters: exponential's first (base 100ms,
 * multiplier 2, cap 20s, max_attempts 5, jitter full, ratio 0.5), then
 * the bucket's; a key names its layer only where another layer has a
 * parameter of that name (none does here). */
START_TEST(picker_steps_parameters)
{
    policy_setup ps;
    sb_err e;
    ck_assert_int_eq(policy_setup_build("exponential+token_bucket", NULL, 0,
                                        NULL, 0, &ps, &e),
                     0);
    char kv[200];
    ck_assert_int_eq(picker_step(ps.stack, 0, +1, kv, sizeof kv), 0);
    ck_assert_str_eq(kv, "base=200ms");
    ck_assert_int_eq(picker_step(ps.stack, 0, -1, kv, sizeof kv), 0);
    ck_assert_str_eq(kv, "base=50ms");
    ck_assert_int_eq(picker_step(ps.stack, 3, +1, kv, sizeof kv), 0);
    ck_assert_str_eq(kv, "max_attempts=6");
    /* jitter: none|full|equal|...: one up from full is equal. */
    ck_assert_int_eq(picker_step(ps.stack, 4, +1, kv, sizeof kv), 0);
    ck_assert_str_eq(kv, "jitter=equal");
    ck_assert_int_eq(picker_step(ps.stack, 5, +1, kv, sizeof kv), 0);
    ck_assert_str_eq(kv, "ratio=0.55");
    ck_assert_int_eq(picker_step(ps.stack, 999, +1, kv, sizeof kv), -1);
    policy_setup_free(&ps);
    /* max_attempts at its floor of 1 does not go down. */
    setting one;
    setting_parse("max_attempts=1", "test", &one, &e);
    ck_assert_int_eq(policy_setup_build("immediate", NULL, 0, &one, 1, &ps, &e),
                     0);
    ck_assert_int_eq(picker_step(ps.stack, 0, +1, kv, sizeof kv), 0);
    ck_assert_str_eq(kv, "max_attempts=2");
    ck_assert_int_eq(picker_step(ps.stack, 0, -1, kv, sizeof kv), -1);
    policy_setup_free(&ps);
}
END_TEST

Suite *view_suite(void)
{
    Suite *s = suite_create("view");
    TCase *tc = tcase_create("pieces");
    tcase_add_test(tc, lanes_by_hand);
    tcase_add_test(tc, lanes_never_overlap);
    tcase_add_test(tc, faults_named_as_a_person_would);
    tcase_add_test(tc, values_carry_units);
    tcase_add_test(tc, state_counts);
    tcase_add_test(tc, hidpi_scale_is_drawable_over_window);
    tcase_add_test(tc, cells_show_shares);
    tcase_add_test(tc, shares_never_read_zero_for_some);
    tcase_add_test(tc, controls_keep_their_places);
    tcase_add_test(tc, million_clients_show_no_stripes);
    tcase_add_test(tc, picker_clicks_make_stacks);
    tcase_add_test(tc, picker_ladder_steps);
    tcase_add_test(tc, picker_steps_parameters);
    suite_add_tcase(s, tc);
    TCase *dr = tcase_create("drawn");
    tcase_set_timeout(dr, 120);
    tcase_add_test(dr, labels_never_overprint);
    tcase_add_test(dr, marks_belong_to_their_own_fault);
    tcase_add_test(dr, reference_names_clear_of_lines);
    tcase_add_test(dr, tooltip_stays_inside);
    tcase_add_test(dr, tooltip_hides_a_hidden_run);
    tcase_add_test(dr, help_fits_its_box);
    suite_add_tcase(s, dr);
    return s;
}
