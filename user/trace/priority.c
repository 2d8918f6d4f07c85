// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The drain thread's priority while tracing (user/trace/priority.h). */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include "lib/log.h"
#include "user/trace/priority.h"

/* A ring this full (per mille) raises the priority; one this empty lowers
 * it again. At the default 8 MiB a ring, a quarter is ~44,000 records. */
#define RAISE_AT    250
#define LOWER_BELOW 60

/* On Linux, PRIO_PROCESS with who 0 is the calling thread: the job, forked
 * before, and sbt-bpf's other threads keep theirs. */
static void set_nice(struct priority *p, int low)
{
	if (setpriority(PRIO_PROCESS, 0, low ? p->low : p->normal)) {
		if (!p->warned++)
			log_warn("cannot set the drain's priority to nice %d: %s",
				 low ? p->low : p->normal, strerror(errno));
		return;
	}
	p->is_low = low;
}

void priority__begin(struct priority *p, int low)
{
	*p = (struct priority){.enabled = low >= 0, .low = low};
	if (!p->enabled)
		return;
	errno = 0;
	p->normal = getpriority(PRIO_PROCESS, 0);
	if (errno) {
		p->enabled = 0;
		return;
	}
	set_nice(p, 1);
}

int priority__wants_low(int is_low, int fill_permille)
{
	return is_low ? fill_permille < RAISE_AT : fill_permille < LOWER_BELOW;
}

void priority__adjust(struct priority *p, int fill_permille)
{
	int low;

	if (!p->enabled)
		return;
	low = priority__wants_low(p->is_low, fill_permille);
	if (low != p->is_low)
		set_nice(p, low);
}

void priority__raise(struct priority *p)
{
	if (p->enabled && p->is_low)
		set_nice(p, 0);
}
