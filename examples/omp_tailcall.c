// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Barriers reached by a tail call, as NPB's solvers end their regions: two
 * sweeps (x_sweep, y_sweep) each a parallel region whose last statement is
 * an explicit barrier after a `nowait` loop; gcc -O2 ends both outlined
 * functions with `jmp GOMP_barrier`, so the barrier returns straight into
 * the runtime, where both regions' bodies return. Two barriers in two
 * places of the program, STEPS episodes each. Prints "steps S". */
#define _GNU_SOURCE
#include <omp.h>
#include "workload.h"

#define N 4096

static unsigned long steps = 5;
static double a[N], b[N];

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-s STEPS] [-h]\n"
		"STEPS times two sweeps, each a parallel region ending in a barrier that\n"
		"gcc reaches by a tail call.\n"
		"  -s STEPS  1..1000000 (default 5)\n"
		"  -h        show this help\n"
		"Example: OMP_NUM_THREADS=2 %s -s 10\n",
		prog, prog);
}

static void x_sweep(void)
{
#pragma omp parallel
	{
#pragma omp for nowait
		for (int i = 0; i < N; i++)
			a[i] = 0.5 * (b[i] + b[(i + 1) % N]);
#pragma omp barrier
	}
}

static void y_sweep(void)
{
#pragma omp parallel
	{
#pragma omp for nowait
		for (int i = 0; i < N; i++)
			b[i] = 0.5 * (a[i] + a[(i + N - 1) % N]);
#pragma omp barrier
	}
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {OPT_NUM('s', steps, 1, 1000000, 1), {0}};
	unsigned long s;
	uint64_t start;

	parse_options(argc, argv, opts, usage);
	start = begin_run(0);
	for (s = 0; s < steps; s++) {
		x_sweep();
		y_sweep();
	}
	emit("steps %lu\n", steps);
	end_run(start);
	return 0;
}
