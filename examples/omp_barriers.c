// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* OpenMP ground-truth workload, built against libgomp (gcc) and LLVM libomp
 * (clang). Each phase has an explicit barrier and a static worksharing loop
 * ending in an implicit barrier: 2*PHASES barrier episodes, with thread
 * nthreads-1 the late arriver of both. Thread count comes from OMP_NUM_THREADS. */
#define _GNU_SOURCE
#include <getopt.h>
#include <omp.h>
#include "workload.h"

static unsigned long nphases = 3;
static uint64_t unit_ns = 10 * NSEC_PER_MSEC;
static int spin;

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
		int i;

		t0 = now_ns();
		work_for_ns((uint64_t)(t + 1) * unit_ns, spin);
		explicit_ns = now_ns() - t0;
#pragma omp barrier
		/* Printed after the barrier so it never delays an arrival. */
		emit("phase %lu part explicit thread %d tid %d compute_ns %llu\n", k, t, (int)tid,
		     (unsigned long long)explicit_ns);

		/* No nowait: the loop ends in the runtime's implicit barrier. */
#pragma omp for schedule(static)
		for (i = 0; i < n; i++) {
			uint64_t s = now_ns();

			work_for_ns((uint64_t)(i + 1) * unit_ns, spin);
			loop_ns += now_ns() - s;
		}
		emit("phase %lu part loop thread %d tid %d compute_ns %llu\n", k, t, (int)tid,
		     (unsigned long long)loop_ns);
	}
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-n PHASES] [-d D_MS] [-m spin|sleep] [-W] [-h]\n"
		"In one parallel region, each phase: thread t works (t+1)*D_MS ms, then an\n"
		"explicit barrier; then a static loop where iteration i works (i+1)*D_MS ms,\n"
		"ending in an implicit barrier. Threads: OMP_NUM_THREADS.\n"
		"  -n PHASES   phases, 1..1000000 (default 3)\n"
		"  -d D_MS     work unit in ms, 0..100000 (default 10)\n"
		"  -m MODE     sleep (off-CPU, default) or spin (on-CPU)\n"
		"  -W          print 'ready PID', wait for SIGUSR1 before the parallel region\n"
		"  -h          show this help\n"
		"Example: OMP_NUM_THREADS=4 %s -n 3 -d 10\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	const char *prog = prog_name(argv[0]);
	int opt, wait_start = 0, team_size = 0;
	uint64_t start;

	while ((opt = getopt(argc, argv, "n:d:m:Wh")) != -1) {
		switch (opt) {
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
	/* No OpenMP call has run yet, so the runtime has no threads to leak
	 * an unblocked SIGUSR1 to. */
	if (wait_start)
		wait_for_start_signal();

	start = now_ns();
#pragma omp parallel
	run_phases(&team_size);
	emit("threads %d\n", team_size);
	emit("total_ns %llu\n", (unsigned long long)(now_ns() - start));
	return 0;
}
