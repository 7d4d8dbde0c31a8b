/*
 * classifier.h -- what kind of error is this, and how sure are we?
 *
 *   HTTP 408, 429, 502, 503, 504         transient   high
 *   HTTP 507 (Insufficient Storage)      resource_exhaustion high
 *   HTTP 4xx with a data-defect code     data_defect high
 *   other HTTP 4xx                       permanent   high
 *   HTTP 500                             unknown     low
 *   other HTTP 5xx                       unknown     low
 * (resource exhaustion is retryable where transient is, for every
 * built-in that asks: classified, circuit_breaker, aws_quota)
 *   timeout, connection refused / reset  transient   high
 *   gRPC UNAVAILABLE, DEADLINE_EXCEEDED,
 *        ABORTED                         transient   high
 *   gRPC RESOURCE_EXHAUSTED              resource_exhaustion high
 *   gRPC INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS,
 *        PERMISSION_DENIED, UNAUTHENTICATED  permanent high
 *   other gRPC codes                     unknown     low
 *
 * Offered to every policy as sb_host.classify.
 */
#ifndef SB_CLASSIFIER_H
#define SB_CLASSIFIER_H

#include "stormbench/policy.h"

void classify_error(const sb_attempt *a, sb_error_class *cls,
                    sb_confidence *conf);

const char *classify_class_name(sb_error_class c);
const char *classify_kind_name(sb_error_kind k);
const char *classify_defect_name(sb_defect d);
/* The gRPC status a gRPC client would see for this outcome: the code
 * itself for a gRPC error; for an HTTP answer without grpc-status, the
 * table of grpc/grpc doc/http-grpc-status-mapping.md (400, 431 INTERNAL,
 * 401 UNAUTHENTICATED, 403 PERMISSION_DENIED, 404 UNIMPLEMENTED, 429,
 * 502, 503, 504 UNAVAILABLE, any other UNKNOWN); a refused or reset
 * connection UNAVAILABLE (the transport failed); an attempt that timed
 * out DEADLINE_EXCEEDED (its per-attempt deadline passed); a success OK. */
int classify_as_grpc(const sb_attempt *a);

/* The gRPC code names in numbering order, for an SB_PARAM_SET whose bit
 * i is code i. */
#define GRPC_CODE_CHOICES                                                      \
    "OK|CANCELLED|UNKNOWN|INVALID_ARGUMENT|DEADLINE_EXCEEDED|NOT_FOUND|"       \
    "ALREADY_EXISTS|PERMISSION_DENIED|RESOURCE_EXHAUSTED|"                     \
    "FAILED_PRECONDITION|ABORTED|OUT_OF_RANGE|UNIMPLEMENTED|INTERNAL|"         \
    "UNAVAILABLE|DATA_LOSS|UNAUTHENTICATED"

/* "UNAVAILABLE" for 14; NULL for codes outside 0..16. */
const char *classify_grpc_name(int code);
/* 14 for "UNAVAILABLE"; -1 when unknown. */
int classify_grpc_parse(const char *name);

#endif
