/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Records of several sources (ring buffers, one per CPU) put back in time
 * order before anything reads them (doc/design.md §4, Per-CPU ring
 * buffers). Each source is in time order, or nearly: a record out of order
 * within its source is put in place. The caller pushes what it drained and
 * flushes up to a horizon, a time before which no record can still come
 * from any source. Ties keep push order. A record older than one already
 * flushed (it came after the horizon passed it) is counted as late and
 * flushed next, out of order. Pure: no I/O.
 */
#ifndef SBT_ORDERED_H
#define SBT_ORDERED_H

#include <stddef.h>
#include "sbt/events.h"

struct ordered;

typedef int (*ordered_fn)(void *ctx, const struct sbt_event *e);

/* Ordering for nsrc sources (NULL: no memory). */
struct ordered *ordered__new(int nsrc);
void ordered__free(struct ordered *o);
/* Keep a copy of e, from source src, until it is flushed. 0 or -ENOMEM. */
int ordered__push(struct ordered *o, int src, const struct sbt_event *e);
/* Hand fn the records with ts <= horizon, oldest first, at most max of
 * them; a negative return of fn stops (that record is handed again next
 * time). Returns the records handed, or fn's negative return. */
long ordered__flush(struct ordered *o, __u64 horizon, size_t max, ordered_fn fn, void *ctx);
/* Records held. */
size_t ordered__len(const struct ordered *o);
/* Records pushed older than one already flushed. */
__u64 ordered__late(const struct ordered *o);

#endif
