// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* OpenMP mutual exclusion as scientific codes write it: a reduction into a
 * shared histogram under a named critical section, a shared counter under
 * an omp_lock_t, a total under an unnamed critical section, and a lock
 * taken by polling omp_test_lock. Each thread prints how many times it
 * entered each (and its failed tests), the ground truth of the lock table:
 *   thread T tid X critical C lock L anon A tested K failed F
 * Thread count from OMP_NUM_THREADS. */
#define _GNU_SOURCE
#include <omp.h>
#include "workload.h"

static unsigned long iters = 200, cs_ns = 20 * 1000;
static omp_lock_t counter_lock, test_lock;
static unsigned long histogram[16], counter, total;

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-k ITERS] [-c CS_US] [-h]\n"
		"Each thread enters a named critical section (histogram), an omp_lock_t\n"
		"(counter_lock), an unnamed critical section and an omp_lock_t taken with\n"
		"omp_test_lock (test_lock) ITERS times each, spinning CS_US us inside.\n"
		"  -k ITERS  entries per thread into each, 1..1000000 (default 200)\n"
		"  -c CS_US  spin inside in us, 0..100000 (default 20)\n"
		"  -h        show this help\n"
		"Example: OMP_NUM_THREADS=3 %s -k 100 -c 10\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {
		OPT_NUM('k', iters, 1, 1000000, 1), OPT_NUM('c', cs_ns, 0, 100000, 1000), {0}};
	uint64_t start;

	parse_options(argc, argv, opts, usage);
	omp_init_lock(&counter_lock);
	omp_init_lock(&test_lock);
	start = begin_run(0);
#pragma omp parallel
	{
		unsigned long k, crit = 0, locked = 0, anon = 0, tested = 0, failed = 0;

		for (k = 0; k < iters; k++) {
#pragma omp critical(histogram)
			{
				histogram[k % 16]++;
				work_for_ns(cs_ns, 1);
				crit++;
			}
			omp_set_lock(&counter_lock);
			counter++;
			work_for_ns(cs_ns, 1);
			locked++;
			omp_unset_lock(&counter_lock);
#pragma omp critical
			{
				total++;
				anon++;
			}
			while (!omp_test_lock(&test_lock))
				failed++;
			tested++;
			work_for_ns(cs_ns, 1);
			omp_unset_lock(&test_lock);
		}
		emit("thread %d tid %d critical %lu lock %lu anon %lu tested %lu failed %lu\n",
		     omp_get_thread_num(), (int)get_tid(), crit, locked, anon, tested, failed);
	}
	omp_destroy_lock(&counter_lock);
	omp_destroy_lock(&test_lock);
	emit("counter %lu\n", counter);
	end_run(start);
	return 0;
}
