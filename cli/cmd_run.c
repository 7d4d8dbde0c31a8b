/*
 * cmd_run.c -- `stormbench run SCENARIO`: the headless run CI uses.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "chain.h"
#include "commands.h"
#include "export.h"
#include "find.h"
#include "guard.h"
#include "junit.h"
#include "outfile.h"
#include "params.h"
#include "policy_check.h"
#include "print.h"
#include "run_cost.h"
#include "scenario.h"
#include "sim.h"
#include "summary.h"
#include "trace.h"
#include "units.h"

static const char run_usage[] =
    "Usage: stormbench run SCENARIO [OPTIONS]\n"
    "\n"
    "Run a scenario headless: print a summary, write the outputs asked for,\n"
    "and check the scenario's [expect] section.  SCENARIO is a file, or\n"
    "the name of a shipped scenario (such as retry-storm).\n"
    "\n"
    "Policy:\n"
    "  --policy NAME[+NAME...]   the policy stack to run instead of the\n"
    "                            scenario's [policy] name; of the file's\n"
    "                            [policy] parameters it keeps those its\n"
    "                            layers also have (a note says which)\n"
    "  --param [LAYER.]KEY=VALUE set a policy parameter (repeatable)\n"
    "  --policy-plugin FILE.so   load a policy plug-in (repeatable)\n"
    "\n"
    "Scenario:\n"
    "  --set SECTION.KEY=VALUE   override any scenario key (repeatable),\n"
    "                            e.g. --set server.workers=80,\n"
    "                            --set fault.outage.duration=30s\n"
    "  --seed N                  the random seed (--set scenario.seed=N)\n"
    "  --hook-timeout DURATION   stop the run (exit status 3) when a policy\n"
    "                            plug-in's hook has not returned after this\n"
    "                            much wall time, e.g. 200ms or 5s (default:\n"
    "                            wait for ever)\n"
    "  --force                   run even when the estimated cost is over\n"
    "                            the limits (1e10 events, about an hour of\n"
    "                            CPU; 8 GB of memory), which otherwise\n"
    "                            refuse the run before it starts\n"
    "\n"
    "Outputs (written whole or not at all; missing directories are made):\n"
    "  --json FILE               the summary as JSON ('-': standard output)\n"
    "  --csv FILE                one row per metrics bucket\n"
    "  --trace FILE              JSON lines for sampled requests: every\n"
    "                            attempt, error class, decision and reason\n"
    "  --trace-sample N          trace 1 request in N (default 100)\n"
    "  --junit FILE              each [expect] assertion as a JUnit XML\n"
    "                            test case (Jenkins, GitLab, GitHub test\n"
    "                            reports); the summary is its system-out\n"
    "  --no-timing               write null for wall_s and events_per_s, and\n"
    "                            leave the wall time out of the summary, so\n"
    "                            two runs print the same bytes\n"
    "  --no-expect               do not check the scenario's [expect]\n"
    "                            section (it is still read for mistakes):\n"
    "                            for runs with another policy or other\n"
    "                            settings than the ones it was written for\n"
    "  -q, --quiet               print only failed expectations and errors\n"
    "\n"
    "Exit status: 0 every expectation holds, 1 one failed, 2 bad input or\n"
    "usage, or a run that could not finish (a policy broke its contract),\n"
    "3 a policy plug-in crashed in one of its hooks (SIGSEGV, SIGFPE,\n"
    "SIGBUS, SIGILL, SIGABRT) or hung past --hook-timeout: the message\n"
    "names the plug-in, the hook and the simulated time, and no output\n"
    "file is written.\n";

typedef struct run_opts {
    const char *scenario;
    const char *policy;
    const char *json, *csv, *trace, *junit;
    uint32_t trace_sample;
    bool quiet, timing, force, no_expect;
    const char *seed;
    int64_t hook_timeout_ns; /* 0: none */
    const char *hook_timeout;
    const char *sets[CLI_MAX_LIST];
    int n_sets;
    const char *plugins[CLI_MAX_LIST];
    int n_plugins;
    setting params[PSTACK_MAX_SETTINGS];
    int n_params;
} run_opts;

static int parse_sample(args *a, run_opts *o)
{
    const char *v = args_value(a, "--trace-sample");
    if (v == NULL)
        return EXIT_INPUT;
    char *end;
    long n = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0' || n < 1 || n > 1000000000)
        return args_usage_error(a,
                                "--trace-sample: expected a whole number "
                                "from 1 to 1000000000, got '%s'",
                                v);
    o->trace_sample = (uint32_t)n;
    return 0;
}

/* One option at a->i: 0, -1 after --help, or EXIT_INPUT. */
static int parse_one(args *a, run_opts *o)
{
    const arg_opt opts[] = {
        {"--help", "-h", ARG_HELP, NULL, NULL, NULL},
        {"--quiet", "-q", ARG_SET, &o->quiet, NULL, NULL},
        {"--no-timing", NULL, ARG_CLEAR, &o->timing, NULL, NULL},
        {"--force", NULL, ARG_SET, &o->force, NULL, NULL},
        {"--no-expect", NULL, ARG_SET, &o->no_expect, NULL, NULL},
        {"--set", NULL, ARG_LIST, o->sets, &o->n_sets, NULL},
        {"--policy-plugin", NULL, ARG_LIST, o->plugins, &o->n_plugins, NULL},
        {"--param", NULL, ARG_PARAM, o->params, &o->n_params, NULL},
        {"--hook-timeout", NULL, ARG_WALLTIME, &o->hook_timeout_ns, NULL,
         &o->hook_timeout},
        {"--policy", NULL, ARG_TEXT, &o->policy, NULL, NULL},
        {"--json", NULL, ARG_TEXT, &o->json, NULL, NULL},
        {"--csv", NULL, ARG_TEXT, &o->csv, NULL, NULL},
        {"--trace", NULL, ARG_TEXT, &o->trace, NULL, NULL},
        {"--seed", NULL, ARG_TEXT, &o->seed, NULL, NULL},
        {"--junit", NULL, ARG_TEXT, &o->junit, NULL, NULL},
    };
    if (args_is(a, "--trace-sample"))
        return parse_sample(a, o);
    int rc = args_option(a, opts, sizeof opts / sizeof *opts);
    if (rc != 1)
        return rc;
    return args_scenario(a, a->argv[a->i], &o->scenario);
}

static int parse_run(int argc, char **argv, run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->timing = true;
    o->trace_sample = 100;
    args a = {argc, argv, 1, "run", run_usage};
    for (; a.i < argc; a.i++) {
        int rc = parse_one(&a, o);
        if (rc != 0)
            return rc;
    }
    if (o->scenario == NULL)
        return args_usage_error(&a, "no scenario file given");
    return o->seed ? args_check_seed(&a, o->seed, NULL) : 0;
}

static double wall_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int load_scenario(const run_opts *o, scenario *sc, sb_err *e)
{
    const char *sets[CLI_MAX_LIST + 1];
    int n = o->n_sets;
    memcpy(sets, o->sets, (size_t)n * sizeof *sets);
    char seed[96];
    if (o->seed) {
        snprintf(seed, sizeof seed, "scenario.seed=%s", o->seed);
        sets[n++] = seed;
    }
    char path[1024];
    if (cli_find_scenario(o->scenario, path, sizeof path, e) != 0)
        return -1;
    return scenario_load(path, sets, n, sc, e);
}

/* The stack's parameters: the scenario's [policy] ones that apply to it
 * (all of them for the stack the file names; for another, those its
 * layers also have, said on stderr), then --param. */
static int build_policy(const run_opts *o, const scenario *sc, policy_setup *ps,
                        sb_err *e)
{
    const char *spec = o->policy ? o->policy : sc->policy;
    const char *plugins[SCENARIO_MAX_PLUGINS + CLI_MAX_LIST];
    int np = 0;
    for (int i = 0; i < sc->n_plugins; i++)
        plugins[np++] = sc->plugins[i];
    for (int i = 0; i < o->n_plugins; i++)
        plugins[np++] = o->plugins[i];
    setting settings[2 * PSTACK_MAX_SETTINGS];
    int n = 0;
    char note[1024];
    if (cli_scenario_params(sc, spec, plugins, np, o->params, o->n_params,
                            settings, &n, note, sizeof note, e) != 0) {
        /* The stack itself does not build: say so where it was named. */
        return policy_setup_build_at(spec,
                                     o->policy ? "--policy" : sc->policy_origin,
                                     plugins, np, NULL, 0, ps, e);
    }
    if (note[0] && !o->quiet)
        fprintf(stderr, "stormbench run: note: %s\n", note);
    for (int i = 0; i < o->n_params; i++)
        settings[n++] = o->params[i];
    return policy_setup_build_at(spec,
                                 o->policy ? "--policy" : sc->policy_origin,
                                 plugins, np, settings, n, ps, e);
}

typedef struct run_state {
    run_opts o;
    scenario sc;
    expect_set expect;
    policy_setup ps;
    sim *sim;
    outfile trace_out;
    trace_writer tw;
    sim_summary sum;
    expect_result res[EXPECT_KIND_COUNT + CHAIN_MAX_EXPECT];
    char tier_expect[CHAIN_MAX_EXPECT][SIM_NAME_MAX + 32]; /* their names */
    int n_res;
    double wall_s;
} run_state;

static int open_trace(run_state *r, sb_err *e)
{
    if (r->o.trace == NULL)
        return 0;
    if (outfile_open(&r->trace_out, r->o.trace, e) != 0)
        return -1;
    cli_guard_forget(r->trace_out.tmp);
    r->tw.f = r->trace_out.f;
    r->tw.stack = r->ps.stack;
    sim_observer obs = {&r->tw, NULL, trace_write, false};
    return sim_observe(r->sim, &obs);
}

/* The run, in slices of 1/200 of simulated time: a long run on a
 * terminal shows how far it is (stepping does not change the run: the
 * engine gives the same events in the same order however it is driven).
 * Nothing is shown for the first second (STORMBENCH_PROGRESS_AFTER, in
 * seconds, for tests), nor when stderr is not a terminal (CI logs) or
 * with -q. */
static int run_with_progress(run_state *r, double t0)
{
    int64_t end = r->sc.cfg.duration_ns;
    bool tty = !r->o.quiet && isatty(STDERR_FILENO);
    if (!tty)
        return sim_run_until(r->sim, end);
    int64_t slice = end / 200 > 0 ? end / 200 : end;
    double last = t0, after = 1.0;
    /* The tests show it at once. */
    const char *env = getenv("STORMBENCH_PROGRESS_AFTER");
    if (env && *env) {
        char *end_p;
        double v = strtod(env, &end_p);
        if (*end_p == '\0' && v >= 0)
            after = v;
    }
    bool shown = false;
    int rc = 0;
    for (int64_t t = 0; t < end && rc == 0;) {
        t = end - t > slice ? t + slice : end;
        rc = sim_run_until(r->sim, t);
        double now = wall_clock();
        if (now - t0 < after || (shown && now - last < 0.25))
            continue;
        last = now;
        double done = (double)t / (double)end;
        sim_stats st;
        sim_get_stats(r->sim, &st);
        fprintf(stderr,
                "\r  t = %.0f s of %.0f s (%.0f%%), %.2f M events/s, "
                "about %.0f s to go   ",
                (double)t / 1e9, (double)end / 1e9, 100.0 * done,
                (double)st.events / (now - t0) / 1e6,
                (now - t0) * (1.0 - done) / done);
        shown = true;
    }
    if (shown) /* leave the line clean for the summary */
        fprintf(stderr, "\r%*s\r", 78, "");
    return rc;
}

static int simulate(run_state *r, sb_err *e)
{
    r->sc.cfg.trace_sample = r->o.trace ? r->o.trace_sample : 0;
    if (sim_create(&r->sc.cfg, r->ps.stack, &r->sim, e) != 0)
        return -1;
    if (open_trace(r, e) != 0)
        return -1;
    double t0 = wall_clock();
    int rc = run_with_progress(r, t0);
    r->wall_s = wall_clock() - t0;
    if (rc != 0)
        return err_set(e, "the run stopped at t=%.3f s: %s",
                       (double)sim_now(r->sim) / 1e9, sim_error(r->sim));
    sim_finish(r->sim);
    summary_compute(r->sim, &r->sum);
    r->n_res = r->o.no_expect ? 0 : expect_eval(&r->expect, &r->sum, r->res);
    if (!r->o.no_expect)
        r->n_res +=
            chain_expect_eval(r->sim, r->res + r->n_res, r->tier_expect);
    return 0;
}

/* The summary as printed, for the JUnit file's system-out (malloc'd;
 * NULL when memory runs out, and the file has none). */
static char *summary_text(const run_state *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return NULL;
    print_summary(f, &r->sc.cfg, r->sc.path, r->ps.stack, &r->sum);
    chain_print(f, r->sim);
    print_expectations(f, r->res, r->n_res);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* One test suite: the run, with a case per assertion.  Its name says
 * what ran (scenario, policy, seed) so two runs of one scenario in one
 * CI job read apart. */
static int write_junit(const run_state *r, sb_err *e)
{
    junit_case cases[EXPECT_KIND_COUNT + CHAIN_MAX_EXPECT];
    static char detail[EXPECT_KIND_COUNT + CHAIN_MAX_EXPECT][512];
    for (int i = 0; i < r->n_res; i++)
        junit_case_of(&r->res[i], &cases[i], detail[i], sizeof detail[i]);
    char seed[32], clients[32], name[512], cls[256];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)r->sc.cfg.seed);
    snprintf(clients, sizeof clients, "%u", r->sc.cfg.clients.count);
    const char *policy = pstack_name(r->ps.stack);
    snprintf(name, sizeof name, "%s: %s, seed %s", r->sc.cfg.name, policy,
             seed);
    junit_classname(r->sc.cfg.name, policy, cls, sizeof cls);
    junit_prop props[] = {{"scenario", r->sc.cfg.name},
                          {"file", r->sc.path},
                          {"policy", policy},
                          {"seed", seed},
                          {"clients", clients}};
    char *out = summary_text(r);
    junit_suite suite = {name,
                         cls,
                         props,
                         (int)(sizeof props / sizeof *props),
                         cases,
                         r->n_res,
                         r->o.timing ? r->wall_s : -1,
                         out};
    outfile f;
    int rc = outfile_open(&f, r->o.junit, e);
    if (rc == 0) {
        junit_write(f.f, "stormbench run", &suite, 1);
        rc = outfile_commit(&f, e);
    }
    free(out);
    return rc;
}

static int write_outputs(run_state *r, sb_err *e)
{
    if (r->o.junit && write_junit(r, e) != 0)
        return -1;
    if (r->o.trace && outfile_commit(&r->trace_out, e) != 0)
        return -1;
    if (r->o.csv) {
        outfile out;
        if (outfile_open(&out, r->o.csv, e) != 0)
            return -1;
        if (chain_csv(out.f, r->sim) != 0) {
            outfile_abort(&out);
            return err_set(e, "%s: out of memory", r->o.csv);
        }
        if (outfile_commit(&out, e) != 0)
            return -1;
    }
    if (r->o.json) {
        outfile out;
        if (outfile_open(&out, r->o.json, e) != 0)
            return -1;
        run_meta meta = {r->sc.cfg.name,
                         r->sc.path,
                         pstack_name(r->ps.stack),
                         r->ps.stack,
                         (unsigned long long)r->sc.cfg.seed,
                         r->sc.cfg.clients.count,
                         r->o.timing,
                         r->wall_s,
                         chain_json,
                         r->sim};
        export_json(out.f, &meta, &r->sum, r->res, r->n_res);
        if (outfile_commit(&out, e) != 0)
            return -1;
    }
    return 0;
}

static void report(const run_state *r)
{
    FILE *f = r->o.json && strcmp(r->o.json, "-") == 0 ? stderr : stdout;
    if (!r->o.quiet) {
        print_summary(f, &r->sc.cfg, r->sc.path, r->ps.stack, &r->sum);
        chain_print(f, r->sim);
        print_expectations(f, r->res, r->n_res);
        /* --no-timing: nothing that differs between two runs. */
        if (r->o.timing)
            fprintf(f,
                    "\n%" PRIu64 " events in %.2f s of wall time (%.2f M "
                    "events/s)\n",
                    r->sum.events, r->wall_s,
                    r->wall_s > 0 ? (double)r->sum.events / r->wall_s / 1e6
                                  : 0);
        else
            fprintf(f, "\n%" PRIu64 " events\n", r->sum.events);
        return;
    }
    for (int i = 0; i < r->n_res; i++)
        if (!r->res[i].ok)
            fprintf(f, "FAIL  %s: %s\n", r->res[i].name, r->res[i].explain);
}

static void warnings(const run_state *r)
{
    if (r->o.quiet || r->sc.warnings[0] == '\0')
        return;
    const char *p = r->sc.warnings;
    while (*p) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(stderr, "stormbench run: warning: %s: %.*s\n", r->sc.path, len,
                p);
        p += len + (nl != NULL);
    }
}

/* Refuse a run whose estimated cost is absurd, before anything is
 * written; with --force, say what it will cost and go ahead. */
static int check_budget(const run_state *r, sb_err *e)
{
    budget_cost b;
    int rc = run_cost_gate(r->sc.path, &r->sc.cfg, r->ps.stack, r->o.force,
                           true, &b, e);
    if (rc > 0 && !r->o.quiet)
        fprintf(stderr,
                "stormbench run: warning: %s: %s; running anyway "
                "(--force)\n",
                r->sc.path, e->msg);
    return rc < 0 ? -1 : 0;
}

int cmd_run(int argc, char **argv)
{
    run_state *r = calloc(1, sizeof *r);
    if (r == NULL) {
        fprintf(stderr, "stormbench run: out of memory\n");
        return EXIT_INPUT;
    }
    int rc = parse_run(argc, argv, &r->o);
    if (rc != 0) {
        free(r);
        return rc < 0 ? EXIT_OK : rc;
    }
    sb_err e;
    rc = EXIT_INPUT;
    /* Before anything loads: a plug-in's create() may hang too. */
    if (r->o.hook_timeout_ns &&
        cli_guard_watch(r->o.hook_timeout_ns, r->o.hook_timeout, &e) != 0)
        goto fail;
    if (load_scenario(&r->o, &r->sc, &e) != 0 ||
        expect_parse(r->sc.expect, r->sc.n_expect, &r->expect, &e) != 0 ||
        build_policy(&r->o, &r->sc, &r->ps, &e) != 0)
        goto fail;
    warnings(r);
    char policy_warn[1024];
    if (!r->o.quiet &&
        policy_warnings(&r->sc, r->ps.stack, policy_warn, sizeof policy_warn))
        for (char *save = NULL, *l = strtok_r(policy_warn, "\n", &save); l;
             l = strtok_r(NULL, "\n", &save))
            fprintf(stderr, "stormbench run: warning: %s: %s\n", r->sc.path, l);
    if (check_budget(r, &e) != 0 || simulate(r, &e) != 0 ||
        write_outputs(r, &e) != 0)
        goto fail;
    report(r);
    rc = EXIT_OK;
    for (int i = 0; i < r->n_res; i++)
        if (!r->res[i].ok)
            rc = EXIT_EXPECT;
    goto done;
fail:
    fprintf(stderr, "stormbench run: %s\n", e.msg);
done:
    outfile_abort(&r->trace_out);
    sim_destroy(r->sim);
    policy_setup_free(&r->ps);
    free(r);
    return rc;
}
