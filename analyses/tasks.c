// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * OpenMP tasks (doc/design.md §5.1), where the runtimes expose them: a task
 * is created by GOMP_task / __kmpc_omp_task; a thread waits for tasks in
 * GOMP_taskwait, GOMP_taskgroup_end, __kmpc_omp_taskwait,
 * __kmpc_end_taskgroup. A waiting thread runs queued tasks meanwhile: the
 * task bodies (outlined like region bodies, and probed with them) returning
 * inside a wait are work, the rest of the wait is waiting — counted with
 * the thread's lock/semaphore/condvar waits, out of its useful compute.
 */
#include "analyses/phases_impl.h"

/* Tasks created and not begun a process holds at most (their bodies
 * unprobed: a stripped binary's; a ring past it stops growing). */
#define TASKS_QUEUED_MAX (1u << 20)

/* A task created at tm (approximated ta): queued for a body to begin
 * (tasks__before_body()). */
void tasks__created(struct phases *p, struct ph_thread *t, __u64 tm, __u64 ta)
{
	struct ph_creation c = {tm, ta};
	struct ph_proc *pr;

	t->tasks_created++;
	if (approx__event_based(p) && (pr = threads__proc(p, t->pid)))
		array_fifo_push(&pr->tasks, &c, sizeof(c), TASKS_QUEUED_MAX);
}

/* The outermost task wait below depth d, or -1. */
static int outermost_wait(const struct phases *p, const struct ph_thread *t, int d)
{
	int i;

	for (i = 0; i < d && i < t->stack_cap; i++)
		if (p->cfg.probes[t->stack[i].probe].kind == SBT_PK_TASK_WAIT)
			return i;
	return -1;
}

/* Approximated, the wait less the task bodies' time as measured. A wait
 * inside a task body run in another wait (recursive tasks) is part of that
 * body's time: the thread's time running tasks in waits is the outermost
 * waits' bodies less the waiting nested in them, so that waiting and
 * running add up to the outermost waits' time, nothing counted twice. */
void tasks__wait_done(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e)
{
	__u64 ns = e->ts - t->stack[d].ts, ran = t->stack[d].ran_ns;
	__u64 waited = sub0(ns, ran);
	__u64 waited_a = sub0(sub0(waits__approx_end(p, t, e->ts), t->stack[d].ta), ran);
	int outer = outermost_wait(p, t, d);

	t->task_waits++;
	t->task_wait_ns += waited;
	if (outer < 0)
		t->task_run_ns += sub0(ran, t->stack[d].nested_wait_ns);
	else
		t->stack[outer].nested_wait_ns += waited;
	waits__add(t, PH_WAIT_TASK, waited, waited_a);
}

/* A body of no region instance (inst 0) at depth d is a task's (one of a
 * taskloop's too, created inside the runtime, where no probe sees it):
 * inside a call other than a region's (a barrier, a task wait, another
 * body), or run by a thread of a team outside its share (at the region's
 * end). Not a share of a region that began before the session (attached
 * mid-region: the thread has run no known share yet, or the region call
 * is below it). body: the body's address (its entry's site). */
static int is_task(const struct phases *p, const struct ph_thread *t, int d, __u64 inst, __u64 body)
{
	if (inst)
		return 0;
	/* right in a region's frame: the master's share, or (another body than
	 * the one forked) a task it runs in the region's end barrier (libgomp
	 * runs those left when its own share is done) */
	if (d > 0 && d <= t->stack_cap)
		return p->cfg.probes[t->stack[d - 1].probe].kind != SBT_PK_REGION ||
		       t->stack[d - 1].obj != body;
	return d == 0 && t->had_share;
}

/*
 * A task body begins (entry e, before it is approximated): a task cannot
 * begin before it was created. The k-th task body to begin in a process
 * pairs with its k-th creation (at least k tasks were created by then: the
 * runtimes' queues are not FIFO, but the count holds). As Malony-Reed's
 * hand-off with the creation as the release: the body begins as long
 * after the later of the thread's previous event and the creation as it
 * did measured (the runtime's dispatch), both approximated. A thread that
 * waited for tasks (at a barrier, in a task wait) while the creator's
 * probes slowed the creations is idle no longer than the creations were
 * apart without them.
 */
void tasks__before_body(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	struct ph_proc *pr;
	struct ph_creation c;
	int d = t->depth;
	__u64 ta;

	if (!approx__event_based(p) || !(pr = threads__proc(p, t->pid)) || !pr->tasks.len ||
	    !is_task(p, t, d, implicit__instance_of(p, t, d, e), e->site) ||
	    !array_fifo_pop(&pr->tasks, &c, sizeof(c)))
		return;
	ta = max_u64(c.ta, t->ta_prev) + sub0(e->ts, max_u64(c.tm, t->tm_prev));
	if (ta < approx__time_based(t, e->ts))
		approx__rebase(p, t, e->ts, ta);
}

void tasks__body_done(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e)
{
	int i;

	if (d < t->stack_cap && is_task(p, t, d, t->stack[d].inst, t->stack[d].arg2))
		t->tasks_run++;
	/* the innermost task wait it ran in; a body nested in another body
	 * counts once, in that one */
	for (i = d - 1; i >= 0 && i < t->stack_cap; i--) {
		int kind = p->cfg.probes[t->stack[i].probe].kind;

		if (kind == SBT_PK_REGION_BODY)
			return;
		if (kind == SBT_PK_TASK_WAIT) {
			t->stack[i].ran_ns += e->ts - t->stack[d].ts;
			return;
		}
	}
}
