// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Barrier sites (doc/design.md §5.1): the episodes of one barrier object reached
 * from one call site, aggregated like an SBT loop barrier: count, barrier
 * and phase time (sum, min, max, sum of squares), approximated sums,
 * counter deltas, and each participant's accumulated idle time.
 */
#include <stdlib.h>
#include <string.h>
#include "analyses/phases_impl.h"

__u64 ph_lowest_site(const struct ph_episode *ep)
{
	__u64 s = ep->n ? ep->arr[0].site : 0;
	__u32 i;

	for (i = 1; i < ep->n; i++)
		if (ep->arr[i].site < s)
			s = ep->arr[i].site;
	return s;
}

struct ph_site *sites__get(struct phases *p, const struct ph_episode *ep)
{
	__u64 call_site = ph_lowest_site(ep);
	struct ph_site *s;
	size_t i;

	for (i = 0; i < p->nsites; i++) {
		s = &p->sites[i];
		if (s->pid == ep->pid && s->object == ep->object && s->call_site == call_site &&
		    s->probe == ep->probe)
			return s;
	}
	if (array_reserve((void **)&p->sites, &p->cap_sites, p->nsites + 1, sizeof(*s)))
		return NULL;
	s = &p->sites[p->nsites];
	memset(s, 0, sizeof(*s));
	s->id = p->nsites++;
	s->pid = ep->pid;
	s->object = ep->object;
	s->call_site = call_site;
	s->probe = ep->probe;
	s->barrier_min = s->phase_min = UINT64_MAX;
	return s;
}

static void add_idle(struct ph_site *s, __u32 tid, __u64 idle_ns)
{
	struct ph_idle *idle;
	__u32 i;

	for (i = 0; i < s->nidle; i++) {
		if (s->idle[i].tid == tid) {
			s->idle[i].episodes++;
			s->idle[i].idle_ns += idle_ns;
			return;
		}
	}
	idle = realloc(s->idle, (s->nidle + 1) * sizeof(*idle));
	if (!idle)
		return;
	s->idle = idle;
	s->idle[s->nidle++] = (struct ph_idle){.tid = tid, .episodes = 1, .idle_ns = idle_ns};
}

static void add_times(struct ph_site *s, const struct ph_episode *ep)
{
	struct ph_episode_times m, a;
	__u64 b, ph;

	ph_episode_times(ep, PH_MEASURED, &m);
	ph_episode_times(ep, PH_APPROXIMATED, &a);
	b = m.barrier_ns;
	ph = m.phase_ns;
	s->barrier_a_sum += a.barrier_ns;
	s->phase_a_sum += a.phase_ns;
	s->episodes++;
	s->barrier_sum += b;
	s->barrier_sumsq += (double)b * (double)b;
	if (b < s->barrier_min)
		s->barrier_min = b;
	if (b > s->barrier_max)
		s->barrier_max = b;
	s->phase_sum += ph;
	if (ph < s->phase_min)
		s->phase_min = ph;
	if (ph > s->phase_max)
		s->phase_max = ph;
}

void sites__account(struct ph_site *s, const struct ph_episode *ep)
{
	__u32 i, k;

	add_times(s, ep);
	for (i = 0; i < ep->n; i++) {
		add_idle(s, ep->arr[i].tid, ph_wait_ns(&ep->arr[i]));
		for (k = 0; ep->arr[i].ctr_valid && k < SBT_MAX_COUNTERS; k++)
			s->ctr[k] += ep->arr[i].ctr[k];
	}
}
