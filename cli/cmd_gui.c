/*
 * cmd_gui.c -- `stormbench gui`: watch a retry storm form, poke it,
 * compare two policies, save what you found as a scenario.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "find.h"
#include "guard.h"
#include "outfile.h"
#include "params.h"
#include "policy_from.h"
#include "scenario.h"
#include "units.h"
#include "writer.h"

#ifdef SB_HAVE_VIZ
#include "gui.h"
#endif

static const char gui_usage[] =
    "Usage: stormbench gui [SCENARIO] [OPTIONS]\n"
    "\n"
    "Open a window on a scenario (default: retry-storm) and watch it run:\n"
    "load, goodput, queue and latency, duplicates and the policy's state as\n"
    "time goes, every client's state, the server.  Inject faults by hand,\n"
    "change the arrival rate, workers and timeout live, compare two policies\n"
    "on the same random numbers, go back in time, and save what you found\n"
    "as a scenario with an [expect] section that CI can run.  Press h in\n"
    "the window for the keys.\n"
    "\n"
    "SCENARIO is a file, or the name of a shipped scenario (retry-storm).\n"
    "\n"
    "Policy:\n"
    "  --policy NAME[+NAME...]   run A's policy (default: the scenario's)\n"
    "  --vs NAME[+NAME...]       run B: a second policy, side by side\n"
    "  --param [LAYER.]KEY=VALUE a parameter of A's policy (repeatable)\n"
    "  --policy-plugin FILE.so   load a policy plug-in (repeatable)\n"
    "  --hook-timeout DURATION   stop (exit status 3) when a plug-in's hook\n"
    "                            has not returned after this much wall time\n"
    "\n"
    "Scenario:\n"
    "  --set SECTION.KEY=VALUE   override a scenario key (repeatable)\n"
    "  --seed N                  the random seed\n"
    "\n"
    "Display:\n"
    "  --speed X                 simulated seconds per second (default 1;\n"
    "                            'max': as fast as it goes)\n"
    "  --span T                  how much time the panels show (default 2m)\n"
    "  --size WxH                window or frame size (default 1600x1000)\n"
    "  --script FILE             timed actions: lines 'at TIME COMMAND', e.g.\n"
    "                            'at 30s inject outage 10s', 'at 50s ab on',\n"
    "                            'at 80s screenshot out/storm.png', 'at 90s\n"
    "                            quit' (README: The GUI)\n"
    "  --frames DIR              no window: write PNG frames to DIR\n"
    "  --fps N                   frames per second (default 30)\n"
    "  --until T                 frames: stop at this simulated time\n"
    "  -o DIR                    where screenshots and saved scenarios go\n"
    "                            (default out)\n"
    "\n"
    "Exit status: 0 closed normally, 2 bad input or a run that stopped, 3 a\n"
    "policy plug-in crashed or hung (--hook-timeout) in one of its hooks.\n";

typedef struct gui_args {
    const char *scenario, *policy, *vs, *seed, *speed, *span, *size;
    const char *script, *frames, *fps, *until, *out;
    const char *sets[CLI_MAX_LIST];
    int n_sets;
    const char *plugins[CLI_MAX_LIST];
    int n_plugins;
    setting params[PSTACK_MAX_SETTINGS];
    int n_params;
    int64_t hook_timeout_ns; /* 0: none */
    const char *hook_timeout;
} gui_args;

static int parse_one(args *a, gui_args *g)
{
    const arg_opt opts[] = {
        {"--help", "-h", ARG_HELP, NULL, NULL, NULL},
        {"--set", NULL, ARG_LIST, g->sets, &g->n_sets, NULL},
        {"--policy-plugin", NULL, ARG_LIST, g->plugins, &g->n_plugins, NULL},
        {"--param", NULL, ARG_PARAM, g->params, &g->n_params, NULL},
        {"--hook-timeout", NULL, ARG_WALLTIME, &g->hook_timeout_ns, NULL,
         &g->hook_timeout},
        {"--policy", NULL, ARG_VALUE, &g->policy, NULL, NULL},
        {"--vs", NULL, ARG_VALUE, &g->vs, NULL, NULL},
        {"--seed", NULL, ARG_VALUE, &g->seed, NULL, NULL},
        {"--speed", NULL, ARG_VALUE, &g->speed, NULL, NULL},
        {"--span", NULL, ARG_VALUE, &g->span, NULL, NULL},
        {"--size", NULL, ARG_VALUE, &g->size, NULL, NULL},
        {"--script", NULL, ARG_VALUE, &g->script, NULL, NULL},
        {"--frames", NULL, ARG_VALUE, &g->frames, NULL, NULL},
        {"--fps", NULL, ARG_VALUE, &g->fps, NULL, NULL},
        {"--until", NULL, ARG_VALUE, &g->until, NULL, NULL},
        {"-o", NULL, ARG_VALUE, &g->out, NULL, NULL},
    };
    int rc = args_option(a, opts, sizeof opts / sizeof *opts);
    if (rc != 1)
        return rc;
    return args_scenario(a, a->argv[a->i], &g->scenario);
}

#ifdef SB_HAVE_VIZ

/* The policies `p` and `v` cycle through: those named, then a few that
 * show the classic behaviours. */
static int policy_cycle(const gui_args *g, const char *scenario_policy,
                        const char **out, int max)
{
    static const char *const usual[] = {"none",
                                        "immediate",
                                        "exponential",
                                        "exponential+token_bucket",
                                        "exponential+retry_budget",
                                        "exponential+circuit_breaker",
                                        "aws_quota",
                                        "exponential+adaptive_throttle"};
    const char *named[] = {g->policy ? g->policy : scenario_policy, g->vs};
    int n = 0;
    for (int i = 0; i < 2; i++)
        if (named[i])
            out[n++] = named[i];
    for (size_t i = 0; i < sizeof usual / sizeof *usual && n < max; i++) {
        bool dup = false;
        for (int k = 0; k < n; k++)
            dup = dup || strcmp(out[k], usual[i]) == 0;
        if (!dup)
            out[n++] = usual[i];
    }
    return n;
}

/* What a saved scenario needs to know of where the run came from. */
typedef struct gui_save {
    const char *path;         /* the scenario opened */
    const char *import;       /* FILE#NAME the run's policy came from, or
                                 NULL */
    const char *import_stack; /* ... and the stack it became */
} gui_save;

static int save_scenario(void *ctx, const char *path, const sim_config *cfg,
                         const char *policy, const setting *params,
                         int n_params, const char *const *plugins,
                         int n_plugins, const setting *expect, int n_expect,
                         sb_err *e)
{
    const gui_save *gs = ctx;
    const char *from = gs->path;
    char comment[1400];
    snprintf(comment, sizeof comment,
             "Saved by stormbench gui from %s: the run as it was explored,\n"
             "with every fault injected and every setting changed by hand\n"
             "scheduled as a fault, and [expect] filled from what was\n"
             "observed.  Run it with: stormbench run %s",
             from, path);
    /* The policy saved is the one the import gave ([policy] from, or
     * --policy-from): the file names the import again, not its expansion
     * (another policy cycled to is saved by name). */
    const char *import =
        gs->import && strcmp(policy, gs->import_stack) == 0 ? gs->import : NULL;
    writer_extra x = {comment,   policy, params,   n_params, plugins,
                      n_plugins, expect, n_expect, import};
    outfile o;
    if (outfile_open(&o, path, e) != 0)
        return -1;
    if (scenario_write(o.f, cfg, &x, e) != 0) {
        outfile_abort(&o);
        return -1;
    }
    return outfile_commit(&o, e);
}

static int parse_size(args *a, const char *v, int *w, int *h)
{
    char *end;
    long x = strtol(v, &end, 10), y;
    if (end == v || *end != 'x' || x < GUI_MIN_WIDTH || x > 16384)
        return args_usage_error(a,
                                "--size: expected WIDTHxHEIGHT, at least "
                                "%dx%d, got '%s'",
                                GUI_MIN_WIDTH, GUI_MIN_HEIGHT, v);
    char *p = end + 1;
    y = strtol(p, &end, 10);
    if (end == p || *end != '\0' || y < GUI_MIN_HEIGHT || y > 16384)
        return args_usage_error(a,
                                "--size: expected WIDTHxHEIGHT, at least "
                                "%dx%d, got '%s'",
                                GUI_MIN_WIDTH, GUI_MIN_HEIGHT, v);
    *w = (int)x;
    *h = (int)y;
    return 0;
}

static int parse_display(args *a, const gui_args *g, gui_options *o)
{
    sb_err e;
    int64_t ns;
    double x;
    o->app.speed = 1.0;
    if (g->speed && strcmp(g->speed, "max") == 0)
        o->app.speed = 0;
    else if (g->speed &&
             (units_real(g->speed, &x, &e) != 0 || x <= 0 || x > 1e6))
        return args_usage_error(a,
                                "--speed: expected a number of simulated "
                                "seconds per second (such as 10) or 'max', "
                                "got '%s'",
                                g->speed);
    else if (g->speed)
        o->app.speed = x;
    /* A zero span parses: its message is ours, not e's (unset then). */
    if (g->span && units_duration(g->span, &ns, &e) != 0)
        return args_usage_error(a, "--span: %s", e.msg);
    if (g->span && ns <= 0)
        return args_usage_error(a,
                                "--span: expected a positive duration, "
                                "got '%s'",
                                g->span);
    o->app.span_s = g->span ? (double)ns / 1e9 : 0;
    if (g->until && units_duration(g->until, &ns, &e) != 0)
        return args_usage_error(a, "--until: %s", e.msg);
    o->until_s = g->until ? (double)ns / 1e9 : 0;
    if (g->fps && (units_real(g->fps, &x, &e) != 0 || x <= 0 || x > 240))
        return args_usage_error(a, "--fps: expected 1 to 240, got '%s'",
                                g->fps);
    o->fps = g->fps ? x : 30;
    if (g->size && parse_size(a, g->size, &o->width, &o->height) != 0)
        return EXIT_INPUT;
    o->frames_dir = g->frames;
    o->app.script = g->script;
    o->app.out_dir = g->out ? g->out : "out";
    return 0;
}

static int run_gui(args *a, gui_args *g)
{
    static scenario sc;
    sb_err e;
    char path[1024];
    const char *sets[CLI_MAX_LIST + 1];
    int n = g->n_sets;
    memcpy(sets, g->sets, (size_t)n * sizeof *sets);
    char seed[96];
    if (g->seed) {
        snprintf(seed, sizeof seed, "scenario.seed=%s", g->seed);
        sets[n++] = seed;
    }
    if (cli_find_scenario(g->scenario ? g->scenario : "retry-storm", path,
                          sizeof path, &e) != 0 ||
        scenario_load(path, sets, n, &sc, &e) != 0) {
        fprintf(stderr, "stormbench gui: %s\n", e.msg);
        return EXIT_INPUT;
    }
    gui_options o;
    memset(&o, 0, sizeof o);
    if (parse_display(a, g, &o) != 0)
        return EXIT_INPUT;
    const char *plugins[SCENARIO_MAX_PLUGINS + CLI_MAX_LIST];
    int np = 0;
    for (int i = 0; i < sc.n_plugins; i++)
        plugins[np++] = sc.plugins[i];
    for (int i = 0; i < g->n_plugins; i++)
        plugins[np++] = g->plugins[i];
    /* A's parameters: the scenario's that apply to it, then --param. */
    static setting params[2 * PSTACK_MAX_SETTINGS];
    int nparams = 0;
    char note[1024];
    if (cli_scenario_params(&sc, g->policy ? g->policy : sc.policy, plugins, np,
                            g->params, g->n_params, params, &nparams, note,
                            sizeof note, &e) != 0) {
        fprintf(stderr, "stormbench gui: %s\n", e.msg);
        return EXIT_INPUT;
    }
    if (note[0])
        fprintf(stderr, "stormbench gui: note: %s\n", note);
    for (int i = 0; i < g->n_params; i++)
        params[nparams++] = g->params[i];
    const char *cycle[16];
    o.app.cfg = &sc.cfg;
    o.app.policy = g->policy ? g->policy : sc.policy;
    o.app.params = params;
    o.app.n_params = nparams;
    o.app.vs = g->vs;
    o.app.cycle = cycle;
    o.app.n_cycle = policy_cycle(g, sc.policy, cycle, 16);
    o.app.plugins = plugins;
    o.app.n_plugins = np;
    o.app.save = save_scenario;
    o.app.recording = g->frames != NULL;
    /* Where the run's policy came from: --policy-from (expanded into
     * --policy before this command saw it), or the scenario's [policy]
     * from when no --policy replaced it. */
    static gui_save save;
    const char *stack = NULL;
    const char *used = cli_policy_from_used(&stack);
    save.path = path;
    save.import = used                                     ? used
                  : g->policy == NULL && sc.policy_from[0] ? sc.policy_from
                                                           : NULL;
    save.import_stack = used ? stack : sc.policy;
    o.app.policy_from = save.import;
    o.app.save_ctx = &save;
    e.msg[0] = '\0';
    int rc = g->frames ? gui_run_frames(&o, &e) : gui_run_window(&o, &e);
    if (rc != 0 && e.msg[0])
        fprintf(stderr, "stormbench gui: %s\n", e.msg);
    return rc;
}

#endif

int cmd_gui(int argc, char **argv)
{
    static gui_args g;
    memset(&g, 0, sizeof g);
    args a = {argc, argv, 1, "gui", gui_usage};
    for (; a.i < argc; a.i++) {
        int rc = parse_one(&a, &g);
        if (rc != 0)
            return rc < 0 ? EXIT_OK : rc;
    }
    if (g.seed && args_check_seed(&a, g.seed, NULL) != 0)
        return EXIT_INPUT;
    sb_err e;
    if (g.hook_timeout_ns &&
        cli_guard_watch(g.hook_timeout_ns, g.hook_timeout, &e) != 0) {
        fprintf(stderr, "stormbench gui: %s\n", e.msg);
        return EXIT_INPUT;
    }
#ifdef SB_HAVE_VIZ
    return run_gui(&a, &g);
#else
    fprintf(stderr, "stormbench gui: this stormbench was built without "
                    "cairo, so it has no GUI; install libcairo2-dev and "
                    "libsdl2-dev and rebuild\n");
    return EXIT_INPUT;
#endif
}
