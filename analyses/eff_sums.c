// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Efficiency sums (doc/design.md §5.5; analyses/efficiency.h computes the
 * ratios): a phase's span, its threads' useful compute and wait states, in
 * each view. As episodes complete, each phase in the statistics adds its
 * sums to its site, each of its threads and the run; a thread's useful is
 * also kept per site (its idle entry) for the site's load balance.
 * Constant work per thread of the episode: a thread and its idle entry are
 * found through their indexes.
 */
#include <string.h>
#include "analyses/phases_impl.h"

__u64 ph_useful(const struct ph_arrival *a, int view)
{
	__u64 waits = 0;
	int k;

	if (view != PH_APPROXIMATED)
		return ph_useful_ns(a);
	for (k = 0; k < PH_WAIT_NKINDS; k++)
		waits += a->waits_a.ns[k];
	return sub0(ph_compute_a(a), waits);
}

__u64 ph_eff_arrival(struct ph_eff_sums *s, const struct ph_arrival *a, int view,
		     const struct ph_episode_times *m)
{
	const struct ph_waits *w = view == PH_APPROXIMATED ? &a->waits_a : &a->waits;
	struct ph_times t = ph_times(a, view);
	__u64 useful = ph_useful(a, view);
	int k;

	s->useful_ns += useful;
	s->barrier_wait_ns += sub0(m->last_arrive, t.arrive);
	s->completion_ns += t.depart ? sub0(t.depart, m->last_arrive) : 0;
	s->late_start_ns += sub0(t.start, m->start);
	for (k = 0; k < PH_WAIT_NKINDS; k++)
		s->waits.ns[k] += w->ns[k];
	return useful;
}

void ph_eff_add(struct ph_eff_sums *a, const struct ph_eff_sums *b)
{
	int k;

	a->phases += b->phases;
	a->runtime_ns += b->runtime_ns;
	a->useful_ns += b->useful_ns;
	a->max_useful_ns += b->max_useful_ns;
	a->barrier_wait_ns += b->barrier_wait_ns;
	a->completion_ns += b->completion_ns;
	a->late_start_ns += b->late_start_ns;
	for (k = 0; k < PH_WAIT_NKINDS; k++)
		a->waits.ns[k] += b->waits.ns[k];
}

/* The sums of episode ep in a view whose times are m. */
static void episode_sums(const struct ph_episode *ep, int view, const struct ph_episode_times *m,
			 struct ph_eff_sums *s)
{
	__u32 i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < ep->n; i++)
		s->max_useful_ns =
			max_u64(s->max_useful_ns, ph_eff_arrival(s, &ep->arr[i], view, m));
	s->phases = 1;
	s->runtime_ns = m->phase_ns;
}

void ph_eff_episode(const struct ph_episode *ep, int view, struct ph_eff_sums *s)
{
	struct ph_episode_times m;

	ph_episode_times(ep, view, &m);
	episode_sums(ep, view, &m, s);
}

/* Thread tid's entry at site s (made by sites__account()). */
static struct ph_idle *idle_of(struct phases *p, struct ph_site *s, __u32 tid)
{
	size_t ix;

	return hmap_get_index(&p->idle_ix, s->id, tid, &ix) ? &s->idle[ix] : NULL;
}

/* One arrival's share in each of nv views, with its phase's times (m),
 * span and greatest useful (ph). */
static void add_thread(struct phases *p, struct ph_site *s, const struct ph_arrival *a, int nv,
		       const struct ph_episode_times *m, const struct ph_eff_sums *ph)
{
	struct ph_thread *t = hmap_get(&p->threads, a->tid, 0);
	struct ph_idle *idle = idle_of(p, s, a->tid);
	int v;

	for (v = 0; v < nv; v++) {
		struct ph_eff_sums one = {.phases = 1,
					  .runtime_ns = ph[v].runtime_ns,
					  .max_useful_ns = ph[v].max_useful_ns};
		__u64 useful = ph_eff_arrival(&one, a, v, &m[v]);

		if (t)
			ph_eff_add(&t->eff[v], &one);
		if (idle)
			idle->useful_ns[v] += useful;
	}
}

void eff_sums__episode(struct phases *p, struct ph_site *s, const struct ph_episode *ep)
{
	int v, nv = approx__enabled(p) ? 2 : 1;
	struct ph_episode_times m[2];
	struct ph_eff_sums ph[2];
	__u32 i;

	if (!ep->n)
		return;
	for (v = 0; v < nv; v++) {
		ph_episode_times(ep, v, &m[v]);
		episode_sums(ep, v, &m[v], &ph[v]);
		ph_eff_add(&s->eff[v], &ph[v]);
		if (!p->eff_phases || m[v].start < p->eff_start[v])
			p->eff_start[v] = m[v].start;
	}
	for (i = 0; i < ep->n; i++)
		add_thread(p, s, &ep->arr[i], nv, m, ph);
	p->eff_phases++;
}
