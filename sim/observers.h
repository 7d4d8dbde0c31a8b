/*
 * observers.h -- who hears what a run does: the front ends' observers
 * (sim.h, sim_observe), told of every closed bucket and every trace
 * record.  Internal to sim/.
 *
 * The observers belong to whoever added them (their ctx is theirs); the
 * run holds copies of the small records, and calls them from inside
 * sim_run_until and sim_finish only.
 */
#ifndef SB_OBSERVERS_H
#define SB_OBSERVERS_H

#include <stdbool.h>

#include "sim.h"

#define MAX_OBSERVERS 8

/* Invariant (observers_sane): 0 <= n <= MAX_OBSERVERS; hear_quiet is
 * the number of them with a bucket hook that do not skip quiet buckets. */
typedef struct observers {
    sim_observer o[MAX_OBSERVERS];
    int n;
    int hear_quiet;
} observers;

/* Add a copy of o; -1 when there are MAX_OBSERVERS already. */
static inline int observers_add(observers *ob, const sim_observer *o)
{
    if (ob->n == MAX_OBSERVERS)
        return -1;
    ob->o[ob->n++] = *o;
    ob->hear_quiet += o->bucket_closed && !o->skip_quiet;
    return 0;
}

/* Tell every observer with a trace hook of t. */
static inline void observers_trace(const observers *ob, const sim_trace *t)
{
    for (int i = 0; i < ob->n; i++)
        if (ob->o[i].trace)
            ob->o[i].trace(ob->o[i].ctx, t);
}

/* Tell every observer with a bucket hook that bucket b (h) of s closed,
 * but those that skip quiet buckets of a quiet one (quiet:
 * phases_bucket_quiet(b, h)). */
static inline void observers_bucket(const observers *ob, const sim *s,
                                    const metrics_bucket *b,
                                    const metrics_hist *h, bool quiet)
{
    if (quiet && ob->hear_quiet == 0) /* most buckets, with compare's */
        return;
    for (int i = 0; i < ob->n; i++)
        if (ob->o[i].bucket_closed && !(quiet && ob->o[i].skip_quiet))
            ob->o[i].bucket_closed(ob->o[i].ctx, s, b, h);
}

static inline bool observers_sane(const observers *ob)
{
    int hear_quiet = 0;
    for (int i = 0; i < ob->n && i < MAX_OBSERVERS; i++)
        hear_quiet += ob->o[i].bucket_closed && !ob->o[i].skip_quiet;
    return ob->n >= 0 && ob->n <= MAX_OBSERVERS && ob->hear_quiet == hear_quiet;
}

#endif
