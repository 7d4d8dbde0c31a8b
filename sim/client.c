/*
 * client.c -- the top-level clients (client.h): arrivals, the attributes
 * a request starts with, modes, the policy's charted level, and what
 * faults change about the clients.  Their requests are run by the
 * request lifecycle (request.c), as requester 0.
 */
#include "client.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "pipeline.h"
#include "timeline.h"

/* ---- Requests: what they start with -------------------------------------- */

/* What a request may have besides its op, by the run's settings: a
 * deadline, a defect, a critical flag, an idempotency key, a trace (its
 * policy state is zeroed by request_new).  Out of line: a run whose
 * requests have none of them tests one flag (no_request_extras) instead
 * of six settings at every request. */
SB_NOINLINE static void start_extras(sim *s, request *r, uint64_t key,
                                     uint32_t k)
{
    const client_cfg *cc = &s->cfg->clients;
    r->deadline =
        cc->deadline_ns ? simtime_add(s->now, cc->deadline_ns) : NO_DEADLINE;
    /* A coin whose fraction is 0 is not tossed: no u in [0, 1) is below
     * it, and the streams are counters, so no other draw moves (two of
     * the three coins of a storm's request). */
    if (cc->defect_fraction > 0.0 &&
        rng_unit(rng_at(key, (uint64_t)k * 8 + 1)) < cc->defect_fraction)
        r->defect = rng_unit(rng_at(key, (uint64_t)k * 8 + 2)) < 0.5
                        ? SB_DEFECT_INVALID_SCHEMA
                        : SB_DEFECT_MISSING_FIELD;
    if (cc->critical_fraction > 0.0 &&
        rng_unit(rng_at(key, (uint64_t)k * 8 + 3)) < cc->critical_fraction)
        r->flags |= RQ_CRITICAL;
    if (r->op == SB_OP_POST && cc->idempotency_keys)
        r->flags |= RQ_KEYED;
    if (s->cfg->trace_sample > 0 && s->cl.offered % s->cfg->trace_sample == 0)
        r->flags |= RQ_TRACED;
}

/* Request k of client c starts: its op drawn from (seed, c, RNG_ATTR,
 * 8k), its extras, then the lifecycle's start. */
static void start_request(sim *s, uint32_t c, uint32_t k)
{
    uint32_t ri;
    request *r = request_take(&s->rqs, &s->rqs.rq[0], c, s->now, &ri);
    if (r == NULL) {
        engine_fail(s, "out of memory for requests");
        return;
    }
    const client_cfg *cc = &s->cfg->clients;
    r->index = k;
    uint64_t key = rng_key(s->seed, c, RNG_ATTR);
    double u = rng_unit(rng_at(key, (uint64_t)k * 8));
    r->op = u < cc->mix[0]                ? SB_OP_READ
            : u < cc->mix[0] + cc->mix[1] ? SB_OP_PUT
                                          : SB_OP_POST;
    if (!s->cl.no_request_extras)
        start_extras(s, r, key, k);
    s->cl.offered++;
    request_start_client(s, ri, r);
}

/* How a request ended, in words, by sb_outcome: a table, not a switch
 * (it runs once a request). */
static const char *outcome_words(sb_outcome o)
{
    static const char *const words[] = {
        [SB_OUTCOME_SUCCESS] = "succeeded",
        [SB_OUTCOME_GAVE_UP] = "gave up",
        [SB_OUTCOME_DEADLINE] = "failed its deadline",
        [SB_OUTCOME_REFUSED] = "was refused locally",
        [SB_OUTCOME_QUARANTINED] = "was quarantined",
    };
    return o < sizeof words / sizeof words[0] ? words[o] : "gave up";
}

void client_request_ended(requester *rq, uint32_t ri, request *r, sb_outcome o,
                          const char *reason)
{
    (void)ri;
    sim *s = rq->s;
    engine_log_end(s, outcome_words(o), reason);
    if (s->cfg->clients.arrival == ARRIVAL_CLOSED)
        client_schedule_arrival(s, r->client);
    engine_log_finish(s);
}

void client_work_ended(sim *s, uint32_t c, sim_client_mode shown)
{
    clients_show(&s->cl, c, shown);
    engine_log_finish(s);
    if (s->cfg->clients.arrival == ARRIVAL_CLOSED)
        client_schedule_arrival(s, c);
}

/* ---- Arrivals ------------------------------------------------------------ */

/* The gap before request k of client c under a rate profile: the
 * exponential draw is a mass of the cumulative rate Lambda (expected
 * arrivals), and the arrival comes when Lambda has grown by it --
 * inverting Lambda, the time change that makes a unit-rate Poisson
 * process one of rate lambda(t) (Cinlar 1975, 4.7).  Thinning would also
 * do, but it takes a varying number of draws per arrival, so request k's
 * instant would not be the same draw under every spike.  A constant
 * profile gives the open loop's gaps (Lambda is linear), rounded
 * differently. */
static int64_t profile_gap(const sim *s, uint32_t c, uint32_t k)
{
    const rate_profile *p = s->cfg->clients.profile;
    uint64_t x = rng_at(rng_key(s->seed, c, RNG_ARRIVAL), k);
    double m = profile_mass(p, s->now) +
               rng_exponential(x, s->cl.mass_scale / s->cl.spike);
    int64_t t = profile_time_at(p, m);
    return t >= SIMTIME_END ? SIMTIME_END : t > s->now ? t - s->now : 0;
}

/* The gap before client c's request k of a trace: to its recorded
 * instant; none after its last. */
static int64_t trace_gap(const sim *s, uint32_t c, uint32_t k)
{
    const clients *cl = &s->cl;
    uint32_t i = cl->trace_first[c] + k;
    if (i >= cl->trace_first[c + 1])
        return SIMTIME_END;
    return cl->trace_at[i] > s->now ? cl->trace_at[i] - s->now : 0;
}

/* The gap before request k of client c when arrivals are not an open
 * loop's at a constant rate. */
SB_NOINLINE static int64_t arrival_gap_other(const sim *s, uint32_t c,
                                             uint32_t k)
{
    const client_cfg *cc = &s->cfg->clients;
    if (cc->arrival == ARRIVAL_OPEN)
        return profile_gap(s, c, k);
    if (cc->arrival == ARRIVAL_TRACE)
        return trace_gap(s, c, k);
    if (cc->arrival == ARRIVAL_ONCE)
        return (int64_t)(rng_unit(rng_at(rng_key(s->seed, c, RNG_ARRIVAL), 0)) *
                         (double)cc->start_window_ns);
    return round_ns((double)engine_sample(s, &cc->think, c, RNG_ARRIVAL, k) /
                    s->cl.spike);
}

/* Inline in the arrival handler, an open loop's gap: out of line, the
 * call (its frame, and the handler's registers saved around it) cost
 * more than the draw. */
SB_ALWAYS_INLINE static inline int64_t arrival_gap(const sim *s, uint32_t c,
                                                   uint32_t k)
{
    const client_cfg *cc = &s->cfg->clients;
    if (cc->arrival != ARRIVAL_OPEN || cc->profile)
        return arrival_gap_other(s, c, k);
    double mean = s->cl.gap_mean_ns; /* engine_gap_mean_ns */
    /* A rate so low that the mean gap is not even a double (1e-300/s):
     * no request ever comes.  (An exponential with an infinite mean would
     * be NaN for the uniform 1.) */
    if (isinf(mean))
        return SIMTIME_END;
    uint64_t x = rng_at(rng_key(s->seed, c, RNG_ARRIVAL), k);
    return round_ns(rng_exponential(x, mean));
}

/* Inline in the arrival handler: as a call, its frame and the arguments
 * the handler had in registers cost more than its work. */
SB_ALWAYS_INLINE static inline void schedule_arrival(sim *s, uint32_t c)
{
    int64_t gap = arrival_gap(s, c, s->cl.next_request[c]);
    engine_push(s, simtime_add(s->now, gap), EV_ARRIVAL, c, 0);
}

void client_schedule_arrival(sim *s, uint32_t c)
{
    schedule_arrival(s, c);
}

void client_on_arrival(sim *s, uint32_t c)
{
    uint32_t k = s->cl.next_request[c]++;
    arrival_mode mode = s->cfg->clients.arrival;
    if (mode == ARRIVAL_OPEN || mode == ARRIVAL_TRACE)
        schedule_arrival(s, c);
    if (s->pipe) {
        s->cl.offered++;
        pipeline_start_job(s, c, k);
        return;
    }
    start_request(s, c, k);
}

/* ---- What faults change ------------------------------------------------- */

static int64_t stretch(const evq_event *ev, void *ctx)
{
    const double *k = ctx; /* k[0] = now, k[1] = old/new multiplier */
    /* An arrival at the end of time never comes, at any rate: rescaling
     * it would bring it back into the run. */
    if (evq_type(ev) != EV_ARRIVAL || ev->time >= SIMTIME_END)
        return ev->time;
    double now = k[0];
    return round_ns(now + ((double)ev->time - now) * k[1]);
}

/* What stretch_mass needs: the profile, the mass at now, old/new. */
typedef struct mass_stretch {
    const rate_profile *p;
    int64_t now;
    double at_now, ratio;
} mass_stretch;

/* Under a rate profile the time change is in mass, not in time: the mass
 * left before a pending arrival scales by old/new. */
static int64_t stretch_mass(const evq_event *ev, void *ctx)
{
    const mass_stretch *k = ctx;
    if (evq_type(ev) != EV_ARRIVAL || ev->time >= SIMTIME_END)
        return ev->time;
    double left = profile_mass(k->p, ev->time) - k->at_now;
    int64_t t = profile_time_at(k->p, k->at_now + left * k->ratio);
    return t > k->now ? t : k->now;
}

/* Pending arrivals were drawn at the old rate; by the memoryless property
 * (and for think times, by rescaling) the remaining time to each scales by
 * old/new -- under a rate profile, the remaining mass.  One O(n) pass, no
 * random draws, so the arrival sequence stays the same under every
 * policy.  A trace's instants are as recorded: a spike does not move
 * them. */
void clients_set_load(sim *s, double spike, int64_t timeout_ns)
{
    clients *cl = &s->cl;
    cl->timeout_ns = timeout_ns;
    if (spike == cl->spike)
        return;
    double k[2] = {(double)s->now, cl->spike / spike};
    const rate_profile *p = s->cfg->clients.profile;
    mass_stretch m = {p, s->now, p ? profile_mass(p, s->now) : 0, k[1]};
    cl->spike = spike;
    cl->gap_mean_ns = engine_gap_mean_ns(s);
    if (s->cfg->clients.arrival == ARRIVAL_TRACE)
        return;
    if (evq_retime(&s->q, p ? stretch_mass : stretch, p ? (void *)&m : k) != 0)
        engine_fail(s, "out of memory for the event queue");
}

/* ---- The policy's level ------------------------------------------------- */

/* The mean over processes that reported, kept as a running sum. */
void client_policy_level(sim *s, uint32_t p, double fraction)
{
    clients *cl = &s->cl;
    uint32_t n = s->rqs.rq[0].n_processes;
    if (!(fraction >= 0.0))
        fraction = 0.0;
    if (fraction > 1.0)
        fraction = 1.0;
    if (cl->levels == NULL) {
        cl->levels = malloc(n * sizeof *cl->levels);
        if (cl->levels == NULL)
            return; /* the level goes unreported; nothing else depends on it */
        for (uint32_t i = 0; i < n; i++)
            cl->levels[i] = -1.0;
    }
    double *old = &cl->levels[p];
    if (*old < 0) {
        cl->level_count++;
        *old = 0.0;
    }
    cl->level_sum += fraction - *old;
    *old = fraction;
    metrics_set_policy_level(&s->m, cl->level_sum / cl->level_count);
}

/* ---- Events ------------------------------------------------------------- */

uint32_t client_of_event(const sim *s, unsigned type, uint32_t id)
{
    switch (type) {
    case EV_ARRIVAL:
        return id;
    case EV_SEND:
    case EV_HEDGE:
    case EV_END:
        return req_at(s, id)->client;
    case EV_SERVER_ARRIVE:
    case EV_SERVICE_DONE:
    case EV_RESPONSE:
    case EV_TIMEOUT:
        return req_at(s, att_at(s, id)->req)->client;
    default:
        return UINT32_MAX;
    }
}

/* ---- Dealing a trace ------------------------------------------------------ */

/* One request to deal: when, to whom. */
typedef struct dealt {
    int64_t at;
    uint32_t client;
} dealt;

/* How many copies of trace request i a scale f makes: floor(f), and one
 * more with probability f - floor(f) (a coin from the trace's stream,
 * counter i << 8). */
static uint32_t copies_of(uint64_t key, uint32_t i, double f)
{
    double whole = floor(f);
    uint32_t n = (uint32_t)whole;
    if (f > whole && rng_unit(rng_at(key, (uint64_t)i << 8)) < f - whole)
        n++;
    return n;
}

/* Copy j of trace request i: copy 0 at its instant, sent by its caller
 * (the caller's number, or i dealt in turn, modulo the clients); copy
 * j >= 1 at a uniform point of the gap to the next request (counter
 * (i << 8) + j), as caller + j x callers would -- a new caller, so that
 * scaling a trace up adds senders, not bursts from one client. */
static dealt copy_of(const trace *t, uint64_t key, uint32_t i, uint32_t j,
                     uint32_t n_clients)
{
    const int64_t *at = trace_times(t);
    const uint32_t *who = trace_callers(t);
    uint64_t caller = who ? who[i] : i;
    dealt d = {at[i], (uint32_t)((caller + (uint64_t)j * trace_n_callers(t)) %
                                 n_clients)};
    if (j > 0 && i + 1 < trace_count(t)) {
        double u = rng_unit(rng_at(key, ((uint64_t)i << 8) + j));
        d.at += (int64_t)(u * (double)(at[i + 1] - at[i]));
    }
    return d;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Deals the trace's requests (scaled) to the clients: each client's
 * instants, ascending, in one array indexed by trace_first.  Two passes
 * over the trace (count, then place) with the same draws; the draws come
 * from the root seed, so a clone's branch does not re-deal. */
static int deal_trace(sim *s, sb_err *e)
{
    const client_cfg *cc = &s->cfg->clients;
    clients *cl = &s->cl;
    const trace *t = cc->trace;
    uint64_t key = rng_key(s->root_seed, UINT32_MAX, RNG_ARRIVAL);
    uint32_t n = trace_count(t);
    cl->trace_first = calloc((size_t)cl->n + 1, sizeof *cl->trace_first);
    if (cl->trace_first == NULL)
        return err_set(e, "out of memory for the trace's arrivals");
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t m = copies_of(key, i, cc->trace_scale);
        for (uint32_t j = 0; j < m; j++)
            cl->trace_first[copy_of(t, key, i, j, cl->n).client + 1]++;
        total += m;
    }
    if (total > UINT32_MAX)
        return err_set(e, "the trace scaled by %g has more than %u requests",
                       cc->trace_scale, UINT32_MAX);
    for (uint32_t c = 0; c < cl->n; c++)
        cl->trace_first[c + 1] += cl->trace_first[c];
    cl->trace_at = malloc((total ? total : 1) * sizeof *cl->trace_at);
    uint32_t *fill = malloc((size_t)cl->n * sizeof *fill);
    if (cl->trace_at == NULL || fill == NULL) {
        free(fill);
        return err_set(e, "out of memory for the trace's %llu arrivals",
                       (unsigned long long)total);
    }
    memcpy(fill, cl->trace_first, (size_t)cl->n * sizeof *fill);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t m = copies_of(key, i, cc->trace_scale);
        for (uint32_t j = 0; j < m; j++) {
            dealt d = copy_of(t, key, i, j, cl->n);
            cl->trace_at[fill[d.client]++] = d.at;
        }
    }
    free(fill);
    for (uint32_t c = 0; c < cl->n; c++) /* copies are out of order */
        qsort(cl->trace_at + cl->trace_first[c],
              cl->trace_first[c + 1] - cl->trace_first[c], sizeof *cl->trace_at,
              cmp_i64);
    return 0;
}

/* ---- Life cycle ------------------------------------------------------------ */

int clients_start(sim *s, sb_err *e)
{
    const client_cfg *cc = &s->cfg->clients;
    clients *cl = &s->cl;
    uint32_t n = cc->count;
    cl->n = n;
    cl->spike = 1.0;
    cl->gap_mean_ns = engine_gap_mean_ns(s);
    cl->timeout_ns = cc->timeout_ns;
    cl->mass_scale = cc->profile && profile_total(cc->profile) ? n : 1.0;
    requester *rq = requester_add(s, "the clients", NULL, e);
    if (rq == NULL)
        return -1;
    requester_set_stack(rq, s->ps);
    rq->partitioned = true;
    rq->network = &s->cfg->server.network;
    rq->net_stream = RNG_NET;
    rq->call_time_ns = cc->call_time_ns;
    rq->policy_stream = RNG_POLICY;
    cl->no_request_extras = rq->request_state_size == 0 && !cc->deadline_ns &&
                            !(cc->defect_fraction > 0.0) &&
                            !(cc->critical_fraction > 0.0) &&
                            !cc->idempotency_keys && s->cfg->trace_sample == 0;
    cl->next_request = calloc(n, sizeof *cl->next_request);
    cl->mode = calloc(n, sizeof *cl->mode);
    if (!cl->next_request || !cl->mode)
        return err_set(e, "out of memory for %u clients", n);
    if (requester_start_state(rq, n, cc->processes, cc->connections, e) != 0)
        return -1;
    if (cc->arrival == ARRIVAL_TRACE && deal_trace(s, e) != 0)
        return -1;
    for (uint32_t c = 0; c < n; c++)
        client_schedule_arrival(s, c);
    return s->failed ? err_set(e, "%s", s->error) : 0;
}

void clients_fini(clients *cl)
{
    free(cl->next_request);
    free(cl->mode);
    free(cl->levels);
    free(cl->trace_first);
    free(cl->trace_at);
    memset(cl, 0, sizeof *cl);
}

int clients_clone(clients *cl, const clients *src, uint32_t n_processes)
{
    *cl = *src;
    cl->next_request = malloc(src->n * sizeof *cl->next_request);
    cl->mode = malloc(src->n * sizeof *cl->mode);
    cl->levels = NULL;
    cl->trace_first = NULL;
    cl->trace_at = NULL;
    if (cl->next_request == NULL || cl->mode == NULL)
        return -1;
    if (src->trace_first) {
        size_t firsts = ((size_t)src->n + 1) * sizeof *cl->trace_first;
        size_t ats = src->trace_first[src->n] * sizeof *cl->trace_at;
        cl->trace_first = malloc(firsts);
        cl->trace_at = malloc(ats ? ats : 1);
        if (cl->trace_first == NULL || cl->trace_at == NULL)
            return -1;
        memcpy(cl->trace_first, src->trace_first, firsts);
        memcpy(cl->trace_at, src->trace_at, ats);
    }
    memcpy(cl->next_request, src->next_request,
           src->n * sizeof *cl->next_request);
    memcpy(cl->mode, src->mode, src->n * sizeof *cl->mode);
    if (src->levels) {
        cl->levels = malloc(n_processes * sizeof *cl->levels);
        if (cl->levels == NULL)
            return -1;
        memcpy(cl->levels, src->levels, n_processes * sizeof *cl->levels);
    }
    return 0;
}

bool clients_sane(const sim *s)
{
    const clients *cl = &s->cl;
    if (cl->n != s->cfg->clients.count || !cl->next_request || !cl->mode)
        return false;
    if (!(cl->spike > 0) || cl->gap_mean_ns != engine_gap_mean_ns(s) ||
        cl->timeout_ns <= 0)
        return false;
    if ((cl->trace_first != NULL) != (s->cfg->clients.arrival == ARRIVAL_TRACE))
        return false;
    for (uint32_t c = 0; c < cl->n; c++)
        if (cl->mode[c] > CLIENT_GAVE_UP)
            return false;
    if (cl->levels == NULL)
        return cl->level_count == 0;
    uint32_t reported = 0;
    for (uint32_t p = 0; p < s->rqs.rq[0].n_processes; p++) {
        double v = cl->levels[p];
        if (v >= 0)
            reported++;
        else if (v != -1.0)
            return false;
        if (v > 1.0)
            return false;
    }
    return reported == cl->level_count;
}

/* ---- sim.h ---------------------------------------------------------------- */

const uint8_t *sim_client_modes(const sim *s)
{
    return s->cl.mode;
}

uint32_t sim_clients(const sim *s)
{
    return s->cl.n;
}

uint32_t sim_processes(const sim *s)
{
    return s->rqs.rq[0].n_processes;
}
