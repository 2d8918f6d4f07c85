// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fork-join steps (analyses/forkjoin.h; doc/design.md §5.1, Fork-join steps).
 */
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "lib/hmap.h"
#include "analyses/forkjoin.h"

/* The ended groups a watched creator holds before its first join; past
 * this many it is taken for one that never joins (detached threads). */
#define FJ_HELD_MAX 64

/* A thread of a step, while it lives. */
struct fj_member {
	struct fj_step *step;
	__u64 start_ns;
};

struct forkjoin {
	struct hmap creators; /* (tid, pid) -> index into list */
	struct hmap members;  /* tid -> struct fj_member */
	struct fj_creator **list;
	size_t n, cap;
};

struct forkjoin *forkjoin__new(void)
{
	struct forkjoin *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	hmap_init(&f->creators);
	hmap_init(&f->members);
	return f;
}

/* Each step still open is held by its members, or by its creator alone
 * (current, no thread alive). */
static void free_open_steps(struct forkjoin *f)
{
	const struct hmap_slot *sl;
	size_t pos = 0, i;

	for (i = 0; i < f->n; i++) {
		struct fj_creator *c = f->list[i];

		if (c->current && !c->current->live)
			free(c->current);
		while (c->nheld)
			free(c->held[--c->nheld]);
		free(c->held);
	}
	while ((sl = hmap_next(&f->members, &pos))) {
		struct fj_step *s = ((struct fj_member *)sl->val)->step;

		if (--s->live == 0)
			free(s);
	}
}

void forkjoin__free(struct forkjoin *f)
{
	size_t i;

	if (!f)
		return;
	free_open_steps(f);
	for (i = 0; i < f->n; i++)
		free(f->list[i]);
	free(f->list);
	hmap_free(&f->creators);
	hmap_free_values(&f->members);
	free(f);
}

static struct fj_creator *find_creator(const struct forkjoin *f, __u32 pid, __u32 tid)
{
	size_t ix;

	return hmap_get_index(&f->creators, tid, pid, &ix) ? f->list[ix] : NULL;
}

static struct fj_creator *creator_of(struct forkjoin *f, __u32 pid, __u32 tid)
{
	struct fj_creator *c = find_creator(f, pid, tid);

	if (c)
		return c;
	if (array_reserve((void **)&f->list, &f->cap, f->n + 1, sizeof(*f->list)))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (hmap_put_index(&f->creators, tid, pid, f->n)) {
		free(c);
		return NULL;
	}
	c->pid = pid;
	c->tid = tid;
	f->list[f->n++] = c;
	return c;
}

/* The step a creation of c at ts goes to: its current one, or a new one
 * (none current: after a join; for a creator not seen joining, after its
 * threads ended, forkjoin__exit()). */
static struct fj_step *step_for(struct fj_creator *c, __u64 ts, __u64 ta)
{
	struct fj_step *s = c->current;

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->index = c->steps + c->lone + c->open_steps++;
	s->start_ns = ts;
	s->start_a = ta;
	s->creator = c;
	c->current = s;
	return s;
}

void forkjoin__start(struct forkjoin *f, __u32 pid, __u32 creator, __u32 tid, __u64 ts, __u64 ta,
		     int watched)
{
	struct fj_creator *c;
	struct fj_member *m;
	struct fj_step *s;

	if (!f || tid == pid)
		return;
	/* a recycled id whose exit was lost: the old thread was gone by now */
	forkjoin__exit(f, tid, ts, ta);
	c = creator_of(f, pid, creator ? creator : pid);
	if (c && !c->steps && !c->lone && !c->open_steps)
		c->watched = watched; /* its first creation */
	s = c ? step_for(c, ts, ta) : NULL;
	if (!s || !(m = hmap_put_new(&f->members, tid, 0, sizeof(*m))))
		return;
	m->step = s;
	m->start_ns = ts;
	c->last_create = ts;
	c->live++;
	s->live++;
	s->threads++;
}

static void close_step(struct fj_creator *c, struct fj_step *s);

/* c's current step takes no more creations: closed now if none of its
 * threads is alive, else by the last one's exit. */
static void end_creations(struct fj_creator *c)
{
	struct fj_step *s = c->current;

	c->current = NULL;
	if (s && !s->live)
		close_step(c, s);
}

/* b's threads into a, both c's steps; b, ended, is freed. */
static void merge_step(struct fj_creator *c, struct fj_step *a, struct fj_step *b)
{
	if (b->start_ns < a->start_ns) {
		a->start_ns = b->start_ns;
		a->start_a = b->start_a;
		a->index = b->index;
	}
	if (b->end_ns >= a->end_ns) {
		a->end_ns = b->end_ns;
		a->last_tid = b->last_tid;
	}
	if (b->end_a > a->end_a)
		a->end_a = b->end_a;
	if (!a->first_tid || (b->first_tid && b->first_exit < a->first_exit)) {
		a->first_exit = b->first_exit;
		a->first_tid = b->first_tid;
	}
	a->threads += b->threads;
	a->run_sum_ns += b->run_sum_ns;
	if (b->run_max_ns > a->run_max_ns)
		a->run_max_ns = b->run_max_ns;
	a->exit_sum += b->exit_sum;
	c->open_steps--;
	free(b);
}

/* A watched creator's first join: the groups it held and its current one
 * were one step, its creations before the join. */
static void merge_held(struct fj_creator *c)
{
	__u32 i = 0;

	if (!c->nheld)
		return;
	if (!c->current)
		c->current = c->held[i++];
	for (; i < c->nheld; i++)
		merge_step(c, c->current, c->held[i]);
	c->nheld = 0;
}

/* The groups c held are steps of their own. */
static void close_held(struct fj_creator *c)
{
	__u32 i;

	for (i = 0; i < c->nheld; i++)
		close_step(c, c->held[i]);
	c->nheld = 0;
}

void forkjoin__waited(struct forkjoin *f, __u32 pid, __u32 tid)
{
	struct fj_creator *c = f ? find_creator(f, pid, tid) : NULL;

	if (c && !c->joins)
		close_held(c);
}

/* A watched creator's current step ended before any join: held, its
 * creations may go on; one group more than FJ_HELD_MAX and it is taken for
 * one that never joins (every group a step of its own from then on). */
static void hold_step(struct fj_creator *c)
{
	struct fj_step *s = c->current;

	if (c->nheld == FJ_HELD_MAX ||
	    array_reserve((void **)&c->held, &c->cap_held, c->nheld + 1, sizeof(*c->held))) {
		close_held(c);
		c->watched = 0;
		end_creations(c);
		return;
	}
	c->held[c->nheld++] = s;
	c->current = NULL;
}

void forkjoin__join(struct forkjoin *f, __u32 pid, __u32 tid, __u64 ts)
{
	struct fj_creator *c = f ? creator_of(f, pid, tid) : NULL;
	struct fj_step *s;

	if (!c)
		return;
	if (!c->joins)
		merge_held(c);
	s = c->current;
	/* from its first join on, its joins end its steps' creations (a
	 * creator attached to joins threads created before the probes
	 * went in) */
	c->joins++;
	/* its own work after its last creation, before its first join, in
	 * every step (SPLASH's way with two threads is a worker alone in its
	 * step beside the main thread, closed at its exit before a creator is
	 * seen joining) */
	if (c->last_create && ts > c->last_create) {
		c->creator_ns += ts - c->last_create;
		if (s)
			s->creator_ns = ts - c->last_create;
	}
	c->last_create = 0;
	end_creations(c);
}

void forkjoin__finish(struct forkjoin *f)
{
	size_t i;

	for (i = 0; f && i < f->n; i++) {
		close_held(f->list[i]);
		if (f->list[i]->current && !f->list[i]->current->live)
			end_creations(f->list[i]);
	}
}

/* The step's worst-kept list, the most idle first. */
static void keep_worst(struct fj_creator *c, const struct fj_step *s)
{
	__u32 i;

	if (c->nworst == FJ_WORST_KEPT && c->worst[FJ_WORST_KEPT - 1].idle_ns >= s->idle_ns)
		return;
	i = c->nworst < FJ_WORST_KEPT ? c->nworst++ : FJ_WORST_KEPT - 1;
	while (i > 0 && c->worst[i - 1].idle_ns < s->idle_ns) {
		c->worst[i] = c->worst[i - 1];
		i--;
	}
	c->worst[i] = *s;
}

/* The step's last thread exited and its creator creates no more in it:
 * its figures go into its creator's. */
static void close_step(struct fj_creator *c, struct fj_step *s)
{
	c->open_steps--;
	if (s->threads < 2) {
		c->lone++;
	} else {
		s->idle_ns = (__u64)s->threads * s->end_ns - s->exit_sum;
		c->steps++;
		c->threads += s->threads;
		c->span_ns += s->end_ns - s->start_ns;
		c->span_a_ns += s->end_a > s->start_a ? s->end_a - s->start_a : 0;
		c->run_sum_ns += s->run_sum_ns;
		c->mean_sum_ns += s->run_sum_ns / s->threads;
		c->max_sum_ns += s->run_max_ns;
		c->idle_ns += s->idle_ns;
		keep_worst(c, s);
	}
	free(s);
}

void forkjoin__exit(struct forkjoin *f, __u32 tid, __u64 ts, __u64 ta)
{
	struct fj_member *m = f ? hmap_del(&f->members, tid, 0) : NULL;
	struct fj_creator *c;
	struct fj_step *s;
	__u64 run;

	if (!m)
		return;
	s = m->step;
	c = s->creator;
	run = ts > m->start_ns ? ts - m->start_ns : 0;
	free(m);
	s->run_sum_ns += run;
	if (run > s->run_max_ns)
		s->run_max_ns = run;
	if (!s->first_tid || ts < s->first_exit) {
		s->first_exit = ts;
		s->first_tid = tid;
	}
	if (ts >= s->end_ns) {
		s->end_ns = ts;
		s->last_tid = tid;
	}
	if (ta > s->end_a)
		s->end_a = ta;
	s->exit_sum += ts;
	c->live--;
	if (--s->live)
		return;
	/* the creator may create more in its current step until it joins;
	 * one not seen joining (detached threads, no join probe, a creation
	 * before the probes went in), a step ends with its threads */
	if (s != c->current)
		close_step(c, s);
	else if (!c->joins && c->watched)
		hold_step(c);
	else if (!c->joins)
		end_creations(c);
}

size_t forkjoin__ncreators(const struct forkjoin *f)
{
	return f ? f->n : 0;
}

const struct fj_creator *forkjoin__creator(const struct forkjoin *f, size_t i)
{
	return f && i < f->n ? f->list[i] : NULL;
}

__u64 forkjoin__steps(const struct forkjoin *f)
{
	__u64 n = 0;
	size_t i;

	for (i = 0; f && i < f->n; i++)
		n += f->list[i]->steps;
	return n;
}

__u64 forkjoin__running(const struct forkjoin *f)
{
	__u64 n = 0;
	size_t i;

	for (i = 0; f && i < f->n; i++)
		n += f->list[i]->live;
	return n;
}

double fj_creator_balance(const struct fj_creator *c)
{
	return c->max_sum_ns ? (double)c->mean_sum_ns / (double)c->max_sum_ns : 0.0;
}
