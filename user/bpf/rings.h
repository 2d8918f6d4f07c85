/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The consumer side of the ring buffers (doc/design.md §4, Per-CPU ring
 * buffers): one ring per CPU, created after load and put in the `rings`
 * map, or the one shared ring; drained with a budget per ring and handed
 * on in time order.
 */
#ifndef SBT_RINGS_H
#define SBT_RINGS_H

#include <stddef.h>
#include "sbt/events.h"

struct sbt;
struct rings;

typedef int (*rings_event_fn)(void *ctx, const struct sbt_event *e);

/* Before load: a ring for each of ncpus CPUs, sharing total_bytes (a power
 * of two each, a page at least), or (ncpus 0) one shared ring of
 * total_bytes, set up in skel. NULL with err set. */
struct rings *rings__new(struct sbt *skel, int ncpus, size_t total_bytes, char *err, size_t errlen);
/* After load: create, install and map the rings. 0, or a negative errno
 * with err set. */
int rings__start(struct rings *r, struct sbt *skel, char *err, size_t errlen);
void rings__free(struct rings *r);
/* Wait up to timeout_ms for a wakeup, drain every ring (a budget each),
 * hand fn the records no ring can still precede. Returns the records
 * drained, -EINTR when a signal came, or fn's negative return. */
int rings__drain(struct rings *r, int timeout_ms, rings_event_fn fn, void *ctx);
/* How full the fullest ring was when the last drain began, per mille. */
int rings__fill(const struct rings *r);
/* Drain everything and hand fn every record held (the end). */
int rings__flush(struct rings *r, rings_event_fn fn, void *ctx);
/* Records may carry a self-timed site's user-side time (include/sbt/events.h
 * SBT_USER_TS_BEHIND_MAX_NS): records are held that much longer before they
 * are handed on. */
void rings__user_stamped(struct rings *r);
/* Records that came after their time had been handed on (order may be off
 * there). */
__u64 rings__late(const struct rings *r);

#endif
