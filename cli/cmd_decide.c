/*
 * cmd_decide.c -- `stormbench decide`: one failure, one decision.
 *
 * A user checking a policy's logic ("what does my stack do with a 503 at
 * attempt 3 when 2 s of a 5 s deadline are left?") gets the answer as JSON
 * without writing a scenario.  The policy runs through the same stack code
 * as in a simulation (the request driver), for a fresh process and
 * client: its per-process and per-client state (breakers, budgets, token
 * buckets) is as process_init and client_init left it, because
 * rebuilding a history of earlier requests from command-line flags would
 * be guesswork.  The stack is asked before_send for the attempt and then
 * on_failure with the given error, which is what the engine does for an
 * attempt that fails.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "classifier.h"
#include "commands.h"
#include "driver.h"
#include "json.h"
#include "rng.h"
#include "units.h"

static const char decide_usage[] =
    "Usage: stormbench decide --policy NAME[+NAME...] --error KIND\n"
    "                         --attempt N [OPTIONS]\n"
    "\n"
    "Show, as JSON, what a policy stack decides when attempt N of a request\n"
    "fails with the given error: action (retry, give_up, quarantine, or\n"
    "refuse when before_send refuses the attempt), delay_s, reason, the\n"
    "deciding layer, and the error's class and confidence as the shared\n"
    "classifier sees them.  No simulation is run.\n"
    "\n"
    "The client is fresh: per-client state (circuit breakers, budgets,\n"
    "token buckets) starts as a new client's does, and the request has no\n"
    "earlier attempts in its per-request state.  before_send is called for\n"
    "the attempt, then on_failure with the error.\n"
    "\n"
    "Policy:\n"
    "  --policy NAME[+NAME...]   the policy stack (see 'stormbench policies')\n"
    "  --param [LAYER.]KEY=VALUE set a policy parameter (repeatable)\n"
    "  --policy-plugin FILE.so   load a policy plug-in (repeatable)\n"
    "\n"
    "The failure:\n"
    "  --error KIND      timeout, refused (connection refused: never sent),\n"
    "                    reset (connection reset after sending),\n"
    "                    http (needs --status 100-599),\n"
    "                    grpc (needs --status, a code name such as\n"
    "                    UNAVAILABLE or its number 1-16), or a shorthand:\n"
    "                    invalid_schema, missing_field (HTTP 422 with that\n"
    "                    defect), duplicate_business_key (HTTP 409 with that\n"
    "                    defect), rate_limited (HTTP 429)\n"
    "  --status N        the HTTP status or gRPC code, for http and grpc\n"
    "  --retry-after T   the server's Retry-After, e.g. 2s (default: none)\n"
    "  --attempt N       the number of the attempt that failed, from 1\n"
    "\n"
    "The request:\n"
    "  --op read|put|post  the operation (default read)\n"
    "  --keyed           the request carries an idempotency key\n"
    "  --critical        the request is on a critical path\n"
    "  --elapsed T       time since the request started, when the failure\n"
    "                    is seen (default 0s)\n"
    "  --deadline T      the request's end-to-end deadline, or 'none'\n"
    "                    (default none)\n"
    "  --timeout T       the per-attempt timeout (default 1s); a timeout\n"
    "                    failure is seen this long after the attempt's send\n"
    "  --seed N          seed of the policy's random draws (jitter), as in\n"
    "                    a run with that seed (default 1)\n"
    "\n"
    "Exit status: 0 a decision was printed, 2 bad input, or a policy broke\n"
    "its contract (the message names it).\n";

typedef struct decide_opts {
    const char *policy;
    const char *plugins[CLI_MAX_LIST];
    int n_plugins;
    setting params[PSTACK_MAX_SETTINGS];
    int n_params;
    const char *error, *status, *attempt, *op;
    const char *elapsed, *deadline, *retry_after, *timeout, *seed;
    bool keyed, critical;
} decide_opts;

/* The failure kinds users name, with what each implies. */
typedef struct kind_def {
    const char *name;
    sb_error_kind kind;
    int32_t status; /* -1: --status is required; 0: none */
    sb_defect defect;
} kind_def;

static const kind_def kinds[] = {
    {"timeout", SB_ERR_TIMEOUT, 0, SB_DEFECT_NONE},
    {"refused", SB_ERR_REFUSED, 0, SB_DEFECT_NONE},
    {"connection_refused", SB_ERR_REFUSED, 0, SB_DEFECT_NONE},
    {"reset", SB_ERR_RESET, 0, SB_DEFECT_NONE},
    {"connection_reset", SB_ERR_RESET, 0, SB_DEFECT_NONE},
    {"http", SB_ERR_HTTP, -1, SB_DEFECT_NONE},
    {"grpc", SB_ERR_GRPC, -1, SB_DEFECT_NONE},
    {"invalid_schema", SB_ERR_HTTP, 422, SB_DEFECT_INVALID_SCHEMA},
    {"missing_field", SB_ERR_HTTP, 422, SB_DEFECT_MISSING_FIELD},
    {"duplicate_business_key", SB_ERR_HTTP, 409,
     SB_DEFECT_DUPLICATE_BUSINESS_KEY},
    {"rate_limited", SB_ERR_HTTP, 429, SB_DEFECT_NONE},
};

#define KIND_NAMES                                                             \
    "timeout, refused, reset, http, grpc, invalid_schema, missing_field, "     \
    "duplicate_business_key, rate_limited"

/* One option at a->i: 0, -1 after --help, or EXIT_INPUT. */
static int parse_one(args *a, decide_opts *o)
{
    const arg_opt opts[] = {
        {"--help", "-h", ARG_HELP, NULL, NULL, NULL},
        {"--keyed", NULL, ARG_SET, &o->keyed, NULL, NULL},
        {"--critical", NULL, ARG_SET, &o->critical, NULL, NULL},
        {"--policy-plugin", NULL, ARG_LIST, o->plugins, &o->n_plugins, NULL},
        {"--param", NULL, ARG_PARAM, o->params, &o->n_params, NULL},
        {"--policy", NULL, ARG_VALUE, &o->policy, NULL, NULL},
        {"--error", NULL, ARG_VALUE, &o->error, NULL, NULL},
        {"--status", NULL, ARG_VALUE, &o->status, NULL, NULL},
        {"--attempt", NULL, ARG_VALUE, &o->attempt, NULL, NULL},
        {"--op", NULL, ARG_VALUE, &o->op, NULL, NULL},
        {"--elapsed", NULL, ARG_VALUE, &o->elapsed, NULL, NULL},
        {"--deadline", NULL, ARG_VALUE, &o->deadline, NULL, NULL},
        {"--retry-after", NULL, ARG_VALUE, &o->retry_after, NULL, NULL},
        {"--timeout", NULL, ARG_VALUE, &o->timeout, NULL, NULL},
        {"--seed", NULL, ARG_VALUE, &o->seed, NULL, NULL},
    };
    const char *arg = a->argv[a->i];
    int rc = args_option(a, opts, sizeof opts / sizeof *opts);
    if (rc != 1)
        return rc;
    if (arg[0] == '-')
        return args_unknown_option(a, arg);
    return args_usage_error(a, "unexpected argument '%s'", arg);
}

/* A whole number in [lo, hi] from an option's text. */
static int parse_whole(const args *a, const char *opt, const char *text,
                       long long lo, long long hi, long long *out)
{
    char *end;
    long long v = strtoll(text, &end, 10);
    if (*text == '\0' || *end != '\0' || v < lo || v > hi)
        return args_usage_error(a,
                                "%s: expected a whole number from %lld "
                                "to %lld, got '%s'",
                                opt, lo, hi, text);
    *out = v;
    return 0;
}

/* A duration option in seconds; `fallback` when absent.  "none" gives
 * +inf when allowed. */
static int parse_secs(const args *a, const char *opt, const char *text,
                      double fallback, bool none_ok, double *out)
{
    *out = fallback;
    if (text == NULL)
        return 0;
    if (none_ok && strcmp(text, "none") == 0) {
        *out = INFINITY;
        return 0;
    }
    int64_t ns;
    sb_err e;
    if (units_duration(text, &ns, &e) != 0)
        return args_usage_error(a, "%s: %s%s", opt, none_ok ? "'none' or " : "",
                                e.msg);
    *out = (double)ns / 1e9;
    return 0;
}

static int parse_status(const args *a, const kind_def *k, const char *text,
                        int32_t *status)
{
    if (k->kind == SB_ERR_HTTP) {
        long long v;
        if (parse_whole(a, "--status", text, 100, 599, &v) != 0)
            return EXIT_INPUT;
        *status = (int32_t)v;
        return 0;
    }
    int code = classify_grpc_parse(text);
    if (code < 0) {
        long long v;
        char *end;
        v = strtoll(text, &end, 10);
        code = *text && *end == '\0' && v >= 0 && v <= 16 ? (int)v : -1;
    }
    if (code <= 0)
        return args_usage_error(a,
                                "--status: expected a gRPC error code "
                                "such as UNAVAILABLE, RESOURCE_EXHAUSTED or "
                                "INVALID_ARGUMENT (or its number, 1-16), got "
                                "'%s'",
                                text);
    *status = code;
    return 0;
}

/* --error and --status into the failure part of *at. */
static int parse_error(const args *a, const decide_opts *o, sb_attempt *at)
{
    const kind_def *k = NULL;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strcmp(o->error, kinds[i].name) == 0)
            k = &kinds[i];
    if (k == NULL)
        return args_usage_error(a,
                                "--error: unknown kind '%s'; expected "
                                "one of " KIND_NAMES,
                                o->error);
    at->error = k->kind;
    at->defect = k->defect;
    at->status = k->status > 0 ? k->status : 0;
    at->sent = k->kind != SB_ERR_REFUSED;
    if (k->status < 0 && o->status == NULL)
        return args_usage_error(a, "--error %s needs --status (%s)", k->name,
                                k->kind == SB_ERR_HTTP
                                    ? "an HTTP status from 100 to 599"
                                    : "a gRPC code such as UNAVAILABLE");
    if (k->status >= 0 && o->status != NULL)
        return args_usage_error(a,
                                "--status goes with --error http or grpc; "
                                "--error %s %s",
                                k->name,
                                k->status > 0 ? "implies its own status"
                                              : "has no status");
    if (k->status < 0)
        return parse_status(a, k, o->status, &at->status);
    return 0;
}

static int parse_op(const args *a, const char *text, sb_op *op)
{
    static const char *const names[] = {"read", "put", "post"};
    for (int i = 0; i < 3; i++)
        if (strcmp(text, names[i]) == 0) {
            *op = (sb_op)i;
            return 0;
        }
    return args_usage_error(a, "--op: expected read, put or post, got '%s'",
                            text);
}

/* Everything the policy will be shown, from the options. */
static int build_attempt(const args *a, const decide_opts *o, sb_attempt *at,
                         uint64_t *seed)
{
    memset(at, 0, sizeof *at);
    at->struct_size = sizeof *at;
    long long n;
    if (parse_whole(a, "--attempt", o->attempt, 1, 1000000, &n) != 0)
        return EXIT_INPUT;
    at->attempt = (uint32_t)n;
    at->op = SB_OP_READ;
    if (o->op && parse_op(a, o->op, &at->op) != 0)
        return EXIT_INPUT;
    at->keyed = o->keyed;
    at->critical = o->critical;
    double deadline, retry_after;
    if (parse_secs(a, "--elapsed", o->elapsed, 0.0, false, &at->elapsed_s) ||
        parse_secs(a, "--deadline", o->deadline, INFINITY, true, &deadline) ||
        parse_secs(a, "--timeout", o->timeout, 1.0, false, &at->timeout_s) ||
        parse_secs(a, "--retry-after", o->retry_after, -1.0, false,
                   &retry_after))
        return EXIT_INPUT;
    if (at->elapsed_s > deadline)
        return args_usage_error(a,
                                "--elapsed (%gs) is past --deadline "
                                "(%gs): the request would already have "
                                "ended",
                                at->elapsed_s, deadline);
    at->now_s = at->elapsed_s;
    at->remaining_s = deadline - at->elapsed_s;
    at->retry_after_s = retry_after;
    /* The seed of a run is a uint64 (scenario.seed): the same range and
     * message as `run --seed`.  parse_whole's strtoll would clamp a seed
     * past INT64_MAX to it without a word, another run's draws. */
    *seed = 1;
    if (o->seed && args_check_seed(a, o->seed, seed) != 0)
        return EXIT_INPUT;
    return parse_error(a, o, at);
}

static int parse_decide(int argc, char **argv, decide_opts *o, sb_attempt *at,
                        uint64_t *seed)
{
    memset(o, 0, sizeof *o);
    args a = {argc, argv, 1, "decide", decide_usage};
    for (; a.i < argc; a.i++) {
        int rc = parse_one(&a, o);
        if (rc != 0)
            return rc;
    }
    if (o->policy == NULL)
        return args_usage_error(&a, "--policy is required");
    if (o->error == NULL)
        return args_usage_error(&a,
                                "--error is required (one of " KIND_NAMES ")");
    if (o->attempt == NULL)
        return args_usage_error(&a, "--attempt is required: the number of "
                                    "the attempt that failed, from 1");
    return build_attempt(&a, o, at, seed);
}

/* ---- The host: a fresh client 0 of a run with the given seed ------------ */

typedef struct decide_host {
    uint64_t key;   /* client 0's policy stream */
    uint32_t draws; /* draws taken, the stream's counter */
    int breaker;    /* -1 never reported, else the last report */
} decide_host;

/* The same draws client 0 would get in a run with this seed (sim.c's
 * host_uniform), so a jittered delay here matches the trace's. */
static double decide_uniform(const sb_ctx *ctx)
{
    decide_host *h = ctx->host_data;
    return rng_unit(rng_at(h->key, h->draws++));
}

static void decide_breaker(const sb_ctx *ctx, int32_t open)
{
    decide_host *h = ctx->host_data;
    h->breaker = open != 0;
}

/* What the stack said, for the JSON. */
typedef struct decide_result {
    driver_send send;
    driver_next next;
    bool asked_on_failure;
} decide_result;

/* The flags' attempt as the request driver sees it: the failure happens
 * at `elapsed`; a timeout was sent timeout_s earlier, any other error at
 * the same instant.  Then before_send as the attempt is sent and
 * on_failure as it fails, through the driver, as the engine does it.
 * Returns 0, or -1 with the stack's error. */
static int ask(pstack *ps, const pstack_call *call, const sb_attempt *fail,
               decide_result *r)
{
    int64_t now = driver_ns(fmin(fail->elapsed_s, PSTACK_MAX_DELAY_S));
    int64_t took = fail->error == SB_ERR_TIMEOUT
                       ? driver_ns(fmin(fail->timeout_s, PSTACK_MAX_DELAY_S))
                       : 0;
    if (took > now)
        took = now;
    int64_t sent = now - took;
    driver_request d = {
        0,
        isinf(fail->remaining_s)
            ? DRIVER_NO_DEADLINE
            : driver_ns(fmin(fail->elapsed_s + fail->remaining_s,
                             PSTACK_MAX_DELAY_S)),
        driver_ns(fmin(fail->timeout_s, PSTACK_MAX_DELAY_S)),
        fail->attempt - 1,
        0,
        fail->op,
        (fail->keyed ? DRIVER_KEYED : 0) |
            (fail->critical ? DRIVER_CRITICAL : 0)};
    if (driver_before_send(ps, call, &d, sent, false, &r->send) != 0)
        return -1;
    if (!r->send.send)
        return 0;
    d.attempts = fail->attempt;
    driver_result res = {
        fail->attempt,
        false,
        fail->sent != 0,
        fail->error,
        fail->status,
        fail->defect,
        sent,
        fail->retry_after_s >= 0
            ? driver_ns(fmin(fail->retry_after_s, PSTACK_MAX_DELAY_S))
            : -1,
        SB_PUSHBACK_NONE};
    r->asked_on_failure = true;
    return driver_on_failure(ps, call, &d, now, &res, &r->next);
}

static const char *layer_name(const pstack *ps, int layer)
{
    return layer >= 0 ? pstack_layer(ps, layer)->name : NULL;
}

static void print_attempt(jw *w, const sb_attempt *a)
{
    static const char *const ops[] = {"read", "put", "post"};
    jw_object(w, "attempt");
    jw_int(w, "number", a->attempt);
    jw_string(w, "op", ops[a->op]);
    jw_bool(w, "keyed", a->keyed);
    jw_bool(w, "critical", a->critical);
    jw_string(w, "error", classify_kind_name(a->error));
    if (a->error == SB_ERR_HTTP)
        jw_int(w, "status", a->status);
    else if (a->error == SB_ERR_GRPC)
        jw_string(w, "status", classify_grpc_name(a->status));
    if (a->defect != SB_DEFECT_NONE)
        jw_string(w, "defect", classify_defect_name(a->defect));
    if (a->retry_after_s >= 0)
        jw_double(w, "retry_after_s", a->retry_after_s);
    else
        jw_null(w, "retry_after_s");
    jw_double(w, "elapsed_s", a->elapsed_s);
    jw_double(w, "remaining_s", a->remaining_s); /* null: no deadline */
    jw_double(w, "timeout_s", a->timeout_s);
    jw_end(w);
}

static void print_result(const pstack *ps, const sb_attempt *a, uint64_t seed,
                         const decide_host *h, const decide_result *r)
{
    sb_error_class cls;
    sb_confidence conf;
    classify_error(a, &cls, &conf);
    jw w;
    jw_init(&w, stdout, true);
    jw_object(&w, NULL);
    jw_string(&w, "policy", pstack_name(ps));
    const pstack_verdict *v = &r->send.verdict;
    if (r->asked_on_failure) {
        const pstack_decision *d = &r->next.stack;
        const sb_decision *f = &r->next.final;
        jw_string(&w, "action", pstack_action_name(f->action));
        jw_double(&w, "delay_s", f->delay_s);
        jw_string(&w, "reason", f->reason);
        jw_string(&w, "layer", r->next.limit ? NULL : layer_name(ps, d->layer));
        if (r->next.limit) {
            /* The host's own limit overrode what the stack asked for. */
            jw_string(&w, "limit", r->next.limit);
            jw_string(&w, "stack_action", pstack_action_name(d->d.action));
            jw_double(&w, "stack_delay_s", d->d.delay_s);
        }
        if (d->delay_layer >= 0 && d->delay_layer != d->layer) {
            jw_string(&w, "delay_layer", layer_name(ps, d->delay_layer));
            jw_string(&w, "delay_reason", d->delay_reason);
        }
    } else {
        jw_string(&w, "action", "refuse");
        jw_double(&w, "delay_s", 0.0);
        jw_string(&w, "reason", v->v.reason);
        jw_string(&w, "layer", layer_name(ps, v->layer));
        jw_string(&w, "refusal", pstack_refusal_name(v->v.refusal));
    }
    jw_string(&w, "class", classify_class_name(cls));
    jw_string(&w, "confidence", conf == SB_CONFIDENCE_HIGH ? "high" : "low");
    jw_object(&w, "before_send");
    jw_string(&w, "action", v->v.action == SB_SEND_REFUSE ? "refuse" : "allow");
    jw_string(&w, "reason", v->v.reason);
    jw_string(&w, "layer", layer_name(ps, v->layer));
    if (v->v.hedge_after_s > 0)
        jw_double(&w, "hedge_after_s", v->v.hedge_after_s);
    jw_end(&w);
    if (h->breaker >= 0)
        jw_bool(&w, "breaker_open", h->breaker == 1);
    print_attempt(&w, a);
    jw_uint(&w, "seed", seed);
    jw_int(&w, "random_draws", h->draws);
    jw_end(&w);
    fputc('\n', stdout);
}

static int run_decide(const decide_opts *o, const sb_attempt *a, uint64_t seed)
{
    policy_setup ps;
    sb_err e;
    if (policy_setup_build(o->policy, o->plugins, o->n_plugins, o->params,
                           o->n_params, &ps, &e) != 0) {
        fprintf(stderr, "stormbench decide: %s\n", e.msg);
        return EXIT_INPUT;
    }
    int rc = EXIT_INPUT;
    size_t pz = pstack_process_state_size(ps.stack);
    size_t cs = pstack_client_state_size(ps.stack);
    size_t rs = pstack_request_state_size(ps.stack);
    /* calloc(0) may return NULL: ask for at least a byte. */
    void *process = calloc(1, pz ? pz : 1);
    void *client = calloc(1, cs ? cs : 1);
    void *request = calloc(1, rs ? rs : 1);
    decide_host h = {rng_key(seed, 0, RNG_POLICY), 0, -1};
    sb_host host = {sizeof host, 0, decide_uniform, decide_breaker, NULL, NULL};
    pstack_call call = {0, 0, process, client, request, &host, &h};
    decide_result r;
    memset(&r, 0, sizeof r);
    if (process == NULL || client == NULL || request == NULL) {
        fprintf(stderr, "stormbench decide: out of memory\n");
        goto done;
    }
    pstack_process_init(ps.stack, &call);
    pstack_client_init(ps.stack, &call);
    if (ask(ps.stack, &call, a, &r) != 0) {
        fprintf(stderr, "stormbench decide: %s\n", pstack_error(ps.stack));
        goto done;
    }
    print_result(ps.stack, a, seed, &h, &r);
    rc = EXIT_OK;
done:
    free(process);
    free(client);
    free(request);
    policy_setup_free(&ps);
    return rc;
}

int cmd_decide(int argc, char **argv)
{
    decide_opts o;
    sb_attempt a;
    uint64_t seed = 1;
    int rc = parse_decide(argc, argv, &o, &a, &seed);
    if (rc != 0)
        return rc < 0 ? EXIT_OK : rc;
    return run_decide(&o, &a, seed);
}
