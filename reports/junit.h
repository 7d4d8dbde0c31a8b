/*
 * junit.h -- [expect] verdicts as JUnit XML: the test report format that
 * Jenkins (the junit step), GitLab (artifacts:reports:junit) and GitHub's
 * test-report actions read, so a scenario's expectations show up in CI as
 * test cases, each failure with its sentence.
 *
 * The document is one <testsuites> holding <testsuite>s, each with a
 * <properties> block and one <testcase> per assertion: passed (empty),
 * <failure> (the assertion failed) or <skipped> (it could not be judged
 * here).  It is valid against the Jenkins/Ant JUnit schema
 * (tests/junit-jenkins.xsd, from which every element and attribute
 * written here is taken).  Text is escaped for XML 1.0: the five markup
 * characters as entities, control characters (not allowed in XML 1.0
 * documents) as spaces, and bytes that are not UTF-8 as '?', so a
 * scenario named in any bytes still gives a well-formed file.
 *
 * No wall clock and no host name are written unless the caller passes a
 * time: the same run gives the same bytes (README "Determinism").
 *
 * Plain values, all borrowed for the call; the writer allocates nothing.
 */
#ifndef SB_JUNIT_H
#define SB_JUNIT_H

#include <stdbool.h>
#include <stdio.h>

#include "compare.h"
#include "expect.h"

typedef enum junit_status {
    JUNIT_PASSED,
    JUNIT_FAILED,
    JUNIT_SKIPPED
} junit_status;

typedef struct junit_case {
    const char *name; /* "recovers_within" */
    junit_status status;
    const char *message; /* one line: the failure's or skip's reason */
    const char *detail;  /* the failure's body, or NULL */
} junit_case;

typedef struct junit_prop {
    const char *name, *value;
} junit_prop;

typedef struct junit_suite {
    const char *name;      /* "retry-storm: exponential, seed 1" */
    const char *classname; /* every case's: "stormbench.retry-storm" */
    const junit_prop *props;
    int n_props;
    const junit_case *cases;
    int n_cases;
    double time_s;          /* wall time; < 0: not written */
    const char *system_out; /* the printed summary, or NULL */
} junit_suite;

/* The whole document: <testsuites name=NAME> with the totals, then each
 * suite. */
void junit_write(FILE *f, const char *name, const junit_suite *suites,
                 int n_suites);

/* r as a case: failed when !r->ok, with r->explain as the message and a
 * body saying the limit and the measured value.  detail is the caller's
 * buffer for that body (len bytes). */
void junit_case_of(const expect_result *r, junit_case *c, char *detail,
                   size_t len);

/* A comparison's verdicts: one suite per sweep point and policy entry,
 * one case per assertion of x, judged on every seed's run (the same
 * expect_eval as `run`, on the saved summary) and failed when any seed
 * failed it; the message says on how many seeds and which, the body has
 * every seed's verdict.  skipped (n_skipped names) are assertions this
 * comparison cannot judge, written as skipped cases with `why`.  -1 when
 * memory runs out. */
int junit_compare(FILE *f, const compare_result *r, const expect_set *x,
                  const char *const *skipped, int n_skipped, const char *why);

/* The JUnit class name of a scenario's runs with one policy entry:
 * "stormbench.SCENARIO.POLICY", each part with every character a report
 * would split or mangle ('.', space, '/') as '_' -- Jenkins splits a
 * class name at its dots: package stormbench.SCENARIO, class POLICY. */
void junit_classname(const char *scenario, const char *policy, char *out,
                     size_t len);

#endif
