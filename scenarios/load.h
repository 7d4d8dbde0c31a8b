/*
 * load.h -- what the loader's modules share while a scenario loads: the
 * file read into entries, the scenario being filled, and the words of
 * their messages.
 *
 * scenario_load (loader.c) reads the file into entries (ini_file.h),
 * merges --set in as if it were lines, then hands the entries to each
 * section's module: load_basic.h ([scenario], [clients], [server]),
 * load_chain.h (service chains), load_faults.h, load_policy.h ([policy],
 * [expect]) and load_pipeline.h, which read them through the one key
 * table (keys.h).  An entry is `used` once a module has read it.
 *
 * Messages: "ORIGIN: [section] key: what was expected, got 'value'",
 * ORIGIN "file:line" or "--set section.key=value".  The first problem
 * found is the one reported; every function that can fail returns 0, or
 * -1 with the message in ld->e.
 */
#ifndef SB_LOAD_H
#define SB_LOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "scenario.h"

#define LOAD_MAX_ENTRIES 512
#define LOAD_MAX_SECTIONS 80
/* A section's name, "policy.NAME" the longest (syntax.h). */
#define LOAD_SECTION_MAX 96
/* A key's bytes with its NUL: what a setting (setting.h) holds. */
#define LOAD_KEY_SIZE (SCENARIO_KEY_MAX + 1)

/* One `key = value` as the file (or --set) gave it. */
typedef struct entry {
    char section[LOAD_SECTION_MAX];
    char key[LOAD_KEY_SIZE];
    char value[SCENARIO_LINE_MAX];
    char origin[1100]; /* "file:line" or "--set s.k=v" */
    bool used;
} entry;

typedef struct load {
    const char *path;
    sb_err *e;
    /* Every section header, in the file's order, with its line. */
    struct {
        char name[LOAD_SECTION_MAX];
        int line;
    } sections[LOAD_MAX_SECTIONS];
    int n_sections;
    entry *entries; /* LOAD_MAX_ENTRIES of them, n used, in file order */
    int n;
    scenario *sc;
} load;

/* The entry of [section] key, or NULL. */
entry *load_find(const load *ld, const char *section, const char *key);
/* The first entry of [section], or NULL. */
const entry *load_first(const load *ld, const char *section);
/* The line of [section]'s header; 0 when the file has none (--set made
 * it). */
int load_section_line(const load *ld, const char *section);
/* Where a section was written, for a message about the whole section:
 * "file:line" of its header, or the origin of any (one of its entries). */
void load_section_where(const load *ld, const char *section, const entry *any,
                        char *buf, size_t len);
/* The first section [PREFIX.NAME] -- a header, or keys --set gave it --
 * whose NAME is none of names[0..n), or NULL; where it was written goes
 * to where (load_section_where).  What a service chain does not reach,
 * a step the pipeline does not run. */
const char *load_unlisted(const load *ld, const char *prefix,
                          const char *const *names, int n, char *where,
                          size_t len);
/* A name in a list of sections [PREFIX.NAME] (a chain's downstreams, a
 * pipeline's steps), after the n listed[] before it: what is wrong with
 * it, in the order the lists check it.  Each list says it in its words. */
typedef enum load_name_problem {
    LOAD_NAME_OK,
    LOAD_NAME_INVALID,    /* not a name (syntax.h) */
    LOAD_NAME_TWICE,      /* one of listed[] */
    LOAD_NAME_NO_SECTION, /* no [PREFIX.NAME] header */
    LOAD_NAME_TOO_MANY    /* n is max already */
} load_name_problem;
load_name_problem load_check_name(const load *ld, const char *prefix,
                                  const char *name, const char *const *listed,
                                  int n, int max);
/* Did --set give this entry? */
bool load_from_set(const entry *en);

/* "ORIGIN: [section] key: msg" into e; returns -1. */
int load_bad(sb_err *e, const entry *en, const char *msg);
/* "ORIGIN: [section] key: expected EXPECTED, got 'value'"; returns -1. */
int load_bad_value(sb_err *e, const entry *en, const char *expected);
/* The unknown-key message: the n known names, and the closest. */
int load_unknown_key(sb_err *e, const entry *en, const char *const *names,
                     int n);

/* The path en's value names, into out: relative to the scenario's
 * folder (so the two move together), or, given by --set, to where the
 * user stands.  0, or -1 when it does not fit in len bytes. */
int load_path(load *ld, const entry *en, char *out, size_t len);

/* Keep en, from [section], as a policy parameter in *out, with where it
 * was written ("x.ini:12: [section]") for the stack's messages. */
int load_keep_setting(load *ld, const entry *en, const char *section,
                      setting *out);
/* Add a line to the scenario's warnings. */
void load_warn(scenario *sc, const char *msg);

#endif
