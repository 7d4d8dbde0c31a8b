#include "json.h"

#include <inttypes.h>
#include <math.h>

void jw_init(jw *w, FILE *f, bool pretty)
{
    w->f = f;
    w->pretty = pretty;
    w->depth = 0;
    w->first[0] = true;
}

void jw_quote(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

static void indent(jw *w)
{
    if (!w->pretty)
        return;
    fputc('\n', w->f);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->f);
}

/* Separator and key before a value. */
static void lead(jw *w, const char *key)
{
    if (w->depth > 0) {
        if (!w->first[w->depth])
            fputc(',', w->f);
        if (!w->pretty && !w->first[w->depth])
            fputc(' ', w->f);
        w->first[w->depth] = false;
        indent(w);
    }
    if (key) {
        jw_quote(w->f, key);
        fputs(": ", w->f);
    }
}

static void open(jw *w, const char *key, char c)
{
    lead(w, key);
    fputc(c, w->f);
    if (w->depth + 1 < JW_MAX_DEPTH)
        w->depth++;
    w->first[w->depth] = true;
    w->closer[w->depth] = c == '{' ? '}' : ']';
}

void jw_object(jw *w, const char *key)
{
    open(w, key, '{');
}
void jw_array(jw *w, const char *key)
{
    open(w, key, '[');
}

void jw_end(jw *w)
{
    bool empty = w->first[w->depth];
    char c = w->closer[w->depth];
    w->depth--;
    if (!empty)
        indent(w);
    fputc(c, w->f);
    if (w->depth == 0 && w->pretty)
        fputc('\n', w->f);
}

void jw_string(jw *w, const char *key, const char *v)
{
    lead(w, key);
    if (v)
        jw_quote(w->f, v);
    else
        fputs("null", w->f);
}

void jw_double(jw *w, const char *key, double v)
{
    lead(w, key);
    if (isfinite(v))
        fprintf(w->f, "%.6g", v);
    else
        fputs("null", w->f);
}

void jw_fixed(jw *w, const char *key, double v, int decimals)
{
    lead(w, key);
    if (isfinite(v))
        fprintf(w->f, "%.*f", decimals, v);
    else
        fputs("null", w->f);
}

void jw_int(jw *w, const char *key, int64_t v)
{
    lead(w, key);
    fprintf(w->f, "%" PRId64, v);
}

void jw_uint(jw *w, const char *key, uint64_t v)
{
    lead(w, key);
    fprintf(w->f, "%" PRIu64, v);
}

void jw_number_text(jw *w, const char *key, const char *text)
{
    lead(w, key);
    fputs(text[0] ? text : "null", w->f);
}

void jw_bool(jw *w, const char *key, bool v)
{
    lead(w, key);
    fputs(v ? "true" : "false", w->f);
}

void jw_null(jw *w, const char *key)
{
    lead(w, key);
    fputs("null", w->f);
}
