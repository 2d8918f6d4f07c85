/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Scales of the SVG timeline (doc/design.md §6): round time ticks (1, 2 or 5
 * times a power of ten, in a unit chosen by the span) and which phase
 * numbers to print along the axis so that none overlaps the next. Pure.
 */
#ifndef SBT_EXPORT_SVG_SCALE_H
#define SBT_EXPORT_SVG_SCALE_H

#include <stddef.h>
#include "sbt/format.h"

struct svg_ticks {
	__u64 step_ns;	  /* 1, 2 or 5 times a power of ten */
	__u64 unit_ns;	  /* 1, 10^3, 10^6 or 10^9: s from a 1 s span, ms from 1 ms... */
	const char *unit; /* "ns", "µs", "ms", "s" */
	int decimals;	  /* to print every multiple of step in that unit */
	int n;		  /* ticks at 0, step, ..., (n - 1) * step, all within the span */
};

/* The smallest round step giving at most max_steps (2 at least) steps over
 * span_ns: there is one step at least (two ticks) for any span. */
void svg_ticks__choose(struct svg_ticks *t, __u64 span_ns, int max_steps);
/* v_ns in the ticks' unit and decimals ("0.5", "20"), no unit. */
void svg_ticks__label(const struct svg_ticks *t, __u64 v_ns, char *buf, size_t n);

#define SVG_NO_PHASE ((__u64)-1)

/*
 * Phase numbers along the axis. Column c of the time axis has the phases
 * lo[c]..hi[c] in progress (lo[c] == SVG_NO_PHASE: none). The multiples of
 * step are marked where each first appears; marks closer than gap columns
 * collide. Returns the number of marks (the first max go to col[] and
 * idx[], which may be NULL), or -1 on a collision.
 */
int svg_phase_marks(const __u64 *lo, const __u64 *hi, int ncols, __u64 step, int gap, int *col,
		    __u64 *idx, int max);
/* The smallest step (1, 2, 5, 10, 20...) whose marks do not collide. */
__u64 svg_phase_step(const __u64 *lo, const __u64 *hi, int ncols, int gap);

#endif
