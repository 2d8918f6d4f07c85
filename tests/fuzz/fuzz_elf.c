// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness: hostile ELF files, as a traced job's libraries may be.
 * The input is a file (a memfd) read by the ELF symbol reader
 * (user/resolve/elfsym.h) and asked what the tracer asks: functions by name
 * and by address, imports, the build-id, every function, then the probes
 * it would place there (probes__add_known: known functions, shim sites,
 * region and task bodies; each first instruction read back from the file),
 * and how far past its first instructions each function would be probed
 * (lib/entry_skip.h: the file's program headers and code read again).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "lib/entry_skip.h"
#include "lib/proc.h"
#include "sbt/events.h"
#include "tests/fuzz/fuzz.h"
#include "user/resolve/elfsym.h"
#include "user/resolve/probes.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init();
	return 0;
}

static void broken(const char *what, const char *name)
{
	fuzz_die_in(what, "breaks its contract", name, strlen(name), 0);
}

/* Every function: a name, without a version suffix. */
static int each(void *ctx, const char *name, uint64_t offset)
{
	(void)offset;
	if (!name[0] || strchr(name, '@'))
		broken("elfsym__each_function", name);
	++*(int *)ctx;
	return 0;
}

static void queries(const struct elfsym *es)
{
	static const char *const names[] = {
		"pthread_barrier_wait", "GOMP_barrier", "main", "0x401136", "0x1000",
		"sbt_probes_shim_v1"};
	unsigned char id[ELFSYM_BUILD_ID_MAX];
	uint64_t offs[8], enter, exit;
	size_t i;
	int n = 0, k;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		k = elfsym__find(es, names[i], offs, 8);
		if (k < 0 || k > 8)
			broken("elfsym__find", names[i]);
		elfsym__imports(es, names[i]);
	}
	if (elfsym__build_id(es, id) > ELFSYM_BUILD_ID_MAX)
		broken("elfsym__build_id", "");
	elfsym__each_function(es, each, &n);
	probes__shim_sites(es, "pthread_barrier_wait", &enter, &exit);
}

struct skips {
	const struct elfsym *es;
	int fd;
};

/* Every function's probe placement: within its span, which the cookie holds. */
static int skip_of(void *ctx, const char *name, uint64_t offset)
{
	const struct skips *s = ctx;
	uint64_t span = elfsym__function_span(s->es, offset);
	unsigned int skip = entry_skip__in_file(s->fd, offset, span, 0);

	if (skip > SBT_ENTRY_SKIP_MAX || (span && skip >= span))
		broken("entry_skip__in_file", name);
	return 0;
}

/* The probes the tracer would add for this file, as a library of process 0
 * named by its /proc/self/fd path (no process needed, nothing attached). */
static void probes(const struct elfsym *es, int fd)
{
	struct mapped_file f = {.executable = 1};
	struct probe_table t;
	struct stat st;

	if (fstat(fd, &st) || probes__init(&t))
		abort();
	f.inode = st.st_ino;
	f.dev = proc__dev_of(st.st_dev);
	snprintf(f.path, sizeof(f.path), "/proc/self/fd/%d", fd);
	if (probes__add_known(&t, es, &f, SBT_TRACE_ALL) > SBT_MAX_PROBES || t.n > SBT_MAX_PROBES)
		broken("probes__add_known", f.path);
	probes__free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fuzz_file(data, size), err = 0;
	struct elfsym *es = elfsym__from_fd(fd, &err);

	if (!es) {
		if (err >= 0)
			broken("elfsym__from_fd: no error", "");
		return 0;
	}
	queries(es);
	probes(es, fd);
	elfsym__each_function(es, skip_of, &(struct skips){.es = es, .fd = fd});
	elfsym__close(es);
	return 0;
}
