/*
 * main.c -- `stormbench`: dispatch to a subcommand.
 */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "guard.h"
#include "policy_from.h"
#include "stormbench/policy.h"

static const char usage[] =
    "Usage: stormbench COMMAND [ARGS]\n"
    "\n"
    "A fault-injection simulator and retry-policy test bench: simulated\n"
    "clients, each running a retry policy, against a modeled server that\n"
    "gets overloaded and faulted.\n"
    "\n"
    "Commands:\n"
    "  run SCENARIO        run a scenario headless: summary, JSON, CSV, JUnit,\n"
    "                      and exit 1 when its [expect] section is violated\n"
    "  validate FILE...    check scenario files without running them\n"
    "  policies            list every policy with its parameters\n"
    "  decide              show what a policy decides for one failure\n"
    "  gui [SCENARIO]      watch a run in a window: inject faults, compare\n"
    "                      two policies, save what you find as a scenario\n"
    "  compare SCENARIO    several policies on the same seeds, sweeps and\n"
    "                      stability maps: a report with confidence\n"
    "                      intervals (PDF, HTML, Markdown, CSV, JSON)\n"
    "  merge DIR...        a comparison's report from runs done elsewhere\n"
    "  risk SCENARIO       the probability that a run tips into a storm\n"
    "                      within a horizon, with its interval, per day\n"
    "                      and per year\n"
    "  import FILE         a gRPC, Envoy, Istio, resilience4j, AWS or\n"
    "                      topology file as the policy stack that behaves\n"
    "                      the same (--policy-from FILE runs it directly)\n"
    "  lint FILE...        static checks of a topology or imported config:\n"
    "                      retry amplification, timeout inversions, ...\n"
    "                      (text, and SARIF 2.1.0 for code scanning)\n"
    "  scenarios           list the shipped scenarios, taken by name\n"
    "\n"
    "Options:\n"
    "  -h, --help          this help; 'stormbench COMMAND --help' for one\n"
    "  -V, --version       the version and the policy ABI version\n"
    "\n"
    "Exit status: 0 success, 1 an expectation failed, 2 bad input or usage,\n"
    "3 a policy plug-in crashed or hung in one of its hooks.\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_INPUT;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
        strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("stormbench %s (policy ABI %d.%d)\n", SB_VERSION,
               SB_POLICY_ABI_MAJOR, SB_POLICY_ABI_MINOR);
        return EXIT_OK;
    }
    /* A plug-in that crashes in a hook stops any command with its own
     * message and EXIT_PLUGIN (guard.c).  "compare" for when it is here:
     * its runs' threads get their alternate stacks from hookguard. */
    static const char *const guarded[] = {"run",    "validate", "policies",
                                          "decide", "gui",      "compare"};
    for (size_t i = 0; i < sizeof guarded / sizeof *guarded; i++)
        if (strcmp(cmd, guarded[i]) == 0)
            cli_guard_install(guarded[i]);
    int sub_argc = argc - 1;
    char **sub_argv = argv + 1;
    int rc = cli_expand_policy_from(cmd, &sub_argc, &sub_argv);
    if (rc != 0)
        return rc;
    if (strcmp(cmd, "risk") == 0)
        return cmd_risk(sub_argc, sub_argv);
    if (strcmp(cmd, "import") == 0)
        return cmd_import(sub_argc, sub_argv);
    if (strcmp(cmd, "lint") == 0)
        return cmd_lint(sub_argc, sub_argv);
    if (strcmp(cmd, "run") == 0)
        return cmd_run(sub_argc, sub_argv);
    if (strcmp(cmd, "validate") == 0)
        return cmd_validate(sub_argc, sub_argv);
    if (strcmp(cmd, "policies") == 0)
        return cmd_policies(sub_argc, sub_argv);
    if (strcmp(cmd, "decide") == 0)
        return cmd_decide(sub_argc, sub_argv);
    if (strcmp(cmd, "gui") == 0)
        return cmd_gui(sub_argc, sub_argv);
    if (strcmp(cmd, "compare") == 0)
        return cmd_compare(sub_argc, sub_argv);
    if (strcmp(cmd, "merge") == 0)
        return cmd_merge(sub_argc, sub_argv);
    if (strcmp(cmd, "scenarios") == 0)
        return cmd_scenarios(sub_argc, sub_argv);
    fprintf(stderr,
            "stormbench: unknown command '%s'\n"
            "Try 'stormbench --help'.\n",
            cmd);
    return EXIT_INPUT;
}
