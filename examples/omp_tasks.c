// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* OpenMP tasks as blocked codes write them: per step, one thread (single)
 * creates a task per block of an irregular workload and waits for them
 * (taskwait), then a second batch inside a taskgroup; the other threads run
 * tasks at the single's barrier. Every thread counts the tasks it created
 * and its task waits, times each wait (omp_get_wtime's clock, the one the
 * probes use) and the task bodies it ran inside its own waits, the ground
 * truth of the task table, with the tasks it ran wherever (K):
 *   thread T tid X created C waits W wait_ns N ran_in_waits_ns R ran K
 * and, per step, the tasks of that step it ran elsewhere (at the single's
 * barrier, where the runtimes run a team's queued tasks) and when the last
 * of them ended:
 *   thread T tid X step S barrier_tasks_ns R last_end_ns E
 * -l: the first batch made by a taskloop (its tasks created inside the
 * runtime: not counted as created). -R LEVELS: recursive tasks instead
 * (fib-like: a task makes two children, LEVELS - 1 and - 2 deep, and waits
 * for them), where waits nest inside bodies run in waits: wait_ns is then
 * the thread's outermost waits' time, ran_in_waits_ns 0 (not timed).
 * Thread count from OMP_NUM_THREADS. */
#define _GNU_SOURCE
#include <omp.h>
#include "workload.h"

static unsigned long steps = 4, blocks = 24, unit_ns = 200 * 1000;
static int at_region_end, by_taskloop;
static unsigned long rec_levels;

/* Tasks a thread ran outside its own waits in one step. */
struct step_tasks {
	uint64_t ran_ns, last_end_ns;
};

struct task_stats {
	unsigned long created, waits, ran;
	uint64_t wait_ns, ran_in_waits_ns;
	int tid;
	int in_wait;	    /* inside one of its own task waits now */
	int nest;	    /* -R: its task waits in progress */
	unsigned long step; /* the step it is in */
	struct step_tasks *per_step;
};

static struct task_stats stats[256];

/* Block b's work: irregular (1..4 units). */
static void block_work(unsigned long b, unsigned long step)
{
	struct task_stats *me = &stats[omp_get_thread_num()];
	uint64_t t0 = now_ns(), t1;

	work_for_ns(unit_ns * (1 + (b * 7) % 4), 1);
	t1 = now_ns();
	me->ran++;
	if (me->in_wait) {
		me->ran_in_waits_ns += t1 - t0;
	} else if (step == me->step) {
		/* a task of its own step, run at that step's barrier (libgomp
		 * lets a thread still in the previous step's barrier call run
		 * the next step's tasks: those are not counted) */
		me->per_step[me->step].ran_ns += t1 - t0;
		me->per_step[me->step].last_end_ns = t1;
	}
}

static void spawn(unsigned long first, unsigned long n)
{
	struct task_stats *me = &stats[omp_get_thread_num()];
	unsigned long b, step = me->step;

	for (b = first; b < first + n; b++) {
#pragma omp task firstprivate(b, step)
		block_work(b, step);
		me->created++;
	}
}

/* -l: the batch by a taskloop, a task per block; waited for below */
static void spawn_taskloop(unsigned long n)
{
	unsigned long b, step = stats[omp_get_thread_num()].step;

#pragma omp taskloop grainsize(1) nogroup firstprivate(step)
	for (b = 0; b < n; b++)
		block_work(b, step);
}

static void one_step(void)
{
	struct task_stats *me = &stats[omp_get_thread_num()];
	uint64_t t0;

	if (by_taskloop)
		spawn_taskloop(blocks);
	else
		spawn(0, blocks);
	me->in_wait = 1;
	t0 = now_ns();
#pragma omp taskwait
	me->wait_ns += now_ns() - t0;
	me->in_wait = 0;
	me->waits++;
#pragma omp taskgroup
	{
		spawn(blocks, blocks / 2);
		me->in_wait = 1;
		t0 = now_ns(); /* the taskgroup's end waits from here */
	}
	me->wait_ns += now_ns() - t0;
	me->in_wait = 0;
	me->waits++;
}

/* -R: a task of n levels: two children and a wait for them, or a unit of
 * work at the leaves. A thread's waits nest (it runs other tasks, which
 * wait, in its waits): only the outermost is timed. */
static void rec_task(unsigned long n)
{
	struct task_stats *me = &stats[omp_get_thread_num()];
	uint64_t t0;

	me->ran++;
	if (n < 2) {
		work_for_ns(unit_ns, 1);
		return;
	}
#pragma omp task firstprivate(n)
	rec_task(n - 1);
	me->created++;
#pragma omp task firstprivate(n)
	rec_task(n - 2);
	me->created++;
	t0 = now_ns();
	me->nest++;
#pragma omp taskwait
	/* tied tasks resume on their thread: me is still this thread's */
	if (--me->nest == 0)
		me->wait_ns += now_ns() - t0;
	me->waits++;
}

static void rec_step(void)
{
	struct task_stats *me = &stats[omp_get_thread_num()];

	me->ran--; /* the root is the single's own code, no task */
	rec_task(rec_levels);
}

/* -e: the single creates its tasks and goes on (nowait); the team runs them
 * at the region's end, one region per step. */
static void spawn_only(void)
{
	spawn(0, blocks + blocks / 2);
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-n STEPS] [-b BLOCKS] [-u UNIT_US] [-e | -l | -R LEVELS] [-h]\n"
		"Per step one thread creates BLOCKS tasks (1..4 units of UNIT_US us each)\n"
		"and waits for them (taskwait), then BLOCKS/2 more in a taskgroup.\n"
		"  -n STEPS    steps, 1..100000 (default 4)\n"
		"  -b BLOCKS   tasks per batch, 1..100000 (default 24)\n"
		"  -u UNIT_US  work unit in us, 0..1000000 (default 200)\n"
		"  -e          a parallel region per step whose single creates all the tasks\n"
		"              and waits for none (nowait): they run at the region's end\n"
		"  -l          the first batch by a taskloop (a task per block), then taskwait\n"
		"  -R LEVELS   recursive tasks instead, 2..40 levels (fib-like, a unit each\n"
		"              leaf)\n"
		"  -h          show this help\n"
		"Example: OMP_NUM_THREADS=3 %s -n 4 -b 24\n",
		prog, prog);
}

/* What thread i counted, once the regions are over. */
static void report_thread(int i)
{
	const struct task_stats *me = &stats[i];
	unsigned long s;

	emit("thread %d tid %d created %lu waits %lu wait_ns %llu ran_in_waits_ns %llu ran %lu\n",
	     i, me->tid, me->created, me->waits, (unsigned long long)me->wait_ns,
	     (unsigned long long)me->ran_in_waits_ns, me->ran);
	for (s = 0; s < steps; s++)
		if (me->per_step[s].ran_ns)
			emit("thread %d tid %d step %lu barrier_tasks_ns %llu last_end_ns %llu\n",
			     i, me->tid, s, (unsigned long long)me->per_step[s].ran_ns,
			     (unsigned long long)me->per_step[s].last_end_ns);
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {
		OPT_NUM('n', steps, 1, 100000, 1),
		OPT_NUM('b', blocks, 1, 100000, 1),
		OPT_NUM('u', unit_ns, 0, 1000000, 1000),
		OPT_FLAG('e', at_region_end),
		OPT_FLAG('l', by_taskloop),
		OPT_NUM('R', rec_levels, 2, 40, 1),
		{0},
	};
	int i, nthreads = omp_get_max_threads();
	unsigned long s;
	uint64_t start;

	parse_options(argc, argv, opts, usage);
	if (nthreads > 256) {
		fprintf(stderr, "%s: at most 256 threads\n", prog_name(argv[0]));
		return 2;
	}
	for (i = 0; i < nthreads; i++)
		if (!(stats[i].per_step = calloc(steps, sizeof(*stats[i].per_step)))) {
			fprintf(stderr, "%s: out of memory\n", prog_name(argv[0]));
			return 1;
		}
	start = begin_run(0);
	emit("tasks_at %s\n", at_region_end ? "region_end" : "single_barrier");
	if (at_region_end) {
		for (s = 0; s < steps; s++) {
#pragma omp parallel
			{
				stats[omp_get_thread_num()].step = s;
				stats[omp_get_thread_num()].tid = (int)get_tid();
#pragma omp single nowait
				spawn_only();
			}
		}
	} else {
#pragma omp parallel private(s)
		{
			stats[omp_get_thread_num()].tid = (int)get_tid();
			for (s = 0; s < steps; s++) {
				stats[omp_get_thread_num()].step = s;
#pragma omp single
				{
					if (rec_levels)
						rec_step();
					else
						one_step();
				}
			}
		}
	}
	end_run(start);
	for (i = 0; i < nthreads; i++) {
		if (stats[i].tid)
			report_thread(i);
		free(stats[i].per_step);
	}
	return 0;
}
