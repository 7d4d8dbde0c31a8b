/*
 * saved_command.c -- DIR/command and the jobs file (saved_command.h).
 */
#define _GNU_SOURCE
#include "saved_command.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"

int saved_command_write(const char *dir, const char *magic, const char *cwd,
                        int argc, char **argv, saved_command_skip *skip,
                        sb_err *e)
{
    char path[PATH_MAX + 16];
    if (snprintf(path, sizeof path, "%s/command", dir) >= (int)sizeof path)
        return err_set(e, "%s: the path is too long", dir);
    outfile f;
    if (outfile_open(&f, path, e) != 0)
        return -1;
    fprintf(f.f, "%s\n%s\n", magic, cwd);
    for (int i = 1; i < argc; i++) {
        bool value;
        if (skip(argv[i], &value)) {
            i += value;
            continue;
        }
        if (strchr(argv[i], '\n')) {
            outfile_abort(&f);
            return err_set(e, "an argument holds a line break: '%s'", argv[i]);
        }
        fprintf(f.f, "%s\n", argv[i]);
    }
    return outfile_commit(&f, e);
}

bool saved_command_is(const char *dir, const char *magic)
{
    char path[PATH_MAX + 16], line[128] = "";
    snprintf(path, sizeof path, "%s/command", dir);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return false;
    size_t n = strlen(magic);
    bool yes = fgets(line, sizeof line, f) != NULL &&
               strncmp(line, magic, n) == 0 && line[n] == '\n';
    fclose(f);
    return yes;
}

/* The whole of f, '\0'-terminated, into *text (*len bytes); NULL when
 * memory ran out. */
static char *slurp(FILE *f, size_t *len)
{
    size_t cap = 4096, got;
    char *text = malloc(cap + 1);
    *len = 0;
    while (text && (got = fread(text + *len, 1, cap - *len, f)) > 0) {
        *len += got;
        if (*len == cap) {
            char *more = realloc(text, cap * 2 + 1);
            if (more == NULL) {
                free(text);
                return NULL;
            }
            text = more;
            cap *= 2;
        }
    }
    if (text)
        text[*len] = '\0';
    return text;
}

int saved_command_read(const char *dir, const char *magic, const char *name,
                       char **buf, char ***argv_out, int *argc_out, char *cwd,
                       size_t cwd_len, sb_err *e)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/command", dir);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return err_set(e, "%s: %s", path, strerror(errno));
    size_t len;
    char *text = slurp(f, &len);
    fclose(f);
    if (text == NULL)
        return err_set(e, "out of memory");
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    char **argv = calloc(lines + 2, sizeof *argv);
    if (argv == NULL) {
        free(text);
        return err_set(e, "out of memory");
    }
    int line = 0, argc = 1;
    argv[0] = (char *)name;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save), line++) {
        if (line == 0 && strcmp(l, magic) != 0)
            break;
        if (line == 1)
            snprintf(cwd, cwd_len, "%s", l);
        else if (line > 1)
            argv[argc++] = l;
    }
    if (line < 2) {
        free(argv);
        free(text);
        return err_set(e, "%s: not a command saved by stormbench %s", path,
                       name);
    }
    *buf = text;
    *argv_out = argv;
    *argc_out = argc;
    return 0;
}

/* s, quoted for a POSIX shell. */
static void shell_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

int saved_command_emit_jobs(const char *path, const char *name, int argc,
                            char **argv, saved_command_skip *skip,
                            const char *dir, const char *part_option,
                            uint64_t n, sb_err *e)
{
    char self[PATH_MAX], cwd[PATH_MAX], absdir[PATH_MAX];
    ssize_t got = readlink("/proc/self/exe", self, sizeof self - 1);
    if (got <= 0)
        snprintf(self, sizeof self, "stormbench");
    else
        self[got] = '\0';
    if (getcwd(cwd, sizeof cwd) == NULL || realpath(dir, absdir) == NULL)
        return err_set(e, "%s: %s", dir, strerror(errno));
    outfile f;
    if (outfile_open(&f, path, e) != 0)
        return -1;
    for (uint64_t k = 0; k < n; k++) {
        fputs("cd ", f.f);
        shell_quote(f.f, cwd);
        fputs(" && ", f.f);
        shell_quote(f.f, self);
        fprintf(f.f, " %s", name);
        for (int i = 1; i < argc; i++) {
            bool value;
            if (skip(argv[i], &value)) {
                i += value;
                continue;
            }
            fputc(' ', f.f);
            shell_quote(f.f, argv[i]);
        }
        fputs(" -q -j 1 -o ", f.f);
        shell_quote(f.f, absdir);
        fprintf(f.f, " %s %" PRIu64 "\n", part_option, k);
    }
    return outfile_commit(&f, e);
}
