/*
 * check_policy_classifier.c -- every row of the classifier's table
 * (classifier.h), one case per status or code, with its confidence.
 */
#include "policy_harness.h"

typedef struct row {
    sb_error_kind kind;
    int status;
    sb_defect defect;
    sb_error_class cls;
    sb_confidence conf;
} row;

#define T SB_CLASS_TRANSIENT
#define P SB_CLASS_PERMANENT
#define D SB_CLASS_DATA_DEFECT
#define U SB_CLASS_UNKNOWN
#define R SB_CLASS_RESOURCE_EXHAUSTION
#define HI SB_CONFIDENCE_HIGH
#define LO SB_CONFIDENCE_LOW

/* The table: HTTP 408/429/502/503/504 transient (high); other 4xx
 * permanent (high), data defects apart; 500 unknown (low), and the rest
 * of 5xx with it; timeouts and connection errors transient; the three
 * transient and five permanent gRPC codes; other gRPC codes unknown.
 * The ABI's resource-exhaustion class (policy.h) for what says so by
 * name: gRPC RESOURCE_EXHAUSTED ("some resource has been exhausted",
 * grpc's statuscodes.md) and HTTP 507 Insufficient Storage (RFC 4918
 * 11.5: the server cannot store what it needs to complete the request). */
static const row rows[] = {
    {SB_ERR_HTTP, 408, 0, T, HI},
    {SB_ERR_HTTP, 429, 0, T, HI},
    {SB_ERR_HTTP, 502, 0, T, HI},
    {SB_ERR_HTTP, 503, 0, T, HI},
    {SB_ERR_HTTP, 504, 0, T, HI},
    {SB_ERR_HTTP, 400, 0, P, HI},
    {SB_ERR_HTTP, 401, 0, P, HI},
    {SB_ERR_HTTP, 402, 0, P, HI},
    {SB_ERR_HTTP, 403, 0, P, HI},
    {SB_ERR_HTTP, 404, 0, P, HI},
    {SB_ERR_HTTP, 409, 0, P, HI},
    {SB_ERR_HTTP, 422, 0, P, HI},
    {SB_ERR_HTTP, 499, 0, P, HI},
    {SB_ERR_HTTP, 422, SB_DEFECT_INVALID_SCHEMA, D, HI},
    {SB_ERR_HTTP, 422, SB_DEFECT_MISSING_FIELD, D, HI},
    {SB_ERR_HTTP, 409, SB_DEFECT_DUPLICATE_BUSINESS_KEY, D, HI},
    {SB_ERR_HTTP, 500, 0, U, LO},
    {SB_ERR_HTTP, 501, 0, U, LO},
    {SB_ERR_HTTP, 505, 0, U, LO},
    {SB_ERR_HTTP, 599, 0, U, LO},
    {SB_ERR_TIMEOUT, 0, 0, T, HI},
    {SB_ERR_REFUSED, 0, 0, T, HI},
    {SB_ERR_RESET, 0, 0, T, HI},
    {SB_ERR_GRPC, SB_GRPC_UNAVAILABLE, 0, T, HI},
    {SB_ERR_GRPC, SB_GRPC_RESOURCE_EXHAUSTED, 0, R, HI},
    {SB_ERR_HTTP, 507, 0, R, HI},
    {SB_ERR_GRPC, SB_GRPC_DEADLINE_EXCEEDED, 0, T, HI},
    {SB_ERR_GRPC, SB_GRPC_ABORTED, 0, T, HI},
    {SB_ERR_GRPC, SB_GRPC_INVALID_ARGUMENT, 0, P, HI},
    {SB_ERR_GRPC, SB_GRPC_NOT_FOUND, 0, P, HI},
    {SB_ERR_GRPC, SB_GRPC_ALREADY_EXISTS, 0, P, HI},
    {SB_ERR_GRPC, SB_GRPC_PERMISSION_DENIED, 0, P, HI},
    {SB_ERR_GRPC, SB_GRPC_UNAUTHENTICATED, 0, P, HI},
    {SB_ERR_GRPC, SB_GRPC_CANCELLED, 0, U, LO},
    {SB_ERR_GRPC, SB_GRPC_UNKNOWN, 0, U, LO},
    {SB_ERR_GRPC, SB_GRPC_FAILED_PRECONDITION, 0, U, LO},
    {SB_ERR_GRPC, SB_GRPC_OUT_OF_RANGE, 0, U, LO},
    {SB_ERR_GRPC, SB_GRPC_UNIMPLEMENTED, 0, U, LO},
    {SB_ERR_GRPC, SB_GRPC_INTERNAL, 0, U, LO},
    {SB_ERR_GRPC, SB_GRPC_DATA_LOSS, 0, U, LO},
    {SB_ERR_NONE, 0, 0, SB_CLASS_NONE, HI},
};

START_TEST(each_row_of_the_table)
{
    const row *r = &rows[_i];
    sb_attempt a;
    memset(&a, 0, sizeof a);
    a.error = r->kind;
    a.status = r->status;
    a.defect = r->defect;
    sb_error_class cls;
    sb_confidence conf;
    classify_error(&a, &cls, &conf);
    ck_assert_msg(cls == r->cls && conf == r->conf,
                  "%s %d defect %s: got %s/%s, expected %s/%s",
                  classify_kind_name(r->kind), r->status,
                  classify_defect_name(r->defect), classify_class_name(cls),
                  conf ? "high" : "low", classify_class_name(r->cls),
                  r->conf ? "high" : "low");
}
END_TEST

/* gRPC names round-trip for all 17 codes, and unknown ones are refused. */
START_TEST(grpc_names_round_trip)
{
    for (int code = 0; code <= 16; code++)
        ck_assert_int_eq(classify_grpc_parse(classify_grpc_name(code)), code);
    ck_assert_str_eq(classify_grpc_name(14), "UNAVAILABLE");
    ck_assert_ptr_null(classify_grpc_name(17));
    ck_assert_int_eq(classify_grpc_parse("UNAVAILABLEX"), -1);
}
END_TEST

Suite *policy_classifier_suite(void)
{
    Suite *s = suite_create("policy_classifier");
    TCase *tc = tcase_create("table");
    tcase_add_loop_test(tc, each_row_of_the_table, 0,
                        (int)(sizeof rows / sizeof *rows));
    tcase_add_test(tc, grpc_names_round_trip);
    suite_add_tcase(s, tc);
    return s;
}
