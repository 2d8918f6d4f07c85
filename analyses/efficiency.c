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
	__u32 k;

	memset(e, 0, sizeof(*e));
	e->s = s->eff[view];
	for (k = 0; k < s->nidle; k++) {
		__u64 u = s->idle[k].useful_ns[view];

		e->max_useful_ns = u > e->max_useful_ns ? u : e->max_useful_ns;
	}
	e->threads = s->nidle;
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

void eff_run(const struct phases *p, int view, struct eff *e)
{
	__u64 last = view == PH_APPROXIMATED ? phases__approx_last_ts(p) : phases__last_ts(p);
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
	}
	/* each thread's phases, summed, are not the run's */
	e->s.phases = phases__eff_phases(p);
	e->s.max_useful_ns = e->max_useful_ns;
	e->s.runtime_ns = e->s.phases ? sub0(last, phases__eff_start(p, view)) : 0;
	pop(e);
}
