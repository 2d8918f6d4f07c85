/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Hang checks that tell a stopped process from a hung barrier (doc/design.md
 * §7). A barrier cannot release while a thread of its process is stopped
 * (SIGSTOP, Ctrl-Z, a debugger): that is reported as a stop, naming the
 * stopped threads, not as a hang; and once the process runs again, its
 * waits, which include the stop, are given a timeout's time to end before a
 * hang is reported.
 */
#ifndef SBT_STOPS_H
#define SBT_STOPS_H

#include "analyses/jobs.h"

struct stops;

struct stops *stops__new(void);
void stops__free(struct stops *s);
/* Check job's barriers for hangs at now_ns (phases__check_hangs()), its
 * process's stopped threads looked at in /proc first when a barrier has
 * waited half the timeout (at most every STOPS_CHECK_NS). */
void stops__check_hangs(struct stops *s, struct job *job, __u64 now_ns, __u64 timeout_ns);

#endif
