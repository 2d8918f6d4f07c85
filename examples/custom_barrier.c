// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground-truth workload for a hand-rolled barrier with no exported symbol:
 * worker i sleeps (i+1)*D ms, then waits at a spin-then-futex barrier
 * (spin_futex_barrier), PHASES times. Worker THREADS-1 is meant to arrive
 * last, so every other worker ends up in FUTEX_WAIT each phase. A tracer can
 * only find the barrier through .symtab, not through any library import.
 * Being our own code, the barrier counts its futex calls exactly: each
 * worker prints them with the window around each barrier call. With -s the
 * workers meet at a sense-reversing spin barrier instead, which is handed
 * each thread's own sense flag (sense_barrier(&my_sense)): its argument
 * names no object the threads share. */
#define _GNU_SOURCE
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

/* This thread's futex calls on the barrier in the current phase, as a tracer
 * of futex syscalls counts them: waits that did not fail at once with EAGAIN
 * (they blocked, or were interrupted), wakes, and the waiters those woke. */
static __thread unsigned long futex_waits, futex_wakes, futex_woken;

static unsigned long nthreads = 4, nphases = 5, unit_ns = 10 * NSEC_PER_MSEC;
static int wait_start, sense_reversing;

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
	long ret;
	int i;

	if (__atomic_add_fetch(&b->arrived, 1, __ATOMIC_ACQ_REL) == b->nthreads) {
		/* Reset before the release store, so next-phase arrivals count from 0. */
		__atomic_store_n(&b->arrived, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&b->generation, gen + 1, __ATOMIC_RELEASE);
		ret = syscall(SYS_futex, &b->generation, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL,
			      0);
		futex_wakes++;
		futex_woken += ret > 0 ? (unsigned long)ret : 0;
		return;
	}
	for (i = 0; i < SPIN_ROUNDS; i++) {
		if (!generation_is(b, gen))
			return;
		cpu_relax();
	}
	/* FUTEX_WAIT returns at once if the word already moved on; loop on
	 * spurious wakeups and EINTR. */
	while (generation_is(b, gen)) {
		ret = syscall(SYS_futex, &b->generation, FUTEX_WAIT_PRIVATE, gen, NULL, NULL, 0);
		futex_waits += !(ret && errno == EAGAIN);
	}
}

/* The textbook sense-reversing barrier: the last arriver flips the shared
 * sense to the thread's own (flipped) one; the others spin, yielding, until
 * it does. No futex: nothing for the futex table. */
static int shared_sense;

__attribute__((noinline)) NOCLONE static void sense_barrier(int *my_sense)
{
	*my_sense = !*my_sense;
	if (__atomic_add_fetch(&bar.arrived, 1, __ATOMIC_ACQ_REL) == bar.nthreads) {
		__atomic_store_n(&bar.arrived, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&shared_sense, *my_sense, __ATOMIC_RELEASE);
		return;
	}
	while (__atomic_load_n(&shared_sense, __ATOMIC_ACQUIRE) != *my_sense)
		sched_yield();
}

static void worker_main(unsigned int index)
{
	pid_t tid = get_tid();
	uint64_t work_ns = (index + 1) * unit_ns;
	unsigned long k;
	int my_sense = 0;

	for (k = 0; k < nphases; k++) {
		struct window w;
		uint64_t t0;

		futex_waits = futex_wakes = futex_woken = 0;
		t0 = now_ns();
		work_for_ns(work_ns, 0);
		window_open(&w);
		if (sense_reversing)
			sense_barrier(&my_sense);
		else
			spin_futex_barrier(&bar);
		window_close(&w);
		/* Printed after the barrier so it never delays an arrival. */
		emit("phase %lu thread %u tid %d compute_ns %llu wait_ns %llu " WINDOW_FMT
		     " futex_waits %lu futex_wakes %lu futex_woken %lu\n",
		     k, index, (int)tid, (unsigned long long)(w.enter_ns - t0),
		     (unsigned long long)(w.leave_ns - w.enter_ns), WINDOW_ARGS(w), futex_waits,
		     futex_wakes, futex_woken);
	}
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-t THREADS] [-n PHASES] [-d D_MS] [-s] [-W] [-h]\n"
		"Worker i (0-based) sleeps (i+1)*D_MS ms, then waits at a hand-rolled\n"
		"spin-then-futex barrier (static spin_futex_barrier, global bar), PHASES\n"
		"times; worker THREADS-1 always arrives last.\n"
		"  -t THREADS  worker threads, 1..256 (default 4)\n"
		"  -n PHASES   barrier phases, 1..1000000 (default 5)\n"
		"  -d D_MS     work unit in ms, 0..100000 (default 10)\n"
		"  -s          a sense-reversing spin barrier (sense_barrier(&own_flag))\n"
		"  -W          print 'ready PID', wait for SIGUSR1 before creating threads\n"
		"  -h          show this help\n"
		"Example: %s -t 4 -n 3 -d 10\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {
		OPT_NUM('t', nthreads, 1, 256, 1),
		OPT_NUM('n', nphases, 1, 1000000, 1),
		OPT_NUM('d', unit_ns, 0, 100000, NSEC_PER_MSEC),
		OPT_FLAG('s', sense_reversing),
		OPT_FLAG('W', wait_start),
		{0},
	};
	uint64_t start;

	parse_options(argc, argv, opts, usage);
	bar.nthreads = (int)nthreads;
	start = begin_run(wait_start);
	run_workers(nthreads, worker_main);
	end_run(start);
	return 0;
}
