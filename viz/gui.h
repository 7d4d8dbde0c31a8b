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

#include "app.h"

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
