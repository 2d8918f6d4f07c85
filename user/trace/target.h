/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What is traced: one process (-p PID: target_one.c) or several (-p
 * PID,PID..., -a, -- CMD and the processes it starts: target_many.c). A
 * target finds its processes,
 * resolves and attaches their probes and starts their jobs; the tracer's
 * loop (tracer.c) only calls these operations.
 */
#ifndef SBT_TARGET_H
#define SBT_TARGET_H

#include "user/trace/context.h"

struct target;

struct target_ops {
	/* Before the BPF session opens: start or find the process (one
	 * process: its pid goes into the BPF side's fast filter). EXIT_*. */
	int (*prepare)(struct target *tg);
	/* Attach the probes, start the jobs, set ctx->start_ns and
	 * ctx->command, say what is traced. EXIT_*. */
	int (*attach)(struct target *tg);
	/* A launched command may run now. EXIT_*. */
	int (*release)(struct target *tg);
	/* A record about processes rather than jobs (exec, the loader,
	 * threads of processes not traced yet). 1: consumed. */
	int (*record)(struct target *tg, const struct sbt_event *e);
	/* After each drain: probe what processes mapped since. */
	void (*rescan)(struct target *tg);
	/* The exit of job's last thread was seen. */
	void (*job_exited)(struct target *tg, struct job *job);
	/* Records of job lost to a full ring buffer. */
	__u64 (*job_drops)(const struct target *tg, const struct job *job);
	/* Nothing is left to trace. */
	int (*gone)(struct target *tg);
	/* The reports are out: anything the user should know. Optional. */
	void (*finish)(struct target *tg);
	/* The session was stopped by a signal (Ctrl-C, SIGTERM, SIGHUP) at
	 * stop_ns, which may have reached a launched command too: reap it if
	 * it ends (launch__await_end()). Optional. */
	void (*interrupted)(struct target *tg, __u64 stop_ns);
	/* 1 and the wait status (waitpid) of a launched command that ended;
	 * 0 while it runs or when it is not ours to wait for. Optional. */
	int (*ended)(const struct target *tg, int *wstatus);
	void (*free)(struct target *tg);
};

struct target {
	const struct target_ops *ops;
	struct trace_ctx *ctx;
	pid_t pid;   /* the one process, once prepared; 0 with several */
	int several; /* several processes: a report each (-- CMD: as it turns out) */
	/* once attached: the probe table, and whether its probes go in for
	 * every process (-a, -- CMD) or per process (-p); probes found while
	 * tracing join it (late_bodies.h) */
	struct probe_table *table;
	int every_process;
};

/* -p PID. NULL on allocation failure. */
struct target *target_one__new(struct trace_ctx *ctx);
/* -p PID,PID..., -a, -- CMD */
struct target *target_many__new(struct trace_ctx *ctx);

#endif
