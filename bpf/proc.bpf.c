// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Thread life cycle of traced processes, through raw tracepoints (they attach
 * without tracefs, which is not always mounted). Thread starts give phase 0 of
 * late threads its true beginning; the exit of a process's last thread ends a
 * session.
 */
#include "common.bpf.h"

/* Thread records carry the thread's name (16 bytes) in obj and site: a
 * short-lived thread is gone before userspace could read /proc. */
static __always_inline int emit_with_comm(__u16 type, __u16 flag, __u32 pid, __u32 tid,
					  struct task_struct *task)
{
	__u64 comm[2] = {};

	BPF_CORE_READ_INTO(&comm, task, comm);
	return sbt_emit(type, flag, pid, tid, comm[0], comm[1]);
}

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
	return emit_with_comm(SBT_EV_THREAD_START, 0, cpid, BPF_CORE_READ(child, pid), child);
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
	return emit_with_comm(SBT_EV_THREAD_EXIT, live == 0, pid, BPF_CORE_READ(task, pid), task);
}
