#include "config.h"

#include <stdio.h>
#include <string.h>

void config_defaults(sim_config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "unnamed");
    c->seed = 1;
    c->duration_ns = 120 * NS_PER_S;
    c->warmup_ns = 10 * NS_PER_S;
    c->bucket_ns = NS_PER_S;
    c->recovery_window_ns = 10 * NS_PER_S;

    client_cfg *k = &c->clients;
    k->count = 100;
    k->processes = 0;
    k->connections = SIM_UNLIMITED;
    k->call_time_ns = 100 * NS_PER_US;
    k->arrival = ARRIVAL_OPEN;
    k->rate_per_s = 1.0;
    k->trace_scale = 1.0;
    k->think = (dist){.kind = DIST_EXP, .mean_ns = NS_PER_S};
    k->mix[0] = 1.0;
    k->timeout_ns = NS_PER_S;
    k->deadline_ns = 0;

    config_server_defaults(&c->server);

    pipeline_cfg *p = &c->pipeline;
    p->strategy = PIPELINE_FAIL_FAST;
    p->warn_retry = 3;
    p->dead_letter_growth = 3;
}

void config_step_defaults(step_cfg *st)
{
    memset(st, 0, sizeof *st);
    st->undo_service = (dist){.kind = DIST_CONST, .mean_ns = 0};
}

static const char *const strategy_names[] = {"fail_fast", "continue",
                                             "compensate", "partial"};

const char *pipeline_strategy_name(pipeline_strategy p)
{
    return (unsigned)p < 4 ? strategy_names[p] : "?";
}

int pipeline_strategy_parse(const char *s, pipeline_strategy *p)
{
    for (unsigned i = 0; i < 4; i++)
        if (strcmp(s, strategy_names[i]) == 0) {
            *p = (pipeline_strategy)i;
            return 0;
        }
    return -1;
}

void config_server_defaults(server_cfg *s)
{
    memset(s, 0, sizeof *s);
    s->workers = 16;
    s->queue_limit = SIM_UNLIMITED;
    s->overflow = OVERFLOW_REJECT;
    s->service = (dist){.kind = DIST_EXP, .mean_ns = 10 * NS_PER_MS};
    s->read_service = s->service; /* the loader copies `service` here */
    s->degradation = 0.0;
    s->degradation_knee = SIM_UNLIMITED;
    s->network = (dist){.kind = DIST_CONST, .mean_ns = 0};
    s->rate_limit_burst = 1;
    s->idempotency = true;
}

static const char *const fault_names[FAULT_TYPE_COUNT] = {
    [FAULT_CAPACITY] = "capacity",
    [FAULT_LOAD_SPIKE] = "load_spike",
    [FAULT_OUTAGE] = "outage",
    [FAULT_LATENCY] = "latency",
    [FAULT_SLOWDOWN] = "slowdown",
    [FAULT_ERRORS] = "errors",
    [FAULT_LOST_ACK] = "lost_ack",
    [FAULT_PARTITION] = "partition",
    [FAULT_RATE_LIMIT] = "rate_limit",
    [FAULT_CLIENT_TIMEOUT] = "client_timeout",
    [FAULT_CRASH] = "crash",
};

const char *fault_type_name(fault_type t)
{
    return (unsigned)t < FAULT_TYPE_COUNT ? fault_names[t] : "?";
}

const char *fault_type_list(char *buf, size_t len)
{
    size_t used = 0;
    if (len == 0)
        return buf;
    buf[0] = '\0';
    for (int i = 0; i < FAULT_TYPE_COUNT && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                                 fault_names[i]);
    return buf;
}

int fault_type_parse(const char *s, fault_type *t)
{
    for (int i = 0; i < FAULT_TYPE_COUNT; i++) {
        if (strcmp(s, fault_names[i]) == 0) {
            *t = (fault_type)i;
            return 0;
        }
    }
    return -1;
}
