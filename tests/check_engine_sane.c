/*
 * check_engine_sane.c -- the engine's owners keep their invariants
 * (engine.h, and each owner's header above its struct): sim_sane holds
 * at every closed bucket of every shipped scenario and coverage input,
 * under policies that reach the hedges, the breaker and the budgets; and
 * each owner's checker notices when its state is broken the way a
 * forgotten update would break it.
 *
 * A release build asserts nothing, so this is where the checkers run in
 * every build; a debug build also asserts sim_sane at every bucket.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "testutil.h"

/* Observer: count the buckets at which sim_sane failed, and which first. */
typedef struct watch {
    int buckets, bad;
    int64_t first_bad;
} watch;

static void check_bucket(void *ctx, const sim *s, const metrics_bucket *b,
                         const metrics_hist *h)
{
    (void)h;
    watch *w = ctx;
    w->buckets++;
    if (!sim_sane(s) && w->bad++ == 0)
        w->first_bad = b->start_ns;
}

/* Run the scenario file at path under policy (NULL: its own), watched,
 * for at most 200 s of simulated time. */
static void run_watched(const char *path, const char *policy)
{
    char *ini = tu_read_file(path);
    ck_assert_msg(ini != NULL, "cannot read %s", path);
    tu_sim *t = tu_sim_prepare(ini, policy, NULL, 0);
    free(ini);
    watch w = {0, 0, 0};
    sim_observer o = {&w, check_bucket, NULL, false};
    ck_assert_int_eq(sim_observe(t->sim, &o), 0);
    ck_assert_msg(sim_sane(t->sim), "%s: not sane when created", path);
    int64_t end = t->sc.cfg.duration_ns;
    if (end > 200 * NS_PER_S)
        end = 200 * NS_PER_S;
    ck_assert_msg(sim_run_until(t->sim, end) == 0, "%s: %s", path,
                  sim_error(t->sim));
    sim_finish(t->sim);
    ck_assert_msg(w.buckets > 0, "%s: no bucket closed", path);
    ck_assert_msg(w.bad == 0,
                  "%s (%s): not sane at %d of %d buckets, "
                  "first at t = %.3f s",
                  path, policy ? policy : "its own", w.bad, w.buckets,
                  (double)w.first_bad / 1e9);
    tu_sim_free(t);
}

/* Every .ini in dir (under the source tree). */
static void run_dir(const char *dir, const char *policy)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SB_SOURCE_DIR, dir);
    DIR *d = opendir(path);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".ini") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s/%s", SB_SOURCE_DIR, dir, e->d_name);
        run_watched(path, policy);
        n++;
    }
    closedir(d);
    ck_assert_int_gt(n, 2);
}

START_TEST(shipped_scenarios_stay_sane)
{
    run_dir("scenarios", NULL);
}
END_TEST

START_TEST(coverage_inputs_stay_sane)
{
    run_dir("bench/coverage", NULL);
}
END_TEST

/* Hedges (two attempts of one request out at once), a breaker and a
 * budget (refusals, on_decision) under the coverage inputs, which have
 * pools, partitions, error faults and closed loops. */
static const char *const policies[] = {"hedge+exponential",
                                       "circuit_breaker+exponential",
                                       "retry_budget+exponential", "aws_quota"};

START_TEST(coverage_inputs_stay_sane_under_policies)
{
    run_dir("bench/coverage", policies[_i]);
}
END_TEST

/* ---- The checkers notice a broken invariant ------------------------------ */

static const char storm[] =
    "[scenario]\nname = s\nduration = 20s\nwarmup = 2s\n"
    "[clients]\ncount = 200\nrate = 5/s\ntimeout = 200ms\n"
    "[server]\nworkers = 20\nservice = exp(50ms)\n"
    "[policy]\nname = exponential\n"
    "[fault.down]\ntype = outage\nstart = 5s\nduration = 3s\n"
    "[fault.err]\ntype = errors\nstart = 4s\nduration = 10s\n"
    "probability = 0.2\nstatus = 503\n";

/* A sim stopped mid-run, with requests and attempts in flight and the
 * errors fault running. */
static tu_sim *midway(void)
{
    tu_sim *t = tu_sim_prepare(storm, NULL, NULL, 0);
    ck_assert_int_eq(sim_run_until(t->sim, 4500 * NS_PER_MS), 0);
    ck_assert(sim_sane(t->sim));
    ck_assert_uint_gt(pool_live(&t->sim->rqs.attempts), 0);
    return t;
}

/* The first live request record, which the test may break and mend. */
static request *a_live_request(sim *s)
{
    for (uint32_t i = 0; i < s->rqs.requests.next_new; i++) {
        request *r = req_at(s, i);
        if (r->refs > 0)
            return r;
    }
    ck_abort_msg("no live request");
    return NULL;
}

/* A reference too many (a release forgotten) or too few. */
START_TEST(requests_notice_a_wrong_reference_count)
{
    tu_sim *t = midway();
    request *r = a_live_request(t->sim);
    r->refs++;
    ck_assert(!requests_sane(t->sim));
    ck_assert(!sim_sane(t->sim));
    r->refs -= 2;
    ck_assert(!requests_sane(t->sim));
    r->refs++;
    ck_assert(requests_sane(t->sim));
    tu_sim_free(t);
}
END_TEST

/* An unfinished request whose count of awaited attempts is off. */
START_TEST(requests_notice_a_wrong_outstanding_count)
{
    tu_sim *t = midway();
    sim *s = t->sim;
    request *r = NULL;
    for (uint32_t i = 0; i < s->rqs.requests.next_new && !r; i++) {
        request *q = req_at(s, i);
        if (q->refs > 0 && !(q->flags & RQ_FINISHED))
            r = q;
    }
    ck_assert_ptr_nonnull(r);
    r->outstanding++;
    ck_assert(!requests_sane(s));
    r->outstanding--;
    ck_assert(requests_sane(s));
    tu_sim_free(t);
}
END_TEST

/* The running errors list left stale (a fault ended without
 * faults_apply), and a fault's key not its name's. */
START_TEST(faults_notice_a_stale_running_list)
{
    tu_sim *t = midway();
    faults *fl = &t->sim->fl;
    ck_assert_uint_eq(fl->n_errors, 1);
    fl->n_errors = 0;
    ck_assert(!faults_sane(t->sim));
    fl->n_errors = 1;
    ck_assert(faults_sane(t->sim));
    fl->key[0] ^= 1;
    ck_assert(!faults_sane(t->sim));
    fl->key[0] ^= 1;
    ck_assert(faults_sane(t->sim));
    tu_sim_free(t);
}
END_TEST

/* The open loop's mean gap not recomputed after the spike changed, and a
 * mode that is no mode. */
START_TEST(clients_notice_a_stale_gap)
{
    tu_sim *t = midway();
    clients *cl = &t->sim->cl;
    cl->spike *= 2;
    ck_assert(!clients_sane(t->sim));
    cl->spike /= 2;
    ck_assert(clients_sane(t->sim));
    uint8_t m = cl->mode[3];
    cl->mode[3] = CLIENT_MODE_COUNT;
    ck_assert(!clients_sane(t->sim));
    cl->mode[3] = m;
    ck_assert(clients_sane(t->sim));
    tu_sim_free(t);
}
END_TEST

/* A requester whose cached hook flags are not its stack's. */
START_TEST(requesters_notice_stale_hook_flags)
{
    tu_sim *t = midway();
    requester *rq = &t->sim->rqs.rq[0];
    rq->asks_before_send = !rq->asks_before_send;
    ck_assert(!requests_sane(t->sim));
    rq->asks_before_send = !rq->asks_before_send;
    ck_assert(requests_sane(t->sim));
    tu_sim_free(t);
}
END_TEST

/* The core: the stop word must say what its two flags say. */
START_TEST(core_notices_a_stop_word_out_of_step)
{
    tu_sim *t = midway();
    sim *s = t->sim;
    ck_assert(!s->has_next && !s->failed);
    s->has_next = true; /* `next` is not an event at now */
    s->next.time = s->now - 1;
    ck_assert(!sim_sane(s));
    s->has_next = false;
    ck_assert(sim_sane(s));
    tu_sim_free(t);
}
END_TEST

/* The metrics' exact flag left set while a gauge has passed exact_lim
 * (its integral could pass 2^53), a live bucket out of its row, and a
 * histogram bin outside its span (the quantiles read only lo..hi). */
START_TEST(metrics_notice_a_stale_exact_flag)
{
    tu_sim *t = midway();
    metrics *m = &t->sim->m;
    bool exact = m->exact;
    uint32_t busy = m->busy;
    m->exact = true;
    m->busy =
        (uint32_t)(m->exact_lim < UINT32_MAX ? m->exact_lim + 1 : UINT32_MAX);
    ck_assert(!metrics_sane(m));
    ck_assert(!sim_sane(t->sim));
    m->exact = exact;
    m->busy = busy;
    ck_assert(metrics_sane(m));
    m->cur_end += 1;
    ck_assert(!metrics_sane(m));
    m->cur_end -= 1;
    uint16_t lo = m->live_hist.att_lo, hi = m->live_hist.att_hi;
    ck_assert_uint_le(lo, hi); /* attempts have ended by 4.5 s */
    m->live_hist.att_hi = (uint16_t)(lo - (lo > 0));
    m->live_hist.att_lo = lo > 0 ? lo : (uint16_t)(hi + 1);
    ck_assert(!metrics_sane(m));
    m->live_hist.att_lo = lo;
    m->live_hist.att_hi = hi;
    ck_assert(metrics_sane(m));
    /* A span wider than its counts: an end bin without one. */
    if (hi + 1 < BUCKET_HIST_BINS && m->live_hist.attempt[hi + 1] == 0) {
        m->live_hist.att_hi = (uint16_t)(hi + 1);
        ck_assert(!metrics_sane(m));
        m->live_hist.att_hi = hi;
    }
    ck_assert(metrics_sane(m));
    tu_sim_free(t);
}
END_TEST

/* A phase sum whose latency total is not its bins' (a bin added without
 * counting it), and plan ranges that overlap. */
START_TEST(phases_notice_a_wrong_latency_total)
{
    tu_sim *t = midway();
    phases *p = &t->sim->ph;
    ck_assert(phases_sane(p));
    p->sum[PHASE_BEFORE].n_latency++;
    ck_assert(!phases_sane(p));
    ck_assert(!sim_sane(t->sim));
    p->sum[PHASE_BEFORE].n_latency--;
    ck_assert(phases_sane(p));
    ck_assert_uint_lt(p->plan.from[PHASE_DURING], p->plan.to[PHASE_DURING]);
    uint64_t to = p->plan.to[PHASE_BEFORE];
    p->plan.to[PHASE_BEFORE] = p->plan.from[PHASE_DURING] + 1;
    ck_assert(!phases_sane(p));
    p->plan.to[PHASE_BEFORE] = to;
    ck_assert(phases_sane(p));
    tu_sim_free(t);
}
END_TEST

Suite *engine_sane_suite(void)
{
    Suite *s = suite_create("engine_sane");
    TCase *tc = tcase_create("runs");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, shipped_scenarios_stay_sane);
    tcase_add_test(tc, coverage_inputs_stay_sane);
    tcase_add_loop_test(tc, coverage_inputs_stay_sane_under_policies, 0,
                        (int)(sizeof policies / sizeof *policies));
    suite_add_tcase(s, tc);
    TCase *tb = tcase_create("broken");
    tcase_add_test(tb, requests_notice_a_wrong_reference_count);
    tcase_add_test(tb, requests_notice_a_wrong_outstanding_count);
    tcase_add_test(tb, faults_notice_a_stale_running_list);
    tcase_add_test(tb, clients_notice_a_stale_gap);
    tcase_add_test(tb, requesters_notice_stale_hook_flags);
    tcase_add_test(tb, core_notices_a_stop_word_out_of_step);
    tcase_add_test(tb, metrics_notice_a_stale_exact_flag);
    tcase_add_test(tb, phases_notice_a_wrong_latency_total);
    suite_add_tcase(s, tb);
    return s;
}
