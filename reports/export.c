#include "export.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "jobs.h"
#include "json.h"

/* The CSV's columns, in the order it has always had: a count of the
 * table (sim/metrics.h) by its id MF_..., or a figure derived from the
 * row by its id MD_...; keys, formats and values come from there. */
typedef struct column {
    int field;   /* MF_..., or -1 */
    int derived; /* MD_..., when field is -1 */
} column;

#define COUNT(f)                                                               \
    {                                                                          \
        MF_##f, -1                                                             \
    }
#define DERIVED(d)                                                             \
    {                                                                          \
        -1, MD_##d                                                             \
    }
static const column columns[] = {
    DERIVED(t),           COUNT(offered),        COUNT(attempts),
    COUNT(successes),     COUNT(failures),       COUNT(timeouts),
    COUNT(rejections),    DERIVED(busy_workers), DERIVED(queue_len),
    DERIVED(wasted_work), COUNT(duplicates),     DERIVED(p50),
    DERIVED(p99),         COUNT(open_breakers),  COUNT(gave_up),
    COUNT(deadline),      COUNT(refused),        COUNT(quarantined),
    COUNT(errors),        COUNT(expired),        COUNT(lost_acks),
    COUNT(max_queue),     COUNT(capacity),       DERIVED(amplification),
    DERIVED(goodput),     COUNT(conflicts),      COUNT(late),
    COUNT(refusals),      COUNT(refused_budget), COUNT(refused_breaker),
    COUNT(refused_other), DERIVED(policy_level), DERIVED(width),
    DERIVED(attempt_p50), DERIVED(attempt_p99),  DERIVED(queue_wait),
    COUNT(other_errors),  COUNT(overflowed),
};

/* A pipeline's counters of a row: appended after the columns every run
 * has, so a run without a pipeline writes the CSV it always wrote. */
static const column pipeline_columns[] = {
    COUNT(job_runs),        COUNT(jobs_completed),   COUNT(job_runs_failed),
    COUNT(items_committed), COUNT(items_duplicated), COUNT(items_quarantined),
    COUNT(alerts_log),      COUNT(alerts_warning),   COUNT(alerts_critical),
};
#undef COUNT
#undef DERIVED
#define N_COLUMNS (sizeof columns / sizeof *columns)
#define N_PIPELINE_COLUMNS (sizeof pipeline_columns / sizeof *pipeline_columns)

static void derived_value(FILE *f, int id, const metrics_bucket *b)
{
    const metrics_derived_info *d = &metrics_derived_fields[id];
    double v = metrics_derived(b, id);
    if (d->blank && isnan(v))
        return;
    if (d->decimals < 0)
        fprintf(f, "%.9g", v);
    else
        fprintf(f, "%.*f", d->decimals, v);
}

static void header(FILE *f, const column *c, size_t n, const char *sep)
{
    for (size_t i = 0; i < n; i++, sep = ",")
        fprintf(f, "%s%s", sep,
                c[i].field >= 0 ? metrics_fields[c[i].field].csv
                                : metrics_derived_fields[c[i].derived].csv);
}

static void row(FILE *f, const column *c, size_t n, const metrics_bucket *b,
                const char *sep)
{
    for (size_t i = 0; i < n; i++, sep = ",") {
        fputs(sep, f);
        if (c[i].field >= 0)
            fprintf(f, "%" PRIu64, metrics_field_u64(b, c[i].field));
        else
            derived_value(f, c[i].derived, b);
    }
}

/* The table's metrics added since (metrics.h's METRICS_ADDED) with a CSV
 * column, in the table's order: after the columns every run had, before
 * a pipeline's (so a pipeline's line is any run's line with its columns
 * appended, as check_jobs' csv_pipeline_columns checks). */
static void added_header(FILE *f)
{
    for (int id = MF_FIRST_ADDED; id < MF_COUNT; id++)
        if (metrics_fields[id].csv[0])
            fprintf(f, ",%s", metrics_fields[id].csv);
}

static void added_row(FILE *f, const metrics_bucket *b)
{
    for (int id = MF_FIRST_ADDED; id < MF_COUNT; id++)
        if (metrics_fields[id].csv[0])
            fprintf(f, ",%" PRIu64, metrics_field_u64(b, id));
}

/* A row's rates and time averages are over its own width: the bucket's,
 * or a merged row's (metrics.h), which the width_s column states. */
void export_csv(FILE *f, const metrics *m, bool pipeline)
{
    header(f, columns, N_COLUMNS, "");
    added_header(f);
    if (pipeline)
        header(f, pipeline_columns, N_PIPELINE_COLUMNS, ",");
    fputc('\n', f);
    for (size_t i = 0; i < m->n_buckets; i++) {
        const metrics_bucket *b = &m->buckets[i];
        row(f, columns, N_COLUMNS, b, "");
        added_row(f, b);
        if (pipeline)
            row(f, pipeline_columns, N_PIPELINE_COLUMNS, b, ",");
        fputc('\n', f);
    }
}

static void params(jw *w, const pstack *ps)
{
    jw_object(w, "policy_params");
    for (int i = 0; i < pstack_layers(ps); i++) {
        const sb_policy *p = pstack_layer(ps, i);
        for (int j = 0; p->params && p->params[j].name; j++) {
            char key[128];
            if (pstack_layers(ps) > 1)
                snprintf(key, sizeof key, "%s.%s", p->name, p->params[j].name);
            else
                snprintf(key, sizeof key, "%s", p->params[j].name);
            /* Numbers as JSON numbers (durations in seconds, as the
             * policy sees them); choices and sets as written. */
            sb_value v = pstack_param_value(ps, i, j);
            switch (p->params[j].type) {
            case SB_PARAM_INT:
                jw_int(w, key, v.i);
                break;
            case SB_PARAM_REAL:
            case SB_PARAM_DURATION:
                jw_double(w, key, v.d);
                break;
            case SB_PARAM_BOOL:
                jw_bool(w, key, v.i != 0);
                break;
            default:
                jw_string(w, key, pstack_param_text(ps, i, j));
            }
        }
    }
    jw_end(w);
}

/* A count of the summary under its JSON key (sim/metrics.h's table). */
static void count(jw *w, const sim_summary *s, int id)
{
    jw_int(w, metrics_fields[id].json, (int64_t)summary_count(s, id));
}

static void failures(jw *w, const sim_summary *s)
{
    jw_object(w, "failures");
    count(w, s, MF_failures);
    count(w, s, MF_gave_up);
    count(w, s, MF_deadline);
    count(w, s, MF_refused);
    jw_object(w, "refused_by");
    count(w, s, MF_refused_budget);
    count(w, s, MF_refused_breaker);
    count(w, s, MF_refused_other);
    jw_end(w);
    count(w, s, MF_quarantined);
    jw_end(w);
}

static void recovery(jw *w, const sim_summary *s)
{
    if (s->recovery_judged && s->recovered)
        jw_double(w, "recovery_time_s", s->recovery_time_s);
    else
        jw_null(w, "recovery_time_s");
    if (s->recovery_judged)
        jw_bool(w, "metastable", s->metastable);
    else
        jw_null(w, "metastable");
}

static void server(jw *w, const sim_summary *s)
{
    jw_object(w, "server");
    jw_double(w, "utilization", s->utilization);
    jw_double(w, "mean_busy_workers", s->mean_busy_workers);
    jw_int(w, "max_queue", s->max_queue);
    jw_double(w, "mean_queue_len", s->mean_queue_len);
    jw_double(w, "mean_queue_wait_ms", s->mean_queue_wait_ms);
    count(w, s, MF_rejections);
    count(w, s, MF_errors);
    count(w, s, MF_expired);
    count(w, s, MF_late);
    count(w, s, MF_overflowed);
    count(w, s, MF_lost_acks);
    count(w, s, MF_conflicts);
    jw_end(w);
}

/* A phase figure under its key: a count (unit "") as an integer. */
static void phase_figure(jw *w, const char *key, const char *unit, double v)
{
    if (key[0] == '\0')
        return;
    if (unit[0] == '\0')
        jw_int(w, key, (int64_t)v);
    else
        jw_double(w, key, v);
}

/* Each phase's span and figures (sim/phases.h's PHASES_FIGURES, under
 * their json keys); a phase the run does not have is null, and so is a
 * figure with no value (the success ratio of a phase in which no request
 * ended, say). */
static void phase_figures(jw *w, const sim_summary *s)
{
    jw_object(w, "phases");
    for (int k = 0; k < PHASE_COUNT; k++) {
        const sim_phase *ph = &s->phase[k];
        if (!ph->present) {
            jw_null(w, phases_name((phase_kind)k));
            continue;
        }
        jw_object(w, phases_name((phase_kind)k));
        jw_double(w, "from_s", ph->from_s);
        jw_double(w, "to_s", ph->to_s);
#define PHASE_JSON(id, key, label, column, unit, better, json, print, scale,   \
                   value)                                                      \
    phase_figure(w, json, unit, (value));
        PHASES_FIGURES(PHASE_JSON)
#undef PHASE_JSON
        jw_end(w);
    }
    jw_end(w);
}

static void expectations(jw *w, const expect_result *res, int n)
{
    jw_array(w, "expectations");
    for (int i = 0; i < n; i++) {
        const expect_result *r = &res[i];
        jw_object(w, NULL);
        jw_string(w, "name", r->name);
        if (r->kind == EXPECT_METASTABLE)
            jw_bool(w, "limit", r->limit != 0);
        else
            jw_double(w, "limit", r->limit);
        if (!r->has_value)
            jw_null(w, "value");
        else if (r->kind == EXPECT_METASTABLE)
            jw_bool(w, "value", r->value != 0);
        else
            jw_double(w, "value", r->value);
        jw_string(w, "unit", r->unit);
        jw_bool(w, "ok", r->ok);
        jw_string(w, "explanation", r->explain);
        jw_end(w);
    }
    jw_end(w);
}

void export_json(FILE *f, const run_meta *meta, const sim_summary *s,
                 const expect_result *res, int n_res)
{
    jw w;
    jw_init(&w, f, true);
    jw_object(&w, NULL);
    jw_string(&w, "scenario", meta->scenario);
    jw_string(&w, "file", meta->file);
    jw_string(&w, "policy", meta->policy);
    if (meta->stack)
        params(&w, meta->stack);
    jw_uint(&w, "seed", meta->seed);
    jw_int(&w, "clients", meta->clients);
    jw_int(&w, "processes", s->processes);
    jw_double(&w, "duration_s", s->duration_s);
    count(&w, s, MF_offered);
    count(&w, s, MF_attempts);
    count(&w, s, MF_successes);
    failures(&w, s);
    jw_int(&w, "in_flight_at_end", (int64_t)s->in_flight);
    count(&w, s, MF_timeouts);
    count(&w, s, MF_other_errors);
    count(&w, s, MF_refusals);
    jw_double(&w, "amplification", s->amplification);
    jw_double(&w, "peak_amplification", s->peak_amplification);
    jw_double(&w, "peak_amplification_at_s", s->peak_amplification_at_s);
    jw_double(&w, "success_ratio", s->success_ratio);
    jw_double(&w, "success_ratio_finished", s->success_ratio_finished);
    if (s->has_baseline)
        jw_double(&w, "goodput_baseline_per_s", s->baseline_goodput_per_s);
    else
        jw_null(&w, "goodput_baseline_per_s");
    recovery(&w, s);
    jw_object(&w, "latency_ms");
    jw_double(&w, "mean", s->latency_mean_ms);
    jw_double(&w, "p50", s->latency_p50_ms);
    jw_double(&w, "p99", s->latency_p99_ms);
    jw_double(&w, "p999", s->latency_p999_ms);
    jw_end(&w);
    jw_object(&w, "attempt_latency_ms");
    jw_double(&w, "mean", s->attempt_mean_ms);
    jw_double(&w, "p50", s->attempt_p50_ms);
    jw_double(&w, "p99", s->attempt_p99_ms);
    jw_double(&w, "p999", s->attempt_p999_ms);
    jw_end(&w);
    count(&w, s, MF_duplicates);
    count(&w, s, MF_repeats);
    jw_double(&w, "wasted_work_s", s->wasted_work_s);
    jw_double(&w, "wasted_work_share", s->wasted_work_share);
    if (s->has_completion)
        jw_double(&w, "completion_time_s", s->completion_time_s);
    else
        jw_null(&w, "completion_time_s");
    /* The table's counts added since (metrics.h's METRICS_ADDED). */
    for (int id = MF_FIRST_ADDED; id < MF_COUNT; id++)
        if (metrics_fields[id].in_summary && metrics_fields[id].json[0])
            count(&w, s, id);
            /* The run's derived figures (summary.h's SUMMARY_DERIVED). */
#define DERIVED_JSON(name, unit, json, decimals, label, value)                 \
    jw_double(&w, json, summary_derived(s, SD_##name));
    SUMMARY_DERIVED(DERIVED_JSON)
#undef DERIVED_JSON
    phase_figures(&w, s);
    server(&w, s);
    if (s->has_pipeline)
        jobs_json(&w, &s->pipeline);
    jw_int(&w, "events", (int64_t)s->events);
    if (meta->timing) {
        jw_fixed(&w, "wall_s", meta->wall_s, 3);
        jw_double(&w, "events_per_s",
                  meta->wall_s > 0 ? (double)s->events / meta->wall_s : 0.0);
    } else {
        jw_null(&w, "wall_s");
        jw_null(&w, "events_per_s");
    }
    expectations(&w, res, n_res);
    if (meta->more)
        meta->more(&w, meta->more_ctx);
    jw_end(&w);
}
