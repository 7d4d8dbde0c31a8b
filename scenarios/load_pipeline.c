/*
 * load_pipeline.c -- [pipeline] and [step.NAME] (load_pipeline.h).
 */
#include "load_pipeline.h"

#include <stdio.h>
#include <string.h>

#include "syntax.h"

/* What a step's other keys need to know: whether it has a stack of its
 * own, and whether --set chose it. */
typedef struct step_ctx {
    bool own_policy;
    bool set_stack;
} step_ctx;

int key_step_policy(load *ld, const key_row *k, entry *en, const keys_target *t)
{
    step_cfg *st = t->base;
    if (en->value[0] == '\0')
        return load_bad_value(ld->e, en,
                              "a policy stack such as exponential "
                              "or plan+token_bucket (leave the key out to "
                              "run the run's own stack)");
    if (key_text(ld, k, en, t) != 0)
        return -1;
    if (snprintf(st->policy_origin, sizeof st->policy_origin, "%s: [%s] policy",
                 en->origin, t->name) >= (int)sizeof st->policy_origin)
        return load_bad(ld->e, en, "has a file path too long to report");
    return 0;
}

/* A key of a step that has no row: a parameter of the step's own stack,
 * kept with where it was written -- or, without a stack of its own, the
 * usual unknown-key message and why a stack parameter is not taken here.
 * When --set chose the step's stack, the file's parameters (written for
 * the file's stack) are left out, as for [policy.NAME]. */
static int step_setting(load *ld, entry *en, const keys_target *t)
{
    step_cfg *st = t->base;
    const step_ctx *c = t->ctx;
    if (!c->own_policy) {
        keys_unknown(ld, en, t);
        size_t len = strlen(ld->e->msg);
        snprintf(ld->e->msg + len, sizeof ld->e->msg - len,
                 "; a policy parameter needs the step's own policy "
                 "(policy = NAME): without one the step runs the run's "
                 "stack, whose parameters are set in [policy]");
        return -1;
    }
    if (c->set_stack && !load_from_set(en))
        return 0;
    if (st->n_settings == SIM_STEP_SETTINGS) {
        char msg[96];
        snprintf(msg, sizeof msg,
                 "too many policy parameters for a step "
                 "(at most %d)",
                 SIM_STEP_SETTINGS);
        return load_bad(ld->e, en, msg);
    }
    return load_keep_setting(ld, en, t->name, &st->settings[st->n_settings++]);
}

static int load_step(load *ld, const char *name, step_cfg *st)
{
    char section[LOAD_SECTION_MAX];
    snprintf(section, sizeof section, "step.%s", name);
    config_step_defaults(st);
    snprintf(st->name, sizeof st->name, "%s", name);
    const entry *pol = load_find(ld, section, "policy");
    step_ctx c = {pol != NULL, pol && load_from_set(pol)};
    keys_target t = {.section = KS_STEP,
                     .name = section,
                     .base = st,
                     .other = step_setting,
                     .ctx = &c};
    if (keys_defaults(ld, &t) != 0 || keys_apply(ld, &t) != 0)
        return -1;
    const entry *bad_items = load_find(ld, section, "item_defect");
    if (bad_items && st->items == 0 && st->item_defect > 0)
        return load_bad_value(ld->e, bad_items,
                              "0 in a step that is not a "
                              "batch (item_defect is the share of a batch's "
                              "items with a defect; set items = N to make "
                              "the step a batch of N items)");
    return 0;
}

/* One name of steps = ...: a name, listed once, of a [step.NAME]. */
static int add_step(load *ld, const entry *en, pipeline_cfg *p,
                    const char *name)
{
    const char *names[SIM_MAX_STEPS];
    for (uint32_t i = 0; i < p->n_steps; i++)
        names[i] = p->steps[i].name;
    char want[LOAD_SECTION_MAX + 80];
    switch (load_check_name(ld, "step.", name, names, (int)p->n_steps,
                            SIM_MAX_STEPS)) {
    case LOAD_NAME_OK:
        break;
    case LOAD_NAME_INVALID:
        return load_bad_value(ld->e, en,
                              "a comma-separated list of step "
                              "names (" SYNTAX_NAME_RULE " each), each the "
                              "name of a [step.NAME] section");
    case LOAD_NAME_TWICE:
        snprintf(want, sizeof want,
                 "each step once, but '%s' is listed "
                 "twice",
                 name);
        return load_bad_value(ld->e, en, want);
    case LOAD_NAME_NO_SECTION:
        snprintf(want, sizeof want,
                 "the names of [step.NAME] sections, but "
                 "there is no [step.%s] section",
                 name);
        return load_bad_value(ld->e, en, want);
    case LOAD_NAME_TOO_MANY:
        snprintf(want, sizeof want, "at most %d steps", SIM_MAX_STEPS);
        return load_bad_value(ld->e, en, want);
    }
    /* The name alone for now: load_step fills the step. */
    snprintf(p->steps[p->n_steps++].name, SIM_NAME_MAX, "%s", name);
    return 0;
}

/* steps = a, b, c: the names, each a [step.NAME] section, each once. */
static int parse_steps(load *ld, const entry *en, pipeline_cfg *p)
{
    char list[SCENARIO_LINE_MAX];
    snprintf(list, sizeof list, "%s", en->value);
    p->n_steps = 0;
    if (*syntax_trim(list) == '\0')
        return load_bad_value(ld->e, en,
                              "at least one step: the names of "
                              "[step.NAME] sections, in the order they run");
    /* By hand, not strtok: "a,,b" has an empty name, not two names. */
    for (char *tok = list, *next; tok; tok = next) {
        char *comma = strchr(tok, ',');
        next = comma ? comma + 1 : NULL;
        if (comma)
            *comma = '\0';
        if (add_step(ld, en, p, syntax_trim(tok)) != 0)
            return -1;
    }
    return 0;
}

/* A [step.NAME] (a section, or keys --set gave it) that the pipeline
 * does not run: there is no [pipeline], or its steps leave it out. */
static int check_unlisted_steps(load *ld, const entry *steps)
{
    const pipeline_cfg *p = &ld->sc->cfg.pipeline;
    const char *names[SIM_MAX_STEPS];
    int n = steps ? (int)p->n_steps : 0;
    for (int i = 0; i < n; i++)
        names[i] = p->steps[i].name;
    char where[1200];
    const char *section =
        load_unlisted(ld, "step.", names, n, where, sizeof where);
    if (section == NULL)
        return 0;
    if (steps == NULL)
        return err_set(ld->e,
                       "%s: [%s] is a step of a pipeline, but the "
                       "scenario has no [pipeline]; expected a [pipeline] "
                       "section with steps = %s (the steps in the order a "
                       "job runs them)",
                       where, section, section + 5);
    return err_set(ld->e,
                   "%s: [%s] is not run: [pipeline] steps (%s) does "
                   "not list it; expected every [step.NAME] to be one of "
                   "the steps, got steps = '%.300s'",
                   where, section, steps->origin, steps->value);
}

/* What a pipeline does not run with yet: a service chain, and the
 * hot-record model (a step's answers are decided by the queue model's
 * server, pipeline.h). */
static int check_pipeline_server(load *ld, const entry *steps)
{
    const sim_config *c = &ld->sc->cfg;
    char msg[1400];
    if (c->n_tiers >= 2) {
        const entry *down = load_find(ld, "server", "downstream");
        snprintf(msg, sizeof msg,
                 "no downstream with a pipeline "
                 "([pipeline] steps, %s): a pipeline together with a "
                 "service chain is not supported yet",
                 steps->origin);
        return down ? load_bad_value(ld->e, down, msg)
                    : load_bad(ld->e, steps, msg);
    }
    const entry *model = load_find(ld, "server", "model");
    if (c->server.model == MODEL_HOT_RECORD) {
        snprintf(msg, sizeof msg,
                 "queue with a pipeline ([pipeline] "
                 "steps, %s): a step's answers come from the queue model; "
                 "a pipeline on the hot record is not supported yet",
                 steps->origin);
        return model ? load_bad_value(ld->e, model, msg)
                     : load_bad(ld->e, steps, msg);
    }
    return 0;
}

int load_pipeline(load *ld)
{
    pipeline_cfg *p = &ld->sc->cfg.pipeline;
    const entry *any = load_first(ld, "pipeline");
    const entry *steps = load_find(ld, "pipeline", "steps");
    if (any == NULL && load_section_line(ld, "pipeline") == 0)
        return check_unlisted_steps(ld, NULL);
    keys_target t = {.section = KS_PIPELINE, .name = "pipeline", .base = p};
    if (keys_defaults(ld, &t) != 0 || keys_apply(ld, &t) != 0)
        return -1;
    if (steps == NULL) {
        char where[1200];
        load_section_where(ld, "pipeline", any, where, sizeof where);
        return err_set(ld->e,
                       "%s: [pipeline] needs 'steps': the names of "
                       "its [step.NAME] sections, in the order a job runs "
                       "them, such as steps = extract, load",
                       where);
    }
    if (parse_steps(ld, steps, p) != 0 ||
        check_unlisted_steps(ld, steps) != 0 ||
        check_pipeline_server(ld, steps) != 0)
        return -1;
    for (uint32_t i = 0; i < p->n_steps; i++) {
        char name[SIM_NAME_MAX];
        memcpy(name, p->steps[i].name, sizeof name);
        if (load_step(ld, name, &p->steps[i]) != 0)
            return -1;
    }
    return 0;
}
