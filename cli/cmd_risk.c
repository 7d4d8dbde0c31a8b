/*
 * cmd_risk.c -- `stormbench risk SCENARIO`: the probability that a run
 * tips into a storm within a horizon (reports/risk.h), printed in words a
 * team can read, and written to -o DIR as risk.json, risk.md and the first
 * storm found as a scenario that `run` and the GUI replay.
 */
/* realpath */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "find.h"
#include "json.h"
#include "outfile.h"
#include "params.h"
#include "print.h"
#include "risk.h"
#include "saved_command.h"
#include "scenario.h"
#include "units.h"
#include "writer.h"

static const char risk_usage[] =
    "Usage: stormbench risk SCENARIO [OPTIONS]\n"
    "\n"
    "Estimate the probability that a run of SCENARIO tips into a storm\n"
    "within a horizon: after the trigger is gone (no fault running),\n"
    "goodput does not come back within 10 % of its baseline for a\n"
    "recovery window, for --storm-window in a row -- what `run` calls\n"
    "metastable.  Each run is the scenario for the horizon with its own\n"
    "seed (the scenario's seed + the run's number); the estimate comes\n"
    "with a confidence interval and, as a rate, the chance of a storm in\n"
    "a day and in a year.\n"
    "\n"
    "Policy and scenario (as for run):\n"
    "  --policy NAME[+NAME...]   --param [LAYER.]KEY=VALUE\n"
    "  --policy-plugin FILE.so   --set SECTION.KEY=VALUE   --seed N\n"
    "\n"
    "Estimate:\n"
    "  --horizon DURATION        each run's length (default 1h)\n"
    "  --storm-window DURATION   no recovery this long after the trigger\n"
    "                            is gone is a storm (default 5m)\n"
    "  --storm-queue N           a storm is instead N attempts waiting in\n"
    "                            the server's queue at any moment after\n"
    "                            the warm-up (its max queue reaching N)\n"
    "  --target-rel-error X      stop when the interval's half-width is\n"
    "                            at most X of the estimate (default 0.2)\n"
    "  --confidence X            of the interval (default 0.95)\n"
    "  --max-runs N              stop after N runs whatever the error\n"
    "                            (default 2000)\n"
    "  --budget DURATION         stop after this much simulated time, all\n"
    "                            runs together (default: none)\n"
    "  --method auto|mc|split|restart|fixed-effort\n"
    "                            plain Monte Carlo, or multilevel\n"
    "                            splitting for rare storms (default auto;\n"
    "                            split is RESTART; fixed-effort runs 100\n"
    "                            runs a level, its interval over replicates)\n"
    "  --importance queue|amplification|timeouts|combined\n"
    "                            what splitting climbs towards a storm:\n"
    "                            attempts at the server (queued and in\n"
    "                            service; the default), attempts sent per\n"
    "                            request, the share of attempts timing out\n"
    "                            (both over the recovery window), or the\n"
    "                            queue times the attempts per request\n"
    "  -j N                      runs at once (default 1); the result does\n"
    "                            not depend on it\n"
    "\n"
    "Outputs:\n"
    "  -o DIR                    risk.json, risk.md and first-storm.ini\n"
    "                            (the first run that tipped, as a scenario\n"
    "                            `run` and `gui` replay)\n"
    "  -q, --quiet               print only errors\n"
    "\n"
    "On several machines (plain Monte Carlo only, --method mc):\n"
    "  --emit-jobs FILE          write one command per job of\n"
    "                            --runs-per-job runs (default 100) to FILE,\n"
    "                            --max-runs in all; run them anywhere, then\n"
    "                            `stormbench merge DIR...` makes the same\n"
    "                            estimate, to the byte, as one process\n"
    "  --part I                  run job I only (what an emitted line does)\n"
    "\n"
    "Exit status: 0 the estimate was made, 2 bad input or a run that\n"
    "could not finish.\n";

typedef struct risk_cli {
    const char *scenario, *policy, *seed, *out;
    const char *sets[CLI_MAX_LIST];
    int n_sets;
    const char *plugins[CLI_MAX_LIST];
    int n_plugins;
    setting params[PSTACK_MAX_SETTINGS];
    int n_params;
    int64_t horizon_ns, window_ns;
    uint32_t storm_queue; /* --storm-queue N; 0 for the goodput storm */
    risk_opts ro;
    bool quiet;
    /* plain Monte Carlo spread over machines */
    const char *emit; /* --emit-jobs FILE */
    int64_t per_job;  /* --runs-per-job */
    int64_t part;     /* --part I: this job only; -1 for none */
} risk_cli;

/* ---- Options ------------------------------------------------------------ */

/* --method: mc and split as the issue names them; plain and splitting as
 * the printout does; restart and fixed-effort for one estimator. */
static int opt_method(args *a, const char *name, const char *v, void *dest)
{
    static const char *const names[] = {"auto",    "mc",           "split",
                                        "restart", "fixed-effort", "auto",
                                        "plain",   "splitting"};
    static const risk_method is[] = {
        RISK_AUTO,         RISK_PLAIN, RISK_SPLITTING, RISK_RESTART,
        RISK_FIXED_EFFORT, RISK_AUTO,  RISK_PLAIN,     RISK_SPLITTING};
    for (int i = 0; i < 8; i++)
        if (strcmp(v, names[i]) == 0) {
            *(risk_method *)dest = is[i];
            return 0;
        }
    return args_usage_error(a,
                            "%s: expected auto, mc, split, restart or "
                            "fixed-effort, got '%s'",
                            name, v);
}

static int opt_importance(args *a, const char *name, const char *v, void *dest)
{
    if (risk_importance_parse(v, dest) != 0)
        return args_usage_error(a,
                                "%s: expected queue, amplification, "
                                "timeouts or combined, got '%s'",
                                name, v);
    return 0;
}

static int parse_one(args *a, risk_cli *o)
{
    risk_opts *ro = &o->ro;
    const arg_typed horizon = {ARG_DURATION_NS, &o->horizon_ns, 0, 0, NULL},
                    window = {ARG_DURATION_NS, &o->window_ns, 0, 0, NULL},
                    budget = {ARG_DURATION_S, &ro->max_sim_s, 0, 0, NULL},
                    rel = {ARG_REAL, &ro->target_rel_error, 0, 1, NULL},
                    conf = {ARG_REAL, &ro->confidence, 0, 1, NULL},
                    runs = {ARG_UINT64, &ro->max_runs, 1, 1e9, NULL},
                    jobs = {ARG_INT, &ro->threads, 1, 64, NULL},
                    pilot = {ARG_UINT32, &ro->pilot_runs, 10, 1e6, NULL},
                    queue = {ARG_UINT32, &o->storm_queue, 1, 1e8, NULL},
                    method = {ARG_CALL, &ro->method, 0, 0, opt_method},
                    imp = {ARG_CALL, &ro->importance, 0, 0, opt_importance},
                    per_job = {ARG_INT64, &o->per_job, 1, 1e9, NULL},
                    part = {ARG_INT64, &o->part, 0, 1e9, NULL};
    const arg_opt opts[] = {
        {"--help", "-h", ARG_HELP, NULL, NULL, NULL},
        {"--quiet", "-q", ARG_SET, &o->quiet, NULL, NULL},
        {"--set", NULL, ARG_LIST, o->sets, &o->n_sets, NULL},
        {"--policy-plugin", NULL, ARG_LIST, o->plugins, &o->n_plugins, NULL},
        {"--param", NULL, ARG_PARAM, o->params, &o->n_params, NULL},
        {"--policy", NULL, ARG_TEXT, &o->policy, NULL, NULL},
        {"--seed", NULL, ARG_TEXT, &o->seed, NULL, NULL},
        {"-o", NULL, ARG_TEXT, &o->out, NULL, NULL},
        {"--emit-jobs", NULL, ARG_TEXT, &o->emit, NULL, NULL},
        {"--horizon", NULL, ARG_TYPED, (void *)&horizon, NULL, NULL},
        {"--storm-window", NULL, ARG_TYPED, (void *)&window, NULL, NULL},
        {"--storm-queue", NULL, ARG_TYPED, (void *)&queue, NULL, NULL},
        {"--budget", NULL, ARG_TYPED, (void *)&budget, NULL, NULL},
        {"--target-rel-error", NULL, ARG_TYPED, (void *)&rel, NULL, NULL},
        {"--confidence", NULL, ARG_TYPED, (void *)&conf, NULL, NULL},
        {"--max-runs", NULL, ARG_TYPED, (void *)&runs, NULL, NULL},
        {"-j", NULL, ARG_TYPED, (void *)&jobs, NULL, NULL},
        {"--pilot-runs", NULL, ARG_TYPED, (void *)&pilot, NULL, NULL},
        {"--method", NULL, ARG_TYPED, (void *)&method, NULL, NULL},
        {"--importance", NULL, ARG_TYPED, (void *)&imp, NULL, NULL},
        {"--runs-per-job", NULL, ARG_TYPED, (void *)&per_job, NULL, NULL},
        {"--part", NULL, ARG_TYPED, (void *)&part, NULL, NULL},
    };
    int rc = args_option(a, opts, sizeof opts / sizeof *opts);
    if (rc != 1)
        return rc;
    return args_scenario(a, a->argv[a->i], &o->scenario);
}

static int parse_risk(int argc, char **argv, risk_cli *o)
{
    memset(o, 0, sizeof *o);
    o->horizon_ns = (int64_t)3600 * 1000000000;
    o->window_ns = (int64_t)300 * 1000000000;
    o->ro = (risk_opts){RISK_AUTO,      0.95, 0.2,  2000, 0,    1,
                        RISK_IMP_QUEUE, 0,    NULL, NULL, NULL, NULL};
    o->per_job = 100;
    o->part = -1;
    args a = {argc, argv, 1, "risk", risk_usage};
    for (; a.i < argc; a.i++) {
        int rc = parse_one(&a, o);
        if (rc != 0)
            return rc;
    }
    if (o->scenario == NULL)
        return args_usage_error(&a, "no scenario file given");
    if ((o->emit || o->part >= 0) && o->ro.method != RISK_PLAIN)
        return args_usage_error(&a,
                                "%s: only plain Monte Carlo runs in "
                                "jobs (add --method mc): splitting's runs "
                                "share the levels its pilot found",
                                o->emit ? "--emit-jobs" : "--part");
    if ((o->emit || o->part >= 0) && o->out == NULL)
        return args_usage_error(&a,
                                "%s needs -o DIR (where the jobs' runs "
                                "and the merged estimate go)",
                                o->emit ? "--emit-jobs" : "--part");
    return o->seed ? args_check_seed(&a, o->seed, NULL) : 0;
}

/* ---- The scenario and the policy ------------------------------------------ */

typedef struct risk_job {
    risk_cli o;
    scenario sc;
    const char *spec;
    const char *plugins[SCENARIO_MAX_PLUGINS + CLI_MAX_LIST];
    int n_plugins;
    setting settings[2 * PSTACK_MAX_SETTINGS];
    int n_settings;
    char note[1024];
    char policy_text[1024]; /* "immediate (max_attempts=5)" */
    risk_result res;
} risk_job;

static int load(risk_job *j, sb_err *e)
{
    const char *sets[CLI_MAX_LIST + 1];
    int n = j->o.n_sets;
    memcpy(sets, j->o.sets, (size_t)n * sizeof *sets);
    char seed[96];
    if (j->o.seed) {
        snprintf(seed, sizeof seed, "scenario.seed=%s", j->o.seed);
        sets[n++] = seed;
    }
    char path[1024];
    if (cli_find_scenario(j->o.scenario, path, sizeof path, e) != 0 ||
        scenario_load(path, sets, n, &j->sc, e) != 0)
        return -1;
    j->spec = j->o.policy ? j->o.policy : j->sc.policy;
    for (int i = 0; i < j->sc.n_plugins; i++)
        j->plugins[j->n_plugins++] = j->sc.plugins[i];
    for (int i = 0; i < j->o.n_plugins; i++)
        j->plugins[j->n_plugins++] = j->o.plugins[i];
    if (cli_scenario_params(&j->sc, j->spec, j->plugins, j->n_plugins,
                            j->o.params, j->o.n_params, j->settings,
                            &j->n_settings, j->note, sizeof j->note, e) != 0)
        return -1;
    for (int i = 0; i < j->o.n_params; i++)
        j->settings[j->n_settings++] = j->o.params[i];
    /* The stack builds (a bad parameter is said once, here, rather than
     * by every run). */
    policy_setup ps;
    if (policy_setup_build_at(
            j->spec, j->o.policy ? "--policy" : j->sc.policy_origin, j->plugins,
            j->n_plugins, j->settings, j->n_settings, &ps, e) != 0)
        return -1;
    print_policy(ps.stack, j->policy_text, sizeof j->policy_text);
    policy_setup_free(&ps);
    return 0;
}

/* ---- Words ----------------------------------------------------------------- */

/* A span of seconds as a person says it: "45 s", "12 min", "3.5 h",
 * "4.2 days", "3.1 years". */
static const char *span(double s, char *buf, size_t len)
{
    static const struct {
        double unit;
        const char *name;
    } units[] = {
        {365.25 * 86400, "years"}, {86400, "days"}, {3600, "h"}, {60, "min"}};
    if (!isfinite(s)) {
        snprintf(buf, len, "never");
        return buf;
    }
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (s >= units[i].unit) {
            double v = s / units[i].unit;
            bool whole = v >= 10 || fabs(v - round(v)) < 0.05;
            snprintf(buf, len, "%.*f %s", whole ? 0 : 1, v, units[i].name);
            return buf;
        }
    snprintf(buf, len, "%.0f s", s);
    return buf;
}

/* A probability with enough digits to read: "0.42", "3.1e-05". */
static const char *prob(double p, char *buf, size_t len)
{
    if (p == 0 || p >= 0.01)
        snprintf(buf, len, "%.3g", p);
    else
        snprintf(buf, len, "%.2e", p);
    return buf;
}

static void print_result(FILE *f, const risk_job *j)
{
    const risk_result *r = &j->res;
    const split_estimate *est = &r->est;
    char a[64], b[64], c[64], h[64], w[64];
    span((double)j->o.horizon_ns / 1e9, h, sizeof h);
    span((double)j->o.window_ns / 1e9, w, sizeof w);
    fprintf(f, "scenario  %s (%s)\npolicy    %s\n", j->sc.cfg.name, j->sc.path,
            j->policy_text);
    if (j->o.storm_queue)
        fprintf(f,
                "storm     %" PRIu32 " attempts waiting in the server's "
                "queue at any moment after the warm-up (--storm-queue)\n",
                j->o.storm_queue);
    else
        fprintf(f,
                "storm     after the trigger is gone, goodput not back "
                "within 10%% of baseline for %s in a row\n",
                w);
    fprintf(f, "horizon   %s per run (%s exposed after the warm-up)\n\n", h,
            span(r->exposure_s, a, sizeof a));
    fprintf(f, "P(storm within %s) = %s   (%.0f%% interval %s to %s)\n", h,
            prob(est->p, a, sizeof a), 100 * j->o.ro.confidence,
            prob(est->lo, b, sizeof b), prob(est->hi, c, sizeof c));
    if (r->note[0])
        fprintf(f, "  note             %s\n", r->note);
    if (est->plain)
        fprintf(f,
                "  estimator        plain Monte Carlo, Wilson interval: "
                "%" PRIu64 " of %" PRIu64 " run%s tipped\n",
                est->hit_trials, est->trials, est->trials == 1 ? "" : "s");
    else if (est->fixed_effort)
        fprintf(f,
                "  estimator        fixed-effort splitting, %d level%s, "
                "%" PRIu32 " runs a level, Student-t interval over %" PRIu64
                " replicates (%" PRIu64 " paths); as precise as %.0f "
                "plain runs\n",
                r->plan.n_levels, r->plan.n_levels == 1 ? "" : "s",
                est->per_level, est->replicates, est->paths,
                est->effective_runs);
    else
        fprintf(f,
                "  estimator        RESTART splitting, %d level%s, "
                "Student-t interval over %" PRIu64 " runs (%" PRIu64
                " paths); as precise as %.0f plain runs\n",
                r->plan.n_levels, r->plan.n_levels == 1 ? "" : "s", est->trials,
                est->paths, est->effective_runs);
    /* said only when asked for: a default run's printout keeps its bytes */
    if (j->o.ro.importance != RISK_IMP_QUEUE)
        fprintf(f, "  importance       %s (--importance)\n",
                risk_importance_name(j->o.ro.importance));
    fprintf(f, "  simulated time   %s in all\n", span(est->work, a, sizeof a));
    if (est->hit_trials == 0)
        fprintf(f,
                "  no run tipped    the probability is below %s (the "
                "interval's upper end); more runs (--max-runs, "
                "--budget) or --method splitting narrow it\n",
                prob(est->hi, a, sizeof a));
    else if (!est->reached_target)
        fprintf(f,
                "  precision        +-%.0f%% of the estimate (the "
                "interval's half-width over it, before its low end is "
                "clipped at 0), wider than the %.0f%% asked: raise "
                "--max-runs or --budget\n",
                100 * est->rel_error, 100 * j->o.ro.target_rel_error);
    if (r->one_shot) {
        fprintf(f, "  one trigger      the scenario's faults strike once "
                   "(none recurs with `every`): P(storm) is per run of "
                   "that trigger, not a rate per day\n");
    } else if (isfinite(r->rate_per_s)) {
        fprintf(
            f,
            "  expected time to the first storm  about %s "
            "(%s to %s)\n",
            span(1 / r->rate_per_s, a, sizeof a),
            span(1 / r->rate_hi_per_s, b, sizeof b),
            span(isfinite(r->rate_lo_per_s) ? 1 / r->rate_lo_per_s : INFINITY,
                 c, sizeof c));
        fprintf(f, "  P(storm in a day)   %s    P(storm in a year)  %s\n",
                prob(risk_within(r->rate_per_s, 86400), a, sizeof a),
                prob(risk_within(r->rate_per_s, 365.25 * 86400), b, sizeof b));
        fprintf(f,
                "  (storms taken as a Poisson process at the rate the "
                "estimate implies: -ln(1 - p) / %s)\n",
                span(r->exposure_s, a, sizeof a));
    } else if (est->hit_trials == 0 && isfinite(r->rate_hi_per_s)) {
        fprintf(f, "  expected time to the first storm  more than %s\n",
                span(1 / r->rate_hi_per_s, a, sizeof a));
    } else if (est->hit_trials == est->trials) {
        fprintf(f, "  every run tipped: storms come sooner than the "
                   "horizon; a shorter --horizon tells how soon\n");
    }
    if (r->found)
        fprintf(f,
                "first storm  run %" PRIu64 " (seed %" PRIu64 ") judged "
                "a storm at %.0f s\n",
                r->first_trial, r->first_seed, (double)r->first_storm_ns / 1e9);
}

/* ---- Files ---------------------------------------------------------------- */

/* A double in the fewest digits that read back to the same bits (0.95,
 * not 0.94999999999999996). */
static void jw_exact(jw *w, const char *key, double v)
{
    char buf[40] = "";
    for (int digits = 15; isfinite(v) && digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    jw_number_text(w, key, buf);
}

static void json_result(FILE *f, const risk_job *j)
{
    const risk_result *r = &j->res;
    const split_estimate *est = &r->est;
    jw w;
    jw_init(&w, f, true);
    jw_object(&w, NULL);
    jw_string(&w, "scenario", j->sc.cfg.name);
    jw_string(&w, "path", j->sc.path);
    jw_string(&w, "policy", j->spec);
    jw_uint(&w, "seed", j->sc.cfg.seed);
    jw_exact(&w, "horizon_s", (double)j->o.horizon_ns / 1e9);
    if (j->o.storm_queue)
        jw_uint(&w, "storm_queue", j->o.storm_queue);
    else
        jw_exact(&w, "storm_window_s", (double)j->o.window_ns / 1e9);
    jw_exact(&w, "exposure_s", r->exposure_s);
    jw_string(&w, "estimator",
              est->plain          ? "plain Monte Carlo"
              : est->fixed_effort ? "fixed-effort splitting"
                                  : "RESTART");
    jw_exact(&w, "confidence", j->o.ro.confidence);
    jw_exact(&w, "probability", est->p);
    jw_exact(&w, "lo", est->lo);
    jw_exact(&w, "hi", est->hi);
    jw_exact(&w, "relative_error", est->rel_error);
    jw_bool(&w, "reached_target", est->reached_target);
    jw_uint(&w, "runs", est->trials);
    if (est->fixed_effort) {
        jw_uint(&w, "replicates", est->replicates);
        jw_uint(&w, "replicates_with_a_storm", est->hit_trials);
        jw_uint(&w, "runs_per_level", est->per_level);
    } else {
        jw_uint(&w, "runs_tipped", est->hit_trials);
    }
    jw_uint(&w, "paths", est->paths);
    jw_exact(&w, "effective_runs", est->effective_runs);
    jw_exact(&w, "simulated_s", est->work);
    jw_exact(&w, "storms_per_day", r->rate_per_s * 86400);
    jw_exact(&w, "storms_per_day_lo", r->rate_lo_per_s * 86400);
    jw_exact(&w, "storms_per_day_hi", r->rate_hi_per_s * 86400);
    if (j->o.ro.importance != RISK_IMP_QUEUE)
        jw_string(&w, "importance", risk_importance_name(j->o.ro.importance));
    if (!est->plain) {
        jw_array(&w, "levels");
        for (int i = 0; i < r->plan.n_levels; i++) {
            jw_object(&w, NULL);
            jw_exact(&w, "importance", r->plan.level[i]);
            jw_uint(&w, "copies", r->plan.copies[i]);
            jw_end(&w);
        }
        jw_end(&w);
    }
    if (r->found) {
        jw_object(&w, "first_storm");
        jw_uint(&w, "run", r->first_trial);
        jw_uint(&w, "seed", r->first_seed);
        jw_exact(&w, "judged_at_s", (double)r->first_storm_ns / 1e9);
        jw_end(&w);
    } else {
        jw_null(&w, "first_storm");
    }
    jw_end(&w);
    fputc('\n', f);
}

/* The first storm as a scenario: the same config with the run's seed,
 * long enough to show the storm judged, and [expect] metastable = true
 * when a fault triggered it (run judges recovery only after a fault). */
static int write_first_storm(const risk_job *j, const char *path, sb_err *e)
{
    const risk_result *r = &j->res;
    sim_config cfg = j->sc.cfg;
    cfg.seed = r->first_seed;
    cfg.branch = r->first_branch; /* how splitting reached it, if it did */
    cfg.duration_ns = r->first_storm_ns;
    char comment[sizeof j->sc.path + 500], h[64], what[160];
    if (j->o.storm_queue)
        snprintf(what, sizeof what,
                 "%" PRIu32 " attempts waited in the server's\nqueue during "
                 "the bucket that ended then (its max queue)",
                 j->o.storm_queue);
    else
        snprintf(what, sizeof what,
                 "after the trigger was gone,\ngoodput did not come back "
                 "within 10%% of baseline for the storm window");
    units_fmt_duration(j->o.horizon_ns, h, sizeof h);
    snprintf(comment, sizeof comment,
             "The first storm `stormbench risk` found in %s: run %" PRIu64
             " of a %s horizon\n(seed %" PRIu64 "), judged a storm at "
             "%.0f s: %s.\nReplay: "
             "stormbench run THIS-FILE   or   stormbench gui THIS-FILE",
             j->sc.path, r->first_trial, h, r->first_seed,
             (double)r->first_storm_ns / 1e9, what);
    setting expect[1] = {{"", "", ""}};
    int n_expect = 0;
    if (cfg.n_faults > 0 && j->o.storm_queue == 0) {
        snprintf(expect[0].key, sizeof expect[0].key, "metastable");
        snprintf(expect[0].value, sizeof expect[0].value, "true");
        n_expect = 1;
    }
    /* A stack the scenario imported ([policy] from) is saved as its
     * import, unless --policy chose another. */
    const char *from =
        j->o.policy == NULL && j->sc.policy_from[0] ? j->sc.policy_from : NULL;
    writer_extra x = {comment,       j->spec,    j->settings,
                      j->n_settings, j->plugins, j->n_plugins,
                      expect,        n_expect,   from};
    outfile out;
    if (outfile_open(&out, path, e) != 0)
        return -1;
    if (scenario_write(out.f, &cfg, &x, e) != 0) {
        outfile_abort(&out);
        return -1;
    }
    return outfile_commit(&out, e);
}

/* DIR/name into path; -1 with a message when it does not fit. */
static int out_path(char *path, size_t len, const char *dir, const char *name,
                    sb_err *e)
{
    int w = snprintf(path, len, "%s/%s", dir, name);
    if (w < 0 || (size_t)w >= len)
        return err_set(e, "-o %s: the path is too long", dir);
    return 0;
}

static int write_files(const risk_job *j, sb_err *e)
{
    char path[1200];
    outfile out;
    if (out_path(path, sizeof path, j->o.out, "risk.json", e) != 0 ||
        outfile_open(&out, path, e) != 0)
        return -1;
    json_result(out.f, j);
    if (outfile_commit(&out, e) != 0)
        return -1;
    if (out_path(path, sizeof path, j->o.out, "risk.md", e) != 0 ||
        outfile_open(&out, path, e) != 0)
        return -1;
    fputs("# Risk of a storm\n\n```\n", out.f);
    print_result(out.f, j);
    fputs("```\n", out.f);
    if (outfile_commit(&out, e) != 0)
        return -1;
    if (!j->res.found)
        return 0;
    if (out_path(path, sizeof path, j->o.out, "first-storm.ini", e) != 0)
        return -1;
    return write_first_storm(j, path, e);
}

/* ---- Jobs on several machines (plain Monte Carlo) ------------------------ */

#define RISK_COMMAND_MAGIC "stormbench-risk-command 1"
#define RISK_PART_MAGIC "stormbench-risk-part 1"

/* Options that say only how to run, left out of the saved command and of
 * the emitted jobs (which add their own -q -j 1 -o DIR --part I). */
static bool run_only(const char *arg, bool *takes_value)
{
    static const char *const with[] = {"--emit-jobs", "--part", "-j", "-o"};
    *takes_value = true;
    for (size_t i = 0; i < sizeof with / sizeof *with; i++)
        if (strcmp(arg, with[i]) == 0)
            return true;
    *takes_value = false;
    return strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0;
}

static uint64_t n_parts(const risk_cli *o)
{
    uint64_t k = (uint64_t)o->per_job;
    return (o->ro.max_runs + k - 1) / k;
}

/* DIR/command for merge, and one line per job: cd to where the command
 * ran, then this very binary with the same arguments and --part I. */
static int emit_jobs(const risk_job *j, int argc, char **argv, sb_err *e)
{
    char cwd[PATH_MAX], dir[PATH_MAX];
    /* -o DIR need not exist yet, as for a run's own outputs. */
    if (out_path(dir, sizeof dir, j->o.out, "command", e) != 0 ||
        outfile_make_parents(dir, e) != 0)
        return -1;
    if (getcwd(cwd, sizeof cwd) == NULL || realpath(j->o.out, dir) == NULL)
        return err_set(e, "%s: %s", j->o.out, strerror(errno));
    if (saved_command_write(dir, RISK_COMMAND_MAGIC, cwd, argc, argv, run_only,
                            e) != 0 ||
        saved_command_emit_jobs(j->o.emit, "risk", argc, argv, run_only, dir,
                                "--part", n_parts(&j->o), e) != 0)
        return -1;
    if (!j->o.quiet)
        printf("%" PRIu64 " jobs of up to %" PRId64 " runs written to %s; "
               "run each line (GNU parallel < %s), then: stormbench merge "
               "%s\n",
               n_parts(&j->o), j->o.per_job, j->o.emit, j->o.emit, dir);
    return 0;
}

static risk_setup setup_of(const risk_job *j)
{
    return (risk_setup){&j->sc.cfg,      j->spec,        j->settings,
                        j->n_settings,   j->plugins,     j->n_plugins,
                        j->o.horizon_ns, j->o.window_ns, j->o.storm_queue};
}

/* --part I: its runs into DIR/risk-part-I.tsv, one a line: tipped (0 or
 * 1), simulated seconds (%.17g: read back to the same bits), when it was
 * judged a storm in ns (-1: not). */
static int run_part(const risk_job *j, sb_err *e)
{
    uint64_t first = (uint64_t)j->o.part * (uint64_t)j->o.per_job;
    if ((uint64_t)j->o.part >= n_parts(&j->o))
        return err_set(e,
                       "--part %" PRId64 ": there are %" PRIu64 " jobs "
                       "(--max-runs / --runs-per-job)",
                       j->o.part, n_parts(&j->o));
    uint64_t n = j->o.ro.max_runs - first;
    if (n > (uint64_t)j->o.per_job)
        n = (uint64_t)j->o.per_job;
    risk_trial *t = calloc(n, sizeof *t);
    if (t == NULL)
        return err_set(e, "out of memory");
    risk_setup su = setup_of(j);
    char name[64], path[1200];
    snprintf(name, sizeof name, "risk-part-%" PRId64 ".tsv", j->o.part);
    outfile f;
    int rc = -1;
    if (risk_plain_part(&su, &j->o.ro, first, n, t, e) != 0 ||
        out_path(path, sizeof path, j->o.out, name, e) != 0 ||
        outfile_open(&f, path, e) != 0)
        goto done;
    fprintf(f.f, "%s %" PRIu64 " %" PRIu64 "\n", RISK_PART_MAGIC, first, n);
    for (uint64_t i = 0; i < n; i++)
        fprintf(f.f, "%d %.17g %" PRId64 "\n", t[i].t.y > 0, t[i].t.work,
                t[i].storm_ns);
    rc = outfile_commit(&f, e);
done:
    free(t);
    return rc;
}

/* Reads one part file into t[] (max_runs of them), marking have[]. */
static int read_part(const char *path, risk_trial *t, bool *have, uint64_t max,
                     sb_err *e)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return err_set(e, "%s: %s", path, strerror(errno));
    uint64_t first, n;
    int rc = 0;
    if (fscanf(f, "stormbench-risk-part 1 %" SCNu64 " %" SCNu64, &first, &n) !=
            2 ||
        first > max || n > max - first)
        rc = err_set(e, "%s: not a part of this estimate's %" PRIu64 " runs",
                     path, max);
    for (uint64_t i = 0; rc == 0 && i < n; i++) {
        int y;
        risk_trial *r = &t[first + i];
        if (fscanf(f, "%d %lf %" SCNd64, &y, &r->t.work, &r->storm_ns) != 3 ||
            (y != 0 && y != 1))
            rc = err_set(e,
                         "%s: run %" PRIu64 ": expected 'TIPPED "
                         "SECONDS STORM_NS'",
                         path, first + i);
        r->t.y = y;
        r->t.hits = (uint64_t)y;
        r->t.paths = 1;
        have[first + i] = true;
    }
    fclose(f);
    return rc;
}

/* Every DIR/risk-part-*.tsv into t[]; -1 naming the first run missing. */
static int read_parts(const char *const *dirs, int n_dirs, risk_trial *t,
                      uint64_t max, uint64_t per_job, sb_err *e)
{
    bool *have = calloc(max, sizeof *have);
    if (have == NULL)
        return err_set(e, "out of memory");
    int rc = 0;
    for (int d = 0; d < n_dirs && rc == 0; d++) {
        DIR *dir = opendir(dirs[d]);
        if (dir == NULL) {
            rc = err_set(e, "%s: %s", dirs[d], strerror(errno));
            break;
        }
        struct dirent *de;
        while (rc == 0 && (de = readdir(dir)) != NULL) {
            size_t len = strlen(de->d_name);
            if (strncmp(de->d_name, "risk-part-", 10) != 0 || len < 5 ||
                strcmp(de->d_name + len - 4, ".tsv") != 0)
                continue;
            char path[PATH_MAX + 300];
            snprintf(path, sizeof path, "%s/%s", dirs[d], de->d_name);
            rc = read_part(path, t, have, max, e);
        }
        closedir(dir);
    }
    for (uint64_t i = 0; rc == 0 && i < max; i++)
        if (!have[i])
            rc = err_set(e,
                         "run %" PRIu64 " is in none of the directories "
                         "given (its job, --part %" PRIu64 ", has not "
                         "run or was not copied back)",
                         i, i / per_job);
    free(have);
    return rc;
}

bool cmd_risk_saved(const char *dir)
{
    return saved_command_is(dir, RISK_COMMAND_MAGIC);
}

int cmd_risk_merge(const char *const *dirs, int n_dirs, const char *out,
                   bool quiet)
{
    char *buf = NULL, **argv = NULL, cwd[PATH_MAX];
    int argc = 0, rc = EXIT_INPUT;
    sb_err e;
    risk_job *j = calloc(1, sizeof *j);
    risk_trial *t = NULL;
    int with = 0; /* the first directory with the saved command */
    while (with < n_dirs - 1 && !cmd_risk_saved(dirs[with]))
        with++;
    if (j == NULL ||
        saved_command_read(dirs[with], RISK_COMMAND_MAGIC, "risk", &buf, &argv,
                           &argc, cwd, sizeof cwd, &e) != 0)
        goto fail;
    if (chdir(cwd) != 0) {
        err_set(&e,
                "the estimate ran in %s, which cannot be entered here: "
                "%s",
                cwd, strerror(errno));
        goto fail;
    }
    if (parse_risk(argc, argv, &j->o) != 0) {
        err_set(&e, "%s/command: cannot be read back", dirs[with]);
        goto fail;
    }
    j->o.out = out ? out : dirs[0];
    j->o.quiet = quiet;
    if (load(j, &e) != 0)
        goto fail;
    t = calloc(j->o.ro.max_runs, sizeof *t);
    if (t == NULL) {
        err_set(&e, "out of memory");
        goto fail;
    }
    risk_setup su = setup_of(j);
    if (read_parts(dirs, n_dirs, t, j->o.ro.max_runs, (uint64_t)j->o.per_job,
                   &e) != 0 ||
        risk_plain_merge(&su, &j->o.ro, t, j->o.ro.max_runs, &j->res, &e) != 0)
        goto fail;
    if (!quiet)
        print_result(stdout, j);
    if (write_files(j, &e) != 0)
        goto fail;
    rc = EXIT_OK;
    goto done;
fail:
    fprintf(stderr, "stormbench merge: %s\n", e.msg);
done:
    free(t);
    free(argv);
    free(buf);
    free(j);
    return rc;
}

/* ---- The command ---------------------------------------------------------- */

int cmd_risk(int argc, char **argv)
{
    risk_job *j = calloc(1, sizeof *j);
    if (j == NULL) {
        fprintf(stderr, "stormbench risk: out of memory\n");
        return EXIT_INPUT;
    }
    int rc = parse_risk(argc, argv, &j->o);
    if (rc != 0) {
        free(j);
        return rc < 0 ? EXIT_OK : rc;
    }
    sb_err e;
    rc = EXIT_INPUT;
    if (load(j, &e) != 0)
        goto fail;
    if (j->note[0] && !j->o.quiet)
        fprintf(stderr, "stormbench risk: note: %s\n", j->note);
    if (j->o.emit || j->o.part >= 0) {
        if ((j->o.emit ? emit_jobs(j, argc, argv, &e) : run_part(j, &e)) != 0)
            goto fail;
        free(j);
        return EXIT_OK;
    }
    risk_setup su = setup_of(j);
    if (risk_estimate(&su, &j->o.ro, &j->res, &e) != 0)
        goto fail;
    if (!j->o.quiet)
        print_result(stdout, j);
    if (j->o.out && write_files(j, &e) != 0)
        goto fail;
    free(j);
    return EXIT_OK;
fail:
    fprintf(stderr, "stormbench risk: %s\n", e.msg);
    free(j);
    return rc;
}
