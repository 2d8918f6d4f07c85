// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The critical path of a replay (doc/design.md §5.7): walked back from the
 * end of the thread that ended last. On a thread, its work and its own calls
 * are on the path; at a wait another thread ended (r_pred), the path takes
 * the time from that event to the wait's end as synchronization and goes on
 * in the other thread from the event. A join that waited goes on in the
 * thread joined from its end; a thread created in the trace, at its start,
 * in its creator from the creation.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "analyses/sim_impl.h"

struct walk {
	struct sim *s;
	struct sim_path *p;
	int segments; /* keep the path's stretches */
	size_t cap_segs;
	__u64 *by_thread; /* by thread index */
	__u64 *by_site;	  /* by site index */
	__u64 *by_region; /* by region probe id */
	/* by episode: the path's time in its phase, and the thread with the
	 * most of it (by_ep_top: tid, ns; a thread's stretches in a phase are
	 * consecutive on the path, so the latest run is compared) */
	__u64 *by_ep, *top_ns, *run_ns;
	__u32 *top_tid, *run_tid;
	size_t nsites;
};

/* The thread whose program holds item ix: threads are in id order, as
 * their items are, so the last one whose items begin at or before ix (one
 * without items may share its first with the next). */
static size_t thread_of_item(const struct sim *s, size_t ix)
{
	size_t lo = 0, hi = s->nthreads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->threads[mid].first <= ix)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 1 && ix >= s->threads[lo - 1].first + s->threads[lo - 1].n)
		lo--;
	return lo ? lo - 1 : 0;
}

/* A stretch of the path, [from, to): kept in the segments when asked
 * (thread id 0: synchronization), up to SIM_PATH_SEGMENTS. */
static void segment(struct walk *w, __u32 tid, __u64 from, __u64 to)
{
	struct sim_path *p = w->p;

	if (!w->segments || to <= from)
		return;
	if (p->nsegs >= SIM_PATH_SEGMENTS ||
	    array_reserve((void **)&p->segs, &w->cap_segs, p->nsegs + 1, sizeof(*p->segs))) {
		p->segs_dropped++;
		return;
	}
	p->segs[p->nsegs++] = (struct sim_segment){tid, from, to};
}

/* Synchronization on the path: [from, to). */
static void sync_on_path(struct walk *w, __u64 from, __u64 to)
{
	w->p->sync_ns += to > from ? to - from : 0;
	segment(w, 0, from, to);
}

/* ns of thread tid on the path in phase ep. */
static void phase_credit(struct walk *w, __u32 ep, __u32 tid, __u64 ns)
{
	w->by_ep[ep] += ns;
	if (w->run_tid[ep] != tid) {
		w->run_tid[ep] = tid;
		w->run_ns[ep] = 0;
	}
	w->run_ns[ep] += ns;
	if (w->run_ns[ep] > w->top_ns[ep]) {
		w->top_ns[ep] = w->run_ns[ep];
		w->top_tid[ep] = tid;
	}
}

/* Thread ti's work [from, to) in phase (NONE: outside any), inside region
 * frame region (0: none). */
static void credit(struct walk *w, size_t ti, __u32 phase, __u16 region, __u64 from, __u64 to)
{
	__u64 ns = to > from ? to - from : 0;

	segment(w, w->s->threads[ti].tid, from, to);
	w->by_thread[ti] += ns;
	if (phase != NONE)
		phase_credit(w, phase, w->s->threads[ti].tid, ns);
	if (region && region < SBT_MAX_PROBES)
		w->by_region[region] += ns;
	if (phase == NONE)
		w->p->outside_ns += ns;
	else
		w->by_site[w->s->eps[phase].site] += ns;
}

static __u32 phase_at(const struct sim *s, const struct thread *t, long i)
{
	return i >= 0 && (size_t)i < t->n ? s->items[t->first + i].phase : NONE;
}

/* The region frame the work before item i of thread t was done in. */
static __u16 region_at(const struct sim *s, const struct thread *t, long i)
{
	return i >= 0 && (size_t)i < t->n ? s->items[t->first + i].region : 0;
}

/* The thread that ended last, and the time the path starts back from: a
 * main thread that joined its workers hands it to the last of them after its
 * join gap. */
static size_t last_thread(struct walk *w, __u64 *t)
{
	struct sim *s = w->s;
	size_t i, e = 0, k;

	for (i = 1; i < s->nthreads; i++)
		if (s->threads[i].end > s->threads[e].end)
			e = i;
	*t = s->threads[e].end;
	if (!s->threads[e].joins)
		return e;
	for (i = 0, k = SIZE_MAX; i < s->nthreads; i++)
		if (i != e && s->threads[i].pid == s->threads[e].pid &&
		    (k == SIZE_MAX || s->threads[i].end > s->threads[k].end))
			k = i;
	if (k == SIZE_MAX)
		return e;
	sync_on_path(w, s->threads[k].end, *t);
	*t = s->threads[k].end;
	return k;
}

static void walk(struct walk *w)
{
	struct sim *s = w->s;
	__u64 t;
	size_t ti = last_thread(w, &t), steps = 0;
	long i = (long)s->threads[ti].n - 1;

	while (steps++ <= s->nitems + s->nthreads) {
		const struct thread *T = &s->threads[ti];
		const struct item *it, *pred;

		if (i < 0) { /* its start, or the run's first event */
			__u64 from = T->r_begin > s->first_a ? T->r_begin : s->first_a;

			credit(w, ti, phase_at(s, T, 0), region_at(s, T, 0), from, t);
			if (T->created_at == SIZE_MAX)
				return;
			/* on in its creator, at the creation */
			t = from < t ? from : t;
			ti = thread_of_item(s, T->created_at);
			i = (long)(T->created_at - s->threads[ti].first);
			continue;
		}
		it = &s->items[T->first + i];
		/* the work after it, up to t: the next item's */
		credit(w, ti, phase_at(s, T, i + 1), region_at(s, T, i + 1), it->r_end, t);
		t = t < it->r_end ? t : it->r_end;
		if (it->kind == IT_JOIN && it->r_pred != SIZE_MAX) {
			/* the joined thread's exit, and the wake-up */
			const struct thread *J = &s->threads[it->r_pred];

			sync_on_path(w, J->end, t);
			t = J->end < t ? J->end : t;
			ti = it->r_pred;
			i = (long)J->n - 1;
			continue;
		}
		if (it->r_pred == SIZE_MAX) {
			/* its own call; the last arrival's barrier: the release */
			if (it->kind == IT_BARRIER)
				sync_on_path(w, it->r_req, t);
			else
				credit(w, ti, it->phase, it->region, it->r_req, t);
			t = it->r_req < t ? it->r_req : t;
			i--;
			continue;
		}
		pred = &s->items[it->r_pred];
		sync_on_path(w, pred->r_req, t);
		t = pred->r_req < t ? pred->r_req : t;
		ti = thread_of_item(s, it->r_pred);
		i = (long)(it->r_pred - s->threads[ti].first) - 1;
	}
}

static int by_ns_desc(const void *a, const void *b)
{
	const struct sim_share *x = a, *y = b;

	return x->ns > y->ns ? -1 : x->ns < y->ns;
}

/* The non-zero shares of v[0..n), largest first, into *out. */
static int shares(const __u64 *v, size_t n, const struct sim *s, int threads,
		  struct sim_share **out, size_t *nout)
{
	size_t i, k = 0;

	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (v[i])
			(*out)[k++] =
				(struct sim_share){threads ? s->threads[i].tid : (__u32)i, v[i]};
	qsort(*out, k, sizeof(**out), by_ns_desc);
	*nout = k;
	return 0;
}

/* All threads' work and own calls: what any number of threads would have
 * to do. */
static __u64 total_work(const struct sim *s)
{
	__u64 w = 0;
	size_t i;

	for (i = 0; i < s->nitems; i++) {
		const struct item *it = &s->items[i];

		w += it->work;
		if (it->kind == IT_UNLOCK || it->kind == IT_POST || it->kind == IT_SIGNAL ||
		    it->kind == IT_OPAQUE)
			w += it->own;
	}
	for (i = 0; i < s->nthreads; i++)
		w += s->threads[i].joins ? 0 : s->threads[i].tail;
	return w;
}

static int alloc_phases(struct walk *w)
{
	size_t n = w->s->neps ? w->s->neps : 1;

	w->by_ep = calloc(n, sizeof(*w->by_ep));
	w->top_ns = calloc(n, sizeof(*w->top_ns));
	w->run_ns = calloc(n, sizeof(*w->run_ns));
	w->top_tid = calloc(n, sizeof(*w->top_tid));
	w->run_tid = calloc(n, sizeof(*w->run_tid));
	return w->by_ep && w->top_ns && w->run_ns && w->top_tid && w->run_tid ? 0 : -ENOMEM;
}

static void free_phases(struct walk *w)
{
	free(w->by_ep);
	free(w->top_ns);
	free(w->run_ns);
	free(w->top_tid);
	free(w->run_tid);
}

/* The phases the path crossed, in completion order. */
static int phase_shares(struct walk *w)
{
	struct sim_path *p = w->p;
	size_t i, n = 0;

	for (i = 0; i < w->s->neps; i++)
		n += !!w->by_ep[i];
	p->phases = calloc(n ? n : 1, sizeof(*p->phases));
	if (!p->phases)
		return -ENOMEM;
	for (i = 0; i < w->s->neps; i++)
		if (w->by_ep[i])
			p->phases[p->nphases++] = (struct sim_phase_share){
				w->s->eps[i].index, w->by_ep[i], w->top_tid[i], w->top_ns[i]};
	return 0;
}

/* Segments were kept from the end back: in time order. */
static void reverse(struct sim_segment *v, size_t n)
{
	size_t i;

	for (i = 0; i < n / 2; i++) {
		struct sim_segment x = v[i];

		v[i] = v[n - 1 - i];
		v[n - 1 - i] = x;
	}
}

int sim__critical_path(struct sim *s, struct sim_path *path, int segments)
{
	struct walk w = {.s = s, .p = path, .segments = segments};
	size_t i;
	int e;

	memset(path, 0, sizeof(*path));
	if (!s->finished || !s->ran || !s->nthreads)
		return -EINVAL;
	if (s->stalled)
		return -EDEADLK; /* threads that never ended: no end to walk back from */
	for (i = 0; i < s->neps; i++)
		w.nsites = s->eps[i].site + 1 > w.nsites ? s->eps[i].site + 1 : w.nsites;
	w.by_thread = calloc(s->nthreads, sizeof(*w.by_thread));
	w.by_site = calloc(w.nsites ? w.nsites : 1, sizeof(*w.by_site));
	w.by_region = calloc(SBT_MAX_PROBES, sizeof(*w.by_region));
	e = w.by_thread && w.by_site && w.by_region ? 0 : -ENOMEM;
	if (!e)
		e = alloc_phases(&w);
	if (!e) {
		walk(&w);
		reverse(path->segs, path->nsegs);
		e = shares(w.by_thread, s->nthreads, s, 1, &path->threads, &path->nthreads);
	}
	if (!e)
		e = shares(w.by_site, w.nsites, s, 0, &path->sites, &path->nsites);
	if (!e)
		e = shares(w.by_region, SBT_MAX_PROBES, s, 0, &path->regions, &path->nregions);
	if (!e)
		e = phase_shares(&w);
	for (i = 0; i < s->nthreads; i++)
		path->total_ns += w.by_thread[i] ? w.by_thread[i] : 0;
	path->total_ns += path->sync_ns;
	path->work_ns = total_work(s);
	free(w.by_thread);
	free(w.by_site);
	free(w.by_region);
	free_phases(&w);
	if (e)
		sim_path__free(path);
	return e;
}

void sim_path__free(struct sim_path *path)
{
	free(path->threads);
	free(path->sites);
	free(path->regions);
	free(path->phases);
	path->phases = NULL;
	path->nphases = 0;
	free(path->segs);
	path->threads = path->sites = path->regions = NULL;
	path->nregions = 0;
	path->segs = NULL;
	path->nthreads = path->nsites = path->nsegs = 0;
}
