// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Waits a thread caused other threads (analyses/sync_caused.c, doc/design.md
 * §5.5), on synthetic streams fed through the phase analysis, with exact
 * values: a lock's holders, a semaphore's late posts, a condvar's late
 * signals. */
#include "sync_fixture.h"

/* As setup(), no condvar or semaphore classified as a barrier: no record is
 * held back, objects are counted as the records come. */
static void setup_plain(void)
{
	struct phases_config cfg = {
		.probes = probes, .nprobes = NPROBES, .start_ns = 1000, .no_sync_barriers = 1};

	memset(&fx, 0, sizeof(fx));
	fx.sync = sync__new(probes, NPROBES);
	cfg.sync = fx.sync;
	fx.ph = phases__new(&cfg, NULL, &fx);
}

static __u64 caused(const struct sync_obj *o, __u32 tid)
{
	const struct sync_share *sh = share(o, tid);

	return sh ? sh->caused_ns : 0;
}

/* Thread 1 holds the mutex 100..400. Thread 2 asks at 150 and gets it at
 * 420, holding it to 500; thread 3 asks at 200 and gets it at 520. While 1
 * held it, 2 waited 250 and 3 200; while 2 held it, 3 waited 80. The
 * hand-offs (400..420, 500..520) are no holder's. */
TEST(lock_holders_cause_the_waits_during_their_holds)
{
	const struct sync_obj *o;

	setup_plain();
	call(P_LOCK, 1, 90, 100, MTX, 0);
	ev(SBT_EV_ENTER, P_LOCK, 2, 150, MTX, 0);
	ev(SBT_EV_ENTER, P_LOCK, 3, 200, MTX, 0);
	call(P_UNLOCK, 1, 400, 405, MTX, 0);
	ev(SBT_EV_EXIT, P_LOCK, 2, 420, 0, SITE);
	call(P_UNLOCK, 2, 500, 505, MTX, 0);
	ev(SBT_EV_EXIT, P_LOCK, 3, 520, 0, SITE);
	call(P_UNLOCK, 3, 600, 605, MTX, 0);
	o = only(SYNC_LOCK);
	CHECK_EQ(caused(o, 1), 250 + 200);
	CHECK_EQ(caused(o, 2), 80);
	CHECK_EQ(caused(o, 3), 0);
	CHECK_EQ(o->caused_ns, 530);
	/* what the waiters waited, 10 + 270 + 320: the rest is hand-off */
	CHECK_EQ(o->wait_ns, 600);
	CHECK_EQ(o->nwaiting, 0);
	teardown();
}

/* A condition wait gives the mutex up and takes it again: a waiter for the
 * mutex meanwhile is no wait the condvar's waiter caused. */
TEST(condition_wait_is_no_hold)
{
	const struct sync_obj *o;

	setup_plain();
	call(P_LOCK, 1, 90, 100, MTX, 0);
	ev(SBT_EV_ENTER, P_CONDW, 1, 200, COND, MTX);
	call(P_LOCK, 2, 250, 300, MTX, 0);
	call(P_SIG, 2, 320, 330, COND, 0);
	call(P_UNLOCK, 2, 340, 350, MTX, 0);
	ev(SBT_EV_EXIT, P_CONDW, 1, 400, 0, SITE);
	call(P_UNLOCK, 1, 500, 505, MTX, 0);
	o = sync__obj(fx.sync, SYNC_LOCK, 0);
	/* 2 waited 250..300, while nobody held the mutex */
	CHECK_EQ(caused(o, 1), 0);
	/* 1's wait from 200 ended with 2's signal at 320 */
	CHECK_EQ(caused(only(SYNC_COND), 2), 120);
	teardown();
}

/* A thread whose acquire's return was lost is one waiter until it acquires
 * the lock again: thread 2 asks at 150 (its return lost) and again at 300,
 * and gets it at 420; thread 1 held it 100..400. */
TEST(lost_acquire_return_counts_once)
{
	struct sync_call c1 = {.pid = PID, .tid = 1, .probe = P_LOCK, .obj = MTX};
	struct sync_call c2 = c1;
	const struct sync_obj *o;

	setup_plain();
	c1.enter_ns = 90;
	c1.exit_ns = 100;
	c2.tid = 2;
	c2.enter_ns = 300;
	c2.exit_ns = 420;
	sync__acquire(fx.sync, PID, 1, P_LOCK, MTX, 90);
	sync__call(fx.sync, &c1, NULL);
	sync__acquire(fx.sync, PID, 2, P_LOCK, MTX, 150);
	sync__acquire(fx.sync, PID, 2, P_LOCK, MTX, 300);
	sync__release(fx.sync, PID, 1, P_UNLOCK, MTX, 400, 0);
	sync__call(fx.sync, &c2, NULL);
	o = only(SYNC_LOCK);
	CHECK_EQ(caused(o, 1), 250);
	CHECK_EQ(o->nwaiting, 0);
	teardown();
}

/* Thread 1's P waits from 100; thread 2 posts at 300 (it returns at 350):
 * 200 caused by the late post. Thread 1's next P finds 2's second post,
 * made before it: none. */
TEST(late_post_caused_by_its_poster)
{
	const struct sync_obj *o;

	setup_plain();
	ev(SBT_EV_ENTER, P_SEMW, 1, 100, SEM, 0);
	call(P_POST, 2, 300, 310, SEM, 0);
	ev(SBT_EV_EXIT, P_SEMW, 1, 350, 0, SITE);
	call(P_POST, 2, 400, 410, SEM, 0);
	call(P_SEMW, 1, 500, 510, SEM, 0);
	o = only(SYNC_SEM);
	CHECK_EQ(caused(o, 2), 200);
	CHECK_EQ(caused(o, 1), 0);
	CHECK_EQ(o->caused_ns, 200);
	teardown();
}

/* Two waiters, two signals: each wait ends with the latest signal before
 * its return (1 woken by the signal at 300, 3 by the one at 600); a wait
 * that timed out was woken by none. */
TEST(late_signal_caused_by_its_sender)
{
	const struct sync_obj *o;

	setup_plain();
	ev(SBT_EV_ENTER, P_CONDW, 1, 100, COND, 0);
	ev(SBT_EV_ENTER, P_CONDW, 3, 150, COND, 0);
	call(P_SIG, 2, 300, 310, COND, 0);
	ev(SBT_EV_EXIT, P_CONDW, 1, 320, 0, SITE);
	call(P_BCAST, 4, 600, 610, COND, 0);
	ev(SBT_EV_EXIT, P_CONDW, 3, 650, 0, SITE);
	ev(SBT_EV_ENTER, P_CONDW, 1, 700, COND, 0);
	ev(SBT_EV_EXIT, P_CONDW, 1, 900, ETIMEDOUT, SITE);
	o = only(SYNC_COND);
	CHECK_EQ(caused(o, 2), 200);
	CHECK_EQ(caused(o, 4), 450);
	CHECK_EQ(o->caused_ns, 650);
	teardown();
}
