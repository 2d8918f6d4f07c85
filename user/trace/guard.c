// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The guard of processes stopped for the tracer (user/trace/guard.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "user/trace/guard.h"

/* Close every descriptor but keep[0..n): the guard must not keep the
 * tracer's BPF links, rings or output files alive. */
static void close_all_but(const int *keep, int n)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int fd, i, mine = d ? dirfd(d) : -1, kept;

	if (!d)
		return;
	while ((e = readdir(d))) {
		fd = atoi(e->d_name);
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == mine || fd <= 2)
			continue;
		for (kept = 0, i = 0; i < n; i++)
			kept |= keep[i] == fd;
		if (!kept)
			close(fd);
	}
	closedir(d);
}

/* Continue every process listed: the tracer that stopped it is gone. */
static void continue_listed(int map_fd)
{
	__u32 key, next;
	int more;

	for (more = !bpf_map_get_next_key(map_fd, NULL, &key); more; key = next) {
		more = !bpf_map_get_next_key(map_fd, &key, &next);
		kill((pid_t)key, SIGCONT);
	}
}

#define MAX_LISTS 4

static void guard_main(const int *map_fds, int n, int wait_fd)
{
	int keep[MAX_LISTS + 1], i;
	char c;

	for (i = 0; i < n; i++)
		keep[i] = map_fds[i];
	keep[n] = wait_fd;

	prctl(PR_SET_NAME, "sbt-bpf-guard");
	/* Ctrl-C reaches the whole process group: the guard outlives it */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	close_all_but(keep, n + 1);
	/* the tracer holds the other end: EOF when it ends, however */
	while (read(wait_fd, &c, 1) < 0 && errno == EINTR)
		;
	for (i = 0; i < n; i++)
		continue_listed(map_fds[i]);
	_exit(0);
}

pid_t guard__start(const int *map_fds, int n)
{
	int p[2];
	pid_t pid;

	if (n < 1 || n > MAX_LISTS)
		return -EINVAL;
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (pid == 0) {
		close(p[1]);
		guard_main(map_fds, n, p[0]);
	}
	close(p[0]);
	/* p[1] stays open (close-on-exec) until this process ends */
	return pid;
}
