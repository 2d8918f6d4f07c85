/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Barriers made of a mutex and a condition variable (doc/design.md §5.1),
 * recognized from the records themselves. A condvar is such a barrier when
 * the threads waiting on it are released together by a broadcast from a
 * thread that did not wait (the last to arrive), the same team every time,
 * the last one changing (a producer waking idle consumers is always the
 * same) unless unlocks are probed, and, where they are, no waiter waits
 * again without first unlocking the mutex (a consumer that woke to an
 * empty queue does).
 * A signal, a broadcast with nobody waiting or a different team rules a
 * condvar out for good. Pure: no I/O.
 */
#ifndef SBT_CONDBAR_H
#define SBT_CONDBAR_H

#include "sbt/format.h"

struct condbar;

/* A classifier over the probe table probes[nprobes] (NULL: no memory). */
struct condbar *condbar__new(const struct sbt_probe_info *probes, int nprobes);
void condbar__free(struct condbar *cb);
/* One record, in stream order. */
void condbar__observe(struct condbar *cb, const struct sbt_event *e);
/* Condvars waited on whose nature is not decided yet. */
int condbar__pending(const struct condbar *cb);
/* No more evidence is coming (or waiting for it costs too much): the
 * undecided condvars are not barriers. */
void condbar__decide_pending(struct condbar *cb);
/* Waiting for the evidence holds the live view too long: the undecided
 * condvars are left undecided, each pending again at its next wait, and
 * may still be found barriers from their next groups on. */
void condbar__defer_pending(struct condbar *cb);
/* Whether condvar cv of process pid was recognized as a barrier. */
int condbar__is_barrier(const struct condbar *cb, __u32 pid, __u64 cv);
/* Whether condvar cv of process pid was ruled out only for being released
 * by the same thread every time without unlocks probed to tell (a barrier
 * whose last thread never changes, or a producer and idle consumers). */
int condbar__same_broadcaster(const struct condbar *cb, __u32 pid, __u64 cv);
/* The mutex the waits on condvar cv of process pid gave up (0: none seen):
 * a condvar barrier's threads leave it by unlocking that mutex. */
__u64 condbar__mutex(const struct condbar *cb, __u32 pid, __u64 cv);
/* Whether probe id is a broadcast (what releases a condvar barrier). */
int condbar__is_broadcast(const struct condbar *cb, __u16 probe);

#endif /* SBT_CONDBAR_H */
