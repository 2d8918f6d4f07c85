// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hangs (doc/design.md §5.1): an episode with arrivals and no release for the
 * timeout is reported once, with the threads it waits for; at the end of
 * the trace, released episodes are settled, and one never released is
 * reported the same way if it had waited the timeout by the last record:
 * an episode open only because tracing stopped is cut, not hung.
 */
#include <string.h>
#include "analyses/forkjoin.h"
#include "analyses/phases_impl.h"

/* ---- the watch: a binary min-heap on the latest arrival ----------------- */

static int waits_longer(const struct ph_episode *a, const struct ph_episode *b)
{
	return a->last_arrive < b->last_arrive;
}

static void watch_put(struct phases *p, size_t i, struct ph_episode *ep)
{
	p->watch[i] = ep;
	ep->watch_ix = i + 1;
}

static void sift_up(struct phases *p, size_t i)
{
	struct ph_episode *ep = p->watch[i];

	while (i > 0 && waits_longer(ep, p->watch[(i - 1) / 2])) {
		watch_put(p, i, p->watch[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	watch_put(p, i, ep);
}

static void sift_down(struct phases *p, size_t i)
{
	struct ph_episode *ep = p->watch[i];
	size_t c;

	while ((c = 2 * i + 1) < p->nwatch) {
		if (c + 1 < p->nwatch && waits_longer(p->watch[c + 1], p->watch[c]))
			c++;
		if (!waits_longer(p->watch[c], ep))
			break;
		watch_put(p, i, p->watch[c]);
		i = c;
	}
	watch_put(p, i, ep);
}

void hangs__watch(struct phases *p, struct ph_episode *ep)
{
	if (ep->hang_reported)
		return;
	if (ep->watch_ix) { /* its latest arrival moved on: later in the heap */
		sift_down(p, ep->watch_ix - 1);
		return;
	}
	if (array_reserve((void **)&p->watch, &p->cap_watch, p->nwatch + 1, sizeof(*p->watch)))
		return; /* no memory: this one is not checked for a hang */
	p->watch[p->nwatch++] = ep;
	sift_up(p, p->nwatch - 1);
}

void hangs__unwatch(struct phases *p, struct ph_episode *ep)
{
	size_t i = ep->watch_ix;
	struct ph_episode *last;

	if (!i--)
		return;

	ep->watch_ix = 0;
	if (i == --p->nwatch)
		return;
	/* the last one takes its slot, and its place in the order */
	last = p->watch[p->nwatch];
	watch_put(p, i, last);
	sift_up(p, i);
	sift_down(p, last->watch_ix - 1);
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
		in += hmap_get(&p->member_set, mb->id, ep->arr[i].tid) != NULL;
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

/* The watch's top is the episode waiting since the earliest arrival: a
 * check stops at the first one still within the timeout. */
void phases__check_hangs(struct phases *p, __u64 now_ns, __u64 timeout_ns)
{
	struct phases *side;
	int i;

	for (i = 0; (side = band__side(p->band, i)); i++)
		phases__check_hangs(side, now_ns, timeout_ns);
	p->hang_timeout_ns = timeout_ns;
	/* the analysis has seen the run up to its records held back only: a
	 * thread's arrival among them is no missing thread */
	if (p->nheld && p->held[0].ts < now_ns)
		now_ns = p->held[0].ts;
	while (p->nwatch && now_ns >= p->watch[0]->last_arrive &&
	       now_ns - p->watch[0]->last_arrive >= timeout_ns)
		report_hang(p, p->watch[0]);
}

__u64 phases__longest_wait(const struct phases *p, __u64 now_ns)
{
	const struct ph_episode *ep = p->nwatch ? p->watch[0] : NULL;

	return ep && now_ns > ep->last_arrive ? now_ns - ep->last_arrive : 0;
}

void phases__finish(struct phases *p)
{
	struct phases *side;
	size_t i;

	/* the band's analyses complete their last episodes first */
	for (i = 0; (side = band__side(p->band, (int)i)); i++)
		phases__finish(side);
	phases__release_held(p);
	for (i = 0; i < p->nthreads; i++)
		feed__burst_done(p, p->thread_list[i]);
	cond_leave__finish(p);
	forkjoin__finish(p->forkjoin);
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
