/*
 * view.c -- drawing the GUI's picture (view.h).
 */
#include "view.h"

#include <math.h>
#include <stdio.h>
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

/* ---- Layout ---------------------------------------------------------------- */

double view_font_px(double w, double h)
{
    return fmax(10.0, fmin(w / 110.0, h / 60.0));
}

void view_layout_compute(double w, double h, double f, int n_runs,
                         view_layout *l)
{
    memset(l, 0, sizeof *l);
    l->font_px = f;
    double header_h = f * (2.4 + 1.35 * n_runs);
    double status_h = f * 1.7, timeline_h = f * 2.6;
    l->header = (chart_rect){0, 0, w, header_h};
    l->status = (chart_rect){0, h - status_h, w, status_h};
    l->timeline = (chart_rect){f, h - status_h - timeline_h, w - 2 * f,
                               timeline_h};
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
        l->field[r] = (chart_rect){rx, y + f * 1.7, rw,
                                   block - server_h - f * 4.6};
        l->server[r] = (chart_rect){rx, y + block - server_h - f * 0.6, rw,
                                    server_h};
    }
}

double view_timeline_time(const view_layout *l, double duration_s, double x)
{
    double u = (x - l->timeline.x) / l->timeline.w;
    return fmin(fmax(u, 0.0), 1.0) * duration_s;
}

bool view_on_timeline(const view_layout *l, double x, double y)
{
    const chart_rect *r = &l->timeline;
    return x >= r->x && x <= r->x + r->w && y >= r->y && y <= r->y + r->h;
}

/* ---- Small drawing helpers -------------------------------------------------- */

static void text(cairo_t *cr, double x, double y, const char *s)
{
    cairo_move_to(cr, x, y);
    cairo_show_text(cr, s);
}

static void ink(cairo_t *cr, double grey)
{
    cairo_set_source_rgb(cr, grey, grey, grey);
}

static void fill_rect(cairo_t *cr, double x, double y, double w, double h,
                      const chart_style *c)
{
    cairo_set_source_rgba(cr, c->r, c->g, c->b, c->a);
    cairo_rectangle(cr, x, y, w, h);
    cairo_fill(cr);
}

static const char *human_count(double v, char *buf, size_t len)
{
    return chart_format(v, 0, buf, len);
}

/* ---- Header ------------------------------------------------------------------ */

static void header_run(cairo_t *cr, const view_layout *l, const view_state *v,
                       int r, double y)
{
    const session *ss = v->runs[r];
    const sim *s = session_sim(ss);
    double f = l->font_px;
    char pol[512], line[1024], a[32], b[32];
    sim_live live;
    summary_live(s, &live);
    session_policy_text(ss, pol, sizeof pol);
    chart_font(cr, f, true);
    ink(cr, 0.1);
    char tag[8];
    snprintf(tag, sizeof tag, "%c", 'A' + r);
    text(cr, f * 0.6, y, v->n_runs > 1 ? tag : "");
    chart_font(cr, f, true);
    int n = snprintf(line, sizeof line, "amplification %.2f   duplicates %s"
                     "   quarantined %s",
                     live.amplification,
                     human_count((double)live.duplicates, a, sizeof a),
                     human_count((double)live.quarantined, b, sizeof b));
    if (live.pipeline && n > 0 && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n,
                      "   jobs %llu done, %llu runs failed   alerts %llu "
                      "warning, %llu critical",
                      (unsigned long long)live.jobs_completed,
                      (unsigned long long)live.job_runs_failed,
                      (unsigned long long)live.alerts_warning,
                      (unsigned long long)live.alerts_critical);
    if (live.recovered && n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n,
                 "   recovered %.0f s after the fault",
                 live.recovery_time_s);
    text(cr, f * 2.0, y, line);
    double x = f * 3.0 + chart_text_width(cr, line);
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
    /* The policy and its parameters in what room is left. */
    chart_font(cr, f * 0.9, false);
    ink(cr, 0.3);
    double room = l->header.w - warn_w - x - f;
    size_t len = strlen(pol);
    while (len > 4 && chart_text_width(cr, pol) > room) {
        len -= 2;
        pol[len] = '\0';
        memcpy(pol + len - 3, "...", 3);
    }
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

static void header(cairo_t *cr, const view_layout *l, const view_state *v)
{
    double f = l->font_px;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 0.96, 0.96, 0.97);
    cairo_rectangle(cr, 0, 0, l->header.w, l->header.h);
    cairo_fill(cr);
    const session *a = v->runs[0];
    const sim_config *c = session_config(a);
    double now = (double)session_now(a) / 1e9;
    char line[512], speed[96];
    header_speed(v, speed, sizeof speed);
    char events[64];
    if (v->events_per_s >= 0)
        snprintf(events, sizeof events, "%.2f M events/s",
                 v->events_per_s / 1e6);
    else
        snprintf(events, sizeof events, "%.2f M events", v->events / 1e6);
    snprintf(line, sizeof line, "%s     t = %.1f s of %.0f s     %s     "
             "%s%s%s",
             v->scenario, now, (double)c->duration_ns / 1e9, speed, events,
             v->paused ? "     PAUSED" : "",
             session_done(a) ? "     END OF RUN" : "");
    chart_font(cr, f * 1.15, true);
    ink(cr, 0.1);
    text(cr, f * 0.6, f * 1.5, line);
    for (int r = 0; r < v->n_runs; r++)
        header_run(cr, l, v, r, f * (2.9 + 1.35 * r));
    cairo_restore(cr);
}

/* ---- Panels -------------------------------------------------------------------- */

typedef struct line_def {
    series_col col;
    const char *label;
    int colour;  /* palette index; -1 ink */
    int dash;
    bool right;  /* against the right axis */
} line_def;

typedef struct panel_def {
    const char *title, *unit, *right_unit;
    line_def lines[4];
    int n;
} panel_def;

static const panel_def panels[VIEW_PANELS] = {
    {"load", "per second", NULL,
     {{COL_OFFERED, "offered", 4, 0, false},
      {COL_ATTEMPTS, "attempts", 5, 0, false},
      {COL_CAPACITY, "capacity", -1, 2, false}},
     3},
    {"goodput", "successes/s", "% ok",
     {{COL_GOODPUT, "goodput", 2, 0, false},
      {COL_SUCCESS, "success ratio", 1, 2, true}},
     2},
    {"queue wait and latency", "ms", "queued",
     {{COL_QUEUE_WAIT_MS, "queue wait", 6, 0, false},
      {COL_P50_MS, "p50", 1, 0, false},
      {COL_P99_MS, "p99", 4, 0, false},
      {COL_QUEUE, "queue length", 0, 2, true}},
     4},
    {"duplicates and quarantined", "requests, so far", NULL,
     {{COL_DUPLICATES, "duplicate writes", 5, 0, false},
      {COL_QUARANTINED, "quarantined", 6, 0, false}},
     2},
    {"policy", "count, per second", "% left",
     {{COL_BREAKERS, "open breakers", 7, 0, false},
      {COL_REFUSED, "refused locally /s", 0, 0, false},
      {COL_LEVEL, "retry allowance left", 2, 2, true}},
     3},
};

/* A pipeline's run shows what its on-call engineer meets in place of the
 * duplicates panel: the writes repeated, the dead-letter queue, the
 * alerts raised. */
static const panel_def pipeline_panel = {
    "duplicates, dead letters and alerts", "so far", "alerts",
    {{COL_DUPLICATES, "duplicate writes", 5, 0, false},
     {COL_DEAD_LETTERS, "dead letters", 6, 0, false},
     {COL_ALERTS_WARNING, "warnings", 1, 2, true},
     {COL_ALERTS_CRITICAL, "critical alerts", 4, 0, true}},
    4};

static const panel_def *panel_of(const view_state *v, int k)
{
    if (k == 3 && sim_config_of(session_sim(v->runs[0]))->pipeline.n_steps)
        return &pipeline_panel;
    return &panels[k];
}

static chart_style line_style(const line_def *d, int run)
{
    chart_style st = d->colour >= 0 ? chart_palette[d->colour] : chart_ink;
    st.width = d->dash == 2 ? 1.6 : 2.0;
    st.dash = run == 1 ? 1 : d->dash;
    return st;
}

/* The top of a panel's left axis over the visible rows of every run. */
static double left_top(const panel_def *d, const view_state *v, double t0,
                       double t1, double floor_v)
{
    double m = 0.0;
    for (int r = 0; r < v->n_runs; r++) {
        const series *s = session_series(v->runs[r]);
        size_t from, to;
        series_range(s, t0, t1, &from, &to);
        for (int i = 0; i < d->n; i++)
            if (!d->lines[i].right)
                m = fmax(m, series_max(s, d->lines[i].col, from, to));
    }
    return chart_axis_top(m, floor_v);
}

static double right_top(const panel_def *d, const view_state *v, double t0,
                        double t1)
{
    double m = 0.0;
    for (int r = 0; r < v->n_runs; r++) {
        const series *s = session_series(v->runs[r]);
        size_t from, to;
        series_range(s, t0, t1, &from, &to);
        for (int i = 0; i < d->n; i++)
            if (d->lines[i].right)
                m = fmax(m, series_max(s, d->lines[i].col, from, to));
    }
    return m;
}

/* A fault the GUI made for a live change (rate, workers, timeout). */
static bool is_change(const fault_cfg *f)
{
    return f->type == FAULT_LOAD_SPIKE || f->type == FAULT_CAPACITY ||
           f->type == FAULT_CLIENT_TIMEOUT;
}

/* Faults: shaded windows; live changes made by hand: markers. */
static void faults(cairo_t *cr, const chart_panel *p, const session *ss)
{
    uint32_t n;
    const fault_cfg *f = sim_faults(session_sim(ss), &n);
    uint32_t configured = session_config(ss)->n_faults;
    double now = (double)session_now(ss) / 1e9;
    for (uint32_t i = 0; i < n; i++) {
        double t0 = (double)f[i].start_ns / 1e9;
        /* Not yet, or ended before it began (replaced at once). */
        if (t0 > now || f[i].duration_ns == 0)
            continue;
        double t1 = fmin(t0 + (double)f[i].duration_ns / 1e9, now);
        bool change = i >= configured && is_change(&f[i]);
        if (!change) {
            chart_panel_window(cr, p, t0, t1, f[i].name);
            continue;
        }
        char label[64];
        if (f[i].type == FAULT_LOAD_SPIKE)
            snprintf(label, sizeof label, "rate x%.3g", f[i].multiplier);
        else if (f[i].type == FAULT_CAPACITY)
            snprintf(label, sizeof label, "%u workers", f[i].workers);
        else
            snprintf(label, sizeof label, "timeout %.0f ms",
                     (double)f[i].delay_ns / 1e6);
        chart_panel_marker(cr, p, t0, label);
    }
}

static void hover_line(cairo_t *cr, const chart_panel *p, const view_state *v,
                       const panel_def *d)
{
    if (!v->hover || !chart_panel_hit(p, v->hx, v->hy))
        return;
    double t = chart_scale_unmap(&p->x, v->hx);
    char lines[12][96];
    int n = 0;
    snprintf(lines[n++], sizeof lines[0], "t = %.1f s", t);
    for (int r = 0; r < v->n_runs; r++) {
        const series *s = session_series(v->runs[r]);
        long row = series_find(s, t);
        if (row < 0)
            continue;
        for (int i = 0; i < d->n && n < 12; i++) {
            double x = series_at(s, (size_t)row, d->lines[i].col);
            char num[32];
            snprintf(lines[n++], sizeof lines[0], "%s%s  %s",
                     v->n_runs > 1 ? (r ? "B " : "A ") : "",
                     d->lines[i].label,
                     isfinite(x) ? chart_format(x, fabs(x) < 10 ? 2 : 0, num,
                                                sizeof num)
                                 : "-");
        }
    }
    double f = p->font_px * 0.85;
    cairo_save(cr);
    cairo_set_source_rgba(cr, 0.1, 0.1, 0.1, 0.6);
    cairo_set_line_width(cr, 1.0);
    cairo_move_to(cr, v->hx + 0.5, p->plot.y);
    cairo_line_to(cr, v->hx + 0.5, p->plot.y + p->plot.h);
    cairo_stroke(cr);
    chart_font(cr, f, false);
    double w = 0;
    for (int i = 0; i < n; i++)
        w = fmax(w, chart_text_width(cr, lines[i]));
    double bx = v->hx + f, by = p->plot.y + f * 0.3;
    if (bx + w + f > p->plot.x + p->plot.w)
        bx = v->hx - w - 2 * f;
    cairo_set_source_rgba(cr, 1, 1, 1, 0.92);
    cairo_rectangle(cr, bx, by, w + f, n * f * 1.25 + f * 0.4);
    cairo_fill(cr);
    ink(cr, 0.1);
    for (int i = 0; i < n; i++)
        text(cr, bx + f * 0.5, by + f * (1.1 + 1.25 * i), lines[i]);
    cairo_restore(cr);
}

static void panel(cairo_t *cr, const view_layout *l, const view_state *v,
                  int k, double t0, double t1)
{
    const panel_def *d = panel_of(v, k);
    const session *a = v->runs[0];
    double floor_v = k == 2 ? 1.2 * (double)session_current(a, CHANGE_TIMEOUT)
                                  / 1e6
                            : 1.0;
    double top = left_top(d, v, t0, t1, floor_v);
    chart_panel p;
    chart_panel_init(&p, l->panels[k], d->title, d->unit, t0, t1, 0.0, top,
                     l->font_px);
    chart_panel_frame(cr, &p);
    faults(cr, &p, a);
    chart_scale right = p.y;
    if (d->right_unit) {
        /* Counts get an axis of their own; shares go to 100 %. */
        double hi = k == 2 || d == &pipeline_panel
                        ? chart_axis_top(right_top(d, v, t0, t1), 10)
                        : 100.0;
        right = chart_panel_right_axis(cr, &p, 0.0, hi, d->right_unit);
    }
    if (k == 2) {
        chart_style st = chart_palette[5];
        st.dash = 1;
        st.width = 1.4;
        chart_panel_hline(cr, &p, session_current(a, CHANGE_TIMEOUT) / 1e6,
                          "client timeout", &st);
    }
    if (k == 1) {
        sim_live live;
        summary_live(session_sim(a), &live);
        if (live.has_baseline) {
            chart_style st = chart_ink;
            st.dash = 1;
            st.a = 0.5;
            chart_panel_hline(cr, &p, live.baseline_goodput_per_s,
                              "baseline", &st);
        }
    }
    chart_legend_item items[8];
    chart_style styles[8];
    char labels[8][64];
    int n_items = 0;
    for (int r = 0; r < v->n_runs; r++) {
        const series *s = session_series(v->runs[r]);
        size_t from, to;
        series_range(s, t0 - s->width_s, t1, &from, &to);
        for (int i = 0; i < d->n; i++) {
            const line_def *ld = &d->lines[i];
            chart_style st = line_style(ld, r);
            chart_data data = {series_col_ptr(s, COL_T) + from * COL_COUNT,
                               series_col_ptr(s, ld->col) + from * COL_COUNT,
                               to - from, COL_COUNT};
            chart_panel_series(cr, &p, ld->right ? &right : NULL, &data, &st);
            if (r == 0 && n_items < 7) {
                styles[n_items] = st;
                snprintf(labels[n_items], sizeof labels[0], "%s", ld->label);
                items[n_items] = (chart_legend_item){
                    .label = labels[n_items], .style = &styles[n_items]};
                n_items++;
            }
        }
    }
    if (v->n_runs > 1) { /* how to tell the runs apart */
        styles[n_items] = chart_ink;
        styles[n_items].dash = 1;
        snprintf(labels[n_items], sizeof labels[0], "B (A solid)");
        items[n_items] = (chart_legend_item){.label = labels[n_items],
                                             .style = &styles[n_items]};
        n_items++;
    }
    chart_legend(cr, &p, items, n_items);
    if (k == 4 && left_top(d, v, 0, INFINITY, 0) <= 1.0 &&
        right_top(d, v, 0, INFINITY) == 0.0) {
        cairo_save(cr);
        chart_font(cr, l->font_px * 0.85, false);
        ink(cr, 0.45);
        text(cr, p.plot.x + l->font_px, p.plot.y + p.plot.h * 0.6,
             "no breaker, budget or local refusal so far");
        cairo_restore(cr);
    }
    hover_line(cr, &p, v, d);
}

/* ---- Clients and server -------------------------------------------------------- */

/* One byte per process: the most common mode of its clients (ties to the
 * higher mode), as the field groups cells. */
static const uint8_t *per_process(const sim *s, uint8_t *out)
{
    uint32_t n = sim_clients(s), p = sim_processes(s);
    const uint8_t *modes = sim_client_modes(s);
    uint32_t count[CLIENT_MODE_COUNT];
    uint32_t c = 0;
    for (uint32_t i = 0; i < p; i++) {
        memset(count, 0, sizeof count);
        /* The clients of process i: c x p / n == i. */
        uint32_t end = (uint32_t)(((uint64_t)(i + 1) * n + p - 1) / p);
        for (; c < end && c < n; c++)
            count[modes[c] < CLIENT_MODE_COUNT ? modes[c] : 0]++;
        uint8_t best = 0;
        for (uint8_t m = 1; m < CLIENT_MODE_COUNT; m++)
            if (count[m] >= count[best])
                best = m;
        out[i] = best;
    }
    return out;
}

static void field(cairo_t *cr, const view_layout *l, const view_state *v,
                  int r)
{
    const session *ss = v->runs[r];
    const sim *s = session_sim(ss);
    double f = l->font_px;
    chart_rect area = l->field[r];
    bool by_process = v->by_process && v->scratch[r] &&
                      sim_processes(s) < sim_clients(s);
    uint32_t items = by_process ? sim_processes(s) : sim_clients(s);
    const uint8_t *states = by_process ? per_process(s, v->scratch[r])
                                       : sim_client_modes(s);
    chart_field fl;
    chart_field_layout(&fl, area, items, 3.0);
    char title[256];
    snprintf(title, sizeof title, "%s%u %s%s", v->n_runs > 1 ? (r ? "B: " : "A: ") : "",
             items, by_process ? "processes" : "clients",
             fl.per_cell > 1 ? "" : "");
    if (fl.per_cell > 1) {
        size_t len = strlen(title);
        snprintf(title + len, sizeof title - len, ", %u to a cell",
                 fl.per_cell);
    }
    cairo_save(cr);
    chart_font(cr, f, true);
    ink(cr, 0.1);
    text(cr, area.x, area.y - f * 0.5, title);
    chart_field_draw(cr, &fl, states, view_mode_colours, CLIENT_MODE_COUNT);
    /* The legend of modes under the field. */
    chart_font(cr, f * 0.8, false);
    double x = area.x, y = area.y + fl.rows * fl.cell + f * 1.1;
    for (int m = 0; m < CLIENT_MODE_COUNT; m++) {
        double w = f * 0.8 + chart_text_width(cr, view_mode_names[m]) + f;
        if (x + w > area.x + area.w) {
            x = area.x;
            y += f * 1.15;
        }
        fill_rect(cr, x, y - f * 0.65, f * 0.65, f * 0.65,
                  &view_mode_colours[m]);
        ink(cr, 0.15);
        text(cr, x + f * 0.9, y, view_mode_names[m]);
        x += w;
    }
    cairo_restore(cr);
}

/* A horizontal gauge: `part` of `used` of `cap` filled, labelled. */
static void gauge(cairo_t *cr, double x, double y, double w, double h,
                  double used, double part, double cap, const chart_style *c,
                  const char *label, double f)
{
    cairo_set_source_rgb(cr, 0.93, 0.93, 0.93);
    cairo_rectangle(cr, x, y, w, h);
    cairo_fill(cr);
    double u = cap > 0 ? fmin(used / cap, 1.0) : 0.0;
    double q = cap > 0 ? fmin(part / cap, u) : 0.0;
    fill_rect(cr, x, y, w * u, h, c);
    fill_rect(cr, x + w * (u - q), y, w * q, h, &chart_palette[5]);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 1.0);
    cairo_rectangle(cr, x + 0.5, y + 0.5, w - 1, h - 1);
    cairo_stroke(cr);
    ink(cr, 0.1);
    text(cr, x, y - f * 0.3, label);
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
        int k = snprintf(line + used, sizeof line - used,
                         "%s %s %u of %s busy, queue %s", i > 1 ? " |" : "",
                         t.name, t.m->busy,
                         t.workers == UINT32_MAX
                             ? "unlimited"
                             : human_count(t.workers, b1, sizeof b1),
                         human_count(t.m->queue, b2, sizeof b2));
        if (k < 0)
            break;
        used += (size_t)k;
    }
    ink(cr, 0.1);
    text(cr, x, y, line);
}

static void server_block(cairo_t *cr, const view_layout *l,
                         const view_state *v, int r)
{
    const sim *s = session_sim(v->runs[r]);
    sim_server_now sv;
    sim_server_state(s, &sv);
    chart_rect a = l->server[r];
    double f = l->font_px;
    char label[256], b1[32], b2[32];
    cairo_save(cr);
    chart_font(cr, f * 0.85, false);
    bool unlimited = sv.workers == UINT32_MAX;
    snprintf(label, sizeof label, "server%s: %u busy of %s workers, %u for "
             "clients that gave up",
             sv.down ? " (DOWN)" : "", sv.busy,
             unlimited ? "unlimited" : human_count(sv.workers, b1, sizeof b1),
             sv.abandoned_busy);
    gauge(cr, a.x, a.y + f * 1.2, a.w, f * 0.9, sv.busy, sv.abandoned_busy,
          unlimited ? fmax(sv.busy, 1) : sv.workers, &chart_palette[4], label,
          f * 0.85);
    /* An unlimited queue is drawn against four times the workers, or
     * full when it is longer than that. */
    double cap = sv.queue_limit == UINT32_MAX
                     ? fmax(fmax(sv.queued, 4.0 * (double)sv.workers), 1.0)
                     : (double)sv.queue_limit;
    char b3[32];
    snprintf(label, sizeof label, "queue: %s%s%s, %s%s for clients that gave "
             "up",
             human_count(sv.queued, b1, sizeof b1),
             sv.queue_limit == UINT32_MAX ? "" : " of ",
             sv.queue_limit == UINT32_MAX
                 ? ""
                 : human_count(sv.queue_limit, b2, sizeof b2),
             sv.abandoned_estimated ? "about " : "",
             human_count(sv.abandoned_queued, b3, sizeof b3));
    gauge(cr, a.x, a.y + f * 3.5, a.w, f * 0.9, sv.queued,
          sv.abandoned_queued, cap, &chart_palette[0], label, f * 0.85);
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
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_rectangle(cr, r.x, y, r.w, h);
    cairo_fill(cr);
    fill_rect(cr, r.x, y, r.w * fmin(now / dur, 1.0), h, &chart_palette[1]);
    uint32_t n;
    const fault_cfg *fl = sim_faults(session_sim(a), &n);
    uint32_t configured = session_config(a)->n_faults;
    for (uint32_t i = 0; i < n; i++) {
        if (fl[i].duration_ns == 0) /* ended before it began */
            continue;
        double t0 = (double)fl[i].start_ns / 1e9;
        double t1 = t0 + (double)fl[i].duration_ns / 1e9;
        double x0 = r.x + r.w * fmin(t0 / dur, 1.0);
        double x1 = r.x + r.w * fmin(t1 / dur, 1.0);
        if (i >= configured && is_change(&fl[i])) { /* a tick, not a bar */
            ink(cr, 0.2);
            cairo_rectangle(cr, x0 - 0.5, y - f * 0.15, 1.5, h + f * 0.3);
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
    char lbl[96];
    snprintf(lbl, sizeof lbl, "0 s");
    ink(cr, 0.3);
    text(cr, r.x, r.y + f * 0.6, lbl);
    snprintf(lbl, sizeof lbl, "%.0f s   (drag to go back in time)", dur);
    double w = chart_text_width(cr, lbl);
    text(cr, r.x + r.w - w, r.y + f * 0.6, lbl);
    cairo_restore(cr);
}

static void status(cairo_t *cr, const view_layout *l, const view_state *v)
{
    double f = l->font_px;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 0.96, 0.96, 0.97);
    cairo_rectangle(cr, 0, l->status.y, l->status.w, l->status.h);
    cairo_fill(cr);
    chart_font(cr, f * 0.9, false);
    ink(cr, 0.15);
    char line[512];
    snprintf(line, sizeof line,
             "space pause   +/- speed   i inject (next: %.0f s)   e end it   "
             "arrows rate/workers   t/T timeout   v A/B   p policy   "
             "w save scenario   s screenshot   h help",
             v->inject_s);
    double right = l->status.w;
    if (v->message) { /* the message first; the hints get what is left */
        chart_font(cr, f * 0.9, true);
        double w = chart_text_width(cr, v->message);
        right = fmax(l->status.w * 0.3, l->status.w - w - f * 1.2);
        text(cr, right + f * 0.6, l->status.y + f * 1.15, v->message);
        chart_font(cr, f * 0.9, false);
    }
    cairo_rectangle(cr, 0, l->status.y, right, l->status.h);
    cairo_clip(cr);
    text(cr, f * 0.6, l->status.y + f * 1.15, v->prompt ? v->prompt : line);
    cairo_restore(cr);
}

static const char *const help_lines[] = {
    "space          pause / resume",
    "+  -           faster / slower (0.1x to 1000x real time)",
    "0              as fast as it goes",
    ".              one bucket forward (paused)",
    "i then 1-7     inject now: 1 outage (blackhole) 2 outage (refused)",
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
    "r              restart",
    "w              save as a scenario (with [expect]) to run in CI",
    "s              save a screenshot (PNG)",
    "drag timeline  go back in time (replays exactly)",
    "h or ?         this help        q or Esc  quit",
};

static void help(cairo_t *cr, double w, double h, double f)
{
    size_t n = sizeof help_lines / sizeof *help_lines;
    double bw = f * 34, bh = f * (2.5 + 1.3 * (double)n);
    double x = (w - bw) / 2, y = (h - bh) / 2;
    cairo_save(cr);
    cairo_set_source_rgba(cr, 0.1, 0.1, 0.12, 0.88);
    cairo_rectangle(cr, x, y, bw, bh);
    cairo_fill(cr);
    cairo_select_font_face(cr, "monospace", CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, f * 0.9);
    cairo_set_source_rgb(cr, 1, 1, 1);
    for (size_t i = 0; i < n; i++)
        text(cr, x + f, y + f * (1.8 + 1.3 * (double)i), help_lines[i]);
    cairo_restore(cr);
}

/* ---- The whole view ----------------------------------------------------------- */

void view_draw(cairo_t *cr, double w, double h, const view_state *v)
{
    view_layout l;
    double f = view_font_px(w, h);
    view_layout_compute(w, h, f, v->n_runs, &l);
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    double now = (double)session_now(v->runs[0]) / 1e9, t0, t1;
    chart_time_window(now, v->span_s, &t0, &t1);
    header(cr, &l, v);
    for (int k = 0; k < VIEW_PANELS; k++)
        panel(cr, &l, v, k, t0, t1);
    for (int r = 0; r < v->n_runs; r++) {
        field(cr, &l, v, r);
        server_block(cr, &l, v, r);
    }
    timeline(cr, &l, v);
    status(cr, &l, v);
    if (v->help)
        help(cr, w, h, f);
    cairo_restore(cr);
}
