/*
 * compare_report.c -- the comparison's report: reports/compare.h's
 * results laid out as a document (viz/report.h), written as a PDF and a
 * self-contained HTML file.
 *
 * Nothing here computes a statistic; it chooses what to show and says it
 * in words.  The chart pages are in compare_charts.c.
 *
 * Pages: a title page (the scenario, its faults, the policies with every
 * parameter, the seeds, the version and date); the results table with a
 * verdict per metric; the same figures per phase; the runs over time
 * (median across seeds with a 10-90 % band, faults shaded); each metric
 * as bars with 95 % intervals; latency distributions.  With one sweep,
 * every metric against the swept value; with two, a stability map per
 * policy.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compiler.h"
#include "compare.h"
#include "compare_charts.h"
#include "compare_report.h"
#include "policy_setup.h"
#include "pstack.h"
#include "report.h"
#include "units.h"

/* ---- Words and numbers ------------------------------------------------------ */

/* "[96.5, 96.6]" wraps before its bracket, not inside it: the space
 * after a comma inside brackets becomes a no-break space. */
static void keep_brackets(char *buf, size_t len)
{
    bool inside = false;
    for (char *c = buf; *c; c++) {
        inside = *c == '[' ? true : *c == ']' ? false : inside;
        if (inside && c[0] == ',' && c[1] == ' ' && strlen(buf) + 2 < len) {
            memmove(c + 3, c + 2, strlen(c + 2) + 1);
            memcpy(c + 1, "\xc2\xa0", 2);
        }
    }
}

/* A results cell as summary.md has it, and the policy's significance
 * group after it ("12.0 [10.4, 13.6] a"). */
static void cell_text(const compare_result *r, uint32_t point, int policy,
                      compare_metric m, char *buf, size_t len)
{
    compare_cell_text(r, point, policy, m, buf, len);
    keep_brackets(buf, len);
    const char *g = compare_verdict_of(r, point, m)->letters[policy];
    size_t used = strlen(buf);
    if (g[0] && used < len)
        snprintf(buf + used, len - used, "\xc2\xa0\xc2\xa0%s", g);
}

/* The run date: SOURCE_DATE_EPOCH when set (reproducible documents),
 * else today. */
static void report_date(char *buf, size_t len)
{
    const char *env = getenv("SOURCE_DATE_EPOCH");
    time_t t = env && *env ? (time_t)strtoll(env, NULL, 10) : time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%d", &tm);
}

/* A table of strings built cell by cell. */
/* A cell's room: a policy's every parameter (a breaker stack's run to
 * some 700 characters) fits. */
#define TABLE_CELL 1024

typedef struct table_buf {
    int cols, rows;
    char (*text)[TABLE_CELL];
    const char **cells;
    uint8_t *emph;
} table_buf;

static void table_free(table_buf *t)
{
    free(t->text);
    free(t->cells);
    free(t->emph);
}

/* On failure nothing is left allocated and d is failed (report_fail):
 * the report is not written without the table. */
static int table_init(report *d, table_buf *t, int cols, int rows)
{
    t->cols = cols;
    t->rows = rows;
    size_t n = (size_t)cols * (size_t)rows;
    t->text = calloc(n ? n : 1, sizeof *t->text);
    t->cells = calloc(n ? n : 1, sizeof *t->cells);
    t->emph = calloc(n ? n : 1, 1);
    if (t->text == NULL || t->cells == NULL || t->emph == NULL) {
        table_free(t);
        report_fail(d, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        t->cells[i] = t->text[i];
    return 0;
}

static char *table_cell(table_buf *t, int row, int col)
{
    return t->text[(size_t)row * (size_t)t->cols + (size_t)col];
}

static void sweep_tips(report *d, const compare_result *r);

/* ---- The title page ----------------------------------------------------------- */

/* Append to buf (a table cell) as printf does; never past len. */
static void cat(char *buf, size_t len, const char *fmt, ...) SB_PRINTF(3, 4);
static void cat(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

/* A server as the scenario set it: workers, service, queue, network,
 * and every option that is on ("64 workers, service const(2ms) (mean
 * 2ms), queue unlimited (FIFO), network const(1ms) each way"). */
static void server_text(const server_cfg *sv, bool posts, char *buf, size_t len)
{
    char a[96], b[32];
    buf[0] = '\0';
    if (sv->workers == SIM_UNLIMITED)
        cat(buf, len, "unlimited workers");
    else
        cat(buf, len, "%u worker%s", sv->workers, sv->workers == 1 ? "" : "s");
    units_fmt_dist(&sv->service, a, sizeof a);
    units_fmt_duration((int64_t)units_dist_mean(&sv->service), b, sizeof b);
    cat(buf, len, ", service %s", a);
    if (sv->service.kind != DIST_CONST && sv->service.kind != DIST_EXP)
        cat(buf, len, " (mean %s)", b);
    if (sv->queue_limit == SIM_UNLIMITED)
        cat(buf, len, ", queue unlimited");
    else
        cat(buf, len, ", queue of %u (when full: %s)", sv->queue_limit,
            sv->overflow == OVERFLOW_DROP ? "dropped silently" : "503");
    if (sv->overflow_retry_after_ns > 0)
        cat(buf, len, ", 503s say Retry-After %s",
            units_fmt_duration(sv->overflow_retry_after_ns, b, sizeof b));
    cat(buf, len, " (%s)",
        sv->queue_order == QUEUE_LIFO ? "newest first" : "oldest first");
    if (units_dist_mean(&sv->network) > 0)
        cat(buf, len, ", network %s each way",
            units_fmt_dist(&sv->network, a, sizeof a));
    else
        cat(buf, len, ", no network delay");
    if (sv->degradation > 0)
        cat(buf, len,
            ", service x (1 + %g per attempt in service past "
            "%u)",
            sv->degradation, sv->degradation_knee);
    if (sv->rate_limit_per_s > 0)
        cat(buf, len, ", rate limit %g/s (burst %u: 429)", sv->rate_limit_per_s,
            sv->rate_limit_burst);
    if (sv->drop_expired)
        cat(buf, len, ", skips attempts whose caller timed out");
    if (sv->drop_late)
        cat(buf, len, ", skips attempts that cannot finish in time");
    if (sv->idempotency && posts)
        cat(buf, len, ", dedupes posts with an idempotency key (%s)",
            sv->dedupe_answer == DEDUPE_CONFLICT ? "answered 409" : "replayed");
    if (sv->model == MODEL_HOT_RECORD) {
        cat(buf, len, "; hot record: optimistic updates of one record (OCC)");
        if (sv->occ == OCC_TWO_ROUND_TRIPS)
            cat(buf, len, " in two round trips, the read served with %s",
                units_fmt_dist(&sv->read_service, a, sizeof a));
        else
            cat(buf, len,
                " in one step (version read at service start, "
                "checked at its end)");
    }
}

/* The clients: how many, how they arrive, what they send. */
static void clients_text(const client_cfg *cl, char *buf, size_t len)
{
    char a[96];
    buf[0] = '\0';
    cat(buf, len, "%u in %u processes, ", cl->count,
        cl->processes ? cl->processes : cl->count);
    if (cl->arrival == ARRIVAL_OPEN)
        cat(buf, len,
            "open-loop arrivals, Poisson at %g/s each (%g/s in "
            "all)",
            cl->rate_per_s, cl->rate_per_s * cl->count);
    else if (cl->arrival == ARRIVAL_CLOSED)
        cat(buf, len, "closed-loop arrivals, think time %s",
            units_fmt_dist(&cl->think, a, sizeof a));
    else if (cl->start_window_ns > 0)
        cat(buf, len, "one-shot arrivals within %s",
            units_fmt_duration(cl->start_window_ns, a, sizeof a));
    else
        cat(buf, len, "one request each, all at time 0");
    cat(buf, len, "; reads %g %%, puts %g %%, posts %g %%", 100 * cl->mix[0],
        100 * cl->mix[1], 100 * cl->mix[2]);
    if (cl->deadline_ns > 0)
        cat(buf, len, "; deadline %s",
            units_fmt_duration(cl->deadline_ns, a, sizeof a));
    if (cl->idempotency_keys)
        cat(buf, len, "; posts carry idempotency keys");
    if (cl->defect_fraction > 0)
        cat(buf, len, "; %g %% with a data defect", 100 * cl->defect_fraction);
    if (cl->connections != SIM_UNLIMITED && cl->connections > 0)
        cat(buf, len, "; %u connections per process", cl->connections);
}

/* Fault NAME's start or duration as the title page shows it: its range
 * when a sweep sets it (key "fault.NAME.start" or ".duration"), else
 * its one value. */
static const char *fault_time(const compare_plan *p, const char *name,
                              const char *what, int64_t ns, char *buf, int len)
{
    char key[96];
    snprintf(key, sizeof key, "fault.%s.%s", name, what);
    for (int k = 0; k < p->n_axes; k++) {
        const compare_axis *ax = &p->axes[k];
        if (!ax->policy_param && strcmp(ax->key, key) == 0) {
            snprintf(buf, (size_t)len, "%g%s to %g%s (swept)", ax->from,
                     ax->unit, ax->to, ax->unit);
            return buf;
        }
    }
    return units_fmt_duration(ns, buf, len);
}

/* A fault as its title-page row says it: its name (unless it is its
 * type's), what it does, when and where ("black-hole outage: nothing
 * answers, clients time out; from 1m for 10s"; weather: "from 1m, then
 * every exp(20m), each for exp(300ms)"). */
static void fault_text(const compare_plan *p, const fault_cfg *f,
                       const tier_cfg *tiers, char *buf, size_t len)
{
    char a[96], b[96], what[256];
    buf[0] = '\0';
    if (strcmp(f->name, fault_type_name(f->type)) != 0)
        cat(buf, len, "%s, ", f->name);
    cat(buf, len, "%s", fault_words(f, FAULT_WORDS_LONG, what, sizeof what));
    cat(buf, len, "; from %s",
        fault_time(p, f->name, "start", f->start_ns, a, sizeof a));
    if (f->every.mean_ns > 0)
        cat(buf, len, ", then every %s, each",
            units_fmt_dist(&f->every, b, sizeof b));
    if (f->length.mean_ns > 0)
        cat(buf, len, " for %s", units_fmt_dist(&f->length, b, sizeof b));
    else
        cat(buf, len, " for %s",
            fault_time(p, f->name, "duration", f->duration_ns, b, sizeof b));
    if (tiers)
        cat(buf, len, ", at %s", tiers[f->tier].name);
}

/* Is key a fault's start or duration (which its fault row shows as the
 * range)? */
static bool fault_row_key(const sim_config *c, const char *key)
{
    for (uint32_t i = 0; i < c->n_faults; i++) {
        char k1[96], k2[96];
        snprintf(k1, sizeof k1, "fault.%s.start", c->faults[i].name);
        snprintf(k2, sizeof k2, "fault.%s.duration", c->faults[i].name);
        if (strcmp(key, k1) == 0 || strcmp(key, k2) == 0)
            return true;
    }
    return false;
}

/* The whole model: run, clients, server (and a chain's tiers with the
 * stacks of their calls), seeds, faults, and the swept keys' ranges. */
static void scenario_table(report *d, const compare_plan *p)
{
    const sim_config *c = &p->points[0].cfg;
    uint32_t below = c->n_tiers > 1 ? c->n_tiers - 1 : 0;
    bool posts = c->clients.mix[2] > 0;
    table_buf t;
    if (table_init(d, &t, 2,
                   6 + (int)c->n_faults + 2 * (int)below + p->n_axes) != 0)
        return;
    char a[64], b[64], w[64];
    int row = 0;
    snprintf(table_cell(&t, row, 0), 160, "run");
    snprintf(table_cell(&t, row++, 1), 160,
             "%s simulated, buckets of %s, "
             "warm-up %s",
             units_fmt_duration(c->duration_ns, a, sizeof a),
             units_fmt_duration(c->bucket_ns, b, sizeof b),
             units_fmt_duration(c->warmup_ns, w, sizeof w));
    snprintf(table_cell(&t, row, 0), 160, "clients");
    clients_text(&c->clients, table_cell(&t, row++, 1), TABLE_CELL);
    snprintf(table_cell(&t, row, 0), 160, "timeout");
    snprintf(table_cell(&t, row++, 1), 160, "%s per attempt",
             units_fmt_duration(c->clients.timeout_ns, a, sizeof a));
    snprintf(table_cell(&t, row, 0), 160, "server%s%s", c->n_tiers ? " " : "",
             c->n_tiers ? c->tiers[0].name : "");
    server_text(&c->server, posts, table_cell(&t, row++, 1), TABLE_CELL);
    for (uint32_t k = 0; k < below; k++) {
        const tier_cfg *up = &c->tiers[k];
        snprintf(table_cell(&t, row, 0), 160, "  calls to %s",
                 c->tiers[k + 1].name);
        snprintf(table_cell(&t, row++, 1), TABLE_CELL,
                 "by %s with %s%s "
                 "(its own [policy.%s]: the policies compared do not "
                 "replace it), attempt timeout %s%s",
                 up->name, up->policy[0] ? up->policy : "none",
                 up->n_settings ? "" : ", defaults", up->name,
                 units_fmt_duration(up->timeout_ns, a, sizeof a),
                 up->propagate_deadline ? ", deadline propagated" : "");
        char *cell = table_cell(&t, row - 1, 1);
        for (uint32_t i = 0; i < up->n_settings; i++)
            cat(cell, TABLE_CELL, "%s%s=%s", i ? ", " : "; ",
                up->settings[i].key, up->settings[i].value);
        snprintf(table_cell(&t, row, 0), 160, "server %s",
                 c->tiers[k + 1].name);
        server_text(&c->tiers[k + 1].server, posts, table_cell(&t, row++, 1),
                    TABLE_CELL);
    }
    snprintf(table_cell(&t, row, 0), 160, "seeds");
    snprintf(table_cell(&t, row++, 1), 160,
             "%u: %llu to %llu (every policy "
             "runs on each, with the same arrivals, service times and "
             "faults)",
             p->n_seeds, (unsigned long long)p->seed0,
             (unsigned long long)(p->seed0 + p->n_seeds - 1));
    /* One row a fault, the first labelled: a "faults" row of its own
     * with the faults indented below read as an empty value. */
    snprintf(table_cell(&t, row, 0), 160, "%s",
             c->n_faults == 1 ? "fault" : "faults");
    if (c->n_faults == 0)
        snprintf(table_cell(&t, row++, 1), 160, "none");
    for (uint32_t i = 0; i < c->n_faults; i++)
        fault_text(p, &c->faults[i], c->n_tiers ? c->tiers : NULL,
                   table_cell(&t, row++, 1), TABLE_CELL);
    /* Every other figure above is the first point's: a swept scenario
     * key says so, with its range, where the reader meets the model. */
    for (int k = 0; k < p->n_axes; k++) {
        const compare_axis *ax = &p->axes[k];
        if (ax->policy_param || fault_row_key(c, ax->key))
            continue;
        snprintf(table_cell(&t, row, 0), 160, "swept");
        snprintf(table_cell(&t, row++, 1), TABLE_CELL,
                 "%s from %g%s to %g%s (%u value%s; the rows above show "
                 "the first)",
                 ax->key, ax->from, ax->unit, ax->to, ax->unit, ax->n,
                 ax->n == 1 ? "" : "s");
    }
    static const char *const head[] = {"scenario", ""};
    report_table tb = {NULL, 2, row, head, t.cells, NULL, "ll"};
    report_table_add(d, &tb);
    table_free(&t);
}

/* Policy i's stack as it runs (the scenario's [policy] settings, the
 * entry's and --param applied): 0 when built, 1 when it does not build
 * here (a plug-in gone since), -1 when memory ran out (d is failed: a
 * table that leaves a policy's parameters out would be a wrong report,
 * not a shorter one). */
static int policy_stack(report *d, const compare_plan *p, int i,
                        policy_setup *ps)
{
    const compare_policy *cp = &p->policies[i];
    const char *plugins[COMPARE_MAX_PLUGINS];
    for (int k = 0; k < p->n_plugins; k++)
        plugins[k] = p->plugins[k];
    sb_err e;
    if (policy_setup_build(cp->stack, plugins, p->n_plugins, cp->params,
                           cp->n_params, ps, &e) == 0)
        return 0;
    if (strstr(e.msg, "out of memory")) {
        report_fail(d, "out of memory");
        return -1;
    }
    return 1;
}

/* Does a setting in list[0..n) name parameter k of layer l? */
static bool names_param(const pstack *st, const setting *list, int n, int l,
                        int k)
{
    for (int j = 0; j < n; j++) {
        int li, pi;
        if (pstack_param_index(st, &list[j], &li, &pi) == 0 && li == l &&
            pi == k)
            return true;
    }
    return false;
}

/* Every parameter layer l of a stack runs with, each once, as the
 * stack resolved them: "max_attempts=5, base=100ms (default), ...", a
 * swept one as its range.  Defaults are marked, for a default explains
 * a figure as often as a setting does (the breaker's 60 s cooldown, its
 * 56 s recovery). */
static void layer_text(const compare_plan *p, int i, const pstack *st, int l,
                       char *buf, size_t len)
{
    const compare_policy *cp = &p->policies[i];
    const compare_point *pt0 = &p->points[0];
    const sb_policy *layer = pstack_layer(st, l);
    size_t used = 0;
    snprintf(buf, len, "no parameters");
    for (int k = 0; layer->params && layer->params[k].name && used < len; k++) {
        const char *sep = k ? ", " : "";
        const char *name = layer->params[k].name;
        int swept = -1;
        for (int a = 0, s = 0; a < p->n_axes; a++)
            if (p->axes[a].policy_param) {
                if (s < pt0->n_policy_sets &&
                    names_param(st, &pt0->policy_sets[s], 1, l, k))
                    swept = a;
                s++;
            }
        if (swept >= 0) {
            const compare_axis *ax = &p->axes[swept];
            used += (size_t)snprintf(buf + used, len - used,
                                     "%s%s swept %g%s to %g%s", sep, name,
                                     ax->from, ax->unit, ax->to, ax->unit);
        } else {
            bool set = names_param(st, cp->params, cp->n_params, l, k);
            used += (size_t)snprintf(buf + used, len - used, "%s%s=%s%s", sep,
                                     name, pstack_param_text(st, l, k),
                                     set ? "" : " (default)");
        }
    }
}

static void policies_table(report *d, const compare_plan *p)
{
    /* Each stack built once, so the rows counted are the rows filled. */
    policy_setup ps[COMPARE_MAX_POLICIES];
    int built[COMPARE_MAX_POLICIES];
    int rows = 0, n = p->n_policies;
    for (int i = 0; i < n; i++) {
        built[i] = policy_stack(d, p, i, &ps[i]);
        if (built[i] < 0) {
            while (i-- > 0)
                if (built[i] == 0)
                    policy_setup_free(&ps[i]);
            return;
        }
        rows += built[i] == 0 ? pstack_layers(ps[i].stack) : 1;
    }
    table_buf t;
    if (table_init(d, &t, 3, rows) != 0)
        goto done;
    int row = 0;
    for (int i = 0; i < n; i++) {
        const compare_policy *cp = &p->policies[i];
        snprintf(table_cell(&t, row, 0), TABLE_CELL, "%s", cp->label);
        if (built[i] != 0) {
            /* What was set, as given. */
            char *c = table_cell(&t, row, 2);
            size_t used = 0;
            snprintf(table_cell(&t, row, 1), TABLE_CELL, "%s", cp->stack);
            for (int j = 0; j < cp->n_params && used < TABLE_CELL; j++)
                used += (size_t)snprintf(c + used, TABLE_CELL - used, "%s%s=%s",
                                         j ? ", " : "", cp->params[j].key,
                                         cp->params[j].value);
            row++;
            continue;
        }
        for (int l = 0; l < pstack_layers(ps[i].stack); l++, row++) {
            snprintf(table_cell(&t, row, 1), TABLE_CELL, "%s",
                     pstack_layer(ps[i].stack, l)->name);
            layer_text(p, i, ps[i].stack, l, table_cell(&t, row, 2),
                       TABLE_CELL);
        }
    }
    static const char *const head[] = {"policy", "layer", "parameters"};
    report_table tb = {"Every parameter each policy runs with; (default): "
                       "not set by the scenario, the entry or --param "
                       "(stormbench policies NAME says what each does).",
                       3,
                       rows,
                       head,
                       t.cells,
                       NULL,
                       "lll"};
    report_table_add(d, &tb);
    table_free(&t);
done:
    for (int i = 0; i < n; i++)
        if (built[i] == 0)
            policy_setup_free(&ps[i]);
}

static void title_page(report *d, const compare_result *r)
{
    const compare_plan *p = r->plan;
    char line[1400], date[32];
    snprintf(line, sizeof line, "%s: %d %s compared", p->name, p->n_policies,
             p->n_policies == 1 ? "policy" : "policies");
    report_heading(d, 1, line);
    if (p->description[0]) {
        compare_description_text(p, line, sizeof line);
        report_text(d, line);
    }
    if (p->n_points == 1) {
        compare_bottom b;
        compare_bottom_line(r, 0, &b);
        report_heading(d, 2, "Bottom line");
        report_text(d, b.text);
    }
    report_date(date, sizeof date);
    snprintf(line, sizeof line,
             "Scenario file %s. stormbench %s, %s. "
             "Every figure is a mean over the seeds with its 95 %% "
             "confidence interval (Student's t), unless it says otherwise.",
             p->scenario, SB_VERSION, date);
    report_text(d, line);
    scenario_table(d, p);
    policies_table(d, p);
    for (int a = 0; a < p->n_axes; a++) {
        const compare_axis *ax = &p->axes[a];
        snprintf(line, sizeof line,
                 "Swept: %s from %g%s to %g%s in steps "
                 "of %g%s (%u value%s)%s.",
                 strcmp(ax->key, "load") == 0
                     ? "load (offered requests as a share of the server's "
                       "capacity)"
                     : ax->key,
                 ax->from, ax->unit, ax->to, ax->unit, ax->step, ax->unit,
                 ax->n, ax->n == 1 ? "" : "s",
                 ax->policy_param ? ", given to every policy" : "");
        report_text(d, line);
    }
    if (p->n_axes == 1)
        sweep_tips(d, r);
}

/* ---- Results at one point ----------------------------------------------------- */

/* Is recovery judged in any run at point pt? */
static bool recovery_judged(const compare_result *r, uint32_t pt)
{
    for (int pol = 0; pol < r->plan->n_policies; pol++) {
        compare_tipping t;
        compare_tipping_of(r, pt, pol, &t);
        if (t.n > 0)
            return true;
    }
    return false;
}

/* Column c's metric, or -1 for the share that did not recover (the
 * column after recovery time). */
typedef struct column {
    int metric;
    char head[64];
} column;

static int columns_of(const compare_result *r, uint32_t pt,
                      const compare_metric *ms, int n, column *cols)
{
    int k = 0;
    for (int c = 0; c < n; c++) {
        const compare_metric_info *mi = &compare_metrics[ms[c]];
        double div;
        const char *unit = compare_shown_unit(r, pt, ms[c], &div);
        cols[k].metric = ms[c];
        snprintf(cols[k].head, sizeof cols[k].head, "%s%s%s%s", mi->name,
                 *unit ? " (" : "", unit, *unit ? ")" : "");
        k++;
        if (ms[c] == CM_RECOVERY_S && recovery_judged(r, pt)) {
            cols[k].metric = -1;
            snprintf(cols[k].head, sizeof cols[k].head,
                     "did not recover (seeds, %%)");
            k++;
        }
    }
    return k;
}

static void tipping_cell(const compare_result *r, uint32_t pt, int pol,
                         char *buf, size_t len, uint8_t *em)
{
    compare_tipping t;
    compare_tipping_of(r, pt, pol, &t);
    compare_tipping_text(&t, buf, len);
    keep_brackets(buf, len);
    size_t used = strlen(buf);
    if (t.n && used < len)
        snprintf(buf + used, len - used, ", %s", compare_tipping_call(&t));
    if (t.n == 0)
        *em = REPORT_MUTED;
}

/* One table of metrics ms[0..n) (a pipeline's jobs get a table of their
 * own: the run's nine and its five in one would not fit the page). */
static void metrics_table(report *d, const compare_result *r, uint32_t pt,
                          const compare_metric *ms, int n)
{
    const compare_plan *p = r->plan;
    column cols[CM_COUNT + 1];
    int nc = columns_of(r, pt, ms, n, cols);
    table_buf t;
    if (table_init(d, &t, nc + 1, p->n_policies) != 0)
        return;
    const char *head[CM_COUNT + 2];
    head[0] = "policy";
    for (int c = 0; c < nc; c++)
        head[c + 1] = cols[c].head;
    for (int i = 0; i < p->n_policies; i++) {
        snprintf(table_cell(&t, i, 0), 160, "%s", p->policies[i].label);
        for (int c = 0; c < nc; c++) {
            uint8_t *em = &t.emph[(size_t)i * (size_t)t.cols + (size_t)c + 1];
            char *cell = table_cell(&t, i, c + 1);
            if (cols[c].metric < 0) {
                tipping_cell(r, pt, i, cell, 160, em);
                continue;
            }
            compare_metric m = (compare_metric)cols[c].metric;
            cell_text(r, pt, i, m, cell, 160);
            const compare_verdict *v = compare_verdict_of(r, pt, m);
            const compare_stat *st = compare_stat_at(r, pt, i, m);
            if (st->ci.n == 0)
                *em = REPORT_MUTED;
            else if ((v->leaders & (1u << i)) && v->n_leaders < p->n_policies)
                *em = REPORT_BEST;
        }
    }
    char caption[900];
    snprintf(caption, sizeof caption,
             "Mean [95 %% confidence interval] over "
             "%u seed%s (Student's t, cut at 0 and at 100 %%); recovery time "
             "over the seeds that recovered. Did not recover: the seeds, "
             "and their share with its Wilson 95 %% interval; bistable when "
             "the interval holds 1/2 and the seeds split, too few seeds to "
             "tell when it holds 1/2 though they all agreed. Letters: "
             "policies that share one do "
             "not differ significantly (every pair tested, paired across "
             "the seeds, Holm-adjusted, p < 0.05). Bold: the best and any "
             "policy not significantly worse than it, when some policy is.",
             p->n_seeds, p->n_seeds == 1 ? "" : "s");
    report_table tb = {caption, nc + 1, p->n_policies, head,
                       t.cells, t.emph, NULL};
    report_table_add(d, &tb);
    table_free(&t);
}

/* Does any run at pt have a value of m, or fail it? */
static bool metric_has_values(const compare_result *r, uint32_t pt,
                              compare_metric m)
{
    for (int pol = 0; pol < r->plan->n_policies; pol++) {
        uint32_t failed, applies;
        compare_failures(r, pt, pol, m, &failed, &applies);
        if (compare_stat_at(r, pt, pol, m)->ci.n > 0 || failed > 0)
            return true;
    }
    return false;
}

/* The results tables: the run's metrics, then a pipeline's jobs; a
 * metric no run has a value of is left out of them and named under
 * them (its verdict says why). */
static void results_table(report *d, const compare_result *r, uint32_t pt)
{
    compare_metric run[CM_COUNT], jobs[CM_COUNT];
    int n_run = 0, n_jobs = 0;
    char left[400] = "";
    size_t used = 0;
    for (int m = 0; m < CM_COUNT; m++) {
        if (!compare_metric_shown(r->plan, (compare_metric)m))
            continue;
        if (!metric_has_values(r, pt, (compare_metric)m)) {
            if (used < sizeof left)
                used +=
                    (size_t)snprintf(left + used, sizeof left - used, "%s%s",
                                     used ? ", " : "", compare_metrics[m].name);
            continue;
        }
        if (m < CM_JOBS_COMPLETED || m >= CM_FIRST_ADDED)
            run[n_run++] = (compare_metric)m;
        else
            jobs[n_jobs++] = (compare_metric)m;
    }
    if (n_run)
        metrics_table(d, r, pt, run, n_run);
    if (n_jobs) {
        report_text(d, "The pipeline's jobs:");
        metrics_table(d, r, pt, jobs, n_jobs);
    }
    if (left[0]) {
        char text[500];
        snprintf(text, sizeof text,
                 "Not in the table, for no run has a "
                 "value: %s (the verdicts say why).",
                 left);
        report_text(d, text);
    }
}

static void verdicts(report *d, const compare_result *r, uint32_t pt,
                     bool heading)
{
    if (r->plan->n_policies < 2)
        return;
    if (heading)
        report_heading(d, 2, "Verdicts");
    else
        report_text(d, "Verdicts:");
    for (int m = 0; m < CM_COUNT; m++) {
        if (!compare_metric_shown(r->plan, (compare_metric)m))
            continue;
        char line[sizeof r->verdict[0].text + 64];
        snprintf(line, sizeof line, "%s: %s", compare_metrics[m].name,
                 r->verdict[(size_t)pt * CM_COUNT + (size_t)m].text);
        report_text(d, line);
    }
}

static void phase_tables(report *d, const compare_result *r, uint32_t pt)
{
    const compare_plan *p = r->plan;
    static const char *const phase_names[PHASE_COUNT] = {
        "before the first fault", "during the faults",
        "after the faults (recovering)", "steady state at the end"};
    const char *const *name = compare_phase_columns;
    report_heading(d, 2, "By phase");
    const compare_run *first =
        &r->runs[(size_t)pt * (size_t)p->n_policies * p->n_seeds];
    /* Without a fault in the run the one phase is the whole run after
     * the warm-up: the results above, not "before the first fault" (as
     * the run's own summary, reports/print.c). */
    if (!first->sum.phase[PHASE_DURING].present) {
        report_text(d, "One phase only: no fault falls in the run, so its "
                       "figures are the results above.");
        return;
    }
    for (int ph = 0; ph < PHASE_COUNT; ph++) {
        /* A phase the runs do not have (no fault) is left out. */
        if (!first->sum.phase[ph].present)
            continue;
        /* Each figure in the unit its largest mean reads in (a p99 of
         * "59.9" under "p99 (s)", not "59861" under "p99 (ms)"). */
        char heads[CP_COUNT][40];
        const char *head[CP_COUNT + 1] = {"policy"};
        double div[CP_COUNT];
        for (int f = 0; f < CP_COUNT; f++) {
            const char *unit =
                compare_phase_unit(r, pt, (compare_phase_kind)ph, f, &div[f]);
            snprintf(heads[f], sizeof heads[f], "%s%s%s%s", name[f],
                     unit[0] ? " (" : "", unit, unit[0] ? ")" : "");
            head[f + 1] = heads[f];
        }
        table_buf t;
        if (table_init(d, &t, CP_COUNT + 1, p->n_policies) != 0)
            return;
        bool fewer = false;
        for (int i = 0; i < p->n_policies; i++) {
            snprintf(table_cell(&t, i, 0), 160, "%s", p->policies[i].label);
            for (int f = 0; f < CP_COUNT; f++) {
                compare_stat shown;
                compare_stat_divided(
                    compare_phase_stat_at(r, pt, i, (compare_phase_kind)ph, f),
                    div[f], &shown);
                const compare_stat *st = &shown;
                char *cell = table_cell(&t, i, f + 1);
                compare_numbers n;
                compare_stat_numbers(st, &n);
                if (st->ci.n == 0) {
                    snprintf(cell, 160, "n/a");
                    t.emph[(size_t)i * (size_t)t.cols + (size_t)f + 1] =
                        REPORT_MUTED;
                } else if (n.lo[0]) {
                    snprintf(cell, 160, "%s [%s, %s]", n.mean, n.lo, n.hi);
                    keep_brackets(cell, 160);
                } else {
                    snprintf(cell, 160, "%s", n.mean);
                }
                if (st->ci.n > 0 && st->ci.n < p->n_seeds) {
                    size_t used = strlen(cell);
                    snprintf(cell + used, 160 - used, " (%zu seed%s)", st->ci.n,
                             st->ci.n == 1 ? "" : "s");
                    fewer = true;
                }
            }
        }
        char caption[400];
        snprintf(caption, sizeof caption,
                 "%s: %.0f s to %.0f s. Mean [95 %% "
                 "interval] over %u seed%s%s.",
                 phase_names[ph], first->sum.phase[ph].from_s,
                 first->sum.phase[ph].to_s, p->n_seeds,
                 p->n_seeds == 1 ? "" : "s",
                 fewer ? "; (k seeds): from the k seeds with a value only "
                         "(no request succeeded in the phase in the others: "
                         "no p99)"
                       : "");
        caption[0] = (char)(caption[0] - 'a' + 'A');
        report_table tb = {caption, CP_COUNT + 1, p->n_policies, head,
                           t.cells, t.emph,       NULL};
        report_table_add(d, &tb);
        table_free(&t);
    }
}

/* A service chain: per tier, its figures per policy, and whose policy
 * the comparison changed. */
static void tiers_table(report *d, const compare_result *r, uint32_t pt)
{
    const compare_plan *p = r->plan;
    if (r->n_tiers == 0)
        return;
    int rows = (int)r->n_tiers * TF_COUNT, cols = p->n_policies + 2;
    table_buf t;
    if (table_init(d, &t, cols, rows) != 0)
        return;
    const char *head[COMPARE_MAX_POLICIES + 2];
    head[0] = "tier";
    head[1] = "figure";
    for (int i = 0; i < p->n_policies; i++)
        head[i + 2] = p->policies[i].label;
    int row = 0;
    for (uint32_t k = 0; k < r->n_tiers; k++)
        for (int f = 0; f < TF_COUNT; f++, row++) {
            const compare_metric_info *fi = &compare_tier_figures[f];
            double div;
            const char *unit = compare_tier_unit(r, pt, k, f, &div);
            snprintf(table_cell(&t, row, 0), 160, "%s",
                     f ? "" : compare_tier_name(p, k));
            snprintf(table_cell(&t, row, 1), 160, "%s%s%s%s", fi->name,
                     unit[0] ? " (" : "", unit, unit[0] ? ")" : "");
            for (int i = 0; i < p->n_policies; i++) {
                compare_stat shown;
                compare_stat_divided(compare_tier_stat_at(r, pt, i, k, f), div,
                                     &shown);
                const compare_stat *st = &shown;
                char *cell = table_cell(&t, row, i + 2);
                compare_numbers n;
                compare_stat_numbers(st, &n);
                if (st->ci.n == 0) {
                    snprintf(cell, 160, "n/a");
                    t.emph[(size_t)row * (size_t)cols + (size_t)i + 2] =
                        REPORT_MUTED;
                } else if (n.lo[0]) {
                    snprintf(cell, 160, "%s [%s, %s]", n.mean, n.lo, n.hi);
                    keep_brackets(cell, 160);
                } else {
                    snprintf(cell, 160, "%s", n.mean);
                }
            }
        }
    char caption[700];
    snprintf(caption, sizeof caption,
             "What reached each tier, from the top "
             "down, per request the clients offered: mean [95 %% interval] "
             "over %u seed%s. A tier's calls to the next are retried by its "
             "own policy ([policy.NAME] in the scenario): the policies "
             "compared replace the clients' policy only. Peak: the largest "
             "of any bucket (a bucket's attempts can come from requests "
             "offered in the one before, so it can exceed the per-request "
             "product).",
             p->n_seeds, p->n_seeds == 1 ? "" : "s");
    char align[COMPARE_MAX_POLICIES + 3];
    memset(align, 'r', sizeof align);
    align[0] = align[1] = 'l';
    align[cols] = '\0';
    report_table tb = {caption, cols, rows, head, t.cells, t.emph, align};
    report_table_add(d, &tb);
    table_free(&t);
}

/* ---- A one-key sweep ------------------------------------------------------------ */

/* Where each policy tips along the sweep, in words, on the title page:
 * what a reader of a sweep came for. */
static void sweep_tips(report *d, const compare_result *r)
{
    const compare_plan *p = r->plan;
    report_heading(d, 2, "Where each policy tips");
    char line[2048];
    for (int i = 0; i < p->n_policies; i++) {
        compare_tips_text(r, i, line, sizeof line);
        report_text(d, line);
    }
    if (compare_tips_caveat(r, line, sizeof line))
        report_text(d, line);
}

/* The results table and the verdicts at each swept value. */
static void sweep_values(report *d, const compare_result *r)
{
    const compare_plan *p = r->plan;
    const compare_axis *ax = &p->axes[0];
    report_heading(d, 1, "At each value");
    for (uint32_t k = 0; k < p->n_points; k++) {
        char head[200];
        snprintf(head, sizeof head, "%s = %.10g%s", ax->key,
                 p->points[k].value[0], ax->unit);
        report_heading(d, 2, head);
        results_table(d, r, k);
        verdicts(d, r, k, false);
        tiers_table(d, r, k);
    }
}

/* ---- The document ------------------------------------------------------------------ */

int compare_report_write(const compare_result *r, const char *const *dirs,
                         int n_dirs, const char *pdf, const char *html,
                         sb_err *e)
{
    const compare_plan *p = r->plan;
    compare_bands b = {NULL, NULL, NULL};
    if (p->n_axes == 0 && compare_bands_load(&b, r, dirs, n_dirs, e) != 0) {
        free(b.lo);
        return -1;
    }
    char title[160];
    snprintf(title, sizeof title, "stormbench: %s, %d %s", p->name,
             p->n_policies, p->n_policies == 1 ? "policy" : "policies");
    report *d;
    if (report_open(&d, pdf, html, title, e) != 0) {
        free(b.lo);
        return -1;
    }
    title_page(d, r);
    if (p->n_axes == 0) {
        report_heading(d, 1, "Results");
        results_table(d, r, 0);
        verdicts(d, r, 0, true);
        if (r->n_tiers) {
            report_heading(d, 2, "Service tiers");
            tiers_table(d, r, 0);
        }
        phase_tables(d, r, 0);
        compare_charts_time(d, r, &b);
        compare_charts_bars(d, r, 0);
        compare_charts_tiers(d, r, 0);
        compare_charts_latency(d, r, 0);
    } else if (p->n_axes == 1) {
        compare_charts_sweep(d, r);
        sweep_values(d, r);
    } else {
        compare_charts_maps(d, r);
    }
    if (r->risk)
        compare_charts_risk(d, r);
    free(b.lo);
    return report_close(d, e);
}
