/*
 * compare_risk_report.c -- compare --risk in the report: P(storm) per
 * policy with its interval, and on a two-key sweep a map per policy
 * coloured by it (compare_charts.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_charts.h"
#include "compare_risk.h"

static void intro(report *d, const compare_result *r)
{
    const compare_risk *k = r->risk;
    char h[64], text[900];
    compare_risk_horizon(k, h, sizeof h);
    report_heading(d, 1, "Risk of a storm");
    snprintf(text, sizeof text,
             "The probability that a run tips into a "
             "storm %s: the scenario run for the horizon under its faults' "
             "weather, each run with its own seed (from %llu on, the same "
             "for every policy, so every policy meets the same blips). A "
             "storm: after the trigger is gone, goodput does not come back "
             "within 10 %% of its baseline for %g s in a row "
             "(stormbench risk). Intervals at 95 %%: Wilson's for plain "
             "Monte Carlo, Student's t for splitting.",
             h, (unsigned long long)r->plan->seed0,
             (double)k->o.storm_window_ns / 1e9);
    report_text(d, text);
}

/* One point: a bar per policy and the verdict. */
static void bars(report *d, const compare_result *r, uint32_t pt)
{
    const compare_plan *p = r->plan;
    int np = p->n_policies;
    const char *labels[COMPARE_MAX_POLICIES], *notes[COMPARE_MAX_POLICIES];
    char note[COMPARE_MAX_POLICIES][160];
    double v[COMPARE_MAX_POLICIES], lo[COMPARE_MAX_POLICIES],
        hi[COMPARE_MAX_POLICIES];
    int colour[COMPARE_MAX_POLICIES];
    for (int i = 0; i < np; i++) {
        const risk_result *c = compare_risk_at(r->risk, pt, i);
        labels[i] = p->policies[i].label;
        v[i] = 100 * c->est.p;
        lo[i] = 100 * c->est.lo;
        hi[i] = 100 * c->est.hi;
        colour[i] = compare_charts_colour(i);
        compare_risk_cell(c, note[i], sizeof note[i]);
        notes[i] = note[i];
    }
    char h[64], title[96];
    compare_risk_horizon(r->risk, h, sizeof h);
    snprintf(title, sizeof title, "P(storm %s)", h);
    report_bars b = {title,  "P(storm) (%)", np,  labels, v,    lo,   hi,
                     colour, notes,          100, 0,      NULL, NULL, NULL};
    report_bars_add(d, &b);
    char text[1300];
    int best;
    if (compare_risk_verdict(r, pt, &best, text, sizeof text) != 0) {
        report_fail(d, "out of memory computing the statistics");
        return;
    }
    char line[1400];
    snprintf(line, sizeof line, "Verdict: %s.", text);
    report_text(d, line);
    /* An estimate's note (risk_result.note: why plain Monte Carlo) under
     * the verdict, as summary.md has it. */
    for (int i = 0; i < np; i++) {
        const risk_result *c = compare_risk_at(r->risk, pt, i);
        if (c->note[0] == '\0')
            continue;
        snprintf(line, sizeof line, "Note on %s's estimate: %s.",
                 p->policies[i].label, c->note);
        report_text(d, line);
    }
}

/* A two-key sweep: the stability map's drawing with each cell's counts
 * the runs that tipped of the runs made (plain Monte Carlo; a splitting
 * estimate has no counts and is left out of the map, said below). */
static void maps(report *d, const compare_result *r)
{
    const compare_plan *p = r->plan;
    const compare_axis *ax = &p->axes[0], *ay = &p->axes[1];
    size_t cells = (size_t)ax->n * ay->n;
    double *x = calloc(ax->n + ay->n, sizeof *x);
    uint32_t *counts = calloc(2 * cells, sizeof *counts);
    if (x == NULL || counts == NULL) {
        free(x);
        free(counts);
        report_text(d, "(The maps of P(storm) were left out: out of "
                       "memory.)");
        return;
    }
    double *y = x + ax->n;
    uint32_t *tipped = counts, *judged = counts + cells;
    for (uint32_t i = 0; i < ax->n; i++)
        x[i] = compare_axis_value(ax, i);
    for (uint32_t j = 0; j < ay->n; j++)
        y[j] = compare_axis_value(ay, j);
    char xl[160], yl[160];
    snprintf(xl, sizeof xl, "%s%s%s%s", ax->key, ax->unit[0] ? " (" : "",
             ax->unit, ax->unit[0] ? ")" : "");
    snprintf(yl, sizeof yl, "%s%s%s%s", ay->key, ay->unit[0] ? " (" : "",
             ay->unit, ay->unit[0] ? ")" : "");
    report_text(d, "Per policy, P(storm) in every cell: colour by the share "
                   "of runs that tipped, k/n in figures; hatched where the "
                   "95 % interval includes one half; the thick line where "
                   "storms become more likely than not.");
    int split = 0, noted = 0;
    for (int i = 0; i < p->n_policies; i++) {
        for (uint32_t k = 0; k < p->n_points; k++) {
            const compare_point *pt = &p->points[k];
            size_t cell = (size_t)pt->index[1] * ax->n + pt->index[0];
            const risk_result *c = compare_risk_at(r->risk, k, i);
            tipped[cell] = c->est.plain ? (uint32_t)c->est.hit_trials : 0;
            judged[cell] = c->est.plain ? (uint32_t)c->est.trials : 0;
            split += !c->est.plain;
            noted += c->note[0] != '\0';
        }
        char title[220];
        snprintf(title, sizeof title, "%s: P(storm)", p->policies[i].label);
        report_map m = {title,
                        xl,
                        yl,
                        (int)ax->n,
                        (int)ay->n,
                        x,
                        y,
                        tipped,
                        judged,
                        NULL,
                        NULL,
                        "estimated by splitting, which has no counts to "
                        "draw (summary.md gives the estimate)"};
        report_map_add(d, &m);
    }
    if (split) {
        char text[200];
        snprintf(text, sizeof text,
                 "%d cells were estimated by splitting "
                 "and have no counts to draw: summary.md gives their "
                 "estimates.",
                 split);
        report_text(d, text);
    }
    if (noted) {
        char text[200];
        snprintf(text, sizeof text,
                 "%d %s a note (why plain Monte Carlo): summary.md gives "
                 "%s.",
                 noted,
                 noted == 1 ? "cell's estimate carries"
                            : "cells' estimates carry",
                 noted == 1 ? "it" : "each");
        report_text(d, text);
    }
    free(x);
    free(counts);
}

void compare_charts_risk(report *d, const compare_result *r)
{
    const compare_plan *p = r->plan;
    intro(d, r);
    if (p->n_axes == 2) {
        maps(d, r);
        return;
    }
    for (uint32_t pt = 0; pt < p->n_points; pt++) {
        if (p->n_axes == 1) {
            char head[200];
            snprintf(head, sizeof head, "%s = %g%s", p->axes[0].key,
                     p->points[pt].value[0], p->axes[0].unit);
            report_heading(d, 2, head);
        }
        bars(d, r, pt);
    }
}
