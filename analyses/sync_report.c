// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/sync_report.h"

#define TOP_N 3

static const char *kind_title[SYNC_NKINDS] = {"Locks", "Semaphores", "Condition variables",
					      "Futex waits"};
static const char *kind_key[SYNC_NKINDS] = {"locks", "semaphores", "condvars", "futex"};

static void object_name(const struct sync_report *sr, const struct sync_obj *o, char *buf, size_t n)
{
	const char *s = sr->names ? names__get(sr->names, o->pid, o->addr) : NULL;

	if (s && *s)
		snprintf(buf, n, "%s", s);
	else
		snprintf(buf, n, "0x%" PRIx64, (uint64_t)o->addr);
}

static const char *family(const struct sync_report *sr, const struct sync_obj *o)
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
	return sym;
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

int sync_sort__parse(const char *s)
{
	static const char *const keys[] = {"wait", "hold", "count"};
	int i;

	for (i = 0; i < 3; i++)
		if (!strcmp(s, keys[i]))
			return i;
	return -1;
}

static int sort_mode;

static int by_key(const void *a, const void *b)
{
	__u64 x = sort_key(*(const struct sync_obj *const *)a, sort_mode);
	__u64 y = sort_key(*(const struct sync_obj *const *)b, sort_mode);

	return x > y ? -1 : x < y;
}

/* Objects of a kind, sorted; caller frees. */
static const struct sync_obj **sorted(const struct sync_report *sr, int kind, size_t *n)
{
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
	sort_mode = kind == SYNC_LOCK ? sr->sort : SYNC_SORT_WAIT;
	qsort(v, *n, sizeof(*v), by_key);
	return v;
}

static double ms(__u64 ns)
{
	return ns / 1e6;
}

static double avg_us(__u64 total, __u64 n)
{
	return n ? total / 1e3 / n : 0;
}

/* The threads that waited most on o, "tid:ms tid:ms". */
static void top_waiters(const struct sync_obj *o, char *buf, size_t n)
{
	size_t len = 0;
	int k, used[TOP_N] = {-1, -1, -1};

	buf[0] = 0;
	for (k = 0; k < TOP_N && (__u32)k < o->nthreads; k++) {
		__u32 i, best = 0;
		int found = 0;

		for (i = 0; i < o->nthreads; i++) {
			int taken = 0, q;

			for (q = 0; q < k; q++)
				taken |= used[q] == (int)i;
			if (!taken &&
			    (!found || o->threads[i].wait_ns > o->threads[best].wait_ns)) {
				best = i;
				found = 1;
			}
		}
		used[k] = best;
		len += snprintf(buf + len, n > len ? n - len : 0, "%s%u:%.1f", k ? " " : "",
				o->threads[best].tid, ms(o->threads[best].wait_ns));
	}
}

static void text_locks(FILE *f, const struct sync_report *sr, const struct sync_obj **v, size_t n)
{
	char name[128], top[128];
	size_t i;

	fprintf(f, "%-28s %-8s %9s %9s %7s %11s %9s %11s %9s  %s\n", "lock", "type", "acquired",
		"contended", "failed", "wait ms", "avg us", "hold ms", "avg us",
		"top waiters tid:ms");
	for (i = 0; i < n; i++) {
		const struct sync_obj *o = v[i];

		object_name(sr, o, name, sizeof(name));
		top_waiters(o, top, sizeof(top));
		fprintf(f,
			"%-28s %-8s %9" PRIu64 " %9" PRIu64 " %7" PRIu64
			" %11.3f %9.2f %11.3f %9.2f  %s\n",
			name, family(sr, o), (uint64_t)o->count, (uint64_t)o->contended,
			(uint64_t)(o->failed + o->timeouts + o->interrupted), ms(o->wait_ns),
			avg_us(o->wait_ns, o->count), ms(o->hold_ns), avg_us(o->hold_ns, o->holds),
			top);
	}
}

static void text_sems(FILE *f, const struct sync_report *sr, const struct sync_obj **v, size_t n)
{
	char name[128], top[128];
	size_t i;

	fprintf(f, "%-28s %9s %9s %9s %9s %7s %11s %11s  %s\n", "semaphore", "P", "V", "P blocked",
		"P free", "failed", "wait ms", "blocked ms", "top waiters tid:ms");
	for (i = 0; i < n; i++) {
		const struct sync_obj *o = v[i];

		object_name(sr, o, name, sizeof(name));
		top_waiters(o, top, sizeof(top));
		fprintf(f,
			"%-28s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %7" PRIu64
			" %11.3f %11.3f  %s\n",
			name, (uint64_t)o->count, (uint64_t)o->posts, (uint64_t)o->contended,
			(uint64_t)(o->count - o->contended),
			(uint64_t)(o->failed + o->timeouts + o->interrupted), ms(o->wait_ns),
			ms(o->blocked_ns), top);
	}
}

static void text_conds(FILE *f, const struct sync_report *sr, const struct sync_obj **v, size_t n)
{
	char name[128], top[128];
	size_t i;

	fprintf(f, "%-28s %9s %9s %10s %8s %11s %9s  %s\n", "condition variable", "waits",
		"signals", "broadcasts", "timeouts", "wait ms", "avg us", "top waiters tid:ms");
	for (i = 0; i < n; i++) {
		const struct sync_obj *o = v[i];

		object_name(sr, o, name, sizeof(name));
		top_waiters(o, top, sizeof(top));
		fprintf(f,
			"%-28s %9" PRIu64 " %9" PRIu64 " %10" PRIu64 " %8" PRIu64
			" %11.3f %9.2f  %s\n",
			name, (uint64_t)o->count, (uint64_t)o->posts, (uint64_t)o->broadcasts,
			(uint64_t)o->timeouts, ms(o->wait_ns), avg_us(o->wait_ns, o->count), top);
	}
}

static void text_futex(FILE *f, const struct sync_report *sr, const struct sync_obj **v, size_t n)
{
	char name[128], top[128];
	size_t i;

	fprintf(f, "%-28s %9s %11s %14s %16s %9s %9s  %s\n", "futex word", "waits", "wait ms",
		"outside waits", "outside wait ms", "wakes", "woken", "top waiters tid:ms");
	for (i = 0; i < n; i++) {
		const struct sync_obj *o = v[i];

		object_name(sr, o, name, sizeof(name));
		top_waiters(o, top, sizeof(top));
		fprintf(f,
			"%-28s %9" PRIu64 " %11.3f %14" PRIu64 " %16.3f %9" PRIu64 " %9" PRIu64
			"  %s\n",
			name, (uint64_t)o->count, ms(o->wait_ns), (uint64_t)o->outside,
			ms(o->outside_ns), (uint64_t)o->posts, (uint64_t)o->broadcasts, top);
	}
}

void sync_report__text(FILE *f, const struct sync_report *sr)
{
	static void (*const table[SYNC_NKINDS])(FILE *, const struct sync_report *,
						const struct sync_obj **, size_t) = {
		text_locks, text_sems, text_conds, text_futex};
	size_t n, shown;
	int k;

	if (!sr->sync)
		return;
	for (k = 0; k < SYNC_NKINDS; k++) {
		const struct sync_obj **v = sorted(sr, k, &n);

		if (n) {
			shown = sr->max_rows && n > (size_t)sr->max_rows ? (size_t)sr->max_rows : n;
			fprintf(f, "%s (%zu):\n", kind_title[k], n);
			table[k](f, sr, v, shown);
			if (shown < n)
				fprintf(f, "(%zu more)\n", n - shown);
		}
		free(v);
	}
}

static void json_shares(struct json *j, const struct sync_obj *o)
{
	__u32 i;

	json_key(j, "threads");
	json_arr_begin(j);
	for (i = 0; i < o->nthreads; i++) {
		json_obj_begin(j);
		json_ku64(j, "tid", o->threads[i].tid);
		json_ku64(j, "count", o->threads[i].count);
		json_ku64(j, "wait_ns", o->threads[i].wait_ns);
		if (o->kind == SYNC_LOCK)
			json_ku64(j, "hold_ns", o->threads[i].hold_ns);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_sites(struct json *j, const struct sync_report *sr, const struct sync_obj *o)
{
	__u32 i;

	json_key(j, "call_sites");
	json_arr_begin(j);
	for (i = 0; i < o->nsites; i++) {
		const char *w = sr->names ? names__get(sr->names, o->pid, o->sites[i].site) : NULL;
		char hex[32];

		snprintf(hex, sizeof(hex), "0x%" PRIx64, (uint64_t)o->sites[i].site);
		json_obj_begin(j);
		json_kstr(j, "call_site", w && *w ? w : hex);
		json_ku64(j, "count", o->sites[i].count);
		json_ku64(j, "wait_ns", o->sites[i].wait_ns);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_object(struct json *j, const struct sync_report *sr, const struct sync_obj *o)
{
	char name[128];

	object_name(sr, o, name, sizeof(name));
	json_obj_begin(j);
	json_ku64(j, "pid", o->pid);
	json_ku64(j, "object", o->addr);
	json_kstr(j, "symbol", name);
	json_kstr(j, "type", family(sr, o));
	switch (o->kind) {
	case SYNC_LOCK:
		json_ku64(j, "acquisitions", o->count);
		json_ku64(j, "contended", o->contended);
		json_ku64(j, "try_failures", o->failed);
		json_ku64(j, "hold_ns", o->hold_ns);
		json_ku64(j, "max_hold_ns", o->max_hold_ns);
		json_ku64(j, "holds", o->holds);
		break;
	case SYNC_SEM:
		json_ku64(j, "p", o->count);
		json_ku64(j, "v", o->posts);
		json_ku64(j, "p_blocked", o->contended);
		json_ku64(j, "p_nonblocked", o->count - o->contended);
		json_ku64(j, "try_failures", o->failed);
		json_ku64(j, "paired", o->paired);
		json_ku64(j, "initial_tokens", o->initial_tokens);
		json_ku64(j, "unconsumed_v", o->q_len);
		json_ku64(j, "handoff_ns", o->handoff_ns);
		break;
	case SYNC_COND:
		json_ku64(j, "waits", o->count);
		json_ku64(j, "signals", o->posts);
		json_ku64(j, "broadcasts", o->broadcasts);
		break;
	case SYNC_FUTEX:
		json_ku64(j, "waits", o->count);
		json_ku64(j, "outside_waits", o->outside);
		json_ku64(j, "outside_wait_ns", o->outside_ns);
		json_ku64(j, "wakes", o->posts);
		json_ku64(j, "woken", o->broadcasts);
		break;
	}
	json_ku64(j, "timeouts", o->timeouts);
	json_ku64(j, "errors", o->interrupted);
	json_ku64(j, "wait_ns", o->wait_ns);
	json_ku64(j, "max_wait_ns", o->max_wait_ns);
	json_ku64(j, "blocked_ns", o->blocked_ns);
	json_shares(j, o);
	if (o->kind != SYNC_FUTEX)
		json_sites(j, sr, o);
	json_obj_end(j);
}

void sync_report__json(struct json *j, const struct sync_report *sr)
{
	size_t i, n;
	int k;

	for (k = 0; k < SYNC_NKINDS; k++) {
		const struct sync_obj **v = sr->sync ? sorted(sr, k, &n) : NULL;

		if (!v)
			n = 0;
		json_key(j, kind_key[k]);
		json_arr_begin(j);
		for (i = 0; i < n; i++)
			json_object(j, sr, v[i]);
		json_arr_end(j);
		free(v);
	}
}

__u64 sync_report__thread_wait(const struct sync_report *sr, __u32 tid)
{
	__u64 total = 0;
	size_t i;
	__u32 k;
	int kind;

	if (!sr->sync)
		return 0;
	for (kind = SYNC_LOCK; kind <= SYNC_COND; kind++) {
		for (i = 0; i < sync__count(sr->sync, kind); i++) {
			const struct sync_obj *o = sync__obj(sr->sync, kind, i);

			for (k = 0; k < o->nthreads; k++)
				if (o->threads[k].tid == tid)
					total += o->threads[k].wait_ns;
		}
	}
	return total;
}
