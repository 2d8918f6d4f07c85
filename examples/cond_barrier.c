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
 * where it counts itself in) to its unlock of that mutex (its departure:
 * until then, the threads woken cannot leave their waits). */
#define _GNU_SOURCE
#include "workload.h"
#include "heat_rod.h"

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
		pthread_mutex_unlock(&(B).mutex);                                                  \
		window_close(W);                                                                   \
	} while (0)

/* Global so debug info can name the barrier in a trace. */
struct global_memory {
	BARDEC(start)
	pthread_mutex_t lock;
	double residual;
} gm;

static int wait_start;

static void heat_barrier(unsigned long k, struct window *w)
{
	BARRIER(gm.start, nthreads, w);
}

static void heat_add_residual(double mine)
{
	pthread_mutex_lock(&gm.lock);
	gm.residual += mine;
	pthread_mutex_unlock(&gm.lock);
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
	int rc;

	parse_options(argc, argv, opts, usage);
	rc = heat_alloc(argv[0]);
	if (rc)
		return rc;
	BARINIT(gm.start);
	pthread_mutex_init(&gm.lock, NULL);
	start = begin_run(wait_start);
	run_workers(nthreads, heat_worker);
	emit("residual %g\n", gm.residual);
	end_run(start);
	heat_free();
	return 0;
}
