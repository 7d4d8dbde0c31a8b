/*
 * bench_gui.c -- what a frame of the GUI costs, and what is left of it
 * for the simulation.
 *
 * The case: a 1920 x 1080 frame, panels showing 30 minutes of
 * 1 s buckets, a field of 10 000 clients, A/B on (two runs drawn).  The
 * two runs are a retry storm of 10 000 clients (bench/storm-10k.ini's
 * load, stretched to 30 minutes).  Prints the CPU time to draw one frame
 * (the median of 31), the frames per second drawing alone allows, the
 * CPU time to simulate one frame's worth (1/60 s) of both runs at real
 * time, and the share of a 60 frames/s frame left for the simulation.
 * CPU time (clock()), not wall time: the machines are shared.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scenario.h"
#include "view.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double cpu_s(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

int main(int argc, char **argv)
{
    int n = 11;
    if (argc == 3 && strcmp(argv[1], "--draws") == 0 && atoi(argv[2]) > 0) {
        n = atoi(argv[2]);
    } else if (argc > 1) {
        puts("Usage: bench_gui [--draws N]\n\nThe CPU time of one GUI frame "
             "at 1920x1080 (30 minutes of buckets, 10 000 clients, A/B), and "
             "the share of a 60 frames/s frame left for simulation: the "
             "median of N draws (default 11; more for a profiler).");
        return strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0
                   ? 0
                   : 1;
    }
    static scenario sc;
    sb_err e;
    if (scenario_load(SB_SOURCE_DIR "/bench/storm-10k.ini",
                      (const char *[]){"scenario.duration=32m"}, 1, &sc,
                      &e) != 0) {
        fprintf(stderr, "bench_gui: %s\n", e.msg);
        return 1;
    }
    session_opts a = {&sc.cfg, "immediate", NULL, 0, NULL, 0};
    session_opts b = {&sc.cfg, "exponential+token_bucket", NULL, 0, NULL, 0};
    session *ra, *rb;
    if (session_create(&a, &ra, &e) != 0 || session_create(&b, &rb, &e) != 0) {
        fprintf(stderr, "bench_gui: %s\n", e.msg);
        return 1;
    }
    /* Fill 30 minutes of buckets, then time one simulated second. */
    int64_t t30 = 1800 * NS_PER_S;
    session_run_until(ra, t30);
    session_run_until(rb, t30);
    double c0 = cpu_s();
    session_run_until(ra, t30 + NS_PER_S);
    session_run_until(rb, t30 + NS_PER_S);
    double sim_per_s = cpu_s() - c0;

    int w = 1920, h = 1080;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t *cr = cairo_create(s);
    view_state v;
    memset(&v, 0, sizeof v);
    v.scenario = sc.cfg.name;
    v.runs[0] = ra;
    v.runs[1] = rb;
    v.n_runs = 2;
    v.speed = 1;
    v.achieved = 1;
    v.span_s = 1800;
    v.drag_t = -1;
    v.inject_s = 10;
    double *t = malloc((size_t)n * sizeof *t);
    if (t == NULL)
        return 1;
    for (int i = 0; i < n; i++) {
        double t0 = cpu_s();
        view_draw(cr, w, h, &v);
        cairo_surface_flush(s);
        t[i] = cpu_s() - t0;
    }
    qsort(t, (size_t)n, sizeof *t, cmp);
    double draw = t[n / 2], frame = 1.0 / 60.0;
    double sim_frame = sim_per_s / 60.0;
    printf("stormbench GUI frame: %dx%d, panels over %d s of 1 s buckets, "
           "%u clients per run, A/B on\n\n",
           w, h, 1800, sim_clients(session_sim(ra)));
    printf("  draw one frame           %7.2f ms CPU (median of %d; min %.2f, "
           "max %.2f)\n",
           draw * 1e3, n, t[0] * 1e3, t[n - 1] * 1e3);
    printf("  frames/s drawing allows  %7.1f\n", 1.0 / draw);
    printf("  simulate 1/60 s, A and B %7.2f ms CPU at real time\n",
           sim_frame * 1e3);
    printf("  left for simulation      %7.1f %% of a 60 frames/s frame "
           "(%.2f ms of %.2f)\n",
           100.0 * (frame - draw) / frame, (frame - draw) * 1e3,
           frame * 1e3);
    printf("  frames/s at real time    %7.1f (draw + simulate)\n",
           1.0 / (draw + sim_frame));
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    session_destroy(ra);
    session_destroy(rb);
    free(t);
    return 0;
}
