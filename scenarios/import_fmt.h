/*
 * import_fmt.h -- what the importers (import_grpc.c, import_envoy.c ...)
 * share: recording a field as mapped, defaulted or not mapped, and
 * reading the values their formats write (durations, numbers, lists).
 * Private to scenarios/import*.c; import.h is the contract.
 *
 * Every helper that reads a field records it, so the printed result says
 * where each parameter came from, and every field read but not mapped is
 * named with why.  The first error wins: later calls after a failure do
 * nothing and the importer returns m->failed.
 */
#ifndef SB_IMPORT_FMT_H
#define SB_IMPORT_FMT_H

#include <stdint.h>

#include "compiler.h"
#include "import.h"
#include "tree.h"

typedef struct imp {
    import_result *r;
    const char *file; /* for messages */
    sb_err *e;
    int failed; /* -1 after the first error */
} imp;

/* ---- recording ---------------------------------------------------------- */

/* Field `path` (node n, may be NULL for a default) set stack parameter
 * key ("exponential.base") to value; note says how (may be NULL). */
void imp_param(imp *m, const char *path, tree_node *n, const char *key,
               const char *value, const char *note, ...) SB_PRINTF(6, 7);
/* The same for a scenario key ("clients.timeout"). */
void imp_set(imp *m, const char *path, tree_node *n, const char *key,
             const char *value, const char *note, ...) SB_PRINTF(6, 7);
/* A field read and understood, whose effect is in another field's
 * mapping or needs none (say why). */
void imp_note(imp *m, const char *path, tree_node *n, const char *fmt, ...)
    SB_PRINTF(4, 5);
/* A field that cannot be mapped, and why. */
void imp_skip(imp *m, const char *path, tree_node *n, const char *why, ...)
    SB_PRINTF(4, 5);
/* Every field under n that nobody read, as not mapped: "no such field
 * in FORMAT" (with the fields it knows, when one is close). */
void imp_sweep(imp *m, tree_node *n, const char *prefix, const char *format);
/* An error at n (or the file when n is NULL); returns -1. */
int imp_fail(imp *m, const char *path, const tree_node *n, const char *fmt, ...)
    SB_PRINTF(4, 5);

/* ---- values ------------------------------------------------------------- */

/* A duration as the format writes it into *ns: "proto" is protobuf JSON
 * ("0.1s", seconds with an 's'), "go" a Go/Istio duration ("1h", "25ms",
 * "1m30s"), "spring" a Spring Boot duration ("500ms", "10s", "PT10S", or
 * a bare number of milliseconds).  -1 after imp_fail. */
int imp_duration(imp *m, const char *path, const tree_node *n,
                 const char *style, int64_t *ns);
/* A whole number (or a number, for imp_real) at n. */
int imp_int(imp *m, const char *path, const tree_node *n, int64_t lo,
            int64_t hi, int64_t *v);
int imp_real(imp *m, const char *path, const tree_node *n, double lo, double hi,
             double *v);
int imp_bool(imp *m, const char *path, const tree_node *n, bool *v);
/* ns as stormbench writes durations, exactly ("25ms", "1.5s" as
 * "1500ms"). */
void imp_fmt_duration(int64_t ns, char *buf, size_t len);
/* A value's text for the report ("" for a map or list). */
const char *imp_value(const tree_node *n);

/* ---- the formats -------------------------------------------------------- */

int import_grpc(imp *m, tree *t, const char *selector);
int import_envoy(imp *m, tree *t, const char *selector);
int import_istio(imp *m, tree *t, const char *selector);
int import_r4j(imp *m, tree *t, const char *selector);
int import_aws(imp *m, const char *path, const char *selector);
int import_topology(imp *m, tree *t, const char *selector);

/* Envoy's retry_on conditions (also Istio's retryOn), each named: what
 * errors of the model it retries, or why nothing in the model meets it;
 * then what the list leaves out, which the built-in retries anyway, as
 * not mapped.  codes: retriable_status_codes, or NULL. */
void imp_retry_on(imp *m, const char *path, tree_node *n, const char *dflt,
                  tree_node *codes);
/* Envoy's (and Istio's) retries: num_retries and the backoff of
 * retry_back_off (base_ns, max_ns; max_ns 0: 10 x base, Envoy's default),
 * with n_retries, base and max the nodes they came from (NULL:
 * defaulted). */
void imp_envoy_backoff(imp *m, const char *at, const char *count_path,
                       tree_node *n_retries, int64_t retries, tree_node *base,
                       int64_t base_ns, tree_node *max, int64_t max_ns);
/* A consecutive-failure ejection (outlier detection) as a breaker. */
void imp_envoy_outlier(imp *m, const char *at, tree_node *od, bool istio);

#endif
