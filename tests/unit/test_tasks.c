// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* OpenMP tasks (analyses/tasks.c): tasks created, task waits, the task
 * bodies run inside a wait counted as work (once when nested), the rest of
 * the wait out of the thread's useful compute. */
#include "phases_fixture.h"

#define TASK_FN 0x401300

static void task_body(struct phases *p, __u32 tid, __u64 in, __u64 out)
{
	body_in(p, tid, in, TASK_FN);
	body_out(p, tid, out);
}

/*
 * Thread 1 creates two tasks and waits 1100..1500, running one task
 * (1200..1300, with a nested one 1220..1240 inside) meanwhile; a task it
 * runs outside any wait (2000..2100) is no wait's. Then it arrives at a
 * barrier: its useful compute excludes the 300 ns it only waited.
 */
TEST(task_wait_split_into_work_and_waiting)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	const struct ph_thread *t;
	const struct ph_arrival *a;

	enter(p, P_TASK, 1, 1010, 0, SITE_A);
	leave(p, P_TASK, 1, 1020, 0);
	enter(p, P_TASK, 1, 1030, 0, SITE_A);
	leave(p, P_TASK, 1, 1040, 0);
	enter(p, P_TASKWAIT, 1, 1100, 0, SITE_A);
	body_in(p, 1, 1200, TASK_FN);
	task_body(p, 1, 1220, 1240);
	body_out(p, 1, 1300);
	leave(p, P_TASKWAIT, 1, 1500, 0);
	task_body(p, 1, 2000, 2100);
	enter(p, P_PBW, 1, 3000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 3010, OBJ_X, SITE_A);
	leave(p, P_PBW, 2, 3020, -1);
	leave(p, P_PBW, 1, 3030, 0);
	CHECK_EQ(phases__nthreads(p), 2);
	t = phases__thread(p, 0);
	CHECK_EQ(t->tid, 1);
	CHECK_EQ(t->tasks_created, 2);
	CHECK_EQ(t->task_waits, 1);
	CHECK_EQ(t->task_run_ns, 100);
	CHECK_EQ(t->task_wait_ns, 300);
	CHECK_EQ(c.n, 1);
	a = arrival_of(&c.ep[0], 1);
	CHECK_EQ(a->sync_wait_ns, 300);
	CHECK_EQ(ph_useful_ns(a), (3000 - START) - 300);
	CHECK_EQ(c.ep[0].n, 2); /* task bodies are no arrivals */
	phases__free(p);
}
