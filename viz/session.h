/*
 * session.h -- one run a front end explores by hand: a scenario, a policy
 * stack, the engine running it, the series it draws, and the log of what
 * the user did to it.
 *
 * Everything the user does is a fault: an outage or a latency spike
 * injected now for a chosen time, and the live changes too -- a new
 * arrival rate is a load_spike, new workers a capacity fault, a new
 * timeout a client_timeout fault, each from now until the next change of
 * the same kind (or the end of the run).  So the log replays exactly
 * (the engine is deterministic and orders a fault's events before any
 * other event at the same instant, whether it was scheduled or injected),
 * going back in time is "rebuild and replay to t", and the run saves as a
 * scenario whose faults are the log.
 *
 * A session owns its copy of the config, its policy stack (plug-ins
 * included) and the engine; session_destroy frees them all.  Not thread
 * safe; a front end with two sessions (A/B) drives them one after the
 * other.
 */
#ifndef SB_SESSION_H
#define SB_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "err.h"
#include "policy_setup.h"
#include "series.h"
#include "setting.h"
#include "sim.h"
#include "summary.h"

#define SESSION_MAX_ACTIONS (SIM_MAX_FAULTS)
#define SESSION_MAX_PARAMS 32

/* The kinds of live change (each replaces the previous of its kind). */
typedef enum change_kind {
    CHANGE_RATE = 0, /* arrivals x value (load_spike) */
    CHANGE_WORKERS,  /* value workers (capacity) */
    CHANGE_TIMEOUT,  /* value ns attempt timeout (client_timeout) */
    CHANGE_KINDS
} change_kind;

/* One thing the user did, at simulated time t_ns. */
typedef struct session_action {
    int64_t t_ns;
    bool end;        /* end fault `index` early; else inject `fault` */
    int index;       /* the fault's index in the engine */
    fault_cfg fault; /* what was injected (start = t_ns) */
} session_action;

/* What a session runs: the scenario's config, the policy, plug-ins. */
typedef struct session_opts {
    const sim_config *cfg; /* copied */
    const char *policy;    /* "exponential+token_bucket" */
    const setting *params; /* its parameters, as written */
    int n_params;
    const char *const *plugins;
    int n_plugins;
} session_opts;

typedef struct session session;

int session_create(const session_opts *o, session **out, sb_err *e);
void session_destroy(session *ss);

/* Advance the run to t (ns), no further than its duration.  -1 when the
 * run had to stop (sim_error() of session_sim says why). */
int session_run_until(session *ss, int64_t t);
int64_t session_now(const session *ss);
bool session_done(const session *ss); /* at the end of its duration */
/* A number that changes whenever the run is rebuilt (a restart, a seek,
 * another policy): a front end's cached picture of it is stale then. */
uint64_t session_version(const session *ss);

const sim *session_sim(const session *ss);
const series *session_series(const session *ss);
const sim_config *session_config(const session *ss); /* without the log */
const char *session_policy(const session *ss);
/* "exponential (base=100ms, ...)" into buf. */
const char *session_policy_text(const session *ss, char *buf, size_t len);

/* Inject f now (its start is set to now).  Returns the fault's index, or
 * -1 with a message. */
int session_inject(session *ss, const fault_cfg *f, sb_err *e);
/* End a fault now: a running one stops, one injected at this instant
 * (not begun yet) never begins.  False when there was nothing to end. */
bool session_end_fault(session *ss, int index);
/* A live change of `kind` to `value`, from now on. */
int session_change(session *ss, change_kind kind, double value, sb_err *e);
/* The change of `kind` in force now, or the config's value. */
double session_current(const session *ss, change_kind kind);

/* Start over at t = 0 with the same seed: the log is cleared. */
int session_restart(session *ss, sb_err *e);
/* Another policy stack, on the same run: rebuilt and replayed, with the
 * whole log, to where it was (as session_seek to now), so the new policy
 * meets the storm the user made.  On error the old policy stays. */
int session_set_policy(session *ss, const char *policy, const setting *params,
                       int n_params, sb_err *e);
/* The stack running, and the parameters it was built with (as
 * written). */
const pstack *session_stack(const session *ss);
int session_params(const session *ss, const setting **out);

/* Go to time t: rebuild the run and replay the log's actions up to t
 * (those at t included; later ones are dropped), at full speed. */
int session_seek(session *ss, int64_t t, sb_err *e);

/* Make dst a copy of src's run so far: restart it and replay src's log
 * to src's time (dst keeps its own policy): how a second policy joins an
 * A/B comparison already under way. */
int session_replay(session *dst, const session *src, sb_err *e);

/* The log. */
int session_actions(const session *ss, const session_action **out);

/* The run so far as a scenario: the config with duration cut to now
 * (whole buckets), every fault of the log scheduled, and the run's
 * summary over exactly that scenario (computed by replaying it, so a
 * headless run of the saved file gives the same numbers).  *cfg_out and
 * *sum_out are the caller's. */
int session_as_scenario(const session *ss, sim_config *cfg_out,
                        sim_summary *sum_out, sb_err *e);

/* An [expect] section that the run just summarised passes: each figure
 * with a little room (so a policy that does the same passes), as
 * settings in out (up to max; SESSION_MAX_EXPECT holds them all); returns
 * how many.  The whole run's figures, each phase's that has a value
 * (during the fault, after it, the steady end), and a pipeline's jobs
 * and critical alerts. */
#define SESSION_MAX_EXPECT 16
int session_expectations(const sim_summary *sum, setting *out, int max);

#endif
