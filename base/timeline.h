/*
 * timeline.h -- when work arrives, measured elsewhere: an arrival trace
 * (the timestamps of real requests, from an access log) and a rate
 * profile (a piecewise-constant rate over time: a day's curve from a
 * metrics system).  A scenario's `arrival = trace(FILE)` and
 * `rate = profile(FILE)` point at one (sim/config.h).
 *
 * Like measured.h's tables, a timeline is immutable once read and lives
 * for the rest of the process (a sim_config is a plain value copied
 * freely); the same file read with the same arguments is read once.  Not
 * thread-safe: read by the scenario loader before any run starts.
 *
 * Times in both files are relative to the file's first time: the first
 * request of a trace arrives at 0 s of the run, a profile's first rate
 * holds from 0 s.  So epoch timestamps (1764684000.125) work as they
 * are, and a file that starts at 0 is replayed exactly.
 */
#ifndef SB_TIMELINE_H
#define SB_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

typedef struct trace trace;
typedef struct rate_profile rate_profile;

/* ---- Arrival traces ------------------------------------------------------ */

/* Request timestamps from path: one a line, or a CSV column (column: a
 * 1-based number, or a header name, the first line then a header).
 * unit: what a bare number means ("s" when NULL or ""); a value may
 * carry its own ("1500ms").  caller: NULL or "" when requests are dealt
 * to clients in turn; else the column (number or header name) naming who
 * sent each request, distinct names becoming distinct callers.  Times
 * are read exactly (decimal digits, not through a double) and sorted
 * (ties keep the file's order).  Errors name path:line and what was
 * expected.  Borrowed result, valid for the rest of the process. */
int trace_read(const char *path, const char *column, const char *unit,
               const char *caller, const trace **out, sb_err *e);
/* Requests in the trace. */
uint32_t trace_count(const trace *t);
/* Their times, ns from the first, ascending. */
const int64_t *trace_times(const trace *t);
/* Their callers, 0.. in order of first appearance; NULL without a
 * caller column. */
const uint32_t *trace_callers(const trace *t);
/* Distinct callers (with a caller column), else trace_count. */
uint32_t trace_n_callers(const trace *t);
/* How a scenario writes it back: "trace(/abs/path, col, unit, caller)". */
const char *trace_spec(const trace *t);
/* How a report shows it: the file's name without its folder. */
const char *trace_shown(const trace *t);

/* ---- Rate profiles ------------------------------------------------------- */

/* A piecewise-constant rate from path: lines "TIME, RATE" (or separated
 * by white space), TIME a duration ("90m", "1.5h") or a bare number of
 * seconds, RATE a rate ("10/s", "600/m") or a bare number per second.
 * Times strictly increase; rate i holds from time i until time i+1, the
 * last rate to the end of the run.  A first line whose time is not a
 * number is a header.  total: the rates are the whole population's (a
 * day's curve of requests/s), shared evenly by the clients; else each
 * client's, as [clients] rate is. */
int profile_read(const char *path, bool total, const rate_profile **out,
                 sb_err *e);
/* The expected arrivals of one unit of the profile from 0 to t ns: the
 * integral of the rate (per second) over [0, t]. */
double profile_mass(const rate_profile *p, int64_t t);
/* The first time t >= 0 at which profile_mass(t) reaches m;
 * SIMTIME_END when it never does (a last rate of 0). */
int64_t profile_time_at(const rate_profile *p, double m);
/* The highest rate in it, per second. */
double profile_peak(const rate_profile *p);
/* Its mean rate over [0, t], per second (t > 0). */
double profile_mean(const rate_profile *p, int64_t t);
/* Rates are the population's (profile_read's total). */
bool profile_total(const rate_profile *p);
/* Points (lines of data). */
uint32_t profile_count(const rate_profile *p);
/* "profile(/abs/path)" or "profile(/abs/path, total)". */
const char *profile_spec(const rate_profile *p);
/* The file's name without its folder, for reports. */
const char *profile_shown(const rate_profile *p);

#endif
