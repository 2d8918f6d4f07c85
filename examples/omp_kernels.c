// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A time-stepped OpenMP solver written the way scientific codes are: per
 * step, four parallel regions and no barrier call of its own:
 *   tri     triangular matrix-vector product, `parallel for`, static
 *           schedule: row i costs i, so the last thread is late;
 *   spmv    sparse (CSR) matrix-vector product with irregular rows,
 *           `parallel for schedule(dynamic, 8)`: the runtime per chunk;
 *   dot     a dot product, `parallel for reduction(+:) schedule(guided)`;
 *   jacobi  `parallel` with a static `for` over the rows of a 5-point
 *           stencil (its barrier), a `single` swap (its barrier), a
 *           `collapse(2)` residual loop with `nowait`, and a `critical`
 *           update of the residual.
 * Every thread times its own iterations on the monotonic clock; after each
 * region instance the program prints, per thread that ran iterations:
 *   region KERNEL step S thread T tid X busy_ns B end_ns E enter_ns N leave_ns L
 * (B: time in its iterations; E: when its last one ended; N, L: its first
 * and last statements in the region body, 0 in a combined `parallel for`),
 * the ground truth of the regions' implicit barriers. Threads from OMP_NUM_THREADS. */
#define _GNU_SOURCE
#include <omp.h>
#include "workload.h"

#define MAX_THREADS 64

static unsigned long steps = 4, size = 400;
static int wait_flag;

/* One thread's share of the current region, on its own cache line. */
static struct share {
	uint64_t busy, last;
	uint64_t enter, leave; /* first and last statement of the region body */
	int tid;
	char pad[64 - 4 * sizeof(uint64_t) - sizeof(int)];
} shares[MAX_THREADS];

static double *mat, *x, *y, *grid, *next;
static int *rowptr, *colidx;
static double *vals;

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-s STEPS] [-n SIZE] [-W] [-h]\n"
		"STEPS time steps of four OpenMP kernels (triangular mat-vec, irregular\n"
		"sparse mat-vec, dot product, Jacobi stencil) on SIZE x SIZE data.\n"
		"  -s STEPS  time steps, 1..100000 (default 4)\n"
		"  -n SIZE   problem size, 16..4000 (default 400)\n"
		"  -W        print 'ready PID', wait for SIGUSR1 before the first step\n"
		"  -h        show this help\n"
		"Example: OMP_NUM_THREADS=4 %s -s 10 -n 800\n",
		prog, prog);
}

static void shares_clear(void)
{
	memset(shares, 0, sizeof(shares));
}

/* An iteration (or chunk) of the calling thread's share ran from s to now. */
static void share_add(uint64_t s)
{
	struct share *sh = &shares[omp_get_thread_num() % MAX_THREADS];
	uint64_t e = now_ns();

	sh->busy += e - s;
	sh->last = e;
	sh->tid = (int)get_tid();
}

/* The calling thread's first and last statements in a region body (a
 * combined `parallel for` has none of its own). */
static void share_enter(void)
{
	shares[omp_get_thread_num() % MAX_THREADS].enter = now_ns();
}

static void share_leave(void)
{
	shares[omp_get_thread_num() % MAX_THREADS].leave = now_ns();
}

/* After the region (a combined `parallel for` has no place for a
 * per-thread epilogue): the shares of the threads that ran iterations. */
static void shares_print(const char *kernel, unsigned long step)
{
	int i;

	for (i = 0; i < MAX_THREADS; i++)
		if (shares[i].last)
			emit("region %s step %lu thread %d tid %d busy_ns %llu end_ns %llu "
			     "enter_ns %llu leave_ns %llu\n",
			     kernel, step, i, shares[i].tid, (unsigned long long)shares[i].busy,
			     (unsigned long long)shares[i].last,
			     (unsigned long long)shares[i].enter,
			     (unsigned long long)shares[i].leave);
}

static void setup(void)
{
	long n = (long)size, i, j, nnz = 0;

	mat = calloc((size_t)(n * n), sizeof(*mat));
	x = calloc((size_t)n, sizeof(*x));
	y = calloc((size_t)n, sizeof(*y));
	grid = calloc((size_t)(n * n), sizeof(*grid));
	next = calloc((size_t)(n * n), sizeof(*next));
	rowptr = calloc((size_t)n + 1, sizeof(*rowptr));
	/* irregular rows: every 16th row is dense, the others have 4 entries */
	for (i = 0; i < n; i++)
		nnz += i % 16 ? 4 : n;
	colidx = calloc((size_t)nnz, sizeof(*colidx));
	vals = calloc((size_t)nnz, sizeof(*vals));
	if (!mat || !x || !y || !grid || !next || !rowptr || !colidx || !vals) {
		fprintf(stderr, "omp_kernels: out of memory\n");
		exit(1);
	}
	for (i = 0, nnz = 0; i < n; i++) {
		x[i] = 1.0 / (double)(i + 1);
		for (j = 0; j <= i; j++)
			mat[i * n + j] = 1.0 / (double)(i + j + 1);
		rowptr[i] = (int)nnz;
		for (j = 0; j < (i % 16 ? 4 : n); j++, nnz++) {
			colidx[nnz] = (int)((i * 7 + j * 13) % n);
			vals[nnz] = 0.5;
		}
		grid[i * n] = 1.0;
	}
	rowptr[n] = (int)nnz;
}

static void tri(unsigned long step)
{
	long n = (long)size, i, j;

	shares_clear();
#pragma omp parallel private(j)
	{
		share_enter();
#pragma omp for schedule(static) nowait
		for (i = 0; i < n; i++) {
			uint64_t s = now_ns();
			double sum = 0;

			/* repeated so that a row costs microseconds, not nanoseconds */
			for (int rep = 0; rep < 40; rep++)
				for (j = 0; j <= i; j++)
					sum += mat[i * n + j] * x[j] * (1.0 + rep * 1e-9);
			y[i] = sum;
			share_add(s);
		}
		share_leave();
	}
	shares_print("tri", step);
}

static void spmv(unsigned long step)
{
	long n = (long)size, i;

	shares_clear();
#pragma omp parallel for schedule(dynamic, 8)
	for (i = 0; i < n; i++) {
		uint64_t s = now_ns();
		double sum = 0;

		for (int rep = 0; rep < 40; rep++)
			for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
				sum += vals[k] * x[colidx[k]] * (1.0 + rep * 1e-9);
		y[i] = sum;
		share_add(s);
	}
	shares_print("spmv", step);
}

static double dot(unsigned long step)
{
	long n = (long)size, i;
	double sum = 0;

	shares_clear();
#pragma omp parallel for reduction(+ : sum) schedule(guided)
	for (i = 0; i < n; i++) {
		uint64_t s = now_ns();

		for (int rep = 0; rep < 200; rep++)
			sum += x[i] * y[i] * (1.0 + rep * 1e-9);
		share_add(s);
	}
	shares_print("dot", step);
	return sum;
}

static double jacobi(unsigned long step)
{
	long n = (long)size, i, j;
	double resid = 0;

	shares_clear();
#pragma omp parallel private(j)
	{
		double local = 0;

		share_enter();
#pragma omp for schedule(static)
		for (i = 1; i < n - 1; i++) {
			uint64_t s = now_ns();

			for (int rep = 0; rep < 8; rep++)
				for (j = 1; j < n - 1; j++)
					next[i * n + j] =
						0.25 *
						(grid[(i - 1) * n + j] + grid[(i + 1) * n + j] +
						 grid[i * n + j - 1] + grid[i * n + j + 1]);
			share_add(s);
		}
#pragma omp single
		{
			double *t = grid;

			grid = next;
			next = t;
		}
#pragma omp for collapse(2) nowait
		for (i = 1; i < n - 1; i++)
			for (j = 1; j < n - 1; j++)
				local += (grid[i * n + j] - next[i * n + j]) *
					 (grid[i * n + j] - next[i * n + j]);
#pragma omp critical
		resid += local;
		share_leave();
	}
	shares_print("jacobi", step);
	return resid;
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {OPT_NUM('s', steps, 1, 100000, 1),
				      OPT_NUM('n', size, 16, 4000, 1),
				      OPT_FLAG('W', wait_flag),
				      {0}};
	unsigned long s;
	uint64_t start;
	double check = 0;

	parse_options(argc, argv, opts, usage);
	setup();
	start = begin_run(wait_flag);
	for (s = 0; s < steps; s++) {
		tri(s);
		spmv(s);
		check += dot(s);
		check += jacobi(s);
	}
	emit("steps %lu regions %lu checksum %.6g\n", steps, 4 * steps, check);
	end_run(start);
	return 0;
}
