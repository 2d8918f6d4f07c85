/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Multi-uprobe BPF links (kernel 6.6+) through the bpf() syscall, since
 * Debian 12's libbpf 1.1 predates them. One link covers every probed offset
 * of one file: attaching is one syscall per file instead of one perf event
 * per function, and detaching waits for one RCU grace period per link
 * instead of one per function (~0.1 s each on this kernel).
 */
#ifndef SBT_UPROBE_MULTI_H
#define SBT_UPROBE_MULTI_H

#include <stdint.h>
#include <sys/types.h>

/* enum bpf_attach_type value of BPF_TRACE_UPROBE_MULTI in the kernel uapi. */
#define SBT_BPF_TRACE_UPROBE_MULTI 48

/* Attach prog_fd (loaded with expected_attach_type BPF_TRACE_UPROBE_MULTI)
 * to cnt file offsets of path, as entry or return probes, in process pid
 * (0: every process). cookies[i] is what bpf_get_attach_cookie() returns at
 * offsets[i]. Returns the link fd, or a negative errno. */
int uprobe_multi__attach(int prog_fd, const char *path, const uint64_t *offsets,
			 const uint64_t *cookies, uint32_t cnt, int retprobe, pid_t pid);

#endif
