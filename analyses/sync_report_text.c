// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The synchronization tables as text: one table per kind (locks,
 * semaphores, condition variables, futex words), at most max_rows rows
 * each, with each object's top waiters.
 */
#include <inttypes.h>
#include <stdlib.h>
#include "analyses/sync_report_impl.h"

#define TOP_N 3

static double ms(__u64 ns)
{
	return ns / 1e6;
}

static double avg_us(__u64 total, __u64 n)
{
	return n ? total / 1e3 / n : 0;
}

/* The threads that waited most on o, "tid:ms tid:ms"; not those that only
 * posted or signalled (no wait). */
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
			if (!taken && o->threads[i].wait_ns &&
			    (!found || o->threads[i].wait_ns > o->threads[best].wait_ns)) {
				best = i;
				found = 1;
			}
		}
		if (!found)
			break;
		used[k] = best;
		len += snprintf(buf + len, n > len ? n - len : 0, "%s%u:%.1f", k ? " " : "",
				o->threads[best].tid, ms(o->threads[best].wait_ns));
	}
}

/* Failed, timed out or interrupted calls. */
static __u64 failures(const struct sync_obj *o)
{
	return o->failed + o->timeouts + o->interrupted;
}

static void lock_head(FILE *f)
{
	fprintf(f, "%-28s %-8s %9s %9s %7s %11s %9s %11s %9s  %s\n", "lock", "type", "acquired",
		"contended", "failed", "wait ms", "avg us", "hold ms", "avg us",
		"top waiters tid:ms");
}

static void lock_row(FILE *f, const struct sync_report *sr, const struct sync_obj *o,
		     const char *name, const char *top)
{
	fprintf(f,
		"%-28s %-8s %9" PRIu64 " %9" PRIu64 " %7" PRIu64 " %11.3f %9.2f %11.3f %9.2f  %s\n",
		name, sync_report__family(sr, o), (uint64_t)o->count, (uint64_t)o->contended,
		(uint64_t)failures(o), ms(o->wait_ns), avg_us(o->wait_ns, o->count), ms(o->hold_ns),
		avg_us(o->hold_ns, o->holds), top);
}

static void sem_head(FILE *f)
{
	fprintf(f, "%-28s %9s %9s %9s %9s %7s %11s %11s  %s\n", "semaphore", "P", "V", "P blocked",
		"P free", "failed", "wait ms", "blocked ms", "top waiters tid:ms");
}

static void sem_row(FILE *f, const struct sync_report *sr, const struct sync_obj *o,
		    const char *name, const char *top)
{
	fprintf(f,
		"%-28s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %7" PRIu64
		" %11.3f %11.3f  %s\n",
		name, (uint64_t)o->count, (uint64_t)o->posts, (uint64_t)o->contended,
		(uint64_t)(o->count - o->contended), (uint64_t)failures(o), ms(o->wait_ns),
		ms(o->blocked_ns), top);
}

static void cond_head(FILE *f)
{
	fprintf(f, "%-28s %9s %9s %10s %8s %11s %9s  %s\n", "condition variable", "waits",
		"signals", "broadcasts", "timeouts", "wait ms", "avg us", "top waiters tid:ms");
}

static void cond_row(FILE *f, const struct sync_report *sr, const struct sync_obj *o,
		     const char *name, const char *top)
{
	fprintf(f, "%-28s %9" PRIu64 " %9" PRIu64 " %10" PRIu64 " %8" PRIu64 " %11.3f %9.2f  %s\n",
		name, (uint64_t)o->count, (uint64_t)o->posts, (uint64_t)o->broadcasts,
		(uint64_t)o->timeouts, ms(o->wait_ns), avg_us(o->wait_ns, o->count), top);
}

static void futex_head(FILE *f)
{
	fprintf(f, "%-28s %9s %11s %14s %16s %9s %9s  %s\n", "futex word", "waits", "wait ms",
		"outside waits", "outside wait ms", "wakes", "woken", "top waiters tid:ms");
}

static void futex_row(FILE *f, const struct sync_report *sr, const struct sync_obj *o,
		      const char *name, const char *top)
{
	fprintf(f, "%-28s %9" PRIu64 " %11.3f %14" PRIu64 " %16.3f %9" PRIu64 " %9" PRIu64 "  %s\n",
		name, (uint64_t)o->count, ms(o->wait_ns), (uint64_t)o->outside, ms(o->outside_ns),
		(uint64_t)o->posts, (uint64_t)o->broadcasts, top);
}

/* The table of each kind (enum sync_kind). */
static const struct {
	const char *title;
	void (*head)(FILE *f);
	void (*row)(FILE *f, const struct sync_report *sr, const struct sync_obj *o,
		    const char *name, const char *top);
} tables[SYNC_NKINDS] = {
	{"Locks", lock_head, lock_row},
	{"Semaphores", sem_head, sem_row},
	{"Condition variables", cond_head, cond_row},
	{"Futex waits", futex_head, futex_row},
};

static void print_table(FILE *f, const struct sync_report *sr, int kind)
{
	char name[128], top[128];
	size_t i, n, shown;
	const struct sync_obj **v = sync_report__sorted(sr, kind, &n);

	if (n) {
		shown = sr->max_rows && n > (size_t)sr->max_rows ? (size_t)sr->max_rows : n;
		fprintf(f, "%s (%zu):\n", tables[kind].title, n);
		tables[kind].head(f);
		for (i = 0; i < shown; i++) {
			sync_report__object_name(sr, v[i], name, sizeof(name));
			top_waiters(v[i], top, sizeof(top));
			tables[kind].row(f, sr, v[i], name, top);
		}
		if (shown < n)
			fprintf(f, "(%zu more)\n", n - shown);
	}
	for (i = 0; kind == SYNC_COND && i < n; i++)
		if (v[i]->same_broadcaster && !v[i]->barrier) {
			sync_report__object_name(sr, v[i], name, sizeof(name));
			fprintf(f,
				"    %s: one thread's broadcast released the same waiters every "
				"time: a barrier whose last thread never changes, or a producer "
				"and idle consumers; --trace lock tells them apart\n",
				name);
		}
	free(v);
}

void sync_report__text(FILE *f, const struct sync_report *sr)
{
	int k;

	if (!sr->sync)
		return;
	for (k = 0; k < SYNC_NKINDS; k++)
		print_table(f, sr, k);
}
