// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* OpenMP ground-truth workload, built against libgomp (gcc) and LLVM libomp
 * (clang). Each phase has an explicit barrier and a static worksharing loop
 * ending in an implicit barrier: 2*PHASES barrier episodes, with thread
 * nthreads-1 the late arriver of both. Thread count comes from OMP_NUM_THREADS. */
#define _GNU_SOURCE
#include <omp.h>
#include "workload.h"

static unsigned long nphases = 3, unit_ns = 10 * NSEC_PER_MSEC;
static int spin, wait_start, copy;

/* -c: a single with copyprivate, as NPB- and SPEC-style codes read a value
 * on one thread and hand the team a copy. The thread that runs it works a
 * unit and arrives at the construct's end; the others arrive at its start
 * and wait there for it. */
static void copy_part(unsigned long k, int t, pid_t tid)
{
	unsigned long value = 0;
	struct window w;
	int ran = 0;

	window_open(&w);
#pragma omp single copyprivate(value)
	{
		work_for_ns(unit_ns, spin);
		value = k + 1;
		ran = 1;
		window_open(&w);
	}
	window_close(&w);
	emit("phase %lu part copy thread %d tid %d ran %d value %lu " WINDOW_FMT "\n", k, t,
	     (int)tid, ran, value, WINDOW_ARGS(w));
}

/* Runs inside the parallel region; every thread executes all of it. */
static void run_phases(int *team_size)
{
	int t = omp_get_thread_num();
	int n = omp_get_num_threads();
	pid_t tid = get_tid();
	unsigned long k;

	if (t == 0)
		*team_size = n;
	for (k = 0; k < nphases; k++) {
		uint64_t t0, explicit_ns, loop_ns = 0;
		struct window w;
		int i;

		t0 = now_ns();
		work_for_ns((uint64_t)(t + 1) * unit_ns, spin);
		window_open(&w);
		explicit_ns = w.enter_ns - t0;
#pragma omp barrier
		window_close(&w);
		/* Printed after the barrier so it never delays an arrival. */
		emit("phase %lu part explicit thread %d tid %d compute_ns %llu " WINDOW_FMT "\n", k,
		     t, (int)tid, (unsigned long long)explicit_ns, WINDOW_ARGS(w));

		/* No nowait: the loop ends in the runtime's implicit barrier, which
		 * this thread enters after its last iteration. */
		window_open(&w);
#pragma omp for schedule(static)
		for (i = 0; i < n; i++) {
			uint64_t s = now_ns();

			work_for_ns((uint64_t)(i + 1) * unit_ns, spin);
			window_open(&w);
			loop_ns += w.enter_ns - s;
		}
		window_close(&w);
		emit("phase %lu part loop thread %d tid %d compute_ns %llu " WINDOW_FMT "\n", k, t,
		     (int)tid, (unsigned long long)loop_ns, WINDOW_ARGS(w));
		if (copy)
			copy_part(k, t, tid);
	}
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-n PHASES] [-d D_MS] [-m spin|sleep] [-c] [-W] [-h]\n"
		"In one parallel region, each phase: thread t works (t+1)*D_MS ms, then an\n"
		"explicit barrier; then a static loop where iteration i works (i+1)*D_MS ms,\n"
		"ending in an implicit barrier. Threads: OMP_NUM_THREADS.\n"
		"  -n PHASES   phases, 1..1000000 (default 3)\n"
		"  -d D_MS     work unit in ms, 0..100000 (default 10)\n"
		"  -m MODE     sleep (off-CPU, default) or spin (on-CPU)\n"
		"  -c          end each phase with a single copyprivate whose runner works\n"
		"              D_MS ms while the others wait for it\n"
		"  -W          print 'ready PID', wait for SIGUSR1 before the parallel region\n"
		"  -h          show this help\n"
		"Example: OMP_NUM_THREADS=4 %s -n 3 -d 10\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {
		OPT_NUM('n', nphases, 1, 1000000, 1),
		OPT_NUM('d', unit_ns, 0, 100000, NSEC_PER_MSEC),
		OPT_MODE('m', spin),
		OPT_FLAG('c', copy),
		OPT_FLAG('W', wait_start),
		{0},
	};
	int team_size = 0;
	uint64_t start;

	parse_options(argc, argv, opts, usage);
	/* No OpenMP call has run yet, so the runtime has no threads to leak
	 * an unblocked SIGUSR1 to. */
	start = begin_run(wait_start);
#pragma omp parallel
	run_phases(&team_size);
	emit("threads %d\n", team_size);
	end_run(start);
	return 0;
}
