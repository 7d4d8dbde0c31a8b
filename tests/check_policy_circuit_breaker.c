/*
 * check_policy_circuit_breaker.c -- the breaker's state machine: closed
 * -> open after `threshold` consecutive failures, open refuses for the
 * cooldown, half-open lets one probe through, a good probe closes it, a
 * bad one reopens it for a longer cooldown; window mode with count and
 * time windows and slow calls; and the effect a run must show (during an
 * outage every client's breaker is open and requests are refused
 * locally; after it, the breakers close).
 */
#include "policy_harness.h"

static ph *h;

static void teardown(void)
{
    ph_free(h);
    h = NULL;
}

/* A new request whose first attempt is sent (if the breaker allows) and
 * fails with kind/status; returns whether it was sent. */
static bool request_fails(sb_error_kind kind, int status)
{
    ph_new_request(h);
    sb_attempt a = ph_attempt(h, 1);
    if (!ph_allowed(h, &a))
        return false;
    ph_error(&a, kind, status);
    ph_failure(h, &a);
    ph_end(h, &a, SB_OUTCOME_GAVE_UP);
    return true;
}

static bool request_ok(double latency)
{
    ph_new_request(h);
    sb_attempt a = ph_attempt(h, 1);
    if (!ph_allowed(h, &a))
        return false;
    a.latency_s = latency;
    ph_success(h, &a);
    ph_end(h, &a, SB_OUTCOME_SUCCESS);
    return true;
}

static void failures(int n)
{
    for (int i = 0; i < n; i++)
        ck_assert(request_fails(SB_ERR_HTTP, 503));
}

static bool can_send(void)
{
    ph_new_request(h);
    sb_attempt a = ph_attempt(h, 1);
    bool ok = ph_allowed(h, &a);
    if (ok) /* give a probe slot back: this request ends unanswered */
        ph_end(h, &a, SB_OUTCOME_GAVE_UP);
    return ok;
}

/* ---- Consecutive mode (defaults: 5 failures, 60 s, 1 probe) ---------- */

/* Four failures in a row leave it closed and each failure passes; the
 * fifth opens it: that failure gives up (a retry would be refused), the
 * host hears "open" once, and the next send is refused. */
START_TEST(opens_after_threshold_consecutive_failures)
{
    h = ph_create("exponential+circuit_breaker", NULL, 0);
    ph_fill(h, 0.5);
    for (int i = 0; i < 4; i++) {
        ph_new_request(h);
        ck_assert_int_eq(ph_fail(h, 1, SB_ERR_TIMEOUT, 0).action, SB_RETRY);
    }
    ck_assert_int_eq(h->opened, 0);
    ph_new_request(h);
    sb_decision d = ph_fail(h, 1, SB_ERR_TIMEOUT, 0);
    ck_assert_int_eq(d.action, SB_GIVE_UP);
    ck_assert_str_eq(d.reason, "circuit_breaker: open");
    ck_assert_int_eq(h->opened, 1);
    ck_assert(!can_send());
}
END_TEST

/* A success resets the count (4 + ok + 4 stays closed); so does an
 * answer that shows a working server (404), which is not a failure: 4 +
 * 404 + 4 stays closed, and one more failure, the 5th in a row, opens. */
START_TEST(success_and_client_errors_reset_the_count)
{
    h = ph_create("circuit_breaker", NULL, 0);
    failures(4);
    ck_assert(request_ok(0.01));
    failures(4);
    ck_assert(request_fails(SB_ERR_HTTP, 404));
    failures(4);
    ck_assert(can_send());
    ck_assert_int_eq(h->opened, 0);
    failures(1);
    ck_assert(!can_send());
    ck_assert_int_eq(h->opened, 1);
}
END_TEST

/* Opened at t = 0: refused at 59.999 s; at 60 s one probe goes out and a
 * second attempt is refused while it is in flight; the probe succeeds:
 * closed, the host hears "closed", sends flow again. */
START_TEST(open_refuses_then_half_open_probe_closes)
{
    h = ph_create("circuit_breaker", NULL, 0);
    failures(5);
    h->now = 59.999;
    ck_assert(!can_send());
    h->now = 60.0;
    ph_use(h, 1);
    ph_new_request(h);
    sb_attempt probe = ph_attempt(h, 1);
    ck_assert(ph_allowed(h, &probe));
    ph_use(h, 2);
    ck_assert(!can_send());
    ph_use(h, 1);
    probe.latency_s = 0.01;
    ph_success(h, &probe);
    ph_end(h, &probe, SB_OUTCOME_SUCCESS);
    ck_assert_int_eq(h->closed, 1);
    ck_assert(can_send());
    ck_assert(can_send());
}
END_TEST

/* With cooldown_multiplier = 2 (the default before the breaker followed
 * its libraries; no library's) a failed probe reopens it for cooldown x
 * 2: 60 -> 120 -> 240 -> 300 (max_cooldown, not 480).  The host hears
 * "open" only once: half-open counts as open.  After a good probe the
 * next opening is 60 s again. */
START_TEST(failed_probe_extends_the_cooldown)
{
    const char *params[] = {"cooldown_multiplier=2"};
    h = ph_create("circuit_breaker", params, 1);
    failures(5); /* open at 0 until 60 */
    const double cooldowns[] = {120, 240, 300, 300};
    double t = 60.0;
    for (int i = 0; i < 4; i++) {
        h->now = t;
        ck_assert(request_fails(SB_ERR_TIMEOUT, 0)); /* the probe */
        h->now = t + cooldowns[i] - 0.001;
        ck_assert(!can_send());
        t += cooldowns[i];
    }
    ck_assert_int_eq(h->opened, 1);
    h->now = t;
    ck_assert(request_ok(0.01));
    ck_assert_int_eq(h->closed, 1);
    failures(5); /* open again at t, for the base 60 s */
    h->now = t + 59.999;
    ck_assert(!can_send());
    h->now = t + 60.0;
    ck_assert(can_send());
}
END_TEST

/* By default the break duration is constant, as resilience4j's
 * waitDurationInOpenState and Polly's BreakDuration: each failed probe
 * reopens it for 60 s again.  cooldown_growth = linear waits cooldown x
 * (n + 1) after n failed rounds (Envoy's ejection time x ejections): 120,
 * 180, 240, then 300 (max_cooldown) instead of 300 and 360. */
START_TEST(cooldown_constant_by_default_or_linear)
{
    h = ph_create("circuit_breaker", NULL, 0);
    failures(5);
    double t = 60.0;
    for (int i = 0; i < 4; i++) {
        h->now = t;
        ck_assert(request_fails(SB_ERR_TIMEOUT, 0));
        h->now = t + 59.999;
        ck_assert(!can_send());
        t += 60.0;
    }
    ph_free(h);
    const char *params[] = {"cooldown_growth=linear"};
    h = ph_create("circuit_breaker", params, 1);
    h->now = 0;
    failures(5);
    const double cooldowns[] = {120, 180, 240, 300, 300};
    t = 60.0;
    for (int i = 0; i < 5; i++) {
        h->now = t;
        ck_assert(request_fails(SB_ERR_TIMEOUT, 0));
        h->now = t + cooldowns[i] - 0.001;
        ck_assert(!can_send());
        h->now = t + cooldowns[i];
        ck_assert(can_send());
        t += cooldowns[i];
    }
}
END_TEST

/* Answers to attempts sent while closed that arrive while open change
 * nothing (no extension); a probe whose request ends unanswered gives its
 * slot back, so the breaker does not stay half-open forever. */
START_TEST(stale_answers_ignored_and_lost_probes_released)
{
    h = ph_create("circuit_breaker", NULL, 0);
    ph_use(h, 9);
    ph_new_request(h);
    sb_attempt late = ph_attempt(h, 1);
    ck_assert(ph_allowed(h, &late)); /* sent while closed */
    ph_use(h, 0);
    failures(5); /* open until 60 */
    ph_use(h, 9);
    h->now = 30.0;
    ph_error(&late, SB_ERR_TIMEOUT, 0);
    ph_stamp(h, &late);
    ph_failure(h, &late); /* stale: no new cooldown */
    ph_use(h, 0);
    h->now = 60.0;
    ck_assert(can_send()); /* the probe; its request ends, slot back */
    ck_assert(can_send()); /* so another probe may go */
}
END_TEST

/* probes = 2: two probes go out, a third is refused; one success is not
 * enough to close, the second closes. */
START_TEST(several_probes_must_all_succeed)
{
    const char *params[] = {"probes=2"};
    h = ph_create("circuit_breaker", params, 1);
    failures(5);
    h->now = 60.0;
    sb_attempt p[2];
    for (int i = 0; i < 2; i++) {
        ph_use(h, i + 1);
        ph_new_request(h);
        p[i] = ph_attempt(h, 1);
        ck_assert(ph_allowed(h, &p[i]));
    }
    ph_use(h, 5);
    ck_assert(!can_send());
    ph_use(h, 1);
    ph_success(h, &p[0]);
    ck_assert_int_eq(h->closed, 0);
    ph_use(h, 2);
    ph_success(h, &p[1]);
    ck_assert_int_eq(h->closed, 1);
}
END_TEST

/* ---- Window mode ------------------------------------------------------- */

/* Count window of 10 calls, min_calls 10, ratio 0.5.  9 failures: not
 * enough calls yet.  The 10th call, a success, makes 9/10 >= 0.5: open. */
START_TEST(count_window_needs_min_calls)
{
    const char *params[] = {"mode=window", "window_size=10", "min_calls=10"};
    h = ph_create("circuit_breaker", params, 3);
    failures(9);
    ck_assert(can_send());
    ck_assert(request_ok(0.01));
    ck_assert(!can_send());
}
END_TEST

/* The window slides: 10 successes, then failures push them out one by
 * one: 4 failures make 4/10 (closed), the 5th makes 5/10 = 0.5 (open).
 * The ratio is compared as failed/calls so 0.3 x 10 does not miss 3/10:
 * with failure_ratio 0.3, 3 failures in 10 open it. */
START_TEST(count_window_slides_and_opens_at_the_ratio)
{
    const char *params[] = {"mode=window", "window_size=10", "min_calls=10"};
    h = ph_create("circuit_breaker", params, 3);
    for (int i = 0; i < 10; i++)
        ck_assert(request_ok(0.01));
    failures(4);
    ck_assert(can_send());
    failures(1);
    ck_assert(!can_send());
    ph_free(h);
    const char *p2[] = {"mode=window", "window_size=10", "min_calls=10",
                        "failure_ratio=0.3"};
    h = ph_create("circuit_breaker", p2, 4);
    for (int i = 0; i < 7; i++)
        ck_assert(request_ok(0.01));
    failures(2);
    ck_assert(can_send());
    failures(1);
    ck_assert(!can_send());
}
END_TEST

/* min_calls above window_size is lowered to it (resilience4j): with the
 * defaults' min_calls 100 and window_size 10, 10 failures open it. */
START_TEST(min_calls_capped_by_count_window)
{
    const char *params[] = {"mode=window", "window_size=10"};
    h = ph_create("circuit_breaker", params, 2);
    failures(9);
    ck_assert(can_send());
    failures(1);
    ck_assert(!can_send());
}
END_TEST

/* Slow calls: slower than slow_call_duration (1 s) counts as slow, and a
 * slow ratio >= slow_call_ratio (0.5) opens it even when all succeed:
 * 5 slow of 10.  A call of exactly 1 s is not slower than 1 s. */
START_TEST(slow_calls_open_it)
{
    const char *params[] = {"mode=window", "window_size=10", "min_calls=10",
                            "slow_call_duration=1s", "slow_call_ratio=0.5"};
    h = ph_create("circuit_breaker", params, 5);
    for (int i = 0; i < 5; i++)
        ck_assert(request_ok(1.0));
    for (int i = 0; i < 4; i++)
        ck_assert(request_ok(2.0));
    ck_assert(request_ok(0.1));
    ck_assert(can_send()); /* 4 slow of 10 */
    ck_assert(request_ok(2.0));
    ck_assert(!can_send()); /* 5 slow of 10 */
}
END_TEST

/* Time window of 10 s (10 slices of 1 s), min_calls 4: 3 failures at
 * t = 0 are gone by t = 10, so 1 failure + 1 success then are 2 calls,
 * below min_calls: closed.  Within the window, 2 failures + 2 successes
 * are 2/4 = 0.5: open. */
START_TEST(time_window_forgets_old_calls)
{
    const char *params[] = {"mode=window", "window_type=time",
                            "window_duration=10s", "min_calls=4"};
    h = ph_create("circuit_breaker", params, 4);
    failures(3);
    h->now = 10.0;
    failures(1);
    ck_assert(request_ok(0.01));
    ck_assert(can_send());
    ck_assert(request_ok(0.01));
    ck_assert(can_send()); /* 1 of 3 in the window */
    failures(1);
    ck_assert(!can_send()); /* 2 of 4 */
}
END_TEST

/* Window-mode defaults (resilience4j's: a count window of 100 calls,
 * at least 100 calls, 50 % failures; slow = over 60 s, 100 % slow).
 * 99 failures: too few calls.  100 calls with 49 failures: closed; the
 * next failure pushes out a success: 50 of 100, open. */
START_TEST(window_defaults_are_resilience4js)
{
    const char *params[] = {"mode=window"};
    h = ph_create("circuit_breaker", params, 1);
    failures(99);
    ck_assert(can_send());
    ph_free(h);
    h = ph_create("circuit_breaker", params, 1);
    for (int i = 0; i < 51; i++)
        ck_assert(request_ok(0.01));
    failures(49);
    ck_assert(can_send());
    failures(1);
    ck_assert(!can_send());
    ph_free(h);
    /* Slow: 60 s is not over 60 s; 99 calls of 61 s and one of 60 s are
     * 99 % slow, not 100 %; one more of 61 s makes 100 of 100. */
    h = ph_create("circuit_breaker", params, 1);
    ck_assert(request_ok(60.0));
    for (int i = 0; i < 99; i++)
        ck_assert(request_ok(61.0));
    ck_assert(can_send());
    ck_assert(request_ok(61.0));
    ck_assert(!can_send());
}
END_TEST

/* The time window's default is Polly's 30 s sampling duration (10
 * slices of 3 s): 60 failures at t = 0 are still there at 29.9 s -- 40
 * successes then make 60 of 100, and the next failure 61 of 101, open
 * -- and gone at 30 s.  As Polly v8 (AdvancedCircuitBehavior) the ratio
 * is checked when a failure is recorded: the 100th call, a success,
 * does not open it although 60 of 100 failed. */
START_TEST(time_window_default_is_30s)
{
    const char *params[] = {"mode=window", "window_type=time"};
    h = ph_create("circuit_breaker", params, 2);
    failures(60);
    h->now = 30.0;
    for (int i = 0; i < 40; i++)
        ck_assert(request_ok(0.01));
    ck_assert(can_send()); /* 40 calls, all good */
    ph_free(h);
    h = ph_create("circuit_breaker", params, 2);
    failures(60);
    h->now = 29.9;
    for (int i = 0; i < 39; i++)
        ck_assert(request_ok(0.01));
    ck_assert(can_send()); /* 99 calls: below min_calls */
    ck_assert(request_ok(0.01));
    ck_assert(can_send()); /* 60 of 100, but a success checks nothing */
    failures(1);
    ck_assert(!can_send()); /* 61 of 101 */
}
END_TEST

/* max_cooldown below cooldown is refused. */
START_TEST(max_cooldown_below_cooldown_is_an_error)
{
    const char *params[] = {"cooldown=60s", "max_cooldown=30s"};
    const char *msg = ph_build_error("circuit_breaker", params, 2);
    ck_assert_msg(strstr(msg, "max_cooldown (30s) must be at least "
                              "cooldown (60s)"),
                  "got: %s", msg);
}
END_TEST

/* ---- References: three libraries' state machines, call by call ---------
 *
 * Calls come one at a time (each answered before the next goes), at
 * times and with outcomes drawn from a fixed sequence whose failure
 * share moves through phases, so the breakers open, probe, reopen and
 * close again and again.  For every call the breaker's "may I send?" is
 * compared with the library's, re-implemented below from its source. */
static uint64_t lcg_state;

static uint32_t lcg(uint32_t n)
{
    lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((lcg_state >> 33) % n);
}

/* One call at h->now: sent if the breaker allows, then failed (503) or
 * succeeded with this latency.  Returns whether it was sent. */
static bool call(bool fail, double latency)
{
    ph_new_request(h);
    sb_attempt a = ph_attempt(h, 1);
    if (!ph_allowed(h, &a))
        return false;
    a.latency_s = latency;
    if (fail) {
        ph_error(&a, SB_ERR_HTTP, 503);
        ph_failure(h, &a);
        ph_end(h, &a, SB_OUTCOME_GAVE_UP);
    } else {
        ph_success(h, &a);
        ph_end(h, &a, SB_OUTCOME_SUCCESS);
    }
    return true;
}

static const int fail_pct[] = {5, 80, 20, 100, 0, 60, 10, 90, 30, 50};

/* Polly v7's consecutive-count breaker: App-vNext/Polly
 * src/Polly/CircuitBreaker/ConsecutiveCountCircuitController.cs (commit
 * 00658f51676ae18496547676fba9568e62c21f68): OnActionFailure counts
 * failures in a row while Closed and breaks at exceptionsAllowedBefore
 * Breaking, breaks again on any failure while HalfOpen; OnActionSuccess
 * resets the count while Closed and closes the circuit while HalfOpen.
 * src/Polly/CircuitBreaker/CircuitStateController.cs: Open until
 * durationOfBreak has passed (a constant), then HalfOpen, where one trial
 * call is permitted. */
typedef struct v7_breaker {
    int state; /* 0 closed, 1 open, 2 half-open */
    int failures, threshold;
    double blocked_till, break_s;
    bool trial_out;
} v7_breaker;

static bool v7_permit(v7_breaker *b, double now)
{
    if (b->state == 1 && now >= b->blocked_till) {
        b->state = 2;
        b->trial_out = false;
    }
    if (b->state == 1)
        return false;
    if (b->state == 2) {
        if (b->trial_out)
            return false;
        b->trial_out = true;
    }
    return true;
}

static void v7_result(v7_breaker *b, bool fail, double now)
{
    if (!fail) {
        b->state = 0;
        b->failures = 0;
        return;
    }
    if (b->state == 2 || ++b->failures >= b->threshold) {
        b->state = 1;
        b->blocked_till = now + b->break_s;
        b->failures = 0;
    }
}

START_TEST(reference_polly_v7_consecutive)
{
    const char *params[] = {"threshold=3", "cooldown=7s"};
    h = ph_create("circuit_breaker", params, 2);
    v7_breaker b = {0, 0, 3, 0.0, 7.0, false};
    int calls = 0, refused = 0, opened = 0;
    lcg_state = 3;
    for (int phase = 0; phase < 10; phase++)
        for (int i = 0; i < 60; i++) {
            h->now += 0.25 * (1 + lcg(8));
            bool fail = (int)lcg(100) < fail_pct[phase];
            bool want = v7_permit(&b, h->now);
            int was = b.state;
            bool sent = call(fail, 0.01);
            ck_assert_msg(sent == want,
                          "phase %d call %d at %.2f s: Polly "
                          "%s, circuit_breaker %s",
                          phase, i, h->now, want ? "permits" : "refuses",
                          sent ? "permits" : "refuses");
            if (want)
                v7_result(&b, fail, h->now);
            calls++;
            refused += !want;
            opened += was != 1 && b.state == 1;
        }
    ck_assert_int_ge(calls, 600);
    ck_assert_int_ge(refused, 100);
    ck_assert_int_ge(opened, 20);
}
END_TEST

/* resilience4j, count-based: resilience4j/resilience4j
 * resilience4j-circuitbreaker/src/main/java/io/github/resilience4j/
 * circuitbreaker/internal/CircuitBreakerMetrics.java (commit
 * 06b25fbd39261376d85344be3b9f95e9de75007c): onSuccess/onError record
 * SLOW_ outcomes when the duration is over slowCallDurationThreshold,
 * then checkIfThresholdsExceeded -- below minimumNumberOfCalls (min of the
 * configured one and the window size) nothing, else failure rate (in
 * float percent) >= failureRateThreshold or slow-call rate >=
 * slowCallRateThreshold; forHalfOpen: a count window of
 * permittedNumberOfCallsInHalfOpenState calls.  CircuitBreakerStateMachine
 * .java: CLOSED opens when a threshold is exceeded; OPEN permits nothing
 * until waitDurationInOpenState, then the next call moves it to
 * HALF_OPEN, which permits that many calls; above a threshold it opens,
 * below it closes with fresh metrics.  core/metrics/
 * FixedSizeSlidingWindowMetrics.java: the last windowSize outcomes. */
typedef struct r4j_window {
    int size, min_calls, n, next;
    int failed, slow;
    unsigned char out[32]; /* bit 0 failed, bit 1 slow */
} r4j_window;

static void r4j_reset(r4j_window *w, int size, int min_calls)
{
    memset(w, 0, sizeof *w);
    w->size = size;
    w->min_calls = min_calls < size ? min_calls : size;
}

/* Record; returns 1 above a threshold, 0 below, -1 below the minimum. */
static int r4j_record(r4j_window *w, bool fail, bool slow, float fail_thr,
                      float slow_thr)
{
    if (w->n == w->size) {
        w->failed -= w->out[w->next] & 1;
        w->slow -= (w->out[w->next] >> 1) & 1;
    } else {
        w->n++;
    }
    w->out[w->next] = (unsigned char)(fail | slow << 1);
    w->failed += fail;
    w->slow += slow;
    w->next = (w->next + 1) % w->size;
    if (w->n == 0 || w->n < w->min_calls)
        return -1;
    float failure_rate = (float)w->failed * 100.0f / (float)w->n;
    float slow_rate = (float)w->slow * 100.0f / (float)w->n;
    return failure_rate >= fail_thr || slow_rate >= slow_thr;
}

START_TEST(reference_resilience4j_count_window)
{
    const char *params[] = {
        "mode=window",       "window_size=12",        "min_calls=8",
        "failure_ratio=0.5", "slow_call_duration=2s", "slow_call_ratio=0.75",
        "probes=4",          "cooldown=10s"};
    h = ph_create("circuit_breaker", params, 8);
    enum { CLOSED, OPEN, HALF_OPEN } state = CLOSED;
    r4j_window w;
    r4j_reset(&w, 12, 8);
    int permitted = 0, calls = 0, refused = 0, opened = 0, closed_again = 0;
    double until = 0;
    lcg_state = 4;
    for (int phase = 0; phase < 10; phase++)
        for (int i = 0; i < 60; i++) {
            h->now += 0.25 * (1 + lcg(8));
            bool fail = (int)lcg(100) < fail_pct[phase];
            double latency = lcg(4) == 0 ? 3.0 : 0.5;
            bool want;
            if (state == OPEN && h->now >= until) {
                state = HALF_OPEN;
                permitted = 4;
                r4j_reset(&w, 4, 8); /* forHalfOpen: min(8, 4) = 4 */
            }
            if (state == OPEN)
                want = false;
            else if (state == HALF_OPEN)
                want = permitted > 0 && permitted-- > 0;
            else
                want = true;
            bool sent = call(fail, latency);
            ck_assert_msg(sent == want,
                          "phase %d call %d at %.2f s: "
                          "resilience4j %s, circuit_breaker %s",
                          phase, i, h->now, want ? "permits" : "refuses",
                          sent ? "permits" : "refuses");
            calls++;
            refused += !want;
            if (!want)
                continue;
            int r = r4j_record(&w, fail, latency > 2.0, 50.0f, 75.0f);
            if (r == 1) {
                state = OPEN;
                until = h->now + 10.0;
                opened++;
            } else if (r == 0 && state == HALF_OPEN) {
                state = CLOSED;
                r4j_reset(&w, 12, 8);
                closed_again++;
            }
        }
    ck_assert_int_ge(calls, 600);
    ck_assert_int_ge(refused, 100);
    ck_assert_int_ge(opened, 10);
    ck_assert_int_ge(closed_again, 5);
}
END_TEST

/* Polly v8's advanced breaker over a time window: App-vNext/Polly
 * src/Polly.Core/CircuitBreaker/Health/RollingHealthMetrics.cs (commit
 * 13428cc098f863965c41737265597ab2ba5f16d6): 10 windows of
 * SamplingDuration/10, a window starts at the first call after the last
 * one's duration, windows at least SamplingDuration old are dropped;
 * Controller/AdvancedCircuitBehavior.cs: while Closed a failure
 * increments the failures and breaks when throughput >=
 * MinimumThroughput and failure rate >= FailureRatio (a success only
 * counts); OnCircuitClosed resets the metrics.  The half-open state lets
 * one probe through: success closes, failure reopens for BreakDuration.
 * Calls come only at multiples of 3 s, the slice length, so Polly's
 * windows start where stormbench's aligned slices do (window.h). */
typedef struct polly_window {
    double started;
    int ok, failed;
} polly_window;

typedef struct polly_metrics {
    polly_window w[64];
    int head, n; /* a queue */
    int ok, failed;
} polly_metrics;

static void polly_update(polly_metrics *m, double now)
{
    polly_window *cur = m->n ? &m->w[(m->head + m->n - 1) % 64] : NULL;
    if (cur == NULL || now - cur->started >= 3.0) {
        polly_window *nw = &m->w[(m->head + m->n) % 64];
        nw->started = now;
        nw->ok = nw->failed = 0;
        m->n++;
    }
    while (now - m->w[m->head].started >= 30.0) {
        m->ok -= m->w[m->head].ok;
        m->failed -= m->w[m->head].failed;
        m->head = (m->head + 1) % 64;
        m->n--;
    }
}

static void polly_add(polly_metrics *m, double now, bool fail)
{
    polly_update(m, now);
    polly_window *cur = &m->w[(m->head + m->n - 1) % 64];
    if (fail) {
        m->failed++;
        cur->failed++;
    } else {
        m->ok++;
        cur->ok++;
    }
}

START_TEST(reference_polly_v8_time_window)
{
    const char *params[] = {"mode=window",         "window_type=time",
                            "window_duration=30s", "min_calls=10",
                            "failure_ratio=0.3",   "cooldown=5s"};
    h = ph_create("circuit_breaker", params, 6);
    enum { CLOSED, OPEN, HALF_OPEN } state = CLOSED;
    polly_metrics m;
    memset(&m, 0, sizeof m);
    double until = 0;
    int calls = 0, refused = 0, opened = 0;
    lcg_state = 5;
    for (int phase = 0; phase < 10; phase++)
        for (int i = 0; i < 60; i++) {
            if (lcg(3) == 0)
                h->now += 3.0 * (1 + lcg(3));
            bool fail = (int)lcg(100) < fail_pct[phase];
            bool want;
            if (state == OPEN && h->now >= until)
                state = HALF_OPEN;
            if (state == OPEN)
                want = false;
            else if (state == HALF_OPEN)
                want = true; /* the probe: answered before the next call */
            else
                want = true;
            bool sent = call(fail, 0.01);
            ck_assert_msg(sent == want,
                          "phase %d call %d at %.0f s: Polly "
                          "%s, circuit_breaker %s",
                          phase, i, h->now, want ? "permits" : "refuses",
                          sent ? "permits" : "refuses");
            calls++;
            refused += !want;
            if (!want)
                continue;
            if (state == HALF_OPEN) {
                if (fail) {
                    state = OPEN;
                    until = h->now + 5.0;
                } else {
                    state = CLOSED;
                    memset(&m, 0, sizeof m); /* OnCircuitClosed */
                }
                continue;
            }
            polly_add(&m, h->now, fail);
            int throughput = m.ok + m.failed;
            if (fail && throughput >= 10 &&
                (double)m.failed / throughput >= 0.3) {
                state = OPEN;
                until = h->now + 5.0;
                opened++;
            }
        }
    ck_assert_int_ge(calls, 600);
    ck_assert_int_ge(refused, 50);
    ck_assert_int_ge(opened, 5);
}
END_TEST

/* ---- Effect: open breakers and local refusals in an outage -------------
 *
 * 20 clients x 2/s; connections refused from 20 s to 60 s; exponential
 * backoff (5 attempts) with a breaker whose cooldown is 10 s and doubles
 * after a failed probe (cooldown_multiplier = 2).  A client's
 * first failing request alone fails 5 times in a row, so by 25 s every
 * breaker is open and the engine's count of open breakers at each bucket
 * end in [25, 60) is all 20 (half-open counts as open).  Each client then
 * probes after 10 s (fails, 20 s more) and again after 20 s (fails, 40 s
 * more): at most 2 attempts per client in [25, 60), the rest refused
 * locally.  The outage is over when the third probes go out (~90-100 s):
 * they succeed and by 110 s no breaker is open.  Window mode (20 calls,
 * at least 10) opens as surely: 10 failures out-weigh the successes. */
static const char outage_ini[] =
    "[scenario]\nname = outage\nduration = 120s\nwarmup = 10s\n"
    "[clients]\ncount = 20\nrate = 2/s\ntimeout = 1s\n"
    "[server]\nworkers = unlimited\nservice = const(10ms)\n"
    "[policy]\nname = exponential\n"
    "[fault.down]\ntype = outage\nstart = 20s\nduration = 40s\n"
    "mode = refuse\n";

static void check_breakers(tu_sim *t)
{
    ph_window w = ph_sum(t, 25, 60);
    ck_assert_int_eq(w.open_breakers_min, 20);
    ck_assert_double_le(w.attempts, 2 * 20);
    ck_assert_double_ge(w.refused, w.offered - 2 * 20);
    ph_window after = ph_sum(t, 110, 120);
    ck_assert_int_eq(after.open_breakers_max, 0);
    ck_assert_double_eq(after.refused, 0);
}

START_TEST(effect_breakers_open_and_refuse_during_an_outage)
{
    const char *params[] = {"cooldown=10s", "cooldown_multiplier=2"};
    tu_sim *t =
        tu_sim_run(outage_ini, "exponential+circuit_breaker", params, 2);
    check_breakers(t);
    tu_sim_free(t);
    const char *wparams[] = {"cooldown=10s", "mode=window", "window_size=20",
                             "min_calls=10", "cooldown_multiplier=2"};
    t = tu_sim_run(outage_ini, "exponential+circuit_breaker", wparams, 5);
    check_breakers(t);
    tu_sim_free(t);
    t = tu_sim_run(outage_ini, NULL, NULL, 0);
    /* Alone: 5 attempts per request, but for the few whose backoff
     * crosses the window's edges. */
    ck_assert_double_eq_tol(ph_amplification(t, 25, 60), 5.0, 0.05);
    ck_assert_int_eq(ph_sum(t, 25, 60).open_breakers_max, 0);
    tu_sim_free(t);
}
END_TEST

Suite *policy_circuit_breaker_suite(void)
{
    Suite *s = suite_create("policy_circuit_breaker");
    TCase *tc = tcase_create("consecutive");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, opens_after_threshold_consecutive_failures);
    tcase_add_test(tc, success_and_client_errors_reset_the_count);
    tcase_add_test(tc, open_refuses_then_half_open_probe_closes);
    tcase_add_test(tc, failed_probe_extends_the_cooldown);
    tcase_add_test(tc, cooldown_constant_by_default_or_linear);
    tcase_add_test(tc, reference_polly_v7_consecutive);
    tcase_add_test(tc, stale_answers_ignored_and_lost_probes_released);
    tcase_add_test(tc, several_probes_must_all_succeed);
    suite_add_tcase(s, tc);
    TCase *w = tcase_create("window");
    tcase_add_checked_fixture(w, NULL, teardown);
    tcase_add_test(w, count_window_needs_min_calls);
    tcase_add_test(w, count_window_slides_and_opens_at_the_ratio);
    tcase_add_test(w, min_calls_capped_by_count_window);
    tcase_add_test(w, slow_calls_open_it);
    tcase_add_test(w, time_window_forgets_old_calls);
    tcase_add_test(w, max_cooldown_below_cooldown_is_an_error);
    tcase_add_test(w, reference_resilience4j_count_window);
    tcase_add_test(w, reference_polly_v8_time_window);
    tcase_add_test(w, window_defaults_are_resilience4js);
    tcase_add_test(w, time_window_default_is_30s);
    suite_add_tcase(s, w);
    TCase *e = tcase_create("effect");
    tcase_add_test(e, effect_breakers_open_and_refuse_during_an_outage);
    suite_add_tcase(s, e);
    return s;
}
