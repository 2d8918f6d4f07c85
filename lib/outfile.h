/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Files sbt-bpf creates (traces, reports, exports, the calibration cache):
 * readable by their owner only (a trace holds other users' command lines
 * and symbols), and never through a symbolic link as their last component
 * (one planted in a shared directory would make root write where it
 * points). doc/design.md §7.
 */
#ifndef SBT_OUTFILE_H
#define SBT_OUTFILE_H

#include <stdio.h>

/* Mode of the files created here, and of the directories. */
#define OUTFILE_MODE 0600
#define OUTDIR_MODE  0700

/* Open path for writing, created 0600 or truncated; a symbolic link is
 * refused (-ELOOP). A file descriptor, or a negative errno. */
int outfile__open(const char *path);
/* The same as a stdio stream (NULL with errno set). */
FILE *outfile__fopen(const char *path);
/* Flush f and close it (stdout and stderr: flushed only). 0, or a negative
 * errno: a write that failed at any time counts, not only the last flush
 * (fclose() alone says nothing of data lost earlier). */
int outfile__close(FILE *f);
/* What went wrong creating a file, for a message: strerror, but a symbolic
 * link says it was refused. */
const char *outfile__why(int err);
/* Directory path, created 0700; when it exists as a directory of ours,
 * made 0700. 0, or a negative errno (-ENOTDIR: something else is there). */
int outfile__private_dir(const char *path);

#endif
