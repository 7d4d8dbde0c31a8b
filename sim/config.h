/*
 * config.h -- what a scenario asks the engine to simulate, as plain values.
 *
 * The scenario loader (scenarios/) fills a sim_config from an INI file; the
 * engine only reads it.  Every field has a default (config_defaults) so a
 * scenario states only what it cares about.  Times are int64 nanoseconds.
 * "Unlimited" counts are SIM_UNLIMITED.
 */
#ifndef SB_CONFIG_H
#define SB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "setting.h"
#include "stormbench/policy.h"
#include "units.h"

#define SIM_UNLIMITED UINT32_MAX
#define SIM_MAX_FAULTS 64
#define SIM_NAME_MAX 64

typedef enum arrival_mode {
    ARRIVAL_OPEN = 0,   /* Poisson, per-client rate: work keeps coming */
    ARRIVAL_CLOSED = 1, /* one request at a time, think time between */
    ARRIVAL_ONCE = 2,   /* exactly one request per client, at a uniform
                           instant in [0, start_window) */
    ARRIVAL_TRACE = 3   /* the requests of a trace (timeline.h) replayed
                           at their recorded instants */
} arrival_mode;

typedef struct client_cfg {
    uint32_t count;
    uint32_t processes;   /* service instances the clients are spread
                                 over; 0 = one per client */
    uint32_t connections; /* connection pool per process: attempts in
                                 flight at once; SIM_UNLIMITED */
    int64_t call_time_ns; /* the client's own time per attempt: an
                                 answer or a local refusal is known no
                                 sooner than this after the call */
    arrival_mode arrival;
    double rate_per_s; /* open loop: each client's Poisson rate;
                                 with a profile, its peak per client */
    /* Open loop: rate = profile(FILE), a rate that changes over the run
     * (timeline.h), borrowed for the process's life; NULL: rate_per_s
     * throughout. */
    const struct rate_profile *profile;
    /* arrival = trace(FILE): the requests replayed, and how many times
     * each is (1: as recorded; 0.5: half of them; 2.5: two or three
     * copies, the copies spread over the gap to the next request). */
    const struct trace *trace;
    double trace_scale;
    dist think;               /* closed loop: time between requests */
    int64_t start_window_ns;  /* once: requests start in [0, this) */
    double mix[3];            /* fractions of read, put, post (sum 1) */
    int64_t timeout_ns;       /* per attempt */
    int64_t deadline_ns;      /* end to end; 0 = none */
    bool idempotency_keys;    /* posts carry an idempotency key */
    double defect_fraction;   /* requests with a data defect (422) */
    double critical_fraction; /* requests on a critical path */
} client_cfg;

typedef enum overflow_mode {
    OVERFLOW_REJECT = 0, /* a full queue answers 503 */
    OVERFLOW_DROP = 1    /* a full queue drops silently: the client times out */
} overflow_mode;

typedef enum server_model {
    MODEL_QUEUE = 0,     /* workers and a FIFO queue */
    MODEL_HOT_RECORD = 1 /* ... where every request is an optimistic
                            update of one shared record: it reads the
                            record's version when its service starts and
                            commits only if no other update committed
                            before its service ends; otherwise it is
                            answered gRPC ABORTED (a conflict) */
} server_model;

typedef enum occ_mode {
    OCC_ONE_STEP = 0,       /* hot record: the version is read when the
                               update's service starts and checked at its
                               end, in one request */
    OCC_TWO_ROUND_TRIPS = 1 /* ... read in a request of its own (served
                               with read_service), then a conditional
                               write in a second request: two round trips
                               per attempt */
} occ_mode;

typedef enum queue_order {
    QUEUE_FIFO = 0, /* oldest first */
    QUEUE_LIFO = 1  /* newest first */
} queue_order;

typedef enum dedupe_answer {
    DEDUPE_REPLAY = 0,  /* a deduplicated post gets the original success */
    DEDUPE_CONFLICT = 1 /* ... gets 409 duplicate_business_key */
} dedupe_answer;

typedef struct server_cfg {
    server_model model;
    uint32_t workers;     /* parallel workers; SIM_UNLIMITED */
    uint32_t queue_limit; /* waiting attempts; SIM_UNLIMITED */
    overflow_mode overflow;
    queue_order queue_order;
    int64_t overflow_retry_after_ns; /* Retry-After on a 503; 0 = none */
    dist service;
    /* Overload degradation: an attempt that starts service while n attempts
     * are in service (itself included) takes service x (1 + degradation x
     * max(0, n - degradation_knee)).  Thrashing: locks, GC, switches. */
    double degradation;
    uint32_t degradation_knee;
    dist network;            /* one-way network delay */
    double rate_limit_per_s; /* token bucket; 0 = none */
    uint32_t rate_limit_burst;
    bool drop_expired; /* skip queued attempts whose caller timed out */
    bool drop_late;    /* ... and those that cannot finish in time */
    occ_mode occ;      /* hot record: how an update is made */
    dist read_service; /* two round trips: the read's service time */
    bool idempotency;  /* dedupe posts that carry a key */
    dedupe_answer dedupe_answer;
} server_cfg;

typedef enum fault_type {
    FAULT_CAPACITY = 0,
    FAULT_LOAD_SPIKE,
    FAULT_OUTAGE,
    FAULT_LATENCY,
    FAULT_SLOWDOWN,
    FAULT_ERRORS,
    FAULT_LOST_ACK,
    FAULT_PARTITION,
    FAULT_RATE_LIMIT,
    FAULT_CLIENT_TIMEOUT,
    FAULT_CRASH, /* a pipeline's job runners crash (pipeline.h) */
    FAULT_TYPE_COUNT
} fault_type;

typedef enum cut_mode {
    CUT_REFUSE = 0,   /* connections are refused at once */
    CUT_BLACKHOLE = 1 /* nothing comes back: the client times out */
} cut_mode;

/* The gRPC pushback an errors fault sends (gRFC A6): none, a delay, or
 * "do not retry" (a negative grpc-retry-pushback-ms). */
enum { FAULT_PUSHBACK_NONE = 0, FAULT_PUSHBACK_DELAY, FAULT_PUSHBACK_STOP };

typedef struct fault_cfg {
    char name[SIM_NAME_MAX];
    fault_type type;
    int64_t start_ns;
    int64_t duration_ns;
    uint32_t workers;       /* capacity: workers while it lasts (fewer or
                               more than configured) */
    double multiplier;      /* load_spike: arrivals x; slowdown: service x */
    cut_mode mode;          /* outage, partition */
    int64_t delay_ns;       /* latency: added to every response;
                               client_timeout: the attempt timeout */
    sb_error_kind kind;     /* errors: SB_ERR_HTTP, _GRPC or _RESET */
    int32_t status;         /* errors: HTTP status or gRPC code */
    int64_t retry_after_ns; /* errors: Retry-After sent with it; 0 = none */
    int32_t pushback_ms;    /* errors: grpc-retry-pushback-ms sent with it,
                               when pushback = FAULT_PUSHBACK_DELAY */
    uint8_t pushback;       /* errors: FAULT_PUSHBACK_NONE, _DELAY, _STOP */
    double probability;     /* errors, lost_ack */
    double fraction;        /* partition: share of clients cut off */
    double rate_per_s;      /* rate_limit */
    uint32_t burst;         /* rate_limit */
    /* Weather instead of one event: with every.mean_ns > 0 the fault
     * recurs, occurrence k starting a gap drawn from `every` after the
     * start of occurrence k - 1 (the first: after start_ns), and never
     * before the one before it has ended.  length.mean_ns > 0: each
     * occurrence lasts a draw from `length` (duration_ns then holds the
     * current or last occurrence's); else duration_ns each.  Draws are
     * keyed by the fault's name (sim/faults.c), so policies share them. */
    dist every;
    dist length;
    uint8_t tier; /* the tier it strikes (sim_config.tiers):
                               0, the top tier ([server]), unless a chain
                               says otherwise; client-side faults
                               (load_spike, partition, client_timeout,
                               crash) always 0 */
} fault_cfg;

/* ---- Service chains (sim/tier.h) ------------------------------------------
 *
 * A chain of tiers: the top tier is [server] (cfg.server), each tier may
 * name one downstream, and a tier with a downstream calls it once per
 * attempt it serves, through a policy stack of its own.  tiers[0] is the
 * top, tiers[i + 1] the downstream of tiers[i]; tiers[0].server is unused
 * (the top's server is cfg.server, so a single-server scenario is read
 * exactly as before).  n_tiers is 0 without a chain, else 2 or more. */
#define SIM_MAX_TIERS 6
#define SIM_TIER_SETTINGS 12

/* A tier's [expect.NAME] assertions (checked by reports/chain.h, not by
 * the engine): over the run, its attempts per request offered at the
 * top, and its utilization. */
typedef enum tier_expect_kind {
    TIER_EXPECT_AMPLIFICATION_MIN = 0,
    TIER_EXPECT_AMPLIFICATION_MAX,
    TIER_EXPECT_UTILIZATION_MIN,
    TIER_EXPECT_UTILIZATION_MAX,
    TIER_EXPECT_KINDS
} tier_expect_kind;

typedef struct tier_cfg {
    char name[SIM_NAME_MAX]; /* [server.NAME]; the top's: [server] name */
    server_cfg server;       /* tiers 1 and up */
    /* The calls this tier makes to the next one down ([policy.NAME]);
     * unused at the bottom. */
    char policy[256];        /* "exponential+token_bucket"; "none" */
    char policy_origin[320]; /* where it was written, for messages */
    setting settings[SIM_TIER_SETTINGS]; /* the stack's parameters */
    uint32_t n_settings;
    int64_t timeout_ns;      /* per attempt of a call */
    uint32_t processes;      /* instances its workers are spread over, for
                                per-process policy state; 0: one per
                                worker */
    bool propagate_deadline; /* a call's deadline is when its caller stops
                                waiting for the attempt it serves (gRPC
                                deadline propagation) */
    bool has_expect[TIER_EXPECT_KINDS];
    double expect[TIER_EXPECT_KINDS];
} tier_cfg;

/* ---- Pipelines (sim/pipeline.h) -------------------------------------------
 *
 * With [pipeline], every client is a job runner: each arrival starts a
 * *job*, a run of steps in order, each step a call to the server ([server])
 * through a policy stack of its own ([step.NAME]).  Absent (n_steps 0),
 * the clients send plain requests, as before.  At most 16 steps: a step
 * call's stream index has four bits for the step (sim/pipeline.c
 * call_index) and a job's step sets are 16-bit masks; more would move
 * every pipeline run's draws. */
#define SIM_MAX_STEPS 16
#define SIM_STEP_SETTINGS 8
#define SIM_MAX_RERUNS 7

/* What a job does when one of its steps fails for good. */
typedef enum pipeline_strategy {
    PIPELINE_FAIL_FAST = 0,  /* the job fails; later steps never run */
    PIPELINE_CONTINUE = 1,   /* later steps marked independent still run;
                                the others are skipped */
    PIPELINE_COMPENSATE = 2, /* the steps done are undone, newest first,
                                each undo a call that can itself fail */
    PIPELINE_PARTIAL = 3     /* a batch step commits its good items and
                                quarantines the bad ones, and the job goes
                                on; any other failure fails fast */
} pipeline_strategy;

typedef struct step_cfg {
    char name[SIM_NAME_MAX]; /* [step.NAME] */
    char policy[256];        /* the stack of its calls ("plan", "none");
                                 empty: the run's own stack ([policy] or
                                 --policy), whose client and process
                                 state the runner's requests share */
    char policy_origin[320]; /* where it was written, for messages */
    setting settings[SIM_STEP_SETTINGS]; /* the stack's parameters */
    uint32_t n_settings;
    int64_t timeout_ns; /* per attempt; 0: [clients] timeout */
    bool has_service;   /* else [server] service */
    dist service;       /* its work at the server, per attempt */
    /* What answers its attempts, beyond what the server and faults do: */
    double transient;   /* share of attempts whose connection is
                                 reset (a flaky dependency), coin per
                                 attempt */
    double permanent;   /* share of jobs whose step is answered 403
                                 on every attempt (a permanent error) */
    double defect;      /* share of jobs whose step's input has a
                                 data defect: 422 on every attempt */
    uint32_t items;     /* a batch of this many items; 0: one call
                                 that is not a batch */
    double item_defect; /* batch: share of items with a data defect */
    bool idempotent;    /* its writes are deduplicated: redoing it
                                 commits nothing twice */
    bool independent;   /* continue: runs even when an earlier step
                                 failed or was skipped */
    bool has_undo;      /* compensate: it can be undone */
    dist undo_service;  /* ... by a call with this service */
} step_cfg;

typedef struct pipeline_cfg {
    uint32_t n_steps;              /* 0: no pipeline */
    step_cfg steps[SIM_MAX_STEPS]; /* in the order they run */
    pipeline_strategy strategy;
    bool checkpoints;            /* a rerun resumes after the last step done,
                                 not from the first */
    uint32_t reruns;             /* runs of a failed job after the first */
    int64_t rerun_delay_ns;      /* from a failure to the rerun */
    int64_t sla_ns;              /* a job's deadline after its start; 0 none */
    uint32_t warn_retry;         /* the retry of a step that raises a warning
                                 (earlier ones are only logged) */
    uint32_t dead_letter_growth; /* buckets in a row the dead-letter queue
                                    grows before a critical alert */
} pipeline_cfg;

/* A branch path (sim.h, sim_rekey): the run re-keys its random streams
 * with key at each step's time, in order -- how the risk estimate's
 * splitting reached a trajectory, replayed by any front end.  [scenario]
 * branch = AT:KEY ...; no step: a plain run. */
#define SIM_MAX_BRANCH 64
typedef struct sim_branch_step {
    int64_t at_ns; /* positive, never decreasing */
    uint64_t key;
} sim_branch_step;

typedef struct sim_branch {
    uint32_t n;
    sim_branch_step step[SIM_MAX_BRANCH];
} sim_branch;

typedef struct sim_config {
    char name[SIM_NAME_MAX];
    char description[512];
    uint64_t seed;
    sim_branch branch; /* re-keyings on the way; n = 0: none */
    int64_t duration_ns;
    int64_t warmup_ns;          /* excluded from the baseline */
    int64_t bucket_ns;          /* metrics resolution */
    int64_t recovery_window_ns; /* goodput must hold this long to recover */
    client_cfg clients;
    server_cfg server;
    fault_cfg faults[SIM_MAX_FAULTS];
    uint32_t n_faults;
    tier_cfg tiers[SIM_MAX_TIERS]; /* a service chain; see above */
    uint32_t n_tiers;
    pipeline_cfg pipeline;        /* jobs of steps; see above */
    uint32_t trace_sample;        /* trace 1 in N requests; 0 = none */
    uint64_t instant_event_limit; /* events at one instant before the run
                                     stops as a stopped clock; 0: the
                                     default (sim.h); not in scenario files */
} sim_config;

/* Fill c with the defaults documented in README.md. */
void config_defaults(sim_config *c);
/* ... and a server with them: [server]'s, or a tier's [server.NAME]. */
void config_server_defaults(server_cfg *s);

/* A step with the defaults: the run's stack, [server] service, the
 * clients' timeout, nothing failing, not a batch. */
void config_step_defaults(step_cfg *st);
/* The strategy's name as written in a scenario ("fail_fast"), and back. */
const char *pipeline_strategy_name(pipeline_strategy p);
int pipeline_strategy_parse(const char *s, pipeline_strategy *p);

/* The fault type's name as written in a scenario ("load_spike"), and back. */
const char *fault_type_name(fault_type t);
int fault_type_parse(const char *s, fault_type *t);
/* Every type's name, in the enum's order, joined by ", " into buf
 * ("capacity, load_spike, ..."): what an error message offers. */
const char *fault_type_list(char *buf, size_t len);

/* What fault f does while it lasts, in words -- the one describer of
 * every fault type (faults.c, beside what each type does), read by the
 * comparison report's title page and the GUI's chart:
 *   FAULT_WORDS_LONG   a sentence's start, the type and its parameters
 *                      ("black-hole outage: nothing answers, clients time
 *                      out", "load spike: arrivals x3");
 *   FAULT_WORDS_BRIEF  a chart label ("outage", "load x3", "503s on 50 %").
 * Neither says when, how long, at which tier or the fault's own name.
 * Writes into buf (len bytes, always terminated when len > 0); returns
 * buf. */
typedef enum fault_words_form {
    FAULT_WORDS_LONG,
    FAULT_WORDS_BRIEF
} fault_words_form;
const char *fault_words(const fault_cfg *f, fault_words_form form, char *buf,
                        size_t len);

#endif
