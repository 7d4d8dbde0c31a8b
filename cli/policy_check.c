/*
 * policy_check.c -- what can be told of a policy stack without a
 * simulation: its worst case, probed (validate's deadline check, the run
 * cost gate), and settings that are accepted but almost surely a mistake.
 *
 * The stack is probed as the engine would drive it for one request of a
 * fresh client whose every attempt times out: before_send, then on_failure
 * with a timeout, then the delay, until the stack stops asking for retries
 * (or refuses a send) or the caller's limit of attempts is reached.
 *
 * Worst case means every draw of uniform() is the largest double below 1:
 * every jitter formula in backoff.h then gives its largest delay, and a
 * probabilistic refusal (refuse when U < p) never fires.  A plug-in could
 * use its draws the other way round; for it this is only a probe.
 *
 * The request goes through the request driver (policies/driver.h), the
 * code the engine uses: the attempts see the time they would see, their
 * timeouts are cut short by the deadline, and a retry that would start
 * after the deadline ends the probe, where it would end a real request.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "hookguard.h"
#include "policy_check.h"
#include "policy_setup.h"
#include "scenario.h"

typedef policy_probe probe;

static double probe_uniform(const sb_ctx *ctx)
{
    (void)ctx;
    return nextafter(1.0, 0.0);
}

static void probe_breaker(const sb_ctx *ctx, int32_t open)
{
    (void)ctx;
    (void)open;
}

/* One attempt of request r, sent at p->total_s and timed out.  Returns 1
 * when the request retries (its delay added to p), 0 when it stops, -1
 * when a layer broke its contract (message in pstack_error). */
static int probe_step(pstack *ps, const pstack_call *call, driver_request *r,
                      probe *p)
{
    int64_t now = driver_ns(fmin(p->total_s, PSTACK_MAX_DELAY_S));
    driver_send ds;
    if (driver_before_send(ps, call, r, now, false, &ds) != 0)
        return -1;
    if (!ds.send)
        return 0;
    r->attempts++;
    p->attempts = r->attempts;
    p->total_s += ds.attempt.timeout_s;
    driver_result res = {r->attempts,    false, true, SB_ERR_TIMEOUT,  0,
                         SB_DEFECT_NONE, now,   -1,   SB_PUSHBACK_NONE};
    driver_next nx;
    now = driver_ns(fmin(p->total_s, PSTACK_MAX_DELAY_S));
    if (driver_on_failure(ps, call, r, now, &res, &nx) != 0)
        return -1;
    if (nx.step != DRIVER_RETRY)
        return 0;
    p->retries++;
    p->delay_s += nx.final.delay_s;
    p->total_s += nx.final.delay_s;
    return 1;
}

/* Probe one kind of request (p->op, p->critical set by the caller) as

 * `limit` attempts. */
/* The policy state one client costs: its own, and its share of its
 * process's (all of it when each client is its own process). */
static int probe_request(pstack *ps, const client_cfg *cc, uint32_t limit,
                         probe *p, sb_err *e)
{
    size_t ps_size = pstack_process_state_size(ps);
    size_t cs = pstack_client_state_size(ps);
    size_t rs = pstack_request_state_size(ps);
    void *process = calloc(1, ps_size ? ps_size : 1);
    void *client = calloc(1, cs ? cs : 1);
    void *request = calloc(1, rs ? rs : 1);
    sb_host host = {sizeof host, 0, probe_uniform, probe_breaker, NULL, NULL};
    pstack_call call = {0, 0, process, client, request, &host, NULL};
    int rc = -1;
    if (process == NULL || client == NULL || request == NULL) {
        err_set(e, "out of memory");
        goto done;
    }
    /* A plug-in that crashes here is named with this, not with the
     * probe's made-up times (cli/guard.c). */
    hookguard_set_context("while its worst case was probed, before the "
                          "simulation");
    pstack_process_init(ps, &call);
    pstack_client_init(ps, &call);
    driver_request r = {
        0,
        cc->deadline_ns ? cc->deadline_ns : DRIVER_NO_DEADLINE,
        cc->timeout_ns,
        0,
        0,
        p->op,
        (p->op == SB_OP_POST && cc->idempotency_keys ? DRIVER_KEYED : 0) |
            (p->critical ? DRIVER_CRITICAL : 0)};
    int step = 1;
    for (uint32_t n = 1; step == 1 && n <= limit; n++)
        step = probe_step(ps, &call, &r, p);
    if (step < 0) {
        err_set(e, "%s", pstack_error(ps));
        goto done;
    }
    p->still_going = step == 1;
    rc = 0;
done:
    hookguard_set_context(NULL);
    free(process);
    free(client);
    free(request);
    return rc;
}

/* The worst case over the kinds of request the scenario sends: each
 * operation in its mix, critical or not when it has critical requests. */
int policy_probe_worst(pstack *ps, const client_cfg *cc, uint32_t limit,
                       policy_probe *by_delay, policy_probe *by_attempts,
                       sb_err *e)
{
    memset(by_delay, 0, sizeof *by_delay);
    memset(by_attempts, 0, sizeof *by_attempts);
    bool found = false;
    for (int op = SB_OP_READ; op <= SB_OP_POST; op++) {
        int kinds = cc->critical_fraction > 0 ? 2 : 1; /* critical or not */
        for (int crit = 0; crit < kinds; crit++) {
            if (cc->mix[op] <= 0)
                continue;
            probe p = {(sb_op)op, crit != 0, 0, 0, 0.0, 0.0, false};
            int rc = probe_request(ps, cc, limit, &p, e);
            if (!found || p.attempts > by_attempts->attempts)
                *by_attempts = p; /* so far, even when it failed */
            if (rc != 0)
                return -1;
            if (!found || p.delay_s > by_delay->delay_s)
                *by_delay = p;
            found = true;
        }
    }
    return 0;
}

/* Settings that are accepted but almost surely a mistake. */
int policy_warnings(const scenario *sc, const pstack *ps, char *out, size_t len)
{
    size_t used = 0;
    int n = 0;
    out[0] = '\0';
    int layers = pstack_layers(ps), only_layers = 1;
    for (int i = 0; i < layers; i++)
        if (!(pstack_layer(ps, i)->flags & SB_POLICY_LAYER))
            only_layers = 0;
    if (only_layers) {
        used +=
            (size_t)snprintf(out + used, len - used,
                             "%s[policy] %s: every layer of it only "
                             "limits or shapes the retries of a policy "
                             "stacked under it, so alone it never "
                             "retries; stack it on one that does, such "
                             "as exponential+%s",
                             n++ ? "\n" : "", pstack_name(ps), pstack_name(ps));
    }
    /* A hedge waits `delay` for an answer before sending its copy; an
     * attempt that times out first is retried, not hedged. */
    for (int i = 0; i < layers && used < len; i++) {
        const sb_policy *p = pstack_layer(ps, i);
        if (strcmp(p->name, "hedge") != 0)
            continue;
        for (int j = 0; p->params && p->params[j].name; j++) {
            if (strcmp(p->params[j].name, "delay") != 0)
                continue;
            double delay = pstack_param_value(ps, i, j).d;
            double timeout = (double)sc->cfg.clients.timeout_ns / 1e9;
            if (delay > 0 && delay >= timeout)
                used += (size_t)snprintf(
                    out + used, len - used,
                    "%s[policy] hedge.delay %gs is not shorter than the "
                    "[clients] timeout %gs: every attempt times out before "
                    "its hedge would be sent, so no hedge ever is",
                    n++ ? "\n" : "", delay, timeout);
        }
    }
    return n;
}

/* ---- A pipeline's SLA ------------------------------------------------------
 *
 * The rule of the deadline check, for a job: the retry delays of its
 * steps, added up, should stay under half the job's SLA.  Each step is
 * probed as the clients' requests are above (every attempt times out,
 * draws at their maximum, through the request driver), with its own
 * stack or the run's and its own timeout or the clients', and as the
 * engine sends a step's calls (sim/pipeline.c): a post without an
 * idempotency key, not critical, and without a deadline of its own -- the
 * engine lets a step retry past the job's SLA and counts such retries
 * late, so the probe lets it too, up to its limit of attempts.  (Probing
 * with the SLA as the call's deadline would cut a step's last long delay
 * off the sum and call "fits" a pipeline whose jobs overrun.)  The worst
 * case adds the steps' figures: every step exhausts its retries.
 *
 * A step's own stack is built whether or not there is an SLA: that is
 * where its parameters are checked against the stack's schema, each
 * named by its line ([policy.NAME] parameters are checked the same way,
 * when a chain's stacks are built to cost the run).  Like a tier's, a
 * step's own stack is of built-in policies. */
static int probe_step_stack(const scenario *sc, const step_cfg *st, pstack *ps,
                            policy_probe *worst, sb_err *e)
{
    client_cfg cc = sc->cfg.clients;
    if (st->timeout_ns > 0)
        cc.timeout_ns = st->timeout_ns;
    cc.deadline_ns = 0;
    /* As the engine sends it (sim/pipeline.h): an idempotent step's call
     * is a put, any other a post; no idempotency key, no deadline. */
    cc.mix[SB_OP_READ] = 0.0;
    cc.mix[SB_OP_PUT] = st->idempotent ? 1.0 : 0.0;
    cc.mix[SB_OP_POST] = st->idempotent ? 0.0 : 1.0;
    cc.idempotency_keys = false;
    cc.critical_fraction = 0.0;
    policy_probe most;
    return policy_probe_worst(ps, &cc, PROBE_MAX_ATTEMPTS, worst, &most, e);
}

/* Build every step's own stack and, with an SLA, probe each step's.
 * -1 with the message in e when a stack does not build or a layer broke
 * its contract. */
int policy_probe_pipeline(const scenario *sc, pstack *run, pipeline_probe *pp,
                          sb_err *e)
{
    const pipeline_cfg *p = &sc->cfg.pipeline;
    memset(pp, 0, sizeof *pp);
    for (uint32_t i = 0; i < p->n_steps; i++) {
        const step_cfg *st = &p->steps[i];
        policy_setup own;
        memset(&own, 0, sizeof own);
        pstack *ps = run;
        if (st->policy[0]) {
            if (policy_setup_build_at(st->policy, st->policy_origin, NULL, 0,
                                      st->settings, (int)st->n_settings, &own,
                                      e) != 0)
                return -1;
            ps = own.stack;
        }
        snprintf(pp->stack[i], sizeof pp->stack[i], "%s", pstack_name(ps));
        int rc = 0;
        if (p->sla_ns > 0) {
            rc = probe_step_stack(sc, st, ps, &pp->steps[i], e);
            pp->delay_s += pp->steps[i].delay_s;
            pp->at_least = pp->at_least || pp->steps[i].still_going;
        }
        policy_setup_free(&own);
        if (rc != 0)
            return -1;
    }
    pp->over = p->sla_ns > 0 && pp->delay_s > (double)p->sla_ns / 1e9 / 2.0;
    return 0;
}
