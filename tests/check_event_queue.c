/*
 * check_event_queue.c -- the queue's order is exactly (time, seq): every
 * pop is the earliest, ties come out in push order, whichever path an
 * event took (window, overflow heap, any level of the wheel, a retime),
 * over the whole int64_t range of times; memory stays bounded by what is
 * pending.  The reference is the trivially correct one: a linear search
 * for the smallest (time, seq) among the pending events.
 */
#include <check.h>
#include <stdlib.h>

#include "event_queue.h"
#include "rng.h"

static evq q;

/* Check's ck_assert reports every check that passes to the parent process
 * (a write to a pipe each time); the loops here check millions of times,
 * so they test with these and call Check only on a failure. */
#define EXPECT(c)                                                              \
    do {                                                                       \
        if (!(c))                                                              \
            ck_abort_msg("expected %s", #c);                                   \
    } while (0)
#define EXPECT_EQ(a, b)                                                        \
    do {                                                                       \
        long long a_ = (long long)(a), b_ = (long long)(b);                    \
        if (a_ != b_)                                                          \
            ck_abort_msg("expected %s == %s: %lld != %lld", #a, #b, a_, b_);   \
    } while (0)

static void setup(void)
{
    ck_assert_int_eq(evq_init(&q), 0);
}

static void teardown(void)
{
    ck_assert(!evq_failed(&q));
    evq_fini(&q);
}

/* ---- The reference --------------------------------------------------------
 *
 * Pending events as pushed; the next one out is the smallest (time, seq)
 * by linear search.  Every event's id is its push number (= seq), its gen
 * and type derived from it, so a pop can be checked field by field. */

#define REF_MAX 4096

typedef struct ref {
    int64_t time;
    uint32_t seq;
} ref;

static ref pend[REF_MAX];
static int n_pend;
static uint32_t n_pushed;

static void ref_reset(void)
{
    n_pend = 0;
    n_pushed = 0;
}

static unsigned type_of(uint32_t seq)
{
    return 1 + seq % 9;
}

static void push_both(int64_t t)
{
    uint32_t id = n_pushed++;
    int rc = evq_push(&q, t, type_of(id), id, id * 7u);
    EXPECT_EQ(rc, 0);
    EXPECT(n_pend < REF_MAX);
    pend[n_pend++] = (ref){t, id};
}

static int ref_min(void)
{
    int best = 0;
    for (int i = 1; i < n_pend; i++)
        if (pend[i].time < pend[best].time ||
            (pend[i].time == pend[best].time && pend[i].seq < pend[best].seq))
            best = i;
    return best;
}

/* Pop before limit from both and compare; returns whether one came. */
static bool pop_both(int64_t limit, int64_t *time)
{
    evq_event ev;
    bool got = evq_pop_before(&q, limit, &ev);
    int i = n_pend ? ref_min() : -1;
    if (i < 0 || pend[i].time >= limit) {
        EXPECT(!got);
        return false;
    }
    if (!got)
        ck_abort_msg("the queue lost event %u", pend[i].seq);
    EXPECT_EQ(ev.time, pend[i].time);
    EXPECT_EQ(ev.id, pend[i].seq);
    EXPECT_EQ(ev.gen, pend[i].seq * 7u);
    EXPECT_EQ(evq_type(&ev), type_of(pend[i].seq));
    pend[i] = pend[--n_pend];
    *time = ev.time;
    return true;
}

/* Pop everything -- evq_pop takes events at INT64_MAX too -- checking
 * each against the reference. */
static void drain_both(void)
{
    evq_event ev;
    while (n_pend > 0) {
        int i = ref_min();
        if (!evq_pop(&q, &ev))
            ck_abort_msg("the queue lost event %u", pend[i].seq);
        EXPECT_EQ(ev.time, pend[i].time);
        EXPECT_EQ(ev.id, pend[i].seq);
        pend[i] = pend[--n_pend];
    }
    ck_assert(!evq_pop(&q, &ev));
    ck_assert_uint_eq(evq_len(&q), 0);
}

/* ---- Order ----------------------------------------------------------------
 */

/* 100 000 random times with many ties, popped in order: times never
 * decrease, and equal times keep push order (ids were pushed in
 * increasing order). */
START_TEST(pops_in_time_then_push_order)
{
    const int n = 100000;
    for (int i = 0; i < n; i++) {
        int64_t t = (int64_t)(rng_at(42, (uint64_t)i) % 1000); /* many ties */
        EXPECT_EQ(evq_push(&q, t, 1, (uint32_t)i, 0), 0);
    }
    ck_assert(evq_valid(&q));
    evq_event prev, ev;
    ck_assert(evq_pop(&q, &prev));
    for (int i = 1; i < n; i++) {
        EXPECT(evq_pop(&q, &ev));
        EXPECT(ev.time >= prev.time);
        EXPECT(ev.time > prev.time || ev.id > prev.id);
        prev = ev;
    }
    ck_assert(!evq_pop(&q, &ev));
}
END_TEST

/* Reserved events (a fault's) come first at their instant, by reserved
 * seq, however late they were pushed: here pushed after ordinary events
 * of the same times, from the window and from the wheel (t = 1e12). */
START_TEST(reserved_seqs_come_first_at_their_instant)
{
    const int64_t at[2] = {7, 1000000000000};
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; i < 3; i++)
            EXPECT_EQ(evq_push(&q, at[k], 1, 100 + i, 0), 0);
    for (int k = 0; k < 2; k++) {
        EXPECT_EQ(evq_push_reserved(&q, at[k], 9, 2, 9, 0), 0);
        EXPECT_EQ(evq_push_reserved(&q, at[k], 3, 3, 3, 0), 0);
    }
    static const uint32_t want[] = {3, 9, 100, 101, 102};
    evq_event ev;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 5; i++) {
            ck_assert(evq_pop(&q, &ev));
            ck_assert_int_eq(ev.time, at[k]);
            ck_assert_uint_eq(ev.id, want[i]);
            ck_assert_int_eq(evq_type(&ev), i == 0 ? 3 : i == 1 ? 2 : 1);
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

/* 4 000 pushes over 5 000 ns, many of them ties, all before the first
 * pop: every pop is checked against the reference. */
START_TEST(pushes_then_pops_keep_exact_order)
{
    ref_reset();
    for (int i = 0; i < 4000; i++) {
        uint64_t x = rng_at(5, (uint64_t)i);
        push_both((int64_t)((x >> 20) % 5000));
    }
    ck_assert(evq_valid(&q));
    drain_both();
}
END_TEST

/* now + off, saturating at INT64_MAX (off >= 0). */
static int64_t add_sat(int64_t now, int64_t off)
{
    return off > INT64_MAX - now ? INT64_MAX : now + off;
}

/* A time for the randomized tests: mostly "now + something", the
 * something spanning every level of the wheel (2^0 .. 2^62 ns), with
 * exact ties, "now" itself, and times before now (allowed: they are then
 * the next out).  now >= 0. */
static int64_t random_time(uint64_t x, int64_t now)
{
    int kind = (int)(x % 16);
    uint64_t r = x >> 8;
    if (kind < 3)
        return now; /* a retry with no delay */
    if (kind < 5)
        return add_sat(now, (int64_t)(r % 4) * 1000000); /* constants */
    if (kind == 5)
        return now - (int64_t)(r % 100000); /* in the past */
    int bits = (int)(r % 63);
    return add_sat(now, (int64_t)((x >> 14) & ((UINT64_C(1) << bits) - 1)));
}

/* The test's clock: the latest time popped, as the engine's never goes
 * back. */
static void advance_to(int64_t *now, int64_t t)
{
    if (t > *now)
        *now = t;
}

/* 300 000 operations -- pushes, bursts of pushes at one instant, pops,
 * pops before a limit -- checked one by one against the reference, with
 * evq_valid now and then.  Pushes outweigh pops below 1 000 pending and
 * the other way round above, so about 1 000 stay pending. */
START_TEST(random_operations_match_reference)
{
    ref_reset();
    int64_t now = 0, t;
    for (uint64_t i = 0; i < 300000; i++) {
        uint64_t x = rng_at(2024, i);
        int op = (int)(x % 1000);
        int push_share = n_pend < 1000 ? 600 : 400;
        if (op < 1) {
            /* a burst at one instant: a level-0 slot of many events */
            t = add_sat(now, (int64_t)((x >> 10) % 3000));
            for (int k = 0; k < 60; k++)
                push_both(t);
        } else if (op < push_share) {
            push_both(random_time(rng_at(77, i), now));
        } else if (op < 960) {
            if (pop_both(INT64_MAX, &t))
                advance_to(&now, t);
        } else {
            /* pop before a limit; the engine then moves its clock to the
             * limit and may push anything from there on */
            int64_t limit = add_sat(now, (int64_t)((x >> 10) % 5000000));
            advance_to(&now, pop_both(limit, &t) ? t : limit);
        }
        if (i % 20000 == 0)
            ck_assert(evq_valid(&q));
    }
    drain_both();
}
END_TEST

/* Times over the whole int64_t range -- negative, zero, a simulated year
 * and more, up to INT64_MAX with ties there -- come out in order: nothing
 * is packed into the time's bits. */
START_TEST(whole_time_range)
{
    ref_reset();
    const int64_t year = INT64_C(365) * 24 * 3600 * 1000000000;
    int64_t times[] = {INT64_MAX,
                       0,
                       year,
                       -5,
                       INT64_MAX,
                       year + 1,
                       100 * year,
                       INT64_MIN,
                       INT64_MAX - 1,
                       1,
                       year,
                       -(INT64_C(1) << 62),
                       INT64_MAX,
                       292 * year,
                       (INT64_C(1) << 56) - 1,
                       INT64_C(1) << 56};
    for (size_t i = 0; i < sizeof times / sizeof *times; i++)
        push_both(times[i]);
    ck_assert(evq_valid(&q));
    /* Pop half, push more around what is left, then the rest. */
    int64_t t;
    for (int i = 0; i < 8; i++)
        ck_assert(pop_both(INT64_MAX, &t));
    push_both(year);
    push_both(INT64_MAX);
    push_both(t);
    drain_both();
}
END_TEST

/* pop_before leaves a later event in place; an event pushed afterwards
 * between the last pop and that event (what the engine does after
 * sim_run_until stops: inject a fault "now") comes out first. */
START_TEST(pop_before_then_earlier_push)
{
    evq_push(&q, 1000, 1, 1, 0);
    evq_push(&q, 5000000000, 1, 2, 0); /* 5 s: deep in the wheel */
    evq_event ev;
    ck_assert(evq_pop_before(&q, 2000, &ev));
    ck_assert_uint_eq(ev.id, 1);
    ck_assert(!evq_pop_before(&q, 3000000000, &ev));
    ck_assert_uint_eq(evq_len(&q), 1);
    evq_push(&q, 3000000000, 1, 3, 0);
    evq_push(&q, 5000000000, 1, 4, 0); /* ties with id 2, pushed later */
    ck_assert(evq_valid(&q));
    uint32_t want[] = {3, 2, 4};
    for (int i = 0; i < 3; i++) {
        ck_assert(evq_pop(&q, &ev));
        ck_assert_uint_eq(ev.id, want[i]);
    }
    ck_assert(!evq_pop(&q, &ev));
}
END_TEST

/* The window's overflow heap: with a loaded window of 200 events at one
 * instant, 100 events pushed earlier than all of them would each shift
 * the whole run, so they go to the heap -- and still come out first, in
 * push order, then the 200 in theirs. */
START_TEST(window_overflow_heap)
{
    ref_reset();
    for (int i = 0; i < 200; i++)
        push_both(50000);
    int64_t t;
    ck_assert(pop_both(INT64_MAX, &t)); /* loads the window */
    for (int i = 0; i < 100; i++)
        push_both(40000 + i % 10);
    ck_assert_uint_gt(q.hlen, 0); /* the path under test was taken */
    ck_assert(evq_valid(&q));
    drain_both();
}
END_TEST

/* A push that sorts before the whole run (the engine's retry "now")
 * takes the slot the last pop freed; one that ties with the run's head
 * comes after it, by seq.  Both then come out in (time, seq) order. */
START_TEST(push_in_front_of_the_run)
{
    ref_reset();
    for (int i = 0; i < 20; i++)
        push_both(1000 + 10 * (i / 2)); /* pairs of ties */
    int64_t t;
    ck_assert(pop_both(INT64_MAX, &t)); /* loads the window */
    size_t head = q.rhead;
    push_both(t - 1);                     /* before everything left */
    ck_assert_uint_eq(q.rhead, head - 1); /* the path under test */
    push_both(t);                         /* ties with the head, pushed later */
    ck_assert(evq_valid(&q));
    ck_assert(pop_both(INT64_MAX, &t));
    ck_assert(pop_both(INT64_MAX, &t));
    push_both(t); /* "now" again, after the pushes above */
    ck_assert(evq_valid(&q));
    drain_both();
}
END_TEST

/* evq_due: is anything pending at the instant just popped (or before)?
 * The engine asks it before it dispatches a retry at "now" straight
 * after the handler instead of queueing it. */
START_TEST(due_at_the_instant_popped)
{
    evq_push(&q, 100, 1, 1, 0);
    evq_push(&q, 100, 1, 2, 0);
    evq_push(&q, 300, 1, 3, 0);
    evq_push(&q, 5000000000, 1, 4, 0); /* in the wheel */
    evq_event ev;
    ck_assert(evq_pop(&q, &ev));
    ck_assert(evq_due(&q, 100)); /* id 2 ties */
    ck_assert(evq_pop(&q, &ev));
    ck_assert(!evq_due(&q, 100));
    evq_push(&q, 100, 1, 5, 0); /* a retry "now" */
    ck_assert(evq_due(&q, 100));
    ck_assert(evq_pop(&q, &ev));
    ck_assert_uint_eq(ev.id, 5);
    ck_assert(evq_pop(&q, &ev));
    ck_assert_uint_eq(ev.id, 3);
    ck_assert(!evq_due(&q, 300));
    ck_assert(evq_pop(&q, &ev));
    ck_assert(!evq_due(&q, ev.time));
}
END_TEST

/* ---- Retime ---------------------------------------------------------------
 */

static int64_t halve_type1(const evq_event *ev, void *ctx)
{
    int64_t now = *(int64_t *)ctx;
    return evq_type(ev) == 1 ? now + (ev->time - now) / 2 : ev->time;
}

/* After retiming, pops still come out sorted, and every type-1 event's
 * time is exactly halved relative to `now`. */
START_TEST(retime_restores_order)
{
    for (int i = 0; i < 5000; i++)
        evq_push(&q, 1000 + (int64_t)(rng_at(7, (uint64_t)i) % 100000),
                 (unsigned)(1 + i % 2), (uint32_t)i, 0);
    int64_t now = 1000;
    ck_assert_int_eq(evq_retime(&q, halve_type1, &now), 0);
    ck_assert(evq_valid(&q));
    evq_event prev = {0, 0, 0, 0}, ev;
    int count = 0;
    while (evq_pop(&q, &ev)) {
        EXPECT(!evq_before(&ev, &prev));
        int64_t orig = 1000 + (int64_t)(rng_at(7, ev.id) % 100000);
        if (evq_type(&ev) == 1)
            EXPECT_EQ(ev.time, now + (orig - now) / 2);
        else
            EXPECT_EQ(ev.time, orig);
        prev = ev;
        count++;
    }
    ck_assert_int_eq(count, 5000);
}
END_TEST

static int64_t all_to(const evq_event *ev, void *ctx)
{
    (void)ev;
    return *(int64_t *)ctx;
}

/* Ties made by a retime break by push order, not by the old times: three
 * events pushed at 300, 100, 200 and all moved to 50 come out as pushed.
 * And 500 events moved onto one instant (a level-0 slot, loaded whole,
 * its events in no particular order) come out in push order too. */
START_TEST(retime_ties_keep_push_order)
{
    int64_t olds[] = {300, 100, 200};
    for (int i = 0; i < 3; i++)
        evq_push(&q, olds[i], 1, (uint32_t)i, 0);
    int64_t to = 50;
    ck_assert_int_eq(evq_retime(&q, all_to, &to), 0);
    evq_event ev;
    for (uint32_t i = 0; i < 3; i++) {
        ck_assert(evq_pop(&q, &ev));
        ck_assert_int_eq(ev.time, 50);
        ck_assert_uint_eq(ev.id, i);
    }
    for (int i = 0; i < 500; i++)
        evq_push(&q, 1000000 + (int64_t)(rng_at(3, (uint64_t)i) % 1000000000),
                 1, (uint32_t)i, 0);
    to = 7000000;
    ck_assert_int_eq(evq_retime(&q, all_to, &to), 0);
    evq_push(&q, 6999999, 1, 1000, 0); /* earlier, pushed later */
    evq_push(&q, 7000000, 1, 1001, 0); /* tied, pushed later */
    ck_assert(evq_valid(&q));
    ck_assert(evq_pop(&q, &ev));
    ck_assert_uint_eq(ev.id, 1000);
    for (uint32_t i = 0; i <= 500; i++) {
        EXPECT(evq_pop(&q, &ev));
        EXPECT_EQ(ev.time, 7000000);
        EXPECT_EQ(ev.id, i < 500 ? i : 1001);
    }
    ck_assert(!evq_pop(&q, &ev));
}
END_TEST

static int64_t same_time(const evq_event *ev, void *ctx)
{
    (void)ctx;
    return ev->time;
}

/* Events of the loaded window that a retime leaves in the window wait in
 * the overflow heap; a push tied with them goes to the sorted run, and
 * must still come out after them (it was pushed later): the pop compares
 * the two by (time, seq), not by time alone. */
START_TEST(retime_then_tied_push)
{
    for (uint32_t i = 0; i < 10; i++)
        evq_push(&q, 100, 1, i, 0);
    evq_event ev;
    ck_assert(evq_pop(&q, &ev)); /* the window is now time 100 exactly */
    ck_assert_uint_eq(ev.id, 0);
    ck_assert_int_eq(evq_retime(&q, same_time, NULL), 0);
    ck_assert_uint_eq(q.hlen, 9);
    evq_push(&q, 100, 1, 10, 0);
    ck_assert(evq_valid(&q));
    for (uint32_t i = 1; i <= 10; i++) {
        ck_assert(evq_pop(&q, &ev));
        ck_assert_uint_eq(ev.id, i);
    }
}
END_TEST

static int64_t stretch_odd(const evq_event *ev, void *ctx)
{
    const int64_t *now = ctx;
    if (ev->id % 2 == 0)
        return ev->time;
    /* what the engine's load spike does: now + (t - now) * k, rounded;
     * k = 1/3 makes ties */
    return *now + (ev->time - *now) / 3;
}

/* Retimes in the middle of random operations, against the reference
 * retimed the same way. */
START_TEST(retime_among_random_operations)
{
    ref_reset();
    int64_t now = 0, t;
    for (uint64_t i = 0; i < 60000; i++) {
        uint64_t x = rng_at(99, i);
        if (x % 100 < (n_pend < 1000 ? 60u : 40u))
            push_both(random_time(rng_at(98, i), now));
        else if (pop_both(INT64_MAX, &t))
            advance_to(&now, t);
        if (i % 5000 == 4999) {
            ck_assert_int_eq(evq_retime(&q, stretch_odd, &now), 0);
            for (int k = 0; k < n_pend; k++)
                if (pend[k].seq % 2)
                    pend[k].time = now + (pend[k].time - now) / 3;
            ck_assert(evq_valid(&q));
        }
    }
    drain_both();
}
END_TEST

/* ---- Growth and memory ----------------------------------------------------
 */

/* A million pending events (more than any initial capacity: the window,
 * the heap, the block arenas and their table all grow) come out exactly
 * in order; then a long run with 10 000 pending keeps the memory of 10 000,
 * whatever slots the wheel turns through -- blocks are reused.
 *
 * The bound: 24 bytes per event in blocks of 32 (784 bytes: 24.5 per
 * event), plus at most one partly filled block for each of the 2 048
 * slots (1.6 MB), plus one arena of 64 blocks not yet used (50 kB), plus
 * the window's arrays. */
START_TEST(growth_and_bounded_memory)
{
    const int n = 1000000;
    for (int i = 0; i < n; i++)
        EXPECT_EQ(evq_push(&q, (int64_t)(rng_at(8, (uint64_t)i) >> 20), 1,
                           (uint32_t)i, 0),
                  0);
    ck_assert_uint_eq(evq_len(&q), (size_t)n);
    ck_assert(evq_valid(&q));
    evq_event prev, ev;
    ck_assert(evq_pop(&q, &prev));
    for (int i = 1; i < n; i++) {
        EXPECT(evq_pop(&q, &ev));
        EXPECT(evq_before(&prev, &ev));
        prev = ev;
    }
    evq_fini(&q);
    ck_assert_int_eq(evq_init(&q), 0);

    const size_t pending = 10000;
    for (size_t i = 0; i < pending; i++)
        evq_push(&q, (int64_t)(rng_at(9, i) % 1000000000), 1, 0, 0);
    size_t most = 0;
    for (uint64_t i = 0; i < 2000000; i++) {
        EXPECT(evq_pop(&q, &ev));
        /* the "hold" model: each event schedules one, up to 1 s later */
        evq_push(&q, ev.time + (int64_t)(rng_at(10, i) % 1000000000), 1, 0, 0);
        if (evq_bytes(&q) > most)
            most = evq_bytes(&q);
    }
    ck_assert_uint_eq(evq_len(&q), pending);
    size_t bound = pending * 784 / 32 + 2048 * 784 + 64 * 784 +
                   (q.rcap + q.hcap) * sizeof(evq_event) + 64 * 1024;
    ck_assert_uint_le(most, bound);
}
END_TEST

Suite *event_queue_suite(void)
{
    Suite *s = suite_create("event_queue");
    TCase *tc = tcase_create("order");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60); /* a hang guard: the suite takes 0.5 s */
    tcase_add_test(tc, pops_in_time_then_push_order);
    tcase_add_test(tc, type_id_gen_round_trip);
    tcase_add_test(tc, reserved_seqs_come_first_at_their_instant);
    tcase_add_test(tc, pushes_then_pops_keep_exact_order);
    tcase_add_test(tc, random_operations_match_reference);
    tcase_add_test(tc, whole_time_range);
    tcase_add_test(tc, pop_before_then_earlier_push);
    tcase_add_test(tc, window_overflow_heap);
    tcase_add_test(tc, push_in_front_of_the_run);
    tcase_add_test(tc, due_at_the_instant_popped);
    tcase_add_test(tc, retime_restores_order);
    tcase_add_test(tc, retime_ties_keep_push_order);
    tcase_add_test(tc, retime_then_tied_push);
    tcase_add_test(tc, retime_among_random_operations);
    tcase_add_test(tc, growth_and_bounded_memory);
    suite_add_tcase(s, tc);
    return s;
}
