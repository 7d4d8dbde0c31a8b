/*
 * compare_setup.c -- a comparison set up from its command line, what
 * `compare` and `merge` share: the arguments parsed, the plan
 * (reports/compare.h) built from them, the command saved in the output
 * directory and read back, and the outputs written.
 *
 * The plan: the scenario is loaded once per sweep point (the loader is in
 * scenarios/, which reports/ does not include), each policy entry's
 * parameters resolved as `run` does, every stack checked to build and no
 * run to be absurdly costly (run_cost.h).
 */
/* realpath */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "chain.h"
#include "compare_report.h"
#include "compare_risk.h"
#include "compare_setup.h"
#include "find.h"
#include "junit.h"
#include "outfile.h"
#include "params.h"
#include "run_cost.h"
#include "saved_command.h"
#include "scenario.h"
#include "units.h"

const char compare_usage[] =
    "Usage: stormbench compare SCENARIO [--policies A,B,...] [OPTIONS]\n"
    "\n"
    "Run several policies on the same seeds (paired: each seed gives every\n"
    "policy the same arrivals, service times and faults) and write a report\n"
    "with 95 % confidence intervals and a verdict per metric.  SCENARIO is a\n"
    "file or the name of a shipped scenario.\n"
    "\n"
    "Policies:\n"
    "  --policies A,B,...        the entries to compare (default: the\n"
    "                            scenario's own policy).  An entry is a stack\n"
    "                            with its own parameters, if any:\n"
    "                            exponential:jitter=full:base=10ms,\n"
    "                            exponential+token_bucket:token_bucket.max_tokens=5\n"
    "  --policy ENTRY            one more entry, taken whole (for values that\n"
    "                            hold commas); repeatable\n"
    "  --param [LAYER.]KEY=VALUE a parameter for every entry (repeatable)\n"
    "  --policy-plugin FILE.so   load a policy plug-in (repeatable)\n"
    "\n"
    "Runs:\n"
    "  --seeds N                 seeds per policy (default 10): the\n"
    "                            scenario's seed and the N-1 after it\n"
    "  --seed N                  the first seed\n"
    "  --set SECTION.KEY=VALUE   override a scenario key (repeatable)\n"
    "  --sweep KEY=FROM:TO:STEP  run the comparison at every value of a\n"
    "                            scenario key (clients.rate=50/s:150/s:10/s,\n"
    "                            fault.outage.duration=5s:60s:5s), a policy\n"
    "                            parameter (policy.max_attempts=1:6:1), or\n"
    "                            load, the offered load as a share of the\n"
    "                            server's capacity (load=0.5:1.2:0.05).\n"
    "                            Twice: a stability map per policy\n"
    "  -j, --jobs N              threads (default: the number of cores)\n"
    "  --force                   run even when one run's estimated cost is\n"
    "                            over the limits (see `stormbench run`), or\n"
    "                            when -o DIR holds another comparison\n"
    "  --hook-timeout DURATION   stop (exit status 3) when a plug-in\n"
    "                            policy's hook has not returned within\n"
    "                            DURATION of wall time; a plug-in that\n"
    "                            crashes stops the comparison the same way\n"
    "\n"
    "Outputs, in DIR (default out/compare-NAME), each written whole:\n"
    "  -o, --out DIR             report.pdf, report.html, summary.md,\n"
    "                            summary.json, runs.csv; every finished run\n"
    "                            is saved at once in DIR/runs/, so the same\n"
    "                            command again (after Ctrl-C, a crash)\n"
    "                            runs only what is missing\n"
    "  --no-report               skip report.pdf and report.html\n"
    "  --junit FILE              the scenario's [expect] assertions as JUnit\n"
    "                            XML: a test suite per policy (and sweep\n"
    "                            point), a case per assertion, failed when\n"
    "                            any seed's run fails it (which seeds is\n"
    "                            said); the exit status does not change\n"
    "  -q, --quiet               no progress, no verdicts on stdout\n"
    "\n"
    "The probability of a storm (as `stormbench risk`), per policy:\n"
    "  --risk                    estimate each policy's P(storm within the\n"
    "                            horizon) at every point, on the same seeds\n"
    "                            for every policy; it joins the tables, the\n"
    "                            verdicts, summary.json and the report (a\n"
    "                            map of it per policy on a two-key sweep)\n"
    "  --horizon DURATION        each risk run's length (default 1h)\n"
    "  --storm-window DURATION   no recovery this long after the trigger is\n"
    "                            gone is a storm (default 5m)\n"
    "  --risk-runs N             runs per estimate at most (default 400);\n"
    "                            an estimate stops earlier once its\n"
    "                            interval is within 20 % of it\n"
    "  --risk-pilot-runs N       the pilot's runs per stage, which place\n"
    "                            splitting's levels or choose plain runs\n"
    "                            (default 200; at least 10)\n"
    "\n"
    "Many machines:\n"
    "  --emit-jobs FILE          write one command per run to FILE (for GNU\n"
    "                            parallel or a job array) instead of\n"
    "                            running; then `stormbench merge DIR...`.\n"
    "                            With --risk, one more per estimate of\n"
    "                            risk (a policy at a sweep point)\n"
    "  --run K                   run only job K of the plan (what an\n"
    "                            emitted line does); repeatable.  Jobs\n"
    "                            0 to N-1 are the N runs; with --risk, the\n"
    "                            jobs after them its estimates of risk\n"
    "\n"
    "Exit status: 0 done, 2 bad input or a run that failed, 3 a plug-in\n"
    "crashed or hung, 130 stopped by\n"
    "Ctrl-C (what finished is saved: run the command again to resume).\n";

/* ---- The command line ------------------------------------------------------ */

static int add_entries(args *a, compare_args *o, const char *list)
{
    if (o->n_owned == CLI_MAX_LIST)
        return args_usage_error(a, "too many --policies options");
    char *copy = strdup(list);
    if (copy == NULL)
        return args_usage_error(a, "out of memory");
    o->owned[o->n_owned++] = copy; /* entries point into it */
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        if (o->n_entries == COMPARE_MAX_POLICIES)
            return args_usage_error(a, "at most %d policies",
                                    COMPARE_MAX_POLICIES);
        o->entries[o->n_entries++] = t;
    }
    return 0;
}

static int parse_compare_one(args *a, compare_args *o)
{
    const arg_opt opts[] = {
        {"--help", "-h", ARG_HELP, NULL, NULL, NULL},
        {"--quiet", "-q", ARG_SET, &o->quiet, NULL, NULL},
        {"--no-report", NULL, ARG_SET, &o->no_report, NULL, NULL},
        {"--force", NULL, ARG_SET, &o->force, NULL, NULL},
        {"--risk", NULL, ARG_SET, &o->risk, NULL, NULL},
        {"--hook-timeout", NULL, ARG_WALLTIME, &o->hook_timeout_ns, NULL,
         &o->hook_timeout},
        {"--set", NULL, ARG_LIST, o->sets, &o->n_sets, NULL},
        {"--policy-plugin", NULL, ARG_LIST, o->plugins, &o->n_plugins, NULL},
        {"--param", NULL, ARG_PARAM, o->params, &o->n_params, NULL},
        {"--seeds", NULL, ARG_VALUE, &o->seeds, NULL, NULL},
        {"--seed", NULL, ARG_VALUE, &o->seed, NULL, NULL},
        {"--jobs", "-j", ARG_VALUE, &o->jobs, NULL, NULL},
        {"--out", "-o", ARG_VALUE, &o->out, NULL, NULL},
        {"--emit-jobs", NULL, ARG_VALUE, &o->emit, NULL, NULL},
        {"--junit", NULL, ARG_VALUE, &o->junit, NULL, NULL},
    };
    if (args_is(a, "--policies")) {
        const char *v = args_value(a, "--policies");
        return v ? add_entries(a, o, v) : EXIT_INPUT;
    }
    if (args_is(a, "--policy")) {
        const char *v = args_value(a, "--policy");
        if (v == NULL)
            return EXIT_INPUT;
        if (o->n_entries == COMPARE_MAX_POLICIES)
            return args_usage_error(a, "at most %d policies",
                                    COMPARE_MAX_POLICIES);
        o->entries[o->n_entries++] = v;
        return 0;
    }
    if (args_is(a, "--horizon"))
        return args_positive_duration(a, "--horizon", &o->horizon_ns);
    if (args_is(a, "--storm-window"))
        return args_positive_duration(a, "--storm-window", &o->storm_window_ns);
    if (args_is(a, "--risk-runs")) {
        const char *v = args_value(a, "--risk-runs");
        sb_err e;
        if (v == NULL)
            return EXIT_INPUT;
        if (units_int(v, &o->risk_runs, &e) != 0 || o->risk_runs < 1 ||
            o->risk_runs > 100000000)
            return args_usage_error(a,
                                    "--risk-runs: expected a whole "
                                    "number from 1 to 100000000, got '%s'",
                                    v);
        return 0;
    }
    if (args_is(a, "--risk-pilot-runs")) {
        const char *v = args_value(a, "--risk-pilot-runs");
        sb_err e;
        if (v == NULL)
            return EXIT_INPUT;
        if (units_int(v, &o->risk_pilot_runs, &e) != 0 ||
            o->risk_pilot_runs < 10 || o->risk_pilot_runs > 1000000)
            return args_usage_error(a,
                                    "--risk-pilot-runs: expected a whole "
                                    "number from 10 to 1000000, got '%s'",
                                    v);
        return 0;
    }
    if (args_is(a, "--sweep")) {
        const char *v = args_value(a, "--sweep");
        if (v == NULL)
            return EXIT_INPUT;
        if (o->n_sweeps == COMPARE_MAX_AXES)
            return args_usage_error(a,
                                    "at most %d sweeps (two make a "
                                    "stability map)",
                                    COMPARE_MAX_AXES);
        o->sweeps[o->n_sweeps++] = v;
        return 0;
    }
    if (args_is(a, "--run")) {
        const char *v = args_value(a, "--run");
        if (v == NULL)
            return EXIT_INPUT;
        if (o->n_runs == MAX_RUN_ARGS)
            return args_usage_error(a, "at most %d --run options",
                                    MAX_RUN_ARGS);
        return args_u32(a, "--run", v, 0, UINT32_MAX - 1,
                        &o->runs[o->n_runs++]);
    }
    int rc = args_option(a, opts, sizeof opts / sizeof *opts);
    if (rc != 1)
        return rc;
    return args_scenario(a, a->argv[a->i], &o->scenario);
}

int compare_setup_parse(int argc, char **argv, compare_args *o)
{
    args a = {argc, argv, 1, "compare", compare_usage};
    for (; a.i < argc; a.i++) {
        int rc = parse_compare_one(&a, o);
        if (rc != 0)
            return rc;
    }
    if (o->scenario == NULL)
        return args_usage_error(&a, "no scenario given");
    if (!o->risk && (o->horizon_ns || o->storm_window_ns || o->risk_runs ||
                     o->risk_pilot_runs))
        return args_usage_error(&a, "--horizon, --storm-window, --risk-runs "
                                    "and --risk-pilot-runs are for --risk");
    return 0;
}

/* ---- Policy entries ---------------------------------------------------------- */

/* "stack[:key=value]..." into p, with the parameters `run` would give the
 * stack: the scenario's [policy] settings when it is the scenario's own
 * stack, then the entry's, then every --param. */
static int parse_entry(const char *text, const scenario *sc,
                       const compare_args *o, const char (*plugin_paths)[1024],
                       int n_plugins, compare_policy *p, sb_err *e)
{
    memset(p, 0, sizeof *p);
    if (strlen(text) >= sizeof p->label)
        return err_set(e, "policy entry '%.40s...' is too long", text);
    snprintf(p->label, sizeof p->label, "%s", text);
    char copy[sizeof p->label];
    snprintf(copy, sizeof copy, "%s", text);
    char *save = NULL, *stack = strtok_r(copy, ":", &save);
    if (stack == NULL || *stack == '\0' || text[0] == ':')
        return err_set(e,
                       "policy entry '%s': expected a policy name first, "
                       "as in exponential:jitter=full",
                       text);
    snprintf(p->stack, sizeof p->stack, "%s", stack);
    /* The entry's own parameters, then --param: they come after the
     * file's, so the note leaves out a key they set again. */
    char origin[256];
    snprintf(origin, sizeof origin, "--policies entry '%s':", text);
    setting later[COMPARE_MAX_PARAMS];
    int n_later = 0;
    sb_err bad = {{0}};
    for (char *kv = strtok_r(NULL, ":", &save); kv && !bad.msg[0];
         kv = strtok_r(NULL, ":", &save)) {
        if (n_later == COMPARE_MAX_PARAMS)
            err_set(&bad, "policy entry '%s': at most %d parameters", text,
                    COMPARE_MAX_PARAMS);
        else if (setting_parse(kv, origin, &later[n_later], &bad) == 0)
            n_later++;
    }
    int n_own = n_later;
    for (int i = 0; i < o->n_params && n_later < COMPARE_MAX_PARAMS; i++)
        later[n_later++] = o->params[i];
    /* The file's [policy] parameters: all of them for the file's own
     * stack, else those this stack's layers also have (as run --policy
     * does, so the comparison stays like for like). */
    const char *plugins[COMPARE_MAX_PLUGINS];
    for (int i = 0; i < n_plugins; i++)
        plugins[i] = plugin_paths[i];
    setting from_file[PSTACK_MAX_SETTINGS];
    int n_file = 0;
    char note[1024];
    if (cli_scenario_params(sc, stack, plugins, n_plugins, later, n_later,
                            from_file, &n_file, note, sizeof note, e) != 0)
        return err_prefix(e, "policy entry '%s'", text);
    if (note[0] && !o->quiet)
        fprintf(stderr, "stormbench compare: note: %s\n", note);
    if (bad.msg[0]) {
        *e = bad;
        return -1;
    }
    if (n_file > COMPARE_MAX_PARAMS)
        return err_set(e, "policy entry '%s': at most %d parameters", text,
                       COMPARE_MAX_PARAMS);
    for (int i = 0; i < n_file; i++)
        p->params[p->n_params++] = from_file[i];
    for (int i = 0; i < n_own; i++) {
        if (p->n_params == COMPARE_MAX_PARAMS)
            return err_set(e, "policy entry '%s': at most %d parameters", text,
                           COMPARE_MAX_PARAMS);
        p->params[p->n_params++] = later[i];
    }
    for (int i = 0; i < o->n_params; i++) {
        if (p->n_params == COMPARE_MAX_PARAMS)
            return err_set(e,
                           "policy entry '%s': at most %d parameters, "
                           "--param ones included",
                           text, COMPARE_MAX_PARAMS);
        p->params[p->n_params++] = o->params[i];
    }
    return 0;
}

/* ---- Sweeps ------------------------------------------------------------------ */

/* A number with a unit after it ("150/s", "2.5s", "0.8"): the number, the
 * unit, and the digits written after the point. */
static int number_unit(const char *s, double *v, char *unit, size_t len,
                       int *decimals)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    if (end == s || errno || !isfinite(*v))
        return -1;
    const char *dot = memchr(s, '.', (size_t)(end - s));
    *decimals = dot ? (int)(end - dot - 1) : 0;
    if (strlen(end) >= len)
        return -1;
    snprintf(unit, len, "%s", end);
    return 0;
}

static int parse_sweep(const char *spec, compare_axis *ax, int *decimals,
                       sb_err *e)
{
    memset(ax, 0, sizeof *ax);
    const char *eq = strchr(spec, '=');
    if (eq == NULL || eq == spec || (size_t)(eq - spec) >= sizeof ax->key)
        return err_set(e,
                       "--sweep %s: expected KEY=FROM:TO:STEP, such as "
                       "clients.rate=50/s:150/s:10/s",
                       spec);
    memcpy(ax->key, spec, (size_t)(eq - spec));
    if (strcmp(ax->key, "load") != 0 && strchr(ax->key, '.') == NULL)
        return err_set(e,
                       "--sweep %s: the key '%s' is not SECTION.KEY "
                       "(clients.rate), policy.PARAMETER or load",
                       spec, ax->key);
    ax->policy_param = strncmp(ax->key, "policy.", 7) == 0;
    char parts[3][64];
    const char *p = eq + 1;
    for (int i = 0; i < 3; i++) {
        const char *c = i < 2 ? strchr(p, ':') : p + strlen(p);
        if (c == NULL || c == p || (size_t)(c - p) >= sizeof parts[i])
            return err_set(e,
                           "--sweep %s: expected KEY=FROM:TO:STEP, such "
                           "as clients.rate=50/s:150/s:10/s",
                           spec);
        memcpy(parts[i], p, (size_t)(c - p));
        parts[i][c - p] = '\0';
        p = c + 1;
    }
    if (strchr(parts[2], ':'))
        return err_set(e,
                       "--sweep %s: expected KEY=FROM:TO:STEP (three "
                       "values)",
                       spec);
    double v[3];
    char units[3][16];
    int dec[3];
    static const char *const what[] = {"FROM", "TO", "STEP"};
    for (int i = 0; i < 3; i++)
        if (number_unit(parts[i], &v[i], units[i], sizeof units[i], &dec[i]) !=
            0)
            return err_set(e,
                           "--sweep %s: %s '%s' is not a number (with "
                           "its unit, as in 50/s or 2.5s)",
                           spec, what[i], parts[i]);
    for (int i = 1; i < 3; i++)
        if (strcmp(units[i], units[0]) != 0 && !(i == 2 && !*units[2]))
            return err_set(e,
                           "--sweep %s: FROM, TO and STEP must have the "
                           "same unit ('%s' and '%s')",
                           spec, units[0], units[i]);
    if (!(v[2] > 0))
        return err_set(e, "--sweep %s: STEP must be above 0", spec);
    if (v[1] < v[0])
        return err_set(e, "--sweep %s: TO is below FROM", spec);
    double n = floor((v[1] - v[0]) / v[2] + 1e-9) + 1;
    if (n > 1000)
        return err_set(e, "--sweep %s: %.0f values; at most 1000", spec, n);
    ax->from = v[0];
    ax->to = v[1];
    ax->step = v[2];
    ax->n = (uint32_t)n;
    snprintf(ax->unit, sizeof ax->unit, "%s", units[0]);
    *decimals = dec[0] > dec[2] ? dec[0] : dec[2];
    return 0;
}

/* Axis value i as the scenario would read it: "0.30/s", not 0.3000001. */
static void axis_text(const compare_axis *ax, int decimals, uint32_t i,
                      char *buf, size_t len)
{
    snprintf(buf, len, "%.*f%s", decimals, compare_axis_value(ax, i), ax->unit);
}

/* The scenario with the sets, --seed and `extra` sets applied. */
static int load_with(compare_setup *s, const char *const *extra, int n_extra,
                     scenario *out, sb_err *e)
{
    const char *sets[CLI_MAX_LIST + COMPARE_MAX_AXES + 2];
    int n = 0;
    for (int i = 0; i < s->o.n_sets; i++)
        sets[n++] = s->o.sets[i];
    if (s->o.seed) {
        snprintf(s->seed_set, sizeof s->seed_set, "scenario.seed=%s",
                 s->o.seed);
        sets[n++] = s->seed_set;
    }
    for (int i = 0; i < n_extra; i++)
        sets[n++] = extra[i];
    return scenario_load(s->path, sets, n, out, e);
}

/* The server's capacity in requests/s (workers / mean service time), for
 * the `load` axis. */
static int capacity_per_s(const sim_config *c, double *out, sb_err *e)
{
    double mean_s = units_dist_mean(&c->server.service) / 1e9;
    if (c->server.workers == SIM_UNLIMITED || !(mean_s > 0))
        return err_set(e, "--sweep load: the server has no finite capacity "
                          "(unlimited workers or zero service time); sweep "
                          "clients.rate instead");
    if (c->clients.arrival != ARRIVAL_OPEN)
        return err_set(e, "--sweep load: sets each client's open-loop rate; "
                          "the scenario's arrival is not open");
    *out = (double)c->server.workers / mean_s;
    return 0;
}

static int load_point(compare_setup *s, uint32_t k, sb_err *e)
{
    compare_plan *p = &s->plan;
    compare_point *pt = &p->points[k];
    char text[COMPARE_MAX_AXES][160];
    const char *extra[COMPARE_MAX_AXES] = {NULL};
    int n_extra = 0, load_axis = -1;
    uint32_t rest = k;
    for (int a = 0; a < p->n_axes; a++) {
        const compare_axis *ax = &p->axes[a];
        pt->index[a] = rest % ax->n;
        rest /= ax->n;
        char v[64];
        axis_text(ax, s->decimals[a], pt->index[a], v, sizeof v);
        /* The value as typed, the one the scenario reads: 0.85, not
         * from + 7 x step = 0.85000000000000009. */
        pt->value[a] = strtod(v, NULL);
        if (ax->policy_param) {
            setting *st = &pt->policy_sets[pt->n_policy_sets++];
            snprintf(st->key, sizeof st->key, "%s", ax->key + 7);
            snprintf(st->value, sizeof st->value, "%s", v);
            snprintf(st->origin, sizeof st->origin,
                     "--sweep %s:", s->o.sweeps[a]);
        } else if (strcmp(ax->key, "load") == 0) {
            load_axis = a;
        } else {
            snprintf(text[n_extra], sizeof text[n_extra], "%s=%s", ax->key, v);
            extra[n_extra] = text[n_extra];
            n_extra++;
        }
    }
    pt->n_scenario_sets = 0;
    for (int i = 0; i < n_extra; i++)
        snprintf(pt->scenario_sets[pt->n_scenario_sets++],
                 sizeof pt->scenario_sets[0], "%s", extra[i]);
    if (load_with(s, extra, n_extra, s->tmp, e) != 0)
        return -1;
    if (load_axis >= 0) {
        double cap;
        if (capacity_per_s(&s->tmp->cfg, &cap, e) != 0)
            return -1;
        double rate =
            pt->value[load_axis] * cap / (double)s->tmp->cfg.clients.count;
        snprintf(text[n_extra], sizeof text[n_extra], "clients.rate=%.12g/s",
                 rate);
        extra[n_extra] = text[n_extra];
        if (load_with(s, extra, n_extra + 1, s->tmp, e) != 0)
            return -1;
        snprintf(pt->scenario_sets[pt->n_scenario_sets++],
                 sizeof pt->scenario_sets[0], "%s", extra[n_extra]);
    }
    pt->cfg = s->tmp->cfg;
    return 0;
}

/* Every stack builds with its parameters (and a policy sweep's values),
 * and one run of it is not absurdly costly, at the first and the last
 * point of the sweep. */
static int check_policies(compare_setup *s, sb_err *e)
{
    compare_plan *p = &s->plan;
    const char *plugins[COMPARE_MAX_PLUGINS];
    for (int i = 0; i < p->n_plugins; i++)
        plugins[i] = p->plugins[i];
    uint32_t ends[2] = {0, p->n_points - 1};
    for (int k = 0; k < (p->n_points > 1 ? 2 : 1); k++) {
        const compare_point *pt = &p->points[ends[k]];
        for (int i = 0; i < p->n_policies; i++) {
            const compare_policy *cp = &p->policies[i];
            setting all[COMPARE_MAX_PARAMS + COMPARE_MAX_AXES];
            int n = 0;
            for (int j = 0; j < cp->n_params; j++)
                all[n++] = cp->params[j];
            for (int j = 0; j < pt->n_policy_sets; j++)
                all[n++] = pt->policy_sets[j];
            policy_setup ps;
            char origin[256];
            snprintf(origin, sizeof origin, "--policies entry '%s'", cp->label);
            if (policy_setup_build_at(cp->stack, origin, plugins, p->n_plugins,
                                      all, n, &ps, e) != 0)
                return -1;
            budget_cost b;
            int rc = run_cost_gate(s->path, &pt->cfg, ps.stack, s->o.force,
                                   false, &b, e);
            policy_setup_free(&ps);
            if (rc < 0)
                return err_set(e, "policy '%s'%s: %s", cp->label,
                               p->n_points > 1 ? " at a sweep's end" : "",
                               e->msg);
            if (rc > 0 && !s->o.quiet)
                fprintf(stderr,
                        "stormbench compare: warning: policy '%s': "
                        "%s; running anyway (--force)\n",
                        cp->label, e->msg);
        }
    }
    return 0;
}

/* What makes the runs: the file's bytes and every option that changes a
 * run (the plan itself adds policies, axes and seeds). */
static int fingerprint(compare_setup *s, sb_err *e)
{
    FILE *f = fopen(s->path, "rb");
    if (f == NULL)
        return err_set(e, "%s: %s", s->path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            char *more = realloc(buf, cap * 2);
            if (more == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = more;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf == NULL)
        return err_set(e, "out of memory");
    for (int i = 0; i < s->o.n_sets + 1; i++) {
        const char *t = i < s->o.n_sets ? s->o.sets[i] : s->seed_set;
        size_t n = strlen(t) + 1;
        if (len + n > cap) {
            char *more = realloc(buf, len + n);
            if (more == NULL) {
                free(buf);
                return err_set(e, "out of memory");
            }
            buf = more;
            cap = len + n;
        }
        memcpy(buf + len, t, n);
        len += n;
    }
    compare_plan_fingerprint(&s->plan, buf, len);
    free(buf);
    return 0;
}

static void warn_scenario(const compare_setup *s)
{
    if (s->o.quiet)
        return;
    for (const char *p = s->sc->warnings; *p;) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(stderr, "stormbench compare: warning: %s: %.*s\n", s->path, len,
                p);
        p += len + (nl != NULL);
    }
}

int compare_setup_build(compare_setup *s, sb_err *e)
{
    compare_plan *p = &s->plan;
    if (cli_find_scenario(s->o.scenario, s->path, sizeof s->path, e) != 0 ||
        load_with(s, NULL, 0, s->sc, e) != 0)
        return -1;
    warn_scenario(s);
    snprintf(p->scenario, sizeof p->scenario, "%s", s->path);
    snprintf(p->name, sizeof p->name, "%s", s->sc->cfg.name);
    snprintf(p->description, sizeof p->description, "%s",
             s->sc->cfg.description);
    /* Plug-ins: the scenario's, then --policy-plugin. */
    for (int i = 0; i < s->sc->n_plugins + s->o.n_plugins; i++) {
        if (p->n_plugins == COMPARE_MAX_PLUGINS)
            return err_set(e, "at most %d plug-ins", COMPARE_MAX_PLUGINS);
        const char *f = i < s->sc->n_plugins
                            ? s->sc->plugins[i]
                            : s->o.plugins[i - s->sc->n_plugins];
        snprintf(p->plugins[p->n_plugins++], sizeof p->plugins[0], "%s", f);
    }
    /* Policies: the scenario's own when none is named. */
    const char *own = s->sc->policy;
    int n = s->o.n_entries ? s->o.n_entries : 1;
    for (int i = 0; i < n; i++) {
        const char *text = s->o.n_entries ? s->o.entries[i] : own;
        if (parse_entry(text, s->sc, &s->o, p->plugins, p->n_plugins,
                        &p->policies[i], e) != 0)
            return -1;
        for (int j = 0; j < i; j++)
            if (strcmp(p->policies[j].label, p->policies[i].label) == 0)
                return err_set(e, "policy '%s' is named twice", text);
    }
    p->n_policies = n;
    /* Seeds. */
    p->seed0 = s->sc->cfg.seed;
    p->n_seeds = 10;
    if (s->o.seeds) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s->o.seeds, &end, 10);
        if (*s->o.seeds == '\0' || *s->o.seeds == '-' || *end || errno ||
            v < 1 || v > COMPARE_MAX_SEEDS)
            return err_set(e,
                           "--seeds: expected a whole number from 1 to "
                           "%d, got '%s'",
                           COMPARE_MAX_SEEDS, s->o.seeds);
        p->n_seeds = (uint32_t)v;
    }
    if (p->seed0 > UINT64_MAX - p->n_seeds)
        return err_set(e, "--seed: %llu leaves no room for %u seeds after it",
                       (unsigned long long)p->seed0, p->n_seeds);
    /* Sweeps and their points. */
    uint64_t points = 1;
    for (int a = 0; a < s->o.n_sweeps; a++) {
        if (parse_sweep(s->o.sweeps[a], &p->axes[a], &s->decimals[a], e) != 0)
            return -1;
        for (int b = 0; b < a; b++)
            if (strcmp(p->axes[a].key, p->axes[b].key) == 0)
                return err_set(e, "--sweep %s: the same key twice",
                               p->axes[a].key);
        points *= p->axes[a].n;
    }
    p->n_axes = s->o.n_sweeps;
    if (points > COMPARE_MAX_POINTS)
        return err_set(e, "the sweeps make %llu points; at most %d",
                       (unsigned long long)points, COMPARE_MAX_POINTS);
    p->n_points = (uint32_t)points;
    p->points = calloc(p->n_points, sizeof *p->points);
    if (p->points == NULL)
        return err_set(e, "out of memory");
    for (uint32_t k = 0; k < p->n_points; k++)
        if (load_point(s, k, e) != 0)
            return -1;
    if ((uint64_t)p->n_points * (uint64_t)p->n_policies * p->n_seeds >
        UINT32_MAX - 1)
        return err_set(e,
                       "too many runs: %u points x %d policies x %u "
                       "seeds",
                       p->n_points, p->n_policies, p->n_seeds);
    if (check_policies(s, e) != 0)
        return -1;
    return fingerprint(s, e);
}

void compare_setup_destroy(compare_setup *s)
{
    if (s == NULL)
        return;
    free(s->plan.points);
    free(s->sc);
    free(s->tmp);
    for (int i = 0; i < s->o.n_owned; i++)
        free(s->o.owned[i]);
    free(s);
}

compare_setup *compare_setup_create(void)
{
    compare_setup *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->sc = calloc(1, sizeof *s->sc);
    s->tmp = calloc(1, sizeof *s->tmp);
    if (s->sc && s->tmp)
        return s;
    compare_setup_destroy(s);
    return NULL;
}

/* ---- The saved command, emitted jobs -------------------------------------------
 *
 * DIR/command holds what `merge` needs to rebuild the plan: the directory
 * the command was run in, then its arguments one per line (the options
 * that only say how to run -- --run, --emit-jobs, -j, -q -- left out). */

#define COMMAND_MAGIC "stormbench-compare-command 1"

/* Options that take a value and do not change the plan. */
bool compare_setup_run_only(const char *arg, bool *takes_value)
{
    static const char *const with[] = {
        "--run", "--emit-jobs", "-j", "--jobs", "-o", "--out", "--junit"};
    static const char *const without[] = {"-q", "--quiet", "--no-report"};
    for (size_t i = 0; i < sizeof with / sizeof *with; i++) {
        size_t n = strlen(with[i]);
        if (strncmp(arg, with[i], n) == 0 &&
            (arg[n] == '\0' || arg[n] == '=')) {
            *takes_value = arg[n] == '\0';
            return true;
        }
    }
    for (size_t i = 0; i < sizeof without / sizeof *without; i++)
        if (strcmp(arg, without[i]) == 0) {
            *takes_value = false;
            return true;
        }
    return false;
}

int compare_setup_save(const char *dir, int argc, char **argv, sb_err *e)
{
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL)
        return err_set(e, "cannot tell the current directory: %s",
                       strerror(errno));
    return saved_command_write(dir, COMMAND_MAGIC, cwd, argc, argv,
                               compare_setup_run_only, e);
}

int compare_setup_read_saved(const char *dir, char **buf, char ***argv_out,
                             int *argc_out, char *cwd, size_t cwd_len,
                             sb_err *e)
{
    return saved_command_read(dir, COMMAND_MAGIC, "compare", buf, argv_out,
                              argc_out, cwd, cwd_len, e);
}

/* ---- compare --risk ---------------------------------------------------------- */

compare_risk_opts compare_setup_risk_opts(const compare_setup *s, uint32_t jobs)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    compare_risk_opts o = {
        s->o.horizon_ns ? s->o.horizon_ns : (int64_t)3600 * 1000000000,
        s->o.storm_window_ns ? s->o.storm_window_ns : (int64_t)300 * 1000000000,
        {RISK_AUTO, 0.95, 0.2, s->o.risk_runs ? (uint64_t)s->o.risk_runs : 400,
         0,
         jobs       ? (int)jobs
         : cpus > 0 ? (int)cpus
                    : 1,
         RISK_IMP_QUEUE, (uint32_t)s->o.risk_pilot_runs, NULL, NULL, NULL,
         NULL}};
    return o;
}

/* ---- Outputs -------------------------------------------------------------------- */

static int print_verdicts(const compare_result *r)
{
    const compare_plan *p = r->plan;
    printf("%s: %d %s x %u seed%s", p->name, p->n_policies,
           p->n_policies == 1 ? "policy" : "policies", p->n_seeds,
           p->n_seeds == 1 ? "" : "s");
    if (p->n_points > 1)
        printf(" x %u sweep points", p->n_points);
    printf(" (%u run%s)\n", compare_n_runs(p),
           compare_n_runs(p) == 1 ? "" : "s");
    if (p->n_points > 1 || p->n_policies < 2)
        return 0;
    compare_bottom b;
    compare_bottom_line(r, 0, &b);
    printf("\n%s\n\n", b.text);
    for (int m = 0; m < CM_COUNT; m++)
        if (compare_metric_shown(p, (compare_metric)m))
            printf("  %-18s %s\n", compare_metrics[m].name, r->verdict[m].text);
    if (r->risk) {
        char text[1300];
        if (compare_risk_verdict(r, 0, NULL, text, sizeof text) != 0)
            return -1;
        printf("  %-18s %s\n", "risk of a storm", text);
    }
    return 0;
}

int compare_setup_write(const compare_result *r, const char *const *dirs,
                        int n_dirs, const char *out, bool report, bool quiet,
                        sb_err *e)
{
    char path[PATH_MAX + 32];
    static const struct {
        const char *file;
        int (*write)(const compare_result *, const char *, sb_err *);
    } tables[] = {{"runs.csv", compare_write_csv},
                  {"summary.md", compare_write_md},
                  {"summary.json", compare_write_json}};
    /* The risk verdicts' Holm adjustment can lose an allocation: tried
     * once before any file is written, so that failure leaves none. */
    for (uint32_t pt = 0; r->risk && pt < r->plan->n_points; pt++) {
        char text[1300];
        if (compare_risk_verdict(r, pt, NULL, text, sizeof text) != 0)
            return err_set(e, "out of memory computing the statistics");
    }
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        snprintf(path, sizeof path, "%s/%s", out, tables[i].file);
        if (tables[i].write(r, path, e) != 0)
            return -1;
    }
    if (report) {
        char pdf[PATH_MAX + 32], html[PATH_MAX + 32];
        snprintf(pdf, sizeof pdf, "%s/report.pdf", out);
        snprintf(html, sizeof html, "%s/report.html", out);
        if (compare_report_write(r, dirs, n_dirs, pdf, html, e) != 0)
            return -1;
    }
    if (!quiet) {
        if (print_verdicts(r) != 0)
            return err_set(e, "out of memory computing the statistics");
        printf("\nwrote %s/{%sruns.csv,summary.md,summary.json}\n", out,
               report ? "report.pdf,report.html," : "");
    }
    return 0;
}

/* The scenario's [expect] as JUnit XML at path (junit.h).  A tier's
 * [expect.NAME] needs the run's tiers, which a saved run does not keep:
 * those are written as skipped, saying so, not left out. */
int compare_setup_junit(const compare_setup *s, const compare_result *r,
                        const char *path, sb_err *e)
{
    expect_set x;
    if (expect_parse(s->sc->expect, s->sc->n_expect, &x, e) != 0)
        return -1;
    static char names[CHAIN_MAX_EXPECT][SIM_NAME_MAX + 32];
    const char *skipped[CHAIN_MAX_EXPECT];
    int n = 0;
    const sim_config *c = &s->sc->cfg;
    for (uint32_t i = 0; i < c->n_tiers; i++)
        for (int k = 0; k < TIER_EXPECT_KINDS; k++)
            if (c->tiers[i].has_expect[k] && n < CHAIN_MAX_EXPECT) {
                snprintf(names[n], sizeof names[n], "%.*s.%s", SIM_NAME_MAX - 1,
                         c->tiers[i].name, chain_expect_key(k));
                skipped[n] = names[n];
                n++;
            }
    outfile f;
    if (outfile_open(&f, path, e) != 0)
        return -1;
    if (junit_compare(f.f, r, &x, skipped, n,
                      "a tier's [expect.NAME] is judged by `stormbench run`, "
                      "which keeps the tiers: compare saves the top's "
                      "summary only") != 0) {
        outfile_abort(&f);
        return err_set(e, "%s: out of memory", path);
    }
    return outfile_commit(&f, e);
}
