// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include "analyses/export_svg_scale.h"

/* The 1-2-5 sequence: the step after s (1 -> 2 -> 5 -> 10 -> 20...). */
static __u64 next_round(__u64 s)
{
	__u64 p = 1;

	while (p * 10 <= s)
		p *= 10;
	if (s == p)
		return 2 * p;
	return s == 2 * p ? 5 * p : 10 * p;
}

void svg_ticks__choose(struct svg_ticks *t, __u64 span_ns, int max_steps)
{
	static const struct {
		__u64 ns;
		const char *name;
	} units[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "µs"}, {1, "ns"}};
	__u64 span = span_ns ? span_ns : 1, q;
	int i;

	/* two steps at least: the smallest step with one keeps one at least */
	if (max_steps < 2)
		max_steps = 2;
	/* stops at the latest when the step exceeds the span (one step) */
	for (t->step_ns = 1; span / t->step_ns > (__u64)max_steps;)
		t->step_ns = next_round(t->step_ns);
	for (i = 0; units[i].ns > span; i++)
		;
	t->unit_ns = units[i].ns;
	t->unit = units[i].name;
	/* a step below the unit needs as many decimals as it has zeros less */
	for (t->decimals = 0, q = t->unit_ns; q > 1 && t->step_ns % q; q /= 10)
		t->decimals++;
	t->n = (int)(span / t->step_ns) + 1;
}

void svg_ticks__label(const struct svg_ticks *t, __u64 v_ns, char *buf, size_t n)
{
	__u64 q = t->unit_ns;
	int d;

	for (d = 0; d < t->decimals; d++)
		q /= 10;
	if (!t->decimals)
		snprintf(buf, n, "%llu", (unsigned long long)(v_ns / t->unit_ns));
	else
		snprintf(buf, n, "%llu.%0*llu", (unsigned long long)(v_ns / t->unit_ns),
			 t->decimals, (unsigned long long)(v_ns % t->unit_ns / q));
}

int svg_phase_marks(const __u64 *lo, const __u64 *hi, int ncols, __u64 step, int gap, int *col,
		    __u64 *idx, int max)
{
	__u64 next = 0; /* the next multiple of step to mark */
	int c, n = 0, last = 0;

	for (c = 0; c < ncols; c++) {
		if (lo[c] == SVG_NO_PHASE)
			continue;
		if (next < lo[c])
			next = (lo[c] + step - 1) / step * step;
		for (; next <= hi[c]; next += step) {
			if (n && c - last < gap)
				return -1;
			if (n < max && col)
				col[n] = c;
			if (n < max && idx)
				idx[n] = next;
			last = c;
			n++;
		}
	}
	return n;
}

__u64 svg_phase_step(const __u64 *lo, const __u64 *hi, int ncols, int gap)
{
	__u64 top = 0, step;
	int c;

	for (c = 0; c < ncols; c++)
		if (lo[c] != SVG_NO_PHASE && hi[c] > top)
			top = hi[c];
	/* a step beyond the last phase marks phase 0 at most: no collision */
	for (step = 1; step <= top && step < (__u64)-1 / 10; step = next_round(step))
		if (svg_phase_marks(lo, hi, ncols, step, gap, NULL, NULL, 0) >= 0)
			return step;
	return step;
}
