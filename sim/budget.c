/*
 * budget.c -- the cost of a run, from its configuration.  See budget.h
 * for what is estimated and why the limits are what they are.
 */
#include "budget.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "metrics.h"

uint32_t budget_attempts_cap(void)
{
    return DRIVER_MAX_ATTEMPTS;
}

/* A distribution's mean in seconds. */
static double mean_s(const dist *d)
{
    return units_dist_mean(d) / 1e9;
}

/* ---- Arrivals ------------------------------------------------------------
 *
 * Load spikes multiply the arrival rate while they last (overlapping ones
 * multiply each other), so the rate is constant between the configured
 * spikes' starts and ends: integrate it piece by piece.
 */

static double spike_at(const sim_config *c, double t)
{
    double m = 1.0;
    for (uint32_t i = 0; i < c->n_faults; i++) {
        const fault_cfg *f = &c->faults[i];
        double a = (double)f->start_ns / 1e9;
        if (f->type == FAULT_LOAD_SPIKE && t >= a &&
            t < a + (double)f->duration_ns / 1e9)
            m *= f->multiplier;
    }
    return m;
}

/* Requests per second offered at spike multiplier m (open and closed
 * loop; a closed-loop client waits its think time, divided by the
 * multiplier, and at least a round trip and a service per request). */
static double rate_at(const sim_config *c, double m)
{
    const client_cfg *cc = &c->clients;
    if (cc->arrival == ARRIVAL_OPEN)
        return (double)cc->count * cc->rate_per_s * m;
    double cycle = mean_s(&cc->think) / m + 2.0 * mean_s(&c->server.network) +
                   mean_s(&c->server.service);
    return (double)cc->count / fmax(cycle, 1e-9);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void arrivals_of_clients(const sim_config *c, double *requests,
                                double *peak);

/* Calls a pipeline's job makes at most: every step in every run, and
 * under compensate an undo for each; 1 without a pipeline (an arrival is
 * a request). */
static double calls_per_arrival(const sim_config *c)
{
    const pipeline_cfg *p = &c->pipeline;
    if (p->n_steps == 0)
        return 1.0;
    double per_run =
        (double)p->n_steps * (p->strategy == PIPELINE_COMPENSATE ? 2.0 : 1.0);
    return per_run * (1.0 + (double)p->reruns);
}

/* The requests the run offers, and its peak rate per second. */
static void arrivals(const sim_config *c, double *requests, double *peak)
{
    double k = calls_per_arrival(c);
    arrivals_of_clients(c, requests, peak);
    *requests *= k;
    *peak *= k;
}

/* The arrivals ([clients]): requests, or a pipeline's jobs. */
static void arrivals_of_clients(const sim_config *c, double *requests,
                                double *peak)
{
    const client_cfg *cc = &c->clients;
    double d = (double)c->duration_ns / 1e9;
    if (cc->arrival == ARRIVAL_ONCE) {
        *requests = (double)cc->count;
        *peak = cc->start_window_ns > 0
                    ? (double)cc->count / ((double)cc->start_window_ns / 1e9)
                    : INFINITY;
        return;
    }
    double t[2 * SIM_MAX_FAULTS + 2];
    int n = 0;
    t[n++] = 0.0;
    t[n++] = d;
    for (uint32_t i = 0; i < c->n_faults; i++) {
        const fault_cfg *f = &c->faults[i];
        if (f->type != FAULT_LOAD_SPIKE)
            continue;
        double a = (double)f->start_ns / 1e9;
        t[n++] = fmin(a, d);
        t[n++] = fmin(a + (double)f->duration_ns / 1e9, d);
    }
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    *requests = 0.0;
    *peak = 0.0;
    for (int i = 0; i + 1 < n; i++) {
        if (t[i + 1] <= t[i])
            continue;
        double r = rate_at(c, spike_at(c, (t[i] + t[i + 1]) / 2.0));
        *requests += r * (t[i + 1] - t[i]);
        *peak = fmax(*peak, r);
    }
}

/* ---- Memory --------------------------------------------------------------
 *
 * At the peak the engine holds: every client's counters, policy state and
 * pending arrival; the requests in flight -- at most the peak rate times
 * the longest a request can live: every attempt timing out (delays
 * between attempts not counted), or its deadline, or the run; one attempt
 * waiting per request in flight; and the attempts the server holds.  A
 * server with a queue limit holds at most its workers and its queue.
 * Without one, a server with finite workers falls behind by whatever the
 * attempts that reach it exceed its capacity (workers / mean service), for
 * the whole run: a metastable storm does exactly that, and every queued
 * attempt keeps its request in memory.  Only attempts whose client waits
 * out a timeout pile up that way (one answered quickly has left the queue;
 * one refused, rejected or rate limited never joined it), so a request
 * feeds the backlog with at most one attempt per timeout of its life,
 * however many attempts its policy allows.  Unlimited workers hold what
 * is in service (Little's law).  Overload degradation and slowdown faults,
 * which lower the capacity further, are not counted.
 */
static double server_held(const sim_config *c, double attempt_rate)
{
    const server_cfg *sc = &c->server;
    double service = mean_s(&sc->service);
    if (sc->workers == SIM_UNLIMITED)
        return attempt_rate * service;
    double workers = (double)sc->workers;
    if (sc->queue_limit != SIM_UNLIMITED)
        return workers + (double)sc->queue_limit;
    if (service <= 0)
        return workers;
    double excess = attempt_rate - workers / service;
    return workers + fmax(0.0, excess) * (double)c->duration_ns / 1e9;
}

static void memory(const sim_config *c, double peak, budget_cost *b)
{
    const client_cfg *cc = &c->clients;
    double timeout = (double)cc->timeout_ns / 1e9;
    double total_attempts = b->requests * b->attempts;
    double life = fmin((double)c->duration_ns / 1e9, b->attempts * timeout);
    if (cc->deadline_ns > 0)
        life = fmin(life, (double)cc->deadline_ns / 1e9);
    double in_flight = cc->arrival == ARRIVAL_CLOSED
                           ? (double)cc->count
                           : (isinf(peak) ? INFINITY : peak * life);
    in_flight = fmin(in_flight, b->requests);
    double waited = timeout > 0 ? fmin(b->attempts, fmax(1.0, life / timeout))
                                : b->attempts;
    double held = fmin(server_held(c, peak * waited), total_attempts);
    b->count[BUDGET_CLIENTS] = (double)cc->count;
    b->each[BUDGET_CLIENTS] = (double)(2 * sizeof(uint32_t) + 1 +
                                       sizeof(evq_event) + b->client_state);
    b->count[BUDGET_REQUESTS] = fmin(b->requests, in_flight + held);
    b->each[BUDGET_REQUESTS] = (double)(REQUEST_HEAD + b->request_state);
    b->count[BUDGET_ATTEMPTS] = fmin(total_attempts, in_flight + held);
    b->each[BUDGET_ATTEMPTS] =
        (double)(sizeof(attempt) + sizeof(evq_event) + sizeof(uint32_t));
    b->count[BUDGET_METRICS] =
        (double)metrics_plan(c->bucket_ns, c->duration_ns, METRICS_MAX_BUCKETS,
                             NULL) +
        1.0;
    b->each[BUDGET_METRICS] = (double)sizeof(metrics_bucket);
    b->bytes = (double)sizeof(metrics);
    for (int i = 0; i < BUDGET_PARTS; i++)
        b->bytes += b->count[i] * b->each[i];
}

void budget_estimate(const sim_config *c, size_t client_state,
                     size_t request_state, double max_attempts,
                     budget_cost *out)
{
    memset(out, 0, sizeof *out);
    out->client_state = client_state;
    out->request_state = request_state;
    out->attempts =
        fmin(fmax(max_attempts, 1.0), (double)budget_attempts_cap());
    double peak;
    arrivals(c, &out->requests, &peak);
    out->events = out->requests * out->attempts * BUDGET_EVENTS_PER_ATTEMPT;
    memory(c, peak, out);
}

/* ---- The verdict ------------------------------------------------------- */

/* x for a person: whole below 100 000, else one or two significant digits
 * and a power of ten ("42000", "6e16", "1.5e18"). */
static const char *sci(double x, char *buf, size_t len)
{
    if (!isfinite(x)) {
        snprintf(buf, len, "%s", "infinitely many");
        return buf;
    }
    if (x < 1e5) {
        snprintf(buf, len, "%.0f", x);
        return buf;
    }
    int e = (int)floor(log10(x));
    double m = round(x / pow(10.0, e) * 10.0) / 10.0;
    if (m >= 10.0) {
        m /= 10.0;
        e++;
    }
    if (m == floor(m))
        snprintf(buf, len, "%.0fe%d", m, e);
    else
        snprintf(buf, len, "%.1fe%d", m, e);
    return buf;
}

/* Bytes in GB: one decimal below 10 ("8", "8.6", "10", "123"). */
static const char *gb(double bytes, char *buf, size_t len)
{
    double v = bytes / 1e9;
    if (v < 10.0 && round(v * 10.0) != round(v) * 10.0)
        snprintf(buf, len, "%.1f", v);
    else
        snprintf(buf, len, "%.0f", v);
    return buf;
}

static int too_many_events(const sim_config *c, const budget_cost *b, sb_err *e)
{
    static const char *const lower[] = {
        [ARRIVAL_OPEN] = "[clients] rate or count, [scenario] duration or "
                         "the policy's attempts",
        [ARRIVAL_CLOSED] = "[clients] count, [scenario] duration or the "
                           "policy's attempts, or raise [clients] think",
        [ARRIVAL_ONCE] = "[clients] count or the policy's attempts"};
    char ev[32], rq[32], lim[32];
    return err_set(
        e,
        "this run would process about %s events (%s requests x "
        "up to %.0f attempts x ~%d events each); the limit is %s "
        "(about an hour of CPU); lower %s",
        sci(b->events, ev, sizeof ev), sci(b->requests, rq, sizeof rq),
        b->attempts, BUDGET_EVENTS_PER_ATTEMPT,
        sci(BUDGET_MAX_EVENTS, lim, sizeof lim), lower[c->clients.arrival]);
}

static int too_much_memory(const budget_cost *b, sb_err *e)
{
    static const char *const what[] = {
        [BUDGET_CLIENTS] = "clients",
        [BUDGET_REQUESTS] = "requests in memory",
        [BUDGET_ATTEMPTS] = ("attempts in memory (waiting for an answer or "
                             "held by the server)"),
        [BUDGET_METRICS] = "metrics rows"};
    static const char *const lower[] = {
        [BUDGET_CLIENTS] = "[clients] count or the policy's per-client state",
        [BUDGET_REQUESTS] = ("[clients] rate or count or the policy's "
                             "attempts, or set a [server] queue_limit"),
        [BUDGET_ATTEMPTS] = ("[clients] rate or count or the policy's "
                             "attempts, or set a [server] queue_limit"),
        [BUDGET_METRICS] = "[scenario] duration"};
    int top = 0;
    for (int i = 1; i < BUDGET_PARTS; i++)
        if (b->count[i] * b->each[i] > b->count[top] * b->each[top])
            top = i;
    char all[32], lim[32], n[32], state[64] = "";
    size_t own = top == BUDGET_CLIENTS    ? b->client_state
                 : top == BUDGET_REQUESTS ? b->request_state
                                          : 0;
    if (own > 0)
        snprintf(state, sizeof state, ", %zu B of it policy state", own);
    return err_set(e,
                   "this run could need about %s GB of memory at its peak, "
                   "most of it for %s %s x %.0f B each%s; the limit is %s "
                   "GB; lower %s",
                   gb(b->bytes, all, sizeof all),
                   sci(b->count[top], n, sizeof n), what[top], b->each[top],
                   state, gb(BUDGET_MAX_BYTES, lim, sizeof lim), lower[top]);
}

int budget_check(const sim_config *c, const budget_cost *b, sb_err *e)
{
    if (b->events > BUDGET_MAX_EVENTS)
        return too_many_events(c, b, e);
    if (b->bytes > BUDGET_MAX_BYTES)
        return too_much_memory(b, e);
    return 0;
}
