// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground-truth mutex workload: THREADS workers each take one global mutex
 * (counter_lock) exactly ITERS times, spin CS_US us inside it and OUTSIDE_US us
 * outside. Each worker prints how long it waited for and held the lock, how
 * many of its lock calls slept, and how long it was off its CPU unseen
 * (there its timestamps and a tracer's may be that much further apart), so
 * a tracer's contention report can be checked against it. */
#define _GNU_SOURCE
#include "workload.h"

/* Global so debug info can name the lock in a trace. */
pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
unsigned long counter;
static pthread_mutex_t warm_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned long nthreads = 4, niters = 1000, cs_ns = 20 * 1000, outside_ns;
static int wait_start;

static void worker_main(unsigned int index)
{
	pid_t tid = get_tid();
	uint64_t wait_ns = 0, hold_ns = 0, unseen_ns = 0;
	struct usage u[4], d;
	unsigned long k, slept = 0;

	for (k = 0; k < niters; k++) {
		uint64_t t0, t1, t2, t3;

		usage_now(&u[0]);
		t0 = now_ns();
		pthread_mutex_lock(&counter_lock);
		t1 = now_ns();
		usage_now(&u[1]);
		work_for_ns(cs_ns, 1);
		counter++;
		/* Hold time ends at the unlock call, matching what a tracer sees. */
		usage_now(&u[2]);
		t2 = now_ns();
		pthread_mutex_unlock(&counter_lock);
		t3 = now_ns();
		usage_now(&u[3]);
		hold_ns += t2 - t1;
		wait_ns += t1 - t0;
		/* A tracer's hold begins in the lock call and ends in the unlock
		 * call: what we could not see there is how far it may be off. */
		usage_diff(&d, &u[1], &u[0]);
		slept += usage_slept(&d);
		unseen_ns += usage_unseen_ns(&d, t1 - t0);
		usage_diff(&d, &u[3], &u[2]);
		unseen_ns += usage_unseen_ns(&d, t3 - t2);
		work_for_ns(outside_ns, 1);
	}
	/* Printed after the loop so output never perturbs the contention. */
	emit("thread %u tid %d acquisitions %lu lock_wait_ns %llu hold_ns %llu slept_locks %lu "
	     "unseen_ns %llu\n",
	     index, (int)tid, niters, (unsigned long long)wait_ns, (unsigned long long)hold_ns,
	     slept, (unsigned long long)unseen_ns);
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
	const struct wl_opt opts[] = {
		OPT_NUM('t', nthreads, 1, 256, 1),
		OPT_NUM('k', niters, 1, 10000000, 1),
		OPT_NUM('c', cs_ns, 0, 1000000, 1000),
		OPT_NUM('o', outside_ns, 0, 1000000, 1000),
		OPT_FLAG('W', wait_start),
		{0},
	};
	uint64_t start;

	parse_options(argc, argv, opts, usage);
	/* The probes' first hits in a process set up its uprobe areas under
	 * the mm lock, where another thread's hit may sleep: done here. */
	pthread_mutex_lock(&warm_lock);
	pthread_mutex_unlock(&warm_lock);
	start = begin_run(wait_start);
	/* whether each join slept: the tests name the joins the trace shows */
	team_join_told(team_start(nthreads, worker_main));
	/* Joined threads are done, so reading the counter needs no lock. */
	emit("counter %lu\n", counter);
	end_run(start);
	return 0;
}
