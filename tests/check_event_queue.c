/*
 * check_event_queue.c -- the heap's order is (time, seq): every pop is the
 * earliest, ties come out in push order, retime keeps the order exact.
 */
#include <check.h>
#include <stdlib.h>

#include "event_queue.h"
#include "rng.h"

static evq q;

static void setup(void)
{
    ck_assert_int_eq(evq_init(&q, 4), 0);
}

static void teardown(void)
{
    evq_fini(&q);
}

/* 100 000 random times popped in order, against the sort a reference
 * would produce: times never decrease, and equal times keep push order
 * (their ids were pushed in increasing order). */
START_TEST(pops_in_time_then_push_order)
{
    const int n = 100000;
    for (int i = 0; i < n; i++) {
        int64_t t = (int64_t)(rng_at(42, (uint64_t)i) % 1000); /* many ties */
        ck_assert_int_eq(evq_push(&q, t, 1, (uint32_t)i, 0), 0);
    }
    evq_event prev, ev;
    ck_assert(evq_pop(&q, &prev));
    for (int i = 1; i < n; i++) {
        ck_assert(evq_pop(&q, &ev));
        ck_assert_int_ge(ev.time, prev.time);
        if (ev.time == prev.time)
            ck_assert_uint_gt(ev.id, prev.id);
        prev = ev;
    }
    ck_assert(!evq_pop(&q, &ev));
}
END_TEST

START_TEST(type_id_gen_round_trip)
{
    evq_push(&q, 5, 200, 123456, 99);
    evq_event ev;
    ck_assert(evq_pop(&q, &ev));
    ck_assert_int_eq(evq_type(&ev), 200);
    ck_assert_uint_eq(ev.id, 123456);
    ck_assert_uint_eq(ev.gen, 99);
    ck_assert_int_eq(ev.time, 5);
}
END_TEST

static int64_t halve_type1(const evq_event *ev, void *ctx)
{
    int64_t now = *(int64_t *)ctx;
    return evq_type(ev) == 1 ? now + (ev->time - now) / 2 : ev->time;
}

/* After retiming, pops still come out sorted, and every type-1 event's
 * time is exactly halved relative to `now`. */
START_TEST(retime_restores_heap_order)
{
    for (int i = 0; i < 5000; i++)
        evq_push(&q, 1000 + (int64_t)(rng_at(7, (uint64_t)i) % 100000),
                 (unsigned)(1 + i % 2), (uint32_t)i, 0);
    int64_t now = 1000;
    evq_retime(&q, halve_type1, &now);
    evq_event prev = {0}, ev;
    int count = 0;
    while (evq_pop(&q, &ev)) {
        ck_assert_int_ge(ev.time, prev.time);
        int64_t orig = 1000 + (int64_t)(rng_at(7, ev.id) % 100000);
        if (evq_type(&ev) == 1)
            ck_assert_int_eq(ev.time, now + (orig - now) / 2);
        else
            ck_assert_int_eq(ev.time, orig);
        prev = ev;
        count++;
    }
    ck_assert_int_eq(count, 5000);
}
END_TEST

Suite *event_queue_suite(void)
{
    Suite *s = suite_create("event_queue");
    TCase *tc = tcase_create("order");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, pops_in_time_then_push_order);
    tcase_add_test(tc, type_id_gen_round_trip);
    tcase_add_test(tc, retime_restores_heap_order);
    suite_add_tcase(s, tc);
    return s;
}
