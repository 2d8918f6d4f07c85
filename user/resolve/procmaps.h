/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The file-backed mappings of a process (/proc/PID/maps), one entry per
 * mapped file, with a path that opens it from our mount namespace. */
#ifndef SBT_PROCMAPS_H
#define SBT_PROCMAPS_H

#include <stdint.h>
#include <sys/types.h>

struct mapped_file {
	uint64_t inode;
	uint64_t dev;
	char path[512];	     /* as the process sees it */
	char open_path[576]; /* /proc/PID/root/<path>: works across mount namespaces */
	int executable;	     /* has an executable mapping */
};

/* Mapped files of pid, deduplicated by device and inode. Returns the count
 * (>= 0) and a malloc'ed array in *out, or a negative errno (-ESRCH when the
 * process does not exist). */
int procmaps__files(pid_t pid, struct mapped_file **out);

#endif
