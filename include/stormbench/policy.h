/*
 * stormbench/policy.h -- the retry-policy plug-in ABI, version 2.
 *
 * Built-in policies and user plug-ins (.so files loaded with dlopen) are
 * both described by an sb_policy: a versioned table of parameters and hooks.
 * The host (the stormbench engine, `stormbench decide`, `validate`) owns
 * all memory: it builds the policy's shared state through create(), and
 * gives each process, each client and each logical request a zeroed block
 * of the size the policy asks for.  A policy sees only what a real client
 * would see: its own attempts, their errors and timings, the server's
 * Retry-After and pushback headers.  It never sees the server's queue,
 * another process, or the wall clock.
 *
 * Three scopes of state, as real client libraries keep them:
 *   process  one service instance (an OS process, a pod) with many
 *            concurrent users: gRPC's retry throttle, Finagle's retry
 *            budget, Envoy's budget, a circuit breaker for a destination
 *            all live here.  [clients] processes = N spreads the clients
 *            over N processes (by default each client is its own process).
 *   client   one user of the process: what is private to one caller.
 *   request  one logical request and its attempts: the backoff's previous
 *            delay, the hedges sent.
 *
 * Compatibility rules (the LV2 / Redis-modules convention):
 *   - SB_POLICY_ABI_MAJOR changes when an existing field changes meaning or
 *     place; the host refuses a plug-in whose abi_major differs from its
 *     own.  There are no compatibility shims: a plug-in built for 1.x must
 *     be rebuilt against this header.
 *   - Fields are only ever appended to the growable structs: sb_policy,
 *     sb_attempt, sb_ctx, sb_host, sb_verdict, sb_decision.  Each begins
 *     with its own struct_size; a reader touches a field only if that size
 *     covers it.  The host allocates the sb_verdict and sb_decision a hook
 *     fills, so a plug-in built against an older header fills only the
 *     fields it knows.
 *   - Frozen (their size never changes, because they sit in arrays the
 *     host indexes): sb_param and sb_value.
 *   - Every field is a fixed-width integer, a double, or a pointer; named
 *     constants (SB_OP_READ ...) are integer constants, never enum-typed
 *     fields, whose size a compiler may choose.  The layout is pinned by
 *     the SB_ABI_ASSERT lines at the end of this header, so a plug-in's own
 *     build checks it (LP64 platforms).
 *   - All times crossing this interface are double seconds of simulated
 *     time.
 *
 * Threading: the engine is single-threaded per run; hooks of one run are
 * never called concurrently.  Two runs in one process (the GUI's side by
 * side view, the comparison's worker threads) each have their own shared
 * state, so a hook may write its state blocks but must not keep mutable
 * globals.  Hooks must not block or keep pointers to the sb_attempt,
 * sb_verdict or sb_decision they are given (borrowed, valid during the
 * call).
 */
#ifndef STORMBENCH_POLICY_H
#define STORMBENCH_POLICY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SB_POLICY_ABI_MAJOR 2
#define SB_POLICY_ABI_MINOR 2

#if defined(__GNUC__)
#define SB_EXPORT __attribute__((visibility("default")))
#else
#define SB_EXPORT
#endif

/* ---- What a request is -------------------------------------------------- */

typedef uint32_t sb_op;
enum {
    SB_OP_READ = 0, /* a read: always safe to repeat */
    SB_OP_PUT = 1,  /* a naturally idempotent write (same result if repeated) */
    SB_OP_POST = 2  /* a non-idempotent write: repeating it may duplicate */
};

/* How an attempt ended, as the client observed it. */
typedef uint32_t sb_error_kind;
enum {
    SB_ERR_NONE = 0,    /* success */
    SB_ERR_TIMEOUT = 1, /* no answer before the attempt timeout */
    SB_ERR_REFUSED = 2, /* connection refused: the request was never sent */
    SB_ERR_RESET = 3,   /* connection reset after the request was sent */
    SB_ERR_HTTP = 4,    /* an HTTP error status, in sb_attempt.status */
    SB_ERR_GRPC = 5     /* a gRPC status code, in sb_attempt.status */
};

/* gRPC status codes (grpc/status.h numbering). */
enum {
    SB_GRPC_OK = 0,
    SB_GRPC_CANCELLED = 1,
    SB_GRPC_UNKNOWN = 2,
    SB_GRPC_INVALID_ARGUMENT = 3,
    SB_GRPC_DEADLINE_EXCEEDED = 4,
    SB_GRPC_NOT_FOUND = 5,
    SB_GRPC_ALREADY_EXISTS = 6,
    SB_GRPC_PERMISSION_DENIED = 7,
    SB_GRPC_RESOURCE_EXHAUSTED = 8,
    SB_GRPC_FAILED_PRECONDITION = 9,
    SB_GRPC_ABORTED = 10,
    SB_GRPC_OUT_OF_RANGE = 11,
    SB_GRPC_UNIMPLEMENTED = 12,
    SB_GRPC_INTERNAL = 13,
    SB_GRPC_UNAVAILABLE = 14,
    SB_GRPC_DATA_LOSS = 15,
    SB_GRPC_UNAUTHENTICATED = 16
};

/* The error code in the body of a 4xx answer, when the server gave one:
 * the data-defect kinds a pipeline task distinguishes. */
typedef uint32_t sb_defect;
enum {
    SB_DEFECT_NONE = 0,
    SB_DEFECT_INVALID_SCHEMA = 1, /* 422: the payload fails validation */
    SB_DEFECT_MISSING_FIELD = 2,  /* 422: a required field is absent */
    SB_DEFECT_DUPLICATE_BUSINESS_KEY =
        3 /* 409: the key was already committed */
};

/* What the classifier (sb_host.classify) makes of an error. */
typedef uint32_t sb_error_class;
enum {
    SB_CLASS_NONE = 0, /* not an error */
    SB_CLASS_TRANSIENT = 1,
    SB_CLASS_PERMANENT = 2,
    SB_CLASS_DATA_DEFECT = 3,
    SB_CLASS_RESOURCE_EXHAUSTION = 4,
    SB_CLASS_UNKNOWN = 5
};

typedef uint32_t sb_confidence;
enum { SB_CONFIDENCE_LOW = 0, SB_CONFIDENCE_HIGH = 1 };

/* sb_attempt.pushback_s when the server's gRPC pushback says "do not
 * retry" (grpc-retry-pushback-ms with a negative or unparsable value, in
 * gRFC A6); SB_PUSHBACK_NONE when the answer carried none. */
#define SB_PUSHBACK_NONE (-1.0)
#define SB_PUSHBACK_STOP (-2.0)

/* One attempt, as the client saw it.  Given to every hook; borrowed. */
typedef struct sb_attempt {
    uint32_t struct_size; /* sizeof(sb_attempt) as the host compiled it */
    uint32_t attempt;     /* 1-based number of this attempt of the request */
    sb_op op;
    uint32_t outstanding; /* other attempts of this request still waiting */
    uint8_t keyed;        /* the request carries an idempotency key */
    uint8_t critical;     /* the request is on a critical path */
    uint8_t hedge;        /* this attempt is (or would be) a hedge, sent
                             while an earlier attempt of the request still
                             waits */
    uint8_t sent;         /* the attempt reached the wire (0 when the
                             connection was refused, or it never left the
                             client's connection pool) */
    /* The outcome fields below are set in on_success, on_failure,
     * on_decision and on_request_end; 0 (or "absent") in before_send. */
    sb_error_kind error;
    int32_t status;       /* HTTP status or gRPC code; 0 when none */
    sb_defect defect;     /* error code in the body, when any */
    double now_s;         /* simulated time */
    double elapsed_s;     /* since the logical request started */
    double remaining_s;   /* until its end-to-end deadline; +inf when none */
    double timeout_s;     /* this attempt's effective timeout: the configured
                           one, or the time left before the deadline if
                           that is shorter */
    double latency_s;     /* from this attempt's send to its outcome */
    double retry_after_s; /* the server's Retry-After; negative when absent */
    double configured_timeout_s; /* the per-attempt timeout as configured */
    double pushback_s;           /* gRPC retry pushback: >= 0 a delay, or
                          SB_PUSHBACK_NONE / SB_PUSHBACK_STOP */
} sb_attempt;

/* ---- What a policy decides ---------------------------------------------- */

typedef uint32_t sb_send;
enum {
    SB_SEND_ALLOW = 0,
    SB_SEND_REFUSE = 1 /* refuse locally: breaker open, budget spent ... */
};

/* Why a send was refused: the summary counts each.  A deadline refusal
 * ends the request as a deadline failure; the others as refused locally. */
typedef uint32_t sb_refusal;
enum {
    SB_REFUSAL_OTHER = 0,
    SB_REFUSAL_DEADLINE = 1, /* no time left before the request's deadline */
    SB_REFUSAL_BUDGET = 2,   /* a retry budget, quota, token bucket or
                                throttle is spent */
    SB_REFUSAL_BREAKER = 3,  /* a circuit breaker is open */
    SB_REFUSAL_COUNT = 4
};

/* before_send's answer.  The host fills it with "allow" before the call;
 * the hook changes what it decides. */
typedef struct sb_verdict {
    uint32_t struct_size;
    sb_send action;
    sb_refusal refusal;   /* when action is SB_SEND_REFUSE */
    uint32_t reserved;    /* 0 */
    double hedge_after_s; /* > 0: if no answer after this long, send a
                             hedge.  (2.1) If an attempt fails before
                             then, the hedge is sent at once (gRFC A6's
                             non-fatal failure) unless a layer's
                             before_send refuses it (policies/driver.h,
                             rule 0) */
    const char *reason;   /* static string for traces, or NULL */
} sb_verdict;

typedef uint32_t sb_action;
enum {
    SB_PASS = 0,      /* no opinion: defer to the other layers of the stack;
                         delay_s still acts as a lower bound on the delay */
    SB_RETRY = 1,     /* retry after delay_s seconds */
    SB_GIVE_UP = 2,   /* stop; the request fails */
    SB_QUARANTINE = 3 /* stop; the request is set aside as a poison message */
};

/* on_failure's answer, and the stack's final decision given to
 * on_decision.  The host fills it with SB_PASS before on_failure.  In a
 * stack (a+b+c) quarantine beats give-up beats retry beats pass; the
 * delay is the largest any layer proposed. */
typedef struct sb_decision {
    uint32_t struct_size;
    sb_action action;
    double delay_s;
    const char *reason; /* static string for traces, or NULL */
} sb_decision;

/* How a logical request ended, for on_request_end. */
typedef uint32_t sb_outcome;
enum {
    SB_OUTCOME_SUCCESS = 0,
    SB_OUTCOME_GAVE_UP = 1,
    SB_OUTCOME_DEADLINE = 2,
    SB_OUTCOME_REFUSED = 3, /* a send was refused locally */
    SB_OUTCOME_QUARANTINED = 4
};

/* ---- The host interface ------------------------------------------------- */

struct sb_host;

/* The context of one hook call.  Borrowed, valid during the call. */
typedef struct sb_ctx {
    uint32_t struct_size;
    uint32_t client;     /* this client's id, 0-based */
    uint32_t process;    /* its process's id, 0-based */
    uint32_t reserved;   /* 0 */
    void *shared;        /* what create() returned */
    void *process_state; /* process_state_size bytes: zeroed, then
                             process_init; shared by the process's clients */
    void *client_state;  /* client_state_size bytes: zeroed, then
                             client_init */
    void *request_state; /* request_state_size bytes, zeroed when the
                             logical request starts; NULL in the init hooks */
    const struct sb_host *host;
    void *host_data; /* the host's; pass ctx to host functions */
} sb_ctx;

/* The host's functions.  Every function this struct's struct_size
 * covers is set, never NULL, in every hook of every host (the
 * simulation, a pipeline step's or a tier's calls, `run`'s and
 * `validate`'s worst-case probe, `decide`): a plug-in calls them without
 * checking.  Where a host has no use for a report (breaker, level in a
 * probe or in `decide`) the function does nothing. */
typedef struct sb_host {
    uint32_t struct_size;
    uint32_t reserved;
    /* A uniform number in [0, 1) from this client's policy random stream.
     * Deterministic: the same seed gives the same sequence. */
    double (*uniform)(const sb_ctx *ctx);
    /* Report that the breaker this state belongs to opened (1) or closed
     * (0); the host counts open breakers in its metrics. */
    void (*breaker)(const sb_ctx *ctx, int32_t open);
    /* Classify an error: the shared classifier built-in policies use. */
    void (*classify)(const sb_attempt *a, sb_error_class *cls,
                     sb_confidence *conf);
    /* Report how much of its retry allowance (tokens, budget, quota) the
     * process has left, as a fraction of full in [0, 1]; the host shows
     * the mean over processes.  A policy without an allowance need not
     * call it (the host always provides it). */
    void (*level)(const sb_ctx *ctx, double fraction);
} sb_host;

/* ---- Parameters --------------------------------------------------------- */

typedef uint32_t sb_param_type;
enum {
    SB_PARAM_INT = 0,      /* integer; range [min, max] */
    SB_PARAM_REAL = 1,     /* real number; range [min, max] */
    SB_PARAM_DURATION = 2, /* "250ms", "2s"; seconds in sb_value.d */
    SB_PARAM_BOOL = 3,     /* true/false */
    SB_PARAM_CHOICE = 4,   /* one of choices ("a|b|c"); index in sb_value.i */
    SB_PARAM_SET = 5       /* (2.1) any subset of choices (at most 63),
                              written "a,c"; "" is the empty set, "all"
                              every choice.  Bit i of sb_value.i is choice
                              i.  A 2.0 host refuses a table that uses it. */
};

/* One parameter of a policy: listed by `stormbench policies`, checked by
 * the host before create() is called, so create() sees only values of the
 * declared type inside [min, max].  Frozen. */
typedef struct sb_param {
    const char *name;
    sb_param_type type;
    const char *default_value; /* as a user would write it: "100ms", "full" */
    const char *doc;           /* one line */
    const char *choices;       /* CHOICE, SET: "none|full|equal" */
    double min, max;           /* INT, REAL, DURATION (seconds): inclusive */
} sb_param;

/* Frozen. */
typedef union sb_value {
    int64_t i; /* INT, BOOL (0/1), CHOICE (index) */
    double d;  /* REAL, DURATION (seconds) */
} sb_value;

/* ---- The policy --------------------------------------------------------- */

enum {
    SB_POLICY_LAYER = 1u, /* a layer meant to be stacked on a backoff policy
                             (it never asks for a retry by itself) */
    /* (2.2) Its shared state never changes after create() returns: every
     * hook reads it and none writes it.  A copy of a running simulation
     * (the risk estimate's splitting, `stormbench risk`) then gets its
     * own shared state by calling create() again with the same values,
     * and needs no clone hook.  Every built-in policy sets it. */
    SB_POLICY_SHARED_READONLY = 2u
};

typedef struct sb_policy {
    uint32_t abi_major;     /* SB_POLICY_ABI_MAJOR */
    uint32_t abi_minor;     /* SB_POLICY_ABI_MINOR */
    uint32_t struct_size;   /* sizeof(sb_policy) */
    uint32_t flags;         /* SB_POLICY_LAYER ... */
    const char *name;       /* [a-z0-9_]+, unique */
    const char *doc;        /* one line */
    const char *scope;      /* one line: where its state lives and why
                             ("per process: one bucket per channel, as gRPC
                             keeps it"); NULL for a stateless policy */
    const sb_param *params; /* terminated by an entry whose name is NULL */

    /* Build the shared state from checked parameter values (one per entry
     * of params, in order).  Return 0, or nonzero after writing a message
     * into err.  *shared may be left NULL by a stateless policy. */
    int32_t (*create)(const sb_value *values, void **shared, char *err,
                      size_t errlen);
    /* Free what create() made.  Called once, with NULL allowed. */
    void (*destroy)(void *shared);
    /* Bytes of state per process, per client, per request; NULL or 0 for
     * none.  Called once, after create(). */
    size_t (*process_state_size)(const void *shared);
    size_t (*client_state_size)(const void *shared);
    size_t (*request_state_size)(const void *shared);
    /* Initialise a process's or a client's zeroed state.  May be NULL.
     * A process is initialised before any of its clients. */
    void (*process_init)(const sb_ctx *ctx);
    void (*client_init)(const sb_ctx *ctx);
    /* Before every attempt (first, retry or hedge).  May be NULL: allow.
     * Must not spend anything (tokens, budget): a later layer may still
     * refuse the send.  Spend in on_decision.
     *
     * Which hook sees a send that really happened: not this one -- the
     * send it is asked about may still be refused by a later layer of
     * the stack, and then never happens (a refused first try or retry
     * ends the request; a refused hedge is not sent).  No hook is called
     * at the moment an attempt goes out.  Every attempt that was sent,
     * and whose answer or timeout its client waited for, is reported
     * exactly once, by on_success or on_failure, with a->attempt its
     * number among the attempts really sent (refused sends take no
     * number) and a->sent whether it reached the wire; an attempt the
     * client stopped waiting for because another copy of the request
     * (a hedge) answered first is reported by neither.  on_decision
     * with SB_RETRY announces a retry the host will ask before_send
     * about after the delay: it too may still be refused then. */
    void (*before_send)(const sb_ctx *ctx, const sb_attempt *a,
                        sb_verdict *out);
    /* An attempt succeeded.  May be NULL. */
    void (*on_success)(const sb_ctx *ctx, const sb_attempt *a);
    /* An attempt failed: retry, give up, quarantine, or pass. */
    void (*on_failure)(const sb_ctx *ctx, const sb_attempt *a,
                       sb_decision *out);
    /* What was finally decided for that failure, after every layer and
     * the host's own limits (deadline, attempts) had their say: SB_RETRY
     * with the delay that will be waited, SB_GIVE_UP or SB_QUARANTINE (the
     * request ends; reason says why), or SB_PASS when nothing was decided
     * because another attempt of the request still waits.  Called for
     * every layer after each on_failure.  May be NULL. */
    void (*on_decision)(const sb_ctx *ctx, const sb_attempt *a,
                        const sb_decision *final);
    /* The logical request ended; a describes its last attempt.  May be
     * NULL. */
    void (*on_request_end)(const sb_ctx *ctx, const sb_attempt *a,
                           sb_outcome outcome);
    /* (2.2) Copy the shared state of a running simulation into a new one
     * that destroy() frees: the copy goes on from where `shared` is,
     * independently of it.  Called when the host copies a running
     * simulation (a branch point of the risk estimate); the process,
     * client and request blocks are copied by the host byte for byte, so
     * they must not point into the shared state.  Return 0, or nonzero
     * after writing a message into err.  May be NULL (or absent from a
     * 2.0/2.1 table): then a policy whose shared state changes while it
     * runs cannot be copied, and the host refuses to branch a run that
     * uses it (plain Monte Carlo still works); a policy without shared
     * state (create() left it NULL) or with SB_POLICY_SHARED_READONLY
     * needs none. */
    int32_t (*clone)(const void *shared, void **copy, char *err, size_t errlen);
} sb_policy;

/* The host refuses any sb_policy shorter than this. */
#define SB_POLICY_MIN_SIZE                                                     \
    (offsetof(sb_policy, on_request_end) + sizeof(void (*)(void)))

/* A plug-in .so exports this one symbol (SB_PLUGIN_ENTRY_NAME); it returns
 * a pointer to a static sb_policy that lives until the .so is unloaded. */
#define SB_PLUGIN_ENTRY_NAME "sb_policy_plugin"
typedef const sb_policy *(*sb_plugin_entry_fn)(void);

/* ---- Convenience for policies ------------------------------------------- */

static inline double sb_uniform(const sb_ctx *ctx)
{
    return ctx->host->uniform(ctx);
}

static inline void sb_retry(sb_decision *out, double delay_s,
                            const char *reason)
{
    out->action = SB_RETRY;
    out->delay_s = delay_s;
    out->reason = reason;
}

static inline void sb_give_up(sb_decision *out, const char *reason)
{
    out->action = SB_GIVE_UP;
    out->delay_s = 0.0;
    out->reason = reason;
}

static inline void sb_quarantine(sb_decision *out, const char *reason)
{
    out->action = SB_QUARANTINE;
    out->delay_s = 0.0;
    out->reason = reason;
}

static inline void sb_refuse(sb_verdict *out, sb_refusal why,
                             const char *reason)
{
    out->action = SB_SEND_REFUSE;
    out->refusal = why;
    out->reason = reason;
}

/* ---- The layout, pinned ------------------------------------------------- */

#if defined(__cplusplus)
#define SB_ABI_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define SB_ABI_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#if UINTPTR_MAX == UINT64_MAX /* LP64: the offsets below */
SB_ABI_ASSERT(offsetof(sb_attempt, keyed) == 16, "sb_attempt.keyed");
SB_ABI_ASSERT(offsetof(sb_attempt, error) == 20, "sb_attempt.error");
SB_ABI_ASSERT(offsetof(sb_attempt, now_s) == 32, "sb_attempt.now_s");
SB_ABI_ASSERT(offsetof(sb_attempt, timeout_s) == 56, "sb_attempt.timeout_s");
SB_ABI_ASSERT(offsetof(sb_attempt, pushback_s) == 88, "sb_attempt.pushback_s");
SB_ABI_ASSERT(sizeof(sb_attempt) == 96, "sb_attempt is 96 bytes in 2.0");
SB_ABI_ASSERT(offsetof(sb_verdict, hedge_after_s) == 16,
              "sb_verdict.hedge_after_s");
SB_ABI_ASSERT(sizeof(sb_verdict) == 32, "sb_verdict is 32 bytes in 2.0");
SB_ABI_ASSERT(offsetof(sb_decision, delay_s) == 8, "sb_decision.delay_s");
SB_ABI_ASSERT(sizeof(sb_decision) == 24, "sb_decision is 24 bytes in 2.0");
SB_ABI_ASSERT(offsetof(sb_ctx, shared) == 16, "sb_ctx.shared");
SB_ABI_ASSERT(offsetof(sb_ctx, host_data) == 56, "sb_ctx.host_data");
SB_ABI_ASSERT(offsetof(sb_host, uniform) == 8, "sb_host.uniform");
SB_ABI_ASSERT(offsetof(sb_host, level) == 32, "sb_host.level");
SB_ABI_ASSERT(sizeof(sb_param) == 56, "sb_param is frozen at 56 bytes");
SB_ABI_ASSERT(sizeof(sb_value) == 8, "sb_value is frozen at 8 bytes");
SB_ABI_ASSERT(offsetof(sb_policy, name) == 16, "sb_policy.name");
SB_ABI_ASSERT(offsetof(sb_policy, params) == 40, "sb_policy.params");
SB_ABI_ASSERT(offsetof(sb_policy, create) == 48, "sb_policy.create");
SB_ABI_ASSERT(offsetof(sb_policy, before_send) == 104, "sb_policy.before_send");
SB_ABI_ASSERT(offsetof(sb_policy, on_request_end) == 136,
              "sb_policy.on_request_end");
SB_ABI_ASSERT(offsetof(sb_policy, clone) == 144, "sb_policy.clone (2.2)");
SB_ABI_ASSERT(sizeof(sb_policy) == 152, "sb_policy is 152 bytes in 2.2");
#endif

#ifdef __cplusplus
}
#endif

#endif /* STORMBENCH_POLICY_H */
