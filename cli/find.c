/*
 * find.c -- a scenario named by the user: a file, or the name of a shipped
 * one ("retry-storm"), looked up in ./scenarios and then where
 * `cmake --install` put the scenario library.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "suggest.h"

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
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
    const char *dirs[] = {"scenarios", SB_SCENARIO_DIR};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(out, len, "%s/%s%s", dirs[i], arg,
                 strstr(arg, ".ini") ? "" : ".ini");
        if (is_file(out))
            return 0;
    }
    char names[64][64];
    const char *list[64];
    int n = names_in("scenarios", names, 64);
    if (n == 0)
        n = names_in(SB_SCENARIO_DIR, names, 64);
    for (int i = 0; i < n; i++)
        list[i] = names[i];
    char known[1024];
    suggest_list(list, n, known, sizeof known);
    const char *best = suggest_closest(arg, list, n);
    return err_set(e, "%s: no such scenario file, nor a shipped scenario of "
                   "that name%s%s%s; shipped scenarios: %s", arg,
                   best ? " (did you mean '" : "", best ? best : "",
                   best ? "'?)" : "", n ? known : "(none found)");
}
