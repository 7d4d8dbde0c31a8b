/*
 * pipeline.h -- data pipelines: jobs of steps, each step a call through a
 * retry policy, with a strategy for failures, batches of items,
 * checkpoints, reruns and alerts.  Internal to sim/.
 *
 * The model.  With [pipeline] every client is a job runner: each arrival
 * (open, closed or once, as [clients] says) starts a *job*.  A job runs
 * its steps in the order [pipeline] steps lists them.  Each step is one
 * logical request -- a *call* -- to the server ([server]), driven through
 * a policy stack by the request driver (driver.h), as a client's request
 * is: before each attempt, after each failure (retry after d, give up,
 * quarantine), with the step's per-attempt timeout.  A call carries no
 * deadline: a step does not know its job's SLA, so its retries may end
 * after it (counted late, below).  An idempotent step's call is a put,
 * any other a post (what a classifying policy such as `classified`
 * retries differently), without an idempotency key.  A step without a policy of its
 * own runs the run's stack ([policy], --policy) in the runner's client and
 * process state, so compare and --policy change it; one with `policy =`
 * runs its own stack in state of its own.
 *
 * What answers a step's attempt.  The server admits, queues and serves it
 * (its service: the step's `service`, else [server]'s), and faults strike
 * it as they strike any request.  When its service ends, the step decides
 * the answer, by coins drawn for the job (the same under every policy):
 *   - `permanent` share of jobs: 403 on every attempt of the step (a
 *     permanent error);
 *   - `defect` share of jobs: 422 on every attempt (the step's input has
 *     a data defect);
 *   - `transient` share of attempts: the connection is reset (a flaky
 *     dependency; every classifier calls it transient), coin per attempt;
 *   - else success, and the step's write commits.
 * A *batch* step (items = N) carries N items, `item_defect` of them
 * defective (a coin per item, for the job).  A served batch attempt
 * commits its good items whether or not its answer reaches the runner;
 * with any bad item it is answered 422 with per-item results.  Under
 * strategy partial the runner takes that answer as the step's success: its
 * good items stay committed and its bad ones go to the dead-letter queue
 * (quarantined).  Under any other strategy the 422 is a failure its policy
 * judges (retry, give up, quarantine) -- and every retry that is served
 * commits the good items again unless the step is idempotent: duplicates,
 * counted per item (items_duplicated, and each a duplicate write of the
 * run).  Any other step's write is one write: redoing a non-idempotent
 * step (a rerun without checkpoint, a retry after a lost answer) is a
 * duplicate write of the run; items count batch rows only.
 *
 * When a step fails for good (its call ends failed: gave up, deadline,
 * refused, quarantined), the job follows the strategy:
 *   - fail_fast: the run of the job fails, later steps never run;
 *   - continue: later steps marked `independent` still run, the others
 *     are skipped; the run fails once the steps are through;
 *   - compensate: the steps this run completed are undone, newest first,
 *     each undo a call (of the step's stack, with its `undo` service) that
 *     can itself fail; the run fails compensated, or inconsistent when an
 *     undo failed (its step's write stays; later undos still run).  The
 *     job ends inconsistent when such a write is still there at its end,
 *     whichever run left it (a failed undo, a crash);
 *   - partial: as fail_fast, except that a batch step's per-item answer is
 *     a success (above).
 * A crash of the runners (fault type crash) fails every run in progress
 * at its start: the call out is abandoned (the runner stops waiting; the
 * server may still do the work), nothing is undone, and the runners take
 * no job until the crash ends.
 *
 * A failed run is rerun `reruns` times at most, `rerun_delay` after it
 * failed (or when the runners are back, if later).  With `checkpoints` a rerun starts at the first step no run of
 * the job has completed; without, at the first step, redoing (and
 * recommitting) what earlier runs did.  After a compensated run the
 * steps it undid start over (their writes are gone); a step without an
 * undo (a read) keeps its checkpoint.
 *
 * Time.  A job's time is split while it runs: waiting for answers
 * (working), waiting out retry delays (blocked), and failed: from a failed
 * run to its rerun, and after the final failure until the job's deadline
 * (start + sla; nothing without an SLA).  A retry that ends after the
 * job's deadline is counted late.
 *
 * Alerts (the seeds' escalation).  The k-th retry of a step is logged
 * when k < warn_retry and raises a warning from warn_retry on; a step
 * call that fails for good other than by quarantine raises a critical
 * alert, and so does a failed undo; the dead-letter queue raises a
 * warning when it first holds anything, and a critical alert when it has
 * grown in dead_letter_growth buckets in a row (once per such streak).
 * Alerts are counted per bucket (metrics_bucket alerts_*).
 *
 * Front ends see a runner's mode (sim_client_modes) as a client's:
 * waiting while a call is out, backing off before a retry, gave up from a
 * failed run until its rerun or for good, idle once its job completed.
 *
 * Records.  A call is a request record of a step's caller; its client is
 * the job's runner, and its index packs (the runner's job number, run,
 * step, undo) so that its random draws are the same whatever the policy.
 * The metrics count calls as requests (offered, successes, failures by
 * cause) and their attempts as attempts, so the usual charts show the
 * steps' load; jobs, items and alerts have fields of their own.  A job's
 * record outlives the job while a call record names it (an attempt of an
 * ended call may still be served, and commits that job's write).
 */
#ifndef SB_PIPELINE_H
#define SB_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

/* Build the pipeline of s->cfg (pipeline.n_steps >= 1): every step's
 * caller, stack and states, the job pool; installs the step answers on
 * the top server.  Call after the clients exist.  Free with
 * pipeline_destroy. */
int pipeline_create(sim *s, sb_err *e);
void pipeline_destroy(sim *s);
/* Make s's pipeline a copy of src's, for the copy s of sim src whose
 * requesters are already copied: its jobs, lists and totals, the steps'
 * callers' names rebound.  -1 out of memory (pipeline_destroy then frees
 * what was made). */
int pipeline_clone(sim *s, const sim *src);

/* Client c's arrival k (its job number): start a job (client.c calls
 * this instead of starting a request when the run has a pipeline). */
void pipeline_start_job(sim *s, uint32_t c, uint32_t k);

/* A job's rerun is due (EV_JOB).  (The steps' calls' own events are the
 * request lifecycle's: request.h.) */
void pipeline_on_job(sim *s, uint32_t ji, uint32_t gen);

/* Crash faults (type crash) are running, or not (faults.c calls this
 * whenever the running faults change).  When the runners go down, every
 * job run in progress fails at once -- its call abandoned, nothing
 * undone -- and jobs that arrive or are due to rerun while they are down
 * wait for them to come back. */
void pipeline_runners_down(sim *s, bool down);

/* Invariants (pipeline_sane): `live` lists the jobs not yet ended, each
 * at its live_pos, at a step of the pipeline (or past the last, a run
 * that failed waiting for its rerun); jobs wait in `deferred`
 * only while the runners are down; `waiting` counts the started jobs
 * waiting for a rerun (until pipeline_finish has counted their time);
 * every step's caller is the step's (owner). */
bool pipeline_sane(const sim *s);

/* A bucket closes at t: judge the dead-letter queue's growth. */
void pipeline_bucket_closed(sim *s);
/* The run ends at t: count unfinished jobs and their failed time. */
void pipeline_finish(sim *s);

#endif
