// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Thread life cycle of traced processes, through raw tracepoints (they attach
 * without tracefs, which is not always mounted). Thread starts give phase 0 of
 * late threads its true beginning; the exit of a process's last thread ends a
 * session. In system-wide and launch mode, exec and loader records say where
 * to look for new files to probe; in launch mode and with -p --follow, forks
 * grow the followed process tree (doc/design.md §4, Following a command);
 * system-wide, a fork's record gives a new process its start.
 */
#include "common.bpf.h"

/* Thread records carry the thread's name (16 bytes) in obj and site: a
 * short-lived thread is gone before userspace could read /proc. */
static __always_inline int emit_comm_x(__u16 type, __u16 flag, __u32 pid, __u32 tid,
				       struct task_struct *task, int wake)
{
	__u64 comm[2] = {};

	BPF_CORE_READ_INTO(&comm, task, comm);
	return sbt_emit_x(type, flag, pid, tid, comm[0], comm[1], wake);
}

static __always_inline int emit_with_comm(__u16 type, __u16 flag, __u32 pid, __u32 tid,
					  struct task_struct *task)
{
	return emit_comm_x(type, flag, pid, tid, task, 0);
}

/* A start record, of a new process's main thread or of a new thread, with
 * where it came from in cost: a process's parent process (a child gone before
 * userspace reads it ran its parent's program), a thread's creating thread
 * (the threads one thread creates make fork-join steps, doc/design.md §5.1). */
static __always_inline int emit_start(__u32 from, __u32 cpid, struct task_struct *child)
{
	struct sbt_event rec = {.pid = cpid, .type = SBT_EV_THREAD_START, .cost = from};
	__u64 comm[2] = {};

	BPF_CORE_READ_INTO(&comm, child, comm);
	rec.obj = comm[0];
	rec.site = comm[1];
	rec.tid = BPF_CORE_READ(child, pid);
	return sbt_emit_recs(&rec, 1, 0);
}

/* A child process of the tree: in the tree before it runs. */
static __always_inline int follow_fork(__u32 ppid, __u32 cpid, struct task_struct *child)
{
	if (!sbt_in_tree(ppid))
		return 0;
	sbt_tree_set(cpid, 1);
	return emit_start(ppid, cpid, child);
}

/* -p without --follow: a target started a process that is not traced.
 * Userspace says so (once), rather than leave the user to wonder where the
 * child's barriers went. */
static __always_inline int unfollowed_fork(__u32 ppid, __u32 cpid, struct task_struct *child)
{
	if (!sbt_is_target(ppid))
		return 0;
	return emit_with_comm(SBT_EV_FORK, 0, ppid, cpid, child);
}

/* sched_process_fork(struct task_struct *parent, struct task_struct *child) */
SEC("raw_tracepoint/sched_process_fork")
int thread_start(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *parent = (struct task_struct *)ctx->args[0];
	struct task_struct *child = (struct task_struct *)ctx->args[1];
	__u32 ppid = BPF_CORE_READ(parent, tgid);
	__u32 cpid = BPF_CORE_READ(child, tgid);

	/* A new process: traced as part of a followed tree; system-wide, its
	 * birth is recorded, so that one that becomes a job has its true start
	 * (forked without exec, nothing else says when it began). */
	if (ppid != cpid) {
		if (follow)
			return follow_fork(ppid, cpid, child);
		if (proc_all)
			return emit_start(ppid, cpid, child);
		return unfollowed_fork(ppid, cpid, child);
	}
	if (!(proc_all || sbt_is_target(cpid)))
		return 0;
	return emit_start(BPF_CORE_READ(parent, pid), cpid, child);
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
	if (follow && live == 0) {
		sbt_tree_set(pid, 0); /* its pid may come back as another process */
		bpf_map_delete_elem(&unpaused, &pid);
	}
	return emit_with_comm(SBT_EV_THREAD_EXIT, live == 0, pid, BPF_CORE_READ(task, pid), task);
}

/* sched_process_exec(struct task_struct *p, pid_t old_pid, struct
 * linux_binprm *bprm): a new program may map files not probed yet (a static
 * binary, a --probe binary in a container), and its addresses are named from
 * its own files. Every process system-wide, the targets with -p. Following a
 * tree (launch mode, -p --follow), a program of the tree waits until its
 * executable and its loader are probed (then the libraries, at the loader's
 * report below). */
SEC("raw_tracepoint/sched_process_exec")
int proc_exec(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx->args[0];
	__u32 pid = BPF_CORE_READ(task, tgid);

	if (!follow && !proc_all && !sbt_is_target(pid))
		return 0;
	if (!follow)
		return emit_with_comm(SBT_EV_EXEC, 0, pid, BPF_CORE_READ(task, pid), task);
	if (!sbt_in_tree(pid))
		return 0;
	sbt_pause(task, pid);
	return emit_comm_x(SBT_EV_EXEC, 0, pid, BPF_CORE_READ(task, pid), task, 1);
}

/* Entry of the dynamic loader's _dl_debug_state(), which it calls after
 * mapping the program's libraries and after every dlopen/dlclose (the
 * debugger interface): time to look for new files to probe. Following a
 * tree, a process of the tree waits for that (doc/design.md §4). */
SEC("uprobe")
int maps_changed(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32;

	if (!follow)
		return sbt_emit(SBT_EV_MAPS, 0, pid, (__u32)id, 0, 0);
	if (!sbt_in_tree(pid))
		return 0;
	if (!bpf_map_lookup_elem(&unpaused, &pid))
		sbt_pause((struct task_struct *)bpf_get_current_task(), pid);
	return sbt_emit_x(SBT_EV_MAPS, 0, pid, (__u32)id, 0, 0, 1);
}
