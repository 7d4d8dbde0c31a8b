/*
 * expect.h -- a scenario's [expect] section: assertions CI checks.
 *
 * Each kind appears at most once.  Evaluation turns a summary into one
 * result per assertion with the measured value and a sentence a user can
 * read in a CI log ("recovers_within 30 s: did not recover: goodput 4 % of
 * baseline over the last 10 s, 60 s after the fault ended").
 */
#ifndef SB_EXPECT_H
#define SB_EXPECT_H

#include <stdbool.h>

#include "config.h"
#include "setting.h"
#include "summary.h"

#define EXPECT_ADDED_ID(f, reduce, in_summary, csv, json, label, compare)      \
    METRICS_IF_##compare(EXPECT_##f, )

typedef enum expect_kind {
    EXPECT_RECOVERS_WITHIN = 0, /* seconds */
    EXPECT_METASTABLE,          /* 0 or 1 */
    EXPECT_AMPLIFICATION_MAX,
    EXPECT_PEAK_AMPLIFICATION_MAX,
    EXPECT_SUCCESS_MIN,       /* a ratio 0..1; every share here may be
                               written as a percentage, "99%" */
    EXPECT_DUPLICATES_MAX,    /* a count */
    EXPECT_LATENCY_P99_MAX,   /* milliseconds */
    EXPECT_UNFINISHED_MAX,    /* share 0..1 of requests started */
    EXPECT_COMPLETION_WITHIN, /* seconds: arrival = once */
    EXPECT_WASTED_MAX,        /* share 0..1 of service time */
    /* Per phase (sim/phases.h): */
    EXPECT_DURING_FAULT_SUCCESS_MIN,   /* ratio 0..1, requests ended */
    EXPECT_RECOVERY_AMPLIFICATION_MAX, /* attempts / offered */
    EXPECT_STEADY_SUCCESS_MIN,         /* ratio 0..1, requests ended */
    EXPECT_STEADY_GOODPUT_MIN,         /* share of baseline goodput, 0..10 */
    EXPECT_STEADY_LATENCY_P99_MAX,     /* milliseconds */
    /* A pipeline's jobs (sim/pipeline.h, sim_summary.pipeline); in a run
     * without a pipeline each fails, "no [pipeline] in this scenario": */
    EXPECT_JOBS_COMPLETED_MIN,    /* share 0..1 of jobs started */
    EXPECT_JOBS_FAILED_MAX,       /* share: failed, compensated or
                                    inconsistent */
    EXPECT_JOBS_WITHIN_SLA_MIN,   /* share: completed by the deadline */
    EXPECT_ALERTS_CRITICAL_MAX,   /* a count */
    EXPECT_ALERTS_WARNING_MAX,    /* a count */
    EXPECT_QUARANTINED_ITEMS_MIN, /* a count */
    EXPECT_QUARANTINED_ITEMS_MAX, /* a count */
    EXPECT_DUPLICATE_ITEMS_MAX,   /* a count */
    EXPECT_STEPS_REDONE_MAX,      /* a count: every step's redone */
    /* The counts sim/metrics.h's table added since that a comparison
     * tests: KEY_max (LOW) or KEY_min (HIGH), KEY its JSON key. */
    METRICS_ADDED(EXPECT_ADDED_ID) EXPECT_KIND_COUNT
} expect_kind;

/* The first of those (EXPECT_KIND_COUNT when there is none). */
#define EXPECT_FIRST_ADDED (EXPECT_STEPS_REDONE_MAX + 1)

typedef struct expect_set {
    bool has[EXPECT_KIND_COUNT];
    double limit[EXPECT_KIND_COUNT];
} expect_set;

typedef struct expect_result {
    expect_kind kind;
    const char *name; /* "recovers_within" */
    const char *unit; /* "s", "ms", "" */
    double limit;
    bool has_value; /* false when it could not be measured */
    double value;
    bool ok;
    char explain[320];
} expect_result;

/* The key as written in a scenario, and back. */
const char *expect_name(expect_kind k);
int expect_parse_name(const char *s, expect_kind *k);

/* Does kind k judge a pipeline's jobs (so fails in a run without one)? */
bool expect_needs_pipeline(expect_kind k);

/* Check a scenario's [expect] keys as written (scenario.expect) and fill
 * set.  Errors name the key's origin: "x.ini:30: [expect] success_min:
 * expected a share between 0 and 1, or a percentage from 0% to 100%, got
 * '150%'". */
int expect_parse(const setting *keys, int n, expect_set *set, sb_err *e);

/* The precision to print a value and its limit with in a verdict:
 * `least` digits (significant with %g, after the point with %f when
 * fixed), more while the two would print the same although they differ,
 * so that no verdict reads "amplification 1 exceeds limit 1" (1.00007
 * against 1). */
int expect_digits(double v, double limit, int least, bool fixed);

/* Why a run with a fault and a baseline could not judge recovery: the
 * last fault outlasts the run, or the run ends less than a recovery
 * window after it.  Written into buf; returns buf. */
const char *expect_too_soon(const sim_summary *s, char *buf, size_t len);

/* Evaluate every assertion in set; returns how many were written to out
 * (out holds EXPECT_KIND_COUNT). */
int expect_eval(const expect_set *set, const sim_summary *sum,
                expect_result *out);

/* The assertions of set that no run of cfg can pass, because what they
 * judge cannot be in the run: recovery without a fault, or without a
 * baseline before it, or without a recovery window after it; a phase the
 * fault schedule leaves out (sim/phases.h); completion time without
 * arrival = once.  expect_eval fails each with "cannot be judged"; this
 * says so before anything runs.  One line per assertion in out ("[expect]
 * recovers_within: the scenario has no fault, ..."); returns how many.
 * A pipeline's keys are not judged here (expect_needs_pipeline). */
int expect_cannot_pass(const expect_set *set, const sim_config *cfg, char *out,
                       size_t len);

#endif
