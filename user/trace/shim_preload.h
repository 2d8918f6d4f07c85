/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The probe shim libraries to preload into a launched command (--shim,
 * doc/design.md §4, Probe shim): one per class traced that has one, found
 * next to the sbt-bpf binary (the build tree) or in ../lib/sbt-bpf/ (an
 * installation).
 */
#ifndef SBT_SHIM_PRELOAD_H
#define SBT_SHIM_PRELOAD_H

#include <stddef.h>

/* Classes (SBT_TRACE_*) the shim has libraries for. */
#define SHIM_CLASSES 15u

/* The libraries for the classes in `classes`, colon-separated, into buf.
 * Returns the classes they cover (0: none asked for), or a negative errno
 * with a message in err (-ENOENT: not installed). */
int shim_preload__find(unsigned int classes, char *buf, size_t n, char *err, size_t errlen);

#endif
