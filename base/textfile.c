/*
 * textfile.c -- the lines and fields of users' data files (textfile.h).
 */
#include "textfile.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *textfile_trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Calls fn for every line that is not blank and not a '#' comment, with
 * the line trimmed.  Stops at fn's first error. */
int textfile_each_line(const char *path, bool comments, textfile_line_fn fn,
                       void *ctx, sb_err *e)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return err_set(e, "%s: cannot open: %s", path, strerror(errno));
    char *buf = malloc(TEXTFILE_LINE_MAX);
    int rc = buf ? 0 : err_set(e, "%s: out of memory", path);
    for (int no = 1; rc == 0 && fgets(buf, TEXTFILE_LINE_MAX, f); no++) {
        size_t len = strlen(buf);
        if (len == TEXTFILE_LINE_MAX - 1 && buf[len - 1] != '\n' && !feof(f)) {
            rc = err_set(e, "%s:%d: the line is longer than %d bytes", path, no,
                         TEXTFILE_LINE_MAX - 2);
            break;
        }
        char *s = textfile_trim(buf);
        if (s[0] == '\0' || (comments && s[0] == '#'))
            continue;
        rc = fn(ctx, s, no, e);
    }
    if (rc == 0 && ferror(f))
        rc = err_set(e, "%s: cannot read: %s", path, strerror(errno));
    fclose(f);
    free(buf);
    return rc;
}

/* Field `col` (1-based) of a CSV line, its quotes dropped, or NULL. */
char *textfile_csv_field(char *line, long col)
{
    char *f = line;
    for (long i = 1; i < col; i++) {
        f = strchr(f, ',');
        if (f == NULL)
            return NULL;
        f++;
    }
    char *end = strchr(f, ',');
    if (end)
        *end = '\0';
    f = textfile_trim(f);
    size_t len = strlen(f);
    if (len >= 2 && f[0] == '"' && f[len - 1] == '"') {
        f[len - 1] = '\0';
        f++;
    }
    return f;
}

int textfile_unit_ns(const char *unit, double *ns, sb_err *e)
{
    static const struct {
        const char *name;
        double ns;
    } u[] = {{"ns", 1.0}, {"us", 1e3}, {"ms", 1e6},
             {"s", 1e9},  {"m", 60e9}, {"h", 3600e9}};
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
        if (strcmp(unit, u[i].name) == 0) {
            *ns = u[i].ns;
            return 0;
        }
    return err_set(e, "expected a unit (ns, us, ms, s, m, h), got '%s'", unit);
}
