/*
 * bench_gui.c -- what a frame of the GUI costs, and how many the window
 * shows a second.
 *
 * The case: a 1920 x 1080 frame, panels showing 30 minutes of
 * 1 s buckets, a field of 10 000 clients, A/B on (two runs drawn).  The
 * two runs are a retry storm of 10 000 clients (bench/storm-10k.ini's
 * load, stretched to 32 minutes).
 *
 *   bench_gui                 draw alone, into an image: the CPU time of
 *                             one frame (median of 11), every part drawn
 *                             anew, and with the panels kept from the
 *                             frame before (as the window does between
 *                             two buckets), and what is left of a 60
 *                             frames/s frame for the simulation
 *   bench_gui --window [N]    the real window (under xvfb-run, or on a
 *                             desktop): N frames (default 300) with both
 *                             runs going on at real time and the pointer
 *                             on a panel, shown the way the window shows
 *                             them, and the old way (a full frame into a
 *                             texture, everything drawn anew) for
 *                             comparison: frames per second, and the CPU
 *                             time per frame of this process and of the X
 *                             server (read from /proc: the machine is
 *                             shared, so the wall clock alone says little)
 *
 * CPU time (clock_gettime), not wall time, where the machine is shared.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gui.h"
#include "scenario.h"
#include "view.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
    return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp);
    return t[n / 2];
}

typedef struct bench {
    scenario sc;
    session *run[2];
    view_state v;
    view_cache *cache;
    int minutes;
    long clients; /* 0: the file's 10 000 */
} bench;

/* Both runs with `minutes` of buckets behind them.  Another number of
 * clients shares the file's load (10 000 x 2/s = 20 000 requests/s): the
 * server, the storm and the panels stay the same, and only what grows
 * with the clients (their state, the field) changes. */
static int prepare(bench *b, sb_err *e)
{
    char dur[64], count[64], rate[64];
    snprintf(dur, sizeof dur, "scenario.duration=%dm", b->minutes + 2);
    long n = b->clients > 0 ? b->clients : 10000;
    snprintf(count, sizeof count, "clients.count=%ld", n);
    snprintf(rate, sizeof rate, "clients.rate=%.9g/s", 20000.0 / (double)n);
    if (scenario_load(SB_SOURCE_DIR "/bench/storm-10k.ini",
                      (const char *[]){dur, count, rate}, 3, &b->sc, e) != 0)
        return -1;
    session_opts a = {&b->sc.cfg, "immediate", NULL, 0, NULL, 0};
    session_opts o = {&b->sc.cfg, "exponential+token_bucket", NULL, 0, NULL, 0};
    if (session_create(&a, &b->run[0], e) != 0 ||
        session_create(&o, &b->run[1], e) != 0)
        return -1;
    int64_t t = (int64_t)b->minutes * 60 * NS_PER_S;
    session_run_until(b->run[0], t);
    session_run_until(b->run[1], t);
    memset(&b->v, 0, sizeof b->v);
    b->v.scenario = b->sc.cfg.name;
    b->v.runs[0] = b->run[0];
    b->v.runs[1] = b->run[1];
    b->v.n_runs = 2;
    b->v.speed = 1;
    b->v.achieved = 1;
    b->v.span_s = b->minutes * 60.0;
    b->v.end_s = -1;
    b->v.drag_t = b->v.select_t0 = b->v.select_t1 = -1;
    b->v.inject_s = 10;
    return 0;
}

/* Both runs on by 1/60 s of simulated time: one frame at real time. */
static void step(bench *b)
{
    for (int r = 0; r < 2; r++)
        session_run_until(b->run[r], session_now(b->run[r]) + NS_PER_S / 60);
}

/* ---- Drawing alone ---------------------------------------------------------- */

/* One frame into the same picture: everything anew without a cache,
 * what changed with one (here: the clients, the header, the timeline;
 * the panels only when a bucket closes). */
static double draw_once(bench *b, cairo_t *cr, cairo_surface_t *s, int w, int h)
{
    chart_rect changed[VIEW_REGIONS];
    double t0 = cpu_s();
    view_draw_changed(cr, w, h, &b->v, changed);
    cairo_surface_flush(s);
    return cpu_s() - t0;
}

typedef struct drawn {
    double all_ms, kept_ms, sim_ms; /* medians, CPU */
    double min_ms, max_ms;          /* of all_ms */
} drawn;

static void draw_figures(bench *b, int n, drawn *out)
{
    int w = 1920, h = 1080;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t *cr = cairo_create(s);
    double *t = malloc((size_t)n * sizeof *t),
           *k = malloc((size_t)n * sizeof *k);
    b->v.cache = NULL;
    for (int i = 0; i < n; i++)
        t[i] = draw_once(b, cr, s, w, h);
    b->v.cache = b->cache;
    b->v.fresh = true;
    draw_once(b, cr, s, w, h); /* fills the cache */
    b->v.fresh = false;
    for (int i = 0; i < n; i++) {
        step(b); /* the clients move, no bucket closes */
        k[i] = draw_once(b, cr, s, w, h);
    }
    double c0 = cpu_s();
    for (int i = 0; i < 60; i++)
        step(b);
    out->sim_ms = (cpu_s() - c0) / 60 * 1e3;
    out->all_ms = median(t, n) * 1e3;
    out->kept_ms = median(k, n) * 1e3;
    out->min_ms = t[0] * 1e3;
    out->max_ms = t[n - 1] * 1e3;
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    free(t);
    free(k);
}

static void draw_alone(bench *b, int n)
{
    drawn d;
    draw_figures(b, n, &d);
    double frame = 1e3 / 60.0;
    printf("stormbench GUI frame: 1920x1080, panels over %d s of 1 s "
           "buckets, %u clients per run, A/B on\n\n",
           b->minutes * 60, sim_clients(session_sim(b->run[0])));
    printf("  draw a frame, all anew   %7.2f ms CPU (median of %d; min %.2f, "
           "max %.2f)\n",
           d.all_ms, n, d.min_ms, d.max_ms);
    printf("  ... panels kept          %7.2f ms CPU (between two buckets)\n",
           d.kept_ms);
    printf("  simulate 1/60 s, A and B %7.2f ms CPU at real time\n", d.sim_ms);
    printf("  left for simulation      %7.1f %% of a 60 frames/s frame "
           "(%.2f ms of %.2f, panels kept)\n",
           100.0 * (frame - d.kept_ms) / frame, frame - d.kept_ms, frame);
}

/* ---- The window ----------------------------------------------------------------- */

/* The X server's CPU time so far (s), read from /proc for the Xvfb or
 * Xorg process that serves $DISPLAY; < 0 when not found. */
static double server_cpu_s(void)
{
    const char *disp = getenv("DISPLAY");
    DIR *d = opendir("/proc");
    if (d == NULL || disp == NULL) {
        if (d)
            closedir(d);
        return -1;
    }
    double found = -1;
    for (struct dirent *de; found < 0 && (de = readdir(d)) != NULL;) {
        char path[300], cmd[4096];
        snprintf(path, sizeof path, "/proc/%s/cmdline", de->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        size_t n = fread(cmd, 1, sizeof cmd - 1, f);
        fclose(f);
        for (size_t i = 0; i < n; i++)
            if (cmd[i] == '\0')
                cmd[i] = ' ';
        cmd[n] = '\0';
        char want[64];
        snprintf(want, sizeof want, " %s ", disp);
        if ((strncmp(cmd, "Xvfb", 4) && !strstr(cmd, "/Xvfb") &&
             !strstr(cmd, "Xorg")) ||
            !strstr(cmd, want))
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
        f = fopen(path, "r");
        unsigned long ut, st;
        /* Fields 14 and 15: utime and stime, in clock ticks; the name
         * (field 2) has no spaces for these servers. */
        if (f && fscanf(f,
                        "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
                        "%*u %lu %lu",
                        &ut, &st) == 2)
            found = (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
        if (f)
            fclose(f);
    }
    closedir(d);
    return found;
}

typedef struct figures {
    double fps, ours_ms, server_ms;
    double sim_ms, draw_ms, show_ms; /* this thread's, per frame */
} figures;

/* n frames in a window shown `how`; `old`: every frame drawn anew and
 * shown whole, as the window did before it kept its panels. */
static int window_frames(bench *b, int n, gui_present how, bool old,
                         figures *out, char *what, size_t len, sb_err *e)
{
    gui_window *w;
    if (gui_window_open("bench_gui", 1920, 1080, how, &w, e) != 0)
        return -1;
    snprintf(what, len, "%s", gui_window_how(w));
    view_hits hits;
    b->v.hits = &hits;
    b->v.cache = old ? NULL : b->cache;
    b->v.hover = true;
    double *wall = malloc((size_t)n * sizeof *wall);
    double c0 = 0, s0 = 0, last = 0, part[3] = {0, 0, 0};
    for (int i = -10; i < n; i++) { /* ten frames to settle first */
        if (i == 0) {
            c0 = cpu_s();
            s0 = server_cpu_s();
            part[0] = part[1] = part[2] = 0;
        }
        double p0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
        step(b);
        double p1 = clock_s(CLOCK_THREAD_CPUTIME_ID);
        int pw, ph;
        bool fresh;
        cairo_t *cr = gui_window_begin(w, &pw, &ph, &fresh, e);
        if (cr == NULL)
            break;
        view_layout l;
        view_layout_compute(pw, ph, view_font_px(pw, ph), 2, &l);
        b->v.hx = l.panels[1].x + l.panels[1].w * 0.5;
        b->v.hy = l.panels[1].y + l.panels[1].h * 0.6;
        chart_rect changed[VIEW_REGIONS + 1];
        b->v.fresh = fresh || old;
        int k = view_draw_changed(cr, pw, ph, &b->v, changed);
        double p2 = clock_s(CLOCK_THREAD_CPUTIME_ID);
        gui_window_show(w, changed, old ? -1 : k);
        double p3 = clock_s(CLOCK_THREAD_CPUTIME_ID);
        part[0] += p1 - p0;
        part[1] += p2 - p1;
        part[2] += p3 - p2;
        double now = clock_s(CLOCK_MONOTONIC);
        if (i >= 0)
            wall[i] = now - last;
        last = now;
    }
    double ours = cpu_s() - c0, server = server_cpu_s() - s0;
    gui_window_close(w);
    b->v.hits = NULL;
    out->fps = 1.0 / median(wall, n);
    out->ours_ms = ours / n * 1e3;
    out->server_ms = s0 >= 0 ? server / n * 1e3 : -1;
    out->sim_ms = part[0] / n * 1e3;
    out->draw_ms = part[1] / n * 1e3;
    out->show_ms = part[2] / n * 1e3;
    free(wall);
    return 0;
}

static int window(bench *b, int n)
{
    static const struct {
        gui_present how;
        bool old;
        const char *name;
    } ways[] = {{GUI_PRESENT_AUTO, false, "changes only, as the window"},
                {GUI_PRESENT_TEXTURE, false, "changes only, texture"},
                {GUI_PRESENT_TEXTURE, true, "before: all drawn, all shown"}};
    printf("stormbench GUI window: 1920x1080, panels over %d s of 1 s "
           "buckets, %u clients per run, A/B on, both running at real "
           "time, the pointer on a panel; %d frames each\n\n",
           b->minutes * 60, sim_clients(session_sim(b->run[0])), n);
    printf("  %-30s %-20s %8s %9s %9s   %s\n", "", "shown by", "frames/s",
           "CPU ms", "X server", "of which: simulate, draw, show");
    for (size_t i = 0; i < sizeof ways / sizeof *ways; i++) {
        figures f;
        char what[64];
        sb_err e;
        if (window_frames(b, n, ways[i].how, ways[i].old, &f, what, sizeof what,
                          &e) != 0) {
            fprintf(stderr, "bench_gui: %s\n", e.msg);
            return 1;
        }
        printf("  %-30s %-20s %8.1f %9.2f %9.2f   %.2f, %.2f, %.2f\n",
               ways[i].name, what, f.fps, f.ours_ms, f.server_ms, f.sim_ms,
               f.draw_ms, f.show_ms);
    }
    printf("\n  frames/s: the wall clock's (no vsync under Xvfb: nothing "
           "but the work caps it).\n  CPU ms: per frame, this process's "
           "(every thread: a software OpenGL's too) and the X server's;\n"
           "  of which: this thread's, simulating 1/60 s of both runs, "
           "drawing, showing.\n");
    return 0;
}

/* A positive whole number below max from an argument, or 0. */
static long whole_arg(const char *s, long max)
{
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    return s && end != s && *end == '\0' && errno == 0 && v > 0 && v < max ? v
                                                                           : 0;
}

static int count_arg(const char *s)
{
    return (int)whole_arg(s, 1000000);
}

static int setup(bench *b)
{
    sb_err e;
    if (prepare(b, &e) != 0 || view_cache_create(&b->cache, &e) != 0) {
        fprintf(stderr, "bench_gui: %s\n", e.msg);
        return -1;
    }
    return 0;
}

static void teardown(bench *b)
{
    view_cache_destroy(b->cache);
    session_destroy(b->run[0]);
    session_destroy(b->run[1]);
}

/* The frame at 1k, 10k, 100k and 1M clients per run, the same load
 * (prepare): what a frame costs as the field grows, and the frames per
 * second the CPU allows (one core: a frame's drawing with the panels
 * kept, and 1/60 s of both runs simulated). */
static int sweep(bench *b, int n)
{
    static const long counts[] = {1000, 10000, 100000, 1000000};
    printf("stormbench GUI frame by clients: 1920x1080, panels over %d s of "
           "1 s buckets, A/B on,\n20 000 requests/s offered to each run "
           "whatever the clients (a retry storm), CPU ms, medians of %d\n\n",
           b->minutes * 60, n);
    printf("  %9s %12s %12s %14s %16s\n", "clients", "all anew", "panels kept",
           "simulate 1/60", "frames/s on CPU");
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        b->clients = counts[i];
        if (setup(b) != 0)
            return 1;
        drawn d;
        draw_figures(b, n, &d);
        printf("  %9ld %9.2f ms %9.2f ms %11.2f ms %16.0f\n", counts[i],
               d.all_ms, d.kept_ms, d.sim_ms, 1e3 / (d.kept_ms + d.sim_ms));
        fflush(stdout);
        teardown(b);
    }
    printf("\n  frames/s on CPU: 1 / (panels kept + simulate), one core; "
           "60 is the goal.\n");
    return 0;
}

int main(int argc, char **argv)
{
    static bench b;
    int n = 11, frames = 0;
    bool by_clients = false;
    b.minutes = 30;
    for (int i = 1; i < argc; i++) {
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--draws") == 0 && count_arg(next)) {
            n = count_arg(argv[++i]);
        } else if (strcmp(argv[i], "--window") == 0) {
            frames = count_arg(next) ? count_arg(argv[++i]) : 300;
        } else if (strcmp(argv[i], "--minutes") == 0 && count_arg(next)) {
            b.minutes = count_arg(argv[++i]);
        } else if (strcmp(argv[i], "--clients") == 0 &&
                   whole_arg(next, 100000001)) {
            b.clients = whole_arg(argv[++i], 100000001);
        } else if (strcmp(argv[i], "--sweep") == 0) {
            by_clients = true;
        } else {
            puts("Usage: bench_gui [--draws N] [--window [FRAMES]] "
                 "[--minutes M] [--clients C] [--sweep]\n\nA GUI frame at "
                 "1920x1080 (M minutes of buckets, default 30; C clients "
                 "per run, default 10 000, sharing 20 000 requests/s; A/B): "
                 "its CPU time drawn into an image (the median of N, "
                 "default 11), or FRAMES frames (default 300) in the real "
                 "window, shown as the window shows them and as it did "
                 "before (run it under xvfb-run).  --sweep: the image's "
                 "figures at 1k, 10k, 100k and 1M clients.");
            return strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0
                       ? 0
                       : 1;
        }
    }
    if (by_clients)
        return sweep(&b, n);
    if (setup(&b) != 0)
        return 1;
    int rc = 0;
    if (frames > 0)
        rc = window(&b, frames);
    else
        draw_alone(&b, n);
    teardown(&b);
    return rc;
}
