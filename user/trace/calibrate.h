/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * α, the cost of one probe hit, measured on this machine per probed
 * function (doc/design.md §5.4: it depends on the probed instruction, by up to 8×).
 * The real functions are called in-process on private objects, with the
 * probes attached to our own pid and without; entry and return probes are
 * told apart by a pass with entry probes only. Results are cached per kernel
 * and CPU.
 */
#ifndef SBT_CALIBRATE_H
#define SBT_CALIBRATE_H

#include <stddef.h>
#include "analyses/phases.h"

#define CALIBRATION_MAX	  32
#define CALIBRATION_CACHE "/var/cache/sbt-bpf/calibration"
/* The futex syscall tracepoints' cost per syscall (sys_enter as entry,
 * sys_exit as return), under this pseudo-symbol. */
#define CAL_FUTEX "[futex-tracepoints]"
/* The cost of one counter record (-e: two counters read and recorded at a
 * barrier hit), as the entry cost of this pseudo-symbol. */
#define CAL_COUNTERS "[counter-record]"
/* The probe shim's sites (shim/shim.h): an entry site hit as the entry
 * cost, an exit site hit as the exit cost; the same for every function. */
#define CAL_SHIM_SITE "[shim-site]"

/* How the kernel handles the probed first instruction (x86): the cost of an
 * entry hit depends on it far more than on the function. */
enum insn_class { INSN_XOL, INSN_EMULATED, INSN_NOP5, INSN_NCLASSES };

struct alpha {
	char symbol[SBT_SYMBOL_MAX];
	__u64 entry_ns; /* cost of the entry probe hit */
	__u64 exit_ns;	/* cost of the return probe hit */
	int cls;	/* enum insn_class of its first instruction;
			 * INSN_NCLASSES: not a uprobe (CAL_FUTEX) */
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

#endif
