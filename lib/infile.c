// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Reading files others control (lib/infile.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/infile.h"

int infile__check_regular(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	return S_ISREG(st.st_mode) ? 0 : -EINVAL;
}

int infile__open(const char *path, int extra_flags)
{
	/* O_NONBLOCK: opening a FIFO without a writer returns at once; it
	 * changes nothing for a regular file's reads. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | extra_flags), err;

	if (fd < 0)
		return -errno;
	err = infile__check_regular(fd);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

ssize_t infile__read_at(const char *path, uint64_t offset, void *buf, size_t n)
{
	int fd = infile__open(path, 0), err = 0;
	size_t got = 0;
	ssize_t r;

	if (fd < 0)
		return fd;
	while (got < n) {
		r = pread(fd, (char *)buf + got, n - got, (off_t)(offset + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			err = r < 0 ? -errno : 0;
			break;
		}
		got += r;
	}
	close(fd);
	return err ? err : (ssize_t)got;
}
