// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hangs (doc/design.md §5.1): an episode with arrivals and no release for the
 * timeout is reported once, with the threads it waits for; at the end of
 * the trace, released episodes are settled, and one never released is
 * reported the same way if it had waited the timeout by the last record:
 * an episode open only because tracing stopped is cut, not hung.
 */
#include <string.h>
#include "analyses/phases_impl.h"

void hangs__watch(struct phases *p, struct ph_episode *ep)
{
	if (ep->hang_reported)
		return;
	hangs__unwatch(p, ep);
	ep->watch_prev = p->watch_tail;
	ep->watch_next = NULL;
	if (p->watch_tail)
		p->watch_tail->watch_next = ep;
	else
		p->watch_head = ep;
	p->watch_tail = ep;
	ep->watched = 1;
}

void hangs__unwatch(struct phases *p, struct ph_episode *ep)
{
	if (!ep->watched)
		return;
	if (ep->watch_prev)
		ep->watch_prev->watch_next = ep->watch_next;
	else
		p->watch_head = ep->watch_next;
	if (ep->watch_next)
		ep->watch_next->watch_prev = ep->watch_prev;
	else
		p->watch_tail = ep->watch_prev;
	ep->watched = 0;
}

/* Whether thread tid arrived at ep. A watched episode has had no departure,
 * so each of its arrivals still waits in it. */
static int arrived(const struct phases *p, const struct ph_episode *ep, __u32 tid)
{
	const struct ph_thread *t = hmap_get(&p->threads, tid, 0);

	return t && t->waiting == ep;
}

static void list_missing(struct ph_missing *m, __u32 tid)
{
	if (m->listed < PH_HANG_LISTED)
		m->tids[m->listed++] = tid;
}

/* The threads that took part in earlier episodes of ep's barrier and have
 * not arrived: how many, and the first of them. Looks at ep's arrivals and
 * at as many members as it lists or skips, never at all of them. */
static void missing_members(const struct phases *p, const struct ph_episode *ep,
			    const struct ph_barrier *mb, struct ph_missing *m)
{
	__u32 i, in = 0;
	size_t k;

	for (i = 0; i < ep->n; i++)
		in += hmap_get(&p->member_set, ep->object, ep->arr[i].tid) == mb;
	m->n = mb->n - in;
	for (k = 0; k < mb->n && m->listed < PH_HANG_LISTED && (__u32)m->listed < m->n; k++)
		if (!arrived(p, ep, mb->tids[k]))
			list_missing(m, mb->tids[k]);
}

/* The live threads of ep's process that have not arrived, likewise. */
static void missing_live(const struct phases *p, const struct ph_episode *ep, struct ph_missing *m)
{
	const struct ph_proc *pr = hmap_get(&p->procs, ep->pid, 0);
	const struct ph_thread *t;
	__u32 i, in = 0;

	if (!pr)
		return;
	for (i = 0; i < ep->n; i++) {
		t = hmap_get(&p->threads, ep->arr[i].tid, 0);
		in += t && t->live_linked && t->pid == ep->pid;
	}
	m->n = pr->nlive - in;
	for (t = pr->live; t && m->listed < PH_HANG_LISTED && (__u32)m->listed < m->n;
	     t = t->live_next)
		if (t->waiting != ep)
			list_missing(m, t->tid);
}

/* Threads expected at ep but not arrived: those that took part in earlier
 * episodes of the same barrier, or else every live thread of the process. */
static void missing_threads(const struct phases *p, const struct ph_episode *ep,
			    struct ph_missing *m)
{
	const struct ph_barrier *mb = hmap_get(&p->barriers, ep->pid, ep->object);

	memset(m, 0, sizeof(*m));
	if (mb && mb->n)
		missing_members(p, ep, mb, m);
	else
		missing_live(p, ep, m);
}

static void report_hang(struct phases *p, struct ph_episode *ep)
{
	struct ph_missing m;

	ep->hang_reported = 1;
	hangs__unwatch(p, ep);
	if (!p->ops.hang)
		return;
	missing_threads(p, ep, &m);
	p->ops.hang(p->ctx, ep, &m);
}

/* The watch holds the episodes that may hang, oldest latest arrival first:
 * a check stops at the first one still within the timeout. */
void phases__check_hangs(struct phases *p, __u64 now_ns, __u64 timeout_ns)
{
	p->hang_timeout_ns = timeout_ns;
	while (p->watch_head && now_ns >= p->watch_head->last_arrive &&
	       now_ns - p->watch_head->last_arrive >= timeout_ns)
		report_hang(p, p->watch_head);
}

__u64 phases__longest_wait(const struct phases *p, __u64 now_ns)
{
	const struct ph_episode *ep = p->watch_head;

	return ep && now_ns > ep->last_arrive ? now_ns - ep->last_arrive : 0;
}

void phases__finish(struct phases *p)
{
	size_t i;

	phases__release_held(p);
	for (i = 0; i < p->nthreads; i++)
		feed__burst_done(p, p->thread_list[i]);
	/* no more arrivals come to episodes that expected some (completing
	 * one takes it out of the list: from the end) */
	for (i = p->ninflight; i-- > 0;)
		episodes__stop_expecting(p, p->inflight[i]);
	/* Settle released episodes first: completing them may move sites'
	 * participant lists, which hang reports read. */
	for (i = 0; i < p->nthreads; i++) {
		struct ph_thread *t = p->thread_list[i];

		if (t->waiting && t->waiting->state == PH_RELEASING)
			episodes__settle(p, t, 0, 0, 0, 0);
	}
	if (p->hang_timeout_ns)
		phases__check_hangs(p, p->last_ts, p->hang_timeout_ns);
}
