/*
 * pstack.h -- a policy stack: one or more sb_policy layers run as one.
 *
 * `--policy exponential+token_bucket+circuit_breaker` is a stack of three
 * layers.  Every layer must allow a send; after a failure every layer is
 * asked, quarantine beats give-up beats retry beats pass, and the delay is
 * the largest any layer proposed.  If no layer asks for a retry the request
 * gives up: a lone layer policy (token_bucket) never retries by itself.
 *
 * The stack owns each layer's shared state (create/destroy) and lays out the
 * layers' per-process, per-client and per-request state side by side in
 * one block of each kind whose size it reports; the caller (the engine,
 * `stormbench decide`) owns those blocks.  The stack also checks what every layer returns -- a negative,
 * NaN or absurd delay, an unknown action -- and turns it into an error that
 * names the policy and where it came from, so a broken plug-in stops the
 * run instead of corrupting it.  Built-in policies go through the same path.
 */
#ifndef SB_PSTACK_H
#define SB_PSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "setting.h"
#include "stormbench/policy.h"

#define PSTACK_MAX_LAYERS 8
#define PSTACK_MAX_SETTINGS 64

/* A layer to build: its table and where it came from (NULL for built-in,
 * else the plug-in's path, used in messages). */
typedef struct pstack_layer_spec {
    const sb_policy *policy;
    const char *origin;
} pstack_layer_spec;

typedef struct pstack pstack;

/* The classifier the host offers policies (sb_host.classify). */
typedef void (*pstack_classify_fn)(const sb_attempt *a, sb_error_class *cls,
                                   sb_confidence *conf);

/* Build a stack.  Settings are applied in order (a later one overrides an
 * earlier one); a key is "param" when exactly one layer has it, else
 * "layer.param".  On failure returns -1 with a message in e. */
int pstack_create(const pstack_layer_spec *layers, int n_layers,
                  const setting *settings, int n_settings,
                  pstack_classify_fn classify, pstack **out, sb_err *e);
void pstack_destroy(pstack *ps);

/* "exponential+token_bucket" */
const char *pstack_name(const pstack *ps);
/* Does setting s name a parameter of exactly one layer of ps (as
 * pstack_create would resolve it)? */
bool pstack_has_param(const pstack *ps, const setting *s);
/* Which parameter setting s names (layer *li, its parameter *pi), as
 * pstack_create resolves it; -1 when it names none or more than one. */
int pstack_param_index(const pstack *ps, const setting *s, int *li, int *pi);
int pstack_layers(const pstack *ps);
const sb_policy *pstack_layer(const pstack *ps, int i);
/* The effective value of layer i's parameter j, as text ("100ms"). */
const char *pstack_param_text(const pstack *ps, int layer, int param);
/* The same value as the layer sees it (durations in seconds). */
sb_value pstack_param_value(const pstack *ps, int layer, int param);

/* Does any layer have a before_send hook?  (Callers may skip building an
 * sb_attempt for a stack that would not look at it.) */
bool pstack_has_before_send(const pstack *ps);

/* The optional hooks some layer of the stack has, as PSTACK_HOOK_ bits:
 * a caller may skip building what only such a hook would read (the
 * sb_attempt of a success, when nobody hears of successes).  The stack's
 * own pstack_on_success, _on_decision and _on_request_end return at once
 * when no layer has theirs. */
enum {
    PSTACK_HOOK_BEFORE_SEND = 1u,
    PSTACK_HOOK_ON_SUCCESS = 2u,
    PSTACK_HOOK_ON_DECISION = 4u,
    PSTACK_HOOK_ON_REQUEST_END = 8u
};
unsigned pstack_hooks(const pstack *ps);

size_t pstack_process_state_size(const pstack *ps);
size_t pstack_client_state_size(const pstack *ps);
size_t pstack_request_state_size(const pstack *ps);

/* What the caller provides for hook calls: the host functions (uniform and
 * breaker; classify is filled in by the stack) and the caller's data. */
typedef struct pstack_call {
    uint32_t client;
    uint32_t process;
    void *process_state; /* pstack_process_state_size bytes */
    void *client_state;  /* pstack_client_state_size bytes */
    void *request_state; /* pstack_request_state_size bytes, or NULL */
    const sb_host *host;
    void *host_data;
} pstack_call;

/* The result of a stack's on_failure: the combined decision, which layer
 * decided its action (-1 when no layer asked for a retry), and, for a
 * retry, which layer proposed the delay that won and why (-1 when every
 * delay was 0): in exponential+retry_after the action is exponential's
 * but the delay may be the server's Retry-After. */
typedef struct pstack_decision {
    sb_decision d;
    int layer;
    int delay_layer;
    const char *delay_reason;
} pstack_decision;

typedef struct pstack_verdict {
    sb_verdict v;
    int layer; /* the refusing layer, or -1 */
} pstack_verdict;

/* Hooks.  Each returns 0, or -1 when a layer broke the ABI contract; the
 * message is then in pstack_error(). */
void pstack_process_init(pstack *ps, const pstack_call *call);
void pstack_client_init(pstack *ps, const pstack_call *call);
int pstack_before_send(pstack *ps, const pstack_call *call, const sb_attempt *a,
                       pstack_verdict *out);
void pstack_on_success(pstack *ps, const pstack_call *call,
                       const sb_attempt *a);
int pstack_on_failure(pstack *ps, const pstack_call *call, const sb_attempt *a,
                      pstack_decision *out);
/* Tell every layer the final decision for the failure it just judged. */
void pstack_on_decision(pstack *ps, const pstack_call *call,
                        const sb_attempt *a, const sb_decision *final);
void pstack_on_request_end(pstack *ps, const pstack_call *call,
                           const sb_attempt *a, sb_outcome outcome);

/* ---- Copies of a running stack (the risk estimate's branches) ----------
 *
 * A copy of a running simulation needs a stack whose layers' shared state
 * is where the original's is now.  A layer gets it (a) from its clone hook
 * (policy.h, ABI 2.2), (b) when it declares SB_POLICY_SHARED_READONLY, by
 * create() again from the same parameter values -- the state a hook never
 * writes is what create() made -- or (c) without asking, when it has no
 * shared state (create() left it NULL).  A layer that is none of these
 * cannot be copied. */

/* 0 when every layer can be copied, else -1 with a message in e naming the
 * first that cannot and what would make it so. */
int pstack_check_clonable(const pstack *ps, sb_err *e);
/* May one stack serve a simulation and its copies at once (in one
 * thread)?  True when no layer's shared state changes while it runs:
 * every layer is read-only or keeps none. */
bool pstack_shareable(const pstack *ps);
/* A new stack with src's layers and parameters and a copy of each layer's
 * shared state as it is now (see above); free with pstack_destroy.  -1
 * with a message in e when a layer cannot be copied or its hook fails. */
int pstack_clone(const pstack *src, pstack **out, sb_err *e);

/* Layer i's shared state (what its create() or clone hook made), for
 * tests that look into a plug-in's state. */
void *pstack_layer_shared(const pstack *ps, int i);

/* The message of the last contract violation. */
const char *pstack_error(const pstack *ps);

/* Names of an action, an outcome and a refusal as users read them. */
const char *pstack_action_name(sb_action a);
const char *pstack_outcome_name(sb_outcome o);
const char *pstack_refusal_name(sb_refusal r);

/* A layer's scope line ("per process: ..."), or what its state sizes at
 * the stack's parameters say when it has none. */
const char *pstack_layer_scope(const pstack *ps, int i, char *buf, size_t len);

/* The largest delay a policy may ask for (one day): anything longer is a
 * bug in the policy, not a plan. */
#define PSTACK_MAX_DELAY_S 86400.0

/* The most per-client or per-request state one layer may ask for: with a
 * million clients, 64 KiB each is already 64 GiB. */
#define PSTACK_MAX_STATE 65536

#endif
