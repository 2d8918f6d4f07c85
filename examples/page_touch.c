// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground-truth workload for per-phase counters: after a warm-up phase,
 * worker t touches exactly PAGES fresh pages in phase 1 + (t % PHASES) and
 * none in the others (so page-faults per phase x thread is known); in every
 * phase each worker sleeps SLEEPS times (so context switches are at least
 * that) and spins SPIN_MS ms (so task-clock is known). */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <sys/mman.h>
#include "workload.h"

pthread_barrier_t page_barrier;

struct worker {
	pthread_t thread;
	unsigned int index;
	char *pages; /* PAGES fresh pages, mapped but never touched before */
};

static unsigned long nphases = 3, npages = 256, nsleeps = 0, spin_ms = 10;
static long page_size;

/* Touch the stack and stdio this thread will use, so that the measured
 * phases have no first-touch faults of their own. */
static void warm_up(void)
{
	volatile char stack[64 * 1024];
	size_t i;

	for (i = 0; i < sizeof(stack); i += 256)
		stack[i] = 1;
	emit("warm-up tid %d\n", (int)get_tid());
}

static void one_phase(struct worker *w, unsigned long k, pid_t tid)
{
	unsigned long i, touched = 0;
	uint64_t t0 = now_ns(), t1;

	if (k == 1 + w->index % nphases) {
		for (i = 0; i < npages; i++)
			w->pages[i * page_size] = 1;
		touched = npages;
	}
	for (i = 0; i < nsleeps; i++)
		work_for_ns(NSEC_PER_MSEC, 0);
	work_for_ns(spin_ms * NSEC_PER_MSEC, 1);
	t1 = now_ns();
	pthread_barrier_wait(&page_barrier);
	emit("phase %lu thread %u tid %d pages %lu sleeps %lu compute_ns %llu\n", k, w->index,
	     (int)tid, touched, nsleeps, (unsigned long long)(t1 - t0));
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	pid_t tid = get_tid();
	unsigned long k;

	warm_up();
	pthread_barrier_wait(&page_barrier); /* phase 0: the warm-up */
	for (k = 1; k <= nphases; k++)
		one_phase(w, k, tid);
	return NULL;
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
	const char *prog = prog_name(argv[0]);
	unsigned long nthreads = 2, i;
	struct worker *w;
	int opt, wait_start = 0;

	while ((opt = getopt(argc, argv, "t:n:k:s:c:Wh")) != -1) {
		switch (opt) {
		case 't':
			nthreads = parse_ulong_arg(prog, opt, optarg, 1, 64);
			break;
		case 'n':
			nphases = parse_ulong_arg(prog, opt, optarg, 1, 1000);
			break;
		case 'k':
			npages = parse_ulong_arg(prog, opt, optarg, 0, 1 << 20);
			break;
		case 's':
			nsleeps = parse_ulong_arg(prog, opt, optarg, 0, 10000);
			break;
		case 'c':
			spin_ms = parse_ulong_arg(prog, opt, optarg, 0, 100000);
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
	page_size = sysconf(_SC_PAGESIZE);
	w = calloc(nthreads, sizeof(*w));
	if (!w)
		return 1;
	for (i = 0; i < nthreads; i++) {
		w[i].index = i;
		w[i].pages = mmap(NULL, npages * page_size + 1, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (w[i].pages == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		/* one fault per page: no transparent huge pages */
		madvise(w[i].pages, npages * page_size + 1, MADV_NOHUGEPAGE);
	}
	pthread_barrier_init(&page_barrier, NULL, nthreads);
	if (wait_start)
		wait_for_start_signal();
	for (i = 0; i < nthreads; i++)
		pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
	for (i = 0; i < nthreads; i++)
		pthread_join(w[i].thread, NULL);
	emit("page_size %ld\n", page_size);
	return 0;
}
