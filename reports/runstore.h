/*
 * runstore.h -- which runs of a comparison are saved, and where: an index
 * of every record (reports/runfile.h) in the files under DIR/runs/ of one
 * or more directories.
 *
 * Opening reads every file whole once and parses every record in it
 * (strictly: checksum, every line, the plan's fingerprint), so a run the
 * store has is one a load can use.  For each run of the plan it keeps the
 * first whole record of it -- directories in the order given, files by
 * name, records in file order (two whole records of one run of one plan
 * hold the same bytes: runs are deterministic) -- and, for a run with no
 * whole record, why the first damaged or stale record of it was refused
 * ("DIR/runs/x.runs:40: truncated (no end line)").  A record too damaged
 * to say whose it is counts for no run: its run is simply missing.
 *
 * The files are not held open: runstore_read opens the record's file,
 * reads the record and closes it.  One thread at a time.
 */
#ifndef SB_RUNSTORE_H
#define SB_RUNSTORE_H

#include <stdbool.h>
#include <stdint.h>

#include "compare.h"
#include "err.h"

typedef struct runstore runstore;

/* Index the saved runs of plan p (borrowed: it must outlive the store)
 * under dirs[i]/runs/; a directory without runs/ has none.  0, or -1 with
 * a message (out of memory, a file that cannot be read). */
int runstore_open(const compare_plan *p, const char *const *dirs, int n_dirs,
                  runstore **out, sb_err *e);
void runstore_close(runstore *s);

/* Has run r a whole record of this plan? */
bool runstore_has(const runstore *s, uint32_t r);
/* Why run r has none, when a record of it was found and refused; NULL
 * when it has one or none was found.  Valid until runstore_close. */
const char *runstore_why(const runstore *s, uint32_t r);

/* How many records the index found stale (below): refused ones, and
 * second records of a run of the plan.  Not counted: a second record of
 * a run outside the plan (a seed beyond it), which runstore_compact
 * would drop too; compare compacts only when this is not 0, so that a
 * directory without stale records costs no second read. */
uint32_t runstore_stale(const runstore *s);

/* Run r's record into *run (seed_index set) and, when series is not NULL,
 * *series.  0; 1 when the store has no record of r; -1 with a message
 * (its file changed since the store was opened). */
int runstore_read(runstore *s, uint32_t r, compare_run *run,
                  compare_series *series, sb_err *e);

/* ---- Compaction ----------------------------------------------------------
 *
 * A record is stale when no load of this comparison can use it: a torn or
 * damaged record (a crash cut a file's last record short; an edit), one
 * saved by another plan or another stormbench (its fingerprint differs:
 * the directory was taken over with --force, or the program changed),
 * and a second record of a run already saved (a run repeated after its
 * record was refused, two jobs that ran it).  Nothing else removes them,
 * so runs/ would only grow.
 *
 * runstore_compact reads every record file of dir/runs/ and, when any of
 * them holds a stale record, writes every other record -- whole, under
 * this plan's fingerprint, the first of its run -- into one file,
 * dir/runs/compacted.runs (a temporary renamed over it, synced), then
 * removes the files it read.  The records kept are those files' bytes, in
 * the order a load reads them, so a load finds the same record of every
 * run and the outputs are the same bytes.  Records of seeds beyond the
 * plan's are kept (a later --seeds reuses them, the fingerprint being
 * the same).  A crash before the rename leaves the old files (and a
 * temporary no reader lists); after it, duplicates that the next
 * compaction drops.
 *
 * The files must not be appended to meanwhile: a record appended to a
 * file after it was read would be removed with it.  So the compaction
 * holds dir/runs/.lock exclusive (runfile_lock), which every appender
 * (runfile_log) holds shared while its file is open; when a job (--run,
 * in this process or another, on this machine or one sharing the
 * directory) has its file open, the compaction does not wait for it but
 * leaves runs/ as it is (busy): the next compare or `merge --compact`
 * drops those records.  compare calls it once every run of the plan is
 * saved, never from a job, whose siblings may still be appending. */
typedef struct runstore_compaction {
    uint32_t files;   /* record files read */
    uint32_t records; /* records in them, stale ones included */
    uint32_t stale;   /* records dropped; 0: nothing was rewritten */
    bool busy;        /* an appender held the lock: nothing was read */
} runstore_compaction;

/* Compact dir/runs/ for plan p as above; *c says what it found.  0, or
 * -1 with a message (the files are then as they were, or hold
 * duplicates only). */
int runstore_compact(const compare_plan *p, const char *dir,
                     runstore_compaction *c, sb_err *e);

/* Can runstore_compact write dir/runs/ (its lock, compacted.runs)?  0
 * (also when there is no dir/runs: nothing to compact), or -1 with a
 * message naming the folder and why.  For a caller that would otherwise
 * find out only after writing its other outputs. */
int runstore_compact_writable(const char *dir, sb_err *e);

/* Tests only: when set, runstore_compact calls it with arg once it has
 * read every file and before it replaces them (where an append that the
 * lock did not keep out would be lost). */
extern void (*runstore_compact_hook)(void *arg);
extern void *runstore_compact_hook_arg;

#endif
