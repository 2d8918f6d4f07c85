// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground-truth workload for a barrier made of semaphores, written the way
 * textbooks write it (Pacheco, "An Introduction to Parallel Programming",
 * pth_sem_bar): a counter guarded by a semaphore used as a mutex
 * (count_sem, initially 1); the last thread to count itself in resets the
 * counter and posts the barrier semaphore once for every other thread,
 * which wait on it. With -A the last thread posts once for every thread and
 * waits too (the "preloaded turnstile"). Consecutive barriers alternate
 * between two barrier semaphores, so a fast thread cannot take a post
 * meant for a slow one. A 1-D heat equation: each worker relaxes its block
 * of the rod, with sweeps per step scaled so the slowest worker rotates
 * from step to step; the residuals are then summed under count_sem. Two
 * barrier calls per step, one before the first: 2 * STEPS + 1 phases. Every
 * worker prints the window around each barrier call: from just after it
 * holds count_sem (its arrival, where it counts itself in) to the return of
 * its wait, or of its last post; marked (workload.h window_mark) after its
 * post of count_sem, which cannot block, where its first call on the
 * barrier semaphore begins. -S, for the tests, sleeps where no probe sees
 * it just before that post in the first barrier call, as the post's own
 * probe hit once did (the kernel's first hit of a site in the process,
 * waiting for the memory map lock). Later calls do not sleep: a sleep
 * holding count_sem every time would make the threads count themselves in
 * in the same order each time, always the same one last, which is no
 * barrier one can tell from a producer (analyses/sembar.h). */
#define _GNU_SOURCE
#include <semaphore.h>
#include "workload.h"
#include "heat_rod.h"

/* Global so debug info can name the semaphores in a trace. */
struct sem_barrier {
	sem_t count_sem;
	sem_t bar_sem[2];
	unsigned long counter;
} sb;

static int wait_start, all_wait;
static unsigned long unseen_sleep_ns;
static double residual;

static void sem_wait_retry(sem_t *s)
{
	while (sem_wait(s) && errno == EINTR)
		;
}

/* Barrier call number k (every thread counts its calls the same way). */
static void heat_barrier(unsigned long k, struct window *w)
{
	sem_t *bar = &sb.bar_sem[k & 1];
	unsigned long j;
	int last;

	sem_wait_retry(&sb.count_sem);
	window_open(w);
	last = ++sb.counter == nthreads;
	if (last)
		sb.counter = 0;
	if (!k)
		work_for_ns(unseen_sleep_ns, 0);
	sem_post(&sb.count_sem);
	window_mark(w);
	if (last) {
		for (j = all_wait ? 0 : 1; j < nthreads; j++)
			sem_post(bar);
		if (all_wait)
			sem_wait_retry(bar);
	} else {
		sem_wait_retry(bar);
	}
	window_close(w);
}

static void heat_add_residual(double mine)
{
	sem_wait_retry(&sb.count_sem);
	residual += mine;
	sem_post(&sb.count_sem);
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-t THREADS] [-n STEPS] [-c CELLS] [-s SWEEPS] [-A] [-S US] [-W] [-h]\n"
		"A 1-D heat equation on THREADS workers synchronized by a barrier made of\n"
		"semaphores (sb.count_sem guards the counter, sb.bar_sem[0..1] release):\n"
		"per step, worker i sweeps its block SWEEPS * (1 + (i + step) %% THREADS)\n"
		"times, then the residuals are summed under sb.count_sem; 2 * STEPS + 1\n"
		"barrier calls per worker.\n"
		"  -t THREADS  worker threads, 1..256 (default 4)\n"
		"  -n STEPS    time steps, 1..100000 (default 5)\n"
		"  -c CELLS    cells of the rod, THREADS..10000000 (default 20000)\n"
		"  -s SWEEPS   sweeps per step of the fastest worker, 1..100000 (default 20)\n"
		"  -A          the last thread posts once for every thread and waits too\n"
		"              (default: once for every other thread, and goes on)\n"
		"  -S US       sleep US microseconds, 0..1000000, just before the first post\n"
		"              of sb.count_sem (default 0; tests: a sleep no probe sees)\n"
		"  -W          print 'ready PID', wait for SIGUSR1 before creating threads\n"
		"  -h          show this help\n"
		"Example: %s -t 4 -n 3\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {
		OPT_NUM('t', nthreads, 1, 256, 1),
		OPT_NUM('n', nsteps, 1, 100000, 1),
		OPT_NUM('c', cells, 1, 10000000, 1),
		OPT_NUM('s', sweeps, 1, 100000, 1),
		OPT_FLAG('A', all_wait),
		OPT_NUM('S', unseen_sleep_ns, 0, 1000000, 1000),
		OPT_FLAG('W', wait_start),
		{0},
	};
	uint64_t start;
	int rc;

	parse_options(argc, argv, opts, usage);
	rc = heat_alloc(argv[0]);
	if (rc)
		return rc;
	if (sem_init(&sb.count_sem, 0, 1) || sem_init(&sb.bar_sem[0], 0, 0) ||
	    sem_init(&sb.bar_sem[1], 0, 0)) {
		perror("sem_init");
		return 1;
	}
	start = begin_run(wait_start);
	run_workers(nthreads, heat_worker);
	emit("residual %g\n", residual);
	end_run(start);
	heat_free();
	return 0;
}
