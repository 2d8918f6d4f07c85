// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A fixed amount of work on teams of changing size, as an adaptive code
 * resizes them: STEPS times, for T = 1 .. MAX, `parallel for
 * num_threads(T) schedule(static)` over ITEMS items of UNIT us each. Each
 * region instance prints its team, when the master began it and how long it
 * took, measured around it by the master: the ground truth of a speedup by
 * team size (an iteration: from one instance's start to the next one's).
 *   resize step S team T start_ns B ns N */
#define _GNU_SOURCE
#include <omp.h>
#include "workload.h"

static unsigned long steps = 4, items = 32, unit_ns = 200 * 1000, max_team = 2;
static int spin = 1;

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-s STEPS] [-n ITEMS] [-u UNIT_US] [-t MAX] [-m spin|sleep] [-h]\n"
		"STEPS times, for T = 1..MAX: #pragma omp parallel for num_threads(T),\n"
		"schedule(static), over ITEMS items of UNIT_US us each (the same work on\n"
		"every team size).\n"
		"  -s STEPS    steps, 1..100000 (default 4)\n"
		"  -n ITEMS    items per region, 1..100000 (default 32)\n"
		"  -u UNIT_US  work per item in us, 0..1000000 (default 200)\n"
		"  -t MAX      largest team, 1..16 (default 2)\n"
		"  -m MODE     spin (on-CPU, default) or sleep (off-CPU)\n"
		"  -h          show this help\n"
		"Example: %s -s 10 -n 64 -u 100 -t 2\n",
		prog, prog);
}

static void region(unsigned long step, int team)
{
	uint64_t t0 = now_ns();
	long i;

#pragma omp parallel for num_threads(team) schedule(static)
	for (i = 0; i < (long)items; i++)
		work_for_ns(unit_ns, spin);
	emit("resize step %lu team %d start_ns %llu ns %llu\n", step, team, (unsigned long long)t0,
	     (unsigned long long)(now_ns() - t0));
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {OPT_NUM('s', steps, 1, 100000, 1),
				      OPT_NUM('n', items, 1, 100000, 1),
				      OPT_NUM('u', unit_ns, 0, 1000000, 1000),
				      OPT_NUM('t', max_team, 1, 16, 1),
				      OPT_MODE('m', spin),
				      {0}};
	unsigned long s;
	uint64_t start;
	int t;

	parse_options(argc, argv, opts, usage);
	start = begin_run(0);
	/* the largest team's threads made first, at a region of its own: the
	 * steps' regions then differ in team size only */
#pragma omp parallel num_threads(max_team)
	__asm__ volatile("" ::: "memory");
	for (s = 0; s < steps; s++)
		for (t = 1; t <= (int)max_team; t++)
			region(s, t);
	end_run(start);
	return 0;
}
