/*
 * cmd_validate.c -- `stormbench validate FILE...`: load every scenario and
 * build its policy stack, without running anything; warn when the policy's
 * worst-case retry delays do not fit the scenario's deadline.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "budget.h"
#include "commands.h"
#include "expect.h"
#include "find.h"
#include "policy_check.h"
#include "print.h"
#include "run_cost.h"
#include "scenario.h"

static const char validate_usage[] =
    "Usage: stormbench validate [--policy-plugin FILE.so]... [--no-plugins]\n"
    "                           [--set SECTION.KEY=VALUE]... [--force]\n"
    "                           SCENARIO...\n"
    "\n"
    "Check scenario files (or shipped scenarios, by name): every section,\n"
    "key and value, the policy and its parameters.  Prints 'ok' or the\n"
    "first problem of each file, and any warnings.  --set overrides a key\n"
    "of every file as `run --set` does, so a CI job can check the very\n"
    "settings it is about to run.\n"
    "\n"
    "An [expect] assertion that no run can pass is warned about: recovery\n"
    "(recovers_within, metastable) in a scenario without a fault, without\n"
    "a baseline before it or without a recovery window after it; a phase's\n"
    "key whose phase the faults leave out; completion_within without\n"
    "arrival = once; a pipeline's key without a [pipeline].\n"
    "\n"
    "A file is also refused when running it would be absurdly costly: over\n"
    "1e10 events (about an hour of CPU) or 8 GB of memory, estimated from\n"
    "its arrivals, clients, buckets and the policy's worst-case attempts\n"
    "and state (the message names the figure and the settings to lower).\n"
    "--force accepts it with a warning, as `run --force` runs it.\n"
    "\n"
    "One warning concerns the policy itself: when the scenario has a\n"
    "[clients] deadline, the policy is asked what it does when every attempt\n"
    "of a request times out, with its random draws at their maximum, and\n"
    "its retry delays added up.  If that worst case is over half the\n"
    "deadline (the rule 'retries x delay < deadline/2', which leaves the\n"
    "other half for the attempts), validate says so, with the numbers.\n"
    "\n"
    "With a [pipeline] sla, each step's stack (its own, or the run's) is\n"
    "probed the same way with the step's timeout, as the engine sends a\n"
    "step's calls (a put when the step is idempotent, else a post; no\n"
    "idempotency key, no deadline of its own), and the steps' worst-case\n"
    "retry delays are added up (the worst case: every step exhausts its\n"
    "retries).  validate prints each step's figure and whether the sum\n"
    "fits in half the SLA, and warns when it does not.  Every step's own\n"
    "stack is built, SLA or not, so a bad parameter of it is reported at\n"
    "its line.\n"
    "\n"
    "A scenario's [policy] plugin = FILE.so is a shared library: checking\n"
    "the policy loads it, and loading runs its code.  For a file you do not\n"
    "trust, --no-plugins checks everything but a policy that needs a\n"
    "plug-in (and says so).\n"
    "\n"
    "Exit status: 0 all files are valid (warnings or not), 2 at least one\n"
    "is not.\n";

/* ---- The worst-case retry delay ---------------------------------------------
 *
 * The stack is probed (policy_check.h) for at most PROBE_MAX_ATTEMPTS
 * attempts: a policy with max_attempts = 1000000 would otherwise be probed
 * for a long time, and 100 attempts already show it does not fit any
 * deadline.
 *
 * What is compared with deadline/2 is the sum of the delays alone, not the
 * delays plus the attempts' timeouts: the rule budgets half the deadline
 * for waiting and leaves the other half to the attempts, so counting the
 * timeouts on the waiting side would charge the attempts twice.  The total
 * with timeouts is still printed, because it is what a request costs when
 * the policy runs its course.
 */

typedef policy_probe probe;

static void warn_delay(const char *path, const scenario *sc, const pstack *ps,
                       const probe *p)
{
    static const char *const ops[] = {"read", "put", "post"};
    const client_cfg *cc = &sc->cfg.clients;
    char deadline[32], timeout[32], limit[96] = "";
    if (p->still_going)
        snprintf(limit, sizeof limit,
                 ", still retrying after %d attempts, "
                 "the probe's limit",
                 PROBE_MAX_ATTEMPTS);
    units_fmt_duration(cc->deadline_ns, deadline, sizeof deadline);
    units_fmt_duration(cc->timeout_ns, timeout, sizeof timeout);
    fprintf(stderr,
            "%s: warning: [policy] %s: worst-case retry delay %s%.4g s "
            "(%u retries of a %s%s, every attempt timing out, jitter at its "
            "maximum%s) is over half the %s [clients] deadline; keep "
            "retries x delay under deadline/2 so the attempts have time "
            "(%.4g s with the %u attempts' %s timeouts)\n",
            path, pstack_name(ps), p->still_going ? "at least " : "",
            p->delay_s, p->retries, p->critical ? "critical " : "", ops[p->op],
            limit, deadline, p->total_s, p->attempts, timeout);
}

/* Probe the stack: *over tells whether its worst case passes half the
 * deadline.  -1 when a layer broke its contract. */
static int delay_budget(const scenario *sc, pstack *ps, probe *worst,
                        bool *over, sb_err *e)
{
    const client_cfg *cc = &sc->cfg.clients;
    *over = false;
    if (cc->deadline_ns <= 0)
        return 0;
    probe most;
    if (policy_probe_worst(ps, cc, PROBE_MAX_ATTEMPTS, worst, &most, e) != 0)
        return -1;
    *over = worst->delay_s > (double)cc->deadline_ns / 1e9 / 2.0;
    return 0;
}

/* ---- A pipeline's SLA (policy_probe_pipeline, policy_check.h) --------- */

/* One unit for a pipeline's figures, from its SLA: "41 min over 5 steps,
 * over half the 60 min SLA (30 min)" reads at a glance. */
static const char *sla_unit(int64_t sla_ns, double *per_s)
{
    double s = (double)sla_ns / 1e9;
    *per_s = s >= 7200 ? 1.0 / 3600 : s >= 120 ? 1.0 / 60 : s >= 2 ? 1 : 1e3;
    return s >= 7200 ? "h" : s >= 120 ? "min" : s >= 2 ? "s" : "ms";
}

static void print_pipeline(const char *path, const scenario *sc,
                           const pipeline_probe *pp)
{
    static const char *const ops[] = {"read", "put", "post"};
    const pipeline_cfg *p = &sc->cfg.pipeline;
    if (p->sla_ns <= 0)
        return;
    double k;
    const char *u = sla_unit(p->sla_ns, &k);
    for (uint32_t i = 0; i < p->n_steps; i++) {
        const step_cfg *st = &p->steps[i];
        const policy_probe *w = &pp->steps[i];
        char timeout[32], limit[96] = "";
        units_fmt_duration(st->timeout_ns ? st->timeout_ns
                                          : sc->cfg.clients.timeout_ns,
                           timeout, sizeof timeout);
        if (w->still_going)
            snprintf(limit, sizeof limit,
                     ", still retrying after %d "
                     "attempts, the probe's limit",
                     PROBE_MAX_ATTEMPTS);
        printf("%s: pipeline step '%s' (%s%s): worst-case retry delays "
               "%s%.4g %s (%u %s of a %s%s, every attempt timing out "
               "after %s, jitter at its maximum%s)\n",
               path, st->name, st->policy[0] ? "" : "the run's stack, ",
               pp->stack[i], w->still_going ? "at least " : "", w->delay_s * k,
               u, w->retries, w->retries == 1 ? "retry" : "retries",
               w->critical ? "critical " : "", ops[w->op], timeout, limit);
    }
    double sla = (double)p->sla_ns / 1e9;
    const char *steps = p->n_steps == 1 ? "step" : "steps";
    const char *least = pp->at_least ? "at least " : "";
    if (!pp->over) {
        printf("%s: pipeline: worst-case retry delays %s%.4g %s over %u %s "
               "fit in half the %.4g %s SLA (%.4g %s)\n",
               path, least, pp->delay_s * k, u, p->n_steps, steps, sla * k, u,
               sla / 2 * k, u);
        return;
    }
    fprintf(stderr,
            "%s: warning: pipeline: worst-case retry delays %s%.4g "
            "%s over %u %s, over half the %.4g %s SLA (%.4g %s): if every "
            "step exhausts its retries, a job spends more than half its SLA "
            "waiting between attempts; keep the steps' retries x delay "
            "under SLA/2 so the attempts have time\n",
            path, least, pp->delay_s * k, u, p->n_steps, steps, sla * k, u,
            sla / 2 * k, u);
}

/* ---- One file ----------------------------------------------------------- */

static void print_warnings(const char *path, const scenario *sc)
{
    for (const char *p = sc->warnings; *p;) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(stderr, "%s: warning: %.*s\n", path, len, p);
        p += len + (nl != NULL);
    }
}

/* A policy error names where it came from ("x.ini:9: [policy] name: ...",
 * "plug.so: ..."); prefix the scenario's path when it does not start
 * with it, so every line of output says which file it is about. */
static void print_policy_error(const char *path, const char *msg)
{
    if (strncmp(msg, path, strlen(path)) == 0)
        fprintf(stderr, "%s\n", msg);
    else
        fprintf(stderr, "%s: %s\n", path, msg);
}

/* A pipeline's [expect] key in a scenario without [pipeline] fails every
 * run ("no [pipeline] in this scenario"); say so before it is run.  Not
 * an error: the key is well formed, and a --set could add the pipeline. */
static void warn_pipeline_keys(const char *path, const scenario *sc,
                               const expect_set *x)
{
    if (sc->cfg.pipeline.n_steps > 0) {
        /* Without a deadline every completed job is within it. */
        if (x->has[EXPECT_JOBS_WITHIN_SLA_MIN] && sc->cfg.pipeline.sla_ns == 0)
            fprintf(stderr,
                    "%s: warning: [expect] jobs_within_sla_min: "
                    "[pipeline] has no sla, so it judges the jobs "
                    "completed (set sla, or use "
                    "jobs_completed_min)\n",
                    path);
        return;
    }
    for (int k = 0; k < EXPECT_KIND_COUNT; k++)
        if (x->has[k] && expect_needs_pipeline((expect_kind)k))
            fprintf(stderr,
                    "%s: warning: [expect] %s: the scenario has "
                    "no [pipeline], so this expectation fails "
                    "every run\n",
                    path, expect_name((expect_kind)k));
}

/* The [expect] assertions that cannot pass (expect_cannot_pass). */
static void warn_expect(const char *path, const scenario *sc,
                        const expect_set *x)
{
    char lines[2048];
    if (expect_cannot_pass(x, &sc->cfg, lines, sizeof lines) == 0)
        return;
    for (char *save = NULL, *l = strtok_r(lines, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save))
        fprintf(stderr, "%s: warning: %s\n", path, l);
}

typedef struct validate_opts {
    const char *const *plugins;
    int n_plugins;
    const char *const *sets;
    int n_sets;
    bool force, no_plugins;
} validate_opts;

static int validate_one(const char *path, const validate_opts *vo)
{
    const char *const *plugins = vo->plugins;
    int n_plugins = vo->n_plugins;
    bool force = vo->force, no_plugins = vo->no_plugins;
    scenario *sc = calloc(1, sizeof *sc);
    if (sc == NULL) {
        fprintf(stderr, "stormbench validate: %s: out of memory\n", path);
        return EXIT_INPUT;
    }
    sb_err e;
    policy_setup ps;
    memset(&ps, 0, sizeof ps);
    int rc = EXIT_INPUT;
    expect_set expect;
    char file[1024];
    if (cli_find_scenario(path, file, sizeof file, &e) != 0 ||
        scenario_load(file, vo->sets, vo->n_sets, sc, &e) != 0 ||
        expect_parse(sc->expect, sc->n_expect, &expect, &e) != 0) {
        fprintf(stderr, "%s\n", e.msg);
        goto done;
    }
    if (no_plugins && sc->n_plugins) {
        /* Everything but the policy: its plug-in is not loaded. */
        printf("%s: ok (%s; policy %s not checked: it needs %s, and "
               "--no-plugins loads none)\n",
               path, sc->cfg.name, sc->policy, sc->plugins[0]);
        print_warnings(path, sc);
        warn_pipeline_keys(path, sc, &expect);
        warn_expect(path, sc, &expect);
        rc = EXIT_OK;
        goto done;
    }
    const char *all[SCENARIO_MAX_PLUGINS + CLI_MAX_LIST];
    int n = 0;
    for (int i = 0; i < sc->n_plugins; i++)
        all[n++] = sc->plugins[i];
    for (int i = 0; i < n_plugins; i++)
        all[n++] = plugins[i];
    if (policy_setup_build_at(sc->policy, sc->policy_origin, all, n,
                              sc->settings, sc->n_settings, &ps, &e) != 0) {
        print_policy_error(path, e.msg);
        goto done;
    }
    probe worst;
    bool over;
    if (delay_budget(sc, ps.stack, &worst, &over, &e) != 0) {
        print_policy_error(path, e.msg);
        goto done;
    }
    pipeline_probe pipe;
    if (policy_probe_pipeline(sc, ps.stack, &pipe, &e) != 0) {
        print_policy_error(path, e.msg);
        goto done;
    }
    budget_cost cost;
    int heavy =
        run_cost_gate(path, &sc->cfg, ps.stack, force, false, &cost, &e);
    if (heavy < 0) {
        print_policy_error(path, e.msg);
        goto done;
    }
    char head[1200];
    snprintf(head, sizeof head, "%s: ok (%s; policy ", path, sc->cfg.name);
    print_policy_block(stdout, head, ")", 2, ps.stack);
    print_warnings(path, sc);
    warn_pipeline_keys(path, sc, &expect);
    warn_expect(path, sc, &expect);
    char policy_warn[1024];
    if (policy_warnings(sc, ps.stack, policy_warn, sizeof policy_warn))
        for (char *save = NULL, *l = strtok_r(policy_warn, "\n", &save); l;
             l = strtok_r(NULL, "\n", &save))
            fprintf(stderr, "%s: warning: %s\n", path, l);
    if (over)
        warn_delay(path, sc, ps.stack, &worst);
    print_pipeline(path, sc, &pipe);
    if (heavy)
        fprintf(stderr, "%s: warning: %s (--force: accepted)\n", path, e.msg);
    rc = EXIT_OK;
done:
    policy_setup_free(&ps);
    free(sc);
    return rc;
}

int cmd_validate(int argc, char **argv)
{
    args a = {argc, argv, 1, "validate", validate_usage};
    const char *files[CLI_MAX_LIST * 4];
    const char *plugins[CLI_MAX_LIST], *sets[CLI_MAX_LIST];
    int nf = 0, np = 0, ns = 0;
    bool force = false, no_plugins = false;
    const arg_opt opts[] = {
        {"--help", "-h", ARG_HELP, NULL, NULL, NULL},
        {"--force", NULL, ARG_SET, &force, NULL, NULL},
        {"--no-plugins", NULL, ARG_SET, &no_plugins, NULL, NULL},
        {"--set", NULL, ARG_LIST, sets, &ns, NULL},
        {"--policy-plugin", NULL, ARG_LIST, plugins, &np, NULL},
    };
    for (; a.i < argc; a.i++) {
        const char *arg = argv[a.i];
        int rc = args_option(&a, opts, sizeof opts / sizeof *opts);
        if (rc == 0)
            continue;
        if (rc != 1)
            return rc == -1 ? EXIT_OK : rc;
        if (arg[0] == '-' && arg[1] != '\0')
            return args_unknown_option(&a, arg);
        if (nf == CLI_MAX_LIST * 4)
            return args_usage_error(&a, "too many files");
        files[nf++] = arg;
    }
    if (nf == 0)
        return args_usage_error(&a, "no scenario file given");
    int rc = EXIT_OK;
    validate_opts vo = {plugins, no_plugins ? 0 : np, sets, ns,
                        force,   no_plugins};
    for (int i = 0; i < nf; i++)
        if (validate_one(files[i], &vo) != EXIT_OK)
            rc = EXIT_INPUT;
    return rc;
}
