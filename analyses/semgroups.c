// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Release groups of semaphores (analyses/semgroups.h, doc/design.md §5.1).
 * The shapes looked for are the textbook barriers made of semaphores:
 *
 *   lock; if (++count == n) { count = 0; unlock; post n - 1 times; }
 *         else { unlock; wait; }            (Pacheco's pth_sem_bar)
 *   lock; if (++count == n) post n times; unlock; wait;
 *                                           (the preloaded turnstile)
 *
 * where the last thread to count itself in posts a burst that releases the
 * others: a group is that burst and the waits that take its posts.
 */
#include <stdlib.h>
#include <string.h>
#include "analyses/semgroups.h"
#include "lib/array.h"
#include "lib/hmap.h"

struct sg_member {
	__u32 tid;
	__u8 waiting; /* in a wait of the group now */
	__u8 took;    /* a wait of it took a post of the group */
};

struct sg_sem {
	__u32 pid;
	__u64 addr;
	__u64 seq; /* the current group; 0: none yet */
	__u64 posts, taken, release_ns;
	__u32 poster;
	int bursting; /* the poster's latest semaphore call is a post of the
		       * group, its burst not over (semgroups__burst_over) */
	__u32 waited_before, unexplained;
	__u32 prev_team; /* of the group before the current one */
	struct sg_member *mem;
	size_t nmem, cap_mem;
	__u32 *next; /* waiting for the next group */
	size_t nnext, cap_next;
};

struct sg_thread {
	struct sg_sem *in; /* the semaphore it waits on (NULL: none) */
	__u64 group;	   /* the group it waits in */
	int trywait;
	__u64 returned_ns;     /* its latest return from a wait on any semaphore */
	struct sg_sem *posted; /* the semaphore of its latest call, if a post */
};

struct semgroups {
	sg_closed_fn closed;
	void *ctx;
	struct hmap sems;    /* (pid, semaphore) -> struct sg_sem */
	struct hmap threads; /* (tid, 0) -> struct sg_thread */
};

struct semgroups *semgroups__new(sg_closed_fn closed, void *ctx)
{
	struct semgroups *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->closed = closed;
	g->ctx = ctx;
	hmap_init(&g->sems);
	hmap_init(&g->threads);
	return g;
}

void semgroups__free(struct semgroups *g)
{
	const struct hmap_slot *slot;
	size_t pos = 0;

	if (!g)
		return;
	while ((slot = hmap_next(&g->sems, &pos))) {
		struct sg_sem *s = slot->val;

		free(s->mem);
		free(s->next);
	}
	hmap_free_values(&g->sems);
	hmap_free_values(&g->threads);
	free(g);
}

static struct sg_sem *sem_of(struct semgroups *g, __u32 pid, __u64 addr)
{
	struct sg_sem *s = hmap_get(&g->sems, pid, addr);

	if (s)
		return s;
	s = hmap_put_new(&g->sems, pid, addr, sizeof(*s));
	if (s) {
		s->pid = pid;
		s->addr = addr;
	}
	return s;
}

static struct sg_thread *thread_of(struct semgroups *g, __u32 tid)
{
	struct sg_thread *t = hmap_get(&g->threads, tid, 0);

	return t ? t : hmap_put_new(&g->threads, tid, 0, sizeof(*t));
}

static struct sg_member *member(struct sg_sem *s, __u32 tid)
{
	size_t i;

	for (i = 0; i < s->nmem; i++)
		if (s->mem[i].tid == tid)
			return &s->mem[i];
	return NULL;
}

static struct sg_member *add_member(struct sg_sem *s, __u32 tid)
{
	struct sg_member *m;

	if (array_reserve((void **)&s->mem, &s->cap_mem, s->nmem + 1, sizeof(*m)))
		return NULL;
	m = &s->mem[s->nmem++];
	memset(m, 0, sizeof(*m));
	m->tid = tid;
	return m;
}

/* Posts of the current group no wait has taken or is about to take. */
static __s64 untaken(const struct sg_sem *s)
{
	__s64 n = (__s64)s->posts - (__s64)s->taken;
	size_t i;

	for (i = 0; i < s->nmem; i++)
		n -= s->mem[i].waiting;
	return n;
}

/* The current group of s, to the closed callback. */
static void close_group(struct semgroups *g, struct sg_sem *s)
{
	struct sg_group grp = {
		.seq = s->seq,
		.poster = s->poster,
		.posts = s->posts,
		.taken = s->taken,
		.waited_before = s->waited_before,
		.unexplained = s->unexplained,
	};
	__u32 *team;
	size_t i;

	if (!g->closed || !s->seq)
		return;
	team = malloc((s->nmem + 1) * sizeof(*team));
	if (!team)
		return;
	for (i = 0; i < s->nmem; i++) {
		team[i] = s->mem[i].tid;
		grp.still_waiting += s->mem[i].waiting;
	}
	qsort(team, s->nmem, sizeof(*team), array_cmp_u32);
	grp.team = team;
	grp.nteam = (__u32)s->nmem;
	g->closed(g->ctx, s->pid, s->addr, &grp);
	free(team);
}

static int waiting_next(const struct sg_sem *s, __u32 tid)
{
	size_t i;

	for (i = 0; i < s->nnext; i++)
		if (s->next[i] == tid)
			return 1;
	return 0;
}

/* Threads of the current group still in their wait when the next begins:
 * their post went to another (one that waited since before the session),
 * they wait for the next group. */
static void carry_over_waiters(struct semgroups *g, struct sg_sem *s)
{
	size_t i;

	for (i = 0; i < s->nmem; i++) {
		struct sg_thread *t = hmap_get(&g->threads, s->mem[i].tid, 0);

		if (!s->mem[i].waiting || waiting_next(s, s->mem[i].tid) ||
		    array_reserve((void **)&s->next, &s->cap_next, s->nnext + 1, sizeof(__u32)))
			continue;
		s->next[s->nnext++] = s->mem[i].tid;
		if (t && t->in == s)
			t->group = s->seq + 1;
	}
}

/* A post by tid at ts begins group seq + 1: the threads waiting for it
 * are its first members. */
static void begin_group(struct semgroups *g, struct sg_sem *s, __u32 tid, __u64 ts)
{
	size_t i;

	close_group(g, s);
	carry_over_waiters(g, s);
	s->prev_team = (__u32)s->nmem;
	s->seq++;
	s->nmem = 0;
	s->posts = s->taken = 0;
	s->unexplained = 0;
	s->waited_before = (__u32)s->nnext;
	s->release_ns = ts;
	s->poster = tid;
	for (i = 0; i < s->nnext; i++) {
		struct sg_member *m = add_member(s, s->next[i]);

		if (m)
			m->waiting = 1;
	}
	s->nnext = 0;
	add_member(s, tid);
}

/* The arrivals group seq of s waits for (sg_step.expect). */
static __u32 team_expected(const struct sg_sem *s, __u64 seq)
{
	__s64 left;

	if (seq != s->seq)
		return (__u32)s->nmem; /* the next group's: this one's team */
	if (s->prev_team)
		return s->prev_team;
	/* while its poster may still post, one more waiter may come */
	left = untaken(s);
	return (__u32)s->nmem + (__u32)(left > 0 ? left : 0) + !!s->bursting;
}

__u64 semgroups__burst_over(struct semgroups *g, __u32 pid, __u64 sem, __u32 tid, __u32 *expect)
{
	struct sg_sem *s = hmap_get(&g->sems, pid, sem);

	if (!s || !s->seq || !s->bursting || s->poster != tid)
		return 0;
	s->bursting = 0;
	*expect = team_expected(s, s->seq);
	return s->seq;
}

static void post_entered(struct semgroups *g, struct sg_sem *s, const struct sbt_event *e,
			 struct sg_step *st)
{
	int burst = s->seq && s->poster == e->tid && s->bursting && !s->nnext;

	if (!burst) {
		st->closed = s->seq;
		begin_group(g, s, e->tid, e->ts);
		st->arrives = 1;
	}
	s->posts++;
	s->bursting = 1;
	st->group = s->seq;
	st->release_ns = s->release_ns;
	st->expect = team_expected(s, s->seq);
}

/* Whether the current group may still give a post to one more wait: one
 * is left untaken, or its poster is still posting, so more may come. A
 * waiter preempted between counting itself in and its wait can reach the
 * wait in the middle of the burst, after the posts for the threads already
 * waiting and before its own. */
static int post_left(const struct sg_sem *s)
{
	return untaken(s) > 0 || s->bursting;
}

/* Whether a wait by tid entered now takes a post of the current group: a
 * post is left (or may come), and tid is its poster (which waits too), or
 * a thread of the previous group's team not in this one yet (it counted
 * itself in before the last thread but reached its wait after the first
 * post). Posts left over the first group may have gone to threads that
 * waited since before the session: a wait after them is for the next
 * group. */
static int joins_current(const struct sg_sem *s, const struct sg_member *m,
			 const struct sg_thread *t)
{
	if (!s->seq || !post_left(s))
		return 0;
	if (m)
		return !m->took && !m->waiting;
	/* no team known yet: a thread that has not come back from a wait
	 * since the burst began (one that had waited before the session
	 * has) */
	if (!s->prev_team)
		return t->returned_ns < s->release_ns;
	return s->nmem < s->prev_team;
}

static void wait_entered(struct sg_sem *s, struct sg_thread *t, const struct sbt_event *e,
			 struct sg_step *st)
{
	struct sg_member *m = member(s, e->tid);

	if (m && s->poster == e->tid)
		s->bursting = 0;
	if (joins_current(s, m, t)) {
		/* a post of the current group is left for it */
		st->arrives = !m;
		if (!m)
			m = add_member(s, e->tid);
		if (m)
			m->waiting = 1;
		t->group = s->seq;
		st->release_ns = s->release_ns;
		st->expect = team_expected(s, s->seq);
	} else {
		st->arrives = 1;
		if (!waiting_next(s, e->tid) &&
		    !array_reserve((void **)&s->next, &s->cap_next, s->nnext + 1, sizeof(__u32)))
			s->next[s->nnext++] = e->tid;
		t->group = s->seq + 1;
		st->expect = team_expected(s, t->group);
	}
	st->group = t->group;
}

/* Thread t, tid, calls semaphore s: a burst of posts it made on another
 * one is over. Without this, a poster's burst went on until its next call
 * on the same semaphore: in a barrier whose semaphores take turns, the
 * same last thread two episodes apart, with every waiter late, continued
 * the older burst. */
static void ends_other_burst(struct sg_thread *t, const struct sg_sem *s, __u32 tid)
{
	if (t->posted && t->posted != s && t->posted->poster == tid)
		t->posted->bursting = 0;
	t->posted = NULL;
}

void semgroups__enter(struct semgroups *g, const struct sbt_event *e, int kind, __u64 sem,
		      struct sg_step *st)
{
	struct sg_sem *s = sem_of(g, e->pid, sem);
	struct sg_thread *t = thread_of(g, e->tid);

	memset(st, 0, sizeof(*st));
	if (!s || !t)
		return;
	st->sem = sem;
	ends_other_burst(t, s, e->tid);
	if (kind == SBT_PK_SEM_POST) {
		post_entered(g, s, e, st);
		t->posted = s;
		return;
	}
	t->in = s;
	t->trywait = kind == SBT_PK_SEM_TRYWAIT;
	if (t->trywait) {
		if (s->poster == e->tid)
			s->bursting = 0;
		t->group = s->seq;
		st->group = s->seq;
		return;
	}
	wait_entered(s, t, e, st);
}

static void drop_next(struct sg_sem *s, __u32 tid)
{
	size_t i;

	for (i = 0; i < s->nnext; i++) {
		if (s->next[i] == tid) {
			s->next[i] = s->next[--s->nnext];
			return;
		}
	}
}

/* A wait of the current group returned; took: with a post. */
static void member_returned(struct sg_sem *s, __u32 tid, int took)
{
	struct sg_member *m = member(s, tid);

	if (m)
		m->waiting = 0;
	if (!took)
		return;
	if (m)
		m->took = 1;
	if (s->taken >= s->posts)
		s->unexplained++;
	else
		s->taken++;
}

/* A trywait that took a post: of the current group if one is left. */
static void trywait_took(struct sg_sem *s, __u32 tid)
{
	struct sg_member *m = member(s, tid);

	if (s->seq && untaken(s) > 0 && !(m && m->took)) {
		if (!m)
			m = add_member(s, tid);
		member_returned(s, tid, 1);
	} else if (s->seq) {
		s->unexplained++;
	}
}

void semgroups__exit(struct semgroups *g, const struct sbt_event *e, int kind, struct sg_step *st)
{
	struct sg_thread *t = kind == SBT_PK_SEM_POST ? NULL : thread_of(g, e->tid);
	struct sg_sem *s = t ? t->in : NULL;
	int took = (int)e->obj == 0; /* an int: the upper bits are garbage */

	memset(st, 0, sizeof(*st));
	if (t)
		t->returned_ns = e->ts;
	if (!s)
		return; /* entered before the session */
	t->in = NULL;
	st->sem = s->addr;
	st->group = t->group;
	st->unposted = took && !s->seq;
	if (t->trywait) {
		if (took)
			trywait_took(s, e->tid);
	} else if (t->group == s->seq && s->seq) {
		member_returned(s, e->tid, took);
	} else if (t->group == s->seq + 1) {
		/* no post came for it: taken from the value it had before
		 * the trace, else nothing a group explains */
		drop_next(s, e->tid);
		s->unexplained += took && s->seq;
	} else {
		s->unexplained += took; /* its group closed while it waited */
	}
}

void semgroups__close(struct semgroups *g, __u32 pid, __u64 sem)
{
	struct sg_sem *s = hmap_get(&g->sems, pid, sem);

	if (s)
		close_group(g, s);
}
