/*
 * view.h -- the GUI's picture of one or two runs, drawn with cairo onto
 * any surface: the live window, PNG frames, screenshots.
 *
 *   header     scenario, simulated time, speed, events/s; per run its
 *              policy and live figures (amplification, duplicates,
 *              recovery, a warning while goodput has not come back)
 *   panels     load; goodput and success; queue wait and latency against
 *              the client timeout, and the queue; duplicates and
 *              quarantined requests; the policy's state -- scrolling
 *              with simulated time, faults shaded, live changes marked
 *   clients    a field of cells, one per client (or process, or group),
 *              coloured by what each is doing now
 *   server     busy workers against capacity and the queue against its
 *              limit, with the part of each that serves nobody any more
 *   timeline   the whole run, where we are, where the faults were; drag
 *              it to go back in time
 *
 * The view reads the sessions and keeps nothing of its own between
 * frames except scratch for grouping the field (view_state.scratch); the
 * layout is a pure function of the size, so input handling can hit-test
 * what was drawn.
 */
#ifndef SB_VIEW_H
#define SB_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "chart.h"
#include "session.h"

#define VIEW_PANELS 5
#define VIEW_MAX_RUNS 2

typedef struct view_layout {
    chart_rect header, panels[VIEW_PANELS];
    chart_rect field[VIEW_MAX_RUNS], server[VIEW_MAX_RUNS];
    chart_rect timeline, status;
    double font_px;
} view_layout;

typedef struct view_state {
    const char *scenario;           /* its name */
    const session *runs[VIEW_MAX_RUNS];
    int n_runs;
    double speed;                   /* asked for, x real time; 0: as fast
                                       as possible */
    double achieved;                /* measured, x real time; < 0: not
                                       running or not measured yet */
    double events_per_s;            /* measured, engine events per wall s;
                                       < 0: not measured (frames) */
    double events;                  /* engine events so far, every run */
    bool paused;
    double span_s;                  /* the panels' time window */
    bool help;                      /* the help overlay */
    bool by_process;                /* the field shows processes */
    bool hover;                     /* the pointer is at (hx, hy) */
    double hx, hy;
    double drag_t;                  /* timeline drag target, s; < 0 none */
    double inject_s;                /* duration of the next injection */
    const char *prompt;             /* a menu line, or NULL */
    const char *message;            /* the last status message, or NULL */
    uint8_t *scratch[VIEW_MAX_RUNS]; /* per-process grouping, n_processes
                                        bytes each (the caller's) */
} view_state;

/* The text size a w x h view uses (everything scales from it). */
double view_font_px(double w, double h);
/* Lay out a w x h view for n_runs runs, text at font_px. */
void view_layout_compute(double w, double h, double font_px, int n_runs,
                         view_layout *out);
/* Draw the whole view. */
void view_draw(cairo_t *cr, double w, double h, const view_state *v);

/* The time (s) on the timeline under x, clamped to [0, duration_s]. */
double view_timeline_time(const view_layout *l, double duration_s, double x);
/* Is (x, y) on the timeline? */
bool view_on_timeline(const view_layout *l, double x, double y);

/* The states shown in the field, as chart colours (sim_client_mode
 * order) and names. */
extern const chart_style view_mode_colours[CLIENT_MODE_COUNT];
extern const char *const view_mode_names[CLIENT_MODE_COUNT];

#endif
