// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Locks, semaphores, condition variables and futex waits as measured, on
 * synthetic event streams fed through the phase analysis, with exact
 * values. */
#include "sync_fixture.h"

/* Thread 1 holds the mutex 100..400; thread 2 asks at 150, blocks in futex
 * 200..390, gets it at 420 and holds it to 500. A trylock by thread 3 at 450
 * fails (EBUSY). */
TEST(mutex_contention_wait_and_hold)
{
	const struct sync_obj *o;

	setup();
	call(P_LOCK, 1, 90, 100, MTX, 0);
	ev(SBT_EV_ENTER, P_LOCK, 2, 150, MTX, 0);
	futex_wait(2, 200, 390, MTX, 0);
	call(P_UNLOCK, 1, 400, 405, MTX, 0);
	ev(SBT_EV_EXIT, P_LOCK, 2, 420, 0, SITE);
	call(P_TRY, 3, 450, 455, MTX, EBUSY);
	call(P_UNLOCK, 2, 500, 505, MTX, 0);
	o = only(SYNC_LOCK);
	CHECK_EQ(o->count, 2);
	CHECK_EQ(o->contended, 1);
	CHECK_EQ(o->failed, 1);
	CHECK_EQ(o->wait_ns, 10 + 270);
	CHECK_EQ(o->max_wait_ns, 270);
	CHECK_EQ(o->blocked_ns, 190);
	CHECK_EQ(o->holds, 2);
	CHECK_EQ(o->hold_ns, 300 + 80);
	CHECK_EQ(o->max_hold_ns, 300);
	CHECK_EQ(share(o, 2)->wait_ns, 270);
	CHECK_EQ(share(o, 2)->hold_ns, 80);
	CHECK_EQ(o->nsites, 1);
	CHECK_EQ(o->sites[0].site, SITE);
	CHECK_EQ(o->sites[0].count, 2);
	/* the futex wait was inside a probed call */
	CHECK_EQ(only(SYNC_FUTEX)->outside, 0);
	CHECK_EQ(only(SYNC_FUTEX)->wait_ns, 190);
	teardown();
}

/* Contention no futex wait shows (libomp's critical sections and libgomp's
 * locks spin first; futex tracing off): thread 2 asks at 150 while thread
 * 1 holds the lock (100..400) and gets it at 410; thread 3 asks at 600,
 * nobody holding it; thread 1 locks a recursive mutex again while holding
 * it (no acquisition). One contended acquisition of three. */
TEST(an_acquisition_that_found_the_lock_held_is_contended)
{
	const struct sync_obj *o;

	setup();
	call(P_LOCK, 1, 90, 100, MTX, 0);
	ev(SBT_EV_ENTER, P_LOCK, 2, 150, MTX, 0);
	call(P_UNLOCK, 1, 400, 405, MTX, 0);
	ev(SBT_EV_EXIT, P_LOCK, 2, 410, 0, SITE);
	call(P_UNLOCK, 2, 500, 505, MTX, 0);
	call(P_LOCK, 3, 600, 610, MTX, 0);
	call(P_LOCK, 3, 620, 630, MTX, 0);
	call(P_UNLOCK, 3, 700, 705, MTX, 0);
	call(P_UNLOCK, 3, 710, 715, MTX, 0);
	o = only(SYNC_LOCK);
	CHECK_EQ(o->count, 3);
	CHECK_EQ(o->nested, 1);
	CHECK_EQ(o->contended, 1);
	CHECK_EQ(o->holding, 0);
	teardown();
}

/* A rwlock: readers 1 and 2 share it (100..300, 150..400: no contention);
 * writer 3 asks at 200 while they read and gets it at 410 (contended);
 * reader 4 asks at 450 while 3 writes (contended) and gets it at 520; a
 * writer that exits holding a lock leaves it to nobody: thread 5 takes
 * RW2 at 700 and exits, thread 6 at 800 finds it free. */
TEST(a_reader_is_held_up_by_a_writer_only_and_a_dead_holder_by_nobody)
{
	const struct sync_obj *o;

	setup();
	call(P_RDLOCK, 1, 90, 100, MTX, 0);
	call(P_RDLOCK, 2, 140, 150, MTX, 0);
	ev(SBT_EV_ENTER, P_WRLOCK, 3, 200, MTX, 0);
	call(P_RWUNLOCK, 1, 300, 305, MTX, 0);
	call(P_RWUNLOCK, 2, 400, 405, MTX, 0);
	ev(SBT_EV_EXIT, P_WRLOCK, 3, 410, 0, SITE);
	ev(SBT_EV_ENTER, P_RDLOCK, 4, 450, MTX, 0);
	call(P_RWUNLOCK, 3, 500, 505, MTX, 0);
	ev(SBT_EV_EXIT, P_RDLOCK, 4, 520, 0, SITE);
	call(P_RWUNLOCK, 4, 600, 605, MTX, 0);
	o = only(SYNC_LOCK);
	CHECK_EQ(o->count, 4);
	CHECK_EQ(o->contended, 2);
	CHECK_EQ(o->holding, 0);
	call(P_WRLOCK, 5, 690, 700, SEM, 0);
	ev(SBT_EV_THREAD_EXIT, 0, 5, 750, 0, 0);
	call(P_WRLOCK, 6, 800, 810, SEM, 0);
	phases__finish(fx.ph);
	CHECK_EQ(sync__count(fx.sync, SYNC_LOCK), 2);
	o = sync__obj(fx.sync, SYNC_LOCK, 0)->addr == SEM ? sync__obj(fx.sync, SYNC_LOCK, 0)
							  : sync__obj(fx.sync, SYNC_LOCK, 1);
	CHECK_EQ(o->addr, SEM);
	CHECK_EQ(o->count, 2);
	CHECK_EQ(o->contended, 0);
	teardown();
}

/* A robust mutex whose owner died: thread 1 holds it from 100 and exits at
 * 300 without unlocking; thread 2, waiting from 150, gets it at 310 with
 * EOWNERDEAD (it holds it now) and unlocks at 400: an acquisition after a
 * wait of 160, a hold of 90. */
TEST(robust_mutex_taken_from_a_dead_owner_is_acquired)
{
	const struct sync_obj *o;

	setup();
	call(P_LOCK, 1, 90, 100, MTX, 0);
	ev(SBT_EV_ENTER, P_LOCK, 2, 150, MTX, 0);
	ev(SBT_EV_THREAD_EXIT, 0, 1, 300, 0, 0);
	ev(SBT_EV_EXIT, P_LOCK, 2, 310, EOWNERDEAD, SITE);
	call(P_UNLOCK, 2, 400, 405, MTX, 0);
	o = only(SYNC_LOCK);
	CHECK_EQ(o->count, 2);
	CHECK_EQ(o->failed + o->timeouts + o->interrupted, 0);
	CHECK_EQ(share(o, 2)->wait_ns, 160);
	CHECK_EQ(share(o, 2)->hold_ns, 90);
	teardown();
}

/* A recursive mutex: thread 1 locks it at 100, again at 200 and 300 (its
 * holder: no acquisition, no new hold), unlocks at 400, 500 and 600 (the
 * last lets it go); thread 2, asking from 150, gets it at 610. Two
 * acquisitions, two holds: 100..600 and 610..700. */
TEST(recursive_mutex_relocked_by_its_holder_is_one_hold)
{
	const struct sync_obj *o;

	setup();
	call(P_LOCK, 1, 90, 100, MTX, 0);
	ev(SBT_EV_ENTER, P_LOCK, 2, 150, MTX, 0);
	call(P_LOCK, 1, 200, 205, MTX, 0);
	call(P_TRY, 1, 300, 305, MTX, 0);
	call(P_UNLOCK, 1, 400, 405, MTX, 0);
	call(P_UNLOCK, 1, 500, 505, MTX, 0);
	call(P_UNLOCK, 1, 600, 605, MTX, 0);
	ev(SBT_EV_EXIT, P_LOCK, 2, 610, 0, SITE);
	call(P_UNLOCK, 2, 700, 705, MTX, 0);
	o = only(SYNC_LOCK);
	CHECK_EQ(o->count, 2);
	CHECK_EQ(o->nested, 2);
	CHECK_EQ(o->holds, 2);
	CHECK_EQ(o->hold_ns, 500 + 90);
	CHECK_EQ(share(o, 1)->hold_ns, 500);
	CHECK_EQ(share(o, 2)->wait_ns, 460);
	teardown();
}

/* A critical section entered through two probed functions on the same
 * object (libomp) is one acquisition and one hold, whatever the void
 * functions leave in the return register. */
TEST(nested_acquire_of_one_object_counts_once)
{
	const struct sync_obj *o;

	setup();
	ev(SBT_EV_ENTER, P_CRIT, 1, 100, MTX, 0);
	ev(SBT_EV_ENTER, P_CRIT_HINT, 1, 110, MTX, 0);
	ev(SBT_EV_EXIT, P_CRIT_HINT, 1, 150, 0x7f00dead, SITE);
	ev(SBT_EV_EXIT, P_CRIT, 1, 160, 0x7f00beef, SITE);
	call(P_CRIT_END, 1, 300, 310, MTX, 0x55);
	o = only(SYNC_LOCK);
	CHECK_EQ(o->count, 1);
	CHECK_EQ(o->wait_ns, 60);
	CHECK_EQ(o->holds, 1);
	CHECK_EQ(o->hold_ns, 140);
	CHECK_EQ(o->interrupted, 0);
	teardown();
}

/* A timed lock or semaphore wait that times out is counted as such, not as
 * an acquisition; its time is waiting time, of the object and the thread
 * (as a condvar's timed-out wait is). */
TEST(timeouts_are_not_acquisitions)
{
	const struct sync_obj *o;

	setup();
	call(P_LOCK, 1, 100, 5100, MTX, ETIMEDOUT);
	o = only(SYNC_LOCK);
	CHECK_EQ(o->count, 0);
	CHECK_EQ(o->timeouts, 1);
	CHECK_EQ(o->holds, 0);
	CHECK_EQ(o->wait_ns, 5000);
	CHECK_EQ(share(o, 1)->wait_ns, 5000);
	/* sem_timedwait returns -1 (ETIMEDOUT in errno, unseen) */
	call(P_SEMTIMED, 2, 6000, 9000, SEM, -1);
	call(P_POST, 1, 9500, 9510, SEM, 0);
	call(P_SEMTIMED, 2, 9600, 9700, SEM, 0);
	phases__finish(fx.ph); /* a semaphore's records are held until it is classified */
	o = only(SYNC_SEM);
	CHECK_EQ(o->count, 1);
	CHECK_EQ(o->timeouts, 1);
	CHECK_EQ(o->paired, 1);
	CHECK_EQ(o->wait_ns, 3000 + 100);
	CHECK_EQ(o->max_wait_ns, 3000);
	CHECK_EQ(share(o, 2)->wait_ns, 3100);
	CHECK_EQ(share(o, 2)->count, 1);
	teardown();
}

/* A sem_wait a signal interrupts returns -1 (EINTR, unseen) and is called
 * again, as EINTR loops do: its time up to the signal is waiting time, of
 * the object and the thread, as the thread's phases count it. */
TEST(an_interrupted_semaphore_wait_is_waiting_time)
{
	const struct sync_obj *o;

	setup();
	call(P_SEMW, 2, 1000, 3000, SEM, -1);
	ev(SBT_EV_ENTER, P_SEMW, 2, 3100, SEM, 0);
	call(P_POST, 1, 3500, 3510, SEM, 0);
	ev(SBT_EV_EXIT, P_SEMW, 2, 3600, 0, SITE);
	phases__finish(fx.ph);
	o = only(SYNC_SEM);
	CHECK_EQ(o->count, 1);
	CHECK_EQ(o->interrupted, 1);
	CHECK_EQ(o->timeouts, 0);
	CHECK_EQ(o->wait_ns, 2000 + 500);
	CHECK_EQ(share(o, 2)->wait_ns, 2500);
	CHECK_EQ(share(o, 2)->count, 1);
	teardown();
}

/* Single producer, single consumer: P's pair with V's in order. The first P
 * (before any V) takes an initial token. */
TEST(semaphore_single_p_single_v_in_order)
{
	const struct sync_obj *o;

	setup();
	call(P_SEMW, 2, 100, 110, SEM, 0); /* initial token */
	ev(SBT_EV_ENTER, P_SEMW, 2, 200, SEM, 0);
	futex_wait(2, 210, 300, SEM, 0);
	call(P_POST, 1, 290, 295, SEM, 0);
	ev(SBT_EV_EXIT, P_SEMW, 2, 320, 0, SITE);
	call(P_POST, 1, 400, 405, SEM, 0);
	call(P_SEMW, 2, 500, 510, SEM, 0);
	o = only(SYNC_SEM);
	CHECK_EQ(o->count, 3);
	CHECK_EQ(o->posts, 2);
	CHECK_EQ(o->contended, 1); /* P_w */
	CHECK_EQ(o->initial_tokens, 1);
	CHECK_EQ(o->paired, 2);
	CHECK_EQ(o->handoff_ns, 320 - 290);
	CHECK_EQ(fx.npairs, 3);
	CHECK_EQ(fx.pairs[0].v_tid, 0);
	CHECK_EQ(fx.pairs[1].v_ts, 290);
	CHECK_EQ(fx.pairs[1].p_exit, 320);
	CHECK_EQ(fx.pairs[2].v_ts, 400);
	CHECK_EQ(o->posts_q.len, 0);
	teardown();
}

/* Several posters: FIFO matching, the k-th P to complete takes the oldest V;
 * a trywait that succeeds takes a V too, one that fails does not. */
TEST(semaphore_fifo_with_several_posters)
{
	const struct sync_obj *o;

	setup();
	call(P_POST, 1, 100, 105, SEM, 0);
	call(P_POST, 3, 110, 115, SEM, 0);
	call(P_POST, 1, 120, 125, SEM, 0);
	call(P_SEMW, 2, 200, 210, SEM, 0);
	call(P_SEMT, 4, 220, 225, SEM, 0);
	call(P_SEMT, 4, 230, 235, SEM, (__u64)-1);
	call(P_SEMW, 2, 300, 310, SEM, 0);
	call(P_POST, 3, 400, 405, SEM, 0);
	o = only(SYNC_SEM);
	CHECK_EQ(fx.npairs, 3);
	CHECK_EQ(fx.pairs[0].v_tid, 1);
	CHECK_EQ(fx.pairs[0].v_ts, 100);
	CHECK_EQ(fx.pairs[1].p_tid, 4);
	CHECK_EQ(fx.pairs[1].v_tid, 3);
	CHECK_EQ(fx.pairs[2].v_ts, 120);
	CHECK_EQ(o->failed, 1);
	CHECK_EQ(o->posts_q.len, 1); /* the last V is not consumed yet */
	CHECK_EQ(o->initial_tokens, 0);
	teardown();
}

/* A condition wait releases its mutex at entry and holds it again at its
 * return: the hold time excludes the wait. Signals and broadcasts counted. */
TEST(condvar_wait_releases_the_mutex)
{
	const struct sync_obj *c, *m;

	setup();
	call(P_LOCK, 2, 100, 110, MTX, 0);
	ev(SBT_EV_ENTER, P_CONDW, 2, 150, COND, MTX); /* second argument: the mutex */
	futex_wait(2, 160, 590, COND, 0);
	call(P_SIG, 1, 580, 585, COND, 0);
	ev(SBT_EV_EXIT, P_CONDW, 2, 600, 0, SITE);
	call(P_UNLOCK, 2, 700, 705, MTX, 0);
	call(P_BCAST, 1, 800, 805, COND, 0);
	c = only(SYNC_COND);
	m = only(SYNC_LOCK);
	CHECK_EQ(c->count, 1);
	CHECK_EQ(c->wait_ns, 450);
	CHECK_EQ(c->blocked_ns, 430);
	CHECK_EQ(c->posts, 1);
	CHECK_EQ(c->broadcasts, 1);
	CHECK_EQ(m->holds, 2);
	CHECK_EQ(m->hold_ns, (150 - 110) + (700 - 600));
	teardown();
}

/* Waits that never return: thread 2, cancelled in its condvar wait (its
 * cleanup handler unlocks the mutex, inside the wait), exits at 900;
 * thread 3, blocked in sem_wait, and thread 4, in a mutex's lock, are
 * killed by their process's exit at 1000. Each wait ends at the exit, failed but waited: the
 * condvar's counted, its mutex not held again; the semaphore's and the lock's interrupted. */
TEST(waits_a_thread_never_returns_from_end_at_its_exit)
{
	const struct sync_obj *c, *m, *sem;

	setup();
	call(P_LOCK, 2, 100, 110, MTX, 0);
	ev(SBT_EV_ENTER, P_CONDW, 2, 150, COND, MTX);
	call(P_UNLOCK, 2, 880, 885, MTX, 0);
	ev(SBT_EV_THREAD_EXIT, 0, 2, 900, 0, 0);
	ev(SBT_EV_ENTER, P_SEMW, 3, 200, SEM, 0);
	ev(SBT_EV_THREAD_EXIT, 0, 3, 1000, 0, 0);
	ev(SBT_EV_ENTER, P_LOCK, 4, 300, MTX, 0);
	ev(SBT_EV_THREAD_EXIT, 0, 4, 1000, 0, 0);
	phases__finish(fx.ph);
	c = only(SYNC_COND);
	sem = only(SYNC_SEM);
	m = only(SYNC_LOCK);
	CHECK_EQ(c->count, 1);
	CHECK_EQ(c->wait_ns, 900 - 150);
	CHECK_EQ(sem->count, 0);
	CHECK_EQ(sem->interrupted, 1);
	CHECK_EQ(sem->wait_ns, 1000 - 200);
	CHECK_EQ(m->count, 1);
	CHECK_EQ(m->interrupted, 1);
	CHECK_EQ(m->wait_ns, 10 + (1000 - 300));
	CHECK_EQ(m->holds, 1);
	CHECK_EQ(m->hold_ns, 150 - 110);
	teardown();
}

/* Futex waits outside any probed function (a hand-made barrier) are
 * counted as such; an immediate EAGAIN did not block. Wakes count woken. */
TEST(futex_outside_probed_functions)
{
	const struct sync_obj *o;

	setup();
	futex_wait(1, 100, 600, 0x5000, 0);
	futex_wait(2, 120, 125, 0x5000, -EAGAIN);
	ev(SBT_EV_FUTEX_ENTER, 0, 3, 590, 0x5000, FUTEX_WAKE_PRIVATE);
	ev(SBT_EV_FUTEX_EXIT, 0, 3, 595, 1, 0);
	o = only(SYNC_FUTEX);
	CHECK_EQ(o->count, 1);
	CHECK_EQ(o->outside, 1);
	CHECK_EQ(o->outside_ns, 500);
	CHECK_EQ(o->posts, 1);
	CHECK_EQ(o->broadcasts, 1);
	teardown();
}

static const struct sync_obj *futex_at(__u64 uaddr)
{
	size_t i;

	for (i = 0; i < sync__count(fx.sync, SYNC_FUTEX); i++)
		if (sync__obj(fx.sync, SYNC_FUTEX, i)->addr == uaddr)
			return sync__obj(fx.sync, SYNC_FUTEX, i);
	CHECK(0);
	return NULL;
}

static void wait_for_value(__u32 tid, __u64 t0, __u64 t1, __u64 uaddr, __u32 val)
{
	ev(SBT_EV_FUTEX_ENTER, 0, tid, t0, uaddr, FUTEX_WAIT_PRIVATE | (__u64)val << 32);
	ev(SBT_EV_FUTEX_EXIT, 0, tid, t1, 0, 0);
}

/* pthread_join waits outside any probed call on the joined thread's tid
 * word, for the value of its tid, until the kernel's wake at its exit: the
 * word names the thread. A thread stack reused puts the next thread's word
 * at the same address: it counts the threads joined there. */
TEST(a_join_names_the_thread_joined)
{
	const struct sync_obj *o;

	setup();
	ev(SBT_EV_THREAD_START, 0, 2, 50, 0, 0);
	ev(SBT_EV_FUTEX_ENTER, 0, 1, 100, 0x7000, FUTEX_WAIT_PRIVATE | (__u64)2 << 32);
	ev(SBT_EV_THREAD_EXIT, 0, 2, 300, 0, 0);
	ev(SBT_EV_FUTEX_EXIT, 0, 1, 310, 0, 0);
	/* the value of no thread; then of one that did not exit meanwhile */
	wait_for_value(1, 400, 450, 0x8000, 9);
	ev(SBT_EV_THREAD_START, 0, 3, 460, 0, 0);
	wait_for_value(1, 470, 480, 0x9000, 3);
	o = futex_at(0x7000);
	CHECK_EQ(o->joined, 1);
	CHECK_EQ(o->joined_tid, 2);
	CHECK_EQ(o->outside, 1);
	CHECK_EQ(futex_at(0x8000)->joined, 0);
	CHECK_EQ(futex_at(0x9000)->joined, 0);
	/* thread 3 gets the stack thread 2 had */
	ev(SBT_EV_FUTEX_ENTER, 0, 1, 500, 0x7000, FUTEX_WAIT_PRIVATE | (__u64)3 << 32);
	ev(SBT_EV_THREAD_EXIT, 0, 3, 600, 0, 0);
	ev(SBT_EV_FUTEX_EXIT, 0, 1, 605, 0, 0);
	o = futex_at(0x7000);
	CHECK_EQ(o->joined, 2);
	CHECK_EQ(o->joined_tid, 3);
	CHECK_EQ(o->count, 2);
	/* the kernel wakes the joiner before the exit record is made: a wait
	 * that returned up to 1 ms before it; not one that returned earlier */
	ev(SBT_EV_THREAD_START, 0, 4, 700, 0, 0);
	ev(SBT_EV_THREAD_START, 0, 5, 700, 0, 0);
	wait_for_value(1, 800, 900, 0xa000, 4);
	ev(SBT_EV_THREAD_EXIT, 0, 4, 905, 0, 0);
	wait_for_value(1, 1000, 1100, 0xb000, 5);
	ev(SBT_EV_THREAD_EXIT, 0, 5, 1100 + 1000001, 0, 0);
	CHECK_EQ(futex_at(0xa000)->joined, 1);
	CHECK_EQ(futex_at(0xa000)->joined_tid, 4);
	CHECK_EQ(futex_at(0xb000)->joined, 0);
	teardown();
}

/* Lock and semaphore waits inside a barrier phase are attributed to it: the
 * arrival carries them, and the barrier's own futex wait is its blocked
 * time (the rest of the barrier wait was spinning). */
TEST(sync_wait_attributed_to_phase)
{
	setup();
	call(P_PBW, 1, 100, 120, BAR, 0); /* phase 0 for thread 1 */
	call(P_LOCK, 1, 200, 260, MTX, 0);
	call(P_UNLOCK, 1, 300, 301, MTX, 0);
	call(P_SEMW, 1, 400, 430, SEM, 0);
	ev(SBT_EV_ENTER, P_PBW, 1, 500, BAR, 0);
	futex_wait(1, 520, 580, BAR, 0);
	ev(SBT_EV_EXIT, P_PBW, 1, 600, 0, SITE);
	CHECK_EQ(fx.sync_wait[1], 60 + 30);
	CHECK_EQ(fx.blocked[1], 60);
	teardown();
}

/* A runtime's barrier made of a mutex and a condvar (libomp's passive wait:
 * pthread_cond_wait inside __kmpc_barrier): those calls are the barrier's
 * time, not the program's locks and condvars (they were counted twice,
 * and the waker's signal as a late signal). The program's own condvar wait
 * after the barrier is counted. */
TEST(calls_made_inside_a_barrier_are_the_barriers_own)
{
	const struct sync_obj *c;

	setup();
	ev(SBT_EV_ENTER, P_PBW, 1, 100, BAR, 0);
	call(P_LOCK, 1, 110, 115, MTX, 0);
	ev(SBT_EV_ENTER, P_CONDW, 1, 120, COND, MTX);
	ev(SBT_EV_ENTER, P_PBW, 2, 300, BAR, 0);
	call(P_LOCK, 2, 310, 315, MTX, 0);
	call(P_SIG, 2, 320, 325, COND, 0);
	call(P_UNLOCK, 2, 330, 335, MTX, 0);
	ev(SBT_EV_EXIT, P_PBW, 2, 340, 0, SITE);
	ev(SBT_EV_EXIT, P_CONDW, 1, 400, 0, SITE);
	call(P_UNLOCK, 1, 410, 415, MTX, 0);
	ev(SBT_EV_EXIT, P_PBW, 1, 420, 0, SITE);
	CHECK_EQ(sync__count(fx.sync, SYNC_COND), 0);
	CHECK_EQ(sync__count(fx.sync, SYNC_LOCK), 0);
	/* the program's own: a wait for a signal after the barrier */
	call(P_LOCK, 1, 500, 505, MTX + 8, 0);
	ev(SBT_EV_ENTER, P_CONDW, 1, 510, COND + 8, MTX + 8);
	call(P_SIG, 2, 600, 605, COND + 8, 0);
	ev(SBT_EV_EXIT, P_CONDW, 1, 650, 0, SITE);
	c = only(SYNC_COND);
	CHECK_EQ(c->addr, COND + 8);
	CHECK_EQ(c->count, 1);
	CHECK_EQ(c->wait_ns, 140);
	CHECK_EQ(only(SYNC_LOCK)->addr, MTX + 8);
	teardown();
}
