// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A workload that hangs at a barrier: after GOOD_PHASES normal phases every
 * worker but the last waits again at hang_barrier, while the last one (the
 * straggler) never arrives: it sleeps, or with -x its thread ends (a worker
 * that returned early). Never exits on its own; tests kill it. */
#define _GNU_SOURCE
#include "workload.h"

/* Global so debug info can name the barrier a hang report points at. */
pthread_barrier_t hang_barrier;

static unsigned long nthreads = 3, good_phases = 2, unit_ns = 20 * NSEC_PER_MSEC;
static int wait_start, straggler_exits;

static void barrier_wait_checked(void)
{
	int err = pthread_barrier_wait(&hang_barrier);

	if (err && err != PTHREAD_BARRIER_SERIAL_THREAD) {
		fprintf(stderr, "pthread_barrier_wait: %s\n", strerror(err));
		exit(1);
	}
}

static void worker_main(unsigned int index)
{
	pid_t tid = get_tid();
	unsigned long k;

	emit("thread %u tid %d\n", index, (int)tid);
	for (k = 0; k < good_phases; k++) {
		work_for_ns(unit_ns, 0);
		barrier_wait_checked();
	}
	if (index != nthreads - 1) {
		/* Needs nthreads arrivals; only nthreads-1 ever come. */
		barrier_wait_checked();
		return;
	}
	emit("straggler tid %d\n", (int)tid);
	if (straggler_exits)
		return;
	for (;;)
		pause();
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-t THREADS] [-g GOOD_PHASES] [-d D_MS] [-x] [-W] [-h]\n"
		"Runs GOOD_PHASES barrier phases of D_MS ms (sleeping), then hangs: all\n"
		"workers but the last wait at hang_barrier, the last never arrives.\n"
		"Never exits on its own.\n"
		"  -t THREADS      worker threads, 2..256 (default 3)\n"
		"  -g GOOD_PHASES  phases before the hang, 0..1000000 (default 2)\n"
		"  -d D_MS         work per phase in ms, 0..100000 (default 20)\n"
		"  -x              the last worker's thread ends instead of sleeping\n"
		"  -W              print 'ready PID', wait for SIGUSR1 before creating threads\n"
		"  -h              show this help\n"
		"Example: timeout 2 %s -t 3 -g 2 -d 20\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {
		OPT_NUM('t', nthreads, 2, 256, 1),
		OPT_NUM('g', good_phases, 0, 1000000, 1),
		OPT_NUM('d', unit_ns, 0, 100000, NSEC_PER_MSEC),
		OPT_FLAG('x', straggler_exits),
		OPT_FLAG('W', wait_start),
		{0},
	};
	int err;

	parse_options(argc, argv, opts, usage);
	err = pthread_barrier_init(&hang_barrier, NULL, nthreads);
	if (err) {
		fprintf(stderr, "pthread_barrier_init: %s\n", strerror(err));
		return 1;
	}
	begin_run(wait_start);
	/* Never returns: the waiters never pass the barrier. */
	run_workers(nthreads, worker_main);
	return 0;
}
