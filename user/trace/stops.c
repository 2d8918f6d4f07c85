// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include "lib/hmap.h"
#include "lib/proc.h"
#include "user/trace/stops.h"

/* /proc is read at most this often per process (every thread's stat). */
#define STOPS_CHECK_NS 100000000ULL

/* What was seen of one process's threads. */
struct stop_watch {
	__u64 checked_ns; /* /proc last read */
	__u64 seen_ns;	  /* a thread last seen stopped; 0: never */
	int stopped;	  /* threads stopped at the last read */
};

struct stops {
	struct hmap procs; /* pid -> struct stop_watch */
};

struct stops *stops__new(void)
{
	struct stops *s = calloc(1, sizeof(*s));

	if (s)
		hmap_init(&s->procs);
	return s;
}

void stops__free(struct stops *s)
{
	if (!s)
		return;
	hmap_free_values(&s->procs);
	free(s);
}

static struct stop_watch *watch_of(struct stops *s, __u32 pid)
{
	struct stop_watch *w = hmap_get(&s->procs, pid, 0);

	return w ? w : hmap_put_new(&s->procs, pid, 0, sizeof(*w));
}

/* The stopped threads of job's process, read again if due; into the
 * analysis, where a hang report finds them. */
static void look(struct stop_watch *w, struct job *job, __u64 now_ns)
{
	__u32 tids[PH_STOPPED_KEPT];

	if (w->checked_ns && now_ns - w->checked_ns < STOPS_CHECK_NS)
		return;
	w->checked_ns = now_ns;
	w->stopped = proc__stopped_tasks(job->pid, tids, PH_STOPPED_KEPT);
	if (w->stopped)
		w->seen_ns = now_ns;
	phases__set_stopped(job->ph, tids, w->stopped);
}

void stops__check_hangs(struct stops *s, struct job *job, __u64 now_ns, __u64 timeout_ns)
{
	struct stop_watch *w;

	/* a stop that makes a wait cross the timeout has lasted a good part of
	 * it: looked for from half the timeout on */
	if (phases__longest_wait(job->ph, now_ns) >= timeout_ns / 2 &&
	    (w = watch_of(s, job->pid))) {
		look(w, job, now_ns);
		/* running again for less than a timeout: its waits hold the stop */
		if (!w->stopped && w->seen_ns && now_ns - w->seen_ns < timeout_ns)
			return;
	}
	phases__check_hangs(job->ph, now_ns, timeout_ns);
}
