/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside the synchronization analysis (analyses/sync.h): sync.c counts and
 * times calls per object; sync_caused.c finds the waits a thread caused
 * other threads (doc/design.md §5.5). Private to them.
 */
#ifndef SBT_SYNC_IMPL_H
#define SBT_SYNC_IMPL_H

#include "lib/hmap.h"
#include "analyses/sync.h"

struct sync {
	const struct sbt_probe_info *probes;
	int nprobes;
	struct hmap objs[SYNC_NKINDS]; /* (pid, addr) -> struct sync_obj */
	struct sync_obj **list[SYNC_NKINDS];
	size_t n[SYNC_NKINDS], cap[SYNC_NKINDS];
	struct hmap holds; /* (tid, lock) -> struct sync_hold */
	/* an object's thread shares and call sites, found in constant time
	 * however many threads or sites it has: (object, tid or site) -> index */
	struct hmap share_ix, site_ix;
	sync_pair_fn on_pair;
	void *pair_ctx;
};

/* A lock held by a thread: since when, and the lock's waited_ns then;
 * suspended: given up by a condition wait until it returns. */
struct sync_hold {
	__u64 start, waited_ns;
	int suspended;
	int shared; /* a read lock's */
	int depth;  /* a recursive mutex locked again by its holder: unlocks before it is let go */
};

/* sync.c: object (pid, addr) of a kind, made on first use; thread tid's
 * share of o, made on first use (NULL: no memory). */
struct sync_obj *sync_obj_get(struct sync *s, int kind, __u32 pid, __u64 addr, __u16 probe);
struct sync_share *sync_share_of(struct sync *s, struct sync_obj *o, __u32 tid);

/* sync_caused.c: waits caused to others. The thread of share sh starts
 * waiting for lock o at ts, or stops (it acquired it, or gave up); a hold
 * of o begins at ts (h: the hold to mark), or hold h by tid ends at ts; a P
 * paired with the V it took (semaphore o); a signal of condvar o; a wait on
 * condvar o returned. */
void sync_caused__acquire(struct sync_obj *o, struct sync_share *sh, __u64 ts);
void sync_caused__acquired(struct sync_obj *o, struct sync_share *sh, __u64 ts);
void sync_caused__hold_begin(struct sync_obj *o, struct sync_hold *h, __u64 ts);
void sync_caused__hold_end(struct sync *s, struct sync_obj *o, __u32 tid, const struct sync_hold *h,
			   __u64 ts);
void sync_caused__late_post(struct sync *s, struct sync_obj *o, const struct sync_call *c,
			    const struct sync_post *v);
void sync_caused__signal(struct sync_obj *o, __u32 tid, __u64 ts);
void sync_caused__cond_woken(struct sync *s, struct sync_obj *o, const struct sync_call *c);

#endif /* SBT_SYNC_IMPL_H */
