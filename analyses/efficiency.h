/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Efficiencies and wait states (doc/design.md §5.5): the POP metrics of a
 * phase, a barrier site, a thread and the whole run, in either view
 * (enum ph_view), and the Scalasca-style wait states they are made of.
 *
 *   useful   a thread's compute less its lock, semaphore, condvar and task
 *            waits (ph_arrival.sync_wait_ns: ph_useful_ns())
 *   LB       load balance = mean useful / max useful
 *   SE       synchronization efficiency = max useful / runtime
 *   PE       parallel efficiency = LB x SE = mean useful / runtime
 *
 * with, per scope, the threads compared, what a thread's useful is and what
 * the runtime is: a phase, its threads' useful, its span (phase start to last
 * arrival); a site, each thread's useful summed over the site's phases, the
 * sum of their spans; the run, each thread's useful summed over all its
 * phases, from the earliest phase start to the last event; a thread, its own
 * useful against the greatest of each of its phases (summed), over the sum
 * of their spans; a site or the run whose team changed (a thread in fewer
 * of its phases), phase by phase as a thread. A ratio of zero to zero is 1.
 * Sites, threads and the run count the phases in the statistics (complete,
 * not partial).
 *
 * Pure: from the episodes and the sums the phase analysis keeps
 * (struct ph_eff_sums, ph_eff_episode()).
 */
#ifndef SBT_EFFICIENCY_H
#define SBT_EFFICIENCY_H

#include "analyses/phases.h"

struct eff {
	__u32 threads;	     /* threads compared */
	__u64 max_useful_ns; /* the useful compute LB and SE compare with */
	/* phases, runtime, total useful, and the wait states: summed over the
	 * scope's threads and phases */
	struct ph_eff_sums s;
	double load_balance, sync_efficiency, parallel_efficiency;
};

void eff_phase(const struct ph_episode *ep, int view, struct eff *e);
void eff_site(const struct ph_site *s, int view, struct eff *e);
void eff_thread(const struct ph_thread *t, int view, struct eff *e);
void eff_run(const struct phases *p, int view, struct eff *e);

#endif /* SBT_EFFICIENCY_H */
