/*
 * controls.c -- the on-screen controls (controls.h).
 */
#include "controls.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A control's look: normal, switched on (or pressed), or greyed when it
 * would do nothing now. */
typedef enum look { LOOK_NORMAL, LOOK_ON, LOOK_OFF } look;

typedef struct bar {
    cairo_t *cr;
    view_hits *hits;
    double f;    /* the text size */
    double x, y; /* the next control's left, the row's top */
    double h;    /* a control's height */
} bar;

static void box(cairo_t *cr, double x, double y, double w, double h, look lk)
{
    double fill = lk == LOOK_ON ? 0.74 : 0.90;
    cairo_set_source_rgb(cr, fill, fill, fill + 0.02);
    cairo_rectangle(cr, x, y, w, h);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.55, 0.55, 0.58);
    cairo_set_line_width(cr, 1.0);
    cairo_rectangle(cr, floor(x) + 0.5, floor(y) + 0.5, round(w) - 1,
                    round(h) - 1);
    cairo_stroke(cr);
}

static void ink(cairo_t *cr, look lk)
{
    double g = lk == LOOK_OFF ? 0.62 : 0.1;
    cairo_set_source_rgb(cr, g, g, g);
}

/* A button with a text, at least min_w wide; returns its rectangle. */
static chart_rect button_w(bar *b, const char *text, int id, int arg, look lk,
                           double min_w)
{
    chart_font(b->cr, b->f * 0.85, false);
    double w = fmax(chart_text_width(b->cr, text) + b->f * 1.0, min_w);
    chart_rect r = {b->x, b->y, w, b->h};
    box(b->cr, r.x, r.y, r.w, r.h, lk);
    ink(b->cr, lk);
    chart_text(b->cr, r.x + w / 2, r.y + b->h * 0.5 + b->f * 0.3, 0.5, text);
    view_hits_add(b->hits, r, HIT_CONTROL, id, arg);
    b->x += w + b->f * 0.25;
    return r;
}

static chart_rect button(bar *b, const char *text, int id, int arg, look lk)
{
    return button_w(b, text, id, arg, lk, 0.0);
}

/* The width a button needs for the widest of its texts: a control whose
 * text changes (pause/run, A/B on/off, the injection's name) keeps its
 * width, so the controls after it stay where they were.  They moved by
 * the difference: a click on "step" just after "pause" landed beside
 * it, and every control right of the injection's name moved with the
 * name chosen. */
static double widest(bar *b, const char *const *texts, int n, bool bold)
{
    chart_font(b->cr, b->f * 0.85, bold);
    double w = 0;
    for (int i = 0; i < n; i++)
        w = fmax(w, chart_text_width(b->cr, texts[i]));
    return w;
}

/* Plain text between controls. */
static void caption(bar *b, const char *text, double after)
{
    chart_font(b->cr, b->f * 0.85, false);
    cairo_set_source_rgb(b->cr, 0.3, 0.3, 0.3);
    chart_text(b->cr, b->x, b->y + b->h * 0.5 + b->f * 0.3, 0.0, text);
    b->x += chart_text_width(b->cr, text) + b->f * after;
}

/* A value between a step down and a step up: "[-] 500 ms [+]". */
static void stepper(bar *b, const char *value, int id, double min_w)
{
    button(b, "\xe2\x88\x92", id, -1, LOOK_NORMAL); /* U+2212 minus */
    b->x -= b->f * 0.25;
    chart_font(b->cr, b->f * 0.85, true);
    double w = fmax(chart_text_width(b->cr, value) + b->f * 0.8, min_w);
    cairo_set_source_rgb(b->cr, 1, 1, 1);
    cairo_rectangle(b->cr, b->x, b->y, w, b->h);
    cairo_fill(b->cr);
    cairo_set_source_rgb(b->cr, 0.1, 0.1, 0.1);
    chart_text(b->cr, b->x + w / 2, b->y + b->h * 0.5 + b->f * 0.3, 0.5, value);
    b->x += w;
    button(b, "+", id, +1, LOOK_NORMAL);
}

/* The width stepper() takes with a value of min_w or less, without
 * drawing. */
static double stepper_width(bar *b, double min_w)
{
    chart_font(b->cr, b->f * 0.85, false);
    double minus = chart_text_width(b->cr, "\xe2\x88\x92") + b->f * 1.0;
    double plus = chart_text_width(b->cr, "+") + b->f * 1.0;
    return minus + min_w + plus + b->f * 0.25;
}

/* ---- Icons ------------------------------------------------------------------ */

static void icon_play(cairo_t *cr, double cx, double cy, double s)
{
    cairo_move_to(cr, cx - s * 0.4, cy - s * 0.5);
    cairo_line_to(cr, cx + s * 0.5, cy);
    cairo_line_to(cr, cx - s * 0.4, cy + s * 0.5);
    cairo_close_path(cr);
    cairo_fill(cr);
}

static void icon_pause(cairo_t *cr, double cx, double cy, double s)
{
    cairo_rectangle(cr, cx - s * 0.4, cy - s * 0.5, s * 0.28, s);
    cairo_rectangle(cr, cx + s * 0.12, cy - s * 0.5, s * 0.28, s);
    cairo_fill(cr);
}

/* A square button with an icon and a word after it. */
static void icon_button(bar *b, bool play, bool step, const char *word,
                        double word_w, int id, look lk)
{
    chart_font(b->cr, b->f * 0.85, false);
    double w = b->h + fmax(chart_text_width(b->cr, word), word_w) + b->f * 0.4;
    box(b->cr, b->x, b->y, w, b->h, lk);
    ink(b->cr, lk);
    double cx = b->x + b->h * 0.5, cy = b->y + b->h * 0.5, s = b->h * 0.45;
    if (play)
        icon_play(b->cr, step ? cx - s * 0.15 : cx, cy, s);
    else
        icon_pause(b->cr, cx, cy, s);
    if (step)
        cairo_rectangle(b->cr, cx + s * 0.38, cy - s * 0.5, s * 0.18, s);
    cairo_fill(b->cr);
    chart_text(b->cr, b->x + b->h * 0.95, cy + b->f * 0.3, 0.0, word);
    view_hits_add(b->hits, (chart_rect){b->x, b->y, w, b->h}, HIT_CONTROL, id,
                  0);
    b->x += w + b->f * 0.25;
}

/* ---- Sliders ------------------------------------------------------------------ */

static double slider_u(const controls_slider *s, double v)
{
    if (!(s->hi > s->lo) || !(s->lo > 0))
        return 0;
    double u = log(fmax(v, s->lo) / s->lo) / log(s->hi / s->lo);
    return fmin(fmax(u, 0.0), 1.0);
}

double controls_slider_value(const view_hits *h, const controls_state *c,
                             int kind, double x)
{
    for (int i = 0; i < h->n; i++) {
        const view_hit *t = &h->hit[i];
        if (t->kind != HIT_CONTROL || t->a != CTL_SLIDER || t->b != kind)
            continue;
        const controls_slider *s = &c->slider[kind];
        double u = fmin(fmax((x - t->r.x) / t->r.w, 0.0), 1.0);
        return s->lo * pow(s->hi / s->lo, u);
    }
    return NAN;
}

static void slider(bar *b, const char *name, const controls_slider *s, int kind,
                   double track_w)
{
    caption(b, name, 0.5);
    double y = b->y + b->h * 0.5;
    chart_rect r = {b->x, b->y, track_w, b->h};
    cairo_set_source_rgb(b->cr, 0.82, 0.82, 0.85);
    cairo_rectangle(b->cr, r.x, y - b->f * 0.12, r.w, b->f * 0.24);
    cairo_fill(b->cr);
    double x = r.x + r.w * slider_u(s, s->value);
    cairo_set_source_rgb(b->cr, 0.0, 0.45, 0.70);
    cairo_rectangle(b->cr, r.x, y - b->f * 0.12, x - r.x, b->f * 0.24);
    cairo_fill(b->cr);
    double k = b->f * 0.45;
    cairo_set_source_rgb(b->cr, s->active ? 0.0 : 0.25, s->active ? 0.35 : 0.25,
                         s->active ? 0.6 : 0.28);
    cairo_rectangle(b->cr, x - k * 0.5, b->y + b->h * 0.15, k, b->h * 0.7);
    cairo_fill(b->cr);
    view_hits_add(b->hits, r, HIT_CONTROL, CTL_SLIDER, kind);
    b->x += track_w + b->f * 0.5;
    chart_font(b->cr, b->f * 0.85, true);
    cairo_set_source_rgb(b->cr, 0.1, 0.1, 0.1);
    chart_text(b->cr, b->x, y + b->f * 0.3, 0.0, s->text);
    b->x += chart_text_width(b->cr, s->text) + b->f * 1.2;
}

/* ---- The menu of injections, the picker --------------------------------------- */

/* The injections, one under another, opening upwards from the kind's
 * button at x. */
static void kind_menu(cairo_t *cr, const controls_state *c, double x,
                      double bottom, double f, view_hits *hits)
{
    double row = f * 1.6, w = 0;
    chart_font(cr, f * 0.85, false);
    for (int i = 0; i < c->n_kinds; i++)
        w = fmax(w, chart_text_width(cr, c->kind_names[i]));
    w += f * 1.4;
    double y = bottom - row * c->n_kinds - f * 0.3;
    cairo_set_source_rgba(cr, 0.2, 0.2, 0.2, 0.25);
    cairo_rectangle(cr, x + 3, y + 3, w, row * c->n_kinds);
    cairo_fill(cr);
    for (int i = 0; i < c->n_kinds; i++) {
        chart_rect r = {x, y + row * i, w, row};
        box(cr, r.x, r.y, r.w, r.h, i == c->kind ? LOOK_ON : LOOK_NORMAL);
        ink(cr, LOOK_NORMAL);
        chart_text(cr, r.x + f * 0.7, r.y + row * 0.5 + f * 0.3, 0.0,
                   c->kind_names[i]);
        view_hits_add(hits, r, HIT_CONTROL, CTL_KIND_PICK, i);
    }
}

/* A column of the picker: its heading, then one row per entry drawn by
 * the caller; returns the y of the first row. */
static double heading(cairo_t *cr, double x, double y, double f,
                      const char *text)
{
    chart_font(cr, f * 0.85, true);
    cairo_set_source_rgb(cr, 1, 1, 1);
    chart_text(cr, x, y + f, 0.0, text);
    return y + f * 1.5;
}

static void pick_row(cairo_t *cr, chart_rect r, double f, const char *text,
                     bool chosen, bool square, view_hits *hits, int id, int arg)
{
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_set_line_width(cr, 1.0);
    double s = f * 0.7, cx = r.x + s * 0.5, cy = r.y + r.h * 0.5;
    cairo_new_path(cr); /* no line from where the text ended */
    if (square)
        cairo_rectangle(cr, cx - s * 0.5 + 0.5, cy - s * 0.5 + 0.5, s, s);
    else
        cairo_arc(cr, cx, cy, s * 0.5, 0, 6.283185307179586);
    if (chosen)
        cairo_fill(cr);
    else
        cairo_stroke(cr);
    chart_font(cr, f * 0.85, chosen);
    chart_text(cr, r.x + s + f * 0.4, cy + f * 0.3, 0.0, text);
    view_hits_add(hits, r, HIT_CONTROL, id, arg);
}

/* The retry policies (round: one of them) and the layers (square: any
 * of them) in two columns. */
static double picker_policies(cairo_t *cr, const controls_picker *p, double x,
                              double y, double f, double col_w, view_hits *hits)
{
    double row = f * 1.35, bottom = y;
    for (int layer = 0; layer < 2; layer++) {
        double yy = heading(cr, x + layer * col_w, y, f,
                            layer ? "layers stacked on it" : "retry policy");
        for (int i = 0; i < p->n_policies; i++) {
            const controls_policy *c = &p->policies[i];
            if (c->layer != (layer == 1))
                continue;
            chart_rect r = {x + layer * col_w, yy, col_w - f, row};
            pick_row(cr, r, f, c->name, c->chosen, layer == 1, hits,
                     layer ? CTL_PICK_LAYER : CTL_PICK_BASE, i);
            yy += row;
        }
        bottom = fmax(bottom, yy);
    }
    return bottom;
}

/* The stack's parameters: name, value, a step down and up. */
static double picker_params(cairo_t *cr, const controls_picker *p, double x,
                            double y, double f, double w, view_hits *hits)
{
    double row = f * 1.35;
    double yy = heading(cr, x, y, f,
                        p->n_params ? "parameters (live)" : "no parameters");
    for (int i = 0; i < p->n_params; i++) {
        const controls_param *c = &p->params[i];
        chart_font(cr, f * 0.85, false);
        cairo_set_source_rgb(cr, 0.85, 0.85, 0.88);
        chart_text(cr, x, yy + row * 0.5 + f * 0.3, 0.0, c->name);
        double name_w = chart_text_width(cr, c->name);
        chart_font(cr, f * 0.85, true);
        cairo_set_source_rgb(cr, 1, 1, 1);
        double bx = x + w - f * 3.6;
        /* A long value (a set of status codes) is cut to its room. */
        chart_line cut;
        chart_wrap(cr, c->value, fmax(bx - f * 1.5 - x - name_w, f), &cut, 1);
        chart_text_line(cr, bx - f * 0.5, yy + row * 0.5 + f * 0.3, 1.0,
                        c->value, &cut);
        for (int k = 0; k < 2 && c->editable; k++) {
            chart_rect r = {bx + k * f * 1.7, yy + row * 0.08, f * 1.5,
                            row * 0.84};
            cairo_set_source_rgb(cr, 0.35, 0.35, 0.4);
            cairo_rectangle(cr, r.x, r.y, r.w, r.h);
            cairo_fill(cr);
            cairo_set_source_rgb(cr, 1, 1, 1);
            chart_text(cr, r.x + r.w / 2, r.y + r.h * 0.5 + f * 0.3, 0.5,
                       k ? "+" : "\xe2\x88\x92");
            view_hits_add(hits, r, HIT_CONTROL, CTL_PARAM, 2 * i + k);
        }
        yy += row;
    }
    return yy;
}

static void picker(cairo_t *cr, const view_layout *l, const controls_picker *p,
                   view_hits *hits)
{
    double f = l->font_px, col_w = f * 12, param_w = f * 22;
    double w = 2 * col_w + param_w + f * 2.5;
    double x = fmin(fmax(p->x, f * 0.5), l->header.w - w - f * 0.5);
    double y = l->header.h;
    /* Measure by drawing nowhere first: the height is the longer column. */
    int n_base = 0, n_layer = 0;
    for (int i = 0; i < p->n_policies; i++)
        p->policies[i].layer ? n_layer++ : n_base++;
    int rows = n_base > n_layer ? n_base : n_layer;
    if (p->n_params > rows)
        rows = p->n_params;
    double h = f * 1.35 * rows + f * 5.2;
    cairo_set_source_rgba(cr, 0.12, 0.12, 0.15, 0.95);
    cairo_rectangle(cr, x, y, w, h);
    cairo_fill(cr);
    /* The picker swallows clicks that hit nothing in it. */
    view_hits_add(hits, (chart_rect){x, y, w, h}, HIT_CONTROL, 0, 0);
    char title[64];
    snprintf(title, sizeof title, "policy of %c", 'A' + p->run);
    chart_font(cr, f, true);
    cairo_set_source_rgb(cr, 1, 1, 1);
    chart_text(cr, x + f, y + f * 1.4, 0.0, title);
    double bx = x + w - f * 2.2;
    chart_rect close = {bx, y + f * 0.4, f * 1.6, f * 1.4};
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.4);
    cairo_rectangle(cr, close.x, close.y, close.w, close.h);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    chart_text(cr, close.x + close.w / 2, close.y + f * 1.0, 0.5,
               "\xc3\x97"); /* U+00D7 multiplication sign */
    view_hits_add(hits, close, HIT_CONTROL, CTL_PICK_CLOSE, 0);
    if (p->run == 1) {
        chart_font(cr, f * 0.85, false);
        double tw = chart_text_width(cr, "switch B off") + f;
        chart_rect off = {bx - tw - f * 0.5, close.y, tw, close.h};
        cairo_set_source_rgb(cr, 0.35, 0.35, 0.4);
        cairo_rectangle(cr, off.x, off.y, off.w, off.h);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 1, 1, 1);
        chart_text(cr, off.x + off.w / 2, off.y + f * 1.0, 0.5, "switch B off");
        view_hits_add(hits, off, HIT_CONTROL, CTL_PICK_OFF, 0);
    }
    double top = y + f * 2.4;
    picker_policies(cr, p, x + f, top, f, col_w, hits);
    picker_params(cr, p, x + f + 2 * col_w + f * 0.5, top, f, param_w, hits);
}

/* ---- The bar ---------------------------------------------------------------------- */

static const char *speed_text(double s, char *buf, size_t len)
{
    if (s <= 0)
        snprintf(buf, len, "max");
    else if (s >= 100)
        snprintf(buf, len, "%.0f x", s);
    else
        snprintf(buf, len, "%.3g x", s);
    return buf;
}

static void row_one(bar *b, const controls_state *c, double *kind_x)
{
    char buf[64];
    static const char *const play[] = {"run", "pause"};
    icon_button(b, c->paused, false, c->paused ? "run" : "pause",
                widest(b, play, 2, false), CTL_PLAY,
                c->ended ? LOOK_OFF : LOOK_NORMAL);
    icon_button(b, true, true, "step", 0.0, CTL_STEP,
                c->paused && !c->ended ? LOOK_NORMAL : LOOK_OFF);
    b->x += b->f * 0.6;
    caption(b, "speed", 0.4);
    button(b, "\xe2\x88\x92", CTL_SPEED, -1, LOOK_NORMAL);
    b->x -= b->f * 0.25;
    static const char *const speeds[] = {"max", "1000 x", "0.25 x"};
    speed_text(c->speed, buf, sizeof buf);
    double w = widest(b, speeds, 3, true);
    w = fmax(w, chart_text_width(b->cr, buf)) + b->f * 0.8;
    w = fmax(w, b->f * 3.6);
    cairo_set_source_rgb(b->cr, 1, 1, 1);
    cairo_rectangle(b->cr, b->x, b->y, w, b->h);
    cairo_fill(b->cr);
    cairo_set_source_rgb(b->cr, 0.1, 0.1, 0.1);
    chart_text(b->cr, b->x + w / 2, b->y + b->h * 0.5 + b->f * 0.3, 0.5, buf);
    b->x += w;
    button(b, "+", CTL_SPEED, +1, LOOK_NORMAL);
    button(b, "max", CTL_SPEED, 0, c->speed <= 0 ? LOOK_ON : LOOK_NORMAL);
    b->x += b->f * 1.0;
    caption(b, "inject", 0.4);
    *kind_x = b->x;
    double kind_w = 0;
    for (int k = 0; k < c->n_kinds; k++) {
        snprintf(buf, sizeof buf, "%s \xe2\x96\xb4", c->kind_names[k]);
        const char *t = buf;
        kind_w = fmax(kind_w, widest(b, &t, 1, false) + b->f * 1.0);
    }
    snprintf(buf, sizeof buf, "%s \xe2\x96\xb4", c->kind_names[c->kind]);
    button_w(b, buf, CTL_KIND, 0, c->kind_menu ? LOOK_ON : LOOK_NORMAL, kind_w);
    /* The size's stepper, or its room when the injection has no size. */
    static const char *const sizes[] = {"999 workers", "999 ms", "100 %",
                                        "x0.25"};
    double size_x = b->x, size_w = widest(b, sizes, 4, true) + b->f * 0.8;
    if (c->size_text[0])
        stepper(b, c->size_text, CTL_SIZE, size_w);
    b->x = fmax(b->x, size_x + stepper_width(b, size_w));
    b->x += b->f * 0.3;
    caption(b, "for", 0.4);
    snprintf(buf, sizeof buf, "%.0f s", c->inject_s);
    stepper(b, buf, CTL_LENGTH, b->f * 3.6);
    b->x += b->f * 0.3;
    button(b, "inject now", CTL_INJECT, 0, c->ended ? LOOK_OFF : LOOK_NORMAL);
    button(b, "end it", CTL_END, 0, c->can_end ? LOOK_NORMAL : LOOK_OFF);
    b->x += b->f * 1.0;
    static const char *const ab[] = {"A/B on", "A/B off"};
    button_w(b, c->ab ? "A/B on" : "A/B off", CTL_AB, 0,
             c->ab ? LOOK_ON : LOOK_NORMAL,
             widest(b, ab, 2, false) + b->f * 1.0);
    button(b, "follow the run", CTL_FOLLOW, 0,
           c->following ? LOOK_OFF : LOOK_NORMAL);
    button(b, "help", CTL_HELP, 0, LOOK_NORMAL);
}

static void row_two(bar *b, const controls_state *c, double width)
{
    static const char *const names[CHANGE_KINDS] = {"arrival rate", "workers",
                                                    "timeout"};
    static const char *const exports[EXPORT_KINDS] = {"CSV", "PNG", "SVG",
                                                      "scenario"};
    /* The export buttons' room first; the sliders share the rest. */
    chart_font(b->cr, b->f * 0.85, false);
    double ex = chart_text_width(b->cr, "export") + b->f * 0.5;
    for (int k = 0; k < EXPORT_KINDS; k++)
        ex += chart_text_width(b->cr, exports[k]) + b->f * 1.25;
    double labels = 0;
    for (int k = 0; k < CHANGE_KINDS; k++)
        labels += chart_text_width(b->cr, names[k]) + b->f * 6.5;
    double track = fmax(b->f * 4, (width - b->x - ex - labels - b->f) / 3);
    track = fmin(track, b->f * 14);
    for (int k = 0; k < CHANGE_KINDS; k++)
        slider(b, names[k], &c->slider[k], k, track);
    b->x = fmax(b->x, width - ex - b->f * 0.5);
    caption(b, "export", 0.5);
    for (int k = 0; k < EXPORT_KINDS; k++)
        button(b, exports[k], CTL_EXPORT, k, LOOK_NORMAL);
}

void controls_draw(cairo_t *cr, const view_layout *l, const controls_state *c,
                   view_hits *hits)
{
    double f = l->font_px;
    chart_rect a = l->controls;
    cairo_save(cr);
    cairo_set_source_rgb(cr, 0.94, 0.94, 0.95);
    cairo_rectangle(cr, a.x, a.y, a.w, a.h);
    cairo_fill(cr);
    bar b = {cr, hits, f, a.x + f * 0.6, a.y + f * 0.3, f * 1.75};
    double kind_x = 0;
    row_one(&b, c, &kind_x);
    b.x = a.x + f * 0.6;
    b.y = a.y + f * 2.45;
    row_two(&b, c, a.w);
    if (c->kind_menu)
        kind_menu(cr, c, kind_x, a.y, f, hits);
    if (c->picker)
        picker(cr, l, c->picker, hits);
    cairo_restore(cr);
}
