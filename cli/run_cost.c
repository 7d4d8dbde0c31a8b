/*
 * run_cost.c -- the gate every command that runs a scenario passes first:
 * the run's cost estimated (sim/budget.h) from its arrivals, clients,
 * buckets and the policy's worst-case attempts and state, and refused
 * over the limits unless forced.
 */
#include <stdio.h>
#include <string.h>

#include "policy_check.h"
#include "policy_setup.h"
#include "run_cost.h"

/* ---- The load budget ---------------------------------------------------
 *
 * The worst-case attempts per request come from the same probe, run up to
 * the engine's own cap on attempts (so a policy that retries forever is
 * costed at the cap, not at the probe's 100).  A stack that gives up after
 * a few attempts is probed in microseconds; one that retries up to the
 * cap, in milliseconds (100 000 attempts of each kind of request).
 */
static size_t policy_state_per_client(const pstack *ps, const client_cfg *cc)
{
    uint64_t procs = cc->processes ? cc->processes : cc->count;
    uint64_t share =
        ((uint64_t)pstack_process_state_size(ps) * procs + cc->count - 1) /
        cc->count;
    return pstack_client_state_size(ps) + (size_t)share;
}

/* A service chain's attempts for each attempt that reaches the top
 * tier: 1 (the top's own) + a_0 (1 + a_1 (1 + ...)), a_i the worst-case
 * attempts of tier i's calls, probed as the clients' are.  Each attempt
 * at any tier costs the engine about what a client's attempt costs.  1
 * without a chain. */
static int chain_factor(const sim_config *cfg, bool lenient, double *factor,
                        sb_err *e)
{
    *factor = 1.0;
    for (uint32_t i = cfg->n_tiers; i-- > 1;) {
        const tier_cfg *t = &cfg->tiers[i - 1];
        policy_setup ps;
        if (policy_setup_build_at(t->policy, t->policy_origin, NULL, 0,
                                  t->settings, (int)t->n_settings, &ps, e) != 0)
            return -1;
        client_cfg cc = cfg->clients;
        cc.timeout_ns = t->timeout_ns;
        cc.deadline_ns = 0;
        policy_probe by_delay, most;
        int rc = policy_probe_worst(ps.stack, &cc, budget_attempts_cap(),
                                    &by_delay, &most, e);
        policy_setup_free(&ps);
        if (rc != 0 && !lenient)
            return -1;
        double a = most.still_going ? (double)budget_attempts_cap()
                                    : (double)most.attempts;
        *factor = 1.0 + a * *factor;
    }
    return 0;
}

int run_cost_gate(const char *path, const sim_config *cfg, pstack *ps,
                  bool force, bool lenient, budget_cost *out, sb_err *e)
{
    policy_probe by_delay, most;
    if (policy_probe_worst(ps, &cfg->clients, budget_attempts_cap(), &by_delay,
                           &most, e) != 0 &&
        !lenient)
        return -1;
    double attempts = most.still_going ? (double)budget_attempts_cap()
                                       : (double)most.attempts;
    double chain;
    if (chain_factor(cfg, lenient, &chain, e) != 0)
        return -1;
    attempts *= chain;
    budget_estimate(cfg, policy_state_per_client(ps, &cfg->clients),
                    pstack_request_state_size(ps), attempts, out);
    if (budget_check(cfg, out, e) == 0)
        return 0;
    if (force)
        return 1;
    err_prefix(e, "%s", path);
    size_t len = strlen(e->msg);
    snprintf(e->msg + len, sizeof e->msg - len, ", or pass --force");
    return -1;
}
