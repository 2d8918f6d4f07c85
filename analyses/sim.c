// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The replay's programs (doc/design.md §5.7): items collected from the phase
 * analysis, sorted into each thread's program; the work before each item,
 * the phase it belongs to, each lock's and semaphore's hand-off.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "lib/hmap.h"
#include "analyses/sim_impl.h"

struct sim *sim__new(void)
{
	struct sim *s = calloc(1, sizeof(*s));

	if (s)
		hmap_init(&s->obj_ix);
	return s;
}

static void free_queues(struct sim *s)
{
	size_t i;

	for (i = 0; i < s->nobjs; i++) {
		free(s->objs[i].q);
		s->objs[i].q = NULL;
		s->objs[i].cap = 0;
	}
}

void sim__free(struct sim *s)
{
	if (!s)
		return;
	free_queues(s);
	free(s->items);
	free(s->eps);
	free(s->threads);
	free(s->objs);
	hmap_free(&s->obj_ix);
	free(s);
}

size_t sim__items(const struct sim *s)
{
	return s->nitems;
}

size_t sim__episodes(const struct sim *s)
{
	return s->neps;
}

static struct item *new_item(struct sim *s)
{
	if (s->nitems >= SIM_MAX_ITEMS) {
		s->too_many = 1;
		return NULL;
	}
	if (array_reserve((void **)&s->items, &s->cap_items, s->nitems + 1, sizeof(*s->items))) {
		s->too_many = 1; /* no memory: refused as too big */
		return NULL;
	}
	return memset(&s->items[s->nitems++], 0, sizeof(struct item));
}

static void add(struct sim *s, int kind, __u32 tid, __u64 tm, __u64 tm_end, __u64 ta, __u64 ta_end,
		__u64 obj, __u64 own)
{
	struct item *it = new_item(s);

	if (!it)
		return;
	*it = (struct item){.pair = SIZE_MAX,
			    .hand = NO_HANDOFF,
			    .hand_m = NO_HANDOFF,
			    .own_m = own && tm_end > tm ? tm_end - tm : 0,
			    .tm = tm,
			    .tm_end = tm_end,
			    .ta = ta,
			    .ta_end = ta_end > ta ? ta_end : ta,
			    .obj = obj,
			    .own = own,
			    .tid = tid,
			    .phase = NONE,
			    .kind = (__u8)kind};
}

void sim__episode(struct sim *s, const struct ph_episode *ep)
{
	__u64 last = 0, last_start = 0, last_m = 0;
	__u32 i;

	for (i = 0; i < ep->n; i++) {
		last = ep->arr[i].ta_arrive > last ? ep->arr[i].ta_arrive : last;
		last_m = ep->arr[i].arrive_ns > last_m ? ep->arr[i].arrive_ns : last_m;
		last_start = ep->arr[i].ta_start > last_start ? ep->arr[i].ta_start : last_start;
	}
	if (ep->partial || ep->lost || ep->departed < ep->n ||
	    array_reserve((void **)&s->eps, &s->cap_eps, s->neps + 1, sizeof(*s->eps))) {
		/* not replayed as a barrier: each thread's wait as it was */
		for (i = 0; i < ep->n; i++) {
			const struct ph_arrival *a = &ep->arr[i];

			if (a->depart_ns)
				add(s, IT_OPAQUE, a->tid, a->arrive_ns, a->depart_ns, a->ta_arrive,
				    a->ta_depart, 0, a->ta_depart - a->ta_arrive);
		}
		return;
	}
	s->eps[s->neps] = (struct episode){.n = ep->n, .site = ep->site, .index = ep->index};
	for (i = 0; i < ep->n; i++) {
		const struct ph_arrival *a = &ep->arr[i];

		add(s, IT_BARRIER, a->tid, a->arrive_ns, a->depart_ns, a->ta_arrive, a->ta_depart,
		    s->neps, a->ta_depart > last ? a->ta_depart - last : 0);
		if (s->nitems && s->items[s->nitems - 1].kind == IT_BARRIER)
			s->items[s->nitems - 1].own_m =
				a->depart_ns > last_m ? a->depart_ns - last_m : 0;
		if (s->nitems && s->items[s->nitems - 1].kind == IT_BARRIER)
			s->items[s->nitems - 1].serial =
				last_start > a->ta_start
					? (last_start - a->ta_start < ph_compute_a(a)
						   ? last_start - a->ta_start
						   : ph_compute_a(a))
					: 0;
	}
	s->neps++;
}

/* The replay's index of object (pid, obj), made if new; -1: no memory. */
static long object_of(struct sim *s, __u32 pid, __u64 obj)
{
	size_t ix;

	if (hmap_get_index(&s->obj_ix, pid, obj, &ix))
		return (long)ix;
	if (array_reserve((void **)&s->objs, &s->cap_objs, s->nobjs + 1, sizeof(*s->objs)) ||
	    hmap_put_index(&s->obj_ix, pid, obj, s->nobjs))
		return -1;
	memset(&s->objs[s->nobjs], 0, sizeof(*s->objs));
	return (long)s->nobjs++;
}

static void mark_cond_mutex(struct sim *s)
{
	if (s->nitems && !s->too_many)
		s->items[s->nitems - 1].cond_mutex = 1;
}

/* A mutex seen only inside condition waits (locks are not traced: --trace
 * without lock): its other acquisitions and releases are not in the trace,
 * so it is not replayed as a lock; replayed, a thread would hold it from a
 * wait's return to its next wait, across work done outside it. */
static void unseen_mutexes(struct sim *s)
{
	size_t i;

	for (i = 0; i < s->nitems; i++) {
		struct item *it = &s->items[i];

		if (it->cond_mutex && !s->objs[it->obj].called) {
			it->kind = IT_OPAQUE;
			it->own = it->own_m = 0;
		}
	}
}

static int failed(const struct ph_call *c)
{
	return (c->kind == SBT_PK_TRYLOCK || c->kind == SBT_PK_SEM_TRYWAIT) && c->retval;
}

void sim__call(struct sim *s, const struct ph_call *c)
{
	long o = object_of(s, c->pid, c->obj), m;
	__u64 own = c->exit_a > c->enter_a ? c->exit_a - c->enter_a : 0;

	if (o < 0)
		return;
	switch (failed(c) ? -1 : c->kind) {
	case SBT_PK_LOCK:
	case SBT_PK_TRYLOCK:
		s->objs[o].called = 1;
		add(s, IT_LOCK, c->tid, c->enter_ns, c->exit_ns, c->enter_a, c->exit_a, o, 0);
		return;
	case SBT_PK_UNLOCK:
		s->objs[o].called = 1;
		add(s, IT_UNLOCK, c->tid, c->enter_ns, c->exit_ns, c->enter_a, c->exit_a, o, own);
		return;
	case SBT_PK_SEM_POST:
		s->objs[o].sem = 1;
		add(s, IT_POST, c->tid, c->enter_ns, c->exit_ns, c->enter_a, c->exit_a, o, own);
		return;
	case SBT_PK_SEM_WAIT:
	case SBT_PK_SEM_TRYWAIT:
		s->objs[o].sem = 1;
		add(s, IT_WAIT, c->tid, c->enter_ns, c->exit_ns, c->enter_a, c->exit_a, o, 0);
		/* a P whose token no V of the trace posted: one the semaphore held */
		if (!c->v_tid)
			s->objs[o].tokens++;
		return;
	case SBT_PK_COND_WAIT:
		/* the mutex is let go at the entry and taken back at the return */
		m = object_of(s, c->pid, c->arg2);
		if (m < 0)
			return;
		add(s, IT_UNLOCK, c->tid, c->enter_ns, c->enter_ns, c->enter_a, c->enter_a, m, 0);
		mark_cond_mutex(s);
		add(s, IT_CWAIT, c->tid, c->enter_ns, c->exit_ns, c->enter_a, c->exit_a, o, own);
		add(s, IT_LOCK, c->tid, c->exit_ns, c->exit_ns, c->exit_a, c->exit_a, m, 0);
		mark_cond_mutex(s);
		return;
	case SBT_PK_COND_SIGNAL:
		add(s, IT_SIGNAL, c->tid, c->enter_ns, c->exit_ns, c->enter_a, c->exit_a, o, own);
		return;
	default:
		add(s, IT_OPAQUE, c->tid, c->enter_ns, c->exit_ns, c->enter_a, c->exit_a, 0, own);
	}
}

void sim__futex_wait(struct sim *s, const struct ph_call *c)
{
	/* a wait for a word to stop holding another thread's id: a join
	 * (sim__finish() keeps those that ended at that thread's exit) */
	if (c->arg2 && c->arg2 != c->tid)
		add(s, IT_JOIN, c->tid, c->enter_ns, c->exit_ns, c->enter_a, c->exit_a, c->arg2, 0);
}

void sim__region(struct sim *s, const struct ph_call *c)
{
	add(s, IT_ENTER, c->tid, c->enter_ns, c->enter_ns, c->enter_a, c->enter_a, c->probe, 0);
	add(s, IT_LEAVE, c->tid, c->exit_ns, c->exit_ns, c->exit_a, c->exit_a, c->probe, 0);
}

/* ---- the threads' programs ------------------------------------------------------ */

static int by_thread_then_time(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->tm != y->tm)
		return x->tm < y->tm ? -1 : 1;
	/* a barrier before a call made at its arrival (a condvar barrier's
	 * broadcast: the barrier's own, dropped after it) */
	if ((x->kind == IT_BARRIER) != (y->kind == IT_BARRIER))
		return x->kind == IT_BARRIER ? -1 : 1;
	/* a condition wait's three items share a time: in the order made */
	return x < y ? -1 : x > y;
}

/* Calls made inside a barrier wait (a barrier of a mutex and a condvar, or
 * of semaphores: the analysis made it an episode) are the barrier's own. */
static size_t drop_inside_barriers(struct item *it, size_t n)
{
	size_t r, w = 0;
	__u64 until = 0;
	__u32 tid = 0;

	for (r = 0; r < n; r++) {
		if (it[r].tid != tid) {
			tid = it[r].tid;
			until = 0;
		}
		if (it[r].kind != IT_BARRIER && it[r].tm < until)
			continue;
		if (it[r].kind == IT_BARRIER)
			until = it[r].tm_end;
		it[w++] = it[r];
	}
	return w;
}

/* The mutex of a barrier made of a mutex and a condvar is held when the
 * thread arrives and let go in its condition wait: a lock its thread holds
 * at a barrier arrival, from the acquisition to the release after the
 * barrier, is the barrier's own too, kept as the time it took (replayed as
 * held, it would keep the others from ever arriving; a condition wait lets
 * it go and takes it again, which the program has as a lock of its own
 * after the barrier). it[0..n): one
 * thread's program. The acquisition takes no time: its wait was for the
 * others' arrivals, which the replay times itself. */
static void locks_across_barriers(struct item *it, size_t n)
{
	size_t r, k;

	for (r = 0; r < n; r++) {
		if (it[r].kind != IT_BARRIER)
			continue;
		/* the acquisitions before it that no release followed */
		for (k = r; k-- > 0 && it[k].kind != IT_BARRIER;) {
			size_t u;

			if (it[k].kind != IT_LOCK)
				continue;
			/* its release, or its taking again after the wait let it go */
			for (u = k + 1;
			     u < n && !((it[u].kind == IT_UNLOCK || it[u].kind == IT_LOCK) &&
					it[u].obj == it[k].obj);
			     u++)
				;
			if (u < r)
				continue; /* released before the arrival */
			it[k].kind = IT_OPAQUE;
			it[k].own = it[k].own_m = 0;
			if (u < n && it[u].kind == IT_UNLOCK) {
				it[u].kind = IT_OPAQUE;
				it[u].own = it[u].ta_end - it[u].ta;
				it[u].own_m = it[u].tm_end - it[u].tm;
			}
		}
	}
}

/* Work before each item, and the phase it belongs to (its thread's next
 * barrier); each episode's work. */
/* The innermost region frame each item's work before it was done in
 * (marks of a frame whose other end is not in the trace are ignored past
 * the depth kept). */
static void regions_of(struct item *it, size_t n)
{
	__u16 stack[8];
	int depth = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		it[i].region = depth > 0 && depth <= 8 ? stack[depth - 1] : 0;
		if (it[i].kind == IT_ENTER) {
			if (depth < 8)
				stack[depth] = (__u16)it[i].obj;
			depth++;
		} else if (it[i].kind == IT_LEAVE && depth > 0) {
			depth--;
		}
	}
}

static void work_and_phases(struct sim *s, struct thread *t)
{
	__u64 prev = t->begin_a, prev_m = t->begin_m;
	__u32 phase = NONE;
	__u64 pw = 0, serial = 0;
	size_t i, k;

	for (i = t->first; i < t->first + t->n; i++) {
		struct item *it = &s->items[i];

		it->work = it->ta > prev ? it->ta - prev : 0;
		prev = it->ta_end > prev ? it->ta_end : prev;
		it->work_m = it->tm > prev_m ? it->tm - prev_m : 0;
		prev_m = it->tm_end > prev_m ? it->tm_end : prev_m;
	}
	t->tail = t->end_a > prev ? t->end_a - prev : 0;
	t->tail_m = t->end_m > prev_m ? t->end_m - prev_m : 0;
	/* from the end: each item's phase is its thread's next barrier */
	for (i = t->first + t->n, k = i; i-- > t->first;) {
		struct item *it = &s->items[i];

		if (it->kind == IT_BARRIER) {
			/* the items after it, up to the next barrier: their phase's work */
			for (; k > i + 1; k--) {
				s->items[k - 1].pw = pw;
				s->items[k - 1].serial = serial;
			}
			phase = (__u32)it->obj;
			pw = 0;
			serial = it->serial;
			s->eps[phase].serial += serial;
			k = i + 1;
		}
		it->phase = phase;
		pw += it->work;
		if (phase != NONE)
			s->eps[phase].work += it->work;
	}
	for (; k > t->first; k--) {
		s->items[k - 1].pw = pw;
		s->items[k - 1].serial = serial;
	}
}

static int cmp_tid(const void *a, const void *b)
{
	const struct ph_thread *const *x = a, *const *y = b;

	return (*x)->tid < (*y)->tid ? -1 : (*x)->tid > (*y)->tid;
}

/* The analysis's threads in id order, as the items are: each takes its own
 * (items of a thread the analysis does not know are left out). */
static int make_threads(struct sim *s, const struct phases *p)
{
	size_t i = 0, k, nt = phases__nthreads(p);
	const struct ph_thread **pts = malloc((nt ? nt : 1) * sizeof(*pts));

	s->threads = calloc(nt ? nt : 1, sizeof(*s->threads));
	if (!s->threads || !pts) {
		free(pts);
		return -ENOMEM;
	}
	for (k = 0; k < nt; k++)
		pts[k] = phases__thread(p, k);
	qsort(pts, nt, sizeof(*pts), cmp_tid);
	for (k = 0; k < nt; k++) {
		struct thread *t = &s->threads[s->nthreads++];

		*t = (struct thread){.tid = pts[k]->tid,
				     .pid = pts[k]->pid,
				     .begin_a = pts[k]->ta_begin,
				     .begin_m = pts[k]->start_ns,
				     .end_m = pts[k]->tm_prev > pts[k]->start_ns ? pts[k]->tm_prev
										 : pts[k]->start_ns,
				     .end_a = pts[k]->ta_prev > pts[k]->ta_begin
						      ? pts[k]->ta_prev
						      : pts[k]->ta_begin};
		while (i < s->nitems && s->items[i].tid < t->tid)
			i++;
		t->first = i;
		while (i < s->nitems && s->items[i].tid == t->tid)
			i++;
		t->n = i - t->first;
	}
	free(pts);
	return 0;
}

/* A main thread whose last event follows its workers' ended by joining
 * them: in the replay it ends that long after the last of them. */
static void note_joins(struct sim *s)
{
	size_t i, k;

	for (i = 0; i < s->nthreads; i++) {
		struct thread *m = &s->threads[i];
		__u64 last = 0, last_m = 0;
		int workers = 0;

		if (m->tid != m->pid)
			continue;
		for (k = 0; k < s->nthreads; k++)
			if (k != i && s->threads[k].pid == m->pid) {
				workers = 1;
				last = s->threads[k].end_a > last ? s->threads[k].end_a : last;
				last_m =
					s->threads[k].end_m > last_m ? s->threads[k].end_m : last_m;
			}
		/* one whose last item is a join ends after it by its tail */
		if (workers && m->end_a >= last &&
		    !(m->n && s->items[m->first + m->n - 1].kind == IT_JOIN)) {
			m->joins = 1;
			m->join_gap = m->end_a - last;
			m->join_gap_m = m->end_m > last_m ? m->end_m - last_m : 0;
		}
	}
}

static int cmp_obj_then_time(const void *a, const void *b)
{
	const struct item *x = *(const struct item *const *)a, *y = *(const struct item *const *)b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	return x->tm < y->tm ? -1 : x->tm > y->tm;
}

static int is_release(const struct item *it)
{
	return it->kind == IT_UNLOCK || it->kind == IT_POST || it->kind == IT_SIGNAL;
}

/* The last release of rel[0..n) made at or before tm, or NULL. */
static const struct item *release_before(struct item *const *rel, size_t n, __u64 tm)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rel[mid]->tm <= tm)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? rel[lo - 1] : NULL;
}

/* The hand-off of one object's items it[0..n) (in time order): the median
 * over its acquisitions that waited (a release came during the call) of the
 * acquisition's approximated return less the release's approximated time.
 * A condition wait is paired with that release, the signal that ended it
 * (items: the array they are in). measured: the same of the measured times.
 * rel and v: room for n. */
static __u64 handoff_of(const struct item *items, struct item **it, size_t n, struct item **rel,
			__u64 *v, int measured)
{
	size_t i, nrel = 0, nv = 0;

	for (i = 0; i < n; i++)
		if (is_release(it[i]))
			rel[nrel++] = it[i];
	for (i = 0; i < n; i++) {
		const struct item *r;

		if (is_release(it[i]))
			continue;
		r = release_before(rel, nrel, it[i]->tm_end);
		if (!r || r->tm < it[i]->tm)
			continue;
		if (measured)
			v[nv] = it[i]->hand_m = it[i]->tm_end > r->tm ? it[i]->tm_end - r->tm : 0;
		else
			v[nv] = it[i]->hand = it[i]->ta_end > r->ta ? it[i]->ta_end - r->ta : 0;
		nv++;
		if (it[i]->kind == IT_CWAIT)
			it[i]->pair = (size_t)(r - items);
	}
	if (!nv)
		return 0;
	qsort(v, nv, sizeof(*v), array_cmp_u64);
	return v[nv / 2];
}

static int handoffs(struct sim *s)
{
	size_t n = 0, i, j, room = s->nitems ? s->nitems : 1;
	struct item **order = malloc(room * sizeof(*order)), **rel = malloc(room * sizeof(*rel));
	__u64 *v = malloc(room * sizeof(*v));

	if (!order || !rel || !v) {
		free(order);
		free(rel);
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < s->nitems; i++)
		if (item_on_object(s->items[i].kind))
			order[n++] = &s->items[i]; /* sorted into each object's, by time */
	qsort(order, n, sizeof(*order), cmp_obj_then_time);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && order[j]->obj == order[i]->obj; j++)
			;
		s->objs[order[i]->obj].handoff = handoff_of(s->items, order + i, j - i, rel, v, 0);
		s->objs[order[i]->obj].handoff_m =
			handoff_of(s->items, order + i, j - i, rel, v, 1);
	}
	free(order);
	free(rel);
	free(v);
	return 0;
}

/* A thread created in the trace is started by its process's main thread
 * (as the approximation has it: doc/design.md §5.4), an item of the main
 * thread's program at the creation. */
static int creations(struct sim *s, const struct phases *p)
{
	size_t k, nm = 0, n = phases__nthreads(p);
	__u64 *mains = malloc((n ? n : 1) * sizeof(*mains));

	if (!mains)
		return -ENOMEM;
	for (k = 0; k < n; k++)
		if (phases__thread(p, k)->tid == phases__thread(p, k)->pid)
			mains[nm++] = phases__thread(p, k)->pid;
	qsort(mains, nm, sizeof(*mains), array_cmp_u64);
	for (k = 0; k < n; k++) {
		const struct ph_thread *t = phases__thread(p, k);
		__u64 pid = t->pid;

		if (t->tid != t->pid && !t->start_unknown &&
		    bsearch(&pid, mains, nm, sizeof(*mains), array_cmp_u64))
			add(s, IT_CREATE, t->pid, t->start_ns, t->start_ns, t->ta_begin,
			    t->ta_begin, t->tid, 0);
	}
	free(mains);
	return 0;
}

static size_t thread_index(const struct sim *s, __u64 tid)
{
	size_t lo = 0, hi = s->nthreads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->threads[mid].tid == tid)
			return mid;
		if (s->threads[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

/* The kernel wakes a joiner a little before the joined thread's exit
 * record: a wait that returned at most this long before it was the join. */
#define JOIN_SLACK_NS 1000000

/* Item it of thread t names a thread it creates or joins: that thread's
 * index, or SIZE_MAX where it cannot be (another process's, itself, one
 * created twice, a wait that ended before the thread did). */
static size_t thread_named(struct sim *s, const struct thread *t, const struct item *it)
{
	size_t j = thread_index(s, it->obj);
	const struct thread *o = j == SIZE_MAX ? NULL : &s->threads[j];

	if (!o || o == t || o->pid != t->pid)
		return SIZE_MAX;
	if (it->kind == IT_CREATE)
		return o->created_at == SIZE_MAX && o->begin_m >= t->begin_m ? j : SIZE_MAX;
	return o->end_m <= it->tm_end + JOIN_SLACK_NS && o->end_m >= it->tm ? j : SIZE_MAX;
}

/* Creations and joins point at their threads by index; one that cannot be
 * is a call that took the time it took. */
static void link_threads(struct sim *s)
{
	size_t i, k;

	for (i = 0; i < s->nthreads; i++)
		s->threads[i].created_at = SIZE_MAX;
	for (i = 0; i < s->nthreads; i++)
		for (k = s->threads[i].first; k < s->threads[i].first + s->threads[i].n; k++) {
			struct item *it = &s->items[k];
			size_t j;

			if (it->kind != IT_CREATE && it->kind != IT_JOIN)
				continue;
			j = thread_named(s, &s->threads[i], it);
			if (j == SIZE_MAX) {
				it->kind = IT_OPAQUE;
				it->own = it->ta_end - it->ta;
				it->own_m = it->tm_end - it->tm;
				continue;
			}
			it->obj = j;
			if (it->kind == IT_CREATE) {
				s->threads[j].created_at = k;
				continue;
			}
			it->hand = it->ta_end > s->threads[j].end_a
					   ? it->ta_end - s->threads[j].end_a
					   : 0;
			it->hand_m = it->tm_end > s->threads[j].end_m
					     ? it->tm_end - s->threads[j].end_m
					     : 0;
		}
}

int sim__finish(struct sim *s, const struct phases *p)
{
	size_t i;
	int e;

	if (s->finished)
		return 0;
	e = creations(s, p);
	if (e)
		return e;
	if (s->too_many)
		return -E2BIG;
	unseen_mutexes(s);
	qsort(s->items, s->nitems, sizeof(*s->items), by_thread_then_time);
	s->nitems = drop_inside_barriers(s->items, s->nitems);
	e = handoffs(s);
	if (!e)
		e = make_threads(s, p);
	if (e)
		return e;
	link_threads(s);
	for (i = 0; i < s->nthreads; i++) {
		locks_across_barriers(s->items + s->threads[i].first, s->threads[i].n);
		regions_of(s->items + s->threads[i].first, s->threads[i].n);
		work_and_phases(s, &s->threads[i]);
	}
	note_joins(s);
	s->first_a = phases__first_ts(p);
	s->view = PH_APPROXIMATED;
	s->finished = 1;
	return 0;
}
