/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * α, the cost of one probe hit, measured on this machine per probed
 * function (DESIGN §5.4: it depends on the probed instruction, by up to 8×).
 * The real functions are called in-process on private objects, with the
 * probes attached to our own pid and without; entry and return probes are
 * told apart by a pass with entry probes only. Results are cached per kernel
 * and CPU.
 */
#ifndef SBT_CALIBRATE_H
#define SBT_CALIBRATE_H

#include <stddef.h>
#include "phases.h"

#define CALIBRATION_MAX	  32
#define CALIBRATION_CACHE "/var/cache/sbt-bpf/calibration"

struct alpha {
	char symbol[SBT_SYMBOL_MAX];
	__u64 entry_ns; /* cost of the entry probe hit */
	__u64 exit_ns;	/* cost of the return probe hit */
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
/* The cache when valid, else a fresh measurement saved to the cache. */
int calibration__get(struct calibration *c, int *measured, char *err, size_t errlen);

#endif
