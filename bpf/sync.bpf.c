// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Entry and return probes on synchronization functions. One program pair
 * serves every probed function: the attach cookie carries the probe id, and
 * userspace decides what the function means (barrier, region, ...).
 */
#define SBT_DEFINE_GLOBALS
#include "common.bpf.h"
#include <bpf/bpf_tracing.h>

static __always_inline int on_call(struct pt_regs *ctx, __u16 type, __u64 obj, __u64 site)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32;

	if (uprobe_filter && !sbt_is_target(pid))
		return 0;
	return sbt_emit(type, (__u16)bpf_get_attach_cookie(ctx), pid, (__u32)id, obj, site);
}

SEC("uprobe")
int BPF_KPROBE(sync_enter)
{
	return on_call(ctx, SBT_EV_ENTER, PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx));
}

/* The call site comes with the return: the kernel has restored the caller's
 * return address into the instruction pointer before running return probes,
 * which saves reading the user stack at entry (~60 ns per call). */
SEC("uretprobe")
int BPF_KRETPROBE(sync_exit)
{
	return on_call(ctx, SBT_EV_EXIT, PT_REGS_RC(ctx), PT_REGS_IP(ctx));
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
