// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The benchmark floor: empty programs on the probes sbt-bpf uses, so the
 * difference to sbt-bpf is the cost of what its programs do. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("uprobe")
int floor_enter(void *ctx)
{
	return 0;
}

SEC("uretprobe")
int floor_exit(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
