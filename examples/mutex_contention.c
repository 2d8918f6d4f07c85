// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground-truth mutex workload: THREADS workers each take one global mutex
 * (counter_lock) exactly ITERS times, spin CS_US us inside it and OUTSIDE_US us
 * outside. Each worker prints how long it waited for and held the lock, how
 * many of its lock calls slept, and how long it waited for a CPU in the
 * iterations where it was preempted (there its timestamps and a tracer's may
 * be that much further apart), so a tracer's contention report can be
 * checked against it. */
#define _GNU_SOURCE
#include "workload.h"

/* Global so debug info can name the lock in a trace. */
pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
unsigned long counter;

static unsigned long nthreads = 4, niters = 1000, cs_ns = 20 * 1000, outside_ns;
static int wait_start;

static void worker_main(unsigned int index)
{
	pid_t tid = get_tid();
	uint64_t wait_ns = 0, hold_ns = 0, delay_ns = 0, queued, queued0;
	unsigned long k, slept = 0, preempted = 0;
	long vol, invol, vol0, invol0;

	switches(&vol0, &invol0);
	queued0 = runqueue_wait_ns();
	for (k = 0; k < niters; k++) {
		uint64_t t0, t1, t2;

		t0 = now_ns();
		pthread_mutex_lock(&counter_lock);
		t1 = now_ns();
		work_for_ns(cs_ns, 1);
		counter++;
		/* Hold time ends at the unlock call, matching what a tracer sees. */
		t2 = now_ns();
		pthread_mutex_unlock(&counter_lock);
		hold_ns += t2 - t1;
		wait_ns += t1 - t0;
		/* Nothing else in an iteration can sleep: a voluntary switch is a
		 * lock call that blocked. */
		switches(&vol, &invol);
		queued = runqueue_wait_ns();
		slept += vol != vol0;
		if (invol != invol0) {
			preempted++;
			delay_ns += queued - queued0;
		}
		vol0 = vol;
		invol0 = invol;
		queued0 = queued;
		work_for_ns(outside_ns, 1);
	}
	/* Printed after the loop so output never perturbs the contention. */
	emit("thread %u tid %d acquisitions %lu lock_wait_ns %llu hold_ns %llu slept_locks %lu "
	     "preempted %lu preempted_delay_ns %llu\n",
	     index, (int)tid, niters, (unsigned long long)wait_ns, (unsigned long long)hold_ns,
	     slept, preempted, (unsigned long long)delay_ns);
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
	start = begin_run(wait_start);
	run_workers(nthreads, worker_main);
	/* Joined threads are done, so reading the counter needs no lock. */
	emit("counter %lu\n", counter);
	end_run(start);
	return 0;
}
