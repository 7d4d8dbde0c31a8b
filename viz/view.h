/*
 * view.h -- the GUI's picture of one or two runs, drawn with cairo onto
 * any surface: the live window, PNG frames, screenshots, SVG.
 *
 *   header     scenario, simulated time, speed, events/s; per run its
 *              policy (a button: the policy picker) and live figures
 *              (amplification, duplicates, recovery, a warning while
 *              goodput has not come back)
 *   panels     load; goodput and success; queue wait and latency against
 *              the client timeout, and the queue; duplicates and
 *              quarantined requests; the policy's state -- over a time
 *              window that follows simulated time or is pinned by a zoom;
 *              faults and changes made by hand shaded and named; a legend
 *              whose items switch their series on and off; a crosshair
 *              at the pointer's time in every panel, and a tooltip
 *   clients    a field of cells, one per client (or process, or group),
 *              coloured by what each is doing now; a cell that holds
 *              several shows the share of each state
 *   server     busy workers against capacity and the queue against its
 *              limit, with the part of each that serves nobody any more
 *   timeline   the whole run, where we are, where the faults were; drag
 *              it to go back in time
 *   controls   the on-screen controls (controls.h draws them there)
 *   status     the last message, and the key hints beside it
 *
 * Two runs (A/B) are told apart by a colour family each: A's series in
 * cool colours (blues, green), B's in warm ones (vermillion, orange,
 * purple); within a run a series keeps its colour's place and its dash,
 * so "attempts" is the second colour of A's family and of B's.
 *
 * The view reads the sessions and keeps nothing of its own between
 * frames; what it drew where is recorded in view_state.hits (when given)
 * so input hits exactly what the user saw.  The layout is a pure function
 * of the size.
 */
#ifndef SB_VIEW_H
#define SB_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "chart.h"
#include "err.h"
#include "session.h"

#define VIEW_PANELS 5
#define VIEW_MAX_RUNS 2

typedef struct view_layout {
    chart_rect header, panels[VIEW_PANELS];
    chart_rect field[VIEW_MAX_RUNS], server[VIEW_MAX_RUNS];
    chart_rect timeline, controls, status;
    double font_px;
} view_layout;

/* ---- Series ---------------------------------------------------------------- */

/* Every line the panels can show, by a name a script uses ("hide
 * attempts"): bit (1 << id) of view_state.hidden switches it off. */
typedef enum view_line {
    LINE_OFFERED = 0,
    LINE_ATTEMPTS,
    LINE_CAPACITY,
    LINE_GOODPUT,
    LINE_SUCCESS,
    LINE_QUEUE_WAIT,
    LINE_P50,
    LINE_P99,
    LINE_QUEUE,
    LINE_DUPLICATES,
    LINE_QUARANTINED,
    LINE_DEAD_LETTERS,
    LINE_WARNINGS,
    LINE_CRITICAL,
    LINE_BREAKERS,
    LINE_REFUSED,
    LINE_ALLOWANCE,
    LINE_COUNT
} view_line;

/* The script's name of a line ("queue_wait"), and the line of a name
 * (-1 when none). */
const char *view_line_key(int line);
int view_line_find(const char *key);

/* ---- What was drawn where -------------------------------------------------- */

typedef enum view_hit_kind {
    HIT_NONE = 0,
    HIT_PANEL,    /* a panel's plot: a = panel (wheel zooms, drag selects) */
    HIT_LEGEND,   /* a legend item: a = line, or -1 - run for a run's chip */
    HIT_TIMELINE, /* drag to go back in time */
    HIT_POLICY,   /* a run's policy in the header: a = run */
    HIT_CONTROL,  /* an on-screen control: a = its id, b its argument
                     (controls.h) */
    HIT_LABEL     /* text drawn (recorded when labels is set): for tests
                     that check nothing overprints; a = panel or -1, b a
                     view_label_tag */
} view_hit_kind;

/* What a HIT_LABEL is. */
enum view_label_tag {
    VIEW_LABEL_TEXT = 0, /* any other text */
    VIEW_LABEL_TOOLTIP = 1,
    VIEW_LABEL_REFERENCE = 2, /* a reference line's name: the baseline,
                                 the client timeout */
    VIEW_LABEL_FAULT = 3,     /* a fault's name along a panel's top */
    VIEW_LABEL_CHANGE = 4,    /* a live change's name */
    VIEW_LABEL_STRIP = 5      /* a live change's strip (not text: its span) */
};

typedef struct view_hit {
    chart_rect r;
    int kind, a, b;
} view_hit;

#define VIEW_MAX_HITS 512

typedef struct view_hits {
    view_hit hit[VIEW_MAX_HITS];
    int n;
    bool labels; /* record the text drawn, too */
} view_hits;

/* Forget every hit. */
void view_hits_clear(view_hits *h);
/* Record r as kind (a, b); silently full past VIEW_MAX_HITS. */
void view_hits_add(view_hits *h, chart_rect r, int kind, int a, int b);
/* The last hit recorded that holds (x, y) and is not a label (the one
 * drawn on top), or NULL. */
const view_hit *view_hits_at(const view_hits *h, double x, double y);

/* ---- What the last frame drew ------------------------------------------------
 *
 * A window redraws 60 times a second, but between two closed buckets the
 * panels do not change: a view_cache (the caller's) keeps them, drawn
 * once, and what each part of the view was drawn from, so a frame
 * redraws only the parts whose content changed (the clients and the
 * header while the run goes on; the panels when a bucket closes, or the
 * crosshair over them when the pointer moves) and says which. */
#define VIEW_REGIONS 5

typedef struct view_cache view_cache;

int view_cache_create(view_cache **out, sb_err *e);
void view_cache_destroy(view_cache *c);

/* ---- The state drawn --------------------------------------------------------- */

typedef struct view_state {
    const char *scenario; /* its name */
    /* FILE#selector run A's policy was imported from (--policy-from,
     * [policy] from), while run A still runs it; else NULL. */
    const char *policy_from;
    const session *runs[VIEW_MAX_RUNS];
    int n_runs;
    double speed;        /* asked for, x real time; 0: as fast
                                       as possible */
    double achieved;     /* measured, x real time; < 0: not
                                       running or not measured yet */
    double events_per_s; /* measured, engine events per wall s;
                                       < 0: not measured (frames) */
    double events;       /* engine events so far, every run */
    bool paused;
    double span_s;                  /* the panels' time window */
    double end_s;                   /* ... ends here; < 0: follows now */
    uint32_t hidden;                /* lines switched off (1 << line) */
    bool run_hidden[VIEW_MAX_RUNS]; /* a run's lines switched off */
    bool help;                      /* the help overlay */
    bool by_process;                /* the field shows processes */
    bool hover;                     /* the pointer is at (hx, hy) */
    double hx, hy;
    double drag_t;               /* timeline drag target, s; < 0 none */
    double select_t0, select_t1; /* a zoom being dragged, s; < 0 none */
    double inject_s;             /* duration of the next injection */
    const char *hints;           /* the key hints, or NULL: the keys' */
    const char *prompt;          /* a menu line, or NULL */
    const char *message;         /* the last status message, or NULL */
    double scale; /* pixels per window unit (HiDPI: 2); 0 means 1 */
    uint8_t *scratch[VIEW_MAX_RUNS]; /* per-process grouping, n_processes
                                        bytes each (the caller's) */
    view_hits *hits;                 /* filled while drawing, or NULL */
    view_cache *cache;               /* for view_draw_changed, or NULL */
    bool fresh;                      /* the picture holds nothing of the
                                       frame before: draw all of it */
} view_state;

/* The text size a w x h view uses (everything scales from it). */
double view_font_px(double w, double h);
/* Pixels per window unit, from a window's size in pixels (its drawable)
 * and in units: 2 on a 2x HiDPI display, 1.5 at 150 %, 1 unscaled or
 * before the window has a size. */
double view_pixel_scale(int pixels, int units);
/* The font of a w x h pixel picture shown at `scale` pixels per unit:
 * the font of its size in units, times scale, so the view at 2x is the
 * 1x view drawn twice as large (view_font_px's 10 px floor is in units:
 * in pixels, a 960x600 window at 2x got 17.5 px where 1x has 10). */
double view_font_px_scaled(double w, double h, double scale);
/* Lay out a w x h view for n_runs runs, text at font_px. */
void view_layout_compute(double w, double h, double font_px, int n_runs,
                         view_layout *out);
/* The plot of panel k as the view draws it, showing [t0, t1] s (its
 * values' range does not move it): for hit-testing and tests. */
chart_panel view_panel_plot(const view_layout *l, int k, double t0, double t1);
/* The time window the panels show: [*t0, *t1] s.  Following the run,
 * it ends at the last closed bucket (where the lines end), so it moves a
 * bucket at a time. */
void view_window(const view_state *v, double *t0, double *t1);
/* Draw the whole view (the help overlay too when v->help). */
void view_draw(cairo_t *cr, double w, double h, const view_state *v);
/* Draw the parts of the view that changed since the frame v->cache saw
 * drawn into this same picture (all of it when v->fresh, v->help, or
 * without a cache): their rectangles go to changed (VIEW_REGIONS at
 * most); returns how many.  The hits are those of the whole view, as
 * view_draw records them. */
int view_draw_changed(cairo_t *cr, double w, double h, const view_state *v,
                      chart_rect *changed);
/* The help overlay alone, over what is drawn (the app draws it over
 * the controls). */
void view_help(cairo_t *cr, double w, double h);

/* The time (s) on the timeline under x, clamped to [0, duration_s]. */
double view_timeline_time(const view_layout *l, double duration_s, double x);
/* Is (x, y) on the timeline? */
bool view_on_timeline(const view_layout *l, double x, double y);

/* ---- Pieces, pure, for the app and the tests ---------------------------------- */

/* A fault as a person names it: "outage", "outage (refused)", "latency
 * +500 ms", "503s on 50 %", "8 workers", "load x2", "timeout 1.5 s" ...,
 * then " at 107 s" when at_s >= 0. */
const char *view_fault_text(const fault_cfg *f, double at_s, char *buf,
                            size_t len);

/* n of `of` as the field's legend says it: "12 %", "0.4 %", "< 0.1 %"
 * (some, fewer than 0.05 %), "0 %" (none). */
const char *view_share_text(uint32_t n, uint32_t of, char *buf, size_t len);

/* The header's first line: scenario, time, speed, then the engine's
 * events per wall second while the run goes, or the events so far when
 * paused or ended (there is no rate to measure then). */
void view_header_line(const view_state *v, char *line, size_t len);

/* Labels on lanes: label i spans [x[i], x[i] + w[i]); each gets the
 * first lane (0 ...) where it keeps `gap` from the labels already there,
 * in order of x; -1 when all max_lanes are taken at its place.  Labels
 * on one lane never overlap. */
void view_lanes(const double *x, const double *w, int n, int max_lanes,
                double gap, int *lane);

/* A value as the tooltip prints it in its unit (view_line's): "152 /s",
 * "1 234 ms", "98.5 %", "48 213" (counts whole, digits grouped). */
const char *view_value_text(int line, double v, char *buf, size_t len);

/* The share of each state among items [from, to) of states:
 * count[s] for s < n_states (states at or past n_states count as 0). */
void view_state_counts(const uint8_t *states, uint32_t from, uint32_t to,
                       int n_states, uint32_t *count);

/* The states shown in the field, as chart colours (sim_client_mode
 * order) and names. */
extern const chart_style view_mode_colours[CLIENT_MODE_COUNT];
extern const char *const view_mode_names[CLIENT_MODE_COUNT];

/* A run's colour family (run 0 A's, 1 B's): slot i of a panel's lines. */
#define VIEW_FAMILY 4
extern const chart_style view_family[VIEW_MAX_RUNS][VIEW_FAMILY];

#endif
