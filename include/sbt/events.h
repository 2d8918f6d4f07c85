/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The wire format between the BPF programs and userspace, and the record
 * format of .sbt trace files. Fixed-width fields only: this header is
 * compiled by clang -target bpf and by the host compiler, and the record is
 * written to disk as is.
 */
#ifndef SBT_EVENTS_H
#define SBT_EVENTS_H

#ifdef __VMLINUX_H__
/* BPF side: __u64 and friends come from vmlinux.h */
#else
#include <linux/types.h>
#endif

/* Record types (sbt_event.type). */
#define SBT_EV_ENTER                                                                               \
	1 /* function entry; obj = first argument, site = second argument, unless the probe        \
	   * selects others (SBT_COOKIE_ARGS) */
#define SBT_EV_EXIT 2 /* function return; obj = return value, site = call site */
#define SBT_EV_THREAD_START                                                                        \
	3 /* a thread of a traced process was created; obj, site = comm; cost = the thread that    \
	   * created it (0 in older traces). A process of a followed tree forked (tid == pid):     \
	   * cost = its parent's pid. Neither with SBT_RF_COST */
#define SBT_EV_THREAD_EXIT                                                                         \
	4		     /* a thread exited; obj, site = comm; probe = 1: last of its process  \
			      */
#define SBT_EV_FUTEX_ENTER 5 /* futex() entered; obj = uaddr, site = op | (__u64)val << 32 */
#define SBT_EV_FUTEX_EXIT  6 /* futex() returned; obj = return value (negative errno) */
#define SBT_EV_COUNTERS                                                                            \
	7 /* counters at the thread's preceding barrier ENTER or EXIT:                             \
	   * obj = counter k, site = counter k + 1, probe = k | SBT_CTR_* */
/* About processes rather than jobs, never in trace files: */
#define SBT_EV_EXEC 8 /* a process replaced its image (exec); obj, site = new comm */
#define SBT_EV_MAPS 9 /* the dynamic loader changed a process's mappings (dlopen, start) */
/* Written by userspace, not the BPF side (in trace files): a probe attached
 * while tracing (a region body of a binary without symbols) took effect for
 * process pid at ts; obj = the body's address there, probe = its id. */
#define SBT_EV_PROBE_ARMED 10
/* Records of process pid that found no room in the ring (doc/design.md §4,
 * Losses): ts = the first loss on that CPU since its last LOST record,
 * obj = the last one, lost = how many, site = how many of them were
 * arrivals at barriers (SBT_RF_PHASE). Made by the BPF
 * side with the next record that finds room on that CPU; older traces
 * carried only the count, in that record's `lost`. */
#define SBT_EV_LOST 11
/* -p without --follow, never in trace files: traced process pid started
 * another (tid = the new process's pid), which is not traced; obj, site =
 * the new process's comm. */
#define SBT_EV_FORK 12
/* Thread tid of process pid lost its CPU to sbt-bpf itself (preempted, or
 * made to yield, while runnable): obj = ns from then until sbt-bpf left
 * that CPU, ts = when it left. A perturbation no probe cost holds; the
 * approximation charges it to the thread (doc/design.md §5.4, The tracer's
 * own CPU). */
#define SBT_EV_PREEMPTED 13

/* Launch mode and -p --follow: the process tree is a bitmap of pids, which stay
 * below the kernel's PID_MAX_LIMIT (2^22 on 64-bit). */
#define SBT_TREE_PIDS (1u << 22)

/* Probe kinds: how userspace interprets the enter/exit pair of a probe. */
#define SBT_PK_BARRIER	    1  /* barrier; the first argument identifies the barrier object */
#define SBT_PK_TEAM_BARRIER 2  /* barrier of the calling thread's team (no object argument) */
#define SBT_PK_REGION	    3  /* parallel region frame (fork/join), called by the master */
#define SBT_PK_LOCK	    4  /* blocking acquire (mutex, spin, rwlock); obj = the lock */
#define SBT_PK_TRYLOCK	    5  /* non-blocking acquire; 0 = acquired */
#define SBT_PK_UNLOCK	    6  /* release; obj = the lock */
#define SBT_PK_SEM_WAIT	    7  /* P (may block); obj = the semaphore */
#define SBT_PK_SEM_TRYWAIT  8  /* non-blocking P; 0 = taken */
#define SBT_PK_SEM_POST	    9  /* V */
#define SBT_PK_COND_WAIT    10 /* obj = the condition variable, second argument = its mutex */
#define SBT_PK_COND_SIGNAL  11 /* signal or broadcast; obj = the condition variable */
#define SBT_PK_REGION_BODY                                                                         \
	12		    /* a region's outlined function, run by each thread of the team:       \
			     * its return is the thread's arrival at the region's implicit         \
			     * barrier; entry: obj = its return address, site = its address */
#define SBT_PK_TASK_NEW	 13 /* an OpenMP task created (GOMP_task, __kmpc_omp_task) */
#define SBT_PK_TASK_WAIT 14 /* taskwait / taskgroup end: waits for tasks, running some */
/* MPI (doc/design.md §5.8): calls of one process (rank) that other processes
 * take part in. A collective: obj = its communicator. A blocking send or
 * receive: obj = the peer's rank in the communicator, site = the
 * communicator (MPI_Sendrecv: site = the rank it receives from). */
#define SBT_PK_MPI_COLL	    15 /* MPI_Barrier and the collectives */
#define SBT_PK_MPI_SEND	    16 /* MPI_Send, MPI_Ssend, MPI_Rsend, MPI_Bsend */
#define SBT_PK_MPI_RECV	    17 /* MPI_Recv */
#define SBT_PK_MPI_SENDRECV 18 /* MPI_Sendrecv(_replace) */
#define SBT_PK_MPI_WAIT	    19 /* MPI_Wait*, MPI_Test*, MPI_Probe: completion */
#define SBT_PK_MPI_LIFE	    20 /* MPI_Init*, MPI_Finalize */
/* A communicator made (MPI_Comm_split, _split_type, _dup, _create): obj = the
 * parent, site = the color (split); its return's obj = the new one, read
 * through its output argument (SBT_COOKIE_OUT). */
#define SBT_PK_MPI_COMM 21
/* pthread_join and its variants: the calling thread joins a thread it (most
 * often) created, which ends its fork-join step's creations (doc/design.md
 * §5.1, Fork-join steps); obj = the pthread_t */
#define SBT_PK_JOIN 22
#define SBT_PK_MAX  22

/* Upper bound on probe ids, carried in the attach cookie and in the record. */
#define SBT_MAX_PROBES 1024

/* The attach cookie: probe id in the low 16 bits, probe kind in bits 16-23,
 * and what an entry record carries in obj (bits 24-31) and site (32-39). */
#define SBT_COOKIE(id, kind)		   ((__u64)(id) | (__u64)(kind) << 16)
#define SBT_COOKIE_ARGS(obj_arg, site_arg) ((__u64)(obj_arg) << 24 | (__u64)(site_arg) << 32)
#define SBT_COOKIE_KIND(c)		   (((c) >> 16) & 0xff)
#define SBT_COOKIE_OBJ_ARG(c)		   (((c) >> 24) & 0xff)
#define SBT_COOKIE_SITE_ARG(c)		   (((c) >> 32) & 0xff)
/* A self-timed probe shim site (shim/shim.h): its sixth argument is the
 * measured cost of the thread's previous site hit. */
#define SBT_COOKIE_TIMED (1ULL << 40)
/* Bits 41-43: argument n (1-6) of the entry is a pointer the function writes
 * its result through; the return record's obj is the 8 bytes there then
 * (instead of the return value). */
#define SBT_COOKIE_OUT(n)     ((__u64)(n) << 41)
#define SBT_COOKIE_OUT_ARG(c) (((c) >> 41) & 0x7)
/* Bits 44-50: the probe is this many bytes past the function's first
 * instruction (past its endbr64 or its first plain instructions, where the
 * kernel emulates the one probed: doc/design.md §5.4); the probed address
 * (SBT_ARG_IP) is the function's plus that. */
#define SBT_ENTRY_SKIP_MAX	 127
#define SBT_COOKIE_SKIP(n)	 ((__u64)(n) << 44)
#define SBT_COOKIE_SKIP_BYTES(c) (((c) >> 44) & SBT_ENTRY_SKIP_MAX)
/* That argument: the cost in ns in the low 32 bits, this bit when there is
 * one (the thread's first hit has none). */
#define SBT_SITE_COST_KNOWN (1ULL << 32)
/* A self-timed site's fifth argument is the CLOCK_MONOTONIC time its
 * wrapper read just before it (0: none), never one of the wrapped
 * function's (no entry record selects argument 5 there). The record takes
 * that time (SBT_RF_USER_TS) unless it is older than the BPF side's clock
 * by more than SBT_USER_TS_STALE_NS plus a tick, or ahead of it by more
 * than SBT_USER_TS_AHEAD_NS; so no record is stamped more than
 * SBT_USER_TS_BEHIND_MAX_NS before it was reserved (doc/design.md §4,
 * User-side time). */
#define SBT_USER_TS_STALE_NS	  (1000ULL * 1000)
#define SBT_USER_TS_AHEAD_NS	  (50ULL * 1000 * 1000)
#define SBT_USER_TS_BEHIND_MAX_NS (50ULL * 1000 * 1000)
/* The environment variable that turns the shim's self-timing on ("1"). */
#define SBT_SHIM_TIMED_ENV "SBT_PROBES_TIMED"
/* Argument selectors: 0 the default (obj: first argument, site: second),
 * 1-5 that argument, SBT_ARG_RET the return address (the word at the stack
 * pointer on entry), SBT_ARG_IP the probed address, SBT_ARG_CONST(k) the
 * constant k < 8 (a function without the argument, such as
 * GOMP_critical_start(void), given a fixed object), SBT_ARG_N(n) argument
 * n from 6 to SBT_ARG_N_MAX (the sixth register, then the stack: MPI's
 * collectives take their communicator seventh to eleventh), a 32-bit int. */
#define SBT_ARG_DEFAULT	 0
#define SBT_ARG_RET	 6
#define SBT_ARG_IP	 7
#define SBT_ARG_CONST(k) (8 + (k))
#define SBT_ARG_N(n)	 (16 + (n))
#define SBT_ARG_N_MAX	 12
/* The objects of libgomp's unnamed critical and atomic sections: below any
 * address, named by userspace. */
#define SBT_OBJ_CRITICAL 1
#define SBT_OBJ_ATOMIC	 2

/* Counters (perf_event) read at barrier boundaries. */
#define SBT_MAX_COUNTERS     4
#define SBT_CTR_INDEX(probe) ((probe)&0xff)
#define SBT_CTR_SCALED	     0x100 /* multiplexed: values scaled, an estimate */
#define SBT_CTR_SINCE_START  0x200 /* counted since the thread's first run in the session */

struct sbt_event {
	__u64 ts;    /* CLOCK_MONOTONIC, ns (bpf_ktime_get_ns, or SBT_RF_USER_TS) */
	__u64 obj;   /* see the record types */
	__u64 site;  /* EXIT: call site (return address); ENTER: second argument */
	__u32 pid;   /* thread group id */
	__u32 tid;   /* thread id */
	__u16 type;  /* SBT_EV_* */
	__u16 probe; /* probe id: index into the probe table, 0 for non-probe records */
	__u32 lost;  /* SBT_EV_LOST: records lost (older traces: in any record) */
	__u32 cost;  /* SBT_RF_COST: ns the thread's previous self-timed hit cost it */
	__u32 flags; /* SBT_RF_* */
};

/* Record flags. A self-timed hit's cost is known only after it: the
 * thread's next self-timed record brings it (doc/design.md §4, Self-timed
 * sites). */
#define SBT_RF_TIMED   1u /* made at a self-timed site */
#define SBT_RF_COST    2u /* cost holds the measured cost of the previous one */
#define SBT_RF_USER_TS 4u /* ts is the wrapper's time just before the hit */
#define SBT_RF_PHASE   8u /* BPF side only, never in a record: an arrival at a barrier */

_Static_assert(sizeof(struct sbt_event) == 48, "sbt_event is a fixed 48-byte record");

#endif /* SBT_EVENTS_H */
