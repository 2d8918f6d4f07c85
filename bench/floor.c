// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * floor -p PID [-e] [-s SYMBOL]...: attach empty uprobe/uretprobe programs to
 * each SYMBOL (default pthread_barrier_wait) in every object PID maps that
 * defines it, the way sbt-bpf attaches (per pid, by file offset), and wait for
 * SIGINT or SIGTERM or the process's exit. -e: entry probes only (the probe
 * shim's sites: sbt_enter_F and sbt_exit_F are both plain probes).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "user/resolve/elfsym.h"
#include "floor.skel.h"
#include "lib/entry_skip.h"
#include "lib/parse.h"
#include "user/resolve/probes.h"
#include "lib/proc.h"
#include "user/bpf/uprobe_multi.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static int multi;
static int entry_only; /* -e */

/* Past the function's first instructions where sbt-bpf goes past them
 * (lib/entry_skip.h), the registers its records read left alone. */
static uint64_t probed_offset(const char *path, const char *symbol, uint64_t offset, uint64_t span)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned int skip;

	if (fd < 0)
		return offset;
	skip = entry_skip__in_file(fd, offset, span, probes__regs_read(symbol));
	close(fd);
	return offset + skip;
}

static int attach_file(struct floor *skel, pid_t pid, const char *path, const char *symbol)
{
	uint64_t offs[4];
	struct elfsym *es;
	int e, n, i, links = 0;

	es = elfsym__open(path, &e);
	if (!es)
		return 0;
	n = elfsym__find(es, symbol, offs, 4);
	for (i = 0; i < n; i++)
		offs[i] = probed_offset(path, symbol, offs[i], elfsym__function_span(es, offs[i]));
	elfsym__close(es);
	if (multi) {
		uint64_t cookies[4] = {0};

		if (n &&
		    ((!entry_only && uprobe_multi__attach(bpf_program__fd(skel->progs.floor_exit),
							  path, offs, cookies, n, 1, pid) < 0) ||
		     uprobe_multi__attach(bpf_program__fd(skel->progs.floor_enter), path, offs,
					  cookies, n, 0, pid) < 0))
			return -errno;
		return n;
	}
	for (i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, ret, .retprobe = 1);
		LIBBPF_OPTS(bpf_uprobe_opts, ent, .retprobe = 0);

		if ((!entry_only && !bpf_program__attach_uprobe_opts(skel->progs.floor_exit, pid,
								     path, offs[i], &ret)) ||
		    !bpf_program__attach_uprobe_opts(skel->progs.floor_enter, pid, path, offs[i],
						     &ent))
			return -errno;
		links++;
	}
	return links;
}

/* The same link kind as sbt-bpf: multi-uprobe links where the kernel has
 * them, unless SBT_BPF_NO_UPROBE_MULTI is set. */
static struct floor *load(int try_multi)
{
	struct floor *skel = floor__open();

	if (!skel)
		return NULL;
	multi = try_multi && !getenv("SBT_BPF_NO_UPROBE_MULTI");
	if (multi) {
		bpf_program__set_expected_attach_type(skel->progs.floor_enter,
						      SBT_BPF_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(skel->progs.floor_exit,
						      SBT_BPF_TRACE_UPROBE_MULTI);
	}
	if (floor__load(skel)) {
		floor__destroy(skel);
		return NULL;
	}
	return skel;
}

int main(int argc, char **argv)
{
	const char *symbols[8] = {"pthread_barrier_wait"};
	int nsymbols = 0, k;
	struct mapped_file *files;
	struct floor *skel;
	int opt, pid = 0, n, i, links = 0, e;

	while ((opt = getopt(argc, argv, "p:s:e")) != -1) {
		if (opt == 'p' && !parse_int(optarg, 1, 1 << 30, &pid))
			continue;
		if (opt == 'e') {
			entry_only = 1;
			continue;
		}
		if (opt == 's' && nsymbols < 8) {
			symbols[nsymbols++] = optarg;
			continue;
		}
		fprintf(stderr, "usage: floor -p PID [-e] [-s SYMBOL]\n");
		return 2;
	}
	if (!pid) {
		fprintf(stderr, "usage: floor -p PID [-e] [-s SYMBOL]\n");
		return 2;
	}
	n = proc__mapped_files(pid, &files);
	skel = load(1);
	if (!skel)
		skel = load(0);
	if (n < 0 || !skel) {
		fprintf(stderr, "floor: cannot read process %d or load BPF\n", pid);
		return 1;
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < (nsymbols ? nsymbols : 1); k++) {
			/* open_path: through /proc/PID/root where the process has
			 * its own; "" where the path opens as it is */
			e = files[i].executable
				    ? attach_file(skel, pid,
						  files[i].open_path[0] ? files[i].open_path
									: files[i].path,
						  symbols[k])
				    : 0;
			if (e < 0) {
				fprintf(stderr, "floor: attach failed: %s\n", strerror(-e));
				return 1;
			}
			links += e;
		}
	}
	if (!links) {
		fprintf(stderr, "floor: %s not found in process %d\n", symbols[0], pid);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "floor: attached %d probe pairs (%s); tracing\n", links,
		multi ? "multi-uprobe links" : "one link per function");
	while (!stop && !kill(pid, 0))
		usleep(20000);
	floor__destroy(skel);
	free(files);
	return 0;
}
