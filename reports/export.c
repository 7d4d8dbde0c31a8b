#include "export.h"

#include <inttypes.h>
#include <stdio.h>

#include "jobs.h"
#include "json.h"

/* A pipeline's counters of a row (sim/metrics.h): counts in the row,
 * appended after the columns every run has, so a run without a pipeline
 * writes the CSV it always wrote. */
static void pipeline_columns(FILE *f, const metrics_bucket *b)
{
    fprintf(f,
            ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
            ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
            b->job_runs, b->jobs_completed, b->job_runs_failed,
            b->items_committed, b->items_duplicated, b->items_quarantined,
            b->alerts_log, b->alerts_warning, b->alerts_critical);
}

/* A row's rates and time averages are over its own width: the bucket's,
 * or a merged row's (metrics.h), which the width_s column states. */
void export_csv(FILE *f, const metrics *m, bool pipeline)
{
    fputs("t_s,offered,attempts,successes,failures,timeouts,rejections,"
          "busy_workers,queue_len,wasted_work_s,duplicates,p50_ms,p99_ms,"
          "open_breakers,gave_up,deadline,refused,quarantined,errors,"
          "expired,lost_acks,max_queue,capacity,amplification,"
          "goodput_per_s,conflicts,late_dropped,sends_refused_locally,"
          "refused_budget,refused_breaker,refused_other,policy_level,"
          "width_s,attempt_p50_ms,attempt_p99_ms,queue_wait_ms,"
          "other_errors,overflow_dropped",
          f);
    if (pipeline)
        fputs(",job_runs,jobs_completed,job_runs_failed,items_committed,"
              "items_duplicated,items_quarantined,alerts_log,"
              "alerts_warning,alerts_critical",
              f);
    fputc('\n', f);
    for (size_t i = 0; i < m->n_buckets; i++) {
        const metrics_bucket *b = &m->buckets[i];
        double width = (double)b->width_ns;
        double amp =
            b->offered ? (double)b->attempts / (double)b->offered : 0.0;
        char level[32] = "";
        if (b->policy_level >= 0)
            snprintf(level, sizeof level, "%.4f", b->policy_level);
        fprintf(
            f,
            "%.9g,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
            ",%" PRIu64 ",%.3f,%.3f,%.6f,%" PRIu64 ",%.3f,%.3f,%" PRId64
            ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
            ",%" PRIu64 ",%" PRIu64 ",%u,%u,"
            "%.4f,%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
            ",%" PRIu64 ",%s,%.9g,%.3f,%.3f,%.3f,%" PRIu64 ",%" PRIu64,
            (double)b->start_ns / 1e9, b->offered, b->attempts, b->successes,
            b->failures, b->timeouts, b->rejections, b->busy_ns / width,
            b->queue_ns / width, (double)b->wasted_ns / 1e9, b->duplicates,
            metrics_bin_ms(b->p50_bin), metrics_bin_ms(b->p99_bin),
            b->open_breakers, b->gave_up, b->deadline, b->refused,
            b->quarantined, b->errors, b->expired, b->lost_acks, b->max_queue,
            b->capacity, amp, (double)b->successes / (width / 1e9),
            b->conflicts, b->late, b->refusals, b->refused_budget,
            b->refused_breaker, b->refused_other, level, width / 1e9,
            metrics_bin_ms(b->attempt_p50_bin),
            metrics_bin_ms(b->attempt_p99_bin),
            b->served ? (double)b->queue_wait_ns / (double)b->served / 1e6
                      : 0.0,
            b->other_errors, b->overflowed);
        if (pipeline)
            pipeline_columns(f, b);
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

static void failures(jw *w, const sim_summary *s)
{
    jw_object(w, "failures");
    jw_int(w, "total", (int64_t)s->failures);
    jw_int(w, "gave_up", (int64_t)s->gave_up);
    jw_int(w, "deadline", (int64_t)s->deadline);
    jw_int(w, "refused", (int64_t)s->refused);
    jw_object(w, "refused_by");
    jw_int(w, "budget", (int64_t)s->refused_budget);
    jw_int(w, "breaker", (int64_t)s->refused_breaker);
    jw_int(w, "other", (int64_t)s->refused_other);
    jw_end(w);
    jw_int(w, "quarantined", (int64_t)s->quarantined);
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
    jw_int(w, "rejections", (int64_t)s->rejections);
    jw_int(w, "injected_errors", (int64_t)s->errors);
    jw_int(w, "expired_dropped", (int64_t)s->expired);
    jw_int(w, "late_dropped", (int64_t)s->late);
    jw_int(w, "overflow_dropped", (int64_t)s->overflowed);
    jw_int(w, "lost_acks", (int64_t)s->lost_acks);
    jw_int(w, "conflicts", (int64_t)s->conflicts);
    jw_end(w);
}

/* Each phase's figures, under the names comparisons use; a phase the run
 * does not have is null, and so is a figure with no value (the success
 * ratio of a phase in which no request ended, say). */
static void phase_figures(jw *w, const sim_summary *s)
{
    jw_object(w, "phases");
    for (int k = 0; k < PHASE_COUNT; k++) {
        const sim_phase *p = &s->phase[k];
        if (!p->present) {
            jw_null(w, phases_name((phase_kind)k));
            continue;
        }
        jw_object(w, phases_name((phase_kind)k));
        jw_double(w, "from_s", p->from_s);
        jw_double(w, "to_s", p->to_s);
        jw_double(w, "offered_per_s", p->offered_per_s);
        jw_double(w, "goodput_per_s", p->goodput_per_s);
        jw_double(w, "success_ratio", p->success_ratio);
        jw_double(w, "amplification", p->amplification);
        jw_double(w, "p99_ms", p->p99_ms);
        jw_int(w, "duplicates", (int64_t)p->duplicates);
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
    jw_int(&w, "offered", (int64_t)s->offered);
    jw_int(&w, "attempts", (int64_t)s->attempts);
    jw_int(&w, "successes", (int64_t)s->successes);
    failures(&w, s);
    jw_int(&w, "in_flight_at_end", (int64_t)s->in_flight);
    jw_int(&w, "timeouts", (int64_t)s->timeouts);
    jw_int(&w, "other_errors", (int64_t)s->other_errors);
    jw_int(&w, "sends_refused_locally", (int64_t)s->refusals);
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
    jw_int(&w, "duplicates", (int64_t)s->duplicates);
    jw_int(&w, "repeated_puts", (int64_t)s->repeats);
    jw_double(&w, "wasted_work_s", s->wasted_work_s);
    jw_double(&w, "wasted_work_share", s->wasted_work_share);
    if (s->has_completion)
        jw_double(&w, "completion_time_s", s->completion_time_s);
    else
        jw_null(&w, "completion_time_s");
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
