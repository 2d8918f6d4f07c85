// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Context switches of a process that is not traced (bench/system_cost.sh):
 * a parent and its child hand one byte back and forth over two pipes N
 * times. Run on one CPU (taskset), each hand-off is a context switch, so
 * the time per round prices what every sched_switch program of a tracer
 * adds to the machine's switches.
 *
 *   pingpong [-n ROUNDS]    prints: rounds N ns_per_round X
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* Read one byte from `in` and write it to `out`, n times (the child), or
 * write first (the parent). 0, or -1 when a pipe failed. */
static int bounce(int in, int out, unsigned long n, int first)
{
	char c = 'x';
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (first && write(out, &c, 1) != 1)
			return -1;
		if (read(in, &c, 1) != 1)
			return -1;
		if (!first && write(out, &c, 1) != 1)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n = 100000;
	int to_child[2], to_parent[2], status;
	unsigned long long t0, t1;
	char *end;
	pid_t pid;

	if (argc == 3 && !strcmp(argv[1], "-n")) {
		errno = 0;
		n = strtoul(argv[2], &end, 10);
		if (errno || *end || !n || argv[2][0] == '-') {
			fprintf(stderr, "pingpong: invalid value '%s' for -n\n", argv[2]);
			return 2;
		}
	} else if (argc != 1) {
		fprintf(stderr, "usage: pingpong [-n ROUNDS]\n");
		return 2;
	}
	if (pipe(to_child) || pipe(to_parent)) {
		perror("pingpong: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("pingpong: fork");
		return 1;
	}
	if (!pid)
		_exit(bounce(to_child[0], to_parent[1], n, 0) ? 1 : 0);
	t0 = now_ns();
	if (bounce(to_parent[0], to_child[1], n, 1)) {
		perror("pingpong: pipe");
		return 1;
	}
	t1 = now_ns();
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "pingpong: the child failed\n");
		return 1;
	}
	printf("rounds %lu ns_per_round %.0f\n", n, (double)(t1 - t0) / (double)n);
	return 0;
}
