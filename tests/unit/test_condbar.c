// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Barriers made of a mutex and a condvar (analyses/condbar.c, feed.c): the
 * classifier on synthetic streams — Splash-3's BARRIER macro recognized from
 * its first episode on, with exact arrivals and departures; a work queue
 * (signal, or broadcast whose woken consumers wait again), a start gate
 * broadcast once and a condvar whose team changes are no barriers; a
 * first group missing threads that waited before the session. */
#include <errno.h>
#include "analyses/condbar.h"
#include "condbar_fixture.h"

/*
 * Splash-3's BARRIER: three episodes, the last arriver changing in the
 * third. Every episode is a barrier episode, the first two included (their
 * records were held until the third proved the pattern): arrivals at the
 * wait and the broadcast, departures at the returns of the unlocks that
 * follow them (the macro's last step).
 */
TEST(splash_barrier_is_recognized_from_its_first_episode)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	const struct ph_arrival *a;

	cb_episode(p, 10000, 3);
	cb_episode(p, 20000, 3);
	CHECK_EQ(c.n, 0); /* the same last thread twice proves nothing: held */
	/* tid 2 is the last now */
	cb_wait_in(p, 1, 30100);
	cb_wait_in(p, 3, 30150);
	cb_last(p, 2, 30200);
	cb_wait_out(p, 1, 30410);
	cb_wait_out(p, 3, 30430);
	phases__finish(p);
	CHECK_EQ(c.n, 3);
	CHECK_EQ(c.ep[0].object, CV);
	CHECK_EQ(c.ep[0].n, 3);
	CHECK_EQ(c.ep[0].first_arrive, 10102);
	CHECK_EQ(c.ep[0].last_arrive, 10302); /* the broadcast */
	a = arrival_of(&c.ep[0], 3);
	CHECK_EQ(a->depart_ns, 10306);
	a = arrival_of(&c.ep[0], 1);
	CHECK_EQ(a->depart_ns, 10412);
	CHECK_EQ(ph_wait_ns(a), 10412 - 10102);
	a = arrival_of(&c.ep[1], 2);
	CHECK_EQ(a->start_ns, 10422); /* its unlock's return in the first */
	CHECK_EQ(ph_compute_ns(a), 20202 - 10422);
	CHECK_EQ(c.ep[2].last_arrive, 30202);
	CHECK_EQ(arrival_of(&c.ep[2], 2)->arrive_ns, 30202);
	CHECK_EQ(phases__nsites(p), 1);
	CHECK_EQ(phases__grouping_errors(p), 0);
	phases__free(p);
}

#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129

/* The futex wake of thread tid's unlock of the barrier's mutex, at ts and
 * returning at ts + 5 (a thread was waiting for the mutex). */
static void mutex_wake(struct phases *p, __u32 tid, __u64 ts)
{
	feed(p, SBT_EV_FUTEX_ENTER, 0, tid, ts, MUTEX, FUTEX_WAKE_PRIVATE);
	feed(p, SBT_EV_FUTEX_EXIT, 0, tid, ts + 5, 1, 0);
}

/* A phase analysis (Malony-Reed, every probe costing cost[id]) whose probe
 * table has no pthread_mutex_unlock: the default --trace. */
static struct phases *new_phases_unprobed_unlock(struct collected *c, const __u64 *cost)
{
	static struct sbt_probe_info no_unlock[NPROBES];
	struct phases_config cfg = {
		.probes = no_unlock,
		.nprobes = NPROBES,
		.start_ns = START,
		.alpha_enter = cost,
		.alpha_exit = cost,
		.model = PH_MODEL_MR,
	};

	memcpy(no_unlock, probes, sizeof(probes));
	no_unlock[P_UNLOCK] = (struct sbt_probe_info){0};
	memset(c, 0, sizeof(*c));
	memset(pending_depth, 0, sizeof(pending_depth));
	return phases__new(&cfg, &(struct phases_ops){.episode = on_episode}, c);
}

/* Thread tid locks at ts and broadcasts at ts + 2 (returning at ts + 4);
 * its unlock is not probed. */
static void cb_last_unprobed_unlock(struct phases *p, __u32 tid, __u64 ts)
{
	enter(p, P_LOCK, tid, ts, MUTEX, SITE_B);
	leave(p, P_LOCK, tid, ts + 1, 0);
	enter(p, P_BCAST, tid, ts + 2, CV, SITE_B);
	leave(p, P_BCAST, tid, ts + 4, 0);
}

/*
 * Unlocks unprobed (the default --trace): a thread leaves the barrier when
 * it lets the mutex go, seen as the unlock's futex wake where a thread
 * waits for the mutex. The broadcaster lost its CPU before its unlock
 * (12000: the waiters woken could not leave their waits before it), the
 * first waiter woke the second with its unlock, the second's unlock wakes
 * nobody: it leaves at its wait's return, known at its next record. With
 * no probe cost, the approximated departures are the measured ones: the
 * broadcaster, still unlocking when a waiter leaves, is settled first (the
 * exits are approximated in the order they are settled).
 */
TEST(condvar_barrier_threads_leave_at_their_unlock)
{
	static const __u64 zero[NPROBES];
	struct collected c;
	const struct ph_episode *ep;
	struct phases *p = new_phases_unprobed_unlock(&c, zero);
	__u32 tid;

	for (tid = 1; tid <= 2; tid++)
		cb_wait_in(p, tid, 10000 + 100 * tid);
	cb_last_unprobed_unlock(p, 3, 10300);
	mutex_wake(p, 3, 12000);
	leave(p, P_CWAIT, 1, 12100, 0);
	mutex_wake(p, 1, 12101);
	leave(p, P_CWAIT, 2, 12200, 0);
	/* the last thread changes: a barrier */
	for (tid = 2; tid <= 3; tid++)
		cb_wait_in(p, tid, 20000 + 100 * tid);
	cb_last_unprobed_unlock(p, 1, 20400);
	leave(p, P_CWAIT, 2, 20500, 0);
	leave(p, P_CWAIT, 3, 20600, 0);
	phases__finish(p);
	CHECK_EQ(c.n, 2);
	if (c.n != 2)
		return;
	ep = &c.ep[0];
	CHECK_EQ(arrival_of(ep, 3)->depart_ns, 12005);
	CHECK_EQ(arrival_of(ep, 1)->depart_ns, 12106);
	CHECK_EQ(arrival_of(ep, 2)->depart_ns, 12200);
	ep = &c.ep[1];
	CHECK_EQ(arrival_of(ep, 1)->depart_ns, 20404);
	CHECK_EQ(arrival_of(ep, 2)->depart_ns, 20500);
	CHECK_EQ(arrival_of(ep, 3)->depart_ns, 20600);
	for (int k = 0; k < 2; k++)
		for (tid = 1; tid <= 3; tid++)
			CHECK_EQ(arrival_of(&c.ep[k], tid)->ta_depart,
				 arrival_of(&c.ep[k], tid)->depart_ns);
	CHECK_EQ(phases__grouping_errors(p), 0);
	phases__free(p);
}

/*
 * Two episodes as glibc runs them, with probe costs (every hit 40 ns): the
 * waiters sleep on the condvar, the broadcast wakes them, and they sleep on
 * the mutex, which the broadcaster, preempted, keeps 2 us. A thread's
 * return and its unlock's records before its departure are not
 * approximated on their own clock (the wait's whole length, not re-timed
 * yet): the departure, re-timed by the barrier model, never falls before
 * them, and needs no order repair.
 */
TEST(condvar_barrier_departures_at_the_unlock_need_no_repair)
{
	static __u64 cost[NPROBES];
	struct collected c;
	struct phases *p;
	int k;

	for (k = 0; k < NPROBES; k++)
		cost[k] = 40;
	p = new_phases_unprobed_unlock(&c, cost);
	for (k = 0; k < 2; k++) {
		__u64 b = 10000 + 10000 * (__u64)k;
		__u32 last = k ? 1 : 3, w1 = k ? 2 : 1, w2 = k ? 3 : 2;

		cb_wait_in(p, w1, b + 100);
		feed(p, SBT_EV_FUTEX_ENTER, 0, w1, b + 110, CV, FUTEX_WAIT_PRIVATE);
		cb_wait_in(p, w2, b + 200);
		feed(p, SBT_EV_FUTEX_ENTER, 0, w2, b + 210, CV, FUTEX_WAIT_PRIVATE);
		enter(p, P_LOCK, last, b + 300, MUTEX, SITE_B);
		leave(p, P_LOCK, last, b + 301, 0);
		enter(p, P_BCAST, last, b + 302, CV, SITE_B);
		feed(p, SBT_EV_FUTEX_ENTER, 0, last, b + 303, CV, FUTEX_WAKE_PRIVATE);
		feed(p, SBT_EV_FUTEX_EXIT, 0, last, b + 320, 2, 0);
		leave(p, P_BCAST, last, b + 322, 0);
		feed(p, SBT_EV_FUTEX_EXIT, 0, w1, b + 330, 0, 0);
		feed(p, SBT_EV_FUTEX_ENTER, 0, w1, b + 335, MUTEX, FUTEX_WAIT_PRIVATE);
		feed(p, SBT_EV_FUTEX_EXIT, 0, w2, b + 340, 0, 0);
		feed(p, SBT_EV_FUTEX_ENTER, 0, w2, b + 345, MUTEX, FUTEX_WAIT_PRIVATE);
		mutex_wake(p, last, b + 2300);
		feed(p, SBT_EV_FUTEX_EXIT, 0, w1, b + 2320, 0, 0);
		leave(p, P_CWAIT, w1, b + 2330, 0);
		mutex_wake(p, w1, b + 2331);
		feed(p, SBT_EV_FUTEX_EXIT, 0, w2, b + 2350, 0, 0);
		leave(p, P_CWAIT, w2, b + 2360, 0);
	}
	phases__finish(p);
	CHECK_EQ(c.n, 2);
	CHECK_EQ(arrival_of(&c.ep[0], 3)->depart_ns, 12305);
	CHECK_EQ(phases__violations(p, -1), 0);
	phases__free(p);
}

/* A work queue: the producer signals once per item. */
TEST(queue_signalled_per_item_is_no_barrier)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	int k;

	for (k = 0; k < 4; k++) {
		__u64 b = 10000 + 1000 * k;

		cb_wait_in(p, 2, b);
		enter(p, P_LOCK, 1, b + 100, MUTEX, SITE_B);
		leave(p, P_LOCK, 1, b + 101, 0);
		enter(p, P_SIGNAL, 1, b + 102, CV, SITE_B);
		leave(p, P_SIGNAL, 1, b + 103, 0);
		enter(p, P_UNLOCK, 1, b + 104, MUTEX, SITE_B);
		leave(p, P_UNLOCK, 1, b + 105, 0);
		cb_wait_out(p, 2, b + 200);
	}
	phases__finish(p);
	CHECK_EQ(c.n, 0);
	CHECK_EQ(phases__nsites(p), 0);
	phases__free(p);
}

/* A queue whose items come with a broadcast: thread 3 wakes to an empty
 * queue and waits again without unlocking. The groups would pass for a
 * barrier's otherwise (same team, the broadcaster changing): the re-wait
 * rules it out. */
TEST(queue_broadcast_with_rewaits_is_no_barrier)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	cb_wait_in(p, 2, 10000);
	cb_wait_in(p, 3, 10010);
	enter(p, P_BCAST, 1, 10100, CV, SITE_B);
	leave(p, P_BCAST, 1, 10101, 0);
	cb_wait_out(p, 2, 10200); /* took the item */
	leave(p, P_CWAIT, 3, 10210, 0);
	cwait(p, 3, 10211); /* woke to an empty queue: waits again */
	cb_wait_in(p, 1, 10300);
	enter(p, P_BCAST, 2, 10400, CV, SITE_B);
	leave(p, P_BCAST, 2, 10401, 0);
	cb_wait_out(p, 1, 10500);
	cb_wait_out(p, 3, 10510);
	cb_episode(p, 20000, 2);
	phases__finish(p);
	CHECK_EQ(c.n, 0);
	phases__free(p);
}

/* A start gate broadcast once, then a pthread barrier: the gate stays
 * undecided (records held) until the end, when it is no barrier and the
 * pthread barrier's episodes are analysed. */
TEST(gate_broadcast_once_is_no_barrier)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	cb_episode(p, 10000, 3);
	enter(p, P_PBW, 1, 20000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 20010, OBJ_X, SITE_A);
	enter(p, P_PBW, 3, 20020, OBJ_X, SITE_A);
	leave(p, P_PBW, 3, 20030, -1);
	leave(p, P_PBW, 1, 20040, 0);
	leave(p, P_PBW, 2, 20050, 0);
	CHECK_EQ(c.n, 0);
	phases__finish(p);
	CHECK_EQ(c.n, 1);
	CHECK_EQ(c.ep[0].object, OBJ_X);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->start_ns, START); /* the gate ended no phase */
	phases__free(p);
}

/* The same team released by the same broadcaster every time, each waiter
 * unlocking the mutex after its wait (unlocks probed): a barrier whose last
 * thread never changes (a load imbalance that stays), decided after
 * SAME_LAST_MAX (8) groups, its episodes not held until the end. (A
 * producer broadcasting one item to idle consumers makes all but one wait
 * again first, and is ruled out then: queue_broadcast_with_rewaits.) */
TEST(same_broadcaster_every_time_with_unlocks_is_a_barrier)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	int k;

	for (k = 0; k < 8; k++)
		cb_episode(p, 10000 + 1000 * k, 3);
	CHECK_EQ(c.n, 8);
	enter(p, P_PBW, 1, 20000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 20010, OBJ_X, SITE_A);
	leave(p, P_PBW, 2, 20030, -1);
	leave(p, P_PBW, 1, 20040, 0);
	CHECK_EQ(c.n, 9);
	CHECK_EQ(c.ep[0].object, CV);
	CHECK_EQ(c.ep[7].object, CV);
	CHECK_EQ(c.ep[8].object, OBJ_X);
	phases__finish(p);
	CHECK_EQ(c.n, 9);
	phases__free(p);
}

/* The same without unlocks probed (the default --trace): a barrier whose
 * last thread never changes and a producer releasing idle consumers look
 * alike. Not a barrier, said to be ambiguous (condbar__same_broadcaster). */
TEST(same_broadcaster_without_unlocks_is_ambiguous)
{
	static const struct sbt_probe_info cond_only[] = {
		{.id = 0, .kind = SBT_PK_COND_WAIT, .symbol = "pthread_cond_wait"},
		{.id = 1, .kind = SBT_PK_COND_SIGNAL, .symbol = "pthread_cond_broadcast"},
	};
	struct condbar *cb = condbar__new(cond_only, 2);
	struct sbt_event e;
	int k;
	__u32 tid;

	CHECK(cb != NULL);
	for (k = 0; k < 8; k++) {
		__u64 base = 10000 + 1000 * (__u64)k;

		for (tid = 1; tid <= 2; tid++) {
			e = sbt_event_make(SBT_EV_ENTER, 0, 7, tid, base + tid, CV, MUTEX);
			condbar__observe(cb, &e);
		}
		e = sbt_event_make(SBT_EV_ENTER, 1, 7, 3, base + 300, CV, 0);
		condbar__observe(cb, &e);
		for (tid = 1; tid <= 2; tid++) {
			e = sbt_event_make(SBT_EV_EXIT, 0, 7, tid, base + 400 + tid, 0, SITE_A);
			condbar__observe(cb, &e);
		}
		CHECK_EQ(condbar__same_broadcaster(cb, 7, CV), k == 7);
	}
	CHECK(!condbar__is_barrier(cb, 7, CV));
	CHECK_EQ(condbar__pending(cb), 0);
	condbar__free(cb);
}

/* The team changes between groups: no barrier. */
TEST(changing_team_is_no_barrier)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	cb_episode(p, 10000, 3);
	cb_wait_in(p, 1, 20000);
	cb_last(p, 2, 20100);
	cb_wait_out(p, 1, 20200);
	cb_episode(p, 30000, 3);
	phases__finish(p);
	CHECK_EQ(c.n, 0);
	phases__free(p);
}

/*
 * Attached while thread 1 waited: the first group misses it (its wait's
 * entry was before the session). The next two groups are the whole team:
 * a barrier, the first episode's arrival of thread 1 unknown.
 */
TEST(first_group_missing_earlier_waiters_is_rebased)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	cb_wait_in(p, 2, 10200);
	cb_last(p, 3, 10300);
	leave(p, P_CWAIT, 1, 10405, 0); /* entered before the session */
	enter(p, P_UNLOCK, 1, 10406, MUTEX, SITE_A);
	leave(p, P_UNLOCK, 1, 10407, 0);
	cb_wait_out(p, 2, 10420);
	cb_episode(p, 20000, 3);
	cb_episode(p, 30000, 2);
	phases__finish(p);
	CHECK_EQ(c.n, 3);
	CHECK_EQ(c.ep[0].n, 2); /* thread 1's arrival unseen */
	CHECK_EQ(c.ep[1].n, 3);
	CHECK_EQ(c.ep[2].n, 3);
	phases__free(p);
}

/* Live, records held for a condvar's classification are analysed once they
 * are older than the bound: the condvar is left undecided, and its next
 * groups may still make it a barrier, from the next wait on (the first two
 * groups were cond waits by then). */
TEST(records_held_too_long_live_are_analysed_and_the_condvar_stays_undecided)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	cb_episode(p, 10000, 3);
	cb_episode(p, 20000, 3);
	phases__release_stale(p, 20500, 100000);
	CHECK_EQ(c.n, 0); /* not stale yet: still held */
	phases__release_stale(p, 10102 + 100000, 100000);
	CHECK_EQ(c.n, 0); /* analysed as condvar waits */
	/* tid 2 last now: the third group proves the barrier */
	cb_episode(p, 200000, 2);
	cb_episode(p, 210000, 1);
	phases__finish(p);
	CHECK_EQ(c.n, 2);
	CHECK_EQ(c.ep[0].last_arrive, 200302);
	CHECK_EQ(c.ep[1].last_arrive, 210302);
	phases__free(p);
}

/* A hang check sees the run as far as the analysis has: a barrier whose
 * other thread's arrival is among the records held is not hung, and is
 * once that thread's arrival is analysed and nobody else comes. */
TEST(a_hang_check_does_not_look_past_the_records_held)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	__u64 t = 2000;
	int k;

	for (k = 0; k < 2; k++, t += 1000) {
		enter(p, P_PBW, 1, t, OBJ_X, SITE_A);
		enter(p, P_PBW, 2, t + 1, OBJ_X, SITE_A);
		leave(p, P_PBW, 1, t + 10, 0);
		leave(p, P_PBW, 2, t + 10, 0);
	}
	enter(p, P_PBW, 1, 5000, OBJ_X, SITE_A);
	/* tid 3 waits on a condvar: what follows is held */
	cwait(p, 3, 5050);
	enter(p, P_PBW, 2, 5100, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 5110, 0);
	leave(p, P_PBW, 2, 5110, 0);
	/* as far as the analysis has seen, tid 1 waits since 5000: not 1000 */
	phases__check_hangs(p, 9000, 1000);
	CHECK_EQ(c.nhang, 0);
	CHECK_EQ(c.n, 2);
	phases__release_stale(p, 9000, 1000);
	CHECK_EQ(c.n, 3);
	phases__check_hangs(p, 9000, 1000);
	CHECK_EQ(c.nhang, 0);
	phases__free(p);
}

/* A condvar whose wait timed out is no barrier's (a monitor polling with
 * pthread_cond_timedwait): nothing is held for it after. */
TEST(a_timed_out_wait_rules_the_condvar_out)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	cwait(p, 3, 1000);
	leave(p, P_CWAIT, 3, 2000, ETIMEDOUT);
	/* a barrier episode after it is analysed at once, not held */
	enter(p, P_PBW, 1, 3000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 3001, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 3010, 0);
	leave(p, P_PBW, 2, 3010, 0);
	CHECK_EQ(c.n, 1);
	phases__free(p);
}
