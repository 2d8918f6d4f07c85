// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Names of addresses (analyses/names.h): two barrier call sites that
 * symbolize alike (two calls on one source line) get names that do not. */
#include "analyses/names.h"
#include "unit.h"

static int site_is(const struct names *n, __u32 pid, __u64 addr, const char *want)
{
	char buf[128];

	names__site(n, pid, addr, buf, sizeof(buf));
	return !strcmp(buf, want);
}

TEST(sites_named_alike_are_numbered_in_the_order_named)
{
	struct names *n = names__new();

	CHECK(n != NULL);
	CHECK_EQ(names__set_numbered(n, 7, 0x174e, "main._omp_fn.0 (cg.c:56)"), 0);
	CHECK_EQ(names__set_numbered(n, 7, 0x1761, "main._omp_fn.0 (cg.c:56)"), 0);
	CHECK_EQ(names__set_numbered(n, 7, 0x1800, "main._omp_fn.0 (cg.c:56)"), 0);
	CHECK(site_is(n, 7, 0x174e, "main._omp_fn.0 (cg.c:56)"));
	CHECK(site_is(n, 7, 0x1761, "main._omp_fn.0 (cg.c:56) #2"));
	CHECK(site_is(n, 7, 0x1800, "main._omp_fn.0 (cg.c:56) #3"));
	/* another process: its own count */
	CHECK_EQ(names__set_numbered(n, 8, 0x1761, "main._omp_fn.0 (cg.c:56)"), 0);
	CHECK(site_is(n, 8, 0x1761, "main._omp_fn.0 (cg.c:56)"));
	/* an address named again keeps the name it is given */
	CHECK_EQ(names__set_numbered(n, 7, 0x1761, "main._omp_fn.0 (cg.c:57)"), 0);
	CHECK(site_is(n, 7, 0x1761, "main._omp_fn.0 (cg.c:57)"));
	/* plain names (a lock's call site on that line) are not counted */
	CHECK_EQ(names__set(n, 7, 0x1900, "main._omp_fn.0 (cg.c:56)"), 0);
	CHECK(site_is(n, 7, 0x1900, "main._omp_fn.0 (cg.c:56)"));
	CHECK_EQ(names__set_numbered(n, 7, 0x1a00, "main._omp_fn.0 (cg.c:56)"), 0);
	CHECK(site_is(n, 7, 0x1a00, "main._omp_fn.0 (cg.c:56) #4"));
	/* a trace file's numbered names read back as they were written */
	CHECK_EQ(names__set(n, 9, 0x10, "f (a.c:1)"), 0);
	CHECK_EQ(names__set(n, 9, 0x20, "f (a.c:1) #2"), 0);
	CHECK(site_is(n, 9, 0x20, "f (a.c:1) #2"));
	CHECK_EQ(names__count(n), 8);
	names__free(n);
}

TEST(looked_up_without_a_name_stays_empty)
{
	struct names *n = names__new();

	CHECK_EQ(names__set_numbered(n, 7, 0x1000, ""), 0);
	CHECK_EQ(names__set_numbered(n, 7, 0x2000, ""), 0);
	CHECK(!strcmp(names__get(n, 7, 0x2000), ""));
	CHECK(site_is(n, 7, 0x3000, "0x3000"));
	names__free(n);
}
