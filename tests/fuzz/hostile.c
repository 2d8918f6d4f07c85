// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Crafted .sbt files for the trace harnesses' corpus (tests/fuzz/run.sh puts
 * them there): inputs too big to commit, made the same way every time.
 *
 *   hostile DIR
 *
 * quadratic-hangs.sbt (issue 16, item 3): 27,000 barrier ENTERs, each by a
 * new thread at a new barrier object, 20 s apart, none released. Each of the
 * unreleased barriers' hang reports listed every live thread: 1.3 MB that
 * made `report` take > 60 s and > 2.5 GB. Every reader path must be
 * O(records) in time and bounded in memory.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "lib/tracefile.h"

#define PID 4000

static int quadratic_hangs(const char *path)
{
	static struct sbt_probe_info probe = {
		.id = 1, .kind = SBT_PK_BARRIER, .symbol = "pthread_barrier_wait"};
	struct tf_meta m = {.probes = &probe, .nprobes = 1, .start_ns = 1000};
	struct tf_writer *w = tracefile__create(path);
	const __u32 n = 27000;
	__u32 i;

	if (!w)
		return -errno;
	for (i = 0; i < n; i++) {
		struct sbt_event e =
			sbt_event_make(SBT_EV_ENTER, 1, PID, PID + 1 + i, 2000 + i * 20000000000ULL,
				       0x10000 + i * 64ULL, 0);

		if (tracefile__write(w, &e, 1))
			break;
	}
	m.end_ns = 2000 + n * 20000000000ULL;
	return tracefile__finish(w, &m);
}

int main(int argc, char **argv)
{
	char path[4096];
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: hostile DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/quadratic-hangs.sbt", argv[1]);
	err = quadratic_hangs(path);
	if (err)
		fprintf(stderr, "hostile: %s: %s\n", path, strerror(-err));
	return err ? 1 : 0;
}
