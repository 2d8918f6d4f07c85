/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Files sbt-bpf reads that another user may control (a traced job's
 * libraries, a trace file in a shared directory): regular files only, and
 * never a blocking open (a FIFO planted where a library should be would
 * hang the tracer). Read with pread, never mapped: a file another process
 * truncates under a mapping raises SIGBUS in its reader. doc/design.md §7.
 */
#ifndef SBT_INFILE_H
#define SBT_INFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Open path read-only (O_CLOEXEC, plus extra flags such as O_NOFOLLOW).
 * A file descriptor, or a negative errno: -EINVAL when it is not a regular
 * file (a FIFO, a device, a directory). */
int infile__open(const char *path, int extra_flags);
/* Whether fd is a regular file: 0, or a negative errno (-EINVAL: not). */
int infile__check_regular(int fd);
/* Up to n bytes of path at offset into buf (short at its end). The count,
 * or a negative errno. */
ssize_t infile__read_at(const char *path, uint64_t offset, void *buf, size_t n);

#endif
