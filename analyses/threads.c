// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The threads of the barrier-phase analysis (doc/design.md §5.1): found on their
 * first record or declared from /proc, started and exited by the thread
 * records, and a thread id the kernel gives again after an exit.
 */
#include <stdlib.h>
#include "lib/array.h"
#include "analyses/forkjoin.h"
#include "analyses/phases_impl.h"
#include "analyses/sync.h"

struct ph_proc *threads__proc(struct phases *p, __u32 pid)
{
	struct ph_proc *pr = hmap_get(&p->procs, pid, 0);

	return pr ? pr : hmap_put_new(&p->procs, pid, 0, sizeof(*pr));
}

/* t joins, or leaves, the live threads of its process. */
static void live_link(struct phases *p, struct ph_thread *t)
{
	struct ph_proc *pr = threads__proc(p, t->pid);

	if (!pr || t->live_linked)
		return;
	t->live_next = NULL;
	t->live_prev = pr->live_tail;
	if (pr->live_tail)
		pr->live_tail->live_next = t;
	else
		pr->live = t;
	pr->live_tail = t;
	pr->nlive++;
	t->live_linked = 1;
}

static void live_unlink(struct phases *p, struct ph_thread *t)
{
	struct ph_proc *pr = hmap_get(&p->procs, t->pid, 0);

	if (!pr || !t->live_linked)
		return;
	if (t->live_prev)
		t->live_prev->live_next = t->live_next;
	else
		pr->live = t->live_next;
	if (t->live_next)
		t->live_next->live_prev = t->live_prev;
	else
		pr->live_tail = t->live_prev;
	pr->nlive--;
	t->live_linked = 0;
}

struct ph_thread *threads__get(struct phases *p, __u32 pid, __u32 tid)
{
	struct ph_thread *t = hmap_get(&p->threads, tid, 0);
	struct ph_proc *pr;

	if (t)
		return t;
	if (array_reserve((void **)&p->thread_list, &p->cap_threads, p->nthreads + 1, sizeof(t)))
		return NULL;
	t = hmap_put_new(&p->threads, tid, 0, sizeof(*t));
	if (!t)
		return NULL;
	t->pid = pid;
	t->tid = tid;
	/* losses of its process before it was seen are none of its own */
	pr = threads__proc(p, pid);
	t->loss_seq = pr ? pr->loss_seq : 0;
	live_link(p, t);
	/* A thread first seen after the session started began no later than
	 * that; without a creation record, the session start is its best bound. */
	t->start_ns = p->cfg.start_ns;
	t->base_m = t->base_a = t->ta_begin = p->cfg.start_ns;
	p->thread_list[p->nthreads++] = t;
	return t;
}

int threads__hold_frame(struct ph_thread *t, int d)
{
	size_t cap = (size_t)t->stack_cap;

	if (d < t->stack_cap)
		return 1;
	if (d >= STACK_LIMIT ||
	    array_reserve((void **)&t->stack, &cap, (size_t)d + 1, sizeof(*t->stack)))
		return 0;
	t->stack_cap = (int)cap;
	return 1;
}

void phases__add_thread(struct phases *p, __u32 pid, __u32 tid, __u64 start_ns)
{
	struct ph_thread *t = threads__get(p, pid, tid);
	struct phases *side;
	int i;

	for (i = 0; (side = band__side(p->band, i)); i++)
		phases__add_thread(side, pid, tid, start_ns);
	if (!t)
		return;
	t->start_unknown = !start_ns;
	if (t->start_unknown)
		start_ns = p->cfg.start_ns;
	t->start_ns = start_ns;
	t->ta_begin = start_ns;
	approx__restart(t, start_ns, start_ns);
}

/* A new thread with the id of one that exited: nothing of the old one's
 * windows, calls or counters carries over (its totals stay merged under the
 * id). */
static void recycle(struct phases *p, struct ph_thread *t)
{
	const struct ph_proc *pr = hmap_get(&p->procs, t->pid, 0);

	if (t->waiting)
		episodes__settle(p, t, 0, 0, 0, 0);
	t->exit_ns = 0;
	live_link(p, t);
	t->loss_seq = pr ? pr->loss_seq : 0; /* the old one's losses */
	t->start_unknown = 0;
	t->last_depart = 0;
	t->last_site = 0;
	t->reduce_open = 0;
	t->depth = 0;
	t->futex.active = 0;
	waits__mark(t);
	t->ctr_depart_valid = 0;
	t->ctr_target = CTR_NONE;
	t->ta_depart = 0;
	t->ovh_mark = t->overhead_total;
	t->prm_mark = t->preempted_total;
}

void threads__start(struct phases *p, struct ph_thread *t, __u32 creator, __u64 ts)
{
	const struct ph_thread *c = hmap_get(&p->threads, creator ? creator : t->pid, 0);

	if (t->exit_ns)
		recycle(p, t);
	/* declared from /proc before its creation record was read (its
	 * process became a job at this creation): it began in the session */
	t->start_unknown = 0;
	t->start_ns = ts;
	approx__fork(p, t, creator, ts);
	/* a creator that began in the session had its joins probed */
	forkjoin__start(p->forkjoin, t->pid, creator, t->tid, ts, t->ta_begin,
			c && !c->start_unknown);
}

/* The kernel wakes a joiner (exit_mm()) a little before the exit record
 * (sched_process_exit); a wait for t's id that returned at most this long
 * before t's exit record was that join. */
#define JOIN_WAKE_SLACK_NS 1000000

void threads__exit(struct phases *p, struct ph_thread *t, __u64 ts)
{
	if (t->join_return_ns && ts - t->join_return_ns <= JOIN_WAKE_SLACK_NS && p->cfg.sync)
		sync__futex_joined(p->cfg.sync, t->pid, t->join_uaddr, t->tid);
	t->join_return_ns = 0;
	feed__abandon_waits(p, t, ts);
	if (p->cfg.sync)
		sync__thread_exit(p->cfg.sync, t->pid, t->tid);
	t->exit_ns = ts;
	live_unlink(p, t);
	t->depth = 0;
	approx__join(p, t, ts);
	forkjoin__exit(p->forkjoin, t->tid, ts, approx__enabled(p) ? t->ta_prev : ts);
	/* A released thread that never returned: settle without departure.
	 * A thread that dies inside an open barrier leaves it hanging. */
	if (t->waiting && t->waiting->state == PH_RELEASING)
		episodes__settle(p, t, 0, 0, 0, 0);
}

/* A futex wait of t outside any probed call, not ended by an exit
 * (threads__joined()), returned at ts with ret. For the id of a thread of
 * its process that has not exited yet, and woken: a join, which the kernel
 * wakes (clearing the id) before the exit record; the joined thread's step
 * ends there, as its creator may create the next step's threads before that
 * record comes. For no thread's id: t waited for something else, which
 * ends the groups of threads it held as one step (forkjoin__waited()); but
 * for a contended lock's word (2 in glibc's locks: stdio, malloc), which is
 * no wait for threads. */
#define LOCK_CONTENDED 2

void threads__futex_returned(struct phases *p, const struct ph_thread *t, __u64 ts, __s64 ret)
{
	struct ph_thread *w = hmap_get(&p->threads, t->futex.val, 0);

	if (!w || w->pid != t->pid) {
		if (t->futex.val != LOCK_CONTENDED)
			forkjoin__waited(p->forkjoin, t->pid, t->tid);
		return;
	}
	if (w == t || w->exit_ns || ret)
		return;
	forkjoin__exit(p->forkjoin, w->tid, ts,
		       approx__enabled(p) ? approx__time_based(w, ts) : ts);
}

/* pthread_join in glibc and musl waits on the word the kernel clears and
 * wakes when the thread exits, while it holds the thread's id: a futex
 * wait whose value is the id of a thread of the same process that exited
 * during the wait was ended by that exit. */
const struct ph_thread *threads__joined(const struct phases *p, const struct ph_thread *t,
					__u64 return_ns)
{
	const struct ph_thread *w = hmap_get(&p->threads, t->futex.val, 0);

	if (!w || w == t || w->pid != t->pid || !w->exit_ns || w->exit_ns < t->futex.ts ||
	    w->exit_ns > return_ns)
		return NULL;
	return w;
}

__u64 phases__thread_exit(const struct phases *p, __u32 tid)
{
	const struct ph_thread *t = hmap_get(&p->threads, tid, 0);

	return t ? t->exit_ns : 0;
}
