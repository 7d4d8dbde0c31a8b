/*
 * session.c -- a run explored by hand (session.h).
 */
#include "session.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simtime.h"

struct session {
    sim_config cfg; /* the scenario's: the sim borrows it */
    char policy[256];
    setting params[SESSION_MAX_PARAMS];
    int n_params;
    char plugins[POLICY_SETUP_MAX_PLUGINS][1024];
    int n_plugins;
    policy_setup ps;
    sim *sim;
    bool finished; /* sim_finish was called */
    series ser;
    session_action log[SESSION_MAX_ACTIONS];
    int n_log;
    int change_fault[CHANGE_KINDS]; /* the running change's fault, or -1 */
    uint64_t version;               /* bumped by every start() */
    double change_value[CHANGE_KINDS];
};

static void on_bucket(void *ctx, const sim *s, const metrics_bucket *b,
                      const metrics_hist *h)
{
    (void)s;
    (void)h;
    session *ss = ctx;
    series_add(&ss->ser, b);
}

static int build_policy(session *ss, policy_setup *out, sb_err *e)
{
    const char *plugins[POLICY_SETUP_MAX_PLUGINS];
    for (int i = 0; i < ss->n_plugins; i++)
        plugins[i] = ss->plugins[i];
    return policy_setup_build(ss->policy, plugins, ss->n_plugins, ss->params,
                              ss->n_params, out, e);
}

/* A fresh engine at t = 0 on the session's config and policy. */
static int start(session *ss, sb_err *e)
{
    sim_destroy(ss->sim);
    ss->sim = NULL;
    policy_setup_free(&ss->ps);
    ss->finished = false;
    /* Unique across sessions too: a B switched off and on again is
     * another run. */
    static uint64_t versions;
    ss->version = ++versions;
    series_clear(&ss->ser);
    for (int k = 0; k < CHANGE_KINDS; k++)
        ss->change_fault[k] = -1;
    if (build_policy(ss, &ss->ps, e) != 0)
        return -1;
    if (sim_create(&ss->cfg, ss->ps.stack, &ss->sim, e) != 0)
        return -1;
    sim_observer o = {ss, on_bucket, NULL, false};
    return sim_observe(ss->sim, &o);
}

static int set_policy_text(session *ss, const char *policy,
                           const setting *params, int n, sb_err *e)
{
    if (strlen(policy) >= sizeof ss->policy)
        return err_set(e, "policy name '%.40s...' is too long", policy);
    if (n > SESSION_MAX_PARAMS)
        return err_set(e, "at most %d policy parameters", SESSION_MAX_PARAMS);
    snprintf(ss->policy, sizeof ss->policy, "%s", policy);
    if (n > 0)
        memcpy(ss->params, params, (size_t)n * sizeof *params);
    ss->n_params = n;
    return 0;
}

int session_create(const session_opts *o, session **out, sb_err *e)
{
    *out = NULL;
    session *ss = calloc(1, sizeof *ss);
    if (ss == NULL)
        return err_set(e, "out of memory");
    ss->cfg = *o->cfg;
    series_init(&ss->ser, units_dist_mean(&o->cfg->server.service) / 1e9);
    if (o->n_plugins > POLICY_SETUP_MAX_PLUGINS) {
        err_set(e, "at most %d plug-ins", POLICY_SETUP_MAX_PLUGINS);
        goto fail;
    }
    for (int i = 0; i < o->n_plugins; i++)
        snprintf(ss->plugins[i], sizeof ss->plugins[i], "%s", o->plugins[i]);
    ss->n_plugins = o->n_plugins;
    if (set_policy_text(ss, o->policy, o->params, o->n_params, e) != 0 ||
        start(ss, e) != 0)
        goto fail;
    *out = ss;
    return 0;
fail:
    session_destroy(ss);
    return -1;
}

void session_destroy(session *ss)
{
    if (ss == NULL)
        return;
    sim_destroy(ss->sim);
    policy_setup_free(&ss->ps);
    series_fini(&ss->ser);
    free(ss);
}

int session_run_until(session *ss, int64_t t)
{
    if (t > ss->cfg.duration_ns)
        t = ss->cfg.duration_ns;
    if (ss->finished || t <= sim_now(ss->sim))
        return sim_error(ss->sim)[0] ? -1 : 0;
    if (sim_run_until(ss->sim, t) != 0)
        return -1;
    if (t == ss->cfg.duration_ns) {
        sim_finish(ss->sim); /* hands the last bucket to the series */
        ss->finished = true;
    }
    return 0;
}

int64_t session_now(const session *ss)
{
    return sim_now(ss->sim);
}

bool session_done(const session *ss)
{
    return ss->finished;
}

uint64_t session_version(const session *ss)
{
    return ss->version;
}

const sim *session_sim(const session *ss)
{
    return ss->sim;
}

const series *session_series(const session *ss)
{
    return &ss->ser;
}

const sim_config *session_config(const session *ss)
{
    return &ss->cfg;
}

const char *session_policy(const session *ss)
{
    return ss->policy;
}

const char *session_policy_text(const session *ss, char *buf, size_t len)
{
    const pstack *ps = ss->ps.stack;
    size_t used = (size_t)snprintf(buf, len, "%s", pstack_name(ps));
    int shown = 0;
    for (int i = 0; i < pstack_layers(ps) && used < len; i++) {
        const sb_policy *p = pstack_layer(ps, i);
        for (int j = 0; p->params && p->params[j].name && used < len; j++) {
            used += (size_t)snprintf(buf + used, len - used, "%s%s=%s",
                                     shown++ ? ", " : " (", p->params[j].name,
                                     pstack_param_text(ps, i, j));
        }
    }
    if (shown && used < len)
        snprintf(buf + used, len - used, ")");
    return buf;
}

/* ---- The log ---------------------------------------------------------------- */

static int record(session *ss, const session_action *a, sb_err *e)
{
    if (ss->n_log == SESSION_MAX_ACTIONS)
        return err_set(e, "at most %d changes by hand per run",
                       SESSION_MAX_ACTIONS);
    ss->log[ss->n_log++] = *a;
    return 0;
}

/* Apply one action of the log to the engine, as it was first applied. */
static int apply(session *ss, const session_action *a, sb_err *e)
{
    if (a->end) {
        sim_end_fault(ss->sim, a->index);
        return 0;
    }
    int i = sim_inject(ss->sim, &a->fault, e);
    if (i >= 0 && i != a->index)
        return err_set(e, "internal error: a replayed fault changed index");
    return i < 0 ? -1 : 0;
}

int session_inject(session *ss, const fault_cfg *f, sb_err *e)
{
    if (ss->finished)
        return err_set(e, "the run has ended: restart or go back in time "
                          "to change it");
    session_action a;
    memset(&a, 0, sizeof a);
    a.t_ns = sim_now(ss->sim);
    a.fault = *f;
    a.fault.start_ns = a.t_ns;
    uint32_t n;
    const fault_cfg *all = sim_faults(ss->sim, &n);
    /* type_N, N the first number no other fault's name has taken. */
    for (uint32_t k = n + 1, taken = 1; taken; k++) {
        snprintf(a.fault.name, sizeof a.fault.name, "%s_%u",
                 fault_type_name(f->type), k);
        taken = 0;
        for (uint32_t j = 0; j < n; j++)
            taken |= strcmp(all[j].name, a.fault.name) == 0;
    }
    if (ss->n_log == SESSION_MAX_ACTIONS)
        return err_set(e, "at most %d changes by hand per run",
                       SESSION_MAX_ACTIONS);
    a.index = sim_inject(ss->sim, &a.fault, e);
    if (a.index < 0)
        return -1;
    record(ss, &a, e);
    return a.index;
}

/* A fault injected now has not begun yet (its start is the engine's next
 * event): ending it at once, as a second change at the same instant
 * does, makes sure it never begins.  So the check is the engine's, not
 * "is it running". */
bool session_end_fault(session *ss, int index)
{
    if (ss->finished || ss->n_log == SESSION_MAX_ACTIONS)
        return false;
    if (!sim_end_fault(ss->sim, index))
        return false;
    session_action a;
    memset(&a, 0, sizeof a);
    a.t_ns = sim_now(ss->sim);
    a.end = true;
    a.index = index;
    record(ss, &a, NULL);
    for (int k = 0; k < CHANGE_KINDS; k++)
        if (ss->change_fault[k] == index)
            ss->change_fault[k] = -1;
    return true;
}

double session_current(const session *ss, change_kind kind)
{
    if (ss->change_fault[kind] >= 0)
        return ss->change_value[kind];
    switch (kind) {
    case CHANGE_RATE:
        return 1.0;
    case CHANGE_WORKERS:
        return (double)ss->cfg.server.workers;
    default:
        return (double)ss->cfg.clients.timeout_ns;
    }
}

int session_change(session *ss, change_kind kind, double value, sb_err *e)
{
    if (ss->change_fault[kind] >= 0)
        session_end_fault(ss, ss->change_fault[kind]);
    ss->change_fault[kind] = -1;
    fault_cfg f;
    memset(&f, 0, sizeof f);
    int64_t now = sim_now(ss->sim);
    f.duration_ns = ss->cfg.duration_ns > now ? ss->cfg.duration_ns - now : 1;
    switch (kind) {
    case CHANGE_RATE:
        if (value == 1.0)
            return 0; /* back to the scenario's rate */
        f.type = FAULT_LOAD_SPIKE;
        f.multiplier = value;
        break;
    case CHANGE_WORKERS:
        if (value == (double)ss->cfg.server.workers)
            return 0;
        f.type = FAULT_CAPACITY;
        f.workers = (uint32_t)value;
        break;
    default:
        if (value == (double)ss->cfg.clients.timeout_ns)
            return 0;
        f.type = FAULT_CLIENT_TIMEOUT;
        f.delay_ns = (int64_t)value;
        break;
    }
    int i = session_inject(ss, &f, e);
    if (i < 0)
        return -1;
    ss->change_fault[kind] = i;
    ss->change_value[kind] = value;
    return 0;
}

int session_actions(const session *ss, const session_action **out)
{
    *out = ss->log;
    return ss->n_log;
}

/* ---- Starting over, going back ------------------------------------------------ */

int session_restart(session *ss, sb_err *e)
{
    ss->n_log = 0;
    return start(ss, e);
}

int session_set_policy(session *ss, const char *policy_in,
                       const setting *params, int n_params, sb_err *e)
{
    /* The caller may hand us our own name (a new parameter, the same
     * stack): copied before it is overwritten. */
    char policy[sizeof ss->policy];
    if (strlen(policy_in) >= sizeof policy)
        return err_set(e, "policy name '%.40s...' is too long", policy_in);
    snprintf(policy, sizeof policy, "%s", policy_in);
    char old[sizeof ss->policy];
    setting old_params[SESSION_MAX_PARAMS];
    int old_n = ss->n_params;
    memcpy(old, ss->policy, sizeof old);
    memcpy(old_params, ss->params, sizeof old_params);
    if (set_policy_text(ss, policy, params, n_params, e) != 0)
        return -1;
    /* Check the new stack builds before the run is thrown away. */
    policy_setup probe;
    if (build_policy(ss, &probe, e) != 0) {
        memcpy(ss->policy, old, sizeof old);
        memcpy(ss->params, old_params, sizeof old_params);
        ss->n_params = old_n;
        return -1;
    }
    policy_setup_free(&probe);
    /* What the user did stays: the new policy meets the same storm. */
    return session_seek(ss, sim_now(ss->sim), e);
}

const pstack *session_stack(const session *ss)
{
    return ss->ps.stack;
}

int session_params(const session *ss, const setting **out)
{
    *out = ss->params;
    return ss->n_params;
}

/* The kind of live change a fault is, or -1. */
static int kind_of(const fault_cfg *f)
{
    switch (f->type) {
    case FAULT_LOAD_SPIKE:
        return CHANGE_RATE;
    case FAULT_CAPACITY:
        return CHANGE_WORKERS;
    case FAULT_CLIENT_TIMEOUT:
        return CHANGE_TIMEOUT;
    default:
        return -1;
    }
}

static double value_of(const fault_cfg *f)
{
    switch (f->type) {
    case FAULT_LOAD_SPIKE:
        return f->multiplier;
    case FAULT_CAPACITY:
        return (double)f->workers;
    default:
        return (double)f->delay_ns;
    }
}

/* Fault i is running now, or was injected at this instant and begins
 * with the engine's next event; not one that ended, nor one ended before
 * it began (duration 0). */
static bool in_force(const session *ss, int i)
{
    uint32_t n;
    const fault_cfg *f = &sim_faults(ss->sim, &n)[i];
    int64_t now = sim_now(ss->sim);
    return f->duration_ns > 0 && f->start_ns <= now &&
           simtime_add(f->start_ns, f->duration_ns) > now;
}

int session_seek(session *ss, int64_t t, sb_err *e)
{
    int keep = 0;
    while (keep < ss->n_log && ss->log[keep].t_ns <= t)
        keep++;
    if (start(ss, e) != 0)
        return -1;
    ss->n_log = keep;
    for (int i = 0; i < keep; i++) {
        const session_action *a = &ss->log[i];
        if (session_run_until(ss, a->t_ns) != 0)
            return err_set(e, "%s", sim_error(ss->sim));
        if (apply(ss, a, e) != 0)
            return -1;
    }
    if (session_run_until(ss, t) != 0)
        return err_set(e, "%s", sim_error(ss->sim));
    /* The live changes in force: the latest fault of each kind made by a
     * change, while it lasts.  (Injected load spikes and capacity drops
     * count too: they are what the rate and the workers are now.) */
    for (int i = 0; i < keep; i++) {
        const session_action *a = &ss->log[i];
        int k = a->end ? -1 : kind_of(&a->fault);
        if (k < 0 || !in_force(ss, a->index))
            continue;
        ss->change_fault[k] = a->index;
        ss->change_value[k] = value_of(&a->fault);
    }
    return 0;
}

int session_replay(session *dst, const session *src, sb_err *e)
{
    if (src->n_log > SESSION_MAX_ACTIONS)
        return err_set(e, "internal error: log too long");
    memcpy(dst->log, src->log, (size_t)src->n_log * sizeof *src->log);
    dst->n_log = src->n_log;
    return session_seek(dst, sim_now(src->sim), e);
}

/* ---- Saving --------------------------------------------------------------------- */

int session_as_scenario(const session *ss, sim_config *cfg, sim_summary *sum,
                        sb_err *e)
{
    *cfg = ss->cfg;
    int64_t now = sim_now(ss->sim);
    int64_t cut = now / cfg->bucket_ns * cfg->bucket_ns;
    if (cut <= cfg->warmup_ns)
        return err_set(e,
                       "run past the warm-up (%.0f s) before saving: a "
                       "scenario must be longer than its warm-up",
                       (double)cfg->warmup_ns / 1e9);
    cfg->duration_ns = cut;
    /* Every fault that started before the cut, the scenario's own and the
     * log's, as the engine has them now (an injected fault ended early
     * has its real duration).  Ones that start later did not happen. */
    uint32_t n;
    const fault_cfg *all = sim_faults(ss->sim, &n);
    cfg->n_faults = 0;
    for (uint32_t i = 0; i < n; i++) {
        /* Nor did one ended before it began (duration 0). */
        if (all[i].start_ns >= cut || all[i].duration_ns == 0)
            continue;
        if (cfg->n_faults == SIM_MAX_FAULTS)
            return err_set(e, "a scenario holds at most %d faults",
                           SIM_MAX_FAULTS);
        cfg->faults[cfg->n_faults++] = all[i];
    }
    /* The summary of exactly that scenario, by running it. */
    policy_setup ps;
    if (build_policy((session *)ss, &ps, e) != 0)
        return -1;
    sim *s = NULL;
    int rc = -1;
    if (sim_create(cfg, ps.stack, &s, e) != 0)
        goto done;
    if (sim_run_until(s, cfg->duration_ns) != 0) {
        err_set(e, "%s", sim_error(s));
        goto done;
    }
    sim_finish(s);
    summary_compute(s, sum);
    rc = 0;
done:
    sim_destroy(s);
    policy_setup_free(&ps);
    return rc;
}

static void add(setting *out, int *n, int max, const char *key,
                const char *value)
{
    if (*n >= max)
        return;
    snprintf(out[*n].key, sizeof out[*n].key, "%s", key);
    snprintf(out[*n].value, sizeof out[*n].value, "%s", value);
    snprintf(out[*n].origin, sizeof out[*n].origin, "saved by the GUI");
    (*n)++;
}

int session_expectations(const sim_summary *s, setting *out, int max)
{
    int n = 0;
    char v[64];
    if (s->recovery_judged) {
        add(out, &n, max, "metastable", s->metastable ? "true" : "false");
        if (s->recovered) {
            /* Whole seconds, rounded up, and one bucket more. */
            snprintf(v, sizeof v, "%.0fs",
                     ceil(s->recovery_time_s) + ceil(s->bucket_s));
            add(out, &n, max, "recovers_within", v);
        }
    }
    if (s->offered > 0) {
        snprintf(v, sizeof v, "%.2f",
                 fmax(1.0, ceil(s->amplification * 100.0) / 100.0));
        add(out, &n, max, "amplification_max", v);
        snprintf(v, sizeof v, "%.3f",
                 floor(s->success_ratio * 1000.0) / 1000.0);
        add(out, &n, max, "success_min", v);
    }
    snprintf(v, sizeof v, "%llu", (unsigned long long)s->duplicates);
    add(out, &n, max, "duplicates_max", v);
    if (s->successes > 0) {
        snprintf(v, sizeof v, "%.0fms", ceil(s->latency_p99_ms));
        add(out, &n, max, "latency_p99_max", v);
    }
    /* Per phase, what each has (reports/expect.c judges the same). */
    const sim_phase *during = &s->phase[PHASE_DURING];
    const sim_phase *after = &s->phase[PHASE_AFTER];
    const sim_phase *end = &s->phase[PHASE_END];
    if (during->present && isfinite(during->success_ratio)) {
        snprintf(v, sizeof v, "%.3f",
                 floor(during->success_ratio * 1000.0) / 1000.0);
        add(out, &n, max, "during_fault_success_min", v);
    }
    if (after->present && isfinite(after->amplification)) {
        snprintf(v, sizeof v, "%.2f",
                 fmax(1.0, ceil(after->amplification * 100.0) / 100.0));
        add(out, &n, max, "recovery_amplification_max", v);
    }
    if (end->present && isfinite(end->success_ratio)) {
        snprintf(v, sizeof v, "%.3f",
                 floor(end->success_ratio * 1000.0) / 1000.0);
        add(out, &n, max, "steady_success_min", v);
    }
    if (end->present && s->has_baseline && s->baseline_goodput_per_s > 0) {
        double share = end->goodput_per_s / s->baseline_goodput_per_s;
        snprintf(v, sizeof v, "%.2f", fmin(floor(share * 100.0) / 100.0, 10.0));
        add(out, &n, max, "steady_goodput_min", v);
    }
    if (end->present && isfinite(end->p99_ms)) {
        snprintf(v, sizeof v, "%.0fms", ceil(end->p99_ms));
        add(out, &n, max, "steady_latency_p99_max", v);
    }
    if (s->has_pipeline && s->pipeline.jobs > 0) {
        const sim_pipeline_summary *p = &s->pipeline;
        snprintf(v, sizeof v, "%.3f",
                 floor((double)p->completed / (double)p->jobs * 1000.0) /
                     1000.0);
        add(out, &n, max, "jobs_completed_min", v);
        snprintf(v, sizeof v, "%llu", (unsigned long long)p->alerts_critical);
        add(out, &n, max, "alerts_critical_max", v);
    }
    return n;
}
