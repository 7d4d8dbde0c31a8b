/*
 * gui_none.c -- gui.h in a build without SDL2: no window, frames only.
 */
#include "gui.h"

int gui_has_window(void)
{
    return 0;
}

int gui_run_window(const gui_options *o, sb_err *e)
{
    (void)o;
    err_set(e, "this stormbench was built without SDL2, so it has no "
               "window: install libsdl2-dev and rebuild, or render frames "
               "with --frames DIR");
    return 2;
}

int gui_window_open(const char *title, int w, int h, gui_present how,
                    gui_window **out, sb_err *e)
{
    (void)title;
    (void)w;
    (void)h;
    (void)how;
    *out = NULL;
    return err_set(e, "this stormbench was built without SDL2: no window");
}

void gui_window_close(gui_window *w)
{
    (void)w;
}

cairo_t *gui_window_begin(gui_window *w, int *pw, int *ph, bool *fresh,
                          sb_err *e)
{
    (void)w;
    (void)pw;
    (void)ph;
    (void)fresh;
    err_set(e, "no window");
    return NULL;
}

void gui_window_show(gui_window *w, const chart_rect *changed, int n)
{
    (void)w;
    (void)changed;
    (void)n;
}

void gui_window_scale(const gui_window *w, double *sx, double *sy)
{
    (void)w;
    *sx = *sy = 1.0;
}

const char *gui_window_how(const gui_window *w)
{
    (void)w;
    return "none";
}
