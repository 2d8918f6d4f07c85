// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Private output files: mode 0600/0700, symbolic links refused. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/outfile.h"
#include "unit.h"

static char dir[64];

/* dir/name, in one of two buffers (a call may take two). */
static const char *in_dir(const char *name)
{
	static char p[2][128];
	static int k;

	k ^= 1;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static int mode_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? -1 : (int)(st.st_mode & 07777);
}

/* A fresh directory for the test; the previous test's is removed. */
static void make_dir(void)
{
	char cmd[96];

	if (dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			abort();
	}
	snprintf(dir, sizeof(dir), "/tmp/sbt-outfile.XXXXXX");
	if (!mkdtemp(dir))
		abort();
}

TEST(created_for_the_owner_only)
{
	mode_t old = umask(0);
	int fd;

	make_dir();
	fd = outfile__open(in_dir("t.sbt"));
	umask(old);
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ(mode_of(in_dir("t.sbt")), 0600);
	/* truncated, not refused, when it exists */
	fd = outfile__open(in_dir("t.sbt"));
	CHECK(fd >= 0);
	close(fd);
}

TEST(a_symbolic_link_is_refused_and_its_target_untouched)
{
	FILE *f;

	make_dir();
	f = fopen(in_dir("victim"), "w");
	CHECK(f != NULL);
	fputs("keep", f);
	fclose(f);
	CHECK_EQ(symlink(in_dir("victim"), in_dir("link")), 0);
	CHECK_EQ(outfile__open(in_dir("link")), -ELOOP);
	errno = 0;
	CHECK(outfile__fopen(in_dir("link")) == NULL);
	CHECK_EQ(errno, ELOOP);
	f = fopen(in_dir("victim"), "r");
	CHECK(f != NULL);
	{
		char buf[8] = "";

		CHECK(fgets(buf, sizeof(buf), f) != NULL);
		CHECK_STR(buf, "keep");
	}
	fclose(f);
}

TEST(private_dir_created_and_tightened)
{
	mode_t old = umask(0);

	make_dir();
	CHECK_EQ(outfile__private_dir(in_dir("cache")), 0);
	CHECK_EQ(mode_of(in_dir("cache")), 0700);
	CHECK_EQ(mkdir(in_dir("open"), 0755), 0);
	umask(old);
	CHECK_EQ(outfile__private_dir(in_dir("open")), 0);
	CHECK_EQ(mode_of(in_dir("open")), 0700);
	CHECK_EQ(symlink(in_dir("open"), in_dir("dirlink")), 0);
	CHECK_EQ(outfile__private_dir(in_dir("dirlink")), -ENOTDIR);
	CHECK_EQ(outfile__private_dir("/nonexistent/dir"), -ENOENT);
	make_dir();
	rmdir(dir);
}

/* Closing says whether everything written reached the file: a write that
 * failed before the close counts, though fclose() itself succeeds then. */
TEST(close_reports_every_failed_write)
{
	char block[8192];
	FILE *f;

	make_dir();
	memset(block, 'x', sizeof(block));
	f = outfile__fopen(in_dir("ok"));
	CHECK(f != NULL);
	CHECK_EQ(fwrite(block, 1, sizeof(block), f), sizeof(block));
	CHECK_EQ(outfile__close(f), 0);
	/* the failure is in the last flush */
	f = fopen("/dev/full", "w");
	CHECK(f != NULL);
	fputs("x", f);
	CHECK_EQ(outfile__close(f), -ENOSPC);
	/* the failure was earlier (an explicit flush), nothing is left */
	f = fopen("/dev/full", "w");
	CHECK(f != NULL);
	fputs("x", f);
	CHECK(fflush(f) != 0);
	CHECK_EQ(outfile__close(f), -EIO); /* a device: not a full file system */
}
