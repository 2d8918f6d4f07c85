// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Thread life cycle of traced processes, through raw tracepoints (they attach
 * without tracefs, which is not always mounted). Thread starts give phase 0 of
 * late threads its true beginning; the exit of a process's last thread ends a
 * session.
 */
#include "common.bpf.h"

/* sched_process_fork(struct task_struct *parent, struct task_struct *child) */
SEC("raw_tracepoint/sched_process_fork")
int thread_start(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *parent = (struct task_struct *)ctx->args[0];
	struct task_struct *child = (struct task_struct *)ctx->args[1];
	__u32 ppid = BPF_CORE_READ(parent, tgid);
	__u32 cpid = BPF_CORE_READ(child, tgid);

	/* Threads only: a forked child process is not traced. */
	if (ppid != cpid || !sbt_is_target(cpid))
		return 0;
	return sbt_emit(SBT_EV_THREAD_START, 0, cpid, BPF_CORE_READ(child, pid),
			BPF_CORE_READ(parent, pid), 0);
}

/* sched_process_exit(struct task_struct *p, ...) runs in the exiting task. */
SEC("raw_tracepoint/sched_process_exit")
int thread_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx->args[0];
	__u32 pid = BPF_CORE_READ(task, tgid);
	int live;

	if (!sbt_is_target(pid))
		return 0;
	/* signal->live drops to zero when the last thread of the group exits */
	live = BPF_CORE_READ(task, signal, live.counter);
	return sbt_emit(SBT_EV_THREAD_EXIT, 0, pid, BPF_CORE_READ(task, pid), live == 0, 0);
}
