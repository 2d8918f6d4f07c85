// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tracer's own CPU (doc/design.md §5.4): sbt-bpf drains rings, names
 * call sites and runs the models while the job runs, and on a machine the
 * job fills it takes a traced thread's CPU to do so. That time is a
 * perturbation of the run (its thread stalls the others at their next
 * barrier) that no probe cost holds. At each context switch: a runnable
 * traced thread giving its CPU to sbt-bpf opens a window on that CPU; sbt-bpf
 * leaving the CPU closes it with a PREEMPTED record for the thread.
 */
#include "common.bpf.h"
#include <bpf/bpf_tracing.h>

/* sbt-bpf's own thread group, set by userspace before load. */
const volatile __u32 tracer_tgid;

/* Per CPU: the traced thread that gave it to sbt-bpf (0: none), its process
 * and when. Only this CPU's switches touch its slot. */
__u32 self_victim_tid[SBT_MAX_CPUS];
__u32 self_victim_pid[SBT_MAX_CPUS];
__u64 self_victim_since[SBT_MAX_CPUS];

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

static __always_inline void close_window(__u32 slot, __u64 now)
{
	__u32 tid = self_victim_tid[slot];

	if (!tid)
		return;
	self_victim_tid[slot] = 0;
	sbt_emit(SBT_EV_PREEMPTED, 0, self_victim_pid[slot], tid, now - self_victim_since[slot], 0);
}

/* A BTF-typed tracepoint: the task fields are plain loads, no helper call
 * each (this runs at every context switch of the machine). */
SEC("tp_btf/sched_switch")
int BPF_PROG(self_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 slot = sbt_cpu_slot(bpf_get_smp_processor_id());
	__u32 prev_tgid = prev->tgid, next_tgid = next->tgid;

	if (prev_tgid == tracer_tgid && next_tgid != tracer_tgid) {
		close_window(slot, bpf_ktime_get_ns());
		return 0;
	}
	if (next_tgid != tracer_tgid || prev_tgid == tracer_tgid || !sbt_is_target(prev_tgid) ||
	    !runnable(prev))
		return 0;
	self_victim_tid[slot] = prev->pid;
	self_victim_pid[slot] = prev_tgid;
	self_victim_since[slot] = bpf_ktime_get_ns();
	return 0;
}
