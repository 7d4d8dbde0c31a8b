/*
 * suggest.h -- "did you mean ...?" for names a user mistyped: scenario
 * keys, sections, policy names, expectation keys.
 */
#ifndef SB_SUGGEST_H
#define SB_SUGGEST_H

#include <stddef.h>

/* The edit (Levenshtein) distance between a and b; 99 when either is
 * longer than 40 characters. */
int suggest_distance(const char *a, const char *b);

/* The name in names[0..n) closest to word, if it is within 2 edits (and
 * is not word itself); else NULL. */
const char *suggest_closest(const char *word, const char *const *names, int n);

/* Join names with ", " into buf; returns buf. */
const char *suggest_list(const char *const *names, int n, char *buf,
                         size_t len);

#endif
