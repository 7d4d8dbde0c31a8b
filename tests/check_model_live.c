/*
 * check_model_live.c -- the faults a changed setting becomes: what the
 * GUI's live changes are saved as, so a run explored by hand reproduces
 * headless.  A capacity fault sets the workers (more than configured as
 * well as fewer); a client_timeout fault sets the clients' attempt
 * timeout while it lasts.
 */
#include <check.h>

#include "testutil.h"

/* Ten requests at t = 0 on one worker of exactly 100 ms finish one after
 * the other, the last at 1.0 s.  With a capacity fault of 10 workers
 * over the whole run they are served together and all end at 0.1 s. */
START_TEST(capacity_can_raise_the_workers)
{
    static const char base[] =
        "[scenario]\nname = cap\nduration = 5s\nwarmup = 0s\n"
        "[clients]\ncount = 10\narrival = once\nstart_window = 0s\n"
        "timeout = 10s\n"
        "[server]\nworkers = 1\nservice = const(100ms)\n";
    tu_sim *t = tu_sim_run(base, NULL, NULL, 0);
    ck_assert_double_eq_tol(t->sum.completion_time_s, 1.0, 1e-12);
    tu_sim_free(t);
    char ini[1024];
    snprintf(ini, sizeof ini,
             "%s[fault.more]\ntype = capacity\nstart = 0s\n"
             "duration = 5s\nworkers = 10\n",
             base);
    t = tu_sim_run(ini, NULL, NULL, 0);
    ck_assert_double_eq_tol(t->sum.completion_time_s, 0.1, 1e-12);
    tu_sim_free(t);
}
END_TEST

/* Service takes exactly 500 ms, the timeout is 1 s: everything succeeds,
 * except while a client_timeout fault makes it 100 ms (from 5 s to 10 s):
 * every attempt sent then times out after 100 ms (no retries).  Attempts
 * sent before 5 s keep the timeout they were sent with. */
START_TEST(client_timeout_sets_the_timeout)
{
    static const char ini[] =
        "[scenario]\nname = impatient\nduration = 20s\nwarmup = 1s\n"
        "[clients]\ncount = 50\nrate = 2/s\ntimeout = 1s\n"
        "[server]\nworkers = unlimited\nservice = const(500ms)\n"
        "[fault.impatient]\ntype = client_timeout\nstart = 5s\n"
        "duration = 5s\ntimeout = 100ms\n";
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    const metrics *m = sim_metrics(t->sim);
    for (size_t i = 1; i < 4; i++) /* before: all succeed */
        ck_assert_uint_eq(m->buckets[i].timeouts, 0);
    for (size_t i = 6; i < 9; i++) { /* during: sent at [t, t+1) */
        const metrics_bucket *b = &m->buckets[i];
        ck_assert_uint_eq(b->successes, 0);
        ck_assert_uint_gt(b->timeouts, 50);
    }
    for (size_t i = 12; i < 19; i++) /* after: all succeed again */
        ck_assert_uint_eq(m->buckets[i].timeouts, 0);
    tu_sim_free(t);
}
END_TEST

Suite *model_live_suite(void)
{
    Suite *s = suite_create("model_live");
    TCase *tc = tcase_create("changes_as_faults");
    tcase_add_test(tc, capacity_can_raise_the_workers);
    tcase_add_test(tc, client_timeout_sets_the_timeout);
    suite_add_tcase(s, tc);
    return s;
}
