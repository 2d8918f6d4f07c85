// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Entry and return probes on synchronization functions. One program pair
 * serves every probed function: the attach cookie carries the probe id, and
 * userspace decides what the function means (barrier, region, ...).
 */
#define SBT_DEFINE_GLOBALS
#include "common.bpf.h"
#include <bpf/bpf_tracing.h>

/* The caller's return address, read at function entry. */
static __always_inline __u64 call_site(struct pt_regs *ctx)
{
#if defined(__TARGET_ARCH_x86)
	__u64 ra = 0;

	bpf_probe_read_user(&ra, sizeof(ra), (void *)PT_REGS_SP(ctx));
	return ra;
#else
	return PT_REGS_RET(ctx);
#endif
}

static __always_inline int on_call(struct pt_regs *ctx, __u16 type, __u64 obj)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32;

	if (!sbt_is_target(pid))
		return 0;
	return sbt_emit(type, (__u16)bpf_get_attach_cookie(ctx), pid, (__u32)id, obj,
			type == SBT_EV_ENTER ? call_site(ctx) : 0);
}

SEC("uprobe")
int BPF_KPROBE(sync_enter)
{
	return on_call(ctx, SBT_EV_ENTER, PT_REGS_PARM1(ctx));
}

SEC("uretprobe")
int BPF_KRETPROBE(sync_exit)
{
	return on_call(ctx, SBT_EV_EXIT, PT_REGS_RC(ctx));
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
