// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Locks, semaphores, condition variables and futex waits on synthetic event
 * streams fed through the phase analysis, with exact values. */
#include <errno.h>
#include <stdlib.h>
#include "phases.h"
#include "sync.h"
#include "unit.h"

enum {
	P_NONE,
	P_LOCK,
	P_TRY,
	P_UNLOCK,
	P_SEMW,
	P_SEMT,
	P_POST,
	P_CONDW,
	P_SIG,
	P_BCAST,
	P_PBW,
	NPROBES
};

static const struct sbt_probe_info probes[NPROBES] = {
	[P_LOCK] = {.id = P_LOCK, .kind = SBT_PK_LOCK, .symbol = "pthread_mutex_lock"},
	[P_TRY] = {.id = P_TRY, .kind = SBT_PK_TRYLOCK, .symbol = "pthread_mutex_trylock"},
	[P_UNLOCK] = {.id = P_UNLOCK, .kind = SBT_PK_UNLOCK, .symbol = "pthread_mutex_unlock"},
	[P_SEMW] = {.id = P_SEMW, .kind = SBT_PK_SEM_WAIT, .symbol = "sem_wait"},
	[P_SEMT] = {.id = P_SEMT, .kind = SBT_PK_SEM_TRYWAIT, .symbol = "sem_trywait"},
	[P_POST] = {.id = P_POST, .kind = SBT_PK_SEM_POST, .symbol = "sem_post"},
	[P_CONDW] = {.id = P_CONDW, .kind = SBT_PK_COND_WAIT, .symbol = "pthread_cond_wait"},
	[P_SIG] = {.id = P_SIG, .kind = SBT_PK_COND_SIGNAL, .symbol = "pthread_cond_signal"},
	[P_BCAST] = {.id = P_BCAST, .kind = SBT_PK_COND_SIGNAL, .symbol = "pthread_cond_broadcast"},
	[P_PBW] = {.id = P_PBW, .kind = SBT_PK_BARRIER, .symbol = "pthread_barrier_wait"},
};

#define PID		   9
#define MTX		   0x1000
#define SEM		   0x2000
#define COND		   0x3000
#define BAR		   0x4000
#define SITE		   0x401234
#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129

struct fixture {
	struct phases *ph;
	struct sync *sync;
	/* pairs reported: P's tid and exit time, V's tid (0 = initial token) */
	struct {
		__u32 p_tid, v_tid;
		__u64 p_exit, v_ts;
	} pairs[32];
	int npairs;
	const struct ph_episode *last;
	__u64 sync_wait[8];
	__u64 blocked[8];
};

static struct fixture fx;

static void on_pair(void *ctx, const struct sync_obj *sem, const struct sync_call *p,
		    const struct sync_post *v)
{
	struct fixture *f = ctx;

	if (f->npairs >= 32)
		return;
	f->pairs[f->npairs].p_tid = p->tid;
	f->pairs[f->npairs].p_exit = p->exit_ns;
	f->pairs[f->npairs].v_tid = v ? v->tid : 0;
	f->pairs[f->npairs].v_ts = v ? v->ts : 0;
	f->npairs++;
}

static void on_episode(void *ctx, const struct ph_episode *ep)
{
	struct fixture *f = ctx;
	__u32 i;

	for (i = 0; i < ep->n && ep->arr[i].tid < 8; i++) {
		f->sync_wait[ep->arr[i].tid] = ep->arr[i].sync_wait_ns;
		f->blocked[ep->arr[i].tid] = ep->arr[i].blocked_ns;
	}
}

static void setup(void)
{
	struct phases_ops ops = {.episode = on_episode};
	struct phases_config cfg = {.probes = probes, .nprobes = NPROBES, .start_ns = 1000};

	memset(&fx, 0, sizeof(fx));
	fx.sync = sync__new(probes, NPROBES);
	sync__on_pair(fx.sync, on_pair, &fx);
	cfg.sync = fx.sync;
	fx.ph = phases__new(&cfg, &ops, &fx);
}

static void teardown(void)
{
	phases__finish(fx.ph);
	phases__free(fx.ph);
	sync__free(fx.sync);
}

static void ev(__u16 type, __u16 probe, __u32 tid, __u64 ts, __u64 obj, __u64 site)
{
	struct sbt_event e = {.ts = ts,
			      .obj = obj,
			      .site = site,
			      .pid = PID,
			      .tid = tid,
			      .type = type,
			      .probe = probe};

	CHECK_EQ(phases__feed(fx.ph, &e), 0);
}

static void call(__u16 probe, __u32 tid, __u64 t0, __u64 t1, __u64 obj, __u64 ret)
{
	ev(SBT_EV_ENTER, probe, tid, t0, obj, 0);
	ev(SBT_EV_EXIT, probe, tid, t1, ret, SITE);
}

static void futex_wait(__u32 tid, __u64 t0, __u64 t1, __u64 uaddr, __s64 ret)
{
	ev(SBT_EV_FUTEX_ENTER, 0, tid, t0, uaddr, FUTEX_WAIT_PRIVATE);
	ev(SBT_EV_FUTEX_EXIT, 0, tid, t1, (__u64)ret, 0);
}

static const struct sync_obj *only(int kind)
{
	CHECK_EQ(sync__count(fx.sync, kind), 1);
	return sync__obj(fx.sync, kind, 0);
}

static const struct sync_share *share(const struct sync_obj *o, __u32 tid)
{
	__u32 i;

	for (i = 0; i < o->nthreads; i++)
		if (o->threads[i].tid == tid)
			return &o->threads[i];
	return NULL;
}

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

/* A timed lock that times out is counted as such, not as an acquisition. */
TEST(timeouts_are_not_acquisitions)
{
	const struct sync_obj *o;

	setup();
	call(P_LOCK, 1, 100, 5100, MTX, ETIMEDOUT);
	o = only(SYNC_LOCK);
	CHECK_EQ(o->count, 0);
	CHECK_EQ(o->timeouts, 1);
	CHECK_EQ(o->holds, 0);
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
	CHECK_EQ(o->q_len, 0);
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
	CHECK_EQ(o->q_len, 1); /* the last V is not consumed yet */
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

/* Mutex hand-off (DESIGN §5.4 model 6), with costs: lock entry 1000, lock
 * return 100, unlock entry 500, unlock return 50. Thread 1 takes the lock
 * at 1100 (t_a 1000: its entry hit is removed), releases it at 3000 (t_a
 * 3000 - 1000 - 100 = 1900). Thread 2 asked at 1500 (t_a 1500), blocked,
 * and got it at 3800: the measured hand-off 800 less the unlock's entry and
 * the lock's return costs is 200, so t_a = 1900 + 200 = 2100, not the
 * time-based 3800 - 1000 = 2800; nor earlier than the release. */
TEST(mutex_handoff_approximation)
{
	static const __u64 a_in[NPROBES] = {[P_LOCK] = 1000, [P_UNLOCK] = 500};
	static const __u64 a_out[NPROBES] = {[P_LOCK] = 100, [P_UNLOCK] = 50};
	struct phases_config cfg = {.probes = probes,
				    .nprobes = NPROBES,
				    .start_ns = 1000,
				    .alpha_enter = a_in,
				    .alpha_exit = a_out};
	struct phases *ph;
	struct sync *s = sync__new(probes, NPROBES);

	cfg.sync = s;
	ph = phases__new(&cfg, NULL, NULL);
	fx.ph = ph;
	fx.sync = s;
	call(P_LOCK, 1, 1000, 1100, MTX, 0);
	ev(SBT_EV_ENTER, P_LOCK, 2, 1500, MTX, 0);
	futex_wait(2, 1600, 3700, MTX, 0);
	ev(SBT_EV_ENTER, P_UNLOCK, 1, 3000, MTX, 0); /* t_a 1000 + 2000 - 1100 = 1900 */
	ev(SBT_EV_EXIT, P_UNLOCK, 1, 3020, 0, SITE);
	ev(SBT_EV_EXIT, P_LOCK, 2, 3800, 0, SITE);
	/* thread 2's next event: based on its acquisition (2100) + 10, less the
	 * lock's return cost (100) paid since */
	ev(SBT_EV_ENTER, P_UNLOCK, 2, 3900, MTX, 0);
	CHECK_EQ(phases__approx_last_ts(ph), 2100 + 100 - 100);
	phases__finish(ph);
	phases__free(ph);
	sync__free(s);
}
