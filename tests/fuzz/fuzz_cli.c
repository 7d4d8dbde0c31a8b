/*
 * fuzz_cli.c -- libFuzzer target for the command line.
 *
 * An input is a command line: arguments separated by NUL bytes.  It is
 * given whole to `stormbench decide` (which parses every flag a policy
 * decision takes and runs one decision), and each argument is also put
 * through the parsers every flag value goes through: `--param`/`--set`
 * pairs, durations, rates, numbers, distributions, and policy stack
 * names with the other arguments as their parameters.  Everything must
 * end in a result or a message, never a crash.  Options that load a
 * plug-in are dropped (that would run the library's code).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "policy_setup.h"
#include "setting.h"
#include "units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 24

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* decide prints its decision and its usage errors: to /dev/null, but
     * only while it runs, so the fuzzer's own reports still show (a
     * crash inside decide leaves its input in a crash-* file all the
     * same; CI sets ASAN_OPTIONS=log_path for the report). */
    static int devnull = -1, err_fd = -1;
    if (devnull < 0) {
        devnull = open("/dev/null", O_WRONLY);
        err_fd = dup(STDERR_FILENO);
        if (freopen("/dev/null", "w", stdout) == NULL)
            return 0;
    }
    char *buf = malloc(size + 1);
    if (buf == NULL)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[MAX_ARGS + 2] = {"decide"};
    int argc = 1;
    for (size_t i = 0; i <= size && argc < MAX_ARGS;) {
        char *arg = buf + i;
        size_t n = strlen(arg);
        if (strstr(arg, "plugin") == NULL)
            argv[argc++] = arg;
        i += n + 1;
    }
    argv[argc] = NULL;
    fflush(stderr);
    dup2(devnull, STDERR_FILENO);
    (void)cmd_decide(argc, argv);
    fflush(stderr);
    dup2(err_fd, STDERR_FILENO);

    sb_err e;
    setting params[MAX_ARGS];
    int np = 0;
    for (int i = 1; i < argc; i++) {
        int64_t ns, k;
        double x;
        bool b;
        dist d;
        (void)units_duration(argv[i], &ns, &e);
        (void)units_rate(argv[i], &x, &e);
        (void)units_real(argv[i], &x, &e);
        (void)units_int(argv[i], &k, &e);
        (void)units_bool(argv[i], &b, &e);
        (void)units_dist(argv[i], &d, &e);
        if (setting_parse(argv[i], "--param", &params[np], &e) == 0)
            np++;
    }
    for (int i = 1; i < argc; i++) {
        policy_setup ps;
        if (policy_setup_build(argv[i], NULL, 0, params, np, &ps, &e) == 0)
            policy_setup_free(&ps);
    }
    free(buf);
    return 0;
}
