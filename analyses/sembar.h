/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Barriers made of semaphores (doc/design.md §5.1), recognized from the
 * records themselves: a semaphore is such a barrier when its release groups
 * (semgroups.h) are the same team of three or more threads each time, every
 * post taken before the next burst, a waiter waiting before the burst came
 * (a group whose waiters all came later is passed over), and the poster
 * (the last to arrive) changing, in its own groups or between it and
 * another semaphore releasing the same team. Posts left untaken (a queue),
 * a wait that returned with no post to explain it, a waiter still waiting
 * when the next burst comes (a mutex made of a semaphore hands on one post
 * at a time), a different team, eight groups with one poster (a producer)
 * or eight passed over in a row (a pool) rule a semaphore out for good. A
 * barrier of two threads is not told from a semaphore used as a mutex, nor
 * one whose last thread never changes from a producer. Pure: no I/O.
 */
#ifndef SBT_SEMBAR_H
#define SBT_SEMBAR_H

#include "sbt/format.h"

struct sembar;

/* A classifier over the probe table probes[nprobes] (NULL: no memory). */
struct sembar *sembar__new(const struct sbt_probe_info *probes, int nprobes);
void sembar__free(struct sembar *sb);
/* One record, in stream order. */
void sembar__observe(struct sembar *sb, const struct sbt_event *e);
/* Semaphores waited on whose nature is not decided yet. */
int sembar__pending(const struct sembar *sb);
/* No more evidence is coming: judge the groups in progress (a cut one
 * decides nothing), the undecided semaphores are not barriers. */
void sembar__decide_pending(struct sembar *sb);
/* Waiting for the evidence holds the live view too long: the undecided
 * semaphores are left undecided, each pending again at its next wait. */
void sembar__defer_pending(struct sembar *sb);
/* Whether semaphore sem of process pid was recognized as a barrier. */
int sembar__is_barrier(const struct sembar *sb, __u32 pid, __u64 sem);

/* Whether probe kind kind is a semaphore call. */
static inline int sembar__is_sem_kind(int kind)
{
	return kind == SBT_PK_SEM_WAIT || kind == SBT_PK_SEM_TRYWAIT || kind == SBT_PK_SEM_POST;
}

#endif /* SBT_SEMBAR_H */
