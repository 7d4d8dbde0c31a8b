/*
 * view.c -- drawing the GUI's picture (view.h).
 */
#include "view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RGB(r, g, b) (r) / 255.0, (g) / 255.0, (b) / 255.0

const chart_style view_mode_colours[CLIENT_MODE_COUNT] = {
    [CLIENT_IDLE] = {RGB(222, 222, 222), 1.0, 1.0, 0},
    [CLIENT_WAITING] = {RGB(86, 180, 233), 1.0, 1.0, 0},
    [CLIENT_POOL_WAIT] = {RGB(240, 228, 66), 1.0, 1.0, 0},
    [CLIENT_BACKING_OFF] = {RGB(230, 159, 0), 1.0, 1.0, 0},
    [CLIENT_REFUSED] = {RGB(213, 94, 0), 1.0, 1.0, 0},
    [CLIENT_GAVE_UP] = {RGB(0, 0, 0), 1.0, 1.0, 0},
};

const char *const view_mode_names[CLIENT_MODE_COUNT] = {
    [CLIENT_IDLE] = "idle",
    [CLIENT_WAITING] = "waiting on an attempt",
    [CLIENT_POOL_WAIT] = "waiting for a connection",
    [CLIENT_BACKING_OFF] = "backing off",
    [CLIENT_REFUSED] = "last send refused locally",
    [CLIENT_GAVE_UP] = "last request failed",
};

/* A's family is cool (Okabe-Ito's blue, sky blue and bluish green, and
 * a dark indigo), B's warm (vermillion, orange, reddish purple and a
 * brown): blue against orange is the pair the common colour blindnesses
 * keep apart, and each family's members differ in lightness too. */
const chart_style view_family[VIEW_MAX_RUNS][VIEW_FAMILY] = {
    {{RGB(0, 114, 178), 1.0, 2.0, 0},
     {RGB(86, 180, 233), 1.0, 2.0, 0},
     {RGB(0, 158, 115), 1.0, 2.0, 0},
     {RGB(45, 45, 120), 1.0, 2.0, 0}},
    {{RGB(213, 94, 0), 1.0, 2.0, 0},
     {RGB(230, 159, 0), 1.0, 2.0, 0},
     {RGB(204, 121, 167), 1.0, 2.0, 0},
     {RGB(140, 70, 20), 1.0, 2.0, 0}},
};

/* ---- Lines -------------------------------------------------------------------- */

/* Each line's column of the series: its key, label and unit are the
 * column's line in sim/metrics.h's METRICS_LINES. */
static const series_col line_col[LINE_COUNT] = {
    [LINE_OFFERED] = COL_offered,
    [LINE_ATTEMPTS] = COL_attempts,
    [LINE_CAPACITY] = COL_capacity,
    [LINE_GOODPUT] = COL_goodput,
    [LINE_SUCCESS] = COL_success,
    [LINE_QUEUE_WAIT] = COL_queue_wait,
    [LINE_P50] = COL_p50,
    [LINE_P99] = COL_p99,
    [LINE_QUEUE] = COL_queue,
    [LINE_DUPLICATES] = COL_duplicates,
    [LINE_QUARANTINED] = COL_quarantined,
    [LINE_DEAD_LETTERS] = COL_dead_letters,
    [LINE_WARNINGS] = COL_warnings,
    [LINE_CRITICAL] = COL_critical,
    [LINE_BREAKERS] = COL_breakers,
    [LINE_REFUSED] = COL_refused,
    [LINE_ALLOWANCE] = COL_allowance,
};

static const metrics_line_info *line_info(int line)
{
    return &metrics_lines[line_col[line]];
}

const char *view_line_key(int line)
{
    return line >= 0 && line < LINE_COUNT ? line_info(line)->key : "?";
}

int view_line_find(const char *key)
{
    for (int i = 0; i < LINE_COUNT; i++)
        if (strcmp(key, line_info(i)->key) == 0)
            return i;
    return -1;
}

/* "48 213": a whole number with its thousands apart. */
static const char *grouped(double v, char *buf, size_t len)
{
    char digits[48];
    snprintf(digits, sizeof digits, "%.0f", fabs(v));
    size_t n = strlen(digits), o = 0;
    if (v <= -0.5 && o + 1 < len)
        buf[o++] = '-';
    for (size_t i = 0; i < n && o + 2 < len; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ' ';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

/* A measured value: a decimal below 10 (0.4 /s means something), whole
 * above. */
static const char *measured(double v, char *buf, size_t len)
{
    if (fabs(v) < 10 && v != floor(v)) {
        snprintf(buf, len, "%.1f", v);
        return buf;
    }
    return grouped(v, buf, len);
}

const char *view_value_text(int line, double v, char *buf, size_t len)
{
    char num[48];
    if (!isfinite(v)) {
        snprintf(buf, len, "-");
        return buf;
    }
    switch (line >= 0 && line < LINE_COUNT ? line_info(line)->unit : MLU_MEAN) {
    case MLU_PER_S:
        snprintf(buf, len, "%s /s", measured(v, num, sizeof num));
        break;
    case MLU_MS:
        snprintf(buf, len, "%s ms", measured(v, num, sizeof num));
        break;
    case MLU_PCT:
        snprintf(buf, len, "%.1f %%", v);
        break;
    case MLU_COUNT:
        snprintf(buf, len, "%s", grouped(v, num, sizeof num));
        break;
    default:
        snprintf(buf, len, "%s", measured(v, num, sizeof num));
        break;
    }
    return buf;
}

/* ---- Hits ------------------------------------------------------------------------ */

void view_hits_clear(view_hits *h)
{
    h->n = 0;
}

void view_hits_add(view_hits *h, chart_rect r, int kind, int a, int b)
{
    if (h == NULL || h->n >= VIEW_MAX_HITS || (kind == HIT_LABEL && !h->labels))
        return;
    h->hit[h->n++] = (view_hit){r, kind, a, b};
}

static bool inside(chart_rect r, double x, double y)
{
    return x >= r.x && x <= r.x + r.w && y >= r.y && y <= r.y + r.h;
}

const view_hit *view_hits_at(const view_hits *h, double x, double y)
{
    for (int i = h->n - 1; i >= 0; i--)
        if (h->hit[i].kind != HIT_LABEL && inside(h->hit[i].r, x, y))
            return &h->hit[i];
    return NULL;
}

/* ---- Layout ---------------------------------------------------------------- */

double view_font_px(double w, double h)
{
    return fmax(10.0, fmin(w / 110.0, h / 60.0));
}

double view_pixel_scale(int pixels, int units)
{
    return pixels > 0 && units > 0 ? (double)pixels / units : 1.0;
}

double view_font_px_scaled(double w, double h, double scale)
{
    if (!(scale > 0))
        scale = 1.0;
    return scale * view_font_px(w / scale, h / scale);
}

/* Panels leave room on the right for a second axis's labels, all of
 * them, so every panel's time axis lines up with the others' (one
 * crosshair crosses them all at the same time). */
#define RIGHT_AXIS_EM 3.4

void view_layout_compute(double w, double h, double f, int n_runs,
                         view_layout *l)
{
    memset(l, 0, sizeof *l);
    l->font_px = f;
    double header_h = f * (2.4 + 1.35 * n_runs);
    double status_h = f * 2.9, controls_h = f * 4.6, timeline_h = f * 2.6;
    l->header = (chart_rect){0, 0, w, header_h};
    l->status = (chart_rect){0, h - status_h, w, status_h};
    l->controls = (chart_rect){0, l->status.y - controls_h, w, controls_h};
    l->timeline =
        (chart_rect){f, l->controls.y - timeline_h, w - 2 * f, timeline_h};
    double top = header_h, bottom = l->timeline.y - f * 0.4;
    double main_h = fmax(bottom - top, f * 10);
    double left_w = floor(w * 0.66);
    double ph = main_h / VIEW_PANELS;
    for (int i = 0; i < VIEW_PANELS; i++)
        l->panels[i] = (chart_rect){0, top + i * ph, left_w, ph};
    double rx = left_w + f * 0.8, rw = w - rx - f * 0.8;
    double block = main_h / (n_runs > 0 ? n_runs : 1);
    for (int r = 0; r < n_runs && r < VIEW_MAX_RUNS; r++) {
        double y = top + r * block;
        double server_h = f * 6.4; /* two gauges, and a chain's tiers */
        l->field[r] =
            (chart_rect){rx, y + f * 1.7, rw, block - server_h - f * 4.6};
        l->server[r] =
            (chart_rect){rx, y + block - server_h - f * 0.6, rw, server_h};
    }
}

chart_panel view_panel_plot(const view_layout *l, int k, double t0, double t1)
{
    chart_panel p;
    chart_panel_init(&p, l->panels[k], "", "", t0, t1, 0, 1, l->font_px);
    double cut = l->font_px * (RIGHT_AXIS_EM - 0.8);
    p.plot.w = fmax(1.0, p.plot.w - cut);
    p.x.p1 = p.plot.x + p.plot.w;
    int xmax = (int)(p.plot.w / (l->font_px * 5.0));
    chart_ticks_for(t0, t1, xmax < 2 ? 2 : xmax, &p.xt);
    return p;
}

void view_window(const view_state *v, double *t0, double *t1)
{
    if (v->end_s < 0) {
        const series *s = session_series(v->runs[0]);
        double last = s->n ? series_at(s, s->n - 1, COL_t) : 0.0;
        chart_time_window(last, v->span_s, t0, t1);
        return;
    }
    *t1 = v->end_s;
    *t0 = v->end_s - v->span_s;
}

double view_timeline_time(const view_layout *l, double duration_s, double x)
{
    double u = (x - l->timeline.x) / l->timeline.w;
    return fmin(fmax(u, 0.0), 1.0) * duration_s;
}

bool view_on_timeline(const view_layout *l, double x, double y)
{
    return inside(l->timeline, x, y);
}

/* ---- Small drawing helpers -------------------------------------------------- */

static void text(cairo_t *cr, double x, double y, const char *s)
{
    cairo_move_to(cr, x, y);
    cairo_show_text(cr, s);
}

/* The text a panel has placed so far, so what comes later can keep
 * clear of it: a panel's labels never overprint each other. */
#define PLACED_MAX 96

typedef struct placed {
    chart_rect r[PLACED_MAX];
    int n;
    int owner; /* the panel, for the hits */
} placed;

/* The box text s takes at (x, y) (its baseline) in the current font. */
static chart_rect text_box(cairo_t *cr, double x, double y, const char *s)
{
    cairo_font_extents_t fe;
    cairo_font_extents(cr, &fe);
    return (chart_rect){x, y - fe.ascent * 0.92, chart_text_width(cr, s),
                        fe.ascent * 0.92 + fe.descent * 0.6};
}

static bool overlap(chart_rect a, chart_rect b)
{
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h &&
           b.y < a.y + a.h;
}

static bool collides(const placed *pl, chart_rect r)
{
    for (int i = 0; pl && i < pl->n; i++)
        if (overlap(pl->r[i], r))
            return true;
    return false;
}

/* Remember r as taken (and record it in the hits as a label, tagged as
 * view.h's HIT_LABEL says). */
static void place_tagged(const view_state *v, placed *pl, chart_rect r, int tag)
{
    if (pl && pl->n < PLACED_MAX)
        pl->r[pl->n++] = r;
    view_hits_add(v->hits, r, HIT_LABEL, pl ? pl->owner : -1, tag);
}

static void place(const view_state *v, placed *pl, chart_rect r)
{
    place_tagged(v, pl, r, 0);
}

/* Text at (x, y), placed; returns its width. */
static double label(cairo_t *cr, const view_state *v, placed *pl, double x,
                    double y, const char *s)
{
    chart_rect r = text_box(cr, x, y, s);
    text(cr, x, y, s);
    place(v, pl, r);
    return r.w;
}

static void ink(cairo_t *cr, double grey)
{
    cairo_set_source_rgb(cr, grey, grey, grey);
}

static void colour(cairo_t *cr, const chart_style *c)
{
    cairo_set_source_rgba(cr, c->r, c->g, c->b, c->a);
}

static void fill_rect(cairo_t *cr, double x, double y, double w, double h,
                      const chart_style *c)
{
    colour(cr, c);
    cairo_rectangle(cr, x, y, w, h);
    cairo_fill(cr);
}

static const char *human_count(double v, char *buf, size_t len)
{
    return chart_format(v, 0, buf, len);
}

/* Cut s (in place) with an ellipsis until it fits in room. */
static void fit_text(cairo_t *cr, char *s, double room)
{
    size_t len = strlen(s);
    while (len > 4 && chart_text_width(cr, s) > room) {
        len -= 2;
        while (len > 3 && ((unsigned char)s[len - 3] & 0xc0) == 0x80)
            len--; /* not inside a character */
        s[len] = '\0';
        memcpy(s + len - 3, "...", 3);
    }
}

/* A run's chip: its letter on its colour. */
static void chip(cairo_t *cr, int r, double x, double y, double f)
{
    fill_rect(cr, x, y - f * 0.85, f * 1.1, f * 1.05, &view_family[r][0]);
    cairo_set_source_rgb(cr, 1, 1, 1);
    chart_font(cr, f * 0.85, true);
    chart_text(cr, x + f * 0.55, y - f * 0.05, 0.5, r ? "B" : "A");
}

/* ---- Header ------------------------------------------------------------------ */

/* The run's figures: "amplification 3.42   duplicates 1079 ...". */
static void run_figures(const sim_live *live, char *line, size_t len)
{
    char a[32], b[32];
    int n = snprintf(line, len,
                     "amplification %.2f   duplicates %s"
                     "   quarantined %s",
                     live->amplification,
                     human_count((double)live->duplicates, a, sizeof a),
                     human_count((double)live->quarantined, b, sizeof b));
    if (live->pipeline && n > 0 && (size_t)n < len)
        n += snprintf(line + n, len - (size_t)n,
                      "   jobs %llu done, %llu runs failed   alerts %llu "
                      "warning, %llu critical",
                      (unsigned long long)live->jobs_completed,
                      (unsigned long long)live->job_runs_failed,
                      (unsigned long long)live->alerts_warning,
                      (unsigned long long)live->alerts_critical);
    if (live->recovered && n > 0 && (size_t)n < len)
        snprintf(line + n, len - (size_t)n,
                 "   recovered %.0f s after the fault", live->recovery_time_s);
}

static void header_run(cairo_t *cr, const view_layout *l, const view_state *v,
                       int r, double y)
{
    const session *ss = v->runs[r];
    double f = l->font_px;
    char pol[512], name[300], line[1024];
    sim_live live;
    summary_live(session_sim(ss), &live);
    double x = f * 0.6;
    chip(cr, r, x, y, f);
    if (v->run_hidden[r]) { /* its lines are off: the chip fades */
        cairo_set_source_rgba(cr, 0.96, 0.96, 0.97, 0.7);
        cairo_rectangle(cr, x, y - f * 0.85, f * 1.1, f * 1.05);
        cairo_fill(cr);
    }
    view_hits_add(v->hits, (chart_rect){x, y - f * 0.85, f * 1.1, f * 1.05},
                  HIT_LEGEND, -1 - r, 0);
    x += f * 1.6;
    /* The policy's name: a button that opens the picker. */
    snprintf(name, sizeof name, "%s \xe2\x96\xbe", session_policy(ss));
    chart_font(cr, f, true);
    fit_text(cr, name, l->header.w * 0.3);
    double bw = chart_text_width(cr, name) + f * 0.8;
    cairo_set_source_rgb(cr, 0.88, 0.89, 0.92);
    cairo_rectangle(cr, x, y - f * 0.95, bw, f * 1.25);
    cairo_fill(cr);
    ink(cr, 0.1);
    text(cr, x + f * 0.4, y, name);
    view_hits_add(v->hits, (chart_rect){x, y - f * 0.95, bw, f * 1.25},
                  HIT_POLICY, r, 0);
    x += bw + f * 0.8;
    run_figures(&live, line, sizeof line);
    text(cr, x, y, line);
    x += chart_text_width(cr, line) + f;
    char warn[256] = "";
    if (live.after_fault && !live.recovered && live.goodput_ratio >= 0)
        snprintf(warn, sizeof warn,
                 "not recovered: goodput %.0f %% of baseline, %.0f s after "
                 "the fault",
                 100.0 * live.goodput_ratio, live.since_fault_s);
    double warn_w = warn[0] ? chart_text_width(cr, warn) + 2 * f : 0;
    if (warn[0]) {
        cairo_set_source_rgb(cr, 0.80, 0.25, 0.0);
        text(cr, l->header.w - warn_w + f, y, warn);
    }
    /* The parameters in what room is left. */
    session_policy_text(ss, pol, sizeof pol);
    const char *params = strchr(pol, '(');
    if (params == NULL)
        return;
    memmove(pol, params, strlen(params) + 1);
    chart_font(cr, f * 0.9, false);
    ink(cr, 0.3);
    fit_text(cr, pol, l->header.w - warn_w - x - f);
    if (chart_text_width(cr, pol) < l->header.w - warn_w - x - f)
        text(cr, x, y, pol);
}

/* A speed as people write it: 0.25, 2.5, 40, 4800 (never 4.8e+03). */
static void speed_text(double x, char *buf, size_t len)
{
    if (x >= 100)
        snprintf(buf, len, "%.0f", x);
    else
        snprintf(buf, len, "%.3g", x);
}

/* The speed chosen, and the real rate when it falls short of it: "20 x
 * real time", "412 x real time (asked 1000 x)", "3400 x real time (as
 * fast as it goes)".  Paused, ended or not measured yet: the speed
 * chosen. */
static void header_speed(const view_state *v, char *buf, size_t len)
{
    char got[32], asked[32];
    speed_text(v->achieved, got, sizeof got);
    speed_text(v->speed, asked, sizeof asked);
    if (v->achieved < 0 && v->speed <= 0)
        snprintf(buf, len, "as fast as it goes");
    else if (v->achieved < 0)
        snprintf(buf, len, "%s x real time", asked);
    else if (v->speed <= 0)
        snprintf(buf, len, "%s x real time (as fast as it goes)", got);
    else if (v->achieved < 0.95 * v->speed)
        snprintf(buf, len, "%s x real time (asked %s x)", got, asked);
    else
        snprintf(buf, len, "%s x real time", asked);
}

/* The header's first line.  The engine's rate is shown only while it is
 * measured (the run going); paused or ended, the events so far: a paused
 * window read "0.00 M events/s", as if the engine had stalled. */
void view_header_line(const view_state *v, char *line, size_t len)
{
    const session *a = v->runs[0];
    const sim_config *c = session_config(a);
    double now = (double)session_now(a) / 1e9;
    char speed[96];
    header_speed(v, speed, sizeof speed);
    char events[64];
    if (v->events_per_s >= 0 && !v->paused && !session_done(a))
        snprintf(events, sizeof events, "%.2f M events/s",
                 v->events_per_s / 1e6);
    else
        snprintf(events, sizeof events, "%.2f M events", v->events / 1e6);
    char from[300] = "";
    if (v->policy_from)
        snprintf(from, sizeof from, "     policy from %s", v->policy_from);
    snprintf(line, len, "%s%s     t = %.1f s of %.0f s     %s     %s%s%s",
             v->scenario, from, now, (double)c->duration_ns / 1e9, speed,
             events, v->paused ? "     PAUSED" : "",
             session_done(a) ? "     END OF RUN" : "");
}

static void header(cairo_t *cr, const view_layout *l, const view_state *v)
{
    double f = l->font_px;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 0.96, 0.96, 0.97);
    cairo_rectangle(cr, 0, 0, l->header.w, l->header.h);
    cairo_fill(cr);
    char line[800];
    view_header_line(v, line, sizeof line);
    chart_font(cr, f * 1.15, true);
    ink(cr, 0.1);
    text(cr, f * 0.6, f * 1.5, line);
    for (int r = 0; r < v->n_runs; r++)
        header_run(cr, l, v, r, f * (2.9 + 1.35 * r));
    cairo_restore(cr);
}

/* ---- Panels -------------------------------------------------------------------- */

typedef struct line_def {
    int line;   /* view_line */
    int colour; /* one run: palette index; -1 ink (two: the family's) */
    int dash;
    bool right; /* against the right axis */
} line_def;

typedef struct panel_def {
    const char *title, *unit, *right_unit;
    line_def lines[4];
    int n;
} panel_def;

static const panel_def panels[VIEW_PANELS] = {
    {"load",
     "per second",
     NULL,
     {{LINE_OFFERED, 4, 0, false},
      {LINE_ATTEMPTS, 5, 0, false},
      {LINE_CAPACITY, -1, 2, false}},
     3},
    {"goodput",
     "successes/s",
     "% ok",
     {{LINE_GOODPUT, 2, 0, false}, {LINE_SUCCESS, 1, 2, true}},
     2},
    {"queue wait and latency",
     "ms",
     "queued",
     {{LINE_QUEUE_WAIT, 6, 0, false},
      {LINE_P50, 1, 0, false},
      {LINE_P99, 4, 0, false},
      {LINE_QUEUE, 0, 2, true}},
     4},
    {"duplicates and quarantined",
     "requests, so far",
     NULL,
     {{LINE_DUPLICATES, 5, 0, false}, {LINE_QUARANTINED, 6, 0, false}},
     2},
    {"policy",
     "count, per second",
     "% left",
     {{LINE_BREAKERS, 7, 0, false},
      {LINE_REFUSED, 0, 0, false},
      {LINE_ALLOWANCE, 2, 2, true}},
     3},
};

/* A pipeline's run shows what its on-call engineer meets in place of the
 * duplicates panel: the writes repeated, the dead-letter queue, the
 * alerts raised. */
static const panel_def pipeline_panel = {"duplicates, dead letters and alerts",
                                         "so far",
                                         "alerts",
                                         {{LINE_DUPLICATES, 5, 0, false},
                                          {LINE_DEAD_LETTERS, 6, 0, false},
                                          {LINE_WARNINGS, 1, 2, true},
                                          {LINE_CRITICAL, 4, 0, true}},
                                         4};

static const panel_def *panel_of(const view_state *v, int k)
{
    if (k == 3 && sim_config_of(session_sim(v->runs[0]))->pipeline.n_steps)
        return &pipeline_panel;
    return &panels[k];
}

/* Line `slot` of a panel in run `run`: with two runs, the slot's colour
 * of the run's family; with one, the line's own colour.  The dash is the
 * line's in both: it marks a reference or a right-axis line, never a
 * run. */
static chart_style line_style(const view_state *v, const line_def *d, int slot,
                              int run)
{
    chart_style st;
    if (v->n_runs > 1)
        st = view_family[run][slot % VIEW_FAMILY];
    else
        st = d->colour >= 0 ? chart_palette[d->colour] : chart_ink;
    st.width = d->dash == 2 ? 1.6 : 2.0;
    st.dash = d->dash;
    return st;
}

static bool shown(const view_state *v, const line_def *d, int run)
{
    return !(v->hidden & (1u << d->line)) && !v->run_hidden[run];
}

/* The largest value of the panel's left (or right) lines shown over
 * [t0, t1], every run. */
static double panel_max(const panel_def *d, const view_state *v, double t0,
                        double t1, bool right)
{
    double m = 0.0;
    for (int r = 0; r < v->n_runs; r++) {
        const series *s = session_series(v->runs[r]);
        size_t from, to;
        series_range(s, t0, t1, &from, &to);
        for (int i = 0; i < d->n; i++)
            if (d->lines[i].right == right && shown(v, &d->lines[i], r))
                m = fmax(m,
                         series_max(s, line_col[d->lines[i].line], from, to));
    }
    return m;
}

/* A fault the GUI made for a live change (rate, workers, timeout). */
static bool is_change(const fault_cfg *f)
{
    return f->type == FAULT_LOAD_SPIKE || f->type == FAULT_CAPACITY ||
           f->type == FAULT_CLIENT_TIMEOUT;
}

const char *view_fault_text(const fault_cfg *f, double at_s, char *buf,
                            size_t len)
{
    char what[96];
    fault_words(f, FAULT_WORDS_BRIEF, what, sizeof what);
    if (at_s >= 0)
        snprintf(buf, len, "%s at %.0f s", what, at_s);
    else
        snprintf(buf, len, "%s", what);
    return buf;
}

void view_lanes(const double *x, const double *w, int n, int max_lanes,
                double gap, int *lane)
{
    enum { LANES = 8 };
    double right[LANES];
    int order[256];
    if (max_lanes > LANES)
        max_lanes = LANES;
    if (n > 256)
        n = 256;
    for (int k = 0; k < LANES; k++)
        right[k] = -INFINITY;
    for (int i = 0; i < n; i++) { /* by x: insertion, n is small */
        int j = i;
        for (; j > 0 && x[order[j - 1]] > x[i]; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    for (int o = 0; o < n; o++) {
        int i = order[o];
        lane[i] = -1;
        for (int k = 0; k < max_lanes; k++)
            if (x[i] >= right[k] + gap) {
                lane[i] = k;
                right[k] = x[i] + w[i];
                break;
            }
    }
}

/* What the panels draw of the runs' faults: a fault shades the plot
 * and is named along its top; a live change made by hand (rate, workers,
 * timeout) is a strip along the foot from its start to the next change,
 * named in it.  Each group has lanes, so no two names overprint: a name
 * with no lane left is not drawn (the timeline and the tooltip still
 * have it).  A change is marked by its strip alone: a dashed line from
 * top to foot at its instant crossed the faults' shading and names, and
 * read as one of theirs (an outage's end, say). */
#define MARKS_MAX 64
#define MARK_LANES 2

typedef struct mark {
    double x0, x1; /* the span on the plot */
    bool change;
    char text[96];  /* "12 workers at 62 s" */
    char brief[96]; /* "12 workers": where the whole name has no room */
} mark;

static int collect_marks(cairo_t *cr, const chart_panel *p, const session *ss,
                         mark *m)
{
    uint32_t n;
    const fault_cfg *f = sim_faults(session_sim(ss), &n);
    uint32_t configured = session_config(ss)->n_faults;
    double now = (double)session_now(ss) / 1e9;
    int k = 0, cause = -1;
    double cause_end = -INFINITY;
    for (uint32_t i = 0; i < n && k < MARKS_MAX; i++) {
        double t0 = (double)f[i].start_ns / 1e9;
        double t1 = fmin(t0 + (double)f[i].duration_ns / 1e9, now);
        bool change = i >= configured && is_change(&f[i]);
        if (!change && f[i].duration_ns > 0 && t0 <= now && t1 < p->x.lo &&
            t1 >= cause_end) {
            cause = (int)i; /* the last fault that ended before the view */
            cause_end = t1;
        }
        /* Not yet, out of view, or ended before it began (a change
         * replaced at the instant it was made). */
        if (t0 > now || t1 < p->x.lo || t0 > p->x.hi || f[i].duration_ns == 0)
            continue;
        m[k].change = change;
        if (!m[k].change) /* a change's mark is its strip, at the foot */
            chart_panel_window(cr, p, t0, t1, NULL);
        view_fault_text(&f[i], t0, m[k].text, sizeof m[k].text);
        view_fault_text(&f[i], -1, m[k].brief, sizeof m[k].brief);
        m[k].x0 = fmax(chart_scale_map(&p->x, t0), p->plot.x);
        m[k].x1 = fmin(chart_scale_map(&p->x, t1), p->plot.x + p->plot.w);
        k++;
    }
    /* The fault that ended before the view is still named, at its left
     * edge: a storm it left behind would otherwise go on with nothing on
     * screen to say what set it off. */
    if (cause >= 0 && k < MARKS_MAX) {
        char what[96];
        view_fault_text(&f[cause], (double)f[cause].start_ns / 1e9, what,
                        sizeof what);
        snprintf(m[k].text, sizeof m[k].text,
                 "\xe2\x86\x90 %.60s, ended at %.0f s", what, cause_end);
        snprintf(m[k].brief, sizeof m[k].brief, "%s", m[k].text);
        m[k].change = false;
        m[k].x0 = m[k].x1 = p->plot.x;
        k++;
    }
    return k;
}

/* The names of the faults on their lanes along the plot's top; a name
 * that would cover text already placed (a legend's second row, say) is
 * left out. */
static void fault_names(cairo_t *cr, const chart_panel *p, const view_state *v,
                        placed *pl, const mark *m, int n)
{
    double f = p->font_px, line = f * 0.75 * 1.35;
    double x[MARKS_MAX], w[MARKS_MAX];
    int idx[MARKS_MAX], lane[MARKS_MAX], c = 0;
    for (int i = 0; i < n; i++) {
        if (m[i].change)
            continue;
        x[c] = m[i].x0 + f * 0.2;
        w[c] = chart_text_width(cr, m[i].text);
        idx[c++] = i;
    }
    int max_lanes = p->plot.h > line * 5 ? MARK_LANES : 1;
    view_lanes(x, w, c, max_lanes, f * 0.4, lane);
    for (int j = 0; j < c; j++) {
        if (lane[j] < 0)
            continue;
        const char *s = m[idx[j]].text;
        double y = p->plot.y + f * 0.85 + lane[j] * line;
        chart_rect r = text_box(cr, x[j], y, s);
        if (r.x + r.w > p->plot.x + p->plot.w || collides(pl, r))
            continue; /* no room for its name */
        cairo_set_source_rgba(cr, 1, 1, 1, 0.7);
        cairo_rectangle(cr, r.x - f * 0.1, r.y, r.w + f * 0.2, r.h);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.55, 0.23, 0.0);
        text(cr, x[j], y, s);
        place_tagged(v, pl, r, VIEW_LABEL_FAULT);
    }
}

/* Is [x0, x1) on lane k free of every strip but `own` and of the names
 * placed there? */
static bool lane_free(const double *sx0, const double *sx1, const int *slane,
                      int n, int own, const chart_rect *named, int k, double x0,
                      double x1, double line, double foot)
{
    for (int i = 0; i < n; i++)
        if (i != own && slane[i] == k && x0 < sx1[i] && sx0[i] < x1)
            return false;
    chart_rect r = {x0, foot - (k + 1) * line, x1 - x0, line};
    for (int i = 0; i < n; i++)
        if (named[i].w > 0 && overlap(named[i], r))
            return false;
    return true;
}

/* The changes: each a strip on a lane along the foot (the first lane
 * its span is free on), with a solid left edge at its instant; then each
 * name where it belongs to its own strip alone: in the strip, or on
 * another lane right over the strip's start, where no other strip or
 * name lies under it (the whole name, else the name without its time;
 * else none: the timeline and the tooltip have it).  A name running on
 * past its strip's end over the next change's strip read as that
 * change's ("12 workers at 62 s" over the strip of the 20 workers set at
 * 66 s). */
static void change_strips(cairo_t *cr, const chart_panel *p,
                          const view_state *v, placed *pl, const mark *m, int n)
{
    double f = p->font_px, line = f * 0.75 * 1.35;
    double foot = p->plot.y + p->plot.h;
    double x0[MARKS_MAX], x1[MARKS_MAX];
    int idx[MARKS_MAX], lane[MARKS_MAX], c = 0;
    for (int i = 0; i < n; i++) {
        if (!m[i].change)
            continue;
        x0[c] = m[i].x0;
        x1[c] = fmax(m[i].x1, m[i].x0 + 1.0);
        idx[c++] = i;
    }
    int max_lanes = p->plot.h > line * 5 ? MARK_LANES : 1;
    double w[MARKS_MAX];
    for (int j = 0; j < c; j++)
        w[j] = x1[j] - x0[j];
    view_lanes(x0, w, c, max_lanes, 0.0, lane);
    for (int j = 0; j < c; j++) {
        if (lane[j] < 0)
            continue;
        double top = foot - (lane[j] + 1) * line;
        cairo_set_source_rgba(cr, 0.30, 0.35, 0.60, 0.22);
        cairo_rectangle(cr, x0[j], top, x1[j] - x0[j], line - f * 0.1);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.30, 0.35, 0.60);
        cairo_rectangle(cr, round(x0[j]), top, 1.0, line - f * 0.1);
        cairo_fill(cr);
        view_hits_add(v->hits,
                      (chart_rect){x0[j], top, x1[j] - x0[j], line - f * 0.1},
                      HIT_LABEL, pl ? pl->owner : -1, VIEW_LABEL_STRIP);
    }
    chart_rect named[MARKS_MAX];
    memset(named, 0, sizeof named);
    for (int j = 0; j < c; j++) {
        if (lane[j] < 0)
            continue;
        const mark *mk = &m[idx[j]];
        const char *texts[2] = {mk->text, mk->brief};
        double x = x0[j] + f * 0.3;
        bool done = false;
        for (int t = 0; t < 2 && !done; t++) {
            double tw = chart_text_width(cr, texts[t]);
            for (int d = 0; d < max_lanes && !done; d++) {
                int k = (lane[j] + d) % max_lanes;
                if (!lane_free(x0, x1, lane, c, j, named, k, x0[j],
                               x + tw + f * 0.2, line, foot))
                    continue;
                double y = foot - f * 0.3 - k * line;
                chart_rect r = text_box(cr, x, y, texts[t]);
                if (r.x + r.w > p->plot.x + p->plot.w || collides(pl, r))
                    continue;
                named[j] = (chart_rect){x0[j], foot - (k + 1) * line,
                                        x + tw + f * 0.2 - x0[j], line};
                cairo_set_source_rgba(cr, 1, 1, 1, 0.7);
                cairo_rectangle(cr, r.x - f * 0.1, r.y, r.w + f * 0.2, r.h);
                cairo_fill(cr);
                cairo_set_source_rgb(cr, 0.15, 0.2, 0.4);
                text(cr, x, y, texts[t]);
                place_tagged(v, pl, r, VIEW_LABEL_CHANGE);
                done = true;
            }
        }
    }
}

static void marks(cairo_t *cr, const chart_panel *p, const view_state *v,
                  placed *pl)
{
    static mark m[MARKS_MAX];
    cairo_save(cr);
    chart_font(cr, p->font_px * 0.75, false);
    int n = collect_marks(cr, p, v->runs[0], m);
    cairo_save(cr);
    cairo_rectangle(cr, p->plot.x, p->plot.y, p->plot.w, p->plot.h);
    cairo_clip(cr);
    fault_names(cr, p, v, pl, m, n);
    change_strips(cr, p, v, pl, m, n);
    cairo_restore(cr);
    cairo_restore(cr);
}

/* What a panel looked like when drawn: for the crosshair, the tooltip
 * and the reference names' places. */
typedef struct drawn_panel {
    chart_panel p;
    chart_scale right;
    const panel_def *d;
} drawn_panel;

/* Whether the segment (ax, ay)-(bx, by) passes through r. */
static bool segment_hits(double ax, double ay, double bx, double by,
                         chart_rect r)
{
    double x0 = r.x, x1 = r.x + r.w;
    if (fmax(ax, bx) < x0 || fmin(ax, bx) > x1)
        return false;
    double ya = ay, yb = by;
    if (bx != ax) { /* the part of it over [x0, x1] */
        double s0 = (fmax(fmin(ax, bx), x0) - ax) / (bx - ax);
        double s1 = (fmin(fmax(ax, bx), x1) - ax) / (bx - ax);
        ya = ay + (by - ay) * s0;
        yb = ay + (by - ay) * s1;
    }
    return fmax(ya, yb) >= r.y && fmin(ya, yb) <= r.y + r.h;
}

/* Whether a line the panel shows (any run's) passes through r, as
 * series_lines will draw it: from point to point, broken at a gap. */
static bool lines_cross(const drawn_panel *dp, const view_state *v,
                        chart_rect r)
{
    const chart_panel *p = &dp->p;
    double t0 = chart_scale_unmap(&p->x, r.x);
    double t1 = chart_scale_unmap(&p->x, r.x + r.w);
    for (int run = 0; run < v->n_runs; run++) {
        const series *s = session_series(v->runs[run]);
        size_t from, to;
        series_range(s, t0 - s->width_s, t1 + s->width_s, &from, &to);
        for (int i = 0; i < dp->d->n; i++) {
            const line_def *ld = &dp->d->lines[i];
            if (!shown(v, ld, run))
                continue;
            const chart_scale *y = ld->right ? &dp->right : &p->y;
            const double *ts = series_col_ptr(s, COL_t);
            const double *vs = series_col_ptr(s, line_col[ld->line]);
            double px = NAN, py = NAN;
            for (size_t j = from; j < to; j++) {
                double x = chart_scale_map(&p->x, ts[j * COL_COUNT]);
                double yy = chart_scale_map(y, vs[j * COL_COUNT]);
                if (isfinite(px) && isfinite(py) && isfinite(x) &&
                    isfinite(yy) && segment_hits(px, py, x, yy, r))
                    return true;
                px = x;
                py = yy;
            }
        }
    }
    return false;
}

/* A reference line (the client timeout, the baseline) across the plot,
 * drawn before the runs' lines. */
static void reference_line(const chart_panel *p, cairo_t *cr, double value,
                           const chart_style *st)
{
    double y = chart_scale_map(&p->y, value);
    if (y >= p->plot.y && y <= p->plot.y + p->plot.h)
        chart_panel_hline(cr, p, value, NULL, st);
}

/* Its name, drawn after the runs' lines, at the first place free of the
 * panel's text and of every line shown, of: above the line, then below
 * it, at the right end, the left end, then stepping from the right end
 * leftwards by the name's width.  It went to the first free of text
 * alone, and a run's line falling through the baseline's height in a
 * storm (B's success ratio) was drawn across it.  Where every place has
 * a line through it, the first free of text gets a backing, so the name
 * is read over the line; where all have text, it is not drawn. */
static void reference_name(cairo_t *cr, const drawn_panel *dp,
                           const view_state *v, placed *pl, double value,
                           const char *name, const chart_style *st)
{
    const chart_panel *p = &dp->p;
    double y = chart_scale_map(&p->y, value), f = p->font_px;
    if (!(y >= p->plot.y && y <= p->plot.y + p->plot.h))
        return;
    cairo_save(cr);
    chart_font(cr, f * 0.8, false);
    double w = chart_text_width(cr, name), pad = f * 0.3;
    double ys[2] = {y - f * 0.3, y + f * 0.95};
    int steps = (int)((p->plot.w - 2 * pad) / (w + f)) + 1;
    bool found = false, backing = false;
    chart_rect best = {0, 0, 0, 0};
    double best_y = 0;
    for (int k = 0; k < 2 * (steps + 1) && !found; k++) {
        int at = k / 2; /* 0: right end, 1: left end, then leftwards */
        double x = at == 1 ? p->plot.x + pad
                           : p->plot.x + p->plot.w - pad - w -
                                 (at > 1 ? (at - 1) * (w + f) : 0);
        if (x < p->plot.x + pad)
            continue;
        chart_rect r = text_box(cr, x, ys[k % 2], name);
        if (r.y < p->plot.y || r.y + r.h > p->plot.y + p->plot.h ||
            collides(pl, r))
            continue;
        /* Room for the lines' width and anti-aliasing. */
        chart_rect g = {r.x - 2, r.y - 2, r.w + 4, r.h + 4};
        found = !lines_cross(dp, v, g);
        if (found || !backing) {
            best = r;
            best_y = ys[k % 2];
            backing = true;
        }
    }
    if (backing) {
        if (!found) {
            cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
            cairo_rectangle(cr, best.x - 1, best.y - 1, best.w + 2, best.h + 2);
            cairo_fill(cr);
        }
        cairo_set_source_rgba(cr, st->r, st->g, st->b, fmax(st->a, 0.8));
        text(cr, best.x, best_y, name);
        place_tagged(v, pl, best, VIEW_LABEL_REFERENCE);
    }
    cairo_restore(cr);
}

/* The right axis: tick labels outside the plot, the unit on the title
 * line above them. */
static chart_scale right_axis(cairo_t *cr, const chart_panel *p,
                              const view_state *v, placed *pl, double hi,
                              const char *unit)
{
    chart_scale y = {0.0, hi, p->plot.y + p->plot.h, p->plot.y, false, false};
    chart_ticks t;
    double f = p->font_px;
    int max = (int)(p->plot.h / (f * 2.2));
    chart_ticks_for(0.0, hi, max < 2 ? 2 : max, &t);
    char buf[32];
    cairo_save(cr);
    chart_font(cr, f * 0.8, false);
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    double x = p->plot.x + p->plot.w;
    cairo_set_line_width(cr, 1.0);
    for (int i = 0; i < t.count; i++) {
        double v_ = t.first + i * t.step;
        double py = chart_scale_map(&y, v_);
        cairo_move_to(cr, x, py);
        cairo_line_to(cr, x + f * 0.3, py);
        cairo_stroke(cr);
        label(cr, v, pl, x + f * 0.4, py + f * 0.3,
              chart_format(v_, t.decimals, buf, sizeof buf));
    }
    chart_font(cr, f * 0.85, false);
    double w = chart_text_width(cr, unit);
    label(cr, v, pl, p->outer.x + p->outer.w - w - f * 0.2,
          p->outer.y + f * 1.15, unit);
    cairo_restore(cr);
    return y;
}

/* The legend on the title line, after the title and before the right
 * axis's unit (rows that do not fit go into the top of the plot, on a
 * backing): an item per line, its swatch in each run's colour (A's half,
 * B's half), greyed and struck through when switched off; a click on it
 * switches.  Laid out (and its room taken) before the plot is drawn,
 * drawn over it after. */
typedef struct legend_box {
    chart_rect item[4];
    double y[4], swatch, gap;
    bool wrapped[4]; /* on a row inside the plot */
} legend_box;

static void legend_layout(cairo_t *cr, const chart_panel *p,
                          const view_state *v, const panel_def *d, double right,
                          placed *pl, legend_box *lb)
{
    double f = p->font_px, fl = f * 0.8;
    char title[256];
    snprintf(title, sizeof title, "%s (%s)", d->title, d->unit);
    cairo_save(cr);
    chart_font(cr, f, true);
    chart_rect tb =
        text_box(cr, p->outer.x + f * 0.3, p->outer.y + f * 1.15, title);
    place(v, pl, tb);
    double x0 = tb.x + tb.w + f * 1.2;
    chart_font(cr, fl, false);
    double widths[4], xs[4], ys[4];
    for (int i = 0; i < d->n; i++)
        widths[i] = chart_text_width(cr, line_info(d->lines[i].line)->label);
    double row = fl * 1.3;
    lb->swatch = fl * 2.0;
    lb->gap = fl;
    chart_legend_layout(widths, d->n, lb->swatch, lb->gap, row, right - x0, xs,
                        ys);
    for (int i = 0; i < d->n; i++) {
        double x = x0 + xs[i];
        lb->y[i] = p->outer.y + f * 0.25 + ys[i] + row * 0.5;
        lb->wrapped[i] = ys[i] > 0;
        lb->item[i] = (chart_rect){x - lb->gap * 0.3, lb->y[i] - row * 0.5,
                                   lb->swatch + lb->gap * 0.8 + widths[i], row};
        place(v, pl, lb->item[i]);
    }
    cairo_restore(cr);
}

static void legend_draw(cairo_t *cr, const chart_panel *p, const view_state *v,
                        const panel_def *d, const legend_box *lb)
{
    double f = p->font_px, fl = f * 0.8;
    cairo_save(cr);
    chart_font(cr, fl, false);
    for (int i = 0; i < d->n; i++) {
        const line_def *ld = &d->lines[i];
        bool off = v->hidden & (1u << ld->line);
        chart_rect b = lb->item[i];
        double x = b.x + lb->gap * 0.3, y = lb->y[i];
        if (lb->wrapped[i]) { /* on a backing over the plot */
            cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
            cairo_rectangle(cr, b.x, b.y, b.w, b.h);
            cairo_fill(cr);
        }
        for (int r = 0; r < v->n_runs; r++) {
            chart_style st = line_style(v, ld, i, r);
            double w = st.width * f / 12.0, part = lb->swatch / v->n_runs;
            cairo_set_source_rgba(cr, st.r, st.g, st.b, off ? 0.25 : st.a);
            cairo_set_line_width(cr, w);
            double dd[] = {st.dash == 2 ? w : 5 * w,
                           st.dash == 2 ? 2.5 * w : 3 * w};
            cairo_set_dash(cr, dd, st.dash ? 2 : 0, 0);
            cairo_move_to(cr, x + part * r, y);
            cairo_line_to(cr, x + part * (r + 1), y);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
        }
        ink(cr, off ? 0.6 : 0.15);
        double tx = x + lb->swatch + lb->gap * 0.5;
        text(cr, tx, y + fl * 0.35, line_info(ld->line)->label);
        if (off) { /* struck through */
            cairo_set_line_width(cr, 1.0);
            cairo_move_to(cr, tx, y);
            cairo_line_to(cr, b.x + b.w, y);
            cairo_stroke(cr);
        }
        view_hits_add(v->hits, b, HIT_LEGEND, ld->line, 0);
    }
    cairo_restore(cr);
}

static void series_lines(cairo_t *cr, const drawn_panel *dp,
                         const view_state *v, double t0, double t1)
{
    const panel_def *d = dp->d;
    for (int r = 0; r < v->n_runs; r++) {
        const series *s = session_series(v->runs[r]);
        size_t from, to;
        series_range(s, t0 - s->width_s, t1 + s->width_s, &from, &to);
        for (int i = 0; i < d->n; i++) {
            const line_def *ld = &d->lines[i];
            if (!shown(v, ld, r))
                continue;
            chart_style st = line_style(v, ld, i, r);
            chart_data data = {series_col_ptr(s, COL_t) + from * COL_COUNT,
                               series_col_ptr(s, line_col[ld->line]) +
                                   from * COL_COUNT,
                               to - from, COL_COUNT};
            chart_panel_series(cr, &dp->p, ld->right ? &dp->right : NULL, &data,
                               &st);
        }
    }
}

/* The panel's plot and axes for [t0, t1], its left axis fitted to the
 * lines shown. */
static void panel_frame(cairo_t *cr, const view_layout *l, const view_state *v,
                        int k, double t0, double t1, drawn_panel *dp)
{
    const panel_def *d = panel_of(v, k);
    double f = l->font_px;
    double floor_v =
        k == 2 ? 1.2 * session_current(v->runs[0], CHANGE_TIMEOUT) / 1e6 : 1.0;
    if (k == 1) {
        /* The baseline stays on the axis, with room above it: goodput 0
         * across the view (a storm) fitted the axis to 0-1 and took the
         * baseline, the one thing that says how far it fell, off it. */
        sim_live live;
        summary_live(session_sim(v->runs[0]), &live);
        if (live.has_baseline)
            floor_v = fmax(floor_v, 1.1 * live.baseline_goodput_per_s);
    }
    double top = chart_axis_top(panel_max(d, v, t0, t1, false), floor_v);
    chart_panel *p = &dp->p;
    *p = view_panel_plot(l, k, t0, t1);
    p->title = d->title;
    p->unit = d->unit;
    p->y.hi = top;
    int ymax = (int)(p->plot.h / (f * 2.2));
    chart_ticks_for(0.0, top, ymax < 2 ? 2 : ymax, &p->yt);
    dp->d = d;
    dp->right = p->y;
    chart_panel_frame(cr, p);
    view_hits_add(v->hits, p->plot, HIT_PANEL, k, 0);
}

/* The reference lines: the client timeout (queue and latency), the
 * goodput baseline; their lines first (names = false), under the runs'
 * lines, then their names over them. */
static void references(cairo_t *cr, const drawn_panel *dp, const view_state *v,
                       int k, placed *pl, bool names)
{
    const session *a = v->runs[0];
    chart_style st = chart_ink;
    st.dash = 1;
    double value;
    const char *name;
    if (k == 2) {
        st.width = 1.4;
        st.a = 0.7;
        value = session_current(a, CHANGE_TIMEOUT) / 1e6;
        name = "client timeout";
    } else if (k == 1) {
        sim_live live;
        summary_live(session_sim(a), &live);
        st.a = 0.5;
        if (!live.has_baseline)
            return;
        value = live.baseline_goodput_per_s;
        name = "baseline";
    } else {
        return;
    }
    if (names)
        reference_name(cr, dp, v, pl, value, name, &st);
    else
        reference_line(&dp->p, cr, value, &st);
}

static void panel(cairo_t *cr, const view_layout *l, const view_state *v, int k,
                  double t0, double t1, drawn_panel *dp)
{
    double f = l->font_px;
    panel_frame(cr, l, v, k, t0, t1, dp);
    const panel_def *d = dp->d;
    const chart_panel *p = &dp->p;
    placed pl = {.n = 0, .owner = k};
    double legend_right = p->plot.x + p->plot.w;
    if (d->right_unit) {
        chart_font(cr, f * 0.85, false);
        legend_right = p->outer.x + p->outer.w - f * 1.4 -
                       chart_text_width(cr, d->right_unit);
    }
    legend_box lb;
    legend_layout(cr, p, v, d, legend_right, &pl, &lb);
    if (d->right_unit) {
        /* Counts get an axis of their own; shares go to 100 %. */
        double hi = k == 2 || d == &pipeline_panel
                        ? chart_axis_top(panel_max(d, v, t0, t1, true), 10)
                        : 100.0;
        dp->right = right_axis(cr, p, v, &pl, hi, d->right_unit);
    }
    marks(cr, p, v, &pl);
    references(cr, dp, v, k, &pl, false);
    series_lines(cr, dp, v, t0, t1);
    references(cr, dp, v, k, &pl, true);
    legend_draw(cr, p, v, d, &lb);
    if (k == 4 && panel_max(d, v, 0, INFINITY, false) == 0.0 &&
        panel_max(d, v, 0, INFINITY, true) == 0.0) {
        cairo_save(cr);
        chart_font(cr, f * 0.85, false);
        const char *note = "no breaker, budget or local refusal so far";
        chart_rect r =
            text_box(cr, p->plot.x + f, p->plot.y + p->plot.h * 0.6, note);
        ink(cr, 0.45);
        if (!collides(&pl, r))
            label(cr, v, &pl, r.x, p->plot.y + p->plot.h * 0.6, note);
        cairo_restore(cr);
    }
}

/* ---- Crosshair and tooltip ------------------------------------------------------ */

/* The panel under the pointer, or -1. */
static int hovered(const view_state *v, const drawn_panel *dp)
{
    if (!v->hover)
        return -1;
    for (int k = 0; k < VIEW_PANELS; k++)
        if (chart_panel_hit(&dp[k].p, v->hx, v->hy))
            return k;
    return -1;
}

/* A band over [t0, t1] in every panel: the span a drag will zoom to. */
static void selection(cairo_t *cr, const view_state *v, const drawn_panel *dp)
{
    if (v->select_t0 < 0 || v->select_t1 < 0)
        return;
    for (int k = 0; k < VIEW_PANELS; k++) {
        const chart_panel *p = &dp[k].p;
        double a = chart_scale_map(&p->x, fmin(v->select_t0, v->select_t1));
        double b = chart_scale_map(&p->x, fmax(v->select_t0, v->select_t1));
        a = fmax(a, p->plot.x);
        b = fmin(b, p->plot.x + p->plot.w);
        cairo_set_source_rgba(cr, 0.0, 0.45, 0.70, 0.15);
        cairo_rectangle(cr, a, p->plot.y, fmax(b - a, 1), p->plot.h);
        cairo_fill(cr);
    }
}

/* The crosshair at time t in every panel, with a dot where each line
 * shown crosses it. */
static void crosshair(cairo_t *cr, const view_state *v, const drawn_panel *dp,
                      double t)
{
    for (int k = 0; k < VIEW_PANELS; k++) {
        const chart_panel *p = &dp[k].p;
        double x = round(chart_scale_map(&p->x, t)) + 0.5;
        cairo_set_source_rgba(cr, 0.1, 0.1, 0.1, 0.55);
        cairo_set_line_width(cr, 1.0);
        cairo_move_to(cr, x, p->plot.y);
        cairo_line_to(cr, x, p->plot.y + p->plot.h);
        cairo_stroke(cr);
        for (int r = 0; r < v->n_runs; r++) {
            const series *s = session_series(v->runs[r]);
            long row = series_find(s, t);
            for (int i = 0; row >= 0 && i < dp[k].d->n; i++) {
                const line_def *ld = &dp[k].d->lines[i];
                double y_ = series_at(s, (size_t)row, line_col[ld->line]);
                if (!shown(v, ld, r) || !isfinite(y_))
                    continue;
                double y =
                    chart_scale_map(ld->right ? &dp[k].right : &p->y, y_);
                if (y < p->plot.y || y > p->plot.y + p->plot.h)
                    continue;
                chart_style st = line_style(v, ld, i, r);
                colour(cr, &st);
                cairo_arc(cr, x, y, p->font_px * 0.22, 0, 6.283185307179586);
                cairo_fill(cr);
            }
        }
    }
}

#define TIP_ROWS 6

/* "in force: latency +300 ms, 17 workers": the faults and changes that
 * run at time t (every one, where the panel may have had no room to name
 * them); "" when none. */
static void in_force(const session *ss, double t, char *buf, size_t len)
{
    uint32_t n;
    const fault_cfg *f = sim_faults(session_sim(ss), &n);
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < n && used < len; i++) {
        double t0 = (double)f[i].start_ns / 1e9;
        if (t < t0 || t >= t0 + (double)f[i].duration_ns / 1e9)
            continue;
        char what[96];
        int k =
            snprintf(buf + used, len - used, "%s%s", used ? ", " : "in force: ",
                     view_fault_text(&f[i], -1, what, sizeof what));
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

/* The tooltip of the panel under the pointer: the bucket's span, then a
 * row per line shown, a column per run shown (a run whose lines are
 * switched off has none: its values are hidden as its lines are), each
 * value in its unit; kept inside the panel. */
static void tooltip(cairo_t *cr, const view_state *v, const drawn_panel *dp,
                    int k, double t)
{
    const panel_def *d = dp[k].d;
    const chart_panel *p = &dp[k].p;
    double f = p->font_px * 0.8, rowh = f * 1.3;
    char cells[TIP_ROWS][3][64], head[96];
    int n = 0, runs[VIEW_MAX_RUNS], nr = 0;
    for (int r = 0; r < v->n_runs && nr < 2; r++)
        if (!v->run_hidden[r])
            runs[nr++] = r;
    const series *s0 = session_series(v->runs[0]);
    long row0 = series_find(s0, t);
    if (row0 < 0)
        return;
    double end = series_at(s0, (size_t)row0, COL_t);
    snprintf(head, sizeof head, "%.0f to %.0f s", end - s0->width_s, end);
    for (int i = 0; i < d->n && n < TIP_ROWS - 1; i++) {
        const line_def *ld = &d->lines[i];
        if (v->hidden & (1u << ld->line))
            continue;
        snprintf(cells[n][0], sizeof cells[n][0], "%s",
                 line_info(ld->line)->label);
        for (int c = 0; c < nr; c++) {
            const series *s = session_series(v->runs[runs[c]]);
            long row = series_find(s, t);
            double x =
                row < 0 ? NAN : series_at(s, (size_t)row, line_col[ld->line]);
            view_value_text(ld->line, x, cells[n][1 + c], sizeof cells[0][0]);
        }
        n++;
    }
    char force[512];
    in_force(v->runs[0], t, force, sizeof force);
    cairo_save(cr);
    chart_font(cr, f, false);
    double cw[3] = {chart_text_width(cr, head), 0, 0};
    for (int i = 0; i < n; i++)
        for (int c = 0; c < 1 + nr; c++)
            cw[c] = fmax(cw[c],
                         chart_text_width(cr, cells[i][c]) + (c ? f * 1.2 : 0));
    double bw = cw[0] + cw[1] + cw[2] + f, bh = (n + 1) * rowh + f * 0.5;
    if (force[0]) { /* as wide as the table, or more up to half the panel */
        fit_text(cr, force, fmax(bw - f, p->outer.w * 0.5));
        bw = fmax(bw, chart_text_width(cr, force) + f);
        bh += rowh;
    }
    double bx = v->hx + f, by = v->hy - bh / 2;
    if (bx + bw > p->outer.x + p->outer.w)
        bx = v->hx - bw - f;
    bx = fmax(bx, p->outer.x);
    by = fmin(fmax(by, p->outer.y), p->outer.y + p->outer.h - bh);
    view_hits_add(v->hits, (chart_rect){bx, by, bw, bh}, HIT_LABEL, k,
                  VIEW_LABEL_TOOLTIP);
    cairo_set_source_rgba(cr, 1, 1, 1, 0.94);
    cairo_rectangle(cr, bx, by, bw, bh);
    cairo_fill_preserve(cr);
    cairo_set_source_rgba(cr, 0.2, 0.2, 0.2, 0.6);
    cairo_set_line_width(cr, 1.0);
    cairo_stroke(cr);
    double y = by + f * 0.25 + rowh * 0.8;
    ink(cr, 0.1);
    text(cr, bx + f * 0.5, y, head);
    for (int c = 0; c < nr && v->n_runs > 1; c++) {
        colour(cr, &view_family[runs[c]][0]);
        chart_text(cr, bx + f * 0.5 + cw[0] + cw[1] + (c ? cw[2] : 0), y, 1.0,
                   runs[c] ? "B" : "A");
    }
    for (int i = 0; i < n; i++) {
        y += rowh;
        ink(cr, 0.25);
        text(cr, bx + f * 0.5, y, cells[i][0]);
        for (int c = 0; c < nr; c++) {
            ink(cr, 0.05);
            chart_text(cr, bx + f * 0.5 + cw[0] + cw[1] + (c ? cw[2] : 0), y,
                       1.0, cells[i][1 + c]);
        }
    }
    if (force[0]) {
        cairo_set_source_rgb(cr, 0.55, 0.23, 0.0);
        text(cr, bx + f * 0.5, y + rowh, force);
    }
    cairo_restore(cr);
}

/* ---- Clients and server -------------------------------------------------------- */

void view_state_counts(const uint8_t *states, uint32_t from, uint32_t to,
                       int n_states, uint32_t *count)
{
    chart_count_states(states, from, to, n_states, count);
}

/* One byte per process: the most common mode of its clients (ties to the
 * higher mode), as the field groups cells. */
static const uint8_t *per_process(const sim *s, uint8_t *out)
{
    uint32_t n = sim_clients(s), p = sim_processes(s);
    const uint8_t *modes = sim_client_modes(s);
    uint32_t count[CLIENT_MODE_COUNT];
    uint32_t c = 0;
    for (uint32_t i = 0; i < p; i++) {
        /* The clients of process i: c x p / n == i. */
        uint32_t end = (uint32_t)(((uint64_t)(i + 1) * n + p - 1) / p);
        if (end > n)
            end = n;
        view_state_counts(modes, c, end, CLIENT_MODE_COUNT, count);
        c = end;
        uint8_t best = 0;
        for (uint8_t m = 1; m < CLIENT_MODE_COUNT; m++)
            if (count[m] >= count[best])
                best = m;
        out[i] = best;
    }
    return out;
}

/* 0.4 %, not 0 %, for 4 000 clients of a million; and "< 0.1 %", not
 * "0.0 %", for 150 of them: the field shows their pixels, and a legend
 * saying 0 denied them. */
const char *view_share_text(uint32_t n, uint32_t of, char *buf, size_t len)
{
    double pct = of ? 100.0 * n / of : 0.0;
    if (n > 0 && pct < 0.05)
        snprintf(buf, len, "< 0.1 %%");
    else
        snprintf(buf, len, "%.*f %%", pct > 0 && pct < 9.95 ? 1 : 0, pct);
    return buf;
}

/* The legend of modes under the field from y, each with its share of
 * the items; returns its rows, and draws it only when `draw` (so the
 * field can make room for it first). */
static int mode_legend(cairo_t *cr, chart_rect area, double y, double f,
                       const uint32_t *count, uint32_t items, bool draw)
{
    chart_font(cr, f * 0.8, false);
    double x = area.x;
    int rows = 1;
    for (int m = 0; m < CLIENT_MODE_COUNT; m++) {
        char item[96], share[32];
        snprintf(item, sizeof item, "%s %s", view_mode_names[m],
                 view_share_text(count[m], items, share, sizeof share));
        double w = f * 0.8 + chart_text_width(cr, item) + f;
        if (x > area.x && x + w > area.x + area.w) {
            x = area.x;
            y += f * 1.15;
            rows++;
        }
        if (draw) {
            fill_rect(cr, x, y - f * 0.65, f * 0.65, f * 0.65,
                      &view_mode_colours[m]);
            ink(cr, 0.15);
            text(cr, x + f * 0.9, y, item);
        }
        x += w;
    }
    return rows;
}

static void field(cairo_t *cr, const view_layout *l, const view_state *v, int r)
{
    const session *ss = v->runs[r];
    const sim *s = session_sim(ss);
    double f = l->font_px;
    chart_rect area = l->field[r];
    bool by_process =
        v->by_process && v->scratch[r] && sim_processes(s) < sim_clients(s);
    uint32_t items = by_process ? sim_processes(s) : sim_clients(s);
    const uint8_t *states =
        by_process ? per_process(s, v->scratch[r]) : sim_client_modes(s);
    uint32_t count[CLIENT_MODE_COUNT];
    view_state_counts(states, 0, items, CLIENT_MODE_COUNT, count);
    cairo_save(cr);
    /* The layout leaves two rows for the legend; more come off the
     * field. */
    int rows = mode_legend(cr, area, 0, f, count, items, false);
    if (rows > 2)
        area.h -= (rows - 2) * f * 1.15 + f * 0.4;
    chart_field fl;
    chart_field_layout(&fl, area, items, 3.0);
    if (fl.per_cell > 1) /* cells big enough to show their shares */
        chart_field_layout(&fl, area, items, 8.0);
    char title[256], num[32];
    snprintf(title, sizeof title, "%s %s", grouped(items, num, sizeof num),
             by_process ? "processes" : "clients");
    if (fl.per_cell > 1) {
        size_t len = strlen(title);
        snprintf(title + len, sizeof title - len,
                 ", %s to a cell: its colours are their shares",
                 grouped(fl.per_cell, num, sizeof num));
    }
    double x = area.x;
    if (v->n_runs > 1) {
        chip(cr, r, x, area.y - f * 0.5, f);
        x += f * 1.6;
    }
    chart_font(cr, f, true);
    ink(cr, 0.1);
    fit_text(cr, title, area.x + area.w - x);
    text(cr, x, area.y - f * 0.5, title);
    if (fl.per_cell > 1)
        chart_field_draw_shares(cr, &fl, states, view_mode_colours,
                                CLIENT_MODE_COUNT);
    else
        chart_field_draw(cr, &fl, states, view_mode_colours, CLIENT_MODE_COUNT);
    mode_legend(cr, area, area.y + fl.rows * fl.cell + f * 1.1, f, count, items,
                true);
    cairo_restore(cr);
}

/* A horizontal gauge: `part` of `used` of `cap` filled, labelled. */
static void gauge(cairo_t *cr, double x, double y, double w, double h,
                  double used, double part, double cap, const chart_style *c,
                  const char *label_, double f)
{
    static const chart_style gone = {RGB(70, 70, 70), 1.0, 1.0, 0};
    cairo_set_source_rgb(cr, 0.93, 0.93, 0.93);
    cairo_rectangle(cr, x, y, w, h);
    cairo_fill(cr);
    double u = cap > 0 ? fmin(used / cap, 1.0) : 0.0;
    double q = cap > 0 ? fmin(part / cap, u) : 0.0;
    fill_rect(cr, x, y, w * u, h, c);
    fill_rect(cr, x + w * (u - q), y, w * q, h, &gone);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 1.0);
    cairo_rectangle(cr, x + 0.5, y + 0.5, w - 1, h - 1);
    cairo_stroke(cr);
    ink(cr, 0.1);
    text(cr, x, y - f * 0.3, label_);
}

/* A service chain's tiers below the top, now, in one line under the
 * top's gauges: "below: api 16 of 16 busy, queue 40 | db 12 of 64 busy,
 * queue 0" (the top is the server above). */
static void tiers_line(cairo_t *cr, const sim *s, double x, double y)
{
    uint32_t n = sim_tiers(s);
    if (n < 2)
        return;
    char line[512] = "below:", b1[32], b2[32];
    size_t used = strlen(line);
    for (uint32_t i = 1; i < n && used < sizeof line; i++) {
        sim_tier_info t;
        sim_tier(s, i, &t);
        int k = snprintf(
            line + used, sizeof line - used, "%s %s %u of %s busy, queue %s",
            i > 1 ? " |" : "", t.name, t.m->busy,
            t.workers == UINT32_MAX ? "unlimited"
                                    : human_count(t.workers, b1, sizeof b1),
            human_count(t.m->queue, b2, sizeof b2));
        if (k < 0)
            break;
        used += (size_t)k;
    }
    ink(cr, 0.1);
    text(cr, x, y, line);
}

static void server_block(cairo_t *cr, const view_layout *l, const view_state *v,
                         int r)
{
    const sim *s = session_sim(v->runs[r]);
    sim_server_now sv;
    sim_server_state(s, &sv);
    chart_rect a = l->server[r];
    double f = l->font_px;
    char text_[256], b1[32], b2[32];
    const chart_style *fam = view_family[v->n_runs > 1 ? r : 0];
    cairo_save(cr);
    chart_font(cr, f * 0.85, false);
    bool unlimited = sv.workers == UINT32_MAX;
    snprintf(text_, sizeof text_,
             "server%s: %u busy of %s workers, %u for "
             "clients that gave up",
             sv.down ? " (DOWN)" : "", sv.busy,
             unlimited ? "unlimited" : human_count(sv.workers, b1, sizeof b1),
             sv.abandoned_busy);
    gauge(cr, a.x, a.y + f * 1.2, a.w, f * 0.9, sv.busy, sv.abandoned_busy,
          unlimited ? fmax(sv.busy, 1) : sv.workers, &fam[0], text_, f * 0.85);
    /* An unlimited queue is drawn against four times the workers, or
     * full when it is longer than that. */
    double cap = sv.queue_limit == UINT32_MAX
                     ? fmax(fmax(sv.queued, 4.0 * (double)sv.workers), 1.0)
                     : (double)sv.queue_limit;
    char b3[32];
    snprintf(text_, sizeof text_,
             "queue: %s%s%s, %s%s for clients that "
             "gave up",
             grouped(sv.queued, b1, sizeof b1),
             sv.queue_limit == UINT32_MAX ? "" : " of ",
             sv.queue_limit == UINT32_MAX
                 ? ""
                 : grouped(sv.queue_limit, b2, sizeof b2),
             sv.abandoned_estimated ? "about " : "",
             grouped(sv.abandoned_queued, b3, sizeof b3));
    gauge(cr, a.x, a.y + f * 3.5, a.w, f * 0.9, sv.queued, sv.abandoned_queued,
          cap, &fam[1], text_, f * 0.85);
    tiers_line(cr, s, a.x, a.y + f * 5.5);
    cairo_restore(cr);
}

/* ---- Timeline, status, help ---------------------------------------------------- */

static void timeline(cairo_t *cr, const view_layout *l, const view_state *v)
{
    const session *a = v->runs[0];
    double dur = (double)session_config(a)->duration_ns / 1e9;
    double now = (double)session_now(a) / 1e9;
    chart_rect r = l->timeline;
    double f = l->font_px, y = r.y + f * 0.9, h = f * 0.8;
    cairo_save(cr);
    view_hits_add(v->hits, r, HIT_TIMELINE, 0, 0);
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_rectangle(cr, r.x, y, r.w, h);
    cairo_fill(cr);
    fill_rect(cr, r.x, y, r.w * fmin(now / dur, 1.0), h, &chart_palette[1]);
    /* What the panels show, bracketed under the bar. */
    double t0, t1;
    view_window(v, &t0, &t1);
    double w0 = r.x + r.w * fmin(fmax(t0 / dur, 0), 1.0);
    double w1 = r.x + r.w * fmin(fmax(t1 / dur, 0), 1.0);
    cairo_set_source_rgba(cr, 0.1, 0.1, 0.1, 0.5);
    cairo_rectangle(cr, w0, y + h + 1, fmax(w1 - w0, 2), f * 0.2);
    cairo_fill(cr);
    uint32_t n;
    const fault_cfg *fl = sim_faults(session_sim(a), &n);
    uint32_t configured = session_config(a)->n_faults;
    for (uint32_t i = 0; i < n; i++) {
        double s0 = (double)fl[i].start_ns / 1e9;
        double s1 = fmin(s0 + (double)fl[i].duration_ns / 1e9, now);
        if (s0 > now || fl[i].duration_ns == 0) /* ended before it began */
            continue;
        double x0 = r.x + r.w * fmin(s0 / dur, 1.0);
        double x1 = r.x + r.w * fmin(s1 / dur, 1.0);
        if (i >= configured && is_change(&fl[i])) { /* a thin span */
            cairo_set_source_rgba(cr, 0.20, 0.25, 0.45, 0.55);
            cairo_rectangle(cr, x0, y, fmax(x1 - x0, 1.5), h * 0.3);
        } else {
            cairo_set_source_rgba(cr, 0.84, 0.37, 0.0, 0.75);
            cairo_rectangle(cr, x0, y + h * 0.5, fmax(x1 - x0, 2.0), h * 0.5);
        }
        cairo_fill(cr);
    }
    double knob = r.x + r.w * fmin(now / dur, 1.0);
    ink(cr, 0.1);
    cairo_rectangle(cr, knob - 1.5, y - f * 0.25, 3, h + f * 0.5);
    cairo_fill(cr);
    if (v->drag_t >= 0) {
        double x = r.x + r.w * fmin(v->drag_t / dur, 1.0);
        cairo_set_source_rgba(cr, 0.0, 0.45, 0.7, 0.8);
        cairo_rectangle(cr, x - 1.5, y - f * 0.25, 3, h + f * 0.5);
        cairo_fill(cr);
    }
    chart_font(cr, f * 0.8, false);
    char lbl[160];
    ink(cr, 0.3);
    text(cr, r.x, r.y + f * 0.6, "0 s");
    snprintf(lbl, sizeof lbl, "%.0f s   (drag to go back in time)", dur);
    double w = chart_text_width(cr, lbl);
    text(cr, r.x + r.w - w, r.y + f * 0.6, lbl);
    if (v->end_s >= 0) {
        snprintf(lbl, sizeof lbl,
                 "panels show %.0f to %.0f s "
                 "(double-click a panel or press f to follow the run)",
                 t0, t1);
        chart_text(cr, r.x + r.w / 2, r.y + f * 0.6, 0.5, lbl);
    }
    cairo_restore(cr);
}

static const char default_hints[] =
    "space pause   +/- speed   i inject   e end it   arrows rate/workers   "
    "t/T timeout   v A/B   p policy   f follow   w save scenario   "
    "s screenshot   h help   q quit";

/* The last message on its own line, the key hints always on theirs. */
static void status(cairo_t *cr, const view_layout *l, const view_state *v)
{
    double f = l->font_px;
    chart_rect s = l->status;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 0.96, 0.96, 0.97);
    cairo_rectangle(cr, s.x, s.y, s.w, s.h);
    cairo_fill(cr);
    char line[1024];
    if (v->message) {
        chart_font(cr, f * 0.9, true);
        ink(cr, 0.1);
        snprintf(line, sizeof line, "%s", v->message);
        fit_text(cr, line, s.w - f * 1.2);
        text(cr, f * 0.6, s.y + f * 1.1, line);
    }
    chart_font(cr, f * 0.85, false);
    ink(cr, 0.3);
    snprintf(line, sizeof line, "%s",
             v->prompt  ? v->prompt
             : v->hints ? v->hints
                        : default_hints);
    fit_text(cr, line, s.w - f * 1.2);
    text(cr, f * 0.6, s.y + f * 2.45, line);
    cairo_restore(cr);
}

static const char *const help_lines[] = {
    "keys",
    "space          pause / resume",
    "+  -           faster / slower (0.1x to 1000x real time)",
    "0              as fast as it goes",
    ".              one bucket forward (paused)",
    "i then 1-7     inject now: 1 outage (black hole) 2 outage (refused)",
    "               3 latency +500 ms 4 errors 503 (50%) 5 half the workers",
    "               6 load x2 7 lost acks (30%)",
    "[  ]           shorter / longer injections (5 s to 5 min)",
    "e              end the last injected fault now",
    "up / down      arrival rate +10% / -10%",
    "right / left   one worker more / fewer",
    "t / T          client timeout -100 ms / +100 ms",
    "v              A/B: run a second policy on the same random numbers",
    "p              next policy for A (replayed to now, same storm)",
    "g              the field by client or by process",
    "f              panels follow the run again (after a zoom)",
    "r              restart",
    "w              save as a scenario (with [expect]) to run in CI",
    "s  x           save a screenshot (PNG); export the panels' series (CSV)",
    "h or ?         this help        q or Esc  quit",
    "",
    "mouse",
    "controls       under the timeline: the same as the keys, and sliders",
    "policy name    (header) pick A's or B's policy and edit its parameters",
    "A  B chips     (header) show or hide a run's lines",
    "legend item    show or hide that line",
    "wheel          on a panel: zoom time around the pointer",
    "drag a panel   zoom to that span; double-click: follow the run",
    "drag timeline  go back in time (replays exactly)",
};

static void help(cairo_t *cr, double w, double h, double f)
{
    size_t n = sizeof help_lines / sizeof *help_lines;
    cairo_save(cr);
    cairo_select_font_face(cr, "monospace", CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_NORMAL);
    double fs = f * 0.9, line = fs * 1.35;
    cairo_set_font_size(cr, fs);
    /* The box is as wide as its longest line and as tall as its lines,
     * and the text shrinks when that is more than the window. */
    double tw = 0;
    for (size_t i = 0; i < n; i++)
        tw = fmax(tw, chart_text_width(cr, help_lines[i]));
    double scale = fmin(1.0, fmin((w - 2 * f) / (tw + 2 * f),
                                  (h - 2 * f) / (line * n + 2 * f)));
    fs *= scale;
    line *= scale;
    tw *= scale;
    cairo_set_font_size(cr, fs);
    double bw = tw + 2 * f, bh = line * (double)n + 1.6 * f;
    double x = (w - bw) / 2, y = (h - bh) / 2;
    cairo_set_source_rgba(cr, 0.1, 0.1, 0.12, 0.92);
    cairo_rectangle(cr, x, y, bw, bh);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    for (size_t i = 0; i < n; i++)
        text(cr, x + f, y + f * 0.8 + line * ((double)i + 0.8), help_lines[i]);
    cairo_restore(cr);
}

/* ---- The whole view ----------------------------------------------------------- */

/* The panels and what is drawn over them (a zoom being dragged, the
 * crosshair and the tooltip). */
static void all_panels(cairo_t *cr, const view_layout *l, const view_state *v,
                       double t0, double t1, drawn_panel *dp)
{
    for (int k = 0; k < VIEW_PANELS; k++)
        panel(cr, l, v, k, t0, t1, &dp[k]);
}

static void overlays(cairo_t *cr, const view_state *v, const drawn_panel *dp)
{
    selection(cr, v, dp);
    int k = hovered(v, dp);
    if (k >= 0) {
        double t = chart_scale_unmap(&dp[k].p.x, v->hx);
        crosshair(cr, v, dp, t);
        tooltip(cr, v, dp, k, t);
    }
}

static void clients(cairo_t *cr, const view_layout *l, const view_state *v)
{
    for (int r = 0; r < v->n_runs; r++) {
        field(cr, l, v, r);
        server_block(cr, l, v, r);
    }
}

void view_draw(cairo_t *cr, double w, double h, const view_state *v)
{
    view_layout l;
    double f = view_font_px_scaled(w, h, v->scale);
    view_layout_compute(w, h, f, v->n_runs, &l);
    if (v->hits)
        view_hits_clear(v->hits);
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    double t0, t1;
    view_window(v, &t0, &t1);
    header(cr, &l, v);
    drawn_panel dp[VIEW_PANELS];
    all_panels(cr, &l, v, t0, t1, dp);
    overlays(cr, v, dp);
    clients(cr, &l, v);
    timeline(cr, &l, v);
    status(cr, &l, v);
    if (v->help)
        help(cr, w, h, f);
    cairo_restore(cr);
}

void view_help(cairo_t *cr, double w, double h)
{
    help(cr, w, h, view_font_px(w, h));
}

/* ---- Drawing what changed --------------------------------------------------------
 *
 * Each region of the view is drawn from a few numbers (its key); a frame
 * compares them with the ones it was last drawn from and redraws the
 * regions whose key differs.  The panels are drawn into a picture of
 * their own, so the crosshair and tooltip over them are redrawn by
 * copying it back, not by drawing the panels again. */

enum { R_HEADER, R_PANELS, R_CLIENTS, R_TIMELINE, R_STATUS };

/* FNV-1a over bytes: the keys of what a region shows. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

#define MIX(h, x) fnv((h), &(x), sizeof(x))

static uint64_t runs_key(uint64_t h, const view_state *v, bool time)
{
    h = MIX(h, v->n_runs);
    for (int r = 0; r < v->n_runs; r++) {
        uint64_t ver = session_version(v->runs[r]);
        size_t rows = session_series(v->runs[r])->n;
        int64_t now = session_now(v->runs[r]);
        h = MIX(h, ver);
        h = MIX(h, rows);
        h = MIX(h, v->run_hidden[r]);
        if (time)
            h = MIX(h, now);
    }
    return h;
}

static uint64_t faults_key(uint64_t h, const session *ss)
{
    uint32_t n;
    const fault_cfg *f = sim_faults(session_sim(ss), &n);
    h = MIX(h, n);
    for (uint32_t i = 0; i < n; i++) {
        h = MIX(h, f[i].start_ns);
        h = MIX(h, f[i].duration_ns);
    }
    return h;
}

static uint64_t text_key(uint64_t h, const char *s)
{
    return s ? fnv(h, s, strlen(s) + 1) : MIX(h, s);
}

/* What each region is drawn from. */
static void region_keys(const view_state *v, double t0, double t1,
                        uint64_t *key, uint64_t *overlay)
{
    const session *a = v->runs[0];
    uint64_t base = 14695981039346656037ull;
    /* Header: the runs' time, the speed, the events. */
    uint64_t h = runs_key(base, v, true);
    h = MIX(h, v->speed);
    h = MIX(h, v->achieved);
    h = MIX(h, v->events_per_s);
    h = MIX(h, v->events);
    h = MIX(h, v->paused);
    key[R_HEADER] = h;
    /* Panels: the rows, the window, the lines shown, the faults, the
     * reference lines (not the time: they show closed buckets). */
    h = runs_key(base, v, false);
    h = MIX(h, t0);
    h = MIX(h, t1);
    h = MIX(h, v->hidden);
    h = faults_key(h, a);
    double timeout = session_current(a, CHANGE_TIMEOUT);
    h = MIX(h, timeout);
    sim_live live;
    summary_live(session_sim(a), &live);
    h = MIX(h, live.has_baseline);
    h = MIX(h, live.baseline_goodput_per_s);
    key[R_PANELS] = h;
    h = MIX(base, v->hover);
    h = MIX(h, v->hx);
    h = MIX(h, v->hy);
    h = MIX(h, v->select_t0);
    h = MIX(h, v->select_t1);
    *overlay = h;
    /* Clients and servers: the runs' time. */
    h = runs_key(base, v, true);
    key[R_CLIENTS] = MIX(h, v->by_process);
    /* Timeline: the time, the faults, the window, a drag. */
    h = runs_key(base, v, true);
    h = faults_key(h, a);
    h = MIX(h, t0);
    h = MIX(h, t1);
    h = MIX(h, v->end_s);
    key[R_TIMELINE] = MIX(h, v->drag_t);
    /* Status: the message, the prompt or the hints. */
    h = text_key(base, v->message);
    h = text_key(h, v->prompt);
    key[R_STATUS] = text_key(h, v->hints);
}

struct view_cache {
    cairo_surface_t *panels; /* the panels as last drawn, no overlays */
    double w, h;             /* the size it was all drawn at */
    uint64_t key[VIEW_REGIONS], overlay;
    drawn_panel dp[VIEW_PANELS];
    view_hits hits[VIEW_REGIONS];
};

int view_cache_create(view_cache **out, sb_err *e)
{
    *out = calloc(1, sizeof **out);
    return *out ? 0 : err_set(e, "out of memory");
}

void view_cache_destroy(view_cache *c)
{
    if (c == NULL)
        return;
    if (c->panels)
        cairo_surface_destroy(c->panels);
    free(c);
}

/* The rectangles of the regions. */
static void region_rects(const view_layout *l, double w, chart_rect *r)
{
    double top = l->header.h;
    double bottom = l->panels[VIEW_PANELS - 1].y + l->panels[VIEW_PANELS - 1].h;
    double left = l->panels[0].w;
    r[R_HEADER] = l->header;
    r[R_PANELS] = (chart_rect){0, top, left, bottom - top};
    r[R_CLIENTS] = (chart_rect){left, top, w - left, bottom - top};
    r[R_TIMELINE] = (chart_rect){0, bottom, w, l->controls.y - bottom};
    r[R_STATUS] = l->status;
}

/* The panels, drawn anew into the cache's picture. */
static int redraw_panels(view_cache *c, const view_layout *l,
                         const view_state *v, double w, double h, double t0,
                         double t1)
{
    if (c->panels == NULL || c->w != w || c->h != h) {
        if (c->panels)
            cairo_surface_destroy(c->panels);
        c->panels =
            cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)w, (int)h);
        if (cairo_surface_status(c->panels) != CAIRO_STATUS_SUCCESS)
            return -1;
    }
    cairo_t *pc = cairo_create(c->panels);
    cairo_set_source_rgb(pc, 1, 1, 1);
    cairo_paint(pc);
    all_panels(pc, l, v, t0, t1, c->dp);
    cairo_destroy(pc);
    cairo_surface_flush(c->panels);
    return 0;
}

/* Draw region k of lv (whose hits are the region's own). */
static void draw_region(cairo_t *cr, int k, chart_rect r, const view_layout *l,
                        const view_state *lv)
{
    cairo_save(cr);
    cairo_rectangle(cr, r.x, r.y, r.w, r.h);
    cairo_clip(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    if (k == R_HEADER)
        header(cr, l, lv);
    else if (k == R_CLIENTS)
        clients(cr, l, lv);
    else if (k == R_TIMELINE)
        timeline(cr, l, lv);
    else if (k == R_STATUS)
        status(cr, l, lv);
    cairo_restore(cr);
}

static int draw_all(cairo_t *cr, double w, double h, const view_state *v,
                    chart_rect *changed)
{
    view_draw(cr, w, h, v);
    changed[0] = (chart_rect){0, 0, w, h};
    return 1;
}

int view_draw_changed(cairo_t *cr, double w, double h, const view_state *v,
                      chart_rect *changed)
{
    view_cache *c = v->cache;
    if (c == NULL || v->help)
        return draw_all(cr, w, h, v, changed);
    view_layout l;
    view_layout_compute(w, h, view_font_px_scaled(w, h, v->scale), v->n_runs,
                        &l);
    double t0, t1;
    view_window(v, &t0, &t1);
    uint64_t key[VIEW_REGIONS], overlay;
    region_keys(v, t0, t1, key, &overlay);
    bool all = v->fresh || c->w != w || c->h != h;
    chart_rect r[VIEW_REGIONS];
    region_rects(&l, w, r);
    if (all) {
        cairo_save(cr);
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_paint(cr);
        cairo_restore(cr);
    }
    int n = 0;
    view_state lv = *v;
    for (int k = 0; k < VIEW_REGIONS; k++) {
        bool again = all || key[k] != c->key[k];
        bool over = k == R_PANELS && (again || overlay != c->overlay);
        if (!again && !over)
            continue;
        c->hits[k].labels = v->hits && v->hits->labels;
        lv.hits = &c->hits[k];
        if (again)
            view_hits_clear(lv.hits);
        if (k == R_PANELS) {
            if (again && redraw_panels(c, &l, &lv, w, h, t0, t1) != 0)
                return draw_all(cr, w, h, v, changed);
            cairo_save(cr);
            cairo_rectangle(cr, r[k].x, r[k].y, r[k].w, r[k].h);
            cairo_clip(cr);
            cairo_set_source_surface(cr, c->panels, 0, 0);
            cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
            cairo_paint(cr);
            cairo_restore(cr);
            overlays(cr, v, c->dp);
        } else {
            draw_region(cr, k, r[k], &l, &lv);
        }
        c->key[k] = key[k];
        changed[n++] = r[k];
    }
    c->overlay = overlay;
    c->w = w;
    c->h = h;
    if (v->hits) { /* the view's hits: every region's, in drawing order */
        view_hits_clear(v->hits);
        for (int k = 0; k < VIEW_REGIONS; k++)
            for (int i = 0; i < c->hits[k].n; i++) {
                const view_hit *t = &c->hits[k].hit[i];
                view_hits_add(v->hits, t->r, t->kind, t->a, t->b);
            }
    }
    return n;
}
