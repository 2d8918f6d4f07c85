// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tables of locks, semaphores, condition variables and futex words
 * (doc/design.md §5.2): their order, names and families, and each thread's wait
 * and the waits it caused (§5.5), shared by the text and JSON writers.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/sync_report_impl.h"

void sync_report__object_name(const struct sync_report *sr, const struct sync_obj *o, char *buf,
			      size_t n)
{
	const char *s = sr->names ? names__get(sr->names, o->pid, o->addr) : NULL;

	if (s && *s)
		snprintf(buf, n, "%s", s);
	else if (o->kind == SYNC_FUTEX && o->joined == 1)
		snprintf(buf, n, "thread %u's exit (join)", o->joined_tid);
	else if (o->kind == SYNC_FUTEX && o->joined > 1)
		snprintf(buf, n, "exits of %u threads (join)", o->joined);
	else
		snprintf(buf, n, "0x%" PRIx64, (uint64_t)o->addr);
}

const char *sync_report__family(const struct sync_report *sr, const struct sync_obj *o)
{
	const char *sym = o->probe < sr->nprobes ? sr->probes[o->probe].symbol : "";

	if (o->kind == SYNC_FUTEX)
		return "futex";
	if (strstr(sym, "spin"))
		return "spinlock";
	if (strstr(sym, "rwlock"))
		return "rwlock";
	if (strstr(sym, "mutex"))
		return "mutex";
	if (strstr(sym, "critical"))
		return "critical"; /* OpenMP critical section */
	if (strstr(sym, "GOMP_atomic"))
		return "atomic"; /* libgomp's lock for atomics it cannot do in hardware */
	if (strstr(sym, "nest_lock"))
		return "omp_nest_lock";
	if (strstr(sym, "omp_") == sym)
		return "omp_lock";
	return sym;
}

int sync_sort__parse(const char *s)
{
	static const char *const keys[] = {"wait", "hold", "count"};
	int i;

	for (i = 0; i < 3; i++)
		if (!strcmp(s, keys[i]))
			return i;
	return -1;
}

static __u64 sort_key(const struct sync_obj *o, int sort)
{
	switch (sort) {
	case SYNC_SORT_HOLD:
		return o->hold_ns;
	case SYNC_SORT_COUNT:
		return o->count;
	}
	return o->wait_ns;
}

/* Descending key (the context: enum sync_sort). */
static int by_key(const void *a, const void *b, void *sort)
{
	__u64 x = sort_key(*(const struct sync_obj *const *)a, *(int *)sort);
	__u64 y = sort_key(*(const struct sync_obj *const *)b, *(int *)sort);

	return x > y ? -1 : x < y;
}

const struct sync_obj **sync_report__sorted(const struct sync_report *sr, int kind, size_t *n)
{
	int sort = kind == SYNC_LOCK ? sr->sort : SYNC_SORT_WAIT;
	const struct sync_obj **v;
	size_t i;

	*n = sync__count(sr->sync, kind);
	v = calloc(*n + 1, sizeof(*v));
	if (!v) {
		*n = 0;
		return NULL;
	}
	for (i = 0; i < *n; i++)
		v[i] = sync__obj(sr->sync, kind, i);
	qsort_r(v, *n, sizeof(*v), by_key, &sort);
	return v;
}

/* Object o's shares added to each thread's sums. */
static void add_shares(struct sync_waits *w, const struct sync_obj *o)
{
	__u32 k;

	for (k = 0; k < o->nthreads; k++) {
		struct sync_thread_waits *sum = hmap_get(&w->by_tid, o->threads[k].tid, 0);

		if (!sum)
			sum = hmap_put_new(&w->by_tid, o->threads[k].tid, 0, sizeof(*sum));
		if (!sum)
			continue;
		/* a barrier's waits are barrier time, counted as such */
		if (!o->barrier)
			sum->wait_ns += o->threads[k].wait_ns;
		sum->caused_ns[o->kind] += o->threads[k].caused_ns;
	}
}

void sync_waits__init(struct sync_waits *w, const struct sync_report *sr)
{
	size_t i;
	int kind;

	hmap_init(&w->by_tid);
	for (kind = SYNC_LOCK; sr->sync && kind <= SYNC_COND; kind++)
		for (i = 0; i < sync__count(sr->sync, kind); i++)
			add_shares(w, sync__obj(sr->sync, kind, i));
}

__u64 sync_waits__of(const struct sync_waits *w, __u32 tid)
{
	const struct sync_thread_waits *sum = hmap_get(&w->by_tid, tid, 0);

	return sum ? sum->wait_ns : 0;
}

struct sync_thread_waits sync_waits__thread(const struct sync_waits *w, __u32 tid)
{
	const struct sync_thread_waits *sum = hmap_get(&w->by_tid, tid, 0);
	struct sync_thread_waits none = {0};

	return sum ? *sum : none;
}

void sync_waits__free(struct sync_waits *w)
{
	hmap_free_values(&w->by_tid);
}
