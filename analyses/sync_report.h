/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Tables of locks, semaphores, condition variables and futex waits, as text
 * or as JSON arrays (locks[], semaphores[], condvars[], futex[]). */
#ifndef SBT_SYNC_REPORT_H
#define SBT_SYNC_REPORT_H

#include <stdio.h>
#include "lib/hmap.h"
#include "lib/json.h"
#include "analyses/names.h"
#include "analyses/phases.h"
#include "analyses/sync.h"

enum sync_sort { SYNC_SORT_WAIT, SYNC_SORT_HOLD, SYNC_SORT_COUNT };

/* "wait", "hold" or "count"; -1 for anything else. */
int sync_sort__parse(const char *s);

struct sync_report {
	const struct sync *sync;
	const struct names *names;
	const struct sbt_probe_info *probes;
	int nprobes;
	int sort;     /* enum sync_sort */
	int max_rows; /* per table in text; 0 = all */
};

void sync_report__text(FILE *f, const struct sync_report *sr);
void sync_report__json(struct json *j, const struct sync_report *sr);
/* Each thread's total lock/semaphore/condvar wait, and the waits it caused
 * other threads per kind (SYNC_LOCK, SYNC_SEM, SYNC_COND; doc/design.md
 * §5.5), for the thread tables: summed over the objects once, then looked
 * up. */
struct sync_waits {
	struct hmap by_tid; /* tid -> struct sync_thread_waits */
};
struct sync_thread_waits {
	__u64 wait_ns;
	__u64 caused_ns[SYNC_FUTEX];
};
void sync_waits__init(struct sync_waits *w, const struct sync_report *sr);
__u64 sync_waits__of(const struct sync_waits *w, __u32 tid);
/* Thread tid's, all zero when it has none. */
struct sync_thread_waits sync_waits__thread(const struct sync_waits *w, __u32 tid);
void sync_waits__free(struct sync_waits *w);

#endif
