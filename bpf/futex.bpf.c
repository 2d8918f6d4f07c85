// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * futex() calls of traced processes, through the raw syscall tracepoints
 * (they attach without tracefs). They split every wait into spinning and
 * blocked time, and show waits that happen outside any probed function
 * (implicit OpenMP barriers in worker threads, hand-made barriers).
 * These programs run for every syscall on the machine: they must reject
 * others in a few instructions, and are attached only when asked for.
 */
#include "common.bpf.h"
#include <bpf/bpf_tracing.h>

#if defined(__TARGET_ARCH_x86)
#define SBT_NR_FUTEX 202
#elif defined(__TARGET_ARCH_arm64)
#define SBT_NR_FUTEX 98
#else
#error "futex syscall number unknown for this architecture"
#endif

/* BTF-typed tracepoints: these run at every syscall of the machine, and
 * the exit's register read is a plain load there, not a helper call. */
SEC("tp_btf/sys_enter")
int BPF_PROG(futex_enter, struct pt_regs *regs, long nr)
{
	__u64 id, op, val;

	if (nr != SBT_NR_FUTEX)
		return 0;
	id = bpf_get_current_pid_tgid();
	if (!sbt_is_target(id >> 32))
		return 0;
	op = PT_REGS_PARM2_CORE_SYSCALL(regs);
	val = PT_REGS_PARM3_CORE_SYSCALL(regs);
	return sbt_emit(SBT_EV_FUTEX_ENTER, 0, id >> 32, (__u32)id,
			PT_REGS_PARM1_CORE_SYSCALL(regs), (op & 0xffffffff) | val << 32);
}

/* The syscall number is in the saved registers. */
SEC("tp_btf/sys_exit")
int BPF_PROG(futex_exit, struct pt_regs *regs, long ret)
{
	__u64 id;

#if defined(__TARGET_ARCH_x86)
	if (regs->orig_ax != SBT_NR_FUTEX)
		return 0;
#else
	if (regs->syscallno != SBT_NR_FUTEX)
		return 0;
#endif
	id = bpf_get_current_pid_tgid();
	if (!sbt_is_target(id >> 32))
		return 0;
	return sbt_emit(SBT_EV_FUTEX_EXIT, 0, id >> 32, (__u32)id, ret, 0);
}
