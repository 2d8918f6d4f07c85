// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Iteration times' statistics (doc/design.md §5.6): mean, min, max, the
 * least-squares slope of time over the iteration's index (trend), and the
 * coefficient of variation (jitter).
 */
#include <math.h>
#include "analyses/iterations.h"

void it_stats__add(struct it_stats *s, __u64 y)
{
	if (!s->n || y < s->min)
		s->min = y;
	if (y > s->max)
		s->max = y;
	s->sum += y;
	s->sumsq += (double)y * y;
	s->sum_ky += (double)s->n * y;
	s->n++;
}

/* Least squares over k = 0..n-1: Σk = n(n-1)/2, Σk² = (n-1)n(2n-1)/6. */
static double slope(const struct it_stats *s)
{
	double n = s->n, sk = n * (n - 1) / 2, skk = (n - 1) * n * (2 * n - 1) / 6;
	double den = n * skk - sk * sk;

	return s->n < 2 || den <= 0 ? 0 : (n * s->sum_ky - sk * s->sum) / den;
}

void it_stats__summary(const struct it_stats *s, struct it_summary *o)
{
	double var;

	*o = (struct it_summary){.timed = s->n, .min_ns = s->min, .max_ns = s->max};
	if (!s->n)
		return;
	o->mean_ns = s->sum / s->n;
	var = s->sumsq / s->n - o->mean_ns * o->mean_ns;
	o->cv = o->mean_ns > 0 && var > 0 ? sqrt(var) / o->mean_ns : 0;
	o->slope_ns = slope(s);
}
