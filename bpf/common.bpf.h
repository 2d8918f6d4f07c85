/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Maps, globals and the record emitter shared by every sbt-bpf BPF object.
 * They are defined in exactly one object (the one that defines
 * SBT_DEFINE_GLOBALS) and declared extern in the others; bpftool's static
 * linker joins them into one skeleton.
 */
#ifndef SBT_COMMON_BPF_H
#define SBT_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "sbt/events.h"

#define SBT_MAX_CPUS 1024

#ifdef SBT_DEFINE_GLOBALS
#define SBT_GLOBAL
#else
#define SBT_GLOBAL extern
#endif

/* A ring buffer per CPU (doc/design.md §4, Per-CPU ring buffers): no lock
 * and no cache line shared between CPUs when threads hit probes at once.
 * Userspace creates the rings after load, sizes them and merges them back
 * into time order. */
struct sbt_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
};

SBT_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct sbt_ring);
} rings SEC(".maps");

/* The one shared ring, where the kernel refuses rings in a map or
 * --shared-ring asks for it (merged into time order all the same). */
SBT_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} events SEC(".maps");

SBT_GLOBAL const volatile __u8 per_cpu_rings;

/* Thread-group ids being traced; value unused. */
SBT_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

/* Set by userspace when tracing stops (Ctrl-C, --duration): from then on
 * the programs record nothing and stop no process, while the links, whose
 * removal waits for RCU grace periods, are taken down. */
SBT_GLOBAL volatile __u8 stopped;

/* Failed ring-buffer reservations per CPU: total, and pending (not yet
 * reported in a LOST record) with how many were phase-ending entries, when
 * the first and the last of them were, and whose the last was. Indexed by
 * CPU, so there is no contention between CPUs. */
SBT_GLOBAL __u64 drops_total[SBT_MAX_CPUS];
SBT_GLOBAL __u64 drops_pending[SBT_MAX_CPUS];
SBT_GLOBAL __u64 drops_pending_phase[SBT_MAX_CPUS];
SBT_GLOBAL __u64 drops_first_ts[SBT_MAX_CPUS];
SBT_GLOBAL __u64 drops_last_ts[SBT_MAX_CPUS];
SBT_GLOBAL __u32 drops_last_pid[SBT_MAX_CPUS];

/* Failed reservations by process (system-wide mode reports them per job).
 * Touched only when a reservation fails. */
SBT_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} drops_by_pid SEC(".maps");

/* System-wide mode: thread, fork and exec records for every process, so that
 * a process that becomes a job later has its own and its threads' true start
 * times.
 * Syscall and context-switch programs still filter on `targets`. */
SBT_GLOBAL const volatile __u8 proc_all;
/* Wake the consumer only when this much data waits (the watermark); below
 * it, the consumer drains on its timer. */
SBT_GLOBAL const volatile __u64 wakeup_bytes;

/* The one process traced, when there is one: checking it costs no map
 * lookup, which matters in programs that run for every syscall. */
SBT_GLOBAL const volatile __u32 single_target;

/* Following a tree (launch mode, -p --follow; doc/design.md §4, Following a
 * command): the probes are in every process mapping their files, and the
 * traced processes are the tree, one bit per pid. Userspace sets the bits of
 * the command, or of the -p processes and their descendants; a child's is
 * set at its fork, before it runs, and cleared when its last thread exits.
 * 512 KiB (SBT_TREE_PIDS), and a test costs no map lookup. */
SBT_GLOBAL __u64 tree[SBT_TREE_PIDS / 64];
SBT_GLOBAL const volatile __u8 follow;

/* The word of pid's bit, masked where the verifier sees it (the compiler,
 * knowing pid's bound, would drop the mask and index from a value the
 * verifier cannot bound). */
static __always_inline __u32 sbt_tree_word(__u32 pid)
{
	__u32 w = pid / 64;

	asm volatile("" : "+r"(w));
	return w & (SBT_TREE_PIDS / 64 - 1);
}

static __always_inline int sbt_in_tree(__u32 pid)
{
	if (pid >= SBT_TREE_PIDS)
		return 0;
	return (tree[sbt_tree_word(pid)] >> (pid % 64)) & 1;
}

static __always_inline void sbt_tree_set(__u32 pid, int in)
{
	__u32 w = sbt_tree_word(pid);

	if (pid >= SBT_TREE_PIDS)
		return;
	if (in)
		__sync_fetch_and_or(&tree[w], 1ULL << (pid % 64));
	else
		__sync_fetch_and_and(&tree[w], ~(1ULL << (pid % 64)));
}

static __always_inline int sbt_is_target(__u32 pid)
{
	if (single_target)
		return pid == single_target;
	if (follow)
		return sbt_in_tree(pid);
	return bpf_map_lookup_elem(&targets, &pid) != NULL;
}

/* Processes of the tree stopped (SIGSTOP) where they may have mapped files
 * not probed yet; userspace probes them, then sends SIGCONT. */
SBT_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} paused SEC(".maps");

/* Processes of the tree not stopped at their library loads: MPI launchers
 * (mpirun loads dozens of plugins, forwards each SIGCONT to its job and
 * says so), which call no probed function in what they load. Userspace
 * lists them; their exec still stops them (doc/design.md §4). */
SBT_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} unpaused SEC(".maps");

#define SBT_SIGSTOP 19

/* A job of a job-control shell (an interactive one), in the foreground or
 * not: in a process group of its own, not its parent's, on a terminal. Its
 * shell waits for it with WUNTRACED: it would report the job "Stopped" (and
 * take the terminal back from a foreground one). */
static __always_inline int shell_job(struct task_struct *task)
{
	struct pid *pg = BPF_CORE_READ(task, signal, pids[PIDTYPE_PGID]);

	return BPF_CORE_READ(task, signal, tty) &&
	       pg != BPF_CORE_READ(task, real_parent, signal, pids[PIDTYPE_PGID]);
}

/* Stop the current process (task) until userspace has probed its files.
 * Not one under a debugger, nor a shell's job: they would see the stop (the
 * process then runs on unstopped, and may call probed functions in files
 * not probed yet). */
static __always_inline void sbt_pause(struct task_struct *task, __u32 pid)
{
	__u8 one = 1;

	if (stopped || BPF_CORE_READ(task, ptrace) || shell_job(task))
		return;
	if (bpf_map_update_elem(&paused, &pid, &one, BPF_ANY))
		return; /* no room to say so: userspace would never resume it */
	bpf_send_signal(SBT_SIGSTOP);
}

/* cpu as an index of the per-CPU arrays, masked where the verifier sees it
 * (a value that went through the stack as a map key lost its bounds). */
static __always_inline __u32 sbt_cpu_slot(__u32 cpu)
{
	asm volatile("" : "+r"(cpu));
	return cpu & (SBT_MAX_CPUS - 1);
}

/* n records (rec[0..n)) that found no room: counted on its CPU and for
 * its process, with the time, for the LOST record that says so later. The
 * failure path: its helper calls cost nothing when there is room. */
static __always_inline int sbt_drop(__u32 cpu, const struct sbt_event *rec, __u64 n)
{
	__u64 *p, now = rec->ts ? rec->ts : bpf_ktime_get_ns();
	__u32 pid = rec->pid;

	cpu = sbt_cpu_slot(cpu);
	__sync_fetch_and_add(&drops_total[cpu], n);
	if (!__sync_fetch_and_add(&drops_pending[cpu], n))
		drops_first_ts[cpu] = now;
	drops_last_ts[cpu] = now;
	drops_last_pid[cpu] = pid;
	if (rec->flags & SBT_RF_PHASE)
		__sync_fetch_and_add(&drops_pending_phase[cpu], 1);
	p = bpf_map_lookup_elem(&drops_by_pid, &pid);
	if (p)
		__sync_fetch_and_add(p, n);
	else
		bpf_map_update_elem(&drops_by_pid, &pid, &n, BPF_NOEXIST);
	return 0;
}

/* Records emitted per CPU: the ring's fill level is looked at every
 * SBT_QUERY_EVERY-th of them only (a helper call each, ~10 ns here). */
#define SBT_QUERY_EVERY 16
SBT_GLOBAL __u32 emitted[SBT_MAX_CPUS];

/* Whether the consumer should wake now: the ring holds more than the
 * watermark, or a process waits for it. */
static __always_inline __u64 sbt_wake_flag(void *ring, __u32 cpu, int wake)
{
	__u64 avail;

	if (wake)
		return BPF_RB_FORCE_WAKEUP;
	if (++emitted[sbt_cpu_slot(cpu)] % SBT_QUERY_EVERY)
		return BPF_RB_NO_WAKEUP;
	avail = bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA);
	return avail > wakeup_bytes ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/* Room for n records (1-3: the size must be a constant) in this CPU's ring. */
static __always_inline struct sbt_event *sbt_reserve(void *ring, int n)
{
	if (n == 1)
		return bpf_ringbuf_reserve(ring, sizeof(struct sbt_event), 0);
	if (n == 2)
		return bpf_ringbuf_reserve(ring, 2 * sizeof(struct sbt_event), 0);
	return bpf_ringbuf_reserve(ring, 3 * sizeof(struct sbt_event), 0);
}

static __always_inline void sbt_fill(struct sbt_event *e, const struct sbt_event *rec, __u64 ts)
{
	*e = *rec;
	e->ts = ts;
	e->flags &= ~SBT_RF_PHASE; /* for sbt_drop only */
}

/* The LOST record of the records this CPU (slot) failed to reserve since
 * its last one, ahead of the record that now finds room. Without room for
 * it either, the losses stay pending. */
static __always_inline void sbt_emit_lost(void *ring, __u32 slot)
{
	struct sbt_event *l = bpf_ringbuf_reserve(ring, sizeof(*l), 0);
	__u64 n;

	if (!l)
		return;
	n = __sync_lock_test_and_set(&drops_pending[slot], 0);
	*l = (struct sbt_event){.ts = drops_first_ts[slot],
				.obj = drops_last_ts[slot],
				.site = __sync_lock_test_and_set(&drops_pending_phase[slot], 0),
				.pid = drops_last_pid[slot],
				.type = SBT_EV_LOST,
				.lost = n > 0xffffffffULL ? 0xffffffffU : (__u32)n};
	bpf_ringbuf_submit(l, 0);
}

/* Reserve, fill and submit rec[0..n) as one sample (a record and the
 * COUNTERS records read in the same hit: one reservation). They share
 * rec[0].ts, or the clock now where it is 0. Submission does not wake the
 * consumer below the watermark: a wakeup costs microseconds in the traced
 * thread, and the consumer drains on a timer instead. `wake`: wake it now
 * (a process waits for it). */
static __always_inline int sbt_emit_recs(const struct sbt_event *rec, int n, int wake)
{
	__u32 cpu = bpf_get_smp_processor_id() & (SBT_MAX_CPUS - 1), key = cpu;
	void *ring = &events;
	struct sbt_event *e;
	__u64 ts;

	if (stopped)
		return 0;
	if (per_cpu_rings) {
		ring = bpf_map_lookup_elem(&rings, &key);
		if (!ring)
			return sbt_drop(cpu, &rec[0], n);
	}
	if (drops_pending[sbt_cpu_slot(cpu)])
		sbt_emit_lost(ring, sbt_cpu_slot(cpu));
	e = sbt_reserve(ring, n);
	if (!e)
		return sbt_drop(cpu, &rec[0], n);
	ts = rec[0].ts ? rec[0].ts : bpf_ktime_get_ns();
	sbt_fill(&e[0], &rec[0], ts);
	if (n > 1)
		sbt_fill(&e[1], &rec[1], ts);
	if (n > 2)
		sbt_fill(&e[2], &rec[2], ts);
	cpu = sbt_cpu_slot(cpu);
	bpf_ringbuf_submit(e, sbt_wake_flag(ring, cpu, wake));
	return 0;
}

/* One record stamped now (see sbt_emit_recs). */
static __always_inline int sbt_emit_x(__u16 type, __u16 probe, __u32 pid, __u32 tid, __u64 obj,
				      __u64 site, int wake)
{
	struct sbt_event rec = {
		.obj = obj, .site = site, .pid = pid, .tid = tid, .type = type, .probe = probe};

	return sbt_emit_recs(&rec, 1, wake);
}

static __always_inline int sbt_emit(__u16 type, __u16 probe, __u32 pid, __u32 tid, __u64 obj,
				    __u64 site)
{
	return sbt_emit_x(type, probe, pid, tid, obj, site, 0);
}

/* ---- user-side time ------------------------------------------------------- */

/* Per CPU: the jiffy last seen by a probe there [0] and the clock when it
 * was first seen [1]. The jiffy counter costs no helper call; the clock is
 * read once per tick per CPU. */
SBT_GLOBAL __u64 clock_marks[SBT_MAX_CPUS][2];

/* The time of a record made at a self-timed site, whose wrapper read the
 * clock just before it trapped (doc/design.md §4, User-side time): that
 * time, when it is not older than the CPU's clock mark by more than
 * SBT_USER_TS_STALE_NS (the thread was not held up long between its clock
 * read and the trap) nor after the mark by more than a tick can explain;
 * otherwise 0 (the record is stamped now). Userspace relies on the bound:
 * a record is never stamped much earlier than it was reserved. */
static __always_inline __u64 sbt_user_ts(__u32 cpu, __u64 user_ts)
{
	__u64 *m = clock_marks[sbt_cpu_slot(cpu)], j = bpf_jiffies64(), mark;

	if (m[0] != j) {
		m[1] = bpf_ktime_get_ns();
		m[0] = j;
	}
	mark = m[1];
	if (!user_ts || user_ts + SBT_USER_TS_STALE_NS < mark ||
	    user_ts > mark + SBT_USER_TS_AHEAD_NS)
		return 0;
	return user_ts;
}

/* ---- counters ------------------------------------------------------------ */

/* Per-CPU perf_event counters, index = counter * ncpus + cpu, virtualized
 * per thread by the sched_switch program: a thread's value is what the
 * counters advanced while it ran. */
SBT_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 1);
} counters SEC(".maps");

struct thread_ctr {
	__u64 acc[SBT_MAX_COUNTERS];   /* counted in the thread's finished run intervals */
	__u64 start[SBT_MAX_COUNTERS]; /* counter values when its current interval began */
	__u32 running;
	__u32 flags; /* SBT_CTR_* */
	/* Bumped by every switch of the thread. A probe reading its values
	 * runs preemptible (on one CPU): when a switch came in between, the
	 * values it read mix two intervals, and it reads them again. */
	__u32 seq;
	__u32 pad;
};

SBT_GLOBAL struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct thread_ctr);
} thread_ctrs SEC(".maps");

SBT_GLOBAL const volatile __u32 ncounters;
SBT_GLOBAL const volatile __u32 ctr_ncpus;

/* Counters that can be multiplexed (hardware): read with their enabled and
 * running times. Software counters never are, and the plain read skips the
 * time bookkeeping (~100 ns a read on this VM). */
SBT_GLOBAL const volatile __u32 ctr_hw_mask;

/* The current CPU's value of counter k, scaled when multiplexed. */
static __always_inline __u64 ctr_read(__u32 k, __u32 cpu, __u32 *flags)
{
	struct bpf_perf_event_value v = {};
	__u32 idx = k * ctr_ncpus + cpu;
	long r;

	if (!(ctr_hw_mask & (1u << k))) {
		r = bpf_perf_event_read(&counters, idx);
		/* errors come back as small negative values */
		return r < 0 && r > -4096 ? 0 : (__u64)r;
	}
	if (bpf_perf_event_read_value(&counters, idx, &v, sizeof(v)))
		return 0;
	if (v.running && v.running < v.enabled) {
		__u32 i;

		*flags |= SBT_CTR_SCALED;
		/* counter * enabled overflows 64 bits within seconds: keep the
		 * ratio, drop precision from the times */
		for (i = 0; i < 32 && (v.enabled >> 31); i++) {
			v.enabled >>= 1;
			v.running >>= 1;
		}
		if (!v.running)
			return v.counter;
		return v.counter / v.running * v.enabled +
		       (v.counter % v.running) * v.enabled / v.running;
	}
	return v.counter;
}

#endif /* SBT_COMMON_BPF_H */
