/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Start a command held at its entry point: exec'd, its interpreter has mapped
 * every library it links, but none of the program's own code has run. The
 * caller attaches probes, then releases it, so the first barrier of the
 * program is seen.
 */
#ifndef SBT_LAUNCH_H
#define SBT_LAUNCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Fork and exec argv under ptrace, with preload (NULL: none) appended to
 * its LD_PRELOAD, run to the entry point and stop there. Returns the
 * child's pid, or a negative errno with a message in err (the command does
 * not exist, is not executable, exited early...). */
pid_t launch__start(char *const argv[], const char *preload, char *err, size_t errlen);
/* Call each of fns[0..n), probe shim sites of the held child (shim/shim.h;
 * an address that is not one is skipped), once, as functions of no
 * arguments; the child is held at its entry point again afterwards, its
 * registers as they were. Returns how many were called, or a negative
 * errno (-EINTR: a signal came for the child, sent to it again;
 * -ECHILD: it died; -EOPNOTSUPP: it runs with a shadow stack, none
 * called). */
int launch__call_sites(pid_t pid, const uint64_t *fns, int n);
/* Let the held child run (detach ptrace). */
int launch__release(pid_t pid);
/* After sbt-bpf was stopped by a signal (at since_ns, CLOCK_MONOTONIC),
 * the released command's end if it comes: a terminal's Ctrl-C (or a kill
 * of the process group) reaches the command too. Waits LAUNCH_GRACE_MS
 * from since_ns for it to end (a handler that exits), then on while the
 * command or a process it started acts on a signal or exits (a fatal
 * signal on its way, a large address space to unmap, a shell waiting for
 * its job to die first), until LAUNCH_QUIET_MS pass without any, or
 * LAUNCH_ENDING_MS from since_ns at most. 1 and its wait status in
 * *wstatus once reaped; 0 when it runs on. */
#define LAUNCH_GRACE_MS	 200
#define LAUNCH_QUIET_MS	 50
#define LAUNCH_ENDING_MS 5000
int launch__await_end(pid_t pid, uint64_t since_ns, int *wstatus);
/* Kill a held child that will not be released. */
void launch__abort(pid_t pid);
/* argv as one line, words separated by spaces (headings, the trace file). */
void launch__join_argv(char *const argv[], char *buf, size_t n);
/* How a command ended, from its wait status: "exited with status 3",
 * "killed by SIGSEGV (core dumped)". */
void launch__describe_end(int wstatus, char *buf, size_t n);

#endif
