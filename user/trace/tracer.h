/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The state of a tracing command (live, record, top), shared by the files
 * that implement it: cmd_trace.c (set-up, drain loop, finish), system.c
 * (several processes: -p lists and system-wide -a) and top.c (the live
 * table).
 */
#ifndef SBT_TRACER_H
#define SBT_TRACER_H

#include <stdio.h>
#include <sys/types.h>
#include <time.h>
#include "user/trace/calibrate.h"
#include "user/bpf/counters.h"
#include "user/resolve/discover.h"
#include "user/trace/env.h"
#include "lib/hmap.h"
#include "analyses/jobs.h"
#include "analyses/names.h"
#include "user/resolve/probes.h"
#include "user/bpf/session.h"
#include "lib/tracefile.h"

struct top;

/* A thread created before its process became a job (system-wide mode). */
struct pending_thread {
	__u32 pid;
	__u64 start_ns;
	char comm[SBT_COMM_LEN];
};

struct tracer {
	struct env env;
	int multi;		   /* several processes: -a or several -p */
	pid_t pid;		   /* the one process of single mode */
	int launched;		   /* -- CMD */
	char command[1024];	   /* single mode; "-a" or the pid list otherwise */
	struct probe_table probes; /* single mode */
	struct discover disc;	   /* multi mode */
	/* SBT_MAX_PROBES entries each, indexed by probe id: they do not move
	 * when probes are found later */
	struct sbt_probe_info *infos;
	__u64 *alpha_enter, *alpha_exit;
	__u64 alpha_counters; /* per counter record */
	struct calibration cal;
	int cal_ok;
	struct session *session;
	struct names *names;
	struct jobs *jobs;
	struct counter_set counters;
	struct tf_writer *writer;
	FILE *null_out; /* reports nobody reads (record, top) */
	__u64 start_ns;
	__s64 realtime_offset_ns;
	int target_gone;
	int child_status;
	int running; /* jobs of -p that have not exited */
	/* system-wide: processes that are not jobs (yet), and their threads */
	struct hmap procs;   /* pid -> struct proc_note */
	struct hmap pending; /* tid -> struct pending_thread */
	int rescans;	     /* procs with a rescan due */
	struct top *top;
	/* status line */
	int tty;
	int status_shown;
	__u64 status_ns, status_events;
};

/* cmd_trace.c */
__u64 mono_ns(clockid_t clk);
void read_cmdline(pid_t pid, char *buf, size_t n);
/* The task name of a THREAD_START, THREAD_EXIT or EXEC record. */
void event_comm(const struct sbt_event *e, char comm[SBT_COMM_LEN]);
/* The thread group (process) of a task; -1 when it does not exist. */
int proc_tgid(pid_t pid);
void tracer__name_thread(struct tracer *t, __u32 pid, __u32 tid);
/* Fill infos and probe costs of probe ids [first, first + n). */
void tracer__set_probes(struct tracer *t, const struct probe *p, int first, int n);
/* Threads of the job's process in /proc: phase 0 starts at start_of(tid),
 * or the job's start. */
void tracer__add_threads(struct tracer *t, struct job *job);

/* system.c: several processes */
/* Set up -p PID,PID... or -a: discovery, attachment, jobs. EXIT_* code. */
int system__attach(struct tracer *t);
/* Records about processes rather than jobs (exec, loader, threads of
 * processes not traced yet); starts jobs at their first barrier. Returns 1
 * when the record was consumed. */
int system__record(struct tracer *t, const struct sbt_event *e);
/* After a drain: probe files that processes mapped since. */
void system__rescan(struct tracer *t);
/* A job's process exited: its report, and the filter entry goes. */
void system__job_exited(struct tracer *t, struct job *job);
/* Lost records of a job. */
__u64 system__job_drops(struct tracer *t, const struct job *job);
void system__free(struct tracer *t);

/* top.c: the live table */
struct top *top__new(int interval_ms);
/* Called after every drain: redraws when the interval has passed, reads
 * keys. Returns 1 when the user asked to quit. */
int top__tick(struct top *tp, struct tracer *t, __u64 now_ns);
void top__free(struct top *tp);

#endif
