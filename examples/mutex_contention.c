// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground-truth mutex workload: THREADS workers each take one global mutex
 * (counter_lock) exactly ITERS times, spin CS_US us inside it and OUTSIDE_US us
 * outside. Each worker prints how long it waited for and held the lock, so a
 * tracer's contention report can be checked against it. */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include "workload.h"

/* Global so debug info can name the lock in a trace. */
pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
unsigned long counter;

struct worker {
	pthread_t thread;
	unsigned int index;
};

static unsigned long niters = 1000;
static uint64_t cs_ns = 20 * 1000;
static uint64_t outside_ns;

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	pid_t tid = get_tid();
	uint64_t wait_ns = 0, hold_ns = 0;
	unsigned long k;

	for (k = 0; k < niters; k++) {
		uint64_t t0, t1;

		t0 = now_ns();
		pthread_mutex_lock(&counter_lock);
		t1 = now_ns();
		work_for_ns(cs_ns, 1);
		counter++;
		/* Hold time ends at the unlock call, matching what a tracer sees. */
		hold_ns += now_ns() - t1;
		pthread_mutex_unlock(&counter_lock);
		wait_ns += t1 - t0;
		work_for_ns(outside_ns, 1);
	}
	/* Printed after the loop so output never perturbs the contention. */
	emit("thread %u tid %d acquisitions %lu lock_wait_ns %llu hold_ns %llu\n", w->index,
	     (int)tid, niters, (unsigned long long)wait_ns, (unsigned long long)hold_ns);
	return NULL;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-t THREADS] [-k ITERS] [-c CS_US] [-o OUTSIDE_US] [-W] [-h]\n"
		"Each worker locks one global mutex (counter_lock) ITERS times, spinning\n"
		"CS_US us inside the critical section and OUTSIDE_US us outside it.\n"
		"  -t THREADS     worker threads, 1..256 (default 4)\n"
		"  -k ITERS       lock acquisitions per worker, 1..10000000 (default 1000)\n"
		"  -c CS_US       spin inside the lock in us, 0..1000000 (default 20)\n"
		"  -o OUTSIDE_US  spin outside the lock in us, 0..1000000 (default 0)\n"
		"  -W             print 'ready PID', wait for SIGUSR1 before creating threads\n"
		"  -h             show this help\n"
		"Example: %s -t 4 -k 1000 -c 20\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	const char *prog = prog_name(argv[0]);
	unsigned long nthreads = 4, i;
	struct worker *workers;
	int opt, wait_start = 0, err;
	uint64_t start;

	while ((opt = getopt(argc, argv, "t:k:c:o:Wh")) != -1) {
		switch (opt) {
		case 't':
			nthreads = parse_ulong_arg(prog, opt, optarg, 1, 256);
			break;
		case 'k':
			niters = parse_ulong_arg(prog, opt, optarg, 1, 10000000);
			break;
		case 'c':
			cs_ns = parse_ulong_arg(prog, opt, optarg, 0, 1000000) * 1000;
			break;
		case 'o':
			outside_ns = parse_ulong_arg(prog, opt, optarg, 0, 1000000) * 1000;
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
	/* Joined threads are done, so reading the counter needs no lock. */
	emit("counter %lu\n", counter);
	emit("total_ns %llu\n", (unsigned long long)(now_ns() - start));

	free(workers);
	return 0;
}
