// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
// What the C++ examples share (C ones share workload.h): the clock the
// tracer's records use, and strict positional arguments.
#ifndef SBT_EXAMPLES_CXX_COMMON_HPP
#define SBT_EXAMPLES_CXX_COMMON_HPP

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace example
{

// CLOCK_MONOTONIC, what bpf_ktime_get_ns reads.
inline int64_t now_ns()
{
	timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Argument k as an integer in [lo, hi], def when absent; anything else
// exits 2 with a message and the usage line.
inline long arg_or(int argc, char **argv, int k, long def, long lo, long hi, const char *usage)
{
	char *end;
	long v;

	if (argc <= k)
		return def;
	errno = 0;
	v = strtol(argv[k], &end, 10);
	if (errno || end == argv[k] || *end || v < lo || v > hi) {
		fprintf(stderr, "%s: argument %d must be an integer in [%ld, %ld]\n", argv[0], k,
			lo, hi);
		fprintf(stderr, "usage: %s\n", usage);
		exit(2);
	}
	return v;
}

} // namespace example

#endif
