/*
 * app.c -- the GUI's behaviour (app.h).
 */
#include "app.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "outfile.h"
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
    bool menu; /* the inject menu is open */
    int policy_a;   /* index into the cycle of A's policy, or -1 */
    int last_fault; /* the last fault injected by hand, or -1 */
    double achieved, events_per_s; /* achieved < 0: not measured yet */
    double rate_since;   /* wall time the rate's window began; < 0 none */
    int64_t rate_sim_ns; /* simulated time advanced in it */
    int64_t slice_ns; /* the simulation slice, adapted to the budget */
    bool dragging;
    double drag_t;
    bool hover;
    double hx, hy, w, h;
    char message[1024];
    char shot[1024];
    bool shot_pending;
    script_cmd *script;
    int n_script, next_cmd;
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

static void say(app *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void say(app *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->message, sizeof a->message, fmt, ap);
    va_end(ap);
    printf("%s\n", a->message);
    fflush(stdout);
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
    session_opts so = {a->o.cfg,         policy,     params,
                       n_params,         a->o.plugins, a->o.n_plugins};
    if (session_create(&so, &a->run[r], e) != 0)
        return -1;
    free(a->scratch[r]);
    a->scratch[r] = malloc(a->o.cfg->clients.count);
    return a->scratch[r] ? 0 : err_set(e, "out of memory");
}

/* The next policy of the cycle after index i that differs from `not`. */
static int next_policy(const app *a, int i, const char *not)
{
    for (int k = 1; k <= a->o.n_cycle; k++) {
        int j = (i + k + a->o.n_cycle) % a->o.n_cycle;
        if (not == NULL || strcmp(a->o.cycle[j], not) != 0)
            return j;
    }
    return -1;
}

static void set_ab_with(app *a, bool on, const char *policy);

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
    if (a->n_runs == 2)
        return;
    const char *vs = policy ? policy : a->o.vs;
    if (vs == NULL) {
        int j = next_policy(a, a->policy_a, session_policy(a->run[0]));
        if (j < 0) {
            say(a, "A/B: no other policy to compare with (give --vs)");
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
    sb_err e;
    if (session_set_policy(a->run[0], spec, NULL, 0, &e) != 0) {
        say(a, "policy %s: %s", spec, e.msg);
        return;
    }
    const session_action *log;
    int n = session_actions(a->run[0], &log);
    say(a, "policy A: %s, replayed to t = %.1f s on the same seed%s", spec,
        (double)app_now(a) / 1e9,
        n ? " with what you injected and changed" : "");
}

static void seek(app *a, double t_s)
{
    sb_err e;
    int64_t t = (int64_t)llround(t_s * 1e9);
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
    for (int r = 0; r < a->n_runs; r++) {
        int i = session_inject(a->run[r], f, &e);
        if (i < 0) {
            say(a, "cannot inject: %s", e.msg);
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
    if (a->last_fault < 0 || !session_end_fault(a->run[0], a->last_fault)) {
        say(a, "no injected fault is running");
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
    for (int r = 0; r < a->n_runs; r++)
        if (session_change(a->run[r], k, value, &e) != 0) {
            say(a, "cannot change: %s", e.msg);
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
        say(a, "the server has unlimited workers");
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

static void default_path(const app *a, const char *ext, char *buf,
                         size_t len)
{
    snprintf(buf, len, "%s/%s-t%.0f.%s", a->o.out_dir ? a->o.out_dir : "out",
             a->o.cfg->name, (double)app_now(a) / 1e9, ext);
}

static void screenshot(app *a, const char *path)
{
    if (path)
        snprintf(a->shot, sizeof a->shot, "%s", path);
    else
        default_path(a, "png", a->shot, sizeof a->shot);
    a->shot_pending = true;
}

static void save(app *a, const char *path)
{
    char buf[1024];
    if (path == NULL) {
        default_path(a, "ini", buf, sizeof buf);
        path = buf;
    }
    if (a->o.save == NULL) {
        say(a, "saving scenarios is not available here");
        return;
    }
    sim_config cfg;
    sim_summary sum;
    sb_err e;
    if (session_as_scenario(a->run[0], &cfg, &sum, &e) != 0) {
        say(a, "cannot save: %s", e.msg);
        return;
    }
    setting expect[SESSION_MAX_EXPECT];
    int n = session_expectations(&sum, expect, SESSION_MAX_EXPECT);
    const char *policy = session_policy(a->run[0]);
    /* Parameters apply to A's original policy only. */
    bool original = strcmp(policy, a->o.policy) == 0;
    if (a->o.save(a->o.save_ctx, path, &cfg, policy,
                  original ? a->o.params : NULL, original ? a->o.n_params : 0,
                  a->o.plugins, a->o.n_plugins, expect, n, &e) != 0) {
        say(a, "cannot save: %s", e.msg);
        return;
    }
    char rec[128] = "";
    if (sum.recovery_judged)
        snprintf(rec, sizeof rec, ", %s",
                 sum.metastable ? "metastable" : "recovered");
    if (sum.recovered) {
        size_t l = strlen(rec);
        snprintf(rec + l, sizeof rec - l, " after %.0f s",
                 sum.recovery_time_s);
    }
    say(a, "saved %s: %.0f s, amplification %.4f, success ratio %.4f, "
        "duplicates %llu, p99 %.1f ms%s",
        path, sum.duration_s, sum.amplification, sum.success_ratio,
        (unsigned long long)sum.duplicates, sum.latency_p99_ms, rec);
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
                session_run_until(a->run[r], app_now(a) +
                                                 a->o.cfg->bucket_ns);
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
    case 'g':
        a->by_process = !a->by_process;
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

void app_pointer(app *a, double x, double y, bool inside)
{
    a->hover = inside;
    a->hx = x;
    a->hy = y;
    if (a->dragging) {
        view_layout l;
        view_layout_compute(a->w, a->h, view_font_px(a->w, a->h), a->n_runs,
                            &l);
        a->drag_t = view_timeline_time(
            &l, (double)a->o.cfg->duration_ns / 1e9, x);
    }
}

void app_button(app *a, double x, double y, bool down)
{
    view_layout l;
    view_layout_compute(a->w, a->h, view_font_px(a->w, a->h), a->n_runs, &l);
    double dur = (double)a->o.cfg->duration_ns / 1e9;
    if (down && view_on_timeline(&l, x, y)) {
        a->dragging = true;
        a->drag_t = view_timeline_time(&l, dur, x);
        return;
    }
    if (!down && a->dragging) {
        a->dragging = false;
        double t = a->drag_t;
        a->drag_t = -1;
        if (t < (double)app_now(a) / 1e9)
            seek(a, t);
        else
            for (int r = 0; r < a->n_runs; r++)
                session_run_until(a->run[r], (int64_t)llround(t * 1e9));
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

/* Turn a script's inject command into a fault; the duration is its last
 * word when that is a duration, else the current injection length. */
static int script_fault(app *a, char *p, fault_cfg *f, sb_err *e)
{
    char *words[8];
    int n = 0;
    for (char *w; n < 8 && (w = next_word(&p)) != NULL;)
        words[n++] = w;
    if (n == 0)
        return err_set(e, "inject what? (outage, latency, errors, capacity, "
                          "load_spike, lost_ack, slowdown)");
    memset(f, 0, sizeof *f);
    f->duration_ns = (int64_t)llround(a->inject_s * 1e9);
    sb_err inner;
    int64_t d;
    if (n > 1 && units_duration(words[n - 1], &d, &inner) == 0 &&
        !(n == 2 && strcmp(words[0], "latency") == 0)) {
        f->duration_ns = d;
        n--;
    }
    if (fault_type_parse(words[0], &f->type) != 0)
        return err_set(e, "unknown fault type '%s'", words[0]);
    double x;
    switch (f->type) {
    case FAULT_OUTAGE:
        f->mode = n > 1 && strcmp(words[1], "refuse") == 0 ? CUT_REFUSE
                                                            : CUT_BLACKHOLE;
        return 0;
    case FAULT_LATENCY:
        return n > 1 ? units_duration(words[1], &f->delay_ns, e)
                     : err_set(e, "inject latency DELAY [DURATION]");
    case FAULT_ERRORS:
        if (n < 3 || units_real(words[2], &f->probability, e) != 0)
            return err_set(e, "inject errors STATUS PROBABILITY [DURATION]");
        f->kind = SB_ERR_HTTP;
        f->status = atoi(words[1]);
        return 0;
    case FAULT_CAPACITY:
        if (n < 2 || units_real(words[1], &x, e) != 0 || x < 0)
            return err_set(e, "inject capacity WORKERS [DURATION]");
        f->workers = (uint32_t)x;
        return 0;
    case FAULT_LOAD_SPIKE:
    case FAULT_SLOWDOWN:
        if (n < 2 || units_real(words[1], &f->multiplier, e) != 0)
            return err_set(e, "inject %s MULTIPLIER [DURATION]", words[0]);
        return 0;
    case FAULT_LOST_ACK:
        if (n < 2 || units_real(words[1], &f->probability, e) != 0)
            return err_set(e, "inject lost_ack PROBABILITY [DURATION]");
        return 0;
    default:
        return err_set(e, "'%s' cannot be injected from a script", words[0]);
    }
}

static int key_name(const char *w)
{
    static const struct {
        const char *name;
        int key;
    } names[] = {{"space", ' '},   {"up", KEY_UP},       {"down", KEY_DOWN},
                 {"left", KEY_LEFT}, {"right", KEY_RIGHT}, {"escape", 27}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(w, names[i].name) == 0)
            return names[i].key;
    return strlen(w) == 1 ? (unsigned char)w[0] : -1;
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
    } else if (strcmp(cmd, "rate") == 0 || strcmp(cmd, "workers") == 0) {
        arg = next_word(&p);
        if (arg == NULL || units_real(arg, &x, e) != 0 || x <= 0)
            return err_set(e, "%s VALUE (a positive number)", cmd);
        if (!dry)
            change(a, cmd[0] == 'r' ? CHANGE_RATE : CHANGE_WORKERS, x);
    } else if (strcmp(cmd, "timeout") == 0) {
        if (parse_time(next_word(&p), &ns, e) != 0)
            return -1;
        if (!dry)
            change(a, CHANGE_TIMEOUT, (double)ns);
    } else if (strcmp(cmd, "ab") == 0) {
        arg = next_word(&p);
        if (arg == NULL || (strcmp(arg, "on") && strcmp(arg, "off")))
            return err_set(e, "ab on [POLICY] | ab off");
        char *vs = strcmp(arg, "on") == 0 ? next_word(&p) : NULL;
        if (!dry)
            set_ab_with(a, strcmp(arg, "on") == 0, vs);
    } else if (strcmp(cmd, "policy") == 0) {
        arg = next_word(&p);
        if (arg == NULL)
            return err_set(e, "policy NAME[+NAME...]");
        if (!dry)
            set_policy(a, arg);
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
        return err_set(e, "unknown command '%s' (inject, end, pause, resume, "
                          "speed, rate, workers, timeout, ab, policy, "
                          "restart, seek, screenshot, save, help, hover, "
                          "key, quit)",
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
            rc = err_set(e, "%s:%d: expected 'at TIME COMMAND', such as 'at "
                         "30s inject outage 10s'", path, n);
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
        if (run_cmd(a, c->text, false, &e) != 0) {
            char msg[ERR_MSG_MAX + 64];
            snprintf(msg, sizeof msg, "%s:%d: %s", a->o.script, c->line,
                     e.msg);
            fail(a, msg);
        }
    }
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
    a->slice_ns = o->cfg->bucket_ns;
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
    if (!a->paused && !session_done(a->run[0]) && a->status == 0) {
        int64_t dur = a->o.cfg->duration_ns;
        int64_t to = a->speed > 0
                         ? before + (int64_t)llround(wall_s * a->speed * 1e9)
                         : dur;
        if (a->next_cmd < a->n_script && a->script[a->next_cmd].t_ns < to)
            to = a->script[a->next_cmd].t_ns;
        if (to > dur)
            to = dur;
        if (step_to(a, to, budget_s) != 0)
            return -1;
    }
    double spent = wall_now() - t0;
    if (wall_s > 0)
        a->events_per_s = spent > 0 ? (double)(events(a) - ev) / spent : 0;
    measure_rate(a, wall_s, app_now(a) - before);
    run_due(a);
    return a->status ? -1 : 0;
}

/* ---- Drawing and the rest ------------------------------------------------------ */

void app_draw(const app *a, cairo_t *cr, double w, double h)
{
    app *m = (app *)a; /* the size is remembered for hit-testing */
    m->w = w;
    m->h = h;
    view_state v;
    memset(&v, 0, sizeof v);
    v.scenario = a->o.cfg->name;
    for (int r = 0; r < a->n_runs; r++) {
        v.runs[r] = a->run[r];
        v.scratch[r] = a->scratch[r];
    }
    v.n_runs = a->n_runs;
    v.speed = a->speed;
    v.achieved = a->achieved;
    v.events_per_s = a->o.recording ? -1 : a->events_per_s;
    v.events = (double)events(a);
    v.paused = a->paused;
    v.span_s = a->o.span_s > 0 ? a->o.span_s : 120.0;
    v.help = a->help;
    v.by_process = a->by_process;
    v.hover = a->hover;
    v.hx = a->hx;
    v.hy = a->hy;
    v.drag_t = a->drag_t;
    v.inject_s = a->inject_s;
    v.prompt = a->menu ? "inject now: 1 outage (blackhole)  2 outage "
                         "(refused)  3 latency +500 ms  4 errors 503 (50%)  "
                         "5 half the workers  6 load x2  7 lost acks (30%)"
                       : NULL;
    v.message = a->message[0] ? a->message : NULL;
    view_draw(cr, w, h, &v);
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
    if (rc == 0)
        say(a, "screenshot %s", a->shot);
    else
        say(a, "screenshot %s failed: %s", a->shot, error ? error : "?");
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
    cairo_status_t st = cairo_surface_write_to_png_stream(s, write_stream,
                                                          o.f);
    if (st != CAIRO_STATUS_SUCCESS) {
        outfile_abort(&o);
        return err_set(e, "%s: %s", path, cairo_status_to_string(st));
    }
    return outfile_commit(&o, e);
}
