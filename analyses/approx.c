// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The time-based approximation (doc/design.md §5.4 models 1-2; Malony-Reed §3):
 * each thread's approximated time is its measured time since its last
 * perturbation boundary, less the probe cost it paid since then:
 *
 *	t_a(e) = base_a + (t_m(e) - base_m) - ovh
 *
 * Fork and join (Malony-Reed §3.2.2) and the synchronization models
 * (approx_barrier.c, approx_handoff.c) move a thread's basis (rebase). Also
 * here: the state the event-based models keep per object, and the
 * violations and repairs they record.
 */
#include <stdlib.h>
#include "analyses/phases_impl.h"

int approx__enabled(const struct phases *p)
{
	return p->cfg.alpha_enter && p->cfg.alpha_exit;
}

int approx__event_based(const struct phases *p)
{
	return approx__enabled(p) && p->cfg.model != PH_MODEL_TIME;
}

void approx__violation(struct phases *p, int kind, __u32 pid, __u32 tid, __u64 object, __u64 ts,
		       __u64 shift)
{
	p->violations[kind]++;
	if (p->nviolation_list < PH_VIOLATIONS_KEPT)
		p->violation_list[p->nviolation_list++] =
			(struct ph_violation){kind, pid, tid, object, ts, shift};
}

struct obj_state *approx__obj(struct phases *p, __u64 pid, __u64 obj)
{
	struct obj_state *o = hmap_get(&p->objects, pid, obj);

	return o ? o : hmap_put_new(&p->objects, pid, obj, sizeof(*o));
}

/* A hand-off as the models take it: as measured, or, on the error band's
 * least side (doc/design.md §5.4), the least measured at the object so far.
 * A measurement cannot tell a hand-off the probes slowed (a futex sleep and
 * wake-up where the waiter would have spun or barged, a thread preempted
 * while its hit ran) from one that was slow anyway; the band shows how much
 * hinges on it. least1 is the object's least + 1 (0: none yet; NULL: no
 * object state, no memory). */
__u64 approx__handoff(const struct phases *p, __u64 *least1, __u64 measured)
{
	if (!p->cfg.least_handoffs || !least1)
		return measured;
	if (!*least1 || measured < *least1 - 1)
		*least1 = measured + 1;
	return *least1 - 1;
}

/* The run ends at its last measured event: its approximation is the
 * approximated end (not the largest approximation seen, which may belong to
 * a thread not yet re-based). */
static void note_last(struct phases *p, __u64 tm, __u64 ta)
{
	if (tm >= p->ta_last_tm) {
		p->ta_last_tm = tm;
		p->ta_last = ta;
	}
}

void approx__restart(struct ph_thread *t, __u64 tm, __u64 ta)
{
	t->base_m = tm;
	t->base_a = ta;
	t->ovh = 0;
	t->pending_in_ovh = 0;
	t->ta_prev = ta;
	t->tm_prev = tm;
}

__u64 approx__time_based(const struct ph_thread *t, __u64 tm)
{
	return t->base_a + sub0(sub0(tm, t->base_m), t->ovh);
}

__u64 approx__time(struct phases *p, struct ph_thread *t, __u64 tm)
{
	__u64 ta = approx__time_based(t, tm);

	/* Two events closer than the probe cost charged between them (the
	 * cost is charged whole at the next event, though part of it was
	 * spent before the hit's timestamp): held at the previous event, the
	 * rest is removed at the next ones. */
	if (ta < t->ta_prev) {
		p->clamped++;
		ta = t->ta_prev;
	}
	t->ta_prev = ta;
	t->tm_prev = tm;
	note_last(p, tm, ta);
	return ta;
}

void approx__rebase(struct phases *p, struct ph_thread *t, __u64 tm, __u64 ta)
{
	/* A basis earlier than the thread's latest event would count the time
	 * between them twice (approximated t_a > measured t_m after it). */
	if (tm < t->tm_prev)
		tm = t->tm_prev;
	if (ta < t->ta_prev) {
		approx__violation(p, PH_VIOL_ORDER, t->pid, t->tid, 0, tm, t->ta_prev - ta);
		ta = t->ta_prev;
	}
	t->ta_prev = ta;
	t->tm_prev = tm;
	note_last(p, tm, ta);
	t->base_m = tm;
	t->base_a = ta;
	t->ovh = 0;
	t->pending_in_ovh = 0;
}

/* The cost in force at ts of entry e of the session's calibrations, into *c;
 * 0 when there is none. */
static int series_cost(struct phases *p, int e, __u64 ts, struct alpha_cost *c)
{
	if (e < 0 || e >= ALPHA_SERIES_MAX_ENTRIES)
		return 0;
	return alpha_series__cost(p->cfg.alpha_series, e, ts, &p->alpha_hint[e], c);
}

/* A probe bound to a calibrated entry pays the calibration of it in force
 * at the hit (the latest at or before ts, before the first the first),
 * scaled by the hits beside it (approx_conc.c); any other, the fixed
 * table's cost. */
__u64 approx__alpha(struct phases *p, __u16 probe, int exit, __u64 ts)
{
	struct alpha_cost c;

	if (probe >= p->cfg.nprobes || !approx__enabled(p))
		return 0;
	/* a calibration holds no --inject-delay; uprobe hits (ids from 1) spun it */
	if (p->cfg.alpha_series &&
	    series_cost(p, alpha_series__entry_of(p->cfg.alpha_series, probe, NULL), ts, &c))
		return approx_conc__scaled(p, exit ? c.exit_ns : c.entry_ns) +
		       (probe ? p->cfg.inject_ns : 0);
	return exit ? p->cfg.alpha_exit[probe] : p->cfg.alpha_enter[probe];
}

/* What --inject-delay spun in a hit of probe: after its record's timestamp
 * (the record is written first), so never inside an interval that ends at
 * that record, while the hit's own cost is split around it. */
__u64 approx__injected(const struct phases *p, __u16 probe)
{
	return probe && probe < p->cfg.nprobes && approx__enabled(p) ? p->cfg.inject_ns : 0;
}

/* The record's own probe hit costs its thread's later events: the
 * calibrated cost of its probe at its time (futex records, probe id 0: the
 * syscall tracepoints' hits). A self-timed hit's charge is provisional: the
 * thread's next self-timed record replaces it with the measured cost
 * (approx__measured). */
void approx__pay(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	int entry = e->type == SBT_EV_ENTER || e->type == SBT_EV_FUTEX_ENTER;
	__u64 a;

	t->pending_open = 0;
	if (!approx__enabled(p) || e->probe >= p->cfg.nprobes)
		return;
	a = approx__alpha(p, e->probe, !entry, e->ts);
	approx_conc__hit(p, t, e->ts, a);
	t->ovh += a;
	t->overhead_total += a;
	if (e->flags & SBT_RF_TIMED) {
		t->pending = a;
		t->pending_set = t->pending_in_ovh = t->pending_open = 1;
	}
}

/* A COUNTERS record: read in the hit it follows, so inside a self-timed
 * hit's measured cost. Charged when the session charges counter records,
 * at the cost in force at its time. */
/* A COUNTERS record's cost at its time: the session's calibration in force,
 * else the fixed one; 0 when the session charges none. */
static __u64 counters_cost(struct phases *p, const struct sbt_event *e)
{
	const struct alpha_series *s = p->cfg.alpha_series;
	struct alpha_cost c;

	if (!approx__enabled(p) || !p->cfg.alpha_counters)
		return 0;
	if (s && series_cost(p, alpha_series__counters(s), e->ts, &c))
		return c.entry_ns;
	return p->cfg.alpha_counters;
}

void approx__pay_counters(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	__u64 a = counters_cost(p, e);

	if (!a)
		return;
	t->ovh += a;
	t->overhead_total += a;
	if (t->pending_open)
		t->pending += a;
}

/* A measured cost this far above the calibrated one is not the probe's:
 * the thread was preempted or interrupted at length inside the hit, which
 * it may as well have been without the probe. */
#define TIMED_REFUSE_FACTOR 10
#define TIMED_REFUSE_NS	    20000

/* Record e brings the measured cost of its thread's previous self-timed
 * hit: it replaces what was charged for that hit, in the overhead since the
 * thread's last re-basing (when the hit came after it) and in its total.
 * Without a charged hit (its record was lost) there is nothing to replace. */
void approx__measured(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	__u64 was = t->pending, cost = e->cost;

	if (!approx__enabled(p) || !t->pending_set)
		return;
	t->pending_set = 0;
	if (cost > TIMED_REFUSE_FACTOR * was + TIMED_REFUSE_NS) {
		p->timed.refused++;
		return;
	}
	p->timed.hits++;
	p->timed.measured_ns += cost;
	p->timed.calibrated_ns += was;
	t->overhead_total = t->overhead_total - was + cost;
	if (t->pending_in_ovh)
		t->ovh = sub0(t->ovh, was) + cost;
	t->pending_in_ovh = 0;
}

/* What a PREEMPTED record charges its thread t (NULL: not seen): e->tid
 * lost its CPU to sbt-bpf itself for e->obj ns up to e->ts, which the run
 * without the tracer would not have lost. The window closes when sbt-bpf
 * leaves the CPU or the thread runs on another, so it holds no time the
 * thread would have waited anyway for another task; an event of its own
 * inside it (clocks of two CPUs) bounds it. 0 for a thread not seen yet
 * (one not started yet starts on its own basis), or when not
 * approximating. The analysis and the MPI view (phases__record_cost())
 * charge the same. */
static __u64 preempted_lost(const struct phases *p, const struct ph_thread *t,
			    const struct sbt_event *e)
{
	__u64 from = sub0(e->ts, e->obj);

	if (!t || t->pid != e->pid || !approx__enabled(p))
		return 0;
	if (t->tm_prev > from && t->tm_prev - from < e->obj)
		return t->tm_prev - from;
	return e->obj;
}

/* A PREEMPTED record: the thread's later events come that much later, as
 * after a probe hit. */
void approx__preempted(struct phases *p, const struct sbt_event *e)
{
	struct ph_thread *t = hmap_get(&p->threads, e->tid, 0);
	__u64 lost = preempted_lost(p, t, e);

	p->preempted.count++;
	p->preempted.ns += e->obj;
	if (!lost)
		return;
	t->ovh += lost;
	t->preempted_total += lost;
}

/* Fork (Malony-Reed §3.2.2): a new thread takes its time basis from its
 * creator's approximated time. The record does not name the creator: the
 * process's main thread is taken to be it, and a thread of its own process
 * starts at its measured time when there is none. */
void approx__fork(struct phases *p, struct ph_thread *t, __u32 creator, __u64 tm)
{
	struct ph_thread *c = hmap_get(&p->threads, creator ? creator : t->pid, 0);
	__u64 ta = tm;

	if (approx__enabled(p) && c && c != t && c->pid == t->pid && !c->exit_ns)
		ta = approx__time_based(c, tm);
	t->ta_begin = ta;
	approx__restart(t, tm, ta);
	note_last(p, tm, ta);
}

/* Whether a thread of main's process other than main has not exited yet
 * (from its process's count of live threads: this runs at every exit). */
static int workers_running(const struct phases *p, const struct ph_thread *main)
{
	const struct ph_proc *pr = hmap_get(&p->procs, main->pid, 0);

	return pr && pr->nlive > (__u32) !!main->live_linked;
}

int approx__join_release(const struct phases *p, const struct ph_thread *t, __u64 *tm, __u64 *ta)
{
	if (hmap_get(&p->threads, t->pid, 0) != t || !t->join_tm || workers_running(p, t))
		return 0;
	*tm = t->join_tm;
	*ta = t->join_ta;
	return 1;
}

/* Join (Malony-Reed §3.2.2): once the last worker of a process has exited,
 * its main thread (which was joining them) continues from the worker exit
 * with the greatest approximated time, if that is earlier than its own
 * approximation. It resumes, in the measurement, at the latest worker exit:
 * not at the exit whose approximation is the greatest, which may precede the
 * main thread's own later events. A join wait still in progress is re-timed
 * at its return on the same basis (approx_handoff__joined()). */
static void join_workers(struct phases *p, struct ph_thread *w, __u64 ta_exit, __u64 tm_exit)
{
	struct ph_thread *main = hmap_get(&p->threads, w->pid, 0);
	__u64 tm, ta;

	/* a main thread gone first (the process killed) joined nobody */
	if (!main || main == w || main->exit_ns)
		return;
	main->join_ta = max_u64(main->join_ta, ta_exit);
	main->join_tm = max_u64(main->join_tm, tm_exit);
	if (workers_running(p, main))
		return;
	/* no earlier than the main thread's latest event either */
	tm = max_u64(main->join_tm, main->tm_prev);
	ta = max_u64(main->join_ta, main->ta_prev);
	if (ta < approx__time_based(main, tm))
		approx__rebase(p, main, tm, ta);
}

void approx__join(struct phases *p, struct ph_thread *t, __u64 tm)
{
	if (approx__enabled(p))
		join_workers(p, t, approx__time(p, t, tm), tm);
}

/* ---- what the approximation found --------------------------------------------- */

__u64 phases__approx_last_ts(const struct phases *p)
{
	return p->ta_last;
}

__u64 phases__thread_approx(const struct phases *p, __u32 tid)
{
	const struct ph_thread *t = hmap_get(&p->threads, tid, 0);

	return t && approx__enabled(p) ? t->ta_prev : 0;
}

__u64 phases__record_cost(struct phases *p, const struct sbt_event *e)
{
	switch (e->type) {
	case SBT_EV_ENTER:
	case SBT_EV_FUTEX_ENTER:
		return approx__alpha(p, e->probe, 0, e->ts);
	case SBT_EV_EXIT:
	case SBT_EV_FUTEX_EXIT:
		return approx__alpha(p, e->probe, 1, e->ts);
	case SBT_EV_COUNTERS:
		return counters_cost(p, e);
	case SBT_EV_PREEMPTED:
		return preempted_lost(p, hmap_get(&p->threads, e->tid, 0), e);
	}
	return 0;
}

__u64 phases__clamped(const struct phases *p)
{
	return p->clamped;
}

const struct ph_timed *phases__timed(const struct phases *p)
{
	return &p->timed;
}

const struct ph_preempted *phases__preempted(const struct phases *p)
{
	return &p->preempted;
}

__u64 phases__violations(const struct phases *p, int kind)
{
	__u64 n = 0;
	int k;

	if (kind >= 0 && kind < PH_VIOL_NKINDS)
		return p->violations[kind];
	for (k = 0; k < PH_VIOL_NKINDS; k++)
		n += p->violations[k];
	return n;
}

size_t phases__violation_list(const struct ph_violation **first, const struct phases *p)
{
	*first = p->violation_list;
	return p->nviolation_list;
}

const char *ph_violation_name(int kind)
{
	static const char *const names[PH_VIOL_NKINDS] = {
		[PH_VIOL_SEM_CASE_C] = "semaphore_case_c",
		[PH_VIOL_ORDER] = "thread_order",
		[PH_VIOL_BARRIER] = "barrier_exit",
	};

	return kind >= 0 && kind < PH_VIOL_NKINDS ? names[kind] : "unknown";
}

__u64 phases__approx_duration(const struct phases *p)
{
	__u64 first = phases__first_ts(p), last = phases__approx_last_ts(p);

	return last > first ? last - first : 0;
}
