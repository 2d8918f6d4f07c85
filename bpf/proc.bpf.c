// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Thread life cycle of traced processes, through raw tracepoints (they attach
 * without tracefs, which is not always mounted). Thread starts give phase 0 of
 * late threads its true beginning; the exit of a process's last thread ends a
 * session. In system-wide mode, exec and loader records say where to look
 * for new files to probe.
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
	if (ppid != cpid || !(proc_all || sbt_is_target(cpid)))
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

	if (!proc_all && !sbt_is_target(pid))
		return 0;
	/* signal->live drops to zero when the last thread of the group exits */
	live = BPF_CORE_READ(task, signal, live.counter);
	return emit_with_comm(SBT_EV_THREAD_EXIT, live == 0, pid, BPF_CORE_READ(task, pid), task);
}

/* sched_process_exec(struct task_struct *p, pid_t old_pid, struct
 * linux_binprm *bprm), system-wide mode: a new program may map files not
 * probed yet (a static binary, a --probe binary in a container). */
SEC("raw_tracepoint/sched_process_exec")
int proc_exec(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx->args[0];

	return emit_with_comm(SBT_EV_EXEC, 0, BPF_CORE_READ(task, tgid), BPF_CORE_READ(task, pid),
			      task);
}

/* Entry of the dynamic loader's _dl_debug_state(), which it calls after
 * mapping the program's libraries and after every dlopen/dlclose (the
 * debugger interface): time to look for new files to probe. */
SEC("uprobe")
int maps_changed(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();

	return sbt_emit(SBT_EV_MAPS, 0, id >> 32, (__u32)id, 0, 0);
}
