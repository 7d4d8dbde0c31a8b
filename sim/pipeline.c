/*
 * pipeline.c -- data pipelines (pipeline.h): jobs, their steps' calls
 * (a caller per step, caller.h), the steps' answers at the server,
 * strategies, reruns, alerts.
 */
#include "pipeline.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caller.h"
#include "client.h"
#include "server.h"

enum job_state {
    JOB_RUNNING = 0, /* a step's call is out */
    JOB_UNDOING,     /* compensate: an undo's call is out */
    JOB_WAITING,     /* failed (or not started: the runners were down);
                        its run is due (EV_JOB) or deferred */
    JOB_CRASHING     /* its runner crashed: its call is being abandoned */
};

/* How a job ended, for the summary. */
enum job_end {
    END_COMPLETED = 0,
    END_PARTIAL,
    END_FAILED,
    END_COMPENSATED,
    END_INCONSISTENT
};

/* A job.  Masks have one bit per step. */
typedef struct job {
    int64_t start;
    int64_t deadline;     /* start + sla; NO_DEADLINE */
    int64_t call_start;   /* when its current call started */
    int64_t call_blocked; /* ... and the retry delays it waited out */
    int64_t retry_at;     /* when the call's pending retry is due; 0: none */
    int64_t failed_at;    /* when its last run failed */
    uint32_t client;      /* its runner */
    uint32_t number;      /* the runner's job number: its random draws */
    uint32_t gen;
    uint32_t call;                     /* the request index of its call out */
    uint32_t live_pos;                 /* its place in pipeline.live */
    uint32_t bad_items[SIM_MAX_STEPS]; /* per batch step; UINT32_MAX: not
                                          drawn yet */
    uint16_t done;        /* steps completed and not undone, any run */
    uint16_t this_run;    /* ... completed in this run */
    uint16_t committed;   /* steps whose write is in the data now */
    uint16_t quarantined; /* batch steps whose bad items are set aside */
    uint8_t step;         /* the step it is at (or undoing) */
    uint8_t run;          /* 0: the first */
    uint8_t state;        /* enum job_state */
    uint8_t run_failed;   /* a step of this run failed (continue) */
    uint8_t inconsistent; /* an undo of this run failed */
    uint8_t started;      /* its first run has started */
    uint8_t ended;        /* counted and gone; the record stays while
                             `calls` > 0 */
    uint16_t calls;       /* call records (links) that name it still */
} job;

typedef struct step_rt {
    const step_cfg *cfg;
    uint8_t caller; /* its requester (request.h) */
    char name[SIM_NAME_MAX + 16];
    sim_step_summary sum;
} step_rt;

struct pipeline {
    sim *s;
    const pipeline_cfg *cfg;
    uint32_t n;
    step_rt steps[SIM_MAX_STEPS];
    pool jobs; /* a call's link (caller_link) is its job's index */
    /* Totals for the summary (the per-bucket ones are in the metrics). */
    sim_pipeline_summary sum;
    double working_ns, blocked_ns, failed_ns;
    uint64_t dead_letters, dead_at_close;
    uint32_t growth;      /* buckets in a row the dead-letter queue grew */
    uint64_t waiting;     /* jobs waiting for a rerun */
    double waiting_since; /* ... the sum of their failed_at */
    /* Jobs in memory (for a crash), and those waiting for the runners to
     * come back. */
    uint32_t *live, n_live, live_cap;
    uint32_t *deferred, n_deferred, deferred_cap;
    bool down;
    bool finished;   /* pipeline_finish has counted the waiting jobs' time */
    uint64_t traced; /* calls started, for --trace's sampling */
};

static int push_index(uint32_t **v, uint32_t *n, uint32_t *cap, uint32_t x)
{
    if (*n == *cap) {
        uint32_t c = *cap ? *cap * 2 : 64;
        uint32_t *w = realloc(*v, (size_t)c * sizeof *w);
        if (w == NULL)
            return -1;
        *v = w;
        *cap = c;
    }
    (*v)[(*n)++] = x;
    return 0;
}

static job *job_at(const struct pipeline *p, uint32_t ji)
{
    return pool_at(&p->jobs, ji);
}

/* The job call ri belongs to. */
static job *job_of(const struct pipeline *p, uint32_t ri)
{
    return job_at(p, (uint32_t)caller_link(p->s, ri));
}

/* A step's bit in a job's masks (done, this_run, ...): 16 bits hold
 * SIM_MAX_STEPS. */
_Static_assert(SIM_MAX_STEPS <= 16, "a job's step masks are 16 bits, and "
                                    "call_index has 4 bits for the step");

static uint16_t bit(unsigned step)
{
    return (uint16_t)(1u << step);
}

/* A call's random-stream index: the runner's job number, the run, the
 * step and whether it is an undo, so that every draw of a step's attempt
 * is the same under every policy.  Job numbers past 2^24 wrap (a runner
 * that starts 16 million jobs repeats draws). */
static uint32_t call_index(const job *j, unsigned step, bool undo)
{
    return (j->number << 8) | ((uint32_t)j->run << 5) | ((uint32_t)step << 1) |
           (undo ? 1u : 0u);
}

static unsigned step_of_call(const request *r)
{
    return (r->index >> 1) & 15u;
}

static bool is_undo(const request *r)
{
    return r->index & 1u;
}

/* ---- Coins ---------------------------------------------------------------- */

static bool job_coin(const sim *s, const job *j, unsigned step, unsigned k,
                     double p)
{
    if (p <= 0)
        return false;
    uint64_t n = ((uint64_t)j->number << 8) + ((uint64_t)step << 1) + k;
    /* The scenario's seed, not the branch's: a job keeps its fate when a
     * run is branched (sim_rekey). */
    return engine_root_unit_draw(s, j->client, RNG_JOB, n) < p;
}

/* The defective items of batch step `step` of job j: a coin per item,
 * drawn once. */
static uint32_t bad_items(const sim *s, job *j, unsigned step)
{
    const step_cfg *sc = &s->cfg->pipeline.steps[step];
    if (j->bad_items[step] != UINT32_MAX)
        return j->bad_items[step];
    uint32_t bad = 0;
    if (sc->item_defect > 0) {
        uint64_t key = rng_key(s->seed, j->client, RNG_ITEM);
        uint64_t base = ((uint64_t)j->number << 32) + ((uint64_t)step << 27);
        for (uint32_t i = 0; i < sc->items; i++)
            if (rng_unit(rng_at(key, base + i)) < sc->item_defect)
                bad++;
    }
    j->bad_items[step] = bad;
    return bad;
}

/* ---- Alerts --------------------------------------------------------------- */

static void alert_critical(sim *s)
{
    s->m.cur->alerts_critical++;
}

static void to_dead_letters(struct pipeline *p, uint64_t n)
{
    if (n == 0)
        return;
    if (p->dead_letters == 0)
        p->s->m.cur->alerts_warning++; /* it holds something now */
    p->dead_letters += n;
}

void pipeline_bucket_closed(sim *s)
{
    struct pipeline *p = s->pipe;
    if (p->dead_letters > p->dead_at_close) {
        if (++p->growth == p->cfg->dead_letter_growth)
            alert_critical(s); /* steadily growing: once per streak */
    } else {
        p->growth = 0;
    }
    p->dead_at_close = p->dead_letters;
}

/* ---- The steps' answers at the server --------------------------------- */

static const step_cfg *step_cfg_of(const sim *s, const request *r)
{
    return &s->cfg->pipeline.steps[step_of_call(r)];
}

static const dist *step_service(const server *sv, const attempt *t,
                                unsigned *slot)
{
    const sim *s = server_sim(sv);
    const request *r = req_at(s, t->req);
    const step_cfg *sc = step_cfg_of(s, r);
    *slot = 0;
    if (is_undo(r))
        return &sc->undo_service;
    return sc->has_service ? &sc->service : &server_config(sv)->service;
}

/* Commit step `step`'s write for job j: the first time, or again -- a
 * duplicate unless the step is idempotent.  A batch's write is its good
 * items, counted as items (and each duplicated item as a duplicate
 * write); any other step's is one write, counted in the run's duplicate
 * writes only when repeated. */
static void commit(sim *s, job *j, unsigned step, uint64_t items)
{
    const step_cfg *sc = &s->cfg->pipeline.steps[step];
    bool batch = sc->items > 0;
    if (j->committed & bit(step)) {
        if (!sc->idempotent) {
            if (batch)
                s->m.cur->items_duplicated += items;
            s->m.cur->duplicates += items;
        }
        return;
    }
    j->committed |= bit(step);
    if (batch)
        s->m.cur->items_committed += items;
}

static void set_answer(attempt *t, int32_t status, uint8_t defect)
{
    t->result = status == 200 ? SB_ERR_NONE : SB_ERR_HTTP;
    t->status = status;
    t->defect = defect;
}

/* A flaky dependency: the connection is reset (what every classifier,
 * and the seeds' plan, call transient). */
static void set_reset(attempt *t)
{
    t->result = SB_ERR_RESET;
    t->status = 0;
    t->defect = SB_DEFECT_NONE;
}

/* The answer to a step's attempt whose service ended (pipeline.h). */
static service_end step_end(server *sv, uint32_t ai, attempt *t,
                            const request *r)
{
    (void)ai;
    sim *s = server_sim(sv);
    struct pipeline *p = s->pipe;
    job *j = job_of(p, t->req);
    unsigned step = step_of_call(r);
    const step_cfg *sc = &p->cfg->steps[step];
    bool transient = sc->transient > 0 &&
                     engine_unit_draw(s, r->client, RNG_STEP,
                                      rng_attempt_counter(r->index, t->number,
                                                          0)) < sc->transient;
    if (is_undo(r)) {
        if (transient) {
            set_reset(t);
        } else {
            set_answer(t, 200, SB_DEFECT_NONE);
            j->committed &= (uint16_t)~bit(step); /* the write is gone */
        }
        return SERVICE_ANSWERED;
    }
    if (job_coin(s, j, step, 0, sc->permanent)) {
        set_answer(t, 403, SB_DEFECT_NONE);
    } else if (sc->items == 0 && job_coin(s, j, step, 1, sc->defect)) {
        set_answer(t, 422, SB_DEFECT_INVALID_SCHEMA);
    } else if (transient) {
        set_reset(t);
    } else if (sc->items > 0) {
        uint32_t bad = bad_items(s, j, step);
        commit(s, j, step, sc->items - bad);
        /* Under partial, the per-item answer is taken as the batch's
         * success (its bad items are set aside when it reaches the
         * runner); otherwise a batch with bad items failed. */
        if (bad > 0 && p->cfg->strategy != PIPELINE_PARTIAL)
            set_answer(t, 422, SB_DEFECT_INVALID_SCHEMA);
        else
            set_answer(t, 200, SB_DEFECT_NONE);
    } else {
        commit(s, j, step, 1);
        set_answer(t, 200, SB_DEFECT_NONE);
    }
    return SERVICE_ANSWERED;
}

static const server_model_ops pipeline_ops = {
    .name = "pipeline",
    .state_size = 0,
    .service = step_service,
    .start = NULL,
    .end = step_end,
};

/* ---- Jobs ----------------------------------------------------------------- */

static void run_from(struct pipeline *p, uint32_t ji, job *j);

/* Call step `step` (or its undo) for job ji. */
static void call_step(struct pipeline *p, uint32_t ji, job *j, unsigned step,
                      bool undo)
{
    sim *s = p->s;
    step_rt *st = &p->steps[step];
    uint32_t ri;
    request *r = caller_new_call(s, st->caller, j->client, ji, &ri);
    if (r == NULL)
        return;
    j->calls++;
    j->call = ri;
    clients_show(&s->cl, j->client, CLIENT_WAITING);
    r->index = call_index(j, step, undo);
    r->op = st->cfg->idempotent ? SB_OP_PUT : SB_OP_POST;
    /* --trace samples 1 call in trace_sample, as the clients' requests
     * (a pipeline's runners send nothing else). */
    if (s->cfg->trace_sample > 0 && p->traced++ % s->cfg->trace_sample == 0)
        r->flags |= RQ_TRACED;
    j->step = (uint8_t)step;
    j->call_start = s->now;
    j->call_blocked = 0;
    j->retry_at = 0;
    if (!undo) {
        st->sum.calls++;
        if (j->done & bit(step))
            st->sum.redone++; /* an earlier run did it: no checkpoint */
    }
    request_start(s, ri, r);
}

/* The job ends for good: count it, and let a closed-loop runner start
 * its next job.  Its record is freed when no call record names it any
 * more (call_released): an attempt of its calls may still be at the
 * server, and when it is served its write is this job's.  Freeing the
 * record here let the runner's next job take it, and a late attempt of
 * the old job then committed into the new one's writes. */
static void end_job(struct pipeline *p, uint32_t ji, job *j, enum job_end how)
{
    sim *s = p->s;
    switch (how) {
    case END_COMPLETED:
        p->sum.completed++;
        s->m.cur->jobs_completed++;
        if (j->deadline == NO_DEADLINE || s->now <= j->deadline)
            p->sum.within_sla++;
        break;
    case END_PARTIAL:
        p->sum.partial++;
        break;
    case END_FAILED:
        p->sum.failed++;
        break;
    case END_COMPENSATED:
        p->sum.compensated++;
        break;
    case END_INCONSISTENT:
        p->sum.inconsistent++;
        break;
    }
    if (how != END_COMPLETED && j->deadline != NO_DEADLINE &&
        j->deadline > s->now)
        p->failed_ns += (double)(j->deadline - s->now);
    uint32_t client = j->client;
    uint32_t last = p->live[--p->n_live];
    p->live[j->live_pos] = last;
    job_at(p, last)->live_pos = j->live_pos;
    j->gen++;
    j->ended = 1;
    if (j->calls == 0)
        pool_free(&p->jobs, ji);
    client_work_ended(s, client,
                      how == END_COMPLETED ? CLIENT_IDLE : CLIENT_GAVE_UP);
}

/* Is a write an undo should take away still there: a step with an undo
 * done (and not undone) by any run of j?  An undo that failed leaves its
 * step done, and so does a crash; with checkpoints a rerun does not run
 * such a step again, so only the job's whole history can tell.  Judging
 * the last run alone (j->inconsistent) called a job compensated whose
 * earlier run had failed to undo a write. */
static bool writes_left(const struct pipeline *p, const job *j)
{
    for (unsigned k = 0; k < p->n; k++)
        if ((j->done & bit(k)) && p->cfg->steps[k].has_undo)
            return true;
    return false;
}

/* This run of job ji failed (its failed steps and undos are through):
 * rerun it later, or end it. */
static void run_failed(struct pipeline *p, uint32_t ji, job *j)
{
    sim *s = p->s;
    s->m.cur->job_runs_failed++;
    if (j->run < p->cfg->reruns) {
        j->state = JOB_WAITING;
        j->failed_at = s->now;
        clients_show(&s->cl, j->client, CLIENT_GAVE_UP);
        p->waiting++;
        p->waiting_since += (double)s->now;
        engine_push(s, simtime_add(s->now, p->cfg->rerun_delay_ns), EV_JOB, ji,
                    j->gen);
        return;
    }
    enum job_end how = END_FAILED;
    if (p->cfg->strategy == PIPELINE_COMPENSATE)
        how = j->inconsistent || writes_left(p, j) ? END_INCONSISTENT
                                                   : END_COMPENSATED;
    else if (p->cfg->strategy == PIPELINE_CONTINUE && j->this_run)
        how = END_PARTIAL;
    end_job(p, ji, j, how);
}

/* Compensate: undo this run's completed steps below `from`, newest
 * first; a step without an undo has nothing to undo (a read).  When none
 * is left, the run has failed. */
static void undo_from(struct pipeline *p, uint32_t ji, job *j, int from)
{
    for (int k = from; k >= 0; k--) {
        const step_cfg *sc = &p->cfg->steps[k];
        if ((j->this_run & bit((unsigned)k)) && sc->has_undo) {
            j->state = JOB_UNDOING;
            call_step(p, ji, j, (unsigned)k, true);
            return;
        }
    }
    run_failed(p, ji, j);
}

/* The steps after `step` that this run will not run now. */
static void skip_after(struct pipeline *p, const job *j, unsigned step)
{
    for (unsigned k = step + 1; k < p->n; k++)
        if (!(p->cfg->checkpoints && (j->done & bit(k))))
            p->steps[k].sum.skipped++;
}

/* The step at j->step failed for good. */
static void step_failed(struct pipeline *p, uint32_t ji, job *j)
{
    unsigned step = j->step;
    switch (p->cfg->strategy) {
    case PIPELINE_CONTINUE:
        j->run_failed = 1;
        j->step = (uint8_t)(step + 1);
        run_from(p, ji, j);
        break;
    case PIPELINE_COMPENSATE:
        skip_after(p, j, step);
        undo_from(p, ji, j, (int)step - 1);
        break;
    default:
        skip_after(p, j, step);
        run_failed(p, ji, j);
        break;
    }
}

/* Run the job's steps from j->step on: the next one that should run
 * this run, or end the run. */
static void run_from(struct pipeline *p, uint32_t ji, job *j)
{
    j->state = JOB_RUNNING;
    for (unsigned k = j->step; k < p->n; k++) {
        const step_cfg *sc = &p->cfg->steps[k];
        if (p->cfg->checkpoints && (j->done & bit(k)))
            continue; /* an earlier run did it */
        if (j->run_failed && !sc->independent) {
            p->steps[k].sum.skipped++;
            continue;
        }
        call_step(p, ji, j, k, false);
        return;
    }
    if (j->run_failed)
        run_failed(p, ji, j);
    else
        end_job(p, ji, j, END_COMPLETED);
}

/* A run starts: the first, or a rerun. */
static void start_run(struct pipeline *p, uint32_t ji, job *j)
{
    p->sum.runs++;
    p->s->m.cur->job_runs++;
    j->this_run = 0;
    j->run_failed = 0;
    j->inconsistent = 0;
    j->step = 0;
    run_from(p, ji, j);
}

void pipeline_start_job(sim *s, uint32_t c, uint32_t k)
{
    struct pipeline *p = s->pipe;
    uint32_t ji;
    if (pool_alloc(&p->jobs, &ji) != 0) {
        engine_fail(s, "out of memory for jobs");
        return;
    }
    job *j = job_at(p, ji);
    uint32_t gen = j->gen;
    memset(j, 0, sizeof *j);
    j->gen = gen + 1;
    j->client = c;
    j->number = k;
    j->start = s->now;
    j->deadline =
        p->cfg->sla_ns ? simtime_add(s->now, p->cfg->sla_ns) : NO_DEADLINE;
    for (unsigned i = 0; i < SIM_MAX_STEPS; i++)
        j->bad_items[i] = UINT32_MAX;
    j->live_pos = p->n_live;
    if (push_index(&p->live, &p->n_live, &p->live_cap, ji) != 0) {
        engine_fail(s, "out of memory for jobs");
        return;
    }
    p->sum.jobs++;
    if (p->down) {
        j->state = JOB_WAITING; /* until the runners are back */
        if (push_index(&p->deferred, &p->n_deferred, &p->deferred_cap, ji) != 0)
            engine_fail(s, "out of memory for jobs");
        return;
    }
    j->started = 1;
    start_run(p, ji, j);
}

void pipeline_on_job(sim *s, uint32_t ji, uint32_t gen)
{
    struct pipeline *p = s->pipe;
    job *j = job_at(p, ji);
    if (j->gen != gen || j->state != JOB_WAITING)
        return;
    if (p->down) {
        if (push_index(&p->deferred, &p->n_deferred, &p->deferred_cap, ji) != 0)
            engine_fail(s, "out of memory for jobs");
        return;
    }
    if (!j->started) {
        j->started = 1; /* it arrived while the runners were down */
        start_run(p, ji, j);
        return;
    }
    p->failed_ns += (double)(s->now - j->failed_at);
    p->waiting--;
    p->waiting_since -= (double)j->failed_at;
    p->sum.reruns++;
    j->run++;
    start_run(p, ji, j);
}

void pipeline_runners_down(sim *s, bool down)
{
    struct pipeline *p = s->pipe;
    if (down == p->down)
        return;
    p->down = down;
    if (!down) {
        /* Back: what waited starts now, in the order it was deferred. */
        for (uint32_t i = 0; i < p->n_deferred; i++) {
            uint32_t ji = p->deferred[i];
            engine_push_now(s, EV_JOB, ji, job_at(p, ji)->gen);
        }
        p->n_deferred = 0;
        return;
    }
    /* Every run in progress fails now.  Ending a job reorders `live`:
     * walk it from the end, so each job is met once. */
    for (uint32_t i = p->n_live; i-- > 0;) {
        if (i >= p->n_live)
            continue;
        uint32_t ji = p->live[i];
        job *j = job_at(p, ji);
        if (j->state != JOB_RUNNING && j->state != JOB_UNDOING)
            continue;
        j->state = JOB_CRASHING;
        request_abandon(s, j->call);
        /* Nothing is undone: the writes it made stay, and run_failed
         * finds them (writes_left). */
        run_failed(p, ji, j);
    }
}

/* ---- What the steps' callers tell ------------------------------------ */

/* Job j's current call has taken its time until now: working, but for
 * the retry delays it waited out.  A call that ends during a delay (a
 * crash abandons it, the run ends) waited out only the part before now;
 * counting the whole delay made working time negative. */
static void count_call_time(struct pipeline *p, const job *j)
{
    int64_t now = p->s->now, blocked = j->call_blocked;
    if (j->retry_at > now)
        blocked -= j->retry_at - now;
    p->working_ns += (double)(now - j->call_start - blocked);
    p->blocked_ns += (double)blocked;
}

static void call_ended(requester *rq, uint32_t ri, request *r, sb_outcome o,
                       const char *reason)
{
    (void)reason;
    sim *s = rq->s;
    struct pipeline *p = s->pipe;
    uint32_t ji = (uint32_t)caller_link(s, ri);
    job *j = job_at(p, ji);
    unsigned step = step_of_call(r);
    step_rt *st = &p->steps[step];
    const step_cfg *sc = st->cfg;
    count_call_time(p, j);
    if (j->state == JOB_CRASHING) {
        if (!is_undo(r))
            st->sum.failed++; /* its runner crashed */
        return;
    }
    bool ok = o == SB_OUTCOME_SUCCESS;
    if (is_undo(r)) {
        if (ok) {
            st->sum.undone++;
            j->done &= (uint16_t)~bit(step);
        } else {
            st->sum.undo_failed++;
            j->inconsistent = 1;
            alert_critical(s);
        }
        undo_from(p, ji, j, (int)step - 1);
        return;
    }
    if (ok) {
        st->sum.succeeded++;
        j->done |= bit(step);
        j->this_run |= bit(step);
        if (sc->items > 0 && !(j->quarantined & bit(step))) {
            /* partial: the bad items are set aside, once per job */
            uint32_t bad = bad_items(s, j, step);
            if (bad > 0) {
                j->quarantined |= bit(step);
                s->m.cur->items_quarantined += bad;
                to_dead_letters(p, bad);
            }
        }
        j->step = (uint8_t)(step + 1);
        run_from(p, ji, j);
        return;
    }
    st->sum.failed++;
    if (o == SB_OUTCOME_QUARANTINED)
        to_dead_letters(p, 1); /* the call's input, set aside */
    else
        alert_critical(s); /* retries exhausted, or refused */
    step_failed(p, ji, j);
}

/* An attempt is counted when it is sent, as the metrics count it: a call
 * still out when the run ends has sent attempts too (counting them when
 * the call ended left those out of the step's figure). */
static void call_sent(requester *rq, const request *r, const attempt *t)
{
    sim *s = rq->s;
    struct pipeline *p = s->pipe;
    if (!is_undo(r))
        p->steps[step_of_call(r)].sum.attempts++;
    if (t->number < 2)
        return;
    clients_show(&s->cl, r->client, CLIENT_WAITING);
    p->sum.retries++;
    if (t->number - 1 < p->cfg->warn_retry)
        s->m.cur->alerts_log++;
    else
        s->m.cur->alerts_warning++;
}

static void call_attempt_ended(requester *rq, const request *r,
                               const attempt *t)
{
    sim *s = rq->s;
    struct pipeline *p = s->pipe;
    if (t->number < 2)
        return;
    const job *j = job_of(p, t->req);
    if (j->deadline != NO_DEADLINE && s->now > j->deadline)
        p->sum.late_retries++;
    (void)r;
}

/* A retry is due after delay_ns: the job is blocked meanwhile. */
static void call_retry_in(requester *rq, uint32_t ri, const request *r,
                          int64_t delay_ns)
{
    sim *s = rq->s;
    job *j = job_of(s->pipe, ri);
    j->call_blocked += delay_ns;
    j->retry_at = simtime_add(s->now, delay_ns);
    clients_show(&s->cl, r->client, CLIENT_BACKING_OFF);
}

/* Call ri's record is gone: its job no longer needs to outlive it. */
static void call_released(requester *rq, uint32_t ri)
{
    struct pipeline *p = rq->s->pipe;
    uint32_t ji = (uint32_t)caller_link(rq->s, ri);
    job *j = job_at(p, ji);
    assert(j->calls > 0);
    if (--j->calls == 0 && j->ended)
        pool_free(&p->jobs, ji);
}

static const requester_ops step_calls = {
    .ended = call_ended,
    .wanted = NULL,
    .sent = call_sent,
    .attempt_ended = call_attempt_ended,
    .retry_in = call_retry_in,
    .released = call_released,
};

/* ---- Life cycle ---------------------------------------------------------- */

int pipeline_create(sim *s, sb_err *e)
{
    const sim_config *c = s->cfg;
    const pipeline_cfg *pc = &c->pipeline;
    assert(pc->n_steps >= 1 && pc->n_steps <= SIM_MAX_STEPS);
    if (c->n_tiers >= 2)
        return err_set(e, "a pipeline cannot run on a service chain yet");
    if (c->server.model != MODEL_QUEUE)
        return err_set(e, "a pipeline runs on a queue server ([server] "
                          "model = queue)");
    struct pipeline *p = calloc(1, sizeof *p);
    if (p == NULL)
        return err_set(e, "out of memory for the pipeline");
    s->pipe = p;
    p->s = s;
    p->cfg = pc;
    p->n = pc->n_steps;
    pool_init(&p->jobs, sizeof(job));
    for (unsigned i = 0; i < p->n; i++) {
        step_rt *st = &p->steps[i];
        const step_cfg *sc = &pc->steps[i];
        st->cfg = sc;
        st->sum.name = sc->name;
        snprintf(st->name, sizeof st->name, "step '%s'", sc->name);
        caller_spec spec = {
            .name = st->name,
            .ops = &step_calls,
            .owner = i,
            .counts_in = 0,
            .net_stream = RNG_NET,
            .network = &c->server.network,
            .timeout_ns = sc->timeout_ns,
        };
        const requester *runners = &s->rqs.rq[0];
        int rc = sc->policy[0]
                     ? caller_add_own(s, &spec, sc->policy, sc->policy_origin,
                                      sc->settings, (int)sc->n_settings,
                                      runners->n_clients, runners->n_processes,
                                      RNG_POLICY + ((i + 1u) << RNG_TIER_SHIFT),
                                      &st->caller, e)
                     : caller_add_shared(s, &spec, &st->caller, e);
        if (rc != 0)
            return -1;
    }
    server_set_model(s->srv, &pipeline_ops);
    return 0;
}

void pipeline_destroy(sim *s)
{
    struct pipeline *p = s->pipe;
    if (p == NULL)
        return;
    pool_fini(&p->jobs);
    free(p->live);
    free(p->deferred);
    free(p);
    s->pipe = NULL;
}

static int dup_indices(uint32_t **dst, const uint32_t *src, uint32_t cap)
{
    *dst = NULL;
    if (cap == 0)
        return 0;
    if ((*dst = malloc((size_t)cap * sizeof **dst)) == NULL)
        return -1;
    memcpy(*dst, src, (size_t)cap * sizeof **dst);
    return 0;
}

int pipeline_clone(sim *s, const sim *src)
{
    const struct pipeline *from = src->pipe;
    struct pipeline *p = malloc(sizeof *p);
    if (p == NULL)
        return -1;
    *p = *from;
    p->s = s;
    p->live = p->deferred = NULL;
    pool_init(&p->jobs, sizeof(job));
    s->pipe = p;
    for (unsigned i = 0; i < p->n; i++)
        requester_rename(s, p->steps[i].caller, p->steps[i].name);
    if (pool_clone(&p->jobs, &from->jobs) != 0 ||
        dup_indices(&p->live, from->live, from->live_cap) != 0 ||
        dup_indices(&p->deferred, from->deferred, from->deferred_cap) != 0)
        return -1;
    return 0;
}

bool pipeline_sane(const sim *s)
{
    const struct pipeline *p = s->pipe;
    if (p->n < 1 || p->n > SIM_MAX_STEPS || (!p->down && p->n_deferred))
        return false;
    uint64_t waiting = 0;
    for (uint32_t i = 0; i < p->n_live; i++) {
        const job *j = job_at(p, p->live[i]);
        if (j->live_pos != i || j->ended || j->step > p->n)
            return false;
        waiting += j->state == JOB_WAITING && j->started;
    }
    for (unsigned k = 0; k < p->n; k++)
        if (s->rqs.rq[p->steps[k].caller].owner != k)
            return false;
    return waiting == p->waiting || (p->finished && p->waiting == 0);
}

/* Jobs still out when the run ends: unfinished; a job waiting for its
 * rerun has been failed since its run failed, and one with a call out
 * has worked (or been blocked) on it since the call started, as failed
 * time is counted to the end. */
void pipeline_finish(sim *s)
{
    struct pipeline *p = s->pipe;
    for (uint32_t i = 0; i < p->n_live; i++) {
        const job *j = job_at(p, p->live[i]);
        if (j->state == JOB_RUNNING || j->state == JOB_UNDOING)
            count_call_time(p, j);
    }
    const sim_pipeline_summary *u = &p->sum;
    p->sum.unfinished = u->jobs - u->completed - u->partial - u->failed -
                        u->compensated - u->inconsistent;
    p->failed_ns += (double)p->waiting * (double)s->now - p->waiting_since;
    p->waiting = 0;
    p->waiting_since = 0;
    p->finished = true;
}

bool sim_pipeline_summary_of(const sim *s, sim_pipeline_summary *out)
{
    memset(out, 0, sizeof *out);
    const struct pipeline *p = s->pipe;
    if (p == NULL)
        return false;
    const metrics_bucket *t = &s->m.total.sum;
    *out = p->sum;
    out->strategy = p->cfg->strategy;
    out->checkpoints = p->cfg->checkpoints;
    out->steps = p->n;
    out->items_committed = t->items_committed;
    out->items_duplicated = t->items_duplicated;
    out->items_quarantined = t->items_quarantined;
    out->dead_letters = p->dead_letters;
    out->alerts_log = t->alerts_log;
    out->alerts_warning = t->alerts_warning;
    out->alerts_critical = t->alerts_critical;
    out->working_s = p->working_ns / 1e9;
    out->blocked_s = p->blocked_ns / 1e9;
    out->failed_s = p->failed_ns / 1e9;
    for (unsigned i = 0; i < p->n; i++)
        out->step[i] = p->steps[i].sum;
    return true;
}
