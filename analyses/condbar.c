// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Condvar barriers recognized from the records (analyses/condbar.h,
 * doc/design.md §5.1). The shape looked for is the one pthreads codes write
 * (Splash-3's BARRIER macro, textbook barriers with a generation count):
 *
 *   lock(m); count++;
 *   if (count < n) while (same generation) cond_wait(cv, m);
 *   else { count = 0; generation++; cond_broadcast(cv); }
 *   unlock(m);
 *
 * A *group* is one broadcast and the threads waiting on the condvar when it
 * came: the team of one episode, its last arrival the broadcaster. A
 * barrier's last arrival changes from episode to episode; a producer that
 * broadcasts to consumers all idle makes the same groups but is always the
 * broadcaster: a condvar is a barrier once its broadcaster changed. After
 * SAME_LAST_MAX groups without, it is one only where unlocks are probed and
 * its waiters unlocked the mutex after their waits (a consumer woken to an
 * empty queue waits again first, and is ruled out then): a barrier whose
 * last thread never changes, a load imbalance that stays, is found there;
 * without unlocks it is not, and is said to be ambiguous
 * (condbar__same_broadcaster()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/condbar.h"
#include "lib/array.h"
#include "lib/hmap.h"

enum cb_state { CB_UNSEEN, CB_PENDING, CB_BARRIER, CB_NOT };

/* Consecutive groups with the same team and the same broadcaster before a
 * condvar is ruled out: a producer releasing idle consumers. */
#define SAME_LAST_MAX 8

struct cb_cond {
	int state;
	int groups;	/* consecutive groups with the same team */
	int rebased;	/* the first group was a subset of the second (attach) */
	int rotated;	/* two of those groups had different broadcasters */
	int same_last;	/* ruled out after SAME_LAST_MAX groups, one broadcaster */
	__u64 unlocked; /* waits after which the waiter unlocked the mutex */
	__u32 last;	/* the broadcaster of the first of them */
	__u64 mutex;
	__u32 *waiters; /* in cond_wait now */
	size_t nwait, cap_wait;
	__u32 *team; /* the last group, sorted */
	size_t nteam;
	struct cb_cond *next_pending; /* condbar.pending */
};

struct cb_thread {
	__u64 wait_cv, wait_mutex;     /* in cond_wait on them */
	__u64 relock_cv, relock_mutex; /* back from a wait, mutex not unlocked since */
};

struct condbar {
	const struct sbt_probe_info *probes;
	int nprobes;
	struct hmap conds;   /* (pid, cv) -> struct cb_cond */
	struct hmap threads; /* (tid, 0) -> struct cb_thread */
	int npending;
	/* every condvar made pending since the last decision, in that order
	 * (some decided since): what condbar__decide_pending() looks at,
	 * rather than every condvar seen. A condvar becomes pending once, or
	 * again after condbar__defer_pending(). */
	struct cb_cond *pending, **pending_tail;
	int sees_unlock; /* mutex unlocks are probed (--trace lock) */
};

struct condbar *condbar__new(const struct sbt_probe_info *probes, int nprobes)
{
	struct condbar *cb = calloc(1, sizeof(*cb));

	if (!cb)
		return NULL;
	cb->probes = probes;
	cb->nprobes = nprobes;
	for (int i = 0; i < nprobes; i++)
		cb->sees_unlock |= probes[i].kind == SBT_PK_UNLOCK &&
				   !strcmp(probes[i].symbol, "pthread_mutex_unlock");
	hmap_init(&cb->conds);
	hmap_init(&cb->threads);
	cb->pending_tail = &cb->pending;
	return cb;
}

void condbar__free(struct condbar *cb)
{
	const struct hmap_slot *s;
	size_t pos = 0;

	if (!cb)
		return;
	while ((s = hmap_next(&cb->conds, &pos))) {
		struct cb_cond *c = s->val;

		free(c->waiters);
		free(c->team);
	}
	hmap_free_values(&cb->conds);
	hmap_free_values(&cb->threads);
	free(cb);
}

static struct cb_cond *cond_of(struct condbar *cb, __u32 pid, __u64 cv)
{
	struct cb_cond *c = hmap_get(&cb->conds, pid, cv);

	return c ? c : hmap_put_new(&cb->conds, pid, cv, sizeof(*c));
}

static struct cb_thread *thread_of(struct condbar *cb, __u32 tid)
{
	struct cb_thread *t = hmap_get(&cb->threads, tid, 0);

	return t ? t : hmap_put_new(&cb->threads, tid, 0, sizeof(*t));
}

static void set_state(struct condbar *cb, struct cb_cond *c, int state)
{
	cb->npending += (state == CB_PENDING) - (c->state == CB_PENDING);
	if (state == CB_PENDING && c->state == CB_UNSEEN) {
		*cb->pending_tail = c;
		cb->pending_tail = &c->next_pending;
	}
	c->state = state;
}

/* Ruled out; a decision is final. */
static void rule_out(struct condbar *cb, struct cb_cond *c)
{
	if (c->state != CB_BARRIER)
		set_state(cb, c, CB_NOT);
}

static int find_tid(const __u32 *v, size_t n, __u32 tid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == tid)
			return (int)i;
	return -1;
}

/* Every tid of a[na] in b[nb] (both sorted). */
static int is_subset(const __u32 *a, size_t na, const __u32 *b, size_t nb)
{
	size_t i, j = 0;

	for (i = 0; i < na; i++) {
		while (j < nb && b[j] < a[i])
			j++;
		if (j == nb || b[j] != a[i])
			return 0;
	}
	return 1;
}

static void wait_entered(struct condbar *cb, const struct sbt_event *e)
{
	struct cb_cond *c = cond_of(cb, e->pid, e->obj);
	struct cb_thread *t = thread_of(cb, e->tid);

	if (!c || !t)
		return;
	t->wait_cv = e->obj;
	t->wait_mutex = e->site;
	if (c->state == CB_NOT || c->state == CB_BARRIER)
		return;
	/* woke, found its condition false and waits again: a queue's consumer
	 * (seen only where unlocks are probed) */
	if ((cb->sees_unlock && t->relock_cv == e->obj && t->relock_mutex == e->site) ||
	    (c->mutex && c->mutex != e->site)) {
		rule_out(cb, c);
		return;
	}
	c->mutex = e->site;
	if (c->state == CB_UNSEEN)
		set_state(cb, c, CB_PENDING);
	if (find_tid(c->waiters, c->nwait, e->tid) < 0 &&
	    !array_reserve((void **)&c->waiters, &c->cap_wait, c->nwait + 1, sizeof(__u32)))
		c->waiters[c->nwait++] = e->tid;
}

static void wait_returned(struct condbar *cb, const struct sbt_event *e)
{
	struct cb_thread *t = hmap_get(&cb->threads, e->tid, 0);
	struct cb_cond *c = t && t->wait_cv ? hmap_get(&cb->conds, e->pid, t->wait_cv) : NULL;
	int i;

	if (!t || !t->wait_cv)
		return; /* entered before the session */
	if (c && (i = find_tid(c->waiters, c->nwait, e->tid)) >= 0)
		c->waiters[i] = c->waiters[--c->nwait];
	/* a barrier's waits end with its release, never a timeout */
	if (c && (int)e->obj == ETIMEDOUT)
		rule_out(cb, c);
	t->relock_cv = t->wait_cv;
	t->relock_mutex = t->wait_mutex;
	t->wait_cv = 0;
}

/* A broadcast by tid: the waiters and tid are one episode's team. */
static void group(struct condbar *cb, struct cb_cond *c, __u32 tid)
{
	__u32 *team;
	size_t n = c->nwait + 1;

	if (c->state == CB_BARRIER || c->state == CB_NOT)
		return;
	if (!c->nwait) {
		/* nobody waiting: no barrier of two or more, unless the waits
		 * began before the session */
		if (c->state == CB_PENDING)
			rule_out(cb, c);
		return;
	}
	if (find_tid(c->waiters, c->nwait, tid) >= 0) {
		rule_out(cb, c);
		return;
	}
	team = malloc(n * sizeof(*team));
	if (!team)
		return;
	memcpy(team, c->waiters, c->nwait * sizeof(*team));
	team[c->nwait] = tid;
	qsort(team, n, sizeof(*team), array_cmp_u32);
	if (c->groups && (n != c->nteam || memcmp(team, c->team, n * sizeof(*team)))) {
		/* the first group seen may miss threads that waited since
		 * before the session */
		if (c->groups == 1 && !c->rebased && is_subset(c->team, c->nteam, team, n)) {
			c->rebased = 1;
			c->groups = 0;
		} else {
			free(team);
			rule_out(cb, c);
			return;
		}
	}
	free(c->team);
	c->team = team;
	c->nteam = n;
	if (!c->groups++) {
		c->last = tid;
		c->rotated = 0;
	}
	c->rotated |= tid != c->last;
	if (c->groups >= 2 && c->rotated)
		set_state(cb, c, CB_BARRIER);
	else if (c->groups >= SAME_LAST_MAX && cb->sees_unlock &&
		 c->unlocked >= (__u64)c->groups - 1)
		set_state(cb, c, CB_BARRIER);
	else if (c->groups >= SAME_LAST_MAX) {
		c->same_last = 1;
		rule_out(cb, c);
	}
}

static void released(struct condbar *cb, const struct sbt_event *e)
{
	struct cb_thread *t = hmap_get(&cb->threads, e->tid, 0);
	struct cb_cond *c;

	if (!t || t->relock_mutex != e->obj)
		return;
	c = hmap_get(&cb->conds, e->pid, t->relock_cv);
	if (c)
		c->unlocked++;
	t->relock_cv = t->relock_mutex = 0;
}

static void signalled(struct condbar *cb, const struct sbt_event *e)
{
	struct cb_cond *c = cond_of(cb, e->pid, e->obj);

	if (!c)
		return;
	if (condbar__is_broadcast(cb, e->probe))
		group(cb, c, e->tid);
	else
		rule_out(cb, c); /* a barrier wakes its team at once */
}

void condbar__observe(struct condbar *cb, const struct sbt_event *e)
{
	int kind;

	if ((e->type != SBT_EV_ENTER && e->type != SBT_EV_EXIT) || e->probe >= cb->nprobes)
		return;
	kind = cb->probes[e->probe].kind;
	if (e->type == SBT_EV_EXIT) {
		if (kind == SBT_PK_COND_WAIT)
			wait_returned(cb, e);
		return;
	}
	if (kind == SBT_PK_COND_WAIT)
		wait_entered(cb, e);
	else if (kind == SBT_PK_COND_SIGNAL)
		signalled(cb, e);
	else if (kind == SBT_PK_UNLOCK)
		released(cb, e);
}

int condbar__pending(const struct condbar *cb)
{
	return cb->npending;
}

/* The condvars still pending go to state (the list emptied). */
static void leave_pending(struct condbar *cb, int state)
{
	struct cb_cond *c, *next;

	for (c = cb->pending; c; c = next) {
		next = c->next_pending;
		c->next_pending = NULL;
		if (c->state == CB_PENDING)
			set_state(cb, c, state);
	}
	cb->pending = NULL;
	cb->pending_tail = &cb->pending;
}

void condbar__decide_pending(struct condbar *cb)
{
	leave_pending(cb, CB_NOT);
}

void condbar__defer_pending(struct condbar *cb)
{
	leave_pending(cb, CB_UNSEEN);
}

int condbar__is_barrier(const struct condbar *cb, __u32 pid, __u64 cv)
{
	const struct cb_cond *c = hmap_get(&cb->conds, pid, cv);

	return c && c->state == CB_BARRIER;
}

int condbar__same_broadcaster(const struct condbar *cb, __u32 pid, __u64 cv)
{
	const struct cb_cond *c = hmap_get(&cb->conds, pid, cv);

	return c && c->same_last;
}

__u64 condbar__mutex(const struct condbar *cb, __u32 pid, __u64 cv)
{
	const struct cb_cond *c = hmap_get(&cb->conds, pid, cv);

	return c ? c->mutex : 0;
}

int condbar__is_broadcast(const struct condbar *cb, __u16 probe)
{
	return probe < cb->nprobes && !strcmp(cb->probes[probe].symbol, "pthread_cond_broadcast");
}
