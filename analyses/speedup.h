/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * SelfAnalyzer's view of a run against another of the same program with a
 * different number of threads (doc/design.md §5.6): the speedup of its
 * outer iteration (or of the whole run when no iteration is found) and the
 * serial fraction Amdahl's law gives for the two points. Pure.
 */
#ifndef SBT_SPEEDUP_H
#define SBT_SPEEDUP_H

/* What a report keeps of a run for another to compare with. */
struct run_summary {
	int known;		/* the report filled it */
	unsigned int threads;	/* threads that took part in barrier phases */
	int iterations;		/* an outer iteration was found (and timed) */
	double iteration_ns[2]; /* its mean time, per view (enum ph_view) */
	double run_ns[2];	/* the run's duration, per view */
};

/* The serial fraction f of Amdahl's law, T(p) = T1 (f + (1 - f) / p), that
 * times t_a on p_a threads and t_b on p_b threads fit. NaN when it cannot
 * be told (the same thread count, a time not positive); below 0 for a
 * super-linear speedup, above 1 for a slowdown. */
double amdahl_serial(double t_a, unsigned int p_a, double t_b, unsigned int p_b);

#endif
