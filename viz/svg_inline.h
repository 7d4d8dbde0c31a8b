/*
 * svg_inline.h -- cairo's SVG made fit to inline, many times over, into
 * one HTML page (report.c's charts).
 *
 * cairo writes every SVG on its own: its glyphs as <symbol> outlines
 * numbered from glyph0-0, its clips from clip1, and its numbers with six
 * decimals.  Inlined as is, two charts would draw each other's glyphs
 * (ids are global to a page), every chart would carry its own copy of
 * every outline (half of a 5-policy report's bytes), and a coordinate
 * would spend eleven bytes on a millionth of a point.  This module
 * rewrites one SVG at a time:
 *   - each glyph outline is defined once per page, as "sbg<n>", the
 *     first time one is met; a later SVG's identical outline (the same
 *     path, rounded as below) becomes a reference to that one;
 *   - every other id, and every reference to one, gets the caller's
 *     prefix;
 *   - numbers in x and y attributes keep two decimals; path data ("d")
 *     is rewritten relative, in steps of 0.01 pt for glyphs and 0.05 pt
 *     for the rest (0.07 px at the page's widest, 1070 px for 757.89
 *     pt), and a point of a straight run within 0.1 pt of the segment
 *     drawn instead is dropped.
 * The page's glyph table (svgi_page) is owned by the caller: create it
 * once per page, destroy it with svgi_page_destroy (NULL is fine).
 */
#ifndef SB_SVG_INLINE_H
#define SB_SVG_INLINE_H

#include <stddef.h>
#include <stdio.h>

typedef struct svgi_page svgi_page;

/* A page with no glyph defined yet; NULL when out of memory. */
svgi_page *svgi_page_create(void);
void svgi_page_destroy(svgi_page *p);

/* Write `svg` (cairo's text from just after its "<svg") to f, rewritten
 * as above, ids prefixed with `prefix` ("c3-2-").  0, or -1 when out of
 * memory (then part of it may have been written). */
int svgi_write(svgi_page *p, FILE *f, const char *svg, const char *prefix);

/* The number s[0..n) ("135.480469", "-0.001", "7") with at most two
 * decimals, no trailing zeros, no "-0": "135.48", "0", "7".  Into out
 * (at least 32 bytes); returns out.  A token that is not a number is
 * copied (cut to 31 bytes). */
const char *svgi_round(const char *s, size_t n, char out[32]);

#endif
