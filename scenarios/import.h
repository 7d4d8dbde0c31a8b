/*
 * import.h -- a team's real retry configuration, read in its own format
 * and turned into the stormbench policy stack (and scenario keys, and for
 * a topology the service tiers) that behaves the same way.
 *
 * Formats, each read with its own project's field names and defaults:
 *   grpc          gRPC service config JSON (gRFC A6): methodConfig with
 *                 retryPolicy or hedgingPolicy, timeout; retryThrottling
 *   envoy         Envoy route retry_policy, cluster circuit_breakers and
 *                 outlier_detection (YAML or JSON)
 *   istio         Istio VirtualService http retries, with a DestinationRule
 *                 (connectionPool, outlierDetection) in the same file
 *   resilience4j  resilience4j YAML (Spring Boot): retry, circuitbreaker,
 *                 bulkhead and timelimiter instances
 *   aws           AWS SDK shared config (retry_mode, max_attempts)
 *   topology      stormbench's own YAML topology of services
 * The format is found from the file (import_detect) unless named.
 *
 * A selector picks one configuration in a file that holds several: a
 * gRPC method ("pkg.Service/Method", or "pkg.Service"), an Envoy route or
 * Istio http route by name (or its index, "#0"), a resilience4j instance,
 * an AWS profile.  Without one the first is taken, and the others are
 * named in the result.
 *
 * Never silent: every field of the selected configuration is either
 * mapped (an import_field with a target) or named as not mapped, with
 * why; a field no importer knows is listed as such (tree.h's `used`).
 *
 * The result's policy and params build with policy_setup_build (origin:
 * the file, line and field, so a value the stack refuses points there);
 * its sets are scenario keys ("clients.timeout=2s") applied as --set.
 */
#ifndef SB_IMPORT_H
#define SB_IMPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "err.h"
#include "pstack.h"
#include "setting.h"

#define IMPORT_MAX_FIELDS 160
#define IMPORT_MAX_SETS 48
#define IMPORT_MAX_TIERS 6

typedef struct import_field {
    char path[200];   /* "methodConfig[0].retryPolicy.maxAttempts" */
    int line;         /* 0: unknown (JSON) */
    char value[120];  /* as written ("" for a map or list) */
    char target[200]; /* "exponential.max_attempts = 4", "" if not mapped */
    char note[400];   /* how it maps, or why it does not */
    bool defaulted;   /* not in the file: the format's default, applied */
} import_field;

/* One service of a topology that became a tier, from the top down. */
typedef struct import_tier {
    char name[64];
} import_tier;

typedef struct import_result {
    char path[1024];
    char format[16];      /* "grpc", "envoy", ... */
    char format_name[64]; /* "gRPC service config" */
    char selected[200];   /* what was imported: "method grpc.Echo/Echo" */
    char others[600];     /* the other selectable names, "" when none */
    char policy[256];     /* the stack: "exponential+token_bucket" */
    setting params[PSTACK_MAX_SETTINGS];
    int n_params;
    setting sets[IMPORT_MAX_SETS]; /* "clients.timeout" = "2s" */
    int n_sets;
    import_field fields[IMPORT_MAX_FIELDS];
    int n_fields;
    int n_unmapped;
    import_tier tiers[IMPORT_MAX_TIERS];
    int n_tiers;
} import_result;

/* "grpc", "envoy", "istio", "resilience4j", "aws", "topology", or NULL
 * when the file's content says none of them (e names what was seen). */
const char *import_detect(const char *path, sb_err *e);

/* Import path.  format may be NULL (detected); selector may be NULL or
 * "" (the first).  0, or -1 with "FILE:LINE: ..." in e. */
int import_load(const char *path, const char *format, const char *selector,
                import_result *out, sb_err *e);

/* "FILE#selector" into path and selector ("" when there is no '#'). */
void import_split(const char *arg, char *path, size_t plen, char *selector,
                  size_t slen);

/* The result for people: the stack as `--policy`/`--param` and as an INI
 * [policy] section, the scenario keys, then every field mapped and every
 * field not mapped, each with its line and why. */
void import_print(FILE *f, const import_result *r);

/* The scenario keys as --set would give them ("clients.timeout=2s"), in
 * out[0..n). */
int import_set_args(const import_result *r, char out[][320], int max);

#endif
