/*
 * check_chart.c -- the chart geometry (viz/chart.h): nice ticks, axis
 * tops, value-to-pixel maps, the scrolling time window, number labels,
 * legend layout and the client field's grouping; and that drawing lands
 * where the geometry says, read back from an image surface.
 */
#include <cairo-svg.h>
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"

/* Heckbert's nice numbers: 1, 2, 5 x 10^k; "round" takes the nearest
 * (thresholds 1.5, 3, 7), otherwise the next one up. */
START_TEST(nice_numbers)
{
    ck_assert_double_eq(chart_nice_number(97, false), 100);
    ck_assert_double_eq(chart_nice_number(97, true), 100);
    ck_assert_double_eq(chart_nice_number(24.25, true), 20);
    ck_assert_double_eq(chart_nice_number(24.25, false), 50);
    ck_assert_double_eq(chart_nice_number(0.0031, true), 0.005);
    ck_assert_double_eq(chart_nice_number(0.0029, true), 0.002);
    ck_assert_double_eq(chart_nice_number(1.4, true), 1);
    ck_assert_double_eq(chart_nice_number(1.5, true), 2);
    ck_assert_double_eq(chart_nice_number(7, true), 10);
}
END_TEST

/* The step is the smallest nice number not below range / max: [0, 97] in
 * at most 5 intervals: 19.4 -> 20, ticks 0, 20, ..., 80 (100 is past the
 * data).  [0, 300] s in at most 6: 50 s apart, 0 to 300.  [12.3, 12.8]:
 * 0.1 apart, first 12.3, one decimal. */
START_TEST(tick_steps)
{
    chart_ticks t;
    chart_ticks_for(0, 97, 5, &t);
    ck_assert_double_eq(t.step, 20);
    ck_assert_double_eq(t.first, 0);
    ck_assert_int_eq(t.count, 5);
    ck_assert_int_eq(t.decimals, 0);
    chart_ticks_for(0, 300, 6, &t);
    ck_assert_double_eq(t.step, 50);
    ck_assert_int_eq(t.count, 7);
    chart_ticks_for(12.3, 12.8, 5, &t);
    ck_assert_double_eq_tol(t.step, 0.1, 1e-12);
    ck_assert_double_eq_tol(t.first, 12.3, 1e-9);
    ck_assert_int_eq(t.count, 6);
    ck_assert_int_eq(t.decimals, 1);
    /* Never more intervals than asked for, over many ranges. */
    for (double hi = 0.013; hi < 1e7; hi *= 1.37)
        for (int m = 2; m <= 10; m++) {
            chart_ticks_for(0, hi, m, &t);
            ck_assert_int_le(t.count - 1, m);
            ck_assert_int_ge(t.count, 2);
        }
}
END_TEST

/* The top of an axis from 0: max 97 -> a quarter is 24.25, nice 20, so
 * 100; 160 -> 40 -> 50, so 200; an idle series (max 0) uses the floor. */
START_TEST(axis_top)
{
    ck_assert_double_eq(chart_axis_top(97, 1), 100);
    ck_assert_double_eq(chart_axis_top(160, 1), 200);
    ck_assert_double_eq(chart_axis_top(0, 10), 10);
    ck_assert_double_eq(chart_axis_top(0, 0), 1);
}
END_TEST

START_TEST(scales_map_and_unmap)
{
    chart_scale x = {100, 400, 50, 650, false, false}; /* 2 px per unit */
    ck_assert_double_eq(chart_scale_map(&x, 100), 50);
    ck_assert_double_eq(chart_scale_map(&x, 250), 350);
    ck_assert_double_eq(chart_scale_unmap(&x, 350), 250);
    chart_scale y = {0, 10, 300, 100, false, false}; /* upwards */
    ck_assert_double_eq(chart_scale_map(&y, 10), 100);
    ck_assert_double_eq(chart_scale_map(&y, 2.5), 250);
    ck_assert_double_eq(chart_scale_unmap(&y, 250), 2.5);
}
END_TEST

/* A 60 s window shows [0, 60] until t = 60, then slides. */
START_TEST(time_window_scrolls)
{
    double lo, hi;
    chart_time_window(15, 60, &lo, &hi);
    ck_assert_double_eq(lo, 0);
    ck_assert_double_eq(hi, 60);
    chart_time_window(90, 60, &lo, &hi);
    ck_assert_double_eq(lo, 30);
    ck_assert_double_eq(hi, 90);
}
END_TEST

START_TEST(number_labels)
{
    char b[32];
    ck_assert_str_eq(chart_format(120, 0, b, sizeof b), "120");
    ck_assert_str_eq(chart_format(2.5, 1, b, sizeof b), "2.5");
    ck_assert_str_eq(chart_format(9999, 0, b, sizeof b), "9999");
    ck_assert_str_eq(chart_format(12345, 0, b, sizeof b), "12.3k");
    ck_assert_str_eq(chart_format(20000, 0, b, sizeof b), "20k");
    ck_assert_str_eq(chart_format(3.4e6, 0, b, sizeof b), "3.4M");
    ck_assert_str_eq(chart_format(-0.0, 0, b, sizeof b), "0");
}
END_TEST

/* Items 30, 50, 40 wide with a 10 swatch and 6 gap: each takes swatch +
 * gap/2 + text, then a gap.  In 120 units: 43 fits at 0, the next starts
 * at 49 and needs 63 (ends at 112 <= 120), the third would start at 118:
 * it wraps to a second row. */
START_TEST(legend_wraps)
{
    double w[] = {30, 50, 40}, xs[3], ys[3];
    int rows = chart_legend_layout(w, 3, 10, 6, 14, 120, xs, ys);
    ck_assert_int_eq(rows, 2);
    ck_assert_double_eq(xs[0], 0);
    ck_assert_double_eq(xs[1], 49);
    ck_assert_double_eq(ys[1], 0);
    ck_assert_double_eq(xs[2], 0);
    ck_assert_double_eq(ys[2], 14);
    /* Wide enough for all: one row. */
    ck_assert_int_eq(chart_legend_layout(w, 3, 10, 6, 14, 500, xs, ys), 1);
}
END_TEST

/* 100 clients in 200 x 100 px at 4 px cells at least: they fit one per
 * cell.  The largest square: with 15 columns (cells of at most 200/15 =
 * 13.33 px) 7 rows take 93.3 px <= 100; 14 columns need 8 rows of more
 * than 13.33 px, over 106 px.  So 13.33 px, 15 x 7.
 * A million clients in the same area: 50 x 25 = 1250 cells of 4 px, so
 * 800 clients a cell. */
START_TEST(field_grouping)
{
    chart_field f;
    chart_rect area = {0, 0, 200, 100};
    chart_field_layout(&f, area, 100, 4);
    ck_assert_uint_eq(f.per_cell, 1);
    ck_assert_uint_eq(f.cells, 100);
    ck_assert_double_eq_tol(f.cell, 13.33, 0.01);
    ck_assert_uint_eq(f.cols, 15);
    ck_assert_uint_eq(f.rows, 7);
    ck_assert_double_le(f.rows * f.cell, 100);
    chart_field_layout(&f, area, 1000000, 4);
    ck_assert_uint_eq(f.per_cell, 800);
    ck_assert_uint_eq(f.cells, 1250);
    ck_assert_double_le(f.rows * f.cell, 100 + 1e-9);
    ck_assert_double_ge(f.cell, 4);
}
END_TEST

/* A cell shows its items' most common state; ties go to the higher one. */

/* chart_count_states reads 8 states at a time and skips words of idle
 * ones: it must give what counting one by one gives, at every alignment
 * and length, with long idle runs, mixed words, states past n_states
 * (counted as 0) and more than 255 mixed words in a row (the lane sums
 * must not overflow). */
START_TEST(state_counts_match_one_by_one)
{
    enum { N = 5000 };
    static uint8_t st[N];
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < N; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        st[i] = i < 1200   ? (uint8_t)(x % 9) /* mixed, some past 6 */
                : i < 3000 ? (x % 50 == 0 ? (uint8_t)(1 + x % 5) : 0)
                           : (uint8_t)(x % 6);
    }
    for (uint32_t from = 0; from < 9; from++)
        for (uint32_t to = from; to < N; to += 1 + to / 3) {
            uint32_t got[6], want[6] = {0};
            for (uint32_t i = from; i < to; i++)
                want[st[i] < 6 ? st[i] : 0]++;
            chart_count_states(st, from, to, 6, got);
            for (int s = 0; s < 6; s++)
                ck_assert_msg(got[s] == want[s],
                              "[%u, %u) state %d: %u, one by one %u", from, to,
                              s, got[s], want[s]);
        }
}
END_TEST

START_TEST(field_cell_state)
{
    chart_field f;
    chart_rect area = {0, 0, 8, 8};
    chart_field_layout(&f, area, 12, 4); /* 4 cells of 3 */
    ck_assert_uint_eq(f.per_cell, 3);
    uint8_t s[12] = {0, 0, 4, 1, 4, 4, 2, 3, 5, 5, 5, 5};
    ck_assert_uint_eq(chart_field_cell_state(&f, s, 0, 6), 0);
    ck_assert_uint_eq(chart_field_cell_state(&f, s, 1, 6), 4);
    ck_assert_uint_eq(chart_field_cell_state(&f, s, 2, 6), 5); /* tie */
    ck_assert_uint_eq(chart_field_cell_state(&f, s, 3, 6), 5);
}
END_TEST

/* Drawing lands where the scales say: a series at a constant value is a
 * line of its colour at that row of the plot area, and nothing of its
 * colour is drawn outside the plot area even when it leaves the range. */
static uint32_t pixel(cairo_surface_t *s, int x, int y)
{
    const unsigned char *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    return *(const uint32_t *)(const void *)(d + y * stride + x * 4);
}

static bool is_orange(uint32_t p)
{
    int r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;
    return r > 200 && g > 130 && g < 190 && b < 60;
}

START_TEST(series_lands_on_its_row)
{
    cairo_surface_t *s =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, 400, 200);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    chart_panel p;
    chart_panel_init(&p, (chart_rect){0, 0, 400, 200}, "load", "/s", 0, 10, 0,
                     100, 12);
    chart_panel_frame(cr, &p);
    double t[] = {0, 5, 10}, v[] = {50, 50, 500};
    chart_data d = {t, v, 3, 0};
    chart_panel_series(cr, &p, NULL, &d, &chart_palette[0]);
    cairo_surface_flush(s);
    /* The 2 px line is centred on the value's row: the pixel that holds
     * that row is wholly covered. */
    int y50 = (int)floor(chart_scale_map(&p.y, 50));
    int x25 = (int)lround(chart_scale_map(&p.x, 2.5));
    ck_assert(is_orange(pixel(s, x25, y50)));
    ck_assert(!is_orange(pixel(s, x25, y50 - 3)));
    ck_assert(!is_orange(pixel(s, x25, y50 + 3)));
    for (int y = 0; y < 200; y++)
        for (int x = 0; x < 400; x++)
            if (is_orange(pixel(s, x, y)))
                ck_assert(chart_panel_hit(&p, x, y));
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}
END_TEST

/* A log axis's ends are 1-2-5 numbers outside the data: 3 to 1 800 ms
 * becomes 2 to 2 000; 0.3 alone 0.2 to 0.5; 5 alone 5 to 10 (its end
 * rounds to itself, so the next one up); nonsense [1, 10]. */
START_TEST(log_range)
{
    double lo = 3, hi = 1800;
    chart_log_range(&lo, &hi);
    ck_assert_double_eq(lo, 2);
    ck_assert_double_eq(hi, 2000);
    lo = hi = 0.3;
    chart_log_range(&lo, &hi);
    ck_assert_double_eq(lo, 0.2);
    ck_assert_double_eq(hi, 0.5);
    lo = hi = 5;
    chart_log_range(&lo, &hi);
    ck_assert_double_eq(lo, 5);
    ck_assert_double_eq(hi, 10);
    lo = 1;
    hi = 100;
    chart_log_range(&lo, &hi);
    ck_assert_double_eq(lo, 1);
    ck_assert_double_eq(hi, 100);
    lo = -1;
    hi = 4;
    chart_log_range(&lo, &hi);
    ck_assert_double_eq(lo, 1);
    ck_assert_double_eq(hi, 10);
}
END_TEST

/* [1, 1000]: the 1-2-5 numbers are 10 ticks, 9 intervals: all of them
 * when 10 may be; with 5 only the powers of ten (3 intervals).  [1, 1e8]
 * in 5: 1-2-5 is 24 intervals, every power 8, every 2nd power 4: 1, 100,
 * 1e4, 1e6, 1e8.  [2, 50] in 2: the powers leave one tick (10), so the
 * 1-2-5 ticks stay, all five.  [0.02, 5]: 0.02 is exactly the double
 * 0.02 (2 / 100, not 2 * 0.01). */
START_TEST(log_ticks)
{
    static const struct {
        double lo, hi;
        int max, count;
        double first, last;
    } cases[] = {{1, 1000, 10, 10, 1, 1000},
                 {1, 1000, 5, 4, 1, 1000},
                 {1, 1e8, 5, 5, 1, 1e8},
                 {2, 50, 2, 5, 2, 50},
                 {0.02, 5, 10, 8, 0.02, 5}};
    double t[32];
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        int n = chart_log_ticks(cases[k].lo, cases[k].hi, cases[k].max, t, 32);
        ck_assert_int_eq(n, cases[k].count);
        ck_assert_double_eq(t[0], cases[k].first);
        ck_assert_double_eq(t[n - 1], cases[k].last);
    }
    chart_log_ticks(1, 1000, 10, t, 32);
    ck_assert_double_eq(t[1], 2);
    ck_assert_double_eq(t[5], 50);
    chart_log_ticks(1, 1e8, 5, t, 32);
    ck_assert_double_eq(t[1], 100);
    chart_log_ticks(0.02, 5, 10, t, 32);
    ck_assert_double_eq(t[3], 0.2);
    ck_assert_int_eq(chart_log_ticks(1, 1000, 10, t, 3), 3); /* capped */
    ck_assert_int_eq(chart_log_ticks(0, 10, 5, t, 32), 0);
}
END_TEST

/* On a log scale 1 to 1000 over 300 px, each decade takes 100 px. */
START_TEST(log_scale)
{
    chart_scale x = {1, 1000, 0, 300, true, false};
    ck_assert_double_eq_tol(chart_scale_map(&x, 10), 100, 1e-9);
    ck_assert_double_eq_tol(chart_scale_map(&x, 100), 200, 1e-9);
    ck_assert_double_eq_tol(chart_scale_map(&x, 1000), 300, 1e-9);
    ck_assert(isnan(chart_scale_map(&x, 0)));
    ck_assert(isnan(chart_scale_map(&x, -5)));
    ck_assert_double_eq_tol(chart_scale_unmap(&x, 200), 100, 1e-9);
}
END_TEST

/* A report's panel at 10 px: left 4.2 em of tick labels and 1.3 em for
 * the turned y label = 55; top 1.9 em of title = 19; bottom 1.6 + 1.5 em
 * = 31; right 1.6 em = 16.  So the plot is 329 x 150 at (55, 19). */
START_TEST(axes_panel)
{
    chart_panel p;
    chart_axes ax = {"latency (ms)", "share", true, false, false};
    chart_panel_init_axes(&p, (chart_rect){0, 0, 400, 200}, "CDF", &ax, 1, 1000,
                          0, 1, 10);
    ck_assert_double_eq_tol(p.plot.x, 55, 1e-9);
    ck_assert_double_eq_tol(p.plot.y, 19, 1e-9);
    ck_assert_double_eq_tol(p.plot.w, 329, 1e-9);
    ck_assert_double_eq_tol(p.plot.h, 150, 1e-9);
    ck_assert(p.x.log);
    ck_assert(p.x_suffix == NULL && p.unit == NULL);
    ck_assert_double_eq_tol(chart_scale_map(&p.x, 10), 55 + 329 / 3.0, 1e-9);
    /* The GUI's panel keeps its unit after the last tick. */
    chart_panel_init(&p, (chart_rect){0, 0, 400, 200}, "load", "/s", 0, 10, 0,
                     1, 10);
    ck_assert_str_eq(p.x_suffix, " s");
    ck_assert(!p.x.log);
}
END_TEST

/* Four bars across a plot 400 wide from x = 100: slots of 100, a bar 0.6
 * of its slot (60) centred, so bar 1 (slot 200 to 300) spans 220 to 280.
 * On y [0, 10] over 200 px (bottom at 250), value 5 reaches 150; a value
 * past the axis is cut at its end; a negative one hangs from 0 downwards. */
START_TEST(bar_geometry)
{
    chart_panel p;
    memset(&p, 0, sizeof p);
    p.plot = (chart_rect){100, 50, 400, 200};
    p.y = (chart_scale){0, 10, 250, 50, false, false};
    chart_rect b = chart_bar_rect(&p, 4, 1, 0.6, 5);
    ck_assert_double_eq(b.x, 220);
    ck_assert_double_eq(b.w, 60);
    ck_assert_double_eq(b.y, 150);
    ck_assert_double_eq(b.h, 100);
    b = chart_bar_rect(&p, 4, 3, 0.6, 50);
    ck_assert_double_eq(b.x, 420);
    ck_assert_double_eq(b.y, 50);
    ck_assert_double_eq(b.h, 200);
    p.y = (chart_scale){-10, 10, 250, 50, false, false}; /* 0 at 150 */
    b = chart_bar_rect(&p, 4, 0, 0.6, -5);
    ck_assert_double_eq(b.y, 150);
    ck_assert_double_eq(b.h, 50);
}
END_TEST

/* A 4 x 5 grid in 100 x 50 at (10, 20): cells 25 x 10; j counts from the
 * bottom, so (0, 0) is the lower left at y 60 and (3, 4) the upper right
 * at y 20. */
START_TEST(cell_grid)
{
    chart_rect r = {10, 20, 100, 50};
    chart_rect c = chart_cell_rect(r, 4, 5, 0, 0);
    ck_assert_double_eq(c.x, 10);
    ck_assert_double_eq(c.y, 60);
    ck_assert_double_eq(c.w, 25);
    ck_assert_double_eq(c.h, 10);
    c = chart_cell_rect(r, 4, 5, 3, 4);
    ck_assert_double_eq(c.x, 85);
    ck_assert_double_eq(c.y, 20);
}
END_TEST

/* Viridis's ends are matplotlib's (#440154, #fde725), 0.05 is halfway
 * between the first two anchors, NaN and out-of-range values clamp, and
 * the luminance rises all the way (what makes it read in grey). */
START_TEST(viridis_scale)
{
    chart_style c = chart_viridis(0);
    ck_assert_double_eq_tol(c.r * 255, 68, 1e-9);
    ck_assert_double_eq_tol(c.g * 255, 1, 1e-9);
    ck_assert_double_eq_tol(c.b * 255, 84, 1e-9);
    c = chart_viridis(1);
    ck_assert_double_eq_tol(c.r * 255, 253, 1e-9);
    ck_assert_double_eq_tol(c.g * 255, 231, 1e-9);
    ck_assert_double_eq_tol(c.b * 255, 37, 1e-9);
    c = chart_viridis(0.05);
    ck_assert_double_eq_tol(c.r * 255, 70, 1e-9);
    ck_assert_double_eq_tol(c.g * 255, 19, 1e-9);
    ck_assert_double_eq_tol(c.b * 255, 101, 1e-9);
    ck_assert_double_eq(chart_viridis(NAN).r, chart_viridis(0).r);
    ck_assert_double_eq(chart_viridis(7).g, chart_viridis(1).g);
    double prev = -1;
    for (int i = 0; i <= 100; i++) {
        c = chart_viridis(i / 100.0);
        double y = 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
        ck_assert_double_gt(y, prev);
        prev = y;
    }
    ck_assert_double_eq(c.a, 1);
}
END_TEST

/* Hatching a 10 x 10 square at the origin 5 apart: the lines x + y = 5,
 * 10, 15 cross it (0 and 20 only touch a corner).  A 4 x 4 square at
 * (2, 3) meets only x + y = 10, from (3, 7) to (6, 4), and its right
 * neighbour's line starts where that one ends: the lattice is shared. */
START_TEST(hatch_geometry)
{
    double xy[4 * 8];
    ck_assert_int_eq(chart_hatch_lines((chart_rect){0, 0, 10, 10}, 5, xy, 8),
                     3);
    double want[] = {0, 5, 5, 0, 0, 10, 10, 0, 5, 10, 10, 5};
    for (int i = 0; i < 12; i++)
        ck_assert_double_eq(xy[i], want[i]);
    ck_assert_int_eq(chart_hatch_lines((chart_rect){2, 3, 4, 4}, 5, xy, 8), 1);
    ck_assert_double_eq(xy[0], 3);
    ck_assert_double_eq(xy[1], 7);
    ck_assert_double_eq(xy[2], 6);
    ck_assert_double_eq(xy[3], 4);
    ck_assert_int_eq(chart_hatch_lines((chart_rect){6, 3, 4, 4}, 5, xy, 8), 2);
    ck_assert_double_eq(xy[0], 6);
    ck_assert_double_eq(xy[1], 4);
    /* The count is returned in full even when fewer are written. */
    ck_assert_int_eq(chart_hatch_lines((chart_rect){0, 0, 10, 10}, 5, xy, 1),
                     3);
    ck_assert_int_eq(chart_hatch_lines((chart_rect){0, 0, 0, 10}, 5, xy, 8), 0);
}
END_TEST

/* Wrapping with the real font: widths are measured, so each case is
 * built from the widths of the words it should keep. */
static cairo_t *text_context(cairo_surface_t **s)
{
    *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 10, 10);
    cairo_t *cr = cairo_create(*s);
    chart_font(cr, 10, false);
    return cr;
}

static double width_of(cairo_t *cr, const char *text, const chart_line *l)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%.*s%s", (int)l->len, text + l->start,
             l->cut ? "\xe2\x80\xa6" : "");
    return chart_text_width(cr, buf);
}

START_TEST(text_wraps)
{
    cairo_surface_t *s;
    cairo_t *cr = text_context(&s);
    chart_line l[8];
    const char *t = "alpha beta gamma";
    double w = chart_text_width(cr, "alpha beta") + 0.01;
    ck_assert_int_eq(chart_wrap(cr, t, w, l, 8), 2);
    ck_assert_uint_eq(l[0].start, 0);
    ck_assert_uint_eq(l[0].len, 10);
    ck_assert_uint_eq(l[1].start, 11);
    ck_assert_uint_eq(l[1].len, 5);
    ck_assert(!l[0].cut && !l[1].cut);
    /* A newline always breaks; an empty line stays. */
    ck_assert_int_eq(chart_wrap(cr, "a\n\nb", 1000, l, 8), 3);
    ck_assert_uint_eq(l[1].len, 0);
    ck_assert_uint_eq(l[2].start, 3);
    ck_assert_int_eq(chart_wrap(cr, "", 1000, l, 8), 1);
    ck_assert_uint_eq(l[0].len, 0);
    /* A word wider than the line is cut with an ellipsis that fits. */
    t = "abcdefghijklmnop next";
    w = chart_text_width(cr, "abcd\xe2\x80\xa6") + 0.01;
    ck_assert_int_eq(chart_wrap(cr, t, w, l, 8), 2);
    ck_assert(l[0].cut);
    ck_assert_uint_eq(l[0].len, 4);
    ck_assert_uint_eq(l[1].start, 17);
    /* A word too long for the line breaks after a colon or an equals
     * sign that fits, rather than lose its end. */
    t = "exponential:jitter=full";
    w = chart_text_width(cr, "exponential:jitter=") + 0.01;
    ck_assert_int_eq(chart_wrap(cr, t, w, l, 8), 2);
    ck_assert_uint_eq(l[0].len, 19);
    ck_assert(!l[0].cut);
    ck_assert_uint_eq(l[1].start, 19);
    ck_assert_uint_eq(l[1].len, 4);
    /* Past max lines the last one ends in an ellipsis, within the width. */
    t = "one two three four";
    w = chart_text_width(cr, "one two") + 0.01;
    ck_assert_int_eq(chart_wrap(cr, t, w, l, 1), 1);
    ck_assert(l[0].cut);
    ck_assert_double_le(width_of(cr, t, &l[0]), w);
    /* A cut never splits a UTF-8 character: "é" is two bytes. */
    t = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9";
    w = chart_text_width(cr, "\xc3\xa9\xc3\xa9\xe2\x80\xa6") + 0.01;
    ck_assert_int_eq(chart_wrap(cr, t, w, l, 8), 1);
    ck_assert_uint_eq(l[0].len, 4);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}
END_TEST

/* The legend's rows: three items that need the width of two rows. */
START_TEST(legend_rows_height)
{
    cairo_surface_t *s;
    cairo_t *cr = text_context(&s);
    chart_legend_item it[3] = {{"first policy", &chart_palette[0], 0, 0},
                               {"second", &chart_palette[1], 1, 0},
                               {"third one", &chart_palette[2], 0, 1}};
    double line = 10 * 0.8 * 1.5;
    ck_assert_double_eq_tol(chart_legend_rows(cr, 0, 0, 2000, 10, it, 3, false),
                            line, 1e-9);
    chart_font(cr, 8, false);
    double w = chart_text_width(cr, "first policy") + 8 * 2.4 + 8 * 0.8;
    ck_assert_double_eq_tol(chart_legend_rows(cr, 0, 0, w, 10, it, 3, false),
                            3 * line, 1e-9);
    ck_assert_double_eq(chart_legend_rows(cr, 0, 0, w, 10, it, 0, false), 0);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}
END_TEST

/* The client field and a dense series drawn twice: on an image, where
 * their boxes are written straight into the pixels, and through a
 * recording surface (as on PDF or SVG), where cairo fills them as paths,
 * then painted onto an image.  The pixels must be the same, including
 * under a translation and at the clip's edges. */
static void draw_dense(cairo_t *cr)
{
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_translate(cr, 3, 2);
    static uint8_t states[1500];
    for (int i = 0; i < 1500; i++)
        states[i] = (uint8_t)((i * 7 + i / 13) % 5);
    chart_field f;
    chart_field_layout(&f, (chart_rect){300.3, 10.7, 150, 180}, 1500, 3.0);
    chart_field_draw(cr, &f, states, chart_palette, 5);
    chart_panel p;
    chart_panel_init(&p, (chart_rect){0, 0, 290, 200}, "load", "/s", 0, 900, 0,
                     100, 12);
    static double t[900], v[900];
    for (int i = 0; i < 900; i++) {
        t[i] = i;
        v[i] = 50 + 60 * sin(i / 9.0) + (i % 17) * 3; /* leaves the range */
    }
    chart_data d = {t, v, 900, 0};
    chart_style dashed = chart_palette[2];
    dashed.dash = 1;
    chart_panel_series(cr, &p, NULL, &d, &chart_palette[5]);
    for (int i = 0; i < 900; i++)
        v[i] = 40 + 30 * cos(i / 5.0);
    chart_panel_series(cr, &p, NULL, &d, &dashed);
}

/* A dense series (360 points on a 640 px plot: a 2 h pipeline's 20 s
 * rows, or 6 minutes of 1 s buckets) is a line, not dots: every pixel
 * column between its first and last point holds some of its ink.  The
 * column mode used to paint only the columns a point fell in, so every
 * other column stayed white (issue 18's repro: compare retry-storm
 * --seeds 3 --set scenario.duration=360s). */
static double dense_v(int i)
{
    return 50 + 30 * sin(i / 11.0);
}

START_TEST(dense_series_is_joined)
{
    cairo_surface_t *s =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, 800, 240);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    chart_panel p;
    chart_panel_init(&p, (chart_rect){0, 0, 700, 240}, "load", "/s", 0, 360, 0,
                     100, 12);
    static double t[360], v[360];
    for (int i = 0; i < 360; i++) {
        t[i] = i + 0.5;
        v[i] = dense_v(i);
    }
    chart_data d = {t, v, 360, 0};
    chart_panel_series(cr, &p, NULL, &d, &chart_palette[0]);
    cairo_surface_flush(s);
    int xa = (int)ceil(chart_scale_map(&p.x, t[0]));
    int xb = (int)floor(chart_scale_map(&p.x, t[359]));
    int empty = 0;
    for (int x = xa; x <= xb; x++) {
        bool ink = false;
        for (int y = (int)p.plot.y; y < p.plot.y + p.plot.h && !ink; y++)
            ink = is_orange(pixel(s, x, y));
        empty += !ink;
    }
    ck_assert_int_gt(xb - xa, 600);
    ck_assert_double_lt(p.plot.w, 360 * 2); /* dense: under 2 px a point */
    ck_assert_msg(empty == 0, "%d of %d columns without the line", empty,
                  xb - xa + 1);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}
END_TEST

static cairo_status_t svg_collect(void *closure, const unsigned char *data,
                                  unsigned int len)
{
    char **buf = closure;
    size_t have = *buf ? strlen(*buf) : 0;
    char *b = realloc(*buf, have + len + 1);
    if (b == NULL)
        return CAIRO_STATUS_NO_MEMORY;
    memcpy(b + have, data, len);
    b[have + len] = '\0';
    *buf = b;
    return CAIRO_STATUS_SUCCESS;
}

/* On a vector surface (the PDF and the HTML's SVG), the same dense
 * series is one stroked path of 359 segments -- a line a reader can zoom
 * into -- not hundreds of one-point boxes. */
START_TEST(dense_series_is_a_path_on_vector_surfaces)
{
    char *svg = NULL;
    cairo_surface_t *s =
        cairo_svg_surface_create_for_stream(svg_collect, &svg, 700, 240);
    cairo_t *cr = cairo_create(s);
    chart_panel p;
    chart_panel_init(&p, (chart_rect){0, 0, 700, 240}, "load", "/s", 0, 360, 0,
                     100, 12);
    static double t[360], v[360];
    for (int i = 0; i < 360; i++) {
        t[i] = i + 0.5;
        v[i] = dense_v(i);
    }
    chart_data d = {t, v, 360, 0};
    chart_panel_series(cr, &p, NULL, &d, &chart_palette[0]);
    cairo_destroy(cr);
    cairo_surface_finish(s);
    cairo_surface_destroy(s);
    ck_assert_ptr_nonnull(svg);
    /* The stroke (style fill:none) is a path whose commands are one M
     * and 359 L. */
    const char *path = strstr(svg, "<path style=\"fill:none");
    ck_assert_msg(path != NULL, "no stroked path: %.400s", svg);
    const char *dstart = strstr(path, " d=\"");
    ck_assert_ptr_nonnull(dstart);
    int l = 0, m = 0;
    for (const char *c = dstart + 4; *c && *c != '"'; c++) {
        l += *c == 'L';
        m += *c == 'M';
    }
    ck_assert_int_eq(m, 1);
    ck_assert_int_eq(l, 359);
    free(svg);
}
END_TEST

/* WCAG 2's relative luminance of an sRGB colour and the contrast ratio
 * against white, (1.05) / (L + 0.05). */
static double lin(double c)
{
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double contrast_on_white(const chart_style *c)
{
    double l = 0.2126 * lin(c->r) + 0.7152 * lin(c->g) + 0.0722 * lin(c->b);
    return 1.05 / (l + 0.05);
}

/* Every palette colour is readable as a line on white: at least 2:1
 * (Okabe-Ito's yellow, 240/228/66, was 1.32:1 -- a line nobody sees on
 * paper).  The two lightest kept, orange and sky blue, are 2.25 and
 * 2.31:1 by the formula; the others at least 3:1. */
START_TEST(palette_readable_on_white)
{
    int under3 = 0;
    for (int i = 0; i < CHART_PALETTE_SIZE; i++) {
        double c = contrast_on_white(&chart_palette[i]);
        ck_assert_msg(c >= 2.0, "palette %d: %.2f:1", i, c);
        under3 += c < 3.0;
    }
    ck_assert_int_eq(under3, 2);
}
END_TEST

START_TEST(direct_pixels_equal_cairo_fill)
{
    cairo_surface_t *a =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, 480, 220);
    cairo_t *cr = cairo_create(a);
    draw_dense(cr);
    cairo_destroy(cr);
    cairo_surface_flush(a);
    cairo_surface_t *rec = cairo_recording_surface_create(
        CAIRO_CONTENT_COLOR, &(cairo_rectangle_t){0, 0, 480, 220});
    cr = cairo_create(rec);
    draw_dense(cr);
    cairo_destroy(cr);
    cairo_surface_t *b =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, 480, 220);
    cr = cairo_create(b);
    cairo_set_source_surface(cr, rec, 0, 0);
    cairo_paint(cr);
    cairo_destroy(cr);
    cairo_surface_flush(b);
    long differ = 0, coloured = 0;
    for (int y = 0; y < 220; y++)
        for (int x = 0; x < 480; x++) {
            uint32_t pa = pixel(a, x, y) & 0xffffff;
            if (pa != (pixel(b, x, y) & 0xffffff) && differ < 20)
                fprintf(stderr, "%d,%d: %06x %06x\n", x, y, pa,
                        pixel(b, x, y) & 0xffffff);
            differ += pa != (pixel(b, x, y) & 0xffffff);
            coloured += pa != 0xffffff;
        }
    ck_assert_int_eq(differ, 0);
    ck_assert_int_gt(coloured, 20000); /* the test drew something */
    cairo_surface_destroy(rec);
    cairo_surface_destroy(a);
    cairo_surface_destroy(b);
}
END_TEST

/* A symlog axis (retry-storm's queue: 120k for one policy, under 10 for
 * the rest) over [0, 100000] onto 0..500 pt: f(v) = log10(1 + v), so 0
 * maps to 0, 1 to 500 * log10(2) / log10(100001) = 30.10, 10 to
 * 500 * log10(11) / 5.0000043 = 104.14, 100000 to 500.  A queue of 5
 * lands at 77.8 pt; on the linear axis it was at 0.025 pt, drawn on the
 * zero line.  unmap inverts map. */
START_TEST(symlog_scale)
{
    chart_scale s = {0, 100000, 0, 500, false, true};
    chart_scale lin = {0, 100000, 0, 500, false, false};
    ck_assert_double_eq_tol(chart_scale_map(&s, 0), 0, 1e-9);
    ck_assert_double_eq_tol(chart_scale_map(&s, 1), 30.103, 1e-3);
    ck_assert_double_eq_tol(chart_scale_map(&s, 10), 104.139, 1e-3);
    ck_assert_double_eq_tol(chart_scale_map(&s, 100000), 500, 1e-9);
    ck_assert_double_eq_tol(chart_scale_map(&s, 5), 77.815, 1e-3);
    ck_assert_double_eq_tol(chart_scale_map(&lin, 5), 0.025, 1e-9);
    for (double v = 0; v <= 100000; v = v * 3 + 0.5)
        ck_assert_double_eq_tol(chart_scale_unmap(&s, chart_scale_map(&s, v)),
                                v, 1e-6 * (1 + v));
}
END_TEST

Suite *chart_suite(void)
{
    Suite *s = suite_create("chart");
    TCase *tc = tcase_create("geometry");
    tcase_add_test(tc, nice_numbers);
    tcase_add_test(tc, tick_steps);
    tcase_add_test(tc, axis_top);
    tcase_add_test(tc, scales_map_and_unmap);
    tcase_add_test(tc, time_window_scrolls);
    tcase_add_test(tc, number_labels);
    tcase_add_test(tc, legend_wraps);
    tcase_add_test(tc, field_grouping);
    tcase_add_test(tc, field_cell_state);
    tcase_add_test(tc, state_counts_match_one_by_one);
    tcase_add_test(tc, log_range);
    tcase_add_test(tc, log_ticks);
    tcase_add_test(tc, log_scale);
    tcase_add_test(tc, symlog_scale);
    tcase_add_test(tc, axes_panel);
    tcase_add_test(tc, bar_geometry);
    tcase_add_test(tc, cell_grid);
    tcase_add_test(tc, viridis_scale);
    tcase_add_test(tc, hatch_geometry);
    tcase_add_test(tc, palette_readable_on_white);
    suite_add_tcase(s, tc);
    tc = tcase_create("drawing");
    tcase_add_test(tc, series_lands_on_its_row);
    tcase_add_test(tc, direct_pixels_equal_cairo_fill);
    tcase_add_test(tc, dense_series_is_joined);
    tcase_add_test(tc, dense_series_is_a_path_on_vector_surfaces);
    tcase_add_test(tc, text_wraps);
    tcase_add_test(tc, legend_rows_height);
    suite_add_tcase(s, tc);
    return s;
}
