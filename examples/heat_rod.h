/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The 1-D heat equation the hand-made barrier workloads share (cond_barrier,
 * sem_barrier): each worker relaxes its block of the rod, with sweeps per
 * step scaled so that the slowest worker rotates from step to step, then
 * adds its residual into a global under the workload's lock. Two barrier
 * calls per step (after the sweeps, after the reduction), one before the
 * first: 2 * STEPS + 1 per worker. Every worker prints the window around
 * each barrier call. The workload defines:
 *   heat_barrier(k, w)      barrier call number k, opening and closing w (and
 *                           marking it, when it opens before calls that
 *                           cannot block: workload.h window_mark)
 *   heat_add_residual(x)    add x to the global residual under its lock
 * Include after workload.h. */
#ifndef SBT_EXAMPLES_HEAT_ROD_H
#define SBT_EXAMPLES_HEAT_ROD_H

static unsigned long nthreads = 4, nsteps = 5, cells = 20000, sweeps = 20;
static double *rod[2];

static void heat_barrier(unsigned long k, struct window *w);
static void heat_add_residual(double mine);

/* One Jacobi sweep of cells [lo, hi) from rod[from] into rod[!from]; the
 * squared change. */
static double heat_sweep(unsigned long lo, unsigned long hi, int from)
{
	const double *u = rod[from];
	double *v = rod[!from], change = 0;
	unsigned long i;

	for (i = lo; i < hi; i++) {
		double left = i ? u[i - 1] : 1.0, right = i + 1 < cells ? u[i + 1] : 0.0;

		v[i] = 0.5 * (left + right);
		change += (v[i] - u[i]) * (v[i] - u[i]);
	}
	return change;
}

/* Worker index's barrier call number k, timed. */
static void barrier_call(unsigned int index, pid_t tid, unsigned long k, uint64_t t0)
{
	struct window w;
	char pre[160] = "";

	heat_barrier(k, &w);
	/* Printed after the barrier so it never delays an arrival. */
	if (w.pre_ns)
		snprintf(pre, sizeof(pre), WINDOW_PRE_FMT, WINDOW_PRE_ARGS(w));
	emit("phase %lu thread %u tid %d compute_ns %llu " WINDOW_FMT "%s\n", k, index, (int)tid,
	     (unsigned long long)(w.enter_ns - t0), WINDOW_ARGS(w), pre);
}

static void heat_worker(unsigned int index)
{
	pid_t tid = get_tid();
	unsigned long lo = cells * index / nthreads, hi = cells * (index + 1) / nthreads;
	unsigned long step, r, k = 0;

	barrier_call(index, tid, k++, now_ns());
	for (step = 0; step < nsteps; step++) {
		/* the slowest worker moves on by one each step */
		unsigned long reps = sweeps * (1 + (index + step) % nthreads);
		uint64_t t0 = now_ns();
		double mine = 0;

		for (r = 0; r < reps; r++)
			mine = heat_sweep(lo, hi, (int)(r & 1));
		barrier_call(index, tid, k++, t0);
		t0 = now_ns();
		heat_add_residual(mine);
		barrier_call(index, tid, k++, t0);
	}
}

/* The rod, once the options are read: 0; 2 (-c below -t) or 1 (no memory)
 * with a message. */
static int heat_alloc(const char *argv0)
{
	if (cells < nthreads) {
		fprintf(stderr, "%s: -c must be at least -t\n", prog_name(argv0));
		return 2;
	}
	rod[0] = calloc(cells, sizeof(double));
	rod[1] = calloc(cells, sizeof(double));
	if (!rod[0] || !rod[1]) {
		fprintf(stderr, "%s: out of memory\n", prog_name(argv0));
		return 1;
	}
	return 0;
}

static void heat_free(void)
{
	free(rod[0]);
	free(rod[1]);
}

#endif /* SBT_EXAMPLES_HEAT_ROD_H */
