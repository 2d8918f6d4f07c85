/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * α, the cost of one probe hit, measured on this machine per probed
 * function (doc/design.md §5.4: it depends on the probed instruction, by up to 8×).
 * The real functions are called in-process on private objects, with the
 * probes attached to our own pid and without; entry and return probes are
 * told apart by a pass with entry probes only.
 *
 * Two ways: calibration__measure(), every function thoroughly (about a
 * second; `sbt-bpf calibrate`, cached per kernel and CPU for --no-calibrate),
 * and a calibrator, which a tracing session keeps: the functions of the
 * classes it traces, measured at its start, again at low duty while it
 * traces, and at its end.
 */
#ifndef SBT_CALIBRATE_H
#define SBT_CALIBRATE_H

#include <stddef.h>
#include "analyses/alpha_series.h"
#include "analyses/phases.h"
#include "user/resolve/probes.h"

#define CALIBRATION_MAX	  32
#define CALIBRATION_CACHE "/var/cache/sbt-bpf/calibration"
/* The futex syscall tracepoints' cost per syscall (sys_enter as entry,
 * sys_exit as return), under this pseudo-symbol. */
#define CAL_FUTEX ALPHA_SYM_FUTEX
/* The cost of one counter record (-e: two counters read and recorded at a
 * barrier hit), as the entry cost of this pseudo-symbol. */
#define CAL_COUNTERS ALPHA_SYM_COUNTERS
/* The probe shim's sites (shim/shim.h): an entry site hit as the entry
 * cost, an exit site hit as the exit cost; the same for every function. */
#define CAL_SHIM_SITE ALPHA_SYM_SHIM_SITE
/* A pthread_barrier_wait call's two hits with every CPU hitting at once
 * (entry field) and alone (exit field): how much dearer a hit gets with hits
 * beside it. */
#define CAL_ALL_CPUS ALPHA_SYM_ALL_CPUS

/* How the kernel handles the probed first instruction (x86): the cost of an
 * entry hit depends on it far more than on the function. */
enum insn_class { INSN_XOL, INSN_EMULATED, INSN_NOP5, INSN_NCLASSES };
_Static_assert(INSN_NCLASSES == ALPHA_ALL_CPUS_CLS,
	       "the all-CPUs entry's threads follow the classes");

struct alpha {
	char symbol[SBT_SYMBOL_MAX];
	__u64 entry_ns; /* cost of the entry probe hit */
	__u64 exit_ns;	/* cost of the return probe hit */
	int cls;	/* enum insn_class of its probed instruction;
			 * INSN_NCLASSES: not a uprobe (CAL_FUTEX) */
	/* probed this many bytes past its first instruction (its endbr64,
	 * its first plain instructions: x86_insn__entry_skip) */
	int entry_skip;
};

struct calibration {
	char kernel[128];
	char cpu[128];
	struct alpha a[CALIBRATION_MAX];
	int n;
};

/* Measure now (about a second). 0, or a negative errno with a message. */
int calibration__measure(struct calibration *c, char *err, size_t errlen);
/* Load a cache made on this kernel and CPU: 0; -ENOENT (missing),
 * -ESTALE (another kernel or CPU) or -EINVAL (corrupt). */
int calibration__load(struct calibration *c, const char *path);
int calibration__save(const struct calibration *c, const char *path);
/* α of a function, or NULL when it was not calibrated. */
const struct alpha *calibration__find(const struct calibration *c, const char *symbol);
/* The class of the instruction at offset of path (XOL when unreadable). */
int insn_class__of(const char *path, __u64 offset);
/* α for a function that was not calibrated, from the calibrated functions
 * whose first instruction is of the same class (NULL if none is). */
const struct alpha *calibration__for_class(const struct calibration *c, int cls);
/* The cache when valid, else a fresh measurement saved to the cache. */
int calibration__get(struct calibration *c, int *measured, char *err, size_t errlen);

/* What a tracing session will probe, and so calibrate. */
struct cal_plan {
	unsigned int classes; /* SBT_TRACE_* traced */
	int user_probes;      /* --probe functions (charged by their class) */
	int counters;	      /* -e: counter records */
	int shim;	      /* the probe shim is preloaded (-- CMD) */
};

/* Is a function of ours (its file and offset; exit_offset: a shim site's
 * exit) probed by the tracing session, whose programs and return probes
 * would then run at our calls too? */
typedef int (*cal_probed_fn)(void *ctx, __u64 dev, __u64 ino, __u64 offset, __u64 exit_offset);

struct calibrator;

/* A calibrator for the functions of plan's classes (and the pseudo-entries
 * in use), with a BPF session of its own kept until calibrator__free(). 0,
 * or a negative errno with a message. */
int calibrator__new(struct calibrator **out, const struct cal_plan *plan, char *err, size_t errlen);
/* Every function of the plan, every pseudo-entry, with nothing of the
 * tracing session attached (its start, its end), into *c; *ts: when it
 * began (CLOCK_MONOTONIC). 0, or a negative errno with a message. */
int calibrator__measure(struct calibrator *cal, struct calibration *c, __u64 *ts, char *err,
			size_t errlen);
/* A short one while tracing (about 16 ms of calls): the functions `probed`
 * is false for (the pseudo-entries and the others are left out: they keep
 * their earlier cost); pairs split as the last calibrator__measure() split
 * them when their reference is left out. -ENOENT when none can be measured
 * now; else as above. */
int calibrator__remeasure(struct calibrator *cal, cal_probed_fn probed, void *ctx,
			  struct calibration *c, __u64 *ts, char *err, size_t errlen);
void calibrator__free(struct calibrator *cal);

#endif
