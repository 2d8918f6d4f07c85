// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The replay (doc/design.md §5.7): the threads' programs run on a simulated
 * clock in time order, a heap of each thread's next request and of the
 * locks' and semaphores' pending grants.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "analyses/sim_impl.h"

enum { EV_THREAD, EV_GRANT };

struct ev {
	__u64 t, seq;
	size_t ix; /* thread, or object */
	int kind;
};

struct run {
	struct sim *s;
	const struct sim_change *c;
	struct sim_result *r;
	/* move=: per episode, the region work taken from the thread, and the
	 * thread given it */
	__u64 *moved;
	__u32 *move_to;
	struct ev *heap;
	size_t n, cap;
	__u64 seq;
	int nomem;
};

static int before(const struct ev *a, const struct ev *b)
{
	return a->t != b->t ? a->t < b->t : a->seq < b->seq;
}

static void push(struct run *R, __u64 t, size_t ix, int kind)
{
	size_t i;

	if (array_reserve((void **)&R->heap, &R->cap, R->n + 1, sizeof(*R->heap))) {
		R->nomem = 1;
		return;
	}
	i = R->n++;
	R->heap[i] = (struct ev){t, R->seq++, ix, kind};
	while (i && before(&R->heap[i], &R->heap[(i - 1) / 2])) {
		struct ev x = R->heap[i];

		R->heap[i] = R->heap[(i - 1) / 2];
		R->heap[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

static struct ev pop(struct run *R)
{
	struct ev top = R->heap[0];
	size_t i = 0;

	R->heap[0] = R->heap[--R->n];
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct ev x;

		if (l < R->n && before(&R->heap[l], &R->heap[m]))
			m = l;
		if (l + 1 < R->n && before(&R->heap[l + 1], &R->heap[m]))
			m = l + 1;
		if (m == i)
			return top;
		x = R->heap[i];
		R->heap[i] = R->heap[m];
		R->heap[m] = x;
		i = m;
	}
}

/* move=: the region's work leaves its thread and comes before the arrival
 * of the thread given it, phase by phase. */
static __u64 moved_work(const struct run *R, const struct thread *t, const struct item *it)
{
	if (t->tid == R->c->tid && sim_change__has_probe(R->c, it->region))
		return 0;
	if (it->kind == IT_BARRIER && it->phase != NONE && R->move_to[it->phase] == t->tid)
		return it->work + R->moved[it->phase];
	return it->work;
}

/* What move= takes from its thread in each phase, and who gets it: the
 * thread named, or the member of the episode with the least work in it. */
static int plan_move(struct run *R)
{
	struct sim *s = R->s;
	__u64 *least;
	size_t i;

	R->moved = calloc(s->neps ? s->neps : 1, sizeof(*R->moved));
	R->move_to = calloc(s->neps ? s->neps : 1, sizeof(*R->move_to));
	least = calloc(s->neps ? s->neps : 1, sizeof(*least));
	if (!R->moved || !R->move_to || !least) {
		free(least);
		return -ENOMEM;
	}
	for (i = 0; i < s->nitems; i++) {
		const struct item *it = &s->items[i];

		if (it->phase == NONE)
			continue;
		if (it->tid == R->c->tid && sim_change__has_probe(R->c, it->region))
			R->moved[it->phase] += it->work;
		if (it->kind != IT_BARRIER || it->tid == R->c->tid)
			continue;
		if (R->c->to ? it->tid == R->c->to
			     : !R->move_to[it->phase] || it->pw < least[it->phase]) {
			R->move_to[it->phase] = it->tid;
			least[it->phase] = it->pw;
		}
	}
	free(least);
	return 0;
}

/* The work before item it of thread t under the change. */
static __u64 work_of(const struct run *R, const struct thread *t, const struct item *it)
{
	const struct sim_change *c = R->c;
	const struct episode *ep;
	double target;

	if (c->kind == SIM_SPEEDUP && c->region[0])
		return sim_change__has_probe(c, it->region)
			       ? (__u64)((double)it->work / c->factor + 0.5)
			       : it->work;
	if (c->kind == SIM_SPEEDUP)
		return t->tid == c->tid ? (__u64)((double)it->work / c->factor + 0.5) : it->work;
	if (c->kind == SIM_MOVE)
		return moved_work(R, t, it);
	if (c->kind == SIM_AS_IS || it->phase == NONE)
		return it->work;
	ep = &R->s->eps[it->phase];
	if (c->kind == SIM_BALANCE && !c->any_site && ep->site != c->site)
		return it->work;
	/* the parallel work is spread, a thread's serial part stays its own */
	target = (double)(ep->work > ep->serial ? ep->work - ep->serial : 0);
	if (c->kind == SIM_BALANCE)
		target /= ep->n;
	else /* processor sharing: min(threads, cpus) at full speed at a time */
		target /= c->threads < c->cpus ? c->threads : c->cpus;
	target += (double)(it->serial < it->pw ? it->serial : it->pw);
	if (it->pw)
		return (__u64)((double)it->work * target / (double)it->pw + 0.5);
	/* a thread that had no work in the phase: all of it before its arrival */
	return it->kind == IT_BARRIER ? (__u64)(target + 0.5) : 0;
}

static __u64 tail_of(const struct run *R, const struct thread *t)
{
	if (R->c->kind == SIM_SPEEDUP && t->tid == R->c->tid)
		return (__u64)((double)t->tail / R->c->factor + 0.5);
	return t->tail;
}

static void schedule_grant(struct run *R, size_t oi, size_t from, __u64 now);

/* Thread ti ended holding locks whose release the trace does not show (a
 * record lost, a call made inside another the analysis took as one): they
 * are free from its end, or the replay would wait for them forever. */
static void release_all(struct run *R, size_t ti, __u64 now)
{
	size_t i;

	for (i = 0; i < R->s->nobjs; i++) {
		struct object *o = &R->s->objs[i];

		if (!o->sem && o->held && o->owner == ti) {
			o->held = 0;
			schedule_grant(R, i, SIZE_MAX, now);
		}
	}
}

static void joined(struct run *R, size_t ti);

/* Thread ti's current item is done at now: on to the next request. */
static void advance(struct run *R, size_t ti, __u64 now)
{
	struct thread *t = &R->s->threads[ti];

	if (t->next < t->n)
		R->s->items[t->first + t->next].r_end = now;
	if (++t->next < t->n) {
		push(R, now + work_of(R, t, &R->s->items[t->first + t->next]), ti, EV_THREAD);
		return;
	}
	t->done = 1;
	/* a main thread's tail is its wait for the workers (total() adds it) */
	t->end = now + (t->joins ? 0 : tail_of(R, t));
	release_all(R, ti, t->end);
	joined(R, ti);
}

/* Thread ti begins at now: from its start, or its creator's creation. */
static void begin(struct run *R, size_t ti, __u64 now)
{
	struct thread *t = &R->s->threads[ti];

	t->r_begin = now;
	t->next = (size_t)-1;
	advance(R, ti, now);
}

/* Thread ti's join of the thread its current item names, which has ended:
 * it goes on as long after that end as it did (the wake-up), or at once
 * where it asked later. */
static void join_done(struct run *R, size_t ti)
{
	struct thread *t = &R->s->threads[ti];
	struct item *it = &R->s->items[t->first + t->next];
	__u64 at = R->s->threads[it->obj].end + it->hand;

	if (at <= it->r_req) {
		advance(R, ti, it->r_req);
		return;
	}
	it->r_pred = it->obj;
	advance(R, ti, at);
}

/* Thread ti has ended: the joins waiting for it go on. */
static void joined(struct run *R, size_t ti)
{
	size_t w = R->s->threads[ti].joiners;

	R->s->threads[ti].joiners = SIZE_MAX;
	while (w != SIZE_MAX) {
		size_t next = R->s->threads[w].wait_next;

		join_done(R, w);
		w = next;
	}
}

/* Thread ti joins thread j: at once if it has ended, else when it does. */
static void join(struct run *R, size_t ti, size_t j)
{
	struct thread *o = &R->s->threads[j];

	if (o->done) {
		join_done(R, ti);
		return;
	}
	R->s->threads[ti].wait_next = o->joiners;
	o->joiners = ti;
}

static void enqueue(struct run *R, struct object *o, size_t ti)
{
	if (o->head && o->head == o->n)
		o->head = o->n = 0;
	if (array_reserve((void **)&o->q, &o->cap, o->n + 1, sizeof(*o->q))) {
		R->nomem = 1;
		return;
	}
	o->q[o->n++] = ti;
}

/* A release with threads waiting: the first of them is granted the object
 * a hand-off later, unless the lock was taken back by then. */
/* The hand-off of o to waiting thread w: the one its acquisition took in
 * the measurement when it waited there (issue 17 §4: each wake-up as long
 * as it was), else the object's. */
static __u64 handoff_to(const struct run *R, const struct object *o, size_t w)
{
	const struct thread *t = &R->s->threads[w];
	const struct item *it = &R->s->items[t->first + t->next];

	return it->hand != NO_HANDOFF ? it->hand : o->handoff;
}

static void schedule_grant(struct run *R, size_t oi, size_t from, __u64 now)
{
	struct object *o = &R->s->objs[oi];

	if (o->head < o->n && !o->grant_pending) {
		o->grant_pending = 1;
		o->grant_from = from;
		push(R, now + handoff_to(R, o, o->q[o->head]), oi, EV_GRANT);
	}
}

static void grant(struct run *R, size_t oi, __u64 now)
{
	struct object *o = &R->s->objs[oi];
	size_t w;

	o->grant_pending = 0;
	if (o->head == o->n || (o->sem ? !o->count : o->held))
		return; /* taken meanwhile: the next release grants again */
	w = o->q[o->head++];
	if (o->sem) {
		o->count--;
	} else {
		o->held = 1;
		o->owner = w;
	}
	R->s->items[R->s->threads[w].first + R->s->threads[w].next].r_pred = o->grant_from;
	advance(R, w, now);
	if (o->sem && o->count)
		schedule_grant(R, oi, o->grant_from, now);
}

static void barrier(struct run *R, size_t ti, const struct item *it, __u64 now)
{
	struct episode *ep = &R->s->eps[it->obj];
	size_t w;

	R->s->threads[ti].wait_next = ep->waiting;
	ep->waiting = ti;
	if (now >= ep->last) {
		ep->last = now;
		ep->last_item = (size_t)(it - R->s->items);
	}
	if (++ep->arrived < ep->n)
		return;
	/* released: each leaves as long after the last arrival as it did */
	for (w = ep->waiting; w != SIZE_MAX;) {
		struct thread *t = &R->s->threads[w];
		size_t next = t->wait_next, ix = t->first + t->next;

		if (ix != ep->last_item)
			R->s->items[ix].r_pred = ep->last_item;
		advance(R, w, ep->last + R->s->items[ix].own);
		w = next;
	}
}

/* Signal ix is made at now: the waits it ended go on a hand-off later. */
static void signalled(struct run *R, size_t ix, __u64 now)
{
	struct item *sig = &R->s->items[ix];
	__u64 handoff = R->s->objs[sig->obj].handoff;
	size_t w = sig->r_waiters;

	sig->r_run = R->s->runs;
	sig->r_waiters = SIZE_MAX;
	while (w != SIZE_MAX) {
		struct thread *t = &R->s->threads[w];
		size_t next = t->wait_next;

		R->s->items[t->first + t->next].r_pred = ix;
		advance(R, w, now + handoff);
		w = next;
	}
}

/* Condition wait ix of thread ti at now: it waits for the signal that
 * ended it in the measurement; one made already in this replay found the
 * condition true (the program would not have waited). Unpaired (a timeout,
 * a signal the trace lacks), it takes the time it took. */
static void cond_wait(struct run *R, size_t ti, size_t ix, __u64 now)
{
	struct item *it = &R->s->items[ix], *sig;

	if (it->pair == SIZE_MAX) {
		advance(R, ti, now + it->own);
		return;
	}
	sig = &R->s->items[it->pair];
	if (sig->r_run == R->s->runs) {
		advance(R, ti, now);
		return;
	}
	R->s->threads[ti].wait_next = sig->r_waiters;
	sig->r_waiters = ti;
}

/* Thread ti makes its request for its current item at now. */
static void request(struct run *R, size_t ti, __u64 now)
{
	struct thread *t = &R->s->threads[ti];
	struct item *it = &R->s->items[t->first + t->next];
	size_t ix = t->first + t->next;
	struct object *o = item_on_object(it->kind) ? &R->s->objs[it->obj] : NULL;

	it->r_req = now;
	it->r_pred = SIZE_MAX;
	switch (it->kind) {
	case IT_BARRIER:
		barrier(R, ti, it, now);
		return;
	case IT_LOCK:
		if (o->held && o->owner != ti) {
			enqueue(R, o, ti);
			return;
		}
		/* free (a waiter woken for it is not back yet), or its own: the
		 * release before was not seen */
		R->r->lock_barges += !o->held && o->grant_pending;
		o->held = 1;
		o->owner = ti;
		advance(R, ti, now);
		return;
	case IT_UNLOCK:
		/* another's: an acquisition of its own was not seen; no release */
		if (!o->held || o->owner == ti) {
			o->held = 0;
			schedule_grant(R, it->obj, ix, now);
		}
		advance(R, ti, now + it->own);
		return;
	case IT_POST:
		o->count++;
		schedule_grant(R, it->obj, ix, now);
		advance(R, ti, now + it->own);
		return;
	case IT_SIGNAL:
		signalled(R, ix, now);
		advance(R, ti, now + it->own);
		return;
	case IT_CWAIT:
		cond_wait(R, ti, ix, now);
		return;
	case IT_CREATE:
		begin(R, it->obj, now);
		advance(R, ti, now + it->own);
		return;
	case IT_JOIN:
		join(R, ti, it->obj);
		return;
	case IT_WAIT:
		if (!o->count || o->head < o->n) {
			enqueue(R, o, ti);
			return;
		}
		o->count--;
		advance(R, ti, now);
		return;
	default:
		advance(R, ti, now + it->own);
	}
}

static void swap_u64(__u64 *a, __u64 *b)
{
	__u64 x = *a;

	*a = *b;
	*b = x;
}

/* The fields hold view v's times: a replay of the measured run swaps the
 * measured ones in, one of the approximated run swaps them back. */
static void hold_view(struct sim *s, int v)
{
	size_t i;

	if (s->view == v)
		return;
	for (i = 0; i < s->nitems; i++) {
		swap_u64(&s->items[i].work, &s->items[i].work_m);
		swap_u64(&s->items[i].own, &s->items[i].own_m);
		swap_u64(&s->items[i].hand, &s->items[i].hand_m);
	}
	for (i = 0; i < s->nobjs; i++)
		swap_u64(&s->objs[i].handoff, &s->objs[i].handoff_m);
	for (i = 0; i < s->nthreads; i++) {
		struct thread *t = &s->threads[i];

		swap_u64(&t->begin_a, &t->begin_m);
		swap_u64(&t->end_a, &t->end_m);
		swap_u64(&t->tail, &t->tail_m);
		swap_u64(&t->join_gap, &t->join_gap_m);
	}
	s->view = v;
}

static void reset(struct sim *s)
{
	size_t i;

	s->runs++;
	for (i = 0; i < s->nitems; i++)
		s->items[i].r_waiters = SIZE_MAX;
	for (i = 0; i < s->neps; i++) {
		s->eps[i].arrived = 0;
		s->eps[i].last = 0;
		s->eps[i].waiting = SIZE_MAX;
	}
	for (i = 0; i < s->nobjs; i++) {
		struct object *o = &s->objs[i];

		o->held = o->grant_pending = 0;
		o->count = o->tokens;
		o->head = o->n = 0;
	}
	for (i = 0; i < s->nthreads; i++) {
		s->threads[i].next = 0;
		s->threads[i].done = 0;
		s->threads[i].end = 0;
		s->threads[i].joiners = SIZE_MAX;
	}
}

/* The run: from its first event, as the approximated run is, to its last
 * thread's end, a main thread that joined its workers ending its join gap
 * after the last of them. */
static void total(struct sim *s, struct sim_result *r)
{
	__u64 first = s->first_a, last = 0;
	size_t i, k;

	for (i = 0; i < s->nthreads; i++) {
		struct thread *m = &s->threads[i];
		__u64 workers = 0;

		if (m->joins) {
			for (k = 0; k < s->nthreads; k++)
				if (k != i && s->threads[k].pid == m->pid &&
				    s->threads[k].end > workers)
					workers = s->threads[k].end;
			m->end = (workers > m->end ? workers : m->end) + m->join_gap;
		}
	}
	for (i = 0; i < s->nthreads; i++)
		last = s->threads[i].end > last ? s->threads[i].end : last;
	r->duration_ns = last > first ? last - first : 0;
}

int sim__run(struct sim *s, const struct sim_change *c, struct sim_result *r)
{
	struct run R = {.s = s, .c = c, .r = r};
	size_t i;

	memset(r, 0, sizeof(*r));
	if (!s->finished || (c->kind == SIM_THREADS && (!c->threads || !c->cpus)) ||
	    (c->kind == SIM_SPEEDUP && !(c->factor > 0)))
		return -EINVAL;
	/* the measured run is replayed as it was, the changes are to the
	 * approximated one */
	if (c->measured && c->kind != SIM_AS_IS)
		return -EINVAL;
	hold_view(s, c->measured ? PH_MEASURED : PH_APPROXIMATED);
	if (c->kind == SIM_MOVE && plan_move(&R)) {
		free(R.moved);
		free(R.move_to);
		return -ENOMEM;
	}
	reset(s);
	/* a thread's main loop may start later than another's: each at its own
	 * time, or when its creator creates it */
	for (i = 0; i < s->nthreads; i++)
		if (s->threads[i].created_at == SIZE_MAX)
			begin(&R, i, s->threads[i].begin_a);
	while (R.n && !R.nomem) {
		struct ev e = pop(&R);

		if (e.kind == EV_GRANT)
			grant(&R, e.ix, e.t);
		else
			request(&R, e.ix, e.t);
	}
	for (i = 0; i < s->nthreads; i++)
		r->stalled |= !s->threads[i].done;
	total(s, r);
	s->ran = !R.nomem;
	s->stalled = r->stalled;
	free(R.heap);
	free(R.moved);
	free(R.move_to);
	return R.nomem ? -ENOMEM : 0;
}
