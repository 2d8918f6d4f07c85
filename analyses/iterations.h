/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The program's outer iterations (doc/design.md §5.6), per process: the
 * period of its sequence of barrier sites (analyses/period.h), an iteration
 * beginning each time the sequence returns to the period's first site, and
 * the time of each, measured and approximated: mean, min, max, trend and
 * jitter. Pure; constant work per episode.
 */
#ifndef SBT_ITERATIONS_H
#define SBT_ITERATIONS_H

#include <stddef.h>
#include "analyses/period.h"

/* Iteration times (ns) in order: sums for mean, spread and least squares. */
struct it_stats {
	__u64 n, min, max;
	double sum, sumsq, sum_ky; /* k: the iteration's index, from 0 */
};
void it_stats__add(struct it_stats *s, __u64 y);

struct it_summary {
	__u64 timed; /* iterations timed: each closed by the next one */
	double mean_ns;
	__u64 min_ns, max_ns;
	double slope_ns; /* trend: least-squares change per iteration */
	double cv;	 /* jitter: standard deviation / mean */
};
void it_stats__summary(const struct it_stats *s, struct it_summary *o);

/* Team sizes told apart (those seen later are left out). */
#define IT_TEAMS 4

/* A process's outer iteration. */
struct it_result {
	__u32 pid;
	__u32 len;		   /* sites in the period */
	__u32 sites[PERIOD_MAX];   /* its sites (phases__site() ids), first first */
	__u64 count;		   /* iterations begun */
	struct it_summary time[2]; /* per view (enum ph_view) */
	/* when its team size changed (OpenMP num_threads): the iterations by
	 * the size of the team that began each, in the order first seen; 0:
	 * one size throughout */
	__u32 nteams;
	struct it_team_result {
		__u32 threads;
		struct it_summary time[2];
	} teams[IT_TEAMS];
};

struct iterations;

struct iterations *iterations__new(void);
void iterations__free(struct iterations *it);
/* An episode of process pid completed at site (phases__site() id: dense, each
 * of one process), its phase begun at start[view], with team threads (the
 * iteration it begins is counted under that team size); partial: it began
 * before the session (attached to), its start and team known only in part,
 * so the iteration it begins is counted but not timed. */
void iterations__episode(struct iterations *it, __u32 pid, __u32 site, const __u64 start[2],
			 __u32 team, int partial);
/* Processes seen, in order; the outer iteration of the i-th in *o.
 * Returns 0 if it has one, -1 if no period was found. */
size_t iterations__nprocs(const struct iterations *it);
int iterations__result(const struct iterations *it, size_t i, struct it_result *o);

#endif
