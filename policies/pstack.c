#include "pstack.h"

#include <assert.h>

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "hookguard.h"
#include "schema.h"

#define MAX_PARAMS SCHEMA_MAX_PARAMS
#define TEXT_MAX 256 /* a set of gRPC codes runs to ~200 characters */

typedef struct layer {
    const sb_policy *p;
    char origin[256]; /* "" for built-in */
    bool plugin;      /* origin[0] != '\0': its hooks run under hookguard */
    void *shared;
    size_t poff, psize; /* process state: offset, size */
    size_t coff, csize; /* client state: offset, size */
    size_t roff, rsize; /* request state */
    int nparams;
    sb_value values[MAX_PARAMS];
    char texts[MAX_PARAMS][TEXT_MAX];
} layer;

struct pstack {
    layer layers[PSTACK_MAX_LAYERS];
    int n;
    char name[PSTACK_MAX_LAYERS * 40];
    size_t psize, csize, rsize;
    unsigned hooks; /* PSTACK_HOOK_ bits of every layer */
    pstack_classify_fn classify;
    const sb_host *host_src; /* the caller's host the cache was built from */
    sb_host host;            /* the caller's functions plus classify */
    char error[ERR_MSG_MAX];
};

/* A plug-in layer's hook runs between these two, so that a crash or a
 * hang in it can be blamed on it (hookguard.h); a built-in layer's runs
 * unguarded, at the cost of one test. */
static inline void enter(const layer *l, const char *hook, double now_s)
{
    if (l->plugin)
        hookguard_enter(l->p->name, l->origin, hook, now_s);
}

static inline void leave(const layer *l)
{
    if (l->plugin)
        hookguard_leave();
}

/* Layer sizes are rounded up so that every layer's state is aligned for
 * any type a policy may keep in it. */
static size_t align16(size_t n)
{
    return (n + 15u) & ~(size_t)15u;
}

static int find_param(const sb_policy *p, const char *name)
{
    for (int i = 0; p->params && p->params[i].name; i++)
        if (strcmp(p->params[i].name, name) == 0)
            return i;
    return -1;
}

static void list_params(const sb_policy *p, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; p->params && p->params[i].name && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                                 p->params[i].name);
    if (buf[0] == '\0')
        snprintf(buf, len, "(none)");
}

/* Which layer and parameter a setting's key addresses. */
static int resolve_key(const pstack *ps, const setting *s, int *li, int *pi,
                       sb_err *e)
{
    const char *dot = strchr(s->key, '.');
    if (dot) {
        size_t ln = (size_t)(dot - s->key);
        for (int i = 0; i < ps->n; i++) {
            const sb_policy *p = ps->layers[i].p;
            if (strlen(p->name) != ln || strncmp(p->name, s->key, ln) != 0)
                continue;
            int j = find_param(p, dot + 1);
            if (j < 0) {
                char list[512];
                list_params(p, list, sizeof list);
                return err_set(e,
                               "%s %s: policy '%s' has no parameter "
                               "'%s'; its parameters are: %s",
                               s->origin, s->key, p->name, dot + 1, list);
            }
            *li = i;
            *pi = j;
            return 0;
        }
        return err_set(e, "%s %s: '%.*s' is not a layer of policy '%s'",
                       s->origin, s->key, (int)ln, s->key, ps->name);
    }
    int found = 0;
    for (int i = 0; i < ps->n; i++) {
        int j = find_param(ps->layers[i].p, s->key);
        if (j < 0)
            continue;
        if (found++)
            return err_set(e,
                           "%s %s: ambiguous in policy '%s'; write "
                           "%s.%s or %s.%s",
                           s->origin, s->key, ps->name, ps->layers[*li].p->name,
                           s->key, ps->layers[i].p->name, s->key);
        *li = i;
        *pi = j;
    }
    if (found)
        return 0;
    if (ps->n == 1) {
        char list[512];
        list_params(ps->layers[0].p, list, sizeof list);
        return err_set(e, "%s %s: policy '%s' has no such parameter; %s%s",
                       s->origin, s->key, ps->name,
                       list[0] == '(' ? "it has no parameters"
                                      : "its parameters are: ",
                       list[0] == '(' ? "" : list);
    }
    char all[1024];
    size_t used = 0;
    all[0] = '\0';
    for (int i = 0; i < ps->n && used < sizeof all; i++) {
        char list[512];
        list_params(ps->layers[i].p, list, sizeof list);
        used += (size_t)snprintf(all + used, sizeof all - used, "%s%s: %s",
                                 i ? "; " : "", ps->layers[i].p->name, list);
    }
    return err_set(e,
                   "%s %s: no layer of policy '%s' has this parameter "
                   "(%s)",
                   s->origin, s->key, ps->name, all);
}

static int set_text(layer *l, int j, const char *text, sb_err *e)
{
    if (strlen(text) >= TEXT_MAX)
        return err_set(e, "value '%.40s...' is too long", text);
    snprintf(l->texts[j], TEXT_MAX, "%s", text);
    return schema_parse_value(&l->p->params[j], text, &l->values[j], e);
}

static int init_layer(pstack *ps, const pstack_layer_spec *spec, sb_err *e)
{
    layer *l = &ps->layers[ps->n];
    if (schema_check_policy(spec->policy, spec->origin, e) != 0)
        return -1;
    l->p = spec->policy;
    snprintf(l->origin, sizeof l->origin, "%s",
             spec->origin ? spec->origin : "");
    l->plugin = l->origin[0] != '\0';
    l->nparams = schema_count_params(l->p);
    for (int j = 0; j < l->nparams; j++)
        if (set_text(l, j, l->p->params[j].default_value, e) != 0)
            return -1;
    ps->n++;
    return 0;
}

static int create_layer(pstack *ps, layer *l, sb_err *e)
{
    char msg[ERR_MSG_MAX] = "";
    int32_t rc = 0;
    if (l->p->create) {
        enter(l, "create", HOOKGUARD_BEFORE_RUN);
        rc = l->p->create(l->values, &l->shared, msg, sizeof msg);
        leave(l);
    }
    if (rc != 0) {
        char who[320];
        return err_set(e, "%s: %s",
                       schema_describe(l->p, l->origin, who, sizeof who),
                       msg[0] ? msg : "create() failed");
    }
    enter(l, "process_state_size", HOOKGUARD_BEFORE_RUN);
    l->psize =
        l->p->process_state_size ? l->p->process_state_size(l->shared) : 0;
    leave(l);
    enter(l, "client_state_size", HOOKGUARD_BEFORE_RUN);
    l->csize = l->p->client_state_size ? l->p->client_state_size(l->shared) : 0;
    leave(l);
    enter(l, "request_state_size", HOOKGUARD_BEFORE_RUN);
    l->rsize =
        l->p->request_state_size ? l->p->request_state_size(l->shared) : 0;
    leave(l);
    if (l->psize > PSTACK_MAX_STATE || l->csize > PSTACK_MAX_STATE ||
        l->rsize > PSTACK_MAX_STATE) {
        char who[320];
        return err_set(e,
                       "%s asks for %zu bytes of state per process, %zu "
                       "per client and %zu per request; at most %d each",
                       schema_describe(l->p, l->origin, who, sizeof who),
                       l->psize, l->csize, l->rsize, PSTACK_MAX_STATE);
    }
    l->poff = ps->psize;
    ps->psize += align16(l->psize);
    l->coff = ps->csize;
    l->roff = ps->rsize;
    ps->csize += align16(l->csize);
    ps->rsize += align16(l->rsize);
    return 0;
}

static unsigned hooks_of(const pstack *ps)
{
    unsigned h = 0;
    for (int i = 0; i < ps->n; i++) {
        const sb_policy *p = ps->layers[i].p;
        h |= (p->before_send ? PSTACK_HOOK_BEFORE_SEND : 0u) |
             (p->on_success ? PSTACK_HOOK_ON_SUCCESS : 0u) |
             (p->on_decision ? PSTACK_HOOK_ON_DECISION : 0u) |
             (p->on_request_end ? PSTACK_HOOK_ON_REQUEST_END : 0u);
    }
    return h;
}

int pstack_create(const pstack_layer_spec *layers, int n_layers,
                  const setting *settings, int n_settings,
                  pstack_classify_fn classify, pstack **out, sb_err *e)
{
    *out = NULL;
    if (n_layers < 1 || n_layers > PSTACK_MAX_LAYERS)
        return err_set(e, "a policy stack has 1 to %d layers, not %d",
                       PSTACK_MAX_LAYERS, n_layers);
    pstack *ps = calloc(1, sizeof *ps);
    if (ps == NULL)
        return err_set(e, "out of memory");
    ps->classify = classify;
    size_t used = 0;
    for (int i = 0; i < n_layers; i++) {
        if (init_layer(ps, &layers[i], e) != 0)
            goto fail;
        for (int k = 0; k < i; k++)
            if (strcmp(ps->layers[k].p->name, layers[i].policy->name) == 0) {
                err_set(e, "policy '%s' appears twice in the stack",
                        layers[i].policy->name);
                goto fail;
            }
        used += (size_t)snprintf(ps->name + used, sizeof ps->name - used,
                                 "%s%s", i ? "+" : "", layers[i].policy->name);
    }
    for (int s = 0; s < n_settings; s++) {
        int li = 0, pi = 0;
        if (resolve_key(ps, &settings[s], &li, &pi, e) != 0)
            goto fail;
        layer *l = &ps->layers[li];
        if (set_text(l, pi, settings[s].value, e) != 0) {
            err_prefix(e, "%s %s", settings[s].origin, settings[s].key);
            goto fail;
        }
    }
    for (int i = 0; i < ps->n; i++)
        if (create_layer(ps, &ps->layers[i], e) != 0)
            goto fail;
    ps->hooks = hooks_of(ps);
    *out = ps;
    return 0;
fail:
    pstack_destroy(ps);
    return -1;
}

void pstack_destroy(pstack *ps)
{
    if (ps == NULL)
        return;
    for (int i = 0; i < ps->n; i++) {
        const layer *l = &ps->layers[i];
        if (l->p->destroy && l->shared) {
            enter(l, "destroy", HOOKGUARD_AFTER_RUN);
            l->p->destroy(l->shared);
            leave(l);
        }
    }
    free(ps);
}

/* ---- Copies (pstack.h) ------------------------------------------------- */

typedef int32_t (*clone_fn)(const void *shared, void **copy, char *err,
                            size_t errlen);

/* Layer l's clone hook, when its table is long enough to have one (ABI
 * 2.2; a 2.0 or 2.1 table ends before it). */
static clone_fn clone_hook(const layer *l)
{
    if (l->p->struct_size < offsetof(sb_policy, clone) + sizeof l->p->clone)
        return NULL;
    return l->p->clone;
}

static bool layer_readonly(const layer *l)
{
    return l->shared == NULL || (l->p->flags & SB_POLICY_SHARED_READONLY);
}

static int refuse_copy(const layer *l, sb_err *e)
{
    char who[320];
    return err_set(e,
                   "%s keeps shared state that may change while it "
                   "runs and has no clone hook, so a running simulation "
                   "that uses it cannot be copied (the risk estimate's "
                   "splitting branches runs that way).  Give its sb_policy "
                   "a clone hook (policy ABI 2.2), or the flag "
                   "SB_POLICY_SHARED_READONLY if no hook ever writes its "
                   "shared state; or estimate with plain Monte Carlo "
                   "(--method mc)",
                   schema_describe(l->p, l->origin, who, sizeof who));
}

int pstack_check_clonable(const pstack *ps, sb_err *e)
{
    for (int i = 0; i < ps->n; i++) {
        const layer *l = &ps->layers[i];
        if (!layer_readonly(l) && clone_hook(l) == NULL)
            return refuse_copy(l, e);
    }
    return 0;
}

bool pstack_shareable(const pstack *ps)
{
    for (int i = 0; i < ps->n; i++)
        if (!layer_readonly(&ps->layers[i]))
            return false;
    return true;
}

/* Layer l of a copy: its shared state from src's (pstack.h). */
static int copy_shared(layer *l, const layer *src, sb_err *e)
{
    char msg[ERR_MSG_MAX] = "";
    int32_t rc = 0;
    l->shared = NULL;
    if (src->shared == NULL)
        return 0;
    clone_fn hook = clone_hook(src);
    if (hook) {
        enter(l, "clone", HOOKGUARD_BEFORE_RUN);
        rc = hook(src->shared, &l->shared, msg, sizeof msg);
        leave(l);
    } else if (src->p->flags & SB_POLICY_SHARED_READONLY) {
        enter(l, "create", HOOKGUARD_BEFORE_RUN);
        rc = l->p->create(l->values, &l->shared, msg, sizeof msg);
        leave(l);
    } else {
        return refuse_copy(src, e);
    }
    if (rc != 0) {
        char who[320];
        l->shared = NULL;
        return err_set(e, "%s: copying its shared state: %s",
                       schema_describe(l->p, l->origin, who, sizeof who),
                       msg[0] ? msg : "clone() failed");
    }
    return 0;
}

int pstack_clone(const pstack *src, pstack **out, sb_err *e)
{
    *out = NULL;
    if (pstack_check_clonable(src, e) != 0)
        return -1;
    pstack *ps = malloc(sizeof *ps);
    if (ps == NULL)
        return err_set(e, "out of memory");
    *ps = *src;
    ps->host_src = NULL;
    ps->error[0] = '\0';
    for (int i = 0; i < ps->n; i++)
        ps->layers[i].shared = NULL;
    for (int i = 0; i < ps->n; i++)
        if (copy_shared(&ps->layers[i], &src->layers[i], e) != 0) {
            pstack_destroy(ps);
            return -1;
        }
    *out = ps;
    return 0;
}

void *pstack_layer_shared(const pstack *ps, int i)
{
    return ps->layers[i].shared;
}

const char *pstack_name(const pstack *ps)
{
    return ps->name;
}

bool pstack_has_param(const pstack *ps, const setting *s)
{
    sb_err ignored;
    int li = 0, pi = 0;
    return resolve_key(ps, s, &li, &pi, &ignored) == 0;
}
int pstack_param_index(const pstack *ps, const setting *s, int *li, int *pi)
{
    sb_err ignored;
    *li = *pi = 0;
    return resolve_key(ps, s, li, pi, &ignored) == 0 ? 0 : -1;
}
int pstack_layers(const pstack *ps)
{
    return ps->n;
}
const sb_policy *pstack_layer(const pstack *ps, int i)
{
    return ps->layers[i].p;
}
const char *pstack_param_text(const pstack *ps, int li, int param)
{
    return ps->layers[li].texts[param];
}

sb_value pstack_param_value(const pstack *ps, int li, int param)
{
    return ps->layers[li].values[param];
}
bool pstack_has_before_send(const pstack *ps)
{
    return (ps->hooks & PSTACK_HOOK_BEFORE_SEND) != 0;
}
unsigned pstack_hooks(const pstack *ps)
{
    return ps->hooks;
}

size_t pstack_process_state_size(const pstack *ps)
{
    return ps->psize;
}
size_t pstack_client_state_size(const pstack *ps)
{
    return ps->csize;
}
size_t pstack_request_state_size(const pstack *ps)
{
    return ps->rsize;
}
const char *pstack_error(const pstack *ps)
{
    return ps->error;
}

/* The reports a host may have no use for (a probe, `decide`) are no-ops,
 * never NULL: policy.h promises a plug-in every function sb_host's size
 * covers, and a plug-in written from it calls them unchecked. */
static void no_breaker(const sb_ctx *ctx, int32_t open)
{
    (void)ctx;
    (void)open;
}

static void no_level(const sb_ctx *ctx, double fraction)
{
    (void)ctx;
    (void)fraction;
}

static const sb_host *host_for(pstack *ps, const sb_host *src)
{
    if (ps->host_src != src) {
        assert(src->uniform != NULL);
        ps->host = *src;
        ps->host.struct_size = sizeof ps->host;
        ps->host.classify = ps->classify;
        if (ps->host.breaker == NULL)
            ps->host.breaker = no_breaker;
        if (ps->host.level == NULL)
            ps->host.level = no_level;
        ps->host_src = src;
    }
    return &ps->host;
}

/* Inline: it runs for every layer at every hook, and out of line it
 * returned its 64 bytes through memory. */
SB_ALWAYS_INLINE static inline sb_ctx
ctx_with(pstack *ps, const layer *l, const pstack_call *call,
         void *process_state, void *client_state, void *request_state)
{
    sb_ctx c;
    c.struct_size = sizeof c;
    c.client = call->client;
    c.process = call->process;
    c.reserved = 0;
    c.shared = l->shared;
    c.process_state = process_state;
    c.client_state = client_state;
    c.request_state = request_state;
    c.host = host_for(ps, call->host);
    c.host_data = call->host_data;
    return c;
}

/* Layer l's context: its share of each state block, NULL where it keeps
 * none or the caller has none. */
SB_ALWAYS_INLINE static inline sb_ctx ctx_for(pstack *ps, const layer *l,
                                              const pstack_call *call)
{
    return ctx_with(ps, l, call,
                    l->psize && call->process_state
                        ? (char *)call->process_state + l->poff
                        : NULL,
                    l->csize ? (char *)call->client_state + l->coff : NULL,
                    (l->rsize && call->request_state)
                        ? (char *)call->request_state + l->roff
                        : NULL);
}

/* Layer 0's context: its states open each block (its poff, coff and roff
 * are 0), so each is the caller's pointer when the layer has such state,
 * else NULL -- what ctx_for gives (p + 0, NULL when p is NULL), with one
 * test each instead of two, and no offsets to add. */
SB_ALWAYS_INLINE static inline sb_ctx ctx_for_first(pstack *ps,
                                                    const pstack_call *call)
{
    const layer *l = &ps->layers[0];
    return ctx_with(ps, l, call, l->psize ? call->process_state : NULL,
                    l->csize ? call->client_state : NULL,
                    l->rsize ? call->request_state : NULL);
}

void pstack_process_init(pstack *ps, const pstack_call *call)
{
    for (int i = 0; i < ps->n; i++) {
        const layer *l = &ps->layers[i];
        if (l->p->process_init) {
            sb_ctx c = ctx_for(ps, l, call);
            c.client_state = NULL;
            c.request_state = NULL;
            enter(l, "process_init", 0.0);
            l->p->process_init(&c);
            leave(l);
        }
    }
}

void pstack_client_init(pstack *ps, const pstack_call *call)
{
    for (int i = 0; i < ps->n; i++) {
        const layer *l = &ps->layers[i];
        if (l->p->client_init) {
            sb_ctx c = ctx_for(ps, l, call);
            c.request_state = NULL;
            enter(l, "client_init", 0.0);
            l->p->client_init(&c);
            leave(l);
        }
    }
}

static int bad_delay(pstack *ps, const layer *l, const char *hook,
                     const char *what, double d)
{
    char who[320], value[48] = "";
    if (!isnan(d))
        snprintf(value, sizeof value, " %g s", d);
    snprintf(ps->error, sizeof ps->error,
             "%s returned %s%s from %s; a delay must be a number between 0 "
             "and %g s",
             schema_describe(l->p, l->origin, who, sizeof who), what, value,
             hook, PSTACK_MAX_DELAY_S);
    return -1;
}

/* A delay in range passes with one test (a NaN fails it), inline: it
 * runs after every layer's on_failure. */
static int delay_error(pstack *ps, const layer *l, const char *hook, double d);

static inline int check_delay(pstack *ps, const layer *l, const char *hook,
                              double d)
{
    if (d >= 0 && d <= PSTACK_MAX_DELAY_S)
        return 0;
    return delay_error(ps, l, hook, d);
}

static int delay_error(pstack *ps, const layer *l, const char *hook, double d)
{
    if (isnan(d))
        return bad_delay(ps, l, hook, "a NaN delay", d);
    if (d < 0)
        return bad_delay(ps, l, hook, "a negative delay", d);
    if (d > PSTACK_MAX_DELAY_S)
        return bad_delay(ps, l, hook, "an absurd delay", d);
    return 0;
}

static void verdict_init(sb_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->struct_size = sizeof *v;
    v->action = SB_SEND_ALLOW;
}

static void decision_init(sb_decision *d)
{
    memset(d, 0, sizeof *d);
    d->struct_size = sizeof *d;
    d->action = SB_PASS;
}

static int broken(pstack *ps, const layer *l, const char *fmt, ...)
    SB_PRINTF(3, 4);
static int broken(pstack *ps, const layer *l, const char *fmt, ...)
{
    char who[320], msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(ps->error, sizeof ps->error, "%s %s",
             schema_describe(l->p, l->origin, who, sizeof who), msg);
    return -1;
}

/* Is what the layer wrote into its verdict within the contract? */
static int check_verdict(pstack *ps, const layer *l, const sb_verdict *v)
{
    if (v->action != SB_SEND_ALLOW && v->action != SB_SEND_REFUSE)
        return broken(ps, l,
                      "returned an unknown send action %u from "
                      "before_send (expected SB_SEND_ALLOW or "
                      "SB_SEND_REFUSE)",
                      v->action);
    if (v->action == SB_SEND_REFUSE && v->refusal >= SB_REFUSAL_COUNT)
        return broken(ps, l,
                      "refused a send for an unknown reason %u "
                      "(expected one of the SB_REFUSAL_ constants)",
                      v->refusal);
    return check_delay(ps, l, "before_send (hedge_after_s)", v->hedge_after_s);
}

int pstack_before_send(pstack *ps, const pstack_call *call, const sb_attempt *a,
                       pstack_verdict *out)
{
    verdict_init(&out->v);
    out->layer = -1;
    for (int i = 0; i < ps->n; i++) {
        const layer *l = &ps->layers[i];
        if (l->p->before_send == NULL)
            continue;
        sb_ctx c = ctx_for(ps, l, call);
        sb_verdict v;
        verdict_init(&v);
        enter(l, "before_send", a->now_s);
        l->p->before_send(&c, a, &v);
        leave(l);
        if (check_verdict(ps, l, &v) != 0)
            return -1;
        if (v.action == SB_SEND_REFUSE) {
            /* The first refusal decides; the layers after it are not
             * asked, as in a client's interceptor chain.  No layer has
             * spent anything yet (the ABI forbids it in before_send). */
            out->v = v;
            out->layer = i;
            return 0;
        }
        if (v.hedge_after_s > 0 && (out->v.hedge_after_s <= 0 ||
                                    v.hedge_after_s < out->v.hedge_after_s))
            out->v.hedge_after_s = v.hedge_after_s;
    }
    return 0;
}

void pstack_on_success(pstack *ps, const pstack_call *call, const sb_attempt *a)
{
    if (!(ps->hooks & PSTACK_HOOK_ON_SUCCESS))
        return;
    for (int i = 0; i < ps->n; i++) {
        const layer *l = &ps->layers[i];
        if (l->p->on_success) {
            sb_ctx c = ctx_for(ps, l, call);
            enter(l, "on_success", a->now_s);
            l->p->on_success(&c, a);
            leave(l);
        }
    }
}

static int rank(sb_action a)
{
    return (int)a; /* PASS < RETRY < GIVE_UP < QUARANTINE */
}

/* Is what a layer's on_failure wrote within the contract? */
static inline int check_decision(pstack *ps, const layer *l,
                                 const sb_decision *d)
{
    if (d->action > SB_QUARANTINE)
        return broken(ps, l,
                      "returned an unknown action %u from "
                      "on_failure (expected SB_PASS, SB_RETRY, "
                      "SB_GIVE_UP or SB_QUARANTINE)",
                      d->action);
    return check_delay(ps, l, "on_failure", d->delay_s);
}

/* No layer asked for a retry: the request gives up. */
static void no_retry(pstack_decision *out)
{
    decision_init(&out->d);
    out->d.action = SB_GIVE_UP;
    out->d.reason = "no layer asked for a retry";
    out->layer = -1;
    out->delay_layer = -1;
    out->delay_reason = NULL;
}

/* pstack_on_failure for a stack of one layer: what the loop below gives
 * for n = 1, with the layer's answer written straight into out (nothing
 * to combine, no copy).  The same values to the last bit: a retry's
 * delay is the layer's when above 0, else +0.0 (as the loop's running
 * maximum, which starts at 0.0, leaves it).  Most stacks have one layer
 * (every backoff policy alone), and the loop's bookkeeping was a large
 * part of a failure's cost for them. */
SB_ALWAYS_INLINE static inline int on_failure_one(pstack *ps,
                                                  const pstack_call *call,
                                                  const sb_attempt *a,
                                                  pstack_decision *out)
{
    const layer *l = &ps->layers[0];
    sb_ctx c = ctx_for_first(ps, call);
    sb_decision *d = &out->d;
    decision_init(d);
    enter(l, "on_failure", a->now_s);
    l->p->on_failure(&c, a, d);
    leave(l);
    if (check_decision(ps, l, d) != 0)
        return -1;
    if (d->action == SB_PASS) {
        no_retry(out);
        return 0;
    }
    out->layer = 0;
    out->delay_layer = -1;
    out->delay_reason = NULL;
    if (d->action != SB_RETRY) {
        d->delay_s = 0.0;
    } else if (d->delay_s > 0.0) {
        out->delay_layer = 0;
        out->delay_reason = d->reason;
    } else {
        d->delay_s = 0.0;
    }
    return 0;
}

/* The general case: every layer asked, the answers combined. */
SB_NOINLINE static int on_failure_all(pstack *ps, const pstack_call *call,
                                      const sb_attempt *a, pstack_decision *out)
{
    decision_init(&out->d);
    out->layer = -1;
    out->delay_layer = -1;
    out->delay_reason = NULL;
    double delay = 0.0;
    for (int i = 0; i < ps->n; i++) {
        const layer *l = &ps->layers[i];
        sb_ctx c = ctx_for(ps, l, call);
        sb_decision d;
        decision_init(&d);
        enter(l, "on_failure", a->now_s);
        l->p->on_failure(&c, a, &d);
        leave(l);
        if (check_decision(ps, l, &d) != 0)
            return -1;
        if (d.delay_s > delay) {
            delay = d.delay_s;
            out->delay_layer = i;
            out->delay_reason = d.reason;
        }
        if (rank(d.action) > rank(out->d.action)) {
            out->d = d;
            out->layer = i;
        }
    }
    if (out->d.action == SB_PASS) {
        no_retry(out);
        return 0;
    }
    out->d.delay_s = out->d.action == SB_RETRY ? delay : 0.0;
    if (out->d.action != SB_RETRY) {
        out->delay_layer = -1;
        out->delay_reason = NULL;
    }
    return 0;
}

/* Inline in its callers, the engine's included (the build links with
 * LTO; pstack.h's declaration keeps this an external definition for a
 * build without): a one-layer stack's hook is then called straight from
 * the engine's failure path, with no call, frame and copies of its own
 * around it. */
SB_ALWAYS_INLINE inline int pstack_on_failure(pstack *ps,
                                              const pstack_call *call,
                                              const sb_attempt *a,
                                              pstack_decision *out)
{
    if (ps->n == 1)
        return on_failure_one(ps, call, a, out);
    /* A copy, made on this path only: given the caller's address, the
     * caller kept its call in memory, stored at every failure. */
    pstack_call c = *call;
    return on_failure_all(ps, &c, a, out);
}

void pstack_on_decision(pstack *ps, const pstack_call *call,
                        const sb_attempt *a, const sb_decision *final)
{
    if (!(ps->hooks & PSTACK_HOOK_ON_DECISION))
        return;
    for (int i = 0; i < ps->n; i++) {
        const layer *l = &ps->layers[i];
        if (l->p->on_decision) {
            sb_ctx c = ctx_for(ps, l, call);
            enter(l, "on_decision", a->now_s);
            l->p->on_decision(&c, a, final);
            leave(l);
        }
    }
}

void pstack_on_request_end(pstack *ps, const pstack_call *call,
                           const sb_attempt *a, sb_outcome outcome)
{
    if (!(ps->hooks & PSTACK_HOOK_ON_REQUEST_END))
        return;
    for (int i = 0; i < ps->n; i++) {
        const layer *l = &ps->layers[i];
        if (l->p->on_request_end) {
            sb_ctx c = ctx_for(ps, l, call);
            enter(l, "on_request_end", a->now_s);
            l->p->on_request_end(&c, a, outcome);
            leave(l);
        }
    }
}

const char *pstack_action_name(sb_action a)
{
    switch (a) {
    case SB_PASS:
        return "pass";
    case SB_RETRY:
        return "retry";
    case SB_GIVE_UP:
        return "give_up";
    case SB_QUARANTINE:
        return "quarantine";
    }
    return "?";
}

const char *pstack_refusal_name(sb_refusal r)
{
    switch (r) {
    case SB_REFUSAL_DEADLINE:
        return "deadline";
    case SB_REFUSAL_BUDGET:
        return "budget";
    case SB_REFUSAL_BREAKER:
        return "breaker";
    default:
        return "other";
    }
}

const char *pstack_layer_scope(const pstack *ps, int i, char *buf, size_t len)
{
    const layer *l = &ps->layers[i];
    if (l->p->scope)
        return l->p->scope;
    const char *kinds[3] = {NULL, NULL, NULL};
    int n = 0;
    if (l->psize)
        kinds[n++] = "process";
    if (l->csize)
        kinds[n++] = "client";
    if (l->rsize)
        kinds[n++] = "request";
    if (n == 0)
        snprintf(buf, len, "stateless");
    else
        snprintf(buf, len, "per %s%s%s%s%s", kinds[0], n > 1 ? ", " : "",
                 n > 1 ? kinds[1] : "", n > 2 ? ", " : "",
                 n > 2 ? kinds[2] : "");
    return buf;
}

const char *pstack_outcome_name(sb_outcome o)
{
    switch (o) {
    case SB_OUTCOME_SUCCESS:
        return "success";
    case SB_OUTCOME_GAVE_UP:
        return "gave_up";
    case SB_OUTCOME_DEADLINE:
        return "deadline";
    case SB_OUTCOME_REFUSED:
        return "refused";
    case SB_OUTCOME_QUARANTINED:
        return "quarantined";
    }
    return "?";
}
