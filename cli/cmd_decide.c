/*
 * cmd_decide.c -- `stormbench decide`: one failure, one decision.
 * (Full implementation: the policy-library issue.)
 */
#include <stdio.h>

#include "cli.h"

int cmd_decide(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "stormbench decide: not built yet\n");
    return EXIT_INPUT;
}
