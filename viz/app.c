/*
 * app.c -- the GUI's behaviour (app.h).
 */
#include "compiler.h"
#include "app.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cairo-svg.h>

#include "controls.h"
#include "outfile.h"
#include "picker.h"
#include "session.h"
#include "units.h"
#include "view.h"

#define SCRIPT_MAX 256
#define LINE_MAX_LEN 256

typedef struct script_cmd {
    int64_t t_ns;
    int line;
    char text[LINE_MAX_LEN];
} script_cmd;

struct app {
    app_options o;
    session *run[VIEW_MAX_RUNS];
    int n_runs;
    uint8_t *scratch[VIEW_MAX_RUNS];
    double speed;
    bool paused, quit, help, by_process;
    int status;
    double inject_s;
    bool menu;      /* the inject menu is open */
    int policy_a;   /* index into the cycle of A's policy, or -1 */
    int last_fault; /* the last fault injected by hand, or -1 */
    double achieved, events_per_s; /* achieved < 0: not measured yet */
    double scale;                  /* pixels per window unit (app_set_scale) */
    double rate_since;   /* wall time the rate's window began; < 0 none */
    int64_t rate_sim_ns; /* simulated time advanced in it */
    int64_t slice_ns;    /* the simulation slice, adapted to the budget */
    bool dragging;
    double drag_t;
    bool hover;
    double hx, hy, w, h;
    char message[1024];
    char shot[1024];
    bool shot_pending;
    script_cmd *script;
    int n_script, next_cmd;
    bool scripting;    /* running a script's command (at its exact time) */
    bool refused;      /* the last action did nothing (refuse says why) */
    bool write_failed; /* a file asked for was not written */
    int shot_line;     /* the script's line that asked for the shot, or 0 */
    /* The view: its time window (a zoom pins its end), lines off. */
    double span_s, end_s;
    uint32_t hidden;
    bool run_hidden[VIEW_MAX_RUNS];
    view_hits hits; /* what the last frame drew where */
    /* The mouse: what a press started. */
    enum { DRAG_NONE, DRAG_TIMELINE, DRAG_SELECT, DRAG_SLIDER } drag;
    int drag_arg; /* the panel, or the slider's change kind */
    double drag_x0, sel_t0, sel_t1, slider_v;
    /* The controls: the injection chosen and each one's size. */
    int kind;
    double size[CONTROLS_MAX_KINDS];
    bool kind_menu;
    controls_picker pick; /* pick.run < 0: closed */
    picker_catalogue cat; /* the policies it offers */
    /* What the last frame drew, for drawing only what changed. */
    view_cache *cache;
    controls_state shown_controls;
    view_hits controls_hits;
    bool popup_shown; /* a menu, the picker or the help was drawn */
};

static const double speeds[] = {0.1, 0.2, 0.5, 1,   2,   5,   10,
                                20,  50,  100, 200, 500, 1000};
#define N_SPEEDS (int)(sizeof speeds / sizeof *speeds)

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void say(app *a, const char *fmt, ...) SB_PRINTF(2, 3);

static void say(app *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->message, sizeof a->message, fmt, ap);
    va_end(ap);
    printf("%s\n", a->message);
    fflush(stdout);
}

static void vrefuse(app *a, const char *fmt, va_list ap) SB_PRINTF(2, 0);

static void vrefuse(app *a, const char *fmt, va_list ap)
{
    vsnprintf(a->message, sizeof a->message, fmt, ap);
    printf("%s\n", a->message);
    fflush(stdout);
    a->refused = true;
}

/* Say why an action did nothing (a click then shows no script line). */
static void refuse(app *a, const char *fmt, ...) SB_PRINTF(2, 3);

static void refuse(app *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vrefuse(a, fmt, ap);
    va_end(ap);
}

/* A file was not written: said like any refusal, and under a script an
 * error (run_due names the line; the CLI exits 2), since a CI job must
 * not go on without the file it asked for. */
static void cannot_write(app *a, const char *fmt, ...) SB_PRINTF(2, 3);

static void cannot_write(app *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vrefuse(a, fmt, ap);
    va_end(ap);
    a->write_failed = true;
}

static void fail(app *a, const char *msg)
{
    say(a, "error: %s", msg);
    a->status = 2;
    a->paused = true;
}

/* ---- Runs ---------------------------------------------------------------- */

static int open_run(app *a, int r, const char *policy, const setting *params,
                    int n_params, sb_err *e)
{
    session_opts so = {a->o.cfg, policy,       params,
                       n_params, a->o.plugins, a->o.n_plugins};
    if (session_create(&so, &a->run[r], e) != 0)
        return -1;
    free(a->scratch[r]);
    a->scratch[r] = malloc(a->o.cfg->clients.count);
    return a->scratch[r] ? 0 : err_set(e, "out of memory");
}

/* The next policy of the cycle after index i that differs from `skip`. */
static int next_policy(const app *a, int i, const char *skip)
{
    for (int k = 1; k <= a->o.n_cycle; k++) {
        int j = (i + k + a->o.n_cycle) % a->o.n_cycle;
        if (skip == NULL || strcmp(a->o.cycle[j], skip) != 0)
            return j;
    }
    return -1;
}

static void set_ab_with(app *a, bool on, const char *policy);
static void repolicy(app *a, int r, const char *spec);
static void hand(app *a);

static void set_ab(app *a, bool on)
{
    set_ab_with(a, on, NULL);
}

static void set_ab_with(app *a, bool on, const char *policy)
{
    sb_err e;
    if (!on) {
        if (a->n_runs == 2) {
            session_destroy(a->run[1]);
            a->run[1] = NULL;
            a->n_runs = 1;
            say(a, "A/B off");
        }
        return;
    }
    if (a->n_runs == 2) {
        if (policy && strcmp(policy, session_policy(a->run[1])) != 0)
            repolicy(a, 1, policy);
        return;
    }
    const char *vs = policy ? policy : a->o.vs;
    if (vs == NULL) {
        int j = next_policy(a, a->policy_a, session_policy(a->run[0]));
        if (j < 0) {
            refuse(a, "A/B: no other policy to compare with (give --vs)");
            return;
        }
        vs = a->o.cycle[j];
    }
    if (open_run(a, 1, vs, NULL, 0, &e) != 0 ||
        session_replay(a->run[1], a->run[0], &e) != 0) {
        session_destroy(a->run[1]);
        a->run[1] = NULL;
        fail(a, e.msg);
        return;
    }
    a->n_runs = 2;
    say(a, "A/B: %s against %s, on the same random numbers",
        session_policy(a->run[0]), vs);
}

static void restart(app *a)
{
    sb_err e;
    for (int r = 0; r < a->n_runs; r++)
        if (session_restart(a->run[r], &e) != 0)
            fail(a, e.msg);
    a->last_fault = -1;
    say(a, "restarted at t = 0 (seed %llu)",
        (unsigned long long)a->o.cfg->seed);
}

/* A's new policy is replayed to now with everything injected and changed
 * (B, at the same instant, goes on as it was), so the two are compared
 * on the storm the user made. */
static void set_policy(app *a, const char *spec)
{
    repolicy(a, 0, spec);
}

static void seek(app *a, double t_s)
{
    sb_err e;
    int64_t t = (int64_t)llround(t_s * 1e9);
    if (t >= app_now(a)) { /* forward: the run goes on to t */
        for (int r = 0; r < a->n_runs; r++)
            if (session_run_until(a->run[r], t) != 0) {
                fail(a, sim_error(session_sim(a->run[r])));
                return;
            }
        say(a, "at t = %.1f s", (double)app_now(a) / 1e9);
        return;
    }
    for (int r = 0; r < a->n_runs; r++)
        if (session_seek(a->run[r], t, &e) != 0) {
            fail(a, e.msg);
            return;
        }
    say(a, "at t = %.1f s (replayed)", t_s);
}

/* ---- What the user does ------------------------------------------------- */

static void inject(app *a, const fault_cfg *f)
{
    sb_err e;
    int idx = -1;
    hand(a);
    for (int r = 0; r < a->n_runs; r++) {
        int i = session_inject(a->run[r], f, &e);
        if (i < 0) {
            refuse(a, "cannot inject: %s", e.msg);
            return;
        }
        if (r == 0)
            idx = i;
    }
    a->last_fault = idx;
    say(a, "%s for %.0f s from t = %.1f s", fault_type_name(f->type),
        (double)f->duration_ns / 1e9, (double)app_now(a) / 1e9);
}

/* The seven injections of the menu, for the current duration. */
static bool preset(app *a, int k, fault_cfg *f)
{
    memset(f, 0, sizeof *f);
    f->duration_ns = (int64_t)llround(a->inject_s * 1e9);
    switch (k) {
    case 1:
        f->type = FAULT_OUTAGE;
        f->mode = CUT_BLACKHOLE;
        return true;
    case 2:
        f->type = FAULT_OUTAGE;
        f->mode = CUT_REFUSE;
        return true;
    case 3:
        f->type = FAULT_LATENCY;
        f->delay_ns = 500 * NS_PER_MS;
        return true;
    case 4:
        f->type = FAULT_ERRORS;
        f->kind = SB_ERR_HTTP;
        f->status = 503;
        f->probability = 0.5;
        return true;
    case 5: {
        const sim_config *c = a->o.cfg;
        f->type = FAULT_CAPACITY;
        f->workers = c->server.workers == SIM_UNLIMITED
                         ? 1
                         : (c->server.workers + 1) / 2;
        return true;
    }
    case 6:
        f->type = FAULT_LOAD_SPIKE;
        f->multiplier = 2.0;
        return true;
    case 7:
        f->type = FAULT_LOST_ACK;
        f->probability = 0.3;
        return true;
    default:
        return false;
    }
}

static void end_last(app *a)
{
    hand(a);
    if (a->last_fault < 0 || !session_end_fault(a->run[0], a->last_fault)) {
        refuse(a, "no injected fault is running");
        return;
    }
    for (int r = 1; r < a->n_runs; r++)
        session_end_fault(a->run[r], a->last_fault);
    say(a, "ended it at t = %.1f s", (double)app_now(a) / 1e9);
    a->last_fault = -1;
}

static void change(app *a, change_kind k, double value)
{
    sb_err e;
    hand(a);
    for (int r = 0; r < a->n_runs; r++)
        if (session_change(a->run[r], k, value, &e) != 0) {
            refuse(a, "cannot change: %s", e.msg);
            return;
        }
    if (k == CHANGE_RATE)
        say(a, "arrival rate x%.3g", value);
    else if (k == CHANGE_WORKERS)
        say(a, "%.0f workers", value);
    else
        say(a, "timeout %.0f ms", value / 1e6);
}

static void nudge_rate(app *a, double factor)
{
    change(a, CHANGE_RATE, session_current(a->run[0], CHANGE_RATE) * factor);
}

static void nudge_workers(app *a, int delta)
{
    double w = session_current(a->run[0], CHANGE_WORKERS);
    if (w >= (double)SIM_UNLIMITED) {
        refuse(a, "the server has unlimited workers");
        return;
    }
    double step = w >= 20 ? ceil(w * 0.1) : 1;
    change(a, CHANGE_WORKERS, fmax(1.0, w + delta * step));
}

static void nudge_timeout(app *a, double delta_ns)
{
    double t = session_current(a->run[0], CHANGE_TIMEOUT) + delta_ns;
    change(a, CHANGE_TIMEOUT, fmax((double)(10 * NS_PER_MS), t));
}

static void set_speed(app *a, int dir)
{
    int i = 0;
    while (i < N_SPEEDS - 1 && speeds[i] < a->speed - 1e-9)
        i++;
    if (a->speed <= 0)
        i = N_SPEEDS - 1;
    i += dir;
    if (i < 0)
        i = 0;
    if (i >= N_SPEEDS) {
        a->speed = 0;
        say(a, "as fast as it goes");
        return;
    }
    a->speed = speeds[i];
    if (a->speed >= 100)
        say(a, "%.0f x real time", a->speed);
    else
        say(a, "%.3g x real time", a->speed);
}

static void default_path(const app *a, const char *ext, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s-t%.0f.%s", a->o.out_dir ? a->o.out_dir : "out",
             a->o.cfg->name, (double)app_now(a) / 1e9, ext);
}

static void screenshot(app *a, const char *path)
{
    a->shot_line = 0;
    if (a->scripting && a->next_cmd > 0)
        a->shot_line = a->script[a->next_cmd - 1].line;
    if (path)
        snprintf(a->shot, sizeof a->shot, "%s", path);
    else
        default_path(a, "png", a->shot, sizeof a->shot);
    a->shot_pending = true;
    /* The footer says the shot in the frame it is taken from; stdout
     * says it once it is written (app_shot_done). */
    snprintf(a->message, sizeof a->message, "screenshot %.1000s", a->shot);
}

/* Save run r as a scenario at path and say what it holds. */
static void save_run(app *a, int r, const char *path)
{
    sim_config cfg;
    sim_summary sum;
    sb_err e;
    if (session_as_scenario(a->run[r], &cfg, &sum, &e) != 0) {
        cannot_write(a, "cannot save: %s", e.msg);
        return;
    }
    setting expect[SESSION_MAX_EXPECT];
    int n = session_expectations(&sum, expect, SESSION_MAX_EXPECT);
    const setting *params;
    int n_params = session_params(a->run[r], &params);
    if (a->o.save(a->o.save_ctx, path, &cfg, session_policy(a->run[r]), params,
                  n_params, a->o.plugins, a->o.n_plugins, expect, n, &e) != 0) {
        cannot_write(a, "cannot save: %s", e.msg);
        return;
    }
    char rec[128] = "", who[300] = "";
    if (sum.recovery_judged)
        snprintf(rec, sizeof rec, ", %s",
                 sum.metastable ? "metastable" : "recovered");
    if (sum.recovered) {
        size_t l = strlen(rec);
        snprintf(rec + l, sizeof rec - l, " after %.0f s", sum.recovery_time_s);
    }
    if (r == 1)
        snprintf(who, sizeof who, " (B, %s)", session_policy(a->run[r]));
    say(a,
        "saved %s%s: %.0f s, amplification %.4f, success ratio %.4f, "
        "duplicates %llu, p99 %.1f ms%s",
        path, who, sum.duration_s, sum.amplification, sum.success_ratio,
        (unsigned long long)sum.duplicates, sum.latency_p99_ms, rec);
}

/* B's file beside A's: out/found.ini -> out/found-B.ini. */
static void b_path(const char *path, char *buf, size_t len)
{
    size_t n = strlen(path);
    if (n > 4 && strcmp(path + n - 4, ".ini") == 0)
        snprintf(buf, len, "%.*s-B.ini", (int)(n - 4), path);
    else
        snprintf(buf, len, "%s-B", path);
}

/* The run as a scenario; with A/B on, B's as a second scenario beside
 * it (each with its own policy and [expect]: a CI job runs both). */
static void save(app *a, const char *path)
{
    char buf[1024], bbuf[1100];
    if (path == NULL) {
        default_path(a, "ini", buf, sizeof buf);
        path = buf;
    }
    if (a->o.save == NULL) {
        say(a, "saving scenarios is not available here");
        return;
    }
    save_run(a, 0, path);
    if (a->n_runs < 2)
        return;
    char first[sizeof a->message];
    snprintf(first, sizeof first, "%s", a->message);
    b_path(path, bbuf, sizeof bbuf);
    save_run(a, 1, bbuf);
    if (strncmp(first, "saved ", 6) == 0 &&
        strncmp(a->message, "saved ", 6) == 0)
        say(a, "saved A as %s and B as %s", path, bbuf);
}

/* ---- What the hand does --------------------------------------------------------
 *
 * An action by hand (a key, a click) takes effect at the next readable
 * instant: the run goes on to the next whole second at 5 x real time or
 * more (a fifth of a second of wall time at most), to the next tenth of
 * a second from 0.5 x, else the next hundredth.  So a saved scenario says
 * "start = 107s", not "start = 107341923457ns", and the wait is shorter
 * than a person notices.  A script's actions run at their exact times. */
static void hand(app *a)
{
    if (a->scripting)
        return;
    int64_t g = a->speed <= 0 || a->speed >= 5 ? NS_PER_S
                : a->speed >= 0.5              ? NS_PER_S / 10
                                               : NS_PER_S / 100;
    int64_t now = app_now(a), to = (now + g - 1) / g * g;
    for (int r = 0; r < a->n_runs && to > now; r++)
        if (session_run_until(a->run[r], to) != 0)
            fail(a, sim_error(session_sim(a->run[r])));
}

/* Run r gets the stack `spec` from now on: rebuilt and replayed to now
 * with the log (the faults and changes stay), its parameters that still
 * apply carried over. */
static void repolicy(app *a, int r, const char *spec)
{
    sb_err e;
    const setting *cur;
    int n = session_params(a->run[r], &cur);
    static setting kept[SESSION_MAX_PARAMS], dropped[SESSION_MAX_PARAMS];
    int nk = 0, nd = 0;
    hand(a);
    if (policy_setup_filter(spec, a->o.plugins, a->o.n_plugins, cur, n, kept,
                            &nk, dropped, &nd, &e) != 0 ||
        session_set_policy(a->run[r], spec, kept, nk, &e) != 0) {
        refuse(a, "policy %s: %s", spec, e.msg);
        return;
    }
    if (r == 0)
        for (int i = 0; i < a->o.n_cycle; i++)
            if (strcmp(a->o.cycle[i], spec) == 0)
                a->policy_a = i;
    if (a->pick.run == r)
        picker_fill(&a->pick, &a->cat, a->run[r], r);
    say(a, "policy %c: %s, replayed to t = %.1f s with what was done so far",
        'A' + r, spec, (double)app_now(a) / 1e9);
}

/* Do keys a and b name the same parameter?  "max_attempts" and
 * "immediate.max_attempts" do (the first is written where only one layer
 * has it). */
static bool same_param(const char *a, const char *b)
{
    const char *da = strrchr(a, '.'), *db = strrchr(b, '.');
    if (da && db)
        return strcmp(a, b) == 0;
    return strcmp(da ? da + 1 : a, db ? db + 1 : b) == 0;
}

/* Parameter key=value of run r's stack, from now on (replayed). */
static void set_param(app *a, int r, const char *kv)
{
    sb_err e;
    setting s, list[SESSION_MAX_PARAMS];
    if (setting_parse(kv, "param", &s, &e) != 0) {
        refuse(a, "%s", e.msg);
        return;
    }
    const setting *cur;
    int n = session_params(a->run[r], &cur), k = 0;
    memcpy(list, cur, (size_t)n * sizeof *list);
    while (k < n && !same_param(list[k].key, s.key))
        k++;
    if (k == SESSION_MAX_PARAMS) {
        refuse(a, "at most %d parameters", SESSION_MAX_PARAMS);
        return;
    }
    list[k] = s;
    hand(a);
    if (session_set_policy(a->run[r], session_policy(a->run[r]), list,
                           k == n ? n + 1 : n, &e) != 0) {
        refuse(a, "%s", e.msg);
        return;
    }
    if (a->pick.run == r)
        picker_fill(&a->pick, &a->cat, a->run[r], r);
    say(a, "%c: %s, replayed to t = %.1f s", 'A' + r, kv,
        (double)app_now(a) / 1e9);
}

/* ---- Injections chosen with the mouse ------------------------------------------ */

typedef enum size_kind {
    SZ_NONE,
    SZ_DELAY,
    SZ_SHARE,
    SZ_WORKERS,
    SZ_TIMES
} size_kind;

static const struct kind {
    const char *name; /* in the menu */
    const char *word; /* in the script: inject WORD SIZE LENGTH */
    size_kind size;
    double first; /* its size at first; < 0: half the workers */
} kinds[] = {
    {"outage (black hole)", "outage blackhole", SZ_NONE, 0},
    {"outage (refused)", "outage refuse", SZ_NONE, 0},
    {"latency", "latency", SZ_DELAY, 0.5},
    {"errors (503)", "errors 503", SZ_SHARE, 0.5},
    {"fewer workers", "capacity", SZ_WORKERS, -1},
    {"load spike", "load_spike", SZ_TIMES, 2},
    {"slowdown", "slowdown", SZ_TIMES, 3},
    {"lost acks", "lost_ack", SZ_SHARE, 0.3},
    {"partition", "partition", SZ_SHARE, 0.5},
};
#define N_KINDS (int)(sizeof kinds / sizeof *kinds)

static void kinds_init(app *a)
{
    uint32_t w = a->o.cfg->server.workers;
    for (int k = 0; k < N_KINDS; k++)
        a->size[k] = kinds[k].first >= 0  ? kinds[k].first
                     : w == SIM_UNLIMITED ? 1
                                          : (double)((w + 1) / 2);
}

/* "500 ms", "50 %", "8 workers", "x2": the chosen size as shown. */
static void size_text(size_kind k, double v, char *buf, size_t len)
{
    switch (k) {
    case SZ_DELAY:
        if (v >= 1)
            snprintf(buf, len, "%.3g s", v);
        else
            snprintf(buf, len, "%.3g ms", v * 1e3);
        break;
    case SZ_SHARE:
        snprintf(buf, len, "%.0f %%", v * 100);
        break;
    case SZ_WORKERS:
        snprintf(buf, len, "%.0f worker%s", v, v == 1 ? "" : "s");
        break;
    case SZ_TIMES:
        snprintf(buf, len, "x%.3g", v);
        break;
    default:
        buf[0] = '\0';
    }
}

static void step_size(app *a, int dir)
{
    double *v = &a->size[a->kind];
    switch (kinds[a->kind].size) {
    case SZ_DELAY:
        *v = fmin(fmax(picker_ladder(*v, dir, 0.01), 0.01), 60.0);
        break;
    case SZ_SHARE:
        *v = fmin(fmax(round((*v + dir * 0.1) * 10) / 10, 0.1), 1.0);
        break;
    case SZ_WORKERS: /* by one below ten, by a tenth above */
        if (*v < 10 || (dir < 0 && *v <= 10))
            *v = fmax(1, *v + dir);
        else
            *v += dir * ceil(*v * 0.1);
        break;
    case SZ_TIMES: {
        static const double x[] = {1.25, 1.5, 2, 3, 5, 10, 20};
        int i = 0;
        while (i < 6 && x[i] < *v - 1e-9)
            i++;
        i = dir > 0 ? (x[i] > *v + 1e-9 ? i : i + 1) : i - 1;
        *v = x[i < 0 ? 0 : i > 6 ? 6 : i];
        break;
    }
    default:
        break;
    }
}

/* The script command that injects the chosen kind now. */
static void inject_command(const app *a, char *buf, size_t len)
{
    const struct kind *k = &kinds[a->kind];
    double v = a->size[a->kind];
    char size[32] = "", dur[32];
    units_fmt_duration((int64_t)llround(a->inject_s * 1e9), dur, sizeof dur);
    if (k->size == SZ_DELAY)
        units_fmt_duration((int64_t)llround(v * 1e9), size, sizeof size);
    else if (k->size == SZ_WORKERS) /* whole: %.3g wrote 1234 as 1.23e+03 */
        snprintf(size, sizeof size, "%.0f", v);
    else if (k->size != SZ_NONE)
        snprintf(size, sizeof size, "%.3g", v);
    snprintf(buf, len, "inject %s%s%s %s", k->word, size[0] ? " " : "", size,
             dur);
}

/* ---- Export ---------------------------------------------------------------------- */

static cairo_status_t write_stream(void *closure, const unsigned char *data,
                                   unsigned int len);
static void draw(const app *a, cairo_t *cr, double w, double h,
                 view_hits *hits);

/* The time window the panels show now. */
static void time_window(const app *a, double *t0, double *t1)
{
    view_state v;
    memset(&v, 0, sizeof v);
    v.runs[0] = a->run[0];
    v.span_s = a->span_s;
    v.end_s = a->end_s;
    view_window(&v, t0, t1);
}

/* The panels' series over their window, every run, as CSV. */
static void export_csv(app *a, const char *path)
{
    char buf[1024];
    if (path == NULL) {
        default_path(a, "csv", buf, sizeof buf);
        path = buf;
    }
    const series *runs[VIEW_MAX_RUNS];
    for (int r = 0; r < a->n_runs; r++)
        runs[r] = session_series(a->run[r]);
    double t0, t1;
    time_window(a, &t0, &t1);
    outfile o;
    sb_err e;
    int rows;
    if (outfile_open(&o, path, &e) != 0) {
        cannot_write(a, "cannot export: %s", e.msg);
        return;
    }
    rows = series_write_csv(o.f, runs, a->n_runs, t0, t1);
    if (rows < 0 || outfile_commit(&o, &e) != 0) {
        if (rows < 0)
            outfile_abort(&o);
        cannot_write(a, "cannot export %s: %s", path,
                     rows < 0 ? "cannot write" : e.msg);
        return;
    }
    say(a, "exported %s: %d rows from %.0f to %.0f s, %s", path, rows, t0, t1,
        a->n_runs > 1 ? "A and B" : "one run");
}

/* The view as it is now, as SVG (vector: it scales for a slide). */
static void export_svg(app *a, const char *path)
{
    char buf[1024];
    if (path == NULL) {
        default_path(a, "svg", buf, sizeof buf);
        path = buf;
    }
    outfile o;
    sb_err e;
    if (outfile_open(&o, path, &e) != 0) {
        cannot_write(a, "cannot export: %s", e.msg);
        return;
    }
    cairo_surface_t *s =
        cairo_svg_surface_create_for_stream(write_stream, o.f, a->w, a->h);
    cairo_t *cr = cairo_create(s);
    draw(a, cr, a->w, a->h, NULL);
    cairo_destroy(cr);
    cairo_surface_finish(s);
    cairo_status_t st = cairo_surface_status(s);
    cairo_surface_destroy(s);
    if (st != CAIRO_STATUS_SUCCESS) {
        outfile_abort(&o);
        cannot_write(a, "cannot export %s: %s", path,
                     cairo_status_to_string(st));
        return;
    }
    if (outfile_commit(&o, &e) != 0) {
        cannot_write(a, "cannot export %s: %s", path, e.msg);
        return;
    }
    say(a, "exported %s (%.0fx%.0f, SVG)", path, a->w, a->h);
}

/* ---- The view's commands ----------------------------------------------------------- */

/* zoom T0 T1: the panels show [T0, T1] (following the run when T1 is now
 * or later); zoom live: they follow it over the usual span. */
static void zoom(app *a, double t0, double t1)
{
    double f0, now;
    double end = a->end_s;
    a->end_s = -1; /* where the window ends when it follows */
    time_window(a, &f0, &now);
    a->end_s = end;
    double dur = (double)a->o.cfg->duration_ns / 1e9;
    double min = fmax(5.0 * (double)a->o.cfg->bucket_ns / 1e9, 5.0);
    a->span_s = fmin(fmax(t1 - t0, min), fmax(dur, min));
    a->end_s = t1 >= now - 1e-9 ? -1 : fmax(t1, a->span_s);
    if (a->end_s < 0)
        say(a, "the panels follow the run, %.0f s wide", a->span_s);
    else
        say(a, "the panels show %.0f to %.0f s", a->end_s - a->span_s,
            a->end_s);
}

/* The panels follow the run over span_s (<= 0: the usual span). */
static void zoom_live(app *a, double span_s)
{
    double dur = (double)a->o.cfg->duration_ns / 1e9;
    double min = fmax(5.0 * (double)a->o.cfg->bucket_ns / 1e9, 5.0);
    a->span_s = span_s > 0        ? fmin(fmax(span_s, min), fmax(dur, min))
                : a->o.span_s > 0 ? a->o.span_s
                                  : 120.0;
    a->end_s = -1;
    say(a, "the panels follow the run, %.0f s wide", a->span_s);
}

/* hide/show LINE (a panel's line, view_line_key) or A or B (a run). */
static int show(app *a, const char *what, bool on, bool dry, sb_err *e)
{
    int line = view_line_find(what);
    int run = strcmp(what, "A") == 0 ? 0 : strcmp(what, "B") == 0 ? 1 : -1;
    if (line < 0 && run < 0) {
        char all[512] = "";
        for (int i = 0; i < LINE_COUNT; i++) {
            size_t l = strlen(all);
            snprintf(all + l, sizeof all - l, "%s%s", i ? ", " : "",
                     view_line_key(i));
        }
        return err_set(e, "%s what? A, B or a line: %s", on ? "show" : "hide",
                       all);
    }
    if (dry)
        return 0;
    if (line >= 0)
        a->hidden = on ? a->hidden & ~(1u << line) : a->hidden | 1u << line;
    else
        a->run_hidden[run] = !on;
    say(a, "%s %s", what, on ? "shown" : "hidden");
    return 0;
}

static int run_side(const char *w)
{
    return w && (strcmp(w, "A") == 0 || strcmp(w, "B") == 0) ? w[0] - 'A' : -1;
}

/* ---- Keys ------------------------------------------------------------------ */

static void menu_key(app *a, int key)
{
    a->menu = false;
    fault_cfg f;
    if (key >= '1' && key <= '7' && preset(a, key - '0', &f))
        inject(a, &f);
    else
        say(a, "nothing injected");
}

void app_key_down(app *a, int key)
{
    if (a->menu) {
        menu_key(a, key);
        return;
    }
    switch (key) {
    case ' ':
        a->paused = !a->paused;
        say(a, a->paused ? "paused" : "running");
        break;
    case '+':
    case '=':
        set_speed(a, +1);
        break;
    case '-':
        set_speed(a, -1);
        break;
    case '0':
        a->speed = 0;
        say(a, "as fast as it goes");
        break;
    case '.':
        if (a->paused)
            for (int r = 0; r < a->n_runs; r++)
                session_run_until(a->run[r], app_now(a) + a->o.cfg->bucket_ns);
        break;
    case 'i':
        a->menu = true;
        break;
    case '[':
        a->inject_s = fmax(5.0, a->inject_s / 2.0);
        say(a, "injections last %.0f s", a->inject_s);
        break;
    case ']':
        a->inject_s = fmin(300.0, a->inject_s * 2.0);
        say(a, "injections last %.0f s", a->inject_s);
        break;
    case 'e':
        end_last(a);
        break;
    case KEY_UP:
        nudge_rate(a, 1.1);
        break;
    case KEY_DOWN:
        nudge_rate(a, 1.0 / 1.1);
        break;
    case KEY_RIGHT:
        nudge_workers(a, +1);
        break;
    case KEY_LEFT:
        nudge_workers(a, -1);
        break;
    case 't':
        nudge_timeout(a, -100e6);
        break;
    case 'T':
        nudge_timeout(a, +100e6);
        break;
    case 'v':
        set_ab(a, a->n_runs == 1);
        break;
    case 'p': {
        int j = next_policy(a, a->policy_a, session_policy(a->run[0]));
        if (j < 0) {
            say(a, "no other policy to choose (give --policy and --vs)");
            break;
        }
        a->policy_a = j;
        set_policy(a, a->o.cycle[j]);
        break;
    }
    case 'g': {
        const sim *s = session_sim(a->run[0]);
        if (sim_processes(s) == sim_clients(s)) {
            refuse(a, "g shows the field by process, but each client is "
                      "its own process here ([clients] processes is not "
                      "set): the field is the same");
            break;
        }
        a->by_process = !a->by_process;
        if (a->by_process)
            say(a, "the field shows the %u processes", sim_processes(s));
        else
            say(a, "the field shows the %u clients", sim_clients(s));
        break;
    }
    case 'f':
        zoom_live(a, 0);
        break;
    case 'x':
        export_csv(a, NULL);
        break;
    case 'r':
        restart(a);
        break;
    case 's':
        screenshot(a, NULL);
        break;
    case 'w':
        save(a, NULL);
        break;
    case 'h':
    case '?':
        a->help = !a->help;
        break;
    case 'q':
    case KEY_ESCAPE:
        a->quit = true;
        break;
    default:
        break;
    }
}

/* ---- The script ------------------------------------------------------------- */

static char *next_word(char **p)
{
    while (isspace((unsigned char)**p))
        (*p)++;
    if (**p == '\0')
        return NULL;
    char *w = *p;
    while (**p && !isspace((unsigned char)**p))
        (*p)++;
    if (**p)
        *(*p)++ = '\0';
    return w;
}

static int parse_time(const char *w, int64_t *ns, sb_err *e)
{
    return w ? units_duration(w, ns, e) : err_set(e, "expected a time");
}

/* What each kind of fault takes in a script after its name, before the
 * optional duration: a sentence for the errors. */
static const char *fault_usage(fault_type t)
{
    switch (t) {
    case FAULT_OUTAGE:
        return "inject outage [refuse|blackhole] [DURATION]";
    case FAULT_LATENCY:
        return "inject latency DELAY [DURATION]";
    case FAULT_ERRORS:
        return "inject errors STATUS PROBABILITY [DURATION]";
    case FAULT_CAPACITY:
        return "inject capacity WORKERS [DURATION]";
    case FAULT_LOAD_SPIKE:
        return "inject load_spike MULTIPLIER [DURATION]";
    case FAULT_SLOWDOWN:
        return "inject slowdown MULTIPLIER [DURATION]";
    case FAULT_LOST_ACK:
        return "inject lost_ack PROBABILITY [DURATION]";
    case FAULT_PARTITION:
        return "inject partition FRACTION [DURATION]";
    case FAULT_RATE_LIMIT: /* not injected by hand (README's script) */
    case FAULT_CLIENT_TIMEOUT:
    case FAULT_CRASH:
    case FAULT_TYPE_COUNT:
        return NULL;
    } /* no default: a new type must say whether a script injects it */
    return NULL;
}

/* A share from 0 to 1 written as a fraction or a percentage ("0.5",
 * "50%"), as [expect]'s shares are. */
static bool script_share(const char *w, double *x)
{
    sb_err inner;
    return w && units_share(w, x, &inner) == 0 && *x >= 0.0 && *x <= 1.0;
}

/* The words a fault kind takes (words[0] is the kind), with the limits
 * the scenario loader puts on the same keys; the index of the first word
 * left over, or -1 with the word found wanting in *bad. */
static int fault_args(fault_cfg *f, char **words, int n, int *bad)
{
    int64_t v;
    sb_err inner;
    *bad = 1;
    switch (f->type) {
    case FAULT_OUTAGE:
        f->mode = CUT_BLACKHOLE;
        if (n > 1 && strcmp(words[1], "refuse") == 0)
            f->mode = CUT_REFUSE;
        return n > 1 && (f->mode == CUT_REFUSE ||
                         strcmp(words[1], "blackhole") == 0)
                   ? 2
                   : 1;
    case FAULT_LATENCY:
        return n > 1 && units_duration(words[1], &f->delay_ns, &inner) == 0 &&
                       f->delay_ns > 0
                   ? 2
                   : -1;
    case FAULT_ERRORS:
        f->kind = SB_ERR_HTTP;
        if (n < 2 || units_int(words[1], &v, &inner) != 0 || v < 400 || v > 599)
            return -1;
        f->status = (int32_t)v;
        *bad = 2;
        return n > 2 && script_share(words[2], &f->probability) ? 3 : -1;
    case FAULT_CAPACITY:
        if (n < 2 || units_int(words[1], &v, &inner) != 0 || v < 0 ||
            v > 10000000)
            return -1;
        f->workers = (uint32_t)v;
        return 2;
    case FAULT_LOAD_SPIKE:
    case FAULT_SLOWDOWN:
        return n > 1 && units_real(words[1], &f->multiplier, &inner) == 0 &&
                       f->multiplier >= 0.001 && f->multiplier <= 1000
                   ? 2
                   : -1;
    case FAULT_LOST_ACK:
        return n > 1 && script_share(words[1], &f->probability) ? 2 : -1;
    case FAULT_PARTITION:
        f->mode = CUT_BLACKHOLE;
        return n > 1 && script_share(words[1], &f->fraction) && f->fraction > 0
                   ? 2
                   : -1;
    case FAULT_RATE_LIMIT: /* fault_usage refuses these first */
    case FAULT_CLIENT_TIMEOUT:
    case FAULT_CRASH:
    case FAULT_TYPE_COUNT:
        return -1;
    } /* no default, as fault_usage */
    return -1;
}

/* Turn a script's inject command into a fault: its kind, the words the
 * kind takes, then an optional duration (else the current injection
 * length).  Any other word is refused, naming it: a word dropped would
 * run another fault than the one written. */
static int script_fault(app *a, char *p, fault_cfg *f, sb_err *e)
{
    char *words[5];
    int n = 0;
    for (char *w; (w = next_word(&p)) != NULL; n++)
        if (n < 5)
            words[n] = w;
    if (n == 0)
        return err_set(e, "inject what? (outage, latency, errors, capacity, "
                          "load_spike, slowdown, lost_ack, partition)");
    memset(f, 0, sizeof *f);
    f->duration_ns = (int64_t)llround(a->inject_s * 1e9);
    const char *usage =
        fault_type_parse(words[0], &f->type) == 0 ? fault_usage(f->type) : NULL;
    if (usage == NULL)
        return err_set(e,
                       "unknown fault type '%s' (outage, latency, "
                       "errors, capacity, load_spike, slowdown, "
                       "lost_ack, partition)",
                       words[0]);
    if (n > 5)
        return err_set(e, "%s: too many words", usage);
    int bad, i = fault_args(f, words, n, &bad);
    if (i < 0)
        return bad < n ? err_set(e, "%s: unexpected '%s'", usage, words[bad])
                       : err_set(e, "%s: too few words", usage);
    sb_err inner;
    if (i < n && (units_duration(words[i], &f->duration_ns, &inner) != 0 ||
                  f->duration_ns <= 0))
        return err_set(e,
                       "%s: unexpected '%s' (a DURATION is positive, "
                       "such as 10s)",
                       usage, words[i]);
    if (i + 1 < n)
        return err_set(e, "%s: unexpected '%s' after the duration", usage,
                       words[i + 1]);
    return 0;
}

static int key_name(const char *w)
{
    static const struct {
        const char *name;
        int key;
    } names[] = {{"space", ' '},     {"up", KEY_UP},       {"down", KEY_DOWN},
                 {"left", KEY_LEFT}, {"right", KEY_RIGHT}, {"escape", 27}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(w, names[i].name) == 0)
            return names[i].key;
    return strlen(w) == 1 ? (unsigned char)w[0] : -1;
}

/* The commands of the mouse and the view: policy [A|B] SPEC, param
 * [A|B] KEY=VALUE, hide|show WHAT, zoom T0 T1|live, export
 * csv|svg|png|scenario [PATH], step, click X Y, dblclick X Y, drag X0 Y0
 * X1 Y1, wheel X Y N.  1 when cmd is none of them. */
static int run_view_cmd(app *a, const char *cmd, char **p, bool dry, sb_err *e)
{
    char *w = NULL;
    double x[4];
    if (strcmp(cmd, "policy") == 0 || strcmp(cmd, "param") == 0) {
        w = next_word(p);
        int r = run_side(w);
        if (r >= 0)
            w = next_word(p);
        if (w == NULL || (cmd[1] == 'a' && strchr(w, '=') == NULL))
            return err_set(e, cmd[1] == 'a' ? "param [A|B] KEY=VALUE"
                                            : "policy [A|B] NAME[+NAME...]");
        if (dry)
            return 0;
        if (r == 1 && a->n_runs < 2 && cmd[1] == 'o')
            set_ab_with(a, true, w);
        else if (r == 1 && a->n_runs < 2)
            refuse(a, "param B: B is off (ab on first)");
        else if (cmd[1] == 'o')
            repolicy(a, r < 0 ? 0 : r, w);
        else
            set_param(a, r < 0 ? 0 : r, w);
        return 0;
    }
    if (strcmp(cmd, "hide") == 0 || strcmp(cmd, "show") == 0) {
        w = next_word(p);
        return show(a, w ? w : "", cmd[0] == 's', dry, e);
    }
    if (strcmp(cmd, "zoom") == 0) {
        w = next_word(p);
        int64_t t0, t1;
        if (w && strcmp(w, "live") == 0) {
            w = next_word(p); /* its span, or the usual one */
            if (w && units_duration(w, &t0, e) != 0)
                return err_set(e, "zoom live [SPAN]");
            if (!dry)
                zoom_live(a, w ? (double)t0 / 1e9 : 0);
            return 0;
        }
        if (w == NULL || units_duration(w, &t0, e) != 0 ||
            parse_time(next_word(p), &t1, e) != 0 || t1 <= t0)
            return err_set(e, "zoom T0 T1 (T0 before T1) or zoom live "
                              "[SPAN]");
        if (!dry)
            zoom(a, (double)t0 / 1e9, (double)t1 / 1e9);
        return 0;
    }
    if (strcmp(cmd, "export") == 0) {
        static const char *const what[EXPORT_KINDS] = {"csv", "png", "svg",
                                                       "scenario"};
        w = next_word(p);
        int k = 0;
        while (w && k < EXPORT_KINDS && strcmp(w, what[k]) != 0)
            k++;
        if (w == NULL || k == EXPORT_KINDS)
            return err_set(e, "export csv|png|svg|scenario [PATH]");
        char *path = next_word(p);
        if (!dry)
            k == EXPORT_CSV   ? export_csv(a, path)
            : k == EXPORT_PNG ? screenshot(a, path)
            : k == EXPORT_SVG ? export_svg(a, path)
                              : save(a, path);
        return 0;
    }
    if (strcmp(cmd, "step") == 0) {
        if (!dry)
            app_key_down(a, '.');
        return 0;
    }
    int n = strcmp(cmd, "drag") == 0                                ? 4
            : strcmp(cmd, "wheel") == 0                             ? 3
            : strcmp(cmd, "click") == 0 || !strcmp(cmd, "dblclick") ? 2
                                                                    : 0;
    if (n == 0)
        return 1;
    for (int i = 0; i < n; i++)
        if ((w = next_word(p)) == NULL || units_real(w, &x[i], e) != 0)
            return err_set(e, "%s %s", cmd,
                           n == 4   ? "X0 Y0 X1 Y1 (points of the window)"
                           : n == 3 ? "X Y CLICKS (up: zoom in)"
                                    : "X Y (a point of the window)");
    if (dry)
        return 0;
    if (n == 3) {
        app_wheel(a, x[0], x[1], x[2]);
    } else if (cmd[0] == 'd' && cmd[1] == 'b') {
        app_double_click(a, x[0], x[1]);
    } else {
        app_button(a, x[0], x[1], true);
        if (n == 4)
            app_pointer(a, x[2], x[3], true);
        app_button(a, x[n - 2], x[n - 1], false);
    }
    return 0;
}

/* Run one command; its syntax was checked when the script was read, but
 * values can still be refused by the run. */
static int run_cmd(app *a, char *text, bool dry, sb_err *e)
{
    char buf[LINE_MAX_LEN];
    snprintf(buf, sizeof buf, "%s", text);
    char *p = buf, *cmd = next_word(&p), *arg = NULL;
    if (cmd == NULL)
        return err_set(e, "empty command");
    double x;
    int64_t ns;
    fault_cfg f;
    if (strcmp(cmd, "inject") == 0) {
        if (script_fault(a, p, &f, e) != 0)
            return -1;
        if (!dry)
            inject(a, &f);
    } else if (strcmp(cmd, "pause") == 0 || strcmp(cmd, "resume") == 0) {
        if (!dry)
            a->paused = cmd[0] == 'p';
    } else if (strcmp(cmd, "speed") == 0) {
        arg = next_word(&p);
        if (arg && strcmp(arg, "max") == 0)
            x = 0;
        else if (arg == NULL || units_real(arg, &x, e) != 0 || x < 0)
            return err_set(e, "speed X (times real time) or speed max");
        if (!dry)
            a->speed = x;
    } else if (strcmp(cmd, "end") == 0) {
        if (!dry)
            end_last(a);
    } else if (strcmp(cmd, "rate") == 0) {
        arg = next_word(&p);
        if (arg == NULL || units_real(arg, &x, e) != 0 || x < 0.001 || x > 1000)
            return err_set(e,
                           "rate X (times the scenario's rate, from "
                           "0.001 to 1000)%s%s%s",
                           arg ? ", got '" : "", arg ? arg : "",
                           arg ? "'" : "");
        if (!dry)
            change(a, CHANGE_RATE, x);
    } else if (strcmp(cmd, "workers") == 0) {
        int64_t v;
        arg = next_word(&p);
        if (arg == NULL || units_int(arg, &v, e) != 0 || v < 1 || v > 10000000)
            return err_set(e,
                           "workers N (a whole number from 1 to "
                           "10000000)%s%s%s",
                           arg ? ", got '" : "", arg ? arg : "",
                           arg ? "'" : "");
        if (!dry)
            change(a, CHANGE_WORKERS, (double)v);
    } else if (strcmp(cmd, "timeout") == 0) {
        /* Positive, as [clients] timeout is: a saved 'timeout = 0ms'
         * would not load. */
        arg = next_word(&p);
        if (arg == NULL || units_duration(arg, &ns, e) != 0 || ns <= 0)
            return err_set(e,
                           "timeout T (a positive duration such as "
                           "800ms)%s%s%s",
                           arg ? ", got '" : "", arg ? arg : "",
                           arg ? "'" : "");
        if (!dry)
            change(a, CHANGE_TIMEOUT, (double)ns);
    } else if (strcmp(cmd, "ab") == 0) {
        arg = next_word(&p);
        if (arg == NULL || (strcmp(arg, "on") && strcmp(arg, "off")))
            return err_set(e, "ab on [POLICY] | ab off");
        char *vs = strcmp(arg, "on") == 0 ? next_word(&p) : NULL;
        if (!dry)
            set_ab_with(a, strcmp(arg, "on") == 0, vs);
    } else if (strcmp(cmd, "restart") == 0) {
        if (!dry)
            restart(a);
    } else if (strcmp(cmd, "seek") == 0) {
        if (parse_time(next_word(&p), &ns, e) != 0)
            return -1;
        if (!dry)
            seek(a, (double)ns / 1e9);
    } else if (strcmp(cmd, "screenshot") == 0 || strcmp(cmd, "save") == 0) {
        arg = next_word(&p);
        if (!dry) {
            if (cmd[1] == 'c')
                screenshot(a, arg);
            else
                save(a, arg);
        }
    } else if (strcmp(cmd, "help") == 0) {
        arg = next_word(&p);
        if (!dry)
            a->help = arg == NULL || strcmp(arg, "off") != 0;
    } else if (strcmp(cmd, "hover") == 0) {
        double y;
        char *wx = next_word(&p), *wy = next_word(&p);
        if (!wx || !wy || units_real(wx, &x, e) || units_real(wy, &y, e))
            return err_set(e, "hover X Y (a point of the window)");
        if (!dry)
            app_pointer(a, x, y, true);
    } else if (strcmp(cmd, "key") == 0) {
        arg = next_word(&p);
        int k = arg ? key_name(arg) : -1;
        if (k < 0)
            return err_set(e, "key NAME (a character, space, up, down, "
                              "left, right or escape)");
        if (!dry)
            app_key_down(a, k);
    } else if (strcmp(cmd, "quit") == 0) {
        if (!dry)
            a->quit = true;
    } else {
        int rc = run_view_cmd(a, cmd, &p, dry, e);
        if (rc < 0)
            return -1;
        if (rc > 0)
            return err_set(e,
                           "unknown command '%s' (inject, end, pause, "
                           "resume, step, speed, rate, workers, timeout, "
                           "ab, policy, param, restart, seek, zoom, hide, "
                           "show, screenshot, save, export, help, hover, "
                           "click, dblclick, drag, wheel, key, quit)",
                           cmd);
    }
    if (next_word(&p) != NULL && strcmp(cmd, "inject") != 0)
        return err_set(e, "unexpected text after '%s'", cmd);
    return 0;
}

/* "at 30s inject outage blackhole 10s": one command per line, in order of
 * time; '#' starts a comment. */
static int read_script(app *a, const char *path, sb_err *e)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return err_set(e, "%s: cannot open the script: %s", path,
                       strerror(errno));
    a->script = calloc(SCRIPT_MAX, sizeof *a->script);
    char line[LINE_MAX_LEN];
    int n = 0, rc = 0;
    int64_t last = 0;
    while (rc == 0 && a->script && fgets(line, sizeof line, f)) {
        n++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *p = line, *w = next_word(&p);
        if (w == NULL)
            continue;
        script_cmd *c = &a->script[a->n_script];
        sb_err inner;
        if (strcmp(w, "at") != 0 ||
            parse_time(next_word(&p), &c->t_ns, &inner) != 0) {
            rc = err_set(e,
                         "%s:%d: expected 'at TIME COMMAND', such as 'at "
                         "30s inject outage 10s'",
                         path, n);
            break;
        }
        if (c->t_ns < last) {
            rc = err_set(e, "%s:%d: the times must not go back", path, n);
            break;
        }
        last = c->t_ns;
        while (isspace((unsigned char)*p))
            p++;
        p[strcspn(p, "\r\n")] = '\0';
        snprintf(c->text, sizeof c->text, "%s", p);
        c->line = n;
        if (run_cmd(a, c->text, true, &inner) != 0) {
            rc = err_set(e, "%s:%d: %s", path, n, inner.msg);
            break;
        }
        if (++a->n_script == SCRIPT_MAX) {
            rc = err_set(e, "%s: at most %d commands", path, SCRIPT_MAX);
            break;
        }
    }
    fclose(f);
    if (a->script == NULL)
        return err_set(e, "out of memory");
    return rc;
}

/* Run the commands due at the current time. */
static void run_due(app *a)
{
    while (a->next_cmd < a->n_script && !a->quit &&
           a->script[a->next_cmd].t_ns <= app_now(a)) {
        script_cmd *c = &a->script[a->next_cmd++];
        sb_err e;
        a->scripting = true;
        a->write_failed = false;
        int rc = run_cmd(a, c->text, false, &e);
        a->scripting = false;
        if (rc == 0 && a->write_failed) {
            rc = -1;
            snprintf(e.msg, sizeof e.msg, "%s", a->message);
        }
        if (rc != 0) {
            char msg[ERR_MSG_MAX + 64];
            snprintf(msg, sizeof msg, "%s:%d: %s", a->o.script, c->line, e.msg);
            fail(a, msg);
        }
    }
}

/* ---- The mouse --------------------------------------------------------------------
 *
 * A press hits what the last frame drew there (a->hits).  What changes
 * the run is done by running the script command that says it, and the
 * message shows that command, so a session driven by the mouse can be
 * written down and replayed. */

static int run_cmd(app *a, char *text, bool dry, sb_err *e);
static void controls_of(const app *a, controls_state *c);

/* The hits of a frame, drawn offscreen when none has been drawn yet (a
 * script's click before the first frame). */
static void ensure_hits(app *a)
{
    if (a->hits.n > 0)
        return;
    cairo_surface_t *s =
        cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)a->w, (int)a->h);
    cairo_t *cr = cairo_create(s);
    draw(a, cr, a->w, a->h, &a->hits);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

/* Run cmd for the mouse, and say it as a script line. */
static void act(app *a, const char *cmd)
{
    char buf[LINE_MAX_LEN], dur[32];
    sb_err e;
    int64_t before = app_now(a);
    snprintf(buf, sizeof buf, "%s", cmd);
    a->refused = false;
    /* The note goes after what this action said, never after an earlier
     * message (an export that says nothing until its frame is drawn got
     * the previous action's message and note, then its own). */
    a->message[0] = '\0';
    if (run_cmd(a, buf, false, &e) != 0) {
        say(a, "%s: %s", cmd, e.msg);
        return;
    }
    if (a->refused || a->status)
        return;
    int64_t at = strncmp(cmd, "seek", 4) == 0 ? before : app_now(a);
    /* An action by hand is at a readable instant (hand()); one that does
     * not change the run (a zoom, a line hidden) is said to the
     * millisecond, which is all a script needs of it. */
    if (at % NS_PER_MS == 0)
        units_fmt_duration(at, dur, sizeof dur);
    else
        snprintf(dur, sizeof dur, "%.3fs", (double)at / 1e9);
    size_t n = strlen(a->message);
    snprintf(a->message + n, sizeof a->message - n,
             "%s(as a script line: at %s %s)", n ? "      " : "", dur, cmd);
    /* On stdout too, where lines to paste into a script are wanted. */
    printf("script: at %s %s\n", dur, cmd);
    fflush(stdout);
}

/* The time under x in panel k's plot, within the panels' window. */
static double panel_time(const app *a, int k, double x)
{
    view_layout l;
    view_layout_compute(a->w, a->h, view_font_px_scaled(a->w, a->h, a->scale),
                        a->n_runs, &l);
    double t0, t1;
    time_window(a, &t0, &t1);
    chart_panel p = view_panel_plot(&l, k, t0, t1);
    return fmin(fmax(chart_scale_unmap(&p.x, x), t0), t1);
}

/* A slider's value as the command gives it: the rate to two digits, the
 * workers whole, the timeout to two digits of milliseconds. */
static double slider_snap(int kind, double v)
{
    if (kind == CHANGE_WORKERS)
        return fmax(1.0, round(v));
    double unit = kind == CHANGE_TIMEOUT ? 1e6 : 1.0;
    double x = v / unit, e = pow(10.0, floor(log10(x)) - 1);
    return round(x / e) * e * unit;
}

static void slider_command(int kind, double v, char *buf, size_t len)
{
    char d[32];
    if (kind == CHANGE_RATE)
        snprintf(buf, len, "rate %.2g", v);
    else if (kind == CHANGE_WORKERS)
        snprintf(buf, len, "workers %.0f", v);
    else
        snprintf(buf, len, "timeout %s",
                 units_fmt_duration((int64_t)llround(v), d, sizeof d));
}

static void open_picker(app *a, int r)
{
    if (a->pick.run == r) {
        a->pick.run = -1;
        return;
    }
    picker_fill(&a->pick, &a->cat, a->run[r], r);
    for (int i = 0; i < a->hits.n; i++)
        if (a->hits.hit[i].kind == HIT_POLICY && a->hits.hit[i].a == r)
            a->pick.x = a->hits.hit[i].r.x;
}

static void picker_control(app *a, int id, int arg)
{
    char cmd[LINE_MAX_LEN], spec[256], kv[200];
    int r = a->pick.run;
    if (id == CTL_PICK_CLOSE) {
        a->pick.run = -1;
    } else if (id == CTL_PICK_OFF) {
        a->pick.run = -1;
        act(a, "ab off");
    } else if (id == CTL_PARAM) {
        if (picker_step(session_stack(a->run[r]), arg / 2, arg % 2 ? +1 : -1,
                        kv, sizeof kv) != 0) {
            say(a, "that parameter is at the end of its range");
            return;
        }
        snprintf(cmd, sizeof cmd, "param %c %s", 'A' + r, kv);
        act(a, cmd);
    } else if (picker_click(&a->cat, session_policy(a->run[r]), arg, spec,
                            sizeof spec) == 0) {
        int w = snprintf(cmd, sizeof cmd, "policy %c %s", 'A' + r, spec);
        if (w > 0 && (size_t)w < sizeof cmd)
            act(a, cmd);
    }
}

static void control(app *a, int id, int arg, double x)
{
    char cmd[LINE_MAX_LEN];
    static const char *const exports[EXPORT_KINDS] = {
        "export csv", "export png", "export svg", "export scenario"};
    switch (id) {
    case CTL_PLAY:
        act(a, a->paused ? "resume" : "pause");
        break;
    case CTL_STEP:
        act(a, "step");
        break;
    case CTL_SPEED:
        if (arg == 0) {
            act(a, "speed max");
        } else {
            set_speed(a, arg);
            snprintf(cmd, sizeof cmd, "speed %g", a->speed);
            act(a, a->speed > 0 ? cmd : "speed max");
        }
        break;
    case CTL_KIND:
        a->kind_menu = !a->kind_menu;
        break;
    case CTL_KIND_PICK:
        a->kind = arg;
        a->kind_menu = false;
        break;
    case CTL_SIZE:
        step_size(a, arg);
        break;
    case CTL_LENGTH:
        app_key_down(a, arg > 0 ? ']' : '[');
        break;
    case CTL_INJECT:
        inject_command(a, cmd, sizeof cmd);
        act(a, cmd);
        break;
    case CTL_END:
        act(a, "end");
        break;
    case CTL_SLIDER:
        a->drag = DRAG_SLIDER;
        a->drag_arg = arg;
        app_pointer(a, x, a->hy, true);
        break;
    case CTL_AB:
        act(a, a->n_runs > 1 ? "ab off" : "ab on");
        break;
    case CTL_FOLLOW:
        act(a, "zoom live");
        break;
    case CTL_HELP:
        act(a, a->help ? "help off" : "help on");
        break;
    case CTL_EXPORT:
        act(a, exports[arg]);
        break;
    default:
        picker_control(a, id, arg);
        break;
    }
}

/* Does a press on h belong to the open menu or picker? */
static bool in_popup(const app *a, const view_hit *h)
{
    if (h == NULL)
        return false;
    if (a->kind_menu)
        return h->kind == HIT_CONTROL &&
               (h->a == CTL_KIND_PICK || h->a == CTL_KIND);
    if (h->kind == HIT_POLICY)
        return true;
    return h->kind == HIT_CONTROL && (h->a == 0 || h->a >= CTL_PICK_BASE);
}

static void press(app *a, double x, double y)
{
    ensure_hits(a);
    const view_hit *h = view_hits_at(&a->hits, x, y);
    if ((a->kind_menu || a->pick.run >= 0) && !in_popup(a, h)) {
        a->kind_menu = false; /* a press elsewhere closes it */
        a->pick.run = -1;
        return;
    }
    if (h == NULL)
        return;
    char cmd[LINE_MAX_LEN];
    switch (h->kind) {
    case HIT_TIMELINE:
        a->drag = DRAG_TIMELINE;
        app_pointer(a, x, y, true);
        break;
    case HIT_PANEL:
        a->drag = DRAG_SELECT;
        a->drag_arg = h->a;
        a->drag_x0 = x;
        a->sel_t0 = a->sel_t1 = panel_time(a, h->a, x);
        break;
    case HIT_LEGEND: {
        const char *what = h->a >= 0    ? view_line_key(h->a)
                           : h->a == -1 ? "A"
                                        : "B";
        bool off =
            h->a >= 0 ? (a->hidden >> h->a) & 1 : a->run_hidden[-1 - h->a];
        snprintf(cmd, sizeof cmd, "%s %s", off ? "show" : "hide", what);
        act(a, cmd);
        break;
    }
    case HIT_POLICY:
        open_picker(a, h->a);
        break;
    case HIT_CONTROL:
        control(a, h->a, h->b, x);
        break;
    default:
        break;
    }
}

static void release(app *a, double x)
{
    char cmd[LINE_MAX_LEN], t0[32], t1[32];
    int drag = a->drag;
    a->drag = DRAG_NONE;
    if (drag == DRAG_TIMELINE) {
        double t = a->drag_t;
        a->drag_t = -1;
        snprintf(cmd, sizeof cmd, "seek %s",
                 units_fmt_duration((int64_t)llround(t * 10) * NS_PER_S / 10,
                                    t0, sizeof t0));
        act(a, cmd);
    } else if (drag == DRAG_SELECT) {
        double lo = fmin(a->sel_t0, a->sel_t1), hi = fmax(a->sel_t0, a->sel_t1);
        a->sel_t0 = a->sel_t1 = -1;
        if (fabs(x - a->drag_x0) <
            view_font_px_scaled(a->w, a->h, a->scale) * 0.5)
            return; /* a click, not a drag */
        snprintf(
            cmd, sizeof cmd, "zoom %s %s",
            units_fmt_duration((int64_t)floor(lo) * NS_PER_S, t0, sizeof t0),
            units_fmt_duration((int64_t)ceil(hi) * NS_PER_S, t1, sizeof t1));
        act(a, cmd);
    } else if (drag == DRAG_SLIDER && isfinite(a->slider_v)) {
        slider_command(a->drag_arg, slider_snap(a->drag_arg, a->slider_v), cmd,
                       sizeof cmd);
        act(a, cmd);
    }
}

void app_pointer(app *a, double x, double y, bool inside)
{
    a->hover = inside;
    a->hx = x;
    a->hy = y;
    if (a->drag == DRAG_TIMELINE) {
        view_layout l;
        view_layout_compute(a->w, a->h,
                            view_font_px_scaled(a->w, a->h, a->scale),
                            a->n_runs, &l);
        a->drag_t =
            view_timeline_time(&l, (double)a->o.cfg->duration_ns / 1e9, x);
    } else if (a->drag == DRAG_SELECT) {
        a->sel_t1 = panel_time(a, a->drag_arg, x);
    } else if (a->drag == DRAG_SLIDER) {
        controls_state c;
        controls_of(a, &c);
        a->slider_v = controls_slider_value(&a->hits, &c, a->drag_arg, x);
    }
}

void app_button(app *a, double x, double y, bool down)
{
    if (down)
        press(a, x, y);
    else
        release(a, x);
}

void app_double_click(app *a, double x, double y)
{
    ensure_hits(a);
    const view_hit *h = view_hits_at(&a->hits, x, y);
    if (h && h->kind == HIT_PANEL)
        act(a, "zoom live");
}

/* The wheel zooms the panels' time: each click up shows 1/1.25 as much
 * time, each one down 1.25 times as much; around the pointer when they
 * show a span of the past, up to now when they follow the run. */
void app_wheel(app *a, double x, double y, double clicks)
{
    ensure_hits(a);
    const view_hit *h = view_hits_at(&a->hits, x, y);
    if (h == NULL || h->kind != HIT_PANEL || clicks == 0)
        return;
    double t0, t1, t = panel_time(a, h->a, x);
    time_window(a, &t0, &t1);
    double span = (t1 - t0) * pow(1.25, -clicks);
    char cmd[LINE_MAX_LEN], s0[32], s1[32];
    if (a->end_s < 0) { /* following: the wheel says how much it shows */
        snprintf(cmd, sizeof cmd, "zoom live %s",
                 units_fmt_duration((int64_t)llround(span) * NS_PER_S, s0,
                                    sizeof s0));
        act(a, cmd);
        return;
    }
    double u = (t - t0) / (t1 - t0);
    double n0 = fmax(t - u * span, 0.0), n1 = n0 + span;
    snprintf(cmd, sizeof cmd, "zoom %s %s",
             units_fmt_duration((int64_t)floor(n0) * NS_PER_S, s0, sizeof s0),
             units_fmt_duration((int64_t)ceil(n1) * NS_PER_S, s1, sizeof s1));
    act(a, cmd);
}

/* ---- Life cycle, time ----------------------------------------------------------- */

int app_create(const app_options *o, app **out, sb_err *e)
{
    *out = NULL;
    app *a = calloc(1, sizeof *a);
    if (a == NULL)
        return err_set(e, "out of memory");
    a->o = *o;
    a->speed = o->speed;
    a->inject_s = 10.0;
    a->drag_t = -1;
    a->achieved = -1;
    a->rate_since = -1;
    a->last_fault = -1;
    a->policy_a = -1;
    a->w = 1600;
    a->h = 1000;
    a->scale = 1.0;
    a->slice_ns = o->cfg->bucket_ns;
    a->span_s = o->span_s > 0 ? o->span_s : 120.0;
    a->end_s = -1;
    a->sel_t0 = a->sel_t1 = -1;
    a->slider_v = NAN;
    a->pick.run = -1;
    picker_catalogue_load(&a->cat, o->plugins, o->n_plugins);
    if (view_cache_create(&a->cache, e) != 0)
        goto fail;
    kinds_init(a);
    for (int i = 0; i < o->n_cycle; i++)
        if (strcmp(o->cycle[i], o->policy) == 0)
            a->policy_a = i;
    if (open_run(a, 0, o->policy, o->params, o->n_params, e) != 0)
        goto fail;
    a->n_runs = 1;
    if (o->script && read_script(a, o->script, e) != 0)
        goto fail;
    if (o->vs) {
        set_ab(a, true);
        if (a->status) {
            err_set(e, "%s", a->message);
            goto fail;
        }
    }
    a->message[0] = '\0';
    *out = a;
    return 0;
fail:
    app_destroy(a);
    return -1;
}

void app_destroy(app *a)
{
    if (a == NULL)
        return;
    for (int r = 0; r < VIEW_MAX_RUNS; r++) {
        session_destroy(a->run[r]);
        free(a->scratch[r]);
    }
    free(a->script);
    view_cache_destroy(a->cache);
    free(a);
}

int64_t app_now(const app *a)
{
    return session_now(a->run[0]);
}

double app_real_speed(const app *a)
{
    return a->achieved;
}

bool app_idle(const app *a)
{
    return (a->paused || session_done(a->run[0]) || a->status != 0) &&
           !a->shot_pending;
}

static uint64_t events(const app *a)
{
    uint64_t n = 0;
    for (int r = 0; r < a->n_runs; r++) {
        sim_stats st;
        sim_get_stats(session_sim(a->run[r]), &st);
        n += st.events;
    }
    return n;
}

/* Advance every run to `to`, in slices, for at most budget_s of wall
 * time; the slice grows while slices are cheap and shrinks when one is
 * dear, so a heavy run still gives the window its frames. */
static int step_to(app *a, int64_t to, double budget_s)
{
    double start = wall_now();
    while (app_now(a) < to) {
        int64_t next = app_now(a) + a->slice_ns;
        if (next > to || next < 0)
            next = to;
        double t0 = wall_now();
        for (int r = 0; r < a->n_runs; r++)
            if (session_run_until(a->run[r], next) != 0) {
                fail(a, sim_error(session_sim(a->run[r])));
                return -1;
            }
        double took = wall_now() - t0;
        if (took < budget_s / 16 && a->slice_ns < INT64_MAX / 4)
            a->slice_ns *= 2;
        else if (took > budget_s / 4 && a->slice_ns > 1000)
            a->slice_ns /= 2;
        if (session_done(a->run[0]) || wall_now() - start > budget_s)
            break;
    }
    return 0;
}

/* The speed the header shows: simulated time over the wall time it
 * really took, both over at least half a second.  The wall time a frame
 * hands app_advance is capped (a slow frame must not jump the run), so
 * the run's advance over it claimed the asked speed on a machine that
 * could not give it.  Frames (recording) have no wall time: their rate
 * is the one asked, over their virtual seconds. */
static void measure_rate(app *a, double wall_s, int64_t advanced_ns)
{
    if (a->o.recording) {
        if (wall_s > 0)
            a->achieved = (double)advanced_ns / 1e9 / wall_s;
        return;
    }
    double now = wall_now();
    if (a->paused || session_done(a->run[0]) || a->status != 0) {
        a->rate_since = -1;
        a->achieved = -1;
        return;
    }
    if (a->rate_since < 0) { /* (re)started: the window opens now */
        a->rate_since = now;
        a->rate_sim_ns = 0;
        return;
    }
    a->rate_sim_ns += advanced_ns;
    if (now - a->rate_since >= 0.5) {
        a->achieved = (double)a->rate_sim_ns / 1e9 / (now - a->rate_since);
        a->rate_since = now;
        a->rate_sim_ns = 0;
    }
}

int app_advance(app *a, double wall_s, double budget_s)
{
    run_due(a);
    int64_t before = app_now(a);
    uint64_t ev = events(a);
    double t0 = wall_now();
    bool cut = false;
    if (!a->paused && !session_done(a->run[0]) && a->status == 0) {
        int64_t dur = a->o.cfg->duration_ns;
        int64_t to = a->speed > 0
                         ? before + (int64_t)llround(wall_s * a->speed * 1e9)
                         : dur;
        if (a->next_cmd < a->n_script && a->script[a->next_cmd].t_ns < to) {
            to = a->script[a->next_cmd].t_ns;
            cut = true;
        }
        if (to > dur)
            to = dur;
        if (step_to(a, to, budget_s) != 0)
            return -1;
    }
    double spent = wall_now() - t0;
    if (wall_s > 0 && app_now(a) > before)
        a->events_per_s = spent > 0 ? (double)(events(a) - ev) / spent : 0;
    else if (wall_s > 0) /* paused, ended: no rate to measure */
        a->events_per_s = -1;
    /* A frame cut short by a script's command is no measure of the rate:
     * in frames it showed "1.5e-06 x real time" (50 ns of a frame's
     * 33 ms, the rest of the way to the command's instant). */
    if (!(cut && a->o.recording))
        measure_rate(a, wall_s, app_now(a) - before);
    run_due(a);
    return a->status ? -1 : 0;
}

/* ---- Drawing and the rest ------------------------------------------------------ */

/* What the controls show now. */
static void controls_of(const app *a, controls_state *c)
{
    memset(c, 0, sizeof *c);
    c->paused = a->paused;
    c->ended = session_done(a->run[0]);
    c->speed = a->speed;
    c->kind = a->kind;
    c->n_kinds = N_KINDS;
    for (int k = 0; k < N_KINDS; k++)
        c->kind_names[k] = kinds[k].name;
    c->kind_menu = a->kind_menu;
    size_text(kinds[a->kind].size, a->size[a->kind], c->size_text,
              sizeof c->size_text);
    c->inject_s = a->inject_s;
    c->can_end = a->last_fault >= 0 &&
                 sim_fault_active(session_sim(a->run[0]), a->last_fault);
    c->ab = a->n_runs > 1;
    c->following = a->end_s < 0;
    const sim_config *cfg = a->o.cfg;
    double w =
        cfg->server.workers == SIM_UNLIMITED ? 1 : (double)cfg->server.workers;
    double lo[CHANGE_KINDS] = {0.1, 1, 10e6};
    double hi[CHANGE_KINDS] = {
        10, fmax(4 * w, 64),
        fmax(10.0 * (double)cfg->clients.timeout_ns, 10e9)};
    for (int k = 0; k < CHANGE_KINDS; k++) {
        controls_slider *sl = &c->slider[k];
        sl->active =
            a->drag == DRAG_SLIDER && a->drag_arg == k && isfinite(a->slider_v);
        sl->value = sl->active ? slider_snap(k, a->slider_v)
                               : session_current(a->run[0], k);
        sl->lo = lo[k];
        sl->hi = hi[k];
        if (k == CHANGE_RATE)
            snprintf(sl->text, sizeof sl->text, "x%.2f", sl->value);
        else if (k == CHANGE_WORKERS && cfg->server.workers == SIM_UNLIMITED)
            snprintf(sl->text, sizeof sl->text, "unlimited");
        else if (k == CHANGE_WORKERS)
            snprintf(sl->text, sizeof sl->text, "%.0f", sl->value);
        else if (sl->value >= 1e9)
            snprintf(sl->text, sizeof sl->text, "%.3g s", sl->value / 1e9);
        else
            snprintf(sl->text, sizeof sl->text, "%.3g ms", sl->value / 1e6);
    }
    c->picker = a->pick.run >= 0 && a->pick.run < a->n_runs ? &a->pick : NULL;
}

/* The view's state now. */
static void state_of(const app *a, view_state *v_, view_hits *hits)
{
    view_state v;
    memset(&v, 0, sizeof v);
    v.scenario = a->o.cfg->name;
    if (a->o.policy_from && a->o.policy &&
        strcmp(session_policy(a->run[0]), a->o.policy) == 0)
        v.policy_from = a->o.policy_from;
    v.scale = a->scale;
    for (int r = 0; r < a->n_runs; r++) {
        v.runs[r] = a->run[r];
        v.scratch[r] = a->scratch[r];
        v.run_hidden[r] = a->run_hidden[r];
    }
    v.n_runs = a->n_runs;
    v.speed = a->speed;
    v.achieved = a->achieved;
    v.events_per_s = a->o.recording ? -1 : a->events_per_s;
    v.events = (double)events(a);
    v.paused = a->paused;
    v.span_s = a->span_s;
    v.end_s = a->end_s;
    v.hidden = a->hidden;
    v.select_t0 = a->drag == DRAG_SELECT ? a->sel_t0 : -1;
    v.select_t1 = a->drag == DRAG_SELECT ? a->sel_t1 : -1;
    v.by_process = a->by_process;
    v.hover = a->hover && a->drag != DRAG_SLIDER;
    v.hx = a->hx;
    v.hy = a->hy;
    v.drag_t = a->drag == DRAG_TIMELINE ? a->drag_t : -1;
    v.inject_s = a->inject_s;
    v.prompt = a->menu ? "inject now: 1 outage (blackhole)  2 outage "
                         "(refused)  3 latency +500 ms  4 errors 503 (50%)  "
                         "5 half the workers  6 load x2  7 lost acks (30%)"
                       : NULL;
    v.message = a->message[0] ? a->message : NULL;
    v.hits = hits;
    *v_ = v;
}

/* The view, the controls over it and the help over both; what was drawn
 * where goes to hits (when given). */
static void draw(const app *a, cairo_t *cr, double w, double h, view_hits *hits)
{
    view_state v;
    state_of(a, &v, hits);
    view_draw(cr, w, h, &v);
    view_layout l;
    view_layout_compute(w, h, view_font_px_scaled(w, h, a->scale), a->n_runs,
                        &l);
    controls_state c;
    controls_of(a, &c);
    controls_draw(cr, &l, &c, hits);
    if (a->help)
        view_help(cr, w, h);
}

void app_set_scale(app *a, double s)
{
    a->scale = s > 0 ? s : 1.0;
}

void app_draw(const app *a, cairo_t *cr, double w, double h)
{
    app *m = (app *)a; /* the size and the hits are kept for the mouse */
    m->w = w;
    m->h = h;
    draw(a, cr, w, h, &m->hits);
}

int app_draw_changed(app *a, cairo_t *cr, double w, double h, bool fresh,
                     chart_rect *changed)
{
    a->w = w;
    a->h = h;
    /* A menu, the picker or the help lies over several regions: while
     * one is open, and the frame after it closed, all is drawn. */
    bool popup = a->help || a->kind_menu || a->pick.run >= 0;
    bool was = a->popup_shown;
    a->popup_shown = popup;
    if (fresh || popup || was || a->cache == NULL) {
        draw(a, cr, w, h, &a->hits);
        changed[0] = (chart_rect){0, 0, w, h};
        memset(&a->shown_controls, 0, sizeof a->shown_controls);
        return 1;
    }
    view_state v;
    state_of(a, &v, &a->hits);
    v.cache = a->cache;
    int n = view_draw_changed(cr, w, h, &v, changed);
    view_layout l;
    view_layout_compute(w, h, view_font_px_scaled(w, h, a->scale), a->n_runs,
                        &l);
    controls_state c;
    controls_of(a, &c);
    if (memcmp(&c, &a->shown_controls, sizeof c) != 0) {
        view_hits_clear(&a->controls_hits);
        cairo_save(cr);
        cairo_rectangle(cr, l.controls.x, l.controls.y, l.controls.w,
                        l.controls.h);
        cairo_clip(cr);
        controls_draw(cr, &l, &c, &a->controls_hits);
        cairo_restore(cr);
        a->shown_controls = c;
        changed[n++] = l.controls;
    }
    for (int i = 0; i < a->controls_hits.n; i++) {
        const view_hit *t = &a->controls_hits.hit[i];
        view_hits_add(&a->hits, t->r, t->kind, t->a, t->b);
    }
    return n;
}

int app_runs(const app *a)
{
    return a->n_runs;
}

const session *app_run(const app *a, int r)
{
    return r >= 0 && r < a->n_runs ? a->run[r] : NULL;
}

const view_hits *app_hits(const app *a)
{
    return &a->hits;
}

void app_header_line(const app *a, char *line, size_t len)
{
    view_state v;
    state_of(a, &v, NULL);
    view_header_line(&v, line, len);
}

bool app_quit(const app *a)
{
    return a->quit;
}

int app_status(const app *a)
{
    return a->status;
}

const char *app_message(const app *a)
{
    return a->message[0] ? a->message : NULL;
}

const char *app_shot_wanted(const app *a)
{
    return a->shot_pending ? a->shot : NULL;
}

void app_shot_done(app *a, int rc, const char *error)
{
    a->shot_pending = false;
    if (rc == 0) {
        /* The footer already says it (screenshot()), with its script
         * line when the mouse asked for it. */
        printf("screenshot %s\n", a->shot);
        fflush(stdout);
    } else if (a->shot_line > 0) {
        char msg[ERR_MSG_MAX + 1100];
        snprintf(msg, sizeof msg, "%s:%d: screenshot %s failed: %s",
                 a->o.script, a->shot_line, a->shot, error ? error : "?");
        fail(a, msg);
    } else {
        say(a, "screenshot %s failed: %s", a->shot, error ? error : "?");
    }
}

static cairo_status_t write_stream(void *closure, const unsigned char *data,
                                   unsigned int len)
{
    FILE *f = closure;
    return fwrite(data, 1, len, f) == len ? CAIRO_STATUS_SUCCESS
                                          : CAIRO_STATUS_WRITE_ERROR;
}

int app_write_png(cairo_surface_t *s, const char *path, sb_err *e)
{
    outfile o;
    if (outfile_open(&o, path, e) != 0)
        return -1;
    cairo_status_t st = cairo_surface_write_to_png_stream(s, write_stream, o.f);
    if (st != CAIRO_STATUS_SUCCESS) {
        outfile_abort(&o);
        return err_set(e, "%s: %s", path, cairo_status_to_string(st));
    }
    return outfile_commit(&o, e);
}
