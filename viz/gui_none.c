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
