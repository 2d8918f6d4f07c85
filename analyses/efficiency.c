// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Efficiencies and wait states (doc/design.md §5.5; definitions in
 * analyses/efficiency.h): the ratios of a phase, a site, a thread and the run
 * from the sums the phase analysis keeps (analyses/eff_sums.c).
 */
#include <string.h>
#include "analyses/efficiency.h"
#include "lib/num.h"

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 1.0;
}

/* LB, SE and PE of e->threads threads with useful compute e->s.useful_ns
 * in all, compared with e->max_useful_ns, over e->s.runtime_ns. */
static void pop(struct eff *e)
{
	double mean = e->threads ? (double)e->s.useful_ns / e->threads : 0;

	e->load_balance = e->threads ? ratio(mean, (double)e->max_useful_ns) : 1.0;
	e->sync_efficiency = ratio((double)e->max_useful_ns, (double)e->s.runtime_ns);
	e->parallel_efficiency = e->load_balance * e->sync_efficiency;
}

/* A scope whose team changed (threads created for some of its phases only:
 * a team made every step, num_threads changing): a thread's useful summed
 * is no share of the whole, so phase by phase, as a thread's scope is: LB =
 * the phases' mean useful (over memberships, threads x phases taken part
 * in) against their greatest, summed; SE = that greatest, summed, over the
 * runtime. memberships: Σ over the threads of their phases. */
static void pop_teams(struct eff *e, __u64 max_sum, __u64 memberships)
{
	double mean = memberships ? (double)e->s.useful_ns * (double)e->s.phases / memberships : 0;

	e->max_useful_ns = max_sum;
	e->load_balance = memberships ? ratio(mean, (double)max_sum) : 1.0;
	e->sync_efficiency = ratio((double)max_sum, (double)e->s.runtime_ns);
	e->parallel_efficiency = e->load_balance * e->sync_efficiency;
}

void eff_phase(const struct ph_episode *ep, int view, struct eff *e)
{
	memset(e, 0, sizeof(*e));
	ph_eff_episode(ep, view, &e->s);
	e->threads = ep->n;
	e->max_useful_ns = e->s.max_useful_ns;
	pop(e);
}

void eff_site(const struct ph_site *s, int view, struct eff *e)
{
	__u64 memberships = 0;
	int changed = 0;
	__u32 k;

	memset(e, 0, sizeof(*e));
	e->s = s->eff[view];
	for (k = 0; k < s->nidle; k++) {
		__u64 u = s->idle[k].useful_ns[view];

		e->max_useful_ns = u > e->max_useful_ns ? u : e->max_useful_ns;
		/* its episodes count partial ones too: fewer is fewer phases */
		changed |= s->idle[k].episodes < e->s.phases;
		memberships +=
			s->idle[k].episodes < e->s.phases ? s->idle[k].episodes : e->s.phases;
	}
	e->threads = s->nidle;
	if (changed)
		pop_teams(e, e->s.max_useful_ns, memberships);
	else
		pop(e);
}

void eff_thread(const struct ph_thread *t, int view, struct eff *e)
{
	memset(e, 0, sizeof(*e));
	e->s = t->eff[view];
	e->threads = t->eff[view].phases ? 1 : 0;
	e->max_useful_ns = t->eff[view].max_useful_ns;
	pop(e);
}

/* Each phase's greatest useful compute, summed over the run (the sites
 * hold every phase once). */
static __u64 run_max_sum(const struct phases *p, int view)
{
	__u64 sum = 0;
	size_t i;

	for (i = 0; i < phases__nsites(p); i++)
		sum += phases__site(p, i)->eff[view].max_useful_ns;
	return sum;
}

void eff_run(const struct phases *p, int view, struct eff *e)
{
	__u64 last = view == PH_APPROXIMATED ? phases__approx_last_ts(p) : phases__last_ts(p);
	__u64 phases = phases__eff_phases(p), memberships = 0, max_sum;
	int changed = 0;
	size_t i;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < phases__nthreads(p); i++) {
		const struct ph_thread *t = phases__thread(p, i);

		if (!t->eff[view].phases)
			continue;
		e->threads++;
		ph_eff_add(&e->s, &t->eff[view]);
		if (t->eff[view].useful_ns > e->max_useful_ns)
			e->max_useful_ns = t->eff[view].useful_ns;
		changed |= t->eff[view].phases < phases;
		memberships += t->eff[view].phases;
	}
	/* each thread's phases, summed, are not the run's */
	e->s.phases = phases;
	e->s.max_useful_ns = e->max_useful_ns;
	e->s.runtime_ns = e->s.phases ? sub0(last, phases__eff_start(p, view)) : 0;
	/* phases at once (subteams at their own barriers, nested teams) sum
	 * their greatest past the runtime: the aggregate then */
	max_sum = changed ? run_max_sum(p, view) : 0;
	if (changed && max_sum <= e->s.runtime_ns)
		pop_teams(e, max_sum, memberships);
	else
		pop(e);
}
