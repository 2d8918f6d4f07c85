// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* OpenMP ground-truth workload for cancellable regions, built against
 * libgomp (gcc) and LLVM libomp (clang): a search the way codes write one,
 * whose region holds a `cancel parallel` and whose loop a `cancel for`.
 * Then every barrier of the region is the runtime's cancellable one
 * (GOMP_barrier_cancel, GOMP_loop_end_cancel, __kmpc_cancel_barrier), with
 * or without OMP_CANCELLATION. Each step: thread t works (t+1)*D_MS ms,
 * then an explicit barrier it times itself around, then a static loop
 * searching for a key that is never there. Prints "barrier_line L", per
 * step and thread "phase K thread I tid T arrive_ns A depart_ns D", then
 * "found F" and "total_ns N". Threads from OMP_NUM_THREADS. */
#define _GNU_SOURCE
#include <omp.h>
#include <stdlib.h>
#include "workload.h"

static unsigned long nsteps = 5, unit_ns = 5 * NSEC_PER_MSEC;

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-n STEPS] [-d D_MS] [-h]\n"
		"A search in one parallel region holding `cancel parallel` and `cancel for`\n"
		"(never taken): each step, thread t works (t+1)*D_MS ms, then an explicit\n"
		"barrier, then a static loop. Threads: OMP_NUM_THREADS.\n"
		"  -n STEPS    steps, 1..100000 (default 5)\n"
		"  -d D_MS     work unit in ms, 0..100000 (default 5)\n"
		"  -h          show this help\n"
		"Example: OMP_NUM_THREADS=2 %s -n 20 -d 2\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {
		OPT_NUM('n', nsteps, 1, 100000, 1),
		OPT_NUM('d', unit_ns, 0, 100000, NSEC_PER_MSEC),
		{0},
	};
	const long n = 100000;
	long found = -1, i;
	int bar_line = 0, nthreads = omp_get_max_threads();
	uint64_t *arrive, *depart, start;
	pid_t *tids;

	parse_options(argc, argv, opts, usage);
	arrive = calloc(nsteps * nthreads, sizeof(*arrive));
	depart = calloc(nsteps * nthreads, sizeof(*depart));
	tids = calloc(nthreads, sizeof(*tids));
	if (!arrive || !depart || !tids) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	start = begin_run(0);
#pragma omp parallel private(i)
	{
		int t = omp_get_thread_num();
		unsigned long k;

		tids[t] = get_tid();
		for (k = 0; k < nsteps; k++) {
			work_for_ns((uint64_t)(t + 1) * unit_ns, 0);
			arrive[k * nthreads + t] = now_ns();
			if (t == 0)
				bar_line = __LINE__ + 1;
#pragma omp barrier
			depart[k * nthreads + t] = now_ns();
#pragma omp for schedule(static)
			for (i = 0; i < n; i++) {
				if (i * 7919 % n == n + 1) { /* never: the key is not there */
					found = i;
#pragma omp cancel for
				}
			}
			if (found >= 0) {
#pragma omp cancel parallel
			}
		}
	}
	emit("barrier_line %d\n", bar_line);
	for (unsigned long k = 0; k < nsteps; k++)
		for (int t = 0; t < nthreads; t++)
			emit("phase %lu thread %d tid %d arrive_ns %llu depart_ns %llu\n", k, t,
			     (int)tids[t], (unsigned long long)arrive[k * nthreads + t],
			     (unsigned long long)depart[k * nthreads + t]);
	emit("found %ld\n", found);
	end_run(start);
	free(arrive);
	free(depart);
	free(tids);
	return 0;
}
