// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Fine-grained work between barriers, for the perturbation benchmark: in
 * each phase worker i calls step() K*(i+1) times, each call spinning S us,
 * then waits at the barrier. Probing step() (--probe BINARY:step:region)
 * raises the measured overhead at will; the workload times itself. */
#define _GNU_SOURCE
#include "workload.h"

pthread_barrier_t step_barrier;

static unsigned long nthreads = 2, nphases = 5, ksteps = 100, step_us = 20;
static int on_first; /* -1: every call of a phase on worker 0 (a what-if check) */

/* Not inlined: it is the function a benchmark probes. */
__attribute__((noinline)) void step(void)
{
	work_for_ns(step_us * 1000, 1);
	__asm__ volatile("" ::: "memory");
}

static void worker_main(unsigned int index)
{
	unsigned long k, j, calls = ksteps * (index + 1);

	if (on_first) /* worker 0 takes the others' calls too */
		calls = index ? 0 : ksteps * nthreads * (nthreads + 1) / 2;
	pid_t tid = get_tid();

	for (k = 0; k < nphases; k++) {
		uint64_t t0 = now_ns();
		struct window w;

		for (j = 0; j < calls; j++)
			step();
		window_open(&w);
		pthread_barrier_wait(&step_barrier);
		window_close(&w);
		emit("phase %lu thread %u tid %d compute_ns %llu " WINDOW_FMT "\n", k, index,
		     (int)tid, (unsigned long long)(w.enter_ns - t0), WINDOW_ARGS(w));
	}
	/* the thread's whole wait for a CPU so far: a bound on what any other
	 * task (a tracer) took from it */
	emit("thread %u tid %d queued_ns %llu at_ns %llu\n", index, (int)tid,
	     (unsigned long long)runqueue_wait_ns(), (unsigned long long)now_ns());
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-t THREADS] [-n PHASES] [-k STEPS] [-s STEP_US] [-1]\n"
		"Worker i calls step() STEPS*(i+1) times per phase, each spinning STEP_US us;\n"
		"with -1, worker 0 makes every worker's calls.\n"
		"Example: %s -t 2 -n 5 -k 100 -s 20\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {
		OPT_NUM('t', nthreads, 1, 64, 1),
		OPT_NUM('n', nphases, 1, 100000, 1),
		OPT_NUM('k', ksteps, 0, 10000000, 1),
		OPT_NUM('s', step_us, 0, 1000000, 1),
		OPT_FLAG('1', on_first),
		{0},
	};
	uint64_t start;

	parse_options(argc, argv, opts, usage);
	pthread_barrier_init(&step_barrier, NULL, nthreads);
	start = begin_run(0);
	run_workers(nthreads, worker_main);
	end_run(start);
	return 0;
}
