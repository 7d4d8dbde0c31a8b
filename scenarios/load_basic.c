/*
 * load_basic.c -- [scenario], [clients] and [server] (load_basic.h).
 */
#include "load_basic.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "keys.h"
#include "timeline.h"

/* [scenario] name is free text (a title, not a tier's identifier), but
 * an empty one leaves the summary, the JSON and the GUI's title naming
 * nothing; a missing one is refused by loader.c, with the duration. */
static int check_scenario_name(load *ld)
{
    const entry *name = load_find(ld, "scenario", "name");
    if (name && name->value[0] == '\0')
        return load_bad_value(ld->e, name,
                              "a name to show in outputs, such "
                              "as retry-storm");
    return 0;
}

/* read + put + post = 1 (the ones not written count 0 once one is). */
static int check_mix(load *ld)
{
    client_cfg *c = &ld->sc->cfg.clients;
    const entry *mix[3] = {load_find(ld, "clients", "read"),
                           load_find(ld, "clients", "put"),
                           load_find(ld, "clients", "post")};
    const entry *last = NULL;
    for (int i = 0; i < 3; i++)
        if (mix[i])
            last = mix[i];
    if (last == NULL)
        return 0;
    for (int i = 0; i < 3; i++)
        if (!mix[i])
            c->mix[i] = 0.0;
    double sum = c->mix[0] + c->mix[1] + c->mix[2];
    if (fabs(sum - 1.0) <= 1e-9)
        return 0;
    char msg[256];
    snprintf(msg, sizeof msg,
             "read + put + post must add up to 1, got %g (read %g, put %g, "
             "post %g)",
             sum, c->mix[0], c->mix[1], c->mix[2]);
    return load_bad(ld->e, last, msg);
}

static int check_clients(load *ld)
{
    client_cfg *c = &ld->sc->cfg.clients;
    if (check_mix(ld) != 0)
        return -1;
    const entry *procs = load_find(ld, "clients", "processes");
    if (procs && c->processes > c->count) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "expected at most [clients] count (%u) "
                 "processes, got %u: a process holds at least one client",
                 c->count, c->processes);
        return load_bad(ld->e, procs, msg);
    }
    const entry *rate = load_find(ld, "clients", "rate");
    const entry *think = load_find(ld, "clients", "think");
    const entry *window = load_find(ld, "clients", "start_window");
    if (c->arrival != ARRIVAL_OPEN && rate)
        return load_bad(ld->e, rate,
                        "only open-loop clients (arrival = "
                        "open) have a rate");
    if (c->arrival != ARRIVAL_CLOSED && think)
        return load_bad(ld->e, think,
                        "only closed-loop clients (arrival = "
                        "closed) have a think time");
    if (c->arrival != ARRIVAL_ONCE && window)
        return load_bad(ld->e, window,
                        "only clients that send one request "
                        "each (arrival = once) have a start window");
    const entry *scale = load_find(ld, "clients", "trace_scale");
    if (c->arrival != ARRIVAL_TRACE && scale)
        return load_bad(ld->e, scale,
                        "only clients that replay a trace "
                        "(arrival = trace(FILE)) have a trace_scale");
    /* A profile's rate_per_s is its peak (key_rate_profile), per client:
     * what the engine's time resolution is checked against. */
    if (c->profile && profile_total(c->profile))
        c->rate_per_s = profile_peak(c->profile) / c->count;
    return 0;
}

/* A rate limiter answers a refused attempt with a Retry-After of up to
 * 1/rate seconds; below one request per end of time (5e-10/s) that wait
 * is past the end of simulated time.  Such a limit admits nothing after
 * its burst in any run, which an outage says plainly. */
int load_check_limit_rate(load *ld, const entry *en, double rate)
{
    double min = 1e9 / (double)SIMTIME_END;
    if (en == NULL || rate <= 0 || rate >= min)
        return 0;
    char msg[300];
    snprintf(msg, sizeof msg,
             "%g/s is below %g/s, one request per %llds "
             "(the end of simulated time): the Retry-After of a refused "
             "attempt would be longer than any run; to refuse everything, "
             "use an outage fault",
             rate, min, (long long)(SIMTIME_END / NS_PER_S));
    return load_bad(ld->e, en, msg);
}

/* The consistency of a server's keys: [server] or a tier's
 * [server.NAME]. */
int load_check_server(load *ld, const char *section, server_cfg *s)
{
    if (load_check_limit_rate(ld, load_find(ld, section, "rate_limit"),
                              s->rate_limit_per_s) != 0)
        return -1;
    const entry *deg = load_find(ld, section, "degradation");
    const entry *knee = load_find(ld, section, "degradation_knee");
    if (deg && s->degradation > 0 && !knee)
        return load_bad(ld->e, deg,
                        "needs degradation_knee too: the number "
                        "of attempts in service beyond which service slows "
                        "down");
    const entry *rl = load_find(ld, section, "rate_limit_burst");
    if (rl && s->rate_limit_per_s <= 0)
        return load_bad(ld->e, rl, "has no effect without rate_limit");
    const entry *ra = load_find(ld, section, "retry_after");
    if (ra && s->overflow == OVERFLOW_DROP)
        return load_bad(ld->e, ra,
                        "has no effect with overflow = drop "
                        "(nothing is answered)");
    const entry *occ = load_find(ld, section, "occ");
    if (occ && s->model != MODEL_HOT_RECORD)
        return load_bad(ld->e, occ,
                        "has no effect unless model = "
                        "hot_record");
    const entry *rs = load_find(ld, section, "read_service");
    if (rs && s->occ != OCC_TWO_ROUND_TRIPS)
        return load_bad(ld->e, rs,
                        "has no effect unless occ = "
                        "two_round_trips");
    if (rs == NULL)
        s->read_service = s->service;
    return 0;
}

/* [section]'s keys into base, defaults first. */
static int read_section(load *ld, key_section s, const char *section,
                        void *base)
{
    keys_target t = {.section = s, .name = section, .base = base};
    return keys_defaults(ld, &t) != 0 || keys_apply(ld, &t) != 0 ? -1 : 0;
}

int load_server(load *ld, const char *section, server_cfg *s)
{
    return read_section(ld, KS_SERVER, section, s);
}

int load_basic(load *ld)
{
    sim_config *c = &ld->sc->cfg;
    if (read_section(ld, KS_SCENARIO, "scenario", c) != 0 ||
        check_scenario_name(ld) != 0 ||
        read_section(ld, KS_CLIENTS, "clients", &c->clients) != 0 ||
        read_section(ld, KS_SERVER, "server", &c->server) != 0 ||
        check_clients(ld) != 0 ||
        load_check_server(ld, "server", &c->server) != 0)
        return -1;
    return 0;
}
