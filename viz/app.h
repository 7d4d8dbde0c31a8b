/*
 * app.h -- the GUI's behaviour without its window: the runs (A and an
 * optional B in lockstep on the same random numbers), the speed and the
 * pause, what each key does, the script of timed actions, screenshots and
 * saving the run as a scenario.  viz/gui.c puts it in an SDL window; the
 * --frames mode renders it to PNG files with no window at all, so docs
 * and CI get the same picture.
 *
 * Time: the app advances simulated time by wall time x speed, in slices,
 * within a budget of wall time per frame, so the window stays responsive
 * however heavy the run; a script's actions run at their exact simulated
 * instants (the app stops the run there).
 *
 * The app owns its sessions and the script; the options' strings are
 * borrowed and must outlive it.
 */
#ifndef SB_APP_H
#define SB_APP_H

#include <stdbool.h>
#include <stdint.h>

#include <cairo.h>

#include "config.h"
#include "err.h"
#include "session.h"
#include "setting.h"
#include "view.h"

/* Writes a scenario file (the CLI does it, with the scenario writer):
 * 0, or -1 with a message. */
typedef int (*app_save_fn)(void *ctx, const char *path, const sim_config *cfg,
                           const char *policy, const setting *params,
                           int n_params, const char *const *plugins,
                           int n_plugins, const setting *expect, int n_expect,
                           sb_err *e);

typedef struct app_options {
    const sim_config *cfg;
    const char *policy; /* run A */
    /* FILE#selector that policy was imported from, or NULL: the header
     * says so while run A runs it. */
    const char *policy_from;
    const setting *params;
    int n_params;
    const char *vs;           /* run B's policy, or NULL */
    const char *const *cycle; /* policies `p` and `v` choose from */
    int n_cycle;
    const char *const *plugins;
    int n_plugins;
    double speed;        /* x real time; 0: as fast as it goes */
    double span_s;       /* the panels' window; 0: 120 s */
    const char *out_dir; /* screenshots and saved scenarios */
    const char *script;  /* a script file, or NULL */
    app_save_fn save;
    void *save_ctx;
    bool recording; /* frames: show nothing measured in wall
                                  time, so frames are deterministic */
} app_options;

/* The keys the app knows (the window maps its own onto these). */
typedef enum app_key {
    KEY_NONE = 0,
    KEY_SPACE = ' ',
    KEY_PLUS = '+',
    KEY_MINUS = '-',
    KEY_ZERO = '0',
    KEY_STEP = '.',
    KEY_ESCAPE = 27,
    KEY_UP = 256,
    KEY_DOWN,
    KEY_LEFT,
    KEY_RIGHT
    /* and the letters and digits as themselves */
} app_key;

typedef struct app app;

int app_create(const app_options *o, app **out, sb_err *e);
void app_destroy(app *a);

/* Advance by wall_s seconds of wall time, spending at most budget_s of
 * wall time on simulation; runs the script's actions that come due.
 * Returns 0, or -1 when a run stopped with an error (app_message says). */
int app_advance(app *a, double wall_s, double budget_s);
/* Simulated time of run A, ns. */
int64_t app_now(const app *a);
/* Simulated seconds per wall second, over the last half second or more
 * of running, as the header shows it; < 0 while not running or not
 * measured yet. */
double app_real_speed(const app *a);
/* Nothing moves: paused, at the end of the run or stopped by an error,
 * and no screenshot waits to be taken.  The picture changes only with
 * input then, so a window may wait for it instead of drawing frames. */
bool app_idle(const app *a);

/* Input. */
void app_key_down(app *a, int key);
void app_pointer(app *a, double x, double y, bool inside);
void app_button(app *a, double x, double y, bool down);
void app_double_click(app *a, double x, double y);
/* The wheel turned by `clicks` (up positive) at (x, y). */
void app_wheel(app *a, double x, double y, double clicks);

/* Draw the view (w x h device units). */
/* Pixels per window unit of the picture drawn next (HiDPI: 2; the
 * pointer's positions come in pixels too): text and layout are the 1x
 * view's, times s. */
void app_set_scale(app *a, double s);
void app_draw(const app *a, cairo_t *cr, double w, double h);
/* Draw into the picture the last frame was drawn into (unless fresh:
 * then all of it) only what changed since; the rectangles redrawn go to
 * changed (VIEW_REGIONS + 1 at most), and their number is returned. */
int app_draw_changed(app *a, cairo_t *cr, double w, double h, bool fresh,
                     chart_rect *changed);

/* The runs (A, then B when A/B is on), and what the last frame drew
 * where: for tests that drive the app as the window does. */
int app_runs(const app *a);
const session *app_run(const app *a, int r);
const view_hits *app_hits(const app *a);
/* The header's first line as the next frame shows it. */
void app_header_line(const app *a, char *line, size_t len);

/* Should the app quit?  Its exit status (0, or 2 after an error). */
bool app_quit(const app *a);
int app_status(const app *a);
/* The latest message (saved files, errors), for stdout and the status
 * bar; NULL when none. */
const char *app_message(const app *a);

/* A screenshot is wanted at this path (the window reads back what it
 * shows; --frames writes its surface): take it and call app_shot_done.
 * NULL when none is pending. */
const char *app_shot_wanted(const app *a);
void app_shot_done(app *a, int rc, const char *error);

/* Write a cairo image surface to path, whole or not at all. */
int app_write_png(cairo_surface_t *s, const char *path, sb_err *e);

#endif
