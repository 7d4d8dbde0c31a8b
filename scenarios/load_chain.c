/*
 * load_chain.c -- service chains (load_chain.h).
 *
 * [server] is the top tier (named by its `name`, default "top"); its
 * `downstream` names a [server.NAME], whose own `downstream` may name
 * another, and so on: one chain.
 */
#include "load_chain.h"

#include <stdio.h>
#include <string.h>

#include "load_basic.h"
#include "syntax.h"

static const char *top_tier_name(const load *ld)
{
    const entry *n = load_find(ld, "server", "name");
    return n ? n->value : keys_find(KS_SERVER, "name", 0)->def;
}

/* The chain so far, "top -> api -> db", for messages. */
static void chain_words(const sim_config *c, uint32_t n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 i ? " -> " : "", c->tiers[i].name);
}

/* The tier a fault strikes, by name. */
int key_fault_target(load *ld, const key_row *k, entry *en,
                     const keys_target *t)
{
    (void)k;
    fault_cfg *f = t->base;
    const sim_config *c = &ld->sc->cfg;
    if (c->n_tiers == 0) {
        if (strcmp(en->value, top_tier_name(ld)) == 0) {
            f->tier = 0;
            return 0;
        }
        char want[200];
        if (snprintf(want, sizeof want,
                     "the name of a tier; this scenario "
                     "has one server, '%s'",
                     top_tier_name(ld)) >= (int)sizeof want)
            return load_bad(ld->e, en, "names a tier with too long a name");
        return load_bad_value(ld->e, en, want);
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
    return load_bad_value(ld->e, en, want);
}

/* A tier below the top: [server.NAME] with [server]'s keys (but name). */
static int load_tier_server(load *ld, const char *section, tier_cfg *t)
{
    config_server_defaults(&t->server);
    const entry *nm = load_find(ld, section, "name");
    if (nm)
        return load_bad(ld->e, nm,
                        "a tier's name is the one in its section "
                        "header; only the top [server] takes a name");
    if (load_server(ld, section, &t->server) != 0)
        return -1;
    /* The two-round-trip update is answered by the engine's client side
     * (server.h), which a tier's calls do not have yet. */
    const entry *m = load_find(ld, section, "model");
    if (m && t->server.model != MODEL_QUEUE)
        return load_bad(ld->e, m,
                        "a tier below the top must use model = "
                        "queue (the hot-record model is for [server] only, "
                        "yet)");
    return load_check_server(ld, section, &t->server);
}

/* Tier i calls down: it needs workers to make its calls, and a plain
 * queue model (the hot record's two round trips are not chained). */
static int check_caller(load *ld, const char *section, const server_cfg *sv)
{
    const entry *w = load_find(ld, section, "workers");
    const entry *m = load_find(ld, section, "model");
    const entry *down = load_find(ld, section, "downstream");
    if (sv->workers == SIM_UNLIMITED)
        return load_bad(ld->e, w ? w : down,
                        "a tier that calls a "
                        "downstream needs a finite number of workers: they "
                        "make its calls and are held while a call is in "
                        "progress");
    if (sv->model != MODEL_QUEUE)
        return load_bad(ld->e, m ? m : down,
                        "a tier that calls a "
                        "downstream must use model = queue");
    return 0;
}

int key_tier_policy_name(load *ld, const key_row *k, entry *en,
                         const keys_target *t)
{
    tier_cfg *tier = t->base;
    if (key_text(ld, k, en, t) != 0)
        return -1;
    if (en->origin[0] &&
        snprintf(tier->policy_origin, sizeof tier->policy_origin,
                 "%s: [%s] name", en->origin,
                 t->name) >= (int)sizeof tier->policy_origin)
        return load_bad(ld->e, en, "has a file path too long to report");
    return 0;
}

int key_tier_processes(load *ld, const key_row *k, entry *en,
                       const keys_target *t)
{
    tier_cfg *tier = t->base;
    uint32_t workers = *(const uint32_t *)t->ctx;
    if (key_count(ld, k, en, t) != 0)
        return -1;
    if (tier->processes <= workers)
        return 0;
    char msg[200];
    snprintf(msg, sizeof msg,
             "expected at most the tier's workers (%u) "
             "processes, got %u: a process holds at least one worker",
             workers, tier->processes);
    return load_bad(ld->e, en, msg);
}

/* What [policy.NAME] has no row for: a parameter of the tier's stack.
 * When --set chose another stack than the file's, the file's parameters
 * (written for its own stack) are left out and only --set's apply, as
 * for the clients' [policy]. */
static int tier_setting(load *ld, entry *en, const keys_target *t)
{
    tier_cfg *tier = t->base;
    const entry *stack = load_find(ld, t->name, "name");
    if (stack && load_from_set(stack) && !load_from_set(en))
        return 0;
    if (tier->n_settings == SIM_TIER_SETTINGS)
        return load_bad(ld->e, en, "too many policy parameters for a tier");
    return load_keep_setting(ld, en, t->name,
                             &tier->settings[tier->n_settings++]);
}

/* [policy.NAME] of tier t, the calls it makes. */
static int load_tier_policy(load *ld, tier_cfg *tier, uint32_t workers)
{
    char section[LOAD_SECTION_MAX];
    if (snprintf(section, sizeof section, "policy.%s", tier->name) >=
        (int)sizeof section)
        return err_set(ld->e, "%s: tier name '%s' is too long", ld->path,
                       tier->name);
    snprintf(tier->policy_origin, sizeof tier->policy_origin, "[%s] (default)",
             section);
    keys_target t = {.section = KS_TIER_POLICY,
                     .name = section,
                     .base = tier,
                     .other = tier_setting,
                     .ctx = &workers};
    return keys_defaults(ld, &t) != 0 || keys_apply(ld, &t) != 0 ? -1 : 0;
}

/* Follow the downstreams from the top: each must name a [server.NAME]
 * not already in the chain. */
/* What is wrong with link, a downstream naming tier n: not a name, a
 * cycle, no such section, one tier too many. */
static int bad_link(load *ld, const entry *link, load_name_problem why,
                    uint32_t n)
{
    const sim_config *c = &ld->sc->cfg;
    const char *name = link->value;
    char chain[SIM_MAX_TIERS * (SIM_NAME_MAX + 4)];
    char msg[sizeof chain + 2 * SIM_NAME_MAX + 100];
    chain_words(c, n, chain, sizeof chain);
    switch (why) {
    case LOAD_NAME_INVALID:
        return load_bad_value(ld->e, link,
                              "the name of a [server.NAME] "
                              "section (" SYNTAX_NAME_RULE ")");
    case LOAD_NAME_TWICE:
        /* name passed the name check: at most SIM_NAME_MAX - 1 long */
        snprintf(msg, sizeof msg,
                 "'%.*s' makes a cycle: %s -> %.*s; a "
                 "chain ends at a tier without a downstream",
                 SIM_NAME_MAX, name, chain, SIM_NAME_MAX, name);
        return load_bad(ld->e, link, msg);
    case LOAD_NAME_NO_SECTION:
        snprintf(msg, sizeof msg,
                 "the name of a tier, but there is no "
                 "[server.%.*s] section",
                 SIM_NAME_MAX, name);
        return load_bad_value(ld->e, link, msg);
    default:
        snprintf(msg, sizeof msg, "a chain has at most %d tiers: %s -> %.*s",
                 SIM_MAX_TIERS, chain, SIM_NAME_MAX, name);
        return load_bad(ld->e, link, msg);
    }
}

/* Follow the downstreams from the top: each must name a [server.NAME]
 * not already in the chain. */
static int follow_chain(load *ld)
{
    sim_config *c = &ld->sc->cfg;
    const entry *link = load_find(ld, "server", "downstream");
    const char *names[SIM_MAX_TIERS] = {c->tiers[0].name};
    uint32_t n = 1;
    while (link) {
        load_name_problem why = load_check_name(ld, "server.", link->value,
                                                names, (int)n, SIM_MAX_TIERS);
        if (why != LOAD_NAME_OK)
            return bad_link(ld, link, why, n);
        char section[LOAD_SECTION_MAX];
        snprintf(section, sizeof section, "server.%.*s", SIM_NAME_MAX,
                 link->value);
        tier_cfg *t = &c->tiers[n];
        /* A name fits (syntax.h bounds it); zeroed, the field is copied
         * whole. */
        memset(t->name, 0, sizeof t->name);
        snprintf(t->name, sizeof t->name, "%.*s", SIM_NAME_MAX - 1,
                 link->value);
        names[n++] = t->name;
        if (load_tier_server(ld, section, t) != 0)
            return -1;
        link = load_find(ld, section, "downstream");
    }
    c->n_tiers = n;
    return 0;
}

/* Sections the chain does not use: a [server.NAME] it does not reach, a
 * [policy.NAME] or an [expect.NAME] of no tier, a [policy.NAME] of the
 * tier at the bottom (it makes no calls); and keys --set gave to such
 * sections the file does not have. */
static int check_unused_tiers(load *ld)
{
    const sim_config *c = &ld->sc->cfg;
    const char *names[SIM_MAX_TIERS];
    for (uint32_t i = 0; i < c->n_tiers; i++)
        names[i] = c->tiers[i].name;
    char where[1200];
    const char *s;
    if ((s = load_unlisted(ld, "server.", names, (int)c->n_tiers, where,
                           sizeof where)) != NULL)
        return err_set(ld->e,
                       "%s: [%s] is not part of the service chain: no "
                       "tier reached from [server] has downstream = %s",
                       where, s, s + 7);
    /* A policy is for the tiers that call down: all but the last. */
    s = load_unlisted(ld, "policy.", names, (int)c->n_tiers - 1, where,
                      sizeof where);
    if (s && strcmp(s + 7, names[c->n_tiers - 1]) == 0)
        return err_set(ld->e,
                       "%s: [%s]: tier '%s' has no downstream, so it "
                       "makes no calls for a policy to drive",
                       where, s, s + 7);
    if (s)
        return err_set(ld->e,
                       "%s: [%s] is the policy of tier '%s''s calls, "
                       "but there is no such tier; expected [policy.NAME] "
                       "for a tier [server.NAME] (or the top's [server] "
                       "name) that has a downstream",
                       where, s, s + 7);
    if ((s = load_unlisted(ld, "expect.", names, (int)c->n_tiers, where,
                           sizeof where)) != NULL)
        return err_set(ld->e,
                       "%s: [%s] holds assertions about tier '%s', "
                       "but there is no such tier in the service chain",
                       where, s, s + 7);
    return 0;
}

/* [expect.NAME]: assertions about tier NAME over the run. */
static int load_tier_expect(load *ld, tier_cfg *tier)
{
    char section[LOAD_SECTION_MAX];
    snprintf(section, sizeof section, "expect.%s", tier->name);
    keys_target t = {.section = KS_TIER_EXPECT, .name = section, .base = tier};
    return keys_apply(ld, &t);
}

int load_chain(load *ld)
{
    sim_config *c = &ld->sc->cfg;
    const entry *nm = load_find(ld, "server", "name");
    if (nm && !syntax_name_ok(nm->value))
        return load_bad_value(ld->e, nm, "a tier name (" SYNTAX_NAME_RULE ")");
    /* A valid name fits: syntax_name_ok bounds its length. */
    snprintf(c->tiers[0].name, sizeof c->tiers[0].name, "%s",
             top_tier_name(ld));
    if (follow_chain(ld) != 0 || check_unused_tiers(ld) != 0)
        return -1;
    if (c->n_tiers < 2) {
        c->n_tiers = 0; /* a single server: no chain, and no name kept */
        memset(&c->tiers[0], 0, sizeof c->tiers[0]);
        for (int i = 0; i < ld->n; i++)
            if (strncmp(ld->entries[i].section, "expect.", 7) == 0)
                return load_bad(ld->e, &ld->entries[i],
                                "[expect.NAME] holds "
                                "assertions about a tier of a service chain, "
                                "and this scenario has one server: use "
                                "[expect]");
        return 0;
    }
    for (uint32_t i = 0; i < c->n_tiers; i++)
        if (load_tier_expect(ld, &c->tiers[i]) != 0)
            return -1;
    for (uint32_t i = 0; i + 1 < c->n_tiers; i++) {
        char section[LOAD_SECTION_MAX] = "server";
        if (i > 0)
            snprintf(section, sizeof section, "server.%s", c->tiers[i].name);
        const server_cfg *sv = i ? &c->tiers[i].server : &c->server;
        if (check_caller(ld, section, sv) != 0 ||
            load_tier_policy(ld, &c->tiers[i], sv->workers) != 0)
            return -1;
    }
    return 0;
}
