/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the records of a session refer to: the probe table and the counters,
 * as a live session builds them and as trace files store them, with the
 * limits on their strings. Userspace only (the BPF side sees probe ids).
 */
#ifndef SBT_FORMAT_H
#define SBT_FORMAT_H

#include "sbt/events.h"

#define SBT_SYMBOL_MAX 128
#define SBT_PATH_MAX   512
/* A task name as thread and exec records carry it (obj, site), NUL-terminated. */
#define SBT_COMM_LEN 17

/* What one probe id means; the probe table of a session or a trace file. */
struct sbt_probe_info {
	__u16 id;
	__u16 kind;		     /* SBT_PK_* */
	char symbol[SBT_SYMBOL_MAX]; /* function name, without version */
	char object[SBT_PATH_MAX];   /* file the probe is in */
	__u64 offset;		     /* file offset of the probed instruction */
};

/* A counter of the session (perf_event), as recorded in the trace header. */
#define SBT_COUNTER_NAME_MAX 64
#define SBT_CTRF_HARDWARE    1 /* a PMU event */
#define SBT_CTRF_FALLBACK    2 /* counted instead of a hardware event this machine lacks */
struct sbt_counter_info {
	char name[SBT_COUNTER_NAME_MAX];
	__u32 type;   /* perf_event_attr.type */
	__u64 config; /* perf_event_attr.config */
	__u32 flags;  /* SBT_CTRF_* */
};

/* The task name that THREAD_START, THREAD_EXIT and EXEC records carry in
 * obj and site. */
static inline void sbt_event_comm(const struct sbt_event *e, char comm[SBT_COMM_LEN])
{
	__builtin_memcpy(comm, &e->obj, 8);
	__builtin_memcpy(comm + 8, &e->site, 8);
	comm[SBT_COMM_LEN - 1] = 0;
}

/* A record as the BPF side makes it, for synthetic streams (unit tests,
 * bench/gen_trace). */
static inline struct sbt_event sbt_event_make(__u16 type, __u16 probe, __u32 pid, __u32 tid,
					      __u64 ts, __u64 obj, __u64 site)
{
	return (struct sbt_event){.ts = ts,
				  .obj = obj,
				  .site = site,
				  .pid = pid,
				  .tid = tid,
				  .type = type,
				  .probe = probe};
}

#endif /* SBT_FORMAT_H */
