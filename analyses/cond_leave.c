// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Leaving a barrier made of a mutex and a condvar (doc/design.md §5.1): a
 * thread leaves when it unlocks the barrier's mutex, the macro's last
 * step, not when its wait or broadcast returns. The two are a few
 * instructions apart, unless the thread loses its CPU between them (more
 * threads than CPUs): then it holds the mutex for milliseconds, and the
 * threads the broadcast woke cannot leave their waits before it lets go.
 * The unlock shows where unlocks are probed (--trace lock), and as its
 * futex wake where a thread already waits for the mutex, the case where
 * it was late; so a departure waits for the thread's next record: an
 * unlock of the mutex, or its wake, moves it there; anything else leaves
 * it at the return.
 */
#include "analyses/condbar.h"
#include "analyses/phases_impl.h"
#include "analyses/sync.h"

/* ph_thread.cbar_step: how far the unlock has come. */
enum cbar_step {
	CBAR_NONE,
	CBAR_RETURNED,	/* the wait or broadcast returned */
	CBAR_UNLOCKING, /* in pthread_mutex_unlock of the mutex (probed) */
	CBAR_WAKING,	/* in the unlock's futex wake, the unlock unprobed */
	CBAR_LEAVES,	/* the record being fed is the departure */
};

void cond_leave__begin(struct phases *p, struct ph_thread *t, __u64 cv, __u64 ts, __u64 site,
		       __u64 blocked_ns)
{
	__u64 mutex = p->condbar ? condbar__mutex(p->condbar, t->pid, cv) : 0;

	if (!mutex || !t->waiting) {
		episodes__settle(p, t, ts, 0, site, blocked_ns);
		return;
	}
	t->cbar_mutex = mutex;
	t->cbar_end_ns = ts;
	t->cbar_site = site;
	t->cbar_blocked_ns = blocked_ns;
	t->cbar_step = CBAR_RETURNED;
	t->leaving_next = t->waiting->leaving;
	t->waiting->leaving = t;
	/* the counters read at the return are the departure's */
	t->ctr_target = CTR_DEPARTURE;
}

void cond_leave__done(struct phases *p, struct ph_thread *t)
{
	struct ph_thread **o;

	if (t->cbar_step == CBAR_NONE)
		return;
	t->cbar_step = CBAR_NONE;
	t->cbar_mutex = 0;
	for (o = &t->waiting->leaving; *o; o = &(*o)->leaving_next)
		if (*o == t) {
			*o = t->leaving_next;
			break;
		}
	t->leaving_next = NULL;
	episodes__settle(p, t, t->cbar_end_ns, 0, t->cbar_site, t->cbar_blocked_ns);
}

static int is_unlock(const struct phases *p, const struct sbt_event *e)
{
	return e->probe < p->cfg.nprobes && p->cfg.probes[e->probe].kind == SBT_PK_UNLOCK;
}

/* The step record e of thread t makes, or CBAR_NONE: e is no part of the
 * unlock. */
static int next_step(const struct phases *p, const struct ph_thread *t, const struct sbt_event *e)
{
	switch (e->type) {
	case SBT_EV_COUNTERS:
		return t->cbar_step;
	case SBT_EV_ENTER:
		return t->cbar_step == CBAR_RETURNED && is_unlock(p, e) && e->obj == t->cbar_mutex
			       ? CBAR_UNLOCKING
			       : CBAR_NONE;
	case SBT_EV_EXIT:
		return t->cbar_step == CBAR_UNLOCKING && is_unlock(p, e) ? CBAR_LEAVES : CBAR_NONE;
	case SBT_EV_FUTEX_ENTER:
		if (e->obj != t->cbar_mutex || !sync__futex_is_wake((__u32)e->site))
			return CBAR_NONE;
		return t->cbar_step == CBAR_RETURNED ? CBAR_WAKING : t->cbar_step;
	case SBT_EV_FUTEX_EXIT:
		return t->cbar_step == CBAR_WAKING ? CBAR_LEAVES : t->cbar_step;
	}
	return CBAR_NONE;
}

void cond_leave__before(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	int step;

	if (t->cbar_step == CBAR_NONE)
		return;
	step = next_step(p, t, e);
	if (step == CBAR_NONE)
		cond_leave__done(p, t);
	else
		t->cbar_step = step;
}

void cond_leave__after(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	if (t->cbar_step != CBAR_LEAVES)
		return;
	/* after the record's own call returned: the departure is its exit */
	t->cbar_end_ns = e->ts;
	cond_leave__done(p, t);
}

/* The thread of ep other than t still unlocking whose departure so far is
 * the earliest, no later than depart_ns; or NULL. */
static struct ph_thread *first_leaving(const struct ph_episode *ep, const struct ph_thread *t,
				       __u64 depart_ns)
{
	struct ph_thread *first = NULL, *o;

	for (o = ep->leaving; o; o = o->leaving_next)
		if (o != t && o->cbar_end_ns <= depart_ns &&
		    (!first || o->cbar_end_ns < first->cbar_end_ns))
			first = o;
	return first;
}

void cond_leave__others(struct phases *p, const struct ph_episode *ep, const struct ph_thread *t,
			__u64 depart_ns)
{
	struct ph_thread *o;

	/* exits are approximated in the order they are settled: those that
	 * left earlier, still unlocking, go first */
	while ((o = first_leaving(ep, t, depart_ns)))
		cond_leave__done(p, o);
}

void cond_leave__finish(struct phases *p)
{
	size_t i;

	/* each settles those of its episode that left before it first
	 * (cond_leave__others()) */
	for (i = 0; i < p->nthreads; i++)
		cond_leave__done(p, p->thread_list[i]);
}
