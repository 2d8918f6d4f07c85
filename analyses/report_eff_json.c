// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Efficiencies and wait states in the JSON report (doc/design.md §5.5;
 * schema in README.md): the efficiency{} object of a phase, a site, a
 * thread and the run, measured with its approximated twin, and the wait
 * keys of each thread of a phase.
 */
#include "analyses/efficiency.h"
#include "analyses/report_impl.h"
#include "lib/num.h"

static const char *const wait_keys[PH_WAIT_NKINDS] = {"lock_wait_ns", "sem_wait_ns", "cond_wait_ns",
						      "task_wait_ns"};
static const char *const caused_keys[SYNC_FUTEX] = {"lock_ns", "sem_ns", "cond_ns"};

void report_json__arrival_waits(struct json *j, const struct ph_arrival *a, int view,
				const struct ph_episode_times *m)
{
	const struct ph_waits *w = view == PH_APPROXIMATED ? &a->waits_a : &a->waits;
	__u64 sum = 0;
	int k;

	if (view == PH_APPROXIMATED) {
		for (k = 0; k < PH_WAIT_NKINDS; k++)
			sum += w->ns[k];
		json_ku64(j, "sync_wait_ns", sum);
		json_ku64(j, "useful_ns", ph_useful(a, view));
	}
	json_ku64(j, "late_start_ns", sub0(ph_times(a, view).start, m->start));
	for (k = 0; k < PH_WAIT_NKINDS; k++)
		json_ku64(j, wait_keys[k], w->ns[k]);
}

static void wait_states(struct json *j, const struct ph_eff_sums *s)
{
	int k;

	json_key(j, "wait_states");
	json_obj_begin(j);
	json_ku64(j, "barrier_wait_ns", s->barrier_wait_ns);
	json_ku64(j, "barrier_completion_ns", s->completion_ns);
	json_ku64(j, "late_start_ns", s->late_start_ns);
	for (k = 0; k < PH_WAIT_NKINDS; k++)
		json_ku64(j, wait_keys[k], s->waits.ns[k]);
	json_obj_end(j);
}

/* The keys of one view. */
static void eff_keys(struct json *j, const struct eff *e)
{
	json_kdouble(j, "load_balance", e->load_balance);
	json_kdouble(j, "sync_efficiency", e->sync_efficiency);
	json_kdouble(j, "parallel_efficiency", e->parallel_efficiency);
	json_ku64(j, "threads", e->threads);
	json_ku64(j, "phases", e->s.phases);
	json_ku64(j, "runtime_ns", e->s.runtime_ns);
	json_ku64(j, "useful_ns", e->s.useful_ns);
	json_ku64(j, "max_useful_ns", e->max_useful_ns);
	wait_states(j, &e->s);
}

static void caused(struct json *j, const struct sync_thread_waits *w)
{
	int k;

	json_key(j, "caused");
	json_obj_begin(j);
	for (k = 0; k < SYNC_FUTEX; k++)
		json_ku64(j, caused_keys[k], w->caused_ns[k]);
	json_obj_end(j);
}

/* "efficiency": the measured view e, its caused waits c (NULL: none for
 * the scope), the approximated view a when the report approximates. */
static void efficiency(struct report *r, const struct eff *e, const struct eff *a,
		       const struct sync_thread_waits *c)
{
	struct json *j = &r->json;

	json_key(j, "efficiency");
	json_obj_begin(j);
	eff_keys(j, e);
	if (c)
		caused(j, c);
	if (report__approx(r)) {
		json_key(j, "approximated");
		json_obj_begin(j);
		eff_keys(j, a);
		json_obj_end(j);
	}
	json_obj_end(j);
}

void report_json__phase_eff(struct report *r, const struct ph_episode *ep)
{
	struct eff e, a;

	eff_phase(ep, PH_MEASURED, &e);
	eff_phase(ep, PH_APPROXIMATED, &a);
	efficiency(r, &e, &a, NULL);
}

void report_json__site_eff(struct report *r, const struct ph_site *s)
{
	struct eff e, a;

	eff_site(s, PH_MEASURED, &e);
	eff_site(s, PH_APPROXIMATED, &a);
	efficiency(r, &e, &a, NULL);
}

void report_json__thread_eff(struct report *r, const struct ph_thread *t,
			     const struct sync_waits *w)
{
	struct sync_thread_waits c = sync_waits__thread(w, t->tid);
	struct eff e, a;

	eff_thread(t, PH_MEASURED, &e);
	eff_thread(t, PH_APPROXIMATED, &a);
	efficiency(r, &e, &a, &c);
}

void report_json__run_eff(struct report *r, const struct sync_waits *w)
{
	struct sync_thread_waits c = {0}, one;
	struct eff e, a;
	size_t i;
	int k;

	for (i = 0; i < phases__nthreads(r->ph); i++) {
		one = sync_waits__thread(w, phases__thread(r->ph, i)->tid);
		for (k = 0; k < SYNC_FUTEX; k++)
			c.caused_ns[k] += one.caused_ns[k];
	}
	eff_run(r->ph, PH_MEASURED, &e);
	eff_run(r->ph, PH_APPROXIMATED, &a);
	efficiency(r, &e, &a, &c);
}
