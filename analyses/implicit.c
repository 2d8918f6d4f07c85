// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Implicit barriers of OpenMP parallel regions (doc/design.md §5.1). Neither
 * runtime exports the barrier that ends a parallel region or a combined
 * `parallel for`; what the probes see is:
 *
 *   the region frame (GOMP_parallel*, __kmpc_fork_call), entered by the
 *     master with the address of the region body (the compiler-outlined
 *     function) in its entry record: the fork of one *instance*;
 *   the body's entry in each thread of the team (its address in the
 *     record): the thread's share begins, as if it left the fork;
 *   the body's return: the thread arrives at the implicit barrier;
 *   the frame's return in the master: every thread of the team has
 *     arrived, the instance is released.
 *
 * An instance is an episode like any barrier's, its object the body's
 * address (so a region is one site across its instances), its key in the
 * open episodes the instance. A body entered where no frame forked it (a
 * gcc task body, which has the same names; a body of a region forked before
 * the session) starts nothing.
 */
#include <stdlib.h>
#include "analyses/phases_impl.h"

/* The latest instance forked with a body, per process. */
struct ph_body {
	__u64 inst;
	__u64 fork_tm, fork_ta; /* the fork: the master's entry into the frame */
	__u16 fork_probe;
	__u64 armed_ns; /* its probe went in then (found while tracing), else 0 */
	__u32 running;	/* its instances forked and not released */
};

/* An instance of body b forked at fork_ts began before b's probe went in:
 * some shares may have started unseen (late_bodies.h). */
static int forked_unprobed(const struct ph_body *b, __u64 fork_ts)
{
	return b && fork_ts < b->armed_ns;
}

static struct ph_body *body_of(struct phases *p, __u32 pid, __u64 addr)
{
	struct ph_body *b = hmap_get(&p->bodies, pid, addr);

	return b ? b : hmap_put_new(&p->bodies, pid, addr, sizeof(*b));
}

/* Instance keys: above any object address (user space ends below 2^47). */
#define INSTANCE_KEY(n) ((1ull << 63) | (n))

void implicit__fork(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e)
{
	struct ph_body *b = e->obj ? body_of(p, e->pid, e->obj) : NULL;

	if (!b)
		return;
	b->running++;
	b->inst = INSTANCE_KEY(++p->instances);
	b->fork_tm = e->ts;
	b->fork_ta = t->stack[d].ta;
	b->fork_probe = e->probe;
	t->stack[d].inst = b->inst;
}

/* A body probe that went in while tracing (a stripped binary's: see
 * late_bodies.h) counts from e->ts on: an instance forked before it may have
 * shares that started unseen. */
void implicit__armed(struct phases *p, const struct sbt_event *e)
{
	struct ph_body *b = body_of(p, e->pid, e->obj);

	if (b)
		b->armed_ns = e->ts;
}

int implicit__unprobed(const struct phases *p, const struct ph_thread *t, int d)
{
	const struct ph_body *b = hmap_get(&p->bodies, t->pid, t->stack[d].obj);

	return forked_unprobed(b, t->stack[d].ts);
}

/* The instance thread t (about to push its frame at depth d) starts a share
 * of with the body entry e (site: the body's address); 0: none. The master
 * runs the body inside the frame that forked it, a worker from the
 * runtime's thread loop, with nothing probed on its stack, while an
 * instance of the body runs: with none, the body is called outside any
 * fork (clang's region serialized by if(): __kmpc_serialized_parallel, then
 * the body called directly), a team of one, no barrier. */
__u64 implicit__instance_of(const struct phases *p, const struct ph_thread *t, int d,
			    const struct sbt_event *e)
{
	const struct ph_body *b = hmap_get(&p->bodies, e->pid, e->site);

	if (d > 0 && d <= t->stack_cap) {
		if (p->cfg.probes[t->stack[d - 1].probe].kind == SBT_PK_REGION &&
		    t->stack[d - 1].obj == e->site && !forked_unprobed(b, t->stack[d - 1].ts))
			return t->stack[d - 1].inst;
		return 0;
	}
	return d == 0 && b && b->running && !forked_unprobed(b, b->fork_tm) ? b->inst : 0;
}

/* Fork hand-off (Malony-Reed §3.2.2): a worker starts its share at the
 * master's approximated fork plus the measured fork latency, less the cost
 * of the master's probe on the frame, which delayed the fork; never before
 * its own previous event, never later than its own time-based time. Runs
 * before the entry is approximated. */
void implicit__before_body(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	const struct ph_body *b = hmap_get(&p->bodies, e->pid, e->site);
	__u64 ta;

	if (!b || !b->inst || t->depth || !approx__event_based(p) || e->ts < b->fork_tm ||
	    forked_unprobed(b, b->fork_tm))
		return;
	ta = b->fork_ta + sub0(e->ts - b->fork_tm, approx__alpha(p, b->fork_probe, 0, b->fork_tm));
	if (ta >= t->ta_prev && ta < approx__time_based(t, e->ts))
		approx__rebase(p, t, e->ts, ta);
}

/* The thread's share begins: its phase starts here (its wait in the
 * runtime's pool before it is no compute), as at a barrier departure. */
void implicit__body(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e)
{
	__u64 inst = implicit__instance_of(p, t, d, e);
	const struct ph_body *b;

	if (!inst)
		return;
	/* a worker's share while two teams run its body at once (regions
	 * forked by several threads, nested active levels) is matched to the
	 * latest fork: the teams' implicit barriers may mix; said */
	b = d == 0 ? hmap_get(&p->bodies, e->pid, e->site) : NULL;
	if (b && b->running > 1)
		p->concurrent_forks++;
	t->stack[d].inst = inst;
	t->had_share = 1;
	t->last_depart = e->ts;
	t->ta_depart = t->stack[d].ta;
	t->sync_mark = t->sync_wait_ns;
	t->ctr_target = CTR_DEPARTURE;
}

void implicit__arrive(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e)
{
	__u64 body = t->stack[d].arg2; /* the entry's site: the body's address */

	if (t->stack[d].inst)
		episodes__arrive(p, t, e, t->stack[d].inst, body);
}

/* A region body that ends by jumping to a barrier (`jmp GOMP_barrier`: a
 * tail call) leaves no return address of its own: the barrier returns where
 * the body would, into the runtime, and every such barrier of every region
 * would be one site there. The body's entry recorded its return address: a
 * barrier returning there was tail-called, and its site is the body. */
__u64 implicit__barrier_site(const struct phases *p, const struct ph_thread *t, int d,
			     const struct sbt_event *e)
{
	if (d > 0 && d <= t->stack_cap &&
	    p->cfg.probes[t->stack[d - 1].probe].kind == SBT_PK_REGION_BODY &&
	    t->stack[d - 1].obj == e->site)
		return t->stack[d - 1].arg2; /* the body's own address */
	return e->site;
}

/* The team has arrived: each thread leaves at the release, the master
 * first (the record is its). The region's call site is the site of all. */
void implicit__release(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e)
{
	struct ph_episode *ep =
		t->stack[d].inst ? hmap_get(&p->open, e->pid, t->stack[d].inst) : NULL;
	struct ph_body *b = t->stack[d].inst ? hmap_get(&p->bodies, e->pid, t->stack[d].obj) : NULL;
	struct ph_thread **team;
	__u32 i, n = 0;

	if (b && b->running)
		b->running--;
	if (!ep)
		return;
	team = malloc((ep->n + 1) * sizeof(*team));
	if (!team)
		return;
	if (t->waiting == ep)
		team[n++] = t;
	/* settling the last one completes and frees the episode: the team is
	 * collected before */
	for (i = 0; i < ep->n; i++) {
		struct ph_thread *w = hmap_get(&p->threads, ep->arr[i].tid, 0);

		if (w && w != t && w->waiting == ep)
			team[n++] = w;
	}
	for (i = 0; i < n; i++)
		episodes__settle(p, team[i], e->ts, 0, e->site, 0);
	free(team);
}
