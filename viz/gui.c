/*
 * gui.c -- the GUI in an SDL2 window (gui.h).  The only file that
 * includes SDL.
 *
 * Each frame: handle input, advance the runs by the wall time since the
 * last frame (within what is left of a 60 frames/s budget once drawing
 * is paid for), draw the view with cairo into the window's picture, show
 * what changed.  SDL's errors are turned into the project's messages
 * here, at the edge.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "gui.h"
#include "view.h"

int gui_has_window(void)
{
    return 1;
}

struct gui_window {
    SDL_Window *win;
    gui_present how;   /* TEXTURE or SURFACE, once open */
    SDL_Renderer *ren; /* TEXTURE: */
    SDL_Texture *tex;
    SDL_Surface *shown;    /* SURFACE: the window's pixels */
    cairo_surface_t *surf; /* the picture */
    cairo_t *cr;
    int pw, ph;    /* its size in pixels */
    double sx, sy; /* pixels per window unit */
    bool exposed;  /* the screen lost what it showed: show all */
    char what[64];
};

static void drop_picture(gui_window *w)
{
    if (w->cr)
        cairo_destroy(w->cr);
    if (w->surf)
        cairo_surface_destroy(w->surf);
    if (w->tex)
        SDL_DestroyTexture(w->tex);
    w->cr = NULL;
    w->surf = NULL;
    w->tex = NULL;
    w->shown = NULL;
    w->pw = w->ph = 0;
}

/* The window's size in pixels now. */
static int pixel_size(gui_window *w, int *pw, int *ph, sb_err *e)
{
    if (w->how == GUI_PRESENT_TEXTURE) {
        if (SDL_GetRendererOutputSize(w->ren, pw, ph) != 0)
            return err_set(e, "cannot size the window: %s", SDL_GetError());
        return 0;
    }
    SDL_GetWindowSizeInPixels(w->win, pw, ph);
    return 0;
}

/* (Re)make the picture at the window's pixel size; *fresh when it was
 * made anew. */
static int fit(gui_window *w, bool *fresh, sb_err *e)
{
    int pw, ph, ww, wh;
    *fresh = false;
    if (pixel_size(w, &pw, &ph, e) != 0)
        return -1;
    SDL_GetWindowSize(w->win, &ww, &wh);
    w->sx = view_pixel_scale(pw, ww);
    w->sy = view_pixel_scale(ph, wh);
    if (pw == w->pw && ph == w->ph && w->cr)
        return 0;
    drop_picture(w);
    *fresh = true;
    if (w->how == GUI_PRESENT_SURFACE) {
        /* Drawn straight into the window's own pixels: cairo's RGB24 is
         * a 32-bit 0x00RRGGBB word, SDL's RGB888 the same. */
        w->shown = SDL_GetWindowSurface(w->win);
        if (w->shown == NULL)
            return err_set(e, "cannot draw in the window: %s", SDL_GetError());
        w->surf = cairo_image_surface_create_for_data(
            w->shown->pixels, CAIRO_FORMAT_RGB24, w->shown->w, w->shown->h,
            w->shown->pitch);
        pw = w->shown->w;
        ph = w->shown->h;
    } else {
        w->tex = SDL_CreateTexture(w->ren, SDL_PIXELFORMAT_RGB888,
                                   SDL_TEXTUREACCESS_STREAMING, pw, ph);
        w->surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, pw, ph);
    }
    if ((w->how == GUI_PRESENT_TEXTURE && w->tex == NULL) ||
        cairo_surface_status(w->surf) != CAIRO_STATUS_SUCCESS)
        return err_set(e, "cannot make a %dx%d picture: %s", pw, ph,
                       SDL_GetError());
    w->pw = pw;
    w->ph = ph;
    w->cr = cairo_create(w->surf);
    return 0;
}

#define NO_DISPLAY_HINT                                                        \
    "run it under xvfb-run, or render frames with --frames DIR"

/* Did SDL pick a driver that shows nothing?  Without a display SDL falls
 * back on "offscreen" (or "dummy"), which succeeds: the window would run
 * unseen, forever.  Only a user who named such a driver in
 * SDL_VIDEODRIVER gets it. */
static bool invisible_driver(void)
{
    const char *d = SDL_GetCurrentVideoDriver();
    const char *asked = SDL_getenv("SDL_VIDEODRIVER");
    if (d == NULL)
        return true;
    if (strcmp(d, "offscreen") != 0 && strcmp(d, "dummy") != 0)
        return false;
    return asked == NULL || strstr(asked, d) == NULL;
}

/* The window's own pixels when the display does not scale it (its size
 * in pixels is its size in units) and they are 32-bit words cairo can
 * draw in; a texture otherwise. */
static gui_present choose(SDL_Window *win, gui_present how)
{
    if (how != GUI_PRESENT_AUTO)
        return how;
    int ww, wh, pw, ph;
    SDL_GetWindowSize(win, &ww, &wh);
    SDL_GetWindowSizeInPixels(win, &pw, &ph);
    Uint32 f = SDL_GetWindowPixelFormat(win);
    if (ww != pw || wh != ph ||
        (f != SDL_PIXELFORMAT_RGB888 && f != SDL_PIXELFORMAT_ARGB8888))
        return GUI_PRESENT_TEXTURE;
    return GUI_PRESENT_SURFACE;
}

static int open_renderer(gui_window *w, sb_err *e)
{
    w->ren = SDL_CreateRenderer(w->win, -1, SDL_RENDERER_PRESENTVSYNC);
    if (w->ren == NULL) /* no GPU: software */
        w->ren = SDL_CreateRenderer(w->win, -1, SDL_RENDERER_SOFTWARE);
    if (w->ren == NULL)
        return err_set(e, "cannot draw in the window: %s", SDL_GetError());
    SDL_RendererInfo info;
    SDL_GetRendererInfo(w->ren, &info);
    snprintf(w->what, sizeof w->what, "texture via %s", info.name);
    return 0;
}

int gui_window_open(const char *title, int width, int height, gui_present how,
                    gui_window **out, sb_err *e)
{
    *out = NULL;
    if (SDL_Init(SDL_INIT_VIDEO) != 0)
        return err_set(
            e, "cannot open a window: %s (no display? " NO_DISPLAY_HINT ")",
            SDL_GetError());
    if (invisible_driver()) {
        SDL_Quit();
        return err_set(e, "cannot open a window: no display (DISPLAY and "
                          "WAYLAND_DISPLAY are not set, or name no display "
                          "SDL can reach); " NO_DISPLAY_HINT);
    }
    gui_window *w = calloc(1, sizeof *w);
    if (w == NULL) {
        SDL_Quit();
        return err_set(e, "out of memory");
    }
    w->win =
        SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                         width < GUI_MIN_WIDTH ? GUI_MIN_WIDTH : width,
                         height < GUI_MIN_HEIGHT ? GUI_MIN_HEIGHT : height,
                         SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (w->win == NULL) {
        err_set(e, "cannot open a window: %s", SDL_GetError());
        goto fail;
    }
    SDL_SetWindowMinimumSize(w->win, GUI_MIN_WIDTH, GUI_MIN_HEIGHT);
    w->how = choose(w->win, how);
    /* The window's own pixels, not SDL's stand-in for them: on X11 SDL
     * would otherwise keep them in an OpenGL texture, which without a
     * GPU (Xvfb) is a software OpenGL costing more than drawing the
     * frame (measured: bench_gui --window). */
    if (w->how == GUI_PRESENT_SURFACE)
        SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0");
    if (w->how == GUI_PRESENT_TEXTURE && open_renderer(w, e) != 0)
        goto fail;
    if (w->how == GUI_PRESENT_SURFACE)
        snprintf(w->what, sizeof w->what, "window pixels");
    bool fresh;
    if (fit(w, &fresh, e) != 0)
        goto fail;
    *out = w;
    return 0;
fail:
    gui_window_close(w);
    return -1;
}

void gui_window_close(gui_window *w)
{
    if (w == NULL)
        return;
    drop_picture(w);
    if (w->ren)
        SDL_DestroyRenderer(w->ren);
    if (w->win)
        SDL_DestroyWindow(w->win);
    free(w);
    SDL_Quit();
}

cairo_t *gui_window_begin(gui_window *w, int *pw, int *ph, bool *fresh,
                          sb_err *e)
{
    if (fit(w, fresh, e) != 0)
        return NULL;
    *pw = w->pw;
    *ph = w->ph;
    return w->cr;
}

/* The smallest rectangle of whole pixels that holds r, inside the
 * picture; false when it holds none. */
static bool pixels_of(const gui_window *w, chart_rect r, SDL_Rect *out)
{
    int x0 = (int)floor(fmax(r.x, 0)), y0 = (int)floor(fmax(r.y, 0));
    int x1 = (int)ceil(fmin(r.x + r.w, w->pw));
    int y1 = (int)ceil(fmin(r.y + r.h, w->ph));
    *out = (SDL_Rect){x0, y0, x1 - x0, y1 - y0};
    return x1 > x0 && y1 > y0;
}

#define SHOW_RECTS 16

void gui_window_show(gui_window *w, const chart_rect *changed, int n)
{
    SDL_Rect r[SHOW_RECTS];
    int k = 0;
    for (int i = 0; i < n && n <= SHOW_RECTS; i++)
        if (pixels_of(w, changed[i], &r[k]))
            k++;
    if (n > SHOW_RECTS || n < 0 || w->exposed) { /* all of it */
        w->exposed = false;
        r[0] = (SDL_Rect){0, 0, w->pw, w->ph};
        k = 1;
    }
    if (k == 0)
        return;
    cairo_surface_flush(w->surf);
    if (w->how == GUI_PRESENT_SURFACE) {
        SDL_UpdateWindowSurfaceRects(w->win, r, k);
        return;
    }
    const unsigned char *px = cairo_image_surface_get_data(w->surf);
    int stride = cairo_image_surface_get_stride(w->surf);
    for (int i = 0; i < k; i++)
        SDL_UpdateTexture(w->tex, &r[i], px + r[i].y * stride + r[i].x * 4,
                          stride);
    SDL_RenderCopy(w->ren, w->tex, NULL, NULL);
    SDL_RenderPresent(w->ren);
}

void gui_window_scale(const gui_window *w, double *sx, double *sy)
{
    *sx = w->sx;
    *sy = w->sy;
}

const char *gui_window_how(const gui_window *w)
{
    return w->what;
}

/* ---- Input ------------------------------------------------------------------- */

/* SDL's keys onto the app's: printable characters come as text input
 * (so '+' and '?' work on every keyboard layout), the rest as keys. */
static int key_of(const SDL_KeyboardEvent *k)
{
    switch (k->keysym.sym) {
    case SDLK_UP:
        return KEY_UP;
    case SDLK_DOWN:
        return KEY_DOWN;
    case SDLK_LEFT:
        return KEY_LEFT;
    case SDLK_RIGHT:
        return KEY_RIGHT;
    case SDLK_ESCAPE:
        return KEY_ESCAPE;
    case SDLK_KP_PLUS:
        return '+';
    case SDLK_KP_MINUS:
        return '-';
    default:
        return 0;
    }
}

/* A window made smaller than the layout allows (a window manager that
 * ignores the minimum, a tiling one, xdotool) is set back to it. */
static void keep_minimum(const gui_window *w, const SDL_WindowEvent *ev)
{
    if (ev->event != SDL_WINDOWEVENT_SIZE_CHANGED ||
        (ev->data1 >= GUI_MIN_WIDTH && ev->data2 >= GUI_MIN_HEIGHT))
        return;
    SDL_SetWindowSize(w->win,
                      ev->data1 < GUI_MIN_WIDTH ? GUI_MIN_WIDTH : ev->data1,
                      ev->data2 < GUI_MIN_HEIGHT ? GUI_MIN_HEIGHT : ev->data2);
}

static void mouse(app *a, const gui_window *w, const SDL_Event *ev)
{
    if (ev->type == SDL_MOUSEMOTION) {
        app_pointer(a, ev->motion.x * w->sx, ev->motion.y * w->sy, true);
        return;
    }
    if (ev->type == SDL_MOUSEWHEEL) {
        int x, y;
        SDL_GetMouseState(&x, &y);
        float dy = ev->wheel.preciseY;
        if (ev->wheel.direction == SDL_MOUSEWHEEL_FLIPPED)
            dy = -dy;
        app_wheel(a, x * w->sx, y * w->sy, dy);
        return;
    }
    if (ev->button.button != SDL_BUTTON_LEFT)
        return;
    double x = ev->button.x * w->sx, y = ev->button.y * w->sy;
    if (ev->type == SDL_MOUSEBUTTONDOWN && ev->button.clicks == 2)
        app_double_click(a, x, y);
    else
        app_button(a, x, y, ev->type == SDL_MOUSEBUTTONDOWN);
}

static void handle(app *a, gui_window *w, const SDL_Event *ev, bool *quit)
{
    switch (ev->type) {
    case SDL_QUIT:
        *quit = true;
        break;
    case SDL_KEYDOWN: {
        int k = key_of(&ev->key);
        if (k)
            app_key_down(a, k);
        break;
    }
    case SDL_TEXTINPUT:
        for (const char *c = ev->text.text; *c; c++)
            app_key_down(a, (unsigned char)*c);
        break;
    case SDL_MOUSEMOTION:
    case SDL_MOUSEWHEEL:
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP:
        mouse(a, w, ev);
        break;
    case SDL_WINDOWEVENT:
        if (ev->window.event == SDL_WINDOWEVENT_LEAVE)
            app_pointer(a, 0, 0, false);
        if (ev->window.event == SDL_WINDOWEVENT_EXPOSED)
            w->exposed = true; /* uncovered: the picture holds it all */
        keep_minimum(w, &ev->window);
        break;
    default:
        break;
    }
}

/* What the window shows, as a PNG: the picture it was shown from (the
 * window's own pixels, or what went into its texture). */
static void take_shot(app *a, const gui_window *w, const char *path)
{
    sb_err e;
    cairo_surface_flush(w->surf);
    int rc = app_write_png(w->surf, path, &e);
    app_shot_done(a, rc, rc ? e.msg : NULL);
}

/* ---- The loop ------------------------------------------------------------------ */

int gui_run_window(const gui_options *o, sb_err *e)
{
    e->msg[0] = '\0';
    app *a;
    if (app_create(&o->app, &a, e) != 0)
        return 2;
    char title[160];
    snprintf(title, sizeof title, "stormbench: %s", o->app.cfg->name);
    gui_window *w;
    if (gui_window_open(title, o->width > 0 ? o->width : 1600,
                        o->height > 0 ? o->height : 1000, GUI_PRESENT_AUTO, &w,
                        e) != 0) {
        app_destroy(a);
        return 2;
    }
    SDL_StartTextInput();
    const double frame = 1.0 / 60.0;
    Uint64 freq = SDL_GetPerformanceFrequency();
    Uint64 last = SDL_GetPerformanceCounter();
    double draw_s = 0.004;
    bool quit = false, input = true;
    int rc = 0;
    while (!quit && !app_quit(a)) {
        SDL_Event ev;
        /* Nothing moves and the picture is drawn: wait for input (up to
         * a second) instead of drawing the same frame 60 times a second,
         * which took most of a core while paused. */
        if (app_idle(a) && !input) {
            if (SDL_WaitEventTimeout(&ev, 1000)) {
                handle(a, w, &ev, &quit);
                input = true;
            }
            last = SDL_GetPerformanceCounter(); /* no time passed for it */
        }
        while (SDL_PollEvent(&ev)) {
            handle(a, w, &ev, &quit);
            input = true;
        }
        Uint64 now = SDL_GetPerformanceCounter();
        double dt = (double)(now - last) / (double)freq;
        last = now;
        /* Simulation gets what the frame has left once drawing is paid. */
        double budget = fmax(0.004, frame - draw_s - 0.002);
        bool moving = !app_idle(a);
        app_advance(a, fmin(dt, 0.25), budget);
        /* Drawn when it moved (the frame that reaches the end or the
         * pause too) or when input came (a key, the pointer, an expose). */
        if (!moving && !input && app_idle(a))
            continue;
        input = false;
        Uint64 d0 = SDL_GetPerformanceCounter();
        int pw, ph;
        bool fresh;
        cairo_t *cr = gui_window_begin(w, &pw, &ph, &fresh, e);
        if (cr == NULL) {
            rc = 2;
            break;
        }
        /* Text and layout at the scale the pointer's positions are
         * mapped by (mouse()): both pixels per window unit. */
        double sx, sy;
        gui_window_scale(w, &sx, &sy);
        app_set_scale(a, sx);
        chart_rect changed[VIEW_REGIONS + 1];
        int n = app_draw_changed(a, cr, pw, ph, fresh, changed);
        const char *shot = app_shot_wanted(a);
        if (shot)
            take_shot(a, w, shot);
        gui_window_show(w, changed, n);
        draw_s = (double)(SDL_GetPerformanceCounter() - d0) / (double)freq;
        double used =
            (double)(SDL_GetPerformanceCounter() - now) / (double)freq;
        if (used < frame) /* no vsync under Xvfb: keep to 60 frames/s */
            SDL_Delay((Uint32)((frame - used) * 1000.0));
    }
    if (rc == 0)
        rc = app_status(a);
    if (rc && app_message(a) && e->msg[0] == '\0')
        err_set(e, "%s", app_message(a));
    SDL_StopTextInput();
    gui_window_close(w);
    app_destroy(a);
    return rc;
}
