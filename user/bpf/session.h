/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The BPF side of a tracing session: load the skeleton, choose targets,
 * attach probes, drain the ring buffer, read drop counters, detach. */
#ifndef SBT_SESSION_H
#define SBT_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "user/bpf/counters.h"
#include "user/resolve/probes.h"
#include "sbt/events.h"

struct session_opts {
	size_t ringbuf_bytes;		    /* power of two, >= page size: all rings together */
	int shared_ring;		    /* one ring for every CPU, not one per CPU */
	pid_t single_target;		    /* the one process traced (cheaper filtering), or 0 */
	int futex;			    /* trace futex() calls (raw syscall tracepoints) */
	const struct counter_set *counters; /* read at barrier boundaries; may be NULL */
	int system_wide;		    /* -a: thread/exec records of every process */
	int follow; /* a process tree: -- CMD, -p --follow (session__follow) */
	/* a calibration's own session (user/trace/calibrate.c): no process
	 * tracepoints, and the futex ones (futex) loaded but attached only by
	 * session__attach_futex() */
	int calibration;
	__u64 inject_ns; /* --inject-delay: spun per probe hit */
};

typedef int (*session_event_fn)(void *ctx, const struct sbt_event *e);

struct session;

/* Root or CAP_BPF+CAP_PERFMON? 0, or -EPERM with a message in err. */
int session__check_privileges(char *err, size_t errlen);
struct session *session__open(const struct session_opts *o, char *err, size_t errlen);
/* The BPF filter of futex, thread and counter records (pids). */
int session__add_target(struct session *s, pid_t pid);
void session__remove_target(struct session *s, pid_t pid);
/* Following a tree: pid and, from now on, the processes it starts are
 * traced (those of its tree that stop where they may map new files are
 * listed by session__take_paused()). 0, or a negative errno. */
int session__follow(struct session *s, pid_t pid);
/* pid leaves the tree (a process found gone as it was added). */
void session__unfollow(struct session *s, pid_t pid);
/* Whether a process of the tree is still there (neither gone nor a zombie). */
int session__tree_alive(const struct session *s);
/* Processes of the tree stopped since the last call: into pids[0..max), taken
 * off the list; the caller probes their files, then continues them (SIGCONT)
 * and says so (session__resumed). Until then they are listed as resuming,
 * so that the guard (user/trace/guard.h) continues them if we die in
 * between. Returns how many. */
int session__take_paused(struct session *s, pid_t *pids, int max);
void session__resumed(struct session *s, const pid_t *pids, int n);
/* Process pid of the tree is not stopped where it loads libraries (an MPI
 * launcher), only at its execs. 0, or a negative errno. */
int session__never_pause(struct session *s, pid_t pid);
/* The two lists (BPF maps keyed by pid: stopped, resuming), for the guard.
 * 0, or a negative errno. */
int session__stopped_lists(struct session *s, int fds[2]);
/* Records of process pid lost to a full ring buffer. */
__u64 session__pid_drops(struct session *s, pid_t pid);
/* Entry probe on the dynamic loader's _dl_debug_state (system-wide mode):
 * SBT_EV_MAPS records. */
int session__attach_loader(struct session *s, const char *path, uint64_t offset, pid_t pid);
/* Attach entry and return probes p[0..n) for process pid (-1: every process
 * mapping their files). */
int session__attach_probes(struct session *s, const struct probe *p, int n, pid_t pid, char *err,
			   size_t errlen);
/* The futex syscall tracepoints of a calibration session, until
 * session__detach(). 0 or a negative errno, the reason in err. */
int session__attach_futex(struct session *s, char *err, size_t errlen);
/* Attach entry and return probes for every entry of t, for process pid. */
int session__attach(struct session *s, const struct probe_table *t, pid_t pid, char *err,
		    size_t errlen);
/* Wait up to timeout_ms for data, then drain the rings; calls fn per record,
 * in time order, for the records no ring can still precede (user/bpf/rings.h).
 * Returns records drained, or -EINTR when a signal arrived. */
int session__drain(struct session *s, int timeout_ms, session_event_fn fn, void *ctx);
/* The end: drain everything and call fn for every record still held. */
int session__flush(struct session *s, session_event_fn fn, void *ctx);
/* Records that reached us after later ones had been handed on. */
__u64 session__late(const struct session *s);
/* How full the fullest ring was when the last drain began, per mille. */
int session__fill(const struct session *s);
/* Failed reservations: total, and per CPU into per_cpu[0..max). */
__u64 session__drops(struct session *s, __u64 *per_cpu, int max);
int session__ncpus(void);
/* Tracing stops: the BPF programs record nothing more and stop no process
 * from now on, before their links are removed. Async-signal-safe. */
void session__stop(struct session *s);
/* Remove the uprobes and tracepoints (in parallel: each removal waits for
 * RCU grace periods); the ring buffer stays readable. */
void session__detach(struct session *s);
void session__close(struct session *s);

#endif
