/*
 * ini_file.c -- a scenario file read into entries (ini_file.h).
 *
 * inih parses, our reader feeds it.  The reader counts lines (a build of
 * inih may lack INI_HANDLER_LINENO), checks section headers itself, and
 * hands inih each line in the one form every build reads alike (see
 * reader()).  The handler files the pair under the reader's name of the
 * section, not inih's, which a build cuts at MAX_SECTION bytes.
 */
#include "compiler.h"
#include "ini_file.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "keys.h"
#include "syntax.h"

#define MAX_FILE_BYTES (4u << 20)

/* The reader's state, beside the entries it fills. */
typedef struct reading {
    load *ld;
    FILE *f;
    int line;
    bool failed;
    char section[LOAD_SECTION_MAX]; /* the current one, "" before any */
    size_t bytes;                   /* read so far */
    bool long_pending;              /* the next value is long_value */
    char long_value[SCENARIO_LINE_MAX + 3];
} reading;

static int read_fail(reading *r, const char *fmt, ...) SB_PRINTF(2, 3);
static int read_fail(reading *r, const char *fmt, ...)
{
    if (!r->failed) {
        r->failed = true;
        char msg[ERR_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        err_set(r->ld->e, "%s:%d: %s", r->ld->path, r->line, msg);
    }
    return 0;
}

static void section_header(reading *r, char *text)
{
    char *close = strchr(text, ']');
    if (close == NULL) {
        read_fail(r, "malformed section header '%s': expected [name]", text);
        return;
    }
    *close = '\0';
    char *name = syntax_trim(text + 1);
    if (*syntax_trim(close + 1) != '\0' && *syntax_trim(close + 1) != ';' &&
        *syntax_trim(close + 1) != '#') {
        read_fail(r, "unexpected text after section header [%s]", name);
        return;
    }
    if (keys_section_of(name) == KS_NONE) {
        read_fail(r,
                  "unknown section [%s]; known sections: [scenario], "
                  "[clients], [server], [policy], [expect], "
                  "[fault.NAME], [server.NAME], [policy.NAME], "
                  "[expect.NAME], [pipeline], [step.NAME]",
                  name);
        return;
    }
    for (int i = 0; i < r->ld->n_sections; i++) {
        if (strcmp(r->ld->sections[i].name, name) == 0) {
            read_fail(r, "section [%s] appears twice (first at line %d)", name,
                      r->ld->sections[i].line);
            return;
        }
    }
    if (r->ld->n_sections == LOAD_MAX_SECTIONS) {
        read_fail(r, "too many sections (at most %d)", LOAD_MAX_SECTIONS);
        return;
    }
    snprintf(r->ld->sections[r->ld->n_sections].name, LOAD_SECTION_MAX, "%s",
             name);
    r->ld->sections[r->ld->n_sections++].line = r->line;
    snprintf(r->section, sizeof r->section, "%s", name);
}

/* A line too long for this inih's line buffer (a build's INI_MAX_LINE,
 * 200 by default): inih gets "name=" alone and the handler the value kept
 * here, split as inih would split it (text is the line, its inline
 * comment already cut).  0, or -1 when even the name does not fit. */
static int hand_over_long(reading *r, const char *text, char *str, int num)
{
    const char *sep = text + strcspn(text, "=:");
    char name[SCENARIO_LINE_MAX + 2];
    snprintf(name, sizeof name, "%.*s", (int)(sep - text), text);
    char value[SCENARIO_LINE_MAX + 2];
    snprintf(value, sizeof value, "%s", sep + 1);
    char *n = syntax_trim(name);
    if ((int)strlen(n) + 3 > num)
        return read_fail(r, "key '%.40s...' is too long", n), -1;
    snprintf(r->long_value, sizeof r->long_value, "%s", syntax_trim(value));
    r->long_pending = true;
    snprintf(str, (size_t)num, "%s=\n", n);
    return 0;
}

/* "expected a key of at most 95 characters, got '...' (N characters)"
 * into buf, or nothing when key (len bytes) fits. */
static bool key_too_long(const char *key, size_t len, char *buf, size_t n)
{
    if (len < LOAD_KEY_SIZE)
        return false;
    snprintf(buf, n,
             "expected a key of at most %d characters, got "
             "'%.40s...' (%zu characters)",
             LOAD_KEY_SIZE - 1, key, len);
    return true;
}

/* A key is kept whole or refused: cut, it would name a key not in the
 * file, pass the duplicate check beside another equal in its first 95
 * bytes, and could end in a space that a written file loses.  Checked
 * here, before inih, so a key too long for this build's line buffer is
 * refused in the same words.  text is the line, its comment cut. */
static int check_key_length(reading *r, const char *text)
{
    size_t len = strcspn(text, "=:");
    while (len > 0 && isspace((unsigned char)text[len - 1]))
        len--;
    char msg[200];
    if (!key_too_long(text, len, msg, sizeof msg))
        return 0;
    if (r->section[0])
        return read_fail(r, "[%s] %s", r->section, msg), -1;
    return read_fail(r, "%s", msg), -1;
}

/* One line by hand rather than with fgets: fgets cannot tell a NUL byte
 * from the end of the string, so a binary file (or /dev/zero) would read
 * as empty lines for ever.  0, or -1 at the end or on an error. */
static int read_line(reading *r, char *line)
{
    int c = getc(r->f);
    if (c == EOF)
        return -1;
    r->line++;
    size_t len = 0;
    for (; c != EOF; c = getc(r->f)) {
        if (c == '\0')
            return read_fail(r, "holds a NUL byte: not a text file"), -1;
        if (len == SCENARIO_LINE_MAX + 1)
            return read_fail(r, "line is longer than %d characters",
                             SCENARIO_LINE_MAX),
                   -1;
        line[len++] = (char)c;
        if (c == '\n')
            break;
    }
    line[len] = '\0';
    r->bytes += len;
    if (r->bytes > MAX_FILE_BYTES)
        return read_fail(r, "is over 4 MB: a scenario is a few kB of "
                            "text; is this the right file?"),
               -1;
    return 0;
}

/* inih's reader: counts lines, refuses long ones, checks section headers
 * and lines that are not `key = value` -- and hands inih each line in a
 * form that every build of inih reads the same way.  inih's options are
 * compile-time macros upstream (INI_ALLOW_MULTILINE, INI_MAX_LINE,
 * INI_STOP_ON_FIRST_ERROR, INI_ALLOW_INLINE_COMMENTS ...); Debian's build
 * alone also exposes them as variables (ini_max_line ...), so the loader
 * sets none of them and depends on none:
 *   - a byte order mark and leading whitespace are dropped (no build then
 *     takes an indented line
 *     for the continuation of a multi-line value);
 *   - an inline comment is cut here, whether or not the build would;
 *   - a line that is neither a section, a comment nor `key = value` is
 *     refused here, at its own line, before inih would go on (or not) to
 *     the lines after it;
 *   - a line longer than the build's line buffer (num) goes to inih as
 *     "name=" with the value kept aside (hand_over_long). */
static char *reader(char *str, int num, void *stream)
{
    reading *r = stream;
    char line[SCENARIO_LINE_MAX + 3];
    if (r->failed || read_line(r, line) != 0)
        return NULL;
    char *t = line;
    /* A UTF-8 byte order mark, as an editor may write: every build of
     * inih skips it (INI_ALLOW_BOM), but only before anything else. */
    if (r->line == 1 && memcmp(t, "\xEF\xBB\xBF", 3) == 0)
        t += 3;
    t = syntax_trim(t);
    if (*t == '\0' || *t == ';' || *t == '#') {
        snprintf(str, (size_t)num, "\n");
        return str;
    }
    if (*t == '[') {
        char copy[SCENARIO_LINE_MAX + 3];
        snprintf(copy, sizeof copy, "%s", t);
        section_header(r, copy);
        if (r->failed)
            return NULL;
        /* section_header cut the name at its ']' and trimmed it */
        if ((int)strlen(r->section) + 4 > num) {
            read_fail(r,
                      "section name [%s] is longer than this build of "
                      "inih reads (INI_MAX_LINE %d)",
                      r->section, num);
            return NULL;
        }
        snprintf(str, (size_t)num, "[%s]\n", r->section);
        return str;
    }
    t[syntax_comment(t) - t] = '\0';
    if (t[strcspn(t, "=:")] == '\0') {
        read_fail(r, "expected 'key = value', a [section] or a comment");
        return NULL;
    }
    if (check_key_length(r, t) != 0)
        return NULL;
    size_t n = strlen(t);
    if ((int)n + 2 <= num) {
        memcpy(str, t, n);
        memcpy(str + n, "\n", 2);
        return str;
    }
    return hand_over_long(r, t, str, num) == 0 ? str : NULL;
}

static entry *add_entry(load *ld, const char *section, const char *key)
{
    if (ld->n == LOAD_MAX_ENTRIES)
        return NULL;
    entry *en = &ld->entries[ld->n++];
    memset(en, 0, sizeof *en);
    snprintf(en->section, sizeof en->section, "%s", section);
    snprintf(en->key, sizeof en->key, "%s", key);
    return en;
}

/* INI_HANDLER_LINENO: a build of inih may pass the line number too (the
 * reader counts lines itself). */
#if INI_HANDLER_LINENO
static int handler(void *user, const char *section, const char *name,
                   const char *value, int lineno)
#else
static int handler(void *user, const char *section, const char *name,
                   const char *value)
#endif
{
    reading *r = user;
#if INI_HANDLER_LINENO
    (void)lineno;
#endif
    if (r->failed)
        return 0;
    /* INI_CALL_HANDLER_ON_NEW_SECTION: a section's start, already seen. */
    if (name == NULL)
        return 1;
    if (r->long_pending) {
        value = r->long_value;
        r->long_pending = false;
    }
    if (value == NULL) /* INI_ALLOW_NO_VALUE: the reader refused such lines */
        return read_fail(r, "expected 'key = value', a [section] or a "
                            "comment");
    /* The reader's name of the section, not inih's: inih keeps a
     * section's name in MAX_SECTION bytes (50 by default) and would cut
     * a [fault.NAME] of a 63-byte NAME without a word. */
    (void)section;
    section = r->section;
    if (section[0] == '\0')
        return read_fail(r, "'%s' comes before any [section]", name);
    /* "= value": no key at all (the fuzzer found one in [expect], whose
     * keys are checked only when a run reads them, so it loaded and
     * then could not be written back). */
    if (name[0] == '\0')
        return read_fail(r, "expected 'key = value': the key is empty");
    /* A list key ([policy] plugin) takes a line per item. */
    entry *old =
        keys_is_list(section, name) ? NULL : load_find(r->ld, section, name);
    if (old) {
        char first[1200];
        snprintf(first, sizeof first, "%s", old->origin);
        return read_fail(r, "duplicate key '%s' (first set at %s)", name,
                         first);
    }
    size_t len = strlen(value);
    if (len >= SCENARIO_LINE_MAX)
        return read_fail(r, "value of '%s' is too long", name);
    entry *en = add_entry(r->ld, section, name);
    if (en == NULL)
        return read_fail(r, "too many keys (at most %d)", LOAD_MAX_ENTRIES);
    memcpy(en->value, value, len + 1); /* fits: checked above */
    snprintf(en->origin, sizeof en->origin, "%s:%d", r->ld->path, r->line);
    return 1;
}

static int read_file(reading *r)
{
    load *ld = r->ld;
    r->f = fopen(ld->path, "r");
    if (r->f == NULL)
        return err_set(ld->e, "%s: cannot open scenario file: %s", ld->path,
                       strerror(errno));
    struct stat st;
    if (fstat(fileno(r->f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(r->f);
        return err_set(ld->e, "%s: is a directory, not a scenario file",
                       ld->path);
    }
    int rc = ini_parse_stream(reader, r, handler, r);
    bool read_error = ferror(r->f);
    fclose(r->f);
    if (r->failed)
        return -1;
    if (read_error)
        return err_set(ld->e, "%s: read error", ld->path);
    if (rc == -2)
        return err_set(ld->e, "%s: out of memory", ld->path);
    if (rc > 0)
        return err_set(ld->e,
                       "%s:%d: expected 'key = value', a [section] or "
                       "a comment",
                       ld->path, rc);
    return 0;
}

int ini_file_read(load *ld)
{
    reading r = {.ld = ld};
    return read_file(&r);
}

/* "section.key=value"; the section may itself contain dots
 * (fault.spike.start), so the key is what follows the last dot. */
int ini_file_set(load *ld, const char *set)
{
    const char *eq = strchr(set, '=');
    char left[SCENARIO_LINE_MAX];
    if (eq == NULL || (size_t)(eq - set) >= sizeof left)
        return err_set(ld->e, "--set %s: expected section.key=value", set);
    memcpy(left, set, (size_t)(eq - set));
    left[eq - set] = '\0';
    char *dot = strrchr(left, '.');
    if (dot == NULL || dot == left || dot[1] == '\0')
        return err_set(ld->e, "--set %s: expected section.key=value", set);
    *dot = '\0';
    char *section = syntax_trim(left), *key = syntax_trim(dot + 1);
    char msg[200], value[SCENARIO_LINE_MAX];
    if (key_too_long(key, strlen(key), msg, sizeof msg))
        return err_set(ld->e, "--set %s: %s", set, msg);
    if (snprintf(value, sizeof value, "%s", eq + 1) >= (int)sizeof value)
        return err_set(ld->e,
                       "--set %s: the value is longer than a line "
                       "of a scenario file (%d characters)",
                       set, SCENARIO_LINE_MAX);
    /* What a line could not say is refused: the run could not be saved
     * as the scenario it ran (writer.h writes lines, and refuses). */
    const char *why = syntax_key_problem(key);
    if (why)
        return err_set(ld->e,
                       "--set %s: expected a key a scenario file can "
                       "hold, got '%s': it %s",
                       set, key, why);
    char *v = syntax_trim(value);
    if ((why = syntax_value_problem(v)) != NULL)
        return err_set(ld->e,
                       "--set %s: expected a value a scenario file "
                       "can hold, got '%.120s%s': it %s",
                       set, v, strlen(v) > 120 ? "..." : "", why);
    if (keys_section_of(section) == KS_NONE)
        return err_set(ld->e,
                       "--set %s: unknown section [%s]; known "
                       "sections: scenario, clients, server, policy, expect, "
                       "fault.NAME, server.NAME, policy.NAME, expect.NAME, "
                       "pipeline, step.NAME",
                       set, section);
    entry *en = load_find(ld, section, key);
    if (en == NULL && (en = add_entry(ld, section, key)) == NULL)
        return err_set(ld->e, "--set %s: too many keys", set);
    snprintf(en->value, sizeof en->value, "%s", v);
    snprintf(en->origin, sizeof en->origin, "--set %s", set);
    return 0;
}

int ini_file_put_default(load *ld, const char *section, const char *key,
                         const char *value, const char *origin)
{
    if (load_find(ld, section, key) != NULL)
        return 0;
    entry *en = add_entry(ld, section, key);
    if (en == NULL)
        return err_set(ld->e, "%s: too many keys", origin);
    snprintf(en->value, sizeof en->value, "%s", value);
    snprintf(en->origin, sizeof en->origin, "%s", origin);
    return 0;
}
