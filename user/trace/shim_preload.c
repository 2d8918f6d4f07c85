// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The probe shim libraries of a launch (user/trace/shim_preload.h). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "user/resolve/probes.h"
#include "user/trace/shim_preload.h"

static const struct {
	unsigned int cls;
	const char *lib;
} shim_libs[] = {
	{SBT_TRACE_BARRIER, "libsbt-probes-barrier.so"},
	{SBT_TRACE_LOCK, "libsbt-probes-lock.so"},
	{SBT_TRACE_SEM, "libsbt-probes-sem.so"},
	{SBT_TRACE_COND, "libsbt-probes-cond.so"},
};

/* The directory holding the libraries: next to our binary, or installed. */
static int shim_dir(char *dir, size_t n)
{
	static const char *const rel[] = {".", "../lib/sbt-bpf"};
	char exe[PATH_MAX], base[PATH_MAX], lib[2 * PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t i;

	if (len < 0)
		return -errno;
	exe[len] = '\0';
	snprintf(base, sizeof(base), "%s", dirname(exe));
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(lib, sizeof(lib), "%s/%s/%s", base, rel[i], shim_libs[0].lib);
		if (!access(lib, R_OK) && realpath(lib, exe)) {
			snprintf(dir, n, "%s", dirname(exe));
			return 0;
		}
	}
	return -ENOENT;
}

int shim_preload__find(unsigned int classes, char *buf, size_t n, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	unsigned int found = 0;
	size_t i, used = 0;
	int e;

	buf[0] = '\0';
	if (!(classes & SHIM_CLASSES))
		return 0;
	e = shim_dir(dir, sizeof(dir));
	if (e) {
		snprintf(err, errlen,
			 "the probe shim libraries (%s...) are not installed next to "
			 "sbt-bpf nor in ../lib/sbt-bpf",
			 shim_libs[0].lib);
		return e;
	}
	for (i = 0; i < sizeof(shim_libs) / sizeof(shim_libs[0]); i++) {
		if (!(classes & shim_libs[i].cls))
			continue;
		used += snprintf(buf + used, used < n ? n - used : 0, "%s%s/%s", used ? ":" : "",
				 dir, shim_libs[i].lib);
		found |= shim_libs[i].cls;
	}
	if (used >= n) {
		snprintf(err, errlen, "the probe shim's path is too long: %s", dir);
		return -ENAMETOOLONG;
	}
	return (int)found;
}
