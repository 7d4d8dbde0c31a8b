/*
 * check_pipeline.c -- the pipeline model (sim/pipeline.h) on hand-worked
 * jobs: strategies, reruns with and without checkpoints, batches, alerts,
 * time blocked and failed, late retries.
 *
 * The setting of every hand-worked case: one runner starts one job at
 * t = 0 (arrival = once, start_window = 0); the server has unlimited
 * workers, no network delay and serves every attempt in exactly 1 s
 * (const), so a step's attempt sent at t is answered at t + 1 s, and the
 * job's whole timeline can be written down.  Attempts time out after 10 s
 * (never, here, unless a fault loses them).
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* The scenario: `clients` is the [clients] keys beyond the timeout
 * (default: one runner, one job at 0 s), `extra` more sections. */
static const char base_fmt[] =
    "[scenario]\nname = pipe\nduration = %s\nwarmup = 0s\nbucket = 1s\n"
    "[clients]\ntimeout = 10s\n%s"
    "[server]\nworkers = unlimited\nservice = const(1s)\n"
    "network_delay = const(0s)\n%s";

#define ONE_JOB "count = 1\narrival = once\nstart_window = 0s\n"

/* A pipeline of three steps as a scenario writes it, for the tests whose
 * INI needs one (a crash is refused without); apply() then sets what the
 * test asks for. */
#define PIPE3                                                                  \
    "[pipeline]\nsteps = s1, s2, s3\n[step.s1]\n[step.s2]\n[step.s3]\n"

#define NS_S 1000000000LL

/* The pipeline a test asks for, set on the loaded configuration. */
typedef struct spec {
    unsigned n;
    pipeline_strategy strategy;
    bool checkpoints;
    unsigned reruns;
    int64_t rerun_delay_ns, sla_ns;
    unsigned warn_retry, growth;
    step_cfg steps[SIM_MAX_STEPS];
} spec;

static void init_spec(spec *sp, unsigned n)
{
    memset(sp, 0, sizeof *sp);
    sp->n = n;
    sp->warn_retry = 3;
    sp->growth = 3;
    for (unsigned i = 0; i < n; i++) {
        config_step_defaults(&sp->steps[i]);
        snprintf(sp->steps[i].name, sizeof sp->steps[i].name, "s%u", i + 1);
    }
}

static void apply(sim_config *c, void *ctx)
{
    const spec *sp = ctx;
    pipeline_cfg *p = &c->pipeline;
    p->n_steps = sp->n;
    p->strategy = sp->strategy;
    p->checkpoints = sp->checkpoints;
    p->reruns = sp->reruns;
    p->rerun_delay_ns = sp->rerun_delay_ns;
    p->sla_ns = sp->sla_ns;
    p->warn_retry = sp->warn_retry;
    p->dead_letter_growth = sp->growth;
    memcpy(p->steps, sp->steps, sizeof p->steps);
}

static tu_sim *run_with(const char *duration, const char *clients,
                        const char *extra, const char *policy, spec *sp)
{
    char ini[2048];
    snprintf(ini, sizeof ini, base_fmt, duration, clients, extra ? extra : "");
    return tu_sim_run_edited(ini, policy, apply, sp);
}

static tu_sim *run(const char *extra, const char *policy, spec *sp)
{
    return run_with("60s", ONE_JOB, extra, policy, sp);
}

static const sim_pipeline_summary *pipe_of(const tu_sim *t)
{
    ck_assert(t->sum.has_pipeline);
    return &t->sum.pipeline;
}

/* ---- Strategies ------------------------------------------------------------ */

/* Three good steps run back to back: the job completes at t = 3 s, three
 * calls of one attempt each, 3 s working, nothing blocked or failed, no
 * write repeated (and no batch: no items). */
START_TEST(three_good_steps_complete)
{
    spec sp;
    init_spec(&sp, 3);
    tu_sim *t = run(NULL, "none", &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->jobs, 1);
    ck_assert_uint_eq(p->completed, 1);
    ck_assert_uint_eq(p->within_sla, 1);
    ck_assert_uint_eq(p->runs, 1);
    ck_assert_double_eq_tol(p->working_s, 3.0, 1e-9);
    ck_assert_double_eq_tol(p->blocked_s, 0.0, 1e-9);
    ck_assert_double_eq_tol(p->failed_s, 0.0, 1e-9);
    ck_assert_uint_eq(p->items_committed, 0);
    ck_assert_uint_eq(t->sum.duplicates, 0);
    for (unsigned i = 0; i < 3; i++) {
        ck_assert_uint_eq(p->step[i].calls, 1);
        ck_assert_uint_eq(p->step[i].attempts, 1);
        ck_assert_uint_eq(p->step[i].succeeded, 1);
    }
    /* The calls are the run's requests: three offered, three successes. */
    ck_assert_uint_eq(t->sum.offered, 3);
    ck_assert_uint_eq(t->sum.successes, 3);
    ck_assert_int_eq(sim_last_finish(t->sim), 3 * NS_S);
    ck_assert_int_eq(sim_client_modes(t->sim)[0], CLIENT_IDLE);
    tu_sim_free(t);
}
END_TEST

/* More than the 8 steps a pipeline once had: SIM_MAX_STEPS (16) good
 * steps of 1 s each run back to back -- the job completes at 16 s, each
 * step called once (a 9th step would have been refused, and a step
 * index past 8 would have read another step's stream bits). */
START_TEST(sixteen_good_steps_complete)
{
    spec sp;
    init_spec(&sp, SIM_MAX_STEPS);
    ck_assert_int_eq(SIM_MAX_STEPS, 16);
    tu_sim *t = run(NULL, "none", &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->jobs, 1);
    ck_assert_uint_eq(p->completed, 1);
    ck_assert_double_eq_tol(p->working_s, 16.0, 1e-9);
    for (unsigned i = 0; i < SIM_MAX_STEPS; i++) {
        ck_assert_uint_eq(p->step[i].calls, 1);
        ck_assert_uint_eq(p->step[i].succeeded, 1);
    }
    ck_assert_uint_eq(t->sum.offered, 16);
    ck_assert_int_eq(sim_last_finish(t->sim), 16 * NS_S);
    tu_sim_free(t);
}
END_TEST

/* fail_fast, step 2 refused for good (permanent = 1: 403 on every
 * attempt), `fixed` delay 2 s, 3 attempts:
 *   s1  0 -> 1 ok
 *   s2  1 -> 2 403, wait 2 s, 4 -> 5 403, wait 2 s, 7 -> 8 403: gave up
 *   s3  never runs (skipped)
 * Working 1 + 3 = 4 s, blocked 2 x 2 = 4 s; retries 1 and 2 are below
 * warn_retry = 3: two logged; the exhausted step: one critical alert. */
START_TEST(fail_fast_skips_later_steps)
{
    spec sp;
    init_spec(&sp, 3);
    sp.steps[1].permanent = 1.0;
    tu_sim *t = run("[policy]\nname = fixed\ndelay = 2s\nmax_attempts = 3\n",
                    NULL, &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->failed, 1);
    ck_assert_uint_eq(p->completed, 0);
    ck_assert_uint_eq(p->step[0].succeeded, 1);
    ck_assert_uint_eq(p->step[1].failed, 1);
    ck_assert_uint_eq(p->step[1].attempts, 3);
    ck_assert_uint_eq(p->step[2].calls, 0);
    ck_assert_uint_eq(p->step[2].skipped, 1);
    ck_assert_double_eq_tol(p->working_s, 4.0, 1e-9);
    ck_assert_double_eq_tol(p->blocked_s, 4.0, 1e-9);
    ck_assert_uint_eq(p->retries, 2);
    ck_assert_uint_eq(p->alerts_log, 2);
    ck_assert_uint_eq(p->alerts_warning, 0);
    ck_assert_uint_eq(p->alerts_critical, 1);
    ck_assert_int_eq(sim_last_finish(t->sim), 8 * NS_S);
    ck_assert_int_eq(sim_client_modes(t->sim)[0], CLIENT_GAVE_UP);
    /* What a front end shows while it runs (the rows closed so far: the
     * failure at 8 s is well before the last). */
    sim_live live;
    summary_live(t->sim, &live);
    ck_assert(live.pipeline);
    ck_assert_uint_eq(live.job_runs, 1);
    ck_assert_uint_eq(live.job_runs_failed, 1);
    ck_assert_uint_eq(live.jobs_completed, 0);
    ck_assert_uint_eq(live.alerts_critical, 1);
    tu_sim_free(t);
}
END_TEST

/* continue: s2 fails (policy none: one attempt), s3 is independent and
 * runs, s4 depends on the steps before it and is skipped; the job ends
 * partial.  s1 0->1, s2 1->2 (403), s3 2->3, end at 3 s. */
START_TEST(continue_runs_independent_steps_only)
{
    spec sp;
    init_spec(&sp, 4);
    sp.strategy = PIPELINE_CONTINUE;
    sp.steps[1].permanent = 1.0;
    sp.steps[2].independent = true;
    tu_sim *t = run(NULL, "none", &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->partial, 1);
    ck_assert_uint_eq(p->failed, 0);
    ck_assert_uint_eq(p->step[1].failed, 1);
    ck_assert_uint_eq(p->step[2].succeeded, 1);
    ck_assert_uint_eq(p->step[3].skipped, 1);
    ck_assert_uint_eq(p->step[3].calls, 0);
    ck_assert_int_eq(sim_last_finish(t->sim), 3 * NS_S);
    tu_sim_free(t);
}
END_TEST

/* compensate: s1 and s2 commit, s3 fails; s2 then s1 are undone (undo
 * calls of 1 s each): 0->1 s1, 1->2 s2, 2->3 s3 (403), 3->4 undo s2,
 * 4->5 undo s1; compensated at 5 s.  Rerun once, 10 s later (15 s): the
 * undos took the writes away, so s1 and s2 commit again without a
 * duplicate and nothing counts as redone; s3 fails again (the same job's
 * coin), compensated again at 20 s. */
START_TEST(compensate_undoes_newest_first_and_reruns_clean)
{
    spec sp;
    init_spec(&sp, 3);
    sp.strategy = PIPELINE_COMPENSATE;
    sp.reruns = 1;
    sp.rerun_delay_ns = 10 * NS_S;
    for (unsigned i = 0; i < 3; i++) {
        sp.steps[i].has_undo = true;
        sp.steps[i].undo_service = (dist){.kind = DIST_CONST, .mean_ns = NS_S};
    }
    sp.steps[2].permanent = 1.0;
    tu_sim *t = run(NULL, "none", &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->compensated, 1);
    ck_assert_uint_eq(p->inconsistent, 0);
    ck_assert_uint_eq(p->runs, 2);
    ck_assert_uint_eq(p->reruns, 1);
    ck_assert_uint_eq(p->step[0].undone, 2);
    ck_assert_uint_eq(p->step[1].undone, 2);
    ck_assert_uint_eq(p->step[2].undone, 0); /* it never completed */
    ck_assert_uint_eq(p->step[0].redone, 0);
    ck_assert_uint_eq(t->sum.duplicates, 0);
    /* failed: 5 -> 15 between the runs */
    ck_assert_double_eq_tol(p->failed_s, 10.0, 1e-9);
    ck_assert_int_eq(sim_last_finish(t->sim), 20 * NS_S);
    tu_sim_free(t);
}
END_TEST

/* An undo that fails leaves the job inconsistent, and the older undos
 * still run.  s3's service is 0.4 s: it fails at 2.4 s; the undo of s2
 * starts service at 2.4 s and an outage (refusing) from 2.5 s resets its
 * connection (policy none: failed, at 2.5 s).  The undo of s1 is then
 * refused at once (the outage lasts until 22.5 s).  Critical alerts: s3's
 * failure and the two failed undos. */
START_TEST(a_failed_undo_leaves_the_job_inconsistent)
{
    spec sp;
    init_spec(&sp, 3);
    sp.strategy = PIPELINE_COMPENSATE;
    for (unsigned i = 0; i < 3; i++) {
        sp.steps[i].has_undo = true;
        sp.steps[i].undo_service = (dist){.kind = DIST_CONST, .mean_ns = NS_S};
    }
    sp.steps[2].permanent = 1.0;
    sp.steps[2].has_service = true;
    sp.steps[2].service =
        (dist){.kind = DIST_CONST, .mean_ns = 400 * 1000000LL};
    tu_sim *t = run("[fault.down]\ntype = outage\nstart = 2.5s\n"
                    "duration = 20s\nmode = refuse\n",
                    "none", &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->inconsistent, 1);
    ck_assert_uint_eq(p->compensated, 0);
    ck_assert_uint_eq(p->step[1].undo_failed, 1);
    ck_assert_uint_eq(p->step[0].undo_failed, 1);
    ck_assert_uint_eq(p->alerts_critical, 3);
    ck_assert_int_eq(sim_last_finish(t->sim), 2500 * 1000000LL);
    tu_sim_free(t);
}
END_TEST

/* A job is inconsistent when a write an undo should have taken away is
 * still there at its end, whichever run failed to undo it.  As above (s3
 * fails at 2.4 s; the outage from 2.5 s to 22.5 s fails the undos of s2
 * and s1), now with checkpoints and one rerun 30 s later:
 *   run 1  s1 0->1, s2 1->2, s3 2->2.4 403; undo s2 2.4->2.5 reset,
 *          undo s1 refused at 2.5: failed at 2.5 s, s1 and s2 still done
 *   run 2  at 32.5 s resumes at s3 (s1, s2 done): 32.5->32.9 403; this
 *          run completed nothing, so nothing to undo; reruns spent
 * The job ends at 32.9 s with s1's and s2's writes in place:
 * inconsistent.  (It was counted compensated: only the last run's undos
 * were judged.) */
START_TEST(an_undo_failed_in_an_earlier_run_leaves_the_job_inconsistent)
{
    spec sp;
    init_spec(&sp, 3);
    sp.strategy = PIPELINE_COMPENSATE;
    sp.checkpoints = true;
    sp.reruns = 1;
    sp.rerun_delay_ns = 30 * NS_S;
    for (unsigned i = 0; i < 3; i++) {
        sp.steps[i].has_undo = true;
        sp.steps[i].undo_service = (dist){.kind = DIST_CONST, .mean_ns = NS_S};
    }
    sp.steps[2].permanent = 1.0;
    sp.steps[2].has_service = true;
    sp.steps[2].service =
        (dist){.kind = DIST_CONST, .mean_ns = 400 * 1000000LL};
    tu_sim *t = run("[fault.down]\ntype = outage\nstart = 2.5s\n"
                    "duration = 20s\nmode = refuse\n",
                    "none", &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->runs, 2);
    ck_assert_uint_eq(p->step[0].calls, 1);
    ck_assert_uint_eq(p->step[2].calls, 2);
    ck_assert_uint_eq(p->step[0].undo_failed, 1);
    ck_assert_uint_eq(p->step[1].undo_failed, 1);
    ck_assert_uint_eq(p->inconsistent, 1);
    ck_assert_uint_eq(p->compensated, 0);
    ck_assert_int_eq(sim_last_finish(t->sim), 32900 * 1000000LL);
    tu_sim_free(t);
}
END_TEST

/* ---- Reruns and checkpoints ------------------------------------------------
 *
 * Step 2 fails in the first run only: an outage (refusing) from 1.5 s to
 * 8 s resets its connection while it is served.  Policy none, one rerun
 * 10 s after the failure.  First run: s1 0->1, s2 1->1.5 reset: failed at
 * 1.5 s.  The rerun starts at 11.5 s, after the outage. */

static spec rerun_spec(bool checkpoints)
{
    spec sp;
    init_spec(&sp, 3);
    sp.reruns = 1;
    sp.rerun_delay_ns = 10 * NS_S;
    sp.checkpoints = checkpoints;
    return sp;
}

#define OUTAGE_FROM_1_5                                                        \
    "[fault.down]\ntype = outage\nstart = 1.5s\nduration = 6.5s\n"             \
    "mode = refuse\n"

/* Without a checkpoint the rerun starts over: s1 is redone (11.5->12.5)
 * and, not idempotent, commits its write a second time; s2 ->13.5, s3
 * ->14.5.  Completed at 14.5 s, 10 s failed. */
START_TEST(a_rerun_without_checkpoint_redoes_and_duplicates)
{
    spec sp = rerun_spec(false);
    tu_sim *t = run(OUTAGE_FROM_1_5, "none", &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->completed, 1);
    ck_assert_uint_eq(p->reruns, 1);
    ck_assert_uint_eq(p->step[0].calls, 2);
    ck_assert_uint_eq(p->step[0].redone, 1);
    ck_assert_uint_eq(t->sum.duplicates, 1);
    ck_assert_double_eq_tol(p->failed_s, 10.0, 1e-9);
    ck_assert_int_eq(sim_last_finish(t->sim), 14500 * 1000000LL);
    tu_sim_free(t);
}
END_TEST

/* With checkpoints the rerun resumes at s2: 11.5->12.5, s3 ->13.5; s1
 * runs once; nothing redone or duplicated; completed at 13.5 s. */
START_TEST(a_rerun_resumes_from_its_checkpoint)
{
    spec sp = rerun_spec(true);
    tu_sim *t = run(OUTAGE_FROM_1_5, "none", &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->completed, 1);
    ck_assert_uint_eq(p->step[0].calls, 1);
    ck_assert_uint_eq(p->step[0].redone, 0);
    ck_assert_uint_eq(t->sum.duplicates, 0);
    ck_assert_int_eq(sim_last_finish(t->sim), 13500 * 1000000LL);
    tu_sim_free(t);
}
END_TEST

/* An idempotent step redone commits nothing twice. */
START_TEST(an_idempotent_step_redone_duplicates_nothing)
{
    spec sp = rerun_spec(false);
    sp.steps[0].idempotent = true;
    tu_sim *t = run(OUTAGE_FROM_1_5, "none", &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->step[0].redone, 1);
    ck_assert_uint_eq(t->sum.duplicates, 0);
    tu_sim_free(t);
}
END_TEST

/* A crash of the runners from 1.5 s to 6.5 s: s2 (sent at 1 s) is
 * abandoned at 1.5 s and the run fails; its rerun, due 2 s later (3.5 s),
 * waits for the runners to come back (6.5 s) and resumes at s2 from the
 * checkpoint: 6.5->7.5, s3 ->8.5.  Failed 1.5 -> 6.5: 5 s.  The server
 * still serves the abandoned attempt until 2 s: 1 s of wasted work. */
START_TEST(a_crash_fails_runs_in_progress_and_holds_reruns)
{
    spec sp;
    init_spec(&sp, 3);
    sp.reruns = 1;
    sp.rerun_delay_ns = 2 * NS_S;
    sp.checkpoints = true;
    tu_sim *t = run(PIPE3 "[fault.oom]\ntype = crash\nstart = 1.5s\n"
                          "duration = 5s\n",
                    "none", &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->completed, 1);
    ck_assert_uint_eq(p->runs, 2);
    ck_assert_uint_eq(p->step[1].calls, 2);
    ck_assert_uint_eq(p->step[1].failed, 1);
    ck_assert_uint_eq(p->step[0].calls, 1);
    ck_assert_double_eq_tol(p->failed_s, 5.0, 1e-9);
    ck_assert_double_eq_tol(t->sum.wasted_work_s, 1.0, 1e-9);
    ck_assert_int_eq(sim_last_finish(t->sim), 8500 * 1000000LL);
    tu_sim_free(t);
}
END_TEST

/* A crash undoes nothing: under compensate, a job whose run dies after
 * s1 (which has an undo) committed ends inconsistent, with no undo
 * call.  The crash at 1.5 s finds s2 out, s1 done. */
START_TEST(a_crash_undoes_nothing)
{
    spec sp;
    init_spec(&sp, 3);
    sp.strategy = PIPELINE_COMPENSATE;
    sp.steps[0].has_undo = true;
    sp.steps[0].undo_service = (dist){.kind = DIST_CONST, .mean_ns = NS_S};
    tu_sim *t = run_with("60s",
                         "count = 1\narrival = once\n"
                         "start_window = 0s\n",
                         PIPE3 "[fault.oom]\ntype = crash\n"
                               "start = 1.5s\nduration = 5s\n",
                         "none", &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->inconsistent, 1);
    ck_assert_uint_eq(p->step[0].undone, 0);
    ck_assert_uint_eq(p->step[0].undo_failed, 0);
    tu_sim_free(t);
}
END_TEST

/* Jobs that arrive while the runners are down wait for them: 50 runners
 * start their jobs uniformly in [0, 10 s), the runners are down over
 * [2, 7) s, so no step call starts in that span and about half the jobs
 * start at 7 s exactly.  Every job completes (3 steps, 3 s each). */
START_TEST(jobs_wait_for_the_runners)
{
    spec sp;
    init_spec(&sp, 3);
    tu_sim *t = run_with("60s",
                         "count = 50\narrival = once\n"
                         "start_window = 10s\n",
                         PIPE3 "[fault.oom]\ntype = crash\nstart = 2s\n"
                               "duration = 5s\n",
                         "none", &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->jobs, 50);
    /* the runs the crash killed are failed and not rerun (reruns 0) */
    ck_assert_uint_eq(p->completed + p->failed, 50);
    const metrics *m = sim_metrics(t->sim);
    for (int b = 2; b < 7; b++)
        ck_assert_uint_eq(m->buckets[b].offered, 0);
    ck_assert_uint_gt(m->buckets[7].offered, 10);
    tu_sim_free(t);
}
END_TEST

/* A job that ended is not the record's next job: the server still serves
 * the abandoned attempt of a crashed job, and its write is that job's.
 * One closed-loop runner (think 0.2 s), one batch step of 10 good items,
 * the runners down over [0.5, 2) s, no rerun:
 *   job 1  arrives 0.2; s1 sent 0.2 (served 0.2 -> 1.2); the crash at 0.5
 *          fails its run: job 1 ends failed, its record is released
 *   job 2  arrives 0.7 while the runners are down: deferred (a new job)
 *   1.2    job 1's abandoned attempt is served: job 1's 10 items commit
 *   2.0    job 2 runs: s1 2.0 -> 3.0 commits its own 10 items; completed
 *   job 3  arrives 3.2, still out at 3.5: unfinished
 * Each job writes its batch once: 20 items committed, none duplicated.
 * (The stale link from job 1's call once led to job 2's record: job 1's
 * write was taken for job 2's, and job 2's own as a duplicate.) */
START_TEST(a_crashed_jobs_late_write_is_not_the_next_jobs)
{
    spec sp;
    init_spec(&sp, 1);
    sp.steps[0].items = 10;
    tu_sim *t = run_with("3.5s",
                         "count = 1\narrival = closed\n"
                         "think = const(0.2s)\n",
                         "[pipeline]\nsteps = s1\n[step.s1]\n"
                         "[fault.oom]\ntype = crash\nstart = 0.5s\n"
                         "duration = 1.5s\n",
                         "none", &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->jobs, 3);
    ck_assert_uint_eq(p->failed, 1);
    ck_assert_uint_eq(p->completed, 1);
    ck_assert_uint_eq(p->unfinished, 1);
    ck_assert_uint_eq(p->items_committed, 20);
    ck_assert_uint_eq(p->items_duplicated, 0);
    ck_assert_uint_eq(t->sum.duplicates, 0);
    ck_assert_double_eq_tol(t->sum.wasted_work_s, 1.0, 1e-9);
    tu_sim_free(t);
}
END_TEST

/* A crash during a retry delay: the job waited out only the part of the
 * delay before the crash.  One job, one step answered 403 every time,
 * `fixed` 10 s, 3 attempts; the runners crash at 3 s:
 *   s1  0 -> 1 403; retry due at 11 s; blocked 1 -> 3; abandoned at 3 s
 * Working 1 s, blocked 2 s (not the whole 10 s delay, which made working
 * 1 + 2 - 10 = -7 s); one attempt; the run fails (no rerun). */
START_TEST(a_crash_in_a_retry_delay_blocks_only_until_the_crash)
{
    spec sp;
    init_spec(&sp, 1);
    sp.steps[0].permanent = 1.0;
    tu_sim *t = run("[policy]\nname = fixed\ndelay = 10s\nmax_attempts = 3\n"
                    "[pipeline]\nsteps = s1\n[step.s1]\n"
                    "[fault.oom]\ntype = crash\nstart = 3s\nduration = 1s\n",
                    NULL, &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->failed, 1);
    ck_assert_uint_eq(p->step[0].attempts, 1);
    ck_assert_uint_eq(p->step[0].failed, 1);
    ck_assert_double_eq_tol(p->working_s, 1.0, 1e-9);
    ck_assert_double_eq_tol(p->blocked_s, 2.0, 1e-9);
    ck_assert_int_eq(sim_last_finish(t->sim), 3 * NS_S);
    tu_sim_free(t);
}
END_TEST

/* A call still out when the run ends has sent its attempts and worked:
 * one job, one step of 10 s service, a 4 s run.  s1 is sent at 0 and
 * still served at 4 s: one call, one attempt (it was once counted only
 * when the call ended: 0), neither succeeded nor failed; 4 s working (was
 * 0: only ended calls counted); the job is unfinished. */
START_TEST(a_call_out_at_the_end_has_sent_its_attempt)
{
    spec sp;
    init_spec(&sp, 1);
    sp.steps[0].has_service = true;
    sp.steps[0].service = (dist){.kind = DIST_CONST, .mean_ns = 10 * NS_S};
    tu_sim *t = run_with("4s", ONE_JOB, NULL, "none", &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->unfinished, 1);
    ck_assert_uint_eq(p->step[0].calls, 1);
    ck_assert_uint_eq(p->step[0].attempts, 1);
    ck_assert_uint_eq(p->step[0].succeeded + p->step[0].failed, 0);
    ck_assert_uint_eq(t->sum.attempts, 1);
    ck_assert_double_eq_tol(p->working_s, 4.0, 1e-9);
    ck_assert_double_eq_tol(p->blocked_s, 0.0, 1e-9);
    tu_sim_free(t);
}
END_TEST

/* ... and a call waiting out a retry delay at the end was blocked until
 * the end only: one step answered 403 every time, `fixed` 10 s, 3
 * attempts, a 4 s run.  s1 0 -> 1 403, retry due at 11 s: working 1 s,
 * blocked 1 -> 4 = 3 s. */
START_TEST(a_call_in_a_retry_delay_at_the_end_is_blocked_until_the_end)
{
    spec sp;
    init_spec(&sp, 1);
    sp.steps[0].permanent = 1.0;
    tu_sim *t = run_with("4s", ONE_JOB,
                         "[policy]\nname = fixed\ndelay = 10s\n"
                         "max_attempts = 3\n",
                         NULL, &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->unfinished, 1);
    ck_assert_double_eq_tol(p->working_s, 1.0, 1e-9);
    ck_assert_double_eq_tol(p->blocked_s, 3.0, 1e-9);
    tu_sim_free(t);
}
END_TEST

/* ---- Batches ---------------------------------------------------------------
 *
 * 200 jobs (200 runners, one each), one batch step of 100 items with 10 %
 * defective.  The number of bad items is Binomial(20 000, 0.1): mean
 * 2 000, sd sqrt(20 000 x 0.1 x 0.9) = 42.4; the tests allow 5 sd. */

#define BATCH_CLIENTS "count = 200\narrival = once\nstart_window = 0s\n"

static spec batch_spec(pipeline_strategy strategy)
{
    spec sp;
    init_spec(&sp, 1);
    sp.strategy = strategy;
    sp.steps[0].items = 100;
    sp.steps[0].item_defect = 0.1;
    return sp;
}

/* partial: every batch succeeds at its first attempt; good items commit
 * once, bad ones go to the dead-letter queue; good + bad = 20 000. */
START_TEST(partial_success_commits_good_items_and_quarantines_bad)
{
    spec sp = batch_spec(PIPELINE_PARTIAL);
    tu_sim *t = run_with("60s", BATCH_CLIENTS, NULL, "immediate", &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->jobs, 200);
    ck_assert_uint_eq(p->completed, 200);
    ck_assert_uint_eq(p->items_committed + p->items_quarantined, 20000);
    ck_assert_uint_eq(p->dead_letters, p->items_quarantined);
    ck_assert(fabs((double)p->items_quarantined - 2000.0) < 5 * 42.4);
    ck_assert_uint_eq(p->items_duplicated, 0);
    ck_assert_uint_eq(p->step[0].attempts, 200);
    tu_sim_free(t);
}
END_TEST

/* Whole-batch retries (fail_fast, `immediate`, 3 attempts): a batch with
 * a bad item fails every attempt, and every served attempt commits the
 * good items again -- two duplicates of each.  A batch with no bad item
 * has probability 0.9^100 = 2.7e-5: none in 200, so every job fails and
 * duplicated = 2 x committed exactly.  The same items as under partial
 * (the coins are the job's), so committed is 20 000 minus the same bad
 * count. */
START_TEST(whole_batch_retries_commit_good_items_again)
{
    spec sp = batch_spec(PIPELINE_FAIL_FAST);
    tu_sim *t =
        run_with("60s", BATCH_CLIENTS,
                 "[policy]\nname = immediate\nmax_attempts = 3\n", NULL, &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->failed, 200);
    ck_assert_uint_eq(p->step[0].attempts, 600);
    ck_assert_uint_eq(p->items_duplicated, 2 * p->items_committed);
    ck_assert(fabs((double)(20000 - p->items_committed) - 2000.0) < 5 * 42.4);
    ck_assert_uint_eq(p->items_quarantined, 0);
    ck_assert_uint_eq(p->alerts_critical, 200);

    spec sq = batch_spec(PIPELINE_PARTIAL);
    tu_sim *u = run_with("60s", BATCH_CLIENTS, NULL, "none", &sq);
    ck_assert_uint_eq(20000 - p->items_committed,
                      pipe_of(u)->items_quarantined);
    tu_sim_free(u);
    tu_sim_free(t);
}
END_TEST

/* `plan` quarantines a data defect at the first attempt: one attempt per
 * batch, the good items committed once, each batch's input to the
 * dead-letter queue (one entry per call), no critical alert for them. */
START_TEST(plan_quarantines_a_bad_batch_at_once)
{
    spec sp = batch_spec(PIPELINE_FAIL_FAST);
    tu_sim *t = run_with("60s", BATCH_CLIENTS, NULL, "plan", &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->step[0].attempts, 200);
    ck_assert_uint_eq(p->items_duplicated, 0);
    ck_assert_uint_eq(p->dead_letters, 200);
    ck_assert_uint_eq(t->sum.quarantined, 200);
    /* the dead-letter queue: a warning when it first holds anything, and
     * (everything lands at 1 s) no growth over 3 buckets in a row */
    ck_assert_uint_eq(p->alerts_warning, 1);
    ck_assert_uint_eq(p->alerts_critical, 0);
    tu_sim_free(t);
}
END_TEST

/* ---- Alerts and time ------------------------------------------------------- */

/* fixed 1 s, 5 attempts, a step that always fails: retries 1 and 2
 * logged, 3 and 4 warnings (warn_retry 3), the exhausted step critical. */
START_TEST(retry_alerts_escalate)
{
    spec sp;
    init_spec(&sp, 1);
    sp.steps[0].permanent = 1.0;
    tu_sim *t = run("[policy]\nname = fixed\ndelay = 1s\nmax_attempts = 5\n",
                    NULL, &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->alerts_log, 2);
    ck_assert_uint_eq(p->alerts_warning, 2);
    ck_assert_uint_eq(p->alerts_critical, 1);
    /* and the series has them, in the buckets they happened in: retries
     * are sent at 2, 4, 6 and 8 s (1 s service, 1 s delay); the give-up
     * at 9 s */
    const metrics *m = sim_metrics(t->sim);
    ck_assert_uint_eq(m->buckets[2].alerts_log, 1);
    ck_assert_uint_eq(m->buckets[4].alerts_log, 1);
    ck_assert_uint_eq(m->buckets[6].alerts_warning, 1);
    ck_assert_uint_eq(m->buckets[8].alerts_warning, 1);
    ck_assert_uint_eq(m->buckets[9].alerts_critical, 1);
    tu_sim_free(t);
}
END_TEST

/* A closed-loop runner (think 0.5 s) whose every job is quarantined at
 * its only step (defect = 1, plan; service 0.5 s): one job into the
 * dead-letter queue each second, at 1, 2, 3 ... s.  It holds something
 * from 1 s: one warning; it grows in bucket [1, 2), [2, 3), [3, 4): the
 * third in a row raises one critical alert, and the streak goes on
 * without another. */
START_TEST(a_growing_dead_letter_queue_is_critical_once_per_streak)
{
    spec sp;
    init_spec(&sp, 1);
    sp.growth = 3;
    sp.steps[0].defect = 1.0;
    sp.steps[0].has_service = true;
    sp.steps[0].service = (dist){.kind = DIST_CONST, .mean_ns = NS_S / 2};
    tu_sim *t = run_with("10s",
                         "count = 1\narrival = closed\n"
                         "think = const(0.5s)\n",
                         NULL, "plan", &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_ge(p->dead_letters, 9);
    ck_assert_uint_eq(p->alerts_warning, 1);
    ck_assert_uint_eq(p->alerts_critical, 1);
    const metrics *m = sim_metrics(t->sim);
    ck_assert_uint_eq(m->buckets[3].alerts_critical, 1);
    tu_sim_free(t);
}
END_TEST

/* SLA 5 s; a step that always fails, fixed 2 s, 4 attempts: attempts end
 * at 1, 4, 7, 10 s; the retries ending at 7 and 10 s end after the
 * deadline: two late.  Not completed, so not within the SLA; failed at
 * 10 s, after its deadline: no failed time. */
START_TEST(retries_after_the_deadline_are_late)
{
    spec sp;
    init_spec(&sp, 1);
    sp.sla_ns = 5 * NS_S;
    sp.steps[0].permanent = 1.0;
    tu_sim *t = run("[policy]\nname = fixed\ndelay = 2s\nmax_attempts = 4\n",
                    NULL, &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_uint_eq(p->retries, 3);
    ck_assert_uint_eq(p->late_retries, 2);
    ck_assert_uint_eq(p->within_sla, 0);
    ck_assert_double_eq_tol(p->failed_s, 0.0, 1e-9);
    ck_assert_double_eq_tol(p->blocked_s, 6.0, 1e-9);
    tu_sim_free(t);
}
END_TEST

/* A job that fails fast at 1 s with a 30 s SLA is failed until its
 * deadline: 29 s. */
START_TEST(a_failed_job_is_failed_until_its_deadline)
{
    spec sp;
    init_spec(&sp, 1);
    sp.sla_ns = 30 * NS_S;
    sp.steps[0].permanent = 1.0;
    tu_sim *t = run(NULL, "none", &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert_double_eq_tol(p->failed_s, 29.0, 1e-9);
    tu_sim_free(t);
}
END_TEST

/* Transient errors: each attempt fails with probability q, independently
 * (a connection reset), and `immediate` with k attempts: a call fails
 * only when all k fail, q^k.  With q = 0.5, k = 3 over 2 000 jobs of one
 * step: failures ~ Binomial(2000, 0.125), mean 250, sd 14.8; attempts
 * per call 1 + q + q^2 = 1.75 (mean), 3 500 in all, sd < 40. */
START_TEST(transient_errors_follow_the_retry_arithmetic)
{
    spec sp;
    init_spec(&sp, 1);
    sp.steps[0].transient = 0.5;
    tu_sim *t =
        run_with("60s", "count = 2000\narrival = once\nstart_window = 0s\n",
                 "[policy]\nname = immediate\nmax_attempts = 3\n", NULL, &sp);
    const sim_pipeline_summary *p = pipe_of(t);
    ck_assert(fabs((double)p->failed - 250.0) < 5 * 14.8);
    ck_assert(fabs((double)p->step[0].attempts - 3500.0) < 5 * 40.0);
    ck_assert_uint_eq(p->failed + p->completed, 2000);
    tu_sim_free(t);
}
END_TEST

/* Same scenario, seed and policy: the same numbers; another policy sees
 * the same job coins (the batch's bad items). */
START_TEST(pipelines_are_deterministic)
{
    spec sp = batch_spec(PIPELINE_PARTIAL);
    tu_sim *a = run_with("60s", BATCH_CLIENTS, NULL, "immediate", &sp);
    tu_sim *b = run_with("60s", BATCH_CLIENTS, NULL, "immediate", &sp);
    ck_assert_mem_eq(&a->sum.pipeline.items_committed,
                     &b->sum.pipeline.items_committed, sizeof(uint64_t));
    const metrics *ma = sim_metrics(a->sim), *mb = sim_metrics(b->sim);
    ck_assert_uint_eq(ma->n_buckets, mb->n_buckets);
    ck_assert_mem_eq(ma->buckets, mb->buckets,
                     ma->n_buckets * sizeof *ma->buckets);
    tu_sim_free(a);
    tu_sim_free(b);
}
END_TEST

Suite *pipeline_suite(void)
{
    Suite *s = suite_create("pipeline");
    TCase *tc = tcase_create("jobs");
    tcase_add_test(tc, three_good_steps_complete);
    tcase_add_test(tc, sixteen_good_steps_complete);
    tcase_add_test(tc, fail_fast_skips_later_steps);
    tcase_add_test(tc, continue_runs_independent_steps_only);
    tcase_add_test(tc, compensate_undoes_newest_first_and_reruns_clean);
    tcase_add_test(tc, a_failed_undo_leaves_the_job_inconsistent);
    tcase_add_test(
        tc, an_undo_failed_in_an_earlier_run_leaves_the_job_inconsistent);
    tcase_add_test(tc, a_rerun_without_checkpoint_redoes_and_duplicates);
    tcase_add_test(tc, a_rerun_resumes_from_its_checkpoint);
    tcase_add_test(tc, an_idempotent_step_redone_duplicates_nothing);
    tcase_add_test(tc, a_crash_fails_runs_in_progress_and_holds_reruns);
    tcase_add_test(tc, a_crash_undoes_nothing);
    tcase_add_test(tc, jobs_wait_for_the_runners);
    tcase_add_test(tc, a_crashed_jobs_late_write_is_not_the_next_jobs);
    tcase_add_test(tc, a_crash_in_a_retry_delay_blocks_only_until_the_crash);
    tcase_add_test(tc, a_call_out_at_the_end_has_sent_its_attempt);
    tcase_add_test(tc,
                   a_call_in_a_retry_delay_at_the_end_is_blocked_until_the_end);
    tcase_add_test(tc, partial_success_commits_good_items_and_quarantines_bad);
    tcase_add_test(tc, whole_batch_retries_commit_good_items_again);
    tcase_add_test(tc, plan_quarantines_a_bad_batch_at_once);
    tcase_add_test(tc, retry_alerts_escalate);
    tcase_add_test(tc, a_growing_dead_letter_queue_is_critical_once_per_streak);
    tcase_add_test(tc, retries_after_the_deadline_are_late);
    tcase_add_test(tc, a_failed_job_is_failed_until_its_deadline);
    tcase_add_test(tc, transient_errors_follow_the_retry_arithmetic);
    tcase_add_test(tc, pipelines_are_deterministic);
    suite_add_tcase(s, tc);
    return s;
}
