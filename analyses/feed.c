// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * phases__feed(): one record into the barrier-phase analysis. A call's entry
 * and return go through its thread's stack of probed calls: the outermost
 * barrier call is an arrival and a departure (episodes.c), region frames
 * are timed (regions.c), lock, semaphore and condvar calls go to the sync
 * analysis and the hand-off models (approx_handoff.c). Futex records split
 * the wait of the call they happen in; thread and counter records go to
 * their modules. Every record is approximated before its handling, and its
 * own probe cost charged after it (approx.c). Records are held back while a
 * condition variable's or a semaphore's nature is undecided (condbar.c,
 * sembar.c): the first episodes of such a barrier are barrier episodes too.
 */
#include <errno.h>
#include <string.h>
#include "analyses/phases_impl.h"
#include "analyses/condbar.h"
#include "analyses/forkjoin.h"
#include "analyses/sembar.h"
#include "analyses/semgroups.h"
#include "analyses/sync.h"

static int is_call(const struct sbt_event *e)
{
	return e->type == SBT_EV_ENTER || e->type == SBT_EV_EXIT;
}

static int is_barrier(int kind)
{
	return kind == SBT_PK_BARRIER || kind == SBT_PK_TEAM_BARRIER;
}

/* Waits that take time out of a thread's compute phase. */
static int is_sync_wait(int kind)
{
	return kind == SBT_PK_LOCK || kind == SBT_PK_SEM_WAIT || kind == SBT_PK_COND_WAIT;
}

/* Number of barrier calls on the thread's stack below depth d. */
static int barrier_depth(const struct phases *p, const struct ph_thread *t, int d)
{
	int i, n = 0;

	for (i = 0; i < d && i < t->stack_cap; i++)
		n += is_barrier(p->cfg.probes[t->stack[i].probe].kind);
	return n;
}

/* The kind of thread t's call at depth i. */
static int kind_at(const struct phases *p, const struct ph_thread *t, int i)
{
	return p->cfg.probes[t->stack[i].probe].kind;
}

_Static_assert(SBT_PK_MAX < 32, "a probe kind is a bit of frame_below()'s stop");

/* The first frame below call d of thread t that is a barrier or of a kind
 * in stop (a bit per SBT_PK_*), or -1. */
static int frame_below(const struct phases *p, const struct ph_thread *t, int d, unsigned int stop)
{
	int i;

	for (i = d - 1; i >= 0 && i < t->stack_cap; i--)
		if (is_barrier(kind_at(p, t, i)) || (stop & 1u << kind_at(p, t, i)))
			return i;
	return -1;
}

/* The key of a team barrier called at depth d of thread t (it names no
 * object): its team's, the region instance whose body the thread runs (the
 * innermost body frame of an instance below it), so that teams running at
 * once in one process (nested regions, regions started by several threads)
 * keep their episodes apart; 0 where no body of an instance is seen (a
 * region forked before the session: all its threads alike). Bit 62 keeps
 * it from the instance's own key, its implicit barrier's. */
static __u64 team_key(const struct phases *p, const struct ph_thread *t, int d)
{
	int i;

	for (i = d - 1; i >= 0 && i < t->stack_cap; i--)
		if (kind_at(p, t, i) == SBT_PK_REGION_BODY && t->stack[i].inst)
			return t->stack[i].inst | 1ULL << 62;
	return 0;
}

/* Call d of thread t is made by a barrier's implementation: the first frame
 * below it that is a barrier or a body is a barrier (libomp's passive wait
 * is a pthread_cond_wait inside __kmpc_barrier; a --probe barrier made of a
 * mutex and a condvar). Those calls are the barrier's time, not the
 * program's locks and condvars; a call in a task body run in a barrier's
 * wait is the program's. */
static int inside_barrier(const struct phases *p, const struct ph_thread *t, int d)
{
	int i = frame_below(p, t, d, 1u << SBT_PK_REGION_BODY);

	return i >= 0 && is_barrier(kind_at(p, t, i));
}

/* Call d of thread t, a body of no region instance (a task's), ran in the
 * wait of the barrier the thread arrived at: the first frame below it that
 * is a barrier, not a body (a task in a task: the outer one counts) nor a
 * task wait; or none such, the thread waiting at its region's end (the
 * implicit barrier, unprobed: the body of the instance returned). */
static int runs_in_barrier_wait(const struct phases *p, const struct ph_thread *t, int d)
{
	int i = frame_below(p, t, d, 1u << SBT_PK_REGION_BODY | 1u << SBT_PK_TASK_WAIT);

	if (i >= 0)
		return is_barrier(kind_at(p, t, i)) && t->waiting && barrier_depth(p, t, i) == 0;
	/* an implicit barrier's episode began with a body's return */
	return t->waiting && p->cfg.probes[t->waiting->probe].kind == SBT_PK_REGION_BODY;
}

/* A barrier function does not call itself: the same probe still on the
 * stack means its return record was lost. Unwind to it, and the thread's
 * departure from that episode is unknown. */
static void unwind_lost_return(struct phases *p, struct ph_thread *t, __u16 probe)
{
	int i;

	for (i = 0; i < t->depth && i < t->stack_cap; i++)
		if (t->stack[i].probe == probe)
			break;
	if (i < t->depth && i < t->stack_cap) {
		t->depth = i;
		if (t->waiting)
			episodes__settle(p, t, 0, 0, 0, 0);
	}
}

/* Frame d of thread t is the same call as the one below it: a probed
 * function calling another probed one of the same kind on the same object
 * (libomp's __kmpc_critical enters through __kmpc_critical_with_hint, a
 * user wrapper around pthread_mutex_lock): only the outer one counts. */
static int same_as_caller(const struct phases *p, const struct ph_thread *t, int d)
{
	return d > 0 && d < t->stack_cap && t->stack[d - 1].obj == t->stack[d].obj &&
	       p->cfg.probes[t->stack[d - 1].probe].kind == p->cfg.probes[t->stack[d].probe].kind;
}

/* A wait on, or the broadcast of, condvar cv recognized as a barrier
 * (condbar.c): an arrival at its entry, a departure at its return. */
static int cond_barrier_call(const struct phases *p, const struct ph_thread *t, int kind,
			     __u16 probe, __u64 cv)
{
	if (!p->condbar ||
	    !(kind == SBT_PK_COND_WAIT ||
	      (kind == SBT_PK_COND_SIGNAL && condbar__is_broadcast(p->condbar, probe))))
		return 0;
	return condbar__is_barrier(p->condbar, t->pid, cv);
}

/* A call of probe kind kind on semaphore sem, recognized as a barrier
 * (sembar.c). */
static int sem_barrier_call(const struct phases *p, const struct ph_thread *t, int kind, __u64 sem)
{
	return p->sembar && sembar__is_sem_kind(kind) && sembar__is_barrier(p->sembar, t->pid, sem);
}

/* Call d of thread t on a barrier semaphore entered (record e): a thread's
 * first call in a release group (semgroups.h) is its arrival in the
 * group's episode. A waiter that enters its wait after the burst that
 * releases it had counted itself in before the last thread did: its
 * arrival is put just before the burst. */
static void sem_barrier_enter(struct phases *p, struct ph_thread *t, int d,
			      const struct sbt_event *e, int kind)
{
	struct sbt_event a = *e;
	struct sg_step st;
	__u64 key;

	semgroups__enter(p->semgroups, e, kind, e->obj, &st);
	if (!st.group)
		return;
	key = semgroups__key(e->obj, st.group);
	if (d < t->stack_cap)
		t->stack[d].inst = key;
	if (st.closed)
		episodes__stop_expecting_key(p, e->pid, semgroups__key(e->obj, st.closed));
	if (st.arrives && !barrier_depth(p, t, d)) {
		if (kind != SBT_PK_SEM_POST && st.release_ns && a.ts >= st.release_ns)
			a.ts = max_u64(st.release_ns - 1, t->last_depart);
		episodes__arrive(p, t, &a, key, e->obj);
	}
	/* every post and wait may change the arrivals still to come */
	episodes__expect(p, e->pid, key, st.expect);
}

/* Call d of thread t on a barrier semaphore returned (record e): the
 * thread leaves the episode it arrived in with the call; the one that
 * posts, when its burst of posts ends. */
static void sem_barrier_return(struct phases *p, struct ph_thread *t, int d,
			       const struct sbt_event *e, int kind)
{
	if (d >= t->stack_cap || !t->waiting || !t->stack[d].inst ||
	    t->waiting->key != t->stack[d].inst)
		return;
	if (kind == SBT_PK_SEM_POST) {
		t->burst_sem = t->stack[d].obj;
		t->burst_end_ns = e->ts;
		t->burst_site = e->site;
		/* its counters are the departure's if this post is the last */
		t->ctr_target = CTR_DEPARTURE;
		return;
	}
	episodes__settle(p, t, e->ts, 0, e->site, t->stack[d].blocked_ns);
}

/* Record e of thread t is part of its burst of posts: another post, a
 * futex call inside one, the counters read at one. */
static int continues_burst(const struct phases *p, const struct ph_thread *t,
			   const struct sbt_event *e)
{
	if (e->type == SBT_EV_COUNTERS ||
	    ((e->type == SBT_EV_FUTEX_ENTER || e->type == SBT_EV_FUTEX_EXIT) && t->depth > 0))
		return 1;
	if (!is_call(e) || e->probe >= p->cfg.nprobes ||
	    p->cfg.probes[e->probe].kind != SBT_PK_SEM_POST)
		return 0;
	return e->type == SBT_EV_EXIT || e->obj == t->burst_sem;
}

void feed__burst_done(struct phases *p, struct ph_thread *t)
{
	__u64 sem = t->burst_sem, seq;
	__u32 expect = 0;

	if (!sem)
		return;
	t->burst_sem = 0;
	episodes__settle(p, t, t->burst_end_ns, 0, t->burst_site, 0);
	/* no more posts: the episode waits for the posts left untaken only */
	seq = p->semgroups ? semgroups__burst_over(p->semgroups, t->pid, sem, t->tid, &expect) : 0;
	if (seq)
		episodes__expect(p, t->pid, semgroups__key(sem, seq), expect);
}

/* Probe id probe is function symbol's. */
static int probe_is(const struct phases *p, __u16 probe, const char *symbol)
{
	return !strcmp(p->cfg.probes[probe].symbol, symbol);
}

/* libomp's reduction (doc/design.md §4): one team barrier from the entry
 * of __kmpc_reduce to its return with 0 (the tree method's workers,
 * released there), or, having returned 1 or 2 (the thread combines, then
 * the atomic and critical methods' barrier, or the tree's release), to the
 * return of the __kmpc_end_reduce that follows. Record e, of thread t, is a
 * call of that __kmpc_end_reduce. */
static int continues_reduction(const struct phases *p, const struct ph_thread *t,
			       const struct sbt_event *e)
{
	return t->reduce_open && probe_is(p, e->probe, "__kmpc_end_reduce");
}

/* Record e, of thread t, is a return of __kmpc_reduce with 1 or 2. */
static int reduction_goes_on(const struct phases *p, const struct ph_thread *t,
			     const struct sbt_event *e)
{
	return (int)e->obj && t->waiting && probe_is(p, e->probe, "__kmpc_reduce");
}

static void on_call(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	int kind = p->cfg.probes[e->probe].kind;
	int d, sync;
	__u64 ta;

	/* no frame: a join's wait stays a futex wait outside any probed call,
	 * which names the thread joined */
	if (kind == SBT_PK_JOIN) {
		forkjoin__join(p->forkjoin, t->pid, t->tid, e->ts);
		return;
	}
	if (is_barrier(kind))
		unwind_lost_return(p, t, e->probe);
	/* a creator that waits other than by a join waited for its threads */
	if (is_barrier(kind) || kind == SBT_PK_SEM_WAIT || kind == SBT_PK_COND_WAIT)
		forkjoin__waited(p->forkjoin, t->pid, t->tid);
	d = t->depth;
	/* the program's own synchronization, not a barrier's implementation */
	sync = p->cfg.sync && !same_as_caller(p, t, d) && !inside_barrier(p, t, d);
	if (threads__hold_frame(t, d)) {
		memset(&t->stack[d], 0, sizeof(t->stack[d]));
		t->stack[d].probe = e->probe;
		t->stack[d].ts = e->ts;
		t->stack[d].obj = e->obj;
		t->stack[d].arg2 = e->site;
	}
	t->depth++;
	ta = approx_handoff__entry(p, t, e, kind);
	if (d < t->stack_cap)
		t->stack[d].ta = ta;
	/* An unlock, post or signal takes effect at its entry. */
	if (ph_is_release(kind) && sync)
		sync__release(p->cfg.sync, e->pid, e->tid, e->probe, e->obj, e->ts, ta);
	/* A lock's waiters, for the waits its holders cause (sync_caused.c);
	 * a condition wait gives its mutex up. */
	if (kind == SBT_PK_LOCK && sync)
		sync__acquire(p->cfg.sync, e->pid, e->tid, e->probe, e->obj, e->ts);
	if (kind == SBT_PK_COND_WAIT && sync)
		sync__cond_enter(p->cfg.sync, e->pid, e->tid, e->probe, e->site, e->ts);
	/* Only the outermost barrier call counts: a user-declared barrier that
	 * wraps pthread_barrier_wait is one episode, not two. */
	if (is_barrier(kind) && barrier_depth(p, t, d) == 0 && continues_reduction(p, t, e)) {
		/* still waiting since its __kmpc_reduce */
	} else if (is_barrier(kind) && barrier_depth(p, t, d) == 0) {
		__u64 object = kind == SBT_PK_BARRIER ? e->obj : 0;

		t->reduce_open = 0;
		episodes__arrive(p, t, e, object ? object : team_key(p, t, d), object);
	} else if (cond_barrier_call(p, t, kind, e->probe, e->obj) && barrier_depth(p, t, d) == 0) {
		episodes__arrive(p, t, e, e->obj, e->obj);
	} else if (sem_barrier_call(p, t, kind, e->obj)) {
		sem_barrier_enter(p, t, d, e, kind);
	} else if (kind == SBT_PK_REGION && d < t->stack_cap) {
		implicit__fork(p, t, d, e);
	} else if (kind == SBT_PK_REGION_BODY && d < t->stack_cap) {
		implicit__body(p, t, d, e);
	} else if (kind == SBT_PK_TASK_NEW) {
		tasks__created(p, t, e->ts, ta);
	}
}

/* A lock, semaphore or condvar call other than a release returned: to the
 * sync analysis and the hand-off models (not a wait at a condvar barrier:
 * its departure is the barrier model's). Returns 1 if it was a P paired
 * with the V in *v. */
static int call_done(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e,
		     struct sync_post *v, int at_barrier)
{
	struct sync_call c = {
		.pid = e->pid,
		.tid = e->tid,
		.probe = e->probe,
		.enter_ns = t->stack[d].ts,
		.exit_ns = e->ts,
		.obj = t->stack[d].obj,
		.arg2 = t->stack[d].arg2,
		.retval = (__s64)e->obj,
		.site = e->site,
		.blocked_ns = t->stack[d].blocked_ns,
		.futex_waits = t->stack[d].futex_waits,
		.barrier = at_barrier,
		.same_broadcaster = p->condbar &&
				    p->cfg.probes[e->probe].kind == SBT_PK_COND_WAIT &&
				    condbar__same_broadcaster(p->condbar, e->pid, t->stack[d].obj),
	};
	int paired = sync__call(p->cfg.sync, &c, v);

	/* a barrier's departure is timed by the barrier model */
	if (!at_barrier)
		approx_handoff__returned(p, t, d, e, p->cfg.probes[e->probe].kind, paired, v);
	return paired;
}

/* Call d of thread t, a wait of probe kind kind, returned (record e), after
 * the hand-off models re-timed its return: out of the thread's useful
 * compute, in both views. */
static void sync_waited(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e,
			int kind)
{
	__u64 end_a = waits__approx_end(p, t, e->ts);

	waits__add(t, waits__kind(kind), e->ts - t->stack[d].ts, sub0(end_a, t->stack[d].ta));
}

/* The completed call, to the callback fn. */
static void call_returned(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e,
			  const struct sync_post *v, void (*fn)(void *ctx, const struct ph_call *c))
{
	if (p->abandoning)
		return; /* no call came back: nothing for the timeline or replay */

	struct ph_call c = {
		.pid = e->pid,
		.tid = e->tid,
		.probe = e->probe,
		.kind = p->cfg.probes[e->probe].kind,
		.retval = (__s64)e->obj,
		.exit_ns = e->ts,
	};

	if (d < t->stack_cap) {
		c.obj = t->stack[d].obj;
		c.arg2 = t->stack[d].arg2;
		c.enter_ns = t->stack[d].ts;
		c.enter_a = t->stack[d].ta;
	}
	if (approx__enabled(p))
		c.exit_a = t->cbar_step ? approx__time_based(t, e->ts) : approx__time(p, t, e->ts);
	if (v) {
		c.v_tid = v->tid;
		c.v_ns = v->ts;
		c.v_a = v->ta;
	}
	fn(p->ctx, &c);
}

/* Record e is the return of libgomp's GOMP_single_copy_start with NULL:
 * the thread runs the single, and waits in GOMP_single_copy_end; the
 * others wait for it in GOMP_single_copy_start (a team barrier then). */
static int runs_the_single(const struct phases *p, const struct sbt_event *e)
{
	return !e->obj && probe_is(p, e->probe, "GOMP_single_copy_start");
}

/* Call d of thread t is its wait at, or broadcast of, the condvar barrier
 * it arrived at. */
static int departs_cond_barrier(const struct phases *p, const struct ph_thread *t, int d, int kind)
{
	return d < t->stack_cap && t->waiting && t->waiting->key == t->stack[d].obj &&
	       cond_barrier_call(p, t, kind, t->stack[d].probe, t->stack[d].obj) &&
	       barrier_depth(p, t, d) == 0;
}

/* The episode is named by its __kmpc_reduce's call, whichever method. */
static void reduction_open(const struct phases *p, struct ph_thread *t, int d,
			   const struct sbt_event *e)
{
	t->reduce_open = 1;
	t->reduce_blocked_ns = d < t->stack_cap ? t->stack[d].blocked_ns : 0;
	t->reduce_site = implicit__barrier_site(p, t, d, e);
}

/* The outermost barrier call d of thread t returned with e: its departure
 * (a reduction's, with the wait blocked in its __kmpc_reduce). */
static void barrier_returned(struct phases *p, struct ph_thread *t, int d,
			     const struct sbt_event *e)
{
	__u64 blocked = (d < t->stack_cap ? t->stack[d].blocked_ns : 0) +
			(t->reduce_open ? t->reduce_blocked_ns : 0);
	__u64 site = t->reduce_open ? t->reduce_site : implicit__barrier_site(p, t, d, e);

	t->reduce_open = 0;
	t->reduce_blocked_ns = 0;
	episodes__settle(p, t, e->ts, (__s64)e->obj, site, blocked);
}

static void on_return(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	int kind = p->cfg.probes[e->probe].kind;
	int d, cbar, sbar;

	if (kind == SBT_PK_JOIN)
		return; /* its entry made no frame */
	/* every semaphore wait's return, as the classifier sees them */
	if (p->semgroups && (kind == SBT_PK_SEM_WAIT || kind == SBT_PK_SEM_TRYWAIT)) {
		struct sg_step st;

		semgroups__exit(p->semgroups, e, kind, &st);
	}
	/* Find the matching call; exits of calls entered before the session
	 * (or whose entry was lost) have none and are ignored. */
	for (d = t->depth - 1; d >= 0; d--)
		if (d < t->stack_cap && t->stack[d].probe == e->probe)
			break;
	if (d < 0)
		return;
	t->depth = d;
	/* the caller's wait includes the callee's blocked time */
	if (d > 0 && d <= t->stack_cap) {
		t->stack[d - 1].blocked_ns += t->stack[d].blocked_ns;
		t->stack[d - 1].futex_waits += t->stack[d].futex_waits;
	}
	/* a condvar or semaphore barrier's wait is barrier time, not a
	 * lock/sem/cond wait */
	cbar = departs_cond_barrier(p, t, d, kind);
	sbar = d < t->stack_cap && sem_barrier_call(p, t, kind, t->stack[d].obj);
	if (kind == SBT_PK_REGION) {
		regions__done(p, e, e->ts - t->stack[d].ts,
			      d < t->stack_cap && implicit__unprobed(p, t, d));
		/* the release first: the master's return is approximated at
		 * it, not on its own clock across its wait in the barrier */
		if (d < t->stack_cap)
			implicit__release(p, t, d, e);
		if (p->ops.region)
			call_returned(p, t, d, e, NULL, p->ops.region);
	} else if (kind == SBT_PK_REGION_BODY) {
		if (d < t->stack_cap && t->stack[d].inst && barrier_depth(p, t, d) == 0)
			implicit__arrive(p, t, d, e);
		else if (d < t->stack_cap && !t->stack[d].inst && runs_in_barrier_wait(p, t, d))
			episodes__task_ran(p, t, e);
		if (d < t->stack_cap)
			tasks__body_done(p, t, d, e);
	} else if (kind == SBT_PK_TASK_WAIT) {
		if (d < t->stack_cap)
			tasks__wait_done(p, t, d, e);
	} else if (kind == SBT_PK_TASK_NEW) {
		/* its own time is the program's: nothing to do */
	} else if (is_barrier(kind)) {
		if (barrier_depth(p, t, d) == 0 && runs_the_single(p, e))
			episodes__withdraw(p, t, e->ts);
		else if (barrier_depth(p, t, d) == 0 && reduction_goes_on(p, t, e))
			reduction_open(p, t, d, e);
		else if (barrier_depth(p, t, d) == 0)
			barrier_returned(p, t, d, e);
	} else if (!same_as_caller(p, t, d) && !inside_barrier(p, t, d)) {
		struct sync_post v = {0};
		int paired;

		if (cbar)
			cond_leave__begin(p, t, t->stack[d].obj, e->ts, e->site,
					  t->stack[d].blocked_ns);
		if (sbar)
			sem_barrier_return(p, t, d, e, kind);
		paired = !ph_is_release(kind) && p->cfg.sync &&
			 call_done(p, t, d, e, &v, cbar || sbar);
		if (is_sync_wait(kind) && !cbar && !sbar)
			sync_waited(p, t, d, e, kind);
		if (p->ops.call)
			call_returned(p, t, d, e, paired ? &v : NULL, p->ops.call);
	}
}

static void on_futex_enter(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	t->futex.active = 1;
	t->futex.op = (__u32)e->site;
	t->futex.val = (__u32)(e->site >> 32);
	t->futex.uaddr = e->obj;
	t->futex.ts = e->ts;
	t->futex.ta = t->ta_prev;
	if (approx__event_based(p) && sync__futex_is_wake(t->futex.op))
		approx_handoff__futex_wake(p, t, e);
}

/* A futex wait outside any probed call, to the futex_wait callback. Its
 * return's approximated time is the one charge() takes next (the same
 * basis, re-timed by the hand-off model already). */
static void futex_waited(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	struct ph_call c = {
		.pid = e->pid,
		.tid = e->tid,
		.obj = t->futex.uaddr,
		.retval = (__s64)e->obj,
		.arg2 = t->futex.val,
		.enter_ns = t->futex.ts,
		.exit_ns = e->ts,
	};

	if (approx__enabled(p)) {
		c.enter_a = t->futex.ta;
		c.exit_a = approx__time(p, t, e->ts);
	}
	p->ops.futex_wait(p->ctx, &c);
}

/* The futex wait of t, which returned with e, in the sync tables: a join
 * (of w, whose exit record came first) names the thread joined; a wait for
 * a live thread's id that may be its join is named at that thread's exit
 * record (threads__exit()). */
static void futex_waited_sync(struct phases *p, struct ph_thread *t, const struct sbt_event *e,
			      int inside, const struct ph_thread *w)
{
	struct ph_thread *alive = inside || w ? NULL : hmap_get(&p->threads, t->futex.val, 0);

	sync__futex_wait(p->cfg.sync, e->pid, e->tid, t->futex.uaddr, t->futex.ts, e->ts, inside);
	if (w)
		sync__futex_joined(p->cfg.sync, e->pid, t->futex.uaddr, w->tid);
	else if (alive && alive != t && alive->pid == t->pid && !alive->exit_ns) {
		alive->join_uaddr = t->futex.uaddr;
		alive->join_return_ns = e->ts;
	}
}

/* A futex wait splits the wait of the innermost probed call into spinning
 * and blocked time; outside any probed call it is a wait of its own. An
 * immediate -EAGAIN (the value had changed) did not block. */
static void on_futex_exit(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	__s64 ret = (__s64)e->obj;
	__u64 d = e->ts - t->futex.ts;
	int top = t->depth - 1;
	const struct ph_thread *joined;

	if (!t->futex.active)
		return;
	t->futex.active = 0;
	if (sync__futex_is_wait(t->futex.op)) {
		if (ret == -EAGAIN)
			return;
		/* a join waits outside any probed call */
		joined = top < 0 ? threads__joined(p, t, e->ts) : NULL;
		if (top < 0 && !joined)
			threads__futex_returned(p, t, e->ts, ret);
		if (top >= 0 && top < t->stack_cap) {
			t->stack[top].blocked_ns += d;
			t->stack[top].futex_waits++;
		}
		if (p->cfg.sync)
			futex_waited_sync(p, t, e, top >= 0, joined);
		if (top < 0 && !ret && approx__event_based(p) &&
		    !approx_handoff__joined(p, t, e, joined))
			approx_handoff__futex_woken(p, t, e);
		if (top < 0 && p->ops.futex_wait)
			futex_waited(p, t, e);
	} else if (sync__futex_is_wake(t->futex.op) && p->cfg.sync) {
		sync__futex_wake(p->cfg.sync, e->pid, t->futex.uaddr, ret);
	}
}

/* An unknown type, or a call record of an unknown probe id. */
static int bad_record(const struct phases *p, const struct sbt_event *e)
{
	if (is_call(e) && (e->probe >= p->cfg.nprobes || !p->cfg.probes[e->probe].kind))
		return 1;
	if (e->type == SBT_EV_PROBE_ARMED)
		return e->probe >= p->cfg.nprobes ||
		       p->cfg.probes[e->probe].kind != SBT_PK_REGION_BODY;
	return e->type < SBT_EV_ENTER || e->type > SBT_EV_COUNTERS;
}

/* The thread that created a thread, from its start record (0: not known,
 * or a process's main thread, whose cost names its parent process). */
static __u32 thread_creator(const struct sbt_event *e)
{
	return e->tid != e->pid && !(e->flags & SBT_RF_COST) ? e->cost : 0;
}

static void dispatch(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	switch (e->type) {
	case SBT_EV_ENTER:
		on_call(p, t, e);
		break;
	case SBT_EV_EXIT:
		on_return(p, t, e);
		break;
	case SBT_EV_COUNTERS:
		phase_counters__record(p, t, e);
		break;
	case SBT_EV_THREAD_START:
		threads__start(p, t, thread_creator(e), e->ts);
		break;
	case SBT_EV_THREAD_EXIT:
		threads__exit(p, t, e->ts);
		break;
	case SBT_EV_FUTEX_ENTER:
		on_futex_enter(p, t, e);
		break;
	case SBT_EV_FUTEX_EXIT:
		on_futex_exit(p, t, e);
		break;
	}
}

/* The record's own probe hit (or counter read) costs its thread's later
 * events. Returns re-timed by the models are approximated again first. */
static void charge(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	switch (e->type) {
	case SBT_EV_EXIT:
		/* after a departure re-based it; a thread leaving a condvar
		 * barrier (cond_leave.c) is approximated at its departure */
		if (approx__enabled(p) && !t->cbar_step)
			approx__time(p, t, e->ts);
		/* fall through */
	case SBT_EV_ENTER:
		approx__pay(p, t, e);
		break;
	case SBT_EV_FUTEX_EXIT:
		/* a return from a wait may have been re-timed on its wake */
		if (approx__enabled(p) && t->depth == 0 && !t->cbar_step)
			approx__time(p, t, e->ts);
		/* fall through */
	case SBT_EV_FUTEX_ENTER:
		approx__pay(p, t, e);
		break;
	case SBT_EV_COUNTERS:
		approx__pay_counters(p, t, e);
		break;
	}
}

void feed__abandon_waits(struct phases *p, struct ph_thread *t, __u64 ts)
{
	int kind;

	/* a thread that dies in a barrier leaves it hanging (hangs.c) */
	while (!t->waiting && t->depth > 0 && t->depth <= t->stack_cap) {
		struct sbt_event e;

		kind = p->cfg.probes[t->stack[t->depth - 1].probe].kind;
		if (kind != SBT_PK_LOCK && kind != SBT_PK_SEM_WAIT && kind != SBT_PK_COND_WAIT)
			return;
		/* -1: a semaphore's failure; a lock's other than a timeout */
		e = sbt_event_make(SBT_EV_EXIT, t->stack[t->depth - 1].probe, t->pid, t->tid, ts,
				   (__u64)-1, 0);
		p->abandoning = 1;
		on_return(p, t, &e);
		p->abandoning = 0;
	}
}

static int feed_one(struct phases *p, const struct sbt_event *e)
{
	struct ph_thread *t;

	p->events++;
	if (e->type == SBT_EV_PROBE_ARMED && !bad_record(p, e)) {
		/* the process's, no thread's: written when the attach returned,
		 * it bounds no time of the run */
		implicit__armed(p, e);
		return 0;
	}
	if (e->type == SBT_EV_LOST) {
		/* no thread's; its time is when losses began, in order */
		episodes__lost_window(p, e);
		return 0;
	}
	if (e->type == SBT_EV_PREEMPTED) {
		/* stamped when sbt-bpf left the CPU: it bounds no time of the run */
		approx__preempted(p, e);
		return 0;
	}
	if (!p->first_ts || e->ts < p->first_ts)
		p->first_ts = e->ts;
	if (e->ts > p->last_ts)
		p->last_ts = e->ts;
	if (e->lost)
		episodes__lost(p, e->lost);
	if (bad_record(p, e)) {
		p->bad++;
		return -EINVAL;
	}
	t = threads__get(p, e->pid, e->tid);
	if (!t)
		return -ENOMEM;
	if (t->burst_sem && !continues_burst(p, t, e))
		feed__burst_done(p, t);
	cond_leave__before(p, t, e);
	if (is_call(e))
		t->ctr_target = CTR_NONE; /* set again by an arrival or a departure */
	/* futex records inside a probed call are part of that call: they get
	 * no approximated time of their own (the call's return may move
	 * before them) */
	if (e->type == SBT_EV_ENTER && p->cfg.probes[e->probe].kind == SBT_PK_REGION_BODY) {
		implicit__before_body(p, t, e);
		tasks__before_body(p, t, e);
	}
	/* the measured cost of the thread's previous self-timed hit, which
	 * this record's time includes */
	if (e->flags & SBT_RF_COST)
		approx__measured(p, t, e);
	if (approx__enabled(p))
		approx_conc__at(p, t, e->ts);
	/* (not the records of a thread leaving a condvar barrier: its unlock,
	 * before the departure re-bases it, cond_leave.c) */
	if (approx__enabled(p) && e->type != SBT_EV_EXIT && e->type != SBT_EV_FUTEX_EXIT &&
	    !(e->type == SBT_EV_FUTEX_ENTER && t->depth > 0) && !t->cbar_step)
		approx__time(p, t, e->ts);
	dispatch(p, t, e);
	cond_leave__after(p, t, e);
	charge(p, t, e);
	if (p->on_record)
		p->on_record(p->record_ctx, e, p);
	return 0;
}

/* Records held for undecided condvars and semaphores at most (20 MB, or
 * 10 s of the trace): past it they are decided as no barriers. A condvar
 * broadcast once or a semaphore posted once (a start gate) stays undecided
 * until then or the end of the trace. */
#define HOLD_MAX_RECORDS (1u << 19)
#define HOLD_MAX_NS	 (10ULL * 1000000000ULL)

static int pending(const struct phases *p)
{
	return (p->condbar && condbar__pending(p->condbar)) ||
	       (p->sembar && sembar__pending(p->sembar));
}

static void feed_held(struct phases *p)
{
	size_t i;

	for (i = 0; i < p->nheld; i++)
		feed_one(p, &p->held[i]);
	p->nheld = 0;
}

void phases__release_held(struct phases *p)
{
	if (p->condbar)
		condbar__decide_pending(p->condbar);
	if (p->sembar)
		sembar__decide_pending(p->sembar);
	feed_held(p);
}

void phases__release_stale(struct phases *p, __u64 now_ns, __u64 max_ns)
{
	struct phases *side;
	int i;

	for (i = 0; (side = band__side(p->band, i)); i++)
		phases__release_stale(side, now_ns, max_ns);
	if (!p->nheld || now_ns < p->held[0].ts + max_ns)
		return;
	if (p->condbar)
		condbar__defer_pending(p->condbar);
	if (p->sembar)
		sembar__defer_pending(p->sembar);
	feed_held(p);
}

int phases__feed(struct phases *p, const struct sbt_event *e)
{
	struct phases *side;
	int i;

	/* the band's analyses complete each episode before this one does */
	for (i = 0; (side = band__feed_side(p->band, p, i)); i++)
		phases__feed(side, e);
	/* the process's own mark is stamped when the attach returned */
	if (e->type != SBT_EV_PROBE_ARMED) {
		p->out_of_order += e->ts < p->newest_ts;
		if (e->ts > p->newest_ts)
			p->newest_ts = e->ts;
	}
	if (p->condbar)
		condbar__observe(p->condbar, e);
	if (p->sembar)
		sembar__observe(p->sembar, e);
	if (!p->nheld && !pending(p))
		return feed_one(p, e);
	if (array_reserve((void **)&p->held, &p->cap_held, p->nheld + 1, sizeof(*e))) {
		phases__release_held(p);
		return feed_one(p, e);
	}
	p->held[p->nheld++] = *e;
	if (!pending(p) || p->nheld >= HOLD_MAX_RECORDS || e->ts > p->held[0].ts + HOLD_MAX_NS)
		phases__release_held(p);
	return 0;
}
