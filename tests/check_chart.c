/*
 * check_chart.c -- the chart geometry (viz/chart.h): nice ticks, axis
 * tops, value-to-pixel maps, the scrolling time window, number labels,
 * legend layout and the client field's grouping; and that drawing lands
 * where the geometry says, read back from an image surface.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
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
    chart_scale x = {100, 400, 50, 650}; /* 2 px per unit */
    ck_assert_double_eq(chart_scale_map(&x, 100), 50);
    ck_assert_double_eq(chart_scale_map(&x, 250), 350);
    ck_assert_double_eq(chart_scale_unmap(&x, 350), 250);
    chart_scale y = {0, 10, 300, 100}; /* upwards */
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
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 400,
                                                    200);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    chart_panel p;
    chart_panel_init(&p, (chart_rect){0, 0, 400, 200}, "load", "/s", 0, 10,
                     0, 100, 12);
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
    chart_panel_init(&p, (chart_rect){0, 0, 290, 200}, "load", "/s", 0, 900,
                     0, 100, 12);
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

START_TEST(direct_pixels_equal_cairo_fill)
{
    cairo_surface_t *a = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 480,
                                                    220);
    cairo_t *cr = cairo_create(a);
    draw_dense(cr);
    cairo_destroy(cr);
    cairo_surface_flush(a);
    cairo_surface_t *rec = cairo_recording_surface_create(
        CAIRO_CONTENT_COLOR, &(cairo_rectangle_t){0, 0, 480, 220});
    cr = cairo_create(rec);
    draw_dense(cr);
    cairo_destroy(cr);
    cairo_surface_t *b = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 480,
                                                    220);
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
                fprintf(stderr, "%d,%d: %06x %06x\n", x, y, pa, pixel(b, x, y) & 0xffffff);
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
    suite_add_tcase(s, tc);
    tc = tcase_create("drawing");
    tcase_add_test(tc, series_lands_on_its_row);
    tcase_add_test(tc, direct_pixels_equal_cairo_fill);
    suite_add_tcase(s, tc);
    return s;
}
