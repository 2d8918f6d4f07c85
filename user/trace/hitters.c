// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Threads hitting pthread_barrier_wait's probes beside a calibration. */
#include <sched.h>
#include <signal.h>
#include "user/trace/hitters.h"

#define HIT_BATCH 32 /* calls between looks at the stop flag */

static void *hit(void *arg)
{
	struct hitters *h = arg;
	pthread_barrier_t b; /* its own: hits share the probes, not the object */
	int i;

	pthread_barrier_init(&b, NULL, 1);
	while (!atomic_load_explicit(&h->stop, memory_order_relaxed))
		for (i = 0; i < HIT_BATCH; i++)
			pthread_barrier_wait(&b);
	pthread_barrier_destroy(&b);
	return NULL;
}

static int cpus_allowed(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
}

int hitters__start(struct hitters *h)
{
	int want = cpus_allowed() - 1;
	sigset_t all, old;

	h->n = 0;
	atomic_store(&h->stop, 0);
	if (want > HITTERS_MAX)
		want = HITTERS_MAX;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old); /* signals stay with the tracer's thread */
	while (h->n < want && !pthread_create(&h->th[h->n], NULL, hit, h))
		h->n++;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return h->n;
}

void hitters__stop(struct hitters *h)
{
	int i;

	atomic_store(&h->stop, 1);
	for (i = 0; i < h->n; i++)
		pthread_join(h->th[i], NULL);
	h->n = 0;
}
