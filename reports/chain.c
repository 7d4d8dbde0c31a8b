/*
 * chain.c -- a service chain's tiers in the run's outputs (chain.h).
 *
 * The CSV's per-tier columns are appended to the lines export_csv
 * writes (its contract: a header line, then one line per kept row),
 * rather than written by export_csv itself, so the single-server CSV is
 * produced by exactly the code that always produced it.  The tiers'
 * metrics are laid out like the top's (same bucket, same duration), so
 * row i of every tier covers the same span.
 */
#include "chain.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"

static void workers_text(uint32_t w, char *buf, size_t len)
{
    if (w == SIM_UNLIMITED)
        snprintf(buf, len, "unlimited");
    else
        snprintf(buf, len, "%u", w);
}

void chain_print(FILE *f, const sim *s)
{
    uint32_t n = sim_tiers(s);
    if (n == 0)
        return;
    fprintf(f, "  %-20s %9s %10s %10s %9s %11s %10s %11s\n", "tiers", "workers",
            "calls", "attempts", "per req.", "utilization", "max queue",
            "wasted work");
    for (uint32_t i = 0; i < n; i++) {
        sim_tier_summary t;
        sim_tier_summary_of(s, i, &t);
        char w[16], name[SIM_NAME_MAX + 8];
        workers_text(t.workers, w, sizeof w);
        /* A tier's name is under SIM_NAME_MAX (the loader's rule). */
        if (snprintf(name, sizeof name, "%s%s", t.name,
                     i == 0 ? " (top)" : "") >= (int)sizeof name)
            snprintf(name, sizeof name, "%.20s...", t.name);
        fprintf(f,
                "    %-18s %9s %10" PRIu64 " %10" PRIu64
                " %9.2f %10.1f%% %10u %9.1f s\n",
                name, w, t.calls, t.attempts, t.amplification,
                100.0 * t.utilization, t.max_queue, t.wasted_work_s);
    }
}

void chain_json(jw *w, const void *ctx)
{
    const sim *s = ctx;
    uint32_t n = sim_tiers(s);
    if (n == 0)
        return;
    jw_array(w, "tiers");
    for (uint32_t i = 0; i < n; i++) {
        sim_tier_summary t;
        sim_tier_summary_of(s, i, &t);
        jw_object(w, NULL);
        jw_string(w, "name", t.name);
        if (t.workers == SIM_UNLIMITED)
            jw_null(w, "workers");
        else
            jw_int(w, "workers", t.workers);
        jw_bool(w, "calls_down", t.calls_down);
        jw_int(w, "calls", (int64_t)t.calls);
        jw_int(w, "attempts", (int64_t)t.attempts);
        jw_double(w, "amplification", t.amplification);
        jw_int(w, "served", (int64_t)t.served);
        jw_int(w, "rejections", (int64_t)t.rejections);
        jw_int(w, "timeouts", (int64_t)t.timeouts);
        jw_int(w, "successes", (int64_t)t.successes);
        jw_int(w, "failures", (int64_t)t.failures);
        jw_double(w, "mean_busy_workers", t.mean_busy_workers);
        jw_double(w, "utilization", t.utilization);
        jw_int(w, "max_queue", t.max_queue);
        jw_double(w, "wasted_work_s", t.wasted_work_s);
        jw_double(w, "wasted_work_share", t.wasted_work_share);
        jw_end(w);
    }
    jw_end(w);
}

static const char *const columns[] = {
    "calls",         "attempts",  "amplification", "busy_workers",
    "queue_len",     "max_queue", "rejections",    "timeouts",
    "wasted_work_s", "successes", "failures",      "open_breakers"};
#define N_COLUMNS (sizeof columns / sizeof *columns)

static void header(FILE *f, const sim *s)
{
    for (uint32_t i = 0; i < sim_tiers(s); i++) {
        sim_tier_info t;
        sim_tier(s, i, &t);
        for (size_t c = 0; c < N_COLUMNS; c++)
            fprintf(f, ",%s.%s", t.name, columns[c]);
    }
}

/* Row `row` of every tier; attempts per request of the top's row. */
static void row_columns(FILE *f, const sim *s, size_t row)
{
    const metrics_bucket *top = &sim_metrics(s)->buckets[row];
    for (uint32_t i = 0; i < sim_tiers(s); i++) {
        sim_tier_info t;
        sim_tier(s, i, &t);
        if (row >= t.m->n_buckets) {
            for (size_t c = 0; c < N_COLUMNS; c++)
                fputc(',', f);
            continue;
        }
        const metrics_bucket *b = &t.m->buckets[row];
        double width = (double)b->width_ns;
        fprintf(f,
                ",%" PRIu64 ",%" PRIu64 ",%.4f,%.3f,%.3f,%u,%" PRIu64
                ",%" PRIu64 ",%.6f,%" PRIu64 ",%" PRIu64 ",%" PRId64,
                b->offered, b->attempts,
                top->offered ? (double)b->attempts / (double)top->offered : 0.0,
                b->busy_ns / width, b->queue_ns / width, b->max_queue,
                b->rejections, b->timeouts, (double)b->wasted_ns / 1e9,
                b->successes, b->failures, b->open_breakers);
    }
}

int chain_csv(FILE *f, const sim *s)
{
    bool pipeline = sim_config_of(s)->pipeline.n_steps > 0;
    if (sim_tiers(s) == 0) {
        export_csv(f, sim_metrics(s), pipeline);
        return 0;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (mem == NULL)
        return -1;
    export_csv(mem, sim_metrics(s), pipeline);
    if (fclose(mem) != 0) {
        free(text);
        return -1;
    }
    size_t line = 0;
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fwrite(p, 1, n, f);
        if (line == 0)
            header(f, s);
        else if (line - 1 < sim_metrics(s)->n_buckets)
            row_columns(f, s, line - 1);
        fputc('\n', f);
        line++;
        p += nl ? n + 1 : n;
    }
    free(text);
    return 0;
}

/* ---- [expect.NAME] ---------------------------------------------------- */

static const char *const expect_keys[TIER_EXPECT_KINDS] = {
    [TIER_EXPECT_AMPLIFICATION_MIN] = "amplification_min",
    [TIER_EXPECT_AMPLIFICATION_MAX] = "amplification_max",
    [TIER_EXPECT_UTILIZATION_MIN] = "utilization_min",
    [TIER_EXPECT_UTILIZATION_MAX] = "utilization_max"};

const char *chain_expect_key(int k)
{
    return k >= 0 && k < TIER_EXPECT_KINDS ? expect_keys[k] : "";
}

/* One assertion on tier t: its measured value against the limit. */
static void judge(const sim_tier_summary *t, int k, double limit,
                  expect_result *r)
{
    bool amp = k == TIER_EXPECT_AMPLIFICATION_MIN ||
               k == TIER_EXPECT_AMPLIFICATION_MAX;
    bool min =
        k == TIER_EXPECT_AMPLIFICATION_MIN || k == TIER_EXPECT_UTILIZATION_MIN;
    /* The nearest run-level kind: JSON writes the limit as a number. */
    r->kind = amp ? EXPECT_AMPLIFICATION_MAX : EXPECT_WASTED_MAX;
    r->unit = "";
    r->limit = limit;
    r->has_value = true;
    r->value = amp ? t->amplification : t->utilization;
    r->ok = min ? r->value >= limit : r->value <= limit;
    const char *verb =
        r->ok ? (min ? "meets" : "within") : (min ? "below" : "over");
    if (amp) {
        int d = expect_digits(r->value, limit, 4, false);
        snprintf(r->explain, sizeof r->explain,
                 "tier %.64s: %.*g attempts per request offered at the top "
                 "%s limit %.*g",
                 t->name, d, r->value, verb, d, limit);
    } else {
        int d = expect_digits(100 * r->value, 100 * limit, 2, true);
        snprintf(r->explain, sizeof r->explain,
                 "tier %.64s: utilization %.*f%% %s limit %.*f%%", t->name, d,
                 100 * r->value, verb, d, 100 * limit);
    }
}

int chain_expect_eval(const sim *s, expect_result *out,
                      char (*names)[SIM_NAME_MAX + 32])
{
    const sim_config *c = sim_config_of(s);
    int n = 0;
    for (uint32_t i = 0; i < sim_tiers(s); i++) {
        const tier_cfg *tc = &c->tiers[i];
        sim_tier_summary t;
        sim_tier_summary_of(s, i, &t);
        for (int k = 0; k < TIER_EXPECT_KINDS; k++) {
            if (!tc->has_expect[k])
                continue;
            /* A tier's name is under SIM_NAME_MAX (the loader's rule). */
            snprintf(names[n], SIM_NAME_MAX + 32, "%.*s.%s", SIM_NAME_MAX - 1,
                     tc->name, expect_keys[k]);
            out[n].name = names[n];
            judge(&t, k, tc->expect[k], &out[n]);
            n++;
        }
    }
    return n;
}
