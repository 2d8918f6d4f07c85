/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Near-miss words, for "did you mean" on misspelled commands and options. */
#ifndef SBT_WORDS_H
#define SBT_WORDS_H

#include <stddef.h>

/* Levenshtein distance of a and b; SIZE_MAX for words of 64 bytes or more. */
size_t words__distance(const char *a, const char *b);
/* The candidate nearest to word, if at most max_distance edits away (the
 * first of equals); NULL otherwise. */
const char *words__closest(const char *word, const char *const *cands, size_t n,
			   size_t max_distance);

/* "s" unless n is 1: "%d probe%s". */
static inline const char *words__plural(long n)
{
	return n == 1 ? "" : "s";
}

#endif
