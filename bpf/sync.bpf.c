// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Entry and return probes on synchronization functions. One program pair
 * serves every probed function: the attach cookie carries the probe id, and
 * userspace decides what the function means (barrier, region, ...).
 */
#define SBT_DEFINE_GLOBALS
#include "common.bpf.h"
#include <bpf/bpf_tracing.h>

/* Tries at a consistent read: a retry needs a context switch inside the
 * read (a few hundred ns), so a second one is already rare. */
#define CTR_READ_TRIES 4

/* The thread's counter values now, into v; its flags. A context switch in
 * the middle (the probe is preemptible) changes acc, start and running
 * under the reader, which would lose or count twice a whole run interval:
 * read again until no switch came in between (doc/design.md §4, Counters). */
static __always_inline __u32 read_thread_ctrs(struct thread_ctr *c, __u32 cpu, __u64 *v)
{
	__u32 seq, flags = 0, try, k;

	for (try = 0; try < CTR_READ_TRIES; try++) {
		seq = *(volatile __u32 *)&c->seq;
		barrier();
		flags = c->flags;
#pragma unroll
		for (k = 0; k < SBT_MAX_COUNTERS; k++)
			if (k < ncounters)
				v[k] = c->acc[k] +
				       (c->running ? ctr_read(k, cpu, &flags) - c->start[k] : 0);
		barrier();
		if (*(volatile __u32 *)&c->seq == seq)
			break;
	}
	return flags;
}

/* A COUNTERS record: counters k and k + 1 (k and flags in probe). */
static __always_inline struct sbt_event counters_record(__u32 pid, __u32 tid, __u16 probe, __u64 a,
							__u64 b)
{
	struct sbt_event e = {.obj = a,
			      .site = b,
			      .pid = pid,
			      .tid = tid,
			      .type = SBT_EV_COUNTERS,
			      .probe = probe};

	return e;
}

/* The thread's counter values now, two per COUNTERS record, into rec
 * (the records that follow its barrier ENTER or EXIT record). A thread not
 * seen switching in since the session began starts counting here (its
 * counts are not complete: no flag). Returns the records filled. */
static __always_inline int read_counters(__u32 pid, __u32 tid, struct sbt_event *rec)
{
	struct thread_ctr *c = bpf_map_lookup_elem(&thread_ctrs, &tid), fresh = {};
	__u32 cpu = bpf_get_smp_processor_id(), flags, k;
	__u64 v[SBT_MAX_COUNTERS] = {};

	if (!c) {
		bpf_map_update_elem(&thread_ctrs, &tid, &fresh, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&thread_ctrs, &tid);
		if (!c)
			return 0;
		c->running = 1;
#pragma unroll
		for (k = 0; k < SBT_MAX_COUNTERS; k++)
			if (k < ncounters)
				c->start[k] = ctr_read(k, cpu, &c->flags);
	}
	flags = read_thread_ctrs(c, cpu, v);
	rec[0] = counters_record(pid, tid, 0 | flags, v[0], v[1]);
	if (ncounters <= 2)
		return 1;
	rec[1] = counters_record(pid, tid, 2 | flags, v[2], v[3]);
	return 2;
}

/* Counters are read where phases may begin and end: barriers, the bodies
 * of parallel regions (their return is an arrival at the implicit barrier),
 * condvar waits and wake-ups (a barrier made of a condvar is recognized in
 * userspace, later). */
static __always_inline int reads_counters(__u64 cookie)
{
	__u64 kind = SBT_COOKIE_KIND(cookie);

	return kind == SBT_PK_BARRIER || kind == SBT_PK_TEAM_BARRIER ||
	       kind == SBT_PK_REGION_BODY || kind == SBT_PK_COND_WAIT || kind == SBT_PK_COND_SIGNAL;
}

/* An arrival at a barrier: the entry of a barrier function, the return of
 * a parallel region's body (its team's implicit barrier follows). Only
 * counted when such a record is lost (SBT_EV_LOST). */
static __always_inline __u32 arrival_flag(__u16 type, __u64 cookie)
{
	__u64 kind = SBT_COOKIE_KIND(cookie);

	if (type == SBT_EV_ENTER)
		return kind == SBT_PK_BARRIER || kind == SBT_PK_TEAM_BARRIER ? SBT_RF_PHASE : 0;
	return kind == SBT_PK_REGION_BODY ? SBT_RF_PHASE : 0;
}

/* What an entry record carries, as the probe's cookie selects: an argument
 * (the object of __kmpc_critical is its third, the function a
 * __kmpc_fork_call starts its third), the return address or the probed
 * address (a region body's: where it returns tells a barrier it tail-calls,
 * its own address which region it is), or a constant. */
/* Arguments past the registers (SBT_ARG_N) are read from the stack: on
 * x86-64 the seventh is above the return address, on arm64 the ninth at the
 * stack pointer. A register argument is a context field, read by a constant
 * offset only (the verifier refuses a computed one). An int argument's upper
 * half is unspecified, in a register or a stack slot: userspace truncates
 * what it knows to be an int. */
#if defined(__TARGET_ARCH_arm64)
#define REG_ARGS   8
#define STACK_ARG0 0
#define ARG6(ctx)  ((ctx)->regs[5])
#else
#define REG_ARGS   6
#define STACK_ARG0 8
#define ARG6(ctx)  ((ctx)->r9)
#endif

static __always_inline __u64 stack_arg(struct pt_regs *ctx, __u64 n)
{
	__u64 v = 0;

	if (n > REG_ARGS && n <= SBT_ARG_N_MAX)
		bpf_probe_read_user(
			&v, sizeof(v),
			(void *)(PT_REGS_SP(ctx) + STACK_ARG0 + 8 * (n - REG_ARGS - 1)));
	return v;
}

static __always_inline __u64 entry_arg(struct pt_regs *ctx, __u64 sel, __u64 dflt)
{
	switch (sel) {
	case 1:
		return PT_REGS_PARM1(ctx);
	case 2:
		return PT_REGS_PARM2(ctx);
	case 3:
		return PT_REGS_PARM3(ctx);
	case 4:
		return PT_REGS_PARM4(ctx);
	case 5:
		return PT_REGS_PARM5(ctx);
	case SBT_ARG_N(6):
		return ARG6(ctx);
#if defined(__TARGET_ARCH_arm64)
	case SBT_ARG_N(7):
		return ctx->regs[6];
	case SBT_ARG_N(8):
		return ctx->regs[7];
#endif
	case SBT_ARG_RET: {
		__u64 ra = 0;

		bpf_probe_read_user(&ra, sizeof(ra), (void *)PT_REGS_SP(ctx));
		return ra;
	}
	case SBT_ARG_IP:
		return PT_REGS_IP(ctx);
	}
	if (sel > SBT_ARG_N(6))
		return stack_arg(ctx, sel - SBT_ARG_N(0));
	return sel >= SBT_ARG_CONST(0) ? sel - SBT_ARG_CONST(0) : dflt;
}

/* entry_arg(), the probed address being the function's own where the
 * probe is past its first instruction (include/sbt/events.h). */
static __always_inline __u64 record_arg(struct pt_regs *ctx, __u64 sel, __u64 dflt, __u64 cookie)
{
	__u64 v = entry_arg(ctx, sel, dflt);

	return sel == SBT_ARG_IP ? v - SBT_COOKIE_SKIP_BYTES(cookie) : v;
}

/* The sixth argument: the previous hit's cost at a self-timed site. */
#if defined(__TARGET_ARCH_arm64)
#define SITE_TIMING(ctx) ((ctx)->regs[5])
#else
#define SITE_TIMING(ctx) ((ctx)->r9)
#endif

/* The user-side time of a self-timed site's hit: its fifth argument. */
#define SITE_TIME(ctx) PT_REGS_PARM5(ctx)

/* --inject-delay (doc/design.md §5.4, validation by injected delay): each
 * hit spins this long after its record, a known cost the approximation is
 * told of and must remove. */
SBT_GLOBAL const volatile __u64 inject_ns;

static long spin_until(__u64 i, void *deadline)
{
	(void)i;
	return bpf_ktime_get_ns() >= *(__u64 *)deadline;
}

static __always_inline void inject_delay(void)
{
	__u64 deadline;

	if (!inject_ns)
		return;
	deadline = bpf_ktime_get_ns() + inject_ns;
	/* a clock read per step: the bound only stops a clock that stalls */
	bpf_loop(1 << 23, spin_until, &deadline, 0);
}

/* Output arguments of calls in progress (SBT_COOKIE_OUT), by thread: the
 * pointer at the entry, read at the return. Rare calls (communicators made). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} out_args SEC(".maps");

/* The entry of a call with an output argument: its pointer kept. */
static __always_inline void keep_out_arg(struct pt_regs *ctx, __u64 cookie, __u32 tid)
{
	__u64 ptr = entry_arg(ctx, SBT_COOKIE_OUT_ARG(cookie), 0);

	bpf_map_update_elem(&out_args, &tid, &ptr, BPF_ANY);
}

/* Its return: what the function wrote there (0 when unknown). */
static __always_inline __u64 read_out_arg(__u32 tid)
{
	__u64 *ptr = bpf_map_lookup_elem(&out_args, &tid), v = 0;

	if (ptr) {
		bpf_probe_read_user(&v, sizeof(v), (void *)*ptr);
		bpf_map_delete_elem(&out_args, &tid);
	}
	return v;
}

static __always_inline int on_call(struct pt_regs *ctx, __u16 type, __u64 obj, __u64 site)
{
	__u64 id = bpf_get_current_pid_tgid(), cookie, timing;
	__u32 pid = id >> 32;
	/* the record, then the COUNTERS records of the same hit */
	struct sbt_event rec[3] = {};
	int n = 1;

	/* launch mode: the probes are in every process mapping the file */
	if (stopped || (follow && !sbt_in_tree(pid)))
		return 0;
	cookie = bpf_get_attach_cookie(ctx);
	if (type == SBT_EV_ENTER) {
		obj = record_arg(ctx, SBT_COOKIE_OBJ_ARG(cookie), obj, cookie);
		site = record_arg(ctx, SBT_COOKIE_SITE_ARG(cookie), site, cookie);
		if (SBT_COOKIE_OUT_ARG(cookie))
			keep_out_arg(ctx, cookie, (__u32)id);
	} else if (SBT_COOKIE_OUT_ARG(cookie)) {
		obj = read_out_arg((__u32)id);
	}
	rec[0] = (struct sbt_event){.obj = obj,
				    .site = site,
				    .pid = pid,
				    .tid = (__u32)id,
				    .type = type,
				    .probe = (__u16)cookie,
				    .flags = arrival_flag(type, cookie)};
	if (cookie & SBT_COOKIE_TIMED) {
		timing = SITE_TIMING(ctx);
		rec[0].cost = (__u32)timing;
		rec[0].flags |= SBT_RF_TIMED | (timing & SBT_SITE_COST_KNOWN ? SBT_RF_COST : 0);
		rec[0].ts = sbt_user_ts(bpf_get_smp_processor_id(), SITE_TIME(ctx));
		if (rec[0].ts)
			rec[0].flags |= SBT_RF_USER_TS;
	}
	if (ncounters && reads_counters(cookie))
		n += read_counters(pid, (__u32)id, &rec[1]);
	n = sbt_emit_recs(rec, n, 0);
	inject_delay();
	return n;
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

/* Uprobes' own pages (the xol area, whose first slot is the return probe
 * trampoline) sit at the top of the address space, where no code is. */
#define UPROBE_PAGES_MIN 0x7ffffff00000ULL

/* A wrapper's return address, as it found it on its stack. A wrapper
 * reached by a tail call from a function with a return probe (a region
 * body ending in `jmp GOMP_barrier`) finds there the kernel's return probe
 * trampoline instead of the body's return address: the real one is in the
 * thread's latest return instance (the body's; whatever the wrapper called
 * has returned). */
static __always_inline __u64 real_return_address(__u64 ra)
{
	struct task_struct *task;
	__u64 orig;

	if (ra < UPROBE_PAGES_MIN)
		return ra;
	task = bpf_get_current_task_btf();
	orig = BPF_CORE_READ(task, utask, return_instances, orig_ret_vaddr);
	return orig ? orig : ra;
}

/* The exit site of a probe shim wrapper (shim/shim.h): a plain uprobe on a
 * 5-byte nop, given the wrapped function's return value and call site as
 * arguments. */
SEC("uprobe")
int BPF_KPROBE(site_exit)
{
	return on_call(ctx, SBT_EV_EXIT, PT_REGS_PARM1(ctx),
		       real_return_address(PT_REGS_PARM2(ctx)));
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
