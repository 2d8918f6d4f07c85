// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <linux/bpf.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "user/bpf/uprobe_multi.h"

#define SBT_BPF_F_UPROBE_MULTI_RETURN 1U

/* The BPF_LINK_CREATE part of union bpf_attr as of kernel 6.6, for
 * uprobe_multi; padded so the kernel finds zeros past what it knows. */
struct link_create_uprobe_multi {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t multi_flags;
	uint32_t pid;
	uint32_t pad[17];
};

_Static_assert(__builtin_offsetof(struct link_create_uprobe_multi, path) == 16,
	       "uprobe_multi starts after prog_fd, target_fd, attach_type, flags");
_Static_assert(__builtin_offsetof(struct link_create_uprobe_multi, pid) == 56,
	       "uprobe_multi.pid at offset 56 of union bpf_attr");

int uprobe_multi__attach(int prog_fd, const char *path, const uint64_t *offsets,
			 const uint64_t *cookies, uint32_t cnt, int retprobe, pid_t pid)
{
	struct link_create_uprobe_multi attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = prog_fd;
	attr.attach_type = SBT_BPF_TRACE_UPROBE_MULTI;
	attr.path = (uint64_t)(uintptr_t)path;
	attr.offsets = (uint64_t)(uintptr_t)offsets;
	attr.cookies = (uint64_t)(uintptr_t)cookies;
	attr.cnt = cnt;
	attr.multi_flags = retprobe ? SBT_BPF_F_UPROBE_MULTI_RETURN : 0;
	attr.pid = pid > 0 ? pid : 0; /* 0: every process mapping the file */
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : (int)fd;
}
