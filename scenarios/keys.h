/*
 * keys.h -- every key a scenario file may hold, in one table (keys.c):
 * its section, its name, how its value is read, the field it fills, its
 * limits and its default.  The loader's modules read their sections
 * through it, and what they say -- "unknown key 'x' (did you mean ...);
 * known keys: ...", "does not apply to a fault of type ...", "expected a
 * whole number from 1 to 10000000" -- comes from it.
 *
 * A row's default is written as a file would write it ("10s",
 * "exp(10ms)", "unlimited") and is read by the row's own parse function,
 * before the section's entries; NULL means none a file could write (the
 * key is required, or its absence means something: processes "one per
 * client", [server] read_service "the service's"), and the engine's
 * config.h default stands.  check_scenario_keys checks that every
 * default reads, agrees with config_defaults(), and is the one README.md
 * documents.
 *
 * Adding a key: a row in keys.c (section, name, parse function, field,
 * limits, default), a field in config.h for it, a line in the section's
 * table in README.md, and the writer's line (writer.c); see README.md,
 * "Add a scenario key".
 */
#ifndef SB_KEYS_H
#define SB_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "load.h"

/* The sections rows belong to.  [server] and every [server.NAME] share
 * KS_SERVER's rows (the top's name and downstream included: a tier's
 * module refuses a name). */
typedef enum key_section {
    KS_NONE = -1,
    KS_SCENARIO,
    KS_CLIENTS,
    KS_SERVER,
    KS_FAULT,       /* [fault.NAME] */
    KS_POLICY,      /* [policy] */
    KS_TIER_POLICY, /* [policy.NAME] */
    KS_EXPECT,      /* [expect]: no rows, every key is kept */
    KS_TIER_EXPECT, /* [expect.NAME] */
    KS_PIPELINE,
    KS_STEP /* [step.NAME] */
} key_section;

typedef struct key_row key_row;
typedef struct keys_target keys_target;

/* Read en's value into t's field for row k; 0, or -1 with the message
 * in ld->e.  A default is read the same way from an entry whose origin
 * is "" (a parse function that keeps where a value was written leaves a
 * default's origin to the section's module). */
typedef int key_parse(load *ld, const key_row *k, entry *en,
                      const keys_target *t);

struct key_row {
    key_section section;
    const char *name;
    key_parse *parse;
    size_t off;        /* the field, from the target's base */
    size_t size;       /* ... and its size; 0: no field of its own */
    double min, max;   /* a number's range; text: max is the field's size */
    const char *words; /* key_choice: "a|b"; key_refused: why */
    const char *def;   /* the default, as a file says it; NULL: none */
    unsigned faults;   /* KS_FAULT: the fault types it applies to */
    unsigned required; /* KS_FAULT: ... and the types that need it */
    size_t has;        /* offset + 1 of a bool set when given; 0: none */
    bool list;         /* a line per item: the one key given repeatedly */
};

/* A section being read: its rows, and where they go. */
struct keys_target {
    key_section section;
    const char *name;   /* as written: "server.db", "fault.outage" */
    void *base;         /* what the rows' offsets are into */
    unsigned fault_bit; /* KS_FAULT: 1 << the fault's type */
    /* A key no row has: NULL refuses it as unknown, naming the known
     * ones; else it takes it (a policy parameter, an expectation). */
    int (*other)(load *ld, entry *en, const keys_target *t);
    void *ctx; /* the module's, for other and its parse
                            functions */
};

/* The rows of section s, n of them, in the order messages list them. */
const key_row *keys_of(key_section s, size_t *n);
/* The row of s named name that applies to fault_bit (KS_FAULT; ignored
 * elsewhere), or NULL. */
const key_row *keys_find(key_section s, const char *name, unsigned fault_bit);
/* The section a header names ("fault.x": KS_FAULT), or KS_NONE. */
key_section keys_section_of(const char *section);
/* Is [section] key a list key, given once per line? */
bool keys_is_list(const char *section, const char *key);

/* The unknown-key message for en in t: the known keys, the closest.
 * Returns -1. */
int keys_unknown(load *ld, const entry *en, const keys_target *t);

/* The defaults of t's rows into t->base.  0, or -1 (a default that does
 * not read: a bug, which check_scenario_keys keeps out). */
int keys_defaults(load *ld, const keys_target *t);
/* Every entry of [t->name] not yet used, in the file's order, read by
 * its row (or t->other) and marked used.  0, or -1 with the message. */
int keys_apply(load *ld, const keys_target *t);

/* The parse functions of the value kinds rows share.  Durations: >= 0;
 * _pos > 0; _none > 0 or "none" (0); _off >= 0 or "none".  Rates: _pos
 * > 0; _none > 0 or "none".  prob: a probability; share: a share or a
 * percentage in [0, 1]; real: in [min, max]; count: a whole number in
 * [min, max]; count_unl: or "unlimited"; bool; dist: a distribution;
 * text: at most max - 1 bytes; seed: any uint64; choice: one of words
 * ("a|b"), stored as an int; later: read by the section's module, not
 * here; refused: the key exists but is refused, with words for why. */
key_parse key_duration, key_duration_pos, key_duration_none, key_duration_off,
    key_rate_pos, key_rate_none, key_prob, key_share, key_real, key_count,
    key_count_unl, key_bool, key_dist, key_text, key_seed, key_branch,
    key_choice, key_later, key_refused;
/* [clients] arrival (a choice, or trace(FILE ...)) and rate (a rate, or
 * profile(FILE[, total])): timeline.h. */
key_parse key_arrival, key_rate_profile;

#endif
