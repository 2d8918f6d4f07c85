// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hangs (doc/design.md §5.1): an episode with arrivals and no release for the
 * timeout is reported once, with the threads it waits for; at the end of
 * the trace, released episodes are settled, and one never released is
 * reported the same way if it had waited the timeout by the last record:
 * an episode open only because tracing stopped is cut, not hung.
 */
#include <stdlib.h>
#include "analyses/phases_impl.h"

static int arrived(const struct ph_episode *ep, __u32 tid)
{
	__u32 i;

	for (i = 0; i < ep->n; i++)
		if (ep->arr[i].tid == tid)
			return 1;
	return 0;
}

/* Threads that took part in earlier episodes of ep's barrier but have not
 * arrived, into m (n so far); whether the barrier had earlier episodes. */
static int missing_participants(const struct phases *p, const struct ph_episode *ep, __u32 *m,
				int *n)
{
	int expected = 0;
	size_t i, j;

	for (i = 0; i < p->nsites; i++) {
		const struct ph_site *s = &p->sites[i];

		if (s->pid != ep->pid || s->object != ep->object)
			continue;
		for (j = 0; j < s->nidle; j++) {
			__u32 tid = s->idle[j].tid;
			int dup = 0, k;

			expected = 1;
			for (k = 0; k < *n; k++)
				dup |= m[k] == tid;
			if (!dup && !arrived(ep, tid))
				m[(*n)++] = tid;
		}
	}
	return expected;
}

/* Threads expected at ep but not arrived: those that took part in earlier
 * episodes of the same barrier, or else every live thread of the process. */
static int missing_threads(const struct phases *p, const struct ph_episode *ep, __u32 **out)
{
	__u32 *m = calloc(p->nthreads + 1, sizeof(*m));
	int n = 0;
	size_t i;

	if (!m)
		return 0;
	if (!missing_participants(p, ep, m, &n)) {
		for (i = 0; i < p->nthreads; i++) {
			const struct ph_thread *t = p->thread_list[i];

			if (t->pid == ep->pid && !t->exit_ns && !arrived(ep, t->tid))
				m[n++] = t->tid;
		}
	}
	*out = m;
	return n;
}

static void report_hang(struct phases *p, struct ph_episode *ep)
{
	__u32 *missing = NULL;
	int n;

	ep->hang_reported = 1;
	if (!p->ops.hang)
		return;
	n = missing_threads(p, ep, &missing);
	p->ops.hang(p->ctx, ep, missing, n);
	free(missing);
}

void phases__check_hangs(struct phases *p, __u64 now_ns, __u64 timeout_ns)
{
	size_t i;

	p->hang_timeout_ns = timeout_ns;
	for (i = 0; i < p->ninflight; i++) {
		struct ph_episode *ep = p->inflight[i];

		if (ep->state == PH_OPEN && !ep->hang_reported && ep->n && !ep->departed &&
		    now_ns >= ep->last_arrive + timeout_ns)
			report_hang(p, ep);
	}
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
