#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p for the directory part of path. */
int outfile_make_parents(const char *path, sb_err *e)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir)
        return 0;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            return err_set(e, "%s: cannot create directory %s: %s", path, dir,
                           strerror(errno));
        *p = '/';
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return err_set(e, "%s: cannot create directory %s: %s", path, dir,
                       strerror(errno));
    return 0;
}

int outfile_open(outfile *o, const char *path, sb_err *e)
{
    memset(o, 0, sizeof *o);
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        o->is_stdout = true;
        return 0;
    }
    if (strlen(path) >= sizeof o->path - 1)
        return err_set(e, "%s: path too long", path);
    snprintf(o->path, sizeof o->path, "%s", path);
    if (outfile_make_parents(path, e) != 0)
        return -1;
    snprintf(o->tmp, sizeof o->tmp, "%s.tmpXXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int err = errno;
        o->tmp[0] = '\0';
        return err_set(e, "%s: cannot write: %s", path, strerror(err));
    }
    fchmod(fd, 0644);
    o->f = fdopen(fd, "w");
    if (o->f == NULL) {
        int err = errno;
        close(fd);
        unlink(o->tmp);
        o->tmp[0] = '\0';
        return err_set(e, "%s: cannot write: %s", path, strerror(err));
    }
    return 0;
}

int outfile_finish(outfile *o, sb_err *e)
{
    if (o->is_stdout) {
        if (fflush(stdout) != 0 || ferror(stdout))
            return err_set(e, "standard output: write failed");
        return 0;
    }
    if (o->f == NULL)
        return 0;
    bool bad = fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) != 0;
    int err = errno;
    if (fclose(o->f) != 0 && !bad) {
        bad = true;
        err = errno;
    }
    o->f = NULL;
    if (bad) {
        unlink(o->tmp);
        o->tmp[0] = '\0';
        return err_set(e, "%s: write failed: %s", o->path, strerror(err));
    }
    return 0;
}

int outfile_commit(outfile *o, sb_err *e)
{
    if (outfile_finish(o, e) != 0)
        return -1;
    if (o->is_stdout)
        return 0;
    if (o->tmp[0] == '\0') /* finished already, and failed */
        return err_set(e, "%s: write failed", o->path);
    if (rename(o->tmp, o->path) != 0) {
        int err = errno;
        unlink(o->tmp);
        o->tmp[0] = '\0';
        return err_set(e, "%s: write failed: %s", o->path, strerror(err));
    }
    o->tmp[0] = '\0';
    return 0;
}

void outfile_abort(outfile *o)
{
    if (o->is_stdout)
        return;
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp[0])
        unlink(o->tmp);
    o->tmp[0] = '\0';
}

int outfile_write_whole(const char *path, const void *data, size_t len,
                        sb_err *e)
{
    char tmp[1040];
    if (strlen(path) >= sizeof tmp - 12)
        return err_set(e, "%s: path too long", path);
    snprintf(tmp, sizeof tmp, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return err_set(e, "%s: cannot write: %s", path, strerror(errno));
    fchmod(fd, 0644);
    const char *p = data;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, p + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    int err = errno;
    if (close(fd) != 0 && done == len) {
        err = errno;
        done = 0;
    }
    if (done != len || rename(tmp, path) != 0) {
        if (done == len)
            err = errno;
        unlink(tmp);
        return err_set(e, "%s: write failed: %s", path, strerror(err));
    }
    return 0;
}
