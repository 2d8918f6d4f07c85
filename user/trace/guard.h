/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Launch mode stops a process of the traced tree where it may have mapped
 * new files, until its files are probed (doc/design.md §4, Following a
 * process tree). A tracer killed in between (SIGKILL, OOM) must not leave
 * it stopped for ever: a guard process, forked before the command runs,
 * waits for the tracer's end and then continues every process still
 * listed as stopped for us.
 */
#ifndef SBT_GUARD_H
#define SBT_GUARD_H

#include <sys/types.h>

/* Fork the guard of the BPF maps listing stopped processes (hash maps
 * keyed by pid, the caller's descriptors, n at most 4). Its end: when this
 * process ends, however it ends. Returns the guard's pid, or a negative
 * errno. */
pid_t guard__start(const int *map_fds, int n);

#endif
