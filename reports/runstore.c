/*
 * runstore.c -- the index of a comparison's saved runs (runstore.h).
 */
#include "runstore.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"
#include "runfile.h"

#define NO_FILE UINT32_MAX

/* Where a run's record is: file (an index into files), its first byte
 * and length, and the line of the file before it. */
typedef struct place {
    uint32_t file;
    uint32_t line;
    uint64_t offset;
    uint64_t len;
} place;

struct runstore {
    const compare_plan *plan;
    char **files;
    uint32_t n_files, cap_files;
    place *at;  /* per run of the plan; file NO_FILE: none */
    char **why; /* per run: the first refusal, when no whole one */
    runfile_buf buf;
    compare_run *tmp; /* a scratch record for the scan */
    uint32_t stale;   /* records refused, and second records of a run */
};

static int oom(sb_err *e)
{
    return err_set(e, "out of memory for the index of the saved runs");
}

/* A file that can hold records: "x.runs", or "x.run" as older versions
 * and runfile_write name theirs; not a temporary (".x.tmp...", "x.tmpN"). */
static bool record_file(const char *name)
{
    size_t n = strlen(name);
    if (name[0] == '.')
        return false;
    return (n > 5 && strcmp(name + n - 5, ".runs") == 0) ||
           (n > 4 && strcmp(name + n - 4, ".run") == 0);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The record files of dir/runs/, sorted, appended to s->files; *first is
 * the index of the first of them. */
static int list_dir(runstore *s, const char *dir, uint32_t *first, sb_err *e)
{
    char runs[1100];
    snprintf(runs, sizeof runs, "%s/runs", dir);
    *first = s->n_files;
    DIR *d = opendir(runs);
    if (d == NULL)
        return errno == ENOENT || errno == ENOTDIR
                   ? 0
                   : err_set(e, "%s: %s", runs, strerror(errno));
    int rc = 0;
    for (struct dirent *de; rc == 0 && (de = readdir(d)) != NULL;) {
        if (!record_file(de->d_name))
            continue;
        if (s->n_files == s->cap_files) {
            uint32_t cap = s->cap_files ? 2 * s->cap_files : 64;
            char **f = realloc(s->files, cap * sizeof *f);
            if (f == NULL) {
                rc = oom(e);
                break;
            }
            s->files = f;
            s->cap_files = cap;
        }
        size_t len = strlen(runs) + strlen(de->d_name) + 2;
        char *path = malloc(len);
        if (path == NULL) {
            rc = oom(e);
            break;
        }
        snprintf(path, len, "%s/%s", runs, de->d_name);
        s->files[s->n_files++] = path;
    }
    closedir(d);
    if (s->n_files > *first)
        qsort(s->files + *first, s->n_files - *first, sizeof *s->files,
              by_name);
    return rc;
}

/* Run number of (point, policy, seed) in the plan; false when the record
 * is of a run outside it (a seed of a larger --seeds: the fingerprint
 * does not depend on the number of seeds). */
static bool run_number(const compare_plan *p, uint32_t pt, uint32_t pol,
                       uint64_t seed, uint32_t *r)
{
    if (pt >= p->n_points || pol >= (uint32_t)p->n_policies ||
        seed < p->seed0 || seed - p->seed0 >= p->n_seeds)
        return false;
    *r = (pt * (uint32_t)p->n_policies + pol) * p->n_seeds +
         (uint32_t)(seed - p->seed0);
    return true;
}

static int lines_in(const char *t, size_t n)
{
    int k = 0;
    for (const char *p = t; (p = memchr(p, '\n', n - (size_t)(p - t))); p++)
        k++;
    return k;
}

/* One record, text[off, next) of file f: indexed when whole, its refusal
 * kept when it is not and says whose it is. */
static int index_record(runstore *s, uint32_t f, char *text, size_t off,
                        size_t next, int line, sb_err *e)
{
    uint32_t pt, pol, r;
    uint64_t seed;
    bool whose = runfile_whose(text + off, next - off, &pt, &pol, &seed);
    sb_err why = {""};
    if (runfile_parse(text + off, next - off, s->files[f], line,
                      s->plan->fingerprint, s->tmp, NULL, &why) == 0) {
        if (run_number(s->plan, s->tmp->point, s->tmp->policy, s->tmp->seed,
                       &r)) {
            if (s->at[r].file == NO_FILE)
                s->at[r] = (place){f, (uint32_t)line, off, next - off};
            else
                s->stale++;
        }
        return 0;
    }
    s->stale++;
    if (!whose || !run_number(s->plan, pt, pol, seed, &r) || s->why[r] != NULL)
        return 0;
    s->why[r] = strdup(why.msg);
    return s->why[r] ? 0 : oom(e);
}

static int index_file(runstore *s, uint32_t f, sb_err *e)
{
    int rc = runfile_slurp(&s->buf, s->files[f], e);
    if (rc != 0)
        return rc > 0 ? 0 : -1; /* gone since it was listed: none in it */
    char *text = s->buf.p;
    size_t len = s->buf.len, off = 0;
    int line = 0;
    while (off < len && rc == 0) {
        size_t next = runfile_next_record(text, len, off);
        int lines = lines_in(text + off, next - off);
        rc = index_record(s, f, text, off, next, line, e);
        line += lines;
        off = next;
    }
    return rc;
}

int runstore_open(const compare_plan *p, const char *const *dirs, int n_dirs,
                  runstore **out, sb_err *e)
{
    *out = NULL;
    uint32_t n = compare_n_runs(p);
    runstore *s = calloc(1, sizeof *s);
    if (s == NULL)
        return oom(e);
    s->plan = p;
    s->at = malloc((n ? n : 1) * sizeof *s->at);
    s->why = calloc(n ? n : 1, sizeof *s->why);
    s->tmp = malloc(sizeof *s->tmp);
    if (s->at == NULL || s->why == NULL || s->tmp == NULL) {
        runstore_close(s);
        return oom(e);
    }
    for (uint32_t r = 0; r < n; r++)
        s->at[r].file = NO_FILE;
    for (int i = 0; i < n_dirs; i++) {
        uint32_t first;
        if (list_dir(s, dirs[i], &first, e) != 0)
            goto fail;
        for (uint32_t f = first; f < s->n_files; f++)
            if (index_file(s, f, e) != 0)
                goto fail;
    }
    for (uint32_t r = 0; r < n; r++)
        if (s->at[r].file != NO_FILE && s->why[r]) {
            free(s->why[r]);
            s->why[r] = NULL;
        }
    *out = s;
    return 0;
fail:
    runstore_close(s);
    return -1;
}

void runstore_close(runstore *s)
{
    if (s == NULL)
        return;
    for (uint32_t f = 0; f < s->n_files; f++)
        free(s->files[f]);
    free(s->files);
    if (s->why)
        for (uint32_t r = 0; r < compare_n_runs(s->plan); r++)
            free(s->why[r]);
    free(s->why);
    free(s->at);
    free(s->tmp);
    runfile_buf_free(&s->buf);
    free(s);
}

bool runstore_has(const runstore *s, uint32_t r)
{
    return s->at[r].file != NO_FILE;
}

const char *runstore_why(const runstore *s, uint32_t r)
{
    return s->why[r];
}

uint32_t runstore_stale(const runstore *s)
{
    return s->stale;
}

/* The record's bytes into s->buf. */
static int read_bytes(runstore *s, const place *at, sb_err *e)
{
    const char *path = s->files[at->file];
    s->buf.len = 0;
    if (s->buf.cap < at->len + 1) {
        char *p = realloc(s->buf.p, at->len + 1);
        if (p == NULL)
            return oom(e);
        s->buf.p = p;
        s->buf.cap = at->len + 1;
    }
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return err_set(e, "%s: %s", path, strerror(errno));
    size_t done = 0;
    while (done < at->len) {
        ssize_t got = pread(fd, s->buf.p + done, at->len - done,
                            (off_t)(at->offset + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        done += (size_t)got;
    }
    close(fd);
    if (done != at->len)
        return err_set(e, "%s: changed while it was read", path);
    s->buf.len = done;
    s->buf.p[done] = '\0';
    return 0;
}

int runstore_read(runstore *s, uint32_t r, compare_run *run,
                  compare_series *series, sb_err *e)
{
    const place *at = &s->at[r];
    if (at->file == NO_FILE)
        return 1;
    if (read_bytes(s, at, e) != 0 ||
        runfile_parse(s->buf.p, s->buf.len, s->files[at->file], (int)at->line,
                      s->plan->fingerprint, run, series, e) != 0)
        return -1;
    uint32_t pt, pol, sd;
    compare_run_at(s->plan, r, &pt, &pol, &sd);
    run->seed_index = sd;
    return 0;
}

/* ---- Compaction ---------------------------------------------------------- */

/* Whose run a whole record is: no padding, so it hashes as bytes. */
typedef struct run_key {
    uint64_t seed;
    uint32_t point, policy;
} run_key;

/* The runs kept so far: open addressing, at most half full. */
typedef struct key_set {
    run_key *k;
    bool *used;
    size_t cap, n;
} key_set;

static size_t key_slot(const key_set *ks, const run_key *k)
{
    size_t i = (size_t)runfile_hash(RUNFILE_FNV, k, sizeof *k) & (ks->cap - 1);
    while (ks->used[i] && memcmp(&ks->k[i], k, sizeof *k) != 0)
        i = (i + 1) & (ks->cap - 1);
    return i;
}

static int key_grow(key_set *ks)
{
    key_set big = {NULL, NULL, ks->cap ? 2 * ks->cap : 256, 0};
    big.k = malloc(big.cap * sizeof *big.k);
    big.used = calloc(big.cap, sizeof *big.used);
    if (big.k == NULL || big.used == NULL) {
        free(big.k);
        free(big.used);
        return -1;
    }
    for (size_t i = 0; i < ks->cap; i++)
        if (ks->used[i]) {
            size_t j = key_slot(&big, &ks->k[i]);
            big.k[j] = ks->k[i];
            big.used[j] = true;
            big.n++;
        }
    free(ks->k);
    free(ks->used);
    *ks = big;
    return 0;
}

/* 1 when k is new (now added), 0 when it was there, -1 out of memory. */
static int key_add(key_set *ks, const run_key *k)
{
    if (2 * (ks->n + 1) > ks->cap && key_grow(ks) != 0)
        return -1;
    size_t i = key_slot(ks, k);
    if (ks->used[i])
        return 0;
    ks->k[i] = *k;
    ks->used[i] = true;
    ks->n++;
    return 1;
}

/* The compaction's scratch: the files listed (in s), the record being
 * parsed (a copy: parsing changes it), the runs kept. */
typedef struct compactor {
    runstore *s;
    char *copy;
    size_t copy_cap;
    key_set seen;
} compactor;

/* 1 when text[0, len), at `line` of file f, is a whole record of this
 * plan whose run has none yet; 0 when stale; -1 out of memory. */
static int keep_record(compactor *cp, uint32_t f, const char *text, size_t len,
                       int line)
{
    if (cp->copy_cap < len + 1) {
        char *p = realloc(cp->copy, len + 1);
        if (p == NULL)
            return -1;
        cp->copy = p;
        cp->copy_cap = len + 1;
    }
    memcpy(cp->copy, text, len);
    cp->copy[len] = '\0';
    sb_err why = {""};
    runstore *s = cp->s;
    if (runfile_parse(cp->copy, len, s->files[f], line, s->plan->fingerprint,
                      s->tmp, NULL, &why) != 0)
        return 0;
    run_key k = {s->tmp->seed, s->tmp->point, s->tmp->policy};
    return key_add(&cp->seen, &k);
}

/* File f's records that keep_record keeps, appended to out. */
static int compact_file(compactor *cp, uint32_t f, FILE *out,
                        runstore_compaction *c, sb_err *e)
{
    runstore *s = cp->s;
    int rc = runfile_slurp(&s->buf, s->files[f], e);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    c->files++;
    const char *text = s->buf.p;
    size_t len = s->buf.len, off = 0;
    int line = 0;
    while (off < len) {
        size_t next = runfile_next_record(text, len, off);
        int keep = keep_record(cp, f, text + off, next - off, line);
        if (keep < 0)
            return oom(e);
        c->records++;
        if (keep)
            fwrite(text + off, 1, next - off, out);
        else
            c->stale++;
        line += lines_in(text + off, next - off);
        off = next;
    }
    return 0;
}

/* Every file listed but the compacted one (replaced already).  A file
 * that cannot be removed holds duplicates only: the next compaction
 * tries again. */
static void remove_compacted(const runstore *s, const char *kept)
{
    for (uint32_t f = 0; f < s->n_files; f++)
        if (strcmp(s->files[f], kept) != 0)
            (void)unlink(s->files[f]);
}

void (*runstore_compact_hook)(void *arg);
void *runstore_compact_hook_arg;

/* access(), not a trial write: it leaves the folder as it was, and
 * answers as the open would (EACCES for a mode, EROFS for a read-only
 * mount; for root, a mode does not stop the open, and access says so). */
int runstore_compact_writable(const char *dir, sb_err *e)
{
    char runs[1100];
    snprintf(runs, sizeof runs, "%s/runs", dir);
    if (access(runs, F_OK) != 0 || access(runs, W_OK | X_OK) == 0)
        return 0;
    return err_set(e,
                   "%s: cannot be written (%s), so its stale records "
                   "cannot be compacted",
                   runs, strerror(errno));
}

/* Compact under the lock that appenders hold (runfile_lock). */
static int compact_locked(const compare_plan *p, const char *dir,
                          runstore_compaction *c, sb_err *e);

int runstore_compact(const compare_plan *p, const char *dir,
                     runstore_compaction *c, sb_err *e)
{
    memset(c, 0, sizeof *c);
    char runs[1100];
    snprintf(runs, sizeof runs, "%s/runs", dir);
    if (access(runs, F_OK) != 0)
        return 0; /* nothing saved: no lock file to make */
    int fd = -1;
    int rc = runfile_lock(dir, true, &fd, e);
    if (rc != 0) {
        c->busy = rc > 0;
        return rc > 0 ? 0 : -1;
    }
    rc = compact_locked(p, dir, c, e);
    close(fd);
    return rc;
}

static int compact_locked(const compare_plan *p, const char *dir,
                          runstore_compaction *c, sb_err *e)
{
    compactor cp = {calloc(1, sizeof *cp.s), NULL, 0, {NULL, NULL, 0, 0}};
    outfile o;
    memset(&o, 0, sizeof o);
    char path[1200];
    snprintf(path, sizeof path, "%s/runs/compacted.runs", dir);
    int rc = -1;
    uint32_t first;
    if (cp.s == NULL || (cp.s->tmp = malloc(sizeof *cp.s->tmp)) == NULL) {
        oom(e);
        goto done;
    }
    cp.s->plan = p;
    if (list_dir(cp.s, dir, &first, e) != 0)
        goto done;
    rc = 0;
    if (cp.s->n_files == 0 || outfile_open(&o, path, e) != 0) {
        rc = cp.s->n_files == 0 ? 0 : -1;
        goto done;
    }
    for (uint32_t f = 0; f < cp.s->n_files && rc == 0; f++)
        rc = compact_file(&cp, f, o.f, c, e);
    if (runstore_compact_hook)
        runstore_compact_hook(runstore_compact_hook_arg);
    if (rc != 0 || c->stale == 0) {
        outfile_abort(&o);
        goto done;
    }
    rc = outfile_commit(&o, e);
    if (rc == 0)
        remove_compacted(cp.s, path);
done:
    free(cp.copy);
    free(cp.seen.k);
    free(cp.seen.used);
    runstore_close(cp.s);
    return rc;
}
