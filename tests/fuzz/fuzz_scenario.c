/*
 * fuzz_scenario.c -- libFuzzer target for the scenario loader.
 *
 * Each input is a scenario file.  The loader must refuse it with a
 * message or load it; a loaded one must also have its [expect] keys and
 * its policy checked without a crash, and must survive the writer: the
 * file scenario_write makes of it loads back into the very same config
 * (writer.h promises bit for bit).  A policy that names a plug-in is not
 * built: loading a library the input names would run its code.
 *
 * Build: cmake -B build-fuzz -S . -DCMAKE_C_COMPILER=clang -DSB_FUZZ=ON
 * Run:   ./build-fuzz/tests/fuzz/fuzz_scenario CORPUS_DIR (see README.md)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expect.h"
#include "policy_setup.h"
#include "scenario.h"
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
        if (policy_setup_build(sc.policy, NULL, 0, sc.settings,
                               sc.n_settings, &ps, &e) == 0)
            policy_setup_free(&ps);
    }
    FILE *f = fopen(out_path, "w");
    if (f == NULL)
        return 0;
    const char *plugins[SCENARIO_MAX_PLUGINS];
    for (int i = 0; i < sc.n_plugins; i++)
        plugins[i] = sc.plugins[i];
    writer_extra w = {NULL,         sc.policy,   sc.settings, sc.n_settings,
                      plugins,      sc.n_plugins, sc.expect,  sc.n_expect};
    int rc = scenario_write(f, &sc.cfg, &w, &e);
    if (fclose(f) != 0 || rc != 0)
        return 0;
    if (scenario_load(out_path, NULL, 0, &back, &e) != 0) {
        fprintf(stderr, "the writer's file does not load: %s\n", e.msg);
        abort();
    }
    /* Where a tier's policy settings were written is part of its config
     * (for messages), and differs between the two files by nature. */
    for (uint32_t i = 0; i < SIM_MAX_TIERS; i++) {
        tier_cfg *t[2] = {&sc.cfg.tiers[i], &back.cfg.tiers[i]};
        for (int j = 0; j < 2; j++) {
            memset(t[j]->policy_origin, 0, sizeof t[j]->policy_origin);
            for (uint32_t k = 0; k < SIM_TIER_SETTINGS; k++)
                memset(t[j]->settings[k].origin, 0,
                       sizeof t[j]->settings[k].origin);
        }
    }
    /* ... and so is where a pipeline step's stack and parameters were. */
    for (uint32_t i = 0; i < SIM_MAX_STEPS; i++) {
        step_cfg *st[2] = {&sc.cfg.pipeline.steps[i],
                           &back.cfg.pipeline.steps[i]};
        for (int j = 0; j < 2; j++) {
            memset(st[j]->policy_origin, 0, sizeof st[j]->policy_origin);
            for (uint32_t k = 0; k < SIM_STEP_SETTINGS; k++)
                memset(st[j]->settings[k].origin, 0,
                       sizeof st[j]->settings[k].origin);
        }
    }
    if (memcmp(&sc.cfg, &back.cfg, sizeof sc.cfg) != 0) {
        fprintf(stderr, "the writer's file loads into another config\n");
        abort();
    }
    return 0;
}
