/*
 * gui.c -- the GUI in an SDL2 window (gui.h).  The only file that
 * includes SDL.
 *
 * Each frame: handle input, advance the runs by the wall time since the
 * last frame (within what is left of a 60 frames/s budget once drawing
 * is paid for), draw the view with cairo into an image surface, copy it
 * into a streaming texture, present.  SDL's errors are turned into the
 * project's messages here, at the edge.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

#include "gui.h"

int gui_has_window(void)
{
    return 1;
}

typedef struct window {
    SDL_Window *win;
    SDL_Renderer *ren;
    SDL_Texture *tex;
    cairo_surface_t *surf;
    cairo_t *cr;
    int pw, ph;  /* pixels */
    double scale; /* pixels per window unit (HiDPI) */
} window;

static void drop_surface(window *w)
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
}

/* (Re)make the texture and the surface at the renderer's pixel size. */
static int fit(window *w, sb_err *e)
{
    int pw, ph, ww, wh;
    if (SDL_GetRendererOutputSize(w->ren, &pw, &ph) != 0)
        return err_set(e, "cannot size the window: %s", SDL_GetError());
    SDL_GetWindowSize(w->win, &ww, &wh);
    w->scale = ww > 0 ? (double)pw / ww : 1.0;
    if (pw == w->pw && ph == w->ph && w->tex)
        return 0;
    drop_surface(w);
    w->pw = pw;
    w->ph = ph;
    w->tex = SDL_CreateTexture(w->ren, SDL_PIXELFORMAT_ARGB8888,
                               SDL_TEXTUREACCESS_STREAMING, pw, ph);
    w->surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, pw, ph);
    if (w->tex == NULL || cairo_surface_status(w->surf) != CAIRO_STATUS_SUCCESS)
        return err_set(e, "cannot make a %dx%d picture: %s", pw, ph,
                       SDL_GetError());
    w->cr = cairo_create(w->surf);
    return 0;
}

static void close_window(window *w)
{
    drop_surface(w);
    if (w->ren)
        SDL_DestroyRenderer(w->ren);
    if (w->win)
        SDL_DestroyWindow(w->win);
    SDL_Quit();
}

#define NO_DISPLAY_HINT \
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

static int open_window(window *w, const gui_options *o, sb_err *e)
{
    memset(w, 0, sizeof *w);
    if (SDL_Init(SDL_INIT_VIDEO) != 0)
        return err_set(e, "cannot open a window: %s (no display? "
                          NO_DISPLAY_HINT ")",
                       SDL_GetError());
    if (invisible_driver())
        return err_set(e, "cannot open a window: no display (DISPLAY and "
                          "WAYLAND_DISPLAY are not set, or name no display "
                          "SDL can reach); " NO_DISPLAY_HINT);
    char title[160];
    snprintf(title, sizeof title, "stormbench: %s", o->app.cfg->name);
    w->win = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED,
                              SDL_WINDOWPOS_CENTERED,
                              o->width > 0 ? o->width : 1600,
                              o->height > 0 ? o->height : 1000,
                              SDL_WINDOW_RESIZABLE |
                                  SDL_WINDOW_ALLOW_HIGHDPI);
    if (w->win == NULL)
        return err_set(e, "cannot open a window: %s", SDL_GetError());
    SDL_SetWindowMinimumSize(w->win, GUI_MIN_WIDTH, GUI_MIN_HEIGHT);
    w->ren = SDL_CreateRenderer(w->win, -1, SDL_RENDERER_PRESENTVSYNC);
    if (w->ren == NULL) /* no GPU (Xvfb): software */
        w->ren = SDL_CreateRenderer(w->win, -1, SDL_RENDERER_SOFTWARE);
    if (w->ren == NULL)
        return err_set(e, "cannot draw in the window: %s", SDL_GetError());
    return fit(w, e);
}

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

static void handle(app *a, const window *w, const SDL_Event *ev, bool *quit)
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
        app_pointer(a, ev->motion.x * w->scale, ev->motion.y * w->scale,
                    true);
        break;
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP:
        if (ev->button.button == SDL_BUTTON_LEFT)
            app_button(a, ev->button.x * w->scale, ev->button.y * w->scale,
                       ev->type == SDL_MOUSEBUTTONDOWN);
        break;
    case SDL_WINDOWEVENT:
        if (ev->window.event == SDL_WINDOWEVENT_LEAVE)
            app_pointer(a, 0, 0, false);
        break;
    default:
        break;
    }
}

/* What the window shows, read back from the renderer, as a PNG. */
static void take_shot(app *a, const window *w, const char *path)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w->pw,
                                                    w->ph);
    sb_err e;
    int rc = -1;
    cairo_surface_flush(s);
    if (SDL_RenderReadPixels(w->ren, NULL, SDL_PIXELFORMAT_ARGB8888,
                             cairo_image_surface_get_data(s),
                             cairo_image_surface_get_stride(s)) != 0) {
        err_set(&e, "cannot read the window: %s", SDL_GetError());
    } else {
        cairo_surface_mark_dirty(s);
        rc = app_write_png(s, path, &e);
    }
    app_shot_done(a, rc, rc ? e.msg : NULL);
    cairo_surface_destroy(s);
}

int gui_run_window(const gui_options *o, sb_err *e)
{
    e->msg[0] = '\0';
    app *a;
    if (app_create(&o->app, &a, e) != 0)
        return 2;
    window w;
    if (open_window(&w, o, e) != 0) {
        close_window(&w);
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
                handle(a, &w, &ev, &quit);
                input = true;
            }
            last = SDL_GetPerformanceCounter(); /* no time passed for it */
        }
        while (SDL_PollEvent(&ev)) {
            handle(a, &w, &ev, &quit);
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
        if (fit(&w, e) != 0) {
            rc = 2;
            break;
        }
        Uint64 d0 = SDL_GetPerformanceCounter();
        app_draw(a, w.cr, w.pw, w.ph);
        cairo_surface_flush(w.surf);
        SDL_UpdateTexture(w.tex, NULL, cairo_image_surface_get_data(w.surf),
                          cairo_image_surface_get_stride(w.surf));
        SDL_RenderClear(w.ren);
        SDL_RenderCopy(w.ren, w.tex, NULL, NULL);
        const char *shot = app_shot_wanted(a);
        if (shot)
            take_shot(a, &w, shot);
        SDL_RenderPresent(w.ren);
        draw_s = (double)(SDL_GetPerformanceCounter() - d0) / (double)freq;
        double used = (double)(SDL_GetPerformanceCounter() - now) /
                      (double)freq;
        if (used < frame) /* no vsync under Xvfb: keep to 60 frames/s */
            SDL_Delay((Uint32)((frame - used) * 1000.0));
    }
    if (rc == 0)
        rc = app_status(a);
    if (rc && app_message(a) && e->msg[0] == '\0')
        err_set(e, "%s", app_message(a));
    SDL_StopTextInput();
    close_window(&w);
    app_destroy(a);
    return rc;
}
