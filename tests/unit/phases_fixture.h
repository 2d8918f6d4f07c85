/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The barrier streams of the phase-analysis tests (test_episodes.c,
 * test_approx.c): a synthetic probe table, the completed episodes copied
 * out of the callback, and calls fed with their call sites. */
#ifndef SBT_TEST_PHASES_FIXTURE_H
#define SBT_TEST_PHASES_FIXTURE_H

#include <stdlib.h>
#include "analyses/phases.h"
#include "unit.h"

/* Probe ids of the synthetic probe table. */
enum {
	P_NONE,
	P_PBW,
	P_GOMP,
	P_USER,
	P_REGION,
	P_BODY,
	P_KMPC,
	P_LOCK,
	P_UNLOCK,
	P_CWAIT,
	P_SIGNAL,
	P_BCAST,
	P_TASK,
	P_TASKWAIT,
	P_SEMW,
	P_POST,
	P_SEMTRY,
	P_COPY_START,
	P_COPY_END,
	P_REDUCE,
	P_END_REDUCE,
	NPROBES
};

static const struct sbt_probe_info probes[NPROBES] = {
	[P_PBW] = {.id = P_PBW, .kind = SBT_PK_BARRIER, .symbol = "pthread_barrier_wait"},
	[P_GOMP] = {.id = P_GOMP, .kind = SBT_PK_TEAM_BARRIER, .symbol = "GOMP_barrier"},
	[P_USER] = {.id = P_USER, .kind = SBT_PK_BARRIER, .symbol = "my_barrier"},
	[P_REGION] = {.id = P_REGION, .kind = SBT_PK_REGION, .symbol = "GOMP_parallel"},
	/* region bodies: one probe per outlined function; the tests use one
	 * id for several, told apart by the address in the entry record */
	[P_BODY] = {.id = P_BODY, .kind = SBT_PK_REGION_BODY, .symbol = "main._omp_fn.0"},
	[P_KMPC] = {.id = P_KMPC, .kind = SBT_PK_REGION, .symbol = "__kmpc_fork_call"},
	[P_LOCK] = {.id = P_LOCK, .kind = SBT_PK_LOCK, .symbol = "pthread_mutex_lock"},
	[P_UNLOCK] = {.id = P_UNLOCK, .kind = SBT_PK_UNLOCK, .symbol = "pthread_mutex_unlock"},
	[P_CWAIT] = {.id = P_CWAIT, .kind = SBT_PK_COND_WAIT, .symbol = "pthread_cond_wait"},
	[P_SIGNAL] = {.id = P_SIGNAL, .kind = SBT_PK_COND_SIGNAL, .symbol = "pthread_cond_signal"},
	[P_BCAST] = {.id = P_BCAST, .kind = SBT_PK_COND_SIGNAL, .symbol = "pthread_cond_broadcast"},
	[P_TASK] = {.id = P_TASK, .kind = SBT_PK_TASK_NEW, .symbol = "GOMP_task"},
	[P_TASKWAIT] = {.id = P_TASKWAIT, .kind = SBT_PK_TASK_WAIT, .symbol = "GOMP_taskwait"},
	[P_SEMW] = {.id = P_SEMW, .kind = SBT_PK_SEM_WAIT, .symbol = "sem_wait"},
	[P_POST] = {.id = P_POST, .kind = SBT_PK_SEM_POST, .symbol = "sem_post"},
	[P_SEMTRY] = {.id = P_SEMTRY, .kind = SBT_PK_SEM_TRYWAIT, .symbol = "sem_trywait"},
	[P_COPY_START] = {.id = P_COPY_START,
			  .kind = SBT_PK_TEAM_BARRIER,
			  .symbol = "GOMP_single_copy_start"},
	[P_COPY_END] = {.id = P_COPY_END,
			.kind = SBT_PK_TEAM_BARRIER,
			.symbol = "GOMP_single_copy_end"},
	[P_REDUCE] = {.id = P_REDUCE, .kind = SBT_PK_TEAM_BARRIER, .symbol = "__kmpc_reduce"},
	[P_END_REDUCE] = {.id = P_END_REDUCE,
			  .kind = SBT_PK_TEAM_BARRIER,
			  .symbol = "__kmpc_end_reduce"},
};

#define PID	100
#define START	1000
#define SITE_A	0x401000
#define SITE_B	0x402000
#define OBJ_X	0x7000
#define OBJ_Y	0x8000
#define MAX_EPS 64

/* Completed episodes, copied out of the callback. */
struct collected {
	struct ph_episode ep[MAX_EPS];
	struct ph_arrival arr[MAX_EPS][8];
	int n;
	__u32 hang_missing[8];
	int nhang, nmissing, listed_missing;
	__u64 hang_object;
};

static inline void on_episode(void *ctx, const struct ph_episode *ep)
{
	struct collected *c = ctx;

	if (c->n >= MAX_EPS)
		return;
	c->ep[c->n] = *ep;
	memcpy(c->arr[c->n], ep->arr, sizeof(*ep->arr) * (ep->n < 8 ? ep->n : 8));
	c->ep[c->n].arr = c->arr[c->n];
	c->n++;
}

static inline void on_hang(void *ctx, const struct ph_episode *ep, const struct ph_missing *m)
{
	struct collected *c = ctx;
	int i;

	c->nhang++;
	c->hang_object = ep->object;
	c->nmissing = m->n;
	c->listed_missing = m->listed;
	for (i = 0; i < m->listed && i < 8; i++)
		c->hang_missing[i] = m->tids[i];
}

/* Call sites travel in exit records; the tests name them at entry, and the
 * matching exit (innermost call of that thread) carries them. */
static __u64 pending_site[64][8];
static int pending_depth[64];

/* A phase analysis of cfg (probes and start: the fixture's) calling ops
 * with c. */
static inline struct phases *new_phases_ops(struct collected *c, struct phases_config cfg,
					    struct phases_ops ops)
{
	cfg.probes = probes;
	cfg.nprobes = NPROBES;
	cfg.start_ns = START;
	memset(c, 0, sizeof(*c));
	memset(pending_depth, 0, sizeof(pending_depth));
	return phases__new(&cfg, &ops, c);
}

/* A phase analysis of cfg, its episodes and hangs collected into c. */
static inline struct phases *new_phases_with(struct collected *c, struct phases_config cfg)
{
	return new_phases_ops(c, cfg, (struct phases_ops){.episode = on_episode, .hang = on_hang});
}

/* A phase analysis approximating with Malony-Reed at probe costs a_enter,
 * a_exit (per probe id), its episodes and hangs collected into c. */
static inline struct phases *new_phases_mr(struct collected *c, const __u64 *a_enter,
					   const __u64 *a_exit)
{
	return new_phases_with(c, (struct phases_config){.alpha_enter = a_enter,
							 .alpha_exit = a_exit,
							 .model = PH_MODEL_MR});
}

static inline struct phases *new_phases(struct collected *c)
{
	return new_phases_with(c, (struct phases_config){0});
}

static inline void feed(struct phases *p, __u16 type, __u16 probe, __u32 tid, __u64 ts, __u64 obj,
			__u64 site)
{
	struct sbt_event e = sbt_event_make(type, probe, PID, tid, ts, obj, site);

	CHECK_EQ(phases__feed(p, &e), 0);
}

static inline void enter(struct phases *p, __u16 probe, __u32 tid, __u64 ts, __u64 obj, __u64 site)
{
	pending_site[tid % 64][pending_depth[tid % 64]++ % 8] = site;
	feed(p, SBT_EV_ENTER, probe, tid, ts, obj, 0);
}

static inline void leave(struct phases *p, __u16 probe, __u32 tid, __u64 ts, __u64 ret)
{
	/* a return whose entry the test did not make (attached mid-call): no site */
	__u64 site = pending_depth[tid % 64] > 0
			     ? pending_site[tid % 64][--pending_depth[tid % 64] % 8]
			     : 0;

	feed(p, SBT_EV_EXIT, probe, tid, ts, ret, site);
}

#define BODY_RET 0x7f0000001234 /* where region and task bodies return, in the runtime */

/* Body fn (outlined function) entered by tid at ts: the record carries its
 * return address as object, its address as site. */
static inline void body_in(struct phases *p, __u32 tid, __u64 ts, __u64 fn)
{
	pending_site[tid % 64][pending_depth[tid % 64]++ % 8] = 0x400000; /* its return */
	feed(p, SBT_EV_ENTER, P_BODY, tid, ts, BODY_RET, fn);
}

static inline void body_out(struct phases *p, __u32 tid, __u64 ts)
{
	leave(p, P_BODY, tid, ts, 0);
}

static inline const struct ph_arrival *arrival_of(const struct ph_episode *ep, __u32 tid)
{
	__u32 i;

	for (i = 0; i < ep->n; i++)
		if (ep->arr[i].tid == tid)
			return &ep->arr[i];
	return NULL;
}

/* Thread tid of the analysis, or NULL. */
static inline const struct ph_thread *thread_of(const struct phases *p, __u32 tid)
{
	size_t i;

	for (i = 0; i < phases__nthreads(p); i++)
		if (phases__thread(p, i)->tid == tid)
			return phases__thread(p, i);
	return NULL;
}

#endif
