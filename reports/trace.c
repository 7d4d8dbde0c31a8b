#include "trace.h"

#include "classifier.h"
#include "json.h"

static const char *op_name(sb_op op)
{
    return op == SB_OP_READ ? "read" : op == SB_OP_PUT ? "put" : "post";
}

static void error_fields(jw *w, const sb_attempt *a)
{
    jw_string(w, "error", classify_kind_name(a->error));
    if (a->error == SB_ERR_HTTP)
        jw_int(w, "status", a->status);
    if (a->error == SB_ERR_GRPC)
        jw_string(w, "status", classify_grpc_name(a->status));
    if (a->defect)
        jw_string(w, "defect", classify_defect_name(a->defect));
    if (a->error != SB_ERR_NONE) {
        sb_error_class cls;
        sb_confidence conf;
        classify_error(a, &cls, &conf);
        jw_string(w, "class", classify_class_name(cls));
        jw_string(w, "confidence", conf == SB_CONFIDENCE_HIGH ? "high" : "low");
    }
    if (a->retry_after_s >= 0)
        jw_double(w, "retry_after_s", a->retry_after_s);
    jw_fixed(w, "latency_s", a->latency_s, 6);
}

static void decision_fields(jw *w, const trace_writer *tw, const sim_trace *t)
{
    const pstack_decision *d = t->decision;
    jw_string(w, "decision", pstack_action_name(d->d.action));
    if (d->d.action == SB_RETRY)
        jw_fixed(w, "delay_s", d->d.delay_s, 6);
    jw_string(w, "reason", d->d.reason);
    const pstack *stack = t->stack ? t->stack : tw->stack;
    jw_string(w, "layer",
              d->layer >= 0 ? pstack_layer(stack, d->layer)->name : NULL);
    if (d->delay_layer >= 0 && d->delay_layer != d->layer) {
        jw_string(w, "delay_layer", pstack_layer(stack, d->delay_layer)->name);
        jw_string(w, "delay_reason", d->delay_reason);
    }
    if (t->decision_ignored)
        jw_bool(w, "waiting_for_hedge", true);
    if (t->limit)
        jw_string(w, "limit", t->limit);
}

void trace_write(void *ctx, const sim_trace *t)
{
    trace_writer *tw = ctx;
    const sb_attempt *a = t->attempt;
    jw w;
    jw_init(&w, tw->f, false);
    jw_object(&w, NULL);
    jw_fixed(&w, "t_s", (double)t->time_ns / 1e9, 6);
    jw_int(&w, "client", t->client);
    jw_int(&w, "request", t->request);
    if (t->caller)
        jw_string(&w, "caller", t->caller);
    static const char *const kinds[] = {"send", "result", "end"};
    jw_string(&w, "event", kinds[t->kind]);
    jw_int(&w, "attempt", a->attempt);
    jw_string(&w, "op", op_name(a->op));
    if (a->keyed)
        jw_bool(&w, "keyed", true);
    if (t->kind == TRACE_SEND) {
        if (t->hedge)
            jw_bool(&w, "hedge", true);
        jw_string(&w, "decision", t->refused ? "refuse" : "send");
        if (t->refused) {
            jw_string(&w, "reason", t->reason);
            jw_string(&w, "refusal", pstack_refusal_name(t->refusal));
        }
    } else if (t->kind == TRACE_RESULT) {
        error_fields(&w, a);
        if (t->decision)
            decision_fields(&w, tw, t);
    } else {
        jw_string(&w, "outcome", pstack_outcome_name(t->outcome));
        jw_fixed(&w, "elapsed_s", a->elapsed_s, 6);
    }
    jw_end(&w);
    fputc('\n', tw->f);
}
