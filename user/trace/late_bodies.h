/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Region bodies found while tracing (doc/design.md §5.1). A region body is
 * probed at start when the binary's symbol table names it; a stripped binary
 * names none, but every region frame's entry record carries the body's
 * address (the outlined function the team runs). The first time a process
 * forks a region whose body no probe covers, a probe goes there, and a
 * SBT_EV_PROBE_ARMED record tells the analysis from when its records count:
 * the region instances forked before that have some of their threads' shares
 * unseen and are no episodes.
 */
#ifndef SBT_LATE_BODIES_H
#define SBT_LATE_BODIES_H

#include "lib/hmap.h"
#include "user/resolve/probes.h"
#include "user/trace/context.h"

struct late_bodies {
	struct hmap seen;  /* (pid, body address): looked at; (pid, 0): the user was told */
	struct hmap late;  /* (probe id, 0): a probe added here */
	struct hmap armed; /* (pid, or 0 for all, probe id) -> when it took effect */
};

void late_bodies__init(struct late_bodies *lb);
void late_bodies__free(struct late_bodies *lb);

/* Region frame entry e of a traced process (its obj: the body's address).
 * When no probe of t covers the body for e->pid, add one, attach it (for
 * e->pid only, or every process when every_process) and fill *armed with the
 * record saying from when it counts. 1: *armed filled; 0: nothing to do (or
 * nothing possible: a warning said why); -ENOMEM. */
int late_bodies__see(struct late_bodies *lb, struct trace_ctx *c, struct probe_table *t,
		     int every_process, const struct sbt_event *e, struct sbt_event *armed);

#endif
