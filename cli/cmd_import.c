/*
 * cmd_import.c -- `stormbench import FILE`: a team's retry configuration
 * as the policy stack that behaves the same, every field accounted for.
 */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "import.h"
#include "policy_from.h"

static const char import_usage[] =
    "Usage: stormbench import FILE[#NAME] [--route NAME | --method NAME |\n"
    "                         --instance NAME | --profile NAME]\n"
    "                         [--format FORMAT] [--check]\n"
    "\n"
    "Read a retry configuration in its own project's format and print the\n"
    "stormbench policy stack (and scenario keys, and for a topology the\n"
    "service tiers) that behaves the same: as --policy/--param options\n"
    "and as scenario sections, then every field mapped (with the line it\n"
    "came from and the format's defaults that apply) and every field that\n"
    "could not be mapped, with why.  Nothing is dropped unsaid.\n"
    "\n"
    "Formats (found from the file, or --format):\n"
    "  grpc          gRPC service config JSON: methodConfig retryPolicy or\n"
    "                hedgingPolicy, timeout; retryThrottling (gRFC A6)\n"
    "  envoy         Envoy route retry_policy, cluster circuit_breakers and\n"
    "                outlier_detection (YAML or JSON)\n"
    "  istio         Istio VirtualService retries, with a DestinationRule\n"
    "  resilience4j  resilience4j YAML: retry, circuitbreaker, bulkhead,\n"
    "                timelimiter instances\n"
    "  aws           AWS SDK shared config: retry_mode, max_attempts\n"
    "  topology      stormbench's topology YAML: services, who calls whom\n"
    "\n"
    "  FILE#NAME, --route NAME, --method NAME, --instance NAME,\n"
    "  --profile NAME   which configuration of a file that holds several\n"
    "                   (a gRPC method 'pkg.Service/Method', an Envoy or\n"
    "                   Istio route name or '#INDEX', a resilience4j\n"
    "                   instance, an AWS profile); default: the first\n"
    "  --check          build the stack too (every value in range), and\n"
    "                   print nothing but errors\n"
    "\n"
    "The same file runs directly: run/compare/gui/decide --policy-from\n"
    "FILE[#NAME].\n"
    "\n"
    "Exit status: 0 imported, 2 bad input (a malformed file: FILE:LINE).\n";

int cmd_import(int argc, char **argv)
{
    args a = {argc, argv, 1, "import", import_usage};
    const char *file = NULL, *sel = NULL, *format = NULL;
    bool check = false;
    /* --route, --method, --instance and --profile all pick the entry. */
    const arg_opt opts[] = {
        {"--help", "-h", ARG_HELP, NULL, NULL, NULL},
        {"--check", NULL, ARG_SET, &check, NULL, NULL},
        {"--route", NULL, ARG_VALUE, &sel, NULL, NULL},
        {"--method", NULL, ARG_VALUE, &sel, NULL, NULL},
        {"--instance", NULL, ARG_VALUE, &sel, NULL, NULL},
        {"--profile", NULL, ARG_VALUE, &sel, NULL, NULL},
        {"--format", NULL, ARG_VALUE, &format, NULL, NULL},
    };
    for (; a.i < argc; a.i++) {
        int rc = args_option(&a, opts, sizeof opts / sizeof *opts);
        if (rc < 0)
            return EXIT_OK; /* --help */
        if (rc == EXIT_INPUT)
            return rc;
        if (rc == 1 && args_scenario(&a, argv[a.i], &file) != 0)
            return EXIT_INPUT;
    }
    if (file == NULL)
        return args_usage_error(&a, "no file given");
    static import_result r;
    policy_setup ps;
    sb_err e;
    if (cli_policy_from(file, sel, format, &r, &ps, &e) != 0) {
        fprintf(stderr, "stormbench import: %s\n", e.msg);
        return EXIT_INPUT;
    }
    policy_setup_free(&ps);
    if (!check)
        import_print(stdout, &r);
    return EXIT_OK;
}
