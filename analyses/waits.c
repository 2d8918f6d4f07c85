// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Waits inside a thread's compute (doc/design.md §5.5): lock acquisitions,
 * semaphore P's, condition waits and task waits, each kind apart, as measured
 * and as approximated. Counted for the thread as each call returns; an
 * arrival at a barrier takes what its compute window held, and a departure
 * begins the next window. Together they are the thread's sync_wait_ns, and
 * its compute less them is its useful compute.
 */
#include "analyses/phases_impl.h"

int waits__kind(int probe_kind)
{
	switch (probe_kind) {
	case SBT_PK_LOCK:
		return PH_WAIT_LOCK;
	case SBT_PK_SEM_WAIT:
		return PH_WAIT_SEM;
	case SBT_PK_COND_WAIT:
		return PH_WAIT_COND;
	case SBT_PK_TASK_WAIT:
		return PH_WAIT_TASK;
	}
	return -1;
}

__u64 waits__approx_end(const struct phases *p, const struct ph_thread *t, __u64 tm)
{
	if (!approx__enabled(p))
		return 0;
	return max_u64(approx__time_based(t, tm), t->ta_prev);
}

void waits__add(struct ph_thread *t, int kind, __u64 ns, __u64 ns_a)
{
	if (kind < 0 || kind >= PH_WAIT_NKINDS)
		return;
	t->sync_wait_ns += ns;
	t->waits_total.ns[kind] += ns;
	t->waits_total_a.ns[kind] += ns_a;
}

/* Totals less their marks: what the window since the marks holds. */
static void since(struct ph_waits *out, const struct ph_waits *total, const struct ph_waits *mark)
{
	int k;

	for (k = 0; k < PH_WAIT_NKINDS; k++)
		out->ns[k] = sub0(total->ns[k], mark->ns[k]);
}

void waits__arrival(const struct ph_thread *t, struct ph_arrival *a)
{
	a->sync_wait_ns = t->sync_wait_ns - t->sync_mark;
	since(&a->waits, &t->waits_total, &t->waits_mark);
	since(&a->waits_a, &t->waits_total_a, &t->waits_mark_a);
}

void waits__mark(struct ph_thread *t)
{
	t->sync_mark = t->sync_wait_ns;
	t->waits_mark = t->waits_total;
	t->waits_mark_a = t->waits_total_a;
}
