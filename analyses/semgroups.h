/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Release groups of semaphores (doc/design.md §5.1), the raw material of
 * barriers made of semaphores (sembar.h). A *group* of a semaphore is one
 * burst of posts by one thread, its poster, and the waits that take those
 * posts: the threads already waiting when the burst began and those that
 * entered a wait while a post of it was still untaken or its poster still
 * posting. A post begins a new group unless it continues its poster's
 * burst (its previous semaphore call was a post of the group) with nobody
 * waiting for a later group. A wait entered when no post of the current
 * group is left to take, nor may come, waits for the next group. Pure: no
 * I/O.
 */
#ifndef SBT_SEMGROUPS_H
#define SBT_SEMGROUPS_H

#include "sbt/format.h"

/* A group of a semaphore, when the next one begins (or at the end). */
struct sg_group {
	__u64 seq; /* its number among the semaphore's groups, from 1 */
	__u32 poster;
	const __u32 *team; /* the poster and every thread that waited in it, sorted */
	__u32 nteam;
	__u64 posts, taken;  /* posts made, and taken by its waits */
	__u32 waited_before; /* threads waiting on the semaphore when its first post came */
	__u32 still_waiting; /* threads of it still in their wait */
	__u32 unexplained;   /* waits returned with no post of theirs to take */
};

/*
 * What one semaphore call means (semgroups__enter, semgroups__exit). The
 * expected arrivals of a group are the previous group's team; for the
 * first group, whose team is not known yet, its members and the posts no
 * wait has taken yet (a waiter that counted itself in before the last
 * thread may reach its wait after everyone else left), and one more while
 * its poster may still post (semgroups__burst_over()).
 */
struct sg_step {
	__u64 sem;	  /* the call's semaphore (0: a call the tracker does not know) */
	__u64 group;	  /* the group the call belongs to (0: none) */
	int arrives;	  /* the thread's first call in that group */
	__u64 release_ns; /* the group's first post (0: not posted yet) */
	__u32 expect;	  /* arrivals the group's episode waits for now (below) */
	__u64 closed;	  /* a group the call closed by beginning the next (0: none) */
	int unposted;	  /* a wait took a post before any post was seen: the
			   * semaphore's initial value (a mutex, a pool) */
};

typedef void (*sg_closed_fn)(void *ctx, __u32 pid, __u64 sem, const struct sg_group *g);

struct semgroups;

/* A tracker; closed (may be NULL) gets each group as the next begins.
 * NULL: no memory. */
struct semgroups *semgroups__new(sg_closed_fn closed, void *ctx);
void semgroups__free(struct semgroups *g);
/* The entry of a call of probe kind kind (SBT_PK_SEM_*) on semaphore sem,
 * record e. */
void semgroups__enter(struct semgroups *g, const struct sbt_event *e, int kind, __u64 sem,
		      struct sg_step *s);
/* The return (record e) of a wait by thread e->tid, entered in the session
 * or before; posts need none. */
void semgroups__exit(struct semgroups *g, const struct sbt_event *e, int kind, struct sg_step *s);
/* Semaphore sem of process pid: its current group, to closed (the end of
 * the trace; the group stays current). */
void semgroups__close(struct semgroups *g, __u32 pid, __u64 sem);
/* Thread tid's burst of posts on semaphore sem of process pid is over (its
 * next record is no post): its next post begins a group. Returns the
 * group it closed the burst of, with the arrivals it expects now in
 * *expect; 0 when tid is not the current group's poster. */
__u64 semgroups__burst_over(struct semgroups *g, __u32 pid, __u64 sem, __u32 tid, __u32 *expect);

/* The key of group seq of semaphore sem among the open barrier episodes:
 * bit 63 set, so no barrier address (user space, below 2^47) nor region
 * instance number takes it. */
static inline __u64 semgroups__key(__u64 sem, __u64 seq)
{
	return (1ULL << 63) | ((seq & 0x7fffULL) << 48) | (sem & 0xffffffffffffULL);
}

#endif /* SBT_SEMGROUPS_H */
