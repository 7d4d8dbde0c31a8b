#include "classifier.h"

#include <string.h>

static void classify_http(int status, sb_defect defect, sb_error_class *cls,
                          sb_confidence *conf)
{
    *conf = SB_CONFIDENCE_HIGH;
    switch (status) {
    case 408:
    case 429:
    case 502:
    case 503:
    case 504:
        *cls = SB_CLASS_TRANSIENT;
        return;
    case 507: /* Insufficient Storage (RFC 4918): says so by name */
        *cls = SB_CLASS_RESOURCE_EXHAUSTION;
        return;
    default:
        break;
    }
    if (status >= 400 && status < 500) {
        *cls = defect != SB_DEFECT_NONE ? SB_CLASS_DATA_DEFECT
                                        : SB_CLASS_PERMANENT;
        return;
    }
    *cls = SB_CLASS_UNKNOWN; /* 500 and the rest of 5xx */
    *conf = SB_CONFIDENCE_LOW;
}

static void classify_grpc(int code, sb_error_class *cls, sb_confidence *conf)
{
    *conf = SB_CONFIDENCE_HIGH;
    switch (code) {
    case SB_GRPC_RESOURCE_EXHAUSTED:
        *cls = SB_CLASS_RESOURCE_EXHAUSTION;
        return;
    case SB_GRPC_UNAVAILABLE:
    case SB_GRPC_DEADLINE_EXCEEDED:
    case SB_GRPC_ABORTED:
        *cls = SB_CLASS_TRANSIENT;
        return;
    case SB_GRPC_INVALID_ARGUMENT:
    case SB_GRPC_NOT_FOUND:
    case SB_GRPC_ALREADY_EXISTS:
    case SB_GRPC_PERMISSION_DENIED:
    case SB_GRPC_UNAUTHENTICATED:
        *cls = SB_CLASS_PERMANENT;
        return;
    default:
        *cls = SB_CLASS_UNKNOWN;
        *conf = SB_CONFIDENCE_LOW;
    }
}

void classify_error(const sb_attempt *a, sb_error_class *cls,
                    sb_confidence *conf)
{
    switch (a->error) {
    case SB_ERR_NONE:
        *cls = SB_CLASS_NONE;
        *conf = SB_CONFIDENCE_HIGH;
        return;
    case SB_ERR_TIMEOUT:
    case SB_ERR_REFUSED:
    case SB_ERR_RESET:
        *cls = SB_CLASS_TRANSIENT;
        *conf = SB_CONFIDENCE_HIGH;
        return;
    case SB_ERR_HTTP:
        classify_http(a->status, a->defect, cls, conf);
        return;
    case SB_ERR_GRPC:
        classify_grpc(a->status, cls, conf);
        return;
    }
    *cls = SB_CLASS_UNKNOWN;
    *conf = SB_CONFIDENCE_LOW;
}

const char *classify_class_name(sb_error_class c)
{
    static const char *names[] = {
        "none",        "transient",           "permanent",
        "data_defect", "resource_exhaustion", "unknown"};
    return (unsigned)c < 6 ? names[c] : "?";
}

const char *classify_kind_name(sb_error_kind k)
{
    static const char *names[] = {"none",  "timeout", "refused",
                                  "reset", "http",    "grpc"};
    return (unsigned)k < 6 ? names[k] : "?";
}

const char *classify_defect_name(sb_defect d)
{
    static const char *names[] = {"none", "invalid_schema", "missing_field",
                                  "duplicate_business_key"};
    return (unsigned)d < 4 ? names[d] : "?";
}

static const char *const grpc_names[] = {"OK",
                                         "CANCELLED",
                                         "UNKNOWN",
                                         "INVALID_ARGUMENT",
                                         "DEADLINE_EXCEEDED",
                                         "NOT_FOUND",
                                         "ALREADY_EXISTS",
                                         "PERMISSION_DENIED",
                                         "RESOURCE_EXHAUSTED",
                                         "FAILED_PRECONDITION",
                                         "ABORTED",
                                         "OUT_OF_RANGE",
                                         "UNIMPLEMENTED",
                                         "INTERNAL",
                                         "UNAVAILABLE",
                                         "DATA_LOSS",
                                         "UNAUTHENTICATED"};

const char *classify_grpc_name(int code)
{
    return code >= 0 && code <= 16 ? grpc_names[code] : NULL;
}

int classify_grpc_parse(const char *name)
{
    for (int i = 0; i <= 16; i++)
        if (strcmp(name, grpc_names[i]) == 0)
            return i;
    return -1;
}

static int http_as_grpc(int status)
{
    switch (status) {
    case 400:
    case 431:
        return SB_GRPC_INTERNAL;
    case 401:
        return SB_GRPC_UNAUTHENTICATED;
    case 403:
        return SB_GRPC_PERMISSION_DENIED;
    case 404:
        return SB_GRPC_UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
        return SB_GRPC_UNAVAILABLE;
    default:
        return SB_GRPC_UNKNOWN;
    }
}

int classify_as_grpc(const sb_attempt *a)
{
    switch (a->error) {
    case SB_ERR_NONE:
        return SB_GRPC_OK;
    case SB_ERR_TIMEOUT:
        return SB_GRPC_DEADLINE_EXCEEDED;
    case SB_ERR_REFUSED:
    case SB_ERR_RESET:
        return SB_GRPC_UNAVAILABLE;
    case SB_ERR_HTTP:
        return http_as_grpc(a->status);
    case SB_ERR_GRPC:
        return a->status >= 0 && a->status <= 16 ? a->status : SB_GRPC_UNKNOWN;
    }
    return SB_GRPC_UNKNOWN;
}
