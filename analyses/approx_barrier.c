// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Barrier exits, event-based (doc/design.md §5.4 models 3-4): arrivals are
 * approximated by the time-based rule (approx.c); no thread leaves before
 * the approximated last arrival. Exits follow Malony-Reed §4.2, or are
 * spaced by beta as in Sarukkai-Malony §3.2, in the measured exit order or
 * in reverse approximated arrival order. The exit is a perturbation
 * boundary: the thread is re-based on it, so errors before the barrier do
 * not carry past it.
 */
#include <stdint.h>
#include "analyses/phases_impl.h"

static __u64 max_arrival_a(const struct ph_episode *ep)
{
	__u64 max_a = 0;
	__u32 i;

	for (i = 0; i < ep->n; i++)
		if (ep->arr[i].ta_arrive > max_a)
			max_a = ep->arr[i].ta_arrive;
	return max_a;
}

/* Malony-Reed §4.2: every thread is present at the approximated last
 * arrival; the barrier code then takes what it took in the measurement
 * after the measured last arrival, less the exit probe's cost; later exits
 * keep their measured spacing from the first exit, less that cost too but
 * for an injected delay (spun after the exit's timestamp, it is not in the
 * spacing; the last arriver's, spun in its entry hit, delays the release as
 * the exit's cost stands for). */
static __u64 exit_malony_reed(struct phases *p, struct ph_episode *ep, __u64 tm, __u64 alpha,
			      __u64 inject, __u64 max_a)
{
	struct obj_state *o = p->cfg.least_handoffs ? approx__obj(p, ep->pid, ep->object) : NULL;

	if (!ep->tm_exit_f) {
		ep->tm_exit_f = tm;
		ep->ta_exit_f = max_a + sub0(approx__handoff(p, o ? &o->handoff1 : NULL,
							     sub0(tm, ep->last_arrive)),
					     alpha);
		return ep->ta_exit_f;
	}
	return ep->ta_exit_f +
	       sub0(approx__handoff(p, o ? &o->spacing1 : NULL, sub0(tm, ep->tm_exit_f)),
		    sub0(alpha, inject));
}

/* 1-based rank of arrival a in the approximated arrival order. */
static __u32 arrival_rank(const struct ph_episode *ep, const struct ph_arrival *a)
{
	__u32 i, rank = 1;

	for (i = 0; i < ep->n; i++) {
		const struct ph_arrival *b = &ep->arr[i];

		rank += b->ta_arrive < a->ta_arrive || (b->ta_arrive == a->ta_arrive && b < a);
	}
	return rank;
}

/* Sarukkai-Malony §3.2: the k-th thread to leave (in the measured exit
 * order, or the i-th of P to arrive with k = P - i + 1) leaves k - 1
 * spacings beta after the first, beta the barrier's exit spacing
 * (t_m(last exit) - t_m(first exit)) / (P - 1), a release that frees the
 * threads one by one. Two departures from the paper (doc/design.md §5.4):
 * the first exit keeps what the release took after the measured last
 * arrival, as Malony-Reed §4.2 (the paper has it beta after the last
 * arrival too, but in glibc's and the OpenMP runtimes' barriers the last
 * arriver frees the others and leaves at once: beta, a futex wake-up, made
 * every exit later than measured and the probes' cost came back at every
 * barrier); and no exit is earlier than Malony-Reed's for it (the
 * measurement less the probes' cost: a release whose spacing varies from
 * episode to episode, spinning or sleeping threads, made exits earlier
 * than any probe cost could explain). Episodes are approximated as their
 * exits are read, before the last exit is known: beta is that of earlier
 * episodes at the same barrier (approx_barrier__note_beta), and the first
 * episode of a barrier is Malony-Reed's. Never later than measured. */
static __u64 exit_sarukkai_malony(struct phases *p, struct ph_episode *ep, struct ph_arrival *a,
				  __u64 tm, __u64 alpha, __u64 inject, __u64 max_a)
{
	struct obj_state *o = hmap_get(&p->objects, ep->pid, ep->object);
	__u64 mr = exit_malony_reed(p, ep, tm, alpha, inject, max_a), k, ta;

	if (!o || !o->beta1)
		return mr;
	k = p->cfg.exit_order == PH_EXIT_REVERSE ? ep->n - arrival_rank(ep, a) + 1
						 : ++ep->exits_approximated;
	ta = ep->ta_exit_f + (k - 1) * (o->beta1 - 1);
	if (ta < mr)
		ta = mr;
	return ta < tm ? ta : tm > max_a ? tm : max_a;
}

/* beta of a barrier: the least exit spacing of its episodes so far. The
 * spacing is the release's own cost per thread plus whatever kept a thread
 * from leaving at once (a futex wake-up, no free CPU), which varies from
 * episode to episode; the least is the nearest to the release's own. */
void approx_barrier__note_beta(struct phases *p, const struct ph_episode *ep)
{
	__u64 first = UINT64_MAX, last = 0, beta1;
	struct obj_state *o;
	__u32 i;

	if (p->cfg.model != PH_MODEL_SM || ep->n < 2)
		return;
	for (i = 0; i < ep->n; i++) {
		__u64 d = ep->arr[i].depart_ns;

		if (!d)
			return;
		first = d < first ? d : first;
		last = d > last ? d : last;
	}
	o = approx__obj(p, ep->pid, ep->object);
	beta1 = (last - first) / (ep->n - 1) + 1;
	if (o && (!o->beta1 || beta1 < o->beta1))
		o->beta1 = beta1;
}

__u64 approx_barrier__exit(struct phases *p, struct ph_thread *t, struct ph_episode *ep,
			   struct ph_arrival *a, __u64 tm, __u16 probe)
{
	__u64 alpha = approx__alpha(p, probe, 1, tm), inject = approx__injected(p, probe), max_a,
	      ta;

	if (!approx__event_based(p))
		return approx__time(p, t, tm);
	max_a = max_arrival_a(ep);
	if (p->cfg.model == PH_MODEL_SM)
		ta = exit_sarukkai_malony(p, ep, a, tm, alpha, inject, max_a);
	else
		ta = exit_malony_reed(p, ep, tm, alpha, inject, max_a);
	/* it worked in the call after the release (episodes__task_ran()) */
	if (a->ran_late)
		ta = max_u64(ta, approx__time_based(t, tm));
	if (ta < max_a) /* cannot happen by construction; checked all the same */
		approx__violation(p, PH_VIOL_BARRIER, t->pid, t->tid, ep->object, tm, max_a - ta);
	approx__rebase(p, t, tm, ta);
	return ta;
}
