// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Efficiencies and wait states in the text summary (doc/design.md §5.5): an
 * "Efficiency" table (the run, each barrier site, each thread: load
 * balance, synchronization and parallel efficiency, in the view shown and,
 * both views asked, the approximated one beside) and a "Wait states" table
 * per thread (measured, or approximated only on request; the waits it
 * caused others, as measured).
 */
#include <inttypes.h>
#include "analyses/efficiency.h"
#include "analyses/report_impl.h"

static void eff_head(struct report *r)
{
	int only_a = report__single_view(r) == PH_APPROXIMATED;

	fprintf(r->o.out,
		"Efficiency%s (useful = compute less lock, semaphore, condvar and task waits; "
		"LB = mean/max useful,\n    SE = max useful/runtime, PE = LB x SE):\n",
		only_a ? " (approximated)" : "");
	fprintf(r->o.out, "    %-18s %8s %8s %13s %13s %6s %6s %6s", "scope", "phases", "threads",
		"runtime ms", "useful ms", "LB", "SE", "PE");
	if (report__both_views(r))
		fprintf(r->o.out, " %6s %6s %6s", "~LB", "~SE", "~PE");
	fputc('\n', r->o.out);
}

/* A row: e in the view shown, a the approximated one; where: what it is. */
static void eff_row(struct report *r, const char *scope, const struct eff *e, const struct eff *a,
		    const char *where)
{
	fprintf(r->o.out, "    %-18s %8" PRIu64 " %8u %13.3f %13.3f %6.3f %6.3f %6.3f", scope,
		(uint64_t)e->s.phases, e->threads, ms(e->s.runtime_ns), ms(e->s.useful_ns),
		e->load_balance, e->sync_efficiency, e->parallel_efficiency);
	if (report__both_views(r))
		fprintf(r->o.out, " %6.3f %6.3f %6.3f", a->load_balance, a->sync_efficiency,
			a->parallel_efficiency);
	fprintf(r->o.out, "%s%s\n", *where ? "  " : "", where);
}

static void eff_site_row(struct report *r, const struct ph_site *s)
{
	struct barrier_names bn;
	char scope[32], where[2 * NAME_MAX_LEN + 4];
	struct eff e, a;

	report__name_barrier(r, s->pid, s->call_site, s->object, s->probe, &bn);
	snprintf(scope, sizeof(scope), "site %u", s->id);
	snprintf(where, sizeof(where), "%s \"%s\"", bn.where, bn.name);
	eff_site(s, report__single_view(r), &e);
	eff_site(s, PH_APPROXIMATED, &a);
	eff_row(r, scope, &e, &a, where);
}

static void eff_thread_row(struct report *r, const struct ph_thread *t)
{
	char scope[32];
	struct eff e, a;

	snprintf(scope, sizeof(scope), "thread %u", t->tid);
	eff_thread(t, report__single_view(r), &e);
	eff_thread(t, PH_APPROXIMATED, &a);
	eff_row(r, scope, &e, &a, "");
}

static void eff_table(struct report *r)
{
	size_t i;
	struct eff e, a;

	eff_run(r->ph, report__single_view(r), &e);
	eff_run(r->ph, PH_APPROXIMATED, &a);
	if (!e.s.phases) {
		/* a row of 1.000 would read as a perfectly balanced run */
		fprintf(r->o.out, "Efficiency: no barrier phases, %s\n",
			report__shows_fork_join(r) ? "the fork-join steps' load balance is below"
						   : "no load balance to measure");
		return;
	}
	eff_head(r);
	eff_row(r, "run", &e, &a, "");
	for (i = 0; i < phases__nsites(r->ph); i++)
		eff_site_row(r, phases__site(r->ph, i));
	for (i = 0; i < phases__nthreads(r->ph); i++)
		if (phases__thread(r->ph, i)->eff[PH_MEASURED].phases)
			eff_thread_row(r, phases__thread(r->ph, i));
	/* threads created at every step run outside any phase after their
	 * last barrier, which the run's runtime counts */
	if (report__shows_fork_join(r))
		fprintf(r->o.out, "    (threads created and joined at every step: their time "
				  "outside barrier phases is in the fork-join steps below)\n");
}

static void waits_head(struct report *r)
{
	fprintf(r->o.out,
		"Wait states%s (ms; in phases: at the barrier, barrier completion, late start, "
		"lock, semaphore,\n    condvar and task waits; whole run, measured: other "
		"threads' waits it caused holding a lock,\n    posting or signalling late):\n",
		report__single_view(r) == PH_APPROXIMATED ? " (approximated)" : "");
	fprintf(r->o.out, "    %10s %12s %12s %11s %11s %11s %11s %11s %11s %11s %11s\n", "thread",
		"at barrier", "completion", "late start", "lock", "sem", "cond", "task",
		"held lock", "late post", "late signal");
}

static void waits_row(struct report *r, const char *who, const struct ph_eff_sums *s,
		      const struct sync_thread_waits *c)
{
	fprintf(r->o.out,
		"    %10s %12.3f %12.3f %11.3f %11.3f %11.3f %11.3f %11.3f %11.3f %11.3f %11.3f\n",
		who, ms(s->barrier_wait_ns), ms(s->completion_ns), ms(s->late_start_ns),
		ms(s->waits.ns[PH_WAIT_LOCK]), ms(s->waits.ns[PH_WAIT_SEM]),
		ms(s->waits.ns[PH_WAIT_COND]), ms(s->waits.ns[PH_WAIT_TASK]),
		ms(c->caused_ns[SYNC_LOCK]), ms(c->caused_ns[SYNC_SEM]),
		ms(c->caused_ns[SYNC_COND]));
}

static int caused_any(const struct sync_thread_waits *c)
{
	return c->caused_ns[SYNC_LOCK] || c->caused_ns[SYNC_SEM] || c->caused_ns[SYNC_COND];
}

/* Threads with phases or waits they caused, and the run's totals. */
static void waits_table(struct report *r, const struct sync_waits *w)
{
	struct sync_thread_waits all = {0};
	struct ph_eff_sums total = {0};
	int view = report__single_view(r), k;
	char who[16];
	size_t i;

	waits_head(r);
	if (!phases__completed(r->ph))
		fprintf(r->o.out,
			"    (no barrier phases: each thread's lock, semaphore and condvar "
			"waits are its Threads row's lock/sem ms\n    and the tables below)\n");
	for (i = 0; i < phases__nthreads(r->ph); i++) {
		const struct ph_thread *t = phases__thread(r->ph, i);
		struct sync_thread_waits c = sync_waits__thread(w, t->tid);

		if (!t->eff[view].phases && !caused_any(&c))
			continue;
		snprintf(who, sizeof(who), "%u", t->tid);
		waits_row(r, who, &t->eff[view], &c);
		ph_eff_add(&total, &t->eff[view]);
		for (k = 0; k < SYNC_FUTEX; k++)
			all.caused_ns[k] += c.caused_ns[k];
	}
	waits_row(r, "all", &total, &all);
}

void report_text__efficiency(struct report *r)
{
	struct sync_report sr = report__sync_view(r);
	struct sync_waits w;

	eff_table(r);
	sync_waits__init(&w, &sr);
	waits_table(r, &w);
	sync_waits__free(&w);
}
