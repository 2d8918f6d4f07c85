// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hand-offs, event-based (doc/design.md §5.4 models 5-7): a semaphore P that took
 * a V's token (Malony-Reed §4.3.2, cases A, B and C), and, on the same
 * principle, a lock acquired after an unlock, a condition wait ended by a
 * signal, and a futex wait outside probed calls ended by a wake. No
 * acquisition is approximated before the release it needed.
 */
#include "analyses/phases_impl.h"
#include "analyses/sync.h"

/* Futex words are keyed apart from the objects of the same address (a
 * mutex's word is the mutex). */
#define FUTEX_KEY(pid) ((__u64)(pid) | 1ULL << 32)

static void note_release(struct phases *p, const struct sbt_event *e, __u64 ta)
{
	struct obj_state *o = approx__obj(p, e->pid, e->obj);

	if (o) {
		o->tm = e->ts;
		o->ta = ta;
		o->probe = e->probe;
		o->ask_ta1 = 0;
	}
}

/* A lock requested after its latest release (measured): the earliest such
 * request in the approximation bounds the lock's next hand-off (acquired()). */
static void note_request(struct phases *p, const struct ph_thread *t, const struct sbt_event *e,
			 __u64 ta)
{
	struct obj_state *o = hmap_get(&p->objects, e->pid, e->obj);

	if (o && o->tm && e->ts >= o->tm && (!o->ask_ta1 || ta < o->ask_ta1 - 1)) {
		o->ask_ta1 = ta + 1;
		o->ask_tid = t->tid;
	}
}

/* The measured hand-off of a lock, bounded by the first request another
 * thread made after the release (issue 17 §4): glibc's mutexes are unfair,
 * a woken waiter competes with any running thread that asks, and the probes
 * slowed the asker (often the releaser, asking again at once) until the
 * waiter won. Without them the asker takes the lock when it asks: the lock
 * is idle from the release to that request at most, whoever takes it. The
 * measured order is kept, so the waiter takes it then in the approximation,
 * and the asker's own acquisition, later in the measurement, follows. */
static __u64 barging_bound(const struct obj_state *r, const struct ph_thread *t, __u64 handoff)
{
	__u64 gap;

	if (!r->ask_ta1 || r->ask_tid == t->tid)
		return handoff;
	gap = sub0(r->ask_ta1 - 1, r->ta);
	return gap < handoff ? gap : handoff;
}

/* Probe cost between a release's timestamp and the waiter's return
 * timestamp: the rest of the release's entry hit (a single-stepped
 * instruction costs most after the handler ran; an injected delay all
 * after it) and the start of the waiter's return hit (not its injected
 * delay, spun after its timestamp), each at the cost in force at its time. */
static __u64 handoff_alpha(struct phases *p, __u16 wait_probe, __u64 wait_ts, __u16 release_probe,
			   __u64 release_ts)
{
	return sub0(approx__alpha(p, wait_probe, 1, wait_ts), approx__injected(p, wait_probe)) +
	       approx__alpha(p, release_probe, 0, release_ts);
}

/* A lock acquired after an unlock, a condition wait ended after a signal
 * (our extension of Malony-Reed §4.3, doc/design.md §5.4 model 6): the measured
 * acquisition order is kept and no acquisition is approximated before the
 * release it needed. If the thread waited for it in the measurement (the
 * release came after its call began), it leaves at the approximated release
 * plus the measured hand-off less probe cost, or at its approximated call
 * entry if the lock was already free then (the uncontended path takes tens
 * of ns, so no hand-off: a release approximated before the request hands
 * nothing off, however long the measured hand-off). If it did not wait but
 * the release is now later than its call entry, it waits for it (case A). */
static void acquired(struct phases *p, struct ph_thread *t, __u64 tm_s, __u64 ta_s,
		     const struct sbt_event *e, __u16 wait_probe, struct obj_state *r)
{
	__u64 ta_e = max_u64(approx__time_based(t, e->ts), ta_s), ta;

	if (r->tm > e->ts)
		return;
	if (r->tm >= tm_s) {
		ta = r->ta +
		     barging_bound(r, t,
				   sub0(approx__handoff(p, &r->handoff1, e->ts - r->tm),
					handoff_alpha(p, wait_probe, e->ts, r->probe, r->tm)));
		ta = r->ta > ta_s ? ta : ta_s;
	} else {
		ta = r->ta > ta_s ? r->ta + (ta_e - ta_s) : ta_e;
	}
	approx__rebase(p, t, e->ts, ta);
}

/* A futex wait outside any probed call (a hand-made barrier or lock) ended
 * by a wake (doc/design.md §5.4 model 7): the same rule as a lock, the wake being
 * the release; probe id 0 holds the syscall tracepoints' cost. */
void approx_handoff__futex_woken(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	struct obj_state *r = hmap_get(&p->objects, FUTEX_KEY(e->pid), t->futex.uaddr);

	if (r && r->tm)
		acquired(p, t, t->futex.ts, t->futex.ta, e, 0, r);
}

/* A join of thread w (threads__joined(); NULL: the wait was no join;
 * doc/design.md §5.4 model 7; Malony-Reed §3.2.2). The joiner resumes at
 * the release's approximated time plus the measured hand-off less probe
 * cost, or at its own approximated entry into the wait if that is later
 * (the thread had exited before it in the approximation: no wait). The
 * release is the joined thread's exit while other workers run. A main
 * thread whose wait outlasted every worker resumes on the join rule's
 * release instead (the greatest approximated exit, the hand-off measured
 * from the latest measured exit): its return is the first event after the
 * concurrent phase, and the time from the joined exit to it spans the later
 * exits, whose spacing the approximation shortened (a main thread short of
 * a CPU until the last worker's exit freed one resumed that much too late).
 * Returns 1 if the wait was a join. */
int approx_handoff__joined(struct phases *p, struct ph_thread *t, const struct sbt_event *e,
			   const struct ph_thread *w)
{
	__u64 tm_r, ta_r, ta;

	if (!w)
		return 0;
	if (!approx__join_release(p, t, &tm_r, &ta_r)) {
		tm_r = w->exit_ns;
		ta_r = w->ta_prev;
	}
	/* an exit approximated before the wait began hands nothing off */
	ta = ta_r > t->futex.ta
		     ? ta_r + sub0(sub0(e->ts, tm_r), handoff_alpha(p, 0, e->ts, 0, tm_r))
		     : t->futex.ta;
	/* never before its own latest event (the join rule may have re-based
	 * it at the last exit) */
	ta = max_u64(ta, t->ta_prev);
	approx__rebase(p, t, e->ts, ta);
	return 1;
}

/* A futex wake: the release a waiter's return may be re-timed on. */
void approx_handoff__futex_wake(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	struct obj_state *o = approx__obj(p, FUTEX_KEY(e->pid), e->obj);

	if (o) {
		o->tm = e->ts;
		o->ta = max_u64(approx__time_based(t, e->ts), t->ta_prev);
		o->probe = 0;
	}
}

/* A P that took V's token (Malony-Reed §4.3.2). P_s is the call's entry,
 * P_e its return. Waited in the measurement (V after P_s): case B when the
 * approximated V precedes P_s, t_a(P_e) = t_a(P_w) + t_m(P_e) - t_m(V) with
 * P_w = P_s, else t_a(V) + t_m(P_e) - t_m(V), both less probe cost. No wait
 * measured but V approximated after P_s: case A, P_p = V and the call's own
 * time follows. Otherwise time-based. */
static void sem_acquired(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e,
			 const struct sync_post *v)
{
	__u64 ta_s = t->stack[d].ta, ta_e = max_u64(approx__time_based(t, e->ts), ta_s), ta;
	struct obj_state *o = approx__obj(p, e->pid, t->stack[d].obj);

	if (v->ts > e->ts)
		return;
	if (v->ts >= t->stack[d].ts)
		ta = (v->ta > ta_s ? v->ta : ta_s) +
		     sub0(approx__handoff(p, o ? &o->handoff1 : NULL, e->ts - v->ts),
			  handoff_alpha(p, e->probe, e->ts, v->probe, v->ts));
	else
		ta = v->ta > ta_s ? v->ta + (ta_e - ta_s) : ta_e;
	approx__rebase(p, t, e->ts, ta);
	if (o) {
		o->outstanding -= !!o->outstanding;
		o->ta_last_p = ta;
	}
}

/* A V (sem_post), at its entry. If every earlier V had been taken when it
 * was measured, the last P to take one came before it; approximated before
 * that P, two V's would be pending where the measurement had one (case C):
 * logged, and the V moved just after that P. */
static __u64 sem_posted(struct phases *p, struct ph_thread *t, const struct sbt_event *e, __u64 ta)
{
	struct obj_state *o = approx__obj(p, e->pid, e->obj);

	if (!o)
		return ta;
	if (!o->outstanding && o->ta_last_p && ta <= o->ta_last_p) {
		approx__violation(p, PH_VIOL_SEM_CASE_C, e->pid, e->tid, e->obj, e->ts,
				  o->ta_last_p + 1 - ta);
		ta = o->ta_last_p + 1;
		approx__rebase(p, t, e->ts, ta);
	}
	o->outstanding++;
	return ta;
}

__u64 approx_handoff__entry(struct phases *p, struct ph_thread *t, const struct sbt_event *e,
			    int kind)
{
	__u64 ta = approx__enabled(p) ? t->ta_prev : 0; /* approximated by phases__feed() */

	if (!approx__event_based(p))
		return ta;
	if (kind == SBT_PK_SEM_POST)
		return sem_posted(p, t, e, ta);
	/* an unlock or signal takes effect at its entry */
	if (ph_is_release(kind))
		note_release(p, e, ta);
	else if (kind == SBT_PK_LOCK || kind == SBT_PK_TRYLOCK)
		note_request(p, t, e, ta);
	return ta;
}

void approx_handoff__returned(struct phases *p, struct ph_thread *t, int d,
			      const struct sbt_event *e, int kind, int paired,
			      const struct sync_post *v)
{
	struct obj_state *r;

	if (!approx__event_based(p) || d >= t->stack_cap)
		return;
	/* a failed call hands nothing off */
	if (sync__call_result(p->cfg.probes, p->cfg.nprobes, e->probe, (__s64)e->obj))
		return;
	if (kind == SBT_PK_SEM_WAIT || kind == SBT_PK_SEM_TRYWAIT) {
		if (paired)
			sem_acquired(p, t, d, e, v);
		return;
	}
	r = hmap_get(&p->objects, e->pid, t->stack[d].obj);
	if (r && r->tm &&
	    (kind == SBT_PK_LOCK || kind == SBT_PK_TRYLOCK || kind == SBT_PK_COND_WAIT))
		acquired(p, t, t->stack[d].ts, t->stack[d].ta, e, e->probe, r);
}
