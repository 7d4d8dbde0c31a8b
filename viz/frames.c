/*
 * frames.c -- the GUI rendered to PNG frames, with no window (gui.h).
 *
 * Frame k shows the run after k / fps seconds of wall time at the app's
 * speed, simulated without a wall-time budget, so the frames are the same
 * on every machine: a frame sequence is a deterministic function of the
 * scenario, the policies, the script and the options.
 */
#include <math.h>
#include <stdio.h>

#include "gui.h"

int gui_run_frames(const gui_options *o, sb_err *e)
{
    app *a;
    if (app_create(&o->app, &a, e) != 0)
        return 2;
    int w = o->width > 0 ? o->width : 1600,
        h = o->height > 0 ? o->height : 1000;
    double fps = o->fps > 0 ? o->fps : 30.0;
    double until =
        o->until_s > 0 ? o->until_s : (double)o->app.cfg->duration_ns / 1e9;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t *cr = cairo_create(s);
    int rc = 0;
    char path[1200];
    for (long k = 0;; k++) {
        /* Frame 0 shows t = 0; each next one 1/fps of wall time later. */
        if (k > 0 && app_advance(a, 1.0 / fps, INFINITY) != 0) {
            rc = 2;
            break;
        }
        app_draw(a, cr, w, h);
        cairo_surface_flush(s);
        snprintf(path, sizeof path, "%s/frame-%05ld.png", o->frames_dir, k);
        if (app_write_png(s, path, e) != 0) {
            rc = 2;
            break;
        }
        const char *shot = app_shot_wanted(a);
        if (shot) {
            sb_err se;
            int r = app_write_png(s, shot, &se);
            app_shot_done(a, r, r ? se.msg : NULL);
        }
        double now = (double)app_now(a) / 1e9;
        if (app_quit(a) || now >= until - 1e-9 ||
            now >= (double)o->app.cfg->duration_ns / 1e9)
            break;
    }
    if (rc == 2 && app_status(a) && app_message(a))
        err_set(e, "%s", app_message(a));
    if (rc == 0)
        rc = app_status(a);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    app_destroy(a);
    return rc;
}
