/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A barrier made of a mutex and a condvar, as Splash-3's BARRIER macro
 * makes one, fed to a phase analysis (tests/unit/phases_fixture.h). */
#ifndef SBT_CONDBAR_FIXTURE_H
#define SBT_CONDBAR_FIXTURE_H

#include "phases_fixture.h"

#define MUTEX 0x9000
#define CV    0x9040

/* pthread_cond_wait(CV, MUTEX) entered: the mutex is the entry's second
 * argument. */
static void cwait(struct phases *p, __u32 tid, __u64 ts)
{
	pending_site[tid % 64][pending_depth[tid % 64]++ % 8] = SITE_A;
	feed(p, SBT_EV_ENTER, P_CWAIT, tid, ts, CV, MUTEX);
}

/* Thread tid arrives at the condvar barrier at ts and is not the last: it
 * locks, waits from ts + 2. */
static void cb_wait_in(struct phases *p, __u32 tid, __u64 ts)
{
	enter(p, P_LOCK, tid, ts, MUTEX, SITE_A);
	leave(p, P_LOCK, tid, ts + 1, 0);
	cwait(p, tid, ts + 2);
}

/* ...and is woken at ts: the wait returns, the mutex is released. */
static void cb_wait_out(struct phases *p, __u32 tid, __u64 ts)
{
	leave(p, P_CWAIT, tid, ts, 0);
	enter(p, P_UNLOCK, tid, ts + 1, MUTEX, SITE_A);
	leave(p, P_UNLOCK, tid, ts + 2, 0);
}

/* The last thread: lock at ts, broadcast at ts + 2 (returns at ts + 4). */
static void cb_last(struct phases *p, __u32 tid, __u64 ts)
{
	enter(p, P_LOCK, tid, ts, MUTEX, SITE_B);
	leave(p, P_LOCK, tid, ts + 1, 0);
	enter(p, P_BCAST, tid, ts + 2, CV, SITE_B);
	leave(p, P_BCAST, tid, ts + 4, 0);
	enter(p, P_UNLOCK, tid, ts + 5, MUTEX, SITE_B);
	leave(p, P_UNLOCK, tid, ts + 6, 0);
}

/* One episode at base: tids 1..3 arrive at base + 100 * tid; `last` (the
 * latest) broadcasts; the others return from their waits from base + 400. */
static void cb_episode(struct phases *p, __u64 base, __u32 last)
{
	__u32 tid;

	for (tid = 1; tid <= 3; tid++)
		if (tid != last)
			cb_wait_in(p, tid, base + 100 * tid);
	cb_last(p, last, base + 300);
	for (tid = 1; tid <= 3; tid++)
		if (tid != last)
			cb_wait_out(p, tid, base + 400 + 10 * tid);
}

#endif
