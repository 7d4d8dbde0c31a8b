/*
 * loader.c -- scenario INI files into a `scenario`.  The only file that
 * includes inih.
 *
 * Two passes.  The first reads every `key = value` line into a list of
 * entries that remember their file and line; inih's reader (ours) counts
 * lines (a build of inih may lack INI_HANDLER_LINENO) and checks section
 * headers itself, because inih does not report a section that holds no
 * keys.  It also makes the loader independent of how inih was built (see
 * reader()): it works with Debian's libinih and with an upstream one.  --set overrides are then merged in as if
 * they were lines.  The second pass interprets the entries section by
 * section from tables of keys, so a typo is an error with a suggestion,
 * not a silently ignored line.
 */
#include "scenario.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "classifier.h"
#include "suggest.h"
#include "syntax.h"
#include "units.h"

#define MAX_ENTRIES 512
#define MAX_SECTIONS 80
#define LINE_MAX_LEN SCENARIO_LINE_MAX
#define MAX_FILE_BYTES (4u << 20)
/* A key's bytes with its NUL: what a setting (setting.h) holds. */
#define KEY_SIZE (SCENARIO_KEY_MAX + 1)
_Static_assert(KEY_SIZE == sizeof ((setting *)0)->key,
               "a key the loader takes fits a setting");

typedef struct entry {
    char section[96];
    char key[KEY_SIZE];
    char value[LINE_MAX_LEN];
    char origin[1100]; /* "file:line" or "--set s.k=v" */
    bool used;
} entry;

typedef struct loader {
    FILE *f;
    const char *path;
    int line;
    bool failed;
    sb_err *e;
    char section[96];
    struct {
        char name[96];
        int line;
    } sections[MAX_SECTIONS];
    int n_sections;
    entry *entries;
    int n;
    size_t bytes; /* read so far */
    bool long_pending;                /* the next value is long_value */
    char long_value[LINE_MAX_LEN + 3];
    scenario *sc;
} loader;

/* ---- Pass 1: lines into entries --------------------------------------- */

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static bool known_section(const char *name)
{
    static const char *const fixed[] = {"scenario", "clients", "server",
                                        "policy", "expect", "pipeline"};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        if (strcmp(name, fixed[i]) == 0)
            return true;
    if (strncmp(name, "fault.", 6) == 0)
        return syntax_name_ok(name + 6);
    /* Tiers of a service chain (tiers.c's part of the loader, below). */
    if (strncmp(name, "server.", 7) == 0 || strncmp(name, "policy.", 7) == 0 ||
        strncmp(name, "expect.", 7) == 0)
        return syntax_name_ok(name + 7);
    /* Steps of a pipeline (the pipeline part of the loader, below). */
    if (strncmp(name, "step.", 5) == 0)
        return syntax_name_ok(name + 5);
    return false;
}

static int loader_fail(loader *ld, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int loader_fail(loader *ld, const char *fmt, ...)
{
    if (!ld->failed) {
        ld->failed = true;
        char msg[ERR_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        err_set(ld->e, "%s:%d: %s", ld->path, ld->line, msg);
    }
    return 0;
}

static void section_header(loader *ld, char *text)
{
    char *close = strchr(text, ']');
    if (close == NULL) {
        loader_fail(ld, "malformed section header '%s': expected [name]",
                    text);
        return;
    }
    *close = '\0';
    char *name = trim(text + 1);
    if (*trim(close + 1) != '\0' && *trim(close + 1) != ';' &&
        *trim(close + 1) != '#') {
        loader_fail(ld, "unexpected text after section header [%s]", name);
        return;
    }
    if (!known_section(name)) {
        loader_fail(ld, "unknown section [%s]; known sections: [scenario], "
                    "[clients], [server], [policy], [expect], "
                    "[fault.NAME], [server.NAME], [policy.NAME], "
                    "[expect.NAME], [pipeline], [step.NAME]", name);
        return;
    }
    for (int i = 0; i < ld->n_sections; i++) {
        if (strcmp(ld->sections[i].name, name) == 0) {
            loader_fail(ld, "section [%s] appears twice (first at line %d)",
                        name, ld->sections[i].line);
            return;
        }
    }
    if (ld->n_sections == MAX_SECTIONS) {
        loader_fail(ld, "too many sections (at most %d)", MAX_SECTIONS);
        return;
    }
    snprintf(ld->sections[ld->n_sections].name, 96, "%s", name);
    ld->sections[ld->n_sections++].line = ld->line;
    snprintf(ld->section, sizeof ld->section, "%s", name);
}

/* A line too long for this inih's line buffer (a build's INI_MAX_LINE,
 * 200 by default): inih gets "name=" alone and the handler the value kept
 * here, split as inih would split it (text is the line, its inline
 * comment already cut).  0, or -1 when even the name does not fit. */
static int hand_over_long(loader *ld, const char *text, char *str, int num)
{
    const char *sep = text + strcspn(text, "=:");
    char name[LINE_MAX_LEN + 2];
    snprintf(name, sizeof name, "%.*s", (int)(sep - text), text);
    char value[LINE_MAX_LEN + 2];
    snprintf(value, sizeof value, "%s", sep + 1);
    char *n = trim(name);
    if ((int)strlen(n) + 3 > num)
        return loader_fail(ld, "key '%.40s...' is too long", n), -1;
    snprintf(ld->long_value, sizeof ld->long_value, "%s", trim(value));
    ld->long_pending = true;
    snprintf(str, (size_t)num, "%s=\n", n);
    return 0;
}

/* "expected a key of at most 95 characters, got '...' (N characters)"
 * into buf, or nothing when key (len bytes) fits. */
static bool key_too_long(const char *key, size_t len, char *buf, size_t n)
{
    if (len < KEY_SIZE)
        return false;
    snprintf(buf, n, "expected a key of at most %d characters, got "
             "'%.40s...' (%zu characters)", KEY_SIZE - 1, key, len);
    return true;
}

/* A key is kept whole or refused: cut, it would name a key not in the
 * file, pass the duplicate check beside another equal in its first 95
 * bytes, and could end in a space that a written file loses.  Checked
 * here, before inih, so a key too long for this build's line buffer is
 * refused in the same words.  text is the line, its comment cut. */
static int check_key_length(loader *ld, const char *text)
{
    size_t len = strcspn(text, "=:");
    while (len > 0 && isspace((unsigned char)text[len - 1]))
        len--;
    char msg[200];
    if (!key_too_long(text, len, msg, sizeof msg))
        return 0;
    if (ld->section[0])
        return loader_fail(ld, "[%s] %s", ld->section, msg), -1;
    return loader_fail(ld, "%s", msg), -1;
}

/* One line by hand rather than with fgets: fgets cannot tell a NUL byte
 * from the end of the string, so a binary file (or /dev/zero) would read
 * as empty lines for ever.  0, or -1 at the end or on an error. */
static int read_line(loader *ld, char *line)
{
    int c = getc(ld->f);
    if (c == EOF)
        return -1;
    ld->line++;
    size_t len = 0;
    for (; c != EOF; c = getc(ld->f)) {
        if (c == '\0')
            return loader_fail(ld, "holds a NUL byte: not a text file"), -1;
        if (len == LINE_MAX_LEN + 1)
            return loader_fail(ld, "line is longer than %d characters",
                               LINE_MAX_LEN), -1;
        line[len++] = (char)c;
        if (c == '\n')
            break;
    }
    line[len] = '\0';
    ld->bytes += len;
    if (ld->bytes > MAX_FILE_BYTES)
        return loader_fail(ld, "is over 4 MB: a scenario is a few kB of "
                           "text; is this the right file?"), -1;
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
    loader *ld = stream;
    char line[LINE_MAX_LEN + 3];
    if (ld->failed || read_line(ld, line) != 0)
        return NULL;
    char *t = line;
    /* A UTF-8 byte order mark, as an editor may write: every build of
     * inih skips it (INI_ALLOW_BOM), but only before anything else. */
    if (ld->line == 1 && memcmp(t, "\xEF\xBB\xBF", 3) == 0)
        t += 3;
    t = trim(t);
    if (*t == '\0' || *t == ';' || *t == '#') {
        snprintf(str, (size_t)num, "\n");
        return str;
    }
    if (*t == '[') {
        char copy[LINE_MAX_LEN + 3];
        snprintf(copy, sizeof copy, "%s", t);
        section_header(ld, copy);
        if (ld->failed)
            return NULL;
        /* section_header cut the name at its ']' and trimmed it */
        if ((int)strlen(ld->section) + 4 > num) {
            loader_fail(ld, "section name [%s] is longer than this build of "
                        "inih reads (INI_MAX_LINE %d)", ld->section, num);
            return NULL;
        }
        snprintf(str, (size_t)num, "[%s]\n", ld->section);
        return str;
    }
    t[syntax_comment(t) - t] = '\0';
    if (t[strcspn(t, "=:")] == '\0') {
        loader_fail(ld, "expected 'key = value', a [section] or a comment");
        return NULL;
    }
    if (check_key_length(ld, t) != 0)
        return NULL;
    size_t n = strlen(t);
    if ((int)n + 2 <= num) {
        memcpy(str, t, n);
        memcpy(str + n, "\n", 2);
        return str;
    }
    return hand_over_long(ld, t, str, num) == 0 ? str : NULL;
}

static entry *find_entry(loader *ld, const char *section, const char *key)
{
    for (int i = 0; i < ld->n; i++)
        if (strcmp(ld->entries[i].section, section) == 0 &&
            strcmp(ld->entries[i].key, key) == 0)
            return &ld->entries[i];
    return NULL;
}

static entry *add_entry(loader *ld, const char *section, const char *key)
{
    if (ld->n == MAX_ENTRIES)
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
    loader *ld = user;
#if INI_HANDLER_LINENO
    (void)lineno;
#endif
    if (ld->failed)
        return 0;
    /* INI_CALL_HANDLER_ON_NEW_SECTION: a section's start, already seen. */
    if (name == NULL)
        return 1;
    if (ld->long_pending) {
        value = ld->long_value;
        ld->long_pending = false;
    }
    if (value == NULL) /* INI_ALLOW_NO_VALUE: the reader refused such lines */
        return loader_fail(ld, "expected 'key = value', a [section] or a "
                           "comment");
    /* The reader's name of the section, not inih's: inih keeps a
     * section's name in MAX_SECTION bytes (50 by default) and would cut
     * a [fault.NAME] of a 63-byte NAME without a word. */
    (void)section;
    section = ld->section;
    if (section[0] == '\0')
        return loader_fail(ld, "'%s' comes before any [section]", name);
    /* [policy] takes one plugin line per plug-in (the GUI saves the
     * scenario's and its own --policy-plugin). */
    bool list = strcmp(section, "policy") == 0 && strcmp(name, "plugin") == 0;
    entry *old = list ? NULL : find_entry(ld, section, name);
    if (old) {
        char first[1200];
        snprintf(first, sizeof first, "%s", old->origin);
        return loader_fail(ld, "duplicate key '%s' (first set at %s)", name,
                           first);
    }
    size_t len = strlen(value);
    if (len >= LINE_MAX_LEN)
        return loader_fail(ld, "value of '%s' is too long", name);
    entry *en = add_entry(ld, section, name);
    if (en == NULL)
        return loader_fail(ld, "too many keys (at most %d)", MAX_ENTRIES);
    memcpy(en->value, value, len + 1); /* fits: checked above */
    snprintf(en->origin, sizeof en->origin, "%s:%d", ld->path, ld->line);
    return 1;
}

static int read_file(loader *ld)
{
    ld->f = fopen(ld->path, "r");
    if (ld->f == NULL)
        return err_set(ld->e, "%s: cannot open scenario file: %s", ld->path,
                       strerror(errno));
    struct stat st;
    if (fstat(fileno(ld->f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(ld->f);
        return err_set(ld->e, "%s: is a directory, not a scenario file",
                       ld->path);
    }
    int rc = ini_parse_stream(reader, ld, handler, ld);
    bool read_error = ferror(ld->f);
    fclose(ld->f);
    if (ld->failed)
        return -1;
    if (read_error)
        return err_set(ld->e, "%s: read error", ld->path);
    if (rc == -2)
        return err_set(ld->e, "%s: out of memory", ld->path);
    if (rc > 0)
        return err_set(ld->e, "%s:%d: expected 'key = value', a [section] or "
                       "a comment", ld->path, rc);
    return 0;
}

/* "section.key=value"; the section may itself contain dots
 * (fault.spike.start), so the key is what follows the last dot. */
static int apply_set(loader *ld, const char *set)
{
    const char *eq = strchr(set, '=');
    char left[LINE_MAX_LEN];
    if (eq == NULL || (size_t)(eq - set) >= sizeof left)
        return err_set(ld->e, "--set %s: expected section.key=value", set);
    memcpy(left, set, (size_t)(eq - set));
    left[eq - set] = '\0';
    char *dot = strrchr(left, '.');
    if (dot == NULL || dot == left || dot[1] == '\0')
        return err_set(ld->e, "--set %s: expected section.key=value", set);
    *dot = '\0';
    char *section = trim(left), *key = trim(dot + 1);
    char msg[200], value[LINE_MAX_LEN];
    if (key_too_long(key, strlen(key), msg, sizeof msg))
        return err_set(ld->e, "--set %s: %s", set, msg);
    if (snprintf(value, sizeof value, "%s", eq + 1) >= (int)sizeof value)
        return err_set(ld->e, "--set %s: the value is longer than a line "
                       "of a scenario file (%d characters)", set,
                       LINE_MAX_LEN);
    /* What a line could not say is refused: the run could not be saved
     * as the scenario it ran (writer.h writes lines, and refuses). */
    const char *why = syntax_key_problem(key);
    if (why)
        return err_set(ld->e, "--set %s: expected a key a scenario file can "
                       "hold, got '%s': it %s", set, key, why);
    char *v = trim(value);
    if ((why = syntax_value_problem(v)) != NULL)
        return err_set(ld->e, "--set %s: expected a value a scenario file "
                       "can hold, got '%.120s%s': it %s", set, v,
                       strlen(v) > 120 ? "..." : "", why);
    if (!known_section(section))
        return err_set(ld->e, "--set %s: unknown section [%s]; known "
                       "sections: scenario, clients, server, policy, expect, "
                       "fault.NAME, server.NAME, policy.NAME, expect.NAME, "
                       "pipeline, step.NAME",
                       set, section);
    entry *en = find_entry(ld, section, key);
    if (en == NULL && (en = add_entry(ld, section, key)) == NULL)
        return err_set(ld->e, "--set %s: too many keys", set);
    snprintf(en->value, sizeof en->value, "%s", v);
    snprintf(en->origin, sizeof en->origin, "--set %s", set);
    return 0;
}

/* ---- Pass 2: entries into the config -------------------------------- */

typedef enum vk {
    V_DURATION,      /* >= 0 */
    V_DURATION_POS,  /* > 0 */
    V_DURATION_NONE, /* > 0, or "none" -> 0 */
    V_DURATION_OFF,  /* >= 0, or "none" -> 0 */
    V_RATE_POS,
    V_RATE_NONE, /* > 0, or "none" -> 0 */
    V_PROB,
    V_SHARE,     /* in [0, 1], or a percentage: an [expect.NAME] limit */
    V_REAL,      /* in [min, max] */
    V_COUNT,     /* whole number in [min, max] */
    V_COUNT_UNL, /* whole number in [min, max] or "unlimited" */
    V_BOOL,
    V_DIST,
    V_TEXT,
    V_SEED,
    V_CHOICE, /* index into choices, stored as int */
    V_LATER   /* read by a pass of its own (a tier's downstream) */
} vk;

typedef struct keydef {
    const char *name;
    vk kind;
    size_t off;
    double min, max; /* V_TEXT: max is the buffer size */
    const char *choices; /* V_CHOICE: "a|b" */
} keydef;

#define CFG(field) offsetof(sim_config, field)

static const keydef scenario_keys[] = {
    {"name", V_TEXT, CFG(name), 0, SIM_NAME_MAX, NULL},
    {"description", V_TEXT, CFG(description), 0, 512, NULL},
    {"duration", V_DURATION_POS, CFG(duration_ns), 0, 0, NULL},
    {"seed", V_SEED, CFG(seed), 0, 0, NULL},
    {"warmup", V_DURATION, CFG(warmup_ns), 0, 0, NULL},
    {"bucket", V_DURATION_POS, CFG(bucket_ns), 0, 0, NULL},
    {"recovery_window", V_DURATION_POS, CFG(recovery_window_ns), 0, 0, NULL},
    {NULL, 0, 0, 0, 0, NULL}};

static const keydef client_keys[] = {
    {"count", V_COUNT, CFG(clients.count), 1, 100000000, NULL},
    {"processes", V_COUNT, CFG(clients.processes), 1, 100000000, NULL},
    {"connections", V_COUNT_UNL, CFG(clients.connections), 1, 100000000,
     NULL},
    {"call_time", V_DURATION, CFG(clients.call_time_ns), 0, 0, NULL},
    {"arrival", V_CHOICE, CFG(clients.arrival), 0, 0, "open|closed|once"},
    {"rate", V_RATE_POS, CFG(clients.rate_per_s), 0, 0, NULL},
    {"think", V_DIST, CFG(clients.think), 0, 0, NULL},
    {"start_window", V_DURATION, CFG(clients.start_window_ns), 0, 0, NULL},
    {"read", V_PROB, CFG(clients.mix[0]), 0, 0, NULL},
    {"put", V_PROB, CFG(clients.mix[1]), 0, 0, NULL},
    {"post", V_PROB, CFG(clients.mix[2]), 0, 0, NULL},
    {"timeout", V_DURATION_POS, CFG(clients.timeout_ns), 0, 0, NULL},
    {"deadline", V_DURATION_NONE, CFG(clients.deadline_ns), 0, 0, NULL},
    {"idempotency_keys", V_BOOL, CFG(clients.idempotency_keys), 0, 0, NULL},
    {"defect_fraction", V_PROB, CFG(clients.defect_fraction), 0, 0, NULL},
    {"critical_fraction", V_PROB, CFG(clients.critical_fraction), 0, 0,
     NULL},
    {NULL, 0, 0, 0, 0, NULL}};

static const keydef server_keys[] = {
    {"model", V_CHOICE, CFG(server.model), 0, 0, "queue|hot_record"},
    {"occ", V_CHOICE, CFG(server.occ), 0, 0, "one_step|two_round_trips"},
    {"read_service", V_DIST, CFG(server.read_service), 0, 0, NULL},
    {"workers", V_COUNT_UNL, CFG(server.workers), 1, 10000000, NULL},
    {"queue_limit", V_COUNT_UNL, CFG(server.queue_limit), 0, 100000000, NULL},
    {"overflow", V_CHOICE, CFG(server.overflow), 0, 0, "reject|drop"},
    {"queue_order", V_CHOICE, CFG(server.queue_order), 0, 0, "fifo|lifo"},
    {"retry_after", V_DURATION_NONE, CFG(server.overflow_retry_after_ns), 0,
     0, NULL},
    {"service", V_DIST, CFG(server.service), 0, 0, NULL},
    {"degradation", V_REAL, CFG(server.degradation), 0, 100, NULL},
    {"degradation_knee", V_COUNT, CFG(server.degradation_knee), 0, 10000000,
     NULL},
    {"network_delay", V_DIST, CFG(server.network), 0, 0, NULL},
    {"rate_limit", V_RATE_NONE, CFG(server.rate_limit_per_s), 0, 0, NULL},
    {"rate_limit_burst", V_COUNT, CFG(server.rate_limit_burst), 1, 10000000,
     NULL},
    {"drop_expired", V_BOOL, CFG(server.drop_expired), 0, 0, NULL},
    {"drop_late", V_BOOL, CFG(server.drop_late), 0, 0, NULL},
    {"idempotency", V_BOOL, CFG(server.idempotency), 0, 0, NULL},
    {"dedupe_answer", V_CHOICE, CFG(server.dedupe_answer), 0, 0,
     "replay|conflict"},
    {"name", V_LATER, 0, 0, 0, NULL},
    {"downstream", V_LATER, 0, 0, 0, NULL},
    {NULL, 0, 0, 0, 0, NULL}};

#define FLT(field) offsetof(fault_cfg, field)
#define T(x) (1u << FAULT_##x)

typedef struct faultkey {
    keydef k;
    unsigned types;    /* the fault types it applies to */
    unsigned required; /* ... and requires it */
} faultkey;

static const faultkey fault_keys[] = {
    {{"start", V_DURATION, FLT(start_ns), 0, 0, NULL}, ~0u, ~0u},
    {{"duration", V_DURATION_POS, FLT(duration_ns), 0, 0, NULL}, ~0u, ~0u},
    {{"workers", V_COUNT, FLT(workers), 0, 10000000, NULL}, T(CAPACITY),
     T(CAPACITY)},
    {{"multiplier", V_REAL, FLT(multiplier), 0.001, 1000, NULL},
     T(LOAD_SPIKE) | T(SLOWDOWN), T(LOAD_SPIKE) | T(SLOWDOWN)},
    {{"mode", V_CHOICE, FLT(mode), 0, 0, "refuse|blackhole"},
     T(OUTAGE) | T(PARTITION), 0},
    {{"delay", V_DURATION_POS, FLT(delay_ns), 0, 0, NULL}, T(LATENCY),
     T(LATENCY)},
    {{"timeout", V_DURATION_POS, FLT(delay_ns), 0, 0, NULL},
     T(CLIENT_TIMEOUT), T(CLIENT_TIMEOUT)},
    {{"status", V_TEXT, 0, 0, 0, NULL}, T(ERRORS), T(ERRORS)},
    {{"retry_after", V_DURATION_POS, FLT(retry_after_ns), 0, 0, NULL},
     T(ERRORS), 0},
    {{"pushback", V_TEXT, 0, 0, 0, NULL}, T(ERRORS), 0},
    {{"probability", V_PROB, FLT(probability), 0, 0, NULL},
     T(ERRORS) | T(LOST_ACK), T(ERRORS) | T(LOST_ACK)},
    {{"fraction", V_PROB, FLT(fraction), 0, 0, NULL}, T(PARTITION),
     T(PARTITION)},
    {{"rate", V_RATE_POS, FLT(rate_per_s), 0, 0, NULL}, T(RATE_LIMIT),
     T(RATE_LIMIT)},
    {{"burst", V_COUNT, FLT(burst), 1, 10000000, NULL}, T(RATE_LIMIT), 0},
    /* The tier it strikes: faults at the server side only. */
    {{"target", V_TEXT, 0, 0, 0, NULL},
     ~(T(LOAD_SPIKE) | T(PARTITION) | T(CLIENT_TIMEOUT) | T(CRASH)), 0},
};

static int bad(sb_err *e, const entry *en, const char *msg)
{
    return err_set(e, "%s: [%s] %s: %s", en->origin, en->section, en->key,
                   msg);
}

static int bad_value(sb_err *e, const entry *en, const char *expected)
{
    char msg[ERR_MSG_MAX];
    /* A value longer than a line is quoted by its start. */
    snprintf(msg, sizeof msg, "expected %s, got '%.120s%s'", expected,
             en->value, strlen(en->value) > 120 ? "..." : "");
    return bad(e, en, msg);
}

static int parse_count(const entry *en, const keydef *k, bool unlimited,
                       uint32_t *out, sb_err *e)
{
    char want[160];
    snprintf(want, sizeof want, "a whole number from %.0f to %.0f%s", k->min,
             k->max, unlimited ? ", or 'unlimited'" : "");
    if (unlimited && strcmp(en->value, "unlimited") == 0) {
        *out = SIM_UNLIMITED;
        return 0;
    }
    int64_t v;
    sb_err inner;
    if (units_int(en->value, &v, &inner) != 0 || (double)v < k->min ||
        (double)v > k->max)
        return bad_value(e, en, want);
    *out = (uint32_t)v;
    return 0;
}

static int parse_duration(const entry *en, vk kind, int64_t *out, sb_err *e)
{
    sb_err inner;
    if ((kind == V_DURATION_NONE || kind == V_DURATION_OFF) &&
        strcmp(en->value, "none") == 0) {
        *out = 0;
        return 0;
    }
    if (units_duration(en->value, out, &inner) != 0) {
        if (kind == V_DURATION_NONE || kind == V_DURATION_OFF)
            err_prefix(&inner, "'none' or");
        return bad(e, en, inner.msg);
    }
    if (kind == V_DURATION_OFF && *out < 0)
        return bad_value(e, en, "a duration of at least 0, or 'none'");
    if (kind != V_DURATION && kind != V_DURATION_OFF && *out <= 0)
        return bad_value(e, en, kind == V_DURATION_NONE
                                    ? "a positive duration or 'none'"
                                    : "a positive duration");
    return 0;
}

static int parse_choice(const entry *en, const char *choices, int *out,
                        sb_err *e)
{
    int idx = 0;
    size_t len = strlen(en->value);
    for (const char *c = choices;; idx++) {
        const char *bar = strchr(c, '|');
        size_t n = bar ? (size_t)(bar - c) : strlen(c);
        if (n == len && strncmp(c, en->value, n) == 0) {
            *out = idx;
            return 0;
        }
        if (bar == NULL)
            break;
        c = bar + 1;
    }
    char want[200];
    snprintf(want, sizeof want, "one of %s", choices);
    return bad_value(e, en, want);
}

static int parse_text(const entry *en, char *dst, size_t size, sb_err *e)
{
    if (strlen(en->value) >= size) {
        char msg[96];
        snprintf(msg, sizeof msg, "is longer than %zu characters",
                 size - 1);
        return bad(e, en, msg);
    }
    memcpy(dst, en->value, strlen(en->value) + 1);
    return 0;
}

/* Parse one value into the field at base + k->off. */
static int parse_value(const entry *en, const keydef *k, void *base,
                       sb_err *e)
{
    char *field = (char *)base + k->off;
    sb_err inner;
    switch (k->kind) {
    case V_DURATION:
    case V_DURATION_POS:
    case V_DURATION_NONE:
    case V_DURATION_OFF:
        return parse_duration(en, k->kind, (int64_t *)(void *)field, e);
    case V_RATE_POS:
    case V_RATE_NONE: {
        double *r = (double *)(void *)field;
        if (k->kind == V_RATE_NONE && strcmp(en->value, "none") == 0) {
            *r = 0;
            return 0;
        }
        if (units_rate(en->value, r, &inner) != 0)
            return bad(e, en, inner.msg);
        if (*r <= 0)
            return bad_value(e, en, "a positive rate such as 100/s");
        return 0;
    }
    case V_PROB:
        if (units_probability(en->value, (double *)(void *)field, &inner))
            return bad(e, en, inner.msg);
        return 0;
    case V_SHARE: {
        /* As reports/expect.c reads [expect]'s shares, with its words. */
        double *x = (double *)(void *)field;
        if (units_share(en->value, x, &inner) != 0 || !(*x >= 0.0) ||
            *x > 1.0)
            return bad_value(e, en, "a share between 0 and 1, or a "
                             "percentage from 0% to 100%");
        return 0;
    }
    case V_REAL: {
        double *x = (double *)(void *)field;
        char want[96];
        snprintf(want, sizeof want, "a number from %g to %g", k->min, k->max);
        if (units_real(en->value, x, &inner) != 0 || *x < k->min ||
            *x > k->max)
            return bad_value(e, en, want);
        return 0;
    }
    case V_COUNT:
    case V_COUNT_UNL:
        return parse_count(en, k, k->kind == V_COUNT_UNL,
                           (uint32_t *)(void *)field, e);
    case V_BOOL:
        if (units_bool(en->value, (bool *)(void *)field, &inner) != 0)
            return bad(e, en, inner.msg);
        return 0;
    case V_DIST:
        if (units_dist(en->value, (dist *)(void *)field, &inner) != 0)
            return bad(e, en, inner.msg);
        return 0;
    case V_TEXT:
        return parse_text(en, field, (size_t)k->max, e);
    case V_SEED:
        /* The whole uint64 range, as `run --seed` promises and the writer
         * may write back (a seed drawn by the GUI). */
        if (units_u64(en->value, (uint64_t *)(void *)field, &inner) != 0)
            return bad(e, en, inner.msg);
        return 0;
    case V_CHOICE:
        return parse_choice(en, k->choices, (int *)(void *)field, e);
    case V_LATER:
        return 0;
    }
    return bad(e, en, "internal error: unknown key kind");
}

static int unknown_key(sb_err *e, const entry *en, const char *const *names,
                       int n)
{
    char list[800];
    suggest_list(names, n, list, sizeof list);
    const char *best = suggest_closest(en->key, names, n);
    if (best)
        return err_set(e, "%s: [%s] unknown key '%s' (did you mean '%s'?); "
                       "known keys: %s",
                       en->origin, en->section, en->key, best, list);
    return err_set(e, "%s: [%s] unknown key '%s'; known keys: %s", en->origin,
                   en->section, en->key, list);
}

static int table_names(const keydef *t, const char **names, int max)
{
    int n = 0;
    for (; t->name && n < max; t++)
        names[n++] = t->name;
    return n;
}

/* Parse section's keys by table into base, whose fields lie `shift`
 * bytes before the table's offsets (a tier's server_cfg, read with the
 * [server] table, whose offsets are into sim_config). */
static int apply_table_at(loader *ld, const char *section,
                          const keydef *table, void *base, size_t shift)
{
    for (int i = 0; i < ld->n; i++) {
        entry *en = &ld->entries[i];
        if (strcmp(en->section, section) != 0)
            continue;
        const keydef *k = table;
        while (k->name && strcmp(k->name, en->key) != 0)
            k++;
        if (k->name == NULL) {
            const char *names[32];
            return unknown_key(ld->e, en, names, table_names(table, names, 32));
        }
        if (k->kind == V_LATER)
            continue; /* read by its own pass; no field here (off 0 would
                         point before base once shifted) */
        keydef at = *k;
        at.off -= shift;
        if (parse_value(en, &at, base, ld->e) != 0)
            return -1;
        en->used = true;
    }
    return 0;
}

static int apply_table(loader *ld, const char *section, const keydef *table)
{
    return apply_table_at(ld, section, table, &ld->sc->cfg, 0);
}

/* ---- [clients] consistency ------------------------------------------- */

static int check_clients(loader *ld)
{
    client_cfg *c = &ld->sc->cfg.clients;
    const entry *mix[3] = {find_entry(ld, "clients", "read"),
                           find_entry(ld, "clients", "put"),
                           find_entry(ld, "clients", "post")};
    const entry *last = NULL;
    for (int i = 0; i < 3; i++)
        if (mix[i])
            last = mix[i];
    if (last) {
        for (int i = 0; i < 3; i++)
            if (!mix[i])
                c->mix[i] = 0.0;
        double sum = c->mix[0] + c->mix[1] + c->mix[2];
        if (fabs(sum - 1.0) > 1e-9) {
            char msg[256];
            snprintf(msg, sizeof msg,
                     "read + put + post must add up to 1, got %g (read %g, "
                     "put %g, post %g)",
                     sum, c->mix[0], c->mix[1], c->mix[2]);
            return bad(ld->e, last, msg);
        }
    }
    const entry *procs = find_entry(ld, "clients", "processes");
    if (procs && c->processes > c->count) {
        char msg[200];
        snprintf(msg, sizeof msg, "expected at most [clients] count (%u) "
                 "processes, got %u: a process holds at least one client",
                 c->count, c->processes);
        return bad(ld->e, procs, msg);
    }
    const entry *rate = find_entry(ld, "clients", "rate");
    const entry *think = find_entry(ld, "clients", "think");
    const entry *window = find_entry(ld, "clients", "start_window");
    if (c->arrival != ARRIVAL_OPEN && rate)
        return bad(ld->e, rate, "only open-loop clients (arrival = open) "
                   "have a rate");
    if (c->arrival != ARRIVAL_CLOSED && think)
        return bad(ld->e, think, "only closed-loop clients (arrival = "
                   "closed) have a think time");
    if (c->arrival != ARRIVAL_ONCE && window)
        return bad(ld->e, window, "only clients that send one request each "
                   "(arrival = once) have a start window");
    return 0;
}

/* A rate limiter answers a refused attempt with a Retry-After of up to
 * 1/rate seconds; below one request per end of time (5e-10/s) that wait
 * is past the end of simulated time.  Such a limit admits nothing after
 * its burst in any run, which an outage says plainly. */
static int check_limit_rate(loader *ld, const entry *en, double rate)
{
    double min = 1e9 / (double)SIMTIME_END;
    if (en == NULL || rate <= 0 || rate >= min)
        return 0;
    char msg[300];
    snprintf(msg, sizeof msg, "%g/s is below %g/s, one request per %llds "
             "(the end of simulated time): the Retry-After of a refused "
             "attempt would be longer than any run; to refuse everything, "
             "use an outage fault", rate, min,
             (long long)(SIMTIME_END / NS_PER_S));
    return bad(ld->e, en, msg);
}

/* The consistency of a server's keys: [server] or a tier's
 * [server.NAME]. */
static int check_server_at(loader *ld, const char *section, server_cfg *s)
{
    if (check_limit_rate(ld, find_entry(ld, section, "rate_limit"),
                         s->rate_limit_per_s) != 0)
        return -1;
    const entry *deg = find_entry(ld, section, "degradation");
    const entry *knee = find_entry(ld, section, "degradation_knee");
    if (deg && s->degradation > 0 && !knee)
        return bad(ld->e, deg, "needs degradation_knee too: the number of "
                   "attempts in service beyond which service slows down");
    const entry *rl = find_entry(ld, section, "rate_limit_burst");
    if (rl && s->rate_limit_per_s <= 0)
        return bad(ld->e, rl, "has no effect without rate_limit");
    const entry *ra = find_entry(ld, section, "retry_after");
    if (ra && s->overflow == OVERFLOW_DROP)
        return bad(ld->e, ra, "has no effect with overflow = drop (nothing "
                   "is answered)");
    const entry *occ = find_entry(ld, section, "occ");
    if (occ && s->model != MODEL_HOT_RECORD)
        return bad(ld->e, occ, "has no effect unless model = hot_record");
    const entry *rs = find_entry(ld, section, "read_service");
    if (rs && s->occ != OCC_TWO_ROUND_TRIPS)
        return bad(ld->e, rs, "has no effect unless occ = two_round_trips");
    if (rs == NULL)
        s->read_service = s->service;
    return 0;
}

static int check_server(loader *ld)
{
    return check_server_at(ld, "server", &ld->sc->cfg.server);
}

/* ---- Service chains: [server.NAME], downstream, [policy.NAME] --------
 *
 * [server] is the top tier (named by its `name`, default "top"); its
 * `downstream` names a [server.NAME], whose own `downstream` may name
 * another, and so on: one chain (sim/tier.h).  [policy.NAME] holds the
 * policy of the calls tier NAME makes to its downstream.  Refused, each
 * at the line that says it: a downstream that names no tier, a cycle, a
 * tier the chain does not reach, a [policy.NAME] of no calling tier, a
 * calling tier without a finite worker count or with the hot-record
 * model. */

#define TOP_TIER_DEFAULT "top"

static int section_line(const loader *ld, const char *section)
{
    for (int i = 0; i < ld->n_sections; i++)
        if (strcmp(ld->sections[i].name, section) == 0)
            return ld->sections[i].line;
    return 0;
}

static const char *top_tier_name(loader *ld)
{
    const entry *n = find_entry(ld, "server", "name");
    return n ? n->value : TOP_TIER_DEFAULT;
}

/* The chain so far, "top -> api -> db", for messages. */
static void chain_words(const sim_config *c, uint32_t n, char *buf,
                        size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 i ? " -> " : "", c->tiers[i].name);
}

/* The tier a fault strikes, by name. */
static int parse_target(loader *ld, const entry *en, fault_cfg *f)
{
    const sim_config *c = &ld->sc->cfg;
    if (c->n_tiers == 0) {
        if (strcmp(en->value, top_tier_name(ld)) == 0) {
            f->tier = 0;
            return 0;
        }
        char want[200];
        if (snprintf(want, sizeof want, "the name of a tier; this scenario "
                     "has one server, '%s'", top_tier_name(ld)) >=
            (int)sizeof want)
            return bad(ld->e, en, "names a tier with too long a name");
        return bad_value(ld->e, en, want);
    }
    for (uint32_t i = 0; i < c->n_tiers; i++) {
        if (strcmp(c->tiers[i].name, en->value) == 0) {
            f->tier = (uint8_t)i;
            return 0;
        }
    }
    char chain[SIM_MAX_TIERS * (SIM_NAME_MAX + 4)], want[sizeof chain + 64];
    chain_words(c, c->n_tiers, chain, sizeof chain);
    snprintf(want, sizeof want, "the name of a tier of the chain %s", chain);
    return bad_value(ld->e, en, want);
}

/* A tier below the top: [server.NAME] with [server]'s keys (but name). */
static int load_tier_server(loader *ld, const char *section, tier_cfg *t)
{
    config_server_defaults(&t->server);
    const entry *nm = find_entry(ld, section, "name");
    if (nm)
        return bad(ld->e, nm, "a tier's name is the one in its section "
                   "header; only the top [server] takes a name");
    if (apply_table_at(ld, section, server_keys, &t->server, CFG(server)) !=
        0)
        return -1;
    /* The two-round-trip update is answered by the engine's client side
     * (server.h), which a tier's calls do not have yet. */
    const entry *m = find_entry(ld, section, "model");
    if (m && t->server.model != MODEL_QUEUE)
        return bad(ld->e, m, "a tier below the top must use model = queue "
                   "(the hot-record model is for [server] only, yet)");
    return check_server_at(ld, section, &t->server);
}

/* Tier i calls down: it needs workers to make its calls, and a plain
 * queue model (the hot record's two round trips are not chained). */
static int check_caller(loader *ld, const char *section,
                        const server_cfg *sv)
{
    const entry *w = find_entry(ld, section, "workers");
    const entry *m = find_entry(ld, section, "model");
    const entry *down = find_entry(ld, section, "downstream");
    if (sv->workers == SIM_UNLIMITED)
        return bad(ld->e, w ? w : down, "a tier that calls a downstream "
                   "needs a finite number of workers: they make its calls "
                   "and are held while a call is in progress");
    if (sv->model != MODEL_QUEUE)
        return bad(ld->e, m ? m : down, "a tier that calls a downstream "
                   "must use model = queue");
    return 0;
}

/* [policy.NAME] of tier t, the calls it makes: name (the stack), timeout
 * (per attempt), processes, and the stack's parameters.  When --set
 * chose another stack than the file's, the file's parameters (written
 * for its own stack) are left out and only --set's apply, as for the
 * clients' [policy]. */

/* Keep entry en, from [section], as a policy parameter in *out, with
 * where it was written ("x.ini:12: [section]") for the stack's messages. */
static int keep_setting(loader *ld, const entry *en, const char *section,
                        setting *out)
{
    if (snprintf(out->key, sizeof out->key, "%s", en->key) >=
            (int)sizeof out->key ||
        snprintf(out->value, sizeof out->value, "%s", en->value) >=
            (int)sizeof out->value ||
        snprintf(out->origin, sizeof out->origin, "%s: [%s]", en->origin,
                 section) >= (int)sizeof out->origin)
        return bad(ld->e, en, "is too long");
    return 0;
}
static int load_tier_policy(loader *ld, tier_cfg *t, uint32_t workers)
{
    char section[96];
    if (snprintf(section, sizeof section, "policy.%s", t->name) >=
        (int)sizeof section)
        return err_set(ld->e, "%s: tier name '%s' is too long", ld->path,
                       t->name);
    snprintf(t->policy, sizeof t->policy, "none");
    snprintf(t->policy_origin, sizeof t->policy_origin, "[%s] (default)",
             section);
    t->timeout_ns = NS_PER_S;
    static const keydef timeout = {"timeout", V_DURATION_POS, 0, 0, 0, NULL};
    static const keydef procs = {"processes", V_COUNT, 0, 1, 100000000, NULL};
    static const keydef prop = {"propagate_deadline", V_BOOL, 0, 0, 0, NULL};
    const entry *stack = find_entry(ld, section, "name");
    bool set_stack = stack && strncmp(stack->origin, "--set", 5) == 0;
    for (int i = 0; i < ld->n; i++) {
        entry *en = &ld->entries[i];
        if (strcmp(en->section, section) != 0)
            continue;
        en->used = true;
        bool from_set = strncmp(en->origin, "--set", 5) == 0;
        if (strcmp(en->key, "name") == 0) {
            if (parse_text(en, t->policy, sizeof t->policy, ld->e) != 0)
                return -1;
            if (snprintf(t->policy_origin, sizeof t->policy_origin,
                         "%s: [%s] name", en->origin, section) >=
                (int)sizeof t->policy_origin)
                return bad(ld->e, en, "has a file path too long to report");
        } else if (strcmp(en->key, "timeout") == 0) {
            if (parse_value(en, &timeout, &t->timeout_ns, ld->e) != 0)
                return -1;
        } else if (strcmp(en->key, "processes") == 0) {
            if (parse_value(en, &procs, &t->processes, ld->e) != 0)
                return -1;
            if (t->processes > workers) {
                char msg[200];
                snprintf(msg, sizeof msg, "expected at most the tier's "
                         "workers (%u) processes, got %u: a process holds "
                         "at least one worker", workers, t->processes);
                return bad(ld->e, en, msg);
            }
        } else if (strcmp(en->key, "propagate_deadline") == 0) {
            if (parse_value(en, &prop, &t->propagate_deadline, ld->e) != 0)
                return -1;
        } else if (strcmp(en->key, "plugin") == 0) {
            return bad(ld->e, en, "a tier's calls run built-in policies "
                       "only (plug-ins are not supported there yet)");
        } else if (set_stack && !from_set) {
            continue;
        } else {
            if (t->n_settings == SIM_TIER_SETTINGS)
                return bad(ld->e, en, "too many policy parameters for a "
                           "tier");
            if (keep_setting(ld, en, section,
                             &t->settings[t->n_settings++]) != 0)
                return -1;
        }
    }
    return 0;
}

/* Follow the downstreams from the top: each must name a [server.NAME]
 * not already in the chain. */
static int follow_chain(loader *ld)
{
    sim_config *c = &ld->sc->cfg;
    const entry *link = find_entry(ld, "server", "downstream");
    uint32_t n = 1;
    while (link) {
        char name[SIM_NAME_MAX] = {0}, section[96]; /* zeroed: copied whole */
        char chain[SIM_MAX_TIERS * (SIM_NAME_MAX + 4)];
        if (!syntax_name_ok(link->value) ||
            snprintf(name, sizeof name, "%s", link->value) >=
                (int)sizeof name)
            return bad_value(ld->e, link, "the name of a [server.NAME] "
                             "section (" SYNTAX_NAME_RULE ")");
        chain_words(c, n, chain, sizeof chain);
        for (uint32_t i = 0; i < n; i++) {
            if (strcmp(c->tiers[i].name, name) == 0) {
                char msg[sizeof chain + 2 * SIM_NAME_MAX + 100];
                snprintf(msg, sizeof msg, "'%s' makes a cycle: %s -> %s; "
                         "a chain ends at a tier without a downstream",
                         name, chain, name);
                return bad(ld->e, link, msg);
            }
        }
        snprintf(section, sizeof section, "server.%s", name);
        if (section_line(ld, section) == 0) {
            char want[sizeof section + 64];
            snprintf(want, sizeof want, "the name of a tier, but there is "
                     "no [%s] section", section);
            return bad_value(ld->e, link, want);
        }
        if (n == SIM_MAX_TIERS) {
            char msg[sizeof chain + SIM_NAME_MAX + 100];
            snprintf(msg, sizeof msg, "a chain has at most %d tiers: %s -> "
                     "%s", SIM_MAX_TIERS, chain, name);
            return bad(ld->e, link, msg);
        }
        tier_cfg *t = &c->tiers[n++];
        memcpy(t->name, name, sizeof name);
        if (load_tier_server(ld, section, t) != 0)
            return -1;
        link = find_entry(ld, section, "downstream");
    }
    c->n_tiers = n;
    return 0;
}

static bool in_chain(const sim_config *c, const char *name)
{
    for (uint32_t i = 0; i < c->n_tiers; i++)
        if (strcmp(c->tiers[i].name, name) == 0)
            return true;
    return false;
}

/* Sections the chain does not use: a [server.NAME] it does not reach, a
 * [policy.NAME] of no tier that calls down; and keys --set gave to such
 * sections the file does not have. */
static int check_unused_tiers(loader *ld)
{
    const sim_config *c = &ld->sc->cfg;
    for (int i = 0; i < ld->n; i++) {
        const entry *en = &ld->entries[i];
        bool server = strncmp(en->section, "server.", 7) == 0;
        bool policy = strncmp(en->section, "policy.", 7) == 0;
        bool expect = strncmp(en->section, "expect.", 7) == 0;
        if (!server && !policy && !expect)
            continue;
        const char *name = en->section + 7;
        int line = section_line(ld, en->section);
        char where[1200];
        if (line)
            snprintf(where, sizeof where, "%s:%d", ld->path, line);
        else
            snprintf(where, sizeof where, "%s", en->origin);
        if (server && !in_chain(c, name))
            return err_set(ld->e, "%s: [%s] is not part of the service "
                           "chain: no tier reached from [server] has "
                           "downstream = %s", where, en->section, name);
        if (policy && !in_chain(c, name))
            return err_set(ld->e, "%s: [%s] is the policy of tier '%s''s "
                           "calls, but there is no such tier; expected "
                           "[policy.NAME] for a tier [server.NAME] (or the "
                           "top's [server] name) that has a downstream",
                           where, en->section, name);
        if (expect && !in_chain(c, name))
            return err_set(ld->e, "%s: [%s] holds assertions about tier "
                           "'%s', but there is no such tier in the service "
                           "chain", where, en->section, name);
        if (policy && strcmp(c->tiers[c->n_tiers - 1].name, name) == 0)
            return err_set(ld->e, "%s: [%s]: tier '%s' has no downstream, "
                           "so it makes no calls for a policy to drive",
                           where, en->section, name);
    }
    return 0;
}

/* [expect.NAME]: assertions about tier NAME over the run. */
static int load_tier_expect(loader *ld, tier_cfg *t)
{
    static const keydef keys[TIER_EXPECT_KINDS + 1] = {
        [TIER_EXPECT_AMPLIFICATION_MIN] = {"amplification_min", V_REAL, 0, 0,
                                           1e12, NULL},
        [TIER_EXPECT_AMPLIFICATION_MAX] = {"amplification_max", V_REAL, 0, 0,
                                           1e12, NULL},
        [TIER_EXPECT_UTILIZATION_MIN] = {"utilization_min", V_SHARE, 0, 0,
                                         0, NULL},
        [TIER_EXPECT_UTILIZATION_MAX] = {"utilization_max", V_SHARE, 0, 0,
                                         0, NULL},
        [TIER_EXPECT_KINDS] = {NULL, 0, 0, 0, 0, NULL}};
    char section[96];
    snprintf(section, sizeof section, "expect.%s", t->name);
    for (int i = 0; i < ld->n; i++) {
        entry *en = &ld->entries[i];
        if (strcmp(en->section, section) != 0)
            continue;
        int k = 0;
        while (keys[k].name && strcmp(keys[k].name, en->key) != 0)
            k++;
        if (keys[k].name == NULL) {
            const char *names[TIER_EXPECT_KINDS];
            return unknown_key(ld->e, en, names,
                               table_names(keys, names, TIER_EXPECT_KINDS));
        }
        if (parse_value(en, &keys[k], &t->expect[k], ld->e) != 0)
            return -1;
        t->has_expect[k] = true;
        en->used = true;
    }
    return 0;
}

static int load_tiers(loader *ld)
{
    sim_config *c = &ld->sc->cfg;
    const entry *nm = find_entry(ld, "server", "name");
    /* A valid name fits: names_valid bounds its length. */
    if (nm && !syntax_name_ok(nm->value))
        return bad_value(ld->e, nm, "a tier name (" SYNTAX_NAME_RULE ")");
    snprintf(c->tiers[0].name, sizeof c->tiers[0].name, "%s",
             top_tier_name(ld));
    if (follow_chain(ld) != 0)
        return -1;
    if (check_unused_tiers(ld) != 0)
        return -1;
    if (c->n_tiers < 2) {
        c->n_tiers = 0; /* a single server: no chain, and no name kept */
        memset(&c->tiers[0], 0, sizeof c->tiers[0]);
        for (int i = 0; i < ld->n; i++)
            if (strncmp(ld->entries[i].section, "expect.", 7) == 0)
                return bad(ld->e, &ld->entries[i], "[expect.NAME] holds "
                           "assertions about a tier of a service chain, "
                           "and this scenario has one server: use "
                           "[expect]");
        return 0;
    }
    for (uint32_t i = 0; i < c->n_tiers; i++)
        if (load_tier_expect(ld, &c->tiers[i]) != 0)
            return -1;
    for (uint32_t i = 0; i + 1 < c->n_tiers; i++) {
        char section[96] = "server";
        if (i > 0)
            snprintf(section, sizeof section, "server.%s", c->tiers[i].name);
        const server_cfg *sv = i ? &c->tiers[i].server : &c->server;
        if (check_caller(ld, section, sv) != 0 ||
            load_tier_policy(ld, &c->tiers[i], sv->workers) != 0)
            return -1;
    }
    return 0;
}

/* ---- [fault.NAME] ------------------------------------------------------ */

static int parse_status(const entry *en, fault_cfg *f, sb_err *e)
{
    const char *want = "an HTTP status (100-599), a gRPC code name such as "
                       "UNAVAILABLE, or 'reset'";
    if (strcmp(en->value, "reset") == 0) {
        f->kind = SB_ERR_RESET;
        f->status = 0;
        return 0;
    }
    int g = classify_grpc_parse(en->value);
    if (g > 0) {
        f->kind = SB_ERR_GRPC;
        f->status = g;
        return 0;
    }
    int64_t v;
    sb_err inner;
    if (units_int(en->value, &v, &inner) != 0 || v < 100 || v > 599)
        return bad_value(e, en, want);
    if (v < 400)
        return bad_value(e, en, "an error status (400-599): an errors fault "
                         "answers with an error");
    f->kind = SB_ERR_HTTP;
    f->status = (int32_t)v;
    return 0;
}

/* gRPC's grpc-retry-pushback-ms (gRFC A6): a delay of whole ms, or
 * "stop" (the header's negative value: do not retry). */
static int parse_pushback(const entry *en, fault_cfg *f, sb_err *e)
{
    int64_t ns;
    sb_err inner;
    if (strcmp(en->value, "stop") == 0) {
        f->pushback = FAULT_PUSHBACK_STOP;
        return 0;
    }
    if (units_duration(en->value, &ns, &inner) != 0 || ns < 0 ||
        ns % 1000000 != 0 || ns / 1000000 > INT32_MAX)
        return bad_value(e, en, "a delay in whole milliseconds (the "
                         "grpc-retry-pushback-ms header), or 'stop'");
    f->pushback = FAULT_PUSHBACK_DELAY;
    f->pushback_ms = (int32_t)(ns / 1000000);
    return 0;
}

static int fault_type_of(loader *ld, const char *section, fault_type *t)
{
    entry *type = find_entry(ld, section, "type");
    if (type == NULL) {
        for (int i = 0; i < ld->n_sections; i++)
            if (strcmp(ld->sections[i].name, section) == 0)
                return err_set(ld->e, "%s:%d: [%s] needs a 'type' (one of "
                               "capacity, load_spike, outage, latency, "
                               "slowdown, errors, lost_ack, partition, "
                               "rate_limit, client_timeout)",
                               ld->path, ld->sections[i].line, section);
        /* Only --set named it: most likely a typo of a fault the file
         * has.  Name the --set, and the closest fault. */
        const char *faults[MAX_SECTIONS];
        int n = 0;
        for (int i = 0; i < ld->n_sections; i++)
            if (strncmp(ld->sections[i].name, "fault.", 6) == 0)
                faults[n++] = ld->sections[i].name;
        const entry *any = NULL;
        for (int i = 0; i < ld->n && any == NULL; i++)
            if (strcmp(ld->entries[i].section, section) == 0)
                any = &ld->entries[i];
        const char *best = suggest_closest(section, faults, n);
        if (best)
            return err_set(ld->e, "%s: the scenario has no [%s] (did you "
                           "mean [%s]?); a new fault needs %s.type",
                           any ? any->origin : "--set", section, best,
                           section);
        return err_set(ld->e, "%s: the scenario has no [%s]; a new fault "
                       "needs %s.type (one of capacity, load_spike, outage, "
                       "latency, slowdown, errors, lost_ack, partition, "
                       "rate_limit, client_timeout)",
                       any ? any->origin : "--set", section, section);
    }
    type->used = true;
    if (fault_type_parse(type->value, t) != 0)
        return bad_value(ld->e, type, "one of capacity, load_spike, outage, "
                         "latency, slowdown, errors, lost_ack, partition, "
                         "rate_limit, client_timeout");
    return 0;
}

static int fault_key(loader *ld, entry *en, fault_cfg *f)
{
    const faultkey *k = NULL;
    for (size_t i = 0; i < sizeof fault_keys / sizeof *fault_keys; i++)
        if (strcmp(fault_keys[i].k.name, en->key) == 0)
            k = &fault_keys[i];
    if (k == NULL) {
        const char *names[16] = {"type"};
        int n = 1;
        for (size_t i = 0; i < sizeof fault_keys / sizeof *fault_keys; i++)
            if (fault_keys[i].types & (1u << f->type))
                names[n++] = fault_keys[i].k.name;
        return unknown_key(ld->e, en, names, n);
    }
    if (!(k->types & (1u << f->type))) {
        char msg[200];
        snprintf(msg, sizeof msg, "does not apply to a fault of type '%s'",
                 fault_type_name(f->type));
        return bad(ld->e, en, msg);
    }
    en->used = true;
    if (strcmp(k->k.name, "status") == 0)
        return parse_status(en, f, ld->e);
    if (strcmp(k->k.name, "pushback") == 0)
        return parse_pushback(en, f, ld->e);
    if (strcmp(k->k.name, "target") == 0)
        return parse_target(ld, en, f);
    return parse_value(en, &k->k, f, ld->e);
}

static int fault_required(loader *ld, const char *section, fault_cfg *f)
{
    for (size_t i = 0; i < sizeof fault_keys / sizeof *fault_keys; i++) {
        const faultkey *k = &fault_keys[i];
        if (!(k->required & (1u << f->type)) ||
            find_entry(ld, section, k->k.name))
            continue;
        int line = 0;
        for (int j = 0; j < ld->n_sections; j++)
            if (strcmp(ld->sections[j].name, section) == 0)
                line = ld->sections[j].line;
        return err_set(ld->e, "%s:%d: [%s] a fault of type '%s' needs '%s'",
                       ld->path, line, section, fault_type_name(f->type),
                       k->k.name);
    }
    return 0;
}

static int load_fault(loader *ld, const char *section)
{
    sim_config *c = &ld->sc->cfg;
    if (c->n_faults == SIM_MAX_FAULTS)
        return err_set(ld->e, "%s: at most %d faults", ld->path,
                       SIM_MAX_FAULTS);
    fault_cfg *f = &c->faults[c->n_faults];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", section + 6);
    f->burst = 1;
    f->mode = CUT_REFUSE;
    if (fault_type_of(ld, section, &f->type) != 0)
        return -1;
    if (f->type == FAULT_PARTITION)
        f->mode = CUT_BLACKHOLE;
    for (int i = 0; i < ld->n; i++) {
        entry *en = &ld->entries[i];
        if (strcmp(en->section, section) == 0 && !en->used &&
            fault_key(ld, en, f) != 0)
            return -1;
    }
    if (fault_required(ld, section, f) != 0)
        return -1;
    if (f->type == FAULT_RATE_LIMIT &&
        check_limit_rate(ld, find_entry(ld, section, "rate"),
                         f->rate_per_s) != 0)
        return -1;
    const entry *pb = find_entry(ld, section, "pushback");
    if (pb && f->kind != SB_ERR_GRPC)
        return bad(ld->e, pb, "is gRPC metadata (grpc-retry-pushback-ms): "
                   "it needs a gRPC status, such as UNAVAILABLE");
    c->n_faults++;
    return 0;
}

static int load_faults(loader *ld)
{
    /* In the order they first appear, so fault indices are stable. */
    for (int i = 0; i < ld->n; i++) {
        const char *section = ld->entries[i].section;
        if (strncmp(section, "fault.", 6) != 0)
            continue;
        bool seen = false;
        for (int j = 0; j < i; j++)
            if (strcmp(ld->entries[j].section, section) == 0)
                seen = true;
        if (!seen && load_fault(ld, section) != 0)
            return -1;
    }
    /* A fault section with no keys at all. */
    for (int i = 0; i < ld->n_sections; i++) {
        const char *name = ld->sections[i].name;
        if (strncmp(name, "fault.", 6) == 0 && !find_entry(ld, name, "type"))
            return fault_type_of(ld, name, &(fault_type){0});
    }
    return 0;
}

/* ---- [policy] and [expect] --------------------------------------------- */

static int load_policy(loader *ld)
{
    scenario *sc = ld->sc;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", ld->path);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[1] = '\0';
    else
        dir[0] = '\0';
    for (int i = 0; i < ld->n; i++) {
        entry *en = &ld->entries[i];
        if (strcmp(en->section, "policy") != 0)
            continue;
        en->used = true;
        if (strcmp(en->key, "name") == 0) {
            if (parse_text(en, sc->policy, sizeof sc->policy, ld->e) != 0)
                return -1;
            if (snprintf(sc->policy_origin, sizeof sc->policy_origin,
                         "%s: [policy] name", en->origin) >=
                (int)sizeof sc->policy_origin)
                return bad(ld->e, en, "has a file path too long to report");
        } else if (strcmp(en->key, "plugin") == 0) {
            if (sc->n_plugins == SCENARIO_MAX_PLUGINS)
                return bad(ld->e, en, "too many plug-ins");
            /* Relative to the scenario file, so the pair moves together;
             * a --set path is relative to where the user stands. */
            bool from_file = strncmp(en->origin, "--set", 5) != 0;
            if (snprintf(sc->plugins[sc->n_plugins], 1024, "%s%s",
                         en->value[0] == '/' || !from_file ? "" : dir,
                         en->value) >= 1024)
                return bad(ld->e, en, "is a path too long (at most 1023 "
                                      "bytes with the scenario's folder)");
            sc->n_plugins++;
        } else {
            if (sc->n_settings == PSTACK_MAX_SETTINGS)
                return bad(ld->e, en, "too many policy parameters");
            if (keep_setting(ld, en, "policy",
                             &sc->settings[sc->n_settings++]) != 0)
                return -1;
        }
    }
    return 0;
}

/* [expect] keys are kept as written, with where they were written:
 * reports/expect.h owns their meaning and checks them. */
static int load_expect(loader *ld)
{
    scenario *sc = ld->sc;
    for (int i = 0; i < ld->n; i++) {
        entry *en = &ld->entries[i];
        if (strcmp(en->section, "expect") != 0)
            continue;
        if (sc->n_expect == SCENARIO_MAX_EXPECT)
            return bad(ld->e, en, "too many expectations");
        setting *x = &sc->expect[sc->n_expect++];
        if (strlen(en->value) >= sizeof x->value ||
            strlen(en->key) >= sizeof x->key)
            return bad(ld->e, en, "is too long");
        if (snprintf(x->key, sizeof x->key, "%s", en->key) >=
                (int)sizeof x->key ||
            snprintf(x->value, sizeof x->value, "%s", en->value) >=
                (int)sizeof x->value ||
            snprintf(x->origin, sizeof x->origin, "%s: [expect]",
                     en->origin) >= (int)sizeof x->origin)
            return bad(ld->e, en, "is too long");
        en->used = true;
    }
    return 0;
}

/* ---- Pipelines: [pipeline] and [step.NAME] ------------------------------
 *
 * [pipeline] steps = a, b, c names the [step.NAME] sections in the order
 * the job runs them (sim/pipeline.h).  A step's keys are its own (the
 * table below); in a step with a policy of its own, every other key is a
 * parameter of that stack, handed on as a setting for the stack to check
 * when it is built (as a tier's [policy.NAME] parameters are).  Refused,
 * each at the line that says it: a listed name without its section, a
 * [step.NAME] the list leaves out, a step without [pipeline], and a
 * pipeline with what it does not support yet (a service chain, the
 * hot-record model). */

#define PIPE(field) offsetof(pipeline_cfg, field)
#define STEP(field) offsetof(step_cfg, field)

static const keydef pipeline_keys[] = {
    {"steps", V_LATER, 0, 0, 0, NULL},
    {"on_failure", V_CHOICE, PIPE(strategy), 0, 0,
     "fail_fast|continue|compensate|partial"},
    {"checkpoints", V_BOOL, PIPE(checkpoints), 0, 0, NULL},
    {"reruns", V_COUNT, PIPE(reruns), 0, SIM_MAX_RERUNS, NULL},
    {"rerun_delay", V_DURATION, PIPE(rerun_delay_ns), 0, 0, NULL},
    {"sla", V_DURATION_OFF, PIPE(sla_ns), 0, 0, NULL},
    {"warn_retry", V_COUNT, PIPE(warn_retry), 1, 1000000, NULL},
    {"dead_letter_growth", V_COUNT, PIPE(dead_letter_growth), 1, 1000000,
     NULL},
    {NULL, 0, 0, 0, 0, NULL}};

static const keydef step_keys[] = {
    {"policy", V_LATER, 0, 0, 0, NULL},
    {"timeout", V_DURATION_POS, STEP(timeout_ns), 0, 0, NULL},
    {"service", V_DIST, STEP(service), 0, 0, NULL},
    {"transient", V_PROB, STEP(transient), 0, 0, NULL},
    {"permanent", V_PROB, STEP(permanent), 0, 0, NULL},
    {"defect", V_PROB, STEP(defect), 0, 0, NULL},
    {"items", V_COUNT, STEP(items), 0, 1000000, NULL},
    {"item_defect", V_PROB, STEP(item_defect), 0, 0, NULL},
    {"idempotent", V_BOOL, STEP(idempotent), 0, 0, NULL},
    {"independent", V_BOOL, STEP(independent), 0, 0, NULL},
    {"undo", V_DIST, STEP(undo_service), 0, 0, NULL},
    {NULL, 0, 0, 0, 0, NULL}};

/* Where a section was written, for a message about the whole section:
 * its header's line, or the --set that made it. */
static void section_where(const loader *ld, const char *section,
                          const entry *any, char *buf, size_t len)
{
    int line = section_line(ld, section);
    if (line)
        snprintf(buf, len, "%s:%d", ld->path, line);
    else
        snprintf(buf, len, "%s", any ? any->origin : ld->path);
}

static const entry *first_entry(const loader *ld, const char *section)
{
    for (int i = 0; i < ld->n; i++)
        if (strcmp(ld->entries[i].section, section) == 0)
            return &ld->entries[i];
    return NULL;
}

/* A key of a step without a policy of its own that is not a step key:
 * the usual unknown-key message, and why a stack parameter is not taken
 * here. */
static int step_unknown_key(loader *ld, const entry *en)
{
    const char *names[16];
    unknown_key(ld->e, en, names, table_names(step_keys, names, 16));
    size_t len = strlen(ld->e->msg);
    snprintf(ld->e->msg + len, sizeof ld->e->msg - len,
             "; a policy parameter needs the step's own policy "
             "(policy = NAME): without one the step runs the run's stack, "
             "whose parameters are set in [policy]");
    return -1;
}

/* A parameter of the step's own stack, kept with where it was written. */
static int step_setting(loader *ld, const entry *en, const char *section,
                        step_cfg *st)
{
    if (st->n_settings == SIM_STEP_SETTINGS) {
        char msg[96];
        snprintf(msg, sizeof msg, "too many policy parameters for a step "
                 "(at most %d)", SIM_STEP_SETTINGS);
        return bad(ld->e, en, msg);
    }
    return keep_setting(ld, en, section, &st->settings[st->n_settings++]);
}

static int step_policy(loader *ld, const entry *en, const char *section,
                       step_cfg *st)
{
    if (en->value[0] == '\0')
        return bad_value(ld->e, en, "a policy stack such as exponential or "
                         "plan+token_bucket (leave the key out to run the "
                         "run's own stack)");
    if (parse_text(en, st->policy, sizeof st->policy, ld->e) != 0)
        return -1;
    if (snprintf(st->policy_origin, sizeof st->policy_origin,
                 "%s: [%s] policy", en->origin, section) >=
        (int)sizeof st->policy_origin)
        return bad(ld->e, en, "has a file path too long to report");
    return 0;
}

/* One key of [step.NAME]: its own, or a parameter of its own stack.
 * When --set chose the step's stack, the file's parameters (written for
 * the file's stack) are left out, as for [policy.NAME]. */
static int step_key(loader *ld, entry *en, const char *section,
                    step_cfg *st, bool own_policy, bool set_stack)
{
    en->used = true;
    if (strcmp(en->key, "policy") == 0)
        return step_policy(ld, en, section, st);
    if (strcmp(en->key, "plugin") == 0)
        return bad(ld->e, en, "a step's own stack runs built-in policies "
                   "only (a plug-in is loaded by [policy] plugin, for the "
                   "run's stack, which a step without policy = runs)");
    const keydef *k = step_keys;
    while (k->name && strcmp(k->name, en->key) != 0)
        k++;
    if (k->name) {
        if (parse_value(en, k, st, ld->e) != 0)
            return -1;
        if (strcmp(k->name, "service") == 0)
            st->has_service = true;
        if (strcmp(k->name, "undo") == 0)
            st->has_undo = true;
        return 0;
    }
    if (!own_policy)
        return step_unknown_key(ld, en);
    if (set_stack && strncmp(en->origin, "--set", 5) != 0)
        return 0;
    return step_setting(ld, en, section, st);
}

static int load_step(loader *ld, const char *name, step_cfg *st)
{
    char section[96];
    snprintf(section, sizeof section, "step.%s", name);
    config_step_defaults(st);
    snprintf(st->name, sizeof st->name, "%s", name);
    const entry *pol = find_entry(ld, section, "policy");
    bool set_stack = pol && strncmp(pol->origin, "--set", 5) == 0;
    for (int i = 0; i < ld->n; i++) {
        entry *en = &ld->entries[i];
        if (strcmp(en->section, section) == 0 &&
            step_key(ld, en, section, st, pol != NULL, set_stack) != 0)
            return -1;
    }
    const entry *bad_items = find_entry(ld, section, "item_defect");
    if (bad_items && st->items == 0 && st->item_defect > 0)
        return bad_value(ld->e, bad_items, "0 in a step that is not a "
                         "batch (item_defect is the share of a batch's "
                         "items with a defect; set items = N to make the "
                         "step a batch of N items)");
    return 0;
}

/* steps = a, b, c: the names, each a [step.NAME] section, each once. */
static int parse_steps(loader *ld, const entry *en, pipeline_cfg *p)
{
    char list[LINE_MAX_LEN];
    snprintf(list, sizeof list, "%s", en->value);
    p->n_steps = 0;
    if (*trim(list) == '\0')
        return bad_value(ld->e, en, "at least one step: the names of "
                         "[step.NAME] sections, in the order they run");
    /* By hand, not strtok: "a,,b" has an empty name, not two names. */
    for (char *tok = list, *next; tok; tok = next) {
        char *comma = strchr(tok, ',');
        next = comma ? comma + 1 : NULL;
        if (comma)
            *comma = '\0';
        char *name = trim(tok), section[96];
        if (!syntax_name_ok(name))
            return bad_value(ld->e, en, "a comma-separated list of step "
                             "names (" SYNTAX_NAME_RULE " each), each the name "
                             "of a [step.NAME] section");
        for (uint32_t i = 0; i < p->n_steps; i++)
            if (strcmp(p->steps[i].name, name) == 0) {
                char want[SIM_NAME_MAX + 80];
                snprintf(want, sizeof want, "each step once, but '%s' is "
                         "listed twice", name);
                return bad_value(ld->e, en, want);
            }
        snprintf(section, sizeof section, "step.%s", name);
        if (section_line(ld, section) == 0) {
            char want[sizeof section + 80];
            snprintf(want, sizeof want, "the names of [step.NAME] "
                     "sections, but there is no [%s] section", section);
            return bad_value(ld->e, en, want);
        }
        if (p->n_steps == SIM_MAX_STEPS) {
            char want[80];
            snprintf(want, sizeof want, "at most %d steps", SIM_MAX_STEPS);
            return bad_value(ld->e, en, want);
        }
        /* The name alone for now: load_step fills the step. */
        snprintf(p->steps[p->n_steps++].name, SIM_NAME_MAX, "%s", name);
    }
    return 0;
}

static bool listed_step(const pipeline_cfg *p, const char *name)
{
    for (uint32_t i = 0; i < p->n_steps; i++)
        if (strcmp(p->steps[i].name, name) == 0)
            return true;
    return false;
}

/* A [step.NAME] (a section, or keys --set gave it) that the pipeline
 * does not run: there is no [pipeline], or its steps leave it out. */
static int check_unlisted_steps(loader *ld, const entry *steps)
{
    const pipeline_cfg *p = &ld->sc->cfg.pipeline;
    for (int i = 0; i < ld->n_sections + ld->n; i++) {
        const char *section = i < ld->n_sections
                                  ? ld->sections[i].name
                                  : ld->entries[i - ld->n_sections].section;
        if (strncmp(section, "step.", 5) != 0 ||
            (steps && listed_step(p, section + 5)))
            continue;
        char where[1200];
        section_where(ld, section, first_entry(ld, section), where,
                      sizeof where);
        if (steps == NULL)
            return err_set(ld->e, "%s: [%s] is a step of a pipeline, but "
                           "the scenario has no [pipeline]; expected a "
                           "[pipeline] section with steps = %s (the steps "
                           "in the order a job runs them)",
                           where, section, section + 5);
        return err_set(ld->e, "%s: [%s] is not run: [pipeline] steps (%s) "
                       "does not list it; expected every [step.NAME] to be "
                       "one of the steps, got steps = '%.300s'",
                       where, section, steps->origin, steps->value);
    }
    return 0;
}

/* What a pipeline does not run with yet: a service chain, and the
 * hot-record model (a step's answers are decided by the queue model's
 * server, pipeline.h). */
static int check_pipeline_server(loader *ld, const entry *steps)
{
    const sim_config *c = &ld->sc->cfg;
    char msg[1400];
    if (c->n_tiers >= 2) {
        const entry *down = find_entry(ld, "server", "downstream");
        snprintf(msg, sizeof msg, "no downstream with a pipeline "
                 "([pipeline] steps, %s): a pipeline together with a "
                 "service chain is not supported yet", steps->origin);
        return down ? bad_value(ld->e, down, msg) : bad(ld->e, steps, msg);
    }
    const entry *model = find_entry(ld, "server", "model");
    if (c->server.model == MODEL_HOT_RECORD) {
        snprintf(msg, sizeof msg, "queue with a pipeline ([pipeline] "
                 "steps, %s): a step's answers come from the queue model; "
                 "a pipeline on the hot record is not supported yet",
                 steps->origin);
        return model ? bad_value(ld->e, model, msg) : bad(ld->e, steps, msg);
    }
    return 0;
}

/* A crash strikes a pipeline's job runners: without a pipeline it would
 * do nothing, silently. */
static int check_crashes(loader *ld)
{
    const sim_config *c = &ld->sc->cfg;
    if (c->pipeline.n_steps > 0)
        return 0;
    for (uint32_t i = 0; i < c->n_faults; i++) {
        if (c->faults[i].type != FAULT_CRASH)
            continue;
        char section[96];
        snprintf(section, sizeof section, "fault.%s", c->faults[i].name);
        const entry *en = find_entry(ld, section, "type");
        if (en == NULL)
            return err_set(ld->e, "%s: [%s] a crash needs a [pipeline]",
                           ld->path, section);
        return bad(ld->e, en,
                   "a crash strikes a pipeline's job runners, and this "
                   "scenario has no [pipeline]");
    }
    return 0;
}

static int load_pipeline(loader *ld)
{
    pipeline_cfg *p = &ld->sc->cfg.pipeline;
    const entry *any = first_entry(ld, "pipeline");
    bool has = any != NULL || section_line(ld, "pipeline") != 0;
    const entry *steps = find_entry(ld, "pipeline", "steps");
    if (!has)
        return check_unlisted_steps(ld, NULL);
    if (apply_table_at(ld, "pipeline", pipeline_keys, p, 0) != 0)
        return -1;
    if (steps == NULL) {
        char where[1200];
        section_where(ld, "pipeline", any, where, sizeof where);
        return err_set(ld->e, "%s: [pipeline] needs 'steps': the names of "
                       "its [step.NAME] sections, in the order a job runs "
                       "them, such as steps = extract, load", where);
    }
    if (parse_steps(ld, steps, p) != 0 ||
        check_unlisted_steps(ld, steps) != 0 ||
        check_pipeline_server(ld, steps) != 0)
        return -1;
    for (uint32_t i = 0; i < p->n_steps; i++) {
        char name[SIM_NAME_MAX];
        memcpy(name, p->steps[i].name, sizeof name);
        if (load_step(ld, name, &p->steps[i]) != 0)
            return -1;
    }
    return 0;
}

/* ---- Whole-scenario checks ---------------------------------------------- */

static void warn(scenario *sc, const char *msg)
{
    size_t used = strlen(sc->warnings);
    snprintf(sc->warnings + used, sizeof sc->warnings - used, "%s\n", msg);
}

/* [scenario] name is free text (a title, not a tier's identifier), but
 * an empty one leaves the summary, the JSON and the GUI's title naming
 * nothing; a missing one is refused by check_times, with the duration. */
static int check_scenario_name(loader *ld)
{
    const entry *name = find_entry(ld, "scenario", "name");
    if (name && name->value[0] == '\0')
        return bad_value(ld->e, name, "a name to show in outputs, such as "
                         "retry-storm");
    return 0;
}

static int check_times(loader *ld)
{
    sim_config *c = &ld->sc->cfg;
    char msg[400];
    const entry *dur = find_entry(ld, "scenario", "duration");
    const entry *name = find_entry(ld, "scenario", "name");
    if (dur == NULL || name == NULL)
        return err_set(ld->e, "%s: [scenario] needs a name and a duration "
                       "(how long to simulate), e.g. name = my-test and "
                       "duration = 300s", ld->path);
    const entry *warm = find_entry(ld, "scenario", "warmup");
    const entry *bucket = find_entry(ld, "scenario", "bucket");
    char d[32], v[32];
    units_fmt_duration(c->duration_ns, d, sizeof d);
    /* A default the user never wrote is named, with the key to set:
     * "duration: must be longer" would blame the line they did write. */
    if (c->warmup_ns >= c->duration_ns && warm)
        return bad(ld->e, warm, "must be shorter than the duration of the "
                   "run");
    if (c->warmup_ns >= c->duration_ns) {
        snprintf(msg, sizeof msg, "warmup (default %s) must be shorter "
                 "than the duration (%s); set [scenario] warmup",
                 units_fmt_duration(c->warmup_ns, v, sizeof v), d);
        return bad(ld->e, dur, msg);
    }
    if (c->bucket_ns > c->duration_ns && bucket)
        return bad(ld->e, bucket, "must not be longer than the duration of "
                   "the run");
    if (c->bucket_ns > c->duration_ns) {
        snprintf(msg, sizeof msg, "bucket (default %s) must not be longer "
                 "than the duration (%s); set [scenario] bucket",
                 units_fmt_duration(c->bucket_ns, v, sizeof v), d);
        return bad(ld->e, dur, msg);
    }
    if (c->duration_ns / c->bucket_ns > 10000000)
        return bad(ld->e, bucket ? bucket : dur, "more than 10 million "
                   "buckets in the run; make bucket longer");
    int64_t last = -1;
    for (uint32_t i = 0; i < c->n_faults; i++) {
        const fault_cfg *f = &c->faults[i];
        if (f->start_ns >= c->duration_ns) {
            snprintf(msg, sizeof msg, "fault '%s' starts after the run ends",
                     f->name);
            warn(ld->sc, msg);
        }
        if (f->start_ns < c->warmup_ns + c->bucket_ns) {
            snprintf(msg, sizeof msg, "fault '%s' starts before warm-up and "
                     "one bucket have passed: there is no baseline, so "
                     "recovery cannot be judged", f->name);
            warn(ld->sc, msg);
        }
        if (simtime_add(f->start_ns, f->duration_ns) > last)
            last = simtime_add(f->start_ns, f->duration_ns);
    }
    /* Goodput over a window of n requests has Poisson noise of about
     * 1/sqrt(n); below n = 1000 that is over 3 % and the 10 % recovery
     * band is under 3 sigma, so recovery times start to jitter. */
    double per_window = (double)c->clients.count * c->clients.rate_per_s *
                        (double)c->recovery_window_ns / 1e9;
    if (last >= 0 && c->clients.arrival == ARRIVAL_OPEN &&
        per_window < 1000) {
        snprintf(msg, sizeof msg, "recovery_window holds about %.0f requests: "
                 "goodput noise of about %.0f%% is close to the 10%% recovery "
                 "band, so recovery times will jitter; lengthen "
                 "recovery_window", per_window,
                 100.0 / sqrt(per_window > 1 ? per_window : 1));
        warn(ld->sc, msg);
    }
    if (last >= 0 &&
        simtime_add(last, c->recovery_window_ns) > c->duration_ns) {
        snprintf(msg, sizeof msg, "the run ends less than one "
                 "recovery_window after the last fault ends: recovery "
                 "cannot be judged");
        warn(ld->sc, msg);
    }
    return 0;
}

/* A call that ends in zero time costs its client nothing when call_time
 * is 0: a closed-loop client without think time, or an immediate retry of
 * an answer that takes no time, can then run requests forever at one
 * instant.  The engine stops such a run with an error; say so first. */
static void check_progress(loader *ld)
{
    const client_cfg *c = &ld->sc->cfg.clients;
    const server_cfg *sv = &ld->sc->cfg.server;
    if (c->call_time_ns > 0)
        return;
    bool zero_think = c->arrival == ARRIVAL_CLOSED && c->think.mean_ns == 0;
    bool zero_net = sv->network.mean_ns == 0;
    if (!zero_think && !zero_net)
        return;
    char msg[512];
    snprintf(msg, sizeof msg, "[clients] call_time = 0 with %s: a call that "
             "fails in zero time then costs its client nothing, and a %s "
             "can stop simulated time (the run stops with an error if it "
             "does); keep call_time above 0 (default 100us)",
             zero_think ? "closed-loop clients that do not think"
                        : "zero network delay",
             zero_think ? "client whose requests are refused locally"
                        : "retry at once of an answer that takes no time");
    warn(ld->sc, msg);
}

/* The largest arrival multiplier the load spikes reach: the product of
 * the spikes running together, at worst just after one of them starts. */
static double peak_spike(const sim_config *c)
{
    double peak = 1.0;
    for (uint32_t i = 0; i < c->n_faults; i++) {
        int64_t t = c->faults[i].start_ns;
        if (c->faults[i].type != FAULT_LOAD_SPIKE || t >= c->duration_ns)
            continue;
        double k = 1.0;
        for (uint32_t j = 0; j < c->n_faults; j++) {
            const fault_cfg *f = &c->faults[j];
            if (f->type == FAULT_LOAD_SPIKE && f->start_ns <= t &&
                t < simtime_add(f->start_ns, f->duration_ns))
                k *= f->multiplier;
        }
        if (k > peak)
            peak = k;
    }
    return peak;
}

/* The smallest mean gap between one client's arrivals, in ns, that the
 * engine's 1 ns resolution represents faithfully.  Gaps are exponential
 * with mean m ns, rounded to whole ns; the mean of the rounded gap is
 *     sum_{k>=1} P(X >= k - 1/2) = 1 / (2 sinh(1 / 2m)) ~ m (1 - 1/(24 m^2)),
 * so rounding slows the rate by 1/(24 m^2): 4 % at m = 1 ns, 0.04 % at
 * 10 ns, 4e-6 at 100 ns.  At 100 ns (10 million requests/s per client) the
 * error is below the Poisson noise of any run the engine can do (1e-5 at
 * 10^10 requests); at 1e10/s (0.1 ns) 99 % of gaps are 0 and events pile
 * up at one instant until memory runs out. */
#define MIN_MEAN_GAP_NS 100.0

static int check_rate(loader *ld)
{
    const sim_config *c = &ld->sc->cfg;
    if (c->clients.arrival != ARRIVAL_OPEN)
        return 0;
    double spike = peak_spike(c);
    double gap_ns = 1e9 / (c->clients.rate_per_s * spike);
    if (gap_ns >= MIN_MEAN_GAP_NS)
        return 0;
    const entry *rate = find_entry(ld, "clients", "rate");
    char times[64] = "", msg[600];
    if (spike > 1.0)
        snprintf(times, sizeof times, ", x %g during load spikes,", spike);
    snprintf(msg, sizeof msg, "%g/s per client%s is too fast for the "
             "engine's time resolution of 1 ns: the mean gap between a "
             "client's requests would be %.3g ns, and gaps are rounded to "
             "whole ns; at most %g/s per client (a mean gap of %g ns) is "
             "allowed; spread the load over more clients",
             c->clients.rate_per_s, times, gap_ns, 1e9 / MIN_MEAN_GAP_NS,
             MIN_MEAN_GAP_NS);
    if (rate)
        return bad(ld->e, rate, msg);
    return err_set(ld->e, "%s: [clients] rate: %s", ld->path, msg);
}

int scenario_load(const char *path, const char *const *sets, int n_sets,
                  scenario *out, sb_err *e)
{
    memset(out, 0, sizeof *out);
    config_defaults(&out->cfg);
    snprintf(out->path, sizeof out->path, "%s", path);
    snprintf(out->policy, sizeof out->policy, "none");
    snprintf(out->policy_origin, sizeof out->policy_origin, "default");
    loader ld;
    memset(&ld, 0, sizeof ld);
    ld.path = path;
    ld.e = e;
    ld.sc = out;
    ld.entries = calloc(MAX_ENTRIES, sizeof *ld.entries);
    if (ld.entries == NULL)
        return err_set(e, "out of memory");
    int rc = -1;
    if (read_file(&ld) != 0)
        goto done;
    const entry *file_name = find_entry(&ld, "policy", "name");
    /* A name too long for this is refused by load_policy below. */
    if (snprintf(out->file_policy, sizeof out->file_policy, "%s",
                 file_name ? file_name->value : "none") >=
        (int)sizeof out->file_policy)
        out->file_policy[0] = '\0';
    for (int i = 0; i < n_sets; i++)
        if (apply_set(&ld, sets[i]) != 0)
            goto done;
    if (apply_table(&ld, "scenario", scenario_keys) != 0 ||
        check_scenario_name(&ld) != 0 ||
        apply_table(&ld, "clients", client_keys) != 0 ||
        apply_table(&ld, "server", server_keys) != 0 ||
        check_clients(&ld) != 0 || check_server(&ld) != 0 ||
        load_tiers(&ld) != 0 || load_faults(&ld) != 0 || load_policy(&ld) != 0 ||
        load_expect(&ld) != 0 || load_pipeline(&ld) != 0 ||
        check_crashes(&ld) != 0 ||
        check_times(&ld) != 0 ||
        check_rate(&ld) != 0)
        goto done;
    check_progress(&ld);
    rc = 0;
done:
    free(ld.entries);
    return rc;
}
