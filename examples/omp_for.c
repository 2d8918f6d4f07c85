// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The most common OpenMP program: `parallel for` over iterations of unequal
 * cost (iteration i works (i+1) units), REGIONS times, with no explicit
 * barrier and no runtime call but the region's own. Each thread prints, per
 * region, the time it spent in its iterations (its own clock), the ground
 * truth of the region's implicit join barrier. Threads from OMP_NUM_THREADS. */
#define _GNU_SOURCE
#include <omp.h>
#include "workload.h"

static unsigned long nregions = 5, niters = 8, unit_ns = 1 * NSEC_PER_MSEC;
static int spin, wait_start;

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-r REGIONS] [-i ITERS] [-d D_MS] [-m spin|sleep] [-W] [-h]\n"
		"REGIONS times: #pragma omp parallel for, schedule(static), over ITERS\n"
		"iterations, iteration i working (i+1)*D_MS ms: the last thread is the late one.\n"
		"  -r REGIONS  parallel regions, 1..1000000 (default 5)\n"
		"  -i ITERS    loop iterations per region, 1..100000 (default 8)\n"
		"  -d D_MS     work unit in ms, 0..100000 (default 1)\n"
		"  -m MODE     spin (on-CPU, default) or sleep (off-CPU)\n"
		"  -W          print 'ready PID', wait for SIGUSR1 before the first region\n"
		"  -h          show this help\n"
		"Example: OMP_NUM_THREADS=4 %s -r 10 -i 16 -d 1\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {OPT_NUM('r', nregions, 1, 1000000, 1),
				      OPT_NUM('i', niters, 1, 100000, 1),
				      OPT_NUM('d', unit_ns, 0, 100000, NSEC_PER_MSEC),
				      OPT_MODE('m', spin),
				      OPT_FLAG('W', wait_start),
				      {0}};
	unsigned long r;
	uint64_t start;

	parse_options(argc, argv, opts, usage);
	start = begin_run(wait_start);
	for (r = 0; r < nregions; r++) {
#pragma omp parallel
		{
			uint64_t busy = 0;
			long i;

#pragma omp for schedule(static) nowait
			for (i = 0; i < (long)niters; i++) {
				uint64_t s = now_ns();

				work_for_ns((uint64_t)(i + 1) * unit_ns, spin);
				busy += now_ns() - s;
			}
			emit("region %lu thread %d tid %d compute_ns %llu\n", r,
			     omp_get_thread_num(), (int)get_tid(), (unsigned long long)busy);
		}
	}
	emit("regions %lu\n", nregions);
	end_run(start);
	return 0;
}
