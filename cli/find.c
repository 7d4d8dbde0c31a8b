/*
 * find.c -- a scenario named by the user: a file, or the name of a shipped
 * one ("retry-storm"), looked up where the scenario library is.
 *
 * Where, in order:
 *   1. ./scenarios -- a source tree, or a directory of one's own;
 *   2. beside the running binary, as `cmake --install` lays it out:
 *      BINDIR/SB_SCENARIO_REL (../share/stormbench/scenarios), whatever
 *      --prefix or DESTDIR put it -- the binary's own path comes from
 *      /proc/self/exe, symlinks resolved, so it does not depend on the
 *      current directory or on how the binary was started;
 *   3. BINDIR/scenarios -- the build tree, where CMake links the source
 *      tree's scenarios/ beside the binary (`cd build && ./stormbench run
 *      retry-storm`);
 *   4. the configured data directory (SB_SCENARIO_DIR), for a binary
 *      copied away from its prefix.
 * A configure-time path alone (4) was wrong for any install to another
 * --prefix than the configured one, which is how packages and CI install.
 */
/* realpath */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "find.h"
#include "scenario.h"
#include "suggest.h"

#ifndef SB_SCENARIO_REL
#define SB_SCENARIO_REL "../share/stormbench/scenarios"
#endif

#define MAX_DIRS 4

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The directory of the running binary, or "" when it cannot be told. */
static void exe_dir(char *out, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    out[0] = '\0';
    if (n <= 0)
        return;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash == NULL)
        return;
    *slash = '\0';
    snprintf(out, len, "%s", self[0] ? self : "/");
}

int cli_scenario_dirs(char dirs[][PATH_MAX], int max)
{
    char bin[PATH_MAX];
    exe_dir(bin, sizeof bin);
    char cand[MAX_DIRS][PATH_MAX];
    int nc = 0;
    snprintf(cand[nc++], PATH_MAX, "scenarios");
    if (bin[0]) {
        /* Cut: a path too long to hold is no directory to look in. */
        if (snprintf(cand[nc], PATH_MAX, "%s/%s", bin, SB_SCENARIO_REL) <
            PATH_MAX)
            nc++;
        if (snprintf(cand[nc], PATH_MAX, "%s/scenarios", bin) < PATH_MAX)
            nc++;
    }
    snprintf(cand[nc++], PATH_MAX, "%s", SB_SCENARIO_DIR);
    int n = 0;
    for (int i = 0; i < nc && n < max; i++) {
        if (!is_dir(cand[i]))
            continue;
        /* The binary's own: without its "bin/../", as a user would write
         * it in the paths the summary and messages show. */
        if (i == 0 || realpath(cand[i], dirs[n]) == NULL)
            snprintf(dirs[n], PATH_MAX, "%s", cand[i]);
        n++;
    }
    return n;
}

/* The scenario names in dir (file names without .ini), for messages. */
static int names_in(const char *dir, char names[][64], int max)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (d == NULL)
        return 0;
    for (struct dirent *en; n < max && (en = readdir(d)) != NULL;) {
        size_t len = strlen(en->d_name);
        if (len > 4 && len < 64 + 4 &&
            strcmp(en->d_name + len - 4, ".ini") == 0)
            snprintf(names[n++], 64, "%.*s", (int)(len - 4), en->d_name);
    }
    closedir(d);
    return n;
}

int cli_find_scenario(const char *arg, char *out, size_t len, sb_err *e)
{
    if (is_file(arg) || strchr(arg, '/') != NULL) {
        snprintf(out, len, "%s", arg);
        return 0;
    }
    char dirs[MAX_DIRS][PATH_MAX];
    int nd = cli_scenario_dirs(dirs, MAX_DIRS);
    for (int i = 0; i < nd; i++) {
        if (snprintf(out, len, "%s/%s%s", dirs[i], arg,
                     strstr(arg, ".ini") ? "" : ".ini") >= (int)len)
            continue;
        if (is_file(out))
            return 0;
    }
    char names[64][64];
    const char *list[64];
    int n = 0;
    for (int i = 0; i < nd && n == 0; i++)
        n = names_in(dirs[i], names, 64);
    for (int i = 0; i < n; i++)
        list[i] = names[i];
    char known[1024];
    suggest_list(list, n, known, sizeof known);
    const char *best = suggest_closest(arg, list, n);
    return err_set(e,
                   "%s: no such scenario file, nor a shipped scenario of "
                   "that name%s%s%s; shipped scenarios: %s",
                   arg, best ? " (did you mean '" : "", best ? best : "",
                   best ? "'?)" : "", n ? known : "(none found)");
}

/* ---- stormbench scenarios ------------------------------------------------ */

static const char scenarios_usage[] =
    "Usage: stormbench scenarios [--names]\n"
    "\n"
    "List the shipped scenarios that run, validate, compare and gui take by\n"
    "name, with the directory they are in and each one's description.\n"
    "--names prints the names alone, one per line (for shell completion).\n"
    "\n"
    "They are looked up in ./scenarios, then beside the stormbench binary\n"
    "(PREFIX/share/stormbench/scenarios for PREFIX/bin/stormbench, whatever\n"
    "the install prefix), then in the build tree, then in the directory\n"
    "stormbench was configured to install to.\n";

static int by_name(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

int cmd_scenarios(int argc, char **argv)
{
    bool names_only = false;
    args a = {argc, argv, 1, "scenarios", scenarios_usage};
    for (; a.i < argc; a.i++) {
        if (strcmp(argv[a.i], "-h") == 0 || strcmp(argv[a.i], "--help") == 0) {
            fputs(scenarios_usage, stdout);
            return EXIT_OK;
        }
        if (strcmp(argv[a.i], "--names") != 0)
            return args_usage_error(&a, "unknown argument '%s'", argv[a.i]);
        names_only = true;
    }
    char dirs[MAX_DIRS][PATH_MAX];
    int nd = cli_scenario_dirs(dirs, MAX_DIRS), n = 0, d = 0;
    static char names[256][64];
    for (; d < nd && n == 0; d++)
        n = names_in(dirs[d], names, 256);
    if (n == 0) {
        fprintf(stderr,
                "stormbench scenarios: no shipped scenarios found "
                "(looked in ./scenarios, beside the binary and in "
                "%s)\n",
                SB_SCENARIO_DIR);
        return EXIT_INPUT;
    }
    qsort(names, (size_t)n, sizeof *names, by_name);
    if (!names_only)
        printf("shipped scenarios, in %s:\n", dirs[d - 1]);
    scenario *sc = names_only ? NULL : calloc(1, sizeof *sc);
    for (int i = 0; i < n; i++) {
        if (names_only) {
            printf("%s\n", names[i]);
            continue;
        }
        char path[PATH_MAX + 80];
        sb_err e;
        snprintf(path, sizeof path, "%s/%s.ini", dirs[d - 1], names[i]);
        if (sc && scenario_load(path, NULL, 0, sc, &e) == 0)
            printf("  %-22s %s\n", names[i], sc->cfg.description);
        else
            printf("  %-22s (does not load: %s)\n", names[i],
                   sc ? e.msg : "out of memory");
    }
    free(sc);
    return EXIT_OK;
}
