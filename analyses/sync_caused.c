// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Waits a thread caused other threads (doc/design.md §5.5), as far as the
 * records tell:
 *   - a lock: every moment another thread waits in an acquire of it while
 *     this thread holds it (the time integral of the number of threads in
 *     an acquire, taken over each hold: one update per record, however
 *     many wait);
 *   - a semaphore: a P that waited for the V it was paired with (FIFO, as
 *     sync.c pairs them), from its entry to that V, to the V's poster;
 *   - a condvar: a wait from its entry to the latest signal or broadcast
 *     of the condvar before its return, to the thread that sent it (a wait
 *     that timed out was woken by none).
 * Waits at condvars and semaphores that are barriers are barrier time, not
 * caused here.
 */
#include <stdint.h>
#include "analyses/sync_impl.h"

static void cause(struct sync *s, struct sync_obj *o, __u32 tid, __u64 ns)
{
	struct sync_share *sh;

	if (!ns || !(sh = sync_share_of(s, o, tid)))
		return;
	sh->caused_ns += ns;
	o->caused_ns += ns;
}

/* The waiting integral of lock o up to ts (records may come a little out
 * of time order: it never goes back; a crafted trace's times near 2^64
 * saturate it). */
static void advance(struct sync_obj *o, __u64 ts)
{
	__u64 more;

	if (ts <= o->waited_ts)
		return;
	if (__builtin_mul_overflow(ts - o->waited_ts, (__u64)o->nwaiting, &more) ||
	    __builtin_add_overflow(o->waited_ns, more, &o->waited_ns))
		o->waited_ns = UINT64_MAX;
	o->waited_ts = ts;
}

void sync_caused__acquired(struct sync_obj *o, struct sync_share *sh, __u64 ts)
{
	if (!sh || !sh->waiting)
		return;
	advance(o, ts);
	o->nwaiting--;
	sh->waiting = 0;
}

/* A thread still counted as waiting (its return was lost) is counted once:
 * until it acquires the lock again. */
void sync_caused__acquire(struct sync_obj *o, struct sync_share *sh, __u64 ts)
{
	if (!sh || sh->waiting)
		return;
	advance(o, ts);
	o->nwaiting++;
	sh->waiting = 1;
}

void sync_caused__hold_begin(struct sync_obj *o, struct sync_hold *h, __u64 ts)
{
	h->start = ts;
	h->waited_ns = 0;
	h->suspended = 0;
	if (!o)
		return;
	advance(o, ts);
	h->waited_ns = o->waited_ns;
}

void sync_caused__hold_end(struct sync *s, struct sync_obj *o, __u32 tid, const struct sync_hold *h,
			   __u64 ts)
{
	advance(o, ts);
	cause(s, o, tid, o->waited_ns > h->waited_ns ? o->waited_ns - h->waited_ns : 0);
}

void sync_caused__late_post(struct sync *s, struct sync_obj *o, const struct sync_call *c,
			    const struct sync_post *v)
{
	__u64 until;

	if (c->barrier || v->ts <= c->enter_ns)
		return;
	until = v->ts < c->exit_ns ? v->ts : c->exit_ns;
	cause(s, o, v->tid, until - c->enter_ns);
}

void sync_caused__signal(struct sync_obj *o, __u32 tid, __u64 ts)
{
	o->signal_tid = tid;
	o->signal_ts = ts;
}

void sync_caused__cond_woken(struct sync *s, struct sync_obj *o, const struct sync_call *c)
{
	if (c->barrier || (int)c->retval || !o->signal_tid || o->signal_tid == c->tid ||
	    o->signal_ts <= c->enter_ns || o->signal_ts > c->exit_ns)
		return;
	cause(s, o, o->signal_tid, o->signal_ts - c->enter_ns);
}
