/*
 * check_model_overload.c -- metastability without retries: overload
 * degradation (scenarios/overload-thrash.ini), and what deadline
 * propagation and queue order do about it.  The arithmetic is in the
 * scenario's comments: 200 workers, 50 ms of work, 2000 requests/s;
 * saturated, each service takes 50 ms x (1 + 0.04 x 50) = 150 ms.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static char *thrash(void)
{
    char *t = tu_read_file(TU_SOURCE("scenarios/overload-thrash.ini"));
    ck_assert_ptr_nonnull(t);
    return t;
}

/* Mean goodput per second over buckets [from, to). */
static double goodput(const tu_sim *t, size_t from, size_t to)
{
    return summary_goodput(sim_metrics(t->sim), from, to);
}

static tu_sim *run_with(const char *ini, const char *line)
{
    /* Append keys to [server] by rewriting the section header. */
    const char *at = strstr(ini, "[server]\n");
    ck_assert_ptr_nonnull(at);
    size_t n = strlen(ini) + strlen(line) + 2;
    char *text = malloc(n);
    snprintf(text, n, "%.*s[server]\n%s\n%s", (int)(at - ini), ini, line,
             at + strlen("[server]\n"));
    tu_sim *t = tu_sim_run(text, NULL, NULL, 0);
    free(text);
    return t;
}

/* Before the spike 100 workers are busy (2000/s x 50 ms) and every
 * request succeeds; after it the server stays saturated at 200 busy
 * workers with goodput near 0, 165 s after the spike ended. */
START_TEST(spike_leaves_the_server_stuck)
{
    char *ini = thrash();
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    ck_assert_double_eq_tol(t->sum.baseline_goodput_per_s, 2000.0, 30.0);
    ck_assert(t->sum.metastable);
    ck_assert_double_lt(goodput(t, 100, 240), 20.0);
    const metrics *m = sim_metrics(t->sim);
    ck_assert_double_eq_tol(m->buckets[40].busy_ns / (double)m->bucket_ns,
                            100.0, 15.0);
    ck_assert_double_eq_tol(m->buckets[200].busy_ns / (double)m->bucket_ns,
                            200.0, 1e-6);
    tu_sim_free(t);
    free(ini);
}
END_TEST

/* Without the spike nothing happens: noise alone never reaches the
 * runaway point (167 busy, 6.7 sigma above 100). */
START_TEST(no_spike_no_collapse)
{
    char *ini = thrash();
    char *p = strstr(ini, "multiplier = 2");
    ck_assert_ptr_nonnull(p);
    p[strlen("multiplier = ")] = '1';
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    ck_assert(!t->sum.metastable);
    ck_assert_double_eq_tol(t->sum.utilization, 0.5, 0.01);
    ck_assert_double_eq_tol(t->sum.success_ratio, 1.0, 1e-3);
    tu_sim_free(t);
    free(ini);
}
END_TEST

/* Newest first: saturated, the server completes 200 / 0.15 s = 1333.3
 * requests/s, and the newest attempts finish well inside their 1 s
 * timeout, so goodput is that capacity.  Oldest first with drop_expired:
 * the queue settles at just under 1 s of work, every served attempt
 * starts with milliseconds left and answers late: goodput stays near 0. */
START_TEST(queue_order_decides_what_survives)
{
    char *ini = thrash();
    tu_sim *lifo = run_with(ini, "queue_order = lifo");
    ck_assert_double_eq_tol(goodput(lifo, 100, 240), 200.0 / 0.15, 5.0);
    tu_sim *fifo = run_with(ini, "drop_expired = true");
    ck_assert_double_lt(goodput(fifo, 100, 240), 20.0);
    ck_assert_uint_gt(fifo->sum.expired, 10000);
    tu_sim_free(lifo);
    tu_sim_free(fifo);
    free(ini);
}
END_TEST

Suite *model_overload_suite(void)
{
    Suite *s = suite_create("model_overload");
    TCase *tc = tcase_create("degradation");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, spike_leaves_the_server_stuck);
    tcase_add_test(tc, no_spike_no_collapse);
    tcase_add_test(tc, queue_order_decides_what_survives);
    suite_add_tcase(s, tc);
    return s;
}
