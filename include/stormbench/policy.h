/*
 * stormbench/policy.h -- the retry-policy plug-in ABI.
 *
 * Built-in policies and user plug-ins (.so files loaded with dlopen) are
 * both described by an sb_policy: a versioned table of parameters and hooks.
 * The host (the stormbench engine, or `stormbench decide`) owns all memory:
 * it allocates the policy's shared state through create(), and gives each
 * client and each logical request a zeroed block of the size the policy asks
 * for.  A policy sees only what a real client would see: its own attempts,
 * their errors and timings, the server's Retry-After header.  It never sees
 * the server's queue, another client, or the wall clock.
 *
 * Compatibility rules (the LV2 / Redis-modules convention):
 *   - SB_POLICY_ABI_MAJOR changes only when an existing field changes meaning;
 *     the host refuses a plug-in whose abi_major differs from its own.
 *   - Fields are only ever appended to sb_policy, sb_attempt, sb_ctx and
 *     sb_host.  Every such struct begins with its own size; a reader touches
 *     a field only if that size covers it.
 *   - All times crossing this interface are double seconds of simulated time.
 *
 * Threading: the engine is single-threaded; hooks are never called
 * concurrently.  Hooks must not block, allocate per call, or keep pointers to
 * the sb_attempt they are given (it is borrowed, valid during the call).
 */
#ifndef STORMBENCH_POLICY_H
#define STORMBENCH_POLICY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SB_POLICY_ABI_MAJOR 1
#define SB_POLICY_ABI_MINOR 0

#if defined(__GNUC__)
#define SB_EXPORT __attribute__((visibility("default")))
#else
#define SB_EXPORT
#endif

/* ---- What a request is -------------------------------------------------- */

typedef enum sb_op {
    SB_OP_READ = 0, /* a read: always safe to repeat */
    SB_OP_PUT = 1,  /* a naturally idempotent write (same result if repeated) */
    SB_OP_POST = 2  /* a non-idempotent write: repeating it may duplicate */
} sb_op;

/* How an attempt ended, as the client observed it. */
typedef enum sb_error_kind {
    SB_ERR_NONE = 0,    /* success */
    SB_ERR_TIMEOUT = 1, /* no answer before the attempt timeout */
    SB_ERR_REFUSED = 2, /* connection refused: the request was never sent */
    SB_ERR_RESET = 3,   /* connection reset after the request was sent */
    SB_ERR_HTTP = 4,    /* an HTTP error status, in sb_attempt.status */
    SB_ERR_GRPC = 5     /* a gRPC status code, in sb_attempt.status */
} sb_error_kind;

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
typedef enum sb_defect {
    SB_DEFECT_NONE = 0,
    SB_DEFECT_INVALID_SCHEMA = 1,        /* 422: the payload fails validation */
    SB_DEFECT_MISSING_FIELD = 2,         /* 422: a required field is absent */
    SB_DEFECT_DUPLICATE_BUSINESS_KEY = 3 /* 409: the key was already committed */
} sb_defect;

/* What the classifier (sb_host.classify) makes of an error. */
typedef enum sb_error_class {
    SB_CLASS_NONE = 0, /* not an error */
    SB_CLASS_TRANSIENT = 1,
    SB_CLASS_PERMANENT = 2,
    SB_CLASS_DATA_DEFECT = 3,
    SB_CLASS_RESOURCE_EXHAUSTION = 4,
    SB_CLASS_UNKNOWN = 5
} sb_error_class;

typedef enum sb_confidence {
    SB_CONFIDENCE_LOW = 0,
    SB_CONFIDENCE_HIGH = 1
} sb_confidence;

/* One attempt, as the client saw it.  Given to every hook; borrowed. */
typedef struct sb_attempt {
    uint32_t struct_size; /* sizeof(sb_attempt) as the host compiled it */
    uint32_t attempt;     /* 1-based number of this attempt of the request */
    sb_op op;
    uint8_t keyed;    /* the request carries an idempotency key */
    uint8_t critical; /* the request is on a critical path */
    uint8_t hedge;    /* this attempt is (or would be) a hedge, sent while
                         an earlier attempt of the request still waits */
    uint8_t sent;     /* the attempt reached the wire (false only when the
                         connection was refused or the policy refused it) */
    double now_s;       /* simulated time */
    double elapsed_s;   /* since the logical request started */
    double remaining_s; /* until its end-to-end deadline; +inf when none */
    double timeout_s;   /* the per-attempt timeout configured for it */
    /* The fields below are set in on_success / on_failure / on_request_end. */
    double latency_s;   /* from this attempt's send to its outcome */
    sb_error_kind error;
    int32_t status;       /* HTTP status or gRPC code; 0 when none */
    sb_defect defect;     /* error code in the body, when any */
    double retry_after_s; /* the server's Retry-After; negative when absent */
    uint32_t outstanding; /* other attempts of this request still waiting */
} sb_attempt;

/* ---- What a policy decides ---------------------------------------------- */

typedef enum sb_send {
    SB_SEND_ALLOW = 0,
    SB_SEND_REFUSE = 1 /* refuse locally: breaker open, budget spent ... */
} sb_send;

/* before_send's answer. */
typedef struct sb_verdict {
    sb_send action;
    double hedge_after_s; /* > 0: if no answer after this long, send a hedge */
    const char *reason;   /* static string for traces, or NULL */
} sb_verdict;

typedef enum sb_action {
    SB_PASS = 0,      /* no opinion: defer to the other layers of the stack;
                         delay_s still acts as a lower bound on the delay */
    SB_RETRY = 1,     /* retry after delay_s seconds */
    SB_GIVE_UP = 2,   /* stop; the request fails */
    SB_QUARANTINE = 3 /* stop; the request is set aside as a poison message */
} sb_action;

/* on_failure's answer.  In a stack (a+b+c) quarantine beats give-up beats
 * retry beats pass; the delay is the largest any layer proposed. */
typedef struct sb_decision {
    sb_action action;
    double delay_s;
    const char *reason; /* static string for traces, or NULL */
} sb_decision;

/* How a logical request ended, for on_request_end. */
typedef enum sb_outcome {
    SB_OUTCOME_SUCCESS = 0,
    SB_OUTCOME_GAVE_UP = 1,
    SB_OUTCOME_DEADLINE = 2,
    SB_OUTCOME_REFUSED = 3, /* refused locally before an attempt was sent */
    SB_OUTCOME_QUARANTINED = 4
} sb_outcome;

/* ---- The host interface ------------------------------------------------- */

struct sb_host;

/* The context of one hook call.  Borrowed, valid during the call. */
typedef struct sb_ctx {
    uint32_t struct_size;
    uint32_t client;     /* this client's id, 0-based */
    void *shared;        /* what create() returned */
    void *client_state;  /* client_state_size bytes: zeroed, then client_init */
    void *request_state; /* request_state_size bytes, zeroed when the logical
                            request starts; NULL in client_init */
    const struct sb_host *host;
    void *host_data; /* the host's; pass ctx to host functions */
} sb_ctx;

typedef struct sb_host {
    uint32_t struct_size;
    /* A uniform number in [0, 1) from this client's policy random stream.
     * Deterministic: the same seed gives the same sequence. */
    double (*uniform)(const sb_ctx *ctx);
    /* Report that this client's circuit breaker opened (1) or closed (0);
     * the host counts open breakers in its metrics. */
    void (*breaker)(const sb_ctx *ctx, int open);
    /* Classify an error: the shared classifier built-in policies use. */
    void (*classify)(const sb_attempt *a, sb_error_class *cls,
                     sb_confidence *conf);
} sb_host;

/* ---- Parameters --------------------------------------------------------- */

typedef enum sb_param_type {
    SB_PARAM_INT = 0,      /* integer; range [min, max] */
    SB_PARAM_REAL = 1,     /* real number; range [min, max] */
    SB_PARAM_DURATION = 2, /* "250ms", "2s"; seconds in sb_value.d */
    SB_PARAM_BOOL = 3,     /* true/false */
    SB_PARAM_CHOICE = 4    /* one of choices ("a|b|c"); index in sb_value.i */
} sb_param_type;

/* One parameter of a policy: listed by `stormbench policies`, checked by
 * the host before create() is called, so create() sees only values of the
 * declared type inside [min, max]. */
typedef struct sb_param {
    const char *name;
    sb_param_type type;
    const char *default_value; /* as a user would write it: "100ms", "full" */
    const char *doc;           /* one line */
    const char *choices;       /* SB_PARAM_CHOICE: "none|full|equal" */
    double min, max;           /* INT, REAL, DURATION (seconds): inclusive */
} sb_param;

typedef union sb_value {
    int64_t i; /* INT, BOOL (0/1), CHOICE (index) */
    double d;  /* REAL, DURATION (seconds) */
} sb_value;

/* ---- The policy --------------------------------------------------------- */

enum {
    SB_POLICY_LAYER = 1u /* a layer meant to be stacked on a backoff policy
                            (it never asks for a retry by itself) */
};

typedef struct sb_policy {
    uint32_t abi_major;   /* SB_POLICY_ABI_MAJOR */
    uint32_t abi_minor;   /* SB_POLICY_ABI_MINOR */
    uint32_t struct_size; /* sizeof(sb_policy) */
    uint32_t flags;       /* SB_POLICY_LAYER ... */
    const char *name;     /* [a-z0-9_]+, unique */
    const char *doc;      /* one line */
    const sb_param *params; /* terminated by an entry whose name is NULL */

    /* Build the shared state from checked parameter values (one per entry
     * of params, in order).  Return 0, or nonzero after writing a message
     * into err.  *shared may be left NULL by a stateless policy. */
    int (*create)(const sb_value *values, void **shared, char *err,
                  size_t errlen);
    /* Free what create() made.  Called once, with NULL allowed. */
    void (*destroy)(void *shared);
    /* Bytes of per-client and per-request state; 0 for none. */
    size_t (*client_state_size)(const void *shared);
    size_t (*request_state_size)(const void *shared);
    /* Initialise a client's zeroed state.  May be NULL. */
    void (*client_init)(const sb_ctx *ctx);
    /* Before every attempt (first, retry or hedge).  May be NULL: allow. */
    sb_verdict (*before_send)(const sb_ctx *ctx, const sb_attempt *a);
    /* An attempt succeeded.  May be NULL. */
    void (*on_success)(const sb_ctx *ctx, const sb_attempt *a);
    /* An attempt failed: retry, give up, quarantine, or pass. */
    sb_decision (*on_failure)(const sb_ctx *ctx, const sb_attempt *a);
    /* The logical request ended; a describes its last attempt.  May be NULL. */
    void (*on_request_end)(const sb_ctx *ctx, const sb_attempt *a,
                           sb_outcome outcome);
} sb_policy;

/* The host refuses any sb_policy shorter than this. */
#define SB_POLICY_MIN_SIZE                                                     \
    (offsetof(sb_policy, on_request_end) + sizeof(void (*)(void)))

/* A plug-in .so exports this one symbol (SB_PLUGIN_ENTRY_NAME); it returns
 * a pointer to a static sb_policy that lives until the .so is unloaded. */
#define SB_PLUGIN_ENTRY_NAME "sb_policy_plugin"
typedef const sb_policy *(*sb_plugin_entry_fn)(void);

/* Convenience for policies. */
static inline double sb_uniform(const sb_ctx *ctx)
{
    return ctx->host->uniform(ctx);
}

static inline sb_decision sb_retry(double delay_s, const char *reason)
{
    sb_decision d = {SB_RETRY, delay_s, reason};
    return d;
}

static inline sb_decision sb_give_up(const char *reason)
{
    sb_decision d = {SB_GIVE_UP, 0.0, reason};
    return d;
}

static inline sb_decision sb_pass(void)
{
    sb_decision d = {SB_PASS, 0.0, NULL};
    return d;
}

static inline sb_verdict sb_allow(void)
{
    sb_verdict v = {SB_SEND_ALLOW, 0.0, NULL};
    return v;
}

#ifdef __cplusplus
}
#endif

#endif /* STORMBENCH_POLICY_H */
