/*
 * fuzz_scenario.c -- libFuzzer target for the scenario loader.
 *
 * Each input is a scenario file.  The loader must refuse it with a
 * message or load it; a loaded one must also have its [expect] keys and
 * its policy checked without a crash, and must survive the writer: the
 * writer must write it (whatever loads can be saved), and the file it
 * makes must load back into the same scenario -- the engine's config
 * (tiers, pipeline and steps included), the policy, its parameters and
 * plug-ins, the expectations, the warnings -- byte for byte but for where
 * things were written (tests/scenario_same.h).  A policy that names a
 * plug-in is not built: loading a library the input names would run its
 * code.
 *
 * Build: cmake -B build-fuzz -S . -DCMAKE_C_COMPILER=clang -DSB_FUZZ=ON
 * Run:   ./build-fuzz/tests/fuzz/fuzz_scenario CORPUS_DIR (see README.md)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expect.h"
#include "policy_setup.h"
#include "scenario.h"
#include "scenario_same.h"
#include "writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char in_path[64], out_path[64];

static void cleanup(void)
{
    remove(in_path);
    remove(out_path);
}

static void paths(void)
{
    if (in_path[0])
        return;
    snprintf(in_path, sizeof in_path, "/tmp/sbfuzz-%d.ini", (int)getpid());
    snprintf(out_path, sizeof out_path, "/tmp/sbfuzz-%d-out.ini",
             (int)getpid());
    atexit(cleanup);
}

static int write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    size_t n = fwrite(data, 1, size, f);
    return fclose(f) == 0 && n == size ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static scenario sc, back;
    paths();
    if (write_file(in_path, data, size) != 0)
        return 0;
    sb_err e;
    if (scenario_load(in_path, NULL, 0, &sc, &e) != 0) {
        if (e.msg[0] == '\0') /* refused, but without a word */
            abort();
        return 0;
    }
    expect_set x;
    (void)expect_parse(sc.expect, sc.n_expect, &x, &e);
    if (sc.n_plugins == 0) {
        policy_setup ps;
        if (policy_setup_build(sc.policy, NULL, 0, sc.settings, sc.n_settings,
                               &ps, &e) == 0)
            policy_setup_free(&ps);
    }
    FILE *f = fopen(out_path, "w");
    if (f == NULL)
        return 0;
    const char *plugins[SCENARIO_MAX_PLUGINS];
    for (int i = 0; i < sc.n_plugins; i++)
        plugins[i] = sc.plugins[i];
    writer_extra w = {NULL,          sc.policy,   sc.settings,
                      sc.n_settings, plugins,     sc.n_plugins,
                      sc.expect,     sc.n_expect, sc.policy_from};
    int rc = scenario_write(f, &sc.cfg, &w, &e);
    bool io_error = ferror(f) != 0; /* a full /tmp, not the writer's */
    if (fclose(f) != 0 || io_error)
        return 0;
    if (rc != 0) {
        fprintf(stderr, "what loaded cannot be written: %s\n", e.msg);
        abort();
    }
    if (scenario_load(out_path, NULL, 0, &back, &e) != 0) {
        fprintf(stderr, "the writer's file does not load: %s\n", e.msg);
        abort();
    }
    const char *part = scenario_differs(&sc, &back);
    if (part != NULL) {
        fprintf(stderr, "the writer's file loads with another %s\n", part);
        abort();
    }
    return 0;
}
