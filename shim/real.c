// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The functions the shim's wrappers stand for (shim/shim.h). */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "shim/shim.h"

int shim__timed;
uint64_t shim__clock_ns;
__thread uint64_t shim__prev;

/* The cost of one clock read: the shortest of back-to-back pairs (the
 * interval between two reads is one read's worth of time). */
static uint64_t clock_read_cost(void)
{
	uint64_t best = UINT64_MAX, t0, d;
	int i;

	for (i = 0; i < 200; i++) {
		t0 = shim__now();
		d = shim__now() - t0;
		if (d < best)
			best = d;
	}
	return best;
}

static void resolve_all(void);

/* Self-timing when sbt-bpf asked for it; every real function looked up
 * (shim/shim.h). */
__attribute__((constructor)) static void shim_init(void)
{
	const char *v = getenv(SBT_SHIM_TIMED_ENV);

	shim__mm_init();
	resolve_all();
	if (!v || strcmp(v, "1"))
		return;
	shim__clock_ns = clock_read_cost();
	shim__timed = 1;
}

/* Libraries that define the wrapped functions, for a program that loaded
 * one with RTLD_LOCAL (RTLD_NEXT does not see it). */
static const char *const owners[] = {"libc.so.6", "libgomp.so.1", "libomp.so.5", "libomp.so"};

static void *in_owner(const char *name, const char *version)
{
	size_t i;
	void *h, *f;

	for (i = 0; i < sizeof(owners) / sizeof(owners[0]); i++) {
		h = dlopen(owners[i], RTLD_LAZY | RTLD_NOLOAD);
		if (!h)
			continue;
		f = version ? dlvsym(h, name, version) : dlsym(h, name);
		dlclose(h);
		if (f)
			return f;
	}
	return NULL;
}

/* How sbt-bpf recognizes the library (user/resolve/probes.c): a function,
 * which its symbol reader sees. */
SHIM_EXPORT void sbt_probes_shim_v1(void)
{
}

/* The definition a wrapper stands for, or NULL. */
static void *find_real(const char *name, const char *version)
{
	void *f = version ? dlvsym(RTLD_NEXT, name, version) : dlsym(RTLD_NEXT, name);

	return f ? f : in_owner(name, version);
}

/* weak: a library of the shim without wrappers has no such section */
extern struct shim_real *__start_sbt_real[] __attribute__((visibility("hidden"), weak));
extern struct shim_real *__stop_sbt_real[] __attribute__((visibility("hidden"), weak));

/* Every wrapper's real function that is loaded now (shim/shim.h); the
 * program finds no failed lookup's message left in dlerror(). */
static void resolve_all(void)
{
	struct shim_real **r;
	void *f;

	for (r = __start_sbt_real; r && r < __stop_sbt_real; r++)
		if ((f = find_real((*r)->name, (*r)->version)))
			__atomic_store_n(&(*r)->fn, f, __ATOMIC_RELEASE);
	dlerror();
}

void *shim__real(const char *name, const char *version)
{
	int saved = errno;
	void *f = find_real(name, version);
	static const char msg[] = "sbt-bpf probe shim: the function it wraps is nowhere: ";

	if (!f) {
		/* write(2): no stdio lock in a lock wrapper */
		if (write(2, msg, sizeof(msg) - 1) < 0 ||
		    write(2, name, __builtin_strlen(name)) < 0 || write(2, "\n", 1) < 0)
			abort();
		abort();
	}
	errno = saved;
	return f;
}
