/*
 * controls.h -- the window's on-screen controls, drawn with cairo in the
 * view's controls area, and the policy picker that opens from a run's
 * policy in the header.
 *
 *   row 1   pause/run, one bucket forward, speed (slower, faster, as fast
 *           as it goes); inject: the kind (a menu), its size, its length,
 *           inject, end it; A/B on or off; follow the run (after a zoom);
 *           help
 *   row 2   sliders for the arrival rate, the workers and the client
 *           timeout; export: the panels' series (CSV), the view (PNG,
 *           SVG), the run as a scenario
 *   picker  a run's retry policy (one of the built-ins or plug-ins that
 *           are not layers), the layers stacked on it, and the stack's
 *           parameters with a step down and up each
 *
 * The controls keep no state: the app says what they show
 * (controls_state), and every control drawn is recorded in the view's
 * hits as HIT_CONTROL with its id and argument, so a click hits exactly
 * what the user saw.  The app turns a control that changes the run into
 * a script command and runs it as a script would: whatever the mouse
 * does can be written in a script (and is shown as one).
 */
#ifndef SB_CONTROLS_H
#define SB_CONTROLS_H

#include <stdbool.h>

#include "session.h"
#include "view.h"

/* The controls (HIT_CONTROL's a); the argument (b) is said for each. */
typedef enum control_id {
    CTL_PLAY = 1,   /* pause or run */
    CTL_STEP,       /* one bucket forward (paused) */
    CTL_SPEED,      /* b: -1 slower, +1 faster, 0 as fast as it goes */
    CTL_KIND,       /* open or close the menu of injections */
    CTL_KIND_PICK,  /* b: the injection chosen (its index) */
    CTL_SIZE,       /* b: -1 smaller, +1 larger */
    CTL_LENGTH,     /* b: -1 shorter, +1 longer */
    CTL_INJECT,     /* inject it now */
    CTL_END,        /* end the last injected fault now */
    CTL_SLIDER,     /* b: the change_kind; drag it */
    CTL_AB,         /* A/B on or off */
    CTL_FOLLOW,     /* the panels follow the run again */
    CTL_HELP,       /* the help overlay */
    CTL_EXPORT,     /* b: an export_kind */
    CTL_PICK_BASE,  /* picker: b the policy's index */
    CTL_PICK_LAYER, /* picker: b the layer's index (on or off) */
    CTL_PARAM,      /* picker: b = 2 x parameter + (0 down, 1 up) */
    CTL_PICK_CLOSE, /* picker: close it */
    CTL_PICK_OFF    /* picker: switch B off */
} control_id;

typedef enum export_kind {
    EXPORT_CSV = 0,
    EXPORT_PNG,
    EXPORT_SVG,
    EXPORT_SCENARIO,
    EXPORT_KINDS
} export_kind;

#define CONTROLS_MAX_KINDS 12
#define CONTROLS_MAX_POLICIES 48
#define CONTROLS_MAX_PARAMS 48

/* One slider: the value shown, its range (a log scale), its text. */
typedef struct controls_slider {
    double value, lo, hi;
    char text[32];
    bool active; /* being dragged */
} controls_slider;

/* A policy the picker offers. */
typedef struct controls_policy {
    const char *name; /* borrowed */
    bool layer;       /* stacked on a retry policy */
    bool chosen;      /* in the run's stack now */
} controls_policy;

/* A parameter of the run's stack, as the picker shows it. */
typedef struct controls_param {
    char name[128]; /* "exponential.base" */
    char value[64]; /* "100ms" */
    bool editable;
} controls_param;

typedef struct controls_picker {
    int run; /* the run it edits */
    controls_policy policies[CONTROLS_MAX_POLICIES];
    int n_policies;
    controls_param params[CONTROLS_MAX_PARAMS];
    int n_params;
    double x; /* where the run's policy button starts */
} controls_picker;

/* What the controls show now. */
typedef struct controls_state {
    bool paused, ended;
    double speed; /* x real time; 0: as fast as it goes */
    int kind;     /* the injection chosen */
    int n_kinds;
    const char *kind_names[CONTROLS_MAX_KINDS];
    bool kind_menu;     /* its menu is open */
    char size_text[32]; /* the chosen injection's size; "" when it has
                           none */
    double inject_s;    /* how long an injection lasts */
    bool can_end;       /* an injected fault is running */
    bool ab;            /* B runs */
    bool following;     /* the panels follow the run */
    controls_slider slider[CHANGE_KINDS];
    const controls_picker *picker; /* open, or NULL */
} controls_state;

/* The value a slider (its track recorded in hits as CTL_SLIDER with
 * argument `kind`) gives at x: on its log scale, clamped to its range;
 * NaN when no such slider was drawn. */
double controls_slider_value(const view_hits *h, const controls_state *c,
                             int kind, double x);

/* Draw the controls into l->controls (and the open menu or picker over
 * the view), recording each in hits. */
void controls_draw(cairo_t *cr, const view_layout *l, const controls_state *c,
                   view_hits *hits);

#endif
