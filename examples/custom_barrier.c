// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground-truth workload for a hand-rolled barrier with no exported symbol:
 * worker i sleeps (i+1)*D ms, then waits at a spin-then-futex barrier
 * (spin_futex_barrier), PHASES times. Worker THREADS-1 always arrives last,
 * so every other worker ends up in FUTEX_WAIT each phase. A tracer can only
 * find the barrier through .symtab, not through any library import. */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include "workload.h"

/* Busy-poll rounds before sleeping in the kernel: a few microseconds. */
#define SPIN_ROUNDS 2000

/* GCC may otherwise clone the function (.constprop/.isra) for its single
 * argument value, leaving no symbol under the plain name. */
#if defined(__GNUC__) && !defined(__clang__)
#define NOCLONE __attribute__((noclone))
#else
#define NOCLONE
#endif

/* The generation counter is the futex word: waiters sleep while it still
 * holds the value they arrived under, and the last arriver advances it. */
struct cbarrier {
	int arrived;
	int nthreads;
	int generation;
};

/* Global so debug info can name the barrier in a trace. */
struct cbarrier bar;

struct worker {
	pthread_t thread;
	unsigned int index;
};

static unsigned long nphases = 5;
static uint64_t unit_ns = 10 * NSEC_PER_MSEC;

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static int generation_is(struct cbarrier *b, int gen)
{
	return __atomic_load_n(&b->generation, __ATOMIC_ACQUIRE) == gen;
}

__attribute__((noinline)) NOCLONE static void spin_futex_barrier(struct cbarrier *b)
{
	/* Read before arriving: the generation cannot advance until we do. */
	int gen = __atomic_load_n(&b->generation, __ATOMIC_ACQUIRE);
	int i;

	if (__atomic_add_fetch(&b->arrived, 1, __ATOMIC_ACQ_REL) == b->nthreads) {
		/* Reset before the release store, so next-phase arrivals count from 0. */
		__atomic_store_n(&b->arrived, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&b->generation, gen + 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, &b->generation, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
		return;
	}
	for (i = 0; i < SPIN_ROUNDS; i++) {
		if (!generation_is(b, gen))
			return;
		cpu_relax();
	}
	/* FUTEX_WAIT returns at once if the word already moved on; loop on
	 * spurious wakeups and EINTR. */
	while (generation_is(b, gen))
		syscall(SYS_futex, &b->generation, FUTEX_WAIT_PRIVATE, gen, NULL, NULL, 0);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	pid_t tid = get_tid();
	uint64_t work_ns = (w->index + 1) * unit_ns;
	unsigned long k;

	for (k = 0; k < nphases; k++) {
		uint64_t t0, t1, t2;

		t0 = now_ns();
		work_for_ns(work_ns, 0);
		t1 = now_ns();
		spin_futex_barrier(&bar);
		t2 = now_ns();
		/* Printed after the barrier so it never delays an arrival. */
		emit("phase %lu thread %u tid %d compute_ns %llu wait_ns %llu\n", k, w->index,
		     (int)tid, (unsigned long long)(t1 - t0), (unsigned long long)(t2 - t1));
	}
	return NULL;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-t THREADS] [-n PHASES] [-d D_MS] [-W] [-h]\n"
		"Worker i (0-based) sleeps (i+1)*D_MS ms, then waits at a hand-rolled\n"
		"spin-then-futex barrier (static spin_futex_barrier, global bar), PHASES\n"
		"times; worker THREADS-1 always arrives last.\n"
		"  -t THREADS  worker threads, 1..256 (default 4)\n"
		"  -n PHASES   barrier phases, 1..1000000 (default 5)\n"
		"  -d D_MS     work unit in ms, 0..100000 (default 10)\n"
		"  -W          print 'ready PID', wait for SIGUSR1 before creating threads\n"
		"  -h          show this help\n"
		"Example: %s -t 4 -n 3 -d 10\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	const char *prog = prog_name(argv[0]);
	unsigned long nthreads = 4, i;
	struct worker *workers;
	int opt, wait_start = 0, err;
	uint64_t start;

	while ((opt = getopt(argc, argv, "t:n:d:Wh")) != -1) {
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
	bar.nthreads = (int)nthreads;
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

	free(workers);
	return 0;
}
