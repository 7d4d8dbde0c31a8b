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

Suite *summary_live_suite(void)
{
    Suite *s = suite_create("summary_live");
    TCase *tc = tcase_create("live");
    tcase_add_test(tc, live_recovery_is_the_summarys);
    suite_add_tcase(s, tc);
    return s;
}
