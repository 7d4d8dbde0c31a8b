/*
 * sim.h -- the discrete-event engine: clients running a policy stack
 * against a modeled server, with faults.  The API every front end uses.
 *
 * Lifecycle: sim_create() from a config and a policy stack (both borrowed:
 * they must outlive the sim), then sim_run_until() as many times as wanted
 * -- the CLI runs to the end in one call, the GUI a frame at a time -- and
 * sim_destroy().  Faults in the config are scheduled at creation;
 * sim_inject() adds one while running.
 *
 * Determinism: the engine never reads the wall clock or a global random
 * generator; same config, seed and policy give the same event sequence.
 *
 * Observers (metrics consumers, trace writers) are called from inside
 * sim_run_until() and sim_finish(); they must not call back into the sim
 * except through the const accessors.
 */
#ifndef SB_SIM_H
#define SB_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "err.h"
#include "metrics.h"
#include "phases.h"
#include "pstack.h"

typedef struct sim sim;

/* A run stops with an error when more than this many events (plus 32 per
 * client) happen at one simulated instant: the clock has stopped. */
#define SIM_INSTANT_EVENTS 10000000u

/* A trace record: one per attempt sent, attempt ended and request ended,
 * for sampled requests only. */
typedef enum trace_kind {
    TRACE_SEND = 0,   /* an attempt was sent, or refused locally */
    TRACE_RESULT = 1, /* an attempt ended (answer or timeout) + decision */
    TRACE_END = 2     /* the logical request ended */
} trace_kind;

typedef struct sim_trace {
    trace_kind kind;
    sb_refusal refusal; /* TRACE_SEND: why, when refused */
    int64_t time_ns;
    uint32_t client;
    uint32_t request;                /* the client's request number */
    const sb_attempt *attempt;       /* what the policy was shown */
    bool refused;                    /* TRACE_SEND: the stack refused it */
    bool hedge;                      /* TRACE_SEND: sent as a hedge */
    const pstack_decision *decision; /* TRACE_RESULT after a failure */
    bool decision_ignored;           /* other attempts still wait (hedging) */
    const char *limit;               /* TRACE_RESULT: the host limit that
                                   overrode the stack (driver.h), or NULL */
    const char *reason;              /* refusals */
    sb_outcome outcome;              /* TRACE_END */
    const pstack *stack;             /* the stack that decided: the layers
                                   decision names are its */
    const char *caller;              /* NULL for the clients' requests; a
                                   pipeline step's calls: "step 'load'" */
} sim_trace;

typedef struct sim_observer {
    void *ctx;
    /* A metrics bucket closed: every bucket of the run, in order, at the
     * scenario's bucket width whatever the kept series merges (see
     * metrics.h), the last one from sim_finish().  b (its counters, start
     * and width) and h (its latency histograms) are borrowed, valid
     * during the call only. */
    void (*bucket_closed)(void *ctx, const sim *s, const metrics_bucket *b,
                          const metrics_hist *h);
    /* A trace record for a sampled request (see sim_config.trace_sample). */
    void (*trace)(void *ctx, const sim_trace *t);
    /* true: bucket_closed is not called for a quiet bucket
     * (phases_bucket_quiet), most of a short run's.  The buckets tile the
     * run from 0 at the scenario's width, so the observer knows the ones
     * it was not told of from the next one's start_ns, and those after
     * the last it was told of from the duration: a run to its duration
     * closes ceil(duration / bucket) buckets, the last in sim_finish().
     * (compare's reducer: its call and test for each of hot-record's 600
     * buckets were a third of its own work, bench/README.md.) */
    bool skip_quiet;
} sim_observer;

/* Build a sim.  cfg and ps are borrowed and must outlive it. */
int sim_create(const sim_config *cfg, pstack *ps, sim **out, sb_err *e);
void sim_destroy(sim *s);
/* Make *sp a sim for (cfg, ps) that runs exactly as a new one from
 * sim_create, reusing the memory of the sim *sp holds (NULL: create one):
 * for front ends that run many short runs one after another (compare's
 * workers).  Its observers are gone, as in a new sim.  The old run's
 * config and stack need not be alive any more: nothing of them is read.
 * On failure *sp is NULL (the old sim destroyed) and -1 with a message
 * in e. */
int sim_reuse(sim **sp, const sim_config *cfg, pstack *ps, sb_err *e);

/* ---- Branching: copies of a running sim (the risk estimate) -------------
 *
 * sim_clone copies every piece of src's state as it is now -- the event
 * queue, the records, the clients and callers with their policy state,
 * the server(s), tiers, pipeline, faults, metrics, the random streams'
 * key -- into a new sim that goes on independently: run to the same time,
 * src and the copy give the same bytes.  The copy has no observers (they
 * belong to src's front end) and shares src's configuration, which must
 * outlive it.  Its clients run `ps` (borrowed, must outlive the copy):
 *   - src's own stack, when pstack_shareable says no layer's shared state
 *     changes while it runs (every built-in policy): one stack then
 *     serves a run and its copies, in one thread at a time;
 *   - else a copy of it made now (pstack_clone), as every layer's clone
 *     hook or SB_POLICY_SHARED_READONLY allows.  A stack with a plug-in
 *     that has neither is refused with a message naming it.
 * NULL means src's.  A tier's or a pipeline step's own stack (built-in
 * policies only) is copied with the sim.  -1 with a message in e.
 *
 * sim_rekey gives a copy random streams of its own from now on: every
 * draw not yet made (service times, network delays, arrivals, fault
 * coins, the weather's gaps and lengths, the policies' jitter) comes from
 * a key derived from the current one and `key`, so two copies re-keyed
 * with different keys diverge, and a run is reproducible from its seed
 * and its branch path -- the (time, key) of each re-keying: create it,
 * and for each step run_until(time) then rekey(key).  What was drawn
 * before the branch point stays (a queued attempt's service is drawn when
 * it starts, so it is drawn anew).  Two draws stay keyed by the scenario's
 * seed whatever the path: which clients a partition cuts off, so that a
 * partition running at the branch point cuts the same clients, and a
 * pipeline job's permanent and defect coins -- the same job keeps its
 * fate.  A run that never branches draws exactly what it always did. */
int sim_clone(const sim *src, pstack *ps, sim **out, sb_err *e);
void sim_rekey(sim *s, uint64_t key);
/* The key every random stream is drawn from now: the scenario's seed
 * until the first sim_rekey. */
uint64_t sim_stream_key(const sim *s);

/* Add an observer (at most 8); o is copied. */
int sim_observe(sim *s, const sim_observer *o);

/* Run every event before time t (ns), then set the clock to t.  Returns 0,
 * or -1 when the run had to stop (a policy broke its contract, memory ran
 * out, simulated time stopped advancing) with the reason in sim_error().
 * Calling again after an error returns -1 at once. */
int sim_run_until(sim *s, int64_t t);

/* Start a fault now or at f->start_ns, whichever is later.  The fault is
 * copied; returns its index, or -1 with a message in e.  Its name must
 * differ from every other fault's: the name keys its random draws (so the
 * same fault, saved in a scenario, fails the same attempts). */
int sim_inject(sim *s, const fault_cfg *f, sb_err *e);
/* End fault i now: a running fault stops (its duration becomes what it
 * ran); one that has not begun never will (its duration becomes 0, and
 * it counts for no phase).  False, and nothing done, when it is over. */
bool sim_end_fault(sim *s, int index);
/* Is fault i running now? */
bool sim_fault_active(const sim *s, int index);
/* How many times fault `index` has begun: 0 or 1 for a fault that happens
 * once, the occurrences so far for a recurring one (fault_cfg.every). */
uint32_t sim_fault_occurrences(const sim *s, int index);

int64_t sim_now(const sim *s);
/* When the last logical request ended (success or failure), ns. */
int64_t sim_last_finish(const sim *s);
const sim_config *sim_config_of(const sim *s);
const metrics *sim_metrics(const sim *s);
const char *sim_error(const sim *s);

/* Close the last bucket (observers get it) and total the run (call once,
 * after the last sim_run_until; sim_metrics() then has totals). */
void sim_finish(sim *s);

/* What each client is doing now, one byte per client, for front ends
 * (the GUI's field of clients).  Updated on transitions; policies never
 * see it.  A client with several requests open (open loop) shows its
 * latest transition. */
typedef enum sim_client_mode {
    CLIENT_IDLE = 0,    /* nothing open, or its last request succeeded */
    CLIENT_WAITING,     /* an attempt is on its way or being served */
    CLIENT_POOL_WAIT,   /* an attempt waits for a pooled connection */
    CLIENT_BACKING_OFF, /* waiting out a retry delay */
    CLIENT_REFUSED,     /* its last send was refused locally */
    CLIENT_GAVE_UP,     /* its last request failed */
    CLIENT_MODE_COUNT
} sim_client_mode;

/* Queued attempts sim_server_state looks at, at most, to count the
 * abandoned ones: past this the count is an estimate, within about
 * 1/sqrt(4096) = 1.6 % of the queue (one standard deviation at worst);
 * looking at each costs a cache miss, and a front end asks every frame. */
#define SIM_ABANDONED_SAMPLE 4096u

/* The server now, for front ends (O(busy) + at most SIM_ABANDONED_SAMPLE
 * queued attempts looked at). */
typedef struct sim_server_now {
    uint32_t busy, workers, queued;
    uint32_t queue_limit;      /* SIM_UNLIMITED when none */
    uint32_t abandoned_busy;   /* in service for a client that gave up */
    uint32_t abandoned_queued; /* queued for a client that gave up */
    bool abandoned_estimated;  /* abandoned_queued is from a sample */
    bool down;                 /* an outage is running */
} sim_server_now;
void sim_server_state(const sim *s, sim_server_now *out);

/* The faults of the run, configured ones first, then injected ones, as
 * they are now (an injected fault ended early has its real duration). */
const fault_cfg *sim_faults(const sim *s, uint32_t *n);

/* n_clients bytes of sim_client_mode; valid until sim_destroy. */
const uint8_t *sim_client_modes(const sim *s);
uint32_t sim_clients(const sim *s);
uint32_t sim_processes(const sim *s);

/* A service chain's tiers (sim/tier.h): 0 without a chain, else the
 * tiers from the top (index 0, whose metrics are sim_metrics) down.  A
 * tier's metrics count what reached it: the calls made to it (offered),
 * the attempts sent to it, their timeouts, the calls' outcomes, and its
 * server's work (served, busy, queue, wasted); valid as sim_metrics. */
typedef struct sim_tier_info {
    const char *name;
    const metrics *m;
    bool calls_down;  /* it has a downstream */
    uint32_t workers; /* now */
} sim_tier_info;
uint32_t sim_tiers(const sim *s);
void sim_tier(const sim *s, unsigned i, sim_tier_info *out);

/* A tier's run, totalled (after sim_finish). */
typedef struct sim_tier_summary {
    const char *name;
    uint32_t workers; /* configured; SIM_UNLIMITED */
    bool calls_down;
    uint64_t calls;       /* logical requests that reached it: the
                               clients' at the top, else its caller's calls */
    uint64_t attempts;    /* attempts sent to it */
    double amplification; /* attempts / the top's offered requests */
    uint64_t served;      /* attempts that started service */
    uint64_t rejections, timeouts;
    uint64_t successes, failures; /* of the calls (requests at the top) */
    double mean_busy_workers;
    double utilization; /* mean busy / workers; 0 when unlimited */
    uint32_t max_queue;
    double wasted_work_s;     /* its own service spent on answers nobody used */
    double wasted_work_share; /* ... of its service */
} sim_tier_summary;
void sim_tier_summary_of(const sim *s, unsigned i, sim_tier_summary *out);

/* A pipeline's run, totalled (after sim_finish; sim/pipeline.h has the
 * model).  sim_pipeline_summary_of returns false when the run has no
 * pipeline. */
typedef struct sim_step_summary {
    const char *name;
    uint64_t calls;       /* calls made (a rerun's included), undos not */
    uint64_t attempts;    /* attempts they sent (undos' not) */
    uint64_t succeeded;   /* calls that succeeded (a batch with
                             quarantined items under partial included) */
    uint64_t failed;      /* calls that ended failed: gave up, deadline,
                             refused, quarantined */
    uint64_t skipped;     /* job runs that never ran it (fail_fast, or a
                             dependent step under continue) */
    uint64_t redone;      /* calls that redid it after an earlier run of
                             the job had completed it (no checkpoint) */
    uint64_t undone;      /* undos that succeeded */
    uint64_t undo_failed; /* undos that failed */
} sim_step_summary;

typedef struct sim_pipeline_summary {
    pipeline_strategy strategy;
    bool checkpoints;
    uint32_t steps;
    uint64_t jobs;         /* jobs started */
    uint64_t completed;    /* every step done */
    uint64_t within_sla;   /* ... by the job's deadline (all of them
                                  when there is no SLA) */
    uint64_t partial;      /* continue: ended with steps failed or
                                  skipped, the independent ones done */
    uint64_t failed;       /* ended failed, reruns spent (fail_fast,
                                  partial) */
    uint64_t compensated;  /* compensate: failed, every done step
                                  undone */
    uint64_t inconsistent; /* compensate: an undo failed, so the job's
                                  effects are half there */
    uint64_t unfinished;   /* still running when the run ended */
    uint64_t runs, reruns; /* job runs; of which reruns */
    uint64_t retries;      /* attempts after the first of a call,
                                  undos' included (their alerts too) */
    uint64_t late_retries; /* ... that ended after the job's deadline */
    uint64_t items_committed, items_duplicated, items_quarantined;
    uint64_t dead_letters; /* the dead-letter queue at the end: items
                                  and non-batch calls quarantined */
    uint64_t alerts_log, alerts_warning, alerts_critical;
    /* Job time, summed over jobs, in seconds: waiting for an answer
     * (working), waiting out retry delays (blocked), and failed (from a
     * failed run to its rerun, and after a final failure until the job's
     * deadline). */
    double working_s, blocked_s, failed_s;
    sim_step_summary step[SIM_MAX_STEPS];
} sim_pipeline_summary;
bool sim_pipeline_summary_of(const sim *s, sim_pipeline_summary *out);

/* Engine statistics. */
typedef struct sim_stats {
    uint64_t events;        /* events taken off the queue */
    uint64_t requests_live; /* logical requests in memory now */
    uint64_t attempts_live;
    size_t queue_len; /* pending events now */
    size_t heap_len;  /* of which in the event queue (the rest: the
                             * one event at now waiting beside it) */
    size_t bytes;     /* memory the engine holds */
} sim_stats;
void sim_get_stats(const sim *s, sim_stats *out);

/* The time of the end of the last configured or injected fault, or -1 when
 * there is none; and the start of the first, or -1.  A fault ended before
 * it began (duration 0) does not count. */
int64_t sim_last_fault_end(const sim *s);
int64_t sim_first_fault_start(const sim *s);

/* The figures of each phase of the run (phases.h) over the buckets closed
 * so far: after sim_finish, the whole run's. */
void sim_phase_figures(const sim *s, sim_phase out[PHASE_COUNT]);

#endif
