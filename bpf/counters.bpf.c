// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Per-thread counter values from per-CPU perf_event counters: at each
 * context switch of a traced thread, close its run interval (switch out) or
 * open one (switch in). Chosen over per-thread counters opened from
 * userspace because a thread created after attach is counted from its first
 * instruction: there is no window between its creation and userspace
 * opening its counters.
 */
#include "common.bpf.h"
#include <bpf/bpf_tracing.h>

static __always_inline void switch_out(__u32 tid, __u32 cpu)
{
	struct thread_ctr *c = bpf_map_lookup_elem(&thread_ctrs, &tid), fresh = {};
	__u32 k;

	if (!c) {
		/* running since before the session: its counts so far are lost,
		 * so it must not look complete when it comes back */
		bpf_map_update_elem(&thread_ctrs, &tid, &fresh, BPF_NOEXIST);
		return;
	}
	if (!c->running)
		return;
#pragma unroll
	for (k = 0; k < SBT_MAX_COUNTERS; k++)
		if (k < ncounters)
			c->acc[k] += ctr_read(k, cpu, &c->flags) - c->start[k];
	c->running = 0;
	c->seq++;
}

static __always_inline void switch_in(__u32 tid, __u32 cpu)
{
	struct thread_ctr *c = bpf_map_lookup_elem(&thread_ctrs, &tid), fresh = {};
	__u32 k;

	if (!c) {
		/* first seen at a switch-in: it has run nowhere else since the
		 * session began, so its counts are complete */
		fresh.flags = SBT_CTR_SINCE_START;
		bpf_map_update_elem(&thread_ctrs, &tid, &fresh, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&thread_ctrs, &tid);
		if (!c)
			return;
	}
#pragma unroll
	for (k = 0; k < SBT_MAX_COUNTERS; k++)
		if (k < ncounters)
			c->start[k] = ctr_read(k, cpu, &c->flags);
	c->running = 1;
	c->seq++;
}

/* A BTF-typed tracepoint: the task fields are plain loads (it runs at
 * every context switch of the machine). */
SEC("tp_btf/sched_switch")
int BPF_PROG(ctr_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 cpu = bpf_get_smp_processor_id();

	if (sbt_is_target(prev->tgid))
		switch_out(prev->pid, cpu);
	if (sbt_is_target(next->tgid))
		switch_in(next->pid, cpu);
	return 0;
}

/* A thread that exits takes its state with it. */
SEC("raw_tracepoint/sched_process_exit")
int ctr_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx->args[0];
	__u32 tid = BPF_CORE_READ(task, pid);

	if (sbt_is_target(BPF_CORE_READ(task, tgid)))
		bpf_map_delete_elem(&thread_ctrs, &tid);
	return 0;
}
