/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The synchronization streams of test_sync.c and test_handoff.c: a
 * synthetic probe table of lock, semaphore, condvar and barrier functions,
 * a phase analysis feeding a sync analysis (measured, or approximating),
 * the semaphore pairs it reports, and calls fed by time. */
#ifndef SBT_TEST_SYNC_FIXTURE_H
#define SBT_TEST_SYNC_FIXTURE_H

#include <errno.h>
#include <stdlib.h>
#include "analyses/phases.h"
#include "analyses/sync.h"
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
	P_CRIT,
	P_CRIT_HINT,
	P_CRIT_END,
	P_SEMTIMED,
	P_RDLOCK,
	P_WRLOCK,
	P_RWUNLOCK,
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
	/* libomp: __kmpc_critical enters through __kmpc_critical_with_hint;
	 * they return void */
	[P_CRIT] = {.id = P_CRIT, .kind = SBT_PK_LOCK, .symbol = "__kmpc_critical"},
	[P_CRIT_HINT] = {.id = P_CRIT_HINT,
			 .kind = SBT_PK_LOCK,
			 .symbol = "__kmpc_critical_with_hint"},
	[P_CRIT_END] = {.id = P_CRIT_END, .kind = SBT_PK_UNLOCK, .symbol = "__kmpc_end_critical"},
	[P_SEMTIMED] = {.id = P_SEMTIMED, .kind = SBT_PK_SEM_WAIT, .symbol = "sem_timedwait"},
	[P_RDLOCK] = {.id = P_RDLOCK, .kind = SBT_PK_LOCK, .symbol = "pthread_rwlock_rdlock"},
	[P_WRLOCK] = {.id = P_WRLOCK, .kind = SBT_PK_LOCK, .symbol = "pthread_rwlock_wrlock"},
	[P_RWUNLOCK] = {.id = P_RWUNLOCK, .kind = SBT_PK_UNLOCK, .symbol = "pthread_rwlock_unlock"},
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
		__u64 p_exit, v_ts, v_ta;
	} pairs[32];
	int npairs;
	const struct ph_episode *last;
	__u64 sync_wait[8];
	__u64 blocked[8];
};

static struct fixture fx;

static inline void on_pair(void *ctx, const struct sync_obj *sem, const struct sync_call *p,
			   const struct sync_post *v)
{
	struct fixture *f = ctx;

	if (f->npairs >= 32)
		memmove(f->pairs, f->pairs + 1, sizeof(f->pairs) - sizeof(f->pairs[0]));
	f->npairs = f->npairs >= 32 ? 31 : f->npairs;
	f->pairs[f->npairs].p_tid = p->tid;
	f->pairs[f->npairs].p_exit = p->exit_ns;
	f->pairs[f->npairs].v_tid = v ? v->tid : 0;
	f->pairs[f->npairs].v_ts = v ? v->ts : 0;
	f->pairs[f->npairs].v_ta = v ? v->ta : 0;
	f->npairs++;
}

static inline void on_episode(void *ctx, const struct ph_episode *ep)
{
	struct fixture *f = ctx;
	__u32 i;

	for (i = 0; i < ep->n && ep->arr[i].tid < 8; i++) {
		f->sync_wait[ep->arr[i].tid] = ep->arr[i].sync_wait_ns;
		f->blocked[ep->arr[i].tid] = ep->arr[i].blocked_ns;
	}
}

static inline void setup(void)
{
	struct phases_ops ops = {.episode = on_episode};
	struct phases_config cfg = {.probes = probes, .nprobes = NPROBES, .start_ns = 1000};

	memset(&fx, 0, sizeof(fx));
	fx.sync = sync__new(probes, NPROBES);
	sync__on_pair(fx.sync, on_pair, &fx);
	cfg.sync = fx.sync;
	fx.ph = phases__new(&cfg, &ops, &fx);
}

/* As setup(), approximating with the given probe costs, and those
 * calibrated during the session (series: may be NULL). The hand-off
 * models alone, checked record by record: no condvar or semaphore is
 * classified as a barrier (records would be held back meanwhile). */
static inline void setup_approx_with(const __u64 *a_in, const __u64 *a_out, int model,
				     const struct alpha_series *series, int least_handoffs,
				     __u64 inject_ns)
{
	struct phases_ops ops = {.episode = on_episode};
	struct phases_config cfg = {.probes = probes,
				    .nprobes = NPROBES,
				    .start_ns = 1000,
				    .alpha_enter = a_in,
				    .alpha_exit = a_out,
				    .alpha_series = series,
				    .model = model,
				    .least_handoffs = least_handoffs,
				    .inject_ns = inject_ns,
				    .no_sync_barriers = 1};

	memset(&fx, 0, sizeof(fx));
	fx.sync = sync__new(probes, NPROBES);
	sync__on_pair(fx.sync, on_pair, &fx);
	cfg.sync = fx.sync;
	fx.ph = phases__new(&cfg, &ops, &fx);
}

static inline void setup_approx_series(const __u64 *a_in, const __u64 *a_out, int model,
				       const struct alpha_series *series)
{
	setup_approx_with(a_in, a_out, model, series, 0, 0);
}

static inline void setup_approx(const __u64 *a_in, const __u64 *a_out, int model)
{
	setup_approx_series(a_in, a_out, model, NULL);
}

/* The approximated time of thread tid's latest event. */
static inline __u64 ta_of(__u32 tid)
{
	size_t i;

	for (i = 0; i < phases__nthreads(fx.ph); i++)
		if (phases__thread(fx.ph, i)->tid == tid)
			return phases__thread(fx.ph, i)->ta_prev;
	return 0;
}

static inline void teardown(void)
{
	phases__finish(fx.ph);
	phases__free(fx.ph);
	sync__free(fx.sync);
}

static inline void ev(__u16 type, __u16 probe, __u32 tid, __u64 ts, __u64 obj, __u64 site)
{
	struct sbt_event e = sbt_event_make(type, probe, PID, tid, ts, obj, site);

	CHECK_EQ(phases__feed(fx.ph, &e), 0);
}

static inline void call(__u16 probe, __u32 tid, __u64 t0, __u64 t1, __u64 obj, __u64 ret)
{
	ev(SBT_EV_ENTER, probe, tid, t0, obj, 0);
	ev(SBT_EV_EXIT, probe, tid, t1, ret, SITE);
}

static inline void futex_wait(__u32 tid, __u64 t0, __u64 t1, __u64 uaddr, __s64 ret)
{
	ev(SBT_EV_FUTEX_ENTER, 0, tid, t0, uaddr, FUTEX_WAIT_PRIVATE);
	ev(SBT_EV_FUTEX_EXIT, 0, tid, t1, (__u64)ret, 0);
}

static inline const struct sync_obj *only(int kind)
{
	CHECK_EQ(sync__count(fx.sync, kind), 1);
	return sync__obj(fx.sync, kind, 0);
}

static inline const struct sync_share *share(const struct sync_obj *o, __u32 tid)
{
	__u32 i;

	for (i = 0; i < o->nthreads; i++)
		if (o->threads[i].tid == tid)
			return &o->threads[i];
	return NULL;
}

#endif
