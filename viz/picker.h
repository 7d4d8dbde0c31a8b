/*
 * picker.h -- what the policy picker offers and what its clicks mean:
 * the retry policies and layers there are (built-ins and loaded
 * plug-ins), which of them a run's stack holds, its parameters, the
 * stack a click on a policy or a layer makes, and a parameter's next
 * value up or down.  No drawing (controls.c draws the picker) and no
 * state: the app asks each time.
 *
 * A stack is written as the CLI takes it: the retry policy, then its
 * layers, "exponential+token_bucket+circuit_breaker".
 */
#ifndef SB_PICKER_H
#define SB_PICKER_H

#include <stdbool.h>
#include <stddef.h>

#include "controls.h"
#include "err.h"
#include "session.h"

/* The policies offered: every built-in, then each plug-in's (loaded to
 * read its name and whether it is a layer, then closed). */
typedef struct picker_catalogue {
    char name[CONTROLS_MAX_POLICIES][64];
    bool layer[CONTROLS_MAX_POLICIES];
    int n;
} picker_catalogue;

/* Fill c; a plug-in that does not load is left out (its error is the
 * session's to report).  Returns how many were found. */
int picker_catalogue_load(picker_catalogue *c, const char *const *plugins,
                          int n_plugins);

/* The picker for run r, showing the catalogue and ss's stack. */
void picker_fill(controls_picker *p, const picker_catalogue *c,
                 const session *ss, int run);

/* The stack a click on entry i of the catalogue makes from `spec`: a
 * retry policy replaces the stack's, a layer is added or taken away.
 * Returns 0, or -1 when the click changes nothing. */
int picker_click(const picker_catalogue *c, const char *spec, int i, char *out,
                 size_t len);

/* "base=200ms" (or "exponential.base=200ms" when another layer of the
 * stack has a "base" too): parameter k of the stack (as picker_fill
 * counts them) one step up (dir +1) or down (-1) from its value: counts
 * by one below ten and by a tenth above, durations and other numbers
 * along 1-2-5 (0.1 s, 0.2 s, 0.5 s, 1 s), shares in [0, 1] by 0.05,
 * switches flipped, choices to the next; within the parameter's range.
 * -1 when it cannot move that way. */
int picker_step(const pstack *ps, int k, int dir, char *out, size_t len);

/* The next number from x along 1-2-5 times a power of ten (dir +1 up,
 * -1 down); from 0 up, `floor_v`. */
double picker_ladder(double x, int dir, double floor_v);

#endif
