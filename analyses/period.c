// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Period detection (doc/design.md §5.6). A site repeated at once is one
 * element (an inner loop of one site, however many times it runs). For each
 * candidate period p ≤ PERIOD_MAX, run[p] counts the latest elements equal to
 * the one p before; p holds when the last PERIOD_REPS·p elements repeat
 * (run[p] ≥ (PERIOD_REPS − 1)·p). Each element votes for the smallest period
 * holding there. The period is the longest one voted for with at least
 * 1/PERIOD_SHARE of the votes of the most voted: an inner loop holds inside
 * the outer one, the outer everywhere else, and multiples of a period never
 * hold where it does not. A sequence of one site keeps no window; one whose
 * sites come to an end in a site repeated (a loop of one site after an
 * initialization) has that site for period when no other holds.
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

	for (p = 1; d->w && p <= PERIOD_MAX; p++)
		free(d->w->pat[p]);
	free(d->w);
	d->w = NULL;
}

/* The element p before the latest one (p ≤ n, p ≤ PERIOD_MAX). */
static __u32 back(const struct period *d, __u32 p)
{
	return d->w->hist[(d->n - p) % PERIOD_MAX];
}

/* p's pattern: the last p elements, at its first vote. */
static void keep_pattern(struct period *d, __u32 p)
{
	__u32 i;

	struct period_win *w = d->w;

	if (w->pat[p] || !(w->pat[p] = malloc(p * sizeof(__u32))))
		return;
	for (i = 0; i < p; i++)
		w->pat[p][i] = w->hist[(d->n - p + i) % PERIOD_MAX];
}

/* Adds x at position n; returns the smallest period holding there (0: none). */
static __u32 update_runs(struct period *d, __u32 x)
{
	__u32 p, max = d->n < PERIOD_MAX ? (__u32)d->n : PERIOD_MAX, smallest = 0;

	for (p = 1; p <= max; p++) {
		d->w->run[p] = back(d, p) == x ? d->w->run[p] + 1 : 0;
		if (!smallest && d->w->run[p] >= (PERIOD_REPS - 1) * p)
			smallest = p;
	}
	return smallest;
}

/* The window, made at the second element, the first one in it (NULL: no
 * memory, no period from there on). */
static struct period_win *new_window(__u32 first)
{
	struct period_win *w = calloc(1, sizeof(*w));

	if (w)
		w->hist[0] = first;
	return w;
}

int period__feed(struct period *d, __u32 x)
{
	__u32 p;

	if (d->raw++ && x == d->last) {
		d->tail++;
		return 1;
	}
	d->last = x;
	d->tail = 1;
	if (d->n == 0)
		d->first = x;
	if (d->n == 1)
		d->w = new_window(d->first);
	if (!d->w) {
		d->n++;
		return 0;
	}
	p = update_runs(d, x);
	d->w->hist[d->n % PERIOD_MAX] = x;
	d->n++;
	if (p && !d->w->votes[p]++)
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
	for (p = 1; d->w && p <= PERIOD_MAX; p++)
		if (d->w->votes[p] > most)
			most = d->w->votes[p];
	for (p = 1; d->w && p <= PERIOD_MAX; p++)
		if (d->w->pat[p] && d->w->votes[p] * PERIOD_SHARE >= most)
			best = p;
	if (best)
		*pat = d->w->pat[best];
	else if (d->tail >= PERIOD_REPS)
		*pat = &d->last; /* a loop of one site after the others: each is one */
	return best ? best : *pat != NULL;
}
