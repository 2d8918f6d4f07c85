/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Period of a sequence of barrier sites (doc/design.md §5.6): the program's
 * outer iteration found at run time, as SelfAnalyzer's periodicity detector
 * does. Pure: fed site ids one at a time, constant work per element (at most
 * PERIOD_MAX candidate periods), memory bounded per sequence.
 */
#ifndef SBT_PERIOD_H
#define SBT_PERIOD_H

#include <linux/types.h>

#define PERIOD_MAX  256 /* longest period looked for, in sites */
#define PERIOD_REPS 3	/* repetitions before a period holds */

/* The window of a sequence with two sites or more (allocated then: a process
 * with one site keeps none). */
struct period_win {
	__u32 hist[PERIOD_MAX]; /* the last elements (collapsed), a ring */
	/* per candidate p: positions in a row equal to the one p before,
	 * positions where p was the smallest period holding, and its
	 * pattern, copied at the first of them (NULL: none yet) */
	__u32 run[PERIOD_MAX + 1];
	__u64 votes[PERIOD_MAX + 1];
	__u32 *pat[PERIOD_MAX + 1];
};

struct period {
	__u64 n;	      /* elements fed, collapsed */
	__u64 raw;	      /* elements fed */
	__u32 last;	      /* the latest element */
	__u32 first;	      /* the first element */
	__u64 tail;	      /* times the latest element came in a row */
	struct period_win *w; /* NULL: one site so far, or no memory */
};

void period__init(struct period *d);
void period__free(struct period *d);
/* Feed element x. Returns 1 when x repeats the latest element (collapsed:
 * an inner loop of one site), 0 otherwise. */
int period__feed(struct period *d, __u32 x);
/* The period detected so far: its length (0: none) and, in *pat, its
 * elements in the order of one repetition (any rotation). */
__u32 period__get(const struct period *d, const __u32 **pat);

#endif
