// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Period detection (doc/design.md §5.6). A site repeated at once is one
 * element (an inner loop of one site, however many times it runs). For each
 * candidate period p ≤ PERIOD_MAX, run[p] counts the latest elements equal to
 * the one p before; p holds when the last PERIOD_REPS·p elements repeat
 * (run[p] ≥ (PERIOD_REPS − 1)·p). Each element votes for the smallest period
 * holding there. The period is the longest one voted for with at least
 * 1/PERIOD_SHARE of the votes of the most voted: an inner loop
 * holds inside the outer one, the outer everywhere else, and multiples of a
 * period never hold where it does not.
 */
#include <stdlib.h>
#include <string.h>
#include "analyses/period.h"

#define PERIOD_SHARE 16

void period__init(struct period *d)
{
	memset(d, 0, sizeof(*d));
}

void period__free(struct period *d)
{
	__u32 p;

	for (p = 1; p <= PERIOD_MAX; p++)
		free(d->pat[p]);
	memset(d->pat, 0, sizeof(d->pat));
}

/* The element p before the latest one (p ≤ n, p ≤ PERIOD_MAX). */
static __u32 back(const struct period *d, __u32 p)
{
	return d->hist[(d->n - p) % PERIOD_MAX];
}

/* p's pattern: the last p elements, at its first vote. */
static void keep_pattern(struct period *d, __u32 p)
{
	__u32 i;

	if (d->pat[p] || !(d->pat[p] = malloc(p * sizeof(__u32))))
		return;
	for (i = 0; i < p; i++)
		d->pat[p][i] = d->hist[(d->n - p + i) % PERIOD_MAX];
}

/* Adds x at position n; returns the smallest period holding there (0: none). */
static __u32 update_runs(struct period *d, __u32 x)
{
	__u32 p, max = d->n < PERIOD_MAX ? (__u32)d->n : PERIOD_MAX, smallest = 0;

	for (p = 1; p <= max; p++) {
		d->run[p] = back(d, p) == x ? d->run[p] + 1 : 0;
		if (!smallest && d->run[p] >= (PERIOD_REPS - 1) * p)
			smallest = p;
	}
	return smallest;
}

int period__feed(struct period *d, __u32 x)
{
	__u32 p;

	if (d->raw++ && x == d->last)
		return 1;
	d->last = x;
	p = update_runs(d, x);
	d->hist[d->n % PERIOD_MAX] = x;
	d->n++;
	if (p && !d->votes[p]++)
		keep_pattern(d, p);
	return 0;
}

__u32 period__get(const struct period *d, const __u32 **pat)
{
	__u64 most = 0;
	__u32 p, best = 0;

	*pat = NULL;
	if (d->n == 1 && d->raw >= PERIOD_REPS) {
		*pat = &d->last; /* one site, repeated: each is an iteration */
		return 1;
	}
	for (p = 1; p <= PERIOD_MAX; p++)
		if (d->votes[p] > most)
			most = d->votes[p];
	for (p = 1; p <= PERIOD_MAX; p++)
		if (d->pat[p] && d->votes[p] * PERIOD_SHARE >= most)
			best = p;
	if (best)
		*pat = d->pat[best];
	return best;
}
