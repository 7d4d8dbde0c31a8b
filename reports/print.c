#include "print.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "jobs.h"

const char *print_policy(const pstack *ps, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "%s", pstack_name(ps));
    const char *sep = " (";
    for (int i = 0; i < pstack_layers(ps) && used < len; i++) {
        const sb_policy *p = pstack_layer(ps, i);
        for (int j = 0; p->params && p->params[j].name && used < len; j++) {
            used += (size_t)snprintf(buf + used, len - used, "%s%s%s%s=%s", sep,
                                     pstack_layers(ps) > 1 ? p->name : "",
                                     pstack_layers(ps) > 1 ? "." : "",
                                     p->params[j].name,
                                     pstack_param_text(ps, i, j));
            sep = ", ";
        }
    }
    if (strcmp(sep, ", ") == 0 && used < len)
        snprintf(buf + used, len - used, ")");
    return buf;
}

/* Layer i's parameters, "base=100ms, multiplier=2, ...", written one at a
 * time so each line stays within 80 columns: the first after `lead`
 * (already printed, `col` columns), the next ones indented by `indent`. */
static void print_layer(FILE *f, const pstack *ps, int i, size_t col,
                        int indent)
{
    const sb_policy *p = pstack_layer(ps, i);
    for (int j = 0; p->params && p->params[j].name; j++) {
        char kv[160];
        bool last = p->params[j + 1].name == NULL;
        int n = snprintf(kv, sizeof kv, "%s=%s%s", p->params[j].name,
                         pstack_param_text(ps, i, j), last ? "" : ",");
        size_t w = n > 0 ? (size_t)n : 0;
        if (j > 0 && col + 1 + w > 80) {
            fprintf(f, "\n%*s", indent, "");
            col = (size_t)indent;
        } else if (j > 0) {
            fputc(' ', f);
            col++;
        }
        fputs(kv, f);
        col += w;
    }
    fputc('\n', f);
}

void print_policy_block(FILE *f, const char *head, const char *tail, int indent,
                        const pstack *ps)
{
    char pol[2048];
    print_policy(ps, pol, sizeof pol);
    if (strlen(head) + strlen(pol) + strlen(tail) <= 80) {
        fprintf(f, "%s%s%s\n", head, pol, tail);
        return;
    }
    fprintf(f, "%s%s%s\n", head, pstack_name(ps), tail);
    for (int i = 0; i < pstack_layers(ps); i++) {
        const sb_policy *p = pstack_layer(ps, i);
        if (p->params == NULL || p->params[0].name == NULL)
            continue;
        int col = fprintf(f, "%*s%s: ", indent, "", p->name);
        print_layer(f, ps, i, col > 0 ? (size_t)col : 0, indent + 2);
    }
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void recovery_line(FILE *f, const sim_summary *s)
{
    char why[200];
    fprintf(f, "  %-22s", "recovery");
    if (!s->has_fault)
        fprintf(f, "no fault in this scenario\n");
    else if (!s->has_baseline)
        fprintf(f, "not judged: no baseline before the first fault\n");
    else if (!s->recovery_judged)
        fprintf(f, "not judged: %s\n", expect_too_soon(s, why, sizeof why));
    else if (s->recovered)
        fprintf(f, "recovered %.0f s after the last fault ended (t=%.0f s)\n",
                s->recovery_time_s, s->last_fault_end_s);
    else
        fprintf(f,
                "METASTABLE: did not recover; goodput %.0f%% of baseline "
                "%.0f s after the fault ended\n",
                100.0 * s->final_goodput_ratio,
                s->duration_s - s->last_fault_end_s);
}

/* A figure of the phase table, right-aligned in `width` columns; "-"
 * when it has no value (NaN). */
static void cell(FILE *f, int width, double v, int decimals, const char *unit)
{
    char t[40];
    if (isnan(v))
        snprintf(t, sizeof t, "-");
    else
        snprintf(t, sizeof t, "%.*f%s", decimals, v, unit);
    fprintf(f, "%*s", width, t);
}

/* The phase table's columns: PHASES_FIGURES' print tuples,
 * (head, width, decimals, suffix), unpacked into the calls below; a
 * figure whose head is "" is not in the table. */
#define PHASE_PRINT(head, width, decimals, suffix) head, width, decimals, suffix

static void phase_head(FILE *f, const char *head, int width, int decimals,
                       const char *suffix)
{
    (void)decimals;
    (void)suffix;
    if (head[0] != '\0')
        fprintf(f, "%*s", width, head);
}

static void phase_cell(FILE *f, double v, const char *head, int width,
                       int decimals, const char *suffix)
{
    if (head[0] != '\0')
        cell(f, width, v, decimals, suffix);
}

/* Before, during and after the faults, and the steady state at the end:
 * over a whole run, the fault's own failures drown the rest.  Only for a
 * run with a fault (without one, the run is one phase: the lines above).
 * Its columns are sim/phases.h's PHASES_FIGURES that have a print head. */
static void phase_table(FILE *f, const sim_summary *s)
{
    if (!s->has_fault)
        return;
    fprintf(f, "  %-22s%-14s", "by phase", "t (s)");
#define PHASE_HEAD_OF(id, key, label, column, unit, better, json, print,       \
                      scale, value)                                            \
    phase_head(f, PHASE_PRINT print);
    PHASES_FIGURES(PHASE_HEAD_OF)
#undef PHASE_HEAD_OF
    fputc('\n', f);
    for (int k = 0; k < PHASE_COUNT; k++) {
        const sim_phase *ph = &s->phase[k];
        if (!ph->present)
            continue;
        char span[32];
        snprintf(span, sizeof span, "%g-%g", ph->from_s, ph->to_s);
        fprintf(f, "    %-20s%-14s", phases_label((phase_kind)k), span);
#define PHASE_CELL(id, key, label, column, unit, better, json, print, scale,   \
                   value)                                                      \
    phase_cell(f, (scale) * (value), PHASE_PRINT print);
        PHASES_FIGURES(PHASE_CELL)
#undef PHASE_CELL
        fputc('\n', f);
    }
}

/* A derived figure's line: "12.5%", "1.02x", "3.1 ms"; none for NaN. */
static void derived_line(FILE *f, const char *label, double v, int decimals,
                         const char *unit)
{
    if (!isfinite(v))
        return;
    bool close =
        unit[0] == '\0' || strcmp(unit, "%") == 0 || strcmp(unit, "x") == 0;
    fprintf(f, "  %-22s%.*f%s%s\n", label, decimals, v, close ? "" : " ", unit);
}

/* The metric table's counts added since it was written (sim/metrics.h's
 * METRICS_ADDED) that the summary carries: a line each, under its label,
 * when the run counted any; then summary.h's SUMMARY_DERIVED figures, a
 * line each when the run has a value. */
static void added_counts(FILE *f, const sim_summary *s)
{
    for (int id = MF_FIRST_ADDED; id < MF_COUNT; id++)
        if (metrics_fields[id].in_summary && summary_count(s, id))
            fprintf(f, "  %-22s%" PRIu64 "\n", metrics_fields[id].label,
                    summary_count(s, id));
#define DERIVED_LINE(name, unit, json, decimals, label, value)                 \
    derived_line(f, label, summary_derived(s, SD_##name), decimals, unit);
    SUMMARY_DERIVED(DERIVED_LINE)
#undef DERIVED_LINE
    (void)derived_line; /* used, even while the table is empty */
}

void print_summary(FILE *f, const sim_config *c, const char *path,
                   const pstack *ps, const sim_summary *s)
{
    fprintf(f, "scenario  %s (%s)\n", c->name, path);
    print_policy_block(f, "policy    ", "", 10, ps);
    if (s->processes != c->clients.count)
        fprintf(f,
                "run       %u clients in %u processes, %.0f s simulated, "
                "seed %" PRIu64 "\n\n",
                c->clients.count, s->processes, s->duration_s, c->seed);
    else
        fprintf(f,
                "run       %u clients, %.0f s simulated, seed %" PRIu64 "\n\n",
                c->clients.count, s->duration_s, c->seed);
    fprintf(f, "  %-22s%" PRIu64 " (%.1f/s)\n",
            metrics_fields[MF_offered].label, s->offered,
            (double)s->offered / s->duration_s);
    fprintf(f,
            "  %-22s%" PRIu64 "  amplification %.2f, peak %.2f at t=%.0f s\n",
            metrics_fields[MF_attempts].label, s->attempts, s->amplification,
            s->peak_amplification, s->peak_amplification_at_s);
    if (s->in_flight)
        fprintf(f,
                "  %-22s%" PRIu64 "  success ratio %.2f%% of requests "
                "started (%.2f%% of the %" PRIu64 " that finished)\n",
                metrics_fields[MF_successes].label, s->successes,
                100.0 * s->success_ratio, 100.0 * s->success_ratio_finished,
                s->successes + s->failures);
    else
        fprintf(f, "  %-22s%" PRIu64 "  success ratio %.2f%%\n",
                metrics_fields[MF_successes].label, s->successes,
                100.0 * s->success_ratio);
    fprintf(f,
            "  %-22s%" PRIu64 "  gave up %" PRIu64 ", deadline %" PRIu64
            ", refused locally %" PRIu64 ", quarantined %" PRIu64 "\n",
            metrics_fields[MF_failures].label, s->failures, s->gave_up,
            s->deadline, s->refused, s->quarantined);
    if (s->refused)
        fprintf(f,
                "  %-22s%" PRIu64 " by a budget or throttle, %" PRIu64
                " by a circuit breaker, %" PRIu64 " for other reasons\n",
                metrics_fields[MF_refused].label, s->refused_budget,
                s->refused_breaker, s->refused_other);
    fprintf(f,
            "  %-22s%" PRIu64 " attempts timed out, %" PRIu64
            " rejected by the server, %" PRIu64 " injected errors",
            "attempt errors", s->timeouts, s->rejections, s->errors);
    if (s->other_errors)
        fprintf(f, ", %" PRIu64 " other errors", s->other_errors);
    fputc('\n', f);
    fprintf(f, "  %-22smean %.1f ms, p50 %.1f ms, p99 %.1f ms, p99.9 %.1f ms\n",
            "latency (successes)", s->latency_mean_ms, s->latency_p50_ms,
            s->latency_p99_ms, s->latency_p999_ms);
    fprintf(f, "  %-22smean %.1f ms, p50 %.1f ms, p99 %.1f ms, p99.9 %.1f ms\n",
            "latency (attempts)", s->attempt_mean_ms, s->attempt_p50_ms,
            s->attempt_p99_ms, s->attempt_p999_ms);
    if (s->has_baseline && s->has_fault)
        fprintf(f, "  %-22s%.1f successes/s before the first fault\n",
                "baseline goodput", s->baseline_goodput_per_s);
    recovery_line(f, s);
    phase_table(f, s);
    if (s->has_pipeline) /* every request is a step's call */
        fprintf(f,
                "  %-22s%" PRIu64 " duplicate writes (steps' writes "
                "and batch items committed again)\n",
                "duplicates", s->duplicates);
    else
        fprintf(f,
                "  %-22s%" PRIu64 " duplicate writes (posts), %" PRIu64
                " repeated puts\n",
                "duplicates", s->duplicates, s->repeats);
    fprintf(f,
            "  %-22s%.1f s of service time (%.1f%% of all) spent on "
            "answers nobody used\n",
            "wasted work", s->wasted_work_s, 100.0 * s->wasted_work_share);
    if (c->server.workers == SIM_UNLIMITED)
        fprintf(f, "  %-22s%.1f attempts in service on average, max queue %u\n",
                "server", s->mean_busy_workers, s->max_queue);
    else
        fprintf(f,
                "  %-22sutilization %.1f%%, max queue %u, mean queue wait "
                "%.1f ms\n",
                "server", 100.0 * s->utilization, s->max_queue,
                s->mean_queue_wait_ms);
    if (s->expired || s->late)
        fprintf(f,
                "  %-22s%" PRIu64 " expired (the client had timed out), "
                "%" PRIu64 " late (could not finish in time)\n",
                "dropped from queue", s->expired, s->late);
    if (s->overflowed)
        fprintf(f,
                "  %-22s%" PRIu64 " attempts dropped silently "
                "(overflow = drop; each timed out at its client)\n",
                "queue full", s->overflowed);
    if (s->conflicts)
        fprintf(f, "  %-22s%" PRIu64 " updates lost to a concurrent update\n",
                metrics_fields[MF_conflicts].label, s->conflicts);
    if (s->has_completion)
        fprintf(f, "  %-22severy request ended by t=%.3f s\n", "completion",
                s->completion_time_s);
    if (s->in_flight)
        fprintf(f, "  %-22s%" PRIu64 " requests (%.1f%% of offered)\n",
                "unfinished at end", s->in_flight,
                pct(s->in_flight, s->offered));
    added_counts(f, s);
    if (s->has_pipeline)
        jobs_print(f, c, &s->pipeline);
}

void print_expectations(FILE *f, const expect_result *r, int n)
{
    if (n == 0)
        return;
    fprintf(f, "\nexpectations\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "  %s  %s: %s\n", r[i].ok ? "PASS" : "FAIL", r[i].name,
                r[i].explain);
}
