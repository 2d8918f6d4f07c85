// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground-truth workload for a barrier made of a mutex and a condition
 * variable, written as Splash-3's default pthread macros write it (BARDEC,
 * BARINIT, BARRIER with a cycle flag; LOCK for a reduction). A 1-D heat
 * equation: each worker relaxes its block of the rod, with REPS sweeps per
 * step scaled so that the slowest worker rotates from step to step; then
 * the workers add their residuals into a global under a lock. Two barrier
 * calls per step (after the sweeps, after the reduction), one before the
 * first: 2 * STEPS + 1 phases. Every worker prints the window around each
 * barrier call: from just after it holds the barrier's mutex (its arrival,
 * where it counts itself in) to the return of its wait or broadcast. */
#define _GNU_SOURCE
#include "workload.h"

/* Splash-3's c.m4.null.POSIX barrier, with the window's hooks. */
#define BARDEC(B)                                                                                  \
	struct {                                                                                   \
		pthread_mutex_t mutex;                                                             \
		pthread_cond_t cv;                                                                 \
		unsigned long counter;                                                             \
		unsigned long cycle;                                                               \
	} B;
#define BARINIT(B)                                                                                 \
	do {                                                                                       \
		pthread_mutex_init(&(B).mutex, NULL);                                              \
		pthread_cond_init(&(B).cv, NULL);                                                  \
		(B).counter = 0;                                                                   \
		(B).cycle = 0;                                                                     \
	} while (0)
#define BARRIER(B, N, W)                                                                           \
	do {                                                                                       \
		unsigned long cycle_;                                                              \
		pthread_mutex_lock(&(B).mutex);                                                    \
		window_open(W);                                                                    \
		cycle_ = (B).cycle;                                                                \
		if (++(B).counter != (N)) {                                                        \
			while (cycle_ == (B).cycle)                                                \
				pthread_cond_wait(&(B).cv, &(B).mutex);                            \
		} else {                                                                           \
			(B).cycle = !(B).cycle;                                                    \
			(B).counter = 0;                                                           \
			pthread_cond_broadcast(&(B).cv);                                           \
		}                                                                                  \
		window_close(W);                                                                   \
		pthread_mutex_unlock(&(B).mutex);                                                  \
	} while (0)

/* Global so debug info can name the barrier in a trace. */
struct global_memory {
	BARDEC(start)
	pthread_mutex_t lock;
	double residual;
} gm;

static unsigned long nthreads = 4, nsteps = 5, cells = 20000, sweeps = 20;
static int wait_start;
static double *rod[2];

/* One Jacobi sweep of cells [lo, hi) from rod[from] into rod[!from]; the
 * squared change. */
static double sweep(unsigned long lo, unsigned long hi, int from)
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

	BARRIER(gm.start, nthreads, &w);
	/* Printed after the barrier so it never delays an arrival. */
	emit("phase %lu thread %u tid %d compute_ns %llu " WINDOW_FMT "\n", k, index, (int)tid,
	     (unsigned long long)(w.enter_ns - t0), WINDOW_ARGS(w));
}

static void worker_main(unsigned int index)
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
			mine = sweep(lo, hi, (int)(r & 1));
		barrier_call(index, tid, k++, t0);
		t0 = now_ns();
		pthread_mutex_lock(&gm.lock);
		gm.residual += mine;
		pthread_mutex_unlock(&gm.lock);
		barrier_call(index, tid, k++, t0);
	}
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-t THREADS] [-n STEPS] [-c CELLS] [-s SWEEPS] [-W] [-h]\n"
		"A 1-D heat equation on THREADS workers synchronized by a Splash-3 style\n"
		"barrier (mutex + condition variable, gm.start): per step, worker i sweeps\n"
		"its block SWEEPS * (1 + (i + step) %% THREADS) times, then the residuals\n"
		"are summed under a lock; 2 * STEPS + 1 barrier calls per worker.\n"
		"  -t THREADS  worker threads, 1..256 (default 4)\n"
		"  -n STEPS    time steps, 1..100000 (default 5)\n"
		"  -c CELLS    cells of the rod, THREADS..10000000 (default 20000)\n"
		"  -s SWEEPS   sweeps per step of the fastest worker, 1..100000 (default 20)\n"
		"  -W          print 'ready PID', wait for SIGUSR1 before creating threads\n"
		"  -h          show this help\n"
		"Example: %s -t 4 -n 3\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {
		OPT_NUM('t', nthreads, 1, 256, 1),   OPT_NUM('n', nsteps, 1, 100000, 1),
		OPT_NUM('c', cells, 1, 10000000, 1), OPT_NUM('s', sweeps, 1, 100000, 1),
		OPT_FLAG('W', wait_start),	     {0},
	};
	uint64_t start;

	parse_options(argc, argv, opts, usage);
	if (cells < nthreads) {
		fprintf(stderr, "%s: -c must be at least -t\n", prog_name(argv[0]));
		return 2;
	}
	BARINIT(gm.start);
	pthread_mutex_init(&gm.lock, NULL);
	rod[0] = calloc(cells, sizeof(double));
	rod[1] = calloc(cells, sizeof(double));
	if (!rod[0] || !rod[1]) {
		fprintf(stderr, "%s: out of memory\n", prog_name(argv[0]));
		return 1;
	}
	start = begin_run(wait_start);
	run_workers(nthreads, worker_main);
	emit("residual %g\n", gm.residual);
	end_run(start);
	free(rod[0]);
	free(rod[1]);
	return 0;
}
