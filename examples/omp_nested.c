// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* OpenMP regions whose teams change, as adaptive and nested codes make them.
 * Per step:
 *   resize  `parallel num_threads(T)`, T cycling 1, 2, ..., MAX: the team of
 *           one region changes size from instance to instance; thread i of a
 *           team works (i + 1) units, so the last thread is late;
 *   outer   `parallel num_threads(2)`, each of whose threads runs an inner
 *           `parallel num_threads(2)` region (nested: inner teams of one
 *           unless OMP_MAX_ACTIVE_LEVELS allows two levels), the inner work
 *           of outer thread o taking (o + 1) units.
 * Every thread of every region instance prints, after the instance:
 *   region R step S outer O thread T tid X enter_ns E leave_ns L
 * (R: resize, outer or inner; O: the outer thread an inner region belongs
 * to, else 0; E, L: its first and last statements in the body), the ground
 * truth of the implicit barriers. */
#define _GNU_SOURCE
#include <omp.h>
#include "workload.h"

#define MAX_THREADS 16

static unsigned long steps = 4, unit_us = 2000, max_team = 3;
static int wait_flag;

/* One thread's share of one region instance. */
struct share {
	uint64_t enter, leave;
	int tid;
};

static struct share resize_sh[MAX_THREADS], outer_sh[2], inner_sh[2][MAX_THREADS];

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-s STEPS] [-u US] [-t MAX] [-W] [-h]\n"
		"STEPS steps of a region whose team size changes (num_threads 1..MAX) and\n"
		"of nested regions (2 outer threads, each forking an inner region of 2).\n"
		"  -s STEPS  steps, 1..10000 (default 4)\n"
		"  -u US     one unit of work in microseconds, 100..1000000 (default 2000)\n"
		"  -t MAX    largest team of the resized region, 1..%d (default 3)\n"
		"  -W        print 'ready PID', wait for SIGUSR1 before the first step\n"
		"  -h        show this help\n"
		"Example: OMP_MAX_ACTIVE_LEVELS=2 %s -s 6 -t 4\n",
		prog, MAX_THREADS, prog);
}

static void share_work(struct share *sh, unsigned long units)
{
	sh->tid = (int)get_tid();
	sh->enter = now_ns();
	work_for_ns(units * unit_us * 1000, 1);
	sh->leave = now_ns();
}

static void print_shares(const char *region, unsigned long step, int outer, struct share *sh, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!sh[i].enter)
			continue;
		emit("region %s step %lu outer %d thread %d tid %d enter_ns %llu leave_ns %llu\n",
		     region, step, outer, i, sh[i].tid, (unsigned long long)sh[i].enter,
		     (unsigned long long)sh[i].leave);
	}
	memset(sh, 0, (size_t)n * sizeof(*sh));
}

static void resize(unsigned long step)
{
	int team = (int)(step % max_team) + 1;

#pragma omp parallel num_threads(team)
	{
		int i = omp_get_thread_num();

		share_work(&resize_sh[i % MAX_THREADS], (unsigned long)i + 1);
	}
	print_shares("resize", step, 0, resize_sh, MAX_THREADS);
}

static void nested(unsigned long step)
{
	int o;

#pragma omp parallel num_threads(2)
	{
		int outer = omp_get_thread_num() % 2;

		outer_sh[outer].tid = (int)get_tid();
		outer_sh[outer].enter = now_ns();
#pragma omp parallel num_threads(2)
		{
			int i = omp_get_thread_num() % MAX_THREADS;

			share_work(&inner_sh[outer][i], (unsigned long)outer + 1);
		}
		outer_sh[outer].leave = now_ns();
	}
	for (o = 0; o < 2; o++)
		print_shares("inner", step, o, inner_sh[o], MAX_THREADS);
	print_shares("outer", step, 0, outer_sh, 2);
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {OPT_NUM('s', steps, 1, 10000, 1),
				      OPT_NUM('u', unit_us, 100, 1000000, 1),
				      OPT_NUM('t', max_team, 1, MAX_THREADS, 1),
				      OPT_FLAG('W', wait_flag),
				      {0}};
	unsigned long s;
	uint64_t start;

	parse_options(argc, argv, opts, usage);
	start = begin_run(wait_flag);
	for (s = 0; s < steps; s++) {
		resize(s);
		nested(s);
	}
	emit("steps %lu levels %d\n", steps, omp_get_max_active_levels());
	end_run(start);
	return 0;
}
