/*
 * check_tiers.c -- service chains (sim/tier.h): the retry arithmetic
 * through tiers, held workers (Little's law), what adding a tier leaves
 * unchanged, and the loader's refusals of a bad chain.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "writer.h"

/* The metrics totals of tier i. */
static const metrics_bucket *tier_sum(const tu_sim *t, unsigned i)
{
    sim_tier_info info;
    sim_tier(t->sim, i, &info);
    return &info.m->total.sum;
}

/* Three tiers, front -> mid -> db.  Every client sends one request (so
 * nothing is in flight at the end), every timeout is an hour (nothing
 * times out: attempts are counted exactly), and db is down for the whole
 * run, refusing connections at once.  %s are the clients' policy, then
 * front's and mid's. */
#define CHAIN                                                                  \
    "[scenario]\nname = chain\nduration = 60s\nwarmup = 0s\n"                  \
    "[clients]\ncount = 100\narrival = once\nstart_window = 1s\n"              \
    "timeout = 1h\n"                                                           \
    "[server]\nname = front\nworkers = 8\nservice = const(1ms)\n"              \
    "downstream = mid\n"                                                       \
    "[policy]\n%s\n"                                                           \
    "[policy.front]\ntimeout = 1h\n%s\n"                                       \
    "[server.mid]\nworkers = 8\nservice = const(1ms)\ndownstream = db\n"       \
    "[policy.mid]\ntimeout = 1h\n%s\n"                                         \
    "[server.db]\nworkers = 8\nservice = const(1ms)\n"                         \
    "[fault.down]\ntype = outage\nmode = refuse\ntarget = db\nstart = 0s\n"    \
    "duration = 1h\n"

#define RETRY4 "name = immediate\nmax_attempts = 4"
#define NO_RETRY "name = none"

static tu_sim *run_chain(const char *top, const char *front, const char *mid)
{
    static char ini[4096];
    int n = snprintf(ini, sizeof ini, CHAIN, top, front, mid);
    ck_assert_int_lt(n, (int)sizeof ini);
    return tu_sim_run(ini, NULL, NULL, 0);
}

/* Each tier retries: 4 attempts per call at every level.  A request
 * sends 4 attempts to front; each is served and makes one call to mid,
 * which sends 4 attempts; each of those makes one call to db, which
 * sends 4 attempts, all refused.  So per request: 4 attempts reach
 * front, 4 x 4 = 16 reach mid, 4^3 = 64 reach db -- the 4^k. */
START_TEST(retries_multiply_through_tiers)
{
    tu_sim *t = run_chain(RETRY4, RETRY4, RETRY4);
    ck_assert_uint_eq(sim_tiers(t->sim), 3);
    uint64_t offered = tier_sum(t, 0)->offered;
    ck_assert_uint_eq(offered, 100); /* one request per client */
    ck_assert_uint_eq(t->sim ? tier_sum(t, 0)->attempts : 0, 4 * offered);
    ck_assert_uint_eq(tier_sum(t, 1)->offered, 4 * offered); /* calls */
    ck_assert_uint_eq(tier_sum(t, 1)->attempts, 16 * offered);
    ck_assert_uint_eq(tier_sum(t, 2)->offered, 16 * offered);
    ck_assert_uint_eq(tier_sum(t, 2)->attempts, 64 * offered);
    /* Every attempt at db is refused (the outage), every call fails. */
    ck_assert_uint_eq(tier_sum(t, 2)->rejections, 64 * offered);
    ck_assert_uint_eq(tier_sum(t, 2)->failures, 16 * offered);
    ck_assert_uint_eq(tier_sum(t, 2)->successes, 0);
    ck_assert_uint_eq(tier_sum(t, 0)->failures, offered);
    tu_sim_free(t);
}
END_TEST

/* Only the clients retry: front and mid call once.  4 attempts per
 * request reach front, each makes one call of one attempt to mid, and
 * so on: 4 reach db -- 4^1, not 4^3. */
START_TEST(retrying_only_at_the_top_is_linear)
{
    tu_sim *t = run_chain(RETRY4, NO_RETRY, NO_RETRY);
    uint64_t offered = tier_sum(t, 0)->offered;
    ck_assert_uint_eq(offered, 100);
    ck_assert_uint_eq(tier_sum(t, 0)->attempts, 4 * offered);
    ck_assert_uint_eq(tier_sum(t, 1)->attempts, 4 * offered);
    ck_assert_uint_eq(tier_sum(t, 2)->attempts, 4 * offered);
    tu_sim_free(t);
}
END_TEST

/* Only the middle tier retries: 1 x 1 x 4. */
START_TEST(retrying_in_the_middle_only)
{
    tu_sim *t = run_chain(NO_RETRY, NO_RETRY, RETRY4);
    uint64_t offered = tier_sum(t, 0)->offered;
    ck_assert_uint_eq(tier_sum(t, 1)->attempts, offered);
    ck_assert_uint_eq(tier_sum(t, 2)->attempts, 4 * offered);
    tu_sim_free(t);
}
END_TEST

/* ---- Held workers ---------------------------------------------------- */

/* front (8 workers, 1 ms of its own) calls db (unlimited workers, so no
 * queue there; 100 ms), no network delay, nothing times out.  An attempt
 * holds a front worker for exactly 1 + 100 = 101 ms.  %s: extra keys
 * (a fault). */
#define HELD                                                                   \
    "[scenario]\nname = held\nduration = 100s\nwarmup = 10s\n"                 \
    "[clients]\ncount = 40\nrate = 1/s\ntimeout = 1h\n"                        \
    "[server]\nname = front\nworkers = 8\nservice = const(1ms)\n"              \
    "downstream = db\n"                                                        \
    "[policy]\nname = none\n"                                                  \
    "[policy.front]\ntimeout = 1h\n"                                           \
    "[server.db]\nworkers = unlimited\nservice = const(100ms)\n%s"

/* Little's law at front: busy workers = arrival rate x holding time,
 * where the holding time is its own service plus the downstream's
 * response time, 101 ms -- not the 1 ms of its own.  Each served
 * attempt adds exactly 101 ms to the busy integral (const times), so
 * busy_ns = served x 101 ms, less what the attempts still held at the
 * end (at most 8 workers x 101 ms) had left to do.  And by rate:
 * 40 clients x 1/s = 40/s x 0.101 s = 4.04 busy workers on average,
 * within Poisson noise (about 4000 arrivals: 1/sqrt(4000) = 1.6 %; 6 %
 * is almost 4 sigma). */
START_TEST(held_workers_obey_littles_law)
{
    char ini[2048];
    snprintf(ini, sizeof ini, HELD, "");
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    const metrics_bucket *front = tier_sum(t, 0);
    double hold = 0.101e9;
    ck_assert_double_le(front->busy_ns, (double)front->served * hold + 1.0);
    ck_assert_double_ge(front->busy_ns, (double)(front->served - 8) * hold);
    double busy = front->busy_ns / 100e9;
    ck_assert_double_eq_tol(busy, 40 * 0.101, 40 * 0.101 * 0.06);
    /* Its own service time is 1 ms per attempt: 1 % of that. */
    ck_assert_int_eq(front->service_ns, (int64_t)front->served * 1000000);
    tu_sim_free(t);
}
END_TEST

/* A slow database starves the front end: db slowed x 10 (1 s a call)
 * from 30 s to 60 s.  Front would need 40/s x 1.001 s = 40 workers; it
 * has 8, so they are all held (utilization 100 %) and its queue grows,
 * although its own service is 1 ms.  Before the fault: 4.04 / 8 = 50 %
 * (previous test). */
START_TEST(slow_database_starves_the_front_end)
{
    char ini[2048];
    snprintf(ini, sizeof ini, HELD,
             "[fault.slow]\ntype = slowdown\ntarget = db\nmultiplier = 10\n"
             "start = 30s\nduration = 30s\n");
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    sim_tier_info front;
    sim_tier(t->sim, 0, &front);
    const metrics *m = front.m;
    /* 1 s buckets; by 32 s the last fast calls are long done and every
     * worker holds a slow one. */
    for (size_t b = 32; b < 60; b++) {
        const metrics_bucket *k = &m->buckets[b];
        double util = k->busy_ns / ((double)k->capacity * (double)k->width_ns);
        ck_assert_msg(util > 0.999, "bucket %zu: utilization %.3f", b, util);
    }
    /* Its queue: 40/s arrive, 8 / 1.001 s leave: it grows by about 32/s
     * for 30 s, to some 900 queued. */
    ck_assert_uint_gt(m->total.max_queue, 700);
    double before = 0;
    for (size_t b = 10; b < 30; b++)
        before += m->buckets[b].busy_ns / (8.0 * 1e9);
    before /= 20;
    ck_assert_double_eq_tol(before, 0.505, 0.1);
    tu_sim_free(t);
}
END_TEST

/* ---- A call's end, by hand ------------------------------------------- */

/* One request (one client, sent in the first microsecond) to front,
 * which calls db; db swallows every attempt (a black hole) for the whole
 * run.  %s: front's policy (with its timeout), then a fault. */
#define ONE_CALL                                                               \
    "[scenario]\nname = one\nduration = 20s\nwarmup = 0s\n"                    \
    "[clients]\ncount = 1\narrival = once\nstart_window = 1us\n"               \
    "timeout = 10s\n"                                                          \
    "[policy]\nname = none\n"                                                  \
    "[server]\nname = front\nworkers = 1\nservice = const(1ms)\n"              \
    "downstream = db\n"                                                        \
    "[policy.front]\n%s\n"                                                     \
    "[server.db]\n"                                                            \
    "[fault.hole]\ntype = outage\nmode = blackhole\ntarget = db\n"             \
    "start = 0s\nduration = 1h\n%s"

/* front's call times out 3 times (100 ms each, retried at once) and
 * gives up; the held worker is then freed and the client's attempt
 * answered 503, 1 ms + 3 x 100 ms = 301 ms after it was sent (no
 * network delay; the client's call_time, 100 us, is long past). */
START_TEST(a_call_that_times_out_answers_after_its_attempts)
{
    char ini[2048];
    snprintf(ini, sizeof ini, ONE_CALL,
             "name = immediate\nmax_attempts = 3\ntimeout = 100ms", "");
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    const metrics_bucket *top = tier_sum(t, 0), *db = tier_sum(t, 1);
    ck_assert_uint_eq(top->failures, 1);
    ck_assert_uint_eq(top->attempts_ended, 1);
    ck_assert_int_eq(top->attempt_latency_sum_ns, 301 * NS_PER_MS);
    ck_assert_uint_eq(db->attempts, 3);
    ck_assert_uint_eq(db->timeouts, 3);
    ck_assert_uint_eq(db->failures, 1);
    /* The worker was held 301 ms in all. */
    ck_assert_double_eq_tol(top->busy_ns, 301e6, 1);
    tu_sim_free(t);
}
END_TEST

/* front goes down at 1.5 s, during its call's second attempt (sent at
 * 1.001 s when the first timed out; timeouts 1 s here): the held attempt
 * is reset at once -- the client's attempt ends at 1.5 s -- and the call
 * sends no third attempt when the second times out at 2.001 s: the
 * worker that made it is gone.  db saw 2 attempts, not 5. */
START_TEST(an_outage_of_the_caller_ends_its_calls)
{
    char ini[2048];
    snprintf(ini, sizeof ini, ONE_CALL,
             "name = immediate\nmax_attempts = 5\ntimeout = 1s",
             "[fault.front]\ntype = outage\ntarget = front\nstart = 1.5s\n"
             "duration = 1s\n");
    tu_sim *t = tu_sim_run(ini, NULL, NULL, 0);
    const metrics_bucket *top = tier_sum(t, 0), *db = tier_sum(t, 1);
    ck_assert_uint_eq(top->failures, 1);
    /* Sent in the first microsecond, answered at 1.5 s. */
    ck_assert_int_le(top->attempt_latency_sum_ns, 1500 * NS_PER_MS);
    ck_assert_int_gt(top->attempt_latency_sum_ns, 1500 * NS_PER_MS - 1000);
    ck_assert_uint_eq(db->attempts, 2);
    ck_assert_uint_eq(db->failures, 1); /* the abandoned call */
    tu_sim_free(t);
}
END_TEST

/* ---- What adding a tier leaves alone ---------------------------------- */

/* The top tier draws from the streams a single server uses, and tier 1
 * from streams of its own: a downstream that answers in zero time (no
 * service, no network) changes nothing the top sees -- the same
 * attempts, successes, service time and latency, to the nanosecond. */
#define SINGLE                                                                 \
    "[scenario]\nname = same\nduration = 30s\n"                                \
    "[clients]\ncount = 50\nrate = 20/s\ntimeout = 50ms\n"                     \
    "[policy]\nname = exponential\nbase = 10ms\n"                              \
    "[server]\nworkers = 8\nservice = exp(10ms)\n"                             \
    "network_delay = exp(1ms)\n"

START_TEST(a_free_downstream_changes_nothing_at_the_top)
{
    tu_sim *a = tu_sim_run(SINGLE, NULL, NULL, 0);
    tu_sim *b = tu_sim_run(SINGLE "downstream = db\n"
                                  "[server.db]\nservice = const(0s)\n",
                           NULL, NULL, 0);
    const metrics_bucket *x = &sim_metrics(a->sim)->total.sum;
    const metrics_bucket *y = &sim_metrics(b->sim)->total.sum;
    ck_assert_uint_gt(x->timeouts, 100); /* retries happen */
    ck_assert_uint_eq(x->attempts, y->attempts);
    ck_assert_uint_eq(x->successes, y->successes);
    ck_assert_uint_eq(x->timeouts, y->timeouts);
    ck_assert_int_eq(x->service_ns, y->service_ns);
    ck_assert_int_eq(x->latency_sum_ns, y->latency_sum_ns);
    ck_assert_int_eq(x->wasted_ns, y->wasted_ns);
    /* ... and every attempt the top served made one call, but those
     * still in service at the end (at most its 8 workers): `served`
     * counts an attempt when its service starts, the call comes at its
     * end. */
    ck_assert_uint_le(tier_sum(b, 1)->attempts, y->served);
    ck_assert_uint_le(y->served - tier_sum(b, 1)->attempts, 8);
    tu_sim_free(a);
    tu_sim_free(b);
}
END_TEST

/* ---- The shipped scenario ----------------------------------------------- */

/* Column `name` of a CSV (header line first), summed over the rows whose
 * t_s lies in [from, to). */
static double csv_window(const char *csv, const char *name, double from,
                         double to)
{
    const char *nl = strchr(csv, '\n');
    ck_assert_ptr_nonnull(nl);
    int col = -1, i = 0;
    for (const char *p = csv; p < nl; i++) {
        const char *end = strpbrk(p, ",\n");
        if ((size_t)(end - p) == strlen(name) &&
            strncmp(p, name, strlen(name)) == 0)
            col = i;
        p = end + 1;
    }
    ck_assert_msg(col >= 0, "no column %s", name);
    double sum = 0;
    for (const char *row = nl + 1; *row;) {
        double t = strtod(row, NULL);
        const char *p = row;
        for (int c = 0; c < col; c++)
            p = strchr(p, ',') + 1;
        if (t >= from && t < to)
            sum += strtod(p, NULL);
        const char *next = strchr(row, '\n');
        if (next == NULL)
            break;
        row = next + 1;
    }
    return sum;
}

/* Attempts that reach db per request offered, over the buckets well
 * inside tier-amplification.ini's outage (21 s to 29 s). */
static double db_per_request(const char *const *sets)
{
    const char *csv = tu_temp_path("tier-amplification.csv");
    char path[1024];
    snprintf(path, sizeof path, "%s", csv);
    const char *argl[12] = {
        "run",         TU_SOURCE("scenarios/tier-amplification.ini"),
        "--no-timing", "-q",
        "--no-expect", "--csv",
        path};
    int n = 7;
    for (int i = 0; sets && sets[i]; i++)
        argl[n++] = sets[i];
    argl[n] = NULL;
    tu_output o;
    tu_stormbench(&o, argl);
    ck_assert_msg(o.status == 0, "exit %d: %s", o.status, o.err);
    tu_output_free(&o);
    char *text = tu_read_file(path);
    ck_assert_ptr_nonnull(text);
    double per = csv_window(text, "db.attempts", 21, 29) /
                 csv_window(text, "offered", 21, 29);
    free(text);
    return per;
}

/* tier-amplification.ini works out 4^3 = 64 attempts at db per request
 * while db is down, and 4 with retries only at the top.  A request's
 * attempts spread over about 200 ms, so a bucket's attempts belong in
 * part to requests of the one before: over 8 buckets (about 800
 * requests) that edge is a few per cent, hence the tolerance (exact
 * counts: retries_multiply_through_tiers above). */
START_TEST(shipped_scenario_shows_4_to_the_3)
{
    ck_assert_double_eq_tol(db_per_request(NULL), 64, 3);
    const char *top_only[] = {"--set", "policy.front.name=none", "--set",
                              "policy.api.name=none", NULL};
    ck_assert_double_eq_tol(db_per_request(top_only), 4, 0.2);
}
END_TEST

/* [expect.NAME] is checked: the shipped file passes with its own
 * policies (exit 0, every_scenario_meets_its_expect), and fails, naming
 * the tier, when only the top retries: db then sees (50 + 10 x 4) / 60 =
 * 1.5 per request, below its amplification_min of 11. */
START_TEST(tier_expectations_fail_by_name)
{
    tu_output o;
    tu_stormbench(&o, (const char *[]){
                          "run", TU_SOURCE("scenarios/tier-amplification.ini"),
                          "--no-timing", "--set", "policy.front.name=none",
                          "--set", "policy.api.name=none", NULL});
    ck_assert_int_eq(o.status, 1);
    ck_assert_ptr_nonnull(strstr(o.out, "FAIL  db.amplification_min: tier "
                                        "db: 1.5"));
    ck_assert_ptr_nonnull(strstr(o.out, "FAIL  api.amplification_min"));
    tu_output_free(&o);
}
END_TEST

/* slow-database.ini's Little's law: before the fault front holds a
 * worker 23 ms a request, 50/s x 23 ms = 1.15 busy (Poisson noise on
 * about 1000 requests: 3 %; 10 % allowed); in the fault every one of its
 * 16 is held (from 33 s, once the fast calls are long gone), and db has
 * 16 x 500 / 503 = 15.9 of its 64 busy -- the held workers' queries. */
START_TEST(slow_database_scenario_holds_front_workers)
{
    char csv[1024];
    snprintf(csv, sizeof csv, "%s", tu_temp_path("slow-database.csv"));
    tu_output o;
    tu_stormbench(
        &o, (const char *[]){"run", TU_SOURCE("scenarios/slow-database.ini"),
                             "--no-timing", "-q", "--csv", csv, NULL});
    ck_assert_int_eq(o.status, 0);
    tu_output_free(&o);
    char *c = tu_read_file(csv);
    ck_assert_double_eq_tol(csv_window(c, "front.busy_workers", 10, 30) / 20,
                            1.15, 0.115);
    ck_assert_double_eq_tol(csv_window(c, "front.busy_workers", 33, 50) / 17,
                            16, 1e-3);
    ck_assert_double_eq_tol(csv_window(c, "db.busy_workers", 33, 50) / 17,
                            16 * 500.0 / 503, 0.1);
    /* And goodput: nothing succeeds once the queue is 2 s long. */
    ck_assert_double_eq(csv_window(c, "successes", 40, 50), 0);
    free(c);
}
END_TEST

/* The same with front propagating its callers' deadlines: a call for an
 * attempt whose client has given up ends at once, so the 16 held workers
 * serve live requests only, 16 / 0.503 s = 31.8 of them a second; a few
 * still answer after their client's 2 s (they waited in the queue), so
 * goodput in the fault is a little under that -- instead of nothing.
 * db, which does not cancel a query its caller stopped waiting for, now
 * does work nobody uses. */
START_TEST(propagated_deadlines_free_the_held_workers)
{
    char csv[1024];
    snprintf(csv, sizeof csv, "%s", tu_temp_path("slow-database-dl.csv"));
    tu_output o;
    tu_stormbench(
        &o, (const char *[]){"run", TU_SOURCE("scenarios/slow-database.ini"),
                             "--no-timing", "-q", "--no-expect", "--set",
                             "policy.front.propagate_deadline=true", "--csv",
                             csv, NULL});
    ck_assert_int_eq(o.status, 0);
    tu_output_free(&o);
    char *c = tu_read_file(csv);
    double goodput = csv_window(c, "successes", 35, 50) / 15;
    ck_assert_double_le(goodput, 31.8);
    ck_assert_double_ge(goodput, 27);
    ck_assert_double_eq_tol(csv_window(c, "front.busy_workers", 35, 50) / 15,
                            16, 1e-3);
    ck_assert_double_gt(csv_window(c, "db.wasted_work_s", 35, 50), 10);
    free(c);
}
END_TEST

/* Same scenario, seed and policies: the same bytes, tiers included
 * (slow-database.ini draws exponential service times at db, from its
 * own streams). */
START_TEST(a_chain_run_is_deterministic)
{
    char *out[2][2];
    for (int k = 0; k < 2; k++) {
        char json[1024], csv[1024], name[64];
        snprintf(name, sizeof name, "det-%d.json", k);
        snprintf(json, sizeof json, "%s", tu_temp_path(name));
        snprintf(name, sizeof name, "det-%d.csv", k);
        snprintf(csv, sizeof csv, "%s", tu_temp_path(name));
        tu_output o;
        tu_stormbench(&o, (const char *[]){
                              "run", TU_SOURCE("scenarios/slow-database.ini"),
                              "--no-timing", "-q", "--json", json, "--csv", csv,
                              NULL});
        ck_assert_int_eq(o.status, 0);
        tu_output_free(&o);
        out[k][0] = tu_read_file(json);
        out[k][1] = tu_read_file(csv);
    }
    ck_assert_str_eq(out[0][0], out[1][0]);
    ck_assert_str_eq(out[0][1], out[1][1]);
    ck_assert_ptr_nonnull(strstr(out[0][0], "\"tiers\""));
    for (int k = 0; k < 2; k++) {
        free(out[k][0]);
        free(out[k][1]);
    }
}
END_TEST

/* The load budget counts every tier's attempts.  100 000 requests (1 s
 * of 100 000 clients at 1/s) of 4 attempts at the top are 400 000
 * attempts, far within it (1e10 events); but with front's and api's
 * calls retrying up to 1000 times each a request may cost 4 (1 + 1000
 * (1 + 1000)) = 4 million attempts, and the run is refused before it
 * starts (exit 2, no simulation). */
START_TEST(load_budget_counts_the_tiers)
{
    tu_output o;
    tu_stormbench(&o, (const char *[]){
                          "run", TU_SOURCE("scenarios/tier-amplification.ini"),
                          "-q", "--no-timing", "--no-expect", "--set",
                          "clients.count=100000", "--set", "scenario.warmup=0s",
                          "--set", "scenario.duration=1s", "--set",
                          "policy.front.max_attempts=1000", "--set",
                          "policy.api.max_attempts=1000", NULL});
    ck_assert_int_eq(o.status, 2);
    ck_assert_ptr_nonnull(strstr(o.err, "this run would process about"));
    tu_output_free(&o);
}
END_TEST

/* The outputs: the JSON's "tiers" and the CSV's per-tier columns say the
 * same (db's attempts over the run = the sum of its column), and a
 * single-server run has neither. */
START_TEST(outputs_carry_the_tiers_only_with_a_chain)
{
    char json[1024], csv[1024];
    snprintf(json, sizeof json, "%s", tu_temp_path("chain-out.json"));
    snprintf(csv, sizeof csv, "%s", tu_temp_path("chain-out.csv"));
    tu_output o;
    tu_stormbench(&o,
                  (const char *[]){
                      "run", TU_SOURCE("scenarios/tier-amplification.ini"),
                      "--no-timing", "-q", "--json", json, "--csv", csv, NULL});
    ck_assert_int_eq(o.status, 0);
    tu_output_free(&o);
    char *j = tu_read_file(json), *c = tu_read_file(csv);
    const char *db = strstr(j, "\"name\": \"db\"");
    ck_assert_ptr_nonnull(db);
    ck_assert_double_eq(tu_json_number(db, "attempts"),
                        tu_csv_sum(c, "db.attempts"));
    ck_assert_double_eq(tu_json_number(db, "calls"),
                        tu_csv_sum(c, "api.attempts"));
    ck_assert_double_eq(tu_json_number(j, "offered"),
                        tu_csv_sum(c, "front.calls"));
    free(j);
    free(c);
    tu_stormbench(&o, (const char *[]){
                          "run", TU_SOURCE("scenarios/retry-storm.ini"),
                          "--set", "scenario.duration=30s", "--no-timing", "-q",
                          "--no-expect", "--json", json, "--csv", csv, NULL});
    ck_assert_int_eq(o.status, 0);
    tu_output_free(&o);
    j = tu_read_file(json);
    c = tu_read_file(csv);
    ck_assert_ptr_null(strstr(j, "\"tiers\""));
    ck_assert_ptr_null(strchr(strtok(c, "\n"), '.'));
    free(j);
    free(c);
}
END_TEST

/* The GUI's "save as scenario" (scenarios/writer.h) keeps the chain: the
 * file it writes loads into the same tiers, policies and targets. */
START_TEST(a_written_chain_loads_back_the_same)
{
    static scenario a, b;
    sb_err e;
    ck_assert_int_eq(
        scenario_load(TU_SOURCE("scenarios/tier-amplification.ini"),
                      (const char *[]){"policy.api.processes=4",
                                       "policy.front."
                                       "propagate_deadline=yes"},
                      2, &a, &e),
        0);
    char path[1024];
    snprintf(path, sizeof path, "%s", tu_temp_path("chain-written.ini"));
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    writer_extra x = {NULL, a.policy, a.settings, a.n_settings, NULL,
                      0,    NULL,     0,          NULL};
    ck_assert_int_eq(scenario_write(f, &a.cfg, &x, &e), 0);
    fclose(f);
    ck_assert_msg(scenario_load(path, NULL, 0, &b, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(b.cfg.n_tiers, 3);
    for (uint32_t i = 0; i < 3; i++) {
        const tier_cfg *p = &a.cfg.tiers[i], *q = &b.cfg.tiers[i];
        ck_assert_str_eq(p->name, q->name);
        if (i > 0)
            ck_assert_int_eq(memcmp(&p->server, &q->server, sizeof p->server),
                             0);
        ck_assert_str_eq(p->policy, q->policy);
        ck_assert_int_eq(p->timeout_ns, q->timeout_ns);
        ck_assert_uint_eq(p->processes, q->processes);
        ck_assert(p->propagate_deadline == q->propagate_deadline);
        ck_assert_uint_eq(p->n_settings, q->n_settings);
        for (uint32_t k = 0; k < p->n_settings; k++)
            ck_assert_str_eq(p->settings[k].value, q->settings[k].value);
        /* [expect.NAME] too (the fuzzer's round trip found it dropped). */
        ck_assert_int_eq(
            memcmp(p->has_expect, q->has_expect, sizeof p->has_expect), 0);
        ck_assert_int_eq(memcmp(p->expect, q->expect, sizeof p->expect), 0);
    }
    int with_expect = 0;
    for (uint32_t i = 0; i < 3; i++)
        for (int k = 0; k < TIER_EXPECT_KINDS; k++)
            with_expect += a.cfg.tiers[i].has_expect[k];
    ck_assert_int_gt(with_expect, 0); /* the file has some to lose */
    ck_assert_uint_eq(b.cfg.tiers[1].processes, 4);
    ck_assert(b.cfg.tiers[0].propagate_deadline);
    ck_assert_uint_eq(b.cfg.faults[0].tier, 2); /* target = db */
    ck_assert_int_eq(memcmp(&a.cfg.server, &b.cfg.server, sizeof a.cfg.server),
                     0);
}
END_TEST

/* A single server may be named ([server] name) without a chain: the
 * name is not kept, so the written file loads into the same config byte
 * for byte (the fuzzer's round trip found the name kept and the writer,
 * rightly, not writing it). */
START_TEST(a_named_single_server_round_trips)
{
    static scenario a, b;
    sb_err e;
    const char *path = tu_write_temp("named-single.ini",
                                     "[scenario]\nname = t\nduration = 60s\n"
                                     "[clients]\ncount = 10\nrate = 1/s\n"
                                     "[server]\nname = front\n");
    ck_assert_msg(scenario_load(path, NULL, 0, &a, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(a.cfg.n_tiers, 0);
    char out[1024];
    snprintf(out, sizeof out, "%s", tu_temp_path("named-single-w.ini"));
    FILE *f = fopen(out, "w");
    ck_assert_ptr_nonnull(f);
    writer_extra x = {NULL, a.policy, a.settings, a.n_settings, NULL,
                      0,    NULL,     0,          NULL};
    ck_assert_int_eq(scenario_write(f, &a.cfg, &x, &e), 0);
    fclose(f);
    ck_assert_msg(scenario_load(out, NULL, 0, &b, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(memcmp(&a.cfg, &b.cfg, sizeof a.cfg), 0);
}
END_TEST

/* A tier's utilization limits are shares like [expect]'s: "80%" is 0.8,
 * and 0.25 reads as before. */
START_TEST(tier_utilization_takes_a_percentage)
{
    static scenario sc;
    sb_err e;
    const char *path = tu_write_temp("chain-util-pct.ini",
                                     "[scenario]\nname = t\nduration = 60s\n"
                                     "[clients]\ncount = 10\nrate = 1/s\n"
                                     "[server]\nworkers = 2\ndownstream = db\n"
                                     "[server.db]\n[expect.db]\n"
                                     "utilization_max = 80%\n"
                                     "utilization_min = 0.25\n");
    ck_assert_msg(scenario_load(path, NULL, 0, &sc, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(sc.cfg.n_tiers, 2);
    const tier_cfg *db = &sc.cfg.tiers[1];
    ck_assert(db->has_expect[TIER_EXPECT_UTILIZATION_MAX]);
    ck_assert_double_eq(db->expect[TIER_EXPECT_UTILIZATION_MAX], 0.8);
    ck_assert_double_eq(db->expect[TIER_EXPECT_UTILIZATION_MIN], 0.25);
}
END_TEST

/* ---- The loader's refusals --------------------------------------------- */

#define TOP                                                                    \
    "[scenario]\nname = t\nduration = 60s\n"                                   \
    "[clients]\ncount = 10\nrate = 1/s\n"                                      \
    "[server]\nworkers = 2\n"

typedef struct bad_chain {
    const char *name, *ini, *message; /* %s: the file */
} bad_chain;

/* Lines: 1 [scenario] 2 name 3 duration 4 [clients] 5 count 6 rate
 * 7 [server] 8 workers 9 ... */
static const bad_chain bad_chains[] = {
    {"unknown-downstream", TOP "downstream = db\n",
     "%s:9: [server] downstream: expected the name of a tier, but there is "
     "no [server.db] section, got 'db'"},
    {"cycle",
     TOP "downstream = a\n[server.a]\ndownstream = b\n[server.b]\n"
         "downstream = a\n",
     "%s:13: [server.b] downstream: 'a' makes a cycle: top -> a -> b -> a; "
     "a chain ends at a tier without a downstream"},
    {"cycle-to-top",
     TOP "name = web\ndownstream = a\n[server.a]\ndownstream = web\n",
     "%s:12: [server.a] downstream: 'web' makes a cycle: web -> a -> web; a "
     "chain ends at a tier without a downstream"},
    {"unreached-tier", TOP "[server.db]\nworkers = 2\n",
     "%s:9: [server.db] is not part of the service chain: no tier reached "
     "from [server] has downstream = db"},
    {"policy-without-tier",
     TOP "downstream = db\n[server.db]\n[policy.dbb]\nname = immediate\n",
     "%s:11: [policy.dbb] is the policy of tier 'dbb''s calls, but there is "
     "no such tier; expected [policy.NAME] for a tier [server.NAME] (or the "
     "top's [server] name) that has a downstream"},
    {"policy-of-the-bottom",
     TOP "downstream = db\n[server.db]\n[policy.db]\nname = immediate\n",
     "%s:11: [policy.db]: tier 'db' has no downstream, so it makes no calls "
     "for a policy to drive"},
    {"caller-unlimited",
     "[scenario]\nname = t\nduration = 60s\n[server]\nworkers = unlimited\n"
     "downstream = db\n[server.db]\n",
     "%s:5: [server] workers: a tier that calls a downstream needs a finite "
     "number of workers: they make its calls and are held while a call is "
     "in progress"},
    {"tier-key-typo", TOP "downstream = db\n[server.db]\nworkerz = 3\n",
     "%s:11: [server.db] unknown key 'workerz' (did you mean 'workers'?); "
     "known keys: model, occ, read_service, workers, queue_limit, overflow, "
     "queue_order, retry_after, service, degradation, degradation_knee, "
     "network_delay, rate_limit, rate_limit_burst, drop_expired, drop_late, "
     "idempotency, dedupe_answer, name, downstream"},
    {"tier-bad-value", TOP "downstream = db\n[server.db]\nworkers = ten\n",
     "%s:11: [server.db] workers: expected a whole number from 1 to "
     "10000000, or 'unlimited', got 'ten'"},
    {"tier-hot-record",
     TOP "downstream = db\n[server.db]\nmodel = hot_record\n",
     "%s:11: [server.db] model: a tier below the top must use model = queue "
     "(the hot-record model is for [server] only, yet)"},
    {"tier-name-key", TOP "downstream = db\n[server.db]\nname = x\n",
     "%s:11: [server.db] name: a tier's name is the one in its section "
     "header; only the top [server] takes a name"},
    {"tier-policy-timeout",
     TOP "downstream = db\n[server.db]\n[policy.top]\ntimeout = 0s\n",
     "%s:12: [policy.top] timeout: expected a positive duration, got '0s'"},
    {"tier-policy-processes",
     TOP "downstream = db\n[server.db]\n[policy.top]\nprocesses = 3\n",
     "%s:12: [policy.top] processes: expected at most the tier's workers (2) "
     "processes, got 3: a process holds at least one worker"},
    {"fault-unknown-target",
     TOP "downstream = db\n[server.db]\n[fault.x]\ntype = outage\n"
         "start = 20s\nduration = 5s\ntarget = dbb\n",
     "%s:15: [fault.x] target: expected the name of a tier of the chain top "
     "-> db, got 'dbb'"},
    {"fault-target-single",
     TOP "[fault.x]\ntype = outage\nstart = 20s\nduration = 5s\n"
         "target = db\n",
     "%s:13: [fault.x] target: expected the name of a tier; this scenario "
     "has one server, 'top', got 'db'"},
    {"expect-no-tier",
     TOP "downstream = db\n[server.db]\n[expect.dbb]\n"
         "amplification_max = 3\n",
     "%s:11: [expect.dbb] holds assertions about tier 'dbb', but there is "
     "no such tier in the service chain"},
    {"expect-single-server", TOP "[expect.top]\namplification_max = 3\n",
     "%s:10: [expect.top] amplification_max: [expect.NAME] holds assertions "
     "about a tier of a service chain, and this scenario has one server: "
     "use [expect]"},
    {"expect-tier-key-typo",
     TOP "downstream = db\n[server.db]\n[expect.db]\n"
         "amplification_mx = 3\n",
     "%s:12: [expect.db] unknown key 'amplification_mx' (did you mean "
     "'amplification_max'?); known keys: amplification_min, "
     "amplification_max, utilization_min, utilization_max"},
    {"expect-tier-utilization",
     TOP "downstream = db\n[server.db]\n[expect.db]\n"
         "utilization_max = 2\n",
     "%s:12: [expect.db] utilization_max: expected a share between 0 and 1, "
     "or a percentage from 0%% to 100%%, got '2'"},
    {"expect-tier-utilization-percent",
     TOP "downstream = db\n[server.db]\n[expect.db]\n"
         "utilization_min = 150%\n",
     "%s:12: [expect.db] utilization_min: expected a share between 0 and 1, "
     "or a percentage from 0%% to 100%%, got '150%%'"},
    {"fault-target-client-side",
     TOP "downstream = db\n[server.db]\n[fault.x]\ntype = load_spike\n"
         "multiplier = 2\nstart = 20s\nduration = 5s\ntarget = db\n",
     "%s:16: [fault.x] target: does not apply to a fault of type "
     "'load_spike'"},
};

START_TEST(bad_chains_are_refused_by_line)
{
    const bad_chain *c = &bad_chains[_i];
    char file[64];
    snprintf(file, sizeof file, "chain-%s.ini", c->name);
    char path[1024];
    snprintf(path, sizeof path, "%s", tu_write_temp(file, c->ini));
    static scenario sc;
    sb_err e;
    ck_assert_msg(scenario_load(path, NULL, 0, &sc, &e) != 0, "%s: loaded",
                  c->name);
    char want[2048];
    snprintf(want, sizeof want, c->message, path);
    ck_assert_str_eq(e.msg, want);
}
END_TEST

/* A hedge layer in a tier's stack is refused when the run is built (its
 * timer would be ignored), naming where the stack was written. */
START_TEST(a_tier_cannot_hedge_yet)
{
    const char *path = tu_write_temp(
        "chain-hedge.ini", TOP "downstream = db\n[server.db]\n"
                               "[policy.top]\nname = exponential+hedge\n");
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    tu_output o;
    tu_stormbench(&o, (const char *[]){"run", p, "-q", NULL});
    ck_assert_int_eq(o.status, 2);
    char want[1200];
    snprintf(want, sizeof want,
             "%s:12: [policy.top] name: the calls of "
             "tier 'top' cannot hedge yet",
             p);
    ck_assert_msg(strstr(o.err, want) != NULL, "%s", o.err);
    tu_output_free(&o);
}
END_TEST

/* A tier's policy parameters are checked by its stack, named by the
 * line that wrote them, by `validate` (which builds every stack to cost
 * the run) as by `run`. */
START_TEST(a_bad_tier_parameter_is_named)
{
    const char *path =
        tu_write_temp("chain-param.ini", TOP "downstream = db\n[server.db]\n"
                                             "[policy.top]\nname = immediate\n"
                                             "bogus = 3\n");
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    char want[1200];
    snprintf(want, sizeof want,
             "%s:13: [policy.top] bogus: policy "
             "'immediate' has no such parameter; its parameters are: "
             "max_attempts",
             p);
    const char *cmds[2][4] = {{"validate", p, NULL}, {"run", p, "-q", NULL}};
    for (int k = 0; k < 2; k++) {
        tu_output o;
        tu_stormbench(&o, cmds[k]);
        ck_assert_int_eq(o.status, 2);
        ck_assert_msg(strstr(o.err, want) != NULL, "%s: %s", cmds[k][0], o.err);
        tu_output_free(&o);
    }
}
END_TEST

/* --set reaches a tier's keys, and a tier's policy parameters reach its
 * stack (a bad one is refused when the run is built, by its origin). */
START_TEST(set_reaches_tiers)
{
    const char *path =
        tu_write_temp("chain-set.ini", TOP "downstream = db\n[server.db]\n"
                                           "[policy.top]\nname = immediate\n");
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    static scenario sc;
    sb_err e;
    const char *sets[] = {"server.db.workers=7", "policy.top.max_attempts=3"};
    ck_assert_int_eq(scenario_load(p, sets, 2, &sc, &e), 0);
    ck_assert_uint_eq(sc.cfg.n_tiers, 2);
    ck_assert_uint_eq(sc.cfg.tiers[1].server.workers, 7);
    ck_assert_uint_eq(sc.cfg.tiers[0].n_settings, 1);
    ck_assert_str_eq(sc.cfg.tiers[0].settings[0].key, "max_attempts");
    /* Another stack by --set: the file's parameters were written for
     * immediate, and are left out (none has no max_attempts). */
    const char *other[] = {"policy.top.name=none"};
    const char *p2 =
        tu_write_temp("chain-set2.ini", TOP "downstream = db\n[server.db]\n"
                                            "[policy.top]\nname = immediate\n"
                                            "max_attempts = 3\n");
    snprintf(p, sizeof p, "%s", p2);
    ck_assert_int_eq(scenario_load(p, other, 1, &sc, &e), 0);
    ck_assert_str_eq(sc.cfg.tiers[0].policy, "none");
    ck_assert_uint_eq(sc.cfg.tiers[0].n_settings, 0);
}
END_TEST

Suite *tiers_suite(void)
{
    Suite *s = suite_create("tiers");
    TCase *tc = tcase_create("chain");
    tcase_add_test(tc, retries_multiply_through_tiers);
    tcase_add_test(tc, retrying_only_at_the_top_is_linear);
    tcase_add_test(tc, retrying_in_the_middle_only);
    tcase_add_test(tc, held_workers_obey_littles_law);
    tcase_add_test(tc, slow_database_starves_the_front_end);
    tcase_add_test(tc, a_free_downstream_changes_nothing_at_the_top);
    tcase_add_test(tc, a_call_that_times_out_answers_after_its_attempts);
    tcase_add_test(tc, an_outage_of_the_caller_ends_its_calls);
    tcase_add_test(tc, shipped_scenario_shows_4_to_the_3);
    tcase_add_test(tc, tier_expectations_fail_by_name);
    tcase_add_test(tc, slow_database_scenario_holds_front_workers);
    tcase_add_test(tc, propagated_deadlines_free_the_held_workers);
    tcase_add_test(tc, outputs_carry_the_tiers_only_with_a_chain);
    tcase_add_test(tc, load_budget_counts_the_tiers);
    tcase_add_test(tc, a_chain_run_is_deterministic);
    tcase_add_test(tc, a_written_chain_loads_back_the_same);
    tcase_add_test(tc, a_named_single_server_round_trips);
    tcase_add_test(tc, tier_utilization_takes_a_percentage);
    tcase_add_loop_test(tc, bad_chains_are_refused_by_line, 0,
                        (int)(sizeof bad_chains / sizeof *bad_chains));
    tcase_add_test(tc, set_reaches_tiers);
    tcase_add_test(tc, a_tier_cannot_hedge_yet);
    tcase_add_test(tc, a_bad_tier_parameter_is_named);
    suite_add_tcase(s, tc);
    return s;
}
