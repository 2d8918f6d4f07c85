/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The BPF side of a tracing session: load the skeleton, choose targets,
 * attach probes, drain the ring buffer, read drop counters, detach. */
#ifndef SBT_SESSION_H
#define SBT_SESSION_H

#include <stddef.h>
#include <sys/types.h>
#include "counters.h"
#include "probes.h"
#include "sbt/events.h"

struct session_opts {
	size_t ringbuf_bytes;		    /* power of two, >= page size */
	pid_t single_target;		    /* the one process traced (cheaper filtering), or 0 */
	int futex;			    /* trace futex() calls (raw syscall tracepoints) */
	const struct counter_set *counters; /* read at barrier boundaries; may be NULL */
};

typedef int (*session_event_fn)(void *ctx, const struct sbt_event *e);

struct session;

/* Root or CAP_BPF+CAP_PERFMON? 0, or -EPERM with a message in err. */
int session__check_privileges(char *err, size_t errlen);
struct session *session__open(const struct session_opts *o, char *err, size_t errlen);
int session__add_target(struct session *s, pid_t pid);
/* Attach entry and return probes for every entry of t, for process pid. */
int session__attach(struct session *s, const struct probe_table *t, pid_t pid, char *err,
		    size_t errlen);
/* Wait up to timeout_ms for data, then drain everything; calls fn per record.
 * Returns records drained, or -EINTR when a signal arrived. */
int session__drain(struct session *s, int timeout_ms, session_event_fn fn, void *ctx);
/* Failed reservations: total, and per CPU into per_cpu[0..max). */
__u64 session__drops(struct session *s, __u64 *per_cpu, int max);
int session__ncpus(void);
/* Remove the uprobes; the ring buffer stays readable. */
void session__detach(struct session *s);
void session__close(struct session *s);

#endif
