/*
 * check_svg_inline.c -- cairo's SVG rewritten for an HTML page
 * (viz/svg_inline.h): numbers rounded, glyph outlines defined once a
 * page, path data relative with straight runs simplified.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg_inline.h"

/* svg written through svgi_write, as a string (free it). */
static char *rewrite(svgi_page *p, const char *svg, const char *prefix)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(svgi_write(p, f, svg, prefix), 0);
    fclose(f);
    return out;
}

/* Two decimals, trailing zeros and "-0" dropped; what is not a number is
 * copied. */
START_TEST(numbers_rounded)
{
    char b[32];
    ck_assert_str_eq(svgi_round("135.480469", 10, b), "135.48");
    ck_assert_str_eq(svgi_round("52.25", 5, b), "52.25");
    ck_assert_str_eq(svgi_round("18.050781", 9, b), "18.05");
    ck_assert_str_eq(svgi_round("7", 1, b), "7");
    ck_assert_str_eq(svgi_round("2.999", 5, b), "3");
    ck_assert_str_eq(svgi_round("-0.001", 6, b), "0");
    ck_assert_str_eq(svgi_round("1.2.3", 5, b), "1.2.3");
}
END_TEST

/* The same outline under two SVGs' own ids (cairo numbers from glyph0-0
 * in each) is defined once, as sbg0, and the second SVG refers to it;
 * a clip's id is prefixed with the SVG's own prefix, references too.
 * Before, each chart carried its own copy: 677 outlines, 529 kB, in a
 * 5-policy report that has 133 different ones. */
START_TEST(glyphs_shared_by_the_page)
{
    static const char a[] =
        " width=\"10pt\"><defs><g>\n"
        "<symbol overflow=\"visible\" id=\"glyph0-0\">\n"
        "<path style=\"stroke:none;\" d=\"M 0.40625 1.421875 L 4.4375 "
        "-5.703125 Z\"/>\n</symbol>\n</g>"
        "<clipPath id=\"clip1\"><path d=\"M 0 0 L 5 5 Z\"/></clipPath>"
        "</defs><g clip-path=\"url(#clip1)\">"
        "<use xlink:href=\"#glyph0-0\" x=\"43.789062\" y=\"164.898438\"/>"
        "</g></svg>";
    static const char b[] =
        " width=\"10pt\"><defs><g>\n"
        "<symbol overflow=\"visible\" id=\"glyph0-3\">\n"
        "<path style=\"stroke:none;\" d=\"M 0.406249 1.421876 L 4.4375 "
        "-5.703125 Z\"/>\n</symbol>\n</g></defs>"
        "<use xlink:href=\"#glyph0-3\" x=\"1\" y=\"2\"/></svg>";
    svgi_page *p = svgi_page_create();
    ck_assert_ptr_nonnull(p);
    char *oa = rewrite(p, a, "c1-0-");
    char *ob = rewrite(p, b, "c2-0-");
    ck_assert_msg(strstr(oa, "<symbol overflow=\"visible\" id=\"sbg0\">"), "%s",
                  oa);
    /* Positions rounded first (0.41 1.42, then 4.44 -5.70), then
     * differenced: 4.03 and -7.12, so steps add up to the rounded end. */
    ck_assert_msg(strstr(oa, "d=\"M0.41 1.42l4.03-7.12Z\""), "%s", oa);
    ck_assert_msg(strstr(oa, "<clipPath id=\"c1-0-clip1\">"), "%s", oa);
    ck_assert_msg(strstr(oa, "url(#c1-0-clip1)"), "%s", oa);
    ck_assert_msg(strstr(oa, "href=\"#sbg0\" x=\"43.79\" y=\"164.9\""), "%s",
                  oa);
    /* The same outline to a hundredth of a point: no second definition. */
    ck_assert_msg(strstr(ob, "<symbol") == NULL, "%s", ob);
    ck_assert_msg(strstr(ob, "href=\"#sbg0\" x=\"1\" y=\"2\""), "%s", ob);
    free(oa);
    free(ob);
    svgi_page_destroy(p);
}
END_TEST

/* A chart's path: from (10, 20), three points on the straight run to
 * (17.5, 20.05) -- (12.5, 20) and (15, 20) lie 0.017 and 0.033 pt off
 * the segment, under the 0.1 pt tolerance -- so only its end is written,
 * relative: l7.5 0.05; then (20, 30), which leaves the line: 2.5 9.95,
 * the letter not repeated.  Z closes.  Before: 5 absolute points. */
START_TEST(path_relative_and_simplified)
{
    static const char svg[] =
        "><path d=\"M 10 20 L 12.5 20 L 15 20 L 17.5 20.05 L 20 30 Z M 10 "
        "20 \"/></svg>";
    svgi_page *p = svgi_page_create();
    ck_assert_ptr_nonnull(p);
    char *o = rewrite(p, svg, "c1-0-");
    ck_assert_str_eq(o, "><path d=\"M10 20l7.5 0.05 2.5 9.95ZM10 20\"/></svg>");
    free(o);
    svgi_page_destroy(p);
}
END_TEST

Suite *svg_inline_suite(void)
{
    Suite *s = suite_create("svg_inline");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, numbers_rounded);
    tcase_add_test(tc, glyphs_shared_by_the_page);
    tcase_add_test(tc, path_relative_and_simplified);
    suite_add_tcase(s, tc);
    return s;
}
