/*
 * runfile.h -- the runs of a comparison, saved: small versioned text
 * records, appended the moment each run ends to a file of the thread that
 * ran it under DIR/runs/ (HOST-PID-K.runs, one write per record), and
 * read back strictly (reports/runstore.h finds them).
 *
 * Why a file per thread and not per run: creating, renaming and closing a
 * file per run cost more than the reduction and the record together (a
 * short run's engine work is a few hundred microseconds; bench/README.md
 * has the figures).  A record is still whole or refused: it ends in its
 * own checksum, and a file's records are only ever appended, so a crash
 * can cut short only the last record of its file, which a reader then
 * refuses by its checksum and the run is run again.  A file of one record
 * (runfile_write, and the one file per run that older versions wrote) is
 * read the same way.
 *
 * A record (version 4), one field group per line, fields separated by one
 * space, numbers as C's strtod reads them ("nan" where there is no
 * value):
 *
 *   stormbench-run 4
 *   fingerprint 0123456789abcdef      the plan's (compare_plan_fingerprint)
 *   run point=P policy=I seed=S       where the run sits in the plan
 *   label exponential:jitter=full     the policy entry, for people
 *   summary NAME=VALUE ...            every sim_summary field but its
 *                                     phases, in the order of
 *                                     runfile_summary_fields
 *   phase before NAME=VALUE ...       the summary's phase[] (sim/phases.h),
 *   ... (during, after, end)          or "phase after -" when the phase
 *                                     is not present
 *   pipeline strategy=S NAME=VALUE .. the summary's pipeline (sim.h) but
 *                                     its steps, or "pipeline -" when the
 *                                     run has none
 *   step NAME=VALUE ...               one per step, in order, its figures
 *                                     but its name (the scenario's)
 *   latency_ms V ...                  COMPARE_CDF_POINTS quantiles
 *   series rows=N row_s=W             then N rows of CC_COUNT values;
 *   V V V V V V V                     "= K" stands for K more rows equal
 *   = K                               to the one before (a short run in a
 *                                     long scenario is mostly idle rows)
 *   tier NAME=VALUE ...               a service chain's tiers
 *                                     (compare_tier), from the top: only
 *                                     in a run that has a chain
 *   end 0123456789abcdef              FNV-1a 64 of every byte before
 *                                     this line
 *
 * A reader accepts a file only when every line is there, in this order,
 * with every field, and the checksum matches: a truncated, edited or
 * older file is refused with a reason, never half used.  Doubles are
 * written with digits enough to read back the same double (floats the
 * same), so a loaded summary is bit for bit the one the run computed.
 *
 * The tier lines came later within version 4: a run without a chain is
 * saved as before, and a chain's run saved without them is refused by
 * compare_load (it has the tiers' count from the scenario) and run again.
 *
 * Version 4 added the pipeline and step lines (a loaded run's step names
 * are NULL until the caller names them from the scenario: compare.c does).
 * Version 3 added other_errors and overflowed to the summary (each
 * attempt's end counted once: sim/metrics.h) and writes the version on
 * the first line (versions 1 and 2 both wrote "1" there; the version is
 * also in the plan's fingerprint, so an older file is refused either way).
 */
#ifndef SB_RUNFILE_H
#define SB_RUNFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compare.h"
#include "err.h"

#define RUNFILE_VERSION 4

/* The longest field name + 1. */
#define RUNFILE_NAME_MAX 32

/* The type of a sim_summary field. */
typedef enum runfile_type { RF_U64, RF_U32, RF_DOUBLE, RF_BOOL } runfile_type;

/* A sim_summary field: its name (as the file and runs.csv spell it), its
 * type and where it is. */
typedef struct runfile_field {
    /* In an array of its own, so that a writer copies a fixed 32 bytes
     * and keeps len of them (no strlen and no call per field). */
    char name[RUNFILE_NAME_MAX];
    runfile_type type;
    size_t offset;
    size_t len; /* strlen(name) */
} runfile_field;

/* Every field of sim_summary, in file order. */
extern const runfile_field runfile_summary_fields[];
extern const size_t runfile_n_summary_fields;

/* The fields of a summary's pipeline (sim_pipeline_summary) but its
 * strategy and steps, in file order. */
extern const runfile_field runfile_pipeline_fields[];
extern const size_t runfile_n_pipeline_fields;

/* A field's value as the file writes it: counts as integers, doubles as
 * runfile_double_text. */
void runfile_field_text(const sim_summary *s, const runfile_field *f, char *buf,
                        size_t len);
/* The same, of a field of any table, in the struct at base. */
void runfile_value_text(const void *base, const runfile_field *f, char *buf,
                        size_t len);

/* A file for run (point, policy, seed) alone under dir (for
 * runfile_write): dir/runs/pointP-policyI-seedS.run. */
void runfile_path(char *buf, size_t len, const char *dir, uint32_t point,
                  uint32_t policy, uint64_t seed);

/* A growable text buffer, reused from run to run by one thread. */
typedef struct runfile_buf {
    char *p;
    size_t len, cap;
} runfile_buf;
void runfile_buf_free(runfile_buf *b);

/* The run's record into b (cleared first).  0, or -1 with a message. */
int runfile_format(runfile_buf *b, const char *fingerprint, const char *label,
                   const compare_run *r, const compare_series *series,
                   sb_err *e);

/* Format the run and write it to path whole, as a file of its own: a
 * temporary file beside it, renamed over it.  Returns 0, or -1 with a
 * message. */
int runfile_write(runfile_buf *b, const char *path, const char *fingerprint,
                  const char *label, const compare_run *r,
                  const compare_series *series, sb_err *e);

/* A thread's file of records.  Zeroed: not yet created.  While it is
 * open, it holds dir/runs/.lock shared (runfile_lock), so that no
 * compaction (runstore_compact) removes a file being appended to. */
typedef struct runfile_log {
    int fd;
    int lock_fd; /* dir/runs/.lock, held shared while open */
    bool open;
    char path[1200];
} runfile_log;

/* Append the record in b (runfile_format's) to l's file, creating it
 * under dir/runs/ on the first call (the directory must exist), after
 * taking dir/runs/.lock shared (waiting while a compaction holds it).
 * No fsync: a run lost in a crash is simply run again.  0, or -1 with a
 * message naming the file. */
int runfile_log_append(runfile_log *l, const char *dir, const runfile_buf *b,
                       sb_err *e);
/* Close l's file (nothing when none was created) and release its lock.
 * 0, or -1. */
int runfile_log_close(runfile_log *l, sb_err *e);

/* The advisory lock of dir/runs/ (the file dir/runs/.lock, created when
 * missing; a dot file, so no reader takes it for records): shared by
 * every appender while its file is open, exclusive for a compaction.
 * flock(2) locks, released by the kernel when the process dies, so a
 * crashed job never leaves the directory locked.  On Linux, NFS clients
 * emulate flock with the server's byte-range locks, so jobs on several
 * machines sharing one directory see each other's locks where the NFS
 * lock service runs.  Exclusive without waiting when `exclusive` (1 when
 * another holds it: busy), shared and waiting otherwise.  0 with *fd the
 * lock's descriptor (close it to release), 1 busy, or -1 with a message
 * naming the file. */
int runfile_lock(const char *dir, bool exclusive, int *fd, sb_err *e);

/* The whole file at path into b (NUL-terminated).  0; 1 when it does not
 * exist; -1 with a message. */
int runfile_slurp(runfile_buf *b, const char *path, sb_err *e);

/* Where the record after the one at `from` starts in text: the offset of
 * the next line that opens a record, or len. */
size_t runfile_next_record(const char *text, size_t len, size_t from);

/* Parse one record, text[0, len) (changed in place), which starts at line
 * `line` + 1 of path: the checksum first, then every line in order, and
 * that it belongs to the plan with this fingerprint.  Fills *r (point,
 * policy and seed from the record; seed_index left 0) and, when series
 * is not NULL, *series.  Returns 0, or -1 with the reason and path:line
 * in e ("truncated", "its checksum does not match", "saved by another
 * plan"). */
int runfile_parse(char *text, size_t len, const char *path, int line,
                  const char *fingerprint, compare_run *r,
                  compare_series *series, sb_err *e);

/* Whose record text[0, len) is, from its "run" line, even when the record
 * is damaged: false when that line cannot be read. */
bool runfile_whose(const char *text, size_t len, uint32_t *point,
                   uint32_t *policy, uint64_t *seed);

/* v as text that reads back as v: 15 significant digits when they do,
 * else 17; whole numbers below 2^53 as integers, "nan" for NaN.  buf: 32
 * bytes. */
void runfile_double_text(double v, char *buf, size_t len);

/* FNV-1a 64 of len bytes, continuing from h (start from RUNFILE_FNV). */
#define RUNFILE_FNV 0xcbf29ce484222325ull
uint64_t runfile_hash(uint64_t h, const void *data, size_t len);

#endif
