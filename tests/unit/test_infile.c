// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Reading files others control: regular files only, never blocking. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/infile.h"
#include "unit.h"

static char dir[] = "/tmp/sbt-infile.XXXXXX";

static const char *in_dir(const char *name)
{
	static char p[96];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

/* A FIFO without a writer would block a plain open forever. */
TEST(fifo_directory_and_missing_file_are_refused_at_once)
{
	CHECK(mkdtemp(dir) != NULL);
	CHECK_EQ(mkfifo(in_dir("fifo"), 0600), 0);
	CHECK_EQ(infile__open(in_dir("fifo"), 0), -EINVAL);
	CHECK_EQ(infile__open(dir, 0), -EINVAL);
	CHECK_EQ(infile__open(in_dir("none"), 0), -ENOENT);
	CHECK_EQ(infile__open("/dev/null", 0), -EINVAL);
	unlink(in_dir("fifo"));
}

TEST(read_at_an_offset_and_short_at_the_end)
{
	char buf[8] = {0};
	FILE *f = fopen(in_dir("data"), "w");

	CHECK(f != NULL);
	fputs("0123456789", f);
	fclose(f);
	CHECK_EQ(infile__read_at(in_dir("data"), 4, buf, 4), 4);
	CHECK(!memcmp(buf, "4567", 4));
	CHECK_EQ(infile__read_at(in_dir("data"), 8, buf, 8), 2);
	CHECK(!memcmp(buf, "89", 2));
	CHECK_EQ(infile__read_at(in_dir("data"), 100, buf, 8), 0);
	CHECK_EQ(infile__read_at(in_dir("none"), 0, buf, 8), -ENOENT);
	unlink(in_dir("data"));
}

/* O_NOFOLLOW as an extra flag: a symbolic link is not followed. */
TEST(extra_flags_are_honoured)
{
	int fd;

	CHECK_EQ(symlink("/etc/hostname", in_dir("link")), 0);
	CHECK_EQ(infile__open(in_dir("link"), O_NOFOLLOW), -ELOOP);
	fd = infile__open(in_dir("link"), 0);
	CHECK(fd >= 0);
	close(fd);
	unlink(in_dir("link"));
	rmdir(dir);
}
