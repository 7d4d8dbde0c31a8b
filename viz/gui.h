/*
 * gui.h -- the GUI in an SDL2 window, or rendered to PNG frames.
 *
 * Both drive an app (app.h) and draw it with the same view, so a frame
 * written by --frames is what the window shows.  The window: cairo draws
 * into an image surface, SDL only shows it (a streaming texture), so
 * nothing is drawn by SDL itself; HiDPI displays get the surface at
 * their pixel size.  A screenshot reads back what the window shows.
 */
#ifndef SB_GUI_H
#define SB_GUI_H

#include <stdbool.h>

#include "app.h"
#include "chart.h"

/* The smallest window or frame the layout is made for: below it the
 * panels' labels and the client field's legend overlap. */
#define GUI_MIN_WIDTH 960
#define GUI_MIN_HEIGHT 600

typedef struct gui_options {
    app_options app;
    const char *frames_dir; /* render PNG frames here instead of a window */
    double fps;             /* frames per (wall) second; default 30 */
    double until_s;         /* frames: stop at this simulated time */
    int width, height;      /* of the window or the frames */
} gui_options;

/* ---- The window alone ------------------------------------------------------
 *
 * What gui_run_window shows frames in, for benchmarks too.  cairo draws
 * into a picture at the window's size in pixels (on a HiDPI display,
 * more pixels than window units) that persists between frames, so a
 * frame can redraw and show only what changed.  The picture goes to the
 * screen one of two ways: straight into the window's own pixels
 * (SDL_GetWindowSurface; the fewest copies, for a display without HiDPI
 * scaling: X11, Xvfb) or through a streaming texture and SDL's renderer
 * (SDL_GetRendererOutputSize gives the pixels where the window's units
 * are scaled). */
typedef enum gui_present {
    GUI_PRESENT_AUTO = 0, /* the window's pixels when it can, else a
                             texture */
    GUI_PRESENT_TEXTURE,  /* always through a texture */
    GUI_PRESENT_SURFACE   /* always the window's pixels */
} gui_present;

typedef struct gui_window gui_window;

/* Open a window of w x h units (at least GUI_MIN_WIDTH x
 * GUI_MIN_HEIGHT, and kept so).  Fails without a display. */
int gui_window_open(const char *title, int w, int h, gui_present how,
                    gui_window **out, sb_err *e);
void gui_window_close(gui_window *w);
/* The picture to draw the next frame into, at the window's size in
 * pixels (*pw x *ph); *fresh when what it held is gone (a new size):
 * then draw all of it.  NULL with a message when it cannot be made. */
cairo_t *gui_window_begin(gui_window *w, int *pw, int *ph, bool *fresh,
                          sb_err *e);
/* Show the picture: the n rectangles in `changed` changed (n < 0: all
 * of it; 0: nothing, though all of it is shown again when the window was
 * uncovered). */
void gui_window_show(gui_window *w, const chart_rect *changed, int n);
/* Pixels per window unit, across and down (HiDPI: 2). */
void gui_window_scale(const gui_window *w, double *sx, double *sy);
/* How the window shows its pictures ("window pixels", "texture via
 * opengl", ...). */
const char *gui_window_how(const gui_window *w);

/* Is the window available in this build (SDL2 found)? */
int gui_has_window(void);

/* Run the GUI in a window until the user (or the script) quits.
 * Returns the exit status (0, or 2 after an error, with the message in
 * e). */
int gui_run_window(const gui_options *o, sb_err *e);

/* Render frames to o->frames_dir: frame-00000.png ...  Returns the exit
 * status as gui_run_window does. */
int gui_run_frames(const gui_options *o, sb_err *e);

#endif
