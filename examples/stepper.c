// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Fine-grained work between barriers, for the perturbation benchmark: in
 * each phase worker i calls step() K*(i+1) times, each call spinning S us,
 * then waits at the barrier. Probing step() (--probe BINARY:step:region)
 * raises the measured overhead at will; the workload times itself. */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include "workload.h"

pthread_barrier_t step_barrier;

static unsigned long nphases = 5, ksteps = 100, step_us = 20;

/* Not inlined: it is the function a benchmark probes. */
__attribute__((noinline)) void step(void)
{
	work_for_ns(step_us * 1000, 1);
	__asm__ volatile("" ::: "memory");
}

struct worker {
	pthread_t thread;
	unsigned int index;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned long k, j, calls = ksteps * (w->index + 1);
	pid_t tid = get_tid();

	for (k = 0; k < nphases; k++) {
		uint64_t t0 = now_ns(), t1;

		for (j = 0; j < calls; j++)
			step();
		t1 = now_ns();
		pthread_barrier_wait(&step_barrier);
		emit("phase %lu thread %u tid %d compute_ns %llu\n", k, w->index, (int)tid,
		     (unsigned long long)(t1 - t0));
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *prog = prog_name(argv[0]);
	unsigned long nthreads = 2, i;
	struct worker *w;
	uint64_t t0;
	int opt;

	while ((opt = getopt(argc, argv, "t:n:k:s:h")) != -1) {
		switch (opt) {
		case 't':
			nthreads = parse_ulong_arg(prog, opt, optarg, 1, 64);
			break;
		case 'n':
			nphases = parse_ulong_arg(prog, opt, optarg, 1, 100000);
			break;
		case 'k':
			ksteps = parse_ulong_arg(prog, opt, optarg, 0, 10000000);
			break;
		case 's':
			step_us = parse_ulong_arg(prog, opt, optarg, 0, 1000000);
			break;
		case 'h':
			printf("Usage: %s [-t THREADS] [-n PHASES] [-k STEPS] [-s STEP_US]\n"
			       "Worker i calls step() STEPS*(i+1) times per phase, each spinning "
			       "STEP_US us.\nExample: %s -t 2 -n 5 -k 100 -s 20\n",
			       prog, prog);
			return 0;
		default:
			fprintf(stderr,
				"Usage: %s [-t THREADS] [-n PHASES] [-k STEPS] [-s STEP_US]\n",
				prog);
			return 2;
		}
	}
	w = calloc(nthreads, sizeof(*w));
	if (!w)
		return 1;
	pthread_barrier_init(&step_barrier, NULL, nthreads);
	t0 = now_ns();
	for (i = 0; i < nthreads; i++) {
		w[i].index = i;
		pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(w[i].thread, NULL);
	emit("total_ns %llu\n", (unsigned long long)(now_ns() - t0));
	return 0;
}
