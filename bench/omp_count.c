// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* LD_PRELOAD counter of OpenMP region forks, the ground truth of the
 * implicit-barrier episodes in bench/omp_cost.sh: wraps libgomp's
 * GOMP_parallel* and libomp's __kmpc_fork_call, counts the calls, and
 * prints "forks N" to stderr at exit. Independent of sbt-bpf: no probes,
 * the dynamic linker's symbol interposition. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long forks;

__attribute__((destructor)) static void report(void)
{
	fprintf(stderr, "forks %lu\n", forks);
}

static void *real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "omp_count: %s not found\n", name);
		abort();
	}
	return f;
}

typedef void (*body_fn)(void *);

void GOMP_parallel(body_fn fn, void *data, unsigned nthreads, unsigned flags)
{
	static void (*f)(body_fn, void *, unsigned, unsigned);

	if (!f)
		f = real("GOMP_parallel");
	__atomic_add_fetch(&forks, 1, __ATOMIC_RELAXED);
	f(fn, data, nthreads, flags);
}

/* GOMP_parallel_loop_{static,dynamic,guided}: fn, data, threads, start,
 * end, incr, chunk, flags. */
#define LOOP_WRAPPER(name)                                                                         \
	void name(body_fn fn, void *data, unsigned n, long s, long e, long i, long c, unsigned fl) \
	{                                                                                          \
		static void (*f)(body_fn, void *, unsigned, long, long, long, long, unsigned);     \
		if (!f)                                                                            \
			f = real(#name);                                                           \
		__atomic_add_fetch(&forks, 1, __ATOMIC_RELAXED);                                   \
		f(fn, data, n, s, e, i, c, fl);                                                    \
	}
LOOP_WRAPPER(GOMP_parallel_loop_static)
LOOP_WRAPPER(GOMP_parallel_loop_dynamic)
LOOP_WRAPPER(GOMP_parallel_loop_guided)
LOOP_WRAPPER(GOMP_parallel_loop_nonmonotonic_dynamic)
LOOP_WRAPPER(GOMP_parallel_loop_nonmonotonic_guided)

/* libomp: the microtask's shared arguments follow argc, pointer-sized. */
typedef void (*kmp_micro)(int *, int *, ...);
void __kmpc_fork_call(void *loc, int argc, kmp_micro fn, ...)
{
	static void (*f)(void *, int, kmp_micro, ...);
	void *a[8] = {0};
	va_list ap;
	int k;

	if (!f)
		f = real("__kmpc_fork_call");
	if (argc > 8) {
		fprintf(stderr, "omp_count: __kmpc_fork_call with %d arguments\n", argc);
		abort();
	}
	va_start(ap, fn);
	for (k = 0; k < argc; k++)
		a[k] = va_arg(ap, void *);
	va_end(ap);
	__atomic_add_fetch(&forks, 1, __ATOMIC_RELAXED);
	f(loc, argc, fn, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
}
