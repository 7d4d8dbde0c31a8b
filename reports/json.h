/*
 * json.h -- a small streaming JSON writer (objects, arrays, scalars).
 *
 * The caller drives the structure; the writer handles commas, escaping and
 * indentation.  Numbers that are not finite are written as null, since JSON
 * has no NaN.  Output is a pure function of the calls: no locale, no
 * clock -- byte-identical for identical input.
 */
#ifndef SB_JSON_H
#define SB_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH 16

typedef struct jw {
    FILE *f;
    bool pretty; /* indent two spaces per level; else one line */
    int depth;
    bool first[JW_MAX_DEPTH];
    char closer[JW_MAX_DEPTH];
} jw;

void jw_init(jw *w, FILE *f, bool pretty);
/* key is NULL inside arrays and at the top level. */
void jw_object(jw *w, const char *key);
void jw_array(jw *w, const char *key);
void jw_end(jw *w); /* closes the innermost object or array */
void jw_string(jw *w, const char *key, const char *v); /* NULL -> null */
void jw_double(jw *w, const char *key, double v);      /* %.6g */
void jw_fixed(jw *w, const char *key, double v, int decimals);
void jw_int(jw *w, const char *key, int64_t v);
/* A seed: the whole uint64 range, which jw_int would print negative. */
void jw_uint(jw *w, const char *key, uint64_t v);
/* A number already printed ("99.2"), written as it is; "" -> null. */
void jw_number_text(jw *w, const char *key, const char *text);
void jw_bool(jw *w, const char *key, bool v);
void jw_null(jw *w, const char *key);
/* Write s as a JSON string literal, quotes included. */
void jw_quote(FILE *f, const char *s);

#endif
