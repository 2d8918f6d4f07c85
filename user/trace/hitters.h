/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Threads that hit the probes of pthread_barrier_wait, each on a barrier
 * of its own, while a calibration times the same calls on its thread: the
 * cost of a hit when every CPU hits at once (doc/design.md §5.4, error
 * band). A hit's cost grows with the hits beside it (they share the ring
 * buffer's lock and the uprobe's bookkeeping).
 */
#ifndef SBT_HITTERS_H
#define SBT_HITTERS_H

#include <pthread.h>
#include <stdatomic.h>

#define HITTERS_MAX 63

struct hitters {
	pthread_t th[HITTERS_MAX];
	int n;
	atomic_int stop;
};

/* One thread per CPU we may run on, less ours (at most HITTERS_MAX), each
 * calling pthread_barrier_wait until hitters__stop(). Returns how many
 * started (0: a single CPU, or none could start). */
int hitters__start(struct hitters *h);
void hitters__stop(struct hitters *h);

#endif
