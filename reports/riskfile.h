/*
 * riskfile.h -- compare --risk's estimates, saved: one small versioned
 * text file per estimate (a policy at a sweep point), DIR/risk/
 * pointP-policyI.risk, written whole the moment the estimate is made and
 * read back strictly, so that
 *
 *   - an interrupted `compare --risk` goes on with the estimates it has
 *     not made yet (an estimate is minutes of runs: made once);
 *   - an emitted job makes one estimate (`compare --risk ... --run K`,
 *     K past the comparison's runs) and `merge` gathers them with the
 *     runs, into the same outputs one process writes: the direct command
 *     reads its estimates back from these files too, so both take the
 *     same path from estimate to output.
 *
 * A record (version 2), one field group per line, fields "NAME=VALUE"
 * separated by one space, doubles as runfile_double_text writes them
 * (read back as the same double), booleans 0 or 1:
 *
 *   stormbench-risk-estimate 1
 *   fingerprint 0123456789abcdef     the plan's (compare_plan_fingerprint)
 *   cell point=P policy=I            where the estimate sits in the plan
 *   label exponential:jitter=full    the policy entry, for people
 *   options seed=S horizon_ns=H ...  every option the estimate depends on
 *                                    (compare_risk_opts, the first seed)
 *   estimate p=... lo=... hi=...     risk_result.est, every field
 *   plan levels=N hit_share=...      risk_result.plan's scalars, then
 *   level value=V copies=R crossed=C one line per level
 *   result splitting=B found=B ...   the first storm and the rates
 *   branch steps=K                   the first storm's branch path, then
 *   step at_ns=T key=K               one line per step
 *   note TEXT                        risk_result.note ('\' and line
 *                                    breaks escaped as \\ and \n)
 *   end 0123456789abcdef             FNV-1a 64 of every byte before this
 *                                    line
 *
 * A reader accepts a file only when every line is there, in this order,
 * with every field, the checksum matches and the first five lines are
 * those of the estimate asked for: an estimate of another comparison, or
 * made with other --horizon, --storm-window or --risk-runs, is refused
 * with the reason, never used.  Every field of risk_result is in the
 * record; one added to it must be added here, with the version raised
 * (riskfile.c's size checks stop the build until it is).  Version 2 added
 * fixed-effort splitting's fields (estimate fixed_effort, replicates,
 * per_level; result fixed_effort), which version 1 left out.
 */
#ifndef SB_RISKFILE_H
#define SB_RISKFILE_H

#include <stddef.h>
#include <stdint.h>

#include "compare_risk.h"
#include "err.h"

#define RISKFILE_VERSION 2

/* What an estimate is of: all of it is in the record's head. */
typedef struct riskfile_key {
    const char *fingerprint; /* the plan's */
    uint64_t seed;           /* the first run's seed: the plan's seed0 */
    uint32_t point;
    int policy;
    const char *label; /* the policy entry */
    const compare_risk_opts *o;
} riskfile_key;

/* dir/risk/pointP-policyI.risk */
void riskfile_path(char *buf, size_t len, const char *dir, uint32_t point,
                   int policy);

/* r as k's record into path, whole (a temporary renamed over it; the
 * directory made when missing).  0, or -1 with a message. */
int riskfile_write(const char *path, const riskfile_key *k,
                   const risk_result *r, sb_err *e);

/* k's estimate from path into *r.  0; 1 when there is no such file; -1
 * with "path:line: why" in e when it is there but cannot be used
 * (damaged, another plan's or other options'). */
int riskfile_read(const char *path, const riskfile_key *k, risk_result *r,
                  sb_err *e);

#endif
