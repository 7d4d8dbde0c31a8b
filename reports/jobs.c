/*
 * jobs.c -- a pipeline's jobs in the run's outputs (jobs.h).
 *
 * The printed block follows the summary's layout (a 22-column label,
 * then the figures with their units) and the tiers table's (chain.c) for
 * the steps.  Outcomes a strategy cannot produce (partial outside
 * continue, compensated and inconsistent outside compensate) are left
 * out of the print when they are zero, since a line of zeros that could
 * never be anything else only makes the block longer; the JSON has every
 * figure always, so a tool never has to guess at a missing key.
 */
#include "jobs.h"

#include <inttypes.h>

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

uint64_t jobs_failed_all(const sim_pipeline_summary *p)
{
    return p->failed + p->compensated + p->inconsistent;
}

/* "    compensated         3 (6.0%)" */
static void outcome(FILE *f, const char *what, uint64_t n, uint64_t jobs)
{
    fprintf(f, "    %-20s%" PRIu64 " (%.1f%%)\n", what, n, pct(n, jobs));
}

static void job_outcomes(FILE *f, const sim_config *c,
                         const sim_pipeline_summary *p)
{
    fprintf(f, "  %-22s%" PRIu64 "\n", "jobs started", p->jobs);
    fprintf(f, "    %-20s%" PRIu64 " (%.1f%%)", "completed", p->completed,
            pct(p->completed, p->jobs));
    if (c->pipeline.sla_ns > 0)
        fprintf(f, ", %" PRIu64 " within the SLA (%.1f%%)", p->within_sla,
                pct(p->within_sla, p->jobs));
    fputc('\n', f);
    if (p->strategy == PIPELINE_CONTINUE || p->partial)
        outcome(f, "partial", p->partial, p->jobs);
    outcome(f, "failed", p->failed, p->jobs);
    if (p->strategy == PIPELINE_COMPENSATE || p->compensated ||
        p->inconsistent) {
        outcome(f, "compensated", p->compensated, p->jobs);
        outcome(f, "inconsistent", p->inconsistent, p->jobs);
    }
    outcome(f, "unfinished", p->unfinished, p->jobs);
}

static void step_table(FILE *f, const sim_pipeline_summary *p)
{
    fprintf(f, "  %-20s %9s %9s %9s %9s %9s %9s %9s %11s\n", "steps", "calls",
            "attempts", "succeeded", "failed", "skipped", "redone", "undone",
            "undo failed");
    for (uint32_t i = 0; i < p->steps && i < SIM_MAX_STEPS; i++) {
        const sim_step_summary *st = &p->step[i];
        fprintf(f,
                "    %-18.18s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64
                " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %11" PRIu64 "\n",
                st->name ? st->name : "?", st->calls, st->attempts,
                st->succeeded, st->failed, st->skipped, st->redone, st->undone,
                st->undo_failed);
    }
}

/* A job time in the unit that reads best: a nightly job's hours summed
 * over hundreds of jobs are "39.4 h", not "141707.2 s"; a short one
 * keeps its milliseconds ("0.135 s"). */
static const char *span(double s, char *buf, size_t len)
{
    if (s < 10.0)
        snprintf(buf, len, "%.3f s", s);
    else if (s < 120.0)
        snprintf(buf, len, "%.1f s", s);
    else if (s < 7200.0)
        snprintf(buf, len, "%.1f min", s / 60.0);
    else
        snprintf(buf, len, "%.1f h", s / 3600.0);
    return buf;
}

/* Totals over the jobs, and the mean per job started. */
static void job_time(FILE *f, const sim_pipeline_summary *p)
{
    char w[32], b[32], x[32];
    fprintf(f, "  %-22sworking %s, blocked %s, failed %s (all jobs)\n",
            "job time", span(p->working_s, w, sizeof w),
            span(p->blocked_s, b, sizeof b), span(p->failed_s, x, sizeof x));
    if (p->jobs == 0)
        return;
    double n = (double)p->jobs;
    fprintf(f, "    %-20sworking %s, blocked %s, failed %s\n", "per job (mean)",
            span(p->working_s / n, w, sizeof w),
            span(p->blocked_s / n, b, sizeof b),
            span(p->failed_s / n, x, sizeof x));
}

void jobs_print(FILE *f, const sim_config *c, const sim_pipeline_summary *p)
{
    fprintf(f, "  %-22s%u step%s, strategy %s, %s checkpoints\n", "pipeline",
            p->steps, p->steps == 1 ? "" : "s",
            pipeline_strategy_name(p->strategy),
            p->checkpoints ? "with" : "without");
    job_outcomes(f, c, p);
    fprintf(f, "  %-22s%" PRIu64 " (%" PRIu64 " reruns)\n", "job runs", p->runs,
            p->reruns);
    step_table(f, p);
    fprintf(f,
            "  %-22s%" PRIu64 " committed, %" PRIu64 " duplicated, %" PRIu64
            " quarantined\n",
            "batch items", p->items_committed, p->items_duplicated,
            p->items_quarantined);
    fprintf(f,
            "  %-22s%" PRIu64 " at the end (items and calls "
            "quarantined)\n",
            "dead-letter queue", p->dead_letters);
    fprintf(f,
            "  %-22s%" PRIu64 " step retries, %" PRIu64 " late (after "
            "the job's deadline)\n",
            "retries", p->retries, p->late_retries);
    job_time(f, p);
    fprintf(f,
            "  %-22s%" PRIu64 " logged, %" PRIu64 " warning, %" PRIu64
            " critical\n",
            "alerts", p->alerts_log, p->alerts_warning, p->alerts_critical);
}

static void step_json(jw *w, const sim_step_summary *st)
{
    jw_object(w, NULL);
    jw_string(w, "name", st->name);
    jw_int(w, "calls", (int64_t)st->calls);
    jw_int(w, "attempts", (int64_t)st->attempts);
    jw_int(w, "succeeded", (int64_t)st->succeeded);
    jw_int(w, "failed", (int64_t)st->failed);
    jw_int(w, "skipped", (int64_t)st->skipped);
    jw_int(w, "redone", (int64_t)st->redone);
    jw_int(w, "undone", (int64_t)st->undone);
    jw_int(w, "undo_failed", (int64_t)st->undo_failed);
    jw_end(w);
}

void jobs_json(jw *w, const sim_pipeline_summary *p)
{
    jw_object(w, "pipeline");
    jw_string(w, "strategy", pipeline_strategy_name(p->strategy));
    jw_bool(w, "checkpoints", p->checkpoints);
    jw_int(w, "jobs", (int64_t)p->jobs);
    jw_int(w, "completed", (int64_t)p->completed);
    jw_int(w, "within_sla", (int64_t)p->within_sla);
    jw_int(w, "partial", (int64_t)p->partial);
    jw_int(w, "failed", (int64_t)p->failed);
    jw_int(w, "compensated", (int64_t)p->compensated);
    jw_int(w, "inconsistent", (int64_t)p->inconsistent);
    jw_int(w, "unfinished", (int64_t)p->unfinished);
    jw_int(w, "runs", (int64_t)p->runs);
    jw_int(w, "reruns", (int64_t)p->reruns);
    jw_int(w, "retries", (int64_t)p->retries);
    jw_int(w, "late_retries", (int64_t)p->late_retries);
    jw_int(w, "items_committed", (int64_t)p->items_committed);
    jw_int(w, "items_duplicated", (int64_t)p->items_duplicated);
    jw_int(w, "items_quarantined", (int64_t)p->items_quarantined);
    jw_int(w, "dead_letters", (int64_t)p->dead_letters);
    jw_int(w, "alerts_log", (int64_t)p->alerts_log);
    jw_int(w, "alerts_warning", (int64_t)p->alerts_warning);
    jw_int(w, "alerts_critical", (int64_t)p->alerts_critical);
    jw_double(w, "working_s", p->working_s);
    jw_double(w, "blocked_s", p->blocked_s);
    jw_double(w, "failed_s", p->failed_s);
    jw_array(w, "steps");
    for (uint32_t i = 0; i < p->steps && i < SIM_MAX_STEPS; i++)
        step_json(w, &p->step[i]);
    jw_end(w);
    jw_end(w);
}
