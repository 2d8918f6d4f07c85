// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground-truth pthreads workload: worker i computes (i+1)*D ms, then waits at
 * one global barrier, PHASES times. Worker THREADS-1 is the late arriver of
 * every phase, and each worker prints what it measured so a tracer's phase
 * report can be checked against it. */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include "workload.h"

/* Global so debug info can name the barrier in a trace. */
pthread_barrier_t phase_barrier;

struct worker {
	pthread_t thread;
	unsigned int index;
};

static unsigned long nphases = 5;
static uint64_t unit_ns = 10 * NSEC_PER_MSEC;
static int spin = 1;

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	pid_t tid = get_tid();
	uint64_t work_ns = (w->index + 1) * unit_ns;
	unsigned long k;

	for (k = 0; k < nphases; k++) {
		uint64_t t0, t1, t2;
		int err;

		t0 = now_ns();
		work_for_ns(work_ns, spin);
		t1 = now_ns();
		err = pthread_barrier_wait(&phase_barrier);
		t2 = now_ns();
		if (err && err != PTHREAD_BARRIER_SERIAL_THREAD) {
			fprintf(stderr, "pthread_barrier_wait: %s\n", strerror(err));
			exit(1);
		}
		/* Printed after the barrier so it never delays an arrival. */
		emit("phase %lu thread %u tid %d compute_ns %llu wait_ns %llu\n", k, w->index,
		     (int)tid, (unsigned long long)(t1 - t0), (unsigned long long)(t2 - t1));
	}
	return NULL;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-t THREADS] [-n PHASES] [-d D_MS] [-m spin|sleep] [-W] [-h]\n"
		"Worker i (0-based) works (i+1)*D_MS ms, then waits at one global barrier\n"
		"(phase_barrier), PHASES times; worker THREADS-1 always arrives last.\n"
		"  -t THREADS  worker threads, 1..256 (default 4)\n"
		"  -n PHASES   barrier phases, 1..1000000 (default 5)\n"
		"  -d D_MS     work unit in ms, 0..100000 (default 10)\n"
		"  -m MODE     spin (on-CPU, default) or sleep (off-CPU)\n"
		"  -W          print 'ready PID', wait for SIGUSR1 before creating threads\n"
		"  -h          show this help\n"
		"Example: %s -t 4 -n 3 -d 10 -m sleep\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	const char *prog = prog_name(argv[0]);
	unsigned long nthreads = 4, i;
	struct worker *workers;
	int opt, wait_start = 0, err;
	uint64_t start;

	while ((opt = getopt(argc, argv, "t:n:d:m:Wh")) != -1) {
		switch (opt) {
		case 't':
			nthreads = parse_ulong_arg(prog, opt, optarg, 1, 256);
			break;
		case 'n':
			nphases = parse_ulong_arg(prog, opt, optarg, 1, 1000000);
			break;
		case 'd':
			unit_ns = parse_ulong_arg(prog, opt, optarg, 0, 100000) * NSEC_PER_MSEC;
			break;
		case 'm':
			spin = parse_mode_arg(prog, opt, optarg);
			break;
		case 'W':
			wait_start = 1;
			break;
		case 'h':
			usage(stdout, prog);
			return 0;
		default:
			usage(stderr, prog);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr, prog);
		return 2;
	}

	workers = calloc(nthreads, sizeof(*workers));
	if (!workers) {
		perror("calloc");
		return 1;
	}
	err = pthread_barrier_init(&phase_barrier, NULL, nthreads);
	if (err) {
		fprintf(stderr, "pthread_barrier_init: %s\n", strerror(err));
		return 1;
	}
	if (wait_start)
		wait_for_start_signal();

	start = now_ns();
	for (i = 0; i < nthreads; i++) {
		workers[i].index = i;
		err = pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]);
		if (err) {
			fprintf(stderr, "pthread_create: %s\n", strerror(err));
			exit(1);
		}
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(workers[i].thread, NULL);
	emit("total_ns %llu\n", (unsigned long long)(now_ns() - start));

	pthread_barrier_destroy(&phase_barrier);
	free(workers);
	return 0;
}
