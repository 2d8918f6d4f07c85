/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Files to probe across many processes (system-wide mode, several -p).
 * A uprobe belongs to a file (an inode), not to a path: every distinct file
 * (device + inode) is read once, its probes get ids in one table shared by
 * every process, and it is attached once. Files come from the processes'
 * maps, opened through /proc/PID/root so that a process in another mount
 * namespace (a container) is resolved in its own file system; a --probe
 * BINARY matches the file it names, or any file with the same GNU build-id
 * (the same program copied into a container), or the same path.
 */
#ifndef SBT_DISCOVER_H
#define SBT_DISCOVER_H

#include <stdint.h>
#include <sys/types.h>
#include "user/resolve/elfsym.h"
#include "user/resolve/probes.h"

struct discover_file {
	uint64_t dev, ino;
	char path[SBT_PATH_MAX];	   /* as the first process that mapped it saw it */
	char open_path[SBT_PATH_MAX + 64]; /* as we can open it */
	int first, n;			   /* its probes: table.probes[first .. first + n) */
	uint64_t loader_offset;		   /* _dl_debug_state, 0 if not the dynamic loader */
	int attached;			   /* attached for every process (-a) */
};

struct discover {
	struct probe_table table; /* every probe; ids are indices */
	struct discover_file *files;
	int nfiles;
	unsigned int classes;
	const struct user_probe *up;
	int nup;
	/* identity of each --probe BINARY found on this host */
	struct {
		uint64_t dev, ino;
		unsigned char build_id[ELFSYM_BUILD_ID_MAX];
		int build_id_len;
	} * up_ident;
	int loader; /* look for the dynamic loader's _dl_debug_state too */
};

/* 0 or a negative errno. */
int discover__init(struct discover *d, unsigned int classes, const struct user_probe *up, int nup,
		   int loader);
void discover__free(struct discover *d);

/* Read the files process pid maps: new files get their probes. Stores in
 * idx[] (at most max) the files it maps that have probes or are the
 * loader, and returns how many, or a negative errno (-ESRCH: no such
 * process; -E2BIG: the probe table is full). */
int discover__pid(struct discover *d, pid_t pid, int *idx, int max);
/* A process runs without the probe shim in use for the others: probes for
 * the functions the shim stands in for, in the files it maps (files[0..n),
 * from proc__mapped_files()), get ids [*first, *first + return) in the
 * table, for the caller to attach for that process alone. Returns how
 * many, or a negative errno. */
int discover__unshimmed(struct discover *d, const struct mapped_file *files, int n, int *first);
/* The same for a file that no process maps yet (a library installed on
 * the machine); returns its index, -ENOENT when it has nothing to probe. */
int discover__path(struct discover *d, const char *path);
/* Libraries of the parallel runtimes installed on this machine (libc,
 * libgomp, libomp, the dynamic loader), so that processes started later
 * are probed from their first instruction. Returns how many files have
 * probes. */
int discover__installed(struct discover *d);

#endif
