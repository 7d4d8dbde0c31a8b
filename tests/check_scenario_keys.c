/*
 * check_scenario_keys.c -- the key table (scenarios/keys.h) says the
 * same as the engine and the README: each default a row declares reads
 * with the row's own parse function, gives the value config_defaults()
 * gives (the engine's, for configs built in process), and is the default
 * README.md documents; every key is documented.  A key added to the
 * table and not to one of these fails here, by name.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "testutil.h"

/* Read row k's default into base through the row's parse function, as
 * the loader does; fails the test if it does not read. */
static void read_default(const key_row *k, key_section s, void *base,
                         unsigned fault_bit)
{
    static entry def;
    static scenario sc;
    sb_err e;
    load ld = {.path = "(default)", .e = &e, .sc = &sc};
    keys_target t = {
        .section = s, .name = "section", .base = base, .fault_bit = fault_bit};
    memset(&def, 0, sizeof def);
    snprintf(def.value, sizeof def.value, "%s", k->def);
    ck_assert_msg(k->parse(&ld, k, &def, &t) == 0, "%s: default '%s': %s",
                  k->name, k->def, e.msg);
}

/* For each row of s with a default: the engine's struct (base, as
 * fresh() makes it) read again with the row's default must not change
 * -- the default is the engine's, byte for byte. */
static void same_as_engine(key_section s, void (*fresh)(void *), size_t size)
{
    size_t n;
    const key_row *k = keys_of(s, &n);
    char *a = calloc(1, size), *b = calloc(1, size);
    int checked = 0;
    for (size_t i = 0; i < n; i++) {
        if (k[i].def == NULL || k[i].size == 0)
            continue;
        fresh(a);
        fresh(b);
        read_default(&k[i], s, b, ~0u);
        ck_assert_msg(memcmp(a + k[i].off, b + k[i].off, k[i].size) == 0,
                      "%s: the default '%s' is not config_defaults()'s",
                      k[i].name, k[i].def);
        checked++;
    }
    ck_assert_int_gt(checked, 0);
    free(a);
    free(b);
}

static void fresh_config(void *p)
{
    config_defaults(p);
}

static void fresh_clients(void *p)
{
    sim_config c;
    config_defaults(&c);
    memcpy(p, &c.clients, sizeof c.clients);
}

static void fresh_server(void *p)
{
    config_server_defaults(p);
}

static void fresh_pipeline(void *p)
{
    sim_config c;
    config_defaults(&c);
    memcpy(p, &c.pipeline, sizeof c.pipeline);
}

static void fresh_step(void *p)
{
    config_step_defaults(p);
}

START_TEST(defaults_are_the_engines)
{
    same_as_engine(KS_SCENARIO, fresh_config, sizeof(sim_config));
    same_as_engine(KS_CLIENTS, fresh_clients, sizeof(client_cfg));
    same_as_engine(KS_SERVER, fresh_server, sizeof(server_cfg));
    same_as_engine(KS_PIPELINE, fresh_pipeline, sizeof(pipeline_cfg));
    same_as_engine(KS_STEP, fresh_step, sizeof(step_cfg));
}
END_TEST

/* The defaults only the loader has (a tier's policy, a fault's): each
 * reads, into the field it names.  1 s is a tier call's timeout, "none"
 * its stack; a rate limit fault's burst is 1; an outage refuses and a
 * partition, by default, black-holes (README.md, [fault.NAME]). */
START_TEST(loader_defaults_read)
{
    static tier_cfg t;
    memset(&t, 0, sizeof t);
    const key_row *k = keys_find(KS_TIER_POLICY, "timeout", 0);
    read_default(k, KS_TIER_POLICY, &t, 0);
    ck_assert_int_eq(t.timeout_ns, NS_PER_S);
    read_default(keys_find(KS_TIER_POLICY, "name", 0), KS_TIER_POLICY, &t, 0);
    ck_assert_str_eq(t.policy, "none");
    fault_cfg f;
    memset(&f, 0, sizeof f);
    f.type = FAULT_RATE_LIMIT;
    read_default(keys_find(KS_FAULT, "burst", 1u << FAULT_RATE_LIMIT), KS_FAULT,
                 &f, 1u << FAULT_RATE_LIMIT);
    ck_assert_uint_eq(f.burst, 1);
    f.mode = CUT_BLACKHOLE;
    read_default(keys_find(KS_FAULT, "mode", 1u << FAULT_OUTAGE), KS_FAULT, &f,
                 1u << FAULT_OUTAGE);
    ck_assert_int_eq(f.mode, CUT_REFUSE);
    read_default(keys_find(KS_FAULT, "mode", 1u << FAULT_PARTITION), KS_FAULT,
                 &f, 1u << FAULT_PARTITION);
    ck_assert_int_eq(f.mode, CUT_BLACKHOLE);
}
END_TEST

/* ---- README.md ---------------------------------------------------------- */

static char *readme;

/* The text of README.md's "### `[...]`" subsection that documents s
 * (which = 0), or a second one (which = 1; NULL when s has none): the
 * top tier's name and downstream are told with the chains. */
static const char *subsection(key_section s, int which, size_t *len)
{
    static const char *const heads[][2] = {
        [KS_SCENARIO] = {"### `[scenario]`", NULL},
        [KS_CLIENTS] = {"### `[clients]`", NULL},
        [KS_SERVER] = {"### `[server]`", "### `[server.NAME]`"},
        [KS_FAULT] = {"### `[fault.NAME]`", NULL},
        [KS_POLICY] = {"### `[policy]`", NULL},
        [KS_TIER_POLICY] = {"### `[server.NAME]`", NULL},
        [KS_EXPECT] = {"### `[expect]`", NULL},
        [KS_TIER_EXPECT] = {"### `[server.NAME]`", NULL},
        [KS_PIPELINE] = {"### `[pipeline]`", NULL},
        [KS_STEP] = {"### `[pipeline]`", NULL}};
    const char *head = heads[s][which];
    if (head == NULL)
        return NULL;
    const char *at = strstr(readme, head);
    ck_assert_msg(at != NULL, "README.md has no %s", head);
    const char *end = strstr(at + 4, "\n#");
    *len = end ? (size_t)(end - at) : strlen(at);
    return at;
}

static bool mentions(const char *text, size_t len, const char *what)
{
    size_t n = strlen(what);
    for (const char *p = text; p + n <= text + len; p++)
        if (memcmp(p, what, n) == 0)
            return true;
    return false;
}

/* A table row "| `key` | DEFAULT | ...": DEFAULT without backticks. */
static bool table_default(const char *text, size_t len, const char *name,
                          char *out, size_t out_len)
{
    char head[128];
    snprintf(head, sizeof head, "\n| `%s` | ", name);
    size_t n = strlen(head);
    for (const char *p = text; p + n <= text + len; p++) {
        if (memcmp(p, head, n) != 0)
            continue;
        const char *cell = p + n, *bar = strchr(cell, '|');
        size_t o = 0;
        for (const char *c = cell; c < bar - 1 && o + 1 < out_len; c++)
            if (*c != '`')
                out[o++] = *c;
        out[o] = '\0';
        return true;
    }
    return false;
}

/* Every key a file may write is named in its section of README.md, and
 * where a table gives its default, the default is the table's. */
START_TEST(readme_documents_every_key_and_default)
{
    readme = tu_read_file(TU_SOURCE("README.md"));
    ck_assert_ptr_nonnull(readme);
    int tabled = 0;
    for (key_section s = KS_SCENARIO; s <= KS_STEP; s++) {
        size_t n, len, len2 = 0;
        const key_row *k = keys_of(s, &n);
        const char *text = subsection(s, 0, &len);
        const char *more = subsection(s, 1, &len2);
        for (size_t i = 0; i < n; i++) {
            if (k[i].parse == key_refused)
                continue;
            char quoted[128], cell[200];
            snprintf(quoted, sizeof quoted, "`%s`", k[i].name);
            ck_assert_msg(mentions(text, len, quoted) ||
                              (more && mentions(more, len2, quoted)),
                          "README.md does not name %s in the section of "
                          "its key (%.40s)",
                          quoted, text);
            if (k[i].def == NULL ||
                !table_default(text, len, k[i].name, cell, sizeof cell))
                continue;
            ck_assert_msg(strcmp(cell, k[i].def) == 0,
                          "README.md gives %s the default '%s', the key "
                          "table '%s'",
                          quoted, cell, k[i].def);
            tabled++;
        }
    }
    /* [scenario], [clients] and [server] have tables: 4 + 13 + 16 rows
     * with a single default when this was written. */
    ck_assert_int_ge(tabled, 30);
    free(readme);
}
END_TEST

Suite *scenario_keys_suite(void)
{
    Suite *s = suite_create("scenario_keys");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, defaults_are_the_engines);
    tcase_add_test(tc, loader_defaults_read);
    tcase_add_test(tc, readme_documents_every_key_and_default);
    suite_add_tcase(s, tc);
    return s;
}
