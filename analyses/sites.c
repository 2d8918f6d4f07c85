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

/* Barrier (pid, object), made when its first episode completes. */
static struct ph_barrier *barrier_of(struct phases *p, __u32 pid, __u64 object)
{
	struct ph_barrier *b = hmap_get(&p->barriers, pid, object);

	if (!b && (b = hmap_put_new(&p->barriers, pid, object, sizeof(*b))))
		b->id = p->nbarriers++;
	return b;
}

/* A new site for ep at call_site, of barrier b (NULL: no memory). */
static struct ph_site *new_site(struct phases *p, const struct ph_episode *ep, __u64 call_site,
				__u64 key)
{
	struct ph_site *s;

	if (array_reserve((void **)&p->sites, &p->cap_sites, p->nsites + 1, sizeof(*s)) ||
	    hmap_put_index(&p->site_ix, key, call_site, p->nsites))
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

/* Found by (barrier, probe, call site): a lookup costs the same however
 * many sites, barriers or processes a trace has. */
struct ph_site *sites__get(struct phases *p, const struct ph_episode *ep)
{
	struct ph_barrier *b = barrier_of(p, ep->pid, ep->object);
	__u64 call_site = ph_lowest_site(ep), key;
	size_t ix;

	if (!b)
		return NULL;
	key = b->id << 16 | ep->probe;
	if (hmap_get_index(&p->site_ix, key, call_site, &ix))
		return &p->sites[ix];
	return new_site(p, ep, call_site, key);
}

/* tid joins the threads that took part in the barrier's episodes. */
static void add_member(struct phases *p, __u32 pid, __u64 object, __u32 tid)
{
	struct ph_barrier *b;

	b = barrier_of(p, pid, object);
	if (!b || hmap_get(&p->member_set, b->id, tid) ||
	    array_reserve((void **)&b->tids, &b->cap, b->n + 1, sizeof(*b->tids)) ||
	    hmap_put(&p->member_set, b->id, tid, b))
		return;
	b->tids[b->n++] = tid;
}

/* The idle entry of tid at s, found through the (site, tid) index. */
static void add_idle(struct phases *p, struct ph_site *s, __u32 tid, __u64 idle_ns)
{
	size_t ix;

	if (hmap_get_index(&p->idle_ix, s->id, tid, &ix)) {
		s->idle[ix].episodes++;
		s->idle[ix].idle_ns += idle_ns;
		return;
	}
	if (array_reserve((void **)&s->idle, &s->cap_idle, s->nidle + 1, sizeof(*s->idle)) ||
	    hmap_put_index(&p->idle_ix, s->id, tid, s->nidle))
		return;
	s->idle[s->nidle++] = (struct ph_idle){.tid = tid, .episodes = 1, .idle_ns = idle_ns};
	add_member(p, s->pid, s->object, tid);
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

void sites__account(struct phases *p, struct ph_site *s, const struct ph_episode *ep)
{
	__u32 i, k;

	add_times(s, ep);
	for (i = 0; i < ep->n; i++) {
		add_idle(p, s, ep->arr[i].tid, ph_wait_ns(&ep->arr[i]));
		for (k = 0; ep->arr[i].ctr_valid && k < SBT_MAX_COUNTERS; k++)
			s->ctr[k] += ep->arr[i].ctr[k];
	}
}
