/*
 * check_summary_live.c -- a run's figures while it runs (summary_live),
 * the ones the GUI's header shows, agree with the finished run's summary
 * wherever the buckets closed so far decide them.
 */
#include <check.h>
#include <stdlib.h>

#include "testutil.h"

/* retry-storm under exponential+token_bucket recovers 72 s after its
 * outage ended (README); at 200 s the buckets that decide it have long
 * closed, so the live figure is the summary's.  Under `immediate` it never
 * recovers: live, 130 s after the fault, goodput is a few % of baseline. */
START_TEST(live_recovery_is_the_summarys)
{
    char *ini = tu_read_file(TU_SOURCE("scenarios/retry-storm.ini"));
    ck_assert_ptr_nonnull(ini);
    tu_sim *full = tu_sim_run(ini, "exponential+token_bucket", NULL, 0);
    ck_assert(full->sum.recovered);
    tu_sim *t = tu_sim_prepare(ini, "exponential+token_bucket", NULL, 0);
    ck_assert_int_eq(sim_run_until(t->sim, 200 * NS_PER_S), 0);
    sim_live l;
    summary_live(t->sim, &l);
    ck_assert(l.has_baseline);
    ck_assert_double_eq(l.baseline_goodput_per_s,
                        full->sum.baseline_goodput_per_s);
    ck_assert(l.after_fault && !l.fault_running);
    ck_assert_double_eq_tol(l.since_fault_s, 130.0, 1e-9);
    ck_assert(l.recovered);
    ck_assert_double_eq(l.recovery_time_s, full->sum.recovery_time_s);
    tu_sim_free(t);
    tu_sim_free(full);

    t = tu_sim_prepare(ini, NULL, NULL, 0); /* immediate */
    ck_assert_int_eq(sim_run_until(t->sim, 65 * NS_PER_S), 0);
    summary_live(t->sim, &l);
    ck_assert(l.fault_running && !l.after_fault); /* outage 60-70 s */
    ck_assert_int_eq(sim_run_until(t->sim, 200 * NS_PER_S), 0);
    summary_live(t->sim, &l);
    ck_assert(l.after_fault && !l.recovered);
    ck_assert_double_lt(l.goodput_ratio, 0.1);
    ck_assert_double_gt(l.amplification, 3.0);
    tu_sim_free(t);
    free(ini);
}
END_TEST

/* At t = 100 s every event before 100 s has run, so the bucket [99, 100)
 * is complete: the header's figures at "t = 100.0 s" are those of the
 * first 100 s -- what the run saved there gives headless (a scenario cut
 * at 100 s, summarised after sim_finish), to the request.  They lagged a
 * bucket behind (99 s of figures under "t = 100.0 s").  At 100.5 s the
 * bucket [100, 101) is not complete yet: the same figures. */
static void cut_at_100s(sim_config *c, void *ctx)
{
    (void)ctx;
    c->duration_ns = 100 * NS_PER_S;
}

START_TEST(live_figures_are_those_up_to_now)
{
    char *ini = tu_read_file(TU_SOURCE("scenarios/retry-storm.ini"));
    ck_assert_ptr_nonnull(ini);
    tu_sim *cut = tu_sim_run_edited(ini, NULL, cut_at_100s, NULL);
    const sim_summary sum = cut->sum;
    tu_sim *t = tu_sim_prepare(ini, NULL, NULL, 0);
    sim_live l;
    for (int k = 0; k < 2; k++) {
        int64_t at = k ? 100 * NS_PER_S + NS_PER_S / 2 : 100 * NS_PER_S;
        ck_assert_int_eq(sim_run_until(t->sim, at), 0);
        summary_live(t->sim, &l);
        ck_assert_uint_eq(l.offered, sum.offered);
        ck_assert_uint_eq(l.attempts, sum.attempts);
        ck_assert_uint_eq(l.duplicates, sum.duplicates);
        ck_assert_double_eq(l.amplification, sum.amplification);
    }
    tu_sim_free(t);
    tu_sim_free(cut);
    free(ini);
}
END_TEST

Suite *summary_live_suite(void)
{
    Suite *s = suite_create("summary_live");
    TCase *tc = tcase_create("live");
    tcase_add_test(tc, live_recovery_is_the_summarys);
    tcase_add_test(tc, live_figures_are_those_up_to_now);
    suite_add_tcase(s, tc);
    return s;
}
