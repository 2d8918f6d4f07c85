// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground-truth workload for per-phase counters: after a warm-up phase,
 * worker t touches exactly PAGES fresh pages in phase 1 + (t % PHASES) and
 * none in the others (so page-faults per phase x thread is known); in every
 * phase each worker sleeps SLEEPS times (context switches, which it counts
 * itself: a sleep whose timer fires before the switch is none) and spins
 * SPIN_MS ms. Each worker prints the window around its
 * barrier calls, its own CPU time at both edges (what a task-clock counter
 * counts), and its context switches and run-queue wait in between. */
#define _GNU_SOURCE
#include <sys/mman.h>
#include "workload.h"

pthread_barrier_t page_barrier;

static char **pages; /* per worker: PAGES fresh pages, mapped but never touched before */
static unsigned long nthreads = 2, nphases = 3, npages = 256, nsleeps = 0, spin_ms = 10;
static long page_size;
static int wait_start;

/* The thread's usage when its last barrier call returned. */
static __thread struct usage last;

/* Touch the stack, stdio and the window's counters this thread will use, so
 * that the measured phases have no first-touch faults of their own. */
static void warm_up(void)
{
	volatile char stack[64 * 1024];
	struct window w;
	size_t i;

	for (i = 0; i < sizeof(stack); i += 256)
		stack[i] = 1;
	window_open(&w);
	window_close(&w);
	emit("warm-up tid %d\n", (int)get_tid());
}

static void one_phase(unsigned int index, unsigned long k, pid_t tid)
{
	unsigned long i, touched = 0;
	uint64_t t0 = now_ns(), cpu_arrive, cpu_depart;
	struct usage before, at_open;
	struct window w;

	if (k == 1 + index % nphases) {
		for (i = 0; i < npages; i++)
			pages[index][i * page_size] = 1;
		touched = npages;
	}
	for (i = 0; i < nsleeps; i++)
		work_for_ns(NSEC_PER_MSEC, 0);
	work_for_ns(spin_ms * NSEC_PER_MSEC, 1);
	/* The CPU clock is read inside the window: a tracer's counter read at
	 * the barrier's entry comes after the first read, at its exit before
	 * the second. */
	window_open(&w);
	at_open = w.u; /* window_open() left the totals there */
	cpu_arrive = thread_cpu_ns();
	pthread_barrier_wait(&page_barrier);
	cpu_depart = thread_cpu_ns();
	window_close(&w);
	/* since the previous barrier returned */
	usage_diff(&before, &at_open, &last);
	usage_now(&last);
	emit("phase %lu thread %u tid %d pages %lu sleeps %lu compute_ns %llu " WINDOW_FMT
	     " cpu_arrive_ns %llu cpu_depart_ns %llu cswitch %ld rqwait_ns %llu\n",
	     k, index, (int)tid, touched, nsleeps, (unsigned long long)(w.enter_ns - t0),
	     WINDOW_ARGS(w), (unsigned long long)cpu_arrive, (unsigned long long)cpu_depart,
	     before.vol + before.invol, (unsigned long long)before.queued);
}

static void worker_main(unsigned int index)
{
	pid_t tid = get_tid();
	unsigned long k;

	warm_up();
	pthread_barrier_wait(&page_barrier); /* phase 0: the warm-up */
	usage_now(&last);
	for (k = 1; k <= nphases; k++)
		one_phase(index, k, tid);
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-t THREADS] [-n PHASES] [-k PAGES] [-s SLEEPS] [-c SPIN_MS] [-W]\n"
		"Phase 0 warms up; then worker t touches PAGES fresh pages in phase\n"
		"1 + t %% PHASES and none elsewhere, sleeps 1 ms SLEEPS times and spins SPIN_MS\n"
		"ms in every phase.\n"
		"Example: %s -t 2 -n 2 -k 512 -s 5\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {
		OPT_NUM('t', nthreads, 1, 64, 1),
		OPT_NUM('n', nphases, 1, 1000, 1),
		OPT_NUM('k', npages, 0, 1 << 20, 1),
		OPT_NUM('s', nsleeps, 0, 10000, 1),
		OPT_NUM('c', spin_ms, 0, 100000, 1),
		OPT_FLAG('W', wait_start),
		{0},
	};
	unsigned long i;

	parse_options(argc, argv, opts, usage);
	page_size = sysconf(_SC_PAGESIZE);
	pages = calloc(nthreads, sizeof(*pages));
	if (!pages)
		return 1;
	for (i = 0; i < nthreads; i++) {
		pages[i] = mmap(NULL, npages * page_size + 1, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (pages[i] == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		/* one fault per page: no transparent huge pages */
		madvise(pages[i], npages * page_size + 1, MADV_NOHUGEPAGE);
	}
	pthread_barrier_init(&page_barrier, NULL, nthreads);
	begin_run(wait_start);
	run_workers(nthreads, worker_main);
	emit("page_size %ld\n", page_size);
	return 0;
}
