// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tracer's own CPU (doc/design.md §5.4): sbt-bpf drains rings, names
 * call sites and runs the models while the job runs, and on a machine the
 * job fills it takes a traced thread's CPU to do so. That time is a
 * perturbation of the run (its thread stalls the others at their next
 * barrier) that no probe cost holds. At each context switch: a runnable
 * traced thread giving its CPU to sbt-bpf opens a window; sbt-bpf leaving
 * that CPU, or the thread running again elsewhere first (the scheduler
 * moved it), closes it with a PREEMPTED record for the thread.
 */
#include "common.bpf.h"
#include <bpf/bpf_tracing.h>

/* sbt-bpf's own thread group, set by userspace before load. */
const volatile __u32 tracer_tgid;

/* An open window: when, whose process, and on which CPU. */
struct self_window {
	__u64 since;
	__u32 pid;
	__u32 cpu;
};

/* Open windows by thread id (at most one a CPU). Each close path deletes
 * the entry first: only the one whose delete succeeds emits the record. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SBT_MAX_CPUS);
	__type(key, __u32);
	__type(value, struct self_window);
} self_windows SEC(".maps");

/* Per CPU: the thread whose window opened there (0: none). Only this CPU's
 * switches touch its slot. */
__u32 self_victim_tid[SBT_MAX_CPUS];

/* Windows open now: most switches of the machine happen while none is, and
 * skip the lookups. A stale read only leaves a window to its CPU's close. */
__s32 self_open;

struct task_struct___pre_5_14 {
	long state;
} __attribute__((preserve_access_index));

/* Runnable: switched out without sleeping (preempted, or yielding). */
static __always_inline int runnable(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return t->__state == 0;
	return ((struct task_struct___pre_5_14 *)t)->state == 0;
}

/* Close tid's window now, if it is open (and, cpu < SBT_MAX_CPUS, opened on
 * that CPU). */
static __always_inline void close_window(__u32 tid, __u32 cpu)
{
	struct self_window *w = bpf_map_lookup_elem(&self_windows, &tid);
	__u64 since;
	__u32 pid;

	if (!w || (cpu < SBT_MAX_CPUS && w->cpu != cpu))
		return;
	since = w->since;
	pid = w->pid;
	if (bpf_map_delete_elem(&self_windows, &tid))
		return; /* the other path closed it */
	__sync_fetch_and_add(&self_open, -1);
	sbt_emit(SBT_EV_PREEMPTED, 0, pid, tid, bpf_ktime_get_ns() - since, 0);
}

static __always_inline void open_window(__u32 slot, struct task_struct *prev, __u32 pid)
{
	struct self_window w = {.since = bpf_ktime_get_ns(), .pid = pid, .cpu = slot};
	__u32 tid = prev->pid;

	if (bpf_map_update_elem(&self_windows, &tid, &w, BPF_NOEXIST))
		return; /* open elsewhere, a stale one: left to its own close */
	__sync_fetch_and_add(&self_open, 1);
	self_victim_tid[slot] = tid;
}

/* A BTF-typed tracepoint: the task fields are plain loads, no helper call
 * each (this runs at every context switch of the machine). */
SEC("tp_btf/sched_switch")
int BPF_PROG(self_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 slot = sbt_cpu_slot(bpf_get_smp_processor_id());
	__u32 prev_tgid = prev->tgid, next_tgid = next->tgid, tid;

	if (prev_tgid == tracer_tgid && next_tgid != tracer_tgid) {
		tid = self_victim_tid[slot];
		self_victim_tid[slot] = 0;
		if (tid)
			close_window(tid, slot);
	}
	/* a traced thread running again: its window elsewhere ends */
	if (self_open > 0 && next_tgid != tracer_tgid && sbt_is_target(next_tgid))
		close_window(next->pid, SBT_MAX_CPUS);
	if (next_tgid == tracer_tgid && prev_tgid != tracer_tgid && sbt_is_target(prev_tgid) &&
	    runnable(prev))
		open_window(slot, prev, prev_tgid);
	return 0;
}
