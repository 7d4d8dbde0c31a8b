/*
 * load.c -- the entries of a scenario being loaded, and the words of the
 * loader's messages (load.h).
 */
#include "load.h"

#include <stdio.h>
#include <string.h>

#include "suggest.h"
#include "syntax.h"

entry *load_find(const load *ld, const char *section, const char *key)
{
    for (int i = 0; i < ld->n; i++)
        if (strcmp(ld->entries[i].section, section) == 0 &&
            strcmp(ld->entries[i].key, key) == 0)
            return &ld->entries[i];
    return NULL;
}

const entry *load_first(const load *ld, const char *section)
{
    for (int i = 0; i < ld->n; i++)
        if (strcmp(ld->entries[i].section, section) == 0)
            return &ld->entries[i];
    return NULL;
}

int load_section_line(const load *ld, const char *section)
{
    for (int i = 0; i < ld->n_sections; i++)
        if (strcmp(ld->sections[i].name, section) == 0)
            return ld->sections[i].line;
    return 0;
}

void load_section_where(const load *ld, const char *section, const entry *any,
                        char *buf, size_t len)
{
    int line = load_section_line(ld, section);
    if (line)
        snprintf(buf, len, "%s:%d", ld->path, line);
    else
        snprintf(buf, len, "%s", any ? any->origin : ld->path);
}

bool load_from_set(const entry *en)
{
    return strncmp(en->origin, "--set", 5) == 0;
}

int load_bad(sb_err *e, const entry *en, const char *msg)
{
    return err_set(e, "%s: [%s] %s: %s", en->origin, en->section, en->key, msg);
}

int load_bad_value(sb_err *e, const entry *en, const char *expected)
{
    char msg[ERR_MSG_MAX];
    /* A value longer than a line is quoted by its start. */
    snprintf(msg, sizeof msg, "expected %s, got '%.120s%s'", expected,
             en->value, strlen(en->value) > 120 ? "..." : "");
    return load_bad(e, en, msg);
}

int load_unknown_key(sb_err *e, const entry *en, const char *const *names,
                     int n)
{
    char list[800];
    suggest_list(names, n, list, sizeof list);
    const char *best = suggest_closest(en->key, names, n);
    if (best)
        return err_set(e,
                       "%s: [%s] unknown key '%s' (did you mean '%s'?); "
                       "known keys: %s",
                       en->origin, en->section, en->key, best, list);
    return err_set(e, "%s: [%s] unknown key '%s'; known keys: %s", en->origin,
                   en->section, en->key, list);
}

int load_keep_setting(load *ld, const entry *en, const char *section,
                      setting *out)
{
    if (snprintf(out->key, sizeof out->key, "%s", en->key) >=
            (int)sizeof out->key ||
        snprintf(out->value, sizeof out->value, "%s", en->value) >=
            (int)sizeof out->value ||
        snprintf(out->origin, sizeof out->origin, "%s: [%s]", en->origin,
                 section) >= (int)sizeof out->origin)
        return load_bad(ld->e, en, "is too long");
    return 0;
}

void load_warn(scenario *sc, const char *msg)
{
    size_t used = strlen(sc->warnings);
    snprintf(sc->warnings + used, sizeof sc->warnings - used, "%s\n", msg);
}

const char *load_unlisted(const load *ld, const char *prefix,
                          const char *const *names, int n, char *where,
                          size_t len)
{
    size_t plen = strlen(prefix);
    for (int i = 0; i < ld->n_sections + ld->n; i++) {
        const char *section = i < ld->n_sections
                                  ? ld->sections[i].name
                                  : ld->entries[i - ld->n_sections].section;
        if (strncmp(section, prefix, plen) != 0)
            continue;
        bool listed = false;
        for (int k = 0; k < n && !listed; k++)
            listed = strcmp(section + plen, names[k]) == 0;
        if (listed)
            continue;
        load_section_where(ld, section, load_first(ld, section), where, len);
        return section;
    }
    return NULL;
}

int load_path(load *ld, const entry *en, char *out, size_t len)
{
    /* Relative to the scenario file, so the pair moves together; a --set
     * path is relative to where the user stands. */
    const char *slash = strrchr(ld->path, '/');
    int dir = en->value[0] == '/' || load_from_set(en) || slash == NULL
                  ? 0
                  : (int)(slash - ld->path + 1);
    if (snprintf(out, len, "%.*s%s", dir, ld->path, en->value) >= (int)len) {
        char msg[120];
        snprintf(msg, sizeof msg,
                 "is a path too long (at most %zu bytes "
                 "with the scenario's folder)",
                 len - 1);
        return load_bad(ld->e, en, msg);
    }
    return 0;
}

load_name_problem load_check_name(const load *ld, const char *prefix,
                                  const char *name, const char *const *listed,
                                  int n, int max)
{
    if (!syntax_name_ok(name))
        return LOAD_NAME_INVALID;
    for (int i = 0; i < n; i++)
        if (strcmp(listed[i], name) == 0)
            return LOAD_NAME_TWICE;
    char section[LOAD_SECTION_MAX];
    snprintf(section, sizeof section, "%s%s", prefix, name);
    if (load_section_line(ld, section) == 0)
        return LOAD_NAME_NO_SECTION;
    return n >= max ? LOAD_NAME_TOO_MANY : LOAD_NAME_OK;
}
